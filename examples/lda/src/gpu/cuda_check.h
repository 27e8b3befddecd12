/*
 * How sk-lda's CUDA files turn a CUDA failure into an error message (corpus.h's sk_lda_error) instead
 * of an abort. A .cu file defines SK_LDA_CUDA_SCOPE (the part that failed, "GPU metrics") before it
 * uses the macros, which return from the enclosing int function with `err` filled:
 *
 *   SK_LDA_CUDA_TRY(cudaMalloc(&p, n), "allocating the partial sums");
 *   kernel<<<grid, block>>>(...);
 *   SK_LDA_LAUNCH_CHECK("summing the terms");   // configuration and launch errors, at once
 *
 * Faults while a kernel runs surface at the next synchronising call, which is checked the same way.
 * Needs nvcc (cuda_runtime.h); C++ only.
 */
#ifndef SK_LDA_CUDA_CHECK_H
#define SK_LDA_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "corpus.h"

/* Fills err with "<scope>: <what>: <CUDA's error name> (<CUDA's text>)" and returns 1. */
static inline int sk_lda_cuda_fail(sk_lda_error *err, const char *scope, const char *what, cudaError_t e) {
  return sk_lda_fail(err, "%s: %s: %s (%s)", scope, what, cudaGetErrorName(e), cudaGetErrorString(e));
}

#define SK_LDA_CUDA_TRY(call, what)                                                        \
  do {                                                                                     \
    const cudaError_t sk_lda_cuda_e_ = (call);                                             \
    if (sk_lda_cuda_e_ != cudaSuccess) return sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, what, sk_lda_cuda_e_); \
  } while (0)

#define SK_LDA_LAUNCH_CHECK(what) SK_LDA_CUDA_TRY(cudaGetLastError(), what)

/* cudaMalloc of `count` elements, at least one (0 bytes gives NULL, which samplekit's functions refuse),
   added to *allocated; a failure names `what` and the bytes. */
template <typename T>
static inline int sk_lda_cuda_alloc(T **p, size_t count, const char *scope, const char *what, int64_t *allocated,
                                    sk_lda_error *err) {
  const size_t bytes = (count > 0 ? count : 1) * sizeof(T);
  const cudaError_t e = cudaMalloc((void **)p, bytes);
  if (e != cudaSuccess) {
    char msg[160];
    snprintf(msg, sizeof msg, "allocating %s (%zu bytes)", what, bytes);
    return sk_lda_cuda_fail(err, scope, msg, e);
  }
  *allocated += (int64_t)bytes;
  return 0;
}

#endif /* SK_LDA_CUDA_CHECK_H */
