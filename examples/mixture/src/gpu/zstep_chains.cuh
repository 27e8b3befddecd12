/*
 * The chains' phase of the transposed z-step kernels (zstep_transposed.cuh, for two tiles, and
 * zstep_passes.cuh, in passes of two tiles): the packed table staged in shared memory transposed, a
 * warp's 32 points staged (cp.async for whole rows), and each lane's two components' chains for the
 * 32 points into the points' rows of chains. Included by those two only. Internal to sk-mixture's CUDA
 * part: C++, device code only.
 *
 * Lane t holds components `comp` and `comp` + 1 (their s and -ms for all D dimensions, 4 D registers)
 * and walks the 32 points, whose values the warp has staged (one lane-uniform 16-byte load serves 4
 * dimensions of both components); the two chains of a point go to its row by one 8-byte store. Each
 * chain's arithmetic is zstep.h's: q from -c, the dimensions in order.
 */
#ifndef SK_MIX_ZSTEP_CHAINS_CUH
#define SK_MIX_ZSTEP_CHAINS_CUH

#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/zstep_broadcast.cuh"
#include "gpu/zstep_gpu.cuh"

namespace sk_mix_gpu_detail {

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
    // four chains interleaved (each still takes its dimensions in order), which kept the FMA pipes
    // busier than a point at a time or the classes in a loop.
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
    // Two points at a time, their four chains interleaved: faster in the kernel in passes, not in the
    // two-tile kernel (which takes the loop below).
#pragma unroll 4
    for (int s = 0; s < 32; s += 2) {
      const float4 *xa = reinterpret_cast<const float4 *>(xs + s * JX);
      const float4 *xb = reinterpret_cast<const float4 *>(xs + (s + 1) * JX);
      tr_chains_pair<JX>(xa, xb, t0, t1, c0, c1, reinterpret_cast<float2 *>(qs + s * kRow)[lane],
                         reinterpret_cast<float2 *>(qs + (s + 1) * kRow)[lane]);
    }
  } else {
    // Unrolled 8 times: the best of 4, 8, 16 and 32 over two-tile counts and both sparse and dense
    // data.
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

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_CHAINS_CUH */
