/*
 * The PDOW plan of the GPU ESCA sampler (examples/lda/src/pdow_plan.h) against its contract.
 *
 * Corpora: two small ones with their plans written out by hand; seeded random ones (empty documents
 * first, in the middle and last, a few long documents, skewed word ids over a vocabulary with unused
 * words); one-token documents; a document where one word repeats 1,000 times; a word in every
 * document; one word only; T = 0 with documents; D = 0, made by make_corpus and as a zeroed corpus.
 * Each is planned with chunk_tokens 0, -1 (one chunk), 1, 5, the longest document - 1, the longest,
 * T / 3 + 1 and INT64_MAX, and item_tokens 1, 3, 64 and INT32_MAX, and every plan is checked for:
 *
 *   chunks  chunk_docs runs from 0 to D, strictly increasing when D > 0 (a chunk holds a document);
 *           one chunk when chunk_tokens <= 0; otherwise a chunk holds more than chunk_tokens tokens
 *           only when it has exactly one non-empty document, and chunks are greedy: a chunk and the
 *           first document of the next together hold more than chunk_tokens tokens. (Where empty
 *           documents next to a long one go is not stated, and not checked.)
 *   order   token[] is a permutation of 0 .. T-1; chunks come in order, and inside a chunk the
 *           positions are sorted by (word, document, token index);
 *   groups  group_start runs from 0 to T, strictly increasing; a group's tokens share one word and
 *           the document group_doc; adjacent groups differ in word or document (maximal runs);
 *           max_group_tokens is the longest group;
 *   items   every group is in exactly one item; an item is a non-empty run of consecutive groups of
 *           the word item_word in one chunk, of at most item_tokens tokens unless it is one group;
 *           items are cut greedily (an item and the next group of its word and chunk together hold
 *           more than item_tokens tokens); items come chunk by chunk, and inside a chunk by
 *           decreasing token count, ties by first group.
 *
 * Failures: a NULL plan, a NULL corpus, a corpus without its arrays, T > INT32_MAX and item_tokens
 * below 1 fail with a message (err may be NULL) and leave *plan zeroed.
 *
 * The count (sk_lda_pdow_plan_count) must give exactly the built plan's num_groups and num_items: on
 * every corpus and sizes of the sweep above, and on seeded random corpora with the shapes that break a
 * counting pass (D = 0; empty documents first, last and in runs; one-token documents; a word in every
 * document; a very long document), planned with chunk_tokens 0, 1, small, the longest document, T / 3 + 1,
 * T, INT64_MAX and a random one, and item_tokens 1, 2, 7, a random one and INT32_MAX. It fails where
 * the build fails, with the same kind of message, and on NULL outputs.
 *
 * With --gpu (registered as the gpu test test_pdow_plan_gpu): the plan built on the GPU
 * (gpu/pdow_plan_gpu.h, what the resident GPU ESCA sampler uses) must equal the host's array by array,
 * chunks included (one chunk, chunks of 1 token and of T / 3 + 1; on KOS and 20 Newsgroups one chunk,
 * T / 3 + 1 and T / 7), on the named corpora, seeded random ones, KOS and 20 Newsgroups. Without a GPU
 * it exits 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "lda_test_corpus.h"
#include "pdow_plan.h"
#include "sk_test.h"
#ifdef SK_LDA_HAVE_GPU
#include "gpu/pdow_plan_gpu.h"
#include "lda_test_gpu.h"
#endif

/* ---- the checks ---------------------------------------------------------------------------------- */

static int64_t doc_tokens(const sk_lda_corpus *c, int32_t d) { return c->doc_offsets[d + 1] - c->doc_offsets[d]; }

/* What the checks of one plan share: each token's document and each document's chunk (from the plan),
   each group's word and chunk. */
typedef struct plan_view {
  int32_t *token_doc, *doc_chunk, *group_word, *group_chunk;
} plan_view;

static int check_chunks(const sk_lda_corpus *c, int64_t chunk_tokens, const sk_lda_pdow_plan *p, plan_view *v) {
  const int32_t C = p->num_chunks, D = c->num_docs;
  if (!SK_CHECK(C >= 1 && p->chunk_docs != NULL, "%d chunks (chunk_docs %p)", (int)C, (void *)p->chunk_docs))
    return 0;
  if (!SK_CHECK(p->chunk_docs[0] == 0 && p->chunk_docs[C] == D, "chunk_docs runs from %d to %d, D = %d",
                (int)p->chunk_docs[0], (int)p->chunk_docs[C], (int)D))
    return 0;
  if (chunk_tokens <= 0 && !SK_CHECK(C == 1, "%d chunks, expected 1 for chunk_tokens %lld", (int)C,
                                     (long long)chunk_tokens))
    return 0;
  for (int32_t ch = 0; ch < C; ++ch) {
    const int32_t d0 = p->chunk_docs[ch], d1 = p->chunk_docs[ch + 1];
    if (!SK_CHECK(D > 0 ? d0 < d1 : d0 == d1, "chunk %d holds documents [%d, %d), D = %d", (int)ch, (int)d0,
                  (int)d1, (int)D))
      return 0;
    if (D == 0) continue;
    const int64_t tokens = c->doc_offsets[d1] - c->doc_offsets[d0];
    int32_t non_empty = 0;
    for (int32_t d = d0; d < d1; ++d) {
      non_empty += doc_tokens(c, d) > 0;
      v->doc_chunk[d] = ch;
    }
    if (chunk_tokens > 0 &&
        !SK_CHECK(tokens <= chunk_tokens || non_empty == 1,
                  "chunk %d holds %lld tokens in %d non-empty documents, over chunk_tokens", (int)ch,
                  (long long)tokens, (int)non_empty))
      return 0;
    if (chunk_tokens > 0 && ch + 1 < C &&
        !SK_CHECK(tokens + doc_tokens(c, d1) > chunk_tokens,
                  "chunk %d (%lld tokens) was cut before document %d (%lld tokens), which fits", (int)ch,
                  (long long)tokens, (int)d1, (long long)doc_tokens(c, d1)))
      return 0;
  }
  return 1;
}

/* token[] is a permutation; positions go by chunk, then (word, document, token index) inside it. */
static int check_order(const sk_lda_corpus *c, const sk_lda_pdow_plan *p, const plan_view *v) {
  const int64_t T = c->num_tokens;
  char *seen = (char *)calloc((size_t)T + 1, 1);
  int ok = 1;
  for (int64_t pos = 0; pos < T && ok; ++pos) {
    const int32_t t = p->token[pos];
    ok = SK_CHECK(t >= 0 && t < T && !seen[t], "token[%lld] = %d is out of range or repeated", (long long)pos,
                  (int)t);
    if (!ok || pos == 0) {
      if (ok) seen[t] = 1;
      continue;
    }
    seen[t] = 1;
    const int32_t u = p->token[pos - 1];
    const int32_t ch = v->doc_chunk[v->token_doc[t]], ch_prev = v->doc_chunk[v->token_doc[u]];
    const int32_t w = c->tokens[t], w_prev = c->tokens[u], d = v->token_doc[t], d_prev = v->token_doc[u];
    const int after = ch > ch_prev ||
                      (ch == ch_prev && (w > w_prev || (w == w_prev && (d > d_prev || (d == d_prev && t > u)))));
    ok = SK_CHECK(after, "position %lld (token %d: chunk %d, word %d, document %d) follows token %d "
                  "(chunk %d, word %d, document %d)", (long long)pos, (int)t, (int)ch, (int)w, (int)d, (int)u,
                  (int)ch_prev, (int)w_prev, (int)d_prev);
  }
  free(seen);
  return ok;
}

static int check_groups(const sk_lda_corpus *c, const sk_lda_pdow_plan *p, plan_view *v) {
  const int32_t G = p->num_groups;
  const int32_t *gs = p->group_start;
  int32_t longest = 0;
  if (!SK_CHECK(G >= 0 && gs != NULL && gs[0] == 0 && gs[G] == c->num_tokens,
                "%d groups, group_start from %d to %d, T = %lld", (int)G, gs != NULL ? (int)gs[0] : -1,
                gs != NULL && G >= 0 ? (int)gs[G] : -1, (long long)c->num_tokens))
    return 0;
  for (int32_t g = 0; g < G; ++g) {
    if (!SK_CHECK(gs[g] < gs[g + 1], "group %d is [%d, %d)", (int)g, (int)gs[g], (int)gs[g + 1])) return 0;
    const int32_t word = c->tokens[p->token[gs[g]]];
    for (int32_t pos = gs[g]; pos < gs[g + 1]; ++pos) {
      const int32_t t = p->token[pos];
      if (!SK_CHECK(c->tokens[t] == word && v->token_doc[t] == p->group_doc[g],
                    "group %d (word %d, group_doc %d): position %d has word %d, document %d", (int)g, (int)word,
                    (int)p->group_doc[g], (int)pos, (int)c->tokens[t], (int)v->token_doc[t]))
        return 0;
    }
    v->group_word[g] = word;
    v->group_chunk[g] = v->doc_chunk[p->group_doc[g]];
    if (g > 0 && !SK_CHECK(word != v->group_word[g - 1] || p->group_doc[g] != p->group_doc[g - 1],
                           "groups %d and %d share word %d and document %d", (int)g - 1, (int)g, (int)word,
                           (int)p->group_doc[g]))
      return 0;
    if (gs[g + 1] - gs[g] > longest) longest = gs[g + 1] - gs[g];
  }
  return SK_CHECK(p->max_group_tokens == longest, "max_group_tokens %d, the longest group has %d",
                  (int)p->max_group_tokens, (int)longest);
}

static int check_items(const sk_lda_pdow_plan *p, int32_t item_tokens, const plan_view *v) {
  const int32_t G = p->num_groups, I = p->num_items;
  const int32_t *gs = p->group_start;
  int32_t *owner = (int32_t *)malloc(((size_t)G + 1) * sizeof *owner);
  int ok = SK_CHECK(I >= 0 && I <= G, "%d items for %d groups", (int)I, (int)G);
  for (int32_t g = 0; g < G; ++g) owner[g] = -1;
  for (int32_t i = 0; i < I && ok; ++i) {
    const int32_t g0 = p->item_group[i], g1 = p->item_end[i];
    ok = SK_CHECK(g0 >= 0 && g0 < g1 && g1 <= G, "item %d holds groups [%d, %d) of %d", (int)i, (int)g0, (int)g1,
                  (int)G);
    for (int32_t g = g0; g < g1 && ok; ++g) {
      ok = SK_CHECK(owner[g] < 0, "group %d is in items %d and %d", (int)g, (int)owner[g], (int)i) &&
           SK_CHECK(v->group_word[g] == p->item_word[i] && v->group_chunk[g] == v->group_chunk[g0],
                    "item %d (word %d, chunk %d): group %d has word %d, chunk %d", (int)i, (int)p->item_word[i],
                    (int)v->group_chunk[g0], (int)g, (int)v->group_word[g], (int)v->group_chunk[g]);
      owner[g] = i;
    }
    if (!ok) break;
    const int64_t tokens = (int64_t)gs[g1] - gs[g0];
    ok = SK_CHECK(tokens <= item_tokens || g1 - g0 == 1, "item %d holds %lld tokens in %d groups, over %d",
                  (int)i, (long long)tokens, (int)(g1 - g0), (int)item_tokens);
    if (ok && g1 < G && v->group_word[g1] == p->item_word[i] && v->group_chunk[g1] == v->group_chunk[g0])
      ok = SK_CHECK(tokens + (gs[g1 + 1] - gs[g1]) > item_tokens,
                    "item %d (%lld tokens) stops before group %d (%d tokens) of its word and chunk, which fits",
                    (int)i, (long long)tokens, (int)g1, (int)(gs[g1 + 1] - gs[g1]));
    if (ok && i > 0) {
      const int32_t pg = p->item_group[i - 1];
      const int64_t prev = (int64_t)gs[p->item_end[i - 1]] - gs[pg];
      const int32_t pch = v->group_chunk[pg], ch = v->group_chunk[g0];
      ok = SK_CHECK(pch < ch || (pch == ch && (prev > tokens || (prev == tokens && pg < g0))),
                    "item %d (chunk %d, %lld tokens, group %d) follows item %d (chunk %d, %lld tokens, group %d)",
                    (int)i, (int)ch, (long long)tokens, (int)g0, (int)i - 1, (int)pch, (long long)prev, (int)pg);
    }
  }
  for (int32_t g = 0; g < G && ok; ++g) ok = SK_CHECK(owner[g] >= 0, "group %d is in no item", (int)g);
  free(owner);
  return ok;
}

/* Builds the plan of c with these sizes and checks all of it; stops at the first broken part. */
static void check_plan(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens) {
  sk_lda_pdow_plan p;
  sk_ex_error err = {""};
  if (!SK_CHECK(sk_lda_pdow_plan_build(c, chunk_tokens, item_tokens, &p, &err) == 0, "build failed: %s",
                err.message))
    return;
  const size_t T = (size_t)c->num_tokens, D = (size_t)c->num_docs, G = (size_t)(p.num_groups > 0 ? p.num_groups : 0);
  plan_view v;
  v.token_doc = (int32_t *)malloc((T + 1) * sizeof *v.token_doc);
  v.doc_chunk = (int32_t *)malloc((D + 1) * sizeof *v.doc_chunk);
  v.group_word = (int32_t *)malloc((G + 1) * sizeof *v.group_word);
  v.group_chunk = (int32_t *)malloc((G + 1) * sizeof *v.group_chunk);
  for (int32_t d = 0; d < c->num_docs; ++d)
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) v.token_doc[t] = d;
  if (SK_CHECK(p.num_tokens == c->num_tokens, "num_tokens %lld, T = %lld", (long long)p.num_tokens,
               (long long)c->num_tokens) &&
      check_chunks(c, chunk_tokens, &p, &v) && check_order(c, &p, &v) && check_groups(c, &p, &v))
    check_items(&p, item_tokens, &v);
  free(v.token_doc);
  free(v.doc_chunk);
  free(v.group_word);
  free(v.group_chunk);
  sk_lda_pdow_plan_free(&p);
  SK_CHECK(p.token == NULL && p.num_items == 0, "sk_lda_pdow_plan_free left the plan set");
}

static int64_t longest_doc(const sk_lda_corpus *c) {
  int64_t n = 0;
  for (int32_t d = 0; d < c->num_docs; ++d)
    if (doc_tokens(c, d) > n) n = doc_tokens(c, d);
  return n;
}

/* The count against the built plan's sizes (the caller sets the context). */
static void check_count(const sk_lda_corpus *c, int64_t chunk_tokens, int32_t item_tokens) {
  sk_lda_pdow_plan p;
  sk_ex_error err = {""};
  int32_t groups = -1, items = -1;
  if (SK_CHECK(sk_lda_pdow_plan_build(c, chunk_tokens, item_tokens, &p, &err) == 0, "build failed: %s",
               err.message) &&
      SK_CHECK(sk_lda_pdow_plan_count(c, chunk_tokens, item_tokens, &groups, &items, &err) == 0,
               "count failed: %s", err.message))
    SK_CHECK(groups == p.num_groups && items == p.num_items, "count gives %d groups and %d items, the plan %d and %d",
             (int)groups, (int)items, (int)p.num_groups, (int)p.num_items);
  sk_lda_pdow_plan_free(&p);
}

/* Every (chunk_tokens, item_tokens) of the sweep on one corpus; context names the corpus. */
static void check_sweep(const sk_lda_corpus *c, const char *name, uint64_t seed) {
  const int64_t longest = c->num_docs > 0 && c->doc_offsets != NULL ? longest_doc(c) : 0;
  const int64_t chunk_sizes[] = {0, -1, 1, 5, longest - 1, longest, c->num_tokens / 3 + 1, INT64_MAX};
  const int32_t item_sizes[] = {1, 3, 64, INT32_MAX};
  for (size_t i = 0; i < sizeof chunk_sizes / sizeof *chunk_sizes; ++i)
    for (size_t j = 0; j < sizeof item_sizes / sizeof *item_sizes; ++j) {
      sk_test_context("%s (seed %llu, D %d, V %d, T %lld), chunk_tokens %lld, item_tokens %d", name,
                      (unsigned long long)seed, (int)c->num_docs, (int)c->num_words, (long long)c->num_tokens,
                      (long long)chunk_sizes[i], (int)item_sizes[j]);
      check_plan(c, chunk_sizes[i], item_sizes[j]);
      check_count(c, chunk_sizes[i], item_sizes[j]);
    }
}

/* ---- corpora ------------------------------------------------------------------------------------- */

/* Documents of random lengths (0 to 40, one in eight 100 to 299) with the first, a middle and the last
   empty; word ids skewed towards 0 (so they repeat inside documents) and drawn from the first `used`
   of V words, the rest unused. */
static sk_lda_corpus make_random_corpus(uint64_t seed) {
  uint64_t s = seed;
  const int32_t D = 3 + (int32_t)(sk_test_rand_u32(&s) % 58);
  const int32_t V = 1 + (int32_t)(sk_test_rand_u32(&s) % 40);
  const uint32_t used = 1 + sk_test_rand_u32(&s) % (uint32_t)V;
  int32_t *len = (int32_t *)malloc((size_t)D * sizeof *len);
  int32_t *words = (int32_t *)malloc((size_t)D * 300 * sizeof *words);
  int64_t t = 0;
  for (int32_t d = 0; d < D; ++d) {
    const uint32_t r = sk_test_rand_u32(&s);
    if (d == 0 || d == D / 2 || d == D - 1)
      len[d] = 0;
    else
      len[d] = r % 8 == 0 ? 100 + (int32_t)((r >> 3) % 200) : (int32_t)((r >> 3) % 41);
    for (int32_t i = 0; i < len[d]; ++i) {
      const uint32_t top = 1 + sk_test_rand_u32(&s) % used; /* two statements: the draws' order is fixed */
      words[t++] = (int32_t)(sk_test_rand_u32(&s) % top);
    }
  }
  sk_lda_corpus c = make_corpus(V, D, len, words);
  free(len);
  free(words);
  return c;
}

/* Named corpora with the shapes that break planners; `which` picks one, NULL name past the last. */
static sk_lda_corpus make_named_corpus(int which, const char **name) {
  enum { max_docs = 64, max_tokens = 2048 };
  int32_t len[max_docs], words[max_tokens];
  int32_t D = 0, V = 0, t = 0;
  *name = NULL;
  switch (which) {
  case 0: /* one-token documents over words 0..6 of 10 */
    *name = "one-token documents";
    V = 10;
    for (D = 0; D < 40; ++D) len[D] = 1, words[t++] = (D * 3) % 7;
    break;
  case 1: /* word 7 1,000 times in one document (around a 2, then a 1), amid short documents */
    *name = "a word repeated 1,000 times";
    V = 9;
    len[D++] = 0, len[D++] = 2, words[t++] = 7, words[t++] = 1;
    len[D++] = 1002;
    for (int i = 0; i < 1001; ++i) words[t++] = i == 500 ? 2 : 7;
    words[t++] = 1;
    len[D++] = 0, len[D++] = 3, words[t++] = 7, words[t++] = 7, words[t++] = 0;
    len[D++] = 0;
    break;
  case 2: /* word 3 in every document, at varying places, with 1 to 10 tokens each */
    *name = "a word in every document";
    V = 6;
    for (D = 0; D < 30; ++D) {
      len[D] = 1 + D % 10;
      for (int i = 0; i < len[D]; ++i) words[t++] = i == D % len[D] ? 3 : (D + i) % 5;
    }
    break;
  case 3: /* one word only */
    *name = "one word";
    V = 1;
    for (D = 0; D < 12; ++D) {
      len[D] = D % 4 == 0 ? 0 : D;
      for (int i = 0; i < len[D]; ++i) words[t++] = 0;
    }
    break;
  case 4:
    *name = "one document";
    V = 5;
    len[D++] = 50;
    for (int i = 0; i < 50; ++i) words[t++] = (i * i) % 5;
    break;
  case 5:
    *name = "T = 0, D = 4";
    V = 3;
    for (D = 0; D < 4; ++D) len[D] = 0;
    break;
  case 6:
    *name = "D = 0";
    V = 4;
    break;
  default:
    break;
  }
  return make_corpus(V, D, len, words);
}

/* ---- cases --------------------------------------------------------------------------------------- */

/* Compares plan arrays with the expected ones, written out by hand. */
static void check_array(const char *what, const int32_t *got, const int32_t *expected, int n) {
  for (int i = 0; i < n; ++i)
    if (!SK_CHECK(got[i] == expected[i], "%s[%d] = %d, expected %d", what, i, (int)got[i], (int)expected[i])) return;
}

/* Two small plans worked out by hand, so that the checks above are known to describe the intended plan:
   documents [2 0 2 1] [] [1 1] [3 2], item_tokens 2; both have 6 groups and 6 one-group items. */
typedef struct hand_plan {
  const char *name;
  int64_t chunk_tokens;
  int32_t num_chunks, chunk_docs[3], token[8], group_start[7], group_doc[6];
  int32_t item_word[6], item_group[6], item_end[6];
} hand_plan;

static const hand_plan hand_plans[] = {
    /* One chunk: word 0 (d0), word 1 (d0; d2 d2), word 2 (d0 d0; d3), word 3 (d3). Items in creation
       order: g0 (1 token), g1 (1), g2 (2), g3 (2), g4 (1), g5 (1); g1 + g2 and g3 + g4 are over 2. */
    {"one chunk", 0, 1, {0, 4}, {1, 3, 4, 5, 0, 2, 7, 6}, {0, 1, 2, 4, 6, 7, 8}, {0, 0, 2, 0, 3, 3},
     {1, 2, 0, 1, 2, 3}, {2, 3, 0, 1, 4, 5}, {3, 4, 1, 2, 5, 6}},
    /* chunk_tokens 4: chunks [d0 d1] and [d2 d3], no two adjacent groups share word and chunk. Items
       chunk by chunk: g2 (2 tokens), g0, g1; then g3 (2), g4, g5. */
    {"chunk_tokens 4", 4, 2, {0, 2, 4}, {1, 3, 0, 2, 4, 5, 7, 6}, {0, 1, 2, 4, 6, 7, 8}, {0, 0, 0, 2, 3, 3},
     {2, 0, 1, 1, 2, 3}, {2, 0, 1, 3, 4, 5}, {3, 1, 2, 4, 5, 6}},
};

static void test_by_hand(void) {
  static const int32_t len[] = {4, 0, 2, 2}, words[] = {2, 0, 2, 1, 1, 1, 3, 2};
  sk_lda_corpus c = make_corpus(4, 4, len, words);
  for (size_t k = 0; k < sizeof hand_plans / sizeof *hand_plans; ++k) {
    const hand_plan *e = &hand_plans[k];
    sk_lda_pdow_plan p;
    sk_ex_error err = {""};
    sk_test_context("by hand, %s", e->name);
    if (SK_CHECK(sk_lda_pdow_plan_build(&c, e->chunk_tokens, 2, &p, &err) == 0, "%s", err.message) &&
        SK_CHECK(p.num_chunks == e->num_chunks && p.num_groups == 6 && p.num_items == 6 && p.max_group_tokens == 2,
                 "%d chunks, %d groups, %d items, max_group_tokens %d", (int)p.num_chunks, (int)p.num_groups,
                 (int)p.num_items, (int)p.max_group_tokens)) {
      check_array("chunk_docs", p.chunk_docs, e->chunk_docs, e->num_chunks + 1);
      check_array("token", p.token, e->token, 8);
      check_array("group_start", p.group_start, e->group_start, 7);
      check_array("group_doc", p.group_doc, e->group_doc, 6);
      check_array("item_word", p.item_word, e->item_word, 6);
      check_array("item_group", p.item_group, e->item_group, 6);
      check_array("item_end", p.item_end, e->item_end, 6);
    }
    sk_lda_pdow_plan_free(&p);
  }
  sk_lda_corpus_free(&c);
}

static void test_named_corpora(void) {
  const char *name;
  for (int which = 0;; ++which) {
    sk_lda_corpus c = make_named_corpus(which, &name);
    if (name != NULL) check_sweep(&c, name, 0);
    sk_lda_corpus_free(&c);
    if (name == NULL) break;
  }
  /* A zeroed corpus (what sk_lda_corpus_free leaves) is an empty one: no documents, no arrays. */
  sk_lda_corpus zeroed;
  memset(&zeroed, 0, sizeof zeroed);
  check_sweep(&zeroed, "zeroed corpus", 0);
}

static void test_random_corpora(void) {
  const int seeds = sk_test_seed_count();
  for (int i = 0; i < seeds; ++i) {
    const uint64_t seed = 1000 + (uint64_t)i;
    sk_lda_corpus c = make_random_corpus(seed);
    check_sweep(&c, "random", seed);
    sk_lda_corpus_free(&c);
  }
}

static void test_count_random(void) {
  const int corpora = 25 * sk_test_seed_count();
  for (int i = 0; i < corpora; ++i) {
    const uint64_t seed = 5000 + (uint64_t)i;
    uint64_t s = seed ^ 0x5eedull;
    sk_lda_corpus c = make_count_corpus(seed);
    const int64_t T = c.num_tokens, longest = longest_doc(&c);
    const int64_t small = 2 + (int64_t)(sk_test_rand_u32(&s) % 12); /* drawn apart: an initializer list */
    const int64_t any = 1 + (int64_t)(sk_test_rand_u32(&s) % (uint32_t)(T + 1)); /* has no order */
    const int64_t chunk_sizes[] = {0, 1, small, longest, T / 3 + 1, T, INT64_MAX, any};
    const int32_t item_sizes[] = {1, 2, 7, 1 + (int32_t)(sk_test_rand_u32(&s) % 50), INT32_MAX};
    for (size_t a = 0; a < sizeof chunk_sizes / sizeof *chunk_sizes; ++a)
      for (size_t b = 0; b < sizeof item_sizes / sizeof *item_sizes; ++b) {
        sk_test_context("count, random corpus (seed %llu, D %d, V %d, T %lld), chunk_tokens %lld, item_tokens %d",
                        (unsigned long long)seed, (int)c.num_docs, (int)c.num_words, (long long)T,
                        (long long)chunk_sizes[a], (int)item_sizes[b]);
        check_count(&c, chunk_sizes[a], item_sizes[b]);
      }
    sk_lda_corpus_free(&c);
  }
}

static int plan_is_zeroed(const sk_lda_pdow_plan *p) {
  return p->num_tokens == 0 && p->num_chunks == 0 && p->num_groups == 0 && p->num_items == 0 &&
         p->chunk_docs == NULL && p->token == NULL && p->group_start == NULL && p->group_doc == NULL &&
         p->item_word == NULL && p->item_group == NULL && p->item_end == NULL && p->max_group_tokens == 0;
}

/* One failing call: non-zero, a message naming `about`, *plan zeroed (it starts as garbage), and the
   same failure with err NULL. */
static void check_failure(const char *what, const sk_lda_corpus *c, int32_t item_tokens, const char *about) {
  sk_lda_pdow_plan p;
  sk_ex_error err = {""};
  sk_test_context("failure: %s", what);
  memset(&p, 0xA5, sizeof p);
  SK_CHECK(sk_lda_pdow_plan_build(c, 0, item_tokens, &p, &err) != 0, "build succeeded");
  SK_CHECK(strstr(err.message, about) != NULL, "message '%s' does not name '%s'", err.message, about);
  SK_CHECK(plan_is_zeroed(&p), "the plan is not zeroed");
  memset(&p, 0xA5, sizeof p);
  SK_CHECK(sk_lda_pdow_plan_build(c, 0, item_tokens, &p, NULL) != 0, "build with err NULL succeeded");
  SK_CHECK(plan_is_zeroed(&p), "the plan is not zeroed (err NULL)");
  int32_t groups = -1, items = -1;
  err.message[0] = '\0';
  SK_CHECK(sk_lda_pdow_plan_count(c, 0, item_tokens, &groups, &items, &err) != 0, "count succeeded");
  SK_CHECK(strstr(err.message, about) != NULL, "count's message '%s' does not name '%s'", err.message, about);
  SK_CHECK(groups == 0 && items == 0, "count left %d groups and %d items", (int)groups, (int)items);
  SK_CHECK(sk_lda_pdow_plan_count(c, 0, item_tokens, &groups, &items, NULL) != 0, "count with err NULL succeeded");
}

static void test_failures(void) {
  static const int32_t len[] = {2, 1}, words[] = {0, 1, 1};
  sk_lda_corpus c = make_corpus(2, 2, len, words);
  check_failure("item_tokens 0", &c, 0, "item_tokens");
  check_failure("item_tokens -3", &c, -3, "item_tokens");
  check_failure("item_tokens INT32_MIN", &c, INT32_MIN, "item_tokens");
  check_failure("NULL corpus", NULL, 4, "corpus");
  {
    sk_lda_corpus no_tokens = c;
    no_tokens.tokens = NULL;
    check_failure("tokens NULL", &no_tokens, 4, "corpus");
  }
  {
    sk_lda_corpus no_offsets = c;
    no_offsets.doc_offsets = NULL;
    check_failure("doc_offsets NULL", &no_offsets, 4, "corpus");
  }
  {
    /* Documents but no doc_offsets, and no tokens. */
    sk_lda_corpus empty_docs;
    memset(&empty_docs, 0, sizeof empty_docs);
    empty_docs.num_docs = 3;
    empty_docs.num_words = 2;
    check_failure("D = 3, T = 0, doc_offsets NULL", &empty_docs, 4, "corpus");
  }
  {
    /* T past INT32_MAX: refused before any array is read (the arrays here are stand-ins). */
    int64_t offsets[2] = {0, (int64_t)INT32_MAX + 1};
    int32_t token = 0;
    sk_lda_corpus big = c;
    big.num_docs = 1;
    big.num_tokens = offsets[1];
    big.doc_offsets = offsets;
    big.tokens = &token;
    check_failure("T = INT32_MAX + 1", &big, 4, "2147483647"); /* names the limit, unlike out of memory */
  }
  sk_ex_error err = {""};
  sk_test_context("failure: NULL plan");
  SK_CHECK(sk_lda_pdow_plan_build(&c, 0, 4, NULL, &err) != 0, "build into a NULL plan succeeded");
  SK_CHECK(strstr(err.message, "plan") != NULL, "message '%s' does not name the plan", err.message);
  SK_CHECK(sk_lda_pdow_plan_build(&c, 0, 4, NULL, NULL) != 0, "build into a NULL plan succeeded (err NULL)");
  int32_t n = -1;
  sk_test_context("failure: count into NULL");
  err.message[0] = '\0';
  SK_CHECK(sk_lda_pdow_plan_count(&c, 0, 4, NULL, &n, &err) != 0 && n == 0, "count with NULL num_groups succeeded");
  SK_CHECK(strstr(err.message, "num_groups") != NULL, "message '%s' does not name num_groups", err.message);
  n = -1;
  SK_CHECK(sk_lda_pdow_plan_count(&c, 0, 4, &n, NULL, NULL) != 0 && n == 0, "count with NULL num_items succeeded");
  sk_lda_pdow_plan_free(NULL);
  sk_lda_corpus_free(&c);
}

#ifdef SK_LDA_HAVE_GPU
/* The device plan (gpu/pdow_plan_gpu.h) against the host's, array by array. */
static void check_device_plan_chunks(const sk_lda_corpus *c, const char *name, int64_t chunk_tokens,
                                     int32_t item_tokens) {
  sk_test_context("device plan: %s (D %d, V %d, T %lld), chunk_tokens %lld, item_tokens %d", name, (int)c->num_docs,
                  (int)c->num_words, (long long)c->num_tokens, (long long)chunk_tokens, (int)item_tokens);
  sk_ex_error err = {""};
  sk_lda_pdow_plan host, dev;
  sk_lda_pdow_plan_gpu g;
  if (!SK_CHECK(sk_lda_pdow_plan_build(c, chunk_tokens, item_tokens, &host, &err) == 0, "host plan: %s", err.message))
    return;
  int ok = SK_CHECK(sk_lda_pdow_plan_gpu_build(c, 0, chunk_tokens, item_tokens, &g, &err) == 0, "device plan: %s",
                    err.message);
  ok = ok && SK_CHECK(sk_lda_pdow_plan_gpu_download(&g, &dev, &err) == 0, "download: %s", err.message);
  sk_lda_pdow_plan_gpu_free(&g);
  if (ok && SK_CHECK(dev.num_groups == host.num_groups && dev.num_items == host.num_items,
                     "%d groups and %d items; the host's %d and %d", (int)dev.num_groups, (int)dev.num_items,
                     (int)host.num_groups, (int)host.num_items)) {
    check_array("token", dev.token, host.token, (int)c->num_tokens);
    check_array("group_start", dev.group_start, host.group_start, host.num_groups + 1);
    check_array("group_doc", dev.group_doc, host.group_doc, host.num_groups);
    check_array("item_word", dev.item_word, host.item_word, host.num_items);
    check_array("item_group", dev.item_group, host.item_group, host.num_items);
    check_array("item_end", dev.item_end, host.item_end, host.num_items);
    SK_CHECK(dev.max_group_tokens == host.max_group_tokens, "max_group_tokens %d, the host's %d",
             (int)dev.max_group_tokens, (int)host.max_group_tokens);
    if (SK_CHECK(dev.num_chunks == host.num_chunks, "%d chunks, the host's %d", (int)dev.num_chunks,
                 (int)host.num_chunks))
      check_array("chunk_docs", dev.chunk_docs, host.chunk_docs, host.num_chunks + 1);
  }
  if (ok) sk_lda_pdow_plan_free(&dev);
  sk_lda_pdow_plan_free(&host);
}

/* One chunk, chunks of one token (a chunk a non-empty document) and of T / 3 + 1 tokens. */
static void check_device_plan(const sk_lda_corpus *c, const char *name, int32_t item_tokens) {
  check_device_plan_chunks(c, name, 0, item_tokens);
  check_device_plan_chunks(c, name, 1, item_tokens);
  check_device_plan_chunks(c, name, c->num_tokens / 3 + 1, item_tokens);
}

/* --gpu: the named corpora with tokens, seeded random ones and KOS and 20 Newsgroups when present, at
   item sizes 1, 3, 64, 512 and INT32_MAX, each in one chunk and in chunks (check_device_plan; the two
   corpora in one chunk, chunks of T / 3 + 1 and of T / 7); T = 0 refused with a message. */
static int test_device_plans(void) {
  sk_ex_error why;
  if (sk_ex_gpu_probe(0, NULL, 0, &why) != 0) {
    printf("SKIP: %s; --gpu needs a GPU\n", why.message);
    return SK_TEST_SKIP_CODE;
  }
  static const int32_t items[] = {1, 3, 64, 512, INT32_MAX};
  const char *name = NULL;
  for (int which = 0;; ++which) {
    sk_lda_corpus c = make_named_corpus(which, &name);
    if (name == NULL) break;
    for (size_t i = 0; c.num_tokens > 0 && i < sizeof items / sizeof *items; ++i) check_device_plan(&c, name, items[i]);
    if (c.num_tokens == 0) {
      sk_lda_pdow_plan_gpu g;
      sk_ex_error err = {""};
      sk_test_context("device plan: %s", name);
      SK_CHECK(sk_lda_pdow_plan_gpu_build(&c, 0, 0, 4, &g, &err) != 0 && strstr(err.message, "tokens") != NULL,
               "T = 0 built, or said '%s'", err.message);
    }
    sk_lda_corpus_free(&c);
  }
  for (int i = 0; i < 4 * sk_test_seed_count(); ++i) {
    sk_lda_corpus c = make_random_corpus(7000 + (uint64_t)i);
    for (size_t k = 0; k < sizeof items / sizeof *items; ++k) check_device_plan(&c, "random", items[k]);
    sk_lda_corpus_free(&c);
  }
  static const char *const shared[] = {"kos", "20news"};
  for (int s = 0; s < 2; ++s) {
    sk_lda_corpus c;
    memset(&c, 0, sizeof c);
    if (!read_shared_corpus(shared[s], &c)) continue;
    check_device_plan_chunks(&c, shared[s], 0, 512);
    check_device_plan_chunks(&c, shared[s], c.num_tokens / 3 + 1, 37);
    check_device_plan_chunks(&c, shared[s], c.num_tokens / 7, 512);
    sk_lda_corpus_free(&c);
  }
  return sk_test_finish();
}
#endif

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
#ifdef SK_LDA_HAVE_GPU
    return test_device_plans();
#else
    printf("SKIP: this build has no GPU part; --gpu needs one\n");
    return SK_TEST_SKIP_CODE;
#endif
  }
  test_by_hand();
  test_named_corpora();
  test_random_corpora();
  test_count_random();
  test_failures();
  return sk_test_finish();
}
