// Uses sk_warp_inclusive_sum_u32 in its own kernel; runs the kernel when a GPU is present.
#include <stdio.h>

#include <samplekit/warp_scan.cuh>

__global__ void lane_prefix(unsigned *out) { out[threadIdx.x] = sk_warp_inclusive_sum_u32(SK_FULL_MASK, 1u); }

int main() {
  unsigned *d = nullptr, h[32];
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) {
    printf("no GPU: built, not run\n");
    return 0;
  }
  lane_prefix<<<1, 32>>>(d);
  if (cudaGetLastError() != cudaSuccess || cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  printf("lane 31 prefix: %u\n", h[31]);
  return h[31] == 32 ? 0 : 1;
}
