// Tests sk_warp_{inclusive,exclusive}_sum_{f32,u32} and sk_warp_sum_{f32,u32} against the host
// references, bit for bit, for every mask kind and value kind (see warp_cases.h), over seeds.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "ref/warp_ref.h"
#include "samplekit/warp_scan.cuh"
#include "sk_test.h"
#include "warp_cases.h"

enum { kMasks = 256, kOutputs = 6 };

//! [warp_scan_usage]
// Each warp of a block turns its lanes' counts into output offsets (a stream compaction step).
__global__ void example_offsets(const uint32_t *counts, uint32_t *offsets, uint32_t *warp_totals) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t c = counts[i];
  offsets[i] = sk_warp_exclusive_sum_u32(SK_FULL_MASK, c);  // sum of the counts of lower lanes
  const uint32_t total = sk_warp_sum_u32(SK_FULL_MASK, c);  // the same in every lane
  if ((threadIdx.x & 31) == 0) warp_totals[i / 32] = total;
}
//! [warp_scan_usage]

// One warp per case: only the lanes of masks[case] call the primitives; the others leave their
// outputs poisoned, which the host then checks.
__global__ void scan_cases(const uint32_t *masks, const float *in_f, const uint32_t *in_u, float *out_f,
                           uint32_t *out_u, int num_cases) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = sk_lane_id();
  if (warp >= num_cases) return;
  const uint32_t mask = masks[warp];
  if (!((mask >> lane) & 1u)) return;
  const int i = warp * 32 + lane;
  const size_t stride = (size_t)num_cases * 32;
  out_f[i] = sk_warp_inclusive_sum_f32(mask, in_f[i]);
  out_f[i + stride] = sk_warp_exclusive_sum_f32(mask, in_f[i]);
  out_f[i + 2 * stride] = sk_warp_sum_f32(mask, in_f[i]);
  out_u[i] = sk_warp_inclusive_sum_u32(mask, in_u[i]);
  out_u[i + stride] = sk_warp_exclusive_sum_u32(mask, in_u[i]);
  out_u[i + 2 * stride] = sk_warp_sum_u32(mask, in_u[i]);
}

static const char *const kOutputNames[kOutputs] = {"inclusive_f32", "exclusive_f32", "sum_f32",
                                                   "inclusive_u32", "exclusive_u32", "sum_u32"};

// Reference outputs (as bits) for one case; entries of non-member lanes are the poison word.
static void reference_case(uint32_t mask, const float *in_f, const uint32_t *in_u, uint32_t ref[kOutputs][32]) {
  float f[3][32];
  uint32_t u[3][32];
  sk_ref_warp_inclusive_sum_f32(mask, in_f, f[0]);
  sk_ref_warp_exclusive_sum_f32(mask, in_f, f[1]);
  sk_ref_warp_sum_f32(mask, in_f, f[2]);
  sk_ref_warp_inclusive_sum_u32(mask, in_u, u[0]);
  sk_ref_warp_exclusive_sum_u32(mask, in_u, u[1]);
  sk_ref_warp_sum_u32(mask, in_u, u[2]);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < 3; ++k) {
      const int member = (mask >> l) & 1u;
      ref[k][l] = member ? sk_test_f32_bits(f[k][l]) : SK_TEST_POISON_WORD;
      ref[k + 3][l] = member ? u[k][l] : SK_TEST_POISON_WORD;
    }
}

// The references checked against definitions that need no replay: integer sums and, for
// integer-valued floats small enough to be exact, the float sums.
static void test_references(void) {
  uint64_t rng = 12345;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  for (int c = 0; c < num_masks; ++c) {
    float in_f[32], out_f[32];
    uint32_t in_u[32], out_u[32];
    sk_test_fill_f32(in_f, 32, 6, &rng);
    for (int l = 0; l < 32; ++l) in_u[l] = sk_test_rand_u32(&rng);
    sk_test_context("reference self-check mask=%08x", masks[c]);
    sk_ref_warp_inclusive_sum_f32(masks[c], in_f, out_f);
    sk_ref_warp_inclusive_sum_u32(masks[c], in_u, out_u);
    double run_f = 0;
    uint32_t run_u = 0;
    int ok = 1;
    for (int l = 0; l < 32; ++l) {
      if (!((masks[c] >> l) & 1u)) continue;
      run_f += in_f[l];
      run_u += in_u[l];
      ok &= out_f[l] == (float)run_f && out_u[l] == run_u;
    }
    SK_CHECK(ok, "reference inclusive sums disagree with a serial sum");
  }
}

static void test_device(int seed) {
  uint64_t rng = 0x5eed0000u + (uint64_t)seed;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  const int num_cases = num_masks * SK_TEST_VALUE_KINDS;
  const size_t n = (size_t)num_cases * 32;

  uint32_t *h_masks = (uint32_t *)malloc(sizeof(uint32_t) * num_cases);
  float *h_in_f = (float *)malloc(sizeof(float) * n);
  uint32_t *h_in_u = (uint32_t *)malloc(sizeof(uint32_t) * n);
  uint32_t *h_out = (uint32_t *)malloc(sizeof(uint32_t) * n * kOutputs);
  for (int c = 0; c < num_cases; ++c) {
    const int kind = c % SK_TEST_VALUE_KINDS;
    h_masks[c] = masks[c / SK_TEST_VALUE_KINDS];
    sk_test_fill_f32(h_in_f + (size_t)c * 32, 32, kind, &rng);
    for (int l = 0; l < 32; ++l) {
      const uint32_t r = sk_test_rand_u32(&rng);
      // Full range (sums wrap), small counts, and extremes.
      h_in_u[(size_t)c * 32 + l] = kind == 2 ? 0xffffffffu : kind == 3 ? (l == 5) : kind == 7 ? 0u
                                 : kind % 2 ? r : r % 1000u;
    }
  }

  uint32_t *d_masks, *d_in_u, *d_out_u;
  float *d_in_f, *d_out_f;
  SK_CHECK_CUDA(cudaMalloc(&d_masks, sizeof(uint32_t) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_in_f, sizeof(float) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_in_u, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out_f, sizeof(float) * n * 3));
  SK_CHECK_CUDA(cudaMalloc(&d_out_u, sizeof(uint32_t) * n * 3));
  SK_CHECK_CUDA(cudaMemcpy(d_masks, h_masks, sizeof(uint32_t) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in_f, h_in_f, sizeof(float) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in_u, h_in_u, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out_f, SK_TEST_POISON_BYTE, sizeof(float) * n * 3));
  SK_CHECK_CUDA(cudaMemset(d_out_u, SK_TEST_POISON_BYTE, sizeof(uint32_t) * n * 3));

  const int threads = 128;
  scan_cases<<<(num_cases * 32 + threads - 1) / threads, threads>>>(d_masks, d_in_f, d_in_u, d_out_f,
                                                                    d_out_u, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out_f, sizeof(float) * n * 3, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_out + n * 3, d_out_u, sizeof(uint32_t) * n * 3, cudaMemcpyDeviceToHost));

  for (int c = 0; c < num_cases; ++c) {
    uint32_t ref[kOutputs][32];
    reference_case(h_masks[c], h_in_f + (size_t)c * 32, h_in_u + (size_t)c * 32, ref);
    for (int k = 0; k < kOutputs; ++k) {
      sk_test_context("seed=%d case=%d mask=%08x values=%s output=%s", seed, c, h_masks[c],
                      sk_test_value_kind_names[c % SK_TEST_VALUE_KINDS], kOutputNames[k]);
      sk_test_check_lanes(h_out + (size_t)k * n + (size_t)c * 32, ref[k], h_masks[c]);
    }
  }

  SK_CHECK_CUDA(cudaFree(d_masks));
  SK_CHECK_CUDA(cudaFree(d_in_f));
  SK_CHECK_CUDA(cudaFree(d_in_u));
  SK_CHECK_CUDA(cudaFree(d_out_f));
  SK_CHECK_CUDA(cudaFree(d_out_u));
  free(h_masks);
  free(h_in_f);
  free(h_in_u);
  free(h_out);
}

// Runs the documentation's usage snippet and checks what it computes.
static void test_usage_snippet(void) {
  enum { kThreads = 256, kBlocks = 3, kN = kThreads * kBlocks };
  uint32_t h_counts[kN], h_offsets[kN], h_totals[kN / 32];
  uint64_t rng = 99;
  for (int i = 0; i < kN; ++i) h_counts[i] = sk_test_rand_u32(&rng) % 7u;
  uint32_t *d_counts, *d_offsets, *d_totals;
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof h_counts));
  SK_CHECK_CUDA(cudaMalloc(&d_offsets, sizeof h_offsets));
  SK_CHECK_CUDA(cudaMalloc(&d_totals, sizeof h_totals));
  SK_CHECK_CUDA(cudaMemcpy(d_counts, h_counts, sizeof h_counts, cudaMemcpyHostToDevice));
  example_offsets<<<kBlocks, kThreads>>>(d_counts, d_offsets, d_totals);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_offsets, d_offsets, sizeof h_offsets, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_totals, d_totals, sizeof h_totals, cudaMemcpyDeviceToHost));
  sk_test_context("usage snippet");
  int ok = 1;
  for (int w = 0; w < kN / 32; ++w) {
    uint32_t run = 0;
    for (int l = 0; l < 32; ++l) {
      ok &= h_offsets[w * 32 + l] == run;
      run += h_counts[w * 32 + l];
    }
    ok &= h_totals[w] == run;
  }
  SK_CHECK(ok, "offsets or warp totals differ from a serial sum");
  SK_CHECK_CUDA(cudaFree(d_counts));
  SK_CHECK_CUDA(cudaFree(d_offsets));
  SK_CHECK_CUDA(cudaFree(d_totals));
}

int main(int argc, char **argv) {
  test_references();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_device(seed);
  }
  return sk_test_finish();
}
