// sk-lda's GPU metrics (metrics_gpu.h): the context (metrics_gpu_internal.cuh) and its device buffers,
// the test halves' upload, and the public entry points other than the two metrics (metrics_gpu_joint.cu,
// metrics_gpu_heldout.cu).
#include <cuda_runtime.h>

#include <stdlib.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu.h"
#include "gpu/metrics_gpu_internal.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace sk_lda_gpu {

void metrics_buf_free(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b) {
  if (b->ptr != NULL) {
    (void)cudaFree(b->ptr);  // after a fault every free fails the same way: nothing to report
    g->bytes -= (int64_t)b->bytes;
  }
  b->ptr = NULL;
  b->bytes = 0;
}

// Makes b hold at least `bytes` (at least 1), reallocating when it is smaller; the old contents go.
int metrics_buf_reserve(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b, size_t bytes, const char *what, sk_ex_error *err) {
  if (bytes == 0) bytes = 1;
  if (b->ptr != NULL && b->bytes >= bytes) return 0;
  metrics_buf_free(g, b);
  SK_EX_CUDA_TRY(cudaMalloc(&b->ptr, bytes), what);
  b->bytes = bytes;
  g->bytes += (int64_t)bytes;
  if (g->bytes > g->peak) g->peak = g->bytes;
  return 0;
}

int metrics_buf_upload(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b, const void *h, size_t bytes, const char *what,
                       sk_ex_error *err) {
  if (metrics_buf_reserve(g, b, bytes, what, err) != 0) return 1;
  if (bytes > 0) SK_EX_CUDA_TRY(cudaMemcpy(b->ptr, h, bytes, cudaMemcpyHostToDevice), what);
  return 0;
}

void metrics_free_test(sk_lda_gpu_metrics *g) {
  sk_lda_gpu_buf *bufs[] = {&g->obs_tokens, &g->obs_offsets, &g->held_tokens, &g->held_offsets,
                            &g->order,      &g->z,           &g->doc_ll,      &g->next_doc};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) metrics_buf_free(g, bufs[i]);
  free(g->h_doc_ll);
  g->h_doc_ll = NULL;
  g->has_test = 0;
}

int metrics_check_counts(const sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, const char *what,
                         sk_ex_error *err) {
  if (c->b == NULL || c->n_k == NULL || c->doc_offsets == NULL || c->a_offsets == NULL || c->a_count == NULL)
    return sk_ex_fail(err, "GPU metrics: %s: a device pointer of the counts is NULL", what);
  if (c->gpu != g->gpu)
    return sk_ex_fail(err, "GPU metrics: %s: the counts are on GPU %d, the context on GPU %d", what, c->gpu, g->gpu);
  if (c->num_topics < 1 || c->num_words < 1 || c->num_docs < 0 || c->num_tokens < 0)
    return sk_ex_fail(err, "GPU metrics: %s: the counts' sizes are invalid (K %d, V %d, D %d, T %lld)", what,
                       (int)c->num_topics, (int)c->num_words, (int)c->num_docs, (long long)c->num_tokens);
  return 0;
}

}  // namespace sk_lda_gpu

namespace {

// The documents in the order the warps take them: longest first (observed and held-out tokens
// together), ties by index, so that the long ones do not start last.
struct doc_key {
  int64_t tokens;
  int32_t doc;
};

int by_length_desc(const void *a, const void *b) {
  const doc_key *x = (const doc_key *)a, *y = (const doc_key *)b;
  if (x->tokens != y->tokens) return x->tokens > y->tokens ? -1 : 1;
  return x->doc < y->doc ? -1 : (x->doc > y->doc ? 1 : 0);
}

}  // namespace

extern "C" int sk_lda_gpu_metrics_create(int gpu, sk_lda_gpu_metrics **out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "GPU metrics: out is NULL");
  *out = NULL;
  int sms = 0, optin = 0;
  cudaError_t e = cudaSetDevice(gpu);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // reported here: not again by the next launch check of whoever goes on
    return sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, "selecting the GPU", e);
  }
  sk_lda_gpu_metrics *g = (sk_lda_gpu_metrics *)calloc(1, sizeof *g);
  if (g == NULL) return sk_ex_fail(err, "GPU metrics: out of host memory");
  g->gpu = gpu;
  g->sm_count = sms > 0 ? sms : 1;
  g->shared_optin = (size_t)(optin > 0 ? optin : 0);
  *out = g;
  return 0;
}

extern "C" int sk_lda_gpu_metrics_set_test(sk_lda_gpu_metrics *g, const sk_lda_corpus *observed,
                                           const sk_lda_corpus *heldout, int32_t num_words, sk_ex_error *err) {
  if (g == NULL || observed == NULL || heldout == NULL)
    return sk_ex_fail(err, "GPU metrics: test halves: a pointer is NULL");
  SK_EX_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  sk_lda_gpu::metrics_free_test(g);
  if (observed->num_docs != heldout->num_docs)
    return sk_ex_fail(err, "GPU metrics: %d observed halves but %d held-out halves", (int)observed->num_docs,
                       (int)heldout->num_docs);
  const int32_t D = observed->num_docs;
  const sk_lda_corpus *halves[2] = {observed, heldout};
  for (int h = 0; h < 2; ++h) {
    const sk_lda_corpus *c = halves[h];
    const char *name = h == 0 ? "observed" : "held-out";
    if (D < 0 || c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL) || c->doc_offsets[0] != 0 ||
        c->doc_offsets[D] != c->num_tokens)
      return sk_ex_fail(err, "GPU metrics: the %s corpus is inconsistent", name);
    for (int32_t d = 0; d < D; ++d)
      if (c->doc_offsets[d + 1] < c->doc_offsets[d])
        return sk_ex_fail(err, "GPU metrics: %s offsets decrease at document %d", name, (int)d);
    for (int64_t t = 0; t < c->num_tokens; ++t)
      if (c->tokens[t] < 0 || c->tokens[t] >= num_words)
        return sk_ex_fail(err, "GPU metrics: %s token %lld has word id %d outside 0..%d", name, (long long)t,
                           (int)c->tokens[t], (int)num_words - 1);
  }
  doc_key *keys = (doc_key *)malloc((size_t)(D > 0 ? D : 1) * sizeof *keys);
  int32_t *order = (int32_t *)malloc((size_t)(D > 0 ? D : 1) * sizeof *order);
  g->h_doc_ll = (double *)malloc((size_t)(D > 0 ? D : 1) * sizeof *g->h_doc_ll);
  if (keys == NULL || order == NULL || g->h_doc_ll == NULL) {
    free(keys);
    free(order);
    sk_lda_gpu::metrics_free_test(g);
    return sk_ex_fail(err, "GPU metrics: out of host memory for %d test documents", (int)D);
  }
  g->max_obs_len = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n_obs = observed->doc_offsets[d + 1] - observed->doc_offsets[d];
    if (n_obs > g->max_obs_len) g->max_obs_len = n_obs;
    keys[d].tokens = observed->doc_offsets[d + 1] - observed->doc_offsets[d] + heldout->doc_offsets[d + 1] -
                     heldout->doc_offsets[d];
    keys[d].doc = d;
  }
  qsort(keys, (size_t)D, sizeof *keys, by_length_desc);
  for (int32_t d = 0; d < D; ++d) order[d] = keys[d].doc;
  free(keys);
  // The documents whose chains a block folds in (metrics_gpu_fold_windows.cuh): the leading run of
  // order with observed halves of at least a quarter of the longest (and kWindowMinTokens): the rest's
  // chains are shorter than what the longest one's takes with windows. Measured against wider rules
  // (H200, bench/RESULTS.md, "the held-out call taken apart"): windows for up to 7/8 of the resident
  // blocks, every document of 64 tokens or more, windows of 16, 8 or 4 warps) changed nips12's call by
  // 0.84x to 1.12x and made 20news's 1.4x to 2.7x slower (its 10 longest documents lost their clusters
  // of 4 blocks).
  const int64_t kWindowMinTokens = 64;  // at least two windows' warps (2 x 16: two windows hold no token twice)
  const int64_t window_min = g->max_obs_len / 4 > kWindowMinTokens ? g->max_obs_len / 4 : kWindowMinTokens;
  g->long_docs = 0;
  g->window_min_obs = 0;
  for (; g->long_docs < D; ++g->long_docs) {
    const int32_t d = order[g->long_docs];
    const int64_t n_obs = observed->doc_offsets[d + 1] - observed->doc_offsets[d];
    if (n_obs < window_min) break;
    g->window_min_obs = n_obs;
  }
  const size_t To = (size_t)observed->num_tokens, Th = (size_t)heldout->num_tokens, Dn = (size_t)D;
  const int failed =
      sk_lda_gpu::metrics_buf_upload(g, &g->obs_tokens, observed->tokens, To * sizeof(int32_t),
                                     "copying the observed halves", err) ||
      sk_lda_gpu::metrics_buf_upload(g, &g->obs_offsets, observed->doc_offsets, (Dn + 1) * sizeof(int64_t),
                                     "copying the observed halves", err) ||
      sk_lda_gpu::metrics_buf_upload(g, &g->held_tokens, heldout->tokens, Th * sizeof(int32_t),
                                     "copying the held-out halves", err) ||
      sk_lda_gpu::metrics_buf_upload(g, &g->held_offsets, heldout->doc_offsets, (Dn + 1) * sizeof(int64_t),
                                     "copying the held-out halves", err) ||
      sk_lda_gpu::metrics_buf_upload(g, &g->order, order, Dn * sizeof(int32_t), "copying the document order", err) ||
      sk_lda_gpu::metrics_buf_reserve(g, &g->z, To * sizeof(int32_t), "allocating the fold-in topics", err) ||
      sk_lda_gpu::metrics_buf_reserve(g, &g->doc_ll, Dn * sizeof(double), "allocating the document scores", err) ||
      sk_lda_gpu::metrics_buf_reserve(g, &g->next_doc, sizeof(unsigned), "allocating the document counter", err);
  free(order);
  if (failed) {
    sk_lda_gpu::metrics_free_test(g);
    return 1;
  }
  g->has_test = 1;
  g->test_words = num_words;
  g->test_docs = D;
  g->observed_tokens = observed->num_tokens;
  g->heldout_tokens = heldout->num_tokens;
  return 0;
}

extern "C" int64_t sk_lda_gpu_metrics_device_bytes(const sk_lda_gpu_metrics *g) { return g != NULL ? g->bytes : 0; }

extern "C" int64_t sk_lda_gpu_metrics_device_bytes_peak(const sk_lda_gpu_metrics *g) {
  return g != NULL ? g->peak : 0;
}

extern "C" void sk_lda_gpu_metrics_destroy(sk_lda_gpu_metrics *g) {
  if (g == NULL) return;
  (void)cudaSetDevice(g->gpu);  // the allocations belong to it; when this fails, so do the frees
  sk_lda_gpu::metrics_free_test(g);
  sk_lda_gpu::metrics_buf_free(g, &g->partials);
  sk_lda_gpu::metrics_buf_free(g, &g->inv);
  sk_lda_gpu::metrics_buf_free(g, &g->scratch);
  sk_lda_gpu::metrics_buf_free(g, &g->window_tokens);
  sk_lda_gpu_buf *tables[] = {&g->s_cum,    &g->word_start, &g->word_topic, &g->word_q_cum,
                              &g->u_token_doc, &g->u_doc_topic, &g->u_doc_x,  &g->u_doc_nnz,
                              &g->u_y,         &g->u_r,         &g->u_word_r, &g->u_scratch};
  for (size_t i = 0; i < sizeof tables / sizeof *tables; ++i) sk_lda_gpu::metrics_buf_free(g, tables[i]);
  if (g->fold_start != NULL) (void)cudaEventDestroy(g->fold_start);
  if (g->fold_done != NULL) (void)cudaEventDestroy(g->fold_done);
  if (g->side != NULL) (void)cudaStreamDestroy(g->side);
  free(g);
}
