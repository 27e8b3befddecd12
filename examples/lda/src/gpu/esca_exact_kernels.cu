// The kernels of GPU ESCA's exact sweep: see esca_exact_kernels.cuh for why they give the CPU's chain bit
// for bit.
#include "gpu/esca_exact_kernels.cuh"
#include "gpu/topic_inverse.cuh"

#include "esca.h"  // sk_lda_esca_pair_at()
#include "model.h"
#include "samplekit/rng.cuh"

namespace sk_lda_gpu {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

// One thread per word: cum_v[k] = running sum of (B[v,k] + beta) inv[k], as sk_lda_esca_word_table(), or
// of alpha_k[k] ((B[v,k] + beta) inv[k]), as sk_lda_esca_word_table_prior().
__global__ void word_table_kernel(const int32_t *b, const double *inv, const double *alpha_k, int32_t num_words,
                                  int32_t num_topics, double beta, double *cum) {
  const int32_t v = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (v >= num_words) return;
  const int32_t *b_row = b + (size_t)v * (size_t)num_topics;
  double *cum_row = cum + (size_t)v * (size_t)num_topics;
  double s = 0.0;
  if (alpha_k == nullptr) {
    for (int32_t k = 0; k < num_topics; ++k) {
      s = __dadd_rn(s, __dmul_rn(__dadd_rn((double)b_row[k], beta), inv[k]));
      cum_row[k] = s;
    }
  } else {
    for (int32_t k = 0; k < num_topics; ++k) {
      s = __dadd_rn(s, __dmul_rn(alpha_k[k], __dmul_rn(__dadd_rn((double)b_row[k], beta), inv[k])));
      cum_row[k] = s;
    }
  }
}

// One term of the sparse part: count (B[v,k] + beta) inv[k], as in sk_lda_esca_draw().
__device__ double sparse_term(uint32_t count, const int32_t *b_row, const double *inv, uint32_t k, double beta) {
  return __dmul_rn((double)(int32_t)count, __dmul_rn(__dadd_rn((double)b_row[k], beta), inv[k]));
}


// One thread per token t: sk_lda_esca_draw() with u = sk_rng_uniform_f64(seed, iteration, t). The CPU
// keeps the sparse running sums in a scratch array; here the first pass computes only their total and
// the second (taken when x falls in the sparse part) recomputes them with the same operations, so each
// partial sum has the same bits as the CPU's psum[i].
__global__ void draw_kernel(exact_draw_params p) {
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
  for (int32_t q = 0; q < nnz; ++q) {
    const int32_t i = sk_lda_esca_pair_at(q, nnz);
    s = __dadd_rn(s, sparse_term(row_count[i], b_row, p.inv, row_topic[i], p.beta));
  }
  const double u = sk_rng_uniform_f64(p.seed, p.iteration, (uint64_t)t);
  const double x = __dmul_rn(u, __dadd_rn(s, __dmul_rn(p.alpha, cum[p.num_topics - 1])));
  int32_t topic;
  if (x < s) {
    // The first position whose running sum exceeds x (in sk_lda_esca_pair_at()'s order); the last one
    // is s > x, so the search stops by nnz - 1.
    double run = 0.0;
    int32_t q = 0;
    for (; q < nnz - 1; ++q) {
      const int32_t i = sk_lda_esca_pair_at(q, nnz);
      run = __dadd_rn(run, sparse_term(row_count[i], b_row, p.inv, row_topic[i], p.beta));
      if (run > x) break;
    }
    topic = (int32_t)row_topic[sk_lda_esca_pair_at(q, nnz)];
  } else {
    topic = sk_lda_detail_first_above(cum, p.num_topics, __ddiv_rn(__dsub_rn(x, s), p.alpha));
  }
  p.z[t] = topic;
}

// B's counts from z (b zeroed before): integer atomics, whose result does not depend on the order.
__global__ void count_words_kernel(const int32_t *tokens, const int32_t *z, int64_t num_tokens, int32_t num_topics,
                                   int32_t *b) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= num_tokens) return;
  atomicAdd(b + (size_t)tokens[t] * (size_t)num_topics + (size_t)z[t], 1);
}

}  // namespace

cudaError_t exact_inv_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, double *inv,
                             cudaStream_t stream) {
  return topic_inverse_f64_launch(n_k, num_topics, vbeta, inv, stream);  // the one kernel of topic_inverse.cuh
}

cudaError_t exact_tables_launch(const int32_t *b, const double *inv, const double *alpha_k, int32_t num_words,
                                int32_t num_topics, double beta, double *cum, cudaStream_t stream) {
  if (num_words == 0) return cudaSuccess;
  word_table_kernel<<<blocks_for(num_words), kThreads, 0, stream>>>(b, inv, alpha_k, num_words, num_topics, beta,
                                                                     cum);
  return cudaGetLastError();
}

cudaError_t exact_draw_launch(const exact_draw_params &p, cudaStream_t stream) {
  if (p.num_tokens == 0) return cudaSuccess;
  draw_kernel<<<blocks_for(p.num_tokens), kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

cudaError_t count_words_launch(const int32_t *tokens, const int32_t *z, int64_t num_tokens, int32_t num_topics,
                               int32_t *b, cudaStream_t stream) {
  if (num_tokens == 0) return cudaSuccess;
  count_words_kernel<<<blocks_for(num_tokens), kThreads, 0, stream>>>(tokens, z, num_tokens, num_topics, b);
  return cudaGetLastError();
}

}  // namespace sk_lda_gpu
