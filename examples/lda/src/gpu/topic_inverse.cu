// The one kernel of topic_inverse.cuh: 1 / (n_k + V beta) and n_k + V beta, in the formats its callers keep.
#include "gpu/topic_inverse.cuh"

namespace sk_lda_gpu {
namespace {

constexpr int kThreads = 256;

// One thread per topic. Every operation is an _rn intrinsic, so nvcc can neither fuse nor reorder:
// each output has the bits topic_inverse.cuh states, which are those of the kernels this one replaced
// (gpu_state.cu's inverse_kernel, esca_exact_kernels.cu's inv_denom_kernel, metrics_gpu_heldout.cu's
// inv_kernel, and the denominator of aga_kernels.cu's nt_den_kernel).
__global__ void topic_inverse_kernel(const unsigned long long *n_k, int32_t num_topics, double vbeta,
                                     topic_inverse_out out) {
  const int32_t k = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= num_topics) return;
  const double den = __dadd_rn((double)(long long)n_k[k], vbeta);
  if (out.den_f32 != NULL) out.den_f32[k] = __double2float_rn(den);
  if (out.inv_f64 == NULL && out.inv_f32 == NULL) return;
  const double inv = __ddiv_rn(1.0, den);
  if (out.inv_f64 != NULL) out.inv_f64[k] = inv;
  if (out.inv_f32 != NULL) out.inv_f32[k] = __double2float_rn(inv);
}

}  // namespace

cudaError_t topic_inverse_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta,
                                 const topic_inverse_out &out, cudaStream_t stream) {
  if (num_topics <= 0 || (out.inv_f64 == NULL && out.inv_f32 == NULL && out.den_f32 == NULL)) return cudaSuccess;
  topic_inverse_kernel<<<(unsigned)((num_topics + kThreads - 1) / kThreads), kThreads, 0, stream>>>(n_k, num_topics,
                                                                                                    vbeta, out);
  return cudaGetLastError();
}

cudaError_t topic_inverse_f64_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, double *inv,
                                     cudaStream_t stream) {
  topic_inverse_out out = {inv, NULL, NULL};
  return topic_inverse_launch(n_k, num_topics, vbeta, out, stream);
}

cudaError_t topic_inverse_f32_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, float *inv,
                                     cudaStream_t stream) {
  topic_inverse_out out = {NULL, inv, NULL};
  return topic_inverse_launch(n_k, num_topics, vbeta, out, stream);
}

cudaError_t topic_denominator_f32_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, float *den,
                                         cudaStream_t stream) {
  topic_inverse_out out = {NULL, NULL, den};
  return topic_inverse_launch(n_k, num_topics, vbeta, out, stream);
}

}  // namespace sk_lda_gpu
