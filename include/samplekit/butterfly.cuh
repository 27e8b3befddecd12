/**
 * \file butterfly.cuh
 * \brief Butterfly-patterned partial sums: every lane of a warp draws one index from its own discrete
 * distribution, reading the 32 distributions with coalesced (transposed) loads.
 */
#ifndef SAMPLEKIT_BUTTERFLY_CUH
#define SAMPLEKIT_BUTTERFLY_CUH

#include <float.h>
#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"

/**
 * \defgroup sk_butterfly Butterfly-patterned partial sums
 * \brief Lane r of a warp draws one index from its own row of K weights; the warp reads the 32 rows
 * together with coalesced loads and finds each lane's index through a butterfly-patterned table of
 * partial sums, with W - 1 = 31 shuffles per 32 x 32 block instead of a full transpose.
 *
 * After G. L. Steele Jr. and J.-B. Tristan, "Using Butterfly-Patterned Partial Sums to Draw from
 * Discrete Distributions", PPoPP 2017 (preprint arXiv:1505.03851; journal version ACM TOPC 6(4), 2019).
 *
 * **Why.** Lane r needs the running sums of its own row. If every lane reads its own row, each load
 * instruction touches 32 rows. Transposed reads are coalesced: in read step s = 0..31 the 32 lanes load
 * 32 consecutive floats of row s, so lane t ends up with column t of every row. Turning that back into
 * rows by a register transpose costs 5 x 16 = 80 shuffles per 32 x 32 block. The butterfly needs 31,
 * because it never forms the full prefix sums: it builds partial sums in a butterfly pattern, and the
 * search rebuilds just the prefix sums it compares u with, on its way down.
 *
 * **Blocks.** NB = ceil(K / 32) blocks of 32 positions; position t = 0..31 of block b is column
 * `32 b - P + t` with P = 32 NB - K. The K mod 32 remnant is block 0 (as in the paper, the remnant comes
 * first): its positions t < P hold no column and count as weight +0.0f. Let x_t be the weight at
 * position t of block b of the lane's row.
 *
 * **Build (per block, 31 shuffles).** For lane distance d = 1, 2, 4, 8, 16 in that order, each lane
 * pairs its values of two rows whose indices differ in the bit of value d, keeps the one whose row
 * agrees with its own lane id in that bit, sends the other with `shfl.sync.bfly` (xor d) and adds what
 * it receives: 16, 8, 4, 2 and 1 shuffles, 31 in all, after which lane r holds the block sum of row r.
 * The sums formed along the way are the node sums of a binary tree over the positions: `S_0(t) = x_t` and `S_m(n) = S_(m-1)(2n) + S_(m-1)(2n+1)` for m = 1..5, node n of level m covering
 * positions [n 2^m, (n+1) 2^m); the block sum is `B_b = S_5(0)`. Each sum is one rounded float
 * addition (its operand order does not matter: float addition is commutative); the grouping is the tree's.
 * Pairing distance 1 first is what makes every node a contiguous run of positions.
 *
 * **Row total.** `C_b = C_(b-1) + B_b` with `C_(-1) = +0.0f`, in block order; the row total is
 * `T = C_(NB-1)`. That is the value `row_total` receives (for a row with a NaN, some NaN: its payload
 * bits are not specified).
 *
 * **Search.** `u = max(uniform * T, 0)` (one rounded product). The block is the first b with `C_b > u`;
 * then `B_b > 0` and `C_(b-1) <= u`. Inside it, with `base = C_(b-1)` and the root (level 5, node 0),
 * for m = 5, 4, 3, 2, 1: let `L = S_(m-1)(2n)` and `R = S_(m-1)(2n+1)` be the node's halves and
 * `edge = base + L` (rounded): the rebuilt prefix sum at the split. If `R > 0` and `u >= edge` the
 * search goes right (`base = edge`, `n = 2n + 1`), otherwise left (`n = 2n`). The result is column
 * `32 b - P + n`. The L values of row r's nodes were formed in other lanes during the build; each lane
 * kept them (with a bit that says whether R > 0) in 31 registers, and the search fetches the one it
 * needs at each level: 0 + 2 + 4 + 8 + 16 = 30 shuffles. (The paper's search, its Algorithms 8 to 10,
 * reads the same kind of table from per-thread memory.)
 *
 * **Order and ties.** Categories are searched in natural index order: blocks in order, and inside a
 * block by halves, quarters, ... and pairs of contiguous columns. The edges are grouped along the tree,
 * not left to right, so they can differ in the last bits from the running sums
 * `w_0 + w_1 + ... + w_i` of the plain prefix-sum sampler (sk_warp_sample_prefix_f32()); that changes
 * which category a handful of uniforms near a boundary pick (bench_butterfly: 0.04 percent of the
 * draws at K = 1024), not the distribution beyond rounding.
 * u exactly on a boundary (`u == C_b`, or `u == edge`) goes to the later category, as everywhere in
 * samplekit (\ref conventions_determinism "conventions").
 *
 * **Zero weights are never returned.** The search never enters a half whose sum is 0 (the `R > 0`
 * test, and `u >= base` holds all the way down, so a left half it enters has `L > 0`), so it ends on a
 * category of positive weight, never on a zero weight or an empty position of block 0. The test is
 * needed: in exact arithmetic `u < base + L + R` would make it redundant, but each rebuilt edge is
 * rounded on its own, and after a few steps u can pass the rebuilt end of the node it is in.
 *
 * **Clamp.** When no block has `C_b > u` (u >= T: a `uniform` >= 1, outside the contract, or a total
 * so small (subnormal) that `uniform * T` rounds up to T), the result is the row's last category of
 * positive weight: the same search with `u = +inf` in the last block with `B_b > 0`.
 *
 * **-1.** A lane with no row (lane >= `num_rows`, or `active == 0`), a row total that is not > 0 (every
 * weight 0, or K <= 0) or not finite (an inf or a NaN in the row, or a sum that overflows) gets -1.
 *
 * **Determinism.** Results depend only on the weights, K and `uniform`: not on the other lanes, the
 * launch or the GPU. tests/ref/butterfly_ref.c replays the order above in plain C and the tests require
 * the same index and the same total, bit for bit.
 *
 * **Cost.** One call draws 32 indices (one per lane). With NB = ceil(K / 32) and G = ceil(NB / 16):
 * - pass 1: NB blocks, each 32 coalesced 128-byte row loads (product form: 64 loads and 32 products),
 *   31 shuffles (product form: 2 more per read step, 64 in all, that fetch row s's doc and word from
 *   lane s: the paper's "master index" idiom), 31 adds; the running total after every G-th block stays
 *   in a register (16 of them);
 * - when NB > 16: the lanes walk the G blocks of their slot again, at most G blocks (a 16th of the row),
 *   each 32 row loads at the lanes' own offsets and 32 + 31 shuffles;
 * - the block that holds the answer: 32 row loads, 32 + 31 shuffles to build its table, 30 to search.
 *
 * Memory traffic is one pass over the 32 rows, plus at most a 16th of it (K > 512), plus one block.
 * No shared memory; the table lives in registers (the paper keeps it in per-thread memory). At sm_90
 * (nvcc 13.0) a calling kernel needs about 76 registers (rows form) to 96 (product form), depending on
 * the kernel around it. The search is memory-latency bound, so occupancy pays: bench_butterfly's
 * product-form kernel ran fastest with `__launch_bounds__(256, 3)` (80 registers, a few spilled words):
 * 3.57 ns a draw at K = 1024 on an H200 against 4.69 at ptxas's own 96 registers.
 *
 * **Preconditions.** All 32 lanes call, converged (there is no mask argument), with the same `rows`,
 * `ld`, `num_rows`, `K` (product form: `theta`, `ld_theta`, `phi`, `ld_phi`, `K`); each lane passes its
 * own `uniform` (product form: `doc`, `word`, `active`) and `row_total`. Weights are non-negative
 * (`-0.0f` counts as 0). Only rows with a lane and columns below K are read. `uniform` is in [0, 1):
 * below 0 (or a NaN) acts as 0, and 1 or more gives the last positive category.
 *
 * Usage:
 * \snippet test_butterfly.cu butterfly_usage
 * @{
 */

/** \cond SK_INTERNAL */
/* Running totals kept through pass 1 (one every G blocks), in registers. 16 rather than 32: 16 registers
   fewer, for a second walk over at most a 16th of the row. On an H200, under __launch_bounds__(256, 3),
   that was 4 to 6 percent faster (product form, K = 1024 and 2048); without a bound, 32 was faster. */
#define SK_DETAIL_BFLY_SLOTS 16

/* Where row s's weight at column c comes from. row(s) runs on every lane before the (predicated) load,
   since it may shuffle. opaque() hides the strides' values from the optimiser for one block: otherwise it
   keeps all 32 rows' 64-bit offsets live across the block loop (64 to 128 registers) to save a
   multiply-add per load. One matrix of rows: */
struct sk_detail_bfly_rows {
  typedef int row_type;
  const float *rows;
  size_t ld;
  __device__ __forceinline__ void opaque() { asm volatile("" : "+l"(ld)); }
  __device__ __forceinline__ int row(int s) const { return s; }
  __device__ __forceinline__ float load(int s, int c) const { return rows[(size_t)s * ld + (size_t)c]; }
};

/* Or the product of a theta row and a phi row. Lane s's doc and word are fetched by shuffle in each read
   step (two shuffles), not kept for all 32 lanes in 64 registers: on an H200 the registers (occupancy)
   are worth more than the shuffles. __fmul_rn: each product is rounded once, never fused into an add. */
struct sk_detail_bfly_product {
  typedef uint2 row_type;
  const float *theta;
  size_t ld_theta;
  const float *phi;
  size_t ld_phi;
  unsigned my_doc, my_word;
  __device__ __forceinline__ void opaque() { asm volatile("" : "+l"(ld_theta), "+l"(ld_phi)); }
  __device__ __forceinline__ uint2 row(int s) const {
    return make_uint2(__shfl_sync(SK_FULL_MASK, my_doc, s), __shfl_sync(SK_FULL_MASK, my_word, s));
  }
  __device__ __forceinline__ float load(uint2 r, int c) const {
    return __fmul_rn(theta[(size_t)r.x * ld_theta + (size_t)c], phi[(size_t)r.y * ld_phi + (size_t)c]);
  }
};

/* Transposed read of one block whose first column c0 is the same for every row: in step s the lanes
   load 32 consecutive floats of row s. Rows outside `rows_mask` and columns below 0 read as +0.0f. */
template <class Src>
SK_DEVICE void sk_detail_bfly_load(Src src, unsigned rows_mask, int c0, int lane, float (&v)[SK_WARP_SIZE]) {
  src.opaque();
  const int c = c0 + lane;
#pragma unroll
  for (int s = 0; s < SK_WARP_SIZE; ++s) {
    const typename Src::row_type r = src.row(s);
    v[s] = (((rows_mask >> s) & 1u) && c >= 0) ? src.load(r, c) : 0.0f;
  }
}

/* The same with each row's own first column (lane s's my_c0): still one coalesced access per step. */
template <class Src>
SK_DEVICE void sk_detail_bfly_load_own(Src src, unsigned rows_mask, int my_c0, int lane, float (&v)[SK_WARP_SIZE]) {
  src.opaque();
#pragma unroll
  for (int s = 0; s < SK_WARP_SIZE; ++s) {
    const typename Src::row_type r = src.row(s);
    const int c = __shfl_sync(SK_FULL_MASK, my_c0, s) + lane;
    v[s] = (((rows_mask >> s) & 1u) && c >= 0) ? src.load(r, c) : 0.0f;
  }
}

/* One butterfly stage, distance 2^k: pairs rows 2h and 2h + 1 of the lane's current values (rows
   that differ in bit k), keeps the one whose bit k agrees with the lane's and swaps the other with lane
   ^ 2^k, then combines the two: their sum, or (kMax) their maximum. A template, so that the stage's
   loop has a constant trip count and unrolls into registers. */
template <int k, bool kMax = false>
SK_DEVICE void sk_detail_bfly_stage(float (&v)[SK_WARP_SIZE], bool upper) {
#pragma unroll
  for (int h = 0; h < (16 >> k); ++h) {
    const float a = v[2 * h], b = v[2 * h + 1];
    const float sent = __shfl_xor_sync(SK_FULL_MASK, upper ? a : b, 1 << k);
    v[h] = kMax ? fmaxf(upper ? b : a, sent) : __fadd_rn(upper ? b : a, sent);
  }
}

/* The butterfly: v[s] is position `lane` of row s on entry; returns lane r's block sum of row r. */
SK_DEVICE float sk_detail_bfly_reduce(float (&v)[SK_WARP_SIZE], int lane) {
  sk_detail_bfly_stage<0>(v, lane & 1);
  sk_detail_bfly_stage<1>(v, (lane >> 1) & 1);
  sk_detail_bfly_stage<2>(v, (lane >> 2) & 1);
  sk_detail_bfly_stage<3>(v, (lane >> 3) & 1);
  sk_detail_bfly_stage<4>(v, (lane >> 4) & 1);
  return v[0];
}

/* A tree node's left half with the "right half is positive" bit in the sign: the left half's magnitude
   with the sign bit set when the right half is 0 (sums of non-negative weights are >= 0). */
SK_DEVICE float sk_detail_bfly_pack(float left, float right) {
  return __uint_as_float((__float_as_uint(left) & 0x7fffffffu) | (right > 0.0f ? 0u : 0x80000000u));
}

/* A stage that also keeps the table: for each of the 16 >> k nodes of level k + 1 the lane forms, the
   node's left half (its own value or the received one, by the lane's bit k) packed with the right
   half's sign, at tab[32 - (32 >> k) + h]: stage 0 at [0, 16), 1 at [16, 24), ..., 4 at [30]. */
template <int k>
SK_DEVICE void sk_detail_bfly_table_stage(float (&v)[SK_WARP_SIZE], float (&tab)[SK_WARP_SIZE - 1], bool upper) {
#pragma unroll
  for (int h = 0; h < (16 >> k); ++h) {
    const float a = v[2 * h], b = v[2 * h + 1];
    const float kept = upper ? b : a;
    const float sent = __shfl_xor_sync(SK_FULL_MASK, upper ? a : b, 1 << k);
    tab[SK_WARP_SIZE - (SK_WARP_SIZE >> k) + h] =
        upper ? sk_detail_bfly_pack(sent, kept) : sk_detail_bfly_pack(kept, sent);
    v[h] = __fadd_rn(kept, sent);
  }
}

/* The butterfly keeping its table (31 entries a lane). */
SK_DEVICE void sk_detail_bfly_build(float (&v)[SK_WARP_SIZE], float (&tab)[SK_WARP_SIZE - 1], int lane) {
  sk_detail_bfly_table_stage<0>(v, tab, lane & 1);
  sk_detail_bfly_table_stage<1>(v, tab, (lane >> 1) & 1);
  sk_detail_bfly_table_stage<2>(v, tab, (lane >> 2) & 1);
  sk_detail_bfly_table_stage<3>(v, tab, (lane >> 3) & 1);
  sk_detail_bfly_table_stage<4>(v, tab, (lane >> 4) & 1);
}

/* One level of the search down the tree of the lane's block (see the group's rules): node n of level m
   of row r sits in lane (n << m) | (r mod 2^m), entry r >> m of that lane's level-m table (stage m - 1),
   so the lane fetches it with one shuffle per possible entry; level 5 is the lane's own. */
template <int m>
SK_DEVICE void sk_detail_bfly_search_level(const float (&tab)[SK_WARP_SIZE - 1], int lane, float u, float &base,
                                           int &n) {
  float f = tab[SK_WARP_SIZE - 2];
  if (m < 5) {
    const int src = (n << m) | (lane & ((1 << m) - 1));
    const int want = lane >> m;
#pragma unroll
    for (int j = 0; j < (SK_WARP_SIZE >> m); ++j) {
      const float y = __shfl_sync(SK_FULL_MASK, tab[SK_WARP_SIZE - (2 * SK_WARP_SIZE >> m) + j], src);
      if (j == want) f = y;
    }
  }
  const unsigned bits = __float_as_uint(f);
  const float edge = __fadd_rn(base, __uint_as_float(bits & 0x7fffffffu));
  if ((bits >> 31) == 0u && u >= edge) {
    base = edge;
    n = 2 * n + 1;
  } else {
    n = 2 * n;
  }
}

/* The search: from the root, with base = the running total before the block; returns the position. */
SK_DEVICE int sk_detail_bfly_search(const float (&tab)[SK_WARP_SIZE - 1], int lane, float u, float base) {
  int n = 0;
  sk_detail_bfly_search_level<5>(tab, lane, u, base, n);
  sk_detail_bfly_search_level<4>(tab, lane, u, base, n);
  sk_detail_bfly_search_level<3>(tab, lane, u, base, n);
  sk_detail_bfly_search_level<2>(tab, lane, u, base, n);
  sk_detail_bfly_search_level<1>(tab, lane, u, base, n);
  return n;
}

template <class Src>
SK_DEVICE int sk_detail_bfly_sample(const Src &src, unsigned rows_mask, int K, float uniform, float *row_total) {
  const int lane = sk_lane_id();
  const bool has_row = (rows_mask >> lane) & 1u;
  const int num_blocks = K > 0 ? (K - 1) / SK_WARP_SIZE + 1 : 0;
  const int pad = K > 0 ? (SK_WARP_SIZE - K % SK_WARP_SIZE) % SK_WARP_SIZE : 0;
  const int group = (num_blocks + SK_DETAIL_BFLY_SLOTS - 1) / SK_DETAIL_BFLY_SLOTS;  // blocks per slot

  // Pass 1: every block, for the row totals; keep the total after every group-th block.
  float slot[SK_DETAIL_BFLY_SLOTS];
#pragma unroll
  for (int j = 0; j < SK_DETAIL_BFLY_SLOTS; ++j) slot[j] = 0.0f;
  float total = 0.0f;
  int last_positive = -1, num_slots = 0;
  for (int b = 0, in_group = 1; b < num_blocks; ++b, ++in_group) {
    float v[SK_WARP_SIZE];
    sk_detail_bfly_load(src, rows_mask, SK_WARP_SIZE * b - pad, lane, v);
    const float block_sum = sk_detail_bfly_reduce(v, lane);
    total = __fadd_rn(total, block_sum);
    if (block_sum > 0.0f) last_positive = b;
    if (in_group == group || b == num_blocks - 1) {
#pragma unroll
      for (int j = 0; j < SK_DETAIL_BFLY_SLOTS; ++j)
        if (j == num_slots) slot[j] = total;  // num_slots is the same on every lane: a uniform select
      ++num_slots;
      in_group = 0;
    }
  }
  if (row_total != NULL) *row_total = total;

  const bool valid = has_row && total > 0.0f && total <= FLT_MAX;
  float u = fmaxf(__fmul_rn(uniform, total), 0.0f);
  // The first slot whose total exceeds u; base = the total before it.
  int found = -1;
  float base = 0.0f;
#pragma unroll
  for (int j = 0; j < SK_DETAIL_BFLY_SLOTS; ++j) {
    if (found < 0 && j < num_slots) {
      if (slot[j] > u) {
        found = j;
      } else {
        base = slot[j];
      }
    }
  }
  int block = found * group;
  bool walking = valid && found >= 0 && group > 1;
  if (valid && found < 0) {  // u >= total: the last positive category (see the clamp rule)
    block = last_positive;
    u = __int_as_float(0x7f800000);  // +inf
    base = 0.0f;
  }

  // Pass 2 (only when a slot covers several blocks): walk the slot's blocks again, adding the same
  // block sums in the same order, until the running total exceeds u. It does within `group` steps,
  // because the slot's own total does.
  for (int step = 0; step < group; ++step) {
    const unsigned walkers = __ballot_sync(SK_FULL_MASK, walking);
    if (walkers == 0u) break;
    float v[SK_WARP_SIZE];
    sk_detail_bfly_load_own(src, walkers, SK_WARP_SIZE * block - pad, lane, v);
    const float block_sum = sk_detail_bfly_reduce(v, lane);
    if (walking) {
      const float next = __fadd_rn(base, block_sum);
      if (next > u) {
        walking = false;
      } else {
        base = next;
        ++block;
      }
    }
  }

  // The block that holds the answer: its butterfly table, and the search.
  const unsigned searchers = __ballot_sync(SK_FULL_MASK, valid);
  if (searchers == 0u) return -1;
  float v[SK_WARP_SIZE], tab[SK_WARP_SIZE - 1];
  const int c0 = SK_WARP_SIZE * block - pad;
  sk_detail_bfly_load_own(src, searchers, valid ? c0 : 0, lane, v);
  sk_detail_bfly_build(v, tab, lane);
  const int position = sk_detail_bfly_search(tab, lane, u, base);
  return valid ? c0 + position : -1;
}
/** \endcond */

/**
 * \brief Lane r draws one index from row r of a tile of rows, `rows[r * ld + k]` for k in [0, K).
 *
 * Lanes r >= `num_rows` have no row: they must still call (they help with the transposed reads and the
 * shuffles, the paper's "master index" idiom) and get -1. See the group for the order of the additions,
 * the tie, zero-weight, clamp and -1 rules, and the cost.
 * \param rows the tile's first row; rows 0 .. `num_rows` - 1 are read at columns 0 .. K - 1. The same on every lane.
 * \param ld the distance between rows, in floats (0 makes every lane's row the same row). The same on every lane.
 * \param num_rows how many lanes have a row: lanes 0 .. `num_rows` - 1 (<= 0: none; > 32: all 32). The same on every lane.
 * \param K the number of categories of every row, >= 1 (K <= 0: every lane gets -1). The same on every lane.
 * \param uniform this lane's uniform number in [0, 1), for example sk_rng_uniform_f32(seed, 0, item);
 *        the lane scales it by its row's total.
 * \param row_total NULL, or where this lane's row total T (summed in the documented order) is written;
 *        a lane without a row gets +0.0f. Each lane passes its own pointer.
 * \return this lane's index in [0, K), of positive weight; -1 when the lane has no row or its row's
 *         total is not > 0 or not finite.
 * \sk_warp_cost{ceil(K / 32) blocks\, each 32 coalesced row loads and 31 shuffles; then\, for K > 512\,
 *   at most ceil(K / 512) blocks again (32 + 31 shuffles each); then one block with 32 + 31 + 30
 *   shuffles. That is for 32 draws: every lane gets its own.}
 */
SK_DEVICE int sk_warp_butterfly_sample_rows_f32(const float *rows, size_t ld, int num_rows, int K, float uniform,
                                                float *row_total) {
  sk_detail_bfly_rows src;
  src.rows = rows;
  src.ld = ld;
  const unsigned mask = num_rows <= 0 ? 0u : num_rows >= SK_WARP_SIZE ? SK_FULL_MASK : (1u << num_rows) - 1u;
  return sk_detail_bfly_sample(src, mask, K, uniform, row_total);
}

/**
 * \brief Lane r draws from the product `theta[doc * ld_theta + k] * phi[word * ld_phi + k]`, with its
 * own `doc` and `word` (the LDA and mixture-model shape).
 *
 * Each product is rounded once (`__fmul_rn`, never fused into an addition); from then on the rules are
 * those of sk_warp_butterfly_sample_rows_f32() with the products as the weights. A lane with
 * `active == 0` has no item: it still calls, helps, and gets -1 (its `doc` and `word` are not read).
 * \param theta the document matrix; the same on every lane.
 * \param ld_theta its row stride in floats; the same on every lane.
 * \param phi the word matrix; the same on every lane.
 * \param ld_phi its row stride in floats; the same on every lane.
 * \param doc this lane's row of theta (>= 0; ignored when `active` is 0).
 * \param word this lane's row of phi (>= 0; ignored when `active` is 0).
 * \param active non-zero when this lane has an item.
 * \param K the number of categories, >= 1 (K <= 0: every lane gets -1); the same on every lane.
 * \param uniform this lane's uniform number in [0, 1).
 * \param row_total NULL, or where this lane's total of the products is written (+0.0f for an inactive lane).
 * \return this lane's index in [0, K), of positive product; -1 when the lane is inactive or its total
 *         is not > 0 or not finite.
 * \sk_warp_cost{as sk_warp_butterfly_sample_rows_f32() with two loads and a product per weight\, and
 *   2 more shuffles per read step (64 a block) that fetch each row's doc and word from its lane}
 */
SK_DEVICE int sk_warp_butterfly_sample_product_f32(const float *theta, size_t ld_theta, const float *phi,
                                                   size_t ld_phi, int doc, int word, int active, int K,
                                                   float uniform, float *row_total) {
  sk_detail_bfly_product src;
  src.theta = theta;
  src.ld_theta = ld_theta;
  src.phi = phi;
  src.ld_phi = ld_phi;
  src.my_doc = active ? (unsigned)doc : 0u;  // an inactive lane's ids are never used for a load
  src.my_word = active ? (unsigned)word : 0u;
  return sk_detail_bfly_sample(src, __ballot_sync(SK_FULL_MASK, active != 0), K, uniform, row_total);
}

/**
 * \brief One 32 x 32 block already in registers, transposed: lane r gets the sum of row r, added along
 * the group's tree.
 *
 * The block-level steps of the sampler, for weights that the lanes compute themselves instead of
 * loading (Steele and Tristan's setting: each lane draws from its own distribution computed on the
 * fly). On entry `v[s]` of lane t is position t of row s, for s and t in 0..31: in step s of a
 * transposed computation every lane works on row s, lane t on that row's position t. The sum is the
 * tree of the group: `S_m(n) = S_(m-1)(2n) + S_(m-1)(2n+1)`, each a rounded float addition, so it
 * equals the block sum `B_b` that sk_warp_butterfly_sample_rows_f32() forms for a block of these 32
 * weights. `v` is not changed.
 *
 * **Preconditions.** All 32 lanes call, converged. Weights need not be non-negative here (the sum is
 * what the tree gives), but the sampler's rules assume they are.
 * \param v this lane's column of the block: v[s] is position `lane` of row s.
 * \return the sum of row `lane` (every lane gets its own row's).
 * \sk_warp_cost{31 shuffles and 31 additions}
 */
SK_DEVICE float sk_warp_butterfly_block_sum_f32(const float (&v)[SK_WARP_SIZE]) {
  float w[SK_WARP_SIZE];
#pragma unroll
  for (int s = 0; s < SK_WARP_SIZE; ++s) w[s] = v[s];
  return sk_detail_bfly_reduce(w, sk_lane_id());
}

/**
 * \brief One 32 x 32 block in registers, transposed (as for sk_warp_butterfly_block_sum_f32()): lane r
 * gets the maximum of row r.
 *
 * The same butterfly with `fmaxf` in place of the addition: the largest of the row's 32 values, NaNs
 * ignored as `fmaxf` ignores them (-inf when every value is -inf or NaN). The maximum does not depend on
 * the order; only the sign of a zero result may (-0.0f or +0.0f when the row's largest values are
 * zeros of both signs). The use it was made for: shifting a row of log-weights by its maximum before
 * exponentiating, so that no weight overflows and the largest is exactly 1.
 * \param v this lane's column of the block: v[s] is position `lane` of row s.
 * \return the maximum of row `lane`.
 * \sk_warp_cost{31 shuffles and 31 `fmaxf`}
 */
SK_DEVICE float sk_warp_butterfly_block_max_f32(const float (&v)[SK_WARP_SIZE]) {
  float w[SK_WARP_SIZE];
#pragma unroll
  for (int s = 0; s < SK_WARP_SIZE; ++s) w[s] = v[s];
  const int lane = sk_lane_id();
  sk_detail_bfly_stage<0, true>(w, lane & 1);
  sk_detail_bfly_stage<1, true>(w, (lane >> 1) & 1);
  sk_detail_bfly_stage<2, true>(w, (lane >> 2) & 1);
  sk_detail_bfly_stage<3, true>(w, (lane >> 3) & 1);
  sk_detail_bfly_stage<4, true>(w, (lane >> 4) & 1);
  return w[0];
}

/**
 * \brief One 32 x 32 block in registers, transposed (as for sk_warp_butterfly_block_sum_f32()): lane r
 * finds the position of `u` in row r by the group's search, from base 0.
 *
 * The table is built as the group says (31 shuffles) and searched (30): from the root, at each level
 * with `L` and `R` the node's halves and `edge = base + L` (rounded), go right when `R > 0` and
 * `u >= edge`, else left; base starts at +0.0f. So u on a rebuilt boundary goes to the later
 * position, a position of weight 0 is never returned while the row has a positive weight and
 * `u >= 0`, and `u = +inf` gives the last position of positive weight (u equal to the row's sum may
 * not: a rebuilt edge can round one ulp above the sum). A row of zeros gives 0. Use it on the block
 * the running totals chose, with u less the totals before it, or with u = uniform x the block's sum.
 *
 * **Preconditions.** All 32 lanes call, converged; weights are non-negative (`-0.0f` counts as 0);
 * each lane passes its own `u`.
 * \param v this lane's column of the block: v[s] is position `lane` of row s.
 * \param u this lane's point in its row, >= 0 (a NaN goes left at every level: position 0).
 * \return the position in row `lane`, 0 to 31.
 * \sk_warp_cost{31 + 30 shuffles\, 31 additions and 5 comparisons}
 */
SK_DEVICE int sk_warp_butterfly_block_search_f32(const float (&v)[SK_WARP_SIZE], float u) {
  float w[SK_WARP_SIZE], tab[SK_WARP_SIZE - 1];
#pragma unroll
  for (int s = 0; s < SK_WARP_SIZE; ++s) w[s] = v[s];
  const int lane = sk_lane_id();
  sk_detail_bfly_build(w, tab, lane);
  return sk_detail_bfly_search(tab, lane, u, 0.0f);
}

/** @} */

#endif /* SAMPLEKIT_BUTTERFLY_CUH */
