/**
 * \file posterior.h
 * \brief The parameter step: pi, mu and sigma2 drawn from their conjugate posteriors given the
 * sufficient statistics, on the host in double precision.
 *
 * It runs on the host for both devices (the GPU sampler copies its K (2 D + 1) integers back): the step
 * is K D draws, tiny next to the z-step's N K D work, and running the very same code keeps the CPU and
 * GPU chains bit-identical.
 *
 * Given component k's count n, and in dimension j its sums sx = sum x and sxx = sum x^2 (standardized
 * units, m0 = 0):
 * - pi ~ Dirichlet(alpha + n_1, ..., alpha + n_K), by Gamma(alpha + n_k, 1) variates normalised (in logs);
 * - Normal-Inverse-Gamma: kappa_n = kappa0 + n, mean_n = sx / kappa_n, a_n = a0 + n / 2,
 *   b_n = b0 + (sxx - sx^2 / n) / 2 + kappa0 sx^2 / (2 n kappa_n) (the last two terms are 0 when n = 0:
 *   an empty component is drawn from the prior); sigma2 = b_n / Gamma(a_n, 1), mu ~ N(mean_n, sigma2 /
 *   kappa_n).
 *
 * Random numbers (variates.h) of sweep s come from stream SK_MIX_STREAM(s, SK_MIX_ROLE_PARAMS): pi_k's
 * gamma is draw k, sigma2_kj's is draw K + k D + j, mu_kj's normal is draw K + K D + k D + j. Each draw
 * is a pure function of its index, so the step does not depend on the thread count.
 */
#ifndef SK_MIX_POSTERIOR_H
#define SK_MIX_POSTERIOR_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The Normal-Inverse-Gamma posterior of one component in one dimension. */
typedef struct sk_mix_nig {
  double kappa; /**< kappa_n: the mean's precision factor */
  double mean;  /**< mean_n */
  double a;     /**< a_n: the variance's shape */
  double b;     /**< b_n: the variance's scale */
} sk_mix_nig;

/**
 * \brief The posterior of one component in one dimension (the formulas of the file's description).
 * \param p the prior.
 * \param n the component's count.
 * \param sx its sum of x.
 * \param sxx its sum of x^2.
 * \param out the posterior.
 */
void sk_mix_posterior_nig(const sk_mix_prior *p, int64_t n, double sx, double sxx, sk_mix_nig *out);

/**
 * \brief Every component's posterior: post[k * D + j].
 * \param p the prior.
 * \param st the statistics.
 * \param post K x D posteriors.
 */
void sk_mix_posterior_all(const sk_mix_prior *p, const sk_mix_stats *st, sk_mix_nig *post);

/**
 * \brief Draws the parameters from given posteriors: pi from Dirichlet(alpha + count), each (mu,
 * sigma2) from its NIG. The parameter step's second half, separate so that tests can feed it altered
 * posteriors (a planted bug must be rejected by the posterior test).
 * \param alpha the Dirichlet parameter.
 * \param count K counts.
 * \param post K x D posteriors.
 * \param seed the run's seed.
 * \param sweep the sweep (picks the stream).
 * \param threads OpenMP threads (<= 0: all), at most one per 128 (component, dimension) pairs; the
 *        result does not depend on it.
 * \param out the parameters (K and D set).
 */
void sk_mix_draw_params(double alpha, const int64_t *count, const sk_mix_nig *post, uint64_t seed, uint64_t sweep,
                        int threads, sk_mix_params *out);

/**
 * \brief The parameter step: sk_mix_posterior_all() then sk_mix_draw_params().
 * \param p the prior.
 * \param st the statistics of the current assignment.
 * \param seed the run's seed.
 * \param sweep the sweep.
 * \param threads OpenMP threads (<= 0: all).
 * \param out the new parameters.
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_param_step(const sk_mix_prior *p, const sk_mix_stats *st, uint64_t seed, uint64_t sweep, int threads,
                      sk_mix_params *out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_POSTERIOR_H */
