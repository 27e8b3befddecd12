/* Blei's LDA-C reader (corpus_read.h): "N id:count id:count ..." per line, plus a vocabulary file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_lines.h"

static int compare_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}


static int parse_ldac(sk_lda_detail_lines *doc_lines, sk_lda_detail_lines *vocab_lines, const sk_lda_read_limits *lim,
                      sk_lda_corpus *out, sk_ex_error *err) {
  const sk_lda_read_limits limits = sk_lda_detail_limits(lim);
  sk_lda_corpus c;
  int64_t num_docs = 0, num_tokens = 0, offsets_cap = 0, tokens_cap = 0, ids_cap = 0, max_id = -1;
  int64_t id_limit = (int64_t)INT32_MAX - 1;
  int32_t *ids = NULL; /* the current line's ids, sorted to find repeats */
  char where[160];
  char q[64];
  const char *line;
  size_t len;
  int r;
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);
  where[0] = '\0';

  if (vocab_lines != NULL) {
    if (sk_lda_detail_read_vocab(vocab_lines, -1, "", INT32_MAX, &c.vocab, &c.num_words, err) != 0) goto fail;
    id_limit = (int64_t)c.num_words - 1;
    snprintf(where, sizeof where, " (the vocabulary %s has %lld words)", vocab_lines->name, (long long)c.num_words);
  }
  if (sk_lda_detail_reserve((void **)&c.doc_offsets, &offsets_cap, 1, sizeof *c.doc_offsets) != 0) goto oom;
  c.doc_offsets[0] = 0;

  while ((r = sk_lda_detail_lines_next(doc_lines, &line, &len, err)) == 1) {
    const char *p = line, *end = line + len, *s, *e;
    int64_t n, pairs = 0;
    if (sk_lda_detail_blank(line, end)) {
      const int64_t blank_line = doc_lines->line_no;
      const int rest = sk_lda_detail_lines_rest_blank(doc_lines, err);
      if (rest < 0) goto fail;
      if (rest == 1) break;
      sk_ex_fail(err, "%s:%lld: empty line (a document is \"N id:count ...\"; write 0 for an empty document)",
                  doc_lines->name, (long long)blank_line);
      goto fail;
    }
    if (num_docs >= limits.max_docs) {
      sk_ex_fail(err, "%s:%lld: more documents than the reader accepts (%lld)", doc_lines->name,
                  (long long)doc_lines->line_no, (long long)limits.max_docs);
      goto fail;
    }
    while (p < end && sk_lda_detail_is_blank(*p)) ++p;
    s = p;
    while (p < end && !sk_lda_detail_is_blank(*p)) ++p;
    if (sk_lda_detail_parse_number(doc_lines, s, p, "the number of pairs N", 0, INT64_MAX, "", &n, err) != 0) goto fail;
    for (;;) {
      const char *colon;
      int64_t id, count;
      while (p < end && sk_lda_detail_is_blank(*p)) ++p;
      if (p == end) break;
      s = p;
      while (p < end && !sk_lda_detail_is_blank(*p)) ++p;
      e = p;
      if (pairs == n) {
        sk_ex_fail(err, "%s:%lld: more than N = %lld pairs: %s", doc_lines->name, (long long)doc_lines->line_no,
                    (long long)n, sk_lda_detail_quote(s, (size_t)(end - s), q, sizeof q));
        goto fail;
      }
      colon = memchr(s, ':', (size_t)(e - s));
      if (colon == NULL) {
        sk_ex_fail(err, "%s:%lld: pair %s is not \"id:count\"", doc_lines->name, (long long)doc_lines->line_no,
                    sk_lda_detail_quote(s, (size_t)(e - s), q, sizeof q));
        goto fail;
      }
      if (sk_lda_detail_parse_number(doc_lines, s, colon, "word id", 0, id_limit, where, &id, err) != 0) goto fail;
      if (sk_lda_detail_parse_number(doc_lines, colon + 1, e, "count", 1, INT32_MAX, "", &count, err) != 0) goto fail;
      if (count > limits.max_tokens - num_tokens) {
        sk_ex_fail(err, "%s:%lld: the corpus has more than %lld tokens, more than the reader accepts",
                    doc_lines->name, (long long)doc_lines->line_no, (long long)limits.max_tokens);
        goto fail;
      }
      {
        /* 4 bytes a token and 8 a document (its offset): refused at the line that crosses the budget. */
        char what[96];
        const uint64_t need = 4u * (uint64_t)(num_tokens + count) + 8u * (uint64_t)(num_docs + 2);
        snprintf(what, sizeof what, "the %lld tokens read by this line", (long long)(num_tokens + count));
        if (sk_lda_detail_check_bytes(doc_lines->name, doc_lines->line_no, &limits, need, what, err) != 0) goto fail;
      }
      if (sk_lda_detail_reserve((void **)&ids, &ids_cap, pairs + 1, sizeof *ids) != 0 ||
          sk_lda_detail_reserve_upto((void **)&c.tokens, &tokens_cap, num_tokens + count,
                                     limits.max_bytes != 0 ? (int64_t)(limits.max_bytes / 4u) : INT64_MAX,
                                     sizeof *c.tokens) != 0)
        goto oom;
      ids[pairs++] = (int32_t)id;
      for (int64_t i = 0; i < count; ++i) c.tokens[num_tokens + i] = (int32_t)id;
      num_tokens += count;
      if (id > max_id) max_id = id;
    }
    if (pairs != n) {
      sk_ex_fail(err, "%s:%lld: N = %lld but the line has %lld pairs", doc_lines->name,
                  (long long)doc_lines->line_no, (long long)n, (long long)pairs);
      goto fail;
    }
    if (pairs > 1) {
      qsort(ids, (size_t)pairs, sizeof *ids, compare_i32);
      for (int64_t i = 1; i < pairs; ++i)
        if (ids[i] == ids[i - 1]) {
          sk_ex_fail(err, "%s:%lld: word id %d appears twice in the document", doc_lines->name,
                      (long long)doc_lines->line_no, (int)ids[i]);
          goto fail;
        }
    }
    if (sk_lda_detail_reserve((void **)&c.doc_offsets, &offsets_cap, num_docs + 2, sizeof *c.doc_offsets) != 0)
      goto oom;
    c.doc_offsets[++num_docs] = num_tokens;
  }
  if (r < 0) goto fail;
  if (num_docs == 0 || num_tokens == 0) {
    sk_ex_fail(err, "%s:%lld: the corpus is empty (%lld documents, no tokens)", doc_lines->name,
                sk_lda_detail_last_line(doc_lines), (long long)num_docs);
    goto fail;
  }
  c.num_docs = (int32_t)num_docs;
  c.num_tokens = num_tokens;
  if (vocab_lines == NULL) c.num_words = (int32_t)(max_id + 1);
  free(ids);
  *out = c;
  return 0;
oom:
  sk_ex_fail(err, "%s:%lld: out of memory", doc_lines->name, (long long)doc_lines->line_no);
fail:
  free(ids);
  sk_lda_corpus_free(&c);
  return 1;
}

int sk_lda_parse_ldac(const sk_lda_buffer *docs, const sk_lda_buffer *vocab, const sk_lda_read_limits *limits,
                      sk_lda_corpus *out, sk_ex_error *err) {
  return sk_lda_detail_parse_buffers("sk_lda_parse_ldac", parse_ldac, docs, vocab, limits, out, err);
}

int sk_lda_read_ldac(const char *path, const char *vocab_path, sk_lda_corpus *out, sk_ex_error *err) {
  return sk_lda_detail_read_files("sk_lda_read_ldac", parse_ldac, path, vocab_path, out, err);
}
