/* Topic coherence, UMass and NPMI, by document co-occurrence (see coherence.h). */
#include "coherence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "output.h"
#include "sk_ex_files.h"

/* Integer counts added up by several threads: the sum does not depend on the order, so atomics keep the
   result independent of the thread count without a private copy of every count per thread. */
#ifdef _OPENMP
#define SK_LDA_COHERENCE_ADD_ONE(x) _Pragma("omp atomic") ++(x)
#else
#define SK_LDA_COHERENCE_ADD_ONE(x) ++(x)
#endif

/* The distinct top words (the union over topics) and, for each, its (topic, rank) slots k N + r in
   increasing order. union_of is V-sized: a word's index in the union, or -1. */
typedef struct coherence_map {
  int32_t num_union;    /* U */
  int32_t *union_of;    /* V */
  int32_t *slot_start;  /* U + 1 */
  int32_t *slot;        /* K N */
  int32_t *union_count; /* U: D(w) of each union word */
} coherence_map;

static void coherence_map_free(coherence_map *m) {
  free(m->union_of);
  free(m->slot_start);
  free(m->slot);
  free(m->union_count);
  memset(m, 0, sizeof *m);
}

/* Builds the map; checks the top words (range, distinct within a topic) on the way. */
static int coherence_map_build(coherence_map *m, const int32_t *top_word, int32_t K, int32_t N, int32_t V,
                               sk_ex_error *err) {
  const size_t KN = (size_t)K * (size_t)N;
  memset(m, 0, sizeof *m);
  m->union_of = (int32_t *)malloc((size_t)V * sizeof *m->union_of);
  m->slot_start = (int32_t *)calloc(KN + 1, sizeof *m->slot_start);
  m->slot = (int32_t *)malloc(KN * sizeof *m->slot);
  m->union_count = (int32_t *)calloc(KN, sizeof *m->union_count);
  int32_t *seen_in = (int32_t *)malloc((size_t)V * sizeof *seen_in); /* the last topic a word was seen in */
  if (m->union_of == NULL || m->slot_start == NULL || m->slot == NULL || m->union_count == NULL || seen_in == NULL) {
    free(seen_in);
    coherence_map_free(m);
    return sk_ex_fail(err, "coherence: out of memory (V = %d, K = %d, N = %d)", (int)V, (int)K, (int)N);
  }
  for (int32_t v = 0; v < V; ++v) m->union_of[v] = seen_in[v] = -1;
  for (int32_t k = 0; k < K; ++k) {
    for (int32_t r = 0; r < N; ++r) {
      const int32_t w = top_word[(size_t)k * (size_t)N + (size_t)r];
      if (w < 0 || w >= V || seen_in[w] == k) {
        free(seen_in);
        coherence_map_free(m);
        return sk_ex_fail(err, "coherence: topic %d's word of rank %d (%d) is %s", (int)k, (int)r, (int)w,
                          w < 0 || w >= V ? "out of range" : "repeated in the topic");
      }
      seen_in[w] = k;
      if (m->union_of[w] < 0) m->union_of[w] = m->num_union++;
      ++m->slot_start[m->union_of[w] + 1];
    }
  }
  free(seen_in);
  for (int32_t u = 0; u < m->num_union; ++u) m->slot_start[u + 1] += m->slot_start[u];
  /* Slots in increasing (k, r): each word's list comes out sorted by topic. The fill position of word u
     is slot_start[u] moved on by each slot written, restored afterwards by shifting the array back. */
  for (size_t s = 0; s < KN; ++s) {
    const int32_t u = m->union_of[top_word[s]];
    m->slot[m->slot_start[u]++] = (int32_t)s;
  }
  for (int32_t u = m->num_union; u > 0; --u) m->slot_start[u] = m->slot_start[u - 1];
  m->slot_start[0] = 0;
  return 0;
}

/* Counts over the documents: each document's distinct union words once (a per-thread stamp of the last
   document that saw each), then per topic the pairs of ranks present. */
static int coherence_count_docs(const sk_lda_corpus *c, coherence_map *m, int32_t K, int32_t N, int threads,
                                int32_t *pair_count) {
  const int64_t P = SK_LDA_COHERENCE_PAIR(N, 0);
  const int32_t D = c->num_docs, V = c->num_words, U = m->num_union;
  int failed = 0, bad_token = 0;
  threads = sk_lda_detail_threads(threads);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
    int32_t *stamp = (int32_t *)malloc((size_t)(U > 0 ? U : 1) * sizeof *stamp);
    int32_t *present = (int32_t *)malloc((size_t)(U > 0 ? U : 1) * sizeof *present);
    int32_t *topic_fill = (int32_t *)calloc((size_t)K, sizeof *topic_fill);
    int32_t *touched = (int32_t *)malloc((size_t)K * sizeof *touched);
    int32_t *ranks = (int32_t *)malloc((size_t)K * (size_t)N * sizeof *ranks);
    const int ok = stamp != NULL && present != NULL && topic_fill != NULL && touched != NULL && ranks != NULL;
    if (ok)
      for (int32_t u = 0; u < U; ++u) stamp[u] = -1;
    if (sk_lda_detail_all_ready(ok, &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
      for (int32_t d = 0; d < D; ++d) {
        int32_t num_present = 0, num_touched = 0;
        for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) {
          const int32_t w = c->tokens[t];
          if (w < 0 || w >= V) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            bad_token = 1;
            continue;
          }
          const int32_t u = m->union_of[w];
          if (u >= 0 && stamp[u] != d) {
            stamp[u] = d;
            present[num_present++] = u;
          }
        }
        for (int32_t p = 0; p < num_present; ++p) {
          const int32_t u = present[p];
          SK_LDA_COHERENCE_ADD_ONE(m->union_count[u]);
          for (int32_t s = m->slot_start[u]; s < m->slot_start[u + 1]; ++s) {
            const int32_t k = m->slot[s] / N, r = m->slot[s] % N;
            if (topic_fill[k] == 0) touched[num_touched++] = k;
            ranks[(size_t)k * (size_t)N + (size_t)topic_fill[k]++] = r;
          }
        }
        for (int32_t q = 0; q < num_touched; ++q) {
          const int32_t k = touched[q], n = topic_fill[k];
          const int32_t *rk = ranks + (size_t)k * (size_t)N;
          int32_t *pk = pair_count + (size_t)k * (size_t)P;
          for (int32_t a = 1; a < n; ++a)
            for (int32_t b = 0; b < a; ++b) {
              const int32_t i = rk[a] > rk[b] ? rk[a] : rk[b], j = rk[a] > rk[b] ? rk[b] : rk[a];
              SK_LDA_COHERENCE_ADD_ONE(pk[SK_LDA_COHERENCE_PAIR(i, j)]);
            }
          topic_fill[k] = 0;
        }
      }
    }
    free(stamp);
    free(present);
    free(topic_fill);
    free(touched);
    free(ranks);
  }
  return failed ? 1 : bad_token ? 2 : 0;
}

int sk_lda_coherence_count(const sk_lda_corpus *corpus, const int32_t *top_word, int32_t num_topics, int32_t top_n,
                           int threads, int32_t *doc_count, int32_t *pair_count, sk_ex_error *err) {
  if (corpus == NULL || top_word == NULL || doc_count == NULL || pair_count == NULL)
    return sk_ex_fail(err, "coherence: a pointer is NULL");
  if (corpus->num_docs < 1 || corpus->doc_offsets == NULL || (corpus->num_tokens > 0 && corpus->tokens == NULL))
    return sk_ex_fail(err, "coherence: the corpus has no document");
  const int32_t K = num_topics, N = top_n, V = corpus->num_words;
  if (K < 1 || N < 2 || N > V)
    return sk_ex_fail(err, "coherence: K = %d must be >= 1 and N = %d in [2, V = %d]", (int)K, (int)N, (int)V);
  coherence_map m;
  if (coherence_map_build(&m, top_word, K, N, V, err) != 0) return 1;
  memset(pair_count, 0, (size_t)K * (size_t)SK_LDA_COHERENCE_PAIR(N, 0) * sizeof *pair_count);
  const int st = coherence_count_docs(corpus, &m, K, N, threads, pair_count);
  if (st == 0)
    for (size_t s = 0; s < (size_t)K * (size_t)N; ++s) doc_count[s] = m.union_count[m.union_of[top_word[s]]];
  coherence_map_free(&m);
  if (st == 1) return sk_ex_fail(err, "coherence: out of memory (per-thread scratch, K = %d, N = %d)", (int)K, (int)N);
  if (st == 2) return sk_ex_fail(err, "coherence: a token is out of the vocabulary [0, %d)", (int)V);
  return 0;
}

/* One UMass term: the conditioning word v_j, its count dj, the pair's count dij (coherence.h). */
static double umass_term(int32_t dij, int32_t dj, int32_t D) {
  return dj > 0 ? log(((double)dij + 1.0) / (double)dj) : -log((double)D);
}

/* One NPMI term (coherence.h); log of the counts' ratios, the same value as of the probabilities'. */
static double npmi_term(int32_t dij, int32_t di, int32_t dj, int32_t D) {
  if (dij == 0) return -1.0;
  if (dij == D) return 1.0;
  return log(((double)dij * (double)D) / ((double)di * (double)dj)) / log((double)D / (double)dij);
}

int sk_lda_coherence_scores(int32_t num_docs, int32_t num_topics, int32_t top_n, const int32_t *doc_count,
                            const int32_t *pair_count, double *umass, double *npmi, sk_ex_error *err) {
  if (doc_count == NULL || pair_count == NULL) return sk_ex_fail(err, "coherence scores: a pointer is NULL");
  const int32_t D = num_docs, K = num_topics, N = top_n;
  if (D < 1 || K < 1 || N < 2)
    return sk_ex_fail(err, "coherence scores: D = %d, K = %d must be >= 1 and N = %d >= 2", (int)D, (int)K, (int)N);
  const int64_t P = SK_LDA_COHERENCE_PAIR(N, 0);
  for (int32_t k = 0; k < K; ++k) {
    const int32_t *dk = doc_count + (size_t)k * (size_t)N, *pk = pair_count + (size_t)k * (size_t)P;
    double u = 0.0, n = 0.0;
    for (int32_t i = 1; i < N; ++i) {
      for (int32_t j = 0; j < i; ++j) {
        const int32_t dij = pk[SK_LDA_COHERENCE_PAIR(i, j)];
        if (dk[i] < 0 || dk[i] > D || dk[j] < 0 || dk[j] > D || dij < 0 || dij > dk[i] || dij > dk[j])
          return sk_ex_fail(err, "coherence scores: topic %d: counts D(w) = %d, %d and D(pair) = %d are inconsistent "
                            "(D = %d)", (int)k, (int)dk[i], (int)dk[j], (int)dij, (int)D);
        u += umass_term(dij, dk[j], D);
        n += npmi_term(dij, dk[i], dk[j], D);
      }
    }
    if (umass != NULL) umass[k] = u / (double)P;
    if (npmi != NULL) npmi[k] = n / (double)P;
  }
  return 0;
}

int sk_lda_coherence(const sk_lda_corpus *corpus, const int32_t *top_word, int32_t num_topics, int32_t top_n,
                     int threads, double *umass, double *npmi, sk_ex_error *err) {
  if (num_topics < 1 || top_n < 2) /* before sizing the counts */
    return sk_ex_fail(err, "coherence: K = %d must be >= 1 and N = %d >= 2", (int)num_topics, (int)top_n);
  const size_t KN = (size_t)num_topics * (size_t)top_n;
  int32_t *doc_count = (int32_t *)malloc(KN * sizeof *doc_count);
  int32_t *pair_count = (int32_t *)malloc((size_t)num_topics * (size_t)SK_LDA_COHERENCE_PAIR(top_n, 0) * sizeof *pair_count);
  int st = 1;
  if (doc_count == NULL || pair_count == NULL)
    sk_ex_fail(err, "coherence: out of memory (K = %d, N = %d)", (int)num_topics, (int)top_n);
  else if (sk_lda_coherence_count(corpus, top_word, num_topics, top_n, threads, doc_count, pair_count, err) == 0)
    st = sk_lda_coherence_scores(corpus->num_docs, num_topics, top_n, doc_count, pair_count, umass, npmi, err);
  free(doc_count);
  free(pair_count);
  return st;
}

/* --- CSV ---------------------------------------------------------------------------------------- */

/* A word in a quoted CSV field: quotes doubled. */
static void csv_word(FILE *f, char *const *vocab, int32_t v) {
  char id[16];
  for (const char *p = sk_lda_word_name(vocab, v, id, sizeof id); *p != '\0'; ++p) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
}

int sk_lda_write_coherence_csv(const char *path, int32_t num_topics, int32_t top_n, const int32_t *top_word,
                               char *const *vocab, const double *umass, const double *npmi, sk_ex_error *err) {
  if (path == NULL || top_word == NULL || umass == NULL || npmi == NULL)
    return sk_ex_fail(err, "write coherence: a pointer is NULL");
  if (num_topics < 1 || top_n < 1)
    return sk_ex_fail(err, "%s: invalid sizes K = %d, N = %d", path, (int)num_topics, (int)top_n);
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return 1;
  fprintf(f, "topic,umass,npmi,top_words\n");
  for (int32_t k = 0; k < num_topics; ++k) {
    fprintf(f, "%d,%.17g,%.17g,\"", (int)k, umass[k], npmi[k]);
    for (int32_t r = 0; r < top_n; ++r) {
      if (r > 0) fputc(' ', f);
      csv_word(f, vocab, top_word[(size_t)k * (size_t)top_n + (size_t)r]);
    }
    fprintf(f, "\"\n");
  }
  return sk_ex_temp_commit(f, path, err);
}
