/* The PDOW plan of the GPU ESCA sampler (pdow_plan.h): chunks, groups and items, built on the host. */
#include "pdow_plan.h"

#include <stdlib.h>
#include <string.h>

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
   holds no token yet, and empty documents always join. The one cut rule of the build and the count. */
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

/* Chunk boundaries; D = 0 gives one empty chunk. */
static int plan_chunks(const sk_lda_corpus *c, int64_t chunk_tokens, sk_lda_pdow_plan *p) {
  int32_t chunks = 0, d = 0;
  p->chunk_docs = (int32_t *)malloc(((size_t)c->num_docs + 2) * sizeof *p->chunk_docs);
  if (p->chunk_docs == NULL) return 1;
  p->chunk_docs[0] = 0;
  do {
    d = chunk_end(c, chunk_tokens, d);
    p->chunk_docs[++chunks] = d;
  } while (d < c->num_docs);
  p->num_chunks = chunks;
  return 0;
}

/* The checks that the build and the count share; 0 when c and item_tokens are fine. */
static int check_input(const sk_lda_corpus *c, int32_t item_tokens, sk_lda_error *err) {
  if (c == NULL || (c->num_tokens > 0 && c->tokens == NULL) ||
      ((c->num_docs > 0 || c->num_tokens > 0) && c->doc_offsets == NULL))
    return sk_lda_fail(err, "PDOW plan: corpus is NULL or empty of arrays");
  if (c->num_tokens > INT32_MAX)
    return sk_lda_fail(err, "PDOW plan: %lld tokens; at most %d", (long long)c->num_tokens, INT32_MAX);
  if (item_tokens < 1) return sk_lda_fail(err, "PDOW plan: item_tokens %d is below 1", (int)item_tokens);
  return 0;
}

void sk_lda_order_by_word(const sk_lda_corpus *c, int32_t d0, int32_t d1, int32_t *count, int32_t *token,
                          int32_t *doc) {
  if (d0 == d1) return; /* no documents: doc_offsets may be NULL (D = 0) */
  const int64_t t0 = c->doc_offsets[d0], t1 = c->doc_offsets[d1];
  for (int64_t t = t0; t < t1; ++t) ++count[c->tokens[t] + 1];
  for (int32_t v = 0; v < c->num_words; ++v) count[v + 1] += count[v];
  for (int32_t d = d0; d < d1; ++d)
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) {
      const int64_t pos = t0 + count[c->tokens[t]]++;
      token[pos] = (int32_t)t;
      doc[pos] = d;
    }
  memset(count, 0, ((size_t)c->num_words + 1) * sizeof *count);
}

/* Tokens by (chunk, word, document); pos_doc gets each position's document. */
static void plan_order(const sk_lda_corpus *c, sk_lda_pdow_plan *p, int32_t *count, int32_t *pos_doc) {
  for (int32_t ch = 0; ch < p->num_chunks; ++ch)
    sk_lda_order_by_word(c, p->chunk_docs[ch], p->chunk_docs[ch + 1], count, p->token, pos_doc);
}

/* Groups: maximal runs of positions with one word and one document (chunks never share a document). */
static int32_t plan_groups(const sk_lda_corpus *c, sk_lda_pdow_plan *p, const int32_t *pos_doc) {
  int32_t groups = 0;
  for (int64_t pos = 0; pos < c->num_tokens; ++pos) {
    const int32_t t = p->token[pos];
    if (pos == 0 || pos_doc[pos] != pos_doc[pos - 1] || c->tokens[t] != c->tokens[p->token[pos - 1]]) {
      if (p->group_start != NULL) {
        p->group_start[groups] = (int32_t)pos;
        p->group_doc[groups] = pos_doc[pos];
      }
      ++groups;
    }
  }
  if (p->group_start != NULL) p->group_start[groups] = (int32_t)c->num_tokens;
  return groups;
}

/* Items: runs of groups of one word (and chunk: a new chunk starts a new group of a new document),
   cut before a group that would take the item past item_tokens. Fills the arrays when they are set. */
static int32_t plan_items(const sk_lda_corpus *c, sk_lda_pdow_plan *p, int32_t item_tokens,
                          const int32_t *group_chunk) {
  int32_t items = 0, begin = 0;
  for (int32_t g = 0; g <= p->num_groups; ++g) {
    int cut = g == p->num_groups;
    if (!cut && g > begin) {
      const int32_t word = c->tokens[p->token[p->group_start[g]]];
      const int32_t word_prev = c->tokens[p->token[p->group_start[g - 1]]];
      cut = word != word_prev || group_chunk[g] != group_chunk[g - 1] ||
            (int64_t)p->group_start[g + 1] - p->group_start[begin] > (int64_t)item_tokens;
    }
    if (cut && g > begin) {
      if (p->item_word != NULL) {
        p->item_word[items] = c->tokens[p->token[p->group_start[begin]]];
        p->item_group[items] = begin;
        p->item_end[items] = g;
      }
      ++items;
      begin = g;
    }
  }
  return items;
}

/* Sorting items by decreasing token count, ties by position. */
typedef struct item_key {
  int32_t tokens, index;
} item_key;

static int item_key_order(const void *a, const void *b) {
  const item_key *x = (const item_key *)a, *y = (const item_key *)b;
  if (x->tokens != y->tokens) return x->tokens > y->tokens ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static int plan_sort_items(sk_lda_pdow_plan *p) {
  const size_t n = (size_t)p->num_items;
  item_key *keys = (item_key *)malloc((n > 0 ? n : 1) * sizeof *keys);
  int32_t *tmp = (int32_t *)malloc((n > 0 ? n : 1) * 3 * sizeof *tmp);
  if (keys == NULL || tmp == NULL) {
    free(keys);
    free(tmp);
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    keys[i].tokens = p->group_start[p->item_end[i]] - p->group_start[p->item_group[i]];
    keys[i].index = (int32_t)i;
  }
  qsort(keys, n, sizeof *keys, item_key_order);
  int32_t *const fields[3] = {p->item_word, p->item_group, p->item_end};
  for (int f = 0; f < 3; ++f) {
    for (size_t i = 0; i < n; ++i) tmp[i] = fields[f][keys[i].index];
    memcpy(fields[f], tmp, n * sizeof *tmp);
  }
  free(keys);
  free(tmp);
  return 0;
}

int sk_lda_pdow_plan_build(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens,
                           sk_lda_pdow_plan *plan, sk_lda_error *err) {
  if (plan == NULL) return sk_lda_fail(err, "PDOW plan: plan is NULL");
  memset(plan, 0, sizeof *plan);
  if (check_input(c, item_tokens, err) != 0) return 1;
  sk_lda_pdow_plan *p = plan;
  const size_t T = (size_t)c->num_tokens;
  p->num_tokens = c->num_tokens;
  int32_t *count = (int32_t *)calloc((size_t)c->num_words + 1, sizeof *count);
  int32_t *pos_doc = (int32_t *)malloc((T > 0 ? T : 1) * sizeof *pos_doc);
  p->token = (int32_t *)malloc((T > 0 ? T : 1) * sizeof *p->token);
  int failed = count == NULL || pos_doc == NULL || p->token == NULL || plan_chunks(c, chunk_tokens, p) != 0;
  int32_t *group_chunk = NULL;
  if (!failed) {
    plan_order(c, p, count, pos_doc);
    p->num_groups = plan_groups(c, p, pos_doc); /* count first, then fill */
    p->group_start = (int32_t *)malloc(((size_t)p->num_groups + 1) * sizeof *p->group_start);
    p->group_doc = (int32_t *)malloc(((size_t)p->num_groups + 1) * sizeof *p->group_doc);
    group_chunk = (int32_t *)malloc(((size_t)p->num_groups + 1) * sizeof *group_chunk);
    failed = p->group_start == NULL || p->group_doc == NULL || group_chunk == NULL;
  }
  if (!failed) {
    plan_groups(c, p, pos_doc);
    for (int32_t g = 0, ch = 0; g < p->num_groups; ++g) {
      while (p->group_doc[g] >= p->chunk_docs[ch + 1]) ++ch;
      group_chunk[g] = ch;
    }
    p->num_items = plan_items(c, p, item_tokens, group_chunk);
    const size_t items = (size_t)p->num_items > 0 ? (size_t)p->num_items : 1;
    p->item_word = (int32_t *)malloc(items * sizeof *p->item_word);
    p->item_group = (int32_t *)malloc(items * sizeof *p->item_group);
    p->item_end = (int32_t *)malloc(items * sizeof *p->item_end);
    failed = p->item_word == NULL || p->item_group == NULL || p->item_end == NULL;
  }
  if (!failed) {
    plan_items(c, p, item_tokens, group_chunk);
    for (int32_t g = 0; g < p->num_groups; ++g) {
      const int32_t n = p->group_start[g + 1] - p->group_start[g];
      if (n > p->max_group_tokens) p->max_group_tokens = n;
    }
    failed = plan_sort_items(p);
  }
  free(count);
  free(pos_doc);
  free(group_chunk);
  if (failed) {
    sk_lda_pdow_plan_free(p);
    return sk_lda_fail(err, "PDOW plan: out of memory (%lld tokens, V = %d)", (long long)c->num_tokens,
                       (int)c->num_words);
  }
  return 0;
}

/* A group is a distinct (document, word) pair of a chunk, and a word's groups in a chunk come in document
   order, so walking the documents in order and each document's distinct words gives every word's groups
   in the order plan_items meets them: each word keeps its open item (its chunk and tokens) and starts a
   new one on a new chunk or when the group would take the open one past item_tokens. */
int sk_lda_pdow_plan_count(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens, int32_t *num_groups,
                           int32_t *num_items, sk_lda_error *err) {
  if (num_groups != NULL) *num_groups = 0;
  if (num_items != NULL) *num_items = 0;
  if (num_groups == NULL || num_items == NULL) return sk_lda_fail(err, "PDOW plan: num_groups or num_items is NULL");
  if (check_input(c, item_tokens, err) != 0) return 1;
  const size_t V = (size_t)c->num_words + 1;
  int32_t *in_doc = (int32_t *)calloc(V, sizeof *in_doc);      /* the document's tokens of each word */
  int32_t *item_chunk = (int32_t *)malloc(V * sizeof *item_chunk); /* the chunk of each word's open item */
  int64_t *item_size = (int64_t *)malloc(V * sizeof *item_size);   /* its tokens */
  if (in_doc == NULL || item_chunk == NULL || item_size == NULL) {
    free(in_doc);
    free(item_chunk);
    free(item_size);
    return sk_lda_fail(err, "PDOW plan: out of memory counting (V = %d)", (int)c->num_words);
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
