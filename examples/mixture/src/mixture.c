/* The shared types of sk-mixture (mixture.h): errors, prior, parameters, tables, statistics. */
#include "mixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "stats.h"

void sk_mix_prior_default(sk_mix_prior *p) {
  p->alpha = 1.0;
  p->kappa0 = 0.01;
  p->a0 = 2.0;
  p->b0 = 0.1;
}

int sk_mix_prior_check(const sk_mix_prior *p, sk_ex_error *err) {
  const double v[4] = {p->alpha, p->kappa0, p->a0, p->b0};
  const char *names[4] = {"alpha", "kappa0", "a0", "b0"};
  int i;
  for (i = 0; i < 4; ++i)
    if (!(v[i] > 0.0) || !isfinite(v[i]))
      return sk_ex_fail(err, "prior: %s = %g must be finite and > 0", names[i], v[i]);
  return 0;
}

/* calloc of n elements of `size` bytes, n > 0, with a message naming `what` when it fails. */
static void *alloc_zeroed(size_t n, size_t size, const char *what, sk_ex_error *err) {
  void *p = calloc(n > 0 ? n : 1, size);
  if (p == NULL) sk_ex_fail(err, "out of memory for %s (%zu x %zu bytes)", what, n, size);
  return p;
}

int sk_mix_params_alloc(sk_mix_params *p, int32_t k, int32_t d, sk_ex_error *err) {
  const size_t kd = (size_t)k * (size_t)d;
  memset(p, 0, sizeof *p);
  p->k = k;
  p->d = d;
  p->log_pi = (double *)alloc_zeroed((size_t)k, sizeof(double), "the weights", err);
  p->mu = p->log_pi ? (double *)alloc_zeroed(kd, sizeof(double), "the means", err) : NULL;
  p->sigma2 = p->mu ? (double *)alloc_zeroed(kd, sizeof(double), "the variances", err) : NULL;
  if (p->sigma2 == NULL) {
    sk_mix_params_free(p);
    return 1;
  }
  return 0;
}

void sk_mix_params_free(sk_mix_params *p) {
  if (p == NULL) return;
  free(p->log_pi);
  free(p->mu);
  free(p->sigma2);
  memset(p, 0, sizeof *p);
}

void sk_mix_params_copy(sk_mix_params *dst, const sk_mix_params *src) {
  const size_t kd = (size_t)src->k * (size_t)src->d;
  memcpy(dst->log_pi, src->log_pi, sizeof(double) * (size_t)src->k);
  memcpy(dst->mu, src->mu, sizeof(double) * kd);
  memcpy(dst->sigma2, src->sigma2, sizeof(double) * kd);
}

int sk_mix_ztable_alloc(sk_mix_ztable *t, int32_t k, int32_t d, sk_ex_error *err) {
  memset(t, 0, sizeof *t);
  t->k = k;
  t->d = d;
  t->k_pad = (k + 31) / 32 * 32;
  /* One block, c then s then ms, so that the GPU takes it in one copy. */
  t->c = (float *)alloc_zeroed((size_t)t->k_pad * (size_t)(2 * d + 1), sizeof(float), "the z-step table", err);
  if (t->c == NULL) return 1;
  t->s = t->c + t->k_pad;
  t->ms = t->s + (size_t)t->k_pad * (size_t)d;
  return 0;
}

void sk_mix_ztable_free(sk_mix_ztable *t) {
  if (t == NULL) return;
  free(t->c);
  memset(t, 0, sizeof *t);
}

void sk_mix_ztable_set(sk_mix_ztable *t, const sk_mix_params *p) {
  /* Base 2: log2(e) = 1 / ln 2 scales the log-weight; its square root over 2 scales each t_j. */
  const double log2e = 1.0 / log(2.0), g = sqrt(0.5 * log2e);
  int32_t k, j;
  for (k = 0; k < p->k; ++k) {
    double log_det = 0.0;
    for (j = 0; j < p->d; ++j) {
      const size_t at = (size_t)j * (size_t)t->k_pad + (size_t)k;
      double v = p->sigma2[(size_t)k * (size_t)p->d + (size_t)j];
      v = v < 1e-30 ? 1e-30 : v > 1e30 ? 1e30 : v;
      const double sd = sqrt(v);
      t->s[at] = (float)(g / sd);
      t->ms[at] = (float)(g * p->mu[(size_t)k * (size_t)p->d + (size_t)j] / sd);
      log_det += log(v);
    }
    t->c[k] = (float)(log2e * (p->log_pi[k] - 0.5 * log_det));
  }
}

int sk_mix_stats_alloc(sk_mix_stats *s, int32_t k, int32_t d, int64_t n, sk_ex_error *err) {
  const size_t kd = (size_t)k * (size_t)d;
  memset(s, 0, sizeof *s);
  s->k = k;
  s->d = d;
  sk_mix_fixed_scales(n, &s->f1, &s->f2);
  s->count = (int64_t *)alloc_zeroed((size_t)k, sizeof(int64_t), "the statistics", err);
  s->sx = s->count ? (int64_t *)alloc_zeroed(kd, sizeof(int64_t), "the statistics", err) : NULL;
  s->sxx = s->sx ? (int64_t *)alloc_zeroed(kd, sizeof(int64_t), "the statistics", err) : NULL;
  if (s->sxx == NULL) {
    sk_mix_stats_free(s);
    return 1;
  }
  return 0;
}

void sk_mix_stats_free(sk_mix_stats *s) {
  if (s == NULL) return;
  free(s->count);
  free(s->sx);
  free(s->sxx);
  memset(s, 0, sizeof *s);
}

void sk_mix_stats_zero(sk_mix_stats *s) {
  const size_t kd = (size_t)s->k * (size_t)s->d;
  memset(s->count, 0, sizeof(int64_t) * (size_t)s->k);
  memset(s->sx, 0, sizeof(int64_t) * kd);
  memset(s->sxx, 0, sizeof(int64_t) * kd);
}

int sk_mix_threads(int threads) {
#ifdef _OPENMP
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}
