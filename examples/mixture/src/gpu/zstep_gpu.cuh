/*
 * The GPU z-step kernels of sk-mixture (zstep_gpu.cu), as mix_gpu.cu launches them. Internal: C++.
 */
#ifndef SK_MIX_ZSTEP_GPU_CUH
#define SK_MIX_ZSTEP_GPU_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace sk_mix_gpu_detail {

/* One z-step: N points of D floats (row-major), the table (c: k_pad; s, ms: D x k_pad), the output. */
struct zstep_args {
  const float *x;
  int64_t n;
  int32_t d, k, k_pad;
  const float *c, *s, *ms;
  uint64_t seed, sweep;
  int32_t *z;
};

/* The butterfly kernel's shape: dimensions per register chunk (JC: D itself below 8, else 8), D padded
   to a multiple of it, the largest warps per block (its __launch_bounds__), shared bytes per warp. */
constexpr int kZstepMaxWarps = 8;
int zstep_chunk(int32_t d);
int32_t zstep_d_pad(int32_t d);
size_t zstep_shared_per_warp(int32_t d);

/* Blocks of `warps` warps that the butterfly kernel can keep resident on one SM (occupancy API). */
cudaError_t zstep_blocks_per_sm(int kernel, int32_t d, int warps, int *blocks);

/* Launches the z-step: kernel 0 the butterfly (warps per block, blocks), 1 a thread per point. */
cudaError_t zstep_launch(const zstep_args &a, int kernel, int warps, int blocks, cudaStream_t stream);

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_GPU_CUH */
