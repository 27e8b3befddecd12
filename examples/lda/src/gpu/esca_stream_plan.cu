// The streamed GPU ESCA sampler's chunk plan for a budget (esca_stream_plan.cuh).
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "gpu/esca_stream_plan.cuh"
#include "gpu/esca_streamed.h"
#include "gpu/gpu_state.cuh"
#include "samplekit/segmented_count.h"
#include "stream_plan.h"

#define SK_EX_CUDA_SCOPE "GPU ESCA (streamed)"
#include "sk_ex_cuda_check.cuh"

namespace sk_lda_gpu {
namespace {

// Regions of a worker's buffer: the pipeline's (scratch, offsets, tokens, z, plan) and ours (A's
// offsets, topics, counts, the segmented count's workspace); each may waste kStreamAlign - 1 bytes.
constexpr size_t kRegions = 9;
// Bytes per token the cost model charges: z (4), the packed plan (at most 24), A's pairs (8) and the
// segmented count's tiles (1, more than its 12 bytes per tile of 1,024 or 8,192 positions).
constexpr size_t kBytesPerToken = 4 + SK_LDA_STREAM_PLAN_MAX_BYTES_PER_TOKEN + 8 + 1;
// Bytes per document: the pipeline's rebased offset (4), A's offset (4), the segmented count's (4).
constexpr size_t kBytesPerDoc = 12;

// What a chunk plan attempt gives: it fits, the budget is short (why says how), or an error.
enum { kFits = 0, kError = 1, kShort = 2 };

size_t align_up(size_t x) { return (x + kStreamAlign - 1) / kStreamAlign * kStreamAlign; }

// The pipeline's part, bounded with the plan's largest size per token.
size_t worker_pipe_bytes(int64_t rows, int64_t tokens) {
  return align_up(4 * ((size_t)rows + 1)) + align_up(4 * (size_t)tokens) +
         align_up(SK_LDA_STREAM_PLAN_MAX_BYTES_PER_TOKEN * (size_t)tokens + SK_LDA_STREAM_PLAN_FIXED_BYTES) +
         kStreamAlign;
}

// The largest chunk of a plan: its documents and tokens.
void largest_chunk(const sk_csr_chunk_plan *plan, int64_t *rows, int64_t *tokens) {
  int64_t C = 0;
  *rows = *tokens = 0;
  (void)sk_csr_chunk_plan_num_chunks(plan, &C);
  for (int64_t c = 0; c < C; ++c) {
    sk_csr_chunk_info ci;
    (void)sk_csr_chunk_plan_chunk(plan, c, &ci);
    if (ci.num_rows > *rows) *rows = ci.num_rows;
    if (ci.num_tokens > *tokens) *tokens = ci.num_tokens;
  }
}

// The fewest balanced chunks whose worker buffers fit `per_worker` bytes (l->chunks and the largest
// chunk's sizes). The cost model is linear (csr_chunker.h) but the segmented count's workspace and the
// alignment are not quite, so the budget given to the chunker shrinks until the largest chunk really
// fits. kShort, with why, when no plan fits.
int chunks_at(const sk_lda_model *m, size_t per_worker, uint64_t total_budget, stream_layout *l, char *why,
              size_t cap, sk_ex_error *err) {
  // A chunk's fixed bytes: the regions' alignment, the workspace of the smallest count, and slack for
  // the workspace's own alignment (so that the estimate bounds the real need and the loop below is a
  // safety net, not the rule).
  size_t ws0 = 0;
  const sk_status ws0_st = sk_segmented_count_workspace_size(1, 1, m->num_topics, &ws0);
  if (ws0_st != SK_SUCCESS)
    return sk_ex_fail(err, "GPU ESCA (streamed): sizing the segmented count: %s", sk_status_string(ws0_st));
  const size_t fixed = (kRegions + 4) * kStreamAlign + ws0;
  size_t budget = per_worker;
  // A chunk's tokens and documents within what samplekit's segmented count takes: a budget past that many
  // tokens' (or documents') bytes would let a chunk hold more (only with tens of GB a worker).
  const size_t most_tokens = (size_t)kBytesPerToken * (size_t)SK_SEGMENTED_COUNT_MAX_ITEMS;
  const size_t most_docs = (size_t)kBytesPerDoc * (size_t)SK_SEGMENTED_COUNT_MAX_SEGMENTS;
  const size_t most = fixed + (most_tokens < most_docs ? most_tokens : most_docs);
  if (budget > most) budget = most;
  for (int attempt = 0; attempt < 32; ++attempt) {
    int64_t bad_row = -1;
    size_t bad_bytes = 0;
    sk_csr_chunk_plan *plan = NULL;
    const sk_status st = sk_csr_chunk_plan_create(m->corpus->doc_offsets, m->num_docs, kBytesPerToken, kBytesPerDoc,
                                                  fixed, budget, &plan, &bad_row, &bad_bytes);
    if (st == SK_ERROR_INVALID_VALUE && bad_bytes != 0) {
      if (bad_row < 0) {
        snprintf(why, cap,
                 "GPU ESCA (streamed): the budget leaves %zu bytes for each of %d workers, less than a chunk's "
                 "fixed %zu bytes; raise --device-memory or use fewer --workers",
                 per_worker, l->workers, fixed);
        return kShort;
      }
      const long long n = (long long)(m->corpus->doc_offsets[bad_row + 1] - m->corpus->doc_offsets[bad_row]);
      snprintf(why, cap,
               "GPU ESCA (streamed): document %lld has %lld tokens; a chunk of it alone needs %zu bytes of GPU memory, "
               "but each of the %d workers has %zu (the budget of %llu bytes less the model's %zu, shared by the "
               "workers); raise --device-memory or use fewer --workers",
               (long long)bad_row, n, bad_bytes, l->workers, per_worker, (unsigned long long)total_budget,
               l->model_bytes);
      return kShort;
    }
    if (st != SK_SUCCESS) return sk_ex_fail(err, "GPU ESCA (streamed): planning the chunks: %s", sk_status_string(st));
    int64_t rows = 0, tokens = 0;
    largest_chunk(plan, &rows, &tokens);
    size_t ws = 0;
    const sk_status wst = sk_segmented_count_workspace_size((int32_t)rows, (int32_t)tokens, m->num_topics, &ws);
    if (wst != SK_SUCCESS) {
      sk_csr_chunk_plan_destroy(plan);
      return sk_ex_fail(err, "GPU ESCA (streamed): sizing the segmented count: %s", sk_status_string(wst));
    }
    const size_t need = stream_worker_own_bytes(rows, tokens, ws) + worker_pipe_bytes(rows, tokens);
    if (need <= per_worker) {
      l->chunks = plan;
      l->max_rows = rows;
      l->max_tokens = tokens;
      l->workspace_bytes = ws;
      return kFits;
    }
    sk_csr_chunk_plan_destroy(plan);
    const size_t over = need - per_worker + need / 64;  // shrink by the excess and a little more
    if (over >= budget) break;
    budget -= over;
  }
  snprintf(why, cap, "GPU ESCA (streamed): no chunk plan fits %zu bytes per worker (%d workers); raise --device-memory",
           per_worker, l->workers);
  return kShort;
}

// The least share per worker that chunks_at() accepts, by bisection from one that holds the whole
// corpus in one chunk: the least budget is then the model's bytes and W such shares.
int least_share(const sk_lda_model *m, stream_layout *l, size_t *share, sk_ex_error *err) {
  size_t ws = 0;
  const int64_t T = m->num_tokens, D = m->num_docs;
  const int32_t docs = (int32_t)(D < SK_SEGMENTED_COUNT_MAX_SEGMENTS ? D : SK_SEGMENTED_COUNT_MAX_SEGMENTS);
  const int32_t tokens = (int32_t)(T < SK_SEGMENTED_COUNT_MAX_ITEMS ? T : SK_SEGMENTED_COUNT_MAX_ITEMS);
  if (sk_segmented_count_workspace_size(docs, tokens, m->num_topics, &ws) != SK_SUCCESS) ws = 0;
  size_t lo = 1, hi = 2 * (stream_worker_own_bytes(D, T, ws) + worker_pipe_bytes(D, T)) + (1u << 20);
  char why[8];
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    stream_layout probe = *l;
    probe.chunks = NULL;
    const int rc = chunks_at(m, mid, 0, &probe, why, sizeof why, err);
    if (rc == kError) return 1;
    if (rc == kFits) {
      sk_csr_chunk_plan_destroy(probe.chunks);
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  *share = lo;
  return 0;
}

}  // namespace

int stream_workers(int requested, int *workers, sk_ex_error *err) {
  *workers = requested > 0 ? requested : SK_LDA_STREAM_DEFAULT_WORKERS;
  if (requested < 0 || *workers > 16)
    return sk_ex_fail(err, "GPU ESCA (streamed): %d workers; the streamed sweep takes 1 to 16", requested);
  return 0;
}

size_t stream_model_bytes(lda_state *st, int workers, size_t row_scratch_floats) {
  device_arrays list;
  state_arrays(st, &list);
  return list.bytes() + (size_t)workers * (sizeof(unsigned int) + row_scratch_floats * sizeof(float)) +
         (size_t)(list.n + 2) * kStreamAlign;
}

size_t stream_worker_own_bytes(int64_t rows, int64_t tokens, size_t workspace_bytes) {
  return align_up(4 * ((size_t)rows + 1)) + 2 * align_up(4 * (size_t)tokens) + align_up(workspace_bytes);
}

int stream_plan(lda_state *st, const sk_lda_model *m, int workers, uint64_t budget, const char *budget_source,
                int want_least, stream_layout *out, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  memset(out, 0, sizeof *out);
  memset(fit, 0, sizeof *fit);
  fit->available_bytes = budget;
  out->workers = workers;
  SK_EX_CUDA_TRY(cudaSetDevice(st->gpu), "selecting the GPU");
  SK_EX_CUDA_TRY(draw_choose_shape(st->gpu, m->num_topics, 0, 0, &out->shape), "choosing the launch");
  out->model_bytes = stream_model_bytes(st, workers, out->shape.on_global ? out->shape.scratch_floats : 0);
  const int marks = (st->parts & kStateTouched) != 0;
  int rc = kShort;
  if (out->model_bytes >= budget) {
    snprintf(fit->why, sizeof fit->why,
             "GPU ESCA (streamed): the model alone needs %zu bytes of GPU memory (%.2f GB: B and its %s, V = %d x K = %d, "
             "n_k, the word segments and %d workers' counters) but the budget is %llu bytes (%.2f GB, %s); raise --device-memory, use a "
             "smaller K or --device cpu",
             out->model_bytes, (double)out->model_bytes / 1e9, marks ? "marks" : "next counts", (int)m->num_words, (int)m->num_topics, workers,
             (unsigned long long)budget, (double)budget / 1e9,
             budget_source != NULL ? budget_source : "the GPU's free memory less 1 GiB");
  } else {
    out->per_worker = (size_t)(budget - out->model_bytes) / (size_t)workers;
    rc = chunks_at(m, out->per_worker, budget, out, fit->why, sizeof fit->why, err);
    if (rc == kError) return 1;
  }
  fit->fits = rc == kFits;
  fit->needed_bytes = budget;
  if (!fit->fits && want_least) {
    size_t share = 0;
    if (least_share(m, out, &share, err) != 0) return 1;
    fit->needed_bytes = (uint64_t)out->model_bytes + (uint64_t)workers * share;
  }
  return 0;
}

void stream_layout_free(stream_layout *l) {
  sk_csr_chunk_plan_destroy(l->chunks);
  l->chunks = NULL;
}

}  // namespace sk_lda_gpu
