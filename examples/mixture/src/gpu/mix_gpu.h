/**
 * \file mix_gpu.h
 * \brief sk-mixture's CUDA part: the z-step and the statistics on a GPU, for data kept on the device.
 *
 * Built only when nvcc is found (SK_MIX_HAVE_GPU is then defined for every user of sk_mix_core). The
 * parameter step stays on the host (posterior.h): each sweep uploads the z-step's table (K (2 D + 1)
 * floats) and downloads the statistics (K (2 D + 1) integers).
 *
 * **z-step kernels** (all three draw exactly what the CPU reference draws, zstep.h):
 * - `SK_MIX_ZSTEP_BROADCAST` (the default): a thread per point, the components broadcast to the
 *   lanes. Each sweep the host packs the table by component (zstep_gpu.cuh: s_kj and -ms_kj in pairs,
 *   then c_k); each block copies it into shared memory, and every thread walks the tiles of 32
 *   components for its own points: one lane-uniform 16-byte load gives all lanes two dimensions of the
 *   same component, and the tile's 32 log-weights, their maximum, exponentials and tree sum stay in the
 *   thread's registers, in the CPU's order, with no shuffle and no transposition. For D <= 16 the
 *   point's values stay in registers for all tiles and the tile the reservoir keeps goes to the thread's
 *   slot of shared memory; with more than one tile (K > 32) a thread draws for two points (blockDim
 *   apart), so that each loaded table entry serves both (with one point a thread every FMA pair needs a
 *   loaded float; two points measured 10% faster at K = 64 and 512, one point 12% faster at K = 8).
 *   With two points, for D <= 8 and for K = 64, 96 and 128 the points' values go to shared memory and
 *   the chains are built with the dimensions outside the components, which frees the registers for two
 *   blocks an SM (8 to 9% faster there; zstep_gpu.cuh's variant 3; variant 2 where two such blocks do
 *   not fit an SM's shared memory: 22% faster at D = 8, K = 512). With exactly two tiles (K = 33 to
 *   64) the kernel is transposed (zstep_transposed.cuh, variant 5): each warp takes 32 points, its
 *   lanes hold two components' parameters in registers and compute the points' chains, which go
 *   through shared memory to the lane of their point for the tiles' weights, reservoir and search (2
 *   to 7% faster than the broadcast kernel's best two-tile variant, 4, which kept each point's
 *   reservoir and uniforms in shared memory so that its chains' loop could load the table ahead;
 *   variant 4 was 1 to 13% faster than variants 2 and 3 there). Where each point has few components
 *   within 2^-125 of its largest weight in a tile (well-separated components), it computes only
 *   those weights, and the tiles' sums and search from them (zstep_sparse.cuh; the other weights are
 *   exactly +0): 12% faster at K = 64, D = 16 on the benchmark's data, 18% at D = 8, and within 2% of
 *   the dense draws on overlapping data. One full tile (K = 32) with D > 8, and one tile of 9 to 16
 *   components at D = 16, take two points a thread with the dimensions outside (variant 3: 11% and
 *   3 to 4% faster at D = 16). A last
 *   tile with absent components runs the full tile's code where that measured faster (the table gives
 *   the absent ones chains of +inf; zstep_gpu.cu's zstep_full_tile()): K = 33 to 63 6 to 23% faster at
 *   D = 16. A single tile of at most 8 or 16 components runs code 8 or 16 weights wide (K = 12 and 16:
 *   11 to 22% faster than the 32-wide code), as a full tile of that width (the components past K at
 *   +inf: no test per component, whose branches serialised the exponentials; K = 4 to 16 2 to 18%
 *   faster). Partial last tiles drop that test too with the values in registers (K = 80 and 100: 5 to
 *   9% faster).
 *   Larger D is read in chunks of 16 dimensions, one point a thread, the kept tile in registers; a
 *   table larger than 80 KiB is read from global memory through L1. Work: N K D fused multiply-add
 *   pairs and N K exponentials; memory: the points once (4 N D bytes), z (4 N bytes).
 * - `SK_MIX_ZSTEP_THREAD`: a thread per point running sk_mix_draw_point() itself; the simple
 *   reference on the device, for tests.
 * - `SK_MIX_ZSTEP_BUTTERFLY`: a warp takes 32 consecutive points and walks the components in tiles of
 *   32, lane t computing component 32 b + t's log-weight for each of the 32 points (their values read
 *   from shared memory as broadcasts, the lane's component parameters held in registers for 8
 *   dimensions at a time). The tile is then a 32 x 32 block in registers, transposed, which samplekit's
 *   butterfly functions reduce: sk_warp_butterfly_block_max_f32() gives each point its tile maximum,
 *   sk_warp_butterfly_block_sum_f32() its tile sum, and after the last tile
 *   sk_warp_butterfly_block_search_f32() its component in the tile the reservoir kept. The shuffles of
 *   those reductions (and the points' loads per tile) make it several times slower than the broadcast
 *   kernel (bench/RESULTS.md); it is kept as the primitives' use and for comparison.
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
#include "samplekit/sk_config.h" /* sk_stream */

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Which z-step kernel runs (see the file's description). */
typedef enum sk_mix_zstep_kernel {
  SK_MIX_ZSTEP_BROADCAST = 0, /**< a thread per point, components broadcast, tiles in registers (default) */
  SK_MIX_ZSTEP_THREAD = 1,    /**< a thread per point running sk_mix_draw_point() (the reference on the device) */
  SK_MIX_ZSTEP_BUTTERFLY = 2  /**< a warp per 32 points, butterfly reductions */
} sk_mix_zstep_kernel;

/** \brief Which statistics kernel runs (see the file's description). */
typedef enum sk_mix_stats_kernel {
  SK_MIX_STATS_SORTED = 0, /**< tiles sorted by component, sums in registers along runs (default) */
  SK_MIX_STATS_ATOMIC = 1  /**< two 64-bit atomics per element (the first version) */
} sk_mix_stats_kernel;

/** \brief Launch options; zeros mean the defaults. Results do not depend on them. */
typedef struct sk_mix_gpu_options {
  int device;          /**< CUDA device ordinal (default 0) */
  int kernel;          /**< #sk_mix_zstep_kernel */
  int warps_per_block; /**< z-step warps per block, 1 to 8 (0: 8; the butterfly kernel: as many as fit 48 KiB) */
  int blocks;          /**< z-step and statistics blocks (0: enough for the device; each then loops over its share) */
  int stats_kernel;    /**< #sk_mix_stats_kernel */
} sk_mix_gpu_options;

/** \brief The device state of one data set: points, assignments, table and statistics buffers. */
typedef struct sk_mix_gpu sk_mix_gpu;

/**
 * \brief Whether CUDA device `device` can be used.
 * \param device ordinal.
 * \param name receives its name (at most cap bytes, NUL-terminated), or NULL.
 * \param cap size of name.
 * \param err why not (no driver, no device, ordinal out of range).
 * \return 0 when it can.
 */
int sk_mix_gpu_probe(int device, char *name, size_t cap, sk_mix_error *err);

/**
 * \brief Copies N x D standardized points to the device and allocates the rest for K components.
 * \param x the points (host, row-major).
 * \param n points, >= 1.
 * \param d dimensions, 1 to #SK_MIX_MAX_D.
 * \param k components, 1 to #SK_MIX_MAX_K.
 * \param o options, or NULL for the defaults.
 * \param out receives the state; release with sk_mix_gpu_destroy().
 * \param err a bad option, no device, or a CUDA failure (out of device memory: how much was asked).
 * \return 0 on success.
 */
int sk_mix_gpu_create(const float *x, int64_t n, int32_t d, int32_t k, const sk_mix_gpu_options *o, sk_mix_gpu **out,
                      sk_mix_error *err);

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
int sk_mix_gpu_zstep(sk_mix_gpu *g, const sk_mix_ztable *t, uint64_t seed, uint64_t sweep, sk_mix_error *err);

/**
 * \brief The statistics of the current z, computed on the device and copied to `out` (synchronises).
 * \param g the state.
 * \param out allocated for the state's K and D, with f1 and f2 of its N.
 * \param err a CUDA failure.
 * \return 0 on success.
 */
int sk_mix_gpu_stats(sk_mix_gpu *g, sk_mix_stats *out, sk_mix_error *err);

/**
 * \brief Copies the current z to the host (synchronises).
 * \param g the state.
 * \param z receives N components.
 * \param err a CUDA failure.
 * \return 0 on success.
 */
int sk_mix_gpu_copy_z(sk_mix_gpu *g, int32_t *z, sk_mix_error *err);

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
