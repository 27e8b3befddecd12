// What every GPU sampler shares (gpu_sampler.cuh) and the questions any of them answers (gpu_sampler.h).
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_sampler.cuh"
#include "gpu/hyper_gpu.h"

#define SK_EX_CUDA_SCOPE "GPU sampler"
#include "sk_ex_cuda_check.cuh"

namespace sk_lda_gpu {
namespace {

gpu_sampler *base_of(sk_lda_sampler *s) { return (gpu_sampler *)s->state; }

int to_host(sk_lda_sampler *s, sk_ex_error *err) {
  gpu_sampler *g = base_of(s);
  return g->to_model(g, s->model, err);
}

int resident_to_model(gpu_sampler *g, sk_lda_model *m, sk_ex_error *err) { return state_to_model(&g->state, m, err); }

// The metrics context, made on first use.
int metrics_ready(gpu_sampler *g, sk_lda_gpu_counts *counts, sk_ex_error *err) {
  state_counts(&g->state, counts);
  if (g->metrics == NULL && sk_lda_gpu_metrics_create(g->state.gpu, &g->metrics, err) != 0) return 1;
  return 0;
}

int joint_ll(sk_lda_sampler *s, double *ll_per_token, sk_ex_error *err) {
  gpu_sampler *g = base_of(s);
  sk_lda_gpu_counts counts;
  if (metrics_ready(g, &counts, err) != 0) return 1;
  return sk_lda_gpu_metrics_joint_ll(g->metrics, &counts, ll_per_token, err);
}

// The halves are uploaded when they are not those of the last call (which must not have changed since).
int heldout_ll(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout, int fold_in_iters,
               double *ll_per_token, sk_ex_error *err) {
  gpu_sampler *g = base_of(s);
  sk_lda_gpu_counts counts;
  if (metrics_ready(g, &counts, err) != 0) return 1;
  if (observed != g->observed || heldout != g->heldout) {
    g->observed = g->heldout = NULL;
    if (sk_lda_gpu_metrics_set_test(g->metrics, observed, heldout, counts.num_words, err) != 0) return 1;
    g->observed = observed;
    g->heldout = heldout;
  }
  return sk_lda_gpu_metrics_heldout_ll(g->metrics, &counts, fold_in_iters, ll_per_token, err);
}

// The prior optimiser's histograms from the device counts (resident samplers).
int prior_stats(sk_lda_sampler *s, sk_lda_hyper_stats *out, sk_ex_error *err) {
  gpu_sampler *g = base_of(s);
  sk_lda_gpu_counts counts;
  state_counts(&g->state, &counts);
  int64_t bytes = 0;
  const int rc = sk_lda_gpu_hyper_stats(&counts, s->model->corpus, out, &bytes, err);
  if (bytes > g->hyper_bytes_peak) g->hyper_bytes_peak = bytes;
  return rc;
}

// The model's new priors to the device (every GPU sampler: they are in its state).
int set_priors(sk_lda_sampler *s, sk_ex_error *err) {
  gpu_sampler *g = base_of(s);
  return state_set_priors(&g->state, s->model, &g->allocated, err);
}

// A resident sampler allocates everything at create and the metrics only grow: the sum is the peak (the
// prior optimiser's scratch, held for a moment beside them, counted as if held throughout: a bound).
void stats(const sk_lda_sampler *s, sk_lda_sampler_stats *out) {
  const gpu_sampler *g = (const gpu_sampler *)s->state;
  *out = g->stats;
  out->device_bytes_peak = g->allocated + sk_lda_gpu_metrics_device_bytes_peak(g->metrics) + g->hyper_bytes_peak;
}

int is_gpu_sampler(const sk_lda_sampler *s) { return s != NULL && s->ops != NULL && s->ops->to_host == to_host; }

}  // namespace

int begin(gpu_sampler *g, const sk_lda_device *device, char *name, size_t cap, sk_ex_error *err) {
  memset(g, 0, sizeof *g);
  g->to_model = resident_to_model;
  if (device == NULL || device->kind != SK_LDA_DEVICE_GPU)
    return sk_ex_fail(err, "GPU sampler: the device is not a resolved GPU (sk_lda_device_resolve)");
  return sk_ex_gpu_probe(device->gpu, name, cap, err);
}

void fit_answer(sk_lda_sampler_fit *fit, uint64_t needed, uint64_t budget, const char *what) {
  memset(fit, 0, sizeof *fit);
  fit->needed_bytes = needed;
  fit->available_bytes = budget;
  fit->fits = needed <= budget;
  if (!fit->fits)
    snprintf(fit->why, sizeof fit->why,
             "%s needs %llu bytes of GPU memory (%.2f GB) but the budget is %llu bytes (%.2f GB)", what,
             (unsigned long long)needed, (double)needed / 1e9, (unsigned long long)budget, (double)budget / 1e9);
}

void fit_cannot(sk_lda_sampler_fit *fit, uint64_t budget, const char *why) {
  memset(fit, 0, sizeof *fit);
  fit->available_bytes = budget;
  snprintf(fit->why, sizeof fit->why, "%s", why);
}

int make_marks(gpu_sampler *g, sk_ex_error *err) {
  for (int i = g->marks_made; i < kSweepMarks; ++i) {
    SK_EX_CUDA_TRY(cudaEventCreate(&g->marks[i]), "creating the timing events");
    g->marks_made = i + 1;
  }
  return 0;
}

int sweep_start(gpu_sampler *g, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaSetDevice(g->state.gpu), "selecting the GPU");
  return sweep_mark(g, 0, err);
}

int sweep_mark(gpu_sampler *g, int mark, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaEventRecord(g->marks[mark], 0), "timing the sweep");
  return 0;
}

int sweep_finish(gpu_sampler *g, sk_ex_error *err) {
  if (sweep_mark(g, 3, err) != 0 || state_rebuild_a(&g->state, err) != 0 || sweep_mark(g, 4, err) != 0) return 1;
  SK_EX_CUDA_TRY(cudaDeviceSynchronize(), "running the sweep");
  float ms[kSweepMarks - 1];
  for (int i = 0; i < kSweepMarks - 1; ++i)
    SK_EX_CUDA_TRY(cudaEventElapsedTime(&ms[i], g->marks[i], g->marks[i + 1]), "timing the sweep");
  g->stats.sweeps += 1;
  g->stats.tables_seconds += 1e-3 * ms[0];
  g->stats.sample_seconds += 1e-3 * ms[1];
  g->stats.b_seconds += 1e-3 * ms[2];
  g->stats.a_seconds += 1e-3 * ms[3];
  return 0;
}

int wrap(gpu_sampler *g, const char *kind_name, sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
         sk_ex_error *err) {
  g->ops.name = kind_name;
  g->ops.description = g->description;
  g->ops.to_host = to_host;
  if (g->to_model == NULL) g->to_model = resident_to_model;
  g->ops.set_priors = set_priors;
  if (!g->streamed) {
    g->ops.joint_ll = joint_ll;
    g->ops.heldout_ll = heldout_ll;
    g->ops.prior_stats = prior_stats;
  }
  if (g->ops.stats == NULL) g->ops.stats = stats;
  return sk_lda_sampler_wrap(&g->ops, g, m, device, out, err);
}

void release(gpu_sampler *g) {
  (void)cudaSetDevice(g->state.gpu); /* the allocations belong to it; when this fails, so do the frees */
  sk_lda_gpu_metrics_destroy(g->metrics);
  g->metrics = NULL;
  for (int i = 0; i < g->marks_made; ++i) (void)cudaEventDestroy(g->marks[i]);
  g->marks_made = 0;
  state_free(&g->state);
}

}  // namespace sk_lda_gpu

extern "C" int sk_lda_gpu_sampler_to_model(sk_lda_sampler *s, sk_lda_model *m, sk_ex_error *err) {
  if (!sk_lda_gpu::is_gpu_sampler(s) || m == NULL || m->z == NULL)
    return sk_ex_fail(err, "GPU sampler to host: sampler or model NULL, or not a GPU sampler");
  sk_lda_gpu::gpu_sampler *g = sk_lda_gpu::base_of(s);
  if (!sk_lda_gpu::state_shape_matches(&g->state, m))
    return sk_ex_fail(err, "GPU sampler to host: the model's shape differs from the sampler's");
  return g->to_model(g, m, err);
}

extern "C" int sk_lda_gpu_sampler_counts(const sk_lda_sampler *s, sk_lda_gpu_counts *out, sk_ex_error *err) {
  if (!sk_lda_gpu::is_gpu_sampler(s) || out == NULL)
    return sk_ex_fail(err, "GPU sampler counts: sampler or out NULL, or not a GPU sampler");
  const sk_lda_gpu::gpu_sampler *g = (const sk_lda_gpu::gpu_sampler *)s->state;
  if (g->streamed)
    return sk_ex_fail(err, "GPU sampler counts: a streamed sampler's A and z are not on the device (use to_host)");
  sk_lda_gpu::state_counts(&g->state, out);
  return 0;
}

extern "C" int sk_lda_gpu_sampler_streaming(const sk_lda_sampler *s) {
  return sk_lda_gpu::is_gpu_sampler(s) && ((const sk_lda_gpu::gpu_sampler *)s->state)->streamed;
}
