/**
 * \file sk_ex_cuda_check.cuh
 * \brief How the examples' CUDA files turn a CUDA failure into an error message (#sk_ex_error) instead
 * of an abort. Needs nvcc (cuda_runtime.h); C++ only.
 *
 * A .cu file defines SK_EX_CUDA_SCOPE (the part that failed, "GPU metrics") before it uses the macros,
 * which return 1 from the enclosing int function with its `err` filled:
 *
 *     SK_EX_CUDA_TRY(cudaMalloc(&p, n), "allocating the partial sums");
 *     kernel<<<grid, block>>>(...);
 *     SK_EX_LAUNCH_CHECK("summing the terms");   // configuration and launch errors, at once
 *
 * Faults while a kernel runs surface at the next synchronising call, which is checked the same way.
 */
#ifndef SK_EX_CUDA_CHECK_CUH
#define SK_EX_CUDA_CHECK_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sk_ex_error.h"

/**
 * \brief Fills err with "<scope>: <what>: <CUDA's error name> (<CUDA's text>)".
 * \param err where the message goes, or NULL.
 * \param scope the part that failed.
 * \param what the step that failed.
 * \param e CUDA's error.
 * \return 1.
 */
static inline int sk_ex_cuda_fail(sk_ex_error *err, const char *scope, const char *what, cudaError_t e) {
  return sk_ex_fail(err, "%s: %s: %s (%s)", scope, what, cudaGetErrorName(e), cudaGetErrorString(e));
}

/** \brief Runs a CUDA call; on failure returns 1 from the enclosing function with `err` filled. */
#define SK_EX_CUDA_TRY(call, what)                                                                         \
  do {                                                                                                     \
    const cudaError_t sk_ex_cuda_e_ = (call);                                                              \
    if (sk_ex_cuda_e_ != cudaSuccess) return sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, what, sk_ex_cuda_e_); \
  } while (0)

/** \brief After a kernel launch: its configuration and launch errors, as SK_EX_CUDA_TRY(). */
#define SK_EX_LAUNCH_CHECK(what) SK_EX_CUDA_TRY(cudaGetLastError(), what)

/**
 * \brief cudaMalloc of `count` elements, at least one (0 bytes gives NULL, which samplekit's functions
 * refuse), added to *allocated; a failure names `what` and the bytes.
 * \param p receives the pointer.
 * \param count elements.
 * \param scope the part that allocates.
 * \param what the array.
 * \param allocated the bytes allocated so far, increased.
 * \param err the failure.
 * \return 0 on success.
 */
template <typename T>
static inline int sk_ex_cuda_alloc(T **p, size_t count, const char *scope, const char *what, int64_t *allocated,
                                   sk_ex_error *err) {
  const size_t bytes = (count > 0 ? count : 1) * sizeof(T);
  const cudaError_t e = cudaMalloc((void **)p, bytes);
  if (e != cudaSuccess) {
    char msg[160];
    snprintf(msg, sizeof msg, "allocating %s (%zu bytes)", what, bytes);
    return sk_ex_cuda_fail(err, scope, msg, e);
  }
  *allocated += (int64_t)bytes;
  return 0;
}

#endif /* SK_EX_CUDA_CHECK_CUH */
