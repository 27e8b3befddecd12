// What every GPU sampler shares (gpu_sampler.cu): its operations with its own log line, its state
// (gpu_state.cuh), its device bytes, its metrics context and, for the samplers whose sweep is one
// sequence on the default stream, the sweep's clock. Each sampler's struct starts with a gpu_sampler
// (its `base`), so that the shared operations find it from the seam's sampler (s->state).
//
// A sweep of a resident sampler reads:
//   sweep_start(base)            the device current, mark 0
//   ... the sampler's own work:  its tables (mark 1), its draws (mark 2), its counts (the epilogue)
//   sweep_finish(base)           mark 3, A rebuilt from z, mark 4, the wait, the time of each part
#ifndef SK_LDA_GPU_SAMPLER_CUH
#define SK_LDA_GPU_SAMPLER_CUH

#include <cuda_runtime.h>

#include "gpu/gpu_sampler.h"
#include "gpu/gpu_state.cuh"
#include "gpu/metrics_gpu.h"
#include "sampler_table.h"

namespace sk_lda_gpu {

constexpr int kSweepMarks = 5;  // events around the parts of a sweep

struct gpu_sampler {
  sk_lda_sampler_ops ops;  // the sampler's, so that its description names its GPU
  char description[480];
  lda_state state;
  int64_t allocated;  // device bytes the sampler allocated (all at create)
  int streamed;       // 1: the corpus is streamed, its counts are not on the device
  // z, A, B and n_k into model m of the sampler's shape (resident samplers: state_to_model).
  int (*to_model)(gpu_sampler *g, sk_lda_model *m, sk_ex_error *err);
  // The metrics (resident samplers), made on the first evaluation; the test halves it last uploaded.
  sk_lda_gpu_metrics *metrics;
  const sk_lda_corpus *observed, *heldout;
  // The most device scratch the prior optimiser's histograms held (gpu/hyper_gpu.h; resident samplers).
  int64_t hyper_bytes_peak;
  // The sweep's clock (resident samplers).
  cudaEvent_t marks[kSweepMarks];
  int marks_made;
  sk_lda_sampler_stats stats;
};

// Starts g: zeroed, the device resolved to a GPU, the GPU's name in `name` (cap bytes) for the
// description; fails on a device that is not a GPU or a GPU that cannot be used.
int begin(gpu_sampler *g, const sk_lda_device *device, char *name, size_t cap, sk_ex_error *err);

// Fills *fit for `needed` bytes against `budget`; when they do not fit, why names both and `what`.
void fit_answer(sk_lda_sampler_fit *fit, uint64_t needed, uint64_t budget, const char *what);

// Fills *fit with a sampler that cannot run whatever the budget, and why.
void fit_cannot(sk_lda_sampler_fit *fit, uint64_t budget, const char *why);

// The sweep's events (resident samplers).
int make_marks(gpu_sampler *g, sk_ex_error *err);
// The device current and mark 0. (The seam, sk_lda_sampler_sweep(), has refused reserved iterations.)
int sweep_start(gpu_sampler *g, sk_ex_error *err);
int sweep_mark(gpu_sampler *g, int mark, sk_ex_error *err);
int sweep_finish(gpu_sampler *g, sk_ex_error *err);

// Makes *out, the seam's sampler of g: g->ops.sweep and g->ops.destroy are the caller's; to_host, the
// statistics, set_priors and, for a sampler whose counts are on the device, the metrics and the prior
// optimiser's histograms (prior_stats) are the shared ones here (a streamed sampler sets its own stats
// first). g->to_model NULL: state_to_model.
int wrap(gpu_sampler *g, const char *kind_name, sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
         sk_ex_error *err);

// Frees what the base holds (the metrics, the events, the state); the caller frees g itself.
void release(gpu_sampler *g);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_GPU_SAMPLER_CUH
