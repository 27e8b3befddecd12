/* The examples' error message (sk_ex_error.h). */
#include "sk_ex_error.h"

#include <stdio.h>

int sk_ex_vfail(sk_ex_error *err, const char *fmt, va_list ap) {
  if (err != NULL) vsnprintf(err->message, sizeof err->message, fmt, ap);
  return 1;
}

int sk_ex_fail(sk_ex_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sk_ex_vfail(err, fmt, ap);
  va_end(ap);
  return 1;
}

int sk_ex_error_prefix(sk_ex_error *err, const char *prefix) {
  if (err != NULL) {
    char what[sizeof err->message];
    snprintf(what, sizeof what, "%s", err->message);
    sk_ex_fail(err, "%s: %s", prefix, what);
  }
  return 1;
}
