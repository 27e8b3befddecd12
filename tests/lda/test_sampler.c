/*
 * Correctness of the CPU samplers (examples/lda/src/cgs.h, esca.h), not just "the likelihood goes up".
 *
 * Exactness. On tiny corpora (4 tokens, K = 2 or 3, V = 3: 16 or 81 assignments) the test enumerates
 * every assignment z and computes, independently of the library (rising factorials, no lgamma):
 *  - the exact posterior p(z | w) (the target of collapsed Gibbs);
 *  - the exact one-sweep transition matrix of each sampler's own Markov chain: for CGS the product of
 *    the T single-token full-conditional kernels in token order (its stationary distribution must equal
 *    the posterior, which checks the test itself); for ESCA P[x][y] = prod_t q_t(y_t | x) with q_t from
 *    the counts of x (every token drawn from the previous sweep's counts), whose stationary distribution
 *    pi is found by power iteration.
 * The sampler then runs one long chain; autocorrelation is handled by thinning: from the exact
 * matrix the test finds the smallest m with max_x TV(P^m[x, .], pi) <= 1e-3 and records the state
 * only every m sweeps (after a burn-in of 10 m sweeps), so the recorded states are, to within 1e-3 in
 * total variation, independent draws from pi and Pearson's statistic against N pi follows chi-square
 * with (cells - 1) degrees of freedom; it must stay below sk_test_chi2_threshold() (false alarm ~1e-7).
 * One case of each kind has per-topic priors alpha_k (model.h; what --optimize-every learns), which the
 * posterior, the matrices and every sampler (planted bugs included) then use.
 * Each planted bug (a sampler built here from the real samplers' parts, with one mistake) must push the statistic above the threshold, and
 * ESCA's visits compared with the exact posterior instead of its own pi must be rejected too (total
 * variation 0.07 to 0.12 on these cases), which shows the test tells the two apart.
 *
 * With --gpu (registered as the gpu tests test_sampler_gpu_esca0 .. esca3 and test_sampler_gpu_aga, one
 * part each: `--gpu esca2` runs the third case, `--gpu` all of them) only ESCA's exact chains run, with the ESCA
 * sampler created on GPU 0 (gpu/esca_resident.h) and 20,000 recorded states per case (each recorded
 * state costs about 36 GPU sweeps), enough for ESCA-against-the-posterior to stay rejected; the
 * planted-bug samplers are CPU ones and stay in the CPU run. Then AGA-LDA on the GPU (gpu/aga_sampler.h,
 * made through gpu/aga_testing.h; mini-batches of one document) on corpora of one-token documents,
 * where it is collapsed Gibbs exactly: its visits against the exact posterior, and its planted bug (a
 * token's old topic not taken out of the word-topic counts before its draw) rejected. Without a GPU,
 * --gpu prints why and exits 77.
 *
 * Exact draws: with the uniforms fixed by the RNG, each token's ESCA topic equals the documented rule
 * re-implemented here. Determinism: ESCA gives the same topics with 1 and 2 threads. Invariants: counts
 * agree with z after sweeps, K from 1 to 65,536. Smoke: joint LL per token rises over 20 sweeps of
 * each sampler on a generated planted corpus.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgs.h"
#include "corpus.h"
#include "lda_test_esca.h"
#include "metrics.h"
#include "sampler_table.h"
#include "model.h"
#include "lda_test_corpus.h"
#include "samplekit/rng.h"
#include "sk_test.h"
#ifdef SK_LDA_HAVE_GPU
#include "gpu/aga_testing.h"
#include "gpu/gpu.h"
#endif

/* ---- small helpers ------------------------------------------------------------------------------ */


/* A planted LDA corpus: K_true topics, each on its own block of the vocabulary (plus 10% noise
   uniformly over all words), documents mixing two or three topics. */
static sk_lda_corpus make_planted_corpus(int32_t D, int32_t V, int32_t K_true, int32_t mean_len, uint64_t seed) {
  uint64_t s = seed;
  int32_t *len = (int32_t *)malloc((size_t)D * sizeof *len);
  int64_t T = 0;
  for (int32_t d = 0; d < D; ++d) {
    len[d] = mean_len / 2 + (int32_t)(sk_test_rand_u32(&s) % (uint32_t)mean_len);
    T += len[d];
  }
  int32_t *w = (int32_t *)malloc((size_t)T * sizeof *w);
  const int32_t block = V / K_true;
  int64_t t = 0;
  for (int32_t d = 0; d < D; ++d) {
    int32_t topics[3];
    for (int i = 0; i < 3; ++i) topics[i] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)K_true);
    for (int32_t i = 0; i < len[d]; ++i, ++t) {
      if (sk_test_rand_u32(&s) % 10u == 0) {
        w[t] = (int32_t)(sk_test_rand_u32(&s) % (uint32_t)V);
      } else {
        const int32_t k = topics[sk_test_rand_u32(&s) % 3u];
        /* a skewed pick inside the block: min of two uniforms */
        const uint32_t a = sk_test_rand_u32(&s) % (uint32_t)block, b = sk_test_rand_u32(&s) % (uint32_t)block;
        w[t] = k * block + (int32_t)(a < b ? a : b);
      }
    }
  }
  sk_lda_corpus c = make_corpus(V, D, len, w);
  free(len);
  free(w);
  return c;
}

/* Counts rebuilt from z by brute force must equal the model's (one check per call; the first
   difference is printed). */
static int check_invariants(const sk_lda_model *m, const char *what) {
  const int32_t K = m->num_topics, V = m->num_words;
  const sk_lda_corpus *c = m->corpus;
  int32_t *nvk = (int32_t *)calloc((size_t)V * (size_t)K, sizeof *nvk);
  int64_t *nk = (int64_t *)calloc((size_t)K, sizeof *nk);
  int32_t *ndk = (int32_t *)calloc((size_t)K, sizeof *ndk);
  char bad[200] = "";
  for (int64_t t = 0; t < m->num_tokens && !bad[0]; ++t)
    if (m->z[t] < 0 || m->z[t] >= K) snprintf(bad, sizeof bad, "z[%lld] = %d", (long long)t, (int)m->z[t]);
  for (int64_t t = 0; t < m->num_tokens && !bad[0]; ++t) {
    ++nvk[(size_t)c->tokens[t] * (size_t)K + (size_t)m->z[t]];
    ++nk[m->z[t]];
  }
  for (size_t i = 0; i < (size_t)V * (size_t)K && !bad[0]; ++i)
    if (nvk[i] != m->n_vk[i]) snprintf(bad, sizeof bad, "n_vk[%zu] = %d, expected %d", i, (int)m->n_vk[i], (int)nvk[i]);
  for (int32_t k = 0; k < K && !bad[0]; ++k)
    if (nk[k] != m->n_k[k])
      snprintf(bad, sizeof bad, "n_k[%d] = %lld, expected %lld", (int)k, (long long)m->n_k[k], (long long)nk[k]);
  for (int32_t d = 0; d < m->num_docs && !bad[0]; ++d) {
    int32_t nnz = 0;
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t)
      if (ndk[m->z[t]]++ == 0) ++nnz;
    if (nnz != m->dk_nnz[d]) snprintf(bad, sizeof bad, "doc %d has %d topics, model says %d", (int)d, (int)nnz, (int)m->dk_nnz[d]);
    for (int32_t i = 0; i < m->dk_nnz[d] && !bad[0]; ++i) {
      const int64_t j = m->dk_start[d] + i;
      if (i > 0 && m->dk_topic[j - 1] >= m->dk_topic[j])
        snprintf(bad, sizeof bad, "doc %d row not sorted", (int)d);
      else if (m->dk_topic[j] < 0 || m->dk_topic[j] >= K || ndk[m->dk_topic[j]] != m->dk_count[j])
        snprintf(bad, sizeof bad, "doc %d topic %d count %d, expected %d", (int)d, (int)m->dk_topic[j],
                 (int)m->dk_count[j], m->dk_topic[j] >= 0 && m->dk_topic[j] < K ? (int)ndk[m->dk_topic[j]] : -1);
    }
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) ndk[m->z[t]] = 0;
  }
  free(nvk);
  free(nk);
  free(ndk);
  return SK_CHECK(bad[0] == 0, "%s: counts disagree with z: %s", what, bad);
}

/* ---- exact chains on tiny corpora --------------------------------------------------------------- */

#define TINY_MAX_T 6
#define TINY_MAX_K 3
#define TINY_MAX_V 3
#define TINY_MAX_D 4

typedef struct tiny_case {
  const char *name;
  int32_t K, V, D, T;
  int32_t doc_len[TINY_MAX_D];
  int32_t words[TINY_MAX_T];
  double alpha, beta;
  double alpha_k[TINY_MAX_K]; /* per-topic priors when alpha_k[0] > 0 (model.h's alpha_k), else alpha for every topic */
} tiny_case;

/* Topic k's document-topic prior, and their sum. */
static double tiny_alpha(const tiny_case *tc, int k) { return tc->alpha_k[0] > 0.0 ? tc->alpha_k[k] : tc->alpha; }
static double tiny_alpha_sum(const tiny_case *tc) {
  double s = 0.0;
  for (int k = 0; k < tc->K; ++k) s += tiny_alpha(tc, k);
  return s;
}

typedef struct tiny_counts {
  int ndk[TINY_MAX_D][TINY_MAX_K], nvk[TINY_MAX_V][TINY_MAX_K], nk[TINY_MAX_K], nd[TINY_MAX_D];
} tiny_counts;

static int tiny_states(const tiny_case *tc) {
  int s = 1;
  for (int t = 0; t < tc->T; ++t) s *= tc->K;
  return s;
}

static void tiny_decode(const tiny_case *tc, int state, int32_t *z) {
  for (int t = 0; t < tc->T; ++t) {
    z[t] = state % tc->K;
    state /= tc->K;
  }
}

static int tiny_encode(const tiny_case *tc, const int32_t *z) {
  int s = 0;
  for (int t = tc->T - 1; t >= 0; --t) s = s * tc->K + z[t];
  return s;
}

static int tiny_doc_of(const tiny_case *tc, int t) {
  int d = 0, end = tc->doc_len[0];
  while (t >= end) end += tc->doc_len[++d];
  return d;
}

static void tiny_count(const tiny_case *tc, const int32_t *z, tiny_counts *n) {
  memset(n, 0, sizeof *n);
  for (int t = 0; t < tc->T; ++t) {
    const int d = tiny_doc_of(tc, t);
    ++n->ndk[d][z[t]];
    ++n->nvk[tc->words[t]][z[t]];
    ++n->nk[z[t]];
    ++n->nd[d];
  }
}

/* a (a + 1) ... (a + n - 1) = Gamma(a + n) / Gamma(a) */
static double rising(double a, int n) {
  double r = 1.0;
  for (int i = 0; i < n; ++i) r *= a + i;
  return r;
}

static void tiny_posterior(const tiny_case *tc, double *post) {
  const int S = tiny_states(tc);
  double total = 0.0;
  for (int s = 0; s < S; ++s) {
    int32_t z[TINY_MAX_T];
    tiny_counts n;
    tiny_decode(tc, s, z);
    tiny_count(tc, z, &n);
    double p = 1.0;
    for (int d = 0; d < tc->D; ++d) {
      p /= rising(tiny_alpha_sum(tc), n.nd[d]);
      for (int k = 0; k < tc->K; ++k) p *= rising(tiny_alpha(tc, k), n.ndk[d][k]);
    }
    for (int k = 0; k < tc->K; ++k) {
      p /= rising(tc->V * tc->beta, n.nk[k]);
      for (int v = 0; v < tc->V; ++v) p *= rising(tc->beta, n.nvk[v][k]);
    }
    post[s] = p;
    total += p;
  }
  for (int s = 0; s < S; ++s) post[s] /= total;
}

/* q[k] proportional to (ndk + alpha)(nvk + beta)/(nk + V beta) for token t's document and word. */
static void tiny_conditional(const tiny_case *tc, const tiny_counts *n, int t, double *q) {
  const int d = tiny_doc_of(tc, t), v = tc->words[t];
  double total = 0.0;
  for (int k = 0; k < tc->K; ++k) {
    q[k] = (n->ndk[d][k] + tiny_alpha(tc, k)) * (n->nvk[v][k] + tc->beta) / (n->nk[k] + tc->V * tc->beta);
    total += q[k];
  }
  for (int k = 0; k < tc->K; ++k) q[k] /= total;
}

/* CGS systematic scan: P = P_0 P_1 ... P_{T-1}, P_t resamples token t from its full conditional. */
static void tiny_cgs_matrix(const tiny_case *tc, double *P) {
  const int S = tiny_states(tc);
  double *cur = (double *)calloc((size_t)S * S, sizeof *cur), *next = (double *)calloc((size_t)S * S, sizeof *next);
  for (int s = 0; s < S; ++s) cur[s * S + s] = 1.0;
  for (int t = 0; t < tc->T; ++t) {
    memset(next, 0, (size_t)S * S * sizeof *next);
    for (int y = 0; y < S; ++y) { /* from intermediate state y, resample token t */
      int32_t z[TINY_MAX_T];
      tiny_counts n;
      double q[TINY_MAX_K];
      tiny_decode(tc, y, z);
      const int old = z[t];
      tiny_count(tc, z, &n);
      --n.ndk[tiny_doc_of(tc, t)][old];
      --n.nvk[tc->words[t]][old];
      --n.nk[old];
      tiny_conditional(tc, &n, t, q);
      for (int k = 0; k < tc->K; ++k) {
        z[t] = k;
        const int y2 = tiny_encode(tc, z);
        for (int x = 0; x < S; ++x) next[x * S + y2] += cur[x * S + y] * q[k];
      }
    }
    double *tmp = cur;
    cur = next;
    next = tmp;
  }
  memcpy(P, cur, (size_t)S * S * sizeof *P);
  free(cur);
  free(next);
}

/* ESCA: every token drawn from the counts of the previous state. */
static void tiny_esca_matrix(const tiny_case *tc, double *P) {
  const int S = tiny_states(tc);
  for (int x = 0; x < S; ++x) {
    int32_t z[TINY_MAX_T], y[TINY_MAX_T];
    tiny_counts n;
    double q[TINY_MAX_T][TINY_MAX_K];
    tiny_decode(tc, x, z);
    tiny_count(tc, z, &n);
    for (int t = 0; t < tc->T; ++t) tiny_conditional(tc, &n, t, q[t]);
    for (int s = 0; s < S; ++s) {
      double p = 1.0;
      tiny_decode(tc, s, y);
      for (int t = 0; t < tc->T; ++t) p *= q[t][y[t]];
      P[x * S + s] = p;
    }
  }
}

static void matmul(int S, const double *A, const double *B, double *C) {
  for (int i = 0; i < S; ++i)
    for (int j = 0; j < S; ++j) {
      double s = 0.0;
      for (int k = 0; k < S; ++k) s += A[i * S + k] * B[k * S + j];
      C[i * S + j] = s;
    }
}

/* Stationary distribution by power iteration from uniform. */
static void stationary(int S, const double *P, double *pi) {
  double *next = (double *)malloc((size_t)S * sizeof *next);
  for (int s = 0; s < S; ++s) pi[s] = 1.0 / S;
  for (int it = 0; it < 100000; ++it) {
    double change = 0.0;
    for (int j = 0; j < S; ++j) {
      double s = 0.0;
      for (int i = 0; i < S; ++i) s += pi[i] * P[i * S + j];
      next[j] = s;
    }
    for (int j = 0; j < S; ++j) {
      change += fabs(next[j] - pi[j]);
      pi[j] = next[j];
    }
    if (change < 1e-15) break;
  }
  free(next);
}

/* Smallest m <= 200 with max over starting states of TV(P^m[x, .], pi) <= eps. */
static int thinning(int S, const double *P, const double *pi, double eps) {
  double *M = (double *)malloc((size_t)S * S * sizeof *M), *tmp = (double *)malloc((size_t)S * S * sizeof *tmp);
  memcpy(M, P, (size_t)S * S * sizeof *M);
  int m = 1;
  for (; m < 200; ++m) {
    double worst = 0.0;
    for (int x = 0; x < S; ++x) {
      double tv = 0.0;
      for (int y = 0; y < S; ++y) tv += fabs(M[x * S + y] - pi[y]);
      if (0.5 * tv > worst) worst = 0.5 * tv;
    }
    if (worst <= eps) break;
    matmul(S, M, P, tmp);
    memcpy(M, tmp, (size_t)S * S * sizeof *M);
  }
  free(M);
  free(tmp);
  return m;
}

enum { SAMPLER_CGS = 0, SAMPLER_ESCA = 1, SAMPLER_AGA = 2 /* GPU only, mini-batches of one document */ };

/* ---- planted bugs: samplers composed from the real ones' parts, each with one mistake -------------- */

enum {
  BUG_NONE = 0,
  /* CGS: the token is not removed from n_dk before its draw (n_dk off by one for its own topic).
     ESCA: the token's own topic is removed from A_dk in the sparse part (ESCA must not remove it). */
  BUG_DOC_COUNT = 1,
  /* CGS: the token is not removed from n_vk and n_k before its draw.
     ESCA: the dense word table leaves out the last topic (loop bound off by one), so Q_v is too small.
     AGA: the token is not removed from WT before its draw (gpu/aga_testing.h's planted_bug; WT then
     drifts from z, so its counts are not checked after the chain). */
  BUG_WORD_COUNT = 2
};

/* CGS with sk_lda_cgs_draw() and the counts updated in the wrong order for `bug`; A rebuilt at the end. */
static int buggy_cgs_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  sk_lda_model *m = s->model;
  const int bug = *(const int *)s->state;
  const int32_t K = m->num_topics;
  const double vbeta = (double)m->num_words * m->beta;
  int32_t *ndk = (int32_t *)calloc((size_t)K, sizeof *ndk);
  double *inv = (double *)malloc((size_t)K * sizeof *inv), *cum = (double *)malloc((size_t)K * sizeof *cum);
  for (int32_t d = 0; d < m->num_docs; ++d) {
    const int64_t begin = m->corpus->doc_offsets[d], end = m->corpus->doc_offsets[d + 1];
    for (int64_t t = begin; t < end; ++t) ++ndk[m->z[t]];
    for (int64_t t = begin; t < end; ++t) {
      const int32_t old = m->z[t];
      int32_t *nvk = m->n_vk + (size_t)m->corpus->tokens[t] * (size_t)K;
      if (bug != BUG_DOC_COUNT) --ndk[old];
      if (bug != BUG_WORD_COUNT) --nvk[old], --m->n_k[old];
      for (int32_t k = 0; k < K; ++k) inv[k] = 1.0 / ((double)m->n_k[k] + vbeta);
      const double u = sk_rng_uniform_f64(m->seed, iteration, (uint64_t)t);
      const int32_t k = m->alpha_k == NULL ? sk_lda_cgs_draw(ndk, nvk, inv, K, m->alpha, m->beta, u, cum)
                                           : sk_lda_cgs_draw_prior(ndk, nvk, inv, K, m->alpha_k, m->beta, u, cum);
      if (bug == BUG_DOC_COUNT) --ndk[old];
      if (bug == BUG_WORD_COUNT) --nvk[old], --m->n_k[old];
      m->z[t] = k;
      ++ndk[k], ++nvk[k], ++m->n_k[k];
    }
    for (int64_t t = begin; t < end; ++t) ndk[m->z[t]] = 0;
  }
  free(ndk), free(inv), free(cum);
  return sk_lda_model_recount(m, 1, err);
}

/* ESCA with sk_lda_esca_word_table() and sk_lda_esca_draw(), given the wrong input for `bug`. */
static int buggy_esca_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  sk_lda_model *m = s->model;
  const int bug = *(const int *)s->state;
  const int32_t K = m->num_topics, V = m->num_words;
  double *inv = (double *)malloc((size_t)K * sizeof *inv), *psum = (double *)malloc((size_t)K * sizeof *psum);
  double *cum = (double *)malloc((size_t)V * (size_t)K * sizeof *cum);
  int32_t *row = (int32_t *)malloc((size_t)K * sizeof *row);
  sk_lda_esca_inv_denom(m, inv);
  const int32_t end = bug == BUG_WORD_COUNT && K > 1 ? K - 1 : K;
  for (int32_t v = 0; v < V; ++v) {
    double *c = cum + (size_t)v * K;
    if (m->alpha_k == NULL)
      sk_lda_esca_word_table(m->n_vk + (size_t)v * K, inv, m->beta, end, c);
    else
      sk_lda_esca_word_table_prior(m->n_vk + (size_t)v * K, inv, m->alpha_k, m->beta, end, c);
    for (int32_t k = end; k < K; ++k) c[k] = c[end - 1];
  }
  for (int32_t d = 0; d < m->num_docs; ++d) {
    const int64_t start = m->dk_start[d];
    const int32_t nnz = m->dk_nnz[d];
    for (int64_t t = m->corpus->doc_offsets[d]; t < m->corpus->doc_offsets[d + 1]; ++t) {
      for (int32_t i = 0; i < nnz; ++i)
        row[i] = m->dk_count[start + i] - (bug == BUG_DOC_COUNT && m->dk_topic[start + i] == m->z[t] ? 1 : 0);
      const size_t w = (size_t)m->corpus->tokens[t] * (size_t)K;
      m->z[t] = sk_lda_esca_draw(m->dk_topic + start, row, nnz, m->n_vk + w, cum + w, inv, K,
                                 m->alpha_k == NULL ? m->alpha : 1.0, m->beta,
                                 sk_rng_uniform_f64(m->seed, iteration, (uint64_t)t), psum);
    }
  }
  free(inv), free(psum), free(cum), free(row);
  return sk_lda_model_recount(m, 1, err);
}

static const sk_lda_sampler_ops buggy_cgs_ops = {"cgs-bug", "CGS with a planted bug", buggy_cgs_sweep,
                                                 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
static const sk_lda_sampler_ops buggy_esca_ops = {"esca-bug", "ESCA with a planted bug", buggy_esca_sweep,
                                                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};

/* The device the real samplers of the exact chains run on: the CPU, or GPU 0 with --gpu. */
static sk_lda_device exact_device = {.kind = SK_LDA_DEVICE_CPU, .threads = 1};

#ifdef SK_LDA_HAVE_GPU
/* AGA's draw for the chains that follow (aga_testing.h's lane_topics: 0 by K, 8 the blocked draw with a
   lane's walk over 8 topics, -1 the paper's two passes). */
static int aga_lane_topics = 0;

/* AGA on GPU 0 (exact_device) with mini-batches of one document; BUG_WORD_COUNT plants its WT bug. */
static int make_aga_sampler(int bug, sk_lda_model *m, sk_lda_sampler **s, sk_ex_error *err) {
  sk_lda_aga_options o;
  memset(&o, 0, sizeof o);
  o.minibatch_docs = 1;
  sk_lda_aga_test_hooks hooks;
  memset(&hooks, 0, sizeof hooks);
  hooks.planted_bug = bug == BUG_WORD_COUNT;
  hooks.lane_topics = aga_lane_topics;
  return sk_lda_aga_create_for_test(m, &exact_device, &o, &hooks, s, err) == 0 ? 0 : 1;
}
#endif

/* The real sampler (bug = BUG_NONE) or a planted-bug one, through the sampler interface. */
static int make_sampler(int sampler, int *bug, sk_lda_model *m, sk_lda_sampler **s, sk_ex_error *err) {
  const sk_lda_device cpu = {.kind = SK_LDA_DEVICE_CPU, .threads = 1};
#ifdef SK_LDA_HAVE_GPU
  if (sampler == SAMPLER_AGA) return make_aga_sampler(*bug, m, s, err);
#endif
  if (*bug == BUG_NONE)
    return sk_lda_sampler_create(sampler == SAMPLER_CGS ? SK_LDA_SAMPLER_CGS : SK_LDA_SAMPLER_ESCA, m, &exact_device,
                                 s, err);
  return sk_lda_sampler_wrap(sampler == SAMPLER_CGS ? &buggy_cgs_ops : &buggy_esca_ops, bug, m, &cpu, s, err);
}

/* Runs the sampler (with the given planted bug) and returns Pearson's statistic against N pi. */
static double run_chain_chi2(const tiny_case *tc, int sampler, int bug, const double *pi, int thin, long samples,
                             uint64_t seed, const double *other, double *chi2_other) {
  const int S = tiny_states(tc);
  sk_lda_corpus c = make_corpus(tc->V, tc->D, tc->doc_len, tc->words);
  sk_lda_model m;
  sk_lda_sampler *s = NULL;
  sk_ex_error err;
  double *obs = (double *)calloc((size_t)S, sizeof *obs), *expct = (double *)malloc((size_t)S * sizeof *expct);
  double chi2 = -1.0;
  if (SK_CHECK(sk_lda_model_init(&m, &c, tc->K, tc->alpha, tc->beta, seed, &err) == 0, "init: %s", err.message)) {
    uint64_t it = 0;
    int ok = tc->alpha_k[0] <= 0.0 || SK_CHECK(sk_lda_model_set_priors(&m, tc->alpha_k, tc->beta, &err) == 0,
                                               "per-topic priors: %s", err.message);
    ok = ok && SK_CHECK(make_sampler(sampler, &bug, &m, &s, &err) == 0, "sampler: %s", err.message);
    const double t0 = sk_ex_now();
    if (exact_device.kind == SK_LDA_DEVICE_GPU) /* so that a run cut off at a time limit shows where */
      printf("%-26s chain on the GPU: %ld sweeps (thin %d) ...\n", tc->name, (samples + 10) * thin, thin);
    for (long n = -10; n < samples && ok; ++n) { /* 10 thinning intervals of burn-in */
      for (int j = 0; j < thin && ok; ++j, ++it) ok = sk_lda_sampler_sweep(s, it, &err) == 0;
      if (ok && n >= 0) ok = sk_lda_sampler_to_host(s, &err) == 0; /* a GPU sampler's z is on the GPU */
      if (ok && n >= 0) obs[tiny_encode(tc, m.z)] += 1.0;
    }
    if (exact_device.kind == SK_LDA_DEVICE_GPU)
      printf("%-26s chain on the GPU: %.1f s, %.1f us a sweep\n", tc->name, sk_ex_now() - t0,
             1e6 * (sk_ex_now() - t0) / (double)((samples + 10) * thin));
    if (SK_CHECK(ok, "sweep failed: %s", err.message)) {
      for (int k = 0; k < S; ++k) expct[k] = (double)samples * pi[k];
      chi2 = sk_test_chi2(obs, expct, S);
      if (other != NULL) {
        for (int k = 0; k < S; ++k) expct[k] = (double)samples * other[k];
        *chi2_other = sk_test_chi2(obs, expct, S);
      }
    }
    sk_lda_sampler_destroy(s);
    if (!(sampler == SAMPLER_AGA && bug != BUG_NONE)) check_invariants(&m, "tiny chain");
    sk_lda_model_free(&m);
  }
  free(obs);
  free(expct);
  sk_lda_corpus_free(&c);
  return chi2;
}

/* gpu: ESCA only, on exact_device (the GPU), with fewer samples and without the planted bugs. only_case:
   the one case to run (an index of cases[]), or -1 for all. */
enum { EXACT_CASES = 4 };
static void test_exact_chains(int gpu, int only_case) {
  static const tiny_case cases[] = {
      {"K3 V3 docs [0 1][1 2]", 3, 3, 2, 4, {2, 2}, {0, 1, 1, 2}, 0.4, 0.2, {0}},
      {"K2 V3 docs [0 0 1][2]", 2, 3, 2, 4, {3, 1}, {0, 0, 1, 2}, 1.0, 0.5, {0}},
      {"K3 V3 one doc [0 1 2 0]", 3, 3, 1, 4, {4}, {0, 1, 2, 0}, 0.3, 0.7, {0}},
      /* per-topic priors (--optimize-every's alpha_k): every sampler's draws and the posterior take them */
      {"K3 V3 [0 1][1 2] alpha_k", 3, 3, 2, 4, {2, 2}, {0, 1, 1, 2}, 0.4, 0.2, {0.1, 0.5, 1.3}},
  };
  _Static_assert(sizeof cases / sizeof cases[0] == EXACT_CASES, "EXACT_CASES counts cases[]");
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    if (only_case >= 0 && (size_t)only_case != ci) continue;
    const tiny_case *tc = &cases[ci];
    const int S = tiny_states(tc);
    double *post = (double *)malloc((size_t)S * sizeof *post), *pi = (double *)malloc((size_t)S * sizeof *pi);
    double *P = (double *)malloc((size_t)S * S * sizeof *P);
    const double threshold = sk_test_chi2_threshold(S - 1);
    const long samples = gpu ? 20000 : 100000;
    tiny_posterior(tc, post);
    for (int sampler = gpu ? SAMPLER_ESCA : SAMPLER_CGS; sampler <= SAMPLER_ESCA; ++sampler) {
      const char *sname = sampler == SAMPLER_CGS ? "CGS" : "ESCA";
      if (sampler == SAMPLER_CGS)
        tiny_cgs_matrix(tc, P);
      else
        tiny_esca_matrix(tc, P);
      stationary(S, P, pi);
      double maxdiff = 0.0, tv_post = 0.0;
      for (int s = 0; s < S; ++s) {
        if (fabs(pi[s] - post[s]) > maxdiff) maxdiff = fabs(pi[s] - post[s]);
        tv_post += 0.5 * fabs(pi[s] - post[s]);
      }
      sk_test_context("%s, %s%s", tc->name, sname, gpu ? " on the GPU" : "");
      if (sampler == SAMPLER_CGS) /* checks the test's own matrix and posterior against each other */
        SK_CHECK(maxdiff < 1e-12, "stationary distribution of the CGS matrix differs from the posterior by %g",
                 maxdiff);
      const int thin = thinning(S, P, pi, 1e-3);
      double chi2_post = 0.0;
      /* with per-topic priors CGS's visits are also held against the symmetric prior's posterior (alpha for
         every topic): a sampler that ignored alpha_k must be told apart */
      const int asym_cgs = sampler == SAMPLER_CGS && tc->alpha_k[0] > 0.0;
      double *sym = NULL;
      if (asym_cgs) {
        tiny_case plain = *tc;
        plain.alpha_k[0] = 0.0;
        sym = (double *)malloc((size_t)S * sizeof *sym);
        tiny_posterior(&plain, sym);
      }
      const double chi2 = run_chain_chi2(tc, sampler, BUG_NONE, pi, thin, samples, 1000 + ci,
                                         sampler == SAMPLER_ESCA ? post : sym, &chi2_post);
      if (asym_cgs) {
        printf("%-26s CGS  against the symmetric prior's posterior instead: chi2 %8.1f -> %s\n", tc->name, chi2_post,
               chi2_post > threshold ? "rejected" : "NOT rejected");
        SK_CHECK(chi2_post > threshold, "CGS's visits fit the symmetric posterior (chi2 %.1f): alpha_k is not seen",
                 chi2_post);
        free(sym);
      }
      printf("%-26s %-4s states %2d thin %2d  TV(pi, posterior) %.4f  chi2 %8.1f (threshold %.1f)\n", tc->name,
             sname, S, thin, tv_post, chi2, threshold);
      if (sampler == SAMPLER_ESCA) { /* the test tells ESCA's own chain from the posterior it approximates */
        printf("%-26s ESCA against the exact posterior instead: chi2 %8.1f -> %s\n", tc->name, chi2_post,
               chi2_post > threshold ? "rejected" : "NOT rejected");
        SK_CHECK(chi2_post > threshold, "ESCA's visits fit the posterior (chi2 %.1f): the test cannot tell them apart",
                 chi2_post);
      }
      SK_CHECK(chi2 >= 0.0 && chi2 < threshold, "chi-square %.1f >= threshold %.1f (thin %d, %ld samples)", chi2,
               threshold, thin, samples);
      for (int bug = BUG_DOC_COUNT; bug <= BUG_WORD_COUNT && !gpu; ++bug) {
        const double chi2_bug = run_chain_chi2(tc, sampler, bug, pi, thin, samples, 1000 + ci, NULL, NULL);
        printf("%-26s %-4s planted bug %d: chi2 %8.1f -> %s\n", tc->name, sname, bug, chi2_bug,
               chi2_bug > threshold ? "rejected" : "NOT rejected");
        SK_CHECK(chi2_bug > threshold, "planted bug %d not detected: chi-square %.1f <= %.1f", bug, chi2_bug,
                 threshold);
      }
    }
    free(post);
    free(pi);
    free(P);
  }
}

/* ---- AGA-LDA on the GPU: collapsed Gibbs on one-token documents ---------------------------------- */

#ifdef SK_LDA_HAVE_GPU
/* AGA with mini-batches of one document: on corpora of one-token documents each draw sees every other
   token's topic and none of its own (WT and NT are updated immediately, DT is the document's own token
   only), so one sweep is the product of the single-token collapsed Gibbs kernels in token order: the
   CGS matrix, whose stationary distribution is the posterior. Each case runs with the draw K chooses
   (the blocked draw, a topic a lane), with the blocked draw's walk over 8 topics in lane 0, and with the
   paper's two passes (K > 256 otherwise); the planted bug with the first. */
static void test_aga_exact_chains(void) {
  static const tiny_case cases[] = {
      {"K3 V3 4 one-token docs", 3, 3, 4, 4, {1, 1, 1, 1}, {0, 1, 1, 2}, 0.4, 0.2, {0}},
      {"K2 V2 4 one-token docs", 2, 2, 4, 4, {1, 1, 1, 1}, {0, 0, 1, 0}, 1.0, 0.5, {0}},
      {"K3 V3 one-token alpha_k", 3, 3, 4, 4, {1, 1, 1, 1}, {0, 1, 1, 2}, 0.4, 0.2, {0.2, 0.6, 1.1}},
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const tiny_case *tc = &cases[ci];
    const int S = tiny_states(tc);
    double *post = (double *)malloc((size_t)S * sizeof *post);
    double *P = (double *)malloc((size_t)S * S * sizeof *P);
    const double threshold = sk_test_chi2_threshold(S - 1);
    const long samples = 20000;
    tiny_posterior(tc, post);
    tiny_cgs_matrix(tc, P);
    const int thin = thinning(S, P, post, 1e-3);
    static const int lane_topics[] = {0, 8, -1};
    static const char *const draw_names[] = {"blocked draw", "blocked draw, 8 topics a lane", "two passes"};
    for (int li = 0; li < 3; ++li) {
      aga_lane_topics = lane_topics[li];
      sk_test_context("%s, AGA on the GPU, %s", tc->name, draw_names[li]);
      const double chi2 = run_chain_chi2(tc, SAMPLER_AGA, BUG_NONE, post, thin, samples, 2000 + ci, NULL, NULL);
      printf("%-26s AGA  states %2d thin %2d  chi2 %8.1f against the posterior (threshold %.1f; %s)\n", tc->name, S,
             thin, chi2, threshold, draw_names[li]);
      SK_CHECK(chi2 >= 0.0 && chi2 < threshold, "chi-square %.1f >= threshold %.1f (thin %d, %ld samples)", chi2,
               threshold, thin, samples);
    }
    aga_lane_topics = 0;
    sk_test_context("%s, AGA on the GPU, planted bug", tc->name);
    const double chi2_bug = run_chain_chi2(tc, SAMPLER_AGA, BUG_WORD_COUNT, post, thin, samples, 2000 + ci, NULL, NULL);
    printf("%-26s AGA  planted bug (old topic not taken out of WT): chi2 %8.1f -> %s\n", tc->name, chi2_bug,
           chi2_bug > threshold ? "rejected" : "NOT rejected");
    SK_CHECK(chi2_bug > threshold, "AGA's planted bug not detected: chi-square %.1f <= %.1f", chi2_bug, threshold);
    free(post);
    free(P);
  }
}
#endif

/* ---- ESCA's order of a row's pairs (esca.h's sk_lda_esca_pair_at) -------------------------------- */

/* The sparse part's order (esca.h), written out independently of sk_lda_esca_pair_at(): up to 256 pairs
   lane by lane of a warp of 32 (lane r: pairs r, r + 32, ...), longer rows in index order. Fills order[0,
   nnz) with pair indices; returns how many it wrote. */
static int32_t esca_hold_order(int32_t nnz, int32_t *order) {
  int32_t n = 0;
  if (nnz <= 256) {
    for (int32_t r = 0; r < 32; ++r)
      for (int32_t i = r; i < nnz; i += 32) order[n++] = i;
  } else {
    for (int32_t i = 0; i < nnz; ++i) order[n++] = i;
  }
  return n;
}

/* For every row length up to 300: the positions map onto the pairs one to one, in the order of a warp of
   32 lanes that holds pairs r, r + 32, ... in lane r, the lanes one after another (rows of up to 256),
   else in index order; rows of at most 32 pairs keep index order either way. */
static void test_esca_pair_order(void) {
  int32_t order[300], seen[300];
  SK_CHECK(SK_LDA_ESCA_HOLD_PAIRS == 256, "esca.h's hold is %d pairs, the order written out here 256",
           (int)SK_LDA_ESCA_HOLD_PAIRS);
  for (int32_t nnz = 0; nnz <= 300; ++nnz) {
    const int32_t n = esca_hold_order(nnz, order);
    memset(seen, 0, sizeof seen);
    int ok = n == nnz;
    for (int32_t p = 0; p < nnz && ok; ++p) {
      const int32_t i = sk_lda_esca_pair_at(p, nnz);
      ok = i >= 0 && i < nnz && !seen[i] && i == order[p] && (nnz > 32 || i == p);
      if (ok) seen[i] = 1;
    }
    sk_test_context("ESCA pair order, nnz = %d", (int)nnz);
    SK_CHECK(ok, "sk_lda_esca_pair_at is not the hold's order");
  }
}

/* ---- ESCA's draw rule, re-implemented from esca.h, token by token -------------------------------- */

static void test_esca_exact_draws(void) {
  const int32_t Ks[] = {1, 7, 64, 300};
  for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; ++i) {
    const int32_t K = Ks[i];
    sk_lda_corpus c = make_planted_corpus(60, 200, 8, 30, 77 + (uint64_t)K);
    sk_lda_model m;
    sk_ex_error err;
    sk_test_context("ESCA exact draws, K = %d", (int)K);
    if (!SK_CHECK(sk_lda_model_init(&m, &c, K, sk_lda_default_alpha(K), 0.05, 5 + (uint64_t)K, &err) == 0,
                  "init: %s", err.message)) {
      sk_lda_corpus_free(&c);
      continue;
    }
    /* two sweeps first, so the rows are not the uniform initial ones */
    SK_CHECK(esca_sweep(&m, 0, 2, &err) == 0 && esca_sweep(&m, 1, 2, &err) == 0, "sweep: %s",
             err.message);
    const int32_t V = m.num_words;
    const double vbeta = (double)V * m.beta;
    int32_t *expect = (int32_t *)malloc((size_t)m.num_tokens * sizeof *expect);
    double *cum = (double *)malloc((size_t)K * sizeof *cum);
    int32_t *order = (int32_t *)malloc((size_t)K * sizeof *order); /* a row's pairs: at most K */
    const uint64_t iteration = 2;
    for (int32_t d = 0; d < m.num_docs; ++d)
      for (int64_t t = c.doc_offsets[d]; t < c.doc_offsets[d + 1]; ++t) {
        const int32_t v = c.tokens[t];
        double run = 0.0;
        for (int32_t k = 0; k < K; ++k) {
          run += ((double)m.n_vk[(size_t)v * K + k] + m.beta) * (1.0 / ((double)m.n_k[k] + vbeta));
          cum[k] = run;
        }
        const int32_t nnz = m.dk_nnz[d];
        (void)esca_hold_order(nnz, order); /* the sparse part's order */
        double s = 0.0;
        for (int32_t j = 0; j < nnz; ++j) {
          const int32_t k = m.dk_topic[m.dk_start[d] + order[j]];
          s += (double)m.dk_count[m.dk_start[d] + order[j]] *
               (((double)m.n_vk[(size_t)v * K + k] + m.beta) * (1.0 / ((double)m.n_k[k] + vbeta)));
        }
        const double x = sk_rng_uniform_f64(m.seed, iteration, (uint64_t)t) * (s + m.alpha * cum[K - 1]);
        int32_t pick = -1;
        if (x < s) {
          double s2 = 0.0;
          for (int32_t j = 0; j < nnz && pick < 0; ++j) {
            const int32_t k = m.dk_topic[m.dk_start[d] + order[j]];
            s2 += (double)m.dk_count[m.dk_start[d] + order[j]] *
                  (((double)m.n_vk[(size_t)v * K + k] + m.beta) * (1.0 / ((double)m.n_k[k] + vbeta)));
            if (s2 > x) pick = k;
          }
        } else {
          const double y = (x - s) / m.alpha;
          for (int32_t k = 0; k < K && pick < 0; ++k)
            if (cum[k] > y) pick = k;
          if (pick < 0) pick = K - 1;
        }
        expect[t] = pick;
      }
    if (SK_CHECK(esca_sweep(&m, iteration, 2, &err) == 0, "sweep: %s", err.message)) {
      int64_t mismatches = 0, first = -1;
      for (int64_t t = 0; t < m.num_tokens; ++t)
        if (m.z[t] != expect[t]) {
          if (first < 0) first = t;
          ++mismatches;
        }
      SK_CHECK(mismatches == 0, "%lld of %lld tokens differ from the rule; first t = %lld: %d, expected %d",
               (long long)mismatches, (long long)m.num_tokens, (long long)first, first >= 0 ? (int)m.z[first] : 0,
               first >= 0 ? (int)expect[first] : 0);
      check_invariants(&m, "after exact-draw sweep");
    }
    free(expect);
    free(cum);
    free(order);
    sk_lda_model_free(&m);
    sk_lda_corpus_free(&c);
  }
}

/* ---- determinism and invariants ------------------------------------------------------------------ */

static void test_esca_thread_independence(void) {
  const int32_t Ks[] = {1, 37, 1024};
  for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; ++i) {
    const int32_t K = Ks[i];
    sk_lda_corpus c = make_planted_corpus(400, 700, 10, 60, 9 + (uint64_t)K);
    sk_lda_model a, b;
    sk_ex_error err;
    sk_test_context("ESCA 1 vs 2 threads, K = %d", (int)K);
    const double alpha = sk_lda_default_alpha(K);
    if (!SK_CHECK(sk_lda_model_init(&a, &c, K, alpha, 0.01, 42, &err) == 0 &&
                      sk_lda_model_init(&b, &c, K, alpha, 0.01, 42, &err) == 0,
                  "init: %s", err.message)) {
      sk_lda_corpus_free(&c);
      continue;
    }
    int same = 1;
    for (uint64_t it = 0; it < 5 && same; ++it) {
      SK_CHECK(esca_sweep(&a, it, 1, &err) == 0, "sweep: %s", err.message);
      SK_CHECK(esca_sweep(&b, it, 2, &err) == 0, "sweep: %s", err.message);
      same = SK_CHECK(memcmp(a.z, b.z, (size_t)a.num_tokens * sizeof *a.z) == 0, "topics differ after sweep %llu",
                      (unsigned long long)it) &&
             SK_CHECK(memcmp(a.n_vk, b.n_vk, (size_t)a.num_words * (size_t)K * sizeof *a.n_vk) == 0,
                      "n_vk differs after sweep %llu", (unsigned long long)it);
    }
    check_invariants(&a, "ESCA 1 thread");
    check_invariants(&b, "ESCA 2 threads");
    const double la = sk_lda_joint_ll_per_token(&a), lb = sk_lda_joint_ll_per_token(&b);
    SK_CHECK(memcmp(&la, &lb, sizeof la) == 0, "joint LL differs: %.17g vs %.17g", la, lb);
    /* the same seed reproduces CGS too */
    sk_lda_model_free(&a);
    sk_lda_model_free(&b);
    sk_lda_corpus_free(&c);
  }
}

static void test_cgs_reproducible_and_extreme_k(void) {
  sk_lda_corpus c = make_planted_corpus(30, 50, 5, 20, 123);
  sk_ex_error err;
  const int32_t Ks[] = {1, 2, 65536};
  for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; ++i) {
    const int32_t K = Ks[i];
    sk_lda_model a, b;
    sk_test_context("CGS/ESCA K = %d", (int)K);
    if (!SK_CHECK(sk_lda_model_init(&a, &c, K, sk_lda_default_alpha(K), 0.01, 7, &err) == 0 &&
                      sk_lda_model_init(&b, &c, K, sk_lda_default_alpha(K), 0.01, 7, &err) == 0,
                  "init: %s", err.message))
      continue;
    check_invariants(&a, "after init");
    for (uint64_t it = 0; it < 2; ++it) {
      SK_CHECK(sk_lda_cgs_sweep(&a, it, &err) == 0, "CGS sweep: %s", err.message);
      SK_CHECK(sk_lda_cgs_sweep(&b, it, &err) == 0, "CGS sweep: %s", err.message);
    }
    SK_CHECK(memcmp(a.z, b.z, (size_t)a.num_tokens * sizeof *a.z) == 0, "CGS is not reproducible");
    check_invariants(&a, "after CGS");
    SK_CHECK(esca_sweep(&a, 2, 0, &err) == 0, "ESCA sweep: %s", err.message);
    check_invariants(&a, "after ESCA");
    const double ll = sk_lda_joint_ll_per_token(&a);
    SK_CHECK(isfinite(ll) && ll < 0.0, "joint LL %g", ll);
    sk_lda_model_free(&a);
    sk_lda_model_free(&b);
  }
  sk_lda_corpus_free(&c);
}

static void test_argument_checks(void) {
  sk_lda_corpus c = make_planted_corpus(5, 20, 2, 10, 1);
  sk_lda_model m;
  sk_ex_error err;
  sk_test_context("argument checks");
  err.message[0] = 0;
  SK_CHECK(sk_lda_model_init(&m, &c, 0, 1.0, 0.1, 1, &err) != 0 && strstr(err.message, "topics") != NULL,
           "K = 0 accepted (%s)", err.message);
  SK_CHECK(sk_lda_model_init(&m, &c, SK_LDA_MAX_TOPICS + 1, 1.0, 0.1, 1, &err) != 0, "K = 65537 accepted");
  SK_CHECK(sk_lda_model_init(&m, &c, 4, 0.0, 0.1, 1, &err) != 0, "alpha = 0 accepted");
  SK_CHECK(sk_lda_model_init(&m, &c, 4, 1.0, NAN, 1, &err) != 0, "beta = NaN accepted");
  SK_CHECK(sk_lda_model_init(&m, NULL, 4, 1.0, 0.1, 1, &err) != 0, "NULL corpus accepted");
  SK_CHECK(sk_lda_model_init(NULL, &c, 4, 1.0, 0.1, 1, &err) != 0, "NULL model accepted");
  c.tokens[3] = c.num_words;
  SK_CHECK(sk_lda_model_init(&m, &c, 4, 1.0, 0.1, 1, &err) != 0 && strstr(err.message, "word id") != NULL,
           "word id out of range accepted (%s)", err.message);
  c.tokens[3] = 0;
  if (SK_CHECK(sk_lda_model_init(&m, &c, 4, 1.0, 0.1, 1, &err) == 0, "init: %s", err.message)) {
    int32_t *z = (int32_t *)calloc((size_t)m.num_tokens, sizeof *z);
    z[0] = 4;
    SK_CHECK(sk_lda_model_set_z(&m, z, &err) != 0, "topic 4 accepted with K = 4");
    z[0] = 3;
    SK_CHECK(sk_lda_model_set_z(&m, z, &err) == 0 && m.z[0] == 3 && m.n_k[3] == 1, "set_z failed: %s", err.message);
    check_invariants(&m, "after set_z");
    SK_CHECK(sk_lda_model_doc_count(&m, 0, 3) == 1 && sk_lda_model_doc_count(&m, 0, 2) == 0 &&
                 sk_lda_model_doc_count(&m, 0, 0) == c.doc_offsets[1] - 1,
             "doc_count: %d %d %d", (int)sk_lda_model_doc_count(&m, 0, 3), (int)sk_lda_model_doc_count(&m, 0, 2),
             (int)sk_lda_model_doc_count(&m, 0, 0));
    SK_CHECK(sk_lda_cgs_sweep(&m, SK_LDA_STREAM_RESERVED, &err) != 0, "reserved iteration accepted by CGS");
    SK_CHECK(esca_sweep(&m, SK_LDA_STREAM_RESERVED, 1, &err) != 0, "reserved iteration accepted by ESCA");
    SK_CHECK(sk_lda_model_bytes(&m) > 0, "model bytes 0");
    free(z);
    sk_lda_model_free(&m);
    sk_lda_model_free(&m); /* freeing twice (zeroed) is fine */
  }
  SK_CHECK(sk_lda_cgs_sweep(NULL, 0, &err) != 0 && esca_sweep(NULL, 0, 1, &err) != 0, "NULL model swept");
  SK_CHECK(sk_lda_sampler_sweep(NULL, 0, &err) != 0 && sk_lda_sampler_to_host(NULL, &err) != 0, "NULL sampler swept");
  sk_lda_sampler_destroy(NULL);
  /* Devices: the CPU stays the CPU. ESCA goes to the GPU when this build has the GPU part and GPU 0 is
     usable; otherwise a GPU request fails, naming the reason, and auto falls back to the CPU with a
     note that says why. CGS runs on the CPU only, whatever the machine. */
  int have_gpu = 0;
#ifdef SK_LDA_HAVE_GPU
  sk_ex_error why;
  have_gpu = sk_ex_gpu_probe(0, NULL, 0, &why) == 0;
#endif
  sk_lda_device want = {.kind = SK_LDA_DEVICE_CPU, .threads = 0}, got;
  const char *note = "unset";
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) == 0 && got.kind == SK_LDA_DEVICE_CPU &&
               note == NULL,
           "cpu did not resolve to the CPU silently");
  want.kind = SK_LDA_DEVICE_GPU;
  if (have_gpu)
    SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) == 0 &&
                 got.kind == SK_LDA_DEVICE_GPU,
             "gpu did not resolve on a machine with a GPU (%s)", err.message);
  else
    SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) != 0 &&
                 strstr(err.message, "--device gpu") != NULL,
             "gpu resolved without a GPU (%s)", err.message);
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_CGS, &got, &note, &err) != 0 &&
               strstr(err.message, "--device gpu") != NULL && strstr(err.message, "CPU only") != NULL,
           "gpu resolved for CGS (%s)", err.message);
  want.kind = SK_LDA_DEVICE_AUTO;
  if (have_gpu)
    SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) == 0 &&
                 got.kind == SK_LDA_DEVICE_GPU && note == NULL,
             "auto did not pick the GPU silently (%s)", note ? note : "no note");
  else
    SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_ESCA, &got, &note, &err) == 0 &&
                 got.kind == SK_LDA_DEVICE_CPU && note != NULL && strstr(note, "training on the CPU") != NULL,
             "auto did not fall back to the CPU with a note (%s)", note ? note : "no note");
  printf("--device auto here: %s\n", note ? note : "(no note: the GPU)");
  SK_CHECK(sk_lda_device_resolve(&want, SK_LDA_SAMPLER_CGS, &got, &note, &err) == 0 && got.kind == SK_LDA_DEVICE_CPU &&
               note != NULL && strstr(note, "CPU only") != NULL && strstr(note, "training on the CPU") != NULL,
           "auto with CGS did not pick the CPU with a note (%s)", note ? note : "no note");
  SK_CHECK(sk_lda_sampler_kind_from_name("esca") == SK_LDA_SAMPLER_ESCA &&
               sk_lda_sampler_kind_from_name("cgs") == SK_LDA_SAMPLER_CGS &&
               sk_lda_sampler_kind_from_name("auto") == SK_LDA_SAMPLER_AUTO && sk_lda_sampler_kind_from_name("x") < 0,
           "sampler names");
  /* --sampler auto's rule: AGA on a GPU up to SK_LDA_AUTO_AGA_MAX_TOPICS and int32 positions, else ESCA */
  sk_lda_device cpu = want, gpu = want;
  cpu.kind = SK_LDA_DEVICE_CPU;
  gpu.kind = SK_LDA_DEVICE_GPU;
  const int32_t edge = SK_LDA_AUTO_AGA_MAX_TOPICS;
  SK_CHECK(sk_lda_sampler_auto(&gpu, 1, 10) == SK_LDA_SAMPLER_AGA &&
               sk_lda_sampler_auto(&gpu, edge, INT32_MAX) == SK_LDA_SAMPLER_AGA &&
               sk_lda_sampler_auto(&gpu, edge + 1, 10) == SK_LDA_SAMPLER_ESCA &&
               sk_lda_sampler_auto(&gpu, 2, (int64_t)INT32_MAX + 1) == SK_LDA_SAMPLER_ESCA &&
               sk_lda_sampler_auto(&cpu, 2, 10) == SK_LDA_SAMPLER_ESCA && sk_lda_sampler_auto(NULL, 2, 10) == SK_LDA_SAMPLER_ESCA,
           "--sampler auto's rule");
  sk_lda_model_free(NULL);
  sk_lda_corpus_free(&c);
}

/* ---- smoke: the likelihood rises on a planted corpus --------------------------------------------- */

static void test_likelihood_rises(void) {
  sk_lda_corpus c = make_planted_corpus(500, 1000, 10, 100, 2024);
  sk_ex_error err;
  for (int sampler = SAMPLER_CGS; sampler <= SAMPLER_ESCA; ++sampler) {
    sk_lda_model m;
    sk_test_context("LL rises, %s", sampler == SAMPLER_CGS ? "CGS" : "ESCA");
    if (!SK_CHECK(sk_lda_model_init(&m, &c, 10, 0.5, 0.05, 3, &err) == 0, "init: %s", err.message)) continue;
    const double ll0 = sk_lda_joint_ll_per_token(&m);
    double ll10 = 0.0, ll = ll0;
    const double t0 = sk_ex_now();
    for (uint64_t it = 0; it < 20; ++it) {
      const int rc = sampler == SAMPLER_CGS ? sk_lda_cgs_sweep(&m, it, &err) : esca_sweep(&m, it, 0, &err);
      if (!SK_CHECK(rc == 0, "sweep: %s", err.message)) break;
      ll = sk_lda_joint_ll_per_token(&m);
      if (it == 9) ll10 = ll;
    }
    const double secs = sk_ex_now() - t0;
    printf("%s on %lld tokens, K = 10: joint LL/token %.4f -> %.4f (10) -> %.4f (20); %.0f tokens/s\n",
           sampler == SAMPLER_CGS ? "CGS " : "ESCA", (long long)c.num_tokens, ll0, ll10, ll,
           sk_lda_tokens_per_second(20 * c.num_tokens, secs));
    /* planted topics: a large, clear rise (0.5 nats/token is far below what 20 sweeps give) */
    SK_CHECK(ll > ll0 + 0.5 && ll >= ll10 - 0.01, "LL did not rise: %.4f -> %.4f -> %.4f", ll0, ll10, ll);
    check_invariants(&m, "after 20 sweeps");
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&c);
}

int main(int argc, char **argv) {
  /* Line-buffered even into a file: a GPU part cut off at a time limit still shows how far it got. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  const double t0 = sk_ex_now();
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    /* A part, so that ctest runs them side by side (each takes minutes: millions of tiny sweeps, each a
       few kernel launches): esca0 .. esca3 (one exact-chain case each), aga, or all (the default). */
    const char *part = argc > 2 ? argv[2] : "all";
    int only_case = -1, esca = 1, aga = 1;
    if (strcmp(part, "aga") == 0) {
      esca = 0;
    } else if (strncmp(part, "esca", 4) == 0 && part[4] >= '0' && part[4] < '0' + EXACT_CASES && part[5] == '\0') {
      only_case = part[4] - '0';
      aga = 0;
    } else if (strcmp(part, "all") != 0) {
      fprintf(stderr, "test_sampler: unknown --gpu part '%s' (esca0 .. esca%d, aga or all)\n", part, EXACT_CASES - 1);
      return 2;
    }
    if (argc > 3) {
      fprintf(stderr, "test_sampler: --gpu takes one part, and '%s' follows '%s'\n", argv[3], part);
      return 2;
    }
#ifdef SK_LDA_HAVE_GPU
    sk_ex_error why;
    if (sk_ex_gpu_probe(0, NULL, 0, &why) != 0) {
      printf("SKIP: %s; --gpu needs a GPU\n", why.message);
      return SK_TEST_SKIP_CODE;
    }
    exact_device.kind = SK_LDA_DEVICE_GPU;
    if (esca) test_exact_chains(1, only_case);
    if (aga) test_aga_exact_chains();
    printf("total %.1f s\n", sk_ex_now() - t0);
    return sk_test_finish();
#else
    printf("SKIP: this build has no GPU part; --gpu needs one\n");
    return SK_TEST_SKIP_CODE;
#endif
  }
  test_argument_checks();
  test_cgs_reproducible_and_extreme_k();
  test_esca_pair_order();
  test_esca_exact_draws();
  test_esca_thread_independence();
  test_likelihood_rises();
  test_exact_chains(0, -1);
  sk_lda_esca_tables_free(test_esca_tables());
  printf("total %.1f s\n", sk_ex_now() - t0);
  return sk_test_finish();
}
