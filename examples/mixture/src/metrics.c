/* Log densities of a state and the adjusted Rand index (metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"

static const double sk_mix_log_two_pi = 1.8378770664093454835606594728112;

void sk_mix_log_densities(const sk_mix_data *data, const sk_mix_prior *prior, const sk_mix_stats *st,
                          const sk_mix_params *p, double *log_lik, double *log_joint) {
  const int32_t K = p->k, D = p->d;
  double ll = 0.0, lz = 0.0, lpi = lgamma((double)K * prior->alpha) - (double)K * lgamma(prior->alpha);
  double lth = 0.0, log_scales = 0.0;
  for (int32_t j = 0; j < D; ++j) log_scales += log(data->scale[j]);
  for (int32_t k = 0; k < K; ++k) {
    const double n = (double)st->count[k];
    lz += n * p->log_pi[k];
    lpi += (prior->alpha - 1.0) * p->log_pi[k];
    for (int32_t j = 0; j < D; ++j) {
      const size_t at = (size_t)k * (size_t)D + (size_t)j;
      const double mu = p->mu[at], s2 = p->sigma2[at], ls2 = log(s2);
      double sx, sxx;
      sk_mix_stats_get(st, k, j, &sx, &sxx);
      ll += -0.5 * n * (sk_mix_log_two_pi + ls2) - (sxx - 2.0 * mu * sx + n * mu * mu) / (2.0 * s2);
      /* InvGamma(s2 | a0, b0) and N(mu | 0, s2 / kappa0) */
      lth += prior->a0 * log(prior->b0) - lgamma(prior->a0) - (prior->a0 + 1.0) * ls2 - prior->b0 / s2;
      lth += 0.5 * (log(prior->kappa0) - sk_mix_log_two_pi - ls2) - prior->kappa0 * mu * mu / (2.0 * s2);
    }
  }
  ll -= (double)data->n * log_scales;
  lth -= 3.0 * (double)K * log_scales;
  *log_lik = ll;
  *log_joint = ll + lz + lpi + lth;
}

/* n choose 2 as a double. */
static double pairs(double n) { return 0.5 * n * (n - 1.0); }

double sk_mix_ari(const int32_t *a, const int32_t *b, int64_t n, int32_t ka, int32_t kb) {
  int64_t *table = (int64_t *)calloc((size_t)ka * (size_t)kb, sizeof(int64_t));
  int64_t *ra = (int64_t *)calloc((size_t)ka, sizeof(int64_t)), *rb = (int64_t *)calloc((size_t)kb, sizeof(int64_t));
  double result = NAN;
  if (table != NULL && ra != NULL && rb != NULL) {
    int ok = 1;
    for (int64_t i = 0; i < n && ok; ++i) {
      ok = a[i] >= 0 && a[i] < ka && b[i] >= 0 && b[i] < kb;
      if (ok) table[(size_t)a[i] * (size_t)kb + (size_t)b[i]] += 1, ra[a[i]] += 1, rb[b[i]] += 1;
    }
    if (ok) {
      double index = 0.0, sa = 0.0, sb = 0.0;
      for (size_t c = 0; c < (size_t)ka * (size_t)kb; ++c) index += pairs((double)table[c]);
      for (int32_t c = 0; c < ka; ++c) sa += pairs((double)ra[c]);
      for (int32_t c = 0; c < kb; ++c) sb += pairs((double)rb[c]);
      const double total = pairs((double)n), expected = total > 0.0 ? sa * sb / total : 0.0;
      const double max_index = 0.5 * (sa + sb);
      result = max_index - expected != 0.0 ? (index - expected) / (max_index - expected) : 1.0;
    }
  }
  free(table);
  free(ra);
  free(rb);
  return result;
}
