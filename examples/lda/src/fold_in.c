/* The fold-in of documents with phi fixed (metrics.h): the held-out log-likelihood, sk-lda infer and
 * theta.npy share it. The draw and the score use SparseLDA's decomposition (Yao, Mimno and McCallum 2009)
 * of (a_k + n_dk)(n_wk + beta) c_k into s_k + r_k + q_k. The dense form cost K terms a draw and a scored
 * token, which at K = 65,536 made the held-out metric 20x the sampler's sweep (issue 32); the sparse
 * form costs the document's and the word's nonzero topics. It is exact because phi is fixed: the s terms
 * depend on neither the document nor the word, so their running sums are one table per call.
 *
 * The GPU (gpu/metrics_gpu_heldout.cu) computes every term with the same operations in the same order
 * of rounding; only its sums are added in another order (metrics_gpu.h). */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"

void sk_lda_detail_fold_tables_free(sk_lda_detail_fold_tables *t) {
  free(t->inv);
  free(t->bc);
  free(t->s_cum);
  free(t->word_start);
  free(t->word_topic);
  free(t->word_count);
  memset(t, 0, sizeof *t);
}

int sk_lda_detail_fold_tables_build(sk_lda_detail_fold_tables *t, const sk_lda_counts_view *view,
                                    const double *alpha_k, int threads) {
  const int32_t K = view->num_topics, V = view->num_words;
  memset(t, 0, sizeof *t);
  t->num_topics = K;
  t->num_words = V;
  t->alpha = view->alpha;
  t->beta = view->beta;
  t->alpha_k = alpha_k;
  t->alpha_sum = sk_lda_prior_alpha_sum(alpha_k, view->alpha, K);
  t->inv = (double *)malloc((size_t)K * sizeof *t->inv);
  t->bc = (double *)malloc((size_t)K * sizeof *t->bc);
  t->s_cum = (double *)malloc((size_t)K * sizeof *t->s_cum);
  t->word_start = (int64_t *)malloc(((size_t)V + 1) * sizeof *t->word_start);
  if (t->inv == NULL || t->bc == NULL || t->s_cum == NULL || t->word_start == NULL) {
    sk_lda_detail_fold_tables_free(t);
    return 1;
  }
  const double vbeta = (double)V * view->beta;
  double run = 0.0;
  for (int32_t k = 0; k < K; ++k) {
    t->inv[k] = 1.0 / ((double)view->n_k[k] + vbeta);
    t->bc[k] = view->beta * t->inv[k];
    run += (alpha_k != NULL ? alpha_k[k] : view->alpha) * t->bc[k];
    t->s_cum[k] = run;
  }
  /* B's nonzeros: count a row each, offsets, then gather; rows are independent, so any thread count
     gives the same arrays. */
  threads = sk_lda_detail_threads(threads);
  int32_t max_nnz = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : max_nnz)
#endif
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *b = view->n_vk + (size_t)v * (size_t)K;
    int32_t c = 0;
    for (int32_t k = 0; k < K; ++k) c += b[k] != 0;
    t->word_start[v + 1] = c;
    if (c > max_nnz) max_nnz = c;
  }
  t->word_start[0] = 0;
  for (int32_t v = 0; v < V; ++v) t->word_start[v + 1] += t->word_start[v];
  t->max_word_nnz = max_nnz;
  const int64_t nnz = t->word_start[V];
  t->word_topic = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *t->word_topic);
  t->word_count = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *t->word_count);
  if (t->word_topic == NULL || t->word_count == NULL) {
    sk_lda_detail_fold_tables_free(t);
    return 1;
  }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *b = view->n_vk + (size_t)v * (size_t)K;
    int64_t j = t->word_start[v];
    for (int32_t k = 0; k < K; ++k)
      if (b[k] != 0) {
        t->word_topic[j] = k;
        t->word_count[j++] = b[k];
      }
  }
  return 0;
}

/* Adds one to topic k, inserting it into the sorted nonzero topics when it was zero (document rows are
   short, so a move of the tail costs no more than the draw's walk over them). */
static void fold_doc_add(sk_lda_detail_fold_doc *doc, int32_t k) {
  if (doc->ndk[k]++ != 0) return;
  int32_t j = doc->nnz;
  while (j > 0 && doc->topics[j - 1] > k) {
    doc->topics[j] = doc->topics[j - 1];
    --j;
  }
  doc->topics[j] = k;
  ++doc->nnz;
}

/* Takes one from topic k, removing it from the nonzero topics when it reaches zero. */
static void fold_doc_remove(sk_lda_detail_fold_doc *doc, int32_t k) {
  if (--doc->ndk[k] != 0) return;
  int32_t j = 0;
  while (doc->topics[j] != k) ++j;
  for (; j + 1 < doc->nnz; ++j) doc->topics[j] = doc->topics[j + 1];
  --doc->nnz;
}

/* One draw of the sparse rule (metrics.h) for word w with u in [0, 1). */
static int32_t fold_draw(const sk_lda_detail_fold_tables *t, sk_lda_detail_fold_doc *doc, int32_t w, double u) {
  const int32_t K = t->num_topics, nnz = doc->nnz;
  const int64_t w0 = t->word_start[w];
  const int32_t m = (int32_t)(t->word_start[w + 1] - w0);
  const int32_t *wt = t->word_topic + w0, *wc = t->word_count + w0;
  const double s_total = t->s_cum[K - 1];
  double run = s_total;
  for (int32_t j = 0; j < nnz; ++j) {
    const int32_t k = doc->topics[j];
    run += (double)doc->ndk[k] * t->bc[k];
    doc->r_cum[j] = run;
  }
  if (t->alpha_k == NULL) {
    for (int32_t j = 0; j < m; ++j) {
      const int32_t k = wt[j];
      run += (t->alpha + (double)doc->ndk[k]) * ((double)wc[j] * t->inv[k]);
      doc->q_cum[j] = run;
    }
  } else {
    for (int32_t j = 0; j < m; ++j) {
      const int32_t k = wt[j];
      run += (t->alpha_k[k] + (double)doc->ndk[k]) * ((double)wc[j] * t->inv[k]);
      doc->q_cum[j] = run;
    }
  }
  const double x = u * run;
  if (s_total > x) return sk_lda_detail_first_above(t->s_cum, K, x);
  if (nnz > 0 && doc->r_cum[nnz - 1] > x) return doc->topics[sk_lda_detail_first_above(doc->r_cum, nnz, x)];
  if (m > 0) return wt[sk_lda_detail_first_above(doc->q_cum, m, x)]; /* the last q entry when none is above */
  return nnz > 0 ? doc->topics[nnz - 1] : K - 1;                     /* rounding: the sequence's last entry */
}

void sk_lda_detail_fold_in_doc(const sk_lda_detail_fold_tables *t, uint64_t seed, const int32_t *words, int64_t n,
                               int64_t first_index, int iters, sk_lda_detail_fold_doc *doc) {
  const int32_t K = t->num_topics;
  int32_t *z = doc->z;
  for (int64_t i = 0; i < n; ++i) {
    z[i] = sk_lda_detail_uniform_index(sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first_index + i)),
                                       K);
    fold_doc_add(doc, z[i]);
  }
  for (int it = 0; it < iters; ++it) {
    const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)it);
    for (int64_t i = 0; i < n; ++i) {
      fold_doc_remove(doc, z[i]);
      z[i] = fold_draw(t, doc, words[i], sk_rng_uniform_f64(seed, stream, (uint64_t)(first_index + i)));
      fold_doc_add(doc, z[i]);
    }
  }
}

double sk_lda_detail_fold_doc_sr(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc) {
  double sr = t->s_cum[t->num_topics - 1];
  for (int32_t j = 0; j < doc->nnz; ++j) sr += (double)doc->ndk[doc->topics[j]] * t->bc[doc->topics[j]];
  return sr;
}

double sk_lda_detail_fold_word_prob(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc, double sr,
                                    double norm, int32_t w) {
  double p = sr;
  for (int64_t j = t->word_start[w]; j < t->word_start[w + 1]; ++j) {
    const int32_t k = t->word_topic[j];
    const double a = t->alpha_k != NULL ? t->alpha_k[k] : t->alpha;
    p += (a + (double)doc->ndk[k]) * ((double)t->word_count[j] * t->inv[k]);
  }
  return p * norm;
}

int sk_lda_detail_fold_in_docs(const sk_lda_counts_view *view, const double *alpha_k, const sk_lda_corpus *docs,
                               int64_t max_len, int iters, int threads, sk_lda_detail_fold_in_visit visit, void *ctx) {
  const int32_t K = view->num_topics, D = docs->num_docs;
  sk_lda_detail_fold_tables t;
  threads = sk_lda_detail_threads(threads);
  if (sk_lda_detail_fold_tables_build(&t, view, alpha_k, threads) != 0) return 1;
  const int64_t cap = max_len < K ? (max_len > 0 ? max_len : 1) : K; /* a document's nonzero topics */
  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    sk_lda_detail_fold_doc doc;
    doc.ndk = (int32_t *)calloc((size_t)K, sizeof *doc.ndk);
    doc.topics = (int32_t *)malloc((size_t)cap * sizeof *doc.topics);
    doc.r_cum = (double *)malloc((size_t)cap * sizeof *doc.r_cum);
    doc.q_cum = (double *)malloc((size_t)(t.max_word_nnz > 0 ? t.max_word_nnz : 1) * sizeof *doc.q_cum);
    doc.z = (int32_t *)malloc((size_t)(max_len > 0 ? max_len : 1) * sizeof *doc.z);
    doc.nnz = 0;
    if (sk_lda_detail_all_ready(doc.ndk != NULL && doc.topics != NULL && doc.r_cum != NULL && doc.q_cum != NULL &&
                                    doc.z != NULL,
                                &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
      for (int32_t d = 0; d < D; ++d) {
        const int64_t first = docs->doc_offsets[d], n = docs->doc_offsets[d + 1] - first;
        sk_lda_detail_fold_in_doc(&t, view->seed, docs->tokens + first, n, first, iters, &doc);
        visit(ctx, d, &t, &doc, n);
        for (int32_t j = 0; j < doc.nnz; ++j) doc.ndk[doc.topics[j]] = 0;
        doc.nnz = 0;
      }
    }
    free(doc.ndk);
    free(doc.topics);
    free(doc.r_cum);
    free(doc.q_cum);
    free(doc.z);
  }
  sk_lda_detail_fold_tables_free(&t);
  return failed ? 2 : 0;
}
