/**
 * \file warp_lane.cuh
 * \brief Lane identity: the lane id and lane masks read from the hardware registers.
 */
#ifndef SAMPLEKIT_WARP_LANE_CUH
#define SAMPLEKIT_WARP_LANE_CUH

#include "sk_config.h"

/**
 * \defgroup sk_warp_lane Lane identity
 * \brief The calling lane's id and masks, from `%%laneid` and `%%lanemask_lt`.
 *
 * Read from the special registers rather than computed as `threadIdx.x & 31`, which is wrong for
 * blocks whose x dimension is not a multiple of 32 and costs an instruction besides.
 * @{
 */

/**
 * \brief The calling thread's lane in its warp. Any lane may call, with no synchronisation.
 * \return the lane id, 0 to 31.
 */
SK_DEVICE int sk_lane_id(void) {
  unsigned id;
  asm("mov.u32 %0, %%laneid;" : "=r"(id));
  return (int)id;
}

/**
 * \brief Mask of the lanes below the calling lane. Any lane may call, with no synchronisation.
 * \return a mask with bit i set for every lane i < sk_lane_id().
 */
SK_DEVICE unsigned sk_lanemask_lt(void) {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

/**
 * \brief Rank of `lane` among the members of `mask`: the number of members below it.
 * \param mask a lane mask.
 * \param lane a lane, 0 to 31 (it need not be a member).
 * \return 0 to 31.
 */
SK_DEVICE int sk_lane_rank(unsigned mask, int lane) {
  return __popc(mask & ((1u << lane) - 1u));
}

/** @} */

#endif /* SAMPLEKIT_WARP_LANE_CUH */
