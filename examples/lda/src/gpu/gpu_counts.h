/*
 * The counts of a GPU sampler as they lie on the device: what the device metrics (metrics_gpu.h) read.
 * A GPU sampler hands out this view (sk_lda_esca_gpu_counts()); the pointers stay valid and current
 * until its next sweep or its destruction. All pointers are device pointers on CUDA device `gpu`.
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
} sk_lda_gpu_counts;

/*
 * The sum of B's next counts over the ranks of a multi-GPU run (ranks.h), as a GPU ESCA sweep's hook:
 * when fn is not NULL, the fast sweep (resident or streamed) calls fn(user, d_b, count, err) after its
 * draws have been queued (on the legacy default stream, or the streamed pipeline's workers) and before
 * n_k is summed from d_b and the two B swap. d_b holds count = V x K int32 counts of this rank's tokens
 * (device); fn must leave there their sum over every rank, the work done (it waits), and return 0; or
 * non-zero with err filled, which fails the sweep. Zeroed: one GPU, no sum.
 */
typedef struct sk_lda_gpu_b_sum {
  int (*fn)(void *user, int32_t *d_b, size_t count, sk_lda_error *err);
  void *user;
} sk_lda_gpu_b_sum;

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_GPU_COUNTS_H */
