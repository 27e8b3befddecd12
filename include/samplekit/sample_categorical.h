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
 * **Algorithms** (#sk_categorical_algorithm; `SK_CATEGORICAL_AUTO` picks the measured faster one,
 * see #SK_CATEGORICAL_BUTTERFLY_MAX_K):
 * - `SK_CATEGORICAL_GROUP_ROW`: a group of G lanes per row, 32 / G rows per warp, G from
 *   sk_sample_categorical_group_lanes() (4 to 32, so that a row takes about four rounds). The group reads
 *   the row once, in rounds of G x V entries (V = 4: one float4 per lane; V = 1 when rows are not
 *   16-byte aligned), sums each lane's entries serially and keeps the running sum at the end of every
 *   round in shared memory: the upper level of a two-level W-ary tree built on the fly. The search finds
 *   the first round whose end sum exceeds u, re-reads that one round (from L1, usually) and finds the
 *   entry. So the weights are read from memory once, and short rows keep several rows in flight per warp.
 *   When G = 32 a kernel specialised for one warp per row runs instead; it adds in the same order, so the
 *   results are the same bit for bit, and it was measured faster for long rows.
 * - `SK_CATEGORICAL_BUTTERFLY`: one row per lane, 32 rows per warp, transposed coalesced reads and
 *   butterfly-patterned partial sums (sk_warp_butterfly_sample_rows_f32(); Steele and Tristan, PPoPP'17).
 *
 * **Order of the running sums (`SK_CATEGORICAL_GROUP_ROW`).** Round j covers entries [G V j, G V (j +
 * 1)); lane l (0 to G - 1) of the group holds entries G V j + V l + c, c = 0..V-1 (entries past K read as
 * 0). pre_c = serial sum of the lane's first c + 1 entries; s_l = pre_{V-1}; e_l = exclusive sum of s over
 * the group's lanes, taken as the inclusive Kogge-Stone sum (steps 1, 2, 4, ... < G, the order of
 * sk_warp_inclusive_sum_f32() over lanes 0..G-1) of lane l - 1, and 0 for lane 0; P(entry) = carry_j +
 * (e_l + pre_c); the round's end sum C_j = carry_j + (e_{G-1} + s_{G-1}) and carry_{j+1} = C_j (carry_0 =
 * 0); total = the last C. The result is the first entry at or after the start of the first round with
 * C_j > u whose weight is > 0 and whose P > u; when there is none (rounding can put u at the total), the
 * last entry with a positive weight. So u exactly on a running sum goes to a later entry, and an entry
 * of weight 0 is never returned. `SK_CATEGORICAL_BUTTERFLY` has its own documented order (butterfly.cuh).
 *
 * **Preconditions and bad rows.** Weights non-negative. A row whose total is not > 0 (all zeros) or
 * not finite (an infinity or a NaN among its weights, or a total that overflows) gives index -1; with
 * the library built without NDEBUG, the kernel also prints each such row. Negative weights are not
 * detected: the result is then some index of the row.
 *
 * **Cost.** Bytes: M K 4 read (twice K for the product form) plus 4 M written, and one extra round
 * per row (group-row) from cache. Shuffles: about log2(G) + 3 per round of G V entries and per 32 / G
 * rows (group-row); 31 per 32 x 32 block plus about 60 for the search, per 32 rows (butterfly).
 * Asynchronous on `stream`.
 *
 * Usage:
 * \snippet test_sample_categorical.cu sample_categorical_usage
 * @{
 */

/**
 * \brief Under `SK_CATEGORICAL_AUTO`, rows of at most this many entries use the butterfly, longer ones
 * group-row (0: group-row always).
 *
 * 0 because group-row measured faster at every K on an H200 (bench/RESULTS.md): 2.3x the butterfly's
 * speed at K = 32 and 1.9x at K = 1024 for the matrix form, 2.4x to 3.2x for the product form with
 * gathered rows. The butterfly stays available through the `_ex` functions.
 */
#define SK_CATEGORICAL_BUTTERFLY_MAX_K 0

/**
 * \brief Largest K the kernels accept: group-row keeps ceil(K / (G V)) running sums per row in shared
 * memory, K bytes per block of 256 threads at worst (V = 1), which must fit the 227 KiB a block can get.
 */
#define SK_CATEGORICAL_MAX_K 131072

/** \brief Which algorithm draws the samples; see the group's description. */
typedef enum sk_categorical_algorithm {
  SK_CATEGORICAL_AUTO = 0,      /**< butterfly for K <= #SK_CATEGORICAL_BUTTERFLY_MAX_K, else group-row */
  SK_CATEGORICAL_BUTTERFLY = 1, /**< one row per lane, butterfly-patterned partial sums */
  SK_CATEGORICAL_GROUP_ROW = 2  /**< a group of G lanes per row, two-level running sums */
} sk_categorical_algorithm;

/**
 * \brief The number of lanes G that `SK_CATEGORICAL_GROUP_ROW` gives each row: the smallest power of two
 * >= K / (4 V), kept between 4 and 32, so that a row takes about four rounds of G V entries.
 * \param K entries per row, >= 1.
 * \param entries_per_lane V: 4 when rows are 16-byte aligned (ld % 4 == 0 and an aligned pointer), else 1.
 * \return 4, 8, 16 or 32.
 */
SK_HOST_DEVICE int sk_sample_categorical_group_lanes(int K, int entries_per_lane) {
  const int per_lane = entries_per_lane > 1 ? entries_per_lane : 1;
  const int wanted = (K + 4 * per_lane - 1) / (4 * per_lane);
  int g = 4;
  while (g < wanted && g < 32) g *= 2;
  return g;
}

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
 * \retval SK_ERROR_NO_DEVICE no driver or no usable device; nothing was launched.
 * \retval SK_ERROR_CUDA_PENDING an error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_UNSUPPORTED a block needs K bytes of shared memory when the rows are read a float at a
 *         time (`d_weights` or `ld` not 16-byte aligned; K / 4 otherwise), more than the device gives one:
 *         K above 101,376 on GPUs with 99 KiB (sm_86, sm_89) or 65,536 with 64 KiB (sm_75), never on
 *         sm_80 or sm_90; nothing was launched.
 * \retval SK_ERROR_CUDA a query of the device's limits failed (see sk_last_cuda_error()).
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
