// ESCA on the GPU (esca_gpu.h): the device state, create, the sweep's sequence, to_host. The kernels
// are in esca_gpu_fast.cu (the default sweep) and esca_gpu_exact.cu (the CPU's chain bit for bit).
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aga_plan.h"
#include "gpu/aga_gpu.cuh"
#include "gpu/esca_gpu.h"
#include "gpu/esca_gpu_exact.cuh"
#include "gpu/esca_gpu_fast.cuh"
#include "gpu/esca_stream.cuh"
#include "pdow_plan.h"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"

#define SK_LDA_CUDA_SCOPE "GPU ESCA"
#include "gpu/cuda_check.h"

namespace {

constexpr int kMarks = 5;  // events around the parts of a sweep

// Everything a sweep reads or writes on the device.
struct device_state {
  int32_t *doc_offsets;    // D + 1
  int32_t *z;              // T topics, document order
  int32_t *a_offsets;      // D + 1: document d's pairs are [a_offsets[d], a_offsets[d + 1])
  uint32_t *a_topic;       // pair_capacity topics, increasing within a document
  uint32_t *a_count;       // pair_capacity counts
  int32_t *b;              // V x K
  unsigned long long *n_k; // K
  void *workspace;         // the segmented count's
  size_t workspace_bytes;
  // the exact sweep
  int32_t *tokens;         // T word ids, document order
  double *inv;             // K
  double *cum;             // V x K word tables
  // the fast sweep
  int32_t *b_next;         // V x K: the counts of the topics being drawn
  float *inv_f;            // K
  int32_t *plan_token, *group_start, *group_doc, *item_word, *item_group, *item_end;
  unsigned int *next_item; // the scheduler's counter
  float *scratch;          // rows and trees of the persistent blocks on the global path
  // AGA
  int32_t *aga_plan[6];    // panel_pos, panel_word, words, order, doc, local
  uint8_t *aga_flags;      // the panels' flags
  int32_t *dt;             // max_batch_docs x K
  float *dnt;              // max_batch_docs x K
  float *nt_den;           // K
};

}  // namespace

struct sk_lda_esca_gpu {
  int gpu;
  sk_lda_esca_gpu_options options;
  int32_t num_topics, num_words, num_docs;
  int64_t num_tokens;
  int64_t pair_capacity;  // sum over documents of min(n_d, K): A never has more pairs
  int32_t num_groups, num_items;
  double alpha, beta, vbeta;
  uint64_t seed;
  sk_lda_gpu::fast_launch launch;
  sk_lda_gpu::aga_launch aga_launch;
  int32_t num_batches;       // AGA's mini-batches
  int32_t *h_batch_doc;      // AGA: num_batches + 1, and the panels of each (host copies for the loop)
  int32_t *h_batch_panel;
  device_state d;
  int64_t allocated;     // device bytes allocated so far
  int32_t *h_a_offsets;  // host scratch for to_host: D + 1 offsets and the pairs
  uint32_t *h_a_topic, *h_a_count;
  cudaEvent_t marks[kMarks];
  int marks_made;
  sk_lda_gpu::esca_stream *stream;  // non-NULL: the streamed sweep (esca_stream.cuh) holds the state
  sk_lda_esca_gpu_stats stats;
  char description[320];
};

namespace {

// --- host helpers -------------------------------------------------------------------------------------

int cuda_fail(sk_lda_error *err, const char *what, cudaError_t e) {
  return sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, what, e);
}


int segc_fail(sk_lda_error *err, const char *what, sk_status st) {
  return sk_lda_fail(err, "GPU ESCA: %s: %s (%s)", what, sk_status_string(st), sk_last_cuda_error_string());
}

// The most pairs A can hold: the model reserves min(n_d, K) slots per document (model.h).
size_t pair_capacity_of(const sk_lda_model *m) { return (size_t)m->dk_start[m->num_docs]; }

// Device bytes of what every sweep keeps: z, the offsets, A, B and n_k.
size_t common_bytes(const sk_lda_model *m) {
  const size_t T = (size_t)m->num_tokens, D = (size_t)m->num_docs, K = (size_t)m->num_topics;
  return T * sizeof(int32_t) + 2 * (D + 1) * sizeof(int32_t) + pair_capacity_of(m) * 2 * sizeof(uint32_t) +
         (size_t)m->num_words * K * sizeof(int32_t) + K * sizeof(unsigned long long);
}

// Device bytes of everything but the workspace, the plan and the global rows.
size_t core_bytes(const sk_lda_model *m, int exact) {
  const size_t T = (size_t)m->num_tokens, K = (size_t)m->num_topics;
  const size_t vk = (size_t)m->num_words * K;
  const size_t common = common_bytes(m);
  if (exact) return common + T * sizeof(int32_t) + K * sizeof(double) + vk * sizeof(double);
  return common + vk * sizeof(int32_t) + K * sizeof(float) + T * sizeof(int32_t) + sizeof(unsigned int);
}

// AGA's device bytes beyond the common ones: the plan's panels and positions, DT and DNT of a
// mini-batch, nt_den.
size_t aga_bytes(const sk_lda_model *m, const sk_lda_aga_plan *plan) {
  const size_t T = (size_t)m->num_tokens, K = (size_t)m->num_topics;
  return common_bytes(m) + 3 * T * sizeof(int32_t) + (size_t)plan->num_panels +
         (2 * ((size_t)plan->num_panels + 1) + (size_t)plan->num_panel_words) * sizeof(int32_t) +
         2 * (size_t)plan->max_batch_docs * K * sizeof(float) + K * sizeof(float);
}

// The plan's device bytes: group starts and documents, three arrays of items.
size_t plan_bytes(int64_t groups, int64_t items) {
  return ((size_t)groups * 2 + 1) * sizeof(int32_t) + (size_t)items * 3 * sizeof(int32_t);
}

// cudaMalloc counted in the sampler's bytes (cuda_check.h).
template <typename T>
int alloc(sk_lda_esca_gpu *g, T **p, size_t count, const char *what, sk_lda_error *err) {
  return sk_lda_cuda_alloc(p, count, "GPU ESCA", what, &g->allocated, err);
}

template <typename T>
int upload_array(T *dst, const T *src, size_t count, const char *what, sk_lda_error *err) {
  if (count == 0) return 0;
  SK_LDA_CUDA_TRY(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyHostToDevice), what);
  return 0;
}

// A from the device z (on the legacy default stream, in order after the draws).
int count_a(sk_lda_esca_gpu *g, sk_lda_error *err) {
  device_state &d = g->d;
  const sk_status st = sk_segmented_count_u32(d.doc_offsets, g->num_docs, (int32_t)g->num_tokens,
                                              (const uint32_t *)d.z, NULL, g->num_topics, d.a_offsets, d.a_topic,
                                              d.a_count, (int32_t)g->pair_capacity, d.workspace, d.workspace_bytes, 0);
  if (st != SK_SUCCESS) return segc_fail(err, "counting A (segmented count)", st);
  return 0;
}

// B and n_k from z with the exact sweep's counter (both zeroed first).
int count_b_exact(sk_lda_esca_gpu *g, sk_lda_error *err) {
  device_state &d = g->d;
  const size_t vk = (size_t)g->num_words * (size_t)g->num_topics;
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.b, 0, vk * sizeof *d.b, 0), "zeroing B");
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.n_k, 0, (size_t)g->num_topics * sizeof *d.n_k, 0), "zeroing n_k");
  SK_LDA_CUDA_TRY(sk_lda_gpu::count_words_launch(d.tokens, d.z, g->num_tokens, g->num_topics, d.b, d.n_k, 0),
                  "counting B and n_k");
  return 0;
}

void free_device(device_state *d) {
  // Errors are ignored: after a fault the context is gone and every free fails the same way.
  void *const all[] = {d->doc_offsets, d->z,        d->a_offsets,   d->a_topic,   d->a_count,  d->b,
                       d->n_k,         d->workspace, d->tokens,     d->inv,       d->cum,      d->b_next,
                       d->inv_f,       d->plan_token, d->group_start, d->group_doc, d->item_word, d->item_group,
                       d->item_end,    d->next_item, d->scratch};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) cudaFree(all[i]);
  for (int i = 0; i < 6; ++i) cudaFree(d->aga_plan[i]);
  cudaFree(d->aga_flags);
  cudaFree(d->dt);
  cudaFree(d->dnt);
  cudaFree(d->nt_den);
  memset(d, 0, sizeof *d);
}

// The plan's arrays to the device.
int upload_plan(sk_lda_esca_gpu *g, const sk_lda_pdow_plan *plan, sk_lda_error *err) {
  device_state &d = g->d;
  const size_t T = (size_t)g->num_tokens, G = (size_t)plan->num_groups, I = (size_t)plan->num_items;
  if (alloc(g, &d.plan_token, T, "the PDOW order", err) || alloc(g, &d.group_start, G + 1, "the groups", err) ||
      alloc(g, &d.group_doc, G, "the groups' documents", err) || alloc(g, &d.item_word, I, "the items", err) ||
      alloc(g, &d.item_group, I, "the items", err) || alloc(g, &d.item_end, I, "the items", err))
    return 1;
  return upload_array(d.plan_token, plan->token, T, "copying the PDOW order", err) ||
         upload_array(d.group_start, plan->group_start, G + 1, "copying the groups", err) ||
         upload_array(d.group_doc, plan->group_doc, G, "copying the groups", err) ||
         upload_array(d.item_word, plan->item_word, I, "copying the items", err) ||
         upload_array(d.item_group, plan->item_group, I, "copying the items", err) ||
         upload_array(d.item_end, plan->item_end, I, "copying the items", err);
}

// Allocates and fills the device state from the model (create's work after the checks).
// AGA's arrays: the plan's panels and positions (its mini-batches stay on the host, for the sweep's
// loop), DT and DNT.
int upload_aga(sk_lda_esca_gpu *g, const sk_lda_aga_plan *plan, sk_lda_error *err) {
  device_state &d = g->d;
  const size_t T = (size_t)g->num_tokens, K = (size_t)g->num_topics, B = (size_t)plan->num_batches;
  const size_t P = (size_t)plan->num_panels, W = (size_t)plan->num_panel_words;
  const int32_t *host[6] = {plan->panel_pos, plan->panel_word, plan->words, plan->order, plan->doc, plan->local};
  const size_t count[6] = {P + 1, P + 1, W, T, T, T};
  for (int i = 0; i < 6; ++i)
    if (alloc(g, &d.aga_plan[i], count[i], "AGA's plan", err) ||
        upload_array(d.aga_plan[i], host[i], count[i], "copying AGA's plan", err))
      return 1;
  if (alloc(g, &d.aga_flags, P > 0 ? P : 1, "AGA's plan", err) ||
      upload_array(d.aga_flags, plan->panel_flags, P, "copying AGA's plan", err))
    return 1;
  const size_t rows = (size_t)plan->max_batch_docs * K;
  if (alloc(g, &d.dt, rows, "a mini-batch's DT", err) || alloc(g, &d.dnt, rows, "a mini-batch's DNT", err) ||
      alloc(g, &d.nt_den, K, "NT + V beta", err))
    return 1;
  g->num_batches = plan->num_batches;
  g->h_batch_doc = (int32_t *)malloc((B + 1) * sizeof *g->h_batch_doc);
  g->h_batch_panel = (int32_t *)malloc((B + 1) * sizeof *g->h_batch_panel);
  if (g->h_batch_doc == NULL || g->h_batch_panel == NULL) return sk_lda_fail(err, "GPU AGA-LDA: out of host memory");
  memcpy(g->h_batch_doc, plan->batch_doc, (B + 1) * sizeof *g->h_batch_doc);
  memcpy(g->h_batch_panel, plan->batch_panel, (B + 1) * sizeof *g->h_batch_panel);
  return 0;
}

int upload(sk_lda_esca_gpu *g, const sk_lda_model *m, const sk_lda_pdow_plan *plan, const sk_lda_aga_plan *aga_plan,
           sk_lda_error *err) {
  device_state &d = g->d;
  const size_t T = (size_t)g->num_tokens, D = (size_t)g->num_docs, K = (size_t)g->num_topics;
  const size_t vk = (size_t)g->num_words * K, pairs = (size_t)g->pair_capacity;
  const int exact = g->options.exact;
  if (alloc(g, &d.doc_offsets, D + 1, "the document offsets", err) || alloc(g, &d.z, T, "z", err) ||
      alloc(g, &d.a_offsets, D + 1, "A's offsets", err) || alloc(g, &d.a_topic, pairs, "A's topics", err) ||
      alloc(g, &d.a_count, pairs, "A's counts", err) || alloc(g, &d.b, vk, "B", err) ||
      alloc(g, &d.n_k, K, "n_k", err) ||
      alloc(g, (unsigned char **)&d.workspace, d.workspace_bytes, "the segmented count's workspace", err))
    return 1;
  const int aga = g->options.aga;
  if (aga && upload_aga(g, aga_plan, err)) return 1;
  if (!aga && exact && (alloc(g, &d.tokens, T, "the tokens", err) || alloc(g, &d.inv, K, "inv", err) ||
                        alloc(g, &d.cum, vk, "the word tables", err)))
    return 1;
  if (!aga && !exact && (alloc(g, &d.b_next, vk, "B's next counts", err) || alloc(g, &d.inv_f, K, "inv", err) ||
                 alloc(g, &d.next_item, 1, "the scheduler's counter", err) ||
                 (g->launch.on_global && alloc(g, &d.scratch, g->launch.scratch_floats, "the blocks' rows", err)) ||
                 upload_plan(g, plan, err)))
    return 1;

  int32_t *offsets = (int32_t *)malloc((D + 1) * sizeof *offsets);
  if (offsets == NULL) return sk_lda_fail(err, "GPU ESCA: out of host memory (D = %d)", (int)g->num_docs);
  for (size_t i = 0; i <= D; ++i) offsets[i] = (int32_t)m->corpus->doc_offsets[i];
  const int failed = upload_array(d.doc_offsets, offsets, D + 1, "copying the document offsets", err);
  free(offsets);
  if (failed || upload_array(d.z, m->z, T, "copying z", err)) return 1;
  if (exact && !aga) {
    if (upload_array(d.tokens, m->corpus->tokens, T, "copying the tokens", err) || count_b_exact(g, err)) return 1;
  } else {
    static_assert(sizeof(unsigned long long) == sizeof(int64_t), "n_k is copied as it is");
    if (!aga) SK_LDA_CUDA_TRY(cudaMemset(d.b_next, 0, vk * sizeof *d.b_next), "zeroing B's next counts");
    if (upload_array(d.b, m->n_vk, vk, "copying B", err) ||
        upload_array(d.n_k, (const unsigned long long *)m->n_k, K, "copying n_k", err))
      return 1;
  }
  if (count_a(g, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaDeviceSynchronize(), "building the counts");
  return 0;
}

int check_options(const sk_lda_esca_gpu_options *o, sk_lda_error *err) {
  if (o->threads != 0 && (o->threads < 32 || o->threads > 1024 || o->threads % 32 != 0))
    return sk_lda_fail(err, "GPU ESCA: threads per block %d is not a multiple of 32 from 32 to 1024", o->threads);
  if (o->workers < 0 || o->workers > 16)
    return sk_lda_fail(err, "GPU ESCA: %d workers; the streamed sweep takes 1 to 16", o->workers);
  if ((o->token_base != 0 || o->b_sum.fn != NULL) && (o->exact || o->aga))
    return sk_lda_fail(err, "GPU ESCA: a rank's token base and sum of B apply to the fast ESCA sweep only");
  if (o->blocks_per_sm < 0 || o->item_tokens < 0 || o->chunk_tokens < 0 || o->minibatch_docs < 0 ||
      o->aga_panel_words < 0 || o->aga_panels < 0)
    return sk_lda_fail(err, "GPU ESCA: blocks per SM, item tokens, chunk tokens, mini-batch documents, panel words "
                            "and panels must not be negative");
  return 0;
}

// The sweep's parts between the marks: the exact sweep.
int sweep_exact(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err) {
  device_state &d = g->d;
  SK_LDA_CUDA_TRY(sk_lda_gpu::exact_inv_launch(d.n_k, g->num_topics, g->vbeta, d.inv, 0), "computing inv");
  SK_LDA_CUDA_TRY(sk_lda_gpu::exact_tables_launch(d.b, d.inv, g->num_words, g->num_topics, g->beta, d.cum, 0),
                  "building the word tables");
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[1], 0), "timing the sweep");
  sk_lda_gpu::exact_draw_params p;
  p.tokens = d.tokens;
  p.doc_offsets = d.doc_offsets;
  p.a_offsets = d.a_offsets;
  p.a_topic = d.a_topic;
  p.a_count = d.a_count;
  p.b = d.b;
  p.cum = d.cum;
  p.inv = d.inv;
  p.z = d.z; /* in place: a draw reads the counts, never another token's topic */
  p.num_tokens = g->num_tokens;
  p.num_docs = g->num_docs;
  p.num_topics = g->num_topics;
  p.alpha = g->alpha;
  p.beta = g->beta;
  p.seed = g->seed;
  p.iteration = iteration;
  SK_LDA_CUDA_TRY(sk_lda_gpu::exact_draw_launch(p, 0), "drawing the topics");
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[2], 0), "timing the sweep");
  return count_b_exact(g, err);
}

// The fast sweep: inv, the draws (which count B's next values), n_k from them, B's next counts zeroed.
int sweep_fast(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err) {
  device_state &d = g->d;
  const size_t vk = (size_t)g->num_words * (size_t)g->num_topics;
  SK_LDA_CUDA_TRY(sk_lda_gpu::fast_inv_launch(d.n_k, g->num_topics, g->vbeta, d.inv_f, 0), "computing inv");
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.next_item, 0, sizeof *d.next_item, 0), "zeroing the scheduler");
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[1], 0), "timing the sweep");
  sk_lda_gpu::fast_draw_params p;
  p.token = d.plan_token;
  p.group_start = d.group_start;
  p.group_doc = d.group_doc;
  p.item_word = d.item_word;
  p.item_group = d.item_group;
  p.item_end = d.item_end;
  p.num_items = g->num_items;
  p.a_offsets = d.a_offsets;
  p.a_topic = d.a_topic;
  p.a_count = d.a_count;
  sk_lda_gpu::fast_set_model(&p, d.b, d.inv_f, d.b_next, g->launch.row_floats, g->num_topics, g->alpha, g->beta,
                             g->seed, iteration);
  p.z = d.z; /* in place: a draw reads the counts, never another token's topic */
  p.next_item = d.next_item;
  p.scratch = d.scratch;
  p.token_base = g->options.token_base;
  SK_LDA_CUDA_TRY(sk_lda_gpu::fast_draw_launch(p, g->launch, 0), "drawing the topics");
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[2], 0), "timing the sweep");
  const sk_lda_gpu_b_sum &sum = g->options.b_sum;
  if (sum.fn != NULL && sum.fn(sum.user, d.b_next, vk, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.n_k, 0, (size_t)g->num_topics * sizeof *d.n_k, 0), "zeroing n_k");
  SK_LDA_CUDA_TRY(sk_lda_gpu::fast_topic_totals_launch(d.b_next, g->num_words, g->num_topics, d.n_k, 0),
                  "summing the topic totals");
  int32_t *const b = d.b;
  d.b = d.b_next;
  d.b_next = b; /* zeroed now, for the next sweep's counts */
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.b_next, 0, vk * sizeof *d.b_next, 0), "zeroing B's next counts");
  return 0;
}

// AGA's sweep: the mini-batches in order, each its DT and DNT and then its panels' draws (aga_gpu.cuh).
int sweep_aga(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err) {
  device_state &d = g->d;
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[1], 0), "timing the sweep");
  sk_lda_gpu::aga_params p;
  p.panel_pos = d.aga_plan[0];
  p.panel_word = d.aga_plan[1];
  p.words = d.aga_plan[2];
  p.order = d.aga_plan[3];
  p.doc = d.aga_plan[4];
  p.local = d.aga_plan[5];
  p.panel_flags = d.aga_flags;
  p.doc_offsets = d.doc_offsets;
  p.z = d.z;
  p.wt = d.b;
  p.nt = d.n_k;
  p.dt = d.dt;
  p.dnt = d.dnt;
  p.nt_den = d.nt_den;
  p.num_topics = g->num_topics;
  p.alpha = (float)g->alpha;
  p.beta = (float)g->beta;
  p.vbeta = (float)g->vbeta;
  p.seed = g->seed;
  p.iteration = iteration;
  p.planted_bug = g->options.aga_planted_bug;
  for (int32_t b = 0; b < g->num_batches; ++b)
    SK_LDA_CUDA_TRY(sk_lda_gpu::aga_batch_launch(p, g->aga_launch, g->h_batch_doc[b], g->h_batch_doc[b + 1],
                                                 g->h_batch_panel[b], g->h_batch_panel[b + 1], 0),
                    "drawing the topics (AGA)");
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[2], 0), "timing the sweep");
  return 0;
}

// The budget: the caller's, capped by the free memory, or the free memory less the margin.
size_t budget_of(const sk_lda_esca_gpu_options &o, size_t free_bytes) {
  if (o.device_memory > 0) return o.device_memory < free_bytes ? o.device_memory : free_bytes;
  return free_bytes > SK_LDA_GPU_MEMORY_MARGIN ? free_bytes - SK_LDA_GPU_MEMORY_MARGIN : 0;
}

sk_lda_gpu::stream_config stream_config_of(const sk_lda_esca_gpu_options &o, int gpu, size_t budget) {
  sk_lda_gpu::stream_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.gpu = gpu;
  cfg.workers = o.workers;
  cfg.budget_bytes = budget;
  cfg.budget_source = o.device_memory > 0 ? "--device-memory, capped by the free memory" : NULL;
  cfg.threads = o.threads;
  cfg.blocks_per_sm = o.blocks_per_sm;
  cfg.item_tokens = o.item_tokens;
  cfg.host_threads = o.host_threads;
  cfg.token_base = o.token_base;
  cfg.b_sum = o.b_sum;
  return cfg;
}

// The streamed sampler in g->stream (esca_stream.cuh), for a corpus whose resident state needs
// `resident_bytes` > budget.
int create_streamed(sk_lda_esca_gpu *g, const sk_lda_model *m, const char *gpu_name, size_t budget,
                    size_t resident_bytes, sk_lda_error *err) {
  const sk_lda_gpu::stream_config cfg = stream_config_of(g->options, g->gpu, budget);
  int budget_error = 0;
  if (sk_lda_gpu::stream_create(m, cfg, &g->stream, &budget_error, err) != 0)
    return budget_error ? SK_LDA_ESCA_GPU_BUDGET_ERROR : 1;
  sk_lda_esca_gpu_stats st;
  sk_lda_gpu::stream_get_stats(g->stream, &st);
  char resident[64] = "more than 2^31 tokens";
  if (resident_bytes != SIZE_MAX) snprintf(resident, sizeof resident, "%.2f GB", (double)resident_bytes / 1e9);
  snprintf(g->description, sizeof g->description,
           "ESCA (GPU %d: %s; streamed in %lld chunks by %d workers: resident it needs %s, the budget is %.2f GB)",
           g->gpu, gpu_name, (long long)st.chunks, st.workers, resident, (double)budget / 1e9);
  return 0;
}

}  // namespace

extern "C" int sk_lda_esca_gpu_streaming(const sk_lda_esca_gpu *g) { return g != NULL && g->stream != NULL; }

extern "C" int sk_lda_esca_gpu_stream_chunks(const sk_lda_model *m, int gpu, const sk_lda_esca_gpu_options *options,
                                             int64_t *chunks, sk_lda_error *err) {
  if (m == NULL || m->corpus == NULL || chunks == NULL) return sk_lda_fail(err, "GPU ESCA stream chunks: NULL argument");
  sk_lda_esca_gpu_options o;
  memset(&o, 0, sizeof o);
  if (options != NULL) o = *options;
  if (check_options(&o, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaSetDevice(gpu), "selecting the GPU");
  size_t free_bytes = 0, total_bytes = 0;
  SK_LDA_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), "querying the GPU's free memory");
  int budget_error = 0;
  if (sk_lda_gpu::stream_count_chunks(m, stream_config_of(o, gpu, budget_of(o, free_bytes)), chunks, &budget_error,
                                      err) != 0)
    return budget_error ? SK_LDA_ESCA_GPU_BUDGET_ERROR : 1;
  return 0;
}

extern "C" size_t sk_lda_esca_gpu_state_bytes(const sk_lda_model *m) {
  if (m == NULL || m->corpus == NULL) return 0;
  return core_bytes(m, 0) + plan_bytes(m->num_tokens, m->num_tokens);
}

extern "C" int sk_lda_esca_gpu_create(const sk_lda_model *m, int gpu, sk_lda_esca_gpu **out, sk_lda_error *err) {
  return sk_lda_esca_gpu_create_with(m, gpu, NULL, out, err);
}

extern "C" int sk_lda_esca_gpu_create_with(const sk_lda_model *m, int gpu, const sk_lda_esca_gpu_options *options,
                                           sk_lda_esca_gpu **out, sk_lda_error *err) {
  if (out == NULL) return sk_lda_fail(err, "GPU ESCA: out is NULL");
  *out = NULL;
  if (m == NULL || m->z == NULL || m->corpus == NULL)
    return sk_lda_fail(err, "GPU ESCA: model NULL or not initialised");
  sk_lda_esca_gpu_options o;
  memset(&o, 0, sizeof o);
  if (options != NULL) o = *options;
  if (check_options(&o, err) != 0) return 1;
  const int streamable = !o.aga && !o.exact;
  if (o.force_stream && !streamable)
    return sk_lda_fail(err, "GPU ESCA: force_stream applies to the fast ESCA sweep only");
  if (m->num_tokens > INT32_MAX && !streamable)
    return sk_lda_fail(err, "GPU ESCA: %lld tokens; the exact sweep and AGA take at most %d (use --sampler esca)",
                       (long long)m->num_tokens, INT32_MAX);
  SK_LDA_CUDA_TRY(cudaSetDevice(gpu), "selecting the GPU");
  cudaDeviceProp prop;
  SK_LDA_CUDA_TRY(cudaGetDeviceProperties(&prop, gpu), "querying the GPU");

  sk_lda_esca_gpu *g = (sk_lda_esca_gpu *)calloc(1, sizeof *g);
  if (g == NULL) return sk_lda_fail(err, "GPU ESCA: out of host memory");
  g->gpu = gpu;
  g->options = o;
  g->num_topics = m->num_topics;
  g->num_words = m->num_words;
  g->num_docs = m->num_docs;
  g->num_tokens = m->num_tokens;
  g->pair_capacity = (int64_t)pair_capacity_of(m);
  g->alpha = m->alpha;
  g->beta = m->beta;
  g->vbeta = (double)m->num_words * m->beta; /* esca.c's expression, rounded on the host */
  g->seed = m->seed;
  if (o.aga) {
    if (o.minibatch_docs == 0) {
      int64_t batches = m->num_tokens / SK_LDA_AGA_BATCH_TOKENS;
      batches = batches < SK_LDA_AGA_MIN_BATCHES ? SK_LDA_AGA_MIN_BATCHES
                : batches > SK_LDA_AGA_MAX_BATCHES ? SK_LDA_AGA_MAX_BATCHES
                                                   : batches;
      o.minibatch_docs = (int32_t)(((int64_t)m->num_docs + batches - 1) / batches);
    }
    if (o.minibatch_docs < 1) o.minibatch_docs = 1;
    g->options = o;
    snprintf(g->description, sizeof g->description, "AGA-LDA (GPU %d: %s; mini-batches of %d documents)", gpu,
             prop.name, (int)o.minibatch_docs);
  } else {
    snprintf(g->description, sizeof g->description, "ESCA (GPU %d: %s%s)", gpu, prop.name,
             o.exact ? ", exact double-precision sweep" : "");
  }

  size_t free_bytes = 0, total_bytes = 0;
  const cudaError_t mem_e = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (mem_e != cudaSuccess) {
    sk_lda_esca_gpu_destroy(g);
    return cuda_fail(err, "querying the GPU's free memory", mem_e);
  }
  const size_t budget = budget_of(o, free_bytes);
  if (m->num_tokens > INT32_MAX) {  // past the resident sweep's int32 positions: stream
    const int rc = create_streamed(g, m, prop.name, budget, SIZE_MAX, err);
    if (rc != 0) sk_lda_esca_gpu_destroy(g);
    else *out = g;
    return rc;
  }
  sk_lda_pdow_plan plan;
  memset(&plan, 0, sizeof plan);
  sk_lda_aga_plan aga_plan;
  memset(&aga_plan, 0, sizeof aga_plan);
  int failed = 0;
  const sk_status st =
      sk_segmented_count_workspace_size(g->num_docs, (int32_t)g->num_tokens, g->num_topics, &g->d.workspace_bytes);
  if (st != SK_SUCCESS) failed = segc_fail(err, "sizing the segmented count's workspace", st);
  size_t needed = 0;
  if (!failed) {
    needed = (o.aga ? common_bytes(m) : core_bytes(m, o.exact)) + g->d.workspace_bytes;
    if (o.aga) {
      const int lanes = o.aga_lane_topics;
      const int bad_lanes =
          lanes != 0 && lanes != -1 && (lanes < 0 || lanes > 8 || (lanes & (lanes - 1)) != 0 || 32 * lanes < g->num_topics);
      const cudaError_t e =
          bad_lanes ? cudaSuccess : sk_lda_gpu::aga_choose_launch(gpu, g->num_topics, o.threads, lanes, &g->aga_launch);
      if (bad_lanes)
        failed = sk_lda_fail(err, "GPU AGA-LDA: %d topics a lane is not 1, 2, 4 or 8 covering K = %d", lanes,
                             (int)g->num_topics);
      else if (e == cudaErrorInvalidValue)
        failed = sk_lda_fail(err,
                             "GPU AGA-LDA: one word's row of K = %d counts (%zu bytes) does not fit in a block's "
                             "shared memory on GPU %d; use --sampler esca for this K",
                             (int)g->num_topics, (size_t)g->num_topics * sizeof(int32_t), gpu);
      else if (e != cudaSuccess)
        failed = cuda_fail(err, "choosing AGA's launch", e);
      else if (o.aga_panel_words > 0 && o.aga_panel_words < g->aga_launch.panel_words)
        g->aga_launch.panel_words = o.aga_panel_words;
    } else if (!o.exact) {
      cudaError_t e = sk_lda_gpu::fast_choose_launch(gpu, g->num_topics, o.threads, o.blocks_per_sm, &g->launch);
      if (e != cudaSuccess) {
        failed = cuda_fail(err, "choosing the launch", e);
      } else {
        needed += g->launch.scratch_floats * sizeof(float);
        if (o.item_tokens == 0) o.item_tokens = sk_lda_gpu::fast_default_item_tokens(g->num_tokens, g->launch);
        g->options = o;
      }
    }
  }
  /* The dense part first (before the plan's host work), then with the plan's exact size. When either
     passes the budget, the fast sweep streams (the plan is not needed) and the others fail. */
  int stream = 0;
  for (int pass = 0; pass < 2 && !failed && !stream; ++pass) {
    if (pass == 1 && o.aga) {
      // By default 4 panels (blocks) a mini-batch for every multiprocessor: measured against 8 and 16.
      failed = sk_lda_aga_plan_build(m->corpus, o.minibatch_docs, g->aga_launch.panel_words,
                                     o.aga_panels > 0 ? o.aga_panels : 4 * prop.multiProcessorCount,
                                     !o.aga_whole_words, &aga_plan, err);
      if (failed) break;
      needed += aga_bytes(m, &aga_plan) - common_bytes(m);
    } else if (pass == 1 && !o.exact) {
      failed = sk_lda_pdow_plan_build(m->corpus, o.chunk_tokens, o.item_tokens, &plan, err);
      if (failed) break;
      g->num_groups = plan.num_groups;
      g->num_items = plan.num_items;
      needed += plan_bytes(plan.num_groups, plan.num_items);
    }
    if ((needed > budget || o.force_stream) && streamable) {
      stream = 1;
    } else if (needed > budget) {
      failed = sk_lda_fail(err,
                           "GPU %s: the model needs %zu bytes of GPU memory (%.2f GB: V = %d, K = %d, %lld tokens) "
                           "but the budget is %zu bytes (%.2f GB; GPU %d has %zu free); the %s needs the corpus "
                           "resident: use --sampler esca (which streams), --device cpu or a smaller K",
                           o.aga ? "AGA-LDA" : "ESCA", needed, (double)needed / 1e9, (int)g->num_words, (int)g->num_topics,
                           (long long)g->num_tokens, budget, (double)budget / 1e9, gpu, free_bytes,
                           o.aga ? "AGA sampler" : "exact sweep");
      failed = SK_LDA_ESCA_GPU_BUDGET_ERROR;
    }
  }
  if (stream) {
    sk_lda_pdow_plan_free(&plan);
    const int rc = create_streamed(g, m, prop.name, budget, needed, err);
    if (rc != 0) sk_lda_esca_gpu_destroy(g);
    else *out = g;
    return rc;
  }
  if (!failed) {
    const size_t D = (size_t)g->num_docs, pairs = (size_t)g->pair_capacity;
    g->h_a_offsets = (int32_t *)malloc((D + 1) * sizeof *g->h_a_offsets);
    g->h_a_topic = (uint32_t *)malloc((pairs > 0 ? pairs : 1) * sizeof *g->h_a_topic);
    g->h_a_count = (uint32_t *)malloc((pairs > 0 ? pairs : 1) * sizeof *g->h_a_count);
    if (g->h_a_offsets == NULL || g->h_a_topic == NULL || g->h_a_count == NULL)
      failed = sk_lda_fail(err, "GPU ESCA: out of host memory for A's copy (%zu pairs)", pairs);
  }
  if (!failed) failed = upload(g, m, &plan, &aga_plan, err);
  sk_lda_pdow_plan_free(&plan);
  sk_lda_aga_plan_free(&aga_plan);
  for (int i = 0; i < kMarks && !failed; ++i) {
    const cudaError_t e = cudaEventCreate(&g->marks[i]);
    if (e != cudaSuccess)
      failed = cuda_fail(err, "creating the timing events", e);
    else
      g->marks_made = i + 1;
  }
  g->stats.device_bytes = g->allocated;
  if (failed) {
    sk_lda_esca_gpu_destroy(g);
    return failed == SK_LDA_ESCA_GPU_BUDGET_ERROR ? SK_LDA_ESCA_GPU_BUDGET_ERROR : 1;
  }
  *out = g;
  return 0;
}

extern "C" int sk_lda_esca_gpu_sweep(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err) {
  if (g == NULL) return sk_lda_fail(err, "GPU ESCA sweep: sampler is NULL");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_lda_fail(err, "GPU ESCA sweep: iteration %llu is too large", (unsigned long long)iteration);
  if (g->stream != NULL) return sk_lda_gpu::stream_sweep(g->stream, iteration, err);
  SK_LDA_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[0], 0), "timing the sweep");
  const int swept = g->options.aga     ? sweep_aga(g, iteration, err)
                    : g->options.exact ? sweep_exact(g, iteration, err)
                                       : sweep_fast(g, iteration, err);
  if (swept != 0) return 1;
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[3], 0), "timing the sweep");
  if (count_a(g, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaEventRecord(g->marks[4], 0), "timing the sweep");
  SK_LDA_CUDA_TRY(cudaDeviceSynchronize(), "running the sweep");
  float ms[kMarks - 1];
  for (int i = 0; i < kMarks - 1; ++i)
    SK_LDA_CUDA_TRY(cudaEventElapsedTime(&ms[i], g->marks[i], g->marks[i + 1]), "timing the sweep");
  g->stats.sweeps += 1;
  g->stats.tables_seconds += 1e-3 * ms[0];
  g->stats.sample_seconds += 1e-3 * ms[1];
  g->stats.b_seconds += 1e-3 * ms[2];
  g->stats.a_seconds += 1e-3 * ms[3];
  return 0;
}

extern "C" int sk_lda_esca_gpu_to_host(sk_lda_esca_gpu *g, sk_lda_model *m, sk_lda_error *err) {
  if (g == NULL || m == NULL || m->z == NULL) return sk_lda_fail(err, "GPU ESCA to host: sampler or model NULL");
  if (m->num_topics != g->num_topics || m->num_words != g->num_words || m->num_docs != g->num_docs ||
      m->num_tokens != g->num_tokens)
    return sk_lda_fail(err, "GPU ESCA to host: the model's shape differs from the sampler's");
  if (g->stream != NULL) return sk_lda_gpu::stream_to_host(g->stream, m, g->options.host_threads, err);
  SK_LDA_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  const device_state &d = g->d;
  const size_t T = (size_t)g->num_tokens, D = (size_t)g->num_docs, K = (size_t)g->num_topics;
  if (T > 0) SK_LDA_CUDA_TRY(cudaMemcpy(m->z, d.z, T * sizeof *m->z, cudaMemcpyDeviceToHost), "copying z");
  SK_LDA_CUDA_TRY(cudaMemcpy(m->n_vk, d.b, (size_t)g->num_words * K * sizeof *m->n_vk, cudaMemcpyDeviceToHost),
                  "copying B");
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "n_k is copied as it is");
  SK_LDA_CUDA_TRY(cudaMemcpy(m->n_k, d.n_k, K * sizeof *m->n_k, cudaMemcpyDeviceToHost), "copying n_k");
  SK_LDA_CUDA_TRY(cudaMemcpy(g->h_a_offsets, d.a_offsets, (D + 1) * sizeof *g->h_a_offsets, cudaMemcpyDeviceToHost),
                  "copying A's offsets");
  const int32_t pairs = g->h_a_offsets[D];
  if (pairs < 0 || pairs > g->pair_capacity)
    return sk_lda_fail(err, "GPU ESCA to host: A has %d pairs, more than its capacity %lld", (int)pairs,
                       (long long)g->pair_capacity);
  if (pairs > 0) {
    SK_LDA_CUDA_TRY(cudaMemcpy(g->h_a_topic, d.a_topic, (size_t)pairs * sizeof *g->h_a_topic, cudaMemcpyDeviceToHost),
                    "copying A's topics");
    SK_LDA_CUDA_TRY(cudaMemcpy(g->h_a_count, d.a_count, (size_t)pairs * sizeof *g->h_a_count, cudaMemcpyDeviceToHost),
                    "copying A's counts");
  }
  for (size_t doc = 0; doc < D; ++doc) {
    const int32_t begin = g->h_a_offsets[doc], nnz = g->h_a_offsets[doc + 1] - begin;
    if (nnz < 0 || (int64_t)nnz > m->dk_start[doc + 1] - m->dk_start[doc])
      return sk_lda_fail(err, "GPU ESCA to host: document %zu has %d topics, more than its %lld slots", doc, (int)nnz,
                         (long long)(m->dk_start[doc + 1] - m->dk_start[doc]));
    for (int32_t i = 0; i < nnz; ++i) {
      m->dk_topic[m->dk_start[doc] + i] = (int32_t)g->h_a_topic[begin + i];
      m->dk_count[m->dk_start[doc] + i] = (int32_t)g->h_a_count[begin + i];
    }
    m->dk_nnz[doc] = nnz;
  }
  return 0;
}

extern "C" void sk_lda_esca_gpu_get_stats(const sk_lda_esca_gpu *g, sk_lda_esca_gpu_stats *out) {
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
  if (g == NULL) return;
  *out = g->stats;
  if (g->stream != NULL) sk_lda_gpu::stream_get_stats(g->stream, out);
}

extern "C" int sk_lda_esca_gpu_counts(const sk_lda_esca_gpu *g, sk_lda_gpu_counts *out, sk_lda_error *err) {
  if (g == NULL || out == NULL) return sk_lda_fail(err, "GPU ESCA counts: sampler or out is NULL");
  memset(out, 0, sizeof *out);
  if (g->stream != NULL)
    return sk_lda_fail(err, "GPU ESCA counts: a streamed sampler's A and z are not on the device (use to_host)");
  out->gpu = g->gpu;
  out->num_topics = g->num_topics;
  out->num_words = g->num_words;
  out->num_docs = g->num_docs;
  out->num_tokens = g->num_tokens;
  out->alpha = g->alpha;
  out->beta = g->beta;
  out->seed = g->seed;
  out->b = g->d.b;
  out->n_k = g->d.n_k;
  out->doc_offsets = g->d.doc_offsets;
  out->a_offsets = g->d.a_offsets;
  out->a_topic = g->d.a_topic;
  out->a_count = g->d.a_count;
  return 0;
}

extern "C" const char *sk_lda_esca_gpu_description(const sk_lda_esca_gpu *g) {
  return g != NULL ? g->description : "ESCA (GPU)";
}

extern "C" void sk_lda_esca_gpu_destroy(sk_lda_esca_gpu *g) {
  if (g == NULL) return;
  (void)cudaSetDevice(g->gpu); /* the allocations belong to it; when this fails, so do the frees */
  sk_lda_gpu::stream_destroy(g->stream);
  free_device(&g->d);
  for (int i = 0; i < g->marks_made; ++i) (void)cudaEventDestroy(g->marks[i]);
  free(g->h_a_offsets);
  free(g->h_a_topic);
  free(g->h_a_count);
  free(g->h_batch_doc);
  free(g->h_batch_panel);
  free(g);
}
