/* The fold-in of documents with phi fixed (metrics.h): the held-out log-likelihood, sk-lda infer and
 * theta.npy share it: uncollapsed sweeps over every document, then collapsed Gibbs sweeps over each
 * document in order.
 *
 * Every draw and score splits (a_k + n_dk) phi_wk into s (every topic, one table a call), q (the word's
 * topics, one table a word a call) and y (the document's topics against the word's phi: the only part a
 * draw adds), after SparseLDA's decomposition (Yao, Mimno and McCallum 2009). SparseLDA's own split put
 * n_dk into the q part, so a draw walked the word's nonzero topics (nearly K for a frequent word) as
 * well as the document's; here a draw walks the document's alone and searches the q table only when it
 * lands there. Why it matters: a test document's collapsed sweeps are one chain of dependent draws, so on
 * the GPU the longest one sets the metric's time (20news at K = 1,024, seed 1, 10% held out: 48,840 draws
 * when the default was 20 collapsed sweeps, about 76 ms on an H200 against a 1.1 ms sweep; issue 32). Hence
 * the start from each word's phi, and up to K = 1,024 all but the last 2 sweeps uncollapsed
 * (sk_lda_default_foldin_iters()):
 * theta_k = X_k + y_k drawn, then every token given theta, with the same three parts (y_k for a_k in s and
 * q, X_k for n_dk in y), so that the tokens of a sweep are independent. Each part's running sums start from
 * 0 in topic order; the GPU (gpu/metrics_gpu_heldout.cu) computes every term with the same operations and
 * roundings and adds the y part in its own fixed order (metrics_gpu.h).
 *
 * Not done, and why: parallel sweeps (every token of a document drawn from the counts its sweep began
 * with, so a GPU spreads one document over many threads) were tried and measured: they leave the topics
 * less concentrated than collapsed Gibbs's posterior, and one or even 20 collapsed sweeps after them do
 * not bring the score back at large K (kos, K = 10,000, 400 sweeps: -7.607 against collapsed Gibbs's
 * -7.657, where the Monte Carlo spread of one evaluation is about 0.01; bench/RESULTS.md, issue 32). The
 * uncollapsed sweep is not that: it draws theta, so its chain has collapsed Gibbs's stationary distribution.
 */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"
#include "samplekit/rng_gamma.h"

void sk_lda_detail_fold_tables_free(sk_lda_detail_fold_tables *t) {
  free(t->inv);
  free(t->s_cum);
  free(t->word_start);
  free(t->word_topic);
  free(t->word_q_cum);
  memset(t, 0, sizeof *t);
}

/* Topic k's document-topic prior a_k. */
static double fold_alpha(const sk_lda_detail_fold_tables *t, int32_t k) {
  return t->alpha_k != NULL ? t->alpha_k[k] : t->alpha;
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
    run += fold_alpha(t, k) * bc;
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
        run += fold_alpha(t, k) * ((double)b[k] * t->inv[k]);
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

/* The document part for word w: n_dk phi_wk (a collapsed draw, the token already out of the counts; x
   NULL) or, in an uncollapsed sweep, X_k phi_wk with x[j] the X of the document's j-th topic, over the
   document's nonzero topics in increasing order, running sums from 0 into cum (when not NULL); returns the
   total. */
static double fold_y(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc, const double *x,
                     int32_t w, double *cum) {
  const int32_t *b = t->n_vk + (size_t)w * (size_t)t->num_topics;
  double run = 0.0;
  for (int32_t j = 0; j < doc->nnz; ++j) {
    const int32_t k = doc->topics[j];
    run += (x != NULL ? x[j] : (double)doc->ndk[k]) * (((double)b[k] + t->beta) * t->inv[k]);
    if (cum != NULL) cum[j] = run;
  }
  return run;
}

/* Q_w, the q part's total: the last of the word's running sums (0 for a word without counts). */
static double fold_word_q(const sk_lda_detail_fold_tables *t, int32_t w) {
  const int64_t w0 = t->word_start[w], w1 = t->word_start[w + 1];
  return w1 > w0 ? t->word_q_cum[w1 - 1] : 0.0;
}

/* One draw of metrics.h's rule for a token of word w with u in [0, 1): the table of every topic s_cum (s,
   or an uncollapsed sweep's r) and the words' tables q_cum (q, or the sweep's q') over B's nonzeros, and
   the document part of x (fold_y(): NULL for the counts, the token already out of them). */
static int32_t fold_draw_from(const sk_lda_detail_fold_tables *t, const double *s_cum, const double *q_cum,
                              sk_lda_detail_fold_doc *doc, const double *x, int32_t w, double u) {
  const int32_t K = t->num_topics;
  const int64_t w0 = t->word_start[w], w1 = t->word_start[w + 1];
  const double S = s_cum[K - 1], Q = w1 > w0 ? q_cum[w1 - 1] : 0.0;
  const double Y = fold_y(t, doc, x, w, doc->y_cum);
  const double ux = u * ((S + Q) + Y);
  double x1 = 0.0; /* set by the search whenever it returns -1; gcc 13 cannot see that (-Wmaybe-uninitialized) */
  const int32_t k = sk_lda_detail_fold_search_sq(s_cum, K, t->word_topic, q_cum, w0, (int32_t)(w1 - w0), S, Q, ux, &x1);
  if (k >= 0) return k;
  if (doc->nnz > 0) return doc->topics[sk_lda_detail_first_above(doc->y_cum, doc->nnz, x1 - Q)];
  return w1 > w0 ? t->word_topic[w1 - 1] : K - 1; /* rounding with no y part: the last entry before it */
}

/* One collapsed draw for a token of word w, out of the counts. */
static int32_t fold_draw(const sk_lda_detail_fold_tables *t, sk_lda_detail_fold_doc *doc, int32_t w, double u) {
  return fold_draw_from(t, t->s_cum, t->word_q_cum, doc, NULL, w, u);
}

/* The fold-in's start for a document's tokens: each drawn from its word's phi alone (metrics.h). */
static void fold_start(const sk_lda_detail_fold_tables *t, uint64_t seed, const int32_t *words, int64_t n,
                       int64_t first_index, int32_t *z) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t w = words[i];
    const int64_t w0 = t->word_start[w];
    const double u = sk_rng_uniform_f64(seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first_index + i));
    z[i] = sk_lda_detail_fold_prior_draw(t->s_cum, t->num_topics, t->word_topic, t->word_q_cum, w0,
                                         (int32_t)(t->word_start[w + 1] - w0), fold_word_q(t, w), u);
  }
}

/* Collapsed sweeps it0 .. it1 - 1 of a document whose topics doc->z holds (its counts empty on entry):
   counts them, then for each token in order removes it, draws it by the sparse rule, adds it back. */
static void fold_collapsed(const sk_lda_detail_fold_tables *t, uint64_t seed, const int32_t *words, int64_t n,
                           int64_t first_index, int it0, int it1, sk_lda_detail_fold_doc *doc) {
  int32_t *z = doc->z;
  for (int64_t i = 0; i < n; ++i) fold_doc_add(doc, z[i]);
  for (int it = it0; it < it1; ++it) {
    const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)it);
    for (int64_t i = 0; i < n; ++i) {
      fold_doc_remove(doc, z[i]);
      z[i] = fold_draw(t, doc, words[i], sk_rng_uniform_f64(seed, stream, (uint64_t)(first_index + i)));
      fold_doc_add(doc, z[i]);
    }
  }
}

/* --- uncollapsed sweeps (metrics.h, sk_lda_heldout_ll()) ------------------------------------------- */

/* The tables that an uncollapsed sweep shares across documents: the shared Gamma(a_k) draws y_k, the r
   table (running sums of y_k (beta c_k) in topic order) and, for each word of the documents, its running
   sums of y_k (n_wk c_k) over its nonzero topics (in word_r_cum, laid out as the word's q table). */
typedef struct fold_shared {
  double *y;           /* K */
  double *r_cum;       /* K */
  double *word_r_cum;  /* nnz(B): written for the words marked in used */
  unsigned char *used; /* V: 1 for a word of the documents */
} fold_shared;

static void fold_shared_free(fold_shared *sh) {
  free(sh->y);
  free(sh->r_cum);
  free(sh->word_r_cum);
  free(sh->used);
  memset(sh, 0, sizeof *sh);
}

/* The shared tables of uncollapsed sweep it. */
static void fold_shared_build(const sk_lda_detail_fold_tables *t, uint64_t seed, int it, int threads,
                              fold_shared *sh) {
  const int32_t K = t->num_topics, V = t->num_words;
  double run = 0.0;
  for (int32_t k = 0; k < K; ++k) {
    sh->y[k] = sk_rng_gamma_f64(seed, SK_LDA_STREAM_FOLDIN_SHARED((uint64_t)it),
                                (uint64_t)k * SK_RNG_GAMMA_MAX_UNIFORMS, fold_alpha(t, k));
    run += sh->y[k] * (t->beta * t->inv[k]);
    sh->r_cum[k] = run;
  }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
#endif
  for (int32_t v = 0; v < V; ++v) {
    if (!sh->used[v]) continue;
    const int32_t *b = t->n_vk + (size_t)v * (size_t)K;
    double wrun = 0.0;
    for (int64_t e = t->word_start[v]; e < t->word_start[v + 1]; ++e) {
      const int32_t k = t->word_topic[e];
      wrun += sh->y[k] * ((double)b[k] * t->inv[k]);
      sh->word_r_cum[e] = wrun;
    }
  }
}

/* Uncollapsed sweep it of one document whose topics z holds: theta_k = X_k + y_k with X_k the sum of the
   Exp(1) variates of the document's tokens in topic k (a Gamma(n_dk) variate, added in 2^-32 fixed point
   so that any order gives the same bits), then every token drawn from theta_k phi_wk given that theta.
   doc: the thread's scratch (counts empty on entry and on return); x_fix: K zeros (zeros on return). */
static void fold_uncollapsed(const sk_lda_detail_fold_tables *t, const fold_shared *sh, uint64_t seed,
                             const int32_t *words, int64_t n, int64_t first_index, int it, int32_t *z,
                             sk_lda_detail_fold_doc *doc, uint64_t *x_fix, double *x) {
  for (int64_t i = 0; i < n; ++i) {
    fold_doc_add(doc, z[i]);
    x_fix[z[i]] += sk_lda_detail_fold_exp_fixed(
        sk_rng_exponential_f64(seed, SK_LDA_STREAM_FOLDIN_THETA((uint64_t)it), (uint64_t)(first_index + i)));
  }
  for (int32_t j = 0; j < doc->nnz; ++j) {
    x[j] = sk_lda_detail_fold_fixed_value(x_fix[doc->topics[j]]);
    x_fix[doc->topics[j]] = 0;
  }
  const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)it);
  for (int64_t i = 0; i < n; ++i)
    z[i] = fold_draw_from(t, sh->r_cum, sh->word_r_cum, doc, x, words[i],
                          sk_rng_uniform_f64(seed, stream, (uint64_t)(first_index + i)));
  for (int32_t j = 0; j < doc->nnz; ++j) doc->ndk[doc->topics[j]] = 0;
  doc->nnz = 0;
}

double sk_lda_detail_fold_word_prob(const sk_lda_detail_fold_tables *t, const sk_lda_detail_fold_doc *doc, double norm,
                                    int32_t w) {
  return ((t->s_cum[t->num_topics - 1] + fold_word_q(t, w)) + fold_y(t, doc, NULL, w, NULL)) * norm;
}

/* A thread's fold-in scratch: a document's state, and for the uncollapsed sweeps the fixed-point theta
   (K zeros) and its values (cap). */
typedef struct fold_thread {
  sk_lda_detail_fold_doc doc;
  uint64_t *x_fix;
  double *x;
} fold_thread;

static void fold_thread_free(fold_thread *f) {
  free(f->doc.ndk);
  free(f->doc.topics);
  free(f->doc.y_cum);
  free(f->doc.z);
  free(f->x_fix);
  free(f->x);
}

/* The scratch for documents of at most max_len tokens (doc.z: the collapsed phase keeps a document's topics
   there), the uncollapsed parts only when asked. Returns 1 when all could be had (f is freed either way by
   fold_thread_free()). */
static int fold_thread_alloc(fold_thread *f, int32_t K, int64_t cap, int64_t max_len, int uncollapsed) {
  memset(f, 0, sizeof *f);
  f->doc.ndk = (int32_t *)calloc((size_t)K, sizeof *f->doc.ndk);
  f->doc.topics = (int32_t *)malloc((size_t)cap * sizeof *f->doc.topics);
  f->doc.y_cum = (double *)malloc((size_t)cap * sizeof *f->doc.y_cum);
  f->doc.z = (int32_t *)malloc((size_t)(max_len > 0 ? max_len : 1) * sizeof *f->doc.z);
  if (uncollapsed) {
    f->x_fix = (uint64_t *)calloc((size_t)K, sizeof *f->x_fix);
    f->x = (double *)malloc((size_t)cap * sizeof *f->x);
  }
  return f->doc.ndk != NULL && f->doc.topics != NULL && f->doc.y_cum != NULL && f->doc.z != NULL &&
         (!uncollapsed || (f->x_fix != NULL && f->x != NULL));
}

/* Phase one of a call with uncollapsed sweeps: every document's start into z_all, then the sweeps
   0 .. uncollapsed - 1, each over every document with that sweep's shared tables. cap: the most nonzero
   topics a document has. */
static int fold_uncollapsed_docs(const sk_lda_detail_fold_tables *t, uint64_t seed, const sk_lda_corpus *docs,
                                 int64_t cap, int uncollapsed, int threads, int32_t *z_all) {
  const int32_t K = t->num_topics, V = t->num_words, D = docs->num_docs;
  const int64_t nnz_b = t->word_start[V];
  fold_shared sh;
  int failed = 0;
  sh.y = (double *)malloc((size_t)K * sizeof *sh.y);
  sh.r_cum = (double *)malloc((size_t)K * sizeof *sh.r_cum);
  sh.word_r_cum = (double *)malloc((size_t)(nnz_b > 0 ? nnz_b : 1) * sizeof *sh.word_r_cum);
  sh.used = (unsigned char *)calloc((size_t)V, 1);
  if (sh.y == NULL || sh.r_cum == NULL || sh.word_r_cum == NULL || sh.used == NULL) {
    fold_shared_free(&sh);
    return 1;
  }
  for (int64_t i = 0; i < docs->doc_offsets[D]; ++i) sh.used[docs->tokens[i]] = 1;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4)
#endif
  for (int32_t d = 0; d < D; ++d) {
    const int64_t first = docs->doc_offsets[d];
    fold_start(t, seed, docs->tokens + first, docs->doc_offsets[d + 1] - first, first, z_all + first);
  }
  for (int it = 0; it < uncollapsed && !failed; ++it) {
    fold_shared_build(t, seed, it, threads, &sh);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
      fold_thread f;
      if (sk_lda_detail_all_ready(fold_thread_alloc(&f, K, cap, 1, 1), &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
        for (int32_t d = 0; d < D; ++d) {
          const int64_t first = docs->doc_offsets[d];
          fold_uncollapsed(t, &sh, seed, docs->tokens + first, docs->doc_offsets[d + 1] - first, first, it,
                           z_all + first, &f.doc, f.x_fix, f.x);
        }
      }
      fold_thread_free(&f);
    }
  }
  fold_shared_free(&sh);
  return failed;
}

int sk_lda_detail_fold_in_docs(const sk_lda_counts_view *view, const double *alpha_k, const sk_lda_corpus *docs,
                               int64_t max_len, int iters, int threads, sk_lda_detail_fold_in_visit visit, void *ctx) {
  const int32_t K = view->num_topics, D = docs->num_docs;
  const int uncollapsed = sk_lda_detail_fold_uncollapsed(iters, K);
  sk_lda_detail_fold_tables t;
  int32_t *z_all = NULL;
  threads = sk_lda_detail_threads(threads);
  const int64_t cap = max_len < K ? (max_len > 0 ? max_len : 1) : K; /* a document's nonzero topics */
  if (sk_lda_detail_fold_tables_build(&t, view, alpha_k, threads) != 0) return 1;
  if (uncollapsed > 0) {
    z_all = (int32_t *)malloc((size_t)(docs->doc_offsets[D] > 0 ? docs->doc_offsets[D] : 1) * sizeof *z_all);
    if (z_all == NULL || fold_uncollapsed_docs(&t, view->seed, docs, cap, uncollapsed, threads, z_all) != 0) {
      free(z_all);
      sk_lda_detail_fold_tables_free(&t);
      return 1;
    }
  }
  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    fold_thread f;
    sk_lda_detail_fold_doc *doc = &f.doc;
    if (sk_lda_detail_all_ready(fold_thread_alloc(&f, K, cap, max_len, 0), &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
      for (int32_t d = 0; d < D; ++d) {
        const int64_t first = docs->doc_offsets[d], n = docs->doc_offsets[d + 1] - first;
        if (z_all != NULL)
          memcpy(doc->z, z_all + first, (size_t)n * sizeof *doc->z);
        else
          fold_start(&t, view->seed, docs->tokens + first, n, first, doc->z);
        fold_collapsed(&t, view->seed, docs->tokens + first, n, first, uncollapsed, iters, doc);
        visit(ctx, d, &t, doc, n);
        for (int32_t j = 0; j < doc->nnz; ++j) doc->ndk[doc->topics[j]] = 0;
        doc->nnz = 0;
      }
    }
    fold_thread_free(&f);
  }
  free(z_all);
  sk_lda_detail_fold_tables_free(&t);
  return failed ? 2 : 0;
}
