// The topics' normalisers 1 / (n_k + V beta), computed once per sweep or evaluation by every GPU part of
// sk-lda that needs them, by one kernel (topic_inverse.cu): GPU ESCA's float inverse (gpu_state.cuh),
// the exact sweep's double inverse (esca_exact_kernels.cuh) and the metrics' (metrics_gpu_heldout.cu),
// and the denominator n_k + V beta that AGA-LDA divides by (aga_kernels.cu's nt_den).
//
// What every output is, bit for bit (the CPU's values: metrics.c and esca.c compute 1.0 / ((double)n_k
// + (double)V * beta) in double, C11 without contraction):
//   den = (double)n_k + vbeta              rounded to nearest (__dadd_rn)
//   inv = 1.0 / den                        rounded to nearest (__ddiv_rn, IEEE division)
//   inv_f64[k] = inv;  inv_f32[k] = (float)inv;  den_f32[k] = (float)den   (__double2float_rn)
// vbeta is the caller's double: (double)V * beta for the inverses; AGA passes its float V beta widened,
// (double)vbeta_f32, which gives its float NT + V beta exactly as before.
#ifndef SK_LDA_TOPIC_INVERSE_CUH
#define SK_LDA_TOPIC_INVERSE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace sk_lda_gpu {

// The outputs wanted (device pointers, K each); a NULL one is not written.
struct topic_inverse_out {
  double *inv_f64;  // 1 / (n_k + vbeta) in double
  float *inv_f32;   // the same, rounded to float
  float *den_f32;   // n_k + vbeta, rounded to float
};

// Queues the kernel on `stream` for topics 0 .. num_topics - 1 of n_k (device, K counts) and returns
// cudaGetLastError() (cudaSuccess without a launch when num_topics <= 0 or every output is NULL).
cudaError_t topic_inverse_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta,
                                 const topic_inverse_out &out, cudaStream_t stream);

// The three uses, one output each.
cudaError_t topic_inverse_f64_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, double *inv,
                                     cudaStream_t stream);
cudaError_t topic_inverse_f32_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, float *inv,
                                     cudaStream_t stream);
cudaError_t topic_denominator_f32_launch(const unsigned long long *n_k, int32_t num_topics, double vbeta, float *den,
                                         cudaStream_t stream);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_TOPIC_INVERSE_CUH
