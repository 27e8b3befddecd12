/*
 * Per-topic document-topic priors (model.h's alpha_k, what --optimize-every learns) through the CPU
 * samplers, the metrics and the files, each against a computation written here from the documented
 * formulas:
 *  - CGS with alpha_k all equal to alpha gives the symmetric chain's topics bit for bit; CPU ESCA's topics
 *    with asymmetric alpha_k equal the draw rule re-implemented here token by token (the exact chains with
 *    alpha_k are test_sampler's);
 *  - the joint log-likelihood with alpha_k against the direct sum over every document and topic, and the
 *    held-out log-likelihood against a fold-in and score re-implemented here;
 *  - theta.txt's rows with alpha_k, and the symmetric file unchanged byte for byte;
 *  - the checkpoint (format version 3) and the model file (version 2) round trips of alpha_k and the learnt
 *    beta, each written back byte for byte, a symmetric run's files still versions 2 and 1, bad priors
 *    refused, the resume from a model file taking alpha_k, and infer copying them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgs.h"
#include "lda_test_fold.h"
#include "checkpoint.h"
#include "infer.h"
#include "lda_test_corpus.h"
#include "lda_test_esca.h"
#include "metrics.h"
#include "model.h"
#include "model_file.h"
#include "output.h"
#include "samplekit/rng.h"
#include "sk_test.h"

#include "lda_test_files.h"

static int same_file(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
  const int same = x != NULL && y != NULL && na == nb && memcmp(x, y, na) == 0;
  free(x);
  free(y);
  return same;
}

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)); }

/* A model of K topics on a uniform corpus after two ESCA sweeps, with per-topic priors 0.05 + 0.3 k when
   `asymmetric` (else alpha for every topic). */
static int make_model(sk_lda_model *m, sk_lda_corpus *c, int32_t K, int asymmetric, uint64_t seed) {
  sk_ex_error err;
  *c = make_uniform_corpus(40, 30, 25, seed);
  if (!SK_CHECK(sk_lda_model_init(m, c, K, 0.4, 0.05, seed, &err) == 0 && esca_sweep(m, 0, 1, &err) == 0 &&
                    esca_sweep(m, 1, 1, &err) == 0,
                "model: %s", err.message))
    return 0;
  if (!asymmetric) return 1;
  double *a = (double *)malloc((size_t)K * sizeof *a);
  for (int32_t k = 0; k < K; ++k) a[k] = 0.05 + 0.3 * k;
  const int ok = SK_CHECK(sk_lda_model_set_priors(m, a, 0.07, &err) == 0, "priors: %s", err.message);
  free(a);
  return ok;
}

/* ---- samplers ---------------------------------------------------------------------------------------- */

static void test_samplers(void) {
  sk_ex_error err;
  sk_lda_corpus c, c2;
  sk_lda_model a, b;
  sk_test_context("CGS with equal alpha_k is the symmetric chain");
  if (make_model(&a, &c, 6, 0, 3) && make_model(&b, &c2, 6, 0, 3)) {
    double equal[6];
    for (int k = 0; k < 6; ++k) equal[k] = a.alpha;
    SK_CHECK(sk_lda_model_set_priors(&b, equal, b.beta, &err) == 0, "priors: %s", err.message);
    for (uint64_t it = 2; it < 5; ++it)
      SK_CHECK(sk_lda_cgs_sweep(&a, it, &err) == 0 && sk_lda_cgs_sweep(&b, it, &err) == 0, "sweep: %s", err.message);
    SK_CHECK(memcmp(a.z, b.z, (size_t)a.num_tokens * sizeof *a.z) == 0, "topics differ");
    const double la = sk_lda_joint_ll_per_token(&a), lb = sk_lda_joint_ll_per_token(&b);
    SK_CHECK(close_rel(la, lb, 1e-13), "joint LL %.17g symmetric, %.17g with equal alpha_k", la, lb);
  }
  sk_lda_model_free(&a), sk_lda_model_free(&b);
  sk_lda_corpus_free(&c), sk_lda_corpus_free(&c2);

  sk_test_context("CPU ESCA's draws with alpha_k, token by token");
  if (make_model(&a, &c, 9, 1, 5)) {
    const int32_t K = a.num_topics;
    const double vbeta = (double)a.num_words * a.beta;
    int32_t *expect = (int32_t *)malloc((size_t)a.num_tokens * sizeof *expect);
    double *cum = (double *)malloc((size_t)K * sizeof *cum);
    const uint64_t iteration = 7;
    int64_t below = 0, above = 0;
    for (int32_t d = 0; d < a.num_docs; ++d)
      for (int64_t t = c.doc_offsets[d]; t < c.doc_offsets[d + 1]; ++t) {
        const int32_t v = c.tokens[t];
        double run = 0.0, s = 0.0;
        for (int32_t k = 0; k < K; ++k) { /* the prior part: sum_k alpha_k B_hat[v,k] */
          run += a.alpha_k[k] * (((double)a.n_vk[(size_t)v * K + k] + a.beta) * (1.0 / ((double)a.n_k[k] + vbeta)));
          cum[k] = run;
        }
        for (int32_t j = 0; j < a.dk_nnz[d]; ++j) {
          const int32_t k = a.dk_topic[a.dk_start[d] + j];
          s += (double)a.dk_count[a.dk_start[d] + j] *
               (((double)a.n_vk[(size_t)v * K + k] + a.beta) * (1.0 / ((double)a.n_k[k] + vbeta)));
        }
        const double x = sk_rng_uniform_f64(a.seed, iteration, (uint64_t)t) * (s + cum[K - 1]);
        int32_t pick = -1;
        if (x < s) {
          double s2 = 0.0;
          for (int32_t j = 0; j < a.dk_nnz[d] && pick < 0; ++j) {
            const int32_t k = a.dk_topic[a.dk_start[d] + j];
            s2 += (double)a.dk_count[a.dk_start[d] + j] *
                  (((double)a.n_vk[(size_t)v * K + k] + a.beta) * (1.0 / ((double)a.n_k[k] + vbeta)));
            if (s2 > x) pick = k;
          }
          ++below;
        } else {
          for (int32_t k = 0; k < K && pick < 0; ++k)
            if (cum[k] > x - s) pick = k;
          if (pick < 0) pick = K - 1;
          ++above;
        }
        expect[t] = pick;
      }
    if (SK_CHECK(esca_sweep(&a, iteration, 2, &err) == 0, "sweep: %s", err.message)) {
      int64_t bad = 0;
      for (int64_t t = 0; t < a.num_tokens; ++t) bad += a.z[t] != expect[t];
      SK_CHECK(bad == 0 && below > 0 && above > 0, "%lld of %lld tokens differ from the rule (%lld sparse, %lld prior)",
               (long long)bad, (long long)a.num_tokens, (long long)below, (long long)above);
    }
    free(expect);
    free(cum);
  }
  sk_lda_model_free(&a);
  sk_lda_corpus_free(&c);
}

/* ---- metrics ----------------------------------------------------------------------------------------- */

/* The held-out score of the documented sparse rule (metrics.h), written out here with alpha_k: each draw
   lays out the whole sequence (s_k for every k, r_k where n_dk > 0, q_k where n_wk > 0, by scans over k)
   and walks it. */
static double heldout_direct(const sk_lda_model *m, const sk_lda_corpus *obs, const sk_lda_corpus *held, int iters) {
  const int32_t K = m->num_topics;
  double A = 0.0, total = 0.0;
  for (int32_t k = 0; k < K; ++k) A += m->alpha_k[k];
  int32_t ndk[16], z[64];
  int64_t n64[16], b64[16];
  double c[16];
  for (int32_t k = 0; k < K; ++k) c[k] = 1.0 / ((double)m->n_k[k] + (double)m->num_words * m->beta);
  int64_t cnt[16], *nvk = (int64_t *)malloc((size_t)m->num_words * (size_t)K * sizeof *nvk);
  double xw[16], y[16];
  uint64_t fx[16];
  if (nvk == NULL) return NAN;
  for (size_t e = 0; e < (size_t)m->num_words * (size_t)K; ++e) nvk[e] = m->n_vk[e];
  for (int32_t d = 0; d < obs->num_docs; ++d) {
    const int64_t first = obs->doc_offsets[d], n = obs->doc_offsets[d + 1] - first;
    memset(ndk, 0, sizeof ndk);
    for (int32_t k = 0; k < K; ++k) n64[k] = 0;
    for (int64_t i = 0; i < n; ++i) { /* the start: each token drawn from its word's phi alone */
      const int32_t *b = m->n_vk + (size_t)obs->tokens[first + i] * (size_t)K;
      for (int32_t k = 0; k < K; ++k) b64[k] = b[k];
      z[i] = lda_test_fold_draw(n64, b64, c, m->alpha_k, m->beta, K,
                                sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first + i)));
    }
    const int uncollapsed = K <= 1024 && iters > 2 ? iters - 2 : 0; /* metrics.h */
    for (int it = 0; it < uncollapsed; ++it)
      lda_test_fold_uncollapsed(nvk, c, m->alpha_k, m->beta, K, m->seed, it, obs->tokens + first, n, first, z, cnt,
                                xw, fx, y);
    for (int64_t i = 0; i < n; ++i) ++ndk[z[i]];
    for (int it = uncollapsed; it < iters; ++it) /* the rule of lda_test_fold.h */
      for (int64_t i = 0; i < n; ++i) {
        const int32_t *b = m->n_vk + (size_t)obs->tokens[first + i] * (size_t)K;
        --ndk[z[i]];
        for (int32_t k = 0; k < K; ++k) n64[k] = ndk[k], b64[k] = b[k];
        const double u = sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_FOLDIN((uint64_t)it), (uint64_t)(first + i));
        ++ndk[z[i] = lda_test_fold_draw(n64, b64, c, m->alpha_k, m->beta, K, u)];
      }
    for (int32_t k = 0; k < K; ++k) n64[k] = ndk[k];
    for (int64_t t = held->doc_offsets[d]; t < held->doc_offsets[d + 1]; ++t) {
      const int32_t *b = m->n_vk + (size_t)held->tokens[t] * (size_t)K;
      for (int32_t k = 0; k < K; ++k) b64[k] = b[k];
      total += log(lda_test_fold_weight(n64, b64, c, m->alpha_k, m->beta, K) / ((double)n + A));
    }
  }
  free(nvk);
  return total / (double)held->num_tokens;
}

static void test_metrics(void) {
  sk_ex_error err;
  sk_lda_corpus c;
  sk_lda_model m;
  sk_test_context("metrics with alpha_k");
  if (!make_model(&m, &c, 7, 1, 9)) {
    sk_lda_corpus_free(&c);
    return;
  }
  const int32_t K = m.num_topics, V = m.num_words;
  double A = 0.0, ll = 0.0;
  for (int32_t k = 0; k < K; ++k) A += m.alpha_k[k];
  for (int32_t d = 0; d < m.num_docs; ++d) {
    ll += lgamma(A) - lgamma(A + (double)(c.doc_offsets[d + 1] - c.doc_offsets[d]));
    for (int32_t k = 0; k < K; ++k) ll += lgamma((double)sk_lda_model_doc_count(&m, d, k) + m.alpha_k[k]) - lgamma(m.alpha_k[k]);
  }
  for (int32_t k = 0; k < K; ++k) {
    ll += lgamma((double)V * m.beta) - lgamma((double)V * m.beta + (double)m.n_k[k]);
    for (int32_t v = 0; v < V; ++v) ll += lgamma((double)m.n_vk[(size_t)v * K + k] + m.beta) - lgamma(m.beta);
  }
  const double got = sk_lda_joint_ll_per_token(&m), want = ll / (double)m.num_tokens;
  SK_CHECK(close_rel(got, want, 1e-12), "joint LL %.17g, direct %.17g", got, want);
  SK_CHECK(fabs(A - sk_lda_model_alpha_sum(&m)) == 0.0, "alpha sum");
  /* held-out: 12 documents of up to 30 tokens each half */
  sk_lda_corpus obs = make_uniform_corpus(12, V, 30, 17), held = make_uniform_corpus(12, V, 30, 18);
  double h = 0.0;
  if (SK_CHECK(sk_lda_heldout_ll(&m, &obs, &held, 5, 2, &h, &err) == 0, "held-out: %s", err.message)) {
    const double direct = heldout_direct(&m, &obs, &held, 5);
    SK_CHECK(close_rel(h, direct, 1e-12), "held-out LL %.17g, direct %.17g", h, direct);
  }
  /* the same through a counts view with the priors given apart (sk-lda eval's path) */
  const sk_lda_counts_view view = {K, V, m.alpha, m.beta, m.seed, m.n_vk, m.n_k};
  double hv = 0.0, hs = 0.0;
  SK_CHECK(sk_lda_heldout_ll_priors(&view, m.alpha_k, &obs, &held, 5, 1, &hv, &err) == 0 && memcmp(&hv, &h, sizeof h) == 0,
           "view with alpha_k: %.17g, model %.17g", hv, h);
  SK_CHECK(sk_lda_heldout_ll_counts(&view, &obs, &held, 5, 1, &hs, &err) == 0 && hs != h, "symmetric view gave the same");
  m.alpha_k[2] = -1.0;
  SK_CHECK(sk_lda_heldout_ll_priors(&view, m.alpha_k, &obs, &held, 5, 1, &hv, &err) != 0, "a negative prior accepted");
  m.alpha_k[2] = 0.65;
  sk_lda_corpus_free(&obs);
  sk_lda_corpus_free(&held);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&c);
}

/* ---- theta.txt --------------------------------------------------------------------------------------- */

static void test_doc_topics(void) {
  sk_ex_error err;
  sk_test_context("theta.txt with alpha_k");
  const int64_t start[3] = {0, 2, 2};
  const int32_t nnz[2] = {2, 0}, topic[2] = {0, 2}, count[2] = {3, 1};
  const double a[3] = {0.5, 0.25, 1.25};
  const char *p = tpath("theta.txt"), *q = tpath("theta_sym.txt"), *r = tpath("theta_sym2.txt");
  if (SK_CHECK(sk_lda_write_doc_topics_priors(p, 2, 3, 0.5, a, start, nnz, topic, count, NULL, &err) == 0, "write: %s",
               err.message)) {
    size_t n = 0;
    char *got = (char *)slurp(p, &n);
    char want[600];
    snprintf(want, sizeof want,
             "# sk-lda document topics: doc_id k:theta_dk ... for n_dk > 0; K=3 per-topic alpha_k, sum_k alpha_k=2; "
             "theta_dk = (n_dk + alpha_k) / (n_d + sum_k alpha_k); unlisted topics have alpha_k / (n_d + sum_k "
             "alpha_k)\n0 0:%.6g 2:%.6g\n1\n",
             3.5 / 6.0, 2.25 / 6.0);
    SK_CHECK(got != NULL && strcmp(got, want) == 0, "theta.txt:\n%s\nwanted:\n%s", got ? got : "", want);
    free(got);
  }
  SK_CHECK(sk_lda_write_doc_topics_priors(q, 2, 3, 0.5, NULL, start, nnz, topic, count, NULL, &err) == 0 &&
               sk_lda_write_doc_topics(r, 2, 3, 0.5, start, nnz, topic, count, NULL, &err) == 0 && same_file(q, r),
           "the symmetric file changed");
  const double bad[3] = {0.5, NAN, 1.0};
  SK_CHECK(sk_lda_write_doc_topics_priors(p, 2, 3, 0.5, bad, start, nnz, topic, count, NULL, &err) != 0,
           "a NaN prior written");
}

/* ---- files ------------------------------------------------------------------------------------------- */

static void test_checkpoint(void) {
  sk_ex_error err;
  sk_test_context("checkpoint with learnt priors");
  int32_t z[5] = {0, 2, 1, 1, 0};
  double a[3] = {0.125, 3.5, 1e-10};
  const char metrics[] = "iteration\n1\n";
  sk_lda_checkpoint c, back;
  memset(&c, 0, sizeof c);
  c.sampler = 0, c.num_topics = 3, c.num_words = 4, c.num_docs = 2, c.fingerprint = 7u, c.num_tokens = 5;
  c.alpha = 0.5, c.beta = 0.01, c.seed = 2, c.sweeps = 9, c.seconds = 1.0, c.metrics = metrics;
  c.metrics_len = strlen(metrics), c.z = z;
  char p2[512], p3[512], again[512]; /* tpath() reuses its buffers */
  snprintf(p2, sizeof p2, "%s", tpath("c2.skc"));
  snprintf(p3, sizeof p3, "%s", tpath("c3.skc"));
  snprintf(again, sizeof again, "%s", tpath("c3b.skc"));
  SK_CHECK(sk_lda_checkpoint_write(p2, &c, &err) == 0, "write: %s", err.message);
  c.alpha_k = a, c.prior_beta = 0.0375;
  SK_CHECK(sk_lda_checkpoint_write(p3, &c, &err) == 0, "write: %s", err.message);
  if (SK_CHECK(sk_lda_checkpoint_read(p2, &back, &err) == 0, "read: %s", err.message)) {
    SK_CHECK(back.version == SK_LDA_CHECKPOINT_VERSION && back.alpha_k == NULL, "a symmetric run's checkpoint: version %u",
             (unsigned)back.version);
    sk_lda_checkpoint_free(&back);
  }
  if (SK_CHECK(sk_lda_checkpoint_read(p3, &back, &err) == 0, "read: %s", err.message)) {
    SK_CHECK(back.version == SK_LDA_CHECKPOINT_VERSION_PRIORS && back.alpha_k != NULL &&
                 memcmp(back.alpha_k, a, sizeof a) == 0 && back.prior_beta == 0.0375 && back.beta == 0.01 &&
                 back.alpha == 0.5 && memcmp(back.z, z, sizeof z) == 0,
             "priors differ after the round trip (version %u)", (unsigned)back.version);
    SK_CHECK(sk_lda_checkpoint_write(again, &back, &err) == 0 && same_file(p3, again), "written back, the bytes differ");
    sk_lda_checkpoint_free(&back);
    SK_CHECK(back.alpha_k == NULL, "free left alpha_k");
  }
  size_t n2 = 0, n3 = 0;
  unsigned char *b2 = slurp(p2, &n2), *b3 = slurp(p3, &n3);
  SK_CHECK(b2 != NULL && b3 != NULL && n3 == n2 + 8 + 3 * 8 && b3[8] == 3 && b2[8] == 2, "sizes %zu and %zu, versions",
           n2, n3);
  for (size_t len = 0; b3 != NULL && len < n3; len += 5) {
    FILE *f = fopen(tpath("cut.skc"), "wb");
    if (f != NULL && len > 0 && fwrite(b3, 1, len, f) != len) fprintf(stderr, "short write\n");
    if (f != NULL) fclose(f);
    SK_CHECK(sk_lda_checkpoint_read(tpath("cut.skc"), &back, &err) != 0, "truncated to %zu accepted", len);
  }
  free(b2);
  free(b3);
  a[1] = 0.0;
  SK_CHECK(sk_lda_checkpoint_write(tpath("bad.skc"), &c, &err) != 0 && strstr(err.message, "topic 1") != NULL,
           "alpha_k = 0 written (%s)", err.message);
  a[1] = 3.5, c.prior_beta = -1.0;
  SK_CHECK(sk_lda_checkpoint_write(tpath("bad.skc"), &c, &err) != 0, "a negative learnt beta written");
  c.prior_beta = 0.5, c.version = SK_LDA_CHECKPOINT_VERSION_NO_VOCAB;
  SK_CHECK(sk_lda_checkpoint_write(tpath("bad.skc"), &c, &err) != 0, "learnt priors in a version-1 file");
}

static void test_model_file(void) {
  sk_ex_error err;
  sk_lda_corpus c;
  sk_lda_model m, r;
  sk_test_context("model file with alpha_k, resume, infer");
  if (!make_model(&m, &c, 5, 1, 13)) {
    sk_lda_corpus_free(&c);
    return;
  }
  char path[512], zpath[512], again[512]; /* tpath() reuses its buffers */
  snprintf(path, sizeof path, "%s", tpath("m.skl"));
  snprintf(zpath, sizeof zpath, "%s", tpath("z.bin"));
  snprintf(again, sizeof again, "%s", tpath("m2.skl"));
  sk_lda_model_file mf;
  uint64_t iterations = 0;
  if (SK_CHECK(sk_lda_model_save(path, &m, NULL, 2, &err) == 0 && sk_lda_z_write(zpath, m.z, m.num_tokens, 5, &err) == 0,
               "save: %s", err.message) &&
      SK_CHECK(sk_lda_model_file_read(path, &mf, &err) == 0, "read: %s", err.message)) {
    size_t n = 0;
    unsigned char *b = slurp(path, &n);
    SK_CHECK(b != NULL && b[8] == 2 && b[12] == 2, "version %d, flags %d", b ? b[8] : -1, b ? b[12] : -1);
    for (size_t len = 0; b != NULL && len < n; len += 3) { /* every third truncation is refused */
      FILE *f = fopen(tpath("cut.skl"), "wb");
      if (f != NULL && len > 0 && fwrite(b, 1, len, f) != len) fprintf(stderr, "short write\n");
      if (f != NULL) fclose(f);
      sk_lda_model_file cut;
      if (!SK_CHECK(sk_lda_model_file_read(tpath("cut.skl"), &cut, &err) != 0, "truncated to %zu accepted", len))
        sk_lda_model_file_free(&cut);
    }
    free(b);
    SK_CHECK(mf.alpha_k != NULL && memcmp(mf.alpha_k, m.alpha_k, 5 * sizeof *m.alpha_k) == 0 && mf.beta == m.beta &&
                 mf.alpha == m.alpha,
             "priors differ after the round trip");
    SK_CHECK(sk_lda_model_file_write(again, &mf, &err) == 0 && same_file(path, again), "written back, the bytes differ");
    /* infer copies the priors and folds in with them */
    sk_lda_infer_result ir;
    if (SK_CHECK(sk_lda_infer(&mf, &c, 3, 5, 1, &ir, &err) == 0, "infer: %s", err.message)) {
      SK_CHECK(ir.alpha_k != NULL && memcmp(ir.alpha_k, m.alpha_k, 5 * sizeof *m.alpha_k) == 0, "infer's alpha_k");
      sk_lda_infer_result_free(&ir);
    }
    mf.alpha_k[0] = -2.0;
    SK_CHECK(sk_lda_model_file_write(tpath("bad.skl"), &mf, &err) != 0, "a negative prior written");
    sk_lda_model_file_free(&mf);
  }
  if (SK_CHECK(sk_lda_model_resume(&r, &c, NULL, path, zpath, &iterations, &err) == 0, "resume: %s", err.message)) {
    SK_CHECK(iterations == 2 && r.alpha_k != NULL && memcmp(r.alpha_k, m.alpha_k, 5 * sizeof *m.alpha_k) == 0 &&
                 r.beta == m.beta,
             "the resumed model's priors differ");
    sk_lda_model_free(&r);
  }
  /* a symmetric model is still written as version 1 */
  SK_CHECK(sk_lda_model_set_priors(&m, NULL, m.beta, &err) == 0 && sk_lda_model_save(path, &m, NULL, 2, &err) == 0,
           "save: %s", err.message);
  size_t n = 0;
  unsigned char *b = slurp(path, &n);
  SK_CHECK(b != NULL && b[8] == 1 && b[12] == 0, "a symmetric model file: version %d, flags %d", b ? b[8] : -1,
           b ? b[12] : -1);
  free(b);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&c);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/sk_lda_test_priors_XXXXXX");
  if (mkdtemp(g_dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  test_samplers();
  test_metrics();
  test_doc_topics();
  test_checkpoint();
  test_model_file();
  sk_lda_esca_tables_free(test_esca_tables());
  const char *names[] = {"theta.txt", "theta_sym.txt", "theta_sym2.txt", "c2.skc", "c3.skc", "c3b.skc", "cut.skc",
                         "bad.skc", "m.skl", "m2.skl", "z.bin", "bad.skl", "cut.skl"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) unlink(tpath(names[i]));
  rmdir(g_dir);
  return sk_test_finish();
}
