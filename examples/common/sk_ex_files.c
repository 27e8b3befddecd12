/* Folders and atomic file writes for both examples (sk_ex_files.h). */
#include "sk_ex_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sk_ex_path(char *buf, size_t cap, const char *dir, const char *name, sk_ex_error *err) {
  const int n = snprintf(buf, cap, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= cap) return sk_ex_fail(err, "%s: the path of %s is too long", dir, name);
  return 0;
}

int sk_ex_mkdir_p(const char *dir, sk_ex_error *err) {
  char path[4096];
  const size_t len = dir != NULL ? strlen(dir) : 0;
  if (len == 0 || len >= sizeof path)
    return sk_ex_fail(err, "folder name '%s' is empty or too long", dir != NULL ? dir : "");
  memcpy(path, dir, len + 1);
  /* Each prefix that ends before a '/', then the whole path. */
  for (size_t i = 1; i <= len; ++i) {
    if (path[i] != '/' && path[i] != '\0') continue;
    const char keep = path[i];
    path[i] = '\0';
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
      return sk_ex_fail(err, "%s: cannot create the folder: %s", path, strerror(errno));
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return sk_ex_fail(err, "%s: exists and is not a folder", path);
    path[i] = keep;
  }
  return 0;
}

/* PATH ".tmp" in a malloc'ed buffer, or NULL when out of memory. */
static char *temp_name(const char *path) {
  const size_t n = strlen(path);
  char *t = (char *)malloc(n + 5);
  if (t != NULL) {
    memcpy(t, path, n);
    memcpy(t + n, ".tmp", 5);
  }
  return t;
}

FILE *sk_ex_temp_create(const char *path, sk_ex_error *err) {
  if (path == NULL || path[0] == '\0') {
    sk_ex_fail(err, "output path is NULL or empty");
    return NULL;
  }
  char *tmp = temp_name(path);
  if (tmp == NULL) {
    sk_ex_fail(err, "%s: out of memory", path);
    return NULL;
  }
  FILE *f = fopen(tmp, "wb");
  if (f == NULL) sk_ex_fail(err, "%s: cannot open for writing: %s", tmp, strerror(errno));
  free(tmp);
  return f;
}

void sk_ex_temp_abort(FILE *f, const char *path) {
  if (f != NULL) fclose(f);
  if (path == NULL) return;
  char *tmp = temp_name(path);
  if (tmp != NULL) remove(tmp);
  free(tmp);
}

/* The commit of both variants; sync = 0 skips the fsync. */
static int temp_commit(FILE *f, const char *path, int sync, sk_ex_error *err) {
  if (f == NULL || path == NULL) return sk_ex_fail(err, "output: no open temporary file");
  char *tmp = temp_name(path);
  if (tmp == NULL) {
    sk_ex_temp_abort(f, NULL);
    return sk_ex_fail(err, "%s: out of memory", path);
  }
  int rc = 0;
  errno = 0;
  /* fsync before rename: after a crash the new name must not point at blocks never written. */
  const int bad = fflush(f) != 0 || ferror(f) || (sync && fsync(fileno(f)) != 0);
  const int e = errno;
  if (fclose(f) != 0 || bad) {
    rc = sk_ex_fail(err, "%s: write failed: %s", tmp, strerror(bad ? e : errno));
    remove(tmp);
  } else if (rename(tmp, path) != 0) {
    rc = sk_ex_fail(err, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
    remove(tmp);
  }
  free(tmp);
  return rc;
}

int sk_ex_temp_commit(FILE *f, const char *path, sk_ex_error *err) { return temp_commit(f, path, 1, err); }

int sk_ex_temp_commit_unsynced(FILE *f, const char *path, sk_ex_error *err) { return temp_commit(f, path, 0, err); }

int sk_ex_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return a != NULL && b != NULL && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

int sk_ex_prepare_outputs(const char *dir, const char *const *names, const char *input, int overwrite,
                          sk_ex_error *err) {
  char path[4096];
  struct stat st;
  for (int pass = 0; pass < 2; ++pass) /* every refusal before any removal */
    for (int i = 0; names[i] != NULL; ++i) {
      if (sk_ex_path(path, sizeof path, dir, names[i], err) != 0) return 1;
      if (stat(path, &st) != 0) continue;
      if (pass == 0 && sk_ex_same_file(path, input))
        return sk_ex_fail(err, "%s is the input file %s: give another folder", path, input);
      if (pass == 0 && !overwrite) return sk_ex_fail(err, "%s exists (--overwrite replaces it)", path);
      if (pass == 1 && remove(path) != 0 && errno != ENOENT)
        return sk_ex_fail(err, "%s: cannot remove: %s", path, strerror(errno));
    }
  return 0;
}

int sk_ex_check_writable(const char *path, sk_ex_error *err) {
  struct stat st;
  if (path != NULL && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return sk_ex_fail(err, "%s: exists and is not a regular file, so it cannot be written", path);
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return 1;
  sk_ex_temp_abort(f, path);
  return 0;
}

int sk_ex_check_output_dir(const char *dir, const char *const *names, sk_ex_error *err) {
  char path[4096];
  if (sk_ex_mkdir_p(dir, err) != 0) return 1;
  for (int i = 0; names[i] != NULL; ++i)
    if (sk_ex_path(path, sizeof path, dir, names[i], err) != 0 || sk_ex_check_writable(path, err) != 0) return 1;
  return 0;
}

int sk_ex_write_file(const char *path, int (*body)(FILE *, const void *), const void *ctx, sk_ex_error *err) {
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return 1;
  if (body(f, ctx) != 0 || ferror(f)) {
    const int e = errno;
    sk_ex_temp_abort(f, path);
    return sk_ex_fail(err, "%s: writing failed: %s", path, strerror(e));
  }
  return sk_ex_temp_commit(f, path, err);
}
