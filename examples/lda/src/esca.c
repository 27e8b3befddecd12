/* ESCA on the CPU (SaberLDA): every token drawn from the previous sweep's counts. */
#include "esca.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"
#include "sk_ex_memory.h"

void sk_lda_esca_tables_free(sk_lda_esca_tables *t) {
  if (t == NULL) return;
  free(t->word_cum);
  free(t->inv_denom);
  memset(t, 0, sizeof *t);
}

void sk_lda_esca_inv_denom(const sk_lda_model *m, double *inv) {
  const double vbeta = (double)m->num_words * m->beta;
  for (int32_t k = 0; k < m->num_topics; ++k) inv[k] = 1.0 / ((double)m->n_k[k] + vbeta);
}

void sk_lda_esca_word_table(const int32_t *b_row, const double *inv, double beta, int32_t n, double *cum) {
  double s = 0.0;
  for (int32_t k = 0; k < n; ++k) {
    s += ((double)b_row[k] + beta) * inv[k];
    cum[k] = s;
  }
}

void sk_lda_esca_word_table_prior(const int32_t *b_row, const double *inv, const double *alpha_k, double beta,
                                  int32_t n, double *cum) {
  double s = 0.0;
  for (int32_t k = 0; k < n; ++k) {
    s += alpha_k[k] * (((double)b_row[k] + beta) * inv[k]);
    cum[k] = s;
  }
}

/* Word v's dense table for the model's priors: symmetric (scaled by alpha in the draw) or per topic. */
static void sk_lda_esca_table_of(const sk_lda_model *m, const sk_lda_esca_tables *t, int32_t v) {
  const size_t row = (size_t)v * (size_t)m->num_topics;
  if (m->alpha_k == NULL)
    sk_lda_esca_word_table(m->n_vk + row, t->inv_denom, m->beta, m->num_topics, t->word_cum + row);
  else
    sk_lda_esca_word_table_prior(m->n_vk + row, t->inv_denom, m->alpha_k, m->beta, m->num_topics, t->word_cum + row);
}

int32_t sk_lda_esca_draw(const int32_t *row_topic, const int32_t *row_count, int32_t nnz, const int32_t *b_row,
                         const double *cum, const double *inv, int32_t num_topics, double alpha, double beta,
                         double u, double *psum) {
  double s = 0.0;
  /* sk_lda_esca_pair_at()'s order without a division a pair: lane r of the hold takes pairs r, r + 32, ...
     (a longer row: one "lane" of stride nnz per pair, index order) */
  const int32_t stride = nnz <= SK_LDA_ESCA_HOLD_PAIRS ? 32 : nnz;
  int32_t p = 0;
  for (int32_t r = 0; r < stride && r < nnz; ++r)
    for (int32_t i = r; i < nnz; i += stride) {
      const int32_t k = row_topic[i];
      s += (double)row_count[i] * (((double)b_row[k] + beta) * inv[k]);
      psum[p++] = s;
    }
  const double x = u * (s + alpha * cum[num_topics - 1]);
  if (x < s) {
    p = 0;
    while (psum[p] <= x) ++p; /* stops at the latest at nnz - 1, where psum = s > x */
    return row_topic[sk_lda_esca_pair_at(p, nnz)];
  }
  return sk_lda_detail_first_above(cum, num_topics, (x - s) / alpha);
}

/* Draws new topics for document d's tokens (psum: K doubles of scratch). */
static void sk_lda_esca_doc(sk_lda_model *m, const sk_lda_esca_tables *t, uint64_t iteration, int32_t d,
                            double *psum) {
  const int32_t K = m->num_topics;
  const sk_lda_corpus *c = m->corpus;
  const int32_t *row_topic = m->dk_topic + m->dk_start[d];
  const int32_t *row_count = m->dk_count + m->dk_start[d];
  const int32_t nnz = m->dk_nnz[d];
  /* per-topic priors are inside the tables (sk_lda_esca_word_table_prior()): the draw's alpha is then 1,
     and 1 * Q and (x - S) / 1 are exact, so the draw's rule is the same code */
  const double alpha = m->alpha_k == NULL ? m->alpha : 1.0;
  for (int64_t i = c->doc_offsets[d]; i < c->doc_offsets[d + 1]; ++i) {
    const size_t row = (size_t)c->tokens[i] * (size_t)K;
    const double u = sk_rng_uniform_f64(m->seed, iteration, (uint64_t)i);
    /* safe in place: a draw reads the counts, not other tokens' topics */
    m->z[i] = sk_lda_esca_draw(row_topic, row_count, nnz, m->n_vk + row, t->word_cum + row, t->inv_denom, K,
                               alpha, m->beta, u, psum);
  }
}

/* Makes the tables fit the model's shape (V x K); 0 on success. */
static int sk_lda_esca_tables_fit(sk_lda_esca_tables *t, int32_t V, int32_t K, sk_ex_error *err) {
  if (t->word_cum != NULL && t->num_words == V && t->num_topics == K) return 0;
  sk_lda_esca_tables_free(t);
  {
    /* V x K doubles: planned against the host's memory before they are taken (issue 31, case 9). */
    char why[160];
    if (sk_ex_host_memory_refuses(8u * (uint64_t)V * (uint64_t)K + 8u * (uint64_t)K, why, sizeof why))
      return sk_ex_fail(err, "ESCA on the CPU: its word tables (V x K = %d x %d doubles) need %s", (int)V, (int)K, why);
  }
  t->word_cum = (double *)malloc((size_t)V * (size_t)K * sizeof *t->word_cum);
  t->inv_denom = (double *)malloc((size_t)K * sizeof *t->inv_denom);
  if (t->word_cum == NULL || t->inv_denom == NULL) {
    sk_lda_esca_tables_free(t);
    return sk_ex_fail(err, "ESCA sweep: out of memory for the word tables (V = %d, K = %d)", (int)V, (int)K);
  }
  t->num_words = V;
  t->num_topics = K;
  return 0;
}

int sk_lda_esca_sweep(sk_lda_model *m, sk_lda_esca_tables *t, uint64_t iteration, int threads,
                      sk_ex_error *err) {
  if (m == NULL || m->z == NULL || t == NULL)
    return sk_ex_fail(err, "ESCA sweep: model or tables NULL, or model not initialised");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_ex_fail(err, "ESCA sweep: iteration %llu is too large", (unsigned long long)iteration);
  const int32_t K = m->num_topics, V = m->num_words;
  if (sk_lda_esca_tables_fit(t, V, K, err) != 0) return 1;
  threads = sk_lda_detail_threads(threads);
  sk_lda_esca_inv_denom(m, t->inv_denom);

  if (threads == 1) { /* no OpenMP runtime at all: matters for tiny models */
    double *psum = (double *)malloc((size_t)K * sizeof *psum);
    if (psum == NULL) return sk_ex_fail(err, "ESCA sweep: out of memory (K = %d)", (int)K);
    for (int32_t v = 0; v < V; ++v) sk_lda_esca_table_of(m, t, v);
    for (int32_t d = 0; d < m->num_docs; ++d) sk_lda_esca_doc(m, t, iteration, d, psum);
    free(psum);
    return sk_lda_model_recount(m, 1, err);
  }

  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    double *psum = (double *)malloc((size_t)K * sizeof *psum);
    if (psum == NULL) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
      failed = 1;
    }
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (int32_t v = 0; v < V; ++v) sk_lda_esca_table_of(m, t, v);
    /* the loop's implicit barrier: tables complete, and every thread sees the same `failed` */
    if (!failed) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
      for (int32_t d = 0; d < m->num_docs; ++d) sk_lda_esca_doc(m, t, iteration, d, psum);
    }
    free(psum);
  }
  if (failed) return sk_ex_fail(err, "ESCA sweep: out of memory for per-thread scratch (K = %d)", (int)K);
  return sk_lda_model_recount(m, threads, err);
}
