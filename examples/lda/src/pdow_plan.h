/*
 * The order in which the GPU ESCA sampler visits the tokens: PDOW (SaberLDA section 3.2, "partition by
 * document, order by word"). The documents are cut into chunks of consecutive documents; inside a
 * chunk the tokens are sorted by word, and within a word by document (stably, so a document's tokens
 * of one word keep their order). The work is then:
 *
 *   group  the tokens of one word in one document (one chunk): they share the document's row of A and
 *          the word's row of B_hat, so one warp computes the document's sparse sums once and draws
 *          every token of the group from them;
 *   item   consecutive groups of one word in one chunk, at most `item_tokens` tokens (a group is never
 *          split, so an item of one long group may be longer): one block stages the word's row of
 *          B_hat and its tree once and its warps draw the item's groups. Items are listed chunk by
 *          chunk, and inside a chunk by decreasing token count (ties by position): a dynamic scheduler
 *          starts each chunk's long items first, and the blocks work on one chunk's documents at a
 *          time, so that chunks small enough keep their rows of A in L2 while the groups re-read them
 *          (the resident sampler's chunks, about half the L2's bytes in tokens: 24 M tokens on an H200
 *          drew 5.7% faster than one chunk at NYTimes-scale, K = 1,024; bench/RESULTS.md).
 *
 * The order changes nothing in the result: every draw reads the previous sweep's counts and its own
 * random number (indexed by the token's position in document order), so the topics do not depend on
 * the plan. The chunks are sk-lda's (the cut rule below); each chunk's word order, groups and items are
 * samplekit's (csr_chunker.h: sk_csr_chunk_order_rows_host, sk_csr_chunk_groups_host; the GPU builds
 * the same with sk_csr_chunk_groups_device, gpu/pdow_plan_gpu.h), made global here. Built on the host
 * in O(T + D + V * chunks) time; 4 T + 8 groups + 12 items bytes, and
 * 4 (the longest chunk's tokens) + 8 V + 24 items bytes of scratch.
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_PDOW_PLAN_H
#define SK_LDA_PDOW_PLAN_H

#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_lda_pdow_plan {
  int64_t num_tokens;   /* T */
  int32_t num_chunks;   /* chunks of consecutive documents */
  int32_t num_groups;   /* (chunk, word, document) groups */
  int32_t num_items;    /* blocks of work */
  int32_t *chunk_docs;  /* num_chunks + 1: chunk c holds documents [chunk_docs[c], chunk_docs[c + 1]) */
  int32_t *token;       /* T: the token (its index in document order) at each PDOW position */
  int32_t *group_start; /* num_groups + 1: group g's PDOW positions are [group_start[g], group_start[g + 1]) */
  int32_t *group_doc;   /* num_groups: the document of group g */
  int32_t *item_word;   /* num_items: the word of item i */
  int32_t *item_group;  /* num_items: item i's groups are [item_group[i], item_end[i]), */
  int32_t *item_end;    /* num_items:   consecutive groups of one word in one chunk */
  int32_t max_group_tokens; /* the longest group */
} sk_lda_pdow_plan;

/*
 * Builds the plan of corpus c (T <= INT32_MAX): chunks of consecutive documents holding at most
 * chunk_tokens tokens each (<= 0: one chunk for the whole corpus), cut greedily before a non-empty
 * document that would not fit, so a chunk holds more than chunk_tokens tokens only when it has exactly
 * one non-empty document (empty documents join the chunk before them), items of at most item_tokens tokens
 * (>= 1). Fails on NULL, T > INT32_MAX, item_tokens < 1, a word id outside [0, V) or when memory runs
 * out (*plan is then zeroed).
 */
int sk_lda_pdow_plan_build(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens,
                           sk_lda_pdow_plan *plan, sk_ex_error *err);

/*
 * The sizes of the plan that sk_lda_pdow_plan_build(c, chunk_tokens, item_tokens, ...) would build,
 * without building it: *num_groups and *num_items are exactly its num_groups and num_items for every
 * input the build accepts (the chunks are cut by the build's own rule), so that a GPU sampler can size
 * its device arrays before the plan exists (its token array has T entries). O(T + D + V) time,
 * 16 (V + 1) bytes of host memory, no T-sized array. Fails on the inputs the build fails on (with the
 * same messages), on NULL num_groups or num_items and when memory runs out; both are then 0 (when not
 * NULL).
 */
int sk_lda_pdow_plan_count(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens, int32_t *num_groups,
                           int32_t *num_items, sk_ex_error *err);

/*
 * The chunks that sk_lda_pdow_plan_build(c, chunk_tokens, ...) cuts, for builds that make the rest of
 * the plan elsewhere (gpu/pdow_plan_gpu.h): *chunk_docs gets a malloc'd array (free() it) of
 * *num_chunks + 1 boundaries, as the plan's chunk_docs (D = 0: one empty chunk). Returns 1 when memory
 * runs out (*chunk_docs NULL, *num_chunks 0), else 0. c must be a corpus the build accepts.
 */
int sk_lda_pdow_plan_chunks(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t **chunk_docs, int32_t *num_chunks);

/* Frees what the plan owns and zeroes it; NULL or a zeroed plan is fine. */
void sk_lda_pdow_plan_free(sk_lda_pdow_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_PDOW_PLAN_H */
