// GPU ESCA's draw kernel (esca_draw.cu), for the resident and the streamed samplers (esca_resident.h,
// esca_streamed.h): SaberLDA's draw in the PDOW order of pdow_plan.h, a block per item with the word's
// B_hat row in shared memory, a warp per group of tokens, the dense part from the sweep's word segments.
//
// The draw of token t (document d, word v) in sweep i, as the CPU ESCA's (esca.c) but in float:
//   w[k] = (B[v,k] + beta) / (n_k + V beta)                 the word's B_hat row (float)
//   S    = sum over d's pairs (k, c) of c w[k]              the sparse part: up to 256 pairs in the
//                                                           strided hold's order (sk_lda_esca_pair_at(),
//                                                           the CPU's too), beyond in index order
//   Q    = alpha sum_k w[k]                                 the dense part, the word's segment tree's total
//   x    = u (S + Q), u = sk_rng_uniform_f64(seed, i, t)    in double, as the CPU's x
//   x < S: the pair whose running sum first exceeds x (sk_warp_strided_find_f32, sk_warp_sample_prefix_by_f32)
//   else:  the topic where (x - S) / alpha falls in the running sums of w (segment_search())
// The dense part's running sums are cut at the word's nonzero topics (esca_segments.cuh, built once a
// sweep by state_segments()), so an item costs O(K_v), the word's nonzero topics, not O(K): the block's
// row w holds beta inv_k (a zero count's weight) between items, and an item writes its K_v entries and
// puts them back after its draws. With per-topic priors (alpha_k) the segments weigh alpha_k w[k], so Q
// is their total and the topic is where x - S falls: alpha is 1 in the two lines above, as the CPU's
// tables of alpha_k B_hat (esca.h); the sparse part keeps w itself.
// Every token's draw reads only the previous sweep's counts and its own u, so the topics do not
// depend on the order, the launch shape or the scheduling; B for the next sweep is counted with
// integer atomics as the topics are drawn (n_k is summed from them by the epilogue, gpu_state.cuh). An
// item reads its word's counts from the segments' list, never a row of B, so on one GPU the draws count
// into B itself and mark what they count, and the epilogue lists B's nonzeros from the marks.
#ifndef SK_LDA_ESCA_DRAW_CUH
#define SK_LDA_ESCA_DRAW_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/esca_segments.cuh"

namespace sk_lda_gpu {

// What the draw kernel reads and writes (device pointers).
struct draw_params {
  // The plan (pdow_plan.h), on the device.
  const int32_t *token, *group_start, *group_doc, *item_word, *item_group, *item_end;
  int32_t num_items;
  // The previous sweep's counts: A as pairs and 1 / (n_k + V beta) in float (B through the segments' lists).
  const int32_t *a_offsets;
  const uint32_t *a_topic, *a_count;
  const uint32_t *a_packed;  // A's pairs as topic << 16 | count (gpu_state.cuh's packed-A part), or NULL
  const float *inv;
  // Outputs: the new topics (document order), B's counts for the next sweep (zeroed before: b_next or B
  // itself, gpu_state.cuh) and, when touched is not NULL, a mark for each (word, topic) counted (rows of
  // touched_words bit words, zero before).
  int32_t *z;
  int32_t *b_next;
  uint32_t *touched;
  int32_t touched_words;
  // The dynamic scheduler's counter (zeroed before) and, when a row does not fit in shared memory, the
  // tails of the blocks' rows: topics shared_floats.. of block b at scratch + b tail_floats.
  unsigned int *next_item;
  float *scratch;        // NULL: the whole rows live in shared memory
  size_t tail_floats;    // draw_tail_floats(shape)
  int32_t shared_floats;  // topics of a row in shared memory (a multiple of 32, or all of them)
  int32_t num_topics;
  float alpha, beta;
  double alpha_d;
  const float *alpha_k;  // K per-topic priors (float), or NULL: alpha for every topic (then alpha = 1 above)
  segments_view seg;     // this sweep's word segments (the state's segments part)
  uint64_t seed, iteration;
  // The corpus position of the plan's token 0: a streamed chunk's plan and z are local to the chunk,
  // and token t of it draws the uniform of token token_base + t (0 when the whole corpus is resident; a
  // rank of a multi-GPU run adds its first token, ranks.h).
  uint64_t token_base;
};

// How the draw kernel is launched for K topics on the current device.
struct draw_shape {
  int threads;            // per block: a multiple of 32
  int blocks;             // persistent blocks
  size_t shared_bytes;    // dynamic shared memory per block: shared_floats floats
  size_t scratch_floats;  // the global scratch for the rows' tails: blocks x draw_tail_floats() (0 if none)
  size_t row_floats;      // floats of one block's row: draw_row_floats(K)
  size_t shared_floats;   // of those, in shared memory (the head; all of them unless on_global)
  int on_global;          // 1 when the row does not fit in shared memory: its tail is in scratch
};

// Floats of one block's row in the global scratch (0 when the whole row is in shared memory).
inline size_t draw_tail_floats(const draw_shape &shape) { return shape.row_floats - shape.shared_floats; }

// The fields of p that come from the model and the sweep, not from the tokens' plan: inv, the next B and
// the marks (NULL: none; gpu_state.cuh's state_next_counts() and touched part), K, the priors (alpha in float and double, or the per-topic alpha_k: then alpha is 1), the RNG's seed
// and sweep, where a block's row lives (the launch shape). The plan, A, z, the scheduler's counter, the
// scratch for the rows' tails and token_base are the caller's.
inline void draw_set_model(draw_params *p, const float *inv, int32_t *b_next, uint32_t *touched, const draw_shape &shape, int32_t num_topics, double alpha, const float *alpha_k, double beta,
                           uint64_t seed, uint64_t iteration) {
  p->inv = inv;
  p->b_next = b_next;
  p->touched = touched;
  p->touched_words = segments_touched_words(num_topics);
  p->tail_floats = draw_tail_floats(shape);
  p->shared_floats = (int32_t)shape.shared_floats;
  p->num_topics = num_topics;
  p->alpha_k = alpha_k;
  if (alpha_k != NULL) alpha = 1.0;  // alpha_k is inside the segments' weights
  p->alpha = (float)alpha;
  p->beta = (float)beta;
  p->alpha_d = alpha;
  p->seed = seed;
  p->iteration = iteration;
}

// The default most tokens of an item for a corpus of num_tokens tokens (resident or streamed: the
// streamed sweep cuts its chunks' items by the whole corpus too): small enough that every persistent
// block gets several (the largest item's tokens are drawn by one block's warps alone, so a long item
// would be the sweep's critical path) and large enough that the row entries each item writes are
// shared by many draws; from 64 to 4,096.
inline int32_t draw_default_item_tokens(int64_t num_tokens, const draw_shape &launch) {
  const int64_t per_block = num_tokens / ((int64_t)launch.blocks * 4);
  return (int32_t)(per_block < 64 ? 64 : per_block > 4096 ? 4096 : per_block);
}

// Floats of one block's B_hat row for K topics (padded to 32).
size_t draw_row_floats(int32_t num_topics);

// Chooses the launch for K on device `gpu`: threads per block `threads` (0: the smallest of 256, 512 and
// 1,024 that keeps the most warps on a multiprocessor beside the row) and
// `blocks_per_sm` (0: as many as fit). Returns a CUDA error from the queries.
cudaError_t draw_choose_shape(int gpu, int32_t num_topics, int threads, int blocks_per_sm, draw_shape *out);

// The draws and B's counts for the next sweep (p.b_next, p.touched when given and *p.next_item zeroed before).
cudaError_t draw_launch(const draw_params &p, const draw_shape &launch, cudaStream_t stream);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_ESCA_DRAW_CUH
