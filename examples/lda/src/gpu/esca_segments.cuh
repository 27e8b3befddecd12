// The dense part of GPU ESCA's fast draw as word segments (issue 32): built once a sweep, so that an item
// of the draw costs O(K_v), the word's nonzero topics, instead of a B_hat row and a W-ary tree of K.
//
// The dense part of word v's draw is the running sum over k = 0 .. K - 1 of the weights
//   d_k = (B[v,k] + beta) inv_k           (times alpha_k with per-topic priors),
// searched at y = (x - S) / alpha (esca_draw.cuh). Write rho_k = beta inv_k (alpha_k beta inv_k), the
// weight of a topic the word does not use, and P_j = rho_0 + ... + rho_j (the prior tree, one a sweep).
// Word v's nonzero topics k_0 < k_1 < ... < k_{n-1} (n = K_v) cut 0 .. K - 1 into n + 1 segments:
//   segment e < n: the topics (k_{e-1}, k_e], weight (P_{k_e - 1} - P_{k_{e-1}}) + d_{k_e}
//                  (the gap of unused topics before k_e, then k_e itself; k_{-1} = -1, P_{-1} = 0)
//   segment n:     the topics (k_{n-1}, K - 1], weight P_{K-1} - P_{k_{n-1}}
// and the word's tree is the W-ary tree over these n + 1 weights. A draw finds the segment e of y in the
// word's tree, r = y less the running sum before e; if e < n and r is not below the gap, the topic is k_e;
// else it is the first topic j of the gap with P_j > P_{k_{e-1}} + r (the prior tree's search, clamped into
// the gap). In exact arithmetic that is the topic the running sums of d_k give, in the same order: the CPU
// ESCA's (esca.h) and the per-item tree's. In float the boundaries move by rounding only (a few units of
// 2^-24 of the total, as the per-item tree's), so the fast sweep stays within test_esca_gpu_fast's bound
// of the CPU, and the topics depend on nothing but the counts, the priors and u: not on the launch shape,
// the chunking or the ranks.
//
// Storage: word v has room for m_v = min(K, c_v) topics and a tree of m_v + 1 leaves, c_v = sum_k B[v,k]
// its tokens in the whole corpus (every rank's B is the sum over the ranks), which no sweep changes; the
// places are set once from the B a sampler starts with (segments_place()). So the sweep's epilogue lists
// each word's topics and counts in the same one pass over B that sums n_k (segments_count()), or from the
// marks of what the draws counted (segments_list_touched(), no pass over B), and all of them fit in
// min(V K, T) pairs, T = sum_k n_k; the next sweep builds the trees from the lists alone, and its draws
// read B's counts from them too.
#ifndef SK_LDA_ESCA_SEGMENTS_CUH
#define SK_LDA_ESCA_SEGMENTS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "samplekit/wary_tree.cuh"

namespace sk_lda_gpu {

// What a draw reads of one sweep's segments (device pointers).
struct segments_view {
  const int32_t *nnz;        // V: K_v
  const int64_t *topic_off;  // V: word v's topics start at topic + topic_off[v]
  const int64_t *tree_off;   // V: word v's tree (K_v + 1 leaves) starts at tree + tree_off[v]
  const int32_t *topic;      // the words' nonzero topics, increasing within a word
  const int32_t *count;      // their counts B[v,k]
  const float *tree;         // the words' trees
  const float *prior;        // the prior tree over rho_k (K leaves); its level 0 holds P_0 .. P_{K-1}
};

// The segments' device arrays and their sizes (lda_state's segments part, gpu_state.cuh).
struct segments {
  int32_t *nnz;
  int64_t *topic_off, *tree_off;  // set by segments_place()
  int32_t *topic, *count;         // each word's nonzero topics and their counts (segments_count())
  float *tree, *prior, *rho;
  unsigned *partials;             // segments_count()'s partial sums of n_k: partial_blocks x K
  int32_t *big_words;             // V: the words whose trees a block builds (segments_place())
  int64_t topic_capacity, tree_capacity;
  int32_t partial_blocks;         // segments_partial_blocks(V)
  int32_t num_big;                // entries of big_words in use
};

// Leaves above which a word's tree is built by a block rather than a warp: a warp keeps 8 rounds (256
// leaves) in flight, so a frequent word of 30,000 topics was a chain of about 120 load latencies that
// bounded the whole kernel (20news K = 65,536, bench/RESULTS.md).
constexpr int32_t kSegmentsWarpTreeLeaves = 1024;

// The blocks of segments_count() for V words (each with its partial sums of n_k): at most 512.
inline int32_t segments_partial_blocks(int32_t num_words) { return num_words < 512 ? (num_words > 0 ? num_words : 1) : 512; }

// The capacities for model m's words, exactly the rooms segments_place() will give them: sum over words of
// m_v = min(K, c_v) topics and of sk_wary_tree_floats(m_v + 1) tree floats, c_v from m's counts
// (sk_lda_model_word_totals(), `threads` OpenMP threads). On a Zipfian corpus that is far below the
// bound below (10^9 tokens, V = 50,000, K = 10,000: about half). Without host memory for the V totals,
// or for a shell whose V is not its corpus's (a size query's), the bound with m's own tokens.
void segments_capacity(const sk_lda_model *m, int threads, int64_t *topic_capacity, int64_t *tree_capacity);

// The bound for V words, K topics and T tokens in the whole corpus: min(V K, T) topics, and the tree
// floats of any split of them into V words (each word's tree of K_v + 1 leaves).
void segments_capacity_bound(int32_t num_words, int32_t num_topics, int64_t corpus_tokens, int64_t *topic_capacity,
                             int64_t *tree_capacity);

inline segments_view segments_make_view(const segments &s) {
  return segments_view{s.nnz, s.topic_off, s.tree_off, s.topic, s.count, s.tree, s.prior};
}

// Each word's room (topic_off, tree_off) from its tokens, the row sums of B (V x K, on the device), and
// the words whose room passes kSegmentsWarpTreeLeaves - 1 topics (big_words, num_big): a kernel, the
// sums to the host, the offsets and the list back; synchronous. Fails with cudaErrorInvalidValue when the
// rooms would pass the capacities (they cannot when B holds at most the T tokens segments_capacity() had).
cudaError_t segments_place(segments *s, const int32_t *b, int32_t num_words, int32_t num_topics);

// The one pass over counts B (V x K) that a sweep's epilogue makes (and the upload, for the first sweep):
// each word's nonzero topics and counts in its room and K_v, and n_k = sum_v B[v,k] into n_k (K), queued
// on `stream`. Reads B once; writes at most min(V K, T) pairs and partial_blocks x K partial sums.
cudaError_t segments_count(const segments &s, const int32_t *b, int32_t num_words, int32_t num_topics,
                           unsigned long long *n_k, cudaStream_t stream);

// The touched epilogue (gpu_state.cuh's touched part), queued on `stream`. Before the draws,
// segments_build() with `clear_b` zeroes B (V x K) at the current lists' topics: the draws read the
// lists, not B, and count their topics into B itself, marking each (v, k) they count in `touched` (V
// rows of ceil(K / 32) bit words, zero before). After them, segments_list_touched() lists each word's
// marked topics in increasing order with their counts from B into its room and K_v, sums n_k (K) from
// them and zeroes the marks. Each reads B only at the words' nonzeros, and the marks (V K / 8 bytes) once.
cudaError_t segments_list_touched(const segments &s, uint32_t *touched, const int32_t *b, int32_t num_words,
                                  int32_t num_topics, unsigned long long *n_k, cudaStream_t stream);

// 32-bit words of one word's row of touched marks.
__host__ __device__ inline int32_t segments_touched_words(int32_t num_topics) { return (num_topics + 31) / 32; }

// One sweep's trees from the lists segments_count() made, inv (K floats) and the per-topic priors (K floats,
// or NULL: alpha outside the weights), queued on `stream`: rho and the prior tree, then a warp per word for
// its tree (a block for the words of big_words whose trees pass kSegmentsWarpTreeLeaves leaves). The
// lists, inv and alpha_k must not change until the sweep's draws are done. With `clear_b` (B, V x K; the
// touched part) the same warps zero B at the words' listed topics, with no pass of its own over the lists.
cudaError_t segments_build(const segments &s, const float *inv, const float *alpha_k, int32_t num_words,
                           int32_t num_topics, float beta, int32_t *clear_b, cudaStream_t stream);

// B_hat[v,k] in float, (count + beta) inv_k: the draw's row and the segments' weights take it from here, so
// they have the same bits (with count 0 it is beta inv_k, since 0 + beta is beta exactly).
__device__ __forceinline__ float segment_row_weight(int32_t count, float beta, float inv) {
  return ((float)count + beta) * inv;
}

// P_j of the prior tree's level 0, P_{-1} = 0.
__device__ __forceinline__ float segment_prior_at(const float *prior, int32_t j) { return j >= 0 ? prior[j] : 0.0f; }

// Segment e's gap of unused topics before k_e, P_{k_e - 1} - P_{k_{e-1}}: the same expression in the
// build (the leaf's weight) and in the draw (whether r falls in it), so both see the same bits.
__device__ __forceinline__ float segment_gap(const float *prior, int32_t k_before, int32_t k) {
  return segment_prior_at(prior, k - 1) - segment_prior_at(prior, k_before);
}

// One word's dense part as a draw sees it.
struct segment_dense {
  sk_wary_tree_view_f32 word;  // the word's tree: K_v + 1 leaves
  float word_top;              // this lane's entry of its top level (sk_wary_tree_load_top_f32)
  const int32_t *topic;        // its K_v nonzero topics
  int32_t nnz;                 // K_v
};

// The topic of the dense part at y (the same on every lane; all 32 lanes call): the word's segment, then
// k_e or the gap's topic from the prior tree (view and top level given), as the header's rule says.
__device__ __forceinline__ int32_t segment_search(const segment_dense &d, const sk_wary_tree_view_f32 &prior,
                                                  float prior_top, int32_t num_topics, float y) {
  const int e = sk_wary_tree_search_top_f32(d.word, d.word_top, y);  // the total is positive: e >= 0
  const float r = y - (e > 0 ? d.word.data[e - 1] : 0.0f);          // level 0 holds the running sums
  const int32_t before = e > 0 ? d.topic[e - 1] : -1;
  int32_t last = num_topics - 1;
  if (e < d.nnz) {
    const int32_t k = d.topic[e];
    if (!(r < segment_gap(prior.data, before, k))) return k;
    last = k - 1;  // the gap is positive, so it holds a topic: before < k - 1
  }
  const int32_t j = sk_wary_tree_search_top_f32(prior, prior_top, segment_prior_at(prior.data, before) + r);
  return j <= before ? before + 1 : j > last ? last : j;
}

}  // namespace sk_lda_gpu

#endif  // SK_LDA_ESCA_SEGMENTS_CUH
