/**
 * \file segmented_count.h
 * \brief Device-wide segmented count: the distinct keys of every segment of a CSR array and how often
 * each occurs, as a CSR result (SaberLDA's "shuffle and segmented count").
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc.
 */
#ifndef SAMPLEKIT_SEGMENTED_COUNT_H
#define SAMPLEKIT_SEGMENTED_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_segmented_count Segmented count
 * \brief For each segment of a CSR array of keys in [0, K): its distinct keys in increasing order and
 * the number of times each occurs, written as a CSR matrix (offsets, keys, counts).
 *
 * After SaberLDA (Chen et al., ASPLOS 2017), which rebuilds its sparse document-topic matrix every
 * iteration this way: segments are documents, items are tokens, keys are topics, and the tokens are
 * stored in word order, so the keys are read through a permutation (the "shuffle").
 *
 * **Input.** `d_segment_offsets` has num_segments + 1 entries: d_segment_offsets[0] = 0, non-decreasing,
 * d_segment_offsets[num_segments] = num_items; segment s holds items [d_segment_offsets[s],
 * d_segment_offsets[s + 1]). The key of item i is d_keys[i], or d_keys[d_perm[i]] when a permutation is
 * given (then d_perm[i] is in [0, num_items); it need not be a permutation: any map into the keys array
 * is counted as given). Keys are in [0, num_keys).
 *
 * **Output.** `d_out_offsets` (num_segments + 1 entries): segment s's pairs are
 * [d_out_offsets[s], d_out_offsets[s + 1]), d_out_offsets[0] = 0, and the total number of pairs P =
 * d_out_offsets[num_segments] <= num_items. Pair j is (d_out_keys[j], d_out_counts[j]): keys strictly
 * increasing within a segment, counts >= 1 and summing to the segment's length. An empty segment has no
 * pairs. The offsets are always written in full; pair j is written only when j < out_capacity, so:
 * - **one phase:** out_capacity = num_items always suffices;
 * - **two phases (sizes, then fill):** call with out_capacity = 0 (the pair arrays may be NULL), read
 *   P = d_out_offsets[num_segments], allocate P pairs, call again with out_capacity = P. The first
 *   call does the counting of the distinct keys alone (on the dense path it skips the second kernel,
 *   about half the work; on the sorted path it only skips the pair writes).
 *
 * **Algorithms.** Blocks walk tiles of item positions; tile t owns the segments that start in it.
 * - **Dense** (K <= #SK_SEGMENTED_COUNT_DENSE_MAX_KEYS; tiles of 8192 positions, halved down to 1024
 *   while the items make fewer than 1024 tiles, so that a small input still spreads over the GPU's
 *   multiprocessors): each warp keeps a K-bit bitmap in shared memory and takes whole segments of up to
 *   512 keys (its tile's next one as it finishes), 32 keys per round, each lane with its own shared
 *   atomic. A first kernel counts each segment's distinct keys (bits set for the first time), a CUB scan
 *   turns the counts into the output offsets, and a second kernel marks the segment's keys again, ranks
 *   them (a key's rank among the segment's distinct keys is its place in the output: one warp scan over
 *   the popcounts of the marked bitmap words), writes the keys, counts each key into a counter indexed
 *   by its rank, and writes the counts. Per-lane masks of marked words make each step cost the segment's
 *   distinct keys rather than K, and the counters by rank keep a block's shared memory at 24 KiB up
 *   to K = 10,240, so 8 blocks fit on an SM there (2 at K = 65,536). Longer segments are counted the
 *   same way by the whole block. No sort; the keys are read twice (segments of up to 256 keys only once
 *   by the second kernel: they stay in registers).
 * - **Sorted** (larger K; tiles of #SK_SEGMENTED_COUNT_TILE_ITEMS / 2 positions): a block loads its
 *   segments' keys (a piece of at most #SK_SEGMENTED_COUNT_TILE_ITEMS items, since only a tile's last
 *   segment can reach past it), tags each key with its segment's index in the piece, and counts them
 *   with sk_block_segmented_count_u32() (CUB BlockRadixSort on only the key and tag bits, adjacent-
 *   difference flags, a block scan). A segment longer than a piece is counted in key windows of
 *   #SK_SEGMENTED_COUNT_WINDOW counters in the block's region of the workspace (shared memory when K
 *   <= 2 x #SK_SEGMENTED_COUNT_TILE_ITEMS). The block's place in the output comes from a decoupled
 *   look-back over the tiles before it (Merrill and Garland, "Single-pass Parallel Prefix Scan with
 *   Decoupled Look-back", 2016), so the keys are read once and the pairs written once.
 *
 * **Cost.** Dense: reads the offsets and the keys twice (4 bytes per item, or through a permutation 4
 * plus a scattered 4), writes 8 bytes per pair and 8 per segment; per item about three shared-memory
 * atomics, per distinct key a few shared-memory steps; a segment longer than 512 keys also pays
 * K / 8192 block steps. Bound by shared-memory atomics and latency, not bytes: bench/RESULTS.md has
 * the H200 figures against CUB's sort + run-length encode (2.9x to 4.0x at LDA's shapes). Through a
 * permutation every key is a scattered 4-byte read in each kernel: when 4 bytes per item of device
 * memory are free, gathering the keys into segment order first and calling without the permutation
 * measured 1.1x to 2.0x faster on an H200; the call itself reads through the permutation so that it
 * needs no such buffer. Sorted: reads everything once; per
 * piece about ceil((log2 K + log2 S_p) / 4) radix passes over a tile (S_p: the piece's non-empty
 * segments); a segment longer than a piece costs O(length x ceil(K / #SK_SEGMENTED_COUNT_WINDOW) + K)
 * on one block.
 *
 * **Determinism.** The output is a function of the input alone (no order depends on timing).
 *
 * **What is not checked.** The device-resident offsets, keys and permutation are read by the kernel
 * only; checking them needs a read-back, so it is a separate synchronous call,
 * sk_segmented_count_check_u32(), meant for debugging and tests. On unchecked bad input the kernel
 * never reads or writes outside the arrays described here (offsets are clamped to [0, num_items], keys
 * and permutation entries out of range are counted as key K - 1 and item 0), but the result is then
 * unspecified.
 *
 * Usage (two phases):
 * \snippet test_segmented_count.cu segmented_count_usage
 * @{
 */

/** \brief Largest number of keys K: keys are tagged with a segment index in 32 bits. */
#define SK_SEGMENTED_COUNT_MAX_KEYS (1 << 20)
/** \brief Largest number of items, 2^31 - 2^16: the kernels step their 32-bit item indices up to 1,024
 * past a segment's end, and this margin keeps every step within an int. */
#define SK_SEGMENTED_COUNT_MAX_ITEMS (INT32_MAX - 65535)
/** \brief Largest number of segments, 2^31 - 2^16 - 1 (segment indices step up to 256 past the last). */
#define SK_SEGMENTED_COUNT_MAX_SEGMENTS (INT32_MAX - 65536)

/**
 * \brief Items per piece of the device-wide kernel: 256 threads x 8 keys. Segments at most this long
 * are sorted in shared memory; longer ones are counted in key windows.
 */
#define SK_SEGMENTED_COUNT_TILE_ITEMS 2048

/**
 * \brief Largest K counted by the dense path (above it the sorted path): a block's 8 warps keep a K-bit
 * bitmap, 16-bit ranks per bitmap word and 512 counters each in shared memory: 24 KiB up to K = 10,240
 * (8 blocks an SM), 106 KiB at this K (2 blocks an SM on a GPU with 228 KiB an SM, such as the H100 and
 * H200).
 */
#define SK_SEGMENTED_COUNT_DENSE_MAX_KEYS 65536

/** \brief Keys per window of the dense count used for segments longer than a piece. */
#define SK_SEGMENTED_COUNT_WINDOW 16384

SK_EXTERN_C_BEGIN

/**
 * \brief Device bytes of workspace that sk_segmented_count_u32() needs.
 * \param num_segments number of segments, 0 to #SK_SEGMENTED_COUNT_MAX_SEGMENTS.
 * \param num_items number of items, 0 to #SK_SEGMENTED_COUNT_MAX_ITEMS.
 * \param num_keys K, 1 to #SK_SEGMENTED_COUNT_MAX_KEYS.
 * \param[out] workspace_bytes receives the size, never 0: about 12 bytes per tile (of 1024 to 8192 item
 *        positions on the dense path, 1024 on the sorted one) plus alignment; dense path: 4
 *        bytes per segment and CUB's scan storage; sorted path with K > 2 x
 *        #SK_SEGMENTED_COUNT_TILE_ITEMS: min(K, #SK_SEGMENTED_COUNT_WINDOW) 4-byte counters for each
 *        block that can be resident on the current device.
 * \retval SK_SUCCESS `*workspace_bytes` was written.
 * \retval SK_ERROR_NULL_POINTER `workspace_bytes` is NULL.
 * \retval SK_ERROR_INVALID_VALUE an argument is out of range.
 * \retval SK_ERROR_CUDA a device query failed (see sk_last_cuda_error()).
 * \retval SK_ERROR_UNSUPPORTED the current device cannot hold one block of the kernel that K selects
 *         (on the dense path, 24 KiB of shared memory per block up to K = 10,240 and about 106 KiB at
 *         K = 65,536).
 *
 * Launches nothing. Depends on the current device (its number of multiprocessors); query it on the
 * device that will run the count. Thread-safe. The size also serves every call with at most
 * num_segments segments and num_items items and the same K (one workspace for inputs of varying size,
 * such as the chunks of a stream, is sized by the largest).
 */
SK_API sk_status sk_segmented_count_workspace_size(int32_t num_segments, int32_t num_items, int32_t num_keys,
                                                   size_t *workspace_bytes);

/**
 * \brief Counts the distinct keys of every segment on the device (group rules; one phase or two).
 * \param d_segment_offsets device array of num_segments + 1 offsets (group rules).
 * \param num_segments number of segments, 0 to #SK_SEGMENTED_COUNT_MAX_SEGMENTS.
 * \param num_items number of items, 0 to #SK_SEGMENTED_COUNT_MAX_ITEMS.
 * \param d_keys device array of keys in [0, num_keys): num_items of them, or as many as `d_perm` reaches.
 *        May be NULL when num_items is 0.
 * \param d_perm optional device array of num_items entries: item i's key is d_keys[d_perm[i]]. NULL:
 *        item i's key is d_keys[i].
 * \param num_keys K, 1 to #SK_SEGMENTED_COUNT_MAX_KEYS.
 * \param[out] d_out_offsets device array of num_segments + 1 entries, always written.
 * \param[out] d_out_keys device array of out_capacity keys; may be NULL when out_capacity is 0.
 * \param[out] d_out_counts device array of out_capacity counts; may be NULL when out_capacity is 0.
 * \param out_capacity pairs the two arrays hold, >= 0; pairs from out_capacity on are not written.
 * \param d_workspace device workspace of the size sk_segmented_count_workspace_size() gives.
 * \param workspace_bytes its size in bytes.
 * \param stream CUDA stream (0: the legacy default stream).
 * \retval SK_SUCCESS launched.
 * \retval SK_ERROR_NULL_POINTER `d_segment_offsets`, `d_out_offsets` or `d_workspace` is NULL; `d_keys`
 *         is NULL while num_items > 0; or a pair array is NULL while out_capacity > 0.
 * \retval SK_ERROR_INVALID_VALUE num_segments, num_items, num_keys or out_capacity out of range.
 * \retval SK_ERROR_NO_DEVICE no driver or no usable device; nothing was launched.
 * \retval SK_ERROR_CUDA_PENDING an error from earlier work was pending; nothing was launched. (Checked
 *         before the workspace: sizing it queries the device, which would consume the pending error.)
 * \retval SK_ERROR_UNSUPPORTED as for sk_segmented_count_workspace_size() (found while sizing the
 *         workspace, by read-only device queries).
 * \retval SK_ERROR_WORKSPACE_TOO_SMALL `workspace_bytes` is below the size query's answer.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED a launch failed (see sk_last_cuda_error()).
 * \retval SK_ERROR_CUDA a CUDA call (a device query or CUB's size query while sizing the workspace; a
 *         memset or CUB's scan after it) failed.
 *
 * Checked in the order listed (SK_ERROR_CUDA from sizing the workspace comes where
 * SK_ERROR_UNSUPPORTED does). Asynchronous on `stream`; the workspace must not be used by another
 * call until this one completes.
 */
SK_API sk_status sk_segmented_count_u32(const int32_t *d_segment_offsets, int32_t num_segments, int32_t num_items,
                                        const uint32_t *d_keys, const int32_t *d_perm, int32_t num_keys,
                                        int32_t *d_out_offsets, uint32_t *d_out_keys, uint32_t *d_out_counts,
                                        int32_t out_capacity, void *d_workspace, size_t workspace_bytes,
                                        sk_stream stream);

/**
 * \brief Checks the device input of sk_segmented_count_u32() and says where it first goes wrong
 * (synchronous; for debugging and tests).
 *
 * Checks, in this order: d_segment_offsets[0] = 0, every offset >= the one before it,
 * d_segment_offsets[num_segments] = num_items; every d_perm entry in [0, num_items); every key read
 * (through d_perm when given) in [0, num_keys).
 * \param d_segment_offsets as for sk_segmented_count_u32().
 * \param num_segments as for sk_segmented_count_u32().
 * \param num_items as for sk_segmented_count_u32().
 * \param d_keys as for sk_segmented_count_u32().
 * \param d_perm as for sk_segmented_count_u32() (NULL: no permutation).
 * \param num_keys as for sk_segmented_count_u32().
 * \param[out] bad_index optional (may be NULL): -1 when the input is good or the arguments are bad;
 *        otherwise the first offending index: an offset index j in [0, num_segments] (the first j
 *        with d_segment_offsets[j] wrong: j = 0 or num_segments for the ends, else
 *        d_segment_offsets[j] < d_segment_offsets[j - 1]); else the first item i whose permutation
 *        entry is out of range; else the first item i whose key is out of range.
 * \param stream CUDA stream; the call waits for it.
 * \retval SK_SUCCESS the input is good.
 * \retval SK_ERROR_NULL_POINTER as for sk_segmented_count_u32().
 * \retval SK_ERROR_INVALID_VALUE an argument is out of range, or the device input is bad (`*bad_index`
 *         says where).
 * \retval SK_ERROR_CUDA_ALLOCATION_FAILED its 24 bytes of device memory could not be allocated.
 * \retval SK_ERROR_NO_DEVICE, SK_ERROR_CUDA_PENDING, SK_ERROR_CUDA_LAUNCH_FAILED, SK_ERROR_CUDA as for
 *         sk_segmented_count_u32().
 *
 * Reads everything once; allocates and frees 24 bytes of device memory; synchronizes `stream`.
 */
SK_API sk_status sk_segmented_count_check_u32(const int32_t *d_segment_offsets, int32_t num_segments,
                                              int32_t num_items, const uint32_t *d_keys, const int32_t *d_perm,
                                              int32_t num_keys, int64_t *bad_index, sk_stream stream);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_SEGMENTED_COUNT_H */
