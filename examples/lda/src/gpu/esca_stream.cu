// The streamed GPU ESCA sweep (esca_stream.cuh): chunk plan, packed PDOW plans, the CSR pipeline's
// workers, and each chunk's A rebuild and draws on its worker's stream.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/esca_gpu_fast.cuh"
#include "gpu/esca_stream.cuh"
#include "samplekit/csr_chunker.h"
#include "samplekit/csr_pipeline.h"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"
#include "stream_plan.h"

#define SK_LDA_CUDA_SCOPE "GPU ESCA (streamed)"
#include "gpu/cuda_check.h"

namespace sk_lda_gpu {

namespace {

constexpr size_t kAlign = 256;
// Regions of a worker's buffer: the pipeline's (scratch, offsets, tokens, z, plan) and ours (A's
// offsets, topics, counts, the segmented count's workspace); each may waste kAlign - 1 bytes.
constexpr size_t kRegions = 9;
// Bytes per token the cost model charges: z (4), the packed plan (at most 24), A's pairs (8) and the
// segmented count's tiles (1, more than its 12 bytes per tile of 1,024 or 8,192 positions).
constexpr size_t kBytesPerToken = 4 + SK_LDA_STREAM_PLAN_MAX_BYTES_PER_TOKEN + 8 + 1;
// Bytes per document: the pipeline's rebased offset (4), A's offset (4), the segmented count's (4).
constexpr size_t kBytesPerDoc = 12;

double wall_now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

}  // namespace

struct esca_stream {
  int gpu;
  int32_t num_topics, num_words, num_docs;
  int64_t num_tokens;
  double alpha, beta, vbeta;
  uint64_t seed;
  fast_launch launch;
  int workers;  // W' = the pipeline's workers
  // The model on the device.
  int32_t *b, *b_next;
  unsigned long long *n_k;
  float *inv;
  unsigned int *next_item;  // one counter per worker
  float *rows;              // W' x launch.scratch_floats on the global path, else NULL
  // Each worker's A and the segmented count's workspace, sized for the largest chunk.
  int32_t *a_offsets[SK_CSR_PIPELINE_MAX_WORKERS];
  uint32_t *a_topic[SK_CSR_PIPELINE_MAX_WORKERS], *a_count[SK_CSR_PIPELINE_MAX_WORKERS];
  void *workspace[SK_CSR_PIPELINE_MAX_WORKERS];
  size_t workspace_bytes;
  int64_t max_rows, max_tokens;
  // The host side.
  int32_t *h_z;  // T topics, pinned
  sk_lda_stream_plan plan;
  int plan_registered;
  sk_csr_chunk_plan *chunks;
  sk_csr_pipeline *pipe;
  cudaEvent_t ready;  // the sweep's inv, before any chunk's draws
  cudaEvent_t *marks; // 3 per chunk: before A, before the draws, after them
  int64_t marks_made;
  cudaEvent_t model_marks[4];
  int model_marks_made;
  uint64_t iteration;  // the sweep being run, for the chunk function
  uint64_t token_base; // the corpus position of this sampler's token 0 (a rank's; 0 on one GPU)
  sk_lda_gpu_b_sum b_sum;
  int64_t allocated;
  sk_lda_esca_gpu_stats stats;
};

namespace {

template <typename T>
int alloc(esca_stream *s, T **p, size_t count, const char *what, sk_lda_error *err) {
  return sk_lda_cuda_alloc(p, count, SK_LDA_CUDA_SCOPE, what, &s->allocated, err);
}

// Our part of a worker's buffer for a chunk of at most `rows` documents and `tokens` tokens.
size_t worker_own_bytes(int64_t rows, int64_t tokens, size_t workspace_bytes) {
  return align_up(4 * ((size_t)rows + 1)) + 2 * align_up(4 * (size_t)tokens) + align_up(workspace_bytes);
}

// The pipeline's part, bounded with the plan's largest size per token.
size_t worker_pipe_bytes(int64_t rows, int64_t tokens) {
  return align_up(4 * ((size_t)rows + 1)) + align_up(4 * (size_t)tokens) +
         align_up(SK_LDA_STREAM_PLAN_MAX_BYTES_PER_TOKEN * (size_t)tokens + SK_LDA_STREAM_PLAN_FIXED_BYTES) + kAlign;
}

// The chunk plan: the fewest balanced chunks whose worker buffers fit `per_worker` bytes. The cost
// model is linear (csr_chunker.h) but the segmented count's workspace and the alignment are not quite,
// so the budget given to the chunker shrinks until the largest chunk really fits.
int plan_chunks(esca_stream *s, const sk_lda_model *m, size_t per_worker, size_t total_budget, size_t model_bytes,
                int workers, int *budget_error, sk_lda_error *err) {
  // A chunk's fixed bytes: the regions' alignment, the workspace of the smallest count, and slack for
  // the workspace's own alignment (so that the estimate bounds the real need and the loop below is a
  // safety net, not the rule).
  size_t ws0 = 0;
  const sk_status ws0_st = sk_segmented_count_workspace_size(1, 1, m->num_topics, &ws0);
  if (ws0_st != SK_SUCCESS)
    return sk_lda_fail(err, "GPU ESCA (streamed): sizing the segmented count: %s", sk_status_string(ws0_st));
  const size_t fixed = (kRegions + 4) * kAlign + ws0;
  size_t budget = per_worker;
  for (int attempt = 0; attempt < 32; ++attempt) {
    int64_t bad_row = -1;
    size_t bad_bytes = 0;
    sk_csr_chunk_plan *plan = NULL;
    const sk_status st = sk_csr_chunk_plan_create(m->corpus->doc_offsets, m->num_docs, kBytesPerToken, kBytesPerDoc,
                                                  fixed, budget, &plan, &bad_row, &bad_bytes);
    if (st == SK_ERROR_INVALID_VALUE && bad_bytes != 0) {
      *budget_error = 1;
      if (bad_row < 0)
        return sk_lda_fail(err, "GPU ESCA (streamed): the budget leaves %zu bytes for each of %d workers, less than "
                                "a chunk's fixed %zu bytes; raise --device-memory or use fewer --workers",
                           per_worker, workers, fixed);
      const long long n = (long long)(m->corpus->doc_offsets[bad_row + 1] - m->corpus->doc_offsets[bad_row]);
      return sk_lda_fail(err,
                         "GPU ESCA (streamed): document %lld has %lld tokens; a chunk of it alone needs %zu bytes of "
                         "GPU memory, but each of the %d workers has %zu (the budget of %zu bytes less the model's "
                         "%zu, shared by the workers); raise --device-memory or use fewer --workers",
                         (long long)bad_row, n, bad_bytes, workers, per_worker, total_budget, model_bytes);
    }
    if (st != SK_SUCCESS)
      return sk_lda_fail(err, "GPU ESCA (streamed): planning the chunks: %s", sk_status_string(st));
    int64_t C = 0, rows = 0, tokens = 0;
    (void)sk_csr_chunk_plan_num_chunks(plan, &C);
    for (int64_t c = 0; c < C; ++c) {
      sk_csr_chunk_info ci;
      (void)sk_csr_chunk_plan_chunk(plan, c, &ci);
      if (ci.num_rows > rows) rows = ci.num_rows;
      if (ci.num_tokens > tokens) tokens = ci.num_tokens;
    }
    size_t ws = 0;
    const sk_status wst = sk_segmented_count_workspace_size((int32_t)rows, (int32_t)tokens, m->num_topics, &ws);
    if (wst != SK_SUCCESS) {
      sk_csr_chunk_plan_destroy(plan);
      return sk_lda_fail(err, "GPU ESCA (streamed): sizing the segmented count: %s", sk_status_string(wst));
    }
    const size_t need = worker_own_bytes(rows, tokens, ws) + worker_pipe_bytes(rows, tokens);
    if (need <= per_worker) {
      s->chunks = plan;
      s->max_rows = rows;
      s->max_tokens = tokens;
      s->workspace_bytes = ws;
      return 0;
    }
    sk_csr_chunk_plan_destroy(plan);
    const size_t over = need - per_worker + need / 64;  // shrink by the excess and a little more
    if (over >= budget) break;
    budget -= over;
  }
  *budget_error = 1;
  return sk_lda_fail(err, "GPU ESCA (streamed): no chunk plan fits %zu bytes per worker (%d workers); raise "
                          "--device-memory", per_worker, workers);
}

// The chunk function of the pipeline (csr_pipeline.h): A from the chunk's z, then its draws.
sk_status run_chunk(const sk_csr_chunk_view *view, sk_stream stream_handle, void *user) {
  esca_stream *s = (esca_stream *)user;
  cudaStream_t stream = (cudaStream_t)stream_handle;
  const int w = view->worker;
  const int64_t k = view->index;
  const int32_t rows = (int32_t)view->info.num_rows, n = (int32_t)view->info.num_tokens;
  const int32_t G = s->plan.num_groups[k], I = s->plan.num_items[k];
  int32_t *z = (int32_t *)view->d_arrays[0];
  const int32_t *packed = (const int32_t *)view->d_arrays[1];
  if (cudaStreamWaitEvent(stream, s->ready, 0) != cudaSuccess || cudaEventRecord(s->marks[3 * k], stream) != cudaSuccess)
    return SK_ERROR_CUDA;
  sk_status st = sk_segmented_count_u32(view->d_row_offsets, rows, n, (const uint32_t *)z, NULL, s->num_topics,
                                        s->a_offsets[w], s->a_topic[w], s->a_count[w], n, s->workspace[w],
                                        s->workspace_bytes, stream);
  if (st != SK_SUCCESS) return st;
  if (cudaEventRecord(s->marks[3 * k + 1], stream) != cudaSuccess ||
      cudaMemsetAsync(s->next_item + w, 0, sizeof *s->next_item, stream) != cudaSuccess)
    return SK_ERROR_CUDA;
  fast_draw_params p;
  memset(&p, 0, sizeof p);
  p.token = packed;
  p.group_start = packed + n;
  p.group_doc = p.group_start + G + 1;
  p.item_word = p.group_doc + G;
  p.item_group = p.item_word + I;
  p.item_end = p.item_group + I;
  p.num_items = I;
  p.a_offsets = s->a_offsets[w];
  p.a_topic = s->a_topic[w];
  p.a_count = s->a_count[w];
  fast_set_model(&p, s->b, s->inv, s->b_next, s->launch.row_floats, s->num_topics, s->alpha, s->beta, s->seed,
                 s->iteration);
  p.z = z; /* in place: a draw reads the counts, never another token's topic */
  p.next_item = s->next_item + w;
  p.scratch = s->rows != NULL ? s->rows + (size_t)w * s->launch.scratch_floats : NULL;
  p.token_base = s->token_base + (uint64_t)view->info.first_token;
  if (fast_draw_launch(p, s->launch, stream) != cudaSuccess) return SK_ERROR_CUDA_LAUNCH_FAILED;
  if (cudaEventRecord(s->marks[3 * k + 2], stream) != cudaSuccess) return SK_ERROR_CUDA;
  return SK_SUCCESS;
}

int make_pipeline(esca_stream *s, const sk_lda_model *m, size_t per_worker, int workers, sk_lda_error *err) {
  sk_csr_pipeline_array arrays[2];
  memset(arrays, 0, sizeof arrays);
  arrays[0].h_data = s->h_z;
  arrays[0].element_bytes = sizeof(int32_t);
  arrays[0].extent = SK_CSR_PIPELINE_PER_TOKEN;
  arrays[0].direction = SK_CSR_PIPELINE_IN_OUT;
  arrays[1].h_data = s->plan.packed;
  arrays[1].element_bytes = sizeof(int32_t);
  arrays[1].extent = SK_CSR_PIPELINE_PER_CHUNK;
  arrays[1].direction = SK_CSR_PIPELINE_IN;
  arrays[1].chunk_offsets = s->plan.offsets;
  const size_t own = worker_own_bytes(s->max_rows, s->max_tokens, s->workspace_bytes);
  const sk_status st = sk_csr_pipeline_create(s->chunks, m->corpus->doc_offsets, NULL, m->num_words, arrays, 2, workers,
                                              SK_CSR_PIPELINE_ORDER_NONE, 0, per_worker - own, &s->pipe);
  if (st != SK_SUCCESS)
    return sk_lda_fail(err, "GPU ESCA (streamed): making the pipeline: %s (%s)", sk_status_string(st),
                       sk_last_cuda_error_string());
  sk_csr_pipeline_info info;
  (void)sk_csr_pipeline_get_info(s->pipe, &info);
  s->workers = info.num_workers;
  s->allocated += (int64_t)(info.device_bytes_per_worker * (size_t)info.num_workers);
  s->stats.host_pinned_bytes += (int64_t)(info.cache_bytes + info.staging_bytes_per_worker * (size_t)info.num_workers);
  return 0;
}

// Device memory: the model, then each worker's A and workspace.
int allocate_device(esca_stream *s, int workers, sk_lda_error *err) {
  const size_t vk = (size_t)s->num_words * (size_t)s->num_topics, K = (size_t)s->num_topics;
  if (alloc(s, &s->b, vk, "B", err) || alloc(s, &s->b_next, vk, "B's next counts", err) ||
      alloc(s, &s->n_k, K, "n_k", err) || alloc(s, &s->inv, K, "inv", err) ||
      alloc(s, &s->next_item, (size_t)workers, "the schedulers' counters", err) ||
      (s->launch.on_global && alloc(s, &s->rows, s->launch.scratch_floats * (size_t)workers, "the blocks' rows", err)))
    return 1;
  for (int w = 0; w < workers; ++w)
    if (alloc(s, &s->a_offsets[w], (size_t)s->max_rows + 1, "a worker's A offsets", err) ||
        alloc(s, &s->a_topic[w], (size_t)s->max_tokens, "a worker's A topics", err) ||
        alloc(s, &s->a_count[w], (size_t)s->max_tokens, "a worker's A counts", err) ||
        alloc(s, (unsigned char **)&s->workspace[w], s->workspace_bytes, "a worker's segmented-count workspace", err))
      return 1;
  return 0;
}

}  // namespace

size_t stream_model_bytes(int32_t num_words, int32_t num_topics, int workers, size_t row_scratch_floats) {
  const size_t vk = (size_t)num_words * (size_t)num_topics, K = (size_t)num_topics;
  return 2 * vk * sizeof(int32_t) + K * (sizeof(unsigned long long) + sizeof(float)) +
         (size_t)workers * (sizeof(unsigned int) + row_scratch_floats * sizeof(float)) + 6 * kAlign;
}

namespace {

// The launch, the model's bytes and the chunk plan (s->chunks and the largest chunk's sizes), for a
// sampler of W workers; *per_worker gets each worker's share of the budget.
int plan_stream(esca_stream *s, const sk_lda_model *m, const stream_config &cfg, int workers, size_t *per_worker,
                int *budget_error, sk_lda_error *err) {
  const cudaError_t e = fast_choose_launch(cfg.gpu, m->num_topics, cfg.threads, cfg.blocks_per_sm, &s->launch);
  if (e != cudaSuccess) return sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "choosing the launch", e);
  const size_t model_bytes =
      stream_model_bytes(m->num_words, m->num_topics, workers, s->launch.on_global ? s->launch.scratch_floats : 0);
  if (model_bytes >= cfg.budget_bytes) {
    *budget_error = 1;
    return sk_lda_fail(err,
                       "GPU ESCA (streamed): the model alone needs %zu bytes of GPU memory (%.2f GB: B twice, V = %d "
                       "x K = %d, n_k and %d workers' counters) but the budget is %zu bytes (%.2f GB, %s); raise "
                       "--device-memory, use a smaller K or --device cpu",
                       model_bytes, (double)model_bytes / 1e9, (int)m->num_words, (int)m->num_topics, workers,
                       cfg.budget_bytes, (double)cfg.budget_bytes / 1e9,
                       cfg.budget_source != NULL ? cfg.budget_source : "the GPU's free memory less 1 GiB");
  }
  *per_worker = (cfg.budget_bytes - model_bytes) / (size_t)workers;
  return plan_chunks(s, m, *per_worker, cfg.budget_bytes, model_bytes, workers, budget_error, err);
}

int workers_of(const stream_config &cfg, sk_lda_error *err) {
  const int workers = cfg.workers > 0 ? cfg.workers : kStreamDefaultWorkers;
  if (workers > SK_CSR_PIPELINE_MAX_WORKERS)
    return -sk_lda_fail(err, "GPU ESCA (streamed): %d workers; at most %d", workers, SK_CSR_PIPELINE_MAX_WORKERS);
  return workers;
}

}  // namespace

int stream_count_chunks(const sk_lda_model *m, const stream_config &cfg, int64_t *chunks, int *budget_error,
                        sk_lda_error *err) {
  *chunks = 0;
  *budget_error = 0;
  const int workers = workers_of(cfg, err);
  if (workers < 0) return 1;
  SK_LDA_CUDA_TRY(cudaSetDevice(cfg.gpu), "selecting the GPU");
  esca_stream s;
  memset(&s, 0, sizeof s);
  size_t per_worker = 0;
  if (plan_stream(&s, m, cfg, workers, &per_worker, budget_error, err) != 0) return 1;
  (void)sk_csr_chunk_plan_num_chunks(s.chunks, chunks);
  sk_csr_chunk_plan_destroy(s.chunks);
  return 0;
}

int stream_create(const sk_lda_model *m, const stream_config &cfg, esca_stream **out, int *budget_error,
                  sk_lda_error *err) {
  *out = NULL;
  *budget_error = 0;
  const double t0 = wall_now();
  const int workers = workers_of(cfg, err);
  if (workers < 0) return 1;
  SK_LDA_CUDA_TRY(cudaSetDevice(cfg.gpu), "selecting the GPU");
  esca_stream *s = (esca_stream *)calloc(1, sizeof *s);
  if (s == NULL) return sk_lda_fail(err, "GPU ESCA (streamed): out of host memory");
  s->gpu = cfg.gpu;
  s->num_topics = m->num_topics;
  s->num_words = m->num_words;
  s->num_docs = m->num_docs;
  s->num_tokens = m->num_tokens;
  s->alpha = m->alpha;
  s->beta = m->beta;
  s->vbeta = (double)m->num_words * m->beta; /* esca.c's expression, as the resident sweep */
  s->seed = m->seed;
  s->token_base = cfg.token_base;
  s->b_sum = cfg.b_sum;
  // The model's bytes are planned for W workers (the pipeline makes min(W, C)).
  size_t per_worker = 0;
  cudaError_t e = cudaSuccess;
  int failed = plan_stream(s, m, cfg, workers, &per_worker, budget_error, err);
  int64_t C = 0;
  if (!failed) {
    (void)sk_csr_chunk_plan_num_chunks(s->chunks, &C);
    s->stats.chunks = C;
    int64_t *chunk_doc = (int64_t *)malloc(((size_t)C + 1) * sizeof *chunk_doc);
    if (chunk_doc == NULL) failed = sk_lda_fail(err, "GPU ESCA (streamed): out of host memory");
    for (int64_t c = 0; c < C && !failed; ++c) {
      sk_csr_chunk_info ci;
      (void)sk_csr_chunk_plan_chunk(s->chunks, c, &ci);
      chunk_doc[c] = ci.first_row;
      chunk_doc[c + 1] = ci.first_row + ci.num_rows;
    }
    // Items as the resident sweep cuts them (from the whole corpus): cut from one chunk, they would be
    // C times smaller and each would build its word's row and tree for C times fewer draws; the
    // workers' concurrent chunks keep the GPU busy where one chunk has fewer items than blocks.
    const int32_t item_tokens =
        cfg.item_tokens > 0 ? cfg.item_tokens : fast_default_item_tokens(m->num_tokens, s->launch);
    if (!failed)
      failed = sk_lda_stream_plan_build(m->corpus, chunk_doc, C, item_tokens, cfg.host_threads, &s->plan, err);
    free(chunk_doc);
  }
  if (!failed) {
    const size_t plan_bytes = (size_t)s->plan.offsets[C] * sizeof(int32_t);
    if (plan_bytes > 0) {
      e = cudaHostRegister(s->plan.packed, plan_bytes, cudaHostRegisterDefault);
      if (e != cudaSuccess) failed = sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "pinning the chunks' plans", e);
      else s->plan_registered = 1;
    }
    s->stats.host_pinned_bytes += (int64_t)plan_bytes;
  }
  if (!failed) {
    e = cudaHostAlloc((void **)&s->h_z, ((size_t)m->num_tokens > 0 ? (size_t)m->num_tokens : 1) * sizeof *s->h_z,
                      cudaHostAllocDefault);
    if (e != cudaSuccess) {
      s->h_z = NULL;
      failed = sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "allocating pinned host memory for z", e);
    } else {
      memcpy(s->h_z, m->z, (size_t)m->num_tokens * sizeof *s->h_z);
      s->stats.host_pinned_bytes += (int64_t)((size_t)m->num_tokens * sizeof *s->h_z);
    }
  }
  if (!failed) failed = make_pipeline(s, m, per_worker, workers, err);
  if (!failed) failed = allocate_device(s, s->workers, err);
  if (!failed) {
    const size_t vk = (size_t)m->num_words * (size_t)m->num_topics;
    static_assert(sizeof(unsigned long long) == sizeof(int64_t), "n_k is copied as it is");
    if (vk > 0) {
      e = cudaMemcpy(s->b, m->n_vk, vk * sizeof *s->b, cudaMemcpyHostToDevice);
      if (e == cudaSuccess) e = cudaMemset(s->b_next, 0, vk * sizeof *s->b_next);
    }
    if (e == cudaSuccess)
      e = cudaMemcpy(s->n_k, m->n_k, (size_t)m->num_topics * sizeof *s->n_k, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) failed = sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "copying B and n_k", e);
  }
  if (!failed) {
    s->marks = (cudaEvent_t *)calloc((size_t)(3 * C > 0 ? 3 * C : 1), sizeof *s->marks);
    if (s->marks == NULL) failed = sk_lda_fail(err, "GPU ESCA (streamed): out of host memory");
    for (int64_t i = 0; i < 3 * C && !failed; ++i) {
      e = cudaEventCreate(&s->marks[i]);
      if (e != cudaSuccess) failed = sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "creating the timing events", e);
      else s->marks_made = i + 1;
    }
    for (int i = 0; i < 4 && !failed; ++i) {
      e = cudaEventCreate(&s->model_marks[i]);
      if (e != cudaSuccess) failed = sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "creating the timing events", e);
      else s->model_marks_made = i + 1;
    }
    if (!failed) {
      e = cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming);
      if (e != cudaSuccess) {
        s->ready = NULL;
        failed = sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "creating the sweep's event", e);
      }
    }
  }
  if (failed) {
    stream_destroy(s);
    return 1;
  }
  s->stats.workers = s->workers;
  s->stats.device_bytes = s->allocated;
  s->stats.prepare_seconds = wall_now() - t0;
  *out = s;
  return 0;
}

int stream_sweep(esca_stream *s, uint64_t iteration, sk_lda_error *err) {
  SK_LDA_CUDA_TRY(cudaSetDevice(s->gpu), "selecting the GPU");
  const double t0 = wall_now();
  const size_t vk = (size_t)s->num_words * (size_t)s->num_topics;
  SK_LDA_CUDA_TRY(cudaEventRecord(s->model_marks[0], 0), "timing the sweep");
  SK_LDA_CUDA_TRY(fast_inv_launch(s->n_k, s->num_topics, s->vbeta, s->inv, 0), "computing inv");
  SK_LDA_CUDA_TRY(cudaEventRecord(s->model_marks[1], 0), "timing the sweep");
  SK_LDA_CUDA_TRY(cudaEventRecord(s->ready, 0), "ordering the sweep");
  s->iteration = iteration;
  int64_t done = 0;
  const sk_status st = sk_csr_pipeline_run(s->pipe, run_chunk, s, &done);
  if (st != SK_SUCCESS)
    return sk_lda_fail(err, "GPU ESCA (streamed): sweep %llu stopped after %lld of %lld chunks: %s (%s)",
                       (unsigned long long)iteration, (long long)done, (long long)s->stats.chunks, sk_status_string(st),
                       sk_last_cuda_error_string());
  SK_LDA_CUDA_TRY(cudaEventRecord(s->model_marks[2], 0), "timing the sweep");
  if (s->b_sum.fn != NULL && s->b_sum.fn(s->b_sum.user, s->b_next, vk, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaMemsetAsync(s->n_k, 0, (size_t)s->num_topics * sizeof *s->n_k, 0), "zeroing n_k");
  SK_LDA_CUDA_TRY(fast_topic_totals_launch(s->b_next, s->num_words, s->num_topics, s->n_k, 0),
                  "summing the topic totals");
  int32_t *const b = s->b;
  s->b = s->b_next;
  s->b_next = b; /* zeroed now, for the next sweep's counts */
  SK_LDA_CUDA_TRY(cudaMemsetAsync(s->b_next, 0, vk * sizeof *s->b_next, 0), "zeroing B's next counts");
  SK_LDA_CUDA_TRY(cudaEventRecord(s->model_marks[3], 0), "timing the sweep");
  SK_LDA_CUDA_TRY(cudaDeviceSynchronize(), "running the sweep");
  float ms = 0.0f;
  for (int64_t c = 0; c < s->stats.chunks; ++c) {
    SK_LDA_CUDA_TRY(cudaEventElapsedTime(&ms, s->marks[3 * c], s->marks[3 * c + 1]), "timing the sweep");
    s->stats.a_seconds += 1e-3 * ms;
    SK_LDA_CUDA_TRY(cudaEventElapsedTime(&ms, s->marks[3 * c + 1], s->marks[3 * c + 2]), "timing the sweep");
    s->stats.sample_seconds += 1e-3 * ms;
  }
  SK_LDA_CUDA_TRY(cudaEventElapsedTime(&ms, s->model_marks[0], s->model_marks[1]), "timing the sweep");
  s->stats.tables_seconds += 1e-3 * ms;
  SK_LDA_CUDA_TRY(cudaEventElapsedTime(&ms, s->model_marks[2], s->model_marks[3]), "timing the sweep");
  s->stats.b_seconds += 1e-3 * ms;
  sk_csr_pipeline_info info;
  (void)sk_csr_pipeline_get_info(s->pipe, &info);
  s->stats.h2d_bytes += (double)info.last_h2d_bytes;
  s->stats.d2h_bytes += (double)info.last_d2h_bytes;
  s->stats.sweeps += 1;
  s->stats.wall_seconds += wall_now() - t0;
  return 0;
}

int stream_to_host(esca_stream *s, sk_lda_model *m, int threads, sk_lda_error *err) {
  if (m->num_topics != s->num_topics || m->num_words != s->num_words || m->num_docs != s->num_docs ||
      m->num_tokens != s->num_tokens)
    return sk_lda_fail(err, "GPU ESCA (streamed) to host: the model's shape differs from the sampler's");
  SK_LDA_CUDA_TRY(cudaSetDevice(s->gpu), "selecting the GPU");
  const sk_status st = sk_csr_pipeline_download(s->pipe); /* resident mode: z from the device */
  if (st != SK_SUCCESS)
    return sk_lda_fail(err, "GPU ESCA (streamed) to host: copying z: %s (%s)", sk_status_string(st),
                       sk_last_cuda_error_string());
  memcpy(m->z, s->h_z, (size_t)s->num_tokens * sizeof *m->z);
  return sk_lda_model_recount(m, threads, err);
}

void stream_get_stats(const esca_stream *s, sk_lda_esca_gpu_stats *out) {
  memset(out, 0, sizeof *out);
  if (s != NULL) *out = s->stats;
}

void stream_destroy(esca_stream *s) {
  if (s == NULL) return;
  (void)cudaSetDevice(s->gpu);
  sk_csr_pipeline_destroy(s->pipe); /* waits for its workers first */
  sk_csr_chunk_plan_destroy(s->chunks);
  void *const all[] = {s->b, s->b_next, s->n_k, s->inv, s->next_item, s->rows};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) cudaFree(all[i]);
  for (int w = 0; w < SK_CSR_PIPELINE_MAX_WORKERS; ++w) {
    cudaFree(s->a_offsets[w]);
    cudaFree(s->a_topic[w]);
    cudaFree(s->a_count[w]);
    cudaFree(s->workspace[w]);
  }
  for (int64_t i = 0; i < s->marks_made; ++i) (void)cudaEventDestroy(s->marks[i]);
  free(s->marks);
  for (int i = 0; i < s->model_marks_made; ++i) (void)cudaEventDestroy(s->model_marks[i]);
  if (s->ready != NULL) (void)cudaEventDestroy(s->ready);
  if (s->plan_registered) (void)cudaHostUnregister(s->plan.packed);
  sk_lda_stream_plan_free(&s->plan);
  if (s->h_z != NULL) (void)cudaFreeHost(s->h_z);
  free(s);
}

}  // namespace sk_lda_gpu
