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
// a document's fold-in and score by one warp metrics_gpu_fold_warp.cuh, the longest documents' by a block
// in windows metrics_gpu_fold_windows.cuh; this file is the kernels and their launch.
#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu.h"
#include "gpu/metrics_gpu_fold_draw.cuh"
#include "gpu/metrics_gpu_fold_warp.cuh"
#include "gpu/metrics_gpu_fold_windows.cuh"
#include "gpu/metrics_gpu_internal.cuh"
#include "gpu/metrics_gpu_uncollapsed.cuh"
#include "metrics.h"
#include "samplekit/warp_lane.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

using namespace sk_lda_gpu::fold;

// Held-out fold-in: one warp per document, persistent.
constexpr int kFoldWarps = 8;                        // warps per block, at most
constexpr size_t kFoldSharedMax = 48u << 10;         // per warp: larger scratch goes to global memory
// All warps' global scratch together: an eighth of the free device memory, kept between these. Why not
// a fixed 256 MiB: at K = 65,536 a warp's scratch is about 270 KB, so 256 MiB held about 120 one-warp
// blocks of the 264 an H200 can run, and a test set of 10,000 documents or more waited on them.
constexpr size_t kFoldGlobalMin = (size_t)256 << 20;
constexpr size_t kFoldGlobalMax = (size_t)2 << 30;

// The fold_scratch of a warp whose scratch is at base (p.warp_bytes), as it is.
__device__ __forceinline__ fold_scratch scratch_view(const fold_params &p, char *base) {
  fold_scratch s;
  s.tile_end = (double *)base;
  s.ndk = (int32_t *)(s.tile_end + p.tile_cap);
  s.topics = s.ndk + p.num_topics;
  return s;
}

// A warp's fold_scratch at base (p.warp_bytes), its counts cleared.
__device__ __forceinline__ fold_scratch scratch_at(const fold_params &p, char *base, int lane) {
  const fold_scratch s = scratch_view(p, base);
  for (int32_t k = lane; k < p.num_topics; k += 32) s.ndk[k] = 0;
  __syncwarp();
  return s;
}

// A one-warp kernel warp's scratch: in dynamic shared memory (kShared), else in p.scratch.
template <bool kShared>
__device__ __forceinline__ fold_scratch warp_scratch(const fold_params &p, int lane) {
  extern __shared__ double fold_shared[];
  const int warp = (int)(threadIdx.x / 32);
  char *base = kShared ? (char *)fold_shared + (size_t)warp * p.warp_bytes
                       : p.scratch + ((size_t)blockIdx.x * (blockDim.x / 32) + (size_t)warp) * p.warp_bytes;
  return scratch_at(p, base, lane);
}

// The long documents: cluster b (blocks kCtas b .. kCtas b + kCtas - 1; a block when kCtas is 1) folds in
// document order[b] with its warps together (fold_in_windows()), p.window_docs clusters. Its own kernel,
// launched beside heldout_kernel on another stream, so that the one-warp kernel keeps its registers.
// kShared as there; kBitmap: the warps' copies keep a bitmap (present_bytes(K) > 0). A warp's scratch is
// a fold_scratch and its bitmap; in global memory, from byte `window_first_byte` of p.scratch (after
// heldout_kernel's warps'). Cluster b's document's window_token entries are tokens[b * token_stride ...].
template <bool kShared, bool kHeld, bool kBitmap, int kCtas>
__global__ void __launch_bounds__(kWindowWarps * 32)
    heldout_windows_kernel(fold_params p, size_t window_first_byte, window_token *tokens, int64_t token_stride) {
  extern __shared__ double fold_shared[];
  __shared__ window_shared<kCtas> sh;
  const int lane = sk_lane_id(), warp = (int)(threadIdx.x / 32);
  const size_t stride = p.warp_bytes + present_bytes(p.num_topics);
  char *block_base = kShared ? (char *)fold_shared
                             : p.scratch + window_first_byte + (size_t)blockIdx.x * (blockDim.x / 32) * stride;
  char *base = block_base + (size_t)warp * stride;
  window_scratch s;
  s.f = scratch_at(p, base, lane);
  s.present = (uint32_t *)(base + p.warp_bytes);  // written in full by fold_in_windows()'s start
  const int64_t doc = (int64_t)(blockIdx.x / kCtas);
  fold_in_windows<kHeld, kBitmap, kCtas>(p, s, sh, tokens + doc * token_stride, token_stride,
                                         scratch_view(p, block_base), p.order[doc], lane);
}

// The windows kernel for a launch: shared or global scratch, the held draw or not, the bitmap or not,
// blocks a cluster.
using windows_kernel_fn = void (*)(fold_params, size_t, window_token *, int64_t);
template <bool kShared, bool kHeld, bool kBitmap>
windows_kernel_fn windows_kernel_for(int ctas) {
  return ctas == 4   ? heldout_windows_kernel<kShared, kHeld, kBitmap, 4>
         : ctas == 2 ? heldout_windows_kernel<kShared, kHeld, kBitmap, 2>
                     : heldout_windows_kernel<kShared, kHeld, kBitmap, 1>;
}
template <bool kShared, bool kHeld>
windows_kernel_fn windows_kernel_for(bool bitmap, int ctas) {
  return bitmap ? windows_kernel_for<kShared, kHeld, true>(ctas) : windows_kernel_for<kShared, kHeld, false>(ctas);
}
windows_kernel_fn windows_kernel_for(bool shared, bool held, bool bitmap, int ctas) {
  return shared ? (held ? windows_kernel_for<true, true>(bitmap, ctas) : windows_kernel_for<true, false>(bitmap, ctas))
                : (held ? windows_kernel_for<false, true>(bitmap, ctas) : windows_kernel_for<false, false>(bitmap, ctas));
}

// A persistent grid: each warp clears its counts once, then takes the next document of `order` from
// p.window_docs on (an integer atomic counter; heldout_windows_kernel takes those before) until none
// is left. kShared: the warps' scratch is in dynamic shared memory, else in p.scratch.
template <bool kShared, bool kHeld>
__global__ void __launch_bounds__(kFoldWarps * 32) heldout_kernel(fold_params p) {
  const int lane = sk_lane_id();
  const fold_scratch s = warp_scratch<kShared>(p, lane);
  for (;;) {
    unsigned next = 0;
    if (lane == 0) next = (unsigned)p.window_docs + atomicAdd(p.next_doc, 1u);
    next = sk_warp_broadcast_u32(SK_FULL_MASK, next, 0);
    if (next >= (unsigned)p.num_docs) return;
    fold_in_and_score<kHeld>(p, s, p.order[next], lane);
  }
}

// --- host helpers -----------------------------------------------------------------------------------------

// The fold-in's parameters for the counts c, the halves and tables in g, and fold_in_iters sweeps (the
// collapsed ones: all but the uncollapsed ones, which come first); the global scratch is fold_launch()'s to
// place.
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
  p.first_sweep = sk_lda_detail_fold_uncollapsed(fold_in_iters, K);
  p.iters = fold_in_iters - p.first_sweep;
  p.z_given = p.first_sweep > 0;
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

// A launch of `blocks` blocks of `warps` warps in clusters of `ctas`, with `shared_bytes` of dynamic
// shared memory on `stream`: config, whose one attribute (the cluster's size) is `cluster`.
void window_launch_config(cudaLaunchConfig_t *config, cudaLaunchAttribute *cluster, unsigned blocks, int ctas,
                          int warps, size_t shared_bytes, cudaStream_t stream) {
  *config = cudaLaunchConfig_t{};
  config->gridDim = dim3(blocks, 1, 1);
  config->blockDim = dim3((unsigned)warps * 32u, 1, 1);
  config->dynamicSmemBytes = shared_bytes;
  config->stream = stream;
  *cluster = cudaLaunchAttribute{};
  cluster->id = cudaLaunchAttributeClusterDimension;
  cluster->val.clusterDim.x = (unsigned)ctas;
  cluster->val.clusterDim.y = 1;
  cluster->val.clusterDim.z = 1;
  config->attrs = cluster;
  config->numAttrs = ctas > 1 ? 1 : 0;  // one block: the plain launch
}

// Whether the GPU can hold a cluster of `ctas` blocks of the windows kernel (its shared memory attribute
// set first). A width it cannot place is not an error: the caller tries a narrower one.
bool window_clusters_fit(windows_kernel_fn kernel, int ctas, int warps, size_t shared_bytes) {
  if (shared_bytes > 0 &&
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  cudaLaunchConfig_t config;
  cudaLaunchAttribute cluster;
  window_launch_config(&config, &cluster, (unsigned)ctas, ctas, warps, shared_bytes, 0);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return clusters > 0;
}

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
  // The long documents' windows: a block (or a cluster of blocks) each of window_warps warps
  // (heldout_windows_kernel, on g->side beside the one-warp kernel), when a block can have at least 4
  // (fewer make a window cost more than it saves). In shared memory the block's warps' scratch and its static window_shared must fit the
  // opt-in limit together. The one-warp kernel's grid leaves the windows the room of their warps; a
  // window's block also takes most of an SM's registers (16 warps of about 128), so a one-warp block
  // can find no room at first: the grid is persistent and its blocks never wait for one another, so
  // such a block starts later and only finds less work.
  int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * g->sm_count;
  if (!shared) {
    size_t free_bytes = 0, total_bytes = 0;
    SK_EX_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), "sizing the fold-in's scratch");
    size_t cap = free_bytes / 8;
    cap = cap < kFoldGlobalMin ? kFoldGlobalMin : cap > kFoldGlobalMax ? kFoldGlobalMax : cap;
    if (g->scratch.bytes > cap) cap = g->scratch.bytes;  // what a call before holds already
    const int64_t fit = (int64_t)(cap / ((size_t)warps * p.warp_bytes));
    if (resident > fit) resident = fit > 0 ? fit : 1;
  }
  int window_warps = kWindowWarps;
  const size_t window_stride = p.warp_bytes + present_bytes(p.num_topics);  // a windows warp's scratch
  if (shared) {
    const size_t room = g->shared_optin > sizeof(window_shared<1>) ? g->shared_optin - sizeof(window_shared<1>) : 0;
    if (room / window_stride < (size_t)window_warps) window_warps = (int)(room / window_stride);
  }
  p.window_docs = window_warps >= 4 ? g->long_docs : 0;
  // In the one-warp kernel's blocks, what a window's block takes (rounded up).
  const int64_t per_window = (window_warps + warps - 1) / warps;
  if (p.window_docs * per_window > resident / 2) p.window_docs = (int32_t)(resident / 2 / per_window);
  // Blocks a window's cluster: the widest (at most kWindowMaxCtas) whose blocks, each of which takes an
  // SM's registers, fill at most half the SMs, whose documents all hold two windows (2W tokens), and that
  // the GPU can place; g->window_ctas when a test asks for a width. Why half the SMs: the one-warp kernel
  // needs the rest. On nips12 (66 documents take windows on an H200) clusters of two blocks made the
  // held-out call 1.2x longer, while on 20news (10 documents) four blocks made it 1.34x faster at K =
  // 1,024 and 1.55x at K = 10,000 (H200, bench/RESULTS.md).
  // A window block's dynamic shared memory: its warps' copies, when they are in shared memory.
  const size_t window_bytes = shared ? (size_t)window_warps * window_stride : 0;
  const bool bitmap = present_bytes(p.num_topics) > 0;  // the copies keep a bitmap
  int ctas = 1;
  if (p.window_docs > 0) {
    for (int c = g->window_ctas > 0 ? g->window_ctas : kWindowMaxCtas; c > 1; c /= 2) {
      if (g->window_ctas == 0 && (int64_t)p.window_docs * c > g->sm_count / 2) continue;
      // (a width a test asks for may take more, but leaves the one-warp kernel a block)
      if (p.window_docs * per_window * c > resident - 1) continue;
      // (a wider window's entries take more of the block's static shared memory)
      const size_t entries = c == 4 ? sizeof(window_shared<4>) : sizeof(window_shared<2>);
      if (shared && window_bytes + entries > g->shared_optin) continue;
      if (g->window_min_obs < 2 * (int64_t)c * window_warps) continue;
      if (!window_clusters_fit(windows_kernel_for(shared, held, bitmap, c), c, window_warps,
                               window_bytes))
        continue;
      ctas = c;
      break;
    }
  }
  g->window_ctas_used = p.window_docs > 0 ? ctas : 0;
  const int64_t blocks_wanted = ((int64_t)(p.num_docs - p.window_docs) + warps - 1) / warps;
  int64_t blocks = resident - p.window_docs * per_window * ctas;
  if (blocks > blocks_wanted) blocks = blocks_wanted;
  const size_t one_warp_warps = (size_t)blocks * (size_t)warps;
  if (!shared) {
    if (sk_lda_gpu::metrics_buf_reserve(g, &g->scratch,
                                        one_warp_warps * p.warp_bytes +
                                            (size_t)p.window_docs * (size_t)ctas * (size_t)window_warps * window_stride,
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
    const windows_kernel_fn windows = windows_kernel_for(shared, held, bitmap, ctas);
    // Each window document's tokens' window_token, gathered at its start (fold_in_windows()).
    if (sk_lda_gpu::metrics_buf_reserve(g, &g->window_tokens,
                                        (size_t)p.window_docs * (size_t)g->max_obs_len * sizeof(window_token),
                                        "allocating the long documents' tokens", err) != 0)
      return 1;
    if (shared)
      SK_EX_CUDA_TRY(cudaFuncSetAttribute(windows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)window_bytes),
                      "sizing the fold-in's shared memory");
    SK_EX_CUDA_TRY(cudaEventRecord(g->fold_start, 0), "starting the fold-in");
    SK_EX_CUDA_TRY(cudaStreamWaitEvent(g->side, g->fold_start, 0), "starting the fold-in");
    cudaLaunchConfig_t config;
    cudaLaunchAttribute cluster;
    window_launch_config(&config, &cluster, (unsigned)(p.window_docs * ctas), ctas, window_warps, window_bytes,
                         g->side);
    SK_EX_CUDA_TRY(cudaLaunchKernelEx(&config, windows, p, one_warp_warps * p.warp_bytes,
                                      (window_token *)g->window_tokens.ptr, (int64_t)g->max_obs_len),
                    "folding in the longest test documents");
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

extern "C" int sk_lda_gpu_metrics_set_window_ctas(sk_lda_gpu_metrics *g, int ctas, sk_ex_error *err) {
  if (g == NULL) return sk_ex_fail(err, "GPU metrics: window width: the context is NULL");
  if (ctas != 0 && ctas != 1 && ctas != 2 && ctas != 4)
    return sk_ex_fail(err, "GPU metrics: window width: %d blocks a cluster (0, 1, 2 or 4)", ctas);
  g->window_ctas = ctas;
  return 0;
}

extern "C" int sk_lda_gpu_metrics_window_ctas_used(const sk_lda_gpu_metrics *g) {
  return g != NULL ? g->window_ctas_used : 0;
}

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
  g->window_ctas_used = 0;  // until fold_launch() says otherwise
  if (g->heldout_tokens == 0) {
    *ll_per_token = NAN;  // as sk_lda_heldout_ll()
    return 0;
  }
  SK_EX_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  (void)cudaGetLastError();  // an error some earlier call already reported is not this call's
  // The call's tables: phi is fixed for the whole fold-in (metrics.h's sparse rule)
  if (sk_lda_gpu::metrics_fold_tables(g, c, err) != 0) return 1;

  fold_params p = fold_params_of(g, c, fold_in_iters);
  if (p.first_sweep > 0 && fold_uncollapsed(g, p, p.first_sweep, fold_held(p), err) != 0) return 1;
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
