/* Shared by the fuzz targets of readers that take a path: the input's bytes go to a file in a folder of
   the fuzzing process's own (made once, removed at exit), and files written back are read to memory. */
#ifndef SK_FUZZ_FILE_H
#define SK_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* mkdtemp() is POSIX 2008 but <stdlib.h> declares it only with the XOPEN feature macros. */
char *mkdtemp(char *template_);

static char sk_fuzz_dir[64];
static char sk_fuzz_made[8][128]; /* the files made in it, removed at exit */
static int sk_fuzz_num_made;

static void sk_fuzz_cleanup(void) {
  for (int i = 0; i < sk_fuzz_num_made; ++i) remove(sk_fuzz_made[i]);
  if (sk_fuzz_dir[0] != '\0') rmdir(sk_fuzz_dir);
}

/* The path of file NAME in the process's folder (the same pointer on every call with the same NAME). */
static inline const char *sk_fuzz_path(const char *name) {
  if (sk_fuzz_dir[0] == '\0') {
    strcpy(sk_fuzz_dir, "/tmp/sk_fuzz_XXXXXX");
    if (mkdtemp(sk_fuzz_dir) == NULL) abort();
    atexit(sk_fuzz_cleanup);
  }
  char path[128];
  snprintf(path, sizeof path, "%s/%s", sk_fuzz_dir, name);
  for (int i = 0; i < sk_fuzz_num_made; ++i)
    if (strcmp(sk_fuzz_made[i], path) == 0) return sk_fuzz_made[i];
  if (sk_fuzz_num_made == 8) abort();
  strcpy(sk_fuzz_made[sk_fuzz_num_made], path);
  return sk_fuzz_made[sk_fuzz_num_made++];
}

/* Writes n bytes as file NAME of the folder; returns its path. A write that fails is the harness's
   failure, not the reader's: abort. */
static inline const char *sk_fuzz_write(const char *name, const void *p, size_t n) {
  const char *path = sk_fuzz_path(name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) abort();
  return path;
}

/* The whole of file PATH in a malloc'ed buffer (*n bytes); NULL when it cannot be read. */
static inline unsigned char *sk_fuzz_slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 4096, len = 0;
  unsigned char *b = (unsigned char *)malloc(cap);
  for (;;) {
    if (b == NULL) break;
    len += fread(b + len, 1, cap - len, f);
    if (len < cap) break;
    unsigned char *q = (unsigned char *)realloc(b, cap *= 2);
    if (q == NULL) free(b);
    b = q;
  }
  fclose(f);
  *n = len;
  return b;
}

/* Rewrites the last 4 bytes of p[0 .. n) with the CRC-32 of the rest (the files of binary_io.h), so that
   mutations get past the checksum to the fields. */
static inline void sk_fuzz_fix_crc(unsigned char *p, size_t n) {
  if (n < 4) return;
  const uint32_t c = (uint32_t)crc32(0L, p, (uInt)(n - 4));
  for (int i = 0; i < 4; ++i) p[n - 4 + (size_t)i] = (unsigned char)(c >> (8 * i));
}

#endif /* SK_FUZZ_FILE_H */
