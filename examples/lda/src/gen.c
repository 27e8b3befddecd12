/* Synthetic LDA corpora with planted topics; the construction and the stream layout are in gen.h, the
   files they are written to in gen_write.c. */
#include "gen.h"

#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <samplekit/rng.h>

#include "gen_draws.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void sk_lda_gen_params_default(sk_lda_gen_params *p) {
  if (p == NULL) return;
  memset(p, 0, sizeof *p);
  p->num_docs = 1000;
  p->num_words = 5000;
  p->num_topics = 20;
  p->mean_doc_length = 100.0;
  p->doc_length_cv = 0.5;
  p->alpha = 0.1;
  p->beta = 0.01;
  p->zipf_exponent = 1.0;
  p->topic_support = 0.1;
  p->seed = 1;
}

/* Words in topic k's support. */
static int32_t support_size(const sk_lda_gen_params *p) {
  double m = floor(p->topic_support * (double)p->num_words + 0.5);
  if (m < 1.0) m = 1.0;
  if (m > (double)p->num_words) m = (double)p->num_words;
  return (int32_t)m;
}

/* x finite and lo <= x <= hi (NaN fails). */
static int in_range(double x, double lo, double hi) { return x >= lo && x <= hi; }

int sk_lda_gen_validate(const sk_lda_gen_params *p, sk_ex_error *err) {
  if (p == NULL) return sk_ex_fail(err, "gen: parameters are NULL");
  if (p->num_docs < 1) return sk_ex_fail(err, "gen: number of documents D = %d must be >= 1", (int)p->num_docs);
  if (p->num_words < 1) return sk_ex_fail(err, "gen: vocabulary size V = %d must be >= 1", (int)p->num_words);
  if (p->num_topics < 1) return sk_ex_fail(err, "gen: number of topics K = %d must be >= 1", (int)p->num_topics);
  if (!in_range(p->mean_doc_length, 1.0, 1073741824.0))
    return sk_ex_fail(err, "gen: mean document length %g must be in [1, 2^30] (every document has >= 1 token)",
                       p->mean_doc_length);
  if (!in_range(p->doc_length_cv, 0.0, 10.0))
    return sk_ex_fail(err, "gen: document length coefficient of variation %g must be in [0, 10]", p->doc_length_cv);
  if (!in_range(p->alpha, 1e-8, 1e8))
    return sk_ex_fail(err, "gen: alpha = %g must be in [1e-8, 1e8] (> 0)", p->alpha);
  if (!in_range(p->beta, 1e-8, 1e8)) return sk_ex_fail(err, "gen: beta = %g must be in [1e-8, 1e8] (> 0)", p->beta);
  if (!in_range(p->zipf_exponent, 0.0, 10.0))
    return sk_ex_fail(err, "gen: Zipf exponent %g must be in [0, 10]", p->zipf_exponent);
  if (!(p->topic_support > 0.0 && p->topic_support <= 1.0))
    return sk_ex_fail(err, "gen: topic support fraction %g must be in (0, 1]", p->topic_support);
  {
    /* Sizes of the K x V phi (4 bytes), the K x m alias tables (12 bytes) and the D x K theta (4 bytes). */
    const uint64_t K = (uint64_t)p->num_topics, V = (uint64_t)p->num_words, D = (uint64_t)p->num_docs;
    const uint64_t lim = (uint64_t)(SIZE_MAX / 16);
    if (K * V > lim)
      return sk_ex_fail(err, "gen: K x V = %d x %d topic-word matrix is too large for memory", (int)p->num_topics,
                         (int)p->num_words);
    if (D * K > lim)
      return sk_ex_fail(err, "gen: D x K = %d x %d document-topic matrix is too large for memory", (int)p->num_docs,
                         (int)p->num_topics);
  }
  return 0;
}

/* One cell of a topic's word table: its own word and its alias word. */
typedef struct word_cell {
  uint32_t thresh;
  int32_t word, alias_word;
} word_cell;

/* --- generation -------------------------------------------------------------------------------------- */

static void *alloc_or_fail(size_t count, size_t size, const char *what, sk_ex_error *err, int *failed) {
  void *ptr;
  if (*failed) return NULL;
  if (count == 0) count = 1;
  if (count > SIZE_MAX / size) {
    *failed = sk_ex_fail(err, "gen: %s: size overflows", what);
    return NULL;
  }
  ptr = malloc(count * size);
  if (ptr == NULL)
    *failed = sk_ex_fail(err, "gen: out of memory allocating %s (%.3g GB)", what, (double)count * (double)size / 1e9);
  return ptr;
}

static int make_vocab(sk_lda_corpus *c, sk_ex_error *err) {
  int32_t v, width = 6;
  int64_t top = 1000000;
  while ((int64_t)c->num_words > top && width < 10) {
    top *= 10;
    ++width;
  }
  c->vocab = (char **)calloc((size_t)c->num_words, sizeof(char *));
  if (c->vocab == NULL) return sk_ex_fail(err, "gen: out of memory allocating the vocabulary");
  for (v = 0; v < c->num_words; ++v) {
    char tmp[24];
    const int len = snprintf(tmp, sizeof tmp, "w%0*d", (int)width, (int)v);
    c->vocab[v] = (char *)malloc((size_t)len + 1);
    if (c->vocab[v] == NULL) return sk_ex_fail(err, "gen: out of memory allocating the vocabulary");
    memcpy(c->vocab[v], tmp, (size_t)len + 1);
  }
  return 0;
}

/* The OpenMP thread count for p->threads (<= 0: the OpenMP default); 1 without OpenMP. */
static int gen_threads(const sk_lda_gen_params *p) {
#ifdef _OPENMP
  return p->threads > 0 ? p->threads : omp_get_max_threads();
#else
  (void)p;
  return 1;
#endif
}

/* One thread's scratch for the Dirichlet draws and the alias tables over n cells (and, for the topics,
   the V-word permutation of the support shuffle, kept at the identity between topics). */
typedef struct gen_scratch {
  double *conc, *prob, *q;
  int32_t *work, *alias, *perm, *swaps;
  uint32_t *thresh;
} gen_scratch;

static void scratch_free(gen_scratch *s) {
  free(s->conc);
  free(s->prob);
  free(s->q);
  free(s->work);
  free(s->alias);
  free(s->perm);
  free(s->swaps);
  free(s->thresh);
  memset(s, 0, sizeof *s);
}

/* n cells; perm_n > 0 also gives the identity permutation of perm_n words and n swap slots. 0 or 1. */
static int scratch_alloc(gen_scratch *s, int32_t n, int32_t perm_n) {
  const size_t c = (size_t)(n > 0 ? n : 1);
  memset(s, 0, sizeof *s);
  s->conc = (double *)malloc(c * sizeof *s->conc);
  s->prob = (double *)malloc(c * sizeof *s->prob);
  s->q = (double *)malloc(c * sizeof *s->q);
  s->work = (int32_t *)malloc(2 * c * sizeof *s->work);
  s->alias = (int32_t *)malloc(c * sizeof *s->alias);
  s->thresh = (uint32_t *)malloc(c * sizeof *s->thresh);
  if (perm_n > 0) {
    s->perm = (int32_t *)malloc((size_t)perm_n * sizeof *s->perm);
    s->swaps = (int32_t *)malloc(c * sizeof *s->swaps);
    if (s->perm != NULL)
      for (int32_t i = 0; i < perm_n; ++i) s->perm[i] = i;
  }
  if (s->conc == NULL || s->prob == NULL || s->q == NULL || s->work == NULL || s->alias == NULL ||
      s->thresh == NULL || (perm_n > 0 && (s->perm == NULL || s->swaps == NULL))) {
    scratch_free(s);
    return 1;
  }
  return 0;
}

/* Topic k: its support by a partial Fisher-Yates shuffle, phi_k over it, then its alias table `row`
   (m cells); phi's row k when phi is not NULL (zeroed by the caller). s->perm is the identity on entry
   and on return (the swaps are undone, so a topic costs O(m), not O(V)). */
static void make_topic(const sk_lda_gen_params *p, int32_t k, int32_t m, const double *zipf, gen_scratch *s,
                       word_cell *row, float *phi) {
  const int32_t V = p->num_words;
  gen_stream st;
  double zsum = 0.0;
  int32_t i;
  gs_init(&st, p->seed, SK_LDA_GEN_STREAM_TOPIC + (uint64_t)k, 0);
  for (i = 0; i < m; ++i) {
    const int32_t j = i + (int32_t)(gs_uniform(&st) * (double)(V - i));
    const int32_t t = s->perm[i];
    s->perm[i] = s->perm[j];
    s->perm[j] = t;
    s->swaps[i] = j;
  }
  for (i = 0; i < m; ++i) zsum += zipf[s->perm[i]];
  for (i = 0; i < m; ++i) s->conc[i] = p->beta * (double)V * zipf[s->perm[i]] / zsum;
  gs_dirichlet(&st, s->conc, m, s->prob);
  for (i = 0; i < m; ++i) {
    const float f = (float)s->prob[i];
    s->prob[i] = (double)f; /* the tables sample exactly the reported float phi */
    if (phi != NULL) phi[(size_t)k * (size_t)V + (size_t)s->perm[i]] = f;
  }
  alias_build(s->prob, m, s->thresh, s->alias, s->work, s->q);
  for (i = 0; i < m; ++i) {
    row[i].thresh = s->thresh[i];
    row[i].word = s->perm[i];
    row[i].alias_word = s->perm[s->alias[i]];
  }
  for (i = m - 1; i >= 0; --i) { /* back to the identity */
    const int32_t j = s->swaps[i], t = s->perm[i];
    s->perm[i] = s->perm[j];
    s->perm[j] = t;
  }
}

/* floor(Y_d + U_d) of document d (construction 3 of gen.h): its length is 1 + this, when below 2^31 - 2. */
static double doc_length_draw(const sk_lda_gen_params *p, double sigma, int32_t d) {
  gen_stream st;
  double y, n;
  gs_init(&st, p->seed, SK_LDA_GEN_STREAM_DOC + (uint64_t)d, 0);
  n = gs_normal(&st);
  y = (p->mean_doc_length - 1.0) * exp(sigma * n - 0.5 * sigma * sigma);
  return floor(y + gs_uniform(&st));
}

/* Document d: theta_d, its alias table over the K topics, then its tokens (and their topics). */
static void make_doc(const sk_lda_gen_params *p, int32_t d, int32_t m, const double *kconc, const word_cell *cells,
                     gen_scratch *s, const sk_lda_corpus *c, int32_t *topics, float *theta) {
  const int32_t K = p->num_topics;
  const int64_t begin = c->doc_offsets[d], len = c->doc_offsets[d + 1] - begin;
  const uint64_t tstream = SK_LDA_GEN_STREAM_TOKEN + (uint64_t)d;
  gen_stream st;
  int32_t k;
  gs_init(&st, p->seed, SK_LDA_GEN_STREAM_DOC + (uint64_t)d, 3);
  gs_dirichlet(&st, kconc, K, s->prob);
  for (k = 0; k < K; ++k) {
    const float f = (float)s->prob[k];
    s->prob[k] = (double)f;
    if (theta != NULL) theta[(size_t)d * (size_t)K + (size_t)k] = f;
  }
  alias_build(s->prob, K, s->thresh, s->alias, s->work, s->q);
  for (int64_t j = 0; j < len; ++j) {
    const sk_u32x4 b = sk_rng_u32x4(p->seed, tstream, (uint64_t)j);
    uint32_t coin, cell;
    int32_t z;
    const word_cell *wc;
    cell = alias_cell(((uint64_t)b.x << 32) | b.y, (uint32_t)K, &coin);
    z = coin < s->thresh[cell] ? (int32_t)cell : s->alias[cell];
    cell = alias_cell(((uint64_t)b.z << 32) | b.w, (uint32_t)m, &coin);
    wc = cells + (size_t)z * (size_t)m + cell;
    c->tokens[begin + j] = coin < wc->thresh ? wc->word : wc->alias_word;
    if (topics != NULL) topics[begin + j] = z;
  }
}

uint64_t sk_lda_gen_host_bytes(const sk_lda_gen_params *p, int phi, int theta, int topics) {
  const double D = (double)p->num_docs, V = (double)p->num_words, K = (double)p->num_topics;
  const double m = (double)support_size(p), T = D * p->mean_doc_length, threads = (double)gen_threads(p);
  const double scratch = threads * (4.0 * V + 44.0 * (m > K ? m : K));
  const double bytes = 8.0 * (D + 1.0) + 4.0 * T * (topics ? 2.0 : 1.0) + 24.0 * V + 8.0 * V + 8.0 * K +
                       12.0 * m * K + (phi ? 4.0 * K * V : 0.0) + (theta ? 4.0 * D * K : 0.0) + scratch;
  return bytes >= 1.8e19 ? UINT64_MAX : (uint64_t)bytes;
}

int sk_lda_generate(const sk_lda_gen_params *p, sk_lda_corpus *out, float **phi_out, float **theta_out,
                    int32_t **topics_out, sk_ex_error *err) {
  int32_t D, V, K, m, k, d;
  int failed = 0, nt;
  double *zipf = NULL, *kconc = NULL;
  int32_t *topics = NULL;
  word_cell *cells = NULL;
  float *phi = NULL, *theta = NULL;
  double sigma;
  sk_lda_corpus c;

  if (phi_out) *phi_out = NULL;
  if (theta_out) *theta_out = NULL;
  if (topics_out) *topics_out = NULL;
  if (out == NULL) return sk_ex_fail(err, "gen: output corpus is NULL");
  memset(out, 0, sizeof *out);
  if (sk_lda_gen_validate(p, err)) return 1;
  D = p->num_docs;
  V = p->num_words;
  K = p->num_topics;
  m = support_size(p);
  nt = gen_threads(p);
  memset(&c, 0, sizeof c);
  c.num_docs = D;
  c.num_words = V;

  zipf = (double *)alloc_or_fail((size_t)V, sizeof *zipf, "Zipf weights", err, &failed);
  kconc = (double *)alloc_or_fail((size_t)K, sizeof *kconc, "Dirichlet parameters", err, &failed);
  cells = (word_cell *)alloc_or_fail((size_t)K * (size_t)m, sizeof *cells, "word alias tables", err, &failed);
  c.doc_offsets = (int64_t *)alloc_or_fail((size_t)D + 1, sizeof *c.doc_offsets, "document offsets", err, &failed);
  if (phi_out != NULL && !failed) {
    phi = (float *)calloc((size_t)K * (size_t)V, sizeof *phi);
    if (phi == NULL) failed = sk_ex_fail(err, "gen: out of memory allocating phi (%d x %d)", (int)K, (int)V);
  }
  if (theta_out != NULL)
    theta = (float *)alloc_or_fail((size_t)D * (size_t)K, sizeof *theta, "theta", err, &failed);
  if (failed) goto fail;

#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
  for (int32_t i = 0; i < V; ++i) zipf[i] = pow((double)i + 1.0, -p->zipf_exponent);
  for (k = 0; k < K; ++k) kconc[k] = p->alpha;

  /* Topics, each from its own stream into its own rows: any thread may make any topic. */
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
  {
    gen_scratch s;
    if (sk_lda_detail_all_ready(scratch_alloc(&s, m, V) == 0, &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
      for (int32_t t = 0; t < K; ++t) make_topic(p, t, m, zipf, &s, cells + (size_t)t * (size_t)m, phi);
    }
    scratch_free(&s);
  }
  if (failed) {
    sk_ex_fail(err, "gen: out of memory allocating the topics' scratch (V = %d, %d threads)", (int)V, nt);
    goto fail;
  }

  /* Lengths first (the token array is sized by their sum); each document's stream starts with them. */
  sigma = sqrt(log1p(p->doc_length_cv * p->doc_length_cv));
  {
    int32_t too_long = D;
    c.doc_offsets[0] = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : too_long)
#endif
    for (int32_t i = 0; i < D; ++i) {
      const double y = doc_length_draw(p, sigma, i);
      if (y < 2147483646.0)
        c.doc_offsets[i + 1] = 1 + (int64_t)y;
      else if (i < too_long)
        too_long = i;
    }
    if (too_long < D) {
      failed = sk_ex_fail(err,
                           "gen: document %d drew length %.3g, more than 2^31 - 2 tokens; lower the mean length "
                           "or its coefficient of variation",
                           (int)too_long, doc_length_draw(p, sigma, too_long) + 1.0);
      goto fail;
    }
  }
  for (d = 0; d < D; ++d) c.doc_offsets[d + 1] += c.doc_offsets[d];
  c.num_tokens = c.doc_offsets[D];
  c.tokens = (int32_t *)alloc_or_fail((size_t)c.num_tokens, sizeof *c.tokens, "tokens", err, &failed);
  if (topics_out != NULL)
    topics = (int32_t *)alloc_or_fail((size_t)c.num_tokens, sizeof *topics, "token topics", err, &failed);
  if (failed) goto fail;

  /* Documents, each from its own streams into its own token range. */
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
  {
    gen_scratch s;
    if (sk_lda_detail_all_ready(scratch_alloc(&s, K, 0) == 0, &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
      for (int32_t i = 0; i < D; ++i) make_doc(p, i, m, kconc, cells, &s, &c, topics, theta);
    }
    scratch_free(&s);
  }
  if (failed) {
    sk_ex_fail(err, "gen: out of memory allocating the documents' scratch (K = %d, %d threads)", (int)K, nt);
    goto fail;
  }

  if (make_vocab(&c, err)) {
    failed = 1;
    goto fail;
  }

  /* Hand over what the caller asked for; everything else is freed below, on success as on failure. */
  *out = c;
  memset(&c, 0, sizeof c);
  if (phi_out) *phi_out = phi, phi = NULL;
  if (theta_out) *theta_out = theta, theta = NULL;
  if (topics_out) *topics_out = topics, topics = NULL;

fail:
  free(zipf);
  free(kconc);
  free(cells);
  free(phi);
  free(theta);
  free(topics);
  sk_lda_corpus_free(&c);
  return failed;
}
