/**
 * \file block_count_sort.h
 * \brief Block-level counting sort by a small key: its limits and the size of its shared scratch. The
 * device function is in block_count_sort.cuh.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc.
 */
#ifndef SAMPLEKIT_BLOCK_COUNT_SORT_H
#define SAMPLEKIT_BLOCK_COUNT_SORT_H

#include <stddef.h>

/**
 * \defgroup sk_block_count_sort Block counting sort
 * \brief A block groups its n items (n <= 65,536) by their keys in [0, K) (K <= 65,536) in shared
 * memory: one pass over the keys, a scan of K counters, one scatter. K and n are run-time values.
 *
 * Knuth's distribution counting (The Art of Computer Programming, vol. 3, section 5.2, Algorithm D),
 * with shared-memory atomics for the counts and the cursors. It is the building block of a reduction
 * by key whose keys are few and whose values are wide: sk-mixture's statistics sort a tile of points
 * by component, then a warp walks each component's range and sums the points' coordinates in
 * registers, instead of one atomic per (point, coordinate).
 *
 * **Output.** Item i (0 <= i < n) has key `keys[i]`. On return, `s_key_ends[c]` is the number of
 * items whose key is at most c, so key c's items fill the slots [`c == 0 ? 0 : s_key_ends[c - 1]`,
 * `s_key_ends[c]`), and `s_slots[j]` (0 <= j < n) is `(key << 16) | i` for the item in slot j
 * (sk_block_count_sort_slot_key() and sk_block_count_sort_slot_item() unpack it): the key travels with
 * the item, so a range's key is known from any of its slots.
 *
 * **Order and determinism.** The ends, and which items each range holds, are functions of the keys
 * alone. The order of the items *within* a key's range is not specified and may change from run to run:
 * it is the order in which the block's shared-memory atomics on that key's cursor happen to complete.
 * So results that do not depend on that order (counts, sets, integer sums, a per-range sort) are
 * deterministic; floating-point sums over a range in slot order are not. For a stable, deterministic
 * order use sk_block_segmented_count_u32() (CUB BlockRadixSort, tile fixed at compile time; see
 * \ref sk_segmented_count) or CUB's BlockRadixSort with the item as value: both make ceil(log2(K) / 4)
 * radix passes where this makes one counting pass. The tests compare the ends exactly and each
 * range exactly after sorting it on the host.
 *
 * **Which threads, which memory.** Block-wide: every thread of the block calls, with the same
 * arguments except `thread_id`. The caller gives the thread id and the thread count (a multiple of
 * 32: the scan uses full-warp functions) and owns the shared memory: `s_key_ends` (K words), `s_slots`
 * (n words) and `s_scratch` (#SK_BLOCK_COUNT_SORT_SCRATCH_BYTES of the largest n: each item's key as 16
 * bits between the two passes). The scan's per-warp totals (when K > 64) are kept in the first words of
 * `s_slots` before the scatter overwrites them, so nothing else is needed: 4 K + 6 n bytes in all (plus
 * the rounding of the scratch to 16), the same as a hand-written counting sort that keeps the keys as
 * 16 bits. All three must be shared memory of the calling block and must not overlap each other or
 * `keys`; K and n are bounded in practice by what fits (227 KiB per block on an H100 or H200).
 *
 * **Registers.** The function is inlined into the caller's kernel, usually inside a tile loop, and is
 * written to add few registers to it: in samplekit's benchmark (bench/bench_block_count_sort.cu) a tile
 * loop around it compiles to 28 or 29 registers a thread for sm_90 (nvcc 13.0), within the 32 that let
 * four blocks of 512 threads share an SM.
 *
 * **Barriers.** The call writes `s_key_ends` and `s_scratch` first, without a barrier: when another
 * thread may still be reading them or `s_slots` (the previous call's result, typically), the caller
 * puts a `__syncthreads()` before the call. The call ends with a `__syncthreads()`: on return the
 * outputs are visible to the whole block. It contains four `__syncthreads()` in all, five when K > 64,
 * the block has more than one warp and n is at least the number of warps.
 *
 * **Cost.** Per item: one read of its key from `keys` (global or shared memory), a 2-byte shared store
 * and load, two shared-memory atomic increments (the count, then the cursor) and a 4-byte shared
 * store. Per key: a store (zeroing), one to two loads and a store (the scan), the keys split across the
 * warps in runs of 32 (one warp scan and one `redux.sync` per run). Atomics on one counter serialize,
 * so heavily skewed keys (most items of a warp on one key) slow the two atomic steps down; the
 * benchmark (bench/bench_block_count_sort.cu) has skewed rows beside the uniform ones.
 *
 * Usage (one block per tile of a long array; each tile's items grouped by key):
 * \snippet test_block_count_sort.cu block_count_sort_usage
 * @{
 */

/** \brief Largest number of keys K: a slot keeps the key in its upper 16 bits. */
#define SK_BLOCK_COUNT_SORT_MAX_KEYS 65536

/** \brief Largest number of items n: a slot keeps the item's index in its lower 16 bits. */
#define SK_BLOCK_COUNT_SORT_MAX_ITEMS 65536

/**
 * \brief Bytes of the shared scratch of sk_block_count_sort_u32() for up to `max_items` items: 2 per
 * item (the item's key as 16 bits), rounded up to 16.
 * \param max_items the largest n the scratch is used with.
 */
#define SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(max_items) \
  (((size_t)2u * (size_t)(max_items) + (size_t)15u) / (size_t)16u * (size_t)16u)

/** @} */

#endif /* SAMPLEKIT_BLOCK_COUNT_SORT_H */
