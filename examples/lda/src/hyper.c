/* Learning LDA's priors from count histograms (hyper.h): Minka's fixed points, in a fixed order. */
#include "hyper.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sk_lda_hyper_stats_init(sk_lda_hyper_stats *s, int32_t num_topics, int32_t num_words, sk_ex_error *err) {
  if (s == NULL) return sk_ex_fail(err, "prior histograms: a pointer is NULL");
  memset(s, 0, sizeof *s);
  if (num_topics < 1 || num_topics > SK_LDA_MAX_TOPICS || num_words < 1)
    return sk_ex_fail(err, "prior histograms: invalid sizes K = %d, V = %d", (int)num_topics, (int)num_words);
  s->num_topics = num_topics;
  s->num_words = num_words;
  s->doc_topic = (int32_t *)calloc((size_t)num_topics * SK_LDA_HYPER_DENSE, sizeof *s->doc_topic);
  s->word_topic = (int64_t *)calloc(SK_LDA_HYPER_DENSE, sizeof *s->word_topic);
  s->topic_total = (int64_t *)calloc((size_t)num_topics, sizeof *s->topic_total);
  if (s->doc_topic == NULL || s->word_topic == NULL || s->topic_total == NULL) {
    sk_lda_hyper_stats_free(s);
    return sk_ex_fail(err, "prior histograms: out of memory (K = %d)", (int)num_topics);
  }
  return 0;
}

void sk_lda_hyper_stats_free(sk_lda_hyper_stats *s) {
  if (s == NULL) return;
  free(s->doc_topic);
  free(s->doc_topic_tail);
  free(s->doc_length);
  free(s->word_topic);
  free(s->word_topic_tail);
  free(s->topic_total);
  memset(s, 0, sizeof *s);
}

static int sk_lda_hyper_tail_cmp(const void *pa, const void *pb) {
  const sk_lda_hyper_tail *a = (const sk_lda_hyper_tail *)pa, *b = (const sk_lda_hyper_tail *)pb;
  if (a->topic != b->topic) return a->topic < b->topic ? -1 : 1;
  return (a->value > b->value) - (a->value < b->value);
}

int64_t sk_lda_hyper_tail_canonical(sk_lda_hyper_tail *tail, int64_t n) {
  if (tail == NULL || n <= 0) return 0;
  qsort(tail, (size_t)n, sizeof *tail, sk_lda_hyper_tail_cmp);
  int64_t out = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (out > 0 && tail[out - 1].topic == tail[i].topic && tail[out - 1].value == tail[i].value)
      tail[out - 1].count += tail[i].count;
    else
      tail[out++] = tail[i];
  }
  return out;
}

int sk_lda_hyper_stats_set_lengths(sk_lda_hyper_stats *s, const sk_lda_corpus *corpus, sk_ex_error *err) {
  if (s == NULL || corpus == NULL || corpus->doc_offsets == NULL)
    return sk_ex_fail(err, "prior histograms: a pointer is NULL");
  const int32_t D = corpus->num_docs;
  sk_lda_hyper_tail *t = (sk_lda_hyper_tail *)calloc((size_t)(D > 0 ? D : 1), sizeof *t);
  if (t == NULL) return sk_ex_fail(err, "prior histograms: out of memory for %d document lengths", (int)D);
  int64_t n = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t len = corpus->doc_offsets[d + 1] - corpus->doc_offsets[d];
    if (len > 0) t[n].value = len, t[n].count = 1, ++n; /* an empty document adds psi(A) - psi(A) = 0 */
  }
  free(s->doc_length);
  s->doc_length = t;
  s->num_doc_length = sk_lda_hyper_tail_canonical(t, n);
  return 0;
}

int sk_lda_hyper_stats_from_model(const sk_lda_model *m, sk_lda_hyper_stats *out, sk_ex_error *err) {
  if (out != NULL) memset(out, 0, sizeof *out);
  if (m == NULL || m->z == NULL || out == NULL) return sk_ex_fail(err, "prior histograms: model NULL or not initialised");
  const int32_t K = m->num_topics, V = m->num_words;
  if (sk_lda_hyper_stats_init(out, K, V, err) != 0) return 1;
  /* The tails first counted, then filled: each listed count holds SK_LDA_HYPER_DENSE tokens or more. */
  int64_t doc_tail = 0, word_tail = 0;
  const int64_t pairs = m->dk_start[m->num_docs];
  for (int32_t d = 0; d < m->num_docs; ++d)
    for (int64_t i = m->dk_start[d]; i < m->dk_start[d] + m->dk_nnz[d]; ++i) doc_tail += m->dk_count[i] >= SK_LDA_HYPER_DENSE;
  const size_t VK = (size_t)V * (size_t)K;
  for (size_t i = 0; i < VK; ++i) word_tail += m->n_vk[i] >= SK_LDA_HYPER_DENSE;
  out->doc_topic_tail = (sk_lda_hyper_tail *)calloc((size_t)(doc_tail > 0 ? doc_tail : 1), sizeof(sk_lda_hyper_tail));
  out->word_topic_tail = (sk_lda_hyper_tail *)calloc((size_t)(word_tail > 0 ? word_tail : 1), sizeof(sk_lda_hyper_tail));
  if (out->doc_topic_tail == NULL || out->word_topic_tail == NULL) {
    sk_lda_hyper_stats_free(out);
    return sk_ex_fail(err, "prior histograms: out of memory (%lld of %lld pairs of A listed)", (long long)doc_tail,
                      (long long)pairs);
  }
  for (int32_t d = 0; d < m->num_docs; ++d)
    for (int64_t i = m->dk_start[d]; i < m->dk_start[d] + m->dk_nnz[d]; ++i) {
      const int32_t k = m->dk_topic[i], c = m->dk_count[i];
      if (c < SK_LDA_HYPER_DENSE) {
        ++out->doc_topic[(size_t)k * SK_LDA_HYPER_DENSE + (size_t)c];
      } else {
        sk_lda_hyper_tail *e = out->doc_topic_tail + out->num_doc_topic_tail++;
        e->topic = k, e->value = c, e->count = 1;
      }
    }
  for (size_t i = 0; i < VK; ++i) {
    const int32_t c = m->n_vk[i];
    if (c == 0) continue;
    if (c < SK_LDA_HYPER_DENSE) {
      ++out->word_topic[c];
    } else {
      sk_lda_hyper_tail *e = out->word_topic_tail + out->num_word_topic_tail++;
      e->value = c, e->count = 1;
    }
  }
  memcpy(out->topic_total, m->n_k, (size_t)K * sizeof *out->topic_total);
  out->num_doc_topic_tail = sk_lda_hyper_tail_canonical(out->doc_topic_tail, out->num_doc_topic_tail);
  out->num_word_topic_tail = sk_lda_hyper_tail_canonical(out->word_topic_tail, out->num_word_topic_tail);
  if (sk_lda_hyper_stats_set_lengths(out, m->corpus, err) != 0) {
    sk_lda_hyper_stats_free(out);
    return 1;
  }
  return 0;
}

static int sk_lda_hyper_tails_equal(const sk_lda_hyper_tail *a, int64_t na, const sk_lda_hyper_tail *b, int64_t nb) {
  if (na != nb) return 0;
  for (int64_t i = 0; i < na; ++i)
    if (a[i].topic != b[i].topic || a[i].value != b[i].value || a[i].count != b[i].count) return 0;
  return 1;
}

int sk_lda_hyper_stats_equal(const sk_lda_hyper_stats *a, const sk_lda_hyper_stats *b) {
  if (a == NULL || b == NULL || a->num_topics != b->num_topics || a->num_words != b->num_words) return 0;
  const size_t K = (size_t)a->num_topics;
  return memcmp(a->doc_topic, b->doc_topic, K * SK_LDA_HYPER_DENSE * sizeof *a->doc_topic) == 0 &&
         memcmp(a->word_topic, b->word_topic, SK_LDA_HYPER_DENSE * sizeof *a->word_topic) == 0 &&
         memcmp(a->topic_total, b->topic_total, K * sizeof *a->topic_total) == 0 &&
         sk_lda_hyper_tails_equal(a->doc_topic_tail, a->num_doc_topic_tail, b->doc_topic_tail, b->num_doc_topic_tail) &&
         sk_lda_hyper_tails_equal(a->doc_length, a->num_doc_length, b->doc_length, b->num_doc_length) &&
         sk_lda_hyper_tails_equal(a->word_topic_tail, a->num_word_topic_tail, b->word_topic_tail, b->num_word_topic_tail);
}

/* --- digamma ------------------------------------------------------------------------------------------ */

/* sum_j B_2j / (2j y^2j), j = 1 .. 7: the asymptotic series of psi(y) after log y - 1/(2y); the next term is
   below 5e-17 for y >= 10. */
static double sk_lda_hyper_series(double y) {
  const double f = 1.0 / (y * y);
  return f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 - f / 12))))));
}

double sk_lda_hyper_digamma(double x) {
  if (!(x > 0.0) || isinf(x)) return x == INFINITY ? INFINITY : NAN;
  double r = 0.0;
  while (x < 10.0) { /* psi(x) = psi(x + 1) - 1 / x */
    r -= 1.0 / x;
    x += 1.0;
  }
  return r + (log(x) - 0.5 / x - sk_lda_hyper_series(x));
}

/* psi(x + n) - psi(x + SK_LDA_HYPER_DENSE) for n >= SK_LDA_HYPER_DENSE, from the asymptotic series of both
   (their arguments are >= 128) written as one difference, so that nothing cancels when x is large:
   log1p(g / y) + g / (2 y (y + g)) + S(y) - S(y + g), y = x + SK_LDA_HYPER_DENSE, g = n - SK_LDA_HYPER_DENSE. */
static double sk_lda_hyper_tail_gap(double x, int64_t n) {
  const double y = x + (double)SK_LDA_HYPER_DENSE, g = (double)(n - SK_LDA_HYPER_DENSE), y2 = y + g;
  return log1p(g / y) + g / (2.0 * y * y2) + (sk_lda_hyper_series(y) - sk_lda_hyper_series(y2));
}

double sk_lda_hyper_digamma_diff(double x, int64_t n) {
  double walk = 0.0;
  const int64_t dense = n < SK_LDA_HYPER_DENSE ? n : SK_LDA_HYPER_DENSE;
  for (int64_t i = 0; i < dense; ++i) walk += 1.0 / (x + (double)i);
  if (n < SK_LDA_HYPER_DENSE) return walk;
  return walk + sk_lda_hyper_tail_gap(x, n);
}

/* sum over n = 1 .. last of hist[n] (psi(x + n) - psi(x)), the running sum of 1 / (x + i) walked once: each
   term the bits of sk_lda_hyper_digamma_diff(x, n). */
static double sk_lda_hyper_dense_sum(const int32_t *hist32, const int64_t *hist64, int32_t last, double x) {
  double walk = 0.0, total = 0.0;
  for (int32_t n = 1; n <= last; ++n) {
    walk += 1.0 / (x + (double)(n - 1));
    const int64_t h = hist32 != NULL ? (int64_t)hist32[n] : hist64[n];
    if (h != 0) total += (double)h * walk;
  }
  return total;
}

/* sum over a list sorted by value of count (psi(x + value) - psi(x)); each term the bits of
   sk_lda_hyper_digamma_diff(x, value). */
static double sk_lda_hyper_list_sum(const sk_lda_hyper_tail *t, int64_t n, double x) {
  double walk = 0.0, total = 0.0;
  int64_t i = 0;
  for (int64_t e = 0; e < n; ++e) {
    const int64_t value = t[e].value;
    const int64_t upto = value < SK_LDA_HYPER_DENSE ? value : SK_LDA_HYPER_DENSE;
    for (; i < upto; ++i) walk += 1.0 / (x + (double)i);
    total += (double)t[e].count * (value < SK_LDA_HYPER_DENSE ? walk : walk + sk_lda_hyper_tail_gap(x, value));
  }
  return total;
}

/* The largest n < SK_LDA_HYPER_DENSE with hist[n] != 0, or 0. */
static int32_t sk_lda_hyper_last(const int32_t *hist32, const int64_t *hist64) {
  for (int32_t n = SK_LDA_HYPER_DENSE - 1; n > 0; --n)
    if ((hist32 != NULL ? (int64_t)hist32[n] : hist64[n]) != 0) return n;
  return 0;
}

/* The next value of a fixed point: x * num / den, floored; fails on a value that is not finite. */
static int sk_lda_hyper_step(double x, double num, double den, double *out, const char *what, sk_ex_error *err) {
  double v = x * num / den;
  if (!isfinite(v)) return sk_ex_fail(err, "prior optimisation: %s became %g", what, v);
  if (v < SK_LDA_HYPER_MIN_PRIOR) v = SK_LDA_HYPER_MIN_PRIOR;
  *out = v;
  return 0;
}

int sk_lda_hyper_learn_alpha(const sk_lda_hyper_stats *s, double *alpha_k, int iterations, int *done,
                             sk_ex_error *err) {
  if (done != NULL) *done = 0;
  if (s == NULL || alpha_k == NULL || s->doc_topic == NULL) return sk_ex_fail(err, "learn alpha: a pointer is NULL");
  if (iterations < 1) return sk_ex_fail(err, "learn alpha: %d iterations", iterations);
  const int32_t K = s->num_topics;
  if (sk_lda_detail_check_alpha_k(alpha_k, K, "learn alpha", err) != 0) return 1;
  if (s->num_doc_length == 0) return 0; /* no document with a token: nothing to learn from */
  double *a = (double *)malloc((size_t)K * sizeof *a), *next = (double *)malloc((size_t)K * sizeof *next);
  int32_t *last = (int32_t *)malloc((size_t)K * sizeof *last);
  int64_t *tail_at = (int64_t *)malloc(((size_t)K + 1) * sizeof *tail_at);
  int rc = 0;
  if (a == NULL || next == NULL || last == NULL || tail_at == NULL) {
    rc = sk_ex_fail(err, "learn alpha: out of memory (K = %d)", (int)K);
    goto out;
  }
  memcpy(a, alpha_k, (size_t)K * sizeof *a);
  int64_t e = 0;
  for (int32_t k = 0; k <= K; ++k) { /* topic k's tail is [tail_at[k], tail_at[k + 1]) */
    while (e < s->num_doc_topic_tail && s->doc_topic_tail[e].topic < k) ++e;
    tail_at[k] = e;
    if (k < K) last[k] = sk_lda_hyper_last(s->doc_topic + (size_t)k * SK_LDA_HYPER_DENSE, NULL);
  }
  for (int it = 0; it < iterations && rc == 0; ++it) {
    double sum = 0.0, moved = 0.0;
    for (int32_t k = 0; k < K; ++k) sum += a[k];
    const double den = sk_lda_hyper_list_sum(s->doc_length, s->num_doc_length, sum);
    for (int32_t k = 0; k < K && rc == 0; ++k) {
      const double num =
          sk_lda_hyper_dense_sum(s->doc_topic + (size_t)k * SK_LDA_HYPER_DENSE, NULL, last[k], a[k]) +
          sk_lda_hyper_list_sum(s->doc_topic_tail + tail_at[k], tail_at[k + 1] - tail_at[k], a[k]);
      rc = sk_lda_hyper_step(a[k], num, den, &next[k], "an alpha_k", err);
      const double rel = fabs(next[k] - a[k]) / a[k];
      if (rel > moved) moved = rel;
    }
    if (rc != 0) break;
    memcpy(a, next, (size_t)K * sizeof *a);
    if (done != NULL) *done = it + 1;
    if (moved <= SK_LDA_HYPER_TOLERANCE) break;
  }
  if (rc == 0) memcpy(alpha_k, a, (size_t)K * sizeof *alpha_k);
out:
  free(a);
  free(next);
  free(last);
  free(tail_at);
  return rc;
}

int sk_lda_hyper_learn_beta(const sk_lda_hyper_stats *s, double *beta, int iterations, int *done, sk_ex_error *err) {
  if (done != NULL) *done = 0;
  if (s == NULL || beta == NULL || s->word_topic == NULL || s->topic_total == NULL)
    return sk_ex_fail(err, "learn beta: a pointer is NULL");
  if (iterations < 1) return sk_ex_fail(err, "learn beta: %d iterations", iterations);
  if (!(*beta > 0.0) || !isfinite(*beta)) return sk_ex_fail(err, "learn beta: beta %g must be finite and positive", *beta);
  const int32_t K = s->num_topics;
  int64_t tokens = 0;
  for (int32_t k = 0; k < K; ++k) tokens += s->topic_total[k];
  if (tokens == 0) return 0; /* no token: nothing to learn from */
  const int32_t last = sk_lda_hyper_last(NULL, s->word_topic);
  const double V = (double)s->num_words;
  double b = *beta;
  for (int it = 0; it < iterations; ++it) {
    const double vb = V * b;
    const double num = sk_lda_hyper_dense_sum(NULL, s->word_topic, last, b) +
                       sk_lda_hyper_list_sum(s->word_topic_tail, s->num_word_topic_tail, b);
    double den = 0.0;
    for (int32_t k = 0; k < K; ++k)
      if (s->topic_total[k] > 0) den += sk_lda_hyper_digamma_diff(vb, s->topic_total[k]);
    double v = 0.0;
    if (sk_lda_hyper_step(b, num, V * den, &v, "beta", err) != 0) return 1;
    const double rel = fabs(v - b) / b;
    b = v;
    if (done != NULL) *done = it + 1;
    if (rel <= SK_LDA_HYPER_TOLERANCE) break;
  }
  *beta = b;
  return 0;
}

int sk_lda_hyper_learn(const sk_lda_model *m, const sk_lda_hyper_stats *s, int iterations, double *alpha_k,
                       double *beta, sk_ex_error *err) {
  if (m == NULL || s == NULL || alpha_k == NULL || beta == NULL) return sk_ex_fail(err, "learn priors: a pointer is NULL");
  if (s->num_topics != m->num_topics || s->num_words != m->num_words)
    return sk_ex_fail(err, "learn priors: histograms of K = %d, V = %d for a model of K = %d, V = %d",
                      (int)s->num_topics, (int)s->num_words, (int)m->num_topics, (int)m->num_words);
  for (int32_t k = 0; k < m->num_topics; ++k) alpha_k[k] = m->alpha_k != NULL ? m->alpha_k[k] : m->alpha;
  double b = m->beta;
  if (sk_lda_hyper_learn_alpha(s, alpha_k, iterations, NULL, err) != 0 ||
      sk_lda_hyper_learn_beta(s, &b, iterations, NULL, err) != 0)
    return 1;
  *beta = b;
  return 0;
}

int sk_lda_hyper_optimize_model(sk_lda_model *m, int iterations, sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "optimise priors: model NULL or not initialised");
  sk_lda_hyper_stats s;
  if (sk_lda_hyper_stats_from_model(m, &s, err) != 0) return 1;
  double *alpha_k = (double *)malloc((size_t)m->num_topics * sizeof *alpha_k), beta = 0.0;
  int rc = alpha_k == NULL ? sk_ex_fail(err, "optimise priors: out of memory (K = %d)", (int)m->num_topics)
                           : sk_lda_hyper_learn(m, &s, iterations, alpha_k, &beta, err);
  if (rc == 0) rc = sk_lda_model_set_priors(m, alpha_k, beta, err);
  free(alpha_k);
  sk_lda_hyper_stats_free(&s);
  return rc;
}
