// The GPU z-step kernels (mix_gpu.h describes them, zstep_table.cu chooses one; zstep.h defines the draw
// they must reproduce), and their launch.
#include <string.h>

#include <type_traits>

#include "gpu/mix_gpu.h"
#include "gpu/zstep_broadcast.cuh"
#include "gpu/zstep_gpu.cuh"
#include "gpu/zstep_passes.cuh"
#include "gpu/zstep_transposed.cuh"
#include "samplekit/butterfly.cuh"
#include "samplekit/rng.cuh"
#include "zstep.h"

namespace sk_mix_gpu_detail {
namespace {

typedef void (*zstep_kernel_fn)(zstep_args);

// The instance of a kernel templated on D rounded up to 4 (4, 8, 12, or 16 for anything larger):
// `pick(std::integral_constant<int, JX>{})` names it.
template <typename Pick>
zstep_kernel_fn for_d4(int d4, Pick pick) {
  switch (d4) {
    case 4: return pick(std::integral_constant<int, 4>{});
    case 8: return pick(std::integral_constant<int, 8>{});
    case 12: return pick(std::integral_constant<int, 12>{});
    default: return pick(std::integral_constant<int, 16>{});
  }
}

// Whether tile b of a broadcast kernel runs the full tile's code: every tile but the last, and the last
// too where that is faster. Past K the packed table holds chain starts of +inf and zero rows
// (zstep_pack()), so the full code gives the absent components +inf chains and weights of +0, the
// values the partial code gives them by selects. With the dimensions outside the components the
// partial code's selects and group tests cost more than the absent components' chains at any count;
// with them inside only above 24 components (bench/RESULTS.md, "sk-mixture z-step kernel table"). The
// count is compared at run time in every kernel even where the answer is known when compiling: the
// kernels were measured so, and removing those branches changes their fragile register allocation.
__device__ __forceinline__ bool zstep_full_tile(int b, int num_tiles, int last_r, bool dims_outside) {
  return b + 1 < num_tiles || last_r > (dims_outside ? 0 : 24);
}

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

// A point's draw before its first tile: no weight kept, the reservoir empty; returns the point's first
// four uniforms (of tiles 0 to 3; the first also picks within the kept tile at the end).
__device__ __forceinline__ sk_f32x4 point_start(uint64_t seed, uint64_t sweep, int64_t point, int num_tiles,
                                                float (&kept)[32], sk_thread_tile_reservoir_f32 &res) {
#pragma unroll
  for (int i = 0; i < 32; ++i) kept[i] = 0.0f;
  sk_thread_tile_reservoir_init_f32(&res);
  return sk_mix_z_uniforms(seed, sweep, point, num_tiles, 0);
}

// Row butterfly-warp. A warp takes 32 consecutive points; lane r owns point first + r. For each tile b
// of 32 components, lane t computes component 32 b + t's log-weight for all 32 points (v[s] for point
// first + s): the block is then transposed in registers as samplekit's butterfly functions expect it.
// The arithmetic is zstep.h's, operation for operation (q from -c, j in order; padding dimensions add
// exactly +0).
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
    bc_stage_rows(a.x, a.d, first, rows, d_pad, lane, xs);
    __syncwarp();
    float kept[32];
    sk_thread_tile_reservoir_f32 res;
    sk_f32x4 u4 = point_start(a.seed, a.sweep, point, num_tiles, kept, res);
    const float u0 = u4.x;
    for (int b = 0; b < num_tiles; ++b) {
      const int32_t comp = b * 32 + lane;
      const bool has = comp < a.k;
      const float c = has ? __ldg(a.c + comp) : 0.0f;
      float v[32];  // the chains q, from -c
#pragma unroll
      for (int s = 0; s < 32; ++s) v[s] = -c;
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
      // The log-weights -q (negation is exact; absent components -inf): lane r gets its point's tile
      // maximum, -h_b; every lane needs each point's to shift its column. L - M rounds as h_b - q.
#pragma unroll
      for (int s = 0; s < 32; ++s) v[s] = has ? -v[s] : -sk_mix_pos_inf();
      const float mb = sk_warp_butterfly_block_max_f32(v);
#pragma unroll
      for (int s = 0; s < 32; ++s) v[s] = sk_tile_exp2_neg_f32(__fsub_rn(v[s], __shfl_sync(SK_FULL_MASK, mb, s)));
      const float tb = sk_warp_butterfly_block_sum_f32(v);
      if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, b / 4);
      const int take = sk_thread_tile_reservoir_step_f32(&res, b, -mb, tb, sk_mix_pick4(u4, b % 4));
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

// Row thread-reference: a thread per point running zstep.h's sk_mix_draw_point() itself (the table in
// its D x k_pad layout).
__global__ void zstep_thread_kernel(zstep_args a) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride)
    a.z[i] = sk_mix_draw_point(a.x + (size_t)i * (size_t)a.d, a.d, a.k, a.c, a.s, a.ms, a.k_pad, 1, a.seed, a.sweep, i);
}

// ---------------------------------------------------------------------------------------------------
// The broadcast kernels (their building blocks: zstep_broadcast.cuh).

// The register kernels: rows one-point-regs (P = 1), two-point-regs (P = 2) and two-point-dims-outside
// (P = 2, kDimsOutside) of the table. D <= 16 (JX = D rounded up to 4): each thread draws for P points
// (blockDim apart), whose values stay in registers for all tiles; the table in shared memory, each
// 16-byte load of it serving the P points; the kept tile of each point in a slot of shared memory after
// the table. WL: the width of the last tile's code, 8 when K <= 8, 16 when K <= 16, else 32. A tile of
// WL = 8 or 16 always runs as a full tile of that width (the components from K to WL get +inf chains and
// weights of +0 from the table, as in zstep_full_tile()): the partial code tests each component against
// K, and the compiler turned those tests into branches around the exponentials, one after the other,
// whose polynomials then waited on their own FMAs. Two blocks of 256 threads an SM for P = 1 (at most
// 128 registers a thread), one for P = 2 (about 190: smaller blocks with fewer registers were slower).
// kDimsOutside: the points' values in shared memory after the kept slots (P JX / 2 float2 a thread),
// the chains built with the dimensions outside (bc_accumulate_dims_outside()), two blocks an SM.
template <int JX, int WL, int P, bool kDimsOutside>
__global__ void __launch_bounds__(kZstepMaxWarps * 32, (P == 1 || kDimsOutside) ? 2 : 1)
    zstep_broadcast_regs_kernel(zstep_args a) {
  extern __shared__ float4 smem4[];
  bc_stage(a.packed, a.k_pad, 2 * JX, smem4);
  const float *tab = reinterpret_cast<const float *>(smem4);
  const float *cs = tab + (size_t)a.k_pad * (2u * JX);
  const int stride4 = (int)blockDim.x;  // slot (p, v) of the thread at (8 p + v) blockDim + threadIdx.x
  float4 *const kept = smem4 + (size_t)a.k_pad * (2u * JX + 1u) / 4u + threadIdx.x;
  float2 *const xs = reinterpret_cast<float2 *>(kept - threadIdx.x + (size_t)P * 8u * blockDim.x) + threadIdx.x;
  const int num_tiles = sk_mix_num_tiles(a.k);
  const bool single = num_tiles == 1;
  const int last_r = a.k - 32 * (num_tiles - 1);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x * P;
  for (int64_t first = (int64_t)blockIdx.x * blockDim.x * P + threadIdx.x; first < a.n; first += stride) {
    float x[P][JX];
    sk_thread_tile_reservoir_f32 res[P];
    sk_f32x4 u4[P];
    float u0[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int64_t point = first + (int64_t)p * blockDim.x;
      bc_load_point<JX>(a.x, a.n, a.d, point, x[p]);
      if constexpr (kDimsOutside)  // the thread's own slots: no barrier needed before it reads them
        bc_store_values<JX>(x[p], xs + (size_t)(p * (JX / 2)) * blockDim.x, blockDim.x);
      sk_thread_tile_reservoir_init_f32(&res[p]);
      u4[p] = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, 0);
      u0[p] = u4[p].x;
    }
    float q[P][32];
    for (int b = 0; b < num_tiles; ++b) {
      if (b > 0 && b % 4 == 0) {
#pragma unroll
        for (int p = 0; p < P; ++p)
          u4[p] = sk_mix_z_uniforms(a.seed, a.sweep, first + (int64_t)p * blockDim.x, num_tiles, b / 4);
      }
      if (WL == 32 ? zstep_full_tile(b, num_tiles, last_r, kDimsOutside) : b + 1 < num_tiles)
        bc_regs_tile<JX, 32, true, P, kDimsOutside>(tab, cs, b, 32, single, x, xs, res, u4, q, kept, stride4);
      else if (WL < 32)  // one tile of at most 8 or 16 components: the WL-wide code as a full tile (below)
        bc_regs_tile<JX, WL, true, P, kDimsOutside>(tab, cs, b, WL, single, x, xs, res, u4, q, kept, stride4);
      else
        bc_regs_tile<JX, WL, false, P, kDimsOutside>(tab, cs, b, last_r, single, x, xs, res, u4, q, kept, stride4);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int64_t point = first + (int64_t)p * blockDim.x;
      int pos;
      if (single) {
        pos = sk_thread_tile_search_f32(q[p], WL, __fmul_rn(u0[p], res[p].t_sel));
      } else {
        // bc_load_kept()'s loop, with the index written as here: through the helper this kernel
        // compiles to other (slightly larger) code, and its timings were measured with this one.
        float kp[32];
#pragma unroll
        for (int v = 0; v < 8; ++v) {
          const float4 f = kept[((size_t)p * 8u + (size_t)v) * (size_t)stride4];
          kp[4 * v] = f.x, kp[4 * v + 1] = f.y, kp[4 * v + 2] = f.z, kp[4 * v + 3] = f.w;
        }
        pos = sk_thread_tile_search_f32(kp, 32, __fmul_rn(u0[p], res[p].t_sel));
      }
      if (point < a.n) a.z[point] = res[p].sel * 32 + pos;
    }
  }
}

// Row transposed-two-tiles (zstep_transposed.cuh) and the kernel in passes, rows transposed-passes and
// transposed-passes-permuted (zstep_passes.cuh), for D rounded up to 4.
zstep_kernel_fn transposed_for(int d4) {
  return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_transposed_kernel<decltype(jx)::value>; });
}

zstep_kernel_fn passes_for(int d4, bool permuted) {
  if (permuted)
    return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_passes_kernel<decltype(jx)::value, true>; });
  return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_passes_kernel<decltype(jx)::value, false>; });
}

// Rows dim-chunks-shared and dim-chunks-global: any D, the table in shared memory (kShared) or read
// from global memory through L1: for each tile the point's values are read in chunks of 16 dimensions
// (JR in the last chunk: D rounded up to 4, less the full chunks), q accumulating across chunks.
template <int JR, bool kShared>
__device__ __forceinline__ void bc_chunks_tile(const zstep_args &a, const float *tab, const float *cs, int row,
                                               int64_t point, int b, int r, bool full,
                                               sk_thread_tile_reservoir_f32 &res, float ub, float (&kept)[32]) {
  float q[1][32];
  if (full)
    bc_init_chains<32, true>(cs + b * 32, r, q[0]);
  else
    bc_init_chains<32, false>(cs + b * 32, r, q[0]);
  const float *tile = tab + (size_t)b * 32u * (size_t)row;
  const int full_chunks = (row / 2 - JR) / 16;
  for (int c = 0; c < full_chunks; ++c) {
    float x[1][16];
    bc_load_x<16, false>(a.x, point, a.d, 16 * c, x[0]);
    if (full)
      bc_accumulate<16, 32, true, 1, 4>(tile, row, 16 * c, r, x, q);
    else
      bc_accumulate<16, 32, false, 1, 4>(tile, row, 16 * c, r, x, q);
  }
  {
    float x[1][JR];
    bc_load_x<JR, false>(a.x, point, a.d, 16 * full_chunks, x[0]);
    if (full)
      bc_accumulate<JR, 32, true, 1, 4>(tile, row, 16 * full_chunks, r, x, q);
    else
      bc_accumulate<JR, 32, false, 1, 4>(tile, row, 16 * full_chunks, r, x, q);
  }
  if (full)
    bc_finish_tile<32, true>(r, b, q[0], res, ub, kept);
  else
    bc_finish_tile<32, false>(r, b, q[0], res, ub, kept);
}

template <int JR, bool kShared>
__global__ void __launch_bounds__(kZstepMaxWarps * 32, 2) zstep_broadcast_chunks_kernel(zstep_args a) {
  extern __shared__ float4 smem4[];
  const int row = zstep_packed_row(a.d);
  const float *tab = a.packed;
  if (kShared) {
    bc_stage(a.packed, a.k_pad, row, smem4);
    tab = reinterpret_cast<const float *>(smem4);
  }
  const float *cs = tab + (size_t)a.k_pad * (size_t)row;
  const int num_tiles = sk_mix_num_tiles(a.k);
  const int last_r = a.k - 32 * (num_tiles - 1);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t point = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; point < a.n; point += stride) {
    float kept[32];
    sk_thread_tile_reservoir_f32 res;
    sk_f32x4 u4 = point_start(a.seed, a.sweep, point, num_tiles, kept, res);
    const float u0 = u4.x;
    for (int b = 0; b < num_tiles; ++b) {
      if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, b / 4);
      const bool full = zstep_full_tile(b, num_tiles, last_r, false);
      bc_chunks_tile<JR, kShared>(a, tab, cs, row, point, b, full ? 32 : last_r, full, res, sk_mix_pick4(u4, b % 4),
                                  kept);
    }
    a.z[point] = res.sel * 32 + sk_thread_tile_search_f32(kept, 32, __fmul_rn(u0, res.t_sel));
  }
}

// The butterfly kernel's instance for its chunk of dimensions (1 to 8).
zstep_kernel_fn butterfly_for(int jc) {
  switch (jc) {
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

// The register kernel's instance for D rounded up to 4 and the last tile's width WL (8, 16 or 32).
template <int P, bool kDimsOutside>
zstep_kernel_fn broadcast_regs_for(int d4, int width) {
  switch (width) {
    case 8:
      return for_d4(d4, [](auto jx) -> zstep_kernel_fn {
        return zstep_broadcast_regs_kernel<decltype(jx)::value, 8, P, kDimsOutside>;
      });
    case 16:
      return for_d4(d4, [](auto jx) -> zstep_kernel_fn {
        return zstep_broadcast_regs_kernel<decltype(jx)::value, 16, P, kDimsOutside>;
      });
    default:
      return for_d4(d4, [](auto jx) -> zstep_kernel_fn {
        return zstep_broadcast_regs_kernel<decltype(jx)::value, 32, P, kDimsOutside>;
      });
  }
}

// The chunk kernel's instance for its last chunk's width (4 to 16).
template <bool kShared>
zstep_kernel_fn chunks_for(int jr) {
  return for_d4(jr, [](auto jx) -> zstep_kernel_fn {
    return zstep_broadcast_chunks_kernel<decltype(jx)::value, kShared>;
  });
}

// The kernel of a row of the table, for the choice's instance.
zstep_kernel_fn kernel_for(const sk_mix_zstep_choice &c) {
  switch (c.row) {
    case kRowThreadReference: return zstep_thread_kernel;
    case kRowButterflyWarp: return butterfly_for(c.dims);
    case kRowOnePointRegs: return broadcast_regs_for<1, false>(c.dims, c.width);
    case kRowTwoPointRegs: return broadcast_regs_for<2, false>(c.dims, c.width);
    case kRowTwoPointDimsOutside: return broadcast_regs_for<2, true>(c.dims, c.width);
    case kRowTransposedTwoTiles: return transposed_for(c.dims);
    case kRowTransposedPasses: return passes_for(c.dims, false);
    case kRowTransposedPassesPermuted: return passes_for(c.dims, true);
    case kRowDimChunksShared: return chunks_for<true>(c.dims);
    default: return chunks_for<false>(c.dims);
  }
}

int block_threads(const sk_mix_zstep_choice &c) {
  return c.row == kRowThreadReference ? kZstepThreadBlock : 32 * c.warps;
}

}  // namespace

int zstep_chunk(int32_t d) { return d < 8 ? (int)d : 8; }

int32_t zstep_d_pad(int32_t d) { return (d + zstep_chunk(d) - 1) / zstep_chunk(d) * zstep_chunk(d); }

size_t zstep_shared_per_warp(int32_t d) { return sizeof(float) * 32u * (size_t)zstep_d_pad(d); }

size_t zstep_packed_floats(int32_t d, int32_t k_pad) { return (size_t)k_pad * (size_t)(zstep_packed_row(d) + 1); }

void zstep_pack(const sk_mix_ztable *t, float *out) {
  const int row = zstep_packed_row(t->d);
  float *const c = out + (size_t)t->k_pad * (size_t)row;
  memset(out, 0, sizeof(float) * zstep_packed_floats(t->d, t->k_pad));
  for (int32_t k = 0; k < t->k_pad; ++k) {
    float *r = out + (size_t)k * (size_t)row;
    for (int32_t j = 0; j < t->d; ++j) {
      r[2 * j] = t->s[(size_t)j * (size_t)t->k_pad + (size_t)k];
      r[2 * j + 1] = -t->ms[(size_t)j * (size_t)t->k_pad + (size_t)k];  // negation is exact
    }
    c[k] = k < t->k ? -t->c[k] : sk_mix_pos_inf();  // the chains start from -c; absent ones at +inf
  }
}

size_t zstep_regs_shared_per_thread(bool dims_outside, int points, int32_t d) {
  return (size_t)points * (128u + (dims_outside ? 4u * (size_t)((d + 3) / 4 * 4) : 0u));
}

cudaError_t zstep_prepare(zstep_plan *plan) {
  const zstep_kernel_fn f = kernel_for(plan->choice);
  if (plan->choice.shared > 48u * 1024u) {
    const cudaError_t e =
        cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)plan->choice.shared);
    if (e != cudaSuccess) return e;
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan->blocks_per_sm, f, block_threads(plan->choice),
                                                       plan->choice.shared);
}

cudaError_t zstep_launch(const zstep_args &a, const zstep_plan &plan, int blocks, cudaStream_t stream) {
  if (a.n == 0) return cudaSuccess;
  kernel_for(plan.choice)<<<blocks, block_threads(plan.choice), plan.choice.shared, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace sk_mix_gpu_detail
