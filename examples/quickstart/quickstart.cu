// sk-quickstart: the smallest complete use of samplekit. One warp builds the running sums of 40
// weights with sk_warp_inclusive_sum_f32, then draws 100,000 samples from them with
// sk_warp_sample_prefix_f32 and uniforms from the counter-based RNG; the program prints the weights,
// the share of draws each index got, and the largest difference from the exact probabilities.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <samplekit/samplekit.cuh>

enum { kCategories = 40, kDraws = 100000, kWarps = 100 };

__global__ void quickstart_draw(const float *weights, uint64_t seed, unsigned *counts) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const float total = sk_warp_prefix_total_f32(SK_FULL_MASK, weights, kCategories);
  for (int d = warp; d < kDraws; d += kWarps) {
    const float u = sk_rng_uniform_f32(seed, 0, (uint64_t)d) * total;
    const int k = sk_warp_sample_prefix_f32(SK_FULL_MASK, weights, kCategories, u);
    if (sk_lane_id() == 0) atomicAdd(&counts[k], 1u);
  }
}

static int fail(const char *what, cudaError_t err) {
  fprintf(stderr, "sk-quickstart: %s failed: %s\n", what, cudaGetErrorString(err));
  return 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: sk-quickstart [SEED]\n  Draws %d samples from %d weights on the GPU with samplekit's warp\n"
           "  primitives and prints how often each index was drawn. Exit 0 on success, 1 on error,\n"
           "  2 when no CUDA GPU is found.\n", kDraws, kCategories);
    return 0;
  }
  char *end = NULL;
  const uint64_t seed = argc > 1 ? strtoull(argv[1], &end, 10) : 2026;
  if (argc > 1 && (end == argv[1] || *end != '\0')) {
    fprintf(stderr, "sk-quickstart: SEED must be a non-negative integer, got '%s' (see --help)\n", argv[1]);
    return 1;
  }

  sk_device_info info;
  const sk_status st = sk_device_query(0, &info);
  if (st != SK_SUCCESS) {
    fprintf(stderr, "sk-quickstart: no usable CUDA GPU found (%s: %s); samplekit's kernels need one.\n",
            sk_status_string(st), sk_last_cuda_error_string());
    return 2;
  }
  printf("GPU: %s (sm_%d%d, %d SMs)\n", info.name, info.compute_capability_major, info.compute_capability_minor,
         info.sm_count);

  float weights[kCategories];
  double total = 0;
  for (int k = 0; k < kCategories; ++k) total += weights[k] = (k % 10 == 9) ? 0.0f : 1.0f + (float)(k % 7);
  float *d_weights;
  unsigned *d_counts, counts[kCategories];
  cudaError_t err;
  if ((err = cudaMalloc(&d_weights, sizeof weights)) != cudaSuccess) return fail("cudaMalloc", err);
  if ((err = cudaMalloc(&d_counts, sizeof counts)) != cudaSuccess) return fail("cudaMalloc", err);
  if ((err = cudaMemcpy(d_weights, weights, sizeof weights, cudaMemcpyHostToDevice)) != cudaSuccess)
    return fail("cudaMemcpy", err);
  if ((err = cudaMemset(d_counts, 0, sizeof counts)) != cudaSuccess) return fail("cudaMemset", err);
  quickstart_draw<<<kWarps * 32 / 128, 128>>>(d_weights, seed, d_counts);
  if ((err = cudaGetLastError()) != cudaSuccess) return fail("kernel launch", err);
  if ((err = cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost)) != cudaSuccess)
    return fail("kernel run", err);

  double worst = 0;
  printf("index  weight  expected  drawn\n");
  for (int k = 0; k < kCategories; ++k) {
    const double p = weights[k] / total, q = (double)counts[k] / kDraws;
    worst = fmax(worst, fabs(p - q));
    printf("%5d  %6.1f  %8.4f  %6.4f\n", k, (double)weights[k], p, q);
  }
  printf("%d draws, seed %llu; largest |drawn - expected| = %.4f (zero-weight indices drawn: %s)\n", kDraws,
         (unsigned long long)seed, worst, counts[9] + counts[19] + counts[29] + counts[39] ? "YES, a bug" : "none");
  if ((err = cudaFree(d_weights)) != cudaSuccess || (err = cudaFree(d_counts)) != cudaSuccess)
    return fail("cudaFree", err);
  return 0;
}
