// sk-lda's held-out log-likelihood on the GPU (sk_lda_gpu_metrics_heldout_ll() of metrics_gpu.h): the
// fold-in of the test documents' observed halves and the score of their held-out halves, from the
// sampler's device counts, and its entry point.
//
// Every term, product and quotient is written with the _rn intrinsics in metrics.c's order, so nvcc
// cannot fuse a multiply and an add (metrics.c is C11 without -ffast-math: gcc does not contract
// either) and each one has the CPU's bits. The sums are where the two differ: the CPU adds
// sequentially, here each warp adds in a tree of a fixed shape (samplekit's warp sums and prefix
// search, whose orders are documented), which is as deterministic and, for long sums, more accurate.
#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu.h"
#include "gpu/metrics_gpu_internal.cuh"
#include "gpu/topic_inverse.cuh"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sample_prefix.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_vote.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

// Held-out fold-in: one warp per document. A draw's K terms are taken in tiles of 128 topics, four
// consecutive topics a lane (each lane sums its four in order, the warp adds the 32 lane sums).
constexpr int kFoldPerLane = 4;
constexpr int kFoldTile = 32 * kFoldPerLane;
constexpr int kFoldWarps = 8;                        // warps per block, at most
constexpr int kFoldMinBlocks = 2;                    // blocks of 8 warps per multiprocessor the registers allow
constexpr size_t kFoldSharedMax = 48u << 10;         // per warp: larger scratch goes to global memory
constexpr size_t kFoldGlobalMax = (size_t)256 << 20; // all warps' global scratch together, at most

// --- held-out log-likelihood ----------------------------------------------------------------------------

struct fold_params {
  const int32_t *obs_tokens, *held_tokens;
  const int64_t *obs_offsets, *held_offsets;  // D + 1 each
  const int32_t *order;                       // the documents, longest first
  int32_t num_docs, num_topics, num_tiles;    // num_tiles = ceil(K / kFoldTile)
  int32_t *z;                                 // the observed tokens' fold-in topics
  const int32_t *b;                           // B, V x K
  const double *inv;                          // 1 / (n_k + V beta), K
  const double *alpha_k;                      // K per-topic priors, or NULL: alpha for every topic
  double alpha, beta, kalpha;                 // kalpha: K alpha, or sum_k alpha_k
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

// The terms of one tile as samplekit's prefix search reads them: entry i is topic base + i, whose n_vk
// the lane of rank i % 32 holds in bt[i / 32] (a select, not an indexed local-memory load).
struct tile_terms {
  const double *nda, *inv;
  double beta;
  int32_t base;
  int32_t bt[kFoldPerLane];
  __device__ __forceinline__ double operator()(int i) const {
    const int j = i >> 5;
    int32_t b = bt[0];
#pragma unroll
    for (int q = 1; q < kFoldPerLane; ++q)
      if (j == q) b = bt[q];
    const int32_t k = base + i;
    return __dmul_rn(nda[k], __dmul_rn(__dadd_rn((double)b, beta), inv[k]));  // fold_term()'s operations
  }
};

// Pass 2 of a draw: the first topic of tile `tile` whose running sum, from `before` (the sum of the
// tiles below) through the tile's four rows of 32 topics in order (Kogge-Stone within a row, the carry
// between rows: sk_warp_sample_prefix_from_by_f64's order), exceeds x; the tile's last topic when
// rounding leaves none (every term is positive, so that is samplekit's "last positive entry"). bt[j] is
// n_vk of topic tile * 128 + j * 32 + lane. Every lane calls and gets it.
__device__ __forceinline__ int32_t fold_search_tile(const fold_params &p, const fold_scratch &s,
                                                    const int32_t (&bt)[kFoldPerLane], int32_t tile, double before,
                                                    double x) {
  tile_terms terms;
  terms.nda = s.nda;
  terms.inv = s.inv;
  terms.beta = p.beta;
  terms.base = tile * kFoldTile;
#pragma unroll
  for (int j = 0; j < kFoldPerLane; ++j) terms.bt[j] = bt[j];
  const int n = min(kFoldTile, p.num_topics - terms.base);
  return terms.base + sk_warp_sample_prefix_from_by_f64<kFoldPerLane>(SK_FULL_MASK, terms, n, before, x);
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
  sk_warp_sums_f64(SK_FULL_MASK, v);  // each v[t] summed over the warp, in sk_warp_sum_f64()'s order
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
  const int first = sk_warp_first_lane(SK_FULL_MASK, lane < p.num_tiles && my_end > x);
  const int32_t tile = first >= 0 ? first : p.num_tiles - 1;
  const double end_below = sk_warp_broadcast_f64(SK_FULL_MASK, my_end, tile > 0 ? tile - 1 : 0);
  int32_t bt[kFoldPerLane];
#pragma unroll
  for (int j = 0; j < kFoldPerLane; ++j) {
    bt[j] = r.v[j];
#pragma unroll
    for (int t = 1; t < kRowTiles; ++t)
      if (t == tile) bt[j] = r.v[t * kFoldPerLane + j];  // a select, not an indexed (local memory) load
  }
  return fold_search_tile(p, s, bt, tile, tile > 0 ? end_below : 0.0, x);
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
    const int first = sk_warp_first_lane(SK_FULL_MASK, t < p.num_tiles && s.tile_end[t] > x);
    if (first >= 0) {
      tile = t0 + first;
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
  return fold_search_tile(p, s, bt, tile, before, x);
}

// sk_lda_detail_uniform_index(): floor(u n) clamped to n - 1.
__device__ __forceinline__ int32_t uniform_index(double u, int32_t n) {
  const int64_t i = (int64_t)__dmul_rn(u, (double)n);
  return (int32_t)(i >= n ? n - 1 : i);
}

// Topic k's document-topic prior.
__device__ __forceinline__ double prior_of(const fold_params &p, int32_t k) {
  return p.alpha_k != nullptr ? p.alpha_k[k] : p.alpha;
}

// The fold-in of one document's observed half, tokens [first, first + n): sk_lda_detail_fold_in_doc()
// with the counts in the warp's scratch (s.ndk, and s.nda = n_dk + alpha_k as the terms take it).
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
  for (int32_t k = lane; k < K; k += 32) s.nda[k] = __dadd_rn((double)s.ndk[k], prior_of(p, k));
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
        const double u = sk_warp_broadcast_f64(SK_FULL_MASK, u_lane, j);
        const int32_t old = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)z_lane, j);
        const int32_t w = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)w_lane, j);
        const int32_t *b_row = p.b + (size_t)w * (size_t)K;
        [[maybe_unused]] b_row_regs row;
        if constexpr (kRegRow) load_row(row, b_row, K, lane);  // every load in flight at once
        if (lane == 0) s.nda[old] = __dadd_rn((double)--s.ndk[old], prior_of(p, old));
        __syncwarp();
        int32_t k;
        if constexpr (kRegRow)
          k = fold_draw_regs(p, s, row, u, lane);
        else
          k = fold_draw_mem(p, s, b_row, u, lane);
        __syncwarp();  // every lane has read nda (and tile_end) before lane 0 changes them
        if (lane == 0) {
          p.z[first + i0 + j] = k;
          s.nda[k] = __dadd_rn((double)++s.ndk[k], prior_of(p, k));
        }
        __syncwarp();
      }
    }
  }
}

// Document d: the fold-in of its observed half, then the score of its held-out half (metrics.c's
// sk_lda_heldout_visit(): theta_k = (n_dk + alpha_k) / (n_d + sum_k alpha_k), each held-out token adds
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
    ll = __dadd_rn(ll, log(sk_warp_sum_f64(SK_FULL_MASK, prob)));
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
    next = sk_warp_broadcast_u32(SK_FULL_MASK, next, 0);
    if (next >= (unsigned)p.num_docs) return;
    fold_in_and_score<kRegRow>(p, s, p.order[next], lane);
  }
}

// --- host helpers -----------------------------------------------------------------------------------------

// The fold-in's parameters for the counts c, the halves and inv in g, and fold_in_iters sweeps; the
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
  p.num_tiles = (K + kFoldTile - 1) / kFoldTile;
  p.z = (int32_t *)g->z.ptr;
  p.b = c->b;
  p.inv = (const double *)g->inv.ptr;
  p.alpha = c->alpha;
  p.alpha_k = c->alpha_k;
  p.beta = c->beta;
  p.kalpha = c->alpha_k != NULL ? c->alpha_sum : (double)K * c->alpha;
  p.seed = c->seed;
  p.iters = fold_in_iters;
  p.next_doc = (unsigned *)g->next_doc.ptr;
  p.doc_ll = (double *)g->doc_ll.ptr;
  p.warp_bytes = ((size_t)p.num_tiles * sizeof(double) + (size_t)K * (sizeof(double) + sizeof(int32_t)) + 15) / 16 * 16;
  p.inv_bytes = ((size_t)K * sizeof(double) + 15) / 16 * 16;
  return p;
}

// Chooses the fold-in's kernel, block and grid, places its scratch (p.scratch, when in global memory),
// clears the document counter and launches it on the legacy default stream.
int fold_launch(sk_lda_gpu_metrics *g, fold_params &p, sk_ex_error *err) {
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
    SK_EX_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes),
                    "sizing the fold-in's shared memory");
    SK_EX_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, shared_bytes),
                    "sizing the fold-in's grid");
    shared = per_sm > 0;
  }
  if (!shared) {
    warps = kFoldWarps;
    shared_bytes = 0;
    kernel = heldout_kernel<false, false>;
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
  const int32_t K = c->num_topics;
  const double vbeta = (double)c->num_words * c->beta;
  if (sk_lda_gpu::metrics_buf_reserve(g, &g->inv, (size_t)K * sizeof(double), "allocating 1 / (n_k + V beta)",
                                      err) != 0)
    return 1;
  // inv[k] = 1 / (n_k + V beta), as sk_lda_detail_fold_in_docs()
  SK_EX_CUDA_TRY(sk_lda_gpu::topic_inverse_f64_launch(c->n_k, K, vbeta, (double *)g->inv.ptr, 0),
                  "computing 1 / (n_k + V beta)");

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
