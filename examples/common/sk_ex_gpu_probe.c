/* Finding the GPU an example would run on (sk_ex_gpu_probe.h). */
#include "sk_ex_gpu_probe.h"

#include <stdio.h>

#include "samplekit/sk_device.h"

int sk_ex_gpu_probe(int device, char *name, size_t cap, sk_ex_error *err) {
  sk_device_info info;
  const sk_status st = sk_device_query(device, &info);
  if (st == SK_ERROR_NO_DEVICE) return sk_ex_fail(err, "no CUDA GPU found (%s)", sk_last_cuda_error_string());
  if (st != SK_SUCCESS)
    return sk_ex_fail(err, "GPU %d cannot be used: %s (%s)", device, sk_status_string(st), sk_last_cuda_error_string());
  if (name != NULL && cap > 0) snprintf(name, cap, "%s", info.name);
  return 0;
}
