/**
 * \file wary_tree.h
 * \brief W-ary sampling trees: the storage layout, a view for kernels, and the batched C API.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc. The device functions that
 * build and search a tree are in wary_tree.cuh.
 */
#ifndef SAMPLEKIT_WARY_TREE_H
#define SAMPLEKIT_WARY_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_wary_tree W-ary sampling tree
 * \brief Draw from a discrete distribution of n <= 2^20 non-negative weights in at most 4 warp steps:
 * a tree of running sums with fan-out W = 32, built by a warp or a block, searched by a warp.
 *
 * The W-ary tree of SaberLDA (Chen et al., "SaberLDA: Sparsity-Aware Learning of Topic Models on
 * GPUs", ASPLOS 2017): a warp finds where u falls among 32 running sums with one coalesced read and one
 * ballot, then goes down to the 32 entries under the one it found. Building costs one pass over the
 * weights (O(n) work, fully parallel); a draw costs one 32-float read and one ballot per level.
 *
 * **Layout.** Level 0 holds the n leaves' running sums P_0 .. P_{n-1} (defined below), padded to a
 * multiple of 32 entries with the total P_{n-1}. Level k + 1 has e_{k+1} = ceil(e_k / 32) entries
 * (e_0 = n): entry i is entry 32 i + 31 of level k (the last running sum of its group of 32), and it is
 * padded likewise. The top level is the first with at most 32 entries, so there are
 * sk_wary_tree_num_levels() = 1, 2, 3 or 4 levels for n <= 32, <= 1,024, <= 32,768 and <= 1,048,576.
 * The top level is always exactly 32 floats and its last entry is the total. One tree is one array of
 * sk_wary_tree_floats(n) floats (#SK_WARY_TREE_FLOATS, a constant expression, sizes static arrays),
 * levels one after the other, bottom level first, level k at sk_wary_tree_level_offset(n, k).
 *
 * **Running sums.** The leaves go in rounds of 32: round j covers leaves [32 j, 32 j + 32), leaves at or
 * past n reading as weight 0. Within a round, S_i is the inclusive warp sum of the round's weights up to
 * leaf i, added in sk_warp_inclusive_sum_f32()'s order (the order of sk_warp_sample_prefix_f32()'s
 * running sums). Then P_i = C_j + S_i when w_i > 0, and P_i = P_{i-1} when w_i = 0 (P_{-1} = +0), where
 * the carry C_j = P_{32 j - 1} is the running sum of the previous round's last leaf (C_0 = +0). So
 * padding holds the total, and a leaf of weight zero repeats the running sum before it, which is what
 * guarantees it is never drawn: in float the warp scan groups neighbouring leaves' sums differently, so
 * C_j + S_i of a zero-weight leaf could round above its predecessor. Computed on the device as
 * P_i = C_j + L_i with L_i = S_m for the last leaf m <= i of the round with w_m > 0, or +0 when there is
 * none: one addition per leaf, the same bits. The warp build, the block build and the batched build give
 * bit-identical trees; tests/ref/wary_tree_ref.c replays this order on the host.
 *
 * **Search.** Given u, let x = max(u, 0) (a NaN u counts as 0), and x = the largest float below the
 * total when x >= total. From the top level down, the warp reads the 32 entries of the current group
 * and goes to the first one greater than x. The result is the leaf i reached at level 0, so
 * P_{i-1} <= x < P_i and therefore w_i > 0. In words: u exactly on a running sum P_i goes to the next
 * leaf with a positive weight; u >= total gives a leaf with a positive weight (the last one whenever the
 * last running sums are non-decreasing, as they are in exact arithmetic), so rounding in u = U * total
 * never leaves the range; u < 0 gives the first leaf with a positive weight; a tree whose total is not
 * positive (every weight 0) gives -1. Samplers compute u = U * total with U in [0, 1 - 2^-24]
 * (sk_rng_uniform_f32()), which is below the total for a positive total.
 *
 * **Random numbers.** sk_wary_tree_batch_sample_f32() gives sample s the uniform
 * sk_rng_uniform_f32(seed, 0, offset + s): stream id 0, counter offset + s. Every samplekit sampler
 * follows this (seed, 0, offset + s) convention, so results depend on nothing but the seed, the offset,
 * the sample's position and the inputs: not on the launch shape or the GPU.
 *
 * **Preconditions.** 1 <= n <= #SK_WARY_TREE_MAX_LEAVES; weights non-negative and finite (a NaN or
 * infinite weight gives a tree whose draws are unspecified, though always inside the tree's storage);
 * the weights and the tree do not overlap.
 *
 * Usage (a block builds a row's tree in shared memory, then its warps draw from it):
 * \snippet test_wary_tree.cu wary_tree_usage
 * @{
 */

/** \brief The fan-out W of the tree: the warp width. */
#define SK_WARY_TREE_WIDTH 32

/** \brief The largest number of leaves a tree may have: 32^4 = 1,048,576 (4 levels). */
#define SK_WARY_TREE_MAX_LEAVES 1048576

/** \brief The largest number of levels a tree may have. */
#define SK_WARY_TREE_MAX_LEVELS 4

/** \cond SK_INTERNAL */
#define SK_DETAIL_WARY_TREE_PAD32(x) ((((x) + 31) / 32) * 32)
/** \endcond */

/**
 * \brief Floats in the storage of one tree of `n` leaves, as a constant expression (for static arrays).
 *
 * Level 0 holds n rounded up to a multiple of 32; level 1 (n > 32) ceil(n / 32) rounded up likewise;
 * level 2 (n > 1,024) ceil(n / 1,024) rounded up; level 3 (n > 32,768) 32. Valid for
 * 1 <= n <= #SK_WARY_TREE_MAX_LEAVES; equals sk_wary_tree_floats(n) there.
 */
#define SK_WARY_TREE_FLOATS(n)                                                    \
  (SK_DETAIL_WARY_TREE_PAD32(n) + ((n) > 32 ? SK_DETAIL_WARY_TREE_PAD32(((n) + 31) / 32) : 0) + \
   ((n) > 1024 ? SK_DETAIL_WARY_TREE_PAD32(((n) + 1023) / 1024) : 0) + ((n) > 32768 ? 32 : 0))

/**
 * \brief Number of levels of a tree of `n` leaves.
 * \param n number of leaves.
 * \return 1 for n <= 32, 2 for n <= 1,024, 3 for n <= 32,768, 4 for n <= 1,048,576; 0 when n is
 *         outside [1, #SK_WARY_TREE_MAX_LEAVES].
 */
SK_HOST_DEVICE int sk_wary_tree_num_levels(int n) {
  if (n < 1 || n > SK_WARY_TREE_MAX_LEAVES) return 0;
  return n <= 32 ? 1 : n <= 1024 ? 2 : n <= 32768 ? 3 : 4;
}

/**
 * \brief Number of entries of level `level` before padding: e_level = ceil(n / 32^level).
 * \param n number of leaves.
 * \param level a level, 0 to sk_wary_tree_num_levels(n) - 1.
 * \return e_level (n for level 0; at most 32 for the top level); 0 when n or level is out of range.
 */
SK_HOST_DEVICE int sk_wary_tree_level_entries(int n, int level) {
  int e = n, k;
  if (level < 0 || level >= sk_wary_tree_num_levels(n)) return 0;
  for (k = 0; k < level; ++k) e = (e + 31) / 32;
  return e;
}

/**
 * \brief Offset, in floats from the start of a tree's storage, of level `level`.
 * \param n number of leaves.
 * \param level a level, 0 to sk_wary_tree_num_levels(n); `level` = the number of levels gives the
 *        end of the storage, sk_wary_tree_floats(n).
 * \return the sum of the padded sizes of the levels below `level` (0 for level 0); 0 when n or level is
 *         out of range.
 */
SK_HOST_DEVICE size_t sk_wary_tree_level_offset(int n, int level) {
  size_t offset = 0;
  int e = n, k;
  if (level < 0 || level > sk_wary_tree_num_levels(n)) return 0;
  for (k = 0; k < level; ++k) {
    offset += (size_t)SK_DETAIL_WARY_TREE_PAD32(e);
    e = (e + 31) / 32;
  }
  return offset;
}

/**
 * \brief Floats in the storage of one tree of `n` leaves (the function form of #SK_WARY_TREE_FLOATS).
 * \param n number of leaves.
 * \return at least 32 and at most 1,082,400 (for n = 2^20); 0 when n is outside
 *         [1, #SK_WARY_TREE_MAX_LEAVES].
 */
SK_HOST_DEVICE size_t sk_wary_tree_floats(int n) {
  if (sk_wary_tree_num_levels(n) == 0) return 0;
  return (size_t)SK_WARY_TREE_FLOATS(n);
}

/**
 * \brief A tree as kernels see it: where its storage is and where each level starts. Small, passed by value.
 *
 * Make one with sk_wary_tree_make_view_f32(). The storage may be in global or shared memory (the
 * pointer is generic); a view only reads it.
 */
typedef struct sk_wary_tree_view_f32 {
  const float *data;                         /**< the tree's storage: sk_wary_tree_floats(n) floats */
  int n;                                     /**< number of leaves, 1 to #SK_WARY_TREE_MAX_LEAVES */
  int num_levels;                            /**< sk_wary_tree_num_levels(n), 1 to 4 */
  int level_offset[SK_WARY_TREE_MAX_LEVELS]; /**< sk_wary_tree_level_offset(n, k) for k < num_levels; 0 past */
} sk_wary_tree_view_f32;

/**
 * \brief The view of the tree of `n` leaves stored at `tree`. Reads no memory.
 * \param tree the tree's storage (global or shared memory on the device, or host memory on the host).
 * \param n number of leaves, 1 to #SK_WARY_TREE_MAX_LEAVES (outside it, num_levels is 0 and the view
 *        must not be used).
 * \return the view.
 */
SK_HOST_DEVICE sk_wary_tree_view_f32 sk_wary_tree_make_view_f32(const float *tree, int n) {
  sk_wary_tree_view_f32 v;
  int k;
  v.data = tree;
  v.n = n;
  v.num_levels = sk_wary_tree_num_levels(n);
  for (k = 0; k < SK_WARY_TREE_MAX_LEVELS; ++k)
    v.level_offset[k] = k < v.num_levels ? (int)sk_wary_tree_level_offset(n, k) : 0;
  return v;
}

/**
 * \brief Offset in floats of the top level: sk_wary_tree_floats(n) - 32, since the top level is 32 floats.
 *
 * Selects among the view's fields without indexing the array by a run-time value, so that a view kept
 * in registers stays there.
 * \param tree a view made by sk_wary_tree_make_view_f32().
 * \return level_offset[num_levels - 1].
 */
SK_HOST_DEVICE int sk_wary_tree_top_offset_f32(sk_wary_tree_view_f32 tree) {
  return tree.num_levels >= 4   ? tree.level_offset[3]
         : tree.num_levels == 3 ? tree.level_offset[2]
         : tree.num_levels == 2 ? tree.level_offset[1]
                                : tree.level_offset[0];
}

/**
 * \brief The total weight of a built tree: the last entry of its top level, which is P_{n-1}.
 *
 * Any thread may call (on the host, for a tree in host memory). One 4-byte read.
 * \param tree a view of a built tree.
 * \return P_{n-1}, bit for bit: the value the search clamps u below, and +0 when every weight is 0.
 */
SK_HOST_DEVICE float sk_wary_tree_total_f32(sk_wary_tree_view_f32 tree) {
  return tree.data[sk_wary_tree_top_offset_f32(tree) + SK_WARY_TREE_WIDTH - 1];
}

SK_EXTERN_C_BEGIN

/**
 * \brief Bytes of storage for `num_rows` trees of `n` leaves each, laid out one after the other.
 *
 * Tree r starts at float r * sk_wary_tree_floats(n) of the storage. Does not call CUDA. Thread-safe.
 * \param num_rows number of trees, >= 0 (0 gives 0 bytes).
 * \param n leaves per tree, 1 to #SK_WARY_TREE_MAX_LEAVES.
 * \param[out] bytes receives num_rows * sk_wary_tree_floats(n) * sizeof(float); left unchanged unless
 *             `SK_SUCCESS` is returned.
 * \retval SK_SUCCESS `*bytes` was written.
 * \retval SK_ERROR_NULL_POINTER `bytes` is NULL.
 * \retval SK_ERROR_INVALID_VALUE `num_rows` < 0, `n` outside [1, #SK_WARY_TREE_MAX_LEAVES], or the size
 *         does not fit in a size_t.
 *
 * Checked in the order listed.
 */
SK_API sk_status sk_wary_tree_batch_bytes(int num_rows, int n, size_t *bytes);

/**
 * \brief Builds one tree per row of a row-major `num_rows` x `n` weight matrix on the device.
 *
 * Row r is `d_weights[r * ld .. r * ld + n)`; its tree goes to float r * sk_wary_tree_floats(n) of
 * `d_trees`, laid out and rounded as the group describes (bit-identical to sk_wary_tree_warp_build_f32()).
 * Asynchronous on `stream`.
 *
 * **Launch shape** (the bits do not depend on it): one warp per row (sk_wary_tree_warp_build_f32(),
 * blocks of 256 threads), except for few long rows, which leave most of the GPU idle that way: when
 * n > 2,048 and num_rows <= 8 x the device's SM count, one block per row
 * (sk_wary_tree_block_build_f32(), 1,024 threads when num_rows <= 2 x the SM count, else 256); when
 * besides n > 16,384 and num_rows <= the SM count, the whole grid per row: the block build's three
 * steps as three kernels (each round's local sum, by warps across the GPU; the carries in round order,
 * a warp per row; the levels, across the GPU again; bench/RESULTS.md has its times against one block).
 * The SM count of the current device is queried only when n > 2,048.
 * \param d_weights device matrix of weights, non-negative and finite; row stride `ld` floats.
 * \param ld row stride in floats, >= n.
 * \param num_rows number of rows (trees), >= 0; 0 returns `SK_SUCCESS` at once (the pointers are not
 *        looked at).
 * \param n leaves per row, 1 to #SK_WARY_TREE_MAX_LEAVES.
 * \param d_trees device storage of the trees, disjoint from the weight matrix.
 * \param trees_bytes size of `d_trees` in bytes, at least what sk_wary_tree_batch_bytes() gives.
 * \param stream the CUDA stream to run on (0: the legacy default stream).
 * \retval SK_SUCCESS the kernel was launched (errors during its run surface at the next synchronisation).
 * \retval SK_ERROR_INVALID_VALUE `num_rows` < 0, `n` outside [1, #SK_WARY_TREE_MAX_LEAVES], or `ld` < n;
 *         after the pointer checks: the matrix's extent does not fit in a size_t, or the matrix and the
 *         trees' storage overlap (CUDA is not touched).
 * \retval SK_ERROR_NULL_POINTER `d_weights` or `d_trees` is NULL (and num_rows > 0; CUDA is not touched).
 * \retval SK_ERROR_WORKSPACE_TOO_SMALL `trees_bytes` is below sk_wary_tree_batch_bytes() (CUDA is not
 *         touched).
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_NO_DEVICE the device query for the launch shape found no device.
 * \retval SK_ERROR_CUDA the device query for the launch shape failed otherwise; see sk_last_cuda_error().
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED the launch failed; see sk_last_cuda_error().
 *
 * The arguments are checked in this order: the values (num_rows, n, ld), num_rows == 0, the pointers,
 * the extent and the overlap, the size of the storage. Memory: reads 4 n bytes and writes
 * 4 sk_wary_tree_floats(n) bytes per row (the block and grid paths read the weights twice).
 * Deterministic. Thread-safe.
 */
SK_API sk_status sk_wary_tree_batch_build_f32(const float *d_weights, size_t ld, int num_rows, int n,
                                              float *d_trees, size_t trees_bytes, sk_stream stream);

/**
 * \brief Draws `num_samples` leaves, sample s from the tree of row `d_rows[s]`, on the device.
 *
 * Sample s: u = sk_rng_uniform_f32(seed, 0, offset + s) * total, where total is the row's
 * sk_wary_tree_total_f32(), then `d_out[s]` = the search's result for u (group rules): a leaf in
 * [0, n) with a positive weight, or -1 when the row's weights are all 0. A row id outside
 * [0, num_rows) gives `d_out[s]` = -1 and reads no tree. Asynchronous on `stream`.
 * \param d_trees device storage of `num_rows` trees of `n` leaves, as written by
 *        sk_wary_tree_batch_build_f32(); may be NULL when num_rows is 0 (every sample is then -1).
 * \param trees_bytes size of `d_trees` in bytes, at least what sk_wary_tree_batch_bytes() gives.
 * \param num_rows number of trees, >= 0.
 * \param n leaves per tree, 1 to #SK_WARY_TREE_MAX_LEAVES.
 * \param d_rows device array of `num_samples` row ids.
 * \param num_samples number of samples; 0 returns `SK_SUCCESS` after the value checks (nothing launched).
 * \param seed the RNG seed.
 * \param offset counter of sample 0 in stream 0 (group's convention); give each call its own range.
 * \param d_out device array of `num_samples` results.
 * \param stream the CUDA stream to run on (0: the legacy default stream).
 * \retval SK_SUCCESS the kernel was launched (errors during its run surface at the next synchronisation).
 * \retval SK_ERROR_INVALID_VALUE `num_rows` < 0 or `n` outside [1, #SK_WARY_TREE_MAX_LEAVES]; after the
 *         zero-samples case: `offset + num_samples` overflows 64 bits (CUDA is not touched).
 * \retval SK_ERROR_NULL_POINTER `d_rows` or `d_out` is NULL, or `d_trees` is NULL while num_rows > 0
 *         (CUDA is not touched).
 * \retval SK_ERROR_WORKSPACE_TOO_SMALL `trees_bytes` is below sk_wary_tree_batch_bytes(num_rows, n)
 *         (CUDA is not touched).
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED the launch failed; see sk_last_cuda_error().
 *
 * The arguments are checked in this order: num_rows and n, num_samples == 0, the counter range, the
 * pointers, the size of the storage. Work per sample: one Philox block, one warp search
 * (sk_wary_tree_num_levels(n) coalesced 128-byte reads and ballots); a warp takes 32 consecutive
 * samples and overlaps the reads of 4 searches at a time. Deterministic. Thread-safe.
 */
SK_API sk_status sk_wary_tree_batch_sample_f32(const float *d_trees, size_t trees_bytes, int num_rows, int n,
                                               const int *d_rows, size_t num_samples, uint64_t seed,
                                               uint64_t offset, int *d_out, sk_stream stream);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_WARY_TREE_H */
