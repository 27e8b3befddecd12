/**
 * \file gen.h
 * \brief Planted data: N points from a known Gaussian mixture with diagonal covariances, well separated
 * or overlapping, as a pure function of (N, D, K, separation, seed).
 *
 * Weights: 1 + u_k normalised (u_k uniform in [0, 1): the largest at most twice the smallest). Standard
 * deviations: e^(u - 1/2) per component and dimension, in [0.61, 1.65). Means: in a cube of side 2 L,
 * one at a time, each at least `gap` from every earlier mean (Euclidean), with gap = 20 for well
 * separated data (at least 12 of the widest standard deviations: the components barely touch) and 2.5
 * for overlapping data; L = gap K^(1/D), grown by 10% whenever 1,000 tries find no room. Points: z_n by
 * inverse transform of the weights (uniform n of stream SK_MIX_STREAM(2, SK_MIX_ROLE_GEN)), x_n = mean +
 * sd * normal (draw n D + j of stream SK_MIX_STREAM(0, SK_MIX_ROLE_GEN)). The mixture's own uniforms
 * come from stream SK_MIX_STREAM(1, SK_MIX_ROLE_GEN).
 */
#ifndef SK_MIX_GEN_H
#define SK_MIX_GEN_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief What to generate. */
typedef struct sk_mix_gen_params {
  int64_t n;     /**< points, >= 1 */
  int32_t d;     /**< dimensions, 1 to #SK_MIX_MAX_D */
  int32_t k;     /**< components, 1 to #SK_MIX_MAX_K */
  int overlap;   /**< 0: well separated; 1: overlapping */
  uint64_t seed; /**< seed */
  int threads;   /**< OpenMP threads for the points (<= 0: all); the data does not depend on it */
} sk_mix_gen_params;

/** \brief The planted mixture and assignments, in the data's units. */
typedef struct sk_mix_truth {
  int32_t k;      /**< components */
  int32_t d;      /**< dimensions */
  double *weight; /**< K weights */
  double *mean;   /**< K x D means */
  double *var;    /**< K x D variances */
  int32_t *z;     /**< N components */
} sk_mix_truth;

/**
 * \brief Checks the sizes.
 * \param p what to generate.
 * \param err what is out of range.
 * \return 0 when valid.
 */
int sk_mix_gen_check(const sk_mix_gen_params *p, sk_ex_error *err);

/**
 * \brief Generates the data.
 * \param p what to generate (checked).
 * \param x receives N x D floats (row-major; free()).
 * \param truth receives the planted mixture; free with sk_mix_truth_free().
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_generate(const sk_mix_gen_params *p, float **x, sk_mix_truth *truth, sk_ex_error *err);

/** \brief Frees a truth and zeroes it; NULL is fine. \param t the truth. */
void sk_mix_truth_free(sk_mix_truth *t);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_GEN_H */
