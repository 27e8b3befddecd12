/**
 * \file mixture.h
 * \brief sk-mixture's shared types: errors, limits, the standardized data, the prior, the parameters,
 * the z-step's float tables and the sufficient statistics.
 *
 * The model (README.md has it with the formulas): data x_n in R^D, components k = 1..K with diagonal
 * covariances; pi ~ Dirichlet(alpha, ..., alpha); for every k and dimension j, sigma2_kj ~
 * InvGamma(a0, b0_j) and mu_kj | sigma2_kj ~ N(m0_j, sigma2_kj / kappa0); z_n ~ Categorical(pi) and
 * x_nj | z_n = k ~ N(mu_kj, sigma2_kj).
 *
 * **Standardized units.** The sampler works on x'_nj = (x_nj - mean_j) / scale_j (the data's mean and
 * standard deviation per dimension). With the default priors m0_j = mean_j and b0_j = b0 var_j, this
 * change of variables maps the model onto itself with m0 = 0 and b0_j = b0 (mu' = (mu - mean) / scale,
 * sigma2' = sigma2 / scale^2): the posterior is the same, but the float z-step and the fixed-point
 * statistics see numbers of order one whatever the data's scale and offset. Outputs are converted back.
 *
 * C99; every function that can fail returns 0 on success and non-zero on failure, with `err` (when
 * not NULL) holding one line that says what and where.
 */
#ifndef SK_MIX_MIXTURE_H
#define SK_MIX_MIXTURE_H

#include <stdint.h>

#include "sk_ex_clock.h"
#include "sk_ex_error.h"
#include "sk_ex_main.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Largest number of components: 32 tiles of 32 in the z-step (zstep.h). */
#define SK_MIX_MAX_K 1024
/**
 * \brief Largest number of dimensions: the GPU's butterfly z-step keeps a warp's 32 points in shared
 * memory, 32 D floats (32 KiB at D = 256) inside the 48 KiB a block gets without opting in.
 */
#define SK_MIX_MAX_D 256

/** \brief The data the sampler works on: standardized values and the scale they came from. */
typedef struct sk_mix_data {
  int64_t n;     /**< points N, >= 1 */
  int32_t d;     /**< dimensions D, 1 to #SK_MIX_MAX_D */
  float *x;      /**< N x D row-major: (raw - mean_j) / scale_j, rounded once to float */
  double *mean;  /**< D: the raw data's mean per dimension */
  double *scale; /**< D: its standard deviation (population), or 1 for a constant dimension */
} sk_mix_data;

/** \brief The prior's parameters (see the file's description for the model and the units). */
typedef struct sk_mix_prior {
  double alpha;  /**< symmetric Dirichlet parameter of the weights, > 0 (default 1) */
  double kappa0; /**< prior pseudo-count of the means, > 0 (default 0.01: weak) */
  double a0;     /**< inverse-gamma shape of the variances, > 0 (default 2: the weakest with a finite mean) */
  double b0;     /**< inverse-gamma scale in units of each dimension's variance, > 0 (default 0.1) */
} sk_mix_prior;

/** \brief Fills the defaults: alpha 1, kappa0 0.01, a0 2, b0 0.1 (m0 is the data mean). */
void sk_mix_prior_default(sk_mix_prior *p);

/**
 * \brief Checks that every field is finite and > 0.
 * \param p the prior.
 * \param err why not.
 * \return 0 when valid.
 */
int sk_mix_prior_check(const sk_mix_prior *p, sk_ex_error *err);

/** \brief The parameters of one state of the chain, in standardized units, double precision. */
typedef struct sk_mix_params {
  int32_t k;      /**< components K */
  int32_t d;      /**< dimensions D */
  double *log_pi; /**< K: log weights (log pi_k) */
  double *mu;     /**< K x D: means */
  double *sigma2; /**< K x D: variances, > 0 */
} sk_mix_params;

/**
 * \brief Allocates K x D parameters (zeroed).
 * \param p filled; free with sk_mix_params_free().
 * \param k components.
 * \param d dimensions.
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_params_alloc(sk_mix_params *p, int32_t k, int32_t d, sk_ex_error *err);

/** \brief Frees what sk_mix_params_alloc() allocated and zeroes `p`; NULL is fine. \param p the parameters. */
void sk_mix_params_free(sk_mix_params *p);

/**
 * \brief Copies `src` into `dst` (same K and D).
 * \param dst destination, allocated with the same sizes.
 * \param src source.
 */
void sk_mix_params_copy(sk_mix_params *dst, const sk_mix_params *src);

/**
 * \brief The z-step's input: the parameters rounded once to float, laid out for the GPU.
 *
 * In base 2, the z-step's units: with g = sqrt(log2(e) / 2), for component k and dimension j
 * `s[j * k_pad + k] = g / sigma_kj` and `ms[j * k_pad + k] = g mu_kj / sigma_kj`, and `c[k] = log2(e)
 * (log pi_k - (1/2) sum_j log sigma2_kj)`, each computed in double and rounded once. The base-2
 * log-weight of point x is then `c_k - sum_j t_j^2` with `t_j = x_j s_kj - ms_kj` (one fused
 * multiply-add): log2(e) times the natural one, up to a constant that cancels (zstep.h). Entries for
 * k >= K are 0. The three arrays are one allocation, in that order: `c` points to k_pad (2 D + 1)
 * floats.
 */
typedef struct sk_mix_ztable {
  int32_t k;     /**< components K */
  int32_t d;     /**< dimensions D */
  int32_t k_pad; /**< K rounded up to a multiple of 32 */
  float *c;      /**< k_pad constants */
  float *s;      /**< D x k_pad inverse standard deviations, times g */
  float *ms;     /**< D x k_pad means over standard deviations, times g */
} sk_mix_ztable;

/**
 * \brief Allocates a table for K components and D dimensions (zeroed).
 * \param t filled; free with sk_mix_ztable_free().
 * \param k components, 1 to #SK_MIX_MAX_K.
 * \param d dimensions, 1 to #SK_MIX_MAX_D.
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_ztable_alloc(sk_mix_ztable *t, int32_t k, int32_t d, sk_ex_error *err);

/** \brief Frees a table and zeroes it; NULL is fine. \param t the table. */
void sk_mix_ztable_free(sk_mix_ztable *t);

/**
 * \brief Fills the table from the parameters (same K and D).
 *
 * Variances are clamped to [1e-30, 1e30] first, so that every entry is a finite float.
 * \param t the table.
 * \param p the parameters.
 */
void sk_mix_ztable_set(sk_mix_ztable *t, const sk_mix_params *p);

/**
 * \brief Per-component sufficient statistics, exact: sums of x and x^2 as fixed-point integers.
 *
 * Each term is rounded once to its grid: x to a multiple of 2^-f1, x^2 (exact in double) to a multiple
 * of 2^-f2 (stats.h). The sums are then exact integer sums, so they do not depend on the order in which
 * the points are added: any thread count, any launch shape, CPU or GPU gives the same integers.
 */
typedef struct sk_mix_stats {
  int32_t k;      /**< components K */
  int32_t d;      /**< dimensions D */
  int f1;         /**< sums of x are in units of 2^-f1 */
  int f2;         /**< sums of x^2 are in units of 2^-f2 */
  int64_t *count; /**< K: points per component */
  int64_t *sx;    /**< K x D: sum of x */
  int64_t *sxx;   /**< K x D: sum of x^2 */
} sk_mix_stats;

/**
 * \brief Allocates statistics for K components, D dimensions and N points (zeroed; f1, f2 from N).
 * \param s filled; free with sk_mix_stats_free().
 * \param k components.
 * \param d dimensions.
 * \param n points (sets the fixed-point scales, sk_mix_fixed_scales()).
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_stats_alloc(sk_mix_stats *s, int32_t k, int32_t d, int64_t n, sk_ex_error *err);

/** \brief Frees statistics and zeroes them; NULL is fine. \param s the statistics. */
void sk_mix_stats_free(sk_mix_stats *s);

/** \brief Sets every count and sum to 0. \param s the statistics. */
void sk_mix_stats_zero(sk_mix_stats *s);

/**
 * \brief The OpenMP thread count to use.
 * \param threads requested count; <= 0: omp_get_max_threads().
 * \return the count (1 without OpenMP).
 */
int sk_mix_threads(int threads);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_MIXTURE_H */
