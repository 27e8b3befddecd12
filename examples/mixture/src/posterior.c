/* The parameter step (posterior.h). */
#include "posterior.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "variates.h"
#include "zstep.h" /* SK_MIX_STREAM */

void sk_mix_posterior_nig(const sk_mix_prior *p, int64_t n, double sx, double sxx, sk_mix_nig *out) {
  const double nd = (double)n;
  out->kappa = p->kappa0 + nd;
  out->mean = sx / out->kappa;
  out->a = p->a0 + 0.5 * nd;
  out->b = p->b0;
  if (n > 0) {
    /* The spread about the sample mean: exact sums make this cancellation-safe to double precision;
       rounding can still leave it a hair below 0 for identical points. */
    const double centred = sxx - sx * sx / nd;
    out->b += 0.5 * (centred > 0.0 ? centred : 0.0) + p->kappa0 * sx * sx / (2.0 * nd * out->kappa);
  }
}

void sk_mix_posterior_all(const sk_mix_prior *p, const sk_mix_stats *st, sk_mix_nig *post) {
  int32_t k, j;
  for (k = 0; k < st->k; ++k)
    for (j = 0; j < st->d; ++j) {
      double sx, sxx;
      sk_mix_stats_get(st, k, j, &sx, &sxx);
      sk_mix_posterior_nig(p, st->count[k], sx, sxx, &post[(size_t)k * (size_t)st->d + (size_t)j]);
    }
}

void sk_mix_draw_params(double alpha, const int64_t *count, const sk_mix_nig *post, uint64_t seed, uint64_t sweep,
                        int threads, sk_mix_params *out) {
  const int32_t K = out->k, D = out->d;
  const uint64_t stream = SK_MIX_STREAM(sweep, SK_MIX_ROLE_PARAMS), kd = (uint64_t)K * (uint64_t)D;
  int32_t k;
  threads = sk_mix_threads(threads);
  /* A thread per 128 (component, dimension) pairs at most (a pair costs a Gamma and a normal variate,
     about 0.2 us), so that a small step does not wake every core: with all 16 cores of an H200 host
     taken while the CUDA runtime's threads also ran, the step's median was 4.7 ms instead of 0.03 at K
     = 64, D = 8 now and then (a barrier waiting for a scheduler time slice), in none of 6 runs with 4. */
  if ((uint64_t)threads > (kd + 127u) / 128u) threads = (int)((kd + 127u) / 128u);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (k = 0; k < K; ++k) {
    int32_t j;
    out->log_pi[k] = sk_mix_log_gamma(alpha + (double)count[k], seed, stream, (uint64_t)k);
    for (j = 0; j < D; ++j) {
      const size_t at = (size_t)k * (size_t)D + (size_t)j;
      const sk_mix_nig *q = &post[at];
      const double s2 = exp(log(q->b) - sk_mix_log_gamma(q->a, seed, stream, (uint64_t)K + at));
      out->sigma2[at] = s2;
      out->mu[at] = q->mean + sqrt(s2 / q->kappa) * sk_mix_normal(seed, stream, (uint64_t)K + kd + at);
    }
  }
  /* Normalise the weights in logs, in component order (one fixed order of additions). */
  double top = out->log_pi[0], sum = 0.0;
  for (k = 1; k < K; ++k) top = out->log_pi[k] > top ? out->log_pi[k] : top;
  for (k = 0; k < K; ++k) sum += exp(out->log_pi[k] - top);
  const double log_total = top + log(sum);
  for (k = 0; k < K; ++k) out->log_pi[k] -= log_total;
}

int sk_mix_param_step(const sk_mix_prior *p, const sk_mix_stats *st, uint64_t seed, uint64_t sweep, int threads,
                      sk_mix_params *out, sk_ex_error *err) {
  sk_mix_nig *post = (sk_mix_nig *)malloc(sizeof(sk_mix_nig) * (size_t)st->k * (size_t)st->d);
  if (post == NULL)
    return sk_ex_fail(err, "parameter step: out of memory for %d x %d posteriors", (int)st->k, (int)st->d);
  sk_mix_posterior_all(p, st, post);
  sk_mix_draw_params(p->alpha, st->count, post, seed, sweep, threads, out);
  free(post);
  return 0;
}
