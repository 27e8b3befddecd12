/**
 * \file csr_chunk_order.h
 * \brief The word order (PDOW) of one chunk's tokens: the stable sort by word id, its inverse and the
 * words' offsets, on the host (from the tokens alone, or with the chunk's rows) or on the device.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc. The `_host` calls never call
 * CUDA; the `_device` calls and their size queries do. Part of the CSR streaming chunker
 * (\ref sk_csr_chunker, csr_chunker.h, which includes this header).
 */
#ifndef SAMPLEKIT_CSR_CHUNK_ORDER_H
#define SAMPLEKIT_CSR_CHUNK_ORDER_H

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
 * \brief Orders one chunk's tokens by word on the host (PDOW): the stable sort's permutation, its
 * inverse and the per-word offsets.
 *
 * Position i is the chunk's i-th token in document order (`h_tokens[i]`); position j is the j-th in word
 * order. On `SK_SUCCESS`:
 * - `h_perm[j]` = the document-order position of the j-th token in word order (word order to document
 *   order: the gather that lays the chunk out by word, and the map back for counting per document);
 *   the words h_tokens[h_perm[j]] are non-decreasing in j, and for equal words h_perm is increasing
 *   (stable: ties stay in document order);
 * - `h_inverse[i]` = the word-order position of token i, so h_inverse[h_perm[j]] = j;
 * - `h_word_offsets` = CSR offsets over the words: word w's tokens are word-order positions
 *   [h_word_offsets[w], h_word_offsets[w + 1]), so h_word_offsets[0] = 0 and
 *   h_word_offsets[num_cols] = num_tokens.
 *
 * A counting sort (a pass that checks the tokens, one that counts, a prefix sum, a scatter in
 * document order, which keeps the sort stable). It needs no workspace: `h_word_offsets` holds the
 * counts and then the cursors.
 * \param h_tokens the chunk's num_tokens word ids, each in [0, num_cols): for chunk `info` of a plan,
 *        h_tokens_all + info.first_token. May be NULL when num_tokens is 0.
 * \param num_tokens tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0.
 * \param[out] h_perm num_tokens entries; may be NULL when num_tokens is 0.
 * \param[out] h_inverse num_tokens entries; may be NULL when num_tokens is 0.
 * \param[out] h_word_offsets num_cols + 1 entries.
 * \retval SK_SUCCESS the three outputs were written.
 * \retval SK_ERROR_INVALID_VALUE `num_tokens` outside [0, #SK_CSR_CHUNK_MAX_TOKENS] or `num_cols` < 0;
 *         after the pointer checks: two of the four arrays overlap, or a token is outside [0, num_cols).
 * \retval SK_ERROR_NULL_POINTER `h_word_offsets` is NULL, or `h_tokens`, `h_perm` or `h_inverse` is
 *         NULL while num_tokens > 0.
 *
 * Checked in the order listed; the tokens are all checked before anything is written, so on any status
 * other than `SK_SUCCESS` the outputs are untouched. Time O(num_tokens + num_cols): reads the tokens
 * three times, writes 8 bytes per token and 8 (num_cols + 1) bytes. Deterministic. Thread-safe; never
 * calls CUDA.
 */
SK_API sk_status sk_csr_chunk_order_host(const int32_t *h_tokens, int64_t num_tokens, int32_t num_cols,
                                         int32_t *h_perm, int32_t *h_inverse, int64_t *h_word_offsets);

/**
 * \brief Device bytes of workspace that sk_csr_chunk_order_device() needs for chunks of up to
 * `max_tokens` tokens over `num_cols` words, on the current device.
 *
 * The workspace holds the sort's first key and value buffers (its second ones are the caller's
 * `d_inverse` and `d_perm`) and CUB's own storage, each region on a 256-byte boundary from a base
 * that the call aligns itself (so any address will do):
 *
 *     0                                                    when max_tokens = 0
 *     255 + 2 * 256 * ceil(4 max_tokens / 256) + cub_bytes otherwise
 *
 * where cub_bytes is what cub::DeviceRadixSort::SortPairs asks for to sort max_tokens pairs on the
 * bits of num_cols - 1 (0 when num_cols <= 1: nothing to sort). That is its look-back state, a small
 * fraction of a byte a token (about 0.12 with CCCL 3.0 on sm_90), so the workspace is about
 * 8 max_tokens bytes. cub_bytes depends on the device's architecture: a workspace sized on one device
 * may be too small on a device of another architecture (sk_csr_chunk_order_device() then says so).
 * The size never decreases as max_tokens grows.
 * \param max_tokens the most tokens of any chunk that will be ordered with this workspace, 0 to
 *        #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0.
 * \param[out] workspace_bytes receives the size in bytes (0 is possible); left unchanged unless
 *        `SK_SUCCESS` is returned.
 * \retval SK_SUCCESS `*workspace_bytes` was written.
 * \retval SK_ERROR_NULL_POINTER `workspace_bytes` is NULL.
 * \retval SK_ERROR_INVALID_VALUE `max_tokens` or `num_cols` is out of range.
 * \retval SK_ERROR_NO_DEVICE no usable CUDA device (only when cub_bytes has to be asked for).
 * \retval SK_ERROR_CUDA the device query failed otherwise, for example without a usable device
 *         (see sk_last_cuda_error()).
 *
 * Checked in the order listed. When max_tokens > 0 and num_cols > 1, asks CUB for cub_bytes, which
 * queries the current device (no launch, no allocation, no synchronisation); otherwise never calls
 * CUDA. Thread-safe.
 */
SK_API sk_status sk_csr_chunk_order_device_workspace_size(int64_t max_tokens, int32_t num_cols,
                                                          size_t *workspace_bytes);

/**
 * \brief Orders one chunk's tokens by word on the device (PDOW): the same three outputs as
 * sk_csr_chunk_order_host(), bit for bit, built with CUB.
 *
 * Same contract as sk_csr_chunk_order_host() with device arrays, except that the tokens are not
 * checked against `num_cols` (that would need a read-back). A token outside [0, num_cols) gives an
 * unspecified order but no access outside the arrays: it is put among the tokens of some word, so
 * `d_perm` is still a permutation of [0, num_tokens), `d_inverse` its inverse, `d_word_offsets`
 * non-decreasing from 0 to num_tokens, and every token inside [0, num_cols) in its word's range.
 *
 * **Algorithm.** (1) A kernel writes each token's key (its word id) and value (its position) to the
 * workspace. (2) cub::DeviceRadixSort::SortPairs sorts the pairs by the low b bits of the key, b =
 * the bits of num_cols - 1, least significant digit first; every pass is stable, so tokens of one word
 * stay in document order, which is what makes the result the host's. It ping-pongs between the
 * workspace and (`d_inverse`, `d_perm`), so the sorted positions end in `d_perm` or in the workspace.
 * Skipped when num_cols = 1. (3) A kernel with one thread per word w in [0, num_cols] writes
 * `d_word_offsets[w]`, the number of sorted keys below w, by binary search. (4) A kernel writes
 * `d_inverse[d_perm[j]] = j` (copying the sorted positions to `d_perm` first when the sort left them in
 * the workspace). With num_tokens = 0 it is one cudaMemsetAsync of `d_word_offsets` to zeros, nothing
 * else.
 *
 * **Cost.** With P = ceil(b / 8) passes (CUB's 8-bit digits on current GPUs; P = 3 for 10^5 words and
 * up to 2^24), per token: (1) 4 bytes read and 8 written; (2) 4 bytes read for the digit histograms
 * and 16 moved per pass; (4) 4 read and 4 written at scattered addresses (4 more written when P is
 * even): about 24 + 16 P bytes a token (72 at P = 3), plus 8 (num_cols + 1) bytes written and about
 * (num_cols + 1) log2(num_tokens) reads in (3), most of them shared by the 32 words of a warp.
 * Kernels: 3 of ours plus CUB's (a histogram, a scan of it, and one per pass; one kernel in all for
 * chunks that fit one CUB tile, a few thousand tokens).
 * \param d_tokens device array of the chunk's num_tokens word ids, each in [0, num_cols). May be NULL
 *        when num_tokens is 0.
 * \param num_tokens tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0; >= 1 when num_tokens > 0.
 * \param[out] d_perm device array of num_tokens entries; may be NULL when num_tokens is 0. Also the
 *        sort's second value buffer.
 * \param[out] d_inverse device array of num_tokens entries; may be NULL when num_tokens is 0. Also the
 *        sort's second key buffer.
 * \param[out] d_word_offsets device array of num_cols + 1 entries.
 * \param d_workspace device workspace of at least the size sk_csr_chunk_order_device_workspace_size()
 *        gives on this device for (num_tokens, num_cols), or for more tokens; any alignment. May be NULL
 *        when num_tokens is 0 (it is not used then).
 * \param workspace_bytes its size in bytes.
 * \param stream CUDA stream (0: the legacy default stream).
 * \retval SK_SUCCESS launched.
 * \retval SK_ERROR_INVALID_VALUE `num_tokens` outside [0, #SK_CSR_CHUNK_MAX_TOKENS], `num_cols` < 0,
 *         or num_cols = 0 with num_tokens > 0 (every token would be out of range); after the pointer
 *         checks: two of the four arrays, or one of them and the workspace's `workspace_bytes` bytes,
 *         overlap.
 * \retval SK_ERROR_NULL_POINTER `d_word_offsets` is NULL, or `d_tokens`, `d_perm`, `d_inverse` or
 *         `d_workspace` is NULL while num_tokens > 0.
 * \retval SK_ERROR_WORKSPACE_TOO_SMALL `workspace_bytes` is below the size query's answer for
 *         (num_tokens, num_cols) on the current device. The part of the size that is not CUB's is
 *         checked before anything else touches CUDA; CUB's part after the pending-error check.
 * \retval SK_ERROR_CUDA_PENDING an error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_NO_DEVICE no usable CUDA device.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED a launch, or CUB, failed (see sk_last_cuda_error()).
 * \retval SK_ERROR_CUDA another CUDA call failed (see sk_last_cuda_error()).
 *
 * Checked in the order listed; no status but `SK_SUCCESS` comes after anything was launched, except
 * a failed launch. Asynchronous on `stream`: the outputs are ready, and the tokens and the workspace
 * may be reused, once the work queued on `stream` is done; no allocation, no synchronisation.
 * Deterministic: the outputs are the host's. Thread-safe for calls with distinct outputs and
 * workspaces.
 *
 * Usage (order each chunk of a plan on the device):
 * \snippet test_csr_chunk_order.cu csr_chunk_order_device_usage
 */
SK_API sk_status sk_csr_chunk_order_device(const int32_t *d_tokens, int64_t num_tokens, int32_t num_cols,
                                           int32_t *d_perm, int32_t *d_inverse, int64_t *d_word_offsets,
                                           void *d_workspace, size_t workspace_bytes, sk_stream stream);

/**
 * \brief Orders one chunk's tokens by word on the host, given its rows: the stable sort's permutation
 * and word offsets, as sk_csr_chunk_order_host() gives them, and the row of each word-order position
 * (what sk_csr_chunk_groups_host() takes) in place of the inverse.
 *
 * On `SK_SUCCESS`, `h_perm` and `h_word_offsets` are exactly sk_csr_chunk_order_host()'s for
 * `h_tokens`, and `h_position_row[j]` = the row of the token h_perm[j]: the r with
 * h_row_offsets[r] - h_row_offsets[0] <= h_perm[j] < h_row_offsets[r + 1] - h_row_offsets[0]. Within a
 * word's positions the rows never decrease (the sort is stable), so the word's tokens in one row are
 * consecutive positions: that run is the group of sk_csr_chunk_groups_host().
 *
 * The same counting sort as sk_csr_chunk_order_host() (a pass that checks the tokens, one that counts,
 * a prefix sum, a scatter in document order), its scatter walking row by row so that it knows each
 * token's row.
 * \param h_row_offsets num_rows + 1 offsets of the chunk's rows, non-decreasing, with
 *        h_row_offsets[num_rows] - h_row_offsets[0] = num_tokens: row r holds the chunk's tokens
 *        [h_row_offsets[r] - h_row_offsets[0], h_row_offsets[r + 1] - h_row_offsets[0]). So for chunk
 *        `info` of a plan, h_row_offsets_all + info.first_row: the offsets need not start at 0.
 * \param num_rows rows in the chunk, 0 to INT32_MAX (rows are int32_t in the outputs).
 * \param h_tokens the chunk's num_tokens word ids in document order, each in [0, num_cols)
 *        (h_tokens_all + info.first_token). May be NULL when num_tokens is 0.
 * \param num_tokens tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS.
 * \param num_cols number of words (columns), >= 0.
 * \param[out] h_perm num_tokens entries; may be NULL when num_tokens is 0.
 * \param[out] h_position_row num_tokens entries; may be NULL when num_tokens is 0.
 * \param[out] h_word_offsets num_cols + 1 entries.
 * \retval SK_SUCCESS the three outputs were written.
 * \retval SK_ERROR_INVALID_VALUE `num_rows`, `num_tokens` or `num_cols` out of range; after the pointer
 *         checks: an output overlaps another of the five arrays, the offsets decrease or span other
 *         than num_tokens tokens, or a token is outside [0, num_cols).
 * \retval SK_ERROR_NULL_POINTER `h_row_offsets` or `h_word_offsets` is NULL, or `h_tokens`, `h_perm` or
 *         `h_position_row` is NULL while num_tokens > 0.
 *
 * Checked in the order listed, all before anything is written, so on any status other than
 * `SK_SUCCESS` the outputs are untouched. Time O(num_rows + num_tokens + num_cols): reads the tokens
 * three times and the offsets twice, writes 8 bytes per token (at scattered positions) and 8 (num_cols
 * + 1) bytes; no scratch. Deterministic. Thread-safe; never calls CUDA.
 */
SK_API sk_status sk_csr_chunk_order_rows_host(const int64_t *h_row_offsets, int64_t num_rows, const int32_t *h_tokens,
                                              int64_t num_tokens, int32_t num_cols, int32_t *h_perm,
                                              int32_t *h_position_row, int64_t *h_word_offsets);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_CSR_CHUNK_ORDER_H */
