// Tests two parts of the CSR streaming pipeline (csr_pipeline.h, kernels/csr_pipeline*.c) that
// test_csr_pipeline.cu leaves out: per-chunk arrays (SK_CSR_PIPELINE_PER_CHUNK, chunk i's slice is
// elements [chunk_offsets[i], chunk_offsets[i + 1]) of the caller's sizes) and pipelines without tokens
// (h_tokens NULL without an order).
// - host (--host): the chunk costs of per-chunk arrays (their region's alignment only; chunk_offsets
//   never read); every argument check of sk_csr_pipeline_create() about them (NULL, negative and
//   decreasing chunk_offsets, their place in the check order, h_data NULL with and without elements,
//   the byte size overflow, overlaps over chunk_offsets[C] elements, slices over the budget), and NULL
//   tokens (refused with each order, accepted without one): all of them return before CUDA is touched;
// - GPU: on a synthetic corpus (empty documents at both ends and scattered, one long document), a
//   per-chunk in array (4-byte elements), in-out array (3-byte elements, so that no slice is aligned)
//   and out array (8-byte elements), with unequal slices, empty ones (the first chunk's, a middle
//   one's, the last one's) and unused elements before chunk_offsets[0], or with every slice empty
//   (and a NULL h_data for the array of 0 elements); with them a per-token in array (the word ids, which
//   the function reads when there are no tokens) and a per-row out array. Bit-exact against a host
//   reference, every element of every array compared, the elements before chunk_offsets[0] untouched;
//   plans of 1 (resident), 2 and 7 chunks, 1, 2 and 4 workers, pageable, pinned and mixed host memory,
//   with and without tokens, over 2 runs. Also: the view (array_elements, d_tokens NULL without
//   tokens, alignment, chunk order); the caller's chunk_offsets scribbled over and freed right after
//   create; each worker's device bytes equal to the packed layout of the chunk that needs most, a
//   budget of exactly that accepted and one byte less refused, and the plan's budget (the costs plus
//   the caller's bound on the slices) enough; the traffic of every run, upload and download equal to
//   the documented bytes (no token bytes without tokens); resident mode: host arrays untouched until
//   the download, sk_csr_pipeline_upload() of the per-chunk in array and of every input; a failing
//   chunk k: chunks before k complete and whole, nothing of k or later written (nothing half-written).
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "csr_pipeline_test_util.cuh"
#include "samplekit/samplekit.h"
#include "sk_test.h"

// ---------------------------------------------------------------------------------------------------
// The declared arrays.

// kA, kB, kD: per chunk (in, in-out, out); kWords: per token (in); kRowSum: per row (out).
enum { kA, kB, kD, kWords, kRowSum, kNumArrays };
enum { kNumChunkArrays = 3 };  // kA, kB and kD are the per-chunk ones
static const size_t kElemBytes[kNumArrays] = {4, 3, 8, 4, 8};
static const char *const kArrayNames[kNumArrays] = {"A (per chunk, in)", "B (per chunk, in-out)",
                                                    "D (per chunk, out)", "words (per token, in)",
                                                    "row sums (per row, out)"};
// Elements before chunk_offsets[0]: the pipeline never touches them.
static const int64_t kLeading[kNumChunkArrays] = {0, 17, 5};
// The largest slice the shapes below make, and the caller's bound on a chunk's slice bytes.
enum { kMaxSlice = 901 };
static const size_t kSliceBound = (size_t)kMaxSlice * (4 + 3 + 8);
enum { kScratch = 100 };

//! [csr_pipeline_chunk_arrays]
// Declares the arrays of one job: three of the caller's own sizes per chunk (a_offsets, b_offsets
// and d_offsets: C + 1 entries each, read by sk_csr_pipeline_create() only), the word ids as a
// per-token input and a per-row output. A pipeline made with these arrays and h_tokens NULL (no
// order) copies no tokens: its function reads the word ids from d_arrays[3].
static void declare_job_arrays(void *a, const int64_t *a_offsets, void *b, const int64_t *b_offsets, void *d,
                               const int64_t *d_offsets, int32_t *words, int64_t *row_sums,
                               sk_csr_pipeline_array arrays[5]) {
  const sk_csr_pipeline_array declared[5] = {
      {a, 4, SK_CSR_PIPELINE_PER_CHUNK, SK_CSR_PIPELINE_IN, a_offsets},
      {b, 3, SK_CSR_PIPELINE_PER_CHUNK, SK_CSR_PIPELINE_IN_OUT, b_offsets},
      {d, 8, SK_CSR_PIPELINE_PER_CHUNK, SK_CSR_PIPELINE_OUT, d_offsets},
      {words, sizeof(int32_t), SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_IN, NULL},
      {row_sums, sizeof(int64_t), SK_CSR_PIPELINE_PER_ROW, SK_CSR_PIPELINE_OUT, NULL}};
  memcpy(arrays, declared, sizeof declared);
}
//! [csr_pipeline_chunk_arrays]

// ---------------------------------------------------------------------------------------------------
// The corpus.

typedef struct Corpus {
  int64_t num_rows, num_tokens;
  int32_t num_cols;
  int64_t *offsets;  // num_rows + 1
  int32_t *tokens;   // num_tokens word ids
} Corpus;

// Document lengths 0 to 60 (empty at both ends and 1 in 8 scattered), one document of T/50 tokens in
// the middle; word ids uniform in [0, num_cols).
static void make_corpus(Corpus *c, uint64_t seed, int64_t num_rows, int32_t num_cols) {
  uint64_t rng = 0xc4a2cull + seed * 0x9E3779B97F4A7C15ull;
  int64_t r, t;
  c->num_rows = num_rows;
  c->num_cols = num_cols;
  c->offsets = (int64_t *)csr_test_xmalloc(((size_t)num_rows + 1) * sizeof *c->offsets);
  c->offsets[0] = 0;
  for (r = 0; r < num_rows; ++r) {
    const bool empty = r < 2 || r >= num_rows - 3 || sk_test_rand_u32(&rng) % 8u == 0;
    c->offsets[r + 1] = c->offsets[r] + (empty ? 0 : 1 + (int64_t)(sk_test_rand_u32(&rng) % 60u));
  }
  {
    const int64_t extra = c->offsets[num_rows] / 50 + 200, mid = num_rows / 2;
    for (r = mid; r < num_rows; ++r) c->offsets[r + 1] += extra;
  }
  c->num_tokens = c->offsets[num_rows];
  c->tokens = (int32_t *)csr_test_xmalloc((size_t)c->num_tokens * sizeof *c->tokens);
  for (t = 0; t < c->num_tokens; ++t) c->tokens[t] = (int32_t)(sk_test_rand_u32(&rng) % (uint32_t)num_cols);
}

static void free_corpus(Corpus *c) {
  free(c->offsets);
  free(c->tokens);
}

// ---------------------------------------------------------------------------------------------------
// The work, shared by the kernels and the host reference (what matters is that every element reaches
// it once, with the right chunk, position and inputs).

// Byte i of the chunk's B slice, from its old value and the chunk's A slice (na elements).
static __host__ __device__ inline unsigned char test_b(unsigned char old, int64_t chunk, int64_t i, const uint32_t *a,
                                                       int64_t na) {
  const uint32_t av = na > 0 ? a[i % na] : 0x5bd1e995u;
  return (unsigned char)(sk_mix_u32((uint32_t)old * 0x9E3779B1u ^ (uint32_t)chunk * 0x85EBCA77u ^ (uint32_t)i ^
                                         sk_mix_u32(av)) >>
                         24);
}
// Element j of the chunk's D slice.
static __host__ __device__ inline uint64_t test_d(int64_t chunk, int64_t j, const uint32_t *a, int64_t na) {
  const uint32_t av = na > 0 ? a[j % na] : 0x27d4eb2fu;
  return ((uint64_t)sk_mix_u32((uint32_t)j ^ av) << 32) |
         sk_mix_u32((uint32_t)chunk * 0x165667B1u + (uint32_t)j);
}
// Row `row` (global) whose words are words[0 .. n), chunk-local row r: an order-sensitive hash.
static __host__ __device__ inline int64_t test_row_sum(int64_t row, int64_t r, const int32_t *words, int64_t n,
                                                       const uint32_t *a, int64_t na) {
  uint64_t s = 0x12345ull + ((uint64_t)row << 40);
  for (int64_t t = 0; t < n; ++t) s = s * 0x100000001B3ull ^ (uint64_t)(words[t] + 1);
  return (int64_t)(s ^ (na > 0 ? a[r % na] : 0u));
}

// ---------------------------------------------------------------------------------------------------
// The per-chunk slices of a plan, in two shapes.

enum { kShapeMixed, kShapeEmpty, kNumShapes };
static const char *const kShapeNames[kNumShapes] = {"unequal and empty slices", "every slice empty"};

typedef struct Slices {
  int64_t num_chunks;
  int64_t *off[kNumChunkArrays];  // num_chunks + 1 each
} Slices;

// Mixed: sizes 0 (1 in 4), 1 (1 in 8) or 2 to kMaxSlice; with 3 chunks or more, A's first slice, B's
// middle one and D's last one are empty. Empty: every slice has 0 elements.
static void make_slices(Slices *s, int64_t num_chunks, int shape, uint64_t seed) {
  uint64_t rng = 0x511ce5ull + seed * 0x9E3779B97F4A7C15ull + (uint64_t)num_chunks;
  s->num_chunks = num_chunks;
  for (int x = 0; x < kNumChunkArrays; ++x) {
    int64_t *o = (int64_t *)csr_test_xmalloc(((size_t)num_chunks + 1) * sizeof *o);
    o[0] = kLeading[x];
    for (int64_t c = 0; c < num_chunks; ++c) {
      const uint32_t u = sk_test_rand_u32(&rng) % 8u;
      int64_t n = u < 2 ? 0 : u == 2 ? 1 : 2 + (int64_t)(sk_test_rand_u32(&rng) % (kMaxSlice - 1));
      if (shape == kShapeEmpty) n = 0;
      if (num_chunks >= 3 && ((x == kA && c == 0) || (x == kB && c == num_chunks / 2) ||
                              (x == kD && c == num_chunks - 1)))
        n = 0;
      o[c + 1] = o[c] + n;
    }
    s->off[x] = o;
  }
}

static void free_slices(Slices *s) {
  for (int x = 0; x < kNumChunkArrays; ++x) free(s->off[x]);
}

// Elements of array a in the host array, and of chunk c's slice (first element in *first).
static int64_t array_elements(const Corpus *c, const Slices *s, int a) {
  return a < kNumChunkArrays ? s->off[a][s->num_chunks] : a == kWords ? c->num_tokens : c->num_rows;
}

static int64_t slice_of(const Slices *s, int a, int64_t chunk, const sk_csr_chunk_info *ci, int64_t *first) {
  if (a < kNumChunkArrays) {
    *first = s->off[a][chunk];
    return s->off[a][chunk + 1] - s->off[a][chunk];
  }
  *first = a == kWords ? ci->first_token : ci->first_row;
  return a == kWords ? ci->num_tokens : ci->num_rows;
}

// ---------------------------------------------------------------------------------------------------
// States (the contents of every array) and the host reference.

typedef struct State {
  unsigned char *arr[kNumArrays];
} State;

#define TEST_SENTINEL_BYTE 0xA5

// The state before any run: random A and B (prefixes included), the words, sentinel outputs.
static void make_initial_state(State *st, const Corpus *c, const Slices *s, uint64_t seed) {
  uint64_t rng = 0x57a7eull + seed * 0x9E3779B97F4A7C15ull + (uint64_t)s->num_chunks;
  for (int a = 0; a < kNumArrays; ++a) {
    const size_t bytes = kElemBytes[a] * (size_t)array_elements(c, s, a);
    st->arr[a] = (unsigned char *)csr_test_xmalloc(bytes);
    if (a == kA || a == kB)
      for (size_t i = 0; i < bytes; ++i) st->arr[a][i] = (unsigned char)(sk_test_rand_u32(&rng) >> 24);
    else if (a == kWords)
      memcpy(st->arr[a], c->tokens, bytes);
    else
      memset(st->arr[a], TEST_SENTINEL_BYTE, bytes);
  }
}

static void copy_state(State *dst, const State *src, const Corpus *c, const Slices *s) {
  for (int a = 0; a < kNumArrays; ++a) {
    const size_t bytes = kElemBytes[a] * (size_t)array_elements(c, s, a);
    dst->arr[a] = (unsigned char *)csr_test_xmalloc(bytes);
    memcpy(dst->arr[a], src->arr[a], bytes);
  }
}

static void free_state(State *st) {
  for (int a = 0; a < kNumArrays; ++a) free(st->arr[a]);
}

// next = one run of the plan from `prev` (next must be a copy of prev, or prev itself).
static void reference_run(const Corpus *c, const Slices *s, const sk_csr_chunk_plan *plan, State *next) {
  for (int64_t ch = 0; ch < s->num_chunks; ++ch) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, ch, &ci);
    const int64_t na = s->off[kA][ch + 1] - s->off[kA][ch];
    uint32_t *a = (uint32_t *)csr_test_xmalloc((size_t)na * 4);  // aligned copy of the chunk's A slice
    memcpy(a, next->arr[kA] + 4 * (size_t)s->off[kA][ch], (size_t)na * 4);
    unsigned char *b = next->arr[kB] + 3 * (size_t)s->off[kB][ch];
    const int64_t nb = 3 * (s->off[kB][ch + 1] - s->off[kB][ch]);
    for (int64_t i = 0; i < nb; ++i) b[i] = test_b(b[i], ch, i, a, na);
    for (int64_t j = s->off[kD][ch]; j < s->off[kD][ch + 1]; ++j) {
      const uint64_t v = test_d(ch, j - s->off[kD][ch], a, na);
      memcpy(next->arr[kD] + 8 * (size_t)j, &v, 8);
    }
    const int32_t *words = (const int32_t *)next->arr[kWords];
    for (int64_t r = 0; r < ci.num_rows; ++r) {
      const int64_t row = ci.first_row + r;
      const int64_t v = test_row_sum(row, r, words + c->offsets[row], c->offsets[row + 1] - c->offsets[row], a, na);
      memcpy(next->arr[kRowSum] + 8 * (size_t)row, &v, 8);
    }
    free(a);
  }
}

// ---------------------------------------------------------------------------------------------------
// Host arrays in the three kinds of memory (csr_pipeline_test_util.cuh).

typedef struct HostSet {
  int mem;
  int kinds[kNumArrays + 1];  // per array, then the tokens
  void *arrays[kNumArrays];   // an array of 0 elements is NULL (allowed)
  int32_t *tokens;
  size_t bytes[kNumArrays];
} HostSet;

static void make_host_set(HostSet *h, const Corpus *c, const Slices *s, int mem) {
  static const int mixed[kNumArrays + 1] = {kHostAlloc, kMalloc, kRegistered, kMalloc, kHostAlloc, kRegistered};
  h->mem = mem;
  for (int a = 0; a <= kNumArrays; ++a) {
    h->kinds[a] = csr_test_mem_kind(mem, mixed[a]);
    if (a == kNumArrays) break;
    h->bytes[a] = kElemBytes[a] * (size_t)array_elements(c, s, a);
    h->arrays[a] = h->bytes[a] > 0 ? csr_test_host_alloc(h->bytes[a], h->kinds[a]) : NULL;
  }
  h->tokens = csr_test_host_tokens(c->tokens, c->num_tokens, h->kinds[kNumArrays]);
}

static void free_host_set(HostSet *h) {
  for (int a = 0; a < kNumArrays; ++a)
    if (h->arrays[a] != NULL) csr_test_host_free(h->arrays[a], h->kinds[a]);
  csr_test_host_free(h->tokens, h->kinds[kNumArrays]);
}

static void load_host_set(HostSet *h, const State *st) {
  for (int a = 0; a < kNumArrays; ++a)
    if (h->bytes[a] > 0) memcpy(h->arrays[a], st->arr[a], h->bytes[a]);
}

// ---------------------------------------------------------------------------------------------------
// Comparisons: the first mismatching byte of a range, with the element and the chunk.

static int check_bytes(const char *what, const unsigned char *got, const unsigned char *want, size_t elem,
                       int64_t first, int64_t count, int64_t chunk) {
  const size_t at = elem * (size_t)first, bytes = elem * (size_t)count;
  if (count <= 0 || memcmp(got + at, want + at, bytes) == 0) return SK_CHECK(1, "");
  for (size_t i = 0; i < bytes; ++i)
    if (got[at + i] != want[at + i])
      return SK_CHECK(0, "%s: element %lld (chunk %lld), byte %zu is 0x%02x, expected 0x%02x", what,
                      (long long)(first + (int64_t)(i / elem)), (long long)chunk, i % elem, got[at + i], want[at + i]);
  return SK_CHECK(0, "%s: memcmp and the byte loop disagree", what);
}

// Every element of every array equals `st`.
static void check_state(const HostSet *h, const State *st) {
  for (int a = 0; a < kNumArrays; ++a)
    if (h->bytes[a] > 0)
      check_bytes(kArrayNames[a], (const unsigned char *)h->arrays[a], st->arr[a], kElemBytes[a], 0,
                  (int64_t)(h->bytes[a] / kElemBytes[a]), -1);
}

// Chunks before k hold `before`, chunks k and later `after`, in every array; the elements before
// chunk_offsets[0] hold `before` (which equals `after` there).
static void check_state_by_chunk(const HostSet *h, const Slices *s, const sk_csr_chunk_plan *plan, int64_t k,
                                 const State *before, const State *after) {
  for (int a = 0; a < kNumChunkArrays; ++a)
    check_bytes(kArrayNames[a], (const unsigned char *)h->arrays[a], before->arr[a], kElemBytes[a], 0,
                s->off[a][0], -1);
  for (int64_t ch = 0; ch < s->num_chunks; ++ch) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, ch, &ci);
    const State *st = ch < k ? before : after;
    for (int a = 0; a < kNumArrays; ++a) {
      int64_t first;
      const int64_t count = slice_of(s, a, ch, &ci, &first);
      check_bytes(kArrayNames[a], (const unsigned char *)h->arrays[a], st->arr[a], kElemBytes[a], first, count, ch);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The documented traffic and device bytes.

typedef struct Traffic {
  uint64_t run_in, run_out;  // a streaming run, a resident run's first upload / a download
  uint64_t inputs;           // the in and in-out arrays (sk_csr_pipeline_upload(-1) in resident mode)
  uint64_t a_bytes;          // array A (sk_csr_pipeline_upload(kA) in resident mode)
} Traffic;

static void expected_traffic(const Slices *s, const sk_csr_chunk_plan *plan, int with_tokens, Traffic *t) {
  memset(t, 0, sizeof *t);
  for (int64_t ch = 0; ch < s->num_chunks; ++ch) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, ch, &ci);
    uint64_t e[kNumArrays];
    for (int a = 0; a < kNumArrays; ++a) {
      int64_t first;
      e[a] = (uint64_t)slice_of(s, a, ch, &ci, &first) * kElemBytes[a];
    }
    const uint64_t n = (uint64_t)ci.num_tokens, r = (uint64_t)ci.num_rows;
    t->run_in += 4 * (r + 1) + (with_tokens ? 4 * n : 0) + e[kA] + e[kB] + e[kWords];
    t->run_out += e[kB] + e[kD] + e[kRowSum];
    t->inputs += e[kA] + e[kB] + e[kWords];
    t->a_bytes += e[kA];
  }
}

static size_t align256(size_t x) { return (x + 255) / 256 * 256; }

// The regions of the chunk that needs the most: scratch, offsets, tokens, the five arrays, each
// 256-byte aligned (the group's Workers paragraph).
static size_t expected_device_bytes(const Slices *s, const sk_csr_chunk_plan *plan, int with_tokens) {
  size_t most = 0;
  for (int64_t ch = 0; ch < s->num_chunks; ++ch) {
    sk_csr_chunk_info ci;
    sk_csr_chunk_plan_chunk(plan, ch, &ci);
    size_t bytes = align256(kScratch) + align256(4 * ((size_t)ci.num_rows + 1)) +
                   (with_tokens ? align256(4 * (size_t)ci.num_tokens) : 0);
    for (int a = 0; a < kNumArrays; ++a) {
      int64_t first;
      bytes += align256(kElemBytes[a] * (size_t)slice_of(s, a, ch, &ci, &first));
    }
    if (bytes > most) most = bytes;
  }
  return most;
}

// ---------------------------------------------------------------------------------------------------
// The callback under test.

__global__ void chunk_arrays_kernel(int64_t chunk, const uint32_t *a, int64_t na, unsigned char *b, int64_t nb_bytes,
                                    uint64_t *d, int64_t nd) {
  const int64_t n = nb_bytes > nd ? nb_bytes : nd, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    if (i < nb_bytes) b[i] = test_b(b[i], chunk, i, a, na);
    if (i < nd) d[i] = test_d(chunk, i, a, na);
  }
}

__global__ void row_sum_kernel(const int32_t *row_offsets, int64_t first_row, int64_t num_rows, const int32_t *words,
                               const uint32_t *a, int64_t na, int64_t *row_sums) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < num_rows; r += stride)
    row_sums[r] = test_row_sum(first_row + r, r, words + row_offsets[r], row_offsets[r + 1] - row_offsets[r], a, na);
}

typedef struct StepCtx {
  CsrTestStep step;  // plan, workers, fail_at, calls, chunk order, bad views
  const Slices *slices;
  int with_tokens;
} StepCtx;

static void step_ctx_init(StepCtx *ctx, const sk_csr_chunk_plan *plan, const Slices *s, int num_workers,
                          int with_tokens) {
  memset(ctx, 0, sizeof *ctx);
  csr_test_step_init(&ctx->step, plan, num_workers);
  ctx->slices = s;
  ctx->with_tokens = with_tokens;
}

static sk_status chunk_step(const sk_csr_chunk_view *v, sk_stream stream, void *user) {
  StepCtx *ctx = (StepCtx *)user;
  const cudaStream_t s = (cudaStream_t)stream;
  sk_csr_chunk_info ci;
  // The view: chunk order, the plan's description, the worker rule, the tokens, the arrays' sizes.
  int ok = csr_test_view_ok(&ctx->step, v, &ci) && v->num_arrays == kNumArrays &&
           csr_test_aligned256(v->d_row_offsets) &&
           (ctx->with_tokens ? v->d_tokens != NULL && csr_test_aligned256(v->d_tokens) : v->d_tokens == NULL) &&
           v->d_perm == NULL && v->d_inverse == NULL && v->d_word_offsets == NULL && v->d_scratch != NULL &&
           v->scratch_bytes == kScratch;
  for (int a = 0; ok && a < SK_CSR_PIPELINE_MAX_ARRAYS; ++a) {
    int64_t first;
    if (a < kNumArrays)
      ok = v->d_arrays[a] != NULL && csr_test_aligned256(v->d_arrays[a]) &&
           v->array_elements[a] == slice_of(ctx->slices, a, v->index, &ci, &first);
    else
      ok = v->d_arrays[a] == NULL && v->array_elements[a] == 0;
  }
  if (!ok) ++ctx->step.bad_views;

  const uint32_t *a = (const uint32_t *)v->d_arrays[kA];
  const int64_t na = v->array_elements[kA], nb = 3 * v->array_elements[kB], nd = v->array_elements[kD];
  chunk_arrays_kernel<<<csr_test_grid_for(nb > nd ? nb : nd, 1024), 128, 0, s>>>(
      v->index, a, na, (unsigned char *)v->d_arrays[kB], nb, (uint64_t *)v->d_arrays[kD], nd);
  // With tokens the word ids come from d_tokens (their copy is under test); without, from the
  // per-token array, which holds the same ids.
  const int32_t *words = v->d_tokens != NULL ? v->d_tokens : (const int32_t *)v->d_arrays[kWords];
  row_sum_kernel<<<csr_test_grid_for(v->info.num_rows, 1024), 128, 0, s>>>(
      v->d_row_offsets, v->info.first_row, v->info.num_rows, words, a, na, (int64_t *)v->d_arrays[kRowSum]);
  if (v->index == ctx->step.fail_at) return SK_ERROR_UNSUPPORTED;
  return sk_status_from_cuda_error((int)cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------------
// Plans with a given number of chunks, under the pipeline's costs plus the caller's slice bound.

static void chunk_costs(size_t *bpt, size_t *bpr, size_t *fixed) {
  sk_csr_pipeline_array arr[kNumArrays];
  declare_job_arrays(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, arr);
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, kNumArrays, 1000, SK_CSR_PIPELINE_ORDER_NONE, kScratch, bpt, bpr,
                                       fixed) == SK_SUCCESS,
           "chunk costs");
  *fixed += kSliceBound;  // the costs leave the per-chunk slices to the caller
}

// The smallest budget whose plan has at most `want` chunks.
static sk_csr_chunk_plan *plan_with_chunks(const Corpus *c, int64_t want, size_t *budget_out) {
  size_t bpt = 0, bpr = 0, fixed = 0;
  chunk_costs(&bpt, &bpr, &fixed);
  return csr_test_plan_with_chunks(c->offsets, c->num_rows, bpt, bpr, fixed, want, budget_out);
}

// ---------------------------------------------------------------------------------------------------
// GPU: one plan and shape, with its expected states.

typedef struct Case {
  const Corpus *corpus;
  const sk_csr_chunk_plan *plan;
  size_t budget;  // the plan's
  int shape;
  Slices slices;
  State s0, s1, s2;  // before any run, after one, after two
} Case;

static void make_case(Case *k, const Corpus *c, const sk_csr_chunk_plan *plan, size_t budget, int shape,
                      uint64_t seed) {
  int64_t num_chunks = 0;
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  k->corpus = c;
  k->plan = plan;
  k->budget = budget;
  k->shape = shape;
  make_slices(&k->slices, num_chunks, shape, seed);
  make_initial_state(&k->s0, c, &k->slices, seed);
  copy_state(&k->s1, &k->s0, c, &k->slices);
  reference_run(c, &k->slices, plan, &k->s1);
  copy_state(&k->s2, &k->s1, c, &k->slices);
  reference_run(c, &k->slices, plan, &k->s2);
}

static void free_case(Case *k) {
  free_state(&k->s0);
  free_state(&k->s1);
  free_state(&k->s2);
  free_slices(&k->slices);
}

// Makes the pipeline from copies of the chunk offsets that are scribbled over and freed right after
// (the pipeline must have kept its own).
static sk_status create_pipeline(const Case *k, const HostSet *h, int with_tokens, int workers, size_t budget,
                                 sk_csr_pipeline **p) {
  const size_t bytes = ((size_t)k->slices.num_chunks + 1) * sizeof(int64_t);
  int64_t *off[kNumChunkArrays];
  sk_csr_pipeline_array arr[kNumArrays];
  for (int x = 0; x < kNumChunkArrays; ++x) {
    off[x] = (int64_t *)csr_test_xmalloc(bytes);
    memcpy(off[x], k->slices.off[x], bytes);
  }
  declare_job_arrays(h->arrays[kA], off[kA], h->arrays[kB], off[kB], h->arrays[kD], off[kD],
                     (int32_t *)h->arrays[kWords], (int64_t *)h->arrays[kRowSum], arr);
  const sk_status st = sk_csr_pipeline_create(k->plan, k->corpus->offsets, with_tokens ? h->tokens : NULL,
                                              k->corpus->num_cols, arr, kNumArrays, workers,
                                              SK_CSR_PIPELINE_ORDER_NONE, kScratch, budget, p);
  for (int x = 0; x < kNumChunkArrays; ++x) {
    memset(off[x], 0xff, bytes);
    free(off[x]);
  }
  return st;
}

// Resident mode after two runs and a download (host = s2): sk_csr_pipeline_upload() of A, then of
// every input, each followed by a run from the uploaded values.
static void test_resident_uploads(const Case *k, HostSet *h, sk_csr_pipeline *p, const Traffic *t, int with_tokens) {
  const Corpus *c = k->corpus;
  const Slices *s = &k->slices;
  sk_csr_pipeline_info info;
  StepCtx ctx;
  int64_t done = -1;
  State s3, s4;
  copy_state(&s3, &k->s2, c, s);
  // New A on the host: the device still has the old one until the upload.
  for (size_t i = 0; i < h->bytes[kA]; ++i) s3.arr[kA][i] = (unsigned char)(s3.arr[kA][i] * 29u + 11u);
  if (h->bytes[kA] > 0) memcpy(h->arrays[kA], s3.arr[kA], h->bytes[kA]);
  reference_run(c, s, k->plan, &s3);
  SK_CHECK(sk_csr_pipeline_upload(p, kA) == SK_SUCCESS, "upload A");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_h2d_bytes == t->a_bytes && info.last_d2h_bytes == 0, "upload of A copied %llu in, %llu out",
           (unsigned long long)info.last_h2d_bytes, (unsigned long long)info.last_d2h_bytes);
  step_ctx_init(&ctx, k->plan, s, 1, with_tokens);
  SK_CHECK(sk_csr_pipeline_run(p, chunk_step, &ctx, &done) == SK_SUCCESS && done == 1 && ctx.step.bad_views == 0,
           "run 3");
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download after run 3");
  check_state(h, &s3);
  // Every input again (the host holds s3 now): run 4 continues from them.
  copy_state(&s4, &s3, c, s);
  reference_run(c, s, k->plan, &s4);
  SK_CHECK(sk_csr_pipeline_upload(p, -1) == SK_SUCCESS, "upload all");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_h2d_bytes == t->inputs && info.last_d2h_bytes == 0, "upload of every input copied %llu, "
           "expected %llu", (unsigned long long)info.last_h2d_bytes, (unsigned long long)t->inputs);
  step_ctx_init(&ctx, k->plan, s, 1, with_tokens);
  SK_CHECK(sk_csr_pipeline_run(p, chunk_step, &ctx, &done) == SK_SUCCESS && done == 1, "run 4");
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download after run 4");
  check_state(h, &s4);
  SK_CHECK(sk_csr_pipeline_upload(p, kD) == SK_ERROR_INVALID_VALUE, "upload of the per-chunk out array");
  free_state(&s3);
  free_state(&s4);
  load_host_set(h, &k->s0);
}

// One configuration's runs: the step context and what csr_test_two_runs() checks the host arrays with.
typedef struct ConfigRuns {
  StepCtx ctx;
  const Case *k;
  const HostSet *h;
  int workers, with_tokens;  // W'
} ConfigRuns;

static void config_start_run(void *user) {
  ConfigRuns *r = (ConfigRuns *)user;
  step_ctx_init(&r->ctx, r->k->plan, &r->k->slices, r->workers, r->with_tokens);
}

static void config_check_host(void *user, int state) {
  const ConfigRuns *r = (const ConfigRuns *)user;
  check_state(r->h, state == 0 ? &r->k->s0 : state == 1 ? &r->k->s1 : &r->k->s2);
}

static void test_config(const Case *k, HostSet *h, int with_tokens, int workers) {
  const Slices *s = &k->slices;
  const int64_t num_chunks = s->num_chunks;
  sk_test_context("T=%lld, %lld chunks, %s, W=%d, %s memory, %s", (long long)k->corpus->num_tokens,
                  (long long)num_chunks, kShapeNames[k->shape], workers, kMemNames[h->mem],
                  with_tokens ? "with tokens" : "no tokens");
  load_host_set(h, &k->s0);
  sk_csr_pipeline *p = NULL;
  // The plan's budget covers the worker's bytes: the costs plus the caller's bound on the slices.
  const sk_status st = create_pipeline(k, h, with_tokens, workers, k->budget, &p);
  if (!SK_CHECK(st == SK_SUCCESS && p != NULL, "create returned %s", sk_status_name(st))) return;

  sk_csr_pipeline_info info;
  SK_CHECK(sk_csr_pipeline_get_info(p, &info) == SK_SUCCESS, "get_info");
  const int resident = num_chunks == 1;
  const size_t want_device = expected_device_bytes(s, k->plan, with_tokens);
  csr_test_check_info(&info, num_chunks, workers, SK_CSR_PIPELINE_ORDER_NONE);
  SK_CHECK(info.device_bytes_per_worker == want_device && want_device <= k->budget,
           "device bytes per worker %zu, expected %zu (plan budget %zu)", info.device_bytes_per_worker, want_device,
           k->budget);
  csr_test_check_staging(&info, h->mem);
  if (workers == 2 && h->mem == kMemPinned) {
    // The budget is checked against the actual slices: exactly the worker's bytes, and one less.
    sk_csr_pipeline *q = NULL;
    SK_CHECK(create_pipeline(k, h, with_tokens, workers, want_device, &q) == SK_SUCCESS && q != NULL,
             "a budget of exactly the worker's %zu bytes", want_device);
    sk_csr_pipeline_destroy(q);
    q = (sk_csr_pipeline *)&info;  // must come back NULL
    SK_CHECK(create_pipeline(k, h, with_tokens, workers, want_device - 1, &q) == SK_ERROR_INVALID_VALUE && q == NULL,
             "a budget one byte short of %zu", want_device);
  }

  // A resident pipeline's host arrays are untouched until the download.
  Traffic t;
  expected_traffic(s, k->plan, with_tokens, &t);
  ConfigRuns r;
  r.k = k;
  r.h = h;
  r.workers = num_chunks < workers ? (int)num_chunks : workers;
  r.with_tokens = with_tokens;
  const CsrTestRuns runs = {chunk_step, &r.ctx, &r.ctx.step, config_start_run, config_check_host, &r};
  csr_test_two_runs(p, &runs, num_chunks, t.run_in, t.run_out);
  if (resident) {
    test_resident_uploads(k, h, p, &t, with_tokens);
  } else {
    SK_CHECK(sk_csr_pipeline_upload(p, kA) == SK_SUCCESS, "upload in streaming mode");
    sk_csr_pipeline_get_info(p, &info);
    SK_CHECK(info.last_h2d_bytes == 0 && info.last_d2h_bytes == 0, "streaming upload copied bytes");
  }
  sk_csr_pipeline_destroy(p);
}

// A failing chunk k: chunks before k complete and whole, nothing of chunk k or later written; the
// pipeline then runs again.
static void test_failure(const Case *k, HostSet *h, int with_tokens, int workers, int64_t fail_at) {
  const Slices *s = &k->slices;
  const int64_t num_chunks = s->num_chunks;
  const int w_eff = num_chunks < workers ? (int)num_chunks : workers;
  int64_t done = -1;
  StepCtx ctx;
  sk_test_context("failure on chunk %lld of %lld, %s, W=%d, %s memory, %s", (long long)fail_at, (long long)num_chunks,
                  kShapeNames[k->shape], workers, kMemNames[h->mem], with_tokens ? "with tokens" : "no tokens");
  load_host_set(h, &k->s0);
  sk_csr_pipeline *p = NULL;
  if (!SK_CHECK(create_pipeline(k, h, with_tokens, workers, SIZE_MAX, &p) == SK_SUCCESS && p != NULL, "create"))
    return;
  step_ctx_init(&ctx, k->plan, s, w_eff, with_tokens);
  ctx.step.fail_at = fail_at;
  const sk_status st = sk_csr_pipeline_run(p, chunk_step, &ctx, &done);
  SK_CHECK(st == SK_ERROR_UNSUPPORTED && done == fail_at && ctx.step.calls == fail_at + 1,
           "run returned %s, %lld chunks done, %lld calls", sk_status_name(st), (long long)done,
           (long long)ctx.step.calls);
  SK_CHECK(cudaGetLastError() == cudaSuccess, "an error was left pending");
  check_state_by_chunk(h, s, k->plan, fail_at, &k->s1, &k->s0);
  step_ctx_init(&ctx, k->plan, s, w_eff, with_tokens);
  SK_CHECK(sk_csr_pipeline_run(p, chunk_step, &ctx, &done) == SK_SUCCESS && done == num_chunks, "run after failure");
  check_state_by_chunk(h, s, k->plan, fail_at, &k->s2, &k->s1);
  sk_csr_pipeline_destroy(p);
}

static void test_matrix(int seed, int64_t num_rows, int full) {
  Corpus c;
  static const int64_t kChunkCounts[] = {1, 2, 7};
  static const int kWorkers[] = {1, 2, 4};
  const int race = sk_test_under_racecheck();
  make_corpus(&c, (uint64_t)seed, num_rows, 1000);
  for (size_t n = 0; n < sizeof kChunkCounts / sizeof kChunkCounts[0]; ++n) {
    size_t budget = 0;
    sk_test_context("seed %d, plan for %lld chunks", seed, (long long)kChunkCounts[n]);
    sk_csr_chunk_plan *plan = plan_with_chunks(&c, kChunkCounts[n], &budget);
    if (plan == NULL) continue;
    for (int shape = 0; shape < kNumShapes; ++shape) {
      Case k;
      make_case(&k, &c, plan, budget, shape, (uint64_t)seed);
      for (int m = 0; m < kNumMemModes; ++m) {
        if ((race || !full) && m == kMemMixed) continue;
        if (race && m == kMemPageable) continue;
        HostSet h;
        make_host_set(&h, &c, &k.slices, m);
        for (int with_tokens = 1; with_tokens >= 0; --with_tokens) {
          for (size_t w = 0; w < sizeof kWorkers / sizeof kWorkers[0]; ++w)
            if (!race || kWorkers[w] == 2) test_config(&k, &h, with_tokens, kWorkers[w]);
          // Failures: the first, a middle and the last chunk of the 7.
          if (kChunkCounts[n] == 7 && shape == kShapeMixed && m != kMemMixed)
            for (size_t w = 0; w < sizeof kWorkers / sizeof kWorkers[0]; ++w)
              for (int64_t f = 0; f < 7; f += 3)
                if (!race || (kWorkers[w] == 2 && f == 3)) test_failure(&k, &h, with_tokens, kWorkers[w], f);
        }
        free_host_set(&h);
      }
      free_case(&k);
    }
    sk_csr_chunk_plan_destroy(plan);
  }
  free_corpus(&c);
}

// ---------------------------------------------------------------------------------------------------
// Host: costs and argument checks (all of them return before CUDA is touched).

static void test_costs(void) {
  sk_csr_pipeline_array arr[kNumArrays];
  size_t bpt = 1, bpr = 1, fixed = 1, bpt0 = 1, bpr0 = 1, fixed0 = 1;
  sk_test_context("chunk costs of per-chunk arrays");
  // chunk_offsets NULL: the costs never read them.
  declare_job_arrays(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, arr);
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, kNumArrays, 100, SK_CSR_PIPELINE_ORDER_NONE, 1000, &bpt, &bpr, &fixed) ==
                   SK_SUCCESS &&
               bpt == 4 + 4 && bpr == 4 + 8 && fixed == 4 + 1000 + 255 * (4 + kNumArrays),
           "five arrays, three per chunk: %zu %zu %zu", bpt, bpr, fixed);
  // The per-chunk arrays alone: only their regions' alignment.
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, kNumChunkArrays, 100, SK_CSR_PIPELINE_ORDER_HOST, 0, &bpt0, &bpr0,
                                       &fixed0) == SK_SUCCESS &&
               bpt0 == 4 + 8 && bpr0 == 4 && fixed0 == 4 + 8 * 101 + 255 * (4 + kNumChunkArrays + 3),
           "three per-chunk arrays, host order: %zu %zu %zu", bpt0, bpr0, fixed0);
  // Element bytes of a per-chunk array do not matter; its extent is valid, one past it is not.
  arr[kD].element_bytes = SIZE_MAX;
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, kNumArrays, 100, SK_CSR_PIPELINE_ORDER_NONE, 1000, &bpt0, &bpr0,
                                       &fixed0) == SK_SUCCESS &&
               bpt0 == bpt && bpr0 == bpr && fixed0 == fixed,
           "a per-chunk array of SIZE_MAX-byte elements: %zu %zu %zu", bpt0, bpr0, fixed0);
  arr[kD].element_bytes = 0;
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, kNumArrays, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt0, &bpr0, &fixed0) ==
               SK_ERROR_INVALID_VALUE,
           "a per-chunk array with element_bytes 0");
  arr[kD].element_bytes = 8;
  arr[kD].extent = (sk_csr_pipeline_extent)(SK_CSR_PIPELINE_PER_CHUNK + 1);
  SK_CHECK(sk_csr_pipeline_chunk_costs(arr, kNumArrays, 100, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt0, &bpr0, &fixed0) ==
               SK_ERROR_INVALID_VALUE,
           "extent PER_CHUNK + 1");
}

static void test_create_arguments(void) {
  // A small valid matrix: 6 rows, 10 tokens, 5 words; a plan of at least 3 chunks.
  const int64_t offsets[7] = {0, 2, 2, 5, 6, 9, 10};
  const int32_t tokens[10] = {0, 1, 4, 2, 2, 3, 0, 0, 1, 4};
  uint32_t a_data[64];
  unsigned char b_data[3 * 64];
  uint64_t d_data[64];
  int32_t words[10];
  int64_t row_sums[6];
  int64_t a_off[18] = {0}, b_off[18] = {0}, d_off[18] = {0};  // C + 1 entries used, C <= 16
  sk_csr_chunk_plan *plan = NULL;
  memcpy(words, tokens, sizeof words);
  SK_CHECK(sk_csr_chunk_plan_create(offsets, 6, 4, 4, 0, 16, &plan, NULL, NULL) == SK_SUCCESS, "plan");
  int64_t chunks = 0;
  sk_csr_chunk_plan_num_chunks(plan, &chunks);
  if (!SK_CHECK(chunks >= 3 && chunks <= 16, "the plan has %lld chunks", (long long)chunks)) {
    sk_csr_chunk_plan_destroy(plan);
    return;
  }
  // Valid offsets: A 0, 2, 4, ...; B from 1, one element per chunk; D all in the last chunk.
  for (int64_t c = 0; c <= chunks; ++c) {
    a_off[c] = 2 * c;
    b_off[c] = 1 + c;
    d_off[c] = c == chunks ? 40 : 0;
  }
  sk_csr_pipeline_array arr[kNumArrays], bad[kNumArrays];
  declare_job_arrays(a_data, a_off, b_data, b_off, d_data, d_off, words, row_sums, arr);
  sk_csr_pipeline *p = NULL;
  sk_csr_pipeline *const kJunk = (sk_csr_pipeline *)&p;
  const sk_csr_pipeline_order none = SK_CSR_PIPELINE_ORDER_NONE;

  // Every call below is refused before CUDA; budget 0 refuses one that passed every other check.
#define CREATE(tok_, arr_, order_, budget_) \
  (p = kJunk, sk_csr_pipeline_create(plan, offsets, tok_, 5, arr_, kNumArrays, 2, order_, 0, budget_, &p))
#define EXPECT(call, want, what) CSR_TEST_EXPECT_REFUSED(p, call, want, what)
#define RESET() memcpy(bad, arr, sizeof bad)

  sk_test_context("create arguments: per-chunk arrays");
  EXPECT(CREATE(tokens, arr, none, 0), SK_ERROR_INVALID_VALUE, "valid arguments, budget 0");
  RESET();
  bad[kB].chunk_offsets = NULL;
  EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL chunk_offsets");
  {
    int64_t o[18];
    memcpy(o, b_off, sizeof o);
    o[0] = -1;
    RESET();
    bad[kB].chunk_offsets = o;
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "chunk_offsets[0] = -1");
    memcpy(o, b_off, sizeof o);
    o[2] = o[1] - 1;
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "chunk_offsets decreasing in the middle");
    memcpy(o, b_off, sizeof o);
    o[chunks] = o[chunks - 1] - 1;
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "chunk_offsets[C] below chunk_offsets[C-1]");
    // Only entries 0 .. C are read: a decrease after them is not looked at.
    memcpy(o, b_off, sizeof o);
    o[chunks + 1] = -5;
    EXPECT(CREATE(tokens, bad, none, 0), SK_ERROR_INVALID_VALUE, "entry C + 1 negative (budget 0)");
    // Byte size: 8-byte elements, chunk_offsets[C] = INT64_MAX.
    memcpy(o, b_off, sizeof o);
    o[chunks] = INT64_MAX;
    RESET();
    bad[kD].chunk_offsets = o;
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "byte size overflow");
  }
  // h_data NULL: refused with elements, allowed without (then refused by budget 0).
  RESET();
  bad[kA].h_data = NULL;
  EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL h_data with elements");
  {
    int64_t zero[18];
    for (int64_t c = 0; c <= chunks; ++c) zero[c] = 3;  // elements before chunk_offsets[0], none after
    bad[kA].chunk_offsets = zero;
    EXPECT(CREATE(tokens, bad, none, 0), SK_ERROR_NULL_POINTER, "NULL h_data, chunk_offsets[C] = 3");
    for (int64_t c = 0; c <= chunks; ++c) zero[c] = 0;
    EXPECT(CREATE(tokens, bad, none, 0), SK_ERROR_INVALID_VALUE, "NULL h_data of 0 elements (budget 0)");
  }
  // The extent's range: PER_CHUNK is valid, one past it is not (an enum check, before the matrix).
  RESET();
  bad[kA].extent = (sk_csr_pipeline_extent)(SK_CSR_PIPELINE_PER_CHUNK + 1);
  bad[kB].chunk_offsets = NULL;
  EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "extent PER_CHUNK + 1");
  // chunk_offsets is ignored for the other extents.
  RESET();
  bad[kWords].chunk_offsets = (const int64_t *)(uintptr_t)1;
  bad[kRowSum].chunk_offsets = (const int64_t *)(uintptr_t)1;
  EXPECT(CREATE(tokens, bad, none, 0), SK_ERROR_INVALID_VALUE, "junk chunk_offsets of per-token and per-row arrays");

  sk_test_context("create arguments: the check order with per-chunk arrays");
  {
    int64_t other_offsets[7], dec[18];
    memcpy(other_offsets, offsets, sizeof other_offsets);
    other_offsets[0] = 1;
    RESET();
    bad[kB].chunk_offsets = NULL;
    p = kJunk;
    EXPECT(sk_csr_pipeline_create(plan, other_offsets, tokens, 5, bad, kNumArrays, 2, none, 0, SIZE_MAX, &p),
           SK_ERROR_INVALID_VALUE, "the matrix before chunk_offsets");
    memcpy(dec, b_off, sizeof dec);
    dec[1] = -1;
    RESET();
    bad[kB].chunk_offsets = dec;
    EXPECT(CREATE(NULL, bad, SK_CSR_PIPELINE_ORDER_HOST, SIZE_MAX), SK_ERROR_NULL_POINTER,
           "h_tokens before chunk_offsets");
    bad[kD].h_data = NULL;
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "array B's chunk_offsets before D's h_data");
    RESET();
    bad[kA].h_data = NULL;
    bad[kB].chunk_offsets = dec;
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "array A's h_data before B's chunk_offsets");
    RESET();
    bad[kB].chunk_offsets = NULL;
    bad[kRowSum].h_data = (void *)a_data;  // an overlap, checked later
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_NULL_POINTER, "chunk_offsets before the overlaps");
  }

  sk_test_context("create arguments: overlaps over chunk_offsets[C] elements");
  {
    // D (out) spans d_off[C] = 40 elements of 8 bytes from its h_data; A spans a_off[C] = 2 C of 4.
    RESET();
    bad[kD].h_data = (void *)(a_data + 1);
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "a per-chunk out array on an in array");
    RESET();
    bad[kD].h_data = (void *)(b_data + 3 * chunks);  // B's last element
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "a per-chunk out array on an in-out array");
    // A per-token out array on a per-chunk in array's last element (A spans a_off[C] = 2 C elements).
    RESET();
    bad[kRowSum].h_data = (void *)(a_data + 2 * chunks - 1);
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "a per-row out array on A's last element");
    // A per-chunk in-out array on the tokens.
    RESET();
    bad[kB].h_data = (void *)(tokens + 9);
    EXPECT(CREATE(tokens, bad, none, SIZE_MAX), SK_ERROR_INVALID_VALUE, "a per-chunk in-out array on the tokens");
  }

  sk_test_context("create arguments: per-chunk slices over the budget");
  {
    // The budget that the valid arrays need is at most 64 KiB; one chunk's slice of 70000 bytes is not.
    static unsigned char big[70000];
    int64_t o[18] = {0};
    for (int64_t c = 0; c <= chunks; ++c) o[c] = c < 2 ? 0 : 70000;  // chunk 1's slice
    RESET();
    bad[kD].h_data = big;
    bad[kD].element_bytes = 1;
    bad[kD].chunk_offsets = o;
    EXPECT(CREATE(tokens, bad, none, 65536), SK_ERROR_INVALID_VALUE, "a 70000-byte slice over a 64 KiB budget");
  }

  sk_test_context("create arguments: tokens");
  EXPECT(CREATE(NULL, arr, SK_CSR_PIPELINE_ORDER_HOST, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL tokens, host order");
  EXPECT(CREATE(NULL, arr, SK_CSR_PIPELINE_ORDER_DEVICE, SIZE_MAX), SK_ERROR_NULL_POINTER,
         "NULL tokens, device order");
  EXPECT(CREATE(NULL, arr, SK_CSR_PIPELINE_ORDER_AUTO, SIZE_MAX), SK_ERROR_NULL_POINTER, "NULL tokens, auto order");
  // Without an order NULL tokens pass (to the budget check, here).
  EXPECT(CREATE(NULL, arr, none, 0), SK_ERROR_INVALID_VALUE, "NULL tokens without an order (budget 0)");
#undef CREATE
#undef EXPECT
#undef RESET
  sk_csr_chunk_plan_destroy(plan);
}

int main(int argc, char **argv) {
  test_costs();
  test_create_arguments();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    // Under racecheck: pinned memory, 2 workers, one seed (the kernels are the same in every variant).
    for (int seed = 0; seed < sk_test_seed_count() && seed < 2; ++seed) {
      test_matrix(seed, seed == 0 ? 3000 : 700, seed == 0);
      if (sk_test_under_racecheck()) break;
      sk_test_progress("seed %d: matrix done (%ld checks passed so far)", seed, sk_test_passed);
    }
  }
  return sk_test_finish();
}
