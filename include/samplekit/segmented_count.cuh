/**
 * \file segmented_count.cuh
 * \brief Block-level segmented count: a block's keys, sorted in shared memory, as (key, count) pairs.
 *
 * Device code; needs nvcc and C++17 (CUB). The device-wide count is in segmented_count.h.
 */
#ifndef SAMPLEKIT_SEGMENTED_COUNT_CUH
#define SAMPLEKIT_SEGMENTED_COUNT_CUH

#include <stdint.h>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "sk_config.h"

/**
 * \addtogroup sk_segmented_count
 * @{
 */

/**
 * \brief Shared memory of sk_block_segmented_count_u32() for a block of BLOCK_THREADS threads holding
 * ITEMS_PER_THREAD keys each. Declare it `__shared__` (or place it in dynamic shared memory) and pass
 * it by reference.
 *
 * Its size is that of CUB's BlockRadixSort storage for 32-bit keys with 4-bit digits (its exchange
 * buffer or its digit counters, whichever is larger) plus 4 x BLOCK_THREADS bytes: 10,304 bytes for
 * 256 x 8 and 5,152 for 128 x 4 with the CUB of CUDA 13.0 (use sizeof). These are the only templates
 * of samplekit: CUB fixes the tile at compile time.
 */
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
struct sk_block_segmented_count_storage_u32 {
  /** \cond SK_INTERNAL */
  typedef cub::BlockRadixSort<uint32_t, BLOCK_THREADS, ITEMS_PER_THREAD> sort_type;
  typedef cub::BlockScan<int, BLOCK_THREADS> scan_type;
  union {
    typename sort_type::TempStorage sort;
    typename scan_type::TempStorage scan;
  } temp;
  uint32_t last_key[BLOCK_THREADS]; /* each thread's last sorted key, for the adjacent difference */
  /** \endcond */
};

/**
 * \brief Counts a block's keys: the distinct keys in increasing order and how often each occurs,
 * written to caller-owned shared memory (block-wide; every thread of the block must call).
 *
 * Algorithm: CUB BlockRadixSort on bits [0, key_bits) only (ceil(key_bits / 4) passes of 4-bit
 * digits), a head flag where a sorted key differs from the one before it, a block exclusive sum of
 * the flags (each run's rank), then each run's head writes its key and its start, and after a barrier
 * each head turns its start into a count by reading the next run's start.
 *
 * \tparam BLOCK_THREADS threads in the block: blockDim.x, with blockDim.y = blockDim.z = 1.
 * \tparam ITEMS_PER_THREAD keys each thread holds.
 * \param storage the block's shared storage (the same object in every thread).
 * \param keys this thread's keys in blocked arrangement: thread t holds items t x ITEMS_PER_THREAD + i.
 *        Sorted in place: on return, the thread holds sorted items in the same arrangement.
 * \param num_valid items [0, num_valid) are counted, 0 to BLOCK_THREADS x ITEMS_PER_THREAD; the
 *        others are ignored whatever their value.
 * \param key_bits bits of the keys, 0 to 32: every valid key is below 2^key_bits (for keys in [0, K),
 *        the bit length of K - 1; only those bits are sorted on).
 * \param[out] s_out_keys shared array of at least num_valid entries: the distinct keys, increasing.
 * \param[out] s_out_counts shared array of at least num_valid entries: how often each key occurs.
 * \param thread_id the thread's index in the block, threadIdx.x (CUB reads it too).
 * \return D, the number of distinct keys (the same in every thread); entries [0, D) of both arrays are
 *         written and visible to the whole block on return.
 *
 * Barriers: four `__syncthreads()` plus CUB's. `storage` may be reused after return; the output
 * arrays must not alias `storage`. Work per thread: O(ITEMS_PER_THREAD x key_bits / 4) plus two block
 * scans' worth. Deterministic.
 *
 * Usage (one block of 256 threads, 8 keys each):
 * \snippet test_segmented_count.cu block_segmented_count_usage
 */
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
SK_DEVICE int sk_block_segmented_count_u32(sk_block_segmented_count_storage_u32<BLOCK_THREADS, ITEMS_PER_THREAD> &storage,
                                           uint32_t (&keys)[ITEMS_PER_THREAD], int num_valid, int key_bits,
                                           uint32_t *s_out_keys, uint32_t *s_out_counts, int thread_id) {
  typedef sk_block_segmented_count_storage_u32<BLOCK_THREADS, ITEMS_PER_THREAD> storage_type;
  // Invalid items get the largest key: the sort is stable, so they follow every valid item.
  const uint32_t pad = key_bits >= 32 ? 0xffffffffu : ((1u << key_bits) - 1u);
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
    if (thread_id * ITEMS_PER_THREAD + i >= num_valid) keys[i] = pad;
  }
  if (key_bits > 0) {
    typename storage_type::sort_type(storage.temp.sort).Sort(keys, 0, key_bits);
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) keys[i] = 0;  // all keys are 0; nothing to sort
  }
  storage.last_key[thread_id] = keys[ITEMS_PER_THREAD - 1];
  __syncthreads();  // last_key visible; the sort storage is free for the scan

  int head[ITEMS_PER_THREAD];
  uint32_t previous = thread_id > 0 ? storage.last_key[thread_id - 1] : 0u;
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
    const int position = thread_id * ITEMS_PER_THREAD + i;
    head[i] = position < num_valid && (position == 0 || keys[i] != previous);
    previous = keys[i];
  }
  int rank[ITEMS_PER_THREAD];
  int num_distinct = 0;
  typename storage_type::scan_type(storage.temp.scan).ExclusiveSum(head, rank, num_distinct);

  // Pass 1: each run's head writes its key and its start.
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
    if (head[i]) {
      s_out_keys[rank[i]] = keys[i];
      s_out_counts[rank[i]] = (uint32_t)(thread_id * ITEMS_PER_THREAD + i);
    }
  }
  __syncthreads();
  // Pass 2: the run ends where the next one starts; read every next start before any count is written.
  uint32_t next_start[ITEMS_PER_THREAD];
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
    next_start[i] = 0;
    if (head[i]) {
      next_start[i] = rank[i] + 1 < num_distinct ? s_out_counts[rank[i] + 1] : (uint32_t)num_valid;
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
    if (head[i]) s_out_counts[rank[i]] = next_start[i] - (uint32_t)(thread_id * ITEMS_PER_THREAD + i);
  }
  __syncthreads();
  return num_distinct;
}

/** @} */

#endif /* SAMPLEKIT_SEGMENTED_COUNT_CUH */
