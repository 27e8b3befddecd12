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
// A draw (the y terms, the tiles, the held block, their order of addition) is metrics_gpu_fold_draw.cuh;
// this file is the fold-in's pass over a document, the score, the kernel and its launch.
#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu.h"
#include "gpu/metrics_gpu_fold_draw.cuh"
#include "gpu/metrics_gpu_internal.cuh"
#include "gpu/warp_topic_list.cuh"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_vote.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

using namespace sk_lda_gpu::fold;

// Held-out fold-in: one warp per document, persistent.
constexpr int kFoldWarps = 8;                        // warps per block, at most
constexpr int kWindowWarps = 16;                     // the long documents' blocks: W, the draws of a window
constexpr size_t kFoldSharedMax = 48u << 10;         // per warp: larger scratch goes to global memory
constexpr size_t kFoldGlobalMax = (size_t)256 << 20; // all warps' global scratch together, at most

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

// --- the longest documents: a block's warps run ahead on one chain ---------------------------------------
//
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
  for (int64_t i = lane; i < n; i += 32) {
    const int32_t k =
        uniform_index(sk_rng_uniform_f64(p.seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first + i)), K);
    if (warp == 0) p.z[first + i] = k;
    atomicAdd(&s.ndk[k], 1);
  }
  __syncwarp();
  int32_t nnz = 0;
  for (int32_t k0 = 0; k0 < K; k0 += 32) {
    const int32_t k = k0 + lane;
    const bool nz = k < K && s.ndk[k] != 0;
    const unsigned bal = __ballot_sync(SK_FULL_MASK, nz);
    if (nz) s.topics[nnz + __popc(bal & sk_lanemask_lt())] = k;
    nnz += __popc(bal);
  }
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
    const double norm = __ddiv_rn(1.0, __dadd_rn((double)n, p.kalpha));
    double ll = 0.0;
    for (int64_t h = p.held_offsets[d]; h < p.held_offsets[d + 1]; ++h) {
      const int32_t w = p.held_tokens[h];
      const int64_t w0 = p.word_start[w], w1 = p.word_start[w + 1];
      const double Q = w1 > w0 ? p.word_q_cum[w1 - 1] : 0.0;
      const y_terms y{&p, s.ndk, s.topics, nnz, p.b + (int64_t)w * K};
      ll = __dadd_rn(ll, log(__dmul_rn(__dadd_rn(__dadd_rn(S, Q), tiles_total(y, nnz, lane)), norm)));
    }
    if (lane == 0) p.doc_ll[d] = ll;
  }
  __syncwarp();
  for (int32_t j = lane; j < nnz; j += 32) s.ndk[s.topics[j]] = 0;
  __syncwarp();
}

// A warp's scratch: in dynamic shared memory (kShared), else in p.scratch from warp `first_warp` on (the
// one-warp kernel's warps first, then the windows kernel's, whose blocks have more warps).
template <bool kShared>
__device__ __forceinline__ fold_scratch warp_scratch(const fold_params &p, size_t first_warp, int lane) {
  extern __shared__ double fold_shared[];
  const int warp = (int)(threadIdx.x / 32);
  char *base = kShared ? (char *)fold_shared + (size_t)warp * p.warp_bytes
                       : p.scratch + (first_warp + (size_t)blockIdx.x * (blockDim.x / 32) + (size_t)warp) * p.warp_bytes;
  fold_scratch s;
  s.tile_end = (double *)base;
  s.ndk = (int32_t *)(s.tile_end + p.tile_cap);
  s.topics = s.ndk + p.num_topics;
  for (int32_t k = lane; k < p.num_topics; k += 32) s.ndk[k] = 0;
  __syncwarp();
  return s;
}

// The long documents: block b folds in document order[b] with its warps together (fold_in_windows()),
// p.window_docs blocks. Its own kernel, launched beside heldout_kernel on another stream, so that the
// one-warp kernel keeps its registers. kShared as there; in global memory, its warps' scratch follows
// heldout_kernel's (window_first_warp warps).
template <bool kShared, bool kHeld>
__global__ void __launch_bounds__(kWindowWarps * 32) heldout_windows_kernel(fold_params p, size_t window_first_warp) {
  __shared__ window_shared sh;
  const int lane = sk_lane_id();
  const fold_scratch s = warp_scratch<kShared>(p, window_first_warp, lane);
  fold_in_windows<kHeld>(p, s, sh, p.order[blockIdx.x], lane);
}

// A persistent grid: each warp clears its counts once, then takes the next document of `order` from
// p.window_docs on (an integer atomic counter; heldout_windows_kernel takes those before) until none
// is left. kShared: the warps' scratch is in dynamic shared memory, else in p.scratch.
template <bool kShared, bool kHeld>
__global__ void __launch_bounds__(kFoldWarps * 32) heldout_kernel(fold_params p) {
  const int lane = sk_lane_id();
  const fold_scratch s = warp_scratch<kShared>(p, 0, lane);
  for (;;) {
    unsigned next = 0;
    if (lane == 0) next = (unsigned)p.window_docs + atomicAdd(p.next_doc, 1u);
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

// Chooses the fold-in's kernels, blocks and grids, places their scratch (p.scratch, when in global
// memory), clears the document counter and launches them: the one-warp kernel on the legacy default
// stream, the windows kernel (the longest documents) on g->side between events that order it after the
// work before on the legacy stream and the work after behind it.
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
  // The long documents' windows: a block each of window_warps warps (heldout_windows_kernel, on g->side
  // beside the one-warp kernel), when a block can have at least 4 (fewer make a window cost more than
  // it saves). In shared memory the block's warps' scratch and its static window_shared must fit the
  // opt-in limit together. The one-warp kernel's grid leaves the windows the room of their warps; a
  // window's block also takes most of an SM's registers (16 warps of about 128), so a one-warp block
  // can find no room at first: the grid is persistent and its blocks never wait for one another, so
  // such a block starts later and only finds less work.
  int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * g->sm_count;
  if (!shared) {
    const int64_t fit = (int64_t)(kFoldGlobalMax / ((size_t)warps * p.warp_bytes));
    if (resident > fit) resident = fit > 0 ? fit : 1;
  }
  int window_warps = kWindowWarps;
  if (shared) {
    const size_t room = g->shared_optin > sizeof(window_shared) ? g->shared_optin - sizeof(window_shared) : 0;
    if (room / p.warp_bytes < (size_t)window_warps) window_warps = (int)(room / p.warp_bytes);
  }
  p.window_docs = window_warps >= 4 ? g->long_docs : 0;
  // In the one-warp kernel's blocks, what the windows take (rounded up).
  const int64_t per_window = (window_warps + warps - 1) / warps;
  if (p.window_docs * per_window > resident / 2) p.window_docs = (int32_t)(resident / 2 / per_window);
  const int64_t blocks_wanted = ((int64_t)(p.num_docs - p.window_docs) + warps - 1) / warps;
  int64_t blocks = resident - p.window_docs * per_window;
  if (blocks > blocks_wanted) blocks = blocks_wanted;
  const size_t one_warp_warps = (size_t)blocks * (size_t)warps;
  if (!shared) {
    if (sk_lda_gpu::metrics_buf_reserve(g, &g->scratch,
                                        (one_warp_warps + (size_t)p.window_docs * (size_t)window_warps) * p.warp_bytes,
                                        "allocating the fold-in's scratch", err) != 0)
      return 1;
    p.scratch = (char *)g->scratch.ptr;
  }
  SK_EX_CUDA_TRY(cudaMemsetAsync(p.next_doc, 0, sizeof(unsigned), 0), "starting the fold-in");
  if (p.window_docs > 0) {
    if (g->side == NULL) SK_EX_CUDA_TRY(cudaStreamCreateWithFlags(&g->side, cudaStreamNonBlocking), "creating a stream");
    if (g->fold_start == NULL)
      SK_EX_CUDA_TRY(cudaEventCreateWithFlags(&g->fold_start, cudaEventDisableTiming), "creating an event");
    if (g->fold_done == NULL)
      SK_EX_CUDA_TRY(cudaEventCreateWithFlags(&g->fold_done, cudaEventDisableTiming), "creating an event");
    void (*windows)(fold_params, size_t) =
        shared ? (held ? heldout_windows_kernel<true, true> : heldout_windows_kernel<true, false>)
               : (held ? heldout_windows_kernel<false, true> : heldout_windows_kernel<false, false>);
    const size_t window_bytes = shared ? (size_t)window_warps * p.warp_bytes : 0;
    if (shared)
      SK_EX_CUDA_TRY(cudaFuncSetAttribute(windows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)window_bytes),
                      "sizing the fold-in's shared memory");
    SK_EX_CUDA_TRY(cudaEventRecord(g->fold_start, 0), "starting the fold-in");
    SK_EX_CUDA_TRY(cudaStreamWaitEvent(g->side, g->fold_start, 0), "starting the fold-in");
    windows<<<(unsigned)p.window_docs, window_warps * 32, window_bytes, g->side>>>(p, one_warp_warps);
    SK_EX_LAUNCH_CHECK("folding in the longest test documents");
    SK_EX_CUDA_TRY(cudaEventRecord(g->fold_done, g->side), "folding in the longest test documents");
  }
  if (blocks > 0) {
    kernel<<<(unsigned)blocks, warps * 32, shared_bytes>>>(p);
    SK_EX_LAUNCH_CHECK("folding in the test documents");
  }
  if (p.window_docs > 0)
    SK_EX_CUDA_TRY(cudaStreamWaitEvent(0, g->fold_done, 0), "waiting for the longest test documents");
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
