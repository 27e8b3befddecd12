/*
 * The broadcast z-step kernels' building blocks (zstep_gpu.cu holds the kernels and their launch,
 * zstep_table.cu the choice of a kernel): the chains' accumulation from the packed table, the tile's
 * weights and reservoir step (samplekit's thread-tile sampler: the tile's trees, its minimum, sum and
 * search, stay in registers), the points' loads and the table's staging. Internal to sk-mixture's
 * CUDA part: C++, device code only.
 */
#ifndef SK_MIX_ZSTEP_BROADCAST_CUH
#define SK_MIX_ZSTEP_BROADCAST_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "samplekit/rng.cuh"
#include "samplekit/thread_tile_sample.h"
#include "zstep.h"

namespace sk_mix_gpu_detail {

// The broadcast kernel: a thread per point, the components broadcast to the lanes. Each thread walks
// the tiles of 32 components for its own point; lane-uniform loads of the packed table (shared memory
// when it fits) give every lane the same component's row, and the tile's 32 chains (minus the
// log-weights), their minimum, exponentials and tree sum stay in the thread's registers: no shuffle,
// no transposition. The arithmetic is zstep.h's, operation for operation (q from -c, j in order;
// padding dimensions, with x = 0, s = 0 and -ms = 0, give fma(0, 0, q) = q, or +0 for q = -0: a zero
// whose sign no later operation sees). The tile's minimum is taken along samplekit's tree, pairs first
// (5 steps of latency instead of 31), where the CPU's runs left to right: the order can only change
// the sign of a zero minimum, which no later operation sees (2^(+-0) = 1, and h - q, the reservoir's
// comparisons and differences are the same for either zero), so the draws are the CPU's. A tile W = 8
// or 16 wide sums and searches what the 32-wide tile with its values past W at +0 would.

// The chains' starts for tile b: -c for the present components (the packed table holds -c), +inf
// (log-weight -inf) for the absent ones (the table holds +inf there too; the partial code sets them
// all the same, and its register allocation was measured so).
template <int W, bool kFull>
__device__ __forceinline__ void bc_init_chains(const float *negc, int r, float (&q)[32]) {
  // 16-byte loads (the constants of a tile are 16-byte aligned, and the table is padded to a multiple
  // of 32 components, so reading a whole vector stays inside it), then the absent components at +inf.
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    if (4 * v < W) {
      const float4 f = reinterpret_cast<const float4 *>(negc)[v];
      q[4 * v] = f.x, q[4 * v + 1] = f.y, q[4 * v + 2] = f.z, q[4 * v + 3] = f.w;
    }
  }
#pragma unroll
  for (int i = 0; i < 32; ++i)
    if (!(i < W && (kFull || i < r))) q[i] = sk_mix_pos_inf();
}

// Tile b's chains for the P points of a thread from the packed rows (zstep_pack()): q[p][i] for
// component 32 b + i, i < W, from JX dimensions of x starting at dimension j0 (q from -c on the first
// chunk; absent components start at +inf and stay there). `row` floats per component. The components
// go G at a time with the dimensions outside, so that G P independent chains are in flight (each
// chain itself is a sequence of dependent FMAs, in the order of j); each lane-uniform 16-byte load
// serves the P points. kFull: all W components present (else the groups from r on are skipped).
template <int JX, int W, bool kFull, int P, int G>
__device__ __forceinline__ void bc_accumulate(const float *tile, int row, int j0, int r, const float (&x)[P][JX],
                                              float (&q)[P][32]) {
#pragma unroll
  for (int i0 = 0; i0 < W; i0 += G) {
    if (kFull || i0 < r) {
      float acc[G][P];
#pragma unroll
      for (int g = 0; g < G; ++g)
#pragma unroll
        for (int p = 0; p < P; ++p) acc[g][p] = q[p][i0 + g];
#pragma unroll
      for (int jp = 0; jp < JX / 2; ++jp) {
#pragma unroll
        for (int g = 0; g < G; ++g) {
          // s_j, -ms_j, s_(j+1), -ms_(j+1) of component i0 + g
          const float4 v = reinterpret_cast<const float4 *>(tile + (size_t)(i0 + g) * (size_t)row + 2 * j0)[jp];
#pragma unroll
          for (int p = 0; p < P; ++p) {
            float t = __fmaf_rn(x[p][2 * jp], v.x, v.y);
            acc[g][p] = __fmaf_rn(t, t, acc[g][p]);
            t = __fmaf_rn(x[p][2 * jp + 1], v.z, v.w);
            acc[g][p] = __fmaf_rn(t, t, acc[g][p]);
          }
        }
      }
#pragma unroll
      for (int g = 0; g < G; ++g)
#pragma unroll
        for (int p = 0; p < P; ++p) q[p][i0 + g] = acc[g][p];
    }
  }
}

// Tile b's chains for the P points with the dimensions outside and the components inside (row
// two-point-dims-outside):
// per pair of dimensions each point's two values come from its slot of shared memory (`xs`, float2
// pairs `xstride` apart) and every present component's 16-byte load serves the P points. Each chain
// still takes its dimensions in order, so the values are bc_accumulate()'s; only the points' D values
// leave the registers for the whole walk (two at a time in them), which lets two blocks share an SM.
template <int JX, int W, bool kFull, int P>
__device__ __forceinline__ void bc_accumulate_dims_outside(const float *tile, int r, const float2 *xs, int xstride,
                                                           float (&q)[P][32]) {
  // Not unrolled: the components' loop alone is 32 (1 + 4 P) instructions, and unrolling the pairs
  // of dimensions too made the kernel larger than the instruction cache keeps for four warps a
  // scheduler (its warps then stalled waiting for instructions).
  // The points' values of the next pair of dimensions are loaded while this pair's FMAs run.
  float2 xv[P];
#pragma unroll
  for (int p = 0; p < P; ++p) xv[p] = xs[(size_t)(p * (JX / 2)) * (size_t)xstride];
#pragma unroll 1
  for (int jp = 0; jp < JX / 2; ++jp) {
    float2 xn[P];
    const int jn = jp + 1 < JX / 2 ? jp + 1 : jp;
#pragma unroll
    for (int p = 0; p < P; ++p) xn[p] = xs[(size_t)(p * (JX / 2) + jn) * (size_t)xstride];
#pragma unroll
    for (int i = 0; i < W; ++i) {
      if (kFull || i < r) {
        const float4 v = reinterpret_cast<const float4 *>(tile + (size_t)i * (2u * JX))[jp];
#pragma unroll
        for (int p = 0; p < P; ++p) {
          float t = __fmaf_rn(xv[p].x, v.x, v.y);
          q[p][i] = __fmaf_rn(t, t, q[p][i]);
          t = __fmaf_rn(xv[p].y, v.z, v.w);
          q[p][i] = __fmaf_rn(t, t, q[p][i]);
        }
      }
    }
#pragma unroll
    for (int p = 0; p < P; ++p) xv[p] = xn[p];
  }
}

// Tile b's weights in place from its chains q: 2^(hb - q_i) for its r components (+0 past them), hb
// the smallest chain; tb the weights' tree sum. kTest: +0 past r by a test per component (kFull
// aside); without it the components past r, whose chains are +inf (bc_init_chains()), get 2^-inf = +0
// from the exponential itself. The tests became a branch around each exponential, which ran them one
// after the other, so the register kernels with the values in registers (rows one-point-regs and
// two-point-regs) drop them; with the dimensions outside (two-point-dims-outside) and in the chunk
// kernels they stay, where dropping them cost more spills than it saved.
template <int W, bool kFull, bool kTest = true>
__device__ __forceinline__ void bc_tile_weights(int r, float (&q)[32], float &hb, float &tb) {
  hb = sk_thread_tile_min_f32(q, W);
#pragma unroll
  for (int i = 0; i < W; ++i)
    q[i] = (kFull || !kTest || i < r) ? sk_tile_exp2_neg_f32(__fsub_rn(hb, q[i])) : 0.0f;
  tb = sk_thread_tile_sum_f32(q, W);
}

// The rest of tile b for one point, given its chains q (absent components +inf): minimum, weights,
// tree sum, the reservoir's step; the tile's weights go to `kept` when the reservoir takes it.
template <int W, bool kFull>
__device__ __forceinline__ void bc_finish_tile(int r, int b, float (&q)[32], sk_thread_tile_reservoir_f32 &res,
                                               float ub, float (&kept)[32]) {
  float hb, tb;
  bc_tile_weights<W, kFull>(r, q, hb, tb);
  if (sk_thread_tile_reservoir_step_f32(&res, b, hb, tb, ub)) {
#pragma unroll
    for (int i = 0; i < 32; ++i) kept[i] = i < W ? q[i] : 0.0f;
  }
}

// JX values of point p (dimensions j0 ..), zeros past D. Four at a time when D is a multiple of 4 (the
// rows are then 16-byte aligned). kStream: the points are read once (L1 is not to keep them).
template <int JX, bool kStream>
__device__ __forceinline__ void bc_load_x(const float *x, int64_t p, int32_t d, int j0, float (&v)[JX]) {
  const float *rowp = x + (size_t)p * (size_t)d + j0;
  if (d % 4 == 0 && j0 + JX <= d) {
#pragma unroll
    for (int q = 0; q < JX / 4; ++q) {
      const float4 f = kStream ? __ldcs(reinterpret_cast<const float4 *>(rowp) + q)
                               : __ldg(reinterpret_cast<const float4 *>(rowp) + q);
      v[4 * q] = f.x, v[4 * q + 1] = f.y, v[4 * q + 2] = f.z, v[4 * q + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int jj = 0; jj < JX; ++jj) v[jj] = j0 + jj < d ? (kStream ? __ldcs(rowp + jj) : __ldg(rowp + jj)) : 0.0f;
  }
}

// A warp's 32 points from `first`, of which `rows` exist (N - first, at most 32), into its staging rows
// (`width` floats a point, zeros past D and past the rows), a float a lane at a time; every lane reads
// them after a __syncwarp().
__device__ __forceinline__ void bc_stage_rows(const float *x, int32_t d, int64_t first, int rows, int width, int lane,
                                              float *xs) {
  for (int i = lane; i < 32 * width; i += 32) {
    const int r = i / width, j = i - r * width;
    xs[i] = (r < rows && j < d) ? x[(size_t)(first + r) * (size_t)d + (size_t)j] : 0.0f;
  }
}

// A register kernel's point: its JX values, or zeros for a point past N (whose draw is not written).
template <int JX>
__device__ __forceinline__ void bc_load_point(const float *x, int64_t n, int32_t d, int64_t point, float (&v)[JX]) {
  if (point < n) {
    bc_load_x<JX, true>(x, point, d, 0, v);
  } else {
#pragma unroll
    for (int j = 0; j < JX; ++j) v[j] = 0.0f;
  }
}

// A point's values into the thread's slot of shared memory: JX / 2 float2, `stride` float2 apart.
template <int JX>
__device__ __forceinline__ void bc_store_values(const float (&v)[JX], float2 *slot, size_t stride) {
#pragma unroll
  for (int jp = 0; jp < JX / 2; ++jp) slot[(size_t)jp * stride] = make_float2(v[2 * jp], v[2 * jp + 1]);
}

// A point's kept tile from the thread's slot of shared memory: 8 float4, `stride` float4 apart.
__device__ __forceinline__ void bc_load_kept(const float4 *slot, size_t stride, float (&w)[32]) {
#pragma unroll
  for (int v = 0; v < 8; ++v) {
    const float4 f = slot[(size_t)v * stride];
    w[4 * v] = f.x, w[4 * v + 1] = f.y, w[4 * v + 2] = f.z, w[4 * v + 3] = f.w;
  }
}

// Copies the packed table (k_pad (row + 1) floats, a multiple of 4) into shared memory.
__device__ __forceinline__ void bc_stage(const float *packed, int32_t k_pad, int row, float4 *smem4) {
  const int n4 = (int)((size_t)k_pad * (size_t)(row + 1) / 4);
  const float4 *src = reinterpret_cast<const float4 *>(packed);
  for (int i = (int)threadIdx.x; i < n4; i += (int)blockDim.x) smem4[i] = __ldg(src + i);
  __syncthreads();
}

// The rest of tile b for one point of the register kernel (as bc_finish_tile()), the kept tile written
// to the thread's slot in shared memory (8 float4, `stride` float4 apart) when the reservoir takes it;
// with one tile (`single`) nothing is stored: the tile's weights stay in q for the search.
template <int W, bool kFull, bool kTest = true>
__device__ __forceinline__ void bc_finish_tile_shared(int r, int b, bool single, float (&q)[32],
                                                      sk_thread_tile_reservoir_f32 &res, float ub, float4 *kept,
                                                      int stride) {
  float hb, tb;
  bc_tile_weights<W, kFull, kTest>(r, q, hb, tb);
  if (sk_thread_tile_reservoir_step_f32(&res, b, hb, tb, ub) && !single) {
#pragma unroll
    for (int v = 0; v < 8; ++v)
      kept[v * stride] = make_float4(4 * v < W ? q[4 * v] : 0.0f, 4 * v + 1 < W ? q[4 * v + 1] : 0.0f,
                                     4 * v + 2 < W ? q[4 * v + 2] : 0.0f, 4 * v + 3 < W ? q[4 * v + 3] : 0.0f);
  }
}

// One tile (full or the last, partial one) of the register kernel, for the thread's P points (their
// values in x, or with kDimsOutside in their slots of shared memory, xs).
template <int JX, int W, bool kFull, int P, bool kDimsOutside>
__device__ __forceinline__ void bc_regs_tile(const float *tab, const float *cs, int b, int r, bool single,
                                             const float (&x)[P][JX], const float2 *xs,
                                             sk_thread_tile_reservoir_f32 (&res)[P], const sk_f32x4 (&u4)[P],
                                             float (&q)[P][32], float4 *kept, int stride) {
  bc_init_chains<W, kFull>(cs + b * 32, r, q[0]);
#pragma unroll
  for (int p = 1; p < P; ++p)
#pragma unroll
    for (int i = 0; i < 32; ++i) q[p][i] = q[0][i];
  if constexpr (kDimsOutside)
    bc_accumulate_dims_outside<JX, W, kFull, P>(tab + (size_t)b * 32u * (2u * JX), r, xs, stride, q);
  else
    bc_accumulate<JX, W, kFull, P, 8 / P>(tab + (size_t)b * 32u * (2u * JX), 2 * JX, 0, r, x, q);
#pragma unroll
  for (int p = 0; p < P; ++p)
    bc_finish_tile_shared<W, kFull, kDimsOutside>(r, b, single, q[p], res[p], sk_mix_pick4(u4[p], b % 4),
                                                  kept + (size_t)p * 8u * (size_t)stride, stride);
}

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_BROADCAST_CUH */
