// The kernels of GPU ESCA's exact sweep (esca_exact_kernels.cu), for the oracle sampler (esca_exact.h):
// the CPU ESCA's chain (esca.c) bit for bit, a thread per token in double. Slow (a word table of V x K
// doubles per sweep, the document's sparse sums walked by one thread), it is the oracle the tests hold
// the GPU counts and the resident and streamed samplers' plumbing against.
//
// Bit-exactness rests on three things. (1) The uniforms: sk_rng_uniform_f64() is one host/device
// function (samplekit/rng.h), so token t gets the same double on both sides. (2) The doubles: every
// sum and product the draw compares is written with the _rn intrinsics, in esca.c's order, so nvcc
// cannot fuse a multiply and an add into an FMA (which rounds once instead of twice) nor reorder
// anything; esca.c is C11 without -ffast-math, where gcc does not contract either. The word tables are
// running sums, so they are computed sequentially per word, never by a parallel scan. (3) The counts:
// A, B and n_k are integers, rebuilt from z by a deterministic segmented count and by integer atomics,
// whose sums do not depend on the order (n_k is their column sum, gpu_state.cuh's epilogue).
#ifndef SK_LDA_ESCA_EXACT_KERNELS_CUH
#define SK_LDA_ESCA_EXACT_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace sk_lda_gpu {

// What the exact draw reads and writes (device pointers).
struct exact_draw_params {
  const int32_t *tokens, *doc_offsets, *a_offsets;
  const uint32_t *a_topic, *a_count;
  const int32_t *b;
  const double *cum, *inv;
  int32_t *z;
  int64_t num_tokens;
  int32_t num_docs, num_topics;
  double alpha, beta;  // alpha is 1 with per-topic priors (they are in the word tables)
  uint64_t seed, iteration;
};

// inv[k] = 1 / (n_k[k] + vbeta) in double, as sk_lda_esca_inv_denom(): topic_inverse.cuh's kernel.
cudaError_t exact_inv_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, double *inv,
                             cudaStream_t stream);

// The word tables: cum_v[k] = running sum of (B[v,k] + beta) inv[k], as sk_lda_esca_word_table(); with
// per-topic priors (alpha_k not NULL) of alpha_k[k] ((B[v,k] + beta) inv[k]), as
// sk_lda_esca_word_table_prior() (the draw's alpha is then 1).
cudaError_t exact_tables_launch(const int32_t *b, const double *inv, const double *alpha_k, int32_t num_words,
                                int32_t num_topics, double beta, double *cum, cudaStream_t stream);

// One draw per token, in place in z, as sk_lda_esca_draw().
cudaError_t exact_draw_launch(const exact_draw_params &p, cudaStream_t stream);

// B's counts from z (b zeroed before) with integer atomics; n_k is summed from them by the epilogue.
cudaError_t count_words_launch(const int32_t *tokens, const int32_t *z, int64_t num_tokens, int32_t num_topics,
                               int32_t *b, cudaStream_t stream);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_ESCA_EXACT_KERNELS_CUH
