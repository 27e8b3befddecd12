// GPU AGA-LDA (aga_sampler.h, aga_testing.h): its arrays, fits, create and the sweep's sequence. The
// kernels are aga_kernels.cu; the state gpu_state.cu.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aga_plan.h"
#include "gpu/aga_kernels.cuh"
#include "gpu/aga_testing.h"
#include "gpu/gpu_sampler.cuh"

#define SK_EX_CUDA_SCOPE "GPU AGA-LDA"
#include "sk_ex_cuda_check.cuh"

namespace sk_lda_gpu {
namespace {

constexpr int kPlanArrays = 6;  // panel_pos, panel_word, words, order, doc, local

struct aga {
  gpu_sampler base;
  aga_launch launch;
  sk_lda_aga_options o;  // with the defaults filled in (mini-batch documents, panels)
  int planted_bug;
  int32_t num_batches;
  int32_t *h_batch_doc, *h_batch_panel;  // num_batches + 1 each: the sweep's loop runs on the host
  int32_t *plan[kPlanArrays];
  uint8_t *flags;
  int32_t *dt;     // max_batch_docs x K
  float *dnt;      // max_batch_docs x K
  float *nt_den;   // K
};

int check(const sk_lda_aga_options *o, const sk_lda_aga_test_hooks *hooks, int32_t K, sk_ex_error *err) {
  if (o->minibatch_docs < 0 || o->panel_words < 0 || o->panels < 0)
    return sk_ex_fail(err, "GPU AGA-LDA: mini-batch documents, panel words and panels must not be negative");
  const int lanes = hooks->lane_topics;
  if (lanes != 0 && lanes != -1 && (lanes < 0 || lanes > 8 || (lanes & (lanes - 1)) != 0 || 32 * lanes < K))
    return sk_ex_fail(err, "GPU AGA-LDA: %d topics a lane is not 1, 2, 4 or 8 covering K = %d", lanes, (int)K);
  return 0;
}

// The knobs with their defaults, the launch and the state's shape (no allocation). *cannot is set, with
// why in fit, when one word's row of K counts does not fit a block's shared memory.
int prepare(aga *a, const sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o,
            const sk_lda_aga_test_hooks *hooks, sk_lda_sampler_fit *fit, int *cannot, sk_ex_error *err) {
  *cannot = 0;
  if (check(o, hooks, m->num_topics, err) != 0) return 1;
  a->o = *o;
  a->planted_bug = hooks->planted_bug;
  if (a->o.minibatch_docs == 0) {
    int64_t batches = m->num_tokens / SK_LDA_AGA_BATCH_TOKENS;
    batches = batches < SK_LDA_AGA_MIN_BATCHES ? SK_LDA_AGA_MIN_BATCHES
              : batches > SK_LDA_AGA_MAX_BATCHES ? SK_LDA_AGA_MAX_BATCHES
                                                 : batches;
    a->o.minibatch_docs = (int32_t)(((int64_t)m->num_docs + batches - 1) / batches);
  }
  if (a->o.minibatch_docs < 1) a->o.minibatch_docs = 1;
  SK_EX_CUDA_TRY(cudaSetDevice(device->gpu), "selecting the GPU");
  const cudaError_t e = aga_choose_launch(device->gpu, m->num_topics, 0, hooks->lane_topics, &a->launch);
  if (e == cudaErrorInvalidValue) {
    char why[300];
    snprintf(why, sizeof why,
             "GPU AGA-LDA: one word's row of K = %d counts (%zu bytes) does not fit in a block's shared memory on "
             "GPU %d; use --sampler esca for this K",
             (int)m->num_topics, (size_t)m->num_topics * sizeof(int32_t), device->gpu);
    fit_cannot(fit, 0, why);
    *cannot = 1;
    return 0;
  }
  SK_EX_CUDA_TRY(e, "choosing AGA's launch");
  if (a->o.panel_words > 0 && a->o.panel_words < a->launch.panel_words) a->launch.panel_words = a->o.panel_words;
  if (a->o.panels == 0) {
    // By default 4 panels (blocks) a mini-batch for every multiprocessor: measured against 8 and 16.
    int sms = 0;
    SK_EX_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device->gpu), "querying the GPU");
    a->o.panels = 4 * sms;
  }
  return state_init(&a->base.state, m, device->gpu, kStateDocuments, NULL, err);
}

// Every array of the sampler, the state's first, for a plan of these sizes.
void list_arrays(aga *a, const sk_lda_aga_plan_sizes &sz, device_arrays *list) {
  state_arrays(&a->base.state, list);
  const size_t T = (size_t)a->base.state.num_tokens, K = (size_t)a->base.state.num_topics;
  const size_t P = (size_t)sz.num_panels, W = (size_t)sz.num_panel_words;
  const size_t counts[kPlanArrays] = {P + 1, P + 1, W, T, T, T};
  for (int i = 0; i < kPlanArrays; ++i) list->add(&a->plan[i], counts[i], "AGA's plan");
  list->add(&a->flags, P, "AGA's plan");
  const size_t rows = (size_t)sz.max_batch_docs * K;
  list->add(&a->dt, rows, "a mini-batch's DT");
  list->add(&a->dnt, rows, "a mini-batch's DNT");
  list->add(&a->nt_den, K, "NT + V beta");
}

void answer(aga *a, const sk_lda_model *m, const sk_lda_aga_plan_sizes &sz, uint64_t budget, sk_lda_sampler_fit *fit) {
  device_arrays list;
  list_arrays(a, sz, &list);
  char what[240];
  snprintf(what, sizeof what,
           "AGA-LDA (V = %d, K = %d, %lld tokens; it needs the corpus resident: use --sampler esca, which streams, "
           "--device cpu or a smaller K)",
           (int)m->num_words, (int)m->num_topics, (long long)m->num_tokens);
  fit_answer(fit, list.bytes(), budget, what);
}

// The plan's panels and positions to the device; its mini-batches stay on the host for the sweep's loop.
int upload_plan(aga *a, const sk_lda_aga_plan *plan, sk_ex_error *err) {
  const size_t T = (size_t)plan->num_tokens, B = (size_t)plan->num_batches;
  const size_t P = (size_t)plan->num_panels, W = (size_t)plan->num_panel_words;
  const int32_t *host[kPlanArrays] = {plan->panel_pos, plan->panel_word, plan->words,
                                      plan->order,     plan->doc,        plan->local};
  const size_t count[kPlanArrays] = {P + 1, P + 1, W, T, T, T};
  for (int i = 0; i < kPlanArrays; ++i)
    if (upload_array(a->plan[i], host[i], count[i], "copying AGA's plan", err) != 0) return 1;
  if (upload_array(a->flags, plan->panel_flags, P, "copying AGA's plan", err) != 0) return 1;
  a->num_batches = plan->num_batches;
  a->h_batch_doc = (int32_t *)malloc((B + 1) * sizeof *a->h_batch_doc);
  a->h_batch_panel = (int32_t *)malloc((B + 1) * sizeof *a->h_batch_panel);
  if (a->h_batch_doc == NULL || a->h_batch_panel == NULL) return sk_ex_fail(err, "GPU AGA-LDA: out of host memory");
  memcpy(a->h_batch_doc, plan->batch_doc, (B + 1) * sizeof *a->h_batch_doc);
  memcpy(a->h_batch_panel, plan->batch_panel, (B + 1) * sizeof *a->h_batch_panel);
  return 0;
}

// The sweep: the mini-batches in order, each its DT and DNT and then its panels' draws; then A.
int sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  aga *a = (aga *)s->state;
  const lda_state &st = a->base.state;
  if (sweep_start(&a->base, err) != 0 || sweep_mark(&a->base, 1, err) != 0) return 1;
  aga_params p;
  p.panel_pos = a->plan[0];
  p.panel_word = a->plan[1];
  p.words = a->plan[2];
  p.order = a->plan[3];
  p.doc = a->plan[4];
  p.local = a->plan[5];
  p.panel_flags = a->flags;
  p.doc_offsets = st.doc_offsets;
  p.z = st.z;
  p.wt = st.b;
  p.nt = st.n_k;
  p.dt = a->dt;
  p.dnt = a->dnt;
  p.nt_den = a->nt_den;
  p.num_topics = st.num_topics;
  p.alpha = (float)st.alpha;
  p.alpha_k = state_alpha_f(st);
  p.beta = (float)st.beta;
  p.vbeta = (float)st.vbeta;
  p.seed = st.seed;
  p.iteration = iteration;
  p.planted_bug = a->planted_bug;
  for (int32_t b = 0; b < a->num_batches; ++b)
    SK_EX_CUDA_TRY(aga_batch_launch(p, a->launch, a->h_batch_doc[b], a->h_batch_doc[b + 1], a->h_batch_panel[b],
                                     a->h_batch_panel[b + 1], 0),
                    "drawing the topics (AGA)");
  if (sweep_mark(&a->base, 2, err) != 0) return 1;
  return sweep_finish(&a->base, err);
}

void free_aga(aga *a) {
  if (a == NULL) return;
  release(&a->base);
  for (int i = 0; i < kPlanArrays; ++i) cudaFree(a->plan[i]);
  cudaFree(a->flags);
  cudaFree(a->dt);
  cudaFree(a->dnt);
  cudaFree(a->nt_den);
  free(a->h_batch_doc);
  free(a->h_batch_panel);
  free(a);
}

void destroy(sk_lda_sampler *s) { free_aga((aga *)s->state); }

// create's work once a is prepared: the plan, its bytes against the budget, the arrays, the uploads.
int build(aga *a, const sk_lda_model *m, const sk_lda_device *device, sk_ex_error *err) {
  uint64_t budget = 0;
  if (sk_lda_device_budget(device, &budget, NULL, err) != 0) return 1;
  sk_lda_aga_plan plan;
  if (sk_lda_aga_plan_build(m->corpus, a->o.minibatch_docs, a->launch.panel_words, a->o.panels, !a->o.whole_words,
                            &plan, err) != 0)
    return 1;
  const sk_lda_aga_plan_sizes sz = {plan.num_batches, plan.num_panels, plan.num_panel_words, plan.max_batch_docs};
  sk_lda_sampler_fit fit;
  answer(a, m, sz, budget, &fit);
  int rc = fit.fits ? 0 : (sk_ex_fail(err, "GPU %s", fit.why), SK_LDA_SAMPLER_BUDGET_ERROR);
  device_arrays list;
  list_arrays(a, sz, &list);
  if (rc == 0) rc = list.allocate(&a->base.allocated, err);
  if (rc == 0) rc = state_upload(&a->base.state, m, err) || upload_plan(a, &plan, err);
  sk_lda_aga_plan_free(&plan);
  return rc;
}

}  // namespace
}  // namespace sk_lda_gpu

using namespace sk_lda_gpu;

extern "C" int sk_lda_aga_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o,
                               uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  if (m == NULL || m->corpus == NULL || device == NULL || fit == NULL)
    return sk_ex_fail(err, "GPU AGA-LDA fits: a pointer is NULL");
  const sk_lda_aga_options defaults = {0, 0, 0, 0};
  const sk_lda_aga_test_hooks none = {0, 0};
  if (m->num_tokens > INT32_MAX) {
    fit_cannot(fit, budget, "AGA-LDA takes at most 2^31 - 1 tokens (use --sampler esca, which streams)");
    return 0;
  }
  aga a;
  memset(&a, 0, sizeof a);
  int cannot = 0;
  if (prepare(&a, m, device, o != NULL ? o : &defaults, &none, fit, &cannot, err) != 0) return 1;
  if (cannot) {
    fit->available_bytes = budget;
    return 0;
  }
  sk_lda_aga_plan_sizes sz;
  if (sk_lda_aga_plan_count(m->corpus, a.o.minibatch_docs, a.launch.panel_words, a.o.panels, !a.o.whole_words, &sz,
                            err) != 0)
    return 1;
  answer(&a, m, sz, budget, fit);
  return 0;
}

extern "C" int sk_lda_aga_create_for_test(sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o,
                                          const sk_lda_aga_test_hooks *hooks, sk_lda_sampler **out,
                                          sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "GPU AGA-LDA: out is NULL");
  *out = NULL;
  if (m == NULL || m->z == NULL || m->corpus == NULL || device == NULL)
    return sk_ex_fail(err, "GPU AGA-LDA: model NULL or not initialised");
  if (m->num_tokens > INT32_MAX)
    return sk_ex_fail(err, "GPU AGA-LDA: %lld tokens; AGA takes at most %d (use --sampler esca)",
                       (long long)m->num_tokens, INT32_MAX);
  const sk_lda_aga_options defaults = {0, 0, 0, 0};
  const sk_lda_aga_test_hooks none = {0, 0};
  aga *a = (aga *)calloc(1, sizeof *a);
  if (a == NULL) return sk_ex_fail(err, "GPU AGA-LDA: out of host memory");
  char name[256];
  sk_lda_sampler_fit fit;
  int cannot = 0;
  int rc = begin(&a->base, device, name, sizeof name, err);
  if (rc == 0) rc = prepare(a, m, device, o != NULL ? o : &defaults, hooks != NULL ? hooks : &none, &fit, &cannot, err);
  if (rc == 0 && cannot) rc = sk_ex_fail(err, "%s", fit.why);
  if (rc == 0) rc = build(a, m, device, err);
  if (rc == 0) rc = make_marks(&a->base, err);
  if (rc == 0) {
    snprintf(a->base.description, sizeof a->base.description, "AGA-LDA (GPU %d: %s; mini-batches of %d documents)",
             device->gpu, name, (int)a->o.minibatch_docs);
    a->base.ops.sweep = sweep;
    a->base.ops.destroy = destroy;
    rc = wrap(&a->base, "aga", m, device, out, err);
  }
  if (rc != 0) {
    free_aga(a);
    return rc == SK_LDA_SAMPLER_BUDGET_ERROR ? rc : 1;
  }
  return 0;
}

extern "C" int sk_lda_aga_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o,
                                 sk_lda_sampler **out, sk_ex_error *err) {
  return sk_lda_aga_create_for_test(m, device, o, NULL, out, err);
}
