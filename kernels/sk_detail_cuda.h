/* Internal to samplekit::kernels: how launching calls check CUDA. Not installed. */
#ifndef SAMPLEKIT_KERNELS_SK_DETAIL_CUDA_H
#define SAMPLEKIT_KERNELS_SK_DETAIL_CUDA_H

#include <cuda_runtime_api.h>

#include "samplekit/sk_device.h"

/* Returns the mapped status from the enclosing function when a CUDA call fails. */
#define SK_DETAIL_CUDA_TRY(call)                                              \
  do {                                                                        \
    const sk_status sk_detail_status_ = sk_status_from_cuda_error((int)(call)); \
    if (sk_detail_status_ != SK_SUCCESS) return sk_detail_status_;            \
  } while (0)

/* Before a launch: an error left by earlier work would otherwise be blamed on our launch. */
static inline sk_status sk_detail_check_pending(void) {
  const cudaError_t pending = cudaGetLastError();
  if (pending == cudaSuccess) return SK_SUCCESS;
  (void)sk_status_from_cuda_error((int)pending); /* keep CUDA's code retrievable */
  return SK_ERROR_CUDA_PENDING;
}

/* After a launch: configuration and launch errors are reported here, run-time faults later. */
static inline sk_status sk_detail_check_launch(void) {
  const sk_status st = sk_status_from_cuda_error((int)cudaGetLastError());
  return st == SK_ERROR_CUDA ? SK_ERROR_CUDA_LAUNCH_FAILED : st;
}

#endif /* SAMPLEKIT_KERNELS_SK_DETAIL_CUDA_H */
