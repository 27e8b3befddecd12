// sk-lda's held-out fold-in on the GPU, the longest documents by a block in windows (metrics_gpu_heldout.cu's
// windows kernel): the same draws as one warp's pass (metrics_gpu_fold_warp.cuh), several a pass; each
// warp's copy of the document keeps (up to K = 10,240) a bitmap of its nonzero topics, from which the
// sorted list is rebuilt.
// Included by metrics_gpu_heldout.cu alone.
#ifndef SK_LDA_METRICS_GPU_FOLD_WINDOWS_CUH
#define SK_LDA_METRICS_GPU_FOLD_WINDOWS_CUH

#include <cooperative_groups.h>
#include <stdint.h>

#include "gpu/metrics_gpu_fold_draw.cuh"
#include "gpu/metrics_gpu_fold_warp.cuh"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sorted_set.cuh"

namespace sk_lda_gpu {
namespace fold {

constexpr int kWindowWarps = 16;     // warps a long document's block has: at most 16 of 128 registers
constexpr int kWindowMaxCtas = 4;    // blocks a long document's cluster has: 1, 2 or 4

// Why: a document's fold-in is one chain of dependent draws, and the longest one sets the call's time
// (20news, K = 1,024: 48,840 draws in 20 sweeps, about 76 ms, while the sweeps of a 100-sweep run took
// about 105 ms).
// The first p.window_docs documents of `order` (the longest) are each taken by a whole block, or a
// cluster of 2 or 4 blocks, whose W warps draw W consecutive draws of the chain at once, exactly. Every position of the chain has a
// guess of its draw's topic: the token's topic before it (a position new to the window), or what the
// position's draw gave in the window before (a position carried over). One pass a window:
// 1. warp j draws position g + j from the counts that the guesses of positions g .. g + j - 1 give
//    (every warp on its own copy of the document's counts and topics);
// 2. the chain's draws are positions g .. g + acc, acc the first j whose draw differs from its guess
//    (its draw is the chain's: the counts it was drawn from are), or the last position when none does;
//    the later positions keep their draws as guesses for the next window, which starts at g + acc + 1,
//    and every warp moves its copy, in one step of all its lanes, to what its next draw is drawn from.
// Every draw is fold_draw() on the counts and sorted topics that the one-warp pass would hold if the
// guesses before it were right (a copy's topics are the sorted nonzero topics of its counts, whatever
// the order of the moves that made them), and a draw is kept only when they were: the topics are the
// one-warp pass's bits. A CPU replay of 20news's fold-in (bench/RESULTS.md, issue 32; every replayed
// chain equal to the sequential one) kept 8.3 draws a pass at W = 16 on the longest document (K =
// 1,024; 7.8 at K = 10,000): one token's move changes the counts by one, so a draw from counts a few
// moves stale nearly always lands where the chain's does. (Predicting every position from the window's
// start and then verifying, two passes a window, kept 6.5 a pass.)
// W is kWindowWarps (16) a block, or what fits the shared memory, times the cluster's blocks (the
// launch's choice, metrics_gpu_heldout.cu). A document needs at least 2W observed tokens, so that a
// window and the next never hold one token twice.

// Above this many topics a windows warp keeps its sorted topics move by move, not from a bitmap: the
// bitmap's rebuild reads K / 32 words, and at K = 65,536 (2,048 words) it made the windows kernel 1.56x
// slower (20news: 135.6 -> 211.6 ms), while at K = 1,024 and 10,000 it was 1.19x and 1.06x faster (51.1
// -> 43.0 ms, 112.6 -> 106.2 ms; H200, bench/RESULTS.md).
constexpr int32_t kWindowBitmapMaxTopics = 10240;

// A warp's copy of the document: its counts and sorted nonzero topics (fold_scratch), and, where the
// bitmap is kept, one bit a topic for whether its count is nonzero (`present`), from which the sorted
// topics are rebuilt. Why the bitmap: a pass moves up to 2W tokens in each copy (below), and the sorted
// list kept move by move cost a position search and a shift of the list for every count that reached or
// left 0 (8.7 us a pass at W = 16 on 20news, against 1.85 us a one-warp draw; bench/RESULTS.md). With
// it the lanes move their tokens at once with atomics, mark the bits of the topics they touched, and the
// list is rebuilt once, before the next draw, when a bit changed. Either way the list is the sorted
// nonzero topics of the same counts, so the draws are the same bits.
struct window_scratch {
  fold_scratch f;
  uint32_t *present;  // ceil(K / 32) words, where the bitmap is kept
};

// Bytes of a windows warp's bitmap, a multiple of 16 (it follows the warp's fold_scratch); 0 where the
// sorted topics are kept move by move.
__host__ __device__ __forceinline__ size_t present_bytes(int32_t K) {
  return K <= kWindowBitmapMaxTopics ? ((size_t)(K + 31) / 32 * sizeof(uint32_t) + 15) / 16 * 16 : 0;
}

// Sets topic k's bit to whether its count is nonzero; true when the bit changed.
__device__ __forceinline__ bool copy_mark(const window_scratch &s, int32_t k) {
  const uint32_t bit = 1u << (k & 31);
  const uint32_t was = s.f.ndk[k] != 0 ? atomicOr(&s.present[k >> 5], bit) : atomicAnd(&s.present[k >> 5], ~bit);
  return ((was & bit) != 0) != (s.f.ndk[k] != 0);
}

// The sorted nonzero topics from `present` into topics; returns nnz. Every lane calls.
__device__ __forceinline__ int32_t copy_list(const window_scratch &s, int32_t K, int lane) {
  return sk_warp_sorted_set_from_bitmap_i32(s.present, (K + 31) / 32, s.f.topics, lane);
}

// Adds one token of topic k to a warp's copy kept move by move (ndk and the sorted topics); returns nnz.
// Every lane calls.
__device__ __forceinline__ int32_t copy_add(const fold_scratch &s, int32_t nnz, int32_t k, int lane) {
  const int32_t before = s.ndk[k];
  __syncwarp();  // every lane has read ndk before lane 0 changes it
  if (lane == 0) s.ndk[k] = before + 1;
  __syncwarp();
  return before == 0 ? sk_warp_sorted_set_insert_i32(s.topics, nnz, k, lane) : nnz;
}

// Takes one token of topic k (present) from a warp's copy kept move by move; returns nnz. Every lane calls.
__device__ __forceinline__ int32_t copy_remove(const fold_scratch &s, int32_t nnz, int32_t k, int lane) {
  const int32_t left = s.ndk[k] - 1;
  __syncwarp();
  if (lane == 0) s.ndk[k] = left;
  __syncwarp();
  return left == 0 ? sk_warp_sorted_set_erase_i32(s.topics, nnz, k, lane) : nnz;
}

// Every lane makes kMoves moves in the warp's copy, move m one token from topic a[m] to b[m] (-1 on the
// left adds a token, on the right takes one; a == b moves nothing), in the order of m. Each move is of
// one token, which is in the topic it is taken from once the lane's moves before it are made, so no
// count goes below 0 in any order of the lanes. With the bitmap (kBitmap) all lanes move at once with
// atomics and mark the topics they touched; `stale` is set when a bit changed (the list is rebuilt
// before the next draw). Without, the lanes' moves are made one lane after another, each a remove and
// an insert in the sorted list; nnz follows. Every lane calls.
template <bool kBitmap, int kMoves>
__device__ __forceinline__ void copy_moves(const window_scratch &s, int32_t &nnz, bool &stale,
                                           const int32_t (&a)[kMoves], const int32_t (&b)[kMoves], int lane) {
  if constexpr (!kBitmap) {
    bool any = false;
#pragma unroll
    for (int m = 0; m < kMoves; ++m) any |= a[m] != b[m];
    for (unsigned todo = __ballot_sync(SK_FULL_MASK, any); todo != 0u; todo &= todo - 1u) {
      const int from = __ffs((int)todo) - 1;
      int32_t x[kMoves], y[kMoves];
#pragma unroll
      for (int m = 0; m < kMoves; ++m) x[m] = __shfl_sync(SK_FULL_MASK, a[m], from);
#pragma unroll
      for (int m = 0; m < kMoves; ++m) y[m] = __shfl_sync(SK_FULL_MASK, b[m], from);
#pragma unroll
      for (int m = 0; m < kMoves; ++m)
        if (x[m] != y[m]) {
          if (x[m] >= 0) nnz = copy_remove(s.f, nnz, x[m], lane);
          if (y[m] >= 0) nnz = copy_add(s.f, nnz, y[m], lane);
        }
    }
  } else {
#pragma unroll
    for (int m = 0; m < kMoves; ++m)
      if (a[m] != b[m]) {
        if (a[m] >= 0) atomicSub(&s.f.ndk[a[m]], 1);
        if (b[m] >= 0) atomicAdd(&s.f.ndk[b[m]], 1);
      }
    __syncwarp();  // every count final before any bit is read from it
    bool changed = false;
#pragma unroll
    for (int m = 0; m < kMoves; ++m)
      if (a[m] != b[m]) {
        if (a[m] >= 0) changed |= copy_mark(s, a[m]);
        if (b[m] >= 0) changed |= copy_mark(s, b[m]);
      }
    __syncwarp();  // every mark in before the list is rebuilt or the counts move again
    stale |= __any_sync(SK_FULL_MASK, changed);
  }
}

// What the window's warps share about the current window: each position's token's topic before it, its
// guess and its draw (-1 past the chain's end), for windows of up to kCtas blocks. With a cluster of
// blocks every block holds a copy, which every warp writes its entries into.
template <int kCtas>
struct window_shared {
  int32_t old[kCtas * kWindowWarps], guess[kCtas * kWindowWarps], drawn[kCtas * kWindowWarps];
  int32_t score_nnz;  // warp 0's nonzero topics after the fold-in, for the score (block 0's copy)
};

// The window's barrier: the block's, or the cluster's (kCtas > 1; it orders the shared and global writes
// before it, the other blocks' included, before the reads after it).
template <int kCtas>
__device__ __forceinline__ void window_sync() {
  if (kCtas == 1)
    __syncthreads();
  else
    cooperative_groups::this_cluster().sync();
}

// Global data that another block of the cluster wrote (z, the tokens): read at L2, past this SM's L1.
template <int kCtas, typename T>
__device__ __forceinline__ T cluster_load(const T *at) {
  if (kCtas == 1) return *at;
  return __ldcg(at);
}
template <int kCtas>
__device__ __forceinline__ window_token cluster_token(const window_token *at) {
  if (kCtas == 1) return *at;
  window_token t;
  t.q = __ldcg(&at->q);
  t.w0 = __ldcg(&at->w0);
  t.m = __ldcg(&at->m);
  t.w = __ldcg(&at->w);
  return t;
}

// The fold-in of document d's observed half by a window of W = kCtas x blockDim.x / 32 warps, a block
// or a cluster of kCtas blocks (the scheme above), then the score of its held-out half by the cluster's
// block 0 (below); leaves every warp's ndk (and present) all zero. `tokens`: n_max entries of global
// scratch, the cluster's, for the document's window_token; `copy0`: warp 0 of this block's copy, which
// the other warps read for the score. Every thread of the cluster calls.
// Why clusters: a window's draws per pass grow almost as W (a CPU replay of 20news's longest test
// document at K = 1,024: 9.4, 17.1 and 31.5 at W = 16, 32 and 64; bench/lda_windows_replay.py), while a
// block holds at most 16 warps of the 128 registers a draw needs; a cluster's blocks share the window's
// entries through distributed shared memory and its barrier.
template <bool kHeld, bool kBitmap, int kCtas>
__device__ __forceinline__ void fold_in_windows(const fold_params &p, const window_scratch &s, window_shared<kCtas> &sh,
                                                window_token *tokens, int64_t n_max, const fold_scratch &copy0,
                                                int32_t d, int lane) {
  constexpr int kPositions = kCtas;  // a lane's positions of the copy step: 2W = 32 kCtas
  const int32_t K = p.num_topics;
  const int warps = (int)(blockDim.x / 32), W = kCtas * warps;
  const int rank = kCtas == 1 ? 0 : (int)cooperative_groups::this_cluster().block_rank();
  const int warp = rank * warps + (int)(threadIdx.x / 32);  // this warp's place in the window
  const int64_t first = p.obs_offsets[d], n = p.obs_offsets[d + 1] - first;
  for (int64_t i = rank * (int64_t)blockDim.x + threadIdx.x; i < n; i += kCtas * (int64_t)blockDim.x) {
    const window_token t = token_of(p, p.obs_tokens[first + i]);
    tokens[i] = t;
    if (!p.z_given) p.z[first + i] = initial_topic(p, first + i, t.w0, t.m, t.q);  // the start, a token a thread
  }
  window_sync<kCtas>();  // z and the tokens are visible to every warp
  // Every warp counts the initial topics into its copy, and lists them (and their bitmap).
  for (int64_t i = lane; i < n; i += 32) atomicAdd(&s.f.ndk[cluster_load<kCtas>(p.z + first + i)], 1);
  __syncwarp();
  int32_t nnz = list_nonzero(p, s.f, kBitmap ? s.present : nullptr, lane);
  const double S = p.s_cum[K - 1];
  const int64_t total = n * (int64_t)p.iters;
  // This warp's position g + warp as sweep `it` and token t, followed rather than divided out (a window
  // moves at most W <= n positions on, so at most one sweep).
  int64_t it = 0, t = warp;
  int32_t carried = -1;  // this warp's position's draw in the window before, or -1 (a new position)
  bool stale = false;    // the list is behind present (kBitmap)
  // A copy holds, at a window's start g, the chain's counts before position g with position g + i's
  // token moved to its guess for i < warp and position g + warp's token out: what this warp's draw is
  // drawn from. At g = 0 every guess is the token's topic, so only the token out.
  {
    const int32_t o0 = warp < total ? cluster_load<kCtas>(p.z + first + warp) : -1;
    const int32_t a[2] = {lane == 0 ? o0 : -1, -1}, b[2] = {-1, -1};
    copy_moves<kBitmap>(s, nnz, stale, a, b, lane);
  }
  for (int64_t g = 0; g < total;) {
    // This warp's position: its uniform, token, topic before (the sweep before's draw: n >= 2W puts it
    // before this window and the one before, so it is committed) and its guess.
    const bool valid = g + warp < total;
    int32_t o = -1;
    double u = 0.0;
    window_token tk = {0.0, 0, 0, 0};
    if (valid) {
      u = sk_rng_uniform_f64(p.seed, SK_LDA_STREAM_FOLDIN((uint64_t)(p.first_sweep + it)), (uint64_t)(first + t));
      o = cluster_load<kCtas>(p.z + first + t);
      tk = cluster_token<kCtas>(tokens + t);
    }
    const int32_t guess = valid ? (carried >= 0 ? carried : o) : -1;
    if (kCtas == 1) {
      if (lane == 0) {
        sh.old[warp] = o;
        sh.guess[warp] = guess;
      }
    } else if (lane < kCtas) {  // lane r writes block r's copy
      window_shared<kCtas> *at = cooperative_groups::this_cluster().map_shared_rank(&sh, lane);
      at->old[warp] = o;
      at->guess[warp] = guess;
    }
    // 1. The draw, from the copy (the counts that the earlier positions' guesses give).
    int32_t drawn = -1;
    if (valid) {
      if (kBitmap && stale) nnz = copy_list(s, K, lane);
      stale = false;
      drawn = fold_draw<kHeld>(p, s.f, nnz, p.b + (int64_t)tk.w * K, tk.w0, tk.m, S, tk.q, u, lane);
    }
    if (kCtas == 1) {
      if (lane == 0) sh.drawn[warp] = drawn;
    } else if (lane < kCtas) {
      cooperative_groups::this_cluster().map_shared_rank(&sh, lane)->drawn[warp] = drawn;
    }
    window_sync<kCtas>();
    // 2. The chain's draws: 0 .. acc (every warp finds the same acc).
    const int64_t left = total - g;
    const int last = (int)(left < W ? left : W) - 1;
    int acc = last;
    {
      const unsigned differ = __ballot_sync(SK_FULL_MASK, lane <= last && sh.drawn[lane] != sh.guess[lane]);
      if (differ != 0u) {
        acc = __ffs((int)differ) - 1;
      } else if (kCtas == 4) {  // W = 64: positions 32 .. 63
        const int j = lane + 32;
        const unsigned hi = __ballot_sync(SK_FULL_MASK, j <= last && sh.drawn[j] != sh.guess[j]);
        if (hi != 0u) acc = 32 + __ffs((int)hi) - 1;
      }
    }
    // 3. The copy from what it holds for window g to what it must hold for window g' = g + acc + 1, in
    // one step: lane L takes positions g + i, i = L + 32 r (r < kPositions; i < 2W: the two windows; n >=
    // 2W, so each a different token). It holds old -> guess for i < warp, or the token out at i == warp
    // (when valid); it must hold the chain's moves for i <= acc (old -> guess below acc, old -> drawn at
    // acc), then for g' + j = g + i with j < warp the next guess (the draw here, a carried position; a new
    // position's guess is its topic: no move) and at j == warp the token out. The lane undoes the first
    // and makes the second, when they differ, position by position.
    {
      int32_t a[2 * kPositions], b[2 * kPositions];
#pragma unroll
      for (int r = 0; r < kPositions; ++r) {
        const int i = lane + 32 * r;
        int32_t ha = -1, hb = -1, ca = -1, cb = -1;  // held: ha -> hb; wanted: ca -> cb
        if (i < warp && i <= last) {  // (a warp past the chain's end holds the guesses before it)
          ha = sh.old[i];
          hb = sh.guess[i];
        } else if (valid && i == warp) {
          ha = o;
        }
        if (i < acc) {
          ca = sh.old[i];
          cb = sh.guess[i];
        } else if (i == acc) {
          ca = sh.old[i];
          cb = sh.drawn[i];
        } else if (i - acc - 1 < warp) {
          if (i <= last) {
            ca = sh.old[i];
            cb = sh.drawn[i];
          }
        } else if (i - acc - 1 == warp && g + i < total) {
          if (i <= last) {
            ca = sh.old[i];
          } else {  // a position new to the window: its token's topic, committed (as o above)
            int64_t ti = t + (i - warp);
            if (ti >= n) ti -= n;
            ca = cluster_load<kCtas>(p.z + first + ti);
          }
        }
        const bool same = ha == ca && hb == cb;
        a[2 * r] = same ? -1 : hb;
        b[2 * r] = same ? -1 : ha;
        a[2 * r + 1] = same ? -1 : ca;
        b[2 * r + 1] = same ? -1 : cb;
      }
      copy_moves<kBitmap>(s, nnz, stale, a, b, lane);
    }
    if (warp == 0) {
#pragma unroll
      for (int r = 0; r < (kCtas == 4 ? 2 : 1); ++r) {
        const int i = lane + 32 * r;
        if (i <= acc) {
          const int64_t tl = t + i < n ? t + i : t + i - n;  // position g + i's token
          p.z[first + tl] = sh.drawn[i];                    // = the guess below acc
        }
      }
    }
    // The next window's position g + acc + 1 + warp was this window's acc + 1 + warp: its draw is the guess.
    const int from = acc + 1 + warp;
    carried = from <= last ? sh.drawn[from] : -1;
    window_sync<kCtas>();  // z written and sh read before the next window
    g += acc + 1;
    t += acc + 1;
    if (t >= n) {
      t -= n;
      ++it;
    }
  }
  if (kBitmap && stale) nnz = copy_list(s, K, lane);
  // The score, fold_score()'s bits: warp 0's copy holds the chain's counts; block 0's warps take its
  // held-out tokens in turn, each token's term from that copy (the same function of the same counts),
  // into the token scratch (free: the windows' last barrier is behind every read of it, in every block
  // of the cluster), and warp 0 adds the terms in token order from 0.0. Why: one warp's pass over the
  // held-out half (about 2,400 tokens for 20news's longest test document) kept the block's other warps
  // waiting (spread: 20news's held-out call 32.3 -> 27.7 ms at K = 10,000 on an H200, bench/RESULTS.md).
  // A held-out half longer than the scratch holds is scored by warp 0 alone, the same sum.
  const int64_t h0 = p.held_offsets[d], held = p.held_offsets[d + 1] - h0;
  const int64_t room = n_max * (int64_t)(sizeof(window_token) / sizeof(double));
  if (rank == 0 && held <= room) {
    if (warp == 0 && lane == 0) sh.score_nnz = nnz;  // in block 0, warp is the block's own warp index
    __syncthreads();  // every warp of the block is out of the windows and sees score_nnz
    const int32_t nnz0 = sh.score_nnz;
    const double norm = fold_score_norm(p, n);
    double *terms = reinterpret_cast<double *>(tokens);
    for (int64_t t = warp; t < held; t += warps) {
      const double term = fold_score_term(p, copy0, nnz0, p.held_tokens[h0 + t], S, norm, lane);
      if (lane == 0) terms[t] = term;
    }
    __syncthreads();  // the terms are written; warp 0's copy is read
    if (warp == 0) {
      double ll = 0.0;
      for (int64_t t = 0; t < held; ++t) ll = __dadd_rn(ll, terms[t]);
      if (lane == 0) p.doc_ll[d] = ll;
    }
  } else if (warp == 0) {
    const double ll = fold_score(p, s.f, nnz, d, n, S, lane);
    if (lane == 0) p.doc_ll[d] = ll;
  }
  __syncwarp();
  for (int32_t j = lane; j < nnz; j += 32) s.f.ndk[s.f.topics[j]] = 0;
  if (kBitmap)
    for (int32_t j = lane; j < (K + 31) / 32; j += 32) s.present[j] = 0u;
  __syncwarp();
}

}  // namespace fold
}  // namespace sk_lda_gpu

#endif  // SK_LDA_METRICS_GPU_FOLD_WINDOWS_CUH
