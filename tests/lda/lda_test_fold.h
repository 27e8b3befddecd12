/* The fold-in draw and score of metrics.h written again without fold_in.c's tables, for the tests that
 * check the held-out log-likelihood against a reference (test_metrics, test_priors): the three parts of
 * (a_k + n_dk) phi_wk, each laid out by a scan over k. */
#ifndef SK_LDA_TEST_FOLD_H
#define SK_LDA_TEST_FOLD_H

#include <stdint.h>

/* The parts' totals for word row b (its K counts n_wk) and the document counts n; c_k = 1 / (n_k + V beta),
   a_k the priors. */
static inline void lda_test_fold_parts(const int64_t *n, const int64_t *b, const double *c, const double *a,
                                       double beta, int32_t K, double *S, double *Q, double *Y) {
  *S = 0.0, *Q = 0.0, *Y = 0.0;
  for (int32_t k = 0; k < K; ++k) *S += a[k] * (beta * c[k]);
  for (int32_t k = 0; k < K; ++k)
    if (b[k] > 0) *Q += a[k] * ((double)b[k] * c[k]);
  for (int32_t k = 0; k < K; ++k)
    if (n[k] > 0) *Y += (double)n[k] * (((double)b[k] + beta) * c[k]);
}

/* W = (S + Q) + Y: a held-out token's score before the division by n_d + A. */
static inline double lda_test_fold_weight(const int64_t *n, const int64_t *b, const double *c, const double *a,
                                          double beta, int32_t K) {
  double S, Q, Y;
  lda_test_fold_parts(n, b, c, a, beta, K, &S, &Q, &Y);
  return (S + Q) + Y;
}

/* One draw with uniform u, the token already out of the counts n. */
static inline int32_t lda_test_fold_draw(const int64_t *n, const int64_t *b, const double *c, const double *a,
                                         double beta, int32_t K, double u) {
  double S, Q, Y;
  lda_test_fold_parts(n, b, c, a, beta, K, &S, &Q, &Y);
  const double x = u * ((S + Q) + Y);
  double run = 0.0;
  if (x < S) {
    for (int32_t k = 0; k < K; ++k)
      if ((run += a[k] * (beta * c[k])) > x) return k;
    return K - 1;
  }
  const double x1 = x - S;
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
      if ((run += (double)n[k] * (((double)b[k] + beta) * c[k])) > x2) return k;
    }
  return last_y >= 0 ? last_y : (last_q >= 0 ? last_q : K - 1);
}

#endif /* SK_LDA_TEST_FOLD_H */
