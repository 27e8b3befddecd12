/**
 * \file block_sum.cuh
 * \brief Block-wide sums of doubles in a fixed order: the same bits for every launch, on every GPU.
 */
#ifndef SAMPLEKIT_BLOCK_SUM_CUH
#define SAMPLEKIT_BLOCK_SUM_CUH

#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"
#include "warp_scan.cuh"

/**
 * \defgroup sk_block_sum Block sums
 * \brief The sum of one `double` per thread of a block, and of an array by one block, in a documented
 * order of additions, for reductions whose result must not depend on timing (a log-likelihood
 * compared across runs, a normaliser every thread must agree on).
 *
 * **Order of the additions.** The T = num_threads values t[0 .. T), t[i] from the thread of id i, are
 * added by a halving tree: with P the smallest power of two >= T, for s = P/2, P/4, ..., 1 in turn,
 * t[i] = t[i] + t[i + s] for every i < s with i + s < T (entries past T are absent, not zeros: no
 * addition of 0.0, so the sign of a zero sum is kept). The sum is t[0]. Every addition rounds to
 * nearest on its own (`__dadd_rn`), so the result depends only on the values and T, never on timing:
 * an atomic-free, bitwise reproducible reduction. A pairwise tree also keeps the rounding error of
 * long sums at O(log T) ulp rather than the O(T) of a sequential sum.
 *
 * **How.** The thread of id i writes t[i] to the caller's shared storage; after one barrier, lane l of
 * warp 0 adds its column t[l], t[l + 32], ... by the levels s >= 32 of the tree (the levels that pair
 * entries 32 apart or more stay within one column), and a warp butterfly (sk_warp_sum_f64() with the
 * full mask) does the levels s = 16 .. 1: at lane 0 a butterfly is the halving tree, and the same bits
 * because IEEE addition is commutative. One barrier instead of log2(T), and warp 0 alone after it.
 * With T <= 32 one warp does the whole tree with shuffles and no barrier.
 *
 * **A device-wide sum** in a fixed order takes two launches and no atomics: each block adds its part of
 * the terms (its own order) and sk_block_sum_f64() writes one partial sum per block; then one block
 * adds the partials with sk_block_sum_array_f64(). The result is the same for every launch as long as
 * the grid's shape (blocks and threads) is.
 *
 * **Preconditions.** Every thread of the block calls, converged at the call (each function contains
 * `__syncthreads()` when T > 32), with `thread` its linear id within the block (0 .. T - 1), each id
 * once, and `num_threads` = T the block's thread count (1 .. kMaxThreads), the same on every thread.
 * Before the storage is used again (another call), a `__syncthreads()`.
 *
 * Usage:
 * \snippet test_block_sum.cu block_sum_usage
 * @{
 */

/**
 * \brief Shared storage of the block sums for blocks of up to kMaxThreads threads (8 kMaxThreads bytes);
 * declare it `__shared__`, one per block.
 * \tparam kMaxThreads the largest block the storage serves, 1 to 1024.
 */
template <int kMaxThreads>
struct sk_block_sum_storage_f64 {
  double slot[kMaxThreads]; /**< t[i] of the thread of id i */
};

/** \cond SK_INTERNAL */
/* The smallest power of two >= n, for 1 <= n <= 1024. */
SK_DEVICE int sk_detail_pow2_ceil(int n) { return n <= 1 ? 1 : 1 << (32 - __clz(n - 1)); }

/* The halving tree of T = num_threads <= 32 values, one a lane of the block's only warp (a low run). */
SK_DEVICE double sk_detail_block_sum_one_warp(int thread, int num_threads, double x) {
  const unsigned mask = num_threads == SK_WARP_SIZE ? SK_FULL_MASK : (1u << num_threads) - 1u;
  for (int s = sk_detail_pow2_ceil(num_threads) / 2; s > 0; s >>= 1) {
    /* Lane i < s adds lane i + s when it is present; the other lanes' values are not read again. */
    const int partner = thread + s;
    const double y = __shfl_sync(mask, x, partner < num_threads ? partner : thread);
    if (thread < s && partner < num_threads) x = __dadd_rn(x, y);
  }
  return x;
}
/** \endcond */

/**
 * \brief Sum of one double per thread of the block, in the group's order; valid in thread 0.
 * \tparam kMaxThreads the storage's size, >= num_threads.
 * \param storage the block's shared storage (see the group for reuse).
 * \param thread the calling thread's linear id in the block, 0 .. num_threads - 1.
 * \param num_threads the block's thread count T, 1 .. kMaxThreads.
 * \param x this thread's value.
 * \return in thread 0 the sum t[0] + ... + t[T - 1] added by the halving tree, the same bits for every
 *         launch; in the other threads an unspecified value.
 * \par Cost
 * One shared-memory store a thread and one barrier, then in warp 0 ceil(T / 32) loads and adds a lane
 * and 10 shuffles; for T <= 32 only shuffles (2 log2(P)). 8 kMaxThreads bytes of shared memory.
 */
template <int kMaxThreads>
SK_DEVICE double sk_block_sum_f64(sk_block_sum_storage_f64<kMaxThreads> *storage, int thread, int num_threads,
                                  double x) {
  static_assert(kMaxThreads >= 1 && kMaxThreads <= 1024, "kMaxThreads must be 1 to 1024");
  if (num_threads <= SK_WARP_SIZE) return sk_detail_block_sum_one_warp(thread, num_threads, x);
  constexpr int kColumns = (kMaxThreads + SK_WARP_SIZE - 1) / SK_WARP_SIZE;
  constexpr int kColumnsPow2 = kColumns <= 1 ? 1 : kColumns <= 2 ? 2 : kColumns <= 4 ? 4 : kColumns <= 8 ? 8
                               : kColumns <= 16 ? 16 : 32;
  storage->slot[thread] = x;
  __syncthreads();
  if (thread >= SK_WARP_SIZE) return x;
  /* Warp 0 is whole (T > 32). Lane `thread` holds its column: entry thread + 32 j at v[j]. */
  const int columns = sk_detail_pow2_ceil(num_threads) / SK_WARP_SIZE; /* 2 .. 32 */
  double v[kColumnsPow2];
#pragma unroll
  for (int j = 0; j < kColumnsPow2; ++j) {
    const int i = thread + SK_WARP_SIZE * j;
    v[j] = j < columns && i < num_threads ? storage->slot[i] : 0.0; /* 0.0 is never added: see below */
  }
  /* Levels s = 32 c of the tree, c = columns / 2 .. 1: entry j + c of the column onto entry j, when
     present (only the first level can meet an absent entry). */
#pragma unroll
  for (int c = kColumnsPow2 / 2; c > 0; c >>= 1) {
    if (c < columns) {
#pragma unroll
      for (int j = 0; j < c; ++j)
        if (thread + SK_WARP_SIZE * (j + c) < num_threads) v[j] = __dadd_rn(v[j], v[j + c]);
    }
  }
  /* Every entry 0 .. 31 is present (T > 32): the levels 16 .. 1 are the full warp's butterfly. */
  return sk_warp_sum_f64(SK_FULL_MASK, v[0]);
}

/**
 * \brief sk_block_sum_f64(), with the sum returned to every thread of the block.
 * \tparam kMaxThreads the storage's size, >= num_threads.
 * \param storage the block's shared storage (see the group for reuse).
 * \param thread the calling thread's linear id in the block, 0 .. num_threads - 1.
 * \param num_threads the block's thread count T, 1 .. kMaxThreads.
 * \param x this thread's value.
 * \return the sum, the same bits in every thread (thread 0's value of sk_block_sum_f64()).
 * \par Cost
 * sk_block_sum_f64()'s, then one more barrier and one shared-memory load a thread (a shuffle for T <= 32).
 */
template <int kMaxThreads>
SK_DEVICE double sk_block_sum_to_all_f64(sk_block_sum_storage_f64<kMaxThreads> *storage, int thread,
                                         int num_threads, double x) {
  const double sum = sk_block_sum_f64(storage, thread, num_threads, x);
  if (num_threads <= SK_WARP_SIZE) {
    const unsigned mask = num_threads == SK_WARP_SIZE ? SK_FULL_MASK : (1u << num_threads) - 1u;
    return __shfl_sync(mask, sum, 0);
  }
  /* Slot 0 is read by thread 0 alone, before this write; the other threads wait at the barrier. */
  if (thread == 0) storage->slot[0] = sum;
  __syncthreads();
  return storage->slot[0];
}

/**
 * \brief Sum of values[0 .. n) by one block: thread i adds values[i], values[i + T], ... in that order
 * starting from +0.0, then sk_block_sum_f64() adds the threads' sums; valid in thread 0.
 *
 * The second launch of a device-wide sum (see the group): the partial sums of the first launch, added
 * in an order that depends only on n and T. Loads are coalesced (consecutive threads, consecutive values).
 * \tparam kMaxThreads the storage's size, >= num_threads.
 * \param storage the block's shared storage (see the group for reuse).
 * \param thread the calling thread's linear id in the block, 0 .. num_threads - 1.
 * \param num_threads the block's thread count T, 1 .. kMaxThreads.
 * \param values n doubles, readable by every thread.
 * \param n number of values, >= 0 (0 gives +0.0).
 * \return in thread 0 the sum; in the other threads an unspecified value.
 * \par Cost
 * ceil(n / T) loads and adds a thread, then sk_block_sum_f64()'s.
 */
template <int kMaxThreads>
SK_DEVICE double sk_block_sum_array_f64(sk_block_sum_storage_f64<kMaxThreads> *storage, int thread,
                                        int num_threads, const double *values, int64_t n) {
  double s = 0.0;
  for (int64_t i = thread; i < n; i += num_threads) s = __dadd_rn(s, values[i]);
  return sk_block_sum_f64(storage, thread, num_threads, s);
}

/** @} */

#endif /* SAMPLEKIT_BLOCK_SUM_CUH */
