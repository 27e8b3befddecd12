/*
 * The whole chain against the exact posterior, and its parts (examples/mixture/src/posterior.h,
 * stats.h, variates.h):
 *
 * - Posterior correctness. On 4 points in one dimension with K = 2, the marginal posterior p(z | x)
 *   over all 2^4 = 16 assignments is computed exactly here, independently of the library (the
 *   Dirichlet-multinomial and the Normal-Inverse-Gamma marginal likelihoods, from the points' values).
 *   Each of R independent replicates starts the chain in the posterior itself (z0 drawn from the exact
 *   p(z | x), the parameters from p(theta | z0) by the library's draw) and runs B sweeps; a correct
 *   sampler leaves the posterior invariant, so the R final assignments are R independent draws from
 *   p(z | x) and Pearson's statistic follows chi-square with 15 degrees of freedom. It must stay below
 *   sk_test_chi2_threshold(15) (false alarm about 1e-7). A sampler built here from the library's parts
 *   with one planted bug, kappa0 dropped from the posterior precision of the means (mu | sigma2 ~
 *   N(mean_n, sigma2 / n) instead of sigma2 / (kappa0 + n)), must be rejected by the same test. The
 *   composition without the bug is first checked to give the chain's own sweeps bit for bit, so the
 *   two samplers differ only by the bug.
 * - The statistics: the same integers with 1 and 3 threads and from a sum in reverse order, and within
 *   the grid's rounding of long-double sums.
 * - The variates: Kolmogorov-Smirnov tests (critical value for a false alarm of about 1e-7) of the
 *   normal and of Gamma(3) and Gamma(1/2) (whose distribution functions are closed forms), the moments
 *   of Gamma(0.05) and Gamma(10^4), and determinism.
 * - The posterior's formulas on a hand-computed case.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "data.h"
#include "mixture.h"
#include "posterior.h"
#include "samplekit/rng.h"
#include "sk_test.h"
#include "stats.h"
#include "variates.h"
#include "zstep.h"
#include "zstep_cpu.h"

static const double kLogTwoPi = 1.8378770664093454835606594728112;

/* ---- the exact posterior over assignments ---------------------------------------------------------- */

enum { kN = 4, kK = 2, kStates = 16 };

/* log of the NIG marginal likelihood of the points of x (n of them, one dimension) under the prior,
   m0 = 0: Gamma(a_n) / Gamma(a0) b0^a0 / b_n^a_n sqrt(kappa0 / kappa_n) (2 pi)^(-n/2). */
static double log_marginal(const sk_mix_prior *p, const double *x, const int *members, int n) {
  double sum = 0.0, dev = 0.0;
  for (int i = 0; i < n; ++i) sum += x[members[i]];
  const double mean = n > 0 ? sum / n : 0.0;
  for (int i = 0; i < n; ++i) dev += (x[members[i]] - mean) * (x[members[i]] - mean);
  const double kn = p->kappa0 + n, an = p->a0 + 0.5 * n;
  const double bn = p->b0 + 0.5 * dev + (n > 0 ? p->kappa0 * n * mean * mean / (2.0 * kn) : 0.0);
  return lgamma(an) - lgamma(p->a0) + p->a0 * log(p->b0) - an * log(bn) + 0.5 * log(p->kappa0 / kn) -
         0.5 * n * kLogTwoPi;
}

/* p(z | x) for every z (state s: point i in component (s >> i) & 1). */
static void exact_posterior(const sk_mix_prior *p, const double *x, double *post) {
  double top = -INFINITY, sum = 0.0;
  for (int s = 0; s < kStates; ++s) {
    int members[kK][kN], n[kK] = {0, 0};
    for (int i = 0; i < kN; ++i) {
      const int k = (s >> i) & 1;
      members[k][n[k]++] = i;
    }
    double lp = lgamma(kK * p->alpha) - lgamma(kN + kK * p->alpha);
    for (int k = 0; k < kK; ++k)
      lp += lgamma(n[k] + p->alpha) - lgamma(p->alpha) + log_marginal(p, x, members[k], n[k]);
    post[s] = lp;
    top = lp > top ? lp : top;
  }
  for (int s = 0; s < kStates; ++s) sum += post[s] = exp(post[s] - top);
  for (int s = 0; s < kStates; ++s) post[s] /= sum;
}

static int state_of(const int32_t *z) {
  int s = 0;
  for (int i = 0; i < kN; ++i) s |= (z[i] & 1) << i;
  return s;
}

/* ---- samplers ---------------------------------------------------------------------------------------- */

/* The chain's sweep from the library's parts, as chain.c composes them, with the bug when asked. */
static int parts_sweep(sk_mix_chain *c, int bug, sk_mix_nig *post, sk_ex_error *err) {
  const uint64_t sweep = c->sweeps + 1;
  if (sk_mix_zstep_cpu(c->data->x, 0, c->data->n, &c->table, c->seed, sweep, 1, c->z, err) != 0 ||
      sk_mix_stats_cpu(c->data, c->z, 1, &c->stats, err) != 0)
    return 1;
  sk_mix_posterior_all(&c->prior, &c->stats, post);
  if (bug)
    for (int32_t k = 0; k < c->k; ++k)
      for (int32_t j = 0; j < c->data->d; ++j)
        if (c->stats.count[k] > 0) post[(size_t)k * (size_t)c->data->d + (size_t)j].kappa = (double)c->stats.count[k];
  sk_mix_draw_params(c->prior.alpha, c->stats.count, post, c->seed, sweep, 1, &c->params);
  sk_mix_ztable_set(&c->table, &c->params);
  c->sweeps = sweep;
  return 0;
}

/* A chain started in the posterior: z0 ~ p(z | x) exactly, theta0 ~ p(theta | z0) (sweep 0's stream). */
static int start_in_posterior(sk_mix_chain *c, const double *post, sk_mix_nig *nig, sk_ex_error *err) {
  const double u = sk_rng_uniform_f64(c->seed, 1000003, 0);
  double run = 0.0;
  int s = kStates - 1;
  for (int t = 0; t < kStates; ++t) {
    run += post[t];
    if (run > u) {
      s = t;
      break;
    }
  }
  for (int i = 0; i < kN; ++i) c->z[i] = (s >> i) & 1;
  if (sk_mix_stats_cpu(c->data, c->z, 1, &c->stats, err) != 0) return 1;
  sk_mix_posterior_all(&c->prior, &c->stats, nig);
  sk_mix_draw_params(c->prior.alpha, c->stats.count, nig, c->seed, 0, 1, &c->params);
  sk_mix_ztable_set(&c->table, &c->params);
  return 0;
}

/* Pearson's statistic of R replicates of B sweeps against the exact posterior. */
static double run_replicates(const sk_mix_data *data, const sk_mix_prior *prior, const double *post, int bug,
                             long replicates, int sweeps) {
  double counts[kStates] = {0}, expected[kStates];
  sk_mix_chain_options o;
  sk_ex_error err;
  sk_mix_nig nig[kK];
  memset(&o, 0, sizeof o);
  o.threads = 1;
  for (long r = 0; r < replicates; ++r) {
    sk_mix_chain *c = NULL;
    int ok = sk_mix_chain_create(data, prior, kK, 0x5eed0000u + (uint64_t)r, &o, &c, &err) == 0 &&
             start_in_posterior(c, post, nig, &err) == 0;
    for (int b = 0; ok && b < sweeps; ++b) ok = (bug ? parts_sweep(c, 1, nig, &err) : sk_mix_chain_sweep(c, &err)) == 0;
    if (!SK_CHECK(ok, "replicate %ld: %s", r, err.message)) {
      sk_mix_chain_destroy(c);
      return -1.0;
    }
    counts[state_of(c->z)] += 1.0;
    sk_mix_chain_destroy(c);
  }
  for (int s = 0; s < kStates; ++s) expected[s] = (double)replicates * post[s];
  return sk_test_chi2(counts, expected, kStates);
}

/* The parts without the bug give the chain's sweeps bit for bit (so the buggy sampler differs only by it). */
static void check_parts_match(const sk_mix_data *data, const sk_mix_prior *prior) {
  sk_mix_chain_options o;
  sk_ex_error err;
  sk_mix_nig nig[kK];
  sk_mix_chain *a = NULL, *b = NULL;
  memset(&o, 0, sizeof o);
  o.threads = 1;
  sk_test_context("the parts' sweep against the chain's");
  if (!SK_CHECK(sk_mix_chain_create(data, prior, kK, 77, &o, &a, &err) == 0 &&
                    sk_mix_chain_create(data, prior, kK, 77, &o, &b, &err) == 0,
                "%s", err.message))
    return;
  for (int s = 0; s < 20; ++s) {
    sk_mix_chain_sweep(a, &err);
    parts_sweep(b, 0, nig, &err);
    if (!SK_CHECK(memcmp(a->params.mu, b->params.mu, sizeof(double) * kK) == 0 &&
                      memcmp(a->params.sigma2, b->params.sigma2, sizeof(double) * kK) == 0 &&
                      memcmp(a->params.log_pi, b->params.log_pi, sizeof(double) * kK) == 0 &&
                      memcmp(a->z, b->z, sizeof(int32_t) * kN) == 0,
                  "sweep %d differs", s + 1))
      break;
  }
  sk_mix_chain_destroy(a);
  sk_mix_chain_destroy(b);
}

static void test_posterior(int quick) {
  const double raw[kN] = {-1.2, -0.7, 0.9, 1.6};
  sk_mix_data data;
  sk_ex_error err;
  sk_mix_prior prior = {1.0, 3.0, 2.0, 0.5}; /* kappa0 = 3, comparable to n: the bug shows */
  double x[kN], post[kStates];
  sk_test_context("posterior test data");
  if (!SK_CHECK(sk_mix_data_from_f64(raw, kN, 1, &data, &err) == 0, "%s", err.message)) return;
  for (int i = 0; i < kN; ++i) x[i] = (double)data.x[i]; /* the chain sees the standardized floats */
  exact_posterior(&prior, x, post);
  check_parts_match(&data, &prior);
  const long replicates = quick ? 2000 : 60000;
  const int sweeps = 10;
  const double threshold = sk_test_chi2_threshold(kStates - 1);
  const double chi2 = run_replicates(&data, &prior, post, 0, replicates, sweeps);
  const double chi2_bug = run_replicates(&data, &prior, post, 1, replicates, sweeps);
  printf(
      "posterior test (4 points, K = 2, 16 states, %ld replicates of %d sweeps): chi-square %.1f, threshold %.1f; "
      "kappa0 dropped: %.1f (%s)\n",
      replicates, sweeps, chi2, threshold, chi2_bug, chi2_bug > threshold ? "rejected" : "NOT rejected");
  sk_test_context("posterior test");
  SK_CHECK(chi2 >= 0.0 && chi2 < threshold, "the chain's visits: chi-square %.1f >= %.1f", chi2, threshold);
  if (!quick)
    SK_CHECK(chi2_bug > threshold, "planted bug (kappa0 dropped) not detected: chi-square %.1f <= %.1f", chi2_bug,
             threshold);
  sk_mix_data_free(&data);
}

/* ---- statistics ------------------------------------------------------------------------------------ */

static void test_stats(void) {
  const int64_t n = 10007;
  const int32_t d = 5, k = 7;
  uint64_t rng = 31;
  sk_mix_data data;
  sk_ex_error err;
  sk_mix_stats a, b;
  float *raw = (float *)malloc(sizeof(float) * (size_t)n * d);
  int32_t *z = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  for (int64_t i = 0; i < n * d; ++i) raw[i] = 1e3f + (float)i * 1e-3f * (sk_test_rand_unit_f32(&rng) - 0.3f);
  for (int64_t i = 0; i < n; ++i) z[i] = (int32_t)(sk_test_rand_u32(&rng) % (uint32_t)k);
  sk_test_context("statistics");
  sk_mix_data_from_f32(raw, n, d, &data, &err);
  sk_mix_stats_alloc(&a, k, d, n, &err);
  sk_mix_stats_alloc(&b, k, d, n, &err);
  SK_CHECK(sk_mix_stats_cpu(&data, z, 1, &a, &err) == 0 && sk_mix_stats_cpu(&data, z, 3, &b, &err) == 0, "%s",
           err.message);
  SK_CHECK(memcmp(a.count, b.count, sizeof(int64_t) * k) == 0 && memcmp(a.sx, b.sx, sizeof(int64_t) * k * d) == 0 &&
               memcmp(a.sxx, b.sxx, sizeof(int64_t) * k * d) == 0,
           "1 and 3 threads differ");
  /* In reverse order, term by term: the same integers. Against long double: within the grid. */
  const double s1 = ldexp(1.0, a.f1), s2 = ldexp(1.0, a.f2);
  int same = 1, close = 1;
  for (int32_t c = 0; c < k; ++c)
    for (int32_t j = 0; j < d; ++j) {
      int64_t sx = 0, sxx = 0, cnt = 0;
      long double lx = 0.0L, lxx = 0.0L;
      for (int64_t i = n - 1; i >= 0; --i) {
        if (z[i] != c) continue;
        const float v = data.x[i * d + j];
        sx += sk_mix_fixed_x(v, s1), sxx += sk_mix_fixed_xx(v, s2), ++cnt;
        lx += v, lxx += (long double)v * v;
      }
      const size_t at = (size_t)c * d + (size_t)j;
      same &= sx == a.sx[at] && sxx == a.sxx[at] && cnt == a.count[c];
      double gx, gxx;
      sk_mix_stats_get(&a, c, j, &gx, &gxx);
      close &= fabsl((long double)gx - lx) <= (long double)cnt * ldexp(1.0, -a.f1) &&
               fabsl((long double)gxx - lxx) <= (long double)cnt * ldexp(1.0, -a.f2) + 1e-12L * fabsl(lxx);
    }
  SK_CHECK(same, "the sums in reverse order differ");
  SK_CHECK(close, "the sums are not within the grid of long-double sums");
  z[17] = k;
  SK_CHECK(sk_mix_stats_cpu(&data, z, 1, &a, &err) != 0 && strstr(err.message, "point 17") != NULL,
           "a component out of range must be an error naming the point (got '%s')", err.message);
  free(raw);
  free(z);
  sk_mix_data_free(&data);
  sk_mix_stats_free(&a);
  sk_mix_stats_free(&b);
}

/* ---- variates ---------------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* sqrt(n) times the Kolmogorov-Smirnov distance of the sorted sample v from cdf. */
static double ks(double *v, long n, double (*cdf)(double)) {
  double worst = 0.0;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  for (long i = 0; i < n; ++i) {
    const double f = cdf(v[i]), lo = fabs(f - (double)i / n), hi = fabs((double)(i + 1) / n - f);
    worst = lo > worst ? lo : worst;
    worst = hi > worst ? hi : worst;
  }
  return worst * sqrt((double)n);
}

static double normal_cdf(double x) { return 0.5 * (1.0 + erf(x / sqrt(2.0))); }
static double gamma3_cdf(double x) { return x <= 0.0 ? 0.0 : 1.0 - exp(-x) * (1.0 + x + 0.5 * x * x); }
static double gamma_half_cdf(double x) { return x <= 0.0 ? 0.0 : erf(sqrt(x)); }

static void test_variates(int quick) {
  const long n = quick ? 20000 : 200000;
  const double critical = 2.9; /* sqrt(-ln(1e-7 / 2) / 2): a false alarm of about 1e-7 */
  double *v = (double *)malloc(sizeof(double) * (size_t)n);
  const double shapes[2] = {0.05, 1e4};
  for (long i = 0; i < n; ++i) v[i] = sk_mix_normal(5, 17, (uint64_t)i);
  sk_test_context("normal variates");
  double k = ks(v, n, normal_cdf);
  SK_CHECK(k < critical, "Kolmogorov-Smirnov %.3f >= %.2f", k, critical);
  for (long i = 0; i < n; ++i) v[i] = exp(sk_mix_log_gamma(3.0, 5, 18, (uint64_t)i));
  sk_test_context("Gamma(3) variates (Marsaglia-Tsang)");
  const double k3 = ks(v, n, gamma3_cdf);
  SK_CHECK(k3 < critical, "Kolmogorov-Smirnov %.3f >= %.2f", k3, critical);
  for (long i = 0; i < n; ++i) v[i] = exp(sk_mix_log_gamma(0.5, 5, 19, (uint64_t)i));
  sk_test_context("Gamma(1/2) variates (boosted below shape 1)");
  const double kh = ks(v, n, gamma_half_cdf);
  SK_CHECK(kh < critical, "Kolmogorov-Smirnov %.3f >= %.2f", kh, critical);
  printf(
      "variates: Kolmogorov-Smirnov sqrt(n) D of N(0,1) %.3f, Gamma(3) %.3f, Gamma(1/2) %.3f (critical %.2f, n = "
      "%ld)\n",
      k, k3, kh, critical, n);
  for (int s = 0; s < 2; ++s) {
    double sum = 0.0, sq = 0.0;
    for (long i = 0; i < n; ++i) {
      const double g = exp(sk_mix_log_gamma(shapes[s], 6, 20 + (uint64_t)s, (uint64_t)i));
      sum += g, sq += g * g;
    }
    const double mean = sum / n, var = sq / n - mean * mean, a = shapes[s];
    /* The sample mean's standard error is sqrt(a / n); the variance's is about a sqrt((2 + 6 / a) / n). */
    sk_test_context("Gamma(%g) moments", a);
    SK_CHECK(fabs(mean - a) < 6.0 * sqrt(a / n), "mean %.6g, want %g", mean, a);
    SK_CHECK(fabs(var - a) < 6.0 * a * sqrt((2.0 + 6.0 / a) / n), "variance %.6g, want %g", var, a);
  }
  sk_test_context("variates are pure functions of (seed, stream, draw)");
  SK_CHECK(sk_mix_log_gamma(2.5, 1, 2, 3) == sk_mix_log_gamma(2.5, 1, 2, 3) &&
               sk_mix_log_gamma(2.5, 1, 2, 3) != sk_mix_log_gamma(2.5, 1, 2, 4) &&
               sk_mix_normal(1, 2, 3) == sk_mix_normal(1, 2, 3),
           "repeated draws differ, or neighbouring draws agree");
  free(v);
}

static void test_nig_formulas(void) {
  const sk_mix_prior p = {1.0, 0.5, 2.0, 0.3};
  sk_mix_nig q;
  sk_test_context("NIG posterior formulas");
  sk_mix_posterior_nig(&p, 0, 0.0, 0.0, &q);
  SK_CHECK(q.kappa == 0.5 && q.mean == 0.0 && q.a == 2.0 && q.b == 0.3, "n = 0 must give the prior");
  /* Points 1, 2, 4: n = 3, sum 7, sum of squares 21, mean 7/3, squared deviations 14/3. */
  sk_mix_posterior_nig(&p, 3, 7.0, 21.0, &q);
  const double kn = 3.5, bn = 0.3 + 0.5 * 14.0 / 3.0 + 0.5 * 3.0 * (49.0 / 9.0) / (2.0 * kn);
  SK_CHECK(q.kappa == kn && fabs(q.mean - 7.0 / kn) < 1e-15 && q.a == 3.5 && fabs(q.b - bn) < 1e-14,
           "kappa %g mean %g a %g b %.17g, want %g %g %g %.17g", q.kappa, q.mean, q.a, q.b, kn, 7.0 / kn, 3.5, bn);
}

int main(int argc, char **argv) {
  const int quick = (argc > 1 && strcmp(argv[1], "--quick") == 0) || sk_test_under_sanitizer();
  test_nig_formulas();
  test_stats();
  test_variates(quick);
  test_posterior(quick);
  return sk_test_finish();
}
