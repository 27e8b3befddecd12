// The GPU z-step kernels (mix_gpu.h describes them; zstep.h defines the draw they must reproduce).
#include <stdlib.h>
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

constexpr int kThreadBlock = 256;

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
// values the partial code gives them by selects. Measured on an H200 (D = 16 unless stated; z-step ms,
// partial code against full): with the dimensions outside the components (variants 3 and 4) the
// partial code is slow at any count: K = 33 1.49 against 1.41, K = 48 1.63 against 1.43, K = 56 1.74
// against 1.43, and at D = 8, K = 100 2.47 against 1.95. With them inside (variants 1 and 2, and the
// chunk kernel) it is faster up to 24 components: K = 16 0.63 against 0.95, K = 24 0.81 against 0.96,
// K = 80 2.38 against 2.49, K = 100 3.00 against 3.34; K = 120 3.33 against 3.27, K = 28 and 31 1.00
// against 0.94 (H100). The count is compared at run time in every kernel even where the answer is
// known when compiling (in the two-tile kernel it is always "full", so its partial branches never run):
// the kernels were measured so, and removing those branches changes their fragile register allocation.
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
                                                float (&kept)[32], sk_mix_reservoir &res) {
#pragma unroll
  for (int i = 0; i < 32; ++i) kept[i] = 0.0f;
  res.h = res.s = res.t_sel = 0.0f;
  res.sel = 0;
  return sk_mix_z_uniforms(seed, sweep, point, num_tiles, 0);
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
    bc_stage_rows(a.x, a.d, first, rows, d_pad, lane, xs);
    __syncwarp();
    float kept[32];
    sk_mix_reservoir res;
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
      for (int s = 0; s < 32; ++s) v[s] = sk_mix_exp2_neg(__fsub_rn(v[s], __shfl_sync(SK_FULL_MASK, mb, s)));
      const float tb = sk_warp_butterfly_block_sum_f32(v);
      if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, b / 4);
      const int take = sk_mix_reservoir_step(&res, b, -mb, tb, sk_mix_pick4(u4, b % 4));
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

// ---------------------------------------------------------------------------------------------------
// The broadcast kernels (their building blocks: zstep_broadcast.cuh).

// D <= 16 (JX = D rounded up to 4): each thread draws for P points (blockDim apart), whose values stay
// in registers for all tiles; the table in shared memory, each 16-byte load of it serving the P points;
// the kept tile of each point in a slot of shared memory after the table. WL: the width of the last
// tile's code, 8 when K <= 8, 16 when K <= 16, else 32. A tile of WL = 8 or 16 always runs as a full
// tile of that width (the components from K to WL get +inf chains and weights of +0 from the table, as
// in zstep_full_tile()): the partial code tests each component against K, and the compiler turned those
// tests into branches around the exponentials, one after the other, whose polynomials then waited on
// their own FMAs (Nsight at K = 8, D = 16: fixed-latency waits 1.26 per issued instruction). Full, K =
// 4 to 16 run 2 to 4% faster at D = 16 (1% slower at K = 4), 9 to 15% at D = 8, 4 to 18% at D = 4
// (H200). Two blocks of 256 threads an SM for P = 1 (at most 128 registers a thread), one for P = 2
// (about 190: blocks of 128 with 168 registers, three an SM, measured 17% slower at K = 64).
// kDimsOutside (variant 3, P = 2): the points' values in shared memory after the kept slots (P JX / 2
// float2 a thread), the chains built with the dimensions outside (bc_accumulate_dims_outside()), two
// blocks an SM.
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
    sk_mix_reservoir res[P];
    sk_f32x4 u4[P];
    float u0[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int64_t point = first + (int64_t)p * blockDim.x;
      bc_load_point<JX>(a.x, a.n, a.d, point, x[p]);
      if constexpr (kDimsOutside)  // the thread's own slots: no barrier needed before it reads them
        bc_store_values<JX>(x[p], xs + (size_t)(p * (JX / 2)) * blockDim.x, blockDim.x);
      res[p].h = res[p].s = res[p].t_sel = 0.0f;
      res[p].sel = 0;
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
        pos = bc_tree_search<WL>(q[p], __fmul_rn(u0[p], res[p].t_sel));
      } else {
        // bc_load_kept()'s loop, with the index written as here: through the helper this kernel
        // compiles to other (slightly larger) code, and its timings were measured with this one.
        float kp[32];
#pragma unroll
        for (int v = 0; v < 8; ++v) {
          const float4 f = kept[((size_t)p * 8u + (size_t)v) * (size_t)stride4];
          kp[4 * v] = f.x, kp[4 * v + 1] = f.y, kp[4 * v + 2] = f.z, kp[4 * v + 3] = f.w;
        }
        pos = bc_tree_search<32>(kp, __fmul_rn(u0[p], res[p].t_sel));
      }
      if (point < a.n) a.z[point] = res[p].sel * 32 + pos;
    }
  }
}

// Two tiles (K = 33 to 64), D <= 16: variant 3's arithmetic with each point's reservoir and its two
// uniforms (u_0 for the final search, u_1 for tile 1's test) in slots of shared memory instead of
// registers (variant 4). In variant 3 those 18 registers are live across the chains' loop, where the
// 64 chains take the rest of the 128: the compiler then loads each table vector one or two
// instructions before its use, and the loop waits on shared memory (Nsight: 51% of the stalls). Here
// it loads four components ahead. The slots take 48 bytes a thread more than variant 3's, which two
// blocks of 256 do not leave: one block of 512 threads an SM holds the table once instead of twice.
// The transposed kernel (variant 5, zstep_transposed.cuh) is now the default for two tiles (2 to 7%
// faster); this one stays, SK_MIX_ZSTEP_VARIANT=4, as its baseline.
constexpr int kZstepTwoTileWarps = 16;

template <int JX>
__global__ void __launch_bounds__(kZstepTwoTileWarps * 32, 1) zstep_two_tile_kernel(zstep_args a) {
  constexpr int P = 2;
  extern __shared__ float4 smem4[];
  bc_stage(a.packed, a.k_pad, 2 * JX, smem4);
  const float *tab = reinterpret_cast<const float *>(smem4);
  const float *cs = tab + (size_t)a.k_pad * (2u * JX);
  // Thread t's slots, each kind blockDim apart: kept tiles (P 8 float4), values (P JX / 2 float2),
  // reservoirs (P float4: h, s, t_sel, sel's bits), uniforms (P float2: u_0, u_1).
  const int stride4 = (int)blockDim.x;
  float4 *const kept = smem4 + (size_t)a.k_pad * (2u * JX + 1u) / 4u + threadIdx.x;
  float2 *const xs = reinterpret_cast<float2 *>(kept - threadIdx.x + (size_t)P * 8u * blockDim.x) + threadIdx.x;
  float4 *const rs = reinterpret_cast<float4 *>(xs - threadIdx.x + (size_t)P * (JX / 2) * blockDim.x) + threadIdx.x;
  float2 *const us = reinterpret_cast<float2 *>(rs - threadIdx.x + (size_t)P * blockDim.x) + threadIdx.x;
  const int num_tiles = sk_mix_num_tiles(a.k);  // 2
  const int last_r = a.k - 32 * (num_tiles - 1);
  const bool last_full = zstep_full_tile(num_tiles - 1, num_tiles, last_r, true);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x * P;
  for (int64_t first = (int64_t)blockIdx.x * blockDim.x * P + threadIdx.x; first < a.n; first += stride) {
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int64_t point = first + (int64_t)p * blockDim.x;
      float x[JX];
      bc_load_point<JX>(a.x, a.n, a.d, point, x);
      bc_store_values<JX>(x, xs + (size_t)(p * (JX / 2)) * blockDim.x, blockDim.x);
      const sk_f32x4 u = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, 0);
      us[(size_t)p * blockDim.x] = make_float2(u.x, u.y);
    }
    float q[P][32];
    for (int b = 0; b < num_tiles; ++b) {
      // The last tile's zstep_full_tile() is decided before the loop: evaluated here it compiled to
      // 127 registers instead of 125 (8 bytes spilled at D = 12), and the register allocation is what
      // makes this kernel fast (see above).
      const bool full = b + 1 < num_tiles || last_full;
      const int r = full ? 32 : last_r;
      bc_init_chains<32, false>(cs + b * 32, r, q[0]);
#pragma unroll
      for (int i = 0; i < 32; ++i) q[1][i] = q[0][i];
      if (full)
        bc_accumulate_dims_outside<JX, 32, true, P>(tab + (size_t)b * 32u * (2u * JX), r, xs, stride4, q);
      else
        bc_accumulate_dims_outside<JX, 32, false, P>(tab + (size_t)b * 32u * (2u * JX), r, xs, stride4, q);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        sk_mix_reservoir res;  // tile 0's step sets it
        if (b > 0) {
          const float4 f = rs[(size_t)p * blockDim.x];
          res.h = f.x, res.s = f.y, res.t_sel = f.z, res.sel = __float_as_int(f.w);
        }
        const float ub = b > 0 ? us[(size_t)p * blockDim.x].y : 0.0f;
        if (full)
          bc_finish_tile_shared<32, true>(r, b, false, q[p], res, ub, kept + (size_t)p * 8u * (size_t)stride4, stride4);
        else
          bc_finish_tile_shared<32, false>(r, b, false, q[p], res, ub, kept + (size_t)p * 8u * (size_t)stride4,
                                           stride4);
        rs[(size_t)p * blockDim.x] = make_float4(res.h, res.s, res.t_sel, __int_as_float(res.sel));
      }
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int64_t point = first + (int64_t)p * blockDim.x;
      const float4 f = rs[(size_t)p * blockDim.x];
      float kp[32];
      bc_load_kept(kept + (size_t)p * 8u * (size_t)stride4, (size_t)stride4, kp);
      const float u0 = us[(size_t)p * blockDim.x].x;
      const int pos = bc_tree_search<32>(kp, __fmul_rn(u0, f.z));
      if (point < a.n) a.z[point] = __float_as_int(f.w) * 32 + pos;
    }
  }
}

zstep_kernel_fn two_tile_for(int d4) {
  return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_two_tile_kernel<decltype(jx)::value>; });
}

zstep_kernel_fn transposed_for(int d4) {
  return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_transposed_kernel<decltype(jx)::value>; });
}

zstep_kernel_fn passes_for(int d4, bool permuted) {
  if (permuted)
    return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_passes_kernel<decltype(jx)::value, true>; });
  return for_d4(d4, [](auto jx) -> zstep_kernel_fn { return zstep_passes_kernel<decltype(jx)::value, false>; });
}

// Any D, the table in shared memory (kShared) or read from global memory through L1: for each tile the
// point's values are read in chunks of 16 dimensions (JR in the last chunk: D rounded up to 4, less the
// full chunks), q accumulating across chunks.
template <int JR, bool kShared>
__device__ __forceinline__ void bc_chunks_tile(const zstep_args &a, const float *tab, const float *cs, int row,
                                               int64_t point, int b, int r, bool full, sk_mix_reservoir &res, float ub,
                                               float (&kept)[32]) {
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
    sk_mix_reservoir res;
    sk_f32x4 u4 = point_start(a.seed, a.sweep, point, num_tiles, kept, res);
    const float u0 = u4.x;
    for (int b = 0; b < num_tiles; ++b) {
      if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, num_tiles, b / 4);
      const bool full = zstep_full_tile(b, num_tiles, last_r, false);
      bc_chunks_tile<JR, kShared>(a, tab, cs, row, point, b, full ? 32 : last_r, full, res, sk_mix_pick4(u4, b % 4),
                                  kept);
    }
    a.z[point] = res.sel * 32 + bc_tree_search<32>(kept, __fmul_rn(u0, res.t_sel));
  }
}

// The butterfly kernel's instance for D's chunk width (1 to 8).
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

// The register kernel's instance for D rounded up to 4 and the last tile's width WL.
template <int WL, int P, bool kDimsOutside>
zstep_kernel_fn broadcast_regs_for_width(int d4) {
  return for_d4(d4, [](auto jx) -> zstep_kernel_fn {
    return zstep_broadcast_regs_kernel<decltype(jx)::value, WL, P, kDimsOutside>;
  });
}

// The broadcast kernel for D, K, where the table lives and the points per thread of the register
// kernel (D <= 16 with the table in shared memory; the chunk kernel draws for one point a thread).
template <int P, bool kDimsOutside>
zstep_kernel_fn broadcast_regs_for(int d4, int32_t k) {
  return k <= 8    ? broadcast_regs_for_width<8, P, kDimsOutside>(d4)
         : k <= 16 ? broadcast_regs_for_width<16, P, kDimsOutside>(d4)
                   : broadcast_regs_for_width<32, P, kDimsOutside>(d4);
}

zstep_kernel_fn broadcast_for(int32_t d, int32_t k, bool shared, int variant, bool permuted) {
  const int d4 = (int)((d + 3) / 4 * 4);
  if (shared && d4 <= 16)
    return variant == 6   ? passes_for(d4, permuted)
           : variant == 5 ? transposed_for(d4)
           : variant == 4 ? two_tile_for(d4)
           : variant == 3 ? broadcast_regs_for<2, true>(d4, k)
           : variant == 2 ? broadcast_regs_for<2, false>(d4, k)
                          : broadcast_regs_for<1, false>(d4, k);
  const int jr = d4 - (d4 - 1) / 16 * 16;
  if (shared)
    return for_d4(jr, [](auto jx) -> zstep_kernel_fn {
      return zstep_broadcast_chunks_kernel<decltype(jx)::value, true>;
    });
  return for_d4(jr, [](auto jx) -> zstep_kernel_fn {
    return zstep_broadcast_chunks_kernel<decltype(jx)::value, false>;
  });
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

namespace {

// Shared bytes a thread of the register kernel (variants 1 to 4) takes beside the table: the kept
// slots (32 floats a point); for variants 3 and 4 the points' values (D rounded up to 4); for variant
// 4 the reservoirs and two uniforms (24 bytes a point).
size_t regs_shared_per_thread(int variant, int points, int32_t d) {
  return (size_t)points * (128u + (variant >= 3 ? 4u * (size_t)((d + 3) / 4 * 4) : 0u) + (variant == 4 ? 24u : 0u));
}

}  // namespace

cudaError_t zstep_prepare(int kernel, int32_t d, int32_t k, int warps, zstep_plan *plan) {
  const int32_t k_pad = (k + 31) / 32 * 32;
  plan->kernel = kernel;
  plan->warps = warps;
  plan->points = 1;
  plan->variant = 1;
  plan->shared = 0;
  plan->permuted = false;
  if (kernel == SK_MIX_ZSTEP_THREAD)
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan->blocks_per_sm, zstep_thread_kernel, kThreadBlock, 0);
  if (kernel == SK_MIX_ZSTEP_BUTTERFLY) {
    plan->shared = (size_t)warps * zstep_shared_per_warp(d);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan->blocks_per_sm, butterfly_for(d), warps * 32,
                                                         plan->shared);
  }
  const size_t table = sizeof(float) * zstep_packed_floats(d, k_pad);
  const bool fits = table <= kZstepBroadcastMaxShared, regs = fits && (d + 3) / 4 * 4 <= 16;
  if (regs) {
    /* One tile (K <= 32): little work a point, and the points' loads want the occupancy of one point a
       thread; more tiles: two points a thread halve the table's loads. Of those, variant 3 (two blocks
       an SM, 128 registers) against variant 2 (one block, 188), H200, N = 10^7 (bench/RESULTS.md):
       faster at D = 8 for K = 48 to 256 (5 to 8%), at D = 16 for K = 64, 96 and 128 (8 to 9%); slower
       at D = 16 for K = 48 (the partial tile), 192, 256 and 512 (12% at 512: from the fifth tile on,
       the uniforms' recomputation needs registers that variant 3 spills). With exactly two tiles
       (K = 33 to 64), variant 4 (variant 3 with the points' reservoirs and uniforms in shared memory,
       one block of 512 an SM), at D = 4, 8, 16 and K = 40, 48, 64: 1 to 13% faster than the better of
       2 and 3 (7.6% at K = 64, D = 16), but 1.2% slower than 2 at D = 16, K = 40. One full tile
       (K = 32) with D > 8: variant 3, 11% faster than variant 1 at D = 16 and 3% at D = 12, but 4 and
       6% slower at D = 8 and 4, and 20 to 25% slower on a partial tile (K = 28 and 31). One tile of 9
       to 16 components (the 16-wide code, zstep_broadcast_regs_kernel()) at D = 16: variant 3, 3 to 4%
       faster (K = 9, 12, 16: 0.513 to 0.519 ms against 0.529 to 0.537), but 1.5% slower at D = 13, 3
       to 4% at D = 12 and 5 to 6% at D = 8 (H200, e3a7965). Variant 5 (the transposed kernel) against
       4, K = 33, 40, 48, 56 and 64: 2 to 3% faster at D = 16, 5% at D = 12, 6 to 7% at D = 8 and 4
       (H200, bench/RESULTS.md). Three tiles or more: variant 6 (the transposed kernel in passes)
       against the rule before it (2 or 3), K = 65 to 512 at D = 4, 8, 12 and 16: faster everywhere
       (at D = 16 by 7 to 20% from K = 100, at D = 12 by 17 to 32%, at D = 8 by 2 to 20%, at D = 4 by
       11 to 26%) except with three tiles at D = 16 (K = 65 to 96: 7 to 14% slower) and at K = 96, D =
       12 (3% slower; variant 3's full tiles) (H200, bench/RESULTS.md).
       SK_MIX_ZSTEP_VARIANT (1 to 6, zstep_gpu.cuh) overrides the choice for measurements (variants 4
       and 5 only where K is 33 to 64, 6 only above); the draws are the same. */
    const int tiles = sk_mix_num_tiles(k);
    const bool dims_outside = d <= 8 || (tiles <= 4 && k % 32 == 0);
    const char *env = getenv("SK_MIX_ZSTEP_VARIANT");
    const int v = env != NULL ? atoi(env) : 0;
    const bool v_ok = v >= 1 && v <= 6 && (v < 4 || (v < 6 ? tiles == 2 : tiles > 2));
    const bool one_tile_v3 = (k == 32 && d > 8) || (k > 8 && k <= 16 && d == 16);
    const bool passes = tiles > 3 || (tiles == 3 && (d <= 8 || (d <= 12 && k % 32 != 0)));
    plan->variant = v_ok         ? v
                    : tiles == 1 ? (one_tile_v3 ? 3 : 1)
                    : tiles == 2 ? 5
                    : passes     ? 6
                    : dims_outside ? 3
                                   : 2;
    if (!v_ok && plan->variant == 3 && tiles > 1) {
      /* Variant 3 is built for two blocks an SM; where shared memory holds one (at D = 8 from K = 481:
         the table and the points' slots take 115 KiB a block at K = 512), variant 2 is faster:
         7.50 against 9.57 ms at D = 8, K = 512, and 14.59 against 18.75 at K = 1000 (H200). */
      int dev = 0, per_sm = 0;
      cudaError_t e = cudaGetDevice(&dev);
      if (e == cudaSuccess) e = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
      if (e != cudaSuccess) return e;
      const size_t v3_block = table + regs_shared_per_thread(3, 2, d) * 32u * (size_t)warps + 1024u;
      if (2u * v3_block > (size_t)per_sm) plan->variant = 2;
    }
    plan->points = plan->variant == 1 ? 1 : 2;
    if (plan->variant == 4) plan->warps = kZstepTwoTileWarps;
    if (plan->variant == 5) plan->warps = kZstepTransposedWarps, plan->points = 1;
    if (plan->variant == 6) {
      /* As many warps as fit beside the table, at most 16; the rows of chains permuted instead of
         padded where that fits one more (K = 512, D = 16: 16 warps instead of 15). */
      int dev = 0, per_block = 0;
      cudaError_t e = cudaGetDevice(&dev);
      if (e == cudaSuccess) e = cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
      if (e != cudaSuccess) return e;
      const size_t room = (size_t)per_block > table ? (size_t)per_block - table : 0u;
      const auto fitting = [&](bool permuted) {
        const size_t w = room / ps_shared_per_warp((d + 3) / 4 * 4, permuted);
        return (int)(w < (size_t)kZstepTransposedWarps ? w : kZstepTransposedWarps);
      };
      plan->permuted = fitting(true) > fitting(false);
      plan->warps = fitting(plan->permuted);
      plan->points = 1;
      if (plan->warps < 1) plan->variant = 2, plan->warps = warps, plan->points = 2;
    }
  }
  if (regs && plan->variant == 5)
    plan->shared = table + (size_t)plan->warps * tr_shared_per_warp((d + 3) / 4 * 4);
  else if (regs && plan->variant == 6)
    plan->shared = table + (size_t)plan->warps * ps_shared_per_warp((d + 3) / 4 * 4, plan->permuted);
  else if (fits)
    plan->shared =
        table + (regs ? regs_shared_per_thread(plan->variant, plan->points, d) : 0u) * 32u * (size_t)plan->warps;
  const zstep_kernel_fn f = broadcast_for(d, k, fits, plan->variant, plan->permuted);
  if (plan->shared > 48u * 1024u) {
    const cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)plan->shared);
    if (e != cudaSuccess) return e;
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan->blocks_per_sm, f, plan->warps * 32, plan->shared);
}

cudaError_t zstep_launch(const zstep_args &a, const zstep_plan &plan, int blocks, cudaStream_t stream) {
  if (a.n == 0) return cudaSuccess;
  if (plan.kernel == SK_MIX_ZSTEP_THREAD) {
    zstep_thread_kernel<<<blocks, kThreadBlock, 0, stream>>>(a);
  } else if (plan.kernel == SK_MIX_ZSTEP_BUTTERFLY) {
    butterfly_for(a.d)<<<blocks, plan.warps * 32, plan.shared, stream>>>(a);
  } else {
    broadcast_for(a.d, a.k, plan.shared > 0, plan.variant, plan.permuted)<<<blocks, plan.warps * 32, plan.shared, stream>>>(a);
  }
  return cudaGetLastError();
}

}  // namespace sk_mix_gpu_detail
