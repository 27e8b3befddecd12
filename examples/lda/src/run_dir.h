/**
 * \file run_dir.h
 * \brief Internal to run.c: the rules for a run's output folder.
 *
 * A folder "holds a run" when any file a run writes is there (sk_lda_run_dir_files); a new run refuses
 * such a folder unless told to overwrite it, and every file a run will write is checked writable before
 * the first sweep, so that no sweep is spent on results that cannot be saved. A folder whose run stopped
 * before its first checkpoint (sk_lda_run_dir_restartable()) holds nothing that can be resumed or used,
 * so a new run may take it over.
 *
 * **The lock.** The process that writes a run folder holds an advisory lock (flock(2), exclusive) on
 * DIR/run.lock from before it writes anything there until it ends, with its process id written in the
 * file, so that a second writer is refused instead of mixing two runs' files. The kernel drops the lock
 * of a process that dies, even by SIGKILL, so a killed run never leaves the folder locked (only the
 * file, which the next holder reuses); a process that ends normally removes the file. The lock file is
 * not one of sk_lda_run_dir_files: it never makes a folder "hold a run" and --overwrite leaves it alone.
 * A process never probes (sk_lda_run_dir_in_use()) a folder whose lock it holds: on NFS, Linux emulates
 * flock with POSIX record locks, which the close of any descriptor of the file drops.
 */
#ifndef SK_LDA_RUN_DIR_H
#define SK_LDA_RUN_DIR_H

#include <stddef.h>

#include "corpus.h"
#include "sk_ex_files.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief The files a run writes into its folder, NULL-terminated; the first two are the run's state
 * (checkpoint.skc, metrics.csv), the rest its outputs.
 */
extern const char *const sk_lda_run_dir_files[];

/**
 * \brief The first of sk_lda_run_dir_files present in DIR.
 * \param dir the folder (DIR).
 * \return the file's name, or NULL when DIR holds no run.
 */
const char *sk_lda_run_dir_holds_run(const char *dir);

/**
 * \brief Whether the two paths name the same existing folder (same device and inode).
 * \param a a path.
 * \param b a path.
 * \return 1 when the two paths name the same existing folder, else 0.
 */
int sk_lda_same_dir(const char *a, const char *b);

/** \brief The lock file's name inside a run folder. */
#define SK_LDA_RUN_DIR_LOCK_FILE "run.lock"

/** \brief What sk_lda_run_dir_lock_take() did. */
enum {
  SK_LDA_RUN_DIR_LOCK_TAKEN = 0,      /**< the caller holds the lock */
  SK_LDA_RUN_DIR_LOCK_IN_USE = 1,     /**< another process holds it */
  SK_LDA_RUN_DIR_LOCK_FAILED = 2,     /**< the lock file cannot be created (the folder is not writable) */
  SK_LDA_RUN_DIR_LOCK_UNSUPPORTED = 3 /**< the file system refuses locks (flock fails otherwise than busy) */
};

/** \brief A held lock of a run folder: fd < 0 when none is held. */
typedef struct sk_lda_run_dir_lock {
  int fd;           /**< the open lock file, or -1 */
  char path[4096];  /**< DIR/run.lock */
} sk_lda_run_dir_lock;

/**
 * \brief Takes the lock of run folder DIR (which must exist) for this process, without waiting.
 *
 * The file is created when missing; once locked, it is checked to still be the file under its name (a
 * holder that ended may have removed it meanwhile: then the new one is taken) and this process's id
 * replaces its contents. When the lock is busy, the holder's id is read from the file, retried for up to
 * about a second while the file names no live process (a holder that has just taken it and not yet
 * written its id, or one that has just ended and left it to us).
 * \param dir the folder (DIR).
 * \param lock receives the held lock (fd >= 0) on SK_LDA_RUN_DIR_LOCK_TAKEN, fd = -1 otherwise.
 * \param holder receives the holder's process id on SK_LDA_RUN_DIR_LOCK_IN_USE (0: not known).
 * \param stale receives 1 when the file was there with an id in it before this call took the lock: the
 *        last process that held it ended without removing it (killed), else 0.
 * \param err filled on SK_LDA_RUN_DIR_LOCK_FAILED and SK_LDA_RUN_DIR_LOCK_UNSUPPORTED, naming the file.
 * \return one of SK_LDA_RUN_DIR_LOCK_*.
 */
int sk_lda_run_dir_lock_take(const char *dir, sk_lda_run_dir_lock *lock, long *holder, int *stale, sk_ex_error *err);

/**
 * \brief Removes the lock file and releases the lock (in that order, so that a process that opened the
 * file meanwhile finds it replaced); a lock with fd < 0, or NULL, is a no-op.
 * \param lock the lock; its fd becomes -1.
 */
void sk_lda_run_dir_lock_release(sk_lda_run_dir_lock *lock);

/**
 * \brief Whether another process holds the lock of DIR, without taking it (a shared probe: probes never
 * exclude each other). A process that holds DIR's lock itself gets 1 with its own id.
 * \param dir the folder (DIR).
 * \param holder receives the holder's process id when it is held (0: not known).
 * \return 1 when held, 0 when not (also when DIR or its lock file does not exist).
 */
int sk_lda_run_dir_in_use(const char *dir, long *holder);

/**
 * \brief Whether DIR holds what a run that stopped before its first checkpoint leaves of
 * sk_lda_run_dir_files: its metrics.csv (sk-lda's log: sk_lda_metrics_file_is_log()) and no other.
 * Nothing there can be resumed or used, so a new run may replace it without --overwrite; a folder with
 * any other of those files, or a metrics.csv of someone else's, is not a stopped run's. Call it with
 * DIR's lock held.
 * \param dir the folder (DIR).
 * \return 1 when so, else 0.
 */
int sk_lda_run_dir_restartable(const char *dir);

/**
 * \brief Removes the run's files from DIR: the outputs, and the state too when `keep_state` is 0 (a
 * missing file is fine).
 *
 * A resumed run clears the outputs of its earlier part so that none can be mistaken for its own; an
 * overwritten folder loses everything of the run that was there.
 * \param dir the folder (DIR).
 * \param keep_state non-zero: keep the state (checkpoint.skc, metrics.csv).
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_run_dir_clear(const char *dir, int keep_state, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_RUN_DIR_H */
