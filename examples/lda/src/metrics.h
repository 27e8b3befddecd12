/**
 * \file metrics.h
 * \brief Metrics shared by every sk-lda trainer (CPU now, GPU later), all in double precision: the joint
 * log-likelihood per token, the held-out log-likelihood per token by document completion, and the
 * small timing and memory helpers behind tokens/s, wall time and memory in the metrics log.
 */
#ifndef SK_LDA_METRICS_H
#define SK_LDA_METRICS_H

#include <stdint.h>

#include "corpus.h"
#include "model.h"
#include "sk_ex_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Default number of fold-in Gibbs sweeps of sk_lda_heldout_ll(). */
#define SK_LDA_DEFAULT_FOLDIN_ITERS 20

/**
 * \brief log p(w, z) / T for the model's current topics, with symmetric priors (docs/design.md, Metrics).
 *
 *       sum_k [lgamma(V beta) - lgamma(V beta + n_k) + sum_v (lgamma(n_vk + beta) - lgamma(beta))]
 *     + sum_d [lgamma(K alpha) - lgamma(K alpha + n_d) + sum_k (lgamma(n_dk + alpha) - lgamma(alpha))],
 *
 * divided by T. Terms with a zero count vanish and are skipped. Serial and deterministic (a fixed
 * summation order). Work O(V K + D + T).
 *
 * With per-topic priors (m->alpha_k set) the document part is sk_lda_detail_doc_part_prior()'s:
 *
 *       sum_d [lgamma(A) - lgamma(A + n_d) + sum_k (lgamma(n_dk + alpha_k) - lgamma(alpha_k))],
 *
 * A = sk_lda_model_alpha_sum(m).
 * \param m the model.
 * \return the joint log-likelihood per token; NAN when m is NULL / not initialised or T = 0 (or, with
 *         per-topic priors, when K doubles of scratch cannot be had).
 */
double sk_lda_joint_ll_per_token(const sk_lda_model *m);

/**
 * \brief Internal: the document part of the joint log-likelihood (not divided by T) with the model's
 * per-topic priors (m->alpha_k set): the sum over documents d in order of lgamma(A) - lgamma(A + n_d) plus,
 * over d's pairs in their order, lgamma(n_dk + alpha_k) - lgamma(alpha_k) (lgamma(alpha_k) computed once
 * per topic), A = sk_lda_model_alpha_sum(m). Serial. Work O(K + D + nnz).
 * \param m the model, alpha_k set.
 * \return the sum; NAN when K doubles of scratch cannot be had.
 */
double sk_lda_detail_doc_part_prior(const sk_lda_model *m);

/**
 * \brief Held-out log-likelihood per token by document completion.
 *
 * phi[k][v] = (n_vk + beta) / (n_k + V beta) from the model's counts stays fixed. For each test document d
 * (observed->doc d and heldout->doc d are the two halves of one document, e.g. from sk_lda_split_corpus()):
 *  - fold-in: the observed token with index i (in the observed corpus) starts in topic
 *    floor(K sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_FOLDIN_INIT, i)); then `fold_in_iters` Gibbs
 *    sweeps over the document's observed tokens in order: remove the token from n_dk, draw k with
 *    p(k) proportional to (n_dk + alpha) phi[k][w] (first k whose running sum over k exceeds u W, W the
 *    total, u = sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_FOLDIN(sweep), i)), add it back;
 *  - score: theta_dk = (n_dk + alpha) / (n_d + K alpha) with n_d the observed length, and every held-out
 *    token w adds log sum_k theta_dk phi[k][w].
 *
 * With per-topic priors (m->alpha_k set) alpha_k takes alpha's place in both and sk_lda_model_alpha_sum()
 * K alpha's (sk_lda_heldout_ll_priors()).
 *
 * Using the model's seed on every call gives common random numbers across evaluations of one run.
 * Over `threads` OpenMP threads (<= 0: the default); the result does not depend on the thread count.
 * Work O((fold_in_iters + 1) T_observed K + T_heldout K).
 * \param m the model.
 * \param observed the test documents' observed halves.
 * \param heldout their held-out halves, in the same order.
 * \param fold_in_iters fold-in Gibbs sweeps (>= 0).
 * \param threads OpenMP threads (<= 0: the default).
 * \param ll_per_token receives the sum over all held-out tokens divided by their number (NAN when there are
 *        none); untouched on failure.
 * \param err filled on failure.
 * \return 0 on success; non-zero (err filled, *ll_per_token untouched) when a pointer is NULL, the two
 *         halves have different document counts, a word id is outside the model's [0, V), fold_in_iters < 0,
 *         or memory runs out.
 */
int sk_lda_heldout_ll(const sk_lda_model *m, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                      int fold_in_iters, int threads, double *ll_per_token, sk_ex_error *err);

/**
 * \brief What the held-out log-likelihood needs of a model: its sizes, priors, seed and word-topic counts
 * (borrowed).
 *
 * A trained model (sk_lda_heldout_ll() builds this view) or a model file (sk-lda eval).
 */
typedef struct sk_lda_counts_view {
  int32_t num_topics;   /**< K */
  int32_t num_words;    /**< V */
  double alpha, /**< the document-topic prior */ beta; /**< the topic-word prior */
  uint64_t seed;        /**< the key of the fold-in draws */
  const int32_t *n_vk;  /**< V x K word-topic counts, row-major */
  const int64_t *n_k;   /**< K topic totals */
} sk_lda_counts_view;

/**
 * \brief Internal: the fold-in of one document, shared by the held-out log-likelihood and sk-lda infer so
 * that both give the same bits.
 *
 * The document's n tokens are words[0 .. n) with global indices first_index .. first_index + n - 1 (the
 * RNG's index); phi is fixed: inv[k] = 1 / (n_k + V beta). Token i starts in topic floor(K u) with
 * u = sk_rng_uniform_f64(view->seed, SK_LDA_STREAM_FOLDIN_INIT, first_index + i), then `iters` sweeps in
 * order: remove it, draw the first k whose running sum of (ndk[k] + alpha)(n_vk + beta) inv[k] exceeds u W
 * (u from SK_LDA_STREAM_FOLDIN(sweep); alpha_k[k] in place of alpha when given), add it back. Work
 * O((iters + 1) n K).
 * \param view the model's counts.
 * \param alpha_k K per-topic priors, or NULL for view->alpha.
 * \param inv K values inv[k] = 1 / (n_k + V beta).
 * \param words the document's n word ids.
 * \param n its number of tokens.
 * \param first_index the global index of its first token (the RNG's index).
 * \param iters fold-in sweeps.
 * \param ndk K counts: must be zero on entry and holds the document's counts on return (the caller clears
 *        it).
 * \param cum K doubles of scratch.
 * \param z n topics: holds the topics.
 */
void sk_lda_detail_fold_in_doc(const sk_lda_counts_view *view, const double *alpha_k, const double *inv,
                               const int32_t *words, int64_t n, int64_t first_index, int iters, int32_t *ndk,
                               double *cum, int32_t *z);

/**
 * \brief Internal: what sk_lda_detail_fold_in_docs() calls for each document once it is folded in.
 *
 * It must leave ndk all zero. Called on the thread that folded the document.
 * \param ctx the ctx given to sk_lda_detail_fold_in_docs().
 * \param d the document.
 * \param ndk (K) holds its counts; must be left all zero.
 * \param cum (K doubles) is free scratch.
 * \param z (n) its topics.
 * \param n its number of tokens.
 * \param inv is as for sk_lda_detail_fold_in_doc().
 */
typedef void (*sk_lda_detail_fold_in_visit)(void *ctx, int32_t d, int32_t *ndk, double *cum, const int32_t *z,
                                            int64_t n, const double *inv);

/**
 * \brief Internal: folds every document of `docs` in with sk_lda_detail_fold_in_doc() (tokens indexed by
 * their position in docs, `iters` sweeps) on `threads` threads (0: all), then visits it; documents are
 * visited once each, in any order.
 *
 * The held-out log-likelihood and sk-lda infer share it, so the same inputs give the same bits for any
 * thread count.
 * \param view the model's counts.
 * \param alpha_k K per-topic priors, or NULL for view->alpha (sk_lda_detail_fold_in_doc()).
 * \param docs the documents.
 * \param max_len is the longest document.
 * \param iters fold-in sweeps.
 * \param threads threads (0: all).
 * \param visit called for each document once it is folded in.
 * \param ctx passed to visit.
 * \return 0; 1 when inv (K doubles) could not be allocated and nothing was visited; 2 when a thread's
 *         scratch could not be allocated (then some documents may have been visited).
 */
int sk_lda_detail_fold_in_docs(const sk_lda_counts_view *view, const double *alpha_k, const sk_lda_corpus *docs,
                               int64_t max_len, int iters, int threads, sk_lda_detail_fold_in_visit visit, void *ctx);

/**
 * \brief sk_lda_heldout_ll() on a counts view: the same rule, the same draws, the same result.
 * \param view the model's counts.
 * \param observed the test documents' observed halves.
 * \param heldout their held-out halves, in the same order.
 * \param fold_in_iters fold-in Gibbs sweeps (>= 0).
 * \param threads OpenMP threads (<= 0: the default).
 * \param ll_per_token receives the held-out log-likelihood per token, as for sk_lda_heldout_ll().
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure (as sk_lda_heldout_ll()).
 */
int sk_lda_heldout_ll_counts(const sk_lda_counts_view *view, const sk_lda_corpus *observed,
                             const sk_lda_corpus *heldout, int fold_in_iters, int threads, double *ll_per_token,
                             sk_ex_error *err);

/**
 * \brief sk_lda_heldout_ll_counts() with per-topic document-topic priors: alpha_k[k] in place of
 * view->alpha in the fold-in and theta, and their sum (sk_lda_prior_alpha_sum()) in place of K alpha.
 * alpha_k NULL is sk_lda_heldout_ll_counts() exactly. (sk-lda eval of a model file with per-topic priors:
 * pass its alpha_k, model_file.h.)
 * \param view the model's counts.
 * \param alpha_k K per-topic priors (each finite and > 0), or NULL.
 * \param observed the test documents' observed halves.
 * \param heldout their held-out halves, in the same order.
 * \param fold_in_iters fold-in Gibbs sweeps (>= 0).
 * \param threads OpenMP threads (<= 0: the default).
 * \param ll_per_token receives the held-out log-likelihood per token.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure (as sk_lda_heldout_ll(), or a prior that is not finite and
 *         positive).
 */
int sk_lda_heldout_ll_priors(const sk_lda_counts_view *view, const double *alpha_k, const sk_lda_corpus *observed,
                             const sk_lda_corpus *heldout, int fold_in_iters, int threads, double *ll_per_token,
                             sk_ex_error *err);

/**
 * \brief Throughput of one iteration: tokens / seconds (0 when seconds <= 0).
 * \param tokens the tokens.
 * \param seconds the seconds.
 * \return tokens / seconds, or 0 when seconds <= 0.
 */
double sk_lda_tokens_per_second(int64_t tokens, double seconds);

/**
 * \brief Peak resident memory of this process in bytes (getrusage), or -1 when unknown.
 * \return the bytes, or -1 when unknown.
 */
int64_t sk_lda_peak_rss_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_METRICS_H */
