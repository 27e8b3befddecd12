/* The fold-in of documents with phi fixed (metrics.h): the held-out log-likelihood, sk-lda infer and
 * theta.npy share it: collapsed Gibbs sweeps over each document in order.
 *
 * Every draw and score splits (a_k + n_dk) phi_wk into s (every topic, one table a call), q (the word's
 * topics, one table a word a call) and y (the document's topics against the word's phi: the only part a
 * draw adds), after SparseLDA's decomposition (Yao, Mimno and McCallum 2009). SparseLDA's own split put
 * n_dk into the q part, so a draw walked the word's nonzero topics (nearly K for a frequent word) as
 * well as the document's; here a draw walks the document's alone and searches the q table only when it
 * lands there. Why it matters: a test document is one chain of dependent draws, so on the GPU the longest
 * one sets the metric's time (20news at K = 1,024, seed 1, 10% held out: 48,840 draws when the default was
 * 20 sweeps, about 76 ms on an H200 against a 1.1 ms sweep; issue 32). Hence the start from each word's phi
 * and 10 sweeps (sk_lda_default_foldin_iters()). Each part's running sums start from 0 in topic order; the GPU
 * (gpu/metrics_gpu_heldout.cu) computes every term with the same operations and roundings and adds the y
 * part in its own fixed order (metrics_gpu.h).
 *
 * Not done, and why: parallel sweeps (every token of a document drawn from the counts its sweep began
 * with, so a GPU spreads one document over many threads) were tried and measured: they leave the topics
 * less concentrated than collapsed Gibbs's posterior, and one or even 20 collapsed sweeps after them do
 * not bring the score back at large K (kos, K = 10,000, 400 sweeps: -7.607 against collapsed Gibbs's
 * -7.657, where the Monte Carlo spread of one evaluation is about 0.01; bench/RESULTS.md, issue 32). */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"

void sk_lda_detail_fold_tables_free(sk_lda_detail_fold_tables *t) {
  free(t->inv);
  free(t->s_cum);
  free(t->word_start);
  free(t->word_topic);
  free(t->word_q_cum);
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
  t->n_vk = view->n_vk;
  t->alpha_sum = sk_lda_prior_alpha_sum(alpha_k, view->alpha, K);
  t->inv = (double *)malloc((size_t)K * sizeof *t->inv);
  t->s_cum = (double *)malloc((size_t)K * sizeof *t->s_cum);
  t->word_start = (int64_t *)malloc(((size_t)V + 1) * sizeof *t->word_start);
  if (t->inv == NULL || t->s_cum == NULL || t->word_start == NULL) {
    sk_lda_detail_fold_tables_free(t);
    return 1;
  }
  const double vbeta = (double)V * view->beta;
  double run = 0.0;
  for (int32_t k = 0; k < K; ++k) {
    t->inv[k] = 1.0 / ((double)view->n_k[k] + vbeta);
    const double bc = view->beta * t->inv[k];
    run += (alpha_k != NULL ? alpha_k[k] : view->alpha) * bc;
    t->s_cum[k] = run;
  }
  /* B's nonzeros: count a row each, offsets, then gather; rows are independent, so any thread count
     gives the same arrays. */
  threads = sk_lda_detail_threads(threads);
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *b = view->n_vk + (size_t)v * (size_t)K;
    int32_t c = 0;
    for (int32_t k = 0; k < K; ++k) c += b[k] != 0;
    t->word_start[v + 1] = c;
  }
  t->word_start[0] = 0;
  for (int32_t v = 0; v < V; ++v) t->word_start[v + 1] += t->word_start[v];
  const int64_t nnz = t->word_start[V];
  t->word_topic = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *t->word_topic);
  t->word_q_cum = (double *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *t->word_q_cum);
  if (t->word_topic == NULL || t->word_q_cum == NULL) {
    sk_lda_detail_fold_tables_free(t);
    return 1;
  }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *b = view->n_vk + (size_t)v * (size_t)K;
    int64_t j = t->word_start[v];
    double run = 0.0; /* the word's q part: a_k (n_vk c_k), added in topic order from 0 */
    for (int32_t k = 0; k < K; ++k)
      if (b[k] != 0) {
        run += (alpha_k != NULL ? alpha_k[k] : view->alpha) * ((double)b[k] * t->inv[k]);
        t->word_topic[j] = k;
        t->word_q_cum[j++] = run;
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

/* The y part for word w: n_dk phi_wk over the document's nonzero topics in increasing order (a draw's
   token already out of the counts), running sums from 0 into cum (when not NULL); returns the total. */
static double fold_y(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc, int32_t w, double *cum) {
  const int32_t *b = t->n_vk + (size_t)w * (size_t)t->num_topics;
  double run = 0.0;
  for (int32_t j = 0; j < doc->nnz; ++j) {
    const int32_t k = doc->topics[j];
    run += (double)doc->ndk[k] * (((double)b[k] + t->beta) * t->inv[k]);
    if (cum != NULL) cum[j] = run;
  }
  return run;
}

/* Q_w, the q part's total: the last of the word's running sums (0 for a word without counts). */
static double fold_word_q(const sk_lda_detail_fold_tables *t, int32_t w) {
  const int64_t w0 = t->word_start[w], w1 = t->word_start[w + 1];
  return w1 > w0 ? t->word_q_cum[w1 - 1] : 0.0;
}

/* One draw of metrics.h's rule for a token of word w, out of the counts, with u in [0, 1). */
static int32_t fold_draw(const sk_lda_detail_fold_tables *t, sk_lda_detail_fold_doc *doc, int32_t w, double u) {
  const int32_t K = t->num_topics;
  const int64_t w0 = t->word_start[w], w1 = t->word_start[w + 1];
  const double S = t->s_cum[K - 1], Q = fold_word_q(t, w);
  const double Y = fold_y(t, doc, w, doc->y_cum);
  const double x = u * ((S + Q) + Y);
  double x1 = 0.0; /* set by the search whenever it returns -1; gcc 13 cannot see that (-Wmaybe-uninitialized) */
  const int32_t k =
      sk_lda_detail_fold_search_sq(t->s_cum, K, t->word_topic, t->word_q_cum, w0, (int32_t)(w1 - w0), S, Q, x, &x1);
  if (k >= 0) return k;
  if (doc->nnz > 0) return doc->topics[sk_lda_detail_first_above(doc->y_cum, doc->nnz, x1 - Q)];
  return w1 > w0 ? t->word_topic[w1 - 1] : K - 1; /* rounding with no y part: the last entry before it */
}

void sk_lda_detail_fold_in_doc(const sk_lda_detail_fold_tables *t, uint64_t seed, const int32_t *words, int64_t n,
                               int64_t first_index, int iters, sk_lda_detail_fold_doc *doc) {
  const int32_t K = t->num_topics;
  int32_t *z = doc->z;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t w = words[i];
    const int64_t w0 = t->word_start[w];
    const double u = sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first_index + i));
    z[i] = sk_lda_detail_fold_prior_draw(t->s_cum, K, t->word_topic, t->word_q_cum, w0,
                                         (int32_t)(t->word_start[w + 1] - w0), fold_word_q(t, w), u);
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

double sk_lda_detail_fold_word_prob(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc, double norm,
                                    int32_t w) {
  return ((t->s_cum[t->num_topics - 1] + fold_word_q(t, w)) + fold_y(t, doc, w, NULL)) * norm;
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
    doc.y_cum = (double *)malloc((size_t)cap * sizeof *doc.y_cum);
    doc.z = (int32_t *)malloc((size_t)(max_len > 0 ? max_len : 1) * sizeof *doc.z);
    doc.nnz = 0;
    if (sk_lda_detail_all_ready(doc.ndk != NULL && doc.topics != NULL && doc.y_cum != NULL &&
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
    free(doc.y_cum);
    free(doc.z);
  }
  sk_lda_detail_fold_tables_free(&t);
  return failed ? 2 : 0;
}
