// ESCA on the GPU (esca_gpu.h): the CPU ESCA's chain (esca.c) bit for bit.
//
// Bit-exactness rests on three things. (1) The uniforms: sk_rng_uniform_f64() is one host/device
// function (samplekit/rng.h), so token t gets the same double on both sides. (2) The doubles: every
// sum and product the draw compares is written here with the _rn intrinsics, in esca.c's order, so
// nvcc cannot fuse a multiply and an add into an FMA (which rounds once instead of twice) nor reorder
// anything; esca.c is C11 without -ffast-math, where gcc does not contract either. The word tables
// are running sums, so they are computed sequentially per word, never by a parallel scan. (3) The
// counts: A, B and n_k are integers, rebuilt from z by a deterministic segmented count and by integer
// atomics, whose sums do not depend on the order.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/esca_gpu.h"
#include "samplekit/rng.cuh"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"

namespace {

constexpr int kThreads = 256;

// Everything a sweep reads or writes on the device.
struct device_state {
  int32_t *tokens;              // T word ids, document order
  int32_t *doc_offsets;         // D + 1
  int32_t *z;                   // T topics
  int32_t *a_offsets;           // D + 1: document d's pairs are [a_offsets[d], a_offsets[d + 1])
  uint32_t *a_topic;            // pair_capacity topics, increasing within a document
  uint32_t *a_count;            // pair_capacity counts
  int32_t *b;                   // V x K
  unsigned long long *n_k;      // K
  double *inv;                  // K
  double *cum;                  // V x K
  void *workspace;              // the segmented count's
  size_t workspace_bytes;
};

}  // namespace

struct sk_lda_esca_gpu {
  int gpu;
  int32_t num_topics, num_words, num_docs;
  int64_t num_tokens;
  int64_t pair_capacity;  // sum over documents of min(n_d, K): A never has more pairs
  double alpha, beta, vbeta;
  uint64_t seed;
  device_state d;
  int32_t *h_a_offsets;  // host scratch for to_host: D + 1 offsets and the pairs
  uint32_t *h_a_topic, *h_a_count;
  char description[320];
};

namespace {

// --- kernels ----------------------------------------------------------------------------------------

// inv[k] = 1 / (n_k[k] + V beta), as sk_lda_esca_inv_denom(); vbeta is (double)V * beta from the host.
__global__ void inv_denom_kernel(const unsigned long long *n_k, int32_t num_topics, double vbeta, double *inv) {
  const int32_t k = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < num_topics) inv[k] = __ddiv_rn(1.0, __dadd_rn((double)(long long)n_k[k], vbeta));
}

// One thread per word: cum_v[k] = running sum of (B[v,k] + beta) inv[k], as sk_lda_esca_word_table().
__global__ void word_table_kernel(const int32_t *b, const double *inv, int32_t num_words, int32_t num_topics,
                                  double beta, double *cum) {
  const int32_t v = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (v >= num_words) return;
  const int32_t *b_row = b + (size_t)v * (size_t)num_topics;
  double *cum_row = cum + (size_t)v * (size_t)num_topics;
  double s = 0.0;
  for (int32_t k = 0; k < num_topics; ++k) {
    s = __dadd_rn(s, __dmul_rn(__dadd_rn((double)b_row[k], beta), inv[k]));
    cum_row[k] = s;
  }
}

// sk_lda_detail_first_above(): the first k with cum[k] > x, or n - 1 when none.
__device__ int32_t first_above(const double *cum, int32_t n, double x) {
  int32_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (cum[mid] > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// One term of the sparse part: count (B[v,k] + beta) inv[k], as in sk_lda_esca_draw().
__device__ double sparse_term(uint32_t count, const int32_t *b_row, const double *inv, uint32_t k, double beta) {
  return __dmul_rn((double)(int32_t)count, __dmul_rn(__dadd_rn((double)b_row[k], beta), inv[k]));
}

struct draw_params {
  const int32_t *tokens, *doc_offsets, *a_offsets;
  const uint32_t *a_topic, *a_count;
  const int32_t *b;
  const double *cum, *inv;
  int32_t *z;
  int64_t num_tokens;
  int32_t num_docs, num_topics;
  double alpha, beta;
  uint64_t seed, iteration;
};

// One thread per token t: sk_lda_esca_draw() with u = sk_rng_uniform_f64(seed, iteration, t). The CPU
// keeps the sparse running sums in a scratch array; here the first pass computes only their total and
// the second (taken when x falls in the sparse part) recomputes them with the same operations, so each
// partial sum has the same bits as the CPU's psum[i].
__global__ void draw_kernel(draw_params p) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= p.num_tokens) return;
  // The document of t: the first d with doc_offsets[d + 1] > t (empty documents hold no token).
  int32_t lo = 0, hi = p.num_docs - 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if ((int64_t)p.doc_offsets[mid + 1] > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  const int32_t begin = p.a_offsets[lo], nnz = p.a_offsets[lo + 1] - begin;
  const uint32_t *row_topic = p.a_topic + begin, *row_count = p.a_count + begin;
  const size_t row = (size_t)p.tokens[t] * (size_t)p.num_topics;
  const int32_t *b_row = p.b + row;
  const double *cum = p.cum + row;

  double s = 0.0;
  for (int32_t i = 0; i < nnz; ++i) s = __dadd_rn(s, sparse_term(row_count[i], b_row, p.inv, row_topic[i], p.beta));
  const double u = sk_rng_uniform_f64(p.seed, p.iteration, (uint64_t)t);
  const double x = __dmul_rn(u, __dadd_rn(s, __dmul_rn(p.alpha, cum[p.num_topics - 1])));
  int32_t topic;
  if (x < s) {
    // The first i whose running sum exceeds x; the last one is s > x, so the search stops by nnz - 1.
    double run = 0.0;
    int32_t i = 0;
    for (; i < nnz - 1; ++i) {
      run = __dadd_rn(run, sparse_term(row_count[i], b_row, p.inv, row_topic[i], p.beta));
      if (run > x) break;
    }
    topic = (int32_t)row_topic[i];
  } else {
    topic = first_above(cum, p.num_topics, __ddiv_rn(__dsub_rn(x, s), p.alpha));
  }
  p.z[t] = topic;
}

// B and n_k from z (both zeroed before): integer atomics, whose result does not depend on the order.
__global__ void count_words_kernel(const int32_t *tokens, const int32_t *z, int64_t num_tokens, int32_t num_topics,
                                   int32_t *b, unsigned long long *n_k) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= num_tokens) return;
  const int32_t k = z[t];
  atomicAdd(b + (size_t)tokens[t] * (size_t)num_topics + (size_t)k, 1);
  atomicAdd(n_k + k, 1ull);
}

// --- host helpers -------------------------------------------------------------------------------------

int cuda_fail(sk_lda_error *err, const char *what, cudaError_t e) {
  return sk_lda_fail(err, "GPU ESCA: %s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

// Returns from the enclosing int function with err filled when a CUDA call fails.
#define SK_LDA_CUDA_TRY(call, what)                          \
  do {                                                       \
    const cudaError_t sk_lda_cuda_e_ = (call);               \
    if (sk_lda_cuda_e_ != cudaSuccess) return cuda_fail(err, what, sk_lda_cuda_e_); \
  } while (0)

// After a launch: configuration and launch errors now (run-time faults surface at the sweep's sync).
#define SK_LDA_LAUNCH_CHECK(what) SK_LDA_CUDA_TRY(cudaGetLastError(), what)

int segc_fail(sk_lda_error *err, const char *what, sk_status st) {
  return sk_lda_fail(err, "GPU ESCA: %s: %s (%s)", what, sk_status_string(st), sk_last_cuda_error_string());
}

unsigned blocks_for(int64_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

// The most pairs A can hold: the model reserves min(n_d, K) slots per document (model.h).
size_t pair_capacity_of(const sk_lda_model *m) { return (size_t)m->dk_start[m->num_docs]; }

// A, B and n_k from the device z (on the legacy default stream, in order after the draws).
int recount(sk_lda_esca_gpu *g, sk_lda_error *err) {
  device_state &d = g->d;
  const size_t vk = (size_t)g->num_words * (size_t)g->num_topics;
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.b, 0, vk * sizeof *d.b, 0), "zeroing B");
  SK_LDA_CUDA_TRY(cudaMemsetAsync(d.n_k, 0, (size_t)g->num_topics * sizeof *d.n_k, 0), "zeroing n_k");
  if (g->num_tokens > 0) {
    count_words_kernel<<<blocks_for(g->num_tokens), kThreads>>>(d.tokens, d.z, g->num_tokens, g->num_topics, d.b,
                                                                d.n_k);
    SK_LDA_LAUNCH_CHECK("counting B and n_k");
  }
  const sk_status st = sk_segmented_count_u32(d.doc_offsets, g->num_docs, (int32_t)g->num_tokens,
                                              (const uint32_t *)d.z, NULL, g->num_topics, d.a_offsets, d.a_topic,
                                              d.a_count, (int32_t)g->pair_capacity, d.workspace, d.workspace_bytes, 0);
  if (st != SK_SUCCESS) return segc_fail(err, "counting A (segmented count)", st);
  return 0;
}

void free_device(device_state *d) {
  // Errors are ignored: after a fault the context is gone and every free fails the same way.
  cudaFree(d->tokens);
  cudaFree(d->doc_offsets);
  cudaFree(d->z);
  cudaFree(d->a_offsets);
  cudaFree(d->a_topic);
  cudaFree(d->a_count);
  cudaFree(d->b);
  cudaFree(d->n_k);
  cudaFree(d->inv);
  cudaFree(d->cum);
  cudaFree(d->workspace);
  memset(d, 0, sizeof *d);
}

// Allocates and fills the device state from the model (create's work after the checks).
int upload(sk_lda_esca_gpu *g, const sk_lda_model *m, sk_lda_error *err) {
  device_state &d = g->d;
  const size_t T = (size_t)g->num_tokens, D = (size_t)g->num_docs, K = (size_t)g->num_topics;
  const size_t vk = (size_t)g->num_words * K, pairs = (size_t)g->pair_capacity;
  // cudaMalloc of 0 bytes gives NULL, which the segmented count refuses for its keys: allocate >= 1.
  SK_LDA_CUDA_TRY(cudaMalloc(&d.tokens, (T > 0 ? T : 1) * sizeof *d.tokens), "allocating the tokens");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.doc_offsets, (D + 1) * sizeof *d.doc_offsets), "allocating the document offsets");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.z, (T > 0 ? T : 1) * sizeof *d.z), "allocating z");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.a_offsets, (D + 1) * sizeof *d.a_offsets), "allocating A's offsets");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.a_topic, (pairs > 0 ? pairs : 1) * sizeof *d.a_topic), "allocating A's topics");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.a_count, (pairs > 0 ? pairs : 1) * sizeof *d.a_count), "allocating A's counts");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.b, vk * sizeof *d.b), "allocating B");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.n_k, K * sizeof *d.n_k), "allocating n_k");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.inv, K * sizeof *d.inv), "allocating inv");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.cum, vk * sizeof *d.cum), "allocating the word tables");
  SK_LDA_CUDA_TRY(cudaMalloc(&d.workspace, d.workspace_bytes), "allocating the segmented count's workspace");

  int32_t *offsets = (int32_t *)malloc((D + 1) * sizeof *offsets);
  if (offsets == NULL) return sk_lda_fail(err, "GPU ESCA: out of host memory (D = %d)", (int)g->num_docs);
  for (size_t i = 0; i <= D; ++i) offsets[i] = (int32_t)m->corpus->doc_offsets[i];
  const cudaError_t e = cudaMemcpy(d.doc_offsets, offsets, (D + 1) * sizeof *offsets, cudaMemcpyHostToDevice);
  free(offsets);
  SK_LDA_CUDA_TRY(e, "copying the document offsets");
  if (T > 0) {
    SK_LDA_CUDA_TRY(cudaMemcpy(d.tokens, m->corpus->tokens, T * sizeof *d.tokens, cudaMemcpyHostToDevice),
                    "copying the tokens");
    SK_LDA_CUDA_TRY(cudaMemcpy(d.z, m->z, T * sizeof *d.z, cudaMemcpyHostToDevice), "copying z");
  }
  if (recount(g, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaDeviceSynchronize(), "building the counts");
  return 0;
}

}  // namespace

extern "C" size_t sk_lda_esca_gpu_state_bytes(const sk_lda_model *m) {
  if (m == NULL || m->corpus == NULL) return 0;
  const size_t T = (size_t)m->num_tokens, D = (size_t)m->num_docs, K = (size_t)m->num_topics;
  const size_t vk = (size_t)m->num_words * K;
  return 2 * T * sizeof(int32_t)                          /* tokens, z */
         + 2 * (D + 1) * sizeof(int32_t)                  /* document offsets, A's offsets */
         + pair_capacity_of(m) * 2 * sizeof(uint32_t)     /* A's topics and counts */
         + vk * (sizeof(int32_t) + sizeof(double))        /* B, the word tables */
         + K * (sizeof(unsigned long long) + sizeof(double)); /* n_k, inv */
}

extern "C" int sk_lda_esca_gpu_create(const sk_lda_model *m, int gpu, sk_lda_esca_gpu **out, sk_lda_error *err) {
  if (out == NULL) return sk_lda_fail(err, "GPU ESCA: out is NULL");
  *out = NULL;
  if (m == NULL || m->z == NULL || m->corpus == NULL)
    return sk_lda_fail(err, "GPU ESCA: model NULL or not initialised");
  if (m->num_tokens > INT32_MAX)
    return sk_lda_fail(err, "GPU ESCA: %lld tokens; the GPU sampler takes at most %d (use --device cpu)",
                       (long long)m->num_tokens, INT32_MAX);
  SK_LDA_CUDA_TRY(cudaSetDevice(gpu), "selecting the GPU");
  cudaDeviceProp prop;
  SK_LDA_CUDA_TRY(cudaGetDeviceProperties(&prop, gpu), "querying the GPU");

  sk_lda_esca_gpu *g = (sk_lda_esca_gpu *)calloc(1, sizeof *g);
  if (g == NULL) return sk_lda_fail(err, "GPU ESCA: out of host memory");
  g->gpu = gpu;
  g->num_topics = m->num_topics;
  g->num_words = m->num_words;
  g->num_docs = m->num_docs;
  g->num_tokens = m->num_tokens;
  g->pair_capacity = (int64_t)pair_capacity_of(m);
  g->alpha = m->alpha;
  g->beta = m->beta;
  g->vbeta = (double)m->num_words * m->beta; /* esca.c's expression, rounded on the host */
  g->seed = m->seed;
  snprintf(g->description, sizeof g->description, "ESCA (GPU %d: %s)", gpu, prop.name);

  int failed = 0;
  const sk_status st =
      sk_segmented_count_workspace_size(g->num_docs, (int32_t)g->num_tokens, g->num_topics, &g->d.workspace_bytes);
  if (st != SK_SUCCESS) failed = segc_fail(err, "sizing the segmented count's workspace", st);

  size_t free_bytes = 0, total_bytes = 0;
  if (!failed) {
    const cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes);
    if (e != cudaSuccess) failed = cuda_fail(err, "querying the GPU's free memory", e);
  }
  const size_t needed = sk_lda_esca_gpu_state_bytes(m) + g->d.workspace_bytes;
  if (!failed && needed > free_bytes)
    failed = sk_lda_fail(err,
                         "GPU ESCA: the model needs %zu bytes of GPU memory (%.2f GB: V = %d, K = %d, %lld tokens) "
                         "but GPU %d has %zu bytes free (%.2f GB); use --device cpu or a smaller K",
                         needed, (double)needed / 1e9, (int)g->num_words, (int)g->num_topics,
                         (long long)g->num_tokens, gpu, free_bytes, (double)free_bytes / 1e9);
  if (!failed) {
    const size_t D = (size_t)g->num_docs, pairs = (size_t)g->pair_capacity;
    g->h_a_offsets = (int32_t *)malloc((D + 1) * sizeof *g->h_a_offsets);
    g->h_a_topic = (uint32_t *)malloc((pairs > 0 ? pairs : 1) * sizeof *g->h_a_topic);
    g->h_a_count = (uint32_t *)malloc((pairs > 0 ? pairs : 1) * sizeof *g->h_a_count);
    if (g->h_a_offsets == NULL || g->h_a_topic == NULL || g->h_a_count == NULL)
      failed = sk_lda_fail(err, "GPU ESCA: out of host memory for A's copy (%zu pairs)", pairs);
  }
  if (!failed) failed = upload(g, m, err);
  if (failed) {
    sk_lda_esca_gpu_destroy(g);
    return 1;
  }
  *out = g;
  return 0;
}

extern "C" int sk_lda_esca_gpu_sweep(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err) {
  if (g == NULL) return sk_lda_fail(err, "GPU ESCA sweep: sampler is NULL");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_lda_fail(err, "GPU ESCA sweep: iteration %llu is too large", (unsigned long long)iteration);
  SK_LDA_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  device_state &d = g->d;
  inv_denom_kernel<<<blocks_for(g->num_topics), kThreads>>>(d.n_k, g->num_topics, g->vbeta, d.inv);
  SK_LDA_LAUNCH_CHECK("computing inv");
  if (g->num_words > 0) {
    word_table_kernel<<<blocks_for(g->num_words), kThreads>>>(d.b, d.inv, g->num_words, g->num_topics, g->beta,
                                                              d.cum);
    SK_LDA_LAUNCH_CHECK("building the word tables");
  }
  if (g->num_tokens > 0) {
    draw_params p;
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
    draw_kernel<<<blocks_for(g->num_tokens), kThreads>>>(p);
    SK_LDA_LAUNCH_CHECK("drawing the topics");
  }
  if (recount(g, err) != 0) return 1;
  SK_LDA_CUDA_TRY(cudaDeviceSynchronize(), "running the sweep");
  return 0;
}

extern "C" int sk_lda_esca_gpu_to_host(sk_lda_esca_gpu *g, sk_lda_model *m, sk_lda_error *err) {
  if (g == NULL || m == NULL || m->z == NULL) return sk_lda_fail(err, "GPU ESCA to host: sampler or model NULL");
  if (m->num_topics != g->num_topics || m->num_words != g->num_words || m->num_docs != g->num_docs ||
      m->num_tokens != g->num_tokens)
    return sk_lda_fail(err, "GPU ESCA to host: the model's shape differs from the sampler's");
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

extern "C" const char *sk_lda_esca_gpu_description(const sk_lda_esca_gpu *g) {
  return g != NULL ? g->description : "ESCA (GPU)";
}

extern "C" void sk_lda_esca_gpu_destroy(sk_lda_esca_gpu *g) {
  if (g == NULL) return;
  (void)cudaSetDevice(g->gpu); /* the allocations belong to it; when this fails, so do the frees */
  free_device(&g->d);
  free(g->h_a_offsets);
  free(g->h_a_topic);
  free(g->h_a_count);
  free(g);
}
