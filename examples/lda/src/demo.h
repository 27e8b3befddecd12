/* sk-lda train --demo: the planted corpus it trains on and the report of what training recovered. */
#ifndef SK_LDA_DEMO_H
#define SK_LDA_DEMO_H

#include <stdint.h>

#include "corpus.h"
#include "gen.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Generates the demo corpus for `seed` (2,000 documents of about 150 tokens, V = 2,000, 10 planted
   topics on disjoint tenths of the vocabulary) into *corpus and the planted K x V phi into *planted
   (malloc'ed); *params receives the generator's parameters (K, alpha, beta for training). */
int sk_lda_demo_corpus(uint64_t seed, sk_lda_corpus *corpus, float **planted, sk_lda_gen_params *params,
                       sk_lda_error *err);

/* Prints each planted topic beside the learned topic that matches it best (greedy one-to-one matching
   by cosine similarity of the word distributions) and the line "N of K planted topics recovered with
   cosine > 0.9; mean cosine .., worst ..". m holds the trained counts (K = the planted K). */
void sk_lda_demo_report(const sk_lda_model *m, const float *planted, char *const *vocab);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_DEMO_H */
