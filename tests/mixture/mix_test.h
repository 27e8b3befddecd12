/*
 * Shared by the sk-mixture tests: random parameters and z-step tables, the exact conditional of the
 * z-step in double precision, and the goodness-of-fit check of many z-step draws against it (with a
 * planted off-by-one that must be rejected).
 */
#ifndef SK_MIX_TEST_H
#define SK_MIX_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "mixture.h"
#include "sk_test.h"
#include "zstep_cpu.h"
#ifdef SK_MIX_HAVE_GPU
#include "gpu/mix_gpu.h"
#endif

/* Parameters for K components in D dimensions at data scale `scale`. Peaked (flat = 0): means spread
   over about +-3 scale, standard deviations from 0.3 to 2 scale, the exact tests' shape. Flat (1): means
   within +-0.25 scale and standard deviations from 1.5 to 2.5 scale, so that a point near the middle has
   a conditional spread over many components, the goodness-of-fit tests' shape. Weights from 1 to 4;
   components 8 j + 2 and 8 j + 3 are identical (equal weights: ties in every tile); with more than one
   tile, component K - 2 gets a much larger weight (40), so that the running maximum moves late. */
static inline void mix_test_params(sk_mix_params *p, double scale, int flat, uint64_t *rng) {
  const int32_t K = p->k, D = p->d;
  for (int32_t k = 0; k < K; ++k) {
    p->log_pi[k] = log(1.0 + 3.0 * sk_test_rand_unit_f32(rng));
    for (int32_t j = 0; j < D; ++j) {
      const size_t at = (size_t)k * (size_t)D + (size_t)j;
      const double u = (double)sk_test_rand_unit_f32(rng) - 0.5, v = (double)sk_test_rand_unit_f32(rng);
      p->mu[at] = scale * (flat ? 0.5 : 6.0) * u;
      const double sd = scale * (flat ? 1.5 + v : 0.3 + 1.7 * v);
      p->sigma2[at] = sd * sd;
    }
  }
  for (int32_t k = 2; k + 1 < K; k += 8) { /* twins */
    p->log_pi[k + 1] = p->log_pi[k];
    for (int32_t j = 0; j < D; ++j) {
      p->mu[(size_t)(k + 1) * (size_t)D + (size_t)j] = p->mu[(size_t)k * (size_t)D + (size_t)j];
      p->sigma2[(size_t)(k + 1) * (size_t)D + (size_t)j] = p->sigma2[(size_t)k * (size_t)D + (size_t)j];
    }
  }
  if (K > 32) p->log_pi[K - 2] = log(40.0);
}

/* K x D parameters from mix_test_params() and their z-step table; 1 on success (the caller frees both
   with sk_mix_params_free() and sk_mix_ztable_free()). */
static inline int mix_test_setup(int32_t K, int32_t D, double scale, int flat, uint64_t *rng, sk_mix_params *p,
                                 sk_mix_ztable *t) {
  sk_ex_error err;
  memset(t, 0, sizeof *t);
  if (!SK_CHECK(sk_mix_params_alloc(p, K, D, &err) == 0 && sk_mix_ztable_alloc(t, K, D, &err) == 0, "%s",
                err.message)) {
    sk_mix_params_free(p);
    return 0;
  }
  mix_test_params(p, scale, flat, rng);
  sk_mix_ztable_set(t, p);
  return 1;
}

/* Points near the components (a random component's mean plus up to 2 of its standard deviations per
   dimension), some exactly at a mean, and some far from all (10^3 scales away). */
static inline void mix_test_points(const sk_mix_params *p, float *x, int64_t n, double scale, uint64_t *rng) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)p->k);
    const int kind = (int)(i % 13);
    for (int32_t j = 0; j < p->d; ++j) {
      const size_t at = (size_t)k * (size_t)p->d + (size_t)j;
      const double dev = kind == 0 ? 0.0 : kind == 1 ? 1e3 * scale : 4.0 * ((double)sk_test_rand_unit_f32(rng) - 0.5);
      x[(size_t)i * (size_t)p->d + (size_t)j] = (float)(p->mu[at] + dev * (kind == 1 ? 1.0 : sqrt(p->sigma2[at])));
    }
  }
}

/* The exact conditional p(k | x) of the z-step, from the table's floats taken as exact numbers: the
   base-2 log-weights (mixture.h) in double, shifted by their maximum, exponentiated and normalised. */
static inline void mix_test_conditional(const sk_mix_ztable *t, const float *x, double *p) {
  double top = -INFINITY, sum = 0.0;
  for (int32_t k = 0; k < t->k; ++k) {
    double q = 0.0;
    for (int32_t j = 0; j < t->d; ++j) {
      const size_t at = (size_t)j * (size_t)t->k_pad + (size_t)k;
      const double u = (double)x[j] * (double)t->s[at] - (double)t->ms[at];
      q += u * u;
    }
    p[k] = (double)t->c[k] - q;
    top = p[k] > top ? p[k] : top;
  }
  for (int32_t k = 0; k < t->k; ++k) sum += p[k] = exp2(p[k] - top);
  for (int32_t k = 0; k < t->k; ++k) p[k] /= sum;
}

/* Pearson's statistic of counts against n p, cells with an expected count below 5 pooled into one. */
static inline double mix_test_chi2_pooled(const double *counts, const double *p, int32_t k, double n, int *dof) {
  double x = 0.0, pooled_obs = 0.0, pooled_exp = 0.0;
  int cells = 0;
  for (int32_t i = 0; i < k; ++i) {
    const double e = n * p[i];
    if (e < 5.0) {
      pooled_obs += counts[i];
      pooled_exp += e;
      continue;
    }
    x += (counts[i] - e) * (counts[i] - e) / e;
    ++cells;
  }
  if (pooled_exp > 0.0) {
    x += (pooled_obs - pooled_exp) * (pooled_obs - pooled_exp) / (pooled_exp > 1e-300 ? pooled_exp : 1e-300);
    ++cells;
  }
  *dof = cells - 1;
  return x;
}

/* The z-step's draws for one point, as counts over components, against its exact conditional: the
   statistic must stay below the threshold, and the same counts shifted by one component (a planted
   off-by-one) must exceed it. Returns 1 when both hold; prints a line either way. */
static inline int mix_test_goodness_of_fit(const char *name, const sk_mix_ztable *t, const float *x, const int32_t *z,
                                           int64_t n) {
  double *counts = (double *)calloc((size_t)t->k, sizeof(double)),
         *shifted = (double *)calloc((size_t)t->k, sizeof(double));
  double *p = (double *)calloc((size_t)t->k, sizeof(double));
  int bad = 0, dof = 0, dof_bug = 0;
  mix_test_conditional(t, x, p);
  for (int64_t i = 0; i < n; ++i) {
    if (z[i] < 0 || z[i] >= t->k) {
      ++bad;
      continue;
    }
    counts[z[i]] += 1.0;
  }
  for (int32_t k = 0; k < t->k; ++k) shifted[k] = counts[(k + 1) % t->k];
  const double chi2 = mix_test_chi2_pooled(counts, p, t->k, (double)n, &dof);
  const double chi2_bug = mix_test_chi2_pooled(shifted, p, t->k, (double)n, &dof_bug);
  const double threshold = sk_test_chi2_threshold(dof > 0 ? dof : 1);
  sk_test_context("goodness of fit: %s", name);
  int ok = SK_CHECK(bad == 0, "%d draws out of range", bad);
  ok &= SK_CHECK(dof >= 1, "only %d cells with an expected count of 5 or more: no test", dof + 1);
  ok &= SK_CHECK(chi2 < threshold, "chi-square %.1f exceeds %.1f (%d dof)", chi2, threshold, dof);
  ok &= SK_CHECK(chi2_bug > sk_test_chi2_threshold(dof_bug > 0 ? dof_bug : 1),
                 "planted off-by-one gave chi-square %.1f, not above the threshold", chi2_bug);
  printf(
      "goodness of fit %-40s K=%4d D=%3d %8lld draws: chi-square %8.1f, threshold %7.1f (%3d dof); off-by-one %.3g\n",
      name, (int)t->k, (int)t->d, (long long)n, chi2, threshold, dof, chi2_bug);
  free(counts);
  free(shifted);
  free(p);
  return ok;
}

/* n copies of point x (D floats) in one array, for drawing many times from one conditional. */
static inline float *mix_test_copies(const float *x, int32_t d, int64_t n) {
  float *c = (float *)malloc(sizeof(float) * (size_t)n * (size_t)d);
  for (int64_t i = 0; c != NULL && i < n; ++i) memcpy(c + (size_t)i * (size_t)d, x, sizeof(float) * (size_t)d);
  return c;
}

/* Draws z for n points of x with table t (the CPU reference, or a GPU kernel); 0 on success. */
typedef int (*mix_test_draws)(const float *x, int64_t n, const sk_mix_ztable *t, uint64_t seed, uint64_t sweep,
                              int32_t *z);

/* The CPU reference as a mix_test_draws. */
static inline int mix_test_cpu_draws(const float *x, int64_t n, const sk_mix_ztable *t, uint64_t seed, uint64_t sweep,
                                     int32_t *z) {
  sk_ex_error err;
  return SK_CHECK(sk_mix_zstep_cpu(x, 0, n, t, seed, sweep, 0, z, &err) == 0, "CPU z-step: %s", err.message) ? 0 : 1;
}

/* A goodness-of-fit case: flat parameters (mix_test_params) for K and D at `scale`, one point near the
   middle drawn 2^log2_draws times by `draws`, against its exact conditional. */
static inline void mix_test_gof_case(const char *name, int32_t K, int32_t D, double scale, int log2_draws,
                                     uint64_t seed, mix_test_draws draws) {
  sk_mix_params p;
  sk_mix_ztable t;
  uint64_t rng = seed;
  const int64_t n = (int64_t)1 << log2_draws;
  float x[SK_MIX_MAX_D];
  sk_test_context("goodness of fit %s", name);
  if (!mix_test_setup(K, D, scale, 1, &rng, &p, &t)) return;
  for (int32_t j = 0; j < D; ++j) x[j] = (float)(scale * 0.2 * ((double)sk_test_rand_unit_f32(&rng) - 0.5));
  float *xs = mix_test_copies(x, D, n);
  int32_t *z = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  if (SK_CHECK(xs != NULL && z != NULL, "out of memory") && draws(xs, n, &t, seed, 3, z) == 0)
    mix_test_goodness_of_fit(name, &t, x, z, n);
  free(xs);
  free(z);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
}

/* A chain on `data` with the default prior and the given options (NULL: the CPU, every thread). */
static inline sk_mix_chain *mix_test_chain(const sk_mix_data *data, int32_t k, uint64_t seed,
                                           const sk_mix_chain_options *o) {
  sk_mix_prior prior;
  sk_mix_chain *c = NULL;
  sk_ex_error err;
  sk_mix_prior_default(&prior);
  SK_CHECK(sk_mix_chain_create(data, &prior, k, seed, o, &c, &err) == 0, "chain: %s", err.message);
  return c;
}

/* The GPU tests' arguments: --host (the CPU side only, a cpu test) and --quick (small inputs; also under
   compute-sanitizer). Without --host, GPU 0 must be usable, else the program says why and exits 77. */
static inline void mix_test_args(int argc, char **argv, int *host_only, int *quick) {
  *host_only = sk_test_wants_host_only(argc, argv);
  *quick = sk_test_under_sanitizer();
  for (int i = 1; i < argc; ++i) *quick |= strcmp(argv[i], "--quick") == 0;
#ifdef SK_MIX_HAVE_GPU
  if (!*host_only) {
    sk_ex_error err;
    char name[256];
    if (sk_ex_gpu_probe(0, name, sizeof name, &err) != 0) {
      printf("SKIP: %s; this test needs a GPU\n", err.message);
      exit(SK_TEST_SKIP_CODE);
    }
    printf("GPU 0: %s\n", name);
  }
#endif
}

#endif /* SK_MIX_TEST_H */
