// The owning GPU LDA state that every GPU sampler keeps (gpu_state.cu), and the one epilogue after the
// draws that every sampler counting its topics apart uses. A sampler takes the parts it needs:
//
//   model      B (V x K int32) and n_k (K, 64-bit): every sampler
//   documents  z (T), the document offsets (D + 1), A as CSR (per document its distinct topics,
//              increasing, and their counts: at most min(n_d, K) pairs, rebuilt from z by samplekit's
//              segmented count) and the segmented count's workspace: the resident samplers (the
//              streamed one keeps z on the host and each worker's A for its chunk)
//   next       B's next counts (V x K int32): the samplers that count the topics being drawn apart from
//              the counts they read (ESCA's sweeps); the epilogue sums them over the ranks, takes n_k
//              from them and swaps them with B
//   inverse    1 / (n_k + V beta) in float (K): ESCA's B_hat rows
//   touched    a bit per (word, topic) the draws count (V rows of ceil(K / 32) words), in place of the
//              next part: the draws count into B itself, which nobody reads during them (they read the
//              segments' lists), and the epilogue lists B's nonzeros from the marks (esca_segments.cuh)
//              without a pass over V x K counts: ESCA's resident sweep on one GPU
//   segments   ESCA's word segments (esca_segments.cuh): each word's nonzero topics and tree, the prior
//              tree, rebuilt from B every sweep by state_segments(); the fast sweep's dense part at large K
//   priors     per-topic alpha_k (K doubles), their float rounding (K) and lgamma(alpha_k) (K doubles):
//              every sampler, made at create when the model has per-topic priors and on the first
//              state_set_priors() that brings them (model.h's alpha_k; NULL pointers: symmetric alpha)
//
// The state hands the kernels their device view (its pointers); the samplers own nothing of it. Its
// arrays are listed once (state_arrays) in the sampler's device_arrays, which both answers fits() and
// allocates, so that the bytes a sampler says it needs are the bytes it takes.
//
// Errors: int functions give 0, or non-zero with err filled (sk_ex_cuda_check.cuh's messages, scope "GPU
// sampler"); they run on the legacy default stream and make state.gpu current first where they touch
// the device.
#ifndef SK_LDA_GPU_STATE_CUH
#define SK_LDA_GPU_STATE_CUH

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "gpu/esca_segments.cuh"
#include "gpu/gpu_counts.h"
#include "model.h"
#include "sampler.h"

namespace sk_lda_gpu {

// One device array of a sampler: where its pointer goes, its elements and their size, what it is.
struct device_array {
  void **ptr;
  size_t count, elem;
  const char *what;
};

// A sampler's device arrays, listed once: bytes() answers fits() before anything exists, allocate()
// makes them all (at least one element each: samplekit refuses NULL for an empty array).
struct device_arrays {
  static constexpr int kMax = 80;  // the streamed sampler: 4 a worker, 16 workers, and its own
  device_array a[kMax];
  int n = 0;
  template <typename T>
  void add(T **p, size_t count, const char *what) {
    if (n < kMax) a[n] = device_array{(void **)p, count, sizeof(T), what};
    ++n;  // past kMax: allocate() refuses, bytes() is then meaningless
  }
  size_t bytes() const;
  // cudaMalloc of every array, added to *allocated; on failure the ones made stay for the caller's free.
  int allocate(int64_t *allocated, sk_ex_error *err) const;
};

// cudaMemcpy of `bytes` to the device from host or device memory (cudaMemcpyDefault: unified addressing
// tells which; nothing when 0); a failure names `what`. Every sampler's uploads go through it
// (upload_array below).
int upload_bytes(void *dst, const void *src, size_t bytes, const char *what, sk_ex_error *err);

template <typename T>
int upload_array(T *dst, const T *src, size_t count, const char *what, sk_ex_error *err) {
  return upload_bytes(dst, src, count * sizeof(T), what, err);
}

enum : unsigned {
  kStateDocuments = 1u,
  kStateNext = 2u,
  kStateInverse = 4u,
  kStateSegments = 8u,  // needs kStateInverse
  kStateTouched = 16u,  // in place of kStateNext; needs kStateSegments
  // A's pairs also as one word each, topic << 16 | count, for the draws (half the bytes a group reads);
  // needs kStateDocuments. state_init() drops it when a topic or a count could pass 16 bits (K > 65,536
  // or a document of more than 65,535 tokens).
  kStatePackedA = 32u,
};

struct lda_state {
  int gpu;
  unsigned parts;  // kState*, beside the model part every state has
  int32_t num_topics, num_words, num_docs;
  int64_t num_tokens;
  int64_t pair_capacity;  // sum over documents of min(n_d, K): A never has more pairs
  double alpha, beta, vbeta;
  // The priors: asymmetric 1 when the model's alpha_k is set (then the arrays below hold it), alpha_sum
  // sk_lda_prior_alpha_sum() of the model's priors (K alpha when symmetric).
  int asymmetric;
  double alpha_sum;
  uint64_t seed;
  uint64_t token_base;  // the rank link's (0 on one GPU): token t draws the uniform of token_base + t
  sk_lda_count_sum sum;  // the rank link's sum of the next counts over the ranks (fn NULL: none)
  // On the device (NULL where the part is not kept).
  int32_t *b;
  unsigned long long *n_k;
  int32_t *doc_offsets, *z, *a_offsets;
  uint32_t *a_topic, *a_count;
  uint32_t *a_packed;  // the packed-A part: a_topic[i] << 16 | a_count[i]
  void *workspace;
  size_t workspace_bytes;
  int32_t *b_next;
  uint32_t *touched;  // the touched part: V x segments_touched_words(K)
  float *inv;
  segments seg;        // the segments part (capacities: segments_capacity() of the model at init)
  double *alpha_k;     // K per-topic priors (NULL until the model has them)
  float *alpha_k_f;    // K: (float)alpha_k, for the float draws (ESCA's fast sweep, AGA)
  double *lg_alpha_k;  // K: lgamma(alpha_k) from the host's C library, for the joint LL
};

// The per-topic priors' device arrays of st when it is asymmetric (NULL otherwise): what the draws read.
inline const float *state_alpha_f(const lda_state &st) { return st.asymmetric ? st.alpha_k_f : NULL; }
inline const double *state_alpha(const lda_state &st) { return st.asymmetric ? st.alpha_k : NULL; }

// The shape of model m (initialised), the parts, the rank link (NULL: none) and the segmented count's
// workspace size; nothing on the device. Fails when the documents part is asked for a corpus of more
// than 2^31 - 1 tokens (the segmented count's int32 positions).
int state_init(lda_state *st, const sk_lda_model *m, int gpu, unsigned parts, const sk_lda_rank_link *rank,
               sk_ex_error *err);

// Adds the state's arrays (its parts) to `list`.
void state_arrays(lda_state *st, device_arrays *list);

// Once allocated: the model's B and n_k (and, with the documents part, its z and offsets) to the
// device, the next counts zeroed, A rebuilt from z, the word segments placed; waits for the device.
int state_upload(lda_state *st, const sk_lda_model *m, sk_ex_error *err);

// A rebuilt from the device z (documents part), and packed (packed-A part), queued on the legacy default
// stream.
int state_rebuild_a(lda_state *st, sk_ex_error *err);

// inv[k] = (float)(1 / (n_k + V beta)), computed in double (inverse part), queued.
int state_inverse(lda_state *st, sk_ex_error *err);

// The segments part's capacities for model m (state_init() sets them; for a state sized by hand).
void state_size_segments(lda_state *st, const sk_lda_model *m);

// The word segments from B and inv (segments part, after state_inverse()), queued; with the touched part,
// B zeroed at the lists' topics by the same kernel, for the draws' counts (b_next is zeroed by the last
// epilogue otherwise). From then until the epilogue B holds no counts anyone may read but the draws'.
int state_segments(lda_state *st, sk_ex_error *err);

// Where a sweep's draws count their topics: b_next (next part), or B itself (touched part), after
// state_segments().
inline int32_t *state_next_counts(const lda_state &st) { return (st.parts & kStateTouched) ? st.b : st.b_next; }

// THE epilogue after a sweep's draws, queued on the legacy default stream. Next part, the draws having
// counted the new topics into b_next: the sum over the ranks (the link's, which waits), n_k and the word
// segments' lists from b_next in one pass, the swap of B and b_next, the new b_next zeroed for the next
// sweep's counts. Touched part, the draws having counted into B and marked what they counted: the lists
// and n_k from the marks and B's counts at them (no V x K pass), the marks cleared. Either way B, n_k
// and the lists come out the same.
int state_epilogue(lda_state *st, sk_ex_error *err);

// Takes model m's priors (beta, V beta, alpha_k and their sum) for the sweeps and metrics that follow:
// the priors' arrays made when m has per-topic priors and the state has none yet (their bytes added to
// *allocated), then the copies (synchronous). m has the state's shape.
int state_set_priors(lda_state *st, const sk_lda_model *m, int64_t *allocated, sk_ex_error *err);

// 1 when model m has the state's shape (K, V, D, T).
int state_shape_matches(const lda_state *st, const sk_lda_model *m);

// z, A (in the model's layout: document d's pairs from dk_start[d]), B and n_k into model m of the
// state's shape (documents part); synchronous.
int state_to_model(const lda_state *st, sk_lda_model *m, sk_ex_error *err);

// The device view of the counts for the metrics (documents part).
void state_counts(const lda_state *st, sk_lda_gpu_counts *out);

// Frees the state's device arrays (errors ignored: after a fault every free fails the same way).
void state_free(lda_state *st);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_GPU_STATE_CUH
