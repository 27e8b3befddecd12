/**
 * \file warp_blocked_sample.cuh
 * \brief A warp draws from a weight vector held R consecutive entries a lane: one read of the weights
 * and one warp scan a draw for up to 32 R entries, and the two passes (the total, then the walk) beyond.
 */
#ifndef SAMPLEKIT_WARP_BLOCKED_SAMPLE_CUH
#define SAMPLEKIT_WARP_BLOCKED_SAMPLE_CUH

#include "sk_config.h"
#include "warp_lane.cuh"
#include "warp_sample_prefix.cuh"
#include "warp_scan.cuh"

/**
 * \defgroup sk_warp_blocked_sample Warp sampling in blocks of R entries a lane
 * \brief Draw from a discrete distribution given as a weight vector, one warp per draw, each member
 * holding R consecutive weights in registers.
 *
 * The vector is cut into blocks of m R entries (m = popc(mask)); in a block the member of rank r
 * holds the R consecutive entries [b m R + r R, b m R + r R + R) and adds them in order, one warp
 * inclusive sum of those R-entry sums gives the running sums at the members' ends, a ballot finds the
 * first member whose running sum exceeds x, and that member alone walks its R entries. For a vector
 * of at most m R entries (one block) a draw is one read of the weights and one warp scan, where
 * sk_warp_sample_prefix_by_f32() scans every 32 entries: this is AGA-LDA's draw over K <= 32 R
 * topics (Moon et al., "AGA-LDA", Euro-Par 2018; Moon, dissertation, 2019, section 2.5, Algorithm
 * 10), its per-thread loop over the K topics laid across a warp. Longer vectors take the paper's two
 * passes: the total first (sk_warp_blocked_total_by_f32()), then, with x = u x total, the walk
 * (sk_warp_blocked_walk_by_f32()), which computes the weights again and stops at the block that holds
 * x. Recomputing the weights instead of storing the running sums is the paper's trade of arithmetic
 * for memory traffic; weight_of() may compute each weight as it reads it (a product of rows, a count
 * plus a prior, a scaled table).
 *
 * **Order of the additions.** In block b, with entries past n read as 0:
 * - member r's block sum: s_r = (((0 + w_{k}) + w_{k+1}) + ...) + w_{k+R-1}, k = b m R + r R, added in
 *   index order;
 * - S_r = the members' inclusive warp sum of the s_r, in sk_warp_inclusive_sum_f32()'s order;
 * - Q_r = C_b + S_r, the running sum at member r's end; C_0 = 0 and C_{b+1} = Q_{m-1}, the top
 *   member's, whether or not the block is full; the total is C_B after the last block B - 1
 *   (0 when n == 0). For one block, Q_r = S_r and the total is S_{m-1}, bit for bit.
 * - inside member r: P_{k+i} = ((Q_r - s_r) + w_k) + ... + w_{k+i}, added in index order from the
 *   base Q_r - s_r, one subtraction, so that the member that owns x needs nothing from the others
 *   (AGA-LDA's order, kept for its bits). In float, P at the member's last entry need not equal Q_r.
 *
 * **Result at x.** The owner is the first member, in block order then rank order, with Q_r > x and
 * s_r > 0; the result is its first entry with w_i > 0 and P_i > x; when its walk finds none (float
 * rounding: P at its last entry can fall below Q_r), its last entry with w_i > 0. When no member of any
 * block qualifies (x >= the total, or rounding: the sums of neighbouring members are grouped
 * differently, and a member whose s_r is 0 can round above its predecessor), the result is the last
 * entry of the vector with a positive weight. When n == 0 or every weight is 0 the result is -1.
 * "Exceeds" is strict: x exactly on a running sum goes to the next entry with a positive weight, and
 * an entry of weight 0 is never returned. A negative x gives the first entry with a positive weight.
 *
 * **Doubles.** sk_warp_blocked_hold_by_f64() and sk_warp_blocked_find_f64() are the one-block draw on
 * doubles, cut between the sum and the search so that a caller can compare x with other parts of its
 * distribution first (held-out fold-in draws: sk-lda's metrics_gpu_heldout.cu); every rule below holds
 * with `__dadd_rn` in place of `__fadd_rn`.
 *
 * **u or x.** sk_warp_blocked_sample_by_f32() (one block) takes u in [0, 1) and scales it itself,
 * x = u x S_{m-1} (one float multiplication, rounded to nearest), because the total is known only after
 * its scan; a u >= 1 still gives an entry with a positive weight by the rules above (the last one,
 * unless rounding puts an earlier member's running sum above the total). The walk takes x
 * itself: compute it from sk_warp_blocked_total_by_f32() (x = u x total). On one block,
 * sk_warp_blocked_walk_by_f32(mask, w, n, u * sk_warp_blocked_total_by_f32(mask, w, n)) returns
 * sk_warp_blocked_sample_by_f32(mask, w, n, u), bit for bit.
 *
 * **Not the order of sk_warp_sample_prefix_f32().** R entries are added in a lane before the warp
 * scan and the carry is the top member's even in a partial last block (the prefix walk carries the
 * running sum of the last valid entry), so the two families may return different indices for the
 * same u near a running sum, R = 1 included. Each is exact for its own documented sums.
 *
 * **Determinism.** Every addition happens in the order above, which depends only on the mask, n and
 * R, each rounded to nearest on its own (`__fadd_rn`: never fused into an FMA with a multiplication in
 * weight_of): the results are bitwise the same on every GPU and for every launch. tests/ref/blocked_ref.c
 * replays the order on the host, and the tests require equal results.
 *
 * **Preconditions.** R is 1, 2, 4 or 8 (the R weights live in registers). Weights non-negative and
 * finite; weight_of(i) returns the same value for the same i on every call (the two passes read each
 * weight twice; with weights that change between the passes, the walk still returns an entry whose
 * weight it read as positive, or -1). n, u and x the same on every member. \sk_mask_contract_short
 *
 * Usage:
 * \snippet test_warp_blocked_sample.cu warp_blocked_sample_usage
 * @{
 */

/** \cond SK_INTERNAL */
/* A member's rank: its lane for a low-run mask (the full warp included), where the two are equal. The
   & 31 changes no value; it tells the compiler that the rank is below 32, which it cannot know of a
   value read by inline asm, so that rank x R + i folds into index and address arithmetic as it does
   for threadIdx.x & 31 (measured: fewer instructions a draw in bench_warp_blocked_sample). */
SK_DEVICE int sk_detail_blocked_rank(unsigned mask) {
  return (sk_detail_is_low_run(mask) ? sk_lane_id() : __popc(mask & sk_lanemask_lt())) & (SK_WARP_SIZE - 1);
}

/* The owner's walk over its R weights w (entries k0 ..), from base = Q_r - s_r: the first positive
   entry whose running sum exceeds x, else (rounding, or past) the last positive one. */
template <int R>
SK_DEVICE int sk_detail_blocked_owner_walk(const float (&w)[R], int k0, float base, float x, bool past) {
  float acc = base;
  int found = -1, last = -1;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    acc = __fadd_rn(acc, w[i]);
    if (w[i] > 0.0f) {
      last = k0 + i;
      if (found < 0 && !past && acc > x) found = k0 + i;
    }
  }
  return found < 0 ? last : found;
}

/* The largest of the members' values, returned to every member. */
SK_DEVICE int sk_detail_blocked_warp_max(unsigned mask, int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  int best = v;
  for (unsigned rest = mask; rest != 0u; rest &= rest - 1u)
    best = max(best, __shfl_sync(mask, v, __ffs((int)rest) - 1));
  return best;
#else
  return __reduce_max_sync(mask, v);
#endif
}

template <int R>
SK_DEVICE void sk_detail_blocked_check_r(void) {
  static_assert(R == 1 || R == 2 || R == 4 || R == 8, "R, the weights a member holds, must be 1, 2, 4 or 8");
}
/** \endcond */

/**
 * \brief Draws from at most R popc(mask) weights computed as they are read: one read, one warp scan.
 *
 * AGA-LDA's blocked draw (see the group): the member of rank r reads entries [r R, r R + R), the
 * total is the top member's inclusive sum S_{m-1}, x = u x total, and the result follows the group's
 * rules. weight_of is called once for each entry below n, by the member that holds it.
 * \tparam R entries a member holds: 1, 2, 4 or 8.
 * \tparam WeightOf a callable `float(int i)`, usable on the device (a functor or an extended lambda).
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index.
 * \param n number of weights, 0 to R popc(mask) (more is not checked: the entries from R popc(mask)
 *        on are left out).
 * \param u the uniform, in [0, 1) (see the group for u >= 1).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{R weight_of calls and R adds a member\, one warp inclusive sum\, one shuffle of the
 *   total\, one ballot (two when no member qualifies)\, the owner's R adds\, one shuffle of the result}
 */
template <int R, typename WeightOf>
SK_DEVICE int sk_warp_blocked_sample_by_f32(unsigned mask, WeightOf weight_of, int n, float u) {
  sk_detail_blocked_check_r<R>();
  const int k0 = sk_detail_blocked_rank(mask) * R;
  float w[R];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    w[i] = k0 + i < n ? weight_of(k0 + i) : 0.0f;
    sum = __fadd_rn(sum, w[i]);
  }
  const float running = sk_detail_warp_inclusive_sum(mask, sum);
  const float x = u * __shfl_sync(mask, running, 31 - __clz((int)mask));
  /* sum > 0 as well: a member with no positive weight may round above its predecessor, and must not own x. */
  int owner = __ffs((int)__ballot_sync(mask, running > x && sum > 0.0f)) - 1;
  const bool past = owner < 0;
  if (past) owner = 31 - __clz((int)__ballot_sync(mask, sum > 0.0f));
  if (owner < 0) return -1;
  int found = -1;
  if (sk_lane_id() == owner) found = sk_detail_blocked_owner_walk<R>(w, k0, __fsub_rn(running, sum), x, past);
  return __shfl_sync(mask, found, owner);
}

/**
 * \brief sk_warp_blocked_sample_by_f32() on weights read from an array.
 * \tparam R entries a member holds: 1, 2, 4 or 8.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n non-negative finite weights, readable by every member.
 * \param n number of weights, 0 to R popc(mask).
 * \param u the uniform, in [0, 1).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{as sk_warp_blocked_sample_by_f32()\, each weight one load (R consecutive floats a
 *   member)}
 */
template <int R>
SK_DEVICE int sk_warp_blocked_sample_f32(unsigned mask, const float *weights, int n, float u) {
  return sk_warp_blocked_sample_by_f32<R>(mask, sk_detail_array_weights<float>{weights}, n, u);
}

/**
 * \brief The total of weights of any length, summed in the blocked order: pass 1 of the two passes.
 *
 * Block by block, the carry C_{b+1} = C_b + S_{m-1} (see the group); the value is the running sum
 * that sk_warp_blocked_walk_by_f32() reaches at the top member of the last block, bit for bit. On one
 * block (n <= R popc(mask)) it is the total sk_warp_blocked_sample_by_f32() scales u by.
 * \tparam R entries a member holds in a block: 1, 2, 4 or 8.
 * \tparam WeightOf a callable `float(int i)`, usable on the device.
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index; called once for each i < n, by the member that holds it.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the total C_B, 0 when n == 0.
 * \sk_warp_cost{ceil(n / (R m)) blocks for m members\, each R weight_of calls and R adds a member\, one
 *   warp inclusive sum and one shuffle}
 */
template <int R, typename WeightOf>
SK_DEVICE float sk_warp_blocked_total_by_f32(unsigned mask, WeightOf weight_of, int n) {
  sk_detail_blocked_check_r<R>();
  const int span = __popc(mask) * R, top = 31 - __clz((int)mask);
  const int offset = sk_detail_blocked_rank(mask) * R;
  float carry = 0.0f;
  for (int base = 0; base < n; base += span) {
    const int k0 = base + offset;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < R; ++i) sum = __fadd_rn(sum, k0 + i < n ? weight_of(k0 + i) : 0.0f);
    carry = __shfl_sync(mask, __fadd_rn(carry, sk_detail_warp_inclusive_sum(mask, sum)), top);
  }
  return carry;
}

/**
 * \brief sk_warp_blocked_total_by_f32() on weights read from an array.
 * \tparam R entries a member holds in a block: 1, 2, 4 or 8.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n weights, readable by every member.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the total C_B, 0 when n == 0.
 * \sk_warp_cost{as sk_warp_blocked_total_by_f32()\, each weight one load}
 */
template <int R>
SK_DEVICE float sk_warp_blocked_total_f32(unsigned mask, const float *weights, int n) {
  return sk_warp_blocked_total_by_f32<R>(mask, sk_detail_array_weights<float>{weights}, n);
}

/**
 * \brief Finds x in the blocked running sums of weights of any length: pass 2 of the two passes.
 *
 * Block by block: each member reads its R weights again, the block's running sums Q_r = C_b + S_r
 * are compared with x, and the walk stops at the first block with an owner, whose R entries the owner
 * walks (see the group for every rule). While it passes blocks, each member remembers its last
 * positive entry, so that the fallback to the last positive entry of the vector reads no weight again.
 * \tparam R entries a member holds in a block: 1, 2, 4 or 8.
 * \tparam WeightOf a callable `float(int i)`, usable on the device.
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index; called once for each i < n up to the block that holds x, by
 *        the member that holds it.
 * \param n number of weights, >= 0.
 * \param x the point to find, in [0, total) where total = sk_warp_blocked_total_by_f32(mask, weight_of, n).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{per block up to the one that holds x: R weight_of calls\, R adds and R comparisons a
 *   member\, one warp inclusive sum\, one ballot and one shuffle; then the owner's R adds and one
 *   shuffle (a warp max\, `redux.sync`\, when no member qualifies)}
 */
template <int R, typename WeightOf>
SK_DEVICE int sk_warp_blocked_walk_by_f32(unsigned mask, WeightOf weight_of, int n, float x) {
  sk_detail_blocked_check_r<R>();
  const int span = __popc(mask) * R, top = 31 - __clz((int)mask);
  const int offset = sk_detail_blocked_rank(mask) * R;
  float carry = 0.0f;
  int last_mine = -1;
  for (int base = 0; base < n; base += span) {
    const int k0 = base + offset;
    float w[R];
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      w[i] = k0 + i < n ? weight_of(k0 + i) : 0.0f;
      sum = __fadd_rn(sum, w[i]);
    }
    const float running = __fadd_rn(carry, sk_detail_warp_inclusive_sum(mask, sum));
    const unsigned hit = __ballot_sync(mask, running > x && sum > 0.0f);
    if (hit != 0u) {
      const int owner = __ffs((int)hit) - 1;
      int found = -1;
      if (sk_lane_id() == owner) found = sk_detail_blocked_owner_walk<R>(w, k0, __fsub_rn(running, sum), x, false);
      return __shfl_sync(mask, found, owner);
    }
#pragma unroll
    for (int i = 0; i < R; ++i)
      if (w[i] > 0.0f) last_mine = k0 + i;
    carry = __shfl_sync(mask, running, top);
  }
  return sk_detail_blocked_warp_max(mask, last_mine);
}

/**
 * \brief sk_warp_blocked_walk_by_f32() on weights read from an array.
 * \tparam R entries a member holds in a block: 1, 2, 4 or 8.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n non-negative finite weights, readable by every member.
 * \param n number of weights, >= 0.
 * \param x the point to find, in [0, total) where total = sk_warp_blocked_total_f32(mask, weights, n).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{as sk_warp_blocked_walk_by_f32()\, each weight one load}
 */
template <int R>
SK_DEVICE int sk_warp_blocked_walk_f32(unsigned mask, const float *weights, int n, float x) {
  return sk_warp_blocked_walk_by_f32<R>(mask, sk_detail_array_weights<float>{weights}, n, x);
}

/**
 * \brief One block of double weights held in registers between its sum and its search: what
 * sk_warp_blocked_hold_by_f64() leaves and sk_warp_blocked_find_f64() reads (this member's part).
 * \tparam R entries a member holds: 1, 2, 4 or 8.
 */
template <int R>
struct sk_warp_blocked_hold_f64 {
  double w[R];     /**< this member's entries [k0, k0 + R) (0 past n) */
  double sum;      /**< s_r: their sum, in index order */
  double running;  /**< Q_r = S_r: the members' inclusive warp sum of the s_r */
  double total;    /**< S_{m-1}, the top member's, the same on every member */
  int k0;          /**< the index of w[0]: rank x R */
};

/**
 * \brief The one-block draw of sk_warp_blocked_sample_by_f32() on doubles, cut in two: this first half
 * reads at most R popc(mask) weights into registers and sums them; sk_warp_blocked_find_f64() then
 * finds any x in them, with no second read.
 *
 * For a caller whose distribution has other parts besides these weights (a draw that first compares
 * u x (others + total) with the others' total, and searches here only past them): the total must be
 * known before x is. The order of the additions and every rule are the group's on doubles (each
 * addition `__dadd_rn`, the warp sum sk_warp_inclusive_sum_f64()'s order, whose steps cost two
 * shuffles). The R weights live in registers, so a caller can keep the hold across other work.
 * \tparam R entries a member holds: 1, 2, 4 or 8.
 * \tparam WeightOf a callable `double(int i)`, usable on the device; called once for each i < n, by the
 *         member that holds it.
 * \param mask the calling lanes; every member gets the same total.
 * \param weight_of the weights, by index: non-negative and finite.
 * \param n number of weights, 0 to R popc(mask) (more is not checked: the entries from R popc(mask) on
 *        are left out).
 * \param[out] hold this member's part of the block.
 * \return the total S_{m-1} (0 when n == 0), the same on every member.
 * \sk_warp_cost{R weight_of calls and R adds a member\, one warp inclusive sum of doubles\, one
 *   shuffle of the total}
 */
template <int R, typename WeightOf>
SK_DEVICE double sk_warp_blocked_hold_by_f64(unsigned mask, WeightOf weight_of, int n, sk_warp_blocked_hold_f64<R> *hold) {
  sk_detail_blocked_check_r<R>();
  hold->k0 = sk_detail_blocked_rank(mask) * R;
  /* Every weight first, then the adds: the reads are independent and overlap. */
#pragma unroll
  for (int i = 0; i < R; ++i) hold->w[i] = hold->k0 + i < n ? weight_of(hold->k0 + i) : 0.0;
  double sum = 0.0;
#pragma unroll
  for (int i = 0; i < R; ++i) sum = __dadd_rn(sum, hold->w[i]);
  hold->sum = sum;
  hold->running = sk_warp_inclusive_sum_f64(mask, sum);
  hold->total = __shfl_sync(mask, hold->running, 31 - __clz((int)mask));
  return hold->total;
}

/**
 * \brief Finds x in a block held by sk_warp_blocked_hold_by_f64(): the index
 * sk_warp_blocked_sample_by_f32()'s rules give on doubles with x in place of u x total.
 *
 * The owner is the first member with Q_r > x and s_r > 0; its walk from Q_r - s_r (one subtraction)
 * returns its first entry with w_i > 0 and a running sum above x, else its last positive entry; with
 * no owner (x >= total, or rounding) the result is the last positive entry of the block. So
 * sk_warp_blocked_find_f64(mask, h, u * sk_warp_blocked_hold_by_f64(mask, w, n, &h)) is the one-block
 * blocked draw at u, on doubles.
 * \tparam R entries a member holds: 1, 2, 4 or 8.
 * \param mask the lanes that built the hold; every member gets the same result.
 * \param hold this member's part, from sk_warp_blocked_hold_by_f64().
 * \param x the point to find, the same on every member.
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{one ballot (two when no member qualifies)\, the owner's R adds\, one shuffle of the
 *   result}
 */
template <int R>
SK_DEVICE int sk_warp_blocked_find_f64(unsigned mask, const sk_warp_blocked_hold_f64<R> &hold, double x) {
  int owner = __ffs((int)__ballot_sync(mask, hold.running > x && hold.sum > 0.0)) - 1;
  const bool past = owner < 0;
  if (past) owner = 31 - __clz((int)__ballot_sync(mask, hold.sum > 0.0));
  if (owner < 0) return -1;
  int found = -1;
  if (sk_lane_id() == owner) {
    double acc = __dsub_rn(hold.running, hold.sum);
    int last = -1;
#pragma unroll
    for (int i = 0; i < R; ++i) {
      acc = __dadd_rn(acc, hold.w[i]);
      if (hold.w[i] > 0.0) {
        last = hold.k0 + i;
        if (found < 0 && !past && acc > x) found = hold.k0 + i;
      }
    }
    if (found < 0) found = last;
  }
  return __shfl_sync(mask, found, owner);
}

/** @} */

#endif /* SAMPLEKIT_WARP_BLOCKED_SAMPLE_CUH */
