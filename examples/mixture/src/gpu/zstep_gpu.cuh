/*
 * The GPU z-step of sk-mixture as mix_gpu.cu runs it: the arguments of a z-step, the kernel table's
 * choice turned into a launch plan (zstep_table.cu holds the table and its lookup, zstep_gpu.cu the
 * kernels), and the broadcast kernels' packed table. Internal: C++.
 */
#ifndef SK_MIX_ZSTEP_GPU_CUH
#define SK_MIX_ZSTEP_GPU_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/mix_gpu.h"
#include "mixture.h"

namespace sk_mix_gpu_detail {

/* One z-step: N points of D floats (row-major), the table (c: k_pad; s, ms: D x k_pad), the packed
   table of the broadcast kernels (zstep_pack()), the output. */
struct zstep_args {
  const float *x;
  int64_t n;
  int32_t d, k, k_pad;
  const float *c, *s, *ms;
  const float *packed;
  uint64_t seed, sweep;
  int32_t *z;
};

/* The rows of the z-step kernel table, in its order (zstep_table.cu has each row's name, what it
   needs and when it is chosen; mix_gpu.h the table as a whole). */
enum zstep_row {
  kRowThreadReference = 0,   // a thread per point running sk_mix_draw_point() (never chosen by itself)
  kRowButterflyWarp,         // a warp per 32 points, samplekit's butterfly reductions (never chosen by itself)
  kRowOnePointRegs,          // a thread per point, its values in registers, the table in shared memory
  kRowTwoPointRegs,          // two points a thread, their values in registers
  kRowTwoPointDimsOutside,   // two points a thread, their values in shared memory, dimensions outside
  kRowTransposedTwoTiles,    // exactly two tiles: the table in registers, the chains through shared memory
  kRowTransposedPasses,      // three tiles or more: the transposed kernel in passes of two tiles, padded rows
  kRowTransposedPassesPermuted,  // the same with unpadded, permuted rows
  kRowDimChunksShared,       // any D in chunks of 16 dimensions, the table in shared memory
  kRowDimChunksGlobal,       // the same with the table read from global memory through L1
  kZstepRows
};

/* The largest warps per block of the kernels that take the caller's warps (the register, chunk and
   butterfly kernels' __launch_bounds__). */
constexpr int kZstepMaxWarps = 8;
/* The transposed kernels' warps per block (their __launch_bounds__): one block an SM (at D = 16 the
   two-tile kernel takes 126 to 128 registers a thread and 213 KiB of shared memory). */
constexpr int kZstepTransposedWarps = 16;

/* Floats a point's row of chains takes in a transposed kernel's buffer: 64 and 4 of padding, so that
   the 8 lanes of each phase of a 16-byte load (rows 272 bytes apart) cover the 32 banks once. */
constexpr int kTrRow = 68;

/* The two-tile transposed kernel's shared bytes per warp: two staging buffers of the 32 points' values
   (JX floats each), their rows of chains. */
__host__ __device__ constexpr size_t tr_shared_per_warp(int jx) {
  return sizeof(float) * 32u * (size_t)(2 * jx + kTrRow);
}

/* The kernel in passes: a point's row of chains padded to 68 floats as in the two-tile kernel, or 64
   floats with the rows' 16-byte vectors permuted, vector v of point t at v ^ (t % 8): either way the 8
   lanes of each phase of a warp's 16-byte loads (lane t, its row t, the same v) cover the 32 banks once.
   The permuted rows cost a few instructions a load, and fit one more warp where the padding costs one
   (K = 512, D = 16: 16 warps instead of 15). */
__host__ __device__ constexpr int ps_row_floats(bool permuted) { return permuted ? 64 : kTrRow; }

/* Its shared bytes per warp: one staging buffer of the 32 points' values (JX floats each), their rows
   of chains. */
__host__ __device__ constexpr size_t ps_shared_per_warp(int jx, bool permuted) {
  return sizeof(float) * 32u * (size_t)(jx + ps_row_floats(permuted));
}
/* Threads per block of the thread-per-point kernel. */
constexpr int kZstepThreadBlock = 256;

/* The butterfly kernel's shape: dimensions per register chunk (JC: D itself below 8, else 8), D padded
   to a multiple of it, shared bytes per warp (a warp's 32 staged points). */
int zstep_chunk(int32_t d);
int32_t zstep_d_pad(int32_t d);
size_t zstep_shared_per_warp(int32_t d);

/* The broadcast kernels' packed table: for component k (k_pad of them), a row of zstep_packed_row(D)
   floats, s_kj and -ms_kj for j = 0, 1, ... in pairs (D rounded up to 4 pairs, padding 0: a row is a
   whole number of 16-byte vectors), zero rows past K; then the k_pad chain starts -c_k, +inf past K
   (so that a kernel may run a last tile with absent components through the full tile's code:
   zstep_gpu.cu's zstep_full_tile()). */
__host__ __device__ inline int zstep_packed_row(int32_t d) { return (int)((d + 3) / 4 * 8); }
size_t zstep_packed_floats(int32_t d, int32_t k_pad);
void zstep_pack(const sk_mix_ztable *t, float *out);

/* The largest packed table the broadcast kernels copy into each block's shared memory (two blocks of
   256 threads per SM still fit with the kept tiles); a larger one is read from global memory through L1. */
constexpr size_t kZstepBroadcastMaxShared = 80u * 1024u;

/* Shared bytes a thread of the register kernels takes beside the table: the kept tiles (32 floats a
   point) and, with the dimensions outside, the points' values (D rounded up to 4). */
size_t zstep_regs_shared_per_thread(bool dims_outside, int points, int32_t d);

/* Which row of the table runs and its launch shape: the lookup's answer (sk_mix_zstep_lookup(), in
   zstep_table.cu, made before anything is allocated), then the blocks of that shape one SM keeps
   resident (zstep_prepare()). */
struct zstep_plan {
  sk_mix_zstep_choice choice;
  int blocks_per_sm;
};

/* The planned kernel's occupancy (and its shared memory allowance above 48 KiB). */
cudaError_t zstep_prepare(zstep_plan *plan);

/* Launches the planned z-step kernel on `blocks` blocks. */
cudaError_t zstep_launch(const zstep_args &a, const zstep_plan &plan, int blocks, cudaStream_t stream);

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_GPU_CUH */
