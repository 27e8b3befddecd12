/*
 * test_gen: the synthetic corpus generator (examples/lda/src/gen.h).
 * Determinism (and the same bits for 1, 2, 3 and 8 threads), sizes and lengths, the documented stream
 * layout, the Dirichlet draws' moments, the planted structure (tokens of topic k follow phi_k, topics of
 * document d follow theta_d: chi-square), Zipf-shaped frequencies, the UCI and planted files (parsed back
 * here, independently of the project's reader), and parameter errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <samplekit/rng.h>

#include "gen.h"
#include "sk_test.h"

static sk_lda_gen_params small_params(void) {
  sk_lda_gen_params p;
  sk_lda_gen_params_default(&p);
  p.num_docs = 300;
  p.num_words = 200;
  p.num_topics = 5;
  p.mean_doc_length = 40.0;
  p.doc_length_cv = 0.7;
  p.alpha = 0.2;
  p.beta = 0.05;
  p.topic_support = 0.3;
  p.seed = 12345;
  return p;
}

/* Pearson statistic with the cells of expected count < 5 pooled into one cell; adds its degrees of
   freedom to *dof. Cells with expected 0 must be observed 0 (checked by the caller). */
static double chi2_pooled(const double *obs, const double *expd, int n, int *dof) {
  double x = 0.0, po = 0.0, pe = 0.0;
  int cells = 0, i;
  for (i = 0; i < n; ++i) {
    if (expd[i] >= 5.0) {
      x += (obs[i] - expd[i]) * (obs[i] - expd[i]) / expd[i];
      ++cells;
    } else {
      po += obs[i];
      pe += expd[i];
    }
  }
  if (pe > 0.0) {
    x += (po - pe) * (po - pe) / pe;
    ++cells;
  }
  *dof += cells > 0 ? cells - 1 : 0;
  return x;
}

static void test_validation(void) {
  sk_lda_gen_params p;
  sk_lda_corpus c;
  sk_ex_error err;
  float *phi = (float *)&p; /* must be reset to NULL on failure */
  int i;
  struct {
    const char *what;
    int field;
    double value;
  } cases[] = {{"D = 0", 0, 0}, {"D < 0", 0, -5}, {"V = 0", 1, 0}, {"K = 0", 2, 0},
               {"mean 0.5", 3, 0.5}, {"mean 0", 3, 0}, {"mean NaN", 3, NAN}, {"mean 2^31", 3, 2147483648.0},
               {"cv < 0", 4, -0.1}, {"cv inf", 4, INFINITY}, {"alpha 0", 5, 0}, {"alpha < 0", 5, -1},
               {"alpha NaN", 5, NAN}, {"beta 0", 6, 0}, {"beta < 0", 6, -0.01}, {"beta inf", 6, INFINITY},
               {"zipf < 0", 7, -1}, {"support 0", 8, 0}, {"support > 1", 8, 1.5}, {"support NaN", 8, NAN}};
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    int rc;
    p = small_params();
    switch (cases[i].field) {
      case 0: p.num_docs = (int32_t)cases[i].value; break;
      case 1: p.num_words = (int32_t)cases[i].value; break;
      case 2: p.num_topics = (int32_t)cases[i].value; break;
      case 3: p.mean_doc_length = cases[i].value; break;
      case 4: p.doc_length_cv = cases[i].value; break;
      case 5: p.alpha = cases[i].value; break;
      case 6: p.beta = cases[i].value; break;
      case 7: p.zipf_exponent = cases[i].value; break;
      default: p.topic_support = cases[i].value; break;
    }
    sk_test_context("invalid %s", cases[i].what);
    err.message[0] = '\0';
    memset(&c, 0xab, sizeof c);
    phi = (float *)&p;
    rc = sk_lda_generate(&p, &c, &phi, NULL, NULL, &err);
    SK_CHECK(rc != 0, "accepted");
    SK_CHECK(strncmp(err.message, "gen: ", 5) == 0 && strlen(err.message) > 20, "message '%s'", err.message);
    SK_CHECK(c.tokens == NULL && c.doc_offsets == NULL && c.vocab == NULL && c.num_docs == 0, "output not zeroed");
    SK_CHECK(phi == NULL, "phi_out not reset");
    SK_CHECK(sk_lda_gen_validate(&p, NULL) != 0, "validate accepted");
    printf("  rejected %-12s: %s\n", cases[i].what, err.message);
  }
  /* Sizes that overflow memory arithmetic. */
  p = small_params();
  p.num_topics = 2147483647;
  p.num_words = 2147483647;
  sk_test_context("K x V overflow");
  SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) != 0 && strstr(err.message, "K x V") != NULL, "'%s'",
           err.message);
  p = small_params();
  p.num_docs = 2147483647;
  p.num_topics = 2147483647;
  p.num_words = 1;
  sk_test_context("D x K overflow");
  SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) != 0 && strstr(err.message, "D x K") != NULL, "'%s'",
           err.message);
  sk_test_context("NULL arguments");
  SK_CHECK(sk_lda_generate(NULL, &c, NULL, NULL, NULL, &err) != 0, "NULL params accepted");
  p = small_params();
  SK_CHECK(sk_lda_generate(&p, NULL, NULL, NULL, NULL, NULL) != 0, "NULL corpus accepted");
  SK_CHECK(sk_lda_gen_validate(NULL, &err) != 0, "validate(NULL) accepted");
  /* The smallest valid corpus. */
  p = small_params();
  p.num_docs = p.num_words = p.num_topics = 1;
  p.mean_doc_length = 1.0;
  sk_test_context("D = V = K = 1");
  if (SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) == 0, "%s", err.message)) {
    SK_CHECK(c.num_tokens == 1 && c.tokens[0] == 0 && strcmp(c.vocab[0], "w000000") == 0, "wrong tiny corpus");
    sk_lda_corpus_free(&c);
  }
}

static int same_corpus(const sk_lda_corpus *a, const sk_lda_corpus *b) {
  int32_t v;
  if (a->num_docs != b->num_docs || a->num_words != b->num_words || a->num_tokens != b->num_tokens) return 0;
  if (memcmp(a->doc_offsets, b->doc_offsets, ((size_t)a->num_docs + 1) * sizeof(int64_t)) != 0) return 0;
  if (memcmp(a->tokens, b->tokens, (size_t)a->num_tokens * sizeof(int32_t)) != 0) return 0;
  for (v = 0; v < a->num_words; ++v)
    if (strcmp(a->vocab[v], b->vocab[v]) != 0) return 0;
  return 1;
}

static void test_determinism(void) {
  sk_lda_gen_params p = small_params();
  sk_lda_corpus a, b, e;
  float *phi_a, *phi_b, *th_a, *th_b;
  int32_t *z_a, *z_b;
  sk_ex_error err;
  sk_test_context("determinism seed %llu", (unsigned long long)p.seed);
  if (!SK_CHECK(sk_lda_generate(&p, &a, &phi_a, &th_a, &z_a, &err) == 0, "%s", err.message)) return;
  if (!SK_CHECK(sk_lda_generate(&p, &b, &phi_b, &th_b, &z_b, &err) == 0, "%s", err.message)) return;
  SK_CHECK(same_corpus(&a, &b), "two runs with the same parameters differ");
  SK_CHECK(memcmp(phi_a, phi_b, sizeof(float) * (size_t)p.num_topics * (size_t)p.num_words) == 0, "phi differs");
  SK_CHECK(memcmp(th_a, th_b, sizeof(float) * (size_t)p.num_docs * (size_t)p.num_topics) == 0, "theta differs");
  SK_CHECK(memcmp(z_a, z_b, sizeof(int32_t) * (size_t)a.num_tokens) == 0, "topics differ");
  /* Asking for fewer outputs must not change the corpus. */
  if (SK_CHECK(sk_lda_generate(&p, &e, NULL, NULL, NULL, &err) == 0, "%s", err.message)) {
    SK_CHECK(same_corpus(&a, &e), "corpus depends on which optional outputs were asked for");
    sk_lda_corpus_free(&e);
  }
  p.seed += 1;
  sk_test_context("determinism seed %llu vs %llu", (unsigned long long)p.seed, (unsigned long long)p.seed - 1);
  if (SK_CHECK(sk_lda_generate(&p, &e, NULL, NULL, NULL, &err) == 0, "%s", err.message)) {
    int64_t same = 0, n = a.num_tokens < e.num_tokens ? a.num_tokens : e.num_tokens, j;
    for (j = 0; j < n; ++j) same += a.tokens[j] == e.tokens[j];
    SK_CHECK(!same_corpus(&a, &e) && same < n / 2, "another seed gives the same corpus (%lld of %lld equal)",
             (long long)same, (long long)n);
    sk_lda_corpus_free(&e);
  }
  sk_lda_corpus_free(&a);
  sk_lda_corpus_free(&b);
  free(phi_a);
  free(phi_b);
  free(th_a);
  free(th_b);
  free(z_a);
  free(z_b);
}

/* The same bits for any thread count: topics, lengths and documents are made in parallel. */
static void test_threads(void) {
  static const int counts[] = {2, 3, 8};
  static const struct {
    int32_t D, V, K;
    double mean, cv, support;
  } shapes[] = {{3001, 4000, 40, 60.0, 1.0, 0.25}, {7, 50, 3, 500.0, 2.0, 1.0}, {1, 1, 1, 1.0, 0.0, 1.0},
                {200, 20000, 97, 20.0, 0.5, 0.01}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
    sk_lda_gen_params p = small_params();
    sk_lda_corpus a, b;
    float *phi_a, *phi_b, *th_a, *th_b;
    int32_t *z_a, *z_b;
    sk_ex_error err;
    p.num_docs = shapes[i].D;
    p.num_words = shapes[i].V;
    p.num_topics = shapes[i].K;
    p.mean_doc_length = shapes[i].mean;
    p.doc_length_cv = shapes[i].cv;
    p.topic_support = shapes[i].support;
    p.threads = 1;
    sk_test_context("threads: D %d V %d K %d, 1 thread", (int)p.num_docs, (int)p.num_words, (int)p.num_topics);
    if (!SK_CHECK(sk_lda_generate(&p, &a, &phi_a, &th_a, &z_a, &err) == 0, "%s", err.message)) continue;
    for (size_t j = 0; j < sizeof counts / sizeof counts[0]; ++j) {
      p.threads = counts[j];
      sk_test_context("threads: D %d V %d K %d, %d threads against 1", (int)p.num_docs, (int)p.num_words,
                      (int)p.num_topics, counts[j]);
      if (!SK_CHECK(sk_lda_generate(&p, &b, &phi_b, &th_b, &z_b, &err) == 0, "%s", err.message)) continue;
      SK_CHECK(same_corpus(&a, &b), "the corpus differs");
      SK_CHECK(memcmp(phi_a, phi_b, sizeof(float) * (size_t)p.num_topics * (size_t)p.num_words) == 0, "phi differs");
      SK_CHECK(memcmp(th_a, th_b, sizeof(float) * (size_t)p.num_docs * (size_t)p.num_topics) == 0, "theta differs");
      SK_CHECK(a.num_tokens == b.num_tokens && memcmp(z_a, z_b, sizeof(int32_t) * (size_t)a.num_tokens) == 0,
               "planted topics differ");
      sk_lda_corpus_free(&b);
      free(phi_b);
      free(th_b);
      free(z_b);
    }
    sk_lda_corpus_free(&a);
    free(phi_a);
    free(th_a);
    free(z_a);
  }
}

/* Sizes, ranges, lengths, and the documented length draw recomputed from the stream layout. */
static void test_sizes(void) {
  const double means[] = {1.0, 7.0, 50.0, 333.3};
  const double cvs[] = {0.0, 0.5, 1.5};
  int im, ic;
  for (im = 0; im < 4; ++im)
    for (ic = 0; ic < 3; ++ic) {
      sk_lda_gen_params p = small_params();
      sk_lda_corpus c;
      sk_ex_error err;
      double sum = 0.0, sum2 = 0.0, mean, var, se, y_mean = means[im] - 1.0;
      int32_t d, bad_len = 0, bad_id = 0;
      int64_t j;
      p.num_docs = 4000;
      p.mean_doc_length = means[im];
      p.doc_length_cv = cvs[ic];
      p.seed = (uint64_t)(100 + im * 3 + ic);
      sk_test_context("sizes mean %g cv %g seed %llu", means[im], cvs[ic], (unsigned long long)p.seed);
      if (!SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) == 0, "%s", err.message)) continue;
      SK_CHECK(c.num_docs == p.num_docs && c.num_words == p.num_words && c.doc_offsets[0] == 0 &&
                   c.doc_offsets[c.num_docs] == c.num_tokens,
               "sizes D %d V %d T %lld", (int)c.num_docs, (int)c.num_words, (long long)c.num_tokens);
      for (d = 0; d < c.num_docs; ++d) {
        const double len = (double)(c.doc_offsets[d + 1] - c.doc_offsets[d]);
        bad_len += len < 1.0;
        if (cvs[ic] == 0.0 && means[im] == floor(means[im])) bad_len += len != means[im];
        sum += len;
        sum2 += len * len;
      }
      for (j = 0; j < c.num_tokens; ++j) bad_id += c.tokens[j] < 0 || c.tokens[j] >= c.num_words;
      SK_CHECK(bad_len == 0, "%d documents with a wrong length", (int)bad_len);
      SK_CHECK(bad_id == 0, "%d word ids out of range", (int)bad_id);
      mean = sum / c.num_docs;
      var = sum2 / c.num_docs - mean * mean;
      /* Var(L) = Var(Y) + E[rounding variance] <= (mean-1)^2 cv^2 + 1/4; 6 standard errors. */
      se = sqrt((y_mean * y_mean * cvs[ic] * cvs[ic] + 0.25) / c.num_docs);
      SK_CHECK(fabs(mean - means[im]) <= 6.0 * se + 1e-12, "mean length %.4f, expected %.4f +- %.4f", mean,
               means[im], 6.0 * se);
      if (cvs[ic] == 0.5 && means[im] >= 50.0) {
        const double cv = sqrt(var) / (mean - 1.0);
        SK_CHECK(fabs(cv - 0.5) < 0.05, "length cv %.4f, expected 0.5 +- 0.05", cv);
      }
      /* The documented draw: L_d = 1 + floor(Y + U), N from uniforms 0 and 1, U from uniform 2. */
      for (d = 0; d < 50; ++d) {
        const uint64_t st = SK_LDA_GEN_STREAM_DOC + (uint64_t)d;
        const double u1 = 1.0 - sk_rng_uniform_f64(p.seed, st, 0), u2 = sk_rng_uniform_f64(p.seed, st, 1);
        const double n = sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
        const double s2 = log1p(cvs[ic] * cvs[ic]);
        const double y = y_mean * exp(sqrt(s2) * n - 0.5 * s2);
        const int64_t want = 1 + (int64_t)floor(y + sk_rng_uniform_f64(p.seed, st, 2));
        if (!SK_CHECK(c.doc_offsets[d + 1] - c.doc_offsets[d] == want, "document %d length %lld, documented draw %lld",
                      (int)d, (long long)(c.doc_offsets[d + 1] - c.doc_offsets[d]), (long long)want))
          break;
      }
      sk_lda_corpus_free(&c);
    }
}

/* Digamma and trigamma: recurrence up to x >= 8, then the asymptotic series (error < 1e-10). */
static double digamma(double x) {
  double r = 0.0, f;
  while (x < 8.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  f = 1.0 / (x * x);
  return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

static double trigamma(double x) {
  double r = 0.0, f;
  while (x < 8.0) {
    r += 1.0 / (x * x);
    x += 1.0;
  }
  f = 1.0 / (x * x);
  return r + 1.0 / x + 0.5 * f + (1.0 / x) * f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

/* Moments of the Dirichlet draws: theta ~ Dir(alpha) over K, and phi ~ Dir(beta V b) with b uniform
   (Zipf 0, full support) and b Zipf with a large concentration (phi close to b). */
static void test_dirichlet_moments(void) {
  const double alphas[] = {0.3, 4.0};
  int ia;
  for (ia = 0; ia < 2; ++ia) {
    sk_lda_gen_params p = small_params();
    sk_lda_corpus c;
    sk_ex_error err;
    float *theta;
    const int K = 3;
    double m1 = 0.0, m2 = 0.0, lg = 0.0, var_want, mean, var, lg_want, lg_se;
    int32_t d;
    p.num_docs = 20000;
    p.num_topics = K;
    p.mean_doc_length = 1.0;
    p.alpha = alphas[ia];
    p.seed = 7 + (uint64_t)ia;
    sk_test_context("theta moments alpha %g seed %llu", p.alpha, (unsigned long long)p.seed);
    if (!SK_CHECK(sk_lda_generate(&p, &c, NULL, &theta, NULL, &err) == 0, "%s", err.message)) continue;
    for (d = 0; d < p.num_docs; ++d) {
      const double t = theta[(size_t)d * K]; /* topic 0 */
      double rs = 0.0;
      int k;
      for (k = 0; k < K; ++k) rs += theta[(size_t)d * K + k];
      if (!SK_CHECK(fabs(rs - 1.0) < 1e-5, "theta row %d sums to %.8f", (int)d, rs)) break;
      m1 += t;
      m2 += t * t;
      lg += log(t); /* the small-alpha tail of the Gamma draws shows here */
    }
    mean = m1 / p.num_docs;
    var = m2 / p.num_docs - mean * mean;
    var_want = (1.0 / K) * (1.0 - 1.0 / K) / (K * p.alpha + 1.0);
    SK_CHECK(fabs(mean - 1.0 / K) < 6.0 * sqrt(var_want / p.num_docs), "E theta %.5f, want %.5f", mean, 1.0 / K);
    SK_CHECK(fabs(var / var_want - 1.0) < 0.08, "Var theta %.6f, want %.6f", var, var_want);
    /* E log theta_k = digamma(alpha) - digamma(K alpha), variance trigamma(alpha) - trigamma(K alpha). */
    lg_want = digamma(p.alpha) - digamma(K * p.alpha);
    lg_se = sqrt((trigamma(p.alpha) - trigamma(K * p.alpha)) / p.num_docs);
    SK_CHECK(fabs(lg / p.num_docs - lg_want) < 6.0 * lg_se, "E log theta %.5f, want %.5f +- %.5f", lg / p.num_docs,
             lg_want, 6.0 * lg_se);
    sk_lda_corpus_free(&c);
    free(theta);
  }
  {
    sk_lda_gen_params p = small_params();
    sk_lda_corpus c;
    sk_ex_error err;
    float *phi;
    const int V = 5, K = 20000;
    double m1 = 0.0, m2 = 0.0, mean, var, var_want;
    int k;
    p.num_docs = 1;
    p.num_topics = K;
    p.num_words = V;
    p.zipf_exponent = 0.0;
    p.topic_support = 1.0;
    p.beta = 0.4; /* total concentration beta V = 2 */
    sk_test_context("phi moments, uniform base, beta %g", p.beta);
    if (SK_CHECK(sk_lda_generate(&p, &c, &phi, NULL, NULL, &err) == 0, "%s", err.message)) {
      for (k = 0; k < K; ++k) {
        m1 += phi[(size_t)k * V + 2];
        m2 += (double)phi[(size_t)k * V + 2] * phi[(size_t)k * V + 2];
      }
      mean = m1 / K;
      var = m2 / K - mean * mean;
      var_want = (1.0 / V) * (1.0 - 1.0 / V) / (p.beta * V + 1.0);
      SK_CHECK(fabs(mean - 1.0 / V) < 6.0 * sqrt(var_want / K), "E phi %.5f, want %.5f", mean, 1.0 / V);
      SK_CHECK(fabs(var / var_want - 1.0) < 0.08, "Var phi %.6f, want %.6f", var, var_want);
      sk_lda_corpus_free(&c);
      free(phi);
    }
    /* Unequal parameters a_v = beta V b_v = 5 b_v, from 2.19 down to 0.44 (both Gamma branches): a wrong
       Gamma shape no longer cancels between components. E phi_v = b_v, E log phi_v = digamma(a_v) -
       digamma(beta V). */
    p.num_topics = 100000;
    p.zipf_exponent = 1.0;
    p.beta = 1.0;
    sk_test_context("phi moments, Zipf base, beta %g", p.beta);
    if (SK_CHECK(sk_lda_generate(&p, &c, &phi, NULL, NULL, &err) == 0, "%s", err.message)) {
      const double h = 1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5, A = p.beta * V;
      int v;
      for (v = 0; v < V; ++v) {
        const double b = (1.0 / (v + 1)) / h, a = A * b;
        double s1 = 0.0, sl = 0.0;
        for (k = 0; k < p.num_topics; ++k) {
          s1 += phi[(size_t)k * V + v];
          sl += log(phi[(size_t)k * V + v]);
        }
        s1 /= p.num_topics;
        sl /= p.num_topics;
        SK_CHECK(fabs(s1 - b) < 6.0 * sqrt(b * (1.0 - b) / (A + 1.0) / p.num_topics), "word %d: E phi %.5f, want %.5f",
                 v, s1, b);
        SK_CHECK(fabs(sl - (digamma(a) - digamma(A))) < 6.0 * sqrt((trigamma(a) - trigamma(A)) / p.num_topics),
                 "word %d: E log phi %.5f, want %.5f", v, sl, digamma(a) - digamma(A));
      }
      sk_lda_corpus_free(&c);
      free(phi);
    }
    p.num_topics = 50;
    p.beta = 1e5;
    sk_test_context("phi close to the Zipf base for large beta");
    if (SK_CHECK(sk_lda_generate(&p, &c, &phi, NULL, NULL, &err) == 0, "%s", err.message)) {
      const double h = 1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5;
      int v, bad = 0;
      for (k = 0; k < p.num_topics; ++k)
        for (v = 0; v < V; ++v) bad += fabs(phi[(size_t)k * V + v] - (1.0 / (v + 1)) / h) > 0.01;
      SK_CHECK(bad == 0, "%d phi entries far from the Zipf base", bad);
      sk_lda_corpus_free(&c);
      free(phi);
    }
  }
}

/* The planted structure: per topic, word counts of its tokens fit phi_k; per document, topic counts fit
   theta_d; words outside a topic's support never appear under it. */
static void test_planted_fit(void) {
  const double supports[] = {1.0, 0.4};
  int is;
  for (is = 0; is < 2; ++is) {
    sk_lda_gen_params p = small_params();
    sk_lda_corpus c;
    sk_ex_error err;
    float *phi, *theta;
    int32_t *z;
    enum { K = 3, V = 50 };
    double obs[K][V], tot[K], expd[V], x = 0.0, tobs[K], texp[K], y = 0.0;
    int dof = 0, tdof = 0, k, v, outside = 0;
    int32_t d;
    int64_t j;
    p.num_docs = 300;
    p.num_words = V;
    p.num_topics = K;
    p.mean_doc_length = 10000.0; /* 3M tokens: a 1% bias in one cell's probability is 5 standard errors */
    p.doc_length_cv = 0.3;
    p.alpha = 0.5;
    p.beta = 0.5;
    p.topic_support = supports[is];
    p.seed = 2024 + (uint64_t)is;
    sk_test_context("planted fit K %d V %d support %g seed %llu", K, V, p.topic_support, (unsigned long long)p.seed);
    if (!SK_CHECK(sk_lda_generate(&p, &c, &phi, &theta, &z, &err) == 0, "%s", err.message)) continue;
    memset(obs, 0, sizeof obs);
    memset(tot, 0, sizeof tot);
    for (j = 0; j < c.num_tokens; ++j) {
      obs[z[j]][c.tokens[j]] += 1.0;
      tot[z[j]] += 1.0;
    }
    for (k = 0; k < K; ++k) {
      double rs = 0.0;
      for (v = 0; v < V; ++v) {
        expd[v] = tot[k] * phi[k * V + v];
        rs += phi[k * V + v];
        if (phi[k * V + v] == 0.0f) outside += obs[k][v] != 0.0;
      }
      SK_CHECK(fabs(rs - 1.0) < 1e-5, "phi row %d sums to %.8f", k, rs);
      x += chi2_pooled(obs[k], expd, V, &dof);
    }
    SK_CHECK(outside == 0, "%d words drawn outside their topic's support", outside);
    SK_CHECK(x < sk_test_chi2_threshold(dof), "words given topics: chi2 %.1f with %d dof (threshold %.1f)", x, dof,
             sk_test_chi2_threshold(dof));
    for (d = 0; d < c.num_docs; ++d) {
      const double len = (double)(c.doc_offsets[d + 1] - c.doc_offsets[d]);
      for (k = 0; k < K; ++k) {
        tobs[k] = 0.0;
        texp[k] = len * theta[(size_t)d * K + k];
      }
      for (j = c.doc_offsets[d]; j < c.doc_offsets[d + 1]; ++j) tobs[z[j]] += 1.0;
      y += chi2_pooled(tobs, texp, K, &tdof);
    }
    SK_CHECK(y < sk_test_chi2_threshold(tdof), "topics given documents: chi2 %.1f with %d dof (threshold %.1f)", y,
             tdof, sk_test_chi2_threshold(tdof));
    printf("  planted fit support %.1f: words|topic chi2 %.1f / %d dof, topics|doc chi2 %.1f / %d dof\n",
           p.topic_support, x, dof, y, tdof);
    sk_lda_corpus_free(&c);
    free(phi);
    free(theta);
    free(z);
  }
}

/* Corpus-wide frequencies fall with the Zipf rank (word id), as in text. */
static void test_zipf_shape(void) {
  sk_lda_gen_params p = small_params();
  sk_lda_corpus c;
  sk_ex_error err;
  double *cnt, band[3] = {0, 0, 0};
  int64_t j;
  p.num_docs = 500;
  p.num_words = 2000;
  p.num_topics = 20;
  p.mean_doc_length = 200.0;
  p.beta = 0.05;
  p.topic_support = 0.3;
  sk_test_context("Zipf shape");
  if (!SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) == 0, "%s", err.message)) return;
  cnt = (double *)calloc((size_t)p.num_words, sizeof *cnt);
  for (j = 0; j < c.num_tokens; ++j) cnt[c.tokens[j]] += 1.0;
  for (j = 0; j < 1000; ++j) band[j < 10 ? 0 : j < 100 ? 1 : 2] += cnt[j];
  band[0] /= 10;
  band[1] /= 90;
  band[2] /= 900;
  /* Zipf 1: mean weight per word falls about 10x per band; demand at least 3x. */
  SK_CHECK(band[0] > 3 * band[1] && band[1] > 3 * band[2], "per-word counts by rank band %.1f %.1f %.1f", band[0],
           band[1], band[2]);
  printf("  mean count per word, ranks 1-10 / 11-100 / 101-1000: %.1f / %.1f / %.1f\n", band[0], band[1], band[2]);
  free(cnt);
  sk_lda_corpus_free(&c);
}

/* --- files ------------------------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char *)malloc((size_t)n + 1);
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf != NULL) {
    buf[n] = '\0';
    *len = (size_t)n;
  }
  return buf;
}

static int same_file(const char *a, const char *b) {
  size_t la = 0, lb = 0;
  char *x = slurp(a, &la), *y = slurp(b, &lb);
  const int same = x != NULL && y != NULL && la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return same;
}

/* Parses a UCI docword file strictly and compares it with the corpus's aggregated counts. */
static void check_uci(const char *path, const sk_lda_corpus *c) {
  size_t len = 0;
  char *text = slurp(path, &len), *s, *end;
  long long hdr[3], prev_d = 0, prev_w = 0, lines = 0, total = 0;
  int64_t *dense;
  int i, ok = 1;
  int64_t j;
  if (!SK_CHECK(text != NULL, "cannot read %s", path)) return;
  s = text;
  for (i = 0; i < 3; ++i) {
    hdr[i] = strtoll(s, &end, 10);
    ok &= SK_CHECK(end != s && *end == '\n', "header line %d malformed", i + 1);
    s = end + 1;
  }
  SK_CHECK(hdr[0] == c->num_docs && hdr[1] == c->num_words, "header D %lld W %lld", hdr[0], hdr[1]);
  dense = (int64_t *)calloc((size_t)c->num_docs * (size_t)c->num_words, sizeof *dense);
  for (j = 0; j < c->num_tokens; ++j) {
    int32_t d = 0;
    while (c->doc_offsets[d + 1] <= j) ++d;
    ++dense[(size_t)d * (size_t)c->num_words + (size_t)c->tokens[j]];
  }
  while (ok && *s != '\0') {
    long long d, w, n;
    d = strtoll(s, &end, 10);
    ok &= end != s && *end == ' ';
    s = end + 1;
    w = strtoll(s, &end, 10);
    ok &= end != s && *end == ' ';
    s = end + 1;
    n = strtoll(s, &end, 10);
    ok &= end != s && *end == '\n';
    s = end + 1;
    ++lines;
    if (!SK_CHECK(ok, "line %lld: not 'doc word count'", lines + 3)) break;
    if (!SK_CHECK(d >= 1 && d <= hdr[0] && w >= 1 && w <= hdr[1] && n >= 1, "line %lld: %lld %lld %lld out of range",
                  lines + 3, d, w, n))
      break;
    if (!SK_CHECK(d > prev_d || (d == prev_d && w > prev_w), "line %lld: (%lld, %lld) after (%lld, %lld)",
                  lines + 3, d, w, prev_d, prev_w))
      break;
    if (!SK_CHECK(dense[(size_t)(d - 1) * (size_t)c->num_words + (size_t)(w - 1)] == n,
                  "line %lld: count %lld, corpus has %lld", lines + 3, n,
                  (long long)dense[(size_t)(d - 1) * (size_t)c->num_words + (size_t)(w - 1)]))
      break;
    prev_d = d;
    prev_w = w;
    total += n;
  }
  SK_CHECK(lines == hdr[2], "NNZ %lld in header, %lld lines", hdr[2], lines);
  SK_CHECK(total == c->num_tokens, "counts sum to %lld, corpus has %lld tokens", total, (long long)c->num_tokens);
  free(dense);
  free(text);
}

static void rm_dir(const char *dir) {
  static const char *files[] = {"docword.t.txt", "vocab.t.txt", "topics.t.planted.txt", "phi.t.planted.f32",
                                "theta.t.planted.f32", "docword.e.txt", "vocab.e.txt"};
  char path[512];
  size_t i;
  for (i = 0; i < sizeof files / sizeof files[0]; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    remove(path);
  }
  rmdir(dir);
}

static uint32_t le32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void test_files(void) {
  char dir1[] = "/tmp/sk_test_gen_XXXXXX", dir2[] = "/tmp/sk_test_gen_XXXXXX", path[512], path2[512];
  sk_lda_gen_params p = small_params();
  sk_lda_corpus c, c2;
  sk_ex_error err;
  float *phi, *theta, *phi2, *theta2;
  size_t len;
  char *text;
  if (!SK_CHECK(mkdtemp(dir1) != NULL && mkdtemp(dir2) != NULL, "mkdtemp failed")) return;
  sk_test_context("files seed %llu", (unsigned long long)p.seed);
  if (!SK_CHECK(sk_lda_generate(&p, &c, &phi, &theta, NULL, &err) == 0, "%s", err.message)) return;
  if (!SK_CHECK(sk_lda_generate(&p, &c2, &phi2, &theta2, NULL, &err) == 0, "%s", err.message)) return;
  SK_CHECK(sk_lda_write_uci(&c, dir1, "t", &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_write_planted(&p, c.vocab, phi, theta, 10, dir1, "t", &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_write_uci(&c2, dir2, "t", &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_write_planted(&p, c2.vocab, phi2, theta2, 10, dir2, "t", &err) == 0, "%s", err.message);

  snprintf(path, sizeof path, "%s/docword.t.txt", dir1);
  check_uci(path, &c);
  {
    static const char *names[] = {"docword.t.txt", "vocab.t.txt", "topics.t.planted.txt", "phi.t.planted.f32",
                                  "theta.t.planted.f32"};
    int i;
    for (i = 0; i < 5; ++i) {
      snprintf(path, sizeof path, "%s/%s", dir1, names[i]);
      snprintf(path2, sizeof path2, "%s/%s", dir2, names[i]);
      SK_CHECK(same_file(path, path2), "%s differs between two runs with the same seed", names[i]);
      strcat(path, ".tmp");
      SK_CHECK(access(path, F_OK) != 0, "temporary file %s left behind", path);
    }
  }
  /* Vocabulary: V lines, the corpus's words. */
  snprintf(path, sizeof path, "%s/vocab.t.txt", dir1);
  text = slurp(path, &len);
  if (SK_CHECK(text != NULL, "no vocabulary file")) {
    char *s = text;
    int32_t v;
    for (v = 0; v < c.num_words; ++v) {
      char *nl = strchr(s, '\n');
      if (!SK_CHECK(nl != NULL && (size_t)(nl - s) == strlen(c.vocab[v]) && memcmp(s, c.vocab[v], (size_t)(nl - s)) == 0,
                    "vocabulary line %d", (int)v + 1))
        break;
      s = nl + 1;
    }
    SK_CHECK(*s == '\0', "vocabulary has more than V lines");
    free(text);
  }
  /* phi and theta matrix files: header, then the very floats. */
  snprintf(path, sizeof path, "%s/phi.t.planted.f32", dir1);
  text = slurp(path, &len);
  if (SK_CHECK(text != NULL && len == 24 + 4 * (size_t)p.num_topics * (size_t)p.num_words, "phi file size")) {
    const unsigned char *b = (const unsigned char *)text;
    size_t i, bad = 0;
    SK_CHECK(memcmp(b, "SKLDAF32", 8) == 0 && le32(b + 8) == 1 && le32(b + 12) == (uint32_t)p.num_topics &&
                 le32(b + 16) == (uint32_t)p.num_words && le32(b + 20) == 0,
             "phi header");
    for (i = 0; i < (size_t)p.num_topics * (size_t)p.num_words; ++i) bad += le32(b + 24 + 4 * i) != sk_test_f32_bits(phi[i]);
    SK_CHECK(bad == 0, "%zu phi values differ from the file", bad);
  }
  free(text);
  snprintf(path, sizeof path, "%s/theta.t.planted.f32", dir1);
  text = slurp(path, &len);
  SK_CHECK(text != NULL && len == 24 + 4 * (size_t)p.num_docs * (size_t)p.num_topics, "theta file size");
  free(text);
  /* Topics file: comments, then K topic blocks of up to 10 words in decreasing probability. */
  snprintf(path, sizeof path, "%s/topics.t.planted.txt", dir1);
  text = slurp(path, &len);
  if (SK_CHECK(text != NULL, "no topics file")) {
    char *line = strtok(text, "\n");
    int topics = 0, words = 0, order_ok = 1;
    double prev = 2.0;
    while (line != NULL) {
      if (strncmp(line, "topic ", 6) == 0) {
        SK_CHECK(atoi(line + 6) == topics, "topic header '%s'", line);
        ++topics;
        prev = 2.0;
      } else if (line[0] == '\t') {
        const char *tab = strchr(line + 1, '\t');
        const double pr = tab ? atof(tab + 1) : -1.0;
        order_ok &= pr > 0.0 && pr <= prev;
        prev = pr;
        ++words;
      }
      line = strtok(NULL, "\n");
    }
    SK_CHECK(topics == p.num_topics && words == 10 * p.num_topics && order_ok, "topics file: %d topics, %d words%s",
             topics, words, order_ok ? "" : ", not in decreasing probability");
    free(text);
  }
  /* A hand-made corpus with an empty document and repeated words. */
  {
    int64_t off[4] = {0, 5, 5, 7};
    int32_t tok[7] = {3, 1, 3, 3, 0, 2, 2};
    sk_lda_corpus h;
    memset(&h, 0, sizeof h);
    h.num_docs = 3;
    h.num_words = 4;
    h.num_tokens = 7;
    h.doc_offsets = off;
    h.tokens = tok;
    sk_test_context("hand-made UCI");
    SK_CHECK(sk_lda_write_uci(&h, dir1, "e", &err) == 0, "%s", err.message);
    snprintf(path, sizeof path, "%s/docword.e.txt", dir1);
    text = slurp(path, &len);
    SK_CHECK(text != NULL && strcmp(text, "3\n4\n4\n1 1 1\n1 2 1\n1 4 3\n3 3 2\n") == 0, "got '%s'",
             text ? text : "(none)");
    free(text);
    snprintf(path, sizeof path, "%s/vocab.e.txt", dir1);
    SK_CHECK(access(path, F_OK) != 0, "vocabulary written for a corpus without one");
    tok[6] = 4;
    sk_test_context("UCI errors");
    err.message[0] = '\0';
    SK_CHECK(sk_lda_write_uci(&h, dir1, "e", &err) != 0 && strstr(err.message, "out of range") != NULL,
             "word id 4 >= V accepted: '%s'", err.message);
    tok[6] = 2;
    err.message[0] = '\0';
    SK_CHECK(sk_lda_write_uci(&h, "/nonexistent/sk_gen", "e", &err) != 0 &&
                 strstr(err.message, "/nonexistent/sk_gen/docword.e.txt") != NULL,
             "missing directory: '%s'", err.message);
    err.message[0] = '\0';
    SK_CHECK(sk_lda_write_planted(&p, NULL, phi, NULL, 0, dir1, "e", &err) != 0, "top_n 0 accepted");
    SK_CHECK(sk_lda_write_uci(NULL, dir1, "e", &err) != 0, "NULL corpus accepted");
  }
  sk_lda_corpus_free(&c);
  sk_lda_corpus_free(&c2);
  free(phi);
  free(theta);
  free(phi2);
  free(theta2);
  rm_dir(dir1);
  rm_dir(dir2);
}

int main(void) {
  test_validation();
  test_determinism();
  test_threads();
  test_sizes();
  test_dirichlet_moments();
  test_planted_fit();
  test_zipf_shape();
  test_files();
  return sk_test_finish();
}
