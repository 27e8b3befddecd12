/**
 * \file hyper.h
 * \brief Learning LDA's priors from the counts (sk-lda train --optimize-every): an asymmetric
 * document-topic prior alpha_k and a symmetric topic-word prior beta, by Minka's fixed-point iteration for
 * the Dirichlet-multinomial (Polya) likelihood: T. P. Minka, "Estimating a Dirichlet distribution"
 * (technical report, 2000; the fixed-point iteration for the Polya distribution), with the digamma differences taken from count histograms as in
 * H. M. Wallach, "Structured Topic Models for Language" (PhD thesis, Cambridge, 2008), section 2.4, which
 * MALLET's Dirichlet.learnParameters() follows.
 *
 * The fixed points. With n_dk the count of topic k in document d, n_d the document's length, A = sum_k
 * alpha_k, n_vk the count of word v in topic k, n_k the topic's total and V the vocabulary's size:
 * \verbatim
 *   alpha_k <- alpha_k * sum_d [psi(n_dk + alpha_k) - psi(alpha_k)] / sum_d [psi(n_d + A) - psi(A)]
 *   beta    <- beta * sum_{v,k: n_vk > 0} [psi(n_vk + beta) - psi(beta)] / (V sum_k [psi(n_k + V beta) - psi(V beta)])
 * \endverbatim
 * each the stationarity of the log-likelihood's gradient rewritten as a multiplicative update (Minka's
 * bound): at a fixed point d/d alpha_k of sum_d log DirMult(n_d. | alpha) is zero, and likewise for beta.
 * One iteration updates every alpha_k from the previous iteration's values (A included), then the values
 * are floored at SK_LDA_HYPER_MIN_PRIOR: a topic no document uses would otherwise get 0, which no sampler
 * can draw with (its prior then stays at the floor until documents use it again).
 *
 * The counts enter only through integer histograms (sk_lda_hyper_stats): for each topic the number of
 * documents with n_dk = n, the number of documents of each length, the number of pairs (v, k) with
 * n_vk = c, and n_k. Histograms of integers do not depend on the order they were counted in, so the CPU
 * (sk_lda_hyper_stats_from_model()) and a GPU sampler (an integer-histogram kernel over its device
 * counts) build the same ones, and the same host code below turns them into the same priors, bit for
 * bit. Every sum is in double in a fixed order (topics in increasing k, values in increasing n).
 *
 * psi(x + n) - psi(x) is the sum of 1 / (x + i), i = 0 .. n-1, for n below SK_LDA_HYPER_DENSE (no digamma:
 * exact to rounding for the tiny x a prior can be) and sum_{i < SK_LDA_HYPER_DENSE} 1 / (x + i) +
 * psi(x + n) - psi(x + SK_LDA_HYPER_DENSE) above it, the last difference taken from digamma's asymptotic
 * series at both arguments (>= 128, where it is exact to rounding) as one expression (log1p of the ratio),
 * so that it keeps its precision for any x (a difference of two digamma values would lose it for large x).
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h). Threading: no
 * shared state.
 */
#ifndef SK_LDA_HYPER_H
#define SK_LDA_HYPER_H

#include <stdint.h>

#include "corpus.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Counts 1 .. SK_LDA_HYPER_DENSE - 1 are histogrammed densely; larger ones are listed (the tails). */
#define SK_LDA_HYPER_DENSE 128
/** \brief The floor of a learnt prior (alpha_k or beta). */
#define SK_LDA_HYPER_MIN_PRIOR 1e-10
/** \brief The fixed point stops early when no value moves by more than this, relative. */
#define SK_LDA_HYPER_TOLERANCE 1e-12
/** \brief The fixed-point iterations sk-lda train runs at each optimisation unless told otherwise. */
#define SK_LDA_HYPER_DEFAULT_ITERATIONS 5

/** \brief One entry of a tail: `count` documents (or pairs) whose count is `value` (in topic `topic`). */
typedef struct sk_lda_hyper_tail {
  int64_t value; /**< the count n (n_dk, n_d or n_vk) */
  int64_t count; /**< how many documents (or word-topic pairs) have it */
  int32_t topic; /**< the topic (doc_topic_tail; 0 elsewhere) */
} sk_lda_hyper_tail;

/**
 * \brief The integer histograms the fixed points read (see the file's description); canonical: two
 * builders that count the same counts fill the same bits (the tails sorted, each value once).
 *
 * Free with sk_lda_hyper_stats_free().
 */
typedef struct sk_lda_hyper_stats {
  int32_t num_topics; /**< K */
  int32_t num_words;  /**< V */
  /** K x SK_LDA_HYPER_DENSE: [k * SK_LDA_HYPER_DENSE + n] documents with n_dk = n for 1 <= n <
      SK_LDA_HYPER_DENSE (the n = 0 entries are 0) */
  int32_t *doc_topic;
  int64_t num_doc_topic_tail; /**< entries of doc_topic_tail */
  /** (topic, n, documents) for n_dk = n >= SK_LDA_HYPER_DENSE, sorted by topic then n, each pair once */
  sk_lda_hyper_tail *doc_topic_tail;
  int64_t num_doc_length; /**< entries of doc_length */
  sk_lda_hyper_tail *doc_length; /**< (0, n, documents) for documents of length n >= 1, sorted by n, each n once */
  /** SK_LDA_HYPER_DENSE: [c] pairs (v, k) with n_vk = c for 1 <= c < SK_LDA_HYPER_DENSE ([0] is 0) */
  int64_t *word_topic;
  int64_t num_word_topic_tail; /**< entries of word_topic_tail */
  sk_lda_hyper_tail *word_topic_tail; /**< (0, c, pairs) for n_vk = c >= SK_LDA_HYPER_DENSE, sorted by c */
  int64_t *topic_total; /**< K: n_k */
} sk_lda_hyper_stats;

/**
 * \brief Allocates the dense parts of s for K topics and V words, zeroed (tails empty).
 * \param s receives the histograms; zeroed on failure.
 * \param num_topics K, 1 .. SK_LDA_MAX_TOPICS.
 * \param num_words V >= 1.
 * \param err filled on failure.
 * \return 0, or non-zero on bad sizes or out of memory.
 */
int sk_lda_hyper_stats_init(sk_lda_hyper_stats *s, int32_t num_topics, int32_t num_words, sk_ex_error *err);

/**
 * \brief Frees the histograms and zeroes them; NULL or zeroed is fine.
 * \param s the histograms.
 */
void sk_lda_hyper_stats_free(sk_lda_hyper_stats *s);

/**
 * \brief Makes a tail canonical, in place: sorts its entries by (topic, value) and merges equal ones
 * (adding their counts). A builder may append entries in any order, one per document or pair (count 1).
 * O(n log n).
 * \param tail the entries.
 * \param n how many.
 * \return how many are left.
 */
int64_t sk_lda_hyper_tail_canonical(sk_lda_hyper_tail *tail, int64_t n);

/**
 * \brief Fills s->doc_length from a corpus's document lengths (documents of length 0 are left out).
 * O(D log D).
 * \param s histograms of sk_lda_hyper_stats_init() (its doc_length is replaced).
 * \param corpus the training corpus.
 * \param err filled on failure.
 * \return 0, or non-zero on NULL or out of memory.
 */
int sk_lda_hyper_stats_set_lengths(sk_lda_hyper_stats *s, const sk_lda_corpus *corpus, sk_ex_error *err);

/**
 * \brief The histograms of a model's current counts (A, B, n_k and its corpus's lengths).
 *
 * Work O(V K + nnz(A) + D log D + tails log tails); memory 4 K SK_LDA_HYPER_DENSE + 8 K + 8
 * SK_LDA_HYPER_DENSE bytes and 24 bytes per tail entry (fewer than T / SK_LDA_HYPER_DENSE + 1 of each kind:
 * every listed count holds at least SK_LDA_HYPER_DENSE tokens).
 * \param m the model (initialised).
 * \param out receives the histograms; free with sk_lda_hyper_stats_free(); zeroed on failure.
 * \param err filled on failure.
 * \return 0, or non-zero on NULL or out of memory.
 */
int sk_lda_hyper_stats_from_model(const sk_lda_model *m, sk_lda_hyper_stats *out, sk_ex_error *err);

/**
 * \brief 1 when a and b hold the same histograms (the same sizes and bits), else 0.
 * \param a histograms.
 * \param b histograms.
 * \return 1 when equal.
 */
int sk_lda_hyper_stats_equal(const sk_lda_hyper_stats *a, const sk_lda_hyper_stats *b);

/**
 * \brief The digamma function psi(x) = d/dx log Gamma(x) for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x
 * up to x >= 6, then the asymptotic series log x - 1/(2x) - sum B_2j / (2j x^2j) to j = 6 (relative error
 * about 1e-15). Deterministic (plain double operations and log()).
 * \param x the argument, > 0.
 * \return psi(x); NaN for x <= 0 or NaN.
 */
double sk_lda_hyper_digamma(double x);

/**
 * \brief psi(x + n) - psi(x) for x > 0 and n >= 0, as the file's description says (a sum of 1 / (x + i)
 * below SK_LDA_HYPER_DENSE, plus the asymptotic series' difference above it); relative error about 1e-15.
 * \param x the argument, > 0.
 * \param n the count, >= 0.
 * \return the difference (0 for n = 0).
 */
double sk_lda_hyper_digamma_diff(double x, int64_t n);

/**
 * \brief Minka's fixed point for the asymmetric document-topic prior (the file's description): at most
 * `iterations` iterations from alpha_k's values, stopping earlier when no alpha_k moves by more than
 * SK_LDA_HYPER_TOLERANCE relative; each value floored at SK_LDA_HYPER_MIN_PRIOR.
 *
 * With no document of length >= 1 the priors are left as they are. Work O(iterations (K
 * SK_LDA_HYPER_DENSE + tails)).
 * \param s the histograms.
 * \param alpha_k K values: the start on entry (each finite and > 0), the learnt priors on return.
 * \param iterations the most iterations (>= 1).
 * \param done receives the iterations run (0 when there was nothing to learn from); may be NULL.
 * \param err filled on failure.
 * \return 0; non-zero (alpha_k unchanged) on NULL, iterations < 1, a start value that is not finite and
 *         positive, or a result that is not finite.
 */
int sk_lda_hyper_learn_alpha(const sk_lda_hyper_stats *s, double *alpha_k, int iterations, int *done,
                             sk_ex_error *err);

/**
 * \brief Minka's fixed point for the symmetric topic-word prior (the file's description), as
 * sk_lda_hyper_learn_alpha() (floored at SK_LDA_HYPER_MIN_PRIOR; left as it is when no topic has a token).
 * \param s the histograms.
 * \param beta the start on entry (finite and > 0), the learnt prior on return.
 * \param iterations the most iterations (>= 1).
 * \param done receives the iterations run; may be NULL.
 * \param err filled on failure.
 * \return 0; non-zero (beta unchanged) on NULL, iterations < 1, a start that is not finite and positive,
 *         or a result that is not finite.
 */
int sk_lda_hyper_learn_beta(const sk_lda_hyper_stats *s, double *beta, int iterations, int *done, sk_ex_error *err);

/**
 * \brief Learns both priors from histograms and a model's current priors, without touching the model:
 * alpha_k starts from m->alpha_k (or m->alpha for every topic when it is NULL) and beta from m->beta.
 * \param m the model whose priors are the start.
 * \param s the histograms of its counts.
 * \param iterations the most fixed-point iterations of each prior (>= 1).
 * \param alpha_k receives the K learnt document-topic priors.
 * \param beta receives the learnt topic-word prior.
 * \param err filled on failure.
 * \return 0, or non-zero as sk_lda_hyper_learn_alpha() and sk_lda_hyper_learn_beta().
 */
int sk_lda_hyper_learn(const sk_lda_model *m, const sk_lda_hyper_stats *s, int iterations, double *alpha_k,
                       double *beta, sk_ex_error *err);

/**
 * \brief The whole optimisation on a model (the CPU samplers' path, and the tests'): its histograms, both
 * fixed points, then sk_lda_model_set_priors(). A sampler working on the model must take the priors through
 * sk_lda_sampler_optimize_priors() (sampler.h) instead.
 * \param m the model.
 * \param iterations the most fixed-point iterations of each prior (>= 1).
 * \param err filled on failure.
 * \return 0, or non-zero (the model's priors unchanged) on failure.
 */
int sk_lda_hyper_optimize_model(sk_lda_model *m, int iterations, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_HYPER_H */
