/* The fold-in draw and score of metrics.h written again without fold_in.c's tables, for the tests that
 * check the held-out log-likelihood against a reference (test_metrics, test_priors): the three parts of
 * (a_k + n_dk) phi_wk, each laid out by a scan over k; and the uncollapsed sweep, whose draw has the same
 * three parts with the sweep's shared Gamma draws y_k in place of a_k and the document's X_k in place of
 * n_dk. */
#ifndef SK_LDA_TEST_FOLD_H
#define SK_LDA_TEST_FOLD_H

#include <stdint.h>

#include "model.h"
#include "samplekit/rng_gamma.h"

/* A document topic's weight in the y part: its count n_k, or x_k when x is given (the document's topics are
   still those with n_k > 0). */
static inline double lda_test_fold_doc_weight(const int64_t *n, const double *x, int32_t k) {
  return x != NULL ? x[k] : (double)n[k];
}

/* The parts' totals for word row b (its K counts n_wk) and the document counts n (weights x, or NULL for
   n itself); c_k = 1 / (n_k + V beta), a_k the priors (or the shared draws). */
static inline void lda_test_fold_parts_x(const int64_t *n, const double *x, const int64_t *b, const double *c,
                                         const double *a, double beta, int32_t K, double *S, double *Q, double *Y) {
  *S = 0.0, *Q = 0.0, *Y = 0.0;
  for (int32_t k = 0; k < K; ++k) *S += a[k] * (beta * c[k]);
  for (int32_t k = 0; k < K; ++k)
    if (b[k] > 0) *Q += a[k] * ((double)b[k] * c[k]);
  for (int32_t k = 0; k < K; ++k)
    if (n[k] > 0) *Y += lda_test_fold_doc_weight(n, x, k) * (((double)b[k] + beta) * c[k]);
}

static inline void lda_test_fold_parts(const int64_t *n, const int64_t *b, const double *c, const double *a,
                                       double beta, int32_t K, double *S, double *Q, double *Y) {
  lda_test_fold_parts_x(n, NULL, b, c, a, beta, K, S, Q, Y);
}

/* W = (S + Q) + Y: a held-out token's score before the division by n_d + A. */
static inline double lda_test_fold_weight(const int64_t *n, const int64_t *b, const double *c, const double *a,
                                          double beta, int32_t K) {
  double S, Q, Y;
  lda_test_fold_parts(n, b, c, a, beta, K, &S, &Q, &Y);
  return (S + Q) + Y;
}

/* One draw with uniform u, the token already out of the counts n (weights x, or NULL for n itself). */
static inline int32_t lda_test_fold_draw_x(const int64_t *n, const double *x, const int64_t *b, const double *c,
                                           const double *a, double beta, int32_t K, double u) {
  double S, Q, Y;
  lda_test_fold_parts_x(n, x, b, c, a, beta, K, &S, &Q, &Y);
  const double ux = u * ((S + Q) + Y);
  double run = 0.0;
  if (ux < S) {
    for (int32_t k = 0; k < K; ++k)
      if ((run += a[k] * (beta * c[k])) > ux) return k;
    return K - 1;
  }
  const double x1 = ux - S;
  int32_t last_q = -1, last_y = -1;
  for (int32_t k = 0; k < K; ++k)
    if (b[k] > 0) {
      last_q = k;
      if ((run += a[k] * ((double)b[k] * c[k])) > x1 && x1 < Q) return k;
    }
  const double x2 = x1 - Q;
  run = 0.0;
  for (int32_t k = 0; k < K; ++k)
    if (n[k] > 0) {
      last_y = k;
      if ((run += lda_test_fold_doc_weight(n, x, k) * (((double)b[k] + beta) * c[k])) > x2) return k;
    }
  return last_y >= 0 ? last_y : (last_q >= 0 ? last_q : K - 1);
}

static inline int32_t lda_test_fold_draw(const int64_t *n, const int64_t *b, const double *c, const double *a,
                                         double beta, int32_t K, double u) {
  return lda_test_fold_draw_x(n, NULL, b, c, a, beta, K, u);
}

/* Uncollapsed fold-in sweep `it` of one document (metrics.h): words[0 .. n) with global indices first ..,
   topics z (in and out), nvk the V x K counts, a_k the priors; cnt, x (K each) and fx (K) scratch. */
static inline void lda_test_fold_uncollapsed(const int64_t *nvk, const double *c, const double *a, double beta,
                                             int32_t K, uint64_t seed, int it, const int32_t *words, int64_t n,
                                             int64_t first, int32_t *z, int64_t *cnt, double *x, uint64_t *fx,
                                             double *y) {
  for (int32_t k = 0; k < K; ++k) {
    y[k] = sk_rng_gamma_f64(seed, SK_LDA_STREAM_FOLDIN_SHARED((uint64_t)it), (uint64_t)k * SK_RNG_GAMMA_MAX_UNIFORMS,
                            a[k]);
    cnt[k] = 0;
    fx[k] = 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    ++cnt[z[i]];
    fx[z[i]] += sk_lda_detail_fold_exp_fixed(
        sk_rng_exponential_f64(seed, SK_LDA_STREAM_FOLDIN_THETA((uint64_t)it), (uint64_t)(first + i)));
  }
  for (int32_t k = 0; k < K; ++k) x[k] = sk_lda_detail_fold_fixed_value(fx[k]);
  for (int64_t i = 0; i < n; ++i)
    z[i] = lda_test_fold_draw_x(cnt, x, nvk + (size_t)words[i] * (size_t)K, c, y, beta, K,
                                sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN((uint64_t)it), (uint64_t)(first + i)));
}

#endif /* SK_LDA_TEST_FOLD_H */
