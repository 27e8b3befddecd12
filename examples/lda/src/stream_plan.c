/* The packed per-chunk PDOW plans of the streamed GPU ESCA sweep (stream_plan.h). */
#include "stream_plan.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pdow_plan.h"

void sk_lda_stream_plan_free(sk_lda_stream_plan *plan) {
  if (plan == NULL) return;
  free(plan->chunk_doc);
  free(plan->offsets);
  free(plan->num_groups);
  free(plan->num_items);
  free(plan->packed);
  memset(plan, 0, sizeof *plan);
}

size_t sk_lda_stream_plan_bytes(const sk_lda_stream_plan *plan) {
  if (plan == NULL || plan->offsets == NULL) return 0;
  const size_t C = (size_t)plan->num_chunks;
  return (C + 1) * 2 * sizeof(int64_t) + C * 2 * sizeof(int32_t) + (size_t)plan->offsets[C] * sizeof(int32_t);
}

/* Chunk c's PDOW plan, local to the chunk: the plan of a corpus view holding the chunk's documents
   alone, with offsets rebased to its first token (the view shares the tokens, not a copy). */
static int chunk_plan(const sk_lda_corpus *c, int64_t d0, int64_t d1, int32_t item_tokens, int64_t *offsets,
                      sk_lda_pdow_plan *out) {
  const int64_t t0 = c->doc_offsets[d0];
  for (int64_t d = d0; d <= d1; ++d) offsets[d - d0] = c->doc_offsets[d] - t0;
  sk_lda_corpus view;
  memset(&view, 0, sizeof view);
  view.num_docs = (int32_t)(d1 - d0);
  view.num_words = c->num_words;
  view.num_tokens = c->doc_offsets[d1] - t0;
  view.doc_offsets = offsets;
  view.tokens = c->tokens + t0;
  return sk_lda_pdow_plan_build(&view, 0, item_tokens, out, NULL);
}

static size_t packed_elements(const sk_lda_pdow_plan *p) {
  return (size_t)p->num_tokens + 2 * (size_t)p->num_groups + 1 + 3 * (size_t)p->num_items;
}

static void pack(const sk_lda_pdow_plan *p, int32_t *dst) {
  const size_t n = (size_t)p->num_tokens, G = (size_t)p->num_groups, I = (size_t)p->num_items;
  memcpy(dst, p->token, n * sizeof *dst);
  dst += n;
  memcpy(dst, p->group_start, (G + 1) * sizeof *dst);
  dst += G + 1;
  memcpy(dst, p->group_doc, G * sizeof *dst);
  dst += G;
  memcpy(dst, p->item_word, I * sizeof *dst);
  dst += I;
  memcpy(dst, p->item_group, I * sizeof *dst);
  dst += I;
  memcpy(dst, p->item_end, I * sizeof *dst);
}

static int check_chunks(const sk_lda_corpus *c, const int64_t *chunk_doc, int64_t C, sk_ex_error *err) {
  if (C < 1 || chunk_doc[0] != 0 || chunk_doc[C] != c->num_docs)
    return sk_ex_fail(err, "stream plan: chunk boundaries must run from document 0 to %d", (int)c->num_docs);
  for (int64_t k = 0; k < C; ++k) {
    if (chunk_doc[k + 1] < chunk_doc[k])
      return sk_ex_fail(err, "stream plan: chunk %lld's documents decrease", (long long)k);
    if (c->doc_offsets[chunk_doc[k + 1]] - c->doc_offsets[chunk_doc[k]] > INT32_MAX)
      return sk_ex_fail(err, "stream plan: chunk %lld has more than %d tokens", (long long)k, INT32_MAX);
  }
  return 0;
}

int sk_lda_stream_plan_build(const sk_lda_corpus *c, const int64_t *chunk_doc, int64_t num_chunks, int32_t item_tokens,
                             int threads, sk_lda_stream_plan *plan, sk_ex_error *err) {
  if (plan == NULL) return sk_ex_fail(err, "stream plan: plan is NULL");
  memset(plan, 0, sizeof *plan);
  if (c == NULL || chunk_doc == NULL || c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL))
    return sk_ex_fail(err, "stream plan: corpus or chunks NULL");
  if (item_tokens < 1) return sk_ex_fail(err, "stream plan: item_tokens %d is below 1", (int)item_tokens);
  if (check_chunks(c, chunk_doc, num_chunks, err) != 0) return 1;
  const int64_t C = num_chunks;
  sk_lda_pdow_plan *plans = (sk_lda_pdow_plan *)calloc((size_t)C, sizeof *plans);
  plan->chunk_doc = (int64_t *)malloc(((size_t)C + 1) * sizeof *plan->chunk_doc);
  plan->offsets = (int64_t *)malloc(((size_t)C + 1) * sizeof *plan->offsets);
  plan->num_groups = (int32_t *)malloc((size_t)C * sizeof *plan->num_groups);
  plan->num_items = (int32_t *)malloc((size_t)C * sizeof *plan->num_items);
  int failed = plans == NULL || plan->chunk_doc == NULL || plan->offsets == NULL || plan->num_groups == NULL ||
               plan->num_items == NULL;
  if (!failed) {
    plan->num_chunks = C;
    memcpy(plan->chunk_doc, chunk_doc, ((size_t)C + 1) * sizeof *chunk_doc);
    /* Each chunk's plan on its own thread (a chunk's offsets view: its documents + 1 int64s). */
    const int nthreads = sk_lda_detail_threads(threads);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) reduction(| : failed)
    for (int64_t k = 0; k < C; ++k) {
      const int64_t d0 = chunk_doc[k], d1 = chunk_doc[k + 1];
      int64_t *offsets = (int64_t *)malloc(((size_t)(d1 - d0) + 1) * sizeof *offsets);
      if (offsets == NULL || chunk_plan(c, d0, d1, item_tokens, offsets, &plans[k]) != 0) failed |= 1;
      free(offsets);
    }
    if (!failed) {
      plan->offsets[0] = 0;
      for (int64_t k = 0; k < C; ++k) {
        plan->offsets[k + 1] = plan->offsets[k] + (int64_t)packed_elements(&plans[k]);
        plan->num_groups[k] = plans[k].num_groups;
        plan->num_items[k] = plans[k].num_items;
        if (plans[k].max_group_tokens > plan->max_group_tokens) plan->max_group_tokens = plans[k].max_group_tokens;
      }
      plan->packed = (int32_t *)malloc(((size_t)plan->offsets[C] > 0 ? (size_t)plan->offsets[C] : 1) * sizeof(int32_t));
      failed = plan->packed == NULL;
    }
    if (!failed) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
      for (int64_t k = 0; k < C; ++k) {
        pack(&plans[k], plan->packed + plan->offsets[k]);
        sk_lda_pdow_plan_free(&plans[k]);
      }
    }
  }
  if (plans != NULL)
    for (int64_t k = 0; k < C; ++k) sk_lda_pdow_plan_free(&plans[k]);
  free(plans);
  if (failed) {
    sk_lda_stream_plan_free(plan);
    return sk_ex_fail(err, "stream plan: out of host memory (%lld tokens in %lld chunks)", (long long)c->num_tokens,
                       (long long)C);
  }
  return 0;
}
