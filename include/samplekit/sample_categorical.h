/**
 * \file sample_categorical.h
 * \brief Ready kernels that draw one index from each of many discrete distributions.
 */
#ifndef SAMPLEKIT_SAMPLE_CATEGORICAL_H
#define SAMPLEKIT_SAMPLE_CATEGORICAL_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_sample_categorical Batched categorical sampling
 * \brief One draw from each row of a weight matrix, or from each row of a product theta[d] * phi[w].
 *
 * **Uniforms.** Item i (row i of the matrix, or item i of the product form) uses the uniform
 * U_i = sk_rng_uniform_f32(seed, 0, offset + i), in [0, 1 - 2^-24]; the point searched for is
 * u_i = U_i * total_i, where total_i is the row's total as the algorithm sums it. To draw again from
 * the same rows, advance `offset` by the number of items. Results are a pure function of the weights,
 * seed and offset: the same on every run and every GPU.
 *
 * **Algorithms** (#sk_categorical_algorithm; `SK_CATEGORICAL_AUTO` picks by K):
 * - `SK_CATEGORICAL_BUTTERFLY`, K <= #SK_CATEGORICAL_BUTTERFLY_MAX_K under AUTO: one row per lane, 32
 *   rows per warp, transposed coalesced reads and butterfly-patterned partial sums
 *   (sk_warp_butterfly_sample_rows_f32(); Steele and Tristan, PPoPP'17). Few shuffles per row, which is
 *   what short rows need.
 * - `SK_CATEGORICAL_WARP_ROW`, larger K: one warp per row. The warp reads the row once in rounds of
 *   32 x 4 entries (one float4 per lane, coalesced; 32 x 1 entries when rows are not 16-byte aligned),
 *   sums each lane's entries serially, and keeps the running sum at the end of every round in shared
 *   memory: the upper level of a two-level W-ary tree built on the fly. The search finds the first round
 *   whose end sum exceeds u there, re-reads that one round (one 512-byte line, usually from L1) and
 *   finds the entry. So the weights are read from memory once.
 *
 * **Order of the running sums (`SK_CATEGORICAL_WARP_ROW`).** With V entries per lane (4 or 1), round j
 * covers entries [32 V j, 32 V (j + 1)); lane l holds entries 32 V j + V l + c, c = 0..V-1 (entries past
 * K read as 0). pre_c = serial sum of the lane's first c + 1 entries; s_l = pre_{V-1}; e_l = exclusive
 * warp sum of s over the lanes (sk_warp_exclusive_sum_f32(), full warp); P(entry) = carry_j + (e_l +
 * pre_c); the round's end sum C_j = carry_j + (e_31 + s_31) and carry_{j+1} = C_j (carry_0 = 0); total =
 * the last C. The result is the first entry at or after the start of the first round with C_j > u whose
 * weight is > 0 and whose P > u; when there is none (rounding can put u at the total), the last entry
 * with a positive weight. So u exactly on a running sum goes to a later entry, and an entry of weight
 * 0 is never returned. `SK_CATEGORICAL_BUTTERFLY` has its own documented order (see butterfly.cuh).
 *
 * **Preconditions and bad rows.** Weights non-negative. A row whose total is not > 0 (all zeros) or
 * not finite (an infinity or a NaN among its weights, or a total that overflows) gives index -1; with
 * the library built without NDEBUG, the kernel also prints each such row. Negative weights are not
 * detected: the result is then some index of the row.
 *
 * **Cost.** Bytes: M K 4 read (twice K for the product form) plus 4 M written, and at most one extra
 * 512-byte round per row (warp-row) from cache. Shuffles per row: about 7 per 128 entries (warp-row);
 * about 31 per 32 x 32 block per 32 rows plus the search (butterfly). Asynchronous on `stream`.
 *
 * Usage:
 * \snippet test_sample_categorical.cu sample_categorical_usage
 * @{
 */

/** \brief Rows of at most this many entries use the butterfly under `SK_CATEGORICAL_AUTO`. */
#define SK_CATEGORICAL_BUTTERFLY_MAX_K 64

/** \brief Largest K the kernels accept (the warp-row path keeps K / 128 floats per warp in shared memory). */
#define SK_CATEGORICAL_MAX_K 1048576

/** \brief Which algorithm draws the samples; see the group's description. */
typedef enum sk_categorical_algorithm {
  SK_CATEGORICAL_AUTO = 0,      /**< butterfly for K <= #SK_CATEGORICAL_BUTTERFLY_MAX_K, else warp-row */
  SK_CATEGORICAL_BUTTERFLY = 1, /**< one row per lane, butterfly-patterned partial sums */
  SK_CATEGORICAL_WARP_ROW = 2   /**< one warp per row, two-level running sums */
} sk_categorical_algorithm;

SK_EXTERN_C_BEGIN

/**
 * \brief Draws one index from each row of an M x K row-major weight matrix on the device.
 * \param d_weights device matrix, row i at d_weights + i * ld.
 * \param ld row stride in floats, >= K.
 * \param num_rows M, the number of rows (0 launches nothing).
 * \param K entries per row, 1 to #SK_CATEGORICAL_MAX_K.
 * \param seed RNG seed.
 * \param offset RNG position of row 0 (row i uses offset + i).
 * \param d_out device array of M indices: the index drawn from each row, or -1 for a bad row.
 * \param stream CUDA stream (0: the legacy default stream).
 * \retval SK_SUCCESS launched.
 * \retval SK_ERROR_NULL_POINTER `d_weights` or `d_out` is NULL while M > 0.
 * \retval SK_ERROR_INVALID_VALUE K outside [1, #SK_CATEGORICAL_MAX_K], ld < K, or offset + M overflows.
 * \retval SK_ERROR_CUDA_PENDING an error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED the launch failed (see sk_last_cuda_error()).
 */
SK_API sk_status sk_sample_categorical_f32(const float *d_weights, size_t ld, size_t num_rows, int K, uint64_t seed,
                                           uint64_t offset, int *d_out, sk_stream stream);

/**
 * \brief sk_sample_categorical_f32() with the algorithm chosen by the caller (for tests and tuning).
 * \param d_weights device matrix, row i at d_weights + i * ld.
 * \param ld row stride in floats, >= K.
 * \param num_rows M, the number of rows (0 launches nothing).
 * \param K entries per row, 1 to #SK_CATEGORICAL_MAX_K.
 * \param algorithm which algorithm; any K is accepted by each.
 * \param seed RNG seed.
 * \param offset RNG position of row 0.
 * \param d_out device array of M indices.
 * \param stream CUDA stream.
 * \return as sk_sample_categorical_f32(), and `SK_ERROR_INVALID_VALUE` for an unknown algorithm.
 */
SK_API sk_status sk_sample_categorical_ex_f32(const float *d_weights, size_t ld, size_t num_rows, int K,
                                              sk_categorical_algorithm algorithm, uint64_t seed, uint64_t offset,
                                              int *d_out, sk_stream stream);

/**
 * \brief Draws one index per item i from the product theta[d_i][k] * phi[w_i][k], k < K (the LDA shape).
 *
 * Each weight is the float product rounded once (no fused multiply-add), then summed as for the
 * matrix form. An item whose document or word id is out of range gets -1, like a bad row.
 * \param d_theta device matrix of num_docs rows of stride ld_theta floats.
 * \param ld_theta row stride of theta, >= K.
 * \param num_docs rows of theta.
 * \param d_phi device matrix of num_words rows of stride ld_phi floats.
 * \param ld_phi row stride of phi, >= K.
 * \param num_words rows of phi.
 * \param K entries per row, 1 to #SK_CATEGORICAL_MAX_K.
 * \param d_docs device array of num_items document ids.
 * \param d_words device array of num_items word ids.
 * \param num_items M (0 launches nothing).
 * \param seed RNG seed.
 * \param offset RNG position of item 0.
 * \param d_out device array of M indices.
 * \param stream CUDA stream.
 * \return as sk_sample_categorical_f32(); `SK_ERROR_NULL_POINTER` also for a NULL id array while M > 0,
 *         `SK_ERROR_INVALID_VALUE` also for ld_theta or ld_phi < K or a negative row count.
 */
SK_API sk_status sk_sample_categorical_product_f32(const float *d_theta, size_t ld_theta, int num_docs,
                                                   const float *d_phi, size_t ld_phi, int num_words, int K,
                                                   const int *d_docs, const int *d_words, size_t num_items,
                                                   uint64_t seed, uint64_t offset, int *d_out, sk_stream stream);

/**
 * \brief sk_sample_categorical_product_f32() with the algorithm chosen by the caller.
 * \param d_theta device matrix of num_docs rows of stride ld_theta floats.
 * \param ld_theta row stride of theta, >= K.
 * \param num_docs rows of theta.
 * \param d_phi device matrix of num_words rows of stride ld_phi floats.
 * \param ld_phi row stride of phi, >= K.
 * \param num_words rows of phi.
 * \param K entries per row.
 * \param d_docs device array of document ids.
 * \param d_words device array of word ids.
 * \param num_items M.
 * \param algorithm which algorithm.
 * \param seed RNG seed.
 * \param offset RNG position of item 0.
 * \param d_out device array of M indices.
 * \param stream CUDA stream.
 * \return as sk_sample_categorical_product_f32(), and `SK_ERROR_INVALID_VALUE` for an unknown algorithm.
 */
SK_API sk_status sk_sample_categorical_product_ex_f32(const float *d_theta, size_t ld_theta, int num_docs,
                                                      const float *d_phi, size_t ld_phi, int num_words, int K,
                                                      const int *d_docs, const int *d_words, size_t num_items,
                                                      sk_categorical_algorithm algorithm, uint64_t seed,
                                                      uint64_t offset, int *d_out, sk_stream stream);

/**
 * \brief sk_sample_categorical_ex_f32() with the uniforms given by the caller instead of drawn.
 *
 * Item i searches for u_i = d_uniforms[i] * total_i. Useful for exact tests, quasi-random numbers or
 * uniforms shared with other code.
 * \param d_weights device matrix, row i at d_weights + i * ld.
 * \param ld row stride in floats, >= K.
 * \param num_rows M, the number of rows (0 launches nothing).
 * \param K entries per row, 1 to #SK_CATEGORICAL_MAX_K.
 * \param algorithm which algorithm.
 * \param d_uniforms device array of M uniforms, each in [0, 1).
 * \param d_out device array of M indices.
 * \param stream CUDA stream.
 * \return as sk_sample_categorical_ex_f32(); `SK_ERROR_NULL_POINTER` also for NULL `d_uniforms` while M > 0.
 */
SK_API sk_status sk_sample_categorical_with_uniforms_f32(const float *d_weights, size_t ld, size_t num_rows, int K,
                                                         sk_categorical_algorithm algorithm, const float *d_uniforms,
                                                         int *d_out, sk_stream stream);

/**
 * \brief sk_sample_categorical_product_ex_f32() with the uniforms given by the caller.
 * \param d_theta device matrix of num_docs rows of stride ld_theta floats.
 * \param ld_theta row stride of theta, >= K.
 * \param num_docs rows of theta.
 * \param d_phi device matrix of num_words rows of stride ld_phi floats.
 * \param ld_phi row stride of phi, >= K.
 * \param num_words rows of phi.
 * \param K entries per row.
 * \param d_docs device array of document ids.
 * \param d_words device array of word ids.
 * \param num_items M.
 * \param algorithm which algorithm.
 * \param d_uniforms device array of M uniforms, each in [0, 1).
 * \param d_out device array of M indices.
 * \param stream CUDA stream.
 * \return as sk_sample_categorical_product_ex_f32(); `SK_ERROR_NULL_POINTER` also for NULL `d_uniforms`.
 */
SK_API sk_status sk_sample_categorical_product_with_uniforms_f32(
    const float *d_theta, size_t ld_theta, int num_docs, const float *d_phi, size_t ld_phi, int num_words, int K,
    const int *d_docs, const int *d_words, size_t num_items, sk_categorical_algorithm algorithm,
    const float *d_uniforms, int *d_out, sk_stream stream);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_SAMPLE_CATEGORICAL_H */
