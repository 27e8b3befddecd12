/**
 * \file warp_vote.cuh
 * \brief Warp votes: first and last lane whose predicate holds, prefix counts, broadcast.
 */
#ifndef SAMPLEKIT_WARP_VOTE_CUH
#define SAMPLEKIT_WARP_VOTE_CUH

#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"

/**
 * \defgroup sk_warp_vote Warp votes
 * \brief Ballot-based queries across the lanes of an explicit mask, and broadcast from a lane.
 *
 * \sk_mask_contract
 *
 * A vote is one `vote.sync.ballot` followed by a bit operation (find first set, count leading zeros,
 * population count); the result is the same on every member. Only members' predicates are counted.
 *
 * Usage:
 * \snippet test_warp_vote.cu warp_vote_usage
 * @{
 */

/**
 * \brief The lowest member lane whose predicate holds, or -1 when it holds on no member.
 * \param mask the calling lanes (\ref sk_warp_vote "mask contract").
 * \param pred this lane's predicate (non-zero is true).
 * \return a lane 0 to 31, or -1; the same on every member.
 * \sk_warp_cost{one ballot and one `brev` + `flo` (find first set)}
 */
SK_DEVICE int sk_warp_first_lane(unsigned mask, int pred) {
  return __ffs((int)__ballot_sync(mask, pred)) - 1;
}

/**
 * \brief The highest member lane whose predicate holds, or -1 when it holds on no member.
 * \param mask the calling lanes (\ref sk_warp_vote "mask contract").
 * \param pred this lane's predicate (non-zero is true).
 * \return a lane 0 to 31, or -1; the same on every member.
 * \sk_warp_cost{one ballot and one `flo` (count leading zeros)}
 */
SK_DEVICE int sk_warp_last_lane(unsigned mask, int pred) {
  return 31 - __clz((int)__ballot_sync(mask, pred));
}

/**
 * \brief Number of members below this lane whose predicate holds (an exclusive prefix count).
 *
 * The usual way to give each lane whose predicate holds a distinct, ordered output slot.
 * \param mask the calling lanes (\ref sk_warp_vote "mask contract").
 * \param pred this lane's predicate (non-zero is true).
 * \return 0 to 31.
 * \sk_warp_cost{one ballot, one `and` with `%%lanemask_lt`, one `popc`}
 */
SK_DEVICE int sk_warp_count_below(unsigned mask, int pred) {
  return __popc(__ballot_sync(mask, pred) & sk_lanemask_lt());
}

/**
 * \brief Number of members whose predicate holds.
 * \param mask the calling lanes (\ref sk_warp_vote "mask contract").
 * \param pred this lane's predicate (non-zero is true).
 * \return 0 to 32; the same on every member.
 * \sk_warp_cost{one ballot and one `popc`}
 */
SK_DEVICE int sk_warp_count(unsigned mask, int pred) { return __popc(__ballot_sync(mask, pred)); }

/**
 * \brief The value `x` of lane `src_lane`, returned to every member ("warp copy").
 * \param mask the calling lanes (\ref sk_warp_vote "mask contract").
 * \param x this lane's value.
 * \param src_lane the lane to copy from; it must be a member of `mask` and the same on every member.
 * \return `x` of `src_lane`.
 * \sk_warp_cost{one `shfl.sync.idx`}
 */
SK_DEVICE float sk_warp_broadcast_f32(unsigned mask, float x, int src_lane) {
  return __shfl_sync(mask, x, src_lane);
}

/** \copydoc sk_warp_broadcast_f32 */
SK_DEVICE uint32_t sk_warp_broadcast_u32(unsigned mask, uint32_t x, int src_lane) {
  return __shfl_sync(mask, x, src_lane);
}

/**
 * \brief The double `x` of lane `src_lane`, returned to every member, bit for bit.
 * \param mask the calling lanes (\ref sk_warp_vote "mask contract").
 * \param x this lane's value.
 * \param src_lane the lane to copy from; it must be a member of `mask` and the same on every member.
 * \return `x` of `src_lane`.
 * \sk_warp_cost{two `shfl.sync.idx` (the high and the low word)}
 */
SK_DEVICE double sk_warp_broadcast_f64(unsigned mask, double x, int src_lane) {
  return __shfl_sync(mask, x, src_lane);
}

/** @} */

#endif /* SAMPLEKIT_WARP_VOTE_CUH */
