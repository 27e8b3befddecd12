/**
 * \file block_count_sort.cuh
 * \brief Block-level counting sort by a small key: a block's items grouped by key in shared memory,
 * each key's items in one range of slots, the ranges in key order.
 *
 * Device code; needs nvcc. The contract, the limits and the scratch size are in block_count_sort.h.
 */
#ifndef SAMPLEKIT_BLOCK_COUNT_SORT_CUH
#define SAMPLEKIT_BLOCK_COUNT_SORT_CUH

#include <stdint.h>

#include "block_count_sort.h"
#include "sk_config.h"
#include "warp_lane.cuh"
#include "warp_scan.cuh"

/**
 * \addtogroup sk_block_count_sort
 * @{
 */

/**
 * \brief The key of a slot of sk_block_count_sort_u32()'s output.
 * \param slot `s_slots[j]` for some j < n.
 * \return its key, 0 to K - 1.
 */
SK_DEVICE uint32_t sk_block_count_sort_slot_key(uint32_t slot) { return slot >> 16; }

/**
 * \brief The item of a slot of sk_block_count_sort_u32()'s output.
 * \param slot `s_slots[j]` for some j < n.
 * \return the item's index i, 0 to n - 1 (its key is `keys[i]`).
 */
SK_DEVICE int sk_block_count_sort_slot_item(uint32_t slot) { return (int)(slot & 0xffffu); }

/**
 * \brief Groups a block's items by key (block-wide; group rules): the key ranges' ends and, in each
 * range, the slots `(key << 16) | item` in an unspecified order.
 *
 * Steps, separated by `__syncthreads()`: the threads zero the K counters; each thread takes items
 * thread_id, thread_id + num_threads, ..., reads its key, keeps it in the scratch and increments the
 * key's counter; the warps turn the counters into each key's first slot (an exclusive scan: warp w
 * takes a run of ceil(K / warps) keys rounded up to 32, and at least 64, and when there is more than
 * one run the warps first publish their runs' totals, in `s_slots`; a block with fewer items than warps
 * scans with warp 0 alone); each thread places its items at their keys'
 * cursors (atomic increments), which leaves every counter at its key's end.
 *
 * \param thread_id the calling thread's index in the block, 0 to num_threads - 1, such that ids
 *        32 w .. 32 w + 31 are the lanes of one hardware warp (for a 1-D block, `threadIdx.x`).
 * \param num_threads the number of threads in the block: a multiple of 32, 32 to 1,024; every one
 *        of them calls.
 * \param s_scratch shared scratch of #SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(num_items) bytes or more (2
 *        bytes an item), 2-byte aligned; its contents on entry do not matter, and on return are
 *        unspecified.
 * \param keys the n keys, each in [0, num_keys) (not checked: a key out of range makes the call write
 *        outside `s_key_ends`); global or shared memory, read once per item.
 * \param num_items n, 0 to #SK_BLOCK_COUNT_SORT_MAX_ITEMS.
 * \param num_keys K, 1 to #SK_BLOCK_COUNT_SORT_MAX_KEYS.
 * \param[out] s_key_ends shared array of K words: `s_key_ends[c]` becomes the number of items whose key
 *        is at most c, the end of key c's range of slots (group rules). Its contents on entry do not
 *        matter.
 * \param[out] s_slots shared array of n words: slot j becomes `(key << 16) | item` of the item placed
 *        there (before that, the call keeps the scan's per-warp totals in its first words). Entries
 *        from n on are not written.
 *
 * \par Cost
 * See the group's description: per item a key read, two shared atomics and three shared accesses; per
 * key about four shared accesses and 1/32 of a warp scan spread over the warps; four or five
 * `__syncthreads()`. Shared memory: 4 K + 4 n bytes of output and
 * #SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(n) (2 n, rounded up to 16) of scratch: 4 K + 6 n in all.
 */
SK_DEVICE void sk_block_count_sort_u32(int thread_id, int num_threads, void *s_scratch, const uint32_t *keys,
                                       int num_items, int num_keys, uint32_t *s_key_ends, uint32_t *s_slots);

/**
 * \brief sk_block_count_sort_u32(), which also adds each key's count of this call to `g_counts[key]`
 * (global memory, 64-bit atomic adds) during its scan: the counts a reduction by key needs (sk-mixture's
 * component sizes), with no pass of its own.
 *
 * Everything else, the results and the barriers included, is sk_block_count_sort_u32()'s. Keys with no
 * item add nothing; the adds of different blocks to one counter happen in any order (integer sums, so
 * the totals do not depend on it).
 * \param thread_id as sk_block_count_sort_u32().
 * \param num_threads as sk_block_count_sort_u32().
 * \param s_scratch as sk_block_count_sort_u32().
 * \param keys as sk_block_count_sort_u32().
 * \param num_items as sk_block_count_sort_u32().
 * \param num_keys as sk_block_count_sort_u32().
 * \param[out] s_key_ends as sk_block_count_sort_u32().
 * \param[out] s_slots as sk_block_count_sort_u32().
 * \param g_counts K counters in global memory; `g_counts[c]` grows by the number of items of key c.
 *
 * \par Cost
 * sk_block_count_sort_u32()'s, and one global atomic add per key with items, issued by the scan.
 */
SK_DEVICE void sk_block_count_sort_counts_u32(int thread_id, int num_threads, void *s_scratch, const uint32_t *keys,
                                              int num_items, int num_keys, uint32_t *s_key_ends, uint32_t *s_slots,
                                              unsigned long long *g_counts);

/** \cond SK_INTERNAL */
template <bool kCounts>
SK_DEVICE void sk_detail_block_count_sort(int thread_id, int num_threads, void *s_scratch, const uint32_t *keys,
                                          int num_items, int num_keys, uint32_t *s_key_ends, uint32_t *s_slots,
                                          unsigned long long *g_counts) {
  uint16_t *const s_item_keys = static_cast<uint16_t *>(s_scratch);
  for (int c = thread_id; c < num_keys; c += num_threads) s_key_ends[c] = 0u;
  __syncthreads();

  /* Count. The key is kept in the scratch (16 bits) so that the scatter does not read `keys` again. */
  for (int i = thread_id; i < num_items; i += num_threads) {
    const uint32_t c = keys[i];
    s_item_keys[i] = (uint16_t)c;
    atomicAdd(s_key_ends + c, 1u);
  }
  __syncthreads();

  /* Each key's first slot. One warp would take ceil(K / 32) dependent steps (hundreds for a K of a
     few thousand) while the other warps wait at the next barrier, so the warps split the keys in runs
     of at least 64: below that, the barrier and the pass over the totals that splitting costs are
     more than the one or two steps it saves. The runs' totals go to s_slots[0, warps), which the
     scatter overwrites only after the next barrier; with fewer items than warps there is no room, and
     warp 0 takes all the keys. Written for few registers (this code is inlined into callers' tile
     loops, whose occupancy it must not lower): one loop for both cases, its trip count uniform in the
     warp (c - lane), no unrolling. */
  const int lane = thread_id & (SK_WARP_SIZE - 1), warp = thread_id / SK_WARP_SIZE;
  const int num_warps = num_threads / SK_WARP_SIZE;
  int run = num_keys;
  if (num_keys > 2 * SK_WARP_SIZE && num_items >= num_warps) {
    const int even = ((num_keys + num_warps - 1) / num_warps + SK_WARP_SIZE - 1) & ~(SK_WARP_SIZE - 1);
    run = even > 2 * SK_WARP_SIZE ? even : 2 * SK_WARP_SIZE;
  }
  const int run_begin = warp * run, run_end = run_begin + run < num_keys ? run_begin + run : num_keys;
  uint32_t base = 0u;
  if (run < num_keys) { /* more than one run: the totals of the runs before this warp's, first */
    uint32_t part = 0u;
#pragma unroll 1
    for (int c = run_begin + lane; c < run_end; c += SK_WARP_SIZE) part += s_key_ends[c];
    part = sk_warp_sum_u32(SK_FULL_MASK, part);
    if (lane == 0) s_slots[warp] = part;
    __syncthreads();
    base = sk_warp_sum_u32(SK_FULL_MASK, lane < warp ? s_slots[lane] : 0u);
  }
#pragma unroll 1
  for (int c = run_begin + lane; c - lane < run_end; c += SK_WARP_SIZE) {
    const uint32_t h = c < run_end ? s_key_ends[c] : 0u;
    const uint32_t start = base + sk_warp_exclusive_sum_u32(SK_FULL_MASK, h);
    if (c < run_end) s_key_ends[c] = start;
    if (kCounts && h != 0u) atomicAdd(g_counts + c, (unsigned long long)h);
    base += sk_warp_sum_u32(SK_FULL_MASK, h);
  }
  __syncthreads();

  /* Scatter: each item at its key's cursor; afterwards every cursor is its key's end. */
  for (int i = thread_id; i < num_items; i += num_threads) {
    const uint32_t c = s_item_keys[i];
    s_slots[atomicAdd(s_key_ends + c, 1u)] = (c << 16) | (uint32_t)i;
  }
  __syncthreads();
}
/** \endcond */

SK_DEVICE void sk_block_count_sort_u32(int thread_id, int num_threads, void *s_scratch, const uint32_t *keys,
                                       int num_items, int num_keys, uint32_t *s_key_ends, uint32_t *s_slots) {
  sk_detail_block_count_sort<false>(thread_id, num_threads, s_scratch, keys, num_items, num_keys, s_key_ends, s_slots,
                                    nullptr);
}

SK_DEVICE void sk_block_count_sort_counts_u32(int thread_id, int num_threads, void *s_scratch, const uint32_t *keys,
                                              int num_items, int num_keys, uint32_t *s_key_ends, uint32_t *s_slots,
                                              unsigned long long *g_counts) {
  sk_detail_block_count_sort<true>(thread_id, num_threads, s_scratch, keys, num_items, num_keys, s_key_ends, s_slots,
                                   g_counts);
}

/** @} */

#endif /* SAMPLEKIT_BLOCK_COUNT_SORT_CUH */
