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

int sk_lda_run_dir_path(char *buf, size_t cap, const char *dir, const char *name, sk_lda_error *err) {
  const int n = snprintf(buf, cap, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= cap) return sk_lda_fail(err, "%s: the path of %s is too long", dir, name);
  return 0;
}

int sk_lda_mkdir_p(const char *dir, sk_lda_error *err) {
  char path[4096];
  const size_t len = strlen(dir);
  if (len == 0 || len >= sizeof path) return sk_lda_fail(err, "folder name '%s' is empty or too long", dir);
  memcpy(path, dir, len + 1);
  /* Each prefix that ends before a '/', then the whole path. */
  for (size_t i = 1; i <= len; ++i) {
    if (path[i] != '/' && path[i] != '\0') continue;
    const char keep = path[i];
    path[i] = '\0';
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
      return sk_lda_fail(err, "%s: cannot create the folder: %s", path, strerror(errno));
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
      return sk_lda_fail(err, "%s: exists and is not a folder", path);
    path[i] = keep;
  }
  return 0;
}

const char *sk_lda_run_dir_holds_run(const char *dir) {
  char path[4096];
  struct stat st;
  for (int i = 0; sk_lda_run_dir_files[i] != NULL; ++i)
    if (sk_lda_run_dir_path(path, sizeof path, dir, sk_lda_run_dir_files[i], NULL) == 0 && stat(path, &st) == 0)
      return sk_lda_run_dir_files[i];
  return NULL;
}

int sk_lda_same_dir(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int sk_lda_run_dir_check_writable(const char *dir, sk_lda_error *err) {
  char path[4096];
  for (int i = 0; sk_lda_run_dir_files[i] != NULL; ++i) {
    if (sk_lda_run_dir_path(path, sizeof path, dir, sk_lda_run_dir_files[i], err) != 0 ||
        sk_lda_detail_check_writable(path, err) != 0)
      return 1;
  }
  return 0;
}

int sk_lda_run_dir_clear(const char *dir, int keep_state, sk_lda_error *err) {
  char path[4096];
  for (int i = keep_state ? 2 : 0; sk_lda_run_dir_files[i] != NULL; ++i) {
    if (sk_lda_run_dir_path(path, sizeof path, dir, sk_lda_run_dir_files[i], err) != 0) return 1;
    if (remove(path) != 0 && errno != ENOENT) return sk_lda_fail(err, "%s: cannot remove: %s", path, strerror(errno));
  }
  return 0;
}
