/*
 * Metrics (examples/lda/src/metrics.h) and the train/test split (split.h), against values computed
 * independently here: joint LL from rising factorials (no lgamma) and by hand; held-out LL by hand on
 * cases where theta is known (K = 1, empty observed halves, no fold-in sweeps) and against a separate
 * implementation of the documented fold-in; the split against the documented shuffle rule and its
 * invariants (every document once, halves that partition each test document in order).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "metrics.h"
#include "model.h"
#include "samplekit/rng.h"
#include "sk_test.h"
#include "split.h"
#include "lda_test_corpus.h"
#include "lda_test_fold.h"

static int close_to(double a, double b, double tol) { return fabs(a - b) <= tol * (1.0 + fabs(b)); }

/* log Gamma(a + n) - log Gamma(a) as a sum of logs: independent of lgamma. */
static double log_rising(double a, int64_t n) {
  double r = 0.0;
  for (int64_t i = 0; i < n; ++i) r += log(a + (double)i);
  return r;
}

/* log p(w, z) / T from the topics alone, by brute-force counting and rising factorials. */
static double joint_ll_reference(const sk_lda_corpus *c, const int32_t *z, int32_t K, double alpha, double beta) {
  const int32_t V = c->num_words;
  int64_t *nvk = (int64_t *)calloc((size_t)V * (size_t)K, sizeof *nvk), *nk = (int64_t *)calloc((size_t)K, sizeof *nk);
  int64_t *ndk = (int64_t *)calloc((size_t)K, sizeof *ndk);
  double ll = 0.0;
  for (int32_t d = 0; d < c->num_docs; ++d) {
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) {
      ++ndk[z[t]];
      ++nvk[(size_t)c->tokens[t] * (size_t)K + (size_t)z[t]];
      ++nk[z[t]];
    }
    ll -= log_rising(K * alpha, c->doc_offsets[d + 1] - c->doc_offsets[d]);
    for (int32_t k = 0; k < K; ++k) {
      ll += log_rising(alpha, ndk[k]);
      ndk[k] = 0;
    }
  }
  for (int32_t k = 0; k < K; ++k) {
    ll -= log_rising(V * beta, nk[k]);
    for (int32_t v = 0; v < V; ++v) ll += log_rising(beta, nvk[(size_t)v * (size_t)K + (size_t)k]);
  }
  free(nvk);
  free(nk);
  free(ndk);
  return ll / (double)c->num_tokens;
}

static void test_joint_ll(void) {
  sk_ex_error err;
  sk_lda_model m;
  /* One token: p(w, z) = (1 / K) (1 / V) for any alpha, beta (by hand). */
  {
    const int32_t len[1] = {1}, w[1] = {2}, z[1] = {1};
    sk_lda_corpus c = make_corpus(3, 1, len, w);
    const double alphas[] = {0.1, 1.0, 7.5}, betas[] = {0.01, 0.5, 3.0};
    for (int i = 0; i < 3; ++i) {
      sk_test_context("joint LL, one token, alpha %g beta %g", alphas[i], betas[i]);
      if (!SK_CHECK(sk_lda_model_init(&m, &c, 2, alphas[i], betas[i], 1, &err) == 0, "init: %s", err.message)) continue;
      SK_CHECK(sk_lda_model_set_z(&m, z, &err) == 0, "set_z: %s", err.message);
      const double ll = sk_lda_joint_ll_per_token(&m);
      SK_CHECK(close_to(ll, -log(6.0), 1e-13), "joint LL %.17g, expected -log 6 = %.17g", ll, -log(6.0));
      sk_lda_model_free(&m);
    }
    sk_lda_corpus_free(&c);
  }
  /* Two tokens of one word in one document, K = 2, alpha = beta = 1, V = 2 (by hand):
     same topic:  p = [1/2 * 2/3] (doc) * [1/2 * 2/3] (word) = 1/9;
     different:   p = [1/2 * 1/3] * [1/2 * 1/2] = 1/24. */
  {
    const int32_t len[1] = {2}, w[2] = {0, 0}, same[2] = {1, 1}, diff[2] = {0, 1};
    sk_lda_corpus c = make_corpus(2, 1, len, w);
    sk_test_context("joint LL, two tokens by hand");
    if (SK_CHECK(sk_lda_model_init(&m, &c, 2, 1.0, 1.0, 1, &err) == 0, "init: %s", err.message)) {
      sk_lda_model_set_z(&m, same, &err);
      double ll = sk_lda_joint_ll_per_token(&m);
      SK_CHECK(close_to(ll, log(1.0 / 9.0) / 2.0, 1e-13), "same topic: %.17g, expected %.17g", ll, log(1.0 / 9.0) / 2);
      sk_lda_model_set_z(&m, diff, &err);
      ll = sk_lda_joint_ll_per_token(&m);
      SK_CHECK(close_to(ll, log(1.0 / 24.0) / 2.0, 1e-13), "different: %.17g, expected %.17g", ll, log(1.0 / 24.0) / 2);
      sk_lda_model_free(&m);
    }
    sk_lda_corpus_free(&c);
  }
  /* Random corpora and topics against rising factorials (K up to 300, documents with 0 tokens). */
  for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
    const int32_t K = seed % 4 == 0 ? 1 : (int32_t)(1 + (seed * 37) % 300);
    sk_lda_corpus c = make_uniform_corpus(40, 25, 60, 100 + (uint64_t)seed);
    const double alpha = 0.05 + 0.3 * seed, beta = 0.01 + 0.1 * seed;
    sk_test_context("joint LL, seed %d, K %d, alpha %g, beta %g", seed, (int)K, alpha, beta);
    if (SK_CHECK(sk_lda_model_init(&m, &c, K, alpha, beta, (uint64_t)seed, &err) == 0, "init: %s", err.message)) {
      const double ll = sk_lda_joint_ll_per_token(&m), ref = joint_ll_reference(&c, m.z, K, alpha, beta);
      SK_CHECK(close_to(ll, ref, 1e-11), "joint LL %.17g, reference %.17g", ll, ref);
      sk_lda_model_free(&m);
    }
    sk_lda_corpus_free(&c);
  }
  sk_test_context("joint LL, NULL");
  SK_CHECK(isnan(sk_lda_joint_ll_per_token(NULL)), "NULL model gives a number");
}

/* n_vk (V x K) and n_k by brute force from a training corpus and its topics. */
static void counts_reference(const sk_lda_corpus *c, const int32_t *z, int32_t K, int64_t **nvk, int64_t **nk) {
  *nvk = (int64_t *)calloc((size_t)K * (size_t)c->num_words, sizeof **nvk);
  *nk = (int64_t *)calloc((size_t)K, sizeof **nk);
  for (int64_t t = 0; t < c->num_tokens; ++t) {
    ++(*nvk)[(size_t)c->tokens[t] * (size_t)K + (size_t)z[t]];
    ++(*nk)[z[t]];
  }
}

/* The documented sparse fold-in and score (metrics.h), written again without its tables
   (lda_test_fold.h). Returns the mean held-out log-likelihood. */
static double heldout_reference(const sk_lda_corpus *obs, const sk_lda_corpus *held, const int64_t *nvk,
                                const int64_t *nk, int32_t K, int32_t V, double alpha, double beta, uint64_t seed,
                                int iters) {
  double sum = 0.0;
  double *c = (double *)malloc((size_t)K * sizeof *c);
  int64_t *n = (int64_t *)malloc((size_t)K * sizeof *n);
  int32_t *z = (int32_t *)malloc((size_t)(obs->num_tokens > 0 ? obs->num_tokens : 1) * sizeof *z);
  double *a = (double *)malloc((size_t)K * sizeof *a);
  int64_t *cnt = (int64_t *)malloc((size_t)K * sizeof *cnt);
  double *xw = (double *)malloc((size_t)K * sizeof *xw), *y = (double *)malloc((size_t)K * sizeof *y);
  uint64_t *fx = (uint64_t *)malloc((size_t)K * sizeof *fx);
  for (int32_t k = 0; k < K; ++k) c[k] = 1.0 / ((double)nk[k] + (double)V * beta), a[k] = alpha;
  for (int32_t d = 0; d < obs->num_docs; ++d) {
    /* the start: each token drawn from its word's phi alone (the rule with no document counts) */
    memset(n, 0, (size_t)K * sizeof *n);
    for (int64_t i = obs->doc_offsets[d]; i < obs->doc_offsets[d + 1]; ++i)
      z[i] = lda_test_fold_draw(n, nvk + (size_t)obs->tokens[i] * (size_t)K, c, a, beta, K,
                                sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)i));
    const int uncollapsed = K <= 1024 && iters > 2 ? iters - 2 : 0; /* metrics.h */
    for (int it = 0; it < uncollapsed; ++it)
      lda_test_fold_uncollapsed(nvk, c, a, beta, K, seed, it, obs->tokens + obs->doc_offsets[d],
                                obs->doc_offsets[d + 1] - obs->doc_offsets[d], obs->doc_offsets[d],
                                z + obs->doc_offsets[d], cnt, xw, fx, y);
    memset(n, 0, (size_t)K * sizeof *n);
    for (int64_t i = obs->doc_offsets[d]; i < obs->doc_offsets[d + 1]; ++i) ++n[z[i]];
    for (int it = uncollapsed; it < iters; ++it)
      for (int64_t i = obs->doc_offsets[d]; i < obs->doc_offsets[d + 1]; ++i) {
        --n[z[i]];
        z[i] = lda_test_fold_draw(n, nvk + (size_t)obs->tokens[i] * (size_t)K, c, a, beta, K,
                                  sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN((uint64_t)it), (uint64_t)i));
        ++n[z[i]];
      }
    const double nd = (double)(obs->doc_offsets[d + 1] - obs->doc_offsets[d]);
    for (int64_t t = held->doc_offsets[d]; t < held->doc_offsets[d + 1]; ++t)
      sum += log(lda_test_fold_weight(n, nvk + (size_t)held->tokens[t] * (size_t)K, c, a, beta, K) / (nd + K * alpha));
  }
  free(c);
  free(n);
  free(z);
  free(a);
  free(cnt);
  free(xw);
  free(y);
  free(fx);
  return sum / (double)held->num_tokens;
}

static void test_heldout_ll(void) {
  sk_ex_error err;
  sk_lda_model m;
  double ll = 0.0;
  /* By hand: training tokens [0 0 1] with topics [0 0 1], K = 2, V = 2, alpha = beta = 0.5:
     phi_0 = (2.5/3, 0.5/3) = (5/6, 1/6), phi_1 = (0.5/2, 1.5/2) = (1/4, 3/4). */
  const int32_t tlen[1] = {3}, tw[3] = {0, 0, 1}, tz[3] = {0, 0, 1};
  sk_lda_corpus train = make_corpus(2, 1, tlen, tw);
  if (SK_CHECK(sk_lda_model_init(&m, &train, 2, 0.5, 0.5, 11, &err) == 0, "init: %s", err.message)) {
    sk_lda_model_set_z(&m, tz, &err);
    /* Empty observed halves: theta = (1/2, 1/2). Held-out [0] and [1, 0]:
       log(13/24), log((1/6 + 3/4)/2) = log(11/24), log(13/24): mean (2 log(13/24) + log(11/24)) / 3. */
    {
      const int32_t olen[2] = {0, 0}, hlen[2] = {1, 2}, hw[3] = {0, 1, 0};
      sk_lda_corpus obs = make_corpus(2, 2, olen, NULL), held = make_corpus(2, 2, hlen, hw);
      sk_test_context("held-out LL, empty observed halves (by hand)");
      for (int iters = 0; iters <= 3; iters += 3) {
        SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, iters, 1, &ll, &err) == 0, "heldout: %s", err.message);
        const double expect = (2.0 * log(13.0 / 24.0) + log(11.0 / 24.0)) / 3.0;
        SK_CHECK(close_to(ll, expect, 1e-14), "%d iterations: %.17g, expected %.17g", iters, ll, expect);
      }
      sk_lda_corpus_free(&obs);
      sk_lda_corpus_free(&held);
    }
    /* One observed token (word 0), no fold-in sweeps: its topic is the documented initial one, a draw
       proportional to alpha phi_k[0] laid out as the rule's parts: s = alpha beta c_k = (2/24, 3/24),
       then q = alpha n_0k c_k = (8/24, 0), so with x = 13/24 u, z0 = 1 for x in [2/24, 5/24) and 0
       otherwise; theta_k = ([z0 = k] + 1/2) / 2, so theta_z0 = 3/4. Held-out [1]:
       log(3/4 phi_z0[1] + 1/4 phi_other[1]). */
    {
      const int32_t olen[1] = {1}, ow[1] = {0}, hlen[1] = {1}, hw[1] = {1};
      sk_lda_corpus obs = make_corpus(2, 1, olen, ow), held = make_corpus(2, 1, hlen, hw);
      sk_test_context("held-out LL, one observed token, no fold-in (by hand)");
      const double u0 = sk_rng_uniform_f64(11, SK_LDA_STREAM_FOLDIN_INIT, 0);
      const int z0 = u0 >= 2.0 / 13.0 && u0 < 5.0 / 13.0 ? 1 : 0;
      const double phi1[2] = {1.0 / 6.0, 3.0 / 4.0};
      const double expect = log(0.75 * phi1[z0] + 0.25 * phi1[1 - z0]);
      SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, 0, 1, &ll, &err) == 0, "heldout: %s", err.message);
      SK_CHECK(close_to(ll, expect, 1e-14), "%.17g, expected %.17g (z0 = %d)", ll, expect, z0);
      sk_lda_corpus_free(&obs);
      sk_lda_corpus_free(&held);
    }
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&train);

  /* K = 1: theta = 1, the score is the mean of log phi_w with phi_w = (n_w + beta) / (T + V beta). */
  {
    sk_lda_corpus c = make_uniform_corpus(30, 12, 20, 5);
    sk_lda_corpus obs = make_uniform_corpus(6, 12, 5, 6), held = make_uniform_corpus(6, 12, 7, 7);
    sk_test_context("held-out LL, K = 1");
    if (SK_CHECK(sk_lda_model_init(&m, &c, 1, 0.3, 0.2, 3, &err) == 0, "init: %s", err.message)) {
      double expect = 0.0;
      for (int64_t t = 0; t < held.num_tokens; ++t) {
        int64_t n = 0;
        for (int64_t i = 0; i < c.num_tokens; ++i) n += c.tokens[i] == held.tokens[t];
        expect += log((n + 0.2) / (c.num_tokens + 12 * 0.2));
      }
      expect /= (double)held.num_tokens;
      SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, 4, 2, &ll, &err) == 0, "heldout: %s", err.message);
      SK_CHECK(close_to(ll, expect, 1e-13), "%.17g, expected %.17g", ll, expect);
      sk_lda_model_free(&m);
    }
    sk_lda_corpus_free(&c);
    sk_lda_corpus_free(&obs);
    sk_lda_corpus_free(&held);
  }

  /* Against the fold-in written again, with several sweeps; the same bits for 1 and 2 threads. */
  for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
    /* seed 4: K above 1,024, where 4 sweeps are all collapsed (below, 2 uncollapsed + 2) */
    const int32_t K = seed == 4 ? 1100 : 2 + (seed * 13) % 40, V = 30;
    sk_lda_corpus c = make_uniform_corpus(50, V, 40, 200 + (uint64_t)seed);
    /* odd seeds: the last 5 words never occur in training, so their tokens have no q terms */
    if (seed % 2 == 1)
      for (int64_t t = 0; t < c.num_tokens; ++t) c.tokens[t] %= V - 5;
    sk_lda_corpus obs = make_uniform_corpus(20, V, 15, 300 + (uint64_t)seed);
    sk_lda_corpus held = make_uniform_corpus(20, V, 15, 400 + (uint64_t)seed);
    const double alpha = 0.1 + 0.2 * seed, beta = 0.05;
    const int iters = seed % 7; /* 3 and more: uncollapsed sweeps first */
    sk_test_context("held-out LL vs reference, seed %d, K %d, %d sweeps", seed, (int)K, iters);
    if (SK_CHECK(sk_lda_model_init(&m, &c, K, alpha, beta, 1000 + (uint64_t)seed, &err) == 0, "init: %s",
                 err.message)) {
      int64_t *nvk = NULL, *nk = NULL;
      counts_reference(&c, m.z, K, &nvk, &nk);
      const double expect = heldout_reference(&obs, &held, nvk, nk, K, V, alpha, beta, m.seed, iters);
      double ll2 = 0.0;
      SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, iters, 1, &ll, &err) == 0, "heldout: %s", err.message);
      SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, iters, 2, &ll2, &err) == 0, "heldout: %s", err.message);
      SK_CHECK(close_to(ll, expect, 1e-12), "%.17g, reference %.17g", ll, expect);
      SK_CHECK(memcmp(&ll, &ll2, sizeof ll) == 0, "1 thread %.17g, 2 threads %.17g", ll, ll2);
      free(nvk);
      free(nk);
      sk_lda_model_free(&m);
    }
    sk_lda_corpus_free(&c);
    sk_lda_corpus_free(&obs);
    sk_lda_corpus_free(&held);
  }

  /* Errors. */
  {
    sk_lda_corpus c = make_uniform_corpus(5, 4, 5, 1), a = make_uniform_corpus(3, 4, 3, 2), b = make_uniform_corpus(2, 4, 3, 3);
    sk_lda_corpus none = make_uniform_corpus(3, 4, 0, 4);
    sk_test_context("held-out LL errors");
    if (SK_CHECK(sk_lda_model_init(&m, &c, 3, 0.5, 0.1, 1, &err) == 0, "init: %s", err.message)) {
      ll = 123.0;
      SK_CHECK(sk_lda_heldout_ll(&m, &a, &b, 1, 1, &ll, &err) != 0 && ll == 123.0, "3 vs 2 documents accepted");
      SK_CHECK(sk_lda_heldout_ll(&m, &a, &a, -1, 1, &ll, &err) != 0, "-1 iterations accepted");
      SK_CHECK(sk_lda_heldout_ll(NULL, &a, &a, 1, 1, &ll, &err) != 0, "NULL model accepted");
      SK_CHECK(sk_lda_heldout_ll(&m, &a, &a, 1, 1, NULL, &err) != 0, "NULL result accepted");
      SK_CHECK(sk_lda_heldout_ll(&m, &a, &none, 1, 1, &ll, &err) == 0 && isnan(ll), "no held-out tokens: %g", ll);
      if (a.num_tokens > 0) {
        a.tokens[0] = 4;
        SK_CHECK(sk_lda_heldout_ll(&m, &a, &a, 1, 1, &ll, &err) != 0 && strstr(err.message, "word id") != NULL,
                 "word id 4 with V = 4 accepted (%s)", err.message);
      }
      sk_lda_model_free(&m);
    }
    sk_lda_corpus_free(&c);
    sk_lda_corpus_free(&a);
    sk_lda_corpus_free(&b);
    sk_lda_corpus_free(&none);
  }
}

static void test_split(void) {
  sk_ex_error err;
  sk_lda_split sp, sp2;
  sk_lda_corpus c = make_uniform_corpus(53, 40, 9, 77); /* lengths 0..9: empty and 1-token documents */
  const double fractions[] = {0.0, 0.1, 0.5, 0.999};
  for (size_t fi = 0; fi < 4; ++fi) {
    const double f = fractions[fi];
    sk_test_context("split, fraction %g", f);
    if (!SK_CHECK(sk_lda_split_corpus(&c, f, 9, &sp, &err) == 0, "split: %s", err.message)) continue;
    int32_t num_test = (int32_t)floor(f * 53 + 0.5);
    if (num_test > 52) num_test = 52;
    SK_CHECK(sp.test_observed.num_docs == num_test && sp.test_heldout.num_docs == num_test &&
                 sp.train.num_docs == 53 - num_test,
             "sizes %d/%d/%d", (int)sp.train.num_docs, (int)sp.test_observed.num_docs, (int)sp.test_heldout.num_docs);
    /* the documented rule, written again */
    int32_t perm[53];
    unsigned char is_test[53] = {0};
    for (int32_t d = 0; d < 53; ++d) perm[d] = d;
    for (int32_t i = 0; i < num_test; ++i) {
      int32_t j = i + (int32_t)floor((53 - i) * sk_rng_uniform_f64(9, SK_LDA_STREAM_SPLIT_DOCS, (uint64_t)i));
      const int32_t tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
      is_test[perm[i]] = 1;
    }
    int32_t tr = 0, te = 0, ok = 1;
    for (int32_t d = 0; d < 53 && ok; ++d) {
      const int64_t g = c.doc_offsets[d], n = c.doc_offsets[d + 1] - g;
      if (!is_test[d]) {
        ok = SK_CHECK(sp.train_doc_ids[tr] == d, "train doc %d is %d, expected %d", (int)tr, (int)sp.train_doc_ids[tr],
                      (int)d) &&
             SK_CHECK(sp.train.doc_offsets[tr + 1] - sp.train.doc_offsets[tr] == n &&
                          memcmp(sp.train.tokens + sp.train.doc_offsets[tr], c.tokens + g, (size_t)n * 4) == 0,
                      "train doc %d tokens differ", (int)d);
        ++tr;
        continue;
      }
      ok = SK_CHECK(sp.test_doc_ids[te] == d, "test doc %d is %d, expected %d", (int)te, (int)sp.test_doc_ids[te], (int)d);
      int32_t pos[16], observed[16] = {0};
      for (int32_t i = 0; i < n; ++i) pos[i] = i;
      for (int32_t i = 0; i < n / 2; ++i) {
        const int32_t j =
            i + (int32_t)floor((double)(n - i) * sk_rng_uniform_f64(9, SK_LDA_STREAM_SPLIT_TOKENS, (uint64_t)(g + i)));
        const int32_t tmp = pos[i];
        pos[i] = pos[j];
        pos[j] = tmp;
        observed[pos[i]] = 1;
      }
      int64_t o = sp.test_observed.doc_offsets[te], h = sp.test_heldout.doc_offsets[te];
      ok = ok && SK_CHECK(sp.test_observed.doc_offsets[te + 1] - o == n / 2 &&
                              sp.test_heldout.doc_offsets[te + 1] - h == n - n / 2,
                          "doc %d halves %lld + %lld of %lld", (int)d,
                          (long long)(sp.test_observed.doc_offsets[te + 1] - o),
                          (long long)(sp.test_heldout.doc_offsets[te + 1] - h), (long long)n);
      for (int32_t i = 0; i < n && ok; ++i)
        ok = observed[i] ? SK_CHECK(sp.test_observed.tokens[o++] == c.tokens[g + i], "doc %d observed token", (int)d)
                         : SK_CHECK(sp.test_heldout.tokens[h++] == c.tokens[g + i], "doc %d held-out token", (int)d);
      ++te;
    }
    SK_CHECK(sp.train.num_tokens + sp.test_observed.num_tokens + sp.test_heldout.num_tokens == c.num_tokens,
             "tokens lost");
    SK_CHECK(sp.train.num_words == 40 && sp.train.vocab == NULL, "train V %d", (int)sp.train.num_words);
    /* deterministic for a seed; another seed gives another split */
    if (SK_CHECK(sk_lda_split_corpus(&c, f, 9, &sp2, &err) == 0, "split: %s", err.message)) {
      SK_CHECK(sp2.test_observed.num_tokens == sp.test_observed.num_tokens &&
                   memcmp(sp2.test_doc_ids, sp.test_doc_ids, (size_t)num_test * 4) == 0 &&
                   memcmp(sp2.test_heldout.tokens, sp.test_heldout.tokens, (size_t)sp.test_heldout.num_tokens * 4) == 0,
               "same seed, different split");
      sk_lda_split_free(&sp2);
    }
    if (num_test > 3 && SK_CHECK(sk_lda_split_corpus(&c, f, 10, &sp2, &err) == 0, "split: %s", err.message)) {
      SK_CHECK(memcmp(sp2.test_doc_ids, sp.test_doc_ids, (size_t)num_test * 4) != 0, "seeds 9 and 10 agree");
      sk_lda_split_free(&sp2);
    }
    sk_lda_split_free(&sp);
  }
  sk_test_context("split errors");
  SK_CHECK(sk_lda_split_corpus(&c, 1.0, 1, &sp, &err) != 0, "fraction 1 accepted");
  SK_CHECK(sk_lda_split_corpus(&c, -0.1, 1, &sp, &err) != 0, "fraction -0.1 accepted");
  SK_CHECK(sk_lda_split_corpus(&c, NAN, 1, &sp, &err) != 0, "fraction NaN accepted");
  SK_CHECK(sk_lda_split_corpus(NULL, 0.1, 1, &sp, &err) != 0, "NULL corpus accepted");
  SK_CHECK(sk_lda_split_corpus(&c, 0.1, 1, NULL, &err) != 0, "NULL output accepted");
  sk_lda_split_free(NULL);
  sk_lda_corpus_free(&c);
}

static void test_helpers(void) {
  sk_test_context("timing helpers");
  const double a = sk_ex_now(), b = sk_ex_now();
  SK_CHECK(b >= a && a > 0.0, "clock %g then %g", a, b);
  SK_CHECK(sk_lda_tokens_per_second(1000, 0.5) == 2000.0 && sk_lda_tokens_per_second(5, 0.0) == 0.0, "tokens/s");
  SK_CHECK(sk_lda_peak_rss_bytes() > 0, "peak RSS %lld", (long long)sk_lda_peak_rss_bytes());
}

/* The fold-in's default sweeps: 12 up to K = 1,024 topics, 10 up to 10,000, 20 above (metrics.h). */
static void test_default_foldin_iters(void) {
  sk_test_context("default fold-in sweeps");
  const int32_t Ks[5] = {1, 1024, 10000, 10001, 65536};
  const int expect[5] = {12, 12, 10, 20, 20};
  for (int i = 0; i < 5; ++i)
    SK_CHECK(sk_lda_default_foldin_iters(Ks[i]) == expect[i], "K = %d: %d sweeps, expected %d", (int)Ks[i],
             sk_lda_default_foldin_iters(Ks[i]), expect[i]);
  /* up to K = 1,024 all but the last two sweeps uncollapsed, above none */
  const int sweeps[7] = {0, 1, 2, 3, 12, 12, 10}, topics[7] = {5, 5, 1024, 1024, 1024, 1025, 10000},
            uncollapsed[7] = {0, 0, 0, 1, 10, 0, 0};
  for (int i = 0; i < 7; ++i)
    SK_CHECK(sk_lda_detail_fold_uncollapsed(sweeps[i], topics[i]) == uncollapsed[i],
             "%d sweeps at K = %d: %d uncollapsed, expected %d", sweeps[i], topics[i],
             sk_lda_detail_fold_uncollapsed(sweeps[i], topics[i]), uncollapsed[i]);
}

int main(void) {
  test_joint_ll();
  test_heldout_ll();
  test_default_foldin_iters();
  test_split();
  test_helpers();
  return sk_test_finish();
}
