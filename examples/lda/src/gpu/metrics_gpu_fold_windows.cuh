// sk-lda's held-out fold-in on the GPU, the longest documents by a block in windows (metrics_gpu_heldout.cu's
// windows kernel): the same draws as one warp's pass (metrics_gpu_fold_warp.cuh), several a pass.
// Included by metrics_gpu_heldout.cu alone.
#ifndef SK_LDA_METRICS_GPU_FOLD_WINDOWS_CUH
#define SK_LDA_METRICS_GPU_FOLD_WINDOWS_CUH

#include <stdint.h>

#include "gpu/metrics_gpu_fold_draw.cuh"
#include "gpu/metrics_gpu_fold_warp.cuh"
#include "gpu/warp_topic_list.cuh"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_lane.cuh"

namespace sk_lda_gpu {
namespace fold {

constexpr int kWindowWarps = 16;  // the long documents' blocks: W, the draws of a window

// Why: a document's fold-in is one chain of dependent draws, and the longest one sets the call's time
// (20news, K = 1,024: 48,840 draws, about 76 ms, while the sweeps of a 100-sweep run take about 105 ms).
// The first p.window_docs documents of `order` (the longest) are each taken by a whole block, whose W
// warps draw W consecutive draws of the chain at once, exactly. Every position of the chain has a
// guess of its draw's topic: the token's topic before it (a position new to the window), or what the
// position's draw gave in the window before (a position carried over). One pass a window:
// 1. warp j draws position g + j from the counts that the guesses of positions g .. g + j - 1 give
//    (every warp on its own copy of the document's counts and topics);
// 2. the chain's draws are positions g .. g + acc, acc the first j whose draw differs from its guess
//    (its draw is the chain's: the counts it was drawn from are), or the last position when none does;
//    every warp brings its copy to the counts after them, and the later positions keep their draws as
//    guesses for the next window, which starts at g + acc + 1.
// Every draw is fold_draw() on the counts and sorted topics that the one-warp pass would hold if the
// guesses before it were right (a copy's topics are the sorted nonzero topics of its counts, whatever
// the order of the moves that made them), and a draw is kept only when they were: the topics are the
// one-warp pass's bits. A CPU replay of 20news's fold-in (bench/RESULTS.md, issue 32; every replayed
// chain equal to the sequential one) kept 8.3 draws a pass at W = 16 on the longest document (K =
// 1,024; 7.8 at K = 10,000): one token's move changes the counts by one, so a draw from counts a few
// moves stale nearly always lands where the chain's does. (Predicting every position from the window's
// start and then verifying, two passes a window, kept 6.5 a pass.)
// W is kWindowWarps (16), or what fits the shared memory. A document needs at least W observed tokens,
// so that a window never holds one token twice.

// Adds one token of topic k to a warp's copy (ndk and the sorted topics); returns nnz. Every lane calls.
__device__ __forceinline__ int32_t copy_add(const fold_scratch &s, int32_t nnz, int32_t k, int lane) {
  const int32_t before = s.ndk[k];
  __syncwarp();  // every lane has read ndk before lane 0 changes it
  if (lane == 0) s.ndk[k] = before + 1;
  __syncwarp();
  return before == 0 ? sk_lda_warp_topics_insert(s.topics, nnz, k, lane) : nnz;
}

// Takes one token of topic k (present) from a warp's copy; returns nnz. Every lane calls.
__device__ __forceinline__ int32_t copy_remove(const fold_scratch &s, int32_t nnz, int32_t k, int lane) {
  const int32_t left = s.ndk[k] - 1;
  __syncwarp();
  if (lane == 0) s.ndk[k] = left;
  __syncwarp();
  return left == 0 ? sk_lda_warp_topics_remove(s.topics, nnz, k, lane) : nnz;
}

// Moves one token from topic a to topic b in a warp's copy (nothing when a == b); returns nnz.
__device__ __forceinline__ int32_t copy_move(const fold_scratch &s, int32_t nnz, int32_t a, int32_t b, int lane) {
  if (a == b) return nnz;
  nnz = copy_remove(s, nnz, a, lane);
  return copy_add(s, nnz, b, lane);
}

// What the block's warps share about the current window: each position's token's topic before it, its
// guess and its draw (-1 past the chain's end).
struct window_shared {
  int32_t old[kWindowWarps], guess[kWindowWarps], drawn[kWindowWarps];
};

// The fold-in of document d's observed half by the whole block (the scheme above), then the score of its
// held-out half by warp 0; leaves every warp's ndk all zero. Every thread of the block calls.
template <bool kHeld>
__device__ __forceinline__ void fold_in_windows(const fold_params &p, const fold_scratch &s, window_shared &sh,
                                                int32_t d, int lane) {
  const int32_t K = p.num_topics;
  const int warp = (int)(threadIdx.x / 32), W = (int)(blockDim.x / 32);
  const int64_t first = p.obs_offsets[d], n = p.obs_offsets[d + 1] - first;
  // The start: every warp draws the same initial topics into its copy; warp 0 writes z.
  int32_t nnz = fold_start(p, s, first, n, warp == 0, lane);
  __syncthreads();  // warp 0's z is visible to every warp
  const double S = p.s_cum[K - 1];
  const int64_t total = n * (int64_t)p.iters;
  int32_t carried = -1;  // this warp's position's draw in the window before, or -1 (a new position)
  for (int64_t g = 0; g < total;) {
    // This warp's position g + warp: its token, sweep, uniform and word; its topic before (the sweep
    // before's draw: n >= W puts it before this window, so it is committed) and its guess.
    const int64_t gj = g + warp;
    const bool valid = gj < total;
    int32_t o = -1, w = 0, m = 0;
    int64_t w0 = 0;
    double u = 0.0, Q = 0.0;
    if (valid) {
      const int64_t it = gj / n, t = first + (gj - it * n);
      u = sk_rng_uniform_f64(p.seed, SK_LDA_STREAM_FOLDIN((uint64_t)it), (uint64_t)t);
      o = p.z[t];
      w = p.obs_tokens[t];
      w0 = p.word_start[w];
      m = (int32_t)(p.word_start[w + 1] - w0);
      Q = m > 0 ? p.word_q_cum[w0 + m - 1] : 0.0;
    }
    if (lane == 0) {
      sh.old[warp] = o;
      sh.guess[warp] = valid ? (carried >= 0 ? carried : o) : -1;
    }
    __syncthreads();
    // 1. The draw, from the counts the earlier positions' guesses give.
    int32_t applied = 0, drawn = -1;
    if (valid) {
      for (; applied < warp; ++applied) nnz = copy_move(s, nnz, sh.old[applied], sh.guess[applied], lane);
      nnz = copy_remove(s, nnz, o, lane);
      drawn = fold_draw<kHeld>(p, s, nnz, p.b + (int64_t)w * K, w0, m, S, Q, u, lane);
      nnz = copy_add(s, nnz, o, lane);
    }
    if (lane == 0) sh.drawn[warp] = drawn;
    __syncthreads();
    // 2. The chain's draws: 0 .. acc (every warp finds the same acc).
    const int64_t left = total - g;
    const int last = (int)(left < W ? left : W) - 1;
    const unsigned differ = __ballot_sync(SK_FULL_MASK, lane <= last && sh.drawn[lane] != sh.guess[lane]);
    const int acc = differ != 0u ? __ffs((int)differ) - 1 : last;
    // This copy holds the start plus the guesses' moves 0 .. applied - 1; bring it to the start plus the
    // chain's moves 0 .. acc (the guesses before acc, the draw at acc).
    if (applied <= acc) {
      for (int i = applied; i < acc; ++i) nnz = copy_move(s, nnz, sh.old[i], sh.guess[i], lane);
      nnz = copy_move(s, nnz, sh.old[acc], sh.drawn[acc], lane);
    } else {
      for (int i = acc + 1; i < applied; ++i) nnz = copy_move(s, nnz, sh.guess[i], sh.old[i], lane);
      nnz = copy_move(s, nnz, sh.guess[acc], sh.drawn[acc], lane);
    }
    if (warp == 0 && lane <= acc) {
      const int64_t gi = g + lane, it = gi / n;
      p.z[first + (gi - it * n)] = sh.drawn[lane];  // = the guess below acc
    }
    // The next window's position g + acc + 1 + warp was this window's acc + 1 + warp: its draw is the guess.
    const int from = acc + 1 + warp;
    carried = from <= last ? sh.drawn[from] : -1;
    __syncthreads();  // z written and sh read before the next window
    g += acc + 1;
  }
  if (warp == 0) {
    const double ll = fold_score(p, s, nnz, d, n, S, lane);
    if (lane == 0) p.doc_ll[d] = ll;
  }
  __syncwarp();
  for (int32_t j = lane; j < nnz; j += 32) s.ndk[s.topics[j]] = 0;
  __syncwarp();
}

}  // namespace fold
}  // namespace sk_lda_gpu

#endif  // SK_LDA_METRICS_GPU_FOLD_WINDOWS_CUH
