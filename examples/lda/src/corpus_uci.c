/* UCI bag-of-words reader (corpus_read.h): docword.X.txt[.gz] plus vocab.X.txt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_lines.h"

/* Splits off the next blank-separated field of [*p, end): returns its start, sets *field_end, advances *p. */
static inline const char *next_field(const char **p, const char *end, const char **field_end) {
  const char *s = *p, *e;
  while (s < end && sk_lda_detail_is_blank(*s)) ++s;
  e = s;
  while (e < end && !sk_lda_detail_is_blank(*e)) ++e;
  *field_end = e;
  *p = e;
  return s;
}

/* Parses the field [s, e) as what, which must lie in lo..hi; where says where hi came from. */
static int parse_field(const sk_lda_detail_lines *lines, const char *s, const char *e, const char *what, int64_t lo,
                       int64_t hi, const char *where, int64_t *value, sk_ex_error *err) {
  if (s == e)
    return sk_ex_fail(err, "%s:%lld: missing %s (expected \"docID wordID count\")", lines->name,
                       (long long)lines->line_no, what);
  return sk_lda_detail_parse_number(lines, s, e, what, lo, hi, where, value, err);
}

/* Reads header line `number` (1, 2 or 3) as one integer in lo..hi. */
static int read_header(sk_lda_detail_lines *lines, int number, const char *what, int64_t lo, int64_t hi,
                       int64_t *value, sk_ex_error *err) {
  const char *line, *p, *s, *e, *end;
  size_t len;
  char q[64];
  const int r = sk_lda_detail_lines_next(lines, &line, &len, err);
  if (r < 0) return 1;
  if (r == 0)
    return sk_ex_fail(err, "%s:%d: missing header line %d (%s): the file ends before it", lines->name, number,
                       number, what);
  p = line;
  end = line + len;
  s = next_field(&p, end, &e);
  if (s == e)
    return sk_ex_fail(err, "%s:%d: header line %d is empty; expected %s", lines->name, number, number, what);
  if (parse_field(lines, s, e, what, lo, hi, "", value, err) != 0) return 1;
  s = next_field(&p, end, &e);
  if (s != e)
    return sk_ex_fail(err, "%s:%d: trailing text %s after %s on header line %d", lines->name, number,
                       sk_lda_detail_quote(s, (size_t)(end - s), q, sizeof q), what, number);
  return 0;
}

static int parse_uci(sk_lda_detail_lines *doc_lines, sk_lda_detail_lines *vocab_lines, const sk_lda_read_limits *lim,
                     sk_lda_corpus *out, sk_ex_error *err) {
  const sk_lda_read_limits limits = sk_lda_detail_limits(lim);
  sk_lda_corpus c;
  int64_t num_docs, num_words, nnz, entries = 0, num_tokens = 0, pairs_cap = 0;
  int32_t *pairs = NULL; /* per entry its word id and count, 2 NNZ: the tokens once T is known */
  int64_t prev_doc = 0, prev_word = 0, prev_line = 0;
  int64_t stored = 0, offsets_cap = 0, ids_cap = 0; /* documents with entries, and their arrays' room */
  char what[96];
  const char *line;
  size_t len;
  char q[64];
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);

  if (read_header(doc_lines, 1, "the number of documents D", 0, INT64_MAX, &num_docs, err) != 0) goto fail;
  if (num_docs == 0) {
    sk_ex_fail(err, "%s:1: D = 0: the corpus is empty", doc_lines->name);
    goto fail;
  }
  if (num_docs > limits.max_docs) {
    sk_ex_fail(err, "%s:1: D = %lld is more documents than the reader accepts (%lld)", doc_lines->name,
                (long long)num_docs, (long long)limits.max_docs);
    goto fail;
  }
  if (read_header(doc_lines, 2, "the vocabulary size W", 0, INT32_MAX, &num_words, err) != 0) goto fail;
  if (num_words == 0) {
    sk_ex_fail(err, "%s:2: W = 0: the vocabulary is empty", doc_lines->name);
    goto fail;
  }
  if (read_header(doc_lines, 3, "the number of entries NNZ", 0, INT64_MAX, &nnz, err) != 0) goto fail;
  if (nnz == 0) {
    sk_ex_fail(err, "%s:3: NNZ = 0: the corpus is empty", doc_lines->name);
    goto fail;
  }

  /* Every entry is at least one token of 4 bytes: NNZ alone may already not fit. */
  snprintf(what, sizeof what, "NNZ = %lld entries hold at least as many tokens, which", (long long)nnz);
  if ((uint64_t)nnz > UINT64_MAX / 4u) {
    sk_ex_fail(err, "%s:3: NNZ = %lld is too large", doc_lines->name, (long long)nnz);
    goto fail;
  }
  if (sk_lda_detail_check_bytes(doc_lines->name, 3, &limits, 4u * (uint64_t)nnz, what, err) != 0) goto fail;
  c.num_words = (int32_t)num_words;

  while (entries < nnz) {
    const char *p, *s, *e, *end;
    int64_t doc, word, count;
    const int r = sk_lda_detail_lines_next(doc_lines, &line, &len, err);
    if (r < 0) goto fail;
    if (r == 0) {
      sk_ex_fail(err, "%s:%lld: the file ends after %lld entry lines, but NNZ = %lld (line 3)", doc_lines->name,
                  (long long)doc_lines->line_no, (long long)entries, (long long)nnz);
      goto fail;
    }
    p = line;
    end = line + len;
    s = next_field(&p, end, &e);
    if (parse_field(doc_lines, s, e, "docID", 1, num_docs, " (D on line 1)", &doc, err) != 0) goto fail;
    s = next_field(&p, end, &e);
    if (parse_field(doc_lines, s, e, "wordID", 1, num_words, " (W on line 2)", &word, err) != 0) goto fail;
    s = next_field(&p, end, &e);
    if (parse_field(doc_lines, s, e, "count", 1, INT32_MAX, "", &count, err) != 0) goto fail;
    s = next_field(&p, end, &e);
    if (s != e) {
      sk_ex_fail(err, "%s:%lld: trailing text %s after \"docID wordID count\"", doc_lines->name,
                  (long long)doc_lines->line_no, sk_lda_detail_quote(s, (size_t)(end - s), q, sizeof q));
      goto fail;
    }
    if (doc < prev_doc || (doc == prev_doc && word <= prev_word)) {
      if (doc == prev_doc && word == prev_word)
        sk_ex_fail(err, "%s:%lld: duplicate pair (docID %lld, wordID %lld), already on line %lld", doc_lines->name,
                    (long long)doc_lines->line_no, (long long)doc, (long long)word, (long long)prev_line);
      else
        sk_ex_fail(err,
                    "%s:%lld: pair (docID %lld, wordID %lld) comes after (docID %lld, wordID %lld) on line %lld: "
                    "entries must be sorted by docID, then wordID",
                    doc_lines->name, (long long)doc_lines->line_no, (long long)doc, (long long)word,
                    (long long)prev_doc, (long long)prev_word, (long long)prev_line);
      goto fail;
    }
    if (count > limits.max_tokens - num_tokens) {
      sk_ex_fail(err, "%s:%lld: the corpus has more than %lld tokens, more than the reader accepts",
                  doc_lines->name, (long long)doc_lines->line_no, (long long)limits.max_tokens);
      goto fail;
    }
    /* The bytes the corpus will take, planned before its tokens are: 4 a token, 12 a stored document (its
       offset and its id) and, while reading, 8 an entry (its word and count, expanded at the end). */
    {
      const uint64_t need = 4u * (uint64_t)(num_tokens + count) + 8u * (uint64_t)(entries + 1) +
                            12u * (uint64_t)(stored + 2);
      snprintf(what, sizeof what, "the %lld tokens counted by this line", (long long)(num_tokens + count));
      if (sk_lda_detail_check_bytes(doc_lines->name, doc_lines->line_no, &limits, need, what, err) != 0) goto fail;
      /* A new docID starts a stored document; the empty ones before it cost nothing. */
      if (doc != prev_doc) {
        if (sk_lda_detail_reserve((void **)&c.doc_offsets, &offsets_cap, stored + 2, sizeof *c.doc_offsets) != 0 ||
            sk_lda_detail_reserve((void **)&c.doc_ids, &ids_cap, stored + 1, sizeof *c.doc_ids) != 0) {
          sk_ex_fail(err, "%s:%lld: out of memory for %lld documents", doc_lines->name,
                      (long long)doc_lines->line_no, (long long)(stored + 1));
          goto fail;
        }
        c.doc_offsets[stored] = num_tokens;
        c.doc_ids[stored] = (int32_t)(doc - 1);
        ++stored;
      }
      if (sk_lda_detail_reserve((void **)&pairs, &pairs_cap, 2 * (entries + 1), sizeof *pairs) != 0) {
        sk_ex_fail(err, "%s:%lld: out of memory for %lld entries", doc_lines->name, (long long)doc_lines->line_no,
                    (long long)(entries + 1));
        goto fail;
      }
      pairs[2 * entries] = (int32_t)(word - 1);
      pairs[2 * entries + 1] = (int32_t)count;
    }
    num_tokens += count;
    prev_doc = doc;
    prev_word = word;
    prev_line = doc_lines->line_no;
    ++entries;
  }
  {
    const int rest = sk_lda_detail_lines_rest_blank(doc_lines, err);
    if (rest < 0) goto fail;
    if (rest == 0) {
      sk_ex_fail(err, "%s:%lld: more entry lines than NNZ = %lld (line 3)", doc_lines->name,
                  (long long)doc_lines->line_no, (long long)nnz);
      goto fail;
    }
  }
  c.doc_offsets[stored] = num_tokens;
  /* Every count is in and fits the budget: the tokens, entry by entry. */
  c.tokens = malloc((size_t)num_tokens * sizeof *c.tokens);
  if (c.tokens == NULL) {
    sk_ex_fail(err, "%s:%lld: out of memory for %lld tokens", doc_lines->name, (long long)prev_line,
                (long long)num_tokens);
    goto fail;
  }
  for (int64_t e = 0, t = 0; e < entries; ++e)
    for (int32_t i = 0; i < pairs[2 * e + 1]; ++i) c.tokens[t++] = pairs[2 * e];
  free(pairs);
  pairs = NULL;
  c.num_docs = (int32_t)stored;
  c.num_tokens = num_tokens;
  if (stored == num_docs) { /* no document dropped: the ids are 0 .. D-1 */
    free(c.doc_ids);
    c.doc_ids = NULL;
  } else {
    c.num_input_docs = (int32_t)num_docs;
  }

  if (vocab_lines != NULL) {
    char what[128];
    snprintf(what, sizeof what, "W on %s:2", doc_lines->name);
    if (sk_lda_detail_read_vocab(vocab_lines, num_words, what, INT32_MAX, &c.vocab, &c.num_words, err) != 0) {
      c.num_words = (int32_t)num_words; /* vocab is NULL again; sk_lda_corpus_free needs no count */
      goto fail;
    }
  }
  *out = c;
  return 0;
fail:
  free(pairs);
  sk_lda_corpus_free(&c);
  return 1;
}

int sk_lda_parse_uci(const sk_lda_buffer *docword, const sk_lda_buffer *vocab, const sk_lda_read_limits *limits,
                      sk_lda_corpus *out, sk_ex_error *err) {
  return sk_lda_detail_parse_buffers("sk_lda_parse_uci", parse_uci, docword, vocab, limits, out, err);
}

int sk_lda_read_uci(const char *docword_path, const char *vocab_path, sk_lda_corpus *out, sk_ex_error *err) {
  return sk_lda_detail_read_files("sk_lda_read_uci", parse_uci, docword_path, vocab_path, out, err);
}
