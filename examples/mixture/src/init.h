/**
 * \file init.h
 * \brief The chain's starting parameters: greedy k-means++ seeds on a subsample, then one assignment
 * to the nearest seed for the weights, means and variances. On the host; the same for both devices.
 *
 * Gibbs sampling for mixtures moves between modes slowly: two components that start inside one
 * cluster rarely separate. Seeds far apart avoid that. Greedy k-means++ (Arthur and Vassilvitskii,
 * SODA 2007, with the greedy choice among 2 + floor(ln K) candidates that scikit-learn uses): the first
 * seed uniformly, each next one the best of its candidates drawn with probability proportional to the
 * squared distance to the nearest seed so far, "best" being the one that leaves the smallest sum of
 * squared distances. Run on M = min(N, max(10000, 16 K)) points taken at even strides (point floor(m N
 * / M), m = 0..M-1), so the cost is O(M K L D) whatever N is. Sums are serial in double in point order
 * (the per-point distances run over OpenMP threads): the result does not depend on the thread count.
 * Uniforms: sk_rng_uniform_f64(seed, SK_MIX_STREAM(0, SK_MIX_ROLE_INIT), i) for i = 0, 1, ....
 *
 * Then each subsample point goes to its nearest seed; component k starts with pi_k proportional to
 * alpha + n_k, mu_k the mean of its points (the seed when it has none) and sigma2_kj = (b0 + S_kj / 2)
 * / (a0 + n_k / 2 + 1), the inverse-gamma posterior's mode with S_kj the points' squared deviations.
 */
#ifndef SK_MIX_INIT_H
#define SK_MIX_INIT_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief The starting parameters (the file's description).
 * \param data the standardized data.
 * \param prior the prior.
 * \param seed the run's seed.
 * \param threads OpenMP threads (<= 0: all).
 * \param out allocated for K = out->k and D = data->d; filled.
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_init_params(const sk_mix_data *data, const sk_mix_prior *prior, uint64_t seed, int threads,
                       sk_mix_params *out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_INIT_H */
