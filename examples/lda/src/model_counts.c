/* The LDA training state's counts rebuilt from z (sk_lda_model_recount(): the documents' sparse rows,
   n_vk and n_k over the OpenMP threads) and each word's tokens (sk_lda_model_word_totals()). */
#include <stdlib.h>
#include <string.h>

#include "model.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Zeroes n bytes in blocks over `threads` threads: on fresh pages the kernel's zeroing at the first
   touch, which costs far more than the memset, then runs on every thread too. */
static void sk_lda_zero(void *p, size_t n, int threads) {
  const size_t block = (size_t)1 << 22;
  const int64_t nblocks = (int64_t)((n + block - 1) / block);
  if (threads <= 1 || nblocks <= 1) {
    memset(p, 0, n);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
  for (int64_t b = 0; b < nblocks; ++b) {
    const size_t at = (size_t)b * block;
    memset((char *)p + at, 0, n - at < block ? n - at : block);
  }
}

/* Index of the lowest set bit of x != 0. */
static inline int sk_lda_ctz64(uint64_t x) {
#if defined(__GNUC__)
  return __builtin_ctzll(x);
#else
  int i = 0;
  while (!(x & 1u)) x >>= 1, ++i;
  return i;
#endif
}

/* Tokens ahead whose word-topic count is prefetched: the counts are scattered over V x K, and a locked
   increment that misses the cache stalls the thread, so the line is fetched while earlier tokens count. */
#define SK_LDA_RECOUNT_PREFETCH 8

/* Per-thread scratch of the recount: cnt is K zeroed ints and seen a zeroed bitmap of K bits, both left
   zeroed. */
typedef struct sk_lda_recount_scratch {
  int32_t *cnt;
  uint64_t *seen;
} sk_lda_recount_scratch;

/* Rebuilds document d's sparse row from z and adds its tokens to n_vk (atomically when shared) and to
   the caller's topic totals nk. The row's topics come out ascending from the bitmap of the topics seen
   (O(K / 64 + row) per document), or from a sort of the row when that is shorter. */
static void sk_lda_recount_doc(sk_lda_model *m, int32_t d, sk_lda_recount_scratch *s, int64_t *nk, int shared) {
  const sk_lda_corpus *c = m->corpus;
  const int32_t K = m->num_topics;
  const int64_t begin = c->doc_offsets[d], end = c->doc_offsets[d + 1];
  const int32_t *z = m->z, *words = c->tokens;
  int32_t *n_vk = m->n_vk, *cnt = s->cnt;
  uint64_t *seen = s->seen;
  int32_t *row_topic = m->dk_topic + m->dk_start[d];
  int32_t *row_count = m->dk_count + m->dk_start[d];
  int32_t nnz = 0;
  for (int64_t t = begin; t < end; ++t) {
    const int32_t k = z[t];
#if defined(__GNUC__)
    if (t + SK_LDA_RECOUNT_PREFETCH < end) {
      const int64_t u = t + SK_LDA_RECOUNT_PREFETCH;
      __builtin_prefetch(n_vk + (size_t)words[u] * (size_t)K + (size_t)z[u], 1);
    }
#endif
    int32_t *b = n_vk + (size_t)words[t] * (size_t)K + (size_t)k;
    if (cnt[k]++ == 0) {
      row_topic[nnz++] = k;
      seen[k >> 6] |= (uint64_t)1 << (k & 63);
    }
    ++nk[k];
    if (shared) {
#ifdef _OPENMP
#pragma omp atomic
#endif
      ++*b;
    } else {
      ++*b;
    }
  }
  const int32_t nwords = (K + 63) / 64;
  if (nwords <= 8 * (int64_t)nnz) {
    int32_t i = 0;
    for (int32_t w = 0; w < nwords; ++w) {
      uint64_t bits = seen[w];
      if (bits == 0) continue;
      seen[w] = 0;
      do {
        const int32_t k = w * 64 + sk_lda_ctz64(bits);
        row_topic[i] = k;
        row_count[i++] = cnt[k];
        cnt[k] = 0;
        bits &= bits - 1;
      } while (bits != 0);
    }
  } else {
    sk_lda_detail_sort_i32(row_topic, nnz);
    for (int32_t i = 0; i < nnz; ++i) {
      const int32_t k = row_topic[i];
      row_count[i] = cnt[k];
      cnt[k] = 0;
      seen[k >> 6] = 0;
    }
  }
  m->dk_nnz[d] = nnz;
}

static int sk_lda_recount_scratch_alloc(sk_lda_recount_scratch *s, int32_t K) {
  s->cnt = (int32_t *)calloc((size_t)K, sizeof *s->cnt);
  s->seen = (uint64_t *)calloc((size_t)(K + 63) / 64, sizeof *s->seen);
  return s->cnt != NULL && s->seen != NULL;
}

static void sk_lda_recount_scratch_free(sk_lda_recount_scratch *s) {
  free(s->cnt);
  free(s->seen);
}

/* The totals counted over the corpus's tokens: each thread counts a range of tokens into its own V
   counters (one allocation; NULL on no memory), then the counters are summed per word. */
static int word_totals_from_tokens(const sk_lda_corpus *c, int threads, int64_t *totals) {
  const size_t V = (size_t)c->num_words;
  int64_t *counts = (int64_t *)calloc((size_t)threads * (V > 0 ? V : 1), sizeof *counts);
  if (counts == NULL) return 1;
  const int64_t T = c->num_tokens;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
#else
    const int t = 0, n = 1;
#endif
    int64_t *mine = counts + (size_t)t * V;
    for (int64_t i = T * t / n; i < T * (t + 1) / n; ++i) ++mine[c->tokens[i]];
  }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static, 1024)
#endif
  for (size_t v = 0; v < V; ++v) {
    int64_t sum = 0;
    for (int t = 0; t < threads; ++t) sum += counts[(size_t)t * V + v];
    totals[v] = sum;
  }
  free(counts);
  return 0;
}

void sk_lda_model_word_totals(const sk_lda_model *m, int threads, int64_t *totals) {
  const int32_t V = m->num_words;
  const size_t K = (size_t)m->num_topics;
  threads = sk_lda_detail_threads(threads);
  /* The corpus's tokens when they are fewer reads than V x K counts and the counts are the corpus's own
     (a rank's n_vk is the sum over every rank, its corpus a share: then the counts). */
  int64_t counted = 0;
  for (size_t k = 0; k < K; ++k) counted += m->n_k[k];
  if (m->corpus != NULL && counted == m->corpus->num_tokens && (double)m->corpus->num_tokens < (double)V * (double)K &&
      word_totals_from_tokens(m->corpus, threads, totals) == 0)
    return;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static, 256)
#endif
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *row = m->n_vk + (size_t)v * K;
    int64_t sum = 0;
    for (size_t k = 0; k < K; ++k) sum += row[k];
    totals[v] = sum;
  }
}

int sk_lda_model_recount(sk_lda_model *m, int threads, sk_ex_error *err) {
  const int32_t K = m->num_topics;
  int failed = 0;
  threads = sk_lda_detail_threads(threads);
  sk_lda_zero(m->n_vk, (size_t)m->num_words * (size_t)K * sizeof *m->n_vk, threads);
  memset(m->n_k, 0, (size_t)K * sizeof *m->n_k);
  if (threads == 1 || m->num_docs < 2) { /* no OpenMP runtime at all: matters for tiny models */
    sk_lda_recount_scratch s;
    const int ok = sk_lda_recount_scratch_alloc(&s, K);
    if (ok)
      for (int32_t d = 0; d < m->num_docs; ++d) sk_lda_recount_doc(m, d, &s, m->n_k, 0);
    sk_lda_recount_scratch_free(&s);
    return ok ? 0 : sk_ex_fail(err, "out of memory while counting topics (K = %d)", (int)K);
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    sk_lda_recount_scratch s;
    const int ok = sk_lda_recount_scratch_alloc(&s, K);
    int64_t *nk = (int64_t *)calloc((size_t)K, sizeof *nk);
    if (sk_lda_detail_all_ready(ok && nk != NULL, &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
      for (int32_t d = 0; d < m->num_docs; ++d) sk_lda_recount_doc(m, d, &s, nk, 1);
      for (int32_t k = 0; k < K; ++k)
        if (nk[k] != 0) {
#ifdef _OPENMP
#pragma omp atomic
#endif
          m->n_k[k] += nk[k];
        }
    }
    sk_lda_recount_scratch_free(&s);
    free(nk);
  }
  if (failed) return sk_ex_fail(err, "out of memory while counting topics (K = %d)", (int)K);
  return 0;
}
