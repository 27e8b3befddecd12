// The GPU z-step kernels (mix_gpu.h describes both; zstep.h defines the draw they must reproduce).
#include "gpu/zstep_gpu.cuh"
#include "samplekit/butterfly.cuh"
#include "samplekit/rng.cuh"
#include "zstep.h"

namespace sk_mix_gpu_detail {
namespace {

constexpr int kThreadBlock = 256;

// JC values of point s, dimensions j0 .. j0 + JC - 1, from the warp's staged tile (the same address in
// every lane: a broadcast). Four at a time when JC allows: the tile's rows are padded to a multiple of
// JC, so those loads are 16-byte aligned.
template <int JC>
__device__ __forceinline__ void load_x(const float *row, float (&xv)[JC]) {
  if (JC % 4 == 0) {
#pragma unroll
    for (int q = 0; q < JC / 4; ++q) {
      const float4 f = reinterpret_cast<const float4 *>(row)[q];
      xv[4 * q] = f.x, xv[4 * q + 1] = f.y, xv[4 * q + 2] = f.z, xv[4 * q + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int jj = 0; jj < JC; ++jj) xv[jj] = row[jj];
  }
}

// A warp takes 32 consecutive points; lane r owns point first + r. For each tile b of 32 components,
// lane t computes component 32 b + t's log-weight for all 32 points (v[s] for point first + s): the
// block is then transposed in registers as samplekit's butterfly functions expect it. The arithmetic is
// zstep.h's, operation for operation (q from +0, j in order; padding dimensions add exactly +0).
template <int JC>
__global__ void __launch_bounds__(kZstepMaxWarps * 32) zstep_butterfly_kernel(zstep_args a) {
  extern __shared__ float4 smem4[];  // float4: the tile's rows are read as 16-byte vectors
  float *const smem = reinterpret_cast<float *>(smem4);
  const int lane = sk_lane_id(), warp = (int)(threadIdx.x / 32), warps = (int)(blockDim.x / 32);
  const int32_t d_pad = (a.d + JC - 1) / JC * JC;
  float *const xs = smem + (size_t)warp * 32 * (size_t)d_pad;
  const int num_tiles = sk_mix_num_tiles(a.k);
  const int64_t stride = (int64_t)gridDim.x * warps * 32;
  for (int64_t first = ((int64_t)blockIdx.x * warps + warp) * 32; first < a.n; first += stride) {
    const int64_t point = first + lane;
    const int rows = a.n - first < 32 ? (int)(a.n - first) : 32;
    __syncwarp();  // the previous tile's reads are done
    for (int i = lane; i < 32 * d_pad; i += 32) {
      const int r = i / d_pad, j = i - r * d_pad;
      xs[i] = (r < rows && j < a.d) ? a.x[(size_t)(first + r) * (size_t)a.d + (size_t)j] : 0.0f;
    }
    __syncwarp();
    float kept[32];
#pragma unroll
    for (int s = 0; s < 32; ++s) kept[s] = 0.0f;
    sk_mix_reservoir res;
    res.m = res.s = res.t_sel = 0.0f;
    res.sel = 0;
    sk_f32x4 u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, 0);
    const float u0 = u4.x;
    for (int b = 0; b < num_tiles; ++b) {
      const int32_t comp = b * 32 + lane;
      const bool has = comp < a.k;
      float v[32];
#pragma unroll
      for (int s = 0; s < 32; ++s) v[s] = 0.0f;
      for (int32_t j0 = 0; j0 < d_pad; j0 += JC) {
        float sj[JC], msj[JC];
#pragma unroll
        for (int jj = 0; jj < JC; ++jj) {
          const int32_t j = j0 + jj;
          const bool in = has && j < a.d;
          sj[jj] = in ? __ldg(a.s + (size_t)j * (size_t)a.k_pad + (size_t)comp) : 0.0f;
          msj[jj] = in ? -__ldg(a.ms + (size_t)j * (size_t)a.k_pad + (size_t)comp) : 0.0f;
        }
#pragma unroll
        for (int s = 0; s < 32; ++s) {
          float xv[JC];
          load_x<JC>(xs + (size_t)s * (size_t)d_pad + (size_t)j0, xv);
#pragma unroll
          for (int jj = 0; jj < JC; ++jj) {
            const float t = __fmaf_rn(xv[jj], sj[jj], msj[jj]);
            v[s] = __fmaf_rn(t, t, v[s]);
          }
        }
      }
      const float c = has ? __ldg(a.c + comp) : 0.0f;
#pragma unroll
      for (int s = 0; s < 32; ++s) v[s] = has ? __fsub_rn(c, __fmul_rn(0.5f, v[s])) : sk_mix_neg_inf();
      // Lane r gets its point's tile maximum; every lane needs each point's to shift its column.
      const float mb = sk_warp_butterfly_block_max_f32(v);
#pragma unroll
      for (int s = 0; s < 32; ++s) v[s] = sk_mix_exp_neg(__fsub_rn(v[s], __shfl_sync(SK_FULL_MASK, mb, s)));
      const float tb = sk_warp_butterfly_block_sum_f32(v);
      if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, b / 4);
      const int take = sk_mix_reservoir_step(&res, b, mb, tb, sk_mix_pick4(u4, b % 4));
      // Point s took this tile: every lane keeps its column of point s's weights.
      const unsigned takers = __ballot_sync(SK_FULL_MASK, take);
#pragma unroll
      for (int s = 0; s < 32; ++s)
        if ((takers >> s) & 1u) kept[s] = v[s];
    }
    const int pos = sk_warp_butterfly_block_search_f32(kept, __fmul_rn(u0, res.t_sel));
    if (lane < rows) a.z[point] = res.sel * 32 + pos;
  }
}

// A thread per point: zstep.h's sk_mix_draw_point() itself (the table in its D x k_pad layout).
__global__ void zstep_thread_kernel(zstep_args a) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride)
    a.z[i] = sk_mix_draw_point(a.x + (size_t)i * (size_t)a.d, a.d, a.k, a.c, a.s, a.ms, a.k_pad, 1, a.seed, a.sweep, i);
}

// The butterfly kernel's instance for D's chunk width (1 to 8).
typedef void (*zstep_kernel_fn)(zstep_args);
zstep_kernel_fn butterfly_for(int32_t d) {
  switch (zstep_chunk(d)) {
    case 1: return zstep_butterfly_kernel<1>;
    case 2: return zstep_butterfly_kernel<2>;
    case 3: return zstep_butterfly_kernel<3>;
    case 4: return zstep_butterfly_kernel<4>;
    case 5: return zstep_butterfly_kernel<5>;
    case 6: return zstep_butterfly_kernel<6>;
    case 7: return zstep_butterfly_kernel<7>;
    default: return zstep_butterfly_kernel<8>;
  }
}

}  // namespace

int zstep_chunk(int32_t d) { return d < 8 ? (int)d : 8; }

int32_t zstep_d_pad(int32_t d) { return (d + zstep_chunk(d) - 1) / zstep_chunk(d) * zstep_chunk(d); }

size_t zstep_shared_per_warp(int32_t d) { return sizeof(float) * 32u * (size_t)zstep_d_pad(d); }

cudaError_t zstep_blocks_per_sm(int kernel, int32_t d, int warps, int *blocks) {
  if (kernel == 1) return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, zstep_thread_kernel, kThreadBlock, 0);
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, butterfly_for(d), warps * 32,
                                                       (size_t)warps * zstep_shared_per_warp(d));
}

cudaError_t zstep_launch(const zstep_args &a, int kernel, int warps, int blocks, cudaStream_t stream) {
  if (a.n == 0) return cudaSuccess;
  if (kernel == 1) {
    zstep_thread_kernel<<<blocks, kThreadBlock, 0, stream>>>(a);
  } else {
    butterfly_for(a.d)<<<blocks, warps * 32, (size_t)warps * zstep_shared_per_warp(a.d), stream>>>(a);
  }
  return cudaGetLastError();
}

}  // namespace sk_mix_gpu_detail
