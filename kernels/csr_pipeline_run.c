/* sk_csr_pipeline_run(), _download() and _upload(): a pipeline's copies and runs, streamed through its
 * workers or resident (csr_pipeline.c makes and sizes the pipeline). Plain C calling the CUDA runtime. */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "samplekit/csr_pipeline.h"
#include "csr_pipeline_internal.h"

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
