/* Finding the GPU an example would run on (sk_ex_gpu_probe.h). */
#include "sk_ex_gpu_probe.h"

#include <stdio.h>

#include "samplekit/sk_device.h"

int sk_ex_gpu_probe(int device, char *name, size_t cap, sk_ex_error *err) {
  sk_device_info info;
  const sk_status st = sk_device_query(device, &info);
  /* CUDA says "driver version is insufficient for CUDA runtime version" (35) both where a GPU's driver is
     too old and, far more often, where there is no NVIDIA driver at all: say both plainly, not CUDA's
     words, which read like a broken driver. */
  if (st == SK_ERROR_NO_DEVICE && sk_last_cuda_error() == 35)
    return sk_ex_fail(err, "no CUDA GPU found: this machine has no NVIDIA driver loaded, or one older than the CUDA "
                           "runtime this program was built with needs");
  if (st == SK_ERROR_NO_DEVICE) return sk_ex_fail(err, "no CUDA GPU found on this machine");
  if (st != SK_SUCCESS)
    return sk_ex_fail(err, "GPU %d cannot be used: %s (%s)", device, sk_status_string(st), sk_last_cuda_error_string());
  if (name != NULL && cap > 0) snprintf(name, cap, "%s", info.name);
  return 0;
}
