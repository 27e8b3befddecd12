/* The state and helpers that csr_pipeline.c (sizing, checks, making and releasing a pipeline) and
 * csr_pipeline_run.c (its copies and runs) share: the pipeline's and its workers' state, the size
 * arithmetic and a chunk's device layout, and the device selection. Private to kernels/. */
#ifndef SAMPLEKIT_KERNELS_CSR_PIPELINE_INTERNAL_H
#define SAMPLEKIT_KERNELS_CSR_PIPELINE_INTERNAL_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "samplekit/csr_pipeline.h"
#include "sk_detail_cuda.h"

/* Regions in a worker's device buffer and in its staging buffer start on this boundary. */
#define SK_DETAIL_PIPE_ALIGN ((size_t)256)

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

static inline size_t sk_detail_add(size_t a, size_t b, int *overflow) {
  if (a > SIZE_MAX - b) {
    *overflow = 1;
    return SIZE_MAX;
  }
  return a + b;
}

static inline size_t sk_detail_mul(size_t a, uint64_t b, int *overflow) {
  if (b > (uint64_t)SIZE_MAX || (a != 0 && (size_t)b > SIZE_MAX / a)) {
    if (a != 0 && b != 0) {
      *overflow = 1;
      return SIZE_MAX;
    }
    return 0;
  }
  return a * (size_t)b;
}

static inline size_t sk_detail_align(size_t x, int *overflow) {
  const size_t r = x % SK_DETAIL_PIPE_ALIGN;
  return r == 0 ? x : sk_detail_add(x, SK_DETAIL_PIPE_ALIGN - r, overflow);
}

/* Appends a region of `bytes` at the aligned cursor; returns its offset. */
static inline size_t sk_detail_region(size_t *cursor, size_t bytes, int *overflow) {
  const size_t at = *cursor;
  *cursor = sk_detail_align(sk_detail_add(at, bytes, overflow), overflow);
  return at;
}

static inline int sk_detail_has_in(const sk_csr_pipeline_array *a) {
  return ((int)a->direction & SK_CSR_PIPELINE_IN) != 0;
}
static inline int sk_detail_has_out(const sk_csr_pipeline_array *a) {
  return ((int)a->direction & SK_CSR_PIPELINE_OUT) != 0;
}

/* Chunk c's element range of an array (ci: the chunk's description). */
static inline void sk_detail_slice(const sk_csr_pipeline_array *a, int64_t c, const sk_csr_chunk_info *ci,
                                   int64_t *first, int64_t *count) {
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
static inline void sk_detail_chunk_layout_of(const sk_csr_pipeline_array *arrays, int num_arrays,
                                             int with_tokens, int with_order, int32_t num_cols, size_t work_bytes,
                                             int64_t c, const sk_csr_chunk_info *ci, sk_detail_chunk_layout *l,
                                             int *overflow) {
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

/* ------------------------------------------------------------------------------------------------ */
/* Device selection: calls run on the pipeline's device and leave the caller's current. */

static inline sk_status sk_detail_enter(const sk_csr_pipeline *p, int *previous) {
  sk_status st = sk_status_from_cuda_error((int)cudaGetDevice(previous));
  if (st != SK_SUCCESS) return st;
  if (*previous != p->device) st = sk_status_from_cuda_error((int)cudaSetDevice(p->device));
  return st;
}

static inline void sk_detail_leave(const sk_csr_pipeline *p, int previous) {
  if (previous != p->device) (void)cudaSetDevice(previous);
}

#endif /* SAMPLEKIT_KERNELS_CSR_PIPELINE_INTERNAL_H */
