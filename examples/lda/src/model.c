/* The LDA training state: initialisation, priors, queries, freeing (the counts rebuilt from z: model_counts.c). */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"

#ifdef _OPENMP
#include <omp.h>
#endif

double sk_lda_default_alpha(int32_t num_topics) { return num_topics > 0 ? 50.0 / (double)num_topics : 0.0; }

int32_t sk_lda_detail_uniform_index(double u, int64_t n) {
  int64_t i = (int64_t)(u * (double)n);
  if (i >= n) i = n - 1; /* u < 1, but u * n can round up to n */
  return (int32_t)i;
}

int sk_lda_detail_threads(int threads) {
#ifdef _OPENMP
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}

int sk_lda_detail_all_ready(int ok, int *failed) {
  if (!ok) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
    *failed = 1;
  }
#ifdef _OPENMP
#pragma omp barrier
#endif
  return !*failed;
}

/* Insertion sort for short rows, else quicksort (median of three, the smaller side recursed) without
   qsort's call per comparison (model.h). */
void sk_lda_detail_sort_i32(int32_t *a, int32_t n) {
  while (n > 24) {
    int32_t x = a[0], y = a[n / 2], z = a[n - 1], t;
    if (x > y) t = x, x = y, y = t;
    if (y > z) y = z;
    if (x > y) y = x;
    const int32_t pivot = y;
    int32_t i = -1, j = n;
    for (;;) {
      do ++i; while (a[i] < pivot);
      do --j; while (a[j] > pivot);
      if (i >= j) break;
      t = a[i], a[i] = a[j], a[j] = t;
    }
    if (j + 1 < n - j - 1) {
      sk_lda_detail_sort_i32(a, j + 1);
      a += j + 1;
      n -= j + 1;
    } else {
      sk_lda_detail_sort_i32(a + j + 1, n - j - 1);
      n = j + 1;
    }
  }
  for (int32_t i = 1; i < n; ++i) {
    const int32_t x = a[i];
    int32_t j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = x;
  }
}

uint64_t sk_lda_model_host_bytes(const sk_lda_corpus *corpus, int32_t num_topics, uint64_t *b_bytes) {
  const uint64_t D = (uint64_t)corpus->num_docs, V = (uint64_t)corpus->num_words, K = (uint64_t)num_topics;
  const uint64_t T = (uint64_t)corpus->num_tokens;
  uint64_t slots = 0;
  for (int32_t d = 0; d < corpus->num_docs; ++d) {
    const int64_t n = corpus->doc_offsets[d + 1] - corpus->doc_offsets[d];
    slots += (uint64_t)(n < num_topics ? n : num_topics);
  }
  if (b_bytes != NULL) *b_bytes = V > UINT64_MAX / 4u / (K > 0 ? K : 1) ? UINT64_MAX : 4u * V * K;
  if (V * K > UINT64_MAX / 8u) return UINT64_MAX;
  return 4u * T + 12u * D + 8u + 8u * slots + 4u * V * K + 8u * K;
}

static void start_sparse_topics(sk_lda_model *m, int32_t topics_per_doc, int threads);

/* Both inits: the uniform topics, then (start_topics > 0) their sparse rewrite, then the one recount. */
static int model_init(sk_lda_model *m, const sk_lda_corpus *train, int32_t num_topics, double alpha, double beta,
                      uint64_t seed, int32_t start_topics, sk_ex_error *err) {
  if (m == NULL) return sk_ex_fail(err, "model init: model is NULL");
  memset(m, 0, sizeof *m);
  if (start_topics < 0) return sk_ex_fail(err, "sparse start: topics per document %d is negative", (int)start_topics);
  if (train == NULL) return sk_ex_fail(err, "model init: corpus is NULL");
  if (num_topics < 1 || num_topics > SK_LDA_MAX_TOPICS)
    return sk_ex_fail(err, "number of topics %d is outside 1..%d", (int)num_topics, SK_LDA_MAX_TOPICS);
  if (!(alpha > 0.0) || !isfinite(alpha)) return sk_ex_fail(err, "alpha %g must be finite and positive", alpha);
  if (!(beta > 0.0) || !isfinite(beta)) return sk_ex_fail(err, "beta %g must be finite and positive", beta);
  if (train->num_docs < 0 || train->num_words < 1 || train->num_tokens < 0)
    return sk_ex_fail(err, "corpus has invalid sizes (D = %d, V = %d, T = %lld)", (int)train->num_docs,
                       (int)train->num_words, (long long)train->num_tokens);
  if (train->doc_offsets == NULL || (train->num_tokens > 0 && train->tokens == NULL))
    return sk_ex_fail(err, "corpus arrays are NULL");
  if (train->doc_offsets[0] != 0 || train->doc_offsets[train->num_docs] != train->num_tokens)
    return sk_ex_fail(err, "corpus offsets do not run from 0 to T = %lld", (long long)train->num_tokens);
  const int32_t D = train->num_docs, V = train->num_words, K = num_topics;
  const int64_t T = train->num_tokens;
  if ((uint64_t)V * (uint64_t)K > (uint64_t)SIZE_MAX / 16u)
    return sk_ex_fail(err, "V * K = %d * %d is too large", (int)V, (int)K);
  /* The checks and the seeded topics run over the threads; each reports the first offender, as a serial
     loop would, and every result is the same bits for any thread count. */
  const int threads = sk_lda_detail_threads(0);
  const int64_t *off = train->doc_offsets;
  const int32_t *words = train->tokens;
  int64_t slots = 0, decreasing = D;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : slots) reduction(min : decreasing)
#endif
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n = off[d + 1] - off[d];
    if (n < 0 && d < decreasing) decreasing = d;
    slots += n < 0 ? 0 : n < K ? n : K;
  }
  if (decreasing < D) return sk_ex_fail(err, "corpus offsets decrease at document %d", (int)decreasing);
  int bad = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : bad)
#endif
  for (int64_t t = 0; t < T; ++t) bad |= (uint32_t)words[t] >= (uint32_t)V;
  for (int64_t t = 0; bad && t < T; ++t)
    if (words[t] < 0 || words[t] >= V)
      return sk_ex_fail(err, "token %lld has word id %d outside 0..%d", (long long)t, (int)words[t], (int)V - 1);

  m->corpus = train;
  m->num_topics = K;
  m->num_words = V;
  m->num_docs = D;
  m->num_tokens = T;
  m->alpha = alpha;
  m->beta = beta;
  m->seed = seed;
  m->z = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *m->z);
  m->dk_start = (int64_t *)malloc((size_t)(D + 1) * sizeof *m->dk_start);
  m->dk_nnz = (int32_t *)calloc((size_t)(D > 0 ? D : 1), sizeof *m->dk_nnz);
  m->dk_topic = (int32_t *)malloc((size_t)(slots > 0 ? slots : 1) * sizeof *m->dk_topic);
  m->dk_count = (int32_t *)malloc((size_t)(slots > 0 ? slots : 1) * sizeof *m->dk_count);
  m->n_vk = (int32_t *)malloc((size_t)V * (size_t)K * sizeof *m->n_vk);
  m->n_k = (int64_t *)malloc((size_t)K * sizeof *m->n_k);
  if (m->z == NULL || m->dk_start == NULL || m->dk_nnz == NULL || m->dk_topic == NULL || m->dk_count == NULL ||
      m->n_vk == NULL || m->n_k == NULL) {
    sk_lda_model_free(m);
    sk_ex_fail(err, "out of memory for a model with T = %lld, V = %d, K = %d", (long long)T, (int)V, (int)K);
    return SK_LDA_MODEL_NO_MEMORY;
  }
  m->dk_start[0] = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n = train->doc_offsets[d + 1] - train->doc_offsets[d];
    m->dk_start[d + 1] = m->dk_start[d] + (n < K ? n : K);
  }
  /* Tokens 2i and 2i + 1 read the two halves of Philox block i (sk_rng_uniform_f64()): one block a pair. */
  int32_t *z = m->z;
  const int64_t pairs = (T + 1) / 2;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
  for (int64_t i = 0; i < pairs; ++i) {
    const sk_u32x4 b = sk_rng_u32x4(seed, SK_LDA_STREAM_INIT, (uint64_t)i);
    z[2 * i] = sk_lda_detail_uniform_index(sk_rng_unit_f64(b.x, b.y), K);
    if (2 * i + 1 < T) z[2 * i + 1] = sk_lda_detail_uniform_index(sk_rng_unit_f64(b.z, b.w), K);
  }
  start_sparse_topics(m, start_topics, threads);
  if (sk_lda_model_recount(m, threads, err) != 0) {
    sk_lda_model_free(m);
    return 1;
  }
  return 0;
}

int sk_lda_model_init(sk_lda_model *m, const sk_lda_corpus *train, int32_t num_topics, double alpha,
                      double beta, uint64_t seed, sk_ex_error *err) {
  return model_init(m, train, num_topics, alpha, beta, seed, 0, err);
}

int sk_lda_model_init_started(sk_lda_model *m, const sk_lda_corpus *train, int32_t num_topics, double alpha,
                              double beta, uint64_t seed, int32_t start_topics, sk_ex_error *err) {
  return model_init(m, train, num_topics, alpha, beta, seed, start_topics, err);
}

/* sk_lda_model_init_started()'s rewrite of z (model.h), before the recount; nothing when S is 0 or >= K. */
static void start_sparse_topics(sk_lda_model *m, int32_t topics_per_doc, int threads) {
  (void)threads; /* without OpenMP */
  if (topics_per_doc <= 0 || topics_per_doc >= m->num_topics) return;
  const sk_lda_corpus *c = m->corpus;
  const int32_t D = c->num_docs;
  const int64_t S = topics_per_doc;
  int32_t *z = m->z;
  /* Each document reads only its own first S topics, which no token of it rewrites (t >= a + S below). */
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
#endif
  for (int32_t d = 0; d < D; ++d) {
    const int64_t a = c->doc_offsets[d], n = c->doc_offsets[d + 1] - a;
    if (n <= S) continue;
    for (int64_t t = a + S; t < a + n; ++t) {
      /* u_t, the uniform sk_lda_model_init() drew token t's topic from (model.h) */
      const double u = sk_rng_uniform_f64(m->seed, SK_LDA_STREAM_INIT, (uint64_t)t);
      z[t] = z[a + sk_lda_detail_uniform_index(u, S)];
    }
  }
}

void sk_lda_model_free(sk_lda_model *m) {
  if (m == NULL) return;
  free(m->z);
  free(m->dk_start);
  free(m->dk_nnz);
  free(m->dk_topic);
  free(m->dk_count);
  free(m->n_vk);
  free(m->n_k);
  free(m->alpha_k);
  memset(m, 0, sizeof *m);
}

int sk_lda_detail_check_alpha_k(const double *alpha_k, int32_t num_topics, const char *what, sk_ex_error *err) {
  for (int32_t k = 0; alpha_k != NULL && k < num_topics; ++k)
    if (!(alpha_k[k] > 0.0) || !isfinite(alpha_k[k]))
      return sk_ex_fail(err, "%s: alpha of topic %d is %g; it must be finite and positive", what, (int)k, alpha_k[k]);
  return 0;
}

double sk_lda_prior_alpha_sum(const double *alpha_k, double alpha, int32_t num_topics) {
  if (alpha_k == NULL) return (double)num_topics * alpha;
  double sum = 0.0;
  for (int32_t k = 0; k < num_topics; ++k) sum += alpha_k[k];
  return sum;
}

double sk_lda_model_alpha_sum(const sk_lda_model *m) {
  return sk_lda_prior_alpha_sum(m->alpha_k, m->alpha, m->num_topics);
}

int sk_lda_model_set_priors(sk_lda_model *m, const double *alpha_k, double beta, sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "set priors: model is NULL or not initialised");
  if (!(beta > 0.0) || !isfinite(beta)) return sk_ex_fail(err, "set priors: beta %g must be finite and positive", beta);
  if (sk_lda_detail_check_alpha_k(alpha_k, m->num_topics, "set priors", err) != 0) return 1;
  if (alpha_k == NULL) {
    free(m->alpha_k);
    m->alpha_k = NULL;
  } else {
    if (m->alpha_k == NULL) {
      m->alpha_k = (double *)malloc((size_t)m->num_topics * sizeof *m->alpha_k);
      if (m->alpha_k == NULL) return sk_ex_fail(err, "set priors: out of memory (K = %d)", (int)m->num_topics);
    }
    if (alpha_k != m->alpha_k) memmove(m->alpha_k, alpha_k, (size_t)m->num_topics * sizeof *m->alpha_k);
  }
  m->beta = beta;
  return 0;
}

int sk_lda_model_set_z(sk_lda_model *m, const int32_t *z, sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "set topics: model is NULL or not initialised");
  if (z == NULL && m->num_tokens > 0) return sk_ex_fail(err, "set topics: topics are NULL");
  if (sk_lda_detail_check_topics(z, m->num_tokens, m->num_topics, "set topics", err) != 0) return 1;
  if (m->num_tokens > 0) memcpy(m->z, z, (size_t)m->num_tokens * sizeof *z);
  return sk_lda_model_recount(m, 0, err);
}

int32_t sk_lda_model_doc_count(const sk_lda_model *m, int32_t d, int32_t k) {
  const int32_t *topic = m->dk_topic + m->dk_start[d];
  int32_t lo = 0, hi = m->dk_nnz[d];
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (topic[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < m->dk_nnz[d] && topic[lo] == k ? m->dk_count[m->dk_start[d] + lo] : 0;
}

size_t sk_lda_model_bytes(const sk_lda_model *m) {
  if (m == NULL || m->z == NULL) return 0;
  const size_t VK = (size_t)m->num_words * (size_t)m->num_topics;
  const size_t slots = (size_t)m->dk_start[m->num_docs];
  size_t b = (size_t)m->num_tokens * 4u + (size_t)(m->num_docs + 1) * 8u + (size_t)m->num_docs * 4u + slots * 8u +
             VK * 4u + (size_t)m->num_topics * 8u;
  if (m->alpha_k != NULL) b += (size_t)m->num_topics * 8u;
  return b;
}

int sk_lda_detail_check_topics(const int32_t *z, int64_t num_tokens, int32_t num_topics, const char *what,
                               sk_ex_error *err) {
  int bad = 0; /* over the threads first; the first offender is then found by one thread */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(| : bad)
#endif
  for (int64_t t = 0; t < num_tokens; ++t) bad |= (uint32_t)z[t] >= (uint32_t)num_topics;
  for (int64_t t = 0; bad && t < num_tokens; ++t)
    if (z[t] < 0 || z[t] >= num_topics)
      return sk_ex_fail(err, "%s: token %lld has topic %d outside 0..%d", what, (long long)t, (int)z[t],
                         (int)num_topics - 1);
  return 0;
}

int sk_lda_model_same_bits(const sk_lda_model *a, const sk_lda_model *b) {
  if (a->num_tokens != b->num_tokens || memcmp(a->z, b->z, (size_t)a->num_tokens * 4u) != 0 ||
      memcmp(a->dk_start, b->dk_start, ((size_t)a->num_docs + 1u) * 8u) != 0 ||
      memcmp(a->dk_nnz, b->dk_nnz, (size_t)a->num_docs * 4u) != 0 ||
      memcmp(a->n_vk, b->n_vk, (size_t)a->num_words * (size_t)a->num_topics * 4u) != 0 ||
      memcmp(a->n_k, b->n_k, (size_t)a->num_topics * 8u) != 0)
    return 0;
  for (int32_t d = 0; d < a->num_docs; ++d) { /* a row's slots past its nnz are unused */
    const size_t at = (size_t)a->dk_start[d], n = (size_t)a->dk_nnz[d] * 4u;
    if (memcmp(a->dk_topic + at, b->dk_topic + at, n) != 0 || memcmp(a->dk_count + at, b->dk_count + at, n) != 0)
      return 0;
  }
  return 1;
}
