/*
 * The transposed z-step kernel (variant 5 of zstep_gpu.cuh): for exactly two tiles (K = 33 to 64) and
 * D <= 16. Included by zstep_gpu.cu only. Internal to sk-mixture's CUDA part: C++, device code only.
 *
 * The broadcast kernels keep a point in each thread and load every table entry from shared memory as
 * they use it: 4 of the 61 instructions a (point, component) are those loads at D = 16, and the
 * chains' loop waits on them (the registers that loading ahead needs are the chains'). Here each warp
 * takes 32 points at a time and works in two phases, with the table in registers:
 * - the chains: lane t holds components 2 t and 2 t + 1 (their s and -ms for all D dimensions, 4 D
 *   registers) and walks the 32 points, whose values the warp has staged in shared memory (one
 *   lane-uniform 16-byte load serves 4 dimensions of both components); the two chains of a point go
 *   to its row in the warp's buffer of chains (64 floats a point) by one 8-byte store;
 * - the draws: lane t takes point t's row back (16-byte loads, the rows padded so that a warp's loads
 *   are conflict-free), finds each tile's minimum and the components whose weights can be more than
 *   +0, and, when no lane of the warp has more than 4 of them in a tile, computes only their weights,
 *   the tiles' sums and the search from them (zstep_sparse.cuh: exactly the dense code's values); else
 *   it runs the broadcast kernels' tile code on the row (zstep_broadcast.cuh: minimum, weights, tree
 *   sum, reservoir, search; tile 0's weights go back over its chains for the search). A warp whose
 *   group took the dense path twice in a row goes straight to it for the next 1, 2, 4 or 8 groups (the
 *   count doubles with each further miss; a group taken sparse resets it), so that dense data pays
 *   for the test about once in 9 groups.
 * The next 32 points are copied into a second staging buffer (cp.async) while these are drawn. The
 * arithmetic of each chain is zstep.h's (q from -c, dimensions in order) and the rest is the broadcast
 * kernels', so the draws are the CPU's. Per (point, component) at K = 64, D = 16 with the dense draws:
 * 57 instructions (Nsight Compute, 1.13 G warp instructions a z-step of 10^7 points), against 61 for
 * variant 4: about 35 in the chains' phase (32 FMAs, 2 loads of the points' values, half a store, the
 * loop) and 21 in the draws' (15 of them the minimum, difference, exponential and tree sum; the rest
 * the uniforms, reservoir, search and the row's loads and stores). With the sparse draws, on the
 * benchmark's well-separated data: about 46 (0.93 G), the draws' phase down to 11;
 * bench/RESULTS.md has where the time goes.
 * Absent components (K < 64) have zero rows and chain starts of +inf in the packed table, so both
 * tiles run the full tile's code (zstep_gpu.cu's zstep_full_tile()).
 */
#ifndef SK_MIX_ZSTEP_TRANSPOSED_CUH
#define SK_MIX_ZSTEP_TRANSPOSED_CUH

#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/zstep_broadcast.cuh"
#include "gpu/zstep_gpu.cuh"
#include "gpu/zstep_sparse.cuh"
#include "samplekit/rng.cuh"
#include "zstep.h"

namespace sk_mix_gpu_detail {

// Floats a point's row of chains takes in the warp's buffer: 64 and 4 of padding, so that the 8
// lanes of each phase of a 16-byte load (rows 272 bytes apart) cover the 32 banks once.
constexpr int kTrRow = 68;

// Shared bytes per warp: two staging buffers of the 32 points' values (JX floats each), their rows of
// chains.
__host__ __device__ constexpr size_t tr_shared_per_warp(int jx) {
  return sizeof(float) * 32u * (size_t)(2 * jx + kTrRow);
}

// One chain step pair: dimensions j and j + 1 of a component (v: s_j, -ms_j, s_(j+1), -ms_(j+1)).
__device__ __forceinline__ float tr_chain2(float q, float x0, float x1, const float4 &v) {
  float t = __fmaf_rn(x0, v.x, v.y);
  q = __fmaf_rn(t, t, q);
  t = __fmaf_rn(x1, v.z, v.w);
  return __fmaf_rn(t, t, q);
}

// Whether the warp's 32 points from `first` are whole rows of JX floats (then contiguous, 16-byte
// aligned: copied asynchronously).
template <int JX>
__device__ __forceinline__ bool tr_whole_rows(const zstep_args &a, int64_t first) {
  return a.d == JX && first + 32 <= a.n;
}

// Starts copying the warp's 32 points from `first` into its staging rows `xs` (JX floats a point, zeros
// past D and past N): asynchronously (cp.async, one commit) for whole rows, else by plain loads and
// stores. Either way they are there for every lane after tr_points_wait() and a __syncwarp().
template <int JX>
__device__ __forceinline__ void tr_points_start(const zstep_args &a, int64_t first, int lane, float *xs) {
  if (tr_whole_rows<JX>(a, first)) {
    const float4 *src = reinterpret_cast<const float4 *>(a.x + (size_t)first * (size_t)JX);
#pragma unroll
    for (int i = 0; i < JX / 4; ++i)
      __pipeline_memcpy_async(reinterpret_cast<float4 *>(xs) + lane + 32 * i, src + lane + 32 * i, 16);
    __pipeline_commit();
  } else {
    bc_stage_rows(a.x, a.d, first, a.n - first < 32 ? (int)(a.n - first) : 32, JX, lane, xs);
  }
}

// Waits for this lane's copies of tr_points_start() (none pending is fine).
__device__ __forceinline__ void tr_points_wait() { __pipeline_wait_prior(0); }

// Copies the packed table into shared memory transposed (JX / 2 float4 vectors a component, vector v
// of component k at v k_pad + k, so that the lanes' loads of their own components are consecutive),
// then the chain starts; returns where those start.
template <int JX>
__device__ __forceinline__ float *tr_stage_table(const zstep_args &a, float4 *smem4) {
  constexpr int JV = JX / 2;
  const int k_pad = a.k_pad;
  const float4 *src = reinterpret_cast<const float4 *>(a.packed);
  for (int i = (int)threadIdx.x; i < k_pad * JV; i += (int)blockDim.x) {
    const int k = i / JV, v = i - k * JV;
    smem4[v * k_pad + k] = __ldg(src + i);
  }
  float *const cs = reinterpret_cast<float *>(smem4 + (size_t)JV * (size_t)k_pad);
  for (int i = (int)threadIdx.x; i < k_pad; i += (int)blockDim.x) cs[i] = __ldg(a.packed + (size_t)k_pad * 2u * JX + i);
  __syncthreads();
  return cs;
}

// Two points' chains for the lane's two components (table entries t0, t1, starts c0, c1), their four
// chains interleaved, each taking its dimensions in order; into `a` and `b`.
template <int JX>
__device__ __forceinline__ void tr_chains_pair(const float4 *xa, const float4 *xb, const float4 (&t0)[JX / 2],
                                               const float4 (&t1)[JX / 2], float c0, float c1, float2 &a, float2 &b) {
  float qa0 = c0, qa1 = c1, qb0 = c0, qb1 = c1;
#pragma unroll
  for (int v4 = 0; v4 < JX / 4; ++v4) {
    const float4 xv = xa[v4], yv = xb[v4];
    qa0 = tr_chain2(qa0, xv.x, xv.y, t0[2 * v4]);
    qb0 = tr_chain2(qb0, yv.x, yv.y, t0[2 * v4]);
    qa1 = tr_chain2(qa1, xv.x, xv.y, t1[2 * v4]);
    qb1 = tr_chain2(qb1, yv.x, yv.y, t1[2 * v4]);
    qa0 = tr_chain2(qa0, xv.z, xv.w, t0[2 * v4 + 1]);
    qb0 = tr_chain2(qb0, yv.z, yv.w, t0[2 * v4 + 1]);
    qa1 = tr_chain2(qa1, xv.z, xv.w, t1[2 * v4 + 1]);
    qb1 = tr_chain2(qb1, yv.z, yv.w, t1[2 * v4 + 1]);
  }
  a = make_float2(qa0, qa1);
  b = make_float2(qb0, qb1);
}

// The chains' phase: the lane's two components `comp` and `comp` + 1 (in the table, `comp` < k_pad)
// for the warp's 32 staged points `xs`; a point's two chains go to its row of `qs` (kRow floats a
// point; at 2 lane, one 8-byte store; kPermuted: the row's 16-byte vectors permuted, vector v of
// point s at v ^ (s % 8), as the kernel in passes reads them, zstep_passes.cuh). kPairs: two points'
// chains interleaved (always so with kPermuted). The table's entries stay in registers for the 32
// points.
template <int JX, int kRow = kTrRow, bool kPermuted = false, bool kPairs = false>
__device__ __forceinline__ void tr_chains(const float4 *smem4, const float *cs, int k_pad, int comp, const float *xs,
                                          int lane, float *qs) {
  constexpr int JV = JX / 2;
  float4 t0[JV], t1[JV];
#pragma unroll
  for (int v = 0; v < JV; ++v) t0[v] = smem4[v * k_pad + comp], t1[v] = smem4[v * k_pad + comp + 1];
  const float c0 = cs[comp], c1 = cs[comp + 1];
  if constexpr (kPermuted) {
    // All 32 points unrolled, by their class s % 8 (the row's permutation), so that every store's
    // place is the lane's place for its class plus a constant; two points of a class at a time, their
    // four chains interleaved (each still takes its dimensions in order). At K = 512, D = 16 (H200,
    // bench/RESULTS.md): 9.60 to 9.64 ms, against 9.77 to 9.79 a point at a time and 9.93 to 9.98
    // with the classes in a loop unrolled twice.
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float2 *const at = reinterpret_cast<float2 *>(qs + j * kRow) + (lane ^ (j << 1));
#pragma unroll
      for (int i = 0; i < 4; i += 2) {
        const float4 *xa = reinterpret_cast<const float4 *>(xs + (8 * i + j) * JX);
        const float4 *xb = reinterpret_cast<const float4 *>(xs + (8 * i + 8 + j) * JX);
        tr_chains_pair<JX>(xa, xb, t0, t1, c0, c1, at[8 * i * (kRow / 2)], at[(8 * i + 8) * (kRow / 2)]);
      }
    }
  } else if constexpr (kPairs) {
    // Two points at a time, their four chains interleaved: at K = 128 and 256, D = 16, 3% faster in
    // the kernel in passes; in the transposed kernel no faster at K = 64 and 0.7% slower at K = 33
    // (H200, bench/RESULTS.md).
#pragma unroll 4
    for (int s = 0; s < 32; s += 2) {
      const float4 *xa = reinterpret_cast<const float4 *>(xs + s * JX);
      const float4 *xb = reinterpret_cast<const float4 *>(xs + (s + 1) * JX);
      tr_chains_pair<JX>(xa, xb, t0, t1, c0, c1, reinterpret_cast<float2 *>(qs + s * kRow)[lane],
                         reinterpret_cast<float2 *>(qs + (s + 1) * kRow)[lane]);
    }
  } else {
    // Unrolled 8 times: against 4, with the sparse draws, K = 64 1.8% faster at D = 16, 3% at D = 12,
    // 1% at D = 8 and 4, and no slower elsewhere (K = 33 to 56, overlapping data); 16 and 32 were
    // faster still at K = 64 but slower at K = 33 and on overlapping data (H200, bench/RESULTS.md).
#pragma unroll 8
    for (int s = 0; s < 32; ++s) {
      const float4 *xr = reinterpret_cast<const float4 *>(xs + s * JX);
      float q0 = c0, q1 = c1;
#pragma unroll
      for (int v4 = 0; v4 < JX / 4; ++v4) {
        const float4 xv = xr[v4];
        q0 = tr_chain2(q0, xv.x, xv.y, t0[2 * v4]);
        q1 = tr_chain2(q1, xv.x, xv.y, t1[2 * v4]);
        q0 = tr_chain2(q0, xv.z, xv.w, t0[2 * v4 + 1]);
        q1 = tr_chain2(q1, xv.z, xv.w, t1[2 * v4 + 1]);
      }
      reinterpret_cast<float2 *>(qs + s * kRow)[lane] = make_float2(q0, q1);
    }
  }
}

// Draws the lane's point from its row of chains (both tiles) as the broadcast kernels do: tile 0's
// weights go back over its chains, for the search if tile 1 is not taken. Returns the position in the
// taken tile (res.sel).
__device__ __forceinline__ int tr_draw_dense(float *row, const sk_f32x4 &u, sk_mix_reservoir &res) {
  float q[32], hb, tb;
  bc_load_kept(reinterpret_cast<const float4 *>(row), 1, q);
  bc_tile_weights<32, true>(32, q, hb, tb);
  sk_mix_reservoir_step(&res, 0, hb, tb, 0.0f);
#pragma unroll
  for (int v = 0; v < 8; ++v)
    reinterpret_cast<float4 *>(row)[v] = make_float4(q[4 * v], q[4 * v + 1], q[4 * v + 2], q[4 * v + 3]);
  bc_load_kept(reinterpret_cast<const float4 *>(row + 32), 1, q);
  bc_tile_weights<32, true>(32, q, hb, tb);
  if (!sk_mix_reservoir_step(&res, 1, hb, tb, u.y)) bc_load_kept(reinterpret_cast<const float4 *>(row), 1, q);
  return bc_tree_search<32>(q, __fmul_rn(u.x, res.t_sel));
}

// The same draw by the sparse tiles (zstep_sparse.cuh), when no lane of the warp has more than
// kSparseMax components tested in in either tile; else -1 in every lane, the row untouched. Every lane
// of the warp calls it.
__device__ __forceinline__ int tr_draw_sparse(const float *row, const sk_f32x4 &u, sk_mix_reservoir &res) {
  float h0, h1;
  unsigned in0, in1;
  {
    float q[32];
    bc_load_kept(reinterpret_cast<const float4 *>(row), 1, q);
    h0 = bc_tile_reduce<32>(q, bc_min_op{});
    in0 = ~sparse_out(q, h0);
    bc_load_kept(reinterpret_cast<const float4 *>(row + 32), 1, q);
    h1 = bc_tile_reduce<32>(q, bc_min_op{});
    in1 = ~sparse_out(q, h1);
  }
  const int count = (int)__reduce_max_sync(0xffffffffu, (unsigned)max(__popc(in0), __popc(in1)));
  if (count > kSparseMax) return -1;
  sparse_tile t0, t1;
  sparse_tiles_init(t0, t1, in0, in1, h0, h1, row, row + 32, count);
  const float s0 = sparse_sum(t0), s1 = sparse_sum(t1);
  sk_mix_reservoir_step(&res, 0, h0, s0, 0.0f);
  const bool one = sk_mix_reservoir_step_as(&res, 1, h1, s1, u.y, 1) != 0;
  return sparse_search(sparse_pick(one, t0, t1), __fmul_rn(u.x, res.t_sel), res.t_sel);
}

// 16 warps a block, one block an SM: 126 to 128 registers a thread, and at D = 16 213 KiB of shared
// memory.
constexpr int kZstepTransposedWarps = 16;

// Shared memory: the table transposed (JX / 2 float4 vectors a component, vector v of component k at
// v k_pad + k, so that the lanes' loads of their own components are consecutive), the chain starts,
// then each warp's staging rows and rows of chains.
template <int JX>
__global__ void __launch_bounds__(kZstepTransposedWarps * 32, 1) zstep_transposed_kernel(zstep_args a) {
  extern __shared__ float4 smem4[];
  const int k_pad = a.k_pad;  // 64
  float *const cs = tr_stage_table<JX>(a, smem4);
  const int lane = (int)(threadIdx.x % 32), warp = (int)(threadIdx.x / 32), warps = (int)(blockDim.x / 32);
  // The warp's two staging buffers (the next points are copied in while these are used), its chains.
  float *const xs2 = cs + k_pad + (size_t)warp * (tr_shared_per_warp(JX) / sizeof(float));
  float *const qs = xs2 + 2 * 32 * JX;
  const int64_t stride = (int64_t)gridDim.x * warps * 32;
  int64_t first = ((int64_t)blockIdx.x * warps + warp) * 32;
  if (first < a.n) tr_points_start<JX>(a, first, lane, xs2);
  // The sparse path's predictor (warp-uniform): after `misses` declines in a row, the next (2^misses) / 4
  // groups go straight to the dense path (at most 8); a group it takes resets it.
  int misses = 0, backoff = 0;
  for (int buf = 0; first < a.n; first += stride, buf ^= 1) {
    float *const xs = xs2 + buf * 32 * JX;
    tr_points_wait();
    __syncwarp();  // the points are in xs; the previous points' reads of the other buffer and qs are done
    if (first + stride < a.n) tr_points_start<JX>(a, first + stride, lane, xs2 + (buf ^ 1) * 32 * JX);
    tr_chains<JX>(smem4, cs, k_pad, 2 * lane, xs, lane, qs);
    __syncwarp();
    const int64_t point = first + lane;
    const sk_f32x4 u = sk_mix_z_uniforms(a.seed, a.sweep, point, 2, 0);
    float *const row = qs + lane * kTrRow;
    int pos = -1;
    sk_mix_reservoir res;
    if (backoff == 0) pos = tr_draw_sparse(row, u, res);
    if (__any_sync(0xffffffffu, pos < 0)) {  // warp-uniform: the sparse path declined (or was not tried)
      if (backoff == 0) misses = min(misses + 1, 5);
      backoff = backoff > 0 ? backoff - 1 : (1 << misses) >> 2;
      pos = tr_draw_dense(row, u, res);
    } else {
      misses = 0;
    }
    if (point < a.n) a.z[point] = res.sel * 32 + pos;
  }
}

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_TRANSPOSED_CUH */
