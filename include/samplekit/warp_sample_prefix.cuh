/**
 * \file warp_sample_prefix.cuh
 * \brief A warp finds where u falls in the running sums of a weight vector of any length.
 */
#ifndef SAMPLEKIT_WARP_SAMPLE_PREFIX_CUH
#define SAMPLEKIT_WARP_SAMPLE_PREFIX_CUH

#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"
#include "warp_scan.cuh"

/**
 * \defgroup sk_warp_sample_prefix Warp sampling by prefix sums
 * \brief Draw from a discrete distribution given as a weight vector, one warp per draw.
 *
 * The members walk `weights[0..n)` in rounds of m = popc(mask) entries: the member of rank r reads
 * entry base + r (coalesced), the round's inclusive prefix sums come from sk_warp_inclusive_sum_f32(),
 * a running total (the carry) joins the rounds, and a ballot finds the first entry whose running sum
 * exceeds u. The walk stops at the round that holds the answer. This is the sparse-document loop of
 * SaberLDA (Chen et al., "SaberLDA: Sparsity-Aware Learning of Topic Models on GPUs", ASPLOS 2017).
 *
 * **The running sum.** P_i = carry_j + S_i, where round j covers entries [j m, (j + 1) m), S_i is
 * the round's inclusive warp sum up to entry i (in sk_warp_inclusive_sum_f32()'s order, entries past n
 * read as 0) and carry_j = P_{j m - 1} (carry_0 = 0). Compute u from the total given by
 * sk_warp_prefix_total_f32(), which is P_{n-1} bit for bit, so that u < total means an answer exists.
 *
 * **Result.** The smallest i with weight w_i > 0 and P_i > u: strictly greater, so u exactly on a
 * boundary P_i goes to the next entry with a positive weight. (In exact arithmetic P is non-decreasing
 * and the w_i > 0 condition changes nothing; in float, sums of neighbouring slots are grouped
 * differently by the warp scan and a zero-weight entry could round above its predecessor, so the
 * condition is what guarantees that an entry of weight 0 is never returned.) Two edge rules keep every
 * result usable: when no such i exists (u >= total, which rounding in u = U * total can cause), the
 * result is the last entry with a positive weight; when n == 0 or every weight is 0, the result is -1.
 *
 * **Preconditions.** Weights non-negative and finite (for `uint32_t`: their total below 2^32); u >= 0
 * (a negative u returns the first entry); `weights` readable for n entries by every member; n the same
 * on every member, and u too. \sk_mask_contract_short
 *
 * Usage:
 * \snippet test_warp_sample_prefix.cu warp_sample_prefix_usage
 * @{
 */

/** \cond SK_INTERNAL */
template <typename T>
SK_DEVICE int sk_detail_warp_sample_prefix(unsigned mask, const T *weights, int n, T u) {
  const int rank = __popc(mask & sk_lanemask_lt());
  const int members = __popc(mask);
  const int top_lane = 31 - __clz((int)mask);
  T carry = T(0);
  int last_positive = -1;
  for (int base = 0; base < n; base += members) {
    const int i = base + rank;
    const T w = i < n ? weights[i] : T(0);
    const T running = carry + sk_detail_warp_inclusive_sum(mask, w);
    /* w > 0 as well: neighbouring slots' sums are grouped differently, so in float a zero-weight
       entry can round above its predecessor; it must never be the answer. */
    const unsigned hit = __ballot_sync(mask, w > T(0) && running > u);
    if (hit != 0u) return base + sk_lane_rank(mask, __ffs((int)hit) - 1);
    const unsigned positive = __ballot_sync(mask, w > T(0));
    if (positive != 0u) last_positive = base + sk_lane_rank(mask, 31 - __clz((int)positive));
    carry = __shfl_sync(mask, running, top_lane);
  }
  return last_positive;
}

template <typename T>
SK_DEVICE T sk_detail_warp_prefix_total(unsigned mask, const T *weights, int n) {
  const int rank = __popc(mask & sk_lanemask_lt());
  const int members = __popc(mask);
  T carry = T(0);
  for (int base = 0; base < n; base += members) {
    const int i = base + rank;
    const T w = i < n ? weights[i] : T(0);
    const T running = carry + sk_detail_warp_inclusive_sum(mask, w);
    /* The lane holding entry min(n, base + members) - 1: the top lane except in a partial last round,
       where the top slot's sum is grouped differently and could differ from P_{n-1} in the last bit. */
    carry = __shfl_sync(mask, running, 31 - __clz((int)__ballot_sync(mask, i < n)));
  }
  return carry;
}
/** \endcond */

/**
 * \brief Index of the first entry whose running sum exceeds u (see the group's rules for every edge).
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n non-negative finite weights, readable by every member.
 * \param n number of weights, >= 0.
 * \param u the point to find, in [0, total) where total = sk_warp_prefix_total_f32(mask, weights, n).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{ceil((i + 1) / m) rounds for result i and m members\, each one coalesced load\, one
 *   warp inclusive sum and two ballots}
 */
SK_DEVICE int sk_warp_sample_prefix_f32(unsigned mask, const float *weights, int n, float u) {
  return sk_detail_warp_sample_prefix(mask, weights, n, u);
}

/**
 * \brief Integer-weight version of sk_warp_sample_prefix_f32(): exact, with no rounding anywhere.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n counts whose total is below 2^32, readable by every member.
 * \param n number of weights, >= 0.
 * \param u the point to find, in [0, total).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{as sk_warp_sample_prefix_f32()}
 */
SK_DEVICE int sk_warp_sample_prefix_u32(unsigned mask, const uint32_t *weights, int n, uint32_t u) {
  return sk_detail_warp_sample_prefix(mask, weights, n, u);
}

/**
 * \brief Total of a weight vector, summed in the order sk_warp_sample_prefix_f32() uses for its running sums.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n weights, readable by every member.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the last running sum P_{n-1}, bit for bit (0 when n == 0), so that u < total guarantees
 *         that sk_warp_sample_prefix_f32() finds an entry whose running sum exceeds u.
 * \sk_warp_cost{ceil(n / m) rounds\, each one coalesced load\, one warp inclusive sum\, one ballot
 *   and one shuffle}
 */
SK_DEVICE float sk_warp_prefix_total_f32(unsigned mask, const float *weights, int n) {
  return sk_detail_warp_prefix_total(mask, weights, n);
}

/**
 * \brief Total of integer weights modulo 2^32 (see sk_warp_prefix_total_f32()).
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n weights, readable by every member.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the sum of the weights modulo 2^32.
 * \sk_warp_cost{as sk_warp_prefix_total_f32()}
 */
SK_DEVICE uint32_t sk_warp_prefix_total_u32(unsigned mask, const uint32_t *weights, int n) {
  return sk_detail_warp_prefix_total(mask, weights, n);
}

/** @} */

#endif /* SAMPLEKIT_WARP_SAMPLE_PREFIX_CUH */
