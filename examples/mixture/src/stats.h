/**
 * \file stats.h
 * \brief Exact sufficient statistics: each term rounded once to a fixed-point grid, then summed as
 * 64-bit integers, so that the sums do not depend on the order of the additions.
 *
 * Term of point x in dimension j: `X = round(x 2^f1)` and `XX = round(x^2 2^f2)` (x^2 exact in double,
 * the scaling exact, round half to even: `llrint` on the host, `__double2ll_rn` on the device, the same
 * integer). With f1 = f2 = 61 - bits(N) (bits(N) = floor(log2 N) + 1) no sum can overflow on
 * standardized data: there sum_n x_nj^2 = N < 2^bits(N) for every j, so every component's sum of
 * squares stays below 2^61 in grid units, and by Cauchy-Schwarz so does its sum of |x| (at most N).
 * At N = 10^7 the grid is 2^-37 = 7e-12 of a standard deviation. A float x below half a grid step
 * rounds to 0 (its square too); every larger term is rounded to within half a step.
 */
#ifndef SK_MIX_STATS_H
#define SK_MIX_STATS_H

#include <math.h>
#include <stdint.h>

#include "mixture.h"
#include "zstep.h" /* SK_MIX_HD */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief The fixed-point scales for N points: f1 = f2 = 61 - bits(N).
 * \param n points, >= 1.
 * \param f1 receives the scale of the sums of x.
 * \param f2 receives the scale of the sums of x^2.
 */
void sk_mix_fixed_scales(int64_t n, int *f1, int *f2);

/** \brief x on the grid of 2^-f1: round(x * scale1). \param x the value. \param scale1 2^f1. \return the integer. */
SK_MIX_HD int64_t sk_mix_fixed_x(float x, double scale1) {
#if defined(__CUDA_ARCH__)
  return (int64_t)__double2ll_rn(__dmul_rn((double)x, scale1));
#else
  return (int64_t)llrint((double)x * scale1);
#endif
}

/** \brief x^2 on the grid of 2^-f2: round(x^2 * scale2). \param x the value. \param scale2 2^f2. \return the integer.
 */
SK_MIX_HD int64_t sk_mix_fixed_xx(float x, double scale2) {
#if defined(__CUDA_ARCH__)
  return (int64_t)__double2ll_rn(__dmul_rn(__dmul_rn((double)x, (double)x), scale2));
#else
  return (int64_t)llrint((double)x * (double)x * scale2);
#endif
}

/**
 * \brief The statistics of assignment z on the CPU (OpenMP over points, per-thread integer partials).
 * \param data the standardized data.
 * \param z N components, each in [0, K).
 * \param threads OpenMP threads (<= 0: all); the result does not depend on it.
 * \param out zeroed and filled (allocated for K = out->k and D = data->d, with f1 and f2 of N).
 * \param err a component out of range, or out of memory.
 * \return 0 on success.
 */
int sk_mix_stats_cpu(const sk_mix_data *data, const int32_t *z, int threads, sk_mix_stats *out, sk_ex_error *err);

/**
 * \brief Converts sums of the grid back to doubles: count n, sum of x, sum of x^2 of component k in
 * dimension j (each rounded once from its integer).
 * \param s the statistics.
 * \param k the component.
 * \param j the dimension.
 * \param sx receives the sum of x.
 * \param sxx receives the sum of x^2.
 */
void sk_mix_stats_get(const sk_mix_stats *s, int32_t k, int32_t j, double *sx, double *sxx);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_STATS_H */
