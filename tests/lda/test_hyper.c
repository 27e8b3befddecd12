/*
 * The prior optimiser (examples/lda/src/hyper.h) against independent computations:
 *  - the digamma function against its closed forms (psi(1), psi(1/2), psi(n) = H_{n-1} - gamma) and its
 *    recurrence, and psi(x + n) - psi(x) against the direct sum of 1 / (x + i) on both sides of
 *    SK_LDA_HYPER_DENSE;
 *  - the histograms of a model against a brute-force count of its rows, B and lengths, with counts on both
 *    sides of SK_LDA_HYPER_DENSE (the tails);
 *  - one fixed-point iteration of alpha_k and of beta against the update computed per document and per
 *    word-topic pair from the raw counts (no histogram);
 *  - the converged fixed points: the gradient of the Dirichlet-multinomial log-likelihood is zero there,
 *    in its digamma form and by central differences of its lgamma form, and the likelihood is lower at
 *    every perturbed point (a maximum);
 *  - a topic no document uses goes to the floor, the arguments are checked, and the whole optimisation of
 *    a model (sk_lda_hyper_optimize_model()) equals sk_lda_sampler_optimize_priors() on a CPU sampler, bit
 *    for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyper.h"
#include "lda_test_corpus.h"
#include "model.h"
#include "sampler_table.h"
#include "sk_test.h"

static const double kEulerGamma = 0.57721566490153286061;

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)); }

static void test_digamma(void) {
  sk_test_context("digamma");
  SK_CHECK(close_rel(sk_lda_hyper_digamma(1.0), -kEulerGamma, 1e-15), "psi(1) = %.17g", sk_lda_hyper_digamma(1.0));
  SK_CHECK(close_rel(sk_lda_hyper_digamma(0.5), -kEulerGamma - 2.0 * log(2.0), 1e-15), "psi(1/2) = %.17g",
           sk_lda_hyper_digamma(0.5));
  double h = 0.0;
  for (int n = 2; n <= 200; ++n) {
    h += 1.0 / (n - 1);
    SK_CHECK(close_rel(sk_lda_hyper_digamma((double)n), h - kEulerGamma, 2e-15), "psi(%d) = %.17g, H - gamma = %.17g",
             n, sk_lda_hyper_digamma((double)n), h - kEulerGamma);
  }
  const double xs[] = {1e-10, 1e-4, 0.3, 2.5, 9.99, 10.0, 57.25, 1e4, 3e8};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
    /* the recurrence; the difference of two values near log x loses about log(x) x ulps to cancellation */
    const double x = xs[i], tol = 4e-16 * (1.0 + x * fabs(log(x) + 1.0)) + 1e-15;
    const double lhs = sk_lda_hyper_digamma(x + 1.0) - sk_lda_hyper_digamma(x);
    SK_CHECK(close_rel(lhs, 1.0 / x, tol), "psi(%g + 1) - psi(%g) = %.17g, 1/x = %.17g", x, x, lhs, 1.0 / x);
  }
  SK_CHECK(isnan(sk_lda_hyper_digamma(0.0)) && isnan(sk_lda_hyper_digamma(-1.0)) && isnan(sk_lda_hyper_digamma(NAN)),
           "psi outside (0, inf) is not NaN");
  /* psi(x + n) - psi(x): the walk below the dense limit is the direct sum itself; above it the digamma
     difference must agree with the direct sum */
  const int64_t ns[] = {0, 1, 2, SK_LDA_HYPER_DENSE - 1, SK_LDA_HYPER_DENSE, SK_LDA_HYPER_DENSE + 1, 1000, 54321};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j) {
      double direct = 0.0;
      for (int64_t q = 0; q < ns[j]; ++q) direct += 1.0 / (xs[i] + (double)q);
      const double got = sk_lda_hyper_digamma_diff(xs[i], ns[j]);
      if (ns[j] < SK_LDA_HYPER_DENSE)
        SK_CHECK(memcmp(&got, &direct, sizeof got) == 0, "diff(%g, %lld) = %.17g, sum %.17g", xs[i], (long long)ns[j],
                 got, direct);
      else
        SK_CHECK(close_rel(got, direct, 1e-13), "diff(%g, %lld) = %.17g, sum %.17g", xs[i], (long long)ns[j], got, direct);
    }
}

/* ---- a model whose documents prefer topics (overdispersed: the likelihood has a finite maximum) ------- */

typedef struct fixture {
  sk_lda_corpus corpus;
  sk_lda_model m;
} fixture;

/* D documents of 1 to 60 tokens over V words, document d's tokens mostly in topic d % K (and its words in
   that topic's block), one document of 400 tokens all in topic 1 (n_dk past the dense limit) whose
   word 0 repeats (n_vk past it too), and an empty document; with `unused_topic` no token takes topic K - 1. */
static int make_fixture(fixture *f, int32_t K, int32_t V, int32_t D, int unused_topic, uint64_t seed) {
  uint64_t s = seed;
  const int32_t used = unused_topic ? K - 1 : K;
  int32_t *len = (int32_t *)malloc((size_t)D * sizeof *len);
  int64_t T = 0;
  for (int32_t d = 0; d < D; ++d) T += len[d] = d == 0 ? 0 : d == 1 ? 400 : 1 + (int32_t)(sk_test_rand_u32(&s) % 60u);
  int32_t *w = (int32_t *)malloc((size_t)T * sizeof *w), *z = (int32_t *)malloc((size_t)T * sizeof *z);
  const int32_t block = V / used > 0 ? V / used : 1;
  for (int32_t d = 0, t = 0; d < D; ++d)
    for (int32_t i = 0; i < len[d]; ++i, ++t) {
      const int32_t main_topic = d == 1 ? 1 % used : d % used;
      const uint32_t r = sk_test_rand_u32(&s) % 100u;
      z[t] = d == 1 || r < 70 ? main_topic : (int32_t)(sk_test_rand_u32(&s) % (uint32_t)used);
      w[t] = d == 1 && i % 2 == 0 ? 0 : (z[t] * block + (int32_t)(sk_test_rand_u32(&s) % (uint32_t)block)) % V;
    }
  f->corpus = make_corpus(V, D, len, w);
  sk_ex_error err;
  const int ok = SK_CHECK(sk_lda_model_init(&f->m, &f->corpus, K, 0.5, 0.05, seed, &err) == 0 &&
                              sk_lda_model_set_z(&f->m, z, &err) == 0,
                          "fixture: %s", err.message);
  free(len);
  free(w);
  free(z);
  return ok;
}

static void free_fixture(fixture *f) {
  sk_lda_model_free(&f->m);
  sk_lda_corpus_free(&f->corpus);
}

static int64_t doc_length(const sk_lda_model *m, int32_t d) {
  return m->corpus->doc_offsets[d + 1] - m->corpus->doc_offsets[d];
}

/* ---- histograms ------------------------------------------------------------------------------------- */

static void test_stats(void) {
  fixture f;
  sk_ex_error err;
  sk_test_context("histograms against a brute-force count");
  if (!make_fixture(&f, 7, 50, 120, 0, 11)) return;
  const sk_lda_model *m = &f.m;
  const int32_t K = m->num_topics, V = m->num_words;
  sk_lda_hyper_stats s, again;
  if (!SK_CHECK(sk_lda_hyper_stats_from_model(m, &s, &err) == 0 && sk_lda_hyper_stats_from_model(m, &again, &err) == 0,
                "stats: %s", err.message)) {
    free_fixture(&f);
    return;
  }
  SK_CHECK(sk_lda_hyper_stats_equal(&s, &again), "two builds differ");
  int64_t dense_bad = 0, tail_docs = 0, tail_seen = 0, word_tail = 0, word_tail_seen = 0;
  for (int32_t k = 0; k < K; ++k)
    for (int64_t n = 1; n < SK_LDA_HYPER_DENSE; ++n) {
      int64_t want = 0;
      for (int32_t d = 0; d < m->num_docs; ++d) want += sk_lda_model_doc_count(m, d, k) == n;
      dense_bad += s.doc_topic[(size_t)k * SK_LDA_HYPER_DENSE + (size_t)n] != want;
    }
  for (int32_t d = 0; d < m->num_docs; ++d)
    for (int32_t k = 0; k < K; ++k) tail_docs += sk_lda_model_doc_count(m, d, k) >= SK_LDA_HYPER_DENSE;
  for (int64_t i = 0; i < s.num_doc_topic_tail; ++i) {
    const sk_lda_hyper_tail *t = s.doc_topic_tail + i;
    int64_t want = 0;
    for (int32_t d = 0; d < m->num_docs; ++d) want += sk_lda_model_doc_count(m, d, t->topic) == t->value;
    SK_CHECK(t->value >= SK_LDA_HYPER_DENSE && t->count == want, "tail (%d, %lld) counts %lld, expected %lld",
             (int)t->topic, (long long)t->value, (long long)t->count, (long long)want);
    SK_CHECK(i == 0 || t[-1].topic < t->topic || (t[-1].topic == t->topic && t[-1].value < t->value), "tail not sorted");
    tail_seen += t->count;
  }
  SK_CHECK(dense_bad == 0, "%lld dense bins of A differ", (long long)dense_bad);
  SK_CHECK(tail_docs > 0 && tail_seen == tail_docs, "A's tail holds %lld pairs, expected %lld (> 0)", (long long)tail_seen,
           (long long)tail_docs);
  for (int64_t c = 1; c < SK_LDA_HYPER_DENSE; ++c) {
    int64_t want = 0;
    for (size_t i = 0; i < (size_t)V * (size_t)K; ++i) want += m->n_vk[i] == c;
    SK_CHECK(s.word_topic[c] == want, "B's bin %lld = %lld, expected %lld", (long long)c, (long long)s.word_topic[c],
             (long long)want);
  }
  for (size_t i = 0; i < (size_t)V * (size_t)K; ++i) word_tail += m->n_vk[i] >= SK_LDA_HYPER_DENSE;
  for (int64_t i = 0; i < s.num_word_topic_tail; ++i) word_tail_seen += s.word_topic_tail[i].count;
  SK_CHECK(word_tail > 0 && word_tail_seen == word_tail, "B's tail holds %lld, expected %lld (> 0)",
           (long long)word_tail_seen, (long long)word_tail);
  int64_t lengths = 0;
  for (int64_t i = 0; i < s.num_doc_length; ++i) {
    int64_t want = 0;
    for (int32_t d = 0; d < m->num_docs; ++d) want += doc_length(m, d) == s.doc_length[i].value;
    SK_CHECK(s.doc_length[i].value > 0 && s.doc_length[i].count == want, "length %lld counts %lld, expected %lld",
             (long long)s.doc_length[i].value, (long long)s.doc_length[i].count, (long long)want);
    lengths += s.doc_length[i].count;
  }
  SK_CHECK(lengths == m->num_docs - 1, "%lld documents in the lengths, expected %d (one is empty)", (long long)lengths,
           (int)m->num_docs - 1);
  SK_CHECK(memcmp(s.topic_total, m->n_k, (size_t)K * sizeof *m->n_k) == 0, "n_k differs");
  sk_lda_hyper_stats_free(&s);
  sk_lda_hyper_stats_free(&again);
  sk_lda_hyper_stats_free(&s); /* twice: zeroed */
  free_fixture(&f);
}

/* ---- the fixed points --------------------------------------------------------------------------------- */

/* One alpha iteration from the raw counts: a_k sum_d D(a_k, n_dk) / sum_d D(A, n_d), D the direct sum. */
static double direct_diff(double x, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += 1.0 / (x + (double)i);
  return s;
}

/* The document part of the log-likelihood, as a function of alpha_k (lgamma form), and its gradient in the
   digamma form, from the raw counts. */
static double doc_ll(const sk_lda_model *m, const double *a) {
  const int32_t K = m->num_topics;
  double A = 0.0, ll = 0.0;
  for (int32_t k = 0; k < K; ++k) A += a[k];
  for (int32_t d = 0; d < m->num_docs; ++d) {
    ll += lgamma(A) - lgamma(A + (double)doc_length(m, d));
    for (int32_t k = 0; k < K; ++k) ll += lgamma((double)sk_lda_model_doc_count(m, d, k) + a[k]) - lgamma(a[k]);
  }
  return ll;
}

static void test_alpha(void) {
  fixture f;
  sk_ex_error err;
  sk_test_context("alpha's fixed point");
  if (!make_fixture(&f, 6, 60, 300, 1, 21)) return;
  const sk_lda_model *m = &f.m;
  const int32_t K = m->num_topics;
  sk_lda_hyper_stats s;
  if (!SK_CHECK(sk_lda_hyper_stats_from_model(m, &s, &err) == 0, "stats: %s", err.message)) {
    free_fixture(&f);
    return;
  }
  double a[8], start[8], want[8];
  for (int32_t k = 0; k < K; ++k) a[k] = start[k] = 0.05 + 0.1 * k;
  /* one iteration against the per-document update */
  double A = 0.0, den = 0.0;
  for (int32_t k = 0; k < K; ++k) A += start[k];
  for (int32_t d = 0; d < m->num_docs; ++d) den += direct_diff(A, doc_length(m, d));
  for (int32_t k = 0; k < K; ++k) {
    double num = 0.0;
    for (int32_t d = 0; d < m->num_docs; ++d) num += direct_diff(start[k], sk_lda_model_doc_count(m, d, k));
    want[k] = fmax(start[k] * num / den, SK_LDA_HYPER_MIN_PRIOR);
  }
  int done = -1;
  SK_CHECK(sk_lda_hyper_learn_alpha(&s, a, 1, &done, &err) == 0 && done == 1, "learn: %s", err.message);
  for (int32_t k = 0; k < K; ++k)
    SK_CHECK(close_rel(a[k], want[k], 1e-12), "topic %d: %.17g after one iteration, %.17g per document", (int)k, a[k],
             want[k]);
  SK_CHECK(a[K - 1] == SK_LDA_HYPER_MIN_PRIOR, "the unused topic's alpha is %g, not the floor", a[K - 1]);
  /* converged: the gradient is zero, the likelihood is at its maximum */
  SK_CHECK(sk_lda_hyper_learn_alpha(&s, a, 20000, &done, &err) == 0, "learn: %s", err.message);
  printf("alpha converged after %d more iterations:", done);
  for (int32_t k = 0; k < K; ++k) printf(" %.6g", a[k]);
  printf("\n");
  SK_CHECK(done < 20000, "no convergence in 20000 iterations");
  A = 0.0;
  for (int32_t k = 0; k < K; ++k) A += a[k];
  double base = 0.0;
  for (int32_t d = 0; d < m->num_docs; ++d) base += direct_diff(A, doc_length(m, d));
  const double ll0 = doc_ll(m, a);
  for (int32_t k = 0; k < K - 1; ++k) { /* the unused topic sits at the floor, a boundary */
    double own = 0.0;
    for (int32_t d = 0; d < m->num_docs; ++d) own += direct_diff(a[k], sk_lda_model_doc_count(m, d, k));
    SK_CHECK(fabs(own - base) <= 1e-9 * base, "topic %d: digamma-form gradient %.3g (scale %.3g)", (int)k, own - base, base);
    double up[8], dn[8];
    memcpy(up, a, sizeof up);
    memcpy(dn, a, sizeof dn);
    const double step = 1e-4 * a[k];
    up[k] += step, dn[k] -= step;
    const double g = (doc_ll(m, up) - doc_ll(m, dn)) / (2.0 * step);
    SK_CHECK(fabs(g) <= 1e-5 * base, "topic %d: lgamma-form gradient %.3g (scale %.3g)", (int)k, g, base);
    up[k] = a[k] * 1.05, dn[k] = a[k] * 0.95;
    SK_CHECK(doc_ll(m, up) < ll0 && doc_ll(m, dn) < ll0, "topic %d: not a maximum", (int)k);
  }
  sk_lda_hyper_stats_free(&s);
  free_fixture(&f);
}

/* The word part of the log-likelihood as a function of a symmetric beta (lgamma form). */
static double word_ll(const sk_lda_model *m, double b) {
  const int32_t K = m->num_topics, V = m->num_words;
  double ll = 0.0;
  for (int32_t k = 0; k < K; ++k) {
    ll += lgamma((double)V * b) - lgamma((double)V * b + (double)m->n_k[k]);
    for (int32_t v = 0; v < V; ++v) ll += lgamma((double)m->n_vk[(size_t)v * K + k] + b) - lgamma(b);
  }
  return ll;
}

static void test_beta(void) {
  fixture f;
  sk_ex_error err;
  sk_test_context("beta's fixed point");
  if (!make_fixture(&f, 5, 80, 200, 0, 31)) return;
  const sk_lda_model *m = &f.m;
  const int32_t K = m->num_topics, V = m->num_words;
  sk_lda_hyper_stats s;
  if (!SK_CHECK(sk_lda_hyper_stats_from_model(m, &s, &err) == 0, "stats: %s", err.message)) {
    free_fixture(&f);
    return;
  }
  const double b0 = 0.3;
  double num = 0.0, den = 0.0, b = b0;
  for (size_t i = 0; i < (size_t)V * (size_t)K; ++i) num += direct_diff(b0, m->n_vk[i]);
  for (int32_t k = 0; k < K; ++k) den += direct_diff((double)V * b0, m->n_k[k]);
  const double want = b0 * num / ((double)V * den);
  int done = -1;
  SK_CHECK(sk_lda_hyper_learn_beta(&s, &b, 1, &done, &err) == 0 && done == 1, "learn: %s", err.message);
  SK_CHECK(close_rel(b, want, 1e-12), "beta %.17g after one iteration, %.17g per pair", b, want);
  SK_CHECK(sk_lda_hyper_learn_beta(&s, &b, 20000, &done, &err) == 0 && done < 20000, "learn: %s (%d iterations)",
           err.message, done);
  printf("beta converged to %.6g after %d more iterations\n", b, done);
  num = den = 0.0;
  for (size_t i = 0; i < (size_t)V * (size_t)K; ++i) num += direct_diff(b, m->n_vk[i]);
  for (int32_t k = 0; k < K; ++k) den += direct_diff((double)V * b, m->n_k[k]);
  SK_CHECK(fabs(num - (double)V * den) <= 1e-9 * num, "digamma-form gradient %.3g (scale %.3g)", num - (double)V * den,
           num);
  const double step = 1e-4 * b, g = (word_ll(m, b + step) - word_ll(m, b - step)) / (2.0 * step);
  SK_CHECK(fabs(g) <= 1e-5 * num, "lgamma-form gradient %.3g (scale %.3g)", g, num);
  SK_CHECK(word_ll(m, 1.05 * b) < word_ll(m, b) && word_ll(m, 0.95 * b) < word_ll(m, b), "not a maximum");
  sk_lda_hyper_stats_free(&s);
  free_fixture(&f);
}

/* ---- the whole optimisation, the seam, the checks ------------------------------------------------------ */

static int never_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  (void)s, (void)iteration;
  return sk_ex_fail(err, "not a sampler that sweeps");
}

static void test_optimize(void) {
  fixture f, g;
  sk_ex_error err;
  sk_test_context("optimise a model, and through the sampler seam");
  if (!make_fixture(&f, 6, 40, 150, 0, 41)) return;
  if (!make_fixture(&g, 6, 40, 150, 0, 41)) {
    free_fixture(&f);
    return;
  }
  const int32_t K = f.m.num_topics;
  SK_CHECK(f.m.alpha_k == NULL, "a new model has per-topic priors");
  SK_CHECK(sk_lda_hyper_optimize_model(&f.m, SK_LDA_HYPER_DEFAULT_ITERATIONS, &err) == 0, "optimise: %s", err.message);
  SK_CHECK(f.m.alpha_k != NULL && f.m.beta != 0.05 && f.m.alpha == 0.5, "the model's priors were not set as documented");
  const sk_lda_device cpu = {.kind = SK_LDA_DEVICE_CPU, .threads = 2};
  for (int kind = SK_LDA_SAMPLER_ESCA; kind <= SK_LDA_SAMPLER_CGS; ++kind) {
    fixture h;
    if (!make_fixture(&h, 6, 40, 150, 0, 41)) continue;
    sk_lda_sampler *s = NULL;
    if (SK_CHECK(sk_lda_sampler_create(kind, &h.m, &cpu, &s, &err) == 0, "create: %s", err.message)) {
      SK_CHECK(sk_lda_sampler_priors_supported(s, &err) == 0, "a CPU sampler refuses priors: %s", err.message);
      SK_CHECK(sk_lda_sampler_optimize_priors(s, 0, &err) != 0, "0 iterations accepted");
      SK_CHECK(sk_lda_sampler_optimize_priors(s, SK_LDA_HYPER_DEFAULT_ITERATIONS, &err) == 0, "optimise: %s", err.message);
      SK_CHECK(h.m.alpha_k != NULL && memcmp(h.m.alpha_k, f.m.alpha_k, (size_t)K * sizeof *f.m.alpha_k) == 0 &&
                   memcmp(&h.m.beta, &f.m.beta, sizeof f.m.beta) == 0,
               "%s: the seam's priors differ from the model's", sk_lda_sampler_kind_name(kind));
      SK_CHECK(sk_lda_sampler_sweep(s, 1, &err) == 0, "sweep with learnt priors: %s", err.message);
      SK_CHECK(sk_lda_sampler_set_priors(s, NULL, 0.05, &err) == 0 && h.m.alpha_k == NULL && h.m.beta == 0.05,
               "back to symmetric: %s", err.message);
      const double bad[6] = {1, 1, 0, 1, 1, 1};
      SK_CHECK(sk_lda_sampler_set_priors(s, bad, 0.05, &err) != 0 && strstr(err.message, "topic 2") != NULL &&
                   h.m.alpha_k == NULL,
               "alpha_k = 0 accepted (%s)", err.message);
      SK_CHECK(sk_lda_sampler_set_priors(s, NULL, -1.0, &err) != 0 && h.m.beta == 0.05, "beta < 0 accepted");
    }
    sk_lda_sampler_destroy(s);
    free_fixture(&h);
  }
  /* a sampler that cannot take them (the ranks') is refused, its model untouched */
  static const sk_lda_sampler_ops no_ops = {"fixed", "fixed priors", never_sweep, NULL, NULL, NULL, NULL, NULL,
                                            NULL, NULL, "it trains with fixed priors"};
  sk_lda_sampler *w = NULL;
  if (SK_CHECK(sk_lda_sampler_wrap(&no_ops, NULL, &g.m, &cpu, &w, &err) == 0, "wrap: %s", err.message)) {
    SK_CHECK(sk_lda_sampler_priors_supported(w, &err) != 0 && strstr(err.message, "--optimize-every") != NULL &&
                 strstr(err.message, "fixed priors") != NULL,
             "refusal says '%s'", err.message);
    SK_CHECK(sk_lda_sampler_optimize_priors(w, 5, &err) != 0 && g.m.alpha_k == NULL && g.m.beta == 0.05,
             "optimised a sampler that refuses priors");
    SK_CHECK(sk_lda_sampler_set_priors(w, NULL, 0.05, &err) == 0, "the same symmetric priors refused: %s", err.message);
  }
  sk_lda_sampler_destroy(w);
  /* argument checks */
  sk_lda_hyper_stats s;
  double a[6] = {1, 1, 1, 1, 1, 1}, b = 0.1;
  SK_CHECK(sk_lda_hyper_stats_from_model(&g.m, &s, &err) == 0, "stats: %s", err.message);
  SK_CHECK(sk_lda_hyper_learn_alpha(&s, a, 0, NULL, &err) != 0 && sk_lda_hyper_learn_beta(&s, &b, 0, NULL, &err) != 0,
           "0 iterations accepted");
  a[3] = -1.0;
  SK_CHECK(sk_lda_hyper_learn_alpha(&s, a, 3, NULL, &err) != 0 && a[3] == -1.0, "a negative start accepted");
  b = INFINITY;
  SK_CHECK(sk_lda_hyper_learn_beta(&s, &b, 3, NULL, &err) != 0, "an infinite beta accepted");
  SK_CHECK(sk_lda_hyper_learn_alpha(NULL, a, 3, NULL, &err) != 0 && sk_lda_hyper_stats_from_model(NULL, &s, &err) != 0 &&
               sk_lda_sampler_optimize_priors(NULL, 3, &err) != 0,
           "NULL accepted");
  sk_lda_hyper_stats_free(&s);
  SK_CHECK(sk_lda_model_set_priors(&g.m, a, 0.1, &err) != 0 && g.m.alpha_k == NULL, "a negative prior set");
  free_fixture(&f);
  free_fixture(&g);
}

int main(void) {
  test_digamma();
  test_stats();
  test_alpha();
  test_beta();
  test_optimize();
  return sk_test_finish();
}
