/* Shared by sk-mixture's fuzz targets: the input's bytes go to a file in a folder of the fuzzing process's
   own (made once, removed at exit), and the data a reader returns is checked. */
#ifndef SK_MIX_FUZZ_DATA_CHECK_H
#define SK_MIX_FUZZ_DATA_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data.h"

/* mkdtemp() is POSIX 2008 but <stdlib.h> declares it only with the XOPEN feature macros. */
char *mkdtemp(char *template_);

static char sk_mix_fuzz_dir[64], sk_mix_fuzz_file[128];

static void sk_mix_fuzz_cleanup(void) {
  if (sk_mix_fuzz_file[0] != '\0') remove(sk_mix_fuzz_file);
  if (sk_mix_fuzz_dir[0] != '\0') rmdir(sk_mix_fuzz_dir);
}

/* Writes n bytes as file NAME (always the same name) of the folder; returns its path. */
static inline const char *sk_mix_fuzz_write(const char *name, const void *p, size_t n) {
  if (sk_mix_fuzz_dir[0] == '\0') {
    strcpy(sk_mix_fuzz_dir, "/tmp/sk_mix_fuzz_XXXXXX");
    if (mkdtemp(sk_mix_fuzz_dir) == NULL) abort();
    snprintf(sk_mix_fuzz_file, sizeof sk_mix_fuzz_file, "%s/%s", sk_mix_fuzz_dir, name);
    atexit(sk_mix_fuzz_cleanup);
  }
  FILE *f = fopen(sk_mix_fuzz_file, "wb");
  if (f == NULL || (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) abort(); /* the harness's failure */
  return sk_mix_fuzz_file;
}

/* What a read promises (data.h, mixture.h): on failure *out zeroed and one message; on success
   1 <= D <= SK_MIX_MAX_D, N >= 1, finite means, finite positive scales and standardized values, each at
   most sqrt(N) from 0 (population deviation; the bound is loosened for float rounding and for variances
   that round in the subnormal range). `max_n` bounds N by the file's size (a row takes bytes). */
static inline void sk_mix_fuzz_check(const sk_mix_data *d, int rc, const sk_ex_error *err, int64_t max_n) {
  if (rc != 0) {
    if (d->n != 0 || d->d != 0 || d->x != NULL || d->mean != NULL || d->scale != NULL) abort();
    if (memchr(err->message, '\0', sizeof err->message) == NULL || err->message[0] == '\0') abort();
    return;
  }
  if (d->n < 1 || d->n > max_n || d->d < 1 || d->d > SK_MIX_MAX_D) abort();
  if (d->x == NULL || d->mean == NULL || d->scale == NULL) abort();
  const double bound = 2.0 * sqrt((double)d->n) + 1.0;
  for (int32_t j = 0; j < d->d; ++j)
    if (!isfinite(d->mean[j]) || !isfinite(d->scale[j]) || !(d->scale[j] > 0.0)) abort();
  for (int64_t i = 0; i < d->n * (int64_t)d->d; ++i)
    if (!isfinite(d->x[i]) || fabs((double)d->x[i]) > bound) abort();
}

#endif /* SK_MIX_FUZZ_DATA_CHECK_H */
