/*
 * Inference on new documents with a trained model: the topic mixture of each document is folded in by
 * Gibbs sampling with the topics phi held fixed, exactly as in the held-out metric (metrics.h) and with
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

/* Folded-in document-topic counts in sk_lda_model's sparse layout (and sk_lda_write_doc_topics()'s):
   document d's pairs are (row_topic[i], row_count[i]) for i in [row_start[d], row_start[d] + row_nnz[d]),
   topics strictly increasing; row_start has D + 1 entries. */
typedef struct sk_lda_infer_result {
  int32_t num_docs;
  int32_t num_topics;
  double alpha; /* the model's, for theta_dk = (n_dk + alpha) / (n_d + K alpha) */
  int64_t *row_start;
  int32_t *row_nnz;
  int32_t *row_topic;
  int32_t *row_count;
} sk_lda_infer_result;

/* Frees what a result owns and zeroes it; NULL or zeroed is fine. */
void sk_lda_infer_result_free(sk_lda_infer_result *r);

/*
 * Makes `docs` use the model's word ids, in place, before sk_lda_infer():
 * - docs->vocab not NULL: each token's word docs->vocab[w] is looked up by string in mf->vocab (which
 *   must exist; the first of equal words wins). Afterwards docs->vocab is freed and NULL and
 *   docs->num_words = the model's V.
 * - docs->vocab NULL: every token's id must be in the model's [0, V); docs->num_words becomes V.
 * A word that is not in the model (or an id out of range) is an error naming `name` (the input file),
 * the document and the word (an id is printed as written in the file: the 0-based id plus id_base, 1 for
 * UCI files, 0 for LDA-C); with skip_unknown != 0 its tokens are dropped instead (documents stay,
 * possibly empty) and *num_dropped (when not NULL) gets how many tokens were dropped.
 * On failure docs is unchanged. Work O(T + total vocabulary bytes); memory O(V_model + V_docs).
 */
int sk_lda_infer_map_words(const sk_lda_model_file *mf, sk_lda_corpus *docs, const char *name, int id_base,
                           int skip_unknown, int64_t *num_dropped, sk_lda_error *err);

/*
 * Folds in every document of `docs` (word ids in the model's [0, V), e.g. after
 * sk_lda_infer_map_words()). With phi[k][v] = (n_vk + beta) / (n_k + V beta) from mf and the model's
 * alpha, the token with index i in `docs` starts in topic floor(K sk_rng_uniform_f64(seed,
 * SK_LDA_STREAM_FOLDIN_INIT, i)); then `iters` Gibbs sweeps over each document's tokens in order:
 * remove the token from n_dk, draw k with p(k) proportional to (n_dk + alpha) phi[k][w] (first k whose
 * running sum over increasing k exceeds u W, W the total, u = sk_rng_uniform_f64(seed,
 * SK_LDA_STREAM_FOLDIN(sweep), i)), add it back. The result is the final n_dk. Deterministic for
 * (mf, docs, iters, seed), whatever `threads` (<= 0: the OpenMP default).
 * *out is overwritten and left zeroed on failure: a NULL pointer, iters < 0, a word id out of range,
 * inconsistent offsets, or out of memory. Work O((iters + 1) T K); memory 8 D + 8 min(n_d, K) summed
 * over documents, plus 16 K + 4 max n_d per thread.
 */
int sk_lda_infer(const sk_lda_model_file *mf, const sk_lda_corpus *docs, int iters, uint64_t seed, int threads,
                 sk_lda_infer_result *out, sk_lda_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_INFER_H */
