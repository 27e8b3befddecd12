/**
 * \file demo.h
 * \brief sk-lda train --demo: the planted corpus it trains on and the report of what training recovered.
 */
#ifndef SK_LDA_DEMO_H
#define SK_LDA_DEMO_H

#include <stdint.h>

#include "corpus.h"
#include "gen.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Generates the demo corpus for `seed` (2,000 documents of about 150 tokens, V = 2,000, 10 planted
 * topics on disjoint tenths of the vocabulary) into *corpus and the planted K x V phi into *planted
 * (malloc'ed); *params receives the generator's parameters (K, alpha, beta for training).
 * \param seed the seed.
 * \param corpus receives the corpus; free with sk_lda_corpus_free().
 * \param planted receives the planted K x V phi (malloc'ed).
 * \param params receives the generator's parameters.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_demo_corpus(uint64_t seed, sk_lda_corpus *corpus, float **planted, sk_lda_gen_params *params,
                       sk_ex_error *err);

/**
 * \brief Prints each planted topic beside the learned topic that matches it best (greedy one-to-one
 * matching by cosine similarity of the word distributions) and the line "N of K planted topics recovered
 * with cosine > 0.9; mean cosine .., worst ..".
 * \param m holds the trained counts (K = the planted K).
 * \param planted the planted K x V phi.
 * \param vocab the vocabulary.
 */
void sk_lda_demo_report(const sk_lda_model *m, const float *planted, char *const *vocab);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_DEMO_H */
