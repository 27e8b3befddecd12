/* The mini-batches and column panels of the GPU AGA-LDA sampler (aga_plan.h), built on the host. */
#include "aga_plan.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/csr_chunker.h"

void sk_lda_aga_plan_free(sk_lda_aga_plan *plan) {
  if (plan == NULL) return;
  free(plan->batch_doc);
  free(plan->batch_panel);
  free(plan->panel_pos);
  free(plan->panel_word);
  free(plan->panel_flags);
  free(plan->words);
  free(plan->order);
  free(plan->doc);
  free(plan->local);
  memset(plan, 0, sizeof *plan);
}

/* Mini-batches: minibatch_docs consecutive documents each, the last possibly fewer; none when D = 0. */
static int32_t batch_count(const sk_lda_corpus *c, int32_t minibatch_docs) {
  return (int32_t)(((int64_t)c->num_docs + minibatch_docs - 1) / minibatch_docs);
}

/* Mini-batch b's first document; b = batch_count gives D. */
static int32_t batch_first_doc(const sk_lda_corpus *c, int32_t minibatch_docs, int32_t b) {
  const int64_t d = (int64_t)b * minibatch_docs;
  return (int32_t)(d < c->num_docs ? d : c->num_docs);
}

/* A panel's share of a mini-batch of n tokens: ceil(n / panels_per_batch), or more than n (no limit). */
static int64_t panel_share(int64_t n, int32_t panels_per_batch) {
  return panels_per_batch > 0 ? (n + panels_per_batch - 1) / panels_per_batch : n + 1;
}

/* The checks that the build and the count share; 0 when the arguments are fine. */
static int check_args(const sk_lda_corpus *c, int32_t minibatch_docs, int32_t panel_words, int32_t panels_per_batch,
                      sk_ex_error *err) {
  if (c == NULL || (c->num_docs > 0 && (c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL))))
    return sk_ex_fail(err, "AGA plan: corpus missing or incomplete");
  if (minibatch_docs < 1 || panel_words < 1 || panels_per_batch < 0)
    return sk_ex_fail(err, "AGA plan: mini-batches of %d documents and panels of %d words (each must be >= 1)",
                       (int)minibatch_docs, (int)panel_words);
  if (c->num_tokens > INT32_MAX)
    return sk_ex_fail(err, "AGA plan: %lld tokens; the GPU sampler takes at most %d", (long long)c->num_tokens,
                       INT32_MAX);
  return 0;
}

/* Tokens by (mini-batch, word, document): each mini-batch's word order is samplekit's, with each
   position's document (sk_csr_chunk_order_rows_host), written in place and made global. offsets: V + 1
   of scratch. Fails only on a word id outside [0, V). */
static int plan_order(const sk_lda_corpus *c, sk_lda_aga_plan *p, int64_t *offsets) {
  for (int32_t b = 0; b < p->num_batches; ++b) {
    const int32_t d0 = p->batch_doc[b], d1 = p->batch_doc[b + 1];
    const int64_t t0 = c->doc_offsets[d0], n = c->doc_offsets[d1] - t0;
    if (n == 0) continue;
    if (sk_csr_chunk_order_rows_host(c->doc_offsets + d0, d1 - d0, c->tokens + t0, n, c->num_words, p->order + t0,
                                     p->doc + t0, offsets) != SK_SUCCESS)
      return 1;
    if (t0 > 0 || d0 > 0)
      for (int64_t j = t0; j < t0 + n; ++j) {
        p->order[j] += (int32_t)t0;
        p->doc[j] += d0;
      }
  }
  return 0;
}

/* Panels: a new one at each mini-batch's first position, before a word when the panel holds panel_words
   words, and once it holds its share of the mini-batch's tokens (1 / panels_per_batch of them, when
   panels_per_batch > 0): at the next token with split_words, else before the next word. Counts them
   (and their words) and, when the arrays are set, fills them and local[]. */
static void plan_panels(const sk_lda_corpus *c, sk_lda_aga_plan *p, int32_t panel_words, int32_t panels_per_batch,
                        int split_words, int32_t *panels_out, int32_t *words_out) {
  int32_t panels = 0, words = 0, in_panel = 0;
  int64_t panel_start = 0;
  for (int32_t b = 0; b < p->num_batches; ++b) {
    const int64_t t0 = c->doc_offsets[p->batch_doc[b]], t1 = c->doc_offsets[p->batch_doc[b + 1]];
    const int64_t share = panel_share(t1 - t0, panels_per_batch);
    if (p->batch_panel != NULL) p->batch_panel[b] = panels;
    for (int64_t pos = t0; pos < t1; ++pos) {
      const int32_t v = c->tokens[p->order[pos]];
      const int new_word = pos == t0 || v != c->tokens[p->order[pos - 1]];
      const int full = pos - panel_start >= share;
      const int cut = pos == t0 || (new_word && (in_panel == panel_words || full)) || (split_words && full);
      if (cut) {
        panel_start = pos;
        if (p->panel_pos != NULL) {
          p->panel_pos[panels] = (int32_t)pos;
          p->panel_word[panels] = words;
          p->panel_flags[panels] = 0;
          if (!new_word) { /* a word split between this panel and the one before */
            p->panel_flags[panels - 1] |= SK_LDA_AGA_SHARES_LAST;
            p->panel_flags[panels] = SK_LDA_AGA_SHARES_FIRST;
          }
        }
        ++panels;
        in_panel = 0;
      }
      if (new_word || cut) {
        if (p->words != NULL) p->words[words] = v;
        ++words;
        ++in_panel;
      }
      if (p->local != NULL) p->local[pos] = in_panel - 1;
    }
  }
  if (p->panel_pos != NULL) {
    p->batch_panel[p->num_batches] = panels;
    p->panel_pos[panels] = (int32_t)c->num_tokens;
    p->panel_word[panels] = words;
  }
  *panels_out = panels;
  *words_out = words;
}

int sk_lda_aga_plan_build(const sk_lda_corpus *c, int32_t minibatch_docs, int32_t panel_words,
                          int32_t panels_per_batch, int split_words, sk_lda_aga_plan *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "AGA plan: out is NULL");
  memset(out, 0, sizeof *out);
  if (check_args(c, minibatch_docs, panel_words, panels_per_batch, err) != 0) return 1;
  sk_lda_aga_plan p;
  memset(&p, 0, sizeof p);
  p.num_tokens = c->num_tokens;
  p.num_batches = batch_count(c, minibatch_docs);
  const size_t T = (size_t)c->num_tokens;
  p.batch_doc = (int32_t *)malloc(((size_t)p.num_batches + 1) * sizeof *p.batch_doc);
  p.order = (int32_t *)malloc((T > 0 ? T : 1) * sizeof *p.order);
  p.doc = (int32_t *)malloc((T > 0 ? T : 1) * sizeof *p.doc);
  p.local = (int32_t *)malloc((T > 0 ? T : 1) * sizeof *p.local);
  int64_t *offsets = (int64_t *)malloc(((size_t)c->num_words + 1) * sizeof *offsets);
  if (p.batch_doc == NULL || p.order == NULL || p.doc == NULL || p.local == NULL || offsets == NULL) {
    free(offsets);
    sk_lda_aga_plan_free(&p);
    return sk_ex_fail(err, "AGA plan: out of host memory (%lld tokens)", (long long)c->num_tokens);
  }
  for (int32_t b = 0; b <= p.num_batches; ++b) p.batch_doc[b] = batch_first_doc(c, minibatch_docs, b);
  for (int32_t b = 0; b < p.num_batches; ++b) {
    const int32_t n = p.batch_doc[b + 1] - p.batch_doc[b];
    if (n > p.max_batch_docs) p.max_batch_docs = n;
  }
  const int bad_word = plan_order(c, &p, offsets);
  free(offsets);
  if (bad_word) {
    sk_lda_aga_plan_free(&p);
    return sk_ex_fail(err, "AGA plan: a word id outside [0, %d)", (int)c->num_words);
  }
  int32_t *local = p.local;
  p.local = NULL; /* the counting pass leaves it alone */
  plan_panels(c, &p, panel_words, panels_per_batch, split_words, &p.num_panels, &p.num_panel_words);
  p.local = local;
  p.batch_panel = (int32_t *)malloc(((size_t)p.num_batches + 1) * sizeof *p.batch_panel);
  p.panel_pos = (int32_t *)malloc(((size_t)p.num_panels + 1) * sizeof *p.panel_pos);
  p.panel_word = (int32_t *)malloc(((size_t)p.num_panels + 1) * sizeof *p.panel_word);
  p.panel_flags = (uint8_t *)malloc((size_t)p.num_panels + 1);
  p.words = (int32_t *)malloc(((size_t)p.num_panel_words + 1) * sizeof *p.words);
  if (p.batch_panel == NULL || p.panel_pos == NULL || p.panel_word == NULL || p.panel_flags == NULL ||
      p.words == NULL) {
    sk_lda_aga_plan_free(&p);
    return sk_ex_fail(err, "AGA plan: out of host memory (%d panels)", (int)p.num_panels);
  }
  int32_t panels = 0, words = 0;
  plan_panels(c, &p, panel_words, panels_per_batch, split_words, &panels, &words);
  *out = p;
  return 0;
}

/* A mini-batch's positions are its tokens in word order, so a word's tokens are one run and plan_panels'
   cuts can be taken run by run: at a run's first token the cut needs only the panel's words and start;
   inside the run only split_words cuts, once every `share` tokens from the panel's start (each cut
   starting a panel whose one word is the run's). */
int sk_lda_aga_plan_count(const sk_lda_corpus *c, int32_t minibatch_docs, int32_t panel_words,
                          int32_t panels_per_batch, int split_words, sk_lda_aga_plan_sizes *out,
                          sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "AGA plan: out is NULL");
  memset(out, 0, sizeof *out);
  if (check_args(c, minibatch_docs, panel_words, panels_per_batch, err) != 0) return 1;
  const int32_t batches = batch_count(c, minibatch_docs);
  int32_t *count = (int32_t *)calloc((size_t)c->num_words + 1, sizeof *count);
  if (count == NULL) return sk_ex_fail(err, "AGA plan: out of host memory counting (V = %d)", (int)c->num_words);
  int64_t panels = 0, words = 0;
  int32_t max_docs = 0;
  for (int32_t b = 0; b < batches; ++b) {
    const int32_t d0 = batch_first_doc(c, minibatch_docs, b), d1 = batch_first_doc(c, minibatch_docs, b + 1);
    if (d1 - d0 > max_docs) max_docs = d1 - d0;
    const int64_t t0 = c->doc_offsets[d0], t1 = c->doc_offsets[d1];
    if (t1 == t0) continue; /* no positions, no panels */
    for (int64_t t = t0; t < t1; ++t) ++count[c->tokens[t]];
    const int64_t share = panel_share(t1 - t0, panels_per_batch);
    int64_t pos = t0, panel_start = t0;
    int32_t in_panel = 0;
    for (int32_t v = 0; v < c->num_words; ++v) {
      const int64_t m = count[v];
      if (m == 0) continue;
      count[v] = 0;
      if (pos == t0 || in_panel == panel_words || pos - panel_start >= share) {
        ++panels;
        panel_start = pos;
        in_panel = 0;
      }
      ++words;
      ++in_panel;
      /* Here pos - panel_start < share, so the first cut inside the run is past pos. */
      const int64_t cuts = split_words ? (pos + m - 1 - panel_start) / share : 0;
      if (cuts > 0) {
        panels += cuts;
        words += cuts;
        panel_start += cuts * share;
        in_panel = 1;
      }
      pos += m;
    }
  }
  free(count);
  out->num_batches = batches;
  out->num_panels = (int32_t)panels;
  out->num_panel_words = (int32_t)words;
  out->max_batch_docs = max_docs;
  return 0;
}
