/* The examples' monotonic clock (sk_ex_clock.h). */
#include "sk_ex_clock.h"

#include <time.h>

double sk_ex_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
