/*
 * The PDOW plan (pdow_plan.h) built on the GPU: pdow_plan.h's chunks (cut on the host, O(D)), and in each
 * chunk samplekit's sk_csr_chunk_order_device() sorts the tokens by word and sk_csr_chunk_groups_device()
 * finds the groups and items, made global as the host build does, so the arrays are
 * sk_lda_pdow_plan_build(c, chunk_tokens, item_tokens)'s bit for bit (samplekit's device calls give the
 * host's order, groups and items). The resident GPU ESCA sampler builds its plan so when the device has
 * room (gpu/esca_resident.cu), because the host build runs on one thread: about 2 s per 33 million
 * tokens, a minute at 10^9.
 *
 * Everything lives in one device allocation: the plan's arrays with room for T groups and items, and
 * the build's scratch (the tokens, the row offsets, the order's inverse, the word offsets, samplekit's
 * workspace), about 52 bytes a token in all (sk_lda_pdow_plan_gpu_bytes()). The caller copies what it
 * keeps (num_groups and num_items are known once the build returns) and frees the rest.
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_PDOW_PLAN_GPU_H
#define SK_LDA_PDOW_PLAN_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "pdow_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_lda_pdow_plan_gpu {
  int gpu;               /* the CUDA device that holds it */
  int32_t num_docs;      /* D */
  /* The plan as pdow_plan.h's, its sizes on the host (num_groups and num_items read back when the build
     returns, max_group_tokens 0: not computed) and its arrays on the device, inside `block` (chunk_docs
     NULL: the host's copy is below). token has T entries, group_start G + 1 (room for T + 1), group_doc G,
     the item arrays I each (room for T each). */
  sk_lda_pdow_plan plan;
  int32_t *chunk_docs;   /* host: plan.num_chunks + 1 chunk boundaries, as pdow_plan.h's */
  void *block;           /* the one allocation */
  size_t block_bytes;
} sk_lda_pdow_plan_gpu;

/*
 * The bytes of device memory sk_lda_pdow_plan_gpu_build() allocates for corpus c on CUDA device gpu
 * (made current). Fails on NULL, T = 0 or T > INT32_MAX (the device plan is for the resident sampler's
 * corpora), or a failed size query.
 */
int sk_lda_pdow_plan_gpu_bytes(const sk_lda_corpus *c, int gpu, size_t *bytes, sk_ex_error *err);

/*
 * Builds the plan of corpus c (word ids in [0, V): the corpus readers check them) with chunks of at most
 * chunk_tokens tokens (pdow_plan.h's rule; <= 0: one chunk) and items of at most item_tokens tokens
 * (>= 1) on device gpu (made current): the tokens and offsets are copied in, the device work runs on the
 * legacy default stream, chunk after chunk (each chunk's G and I read back), and the call returns once
 * the work is done. On failure *out is zeroed and nothing stays allocated.
 */
int sk_lda_pdow_plan_gpu_build(const sk_lda_corpus *c, int gpu, int64_t chunk_tokens, int32_t item_tokens,
                               sk_lda_pdow_plan_gpu *out, sk_ex_error *err);

/*
 * The plan copied to the host as a pdow_plan.h plan, for tests: free it with
 * sk_lda_pdow_plan_free(). max_group_tokens is computed from the groups.
 */
int sk_lda_pdow_plan_gpu_download(const sk_lda_pdow_plan_gpu *g, sk_lda_pdow_plan *host, sk_ex_error *err);

/* Frees the device block and zeroes *g; NULL or a zeroed plan is fine. */
void sk_lda_pdow_plan_gpu_free(sk_lda_pdow_plan_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_PDOW_PLAN_GPU_H */
