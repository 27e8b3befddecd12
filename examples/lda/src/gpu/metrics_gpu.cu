// sk-lda's metrics on the GPU (metrics_gpu.h): the joint log-likelihood and the held-out score of
// metrics.c, computed from the sampler's device counts.
//
// Every term, product and quotient is written with the _rn intrinsics in metrics.c's order, so nvcc
// cannot fuse a multiply and an add (metrics.c is C11 without -ffast-math: gcc does not contract
// either) and each one has the CPU's bits. The sums are where the two differ: the CPU adds
// sequentially, here each warp or block adds in a tree of a fixed shape, which is as deterministic
// and, for long sums, more accurate.
#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_check.h"
#include "gpu/metrics_gpu.h"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_lane.cuh"

#define SK_LDA_CUDA_SCOPE "GPU metrics"

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// Joint LL: a block of 256 threads sums 4096 consecutive terms of one kind (16 a thread, strided so
// that a warp's loads are coalesced) into one partial sum; one block then sums the partials.
constexpr int kJointThreads = 256;
constexpr int kJointItems = 16;
constexpr int64_t kJointBlockTerms = (int64_t)kJointThreads * kJointItems;

// Held-out fold-in: one warp per document. A draw's K terms are taken in tiles of 128 topics, four
// consecutive topics a lane (each lane sums its four in order, the warp adds the 32 lane sums).
constexpr int kFoldPerLane = 4;
constexpr int kFoldTile = 32 * kFoldPerLane;
constexpr int kFoldWarps = 8;                        // warps per block, at most
constexpr int kFoldMinBlocks = 2;                    // blocks of 8 warps per multiprocessor the registers allow
constexpr size_t kFoldSharedMax = 48u << 10;         // per warp: larger scratch goes to global memory
constexpr size_t kFoldGlobalMax = (size_t)256 << 20; // all warps' global scratch together, at most

}  // namespace

// A device buffer and its size, so that the context knows what it holds.
struct sk_lda_gpu_buf {
  void *ptr;
  size_t bytes;
};

struct sk_lda_gpu_metrics {
  int gpu;
  int sm_count;
  size_t shared_optin;  // dynamic shared memory a block may ask for
  int64_t bytes, peak;  // device bytes held now, and the most held
  sk_lda_gpu_buf partials;  // joint LL: one double per block of terms, then the result
  // The test halves (set_test) and the fold-in's scratch.
  int has_test;
  int32_t test_words, test_docs;
  int64_t observed_tokens, heldout_tokens;
  sk_lda_gpu_buf obs_tokens, obs_offsets, held_tokens, held_offsets, order, z, doc_ll, next_doc;
  sk_lda_gpu_buf inv, scratch;
  double *h_doc_ll;
};

namespace {

// --- device helpers -------------------------------------------------------------------------------------

// The block's sum of s (blockDim.x == kJointThreads) in a fixed tree; valid in thread 0 (0 elsewhere).
__device__ double block_sum(double s, double *tree) {
  tree[threadIdx.x] = s;
  for (int stride = kJointThreads / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if ((int)threadIdx.x < stride) tree[threadIdx.x] = __dadd_rn(tree[threadIdx.x], tree[threadIdx.x + stride]);
  }
  return threadIdx.x == 0 ? tree[0] : 0.0;  // tree[0] is thread 0's own last write
}

// The warp's sum of s by a butterfly: IEEE addition is commutative, so every lane gets the same bits.
__device__ __forceinline__ double warp_sum(double s) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) s = __dadd_rn(s, __shfl_xor_sync(kFullMask, s, m));
  return s;
}

// The sum of x over this lane and the lanes below it (Kogge-Stone, a fixed order).
__device__ __forceinline__ double warp_inclusive_sum(double x, int lane) {
#pragma unroll
  for (int delta = 1; delta < 32; delta <<= 1) {
    const double y = __shfl_up_sync(kFullMask, x, delta);
    if (lane >= delta) x = __dadd_rn(x, y);
  }
  return x;
}

// --- joint log-likelihood -------------------------------------------------------------------------------

struct joint_params {
  const int32_t *b;
  const unsigned long long *n_k;
  const int32_t *doc_offsets, *a_offsets;
  const uint32_t *a_count;
  int64_t num_b;          // V K
  int64_t pair_slots;     // T: A never has more pairs than tokens; a_offsets[D] says how many it has
  int32_t num_docs, num_topics;
  int64_t blocks_b, blocks_p, blocks_d;  // the blocks of B's terms, then A's, the documents', the topics'
  double alpha, beta, kalpha, vbeta;     // kalpha = (double)K alpha, vbeta = (double)V beta, as metrics.c
  double lg_alpha, lg_beta, lg_kalpha, lg_vbeta;
};

// One partial sum per block of the terms of sk_lda_joint_ll_per_token(): lgamma(n_vk + beta) - lgamma(beta)
// per nonzero n_vk, lgamma(n_dk + alpha) - lgamma(alpha) per pair of A, lgamma(K alpha) - lgamma(K alpha + n_d)
// per document, lgamma(V beta) - lgamma(V beta + n_k) per topic.
__global__ void joint_terms_kernel(joint_params p, double *partials) {
  __shared__ double tree[kJointThreads];
  const int64_t block = blockIdx.x;
  double s = 0.0;
  if (block < p.blocks_b) {
    const int64_t base = block * kJointBlockTerms;
#pragma unroll
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t i = base + (int64_t)j * kJointThreads + threadIdx.x;
      const int32_t c = i < p.num_b ? p.b[i] : 0;
      if (c != 0) s = __dadd_rn(s, __dsub_rn(lgamma(__dadd_rn((double)c, p.beta)), p.lg_beta));
    }
  } else if (block < p.blocks_b + p.blocks_p) {
    const int64_t base = (block - p.blocks_b) * kJointBlockTerms;
    const int64_t pairs = p.a_offsets[p.num_docs];
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t i = base + (int64_t)j * kJointThreads + threadIdx.x;
      if (i < pairs) s = __dadd_rn(s, __dsub_rn(lgamma(__dadd_rn((double)p.a_count[i], p.alpha)), p.lg_alpha));
    }
  } else if (block < p.blocks_b + p.blocks_p + p.blocks_d) {
    const int64_t base = (block - p.blocks_b - p.blocks_p) * kJointBlockTerms;
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t d = base + (int64_t)j * kJointThreads + threadIdx.x;
      if (d < p.num_docs) {
        const int32_t n = p.doc_offsets[d + 1] - p.doc_offsets[d];
        s = __dadd_rn(s, __dsub_rn(p.lg_kalpha, lgamma(__dadd_rn(p.kalpha, (double)n))));
      }
    }
  } else {
    const int64_t base = (block - p.blocks_b - p.blocks_p - p.blocks_d) * kJointBlockTerms;
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t k = base + (int64_t)j * kJointThreads + threadIdx.x;
      if (k < p.num_topics)
        s = __dadd_rn(s, __dsub_rn(p.lg_vbeta, lgamma(__dadd_rn(p.vbeta, (double)(long long)p.n_k[k]))));
    }
  }
  s = block_sum(s, tree);
  if (threadIdx.x == 0) partials[block] = s;
}

// *out = the sum of partials[0 .. n), in a fixed order (one block).
__global__ void sum_kernel(const double *partials, int64_t n, double *out) {
  __shared__ double tree[kJointThreads];
  double s = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += kJointThreads) s = __dadd_rn(s, partials[i]);
  s = block_sum(s, tree);
  if (threadIdx.x == 0) *out = s;
}

// --- held-out log-likelihood ----------------------------------------------------------------------------

struct fold_params {
  const int32_t *obs_tokens, *held_tokens;
  const int64_t *obs_offsets, *held_offsets;  // D + 1 each
  const int32_t *order;                       // the documents, longest first
  int32_t num_docs, num_topics, num_tiles;    // num_tiles = ceil(K / kFoldTile)
  int32_t *z;                                 // the observed tokens' fold-in topics
  const int32_t *b;                           // B, V x K
  const double *inv;                          // 1 / (n_k + V beta), K
  double alpha, beta, kalpha;
  uint64_t seed;
  int iters;
  unsigned *next_doc;  // the next entry of order to take
  double *doc_ll;      // per document: the sum of its held-out tokens' log-likelihoods
  char *scratch;       // global scratch (warp_bytes a warp) when it does not fit in shared memory
  size_t warp_bytes;   // a warp's scratch: tile_end, nda, ndk (a multiple of 16)
  size_t inv_bytes;    // the block's copy of inv in shared memory (a multiple of 16)
};

// A warp's scratch: tile_end (num_tiles running sums), nda (K doubles: n_dk + alpha), ndk (K counts).
struct fold_scratch {
  double *tile_end, *nda;
  int32_t *ndk;
  const double *inv;  // 1 / (n_k + V beta): the block's copy in shared memory, or p.inv
};

// One term of the fold-in's distribution, as metrics.c: ((double)n_dk + alpha) * (((double)n_vk + beta) * inv_k),
// with b = n_vk of the token's word.
__device__ __forceinline__ double fold_term(const fold_params &p, const fold_scratch &s, int32_t b, int32_t k) {
  return __dmul_rn(s.nda[k], __dmul_rn(__dadd_rn((double)b, p.beta), s.inv[k]));
}

// The totals of eight tiles at once, v[t] being this lane's sum of its terms of tile t: three halving
// exchanges (xor 16, 8, 4) leave lane l with tile (l >> 2) & 7 summed over eight lanes, two butterfly
// steps (xor 2, 1) finish it on the four lanes that share it, and tile t's total is gathered from lane
// 4t: 17 double shuffles where eight warp sums take 40. A fixed tree: every lane gets every total, with
// the same bits on every call.
__device__ __forceinline__ void warp_sum8(double (&v)[8], int lane) {
#pragma unroll
  for (int half = 4, bit = 16; half > 0; half >>= 1, bit >>= 1) {
    const bool high = (lane & bit) != 0;  // keeps the upper half of its values, sends the lower
#pragma unroll
    for (int i = 0; i < half; ++i) {
      const double send = high ? v[i] : v[i + half], keep = high ? v[i + half] : v[i];
      v[i] = __dadd_rn(keep, __shfl_xor_sync(kFullMask, send, bit));
    }
  }
  double total = __dadd_rn(v[0], __shfl_xor_sync(kFullMask, v[0], 2));
  total = __dadd_rn(total, __shfl_xor_sync(kFullMask, total, 1));
#pragma unroll
  for (int t = 0; t < 8; ++t) v[t] = __shfl_sync(kFullMask, total, 4 * t);
}

// Pass 2 of a draw: the first topic of tile `tile` whose running sum, from `before` (the sum of the
// tiles below) through the tile's four rows of 32 topics in order, exceeds x; the tile's last topic when
// rounding leaves none. bt[j] is n_vk of topic tile * 128 + j * 32 + lane. Every lane calls and gets it.
__device__ __forceinline__ int32_t fold_search_tile(const fold_params &p, const fold_scratch &s,
                                                    const int32_t (&bt)[kFoldPerLane], int32_t tile, double before,
                                                    double x, int lane) {
  const int32_t K = p.num_topics, base = tile * kFoldTile;
  int32_t topic = min(base + kFoldTile, K) - 1;
#pragma unroll
  for (int j = 0; j < kFoldPerLane; ++j) {
    if (base + j * 32 >= K) break;
    const int32_t k = base + j * 32 + lane;
    const double end = __dadd_rn(before, warp_inclusive_sum(k < K ? fold_term(p, s, bt[j], k) : 0.0, lane));
    const unsigned hit = __ballot_sync(kFullMask, k < K && end > x);
    if (hit != 0) {
      topic = base + j * 32 + __ffs(hit) - 1;
      break;
    }
    before = __shfl_sync(kFullMask, end, 31);
  }
  return topic;
}

// A draw is the first k whose running sum of the terms exceeds x = u W, W their total, as
// sk_lda_detail_fold_in_doc(). Pass 1 sums the tiles of 128 topics (lane l takes topics l, l + 32,
// l + 64, l + 96 of a tile, so that every load is coalesced) eight at a time (warp_sum8) and keeps the
// running sum at each tile's end; pass 2 (fold_search_tile) walks the first tile that ends above x.
// Where rounding leaves x above every running sum, the last topic (as the CPU's rule). The two ways
// below add in the same order and give the same bits; they differ in where the word's row of B and the
// tile ends are held.

// A word's row of B, eight tiles of it: lane l holds topic t * 128 + j * 32 + l at v[t * 4 + j].
constexpr int kRowTiles = 8;
constexpr int kRowRegs = kRowTiles * kFoldPerLane;
struct b_row_regs {
  int32_t v[kRowRegs];
};

// Loads topics [0, min(K, 1024)) of b_row (0 above K), every load in flight at once.
__device__ __forceinline__ void load_row(b_row_regs &r, const int32_t *b_row, int32_t K, int lane) {
#pragma unroll
  for (int i = 0; i < kRowRegs; ++i) {
    const int32_t k = (i / kFoldPerLane) * kFoldTile + (i % kFoldPerLane) * 32 + lane;
    r.v[i] = k < K ? __ldg(b_row + k) : 0;
  }
}

// The totals of the tiles c .. c + 7 of a row whose topics from c * 128 on are in r (0 for tiles at or
// above num_tiles).
__device__ __forceinline__ void tile_totals(const fold_params &p, const fold_scratch &s, const b_row_regs &r,
                                            int32_t c, double (&v)[kRowTiles], int lane) {
#pragma unroll
  for (int t = 0; t < kRowTiles; ++t) {
    v[t] = 0.0;
#pragma unroll
    for (int j = 0; j < kFoldPerLane; ++j) {
      const int32_t k = (c + t) * kFoldTile + j * 32 + lane;
      if (k < p.num_topics) v[t] = __dadd_rn(v[t], fold_term(p, s, r.v[t * kFoldPerLane + j], k));
    }
  }
  warp_sum8(v, lane);
}

// The register way, for K <= 1024: the row in registers, the tile ends too (lane t holds tile t's).
__device__ __forceinline__ int32_t fold_draw_regs(const fold_params &p, const fold_scratch &s, const b_row_regs &r,
                                                  double u, int lane) {
  double v[kRowTiles];
  tile_totals(p, s, r, 0, v, lane);
  double run = 0.0, my_end = 0.0;
#pragma unroll
  for (int t = 0; t < kRowTiles; ++t) {
    run = __dadd_rn(run, v[t]);  // + 0 above the last tile: the same bits
    if (lane == t) my_end = run;
  }
  const double x = __dmul_rn(u, run);
  const unsigned hit = __ballot_sync(kFullMask, lane < p.num_tiles && my_end > x);
  const int32_t tile = hit != 0 ? __ffs(hit) - 1 : p.num_tiles - 1;
  const double end_below = __shfl_sync(kFullMask, my_end, tile > 0 ? tile - 1 : 0);
  int32_t bt[kFoldPerLane];
#pragma unroll
  for (int j = 0; j < kFoldPerLane; ++j) {
    bt[j] = r.v[j];
#pragma unroll
    for (int t = 1; t < kRowTiles; ++t)
      if (t == tile) bt[j] = r.v[t * kFoldPerLane + j];  // a select, not an indexed (local memory) load
  }
  return fold_search_tile(p, s, bt, tile, tile > 0 ? end_below : 0.0, x, lane);
}

// The memory way, for any K: the row read from global memory eight tiles at a time, the tile ends in
// the warp's scratch.
__device__ __forceinline__ int32_t fold_draw_mem(const fold_params &p, const fold_scratch &s, const int32_t *b_row,
                                                 double u, int lane) {
  const int32_t K = p.num_topics;
  double run = 0.0;
  for (int32_t c = 0; c < p.num_tiles; c += kRowTiles) {
    b_row_regs r;
    load_row(r, b_row + (size_t)c * kFoldTile, K - c * kFoldTile, lane);
    double v[kRowTiles];
    tile_totals(p, s, r, c, v, lane);
#pragma unroll
    for (int t = 0; t < kRowTiles; ++t) {
      run = __dadd_rn(run, v[t]);
      if (lane == 0 && c + t < p.num_tiles) s.tile_end[c + t] = run;
    }
  }
  __syncwarp();
  const double x = __dmul_rn(u, run);
  int32_t tile = p.num_tiles - 1;
  for (int32_t t0 = 0; t0 < p.num_tiles; t0 += 32) {
    const int32_t t = t0 + lane;
    const unsigned hit = __ballot_sync(kFullMask, t < p.num_tiles && s.tile_end[t] > x);
    if (hit != 0) {
      tile = t0 + __ffs(hit) - 1;
      break;
    }
  }
  const double before = tile > 0 ? s.tile_end[tile - 1] : 0.0;
  int32_t bt[kFoldPerLane];
#pragma unroll
  for (int j = 0; j < kFoldPerLane; ++j) {
    const int32_t k = tile * kFoldTile + j * 32 + lane;
    bt[j] = k < K ? __ldg(b_row + k) : 0;
  }
  return fold_search_tile(p, s, bt, tile, before, x, lane);
}

// sk_lda_detail_uniform_index(): floor(u n) clamped to n - 1.
__device__ __forceinline__ int32_t uniform_index(double u, int32_t n) {
  const int64_t i = (int64_t)__dmul_rn(u, (double)n);
  return (int32_t)(i >= n ? n - 1 : i);
}

// The fold-in of one document's observed half, tokens [first, first + n): sk_lda_detail_fold_in_doc()
// with the counts in the warp's scratch (s.ndk, and s.nda = n_dk + alpha as the terms take it).
template <bool kRegRow>
__device__ __forceinline__ void fold_in(const fold_params &p, const fold_scratch &s, int64_t first, int64_t n,
                                        int lane) {
  const int32_t K = p.num_topics;
  for (int32_t k = lane; k < K; k += 32) s.ndk[k] = 0;
  __syncwarp();
  for (int64_t i = lane; i < n; i += 32) {
    const int32_t k =
        uniform_index(sk_rng_uniform_f64(p.seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)(first + i)), K);
    p.z[first + i] = k;
    atomicAdd(&s.ndk[k], 1);
  }
  __syncwarp();
  for (int32_t k = lane; k < K; k += 32) s.nda[k] = __dadd_rn((double)s.ndk[k], p.alpha);
  __syncwarp();
  for (int it = 0; it < p.iters; ++it) {
    const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)it);
    for (int64_t i0 = 0; i0 < n; i0 += 32) {
      // The next 32 tokens' uniforms, words and topics, a token a lane, handed out by shuffles: a
      // token's topic changes only at its own draw, so reading it ahead is exact.
      const bool mine = i0 + lane < n;
      const double u_lane = mine ? sk_rng_uniform_f64(p.seed, stream, (uint64_t)(first + i0 + lane)) : 0.0;
      const int32_t w_lane = mine ? p.obs_tokens[first + i0 + lane] : 0;
      const int32_t z_lane = mine ? p.z[first + i0 + lane] : 0;
      const int32_t m = (int32_t)(n - i0 < 32 ? n - i0 : 32);
      for (int32_t j = 0; j < m; ++j) {
        const double u = __shfl_sync(kFullMask, u_lane, j);
        const int32_t old = __shfl_sync(kFullMask, z_lane, j), w = __shfl_sync(kFullMask, w_lane, j);
        const int32_t *b_row = p.b + (size_t)w * (size_t)K;
        [[maybe_unused]] b_row_regs row;
        if constexpr (kRegRow) load_row(row, b_row, K, lane);  // every load in flight at once
        if (lane == 0) s.nda[old] = __dadd_rn((double)--s.ndk[old], p.alpha);
        __syncwarp();
        int32_t k;
        if constexpr (kRegRow)
          k = fold_draw_regs(p, s, row, u, lane);
        else
          k = fold_draw_mem(p, s, b_row, u, lane);
        __syncwarp();  // every lane has read nda (and tile_end) before lane 0 changes them
        if (lane == 0) {
          p.z[first + i0 + j] = k;
          s.nda[k] = __dadd_rn((double)++s.ndk[k], p.alpha);
        }
        __syncwarp();
      }
    }
  }
}

// Document d: the fold-in of its observed half, then the score of its held-out half (metrics.c's
// sk_lda_heldout_visit(): theta_k = (n_dk + alpha) / (n_d + K alpha), each held-out token adds
// log sum_k theta_k phi_k(w), the lanes summing topics k = lane, lane + 32, ... as the register way
// holds them) into doc_ll[d]. Every lane of the warp calls.
template <bool kRegRow>
__device__ __forceinline__ void fold_in_and_score(const fold_params &p, const fold_scratch &s, int32_t d, int lane) {
  const int32_t K = p.num_topics;
  const int64_t first = p.obs_offsets[d], n = p.obs_offsets[d + 1] - first;
  fold_in<kRegRow>(p, s, first, n, lane);
  const double norm = __ddiv_rn(1.0, __dadd_rn((double)n, p.kalpha));
  const int64_t h0 = p.held_offsets[d], h1 = p.held_offsets[d + 1];
  double ll = 0.0;
  for (int64_t t = h0; t < h1; ++t) {
    const int32_t *b_row = p.b + (size_t)p.held_tokens[t] * (size_t)K;
    double prob = 0.0;
    if constexpr (kRegRow) {
      b_row_regs row;
      load_row(row, b_row, K, lane);
#pragma unroll
      for (int i = 0; i < kRowRegs; ++i) {
        const int32_t k = i * 32 + lane;
        if (k < K)
          prob = __dadd_rn(prob, __dmul_rn(__dmul_rn(s.nda[k], norm),
                                           __dmul_rn(__dadd_rn((double)row.v[i], p.beta), s.inv[k])));
      }
    } else {
      for (int32_t k = lane; k < K; k += 32)
        prob = __dadd_rn(prob, __dmul_rn(__dmul_rn(s.nda[k], norm),
                                         __dmul_rn(__dadd_rn((double)__ldg(b_row + k), p.beta), s.inv[k])));
    }
    ll = __dadd_rn(ll, log(warp_sum(prob)));
  }
  if (lane == 0) p.doc_ll[d] = ll;
  __syncwarp();  // every lane is done with the scratch before the next document clears it
}

// A persistent grid: each warp takes the next document of `order` (an integer atomic counter) until
// none is left. kShared: the block's copy of inv (inv_bytes) and the warps' scratch are in dynamic
// shared memory, else inv is read from p.inv and the scratch is p.scratch; kRegRow: the register way
// (K <= 1024), else the memory way.
template <bool kShared, bool kRegRow>
__global__ void __launch_bounds__(kFoldWarps * 32, kFoldMinBlocks) heldout_kernel(fold_params p) {
  extern __shared__ double fold_shared[];
  const int lane = sk_lane_id();
  const int warp = (int)(threadIdx.x / 32);
  fold_scratch s;
  char *base;
  if constexpr (kShared) {
    for (int32_t k = (int32_t)threadIdx.x; k < p.num_topics; k += (int32_t)blockDim.x) fold_shared[k] = p.inv[k];
    __syncthreads();
    s.inv = fold_shared;
    base = (char *)fold_shared + p.inv_bytes + (size_t)warp * p.warp_bytes;
  } else {
    s.inv = p.inv;
    base = p.scratch + ((size_t)blockIdx.x * (blockDim.x / 32) + (size_t)warp) * p.warp_bytes;
  }
  s.tile_end = (double *)base;
  s.nda = s.tile_end + p.num_tiles;
  s.ndk = (int32_t *)(s.nda + p.num_topics);
  for (;;) {
    unsigned next = 0;
    if (lane == 0) next = atomicAdd(p.next_doc, 1u);
    next = __shfl_sync(kFullMask, next, 0);
    if (next >= (unsigned)p.num_docs) return;
    fold_in_and_score<kRegRow>(p, s, p.order[next], lane);
  }
}

// inv[k] = 1 / (n_k + V beta), as sk_lda_detail_fold_in_docs().
__global__ void inv_kernel(const unsigned long long *n_k, int32_t num_topics, double vbeta, double *inv) {
  const int32_t k = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < num_topics) inv[k] = __ddiv_rn(1.0, __dadd_rn((double)(long long)n_k[k], vbeta));
}

// --- host helpers -----------------------------------------------------------------------------------------

void buf_free(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b) {
  if (b->ptr != NULL) {
    (void)cudaFree(b->ptr);  // after a fault every free fails the same way: nothing to report
    g->bytes -= (int64_t)b->bytes;
  }
  b->ptr = NULL;
  b->bytes = 0;
}

// Makes b hold at least `bytes` (at least 1), reallocating when it is smaller; the old contents go.
int buf_reserve(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b, size_t bytes, const char *what, sk_lda_error *err) {
  if (bytes == 0) bytes = 1;
  if (b->ptr != NULL && b->bytes >= bytes) return 0;
  buf_free(g, b);
  SK_LDA_CUDA_TRY(cudaMalloc(&b->ptr, bytes), what);
  b->bytes = bytes;
  g->bytes += (int64_t)bytes;
  if (g->bytes > g->peak) g->peak = g->bytes;
  return 0;
}

int buf_upload(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b, const void *h, size_t bytes, const char *what,
               sk_lda_error *err) {
  if (buf_reserve(g, b, bytes, what, err) != 0) return 1;
  if (bytes > 0) SK_LDA_CUDA_TRY(cudaMemcpy(b->ptr, h, bytes, cudaMemcpyHostToDevice), what);
  return 0;
}

void free_test(sk_lda_gpu_metrics *g) {
  sk_lda_gpu_buf *bufs[] = {&g->obs_tokens, &g->obs_offsets, &g->held_tokens, &g->held_offsets,
                            &g->order,      &g->z,           &g->doc_ll,      &g->next_doc};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) buf_free(g, bufs[i]);
  free(g->h_doc_ll);
  g->h_doc_ll = NULL;
  g->has_test = 0;
}

int check_counts(const sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, const char *what, sk_lda_error *err) {
  if (c->b == NULL || c->n_k == NULL || c->doc_offsets == NULL || c->a_offsets == NULL || c->a_count == NULL)
    return sk_lda_fail(err, "GPU metrics: %s: a device pointer of the counts is NULL", what);
  if (c->gpu != g->gpu)
    return sk_lda_fail(err, "GPU metrics: %s: the counts are on GPU %d, the context on GPU %d", what, c->gpu, g->gpu);
  if (c->num_topics < 1 || c->num_words < 1 || c->num_docs < 0 || c->num_tokens < 0)
    return sk_lda_fail(err, "GPU metrics: %s: the counts' sizes are invalid (K %d, V %d, D %d, T %lld)", what,
                       (int)c->num_topics, (int)c->num_words, (int)c->num_docs, (long long)c->num_tokens);
  return 0;
}

// The documents in the order the warps take them: longest first (observed and held-out tokens
// together), ties by index, so that the long ones do not start last.
struct doc_key {
  int64_t tokens;
  int32_t doc;
};

int by_length_desc(const void *a, const void *b) {
  const doc_key *x = (const doc_key *)a, *y = (const doc_key *)b;
  if (x->tokens != y->tokens) return x->tokens > y->tokens ? -1 : 1;
  return x->doc < y->doc ? -1 : (x->doc > y->doc ? 1 : 0);
}

}  // namespace

extern "C" int sk_lda_gpu_metrics_create(int gpu, sk_lda_gpu_metrics **out, sk_lda_error *err) {
  if (out == NULL) return sk_lda_fail(err, "GPU metrics: out is NULL");
  *out = NULL;
  int sms = 0, optin = 0;
  cudaError_t e = cudaSetDevice(gpu);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // reported here: not again by the next launch check of whoever goes on
    return sk_lda_cuda_fail(err, SK_LDA_CUDA_SCOPE, "selecting the GPU", e);
  }
  sk_lda_gpu_metrics *g = (sk_lda_gpu_metrics *)calloc(1, sizeof *g);
  if (g == NULL) return sk_lda_fail(err, "GPU metrics: out of host memory");
  g->gpu = gpu;
  g->sm_count = sms > 0 ? sms : 1;
  g->shared_optin = (size_t)(optin > 0 ? optin : 0);
  *out = g;
  return 0;
}

extern "C" int sk_lda_gpu_metrics_set_test(sk_lda_gpu_metrics *g, const sk_lda_corpus *observed,
                                           const sk_lda_corpus *heldout, int32_t num_words, sk_lda_error *err) {
  if (g == NULL || observed == NULL || heldout == NULL)
    return sk_lda_fail(err, "GPU metrics: test halves: a pointer is NULL");
  SK_LDA_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  free_test(g);
  if (observed->num_docs != heldout->num_docs)
    return sk_lda_fail(err, "GPU metrics: %d observed halves but %d held-out halves", (int)observed->num_docs,
                       (int)heldout->num_docs);
  const int32_t D = observed->num_docs;
  const sk_lda_corpus *halves[2] = {observed, heldout};
  for (int h = 0; h < 2; ++h) {
    const sk_lda_corpus *c = halves[h];
    const char *name = h == 0 ? "observed" : "held-out";
    if (D < 0 || c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL) || c->doc_offsets[0] != 0 ||
        c->doc_offsets[D] != c->num_tokens)
      return sk_lda_fail(err, "GPU metrics: the %s corpus is inconsistent", name);
    for (int32_t d = 0; d < D; ++d)
      if (c->doc_offsets[d + 1] < c->doc_offsets[d])
        return sk_lda_fail(err, "GPU metrics: %s offsets decrease at document %d", name, (int)d);
    for (int64_t t = 0; t < c->num_tokens; ++t)
      if (c->tokens[t] < 0 || c->tokens[t] >= num_words)
        return sk_lda_fail(err, "GPU metrics: %s token %lld has word id %d outside 0..%d", name, (long long)t,
                           (int)c->tokens[t], (int)num_words - 1);
  }
  doc_key *keys = (doc_key *)malloc((size_t)(D > 0 ? D : 1) * sizeof *keys);
  int32_t *order = (int32_t *)malloc((size_t)(D > 0 ? D : 1) * sizeof *order);
  g->h_doc_ll = (double *)malloc((size_t)(D > 0 ? D : 1) * sizeof *g->h_doc_ll);
  if (keys == NULL || order == NULL || g->h_doc_ll == NULL) {
    free(keys);
    free(order);
    free_test(g);
    return sk_lda_fail(err, "GPU metrics: out of host memory for %d test documents", (int)D);
  }
  for (int32_t d = 0; d < D; ++d) {
    keys[d].tokens = observed->doc_offsets[d + 1] - observed->doc_offsets[d] + heldout->doc_offsets[d + 1] -
                     heldout->doc_offsets[d];
    keys[d].doc = d;
  }
  qsort(keys, (size_t)D, sizeof *keys, by_length_desc);
  for (int32_t d = 0; d < D; ++d) order[d] = keys[d].doc;
  free(keys);
  const size_t To = (size_t)observed->num_tokens, Th = (size_t)heldout->num_tokens, Dn = (size_t)D;
  const int failed =
      buf_upload(g, &g->obs_tokens, observed->tokens, To * sizeof(int32_t), "copying the observed halves", err) ||
      buf_upload(g, &g->obs_offsets, observed->doc_offsets, (Dn + 1) * sizeof(int64_t), "copying the observed halves",
                 err) ||
      buf_upload(g, &g->held_tokens, heldout->tokens, Th * sizeof(int32_t), "copying the held-out halves", err) ||
      buf_upload(g, &g->held_offsets, heldout->doc_offsets, (Dn + 1) * sizeof(int64_t), "copying the held-out halves",
                 err) ||
      buf_upload(g, &g->order, order, Dn * sizeof(int32_t), "copying the document order", err) ||
      buf_reserve(g, &g->z, To * sizeof(int32_t), "allocating the fold-in topics", err) ||
      buf_reserve(g, &g->doc_ll, Dn * sizeof(double), "allocating the document scores", err) ||
      buf_reserve(g, &g->next_doc, sizeof(unsigned), "allocating the document counter", err);
  free(order);
  if (failed) {
    free_test(g);
    return 1;
  }
  g->has_test = 1;
  g->test_words = num_words;
  g->test_docs = D;
  g->observed_tokens = observed->num_tokens;
  g->heldout_tokens = heldout->num_tokens;
  return 0;
}

extern "C" int sk_lda_gpu_metrics_joint_ll(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, double *ll_per_token,
                                           sk_lda_error *err) {
  if (g == NULL || c == NULL || ll_per_token == NULL) return sk_lda_fail(err, "GPU metrics: joint LL: a pointer is NULL");
  if (check_counts(g, c, "joint LL", err) != 0) return 1;
  if (c->num_tokens == 0) {
    *ll_per_token = NAN;  // as sk_lda_joint_ll_per_token()
    return 0;
  }
  SK_LDA_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  (void)cudaGetLastError();  // an error some earlier call already reported is not this call's
  joint_params p;
  p.b = c->b;
  p.n_k = c->n_k;
  p.doc_offsets = c->doc_offsets;
  p.a_offsets = c->a_offsets;
  p.a_count = c->a_count;
  p.num_b = (int64_t)c->num_words * (int64_t)c->num_topics;
  p.pair_slots = c->num_tokens;
  p.num_docs = c->num_docs;
  p.num_topics = c->num_topics;
  p.blocks_b = (p.num_b + kJointBlockTerms - 1) / kJointBlockTerms;
  p.blocks_p = (p.pair_slots + kJointBlockTerms - 1) / kJointBlockTerms;
  p.blocks_d = ((int64_t)p.num_docs + kJointBlockTerms - 1) / kJointBlockTerms;
  const int64_t blocks_k = ((int64_t)p.num_topics + kJointBlockTerms - 1) / kJointBlockTerms;
  const int64_t blocks = p.blocks_b + p.blocks_p + p.blocks_d + blocks_k;
  p.alpha = c->alpha;
  p.beta = c->beta;
  p.kalpha = (double)c->num_topics * c->alpha;
  p.vbeta = (double)c->num_words * c->beta;
  // The constants from the C library, as metrics.c takes them (lgamma writes signgam: one caller at a time).
  p.lg_alpha = lgamma(c->alpha);
  p.lg_beta = lgamma(c->beta);
  p.lg_kalpha = lgamma(p.kalpha);
  p.lg_vbeta = lgamma(p.vbeta);
  if (blocks > INT32_MAX) return sk_lda_fail(err, "GPU metrics: joint LL: %lld blocks of terms", (long long)blocks);
  if (buf_reserve(g, &g->partials, (size_t)(blocks + 1) * sizeof(double), "allocating the partial sums", err) != 0)
    return 1;
  double *partials = (double *)g->partials.ptr;
  joint_terms_kernel<<<(unsigned)blocks, kJointThreads>>>(p, partials);
  SK_LDA_LAUNCH_CHECK("summing the joint LL's terms");
  sum_kernel<<<1, kJointThreads>>>(partials, blocks, partials + blocks);
  SK_LDA_LAUNCH_CHECK("summing the joint LL's partial sums");
  double sum = 0.0;
  SK_LDA_CUDA_TRY(cudaMemcpy(&sum, partials + blocks, sizeof sum, cudaMemcpyDeviceToHost), "computing the joint LL");
  *ll_per_token = sum / (double)c->num_tokens;
  return 0;
}

extern "C" int sk_lda_gpu_metrics_heldout_ll(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, int fold_in_iters,
                                             double *ll_per_token, sk_lda_error *err) {
  if (g == NULL || c == NULL || ll_per_token == NULL)
    return sk_lda_fail(err, "GPU metrics: held-out LL: a pointer is NULL");
  if (check_counts(g, c, "held-out LL", err) != 0) return 1;
  if (!g->has_test) return sk_lda_fail(err, "GPU metrics: held-out LL: no test halves (sk_lda_gpu_metrics_set_test)");
  if (g->test_words != c->num_words)
    return sk_lda_fail(err, "GPU metrics: held-out LL: the test halves were checked against V = %d, the counts have V = %d",
                       (int)g->test_words, (int)c->num_words);
  if (fold_in_iters < 0) return sk_lda_fail(err, "GPU metrics: held-out LL: %d fold-in iterations", fold_in_iters);
  if (g->heldout_tokens == 0) {
    *ll_per_token = NAN;  // as sk_lda_heldout_ll()
    return 0;
  }
  SK_LDA_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  (void)cudaGetLastError();  // an error some earlier call already reported is not this call's
  const int32_t K = c->num_topics;
  const double vbeta = (double)c->num_words * c->beta;
  if (buf_reserve(g, &g->inv, (size_t)K * sizeof(double), "allocating 1 / (n_k + V beta)", err) != 0) return 1;
  inv_kernel<<<(unsigned)((K + 255) / 256), 256>>>(c->n_k, K, vbeta, (double *)g->inv.ptr);
  SK_LDA_LAUNCH_CHECK("computing 1 / (n_k + V beta)");

  fold_params p;
  memset(&p, 0, sizeof p);
  p.obs_tokens = (const int32_t *)g->obs_tokens.ptr;
  p.held_tokens = (const int32_t *)g->held_tokens.ptr;
  p.obs_offsets = (const int64_t *)g->obs_offsets.ptr;
  p.held_offsets = (const int64_t *)g->held_offsets.ptr;
  p.order = (const int32_t *)g->order.ptr;
  p.num_docs = g->test_docs;
  p.num_topics = K;
  p.num_tiles = (K + kFoldTile - 1) / kFoldTile;
  p.z = (int32_t *)g->z.ptr;
  p.b = c->b;
  p.inv = (const double *)g->inv.ptr;
  p.alpha = c->alpha;
  p.beta = c->beta;
  p.kalpha = (double)K * c->alpha;
  p.seed = c->seed;
  p.iters = fold_in_iters;
  p.next_doc = (unsigned *)g->next_doc.ptr;
  p.doc_ll = (double *)g->doc_ll.ptr;
  p.warp_bytes = ((size_t)p.num_tiles * sizeof(double) + (size_t)K * (sizeof(double) + sizeof(int32_t)) + 15) / 16 * 16;
  p.inv_bytes = ((size_t)K * sizeof(double) + 15) / 16 * 16;

  // Shared memory while inv and a warp's scratch fit (as many warps a block as fit, up to 8), else
  // global scratch; a grid of as many blocks as can be resident, or fewer.
  int warps = kFoldWarps;
  bool shared = p.warp_bytes <= kFoldSharedMax && p.inv_bytes + p.warp_bytes <= g->shared_optin;
  if (shared) {
    const size_t fit = (g->shared_optin - p.inv_bytes) / p.warp_bytes;
    if (fit < (size_t)warps) warps = (int)fit;
  }
  size_t shared_bytes = p.inv_bytes + (size_t)warps * p.warp_bytes;
  int per_sm = 0;
  void (*kernel)(fold_params) = p.num_tiles <= kRowTiles ? heldout_kernel<true, true> : heldout_kernel<true, false>;
  if (shared) {
    SK_LDA_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes),
                    "sizing the fold-in's shared memory");
    SK_LDA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, shared_bytes),
                    "sizing the fold-in's grid");
    shared = per_sm > 0;
  }
  if (!shared) {
    warps = kFoldWarps;
    shared_bytes = 0;
    kernel = heldout_kernel<false, false>;
    SK_LDA_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, 0),
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
    if (buf_reserve(g, &g->scratch, (size_t)blocks * (size_t)warps * p.warp_bytes, "allocating the fold-in's scratch",
                    err) != 0)
      return 1;
    p.scratch = (char *)g->scratch.ptr;
  }
  SK_LDA_CUDA_TRY(cudaMemsetAsync(p.next_doc, 0, sizeof(unsigned), 0), "starting the fold-in");
  if (blocks > 0) {
    kernel<<<(unsigned)blocks, warps * 32, shared_bytes>>>(p);
    SK_LDA_LAUNCH_CHECK("folding in the test documents");
  }
  const size_t D = (size_t)g->test_docs;
  if (D > 0)
    SK_LDA_CUDA_TRY(cudaMemcpy(g->h_doc_ll, p.doc_ll, D * sizeof(double), cudaMemcpyDeviceToHost),
                    "computing the held-out LL");
  double sum = 0.0;  // in document order, as metrics.c
  for (size_t d = 0; d < D; ++d) sum += g->h_doc_ll[d];
  *ll_per_token = sum / (double)g->heldout_tokens;
  return 0;
}

extern "C" int64_t sk_lda_gpu_metrics_device_bytes(const sk_lda_gpu_metrics *g) { return g != NULL ? g->bytes : 0; }

extern "C" int64_t sk_lda_gpu_metrics_device_bytes_peak(const sk_lda_gpu_metrics *g) {
  return g != NULL ? g->peak : 0;
}

extern "C" void sk_lda_gpu_metrics_destroy(sk_lda_gpu_metrics *g) {
  if (g == NULL) return;
  (void)cudaSetDevice(g->gpu);  // the allocations belong to it; when this fails, so do the frees
  free_test(g);
  buf_free(g, &g->partials);
  buf_free(g, &g->inv);
  buf_free(g, &g->scratch);
  free(g);
}
