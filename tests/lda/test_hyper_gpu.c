/*
 * Per-topic priors (model.h's alpha_k) and the prior optimiser (hyper.h) on the GPU samplers:
 *  - ESCA's exact sweep (gpu/esca_exact.h) with alpha_k equals the CPU ESCA bit for bit after every sweep:
 *    with the priors set before create (their arrays made at create) and after it (made by set_priors),
 *    then after --optimize-every's step on both (the GPU's histograms, counted by gpu/hyper_gpu.h's
 *    kernels, equal the CPU's; so do the learnt alpha_k and beta), and after more sweeps with them;
 *  - the resident fast sweep with alpha_k against the CPU ESCA from the same state (a fraction of at most
 *    1e-4 of the tokens may differ: float rounding, test_esca_gpu_fast.c), its histograms against those
 *    of its own model brought to the host, and its device metrics against the host's (joint 1e-12,
 *    held-out 1e-10 relative, metrics_gpu.h);
 *  - the streamed sweep with alpha_k equals the resident one bit for bit, before and after an optimisation
 *    (its histograms come through to_host);
 *  - AGA-LDA with alpha_k: its counts agree with z, its histograms with its model's, its optimisation runs.
 * K runs over 1, 33, 1,024 and 65,536 (the priors' float tree in global memory), on corpora with empty and
 * one-token documents and a long document (counts past SK_LDA_HYPER_DENSE: the histograms' tails).
 * Without a GPU it prints why and exits 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esca.h"
#include "gpu/aga_sampler.h"
#include "gpu/esca_exact.h"
#include "gpu/esca_resident.h"
#include "gpu/esca_streamed.h"
#include "gpu/gpu_sampler.h"
#include "hyper.h"
#include "lda_test_gpu.h"
#include "metrics.h"
#include "model.h"
#include "sampler.h"
#include "sk_test.h"

static const sk_lda_device kGpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};

/* Per-topic priors from 0.01 to about 2, uneven, for K topics. */
static double *make_priors(int32_t K) {
  double *a = (double *)malloc((size_t)K * sizeof *a);
  for (int32_t k = 0; k < K; ++k) a[k] = 0.01 + 2.0 * (double)((k * 37) % 101) / 101.0;
  return a;
}

static int init_pair(sk_lda_model *a, sk_lda_model *b, const sk_lda_corpus *c, int32_t K, uint64_t seed) {
  sk_ex_error err;
  return SK_CHECK(sk_lda_model_init(a, c, K, sk_lda_default_alpha(K), 0.01, seed, &err) == 0 &&
                      sk_lda_model_init(b, c, K, sk_lda_default_alpha(K), 0.01, seed, &err) == 0,
                  "init: %s", err.message);
}

/* The GPU sampler's histograms equal those of `host` (a model with its counts and priors, on the host), and
   its optimisation gives what the host's fixed points give on them, bit for bit (`host` is not changed;
   the sampler's model then holds the learnt priors). */
static int same_optimisation(sk_lda_sampler *s, const sk_lda_model *host, const char *when) {
  sk_ex_error err;
  sk_lda_hyper_stats g, c;
  const int32_t K = host->num_topics;
  double *want = (double *)malloc((size_t)K * sizeof *want), want_beta = 0.0;
  int ok = SK_CHECK(sk_lda_sampler_prior_stats(s, &g, &err) == 0 && sk_lda_hyper_stats_from_model(host, &c, &err) == 0,
                    "%s: histograms: %s", when, err.message) &&
           SK_CHECK(sk_lda_hyper_stats_equal(&g, &c), "%s: the GPU's histograms differ from the CPU's", when);
  if (ok)
    printf("%s: histograms equal (%lld + %lld listed counts)\n", when, (long long)c.num_doc_topic_tail,
           (long long)c.num_word_topic_tail);
  ok = ok && SK_CHECK(sk_lda_hyper_learn(host, &c, SK_LDA_HYPER_DEFAULT_ITERATIONS, want, &want_beta, &err) == 0 &&
                          sk_lda_sampler_optimize_priors(s, SK_LDA_HYPER_DEFAULT_ITERATIONS, &err) == 0,
                      "%s: optimise: %s", when, err.message);
  sk_lda_hyper_stats_free(&g);
  sk_lda_hyper_stats_free(&c);
  const sk_lda_model *m = s->model;
  ok = ok && SK_CHECK(m->alpha_k != NULL && memcmp(m->alpha_k, want, (size_t)K * sizeof *want) == 0 &&
                          memcmp(&m->beta, &want_beta, sizeof want_beta) == 0,
                      "%s: the learnt priors differ (beta %.17g on the GPU, %.17g on the CPU)", when, m->beta, want_beta);
  free(want);
  return ok;
}

/* ---- the exact sweep, bit for bit ---------------------------------------------------------------------- */

static void exact_case(int32_t K, const corpus_shape *shape, int priors_before_create, sk_lda_esca_tables *tables) {
  sk_lda_corpus corpus = make_case_corpus(shape);
  sk_lda_model cpu, gpu;
  sk_ex_error err;
  sk_lda_sampler *s = NULL;
  sk_test_context("exact sweep, K = %d, T = %lld, priors set %s create", (int)K, (long long)corpus.num_tokens,
                  priors_before_create ? "before" : "after");
  double *a = make_priors(K);
  int ok = init_pair(&cpu, &gpu, &corpus, K, 500 + (uint64_t)K) &&
           SK_CHECK(sk_lda_model_set_priors(&cpu, a, 0.02, &err) == 0, "priors: %s", err.message);
  if (ok && priors_before_create) ok = SK_CHECK(sk_lda_model_set_priors(&gpu, a, 0.02, &err) == 0, "%s", err.message);
  ok = ok && SK_CHECK(sk_lda_esca_exact_create(&gpu, &kGpu0, &s, &err) == 0, "create: %s", err.message);
  if (ok && !priors_before_create)
    ok = SK_CHECK(sk_lda_sampler_set_priors(s, a, 0.02, &err) == 0, "set priors: %s", err.message);
  for (uint64_t it = 1; it <= 6 && ok; ++it) {
    char when[96];
    snprintf(when, sizeof when, "K = %d, after sweep %llu", (int)K, (unsigned long long)it);
    ok = SK_CHECK(sk_lda_esca_sweep(&cpu, tables, it, 0, &err) == 0 && sk_lda_sampler_sweep(s, it, &err) == 0 &&
                      sk_lda_sampler_to_host(s, &err) == 0,
                  "%s: %s", when, err.message) &&
         models_equal(&cpu, &gpu, when);
    if (ok && it == 3) /* the next sweeps draw with the learnt priors */
      ok = same_optimisation(s, &cpu, when) &&
           SK_CHECK(sk_lda_model_set_priors(&cpu, gpu.alpha_k, gpu.beta, &err) == 0, "%s", err.message);
  }
  sk_lda_sampler_destroy(s);
  free(a);
  sk_lda_model_free(&cpu);
  sk_lda_model_free(&gpu);
  sk_lda_corpus_free(&corpus);
}

/* ---- the fast sweep, the metrics, the streamed sweep, AGA ------------------------------------------------ */

static void fast_case(int32_t K, const corpus_shape *shape) {
  sk_lda_corpus corpus = make_case_corpus(shape);
  sk_lda_model cpu, gpu, streamed;
  sk_ex_error err;
  sk_lda_sampler *s = NULL, *st = NULL;
  sk_test_context("fast sweep, K = %d, T = %lld", (int)K, (long long)corpus.num_tokens);
  double *a = make_priors(K);
  const uint64_t seed = 900 + (uint64_t)K;
  int ok = init_pair(&cpu, &gpu, &corpus, K, seed) &&
           SK_CHECK(sk_lda_model_init(&streamed, &corpus, K, sk_lda_default_alpha(K), 0.01, seed, &err) == 0 &&
                        sk_lda_model_set_priors(&cpu, a, 0.03, &err) == 0 &&
                        sk_lda_model_set_priors(&gpu, a, 0.03, &err) == 0 &&
                        sk_lda_model_set_priors(&streamed, a, 0.03, &err) == 0,
                    "models: %s", err.message);
  ok = ok && SK_CHECK(sk_lda_esca_resident_create(&gpu, &kGpu0, NULL, NULL, &s, &err) == 0 &&
                          sk_lda_esca_streamed_create(&streamed, &kGpu0, NULL, NULL, &st, &err) == 0,
                      "create: %s", err.message);
  sk_lda_esca_tables tables;
  memset(&tables, 0, sizeof tables);
  for (uint64_t it = 1; it <= 5 && ok; ++it) {
    char when[96];
    snprintf(when, sizeof when, "K = %d, sweep %llu", (int)K, (unsigned long long)it);
    /* from the same state: the CPU's topics within float rounding */
    ok = SK_CHECK(sk_lda_model_set_z(&cpu, gpu.z, &err) == 0 && sk_lda_esca_sweep(&cpu, &tables, it, 0, &err) == 0 &&
                      sk_lda_sampler_sweep(s, it, &err) == 0 && sk_lda_sampler_sweep(st, it, &err) == 0 &&
                      sk_lda_sampler_to_host(s, &err) == 0 && sk_lda_sampler_to_host(st, &err) == 0,
                  "%s: %s", when, err.message) &&
         counts_match_z(&gpu, when) && models_equal(&gpu, &streamed, when);
    if (!ok) break;
    int64_t differ = 0;
    for (int64_t t = 0; t < gpu.num_tokens; ++t) differ += gpu.z[t] != cpu.z[t];
    const double frac = (double)differ / (double)(gpu.num_tokens > 0 ? gpu.num_tokens : 1);
    printf("%s: %lld of %lld tokens differ from the CPU's (%.2e)\n", when, (long long)differ, (long long)gpu.num_tokens,
           frac);
    if (K <= 1024) SK_CHECK(frac <= 1e-4 || differ <= 1, "%s: %.2e of the tokens differ from the CPU's", when, frac);
    if (it == 2) { /* the device metrics with alpha_k against the host's */
      double gj = 0.0, gh = 0.0, ch = 0.0;
      sk_lda_corpus obs = make_uniform_corpus(20, corpus.num_words, 40, 5), held = make_uniform_corpus(20, corpus.num_words, 40, 6);
      const double cj = sk_lda_joint_ll_per_token(&gpu);
      ok = SK_CHECK(sk_lda_sampler_joint_ll(s, &gj, &err) == 0 && sk_lda_sampler_heldout_ll(s, &obs, &held, 5, &gh, &err) == 0 &&
                        sk_lda_heldout_ll(&gpu, &obs, &held, 5, 0, &ch, &err) == 0,
                    "%s: metrics: %s", when, err.message) &&
           SK_CHECK(fabs(gj - cj) <= 1e-12 * fabs(cj), "%s: joint LL %.17g on the GPU, %.17g on the CPU", when, gj, cj) &&
           SK_CHECK(fabs(gh - ch) <= 1e-10 * fabs(ch), "%s: held-out LL %.17g on the GPU, %.17g on the CPU", when, gh, ch);
      sk_lda_corpus_free(&obs);
      sk_lda_corpus_free(&held);
    }
    if (ok && it == 3) { /* resident: histograms on the device; streamed: through to_host; the same priors */
      sk_lda_model copy;
      ok = SK_CHECK(sk_lda_model_init(&copy, &corpus, K, gpu.alpha, gpu.beta, seed, &err) == 0 &&
                        sk_lda_model_set_priors(&copy, gpu.alpha_k, gpu.beta, &err) == 0 &&
                        sk_lda_model_set_z(&copy, gpu.z, &err) == 0,
                    "copy: %s", err.message) &&
           same_optimisation(s, &copy, when) && same_optimisation(st, &copy, when) &&
           SK_CHECK(sk_lda_model_set_priors(&cpu, gpu.alpha_k, gpu.beta, &err) == 0, "%s", err.message);
      sk_lda_model_free(&copy);
    }
  }
  sk_lda_esca_tables_free(&tables);
  sk_lda_sampler_destroy(s);
  sk_lda_sampler_destroy(st);
  free(a);
  sk_lda_model_free(&cpu);
  sk_lda_model_free(&gpu);
  sk_lda_model_free(&streamed);
  sk_lda_corpus_free(&corpus);
}

static void aga_case(int32_t K, const corpus_shape *shape) {
  sk_lda_corpus corpus = make_case_corpus(shape);
  sk_lda_model m, copy;
  sk_ex_error err;
  sk_lda_sampler *s = NULL;
  sk_test_context("AGA-LDA, K = %d", (int)K);
  double *a = make_priors(K);
  int ok = SK_CHECK(sk_lda_model_init(&m, &corpus, K, 0.1, 0.01, 77, &err) == 0 &&
                        sk_lda_model_set_priors(&m, a, 0.01, &err) == 0 &&
                        sk_lda_aga_create(&m, &kGpu0, NULL, &s, &err) == 0,
                    "create: %s", err.message);
  for (uint64_t it = 1; it <= 4 && ok; ++it)
    ok = SK_CHECK(sk_lda_sampler_sweep(s, it, &err) == 0 && sk_lda_sampler_to_host(s, &err) == 0, "sweep: %s",
                  err.message) &&
         counts_match_z(&m, "AGA with alpha_k");
  if (ok && SK_CHECK(sk_lda_model_init(&copy, &corpus, K, 0.1, 0.01, 77, &err) == 0 &&
                         sk_lda_model_set_priors(&copy, m.alpha_k, m.beta, &err) == 0 &&
                         sk_lda_model_set_z(&copy, m.z, &err) == 0,
                     "copy: %s", err.message)) {
    ok = same_optimisation(s, &copy, "AGA");
    sk_lda_model_free(&copy);
    ok = ok && SK_CHECK(sk_lda_sampler_sweep(s, 5, &err) == 0 && sk_lda_sampler_to_host(s, &err) == 0, "sweep: %s",
                        err.message) &&
         counts_match_z(&m, "AGA after the optimisation");
  }
  sk_lda_sampler_destroy(s);
  free(a);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&corpus);
}

int main(void) {
  if (!test_gpu_present(NULL, 0)) return SK_TEST_SKIP_CODE;
  static const corpus_shape medium = {300, 150, 40, 0, 21};
  static const corpus_shape with_long = {300, 60, 40, 5000, 22}; /* counts past the histograms' dense part */
  static const corpus_shape small = {50, 25, 20, 0, 23};
  sk_lda_esca_tables tables;
  memset(&tables, 0, sizeof tables);
  exact_case(1, &medium, 1, &tables);
  exact_case(1, &with_long, 0, &tables); /* K = 1, priors set after create, the long document past the dense part */
  exact_case(33, &with_long, 0, &tables);
  exact_case(33, &medium, 1, &tables);
  exact_case(1024, &with_long, 1, &tables);
  exact_case(65536, &small, 0, &tables);
  sk_lda_esca_tables_free(&tables);
  fast_case(33, &with_long);
  fast_case(1024, &medium);
  fast_case(65536, &small);
  aga_case(32, &with_long);
  aga_case(100, &medium);
  return sk_test_finish();
}
