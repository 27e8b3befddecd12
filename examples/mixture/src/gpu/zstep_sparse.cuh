/*
 * The z-step's sparse tiles: a tile's weights, tree sum and search from the few components whose
 * weights can be more than +0, with the values of the dense code (zstep.h, zstep_broadcast.cuh) to the
 * last bit. Used by the transposed kernels (zstep_transposed.cuh, zstep_passes.cuh). Internal to
 * sk-mixture's CUDA part: C++, device code only.
 *
 * Why. A weight is e_i = sk_tile_exp2_neg_f32(h - q_i), which is exactly +0 below -125. With
 * well-separated components a point has one or two components within 2^-125 of its largest weight in
 * a tile, and the rest are +0 (bench/RESULTS.md has the counts). The dense code spends about 17
 * instructions on each component after its chain (the
 * difference, the exponential, the tree's sum and the search's share); here a tile costs its minimum, a
 * test a component, and the exponentials, sum and search of at most kSparseMax components.
 *
 * Exactness. The components tested in are a superset of those with h - q_i >= -125 (q_i <= h + 126,
 * the bound rounded up), so every weight left out is one that sk_tile_exp2_neg_f32() makes +0, and those
 * tested in get sk_tile_exp2_neg_f32() itself. The tree's sum with +0 leaves is the tree over the others
 * with the same pairing: a subtree of +0 leaves sums to +0, and s + (+0) = s exactly for s >= +0. So a
 * tile's sum is found from its few weights by the shape of the tree above them: sorted positions p_0 <
 * p_1 < ... meet at level lvl(p_j, p_(j+1)), the highest bit in which they differ, and the pair that meets
 * highest is the split at the top. The search (sk_thread_tile_search_f32()) goes down into the side with the
 * point: above the top split one side is empty, whose sum is +0 (it goes toward the other side with its
 * base unchanged: u >= base + 0, and base + 0 = base), and at each split it compares with the same
 * rounded sums as the dense search. Positions past the last are 32 with weight +0: lvl(p, 32) = 5, above
 * every real split, and lvl(32, 32) = -1, so the formulas need no count.
 */
#ifndef SK_MIX_ZSTEP_SPARSE_CUH
#define SK_MIX_ZSTEP_SPARSE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "zstep.h"

namespace sk_mix_gpu_detail {

// The most components a tile may have tested in for the sparse path; a warp with more in any lane's
// tile takes the dense one. 4 leaves few groups of well-separated data to the dense path
// (bench/RESULTS.md has the histogram of counts).
constexpr int kSparseMax = 4;

// A tile's components tested in: positions ascending (32 past the last), their weights (+0 past the
// last) and the levels at which neighbours meet.
struct sparse_tile {
  int p[4];    // positions 0..31; 32 past the last
  float e[4];  // weights, +0 past the last
  int l[3];    // l[j] = lvl(p[j], p[j + 1])
};

// The highest bit in which positions a and b differ (-1 when equal): the level where they meet.
__device__ __forceinline__ int sparse_level(int a, int b) { return 31 - __clz(a ^ b); }

// The components of a tile whose weights can be > +0: q_i <= h + 126 (the bound rounded up), a superset
// of h - q_i >= -125 (rounding moves the difference by less than 1). Returned as the bits of the
// components left out, component i at bit 31 - i: the sign of bound - q_i, shifted in one funnel shift
// a component (its sign is set exactly when q_i > bound; NaN chains come in, with weight +0).
__device__ __forceinline__ unsigned sparse_out(const float (&q)[32], float h) {
  const float bound = __fadd_ru(h, 126.0f);
  // Four accumulators of 8 components each, so that the shifts are not one chain of 32.
  unsigned out[4] = {0u, 0u, 0u, 0u};
#pragma unroll
  for (int i = 0; i < 32; ++i) out[i / 8] = __funnelshift_l(__float_as_uint(__fsub_rn(bound, q[i])), out[i / 8], 1);
  return (((out[0] << 8 | out[1]) << 8 | out[2]) << 8) | out[3];
}

// One entry of a tile: the first component left in `in` (component i at bit 31 - i), taken out of it;
// its weight from the tile's minimum h and its chain in `row` (the tile's 32 q in shared memory, chain
// i at i ^ swz). Position 32 and weight +0 when none is left.
__device__ __forceinline__ void sparse_entry(unsigned &in, float h, const float *row, int swz, int &p, float &e) {
  p = __clz((int)in);                                   // 32 when none is left
  in ^= __funnelshift_rc(0x80000000u, 0u, (unsigned)p);  // 0 for 32
  const float w = sk_tile_exp2_neg_f32(__fsub_rn(h, row[(p & 31) ^ swz]));
  e = p < 32 ? w : 0.0f;
}

// Fills a and b, two tiles of the same points (their entries computed side by side), from their
// components tested in (`in_a`, `in_b`: component i at bit 31 - i, at most kSparseMax each), minima and
// chains (32 q each in shared memory, chain i at i ^ swz). `count`: the warp's largest set; entries
// past it are past every lane's last (position 32, weight +0) without computing them.
__device__ __forceinline__ void sparse_tiles_init(sparse_tile &a, sparse_tile &b, unsigned in_a, unsigned in_b,
                                                  float h_a, float h_b, const float *row_a, const float *row_b,
                                                  int count, int swz = 0) {
#pragma unroll
  for (int j = 0; j < kSparseMax; ++j) {
    a.p[j] = b.p[j] = 32;
    a.e[j] = b.e[j] = 0.0f;
    if (j < count) {
      sparse_entry(in_a, h_a, row_a, swz, a.p[j], a.e[j]);
      sparse_entry(in_b, h_b, row_b, swz, b.p[j], b.e[j]);
    }
  }
#pragma unroll
  for (int j = 0; j + 1 < kSparseMax; ++j) {
    a.l[j] = sparse_level(a.p[j], a.p[j + 1]);
    b.l[j] = sparse_level(b.p[j], b.p[j + 1]);
  }
}

// The taken one of two tiles, entry by entry (selecting a whole struct by reference would put both in
// local memory).
__device__ __forceinline__ sparse_tile sparse_pick(bool second, const sparse_tile &a, const sparse_tile &b) {
  sparse_tile t;
#pragma unroll
  for (int j = 0; j < kSparseMax; ++j) t.p[j] = second ? b.p[j] : a.p[j], t.e[j] = second ? b.e[j] : a.e[j];
#pragma unroll
  for (int j = 0; j + 1 < kSparseMax; ++j) t.l[j] = second ? b.l[j] : a.l[j];
  return t;
}

// The sums of three neighbours (j, j + 1, j + 2) by the tree: split where they meet higher.
__device__ __forceinline__ float sparse_sum3(const sparse_tile &t, int j) {
  return t.l[j] > t.l[j + 1] ? __fadd_rn(t.e[j], __fadd_rn(t.e[j + 1], t.e[j + 2]))
                             : __fadd_rn(__fadd_rn(t.e[j], t.e[j + 1]), t.e[j + 2]);
}

// The tree's top split among the four entries: after entry 0, 1 or 2, where neighbours meet highest
// (one pair does: two pairs meeting at the same level would need a position between them on both sides).
__device__ __forceinline__ int sparse_top(const sparse_tile &t) {
  return t.l[0] > t.l[1] && t.l[0] > t.l[2] ? 0 : t.l[2] > t.l[0] && t.l[2] > t.l[1] ? 2 : 1;
}

// The tile's tree sum (sk_thread_tile_sum_f32() of its 32 weights).
__device__ __forceinline__ float sparse_sum(const sparse_tile &t) {
  const int top = sparse_top(t);
  if (top == 0) return __fadd_rn(t.e[0], sparse_sum3(t, 1));
  if (top == 2) return __fadd_rn(sparse_sum3(t, 0), t.e[3]);
  return __fadd_rn(__fadd_rn(t.e[0], t.e[1]), __fadd_rn(t.e[2], t.e[3]));
}

// The search's last split, between neighbours j and j + 1 (base: the sum left of them).
__device__ __forceinline__ int sparse_search2(const sparse_tile &t, int j, float u, float base) {
  return t.e[j + 1] > 0.0f && u >= __fadd_rn(base, t.e[j]) ? t.p[j + 1] : t.p[j];
}

// The search among neighbours j, j + 1, j + 2 (base: the sum left of them).
__device__ __forceinline__ int sparse_search3(const sparse_tile &t, int j, float u, float base) {
  if (t.l[j] > t.l[j + 1]) {  // j | (j + 1, j + 2)
    const float edge = __fadd_rn(base, t.e[j]);
    if (__fadd_rn(t.e[j + 1], t.e[j + 2]) > 0.0f && u >= edge) return sparse_search2(t, j + 1, u, edge);
    return t.p[j];
  }
  // (j, j + 1) | j + 2
  if (t.e[j + 2] > 0.0f && u >= __fadd_rn(base, __fadd_rn(t.e[j], t.e[j + 1]))) return t.p[j + 2];
  return sparse_search2(t, j, u, base);
}

// sk_thread_tile_search_f32() of the tile's weights for u (>= 0), whose tree sum is `sum`: where u falls.
// A tile whose weights are all +0 gives 0, as the dense search does (it goes left at every level).
__device__ __forceinline__ int sparse_search(const sparse_tile &t, float u, float sum) {
  if (!(sum > 0.0f)) return 0;
  const int top = sparse_top(t);
  if (top == 0) {  // 0 | (1, 2, 3)
    if (sparse_sum3(t, 1) > 0.0f && u >= t.e[0]) return sparse_search3(t, 1, u, t.e[0]);
    return t.p[0];
  }
  if (top == 2) {  // (0, 1, 2) | 3
    if (t.e[3] > 0.0f && u >= sparse_sum3(t, 0)) return t.p[3];
    return sparse_search3(t, 0, u, 0.0f);
  }
  // (0, 1) | (2, 3)
  const float left = __fadd_rn(t.e[0], t.e[1]);
  if (__fadd_rn(t.e[2], t.e[3]) > 0.0f && u >= left) return sparse_search2(t, 2, u, left);
  return sparse_search2(t, 0, u, 0.0f);
}

// Whether a warp tries the sparse path (warp-uniform): after `misses` declines in a row, the next
// 2^misses / 4 groups go straight to the dense path (at most 8), so that dense data pays for the test
// about once in 9 groups; a group the sparse path takes resets it.
struct sparse_predictor {
  int misses = 0, backoff = 0;
  __device__ __forceinline__ bool try_sparse() const { return backoff == 0; }
  // After a group: whether the sparse path took it.
  __device__ __forceinline__ void record(bool sparse) {
    if (sparse) {
      misses = 0;
      return;
    }
    if (backoff == 0) misses = min(misses + 1, 5);
    backoff = backoff > 0 ? backoff - 1 : (1 << misses) >> 2;
  }
};

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_ZSTEP_SPARSE_CUH */
