/* Joint and held-out log-likelihood, timing and memory helpers. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "samplekit/rng.h"

double sk_lda_joint_ll_per_token(const sk_lda_model *m) {
  if (m == NULL || m->z == NULL || m->num_tokens <= 0) return NAN;
  const int32_t K = m->num_topics, V = m->num_words;
  const double alpha = m->alpha, beta = m->beta;
  const double lg_beta = lgamma(beta), lg_vbeta = lgamma((double)V * beta);
  const double lg_alpha = lgamma(alpha), lg_kalpha = lgamma((double)K * alpha);
  /* lgamma is called serially: it writes the global signgam. */
  double word_part = 0.0;
  for (int32_t k = 0; k < K; ++k) word_part += lg_vbeta - lgamma((double)V * beta + (double)m->n_k[k]);
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *b = m->n_vk + (size_t)v * (size_t)K;
    double row = 0.0;
    for (int32_t k = 0; k < K; ++k)
      if (b[k] != 0) row += lgamma((double)b[k] + beta) - lg_beta;
    word_part += row;
  }
  double doc_part = 0.0;
  if (m->alpha_k != NULL) return (word_part + sk_lda_detail_doc_part_prior(m)) / (double)m->num_tokens;
  for (int32_t d = 0; d < m->num_docs; ++d) {
    const int64_t n = m->corpus->doc_offsets[d + 1] - m->corpus->doc_offsets[d];
    double row = lg_kalpha - lgamma((double)K * alpha + (double)n);
    for (int64_t i = m->dk_start[d]; i < m->dk_start[d] + m->dk_nnz[d]; ++i)
      row += lgamma((double)m->dk_count[i] + alpha) - lg_alpha;
    doc_part += row;
  }
  return (word_part + doc_part) / (double)m->num_tokens;
}

double sk_lda_detail_doc_part_prior(const sk_lda_model *m) {
  const int32_t K = m->num_topics;
  const double *alpha_k = m->alpha_k;
  const double asum = sk_lda_model_alpha_sum(m), lg_asum = lgamma(asum);
  double *lg_alpha = (double *)malloc((size_t)K * sizeof *lg_alpha);
  if (lg_alpha == NULL) return NAN;
  for (int32_t k = 0; k < K; ++k) lg_alpha[k] = lgamma(alpha_k[k]);
  double doc_part = 0.0;
  for (int32_t d = 0; d < m->num_docs; ++d) {
    const int64_t n = m->corpus->doc_offsets[d + 1] - m->corpus->doc_offsets[d];
    double row = lg_asum - lgamma(asum + (double)n);
    for (int64_t i = m->dk_start[d]; i < m->dk_start[d] + m->dk_nnz[d]; ++i) {
      const int32_t k = m->dk_topic[i];
      row += lgamma((double)m->dk_count[i] + alpha_k[k]) - lg_alpha[k];
    }
    doc_part += row;
  }
  free(lg_alpha);
  return doc_part;
}

/* The held-out score of one folded-in document: theta from its counts, then each held-out token. */
typedef struct {
  const sk_lda_corpus *heldout;
  double *doc_ll;
} sk_lda_heldout_ctx;

static void sk_lda_heldout_visit(void *p, int32_t d, const sk_lda_detail_fold_tables *t,
                                 const sk_lda_detail_fold_doc *doc, int64_t n_obs) {
  const sk_lda_heldout_ctx *c = (const sk_lda_heldout_ctx *)p;
  const double norm = 1.0 / ((double)n_obs + t->alpha_sum);
  double ll = 0.0;
  for (int64_t i = c->heldout->doc_offsets[d]; i < c->heldout->doc_offsets[d + 1]; ++i)
    ll += log(sk_lda_detail_fold_word_prob(t, doc, norm, c->heldout->tokens[i]));
  c->doc_ll[d] = ll;
}

int sk_lda_heldout_ll_counts(const sk_lda_counts_view *m, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                             int fold_in_iters, int threads, double *ll_per_token, sk_ex_error *err) {
  return sk_lda_heldout_ll_priors(m, NULL, observed, heldout, fold_in_iters, threads, ll_per_token, err);
}

int sk_lda_heldout_ll_priors(const sk_lda_counts_view *m, const double *alpha_k, const sk_lda_corpus *observed,
                             const sk_lda_corpus *heldout, int fold_in_iters, int threads, double *ll_per_token,
                             sk_ex_error *err) {
  if (m == NULL || m->n_vk == NULL || m->n_k == NULL || observed == NULL || heldout == NULL || ll_per_token == NULL)
    return sk_ex_fail(err, "held-out LL: a pointer is NULL or the model is not initialised");
  if (sk_lda_detail_check_alpha_k(alpha_k, m->num_topics, "held-out LL", err) != 0) return 1;
  if (observed->num_docs != heldout->num_docs)
    return sk_ex_fail(err, "held-out LL: %d observed halves but %d held-out halves", (int)observed->num_docs,
                       (int)heldout->num_docs);
  if (fold_in_iters < 0) return sk_ex_fail(err, "held-out LL: %d fold-in iterations", fold_in_iters);
  const int32_t K = m->num_topics, V = m->num_words, D = observed->num_docs;
  const sk_lda_corpus *halves[2] = {observed, heldout};
  int64_t max_len = 0;
  for (int h = 0; h < 2; ++h) {
    const sk_lda_corpus *c = halves[h];
    if (c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL) || c->doc_offsets[0] != 0 ||
        c->doc_offsets[D] != c->num_tokens)
      return sk_ex_fail(err, "held-out LL: the %s corpus is inconsistent", h == 0 ? "observed" : "held-out");
    for (int64_t t = 0; t < c->num_tokens; ++t)
      if (c->tokens[t] < 0 || c->tokens[t] >= V)
        return sk_ex_fail(err, "held-out LL: %s token %lld has word id %d outside 0..%d",
                           h == 0 ? "observed" : "held-out", (long long)t, (int)c->tokens[t], (int)V - 1);
    for (int32_t d = 0; d < D; ++d) {
      const int64_t n = c->doc_offsets[d + 1] - c->doc_offsets[d];
      if (n < 0) return sk_ex_fail(err, "held-out LL: offsets decrease at document %d", (int)d);
      if (n > max_len) max_len = n;
    }
  }
  if (heldout->num_tokens == 0) {
    *ll_per_token = NAN;
    return 0;
  }
  double *doc_ll = (double *)malloc((size_t)(D > 0 ? D : 1) * sizeof *doc_ll);
  if (doc_ll == NULL) return sk_ex_fail(err, "held-out LL: out of memory");
  sk_lda_heldout_ctx ctx = {heldout, doc_ll};
  const int st =
      sk_lda_detail_fold_in_docs(m, alpha_k, observed, max_len, fold_in_iters, threads, sk_lda_heldout_visit, &ctx);
  if (st != 0) {
    free(doc_ll);
    if (st == 1) return sk_ex_fail(err, "held-out LL: out of memory");
    return sk_ex_fail(err, "held-out LL: out of memory for per-thread scratch (K = %d)", (int)K);
  }
  double sum = 0.0; /* serial, in document order: the same bits for any thread count */
  for (int32_t d = 0; d < D; ++d) sum += doc_ll[d];
  *ll_per_token = sum / (double)heldout->num_tokens;
  free(doc_ll);
  return 0;
}

int sk_lda_heldout_ll(const sk_lda_model *m, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                      int fold_in_iters, int threads, double *ll_per_token, sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "held-out LL: a pointer is NULL or the model is not initialised");
  const sk_lda_counts_view view = {m->num_topics, m->num_words, m->alpha, m->beta, m->seed, m->n_vk, m->n_k};
  return sk_lda_heldout_ll_priors(&view, m->alpha_k, observed, heldout, fold_in_iters, threads, ll_per_token, err);
}

double sk_lda_tokens_per_second(int64_t tokens, double seconds) {
  return seconds > 0.0 ? (double)tokens / seconds : 0.0;
}

int64_t sk_lda_peak_rss_bytes(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return (int64_t)ru.ru_maxrss * 1024; /* Linux reports kilobytes */
}
