/* sk_csr_pipeline_*: streams the chunks of a chunk plan through W workers (CUDA streams), or keeps a
 * one-chunk corpus resident. Plain C calling the CUDA runtime; no kernels of its own (the device order
 * is sk_csr_chunk_order_device()'s). This file sizes, checks, makes and releases a pipeline; its copies
 * and runs are csr_pipeline_run.c, their shared state csr_pipeline_internal.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "samplekit/csr_pipeline.h"
#include "sk_detail_cuda.h"
#include "csr_pipeline_internal.h"

/* What sk_csr_pipeline_chunk_costs() reserves for the device order's workspace. */
#define SK_DETAIL_PIPE_ORDER_WORKSPACE_PER_TOKEN 10
#define SK_DETAIL_PIPE_ORDER_WORKSPACE_FIXED ((size_t)1 << 20)

/* Staging bytes of one chunk: the larger of its pageable inputs and its pageable outputs (the two
 * phases of a chunk share the buffer: the copies out follow the copies in on the stream). */
static size_t sk_detail_chunk_staging(const sk_csr_pipeline *p, int64_t c, int *overflow) {
  const sk_csr_chunk_info *ci = &p->chunks[c];
  size_t in = 0, out = 0;
  int a;
  if (p->with_tokens && !p->tokens_direct)
    (void)sk_detail_region(&in, sk_detail_mul(4, (uint64_t)ci->num_tokens, overflow), overflow);
  for (a = 0; a < p->num_arrays; ++a) {
    const sk_csr_pipeline_array *arr = &p->arrays[a];
    int64_t first, count;
    size_t bytes;
    if (p->array_direct[a]) continue;
    sk_detail_slice(arr, c, ci, &first, &count);
    bytes = sk_detail_mul(arr->element_bytes, (uint64_t)count, overflow);
    if (sk_detail_has_in(arr)) (void)sk_detail_region(&in, bytes, overflow);
    if (sk_detail_has_out(arr)) (void)sk_detail_region(&out, bytes, overflow);
  }
  return in > out ? in : out;
}

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none). */
static int sk_detail_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return 0;
  return x < y + b_bytes && y < x + a_bytes;
}

static int sk_detail_valid_array_enums(const sk_csr_pipeline_array *a) {
  const int e = (int)a->extent, d = (int)a->direction;
  return a->element_bytes != 0 &&
         (e == SK_CSR_PIPELINE_PER_TOKEN || e == SK_CSR_PIPELINE_PER_ROW || e == SK_CSR_PIPELINE_PER_CHUNK) &&
         (d == SK_CSR_PIPELINE_IN || d == SK_CSR_PIPELINE_OUT || d == SK_CSR_PIPELINE_IN_OUT);
}

static int sk_detail_valid_order(sk_csr_pipeline_order order) {
  const int o = (int)order;
  return o == SK_CSR_PIPELINE_ORDER_NONE || o == SK_CSR_PIPELINE_ORDER_AUTO || o == SK_CSR_PIPELINE_ORDER_HOST ||
         o == SK_CSR_PIPELINE_ORDER_DEVICE;
}

sk_status sk_csr_pipeline_chunk_costs(const sk_csr_pipeline_array *arrays, int num_arrays, int32_t num_cols,
                                      sk_csr_pipeline_order order, size_t scratch_bytes, size_t *bytes_per_token,
                                      size_t *bytes_per_row, size_t *fixed_bytes_per_chunk) {
  size_t per_token = 4, per_row = 4, fixed = 4, regions;
  int overflow = 0, a, with_order;
  if (bytes_per_token == NULL || bytes_per_row == NULL || fixed_bytes_per_chunk == NULL) return SK_ERROR_NULL_POINTER;
  if (arrays == NULL && num_arrays > 0) return SK_ERROR_NULL_POINTER;
  if (num_arrays < 0 || num_arrays > SK_CSR_PIPELINE_MAX_ARRAYS || num_cols < 0 || !sk_detail_valid_order(order))
    return SK_ERROR_INVALID_VALUE;
  for (a = 0; a < num_arrays; ++a)
    if (!sk_detail_valid_array_enums(&arrays[a])) return SK_ERROR_INVALID_VALUE;
  with_order = order != SK_CSR_PIPELINE_ORDER_NONE;
  /* A per-chunk array's slices are the caller's to bound: only its region's alignment (in `regions`). */
  for (a = 0; a < num_arrays; ++a) {
    if (arrays[a].extent == SK_CSR_PIPELINE_PER_TOKEN)
      per_token = sk_detail_add(per_token, arrays[a].element_bytes, &overflow);
    else if (arrays[a].extent == SK_CSR_PIPELINE_PER_ROW)
      per_row = sk_detail_add(per_row, arrays[a].element_bytes, &overflow);
  }
  regions = 4 + (size_t)num_arrays + (with_order ? 3 : 0);
  if (with_order) {
    per_token = sk_detail_add(per_token, 8, &overflow);
    fixed = sk_detail_add(fixed, sk_detail_mul(8, (uint64_t)num_cols + 1, &overflow), &overflow);
  }
  if (order == SK_CSR_PIPELINE_ORDER_DEVICE || order == SK_CSR_PIPELINE_ORDER_AUTO) {
    /* The device order's workspace (it shares the scratch region, so this bounds it from above):
     * about 8 bytes per token of sort buffers plus CUB's radix sort storage, under 1 byte per token
     * (its look-back tiles) and a fixed part. */
    per_token = sk_detail_add(per_token, SK_DETAIL_PIPE_ORDER_WORKSPACE_PER_TOKEN, &overflow);
    fixed = sk_detail_add(fixed, SK_DETAIL_PIPE_ORDER_WORKSPACE_FIXED, &overflow);
  }
  fixed = sk_detail_add(fixed, scratch_bytes, &overflow);
  fixed = sk_detail_add(fixed, (SK_DETAIL_PIPE_ALIGN - 1) * regions, &overflow);
  if (overflow) return SK_ERROR_INVALID_VALUE;
  *bytes_per_token = per_token;
  *bytes_per_row = per_row;
  *fixed_bytes_per_chunk = fixed;
  return SK_SUCCESS;
}

/* Whether CUDA can copy [ptr, ptr + bytes) asynchronously: pinned, registered, managed or device memory. */
static sk_status sk_detail_is_direct(const void *ptr, size_t bytes, int *direct) {
  struct cudaPointerAttributes attr;
  cudaError_t err;
  *direct = 0;
  if (bytes == 0) return SK_SUCCESS;
  err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) return sk_status_from_cuda_error((int)err);
  if (attr.type == cudaMemoryTypeUnregistered) return SK_SUCCESS;
  err = cudaPointerGetAttributes(&attr, (const unsigned char *)ptr + (bytes - 1));
  if (err != cudaSuccess) return sk_status_from_cuda_error((int)err);
  *direct = attr.type != cudaMemoryTypeUnregistered;
  return SK_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Making and releasing. */

static void sk_detail_free(sk_csr_pipeline *p) {
  int w, a, failed = 0;
  for (w = 0; w < SK_CSR_PIPELINE_MAX_WORKERS; ++w) {
    sk_detail_worker *wk = &p->workers[w];
    if (wk->stream != NULL && cudaStreamSynchronize(wk->stream) != cudaSuccess) failed = 1;
    if (wk->done != NULL && cudaEventDestroy(wk->done) != cudaSuccess) failed = 1;
    if (wk->stream != NULL && cudaStreamDestroy(wk->stream) != cudaSuccess) failed = 1;
    if (wk->d_base != NULL && cudaFree(wk->d_base) != cudaSuccess) failed = 1;
    if (wk->h_staging != NULL && cudaFreeHost(wk->h_staging) != cudaSuccess) failed = 1;
  }
  if (p->h_cache != NULL && cudaFreeHost(p->h_cache) != cudaSuccess) failed = 1;
  /* Our own failures must not be reported as pending to the caller's next launch (sticky ones stay). */
  if (failed) (void)cudaGetLastError();
  for (a = 0; a < SK_CSR_PIPELINE_MAX_ARRAYS; ++a) free(p->chunk_offsets[a]);
  free(p->chunks);
  free(p);
}

void sk_csr_pipeline_destroy(sk_csr_pipeline *pipeline) {
  const int uses_cuda = pipeline != NULL && (pipeline->num_workers > 0 || pipeline->h_cache != NULL);
  int device, previous = 0, switched = 0;
  if (pipeline == NULL) return;
  device = pipeline->device;
  if (uses_cuda && cudaGetDevice(&previous) == cudaSuccess && previous != device)
    switched = cudaSetDevice(device) == cudaSuccess;
  sk_detail_free(pipeline);
  if (switched) (void)cudaSetDevice(previous);
}

/* Frees a pipeline that create could not finish, leaving no non-sticky CUDA error pending. */
static sk_status sk_detail_create_failed(sk_csr_pipeline *p, sk_status st) {
  (void)cudaGetLastError();
  sk_detail_free(p);
  return st;
}

sk_status sk_csr_pipeline_create(const sk_csr_chunk_plan *plan, const int64_t *h_row_offsets, const int32_t *h_tokens,
                                 int32_t num_cols, const sk_csr_pipeline_array *arrays, int num_arrays,
                                 int num_workers, sk_csr_pipeline_order order, size_t scratch_bytes,
                                 size_t device_budget_bytes, sk_csr_pipeline **pipeline) {
  int64_t num_chunks = 0, num_rows = 0, total = 0, c, r, t;
  int a, b, overflow = 0, with_order, with_tokens, resident, workers, w, device = 0;
  sk_csr_pipeline_order resolved;
  size_t work_bytes, device_bytes = 0, cache_bytes = 0, array_bytes[SK_CSR_PIPELINE_MAX_ARRAYS];
  size_t offsets_bytes, tokens_bytes;
  sk_csr_chunk_info last;
  sk_csr_pipeline *p;
  sk_status st;

  /* ---- The arguments, before CUDA. ---- */
  if (pipeline == NULL) return SK_ERROR_NULL_POINTER;
  *pipeline = NULL;
  if (plan == NULL || h_row_offsets == NULL) return SK_ERROR_NULL_POINTER;
  if (num_cols < 0 || num_workers < 1 || num_workers > SK_CSR_PIPELINE_MAX_WORKERS || num_arrays < 0 ||
      num_arrays > SK_CSR_PIPELINE_MAX_ARRAYS || !sk_detail_valid_order(order))
    return SK_ERROR_INVALID_VALUE;
  if (arrays == NULL && num_arrays > 0) return SK_ERROR_NULL_POINTER;
  for (a = 0; a < num_arrays; ++a)
    if (!sk_detail_valid_array_enums(&arrays[a])) return SK_ERROR_INVALID_VALUE;

  /* The plan must be a plan of these offsets: its chunks tile rows [0, num_rows) at their offsets. */
  st = sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  if (st != SK_SUCCESS) return st;
  if (num_chunks > 0) {
    st = sk_csr_chunk_plan_chunk(plan, num_chunks - 1, &last);
    if (st != SK_SUCCESS) return st;
    num_rows = last.first_row + last.num_rows;
  }
  if (h_row_offsets[0] != 0) return SK_ERROR_INVALID_VALUE;
  for (r = 0; r < num_rows; ++r)
    if (h_row_offsets[r + 1] < h_row_offsets[r]) return SK_ERROR_INVALID_VALUE;
  total = h_row_offsets[num_rows];
  {
    int64_t next_row = 0;
    for (c = 0; c < num_chunks; ++c) {
      sk_csr_chunk_info ci;
      st = sk_csr_chunk_plan_chunk(plan, c, &ci);
      if (st != SK_SUCCESS) return st;
      if (ci.first_row != next_row || ci.num_rows < 1 || ci.first_token != h_row_offsets[ci.first_row] ||
          ci.num_tokens != h_row_offsets[ci.first_row + ci.num_rows] - ci.first_token ||
          ci.num_tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS)
        return SK_ERROR_INVALID_VALUE;
      next_row = ci.first_row + ci.num_rows;
    }
  }

  with_order = order != SK_CSR_PIPELINE_ORDER_NONE;
  /* Without an order nothing of ours reads the tokens, so NULL ones are simply not carried. */
  with_tokens = with_order || h_tokens != NULL;
  if (h_tokens == NULL && total > 0 && with_order) return SK_ERROR_NULL_POINTER;
  for (a = 0; a < num_arrays; ++a) {
    int64_t count;
    int o = 0;
    if (arrays[a].extent == SK_CSR_PIPELINE_PER_TOKEN) {
      count = total;
    } else if (arrays[a].extent == SK_CSR_PIPELINE_PER_ROW) {
      count = num_rows;
    } else {
      const int64_t *co = arrays[a].chunk_offsets;
      if (co == NULL) return SK_ERROR_NULL_POINTER;
      if (co[0] < 0) return SK_ERROR_INVALID_VALUE;
      for (c = 0; c < num_chunks; ++c)
        if (co[c + 1] < co[c]) return SK_ERROR_INVALID_VALUE;
      count = co[num_chunks];
    }
    array_bytes[a] = sk_detail_mul(arrays[a].element_bytes, (uint64_t)count, &o);
    if (o) return SK_ERROR_INVALID_VALUE;
    if (arrays[a].h_data == NULL && array_bytes[a] > 0) return SK_ERROR_NULL_POINTER;
  }
  offsets_bytes = sk_detail_mul(8, (uint64_t)num_rows + 1, &overflow);
  tokens_bytes = with_tokens ? sk_detail_mul(4, (uint64_t)total, &overflow) : 0;
  if (overflow) return SK_ERROR_INVALID_VALUE;
  for (a = 0; a < num_arrays; ++a) {
    if (!sk_detail_has_out(&arrays[a])) continue;
    if (sk_detail_overlap(arrays[a].h_data, array_bytes[a], h_tokens, tokens_bytes) ||
        sk_detail_overlap(arrays[a].h_data, array_bytes[a], h_row_offsets, offsets_bytes))
      return SK_ERROR_INVALID_VALUE;
    for (b = 0; b < num_arrays; ++b)
      if (b != a && sk_detail_overlap(arrays[a].h_data, array_bytes[a], arrays[b].h_data, array_bytes[b]))
        return SK_ERROR_INVALID_VALUE;
  }

  if (with_order)
    for (t = 0; t < total; ++t)
      if (h_tokens[t] < 0 || h_tokens[t] >= num_cols) return SK_ERROR_INVALID_VALUE;

  resident = num_chunks == 1;
  resolved = order;
  /* AUTO is the device order in both modes: bench_csr_chunk_order measured it ~100x faster to build
   * than the host order and, in streaming mode, faster to rebuild per chunk (7.2 ms per 1e8 tokens on
   * an H200) than to copy a cached order in (14.4 ms), with no PCIe traffic. */
  if (order == SK_CSR_PIPELINE_ORDER_AUTO) resolved = SK_CSR_PIPELINE_ORDER_DEVICE;
  workers = num_chunks < num_workers ? (int)num_chunks : num_workers;

  /* The worker's buffer holds the largest chunk's regions; the device order's workspace shares the
   * scratch region (it is used before the function, in stream order). */
  work_bytes = scratch_bytes;
  if (resolved == SK_CSR_PIPELINE_ORDER_DEVICE) {
    /* Per chunk: nothing promises that the workspace grows with the tokens. */
    for (c = 0; c < num_chunks; ++c) {
      sk_csr_chunk_info ci;
      size_t ws = 0;
      (void)sk_csr_chunk_plan_chunk(plan, c, &ci);
      st = sk_csr_chunk_order_device_workspace_size(ci.num_tokens, num_cols, &ws);
      if (st != SK_SUCCESS) return st;
      if (ws > work_bytes) work_bytes = ws;
    }
  }
  for (c = 0; c < num_chunks; ++c) {
    sk_csr_chunk_info ci;
    sk_detail_chunk_layout l;
    (void)sk_csr_chunk_plan_chunk(plan, c, &ci);
    sk_detail_chunk_layout_of(arrays, num_arrays, with_tokens, with_order, num_cols, work_bytes, c, &ci, &l,
                              &overflow);
    if (l.end > device_bytes) device_bytes = l.end;
  }
  if (overflow || device_bytes > device_budget_bytes) return SK_ERROR_INVALID_VALUE;
  /* The pinned cache: rebased offsets (num_rows + C int32), then the host order. */
  cache_bytes = sk_detail_align(sk_detail_mul(4, (uint64_t)num_rows + (uint64_t)num_chunks, &overflow), &overflow);
  if (resolved == SK_CSR_PIPELINE_ORDER_HOST) {
    cache_bytes = sk_detail_add(cache_bytes, sk_detail_align(sk_detail_mul(8, (uint64_t)total, &overflow), &overflow),
                                &overflow);
    const size_t per_chunk = sk_detail_mul(8, (uint64_t)num_cols + 1, &overflow);
    cache_bytes = sk_detail_add(cache_bytes, sk_detail_mul(per_chunk, (uint64_t)num_chunks, &overflow), &overflow);
  }
  if (overflow) return SK_ERROR_INVALID_VALUE;

  /* ---- CUDA from here on. ---- */
  st = sk_status_from_cuda_error((int)cudaGetDevice(&device));
  if (st != SK_SUCCESS) return st;
  p = (sk_csr_pipeline *)calloc(1, sizeof *p);
  if (p == NULL) return SK_ERROR_HOST_ALLOCATION_FAILED;
  p->device = device;
  p->num_chunks = num_chunks;
  p->num_rows = num_rows;
  p->num_tokens = total;
  p->num_cols = num_cols;
  p->resident = resident;
  p->order = resolved;
  p->num_arrays = num_arrays;
  for (a = 0; a < num_arrays; ++a) {
    p->arrays[a] = arrays[a];
    p->arrays[a].chunk_offsets = NULL; /* ignored for the other extents, and maybe not initialised */
    if (arrays[a].extent == SK_CSR_PIPELINE_PER_CHUNK) {
      const size_t bytes = ((size_t)num_chunks + 1) * sizeof *p->chunk_offsets[a];
      p->chunk_offsets[a] = (int64_t *)malloc(bytes);
      if (p->chunk_offsets[a] == NULL) {
        sk_detail_free(p);
        return SK_ERROR_HOST_ALLOCATION_FAILED;
      }
      memcpy(p->chunk_offsets[a], arrays[a].chunk_offsets, bytes);
      p->arrays[a].chunk_offsets = p->chunk_offsets[a];
    }
  }
  p->h_tokens = h_tokens;
  p->with_tokens = with_tokens;
  p->scratch_bytes = scratch_bytes;
  p->work_bytes = work_bytes;
  p->device_bytes = device_bytes;
  for (w = 0; w < SK_CSR_PIPELINE_MAX_WORKERS; ++w) p->workers[w].chunk = -1;
  if (num_chunks > 0) {
    p->chunks = (sk_csr_chunk_info *)malloc((size_t)num_chunks * sizeof *p->chunks);
    if (p->chunks == NULL) {
      sk_detail_free(p);
      return SK_ERROR_HOST_ALLOCATION_FAILED;
    }
    for (c = 0; c < num_chunks; ++c) (void)sk_csr_chunk_plan_chunk(plan, c, &p->chunks[c]);
  }

  /* Which host arrays CUDA can copy directly. */
  st = sk_detail_is_direct(h_tokens, tokens_bytes, &p->tokens_direct);
  for (a = 0; a < num_arrays && st == SK_SUCCESS; ++a)
    st = sk_detail_is_direct(arrays[a].h_data, array_bytes[a], &p->array_direct[a]);
  if (st != SK_SUCCESS) return sk_detail_create_failed(p, st);
  for (c = 0; c < num_chunks; ++c) {
    const size_t s = sk_detail_chunk_staging(p, c, &overflow);
    if (s > p->staging_bytes) p->staging_bytes = s;
  }
  if (overflow) return sk_detail_create_failed(p, SK_ERROR_INTERNAL); /* staging <= device bytes, checked */

  /* The cache. */
  if (num_chunks > 0) {
    st = sk_status_from_cuda_error((int)cudaHostAlloc((void **)&p->h_cache, cache_bytes, cudaHostAllocPortable));
    if (st != SK_SUCCESS) {
      p->h_cache = NULL;
      return sk_detail_create_failed(p, st);
    }
    p->cache_bytes = cache_bytes;
    p->h_offsets32 = (int32_t *)p->h_cache;
    for (c = 0; c < num_chunks; ++c) {
      const sk_csr_chunk_info *ci = &p->chunks[c];
      int32_t *dst = p->h_offsets32 + ci->first_row + c;
      for (r = 0; r <= ci->num_rows; ++r) dst[r] = (int32_t)(h_row_offsets[ci->first_row + r] - ci->first_token);
    }
    if (resolved == SK_CSR_PIPELINE_ORDER_HOST) {
      int o = 0;
      const size_t perm_at = sk_detail_align(sk_detail_mul(4, (uint64_t)num_rows + (uint64_t)num_chunks, &o), &o);
      const size_t wo_at = perm_at + sk_detail_align((size_t)total * 8, &o);
      p->h_perm = (int32_t *)(p->h_cache + perm_at);
      p->h_inverse = p->h_perm + total;
      p->h_word_offsets = (int64_t *)(p->h_cache + wo_at);
      for (c = 0; c < num_chunks && st == SK_SUCCESS; ++c) {
        const sk_csr_chunk_info *ci = &p->chunks[c];
        st = sk_csr_chunk_order_host(h_tokens == NULL ? NULL : h_tokens + ci->first_token, ci->num_tokens, num_cols,
                                     p->h_perm + ci->first_token, p->h_inverse + ci->first_token,
                                     p->h_word_offsets + (size_t)c * ((size_t)num_cols + 1));
      }
      if (st != SK_SUCCESS) return sk_detail_create_failed(p, SK_ERROR_INTERNAL); /* tokens checked above */
    }
  }

  /* The workers. */
  for (w = 0; w < workers; ++w) {
    sk_detail_worker *wk = &p->workers[w];
    st = sk_status_from_cuda_error((int)cudaStreamCreateWithFlags(&wk->stream, cudaStreamNonBlocking));
    if (st != SK_SUCCESS) wk->stream = NULL;
    if (st == SK_SUCCESS) {
      st = sk_status_from_cuda_error((int)cudaEventCreateWithFlags(&wk->done, cudaEventDisableTiming));
      if (st != SK_SUCCESS) wk->done = NULL;
    }
    if (st == SK_SUCCESS) {
      st = sk_status_from_cuda_error((int)cudaMalloc((void **)&wk->d_base, device_bytes));
      if (st != SK_SUCCESS) wk->d_base = NULL;
    }
    if (st == SK_SUCCESS && p->staging_bytes > 0) {
      st = sk_status_from_cuda_error(
          (int)cudaHostAlloc((void **)&wk->h_staging, p->staging_bytes, cudaHostAllocPortable));
      if (st != SK_SUCCESS) wk->h_staging = NULL;
    }
    if (st != SK_SUCCESS) return sk_detail_create_failed(p, st);
    p->num_workers = w + 1;
  }
  *pipeline = p;
  return SK_SUCCESS;
}

sk_status sk_csr_pipeline_get_info(const sk_csr_pipeline *pipeline, sk_csr_pipeline_info *info) {
  sk_csr_pipeline_info out;
  if (pipeline == NULL || info == NULL) return SK_ERROR_NULL_POINTER;
  memset(&out, 0, sizeof out);
  out.num_chunks = pipeline->num_chunks;
  out.num_workers = pipeline->num_workers;
  out.resident = pipeline->resident;
  out.order = pipeline->order;
  out.device_bytes_per_worker = pipeline->num_workers > 0 ? pipeline->device_bytes : 0;
  out.staging_bytes_per_worker = pipeline->num_workers > 0 ? pipeline->staging_bytes : 0;
  out.cache_bytes = pipeline->cache_bytes;
  out.last_h2d_bytes = pipeline->h2d_bytes;
  out.last_d2h_bytes = pipeline->d2h_bytes;
  *info = out;
  return SK_SUCCESS;
}
