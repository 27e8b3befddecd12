/* Helpers shared by the sk-lda tests. */
#ifndef SK_LDA_TEST_CORPUS_H
#define SK_LDA_TEST_CORPUS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "sk_test.h"

/* A corpus of D documents over V words: document d has doc_len[d] tokens, taken in order from words. */
static inline sk_lda_corpus make_corpus(int32_t V, int32_t D, const int32_t *doc_len, const int32_t *words) {
  sk_lda_corpus c;
  memset(&c, 0, sizeof c);
  c.num_docs = D;
  c.num_words = V;
  c.doc_offsets = (int64_t *)calloc((size_t)D + 1, sizeof *c.doc_offsets);
  for (int32_t d = 0; d < D; ++d) c.doc_offsets[d + 1] = c.doc_offsets[d] + doc_len[d];
  c.num_tokens = c.doc_offsets[D];
  c.tokens = (int32_t *)malloc((size_t)(c.num_tokens > 0 ? c.num_tokens : 1) * sizeof *c.tokens);
  if (c.num_tokens > 0) memcpy(c.tokens, words, (size_t)c.num_tokens * sizeof *words);
  return c;
}

/* D documents over V words, lengths uniform in 0 .. max_len (so some are empty), words uniform; seeded. */
static inline sk_lda_corpus make_uniform_corpus(int32_t D, int32_t V, int32_t max_len, uint64_t seed) {
  uint64_t s = seed;
  int32_t *len = (int32_t *)malloc((size_t)(D > 0 ? D : 1) * sizeof *len);
  int64_t T = 0;
  for (int32_t d = 0; d < D; ++d) T += len[d] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)(max_len + 1));
  int32_t *w = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *w);
  for (int64_t t = 0; t < T; ++t) w[t] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)V);
  sk_lda_corpus c = make_corpus(V, D, len, w);
  free(len);
  free(w);
  return c;
}

/* The plan-size counts' corpora (test_pdow_plan.c, test_aga_plan.c). */
/* A corpus for the count: D = 0 one time in eight, else 1 to 80 documents of 0 to 30 tokens over V = 1
   to 60 words (skewed towards 0, so they repeat inside documents and mini-batches), some one-token; by
   the seed's bits, the first and last documents empty, a run of 2 to 6 empty documents, one word put in
   every non-empty document, one document of 1,000 to 4,999 tokens. */
static inline sk_lda_corpus make_count_corpus(uint64_t seed) {
  uint64_t s = seed;
  const uint32_t shape = sk_test_rand_u32(&s);
  const int32_t D = shape % 8 == 0 ? 0 : 1 + (int32_t)(sk_test_rand_u32(&s) % 80);
  const int32_t V = 1 + (int32_t)(sk_test_rand_u32(&s) % 60);
  const uint32_t used = 1 + sk_test_rand_u32(&s) % (uint32_t)V;
  const int32_t run_start = D > 0 ? (int32_t)(sk_test_rand_u32(&s) % (uint32_t)D) : 0;
  const int32_t run_end = (shape >> 4) % 2 ? run_start + 2 + (int32_t)(sk_test_rand_u32(&s) % 5) : run_start;
  const int32_t long_doc = (shape >> 5) % 3 == 0 && D > 0 ? (int32_t)(sk_test_rand_u32(&s) % (uint32_t)D) : -1;
  const int32_t every_word = (shape >> 7) % 2 ? (int32_t)(sk_test_rand_u32(&s) % (uint32_t)V) : -1;
  int32_t *len = (int32_t *)malloc((size_t)(D > 0 ? D : 1) * sizeof *len);
  int64_t T = 0;
  for (int32_t d = 0; d < D; ++d) {
    const uint32_t r = sk_test_rand_u32(&s);
    if ((d == 0 && (shape >> 3) % 2) || (d == D - 1 && (shape >> 8) % 2) || (d >= run_start && d < run_end))
      len[d] = 0;
    else if (d == long_doc)
      len[d] = 1000 + (int32_t)(r % 4000);
    else
      len[d] = r % 5 == 0 ? 1 : (int32_t)((r >> 3) % 31);
    T += len[d];
  }
  int32_t *words = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *words);
  for (int32_t d = 0, t = 0; d < D; ++d) {
    const int32_t at = len[d] > 0 ? (int32_t)(sk_test_rand_u32(&s) % (uint32_t)len[d]) : 0;
    for (int32_t i = 0; i < len[d]; ++i, ++t) {
      const uint32_t top = 1 + sk_test_rand_u32(&s) % used; /* two statements: the draws' order is fixed */
      words[t] = every_word >= 0 && i == at ? every_word : (int32_t)(sk_test_rand_u32(&s) % top);
    }
  }
  sk_lda_corpus c = make_corpus(V, D, len, words);
  free(len);
  free(words);
  return c;
}

#endif /* SK_LDA_TEST_CORPUS_H */
