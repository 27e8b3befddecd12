// One draw of sk-lda's held-out fold-in on the GPU (metrics_gpu_heldout.cu): the y terms of a word over
// a document's nonzero topics, their sums in a fixed order (tiles of 128, or samplekit's held block of
// doubles), and the search; the fold-in's parameters and a warp's scratch, which the draw reads.
//
// Why tiles of 4 entries a lane: a draw is a chain of dependent warp steps (one document a warp, and
// there are fewer documents than resident warps, so the chain's latency is the kernel's time). A
// round of one entry a lane cost a warp scan (5 dependent shuffle-and-add steps) per 32 terms, twice
// (the total, then the walk from the start, reading every term again). A tile of 128 entries costs one
// scan: each lane adds its 4 consecutive entries in order first (the dense kernel's shape). The walk
// then finds the tile from the tiles' running ends (in registers; past the 32nd in scratch) and walks
// only that tile, whose weights and scan it kept in registers when it is one of the first kKeep (else
// it reads them again). The word's row and length are read once per 32 tokens, and the s and q
// tables' binary searches run only for a draw that lands in them.
//
// Why the held block below 256 topics: a tile's bookkeeping (which tiles to keep, their copies in and
// out of registers, the tile ends) cost about as many instructions as its terms. A document's count of
// nonzero topics settles after a sweep or two (20news's longest test documents: about 200 of K = 1,024),
// so most draws fit one block of R <= 8 entries a lane: one read, one warp scan, one lane's walk
// (samplekit's sk_warp_blocked_hold_by_f64()/sk_warp_blocked_find_f64()). H200, 20news K = 1,024: the
// kernel's warp instructions fell from 1.62 to 0.87 billion and its time by 1.25x (bench/RESULTS.md).
// Prefetching the next tokens' rows of B was tried as well and made it slower (more instructions; the
// rows mostly hit L2).
//
// Every term, product and quotient is written with the _rn intrinsics in fold_in.c's order, so nvcc
// cannot fuse a multiply and an add (fold_in.c is C11 without -ffast-math: gcc does not contract
// either) and each one has the CPU's bits. The sums are where the two differ: the CPU adds
// sequentially, here each warp adds in the tiles' order (described at lane_sum() below), which is as
// deterministic and, for long sums, more accurate.
#ifndef SK_LDA_METRICS_GPU_FOLD_DRAW_CUH
#define SK_LDA_METRICS_GPU_FOLD_DRAW_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"  // sk_lda_detail_first_above()
#include "samplekit/warp_blocked_sample.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"

namespace sk_lda_gpu {
namespace fold {

// The r and q terms are added in tiles of kTile entries, kPerLane consecutive entries a lane (the dense
// kernel's shape); a draw keeps the weights of its first kKeep tiles in registers for its walk, and the
// running sums at the ends of its first 32 tiles in registers (lane t: tile t), later ones in scratch.
constexpr int kPerLane = 4;
constexpr int kTile = 32 * kPerLane;
constexpr int kKeep = 4;

struct fold_params {
  const int32_t *obs_tokens, *held_tokens;
  const int64_t *obs_offsets, *held_offsets;  // D + 1 each
  const int32_t *order;                       // the documents, longest first
  int32_t num_docs, num_topics, topic_cap;    // topic_cap: room for a document's nonzero topics
  int32_t tile_cap;                           // room for the tile ends past the first 32 (see warp_bytes)
  int32_t *z;                                 // the observed tokens' fold-in topics
  const double *inv, *s_cum;                  // K each: c_k, the s table (metrics_fold_tables())
  const int32_t *b;                           // V x K: the counts, read by the y terms
  double beta;
  const int64_t *word_start;                  // V + 1: B's nonzeros as CSR
  const int32_t *word_topic;
  const double *word_q_cum;                   // the words' q parts' running sums
  const double *alpha_k;                      // K per-topic priors, or NULL: alpha for every topic
  double alpha, kalpha;                       // kalpha: K alpha, or sum_k alpha_k
  uint64_t seed;
  int iters;        // the collapsed sweeps
  int first_sweep;  // the number of the first (its RNG stream): the uncollapsed sweeps come before
  int z_given;      // 1: z holds the topics the uncollapsed sweeps left (the collapsed sweeps start there)
  unsigned *next_doc;  // the next entry of order to take, less window_docs
  int32_t window_docs;  // the first entries of order, a block each (metrics_gpu_fold_windows.cuh)
  double *doc_ll;      // per document: the sum of its held-out tokens' log-likelihoods
  char *scratch;       // global scratch (warp_bytes a warp) when it does not fit in shared memory
  size_t warp_bytes;   // a warp's scratch: tile ends (tile_cap doubles), ndk (K counts), then topics
                       // (topic_cap), a multiple of 16
};

// A warp's scratch: the running sums at the ends of a draw's tiles 32, 33, ...; the document's counts
// and its nonzero topics, increasing (metrics.h's sk_lda_detail_fold_doc; nnz is kept in a register,
// the same on every lane).
struct fold_scratch {
  double *tile_end;
  int32_t *ndk, *topics;
};

// The y terms of a word (its row of B) over the document's nonzero topics (entries 0 .. n - 1, the
// counts as they are: the collapsed draw's token is already out of them), each with fold_in.c's
// operations and roundings: n_dk ((n_wk + beta) c_k).
struct y_terms {
  const fold_params *p;
  const int32_t *ndk, *topics;
  int32_t n;               // entries past n read 0
  const int32_t *row;      // the word's row of B
  __device__ __forceinline__ double operator()(int i) const {
    if (i >= n) return 0.0;
    const int32_t k = topics[i];
    return __dmul_rn((double)ndk[k], __dmul_rn(__dadd_rn((double)__ldg(row + k), p->beta), __ldg(p->inv + k)));
  }
  // Entries first .. first + kPerLane - 1.
  __device__ __forceinline__ void tile(int first, double (&w)[kPerLane]) const {
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) w[j] = (*this)(first + j);
  }
};

// The x terms of an uncollapsed draw (metrics.h): the document's theta shares X over its nonzero topics
// (entries 0 .. n - 1: x[i] for topics[i]) against the word's row of B, with fold_in.c's operations and
// roundings: X_k ((n_wk + beta) c_k).
struct x_terms {
  const fold_params *p;
  const double *x;
  const int32_t *topics;
  int32_t n;               // entries past n read 0
  const int32_t *row;      // the word's row of B
  __device__ __forceinline__ double operator()(int i) const {
    if (i >= n) return 0.0;
    const int32_t k = topics[i];
    return __dmul_rn(x[i], __dmul_rn(__dadd_rn((double)__ldg(row + k), p->beta), __ldg(p->inv + k)));
  }
  // Entries first .. first + kPerLane - 1.
  __device__ __forceinline__ void tile(int first, double (&w)[kPerLane]) const {
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) w[j] = (*this)(first + j);
  }
};

// What a draw searches past its document part: the table for every topic (s, or an uncollapsed sweep's r)
// and the words' tables over their nonzero topics (q, or the sweep's q'), each running sums in topic order.
struct draw_tables {
  const double *s_cum, *word_q_cum;
};

// The tiles' order of addition, the kernel's own (fixed; metrics_gpu.h): tile t holds entries
// kTile t .. kTile t + kTile - 1 (entries past the end are +0.0), lane L entries kTile t + kPerLane L
// + j, j = 0 .. kPerLane - 1. A lane adds its entries in order, ((w_0 + w_1) + w_2) + w_3 (l_L), the
// warp adds the l_L by sk_warp_inclusive_sum_f64() (I_L), the tile's total is I_31, and the tiles'
// totals are added in order from 0.0: E_t, the running sum at the end of tile t. Inside tile t, entry
// j of lane L has the running sum ((E_{t-1} + I_{L-1}) + w_0) + ... + w_j (E_{-1} = I_{-1} = 0.0).
__device__ __forceinline__ double lane_sum(const double (&w)[kPerLane]) {
  double l = w[0];
#pragma unroll
  for (int j = 1; j < kPerLane; ++j) l = __dadd_rn(l, w[j]);
  return l;
}

// The total of n entries of t in the tiles' order: a score's Y. Every lane calls.
template <class Terms>
__device__ __forceinline__ double tiles_total(const Terms &t, int n, int lane) {
  double carry = 0.0;
  double w[kPerLane];
  t.tile(kPerLane * lane, w);
  for (int base = 0; base < n; base += kTile) {
    double next[kPerLane];  // read ahead, so that its loads overlap this tile's sums
    t.tile(base + kTile + kPerLane * lane, next);
    const double inc = sk_warp_inclusive_sum_f64(SK_FULL_MASK, lane_sum(w));
    carry = __dadd_rn(carry, __shfl_sync(SK_FULL_MASK, inc, 31));
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) w[j] = next[j];
  }
  return carry;
}

// One draw of metrics.h's sparse rule for a word of row `row` with nonzeros at w0 (m of them, Q their q
// total): W = (S + Q) + Y, Y the y terms' total in the tiles' order; a draw below S is the host's binary
// search on the s table, one in q the host's binary search on the word's q table (the same tables, the
// same bits).
// Above, y = x1 - Q_w picks the first tile whose end E_t exceeds y (the last tile when none does), then
// the first entry of that tile with a positive weight whose running sum exceeds y; when none does
// (rounding), the tile's last entry with a positive weight, else the last y entry; with no y part the
// last q entry, else K - 1. The sums are the tiles' order, not the host's sequential one (metrics_gpu.h:
// a draw can differ only within rounding of a boundary).
// Terms: y_terms (a collapsed draw) or x_terms (an uncollapsed one); topics the document's, tile_end the
// warp's scratch for tiles past the 32nd, tb the tables searched past the document part.
template <class Terms>
__device__ __forceinline__ int32_t fold_draw_tiles(const fold_params &p, const Terms &t, const int32_t *topics,
                                                   double *tile_end, draw_tables tb, int32_t nnz, int64_t w0,
                                                   int32_t m, double S, double Q, double u, int lane) {
  const int32_t K = p.num_topics;
  const int n = nnz;
  const int tiles = (n + kTile - 1) / kTile;
  // The total: each tile's weights and warp sum, its end E_t; the first kKeep tiles' weights and lane
  // sums stay in registers, E_t in lane t's register for t < 32, in tile_end past that.
  double keep_w[kKeep][kPerLane], keep_inc[kKeep];
#pragma unroll
  for (int r = 0; r < kKeep; ++r) {
    keep_inc[r] = 0.0;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) keep_w[r][j] = 0.0;
  }
  double my_end = 0.0, carry = 0.0;
  double w[kPerLane];
  t.tile(kPerLane * lane, w);
  for (int tt = 0; tt < tiles; ++tt) {
    double next[kPerLane];  // read ahead, so that its loads overlap this tile's sums
    t.tile((tt + 1) * kTile + kPerLane * lane, next);
    const double inc = sk_warp_inclusive_sum_f64(SK_FULL_MASK, lane_sum(w));
    carry = __dadd_rn(carry, __shfl_sync(SK_FULL_MASK, inc, 31));
    if (tt == lane) my_end = carry;
    if (tt >= 32 && lane == 0) tile_end[tt - 32] = carry;
#pragma unroll
    for (int r = 0; r < kKeep; ++r)
      if (tt == r) {
        keep_inc[r] = inc;
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) keep_w[r][j] = w[j];
      }
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) w[j] = next[j];
  }
  if (tiles > 32) __syncwarp();  // lane 0's tile ends are visible to the search
  const double x = __dmul_rn(u, __dadd_rn(__dadd_rn(S, Q), carry));
  // The s and q parts: sk_lda_detail_fold_search_sq()'s steps (model.h), written out (see there).
  if (x < S) return sk_lda_detail_first_above(tb.s_cum, K, x);
  const double x1 = __dsub_rn(x, S);
  if (x1 < Q) return p.word_topic[w0 + sk_lda_detail_first_above(tb.word_q_cum + w0, m, x1)];
  if (tiles == 0) return m > 0 ? p.word_topic[w0 + m - 1] : K - 1;
  const double y = __dsub_rn(x1, Q);
  // The tile: the first whose end exceeds y.
  int tile = -1;
  {
    const unsigned hit = __ballot_sync(SK_FULL_MASK, lane < tiles && my_end > y);
    if (hit != 0u) tile = __ffs((int)hit) - 1;
    for (int c = 32; tile < 0 && c < tiles; c += 32) {
      const unsigned h = __ballot_sync(SK_FULL_MASK, c + lane < tiles && tile_end[c + lane - 32] > y);
      if (h != 0u) tile = c + __ffs((int)h) - 1;
    }
    if (tile < 0) tile = tiles - 1;
  }
  const double before_lo = __shfl_sync(SK_FULL_MASK, my_end, (tile - 1) & 31);
  const double before = tile == 0 ? 0.0 : tile <= 32 ? before_lo : tile_end[tile - 33];
  // The tile's weights and warp sums: kept, or read again.
  double inc = 0.0;
  if (tile < kKeep) {
#pragma unroll
    for (int r = 0; r < kKeep; ++r)
      if (tile == r) {
        inc = keep_inc[r];
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) w[j] = keep_w[r][j];
      }
  } else {
    t.tile(tile * kTile + kPerLane * lane, w);
    inc = sk_warp_inclusive_sum_f64(SK_FULL_MASK, lane_sum(w));
  }
  const double below = __shfl_up_sync(SK_FULL_MASK, inc, 1);
  double run = __dadd_rn(before, lane == 0 ? 0.0 : below);
  int hit_j = -1, last_j = -1;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    run = __dadd_rn(run, w[j]);
    if (w[j] > 0.0) {
      if (hit_j < 0 && run > y) hit_j = j;
      last_j = j;
    }
  }
  int i = n - 1;
  const unsigned hit = __ballot_sync(SK_FULL_MASK, hit_j >= 0);
  if (hit != 0u) {
    const int L = __ffs((int)hit) - 1;
    i = tile * kTile + kPerLane * L + __shfl_sync(SK_FULL_MASK, hit_j, L);
  } else {
    const unsigned pos = __ballot_sync(SK_FULL_MASK, last_j >= 0);
    if (pos != 0u) {
      const int L = 31 - __clz((int)pos);
      i = tile * kTile + kPerLane * L + __shfl_sync(SK_FULL_MASK, last_j, L);
    }
  }
  return topics[i];
}

// The same draw for a document of at most 32 R nonzero topics: samplekit's one-block blocked draw on
// doubles (warp_blocked_sample.cuh), the y terms R consecutive entries a lane in registers, one warp
// scan, no second read. Its order: each lane adds its R entries in order, the warp scan of those sums
// gives the total Y and each lane's end; past the s and q parts, y = x1 - Q_w goes to the first lane
// whose end exceeds y (and whose sum is positive), which walks its entries from (end - its sum); when
// none does (rounding) the last positive entry.
template <int R, class Terms>
__device__ __forceinline__ int32_t fold_draw_held(const fold_params &p, const Terms &t, const int32_t *topics,
                                                  draw_tables tb, int32_t nnz, int64_t w0, int32_t m, double S,
                                                  double Q, double u) {
  const int32_t K = p.num_topics;
  sk_warp_blocked_hold_f64<R> hold;
  const double Y = sk_warp_blocked_hold_by_f64<R>(SK_FULL_MASK, t, nnz, &hold);
  const double x = __dmul_rn(u, __dadd_rn(__dadd_rn(S, Q), Y));
  // The s and q parts: sk_lda_detail_fold_search_sq()'s steps (model.h), written out (see there).
  if (x < S) return sk_lda_detail_first_above(tb.s_cum, K, x);
  const double x1 = __dsub_rn(x, S);
  if (x1 < Q) return p.word_topic[w0 + sk_lda_detail_first_above(tb.word_q_cum + w0, m, x1)];
  if (nnz == 0) return m > 0 ? p.word_topic[w0 + m - 1] : K - 1;
  const int i = sk_warp_blocked_find_f64<R>(SK_FULL_MASK, hold, __dsub_rn(x1, Q));
  return topics[i >= 0 ? i : nnz - 1];
}

// A draw: with kHeld, the held block for documents of up to kHeldMax nonzero topics (the usual case once
// a fold-in has run a sweep or two: 20news's longest test documents hold about 200 at K = 1,024), the
// tiles above; without, the tiles always. kHeld is fold_held(), a function of K and the longest observed
// half alone, so that the draws do not depend on the GPU.
constexpr int kHeldMax = 32 * 8;
template <bool kHeld, class Terms>
__device__ __forceinline__ int32_t fold_draw_terms(const fold_params &p, const Terms &t, const int32_t *topics,
                                                   double *tile_end, draw_tables tb, int32_t nnz, int64_t w0,
                                                   int32_t m, double S, double Q, double u, int lane) {
  if (!kHeld) return fold_draw_tiles(p, t, topics, tile_end, tb, nnz, w0, m, S, Q, u, lane);
  if (nnz <= 32) return fold_draw_held<1>(p, t, topics, tb, nnz, w0, m, S, Q, u);
  if (nnz <= 64) return fold_draw_held<2>(p, t, topics, tb, nnz, w0, m, S, Q, u);
  if (nnz <= 128) return fold_draw_held<4>(p, t, topics, tb, nnz, w0, m, S, Q, u);
  if (nnz <= kHeldMax) return fold_draw_held<8>(p, t, topics, tb, nnz, w0, m, S, Q, u);
  return fold_draw_tiles(p, t, topics, tile_end, tb, nnz, w0, m, S, Q, u, lane);
}

// A collapsed draw: the y terms of the counts in s, the s and q tables.
template <bool kHeld>
__device__ __forceinline__ int32_t fold_draw(const fold_params &p, const fold_scratch &s, int32_t nnz,
                                             const int32_t *row, int64_t w0, int32_t m, double S, double Q,
                                             double u, int lane) {
  const y_terms t{&p, s.ndk, s.topics, nnz, row};
  return fold_draw_terms<kHeld>(p, t, s.topics, s.tile_end, draw_tables{p.s_cum, p.word_q_cum}, nnz, w0, m, S, Q,
                                u, lane);
}

}  // namespace fold
}  // namespace sk_lda_gpu

#endif  // SK_LDA_METRICS_GPU_FOLD_DRAW_CUH
