// GPU ESCA with the corpus streamed (esca_streamed.h): the packed PDOW plans, the CSR pipeline's
// workers, each chunk's A rebuild and draws on its worker's stream, the sweep around them. The chunk
// plan for a budget is esca_stream_plan.cu; the state and the epilogue gpu_state.cu.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/esca_stream_plan.cuh"
#include "gpu/esca_streamed.h"
#include "gpu/gpu_sampler.cuh"
#include "samplekit/csr_pipeline.h"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"
#include "stream_plan.h"

#define SK_EX_CUDA_SCOPE "GPU ESCA (streamed)"
#include "sk_ex_cuda_check.cuh"
#include "sk_ex_clock.h"

namespace sk_lda_gpu {
namespace {

// And kStateTouched on one GPU (the draws count into B and mark what they count: V K x 4 bytes fewer than
// the next counts, which is room for larger chunks), kStateNext for a rank (the ranks sum the next counts).
constexpr unsigned kParts = kStateInverse | kStateSegments;

unsigned parts_for(const sk_lda_rank_link *rank) { return kParts | (rank == NULL ? kStateTouched : kStateNext); }

struct streamed {
  gpu_sampler base;       // its state is the model part: B, its next counts or marks, n_k, the inverse
  stream_layout layout;   // the launch, the chunks, the largest chunk's sizes
  int workers;            // W' = the pipeline's workers
  int host_threads;       // OpenMP threads for the host work (the device's)
  unsigned int *next_item;  // one counter per worker
  float *rows;              // W' x shape.scratch_floats: the tails of the blocks' rows when K is large, else NULL
  // Each worker's A and the segmented count's workspace, sized for the largest chunk.
  int32_t *a_offsets[SK_CSR_PIPELINE_MAX_WORKERS];
  uint32_t *a_topic[SK_CSR_PIPELINE_MAX_WORKERS], *a_count[SK_CSR_PIPELINE_MAX_WORKERS];
  void *workspace[SK_CSR_PIPELINE_MAX_WORKERS];
  // The host side.
  int32_t *h_z;  // T topics, pinned
  sk_lda_stream_plan plan;
  int plan_registered;
  sk_csr_pipeline *pipe;
  cudaEvent_t ready;   // the sweep's inverse, before any chunk's draws
  cudaEvent_t *marks;  // 3 per chunk: before A, before the draws, after them
  int64_t marks_made;
  cudaEvent_t model_marks[4];
  int model_marks_made;
  uint64_t iteration;  // the sweep being run, for the chunk function
};

const char *budget_source(const sk_lda_device *device) {
  return device->device_memory > 0 ? "--device-memory, capped by the free memory" : NULL;
}

// The chunk function of the pipeline (csr_pipeline.h): A from the chunk's z, then its draws.
sk_status run_chunk(const sk_csr_chunk_view *view, sk_stream stream_handle, void *user) {
  streamed *s = (streamed *)user;
  const lda_state &st = s->base.state;
  cudaStream_t stream = (cudaStream_t)stream_handle;
  const int w = view->worker;
  const int64_t k = view->index;
  const int32_t rows = (int32_t)view->info.num_rows, n = (int32_t)view->info.num_tokens;
  const int32_t G = s->plan.num_groups[k], I = s->plan.num_items[k];
  int32_t *z = (int32_t *)view->d_arrays[0];
  const int32_t *packed = (const int32_t *)view->d_arrays[1];
  if (cudaStreamWaitEvent(stream, s->ready, 0) != cudaSuccess ||
      cudaEventRecord(s->marks[3 * k], stream) != cudaSuccess)
    return SK_ERROR_CUDA;
  sk_status sc = sk_segmented_count_u32(view->d_row_offsets, rows, n, (const uint32_t *)z, NULL, st.num_topics,
                                        s->a_offsets[w], s->a_topic[w], s->a_count[w], n, s->workspace[w],
                                        s->layout.workspace_bytes, stream);
  if (sc != SK_SUCCESS) return sc;
  if (cudaEventRecord(s->marks[3 * k + 1], stream) != cudaSuccess ||
      cudaMemsetAsync(s->next_item + w, 0, sizeof *s->next_item, stream) != cudaSuccess)
    return SK_ERROR_CUDA;
  draw_params p;
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
  p.a_packed = nullptr;  // a chunk's A is not packed
  draw_set_model(&p, st.inv, state_next_counts(st), st.touched, s->layout.shape, st.num_topics, st.alpha,
                 state_alpha_f(st), st.beta, st.seed, s->iteration);
  p.z = z; /* in place: a draw reads the counts, never another token's topic */
  p.next_item = s->next_item + w;
  p.scratch = s->rows != NULL ? s->rows + (size_t)w * s->layout.shape.scratch_floats : NULL;
  p.token_base = st.token_base + (uint64_t)view->info.first_token;
  p.seg = segments_make_view(st.seg);
  if (draw_launch(p, s->layout.shape, stream) != cudaSuccess) return SK_ERROR_CUDA_LAUNCH_FAILED;
  if (cudaEventRecord(s->marks[3 * k + 2], stream) != cudaSuccess) return SK_ERROR_CUDA;
  return SK_SUCCESS;
}

// The host's plans: the chunks' packed PDOW plans, pinned by registration, and z in pinned memory.
int plan_host(streamed *s, const sk_lda_model *m, sk_ex_error *err) {
  int64_t C = 0;
  (void)sk_csr_chunk_plan_num_chunks(s->layout.chunks, &C);
  s->base.stats.chunks = C;
  int64_t *chunk_doc = (int64_t *)malloc(((size_t)C + 1) * sizeof *chunk_doc);
  if (chunk_doc == NULL) return sk_ex_fail(err, "GPU ESCA (streamed): out of host memory");
  chunk_doc[0] = 0;
  for (int64_t c = 0; c < C; ++c) {
    sk_csr_chunk_info ci;
    (void)sk_csr_chunk_plan_chunk(s->layout.chunks, c, &ci);
    chunk_doc[c] = ci.first_row;
    chunk_doc[c + 1] = ci.first_row + ci.num_rows;
  }
  // Items as the resident sweep cuts them (from the whole corpus): cut from one chunk, they would be
  // C times smaller and each would build its word's row and tree for C times fewer draws; the
  // workers' concurrent chunks keep the GPU busy where one chunk has fewer items than blocks.
  const int32_t item_tokens = draw_default_item_tokens(m->num_tokens, s->layout.shape);
  int failed = sk_lda_stream_plan_build(m->corpus, chunk_doc, C, item_tokens, s->host_threads, &s->plan, err);
  free(chunk_doc);
  const size_t plan_bytes = failed ? 0 : (size_t)s->plan.offsets[C] * sizeof(int32_t);
  if (plan_bytes > 0) {
    const cudaError_t e = cudaHostRegister(s->plan.packed, plan_bytes, cudaHostRegisterDefault);
    if (e != cudaSuccess) return sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, "pinning the chunks' plans", e);
    s->plan_registered = 1;
  }
  s->base.stats.host_pinned_bytes += (int64_t)plan_bytes;
  if (failed) return 1;
  const size_t T = (size_t)m->num_tokens;
  const cudaError_t e = cudaHostAlloc((void **)&s->h_z, (T > 0 ? T : 1) * sizeof *s->h_z, cudaHostAllocDefault);
  if (e != cudaSuccess) {
    s->h_z = NULL;
    return sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, "allocating pinned host memory for z", e);
  }
  memcpy(s->h_z, m->z, T * sizeof *s->h_z);
  s->base.stats.host_pinned_bytes += (int64_t)(T * sizeof *s->h_z);
  return 0;
}

int make_pipeline(streamed *s, const sk_lda_model *m, sk_ex_error *err) {
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
  const stream_layout &l = s->layout;
  const size_t own = stream_worker_own_bytes(l.max_rows, l.max_tokens, l.workspace_bytes);
  const sk_status st = sk_csr_pipeline_create(l.chunks, m->corpus->doc_offsets, NULL, m->num_words, arrays, 2,
                                              l.workers, SK_CSR_PIPELINE_ORDER_NONE, 0, l.per_worker - own, &s->pipe);
  if (st != SK_SUCCESS)
    return sk_ex_fail(err, "GPU ESCA (streamed): making the pipeline: %s (%s)", sk_status_string(st),
                       sk_last_cuda_error_string());
  sk_csr_pipeline_info info;
  (void)sk_csr_pipeline_get_info(s->pipe, &info);
  s->workers = info.num_workers;
  s->base.allocated += (int64_t)(info.device_bytes_per_worker * (size_t)info.num_workers);
  s->base.stats.host_pinned_bytes +=
      (int64_t)(info.cache_bytes + info.staging_bytes_per_worker * (size_t)info.num_workers);
  return 0;
}

// Device memory: the state's model part, the counters and rows, then each worker's A and workspace.
int allocate_device(streamed *s, sk_ex_error *err) {
  device_arrays list;
  state_arrays(&s->base.state, &list);
  const int W = s->workers;
  list.add(&s->next_item, (size_t)W, "the schedulers' counters");
  if (s->layout.shape.on_global) list.add(&s->rows, s->layout.shape.scratch_floats * (size_t)W, "the tails of the blocks' rows");
  for (int w = 0; w < W; ++w) {
    list.add(&s->a_offsets[w], (size_t)s->layout.max_rows + 1, "a worker's A offsets");
    list.add(&s->a_topic[w], (size_t)s->layout.max_tokens, "a worker's A topics");
    list.add(&s->a_count[w], (size_t)s->layout.max_tokens, "a worker's A counts");
    list.add((unsigned char **)&s->workspace[w], s->layout.workspace_bytes, "a worker's segmented-count workspace");
  }
  return list.allocate(&s->base.allocated, err);
}

int make_events(streamed *s, sk_ex_error *err) {
  const int64_t C = s->base.stats.chunks;
  s->marks = (cudaEvent_t *)calloc((size_t)(3 * C > 0 ? 3 * C : 1), sizeof *s->marks);
  if (s->marks == NULL) return sk_ex_fail(err, "GPU ESCA (streamed): out of host memory");
  for (int64_t i = 0; i < 3 * C; ++i) {
    SK_EX_CUDA_TRY(cudaEventCreate(&s->marks[i]), "creating the timing events");
    s->marks_made = i + 1;
  }
  for (int i = 0; i < 4; ++i) {
    SK_EX_CUDA_TRY(cudaEventCreate(&s->model_marks[i]), "creating the timing events");
    s->model_marks_made = i + 1;
  }
  const cudaError_t e = cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming);
  if (e != cudaSuccess) {
    s->ready = NULL;
    return sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, "creating the sweep's event", e);
  }
  return 0;
}

// The device part of a sweep's time (summed over chunks, which overlap each other and the copies).
int add_times(streamed *s, sk_ex_error *err) {
  sk_lda_sampler_stats &t = s->base.stats;
  float ms = 0.0f;
  for (int64_t c = 0; c < t.chunks; ++c) {
    SK_EX_CUDA_TRY(cudaEventElapsedTime(&ms, s->marks[3 * c], s->marks[3 * c + 1]), "timing the sweep");
    t.a_seconds += 1e-3 * ms;
    SK_EX_CUDA_TRY(cudaEventElapsedTime(&ms, s->marks[3 * c + 1], s->marks[3 * c + 2]), "timing the sweep");
    t.sample_seconds += 1e-3 * ms;
  }
  SK_EX_CUDA_TRY(cudaEventElapsedTime(&ms, s->model_marks[0], s->model_marks[1]), "timing the sweep");
  t.tables_seconds += 1e-3 * ms;
  SK_EX_CUDA_TRY(cudaEventElapsedTime(&ms, s->model_marks[2], s->model_marks[3]), "timing the sweep");
  t.b_seconds += 1e-3 * ms;
  sk_csr_pipeline_info info;
  (void)sk_csr_pipeline_get_info(s->pipe, &info);
  t.h2d_bytes += (double)info.last_h2d_bytes;
  t.d2h_bytes += (double)info.last_d2h_bytes;
  return 0;
}

// The sweep: the inverse, every chunk through the pipeline, the epilogue.
int sweep(sk_lda_sampler *sampler, uint64_t iteration, sk_ex_error *err) {
  streamed *s = (streamed *)sampler->state;
  SK_EX_CUDA_TRY(cudaSetDevice(s->base.state.gpu), "selecting the GPU");
  const double t0 = sk_ex_now();
  SK_EX_CUDA_TRY(cudaEventRecord(s->model_marks[0], 0), "timing the sweep");
  if (state_inverse(&s->base.state, err) != 0) return 1;
  if (state_segments(&s->base.state, err) != 0) return 1;
  SK_EX_CUDA_TRY(cudaEventRecord(s->model_marks[1], 0), "timing the sweep");
  SK_EX_CUDA_TRY(cudaEventRecord(s->ready, 0), "ordering the sweep");
  s->iteration = iteration;
  int64_t done = 0;
  const sk_status st = sk_csr_pipeline_run(s->pipe, run_chunk, s, &done);
  if (st != SK_SUCCESS)
    return sk_ex_fail(err, "GPU ESCA (streamed): sweep %llu stopped after %lld of %lld chunks: %s (%s)",
                       (unsigned long long)iteration, (long long)done, (long long)s->base.stats.chunks,
                       sk_status_string(st), sk_last_cuda_error_string());
  SK_EX_CUDA_TRY(cudaEventRecord(s->model_marks[2], 0), "timing the sweep");
  if (state_epilogue(&s->base.state, err) != 0) return 1;
  SK_EX_CUDA_TRY(cudaEventRecord(s->model_marks[3], 0), "timing the sweep");
  SK_EX_CUDA_TRY(cudaDeviceSynchronize(), "running the sweep");
  if (add_times(s, err) != 0) return 1;
  s->base.stats.sweeps += 1;
  s->base.stats.wall_seconds += sk_ex_now() - t0;
  return 0;
}

// z into model m, then A, B and n_k rebuilt from it on the host.
int to_model(gpu_sampler *g, sk_lda_model *m, sk_ex_error *err) {
  streamed *s = (streamed *)g;
  SK_EX_CUDA_TRY(cudaSetDevice(g->state.gpu), "selecting the GPU");
  const sk_status st = sk_csr_pipeline_download(s->pipe); /* resident mode: z from the device */
  if (st != SK_SUCCESS)
    return sk_ex_fail(err, "GPU ESCA (streamed) to host: copying z: %s (%s)", sk_status_string(st),
                       sk_last_cuda_error_string());
  memcpy(m->z, s->h_z, (size_t)g->state.num_tokens * sizeof *m->z);
  return sk_lda_model_recount(m, s->host_threads, err);
}

void stats(const sk_lda_sampler *sampler, sk_lda_sampler_stats *out) {
  const streamed *s = (const streamed *)sampler->state;
  *out = s->base.stats;
  out->device_bytes_peak = s->base.allocated;
}

void free_streamed(streamed *s) {
  if (s == NULL) return;
  (void)cudaSetDevice(s->base.state.gpu);
  sk_csr_pipeline_destroy(s->pipe); /* waits for its workers first */
  stream_layout_free(&s->layout);
  release(&s->base);
  cudaFree(s->next_item);
  cudaFree(s->rows);
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

void destroy(sk_lda_sampler *sampler) { free_streamed((streamed *)sampler->state); }

// create's work once s is begun: the plan for the budget, the host plans, the pipeline, the device.
int build(streamed *s, const sk_lda_model *m, const sk_lda_device *device, int workers, sk_ex_error *err) {
  uint64_t budget = 0;
  if (sk_lda_device_budget(device, &budget, NULL, err) != 0) return 1;
  sk_lda_sampler_fit fit;
  if (stream_plan(&s->base.state, m, workers, budget, budget_source(device), 0, &s->layout, &fit, err) != 0) return 1;
  if (!fit.fits) return sk_ex_fail(err, "%s", fit.why), SK_LDA_SAMPLER_BUDGET_ERROR;
  if (plan_host(s, m, err) != 0 || make_pipeline(s, m, err) != 0 || allocate_device(s, err) != 0 ||
      state_upload(&s->base.state, m, err) != 0 || make_events(s, err) != 0)
    return 1;
  s->base.stats.workers = s->workers;
  return 0;
}

}  // namespace
}  // namespace sk_lda_gpu

using namespace sk_lda_gpu;

extern "C" int sk_lda_esca_streamed_plan(const sk_lda_model *m, const sk_lda_device *device,
                                         const sk_lda_esca_streamed_options *o, const sk_lda_rank_link *rank,
                                         uint64_t budget, sk_lda_sampler_fit *fit, int64_t *chunks, sk_ex_error *err) {
  if (chunks != NULL) *chunks = 0;
  if (m == NULL || m->corpus == NULL || device == NULL || fit == NULL)
    return sk_ex_fail(err, "GPU ESCA (streamed) plan: a pointer is NULL");
  int workers = 0;
  if (stream_workers(o != NULL ? o->workers : 0, &workers, err) != 0) return 1;
  lda_state st;  // its shape, parts and segment sizes only: nothing is allocated
  if (state_init(&st, m, device->gpu, parts_for(rank), rank, err) != 0) return 1;
  stream_layout l;
  if (stream_plan(&st, m, workers, budget, budget_source(device), 1, &l, fit, err) != 0) return 1;
  if (fit->fits && chunks != NULL) (void)sk_csr_chunk_plan_num_chunks(l.chunks, chunks);
  stream_layout_free(&l);
  return 0;
}

extern "C" int sk_lda_esca_streamed_fits(const sk_lda_model *m, const sk_lda_device *device,
                                         const sk_lda_esca_streamed_options *o, const sk_lda_rank_link *rank,
                                         uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  return sk_lda_esca_streamed_plan(m, device, o, rank, budget, fit, NULL, err);
}

extern "C" int sk_lda_esca_streamed_create(sk_lda_model *m, const sk_lda_device *device,
                                           const sk_lda_esca_streamed_options *o, const sk_lda_rank_link *rank,
                                           sk_lda_sampler **out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "GPU ESCA (streamed): out is NULL");
  *out = NULL;
  if (m == NULL || m->z == NULL || m->corpus == NULL || device == NULL)
    return sk_ex_fail(err, "GPU ESCA (streamed): model NULL or not initialised");
  int workers = 0;
  if (stream_workers(o != NULL ? o->workers : 0, &workers, err) != 0) return 1;
  const double t0 = sk_ex_now();
  streamed *s = (streamed *)calloc(1, sizeof *s);
  if (s == NULL) return sk_ex_fail(err, "GPU ESCA (streamed): out of host memory");
  char name[256];
  int rc = begin(&s->base, device, name, sizeof name, err);
  s->host_threads = device->threads;
  if (rc == 0) rc = state_init(&s->base.state, m, device->gpu, parts_for(rank), rank, err);
  if (rc == 0) rc = build(s, m, device, workers, err);
  if (rc == 0) {
    s->base.streamed = 1;
    s->base.to_model = to_model;
    s->base.stats.prepare_seconds = sk_ex_now() - t0;
    snprintf(s->base.description, sizeof s->base.description,
             "ESCA (GPU %d: %s; streamed in %lld chunks by %d workers)", device->gpu, name,
             (long long)s->base.stats.chunks, s->workers);
    s->base.ops.sweep = sweep;
    s->base.ops.destroy = destroy;
    s->base.ops.stats = stats;
    rc = wrap(&s->base, "esca", m, device, out, err);
  }
  if (rc != 0) {
    free_streamed(s);
    return rc == SK_LDA_SAMPLER_BUDGET_ERROR ? rc : 1;
  }
  return 0;
}
