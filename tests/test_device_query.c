/* sk_device_query from C on a real device: plausible facts, and a device past the count rejected. */
#include <stdio.h>
#include <string.h>

#include "samplekit/samplekit.h"
#include "sk_test.h"

int main(void) {
  sk_device_info info;
  const sk_status st = sk_device_query(0, &info);
  if (st == SK_ERROR_NO_DEVICE) {
    printf("SKIP: no usable CUDA GPU (%s); this test needs one\n", sk_last_cuda_error_string());
    return SK_TEST_SKIP_CODE;
  }
  sk_test_context("sk_device_query(0)");
  SK_CHECK(st == SK_SUCCESS, "returned %s (%s)", sk_status_name(st), sk_last_cuda_error_string());
  if (st == SK_SUCCESS) {
    printf("device 0: %s, sm_%d%d, %d SMs, %zu KiB shared/block (%zu opt-in), %zu KiB shared/SM, %zu MiB L2, "
           "%zu MiB memory\n",
           info.name, info.compute_capability_major, info.compute_capability_minor, info.sm_count,
           info.shared_bytes_per_block >> 10, info.shared_bytes_per_block_optin >> 10, info.shared_bytes_per_sm >> 10,
           info.l2_cache_bytes >> 20, info.global_memory_bytes >> 20);
    SK_CHECK(info.device == 0 && info.sm_count > 0 && info.warp_size == 32 && info.max_threads_per_sm >= 1024,
             "implausible counts");
    SK_CHECK(info.shared_bytes_per_block == 48 * 1024 && info.shared_bytes_per_block_optin >= info.shared_bytes_per_block &&
                 info.shared_bytes_per_sm >= info.shared_bytes_per_block_optin,
             "implausible shared memory sizes");
    SK_CHECK(info.l2_cache_bytes > 0 && info.global_memory_bytes > info.l2_cache_bytes && strlen(info.name) > 0,
             "implausible L2, memory or name");
    SK_CHECK(sk_device_query(1000, &info) == SK_ERROR_INVALID_VALUE, "device 1000 was not rejected");
  }
  return sk_test_finish();
}
