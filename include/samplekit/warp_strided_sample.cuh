/**
 * \file warp_strided_sample.cuh
 * \brief A warp holds up to R popc(mask) weights read round by round (coalesced), sums them with one
 * warp scan, and then finds any number of points in them: the blocked draw with a strided layout.
 */
#ifndef SAMPLEKIT_WARP_STRIDED_SAMPLE_CUH
#define SAMPLEKIT_WARP_STRIDED_SAMPLE_CUH

#include "sk_config.h"
#include "warp_blocked_sample.cuh"
#include "warp_lane.cuh"
#include "warp_sample_prefix.cuh"
#include "warp_scan.cuh"

/**
 * \defgroup sk_warp_strided_sample Warp sampling in strided rounds, held in registers
 * \brief Draw, many times, from one vector of at most R popc(mask) weights: one coalesced read, one
 * warp scan, then one ballot and one member's walk a draw.
 *
 * SaberLDA's warp-based draw (Li et al., "SaberLDA", ASPLOS 2017, section 3.2) samples a token from its
 * document's sparse row of counts times its word's row, 32 entries a step: the element-wise product,
 * a warp prefix sum and a ballot for each step. The tokens of one word in one document share that
 * row, so a warp can read it once and draw each of them from it. sk_warp_prefix_cache_build_by_f32() keeps the running sums of
 * that walk in registers, but it pays a warp scan, a ballot and a shuffle for each round of m entries
 * (m = popc(mask)). Here the member of rank r reads the entries of the rounds, i = j m + r for
 * j = 0, 1, ... (the same coalesced reads), adds its own entries first, and one warp scan of those
 * sums serves every round: the blocked draw (warp_blocked_sample.cuh) of the vector taken in member
 * order. Any fixed order of the entries gives an exact draw; this one costs ceil(n / m) adds a
 * member and one scan, where the running-sum order costs a scan a round.
 *
 * **Order of the additions.** With rounds = ceil(n / m) (at most R) and entries past n read as 0:
 * - member r's sum: s_r = ((0 + w_r) + w_{m + r}) + ... + w_{(rounds - 1) m + r}, in round order;
 * - Q_r = the members' inclusive warp sum of the s_r, in sk_warp_inclusive_sum_f32()'s order; the
 *   total is Q_{m-1}, the top member's (0 when n == 0);
 * - inside member r: P_{j m + r} = ((Q_r - s_r) + w_r) + ... + w_{j m + r}, from the base Q_r - s_r
 *   (one subtraction), so that the owner of x needs nothing from the others.
 * This is, bit for bit, the blocked group's one-block order for the vector v with v[r R + j] =
 * w[j m + r] (zeros past n): the entry v[r R + j] is w's entry j m + r.
 *
 * **Result at x.** The owner is the first member (in rank order) with Q_r > x and s_r > 0; the result
 * is its first entry, in round order, with w > 0 and P > x; when its walk finds none (float rounding:
 * P at its last entry can fall below Q_r), its last entry with w > 0. When no member qualifies (x >= the
 * total, or rounding), the result is the last positive entry of the last member with s_r > 0. When
 * n == 0 or every weight is 0 the result is -1. "Exceeds" is strict: x exactly on a running sum goes
 * to a later entry with a positive weight, and an entry of weight 0 is never returned.
 *
 * **Determinism.** Every addition happens in the order above, which depends only on the mask and n,
 * each rounded to nearest on its own (`__fadd_rn`: never fused into an FMA with a multiplication in
 * weight_of): the results are bitwise the same on every GPU and for every launch. tests/ref/blocked_ref.c
 * replays the order on the host (and cross-checks it against the blocked reference through the
 * permutation above), and the tests require equal results.
 *
 * **Preconditions.** R is 1, 2, 4 or 8 (the weights live in registers). Weights non-negative and
 * finite; n and x the same on every member. \sk_mask_contract_short
 *
 * Usage (the tokens of one document and word, drawn from one hold):
 * \snippet test_warp_strided_sample.cu warp_strided_sample_usage
 * @{
 */

/**
 * \brief The weights of one vector held in registers between its sum and its draws: what
 * sk_warp_strided_hold_by_f32() leaves and sk_warp_strided_find_f32() reads (this member's part).
 * \tparam R rounds a member can hold: 1, 2, 4 or 8.
 */
template <int R>
struct sk_warp_strided_hold_f32 {
  float w[R];     /**< this member's entries j m + rank, j = 0 .. R - 1 (0 past n and past `rounds`) */
  float sum;      /**< s_r: their sum, in round order */
  float running;  /**< Q_r: the members' inclusive warp sum of the s_r */
  float total;    /**< Q_{m-1}, the top member's, the same on every member */
  int rounds;     /**< rounds used, ceil(n / m): the same on every member */
};

/**
 * \brief Reads at most R popc(mask) weights, round by round, into registers and sums them: one warp
 * scan. sk_warp_strided_find_f32() then finds any number of points in them with no further read.
 *
 * Only the rounds the vector has issue reads and adds (the choice is warp-uniform); the reads of all
 * of them are issued before the first add, so that their latencies overlap.
 * \tparam R rounds a member can hold: 1, 2, 4 or 8.
 * \tparam WeightOf a callable `float(int i)`, usable on the device; called once for each i < n, by the
 *         member of rank i mod m (so a round's calls read consecutive entries: coalesced).
 * \param mask the calling lanes; every member must call and gets the same total.
 * \param weight_of the weights, by index: non-negative and finite.
 * \param n number of weights, 0 to R popc(mask) (more is not checked: the entries from R popc(mask) on
 *        are left out).
 * \param[out] hold this member's part.
 * \return the total Q_{m-1} (0 when n == 0), the same on every member.
 * \sk_warp_cost{ceil(n / m) weight_of calls and adds a member\, one warp inclusive sum\, one shuffle of
 *   the total}
 */
template <int R, typename WeightOf>
SK_DEVICE float sk_warp_strided_hold_by_f32(unsigned mask, WeightOf weight_of, int n, sk_warp_strided_hold_f32<R> *hold) {
  sk_detail_blocked_check_r<R>();
  const int members = __popc(mask);
  const int rank = sk_detail_blocked_rank(mask);
  hold->rounds = (n + members - 1) / members;
  /* The rounds used, in straight-line code chosen by their number: the prefix cache's loads, the same
     reads in the same layout (warp_sample_prefix.cuh says why not a loop). */
  sk_detail_prefix_cache_load_used<1>(weight_of, n, hold->rounds, members, rank, hold->w);
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < R; ++j) {
    if (j >= hold->rounds) break; /* warp-uniform; the entries past are +0 and change no sum */
    sum = __fadd_rn(sum, hold->w[j]);
  }
  hold->sum = sum;
  hold->running = sk_detail_warp_inclusive_sum(mask, sum);
  hold->total = __shfl_sync(mask, hold->running, 31 - __clz((int)mask));
  return hold->total;
}

/**
 * \brief Finds x in a vector held by sk_warp_strided_hold_by_f32(): the index the group's rules give.
 *
 * The owner is the first member with Q_r > x and s_r > 0 (one ballot); it alone walks its entries from
 * Q_r - s_r. So sk_warp_strided_find_f32(mask, h, u * sk_warp_strided_hold_by_f32(mask, w, n, &h)) is
 * a draw at u, and the hold serves any number of draws.
 * \tparam R rounds a member can hold: 1, 2, 4 or 8.
 * \param mask the lanes that built the hold; every member gets the same result.
 * \param hold this member's part, from sk_warp_strided_hold_by_f32().
 * \param x the point to find, the same on every member.
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{one ballot (two when no member qualifies)\, the owner's adds over the rounds used\, one
 *   shuffle of the result}
 */
template <int R>
SK_DEVICE int sk_warp_strided_find_f32(unsigned mask, const sk_warp_strided_hold_f32<R> &hold, float x) {
  int owner = __ffs((int)__ballot_sync(mask, hold.running > x && hold.sum > 0.0f)) - 1;
  const bool past = owner < 0;
  if (past) owner = 31 - __clz((int)__ballot_sync(mask, hold.sum > 0.0f));
  if (owner < 0) return -1;
  int found = -1;
  if (sk_lane_id() == owner) {
    const int members = __popc(mask), rank = sk_detail_blocked_rank(mask);
    float acc = __fsub_rn(hold.running, hold.sum);
    int last = -1;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      if (j < hold.rounds) {
        acc = __fadd_rn(acc, hold.w[j]);
        if (hold.w[j] > 0.0f) {
          last = j * members + rank;
          if (found < 0 && !past && acc > x) found = last;
        }
      }
    }
    if (found < 0) found = last;
  }
  return __shfl_sync(mask, found, owner);
}

/** @} */

#endif /* SAMPLEKIT_WARP_STRIDED_SAMPLE_CUH */
