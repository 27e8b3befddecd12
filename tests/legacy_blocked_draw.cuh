// AGA-LDA's private blocked draw as examples/lda/src/gpu/aga_kernels.cu had it before issue 30 moved it
// into samplekit (warp_blocked_sample.cuh), verbatim but for the weights' type (a template parameter here,
// aga_weights there). Kept frozen as the reference of two programs: test_warp_blocked_sample requires the
// primitive to return the same index on every full-mask case of at most 32 R entries, bit for bit, and
// bench_warp_blocked_sample times the primitive against it.
#ifndef SK_TEST_LEGACY_BLOCKED_DRAW_CUH
#define SK_TEST_LEGACY_BLOCKED_DRAW_CUH

#include <stdint.h>

#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_vote.cuh"

template <int R, typename Weights>
__device__ __forceinline__ int legacy_blocked_draw(const Weights &weights, int32_t K, int lane, float u) {
  float w[R];
  float sum = 0.0f;
  const int32_t k0 = lane * R;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    w[i] = k0 + i < K ? weights(k0 + i) : 0.0f;
    sum += w[i];
  }
  const float running = sk_warp_inclusive_sum_f32(SK_FULL_MASK, sum);
  const float x = u * sk_warp_broadcast_f32(SK_FULL_MASK, running, 31);
  int owner = sk_warp_first_lane(SK_FULL_MASK, running > x && sum > 0.0f);
  const bool past = owner < 0;
  if (past) owner = sk_warp_last_lane(SK_FULL_MASK, sum > 0.0f);
  if (owner < 0) return -1;
  int topic = -1;
  if (lane == owner) {  // the first topic whose running sum passes x, else (rounding) the last positive one
    float acc = running - sum;
    int last = -1;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      acc += w[i];
      if (w[i] > 0.0f) {
        last = k0 + i;
        if (topic < 0 && !past && acc > x) topic = k0 + i;
      }
    }
    if (topic < 0) topic = last;
  }
  return (int)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)topic, owner);
}

#endif  // SK_TEST_LEGACY_BLOCKED_DRAW_CUH
