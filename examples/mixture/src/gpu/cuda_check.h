/*
 * How sk-mixture's CUDA files turn a CUDA failure into an error message (mixture.h's sk_mix_error)
 * instead of an abort. A .cu file defines SK_MIX_CUDA_SCOPE (the part that failed, "GPU z-step") before
 * it uses the macros, which return 1 from the enclosing int function with `err` filled:
 *
 *   SK_MIX_CUDA_TRY(cudaMalloc(&p, n), "allocating the points");
 *   kernel<<<grid, block, 0, stream>>>(...);
 *   SK_MIX_LAUNCH_CHECK("the z-step kernel");   // configuration and launch errors, at once
 *
 * Faults while a kernel runs surface at the next synchronising call, which is checked the same way.
 */
#ifndef SK_MIX_CUDA_CHECK_H
#define SK_MIX_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "mixture.h"

/* Fills err with "<scope>: <what>: <CUDA's error name> (<CUDA's text>)" and returns 1. */
static inline int sk_mix_cuda_fail(sk_mix_error *err, const char *scope, const char *what, cudaError_t e) {
  return sk_mix_fail(err, "%s: %s: %s (%s)", scope, what, cudaGetErrorName(e), cudaGetErrorString(e));
}

#define SK_MIX_CUDA_TRY(call, what)                                                                           \
  do {                                                                                                        \
    const cudaError_t sk_mix_cuda_e_ = (call);                                                                \
    if (sk_mix_cuda_e_ != cudaSuccess) return sk_mix_cuda_fail(err, SK_MIX_CUDA_SCOPE, what, sk_mix_cuda_e_); \
  } while (0)

#define SK_MIX_LAUNCH_CHECK(what) SK_MIX_CUDA_TRY(cudaGetLastError(), what)

#endif /* SK_MIX_CUDA_CHECK_H */
