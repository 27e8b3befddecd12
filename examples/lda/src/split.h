/**
 * \file split.h
 * \brief The seeded train/test split: a fraction of the documents is held out for testing, and every test
 * document is cut in two for document completion (the first half, "observed", folds in the document's
 * topic mixture; the second, "held-out", is scored).
 *
 * Deterministic for a seed; the RNG streams are listed in model.h.
 */
#ifndef SK_LDA_SPLIT_H
#define SK_LDA_SPLIT_H

#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Default fraction of documents held out for testing. */
#define SK_LDA_DEFAULT_TEST_FRACTION 0.1

/**
 * \brief A split of one corpus.
 *
 * The three corpora own their arrays, have vocab = NULL (the vocabulary stays with the source corpus) and
 * the source's num_words; their doc_ids are their documents' numbers in the input (the source's
 * sk_lda_corpus_input_doc()), so that theta.txt keeps the input's numbering.
 */
typedef struct sk_lda_split {
  sk_lda_corpus train;         /**< training documents, whole, in source order */
  sk_lda_corpus test_observed; /**< per test document (in source order): its observed tokens */
  sk_lda_corpus test_heldout;  /**< per test document, same order: its held-out tokens */
  int32_t *train_doc_ids;      /**< train.num_docs indices of the training documents in the source corpus */
  int32_t *test_doc_ids;       /**< test_observed.num_docs indices of the test documents in the source corpus */
} sk_lda_split;

/**
 * \brief Splits `source`.
 *
 * The number of test documents is round(test_fraction * D), at most D - 1 (so some training remains when
 * D > 0); they are the first ones of a Fisher-Yates shuffle of 0 .. D-1 whose step i (i = 0, 1, ...) swaps
 * position i with i + floor((D - i) u_i), u_i = sk_rng_uniform_f64(seed, SK_LDA_STREAM_SPLIT_DOCS, i). A
 * test document with n tokens starting at global token index g is cut by shuffling its positions the same
 * way with u_i = sk_rng_uniform_f64(seed, SK_LDA_STREAM_SPLIT_TOKENS, g + i): the first floor(n / 2)
 * shuffled positions are observed, the other n - floor(n / 2) held out; each half keeps the tokens'
 * original order. Work O(D + T): the offsets in one pass, then the documents' tokens over the OpenMP
 * threads (the default count), the same bits for any thread count.
 * \param source the corpus.
 * \param test_fraction the fraction of documents held out, in [0, 1).
 * \param seed the key of the draws.
 * \param out receives the split (free with sk_lda_split_free()); zeroed on failure.
 * \param err filled on failure.
 * \return 0 on success; non-zero (err filled, *out zeroed) when a pointer is NULL, test_fraction is not in
 *         [0, 1), the corpus arrays are NULL, or memory runs out.
 */
int sk_lda_split_corpus(const sk_lda_corpus *source, double test_fraction, uint64_t seed, sk_lda_split *out,
                        sk_ex_error *err);

/**
 * \brief Cuts every document of `source` in two as sk_lda_split_corpus() cuts its test documents (the same
 * draws): for scoring new documents by document completion (sk_lda.h's sklda_score()). out->train is empty.
 * \param source the corpus.
 * \param seed the key of the draws.
 * \param out receives the halves (free with sk_lda_split_free()); zeroed on failure.
 * \param err filled on failure.
 * \return 0 on success; non-zero as sk_lda_split_corpus().
 */
int sk_lda_split_halves(const sk_lda_corpus *source, uint64_t seed, sk_lda_split *out, sk_ex_error *err);

/**
 * \brief Frees what a split owns and zeroes it; NULL or a zeroed split is fine.
 * \param split the split.
 */
void sk_lda_split_free(sk_lda_split *split);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_SPLIT_H */
