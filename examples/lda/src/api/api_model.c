/* sk_lda.h: models (what they hold, phi, theta, top words, saved and loaded) and what is computed against
   one (inference, the held-out score, topic coherence). */
#include "api_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coherence.h"
#include "infer.h"
#include "metrics.h"
#include "output.h"
#include "phi.h"
#include "theta_npy.h"

int32_t sklda_model_num_topics(const sklda_model *m) { return m != NULL ? m->mf.num_topics : 0; }
int32_t sklda_model_num_words(const sklda_model *m) { return m != NULL ? m->mf.num_words : 0; }
uint64_t sklda_model_sweeps(const sklda_model *m) { return m != NULL ? m->mf.iterations : 0; }
uint64_t sklda_model_seed(const sklda_model *m) { return m != NULL ? m->mf.seed : 0; }
double sklda_model_beta(const sklda_model *m) { return m != NULL ? m->mf.beta : NAN; }
double sklda_model_joint_ll(const sklda_model *m) { return m != NULL ? m->joint_ll : NAN; }
double sklda_model_heldout_ll(const sklda_model *m) { return m != NULL ? m->heldout_ll : NAN; }

void sklda_model_alpha(const sklda_model *m, double *alpha) {
  if (m == NULL || alpha == NULL) return;
  for (int32_t k = 0; k < m->mf.num_topics; ++k) alpha[k] = m->mf.alpha_k != NULL ? m->mf.alpha_k[k] : m->mf.alpha;
}

const char *sklda_model_word(const sklda_model *m, int32_t v) {
  if (m == NULL || m->mf.vocab == NULL || v < 0 || v >= m->mf.num_words) return NULL;
  return m->mf.vocab[v];
}

int32_t sklda_model_num_docs(const sklda_model *m) {
  return m != NULL && m->trained ? sk_lda_corpus_input_docs(&m->split.train) : 0;
}

/* A NULL model or output array, named for the message. */
static int null_argument(sklda_error *err, const char *fn, const void *m, const void *array, const char *array_name) {
  if (m != NULL && array != NULL) return 0;
  return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "%s: %s is NULL", fn, m == NULL ? "the model" : array_name);
}

int sklda_model_phi(const sklda_model *m, float *phi, sklda_error *err) {
  if (null_argument(err, "sklda_model_phi", m, phi, "phi")) return SKLDA_ERROR_INPUT;
  sk_lda_phi_fill(m->mf.n_vk, m->mf.n_k, m->mf.num_words, m->mf.num_topics, m->mf.beta, phi); /* phi.npy's */
  return SKLDA_OK;
}

int sklda_model_topic_word_counts(const sklda_model *m, int32_t *counts, sklda_error *err) {
  if (null_argument(err, "sklda_model_topic_word_counts", m, counts, "counts")) return SKLDA_ERROR_INPUT;
  const int32_t K = m->mf.num_topics, V = m->mf.num_words;
  for (int32_t v = 0; v < V; ++v)
    for (int32_t k = 0; k < K; ++k)
      counts[(size_t)k * (size_t)V + (size_t)v] = m->mf.n_vk[(size_t)v * (size_t)K + (size_t)k];
  return SKLDA_OK;
}

int sklda_model_top_words(const sklda_model *m, int32_t top_n, int32_t *word_ids, sklda_error *err) {
  if (null_argument(err, "sklda_model_top_words", m, word_ids, "word_ids")) return SKLDA_ERROR_INPUT;
  if (top_n < 1 || top_n > m->mf.num_words)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "top_n = %d is out of range 1..%d (V)", (int)top_n,
                              (int)m->mf.num_words);
  sk_lda_top_words t;
  sk_ex_error e;
  if (sk_lda_top_words_find(&t, m->mf.n_vk, m->mf.num_words, m->mf.num_topics, top_n, &e) != 0)
    return sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  memcpy(word_ids, t.word, (size_t)m->mf.num_topics * (size_t)top_n * sizeof *word_ids);
  sk_lda_top_words_free(&t);
  return SKLDA_OK;
}

int sklda_model_theta(const sklda_model *m, float *theta, sklda_error *err) {
  if (null_argument(err, "sklda_model_theta", m, theta, "theta")) return SKLDA_ERROR_INPUT;
  if (!m->trained)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_model_theta: a loaded model has no documents (infer "
                                                      "theta of documents with sklda_infer)");
  sk_ex_error e;
  if (sk_lda_theta_fill(&m->model, &m->split, 0, theta, &e) != 0) return sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  return SKLDA_OK;
}

void sklda_infer_options_default(sklda_infer_options *io) {
  memset(io, 0, sizeof *io);
  io->iters = 0; /* sk_lda_default_foldin_iters() of the model's K */
  io->seed = -1;
}

/* A deep copy of `src` (its words too when with_words), so that the word matching of infer.h can change it. */
static int copy_corpus(const sk_lda_corpus *src, int with_words, sk_lda_corpus *c) {
  memset(c, 0, sizeof *c);
  c->num_docs = src->num_docs;
  c->num_words = src->num_words;
  c->num_tokens = src->num_tokens;
  c->num_input_docs = src->num_input_docs;
  c->doc_offsets = (int64_t *)malloc(((size_t)src->num_docs + 1) * sizeof *c->doc_offsets);
  c->tokens = (int32_t *)malloc((size_t)(src->num_tokens > 0 ? src->num_tokens : 1) * sizeof *c->tokens);
  int ok = c->doc_offsets != NULL && c->tokens != NULL;
  if (ok) {
    memcpy(c->doc_offsets, src->doc_offsets, ((size_t)src->num_docs + 1) * sizeof *c->doc_offsets);
    if (src->num_tokens > 0) memcpy(c->tokens, src->tokens, (size_t)src->num_tokens * sizeof *c->tokens);
  }
  if (ok && src->doc_ids != NULL) {
    c->doc_ids = (int32_t *)malloc((size_t)(src->num_docs > 0 ? src->num_docs : 1) * sizeof *c->doc_ids);
    ok = c->doc_ids != NULL;
    if (ok && src->num_docs > 0) memcpy(c->doc_ids, src->doc_ids, (size_t)src->num_docs * sizeof *c->doc_ids);
  }
  if (ok && with_words) ok = sklda_detail_copy_words((const char *const *)src->vocab, src->num_words, &c->vocab) == 0;
  if (!ok) sk_lda_corpus_free(c);
  return ok ? 0 : 1;
}

/* The documents in the model's word ids: matched by string when both have words, else checked as ids. */
static int model_docs(const sklda_model *m, const sklda_corpus *docs, int skip_unknown, sk_lda_corpus *out,
                      int64_t *dropped, sklda_error *err) {
  if (docs == NULL) return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "the documents are NULL");
  /* Without the model's words there is nothing to match by string: the documents' ids are the model's. */
  if (copy_corpus(&docs->c, m->mf.vocab != NULL, out) != 0)
    return sklda_detail_failf(err, SKLDA_ERROR_RUNTIME, "out of memory for a copy of %lld tokens",
                              (long long)docs->c.num_tokens);
  sk_ex_error e;
  int64_t n = 0;
  if (sk_lda_infer_map_words(&m->mf, out, "the documents", 0, skip_unknown, &n, &e) != 0) {
    sk_lda_corpus_free(out);
    return sklda_detail_fail(err, SKLDA_ERROR_INPUT, &e);
  }
  if (dropped != NULL) *dropped = n;
  return SKLDA_OK;
}

/* io's fold-in sweeps for m into *iters: io->iters, or with 0 the held-out score's default for m's K. */
static int infer_iters(const sklda_model *m, const sklda_infer_options *io, int *iters, sklda_error *err) {
  if (io->iters < 0)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "iters = %d must be at least 1 (or 0: the default)", io->iters);
  if (io->threads < 0 || io->threads > 4096) /* as sklda_train()'s */
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "threads = %d is out of range 0..4096", io->threads);
  *iters = io->iters > 0 ? io->iters : sk_lda_default_foldin_iters(m->mf.num_topics);
  return SKLDA_OK;
}

int sklda_infer(const sklda_model *m, const sklda_corpus *docs, const sklda_infer_options *io, float *theta,
                int64_t *dropped, sklda_error *err) {
  if (null_argument(err, "sklda_infer", m, theta, "theta")) return SKLDA_ERROR_INPUT;
  sklda_infer_options def;
  if (io == NULL) sklda_infer_options_default(&def), io = &def;
  int iters = 0;
  if (infer_iters(m, io, &iters, err) != SKLDA_OK) return SKLDA_ERROR_INPUT;
  sk_lda_corpus c;
  const int status = model_docs(m, docs, io->skip_unknown, &c, dropped, err);
  if (status != SKLDA_OK) return status;
  sk_lda_infer_result r;
  sk_ex_error e;
  const uint64_t seed = io->seed >= 0 ? (uint64_t)io->seed : m->mf.seed;
  if (sk_lda_infer(&m->mf, &c, iters, seed, io->threads, &r, &e) != 0) {
    sk_lda_corpus_free(&c);
    return sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  }
  /* theta.npy's rows (sk_lda_theta_row()): the input's documents that the corpus left out (no tokens) and
     those whose every token was dropped get the prior's mean. */
  const int32_t K = m->mf.num_topics, D = sk_lda_corpus_input_docs(&c);
  const double alpha_sum = sk_lda_prior_alpha_sum(r.alpha_k, r.alpha, K);
  for (int32_t i = 0, d = 0; i < D; ++i) { /* the stored documents' input numbers increase */
    float *row = theta + (size_t)i * (size_t)K;
    if (d < r.num_docs && sk_lda_corpus_input_doc(&c, d) == i) {
      const int64_t s0 = r.row_start[d];
      int64_t n = 0;
      for (int32_t j = 0; j < r.row_nnz[d]; ++j) n += r.row_count[s0 + j];
      sk_lda_theta_row(K, r.alpha, r.alpha_k, alpha_sum, n, r.row_nnz[d], r.row_topic + s0, r.row_count + s0, row);
      ++d;
    } else {
      sk_lda_theta_row(K, r.alpha, r.alpha_k, alpha_sum, 0, 0, NULL, NULL, row);
    }
  }
  sk_lda_infer_result_free(&r);
  sk_lda_corpus_free(&c);
  return SKLDA_OK;
}

int sklda_score(const sklda_model *m, const sklda_corpus *docs, const sklda_infer_options *io, double *ll_per_token,
                sklda_error *err) {
  if (null_argument(err, "sklda_score", m, ll_per_token, "ll_per_token")) return SKLDA_ERROR_INPUT;
  sklda_infer_options def;
  if (io == NULL) sklda_infer_options_default(&def), io = &def;
  int iters = 0;
  if (infer_iters(m, io, &iters, err) != SKLDA_OK) return SKLDA_ERROR_INPUT;
  sk_lda_corpus c;
  int status = model_docs(m, docs, io->skip_unknown, &c, NULL, err);
  if (status != SKLDA_OK) return status;
  const uint64_t seed = io->seed >= 0 ? (uint64_t)io->seed : m->mf.seed;
  sk_lda_split halves;
  sk_ex_error e;
  *ll_per_token = NAN;
  if (sk_lda_split_halves(&c, seed, &halves, &e) != 0) {
    status = sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  } else if (halves.test_heldout.num_tokens > 0) {
    const sk_lda_counts_view view = {m->mf.num_topics, m->mf.num_words, m->mf.alpha, m->mf.beta, seed,
                                     m->mf.n_vk,       m->mf.n_k};
    if (sk_lda_heldout_ll_priors(&view, m->mf.alpha_k, &halves.test_observed, &halves.test_heldout, iters,
                                 io->threads, ll_per_token, &e) != 0)
      status = sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  }
  sk_lda_split_free(&halves);
  sk_lda_corpus_free(&c);
  return status;
}

int sklda_coherence(const sklda_model *m, const sklda_corpus *docs, int32_t top_n, double *umass, double *npmi,
                    sklda_error *err) {
  if (null_argument(err, "sklda_coherence", m, docs, "docs")) return SKLDA_ERROR_INPUT;
  if (top_n < 2 || top_n > m->mf.num_words)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "top_n = %d is out of range 2..%d (V)", (int)top_n,
                              (int)m->mf.num_words);
  sk_lda_corpus c;
  int status = model_docs(m, docs, 1, &c, NULL, err);
  if (status != SKLDA_OK) return status;
  if (c.num_docs == 0) { /* the caller's documents: nothing to count co-occurrences in */
    sk_lda_corpus_free(&c);
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_coherence: the documents hold no token of the model's "
                                                      "words (no document to count the top words in)");
  }
  int32_t *top = (int32_t *)malloc((size_t)m->mf.num_topics * (size_t)top_n * sizeof *top);
  sk_ex_error e;
  if (top == NULL) {
    status = sklda_detail_failf(err, SKLDA_ERROR_RUNTIME, "out of memory for the top words");
  } else if ((status = sklda_model_top_words(m, top_n, top, err)) == SKLDA_OK &&
             sk_lda_coherence(&c, top, m->mf.num_topics, top_n, 0, umass, npmi, &e) != 0) {
    status = sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  }
  free(top);
  sk_lda_corpus_free(&c);
  return status;
}

int sklda_model_save(const sklda_model *m, const char *path, sklda_error *err) {
  if (null_argument(err, "sklda_model_save", m, path, "path")) return SKLDA_ERROR_INPUT;
  if (path[0] == '\0') return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_model_save: path is empty");
  sk_ex_error e;
  if (sk_lda_model_file_write(path, &m->mf, &e) != 0) return sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  return SKLDA_OK;
}

int sklda_model_load(const char *path, sklda_model **out, sklda_error *err) {
  if (out == NULL || path == NULL)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_model_load: %s is NULL", out == NULL ? "out" : "path");
  *out = NULL;
  sklda_model *h = (sklda_model *)calloc(1, sizeof *h);
  if (h == NULL) return sklda_detail_failf(err, SKLDA_ERROR_RUNTIME, "out of memory");
  sk_ex_error e;
  if (sk_lda_model_file_read(path, &h->mf, &e) != 0) {
    free(h);
    return sklda_detail_fail(err, SKLDA_ERROR_INPUT, &e);
  }
  h->joint_ll = NAN;
  h->heldout_ll = NAN;
  *out = h;
  return SKLDA_OK;
}

void sklda_model_free(sklda_model *m) {
  if (m == NULL) return;
  if (m->trained) { /* the counts are the model's */
    m->mf.n_vk = NULL;
    m->mf.n_k = NULL;
    m->mf.alpha_k = NULL;
    sk_lda_model_free(&m->model);
    sk_lda_split_free(&m->split);
  }
  sk_lda_model_file_free(&m->mf);
  free(m);
}
