/*
 * The host side of the streamed GPU ESCA sampler (gpu/esca_streamed.h): the PDOW plan (pdow_plan.h) of
 * every chunk of documents, packed into one int32 array that the CSR pipeline (samplekit's
 * csr_pipeline.h) copies to the device chunk by chunk as a per-chunk array.
 *
 * Chunk c holds documents [chunk_doc[c], chunk_doc[c + 1]) and their tokens; its plan is the PDOW plan
 * of those documents alone, with every index local to the chunk (token positions from the chunk's first
 * token, documents from its first document, groups from its first group), packed as
 *
 *     token[n] | group_start[G + 1] | group_doc[G] | item_word[I] | item_group[I] | item_end[I]
 *
 * (n tokens, G groups, I items; the meaning of each array is pdow_plan.h's), at elements
 * [offsets[c], offsets[c + 1]) of `packed`. So a chunk's plan is 4 n + 8 G + 12 I + 4 bytes: at most
 * 24 n + 4, since a chunk has at most one group per token and one item per group
 * (SK_LDA_STREAM_PLAN_MAX_BYTES_PER_TOKEN bounds it when the chunks are planned, before the plans exist).
 *
 * The chunks' plans are built in parallel (OpenMP over chunks when the build has it); the result does
 * not depend on the number of threads. Errors: 0 on success, non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_STREAM_PLAN_H
#define SK_LDA_STREAM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a chunk's packed plan per token, at most (plus SK_LDA_STREAM_PLAN_FIXED_BYTES). */
#define SK_LDA_STREAM_PLAN_MAX_BYTES_PER_TOKEN 24
#define SK_LDA_STREAM_PLAN_FIXED_BYTES 4

typedef struct sk_lda_stream_plan {
  int64_t num_chunks;     /* C */
  int64_t *chunk_doc;     /* C + 1: chunk c holds documents [chunk_doc[c], chunk_doc[c + 1]) */
  int64_t *offsets;       /* C + 1: chunk c's packed plan is packed[offsets[c] .. offsets[c + 1]) */
  int32_t *num_groups;    /* C: G of each chunk */
  int32_t *num_items;     /* C: I of each chunk */
  int32_t *packed;        /* offsets[C] int32 elements */
  int32_t max_group_tokens; /* the longest group of any chunk */
} sk_lda_stream_plan;

/*
 * Builds the packed plans of corpus c for the chunks whose document boundaries are chunk_doc[0..C]
 * (chunk_doc[0] = 0, nondecreasing, chunk_doc[C] = D, every chunk at most INT32_MAX tokens), items of
 * at most item_tokens tokens (>= 1), with `threads` OpenMP threads (<= 0: all). *plan is zeroed on
 * failure (bad arguments, host memory).
 */
int sk_lda_stream_plan_build(const sk_lda_corpus *c, const int64_t *chunk_doc, int64_t num_chunks, int32_t item_tokens,
                             int threads, sk_lda_stream_plan *plan, sk_ex_error *err);

/* Frees what the plan owns and zeroes it; NULL or a zeroed plan is fine. */
void sk_lda_stream_plan_free(sk_lda_stream_plan *plan);

/* Host bytes the plan holds (its arrays). */
size_t sk_lda_stream_plan_bytes(const sk_lda_stream_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_STREAM_PLAN_H */
