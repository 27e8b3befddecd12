/**
 * \file csr_pipeline.h
 * \brief CSR streaming pipeline: the chunks of a chunk plan streamed through the GPU by W workers
 * (CUDA streams) that copy each chunk in, call the caller's function on it and copy its results out; or,
 * when the corpus fits in one chunk, kept resident on the device across iterations.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc, and needs no CUDA header.
 * The functions declared here call the CUDA runtime (after checking their arguments).
 */
#ifndef SAMPLEKIT_CSR_PIPELINE_H
#define SAMPLEKIT_CSR_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "csr_chunker.h"
#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_csr_pipeline CSR streaming pipeline
 * \brief Run the caller's device work over every chunk of a CSR corpus that may not fit in GPU memory:
 * chunks are copied in by W workers (CUDA streams) so that one chunk's copies overlap other chunks'
 * compute, as SaberLDA streams its corpus; a corpus that fits in one chunk stays on the device.
 *
 * After SaberLDA (Chen et al., "SaberLDA: Sparsity-Aware Learning of Topic Models on GPUs", ASPLOS
 * 2017), which keeps a few chunk buffers on the device and overlaps the copy of one chunk with the
 * sampling of another. The chunks are those of an #sk_csr_chunk_plan (\ref sk_csr_chunker).
 *
 * **The data.** The host CSR matrix (row offsets, int64, and tokens, int32 word ids) and up to
 * #SK_CSR_PIPELINE_MAX_ARRAYS caller-declared host arrays (#sk_csr_pipeline_array), each with one
 * element per token (#SK_CSR_PIPELINE_PER_TOKEN), one per row (#SK_CSR_PIPELINE_PER_ROW), or a
 * slice of the caller's own size per chunk (#SK_CSR_PIPELINE_PER_CHUNK: chunk i's slice is elements
 * [chunk_offsets[i], chunk_offsets[i + 1]), for data that is neither per token nor per row, such as a
 * per-chunk work plan), each copied in (#SK_CSR_PIPELINE_IN), out (#SK_CSR_PIPELINE_OUT) or both
 * (#SK_CSR_PIPELINE_IN_OUT). The row offsets and the per-chunk arrays' `chunk_offsets` are read only
 * while the pipeline is made (it keeps each chunk's row offsets rebased to 0, as int32, in pinned
 * memory, and a copy of each `chunk_offsets`); the tokens and the declared arrays are the caller's and
 * must stay valid until the pipeline is destroyed, and the tokens must not change.
 *
 * The tokens are optional without an order: when sk_csr_pipeline_create() gets `h_tokens` NULL and
 * #SK_CSR_PIPELINE_ORDER_NONE, they are never copied (their device region has 0 bytes) and the view's
 * `d_tokens` is NULL, which saves 4 bytes per token of copies in for a caller whose own arrays carry
 * what its function needs. With an order the tokens are needed (the order is built from them).
 *
 * **A run.** sk_csr_pipeline_run() processes every chunk once (one iteration). For chunk i it calls
 * the caller's #sk_csr_pipeline_fn with an #sk_csr_chunk_view (device pointers to the chunk's rebased
 * row offsets, its tokens, its slice of each declared array, its word order if one was asked for, and
 * the worker's scratch space) and the worker's stream, on which the function enqueues its work.
 *
 * **Workers.** The pipeline makes W' = min(W, C) workers for a plan of C chunks. Each has a stream
 * (created non-blocking), one device buffer (#sk_csr_pipeline_info::device_bytes_per_worker), one
 * pinned host staging buffer and one event. Chunk i goes to worker i mod W'. For each chunk, in chunk
 * order, the calling thread:
 * 1. waits for the event of the worker's previous chunk, i - W' (the only wait in the loop: no device
 *    or stream synchronisation), and copies that chunk's staged outputs to the host arrays;
 * 2. enqueues on the worker's stream: the copies in (the chunk's rebased row offsets, its tokens unless
 *    there are none, its slice of each in and in-out array, and with the host order its permutations
 *    and word offsets) and, with the device order, the order's build;
 * 3. calls the function;
 * 4. enqueues the copies of its slices of the out and in-out arrays back to the host, and the event.
 *
 * So while the thread waits for one worker, the other W' - 1 workers' chunks are queued or running:
 * a chunk's copy in overlaps other chunks' compute and copies out, and the copy engines of both
 * directions stay busy. W = 1 runs the chunks one after the other. In the worker's buffer the
 * regions (scratch, offsets, tokens, each array, the order) are packed for each chunk, 256-byte
 * aligned, each sized by the chunk's rows, tokens or per-chunk slice, so the buffer holds the chunk
 * of the plan that needs the most bytes; the next chunk of a worker reuses it in stream order.
 *
 * **Staging.** A host array (or the tokens) is copied directly with `cudaMemcpyAsync` when CUDA can
 * copy it asynchronously: when cudaPointerGetAttributes() reports both its first and its last byte as
 * other than `cudaMemoryTypeUnregistered` (memory from cudaHostAlloc() or cudaMallocHost(), registered
 * with cudaHostRegister(), or managed). Pageable memory goes through the worker's staging
 * buffer: inputs are copied (memcpy) into it once the worker's previous chunk has finished, then
 * copied in asynchronously; outputs are copied into it asynchronously and out (memcpy) once the chunk
 * has finished. A staging buffer is never written while a copy may still read it. Each array is
 * classified once, when the pipeline is made.
 *
 * **Order.** With an order (#sk_csr_pipeline_order), the view carries the chunk's word order exactly
 * as sk_csr_chunk_order_host() defines it: `d_perm`, `d_inverse` and `d_word_offsets`. Where it is
 * built decides what it costs per run:
 * - #SK_CSR_PIPELINE_ORDER_HOST: built on the host for every chunk when the pipeline is made, cached in
 *   pinned memory, and copied in with each chunk (8 bytes per token and 8 (num_cols + 1) per chunk);
 *   in resident mode, copied once.
 * - #SK_CSR_PIPELINE_ORDER_DEVICE: built on the device with sk_csr_chunk_order_device() after the
 *   tokens arrive. In resident mode once, and kept. In streaming mode it is built again for each chunk
 *   at every run (a device sort instead of 8 bytes per token of copies in): a device-built order could
 *   only be cached on the host, and then it would have to be copied in like the host order.
 * - #SK_CSR_PIPELINE_ORDER_AUTO: the device order, in both modes. bench_csr_chunk_order measured it
 *   (H200, bench/RESULTS.md) about 100x faster to build than the host order, and in streaming mode
 *   faster to rebuild for each chunk (7.2 ms per 10^8 tokens) than to copy a cached host order in
 *   (14.4 ms of PCIe time, which a transfer-bound job cannot spare).
 *
 * sk_csr_pipeline_chunk_costs() reserves, for DEVICE and AUTO, 10 bytes per token plus 1 MiB per
 * chunk for the device order's workspace (its sort buffers and CUB's storage; it shares the scratch
 * region).
 *
 * **Resident mode.** When the plan has one chunk, the pipeline is resident: one worker; the first run
 * copies the chunk in (offsets, tokens unless there are none, order, in and in-out arrays) and later
 * runs copy nothing; the out and in-out arrays stay on the device, so each run continues from the
 * previous run's device values. sk_csr_pipeline_download() copies them to the host;
 * sk_csr_pipeline_upload() copies changed host inputs to the device. A per-chunk array is resident
 * like the others: its one slice, elements [chunk_offsets[0], chunk_offsets[1]), is what is copied in,
 * downloaded and uploaded. In streaming mode (two chunks or more), every run copies every chunk in
 * and out, sk_csr_pipeline_download() and sk_csr_pipeline_upload() copy nothing, and a run reads the
 * host in and in-out arrays as they are when it starts.
 *
 * What the host arrays hold, by mode, after a call that returns `SK_SUCCESS`:
 * | call | streaming mode | resident mode |
 * |---|---|---|
 * | sk_csr_pipeline_run() | out and in-out arrays: this run's results | unchanged; the results are on the device |
 * | sk_csr_pipeline_download() | unchanged (the last run already wrote them) | out and in-out arrays: the last successful run's results |
 * | sk_csr_pipeline_upload() | unchanged, nothing copied | unchanged; the device copies of the named in and in-out arrays now equal them |
 *
 * **Traffic.** A streaming run copies, per chunk of r rows and n tokens, with e_a the number of
 * elements of array a's slice (n per token, r per row, chunk_offsets[i + 1] - chunk_offsets[i] per
 * chunk; #sk_csr_chunk_view::array_elements): in, 4 (r + 1) bytes, plus 4 n for the tokens (none
 * without tokens), plus e_a times the element bytes of each in and in-out array a, plus
 * 8 n + 8 (num_cols + 1) with the host order; out, e_a times the element bytes of each out and in-out
 * array a. A resident run copies the same in bytes when it has to upload (its first run, and the run
 * after a failed one) and 0 otherwise, and copies nothing out. #sk_csr_pipeline_info::last_h2d_bytes
 * and #sk_csr_pipeline_info::last_d2h_bytes report the bytes of the last run, upload or download.
 *
 * **Failures: nothing half-written.** A run stops at the first failure: a caller function that returns
 * a status other than `SK_SUCCESS` (no later chunk starts; its chunk's outputs are not copied back), a
 * CUDA error pending after the function returns, a failed CUDA call of the pipeline's own, or a CUDA
 * error reported by a chunk's completion. It then waits for every worker to finish what was already
 * queued (so nothing the run started is still running when it returns) and returns the first failure.
 * Chunks are completed in chunk order, so the chunks completed by a failed run are chunks
 * 0 .. n - 1, reported as n: each of them had its function succeed and its device work and copies
 * finish without a CUDA error, and its slices of every out and in-out host array hold its results,
 * whole. The slices of chunks n and later are unchanged, with one exception that CUDA imposes: if a
 * CUDA error occurs during the run (sk_last_cuda_error() then records it, even if the run returns the
 * caller's status), the slices of chunks n .. n + W' - 1 in arrays copied directly (not through
 * staging) are unspecified, since CUDA does not say how much of an interrupted copy landed. Pageable
 * arrays are never partly written: a chunk's staged outputs are copied out only once it has completed.
 * After a failure the pipeline stays usable and destroyable; after a CUDA error that is sticky (a
 * fault in a kernel), CUDA itself can no longer be used by the process.
 *
 * **Threading and device.** A pipeline belongs to the device that was current when it was made; its
 * calls make that device current for their duration and restore the caller's. Calls on one pipeline
 * must not overlap; different pipelines may be used from different threads. The function is called on
 * the thread that called sk_csr_pipeline_run(), one chunk at a time, in chunk order; it must not call
 * this pipeline's functions.
 *
 * Usage (make the plan with the pipeline's costs, run a few iterations, fetch the results):
 * \snippet test_csr_pipeline.cu csr_pipeline_usage
 * @{
 */

/** \brief The most arrays a pipeline can carry besides the tokens. */
#define SK_CSR_PIPELINE_MAX_ARRAYS 16

/** \brief The most workers (streams) a pipeline can have. */
#define SK_CSR_PIPELINE_MAX_WORKERS 16

/**
 * \brief A pipeline: the workers, their buffers and the cached chunk data. Opaque; made by
 * sk_csr_pipeline_create(), released by sk_csr_pipeline_destroy().
 */
typedef struct sk_csr_pipeline sk_csr_pipeline;

/** \brief Which way a declared array is copied. */
typedef enum sk_csr_pipeline_direction {
  SK_CSR_PIPELINE_IN = 1,    /**< host to device before the function; never written on the host */
  SK_CSR_PIPELINE_OUT = 2,   /**< device to host after the function; its device slice is unspecified on entry */
  SK_CSR_PIPELINE_IN_OUT = 3 /**< both: copied in, then back */
} sk_csr_pipeline_direction;

/** \brief How many elements a declared array has, and how it is sliced by chunk. */
typedef enum sk_csr_pipeline_extent {
  SK_CSR_PIPELINE_PER_TOKEN = 0, /**< one per token: T elements, a chunk's slice has info.num_tokens */
  SK_CSR_PIPELINE_PER_ROW = 1,   /**< one per row: num_rows elements, a chunk's slice has info.num_rows */
  SK_CSR_PIPELINE_PER_CHUNK = 2  /**< the caller's sizes: chunk_offsets[C] elements, chunk i's slice has
                                      chunk_offsets[i + 1] - chunk_offsets[i] (#sk_csr_pipeline_array) */
} sk_csr_pipeline_extent;

/** \brief Whether, and where, each chunk's word order (PDOW) is built (group: Order). */
typedef enum sk_csr_pipeline_order {
  SK_CSR_PIPELINE_ORDER_NONE = 0,  /**< no order: the view's order pointers are NULL */
  SK_CSR_PIPELINE_ORDER_AUTO = 1,  /**< DEVICE (the measured faster; see the group's description) */
  SK_CSR_PIPELINE_ORDER_HOST = 2,  /**< built on the host once, cached in pinned memory, copied in */
  SK_CSR_PIPELINE_ORDER_DEVICE = 3 /**< built on the device: once in resident mode, per chunk and run otherwise */
} sk_csr_pipeline_order;

/**
 * \brief A caller-declared host array that the pipeline slices by chunk and copies.
 *
 * Element k of a per-token array belongs to token k of the token array; element k of a per-row array
 * to row k. Chunk `info`'s slice is elements [first, first + count) with first = info.first_token and
 * count = info.num_tokens (per token), or info.first_row and info.num_rows (per row). A per-chunk
 * array's slices are the caller's: chunk i's slice (i = #sk_csr_chunk_view::index) is elements
 * [chunk_offsets[i], chunk_offsets[i + 1]), of any size, 0 included; the pipeline never reads or writes
 * its elements before chunk_offsets[0].
 *
 * `chunk_offsets` is the last member, so an initialiser of the first four (`{h_data, element_bytes,
 * extent, direction}`) leaves it NULL, as the other extents want it. (GCC's -Wextra warns about such an
 * initialiser, -Wmissing-field-initializers; designated initialisers, or a fifth NULL, avoid that.)
 *
 * Declaring per-chunk arrays beside per-token and per-row ones (and a job that needs no tokens):
 * \snippet test_csr_pipeline_chunk_arrays.cu csr_pipeline_chunk_arrays
 */
typedef struct sk_csr_pipeline_array {
  void *h_data;                          /**< the host array; never written when `direction` is IN */
  size_t element_bytes;                  /**< bytes per element, >= 1 */
  sk_csr_pipeline_extent extent;         /**< one element per token, per row, or the caller's slices per chunk */
  sk_csr_pipeline_direction direction;   /**< copied in, out, or both */
  const int64_t *chunk_offsets;          /**< per chunk only (ignored for the other extents): C + 1
                                              nondecreasing offsets, chunk_offsets[0] >= 0, where C is the
                                              plan's number of chunks; the host array has chunk_offsets[C]
                                              elements. Read only by sk_csr_pipeline_create(), which keeps a
                                              copy (it need not outlive that call). */
} sk_csr_pipeline_array;

/**
 * \brief What the caller's function gets for one chunk: where the chunk is on the device.
 *
 * Every device pointer is 256-byte aligned and valid until the function's work on `stream` has run
 * (it belongs to the worker, whose next chunk is copied in after, in stream order). A region of 0 bytes
 * (a chunk of empty rows has no tokens; a per-chunk slice of 0 elements) still has a non-NULL pointer,
 * which must not be dereferenced; only `d_tokens` of a pipeline without tokens, and the pointers that
 * the members' descriptions say are NULL, are NULL.
 * The function must not write the const regions; in resident mode such a write would persist.
 */
typedef struct sk_csr_chunk_view {
  int64_t index;                 /**< the chunk, 0 to C - 1 */
  int worker;                    /**< the worker running it: index mod W' */
  sk_csr_chunk_info info;        /**< the plan's description of the chunk (global rows and tokens) */
  int32_t num_cols;              /**< number of words, as given to sk_csr_pipeline_create() */
  const int32_t *d_row_offsets;  /**< info.num_rows + 1 offsets rebased to 0: row info.first_row + r holds
                                      the chunk's tokens [d_row_offsets[r], d_row_offsets[r + 1]) */
  const int32_t *d_tokens;       /**< the chunk's info.num_tokens word ids, in document order; NULL when the
                                      pipeline has no tokens (h_tokens NULL without an order) */
  int num_arrays;                /**< the number of declared arrays */
  void *d_arrays[SK_CSR_PIPELINE_MAX_ARRAYS]; /**< d_arrays[a]: the chunk's slice of declared array a
                                      (in and in-out: copied in; out: unspecified); NULL past num_arrays */
  const int32_t *d_perm;         /**< with an order: info.num_tokens entries, as sk_csr_chunk_order_host()'s
                                      h_perm for the chunk; NULL without */
  const int32_t *d_inverse;      /**< with an order: info.num_tokens entries (h_inverse); NULL without */
  const int64_t *d_word_offsets; /**< with an order: num_cols + 1 entries (h_word_offsets); NULL without */
  void *d_scratch;               /**< the worker's scratch space, unspecified on entry; NULL when scratch_bytes is 0 */
  size_t scratch_bytes;          /**< its size, as given to sk_csr_pipeline_create() */
  int64_t array_elements[SK_CSR_PIPELINE_MAX_ARRAYS]; /**< array_elements[a]: the number of elements of
                                      d_arrays[a] (info.num_tokens per token, info.num_rows per row,
                                      chunk_offsets[index + 1] - chunk_offsets[index] per chunk); 0 past
                                      num_arrays */
} sk_csr_chunk_view;

/**
 * \brief The caller's work on one chunk: enqueue it on `stream` and return.
 *
 * Called on the thread that called sk_csr_pipeline_run(), once per chunk and run, in chunk order. It
 * should only enqueue work on `stream` (work on other streams is not ordered with the copies); its
 * results must be in the out and in-out slices when that work has run. It must write every element of
 * an out-only slice that the caller wants back: the whole slice is copied back.
 * \param chunk the chunk's view; valid during the call only.
 * \param stream the worker's stream (a `cudaStream_t`).
 * \param user the pointer given to sk_csr_pipeline_run().
 * \return `SK_SUCCESS`, or any other status to stop the run: sk_csr_pipeline_run() then returns it.
 */
typedef sk_status (*sk_csr_pipeline_fn)(const sk_csr_chunk_view *chunk, sk_stream stream, void *user);

/**
 * \brief A pipeline's shape and traffic, as sk_csr_pipeline_get_info() reports it.
 */
typedef struct sk_csr_pipeline_info {
  int64_t num_chunks;              /**< C, the plan's number of chunks */
  int num_workers;                 /**< W' = min(W, C): workers made (0 when C is 0) */
  int resident;                    /**< 1 when C is 1 (resident mode), else 0 */
  sk_csr_pipeline_order order;     /**< the order in use: NONE, HOST or DEVICE (AUTO resolved) */
  size_t device_bytes_per_worker;  /**< device bytes of each worker's buffer (scratch included) */
  size_t staging_bytes_per_worker; /**< pinned host bytes of each worker's staging buffer (0 when
                                        every array and the tokens are copied directly) */
  size_t cache_bytes;              /**< pinned host bytes of the cache: rebased offsets, host order */
  uint64_t last_h2d_bytes;         /**< bytes copied to the device by the last run, upload or download */
  uint64_t last_d2h_bytes;         /**< bytes copied to the host by the last run, upload or download */
} sk_csr_pipeline_info;

SK_EXTERN_C_BEGIN

/**
 * \brief The per-token, per-row and per-chunk device costs of a pipeline's chunk, to give to
 * sk_csr_chunk_plan_create() so that every chunk of the plan fits a worker of `budget_bytes`.
 *
 * With R = 4 + num_arrays device regions (scratch, row offsets, tokens, the arrays), plus 3 with an
 * order (permutation, inverse, word offsets):
 * - `*bytes_per_token` = 4 + the element bytes of the per-token arrays + (8 with an order) + (10 with
 *   the device order, DEVICE or AUTO: its workspace's sort buffers and CUB's storage, a bound);
 * - `*bytes_per_row` = 4 + the element bytes of the per-row arrays;
 * - `*fixed_bytes_per_chunk` = 4 + scratch_bytes + (8 (num_cols + 1) with an order) + (1 MiB with the
 *   device order: its workspace's fixed part) + 255 R (alignment).
 *
 * A chunk's footprint under these costs bounds the device bytes a worker needs for it, so a plan made
 * with them and budget B gives #sk_csr_pipeline_info::device_bytes_per_worker <= B. The device order's
 * workspace (sk_csr_chunk_order_device_workspace_size()) shares the scratch region, so its terms above
 * bound it without a larger `scratch_bytes`. One exception: a per-chunk array
 * (#SK_CSR_PIPELINE_PER_CHUNK) adds only its region's alignment (in R): its slices' sizes are not known
 * before the plan is made, so the caller adds its own bound on a chunk's slice
 * bytes (to `*fixed_bytes_per_chunk`, or per token or row when it grows with them) before making the
 * plan; sk_csr_pipeline_create() then checks the actual slices against `device_budget_bytes`.
 *
 * The 4 bytes per token of the tokens are counted even though a pipeline made without tokens
 * (`h_tokens` NULL, no order) copies none and gives them 0 bytes: the costs are then an upper bound.
 * \param arrays the declared arrays (only `element_bytes`, `extent` and `direction` are read, never
 *        `chunk_offsets`); may be NULL when num_arrays is 0.
 * \param num_arrays 0 to #SK_CSR_PIPELINE_MAX_ARRAYS.
 * \param num_cols number of words, >= 0.
 * \param order the order wanted (any value of #sk_csr_pipeline_order; DEVICE and AUTO cost the same, HOST
 *        less: no workspace).
 * \param scratch_bytes device scratch bytes per worker for the caller.
 * \param[out] bytes_per_token receives the cost per token.
 * \param[out] bytes_per_row receives the cost per row.
 * \param[out] fixed_bytes_per_chunk receives the cost per chunk.
 * \retval SK_SUCCESS the three costs were written.
 * \retval SK_ERROR_NULL_POINTER an output is NULL, or `arrays` is NULL while num_arrays > 0.
 * \retval SK_ERROR_INVALID_VALUE num_arrays, num_cols or order out of range; an array with
 *         element_bytes 0 or an extent or direction outside its enum; or a cost overflows a size_t.
 *
 * Checked in the order listed; the outputs are written only on `SK_SUCCESS`. O(num_arrays). Never
 * calls CUDA; thread-safe.
 */
SK_API sk_status sk_csr_pipeline_chunk_costs(const sk_csr_pipeline_array *arrays, int num_arrays, int32_t num_cols,
                                             sk_csr_pipeline_order order, size_t scratch_bytes,
                                             size_t *bytes_per_token, size_t *bytes_per_row,
                                             size_t *fixed_bytes_per_chunk);

/**
 * \brief Makes a pipeline for the chunks of `plan`: its workers, their device and staging buffers, and
 * the cached chunk data (rebased offsets; the host order when it is used).
 *
 * \param plan a chunk plan of the matrix given by `h_row_offsets` (the pipeline copies what it needs;
 *        the plan may be destroyed afterwards).
 * \param h_row_offsets the matrix's num_rows + 1 row offsets, as given to sk_csr_chunk_plan_create();
 *        read only during the call.
 * \param h_tokens the T = h_row_offsets[num_rows] word ids; read by every streaming run and by resident
 *        uploads, so it must stay valid and unchanged until the pipeline is destroyed. With an order, may
 *        be NULL only when T is 0. Without one (#SK_CSR_PIPELINE_ORDER_NONE) may be NULL whatever T: the
 *        pipeline then has no tokens (never copied, a 0-byte region, the view's `d_tokens` NULL).
 * \param num_cols number of words, >= 0. With an order, every token must be in [0, num_cols).
 * \param arrays the declared arrays, copied into the pipeline (their `h_data` must stay valid until the
 *        pipeline is destroyed; a per-chunk array's `chunk_offsets`, C + 1 entries, are read and copied
 *        during the call only); may be NULL when num_arrays is 0. An array spans T, num_rows or
 *        chunk_offsets[C] elements from `h_data` (per token, row or chunk); an out or in-out array must
 *        not overlap any other array, the tokens or the row offsets.
 * \param num_arrays 0 to #SK_CSR_PIPELINE_MAX_ARRAYS.
 * \param num_workers W, 1 to #SK_CSR_PIPELINE_MAX_WORKERS; the pipeline makes min(W, C).
 * \param order the order wanted (group: Order).
 * \param scratch_bytes device bytes of scratch space per worker for the function (0 for none).
 * \param device_budget_bytes the most device bytes one worker may use (usually the plan's budget;
 *        SIZE_MAX for no limit).
 * \param[out] pipeline receives the pipeline on `SK_SUCCESS`, NULL on every other status (when
 *        `pipeline` itself is not NULL). Release it with sk_csr_pipeline_destroy().
 * \retval SK_SUCCESS `*pipeline` holds the pipeline.
 * \retval SK_ERROR_NULL_POINTER `pipeline`, `plan` or `h_row_offsets` is NULL; after the value checks
 *         below: `arrays` is NULL while num_arrays > 0; after the matrix checks: `h_tokens` is NULL while
 *         T > 0 with an order, a per-chunk array's `chunk_offsets` is NULL, or an array's `h_data` is
 *         NULL while it has elements.
 * \retval SK_ERROR_INVALID_VALUE num_cols < 0, num_workers or num_arrays out of range, `order` not one of
 *         the enum, or an array with element_bytes 0 or an extent or direction outside its enum; the
 *         plan does not match `h_row_offsets` (h_row_offsets[0] != 0, decreasing offsets, or a chunk's
 *         rows or tokens not those of the offsets); a per-chunk array's `chunk_offsets` has
 *         chunk_offsets[0] < 0 or decreases; an array's byte size overflows a size_t; an out or in-out
 *         array overlaps another array, the tokens or the offsets; with an order, a token outside
 *         [0, num_cols); the device bytes a worker needs for the chunk that needs the most (its
 *         per-chunk slices and the device order's workspace included) overflow, or exceed
 *         `device_budget_bytes`.
 * \retval SK_ERROR_NO_DEVICE no CUDA device (the first CUDA call, after every check above).
 * \retval SK_ERROR_CUDA_ALLOCATION_FAILED a device buffer or pinned host memory (staging, cache) could
 *         not be allocated; everything allocated so far was freed.
 * \retval SK_ERROR_HOST_ALLOCATION_FAILED the pipeline's own host memory could not be allocated;
 *         everything allocated so far was freed.
 * \retval SK_ERROR_CUDA another CUDA call failed (see sk_last_cuda_error()); everything was freed.
 *
 * Checked in this order: `pipeline`; `plan` and `h_row_offsets`; the values; `arrays`; each array's
 * enums; the matrix against the plan; `h_tokens`, then per array its `chunk_offsets` (per chunk: NULL,
 * then its values), its byte size and `h_data`; the overlaps; the tokens (with an order); the device
 * bytes. All of it before CUDA is touched (except, with the device order,
 * sk_csr_chunk_order_device_workspace_size(), which asks CUB and so the device), so a 1xx status means
 * nothing was allocated.
 *
 * Cost: O(num_rows + C num_arrays + num_arrays^2) host time for the checks, O(T) more with an order
 * (the token check) and O(T + C num_cols) more with the host order (its build, cached); device memory
 * W' x #sk_csr_pipeline_info::device_bytes_per_worker; pinned host memory
 * W' x #sk_csr_pipeline_info::staging_bytes_per_worker plus the cache: 4 (num_rows + C) bytes, plus
 * 8 T + 8 C (num_cols + 1) with the host order; host memory 8 (C + 1) bytes per per-chunk array (its
 * copy of `chunk_offsets`). Synchronous. Thread-safe (it touches only its arguments).
 */
SK_API sk_status sk_csr_pipeline_create(const sk_csr_chunk_plan *plan, const int64_t *h_row_offsets,
                                        const int32_t *h_tokens, int32_t num_cols,
                                        const sk_csr_pipeline_array *arrays, int num_arrays, int num_workers,
                                        sk_csr_pipeline_order order, size_t scratch_bytes,
                                        size_t device_budget_bytes, sk_csr_pipeline **pipeline);

/**
 * \brief Releases a pipeline: waits for its workers, then frees its device and pinned memory.
 * \param pipeline the pipeline, or NULL (nothing happens). Must not be used afterwards.
 *
 * Never fails: CUDA errors on the way (after a sticky error, for example) are ignored and the host
 * memory is freed regardless. Synchronous.
 */
SK_API void sk_csr_pipeline_destroy(sk_csr_pipeline *pipeline);

/**
 * \brief Runs one iteration: calls `fn` for every chunk, with the copies in and out that the mode asks
 * for (group: A run, Workers, Resident mode), and returns when everything it started has finished.
 * \param pipeline the pipeline.
 * \param fn the caller's function.
 * \param user passed to `fn` unchanged.
 * \param[out] num_chunks_done optional (may be NULL): on every return after the pointer checks, the
 *        number n of chunks completed, 0 .. n - 1 (group: Failures); C on `SK_SUCCESS`.
 * \return the first failure met (group: Failures): one of the statuses below; or the status other than
 *         `SK_SUCCESS` that `fn` returned for a chunk k (then no chunk after k was started, and
 *         `*num_chunks_done` is k unless an earlier chunk then failed to complete); or, with the device
 *         order, a failure of sk_csr_chunk_order_device() as it returned it; or another 2xx status as
 *         sk_status_from_cuda_error() maps a CUDA error.
 * \retval SK_SUCCESS every chunk was processed: in streaming mode the host out and in-out arrays hold
 *         the results; in resident mode the device copies do.
 * \retval SK_ERROR_NULL_POINTER `pipeline` or `fn` is NULL.
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was started.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED a launch error was pending after `fn` returned, or a chunk's device
 *         work failed (see sk_last_cuda_error()).
 * \retval SK_ERROR_CUDA a CUDA call of the pipeline failed (see sk_last_cuda_error()).
 *
 * On failure, what the host arrays hold is the group's "nothing half-written" rule; a non-sticky CUDA
 * error is cleared (still recorded for sk_last_cuda_error()). In resident mode a failed run leaves the
 * device copies unspecified and the next run uploads everything again from the host arrays.
 * Cost: the group's Traffic; per chunk one event wait and, for pageable arrays, one host memcpy of each
 * slice; no device-wide synchronisation. Not thread-safe for one pipeline (group).
 */
SK_API sk_status sk_csr_pipeline_run(sk_csr_pipeline *pipeline, sk_csr_pipeline_fn fn, void *user,
                                     int64_t *num_chunks_done);

/**
 * \brief Resident mode: copies the device's out and in-out arrays to the host arrays. Streaming mode:
 * nothing to copy (the runs wrote the host arrays).
 *
 * In resident mode it copies only when the last run succeeded and no upload has failed since; otherwise
 * (no run yet, or the last run failed, so the device holds no complete results) it copies nothing and
 * the host arrays keep their values. Pageable arrays are written only once every copy has finished.
 * \param pipeline the pipeline.
 * \retval SK_SUCCESS copied (or nothing to copy).
 * \retval SK_ERROR_NULL_POINTER `pipeline` is NULL.
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was copied.
 * \retval SK_ERROR_CUDA a copy failed (or another 2xx status, as sk_status_from_cuda_error() maps CUDA's
 *         error; see sk_last_cuda_error()): pageable arrays are unchanged; arrays copied directly are
 *         unspecified.
 *
 * Synchronous. Traffic: the bytes of every out and in-out array's one slice, once (the whole array; for
 * a per-chunk array, its elements [chunk_offsets[0], chunk_offsets[1])).
 */
SK_API sk_status sk_csr_pipeline_download(sk_csr_pipeline *pipeline);

/**
 * \brief Resident mode: copies host in and in-out arrays to the device, after the caller changed them.
 * Streaming mode: nothing to copy (every run reads the host arrays).
 * \param pipeline the pipeline.
 * \param array_index the declared array to copy (an in or in-out array), or -1 for every in and in-out
 *        array. The tokens cannot be uploaded again: they must not change.
 * \retval SK_SUCCESS copied (or nothing to copy): the next run sees the host values.
 * \retval SK_ERROR_NULL_POINTER `pipeline` is NULL.
 * \retval SK_ERROR_INVALID_VALUE `array_index` is below -1 or not below num_arrays, or names an out-only
 *         array.
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was copied.
 * \retval SK_ERROR_CUDA a copy failed (or another 2xx status, as sk_status_from_cuda_error() maps CUDA's
 *         error; see sk_last_cuda_error()): the next run uploads the arrays again, and
 *         sk_csr_pipeline_download() copies nothing until a run succeeds.
 *
 * Synchronous. Overwrites the device copy of an in-out array (the results of earlier runs for it), so
 * download first to keep them. Traffic: the bytes of the named arrays' one slice (the whole array; for a
 * per-chunk array, its elements [chunk_offsets[0], chunk_offsets[1])).
 */
SK_API sk_status sk_csr_pipeline_upload(sk_csr_pipeline *pipeline, int array_index);

/**
 * \brief Describes a pipeline: chunks, workers, mode, order, memory, and the last call's traffic.
 * \param pipeline the pipeline.
 * \param[out] info receives the description.
 * \retval SK_SUCCESS `*info` was written.
 * \retval SK_ERROR_NULL_POINTER `pipeline` or `info` is NULL.
 *
 * O(1); never calls CUDA.
 */
SK_API sk_status sk_csr_pipeline_get_info(const sk_csr_pipeline *pipeline, sk_csr_pipeline_info *info);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_CSR_PIPELINE_H */
