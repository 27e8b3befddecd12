// GPU ESCA's exact sweep, the oracle (esca_exact.h): its arrays, fits, create and the sweep's sequence.
// The kernels are esca_exact_kernels.cu; the state and the epilogue gpu_state.cu.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/esca_exact.h"
#include "gpu/esca_exact_kernels.cuh"
#include "gpu/gpu_sampler.cuh"

#define SK_EX_CUDA_SCOPE "GPU ESCA (exact)"
#include "sk_ex_cuda_check.cuh"

namespace sk_lda_gpu {
namespace {

constexpr unsigned kParts = kStateDocuments | kStateNext;

struct exact {
  gpu_sampler base;
  int32_t *tokens;  // T word ids, document order
  double *inv;      // K: 1 / (n_k + V beta) in double
  double *cum;      // V x K word tables
};

void list_arrays(exact *x, device_arrays *list) {
  state_arrays(&x->base.state, list);
  const lda_state &st = x->base.state;
  list->add(&x->tokens, (size_t)st.num_tokens, "the tokens");
  list->add(&x->inv, (size_t)st.num_topics, "inv");
  list->add(&x->cum, (size_t)st.num_words * (size_t)st.num_topics, "the word tables");
}

// The budget's answer for x's arrays (x's state initialised).
void answer(exact *x, const sk_lda_model *m, uint64_t budget, sk_lda_sampler_fit *fit) {
  device_arrays list;
  list_arrays(x, &list);
  char what[200];
  snprintf(what, sizeof what,
           "the exact sweep (V = %d, K = %d, %lld tokens; it needs the corpus resident: use --sampler esca, which "
           "streams, --device cpu or a smaller K)",
           (int)m->num_words, (int)m->num_topics, (long long)m->num_tokens);
  fit_answer(fit, list.bytes(), budget, what);
}

// The sweep: the word tables, the draws, B's counts from z, the epilogue, A.
int sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  exact *x = (exact *)s->state;
  lda_state &st = x->base.state;
  if (sweep_start(&x->base, err) != 0) return 1;
  SK_EX_CUDA_TRY(exact_inv_launch(st.n_k, st.num_topics, st.vbeta, x->inv, 0), "computing inv");
  SK_EX_CUDA_TRY(exact_tables_launch(st.b, x->inv, state_alpha(st), st.num_words, st.num_topics, st.beta, x->cum, 0),
                  "building the word tables");
  if (sweep_mark(&x->base, 1, err) != 0) return 1;
  exact_draw_params p;
  p.tokens = x->tokens;
  p.doc_offsets = st.doc_offsets;
  p.a_offsets = st.a_offsets;
  p.a_topic = st.a_topic;
  p.a_count = st.a_count;
  p.b = st.b;
  p.cum = x->cum;
  p.inv = x->inv;
  p.z = st.z; /* in place: a draw reads the counts, never another token's topic */
  p.num_tokens = st.num_tokens;
  p.num_docs = st.num_docs;
  p.num_topics = st.num_topics;
  p.alpha = st.asymmetric ? 1.0 : st.alpha; /* per-topic priors are in the word tables, as esca.c */
  p.beta = st.beta;
  p.seed = st.seed;
  p.iteration = iteration;
  SK_EX_CUDA_TRY(exact_draw_launch(p, 0), "drawing the topics");
  if (sweep_mark(&x->base, 2, err) != 0) return 1;
  SK_EX_CUDA_TRY(count_words_launch(x->tokens, st.z, st.num_tokens, st.num_topics, st.b_next, 0),
                  "counting B");
  if (state_epilogue(&st, err) != 0) return 1;
  return sweep_finish(&x->base, err);
}

void free_exact(exact *x) {
  if (x == NULL) return;
  release(&x->base);
  cudaFree(x->tokens);
  cudaFree(x->inv);
  cudaFree(x->cum);
  free(x);
}

void destroy(sk_lda_sampler *s) { free_exact((exact *)s->state); }

// create's work once x's state is initialised: the budget, the arrays, the uploads.
int build(exact *x, const sk_lda_model *m, const sk_lda_device *device, sk_ex_error *err) {
  uint64_t budget = 0;
  if (sk_lda_device_budget(device, &budget, NULL, err) != 0) return 1;
  sk_lda_sampler_fit fit;
  answer(x, m, budget, &fit);
  if (!fit.fits) return sk_ex_fail(err, "GPU ESCA: %s", fit.why), SK_LDA_SAMPLER_BUDGET_ERROR;
  device_arrays list;
  list_arrays(x, &list);
  return list.allocate(&x->base.allocated, err) || state_upload(&x->base.state, m, err) ||
         upload_array(x->tokens, m->corpus->tokens, (size_t)m->num_tokens, "copying the tokens", err);
}

}  // namespace
}  // namespace sk_lda_gpu

using namespace sk_lda_gpu;

extern "C" int sk_lda_esca_exact_fits(const sk_lda_model *m, const sk_lda_device *device, uint64_t budget,
                                      sk_lda_sampler_fit *fit, sk_ex_error *err) {
  if (m == NULL || m->corpus == NULL || device == NULL || fit == NULL)
    return sk_ex_fail(err, "GPU ESCA (exact) fits: a pointer is NULL");
  if (m->num_tokens > INT32_MAX) {
    fit_cannot(fit, budget, "the exact sweep takes at most 2^31 - 1 tokens (use --sampler esca, which streams)");
    return 0;
  }
  exact x;
  memset(&x, 0, sizeof x);
  if (state_init(&x.base.state, m, device->gpu, kParts, NULL, err) != 0) return 1;
  answer(&x, m, budget, fit);
  return 0;
}

extern "C" int sk_lda_esca_exact_create(sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
                                        sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "GPU ESCA (exact): out is NULL");
  *out = NULL;
  if (m == NULL || m->z == NULL || m->corpus == NULL || device == NULL)
    return sk_ex_fail(err, "GPU ESCA (exact): model NULL or not initialised");
  if (m->num_tokens > INT32_MAX)
    return sk_ex_fail(err, "GPU ESCA: %lld tokens; the exact sweep takes at most %d (use --sampler esca)",
                       (long long)m->num_tokens, INT32_MAX);
  exact *x = (exact *)calloc(1, sizeof *x);
  if (x == NULL) return sk_ex_fail(err, "GPU ESCA (exact): out of host memory");
  char name[256];
  int rc = begin(&x->base, device, name, sizeof name, err);
  if (rc == 0) rc = state_init(&x->base.state, m, device->gpu, kParts, NULL, err);
  if (rc == 0) rc = build(x, m, device, err);
  if (rc == 0) rc = make_marks(&x->base, err);
  if (rc == 0) {
    snprintf(x->base.description, sizeof x->base.description, "ESCA (GPU %d: %s, exact double-precision sweep)",
             device->gpu, name);
    x->base.ops.sweep = sweep;
    x->base.ops.destroy = destroy;
    rc = wrap(&x->base, "esca", m, device, out, err);
  }
  if (rc != 0) {
    free_exact(x);
    return rc == SK_LDA_SAMPLER_BUDGET_ERROR ? rc : 1;
  }
  return 0;
}
