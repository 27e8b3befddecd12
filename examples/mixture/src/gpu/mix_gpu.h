/**
 * \file mix_gpu.h
 * \brief sk-mixture's CUDA part: the z-step and the statistics on a GPU, for data kept on the device.
 *
 * Built only when nvcc is found (SK_MIX_HAVE_GPU is then defined for every user of sk_mix_core). The
 * parameter step stays on the host (posterior.h): each sweep uploads the z-step's table (K (2 D + 1)
 * floats) and downloads the statistics (K (2 D + 1) integers).
 *
 * **The z-step kernel table** (gpu/zstep_table.cu). Every kernel draws exactly what the CPU reference
 * draws (zstep.h): they differ only in how the work is laid out. Which one runs is one lookup in one
 * table of named rows (sk_mix_zstep_lookup()), made from D, K, the warps per block and the device's
 * shared memory before anything is allocated; `sk-mixture fit -v` prints the table, the chosen row and
 * why. Tests and benchmarks force a row by its name (sk_mix_gpu_options::zstep_kernel). The rows, in
 * the table's order, with when the lookup chooses them (bench/RESULTS.md, "sk-mixture z-step kernel
 * table", has the measurements behind each rule):
 * - `thread-reference`: a thread per point running sk_mix_draw_point() itself, the CPU's code; never
 *   chosen (the simple reference on the device, for tests).
 * - `butterfly-warp`: a warp takes 32 consecutive points and walks the components in tiles of 32,
 *   lane t computing component 32 b + t's log-weight for each point (the points' values broadcast from
 *   shared memory). The tile is a 32 x 32 block in registers, transposed, which samplekit's butterfly
 *   reduces (sk_warp_butterfly_block_max_f32(), _sum_f32(), and _search_f32() in the kept tile). Its
 *   shuffles make it several times slower than the broadcast kernels; never chosen (the butterfly's
 *   use, and a comparison).
 * - The broadcast kernels: a thread per point, the components broadcast to the lanes. Each sweep the
 *   host packs the table by component (zstep_pack(): s_kj and -ms_kj in pairs, then -c_k); each block
 *   copies it into shared memory, and one lane-uniform 16-byte load gives all lanes two dimensions of
 *   the same component. A tile's 32 chains, their minimum, exponentials and tree sum stay in the
 *   thread's registers (samplekit's thread-tile sampler: samplekit/thread_tile_sample.h), with no
 *   shuffle. For D <= 16 with the table within 80 KiB:
 *   - `one-point-regs`: a point a thread, its values in registers, the kept tile in shared memory; a
 *     single tile of at most 8 or 16 components runs code 8 or 16 weights wide. Chosen for one tile
 *     (K <= 32), where each point has little work and its loads want the occupancy of one point a
 *     thread; except K = 32 with D > 8 and K = 9 to 16 at D = 16.
 *   - `two-point-regs`: two points a thread (blockDim apart), so that each loaded table entry serves
 *     both. Chosen for three tiles at D = 13 to 16 (K = 65 to 95), and where the rows below do not
 *     fit: two blocks of `two-point-dims-outside` an SM, or a warp of the kernel in passes.
 *   - `two-point-dims-outside`: two points a thread, their values in shared memory and the chains built
 *     with the dimensions outside the components, which frees the registers for two blocks an SM.
 *     Chosen for one tile of K = 32 with D > 8 or of K = 9 to 16 at D = 16, and for K = 96 at D = 9
 *     to 16.
 *   - `transposed-two-tiles` (zstep_transposed.cuh): each warp takes 32 points; its lanes hold two
 *     components' parameters in registers and compute the points' chains, which go through shared
 *     memory to the lane of their point for the tiles' weights, reservoir and search. Where a point
 *     has few components within 2^-125 of its largest weight in a tile (well-separated components) it
 *     computes only those weights (zstep_sparse.cuh; the others are exactly +0). Chosen for exactly
 *     two tiles (K = 33 to 64).
 *   - `transposed-passes`, `transposed-passes-permuted` (zstep_passes.cuh): the transposed kernel in
 *     passes of two tiles, with padded or with unpadded, permuted rows of chains. Chosen for three
 *     tiles or more, except three tiles at D > 12 and K = 96 at D = 9 to 12; permuted where that fits
 *     more warps beside the table.
 *   Larger D, or a larger table:
 *   - `dim-chunks-shared`: a point a thread, read in chunks of 16 dimensions, the kept tile in
 *     registers, the table in shared memory. Chosen for D > 16 with the table within 80 KiB.
 *   - `dim-chunks-global`: the same with the table read from global memory through L1. Chosen when
 *     the table is larger than 80 KiB.
 *   Work: N K D fused multiply-add pairs and N K exponentials; memory: the points once (4 N D bytes),
 *   z (4 N bytes).
 *
 * **Statistics** (stats_gpu.cuh): stats.h's exact fixed-point integers, summed with 64-bit integer
 * additions, which commute, so the launch shape and the order of the atomics change no bit.
 * - `SK_MIX_STATS_SORTED` (the default): a block sorts a tile of points by component in shared memory
 *   (a counting sort: histogram, scan, scatter; about 64 points per component, 2,048 to 16,384 points a
 *   tile), then each warp walks its run of the sorted points one component's segment at a time, a
 *   lane per dimension (and 32 / D points a step when D < 32), summing in registers and adding to the
 *   component's accumulators once per segment. The accumulators are the block's, in shared memory, when they fit beside the tile (K (2 D + 1) 8 bytes
 *   plus 10 bytes a point of the tile, within the opt-in maximum: 227 KiB on an H100 or H200), else the
 *   global ones. Memory: the points once (4 N D bytes) and z once (4 N bytes).
 * - `SK_MIX_STATS_ATOMIC`: two 64-bit atomics per element (point, dimension) and one per point, per
 *   block in shared memory when the K (2 D + 1) integers fit, else global: the first version, kept as
 *   the benchmark's baseline and the tests' second path.
 *
 * Every CUDA call is checked; a failure comes back as an error message naming the step. Results do
 * not depend on the launch shape (`warps_per_block`, `blocks`).
 */
#ifndef SK_MIX_GPU_H
#define SK_MIX_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "mixture.h"
#include "sk_ex_gpu_probe.h"
#include "samplekit/sk_config.h" /* sk_stream */

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Which statistics kernel runs (see the file's description). */
typedef enum sk_mix_stats_kernel {
  SK_MIX_STATS_SORTED = 0, /**< tiles sorted by component, sums in registers along runs (default) */
  SK_MIX_STATS_ATOMIC = 1  /**< two 64-bit atomics per element (the first version) */
} sk_mix_stats_kernel;

/** \brief Launch options; zeros mean the defaults. Results do not depend on them. */
typedef struct sk_mix_gpu_options {
  int device;               /**< CUDA device ordinal (default 0) */
  const char *zstep_kernel; /**< NULL or "": the z-step kernel table's choice; else a row's name, which must fit
                                 (for tests and benchmarks; sk_mix_zstep_lookup()) */
  int warps_per_block;      /**< z-step warps per block, 1 to 8 (0: 8; the butterfly kernel: as many as fit 48 KiB;
                                 the transposed kernels choose their own) */
  int blocks;          /**< z-step and statistics blocks (0: enough for the device; each then loops over its share) */
  int stats_kernel;    /**< #sk_mix_stats_kernel */
} sk_mix_gpu_options;

/** \brief What the z-step table's lookup needs to know of a device: its shared memory. */
typedef struct sk_mix_gpu_caps {
  size_t shared_per_sm;    /**< bytes an SM holds (cudaDevAttrMaxSharedMemoryPerMultiprocessor) */
  size_t shared_per_block; /**< bytes a block may opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin) */
} sk_mix_gpu_caps;

/** \brief A row of the z-step kernel table as looked up for D and K: the kernel, its instance, its
 * launch shape and why. */
typedef struct sk_mix_zstep_choice {
  int row;              /**< the row, 0 to sk_mix_zstep_kernel_count() - 1 */
  int dims;             /**< the instance's dimensions: D rounded up to 4 (4 to 16; the chunk kernels: their
                             last chunk's), the butterfly kernel's chunk (1 to 8), 0 for the thread kernel */
  int width;            /**< the register kernels' last tile width (8, 16 or 32); 32 for the others, 0 for the
                             thread kernel */
  int warps;            /**< warps per block */
  int points;           /**< points per thread */
  int points_per_block; /**< points a block draws at a time */
  size_t shared;        /**< dynamic shared bytes per block */
  int forced;           /**< 1 when the caller named the row */
  char why[400];        /**< why this row: the rule that chose it, or that it was forced */
} sk_mix_zstep_choice;

/** \brief Rows in the z-step kernel table. \return the count. */
int sk_mix_zstep_kernel_count(void);

/**
 * \brief A row's name, which says what its kernel does (`one-point-regs`, `transposed-two-tiles`, ...).
 * \param row 0 to sk_mix_zstep_kernel_count() - 1.
 * \return the name, or NULL for a row out of range.
 */
const char *sk_mix_zstep_kernel_name(int row);

/**
 * \brief What a row's kernel does and what it needs, in a line each.
 * \param row 0 to sk_mix_zstep_kernel_count() - 1.
 * \param needs 0: what it does; 1: what it needs.
 * \return the text, or NULL for a row out of range.
 */
const char *sk_mix_zstep_kernel_text(int row, int needs);

/**
 * \brief Whether a row's kernel can run D and K with `warps` warps per block on a device of `caps`.
 * \param row the row.
 * \param d dimensions.
 * \param k components.
 * \param warps warps per block asked for (0: the row's default).
 * \param caps the device's shared memory.
 * \param why_not receives why not (at most cap bytes), or NULL.
 * \param cap size of why_not.
 * \return 1 when it fits, 0 when not (or the row is out of range).
 */
int sk_mix_zstep_kernel_fits(int row, int32_t d, int32_t k, int warps, const sk_mix_gpu_caps *caps, char *why_not,
                             size_t cap);

/**
 * \brief The table's lookup: the row that runs the z-step for D and K, or the row named `name`, with
 * its instance and launch shape. A pure function of its arguments (no CUDA call).
 * \param d dimensions, 1 to #SK_MIX_MAX_D.
 * \param k components, 1 to #SK_MIX_MAX_K.
 * \param warps warps per block asked for, 0 to 8 (0: each row's default).
 * \param caps the device's shared memory (sk_mix_gpu_caps_query()).
 * \param name NULL or "": the table's choice; else a row's name.
 * \param out receives the choice.
 * \param err an unknown name (the message lists the names), or a row that does not fit (and why).
 * \return 0 on success.
 */
int sk_mix_zstep_lookup(int32_t d, int32_t k, int warps, const sk_mix_gpu_caps *caps, const char *name,
                        sk_mix_zstep_choice *out, sk_ex_error *err);

/**
 * \brief A device's shared memory, for sk_mix_zstep_lookup().
 * \param device CUDA device ordinal.
 * \param caps receives it.
 * \param err a CUDA failure.
 * \return 0 on success.
 */
int sk_mix_gpu_caps_query(int device, sk_mix_gpu_caps *caps, sk_ex_error *err);

/** \brief The device state of one data set: points, assignments, table and statistics buffers. */
typedef struct sk_mix_gpu sk_mix_gpu;

/**
 * \brief Copies N x D standardized points to the device and allocates the rest for K components.
 * \param x the points (host, row-major).
 * \param n points, >= 1.
 * \param d dimensions, 1 to #SK_MIX_MAX_D.
 * \param k components, 1 to #SK_MIX_MAX_K.
 * \param o options, or NULL for the defaults.
 * \param out receives the state; release with sk_mix_gpu_destroy().
 * \param err a bad option (an unknown z-step kernel, or one that does not fit D and K), no device, or a
 *        CUDA failure (out of device memory: how much was asked).
 * \return 0 on success.
 */
int sk_mix_gpu_create(const float *x, int64_t n, int32_t d, int32_t k, const sk_mix_gpu_options *o, sk_mix_gpu **out,
                      sk_ex_error *err);

/**
 * \brief The z-step: uploads the table and draws every z on the device (asynchronous on the state's
 * stream; errors of the run surface at the next synchronising call).
 * \param g the state.
 * \param t the table (K and D of the state).
 * \param seed the run's seed.
 * \param sweep the sweep.
 * \param err a CUDA failure.
 * \return 0 on success.
 */
int sk_mix_gpu_zstep(sk_mix_gpu *g, const sk_mix_ztable *t, uint64_t seed, uint64_t sweep, sk_ex_error *err);

/**
 * \brief The statistics of the current z, computed on the device and copied to `out` (synchronises).
 * \param g the state.
 * \param out allocated for the state's K and D, with f1 and f2 of its N.
 * \param err a CUDA failure.
 * \return 0 on success.
 */
int sk_mix_gpu_stats(sk_mix_gpu *g, sk_mix_stats *out, sk_ex_error *err);

/**
 * \brief Copies the current z to the host (synchronises).
 * \param g the state.
 * \param z receives N components.
 * \param err a CUDA failure.
 * \return 0 on success.
 */
int sk_mix_gpu_copy_z(sk_mix_gpu *g, int32_t *z, sk_ex_error *err);

/**
 * \brief The z-step kernel table's row that the state runs, as looked up when it was created.
 * \param g the state.
 * \return the choice (valid while the state is).
 */
const sk_mix_zstep_choice *sk_mix_gpu_zstep_choice(const sk_mix_gpu *g);

/**
 * \brief The stream the state's work runs on (for timing it with events).
 * \param g the state.
 * \return its stream.
 */
sk_stream sk_mix_gpu_stream(const sk_mix_gpu *g);

/**
 * \brief Device bytes the state holds.
 * \param g the state.
 * \return bytes.
 */
size_t sk_mix_gpu_bytes(const sk_mix_gpu *g);

/** \brief Frees the state; NULL is fine. \param g the state. */
void sk_mix_gpu_destroy(sk_mix_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_GPU_H */
