/* A run's output folder (run_dir.h). */
#include "run_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint.h"
#include "output.h"

const char *const sk_lda_run_dir_files[] = {SK_LDA_CHECKPOINT_FILE, "metrics.csv", "topics.txt", "model.skl",
                                            "theta.txt", "z.bin", NULL};

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

int sk_lda_run_dir_check_writable(const char *dir, sk_ex_error *err) {
  char path[4096];
  for (int i = 0; sk_lda_run_dir_files[i] != NULL; ++i) {
    if (sk_ex_path(path, sizeof path, dir, sk_lda_run_dir_files[i], err) != 0 ||
        sk_ex_check_writable(path, err) != 0)
      return 1;
  }
  return 0;
}

int sk_lda_run_dir_clear(const char *dir, int keep_state, sk_ex_error *err) {
  char path[4096];
  for (int i = keep_state ? 2 : 0; sk_lda_run_dir_files[i] != NULL; ++i) {
    if (sk_ex_path(path, sizeof path, dir, sk_lda_run_dir_files[i], err) != 0) return 1;
    if (remove(path) != 0 && errno != ENOENT) return sk_ex_fail(err, "%s: cannot remove: %s", path, strerror(errno));
  }
  return 0;
}
