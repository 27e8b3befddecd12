/* theta.npy: every input document's topic proportions in the input's order (theta_npy.h). */
#include "theta_npy.h"

#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "sk_ex_npy.h"

typedef struct {
  const sk_lda_model *m;
  const sk_lda_split *split;
  float *test_theta;   /* test documents x K: the held-out documents' rows */
  int64_t next_train;  /* the first training document not yet written */
  int64_t next_test;   /* the first test document not yet written */
  double alpha_sum;    /* sk_lda_model_alpha_sum() */
} theta_rows;

/* The fold-in's visit: the held-out document's row from its observed half's counts. */
static void keep_test_row(void *p, int32_t d, const sk_lda_detail_fold_tables *t,
                          const sk_lda_detail_fold_doc *doc, int64_t n_obs) {
  theta_rows *r = (theta_rows *)p;
  const int32_t K = r->m->num_topics;
  const double alpha = r->m->alpha, *alpha_k = r->m->alpha_k;
  const int32_t *ndk = doc->ndk;
  float *row = r->test_theta + (size_t)d * (size_t)K;
  (void)t;
  if (alpha_k == NULL) {
    const double norm = 1.0 / ((double)n_obs + (double)K * alpha);
    for (int32_t k = 0; k < K; ++k) row[k] = (float)(((double)ndk[k] + alpha) * norm);
  } else {
    const double norm = 1.0 / ((double)n_obs + r->alpha_sum);
    for (int32_t k = 0; k < K; ++k) row[k] = (float)(((double)ndk[k] + alpha_k[k]) * norm);
  }
}

void sk_lda_theta_row(int32_t num_topics, double alpha, const double *alpha_k, double alpha_sum, int64_t n,
                      int32_t nnz, const int32_t *topic, const int32_t *count, float *row) {
  const int32_t K = num_topics;
  if (n == 0) { /* no tokens: the prior's mean */
    for (int32_t k = 0; k < K; ++k) row[k] = alpha_k == NULL ? 1.0f / (float)K : (float)(alpha_k[k] / alpha_sum);
    return;
  }
  const double norm = 1.0 / ((double)n + alpha_sum);
  for (int32_t k = 0; k < K; ++k) row[k] = (float)((alpha_k != NULL ? alpha_k[k] : alpha) * norm);
  for (int32_t j = 0; j < nnz; ++j) {
    const int32_t k = topic[j];
    row[k] = (float)(((double)count[j] + (alpha_k != NULL ? alpha_k[k] : alpha)) * norm);
  }
}

/* Rows first .. first + count - 1 of the input: the training and the test documents are each in the
   input's order, so the rows merge the two lists as the file is written front to back. */
static int make_rows(const void *ctx, int64_t first, int64_t count, float *out) {
  theta_rows *r = (theta_rows *)(uintptr_t)ctx;
  const sk_lda_model *m = r->m;
  const sk_lda_corpus *train = &r->split->train, *test = &r->split->test_observed;
  const int32_t K = m->num_topics;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t doc = first + i;
    float *row = out + (size_t)i * (size_t)K;
    if (r->next_train < train->num_docs && sk_lda_corpus_input_doc(train, (int32_t)r->next_train) == doc) {
      const int32_t d = (int32_t)r->next_train++;
      sk_lda_theta_row(K, m->alpha, m->alpha_k, r->alpha_sum, train->doc_offsets[d + 1] - train->doc_offsets[d],
                       m->dk_nnz[d], m->dk_topic + m->dk_start[d], m->dk_count + m->dk_start[d], row);
    } else if (r->next_test < test->num_docs && sk_lda_corpus_input_doc(test, (int32_t)r->next_test) == doc) {
      memcpy(row, r->test_theta + (size_t)r->next_test * (size_t)K, (size_t)K * sizeof *row);
      ++r->next_test;
    } else { /* no tokens */
      sk_lda_theta_row(K, m->alpha, m->alpha_k, r->alpha_sum, 0, 0, NULL, NULL, row);
    }
  }
  return 0;
}

/* Starts r for the model: the held-out documents folded in, their rows kept. `what` names the output in
   messages. */
static int theta_rows_begin(theta_rows *r, const sk_lda_model *m, const sk_lda_split *split, int threads,
                            const char *what, sk_ex_error *err) {
  const int64_t K = m->num_topics;
  const int32_t num_test = split->test_observed.num_docs;
  memset(r, 0, sizeof *r);
  r->m = m;
  r->split = split;
  r->alpha_sum = sk_lda_model_alpha_sum(m);
  r->test_theta = (float *)malloc((size_t)(num_test > 0 ? num_test : 1) * (size_t)K * sizeof *r->test_theta);
  if (r->test_theta == NULL)
    return sk_ex_fail(err, "%s: out of memory for %d held-out documents' rows", what, (int)num_test);
  if (num_test > 0) {
    const sk_lda_counts_view view = {m->num_topics, m->num_words, m->alpha, m->beta, m->seed, m->n_vk, m->n_k};
    const sk_lda_corpus *obs = &split->test_observed;
    int64_t max_len = 0;
    for (int32_t d = 0; d < num_test; ++d)
      if (obs->doc_offsets[d + 1] - obs->doc_offsets[d] > max_len) max_len = obs->doc_offsets[d + 1] - obs->doc_offsets[d];
    const int iters = sk_lda_default_foldin_iters(m->num_topics);  /* the held-out score's */
    if (sk_lda_detail_fold_in_docs(&view, m->alpha_k, obs, max_len, iters, threads, keep_test_row, r) != 0) {
      free(r->test_theta);
      r->test_theta = NULL;
      return sk_ex_fail(err, "%s: out of memory for the held-out documents' fold-in", what);
    }
  }
  return 0;
}

int sk_lda_write_theta_npy(const char *path, const sk_lda_model *m, const sk_lda_split *split, int threads,
                           uint64_t max_bytes, sk_ex_error *err) {
  const int64_t D = sk_lda_corpus_input_docs(&split->train), K = m->num_topics;
  theta_rows r;
  if ((uint64_t)D * (uint64_t)K > max_bytes / 4u) return 2;
  if (theta_rows_begin(&r, m, split, threads, path, err) != 0) return 1;
  const int rc = sk_ex_write_npy_f32_rows(path, D, K, make_rows, &r, err);
  free(r.test_theta);
  return rc != 0 ? 1 : 0;
}

int sk_lda_theta_fill(const sk_lda_model *m, const sk_lda_split *split, int threads, float *out, sk_ex_error *err) {
  theta_rows r;
  if (theta_rows_begin(&r, m, split, threads, "theta", err) != 0) return 1;
  make_rows(&r, 0, sk_lda_corpus_input_docs(&split->train), out);
  free(r.test_theta);
  return 0;
}
