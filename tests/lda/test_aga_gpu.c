/*
 * GPU AGA-LDA (examples/lda/src/gpu/aga_sampler.h, knobs sk_lda_aga_options): its counts and its plan's
 * edges. (Its exactness, collapsed Gibbs on one-token documents, is in test_sampler --gpu.)
 *
 * Counts stay consistent: after every sweep the model brought back with to_host has A, B (WT) and n_k
 * (NT) equal to the counts rebuilt from its z on the host, and no count is negative (models_equal and the
 * rebuild check every entry). A mini-batch's DT is rebuilt from z as it starts, and WT and NT are
 * written only by the atomics of draws, so a consistent state after a sweep with mini-batches of one
 * document means a consistent state after each of them. Checked on kos at K = 100 over 5 sweeps, and
 * on the case corpora (empty documents, one-token documents, a word in every document) at K = 1, 2,
 * 33, 100 and 256 (the blocked draw with 1, 2, 4 and 8 topics a lane) with mini-batches of 1 document, 7 documents and all of them, and panels of one word, of
 * 3 words and of as many as shared memory holds, each with whole-word panels (the paper's), with words
 * split over the default panels, and with a panel a token (every frequent word's row shared by many
 * blocks); at K = 40,000 (the paper's two passes; NT's change no longer fits beside a row: global
 * atomics) with a panel a token;
 * and on kos at K = 100 with a panel every 8 tokens.
 *
 * Quality: on kos at K = 100 the joint log-likelihood per token rises over 30 sweeps and ends within
 * 1% of the GPU ESCA's (gpu/esca_resident.h) after the same number of sweeps, or above it.
 * Without a GPU it exits 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "corpus_read.h"
#include "gpu/aga_sampler.h"
#include "gpu/esca_resident.h"
#include "gpu/gpu.h"
#include "lda_test_gpu.h"
#include "metrics.h"
#include "model.h"
#include "sampler.h"
#include "sampler_options.h"
#include "sk_test.h"

/* How the panels are cut: the paper's whole words, split words over the default panels, or split over
   `panels` panels a mini-batch. */
typedef struct panel_cut {
  int whole_words;
  int32_t panels;
} panel_cut;

/* AGA's options: mini-batches of `minibatch` documents, panels of at most `panel_words` words (0: the
   defaults), cut as `cut` says. */
static sk_lda_aga_options aga_options(int32_t minibatch, int32_t panel_words, panel_cut cut) {
  sk_lda_aga_options o;
  memset(&o, 0, sizeof o);
  o.minibatch_docs = minibatch;
  o.panel_words = panel_words;
  o.whole_words = cut.whole_words;
  o.panels = cut.panels;
  return o;
}

static const panel_cut kDefaultCut = {0, 0};

static const sk_lda_device kGpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};

/* `sweeps` AGA sweeps on corpus c at K with the given mini-batch and panel sizes, counts checked after
   each. Returns the joint LL per token after the last sweep (NAN on failure). */
static double run_aga(const sk_lda_corpus *c, int32_t K, int32_t minibatch, int32_t panel_words, panel_cut cut,
                      int sweeps, uint64_t seed) {
  sk_lda_model m;
  sk_lda_sampler *g = NULL;
  sk_ex_error err;
  const sk_lda_aga_options o = aga_options(minibatch, panel_words, cut);
  double ll = NAN;
  if (!SK_CHECK(sk_lda_model_init(&m, c, K, sk_lda_default_alpha(K), 0.01, seed, &err) == 0, "init: %s", err.message))
    return ll;
  int ok = SK_CHECK(sk_lda_aga_create(&m, &kGpu0, &o, &g, &err) == 0, "create: %s", err.message);
  for (int it = 1; it <= sweeps && ok; ++it) {
    char when[96];
    snprintf(when, sizeof when, "after AGA sweep %d", it);
    ok = SK_CHECK(sk_lda_sampler_sweep(g, (uint64_t)it, &err) == 0 && sk_lda_sampler_to_host(g, &err) == 0,
                  "sweep %d: %s", it, err.message) &&
         counts_match_z(&m, when);
  }
  if (ok) ll = sk_lda_joint_ll_per_token(&m);
  sk_lda_sampler_destroy(g);
  sk_lda_model_free(&m);
  return ll;
}

static void test_case_corpora(void) {
  const corpus_shape shape = {60, 40, 30, 0, 11};
  sk_lda_corpus c = make_case_corpus(&shape);
  const int32_t Ks[] = {1, 2, 33, 100, 256};
  const int32_t batches[] = {1, 7, 0x7fffffff};
  const int32_t panels[] = {1, 3, 0};
  const panel_cut cuts[] = {{1, 0}, kDefaultCut, {0, (int32_t)c.num_tokens}};
  const char *cut_names[] = {"whole words", "split words", "a panel a token"};
  /* Under a sanitizer (racecheck is over 100 times slower) K = 2 and 100 with every cut, mini-batches
     of 7 documents and the default panels only, and not K = 40,000. */
  const int fast = sk_test_under_sanitizer();
  for (size_t ki = fast ? 1 : 0; ki < (fast ? 4 : sizeof Ks / sizeof Ks[0]); ki += fast ? 2 : 1)
    for (size_t bi = fast ? 1 : 0; bi < (fast ? 2 : sizeof batches / sizeof batches[0]); ++bi)
      for (size_t pi = fast ? 2 : 0; pi < sizeof panels / sizeof panels[0]; ++pi)
        for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ++ci) {
          sk_test_context("case corpus (D = %d, T = %lld), K = %d, mini-batches of %d documents, panels of %d words, %s",
                          (int)c.num_docs, (long long)c.num_tokens, (int)Ks[ki], (int)batches[bi], (int)panels[pi],
                          cut_names[ci]);
          const double ll = run_aga(&c, Ks[ki], batches[bi], panels[pi], cuts[ci], 3, 50 + ki);
          SK_CHECK(!isnan(ll), "the run failed");
        }
  sk_test_context("case corpus, K = 40000 (NT's change by global atomics), a panel a token");
  if (!fast) SK_CHECK(!isnan(run_aga(&c, 40000, 0x7fffffff, 0, cuts[2], 2, 7)), "the run failed");
  sk_lda_corpus_free(&c);
}

static void test_kos(void) {
  sk_lda_corpus kos;
  memset(&kos, 0, sizeof kos);
  if (!read_kos(&kos)) return;
  sk_test_context("kos, K = 100, default mini-batches, 5 sweeps");
  const double ll5 = run_aga(&kos, 100, 0, 0, kDefaultCut, 5, 3);
  SK_CHECK(!isnan(ll5), "the run failed");
  sk_test_context("kos, K = 100, default mini-batches, a panel every 8 tokens, 5 sweeps");
  const panel_cut fine = {0, (int32_t)(kos.num_tokens / 10 / 8)};
  SK_CHECK(!isnan(run_aga(&kos, 100, 0, 0, fine, 5, 4)), "the run failed");
  /* 30 sweeps of AGA and of ESCA from the same start */
  sk_lda_model a, e;
  sk_lda_sampler *ga = NULL, *ge = NULL;
  sk_ex_error err;
  const sk_lda_aga_options o = aga_options(0, 0, kDefaultCut);
  sk_test_context("kos, K = 100, 30 sweeps of AGA and ESCA");
  if (SK_CHECK(sk_lda_model_init(&a, &kos, 100, sk_lda_default_alpha(100), 0.01, 5, &err) == 0 &&
                   sk_lda_model_init(&e, &kos, 100, sk_lda_default_alpha(100), 0.01, 5, &err) == 0 &&
                   sk_lda_aga_create(&a, &kGpu0, &o, &ga, &err) == 0 &&
                   sk_lda_esca_resident_create(&e, &kGpu0, NULL, NULL, &ge, &err) == 0,
               "create: %s", err.message)) {
    double first = NAN, prev = -INFINITY;
    int ok = 1, falls = 0;
    for (int it = 1; it <= 30 && ok; ++it) {
      ok = SK_CHECK(sk_lda_sampler_sweep(ga, (uint64_t)it, &err) == 0 && sk_lda_sampler_to_host(ga, &err) == 0 &&
                        sk_lda_sampler_sweep(ge, (uint64_t)it, &err) == 0 && sk_lda_sampler_to_host(ge, &err) == 0,
                    "sweep %d: %s", it, err.message);
      if (!ok) break;
      const double la = sk_lda_joint_ll_per_token(&a), le = sk_lda_joint_ll_per_token(&e);
      if (it == 1) first = la;
      if (la < prev - 0.01) ++falls;
      prev = la;
      if (it == 1 || it % 5 == 0) printf("kos K = 100 sweep %2d: joint LL/token AGA %.4f, ESCA %.4f\n", it, la, le);
      if (it == 30) {
        SK_CHECK(la > first + 0.5, "AGA's joint LL went from %.4f to only %.4f in 30 sweeps", first, la);
        SK_CHECK(la >= le - 0.01 * fabs(le), "AGA's joint LL %.4f after 30 sweeps is more than 1%% below ESCA's %.4f",
                 la, le);
      }
    }
    SK_CHECK(falls <= 2, "AGA's joint LL fell by more than 0.01 in %d sweeps", falls);
  }
  sk_lda_sampler_destroy(ga);
  sk_lda_sampler_destroy(ge);
  sk_lda_model_free(&a);
  sk_lda_model_free(&e);
  sk_lda_corpus_free(&kos);
}

/* K too large for a word's row in shared memory: a clear error pointing to ESCA, never a crash. */
static void test_too_large_k(void) {
  const corpus_shape shape = {20, 5, 10, 0, 3};
  sk_lda_corpus c = make_case_corpus(&shape);
  sk_lda_model m;
  sk_lda_sampler *g = NULL;
  sk_ex_error err;
  const sk_lda_aga_options o = aga_options(0, 0, kDefaultCut);
  sk_test_context("K = 65536 with AGA");
  if (SK_CHECK(sk_lda_model_init(&m, &c, 65536, sk_lda_default_alpha(65536), 0.01, 1, &err) == 0, "init: %s",
               err.message)) {
    const int failed = sk_lda_aga_create(&m, &kGpu0, &o, &g, &err) != 0;
    SK_CHECK(failed && g == NULL && strstr(err.message, "--sampler esca") != NULL,
             "K = 65536: expected an error pointing to ESCA, got %s", failed ? err.message : "success");
    if (failed) printf("K = 65536: %s\n", err.message);
    sk_lda_sampler_destroy(g);
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&c);
}

/* Under racecheck (minutes over the case corpora), or with --one: one run of 2 sweeps of the case corpus
   at K = 100, mini-batches of 7 documents, words split over the default panels. */
static void test_one_case(void) {
  const corpus_shape shape = {60, 40, 30, 0, 11};
  sk_lda_corpus c = make_case_corpus(&shape);
  sk_test_context("case corpus, K = 100, mini-batches of 7 documents, split words");
  SK_CHECK(!isnan(run_aga(&c, 100, 7, 0, kDefaultCut, 2, 50)), "the run failed");
  sk_lda_corpus_free(&c);
}

int main(int argc, char **argv) {
  if (!test_gpu_present(NULL, 0)) return SK_TEST_SKIP_CODE;
  if (sk_test_under_racecheck() || (argc > 1 && strcmp(argv[1], "--one") == 0)) {
    test_one_case();
    return sk_test_finish();
  }
  test_case_corpora();
  test_too_large_k();
  if (!sk_test_under_sanitizer()) test_kos();
  return sk_test_finish();
}
