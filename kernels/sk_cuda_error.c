/* Mapping of CUDA runtime errors to sk_status, with the raw code kept per host thread. */
#include <cuda_runtime_api.h>

#include "samplekit/sk_device.h"

/* Per host thread, so that concurrent callers never see each other's errors. */
static _Thread_local int sk_detail_last_cuda_error = 0;

sk_status sk_status_from_cuda_error(int cuda_error) {
  if (cuda_error == (int)cudaSuccess) return SK_SUCCESS;
  sk_detail_last_cuda_error = cuda_error;
  switch ((enum cudaError)cuda_error) {
    case cudaErrorMemoryAllocation:
      return SK_ERROR_CUDA_ALLOCATION_FAILED;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return SK_ERROR_NO_DEVICE;
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorLaunchTimeout:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorAssert:
      return SK_ERROR_CUDA_LAUNCH_FAILED;
    default:
      return SK_ERROR_CUDA;
  }
}

int sk_last_cuda_error(void) { return sk_detail_last_cuda_error; }

const char *sk_last_cuda_error_string(void) {
  return cudaGetErrorString((cudaError_t)sk_detail_last_cuda_error);
}

void sk_clear_cuda_error(void) { sk_detail_last_cuda_error = 0; }
