/*
 * The counts of a GPU sampler as they lie on the device: what the device metrics (metrics_gpu.h) read.
 * A resident GPU sampler hands out this view (gpu/gpu_sampler.h's sk_lda_gpu_sampler_counts()); the
 * pointers stay valid and current until its next sweep or its destruction. All pointers are device pointers on CUDA device `gpu`.
 */
#ifndef SK_LDA_GPU_COUNTS_H
#define SK_LDA_GPU_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_lda_gpu_counts {
  int gpu;                           /* the CUDA device ordinal that holds the counts */
  int32_t num_topics;                /* K */
  int32_t num_words;                 /* V */
  int32_t num_docs;                  /* D (training documents) */
  int64_t num_tokens;                /* T (training tokens) */
  double alpha, beta;                /* the priors */
  uint64_t seed;                     /* the run's seed (the fold-in's random numbers) */
  const int32_t *b;                  /* B: V x K word-topic counts, row-major */
  const unsigned long long *n_k;     /* K topic totals */
  const int32_t *doc_offsets;        /* D + 1: document d's tokens are [doc_offsets[d], doc_offsets[d + 1]) */
  const int32_t *a_offsets;          /* D + 1: document d's pairs of A are [a_offsets[d], a_offsets[d + 1]) */
  const uint32_t *a_topic;           /* A's topics, increasing within a document */
  const uint32_t *a_count;           /* A's counts, each > 0 */
  /* Per-topic priors (model.h's alpha_k) on the device, or NULL: alpha for every topic. */
  const double *alpha_k;             /* K priors */
  const double *lg_alpha_k;          /* K: lgamma(alpha_k), computed on the host by the C library (the joint LL) */
  double alpha_sum;                  /* sk_lda_prior_alpha_sum(): K alpha, or alpha_k summed in increasing k */
  /* B's nonzeros listed by word, when the sampler keeps such lists for the same B (GPU ESCA's word
     segments, esca_segments.cuh), or all NULL: word v's nonzero counts are
     b_list_count[b_list_off[v] .. b_list_off[v] + b_list_nnz[v]), their topics (increasing) at the same
     places of b_list_topic. The joint LL and the held-out LL's tables then read them instead of V x K
     counts (5.8 GB at 20news, K = 65,536). */
  const int32_t *b_list_nnz;         /* V: how many nonzero counts word v has */
  const int64_t *b_list_off;         /* V: where they start */
  const int32_t *b_list_topic;       /* their topics */
  const int32_t *b_list_count;       /* the counts */
} sk_lda_gpu_counts;

/*
 * An exact sum of device int32 counts over the ranks of a multi-GPU run (ranks.h), given to a GPU
 * sampler at create (sampler.h's sk_lda_rank_link) and called by the sweep's epilogue
 * (gpu/gpu_state.cuh) after the draws have been queued and before n_k is summed from the counts:
 * fn(ctx, d_counts, d_scratch, count, err) must leave in d_counts[0 .. count) (device) their sum over
 * every rank, the work done (it waits), and return 0; or non-zero with err filled, which fails the
 * sweep. d_scratch is count int32 of device memory the sum may overwrite (the epilogue passes the
 * counts the sweep read, which it is about to replace), or NULL. The communicator provides it
 * (ranks_nccl.h's sk_lda_ranks_comm_count_sum()). fn NULL: one GPU, no sum.
 */
typedef struct sk_lda_count_sum {
  int (*fn)(void *ctx, int32_t *d_counts, int32_t *d_scratch, size_t count, sk_ex_error *err);
  void *ctx;
} sk_lda_count_sum;

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_GPU_COUNTS_H */
