/*
 * AGA-LDA's plan (examples/lda/src/aga_plan.h): every property the GPU sweep relies on, on the case
 * corpora (empty documents, one-token documents, a word in every document) and on edges: mini-batches of
 * 1 document, 7 documents and all of them; panels of 1, 3 and 1,000 words; a corpus of only empty
 * documents; bad arguments.
 *   - mini-batches cover the documents in order, each with at most minibatch documents;
 *   - order is a permutation of the tokens; each mini-batch's positions are exactly its documents' tokens,
 *     sorted by word and, within a word, in document order; doc[] is each position's document;
 *   - panels partition each mini-batch's positions, hold at most panel_words words, list exactly the
 *     words of their positions (increasing), and local[] indexes that list;
 *   - whole-word panels never split a word and, with a number of panels a mini-batch, hold fewer than
 *     their share of tokens before their last word; split panels hold at most their share, and
 *     panel_flags marks exactly the first and last words shared with the panel before and after.
 * The count (sk_lda_aga_plan_count) must give exactly the built plan's num_batches, num_panels,
 * num_panel_words and max_batch_docs: on the case corpora above, and on seeded random corpora (D = 0;
 * empty documents first, last and in runs; one-token documents; a word in every document; a very long
 * document) with mini-batches of 1, 7, all documents and a random number, panels of 1, 3, a random
 * number and INT32_MAX words, 0, 1, 3, T and a random number of panels a mini-batch, whole and split
 * words. It fails where the build fails, and on a NULL out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aga_plan.h"
#include "corpus.h"
#include "lda_test_corpus.h"
#include "sk_test.h"

static void check_plan(const sk_lda_corpus *c, const sk_lda_aga_plan *p, int32_t minibatch, int32_t panel_words,
                       int32_t panels_per_batch, int split) {
  const int64_t T = c->num_tokens;
  SK_CHECK(p->num_tokens == T, "num_tokens %lld, want %lld", (long long)p->num_tokens, (long long)T);
  SK_CHECK(p->batch_doc[0] == 0 && p->batch_doc[p->num_batches] == c->num_docs, "mini-batches do not cover [0, D)");
  char *seen = (char *)calloc((size_t)(T > 0 ? T : 1), 1);
  int32_t max_docs = 0;
  for (int32_t b = 0; b < p->num_batches; ++b) {
    const int32_t d0 = p->batch_doc[b], d1 = p->batch_doc[b + 1];
    if (d1 - d0 > max_docs) max_docs = d1 - d0;
    if (!SK_CHECK(d1 > d0 && d1 - d0 <= minibatch, "mini-batch %d holds documents [%d, %d)", (int)b, (int)d0, (int)d1))
      break;
    const int64_t t0 = c->doc_offsets[d0], t1 = c->doc_offsets[d1];
    for (int64_t i = t0; i < t1; ++i) {
      const int32_t t = p->order[i], d = p->doc[i];
      if (!SK_CHECK(t >= t0 && t < t1 && !seen[t], "position %lld: token %d outside its mini-batch or repeated",
                    (long long)i, (int)t))
        break;
      seen[t] = 1;
      SK_CHECK(d >= d0 && d < d1 && t >= c->doc_offsets[d] && t < c->doc_offsets[d + 1],
               "position %lld: document %d does not hold token %d", (long long)i, (int)d, (int)t);
      if (i > t0) {
        const int32_t u = p->order[i - 1], wu = c->tokens[u], wt = c->tokens[t];
        SK_CHECK(wu < wt || (wu == wt && u < t), "position %lld: not sorted by word, then document order",
                 (long long)i);
      }
    }
    /* panels of this mini-batch */
    const int32_t p0 = p->batch_panel[b], p1 = p->batch_panel[b + 1];
    SK_CHECK(t1 == t0 ? p1 == p0 : (p1 > p0 && p->panel_pos[p0] == t0 && p->panel_pos[p1] == t1),
             "mini-batch %d: its panels do not cover its positions", (int)b);
    for (int32_t q = p0; q < p1; ++q) {
      const int32_t a = p->panel_pos[q], z = p->panel_pos[q + 1], w0 = p->panel_word[q], w1 = p->panel_word[q + 1];
      SK_CHECK(z > a && w1 > w0 && w1 - w0 <= panel_words, "panel %d: positions [%d, %d), %d words", (int)q, (int)a,
               (int)z, (int)(w1 - w0));
      const int shares_first = q > p0 && c->tokens[p->order[a]] == c->tokens[p->order[a - 1]];
      const int shares_last = q + 1 < p1 && c->tokens[p->order[z - 1]] == c->tokens[p->order[z]];
      const int want_flags = (shares_first ? SK_LDA_AGA_SHARES_FIRST : 0) | (shares_last ? SK_LDA_AGA_SHARES_LAST : 0);
      SK_CHECK(p->panel_flags[q] == want_flags, "panel %d: flags %d, want %d", (int)q, (int)p->panel_flags[q],
               want_flags);
      if (!split) SK_CHECK(!shares_first, "panel %d splits a word", (int)q);
      const int64_t share = (t1 - t0 + panels_per_batch - 1) / (panels_per_batch > 0 ? panels_per_batch : 1);
      if (split && panels_per_batch > 0)
        SK_CHECK(z - a <= share, "panel %d holds %d tokens, its share is %lld", (int)q, (int)(z - a), (long long)share);
      if (!split && panels_per_batch > 0 && z - a > 1) { /* past its share only by its last word's tokens */
        int32_t last_word_start = z - 1;
        while (last_word_start > a && c->tokens[p->order[last_word_start - 1]] == c->tokens[p->order[z - 1]])
          --last_word_start;
        SK_CHECK(last_word_start - a < share, "panel %d holds %d tokens before its last word, its share is %lld", (int)q,
                 (int)(last_word_start - a), (long long)share);
      }
      for (int32_t i = a; i < z; ++i) {
        const int32_t l = p->local[i];
        SK_CHECK(l >= 0 && l < w1 - w0 && p->words[w0 + l] == c->tokens[p->order[i]],
                 "position %d: local index %d does not name its word", (int)i, (int)l);
      }
      for (int32_t w = w0 + 1; w < w1; ++w) SK_CHECK(p->words[w - 1] < p->words[w], "panel %d: words not increasing", (int)q);
    }
  }
  for (int64_t t = 0; t < T; ++t)
    if (!SK_CHECK(seen[t], "token %lld is in no mini-batch", (long long)t)) break;
  SK_CHECK(p->max_batch_docs == max_docs, "max_batch_docs %d, want %d", (int)p->max_batch_docs, (int)max_docs);
  free(seen);
}

/* The count against the plan built with the same arguments (the caller sets the context). */
static void check_count(const sk_lda_corpus *c, int32_t minibatch, int32_t panel_words, int32_t panels_per_batch,
                        int split) {
  sk_lda_aga_plan p;
  sk_lda_aga_plan_sizes n;
  sk_ex_error err = {""};
  if (SK_CHECK(sk_lda_aga_plan_build(c, minibatch, panel_words, panels_per_batch, split, &p, &err) == 0,
               "build: %s", err.message) &&
      SK_CHECK(sk_lda_aga_plan_count(c, minibatch, panel_words, panels_per_batch, split, &n, &err) == 0,
               "count: %s", err.message))
    SK_CHECK(n.num_batches == p.num_batches && n.num_panels == p.num_panels &&
                 n.num_panel_words == p.num_panel_words && n.max_batch_docs == p.max_batch_docs,
             "count gives %d mini-batches, %d panels, %d panel words, max_batch_docs %d; the plan %d, %d, %d, %d",
             (int)n.num_batches, (int)n.num_panels, (int)n.num_panel_words, (int)n.max_batch_docs,
             (int)p.num_batches, (int)p.num_panels, (int)p.num_panel_words, (int)p.max_batch_docs);
  sk_lda_aga_plan_free(&p);
}

static void test_count_random(void) {
  const int corpora = 25 * sk_test_seed_count();
  for (int i = 0; i < corpora; ++i) {
    const uint64_t seed = 7000 + (uint64_t)i;
    uint64_t s = seed ^ 0x5eedull;
    sk_lda_corpus c = make_count_corpus(seed);
    const int32_t D = c.num_docs, T = (int32_t)c.num_tokens;
    const int32_t batches[] = {1, 7, D > 0 ? D : 1, 1 + (int32_t)(sk_test_rand_u32(&s) % (uint32_t)(D + 1))};
    const int32_t panels[] = {1, 3, 1 + (int32_t)(sk_test_rand_u32(&s) % 12), INT32_MAX};
    const int32_t per_batch[] = {0, 1, 3, T, 1 + (int32_t)(sk_test_rand_u32(&s) % 40)};
    for (int split = 0; split <= 1; ++split)
      for (size_t b = 0; b < sizeof batches / sizeof *batches; ++b)
        for (size_t q = 0; q < sizeof panels / sizeof *panels; ++q)
          for (size_t r = 0; r < sizeof per_batch / sizeof *per_batch; ++r) {
            sk_test_context("count, random corpus (seed %llu, D %d, V %d, T %d), mini-batches of %d documents, "
                            "panels of %d words, %d panels a mini-batch, %s",
                            (unsigned long long)seed, (int)D, (int)c.num_words, (int)T, (int)batches[b],
                            (int)panels[q], (int)per_batch[r], split ? "split words" : "whole words");
            check_count(&c, batches[b], panels[q], per_batch[r], split);
          }
    sk_lda_corpus_free(&c);
  }
}

/* The count fails where the build fails, zeroing *out; and on a NULL out. */
static void test_count_failures(const sk_lda_corpus *c) {
  static const int32_t bad[][3] = {{0, 4, 0}, {4, 0, 0}, {4, 4, -1}, {INT32_MIN, 4, 0}};
  sk_lda_aga_plan_sizes n;
  sk_ex_error err;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    sk_test_context("count, bad arguments: mini-batches of %d, panels of %d words, %d panels a mini-batch",
                    (int)bad[i][0], (int)bad[i][1], (int)bad[i][2]);
    memset(&n, 0xA5, sizeof n);
    err.message[0] = '\0';
    SK_CHECK(sk_lda_aga_plan_count(c, bad[i][0], bad[i][1], bad[i][2], 0, &n, &err) != 0 &&
                 strstr(err.message, "AGA plan") != NULL,
             "count accepted them (message '%s')", err.message);
    SK_CHECK(n.num_batches == 0 && n.num_panels == 0 && n.num_panel_words == 0 && n.max_batch_docs == 0,
             "*out is not zeroed");
    SK_CHECK(sk_lda_aga_plan_count(c, bad[i][0], bad[i][1], bad[i][2], 1, &n, NULL) != 0,
             "count accepted them (err NULL)");
  }
  sk_test_context("count, bad corpora");
  sk_lda_corpus no_tokens = *c;
  no_tokens.tokens = NULL;
  SK_CHECK(sk_lda_aga_plan_count(NULL, 4, 4, 0, 0, &n, &err) != 0, "a NULL corpus was accepted");
  SK_CHECK(sk_lda_aga_plan_count(&no_tokens, 4, 4, 0, 0, &n, &err) != 0, "a corpus without tokens was accepted");
  SK_CHECK(sk_lda_aga_plan_count(c, 4, 4, 0, 0, NULL, &err) != 0 && strstr(err.message, "out") != NULL,
           "a NULL out was accepted");
}

static sk_lda_corpus case_corpus(void) {
  /* documents: empty, one token, three of word 4, mixed, empty, empty, long mixed, one token */
  static const int32_t len[] = {0, 1, 3, 6, 0, 0, 12, 1};
  static const int32_t words[] = {4, 4, 4, 4, 0, 3, 4, 1, 0, 3, 4, 2, 2, 9, 8, 7, 0, 0, 4, 5, 6, 1, 2};
  return make_corpus(10, 8, len, words);
}

int main(void) {
  sk_lda_corpus c = case_corpus();
  const int32_t batches[] = {1, 3, 7, 1000};
  const int32_t panels[] = {1, 3, 1000};
  const int32_t per_batch[] = {0, 1, 4};
  sk_ex_error err;
  for (int split = 0; split <= 1; ++split)
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; ++b)
      for (size_t q = 0; q < sizeof panels / sizeof panels[0]; ++q)
        for (size_t r = 0; r < sizeof per_batch / sizeof per_batch[0]; ++r) {
          sk_lda_aga_plan p;
          sk_test_context("mini-batches of %d documents, panels of %d words, %d panels a mini-batch, %s",
                          (int)batches[b], (int)panels[q], (int)per_batch[r], split ? "split words" : "whole words");
          if (SK_CHECK(sk_lda_aga_plan_build(&c, batches[b], panels[q], per_batch[r], split, &p, &err) == 0,
                       "build: %s", err.message))
            check_plan(&c, &p, batches[b], panels[q], per_batch[r], split);
          sk_lda_aga_plan_free(&p);
          check_count(&c, batches[b], panels[q], per_batch[r], split);
        }
  /* a panel a token: word 4's 7 tokens of the whole corpus in 7 panels, all but the ends shared twice */
  sk_lda_aga_plan one;
  sk_test_context("a panel a token, split words");
  if (SK_CHECK(sk_lda_aga_plan_build(&c, 1000, 1000, (int32_t)c.num_tokens, 1, &one, &err) == 0, "build: %s",
               err.message)) {
    check_plan(&c, &one, 1000, 1000, (int32_t)c.num_tokens, 1);
    check_count(&c, 1000, 1000, (int32_t)c.num_tokens, 1);
    SK_CHECK(one.num_panels == c.num_tokens, "%d panels, want %lld", (int)one.num_panels, (long long)c.num_tokens);
    int both = 0;
    for (int32_t q = 0; q < one.num_panels; ++q)
      both += one.panel_flags[q] == (SK_LDA_AGA_SHARES_FIRST | SK_LDA_AGA_SHARES_LAST);
    SK_CHECK(both == 5 + 1 + 2, "%d panels shared on both sides, want 8 (words 4, 2 and 0)", both);
  }
  sk_lda_aga_plan_free(&one);
  /* only empty documents: mini-batches without panels */
  static const int32_t empty_len[] = {0, 0, 0};
  sk_lda_corpus e = make_corpus(5, 3, empty_len, NULL);
  sk_lda_aga_plan p;
  sk_test_context("only empty documents");
  if (SK_CHECK(sk_lda_aga_plan_build(&e, 2, 4, 8, 1, &p, &err) == 0, "build: %s", err.message)) {
    SK_CHECK(p.num_batches == 2 && p.num_panels == 0, "%d mini-batches and %d panels, want 2 and 0",
             (int)p.num_batches, (int)p.num_panels);
    check_plan(&e, &p, 2, 4, 8, 1);
    check_count(&e, 2, 4, 8, 1);
  }
  sk_lda_aga_plan_free(&p);
  sk_test_context("bad arguments");
  SK_CHECK(sk_lda_aga_plan_build(&c, 0, 4, 0, 0, &p, &err) != 0 && strstr(err.message, "mini-batches") != NULL,
           "a mini-batch of 0 documents was accepted");
  SK_CHECK(sk_lda_aga_plan_build(&c, 4, 0, 0, 0, &p, &err) != 0, "a panel of 0 words was accepted");
  SK_CHECK(sk_lda_aga_plan_build(&c, 4, 4, -1, 0, &p, &err) != 0, "-1 panels a mini-batch was accepted");
  SK_CHECK(sk_lda_aga_plan_build(NULL, 4, 4, 0, 0, &p, &err) != 0, "a NULL corpus was accepted");
  test_count_failures(&c);
  test_count_random();
  sk_lda_corpus_free(&e);
  sk_lda_corpus_free(&c);
  return sk_test_finish();
}
