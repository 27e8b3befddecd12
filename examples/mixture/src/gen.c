/* Planted data (gen.h). */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"
#include "variates.h"
#include "zstep.h" /* SK_MIX_STREAM */

int sk_mix_gen_check(const sk_mix_gen_params *p, sk_ex_error *err) {
  if (p->n < 1) return sk_ex_fail(err, "gen: N = %lld points: need at least 1", (long long)p->n);
  if (p->d < 1 || p->d > SK_MIX_MAX_D)
    return sk_ex_fail(err, "gen: D = %d: sk-mixture takes 1 to %d", (int)p->d, SK_MIX_MAX_D);
  if (p->k < 1 || p->k > SK_MIX_MAX_K)
    return sk_ex_fail(err, "gen: K = %d: sk-mixture takes 1 to %d", (int)p->k, SK_MIX_MAX_K);
  if (p->n < (int64_t)p->k)
    return sk_ex_fail(err, "gen: N = %lld points, fewer than K = %d", (long long)p->n, (int)p->k);
  return 0;
}

void sk_mix_truth_free(sk_mix_truth *t) {
  if (t == NULL) return;
  free(t->weight);
  free(t->mean);
  free(t->var);
  free(t->z);
  memset(t, 0, sizeof *t);
}

/* The mixture itself: weights, standard deviations, means (the file's description). */
static void plant(const sk_mix_gen_params *p, sk_mix_truth *t) {
  const uint64_t stream = SK_MIX_STREAM(1, SK_MIX_ROLE_GEN);
  const int32_t K = p->k, D = p->d;
  const double gap = p->overlap ? 2.5 : 20.0;
  uint64_t next = 0;
  double total = 0.0, side = gap * pow((double)K, 1.0 / (double)D);
  for (int32_t k = 0; k < K; ++k) total += t->weight[k] = 1.0 + sk_rng_uniform_f64(p->seed, stream, next++);
  for (int32_t k = 0; k < K; ++k) t->weight[k] /= total;
  for (size_t i = 0; i < (size_t)K * (size_t)D; ++i) {
    const double sd = exp(sk_rng_uniform_f64(p->seed, stream, next++) - 0.5);
    t->var[i] = sd * sd;
  }
  for (int32_t k = 0; k < K; ++k) {
    double *m = t->mean + (size_t)k * (size_t)D;
    for (int tries = 0;; ++tries) {
      if (tries > 0 && tries % 1000 == 0) side *= 1.1;
      for (int32_t j = 0; j < D; ++j) m[j] = side * (2.0 * sk_rng_uniform_f64(p->seed, stream, next++) - 1.0);
      int ok = 1;
      for (int32_t c = 0; c < k && ok; ++c) {
        double dist2 = 0.0;
        for (int32_t j = 0; j < D; ++j) {
          const double dj = m[j] - t->mean[(size_t)c * (size_t)D + (size_t)j];
          dist2 += dj * dj;
        }
        ok = dist2 >= gap * gap;
      }
      if (ok) break;
    }
  }
}

int sk_mix_generate(const sk_mix_gen_params *p, float **x_out, sk_mix_truth *t, sk_ex_error *err) {
  const int32_t K = p->k, D = p->d;
  memset(t, 0, sizeof *t);
  *x_out = NULL;
  if (sk_mix_gen_check(p, err) != 0) return 1;
  t->k = K;
  t->d = D;
  t->weight = (double *)malloc(sizeof(double) * (size_t)K);
  t->mean = (double *)malloc(sizeof(double) * (size_t)K * (size_t)D);
  t->var = (double *)malloc(sizeof(double) * (size_t)K * (size_t)D);
  t->z = (int32_t *)malloc(sizeof(int32_t) * (size_t)p->n);
  float *x = (float *)malloc(sizeof(float) * (size_t)p->n * (size_t)D);
  double *cum = (double *)malloc(sizeof(double) * (size_t)K);
  if (t->weight == NULL || t->mean == NULL || t->var == NULL || t->z == NULL || x == NULL || cum == NULL) {
    sk_mix_truth_free(t);
    free(x);
    free(cum);
    return sk_ex_fail(err, "gen: out of memory for %lld x %d values", (long long)p->n, (int)D);
  }
  plant(p, t);
  double run = 0.0;
  for (int32_t k = 0; k < K; ++k) cum[k] = run += t->weight[k];
  const uint64_t normals = SK_MIX_STREAM(0, SK_MIX_ROLE_GEN), labels = SK_MIX_STREAM(2, SK_MIX_ROLE_GEN);
  int64_t i;
#pragma omp parallel for num_threads(sk_mix_threads(p->threads)) schedule(static)
  for (i = 0; i < p->n; ++i) {
    const double u = sk_rng_uniform_f64(p->seed, labels, (uint64_t)i) * run;
    int32_t k = 0;
    while (k < K - 1 && cum[k] <= u) ++k;
    t->z[i] = k;
    for (int32_t j = 0; j < D; ++j) {
      const size_t at = (size_t)k * (size_t)D + (size_t)j;
      const double v =
          t->mean[at] + sqrt(t->var[at]) * sk_mix_normal(p->seed, normals, (uint64_t)i * (uint64_t)D + (uint64_t)j);
      x[(size_t)i * (size_t)D + (size_t)j] = (float)v;
    }
  }
  free(cum);
  *x_out = x;
  return 0;
}
