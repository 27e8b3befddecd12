// Tests the CSR streaming pipeline (csr_pipeline.h, kernels/csr_pipeline.c and csr_pipeline_run.c):
// - host (--host): the chunk costs, and every argument check of sk_csr_pipeline_create() and the other
//   calls that needs no GPU (they must return before touching CUDA);
// - GPU: on a synthetic corpus (Zipf-like document lengths, empty documents at both ends and scattered,
//   one long document, Zipf-like word ids), a kernel transforms every token (an in-out uint16 topic
//   array, an out-only int32 array, a per-document input and a per-document sum): the results equal the
//   host reference exactly for plans of 1 (resident), 2, 7 and 50 chunks, with 1, 2 and 4 workers, with
//   pageable, pinned and mixed (pinned, registered and pageable) host arrays, without an order and with
//   the host, device and automatic order, over 2 runs; a second kernel copies the word order (d_perm,
//   d_inverse, d_word_offsets) out, checked against sk_csr_chunk_order_host(); the traffic of every run,
//   upload and download is the documented number (so resident runs after the first copy nothing and
//   the host order is copied, the device order not); resident mode reads no host array after its first
//   upload, until sk_csr_pipeline_upload(); errors injected on chunk k (a failing function, a launch
//   error left pending, an error pending before the run) give the documented status, chunks before k
//   complete and whole, nothing of chunk k or later written, and a pipeline that still runs and is
//   destroyed; the usage snippet.
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "csr_pipeline_test_util.cuh"
#include "samplekit/samplekit.h"
#include "sk_test.h"

//! [csr_pipeline_usage]
// One step of a toy iteration on a chunk: every token's topic moves, and each document's length is
// written out. A thread per document (row); offsets are the chunk's, rebased to 0.
__global__ void usage_step_kernel(const int32_t *row_offsets, int64_t num_rows, const int32_t *tokens,
                                  uint16_t *topics, int32_t *doc_lengths) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < num_rows; r += (int64_t)gridDim.x * blockDim.x) {
    for (int32_t t = row_offsets[r]; t < row_offsets[r + 1]; ++t)
      topics[t] = (uint16_t)((topics[t] + tokens[t]) % 100);
    doc_lengths[r] = row_offsets[r + 1] - row_offsets[r];
  }
}

// The pipeline's callback: enqueue the chunk's work on the worker's stream, report launch errors.
static sk_status usage_step(const sk_csr_chunk_view *chunk, sk_stream stream, void *user) {
  (void)user;
  const int64_t blocks = (chunk->info.num_rows + 255) / 256;
  usage_step_kernel<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256, 0, (cudaStream_t)stream>>>(
      chunk->d_row_offsets, chunk->info.num_rows, chunk->d_tokens, (uint16_t *)chunk->d_arrays[0],
      (int32_t *)chunk->d_arrays[1]);
  return sk_status_from_cuda_error((int)cudaGetLastError());
}

// Runs `iterations` steps over a corpus with 4 workers of at most `budget` device bytes each.
static sk_status usage_example(const int64_t *row_offsets, int64_t num_rows, const int32_t *tokens, int32_t num_cols,
                               uint16_t *topics, int32_t *doc_lengths, size_t budget, int iterations) {
  sk_csr_pipeline_array arrays[2] = {
      {topics, sizeof(uint16_t), SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_IN_OUT, NULL},
      {doc_lengths, sizeof(int32_t), SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_OUT, NULL}};
  size_t per_token, per_row, per_chunk;
  sk_csr_chunk_plan *plan = NULL;
  sk_csr_pipeline *pipeline = NULL;
  // The plan's costs are the pipeline's, so every chunk fits a worker of `budget` bytes.
  sk_status st = sk_csr_pipeline_chunk_costs(arrays, 2, num_cols, SK_CSR_PIPELINE_ORDER_NONE, 0, &per_token,
                                             &per_row, &per_chunk);
  if (st == SK_SUCCESS)
    st = sk_csr_chunk_plan_create(row_offsets, num_rows, per_token, per_row, per_chunk, budget, &plan, NULL, NULL);
  if (st == SK_SUCCESS)
    st = sk_csr_pipeline_create(plan, row_offsets, tokens, num_cols, arrays, 2, 4, SK_CSR_PIPELINE_ORDER_NONE, 0,
                                budget, &pipeline);
  sk_csr_chunk_plan_destroy(plan);  // the pipeline keeps what it needs
  for (int it = 0; it < iterations && st == SK_SUCCESS; ++it)
    st = sk_csr_pipeline_run(pipeline, usage_step, NULL, NULL);
  // A corpus that fit in one chunk stayed on the device (resident mode): fetch the results. When it
  // was streamed, the runs already wrote them and this copies nothing.
  if (st == SK_SUCCESS) st = sk_csr_pipeline_download(pipeline);
  sk_csr_pipeline_destroy(pipeline);
  return st;
}
//! [csr_pipeline_usage]

// ---------------------------------------------------------------------------------------------------
// The corpus and the host reference.

typedef struct Corpus {
  int64_t num_rows, num_tokens;
  int32_t num_cols;
  int64_t *offsets;   // num_rows + 1
  int32_t *tokens;    // num_tokens word ids
  uint16_t *topics0;  // initial topics
  int32_t *weights0;  // per-document input
} Corpus;

// Document lengths: empty documents at both ends and 5% scattered; otherwise 1 + 20 u^-0.7 capped at
// 400 (a heavy tail); one long document, T/100 tokens, a third of the way in. Word ids 
// floor(num_cols u^3): a few words carry most tokens.
static void make_corpus(Corpus *c, uint64_t seed, int64_t num_rows, int32_t num_cols) {
  uint64_t rng = 0x70a1e5ull + seed * 0x9E3779B97F4A7C15ull;
  int64_t *len = (int64_t *)csr_test_xmalloc((size_t)num_rows * sizeof *len);
  int64_t sum = 0, r, t;
  for (r = 0; r < num_rows; ++r) {
    const float u = (float)((sk_test_rand_u32(&rng) >> 8) + 1) * 5.9604644775390625e-8f;
    const bool empty = r < 3 || r >= num_rows - 10 || sk_test_rand_u32(&rng) % 100u < 5u;
    int64_t l = 1 + (int64_t)(20.0 * pow((double)u, -0.7));
    len[r] = empty ? 0 : (l > 400 ? 400 : l);
    sum += len[r];
  }
  len[num_rows / 3] = sum / 100 > 401 ? sum / 100 : 401;
  c->num_rows = num_rows;
  c->num_cols = num_cols;
  c->offsets = (int64_t *)csr_test_xmalloc(((size_t)num_rows + 1) * sizeof *c->offsets);
  c->offsets[0] = 0;
  for (r = 0; r < num_rows; ++r) c->offsets[r + 1] = c->offsets[r] + len[r];
  c->num_tokens = c->offsets[num_rows];
  c->tokens = (int32_t *)csr_test_xmalloc((size_t)c->num_tokens * sizeof *c->tokens);
  c->topics0 = (uint16_t *)csr_test_xmalloc((size_t)c->num_tokens * sizeof *c->topics0);
  c->weights0 = (int32_t *)csr_test_xmalloc((size_t)num_rows * sizeof *c->weights0);
  for (t = 0; t < c->num_tokens; ++t) {
    const double u = sk_test_rand_unit_f32(&rng);
    int32_t w = (int32_t)((double)num_cols * u * u * u);
    c->tokens[t] = w < num_cols ? w : num_cols - 1;
    c->topics0[t] = (uint16_t)(sk_test_rand_u32(&rng) % 1000u);
  }
  for (r = 0; r < num_rows; ++r) c->weights0[r] = (int32_t)(sk_test_rand_u32(&rng) % 100u);
  free(len);
}

static void free_corpus(Corpus *c) {
  free(c->offsets);
  free(c->tokens);
  free(c->topics0);
  free(c->weights0);
}

// The transformation, shared by the kernel and the reference (the test is about the pipeline: what
// matters is that every token and document reaches it once, with the right ids and inputs).
static __host__ __device__ inline int32_t test_out(uint32_t word, uint32_t doc, uint32_t topic, uint32_t weight) {
  return (int32_t)((sk_mix_u32(word * 0x9E3779B1u ^ sk_mix_u32(doc + 0x632BE5ABu) ^ (topic << 7)) ^ weight) &
                   0x7fffffffu);
}
static __host__ __device__ inline uint16_t test_topic(uint32_t word, uint32_t doc, uint32_t topic, uint32_t weight) {
  return (uint16_t)((topic * 31u + word * 7u + doc * 13u + weight) % 1009u);
}

// What the host arrays hold: topics (in-out), out and per-document sums (out).
typedef struct State {
  uint16_t *topics;
  int32_t *out;
  int64_t *doc_sum;
} State;

static void alloc_state(State *s, const Corpus *c) {
  s->topics = (uint16_t *)csr_test_xmalloc((size_t)c->num_tokens * sizeof *s->topics);
  s->out = (int32_t *)csr_test_xmalloc((size_t)c->num_tokens * sizeof *s->out);
  s->doc_sum = (int64_t *)csr_test_xmalloc((size_t)c->num_rows * sizeof *s->doc_sum);
}

static void free_state(State *s) {
  free(s->topics);
  free(s->out);
  free(s->doc_sum);
}

#define TEST_SENTINEL_BYTE 0xA5  // out values are non-negative, so 0xA5A5... never is one

// The state before any run: the initial topics, sentinel outputs.
static void initial_state(State *s, const Corpus *c) {
  memcpy(s->topics, c->topics0, (size_t)c->num_tokens * sizeof *s->topics);
  memset(s->out, TEST_SENTINEL_BYTE, (size_t)c->num_tokens * sizeof *s->out);
  memset(s->doc_sum, TEST_SENTINEL_BYTE, (size_t)c->num_rows * sizeof *s->doc_sum);
}

// One iteration on the host: next = the result of a run from `topics` with per-document `weights`.
static void reference_iteration(const Corpus *c, const uint16_t *topics, const int32_t *weights, State *next) {
  for (int64_t d = 0; d < c->num_rows; ++d) {
    int64_t sum = 0;
    for (int64_t t = c->offsets[d]; t < c->offsets[d + 1]; ++t) {
      const uint32_t w = (uint32_t)c->tokens[t], z = topics[t], q = (uint32_t)weights[d];
      const int32_t o = test_out(w, (uint32_t)d, z, q);
      next->out[t] = o;
      next->topics[t] = test_topic(w, (uint32_t)d, z, q);
      sum += o;
    }
    next->doc_sum[d] = sum;
  }
}

// ---------------------------------------------------------------------------------------------------
// Host arrays in the three kinds of memory (csr_pipeline_test_util.cuh).

// The declared arrays' indices.
enum { kTopics, kOut, kWeights, kDocSum, kInv, kPerm, kWordStart, kWordEnd, kNumArrays };

typedef struct HostSet {
  int mem;
  int kinds[kNumArrays + 1];  // per array, then the tokens
  void *arrays[kNumArrays];
  int32_t *tokens;
} HostSet;

static void make_host_set(HostSet *h, const Corpus *c, int mem) {
  const size_t T = (size_t)c->num_tokens, R = (size_t)c->num_rows;
  const size_t bytes[kNumArrays] = {2 * T, 4 * T, 4 * R, 8 * R, 4 * T, 4 * T, 4 * T, 4 * T};
  static const int mixed[kNumArrays + 1] = {kRegistered, kMalloc, kHostAlloc, kMalloc, kHostAlloc,
                                            kMalloc,     kRegistered, kMalloc, kRegistered};
  h->mem = mem;
  for (int a = 0; a <= kNumArrays; ++a) {
    h->kinds[a] = csr_test_mem_kind(mem, mixed[a]);
    if (a < kNumArrays) h->arrays[a] = csr_test_host_alloc(bytes[a], h->kinds[a]);
  }
  h->tokens = csr_test_host_tokens(c->tokens, c->num_tokens, h->kinds[kNumArrays]);
}

static void free_host_set(HostSet *h) {
  for (int a = 0; a < kNumArrays; ++a) csr_test_host_free(h->arrays[a], h->kinds[a]);
  csr_test_host_free(h->tokens, h->kinds[kNumArrays]);
}

// Puts `s` and the initial per-document weights in the host arrays, sentinels in the order outputs.
static void load_host_set(HostSet *h, const Corpus *c, const State *s) {
  const size_t T = (size_t)c->num_tokens, R = (size_t)c->num_rows;
  memcpy(h->arrays[kTopics], s->topics, 2 * T);
  memcpy(h->arrays[kOut], s->out, 4 * T);
  memcpy(h->arrays[kWeights], c->weights0, 4 * R);
  memcpy(h->arrays[kDocSum], s->doc_sum, 8 * R);
  for (int a = kInv; a <= kWordEnd; ++a) memset(h->arrays[a], TEST_SENTINEL_BYTE, 4 * T);
}

static int declare_arrays(const HostSet *h, int with_order, sk_csr_pipeline_array *arr) {
  const sk_csr_pipeline_array base[kNumArrays] = {
      {h->arrays[kTopics], 2, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_IN_OUT, NULL},
      {h->arrays[kOut], 4, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_OUT, NULL},
      {h->arrays[kWeights], 4, SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_IN, NULL},
      {h->arrays[kDocSum], 8, SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_OUT, NULL},
      {h->arrays[kInv], 4, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_OUT, NULL},
      {h->arrays[kPerm], 4, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_OUT, NULL},
      {h->arrays[kWordStart], 4, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_OUT, NULL},
      {h->arrays[kWordEnd], 4, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_OUT, NULL}};
  const int n = with_order ? kNumArrays : kInv;
  for (int a = 0; a < n; ++a) arr[a] = base[a];
  return n;
}

// ---------------------------------------------------------------------------------------------------
// Comparisons: the first mismatch of an element range, with the chunk it belongs to.

static int check_range(const char *what, const void *got, const void *want, size_t elem, int64_t first,
                       int64_t count, int64_t chunk) {
  const unsigned char *g = (const unsigned char *)got + elem * (size_t)first;
  const unsigned char *w = (const unsigned char *)want + elem * (size_t)first;
  if (count <= 0 || memcmp(g, w, elem * (size_t)count) == 0) return SK_CHECK(1, "");
  for (int64_t i = 0; i < count; ++i)
    if (memcmp(g + elem * (size_t)i, w + elem * (size_t)i, elem) != 0) {
      long long gv = 0, wv = 0;
      memcpy(&gv, g + elem * (size_t)i, elem < 8 ? elem : 8);
      memcpy(&wv, w + elem * (size_t)i, elem < 8 ? elem : 8);
      return SK_CHECK(0, "%s: element %lld (chunk %lld) is %lld, expected %lld", what, (long long)(first + i),
                      (long long)chunk, gv, wv);
    }
  return SK_CHECK(0, "%s: memcmp and the element loop disagree", what);
}

// Chunks before k must hold `before`, chunks k and later `after`, in the topic, out and sum arrays.
static void check_state_by_chunk(const HostSet *h, const sk_csr_chunk_plan *plan, int64_t k, const State *before,
                                 const State *after) {
  int64_t num_chunks = 0;
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  for (int64_t c = 0; c < num_chunks; ++c) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, c, &ci);
    const State *s = c < k ? before : after;
    check_range("topics", h->arrays[kTopics], s->topics, 2, ci.first_token, ci.num_tokens, c);
    check_range("out", h->arrays[kOut], s->out, 4, ci.first_token, ci.num_tokens, c);
    check_range("doc_sum", h->arrays[kDocSum], s->doc_sum, 8, ci.first_row, ci.num_rows, c);
  }
}

static void check_state(const HostSet *h, const Corpus *c, const State *s) {
  check_range("topics", h->arrays[kTopics], s->topics, 2, 0, c->num_tokens, -1);
  check_range("out", h->arrays[kOut], s->out, 4, 0, c->num_tokens, -1);
  check_range("doc_sum", h->arrays[kDocSum], s->doc_sum, 8, 0, c->num_rows, -1);
}

// The word order outputs of a plan, from sk_csr_chunk_order_host() chunk by chunk.
typedef struct OrderRef {
  int32_t *inv, *perm, *word_start, *word_end;
} OrderRef;

static void make_order_ref(OrderRef *o, const Corpus *c, const sk_csr_chunk_plan *plan) {
  const size_t T = (size_t)c->num_tokens;
  int64_t num_chunks = 0;
  int64_t *wo = (int64_t *)csr_test_xmalloc(((size_t)c->num_cols + 1) * sizeof *wo);
  o->inv = (int32_t *)csr_test_xmalloc(4 * T);
  o->perm = (int32_t *)csr_test_xmalloc(4 * T);
  o->word_start = (int32_t *)csr_test_xmalloc(4 * T);
  o->word_end = (int32_t *)csr_test_xmalloc(4 * T);
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  for (int64_t ch = 0; ch < num_chunks; ++ch) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, ch, &ci);
    const int32_t *tok = c->tokens + ci.first_token;
    SK_CHECK(sk_csr_chunk_order_host(tok, ci.num_tokens, c->num_cols, o->perm + ci.first_token,
                                     o->inv + ci.first_token, wo) == SK_SUCCESS,
             "host order of chunk %lld", (long long)ch);
    for (int64_t i = 0; i < ci.num_tokens; ++i) {
      o->word_start[ci.first_token + i] = (int32_t)wo[tok[i]];
      o->word_end[ci.first_token + i] = (int32_t)wo[tok[i] + 1];
    }
  }
  free(wo);
}

static void free_order_ref(OrderRef *o) {
  free(o->inv);
  free(o->perm);
  free(o->word_start);
  free(o->word_end);
}

static void check_order(const HostSet *h, const Corpus *c, const OrderRef *o) {
  check_range("d_inverse", h->arrays[kInv], o->inv, 4, 0, c->num_tokens, -1);
  check_range("d_perm", h->arrays[kPerm], o->perm, 4, 0, c->num_tokens, -1);
  check_range("d_word_offsets[word]", h->arrays[kWordStart], o->word_start, 4, 0, c->num_tokens, -1);
  check_range("d_word_offsets[word + 1]", h->arrays[kWordEnd], o->word_end, 4, 0, c->num_tokens, -1);
}

// The documented traffic of one streaming run (or a resident upload) of this test's arrays.
static void expected_traffic(const sk_csr_chunk_plan *plan, int with_order, int host_order, int32_t num_cols,
                             uint64_t *h2d, uint64_t *d2h) {
  int64_t num_chunks = 0;
  *h2d = *d2h = 0;
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  for (int64_t ch = 0; ch < num_chunks; ++ch) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, ch, &ci);
    const uint64_t n = (uint64_t)ci.num_tokens, r = (uint64_t)ci.num_rows;
    *h2d += 4 * (r + 1) + 4 * n + 2 * n + 4 * r + (host_order ? 8 * n + 8 * ((uint64_t)num_cols + 1) : 0);
    *d2h += 2 * n + 4 * n + 8 * r + (with_order ? 16 * n : 0);
  }
}

// ---------------------------------------------------------------------------------------------------
// The callback under test.

__global__ void transform_kernel(const int32_t *row_offsets, int64_t first_row, int64_t num_rows,
                                 const int32_t *tokens, uint16_t *topics, int32_t *out, const int32_t *weights,
                                 int64_t *doc_sum, int64_t *scratch, int64_t chunk) {
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < num_rows; r += (int64_t)gridDim.x * blockDim.x) {
    const uint32_t d = (uint32_t)(first_row + r), q = (uint32_t)weights[r];
    int64_t sum = 0;
    for (int32_t t = row_offsets[r]; t < row_offsets[r + 1]; ++t) {
      const uint32_t w = (uint32_t)tokens[t], z = topics[t];
      const int32_t o = test_out(w, d, z, q);
      out[t] = o;
      topics[t] = test_topic(w, d, z, q);
      sum += o;
    }
    doc_sum[r] = sum;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0 && scratch != NULL) scratch[0] = chunk;  // the scratch is writable
}

__global__ void order_kernel(const int32_t *tokens, int64_t num_tokens, const int32_t *perm, const int32_t *inverse,
                             const int64_t *word_offsets, int32_t *inv_out, int32_t *perm_out, int32_t *start_out,
                             int32_t *end_out) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < num_tokens; i += stride) {
    inv_out[i] = inverse[i];
    perm_out[i] = perm[i];
    start_out[i] = (int32_t)word_offsets[tokens[i]];
    end_out[i] = (int32_t)word_offsets[tokens[i] + 1];
  }
}

__global__ void empty_kernel() {}

typedef struct StepCtx {
  CsrTestStep step;  // plan, workers, fail_at, calls, chunk order, bad views
  int with_order;
  size_t scratch_bytes;
  int64_t launch_error_at;  // the function leaves a launch error pending on this chunk
} StepCtx;

static void step_ctx_init(StepCtx *ctx, const sk_csr_chunk_plan *plan, int num_workers, int with_order,
                          size_t scratch_bytes) {
  memset(ctx, 0, sizeof *ctx);
  csr_test_step_init(&ctx->step, plan, num_workers);
  ctx->with_order = with_order;
  ctx->scratch_bytes = scratch_bytes;
  ctx->launch_error_at = -1;
}

static sk_status test_step(const sk_csr_chunk_view *v, sk_stream stream, void *user) {
  StepCtx *ctx = (StepCtx *)user;
  const cudaStream_t s = (cudaStream_t)stream;
  sk_csr_chunk_info ci;
  // The view: chunk order, the plan's description, the worker rule, the pointers' shape.
  int ok = csr_test_view_ok(&ctx->step, v, &ci) && v->num_arrays == (ctx->with_order ? kNumArrays : kInv) &&
           csr_test_aligned256(v->d_row_offsets) && csr_test_aligned256(v->d_tokens) &&
           v->scratch_bytes == ctx->scratch_bytes && (v->d_scratch != NULL) == (ctx->scratch_bytes > 0) &&
           (v->d_perm != NULL && v->d_inverse != NULL && v->d_word_offsets != NULL) == (ctx->with_order != 0);
  for (int a = 0; a < SK_CSR_PIPELINE_MAX_ARRAYS; ++a)
    ok = ok && (a < v->num_arrays ? v->d_arrays[a] != NULL && csr_test_aligned256(v->d_arrays[a])
                                  : v->d_arrays[a] == NULL);
  if (!ok) ++ctx->step.bad_views;

  transform_kernel<<<csr_test_grid_for(v->info.num_rows, 2048), 128, 0, s>>>(
      v->d_row_offsets, v->info.first_row, v->info.num_rows, v->d_tokens, (uint16_t *)v->d_arrays[kTopics],
      (int32_t *)v->d_arrays[kOut], (const int32_t *)v->d_arrays[kWeights], (int64_t *)v->d_arrays[kDocSum],
      (int64_t *)v->d_scratch, v->index);
  if (ctx->with_order && v->info.num_tokens > 0)
    order_kernel<<<csr_test_grid_for(v->info.num_tokens, 2048), 128, 0, s>>>(
        v->d_tokens, v->info.num_tokens, v->d_perm, v->d_inverse, v->d_word_offsets, (int32_t *)v->d_arrays[kInv],
        (int32_t *)v->d_arrays[kPerm], (int32_t *)v->d_arrays[kWordStart], (int32_t *)v->d_arrays[kWordEnd]);
  if (v->index == ctx->step.fail_at) return SK_ERROR_UNSUPPORTED;
  if (v->index == ctx->launch_error_at) {
    empty_kernel<<<0, 32, 0, s>>>();  // an invalid configuration, left pending on purpose
    return SK_SUCCESS;
  }
  return sk_status_from_cuda_error((int)cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------------
// Plans with a given number of chunks.

// The smallest budget whose plan has at most `want` chunks, under the pipeline's costs for these arrays.
static sk_csr_chunk_plan *plan_with_chunks(const Corpus *c, int with_order, size_t scratch, int64_t want,
                                           size_t *budget_out) {
  HostSet dummy;
  sk_csr_pipeline_array arr[kNumArrays];
  size_t bpt = 0, bpr = 0, fixed = 0;
  memset(&dummy, 0, sizeof dummy);
  const int n = declare_arrays(&dummy, with_order, arr);
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, n, c->num_cols, with_order ? SK_CSR_PIPELINE_ORDER_HOST
                                                                       : SK_CSR_PIPELINE_ORDER_NONE,
                                       scratch, &bpt, &bpr, &fixed) == SK_SUCCESS,
           "chunk costs");
  return csr_test_plan_with_chunks(c->offsets, c->num_rows, bpt, bpr, fixed, want, budget_out);
}

// ---------------------------------------------------------------------------------------------------
// GPU: the matrix of plans, workers, memory and orders, over two runs.

typedef struct Expect {
  State s0, s1, s2;  // before any run, after one, after two
} Expect;

static const sk_csr_pipeline_order kOrders[] = {SK_CSR_PIPELINE_ORDER_NONE, SK_CSR_PIPELINE_ORDER_HOST,
                                                SK_CSR_PIPELINE_ORDER_DEVICE, SK_CSR_PIPELINE_ORDER_AUTO};
static const char *const kOrderNames[] = {"none", "auto", "host", "device"};  // by enum value
enum { kScratch = 64 };

// One configuration's runs: the step context and what csr_test_two_runs() checks the host arrays with.
typedef struct ConfigRuns {
  StepCtx ctx;
  const sk_csr_chunk_plan *plan;
  int workers, with_order;  // W', and whether the order is copied out
  const Corpus *c;
  const Expect *e;
  const HostSet *h;
  const OrderRef *oref;
} ConfigRuns;

static void config_start_run(void *user) {
  ConfigRuns *r = (ConfigRuns *)user;
  step_ctx_init(&r->ctx, r->plan, r->workers, r->with_order, kScratch);
}

static void config_check_host(void *user, int state) {
  const ConfigRuns *r = (const ConfigRuns *)user;
  check_state(r->h, r->c, state == 0 ? &r->e->s0 : state == 1 ? &r->e->s1 : &r->e->s2);
  if (state > 0 && r->with_order) check_order(r->h, r->c, r->oref);
}

static void test_config(const Corpus *c, const Expect *e, HostSet *h, const sk_csr_chunk_plan *plan, size_t budget,
                        const OrderRef *oref, sk_csr_pipeline_order order, int workers) {
  const int with_order = order != SK_CSR_PIPELINE_ORDER_NONE;
  int64_t num_chunks = 0;
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  sk_test_context("seed corpus T=%lld, %lld chunks, W=%d, %s memory, order %s", (long long)c->num_tokens,
                  (long long)num_chunks, workers, kMemNames[h->mem], kOrderNames[order]);
  load_host_set(h, c, &e->s0);
  sk_csr_pipeline_array arr[kNumArrays];
  const int n = declare_arrays(h, with_order, arr);
  sk_csr_pipeline *p = NULL;
  const sk_status st = sk_csr_pipeline_create(plan, c->offsets, h->tokens, c->num_cols, arr, n, workers, order,
                                              kScratch, SIZE_MAX, &p);
  if (!SK_CHECK(st == SK_SUCCESS && p != NULL, "create returned %s", sk_status_name(st))) return;

  sk_csr_pipeline_info info;
  SK_CHECK(sk_csr_pipeline_get_info(p, &info) == SK_SUCCESS, "get_info");
  const sk_csr_pipeline_order resolved =
      order == SK_CSR_PIPELINE_ORDER_AUTO ? SK_CSR_PIPELINE_ORDER_DEVICE : order;  // AUTO: the measured faster
  const int host_order = resolved == SK_CSR_PIPELINE_ORDER_HOST;
  csr_test_check_info(&info, num_chunks, workers, resolved);
  // The costs bound the worker's buffer (the device order's workspace aside).
  SK_CHECK(info.device_bytes_per_worker > 0 &&
               (resolved == SK_CSR_PIPELINE_ORDER_DEVICE || info.device_bytes_per_worker <= budget),
           "device bytes per worker %zu, plan budget %zu", info.device_bytes_per_worker, budget);
  csr_test_check_staging(&info, h->mem);

  // A resident pipeline's first run uploads (the host order, not the device one); later runs copy
  // nothing, and the host arrays are untouched until the download.
  uint64_t in_bytes, out_bytes;
  expected_traffic(plan, with_order, host_order, c->num_cols, &in_bytes, &out_bytes);
  ConfigRuns r;
  r.plan = plan;
  r.workers = num_chunks < workers ? (int)num_chunks : workers;
  r.with_order = with_order;
  r.c = c;
  r.e = e;
  r.h = h;
  r.oref = oref;
  const CsrTestRuns runs = {test_step, &r.ctx, &r.ctx.step, config_start_run, config_check_host, &r};
  csr_test_two_runs(p, &runs, num_chunks, in_bytes, out_bytes);
  sk_csr_pipeline_destroy(p);
}

static void make_expect(Expect *e, const Corpus *c) {
  alloc_state(&e->s0, c);
  alloc_state(&e->s1, c);
  alloc_state(&e->s2, c);
  initial_state(&e->s0, c);
  reference_iteration(c, e->s0.topics, c->weights0, &e->s1);
  reference_iteration(c, e->s1.topics, c->weights0, &e->s2);
}

static void free_expect(Expect *e) {
  free_state(&e->s0);
  free_state(&e->s1);
  free_state(&e->s2);
}

static void test_matrix(int seed, int64_t num_rows, int full) {
  Corpus c;
  Expect e;
  HostSet h[kNumMemModes];
  static const int64_t kChunkCounts[] = {1, 2, 7, 50};
  static const int kWorkers[] = {1, 2, 4};
  make_corpus(&c, (uint64_t)seed, num_rows, 3000);
  make_expect(&e, &c);
  for (int m = 0; m < kNumMemModes; ++m) make_host_set(&h[m], &c, m);
  for (size_t k = 0; k < sizeof kChunkCounts / sizeof kChunkCounts[0]; ++k) {
    for (int with_order = 0; with_order <= 1; ++with_order) {
      size_t budget = 0;
      sk_test_context("seed %d, plan for %lld chunks", seed, (long long)kChunkCounts[k]);
      sk_csr_chunk_plan *plan = plan_with_chunks(&c, with_order, kScratch, kChunkCounts[k], &budget);
      if (plan == NULL) continue;
      OrderRef oref;
      if (with_order) make_order_ref(&oref, &c, plan);
      for (size_t o = 0; o < sizeof kOrders / sizeof kOrders[0]; ++o) {
        if ((kOrders[o] != SK_CSR_PIPELINE_ORDER_NONE) != with_order) continue;
        if (!full && kOrders[o] != SK_CSR_PIPELINE_ORDER_NONE && kOrders[o] != SK_CSR_PIPELINE_ORDER_AUTO) continue;
        for (int m = 0; m < kNumMemModes; ++m) {
          if (!full && m == kMemMixed) continue;
          for (size_t w = 0; w < sizeof kWorkers / sizeof kWorkers[0]; ++w)
            test_config(&c, &e, &h[m], plan, budget, with_order ? &oref : NULL, kOrders[o], kWorkers[w]);
        }
      }
      if (with_order) free_order_ref(&oref);
      sk_csr_chunk_plan_destroy(plan);
    }
  }
  for (int m = 0; m < kNumMemModes; ++m) free_host_set(&h[m]);
  free_expect(&e);
  free_corpus(&c);
}

// ---------------------------------------------------------------------------------------------------
// GPU: resident mode reads no host array after its upload, and upload/download do what they say.

static void test_resident_semantics(const Corpus *c, const Expect *e, int mem) {
  HostSet h;
  size_t budget;
  sk_csr_pipeline_info info;
  StepCtx ctx;
  int64_t done;
  uint64_t in_bytes, out_bytes;
  const size_t T = (size_t)c->num_tokens, R = (size_t)c->num_rows;
  sk_test_context("resident semantics, %s memory", kMemNames[mem]);
  make_host_set(&h, c, mem);
  load_host_set(&h, c, &e->s0);
  sk_csr_chunk_plan *plan = plan_with_chunks(c, 0, 0, 1, &budget);
  sk_csr_pipeline_array arr[kNumArrays];
  const int n = declare_arrays(&h, 0, arr);
  sk_csr_pipeline *p = NULL;
  SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, 2, SK_CSR_PIPELINE_ORDER_NONE, 0,
                                  budget, &p) == SK_SUCCESS,
           "create");
  if (p == NULL) {
    sk_csr_chunk_plan_destroy(plan);
    free_host_set(&h);
    return;
  }
  expected_traffic(plan, 0, 0, c->num_cols, &in_bytes, &out_bytes);
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.resident == 1 && info.num_workers == 1, "resident %d with %d workers", info.resident,
           info.num_workers);

  // Before any run there is nothing to download.
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download before a run");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_d2h_bytes == 0, "download before a run copied %llu bytes",
           (unsigned long long)info.last_d2h_bytes);
  check_state(&h, c, &e->s0);

  step_ctx_init(&ctx, plan, 1, 0, 0);
  SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS && done == 1, "run 1");
  // Scribble on every host input: the resident run 2 must not see it.
  int32_t *weights_x = (int32_t *)csr_test_xmalloc(4 * R);
  for (size_t r = 0; r < R; ++r) weights_x[r] = (int32_t)((c->weights0[r] * 7 + 3) % 100);
  memset(h.arrays[kTopics], 0x5A, 2 * T);
  memcpy(h.arrays[kWeights], weights_x, 4 * R);
  step_ctx_init(&ctx, plan, 1, 0, 0);
  SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS && done == 1, "run 2");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_h2d_bytes == 0 && info.last_d2h_bytes == 0, "run 2 copied %llu in, %llu out",
           (unsigned long long)info.last_h2d_bytes, (unsigned long long)info.last_d2h_bytes);
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download after run 2");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_d2h_bytes == out_bytes, "download copied %llu, expected %llu",
           (unsigned long long)info.last_d2h_bytes, (unsigned long long)out_bytes);
  check_state(&h, c, &e->s2);  // from the device's inputs, not the scribbled host ones

  // Upload one input: run 3 uses the new weights and continues from the device topics (= s2).
  State s3, s4;
  alloc_state(&s3, c);
  alloc_state(&s4, c);
  reference_iteration(c, e->s2.topics, weights_x, &s3);
  SK_CHECK(sk_csr_pipeline_upload(p, kWeights) == SK_SUCCESS, "upload weights");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_h2d_bytes == 4 * R && info.last_d2h_bytes == 0, "upload of the weights copied %llu",
           (unsigned long long)info.last_h2d_bytes);
  step_ctx_init(&ctx, plan, 1, 0, 0);
  SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS, "run 3");
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download after run 3");
  check_state(&h, c, &s3);
  // Upload every input (topics = s3 on the host now, weights_x): run 4 continues from them.
  memset(h.arrays[kOut], TEST_SENTINEL_BYTE, 4 * T);
  reference_iteration(c, s3.topics, weights_x, &s4);
  SK_CHECK(sk_csr_pipeline_upload(p, -1) == SK_SUCCESS, "upload all");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_h2d_bytes == 2 * T + 4 * R, "upload of all inputs copied %llu",
           (unsigned long long)info.last_h2d_bytes);
  step_ctx_init(&ctx, plan, 1, 0, 0);
  SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS, "run 4");
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download after run 4");
  check_state(&h, c, &s4);
  // Out-only arrays and indices out of range cannot be uploaded.
  SK_CHECK(sk_csr_pipeline_upload(p, kOut) == SK_ERROR_INVALID_VALUE, "upload of an out array");
  SK_CHECK(sk_csr_pipeline_upload(p, n) == SK_ERROR_INVALID_VALUE, "upload of array num_arrays");
  SK_CHECK(sk_csr_pipeline_upload(p, -2) == SK_ERROR_INVALID_VALUE, "upload of array -2");
  sk_csr_pipeline_destroy(p);
  sk_csr_chunk_plan_destroy(plan);

  // Streaming mode: upload and download copy nothing.
  plan = plan_with_chunks(c, 0, 0, 2, &budget);
  p = NULL;
  SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, 2, SK_CSR_PIPELINE_ORDER_NONE, 0,
                                  budget, &p) == SK_SUCCESS,
           "create (streaming)");
  if (p != NULL) {
    SK_CHECK(sk_csr_pipeline_upload(p, -1) == SK_SUCCESS && sk_csr_pipeline_download(p) == SK_SUCCESS,
             "upload and download in streaming mode");
    sk_csr_pipeline_get_info(p, &info);
    SK_CHECK(info.last_h2d_bytes == 0 && info.last_d2h_bytes == 0, "streaming upload/download copied bytes");
    SK_CHECK(sk_csr_pipeline_upload(p, kDocSum) == SK_ERROR_INVALID_VALUE, "upload of an out array (streaming)");
  }
  sk_csr_pipeline_destroy(p);
  sk_csr_chunk_plan_destroy(plan);
  free_state(&s3);
  free_state(&s4);
  free(weights_x);
  free_host_set(&h);
}

// ---------------------------------------------------------------------------------------------------
// GPU: errors injected on chunk k.

enum { kFailStatus, kFailLaunch };

// The code this CUDA gives the injected launch error (an empty grid): set by main before the GPU tests.
// (CUDA 13 reports it as cudaErrorInvalidValue, older ones as cudaErrorInvalidConfiguration.)
static int g_empty_grid_error = -1;

static void test_error_injection(const Corpus *c, const Expect *e, int mem, int64_t want_chunks, int workers,
                                 int64_t k, int how) {
  HostSet h;
  size_t budget;
  StepCtx ctx;
  int64_t done = -1, num_chunks = 0;
  sk_test_context("error injection: %s on chunk %lld of %lld, W=%d, %s memory",
                  how == kFailStatus ? "status" : "launch error", (long long)k, (long long)want_chunks, workers,
                  kMemNames[mem]);
  make_host_set(&h, c, mem);
  load_host_set(&h, c, &e->s0);
  sk_csr_chunk_plan *plan = plan_with_chunks(c, 0, 0, want_chunks, &budget);
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  const int resident = num_chunks == 1;
  const int w_eff = num_chunks < workers ? (int)num_chunks : workers;
  sk_csr_pipeline_array arr[kNumArrays];
  const int n = declare_arrays(&h, 0, arr);
  sk_csr_pipeline *p = NULL;
  SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, workers,
                                  SK_CSR_PIPELINE_ORDER_NONE, 0, budget, &p) == SK_SUCCESS,
           "create");
  if (p != NULL) {
    if (resident) {
      // A good run first: its results are on the device and are lost by the failed run.
      step_ctx_init(&ctx, plan, w_eff, 0, 0);
      SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS, "first run");
    }
    step_ctx_init(&ctx, plan, w_eff, 0, 0);
    if (how == kFailStatus)
      ctx.step.fail_at = k;
    else
      ctx.launch_error_at = k;
    sk_clear_cuda_error();
    const sk_status st = sk_csr_pipeline_run(p, test_step, &ctx, &done);
    const sk_status want = how == kFailStatus ? SK_ERROR_UNSUPPORTED : SK_ERROR_CUDA_LAUNCH_FAILED;
    SK_CHECK(st == want, "run returned %s, expected %s", sk_status_name(st), sk_status_name(want));
    SK_CHECK(done == k, "%lld chunks done, expected %lld", (long long)done, (long long)k);
    SK_CHECK(ctx.step.calls == k + 1, "the function was called %lld times, expected %lld", (long long)ctx.step.calls,
             (long long)(k + 1));
    if (how == kFailLaunch)
      SK_CHECK(sk_last_cuda_error() == g_empty_grid_error, "recorded CUDA error %d, want %d", sk_last_cuda_error(),
               g_empty_grid_error);
    SK_CHECK(cudaGetLastError() == cudaSuccess, "an error was left pending");
    // Chunks before k complete and whole (streaming); nothing of chunk k or later written.
    check_state_by_chunk(&h, plan, resident ? 0 : k, &e->s1, &e->s0);
    if (resident) {
      sk_csr_pipeline_info info;
      SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download after a failed run");
      sk_csr_pipeline_get_info(p, &info);
      SK_CHECK(info.last_d2h_bytes == 0, "download after a failed run copied %llu bytes",
               (unsigned long long)info.last_d2h_bytes);
      check_state(&h, c, &e->s0);
    }
    // The pipeline still works: chunks before k take their second step, the others their first (a
    // resident pipeline starts again from the host arrays).
    step_ctx_init(&ctx, plan, w_eff, 0, 0);
    SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS && done == num_chunks, "run after failure");
    SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download");
    check_state_by_chunk(&h, plan, resident ? 0 : k, &e->s2, &e->s1);
  }
  sk_csr_pipeline_destroy(p);
  sk_csr_chunk_plan_destroy(plan);
  free_host_set(&h);
}

// An error pending before the run: nothing starts; the next run works.
static void test_pending_error(const Corpus *c, const Expect *e) {
  HostSet h;
  size_t budget;
  StepCtx ctx;
  int64_t done = -1;
  sk_test_context("error pending before a run");
  make_host_set(&h, c, kMemPageable);
  load_host_set(&h, c, &e->s0);
  sk_csr_chunk_plan *plan = plan_with_chunks(c, 0, 0, 2, &budget);
  sk_csr_pipeline_array arr[kNumArrays];
  const int n = declare_arrays(&h, 0, arr);
  sk_csr_pipeline *p = NULL;
  SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, 2, SK_CSR_PIPELINE_ORDER_NONE, 0,
                                  budget, &p) == SK_SUCCESS,
           "create");
  if (p != NULL) {
    SK_CHECK(sk_csr_pipeline_run(p, NULL, NULL, &done) == SK_ERROR_NULL_POINTER, "run with a NULL function");
    empty_kernel<<<0, 32>>>();
    step_ctx_init(&ctx, plan, 2, 0, 0);
    SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_ERROR_CUDA_PENDING, "run with an error pending");
    SK_CHECK(done == 0 && ctx.step.calls == 0, "%lld chunks done, %lld calls", (long long)done,
             (long long)ctx.step.calls);
    check_state(&h, c, &e->s0);
    step_ctx_init(&ctx, plan, 2, 0, 0);
    SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS && done == 2, "the next run");
    check_state(&h, c, &e->s1);
  }
  sk_csr_pipeline_destroy(p);
  sk_csr_chunk_plan_destroy(plan);
  free_host_set(&h);
}

// The budget: exactly the worker's bytes is enough, one byte less is not (checked before CUDA).
static void test_budget_boundary(const Corpus *c) {
  size_t budget;
  sk_csr_pipeline_info info;
  sk_test_context("device budget boundary");
  sk_csr_chunk_plan *plan = plan_with_chunks(c, 1, 0, 7, &budget);
  HostSet h;
  make_host_set(&h, c, kMemPageable);
  sk_csr_pipeline_array arr[kNumArrays];
  const int n = declare_arrays(&h, 1, arr);
  for (int o = 0; o < 2; ++o) {
    const sk_csr_pipeline_order order = o == 0 ? SK_CSR_PIPELINE_ORDER_HOST : SK_CSR_PIPELINE_ORDER_DEVICE;
    sk_csr_pipeline *p = NULL;
    SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, 2, order, 0, SIZE_MAX, &p) ==
                 SK_SUCCESS,
             "create, order %d", (int)order);
    if (p == NULL) continue;
    sk_csr_pipeline_get_info(p, &info);
    sk_csr_pipeline_destroy(p);
    p = NULL;
    SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, 2, order, 0,
                                    info.device_bytes_per_worker, &p) == SK_SUCCESS,
             "a budget of exactly the worker's %zu bytes, order %d", info.device_bytes_per_worker, (int)order);
    sk_csr_pipeline_destroy(p);
    p = (sk_csr_pipeline *)&info;  // must come back NULL
    SK_CHECK(sk_csr_pipeline_create(plan, c->offsets, h.tokens, c->num_cols, arr, n, 2, order, 0,
                                    info.device_bytes_per_worker - 1, &p) == SK_ERROR_INVALID_VALUE &&
                 p == NULL,
             "a budget one byte short, order %d", (int)order);
  }
  free_host_set(&h);
  sk_csr_chunk_plan_destroy(plan);
}

// A plan of 0 chunks (no rows): nothing to do, and nothing fails.
static void test_empty_corpus(void) {
  const int64_t offsets[1] = {0};
  sk_csr_chunk_plan *plan = NULL;
  sk_csr_pipeline *p = NULL;
  sk_csr_pipeline_info info;
  StepCtx ctx;
  int64_t done = -1;
  sk_test_context("empty corpus");
  SK_CHECK(sk_csr_chunk_plan_create(offsets, 0, 4, 4, 0, 100, &plan, NULL, NULL) == SK_SUCCESS, "plan");
  SK_CHECK(sk_csr_pipeline_create(plan, offsets, NULL, 10, NULL, 0, 4, SK_CSR_PIPELINE_ORDER_AUTO, 0, SIZE_MAX, &p) ==
               SK_SUCCESS,
           "create");
  if (p != NULL) {
    sk_csr_pipeline_get_info(p, &info);
    SK_CHECK(info.num_chunks == 0 && info.num_workers == 0 && info.resident == 0 && info.device_bytes_per_worker == 0,
             "info of an empty pipeline");
    step_ctx_init(&ctx, plan, 1, 0, 0);
    SK_CHECK(sk_csr_pipeline_run(p, test_step, &ctx, &done) == SK_SUCCESS && done == 0 && ctx.step.calls == 0, "run");
    SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS && sk_csr_pipeline_upload(p, -1) == SK_SUCCESS,
             "download and upload");
  }
  sk_csr_pipeline_destroy(p);
  sk_csr_chunk_plan_destroy(plan);
}

static void test_usage_snippet(const Corpus *c) {
  const size_t T = (size_t)c->num_tokens, R = (size_t)c->num_rows;
  uint16_t *topics = (uint16_t *)csr_test_xmalloc(2 * T), *want = (uint16_t *)csr_test_xmalloc(2 * T);
  int32_t *lengths = (int32_t *)csr_test_xmalloc(4 * R);
  // Budgets for about 5 chunks (streaming) and for the whole corpus (resident); the snippet's costs
  // are 6 bytes per token, 8 per row and 4 + 6 x 255 per chunk.
  const size_t budgets[2] = {(6 * T + 8 * R) / 5 + 4096, 6 * T + 8 * R + 4096};
  for (int b = 0; b < 2; ++b) {
    sk_test_context("usage snippet, budget %zu", budgets[b]);
    memcpy(topics, c->topics0, 2 * T);
    memcpy(want, c->topics0, 2 * T);
    memset(lengths, 0xff, 4 * R);
    for (int it = 0; it < 3; ++it)
      for (size_t t = 0; t < T; ++t) want[t] = (uint16_t)((want[t] + c->tokens[t]) % 100);
    const sk_status st = usage_example(c->offsets, c->num_rows, c->tokens, c->num_cols, topics, lengths, budgets[b], 3);
    SK_CHECK(st == SK_SUCCESS, "usage_example returned %s", sk_status_name(st));
    check_range("topics", topics, want, 2, 0, (int64_t)T, -1);
    for (size_t r = 0; r < R; ++r)
      if (!SK_CHECK(lengths[r] == c->offsets[r + 1] - c->offsets[r], "length of document %zu", r)) break;
  }
  free(topics);
  free(want);
  free(lengths);
}

// ---------------------------------------------------------------------------------------------------
// Host: costs and argument checks (all of them return before CUDA is touched).

static void test_costs(void) {
  const sk_csr_pipeline_array arr[2] = {{NULL, 2, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_IN_OUT, NULL},
                                        {NULL, 8, SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_OUT, NULL}};
  size_t bpt = 1, bpr = 1, fixed = 1;
  sk_test_context("chunk costs");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, SK_CSR_PIPELINE_ORDER_HOST, 1000, &bpt, &bpr, &fixed) ==
                   SK_SUCCESS &&
               bpt == 4 + 2 + 8 && bpr == 4 + 8 && fixed == 4 + 1000 + 8 * 101 + 255 * (4 + 2 + 3),
           "with an order: %zu %zu %zu", bpt, bpr, fixed);
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) == SK_SUCCESS &&
               bpt == 6 && bpr == 12 && fixed == 4 + 255 * 6,
           "without: %zu %zu %zu", bpt, bpr, fixed);
  SK_CHECK(sk_csr_pipeline_chunk_costs(NULL, 0, 0, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) == SK_SUCCESS &&
               bpt == 4 && bpr == 4 && fixed == 4 + 255 * 4,
           "no arrays: %zu %zu %zu", bpt, bpr, fixed);
  bpt = bpr = fixed = 7;
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, NULL, &bpr, &fixed) ==
               SK_ERROR_NULL_POINTER,
           "NULL bytes_per_token");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, NULL, &fixed) ==
               SK_ERROR_NULL_POINTER,
           "NULL bytes_per_row");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, NULL) ==
               SK_ERROR_NULL_POINTER,
           "NULL fixed_bytes_per_chunk");
  SK_CHECK(sk_csr_pipeline_chunk_costs(NULL, 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_NULL_POINTER,
           "NULL arrays");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, -1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "num_arrays -1");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, SK_CSR_PIPELINE_MAX_ARRAYS + 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt,
                                       &bpr, &fixed) == SK_ERROR_INVALID_VALUE,
           "num_arrays too large");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, -1, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "num_cols -1");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, (sk_csr_pipeline_order)9, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "order 9");
  sk_csr_pipeline_array bad = arr[0];
  bad.element_bytes = 0;
  SK_CHECK(sk_csr_pipeline_chunk_costs(&bad, 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "element_bytes 0");
  bad = arr[0];
  bad.extent = (sk_csr_pipeline_extent)3;
  SK_CHECK(sk_csr_pipeline_chunk_costs(&bad, 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "extent 3");
  bad = arr[0];
  bad.direction = (sk_csr_pipeline_direction)0;
  SK_CHECK(sk_csr_pipeline_chunk_costs(&bad, 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "direction 0");
  bad.direction = (sk_csr_pipeline_direction)4;
  SK_CHECK(sk_csr_pipeline_chunk_costs(&bad, 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "direction 4");
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, 2, 100, SK_CSR_PIPELINE_ORDER_NONE, SIZE_MAX, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "fixed cost overflow");
  bad = arr[0];
  bad.element_bytes = SIZE_MAX - 2;
  SK_CHECK(sk_csr_pipeline_chunk_costs(&bad, 1, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed) ==
               SK_ERROR_INVALID_VALUE,
           "per-token cost overflow");
  SK_CHECK(bpt == 7 && bpr == 7 && fixed == 7, "an output was written on failure");
}

static void test_create_arguments(void) {
  // A small valid matrix: 6 rows, 10 tokens, 5 words; a plan of 3 chunks.
  const int64_t offsets[7] = {0, 2, 2, 5, 6, 9, 10};
  int64_t other_offsets[7];
  int32_t tokens[10] = {0, 1, 4, 2, 2, 3, 0, 0, 1, 4};
  uint16_t topics[10];
  int32_t out[10], weights[6];
  int64_t sums[6];
  sk_csr_pipeline_array arr[4] = {{topics, 2, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_IN_OUT, NULL},
                                  {out, 4, SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_OUT, NULL},
                                  {weights, 4, SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_IN, NULL},
                                  {sums, 8, SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_OUT, NULL}};
  sk_csr_chunk_plan *plan = NULL;
  SK_CHECK(sk_csr_chunk_plan_create(offsets, 6, 4, 4, 0, 16, &plan, NULL, NULL) == SK_SUCCESS, "plan");
  int64_t chunks = 0;
  sk_csr_chunk_plan_num_chunks(plan, &chunks);
  SK_CHECK(chunks > 1, "the plan has %lld chunks", (long long)chunks);
  sk_csr_pipeline *p = NULL;
  sk_csr_pipeline *const kJunk = (sk_csr_pipeline *)&p;
  const sk_csr_pipeline_order none = SK_CSR_PIPELINE_ORDER_NONE, host = SK_CSR_PIPELINE_ORDER_HOST;

#define CREATE(plan_, off_, tok_, cols_, arr_, narr_, w_, order_, budget_) \
  (p = kJunk, sk_csr_pipeline_create(plan_, off_, tok_, cols_, arr_, narr_, w_, order_, 0, budget_, &p))
#define EXPECT(call, want, what) CSR_TEST_EXPECT_REFUSED(p, call, want, what)

  sk_test_context("create arguments");
  SK_CHECK(sk_csr_pipeline_create(plan, offsets, tokens, 5, arr, 4, 2, none, 0, SIZE_MAX, NULL) ==
               SK_ERROR_NULL_POINTER,
           "NULL pipeline");
  EXPECT(CREATE(NULL, offsets, tokens, 5, arr, 4, 2, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL plan");
  EXPECT(CREATE(plan, NULL, tokens, 5, arr, 4, 2, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL offsets");
  EXPECT(CREATE(plan, offsets, tokens, -1, arr, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "num_cols -1");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 0, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "0 workers");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, SK_CSR_PIPELINE_MAX_WORKERS + 1, none, SIZE_MAX),
         SK_ERROR_INVALID_VALUE, "too many workers");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, -1, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "num_arrays -1");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, SK_CSR_PIPELINE_MAX_ARRAYS + 1, 2, none, SIZE_MAX),
         SK_ERROR_INVALID_VALUE, "too many arrays");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 2, (sk_csr_pipeline_order)4, SIZE_MAX), SK_ERROR_INVALID_VALUE,
         "order 4");
  EXPECT(CREATE(plan, offsets, tokens, 5, NULL, 4, 2, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL arrays");
  {
    sk_csr_pipeline_array bad[4];
    memcpy(bad, arr, sizeof bad);
    bad[1].element_bytes = 0;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "element_bytes 0");
    memcpy(bad, arr, sizeof bad);
    bad[2].extent = (sk_csr_pipeline_extent)-1;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "extent -1");
    memcpy(bad, arr, sizeof bad);
    bad[3].direction = (sk_csr_pipeline_direction)7;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "direction 7");
  }
  // The plan must match the offsets (the last chunk always ends at the last offset).
  memcpy(other_offsets, offsets, sizeof other_offsets);
  other_offsets[6] = 11;
  EXPECT(CREATE(plan, other_offsets, tokens, 5, arr, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
         "a plan of other offsets");
  memcpy(other_offsets, offsets, sizeof other_offsets);
  other_offsets[0] = 1;
  EXPECT(CREATE(plan, other_offsets, tokens, 5, arr, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
         "offsets[0] = 1");
  memcpy(other_offsets, offsets, sizeof other_offsets);
  other_offsets[4] = 4;
  EXPECT(CREATE(plan, other_offsets, tokens, 5, arr, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
         "decreasing offsets");
  // Pointers to the data.
  // (Without an order NULL tokens are allowed: test_csr_pipeline_chunk_arrays.cu.)
  EXPECT(CREATE(plan, offsets, NULL, 5, arr, 4, 2, host, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL tokens");
  {
    sk_csr_pipeline_array bad[4];
    memcpy(bad, arr, sizeof bad);
    bad[2].h_data = NULL;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL h_data");
    memcpy(bad, arr, sizeof bad);
    bad[0].element_bytes = SIZE_MAX / 4;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
           "array bytes overflow");
    // Overlaps of out arrays.
    memcpy(bad, arr, sizeof bad);
    bad[1].h_data = weights;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
           "an out array on an in array");
    memcpy(bad, arr, sizeof bad);
    bad[3].h_data = (void *)(offsets + 2);
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
           "an out array on the offsets");
    memcpy(bad, arr, sizeof bad);
    bad[0].h_data = tokens + 8;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
           "an in-out array on the tokens");
    memcpy(bad, arr, sizeof bad);
    bad[3].h_data = (unsigned char *)sums;
    bad[1].h_data = (unsigned char *)sums + 4;
    EXPECT(CREATE(plan, offsets, tokens, 5, bad, 4, 2, none, SIZE_MAX), SK_ERROR_INVALID_VALUE,
           "two out arrays overlapping");
  }
  // Tokens outside [0, num_cols) with an order (without one they are not looked at).
  tokens[7] = 5;
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 2, host, SIZE_MAX), SK_ERROR_INVALID_VALUE, "token 5 of 5 words");
  tokens[7] = -1;
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 2, SK_CSR_PIPELINE_ORDER_AUTO, SIZE_MAX), SK_ERROR_INVALID_VALUE,
         "token -1");
  tokens[7] = 0;
  // Budgets too small for the largest chunk.
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 2, none, 0), SK_ERROR_INVALID_VALUE, "budget 0");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 2, host, 100), SK_ERROR_INVALID_VALUE, "budget 100");
  EXPECT(CREATE(plan, offsets, tokens, 5, arr, 4, 2, host, 255), SK_ERROR_INVALID_VALUE, "budget 255");
#undef CREATE
#undef EXPECT
  sk_csr_chunk_plan_destroy(plan);

  sk_test_context("other calls' arguments");
  sk_csr_pipeline_destroy(NULL);  // a no-op
  int64_t done = 5;
  sk_csr_pipeline_info info;
  SK_CHECK(sk_csr_pipeline_run(NULL, test_step, NULL, &done) == SK_ERROR_NULL_POINTER, "run(NULL)");
  SK_CHECK(sk_csr_pipeline_download(NULL) == SK_ERROR_NULL_POINTER, "download(NULL)");
  SK_CHECK(sk_csr_pipeline_upload(NULL, -1) == SK_ERROR_NULL_POINTER, "upload(NULL)");
  SK_CHECK(sk_csr_pipeline_get_info(NULL, &info) == SK_ERROR_NULL_POINTER, "get_info(NULL, info)");
  SK_CHECK(sk_csr_pipeline_get_info(NULL, NULL) == SK_ERROR_NULL_POINTER, "get_info(NULL, NULL)");
}

int main(int argc, char **argv) {
  test_costs();
  test_create_arguments();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    empty_kernel<<<0, 32>>>();
    g_empty_grid_error = (int)cudaGetLastError();
    test_empty_corpus();
    {
      Corpus c;
      Expect e;
      make_corpus(&c, 0, 20000, 3000);
      make_expect(&e, &c);
      test_usage_snippet(&c);
      test_budget_boundary(&c);
      test_pending_error(&c, &e);
      // Under racecheck (sk_test.h): pinned memory, 2 workers and the middle failing chunk only; the
      // other variants launch the same kernels and differ in host copies.
      const int race = sk_test_under_racecheck();
      for (int m = 0; m < kNumMemModes; ++m)
        if (!race || m == kMemPinned) test_resident_semantics(&c, &e, m);
      static const int64_t kFailChunks[] = {0, 3, 6};
      for (int m = 0; m < kNumMemModes; ++m)
        for (int w = 1; w <= 4; w *= 2)
          for (size_t k = 0; k < sizeof kFailChunks / sizeof kFailChunks[0]; ++k)
            for (int how = kFailStatus; how <= kFailLaunch; ++how)
              if (!race || (m == kMemPinned && w == 2 && k == 1))
                test_error_injection(&c, &e, m, 7, w, kFailChunks[k], how);
      for (int how = kFailStatus; how <= kFailLaunch; ++how) test_error_injection(&c, &e, kMemPinned, 1, 2, 0, how);
      free_expect(&e);
      free_corpus(&c);
    }
    // Under racecheck: the small matrix once (every chunk count and worker count, orders none and
    // auto, pinned and pageable memory).
    for (int seed = 0; seed < sk_test_seed_count() && seed < 3; ++seed) {
      if (sk_test_under_racecheck()) {
        test_matrix(seed, 3000, 0);
        break;
      }
      test_matrix(seed, seed == 0 ? 20000 : 3000, seed == 0);
      sk_test_progress("seed %d: matrix done (%ld checks passed so far)", seed, sk_test_passed);
    }
  }
  return sk_test_finish();
}
