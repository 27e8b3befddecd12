/**
 * \file wary_tree.cuh
 * \brief W-ary sampling trees on the device: build by a warp or a block, search by a warp.
 *
 * The layout, the view and the rules are in wary_tree.h (\ref sk_wary_tree), which this header includes.
 */
#ifndef SAMPLEKIT_WARY_TREE_CUH
#define SAMPLEKIT_WARY_TREE_CUH

#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"
#include "warp_scan.cuh"
#include "wary_tree.h"

/**
 * \addtogroup sk_wary_tree
 *
 * **Device functions.** The warp functions here are full-warp functions: all 32 lanes of the warp
 * must call, converged, and every lane gets the result. They take no lane mask, because the tree's
 * fan-out is the warp's width: a read of 32 entries is one per lane. The block build takes the thread
 * id and thread count from the caller, and its shared scratch (#sk_wary_tree_block_storage) too.
 * Trees may live in global or shared memory; a tree built by one warp or block is read by others only
 * after the usual barrier (`__syncthreads()`, or the end of the kernel).
 * @{
 */

/** \cond SK_INTERNAL */
#define SK_DETAIL_WARY_TREE_UNROLL 8         /* rounds whose loads a warp keeps in flight at once */
/** \endcond */

/**
 * \brief Shared scratch of sk_wary_tree_block_build_f32(): 4 bytes, not read or written today.
 * Declare it `__shared__`, one per block that builds at a time.
 *
 * The build chains its round carries in registers by sk_warp_serial_inclusive_sum_f32(); until then
 * it staged them here (4 KiB). The parameter stays, so that code written against the build compiles
 * unchanged and a later build may need scratch again without a new signature.
 */
typedef struct sk_wary_tree_block_storage {
  float reserved; /**< not used */
} sk_wary_tree_block_storage;

/** \cond SK_INTERNAL */
/* L_i of one round (group docs): the round's inclusive warp sum at the last lane m <= this lane with a
   positive weight, or +0 when there is none, so that C + L repeats the running sum before a zero. */
SK_DEVICE float sk_detail_wary_tree_round_local(float w) {
  const float scan = sk_warp_inclusive_sum_f32(SK_FULL_MASK, w);
  const unsigned lanemask_le = (sk_lanemask_lt() << 1) | 1u;
  const unsigned positive = __ballot_sync(SK_FULL_MASK, w > 0.0f) & lanemask_le;
  /* 31 - clz(0) = -1: any lane will do, the value is not used. */
  const float at_last_positive = __shfl_sync(SK_FULL_MASK, scan, (31 - __clz((int)positive)) & 31);
  return positive != 0u ? at_last_positive : 0.0f;
}

/* The first lane whose v exceeds x. A built tree always has one (the group's last entry is the level
   above's entry, which exceeded x); "& 31" keeps a damaged tree's search inside its storage. */
SK_DEVICE int sk_detail_wary_tree_first_above(float v, float x) {
  return (__ffs((int)__ballot_sync(SK_FULL_MASK, v > x)) - 1) & 31;
}

/* Level `entries` entries long (padded to a multiple of 32 with the total): entry i is below[32 i + 31].
   Threads first, first + stride, ... of a group share the work. */
SK_DEVICE void sk_detail_wary_tree_copy_level(const float *below, float *level, int entries, float total,
                                              int first, int stride) {
  const int padded = SK_DETAIL_WARY_TREE_PAD32(entries);
  for (int i = first; i < padded; i += stride) level[i] = i < entries ? below[32 * i + 31] : total;
}

/* Warp 0 of a block build: level1[r] holds L of round r's last leaf; turn it into the running sum of
   round r's last leaf, C_{r+1} = C_r + L (C_0 = +0), in round order, exactly the warp build's carry
   chain; then pad level 1 with the total. 32 rounds a step by sk_warp_serial_inclusive_sum_f32() (the
   serial loop's bits; its shuffles issue ahead of the chain of adds), the next step's loads issued
   first. Lane 0 walking the rounds from shared memory took 30 us for 2,048 rounds (bench/RESULTS.md).
   `storage` is not used (see sk_wary_tree_block_storage). */
SK_DEVICE void sk_detail_wary_tree_chain(sk_wary_tree_block_storage *storage, float *level1, int rounds) {
  (void)storage;
  const int lane = sk_lane_id();
  float carry = 0.0f; /* the same on every lane of a step's mask; lane 0 is in every step's */
  float x = lane < rounds ? level1[lane] : 0.0f;
  for (int base = 0; base < rounds; base += 32) {
    const int r = base + lane;
    const float next = r + 32 < rounds ? level1[r + 32] : 0.0f; /* another step's entry */
    const unsigned mask = __ballot_sync(SK_FULL_MASK, r < rounds);
    if (r < rounds) level1[r] = sk_warp_serial_inclusive_sum_f32(mask, x, &carry);
    x = next;
  }
  const float total = __shfl_sync(SK_FULL_MASK, carry, 0);
  for (int i = rounds + lane; i < SK_DETAIL_WARY_TREE_PAD32(rounds); i += 32) level1[i] = total;
  __syncwarp(); /* level 1 is written before the caller's barrier or the next kernel reads it */
}

/* G searches by one warp in the same loop, so that their reads are in flight together. Every tree has
   the shape (n, levels, offsets) of `shape`; tree g is at data[g], top[g] is this lane's entry of its
   top level (or 0.0f for a slot to skip: a total of 0 gives -1 and reads nothing more). */
template <int G>
SK_DEVICE void sk_detail_wary_tree_search(const sk_wary_tree_view_f32 &shape, const float *const *data,
                                          const float *top, const float *u, int *result) {
  const int lane = sk_lane_id();
  float x[G];
  int index[G];
  bool live[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const float total = __shfl_sync(SK_FULL_MASK, top[g], SK_WARY_TREE_WIDTH - 1);
    live[g] = total > 0.0f;
    float v = fmaxf(u[g], 0.0f); /* negative or NaN: 0 */
    /* The largest float below a positive total (FLT_MAX for +inf): its bit pattern minus one. */
    if (v >= total) v = __int_as_float(__float_as_int(total) - 1);
    x[g] = v;
    index[g] = sk_detail_wary_tree_first_above(top[g], v);
  }
#pragma unroll
  for (int level = SK_WARY_TREE_MAX_LEVELS - 2; level >= 0; --level) {
    if (level <= shape.num_levels - 2) {
      float v[G];
#pragma unroll
      for (int g = 0; g < G; ++g)
        v[g] = live[g] ? data[g][shape.level_offset[level] + 32 * index[g] + lane] : 0.0f;
#pragma unroll
      for (int g = 0; g < G; ++g) index[g] = 32 * index[g] + sk_detail_wary_tree_first_above(v[g], x[g]);
    }
  }
#pragma unroll
  for (int g = 0; g < G; ++g) result[g] = live[g] ? index[g] : -1;
}
/** \endcond */

/**
 * \brief Builds the tree of `n` weights computed by `weight_of`, by one full warp: the bits of
 * sk_wary_tree_warp_build_f32() over the array of the same weights.
 *
 * For weights that are not in memory as an array: a sampler that derives each leaf from counts (ESCA's
 * word trees, whose leaves are spans of topics) builds its trees without writing the weights first.
 * `weight_of(i)` is called by lane i mod 32 for every leaf i in [0, n), in rounds of 32, with the calls of
 * 8 rounds issued before their results are used (so their loads overlap); it must return the same value
 * whenever it is called with the same i.
 * \tparam WeightOf a functor `float operator()(int i) const` (device), giving leaf i's non-negative finite
 *         weight.
 * \param weight_of the weights.
 * \param n number of weights, 1 to #SK_WARY_TREE_MAX_LEAVES, the same on every lane.
 * \param tree storage for sk_wary_tree_floats(n) floats (global or shared memory), not read by
 *        weight_of; every float of it is written, padding included.
 * \sk_warp_cost{those of sk_wary_tree_warp_build_f32()\, with a call of weight_of in place of each load}
 */
template <typename WeightOf>
SK_DEVICE void sk_wary_tree_warp_build_by_f32(WeightOf weight_of, int n, float *tree) {
  const int lane = sk_lane_id();
  const int levels = sk_wary_tree_num_levels(n);
  const int rounds = (n + 31) / 32;
  float *const level1 = tree + 32 * rounds;
  float carry = 0.0f;
  for (int r0 = 0; r0 < rounds; r0 += SK_DETAIL_WARY_TREE_UNROLL) {
    float w[SK_DETAIL_WARY_TREE_UNROLL];
#pragma unroll
    for (int j = 0; j < SK_DETAIL_WARY_TREE_UNROLL; ++j) {
      const int i = 32 * (r0 + j) + lane;
      w[j] = i < n ? weight_of(i) : 0.0f; /* also 0 for rounds past the last: then i >= 32 rounds >= n */
    }
#pragma unroll
    for (int j = 0; j < SK_DETAIL_WARY_TREE_UNROLL; ++j) {
      if (r0 + j < rounds) {
        const float p = carry + sk_detail_wary_tree_round_local(w[j]);
        tree[32 * (r0 + j) + lane] = p;
        if (levels > 1 && lane == 31) level1[r0 + j] = p;
        carry = __shfl_sync(SK_FULL_MASK, p, 31);
      }
    }
  }
  if (levels > 1) {
    const float total = carry;
    for (int i = rounds + lane; i < SK_DETAIL_WARY_TREE_PAD32(rounds); i += 32) level1[i] = total;
    __syncwarp(); /* level 1 is complete: lane 31 wrote its entries */
    float *below = level1;
    int entries = rounds;
    for (int k = 2; k < levels; ++k) {
      float *const level = below + SK_DETAIL_WARY_TREE_PAD32(entries);
      entries = (entries + 31) / 32;
      sk_detail_wary_tree_copy_level(below, level, entries, total, lane, 32);
      __syncwarp();
      below = level;
    }
  }
  __syncwarp();
}

/**
 * \brief Builds the tree of `n` weights, by one full warp.
 *
 * The warp walks the leaves in rounds of 32 (lane l reads leaf 32 j + l: coalesced), with the loads of
 * 8 rounds in flight at a time, writes level 0 and level 1 as it goes, then the levels above. Gives
 * the bits the group's definition gives. Ends with a `__syncwarp()`, so the same warp may search the
 * tree at once; other warps need a barrier first. sk_wary_tree_warp_build_by_f32() takes the weights
 * from a functor instead.
 * \param weights n non-negative finite weights, readable by every lane (global or shared memory).
 * \param n number of weights, 1 to #SK_WARY_TREE_MAX_LEAVES, the same on every lane.
 * \param tree storage for sk_wary_tree_floats(n) floats (global or shared memory), disjoint from
 *        `weights`; every float of it is written, padding included.
 * \sk_warp_cost{per round of 32 leaves: one coalesced load\, one warp inclusive sum\, one ballot\, two
 *   shuffles and one coalesced store; then sk_wary_tree_floats(n) - 32 ceil(n / 32) floats for the
 *   upper levels}
 */
SK_DEVICE void sk_wary_tree_warp_build_f32(const float *weights, int n, float *tree) {
  sk_wary_tree_warp_build_by_f32(sk_detail_array_weights<float>{weights}, n, tree);
}

/**
 * \brief Builds the tree of `n` weights computed by `weight_of`, by a whole block: the bits of
 * sk_wary_tree_block_build_f32() (and so of the warp build) over the array of the same weights.
 *
 * For long rows whose weights are derived, not stored (ESCA's trees of a frequent word, whose leaves
 * are spans of topics): the same phases as sk_wary_tree_block_build_f32(), with a call of `weight_of`
 * in place of each load. `weight_of(i)` is called twice for each leaf i in [0, n) (phases 1 and 3), by
 * lane i mod 32 of some warp, 8 rounds' calls issued before their results are used; it must return the
 * same value whenever it is called with the same i.
 *
 * All threads of the block must call, with the same arguments except `thread_id`: the function
 * contains `__syncthreads()` and ends with one.
 * \tparam WeightOf a functor `float operator()(int i) const` (device), giving leaf i's non-negative finite
 *         weight.
 * \param thread_id the calling thread's linear index in the block (see sk_wary_tree_block_build_f32()).
 * \param num_threads the number of threads in the block: a multiple of 32, at least 32.
 * \param storage the block's shared scratch.
 * \param weight_of the weights.
 * \param n number of weights, 1 to #SK_WARY_TREE_MAX_LEAVES.
 * \param tree storage for sk_wary_tree_floats(n) floats (global or shared memory), disjoint from
 *        `storage` and not read by weight_of; every float of it is written.
 * \sk_warp_cost{those of sk_wary_tree_block_build_f32()\, with a call of weight_of in place of each load}
 */
template <typename WeightOf>
SK_DEVICE void sk_wary_tree_block_build_by_f32(int thread_id, int num_threads, sk_wary_tree_block_storage *storage,
                                               WeightOf weight_of, int n, float *tree) {
  const int levels = sk_wary_tree_num_levels(n);
  const int warp = thread_id / 32;
  const int num_warps = num_threads / 32;
  if (levels <= 1) {
    if (warp == 0) sk_wary_tree_warp_build_by_f32(weight_of, n, tree);
    __syncthreads();
    return;
  }
  const int lane = sk_lane_id();
  const int rounds = (n + 31) / 32;
  float *const level1 = tree + 32 * rounds;
  const int step = SK_DETAIL_WARY_TREE_UNROLL * num_warps;

  /* (1) Each round's local sum at its last leaf. */
  for (int r0 = warp; r0 < rounds; r0 += step) {
    float w[SK_DETAIL_WARY_TREE_UNROLL];
#pragma unroll
    for (int j = 0; j < SK_DETAIL_WARY_TREE_UNROLL; ++j) {
      const int i = 32 * (r0 + j * num_warps) + lane;
      w[j] = i < n ? weight_of(i) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < SK_DETAIL_WARY_TREE_UNROLL; ++j) {
      if (r0 + j * num_warps < rounds) {
        const float local = sk_detail_wary_tree_round_local(w[j]);
        if (lane == 31) level1[r0 + j * num_warps] = local;
      }
    }
  }
  __syncthreads();

  /* (2) The carries, in round order. */
  if (warp == 0) sk_detail_wary_tree_chain(storage, level1, rounds);
  __syncthreads();

  /* (3) Level 0, and level 2 from level 1. */
  for (int r0 = warp; r0 < rounds; r0 += step) {
    float w[SK_DETAIL_WARY_TREE_UNROLL], c[SK_DETAIL_WARY_TREE_UNROLL];
#pragma unroll
    for (int j = 0; j < SK_DETAIL_WARY_TREE_UNROLL; ++j) {
      const int r = r0 + j * num_warps;
      const int i = 32 * r + lane;
      w[j] = i < n ? weight_of(i) : 0.0f;
      c[j] = r > 0 && r < rounds ? level1[r - 1] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < SK_DETAIL_WARY_TREE_UNROLL; ++j) {
      const int r = r0 + j * num_warps;
      if (r < rounds) tree[32 * r + lane] = c[j] + sk_detail_wary_tree_round_local(w[j]);
    }
  }
  const float total = level1[rounds - 1];
  float *const level2 = level1 + SK_DETAIL_WARY_TREE_PAD32(rounds);
  const int entries2 = (rounds + 31) / 32;
  if (levels >= 3) sk_detail_wary_tree_copy_level(level1, level2, entries2, total, thread_id, num_threads);
  __syncthreads();

  /* (4) Level 3 from level 2. */
  if (levels >= 4) {
    sk_detail_wary_tree_copy_level(level2, level2 + SK_DETAIL_WARY_TREE_PAD32(entries2), (entries2 + 31) / 32,
                                   total, thread_id, num_threads);
    __syncthreads();
  }
}

/**
 * \brief Builds the tree of `n` weights, by a whole block: bit-identical to sk_wary_tree_warp_build_f32().
 *
 * For long rows and few of them. Phases, separated by `__syncthreads()`: (1) the warps take the rounds
 * in turn and write each round's local sum at its last leaf (L_{32 j + 31}) into level 1; (2) warp 0
 * chains these carries in round order, C_{j+1} = C_j + L_{32 j + 31}, one addition a round as in the
 * warp build, 32 rounds a step in registers (sk_warp_serial_inclusive_sum_f32()); (3) the warps
 * recompute each round's local sums (reading the weights a second time) and write P_i = C_j + L_i,
 * while the block writes level 2 from level 1; (4) level 3 from level 2. For n <= 32, warp 0 runs the
 * warp build.
 *
 * All threads of the block must call, with the same arguments except `thread_id`: the function
 * contains `__syncthreads()` and ends with one, after which every thread may search the tree and
 * `storage` may be reused.
 * \param thread_id the calling thread's linear index in the block, 0 to num_threads - 1, such that
 *        ids 32 w .. 32 w + 31 are the lanes of one hardware warp (for a 1-D block, `threadIdx.x`).
 * \param num_threads the number of threads in the block: a multiple of 32, at least 32.
 * \param storage the block's shared scratch.
 * \param weights n non-negative finite weights (global or shared memory).
 * \param n number of weights, 1 to #SK_WARY_TREE_MAX_LEAVES.
 * \param tree storage for sk_wary_tree_floats(n) floats (global or shared memory), disjoint from
 *        `weights` and `storage`; every float of it is written.
 * \sk_warp_cost{two passes over the weights (each a coalesced load\, a warp inclusive sum\, a ballot
 *   and a shuffle per round)\, one sequential addition per round in one warp's serial sum\, 3 or 4
 *   `__syncthreads()`; no shared memory besides `storage`'s 4 bytes}
 */
SK_DEVICE void sk_wary_tree_block_build_f32(int thread_id, int num_threads, sk_wary_tree_block_storage *storage,
                                            const float *weights, int n, float *tree) {
  sk_wary_tree_block_build_by_f32(thread_id, num_threads, storage, sk_detail_array_weights<float>{weights}, n, tree);
}

/**
 * \brief This lane's entry of the tree's top level, to keep in a register for many searches.
 *
 * Lane l gets entry l of the top level; lane 31's is the total. SaberLDA keeps the first levels of its
 * trees in registers the same way. Any lane may call, but the value is meant for
 * sk_wary_tree_search_top_f32(), which all 32 lanes call with their own.
 * \param tree a view of a built tree.
 * \return entry sk_lane_id() of the top level.
 * \sk_warp_cost{one coalesced 128-byte read for the warp}
 */
SK_DEVICE float sk_wary_tree_load_top_f32(sk_wary_tree_view_f32 tree) {
  return tree.data[sk_wary_tree_top_offset_f32(tree) + sk_lane_id()];
}

/**
 * \brief The tree's total from the top level held in registers: lane 31's entry, to every lane.
 * \param top this lane's value of sk_wary_tree_load_top_f32(); all 32 lanes must call.
 * \return the total, bit for bit sk_wary_tree_total_f32().
 * \sk_warp_cost{one shuffle}
 */
SK_DEVICE float sk_wary_tree_top_total_f32(float top) {
  return __shfl_sync(SK_FULL_MASK, top, SK_WARY_TREE_WIDTH - 1);
}

/**
 * \brief Finds u in a tree whose top level the warp already holds in registers (see the group's rules).
 *
 * The same result as sk_wary_tree_search_f32(tree, u), one read fewer: for repeated draws from one
 * tree, load the top level once with sk_wary_tree_load_top_f32().
 * \param tree a view of a built tree; the same on every lane.
 * \param top this lane's value of sk_wary_tree_load_top_f32(tree).
 * \param u the point to find, the same on every lane; normally U * total with U in [0, 1).
 * \return a leaf in [0, n) with a positive weight, the same on every lane; -1 when the total is not
 *         positive (every weight is 0).
 * \sk_warp_cost{a shuffle and a ballot on the top level\, then per level below it one coalesced
 *   128-byte read and one ballot}
 */
SK_DEVICE int sk_wary_tree_search_top_f32(sk_wary_tree_view_f32 tree, float top, float u) {
  const float *data = tree.data;
  int result;
  sk_detail_wary_tree_search<1>(tree, &data, &top, &u, &result);
  return result;
}

/**
 * \brief Finds u in a tree: the leaf i with P_{i-1} <= u < P_i found level by level (group's rules).
 * \param tree a view of a built tree; the same on every lane.
 * \param u the point to find, the same on every lane; normally U * total with U in [0, 1). u >= total
 *        counts as the largest float below the total, u < 0 and NaN as 0.
 * \return a leaf in [0, n) with a positive weight, the same on every lane; -1 when the total is not
 *         positive (every weight is 0).
 * \sk_warp_cost{per level\, one coalesced 128-byte read and one ballot (sk_wary_tree_num_levels(n)
 *   of each)\, and one shuffle}
 */
SK_DEVICE int sk_wary_tree_search_f32(sk_wary_tree_view_f32 tree, float u) {
  return sk_wary_tree_search_top_f32(tree, sk_wary_tree_load_top_f32(tree), u);
}

/** @} */

#endif /* SAMPLEKIT_WARY_TREE_CUH */
