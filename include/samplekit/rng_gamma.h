/**
 * \file rng_gamma.h
 * \brief Gamma and exponential variates from the counter-based RNG (rng.h), callable from host and
 * device code alike.
 *
 * C-clean, as rng.h: host code compiled by a plain C99 compiler and device code call the same functions.
 */
#ifndef SAMPLEKIT_RNG_GAMMA_H
#define SAMPLEKIT_RNG_GAMMA_H

#include <math.h>
#include <stdint.h>

#include "rng.h"
#include "sk_config.h"

/**
 * \defgroup sk_rng_gamma Gamma variates
 * \ingroup sk_rng
 * \brief Gamma(a, 1) and Exp(1) variates as pure functions of (seed, stream id, first index, shape), for
 * samplers that draw a Dirichlet through its Gamma representation (theta_k proportional to Gamma(a_k)).
 *
 * **A variate is a pure function.** sk_rng_log_gamma_f64() reads the double uniforms
 * sk_rng_uniform_f64(seed, stream_id, first + j), j = 0, 1, ..., and never more than
 * SK_RNG_GAMMA_MAX_UNIFORMS of them: give each variate its own range of that many indices (variate k at
 * first = k * SK_RNG_GAMMA_MAX_UNIFORMS) and the variates are independent whatever order, thread or
 * device draws them.
 *
 * **Host and device.** Both run the same operations, but `log`, `exp` and `sqrt` of CUDA and of the C
 * library may differ by an ulp or so, and the device takes cos(2 pi u) as `cospi(2 u)` (no argument
 * reduction; the C library has no cospi), so a variate drawn on the device agrees with the host's to a few
 * ulps, not bit for bit; a rejection test that falls within those ulps of its bound (never seen;
 * probability about 1e-15 a variate) would take another candidate and give another value.
 *
 * **The method.** Marsaglia and Tsang (ACM TOMS 26(3), 2000) for a >= 1, with Box-Muller normals; for
 * a < 1, Gamma(a + 1) U^(1/a), kept as a logarithm, so that tiny shapes (a = 0.005: the variate is below
 * 1e-300 with probability about 0.03) lose nothing to underflow. Acceptance is at least 0.95 a
 * candidate at every shape, so the cap on uniforms (three a candidate) is reached with probability below
 * 1e-300; the variate is then exp(log(d)), Marsaglia and Tsang's mode, so that the function stays total.
 * @{
 */

/** \brief The most uniforms one sk_rng_log_gamma_f64() call reads: the stride between independent variates. */
#define SK_RNG_GAMMA_MAX_UNIFORMS 256u

/** \cond SK_INTERNAL */
/* The uniforms of a stream read in order, each Philox block (two doubles) computed once: the values of
   sk_rng_uniform_f64() at the same indices. */
typedef struct sk_detail_uniform_run {
  uint64_t seed, stream_id, block;
  int have;
  sk_u32x4 bits;
} sk_detail_uniform_run;

SK_HOST_DEVICE double sk_detail_uniform_run_at(sk_detail_uniform_run *r, uint64_t index) {
  if (!r->have || r->block != (index >> 1)) {
    r->block = index >> 1;
    r->bits = sk_rng_u32x4(r->seed, r->stream_id, r->block);
    r->have = 1;
  }
  return (index & 1u) ? sk_rng_unit_f64(r->bits.z, r->bits.w) : sk_rng_unit_f64(r->bits.x, r->bits.y);
}
/** \endcond */

/**
 * \brief log of a Gamma(a, 1) variate from the uniforms at indices first, first + 1, ... of a stream
 * (at most SK_RNG_GAMMA_MAX_UNIFORMS of them).
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param first the index of the first uniform read.
 * \param a the shape, > 0 (a <= 0 or NaN gives -INFINITY: the variate 0).
 * \return log G, G ~ Gamma(a, 1); -INFINITY for a <= 0.
 * \sk_rng_cost{three uniforms a candidate (about 1.05 candidates a variate) from 1.5 Philox blocks, each
 * block computed once for its two uniforms; one more uniform when a < 1; a `log`, a `sqrt` and a `cos` a
 * candidate, two `log`s when the squeeze fails}
 */
SK_HOST_DEVICE double sk_rng_log_gamma_f64(uint64_t seed, uint64_t stream_id, uint64_t first, double a) {
  uint64_t next = first;
  const uint64_t end = first + SK_RNG_GAMMA_MAX_UNIFORMS;
  double boost = 0.0, d, c;
  sk_detail_uniform_run run;
  run.seed = seed;
  run.stream_id = stream_id;
  run.block = 0;
  run.have = 0;
  if (!(a > 0.0)) return -INFINITY;
  if (a < 1.0) { /* Gamma(a) = Gamma(a + 1) U^(1/a); 1 - u keeps log's argument in (0, 1] */
    boost = log(1.0 - sk_detail_uniform_run_at(&run, next++)) / a;
    a += 1.0;
  }
  d = a - 1.0 / 3.0;
  c = 1.0 / sqrt(9.0 * d);
  while (next + 3 <= end) {
    const double u1 = 1.0 - sk_detail_uniform_run_at(&run, next);
    const double u2 = sk_detail_uniform_run_at(&run, next + 1);
    const double u = 1.0 - sk_detail_uniform_run_at(&run, next + 2);
#if defined(__CUDA_ARCH__)
    const double x = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2); /* no argument reduction: cos(2 pi u2) */
#else
    const double x = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
#endif
    double v = 1.0 + c * x;
    next += 3;
    if (v <= 0.0) continue;
    v = v * v * v;
    if (u < 1.0 - 0.0331 * (x * x) * (x * x) || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
      return log(d * v) + boost;
  }
  return log(d) + boost;
}

/**
 * \brief A Gamma(a, 1) variate: exp(sk_rng_log_gamma_f64()). Below about 1e-308 it is 0 (tiny shapes).
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param first the index of the first uniform read (at most SK_RNG_GAMMA_MAX_UNIFORMS are).
 * \param a the shape, > 0 (a <= 0 gives 0).
 * \return G ~ Gamma(a, 1).
 * \sk_rng_cost{sk_rng_log_gamma_f64() and one `exp`}
 */
SK_HOST_DEVICE double sk_rng_gamma_f64(uint64_t seed, uint64_t stream_id, uint64_t first, double a) {
  return exp(sk_rng_log_gamma_f64(seed, stream_id, first, a));
}

/**
 * \brief The `index`-th Exp(1) variate of a stream: -log(1 - sk_rng_uniform_f64(seed, stream_id, index)),
 * in [0, 36.8] (a sum of n of them is a Gamma(n, 1) variate).
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param index position in the stream of doubles.
 * \return E ~ Exp(1).
 * \sk_rng_cost{one block and one `log`}
 */
SK_HOST_DEVICE double sk_rng_exponential_f64(uint64_t seed, uint64_t stream_id, uint64_t index) {
  return -log(1.0 - sk_rng_uniform_f64(seed, stream_id, index));
}

/** @} */

#endif /* SAMPLEKIT_RNG_GAMMA_H */
