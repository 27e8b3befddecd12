/**
 * \file warp_sample_prefix.cuh
 * \brief A warp finds where u falls in the running sums of a weight vector of any length (float, double, uint32_t).
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
 * **Double precision.** The `_f64` functions are the `_f32` ones on `double` weights, with every rule
 * above: the walk, the order of the additions (sk_warp_inclusive_sum_f64(), whose steps cost two
 * shuffles each) and the edge rules. Each addition is rounded on its own (never fused with a multiply
 * in weight_of into an FMA). sk_warp_sample_prefix_from_by_f64() starts the running sums at a given
 * value instead of 0: the second level of a two-level search, where the sums of the tiles below the
 * one being walked are already known.
 *
 * Usage:
 * \snippet test_warp_sample_prefix.cu warp_sample_prefix_usage
 * @{
 */

/** \cond SK_INTERNAL */
/* start: the running sums' starting value (carry_0), 0 except for the _from_ variants. */
template <typename T, typename WeightOf>
SK_DEVICE int sk_detail_warp_sample_prefix(unsigned mask, WeightOf weight_of, int n, T start, T u) {
  const int rank = __popc(mask & sk_lanemask_lt());
  const int members = __popc(mask);
  const int top_lane = 31 - __clz((int)mask);
  T carry = start;
  int last_positive = -1;
  T w = rank < n ? weight_of(rank) : T(0);
  for (int base = 0; base < n; base += members) {
    /* The next round's weight is read before this round's sums, so that its load's latency overlaps
       them (the walk is a chain of dependent rounds otherwise). */
    const int next = base + members + rank;
    const T w_next = next < n ? weight_of(next) : T(0);
    const T running = sk_detail_add(carry, sk_detail_warp_inclusive_sum(mask, w));
    /* w > 0 as well: neighbouring slots' sums are grouped differently, so in float a zero-weight
       entry can round above its predecessor; it must never be the answer. */
    const unsigned hit = __ballot_sync(mask, w > T(0) && running > u);
    if (hit != 0u) return base + sk_lane_rank(mask, __ffs((int)hit) - 1);
    const unsigned positive = __ballot_sync(mask, w > T(0));
    if (positive != 0u) last_positive = base + sk_lane_rank(mask, 31 - __clz((int)positive));
    carry = __shfl_sync(mask, running, top_lane);
    w = w_next;
  }
  return last_positive;
}

/* The walk of at most MaxRounds rounds (n <= MaxRounds * members), unrolled, each round's weights read in
   the round: the same additions, ballots and result as sk_detail_warp_sample_prefix(), bit for bit. For
   short vectors (a tile) the unrolled rounds let the compiler schedule the reads itself, where the
   general walk's read-ahead would compute a round of weights that a draw ending early never needs. */
template <typename T, int MaxRounds, typename WeightOf>
SK_DEVICE int sk_detail_warp_sample_prefix_bounded(unsigned mask, WeightOf weight_of, int n, T start, T u) {
  const int rank = __popc(mask & sk_lanemask_lt());
  const int members = __popc(mask);
  const int top_lane = 31 - __clz((int)mask);
  T carry = start;
  /* The last round with a positive weight and its ballot: the fallback's index is worked out once,
     after the walk, and only when it is needed. */
  unsigned last_positive_mask = 0u;
  int last_positive_base = 0;
#pragma unroll
  for (int r = 0; r < MaxRounds; ++r) {
    const int base = r * members;
    if (base >= n) break;
    const T w = base + rank < n ? weight_of(base + rank) : T(0);
    const T running = sk_detail_add(carry, sk_detail_warp_inclusive_sum(mask, w));
    const unsigned hit = __ballot_sync(mask, w > T(0) && running > u);
    if (hit != 0u) return base + sk_lane_rank(mask, __ffs((int)hit) - 1);
    const unsigned positive = __ballot_sync(mask, w > T(0));
    if (positive != 0u) {
      last_positive_mask = positive;
      last_positive_base = base;
    }
    carry = __shfl_sync(mask, running, top_lane);
  }
  return last_positive_mask != 0u
             ? last_positive_base + sk_lane_rank(mask, 31 - __clz((int)last_positive_mask))
             : -1;
}

template <typename T, typename WeightOf>
SK_DEVICE T sk_detail_warp_prefix_total(unsigned mask, WeightOf weight_of, int n) {
  const int rank = __popc(mask & sk_lanemask_lt());
  const int members = __popc(mask);
  T carry = T(0);
  T w = rank < n ? weight_of(rank) : T(0);
  for (int base = 0; base < n; base += members) {
    const int i = base + rank;
    const T w_next = i + members < n ? weight_of(i + members) : T(0);  /* overlaps this round's sums */
    const T running = sk_detail_add(carry, sk_detail_warp_inclusive_sum(mask, w));
    /* The lane holding entry min(n, base + members) - 1: the top lane except in a partial last round,
       where the top slot's sum is grouped differently and could differ from P_{n-1} in the last bit. */
    carry = __shfl_sync(mask, running, 31 - __clz((int)__ballot_sync(mask, i < n)));
    w = w_next;
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
  return sk_detail_warp_sample_prefix(mask, sk_detail_array_weights<float>{weights}, n, 0.0f, u);
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
  return sk_detail_warp_sample_prefix(mask, sk_detail_array_weights<uint32_t>{weights}, n, 0u, u);
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
  return sk_detail_warp_prefix_total<float>(mask, sk_detail_array_weights<float>{weights}, n);
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
  return sk_detail_warp_prefix_total<uint32_t>(mask, sk_detail_array_weights<uint32_t>{weights}, n);
}

/**
 * \brief sk_warp_sample_prefix_f32() on weights computed as they are read: weight_of(i) is entry i.
 *
 * For weights that are not an array in memory: a sparse row scaled by a table (SaberLDA's document
 * part, count_i * table[topic_i]), a product of two rows, a transform of stored values. The walk, the
 * order of the additions and every rule are those of sk_warp_sample_prefix_f32() on the array of the
 * values weight_of(0 .. n) returns, bit for bit. weight_of is called by the member of rank r for the
 * entries base + r of each round it reaches and of the round after it (read ahead, so that the load
 * overlaps the round's sums), never with i >= n, and must return the same value for the same i on
 * every call (non-negative and finite).
 * \tparam WeightOf a callable `float(int i)`, usable on the device (a functor or an extended lambda).
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index.
 * \param n number of weights, >= 0.
 * \param u the point to find, in [0, total) where total = sk_warp_prefix_total_by_f32(mask, weight_of, n).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{as sk_warp_sample_prefix_f32()\, with weight_of(i) in place of each load}
 */
template <typename WeightOf>
SK_DEVICE int sk_warp_sample_prefix_by_f32(unsigned mask, WeightOf weight_of, int n, float u) {
  return sk_detail_warp_sample_prefix<float>(mask, weight_of, n, 0.0f, u);
}

/**
 * \brief sk_warp_prefix_total_f32() on weights computed as they are read (see sk_warp_sample_prefix_by_f32()).
 * \tparam WeightOf a callable `float(int i)`, usable on the device.
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the last running sum P_{n-1}, bit for bit the value sk_warp_prefix_total_f32() gives on the
 *         array of the weights.
 * \sk_warp_cost{as sk_warp_prefix_total_f32()\, with weight_of(i) in place of each load}
 */
template <typename WeightOf>
SK_DEVICE float sk_warp_prefix_total_by_f32(unsigned mask, WeightOf weight_of, int n) {
  return sk_detail_warp_prefix_total<float>(mask, weight_of, n);
}

/**
 * \brief sk_warp_sample_prefix_f32() on doubles: the first entry whose running sum exceeds u.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n non-negative finite weights, readable by every member.
 * \param n number of weights, >= 0.
 * \param u the point to find, in [0, total) where total = sk_warp_prefix_total_f64(mask, weights, n).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{ceil((i + 1) / m) rounds for result i and m members\, each one coalesced load\, one
 *   warp inclusive sum of doubles (10 shuffles) and two ballots}
 */
SK_DEVICE int sk_warp_sample_prefix_f64(unsigned mask, const double *weights, int n, double u) {
  return sk_detail_warp_sample_prefix(mask, sk_detail_array_weights<double>{weights}, n, 0.0, u);
}

/**
 * \brief Total of double weights, summed in the order sk_warp_sample_prefix_f64() uses for its running sums.
 * \param mask the calling lanes; every member gets the same result.
 * \param weights n weights, readable by every member.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the last running sum P_{n-1}, bit for bit (0 when n == 0), so that u < total guarantees
 *         that sk_warp_sample_prefix_f64() finds an entry whose running sum exceeds u.
 * \sk_warp_cost{ceil(n / m) rounds\, each one coalesced load\, one warp inclusive sum of doubles\, one
 *   ballot and one double shuffle}
 */
SK_DEVICE double sk_warp_prefix_total_f64(unsigned mask, const double *weights, int n) {
  return sk_detail_warp_prefix_total<double>(mask, sk_detail_array_weights<double>{weights}, n);
}

/**
 * \brief sk_warp_sample_prefix_f64() on weights computed as they are read: weight_of(i) is entry i.
 *
 * The walk, the order of the additions, the calls of weight_of and every rule are those of
 * sk_warp_sample_prefix_by_f32(), on doubles.
 * \tparam WeightOf a callable `double(int i)`, usable on the device (a functor or an extended lambda).
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index: non-negative, finite, the same value for the same i on every call.
 * \param n number of weights, >= 0.
 * \param u the point to find, in [0, total) where total = sk_warp_prefix_total_by_f64(mask, weight_of, n).
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{as sk_warp_sample_prefix_f64()\, with weight_of(i) in place of each load}
 */
template <typename WeightOf>
SK_DEVICE int sk_warp_sample_prefix_by_f64(unsigned mask, WeightOf weight_of, int n, double u) {
  return sk_detail_warp_sample_prefix<double>(mask, weight_of, n, 0.0, u);
}

/**
 * \brief sk_warp_sample_prefix_by_f64() on a short vector, n <= MaxRounds popc(mask), with the running sums
 * starting at `start`: the walk of a tile whose predecessors' total is known.
 *
 * The running sum of entry i is P_i = carry_j + S_i as in the group's rules, with carry_0 = start
 * instead of 0 (so P_i = start + S_i in the first round, added in that order); the result is the
 * smallest i with w_i > 0 and P_i > u, else the last entry with a positive weight, else -1. With
 * start = +0.0 it is sk_warp_sample_prefix_by_f64(), bit for bit. For a two-level search: the totals of
 * the tiles of a long vector pick the tile, and this walks the tile with start = the sum of the tiles
 * below it. The rounds are unrolled (MaxRounds is a compile-time bound) and each round's weights are
 * read in that round, not one round ahead: weight_of is called for the entries of the rounds up to the
 * answer only.
 * \tparam MaxRounds the most rounds the vector takes (n <= MaxRounds popc(mask); entries past that bound
 *         are not read).
 * \tparam WeightOf a callable `double(int i)`, usable on the device (see sk_warp_sample_prefix_by_f64()).
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index.
 * \param n number of weights, 0 to MaxRounds popc(mask).
 * \param start the value the running sums start from (finite); the same on every member.
 * \param u the point to find.
 * \return an index in [0, n) whose weight is positive, or -1 when n == 0 or every weight is 0.
 * \sk_warp_cost{as sk_warp_sample_prefix_by_f64()\, with no weight read ahead}
 */
template <int MaxRounds, typename WeightOf>
SK_DEVICE int sk_warp_sample_prefix_from_by_f64(unsigned mask, WeightOf weight_of, int n, double start, double u) {
  return sk_detail_warp_sample_prefix_bounded<double, MaxRounds>(mask, weight_of, n, start, u);
}

/**
 * \brief sk_warp_prefix_total_f64() on weights computed as they are read (see sk_warp_sample_prefix_by_f64()).
 * \tparam WeightOf a callable `double(int i)`, usable on the device.
 * \param mask the calling lanes; every member gets the same result.
 * \param weight_of the weights, by index.
 * \param n number of weights, >= 0 (0 gives 0).
 * \return the last running sum P_{n-1}, bit for bit the value sk_warp_prefix_total_f64() gives on the
 *         array of the weights.
 * \sk_warp_cost{as sk_warp_prefix_total_f64()\, with weight_of(i) in place of each load}
 */
template <typename WeightOf>
SK_DEVICE double sk_warp_prefix_total_by_f64(unsigned mask, WeightOf weight_of, int n) {
  return sk_detail_warp_prefix_total<double>(mask, weight_of, n);
}

/**
 * \brief A weight vector's running sums held in the warp's registers, for many draws from it:
 * sk_warp_prefix_cache_build_by_f32() fills it, sk_warp_prefix_cache_sample_f32() draws.
 *
 * For vectors of at most R rounds (R m entries for m members). Each member keeps its entry's running
 * sum of every round and one bit per round saying whether its weight is positive; a draw is then one
 * ballot per round up to the answer, with no load and no warp sum. This is SaberLDA's case when the
 * tokens of one word in one document share their document's sparse row: the sums are built once and
 * every token draws from them.
 * \tparam R rounds the cache holds (a compile-time constant: the arrays live in registers).
 */
template <int R>
struct sk_warp_prefix_cache_f32 {
  float run[R];        /**< this member's running sum of each round (entry base_r + rank) */
  unsigned positive;   /**< bit r: this member's weight of round r is positive */
  int rounds;          /**< rounds used: ceil(n / m) */
  float total;         /**< P_{n-1}, the same on every member (0 when n == 0) */
};

/** \cond SK_INTERNAL */
/* The cache's rounds [0, M) of weights weight_of(r m + rank), those past n zero, and rounds [M, R) zero:
   M rounds of independent loads in straight-line code. */
template <int M, int R, typename WeightOf>
SK_DEVICE void sk_detail_prefix_cache_load(WeightOf weight_of, int n, int members, int rank, float (&run)[R]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int i = r * members + rank;
    run[r] = r < M && i < n ? weight_of(i) : 0.0f;
  }
}

/* sk_detail_prefix_cache_load() of the fewest rounds, from M up, that hold `rounds` (R when none). */
template <int M, int R, typename WeightOf>
SK_DEVICE void sk_detail_prefix_cache_load_used(WeightOf weight_of, int n, int rounds, int members, int rank,
                                                float (&run)[R]) {
  if (M >= R || rounds <= M)
    sk_detail_prefix_cache_load<(M < R ? M : R)>(weight_of, n, members, rank, run);
  else
    sk_detail_prefix_cache_load_used<(M < R ? M + 1 : R)>(weight_of, n, rounds, members, rank, run);
}
/** \endcond */

/**
 * \brief Builds the cache of weights weight_of(0 .. n), n <= R popc(mask): the running sums that
 * sk_warp_sample_prefix_by_f32() computes, in the same order, bit for bit.
 * \tparam R rounds the cache holds.
 * \tparam WeightOf a callable `float(int i)`, usable on the device (see sk_warp_sample_prefix_by_f32()).
 * \param mask the calling lanes; every member must call.
 * \param weight_of the weights, by index; called for i < n only.
 * \param n number of weights, 0 to R popc(mask) (more is not checked: the entries past R rounds are
 *        left out).
 * \param[out] cache this member's part of the cache; cache->total is sk_warp_prefix_total_by_f32()'s value.
 * \sk_warp_cost{ceil(n / m) rounds\, each one weight_of call\, one warp inclusive sum\, one ballot
 *   and one shuffle; only the rounds used issue loads}
 */
template <int R, typename WeightOf>
SK_DEVICE void sk_warp_prefix_cache_build_by_f32(unsigned mask, WeightOf weight_of, int n,
                                                  sk_warp_prefix_cache_f32<R> *cache) {
  const int rank = __popc(mask & sk_lanemask_lt());
  const int members = __popc(mask);
  float carry = 0.0f;
  cache->positive = 0u;
  cache->rounds = (n + members - 1) / members;
  /* Every round's weight first, then the sums: the loads are independent and overlap, where a load
     per round between the sums would make the build a chain of R load latencies. The loads are those
     of the rounds used, in straight-line code chosen by their number (a warp-uniform choice): a
     straight-line load of all R rounds issues every one, predicated off or not, and a loop that
     stopped at the last round used was 14% slower in sk-lda's draw on long documents
     (bench/RESULTS.md), most likely because each round's load and its use then share a block and
     the rounds' latencies add up. */
  sk_detail_prefix_cache_load_used<1>(weight_of, n, cache->rounds, members, rank, cache->run);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (r >= cache->rounds) break; /* the same on every member: the unused rounds cost no warp sum */
    const int i = r * members + rank;
    const float w = cache->run[r];
    const float running = carry + sk_detail_warp_inclusive_sum(mask, w);
    cache->run[r] = running;
    if (w > 0.0f) cache->positive |= 1u << r;
    /* as sk_detail_warp_prefix_total(): the carry from the lane of the round's last entry */
    carry = __shfl_sync(mask, running, 31 - __clz((int)__ballot_sync(mask, i < n)));
  }
  cache->total = carry;
}

/**
 * \brief Draws from a built cache: the result sk_warp_sample_prefix_by_f32() gives for the same
 * weights and u, bit for bit, with every rule of the group (u past the total gives the last entry with
 * a positive weight; no positive weight gives -1).
 * \tparam R rounds the cache holds.
 * \param mask the lanes that built the cache; every member gets the same result.
 * \param cache this member's part, from sk_warp_prefix_cache_build_by_f32().
 * \param u the point to find, the same on every member.
 * \return an index in [0, n) whose weight is positive, or -1 when every weight is 0 (or n == 0).
 * \sk_warp_cost{per round up to the answer one comparison and two ballots}
 */
template <int R>
SK_DEVICE int sk_warp_prefix_cache_sample_f32(unsigned mask, const sk_warp_prefix_cache_f32<R> &cache, float u) {
  const int members = __popc(mask);
  int last_positive = -1;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (r < cache.rounds) {
      const bool mine = (cache.positive >> r) & 1u;
      const unsigned hit = __ballot_sync(mask, mine && cache.run[r] > u);
      if (hit != 0u) return r * members + sk_lane_rank(mask, __ffs((int)hit) - 1);
      const unsigned positive = __ballot_sync(mask, mine);
      if (positive != 0u) last_positive = r * members + sk_lane_rank(mask, 31 - __clz((int)positive));
    }
  }
  return last_positive;
}

/** @} */

#endif /* SAMPLEKIT_WARP_SAMPLE_PREFIX_CUH */
