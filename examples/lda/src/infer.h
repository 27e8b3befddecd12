/**
 * \file infer.h
 * \brief Inference on new documents with a trained model: the topic mixture of each document is folded in
 * by Gibbs sampling with the topics phi held fixed, exactly as in the held-out metric (metrics.h) and with
 * the same RNG streams, so inferring the observed halves of a split with the model's seed gives the
 * document-topic counts that sk_lda_heldout_ll() scores.
 *
 * Errors: functions returning int give 0 on success and non-zero on failure with err filled (corpus.h).
 * Threading: no shared state; sk_lda_infer() uses OpenMP inside and its result does not depend on the
 * thread count.
 */
#ifndef SK_LDA_INFER_H
#define SK_LDA_INFER_H

#include <stdint.h>

#include "corpus.h"
#include "model_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Folded-in document-topic counts in sk_lda_model's sparse layout (and sk_lda_write_doc_topics()'s).
 *
 * Document d's pairs are (row_topic[i], row_count[i]) for i in [row_start[d], row_start[d] + row_nnz[d]),
 * topics strictly increasing; row_start has D + 1 entries.
 */
typedef struct sk_lda_infer_result {
  int32_t num_docs;   /**< D */
  int32_t num_topics; /**< K */
  double alpha;       /**< the model's, for theta_dk = (n_dk + alpha) / (n_d + K alpha) */
  int64_t *row_start; /**< D + 1 entries: where each document's pairs start */
  int32_t *row_nnz;   /**< D: each document's number of pairs */
  int32_t *row_topic; /**< the pairs' topics, strictly increasing within a document */
  int32_t *row_count; /**< the pairs' counts */
  /** The model's per-topic priors (a copy, owned), or NULL when its prior is symmetric: then theta_dk =
      (n_dk + alpha_k) / (n_d + sum_k alpha_k) (sk_lda_write_doc_topics_priors()). */
  double *alpha_k;
} sk_lda_infer_result;

/**
 * \brief Frees what a result owns and zeroes it; NULL or zeroed is fine.
 * \param r the result.
 */
void sk_lda_infer_result_free(sk_lda_infer_result *r);

/**
 * \brief Makes `docs` use the model's word ids, in place, before sk_lda_infer().
 *
 * - docs->vocab not NULL: each token's word docs->vocab[w] is looked up by string in mf->vocab (which
 *   must exist; the first of equal words wins). Afterwards docs->vocab is freed and NULL and
 *   docs->num_words = the model's V.
 * - docs->vocab NULL: every token's id must be in the model's [0, V); docs->num_words becomes V.
 *
 * A word that is not in the model (or an id out of range) is an error naming `name` (the input file),
 * the document and the word (an id is printed as written in the file: the 0-based id plus id_base, 1 for
 * UCI files, 0 for LDA-C); with skip_unknown != 0 its tokens are dropped instead (documents stay,
 * possibly empty) and *num_dropped (when not NULL) gets how many tokens were dropped.
 * On failure docs is unchanged. Work O(T + total vocabulary bytes); memory O(V_model + V_docs).
 * \param mf the model file.
 * \param docs the documents, changed in place.
 * \param name the input file, for messages.
 * \param id_base added to a 0-based id in messages: 1 for UCI files, 0 for LDA-C.
 * \param skip_unknown non-zero: drop the tokens of unknown words instead of failing.
 * \param num_dropped receives how many tokens were dropped, or NULL.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_infer_map_words(const sk_lda_model_file *mf, sk_lda_corpus *docs, const char *name, int id_base,
                           int skip_unknown, int64_t *num_dropped, sk_ex_error *err);

/**
 * \brief Folds in every document of `docs` (word ids in the model's [0, V), e.g. after
 * sk_lda_infer_map_words()).
 *
 * With phi[k][v] = (n_vk + beta) / (n_k + V beta) from mf and the model's alpha (its alpha_k[k] for topic k
 * when the model file has per-topic priors; out->alpha_k then gets a copy of them), the token with index i in
 * `docs` starts in a topic drawn from phi for its word alone (metrics.h's sk_lda_detail_fold_prior_draw(), u =
 * sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN_INIT, i)); then `iters` sweeps, sk_lda_heldout_ll()'s
 * (metrics.h): up to K = 1,024 all but the last 2 uncollapsed (theta drawn, then every token given it);
 * the collapsed ones over each document's tokens in order: remove the token from n_dk, draw k with p(k)
 * proportional to (n_dk + alpha) phi[k][w] (metrics.h's sparse rule, u =
 * sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN(sweep), i)), add it back. The result is the
 * final n_dk. Deterministic for (mf, docs, iters, seed), whatever `threads` (<= 0: the OpenMP default).
 * Work O((iters + 1) T K); memory 8 D + 8 min(n_d, K) summed over documents, plus 16 K + 4 max n_d per
 * thread.
 * \param mf the model file.
 * \param docs the documents.
 * \param iters fold-in sweeps (>= 0).
 * \param seed the key of the draws.
 * \param threads OpenMP threads (<= 0: the OpenMP default).
 * \param out overwritten with the result, and left zeroed on failure: a NULL pointer, iters < 0, a word
 *        id out of range, inconsistent offsets, or out of memory.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_infer(const sk_lda_model_file *mf, const sk_lda_corpus *docs, int iters, uint64_t seed, int threads,
                 sk_lda_infer_result *out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_INFER_H */
