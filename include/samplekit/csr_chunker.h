/**
 * \file csr_chunker.h
 * \brief CSR streaming chunker: the chunk plan of a CSR matrix under a device byte budget, the word
 * order (PDOW) of a chunk's tokens, and the order's groups and items (the work units of a sampler
 * that visits the tokens by word), built on the host or on the device. The pipeline that streams
 * the chunks is in csr_pipeline.h.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc. The plan and the host
 * order and groups run on the host and never call CUDA; the `_device` calls and their size queries
 * do.
 */
#ifndef SAMPLEKIT_CSR_CHUNKER_H
#define SAMPLEKIT_CSR_CHUNKER_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_csr_chunker CSR streaming chunker
 * \brief Split a corpus in CSR form (rows = documents, entries = token word ids) into chunks of whole
 * rows that each fit a device byte budget with balanced token counts, and order each chunk's tokens by
 * word (PDOW: partition by document, order by word), as SaberLDA streams corpora larger than GPU memory.
 *
 * After SaberLDA (Chen et al., "SaberLDA: Sparsity-Aware Learning of Topic Models on GPUs", ASPLOS
 * 2017): the documents are partitioned into chunks, and inside a chunk the tokens are stored in word
 * order, with the permutation back to document order kept for counting per document.
 *
 * **The matrix.** `h_row_offsets` has num_rows + 1 entries: row r holds the tokens
 * [h_row_offsets[r], h_row_offsets[r + 1]) of the token array, so h_row_offsets[0] = 0, the offsets are
 * non-decreasing, and T = h_row_offsets[num_rows] is the number of tokens. Rows may be empty.
 *
 * **The plan.** A chunk is a run of whole consecutive rows [first_row, first_row + num_rows) holding
 * the tokens [first_token, first_token + num_tokens). Its device footprint is given by the caller's
 * costs:
 *
 *     bytes(chunk) = fixed_bytes_per_chunk + bytes_per_row * num_rows + bytes_per_token * num_tokens
 *
 * (exact; a footprint that does not fit in a size_t counts as over every budget). A chunk fits when
 * bytes(chunk) <= budget_bytes and num_tokens <= #SK_CSR_CHUNK_MAX_TOKENS, so that positions inside a
 * chunk are int32_t. sk_csr_chunk_plan_create() guarantees, for a matrix with num_rows > 0:
 * - every row is in exactly one chunk; chunk i + 1 starts where chunk i ends; every chunk has at least
 *   one row and fits;
 * - the number of chunks C is the smallest with which any such partition fits, so a matrix whose whole
 *   footprint fits gives exactly one chunk;
 * - **balance:** the largest chunk's token count, L*, is the smallest of all partitions into C chunks
 *   that fit (bottleneck-optimal). In particular, when bytes_per_row is 0 and T > 0,
 *   L* <= ceil(T / C) + longest_row - 1, where longest_row is the largest row's token count. (A
 *   positive bytes_per_row can force a chunk of many short rows to take more than that, and then L* is
 *   still the smallest possible.)
 * - the cuts: chunk k (k = 0 .. C-1) ends at the row boundary whose token offset is nearest to an equal
 *   share of the tokens not yet placed, first_token + floor((T - first_token) / (C - k)), among the
 *   boundaries that keep the chunk within L* tokens and the budget, leave a row for each remaining
 *   chunk and leave a rest that the remaining chunks can cover. A tie between two offsets goes to the
 *   larger; of several boundaries at the chosen offset (empty rows), the first, so that empty rows at
 *   a cut open the next chunk. So when the rows are short compared to T / C, every chunk has about
 *   T / C tokens, not only the largest.
 *
 * **Algorithm.** One pass validates the offsets (O(num_rows)). Everything else works on the offsets by
 * binary search, since a chunk's footprint and tokens grow with its extent: the greedy packing (take
 * the most rows that fit, then start the next chunk) gives C in O(C log num_rows); a binary search for
 * L* between max(longest_row, ceil(T / C)) and the greedy packing's largest chunk runs that greedy
 * packing, capped at L tokens, O(log T) times; a right-to-left greedy packing under L* gives, for each
 * m, the first row from which m chunks can cover the rest; then the cuts above. Total:
 * O(num_rows + C log(num_rows) log(T)) time and O(C) memory; the plan keeps its own copy of the cuts,
 * so `h_row_offsets` need not outlive the call.
 *
 * **The order.** sk_csr_chunk_order_host() takes a chunk's tokens in document order (the chunk's
 * slice of the token array, h_tokens + first_token) and gives the stable sort by word id: the word
 * order lists the tokens of word 0, then of word 1, and so on, and the tokens of one word in document
 * order (their order in the chunk). It is a counting sort: O(num_tokens + num_cols) time, no scratch.
 * sk_csr_chunk_order_device() gives the same three arrays, bit for bit, for a chunk whose tokens are
 * already on the device: a stable least-significant-digit radix sort of (word, position) pairs on the
 * bits that num_cols - 1 needs (CUB's DeviceRadixSort, one pass per 8 bits: 3 passes for 10^5 words),
 * one binary search per word for the offsets, and a scatter for the inverse; about 8 bytes of device
 * workspace and 72 bytes of memory traffic a token at 10^5 words (see its cost).
 *
 * **Groups and items.** In a chunk's word order, the tokens of one word in one row (document) are
 * consecutive (the order is stable). A *group* is such a run: the tokens of word w in row r, for
 * every (r, w) with at least one token. An *item* is a run of consecutive groups of one word, at most
 * `item_tokens` tokens unless it is a single group (a group is never split). These are the work units
 * of SaberLDA's and ESCA's samplers: a warp draws a group's tokens from the row's sparse sums, a
 * block stages the word's row once for an item. On the host, sk_csr_chunk_order_rows_host() sorts a
 * chunk given its rows and gives each position's row with the order; sk_csr_chunk_groups_count_host()
 * and sk_csr_chunk_groups_host() then find the groups and items in a sequential walk, and list the
 * items by decreasing size. On the device, sk_csr_chunk_groups_device() builds the same arrays, bit
 * for bit, from the device order, the row offsets and the tokens (see each call for its contract).
 *
 * Usage (plan a corpus, then order each chunk):
 * \snippet test_csr_chunker.c csr_chunker_usage
 *
 * Usage (a chunk's groups and items on the host, sized by the count first):
 * \snippet test_csr_chunker.c csr_chunk_groups_usage
 * @{
 */

/**
 * \brief The most tokens a chunk may have: INT32_MAX, so that positions inside a chunk fit in int32_t
 * (the permutations of sk_csr_chunk_order_host() and the device kernels that index a chunk).
 */
#define SK_CSR_CHUNK_MAX_TOKENS INT32_MAX

/**
 * \brief A chunk plan: the cuts of a CSR matrix into chunks of whole rows. Opaque; made by
 * sk_csr_chunk_plan_create(), released by sk_csr_chunk_plan_destroy().
 *
 * A plan is immutable once made: any number of threads may query one plan at the same time.
 */
typedef struct sk_csr_chunk_plan sk_csr_chunk_plan;

/**
 * \brief One chunk of a plan, as sk_csr_chunk_plan_chunk() reports it.
 */
typedef struct sk_csr_chunk_info {
  int64_t first_row;   /**< the chunk's first row (document) */
  int64_t num_rows;    /**< rows in the chunk, >= 1 */
  int64_t first_token; /**< h_row_offsets[first_row]: the chunk's first token in the token array */
  int64_t num_tokens;  /**< tokens in the chunk, 0 to #SK_CSR_CHUNK_MAX_TOKENS */
  size_t bytes;        /**< the chunk's footprint (group formula), <= the plan's budget */
} sk_csr_chunk_info;

SK_EXTERN_C_BEGIN

/**
 * \brief Plans the chunks of a host CSR matrix under a device byte budget (group rules: fewest
 * chunks, then the smallest largest token count, then cuts near equal shares).
 *
 * \param h_row_offsets host array of num_rows + 1 row offsets: h_row_offsets[0] = 0, non-decreasing.
 *        Read only during the call.
 * \param num_rows number of rows (documents), 0 to INT64_MAX - 1. 0 gives a plan of 0 chunks.
 * \param bytes_per_token device bytes each token costs (for example 4 for its word id plus 2 for its
 *        topic plus the permutation), any value.
 * \param bytes_per_row device bytes each row costs (for example its offset and its sparse row), any
 *        value.
 * \param fixed_bytes_per_chunk device bytes each chunk costs whatever its size (for example dense
 *        tables and workspaces), any value up to `budget_bytes`.
 * \param budget_bytes the device bytes one chunk may use.
 * \param[out] plan receives the new plan on `SK_SUCCESS`, and NULL on every other status (when `plan`
 *        itself is not NULL). Release it with sk_csr_chunk_plan_destroy().
 * \param[out] bad_row optional (may be NULL): on every return, -1, except when the budget is too small
 *        for a row: then the first row that does not fit in a chunk of its own.
 * \param[out] bad_row_bytes optional (may be NULL): on every return, 0, except when the budget is too
 *        small: then the bytes needed, fixed_bytes_per_chunk + bytes_per_row + bytes_per_token *
 *        (the row's tokens) for row `*bad_row` (SIZE_MAX when that does not fit in a size_t), or
 *        fixed_bytes_per_chunk when `*bad_row` is -1. A non-zero value tells "budget too small" apart
 *        from the other causes of `SK_ERROR_INVALID_VALUE`.
 * \retval SK_SUCCESS `*plan` holds the plan.
 * \retval SK_ERROR_NULL_POINTER `plan` or `h_row_offsets` is NULL.
 * \retval SK_ERROR_INVALID_VALUE either a malformed matrix, with `*bad_row_bytes` = 0: `num_rows` < 0
 *         or = INT64_MAX, h_row_offsets[0] != 0, or an offset below the one before it; or a budget
 *         too small, with `*bad_row_bytes` != 0: fixed_bytes_per_chunk > budget_bytes (`*bad_row` = -1,
 *         whatever num_rows), or a row that does not fit in a chunk of its own because its footprint
 *         exceeds the budget or it has more than #SK_CSR_CHUNK_MAX_TOKENS tokens (`*bad_row` = the
 *         first such row; in the second case its bytes may be within the budget).
 * \retval SK_ERROR_HOST_ALLOCATION_FAILED the plan's memory (O(C)) could not be allocated.
 *
 * Checked in the order listed: the pointers, num_rows, the offsets (one pass), the fixed cost, the
 * rows. Time O(num_rows + C log(num_rows) log(T)), memory O(C) (group). Deterministic: the plan
 * depends only on the arguments. Thread-safe; never calls CUDA.
 */
SK_API sk_status sk_csr_chunk_plan_create(const int64_t *h_row_offsets, int64_t num_rows, size_t bytes_per_token,
                                          size_t bytes_per_row, size_t fixed_bytes_per_chunk, size_t budget_bytes,
                                          sk_csr_chunk_plan **plan, int64_t *bad_row, size_t *bad_row_bytes);

/**
 * \brief Releases a plan made by sk_csr_chunk_plan_create().
 * \param plan the plan, or NULL (nothing happens). Must not be used afterwards.
 */
SK_API void sk_csr_chunk_plan_destroy(sk_csr_chunk_plan *plan);

/**
 * \brief Number of chunks of a plan.
 * \param plan the plan.
 * \param[out] num_chunks receives C: at least 1 when the matrix has a row, 0 when it has none.
 * \retval SK_SUCCESS `*num_chunks` was written.
 * \retval SK_ERROR_NULL_POINTER `plan` or `num_chunks` is NULL.
 *
 * O(1). Thread-safe.
 */
SK_API sk_status sk_csr_chunk_plan_num_chunks(const sk_csr_chunk_plan *plan, int64_t *num_chunks);

/**
 * \brief Describes chunk `index` of a plan: its rows, its tokens and its footprint.
 * \param plan the plan.
 * \param index the chunk, 0 to C - 1; chunks are in row order.
 * \param[out] info receives the chunk's description; left unchanged unless `SK_SUCCESS` is returned.
 * \retval SK_SUCCESS `*info` was written.
 * \retval SK_ERROR_NULL_POINTER `plan` or `info` is NULL.
 * \retval SK_ERROR_INVALID_VALUE `index` is outside [0, C).
 *
 * Checked in the order listed. O(1). Thread-safe.
 */
SK_API sk_status sk_csr_chunk_plan_chunk(const sk_csr_chunk_plan *plan, int64_t index, sk_csr_chunk_info *info);

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
 *         output array overlaps another array or the workspace's `workspace_bytes` bytes.
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

#endif /* SAMPLEKIT_CSR_CHUNKER_H */
