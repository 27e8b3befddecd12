/*
 * The metrics on the GPU (examples/lda/src/gpu/metrics_gpu.h) against the CPU's (metrics.h, whose values
 * tests/lda/test_metrics.c checks against independent references).
 *
 * For each case a model is made on the CPU and swept a few times by the CPU ESCA, a resident GPU ESCA
 * sampler (gpu/esca_resident.h) is made from it (its device counts, gpu/gpu_sampler.h's
 * sk_lda_gpu_sampler_counts(), are the model's), and the joint and held-out log-likelihoods computed
 * on the device from those counts must equal the CPU's:
 *   joint LL:    relative difference <= 1e-12. Every term has the CPU's operations; the sums differ in
 *                order (sequential on the CPU, trees on the GPU) and CUDA's lgamma may differ from the C
 *                library's by a few ulp, so the values differ by about 1e-15 relative. Both ways of
 *                reading B are checked: the sampler's lists of its nonzeros and the dense V x K counts.
 *   held-out LL: relative difference <= 1e-10. The fold-in's terms (metrics.h's sparse rule: s, r, q)
 *                and its s table are the CPU's bit for bit, the sums of the r and q terms differ in
 *                rounding only, so a draw differs only when u W falls within a few ulp of a boundary;
 *                then the scores differ by about 1e-15 relative. One draw that differed would move the value by about 1e-6 relative: the
 *                bound catches it.
 * Both must also give the same bits on a second call (determinism), and again after a GPU sweep
 * (against the CPU metrics of the model brought back with to_host).
 * Cases: small random corpora with empty documents (K = 1, 32, 100, 1024, 10000), long observed halves
 * with words unseen in training (K = 1024; 8000: windows of the 6 warps that fit shared memory; 20000:
 * global scratch; 11 of the 12 documents, those of at least a quarter of the longest, 381 tokens, taken by
 * the windows kernel of metrics_gpu_heldout.cu, the other by the one-warp kernel; KOS's longest documents
 * take the windows too; every held-out value is also computed with the windows in clusters of 1, 2 and 4
 * blocks, and must have the same bits), test splits with empty observed halves, empty held-out halves and
 * no held-out token at all, zero fold-in sweeps; the UCI KOS corpus (../shared/data/kos or .data/kos;
 * skipped when absent) at K = 1, 32, 100, 1024, 10000; the sampler seam
 * (sk_lda_sampler_joint_ll/heldout_ll/get_stats on a GPU sampler); the argument checks.
 * Under a sanitizer the KOS cases are left out; under racecheck the long observed halves are 4
 * documents with 2 fold-in sweeps, a case's second comparison makes one held-out call, and the widths
 * other than the one chosen are compared in a case's first comparison only.
 * Without a GPU it prints why and exits 77; with --host it runs only the checks that need no GPU (the
 * seam's host fallbacks and the CPU samplers' statistics).
 *
 * --bench D V L K: times the metrics at a synthetic scale (D documents of mean length L over V words with
 * Zipf frequencies, a 10% test split of the same shape; NYTimes: 300000 100000 333 1024): GPU joint and
 * held-out LL, and what the host path costs (to_host, CPU joint LL, CPU held-out LL).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus.h"
#include "corpus_read.h"
#include "gpu/esca_resident.h"
#include "gpu/gpu.h"
#include "gpu/gpu_sampler.h"
#include "gpu/metrics_gpu.h"
#include "lda_test_corpus.h"
#include "lda_test_esca.h"
#include "metrics.h"
#include "model.h"
#include "sampler_table.h"
#include "lda_test_gpu.h"
#include "sk_test.h"
#include "split.h"

#define JOINT_TOL 1e-12
#define HELDOUT_TOL 1e-10

static const sk_lda_device kGpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};

static double worst_joint = 0.0, worst_heldout = 0.0; /* the largest relative differences seen */
static int window_widths[5];                          /* held-out calls whose windows had 1, 2, 4 blocks */

static double rel_diff(double got, double want) {
  if (isnan(got) && isnan(want)) return 0.0;
  return fabs(got - want) / (fabs(want) > 0 ? fabs(want) : 1.0);
}

/* Compares one evaluation: the GPU values (two calls each, which must give the same bits) against the
   CPU's. Returns 0 when something failed. */
static int compare_once(const char *when, sk_lda_gpu_metrics *gm, const sk_lda_sampler *g, const sk_lda_model *m,
                        const sk_lda_corpus *obs, const sk_lda_corpus *held, int iters, double *gpu_seconds) {
  sk_ex_error err;
  sk_lda_gpu_counts c;
  if (!SK_CHECK(sk_lda_gpu_sampler_counts(g, &c, &err) == 0, "%s: counts: %s", when, err.message)) return 0;
  const double cpu_joint = sk_lda_joint_ll_per_token(m);
  double cpu_held = NAN, gj[2] = {0, 0}, gh[2] = {0, 0};
  if (!SK_CHECK(sk_lda_heldout_ll(m, obs, held, iters, 0, &cpu_held, &err) == 0, "%s: CPU held-out: %s", when,
                err.message))
    return 0;
  /* Under racecheck a held-out call with windows takes about 16 s (H200, 2026-11-29), so there a case's
     second comparison (gpu_seconds NULL) makes one call: no repeat, no held-out from dense B. */
  const int light = sk_test_under_racecheck() && gpu_seconds == NULL;
  for (int i = 0; i < (light ? 1 : 2); ++i) {
    const double t0 = sk_ex_now();
    if (!SK_CHECK(sk_lda_gpu_metrics_joint_ll(gm, &c, &gj[i], &err) == 0, "%s: GPU joint: %s", when, err.message))
      return 0;
    const double t1 = sk_ex_now();
    if (!SK_CHECK(sk_lda_gpu_metrics_heldout_ll(gm, &c, iters, &gh[i], &err) == 0, "%s: GPU held-out: %s", when,
                  err.message))
      return 0;
    if (gpu_seconds != NULL && i == 1) {
      gpu_seconds[0] = t1 - t0;
      gpu_seconds[1] = sk_ex_now() - t1;
    }
  }
  const double dj = rel_diff(gj[0], cpu_joint), dh = rel_diff(gh[0], cpu_held);
  if (dj > worst_joint) worst_joint = dj;
  if (dh > worst_heldout) worst_heldout = dh;
  int ok = SK_CHECK(dj <= JOINT_TOL && isnan(gj[0]) == isnan(cpu_joint),
                    "%s: joint LL %.17g on the GPU, %.17g on the CPU (relative %.3g)", when, gj[0], cpu_joint, dj);
  ok &= SK_CHECK(dh <= HELDOUT_TOL && isnan(gh[0]) == isnan(cpu_held),
                 "%s: held-out LL %.17g on the GPU, %.17g on the CPU (relative %.3g)", when, gh[0], cpu_held, dh);
  /* The joint LL from B's dense counts when the sampler also lists them (GPU ESCA): both orders agree. */
  if (c.b_list_nnz != NULL) {
    sk_lda_gpu_counts dense = c;
    double gd = NAN;
    dense.b_list_nnz = NULL;
    dense.b_list_off = NULL;
    dense.b_list_topic = NULL;
    dense.b_list_count = NULL;
    ok &= SK_CHECK(sk_lda_gpu_metrics_joint_ll(gm, &dense, &gd, &err) == 0, "%s: GPU joint (dense B): %s", when,
                   err.message);
    ok &= SK_CHECK(rel_diff(gd, cpu_joint) <= JOINT_TOL && isnan(gd) == isnan(cpu_joint),
                   "%s: joint LL from dense B %.17g on the GPU, %.17g on the CPU", when, gd, cpu_joint);
    /* The held-out tables from dense B are those from the lists: the same held-out bits. */
    if (!light) {
      double hd = NAN;
      ok &= SK_CHECK(sk_lda_gpu_metrics_heldout_ll(gm, &dense, iters, &hd, &err) == 0,
                     "%s: GPU held-out (dense B): %s", when, err.message);
      ok &= SK_CHECK(memcmp(&hd, &gh[0], sizeof hd) == 0, "%s: held-out LL %.17g from dense B, %.17g from the lists",
                     when, hd, gh[0]);
    }
  }
  /* The longest documents' windows at every cluster width (metrics_gpu_fold_windows.cuh): the same bits.
     Only where some document took windows: elsewhere every width is the same launch. Under racecheck only
     in a case's first comparison, and not the width chosen (the calls above ran it): the run of all of
     them went past 330 s (H200, 2026-11-29). */
  const int chosen = sk_lda_gpu_metrics_window_ctas_used(gm);
  const int widths = chosen > 0 && !light;
  for (int ctas = 1; widths && ctas <= 4; ctas *= 2) {
    if (sk_test_under_racecheck() && ctas == chosen) {
      ++window_widths[chosen];
      continue;
    }
    sk_test_progress("%s: held-out with windows of %d blocks", when, ctas);
    double hw = NAN;
    ok &= SK_CHECK(sk_lda_gpu_metrics_set_window_ctas(gm, ctas, &err) == 0 &&
                       sk_lda_gpu_metrics_heldout_ll(gm, &c, iters, &hw, &err) == 0,
                   "%s: GPU held-out, windows of %d blocks: %s", when, ctas, err.message);
    const int used = sk_lda_gpu_metrics_window_ctas_used(gm);
    if (used >= 1 && used <= 4) ++window_widths[used];
    ok &= SK_CHECK(memcmp(&hw, &gh[0], sizeof hw) == 0,
                   "%s: held-out LL %.17g with windows of %d blocks (%d used), %.17g with the width chosen", when, hw,
                   ctas, used, gh[0]);
  }
  ok &= SK_CHECK(sk_lda_gpu_metrics_set_window_ctas(gm, 0, &err) == 0, "%s: window width back to 0: %s", when,
                 err.message);
  if (!light)
    ok &= SK_CHECK(memcmp(&gj[0], &gj[1], sizeof gj[0]) == 0 && memcmp(&gh[0], &gh[1], sizeof gh[0]) == 0,
                   "%s: a second call gave other bits: joint %.17g / %.17g, held-out %.17g / %.17g", when, gj[0],
                   gj[1], gh[0], gh[1]);
  return ok;
}

/*
 * One case: K topics on `train`, `sweeps` CPU ESCA sweeps, then the GPU metrics against the CPU's on the
 * counts a GPU sampler made from the model, and again after one GPU sweep (model brought back).
 */
static void check_case(const char *name, const sk_lda_corpus *train, const sk_lda_corpus *obs,
                       const sk_lda_corpus *held, int32_t K, int sweeps, int iters, uint64_t seed) {
  sk_ex_error err;
  sk_lda_model m;
  sk_test_context("%s: K = %d, D = %d, T = %lld, test %d docs (%lld + %lld tokens), %d sweeps, %d fold-in, seed %llu",
                  name, (int)K, (int)train->num_docs, (long long)train->num_tokens, (int)obs->num_docs,
                  (long long)obs->num_tokens, (long long)held->num_tokens, sweeps, iters, (unsigned long long)seed);
  if (!SK_CHECK(sk_lda_model_init(&m, train, K, sk_lda_default_alpha(K), SK_LDA_DEFAULT_BETA, seed, &err) == 0,
                "init: %s", err.message))
    return;
  for (int it = 1; it <= sweeps; ++it)
    if (!SK_CHECK(esca_sweep(&m, (uint64_t)it, 0, &err) == 0, "CPU sweep %d: %s", it, err.message)) {
      sk_lda_model_free(&m);
      return;
    }
  sk_lda_sampler *g = NULL;
  sk_lda_gpu_metrics *gm = NULL;
  double secs[2] = {0, 0};
  if (SK_CHECK(sk_lda_esca_resident_create(&m, &kGpu0, NULL, NULL, &g, &err) == 0, "GPU create: %s", err.message) &&
      SK_CHECK(sk_lda_gpu_metrics_create(0, &gm, &err) == 0, "metrics create: %s", err.message) &&
      SK_CHECK(sk_lda_gpu_metrics_set_test(gm, obs, held, train->num_words, &err) == 0, "set test: %s", err.message) &&
      compare_once("after create", gm, g, &m, obs, held, iters, secs) &&
      SK_CHECK(sk_lda_sampler_sweep(g, (uint64_t)sweeps + 1, &err) == 0, "GPU sweep: %s", err.message) &&
      SK_CHECK(sk_lda_sampler_to_host(g, &err) == 0, "to host: %s", err.message))
    compare_once("after a GPU sweep", gm, g, &m, obs, held, iters, NULL);
  printf("%-6s K = %5d: T = %7lld, test %5lld tokens; GPU joint LL %.2f ms, held-out %.2f ms; device bytes %lld\n", name,
         (int)K, (long long)train->num_tokens, (long long)(obs->num_tokens + held->num_tokens), 1e3 * secs[0],
         1e3 * secs[1], (long long)sk_lda_gpu_metrics_device_bytes_peak(gm));
  sk_lda_gpu_metrics_destroy(gm);
  sk_lda_sampler_destroy(g);
  sk_lda_model_free(&m);
}

/* Random corpora with empty documents, and test splits with empty halves. */
static void test_small(void) {
  const int32_t Ks[] = {1, 32, 100, 1024, 10000};
  for (size_t i = 0; i < sizeof Ks / sizeof *Ks; ++i) {
    const uint64_t seed = 40 + i;
    sk_lda_corpus train = make_uniform_corpus(60, 37, 50, seed);
    sk_lda_corpus obs = make_uniform_corpus(25, 37, 30, seed + 100), held = make_uniform_corpus(25, 37, 30, seed + 200);
    check_case("small", &train, &obs, &held, Ks[i], 3, SK_LDA_DEFAULT_FOLDIN_ITERS, seed);
    if (Ks[i] == 100) {
      check_case("small", &train, &obs, &held, Ks[i], 1, 0, seed); /* no fold-in sweeps: the initial topics */
      check_case("small", &train, &obs, &held, Ks[i], 0, 3, seed); /* the initial model */
    }
    sk_lda_corpus_free(&train);
    sk_lda_corpus_free(&obs);
    sk_lda_corpus_free(&held);
  }
  /* The sparse fold-in's edges (metrics.h): observed halves of up to 400 tokens (more than 32 nonzero
     topics, so the warp's sorted topic list moves in several rounds), words that never occur in training
     (no q terms), K = 20000 (the warps' scratch in global memory) and K = 8000 (in shared memory, where
     a warp's copy, about 34 KB, leaves room for windows of 6 warps, not 16). */
  {
    sk_lda_corpus train = make_uniform_corpus(80, 300, 60, 91);
    for (int64_t t = 0; t < train.num_tokens; ++t) train.tokens[t] %= 290; /* words 290 .. 299 unseen */
    /* Under racecheck 4 test documents (observed halves of 170 to 272 tokens, all taken by the windows
       kernel) and 2 fold-in sweeps: racecheck made the 12 documents' windows take minutes a call. */
    const int race = sk_test_under_racecheck();
    sk_lda_corpus obs = make_uniform_corpus(race ? 4 : 12, 300, 400, 92),
                  held = make_uniform_corpus(race ? 4 : 12, 300, 100, 93);
    check_case("sparse", &train, &obs, &held, 1024, 2, race ? 2 : 5, 91);
    check_case("sparse", &train, &obs, &held, 20000, 1, race ? 2 : 3, 92);
    check_case("sparse", &train, &obs, &held, 8000, 1, race ? 2 : 3, 94);
    sk_lda_corpus_free(&train);
    sk_lda_corpus_free(&obs);
    sk_lda_corpus_free(&held);
  }
  /* Empty halves: every observed half empty (theta uniform), every held-out half empty (NaN), both
     empty in alternate documents, and a training corpus whose documents are mostly empty. */
  sk_lda_corpus train = make_uniform_corpus(80, 20, 3, 7);
  const int32_t some[6] = {0, 4, 0, 1, 3, 0}, none[6] = {0, 0, 0, 0, 0, 0}, words[8] = {0, 19, 5, 5, 7, 2, 11, 3};
  sk_lda_corpus full = make_corpus(20, 6, some, words), empty = make_corpus(20, 6, none, NULL);
  check_case("empty", &train, &empty, &full, 32, 2, SK_LDA_DEFAULT_FOLDIN_ITERS, 3);
  check_case("empty", &train, &full, &empty, 32, 2, SK_LDA_DEFAULT_FOLDIN_ITERS, 3);
  check_case("empty", &train, &full, &full, 200, 2, SK_LDA_DEFAULT_FOLDIN_ITERS, 3);
  sk_lda_corpus no_docs = make_corpus(20, 0, NULL, NULL);
  check_case("empty", &train, &no_docs, &no_docs, 5, 1, 2, 3);
  sk_lda_corpus_free(&train);
  sk_lda_corpus_free(&full);
  sk_lda_corpus_free(&empty);
  sk_lda_corpus_free(&no_docs);
}

/* The KOS corpus of ../shared/data (or .data in the source tree, where the device machine finds it). */
static void test_kos(void) {
  const char *folders[] = {SK_SHARED_DATA, SK_LDA_SOURCE_DIR "/.data"};
  char doc[1024] = "";
  struct stat st;
  for (size_t i = 0; i < 2 && doc[0] == '\0'; ++i) {
    snprintf(doc, sizeof doc, "%s/kos/docword.kos.txt.gz", folders[i]);
    if (stat(doc, &st) != 0) doc[0] = '\0';
  }
  if (doc[0] == '\0') {
    printf("note: docword.kos.txt.gz is in neither %s/kos nor %s/kos; the KOS cases are skipped\n", folders[0],
           folders[1]);
    return;
  }
  if (sk_test_under_sanitizer()) {
    printf("note: under a sanitizer the KOS cases are left out\n");
    return;
  }
  sk_lda_corpus c;
  sk_lda_split split;
  sk_ex_error err;
  sk_test_context("KOS: %s", doc);
  /* The docword file alone: vocab.kos.txt has one word more than W (see test_corpus.c). */
  if (!SK_CHECK(sk_lda_read_uci(doc, NULL, &c, &err) == 0, "%s", err.message)) return;
  if (SK_CHECK(sk_lda_split_corpus(&c, SK_LDA_DEFAULT_TEST_FRACTION, 1, &split, &err) == 0, "split: %s",
               err.message)) {
    const int32_t Ks[] = {1, 32, 100, 1024, 10000};
    for (size_t i = 0; i < sizeof Ks / sizeof *Ks; ++i)
      check_case("kos", &split.train, &split.test_observed, &split.test_heldout, Ks[i], 3, SK_LDA_DEFAULT_FOLDIN_ITERS,
                 1);
    sk_lda_split_free(&split);
  }
  sk_lda_corpus_free(&c);
}

/* The seam on a GPU sampler: the ops give the direct calls' values without to_host, and its statistics. */
static void test_seam_gpu(void) {
  sk_ex_error err;
  sk_lda_model m, cpu;
  sk_lda_sampler *s = NULL;
  const sk_lda_device device = {.kind = SK_LDA_DEVICE_GPU, .threads = 0};
  sk_lda_corpus train = make_uniform_corpus(50, 30, 40, 11);
  sk_lda_corpus obs = make_uniform_corpus(10, 30, 20, 12), held = make_uniform_corpus(10, 30, 20, 13);
  sk_test_context("seam on a GPU sampler");
  if (SK_CHECK(sk_lda_model_init(&m, &train, 64, 0.5, 0.1, 5, &err) == 0 &&
                   sk_lda_model_init(&cpu, &train, 64, 0.5, 0.1, 5, &err) == 0,
               "init: %s", err.message) &&
      SK_CHECK(sk_lda_sampler_create(SK_LDA_SAMPLER_ESCA, &m, &device, &s, &err) == 0, "create: %s", err.message)) {
    sk_lda_sampler_stats st;
    sk_lda_sampler_get_stats(s, &st);
    SK_CHECK(st.sweeps == 0 && st.sample_seconds >= 0 && st.device_bytes_peak > 0,
             "stats after create: %lld sweeps, %g s sampling, %lld device bytes", (long long)st.sweeps,
             st.sample_seconds, (long long)st.device_bytes_peak);
    const int64_t bytes_before = st.device_bytes_peak;
    double ll = 0, held_ll = 0, ll2 = 0, held2 = 0;
    for (int it = 1; it <= 2; ++it) {
      SK_CHECK(sk_lda_sampler_sweep(s, (uint64_t)it, &err) == 0, "sweep: %s", err.message);
      SK_CHECK(sk_lda_sampler_joint_ll(s, &ll, &err) == 0, "joint: %s", err.message);
      SK_CHECK(sk_lda_sampler_heldout_ll(s, &obs, &held, 4, &held_ll, &err) == 0, "held-out: %s", err.message);
    }
    /* The model was never brought back: it still holds the initial topics. */
    SK_CHECK(memcmp(m.z, cpu.z, (size_t)m.num_tokens * sizeof *m.z) == 0, "the metrics brought the model back");
    SK_CHECK(sk_lda_sampler_to_host(s, &err) == 0, "to host: %s", err.message);
    ll2 = sk_lda_joint_ll_per_token(&m);
    SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, 4, 1, &held2, &err) == 0, "CPU held-out: %s", err.message);
    SK_CHECK(rel_diff(ll, ll2) <= JOINT_TOL && rel_diff(held_ll, held2) <= HELDOUT_TOL,
             "seam: joint %.17g vs %.17g on the host, held-out %.17g vs %.17g", ll, ll2, held_ll, held2);
    /* Other halves are uploaded anew. */
    SK_CHECK(sk_lda_sampler_heldout_ll(s, &held, &obs, 4, &held_ll, &err) == 0 &&
                 sk_lda_heldout_ll(&m, &held, &obs, 4, 1, &held2, &err) == 0 && rel_diff(held_ll, held2) <= HELDOUT_TOL,
             "other halves: %.17g vs %.17g on the host (%s)", held_ll, held2, err.message);
    sk_lda_sampler_get_stats(s, &st);
    SK_CHECK(st.sweeps == 2 && st.sample_seconds > 0 && st.tables_seconds >= 0 && st.a_seconds >= 0 &&
                 st.b_seconds >= 0 && st.device_bytes_peak > bytes_before,
             "stats after 2 sweeps and the metrics: %lld sweeps, %g %g %g %g s, %lld device bytes (%lld before)",
             (long long)st.sweeps, st.sample_seconds, st.tables_seconds, st.a_seconds, st.b_seconds,
             (long long)st.device_bytes_peak, (long long)bytes_before);
    /* The fallbacks' argument checks. */
    SK_CHECK(sk_lda_sampler_joint_ll(NULL, &ll, &err) != 0 && sk_lda_sampler_joint_ll(s, NULL, &err) != 0,
             "NULL accepted by joint_ll");
    SK_CHECK(sk_lda_sampler_heldout_ll(s, &obs, &held, -1, &ll, &err) != 0, "-1 fold-in sweeps accepted");
  }
  sk_lda_sampler_destroy(s);
  sk_lda_model_free(&m);
  sk_lda_model_free(&cpu);
  sk_lda_corpus_free(&train);
  sk_lda_corpus_free(&obs);
  sk_lda_corpus_free(&held);
}

/* The context's argument checks. */
static void test_errors_gpu(void) {
  sk_ex_error err;
  sk_lda_model m;
  sk_lda_sampler *g = NULL;
  sk_lda_gpu_metrics *gm = NULL;
  sk_lda_gpu_counts c;
  double ll = 123.0;
  sk_lda_corpus train = make_uniform_corpus(10, 8, 10, 1);
  const int32_t a_len[3] = {2, 0, 3}, a_words[5] = {1, 7, 0, 3, 7};
  sk_lda_corpus a = make_corpus(8, 3, a_len, a_words), b = make_uniform_corpus(2, 8, 4, 3);
  sk_test_context("GPU metrics: errors");
  SK_CHECK(sk_lda_gpu_metrics_create(0, NULL, &err) != 0, "NULL out accepted");
  /* A sanitizer counts the refused device among its errors: left out there. */
  if (!sk_test_under_sanitizer())
    SK_CHECK(sk_lda_gpu_metrics_create(9999, &gm, &err) != 0 && gm == NULL, "GPU 9999 accepted");
  if (!SK_CHECK(sk_lda_model_init(&m, &train, 4, 0.5, 0.1, 1, &err) == 0, "init: %s", err.message)) return;
  if (SK_CHECK(sk_lda_esca_resident_create(&m, &kGpu0, NULL, NULL, &g, &err) == 0 &&
                   sk_lda_gpu_sampler_counts(g, &c, &err) == 0 && sk_lda_gpu_metrics_create(0, &gm, &err) == 0,
               "create: %s", err.message)) {
    SK_CHECK(sk_lda_gpu_metrics_heldout_ll(gm, &c, 2, &ll, &err) != 0 && strstr(err.message, "set_test") != NULL &&
                 ll == 123.0,
             "held-out without halves accepted (%s)", err.message);
    SK_CHECK(sk_lda_gpu_metrics_set_test(gm, &a, &b, 8, &err) != 0, "3 vs 2 documents accepted");
    SK_CHECK(sk_lda_gpu_metrics_set_test(gm, &a, &a, 7, &err) != 0 && strstr(err.message, "word id 7") != NULL,
             "word id 7 with V = 7 accepted (%s)", err.message);
    SK_CHECK(sk_lda_gpu_metrics_set_test(gm, NULL, &a, 8, &err) != 0, "NULL half accepted");
    SK_CHECK(sk_lda_gpu_metrics_set_test(gm, &a, &a, 8, &err) == 0, "set test: %s", err.message);
    SK_CHECK(sk_lda_gpu_metrics_heldout_ll(gm, &c, -1, &ll, &err) != 0, "-1 fold-in sweeps accepted");
    SK_CHECK(sk_lda_gpu_metrics_set_window_ctas(gm, 3, &err) != 0 && strstr(err.message, "3 blocks") != NULL,
             "a window of 3 blocks accepted (%s)", err.message);
    SK_CHECK(sk_lda_gpu_metrics_set_window_ctas(NULL, 0, &err) != 0, "a NULL context accepted");
    SK_CHECK(sk_lda_gpu_metrics_heldout_ll(gm, NULL, 1, &ll, &err) != 0, "NULL counts accepted");
    SK_CHECK(sk_lda_gpu_metrics_joint_ll(gm, &c, NULL, &err) != 0, "NULL result accepted");
    sk_lda_gpu_counts other = c;
    other.num_words = 9;
    SK_CHECK(sk_lda_gpu_metrics_heldout_ll(gm, &other, 1, &ll, &err) != 0, "halves of another V accepted");
    other = c;
    other.gpu = 1 + c.gpu;
    SK_CHECK(sk_lda_gpu_metrics_joint_ll(gm, &other, &ll, &err) != 0, "counts of another GPU accepted");
    other = c;
    other.b = NULL;
    SK_CHECK(sk_lda_gpu_metrics_joint_ll(gm, &other, &ll, &err) != 0, "NULL B accepted");
    SK_CHECK(ll == 123.0, "a failed call wrote the result");
    SK_CHECK(sk_lda_gpu_metrics_device_bytes(gm) > 0 &&
                 sk_lda_gpu_metrics_device_bytes_peak(gm) >= sk_lda_gpu_metrics_device_bytes(gm),
             "device bytes %lld, peak %lld", (long long)sk_lda_gpu_metrics_device_bytes(gm),
             (long long)sk_lda_gpu_metrics_device_bytes_peak(gm));
  }
  SK_CHECK(sk_lda_gpu_metrics_device_bytes(NULL) == 0, "NULL context holds bytes");
  sk_lda_gpu_metrics_destroy(gm);
  sk_lda_gpu_metrics_destroy(NULL);
  sk_lda_sampler_destroy(g);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&train);
  sk_lda_corpus_free(&a);
  sk_lda_corpus_free(&b);
}

/* Without a GPU: a CPU sampler's seam computes the metrics on the host and knows no time split. */
static void test_host_checks(void) {
  sk_ex_error err;
  sk_lda_model m;
  sk_lda_sampler *s = NULL;
  const sk_lda_device device = {.kind = SK_LDA_DEVICE_CPU, .threads = 2};
  sk_lda_corpus train = make_uniform_corpus(30, 20, 30, 21);
  sk_lda_corpus obs = make_uniform_corpus(8, 20, 10, 22), held = make_uniform_corpus(8, 20, 10, 23);
  sk_test_context("seam on a CPU sampler");
  sk_lda_sampler_stats st;
  sk_lda_sampler_get_stats(NULL, &st);
  SK_CHECK(st.sample_seconds == -1 && st.device_bytes_peak == 0, "NULL sampler's stats");
  sk_lda_sampler_get_stats(NULL, NULL); /* ignored */
  for (int kind = 0; kind < 2; ++kind) {
    if (!SK_CHECK(sk_lda_model_init(&m, &train, 7, 0.3, 0.05, 9, &err) == 0, "init: %s", err.message)) break;
    if (SK_CHECK(sk_lda_sampler_create(kind, &m, &device, &s, &err) == 0, "create: %s", err.message)) {
      double ll = 0, held_ll = 0, want_held = 0;
      SK_CHECK(sk_lda_sampler_sweep(s, 1, &err) == 0, "sweep: %s", err.message);
      SK_CHECK(sk_lda_sampler_joint_ll(s, &ll, &err) == 0 && ll == sk_lda_joint_ll_per_token(&m), "joint %.17g", ll);
      SK_CHECK(sk_lda_sampler_heldout_ll(s, &obs, &held, 3, &held_ll, &err) == 0 &&
                   sk_lda_heldout_ll(&m, &obs, &held, 3, 1, &want_held, &err) == 0 && held_ll == want_held,
               "%s held-out %.17g, host %.17g", sk_lda_sampler_kind_name(kind), held_ll, want_held);
      SK_CHECK(sk_lda_sampler_heldout_ll(s, &obs, &held, -1, &held_ll, &err) != 0, "-1 fold-in sweeps accepted");
      sk_lda_sampler_get_stats(s, &st);
      SK_CHECK(st.sweeps == 0 && st.sample_seconds == -1 && st.tables_seconds == -1 && st.a_seconds == -1 &&
                   st.b_seconds == -1 && st.device_bytes_peak == 0,
               "%s stats: %lld sweeps, %g s, %lld bytes", sk_lda_sampler_kind_name(kind), (long long)st.sweeps,
               st.sample_seconds, (long long)st.device_bytes_peak);
    }
    sk_lda_sampler_destroy(s);
    s = NULL;
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&train);
  sk_lda_corpus_free(&obs);
  sk_lda_corpus_free(&held);
}

/* ---- --bench: the metrics at scale --------------------------------------------------------------- */

/* D documents of lengths uniform in [1, 2L - 1] over V words with Zipf(1) frequencies. */
static sk_lda_corpus make_zipf_corpus(int32_t D, int32_t V, int32_t L, uint64_t seed) {
  double *cdf = (double *)malloc((size_t)V * sizeof *cdf);
  double total = 0.0;
  for (int32_t v = 0; v < V; ++v) cdf[v] = total += 1.0 / (double)(v + 1);
  int32_t *len = (int32_t *)malloc((size_t)D * sizeof *len);
  uint64_t s = seed;
  int64_t T = 0;
  for (int32_t d = 0; d < D; ++d) T += len[d] = 1 + (int32_t)(sk_test_rand_u32(&s) % (uint32_t)(2 * L - 1));
  int32_t *w = (int32_t *)malloc((size_t)T * sizeof *w);
  for (int64_t t = 0; t < T; ++t) {
    w[t] = sk_lda_detail_first_above(cdf, V, total * (double)(sk_test_rand_u32(&s) >> 8) * 0x1p-24);
  }
  sk_lda_corpus c = make_corpus(V, D, len, w);
  free(cdf);
  free(len);
  free(w);
  return c;
}

static int bench(int32_t D, int32_t V, int32_t L, int32_t K) {
  sk_ex_error err;
  sk_lda_model m;
  sk_lda_sampler *g = NULL;
  sk_lda_gpu_metrics *gm = NULL;
  sk_lda_gpu_counts c;
  double t0 = sk_ex_now();
  sk_lda_corpus train = make_zipf_corpus(D, V, L, 1);
  const int32_t Dt = D / 10 > 0 ? D / 10 : 1;
  sk_lda_corpus obs = make_zipf_corpus(Dt, V, (L + 1) / 2, 2), held = make_zipf_corpus(Dt, V, (L + 1) / 2, 3);
  printf("bench: D = %d, V = %d, T = %lld, K = %d; test %d documents, %lld + %lld tokens (made in %.1f s)\n", (int)D,
         (int)V, (long long)train.num_tokens, (int)K, (int)Dt, (long long)obs.num_tokens, (long long)held.num_tokens,
         sk_ex_now() - t0);
  if (sk_lda_model_init(&m, &train, K, sk_lda_default_alpha(K), SK_LDA_DEFAULT_BETA, 1, &err) != 0 ||
      sk_lda_esca_resident_create(&m, &kGpu0, NULL, NULL, &g, &err) != 0 || sk_lda_sampler_sweep(g, 1, &err) != 0 ||
      sk_lda_gpu_sampler_counts(g, &c, &err) != 0 || sk_lda_gpu_metrics_create(0, &gm, &err) != 0) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  t0 = sk_ex_now();
  if (sk_lda_gpu_metrics_set_test(gm, &obs, &held, V, &err) != 0) return fprintf(stderr, "bench: %s\n", err.message), 1;
  printf("  set_test (upload of the halves, once a run): %.1f ms\n", 1e3 * (sk_ex_now() - t0));
  double joint[5], heldout[3], jv = 0, hv = 0;
  for (int i = 0; i < 5; ++i) {
    t0 = sk_ex_now();
    if (sk_lda_gpu_metrics_joint_ll(gm, &c, &jv, &err) != 0) return fprintf(stderr, "bench: %s\n", err.message), 1;
    joint[i] = sk_ex_now() - t0;
  }
  for (int i = 0; i < 3; ++i) {
    t0 = sk_ex_now();
    if (sk_lda_gpu_metrics_heldout_ll(gm, &c, SK_LDA_DEFAULT_FOLDIN_ITERS, &hv, &err) != 0)
      return fprintf(stderr, "bench: %s\n", err.message), 1;
    heldout[i] = sk_ex_now() - t0;
  }
  printf("  GPU joint LL: %.2f ms (min of 5; first %.2f ms) = %.6f; GPU held-out LL: %.1f ms (min of 3; first %.1f ms) "
         "= %.6f; metrics device bytes %lld\n",
         1e3 * fmin(fmin(joint[1], joint[2]), fmin(joint[3], joint[4])), 1e3 * joint[0], jv,
         1e3 * fmin(heldout[1], heldout[2]), 1e3 * heldout[0], hv, (long long)sk_lda_gpu_metrics_device_bytes_peak(gm));
  t0 = sk_ex_now();
  if (sk_lda_sampler_to_host(g, &err) != 0) return fprintf(stderr, "bench: %s\n", err.message), 1;
  const double to_host = sk_ex_now() - t0;
  t0 = sk_ex_now();
  const double cj = sk_lda_joint_ll_per_token(&m);
  const double cpu_joint = sk_ex_now() - t0;
  double ch = 0;
  t0 = sk_ex_now();
  if (sk_lda_heldout_ll(&m, &obs, &held, SK_LDA_DEFAULT_FOLDIN_ITERS, 0, &ch, &err) != 0)
    return fprintf(stderr, "bench: %s\n", err.message), 1;
  const double cpu_held = sk_ex_now() - t0;
  printf("  host path: to_host %.1f ms, CPU joint LL %.1f ms = %.6f (relative difference %.2g), CPU held-out LL %.1f ms "
         "(all threads) = %.6f (relative difference %.2g)\n",
         1e3 * to_host, 1e3 * cpu_joint, cj, rel_diff(jv, cj), 1e3 * cpu_held, ch, rel_diff(hv, ch));
  sk_lda_gpu_metrics_destroy(gm);
  sk_lda_sampler_destroy(g);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&train);
  sk_lda_corpus_free(&obs);
  sk_lda_corpus_free(&held);
  return 0;
}

int main(int argc, char **argv) {
  /* Under a sanitizer a run cut by its time limit keeps what it printed. */
  if (sk_test_under_sanitizer()) setvbuf(stdout, NULL, _IOLBF, 0);
  test_host_checks();
  if (sk_test_wants_host_only(argc, argv)) return sk_test_finish();
  if (!test_gpu_present(NULL, 0)) return SK_TEST_SKIP_CODE;
  if (argc == 6 && strcmp(argv[1], "--bench") == 0)
    return bench((int32_t)sk_test_parse_long("--bench D", argv[2], 1, INT32_MAX),
                 (int32_t)sk_test_parse_long("--bench V", argv[3], 1, INT32_MAX),
                 (int32_t)sk_test_parse_long("--bench L", argv[4], 1, 1000000),
                 (int32_t)sk_test_parse_long("--bench K", argv[5], 1, SK_LDA_MAX_TOPICS));
  test_errors_gpu();
  test_seam_gpu();
  test_small();
  test_kos();
  printf("largest relative differences from the CPU: joint LL %.3g (bound %g), held-out LL %.3g (bound %g)\n",
         worst_joint, JOINT_TOL, worst_heldout, HELDOUT_TOL);
  /* The "sparse" case's documents (170 to 400 observed tokens) hold two windows of 64: every width ran. */
  printf("held-out calls whose windows had 1, 2, 4 blocks: %d, %d, %d\n", window_widths[1], window_widths[2],
         window_widths[4]);
  SK_CHECK(window_widths[1] > 0 && window_widths[2] > 0 && window_widths[4] > 0,
           "a cluster width never ran: %d, %d, %d calls with 1, 2, 4 blocks", window_widths[1], window_widths[2],
           window_widths[4]);
  return sk_test_finish();
}
