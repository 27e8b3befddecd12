// The GPU z-step kernels (mix_gpu.h describes them; zstep.h defines the draw they must reproduce).
#include <stdlib.h>
#include <string.h>

#include "gpu/mix_gpu.h"
#include "gpu/zstep_gpu.cuh"
#include "samplekit/butterfly.cuh"
#include "samplekit/rng.cuh"
#include "zstep.h"

namespace sk_mix_gpu_detail {
namespace {

constexpr int kThreadBlock = 256;

typedef void (*zstep_kernel_fn)(zstep_args);

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
    for (int i = lane; i < 32 * d_pad; i += 32) {
      const int r = i / d_pad, j = i - r * d_pad;
      xs[i] = (r < rows && j < a.d) ? a.x[(size_t)(first + r) * (size_t)a.d + (size_t)j] : 0.0f;
    }
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
// The broadcast kernel: a thread per point, the components broadcast to the lanes. Each thread walks
// the tiles of 32 components for its own point; lane-uniform loads of the packed table (shared memory
// when it fits) give every lane the same component's row, and the tile's 32 chains (minus the
// log-weights), their minimum, exponentials and tree sum stay in the thread's registers: no shuffle,
// no transposition. The arithmetic is zstep.h's, operation for operation (q from -c, j in order;
// padding dimensions, with x = 0, s = 0 and -ms = 0, give fma(0, 0, q) = q, or +0 for q = -0: a zero
// whose sign no later operation sees).

// The two operations the tile's trees combine with: the minimum and the rounded sum.
struct bc_min_op {
  __device__ __forceinline__ float operator()(float a, float b) const { return fminf(a, b); }
};
struct bc_add_op {
  __device__ __forceinline__ float operator()(float a, float b) const { return __fadd_rn(a, b); }
};

// One level of a tree in place: a[i] = op(a[2i], a[2i+1]) for i < CNT, then the level above (the trip
// counts are template arguments, so that every index is known at compile time and a stays in registers).
template <int CNT, typename Op, int N>
__device__ __forceinline__ void bc_tree_levels(float (&a)[N], Op op) {
#pragma unroll
  for (int i = 0; i < CNT; ++i) a[i] = op(a[2 * i], a[2 * i + 1]);
  if constexpr (CNT > 1) bc_tree_levels<CNT / 2>(a, op);
}

// op over the tile's first W values by a tree, pairs first (5 steps of latency instead of 31), in
// registers. For the minimum of the chains the order can only change the sign of a zero minimum, which
// no later operation sees (2^(+-0) = 1, and h - q, the reservoir's comparisons and differences are the
// same for either zero), so the draws are the CPU's; for the sum it is sk_mix_tree_sum32() of the tile
// with its values past W at +0 (adding +0 to a sum >= +0 changes nothing).
template <int W, typename Op>
__device__ __forceinline__ float bc_tile_reduce(const float (&v)[32], Op op) {
  float a[W];
#pragma unroll
  for (int i = 0; i < W; ++i) a[i] = v[i];
  bc_tree_levels<W / 2>(a, op);
  return a[0];
}

// The levels of the tree over node[0, W): the level of CNT entries at 2 W - 2 CNT (pairs at W, ...).
template <int W, int CNT>
__device__ __forceinline__ void bc_build_levels(float (&node)[2 * W - 1]) {
  constexpr int lo = 2 * W - 2 * CNT, below = 2 * W - 4 * CNT;
#pragma unroll
  for (int i = 0; i < CNT; ++i) node[lo + i] = __fadd_rn(node[below + 2 * i], node[below + 2 * i + 1]);
  if constexpr (CNT > 1) bc_build_levels<W, CNT / 2>(node);
}

// One step of the search down the tree: the children sit on the level of CNT entries; n < CNT / 2.
template <int W, int CNT>
__device__ __forceinline__ void bc_descend(const float (&node)[2 * W - 1], float u, float &base, int &n) {
  constexpr int lo = 2 * W - 2 * CNT;
  float left = node[lo], right = node[lo + 1];
#pragma unroll
  for (int c = 1; c < CNT / 2; ++c)
    if (n == c) left = node[lo + 2 * c], right = node[lo + 2 * c + 1];
  n = sk_mix_tree_step(left, right, u, &base, n);
  if constexpr (CNT < W) bc_descend<W, CNT * 2>(node, u, base, n);
}

// sk_mix_tree_search32() of v with v[W..31] = +0, with registers only: above the W-leaf subtree every
// right half is 0, so the search goes left there with base +0 and starts at the subtree's root. The
// nodes a level needs are picked by comparisons (n is not known at compile time).
template <int W>
__device__ __forceinline__ int bc_tree_search(const float (&v)[32], float u) {
  float node[2 * W - 1];
#pragma unroll
  for (int i = 0; i < W; ++i) node[i] = v[i];
  bc_build_levels<W, W / 2>(node);
  float base = 0.0f;
  int n = 0;
  bc_descend<W, 2>(node, u, base, n);
  return n;
}

// The chains' starts for tile b: -c for the present components (the packed table holds -c), +inf
// (log-weight -inf) for the absent ones.
template <int W, bool kFull>
__device__ __forceinline__ void bc_init_chains(const float *negc, int r, float (&q)[32]) {
  // 16-byte loads (the constants of a tile are 16-byte aligned, and the table's padding past K holds
  // zeros, so reading a whole vector stays inside it), then the absent components set to +inf.
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

// Tile b's chains for the P points with the dimensions outside and the components inside (variant 3):
// per pair of dimensions each point's two values come from its slot of shared memory (`xs`, float2
// pairs `xstride` apart) and every present component's 16-byte load serves the P points. Each chain
// still takes its dimensions in order, so the values are bc_accumulate()'s; only the points' D values
// leave the registers for the whole walk (two at a time in them), which lets two blocks share an SM.
template <int JX, int W, bool kFull, int P>
__device__ __forceinline__ void bc_accumulate_dims_outside(const float *tile, int r, const float2 *xs, int xstride,
                                                           float (&q)[P][32]) {
  // Not unrolled: the components' loop alone is 32 (1 + 4 P) instructions, and unrolling the pairs
  // of dimensions too made the kernel larger than the instruction cache keeps for four warps a
  // scheduler (measured: "no instruction" stalls 1.8 per issued instruction).
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
// the smallest chain; tb the weights' tree sum.
template <int W, bool kFull>
__device__ __forceinline__ void bc_tile_weights(int r, float (&q)[32], float &hb, float &tb) {
  hb = bc_tile_reduce<W>(q, bc_min_op{});
#pragma unroll
  for (int i = 0; i < W; ++i) q[i] = (kFull || i < r) ? sk_mix_exp2_neg(__fsub_rn(hb, q[i])) : 0.0f;
  tb = bc_tile_reduce<W>(q, bc_add_op{});
}

// The rest of tile b for one point, given its chains q (absent components +inf): minimum, weights,
// tree sum, the reservoir's step; the tile's weights go to `kept` when the reservoir takes it.
template <int W, bool kFull>
__device__ __forceinline__ void bc_finish_tile(int r, int b, float (&q)[32], sk_mix_reservoir &res, float ub,
                                               float (&kept)[32]) {
  float hb, tb;
  bc_tile_weights<W, kFull>(r, q, hb, tb);
  if (sk_mix_reservoir_step(&res, b, hb, tb, ub)) {
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
template <int W, bool kFull>
__device__ __forceinline__ void bc_finish_tile_shared(int r, int b, bool single, float (&q)[32],
                                                      sk_mix_reservoir &res, float ub, float4 *kept, int stride) {
  float hb, tb;
  bc_tile_weights<W, kFull>(r, q, hb, tb);
  if (sk_mix_reservoir_step(&res, b, hb, tb, ub) && !single) {
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
                                             const float (&x)[P][JX], const float2 *xs, sk_mix_reservoir (&res)[P],
                                             const sk_f32x4 (&u4)[P], float (&q)[P][32], float4 *kept, int stride) {
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
    bc_finish_tile_shared<W, kFull>(r, b, single, q[p], res[p], sk_mix_pick4(u4[p], b % 4),
                                    kept + (size_t)p * 8u * (size_t)stride, stride);
}

// D <= 16 (JX = D rounded up to 4): each thread draws for P points (blockDim apart), whose values stay
// in registers for all tiles; the table in shared memory, each 16-byte load of it serving the P points;
// the kept tile of each point in a slot of shared memory after the table. WL: the width of the last
// tile's slots, 8 when K <= 8, else 32. Two blocks of 256 threads an SM for P = 1 (at most 128
// registers a thread), one for P = 2 (about 190: blocks of 128 with 168 registers, three an SM,
// measured 17% slower at K = 64). kDimsOutside (variant 3, P = 2): the points' values in shared memory
// after the kept slots (P JX / 2 float2 a thread), the chains built with the dimensions outside
// (bc_accumulate_dims_outside()), two blocks an SM.
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
      if (point < a.n) {
        bc_load_x<JX, true>(a.x, point, a.d, 0, x[p]);
      } else {
#pragma unroll
        for (int j = 0; j < JX; ++j) x[p][j] = 0.0f;
      }
      if constexpr (kDimsOutside) {  // the thread's own slots: no barrier needed before it reads them
#pragma unroll
        for (int jp = 0; jp < JX / 2; ++jp)
          xs[(size_t)(p * (JX / 2) + jp) * blockDim.x] = make_float2(x[p][2 * jp], x[p][2 * jp + 1]);
      }
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
      if (b + 1 < num_tiles || (WL == 32 && last_r == 32))
        bc_regs_tile<JX, 32, true, P, kDimsOutside>(tab, cs, b, 32, single, x, xs, res, u4, q, kept, stride4);
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
      const bool full = b + 1 < num_tiles || last_r == 32;
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

// The broadcast kernel for D, K, where the table lives and the points per thread of the register
// kernel (D <= 16 with the table in shared memory; the chunk kernel draws for one point a thread).
template <int P, bool kDimsOutside>
zstep_kernel_fn broadcast_regs_for(int d4, int32_t k) {
  if (k <= 8) {
    switch (d4) {
      case 4: return zstep_broadcast_regs_kernel<4, 8, P, kDimsOutside>;
      case 8: return zstep_broadcast_regs_kernel<8, 8, P, kDimsOutside>;
      case 12: return zstep_broadcast_regs_kernel<12, 8, P, kDimsOutside>;
      default: return zstep_broadcast_regs_kernel<16, 8, P, kDimsOutside>;
    }
  }
  switch (d4) {
    case 4: return zstep_broadcast_regs_kernel<4, 32, P, kDimsOutside>;
    case 8: return zstep_broadcast_regs_kernel<8, 32, P, kDimsOutside>;
    case 12: return zstep_broadcast_regs_kernel<12, 32, P, kDimsOutside>;
    default: return zstep_broadcast_regs_kernel<16, 32, P, kDimsOutside>;
  }
}

zstep_kernel_fn broadcast_for(int32_t d, int32_t k, bool shared, int variant) {
  const int d4 = (int)((d + 3) / 4 * 4);
  if (shared && d4 <= 16)
    return variant == 3   ? broadcast_regs_for<2, true>(d4, k)
           : variant == 2 ? broadcast_regs_for<2, false>(d4, k)
                          : broadcast_regs_for<1, false>(d4, k);
  const int jr = d4 - (d4 - 1) / 16 * 16;
  if (shared) {
    switch (jr) {
      case 4: return zstep_broadcast_chunks_kernel<4, true>;
      case 8: return zstep_broadcast_chunks_kernel<8, true>;
      case 12: return zstep_broadcast_chunks_kernel<12, true>;
      default: return zstep_broadcast_chunks_kernel<16, true>;
    }
  }
  switch (jr) {
    case 4: return zstep_broadcast_chunks_kernel<4, false>;
    case 8: return zstep_broadcast_chunks_kernel<8, false>;
    case 12: return zstep_broadcast_chunks_kernel<12, false>;
    default: return zstep_broadcast_chunks_kernel<16, false>;
  }
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
    c[k] = -t->c[k];  // the chains start from -c
  }
}

cudaError_t zstep_prepare(int kernel, int32_t d, int32_t k, int warps, zstep_plan *plan) {
  const int32_t k_pad = (k + 31) / 32 * 32;
  plan->kernel = kernel;
  plan->warps = warps;
  plan->points = 1;
  plan->variant = 1;
  plan->shared = 0;
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
       the uniforms' recomputation needs registers that variant 3 spills). SK_MIX_ZSTEP_VARIANT (1, 2
       or 3, zstep_gpu.cuh) overrides the choice for measurements; the draws are the same. */
    const int tiles = sk_mix_num_tiles(k);
    const bool dims_outside = d <= 8 || (tiles <= 4 && k % 32 == 0);
    const char *env = getenv("SK_MIX_ZSTEP_VARIANT");
    const int v = env != NULL ? atoi(env) : 0;
    plan->variant = v >= 1 && v <= 3 ? v : tiles == 1 ? 1 : dims_outside ? 3 : 2;
    plan->points = plan->variant == 1 ? 1 : 2;
  }
  /* The kept slots (32 floats a point), and for variant 3 the points' values (D rounded up to 4). */
  const size_t per_thread = regs ? (size_t)plan->points * (128u + (plan->variant == 3 ? 4u * (size_t)((d + 3) / 4 * 4) : 0u)) : 0u;
  plan->shared = fits ? table + per_thread * 32u * (size_t)plan->warps : 0;
  const zstep_kernel_fn f = broadcast_for(d, k, fits, plan->variant);
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
    broadcast_for(a.d, a.k, plan.shared > 0, plan.variant)<<<blocks, plan.warps * 32, plan.shared, stream>>>(a);
  }
  return cudaGetLastError();
}

}  // namespace sk_mix_gpu_detail
