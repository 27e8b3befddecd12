/*
 * Shared by the GPU ESCA tests (test_esca_gpu.c, test_esca_gpu_fast.c): corpora with the shapes that
 * break samplers, and the comparison of two models' topics and counts.
 */
#ifndef SK_LDA_TEST_GPU_H
#define SK_LDA_TEST_GPU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "corpus.h"
#include "corpus_read.h"
#include "gpu/gpu.h"
#include "lda_test_corpus.h"
#include "model.h"
#include "sk_test.h"

/* ---- corpora ------------------------------------------------------------------------------------- */

typedef struct corpus_shape {
  int32_t V, planted_docs, mean_len, long_doc; /* long_doc: tokens of the one long document (0: none) */
  uint64_t seed;
} corpus_shape;

/* Planted documents (two or three topics from 8 blocks of the vocabulary, 10% noise), each starting
   with word V - 1 (the word in every non-empty document), with empty and one-token documents around
   them and, when asked, one long document in the middle. */
static inline sk_lda_corpus make_case_corpus(const corpus_shape *sh) {
  uint64_t s = sh->seed;
  const int32_t V = sh->V, blocks = 8, block = (V - 1) / blocks > 0 ? (V - 1) / blocks : 1;
  const int32_t D = sh->planted_docs + 9 + (sh->long_doc > 0 ? 1 : 0); /* 9 around the planted ones */
  int32_t *len = (int32_t *)calloc((size_t)D, sizeof *len);
  int64_t cap = (int64_t)sh->planted_docs * (sh->mean_len + sh->mean_len / 2 + 2) + sh->long_doc + 16;
  int32_t *w = (int32_t *)malloc((size_t)cap * sizeof *w);
  int64_t t = 0;
  int32_t d = 0;
  len[d++] = 0; /* empty first */
  len[d] = 1, w[t++] = 0, ++d;
  len[d] = 1, w[t++] = V - 1, ++d;
  len[d++] = 0;
  len[d++] = 0; /* two empty ones in a row */
  for (int32_t i = 0; i < sh->planted_docs; ++i, ++d) {
    if (sh->long_doc > 0 && i == sh->planted_docs / 2) { /* the long document, mixing all blocks */
      len[d] = sh->long_doc;
      w[t++] = V - 1;
      for (int32_t j = 1; j < sh->long_doc; ++j) w[t++] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)V);
      ++d;
    }
    int32_t topics[3];
    for (int j = 0; j < 3; ++j) topics[j] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)blocks);
    len[d] = 1 + sh->mean_len / 2 + (int32_t)(sk_test_rand_u32(&s) % (uint32_t)sh->mean_len);
    w[t++] = V - 1;
    for (int32_t j = 1; j < len[d]; ++j) {
      if (sk_test_rand_u32(&s) % 10u == 0) {
        w[t++] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)V);
      } else {
        const int32_t k = topics[sk_test_rand_u32(&s) % 3u];
        const uint32_t a = sk_test_rand_u32(&s) % (uint32_t)block, b = sk_test_rand_u32(&s) % (uint32_t)block;
        w[t++] = (k * block + (int32_t)(a < b ? a : b)) % V;
      }
    }
  }
  len[d] = 1, w[t++] = 1 % V, ++d;
  len[d++] = 0; /* empty in the middle of one-token ones */
  len[d] = 1, w[t++] = V - 1, ++d;
  len[d++] = 0; /* empty last */
  if (d != D || t > cap) {
    fprintf(stderr, "make_case_corpus: %d documents and %lld tokens, expected %d and at most %lld\n", (int)d,
            (long long)t, (int)D, (long long)cap);
    exit(1);
  }
  sk_lda_corpus c = make_corpus(V, d, len, w);
  free(len);
  free(w);
  return c;
}

/* ---- comparison ---------------------------------------------------------------------------------- */

/* 1 when the GPU model g equals the CPU model c in z, A, B and n_k; else prints the first difference. */
static inline int models_equal(const sk_lda_model *c, const sk_lda_model *g, const char *when) {
  const int32_t K = c->num_topics;
  for (int64_t t = 0; t < c->num_tokens; ++t)
    if (c->z[t] != g->z[t])
      return SK_CHECK(0, "%s: z[%lld] = %d on the GPU, %d on the CPU", when, (long long)t, (int)g->z[t], (int)c->z[t]);
  for (int32_t d = 0; d < c->num_docs; ++d) {
    if (c->dk_nnz[d] != g->dk_nnz[d])
      return SK_CHECK(0, "%s: document %d has %d topics on the GPU, %d on the CPU", when, (int)d, (int)g->dk_nnz[d],
                      (int)c->dk_nnz[d]);
    for (int32_t i = 0; i < c->dk_nnz[d]; ++i) {
      const int64_t j = c->dk_start[d] + i;
      if (c->dk_topic[j] != g->dk_topic[j] || c->dk_count[j] != g->dk_count[j])
        return SK_CHECK(0, "%s: document %d pair %d is (%d, %d) on the GPU, (%d, %d) on the CPU", when, (int)d, (int)i,
                        (int)g->dk_topic[j], (int)g->dk_count[j], (int)c->dk_topic[j], (int)c->dk_count[j]);
    }
  }
  for (size_t i = 0; i < (size_t)c->num_words * (size_t)K; ++i)
    if (c->n_vk[i] != g->n_vk[i])
      return SK_CHECK(0, "%s: B[%zu] (word %zu, topic %zu) = %d on the GPU, %d on the CPU", when, i, i / (size_t)K,
                      i % (size_t)K, (int)g->n_vk[i], (int)c->n_vk[i]);
  for (int32_t k = 0; k < K; ++k)
    if (c->n_k[k] != g->n_k[k])
      return SK_CHECK(0, "%s: n_k[%d] = %lld on the GPU, %lld on the CPU", when, (int)k, (long long)g->n_k[k],
                      (long long)c->n_k[k]);
  return SK_CHECK(1, "%s", when);
}

/* A's, B's and n_k's consistency: the model g (from to_host) against its counts rebuilt from its z. */
static inline int counts_match_z(const sk_lda_model *g, const char *when) {
  sk_lda_model r;
  sk_ex_error err;
  if (!SK_CHECK(sk_lda_model_init(&r, g->corpus, g->num_topics, g->alpha, g->beta, g->seed, &err) == 0 &&
                    sk_lda_model_set_z(&r, g->z, &err) == 0,
                "rebuild: %s", err.message))
    return 0;
  const int same = models_equal(&r, g, when);
  sk_lda_model_free(&r);
  return same;
}

#ifdef SK_LDA_SOURCE_DIR
/* Corpus `name` (docword.NAME.txt.gz) from ../shared/data, or from .data/NAME in the source tree (where
   the GPU machine has it): 1 when read into *c, 0 when found nowhere (said: the caller leaves its checks
   on it out) or unreadable (which also fails the test). */
static inline int read_shared_corpus(const char *name, sk_lda_corpus *c) {
  static const char *const dirs[] = {SK_SHARED_DATA, SK_LDA_SOURCE_DIR "/.data"};
  sk_ex_error err;
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/docword.%s.txt.gz", dirs[i], name, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) continue;
    fclose(f);
    return SK_CHECK(sk_lda_read_uci(path, NULL, c, &err) == 0, "reading %s: %s", path, err.message);
  }
  printf("%s: not found (../shared/data or .data/%s): left out\n", name, name);
  return 0;
}

static inline int read_kos(sk_lda_corpus *c) { return read_shared_corpus("kos", c); }
#endif

/* 1 when GPU 0 can be used (its name printed and, when name is not NULL, written there); else prints
   why and returns 0: the caller exits with SK_TEST_SKIP_CODE. */
static inline int test_gpu_present(char *name_out, size_t cap) {
  char name[256];
  sk_ex_error err;
  if (sk_ex_gpu_probe(0, name, sizeof name, &err) != 0) {
    printf("SKIP: %s; this test needs a GPU\n", err.message);
    return 0;
  }
  printf("GPU 0: %s\n", name);
  if (name_out != NULL && cap > 0) snprintf(name_out, cap, "%s", name);
  return 1;
}

#endif /* SK_LDA_TEST_GPU_H */
