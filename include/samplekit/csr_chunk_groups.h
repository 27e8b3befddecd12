/**
 * \file csr_chunk_groups.h
 * \brief A chunk's groups (the tokens of one word in one row) and items (runs of one word's groups, the
 * work of a block), found in its word order on the host or on the device.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc. The `_host` calls never call
 * CUDA; the `_device` calls and their size queries do. Part of the CSR streaming chunker
 * (\ref sk_csr_chunker, csr_chunker.h, which includes this header).
 */
#ifndef SAMPLEKIT_CSR_CHUNK_GROUPS_H
#define SAMPLEKIT_CSR_CHUNK_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \addtogroup sk_csr_chunker
 * @{
 */

SK_EXTERN_C_BEGIN

/**
 * \brief Counts a chunk's groups and items (see the group's description) from its word order's rows,
 * without building them: the sizes of the arrays that sk_csr_chunk_groups_host() fills.
 *
 * The numbers are exactly the `*num_groups` and `*num_items` that sk_csr_chunk_groups_host() gives for
 * the same arguments; num_items <= num_groups <= num_tokens. The same walk as that call's, writing
 * nothing.
 * \param h_position_row the row of each of the num_tokens word-order positions, as
 *        sk_csr_chunk_order_rows_host() gives it. May be NULL when num_tokens is 0. Any values: a
 *        group is a run of equal values within a word.
 * \param num_tokens tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0.
 * \param h_word_offsets the num_cols + 1 word offsets of the order: from 0 to num_tokens,
 *        non-decreasing.
 * \param item_tokens the most tokens of an item of more than one group, >= 1.
 * \param[out] num_groups receives the number of groups.
 * \param[out] num_items receives the number of items.
 * \retval SK_SUCCESS both counts were written.
 * \retval SK_ERROR_INVALID_VALUE `num_tokens`, `num_cols` or `item_tokens` out of range; after the
 *         pointer checks: the word offsets do not run from 0 to num_tokens or decrease.
 * \retval SK_ERROR_NULL_POINTER `h_word_offsets`, `num_groups` or `num_items` is NULL, or
 *         `h_position_row` while num_tokens > 0.
 *
 * Checked in the order listed; on any status but `SK_SUCCESS` the counts are left unchanged. Time
 * O(num_tokens + num_cols): one sequential read of the rows and the offsets; no scratch.
 * Deterministic. Thread-safe; never calls CUDA.
 */
SK_API sk_status sk_csr_chunk_groups_count_host(const int32_t *h_position_row, int64_t num_tokens, int32_t num_cols,
                                                const int64_t *h_word_offsets, int32_t item_tokens,
                                                int64_t *num_groups, int64_t *num_items);

/**
 * \brief Builds a chunk's groups and items on the host (see the group's description) from its word
 * order's rows: the work units of the order, items listed by decreasing size.
 *
 * Positions are word-order positions (as in sk_csr_chunk_order_host()). With G groups and I items, on
 * `SK_SUCCESS`:
 * - groups are listed in word order: by word, and within a word by position. Group g holds the
 *   positions [h_group_start[g], h_group_start[g + 1]), a maximal run of one word's positions with one
 *   row, h_group_row[g]; h_group_start[0] = 0 (when G > 0) and h_group_start[G] = num_tokens. With the
 *   rows of sk_csr_chunk_order_rows_host(), a group is the tokens of one word in one row, and there is
 *   one for every (row, word) with a token.
 * - items: the groups of each word are cut greedily, in order: the word's first group opens an item,
 *   and each next group joins the open item when the item's tokens and the group's together are at
 *   most `item_tokens`, and opens a new item otherwise. So an item of more than one group holds at
 *   most `item_tokens` tokens, an item and the next group of its word together hold more, and a
 *   group longer than `item_tokens` is an item of its own. Item k holds the groups
 *   [h_item_group[k], h_item_end[k]) of the word h_item_word[k] and the positions
 *   [h_group_start[h_item_group[k]], h_group_start[h_item_end[k]]).
 * - items are listed by decreasing token count, and items of equal count in word order (by their
 *   first group), so that a dynamic scheduler starts the longest first.
 *
 * **Algorithm.** A walk over each word's positions in order, which starts a group where the row
 * changes and grows or opens the word's item; it runs twice, counting and then writing, so that
 * nothing is written unless it all fits. Then a stable counting sort of the items by decreasing size:
 * one pass when the largest item has fewer than 2^16 tokens, else two digits of up to 16 bits.
 * \param h_position_row the row of each of the num_tokens word-order positions, as
 *        sk_csr_chunk_order_rows_host() gives it. May be NULL when num_tokens is 0. Any values.
 * \param num_tokens tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0.
 * \param h_word_offsets the num_cols + 1 word offsets of the order: from 0 to num_tokens,
 *        non-decreasing.
 * \param item_tokens the most tokens of an item of more than one group, >= 1.
 * \param[out] h_group_start max_groups + 1 entries; receives G + 1.
 * \param[out] h_group_row max_groups entries; receives G. May be NULL when max_groups is 0.
 * \param max_groups the entries of the group arrays (without the final start), >= G: the count's
 *        `*num_groups` will do (entries past num_tokens are never touched).
 * \param[out] h_item_word max_items entries; receives I. May be NULL when max_items is 0.
 * \param[out] h_item_group max_items entries; receives I. May be NULL when max_items is 0.
 * \param[out] h_item_end max_items entries; receives I. May be NULL when max_items is 0.
 * \param max_items the entries of the item arrays, >= I: the count's `*num_items` will do (entries
 *        past num_tokens are never touched).
 * \param[out] num_groups receives G, on `SK_SUCCESS` and when `max_groups` or `max_items` is too
 *        small.
 * \param[out] num_items receives I, likewise.
 * \retval SK_SUCCESS the groups and items were written.
 * \retval SK_ERROR_INVALID_VALUE `num_tokens`, `num_cols`, `item_tokens`, `max_groups` or `max_items`
 *         out of range; after the pointer checks: an output array overlaps another of the seven
 *         arrays, or the word offsets do not run from 0 to num_tokens or decrease; after the count:
 *         G > max_groups or I > max_items (the counts are then written).
 * \retval SK_ERROR_NULL_POINTER `h_word_offsets`, `h_group_start`, `num_groups` or `num_items` is NULL;
 *         or `h_position_row` while num_tokens > 0; or `h_group_row` while max_groups > 0; or an item
 *         array while max_items > 0.
 * \retval SK_ERROR_HOST_ALLOCATION_FAILED the sort's scratch could not be allocated.
 *
 * Checked in the order listed; the arrays are untouched on any status but `SK_SUCCESS`. Time
 * O(num_tokens + num_cols + I + min(S, 2^16)), S the largest item's tokens: reads the rows and the
 * offsets twice, sequentially, writes 8 G + 12 I bytes; 12 I bytes of host scratch (and 256 KiB at
 * most for the sort), allocated and freed by the call. Deterministic: the outputs depend only on the
 * arguments. Thread-safe for calls with distinct outputs; never calls CUDA.
 */
SK_API sk_status sk_csr_chunk_groups_host(const int32_t *h_position_row, int64_t num_tokens, int32_t num_cols,
                                          const int64_t *h_word_offsets, int32_t item_tokens, int32_t *h_group_start,
                                          int32_t *h_group_row, int64_t max_groups, int32_t *h_item_word,
                                          int32_t *h_item_group, int32_t *h_item_end, int64_t max_items,
                                          int64_t *num_groups, int64_t *num_items);

/**
 * \brief Device bytes of workspace that sk_csr_chunk_groups_device() needs for chunks of up to
 * `max_tokens` tokens, on the current device.
 *
 * Six regions of 4 (max_tokens + 1) bytes, each on a 256-byte boundary from a base that the call
 * aligns itself (so any address will do), then CUB's storage:
 *
 *     0                                                              when max_tokens = 0
 *     255 + 6 * 256 * ceil(4 (max_tokens + 1) / 256) + cub_bytes     otherwise
 *
 * where cub_bytes is the larger of what cub::DeviceScan::ExclusiveSum asks for to scan max_tokens + 1
 * 32-bit integers and what cub::DeviceRadixSort::SortPairs asks for to sort max_tokens pairs on the
 * bits of max_tokens: about 24 max_tokens bytes in all. cub_bytes depends on the device's
 * architecture (see sk_csr_chunk_order_device_workspace_size()). The size never decreases as
 * max_tokens grows. The workspace of sk_csr_chunk_order_device() may be the same memory: the two
 * calls queued on one stream use it one after the other.
 * \param max_tokens the most tokens of any chunk that will be built with this workspace, 0 to
 *        #SK_CSR_CHUNK_MAX_TOKENS.
 * \param[out] workspace_bytes receives the size in bytes (0 is possible); left unchanged unless
 *        `SK_SUCCESS` is returned.
 * \retval SK_SUCCESS `*workspace_bytes` was written.
 * \retval SK_ERROR_NULL_POINTER `workspace_bytes` is NULL.
 * \retval SK_ERROR_INVALID_VALUE `max_tokens` is out of range.
 * \retval SK_ERROR_NO_DEVICE no usable CUDA device (only when max_tokens > 0).
 * \retval SK_ERROR_CUDA the device query failed otherwise (see sk_last_cuda_error()).
 *
 * Checked in the order listed. When max_tokens > 0, asks CUB for cub_bytes, which queries the current
 * device (no launch, no allocation, no synchronisation); otherwise never calls CUDA. Thread-safe.
 */
SK_API sk_status sk_csr_chunk_groups_device_workspace_size(int64_t max_tokens, size_t *workspace_bytes);

/**
 * \brief Builds a chunk's groups and items on the device: the same arrays, bit for bit, as
 * sk_csr_chunk_groups_host() gives with the rows of sk_csr_chunk_order_rows_host() for the same chunk,
 * from the chunk's rows, tokens and word order already on the device.
 *
 * Same contract as sk_csr_chunk_groups_host() with device arrays (a group is the tokens of one word
 * in one row), except for four things. The rows of the positions are not an input: the call finds
 * them from the row offsets and the order's permutation. The numbers G and I are not known on the
 * host before the work is done, so the output arrays have room for the most there can be
 * (num_tokens groups and items), and the numbers are written to the device, `d_counts[0]` = G and
 * `d_counts[1]` = I. Nothing is checked against the device's data: `d_perm` and `d_word_offsets`
 * must be what sk_csr_chunk_order_device() (or the host order) gives for `d_tokens`, and the row
 * offsets must be as documented; a token outside [0, num_cols) is counted as the word num_cols - 1,
 * as the device order places it; other values give unspecified outputs, but no access outside the
 * arrays. And the work needs a workspace.
 *
 * **Algorithm.** (1) A kernel finds each token's row by binary search of the offsets. (2) A kernel
 * flags each word-order position j that starts a group: the first of its word (j =
 * d_word_offsets[w]) or the first of its row within the word (the position before holds a token of
 * an earlier row, since positions of a word increase with the row); (3) a CUB exclusive sum of the
 * flags numbers the groups, and a kernel writes each group's start and row. (4) A kernel with a warp
 * for each run of 32 words cuts each word's groups into items: 32 groups at a time, it finds the
 * next cut with a ballot of the groups that would take the open item past `item_tokens` (one
 * ballot per cut and per 32 groups), and flags each item's first group; (5) a CUB exclusive sum
 * numbers the items, in word order, and a kernel lists their first and last groups; (6) a CUB radix
 * sort of (a key that decreases with the item's tokens, its number) on the bits of num_tokens sorts
 * them, stably, by decreasing size; as the number of items is on the device, it sorts num_tokens
 * pairs, the entries past the last item keyed to stay last; (7) a kernel gathers the sorted items
 * and their words and writes the counts. With num_tokens = 0 it is two cudaMemsetAsync (group_start
 * and the counts to zeros), nothing else.
 *
 * **Cost.** About 4 random 4-byte reads a token in (2), 4 + 4 in (1) and (3), the scans (8 bytes a
 * token each), and the sort: 16 bytes a token a pass, ceil(b / 8) passes for the b bits of
 * num_tokens (3 for 10^5 to 1.6 * 10^7 tokens). The warp of the most frequent word's run of words
 * takes one step per 32 of that word's groups plus one per cut: it bounds the time of (4) for
 * skewed vocabularies.
 * \param d_row_offsets device array of num_rows + 1 row offsets, as for
 *        sk_csr_chunk_order_rows_host() (they need not start at 0).
 * \param num_rows rows in the chunk, 0 to INT32_MAX; >= 1 when num_tokens > 0.
 * \param d_tokens device array of the chunk's num_tokens word ids. May be NULL when num_tokens is 0.
 * \param num_tokens tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0; >= 1 when num_tokens > 0.
 * \param d_perm device array of the order's num_tokens positions (sk_csr_chunk_order_device()'s
 *        `d_perm`). May be NULL when num_tokens is 0.
 * \param d_word_offsets device array of the order's num_cols + 1 word offsets.
 * \param item_tokens the most tokens of an item of more than one group, >= 1.
 * \param[out] d_group_start device array of num_tokens + 1 entries; receives G + 1.
 * \param[out] d_group_row device array of num_tokens entries; receives G. May be NULL when num_tokens
 *        is 0.
 * \param[out] d_item_word device array of num_tokens entries; receives I. May be NULL when num_tokens
 *        is 0.
 * \param[out] d_item_group device array of num_tokens entries; receives I. May be NULL when
 *        num_tokens is 0.
 * \param[out] d_item_end device array of num_tokens entries; receives I. May be NULL when num_tokens
 *        is 0.
 * \param[out] d_counts device array of 2 entries: receives G and I.
 * \param d_workspace device workspace of at least the size sk_csr_chunk_groups_device_workspace_size()
 *        gives on this device for num_tokens, or for more tokens; any alignment. May be NULL when
 *        num_tokens is 0.
 * \param workspace_bytes its size in bytes.
 * \param stream CUDA stream (0: the legacy default stream).
 * \retval SK_SUCCESS launched.
 * \retval SK_ERROR_INVALID_VALUE `num_rows`, `num_tokens`, `num_cols` or `item_tokens` out of range
 *         (num_rows = 0 or num_cols = 0 with num_tokens > 0 included); after the pointer checks: an
 *         output array overlaps another array or the workspace's `workspace_bytes` bytes, or the workspace
 *         overlaps an input array (`d_tokens`, `d_perm`, `d_row_offsets`, `d_word_offsets`).
 * \retval SK_ERROR_NULL_POINTER `d_row_offsets`, `d_word_offsets`, `d_group_start` or `d_counts` is
 *         NULL, or another array or `d_workspace` is NULL while num_tokens > 0.
 * \retval SK_ERROR_WORKSPACE_TOO_SMALL `workspace_bytes` is below the size query's answer for
 *         num_tokens on the current device. The part of the size that is not CUB's is checked before
 *         anything else touches CUDA; CUB's part after the pending-error check.
 * \retval SK_ERROR_CUDA_PENDING an error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_NO_DEVICE no usable CUDA device.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED a launch, or CUB, failed (see sk_last_cuda_error()).
 * \retval SK_ERROR_CUDA another CUDA call failed (see sk_last_cuda_error()).
 *
 * Checked in the order listed; no status but `SK_SUCCESS` comes after anything was launched, except
 * a failed launch. Asynchronous on `stream`: the outputs are ready, and the inputs and the workspace
 * may be reused, once the work queued on `stream` is done; no allocation, no synchronisation.
 * Deterministic: the outputs are the host's. Thread-safe for calls with distinct outputs and
 * workspaces.
 *
 * Usage (a chunk's order and then its groups and items, on the device):
 * \snippet test_csr_chunk_order.cu csr_chunk_groups_device_usage
 */
SK_API sk_status sk_csr_chunk_groups_device(const int64_t *d_row_offsets, int64_t num_rows, const int32_t *d_tokens,
                                            int64_t num_tokens, int32_t num_cols, const int32_t *d_perm,
                                            const int64_t *d_word_offsets, int32_t item_tokens,
                                            int32_t *d_group_start, int32_t *d_group_row, int32_t *d_item_word,
                                            int32_t *d_item_group, int32_t *d_item_end, int64_t *d_counts,
                                            void *d_workspace, size_t workspace_bytes, sk_stream stream);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_CSR_CHUNK_GROUPS_H */
