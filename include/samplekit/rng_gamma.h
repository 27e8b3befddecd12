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
 * sk_rng_uniform_f64(seed, stream_id, first + j) for j in [0, SK_RNG_GAMMA_MAX_UNIFORMS) (j = 0, 1, ...
 * for its candidates, the last index for the boost below a = 1) and no others: give each variate its own
 * range of that many indices (variate k at first = k * SK_RNG_GAMMA_MAX_UNIFORMS) and the variates are
 * independent whatever order, thread or device draws them.
 *
 * **Host and device.** Both run the same operations, but `log`, `exp` and `sqrt` of CUDA and of the C
 * library may differ by an ulp or so, and the device takes cos and sin of 2 pi u from `sincospi(2 u)` (no
 * argument reduction; the C library has no sincospi), so a variate drawn on the device agrees with the
 * host's to a few ulps, not bit for bit; a rejection test that falls within those ulps of its bound (never
 * seen; probability about 1e-15 a variate) would take another candidate and give another value.
 *
 * **The method.** Marsaglia and Tsang (ACM TOMS 26(3), 2000) for a >= 1, with Box-Muller normals, both
 * of a pair used (cos for one candidate, sin for the next, four uniforms a pair); for a < 1,
 * Gamma(a + 1) U^(1/a), kept as a logarithm, so that tiny shapes (a = 0.005: the variate is below 1e-300
 * with probability about 0.03) lose nothing to underflow. Acceptance is at least 0.95 a candidate at
 * every shape, so the cap (63 pairs) is reached with probability below 1e-300; the variate is then
 * exp(log(d)), Marsaglia and Tsang's mode, so that the function stays total.
 * @{
 */

/** \brief The most uniforms one sk_rng_log_gamma_f64() call reads: the stride between independent variates. */
#define SK_RNG_GAMMA_MAX_UNIFORMS 256u

/** \cond SK_INTERNAL */
/* The uniforms of a stream read in order, each Philox block (two doubles) computed once: the values of
   sk_rng_uniform_f64() at the same indices. `block` starts at UINT64_MAX, a block no index reaches (an
   index is below 2^64, so its block is below 2^63), so no flag says whether `bits` holds one yet. */
typedef struct sk_detail_uniform_run {
  uint64_t seed, stream_id, block;
  sk_u32x4 bits;
} sk_detail_uniform_run;

SK_HOST_DEVICE double sk_detail_uniform_run_at(sk_detail_uniform_run *r, uint64_t index) {
  if (r->block != (index >> 1)) {
    r->block = index >> 1;
    r->bits = sk_rng_u32x4(r->seed, r->stream_id, r->block);
  }
  return (index & 1u) ? sk_rng_unit_f64(r->bits.z, r->bits.w) : sk_rng_unit_f64(r->bits.x, r->bits.y);
}

/** \endcond */

/**
 * \brief log of a Gamma(a, 1) variate from the uniforms at indices first, first + 1, ... of a stream
 * (at most SK_RNG_GAMMA_MAX_UNIFORMS of them).
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param first the first index of the variate's range of SK_RNG_GAMMA_MAX_UNIFORMS uniforms.
 * \param a the shape, > 0 (a <= 0 or NaN gives -INFINITY: the variate 0).
 * \return log G, G ~ Gamma(a, 1); -INFINITY for a <= 0.
 * \sk_rng_cost{two Philox blocks (four uniforms) a pair of candidates (about 1.05 candidates a variate),
 * each block computed once for its two uniforms; one more block when a < 1; a `log`, a `sqrt` and a
 * `sincospi` a pair, two more `log`s when the squeeze fails}
 */
SK_HOST_DEVICE double sk_rng_log_gamma_f64(uint64_t seed, uint64_t stream_id, uint64_t first, double a) {
  /* Candidates in pairs: uniforms first + 4p and + 4p + 1 give two normals (Box-Muller's cos and sin),
     + 4p + 2 and + 4p + 3 the two acceptance tests. A rejected candidate's retry then costs a cached
     uniform, not another log, sqrt and cos: where one lane of a warp rejects, the warp waits for that
     lane alone (bench/RESULTS.md, bench_rng_gamma). The boost below a = 1 reads the range's last uniform. */
  const unsigned pairs = (SK_RNG_GAMMA_MAX_UNIFORMS - 1u) / 4u;
  double boost = 0.0, d, c;
  unsigned p;
  sk_detail_uniform_run run;
  run.seed = seed;
  run.stream_id = stream_id;
  run.block = UINT64_MAX;
  run.bits.x = run.bits.y = run.bits.z = run.bits.w = 0u; /* never read before the first block */
  if (!(a > 0.0)) return -INFINITY;
  if (a < 1.0) { /* Gamma(a) = Gamma(a + 1) U^(1/a); 1 - u keeps log's argument in (0, 1] */
    boost = log(1.0 - sk_detail_uniform_run_at(&run, first + (SK_RNG_GAMMA_MAX_UNIFORMS - 1u))) / a;
    a += 1.0;
  }
  d = a - 1.0 / 3.0;
  c = 1.0 / sqrt(9.0 * d);
  for (p = 0; p < pairs; ++p) {
    const uint64_t at = first + 4u * (uint64_t)p;
    const double radius = sqrt(-2.0 * log(1.0 - sk_detail_uniform_run_at(&run, at)));
    const double angle = sk_detail_uniform_run_at(&run, at + 1);
    double cos_part, sin_part;
    int h;
#if defined(__CUDA_ARCH__)
    sincospi(2.0 * angle, &sin_part, &cos_part); /* no argument reduction: sin and cos of 2 pi angle */
#else
    sin_part = sin(6.283185307179586476925 * angle);
    cos_part = cos(6.283185307179586476925 * angle);
#endif
    for (h = 0; h < 2; ++h) {
      const double x = radius * (h == 0 ? cos_part : sin_part);
      const double u = 1.0 - sk_detail_uniform_run_at(&run, at + 2 + (uint64_t)h); /* in (0, 1] */
      double v = 1.0 + c * x;
      if (v <= 0.0) continue;
      v = v * v * v;
      if (u < 1.0 - 0.0331 * (x * x) * (x * x) || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
        return log(d * v) + boost;
    }
  }
  return log(d) + boost;
}

/**
 * \brief A Gamma(a, 1) variate: exp(sk_rng_log_gamma_f64()). Below about 1e-308 it is 0 (tiny shapes).
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param first the first index of the variate's range of SK_RNG_GAMMA_MAX_UNIFORMS uniforms.
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
