// The uncollapsed sweeps of the held-out fold-in on the GPU (metrics.h's sk_lda_heldout_ll(): up to K =
// 1,024 all but the last SK_LDA_FOLDIN_COLLAPSED sweeps), before the collapsed sweeps of
// metrics_gpu_heldout.cu: every observed token's start, then per sweep theta_k = X_k + y_k and every token
// of every test document drawn given it, all at once.
//
// Why: a collapsed sweep is one chain of dependent draws a document, so the longest test documents set
// the held-out call's time; an uncollapsed sweep's tokens are independent given theta, so it costs its
// work spread over the whole GPU. At K = 1,024 the default 10 uncollapsed + 2 collapsed sweeps took the
// held-out call of a 100-sweep run from about 14.7 to 7.2-8.3 ms on nips12 and from 13-14.5 to 7.1-7.9 ms
// on 20news, against the 10 collapsed sweeps (an uncollapsed sweep: about 0.18 ms; H200, bench/RESULTS.md,
// issue 32). At K = 10,000 20 + 2 sweeps took the call from 27.6 to 15-16 ms, but the uncollapsed chain
// mixes more slowly on short documents there (20news: 0.06-0.08 lower), so above K = 1,024 the sweeps stay
// collapsed; at K = 65,536 40 uncollapsed sweeps cost more than 20 collapsed ones (the theta kernel's K / 32
// rounds a document a sweep). The shared y_k (a Gamma(a_k) part of theta the same for every document)
// gives the draw the collapsed draw's shape: r (every topic) and q' (the word's nonzero topics) tables a
// sweep, and the document's part over its nonzero topics, which a warp adds in the collapsed draw's order
// (metrics_gpu_fold_draw.cuh, with x_terms).
//
// Agreement with the CPU (fold_in.c). X_k is a sum of fixed-point values (integer atomics: the host's bits
// in any order). y_k comes from samplekit's sk_rng_gamma_f64(), whose log, exp, sqrt and cos are CUDA's
// here, so it may differ from the host's by an ulp or so; the r and q' tables add those terms in the host's
// order (samplekit's serial warp sum), and the document part is the tiles' order, as the collapsed draw's y
// part. So a
// draw can differ from the host's only when u W falls within a few ulps of a boundary between two topics,
// as the collapsed draw's (metrics_gpu.h).
//
// Cost a sweep: the r tables of all sweeps at the start (a Gamma variate a topic a sweep, then a serial
// warp sum of K a sweep); then per sweep one serial warp sum over each word's nonzero topics of B (nnz(B) /
// 32 rounds in all), one warp a test document for theta (its tokens' Exp(1) variates added into a K-entry scratch, then
// a pass of K / 32 ballots for its sorted topics) and one warp a token for the draw (its document's nonzero
// topics, one read of the word's row of B each).
#include <cuda_runtime.h>

#include <stdint.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu_fold_draw.cuh"
#include "gpu/metrics_gpu_fold_warp.cuh"
#include "gpu/metrics_gpu_internal.cuh"
#include "gpu/metrics_gpu_uncollapsed.cuh"
#include "model.h"
#include "samplekit/rng_gamma.h"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_sorted_set.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

using namespace sk_lda_gpu::fold;

constexpr int kWarps = 8;  // warps a block
// The theta kernel's scratch, all its warps together (each K counts and K fixed-point sums).
constexpr size_t kThetaScratchMax = (size_t)256 << 20;

// Topic k's prior a_k.
__device__ __forceinline__ double prior(const fold_params &p, int32_t k) {
  return p.alpha_k != nullptr ? p.alpha_k[k] : p.alpha;
}

// One warp a test document: its observed tokens' initial topics into z (fold_warp's initial_topic(), the
// host's draw) and their document into token_doc.
__global__ void __launch_bounds__(kWarps * 32) start_kernel(fold_params p, int32_t *token_doc) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * kWarps;
  for (int64_t d = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32; d < p.num_docs; d += warps) {
    const int64_t first = p.obs_offsets[d], n = p.obs_offsets[d + 1] - first;
    for (int64_t i = lane; i < n; i += 32) {
      const window_token t = token_of(p, p.obs_tokens[first + i]);
      p.z[first + i] = initial_topic(p, first + i, t.w0, t.m, t.q);
      token_doc[first + i] = (int32_t)d;
    }
  }
}

// The shared Gamma(a_k) variates of every uncollapsed sweep: y[s K + k], a thread each.
__global__ void shared_gamma_kernel(fold_params p, int sweeps, double *y) {
  const int64_t K = p.num_topics, total = K * sweeps;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t s = e / K;
    const int32_t k = (int32_t)(e - s * K);
    y[e] = sk_rng_gamma_f64(p.seed, SK_LDA_STREAM_FOLDIN_SHARED((uint64_t)s),
                            (uint64_t)k * SK_RNG_GAMMA_MAX_UNIFORMS, prior(p, k));
  }
}

// Running sums of n terms term(i) in order, 32 a round: samplekit's serial warp sum adds a round's terms one
// at a time onto the carry, the host's `run += term` order (fold_in.c's fold_shared_build()), so the tables
// are the host's bits given the same terms.
template <class Term>
__device__ __forceinline__ void warp_running_sums(int64_t n, const Term &term, double *out, int lane) {
  double carry = 0.0;
  for (int64_t base = 0; base < n; base += 32) {
    const int64_t i = base + lane;
    const unsigned mask = __ballot_sync(SK_FULL_MASK, i < n);
    if (i < n) out[i] = sk_warp_serial_inclusive_sum_f64(mask, term(i), &carry);
  }
}

// The r table of each uncollapsed sweep, a warp a sweep: r[s K + k], the running sums of y_k (beta c_k).
__global__ void __launch_bounds__(kWarps * 32) r_table_kernel(fold_params p, int sweeps, const double *y, double *r) {
  const int lane = sk_lane_id();
  const int s = (int)(blockIdx.x * kWarps + threadIdx.x / 32);
  if (s >= sweeps) return;
  const int64_t K = p.num_topics;
  const double *ys = y + (size_t)s * K;
  const auto term = [&](int64_t k) { return __dmul_rn(ys[k], __dmul_rn(p.beta, p.inv[k])); };
  warp_running_sums(K, term, r + (size_t)s * K, lane);
}

// One uncollapsed sweep's q' tables, a warp a word: over the word's nonzero topics (B's CSR) the running
// sums of y_k (n_wk c_k), laid out as its q table.
__global__ void __launch_bounds__(kWarps * 32) word_table_kernel(fold_params p, int32_t V, const double *y,
                                                                 double *word_r_cum) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * kWarps;
  for (int64_t v = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32; v < V; v += warps) {
    const int64_t w0 = p.word_start[v];
    const int32_t *row = p.b + v * (int64_t)p.num_topics;
    const auto term = [&](int64_t e) {
      const int32_t k = p.word_topic[w0 + e];
      return __dmul_rn(y[k], __dmul_rn((double)row[k], p.inv[k]));
    };
    warp_running_sums(p.word_start[v + 1] - w0, term, word_r_cum + w0, lane);
  }
}

// One uncollapsed sweep's theta, a warp a document: X_k, the fixed-point sum of the Exp(1) variates of its
// tokens in topic k, into the warp's scratch (counts and sums, all zero on entry and on return), then the
// document's nonzero topics, increasing, to doc_topic and their X to doc_x (both from the document's first
// token), their number to doc_nnz.
__global__ void __launch_bounds__(kWarps * 32) theta_kernel(fold_params p, int sweep, char *scratch,
                                                            size_t warp_bytes, int32_t *doc_topic, double *doc_x,
                                                            int32_t *doc_nnz) {
  const int lane = sk_lane_id();
  const int64_t warp = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32, warps = (int64_t)gridDim.x * kWarps;
  int32_t *counts = (int32_t *)(scratch + (size_t)warp * warp_bytes);
  unsigned long long *fixed = (unsigned long long *)(counts + ((p.num_topics + 1) & ~1));
  const uint64_t stream = SK_LDA_STREAM_FOLDIN_THETA((uint64_t)sweep);
  for (int64_t d = warp; d < p.num_docs; d += warps) {
    const int64_t first = p.obs_offsets[d], n = p.obs_offsets[d + 1] - first;
    for (int64_t i = lane; i < n; i += 32) {
      const int32_t k = p.z[first + i];
      atomicAdd(&counts[k], 1);
      atomicAdd(&fixed[k], (unsigned long long)sk_lda_detail_fold_exp_fixed(
                               sk_rng_exponential_f64(p.seed, stream, (uint64_t)(first + i))));
    }
    __syncwarp();
    const int32_t nnz = sk_warp_sorted_set_from_counts_i32(counts, p.num_topics, doc_topic + first, nullptr, lane);
    __syncwarp();  // the topics are visible to every lane
    for (int32_t j = lane; j < nnz; j += 32) {
      const int32_t k = doc_topic[first + j];
      doc_x[first + j] = sk_lda_detail_fold_fixed_value(fixed[k]);
      fixed[k] = 0;
      counts[k] = 0;
    }
    if (lane == 0) doc_nnz[d] = nnz;
    __syncwarp();
  }
}

// One uncollapsed sweep's draws, a warp a token: p(k) proportional to r_k + q'_k + x_k (metrics.h), the x
// part the document's (theta_kernel()) in the tiles' order, r and q' searched as the collapsed draw's s
// and q. tile_end: a warp's scratch for a draw's tiles past the 32nd (p.tile_cap doubles a warp).
template <bool kHeld>
__global__ void __launch_bounds__(kWarps * 32) draw_kernel(fold_params p, int sweep, int64_t tokens,
                                                           const int32_t *token_doc, const int32_t *doc_topic,
                                                           const double *doc_x, const int32_t *doc_nnz,
                                                           draw_tables tb, double *tile_end) {
  const int lane = sk_lane_id();
  const int64_t warp = (int64_t)blockIdx.x * kWarps + threadIdx.x / 32, warps = (int64_t)gridDim.x * kWarps;
  double *my_tile_end = tile_end != nullptr ? tile_end + (size_t)warp * p.tile_cap : nullptr;
  const double R = tb.s_cum[p.num_topics - 1];
  const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)sweep);
  for (int64_t i = warp; i < tokens; i += warps) {
    const int32_t d = token_doc[i];
    const int64_t first = p.obs_offsets[d];
    const int32_t w = p.obs_tokens[i];
    const int64_t w0 = p.word_start[w];
    const int32_t m = (int32_t)(p.word_start[w + 1] - w0);
    const double Q = m > 0 ? tb.word_q_cum[w0 + m - 1] : 0.0;
    const int32_t nnz = doc_nnz[d];
    const x_terms t{&p, doc_x + first, doc_topic + first, nnz, p.b + (int64_t)w * p.num_topics};
    const int32_t k = fold_draw_terms<kHeld>(p, t, doc_topic + first, my_tile_end, tb, nnz, w0, m, R, Q,
                                             sk_rng_uniform_f64(p.seed, stream, (uint64_t)i), lane);
    if (lane == 0) p.z[i] = k;
  }
}

}  // namespace

namespace sk_lda_gpu {
namespace fold {

int fold_uncollapsed(sk_lda_gpu_metrics *g, const fold_params &p, int sweeps, bool held, sk_ex_error *err) {
  const int32_t K = p.num_topics, V = g->test_words, D = p.num_docs;
  const int64_t T = g->observed_tokens, nnz_b = g->word_start_count;
  const size_t uK = (size_t)sweeps * (size_t)K;
  // Buffers: token_doc and the document topics and X (a token each), doc_nnz, y and r (all sweeps), q'.
  if (metrics_buf_reserve(g, &g->u_token_doc, (size_t)T * sizeof(int32_t), "allocating the fold-in's tokens", err) ||
      metrics_buf_reserve(g, &g->u_doc_topic, (size_t)T * sizeof(int32_t), "allocating the fold-in's theta", err) ||
      metrics_buf_reserve(g, &g->u_doc_x, (size_t)T * sizeof(double), "allocating the fold-in's theta", err) ||
      metrics_buf_reserve(g, &g->u_doc_nnz, (size_t)D * sizeof(int32_t), "allocating the fold-in's theta", err) ||
      metrics_buf_reserve(g, &g->u_y, uK * sizeof(double), "allocating the fold-in's shared theta", err) ||
      metrics_buf_reserve(g, &g->u_r, uK * sizeof(double), "allocating the fold-in's shared theta", err) ||
      metrics_buf_reserve(g, &g->u_word_r, (size_t)(nnz_b > 0 ? nnz_b : 1) * sizeof(double),
                          "allocating the fold-in's word tables", err))
    return 1;
  int32_t *token_doc = (int32_t *)g->u_token_doc.ptr, *doc_topic = (int32_t *)g->u_doc_topic.ptr;
  int32_t *doc_nnz = (int32_t *)g->u_doc_nnz.ptr;
  double *doc_x = (double *)g->u_doc_x.ptr, *y = (double *)g->u_y.ptr, *r = (double *)g->u_r.ptr;
  double *word_r = (double *)g->u_word_r.ptr;
  // The theta kernel's warps: each K counts and K sums; as many as the documents, the GPU and the cap allow.
  const size_t theta_bytes = (((size_t)K + 1) / 2 * 2 * sizeof(int32_t) + (size_t)K * sizeof(uint64_t) + 15) / 16 * 16;
  int64_t theta_warps = (int64_t)g->sm_count * 16;
  if (theta_warps > D) theta_warps = D;
  if ((size_t)theta_warps * theta_bytes > kThetaScratchMax) theta_warps = (int64_t)(kThetaScratchMax / theta_bytes);
  if (theta_warps < 1) theta_warps = 1;
  const int64_t theta_blocks = (theta_warps + kWarps - 1) / kWarps;
  // The draw kernel's warps: a resident grid of them, or one a token.
  int64_t draw_blocks = (int64_t)g->sm_count * 8, draw_wanted = (T + kWarps - 1) / kWarps;
  if (draw_blocks > draw_wanted) draw_blocks = draw_wanted;
  if (draw_blocks < 1) draw_blocks = 1;
  if (metrics_buf_reserve(g, &g->u_scratch,
                          (size_t)theta_blocks * kWarps * theta_bytes +
                              (size_t)draw_blocks * kWarps * (size_t)p.tile_cap * sizeof(double),
                          "allocating the fold-in's theta scratch", err))
    return 1;
  char *theta_scratch = (char *)g->u_scratch.ptr;
  double *tile_end = p.tile_cap > 0 ? (double *)(theta_scratch + (size_t)theta_blocks * kWarps * theta_bytes) : nullptr;
  SK_EX_CUDA_TRY(cudaMemsetAsync(theta_scratch, 0, (size_t)theta_blocks * kWarps * theta_bytes, 0),
                  "clearing the fold-in's theta scratch");

  const int64_t doc_blocks = ((int64_t)D + kWarps - 1) / kWarps;
  start_kernel<<<(unsigned)(doc_blocks < 65535 ? doc_blocks : 65535), kWarps * 32>>>(p, token_doc);
  SK_EX_LAUNCH_CHECK("starting the fold-in");
  const int64_t gamma_blocks = ((int64_t)uK + 255) / 256;
  shared_gamma_kernel<<<(unsigned)(gamma_blocks < 65535 ? gamma_blocks : 65535), 256>>>(p, sweeps, y);
  SK_EX_LAUNCH_CHECK("drawing the fold-in's shared theta");
  r_table_kernel<<<(unsigned)((sweeps + kWarps - 1) / kWarps), kWarps * 32>>>(p, sweeps, y, r);
  SK_EX_LAUNCH_CHECK("adding the fold-in's r tables");
  const int64_t word_blocks = ((int64_t)V + kWarps - 1) / kWarps;
  for (int s = 0; s < sweeps; ++s) {
    const double *ys = y + (size_t)s * K;
    word_table_kernel<<<(unsigned)(word_blocks < 65535 ? word_blocks : 65535), kWarps * 32>>>(p, V, ys, word_r);
    SK_EX_LAUNCH_CHECK("adding the fold-in's word tables");
    theta_kernel<<<(unsigned)theta_blocks, kWarps * 32>>>(p, s, theta_scratch, theta_bytes, doc_topic, doc_x,
                                                          doc_nnz);
    SK_EX_LAUNCH_CHECK("drawing the fold-in's theta");
    const draw_tables tb{r + (size_t)s * K, word_r};
    if (held)
      draw_kernel<true><<<(unsigned)draw_blocks, kWarps * 32>>>(p, s, T, token_doc, doc_topic, doc_x, doc_nnz, tb,
                                                               tile_end);
    else
      draw_kernel<false><<<(unsigned)draw_blocks, kWarps * 32>>>(p, s, T, token_doc, doc_topic, doc_x, doc_nnz, tb,
                                                                tile_end);
    SK_EX_LAUNCH_CHECK("drawing the fold-in's uncollapsed sweep");
  }
  return 0;
}

}  // namespace fold
}  // namespace sk_lda_gpu
