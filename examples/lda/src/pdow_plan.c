/* The PDOW plan of the GPU ESCA sampler (pdow_plan.h): sk-lda's chunks, and in each chunk samplekit's word
   order, groups and items (csr_chunker.h), built on the host. */
#include "pdow_plan.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/csr_chunker.h"

void sk_lda_pdow_plan_free(sk_lda_pdow_plan *plan) {
  if (plan == NULL) return;
  free(plan->chunk_docs);
  free(plan->token);
  free(plan->group_start);
  free(plan->group_doc);
  free(plan->item_word);
  free(plan->item_group);
  free(plan->item_end);
  memset(plan, 0, sizeof *plan);
}

/* The end of the chunk that starts at document d0 < D: documents are added while the chunk holds at most
   chunk_tokens tokens, a non-empty document that would not fit starts the next chunk unless the chunk
   holds no token yet, and empty documents always join. The one cut rule of the build, the count and
   (through sk_lda_pdow_plan_chunks()) the device build. */
static int32_t chunk_end(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t d0) {
  int64_t in_chunk = 0;
  int32_t d = d0;
  for (; d < c->num_docs; ++d) {
    const int64_t n = c->doc_offsets[d + 1] - c->doc_offsets[d];
    if (chunk_tokens > 0 && n > 0 && in_chunk > 0 && in_chunk + n > chunk_tokens) break;
    in_chunk += n;
  }
  return d;
}

int sk_lda_pdow_plan_chunks(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t **chunk_docs, int32_t *num_chunks) {
  int32_t chunks = 0, d = 0;
  int32_t *docs = (int32_t *)malloc(((size_t)c->num_docs + 2) * sizeof *docs);
  *chunk_docs = docs;
  *num_chunks = 0;
  if (docs == NULL) return 1;
  docs[0] = 0;
  do {
    d = chunk_end(c, chunk_tokens, d);
    docs[++chunks] = d;
  } while (d < c->num_docs);
  *num_chunks = chunks;
  return 0;
}

/* The checks that the build and the count share; 0 when c and item_tokens are fine. */
static int check_input(const sk_lda_corpus *c, int32_t item_tokens, sk_ex_error *err) {
  if (c == NULL || (c->num_tokens > 0 && c->tokens == NULL) ||
      ((c->num_docs > 0 || c->num_tokens > 0) && c->doc_offsets == NULL))
    return sk_ex_fail(err, "PDOW plan: corpus is NULL or empty of arrays");
  if (c->num_tokens > INT32_MAX)
    return sk_ex_fail(err, "PDOW plan: %lld tokens; at most %d", (long long)c->num_tokens, INT32_MAX);
  if (item_tokens < 1) return sk_ex_fail(err, "PDOW plan: item_tokens %d is below 1", (int)item_tokens);
  return 0;
}

/* Chunk ch's documents, first token and tokens (NULL when it has none: the corpus's may be NULL). */
static const int32_t *chunk_span(const sk_lda_corpus *c, const sk_lda_pdow_plan *p, int32_t ch, int32_t *d0,
                                 int32_t *d1, int64_t *t0, int64_t *n) {
  *d0 = p->chunk_docs[ch];
  *d1 = p->chunk_docs[ch + 1];
  *t0 = *d0 < *d1 ? c->doc_offsets[*d0] : 0;
  *n = *d0 < *d1 ? c->doc_offsets[*d1] - *t0 : 0;
  return *n > 0 ? c->tokens + *t0 : NULL;
}

/* samplekit's failures here are bad tokens (a word id outside [0, V)) or memory. */
static int samplekit_fail(sk_status st, const sk_lda_corpus *c, sk_ex_error *err) {
  if (st == SK_ERROR_HOST_ALLOCATION_FAILED)
    return sk_ex_fail(err, "PDOW plan: out of memory (%lld tokens, V = %d)", (long long)c->num_tokens,
                       (int)c->num_words);
  return sk_ex_fail(err, "PDOW plan: %s (a word id outside [0, %d)?)", sk_status_string(st), (int)c->num_words);
}

/* Room for `groups` groups and `items` items in the plan's arrays (capacities *group_cap, *item_cap, grown
   to at least twice what they were, so that chunk after chunk costs O(G + I) copies in all). */
static int reserve(sk_lda_pdow_plan *p, size_t groups, size_t items, size_t *group_cap, size_t *item_cap) {
  if (groups > *group_cap) {
    const size_t cap = groups > 2 * *group_cap ? groups : 2 * *group_cap;
    int32_t *gs = (int32_t *)realloc(p->group_start, (cap + 1) * sizeof *gs);
    if (gs != NULL) p->group_start = gs;
    int32_t *gd = (int32_t *)realloc(p->group_doc, (cap + 1) * sizeof *gd);
    if (gd != NULL) p->group_doc = gd;
    if (gs == NULL || gd == NULL) return 1;
    *group_cap = cap;
  }
  if (items > *item_cap) {
    const size_t cap = items > 2 * *item_cap ? items : 2 * *item_cap;
    int32_t **const fields[3] = {&p->item_word, &p->item_group, &p->item_end};
    for (int f = 0; f < 3; ++f) {
      int32_t *a = (int32_t *)realloc(*fields[f], (cap + 1) * sizeof *a);
      if (a == NULL) return 1;
      *fields[f] = a;
    }
    *item_cap = cap;
  }
  return 0;
}

/* Chunk by chunk: samplekit's word order of the chunk with each position's document, then its count and
   its groups and items, written in place and made global (positions from the chunk's first token,
   documents from its first document, groups from its first group). */
int sk_lda_pdow_plan_build(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens,
                           sk_lda_pdow_plan *plan, sk_ex_error *err) {
  if (plan == NULL) return sk_ex_fail(err, "PDOW plan: plan is NULL");
  memset(plan, 0, sizeof *plan);
  if (check_input(c, item_tokens, err) != 0) return 1;
  sk_lda_pdow_plan *p = plan;
  const size_t T = (size_t)c->num_tokens;
  p->num_tokens = c->num_tokens;
  sk_status st = sk_lda_pdow_plan_chunks(c, chunk_tokens, &p->chunk_docs, &p->num_chunks) != 0
                     ? SK_ERROR_HOST_ALLOCATION_FAILED
                     : SK_SUCCESS;
  const int32_t C = p->num_chunks;
  int64_t most = 0; /* the longest chunk's tokens */
  for (int32_t ch = 0; ch < C && st == SK_SUCCESS; ++ch) {
    int32_t d0, d1;
    int64_t t0, n;
    (void)chunk_span(c, p, ch, &d0, &d1, &t0, &n);
    if (n > most) most = n;
  }
  int32_t *position_doc = (int32_t *)malloc(((size_t)most > 0 ? (size_t)most : 1) * sizeof *position_doc);
  int64_t *offsets = (int64_t *)malloc(((size_t)c->num_words + 1) * sizeof *offsets);
  p->token = (int32_t *)malloc((T > 0 ? T : 1) * sizeof *p->token);
  size_t group_cap = 0, item_cap = 0;
  if (st == SK_SUCCESS && (position_doc == NULL || offsets == NULL || p->token == NULL ||
                           reserve(p, 1, 1, &group_cap, &item_cap) != 0))
    st = SK_ERROR_HOST_ALLOCATION_FAILED;
  if (st == SK_SUCCESS) p->group_start[0] = 0; /* for a corpus of no documents */
  int64_t G = 0, I = 0;
  for (int32_t ch = 0; ch < C && st == SK_SUCCESS; ++ch) {
    int32_t d0, d1;
    int64_t t0, n, g = 0, i = 0;
    const int32_t *tokens = chunk_span(c, p, ch, &d0, &d1, &t0, &n);
    if (d0 == d1) continue;
    st = sk_csr_chunk_order_rows_host(c->doc_offsets + d0, d1 - d0, tokens, n, c->num_words, p->token + t0,
                                      position_doc, offsets);
    if (st == SK_SUCCESS)
      st = sk_csr_chunk_groups_count_host(position_doc, n, c->num_words, offsets, item_tokens, &g, &i);
    if (st == SK_SUCCESS && reserve(p, (size_t)(G + g), (size_t)(I + i), &group_cap, &item_cap) != 0)
      st = SK_ERROR_HOST_ALLOCATION_FAILED;
    if (st == SK_SUCCESS)
      st = sk_csr_chunk_groups_host(position_doc, n, c->num_words, offsets, item_tokens, p->group_start + G,
                                    p->group_doc + G, g, p->item_word + I, p->item_group + I, p->item_end + I, i, &g,
                                    &i);
    if (st != SK_SUCCESS) break;
    if (t0 > 0) {
      for (int64_t j = 0; j < n; ++j) p->token[t0 + j] += (int32_t)t0;
      for (int64_t k = G; k <= G + g; ++k) p->group_start[k] += (int32_t)t0;
    }
    if (d0 > 0)
      for (int64_t k = G; k < G + g; ++k) p->group_doc[k] += d0;
    if (G > 0)
      for (int64_t k = I; k < I + i; ++k) {
        p->item_group[k] += (int32_t)G;
        p->item_end[k] += (int32_t)G;
      }
    G += g;
    I += i;
  }
  free(position_doc);
  free(offsets);
  if (st == SK_SUCCESS) {
    p->num_groups = (int32_t)G;
    p->num_items = (int32_t)I;
    for (int64_t g = 0; g < G; ++g) {
      const int32_t n = p->group_start[g + 1] - p->group_start[g];
      if (n > p->max_group_tokens) p->max_group_tokens = n;
    }
  }
  if (st != SK_SUCCESS) {
    sk_lda_pdow_plan_free(p);
    return samplekit_fail(st, c, err);
  }
  /* Give back what the growth left over (several chunks only: one chunk's arrays are exact). */
  if (group_cap > (size_t)G) {
    int32_t *gs = (int32_t *)realloc(p->group_start, ((size_t)G + 1) * sizeof *gs);
    int32_t *gd = (int32_t *)realloc(p->group_doc, ((size_t)G + 1) * sizeof *gd);
    if (gs != NULL) p->group_start = gs;
    if (gd != NULL) p->group_doc = gd;
  }
  if (item_cap > (size_t)I) {
    int32_t **const fields[3] = {&p->item_word, &p->item_group, &p->item_end};
    for (int f = 0; f < 3; ++f) {
      int32_t *a = (int32_t *)realloc(*fields[f], ((size_t)I + 1) * sizeof *a);
      if (a != NULL) *fields[f] = a;
    }
  }
  return 0;
}

/* A group is a distinct (document, word) pair of a chunk, and a word's groups in a chunk come in document
   order, so walking the documents in order and each document's distinct words gives every word's groups
   in the order plan_items meets them: each word keeps its open item (its chunk and tokens) and starts a
   new one on a new chunk or when the group would take the open one past item_tokens. */
int sk_lda_pdow_plan_count(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens, int32_t *num_groups,
                           int32_t *num_items, sk_ex_error *err) {
  if (num_groups != NULL) *num_groups = 0;
  if (num_items != NULL) *num_items = 0;
  if (num_groups == NULL || num_items == NULL) return sk_ex_fail(err, "PDOW plan: num_groups or num_items is NULL");
  if (check_input(c, item_tokens, err) != 0) return 1;
  const size_t V = (size_t)c->num_words + 1;
  int32_t *in_doc = (int32_t *)calloc(V, sizeof *in_doc);      /* the document's tokens of each word */
  int32_t *item_chunk = (int32_t *)malloc(V * sizeof *item_chunk); /* the chunk of each word's open item */
  int64_t *item_size = (int64_t *)malloc(V * sizeof *item_size);   /* its tokens */
  if (in_doc == NULL || item_chunk == NULL || item_size == NULL) {
    free(in_doc);
    free(item_chunk);
    free(item_size);
    return sk_ex_fail(err, "PDOW plan: out of memory counting (V = %d)", (int)c->num_words);
  }
  for (size_t v = 0; v < V; ++v) item_chunk[v] = -1;
  int32_t groups = 0, items = 0;
  for (int32_t d0 = 0, ch = 0; d0 < c->num_docs; ++ch) {
    const int32_t d1 = chunk_end(c, chunk_tokens, d0);
    for (int32_t d = d0; d < d1; ++d) {
      const int64_t t0 = c->doc_offsets[d], t1 = c->doc_offsets[d + 1];
      for (int64_t t = t0; t < t1; ++t) ++in_doc[c->tokens[t]];
      for (int64_t t = t0; t < t1; ++t) {
        const int32_t w = c->tokens[t], n = in_doc[w];
        if (n == 0) continue; /* the group of (d, w) is already counted */
        in_doc[w] = 0;
        ++groups;
        if (item_chunk[w] != ch || item_size[w] + n > item_tokens) {
          ++items;
          item_chunk[w] = ch;
          item_size[w] = n;
        } else {
          item_size[w] += n;
        }
      }
    }
    d0 = d1;
  }
  free(in_doc);
  free(item_chunk);
  free(item_size);
  *num_groups = groups;
  *num_items = items;
  return 0;
}
