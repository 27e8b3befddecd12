/* ESCA on the CPU (SaberLDA): every token drawn from the previous sweep's counts. */
#include "esca.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"

/* cum_v[k] for word v: running sums of B_hat over k (end: one past the last topic summed; K except
   under the test-only planted bug). */
static void sk_lda_esca_tables(sk_lda_model *m, int32_t v, int32_t end) {
  const int32_t K = m->num_topics;
  const int32_t *b = m->n_vk + (size_t)v * (size_t)K;
  const double *inv = m->esca_inv_denom;
  double *cum = m->esca_word_cum + (size_t)v * (size_t)K;
  double s = 0.0;
  for (int32_t k = 0; k < end; ++k) {
    s += ((double)b[k] + m->beta) * inv[k];
    cum[k] = s;
  }
  for (int32_t k = end; k < K; ++k) cum[k] = s;
}

/* Draws new topics for document d's tokens (psum: K doubles of scratch). */
static void sk_lda_esca_doc(sk_lda_model *m, uint64_t iteration, int32_t d, double *psum) {
  const int32_t K = m->num_topics;
  const sk_lda_corpus *c = m->corpus;
  const double alpha = m->alpha, beta = m->beta;
  const double *inv = m->esca_inv_denom;
  const int32_t *row_topic = m->dk_topic + m->dk_start[d];
  const int32_t *row_count = m->dk_count + m->dk_start[d];
  const int32_t nnz = m->dk_nnz[d];
  const int own_topic_bug = m->test_bug == SK_LDA_TEST_BUG_DOC_COUNT;
  for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) {
    const size_t row = (size_t)c->tokens[t] * (size_t)K;
    const int32_t *b = m->n_vk + row;
    const double *cum = m->esca_word_cum + row;
    double s = 0.0;
    for (int32_t i = 0; i < nnz; ++i) {
      const int32_t k = row_topic[i];
      const int32_t a = row_count[i] - (own_topic_bug && k == m->z[t] ? 1 : 0);
      s += (double)a * (((double)b[k] + beta) * inv[k]);
      psum[i] = s;
    }
    const double x = sk_rng_uniform_f64(m->seed, iteration, (uint64_t)t) * (s + alpha * cum[K - 1]);
    int32_t k;
    if (x < s) {
      int32_t i = 0;
      while (psum[i] <= x) ++i; /* stops at the latest at nnz - 1, where psum = s > x */
      k = row_topic[i];
    } else {
      const double y = (x - s) / alpha;
      const int32_t lo = sk_lda_detail_first_above(cum, K, y);
      k = lo;
    }
    m->z[t] = k; /* safe in place: a draw reads the counts, not other tokens' topics */
  }
}

int sk_lda_esca_sweep(sk_lda_model *m, uint64_t iteration, int threads, sk_lda_error *err) {
  if (m == NULL || m->z == NULL) return sk_lda_fail(err, "ESCA sweep: model is NULL or not initialised");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_lda_fail(err, "ESCA sweep: iteration %llu is too large", (unsigned long long)iteration);
  const int32_t K = m->num_topics, V = m->num_words;
  if (m->esca_word_cum == NULL) {
    m->esca_word_cum = (double *)malloc((size_t)V * (size_t)K * sizeof *m->esca_word_cum);
    if (m->esca_word_cum == NULL)
      return sk_lda_fail(err, "ESCA sweep: out of memory for the word tables (V = %d, K = %d)", (int)V, (int)K);
  }
  if (m->esca_inv_denom == NULL) {
    m->esca_inv_denom = (double *)malloc((size_t)K * sizeof *m->esca_inv_denom);
    if (m->esca_inv_denom == NULL) return sk_lda_fail(err, "ESCA sweep: out of memory (K = %d)", (int)K);
  }
  threads = sk_lda_detail_threads(threads);
  const double vbeta = (double)V * m->beta;
  for (int32_t k = 0; k < K; ++k) m->esca_inv_denom[k] = 1.0 / ((double)m->n_k[k] + vbeta);
  /* Test-only planted bug: the dense table's loop stops one topic short. */
  const int32_t table_end = m->test_bug == SK_LDA_TEST_BUG_WORD_COUNT && K > 1 ? K - 1 : K;

  if (threads == 1) { /* no OpenMP runtime at all: matters for tiny models */
    double *psum = (double *)malloc((size_t)K * sizeof *psum);
    if (psum == NULL) return sk_lda_fail(err, "ESCA sweep: out of memory (K = %d)", (int)K);
    for (int32_t v = 0; v < V; ++v) sk_lda_esca_tables(m, v, table_end);
    for (int32_t d = 0; d < m->num_docs; ++d) sk_lda_esca_doc(m, iteration, d, psum);
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
    for (int32_t v = 0; v < V; ++v) sk_lda_esca_tables(m, v, table_end);
    /* the loop's implicit barrier: tables complete, and every thread sees the same `failed` */
    if (!failed) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
      for (int32_t d = 0; d < m->num_docs; ++d) sk_lda_esca_doc(m, iteration, d, psum);
    }
    free(psum);
  }
  if (failed) return sk_lda_fail(err, "ESCA sweep: out of memory for per-thread scratch (K = %d)", (int)K);
  return sk_lda_model_recount(m, threads, err);
}
