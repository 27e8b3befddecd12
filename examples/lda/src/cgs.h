/**
 * \file cgs.h
 * \brief Serial collapsed Gibbs sampling for LDA (Griffiths and Steyvers, "Finding scientific topics", PNAS
 * 2004): the textbook reference sampler.
 *
 * Each token in turn is removed from the counts, given a topic drawn from its full conditional, and added
 * back.
 */
#ifndef SK_LDA_CGS_H
#define SK_LDA_CGS_H

#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief One sweep over every token t = 0 .. T-1 in corpus order.
 *
 * For token t of document d with word v and topic z, after removing it from the counts (n_dk, n_vk, n_k
 * each lose one for k = z):
 *
 *     p(k) proportional to p_k = (n_dk + alpha) (n_vk + beta) / (n_k + V beta),   k = 0 .. K-1,
 *
 * (alpha_k in place of alpha when the model has per-topic priors, m->alpha_k: sk_lda_cgs_draw_prior())
 * computed in double; with u = sk_rng_uniform_f64(m->seed, iteration, t) and W = sum_k p_k (summed in
 * increasing k), the new topic is the first k whose running sum exceeds u W (K-1 if rounding leaves
 * none); it is added back to the counts. Deterministic for (model state, seed, iteration).
 * Work O(T K); serial.
 * \param m the model.
 * \param iteration the sweep's number, the RNG stream (< 2^63).
 * \param err filled on failure.
 * \return 0, or non-zero with err filled when m is NULL / not initialised, iteration >= 2^63, or scratch
 *         memory runs out (the model is then unchanged).
 */
int sk_lda_cgs_sweep(sk_lda_model *m, uint64_t iteration, sk_ex_error *err);

/**
 * \brief The draw of one token whose own assignment is already out of the counts, shared with the tests'
 * planted-bug samplers.
 *
 * p_k = (ndk[k] + alpha)(nvk[k] + beta) inv[k] for k in [0, K), summed in increasing k into cum (K doubles
 * of scratch); the topic is the first k with cum[k] > u W, W = cum[K-1] (K-1 if rounding leaves none).
 * O(K).
 * \param ndk the document's K topic counts.
 * \param nvk the word's K topic counts.
 * \param inv K factors inv[k].
 * \param num_topics K.
 * \param alpha the document-topic prior.
 * \param beta the topic-word prior.
 * \param u the uniform in [0, 1).
 * \param cum K doubles of scratch.
 * \return the topic drawn.
 */
int32_t sk_lda_cgs_draw(const int32_t *ndk, const int32_t *nvk, const double *inv, int32_t num_topics, double alpha,
                        double beta, double u, double *cum);

/**
 * \brief sk_lda_cgs_draw() with per-topic document-topic priors: p_k = (ndk[k] + alpha_k[k])(nvk[k] + beta)
 * inv[k], summed in increasing k into cum; the topic is the first k with cum[k] > u W (K-1 if rounding
 * leaves none). O(K).
 * \param ndk the document's K topic counts.
 * \param nvk the word's K topic counts.
 * \param inv K factors inv[k].
 * \param num_topics K.
 * \param alpha_k the K document-topic priors.
 * \param beta the topic-word prior.
 * \param u the uniform in [0, 1).
 * \param cum K doubles of scratch.
 * \return the topic drawn.
 */
int32_t sk_lda_cgs_draw_prior(const int32_t *ndk, const int32_t *nvk, const double *inv, int32_t num_topics,
                              const double *alpha_k, double beta, double u, double *cum);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CGS_H */
