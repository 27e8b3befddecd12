/* Option values of sk-mixture (cli.h). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int sk_mix_parse_value(const char *cmd, const char *option, const char *text, int kind, double min, double max,
                       void *out) {
  char *end = NULL;
  int ok;
  errno = 0;
  if (kind == SK_MIX_VALUE_U64) {
    const unsigned long long v = strtoull(text, &end, 10);
    /* strtoull skips blanks and takes a sign (" -1" wraps to 2^64 - 1): a digit must come first */
    ok = end != text && *end == '\0' && errno != ERANGE && isdigit((unsigned char)text[0]);
    if (ok)
      *(uint64_t *)out = (uint64_t)v;
    else
      fprintf(stderr, "sk-mixture %s: %s: '%s' is not a whole number in [0, 2^64 - 1]\n", cmd, option, text);
  } else if (kind == SK_MIX_VALUE_INT) {
    const long long v = strtoll(text, &end, 10);
    ok = end != text && *end == '\0' && errno != ERANGE && (double)v >= min && (double)v <= max;
    if (ok)
      *(long long *)out = v;
    else
      fprintf(stderr, "sk-mixture %s: %s: '%s' is not a whole number in [%.0f, %.0f]\n", cmd, option, text, min, max);
  } else {
    const double v = strtod(text, &end);
    ok = end != text && *end == '\0' && errno != ERANGE && isfinite(v) && v >= min && v <= max;
    if (ok)
      *(double *)out = v;
    else
      fprintf(stderr, "sk-mixture %s: %s: '%s' is not a number in [%g, %g]\n", cmd, option, text, min, max);
  }
  return ok;
}
