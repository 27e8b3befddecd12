/**
 * \file model.h
 * \brief The state of an LDA training run on the CPU: one topic per token (z), the document-topic counts A
 * (n_dk, one sparse row per document), the word-topic counts B (n_vk, dense V x K) and the topic
 * totals n_k; plus the RNG stream scheme that every sk-lda part (CPU and, later, GPU) shares.
 *
 * Threading: a model is not thread-safe; one caller at a time. The samplers use OpenMP inside.
 * Errors: functions returning int give 0 on success and non-zero on failure, with err filled (see
 * corpus.h). The model never changes the corpus it was built on.
 *
 * RNG streams. Every random number in sk-lda is u = sk_rng_uniform_f64(seed, stream, index) from
 * samplekit/rng.h (Philox4x32-10, a pure function of its arguments), so a result never depends on
 * thread count, scheduling or device. A uniform u in [0, 1) picks from n equally likely choices as
 * floor(u * n) (clamped to n - 1), and from a discrete distribution with total mass W as the first
 * entry whose running sum exceeds u * W (in the sampler's documented order).
 * \verbatim
 *   stream                           index                                   used for
 *   iteration  (< 2^63)              global token index t of the training    sweep `iteration` of CGS
 *                                    corpus                                  and of ESCA (one draw per token)
 *   SK_LDA_STREAM_INIT               t                                       initial topic of token t
 *   SK_LDA_STREAM_SPLIT_DOCS         step i of the document shuffle          choosing the test documents
 *   SK_LDA_STREAM_SPLIT_TOKENS       global token index in the full corpus   halving each test document
 *   SK_LDA_STREAM_FOLDIN_INIT        token index in the observed halves      initial fold-in topic (a draw)
 *   SK_LDA_STREAM_FOLDIN(it)         token index in the observed halves      fold-in sweep it
 *   SK_LDA_STREAM_FOLDIN_THETA(it)   token index in the observed halves      its Exp(1) share of theta in
 *                                                                            uncollapsed fold-in sweep it
 *   SK_LDA_STREAM_FOLDIN_SHARED(it)  k SK_RNG_GAMMA_MAX_UNIFORMS + j         topic k's shared Gamma(a_k)
 *                                                                            in uncollapsed sweep it
 * \endverbatim
 * Streams at or above SK_LDA_STREAM_RESERVED are never sweep streams, so no two uses share numbers.
 */
#ifndef SK_LDA_MODEL_H
#define SK_LDA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief RNG streams (see the file's description): the first stream that is never a sweep stream. */
#define SK_LDA_STREAM_RESERVED UINT64_C(0x8000000000000000)
/** \brief RNG stream of the initial topic of token t (index t). */
#define SK_LDA_STREAM_INIT (SK_LDA_STREAM_RESERVED + 0u)
/** \brief RNG stream of choosing the test documents (index: step i of the document shuffle). */
#define SK_LDA_STREAM_SPLIT_DOCS (SK_LDA_STREAM_RESERVED + 1u)
/** \brief RNG stream of halving each test document (index: global token index in the full corpus). */
#define SK_LDA_STREAM_SPLIT_TOKENS (SK_LDA_STREAM_RESERVED + 2u)
/** \brief RNG stream of the initial fold-in topic (index: token index in the observed halves). */
#define SK_LDA_STREAM_FOLDIN_INIT (SK_LDA_STREAM_RESERVED + 3u)
/** \brief RNG stream of fold-in sweep it (index: token index in the observed halves). */
#define SK_LDA_STREAM_FOLDIN(it) (SK_LDA_STREAM_RESERVED + UINT64_C(0x100000000) + (uint64_t)(it))
/** \brief RNG stream of the Exp(1) variates of uncollapsed fold-in sweep it (index: token index in the observed
 * halves; metrics.h's sk_lda_heldout_ll()). */
#define SK_LDA_STREAM_FOLDIN_THETA(it) (SK_LDA_STREAM_RESERVED + UINT64_C(0x200000000) + (uint64_t)(it))
/** \brief RNG stream of the shared Gamma(a_k) variates of uncollapsed fold-in sweep it (topic k reads from
 * index k SK_RNG_GAMMA_MAX_UNIFORMS, samplekit/rng_gamma.h). */
#define SK_LDA_STREAM_FOLDIN_SHARED(it) (SK_LDA_STREAM_RESERVED + UINT64_C(0x300000000) + (uint64_t)(it))

/** \brief Largest number of topics supported. */
#define SK_LDA_MAX_TOPICS 65536
/** \brief Default topic-word prior beta. */
#define SK_LDA_DEFAULT_BETA 0.01

/**
 * \brief The training state every sampler shares (each sampler keeps its own scratch; sampler.h).
 *
 * Fields are read-only for callers.
 */
typedef struct sk_lda_model {
  const sk_lda_corpus *corpus; /**< the training corpus, borrowed: must outlive the model */
  int32_t num_topics;          /**< K, 1 .. SK_LDA_MAX_TOPICS */
  int32_t num_words;           /**< V = corpus->num_words */
  int32_t num_docs;            /**< D = corpus->num_docs */
  int64_t num_tokens;          /**< T = corpus->num_tokens */
  double alpha;                /**< symmetric document-topic prior, > 0: every topic's when alpha_k is NULL; with
                                    alpha_k set, the value the run started from (kept for the checkpoint's check
                                    of --alpha and for logs; no sampler or metric reads it then) */
  double beta;                 /**< symmetric topic-word prior, > 0: the one every sampler and metric uses now
                                    (the prior optimiser's latest, hyper.h, once it has run) */
  uint64_t seed;               /**< the key of every draw */
  /**
   * NULL: symmetric document-topic prior (alpha for every topic: every result is the bits it was before
   * per-topic priors existed). Else K per-topic priors alpha_k, each finite and > 0, owned by the model
   * and set only through sk_lda_model_set_priors(); every sampler, metric and output then uses
   * alpha_k in place of alpha and sk_lda_model_alpha_sum() in place of K alpha.
   */
  double *alpha_k;

  int32_t *z; /**< T topics, z[t] in [0, K) */

  /**
   * \name A
   * Document d's nonzero counts are the pairs (dk_topic[i], dk_count[i]) for
   * i in [dk_start[d], dk_start[d] + dk_nnz[d]), topics strictly increasing; dk_start has D + 1
   * entries and reserves min(n_d, K) slots per document.
   * \{
   */
  int64_t *dk_start; /**< D + 1 entries: where each document's row starts */
  int32_t *dk_nnz;   /**< D: each row's number of pairs */
  int32_t *dk_topic; /**< the pairs' topics */
  int32_t *dk_count; /**< the pairs' counts */
  /** \} */

  int32_t *n_vk; /**< B: V x K, row-major: n_vk[v * K + k] */
  int64_t *n_k;  /**< K topic totals */

} sk_lda_model;

/**
 * \brief Default document-topic prior: 50 / K.
 * \param num_topics K.
 * \return 50 / K.
 */
double sk_lda_default_alpha(int32_t num_topics);

/**
 * \brief The host bytes sk_lda_model_init() will take for K topics on `corpus` (exact for that corpus;
 * an upper bound for any part of it, such as its training split): 4 T (z) + 12 D + 8 (A's offsets and
 * sizes) + 8 sum_d min(n_d, K) (A's pairs) + 4 V K (B) + 8 K (n_k). Reads only the offsets.
 * \param corpus the corpus.
 * \param num_topics K.
 * \param b_bytes receives the 4 V K of B alone; may be NULL.
 * \return the bytes (saturating at UINT64_MAX).
 */
uint64_t sk_lda_model_host_bytes(const sk_lda_corpus *corpus, int32_t num_topics, uint64_t *b_bytes);

/** \brief sk_lda_model_init()'s answer when memory runs out (other failures return 1). */
#define SK_LDA_MODEL_NO_MEMORY 2

/**
 * \brief Builds a model on `train` (borrowed, must outlive the model) with K topics and priors alpha, beta.
 *
 * Token t starts in topic floor(K * sk_rng_uniform_f64(seed, SK_LDA_STREAM_INIT, t)); the counts are
 * built from these topics.
 * The checks, the topics, the zeroing of B and the recount run over the OpenMP threads (the default
 * count); the model is the same bits for any thread count.
 * Work O(T log K + V K + D K / 64); memory at most 4 V K + 12 T + 12 D + 8 K bytes.
 * \param m receives the model; free with sk_lda_model_free().
 * \param train the training corpus (borrowed, must outlive the model).
 * \param num_topics K, 1 .. SK_LDA_MAX_TOPICS.
 * \param alpha the document-topic prior, finite and positive.
 * \param beta the topic-word prior, finite and positive.
 * \param seed the key of every draw.
 * \param err filled on failure.
 * \return 0 on success; non-zero (and *m left zeroed) when a pointer is NULL, K is outside
 *         1 .. SK_LDA_MAX_TOPICS, alpha or beta is not finite and positive, the corpus is inconsistent
 *         (offsets not increasing from 0 to T, a word id outside [0, V)), V * K overflows (a bad offset or
 *         word id is named as a serial scan would find it first); #SK_LDA_MODEL_NO_MEMORY when memory runs
 *         out (the machine's failure, as against the caller's).
 */
int sk_lda_model_init(sk_lda_model *m, const sk_lda_corpus *train, int32_t num_topics, double alpha,
                      double beta, uint64_t seed, sk_ex_error *err);

/** \brief The topics a new run's documents start on at most, by default (`sk-lda train --start-topics`):
    with it sweeps 1-10 of the GPU ESCA took 0.9x to 1.2x the time of sweeps 91-100 at K = 1,024 and 10,000,
    against up to 3x from the uniform start (bench/RESULTS.md, issue 32). */
#define SK_LDA_DEFAULT_START_TOPICS 128

/**
 * \brief sk_lda_model_init(), with every document started on at most `start_topics` topics
 * (`sk-lda train --start-topics N`): z is rewritten before the init's one recount.
 *
 * The first start_topics tokens of a document keep the topics the uniform init gives them; every later
 * token t takes the topic of the document's token floor(start_topics u_t), where u_t is the uniform its
 * own initial topic came from (sk_rng_uniform_f64(seed, SK_LDA_STREAM_INIT, t)), which is independent of
 * the first tokens' topics. Documents of at most start_topics tokens, start_topics = 0, and K <=
 * start_topics (from the uniform start no document has more than K topics, so the bound already holds)
 * keep sk_lda_model_init()'s topics bit for bit. The result depends on (corpus, K, seed, start_topics)
 * alone, not on the thread count.
 *
 * Why: from the uniform start a document's row of A holds about min(length, K) topics, and ESCA's draw
 * walks that row, so the first sweeps cost several times the later ones (bench/RESULTS.md, issue 32). A
 * start of about 64 to 128 topics a document, measured with the CPU ESCA on kos and nips12 at K = 1,024
 * and 10,000 and with the GPU ESCA on kos, nips12, 20news and a NYTimes-scale corpus, kept the joint LL at
 * sweeps 10, 50 and 100 within 0.5% of the uniform start's record (or better) and, with 128, the held-out
 * LL within 0.02; much sparser starts (1 to 16 topics) moved the held-out LL by up to 0.10.
 * `sk-lda train` starts with #SK_LDA_DEFAULT_START_TOPICS.
 * \param m receives the model.
 * \param train the training corpus, kept by reference.
 * \param num_topics K.
 * \param alpha the document-topic prior.
 * \param beta the topic-word prior.
 * \param seed the RNG's seed.
 * \param start_topics the most topics a document starts with, >= 0 (0, or K or more: the uniform start).
 * \param err filled on failure.
 * \return 0, or non-zero as sk_lda_model_init() (and when start_topics is negative); m is then zeroed.
 */
int sk_lda_model_init_started(sk_lda_model *m, const sk_lda_corpus *train, int32_t num_topics, double alpha,
                              double beta, uint64_t seed, int32_t start_topics, sk_ex_error *err);

/**
 * \brief Sets the model's priors: per-topic alpha_k (copied; NULL makes the prior symmetric again, alpha
 * for every topic) and beta.
 *
 * The counts and topics are untouched. A sampler working on the model takes the new priors through
 * sk_lda_sampler_set_priors() (sampler.h), never by a direct call. O(K).
 * \param m the model (initialised).
 * \param alpha_k K per-topic priors, each finite and > 0, or NULL.
 * \param beta the topic-word prior, finite and > 0.
 * \param err filled on failure.
 * \return 0 on success; non-zero (the model unchanged) when m is NULL or not initialised, a value is not
 *         finite and positive (the message names the first such topic), or memory runs out.
 */
int sk_lda_model_set_priors(sk_lda_model *m, const double *alpha_k, double beta, sk_ex_error *err);

/**
 * \brief The sum of the document-topic priors: (double)K * alpha when alpha_k is NULL (the expression the
 * symmetric formulas use), else alpha_k summed in double in increasing k (the one order every part of
 * sk-lda, CPU and GPU, uses, so that the sum has the same bits everywhere).
 * \param alpha_k K per-topic priors, or NULL.
 * \param alpha the symmetric prior (used when alpha_k is NULL).
 * \param num_topics K.
 * \return the sum.
 */
double sk_lda_prior_alpha_sum(const double *alpha_k, double alpha, int32_t num_topics);

/**
 * \brief sk_lda_prior_alpha_sum() of the model's priors.
 * \param m the model.
 * \return the sum of its document-topic priors.
 */
double sk_lda_model_alpha_sum(const sk_lda_model *m);

/**
 * \brief Checks K per-topic priors: each finite and > 0.
 * \param alpha_k K values (may be NULL: nothing to check).
 * \param num_topics K.
 * \param what named in the message.
 * \param err filled on failure, naming `what` and the first bad topic.
 * \return 0 when every value is finite and > 0 (or alpha_k is NULL), else non-zero.
 */
int sk_lda_detail_check_alpha_k(const double *alpha_k, int32_t num_topics, const char *what, sk_ex_error *err);

/**
 * \brief Frees what the model owns and zeroes it (not the corpus); NULL or a zeroed model is fine.
 * \param m the model.
 */
void sk_lda_model_free(sk_lda_model *m);

/**
 * \brief Replaces every topic with z[0 .. T) (for a resume or a test) and rebuilds the counts.
 *
 * Work O(T log K + V K).
 * \param m the model.
 * \param z T topics.
 * \param err filled on failure.
 * \return 0 on success; non-zero when z is NULL or a topic is outside [0, K) (the model is then
 *         unchanged), or when the recount runs out of memory (z is then the new one; call
 *         sk_lda_model_recount() again).
 */
int sk_lda_model_set_z(sk_lda_model *m, const int32_t *z, sk_ex_error *err);

/**
 * \brief Rebuilds A, B and n_k from z, over `threads` OpenMP threads (<= 0: the OpenMP default; 1 without
 * OpenMP).
 *
 * The result does not depend on the thread count. A row's topics come out ascending from a bitmap of the
 * topics seen (O(K / 64 + row)), or from a sort when the row is short against K / 64.
 * Work O(T log K + V K + D K / 64); per thread 12 K + K / 8 bytes of scratch.
 * \param m the model.
 * \param threads OpenMP threads (<= 0: the OpenMP default; 1 without OpenMP).
 * \param err filled on failure.
 * \return 0 on success; non-zero only when scratch memory runs out (the counts are then unspecified; call
 *         again).
 */
int sk_lda_model_recount(sk_lda_model *m, int threads, sk_ex_error *err);

/**
 * \brief Each word's tokens c_v = sum_k n_vk from the model's counts (the whole corpus's on a rank of a
 * multi-GPU run, whose n_vk is the sum over the ranks): what GPU ESCA sizes its word segments by. Counted
 * over the corpus's T tokens instead when T < V K and the counts are the corpus's own (sum_k n_k = T),
 * whichever reads less; the same totals either way.
 * \param m the model.
 * \param threads OpenMP threads (<= 0: the OpenMP default; 1 without OpenMP).
 * \param totals receives V totals.
 */
void sk_lda_model_word_totals(const sk_lda_model *m, int threads, int64_t *totals);

/**
 * \brief The count n_dk of topic k in document d (a binary search of the sparse row).
 * \param m the model.
 * \param d the document.
 * \param k the topic.
 * \return n_dk.
 */
int32_t sk_lda_model_doc_count(const sk_lda_model *m, int32_t d, int32_t k);

/**
 * \brief Bytes the model owns (topics, counts and per-topic priors; a sampler's scratch is its own).
 * \param m the model.
 * \return the bytes.
 */
size_t sk_lda_model_bytes(const sk_lda_model *m);

/**
 * \brief Whether models a and b (of one shape) hold the same bits: z, the rows up to their nnz (the slots
 * past it are unused), B and n_k.
 *
 * For the thread-count checks of the tests and lda_host_prep.
 * \param a a model.
 * \param b a model of the same shape.
 * \return 1 when they hold the same bits, else 0.
 */
int sk_lda_model_same_bits(const sk_lda_model *a, const sk_lda_model *b);

/* Internal helpers shared by the samplers, the split and the metrics. */

/**
 * \brief floor(u * n) clamped to n - 1: a uniform u in [0, 1) turned into one of n equally likely choices.
 * \param u the uniform in [0, 1).
 * \param n the number of choices.
 * \return the choice, in [0, n).
 */
int32_t sk_lda_detail_uniform_index(double u, int64_t n);

/**
 * \brief Sorts a[0 .. n) ascending, in place: insertion sort for short arrays, else quicksort (median of
 * three, the smaller side recursed, so O(log n) depth) without qsort's call per comparison. Not stable,
 * which changes nothing for the distinct values it is given (a row's topics, a document's words).
 * \param a the values.
 * \param n how many, >= 0.
 */
void sk_lda_detail_sort_i32(int32_t *a, int32_t n);

/** \brief Host and device: the GPU's exact sweep (gpu/esca_exact_kernels.cu) calls the same code as the CPU. */
#if defined(__CUDACC__)
#define SK_LDA_HOST_DEVICE __host__ __device__
#else
#define SK_LDA_HOST_DEVICE
#endif

/** \brief The fold-in's fixed point for theta's Exp(1) shares: 2^32 units to 1 (sk_lda_detail_fold_exp_fixed()). */
#define SK_LDA_FOLDIN_FIXED_ONE 4294967296.0

/**
 * \brief An Exp(1) variate e (at most 36.8, samplekit/rng_gamma.h) in the uncollapsed fold-in's fixed point:
 * e 2^32 truncated. A topic's Gamma(n_dk) share of theta is the sum of its tokens' values: integer sums, so
 * the host and the device, in any order, get the same bits (metrics.h, sk_lda_heldout_ll()). Exact to 2^-32;
 * no sum overflows below 10^8 tokens of one topic in one document.
 * \param e the variate, >= 0.
 * \return floor(e 2^32).
 */
static inline SK_LDA_HOST_DEVICE uint64_t sk_lda_detail_fold_exp_fixed(double e) {
  return (uint64_t)(e * SK_LDA_FOLDIN_FIXED_ONE);
}

/**
 * \brief A fixed-point sum of sk_lda_detail_fold_exp_fixed() values as a double: (double)f 2^-32.
 * \param f the sum.
 * \return its value.
 */
static inline SK_LDA_HOST_DEVICE double sk_lda_detail_fold_fixed_value(uint64_t f) {
  return (double)f * (1.0 / SK_LDA_FOLDIN_FIXED_ONE);
}

/**
 * \brief The first k in [0, n) with cum[k] > x for a non-decreasing cum, or n - 1 when rounding leaves
 * none: the inverse-CDF step every sampler here uses, on the host and (the exact GPU sweep) on the device.
 *
 * O(log n).
 * \param cum n non-decreasing values.
 * \param n how many.
 * \param x the value to search.
 * \return the first k with cum[k] > x, or n - 1 when rounding leaves none.
 */
static inline SK_LDA_HOST_DEVICE int32_t sk_lda_detail_first_above(const double *cum, int32_t n, double x) {
  int32_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (cum[mid] > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/**
 * \brief The s and q parts of a fold-in draw (metrics.h's sparse rule) at x = u W, W the draw's total: below
 * S the first entry of the s part's running sums above x, else, when x1 = x - S is below the word's q total
 * Q, the first of the word's q running sums above x1. Host and device: the host's draws (fold_in.c) and
 * the start on either (sk_lda_detail_fold_prior_draw()) search with this code, the device's subtraction
 * rounded on its own as the host's. The GPU's draws (gpu/metrics_gpu_fold_draw.cuh) write the same steps
 * out: calling this reshaped their compiled code (PTX with more registers, 2026-11-29), and they stay as
 * measured on a GPU until a change is measured there.
 *
 * O(log K) or O(log m).
 * \param s_cum the s part's K running sums (a_k beta c_k from topic 0).
 * \param K the number of topics.
 * \param word_topic the word's entries' topics, from index w0.
 * \param word_q_cum the word's entries' q running sums, from index w0.
 * \param w0 the word's first entry.
 * \param m its number of entries.
 * \param S s_cum[K - 1].
 * \param Q the word's q total: word_q_cum[w0 + m - 1], or 0 when m = 0.
 * \param x the point searched.
 * \param x1 receives x - S when x >= S.
 * \return the topic; -1 when x - S >= Q (the draw's y part, or rounding).
 */
static inline SK_LDA_HOST_DEVICE int32_t sk_lda_detail_fold_search_sq(const double *s_cum, int32_t K,
                                                                    const int32_t *word_topic,
                                                                    const double *word_q_cum, int64_t w0, int32_t m,
                                                                    double S, double Q, double x, double *x1) {
  if (x < S) return sk_lda_detail_first_above(s_cum, K, x);
#if defined(__CUDA_ARCH__)
  *x1 = __dsub_rn(x, S);
#else
  *x1 = x - S;
#endif
  if (*x1 < Q) return word_topic[w0 + sk_lda_detail_first_above(word_q_cum + w0, m, *x1)];
  return -1;
}

/**
 * \brief The fold-in's initial topic of a token (metrics.h): a draw from the model's topics for its word
 * alone, p(k) proportional to a_k phi[k][w], by the s and q parts of the fold-in's sparse rule with no
 * document counts yet: x = u (S + Q_w); below S the first entry of s_cum above x, else the first of the
 * word's q running sums above x - S, else (rounding) the word's last entry, or K - 1 for a word without
 * counts. The same draw as the rule's with an empty document, on the host and (the GPU's fold-in) on the
 * device.
 *
 * Why not a uniform topic: a token that starts in a topic its word never has is far from the chain's
 * stationary distribution, and the fold-in's first sweeps only carry it there. Started here, 5 sweeps
 * came within 0.008 of the 20 from uniform topics, and 10 within 0.008 of 80 (nips12 and 20news, K =
 * 1,024; bench/RESULTS.md, issue 32).
 *
 * O(log K) (a draw in s) or O(log m).
 * \param s_cum the s part's K running sums (a_k beta c_k from topic 0); S = s_cum[K - 1].
 * \param K the number of topics.
 * \param word_topic the word's entries' topics, from index w0.
 * \param word_q_cum the word's entries' q running sums, from index w0.
 * \param w0 the word's first entry.
 * \param m its number of entries (topics with n_wk > 0).
 * \param Q its q total: word_q_cum[w0 + m - 1], or 0 when m = 0.
 * \param u the uniform in [0, 1).
 * \return the topic, in [0, K).
 */
static inline SK_LDA_HOST_DEVICE int32_t sk_lda_detail_fold_prior_draw(const double *s_cum, int32_t K,
                                                                     const int32_t *word_topic,
                                                                     const double *word_q_cum, int64_t w0, int32_t m,
                                                                     double Q, double u) {
  const double S = s_cum[K - 1];
#if defined(__CUDA_ARCH__)
  /* each operation rounded on its own, as on the host: ptxas could otherwise fuse x - S with the product */
  const double x = __dmul_rn(u, __dadd_rn(S, Q));
#else
  const double x = u * (S + Q);
#endif
  double x1;
  const int32_t k = sk_lda_detail_fold_search_sq(s_cum, K, word_topic, word_q_cum, w0, m, S, Q, x, &x1);
  return k >= 0 ? k : m > 0 ? word_topic[w0 + m - 1] : K - 1;
}

/**
 * \brief Checks that every z[t], t < num_tokens, is in [0, num_topics).
 * \param z the topics.
 * \param num_tokens how many.
 * \param num_topics K.
 * \param what named in the message.
 * \param err filled on failure, naming `what` and the first token out of range.
 * \return 0 when every z[t], t < num_tokens, is in [0, num_topics); else non-zero with err naming `what`
 *         and the first token out of range.
 */
int sk_lda_detail_check_topics(const int32_t *z, int64_t num_tokens, int32_t num_topics, const char *what,
                               sk_ex_error *err);

/**
 * \brief The OpenMP thread count to use: `threads` when positive, else omp_get_max_threads(); 1 without
 * OpenMP.
 * \param threads the count asked for.
 * \return the count to use.
 */
int sk_lda_detail_threads(int threads);

/**
 * \brief Called by every thread of an OpenMP parallel region once it has tried to make its scratch.
 *
 * A thread that failed sets *failed, then all threads wait for each other, so that every thread reads the
 * same *failed and all or none enter the worksharing loop that follows.
 * \param ok non-zero when the thread did make its scratch.
 * \param failed shared by the threads: set by a thread that failed.
 * \return 1 when no thread failed.
 */
int sk_lda_detail_all_ready(int ok, int *failed);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_MODEL_H */
