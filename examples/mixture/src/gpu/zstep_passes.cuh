/*
 * The transposed z-step kernel in passes (rows transposed-passes and transposed-passes-permuted of the
 * table, zstep_table.cu): for three tiles or more (K > 64) and D <= 16, with the table in shared memory.
 * Included by zstep_gpu.cu only. Internal to sk-mixture's CUDA part: C++, device code only.
 *
 * It is the transposed kernel (zstep_transposed.cuh) with a pass per two tiles: for a warp's 32 points,
 * pass p computes the chains of components 64 p to 64 p + 63 (lane t holds 64 p + 2 t and 64 p + 2 t
 * + 1 in registers, as there) into the points' rows, then each lane draws from its row's two tiles
 * (sparse when no lane of the warp has more than kSparseMax components tested in, else dense) and
 * steps its reservoir over them. Nothing of a tile is kept across passes: a tile the reservoir takes
 * is searched at once, for u_0 times its own sum, which is what zstep.h searches at the end (the last
 * tile taken is the one drawn from, and its search depends only on its weights and sum). So a pass's
 * registers are free for the next pass, and the kernel keeps a point's reservoir, position and four
 * uniforms across them. The staging buffer is one: the next 32 points are copied in (cp.async) after
 * the last pass's chains, while its draws run. Absent components (K not a multiple of 64) have zero
 * rows and chain starts of +inf in the packed table; a last pass without a second tile does not step
 * the reservoir over it.
 * Where the transposed kernel's padded rows of chains would cost a warp (K = 512, D = 16: 15 warps),
 * the rows are unpadded and permuted instead (ps_row_floats(); the permuted row), and the chains'
 * phase is unrolled over the 32 points. Either way it interleaves two points' chains
 * (zstep_chains.cuh's tr_chains()). Most of its time is the chains' phase; bench/RESULTS.md has the
 * split.
 */
#ifndef SK_MIX_ZSTEP_PASSES_CUH
#define SK_MIX_ZSTEP_PASSES_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/zstep_broadcast.cuh"
#include "gpu/zstep_chains.cuh"
#include "gpu/zstep_gpu.cuh"
#include "gpu/zstep_sparse.cuh"
#include "gpu/zstep_transposed.cuh"
#include "samplekit/rng.cuh"
#include "zstep.h"

namespace sk_mix_gpu_detail {

// The lane's row by its 16-byte vectors: vector v of the pass's first tile at at[v], of the second at
// at[v] + 8 (fixed for the kernel: computed once).
struct ps_row {
  const float4 *at[8];
};

__device__ __forceinline__ ps_row ps_row_of(const float *row, int sw) {
  ps_row r;
#pragma unroll
  for (int v = 0; v < 8; ++v) r.at[v] = reinterpret_cast<const float4 *>(row) + (v ^ sw);
  return r;
}

// A tile's 32 chains from the lane's row (`half`: 0 or 1, the pass's first or second tile).
__device__ __forceinline__ void ps_load_tile(const ps_row &r, int half, float (&q)[32]) {
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    const float4 f = r.at[v][8 * half];
    q[4 * v] = f.x, q[4 * v + 1] = f.y, q[4 * v + 2] = f.z, q[4 * v + 3] = f.w;
  }
}

// A pass's draw for the lane's point: tiles b and b + 1 (`two`: the second exists) from its row of
// chains, by the dense code. A tile the reservoir takes is searched at once (`u0`: the search's uniform).
__device__ __forceinline__ void ps_draw_dense(const ps_row &rv, int b, bool two, float u0, float ua,
                                              float ub, sk_thread_tile_reservoir_f32 &res, int &pos) {
  float q[32], hb, tb;
  ps_load_tile(rv, 0, q);
  bc_tile_weights<32, true>(32, q, hb, tb);
  if (sk_thread_tile_reservoir_step_select_f32(&res, b, hb, tb, ua))
    pos = sk_thread_tile_search_f32(q, 32, __fmul_rn(u0, tb));
  if (!two) return;
  ps_load_tile(rv, 1, q);
  bc_tile_weights<32, true>(32, q, hb, tb);
  if (sk_thread_tile_reservoir_step_select_f32(&res, b + 1, hb, tb, ub))
    pos = sk_thread_tile_search_f32(q, 32, __fmul_rn(u0, tb));
}

// The same by the sparse tiles (zstep_sparse.cuh), when no lane of the warp has more than kSparseMax
// components tested in in either tile; else false in every lane, nothing changed. Every lane of the
// warp calls it.
__device__ __forceinline__ bool ps_draw_sparse(const ps_row &rv, const float *row, int sw, int b, bool two, float u0,
                                               float ua, float ub, sk_thread_tile_reservoir_f32 &res, int &pos) {
  float h0, h1 = sk_mix_pos_inf();
  unsigned in0, in1 = 0u;
  {
    float q[32];
    ps_load_tile(rv, 0, q);
    h0 = sk_thread_tile_min_f32(q, 32);
    in0 = ~sparse_out(q, h0);
    if (two) {
      ps_load_tile(rv, 1, q);
      h1 = sk_thread_tile_min_f32(q, 32);
      in1 = ~sparse_out(q, h1);
    }
  }
  const int count = (int)__reduce_max_sync(0xffffffffu, (unsigned)max(__popc(in0), __popc(in1)));
  if (count > kSparseMax) return false;
  sparse_tile t0, t1;
  sparse_tiles_init(t0, t1, in0, in1, h0, h1, row, row + 32, count, sw << 2);
  const float s0 = sparse_sum(t0), s1 = sparse_sum(t1);
  const bool took0 = sk_thread_tile_reservoir_step_select_f32(&res, b, h0, s0, ua) != 0;
  const bool took1 = two && sk_thread_tile_reservoir_step_select_f32(&res, b + 1, h1, s1, ub) != 0;
  if (took0 || took1) pos = sparse_search(sparse_pick(took1, t0, t1), __fmul_rn(u0, res.t_sel), res.t_sel);
  return true;
}

// Shared memory: the table transposed and the chain starts (tr_stage_table()), then each warp's
// staging buffer and rows of chains. Warps: as many as fit beside the table (zstep_prepare()), at most 16.
template <int JX, bool kPermuted>
__global__ void __launch_bounds__(kZstepTransposedWarps * 32, 1) zstep_passes_kernel(zstep_args a) {
  constexpr int kRow = ps_row_floats(kPermuted);
  extern __shared__ float4 smem4[];
  const int k_pad = a.k_pad;
  const int tiles = k_pad / 32, passes = (tiles + 1) / 2;
  float *const cs = tr_stage_table<JX>(a, smem4);
  const int lane = (int)(threadIdx.x % 32), warp = (int)(threadIdx.x / 32), warps = (int)(blockDim.x / 32);
  float *const xs = cs + k_pad + (size_t)warp * (ps_shared_per_warp(JX, kPermuted) / sizeof(float));
  float *const qs = xs + 32 * JX;
  float *const row = qs + lane * kRow;
  const int sw = kPermuted ? lane & 7 : 0;
  const ps_row rv = ps_row_of(row, sw);
  const int64_t stride = (int64_t)gridDim.x * warps * 32;
  int64_t first = ((int64_t)blockIdx.x * warps + warp) * 32;
  if (first < a.n) tr_points_start<JX>(a, first, lane, xs);
  sparse_predictor predict;  // over (group, pass)s
  for (; first < a.n; first += stride) {
    tr_points_wait();
    __syncwarp();  // the points are in xs
    const int64_t point = first + lane;
    sk_thread_tile_reservoir_f32 res;
    int pos = 0;
    float u0 = 0.0f;
    sk_f32x4 u4;
    for (int p = 0; p < passes; ++p) {
      // A second tile past the last (an odd number of tiles) is past the table: its lanes compute the
      // first tile's components again, into the row's second half, which is then never read.
      const int comp = 64 * p + 2 * lane < k_pad ? 64 * p + 2 * lane : 64 * p + 2 * lane - 32;
      tr_chains<JX, kRow, kPermuted, true>(smem4, cs, k_pad, comp, xs, lane, qs);
      __syncwarp();  // the chains are in the rows; the last pass is done with xs
      if (p == passes - 1 && first + stride < a.n) tr_points_start<JX>(a, first + stride, lane, xs);
      if ((p & 1) == 0) u4 = sk_mix_z_uniforms(a.seed, a.sweep, point, tiles, p >> 1);
      if (p == 0) u0 = u4.x;
      const float ua = (p & 1) ? u4.z : u4.x, ub = (p & 1) ? u4.w : u4.y;
      const bool two = 2 * p + 1 < tiles;
      const bool sparse = predict.try_sparse() && ps_draw_sparse(rv, row, sw, 2 * p, two, u0, ua, ub, res, pos);
      predict.record(sparse);  // warp-uniform
      if (!sparse) ps_draw_dense(rv, 2 * p, two, u0, ua, ub, res, pos);
      __syncwarp();  // the draws are done with the rows
    }
    if (point < a.n) a.z[point] = res.sel * 32 + pos;
  }
}

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_PASSES_CUH */
