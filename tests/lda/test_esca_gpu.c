/*
 * GPU ESCA's exact sweep (examples/lda/src/gpu/esca_exact.h) against the CPU ESCA (esca.h): bit for bit.
 * (The resident sweep, gpu/esca_resident.h, is tested in test_esca_gpu_fast.c.)
 *
 * For each case a corpus is built with the shapes that break samplers (empty documents first, in the
 * middle and last; one-token documents; a word that occurs in every non-empty document; optionally one
 * long document) around planted-topic documents, and three models are made from it with
 * the same seed: one swept by the CPU ESCA, two by exact GPU ESCA samplers. Right after create and after each
 * of several sweeps, the GPU model (brought back with to_host) must equal the CPU model exactly: z, A
 * (each document's nnz, topics and counts), B and n_k; the second GPU run must give the same topics as
 * the first. K runs over 1, 2, 31, 32, 33, 100, 1024 (a 300-word vocabulary), 10000 and 65536 (a small
 * corpus, the tables being V x K), 32 and 1024 with a 100,000-token document (left out under a sanitizer,
 * SK_TEST_SANITIZER set), and 65536 with a document of 5,000 tokens (the segmented count's sorted path
 * with a segment longer than a piece, counted in several key windows).
 *
 * Also: the sampler seam on a GPU (resolve, create, description, refusals, the table's GPU samplers), and
 * the memory check (a model that cannot fit is refused before anything is allocated, with the bytes
 * needed and free).
 * Without a GPU it prints why and exits 77; with --host it runs only the checks that need no GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "esca.h"
#include "gpu/aga_sampler.h"
#include "gpu/esca_exact.h"
#include "gpu/esca_resident.h"
#include "gpu/esca_streamed.h"
#include "gpu/gpu.h"
#include "gpu/gpu_sampler.h"
#include "lda_test_gpu.h"
#include "model.h"
#include "sampler_table.h"
#include "sk_test.h"

/* ---- bit-exactness ------------------------------------------------------------------------------- */

typedef struct exact_case {
  int32_t K;
  corpus_shape shape;
  int sweeps;
  double alpha, beta; /* alpha <= 0: the default 50 / K */
} exact_case;

static void run_exact_case(const exact_case *ec, sk_lda_esca_tables *tables) {
  sk_lda_corpus corpus = make_case_corpus(&ec->shape);
  const double alpha = ec->alpha > 0 ? ec->alpha : sk_lda_default_alpha(ec->K);
  const uint64_t seed = 1000 + (uint64_t)ec->K + ec->shape.seed;
  sk_lda_model cpu, gpu1, gpu2;
  sk_ex_error err;
  sk_lda_sampler *s1 = NULL, *s2 = NULL;
  sk_test_context("K = %d, V = %d, D = %d, T = %lld, long document %d, alpha %g, beta %g, seed %llu", (int)ec->K,
                  (int)corpus.num_words, (int)corpus.num_docs, (long long)corpus.num_tokens, (int)ec->shape.long_doc,
                  alpha, ec->beta, (unsigned long long)seed);
  printf("K = %5d: V = %4d, D = %4d, T = %6lld, %d sweeps\n", (int)ec->K, (int)corpus.num_words, (int)corpus.num_docs,
         (long long)corpus.num_tokens, ec->sweeps);
  const int ok = SK_CHECK(sk_lda_model_init(&cpu, &corpus, ec->K, alpha, ec->beta, seed, &err) == 0 &&
                              sk_lda_model_init(&gpu1, &corpus, ec->K, alpha, ec->beta, seed, &err) == 0 &&
                              sk_lda_model_init(&gpu2, &corpus, ec->K, alpha, ec->beta, seed, &err) == 0,
                          "init: %s", err.message);
  if (!ok) {
    sk_lda_corpus_free(&corpus);
    return;
  }
  const sk_lda_device gpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};
  if (SK_CHECK(sk_lda_esca_exact_create(&gpu1, &gpu0, &s1, &err) == 0 &&
                   sk_lda_esca_exact_create(&gpu2, &gpu0, &s2, &err) == 0,
               "create: %s", err.message)) {
    /* the counts the GPU built from z at create equal the model's */
    int same = SK_CHECK(sk_lda_sampler_to_host(s1, &err) == 0, "to_host: %s", err.message) &&
               models_equal(&cpu, &gpu1, "after create");
    for (int i = 0; i < ec->sweeps && same; ++i) {
      const uint64_t it = 1 + (uint64_t)i;
      char when[64];
      snprintf(when, sizeof when, "after sweep %llu", (unsigned long long)it);
      sk_test_progress("K = %d, %s", (int)ec->K, when);
      same = SK_CHECK(sk_lda_esca_sweep(&cpu, tables, it, 0, &err) == 0, "CPU sweep: %s", err.message) &&
             SK_CHECK(sk_lda_sampler_sweep(s1, it, &err) == 0, "GPU sweep: %s", err.message) &&
             SK_CHECK(sk_lda_sampler_sweep(s2, it, &err) == 0, "second GPU sweep: %s", err.message) &&
             SK_CHECK(sk_lda_sampler_to_host(s1, &err) == 0 && sk_lda_sampler_to_host(s2, &err) == 0,
                      "to_host: %s", err.message) &&
             models_equal(&cpu, &gpu1, when) &&
             SK_CHECK(memcmp(gpu1.z, gpu2.z, (size_t)gpu1.num_tokens * sizeof *gpu1.z) == 0,
                      "%s: two GPU runs gave different topics", when);
    }
    /* the chain moved: not every topic is what it was at the start (K > 1) */
    if (same && ec->K > 1) {
      sk_lda_model init;
      if (SK_CHECK(sk_lda_model_init(&init, &corpus, ec->K, alpha, ec->beta, seed, &err) == 0, "init: %s",
                   err.message)) {
        SK_CHECK(memcmp(init.z, gpu1.z, (size_t)init.num_tokens * sizeof *init.z) != 0, "no topic changed");
        sk_lda_model_free(&init);
      }
    }
  }
  sk_lda_sampler_destroy(s1);
  sk_lda_sampler_destroy(s2);
  sk_lda_model_free(&cpu);
  sk_lda_model_free(&gpu1);
  sk_lda_model_free(&gpu2);
  sk_lda_corpus_free(&corpus);
}

static void test_bit_exact(void) {
  static const corpus_shape medium = {300, 150, 40, 0, 11};
  static const corpus_shape small = {50, 25, 20, 0, 12};
  static const corpus_shape with_long = {300, 60, 40, 100000, 13};
  static const corpus_shape small_long = {50, 10, 20, 5000, 14}; /* a segment of many pieces, many windows */
  const exact_case cases[] = {
      {1, medium, 4, -1, 0.01},      {2, medium, 4, -1, 0.01},        {31, medium, 4, -1, 0.01},
      {32, medium, 4, 0.1, 0.5},     {33, medium, 4, -1, 0.01},       {100, medium, 4, -1, 0.01},
      {100, medium, 4, 3.0, 0.001},  {1024, medium, 4, -1, 0.01},     {10000, small, 3, -1, 0.01},
      {65536, small, 3, -1, 0.01},   {65536, small, 3, 0.02, 1e-4},   {32, with_long, 3, -1, 0.01},
      {1024, with_long, 3, -1, 0.01}, {65536, small_long, 3, -1, 0.01},
  };
  sk_lda_esca_tables tables;
  memset(&tables, 0, sizeof tables);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    if (sk_test_under_sanitizer() && cases[i].shape.long_doc >= 100000) {
      printf("K = %5d with the 100,000-token document: left out under the sanitizer\n", (int)cases[i].K);
      continue;
    }
    run_exact_case(&cases[i], &tables);
  }
  sk_lda_esca_tables_free(&tables);
}

/* ---- the seam and the memory check ---------------------------------------------------------------- */

/* Checks that need no GPU: the refusals of the seam and of the GPU samplers' entry points, and the table. */
static void test_host_checks(void) {
  sk_lda_corpus c = make_case_corpus(&(corpus_shape){50, 10, 10, 0, 3});
  sk_lda_model m;
  sk_ex_error err;
  sk_lda_sampler *s = NULL;
  const char *note = NULL;
  sk_test_context("host checks");
  if (!SK_CHECK(sk_lda_model_init(&m, &c, 4, 0.5, 0.1, 1, &err) == 0, "init: %s", err.message)) return;
  sk_lda_device want = {.kind = SK_LDA_DEVICE_GPU, .threads = 0}, got;
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_CGS, &got, &note, &err) != 0 &&
               strstr(err.message, "CPU only") != NULL,
           "--device gpu --sampler cgs resolved (%s)", err.message);
  SK_CHECK(sk_lda_sampler_create(SK_LDA_SAMPLER_CGS, &m, &want, &s, &err) != 0 && s == NULL &&
               strstr(err.message, "CPU only") != NULL,
           "CGS created on the GPU (%s)", err.message);
  want.kind = SK_LDA_DEVICE_AUTO;
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_CGS, &got, &note, &err) == 0 && got.kind == SK_LDA_DEVICE_CPU &&
               note != NULL && strstr(note, "CPU only") != NULL,
           "--device auto --sampler cgs did not pick the CPU with a note (%s)", note != NULL ? note : "no note");
  SK_CHECK(sk_lda_sampler_create(SK_LDA_SAMPLER_ESCA, &m, &want, &s, &err) != 0 && s == NULL,
           "a sampler was created on an unresolved device");
  /* Every GPU sampler's create refuses a NULL model (leaving *out NULL) and a NULL out. */
  const sk_lda_device gpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};
  sk_lda_sampler *g = (sk_lda_sampler *)&m; /* any non-NULL pointer: it must not be touched */
  SK_CHECK(sk_lda_esca_resident_create(NULL, &gpu0, NULL, NULL, &g, &err) != 0 && g == NULL, "create on a NULL model");
  SK_CHECK(sk_lda_esca_resident_create(&m, &gpu0, NULL, NULL, NULL, &err) != 0, "create with out NULL");
  g = (sk_lda_sampler *)&m;
  SK_CHECK(sk_lda_esca_streamed_create(NULL, &gpu0, NULL, NULL, &g, &err) != 0 && g == NULL,
           "streamed create on a NULL model");
  SK_CHECK(sk_lda_esca_streamed_create(&m, &gpu0, NULL, NULL, NULL, &err) != 0, "streamed create with out NULL");
  g = (sk_lda_sampler *)&m;
  SK_CHECK(sk_lda_esca_exact_create(NULL, &gpu0, &g, &err) != 0 && g == NULL, "exact create on a NULL model");
  SK_CHECK(sk_lda_esca_exact_create(&m, &gpu0, NULL, &err) != 0, "exact create with out NULL");
  g = (sk_lda_sampler *)&m;
  SK_CHECK(sk_lda_aga_create(NULL, &gpu0, NULL, &g, &err) != 0 && g == NULL, "AGA create on a NULL model");
  SK_CHECK(sk_lda_aga_create(&m, &gpu0, NULL, NULL, &err) != 0, "AGA create with out NULL");
  SK_CHECK(sk_lda_sampler_sweep(NULL, 0, &err) != 0 && sk_lda_sampler_to_host(NULL, &err) != 0 &&
               sk_lda_gpu_sampler_to_model(NULL, &m, &err) != 0,
           "NULL sampler swept");
  /* A build with the GPU part lists its samplers in the table, with or without a GPU; CGS has none. */
  SK_CHECK(sk_lda_sampler_find("esca", SK_LDA_DEVICE_GPU) != NULL &&
               sk_lda_sampler_find("esca-streamed", SK_LDA_DEVICE_GPU) != NULL &&
               sk_lda_sampler_find("esca-exact", SK_LDA_DEVICE_GPU) != NULL &&
               sk_lda_sampler_find("aga", SK_LDA_DEVICE_GPU) != NULL &&
               sk_lda_sampler_find("cgs", SK_LDA_DEVICE_GPU) == NULL,
           "the table's GPU samplers");
  SK_CHECK(sk_lda_esca_resident_state_bytes(&m) >= (size_t)m.num_words * 4 * 12 &&
               sk_lda_esca_resident_state_bytes(NULL) == 0,
           "state bytes %zu", sk_lda_esca_resident_state_bytes(&m));
  sk_lda_sampler_destroy(NULL);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&c);
}

static void test_seam_on_gpu(const char *gpu_name) {
  sk_lda_corpus c = make_case_corpus(&(corpus_shape){50, 10, 10, 0, 4});
  sk_lda_model m;
  sk_ex_error err;
  sk_lda_sampler *s = NULL;
  const char *note = "unset";
  sk_test_context("seam on the GPU");
  if (!SK_CHECK(sk_lda_model_init(&m, &c, 4, 0.5, 0.1, 1, &err) == 0, "init: %s", err.message)) return;
  sk_lda_device want = {.kind = SK_LDA_DEVICE_AUTO, .threads = 0}, got;
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) == 0 && got.kind == SK_LDA_DEVICE_GPU &&
               note == NULL,
           "--device auto did not pick the GPU silently (%s)", note != NULL ? note : err.message);
  want.kind = SK_LDA_DEVICE_GPU;
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) == 0 && got.kind == SK_LDA_DEVICE_GPU,
           "--device gpu did not resolve (%s)", err.message);
  sk_lda_device bad = want, bad_got;
  bad.gpu = 1 << 20;
  SK_CHECK(sk_lda_device_resolve(&bad, SK_LDA_SAMPLER_ESCA, &bad_got, &note, &err) != 0 &&
               strstr(err.message, "--device gpu") != NULL,
           "GPU %d resolved", bad.gpu);
  if (SK_CHECK(sk_lda_sampler_create(SK_LDA_SAMPLER_ESCA, &m, &got, &s, &err) == 0, "create: %s", err.message)) {
    printf("sampler: %s\n", s->ops->description);
    SK_CHECK(strstr(s->ops->description, gpu_name) != NULL && strcmp(s->ops->name, "esca") == 0,
             "description '%s' does not name the GPU '%s'", s->ops->description, gpu_name);
    SK_CHECK(sk_lda_sampler_sweep(s, SK_LDA_STREAM_RESERVED, &err) != 0, "reserved iteration accepted");
  }
  sk_lda_sampler_destroy(s);
  /* to_model refuses a model of another shape */
  const sk_lda_device gpu0 = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0};
  sk_lda_sampler *direct = NULL;
  sk_lda_model other;
  if (SK_CHECK(sk_lda_esca_resident_create(&m, &gpu0, NULL, NULL, &direct, &err) == 0, "create: %s", err.message) &&
      SK_CHECK(sk_lda_model_init(&other, &c, 5, 0.5, 0.1, 1, &err) == 0, "init: %s", err.message)) {
    SK_CHECK(sk_lda_gpu_sampler_to_model(direct, &other, &err) != 0 && strstr(err.message, "shape") != NULL,
             "to_model into a model with another K (%s)", err.message);
    SK_CHECK(sk_lda_sampler_to_host(direct, &err) == 0, "to_host: %s", err.message);
    sk_lda_model_free(&other);
  }
  sk_lda_sampler_destroy(direct);

  /* A model too large for the GPU is refused before anything is allocated, naming the bytes. The model
     is a shell (its V is not its corpus's, so the check reads only the shape and the corpus, and sizes
     the word segments by their bound: esca_segments.cuh's segments_capacity()): V = 2^24 words at
     K = 65536 need about 4.5 TB, more than the free memory even streamed (B and its marks). */
  sk_lda_model huge = m;
  huge.num_words = 1 << 24;
  huge.num_topics = SK_LDA_MAX_TOPICS;
  sk_lda_sampler *g = NULL;
  err.message[0] = 0;
  SK_CHECK(sk_lda_sampler_create(SK_LDA_SAMPLER_ESCA, &huge, &gpu0, &g, &err) == SK_LDA_SAMPLER_BUDGET_ERROR &&
               g == NULL && strstr(err.message, "bytes") != NULL && strstr(err.message, "free memory") != NULL,
           "a model of %zu bytes was not refused (%s)", sk_lda_esca_resident_state_bytes(&huge), err.message);
  printf("too large: %s\n", err.message);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&c);
}

int main(int argc, char **argv) {
  test_host_checks();
  if (sk_test_wants_host_only(argc, argv)) return sk_test_finish();
  char name[256];
  if (!test_gpu_present(name, sizeof name)) return SK_TEST_SKIP_CODE;
  test_seam_on_gpu(name);
  test_bit_exact();
  return sk_test_finish();
}
