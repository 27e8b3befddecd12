/*
 * Planted recovery and determinism of the CPU chain (examples/mixture/src/chain.h):
 * - well-separated planted data (N = 10^5, D = 8, K = 10, sk-mixture gen's generator) fitted for 60
 *   sweeps gives an adjusted Rand index >= 0.95 against the planted assignments; so does the same data
 *   at scale 1e-6 and at scale 1e6 with an offset of 1e7 (standardization makes the scale irrelevant);
 *   overlapping data is only checked to run (its index is printed);
 * - the chain with 1, 2 and 3 threads gives the same assignments, parameters and statistics, bit for
 *   bit, and so do two runs with the same seed;
 * - the chain refuses data that is not standardized, K beyond N, and a bad prior.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "data.h"
#include "gen.h"
#include "metrics.h"
#include "mix_test.h"
#include "sk_test.h"

/* Fits `raw` (scaled by `scale`, shifted by `offset`) for `sweeps` sweeps on the CPU; returns the
   adjusted Rand index against the truth. */
static double fit_ari(const float *raw, const sk_mix_truth *t, int64_t n, int32_t d, double scale, double offset,
                      int sweeps) {
  float *x = (float *)malloc(sizeof(float) * (size_t)n * (size_t)d);
  sk_mix_data data;
  sk_ex_error err;
  sk_mix_chain *c = NULL;
  double ari = -1.0;
  for (size_t i = 0; i < (size_t)n * (size_t)d; ++i) x[i] = (float)((double)raw[i] * scale + offset);
  if (SK_CHECK(sk_mix_data_from_f32(x, n, d, &data, &err) == 0, "%s", err.message) &&
      (c = mix_test_chain(&data, t->k, 3, NULL)) != NULL) {
    int ok = 1;
    for (int s = 0; s < sweeps && ok; ++s) ok = SK_CHECK(sk_mix_chain_sweep(c, &err) == 0, "%s", err.message);
    if (ok) ari = sk_mix_ari(t->z, c->z, n, t->k, t->k);
  }
  sk_mix_chain_destroy(c);
  sk_mix_data_free(&data);
  free(x);
  return ari;
}

static void test_recovery(int quick) {
  sk_mix_gen_params g = {quick ? 20000 : 100000, 8, 10, 0, 2024, 0};
  sk_mix_truth t;
  sk_ex_error err;
  float *raw = NULL;
  const double scales[3][2] = {{1.0, 0.0}, {1e-6, 0.0}, {1e6, 1e7}};
  sk_test_context("planted recovery");
  if (!SK_CHECK(sk_mix_generate(&g, &raw, &t, &err) == 0, "%s", err.message)) return;
  for (int s = 0; s < 3; ++s) {
    const double ari = fit_ari(raw, &t, g.n, g.d, scales[s][0], scales[s][1], 60);
    printf("planted recovery: N = %lld, D = %d, K = %d, well separated, scale %g offset %g: adjusted Rand index %.5f\n",
           (long long)g.n, (int)g.d, (int)g.k, scales[s][0], scales[s][1], ari);
    sk_test_context("planted recovery at scale %g", scales[s][0]);
    SK_CHECK(ari >= 0.95, "adjusted Rand index %.5f < 0.95", ari);
  }
  free(raw);
  sk_mix_truth_free(&t);
  g.overlap = 1;
  g.n = 20000;
  if (SK_CHECK(sk_mix_generate(&g, &raw, &t, &err) == 0, "%s", err.message)) {
    const double ari = fit_ari(raw, &t, g.n, g.d, 1.0, 0.0, 30);
    printf("overlapping data: N = %lld: adjusted Rand index %.5f (no bound: the components overlap)\n", (long long)g.n,
           ari);
    SK_CHECK(ari > -1.0 && ari <= 1.0, "the overlapping fit failed");
  }
  free(raw);
  sk_mix_truth_free(&t);
}

/* Runs `sweeps` sweeps with `threads` threads; the caller frees the chain. */
static sk_mix_chain *run(const sk_mix_data *data, int32_t k, int threads, int sweeps) {
  sk_mix_chain_options o;
  sk_ex_error err;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  sk_mix_chain *c = mix_test_chain(data, k, 99, &o);
  for (int s = 0; c != NULL && s < sweeps; ++s)
    if (!SK_CHECK(sk_mix_chain_sweep(c, &err) == 0, "%s", err.message)) break;
  return c;
}

static int same_state(const sk_mix_chain *a, const sk_mix_chain *b) {
  const size_t kd = (size_t)a->k * (size_t)a->data->d;
  return memcmp(a->z, b->z, sizeof(int32_t) * (size_t)a->data->n) == 0 &&
         memcmp(a->params.log_pi, b->params.log_pi, sizeof(double) * (size_t)a->k) == 0 &&
         memcmp(a->params.mu, b->params.mu, sizeof(double) * kd) == 0 &&
         memcmp(a->params.sigma2, b->params.sigma2, sizeof(double) * kd) == 0 &&
         memcmp(a->stats.sx, b->stats.sx, sizeof(int64_t) * kd) == 0 &&
         memcmp(a->stats.sxx, b->stats.sxx, sizeof(int64_t) * kd) == 0;
}

static void test_determinism(void) {
  sk_mix_gen_params g = {12345, 6, 40, 1, 8, 0};
  sk_mix_truth t;
  sk_ex_error err;
  sk_mix_data data;
  float *raw = NULL;
  sk_test_context("determinism across thread counts");
  if (!SK_CHECK(sk_mix_generate(&g, &raw, &t, &err) == 0 && sk_mix_data_from_f32(raw, g.n, g.d, &data, &err) == 0, "%s",
                err.message))
    return;
  sk_mix_chain *one = run(&data, 40, 1, 8);
  for (int threads = 1; threads <= 3 && one != NULL; ++threads) {
    sk_mix_chain *other = run(&data, 40, threads, 8);
    sk_test_context("determinism: 1 thread against %d (a second run when 1)", threads);
    SK_CHECK(other != NULL && same_state(one, other), "the states after 8 sweeps differ");
    sk_mix_chain_destroy(other);
  }
  sk_mix_chain_destroy(one);
  sk_mix_data_free(&data);
  sk_mix_truth_free(&t);
  free(raw);
}

static void test_refusals(void) {
  const float raw[6] = {1, 2, 3, 4, 5, 6};
  sk_mix_data data;
  sk_mix_prior prior;
  sk_ex_error err;
  sk_mix_chain *c = NULL;
  sk_mix_prior_default(&prior);
  sk_mix_data_from_f32(raw, 6, 1, &data, &err);
  sk_test_context("the chain's refusals");
  SK_CHECK(sk_mix_chain_create(&data, &prior, 7, 1, NULL, &c, &err) != 0 && strstr(err.message, "fewer than K") != NULL,
           "K = 7 > N = 6 accepted (message '%s')", err.message);
  prior.kappa0 = 0.0;
  SK_CHECK(sk_mix_chain_create(&data, &prior, 2, 1, NULL, &c, &err) != 0 && strstr(err.message, "kappa0") != NULL,
           "kappa0 = 0 accepted (message '%s')", err.message);
  sk_mix_prior_default(&prior);
  data.x[0] = 100.0f; /* no longer standardized */
  SK_CHECK(sk_mix_chain_create(&data, &prior, 2, 1, NULL, &c, &err) != 0 && strstr(err.message, "standardized") != NULL,
           "raw data accepted (message '%s')", err.message);
  SK_CHECK(c == NULL, "a refused chain was returned");
  sk_mix_data_free(&data);
}

int main(int argc, char **argv) {
  const int quick = (argc > 1 && strcmp(argv[1], "--quick") == 0) || sk_test_under_sanitizer();
  test_refusals();
  test_determinism();
  test_recovery(quick);
  return sk_test_finish();
}
