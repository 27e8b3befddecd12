/**
 * \file esca.h
 * \brief ESCA on the CPU: the sampler of SaberLDA (Chen et al., "SaberLDA: Sparsity-Aware Learning of
 * Topic Models on GPUs", ASPLOS 2017, arXiv 1610.02496).
 *
 * Every token of a sweep is drawn from the counts of the previous sweep, so tokens are independent within
 * a sweep and can be drawn in any order, by any number of threads; the counts are rebuilt from the new
 * topics at the end of the sweep. This is not an exact sampler of the LDA posterior (it is a Markov chain
 * of its own; tests/lda/test_sampler.c checks it against that chain's exact stationary distribution).
 */
#ifndef SK_LDA_ESCA_H
#define SK_LDA_ESCA_H

#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief ESCA's own scratch, kept between sweeps (the model holds only what every sampler needs).
 *
 * Zero it before the first sweep; free it with sk_lda_esca_tables_free().
 */
typedef struct sk_lda_esca_tables {
  int32_t num_words, /**< V: the shape the tables were allocated for */ num_topics; /**< K: likewise */
  double *word_cum;              /**< V x K: cum_v[k], running sums over k of B_hat[v, k] */
  double *inv_denom;             /**< K: 1 / (n_k + V beta) */
} sk_lda_esca_tables;

/**
 * \brief Frees the tables and zeroes them; NULL or zeroed is fine.
 * \param t the tables.
 */
void sk_lda_esca_tables_free(sk_lda_esca_tables *t);

/**
 * \brief One ESCA sweep over `threads` OpenMP threads (<= 0: the OpenMP default; ignored without OpenMP).
 *
 * With A = n_dk, B = n_vk and n_k as they are when the call starts, B_hat[v,k] = (B[v,k] + beta) *
 * inv[k], inv[k] = 1 / (n_k + V beta), token t of document d with word v gets a topic from
 *
 *     p(k) proportional to (A[d,k] + alpha) B_hat[v,k]  =  A[d,k] B_hat[v,k]  +  alpha B_hat[v,k],
 *
 * drawn exactly so (all in double) by sk_lda_esca_draw() with u = sk_rng_uniform_f64(m->seed,
 * iteration, t). Then z is replaced and A, B, n_k are rebuilt from it.
 *
 * With per-topic priors (m->alpha_k set) the prior part is sum_k alpha_k B_hat[v,k]: the word tables are
 * sk_lda_esca_word_table_prior()'s running sums of alpha_k B_hat[v,k] and sk_lda_esca_draw() is called
 * with alpha = 1 (1 * Q and (x - S) / 1 are exact, so the rule is unchanged). With m->alpha_k NULL every
 * topic is the bits it always was.
 *
 * The result depends only on (model state, seed, iteration), never on the thread count or on what the
 * tables held before. Work O(T (nnz_d + log K) + V K) per sweep; memory: t grows to 8 V K + 8 K bytes on
 * the first sweep (or when the model's shape changes), each thread 8 K.
 * \param m the model.
 * \param t ESCA's tables (zeroed before the first sweep).
 * \param iteration the sweep's number, the RNG stream (< 2^63).
 * \param threads OpenMP threads (<= 0: the OpenMP default; ignored without OpenMP).
 * \param err filled on failure.
 * \return 0, or non-zero with err filled when m or t is NULL / m not initialised, iteration >= 2^63, or
 *         memory runs out (the model is then unchanged, except when the final recount runs out: z then
 *         holds the new topics and the counts must be rebuilt with sk_lda_model_recount()).
 */
int sk_lda_esca_sweep(sk_lda_model *m, sk_lda_esca_tables *t, uint64_t iteration, int threads,
                      sk_ex_error *err);

/* The parts of a sweep, shared with the tests' planted-bug samplers and with the GPU sampler's
   reference checks. */

/**
 * \brief inv[k] = 1 / (n_k + V beta) for k in [0, K).
 * \param m the model.
 * \param inv receives K values.
 */
void sk_lda_esca_inv_denom(const sk_lda_model *m, double *inv);

/**
 * \brief cum[k] = sum_{j <= k} (b_row[j] + beta) inv[j] for k in [0, n): one word's dense table (n = K).
 * \param b_row the word's n topic counts.
 * \param inv n values of sk_lda_esca_inv_denom().
 * \param beta the topic-word prior.
 * \param n the number of topics, K.
 * \param cum receives n running sums.
 */
void sk_lda_esca_word_table(const int32_t *b_row, const double *inv, double beta, int32_t n, double *cum);

/**
 * \brief cum[k] = sum_{j <= k} alpha_k[j] ((b_row[j] + beta) inv[j]) for k in [0, n): one word's dense table
 * with per-topic priors (n = K), each term the product of alpha_k and sk_lda_esca_word_table()'s term.
 * \param b_row the word's n topic counts.
 * \param inv n values of sk_lda_esca_inv_denom().
 * \param alpha_k the n per-topic document-topic priors.
 * \param beta the topic-word prior.
 * \param n the number of topics, K.
 * \param cum receives n running sums.
 */
void sk_lda_esca_word_table_prior(const int32_t *b_row, const double *inv, const double *alpha_k, double beta,
                                  int32_t n, double *cum);

/** \brief Rows of at most this many pairs are added in the GPU warp's hold order (sk_lda_esca_pair_at()). */
#define SK_LDA_ESCA_HOLD_PAIRS 256

/**
 * \brief The pair of a document's sparse row (nnz pairs) added at position pos of ESCA's sparse part.
 *
 * A row of at most #SK_LDA_ESCA_HOLD_PAIRS pairs is added in the order of the GPU draw's hold
 * (samplekit's warp_strided_sample.cuh, 32 lanes, examples/lda/src/gpu/esca_draw.cu): lane r holds pairs
 * r, r + 32, r + 64, ... (coalesced reads), and the lanes follow one another, lane 0's pairs first, so
 * that a warp sums the row with one scan. A longer row is added in index order (the GPU's running-sum
 * walk). Any fixed order draws exactly from p(k); the CPU takes the GPU's so that both choose the same
 * topic for the same u, up to rounding near a boundary.
 * \param pos the position, 0 to nnz - 1.
 * \param nnz the row's pairs.
 * \return the index of the pair, 0 to nnz - 1.
 */
static inline SK_LDA_HOST_DEVICE int32_t sk_lda_esca_pair_at(int32_t pos, int32_t nnz) {
  if (nnz > SK_LDA_ESCA_HOLD_PAIRS) return pos;
  const int32_t rounds = (nnz + 31) / 32;       /* pairs of the first lanes */
  const int32_t full = nnz - 32 * (rounds - 1); /* lanes that hold `rounds` pairs: 1 to 32 */
  if (pos < full * rounds) return (pos % rounds) * 32 + pos / rounds;
  const int32_t q = pos - full * rounds; /* the lanes of rounds - 1 >= 1 pairs */
  return (q % (rounds - 1)) * 32 + full + q / (rounds - 1);
}

/**
 * \brief ESCA's draw for one token, all in double.
 *
 * The sparse part runs over the document's nonzero topics row_topic[0 .. nnz) (increasing) with counts
 * row_count, in the order of sk_lda_esca_pair_at(): s_p = running sum, over positions up to p, of
 * row_count[i] * (b_row[k_i] + beta) inv[k_i] with i = sk_lda_esca_pair_at(p, nnz), S = the last s_p (0
 * for an empty row); Q = alpha cum[K-1]; x = u (S + Q). If x < S the topic is k_i for the pair i at the
 * first position p with s_p > x; otherwise it is the first k with cum[k] > (x - S) / alpha (K-1 if
 * rounding leaves none).
 * With per-topic priors cum is sk_lda_esca_word_table_prior()'s table and alpha is 1.
 * O(nnz + log K).
 * \param row_topic the document's nonzero topics, increasing.
 * \param row_count their counts.
 * \param nnz how many.
 * \param b_row the word's K topic counts.
 * \param cum the word's dense table (sk_lda_esca_word_table()).
 * \param inv K values of sk_lda_esca_inv_denom().
 * \param num_topics K.
 * \param alpha the document-topic prior.
 * \param beta the topic-word prior.
 * \param u the uniform in [0, 1).
 * \param psum holds nnz doubles of scratch.
 * \return the topic drawn.
 */
int32_t sk_lda_esca_draw(const int32_t *row_topic, const int32_t *row_count, int32_t nnz, const int32_t *b_row,
                         const double *cum, const double *inv, int32_t num_topics, double alpha, double beta,
                         double u, double *psum);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_H */
