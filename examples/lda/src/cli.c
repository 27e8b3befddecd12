/* Strict number parsing for sk-lda's options (see cli.h). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  /* strtoull skips blanks and takes a sign ("-1" wraps to 2^64 - 1): a digit must come first */
  if (end == text || *end != '\0' || errno == ERANGE || !isdigit((unsigned char)text[0])) {
    fprintf(stderr, "sk-lda %s: %s: '%s' is not a whole number in [0, 2^64 - 1]\n", cmd, option, text);
    return 0;
  }
  *out = (uint64_t)v;
  return 1;
}

int sk_lda_parse_bytes(const char *cmd, const char *option, const char *text, uint64_t min, uint64_t *out) {
  static const char *const suffixes[] = {"", "K", "M", "G", "T"};
  char *end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(text, &end, 10);
  int shift = -1;
  if (end != text && errno != ERANGE && isdigit((unsigned char)text[0]))
    for (int i = 0; i < 5 && shift < 0; ++i) {
      const size_t n = strlen(suffixes[i]);
      if (strncmp(end, suffixes[i], n) == 0 && (end[n] == '\0' || (i > 0 && strcmp(end + n, "iB") == 0)))
        shift = 10 * i;
    }
  const uint64_t limit = (uint64_t)1 << 62;
  if (shift < 0 || v > (limit >> shift) || ((uint64_t)v << shift) < min) {
    fprintf(stderr, "sk-lda %s: %s: '%s' is not a byte count from %llu to 2^62 (a whole number, optionally with K, M, "
                    "G or T: powers of 1024)\n", cmd, option, text, (unsigned long long)min);
    return 0;
  }
  *out = (uint64_t)v << shift;
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
