/*
 * The GPU z-step kernels of sk-mixture (zstep_gpu.cu), as mix_gpu.cu launches them. Internal: C++.
 */
#ifndef SK_MIX_ZSTEP_GPU_CUH
#define SK_MIX_ZSTEP_GPU_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "mixture.h"

namespace sk_mix_gpu_detail {

/* One z-step: N points of D floats (row-major), the table (c: k_pad; s, ms: D x k_pad), the packed
   table of the broadcast kernel (zstep_pack()), the output. */
struct zstep_args {
  const float *x;
  int64_t n;
  int32_t d, k, k_pad;
  const float *c, *s, *ms;
  const float *packed;
  uint64_t seed, sweep;
  int32_t *z;
};

/* The butterfly kernel's shape: dimensions per register chunk (JC: D itself below 8, else 8), D padded
   to a multiple of it, the largest warps per block (its __launch_bounds__, and the broadcast kernel's),
   shared bytes per warp. */
constexpr int kZstepMaxWarps = 8;
int zstep_chunk(int32_t d);
int32_t zstep_d_pad(int32_t d);
size_t zstep_shared_per_warp(int32_t d);

/* The broadcast kernel's packed table: for component k (k_pad of them), a row of zstep_packed_row(D)
   floats, s_kj and -ms_kj for j = 0, 1, ... in pairs (D rounded up to 4 pairs, padding 0: a row is a
   whole number of 16-byte vectors), zero rows past K; then the k_pad chain starts -c_k, +inf past K
   (so that a kernel may run a last tile with absent components through the full tile's code:
   zstep_gpu.cu's zstep_full_tile()). */
__host__ __device__ inline int zstep_packed_row(int32_t d) { return (int)((d + 3) / 4 * 8); }
size_t zstep_packed_floats(int32_t d, int32_t k_pad);
void zstep_pack(const sk_mix_ztable *t, float *out);

/* The largest packed table the broadcast kernel copies into each block's shared memory (two blocks of
   256 threads per SM still fit with the kept tiles); a larger one is read from global memory through L1. */
constexpr size_t kZstepBroadcastMaxShared = 80u * 1024u;

/* How the z-step runs: the kernel (sk_mix_zstep_kernel), warps per block, the broadcast kernel's
   variant and points per thread, its dynamic shared bytes and the blocks of that shape one SM keeps
   resident. Variants of the broadcast kernel for D <= 16 with the table in shared memory: 1, a point a
   thread (two blocks of 256 an SM); 2, two points a thread (one block of 256); 3, two points a
   thread with their values in shared memory and the dimensions outside the components (two blocks of
   256); 4, for exactly two tiles (K = 33 to 64), variant 3 with each point's reservoir and uniforms
   in shared memory too, out of the registers the chains' loop needs to load ahead (one block of 512);
   5, for exactly two tiles, the transposed kernel (zstep_transposed.cuh: the table in registers, a
   warp's 32 points' chains through shared memory, sparse tiles where few weights are more than +0,
   zstep_sparse.cuh; one block of 512); 6, for three tiles or more, the transposed kernel in passes of
   two tiles (zstep_passes.cuh; one block of up to 512). The default is 1 for K <= 32 (3 for K = 32
   with D > 8 and for K = 9 to 16 at D = 16), 5 for K = 33 to 64, 6 above (but 3 or 2 for three tiles
   at D > 12, and at K = 96 with D = 9 to 12); where 6 does not apply, 3 for D <= 8 or for K a multiple
   of 32 up to 128 where two of its blocks fit an SM, else 2 (measured, zstep_prepare()); the
   environment variable SK_MIX_ZSTEP_VARIANT (1 to 6; 4 and 5 only where K is 33 to 64, 6 only above)
   overrides it, for measurements: all draw the same bits. */
struct zstep_plan {
  int kernel, warps, variant, points, blocks_per_sm;
  size_t shared;
  bool permuted;  // variant 6: rows of chains permuted instead of padded (zstep_passes.cuh)
};

/* Plans `kernel` for D, K and warps per block (and allows the kernel its shared memory). */
cudaError_t zstep_prepare(int kernel, int32_t d, int32_t k, int warps, zstep_plan *plan);

/* Launches the planned z-step kernel on `blocks` blocks. */
cudaError_t zstep_launch(const zstep_args &a, const zstep_plan &plan, int blocks, cudaStream_t stream);

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_GPU_CUH */
