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

/** \brief Where the fold-in has uncollapsed sweeps (up to this many topics), its last sweeps are collapsed
 * Gibbs sweeps: this many (or all, for fewer sweeps). */
#define SK_LDA_FOLDIN_COLLAPSED 2
/** \brief Up to this many topics all but the fold-in's last SK_LDA_FOLDIN_COLLAPSED sweeps are uncollapsed;
 * above, every sweep is collapsed (sk_lda_detail_fold_uncollapsed()). */
#define SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS 1024
/** \brief The fold-in's default sweeps up to SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS topics: 10 uncollapsed, 2
 * collapsed (sk_lda_default_foldin_iters()). */
#define SK_LDA_DEFAULT_FOLDIN_ITERS_FEW 12
/** \brief The fold-in's default (collapsed) sweeps above SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS topics, up to
 * SK_LDA_FOLDIN_MANY_TOPICS. */
#define SK_LDA_DEFAULT_FOLDIN_ITERS 10
/** \brief Above this many topics the fold-in's default is twice SK_LDA_DEFAULT_FOLDIN_ITERS. */
#define SK_LDA_FOLDIN_MANY_TOPICS 10000

/**
 * \brief The default number of fold-in sweeps for a model of K topics: of the held-out log-likelihood that
 * sk-lda train reports, sk-lda eval and infer, theta.npy's held-out rows and the C API's sklda_infer() and
 * sklda_score(): 12 up to K = 1,024 (10 uncollapsed, then 2 collapsed: sk_lda_detail_fold_uncollapsed()),
 * 10 up to K = 10,000, 20 above (collapsed).
 *
 * Why (bench/RESULTS.md, issue 32, H200 and CPU): a test document's collapsed sweeps are one chain of
 * dependent draws, so on a GPU the longest document sets the held-out LL's time, while an uncollapsed
 * sweep draws every token of every document at once. At K = 1,024 10 uncollapsed sweeps then 2 collapsed
 * gave the 10 collapsed sweeps' held-out LL within 0.003 on nips12 and 20news and 0.01 on kos (seeds 1-4;
 * 0.0015 and 0.0018 below on average) in about half the GPU's time (20 + 2: within 0.008, 0.6 of the
 * time). At K = 10,000 20 + 2 gave 0.06-0.08 less on 20news and 0.02-0.04 less on kos (the uncollapsed
 * chain mixes more slowly on short documents as K grows), outside issue 32's 0.02, so above
 * K = 1,024 the sweeps stay collapsed: from the start drawn from each word's phi
 * (sk_lda_detail_fold_prior_draw()) 10 collapsed sweeps gave at least the held-out LL that 20 from uniform
 * topics gave on nips12 and 20news at K = 1,024 and 10,000; at K = 65,536 10 gave 0.038 less on 20news, 20
 * gave 0.10 more. The chain mixes more slowly as K grows (at K = 10,000 and above 80 sweeps are 0.06 to
 * 0.39 above 10 and still rising), so give eval a larger -n for a converged figure at large K.
 * \param K the number of topics.
 * \return the sweeps.
 */
static inline int sk_lda_default_foldin_iters(int32_t K) {
  return K <= SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS ? SK_LDA_DEFAULT_FOLDIN_ITERS_FEW
         : K > SK_LDA_FOLDIN_MANY_TOPICS         ? 2 * SK_LDA_DEFAULT_FOLDIN_ITERS
                                                 : SK_LDA_DEFAULT_FOLDIN_ITERS;
}

/**
 * \brief Of `iters` fold-in sweeps of a model of K topics, how many come first as uncollapsed sweeps: up to
 * K = SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS all but the last SK_LDA_FOLDIN_COLLAPSED (none when iters <=
 * SK_LDA_FOLDIN_COLLAPSED), above none.
 * \param iters the sweeps.
 * \param K the number of topics.
 * \return the uncollapsed sweeps.
 */
static inline int sk_lda_detail_fold_uncollapsed(int iters, int32_t K) {
  return K <= SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS && iters > SK_LDA_FOLDIN_COLLAPSED ? iters - SK_LDA_FOLDIN_COLLAPSED
                                                                                      : 0;
}

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
 *  - fold-in: the observed token with index i (in the observed corpus) starts in a topic drawn from the
 *    model's topics for its word alone, p(k) proportional to a_k phi[k][w] (sk_lda_detail_fold_prior_draw(),
 *    u = sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_FOLDIN_INIT, i)); then `fold_in_iters` sweeps, numbered
 *    0, 1, ...: the first U = sk_lda_detail_fold_uncollapsed(fold_in_iters, K) uncollapsed (all but the
 *    last SK_LDA_FOLDIN_COLLAPSED up to K = SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS, else none), the rest
 *    collapsed Gibbs sweeps;
 *  - a collapsed sweep goes over the document's observed tokens in order: remove the token from n_dk,
 *    draw k with p(k) proportional to (a_k + n_dk) phi[k][w] by the sparse rule below (u =
 *    sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_FOLDIN(sweep), i)), add it back;
 *  - an uncollapsed sweep draws theta from its conditional, then every token given theta (so a GPU draws
 *    every token of every document at once). theta_k = X_k + y_k, the Gamma(n_dk + a_k) variate split as a
 *    Gamma(n_dk) part of the document and a Gamma(a_k) part that the sweep shares with every document
 *    (each document's chain is still the uncollapsed Gibbs chain; the documents are only correlated):
 *    y_k = samplekit's sk_rng_gamma_f64(m->seed, SK_LDA_STREAM_FOLDIN_SHARED(sweep),
 *    k SK_RNG_GAMMA_MAX_UNIFORMS, a_k); X_k the sum, over the document's tokens in topic k, of their
 *    sk_rng_exponential_f64(m->seed, SK_LDA_STREAM_FOLDIN_THETA(sweep), i) in fixed point
 *    (sk_lda_detail_fold_exp_fixed(), then sk_lda_detail_fold_fixed_value()). Each token then takes k with
 *    p(k) proportional to theta_k phi[k][w] = r_k + q'_k + x_k: r_k = y_k (beta c_k) (every k; one table a
 *    sweep), q'_k = y_k (n_wk c_k) (n_wk > 0; one table a word a sweep), x_k = X_k phi_wk (the document's
 *    nonzero topics, per draw), each part's running sums from 0 in topic order, and the draw is the sparse
 *    rule's below with r, q' and x in place of s, q and y (u = sk_rng_uniform_f64(m->seed,
 *    SK_LDA_STREAM_FOLDIN(sweep), i));
 *  - score: theta_dk = (n_dk + a_k) / (n_d + A) with n_d the observed length, and every held-out token w
 *    adds log sum_k theta_dk phi[k][w], computed sparsely as below.
 *
 * a_k is alpha (A = K alpha) or, with per-topic priors (m->alpha_k set, sk_lda_heldout_ll_priors()),
 * alpha_k[k] (A = sk_lda_model_alpha_sum()).
 *
 * The sparse rule (after SparseLDA's decomposition, Yao, Mimno and McCallum, KDD 2009; exact because phi
 * is fixed during the fold-in). With c_k = 1 / (n_k + V beta), bc_k = beta c_k and phi_wk = (n_wk + beta)
 * c_k, each computed once per call (n_dk without the token being drawn),
 *
 *       (a_k + n_dk) phi_wk = s_k + q_k + y_k,   s_k = a_k bc_k          (every k),
 *                                                q_k = a_k (n_wk c_k)    (n_wk > 0),
 *                                                y_k = n_dk phi_wk       (n_dk > 0),
 *
 * every product rounded in the order written (double, no fused multiply-add; n_wk + beta is rounded
 * before the product). Each part runs over its topics in increasing order with running sums added from
 * 0: S, Q_w and Y its totals (s: one table a call; q: one a word a call; y: per draw, over the
 * document's nonzero topics, zero terms n_wk = 0 included). A draw computes W = (S + Q_w) + Y and x =
 * u W; if x < S it takes the first s entry whose running sum exceeds x; else with x1 = x - S, if x1 < Q_w the first q
 * entry above x1; else the first y entry above x1 - Q_w, and when rounding leaves none the last y
 * entry, or with no y part the last q entry, or K - 1. The score of a held-out w is W, from the final
 * counts, times 1 / (n_d + A).
 *
 * Using the model's seed on every call gives common random numbers across evaluations of one run.
 * Over `threads` OpenMP threads (<= 0: the default); the result does not depend on the thread count.
 * Work per call O(V K) to gather B's nonzeros (one pass over the dense counts), then per observed token and
 * sweep O(nnz(n_d.)) and per held-out token O(nnz(n_d.)); O(log K) for a draw that falls in s, O(log
 * nnz(n_w.)) for one in q; an uncollapsed sweep adds O(K) draws and O(nnz(B) of the documents' words) for
 * its tables, and a call with one 4 bytes an observed token for the topics between sweeps.
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
 * \brief Internal: the tables of one fold-in call, built once from the counts (phi is fixed during the
 * fold-in, so they hold for every document): the K-entry inverses and the s table of the sparse rule
 * (sk_lda_heldout_ll()), and B's nonzeros as CSR, one row per word with its topics increasing.
 *
 * Built by sk_lda_detail_fold_tables_build(), freed by sk_lda_detail_fold_tables_free(); read-only (shared
 * by every thread) in between.
 */
typedef struct sk_lda_detail_fold_tables {
  int32_t num_topics;     /**< K */
  int32_t num_words;      /**< V */
  double alpha;           /**< the symmetric prior, used when alpha_k is NULL */
  double beta;            /**< the topic-word prior */
  double alpha_sum;       /**< A: K alpha, or sk_lda_prior_alpha_sum() of alpha_k */
  const double *alpha_k;  /**< K per-topic priors (borrowed), or NULL */
  double *inv;            /**< K: c_k = 1 / (n_k + V beta) */
  double *s_cum;          /**< K: s_cum[k] = s_cum[k-1] + a_k (beta c_k), added in topic order from 0 */
  int64_t *word_start;    /**< V + 1: word v's nonzeros are word_start[v] .. word_start[v + 1] - 1 */
  int32_t *word_topic;    /**< nnz(B): their topics, increasing within each word */
  double *word_q_cum;     /**< nnz(B): the word's q part's running sums, a_k (n_vk c_k) added from 0 */
  const int32_t *n_vk;    /**< V x K: the counts (borrowed from the view), read by the y terms */
} sk_lda_detail_fold_tables;

/**
 * \brief Internal: builds the tables of a fold-in from the counts.
 * \param t receives the tables (zeroed on failure).
 * \param view the model's counts.
 * \param alpha_k K per-topic priors (borrowed; they must outlive t), or NULL for view->alpha.
 * \param threads OpenMP threads for the pass over B (0: all); the tables do not depend on it.
 * \return 0; non-zero when memory runs out. Work O(V K) reads, O(K + V + nnz(B)) memory.
 */
int sk_lda_detail_fold_tables_build(sk_lda_detail_fold_tables *t, const sk_lda_counts_view *view,
                                    const double *alpha_k, int threads);

/** \brief Internal: frees what sk_lda_detail_fold_tables_build() allocated; NULL members are fine. \param t the tables. */
void sk_lda_detail_fold_tables_free(sk_lda_detail_fold_tables *t);

/**
 * \brief Internal: one document's fold-in state and a thread's scratch for it.
 *
 * Between documents ndk is all zero and nnz is 0. After the fold-in of a document, ndk holds its counts
 * and topics[0 .. nnz) its nonzero topics, increasing.
 */
typedef struct sk_lda_detail_fold_doc {
  int32_t *ndk;      /**< K counts */
  int32_t *topics;   /**< the nonzero topics of ndk, increasing (capacity min(K, longest document)) */
  int32_t nnz;       /**< how many */
  double *y_cum;     /**< scratch: running sums over a draw's y terms (capacity as topics) */
  int32_t *z;        /**< the tokens' topics (capacity the longest document) */
} sk_lda_detail_fold_doc;

/**
 * \brief Internal: a held-out token's probability p(w | d) = ((S + Q_w) + Y_dw) / (n_d + A)
 * (sk_lda_heldout_ll()), computed as that sum times norm.
 * \param t the call's tables.
 * \param doc the folded-in document.
 * \param norm 1 / (n_d + A), n_d the observed length.
 * \param w the word.
 * \return the probability.
 */
double sk_lda_detail_fold_word_prob(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc, double norm,
                                    int32_t w);

/**
 * \brief Internal: what sk_lda_detail_fold_in_docs() calls for each document once it is folded in.
 *
 * It must not change doc; sk_lda_detail_fold_in_docs() empties it afterwards. Called on the thread that
 * folded the document.
 * \param ctx the ctx given to sk_lda_detail_fold_in_docs().
 * \param d the document.
 * \param t the call's tables.
 * \param doc its counts (doc->ndk), nonzero topics (doc->topics, doc->nnz) and topics (doc->z).
 * \param n its number of tokens.
 */
typedef void (*sk_lda_detail_fold_in_visit)(void *ctx, int32_t d, const sk_lda_detail_fold_tables *t,
                                            const sk_lda_detail_fold_doc *doc, int64_t n);

/**
 * \brief Internal: builds the tables, folds every document of `docs` in by sk_lda_heldout_ll()'s rule
 * (tokens indexed by their position in docs, `iters` sweeps) on `threads` threads (0: all), then visits it;
 * documents are visited once each, in any order.
 *
 * The held-out log-likelihood, sk-lda infer and theta.npy share it, so the same inputs give the same bits
 * for any thread count.
 * \param view the model's counts.
 * \param alpha_k K per-topic priors, or NULL for view->alpha.
 * \param docs the documents.
 * \param max_len is the longest document.
 * \param iters fold-in sweeps.
 * \param threads threads (0: all).
 * \param visit called for each document once it is folded in.
 * \param ctx passed to visit.
 * \return 0; 1 when the tables could not be allocated and nothing was visited; 2 when a thread's scratch
 *         could not be allocated (then some documents may have been visited).
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
