/**
 * \file csr_chunker.h
 * \brief CSR streaming chunker: the chunk plan of a CSR matrix under a device byte budget (here), the
 * word order (PDOW) of a chunk's tokens (csr_chunk_order.h) and the order's groups and items, the work
 * units of a sampler that visits the tokens by word (csr_chunk_groups.h); this header includes both.
 * The pipeline that streams the chunks is in csr_pipeline.h.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc. The plan and the host
 * order and groups run on the host and never call CUDA; the `_device` calls and their size queries
 * do.
 */
#ifndef SAMPLEKIT_CSR_CHUNKER_H
#define SAMPLEKIT_CSR_CHUNKER_H

#include <stddef.h>
#include <stdint.h>

#include "csr_chunk_groups.h"
#include "csr_chunk_order.h"
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
 * \snippet test_csr_chunk_groups.c csr_chunk_groups_usage
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
 *        (the row's tokens) for row `*bad_row` (SIZE_MAX when that does not fit in a size_t; at least 1,
 *        also for a row of too many tokens when every cost is 0), or fixed_bytes_per_chunk when
 *        `*bad_row` is -1. A non-zero value tells "budget too small" apart
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

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_CSR_CHUNKER_H */
