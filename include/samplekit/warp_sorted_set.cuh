/**
 * \file warp_sorted_set.cuh
 * \brief A warp's sorted set of int32 keys in memory it shares: rank, insert, erase, and the set built
 * from a bitmap or from the nonzero entries of a count array.
 */
#ifndef SAMPLEKIT_WARP_SORTED_SET_CUH
#define SAMPLEKIT_WARP_SORTED_SET_CUH

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "warp_lane.cuh"
#include "warp_scan.cuh"

/**
 * \defgroup sk_warp_sorted_set Warp sorted set
 * \brief A set of int32 keys kept as a strictly increasing array in shared or global memory, its size
 * in a register that is the same on every lane; the warp finds a key's rank, inserts and erases keys
 * with the others kept in order, and builds the set from a bitmap or from a count array.
 *
 * **Why sorted.** A sampler that keeps, per document, the topics whose count is nonzero sums terms over
 * them at every draw. A floating-point sum depends on the order of its additions; with the keys in
 * increasing order that order is fixed by the set alone, whatever sequence of inserts and erases made
 * it, so the sums are exact replays of a reference (a CPU loop over k = 0 .. K - 1 that skips the zero
 * counts adds in the same order) and the same bits on every run. An unordered list (a key appended, an
 * erased key replaced by the last) would be cheaper to update, but its sums would depend on the history.
 *
 * **Storage.** `keys` points to memory that every lane of the warp can read and write: shared memory, or
 * global memory the warp owns while it works on it (any generic address). The caller owns it and its
 * capacity: an insert writes entry n, so the array needs room for the largest size the set reaches. The
 * size n lives in a register; every call takes the size and returns the new one, the same on every lane.
 *
 * **Moves by whole rounds.** Insert and erase shift the entries above the key's rank by one place. A
 * round moves #SK_WARP_SORTED_SET_ROUND = 128 entries: each lane loads its
 * #SK_WARP_SORTED_SET_PER_LANE = 4 entries (lane + 32 q, q = 0 .. 3) into registers, the warp
 * synchronises (`__syncwarp()`), then each lane stores them one place up (insert, rounds from the top
 * down) or down (erase, from the rank up), and the warp synchronises again. A round reads all of its
 * entries before any is written, and writes only entries that it or the round before has read, so the
 * shift is exact in place, with no second buffer; a lane's four loads are independent and in flight
 * together. The rank is ceil(n / 32) independent loads a lane (unrolled by four) and one integer warp sum.
 *
 * **Built at once.** When many keys change together, rebuilding the set can cost less than one shift per
 * key: sk_warp_sorted_set_from_bitmap_i32() lists the set bits of a bitmap (one bit per possible key,
 * which the lanes can set and clear with atomics in any order), sk_warp_sorted_set_from_counts_i32() the
 * nonzero entries of a dense count array (one ballot per 32 counts), optionally writing those ballots as
 * the bitmap. Both cost a pass over the K possible keys (K / 32 words, or K counts), where a shift costs
 * the entries above the rank.
 *
 * **Measured** (H200, bench_warp_sorted_set, bench/RESULTS.md): against lane 0 doing a binary search and
 * shifting one entry at a time, rank is 1.83x faster at n = 32, 1.20x at 512, but 0.58x at 2,048 and
 * 0.30x at 8,192 (ceil(n / 32) loads a lane against log2 n dependent ones); insert + erase 1.54x at
 * n = 32, 6.65x at 512 and 7.80x at 2,048. For sets of thousands of keys that are searched far more
 * often than changed, a lane's binary search ranks faster. sk-lda's fold-in keeps a document's nonzero
 * topics, a few hundred.
 *
 * **Lanes.** These are full-warp functions, like the \ref sk_butterfly "butterfly" and
 * \ref sk_wary_tree "W-ary tree" ones: all 32 lanes call, converged, with the same `keys`, `n` and key
 * (there is no mask argument; the rounds are one entry per lane). Each lane passes its own lane id,
 * `lane` = sk_lane_id(), read once by the caller: the functions are called inside draw loops, where a
 * `%%laneid` read per call is not free (read inside, it added 16 such reads to sk-lda's held-out fold-in
 * kernels and changed the registers of two). Every lane gets the result.
 *
 * **Visibility.** A call reads the entries that any lane wrote before a `__syncwarp()` (or before a call
 * of this group that ends with one). Insert, erase and from_bitmap end with every lane's writes visible
 * to the warp; rank writes nothing; from_counts ends without a `__syncwarp()` (its callers usually have
 * one next): call one before any lane reads the keys or the bitmap it wrote. The other way round, insert
 * and erase pass a `__syncwarp()` before their first store, so the lanes' earlier reads of the array
 * (their own rank's, or the caller's) come first; from_bitmap and from_counts do not: the caller passes
 * one between its last read of `keys` and the rebuild.
 *
 * **Determinism.** The array after a sequence of calls is the sorted set of the keys, whatever the order
 * of the calls that made it; the functions use no atomics and no floating point.
 *
 * **Preconditions.** The keys are strictly increasing (any int32 values, INT32_MIN and INT32_MAX
 * included); 0 <= n and n + #SK_WARP_SORTED_SET_ROUND fits in an int32. Insert's key is absent and
 * erase's present (neither is checked). The rank's warp sum is sk_warp_sum_u32(): one `redux.sync`
 * from sm_80 on, a warp scan before.
 *
 * Usage (a warp keeps the distinct values of a stream, then sums their weights in key order):
 * \snippet test_warp_sorted_set.cu warp_sorted_set_usage
 * @{
 */

/** \brief The shape of an insert's or an erase's rounds. */
enum sk_warp_sorted_set_rounds {
  SK_WARP_SORTED_SET_PER_LANE = 4, /**< entries a lane moves in one round */
  SK_WARP_SORTED_SET_ROUND = SK_WARP_SIZE * SK_WARP_SORTED_SET_PER_LANE /**< entries one round moves: 128 */
};

/**
 * \brief The number of keys below `key`: its position in the set when present, where it would go when
 * absent.
 * \param keys the set, n strictly increasing keys; the same on every lane.
 * \param n the set's size, >= 0; the same on every lane.
 * \param key any int32; the same on every lane.
 * \param lane this lane's id, sk_lane_id().
 * \return 0 to n, the same on every lane.
 * \sk_warp_cost{ceil(n / 32) independent loads a lane (unrolled by 4) and one `redux.sync.add`}
 */
SK_DEVICE int32_t sk_warp_sorted_set_rank_i32(const int32_t *keys, int32_t n, int32_t key, int lane) {
  unsigned c = 0;
#pragma unroll 4
  for (int32_t j = lane; j < n; j += SK_WARP_SIZE) c += keys[j] < key;
  return (int32_t)sk_warp_sum_u32(SK_FULL_MASK, c);
}

/**
 * \brief Removes `key`, which is in the set, moving the keys above it down one place.
 * \param keys the set, n strictly increasing keys; the same on every lane.
 * \param n the set's size, >= 1; the same on every lane.
 * \param key a key of the set; the same on every lane.
 * \param lane this lane's id, sk_lane_id().
 * \return n - 1, the new size. The entries 0 .. n - 2 are the set; entry n - 1 is left as it was.
 *         Every lane's writes are visible to the warp on return.
 * \sk_warp_cost{the rank\, then ceil((n - 1 - rank) / 128) rounds\, each 4 loads and up to 4 stores a
 *   lane and two `__syncwarp()`}
 */
SK_DEVICE int32_t sk_warp_sorted_set_erase_i32(int32_t *keys, int32_t n, int32_t key, int lane) {
  const int32_t pos = sk_warp_sorted_set_rank_i32(keys, n, key, lane);
  /* A round reads its entries before any is written, and writes only entries it has read or the round
     below has read (group docs). */
  for (int32_t c = pos; c < n - 1; c += SK_WARP_SORTED_SET_ROUND) {
    int32_t v[SK_WARP_SORTED_SET_PER_LANE];
#pragma unroll
    for (int q = 0; q < SK_WARP_SORTED_SET_PER_LANE; ++q) {
      const int32_t j = c + lane + SK_WARP_SIZE * q;
      v[q] = j + 1 < n ? keys[j + 1] : 0;
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < SK_WARP_SORTED_SET_PER_LANE; ++q) {
      const int32_t j = c + lane + SK_WARP_SIZE * q;
      if (j + 1 < n) keys[j] = v[q];
    }
    __syncwarp();
  }
  return n - 1;
}

/**
 * \brief Adds `key`, which is not in the set, moving the keys above it up one place.
 * \param keys the set, n strictly increasing keys, with room for n + 1; the same on every lane.
 * \param n the set's size, >= 0; the same on every lane.
 * \param key an int32 not in the set; the same on every lane.
 * \param lane this lane's id, sk_lane_id(); lane 0 stores the key.
 * \return n + 1, the new size. Every lane's writes are visible to the warp on return.
 * \sk_warp_cost{the rank\, then ceil((n - rank) / 128) rounds\, each 4 loads and up to 4 stores a lane
 *   and two `__syncwarp()`\, then one store and one `__syncwarp()` (two when no round ran)}
 */
SK_DEVICE int32_t sk_warp_sorted_set_insert_i32(int32_t *keys, int32_t n, int32_t key, int lane) {
  const int32_t pos = sk_warp_sorted_set_rank_i32(keys, n, key, lane);
  /* The erase's rounds in reverse: from the top down. */
  for (int32_t e = n - 1; e >= pos; e -= SK_WARP_SORTED_SET_ROUND) {
    int32_t v[SK_WARP_SORTED_SET_PER_LANE];
#pragma unroll
    for (int q = 0; q < SK_WARP_SORTED_SET_PER_LANE; ++q) {
      const int32_t j = e - lane - SK_WARP_SIZE * q;
      v[q] = j >= pos ? keys[j] : 0;
    }
    __syncwarp();
#pragma unroll
    for (int q = 0; q < SK_WARP_SORTED_SET_PER_LANE; ++q) {
      const int32_t j = e - lane - SK_WARP_SIZE * q;
      if (j >= pos) keys[j + 1] = v[q];
    }
    __syncwarp();
  }
  /* With no round (the key goes last) nothing has ordered the lanes' reads of the array, this rank's or
     an earlier call's, before lane 0's store: racecheck reported that store against the rank's loads
     (an erase of the last key, which runs no round either, then this insert at the same place). */
  if (pos == n) __syncwarp();
  if (lane == 0) keys[pos] = key;
  __syncwarp();
  return n + 1;
}

/**
 * \brief The set of the bits set in a bitmap: key 32 w + b for bit b of word w, in increasing order.
 *
 * Lane l reads words l, l + 32, ...; a warp scan of the words' bit counts gives each lane where its
 * word's keys go, and the lane writes them, lowest bit first.
 * \param bits the bitmap, `words` words; the same on every lane. Bits past the last key must be 0.
 * \param words the number of words, 0 to 2^26; the same on every lane.
 * \param keys where the set goes: room for as many keys as bits are set; the same on every lane.
 * \param lane this lane's id, sk_lane_id().
 * \return n, the number of bits set (the set's size), the same on every lane. Every lane's writes are
 *         visible to the warp on return.
 * \sk_warp_cost{ceil(words / 32) rounds\, each one load a lane\, a `uint32_t` warp scan (5 shuffles)
 *   and one shuffle\, and one store per set bit by the word's lane\, one after another; then one
 *   `__syncwarp()`}
 */
SK_DEVICE int32_t sk_warp_sorted_set_from_bitmap_i32(const uint32_t *bits, int32_t words, int32_t *keys, int lane) {
  int32_t n = 0;
  for (int32_t w0 = 0; w0 < words; w0 += SK_WARP_SIZE) {
    const int32_t w = w0 + lane;
    uint32_t b = w < words ? bits[w] : 0u;
    const uint32_t c = (uint32_t)__popc(b), inc = sk_warp_inclusive_sum_u32(SK_FULL_MASK, c);
    int32_t at = n + (int32_t)(inc - c);
    for (; b != 0u; b &= b - 1u) keys[at++] = SK_WARP_SIZE * w + (__ffs((int)b) - 1);
    n += (int32_t)__shfl_sync(SK_FULL_MASK, inc, SK_WARP_SIZE - 1);
  }
  __syncwarp();
  return n;
}

/**
 * \brief The set of the indices k < K with `counts[k] != 0`, in increasing order, and optionally the
 * bitmap of those indices.
 *
 * A ballot of 32 counts at a time (lane l reads counts k0 + l): each nonzero count's lane writes its
 * index at n plus the number of nonzero lanes below it, and lane 0 writes the ballot, when `bitmap` is
 * not NULL, as word k0 / 32 of the bitmap (bit b for index k0 + b; the last word's bits past K are 0).
 * \param counts K counts (any int32; nonzero ones, negative included, are in the set); the same on every lane.
 * \param K the number of counts, 0 to 2^31 - 32; the same on every lane.
 * \param keys where the set goes: room for as many keys as counts are nonzero; the same on every lane.
 * \param bitmap NULL, or ceil(K / 32) words that receive the bitmap of the set; the same on every lane.
 * \param lane this lane's id, sk_lane_id(); lane 0 writes the bitmap.
 * \return n, the number of nonzero counts (the set's size), the same on every lane. The keys and the
 *         bitmap are written without a closing `__syncwarp()`: call one before another lane reads them.
 * \sk_warp_cost{ceil(K / 32) rounds\, each one load a lane\, one ballot\, one store per nonzero count
 *   and one store of lane 0 (with a bitmap)}
 */
SK_DEVICE int32_t sk_warp_sorted_set_from_counts_i32(const int32_t *counts, int32_t K, int32_t *keys, uint32_t *bitmap,
                                                     int lane) {
  int32_t n = 0;
  for (int32_t k0 = 0; k0 < K; k0 += SK_WARP_SIZE) {
    const int32_t k = k0 + lane;
    const bool nz = k < K && counts[k] != 0;
    const unsigned bal = __ballot_sync(SK_FULL_MASK, nz);
    if (nz) keys[n + __popc(bal & sk_lanemask_lt())] = k;
    if (bitmap != NULL && lane == 0) bitmap[k0 / SK_WARP_SIZE] = bal;
    n += __popc(bal);
  }
  return n;
}

/** @} */

#endif /* SAMPLEKIT_WARP_SORTED_SET_CUH */
