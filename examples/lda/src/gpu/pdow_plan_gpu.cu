// The PDOW plan built on the GPU with samplekit's chunk order and groups, chunk by chunk (pdow_plan_gpu.h).
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "gpu/pdow_plan_gpu.h"
#include "samplekit/csr_chunker.h"

#define SK_EX_CUDA_SCOPE "PDOW plan (GPU)"
#include "sk_ex_cuda_check.cuh"

namespace {

constexpr size_t kAlign = 256;

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// The regions of the block, in bytes from its (aligned) start.
struct layout {
  size_t token, group_start, group_doc, item_word, item_group, item_end;  // the plan (item_end: first the
                                                                          // order's inverse)
  size_t tokens, row_offsets, word_offsets, counts, workspace;            // the build's scratch
  size_t workspace_bytes, total;
};

int samplekit_fail(sk_ex_error *err, const char *what, sk_status s) {
  return sk_ex_fail(err, "PDOW plan (GPU): %s: %s", what, sk_status_string(s));
}

int plan_layout(const sk_lda_corpus *c, layout *l, sk_ex_error *err) {
  if (c == NULL || c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL))
    return sk_ex_fail(err, "PDOW plan (GPU): the corpus is NULL or has no arrays");
  if (c->num_tokens < 1 || c->num_tokens > INT32_MAX || c->num_words < 1)
    return sk_ex_fail(err, "PDOW plan (GPU): %lld tokens, V = %d: the device plan takes 1 to 2^31 - 1 tokens",
                      (long long)c->num_tokens, (int)c->num_words);
  const size_t T = (size_t)c->num_tokens, D = (size_t)c->num_docs, V = (size_t)c->num_words;
  size_t order_ws = 0, groups_ws = 0;
  sk_status s = sk_csr_chunk_order_device_workspace_size(c->num_tokens, c->num_words, &order_ws);
  if (s == SK_SUCCESS) s = sk_csr_chunk_groups_device_workspace_size(c->num_tokens, &groups_ws);
  if (s != SK_SUCCESS) return samplekit_fail(err, "sizing the workspace", s);
  l->workspace_bytes = order_ws > groups_ws ? order_ws : groups_ws;  // the two calls share it, one after the other
  const size_t sizes[11] = {4 * T, 4 * (T + 1), 4 * T, 4 * T, 4 * T, 4 * T,
                            4 * T, 8 * (D + 1), 8 * (V + 1), 16, l->workspace_bytes};
  size_t *const at[11] = {&l->token, &l->group_start, &l->group_doc, &l->item_word, &l->item_group, &l->item_end,
                          &l->tokens, &l->row_offsets, &l->word_offsets, &l->counts, &l->workspace};
  size_t off = 0;
  for (int i = 0; i < 11; ++i) {
    *at[i] = off;
    off += align_up(sizes[i]);
  }
  l->total = off;
  return 0;
}

// a[0, n) += add: one chunk's local numbers made global.
__global__ void add_kernel(int32_t *a, int64_t n, int32_t add) {
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x)
    a[k] += add;
}

cudaError_t add_to(int32_t *a, int64_t n, int64_t add) {
  if (n == 0 || add == 0) return cudaSuccess;
  const int64_t blocks = (n + 255) / 256;
  add_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256>>>(a, n, (int32_t)add);
  return cudaGetLastError();
}

// The chunk of n tokens from t0 and documents from d0, whose g groups and i items were written from G
// and I in the chunk's numbers: its positions (token, group_start) move by t0, its documents by d0, its
// groups (item_group, item_end) by G, as the host build does (pdow_plan.c).
cudaError_t shift_chunk(const sk_lda_pdow_plan &pl, int64_t t0, int64_t n, int32_t d0, int64_t G, int64_t g,
                        int64_t I, int64_t i) {
  cudaError_t e = add_to(pl.token + t0, n, t0);
  if (e == cudaSuccess) e = add_to(pl.group_start + G, g + 1, t0);
  if (e == cudaSuccess) e = add_to(pl.group_doc + G, g, d0);
  if (e == cudaSuccess) e = add_to(pl.item_group + I, i, G);
  if (e == cudaSuccess) e = add_to(pl.item_end + I, i, G);
  return e;
}

}  // namespace

extern "C" int sk_lda_pdow_plan_gpu_bytes(const sk_lda_corpus *c, int gpu, size_t *bytes, sk_ex_error *err) {
  if (bytes == NULL) return sk_ex_fail(err, "PDOW plan (GPU): bytes is NULL");
  SK_EX_CUDA_TRY(cudaSetDevice(gpu), "selecting the GPU");
  layout l;
  if (plan_layout(c, &l, err) != 0) return 1;
  *bytes = l.total;
  return 0;
}

extern "C" int sk_lda_pdow_plan_gpu_build(const sk_lda_corpus *c, int gpu, int64_t chunk_tokens, int32_t item_tokens,
                                          sk_lda_pdow_plan_gpu *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "PDOW plan (GPU): out is NULL");
  memset(out, 0, sizeof *out);
  if (item_tokens < 1) return sk_ex_fail(err, "PDOW plan (GPU): item_tokens %d is below 1", (int)item_tokens);
  SK_EX_CUDA_TRY(cudaSetDevice(gpu), "selecting the GPU");
  layout l;
  if (plan_layout(c, &l, err) != 0) return 1;
  unsigned char *base = NULL;
  SK_EX_CUDA_TRY(cudaMalloc((void **)&base, l.total), "allocating the plan's memory");
  sk_lda_pdow_plan_gpu g;
  memset(&g, 0, sizeof g);
  g.gpu = gpu;
  g.num_docs = c->num_docs;
  sk_lda_pdow_plan &pl = g.plan;
  pl.num_tokens = c->num_tokens;
  g.block = base;
  g.block_bytes = l.total;
  pl.token = (int32_t *)(base + l.token);
  pl.group_start = (int32_t *)(base + l.group_start);
  pl.group_doc = (int32_t *)(base + l.group_doc);
  pl.item_word = (int32_t *)(base + l.item_word);
  pl.item_group = (int32_t *)(base + l.item_group);
  pl.item_end = (int32_t *)(base + l.item_end);
  int32_t *tokens = (int32_t *)(base + l.tokens);
  int64_t *row_offsets = (int64_t *)(base + l.row_offsets), *word_offsets = (int64_t *)(base + l.word_offsets);
  int64_t *counts = (int64_t *)(base + l.counts);
  void *workspace = base + l.workspace;
  const int64_t T = c->num_tokens;
  const int32_t D = c->num_docs;
  int rc = 0;
  // The chunks by pdow_plan.h's cut rule (on the host, O(D)); with T >= 1 every chunk has a token (a chunk
  // is cut only before a non-empty document, and empty documents join the chunk before them).
  if (sk_lda_pdow_plan_chunks(c, chunk_tokens, &g.chunk_docs, &pl.num_chunks) != 0)
    rc = sk_ex_fail(err, "PDOW plan (GPU): out of host memory");
  cudaError_t e = cudaSuccess;
  if (rc == 0) e = cudaMemcpy(tokens, c->tokens, (size_t)T * sizeof *tokens, cudaMemcpyHostToDevice);
  if (rc == 0 && e == cudaSuccess)
    e = cudaMemcpy(row_offsets, c->doc_offsets, ((size_t)D + 1) * sizeof *row_offsets, cudaMemcpyHostToDevice);
  if (rc == 0 && e != cudaSuccess)
    rc = sk_ex_fail(err, "PDOW plan (GPU): copying the corpus: %s", cudaGetErrorString(e));
  int64_t G = 0, I = 0;
  for (int32_t ch = 0; ch < pl.num_chunks && rc == 0; ++ch) {
    const int32_t d0 = g.chunk_docs[ch], d1 = g.chunk_docs[ch + 1];
    const int64_t t0 = c->doc_offsets[d0], n = c->doc_offsets[d1] - t0;
    if (n == 0) continue;
    // The chunk's order: pl.token + t0 its permutation (positions in the chunk), pl.item_end + I its
    // inverse, unused, which the groups' call then overwrites with the items' ends. Every array written
    // from G or I has room for the chunk's n (+ 1) entries: I <= G <= t0, and each has room for T (+ 1).
    sk_status s = sk_csr_chunk_order_device(tokens + t0, n, c->num_words, pl.token + t0, pl.item_end + I,
                                            word_offsets, workspace, l.workspace_bytes, 0);
    if (s != SK_SUCCESS) {
      rc = samplekit_fail(err, "ordering the tokens by word", s);
      break;
    }
    s = sk_csr_chunk_groups_device(row_offsets + d0, d1 - d0, tokens + t0, n, c->num_words, pl.token + t0,
                                   word_offsets, item_tokens, pl.group_start + G, pl.group_doc + G,
                                   pl.item_word + I, pl.item_group + I, pl.item_end + I, counts, workspace,
                                   l.workspace_bytes, 0);
    if (s != SK_SUCCESS) {
      rc = samplekit_fail(err, "finding the groups and items", s);
      break;
    }
    int64_t h_counts[2] = {0, 0};
    e = cudaMemcpy(h_counts, counts, sizeof h_counts, cudaMemcpyDeviceToHost);  // waits for the work
    if (e != cudaSuccess) {
      rc = sk_ex_fail(err, "PDOW plan (GPU): building the plan: %s", cudaGetErrorString(e));
      break;
    }
    if (h_counts[0] < 1 || h_counts[0] > n || h_counts[1] < 1 || h_counts[1] > h_counts[0]) {
      rc = sk_ex_fail(err, "PDOW plan (GPU): %lld groups and %lld items for %lld tokens in chunk %d",
                      (long long)h_counts[0], (long long)h_counts[1], (long long)n, (int)ch);
      break;
    }
    // The chunk's positions, documents and groups made global, as the host build does.
    e = shift_chunk(pl, t0, n, d0, G, h_counts[0], I, h_counts[1]);
    if (e != cudaSuccess) {
      rc = sk_ex_fail(err, "PDOW plan (GPU): making chunk %d global: %s", (int)ch, cudaGetErrorString(e));
      break;
    }
    G += h_counts[0];
    I += h_counts[1];
  }
  if (rc == 0) {
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) rc = sk_ex_fail(err, "PDOW plan (GPU): building the plan: %s", cudaGetErrorString(e));
  }
  if (rc != 0) {
    (void)cudaFree(base);
    free(g.chunk_docs);
    return rc;
  }
  pl.num_groups = (int32_t)G;
  pl.num_items = (int32_t)I;
  *out = g;
  return 0;
}

extern "C" int sk_lda_pdow_plan_gpu_download(const sk_lda_pdow_plan_gpu *g, sk_lda_pdow_plan *host,
                                             sk_ex_error *err) {
  if (g == NULL || host == NULL || g->block == NULL) return sk_ex_fail(err, "PDOW plan (GPU): nothing to download");
  memset(host, 0, sizeof *host);
  SK_EX_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  const sk_lda_pdow_plan &d = g->plan;
  const size_t T = (size_t)d.num_tokens, G = (size_t)d.num_groups, I = (size_t)d.num_items;
  sk_lda_pdow_plan p;
  memset(&p, 0, sizeof p);
  p.num_tokens = d.num_tokens;
  p.num_chunks = d.num_chunks;
  p.num_groups = d.num_groups;
  p.num_items = d.num_items;
  p.chunk_docs = (int32_t *)malloc(((size_t)d.num_chunks + 1) * sizeof *p.chunk_docs);
  p.token = (int32_t *)malloc(T * sizeof *p.token);
  p.group_start = (int32_t *)malloc((G + 1) * sizeof *p.group_start);
  p.group_doc = (int32_t *)malloc((G + 1) * sizeof *p.group_doc);
  p.item_word = (int32_t *)malloc((I + 1) * sizeof *p.item_word);
  p.item_group = (int32_t *)malloc((I + 1) * sizeof *p.item_group);
  p.item_end = (int32_t *)malloc((I + 1) * sizeof *p.item_end);
  if (p.chunk_docs == NULL || p.token == NULL || p.group_start == NULL || p.group_doc == NULL ||
      p.item_word == NULL || p.item_group == NULL || p.item_end == NULL) {
    sk_lda_pdow_plan_free(&p);
    return sk_ex_fail(err, "PDOW plan (GPU): out of host memory");
  }
  struct copy {
    void *dst;
    const void *src;
    size_t n;
  } const copies[6] = {{p.token, d.token, T},           {p.group_start, d.group_start, G + 1},
                       {p.group_doc, d.group_doc, G},   {p.item_word, d.item_word, I},
                       {p.item_group, d.item_group, I}, {p.item_end, d.item_end, I}};
  for (int i = 0; i < 6; ++i) {
    const cudaError_t e = cudaMemcpy(copies[i].dst, copies[i].src, copies[i].n * sizeof(int32_t),
                                     cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      sk_lda_pdow_plan_free(&p);
      return sk_ex_fail(err, "PDOW plan (GPU): copying the plan back: %s", cudaGetErrorString(e));
    }
  }
  memcpy(p.chunk_docs, g->chunk_docs, ((size_t)d.num_chunks + 1) * sizeof *p.chunk_docs);
  for (size_t k = 0; k < G; ++k) {
    const int32_t n = p.group_start[k + 1] - p.group_start[k];
    if (n > p.max_group_tokens) p.max_group_tokens = n;
  }
  *host = p;
  return 0;
}

extern "C" void sk_lda_pdow_plan_gpu_free(sk_lda_pdow_plan_gpu *g) {
  if (g == NULL) return;
  if (g->block != NULL) {
    (void)cudaSetDevice(g->gpu);
    (void)cudaFree(g->block);
  }
  free(g->chunk_docs);
  memset(g, 0, sizeof *g);
}
