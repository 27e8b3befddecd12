/*
 * The transposed z-step kernel (row transposed-two-tiles of the table, zstep_table.cu): for exactly two
 * tiles (K = 33 to 64) and D <= 16. Included by zstep_gpu.cu only. Internal to sk-mixture's CUDA part:
 * C++, device code only.
 *
 * The broadcast kernels keep a point in each thread and load every table entry from shared memory as
 * they use it, and the chains' loop waits on those loads (the registers that loading ahead needs are
 * the chains'). Here each warp
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
 *   group took the dense path twice in a row goes straight to it for the next 1, 2, 4 or 8 groups
 *   (sparse_predictor: the count doubles with each further miss; a group taken sparse resets it), so
 *   that dense data pays for the test about once in 9 groups.
 * The next 32 points are copied into a second staging buffer (cp.async) while these are drawn. The
 * arithmetic of each chain is zstep.h's (q from -c, dimensions in order) and the rest is the broadcast
 * kernels', so the draws are the CPU's. bench/RESULTS.md has where the instructions and the time go.
 * Absent components (K < 64) have zero rows and chain starts of +inf in the packed table, so both
 * tiles run the full tile's code (zstep_gpu.cu's zstep_full_tile()). The chains' phase and the
 * staging are zstep_chains.cuh's, shared with the kernel in passes (zstep_passes.cuh).
 */
#ifndef SK_MIX_ZSTEP_TRANSPOSED_CUH
#define SK_MIX_ZSTEP_TRANSPOSED_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/zstep_broadcast.cuh"
#include "gpu/zstep_chains.cuh"
#include "gpu/zstep_gpu.cuh"
#include "gpu/zstep_sparse.cuh"
#include "samplekit/rng.cuh"
#include "zstep.h"

namespace sk_mix_gpu_detail {

// Draws the lane's point from its row of chains (both tiles) as the broadcast kernels do: tile 0's
// weights go back over its chains, for the search if tile 1 is not taken. Returns the position in the
// taken tile (res.sel).
__device__ __forceinline__ int tr_draw_dense(float *row, const sk_f32x4 &u, sk_thread_tile_reservoir_f32 &res) {
  float q[32], hb, tb;
  bc_load_kept(reinterpret_cast<const float4 *>(row), 1, q);
  bc_tile_weights<32, true>(32, q, hb, tb);
  sk_thread_tile_reservoir_step_f32(&res, 0, hb, tb, 0.0f);
#pragma unroll
  for (int v = 0; v < 8; ++v)
    reinterpret_cast<float4 *>(row)[v] = make_float4(q[4 * v], q[4 * v + 1], q[4 * v + 2], q[4 * v + 3]);
  bc_load_kept(reinterpret_cast<const float4 *>(row + 32), 1, q);
  bc_tile_weights<32, true>(32, q, hb, tb);
  if (!sk_thread_tile_reservoir_step_f32(&res, 1, hb, tb, u.y))
    bc_load_kept(reinterpret_cast<const float4 *>(row), 1, q);
  return sk_thread_tile_search_f32(q, 32, __fmul_rn(u.x, res.t_sel));
}

// The same draw by the sparse tiles (zstep_sparse.cuh), when no lane of the warp has more than
// kSparseMax components tested in in either tile; else -1 in every lane, the row untouched. Every lane
// of the warp calls it.
__device__ __forceinline__ int tr_draw_sparse(const float *row, const sk_f32x4 &u, sk_thread_tile_reservoir_f32 &res) {
  float h0, h1;
  unsigned in0, in1;
  {
    float q[32];
    bc_load_kept(reinterpret_cast<const float4 *>(row), 1, q);
    h0 = sk_thread_tile_min_f32(q, 32);
    in0 = ~sparse_out(q, h0);
    bc_load_kept(reinterpret_cast<const float4 *>(row + 32), 1, q);
    h1 = sk_thread_tile_min_f32(q, 32);
    in1 = ~sparse_out(q, h1);
  }
  const int count = (int)__reduce_max_sync(0xffffffffu, (unsigned)max(__popc(in0), __popc(in1)));
  if (count > kSparseMax) return -1;
  sparse_tile t0, t1;
  sparse_tiles_init(t0, t1, in0, in1, h0, h1, row, row + 32, count);
  const float s0 = sparse_sum(t0), s1 = sparse_sum(t1);
  sk_thread_tile_reservoir_step_f32(&res, 0, h0, s0, 0.0f);
  const bool one = sk_thread_tile_reservoir_step_select_f32(&res, 1, h1, s1, u.y) != 0;
  return sparse_search(sparse_pick(one, t0, t1), __fmul_rn(u.x, res.t_sel), res.t_sel);
}

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
  sparse_predictor predict;
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
    sk_thread_tile_reservoir_f32 res;
    if (predict.try_sparse()) pos = tr_draw_sparse(row, u, res);
    const bool dense = __any_sync(0xffffffffu, pos < 0);  // the sparse path declined (or was not tried)
    predict.record(!dense);
    if (dense) pos = tr_draw_dense(row, u, res);
    if (point < a.n) a.z[point] = res.sel * 32 + pos;
  }
}

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_TRANSPOSED_CUH */
