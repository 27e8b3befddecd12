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

#endif /* SK_LDA_TEST_CORPUS_H */
