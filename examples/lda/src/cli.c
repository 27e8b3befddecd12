/* Strict number parsing for sk-lda's options (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int sk_lda_parse_ll(const char *cmd, const char *option, const char *text, long long min, long long max,
                    long long *out) {
  char *end = NULL;
  errno = 0;
  const long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < min || v > max) {
    fprintf(stderr, "sk-lda %s: %s: '%s' is not a whole number in [%lld, %lld]\n", cmd, option, text, min, max);
    return 0;
  }
  *out = v;
  return 1;
}

int sk_lda_parse_u64(const char *cmd, const char *option, const char *text, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-') {
    fprintf(stderr, "sk-lda %s: %s: '%s' is not a whole number in [0, 2^64 - 1]\n", cmd, option, text);
    return 0;
  }
  *out = (uint64_t)v;
  return 1;
}

int sk_lda_parse_double(const char *cmd, const char *option, const char *text, double min, double max, double *out) {
  char *end = NULL;
  errno = 0;
  const double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min || v > max) {
    fprintf(stderr, "sk-lda %s: %s: '%s' is not a number in [%g, %g]\n", cmd, option, text, min, max);
    return 0;
  }
  *out = v;
  return 1;
}
