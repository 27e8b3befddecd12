// How the streamed GPU ESCA sampler (esca_streamed.h) cuts its corpus for a budget (esca_stream_plan.cu),
// before anything is allocated: the draw kernel's launch, the model's device bytes (B and its next counts
// or its marks, n_k, the inverse, the word segments, W counters, W blocks' rows for large K), each worker's share of the rest, and samplekit's
// chunk plan (csr_chunker.h) of chunks whose worker buffers fit that share. What does not fit is an
// answer (fit->fits 0, why naming the bytes), not an error.
#ifndef SK_LDA_ESCA_STREAM_PLAN_CUH
#define SK_LDA_ESCA_STREAM_PLAN_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpu/esca_draw.cuh"
#include "gpu/gpu_state.cuh"
#include "model.h"
#include "samplekit/csr_chunker.h"
#include "sampler_table.h"

namespace sk_lda_gpu {

struct stream_layout {
  draw_shape shape;
  int workers;            // W the model is planned for (the pipeline makes min(W, chunks))
  size_t model_bytes;     // the model's device bytes (stream_model_bytes)
  size_t per_worker;      // each worker's share of the budget
  sk_csr_chunk_plan *chunks;  // owned; NULL when the budget does not fit
  int64_t max_rows, max_tokens;  // the largest chunk's documents and tokens
  size_t workspace_bytes;        // the segmented count's workspace for the largest chunk
};

// Alignment of the regions of a worker's buffer.
constexpr size_t kStreamAlign = 256;

// W from the options (0: SK_LDA_STREAM_DEFAULT_WORKERS); fails outside 1 .. 16.
int stream_workers(int requested, int *workers, sk_ex_error *err);

// Device bytes of the model part for W workers: the state's arrays (state_arrays(): B and its next counts
// or marks, n_k, the inverse, the word segments, the priors), the counters and rows, and each array's
// alignment.
size_t stream_model_bytes(lda_state *st, int workers, size_t row_scratch_floats);

// Our part of a worker's buffer (A's offsets, topics and counts, the segmented count's workspace) for a
// chunk of at most `rows` documents and `tokens` tokens.
size_t stream_worker_own_bytes(int64_t rows, int64_t tokens, size_t workspace_bytes);

// The launch, the model's bytes and the chunk plan of model m for state st (state_init()'d for m: its
// GPU, parts and segment sizes; nothing allocated) with W workers and `budget` bytes (budget_source names where the budget comes from in messages; NULL: the free memory). Returns
// 0 with out->chunks set and fit->fits 1, or 0 with fit->fits 0 and why; non-zero with err on errors.
// fit->needed_bytes is the least budget the planner accepts when want_least is set and it does not fit
// (bisection over the workers' share), else the budget when it fits.
int stream_plan(lda_state *st, const sk_lda_model *m, int workers, uint64_t budget, const char *budget_source,
                int want_least, stream_layout *out, sk_lda_sampler_fit *fit, sk_ex_error *err);

void stream_layout_free(stream_layout *l);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_ESCA_STREAM_PLAN_CUH
