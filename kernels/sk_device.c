/* Device facts from one cudaGetDeviceProperties call (it creates no context on the device). */
#include <string.h>

#include <cuda_runtime_api.h>

#include "samplekit/sk_device.h"

sk_status sk_device_query(int device, sk_device_info *info) {
  if (info == NULL) return SK_ERROR_NULL_POINTER;
  if (device < 0) return SK_ERROR_INVALID_VALUE;

  int count = 0;
  sk_status st = sk_status_from_cuda_error((int)cudaGetDeviceCount(&count));
  if (st != SK_SUCCESS) return st;
  if (device >= count) return SK_ERROR_INVALID_VALUE;

  struct cudaDeviceProp prop;
  st = sk_status_from_cuda_error((int)cudaGetDeviceProperties(&prop, device));
  if (st != SK_SUCCESS) return st;

  sk_device_info out;
  memset(&out, 0, sizeof out);
  out.device = device;
  out.compute_capability_major = prop.major;
  out.compute_capability_minor = prop.minor;
  out.sm_count = prop.multiProcessorCount;
  out.warp_size = prop.warpSize;
  out.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  out.shared_bytes_per_block = prop.sharedMemPerBlock;
  out.shared_bytes_per_block_optin = prop.sharedMemPerBlockOptin;
  out.shared_bytes_per_sm = prop.sharedMemPerMultiprocessor;
  out.l2_cache_bytes = (size_t)prop.l2CacheSize;
  out.global_memory_bytes = prop.totalGlobalMem;
  memcpy(out.name, prop.name, sizeof out.name < sizeof prop.name ? sizeof out.name : sizeof prop.name);
  out.name[sizeof out.name - 1] = '\0';

  *info = out;
  return SK_SUCCESS;
}
