/**
 * \file variates.h
 * \brief Normal and gamma variates from samplekit's counter-based uniforms (host, double precision).
 *
 * A variate is a pure function of (seed, stream, draw): it takes its uniforms from
 * sk_rng_uniform_f64(seed, stream, draw * 2^16 + i), i = 0, 1, 2, ..., so every draw has its own
 * 65,536 uniforms and no draw's count of uniforms can shift another's. A draw index must be below
 * 2^48.
 *
 * - Normal: Box and Muller's transform, `sqrt(-2 log(1 - u_0)) cos(2 pi u_1)` (1 - u is in (0, 1], so
 *   the logarithm is finite).
 * - Gamma(a, 1): samplekit's sk_rng_log_gamma_f64() (rng_gamma.h) on the draw's first
 *   SK_RNG_GAMMA_MAX_UNIFORMS uniforms: Marsaglia and Tsang's method (ACM TOMS 26(3), 2000), boosted
 *   below shape 1, returned as a logarithm (sk_mix_log_gamma()), since for small a the variate
 *   underflows a double.
 *
 * The libm functions (log, cos, sqrt, exp) are the host's: the chain is bit-identical between the CPU
 * and GPU samplers of one build, which run this same code; another C library may differ in last bits.
 */
#ifndef SK_MIX_VARIATES_H
#define SK_MIX_VARIATES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A standard normal variate (Box-Muller, uniforms 0 and 1 of the draw).
 * \param seed the run's seed.
 * \param stream the Philox stream.
 * \param draw the draw's index, < 2^48.
 * \return the variate.
 */
double sk_mix_normal(uint64_t seed, uint64_t stream, uint64_t draw);

/**
 * \brief The logarithm of a Gamma(shape, 1) variate: sk_rng_log_gamma_f64(seed, stream, draw * 2^16, shape).
 * \param shape > 0.
 * \param seed the run's seed.
 * \param stream the Philox stream.
 * \param draw the draw's index, < 2^48.
 * \return log of the variate (finite for every shape > 0 that is finite).
 */
double sk_mix_log_gamma(double shape, uint64_t seed, uint64_t stream, uint64_t draw);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_VARIATES_H */
