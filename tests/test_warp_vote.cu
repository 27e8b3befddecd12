// Tests sk_warp_first_lane, sk_warp_last_lane, sk_warp_count_below, sk_warp_count and
// sk_warp_broadcast_{f32,u32,f64} against the host references for every mask kind (see warp_cases.h)
// and predicate densities from none to all, over seeds.
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "ref/warp_ref.h"
#include "samplekit/warp_vote.cuh"
#include "sk_test.h"
#include "warp_cases.h"

enum { kMasks = 256, kDensities = 6, kOutputs = 8 };

// The double lane i broadcasts: arbitrary bits in both words (a NaN pattern included now and then).
__host__ __device__ static uint64_t f64_bits_of(int i) {
  return ((uint64_t)((uint32_t)i * 2654435761u) << 32) | (uint64_t)((uint32_t)i * 40503u + 7u);
}

//! [warp_vote_usage]
// A warp scans a row 32 entries at a time for the first entry above a threshold.
__global__ void example_first_above(const float *row, int n, float threshold, int *found) {
  for (int base = 0; base < n; base += 32) {
    const int i = base + sk_lane_id();
    const int lane = sk_warp_first_lane(SK_FULL_MASK, i < n && row[i] > threshold);
    if (lane >= 0) {  // the same answer in every lane, so the whole warp leaves together
      if (sk_lane_id() == 0) *found = base + lane;
      return;
    }
  }
  if (sk_lane_id() == 0) *found = -1;
}
//! [warp_vote_usage]

// One warp per case; only members call. Outputs per lane: first, last, count_below, count,
// broadcast_f32 (as bits), broadcast_u32, broadcast_f64 (high word, low word).
__global__ void vote_cases(const uint32_t *masks, const int *preds, const int *src_lanes,
                           const float *values_f, uint32_t *out, int num_cases) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = sk_lane_id();
  if (warp >= num_cases) return;
  const uint32_t mask = masks[warp];
  if (!((mask >> lane) & 1u)) return;
  const int i = warp * 32 + lane;
  const size_t stride = (size_t)num_cases * 32;
  const int p = preds[i];
  out[i] = (uint32_t)sk_warp_first_lane(mask, p);
  out[i + stride] = (uint32_t)sk_warp_last_lane(mask, p);
  out[i + 2 * stride] = (uint32_t)sk_warp_count_below(mask, p);
  out[i + 3 * stride] = (uint32_t)sk_warp_count(mask, p);
  out[i + 4 * stride] = __float_as_uint(sk_warp_broadcast_f32(mask, values_f[i], src_lanes[warp]));
  out[i + 5 * stride] = sk_warp_broadcast_u32(mask, (uint32_t)i * 2654435761u, src_lanes[warp]);
  const double b = sk_warp_broadcast_f64(mask, __longlong_as_double((long long)f64_bits_of(i)), src_lanes[warp]);
  out[i + 6 * stride] = (uint32_t)((uint64_t)__double_as_longlong(b) >> 32);
  out[i + 7 * stride] = (uint32_t)(uint64_t)__double_as_longlong(b);
}

static const char *const kOutputNames[kOutputs] = {"first_lane", "last_lane", "count_below",
                                                   "count", "broadcast_f32", "broadcast_u32",
                                                   "broadcast_f64_high", "broadcast_f64_low"};

static void reference_case(uint32_t mask, const int *pred, int src_lane, const float *values_f, int c,
                           uint32_t ref[kOutputs][32]) {
  for (int l = 0; l < 32; ++l) {
    const int member = (mask >> l) & 1u;
    const uint32_t r[kOutputs] = {(uint32_t)sk_ref_warp_first_lane(mask, pred),
                                  (uint32_t)sk_ref_warp_last_lane(mask, pred),
                                  (uint32_t)sk_ref_warp_count_below(mask, pred, l),
                                  (uint32_t)sk_ref_warp_count(mask, pred),
                                  sk_test_f32_bits(values_f[src_lane]),
                                  (uint32_t)(c * 32 + src_lane) * 2654435761u,
                                  (uint32_t)(f64_bits_of(c * 32 + src_lane) >> 32),
                                  (uint32_t)f64_bits_of(c * 32 + src_lane)};
    for (int k = 0; k < kOutputs; ++k) ref[k][l] = member ? r[k] : SK_TEST_POISON_WORD;
  }
}

// Predicates of a given density: none, all, exactly one member, and random at 1/8, 1/2, 7/8.
static void fill_predicates(int *pred, uint32_t mask, int density, uint64_t *rng) {
  const int hot = sk_ref_lane_of_rank(mask, (int)(sk_test_rand_u32(rng) % (uint32_t)sk_ref_popc(mask)));
  for (int l = 0; l < 32; ++l) {
    const uint32_t r = sk_test_rand_u32(rng) % 8u;
    // Non-members get random predicates too: they must not influence the result.
    pred[l] = density == 0 ? 0 : density == 1 ? 1 : density == 2 ? l == hot
            : density == 3 ? r == 0 : density == 4 ? r < 4 : r != 0;
    if (!((mask >> l) & 1u)) pred[l] = (int)(sk_test_rand_u32(rng) & 1u);
  }
}

static void test_device(int seed) {
  uint64_t rng = 0x707e0000u + (uint64_t)seed;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  const int num_cases = num_masks * kDensities;
  const size_t n = (size_t)num_cases * 32;

  uint32_t *h_masks = (uint32_t *)malloc(sizeof(uint32_t) * num_cases);
  int *h_src = (int *)malloc(sizeof(int) * num_cases);
  int *h_pred = (int *)malloc(sizeof(int) * n);
  float *h_val = (float *)malloc(sizeof(float) * n);
  uint32_t *h_out = (uint32_t *)malloc(sizeof(uint32_t) * n * kOutputs);
  for (int c = 0; c < num_cases; ++c) {
    const uint32_t mask = masks[c / kDensities];
    h_masks[c] = mask;
    h_src[c] = sk_ref_lane_of_rank(mask, (int)(sk_test_rand_u32(&rng) % (uint32_t)sk_ref_popc(mask)));
    fill_predicates(h_pred + (size_t)c * 32, mask, c % kDensities, &rng);
    sk_test_fill_f32(h_val + (size_t)c * 32, 32, 1, &rng);
  }

  uint32_t *d_masks, *d_out;
  int *d_src, *d_pred;
  float *d_val;
  SK_CHECK_CUDA(cudaMalloc(&d_masks, sizeof(uint32_t) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_src, sizeof(int) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_pred, sizeof(int) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_val, sizeof(float) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(uint32_t) * n * kOutputs));
  SK_CHECK_CUDA(cudaMemcpy(d_masks, h_masks, sizeof(uint32_t) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_src, h_src, sizeof(int) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_pred, h_pred, sizeof(int) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_val, h_val, sizeof(float) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(uint32_t) * n * kOutputs));

  const int threads = 128;
  vote_cases<<<(num_cases * 32 + threads - 1) / threads, threads>>>(d_masks, d_pred, d_src, d_val, d_out,
                                                                    num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(uint32_t) * n * kOutputs, cudaMemcpyDeviceToHost));

  for (int c = 0; c < num_cases; ++c) {
    uint32_t ref[kOutputs][32];
    reference_case(h_masks[c], h_pred + (size_t)c * 32, h_src[c], h_val + (size_t)c * 32, c, ref);
    for (int k = 0; k < kOutputs; ++k) {
      sk_test_context("seed=%d case=%d mask=%08x density=%d src_lane=%d output=%s", seed, c, h_masks[c],
                      c % kDensities, h_src[c], kOutputNames[k]);
      sk_test_check_lanes(h_out + (size_t)k * n + (size_t)c * 32, ref[k], h_masks[c]);
    }
  }

  SK_CHECK_CUDA(cudaFree(d_masks));
  SK_CHECK_CUDA(cudaFree(d_src));
  SK_CHECK_CUDA(cudaFree(d_pred));
  SK_CHECK_CUDA(cudaFree(d_val));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_masks);
  free(h_src);
  free(h_pred);
  free(h_val);
  free(h_out);
}

// Runs the documentation's usage snippet on rows whose answer is known.
static void test_usage_snippet(void) {
  enum { kN = 100 };
  float h_row[kN];
  int *d_found, found;
  float *d_row;
  SK_CHECK_CUDA(cudaMalloc(&d_row, sizeof h_row));
  SK_CHECK_CUDA(cudaMalloc(&d_found, sizeof(int)));
  const int answers[] = {0, 31, 32, 33, 64, 99, -1};
  for (size_t a = 0; a < sizeof answers / sizeof answers[0]; ++a) {
    for (int i = 0; i < kN; ++i) h_row[i] = (i == answers[a] || (answers[a] >= 0 && i == 99)) ? 2.0f : 0.5f;
    SK_CHECK_CUDA(cudaMemcpy(d_row, h_row, sizeof h_row, cudaMemcpyHostToDevice));
    example_first_above<<<1, 32>>>(d_row, kN, 1.0f, d_found);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(&found, d_found, sizeof found, cudaMemcpyDeviceToHost));
    sk_test_context("usage snippet, first entry above the threshold at %d", answers[a]);
    SK_CHECK(found == answers[a], "found %d", found);
  }
  SK_CHECK_CUDA(cudaFree(d_row));
  SK_CHECK_CUDA(cudaFree(d_found));
}

// The vote references against definitions by counting (they are simple enough to check exhaustively
// on a few masks).
static void test_references(void) {
  uint64_t rng = 4242;
  for (int c = 0; c < 1000; ++c) {
    const uint32_t mask = sk_test_rand_u32(&rng) | 1u;
    int pred[32], members_true = 0, first = -1, last = -1;
    for (int l = 0; l < 32; ++l) {
      pred[l] = (int)(sk_test_rand_u32(&rng) & 1u);
      if (((mask >> l) & 1u) && pred[l]) {
        if (first < 0) first = l;
        last = l;
        ++members_true;
      }
    }
    sk_test_context("reference self-check mask=%08x", mask);
    SK_CHECK(sk_ref_warp_first_lane(mask, pred) == first && sk_ref_warp_last_lane(mask, pred) == last &&
                 sk_ref_warp_count(mask, pred) == members_true && sk_ref_warp_count_below(mask, pred, 0) == 0,
             "vote references disagree with counting");
  }
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
