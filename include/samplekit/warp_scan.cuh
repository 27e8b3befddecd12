/**
 * \file warp_scan.cuh
 * \brief Warp-wide inclusive and exclusive prefix sums and sums over an explicit lane mask.
 */
#ifndef SAMPLEKIT_WARP_SCAN_CUH
#define SAMPLEKIT_WARP_SCAN_CUH

#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"

/**
 * \defgroup sk_warp_scan Warp prefix sums
 * \brief Prefix sums and sums across the lanes of an explicit mask, for `float` and `uint32_t`.
 *
 * \sk_mask_contract
 *
 * **Algorithm.** Kogge-Stone over the members' ranks: in step s = 1, 2, 4, 8, 16 the member of rank r
 * adds the value the member of rank r - s holds, when r >= s (5 shuffles and 5 adds). When the mask is
 * a low run (lanes 0..n-1, the full warp included), the member of rank r is lane r and each step is one
 * `shfl.sync.up` whose predicate guards the add, as CUB's WarpScan does. Any other mask takes a general
 * path that finds the source lane with `fns` (find n-th set bit) first: a few more instructions a step.
 *
 * **Rounding.** For `float` the additions happen in exactly the order above, on every GPU and for every
 * launch, so results are bitwise deterministic; the host references in tests/ replay that order and the
 * tests require equality. Integer sums wrap modulo 2^32.
 *
 * Usage:
 * \snippet test_warp_scan.cu warp_scan_usage
 * @{
 */

/** \cond SK_INTERNAL */
/* One Kogge-Stone step: the shuffle's predicate is false for lanes below delta, which keep x (shfl
   returns the caller's own value there), so the add is predicated exactly as in CUB's WarpScan. */
#define SK_DETAIL_DEFINE_SHFL_UP_ADD(T, ptx_type, reg)                                \
  SK_DEVICE T sk_detail_shfl_up_add(unsigned mask, T x, int delta) {                  \
    T r;                                                                              \
    asm volatile("{\n\t.reg .pred p;\n\t"                                             \
                 "shfl.sync.up.b32 %0|p, %1, %2, 0, %3;\n\t"                          \
                 "@p add." ptx_type " %0, %0, %1;\n\t}"                               \
                 : "=" reg(r)                                                         \
                 : reg(x), "r"(delta), "r"(mask));                                    \
    return r;                                                                         \
  }
SK_DETAIL_DEFINE_SHFL_UP_ADD(float, "f32", "f")
SK_DETAIL_DEFINE_SHFL_UP_ADD(uint32_t, "u32", "r")
#undef SK_DETAIL_DEFINE_SHFL_UP_ADD

/* True when mask is lanes 0..n-1 for some n >= 1: then a member's rank equals its lane. */
SK_DEVICE bool sk_detail_is_low_run(unsigned mask) { return (mask & (mask + 1u)) == 0u; }

template <typename T>
SK_DEVICE T sk_detail_warp_inclusive_sum(unsigned mask, T x) {
  if (sk_detail_is_low_run(mask)) {
#pragma unroll
    for (int delta = 1; delta < SK_WARP_SIZE; delta <<= 1) x = sk_detail_shfl_up_add(mask, x, delta);
  } else {
    const int lane = sk_lane_id();
#pragma unroll
    for (int delta = 1; delta < SK_WARP_SIZE; delta <<= 1) {
      /* The member delta ranks below this lane: counting down from this lane, itself included. */
      const unsigned src = __fns(mask, (unsigned)lane, -(delta + 1));
      /* No such member: read our own lane, since a non-member's value is undefined, and drop it. */
      const T y = __shfl_sync(mask, x, src > 31u ? lane : (int)src);
      if (src <= 31u) x += y;
    }
  }
  return x;
}

/* The value of the member one rank below (0 for the lowest member): turns inclusive into exclusive. */
template <typename T>
SK_DEVICE T sk_detail_warp_shift_up_one(unsigned mask, T inclusive) {
  const int lane = sk_lane_id();
  const unsigned src = sk_detail_is_low_run(mask) ? (unsigned)(lane - 1) : __fns(mask, (unsigned)lane, -2);
  const T y = __shfl_sync(mask, inclusive, src > 31u ? lane : (int)src);
  return src > 31u ? T(0) : y;
}
/** \endcond */

/**
 * \brief Inclusive prefix sum: each member gets the sum of the values of the members at or below its lane.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return x plus the values of all members below this lane, added in the documented order.
 * \sk_warp_cost{5 shuffles and 5 adds for a low-run mask; 5 shuffles, 5 `fns` and 5 adds otherwise}
 */
SK_DEVICE float sk_warp_inclusive_sum_f32(unsigned mask, float x) {
  return sk_detail_warp_inclusive_sum(mask, x);
}

/** \copydoc sk_warp_inclusive_sum_f32 */
SK_DEVICE uint32_t sk_warp_inclusive_sum_u32(unsigned mask, uint32_t x) {
  return sk_detail_warp_inclusive_sum(mask, x);
}

/**
 * \brief Exclusive prefix sum: each member gets the sum of the values of the members below its lane.
 *
 * The lowest member gets +0.0f. The value is the inclusive sum of the member one rank below, so it
 * is rounded exactly as sk_warp_inclusive_sum_f32() rounds (not computed as inclusive - x).
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return the sum of the values of all members below this lane.
 * \sk_warp_cost{6 shuffles and 5 adds for a low-run mask}
 */
SK_DEVICE float sk_warp_exclusive_sum_f32(unsigned mask, float x) {
  return sk_detail_warp_shift_up_one(mask, sk_detail_warp_inclusive_sum(mask, x));
}

/**
 * \brief Exclusive prefix sum of 32-bit unsigned integers (modulo 2^32); the lowest member gets 0.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return the sum of the values of all members below this lane, modulo 2^32.
 * \sk_warp_cost{5 shuffles, 5 adds and one subtraction (exact for integers)}
 */
SK_DEVICE uint32_t sk_warp_exclusive_sum_u32(unsigned mask, uint32_t x) {
  return sk_detail_warp_inclusive_sum(mask, x) - x;
}

/**
 * \brief Sum of the members' values, returned to every member (all members get the same bits).
 *
 * Order of the additions: with the full mask, a butterfly (`shfl.sync.bfly` over lane distances 16, 8,
 * 4, 2, 1), which gives every lane the same value because each step adds the same two partial sums;
 * with any other mask, the inclusive sum of the highest member, broadcast.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return the sum over all members.
 * \sk_warp_cost{5 shuffles and 5 adds for the full mask; 6 shuffles and 5 adds otherwise}
 */
SK_DEVICE float sk_warp_sum_f32(unsigned mask, float x) {
  if (mask == SK_FULL_MASK) {
#pragma unroll
    for (int delta = SK_WARP_SIZE / 2; delta > 0; delta >>= 1) x += __shfl_xor_sync(mask, x, delta);
    return x;
  }
  return __shfl_sync(mask, sk_detail_warp_inclusive_sum(mask, x), 31 - __clz((int)mask));
}

/**
 * \brief Sum of the members' values modulo 2^32, returned to every member.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return the sum over all members, modulo 2^32.
 * \sk_warp_cost{one `redux.sync` instruction on sm_80 and later; a warp scan and a shuffle before}
 */
SK_DEVICE uint32_t sk_warp_sum_u32(unsigned mask, uint32_t x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  /* No redux.sync before sm_80: the highest member's inclusive sum, broadcast (exact for integers). */
  return __shfl_sync(mask, sk_detail_warp_inclusive_sum(mask, x), 31 - __clz((int)mask));
#else
  return __reduce_add_sync(mask, x);
#endif
}

/** @} */

#endif /* SAMPLEKIT_WARP_SCAN_CUH */
