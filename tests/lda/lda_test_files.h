/*
 * Files of sk-lda's file tests (test_output.c, test_priors.c): a scratch folder g_dir (the test makes it
 * with mkdtemp and removes it) and two helpers.
 */
#ifndef SK_LDA_TEST_FILES_H
#define SK_LDA_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

static char g_dir[256];

/* g_dir/name, in one of four rotating buffers (so that two paths can be used together). */
static const char *tpath(const char *name) {
  static char buf[4][512];
  static int i = 0;
  i = (i + 1) & 3;
  snprintf(buf[i], sizeof buf[i], "%s/%s", g_dir, name);
  return buf[i];
}

/* The whole file, NUL-terminated (the caller frees it), or NULL; *size gets its bytes (0 on failure). */
static unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  *size = 0;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = (unsigned char *)malloc((size_t)n + 1);
  if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b != NULL) b[n] = 0, *size = (size_t)n;
  return b;
}

#endif /* SK_LDA_TEST_FILES_H */
