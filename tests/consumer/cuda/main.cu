// Uses sk_warp_inclusive_sum_u32 in its own kernel and sk_rng_fill_uniform_f32 from the C API; runs
// them when a GPU is present.
#include <stdio.h>

#include <samplekit/samplekit.h>
#include <samplekit/warp_scan.cuh>

__global__ void lane_prefix(unsigned *out) { out[threadIdx.x] = sk_warp_inclusive_sum_u32(SK_FULL_MASK, 1u); }

int main() {
  unsigned *d = nullptr, h[32];
  float *d_u = nullptr, h_u[32];
  if (cudaMalloc(&d, sizeof h) != cudaSuccess || cudaMalloc(&d_u, sizeof h_u) != cudaSuccess) {
    printf("no GPU: built, not run\n");
    return 0;
  }
  lane_prefix<<<1, 32>>>(d);
  if (cudaGetLastError() != cudaSuccess || cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  if (sk_rng_fill_uniform_f32(1, 0, 0, d_u, 32, 0) != SK_SUCCESS ||
      cudaMemcpy(h_u, d_u, sizeof h_u, cudaMemcpyDeviceToHost) != cudaSuccess)
    return 1;
  printf("lane 31 prefix: %u, uniform 31: %.9g\n", h[31], h_u[31]);
  return h[31] == 32 && h_u[31] == sk_rng_uniform_f32(1, 0, 31) ? 0 : 1;
}
