/**
 * \file run_dir.h
 * \brief Internal to run.c: the rules for a run's output folder.
 *
 * A folder "holds a run" when any file a run writes is there (sk_lda_run_dir_files); a new run refuses
 * such a folder unless told to overwrite it, and every file a run will write is checked writable before
 * the first sweep, so that no sweep is spent on results that cannot be saved.
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

/**
 * \brief Checks that every file of sk_lda_run_dir_files can be written in DIR: none is there as something
 * other than a regular file, and a temporary file of each name can be created (and is removed).
 * \param dir the folder (DIR).
 * \param err filled when one cannot.
 * \return 0 when every file can be written, non-zero otherwise.
 */
int sk_lda_run_dir_check_writable(const char *dir, sk_ex_error *err);

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
