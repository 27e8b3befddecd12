// sk-lda's held-out log-likelihood on the GPU (sk_lda_gpu_metrics_heldout_ll() of metrics_gpu.h): the
// fold-in of the test documents' observed halves and the score of their held-out halves by metrics.h's
// sparse rule, from the sampler's device counts and the tables of metrics_gpu_tables.cu, and its entry
// point.
//
// Why sparse: the dense rule cost K terms a draw and a scored token (8 s a sweep at K = 65,536 on the
// NYTimes-scale corpus, 20x the sampler's sweep, issue 32). With phi fixed, the split into s (one table
// a call), q (one table a word a call, searched only when a draw lands in it) and y (the document's
// nonzero topics against the word's row of B) is exact and costs the document's nonzeros only; the
// word's nonzeros (nearly K for a frequent word) are not walked. A document's nonzero topics are a
// sorted list in the warp's scratch: a topic's place is a count of the topics below it (independent
// loads, one integer warp sum), and the tail moves by whole rounds of 128 when a topic appears or goes.
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
#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu.h"
#include "gpu/metrics_gpu_internal.cuh"
#include "gpu/warp_topic_list.cuh"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_blocked_sample.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_vote.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

// Held-out fold-in: one warp per document, persistent.
constexpr int kFoldWarps = 8;                        // warps per block, at most
constexpr size_t kFoldSharedMax = 48u << 10;         // per warp: larger scratch goes to global memory
constexpr size_t kFoldGlobalMax = (size_t)256 << 20; // all warps' global scratch together, at most
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
  int iters;
  unsigned *next_doc;  // the next entry of order to take
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
__device__ __forceinline__ double tiles_total(const y_terms &t, int n, int lane) {
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
__device__ __forceinline__ int32_t fold_draw_tiles(const fold_params &p, const fold_scratch &s, int32_t nnz,
                                                   const int32_t *row, int64_t w0, int32_t m, double S, double Q,
                                                   double u, int lane) {
  const int32_t K = p.num_topics;
  const int n = nnz;
  const y_terms t{&p, s.ndk, s.topics, n, row};
  const int tiles = (n + kTile - 1) / kTile;
  // The total: each tile's weights and warp sum, its end E_t; the first kKeep tiles' weights and lane
  // sums stay in registers, E_t in lane t's register for t < 32, in s.tile_end past that.
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
    if (tt >= 32 && lane == 0) s.tile_end[tt - 32] = carry;
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
  if (x < S) return sk_lda_detail_first_above(p.s_cum, K, x);
  const double x1 = __dsub_rn(x, S);
  if (x1 < Q) return p.word_topic[w0 + sk_lda_detail_first_above(p.word_q_cum + w0, m, x1)];
  if (tiles == 0) return m > 0 ? p.word_topic[w0 + m - 1] : K - 1;
  const double y = __dsub_rn(x1, Q);
  // The tile: the first whose end exceeds y.
  int tile = -1;
  {
    const unsigned hit = __ballot_sync(SK_FULL_MASK, lane < tiles && my_end > y);
    if (hit != 0u) tile = __ffs((int)hit) - 1;
    for (int c = 32; tile < 0 && c < tiles; c += 32) {
      const unsigned h = __ballot_sync(SK_FULL_MASK, c + lane < tiles && s.tile_end[c + lane - 32] > y);
      if (h != 0u) tile = c + __ffs((int)h) - 1;
    }
    if (tile < 0) tile = tiles - 1;
  }
  const double before_lo = __shfl_sync(SK_FULL_MASK, my_end, (tile - 1) & 31);
  const double before = tile == 0 ? 0.0 : tile <= 32 ? before_lo : s.tile_end[tile - 33];
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
  return s.topics[i];
}

// The same draw for a document of at most 32 R nonzero topics: samplekit's one-block blocked draw on
// doubles (warp_blocked_sample.cuh), the y terms R consecutive entries a lane in registers, one warp
// scan, no second read. Its order: each lane adds its R entries in order, the warp scan of those sums
// gives the total Y and each lane's end; past the s and q parts, y = x1 - Q_w goes to the first lane
// whose end exceeds y (and whose sum is positive), which walks its entries from (end - its sum); when
// none does (rounding) the last positive entry.
template <int R>
__device__ __forceinline__ int32_t fold_draw_held(const fold_params &p, const fold_scratch &s, int32_t nnz,
                                                  const int32_t *row, int64_t w0, int32_t m, double S, double Q,
                                                  double u) {
  const int32_t K = p.num_topics;
  const y_terms t{&p, s.ndk, s.topics, nnz, row};
  sk_warp_blocked_hold_f64<R> hold;
  const double Y = sk_warp_blocked_hold_by_f64<R>(SK_FULL_MASK, t, nnz, &hold);
  const double x = __dmul_rn(u, __dadd_rn(__dadd_rn(S, Q), Y));
  if (x < S) return sk_lda_detail_first_above(p.s_cum, K, x);
  const double x1 = __dsub_rn(x, S);
  if (x1 < Q) return p.word_topic[w0 + sk_lda_detail_first_above(p.word_q_cum + w0, m, x1)];
  if (nnz == 0) return m > 0 ? p.word_topic[w0 + m - 1] : K - 1;
  const int i = sk_warp_blocked_find_f64<R>(SK_FULL_MASK, hold, __dsub_rn(x1, Q));
  return s.topics[i >= 0 ? i : nnz - 1];
}

// A draw: with kHeld, the held block for documents of up to kHeldMax nonzero topics (the usual case once
// a fold-in has run a sweep or two: 20news's longest test documents hold about 200 at K = 1,024), the
// tiles above; without, the tiles always. kHeld is fold_held(), a function of K and the longest observed
// half alone, so that the draws do not depend on the GPU.
constexpr int kHeldMax = 32 * 8;
template <bool kHeld>
__device__ __forceinline__ int32_t fold_draw(const fold_params &p, const fold_scratch &s, int32_t nnz,
                                             const int32_t *row, int64_t w0, int32_t m, double S, double Q,
                                             double u, int lane) {
  if (!kHeld) return fold_draw_tiles(p, s, nnz, row, w0, m, S, Q, u, lane);
  if (nnz <= 32) return fold_draw_held<1>(p, s, nnz, row, w0, m, S, Q, u);
  if (nnz <= 64) return fold_draw_held<2>(p, s, nnz, row, w0, m, S, Q, u);
  if (nnz <= 128) return fold_draw_held<4>(p, s, nnz, row, w0, m, S, Q, u);
  if (nnz <= kHeldMax) return fold_draw_held<8>(p, s, nnz, row, w0, m, S, Q, u);
  return fold_draw_tiles(p, s, nnz, row, w0, m, S, Q, u, lane);
}

// sk_lda_detail_uniform_index(): floor(u n) clamped to n - 1.
__device__ __forceinline__ int32_t uniform_index(double u, int32_t n) {
  const int64_t i = (int64_t)__dmul_rn(u, (double)n);
  return (int32_t)(i >= n ? n - 1 : i);
}

// The fold-in of one document's observed half, tokens [first, first + n): sk_lda_detail_fold_in_doc()
// with the counts and nonzero topics in the warp's scratch (ndk all zero on entry). Returns nnz.
template <bool kHeld>
__device__ __forceinline__ int32_t fold_in(const fold_params &p, const fold_scratch &s, int64_t first, int64_t n,
                                           int lane) {
  const int32_t K = p.num_topics;
  for (int64_t i = lane; i < n; i += 32) {
    const int32_t k =
        uniform_index(sk_rng_uniform_f64(p.seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first + i)), K);
    p.z[first + i] = k;
    atomicAdd(&s.ndk[k], 1);
  }
  __syncwarp();
  // The nonzero topics, increasing: a ballot-compacted pass over ndk (K / 32 rounds a document, what
  // clearing the dense counts cost before).
  int32_t nnz = 0;
  for (int32_t k0 = 0; k0 < K; k0 += 32) {
    const int32_t k = k0 + lane;
    const bool nz = k < K && s.ndk[k] != 0;
    const unsigned bal = __ballot_sync(SK_FULL_MASK, nz);
    if (nz) s.topics[nnz + __popc(bal & sk_lanemask_lt())] = k;
    nnz += __popc(bal);
  }
  __syncwarp();
  const double S = p.s_cum[K - 1];
  for (int it = 0; it < p.iters; ++it) {
    const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)it);
    for (int64_t i0 = 0; i0 < n; i0 += 32) {
      // The next 32 tokens' uniforms, words' nonzeros and topics, a token a lane, handed out by
      // shuffles: a token's topic changes only at its own draw, so reading it ahead is exact.
      const bool mine = i0 + lane < n;
      const double u_lane = mine ? sk_rng_uniform_f64(p.seed, stream, (uint64_t)(first + i0 + lane)) : 0.0;
      const int32_t w_lane = mine ? p.obs_tokens[first + i0 + lane] : 0;
      const int32_t z_lane = mine ? p.z[first + i0 + lane] : 0;
      const long long w0_lane = mine ? (long long)p.word_start[w_lane] : 0;
      const int32_t m_lane = mine ? (int32_t)(p.word_start[w_lane + 1] - w0_lane) : 0;
      const double q_lane = m_lane > 0 ? p.word_q_cum[w0_lane + m_lane - 1] : 0.0;  // Q_w, off the draw's chain
      const int32_t mcount = (int32_t)(n - i0 < 32 ? n - i0 : 32);
      for (int32_t j = 0; j < mcount; ++j) {
        const double u = sk_warp_broadcast_f64(SK_FULL_MASK, u_lane, j);
        const int32_t old = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)z_lane, j);
        const int64_t w0 = (int64_t)__shfl_sync(SK_FULL_MASK, w0_lane, j);
        const int32_t m = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)m_lane, j);
        const int32_t w = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)w_lane, j);
        const double Q = sk_warp_broadcast_f64(SK_FULL_MASK, q_lane, j);
        const int32_t left = s.ndk[old] - 1;  // every lane reads it; lane 0 writes it after
        __syncwarp();
        if (lane == 0) s.ndk[old] = left;
        __syncwarp();
        if (left == 0) nnz = sk_lda_warp_topics_remove(s.topics, nnz, old, lane);
        const int32_t k = fold_draw<kHeld>(p, s, nnz, p.b + (int64_t)w * p.num_topics, w0, m, S, Q, u, lane);
        const int32_t before = s.ndk[k];
        __syncwarp();  // every lane has read ndk before lane 0 changes it
        if (lane == 0) {
          p.z[first + i0 + j] = k;
          s.ndk[k] = before + 1;
        }
        __syncwarp();
        if (before == 0) nnz = sk_lda_warp_topics_insert(s.topics, nnz, k, lane);
      }
    }
  }
  return nnz;
}

// Document d: the fold-in of its observed half, then the score of its held-out half
// (metrics.h: p(w | d) = ((S + Q_w) + Y_dw) / (n_d + A), Y a total in the tiles' order) into doc_ll[d];
// leaves ndk all zero. Every lane of the warp calls.
template <bool kHeld>
__device__ __forceinline__ void fold_in_and_score(const fold_params &p, const fold_scratch &s, int32_t d, int lane) {
  const int64_t first = p.obs_offsets[d], n = p.obs_offsets[d + 1] - first;
  const int32_t nnz = fold_in<kHeld>(p, s, first, n, lane);
  const double S = p.s_cum[p.num_topics - 1];
  const double norm = __ddiv_rn(1.0, __dadd_rn((double)n, p.kalpha));
  double ll = 0.0;
  for (int64_t t = p.held_offsets[d]; t < p.held_offsets[d + 1]; ++t) {
    const int32_t w = p.held_tokens[t];
    const int64_t w0 = p.word_start[w], w1 = p.word_start[w + 1];
    const double Q = w1 > w0 ? p.word_q_cum[w1 - 1] : 0.0;
    const y_terms y{&p, s.ndk, s.topics, nnz, p.b + (int64_t)w * p.num_topics};
    ll = __dadd_rn(ll, log(__dmul_rn(__dadd_rn(__dadd_rn(S, Q), tiles_total(y, nnz, lane)), norm)));
  }
  if (lane == 0) p.doc_ll[d] = ll;
  __syncwarp();  // every lane is done with the counts before they are cleared
  for (int32_t j = lane; j < nnz; j += 32) s.ndk[s.topics[j]] = 0;
  __syncwarp();
}

// A persistent grid: each warp clears its counts once, then takes the next document of `order` (an
// integer atomic counter) until none is left. kShared: the warps' scratch is in dynamic shared memory,
// else in p.scratch.
template <bool kShared, bool kHeld>
__global__ void __launch_bounds__(kFoldWarps * 32) heldout_kernel(fold_params p) {
  extern __shared__ double fold_shared[];
  const int lane = sk_lane_id();
  const int warp = (int)(threadIdx.x / 32);
  char *base = kShared ? (char *)fold_shared + (size_t)warp * p.warp_bytes
                       : p.scratch + ((size_t)blockIdx.x * (blockDim.x / 32) + (size_t)warp) * p.warp_bytes;
  fold_scratch s;
  s.tile_end = (double *)base;
  s.ndk = (int32_t *)(s.tile_end + p.tile_cap);
  s.topics = s.ndk + p.num_topics;
  for (int32_t k = lane; k < p.num_topics; k += 32) s.ndk[k] = 0;
  __syncwarp();
  for (;;) {
    unsigned next = 0;
    if (lane == 0) next = atomicAdd(p.next_doc, 1u);
    next = sk_warp_broadcast_u32(SK_FULL_MASK, next, 0);
    if (next >= (unsigned)p.num_docs) return;
    fold_in_and_score<kHeld>(p, s, p.order[next], lane);
  }
}

// --- host helpers -----------------------------------------------------------------------------------------

// The fold-in's parameters for the counts c, the halves and tables in g, and fold_in_iters sweeps; the
// global scratch is fold_launch()'s to place.
fold_params fold_params_of(const sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, int fold_in_iters) {
  const int32_t K = c->num_topics;
  fold_params p;
  memset(&p, 0, sizeof p);
  p.obs_tokens = (const int32_t *)g->obs_tokens.ptr;
  p.held_tokens = (const int32_t *)g->held_tokens.ptr;
  p.obs_offsets = (const int64_t *)g->obs_offsets.ptr;
  p.held_offsets = (const int64_t *)g->held_offsets.ptr;
  p.order = (const int32_t *)g->order.ptr;
  p.num_docs = g->test_docs;
  p.num_topics = K;
  p.topic_cap = (int32_t)(g->max_obs_len < K ? (g->max_obs_len > 0 ? g->max_obs_len : 1) : K);
  p.z = (int32_t *)g->z.ptr;
  p.inv = (const double *)g->inv.ptr;
  p.b = c->b;
  p.beta = c->beta;
  p.s_cum = (const double *)g->s_cum.ptr;
  p.word_start = (const int64_t *)g->word_start.ptr;
  p.word_topic = (const int32_t *)g->word_topic.ptr;
  p.word_q_cum = (const double *)g->word_q_cum.ptr;
  p.alpha = c->alpha;
  p.alpha_k = c->alpha_k;
  p.kalpha = c->alpha_k != NULL ? c->alpha_sum : (double)K * c->alpha;
  p.seed = c->seed;
  p.iters = fold_in_iters;
  p.next_doc = (unsigned *)g->next_doc.ptr;
  p.doc_ll = (double *)g->doc_ll.ptr;
  // A draw's tiles: ceil(nnz / kTile) with nnz <= topic_cap; the first 32 tiles' ends are in registers.
  const int64_t tiles = ((int64_t)p.topic_cap + kTile - 1) / kTile;
  p.tile_cap = (int32_t)(tiles > 32 ? tiles - 32 : 0);
  p.warp_bytes = ((size_t)p.tile_cap * sizeof(double) + ((size_t)K + (size_t)p.topic_cap) * sizeof(int32_t) + 15) /
                 16 * 16;
  return p;
}

// Whether the draws take the held block (fold_draw()): when a warp's scratch is at most kFoldSharedMax,
// a bound of the problem's (K and the longest observed half), not of the GPU's shared memory.
bool fold_held(const fold_params &p) { return p.warp_bytes <= kFoldSharedMax; }

// Chooses the fold-in's kernel, block and grid, places its scratch (p.scratch, when in global memory),
// clears the document counter and launches it on the legacy default stream.
int fold_launch(sk_lda_gpu_metrics *g, fold_params &p, sk_ex_error *err) {
  // Shared memory while a warp's scratch fits (as many warps a block as fit, up to 8), else global
  // scratch; a grid of as many blocks as can be resident, or fewer.
  int warps = kFoldWarps;
  bool shared = p.warp_bytes <= kFoldSharedMax && p.warp_bytes <= g->shared_optin;
  if (shared) {
    const size_t fit = g->shared_optin / p.warp_bytes;
    if (fit < (size_t)warps) warps = (int)fit;
  }
  size_t shared_bytes = (size_t)warps * p.warp_bytes;
  int per_sm = 0;
  // The held draw only where a warp's scratch is small enough for shared memory on any GPU: it costs
  // registers, and the global-scratch kernel (K plus the longest observed half past about 12,000)
  // spilled with it and ran 10% slower at K = 65,536 (H200, bench/RESULTS.md).
  const bool held = fold_held(p);
  void (*kernel)(fold_params) = held ? heldout_kernel<true, true> : heldout_kernel<true, false>;
  if (shared) {
    SK_EX_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes),
                    "sizing the fold-in's shared memory");
    SK_EX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, shared_bytes),
                    "sizing the fold-in's grid");
    shared = per_sm > 0;
  }
  if (!shared) {
    warps = kFoldWarps;
    shared_bytes = 0;
    kernel = held ? heldout_kernel<false, true> : heldout_kernel<false, false>;
    SK_EX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, 0),
                    "sizing the fold-in's grid");
  }
  const int64_t blocks_wanted = ((int64_t)p.num_docs + warps - 1) / warps;
  int64_t blocks = (int64_t)(per_sm > 0 ? per_sm : 1) * g->sm_count;
  if (!shared) {
    const int64_t fit = (int64_t)(kFoldGlobalMax / ((size_t)warps * p.warp_bytes));
    if (blocks > fit) blocks = fit > 0 ? fit : 1;
  }
  if (blocks > blocks_wanted) blocks = blocks_wanted;
  if (!shared) {
    if (sk_lda_gpu::metrics_buf_reserve(g, &g->scratch, (size_t)blocks * (size_t)warps * p.warp_bytes,
                                        "allocating the fold-in's scratch", err) != 0)
      return 1;
    p.scratch = (char *)g->scratch.ptr;
  }
  SK_EX_CUDA_TRY(cudaMemsetAsync(p.next_doc, 0, sizeof(unsigned), 0), "starting the fold-in");
  if (blocks > 0) {
    kernel<<<(unsigned)blocks, warps * 32, shared_bytes>>>(p);
    SK_EX_LAUNCH_CHECK("folding in the test documents");
  }
  return 0;
}

}  // namespace

extern "C" int sk_lda_gpu_metrics_heldout_ll(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, int fold_in_iters,
                                             double *ll_per_token, sk_ex_error *err) {
  if (g == NULL || c == NULL || ll_per_token == NULL)
    return sk_ex_fail(err, "GPU metrics: held-out LL: a pointer is NULL");
  if (sk_lda_gpu::metrics_check_counts(g, c, "held-out LL", err) != 0) return 1;
  if (!g->has_test) return sk_ex_fail(err, "GPU metrics: held-out LL: no test halves (sk_lda_gpu_metrics_set_test)");
  if (g->test_words != c->num_words)
    return sk_ex_fail(err, "GPU metrics: held-out LL: the test halves were checked against V = %d, the counts have V = %d",
                       (int)g->test_words, (int)c->num_words);
  if (fold_in_iters < 0) return sk_ex_fail(err, "GPU metrics: held-out LL: %d fold-in iterations", fold_in_iters);
  if (g->heldout_tokens == 0) {
    *ll_per_token = NAN;  // as sk_lda_heldout_ll()
    return 0;
  }
  SK_EX_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  (void)cudaGetLastError();  // an error some earlier call already reported is not this call's
  // The call's tables: phi is fixed for the whole fold-in (metrics.h's sparse rule)
  if (sk_lda_gpu::metrics_fold_tables(g, c, err) != 0) return 1;

  fold_params p = fold_params_of(g, c, fold_in_iters);
  if (fold_launch(g, p, err) != 0) return 1;
  const size_t D = (size_t)g->test_docs;
  if (D > 0)
    SK_EX_CUDA_TRY(cudaMemcpy(g->h_doc_ll, p.doc_ll, D * sizeof(double), cudaMemcpyDeviceToHost),
                    "computing the held-out LL");
  double sum = 0.0;  // in document order, as metrics.c
  for (size_t d = 0; d < D; ++d) sum += g->h_doc_ll[d];
  *ll_per_token = sum / (double)g->heldout_tokens;
  return 0;
}
