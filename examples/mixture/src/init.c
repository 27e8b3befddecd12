/* Greedy k-means++ seeds and the starting parameters (init.h). */
#include "init.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"
#include "zstep.h" /* SK_MIX_STREAM */

typedef struct seeding {
  const float *x; /* the subsample's first point; point m at x + idx[m] * D */
  const int64_t *idx;
  int64_t m;
  int32_t d;
  uint64_t seed, next_uniform;
  int threads;
  double *dist;  /* M: squared distance to the nearest seed so far */
  int32_t *near; /* M: that seed */
  double *trial; /* M: scratch */
} seeding;

static double next_uniform(seeding *s) {
  return sk_rng_uniform_f64(s->seed, SK_MIX_STREAM(0, SK_MIX_ROLE_INIT), s->next_uniform++);
}

static double sq_dist(const float *a, const float *b, int32_t d) {
  double s = 0.0;
  for (int32_t j = 0; j < d; ++j) {
    const double t = (double)a[j] - (double)b[j];
    s += t * t;
  }
  return s;
}

static const float *point(const seeding *s, int64_t m) { return s->x + (size_t)s->idx[m] * (size_t)s->d; }

/* trial[m] = min(dist[m], |x_m - c|^2) for all m (parallel); returns their sum (serial, in order). */
static double potential_with(seeding *s, const float *c) {
  int64_t m;
  double total = 0.0;
#pragma omp parallel for num_threads(s->threads) schedule(static)
  for (m = 0; m < s->m; ++m) {
    const double q = sq_dist(point(s, m), c, s->d);
    s->trial[m] = q < s->dist[m] ? q : s->dist[m];
  }
  for (m = 0; m < s->m; ++m) total += s->trial[m];
  return total;
}

/* The subsample point whose cumulative distance first exceeds u * total (D^2 sampling). */
static int64_t d2_pick(seeding *s, double total) {
  const double target = next_uniform(s) * total;
  double run = 0.0;
  int64_t m;
  if (!(total > 0.0)) return (int64_t)(next_uniform(s) * (double)s->m);
  for (m = 0; m < s->m; ++m) {
    run += s->dist[m];
    if (run > target && s->dist[m] > 0.0) return m;
  }
  /* Rounding left target at or past the sum: the last point with a positive distance. */
  m = s->m - 1;
  while (m > 0 && !(s->dist[m] > 0.0)) --m;
  return m;
}

/* Greedy k-means++: seeds[c] is the subsample index of seed c; dist and near end up for all K seeds. */
static void choose_seeds(seeding *s, int32_t k, int64_t *seeds) {
  const int candidates = 2 + (int)floor(log((double)k));
  int64_t m;
  seeds[0] = (int64_t)(next_uniform(s) * (double)s->m);
  for (m = 0; m < s->m; ++m) {
    s->dist[m] = INFINITY;
    s->near[m] = 0;
  }
  double total = potential_with(s, point(s, seeds[0]));
  memcpy(s->dist, s->trial, sizeof(double) * (size_t)s->m);
  for (int32_t c = 1; c < k; ++c) {
    int64_t best = -1;
    double best_total = INFINITY;
    for (int t = 0; t < candidates; ++t) {
      const int64_t cand = d2_pick(s, total);
      const double pot = potential_with(s, point(s, cand));
      if (pot < best_total) best_total = pot, best = cand;
    }
    seeds[c] = best;
    potential_with(s, point(s, best));
    for (m = 0; m < s->m; ++m)
      if (s->trial[m] < s->dist[m]) s->dist[m] = s->trial[m], s->near[m] = c;
    total = best_total;
  }
}

int sk_mix_init_params(const sk_mix_data *data, const sk_mix_prior *prior, uint64_t seed, int threads,
                       sk_mix_params *out, sk_ex_error *err) {
  const int32_t k = out->k, d = data->d;
  const int64_t want = 16 * (int64_t)k > 10000 ? 16 * (int64_t)k : 10000;
  const int64_t m_count = data->n < want ? data->n : want;
  seeding s;
  memset(&s, 0, sizeof s);
  s.x = data->x;
  s.m = m_count;
  s.d = d;
  s.seed = seed;
  s.threads = sk_mix_threads(threads);
  int64_t *idx = (int64_t *)malloc(sizeof(int64_t) * (size_t)m_count);
  int64_t *seeds = (int64_t *)malloc(sizeof(int64_t) * (size_t)k);
  s.dist = (double *)malloc(sizeof(double) * (size_t)m_count);
  s.trial = (double *)malloc(sizeof(double) * (size_t)m_count);
  s.near = (int32_t *)malloc(sizeof(int32_t) * (size_t)m_count);
  double *sum = (double *)calloc((size_t)k * (size_t)d, sizeof(double));
  double *sq = (double *)calloc((size_t)k * (size_t)d, sizeof(double));
  int64_t *cnt = (int64_t *)calloc((size_t)k, sizeof(int64_t));
  int rc = 0;
  if (idx == NULL || seeds == NULL || s.dist == NULL || s.trial == NULL || s.near == NULL || sum == NULL ||
      sq == NULL || cnt == NULL) {
    rc =
        sk_ex_fail(err, "initialisation: out of memory for %lld points and %d components", (long long)m_count, (int)k);
  } else {
    for (int64_t m = 0; m < m_count; ++m) idx[m] = m * data->n / m_count; /* M <= 16 K: m N fits 64 bits */
    s.idx = idx;
    choose_seeds(&s, k, seeds);
    /* Each point's nearest seed: its cluster's count, mean and spread (serial, in point order). */
    for (int64_t m = 0; m < m_count; ++m) {
      const float *x = point(&s, m);
      const int32_t c = s.near[m];
      cnt[c] += 1;
      for (int32_t j = 0; j < d; ++j) sum[(size_t)c * (size_t)d + (size_t)j] += x[j];
    }
    for (int32_t c = 0; c < k; ++c)
      for (int32_t j = 0; j < d; ++j) {
        const size_t at = (size_t)c * (size_t)d + (size_t)j;
        out->mu[at] = cnt[c] > 0 ? sum[at] / (double)cnt[c] : (double)point(&s, seeds[c])[j];
      }
    for (int64_t m = 0; m < m_count; ++m) {
      const float *x = point(&s, m);
      const int32_t c = s.near[m];
      for (int32_t j = 0; j < d; ++j) {
        const double t = (double)x[j] - out->mu[(size_t)c * (size_t)d + (size_t)j];
        sq[(size_t)c * (size_t)d + (size_t)j] += t * t;
      }
    }
    double norm = 0.0;
    for (int32_t c = 0; c < k; ++c) norm += prior->alpha + (double)cnt[c];
    for (int32_t c = 0; c < k; ++c) {
      out->log_pi[c] = log((prior->alpha + (double)cnt[c]) / norm);
      for (int32_t j = 0; j < d; ++j) {
        const size_t at = (size_t)c * (size_t)d + (size_t)j;
        out->sigma2[at] = (prior->b0 + 0.5 * sq[at]) / (prior->a0 + 0.5 * (double)cnt[c] + 1.0);
      }
    }
  }
  free(idx);
  free(seeds);
  free(s.dist);
  free(s.trial);
  free(s.near);
  free(sum);
  free(sq);
  free(cnt);
  return rc;
}
