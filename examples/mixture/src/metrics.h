/**
 * \file metrics.h
 * \brief What the trace and the demo report: the state's log-likelihood and log joint density (from
 * the sufficient statistics, O(K D)), and the adjusted Rand index of two labelings.
 */
#ifndef SK_MIX_METRICS_H
#define SK_MIX_METRICS_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief The log densities of the state (z, pi, mu, sigma2), in the data's own units.
 *
 * - `log_lik` = log p(x | z, mu, sigma2) = sum_k sum_j [-n_k log(2 pi sigma2_kj) / 2 - (sxx_kj -
 *   2 mu_kj sx_kj + n_k mu_kj^2) / (2 sigma2_kj)] - N sum_j log scale_j: every point scored under its
 *   own component (the complete-data log-likelihood), computed from the exact statistics of z.
 * - `log_joint` = log_lik + log p(z | pi) + log p(pi) + log p(mu, sigma2): the Dirichlet, inverse-gamma
 *   and normal log densities of the prior, with the change of variables' -3 K sum_j log scale_j.
 * Both use the statistics of z and the parameters drawn after it: the state at the end of a sweep.
 * \param data the data (for its scales).
 * \param prior the prior.
 * \param st the statistics of z.
 * \param p the parameters.
 * \param log_lik receives log p(x | z, theta).
 * \param log_joint receives log p(x, z, theta).
 */
void sk_mix_log_densities(const sk_mix_data *data, const sk_mix_prior *prior, const sk_mix_stats *st,
                          const sk_mix_params *p, double *log_lik, double *log_joint);

/**
 * \brief The adjusted Rand index of two labelings of n points (Hubert and Arabie, 1985).
 * \param a labels in [0, ka).
 * \param b labels in [0, kb).
 * \param n points.
 * \param ka labels of a.
 * \param kb labels of b.
 * \return the index: 1 for the same partition, about 0 for independent ones; 1 when both put every
 *         point in one group (or n < 2); NaN when a label is out of range or memory runs out.
 */
double sk_mix_ari(const int32_t *a, const int32_t *b, int64_t n, int32_t ka, int32_t kb);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_METRICS_H */
