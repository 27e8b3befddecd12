// A warp's sorted list of topics in memory it shares (shared or global): the position of a topic, and
// one topic removed or inserted with the others kept in increasing order. The held-out fold-in
// (metrics_gpu_fold_warp.cuh, metrics_gpu_fold_windows.cuh) keeps each document's nonzero topics in one.
// Every lane of the warp calls each function with the same arguments (the list's length is in a
// register, the same on every lane); the lanes read a round of entries before any is written, then
// write, with __syncwarp() between, so that the moves are exact. Cost: the position is ceil(nnz / 32) independent loads a lane and one integer
// warp sum; a move is ceil(entries moved / 128) rounds.
// A candidate for samplekit (a warp-cooperative sorted set): another sampler that keeps a document's
// topics sorted on the GPU would need the same.
#ifndef SK_LDA_GPU_WARP_TOPIC_LIST_CUH
#define SK_LDA_GPU_WARP_TOPIC_LIST_CUH

#include <stdint.h>

#include "samplekit/warp_lane.cuh"

constexpr int kSkLdaTopicListPerLane = 4;                          // entries a lane moves a round
constexpr int kSkLdaTopicListRound = 32 * kSkLdaTopicListPerLane;  // entries a round moves

// The number of the nnz increasing topics below k: k's position, present or to be inserted. Every
// lane calls; the loads are independent, one integer sum at the end.
static __device__ __forceinline__ int32_t sk_lda_warp_topics_below(const int32_t *topics, int32_t nnz, int32_t k,
                                                                   int lane) {
  unsigned c = 0;
#pragma unroll 4
  for (int32_t j = lane; j < nnz; j += 32) c += topics[j] < k;
  return (int32_t)__reduce_add_sync(SK_FULL_MASK, c);
}

// Removes topic k (present) from the nnz increasing topics; returns nnz - 1. Every lane calls.
static __device__ __forceinline__ int32_t sk_lda_warp_topics_remove(int32_t *topics, int32_t nnz, int32_t k,
                                                                    int lane) {
  const int32_t pos = sk_lda_warp_topics_below(topics, nnz, k, lane);
  // A round reads kSkLdaTopicListRound entries before any is written, and writes only entries it has read
  // or the round below has read, so the move down is exact.
  for (int32_t c = pos; c < nnz - 1; c += kSkLdaTopicListRound) {
    int32_t v[kSkLdaTopicListPerLane];
#pragma unroll
    for (int q = 0; q < kSkLdaTopicListPerLane; ++q) {
      const int32_t j = c + lane + 32 * q;
      v[q] = j + 1 < nnz ? topics[j + 1] : 0;
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < kSkLdaTopicListPerLane; ++q) {
      const int32_t j = c + lane + 32 * q;
      if (j + 1 < nnz) topics[j] = v[q];
    }
    __syncwarp();
  }
  return nnz - 1;
}

// Inserts topic k (absent) into the nnz increasing topics; returns nnz + 1. Every lane calls.
static __device__ __forceinline__ int32_t sk_lda_warp_topics_insert(int32_t *topics, int32_t nnz, int32_t k,
                                                                    int lane) {
  const int32_t pos = sk_lda_warp_topics_below(topics, nnz, k, lane);
  // From the top down: sk_lda_warp_topics_remove() in reverse.
  for (int32_t e = nnz - 1; e >= pos; e -= kSkLdaTopicListRound) {
    int32_t v[kSkLdaTopicListPerLane];
#pragma unroll
    for (int q = 0; q < kSkLdaTopicListPerLane; ++q) {
      const int32_t j = e - lane - 32 * q;
      v[q] = j >= pos ? topics[j] : 0;
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < kSkLdaTopicListPerLane; ++q) {
      const int32_t j = e - lane - 32 * q;
      if (j >= pos) topics[j + 1] = v[q];
    }
    __syncwarp();
  }
  if (lane == 0) topics[pos] = k;
  __syncwarp();
  return nnz + 1;
}

#endif  // SK_LDA_GPU_WARP_TOPIC_LIST_CUH
