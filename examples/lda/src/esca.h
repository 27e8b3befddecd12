/*
 * ESCA on the CPU: the sampler of SaberLDA (Chen et al., "SaberLDA: Sparsity-Aware Learning of Topic
 * Models on GPUs", ASPLOS 2017, arXiv 1610.02496). Every token of a sweep is drawn from the counts of
 * the previous sweep, so tokens are independent within a sweep and can be drawn in any order, by any
 * number of threads; the counts are rebuilt from the new topics at the end of the sweep. This is not
 * an exact sampler of the LDA posterior (it is a Markov chain of its own; tests/lda/test_sampler.c
 * checks it against that chain's exact stationary distribution).
 */
#ifndef SK_LDA_ESCA_H
#define SK_LDA_ESCA_H

#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One ESCA sweep over `threads` OpenMP threads (<= 0: the OpenMP default; ignored without OpenMP).
 *
 * With A = n_dk, B = n_vk and n_k as they are when the call starts, B_hat[v,k] = (B[v,k] + beta) *
 * inv[k], inv[k] = 1 / (n_k + V beta), token t of document d with word v gets a topic from
 *     p(k) proportional to (A[d,k] + alpha) B_hat[v,k]  =  A[d,k] B_hat[v,k]  +  alpha B_hat[v,k],
 * drawn exactly so (all in double): cum_v[k] = sum_{j <= k} B_hat[v,j] (running sum, built once per
 * sweep per word); the sparse part runs over the document's nonzero topics in increasing order,
 * s_i = running sum of A[d,k_i] B_hat[v,k_i], S = the last s_i (0 for an empty row); Q = alpha
 * cum_v[K-1]; u = sk_rng_uniform_f64(m->seed, iteration, t), x = u (S + Q). If x < S the topic is k_i
 * for the first i with s_i > x; otherwise it is the first k with cum_v[k] > (x - S) / alpha (K-1 if
 * rounding leaves none). Then z is replaced and A, B, n_k are rebuilt from it.
 *
 * The result depends only on (model state, seed, iteration), never on the thread count. Returns 0, or
 * non-zero with err filled when m is NULL / not initialised, iteration >= 2^63, or memory runs out (the
 * model is then unchanged, except when the final recount runs out: z then holds the new topics and the
 * counts must be rebuilt with sk_lda_model_recount()). Work O(T (nnz_d + log K) + V K)
 * per sweep; memory: the first sweep allocates 8 V K + 8 K bytes kept in the model, each thread 8 K.
 */
int sk_lda_esca_sweep(sk_lda_model *m, uint64_t iteration, int threads, sk_lda_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_H */
