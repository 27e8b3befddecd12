/* A run's output folder (run_dir.h). */
#include "run_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "output.h"

const char *const sk_lda_run_dir_files[] = {SK_LDA_CHECKPOINT_FILE, "metrics.csv", "topics.txt", "model.skl",
                                            "phi.npy", "theta.txt", "theta.npy", "z.bin", NULL};

const char *sk_lda_run_dir_holds_run(const char *dir) {
  char path[4096];
  struct stat st;
  for (int i = 0; sk_lda_run_dir_files[i] != NULL; ++i)
    if (sk_ex_path(path, sizeof path, dir, sk_lda_run_dir_files[i], NULL) == 0 && stat(path, &st) == 0)
      return sk_lda_run_dir_files[i];
  return NULL;
}

int sk_lda_same_dir(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int sk_lda_run_dir_clear(const char *dir, int keep_state, sk_ex_error *err) {
  char path[4096];
  for (int i = keep_state ? 2 : 0; sk_lda_run_dir_files[i] != NULL; ++i) {
    if (sk_ex_path(path, sizeof path, dir, sk_lda_run_dir_files[i], err) != 0) return 1;
    if (remove(path) != 0 && errno != ENOENT) return sk_ex_fail(err, "%s: cannot remove: %s", path, strerror(errno));
  }
  return 0;
}

int sk_lda_run_dir_restartable(const char *dir) {
  char path[4096];
  struct stat st;
  if (sk_lda_run_dir_holds_run(dir) == NULL) return 0;
  /* What a run leaves before its first checkpoint is its metrics.csv; any other of the run files (a
     model, an export's phi.npy, a z.bin) or a metrics.csv that is not sk-lda's log is something a
     restart would remove. */
  for (int i = 0; sk_lda_run_dir_files[i] != NULL; ++i) {
    if (sk_ex_path(path, sizeof path, dir, sk_lda_run_dir_files[i], NULL) != 0) return 0;
    if (stat(path, &st) != 0) continue;
    if (strcmp(sk_lda_run_dir_files[i], "metrics.csv") != 0 || !sk_lda_metrics_file_is_log(path)) return 0;
  }
  return 1;
}

/* --- the lock ------------------------------------------------------------------------------------ */

static void lock_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The process id written in the lock file, or 0 when it holds none. */
static long lock_file_pid(int fd) {
  char buf[32];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = '\0';
  char *end = NULL;
  const long pid = strtol(buf, &end, 10);
  return end != buf && pid > 0 ? pid : 0;
}

static int pid_alive(long pid) { return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM); }

/* The id of the busy lock's holder: retried while the file names no live process (the holder has just
   taken the lock and not yet written its id). 0 when none shows within about 200 ms. */
static long lock_holder(int fd) {
  long pid = 0;
  for (int i = 0; i < 20; ++i) {
    pid = lock_file_pid(fd);
    if (pid_alive(pid)) return pid;
    lock_sleep_ms(10);
  }
  return pid;
}

int sk_lda_run_dir_lock_take(const char *dir, sk_lda_run_dir_lock *lock, long *holder, int *stale, sk_ex_error *err) {
  lock->fd = -1;
  *holder = 0;
  *stale = 0;
  if (sk_ex_path(lock->path, sizeof lock->path, dir, SK_LDA_RUN_DIR_LOCK_FILE, err) != 0)
    return SK_LDA_RUN_DIR_LOCK_FAILED;
  long last = 0;
  /* Busy with no live id in the file: its holder is between taking and writing, or has just ended (then
     the next try takes it); either way it settles within milliseconds. */
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open(lock->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      sk_ex_fail(err, "%s: cannot create the lock file: %s", lock->path, strerror(errno));
      return SK_LDA_RUN_DIR_LOCK_FAILED;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      if (e == EINTR) {
        close(fd);
        continue;
      }
      if (e != EWOULDBLOCK) {
        close(fd);
        sk_ex_fail(err, "%s: cannot lock: %s", lock->path, strerror(e));
        return SK_LDA_RUN_DIR_LOCK_UNSUPPORTED;
      }
      last = lock_file_pid(fd);
      close(fd);
      if (pid_alive(last)) {
        *holder = last;
        return SK_LDA_RUN_DIR_LOCK_IN_USE;
      }
      lock_sleep_ms(10);
      continue;
    }
    /* Locked; but the holder before us removes the file before it lets go, so what we locked may be a
       file no longer under the name: then another process may lock the new one, and we start over. */
    struct stat a, b;
    if (fstat(fd, &a) != 0 || stat(lock->path, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
      close(fd);
      continue;
    }
    *stale = lock_file_pid(fd) > 0;
    char text[32];
    const int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
    /* The id is for the messages of refused writers only: failing to write it does not matter. */
    const int written = ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == (ssize_t)n;
    (void)written;
    lock->fd = fd;
    return SK_LDA_RUN_DIR_LOCK_TAKEN;
  }
  *holder = last;
  return SK_LDA_RUN_DIR_LOCK_IN_USE;
}

void sk_lda_run_dir_lock_release(sk_lda_run_dir_lock *lock) {
  if (lock == NULL || lock->fd < 0) return;
  (void)unlink(lock->path);
  close(lock->fd);
  lock->fd = -1;
}

int sk_lda_run_dir_in_use(const char *dir, long *holder) {
  char path[4096];
  *holder = 0;
  if (sk_ex_path(path, sizeof path, dir, SK_LDA_RUN_DIR_LOCK_FILE, NULL) != 0) return 0;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int used = 0;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EINTR)) {
    used = 1;
    *holder = lock_holder(fd);
  }
  close(fd); /* drops the shared lock when it was taken */
  return used;
}
