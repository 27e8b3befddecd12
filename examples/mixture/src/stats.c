/* Exact sufficient statistics on the CPU (stats.h). */
#include "stats.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void sk_mix_fixed_scales(int64_t n, int *f1, int *f2) {
  int bits = 0;
  for (uint64_t v = (uint64_t)(n > 0 ? n : 1); v != 0u; v >>= 1) ++bits;
  *f1 = 61 - bits;
  *f2 = 61 - bits;
}

void sk_mix_stats_get(const sk_mix_stats *s, int32_t k, int32_t j, double *sx, double *sxx) {
  const size_t at = (size_t)k * (size_t)s->d + (size_t)j;
  *sx = ldexp((double)s->sx[at], -s->f1);
  *sxx = ldexp((double)s->sxx[at], -s->f2);
}

int sk_mix_stats_cpu(const sk_mix_data *data, const int32_t *z, int threads, sk_mix_stats *out, sk_ex_error *err) {
  const int64_t n = data->n;
  const int32_t d = data->d, k = out->k;
  const size_t per = (size_t)k * (size_t)(2 * d + 1); /* count, then sx, then sxx */
  const int nt = sk_mix_threads(threads);
  const double scale1 = ldexp(1.0, out->f1), scale2 = ldexp(1.0, out->f2);
  for (int64_t i = 0; i < n; ++i)
    if (z[i] < 0 || z[i] >= k)
      return sk_ex_fail(err, "statistics: point %lld has component %d, not in [0, %d)", (long long)i, (int)z[i],
                         (int)k);
  /* Integer partials per thread: exact, so the order in which they are added back does not matter. */
  int64_t *part = (int64_t *)calloc((size_t)nt * per, sizeof(int64_t));
  if (part == NULL) return sk_ex_fail(err, "statistics: out of memory for %d threads' partial sums", nt);
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    int64_t *mine = part + (size_t)omp_get_thread_num() * per;
#else
    int64_t *mine = part;
#endif
    int64_t *cnt = mine, *sx = mine + k, *sxx = mine + k + (size_t)k * (size_t)d;
    int64_t i;
#pragma omp for schedule(static)
    for (i = 0; i < n; ++i) {
      const float *x = data->x + (size_t)i * (size_t)d;
      const size_t row = (size_t)z[i] * (size_t)d;
      int32_t j;
      cnt[z[i]] += 1;
      for (j = 0; j < d; ++j) {
        sx[row + (size_t)j] += sk_mix_fixed_x(x[j], scale1);
        sxx[row + (size_t)j] += sk_mix_fixed_xx(x[j], scale2);
      }
    }
  }
  sk_mix_stats_zero(out);
  for (int t = 0; t < nt; ++t) {
    const int64_t *p = part + (size_t)t * per;
    for (int32_t c = 0; c < k; ++c) out->count[c] += p[c];
    for (size_t i = 0; i < (size_t)k * (size_t)d; ++i) {
      out->sx[i] += p[(size_t)k + i];
      out->sxx[i] += p[(size_t)k + (size_t)k * (size_t)d + i];
    }
  }
  free(part);
  return 0;
}
