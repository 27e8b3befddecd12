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
 * \brief Prefix sums and sums across the lanes of an explicit mask, for `float`, `double` and `uint32_t`.
 *
 * \sk_mask_contract
 *
 * **Algorithm.** Kogge-Stone over the members' ranks: in step s = 1, 2, 4, 8, 16 the member of rank r
 * adds the value the member of rank r - s holds, when r >= s (5 shuffles and 5 adds). When the mask is
 * a low run (lanes 0..n-1, the full warp included), the member of rank r is lane r and each step is one
 * `shfl.sync.up` whose predicate guards the add, as CUB's WarpScan does. Any other mask takes a general
 * path that finds the source lane with `fns` (find n-th set bit) first: a few more instructions a step.
 *
 * **Rounding.** For `float` and `double` the additions happen in exactly the order above, on every GPU
 * and for every launch, so results are bitwise deterministic; the host references in tests/ replay that
 * order and the tests require equality. Integer sums wrap modulo 2^32.
 *
 * **Double precision.** The `_f64` functions add in the same orders as the `_f32` ones, each addition
 * rounded to nearest on its own (`add.rn.f64`, never contracted with a multiply the caller wrote into
 * an FMA). A shuffle moves 32 bits, so each step of a `double` costs two shuffles (the low and the
 * high word) where a `float` costs one. sk_warp_sums_f64() adds up to 32 values a lane at once in the
 * order of sk_warp_sum_f64(), with fewer shuffles than one sum per value.
 *
 * **A serial loop's bits.** sk_warp_serial_inclusive_sum_f64() and sk_warp_serial_inclusive_sum_f32()
 * add in another order: one value at a time, from the lowest member up, onto a running sum carried from
 * the previous call. A warp that walks an array 32 elements a call thus writes the running sums that
 * `for (i = 0; i < n; ++i) { run += x[i]; out[i] = run; }` writes on the host, bit for bit: for tables
 * that must match a serial reference (an inverse-CDF table a CPU also builds), where the Kogge-Stone
 * order would round differently. The additions are a chain of one per member, but the loads and
 * products that feed them are the lanes' own, in parallel, and the shuffles do not wait on the chain:
 * one thread walking the array waits a load latency an element where each store may alias the next load.
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

/* The same step for a double, in C: __shfl_up_sync moves both 32-bit halves with the same delta, and
   the add is guarded by the lane (for a low run, lanes below delta are exactly those whose shuffle has
   no source). __dadd_rn: rounded once, never fused. Plain C rather than one asm block, so that the
   compiler schedules the two shuffles of each step with the surrounding code: an asm form ran at 0.84x
   the speed of this code in bench_sums_f64 (H200, bench/RESULTS.md, issue 30). */
SK_DEVICE double sk_detail_shfl_up_add(unsigned mask, double x, int delta) {
  const double y = __shfl_up_sync(mask, x, (unsigned)delta);
  return sk_lane_id() >= delta ? __dadd_rn(x, y) : x;
}

/* a + b as each type's scans add: floats and doubles through the _rn intrinsics, so that nvcc cannot
   fuse the add with a multiply that produced an operand (a weight computed as it is read) into an FMA,
   which would round once where the documented order rounds twice (the low-run path's PTX add cannot
   fuse either). */
SK_DEVICE float sk_detail_add(float a, float b) { return __fadd_rn(a, b); }
SK_DEVICE uint32_t sk_detail_add(uint32_t a, uint32_t b) { return a + b; }
SK_DEVICE double sk_detail_add(double a, double b) { return __dadd_rn(a, b); }

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
      if (src <= 31u) x = sk_detail_add(x, y);
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

/* Weights read from an array: the accessor that the pointer versions of the draws, walks and builds
   which take weights by a functor (warp_sample_prefix.cuh, warp_blocked_sample.cuh, wary_tree.cuh) hand
   to their `_by_` forms. */
template <typename T>
struct sk_detail_array_weights {
  const T *weights;
  __device__ __forceinline__ T operator()(int i) const { return weights[i]; }
};
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

/**
 * \brief Inclusive prefix sum of doubles: each member gets the sum of the values of the members at or
 * below its lane, in sk_warp_inclusive_sum_f32()'s order.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return x plus the values of all members below this lane, added in the documented order.
 * \sk_warp_cost{10 shuffles (5 steps of two 32-bit halves) and 5 adds for a low-run mask; 10 shuffles\,
 *   5 `fns` and 5 adds otherwise}
 */
SK_DEVICE double sk_warp_inclusive_sum_f64(unsigned mask, double x) {
  return sk_detail_warp_inclusive_sum(mask, x);
}

/**
 * \brief Exclusive prefix sum of doubles: each member gets the sum of the values of the members below
 * its lane; the lowest member gets +0.0.
 *
 * The value is the inclusive sum of the member one rank below, rounded exactly as
 * sk_warp_inclusive_sum_f64() rounds it (not computed as inclusive - x).
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return the sum of the values of all members below this lane.
 * \sk_warp_cost{12 shuffles and 5 adds for a low-run mask}
 */
SK_DEVICE double sk_warp_exclusive_sum_f64(unsigned mask, double x) {
  return sk_detail_warp_shift_up_one(mask, sk_detail_warp_inclusive_sum(mask, x));
}

/**
 * \brief Sum of the members' doubles, returned to every member (all members get the same bits).
 *
 * Order of the additions: sk_warp_sum_f32()'s. With the full mask, a butterfly over lane distances 16,
 * 8, 4, 2, 1 (every lane gets the same bits, each step adding the same two partial sums); with any
 * other mask, the inclusive sum of the highest member, broadcast.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \return the sum over all members.
 * \sk_warp_cost{10 shuffles and 5 adds for the full mask; 12 shuffles and 5 adds otherwise}
 */
SK_DEVICE double sk_warp_sum_f64(unsigned mask, double x) {
  if (mask == SK_FULL_MASK) {
#pragma unroll
    for (int delta = SK_WARP_SIZE / 2; delta > 0; delta >>= 1)
      x = __dadd_rn(x, __shfl_xor_sync(mask, x, delta));
    return x;
  }
  return __shfl_sync(mask, sk_detail_warp_inclusive_sum(mask, x), 31 - __clz((int)mask));
}

/** \cond SK_INTERNAL */
template <typename T>
SK_DEVICE T sk_detail_warp_serial_inclusive_sum(unsigned mask, T x, T *carry) {
  const int lane = sk_lane_id();
  T run = *carry, mine = run;
  if (mask == SK_FULL_MASK) {
    /* Straight-line: the 32 shuffles do not depend on the chain of adds, so they issue ahead of it. */
#pragma unroll
    for (int src = 0; src < SK_WARP_SIZE; ++src) {
      run = sk_detail_add(run, __shfl_sync(SK_FULL_MASK, x, src));
      mine = src == lane ? run : mine;
    }
  } else {
    for (unsigned rest = mask; rest != 0u; rest &= rest - 1u) {
      const int src = __ffs((int)rest) - 1;
      run = sk_detail_add(run, __shfl_sync(mask, x, src));
      mine = src == lane ? run : mine;
    }
  }
  *carry = run;
  return mine;
}
/** \endcond */

/**
 * \brief Running sums in a serial loop's order: each member gets *carry plus the values of the members
 * at or below its lane, added one at a time from the lowest member up; *carry becomes the sum over all
 * members, the same on every member.
 *
 * Called once a round over an array (32 elements a round, *carry starting at 0.0), it writes the bits
 * of the host loop `run += x[i]; out[i] = run;`. Each addition is rounded on its own (`add.rn.f64`).
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \param[in,out] carry the running sum before this call's values, the same on every member; on return
 *        the running sum after the highest member's value, the same on every member.
 * \return ((*carry + x_0) + x_1) + ... + x (the members' values from the lowest up to this lane's).
 * \sk_warp_cost{popc(mask) dependent adds and 2 popc(mask) 32-bit shuffles (independent of the adds);
 *   the same on every member. A Kogge-Stone scan costs 5 adds; use it where the order is free}
 *
 * Usage:
 * \snippet test_warp_scan.cu warp_serial_sum_usage
 */
SK_DEVICE double sk_warp_serial_inclusive_sum_f64(unsigned mask, double x, double *carry) {
  return sk_detail_warp_serial_inclusive_sum(mask, x, carry);
}

/**
 * \brief sk_warp_serial_inclusive_sum_f64() for floats: the bits of `run += x[i]` in float
 * (`add.rn.f32`, never fused).
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param x this lane's value.
 * \param[in,out] carry the running sum before this call's values; on return the sum after all members'.
 * \return *carry plus the members' values up to this lane's, added one at a time from the lowest member.
 * \sk_warp_cost{popc(mask) dependent adds and popc(mask) shuffles}
 */
SK_DEVICE float sk_warp_serial_inclusive_sum_f32(unsigned mask, float x, float *carry) {
  return sk_detail_warp_serial_inclusive_sum(mask, x, carry);
}

/**
 * \brief N warp sums at once: each v[t] becomes sk_warp_sum_f64(mask, v[t]), bit for bit, on every member.
 *
 * For a lane holding N partial sums (the totals of N tiles of a vector, say) that the warp must add up.
 * With the full mask, log2(N) halving exchanges first: in the exchange over lane bit b (16, 8, ... in
 * turn) each lane keeps half of its values and sends the other half to the lane across bit b, so that
 * after them lane l holds one value, index l / (32 / N), summed over the lanes that share l's upper
 * bits; a butterfly over the remaining lane bits finishes it, and every value is gathered from a lane
 * that holds it. Each value is thus added over the same tree as sk_warp_sum_f64()'s butterfly (lane
 * bit 4 first, bit 0 last), which gives the same bits because IEEE addition is commutative. With any
 * other mask, N calls of sk_warp_sum_f64().
 * \tparam N values a lane holds: 1, 2, 4, 8, 16 or 32.
 * \param mask the calling lanes (\ref sk_warp_scan "mask contract").
 * \param[in,out] v this lane's N values; on return the N sums, the same on every member.
 * \sk_warp_cost{with the full mask N - 1 + 5 - log2(N) + N double shuffles (twice as many 32-bit ones)
 *   and N - 1 + 5 - log2(N) adds: 17 double shuffles for N = 8\, where 8 sums take 40; N sums otherwise}
 */
template <int N>
SK_DEVICE void sk_warp_sums_f64(unsigned mask, double (&v)[N]) {
  static_assert(N >= 1 && N <= SK_WARP_SIZE && (N & (N - 1)) == 0, "N must be a power of two from 1 to 32");
  if (mask != SK_FULL_MASK) {
#pragma unroll
    for (int t = 0; t < N; ++t) v[t] = sk_warp_sum_f64(mask, v[t]);
    return;
  }
  const int lane = sk_lane_id();
#pragma unroll
  for (int half = N / 2, bit = SK_WARP_SIZE / 2; half > 0; half >>= 1, bit >>= 1) {
    const bool high = (lane & bit) != 0; /* keeps the upper half of its values, sends the lower */
#pragma unroll
    for (int i = 0; i < half; ++i) {
      const double send = high ? v[i] : v[i + half], keep = high ? v[i + half] : v[i];
      v[i] = __dadd_rn(keep, __shfl_xor_sync(SK_FULL_MASK, send, bit));
    }
  }
  double total = v[0];
#pragma unroll
  for (int bit = SK_WARP_SIZE / N / 2; bit > 0; bit >>= 1)
    total = __dadd_rn(total, __shfl_xor_sync(SK_FULL_MASK, total, bit));
#pragma unroll
  for (int t = 0; t < N; ++t) v[t] = __shfl_sync(SK_FULL_MASK, total, t * (SK_WARP_SIZE / N));
}

/** @} */

#endif /* SAMPLEKIT_WARP_SCAN_CUH */
