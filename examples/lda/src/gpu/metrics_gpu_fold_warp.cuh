// sk-lda's held-out fold-in on the GPU, one document by one warp (metrics_gpu_heldout.cu's one-warp
// kernel): the start (the observed tokens' initial topics and the document's sorted nonzero topics),
// the pass over the tokens (sk_lda_detail_fold_in_doc() of metrics.h, each draw metrics_gpu_fold_draw.cuh's
// fold_draw()) and the score of the held-out half. Included by metrics_gpu_heldout.cu alone.
#ifndef SK_LDA_METRICS_GPU_FOLD_WARP_CUH
#define SK_LDA_METRICS_GPU_FOLD_WARP_CUH

#include <math.h>
#include <stdint.h>

#include "gpu/metrics_gpu_fold_draw.cuh"
#include "model.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_sorted_set.cuh"
#include "samplekit/warp_vote.cuh"

namespace sk_lda_gpu {
namespace fold {

// What a draw reads of an observed token of word w: the word's q total (Q), its first entry in B's CSR
// and their count, the word (three dependent loads: the word, its CSR range, its q total). The windows
// gather it once a document (metrics_gpu_fold_windows.cuh), so that a pass reads it with one load.
struct window_token {
  double q;
  int64_t w0;
  int32_t m, w;
};

// Word w's window_token.
__device__ __forceinline__ window_token token_of(const fold_params &p, int32_t w) {
  window_token t;
  t.w = w;
  t.w0 = p.word_start[w];
  t.m = (int32_t)(p.word_start[w + 1] - t.w0);
  t.q = t.m > 0 ? p.word_q_cum[t.w0 + t.m - 1] : 0.0;
  return t;
}

// Observed token i's initial topic, for its word's entries (w0, m) and q total Q: metrics.h's draw from the
// word's phi alone (sk_lda_detail_fold_prior_draw(), the host's code and bits).
__device__ __forceinline__ int32_t initial_topic(const fold_params &p, int64_t i, int64_t w0, int32_t m, double Q) {
  return sk_lda_detail_fold_prior_draw(p.s_cum, p.num_topics, p.word_topic, p.word_q_cum, w0, m, Q,
                                       sk_rng_uniform_f64(p.seed, SK_LDA_STREAM_FOLDIN_INIT, (uint64_t)i));
}

// The nonzero topics of the warp's counts, increasing, into s.topics: samplekit's ballot-compacted pass
// over ndk (K / 32 rounds a document, what clearing the dense counts cost before); each round's ballot is
// also the bitmap's word when `present` is not null (the windows' copies). Returns nnz. Every lane calls.
__device__ __forceinline__ int32_t list_nonzero(const fold_params &p, const fold_scratch &s, uint32_t *present,
                                                int lane) {
  return sk_warp_sorted_set_from_counts_i32(s.ndk, p.num_topics, s.topics, present, lane);
}

// Observed token i's topic where the collapsed sweeps start: what the uncollapsed sweeps left in z
// (p.z_given), else its initial topic, written to z.
__device__ __forceinline__ int32_t collapsed_start_topic(const fold_params &p, int64_t i) {
  if (p.z_given) return p.z[i];
  const window_token t = token_of(p, p.obs_tokens[i]);
  const int32_t k = initial_topic(p, i, t.w0, t.m, t.q);
  p.z[i] = k;
  return k;
}

// The collapsed sweeps' start for tokens [first, first + n): each token's topic (collapsed_start_topic())
// counted into the warp's scratch (ndk all zero on entry), then the nonzero topics. Returns nnz. Every
// lane of the warp calls.
__device__ __forceinline__ int32_t fold_start(const fold_params &p, const fold_scratch &s, int64_t first, int64_t n,
                                              int lane) {
  for (int64_t i = lane; i < n; i += 32) atomicAdd(&s.ndk[collapsed_start_topic(p, first + i)], 1);
  __syncwarp();
  return list_nonzero(p, s, nullptr, lane);
}

// The score's factor 1 / (n_d + A) for a document whose observed half has n tokens.
__device__ __forceinline__ double fold_score_norm(const fold_params &p, int64_t n) {
  return __ddiv_rn(1.0, __dadd_rn((double)n, p.kalpha));
}

// A held-out token of word w's term of the score, from the counts and nonzero topics in s (metrics.h:
// log p(w | d) = log(((S + Q_w) + Y_dw) norm), Y a total in the tiles' order; S the s table's total).
// Every lane of the warp calls.
__device__ __forceinline__ double fold_score_term(const fold_params &p, const fold_scratch &s, int32_t nnz, int32_t w,
                                                  double S, double norm, int lane) {
  const int64_t w0 = p.word_start[w], w1 = p.word_start[w + 1];
  const double Q = w1 > w0 ? p.word_q_cum[w1 - 1] : 0.0;
  const y_terms y{&p, s.ndk, s.topics, nnz, p.b + (int64_t)w * p.num_topics};
  return log(__dmul_rn(__dadd_rn(__dadd_rn(S, Q), tiles_total(y, nnz, lane)), norm));
}

// The score of document d's held-out half from the warp's counts after the fold-in of its observed
// half of n tokens: its tokens' terms (fold_score_term()) added in token order from 0.0. Every lane of
// the warp calls.
__device__ __forceinline__ double fold_score(const fold_params &p, const fold_scratch &s, int32_t nnz, int32_t d,
                                             int64_t n, double S, int lane) {
  const double norm = fold_score_norm(p, n);
  double ll = 0.0;
  for (int64_t t = p.held_offsets[d]; t < p.held_offsets[d + 1]; ++t)
    ll = __dadd_rn(ll, fold_score_term(p, s, nnz, p.held_tokens[t], S, norm, lane));
  return ll;
}

// The fold-in of one document's observed half, tokens [first, first + n): sk_lda_detail_fold_in_doc()
// with the counts and nonzero topics in the warp's scratch (ndk all zero on entry). Returns nnz.
template <bool kHeld>
__device__ __forceinline__ int32_t fold_in(const fold_params &p, const fold_scratch &s, int64_t first, int64_t n,
                                           int lane) {
  const int32_t K = p.num_topics;
  int32_t nnz = fold_start(p, s, first, n, lane);
  __syncwarp();
  const double S = p.s_cum[K - 1];
  for (int it = 0; it < p.iters; ++it) {
    const uint64_t stream = SK_LDA_STREAM_FOLDIN((uint64_t)(p.first_sweep + it));
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
        if (left == 0) nnz = sk_warp_sorted_set_erase_i32(s.topics, nnz, old, lane);
        const int32_t k = fold_draw<kHeld>(p, s, nnz, p.b + (int64_t)w * p.num_topics, w0, m, S, Q, u, lane);
        const int32_t before = s.ndk[k];
        __syncwarp();  // every lane has read ndk before lane 0 changes it
        if (lane == 0) {
          p.z[first + i0 + j] = k;
          s.ndk[k] = before + 1;
        }
        __syncwarp();
        if (before == 0) nnz = sk_warp_sorted_set_insert_i32(s.topics, nnz, k, lane);
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
  const double ll = fold_score(p, s, nnz, d, n, p.s_cum[p.num_topics - 1], lane);
  if (lane == 0) p.doc_ll[d] = ll;
  __syncwarp();  // every lane is done with the counts before they are cleared
  for (int32_t j = lane; j < nnz; j += 32) s.ndk[s.topics[j]] = 0;
  __syncwarp();
}

}  // namespace fold
}  // namespace sk_lda_gpu

#endif  // SK_LDA_METRICS_GPU_FOLD_WARP_CUH
