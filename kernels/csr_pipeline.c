/* sk_csr_pipeline_*: streams the chunks of a chunk plan through W workers (CUDA streams), or keeps a
 * one-chunk corpus resident. Plain C calling the CUDA runtime; no kernels of its own (the device order
 * is sk_csr_chunk_order_device()'s). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "samplekit/csr_pipeline.h"
#include "sk_detail_cuda.h"

/* Regions in a worker's device buffer and in its staging buffer start on this boundary. */
#define SK_DETAIL_PIPE_ALIGN ((size_t)256)
/* What sk_csr_pipeline_chunk_costs() reserves for the device order's workspace. */
#define SK_DETAIL_PIPE_ORDER_WORKSPACE_PER_TOKEN 10
#define SK_DETAIL_PIPE_ORDER_WORKSPACE_FIXED ((size_t)1 << 20)

typedef struct {
  cudaStream_t stream;
  cudaEvent_t done;       /* recorded after a chunk's last copy out */
  unsigned char *d_base;  /* device_bytes */
  unsigned char *h_staging; /* staging_bytes, pinned; NULL when 0 */
  int64_t chunk;          /* the chunk issued and not yet finished, or -1 */
} sk_detail_worker;

/* Where one chunk's regions lie in a worker's buffer (offsets from d_base). */
typedef struct {
  size_t row_offsets, tokens, perm, inverse, word_offsets;
  size_t arrays[SK_CSR_PIPELINE_MAX_ARRAYS];
  size_t end;
} sk_detail_chunk_layout;

struct sk_csr_pipeline {
  int device;
  int64_t num_chunks, num_rows, num_tokens;
  int32_t num_cols;
  int num_workers;
  int resident;
  sk_csr_pipeline_order order; /* NONE, HOST or DEVICE */
  int num_arrays;
  sk_csr_pipeline_array arrays[SK_CSR_PIPELINE_MAX_ARRAYS];
  int array_direct[SK_CSR_PIPELINE_MAX_ARRAYS]; /* copied with cudaMemcpyAsync, not through staging */
  const int32_t *h_tokens;
  int with_tokens;             /* 0: no tokens (h_tokens NULL without an order): never copied, 0 bytes */
  int tokens_direct;
  int64_t *chunk_offsets[SK_CSR_PIPELINE_MAX_ARRAYS]; /* per-chunk arrays: our copy of the C + 1 offsets
                                                         (arrays[a].chunk_offsets points to it) */
  sk_csr_chunk_info *chunks;
  unsigned char *h_cache;      /* pinned: the rebased offsets, then the host order */
  int32_t *h_offsets32;        /* chunk c's num_rows + 1 rebased offsets start at entry first_row + c */
  int32_t *h_perm, *h_inverse; /* host order: T entries each, chunk c's at first_token */
  int64_t *h_word_offsets;     /* host order: chunk c's num_cols + 1 at c (num_cols + 1) */
  size_t scratch_bytes;        /* the caller's */
  size_t work_bytes;           /* the scratch region: max(scratch, device order workspace) */
  size_t device_bytes, staging_bytes, cache_bytes;
  sk_detail_worker workers[SK_CSR_PIPELINE_MAX_WORKERS];
  /* Resident mode: what the device holds. */
  int static_on_device;                               /* offsets, tokens and order */
  unsigned char array_on_device[SK_CSR_PIPELINE_MAX_ARRAYS]; /* in and in-out arrays */
  int have_results;                                   /* the last run succeeded, no upload failed since */
  uint64_t h2d_bytes, d2h_bytes;
};

/* ------------------------------------------------------------------------------------------------ */
/* Sizes, with overflow saturating to SIZE_MAX (a size that large fits no budget and no allocation). */

static size_t sk_detail_add(size_t a, size_t b, int *overflow) {
  if (a > SIZE_MAX - b) {
    *overflow = 1;
    return SIZE_MAX;
  }
  return a + b;
}

static size_t sk_detail_mul(size_t a, uint64_t b, int *overflow) {
  if (b > (uint64_t)SIZE_MAX || (a != 0 && (size_t)b > SIZE_MAX / a)) {
    if (a != 0 && b != 0) {
      *overflow = 1;
      return SIZE_MAX;
    }
    return 0;
  }
  return a * (size_t)b;
}

static size_t sk_detail_align(size_t x, int *overflow) {
  const size_t r = x % SK_DETAIL_PIPE_ALIGN;
  return r == 0 ? x : sk_detail_add(x, SK_DETAIL_PIPE_ALIGN - r, overflow);
}

/* Appends a region of `bytes` at the aligned cursor; returns its offset. */
static size_t sk_detail_region(size_t *cursor, size_t bytes, int *overflow) {
  const size_t at = *cursor;
  *cursor = sk_detail_align(sk_detail_add(at, bytes, overflow), overflow);
  return at;
}

static int sk_detail_has_in(const sk_csr_pipeline_array *a) { return ((int)a->direction & SK_CSR_PIPELINE_IN) != 0; }
static int sk_detail_has_out(const sk_csr_pipeline_array *a) {
  return ((int)a->direction & SK_CSR_PIPELINE_OUT) != 0;
}

/* Chunk c's element range of an array (ci: the chunk's description). */
static void sk_detail_slice(const sk_csr_pipeline_array *a, int64_t c, const sk_csr_chunk_info *ci, int64_t *first,
                            int64_t *count) {
  if (a->extent == SK_CSR_PIPELINE_PER_TOKEN) {
    *first = ci->first_token;
    *count = ci->num_tokens;
  } else if (a->extent == SK_CSR_PIPELINE_PER_ROW) {
    *first = ci->first_row;
    *count = ci->num_rows;
  } else {
    *first = a->chunk_offsets[c];
    *count = a->chunk_offsets[c + 1] - a->chunk_offsets[c];
  }
}

/* The device regions of chunk c, packed in this order: scratch (at 0), row offsets, tokens (0 bytes
 * without tokens), the arrays, the order. Every size here was checked against overflow when the
 * pipeline was made. */
static void sk_detail_chunk_layout_of(const sk_csr_pipeline_array *arrays, int num_arrays, int with_tokens,
                                      int with_order, int32_t num_cols, size_t work_bytes, int64_t c,
                                      const sk_csr_chunk_info *ci, sk_detail_chunk_layout *l, int *overflow) {
  size_t cursor = 0;
  int a;
  (void)sk_detail_region(&cursor, work_bytes, overflow);
  l->row_offsets = sk_detail_region(&cursor, sk_detail_mul(4, (uint64_t)ci->num_rows + 1, overflow), overflow);
  l->tokens = sk_detail_region(&cursor, with_tokens ? sk_detail_mul(4, (uint64_t)ci->num_tokens, overflow) : 0,
                               overflow);
  for (a = 0; a < num_arrays; ++a) {
    int64_t first, count;
    sk_detail_slice(&arrays[a], c, ci, &first, &count);
    l->arrays[a] = sk_detail_region(&cursor, sk_detail_mul(arrays[a].element_bytes, (uint64_t)count, overflow),
                                    overflow);
  }
  l->perm = l->inverse = l->word_offsets = cursor;
  if (with_order) {
    l->perm = sk_detail_region(&cursor, sk_detail_mul(4, (uint64_t)ci->num_tokens, overflow), overflow);
    l->inverse = sk_detail_region(&cursor, sk_detail_mul(4, (uint64_t)ci->num_tokens, overflow), overflow);
    l->word_offsets = sk_detail_region(&cursor, sk_detail_mul(8, (uint64_t)num_cols + 1, overflow), overflow);
  }
  l->end = cursor;
}

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

/* ------------------------------------------------------------------------------------------------ */
/* Device selection: calls run on the pipeline's device and leave the caller's current. */

static sk_status sk_detail_enter(const sk_csr_pipeline *p, int *previous) {
  sk_status st = sk_status_from_cuda_error((int)cudaGetDevice(previous));
  if (st != SK_SUCCESS) return st;
  if (*previous != p->device) st = sk_status_from_cuda_error((int)cudaSetDevice(p->device));
  return st;
}

static void sk_detail_leave(const sk_csr_pipeline *p, int previous) {
  if (previous != p->device) (void)cudaSetDevice(previous);
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

/* ------------------------------------------------------------------------------------------------ */
/* Copies. Host-to-device copies of pageable data are staged at *cursor in the worker's staging. */

static sk_status sk_detail_copy_in(sk_csr_pipeline *p, sk_detail_worker *wk, size_t *cursor, void *dst,
                                   const void *src, size_t bytes, int direct) {
  const void *from = src;
  int overflow = 0;
  if (bytes == 0) return SK_SUCCESS;
  if (!direct) {
    unsigned char *staged = wk->h_staging + sk_detail_region(cursor, bytes, &overflow);
    memcpy(staged, src, bytes);
    from = staged;
  }
  p->h2d_bytes += bytes;
  return sk_status_from_cuda_error((int)cudaMemcpyAsync(dst, from, bytes, cudaMemcpyDefault, wk->stream));
}

/* Device-to-host: directly to `dst`, or to the staging at *cursor (copied out by sk_detail_unstage). */
static sk_status sk_detail_copy_out(sk_csr_pipeline *p, sk_detail_worker *wk, size_t *cursor, void *dst,
                                    const void *src, size_t bytes, int direct) {
  void *to = dst;
  int overflow = 0;
  if (bytes == 0) return SK_SUCCESS;
  if (!direct) to = wk->h_staging + sk_detail_region(cursor, bytes, &overflow);
  p->d2h_bytes += bytes;
  return sk_status_from_cuda_error((int)cudaMemcpyAsync(to, src, bytes, cudaMemcpyDefault, wk->stream));
}

/* The host address of chunk c's slice of array a, and its bytes. */
static unsigned char *sk_detail_host_slice(const sk_csr_pipeline *p, int a, int64_t c, size_t *bytes) {
  const sk_csr_pipeline_array *arr = &p->arrays[a];
  int64_t first, count;
  sk_detail_slice(arr, c, &p->chunks[c], &first, &count);
  *bytes = arr->element_bytes * (size_t)count;
  return (unsigned char *)arr->h_data + arr->element_bytes * (size_t)first;
}

/* Copies the staged outputs of chunk c from the worker's staging to the host arrays, in the order
 * sk_detail_copy_out staged them. The chunk's copies must have finished. */
static void sk_detail_unstage(const sk_csr_pipeline *p, const sk_detail_worker *wk, int64_t c) {
  size_t cursor = 0;
  int a, overflow = 0;
  for (a = 0; a < p->num_arrays; ++a) {
    size_t bytes;
    unsigned char *host;
    if (!sk_detail_has_out(&p->arrays[a]) || p->array_direct[a]) continue;
    host = sk_detail_host_slice(p, a, c, &bytes);
    if (bytes == 0) continue;
    memcpy(host, wk->h_staging + sk_detail_region(&cursor, bytes, &overflow), bytes);
  }
}

static void sk_detail_view(const sk_csr_pipeline *p, int w, int64_t c, const sk_detail_chunk_layout *l,
                           sk_csr_chunk_view *v) {
  unsigned char *d = p->workers[w].d_base;
  int a;
  memset(v, 0, sizeof *v);
  v->index = c;
  v->worker = w;
  v->info = p->chunks[c];
  v->num_cols = p->num_cols;
  v->d_row_offsets = (const int32_t *)(d + l->row_offsets);
  v->d_tokens = p->with_tokens ? (const int32_t *)(d + l->tokens) : NULL;
  v->num_arrays = p->num_arrays;
  for (a = 0; a < p->num_arrays; ++a) {
    int64_t first;
    v->d_arrays[a] = d + l->arrays[a];
    sk_detail_slice(&p->arrays[a], c, &p->chunks[c], &first, &v->array_elements[a]);
  }
  if (p->order != SK_CSR_PIPELINE_ORDER_NONE) {
    v->d_perm = (const int32_t *)(d + l->perm);
    v->d_inverse = (const int32_t *)(d + l->inverse);
    v->d_word_offsets = (const int64_t *)(d + l->word_offsets);
  }
  v->d_scratch = p->scratch_bytes > 0 ? d : NULL;
  v->scratch_bytes = p->scratch_bytes;
}

/* Enqueues a chunk's static inputs on the worker's stream: rebased offsets, tokens, and the order
 * (copied from the host cache, or built on the device). */
static sk_status sk_detail_static_in(sk_csr_pipeline *p, int w, int64_t c, const sk_detail_chunk_layout *l,
                                     size_t *cursor) {
  sk_detail_worker *wk = &p->workers[w];
  const sk_csr_chunk_info *ci = &p->chunks[c];
  unsigned char *d = wk->d_base;
  const size_t n = (size_t)ci->num_tokens, v1 = (size_t)p->num_cols + 1;
  sk_status st = sk_detail_copy_in(p, wk, cursor, d + l->row_offsets, p->h_offsets32 + ci->first_row + c,
                                   4 * ((size_t)ci->num_rows + 1), 1);
  if (st == SK_SUCCESS && p->with_tokens)
    st = sk_detail_copy_in(p, wk, cursor, d + l->tokens, p->h_tokens + ci->first_token, 4 * n, p->tokens_direct);
  if (st != SK_SUCCESS) return st;
  if (p->order == SK_CSR_PIPELINE_ORDER_HOST) {
    st = sk_detail_copy_in(p, wk, cursor, d + l->perm, p->h_perm + ci->first_token, 4 * n, 1);
    if (st == SK_SUCCESS)
      st = sk_detail_copy_in(p, wk, cursor, d + l->inverse, p->h_inverse + ci->first_token, 4 * n, 1);
    if (st == SK_SUCCESS)
      st = sk_detail_copy_in(p, wk, cursor, d + l->word_offsets, p->h_word_offsets + (size_t)c * v1, 8 * v1, 1);
  } else if (p->order == SK_CSR_PIPELINE_ORDER_DEVICE) {
    st = sk_csr_chunk_order_device((const int32_t *)(d + l->tokens), ci->num_tokens, p->num_cols,
                                   (int32_t *)(d + l->perm), (int32_t *)(d + l->inverse),
                                   (int64_t *)(d + l->word_offsets), p->work_bytes > 0 ? d : NULL, p->work_bytes,
                                   (sk_stream)wk->stream);
  }
  return st;
}

static sk_status sk_detail_array_in(sk_csr_pipeline *p, int w, int64_t c, int a, const sk_detail_chunk_layout *l,
                                    size_t *cursor) {
  size_t bytes;
  const unsigned char *host = sk_detail_host_slice(p, a, c, &bytes);
  return sk_detail_copy_in(p, &p->workers[w], cursor, p->workers[w].d_base + l->arrays[a], host, bytes,
                           p->array_direct[a]);
}

static sk_status sk_detail_arrays_out(sk_csr_pipeline *p, int w, int64_t c, const sk_detail_chunk_layout *l) {
  size_t cursor = 0;
  int a;
  for (a = 0; a < p->num_arrays; ++a) {
    size_t bytes;
    unsigned char *host;
    sk_status st;
    if (!sk_detail_has_out(&p->arrays[a])) continue;
    host = sk_detail_host_slice(p, a, c, &bytes);
    st = sk_detail_copy_out(p, &p->workers[w], &cursor, host, p->workers[w].d_base + l->arrays[a], bytes,
                            p->array_direct[a]);
    if (st != SK_SUCCESS) return st;
  }
  return SK_SUCCESS;
}

static void sk_detail_layout_for(const sk_csr_pipeline *p, int64_t c, sk_detail_chunk_layout *l) {
  int overflow = 0; /* checked when the pipeline was made */
  sk_detail_chunk_layout_of(p->arrays, p->num_arrays, p->with_tokens, p->order != SK_CSR_PIPELINE_ORDER_NONE,
                            p->num_cols, p->work_bytes, c, &p->chunks[c], l, &overflow);
}

/* Calls the function, then checks what it may have left pending. */
static sk_status sk_detail_call(const sk_csr_pipeline *p, int w, int64_t c, const sk_detail_chunk_layout *l,
                                sk_csr_pipeline_fn fn, void *user) {
  sk_csr_chunk_view view;
  sk_status st;
  sk_detail_view(p, w, c, l, &view);
  st = fn(&view, (sk_stream)p->workers[w].stream, user);
  if (st != SK_SUCCESS) return st;
  return sk_detail_check_launch();
}

/* ------------------------------------------------------------------------------------------------ */
/* Streaming mode. */

/* Everything for chunk c on worker w, whose previous chunk has finished. */
static sk_status sk_detail_issue(sk_csr_pipeline *p, int w, int64_t c, sk_csr_pipeline_fn fn, void *user) {
  sk_detail_worker *wk = &p->workers[w];
  sk_detail_chunk_layout l;
  size_t cursor = 0;
  int a;
  sk_status st;
  sk_detail_layout_for(p, c, &l);
  st = sk_detail_static_in(p, w, c, &l, &cursor);
  for (a = 0; a < p->num_arrays && st == SK_SUCCESS; ++a)
    if (sk_detail_has_in(&p->arrays[a])) st = sk_detail_array_in(p, w, c, a, &l, &cursor);
  if (st == SK_SUCCESS) st = sk_detail_call(p, w, c, &l, fn, user);
  if (st == SK_SUCCESS) st = sk_detail_arrays_out(p, w, c, &l);
  if (st == SK_SUCCESS) st = sk_status_from_cuda_error((int)cudaEventRecord(wk->done, wk->stream));
  if (st == SK_SUCCESS) wk->chunk = c;
  return st;
}

/* Waits for worker w's chunk and, when `complete`, copies its staged outputs out. */
static sk_status sk_detail_finish(sk_csr_pipeline *p, int w, int complete) {
  sk_detail_worker *wk = &p->workers[w];
  const int64_t c = wk->chunk;
  const sk_status st = sk_status_from_cuda_error((int)cudaEventSynchronize(wk->done));
  wk->chunk = -1;
  if (st == SK_SUCCESS && complete) sk_detail_unstage(p, wk, c);
  return st;
}

static sk_status sk_detail_run_streaming(sk_csr_pipeline *p, sk_csr_pipeline_fn fn, void *user, int64_t *done) {
  sk_status st = SK_SUCCESS;
  int completing = 1, w;
  int64_t c;
  for (c = 0; c < p->num_chunks; ++c) {
    w = (int)(c % p->num_workers);
    if (p->workers[w].chunk >= 0) {
      st = sk_detail_finish(p, w, 1);
      if (st != SK_SUCCESS) {
        completing = 0; /* the chunks still in flight come after the one that failed */
        break;
      }
      ++*done;
    }
    st = sk_detail_issue(p, w, c, fn, user);
    if (st != SK_SUCCESS) break;
  }
  /* Drain: the chunks in flight, in chunk order, completing them while no completion has failed. */
  for (;;) {
    int next = -1;
    for (w = 0; w < p->num_workers; ++w)
      if (p->workers[w].chunk >= 0 && (next < 0 || p->workers[w].chunk < p->workers[next].chunk)) next = w;
    if (next < 0) break;
    {
      const sk_status fs = sk_detail_finish(p, next, completing);
      if (fs == SK_SUCCESS && completing) {
        ++*done;
      } else {
        completing = 0;
        if (st == SK_SUCCESS) st = fs;
      }
    }
  }
  if (st != SK_SUCCESS) {
    /* A failure can leave work queued without an event (the failing chunk): wait for all of it. */
    for (w = 0; w < p->num_workers; ++w) {
      const cudaError_t err = cudaStreamSynchronize(p->workers[w].stream);
      if (err != cudaSuccess) (void)sk_status_from_cuda_error((int)err); /* recorded; the first failure wins */
    }
  }
  return st;
}

/* ------------------------------------------------------------------------------------------------ */
/* Resident mode: worker 0 holds the one chunk. */

/* Copies in the static inputs (when `statics`) and the arrays whose want[a] is set, and waits. */
static sk_status sk_detail_resident_upload(sk_csr_pipeline *p, int statics, const unsigned char *want) {
  sk_detail_worker *wk = &p->workers[0];
  sk_detail_chunk_layout l;
  size_t cursor = 0;
  int a;
  sk_status st = SK_SUCCESS;
  sk_detail_layout_for(p, 0, &l);
  if (statics) {
    p->static_on_device = 0;
    st = sk_detail_static_in(p, 0, 0, &l, &cursor);
  }
  for (a = 0; a < p->num_arrays && st == SK_SUCCESS; ++a) {
    if (!want[a]) continue;
    p->array_on_device[a] = 0;
    st = sk_detail_array_in(p, 0, 0, a, &l, &cursor);
  }
  {
    const sk_status ss = sk_status_from_cuda_error((int)cudaStreamSynchronize(wk->stream));
    if (st == SK_SUCCESS) st = ss;
  }
  if (st != SK_SUCCESS) {
    p->have_results = 0;
    return st;
  }
  if (statics) p->static_on_device = 1;
  for (a = 0; a < p->num_arrays; ++a)
    if (want[a]) p->array_on_device[a] = 1;
  return SK_SUCCESS;
}

static sk_status sk_detail_run_resident(sk_csr_pipeline *p, sk_csr_pipeline_fn fn, void *user, int64_t *done) {
  sk_detail_worker *wk = &p->workers[0];
  sk_detail_chunk_layout l;
  unsigned char want[SK_CSR_PIPELINE_MAX_ARRAYS];
  int a, any = !p->static_on_device;
  sk_status st, ss;
  for (a = 0; a < p->num_arrays; ++a) {
    want[a] = (unsigned char)(sk_detail_has_in(&p->arrays[a]) && !p->array_on_device[a]);
    any |= want[a];
  }
  p->have_results = 0;
  st = any ? sk_detail_resident_upload(p, !p->static_on_device, want) : SK_SUCCESS;
  if (st == SK_SUCCESS) {
    sk_detail_layout_for(p, 0, &l);
    st = sk_detail_call(p, 0, 0, &l, fn, user);
    ss = sk_status_from_cuda_error((int)cudaStreamSynchronize(wk->stream));
    if (st == SK_SUCCESS) st = ss;
  }
  if (st != SK_SUCCESS) {
    /* The device copies are unspecified now: the next run starts again from the host arrays. */
    p->static_on_device = 0;
    memset(p->array_on_device, 0, sizeof p->array_on_device);
    return st;
  }
  p->have_results = 1;
  *done = 1;
  return SK_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* The public calls. */

sk_status sk_csr_pipeline_run(sk_csr_pipeline *pipeline, sk_csr_pipeline_fn fn, void *user, int64_t *num_chunks_done) {
  int64_t done = 0;
  int previous = 0;
  sk_status st;
  if (pipeline == NULL || fn == NULL) return SK_ERROR_NULL_POINTER;
  if (num_chunks_done != NULL) *num_chunks_done = 0;
  pipeline->h2d_bytes = pipeline->d2h_bytes = 0;
  if (pipeline->num_chunks == 0) return SK_SUCCESS;
  st = sk_detail_enter(pipeline, &previous);
  if (st != SK_SUCCESS) return st;
  st = sk_detail_check_pending();
  if (st == SK_SUCCESS)
    st = pipeline->resident ? sk_detail_run_resident(pipeline, fn, user, &done)
                            : sk_detail_run_streaming(pipeline, fn, user, &done);
  /* Keep CUDA's code for sk_last_cuda_error(), but leave no non-sticky error pending. */
  if (st != SK_SUCCESS) (void)cudaGetLastError();
  sk_detail_leave(pipeline, previous);
  if (num_chunks_done != NULL) *num_chunks_done = done;
  return st;
}

sk_status sk_csr_pipeline_download(sk_csr_pipeline *pipeline) {
  sk_detail_worker *wk;
  sk_detail_chunk_layout l;
  int previous = 0;
  sk_status st, ss;
  if (pipeline == NULL) return SK_ERROR_NULL_POINTER;
  pipeline->h2d_bytes = pipeline->d2h_bytes = 0;
  if (!pipeline->resident || !pipeline->have_results) return SK_SUCCESS;
  st = sk_detail_enter(pipeline, &previous);
  if (st != SK_SUCCESS) return st;
  st = sk_detail_check_pending();
  if (st == SK_SUCCESS) {
    wk = &pipeline->workers[0];
    sk_detail_layout_for(pipeline, 0, &l);
    st = sk_detail_arrays_out(pipeline, 0, 0, &l);
    ss = sk_status_from_cuda_error((int)cudaStreamSynchronize(wk->stream));
    if (st == SK_SUCCESS) st = ss;
    if (st == SK_SUCCESS)
      sk_detail_unstage(pipeline, wk, 0);
    else
      (void)cudaGetLastError();
  }
  sk_detail_leave(pipeline, previous);
  return st;
}

sk_status sk_csr_pipeline_upload(sk_csr_pipeline *pipeline, int array_index) {
  unsigned char want[SK_CSR_PIPELINE_MAX_ARRAYS];
  int a, previous = 0;
  sk_status st;
  if (pipeline == NULL) return SK_ERROR_NULL_POINTER;
  if (array_index < -1 || array_index >= pipeline->num_arrays ||
      (array_index >= 0 && !sk_detail_has_in(&pipeline->arrays[array_index])))
    return SK_ERROR_INVALID_VALUE;
  pipeline->h2d_bytes = pipeline->d2h_bytes = 0;
  if (!pipeline->resident) return SK_SUCCESS;
  for (a = 0; a < pipeline->num_arrays; ++a)
    want[a] = (unsigned char)(sk_detail_has_in(&pipeline->arrays[a]) && (array_index < 0 || a == array_index));
  st = sk_detail_enter(pipeline, &previous);
  if (st != SK_SUCCESS) return st;
  st = sk_detail_check_pending();
  if (st == SK_SUCCESS) {
    st = sk_detail_resident_upload(pipeline, 0, want);
    if (st != SK_SUCCESS) (void)cudaGetLastError();
  }
  sk_detail_leave(pipeline, previous);
  return st;
}
