/* Internal to samplekit::kernels: how launching calls check CUDA. Not installed. */
#ifndef SAMPLEKIT_KERNELS_SK_DETAIL_CUDA_H
#define SAMPLEKIT_KERNELS_SK_DETAIL_CUDA_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "samplekit/sk_device.h"

/* Returns the mapped status from the enclosing function when a CUDA call fails. The runtime's last error
   is taken off (its code stays in sk_last_cuda_error()): this call reports it, so the caller's next call
   must not find it pending and blame earlier work. */
#define SK_DETAIL_CUDA_TRY(call)                                                \
  do {                                                                          \
    const sk_status sk_detail_status_ = sk_status_from_cuda_error((int)(call)); \
    if (sk_detail_status_ != SK_SUCCESS) {                                      \
      (void)cudaGetLastError();                                                 \
      return sk_detail_status_;                                                 \
    }                                                                           \
  } while (0)

/* Before a launch: an error left by earlier work would otherwise be blamed on our launch. Without a
   driver or a device every runtime call fails, cudaGetLastError() too: that is no device, not earlier
   work. */
static inline sk_status sk_detail_check_pending(void) {
  const cudaError_t pending = cudaGetLastError();
  if (pending == cudaSuccess) return SK_SUCCESS;
  const sk_status st = sk_status_from_cuda_error((int)pending); /* keeps CUDA's code retrievable */
  return st == SK_ERROR_NO_DEVICE ? st : SK_ERROR_CUDA_PENDING;
}

/* Before a query that needs a device (CUB's workspace sizes, attributes): no driver or no device is
   SK_ERROR_NO_DEVICE here, where CUB would report another code (an invalid device ordinal). */
static inline sk_status sk_detail_check_device(void) {
  int device = 0;
  SK_DETAIL_CUDA_TRY(cudaGetDevice(&device));
  return SK_SUCCESS;
}

/* Whether a block may have `bytes` of dynamic shared memory on the current device (its opt-in limit):
   SK_ERROR_UNSUPPORTED when not, before a cudaFuncSetAttribute that would fail with a CUDA code. */
static inline sk_status sk_detail_check_shared_bytes(size_t bytes) {
  int device = 0, optin = 0;
  SK_DETAIL_CUDA_TRY(cudaGetDevice(&device));
  SK_DETAIL_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes > (size_t)optin ? SK_ERROR_UNSUPPORTED : SK_SUCCESS;
}

/* After a launch: configuration and launch errors are reported here, run-time faults later. */
static inline sk_status sk_detail_check_launch(void) {
  const sk_status st = sk_status_from_cuda_error((int)cudaGetLastError());
  return st == SK_ERROR_CUDA ? SK_ERROR_CUDA_LAUNCH_FAILED : st;
}

#endif /* SAMPLEKIT_KERNELS_SK_DETAIL_CUDA_H */
