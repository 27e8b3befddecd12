/*
 * The order in which the GPU AGA-LDA sampler visits the tokens (Moon et al., Euro-Par 2018; the
 * dissertation's section 2.5): the documents in mini-batches of consecutive documents, processed one
 * after the other; inside a mini-batch the tokens sorted by word (and by document within a word, in
 * document order: samplekit's sk_csr_chunk_order_rows_host, csr_chunker.h), cut into column panels:
 * runs of words, at most `panel_words` distinct words each, so that a panel's rows of the word-topic
 * counts fit in one block's shared memory, and at most about 1 / panels_per_batch of the mini-batch's
 * tokens each, so that a mini-batch gives the GPU enough blocks of even work.
 *
 * The paper's panels hold whole words: a word's tokens are drawn by one block, and a frequent word's
 * panel then runs long after the others are done (bench/RESULTS.md, issue 14, measured). With
 * split_words a panel is cut as soon as it holds its share of tokens, inside a word if need be: only a
 * panel's first and last word can then be shared with its neighbours (panel_flags says which), and the
 * GPU sweep keeps the global counts of a shared word's row current with atomics instead of writing
 * the row back (gpu/aga_kernels.cuh).
 *
 *   mini-batch b  documents [batch_doc[b], batch_doc[b + 1]), panels [batch_panel[b], batch_panel[b + 1])
 *   panel p       positions [panel_pos[p], panel_pos[p + 1]) of `order`, words
 *                 words[panel_word[p] .. panel_word[p + 1]) (increasing); panel_flags[p] has
 *                 SK_LDA_AGA_SHARES_FIRST when its first word's tokens begin in the panel before, and
 *                 SK_LDA_AGA_SHARES_LAST when its last word's tokens go on in the panel after
 *   position i    token order[i] (its index in document order), of document doc[i], whose word is the
 *                 local[i]-th of its panel's words
 *
 * Built on the host in O(T + V x mini-batches) time; 12 T + 9 (panels) + 8 (mini-batches) + 4 (words
 * of all panels) bytes. Errors: 0 on success, non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_AGA_PLAN_H
#define SK_LDA_AGA_PLAN_H

#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* panel_flags bits: the panel's first (last) word is shared with the panel before (after) it. */
#define SK_LDA_AGA_SHARES_FIRST 1
#define SK_LDA_AGA_SHARES_LAST 2

typedef struct sk_lda_aga_plan {
  int64_t num_tokens;   /* T */
  int32_t num_batches;  /* mini-batches */
  int32_t num_panels;   /* panels of all mini-batches */
  int32_t num_panel_words; /* entries of words[] */
  int32_t max_batch_docs;  /* the most documents in one mini-batch */
  int32_t *batch_doc;   /* num_batches + 1 */
  int32_t *batch_panel; /* num_batches + 1 */
  int32_t *panel_pos;   /* num_panels + 1 */
  int32_t *panel_word;  /* num_panels + 1 */
  uint8_t *panel_flags; /* num_panels: SK_LDA_AGA_SHARES_FIRST | SK_LDA_AGA_SHARES_LAST */
  int32_t *words;       /* num_panel_words */
  int32_t *order;       /* T */
  int32_t *doc;         /* T, by position */
  int32_t *local;       /* T, by position */
} sk_lda_aga_plan;

/*
 * Builds the plan of corpus c for mini-batches of `minibatch_docs` documents (>= 1; the last may be
 * shorter) and panels of at most `panel_words` (>= 1) words. Once a panel has ceil(batch tokens /
 * panels_per_batch) tokens (panels_per_batch 0: no such limit), a new one starts: at the next token
 * with split_words, else before the next word. A corpus of no documents gives no mini-batch. Fails on
 * bad arguments, a word id outside [0, V) and when memory runs out; *out is then zeroed.
 */
int sk_lda_aga_plan_build(const sk_lda_corpus *c, int32_t minibatch_docs, int32_t panel_words,
                          int32_t panels_per_batch, int split_words, sk_lda_aga_plan *out, sk_ex_error *err);

/* The sizes of a plan, as sk_lda_aga_plan_count gives them before the plan is built. */
typedef struct sk_lda_aga_plan_sizes {
  int32_t num_batches;     /* mini-batches */
  int32_t num_panels;      /* panels of all mini-batches */
  int32_t num_panel_words; /* entries of words[] */
  int32_t max_batch_docs;  /* the most documents in one mini-batch */
} sk_lda_aga_plan_sizes;

/*
 * The sizes of the plan that sk_lda_aga_plan_build would build with the same arguments, without building
 * it: out's fields are exactly the plan's num_batches, num_panels, num_panel_words and max_batch_docs for
 * every input the build accepts, so that a GPU sampler can size its device arrays before the plan exists.
 * Counts each mini-batch's words and walks them as runs (a split word's cuts computed, not walked):
 * O(T + V x mini-batches) time, 4 (V + 1) bytes of host memory, no T-sized array. Fails on the inputs the
 * build fails on (with the same messages), on NULL out and when memory runs out; *out is then zeroed
 * (when not NULL).
 */
int sk_lda_aga_plan_count(const sk_lda_corpus *c, int32_t minibatch_docs, int32_t panel_words,
                          int32_t panels_per_batch, int split_words, sk_lda_aga_plan_sizes *out,
                          sk_ex_error *err);

/* Frees the plan's arrays and zeroes it; NULL or a zeroed plan is fine. */
void sk_lda_aga_plan_free(sk_lda_aga_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_AGA_PLAN_H */
