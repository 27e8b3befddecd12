/*
 * GPU ESCA's resident sweep (examples/lda/src/gpu/esca_resident.h, what --sampler esca runs on a GPU):
 * against the CPU ESCA (esca.h), against itself under other launch shapes, and its counts against z.
 *
 * Agreement with the CPU. From the same topics, one fast sweep and one CPU sweep draw every token with
 * the same uniform u; they may choose differently only when u falls between the CPU's boundary (a
 * running sum in double) and the GPU's (the same sum in float, added in another order). A boundary
 * P = sum of n positive terms carries a float error of at most about n 2^-24 P, and the draw compares
 * u against boundaries scaled by the total, so a token differs with probability at most about
 * (nnz_d + K) 2^-24 ~ 6e-5 at K = 1,024 in the worst case (all errors of one sign), far less in
 * practice. For K <= 1,024 the test allows a fraction kMaxDiffering = 1e-4 of the tokens (at least
 * one token on the tiny corpora) and prints what it sees. Above that the bound means nothing: the
 * tree's running sums over K leaves are floats, so each boundary is known only to about K 2^-24 of the
 * total, which at K = 10,000 and more approaches a leaf's own share (1 / K of the total): draws from
 * the dense part may land on a neighbouring leaf. There the test prints the fraction and checks the
 * rest (counts, launch shapes, resume). Over 50 sweeps on kos (K = 100 and 1,024) the two chains'
 * joint log-likelihoods stay within 0.5% at every tenth sweep.
 *
 * Determinism: samplers with other launch shapes (threads per block, blocks per SM, item and chunk
 * sizes) and either epilogue (B's next counts dense or from z) give the same topics after every sweep,
 * bit for bit; a sampler made from a model brought back
 * half-way (a resume) continues exactly as the uninterrupted one.
 *
 * Counts: after every sweep, every sampler's A, B and n_k brought back with to_host equal the counts
 * rebuilt from z on the host.
 *
 * K runs over 1, 2, 31, 32, 33, 1,024, 10,000 (rows in shared memory up to here) and 65,536 (each
 * row's first 55,296 topics in shared memory, the rest in global memory), on corpora with empty
 * documents, one-token documents, a word in every document and, at K = 32 and 1,024, a document of
 * 100,000 tokens. Under a sanitizer the 100,000-token cases and kos are left out, and each sweep is
 * named on stderr as it starts (a run cut by its time limit shows how far it got). Without a GPU it
 * exits 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "corpus_read.h"
#include "esca.h"
#include "gpu/esca_resident.h"
#include "gpu/gpu.h"
#include "gpu/gpu_sampler.h"
#include "lda_test_esca.h"
#include "lda_test_gpu.h"
#include "metrics.h"
#include "model.h"
#include "sampler.h"
#include "sampler_options.h"
#include "sk_test.h"

static const double kMaxDiffering = 1e-4;
enum { kShapes = 4 };

/* Launch shapes and epilogues the topics must not depend on: the default, and three others, which take
   the dense epilogue (next counts through a V x K array) and the sparse one (from z) whatever the size. */
static const sk_lda_esca_options kShapeOptions[kShapes] = {
    {.threads = 0},
    {.threads = 32, .blocks_per_sm = 1, .item_tokens = 7, .chunk_tokens = 97, .next_counts = SK_LDA_NEXT_COUNTS_SPARSE},
    {.threads = 1024, .item_tokens = 1, .chunk_tokens = 1, .next_counts = SK_LDA_NEXT_COUNTS_DENSE},
    {.threads = 128, .blocks_per_sm = 2, .item_tokens = 300, .chunk_tokens = 5000, .next_counts = SK_LDA_NEXT_COUNTS_SPARSE},
};

/* Tokens whose topics differ between two models of one corpus. */
static int64_t differing(const sk_lda_model *a, const sk_lda_model *b) {
  int64_t n = 0;
  for (int64_t t = 0; t < a->num_tokens; ++t) n += a->z[t] != b->z[t];
  return n;
}

/* The allowed differing tokens of one sweep over T tokens. */
static int64_t allowed_differing(int64_t T, int32_t K) {
  return K <= 1024 ? (int64_t)ceil(kMaxDiffering * (double)T) : T;
}

static const sk_lda_device kGpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};

typedef struct fast_case {
  int32_t K;
  corpus_shape shape;
  int sweeps;
} fast_case;

static void run_fast_case(const fast_case *fc) {
  sk_lda_corpus corpus = make_case_corpus(&fc->shape);
  const double alpha = sk_lda_default_alpha(fc->K), beta = 0.01;
  const uint64_t seed = 2000 + (uint64_t)fc->K + fc->shape.seed;
  sk_lda_model cpu, gpu[kShapes], resumed, resume_point;
  sk_lda_sampler *s[kShapes] = {NULL}, *r = NULL;
  sk_ex_error err;
  memset(&resume_point, 0, sizeof resume_point); /* made at the half-way sweep */
  sk_test_context("K = %d, V = %d, D = %d, T = %lld, long document %d", (int)fc->K, (int)corpus.num_words,
                  (int)corpus.num_docs, (long long)corpus.num_tokens, (int)fc->shape.long_doc);
  int ok = SK_CHECK(sk_lda_model_init(&cpu, &corpus, fc->K, alpha, beta, seed, &err) == 0 &&
                        sk_lda_model_init(&resumed, &corpus, fc->K, alpha, beta, seed, &err) == 0,
                    "init: %s", err.message);
  for (int i = 0; i < kShapes && ok; ++i)
    ok = SK_CHECK(sk_lda_model_init(&gpu[i], &corpus, fc->K, alpha, beta, seed, &err) == 0 &&
                      sk_lda_esca_resident_create(&gpu[i], &kGpu0, &kShapeOptions[i], NULL, &s[i], &err) == 0,
                  "shape %d: init or create: %s", i, err.message);
  int64_t worst = 0;
  const int half = fc->sweeps / 2;
  for (int it = 1; it <= fc->sweeps && ok; ++it) {
    char when[64];
    snprintf(when, sizeof when, "after sweep %d", it);
    sk_test_progress("K = %d, long document %d: sweep %d of %d", (int)fc->K, (int)fc->shape.long_doc, it, fc->sweeps);
    for (int i = 0; i < kShapes && ok; ++i)
      ok = SK_CHECK(sk_lda_sampler_sweep(s[i], (uint64_t)it, &err) == 0 && sk_lda_sampler_to_host(s[i], &err) == 0,
                    "shape %d, %s: %s", i, when, err.message);
    if (!ok) break;
    /* one CPU sweep from the GPU's previous topics: only rounding may tell them apart */
    if (it > 1) ok = SK_CHECK(sk_lda_model_set_z(&cpu, resumed.z, &err) == 0, "set_z: %s", err.message);
    ok = ok && SK_CHECK(esca_sweep(&cpu, (uint64_t)it, 0, &err) == 0, "CPU sweep: %s", err.message);
    const int64_t diff = ok ? differing(&cpu, &gpu[0]) : 0;
    if (diff > worst) worst = diff;
    ok = ok && SK_CHECK(diff <= allowed_differing(cpu.num_tokens, fc->K), "%s: %lld of %lld tokens differ from the CPU's",
                        when, (long long)diff, (long long)cpu.num_tokens);
    for (int i = 0; i < kShapes && ok; ++i) ok = counts_match_z(&gpu[i], when);
    for (int i = 1; i < kShapes && ok; ++i)
      ok = SK_CHECK(memcmp(gpu[0].z, gpu[i].z, (size_t)cpu.num_tokens * sizeof *cpu.z) == 0,
                    "%s: launch shape %d gave other topics (%lld differ)", when, i, (long long)differing(&gpu[0], &gpu[i]));
    /* the previous topics of the next CPU comparison, and the resume point (a model of its own: the
       resumed sampler owns the model it is created on, and `resumed` is rewritten every sweep) */
    ok = ok && SK_CHECK(sk_lda_model_set_z(&resumed, gpu[0].z, &err) == 0, "set_z: %s", err.message);
    if (ok && it == half)
      ok = SK_CHECK(sk_lda_model_init(&resume_point, &corpus, fc->K, alpha, beta, seed, &err) == 0 &&
                        sk_lda_model_set_z(&resume_point, resumed.z, &err) == 0 &&
                        sk_lda_esca_resident_create(&resume_point, &kGpu0, NULL, NULL, &r, &err) == 0,
                    "resume: create: %s", err.message);
    if (ok && it > half && r != NULL) {
      sk_lda_model back;
      ok = SK_CHECK(sk_lda_model_init(&back, &corpus, fc->K, alpha, beta, seed, &err) == 0 &&
                        sk_lda_sampler_sweep(r, (uint64_t)it, &err) == 0 &&
                        sk_lda_gpu_sampler_to_model(r, &back, &err) == 0,
                    "resumed sampler: %s", err.message) &&
           SK_CHECK(memcmp(back.z, gpu[0].z, (size_t)cpu.num_tokens * sizeof *cpu.z) == 0,
                    "%s: the run resumed after sweep %d differs", when, half);
      sk_lda_model_free(&back);
    }
  }
  printf("K = %5d: V = %4d, D = %4d, T = %6lld, %d sweeps, %d launch shapes equal, at most %lld tokens (%.2g) "
         "differ from the CPU in one sweep\n",
         (int)fc->K, (int)corpus.num_words, (int)corpus.num_docs, (long long)corpus.num_tokens, fc->sweeps, kShapes,
         (long long)worst, (double)worst / (double)(corpus.num_tokens > 0 ? corpus.num_tokens : 1));
  for (int i = 0; i < kShapes; ++i) {
    sk_lda_sampler_destroy(s[i]);
    sk_lda_model_free(&gpu[i]);
  }
  sk_lda_sampler_destroy(r);
  sk_lda_model_free(&resume_point);
  sk_lda_model_free(&cpu);
  sk_lda_model_free(&resumed);
  sk_lda_corpus_free(&corpus);
}

static void test_cases(void) {
  static const corpus_shape medium = {300, 150, 40, 0, 21};
  static const corpus_shape small = {50, 25, 20, 0, 22};
  static const corpus_shape with_long = {300, 60, 40, 100000, 23};
  const fast_case cases[] = {
      {1, medium, 4},     {2, medium, 4},    {31, medium, 4},   {32, medium, 4},
      {33, medium, 4},    {1024, medium, 4}, {10000, small, 4}, {65536, small, 4},
      {32, with_long, 4}, {1024, with_long, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    if (sk_test_under_sanitizer() && cases[i].shape.long_doc >= 100000) {
      printf("K = %5d with the 100,000-token document: left out under the sanitizer\n", (int)cases[i].K);
      continue;
    }
    run_fast_case(&cases[i]);
  }
}

/* kos at K = 100 and 1,024: one sweep from the same topics, then 50 sweeps of each chain. */
static void test_kos(void) {
  sk_lda_corpus kos;
  memset(&kos, 0, sizeof kos);
  if (!read_kos(&kos)) return;
  const int32_t Ks[] = {100, 1024};
  for (size_t ki = 0; ki < 2; ++ki) {
    const int32_t K = Ks[ki];
    sk_lda_model cpu, gpu;
    sk_lda_sampler *s = NULL;
    sk_ex_error err;
    sk_test_context("kos, K = %d", (int)K);
    const double alpha = sk_lda_default_alpha(K);
    if (!SK_CHECK(sk_lda_model_init(&cpu, &kos, K, alpha, 0.01, 7, &err) == 0 &&
                      sk_lda_model_init(&gpu, &kos, K, alpha, 0.01, 7, &err) == 0 &&
                      sk_lda_esca_resident_create(&gpu, &kGpu0, NULL, NULL, &s, &err) == 0,
                  "init or create: %s", err.message))
      continue;
    double worst_gap = 0.0;
    int ok = 1;
    for (int it = 1; it <= 50 && ok; ++it) {
      ok = SK_CHECK(esca_sweep(&cpu, (uint64_t)it, 0, &err) == 0 && sk_lda_sampler_sweep(s, (uint64_t)it, &err) == 0 &&
                        sk_lda_sampler_to_host(s, &err) == 0,
                    "sweep %d: %s", it, err.message);
      if (ok && it == 1) {
        const int64_t diff = differing(&cpu, &gpu);
        printf("kos K = %4d: sweep 1 from the same topics: %lld of %lld tokens (%.2g) differ from the CPU\n", (int)K,
               (long long)diff, (long long)kos.num_tokens, (double)diff / (double)kos.num_tokens);
        ok = SK_CHECK(diff <= allowed_differing(kos.num_tokens, K), "%lld tokens differ in sweep 1", (long long)diff);
      }
      if (ok && (it == 1 || it % 10 == 0)) {
        const double lc = sk_lda_joint_ll_per_token(&cpu), lg = sk_lda_joint_ll_per_token(&gpu);
        const double gap = fabs(lg - lc) / fabs(lc);
        if (gap > worst_gap) worst_gap = gap;
        printf("kos K = %4d: sweep %2d joint LL/token CPU %.5f GPU %.5f (%.3f%%)\n", (int)K, it, lc, lg, 100.0 * gap);
        ok = SK_CHECK(gap <= 0.005, "sweep %d: joint LL %.6f on the GPU, %.6f on the CPU: more than 0.5%% apart", it,
                      lg, lc);
      }
    }
    sk_lda_sampler_destroy(s);
    sk_lda_model_free(&cpu);
    sk_lda_model_free(&gpu);
  }
  sk_lda_corpus_free(&kos);
}

int main(void) {
  /* Under a sanitizer a run cut by its time limit keeps what it printed (each case prints a line). */
  if (sk_test_under_sanitizer()) setvbuf(stdout, NULL, _IOLBF, 0);
  if (!test_gpu_present(NULL, 0)) return SK_TEST_SKIP_CODE;
  test_cases();
  if (!sk_test_under_sanitizer()) test_kos(); /* the sanitizer run takes the small cases only */
  return sk_test_finish();
}
