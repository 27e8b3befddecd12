/* Plain-text reader (corpus_read.h): one document per line, tokenized like ../shared/data/README.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_binary.h"
#include "corpus_lines.h"

enum { SK_LDA_TEXT_MIN_WORD = 3 };

/* An open-addressing hash set of words, each given an index in insertion order. */
typedef struct word_table {
  int64_t *slots; /* index + 1 of the word in each slot, 0 when empty */
  int64_t slots_cap;
  int64_t count;
  int64_t *offsets; /* word i is arena[offsets[i] ..], NUL-terminated, lengths[i] bytes */
  int64_t *lengths;
  uint64_t *hashes;
  int64_t words_cap;
  char *arena;
  int64_t arena_size, arena_cap;
} word_table;

static uint64_t hash_word(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

static void table_free(word_table *t) {
  free(t->slots);
  free(t->offsets);
  free(t->lengths);
  free(t->hashes);
  free(t->arena);
  memset(t, 0, sizeof *t);
}

static int64_t table_find(const word_table *t, const char *s, size_t n, uint64_t h) {
  if (t->slots_cap == 0) return -1;
  for (int64_t i = (int64_t)(h & (uint64_t)(t->slots_cap - 1));; i = (i + 1) & (t->slots_cap - 1)) {
    const int64_t w = t->slots[i] - 1;
    if (w < 0) return -1;
    if (t->hashes[w] == h && t->lengths[w] == (int64_t)n && memcmp(t->arena + t->offsets[w], s, n) == 0) return w;
  }
}

static int table_rehash(word_table *t, int64_t cap) {
  int64_t *slots = calloc((size_t)cap, sizeof *slots);
  if (slots == NULL) return 1;
  for (int64_t w = 0; w < t->count; ++w) {
    int64_t i = (int64_t)(t->hashes[w] & (uint64_t)(cap - 1));
    while (slots[i] != 0) i = (i + 1) & (cap - 1);
    slots[i] = w + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->slots_cap = cap;
  return 0;
}

/* Adds a word known to be absent; *index gets its index. 0 on success, 1 out of memory. */
static int table_add(word_table *t, const char *s, size_t n, uint64_t h, int64_t *index) {
  int64_t i, cap_words = t->words_cap, cap_lengths = t->words_cap, cap_hashes = t->words_cap;
  if ((t->count + 1) * 2 > t->slots_cap && table_rehash(t, t->slots_cap ? t->slots_cap * 2 : 1024) != 0) return 1;
  if (sk_lda_detail_reserve((void **)&t->offsets, &cap_words, t->count + 1, sizeof *t->offsets) != 0 ||
      sk_lda_detail_reserve((void **)&t->lengths, &cap_lengths, t->count + 1, sizeof *t->lengths) != 0 ||
      sk_lda_detail_reserve((void **)&t->hashes, &cap_hashes, t->count + 1, sizeof *t->hashes) != 0)
    return 1;
  /* The three arrays grow in step: they start and double together. */
  t->words_cap = cap_words;
  if (sk_lda_detail_reserve((void **)&t->arena, &t->arena_cap, t->arena_size + (int64_t)n + 1, 1) != 0) return 1;
  memcpy(t->arena + t->arena_size, s, n);
  t->arena[t->arena_size + (int64_t)n] = '\0';
  t->offsets[t->count] = t->arena_size;
  t->lengths[t->count] = (int64_t)n;
  t->hashes[t->count] = h;
  t->arena_size += (int64_t)n + 1;
  i = (int64_t)(h & (uint64_t)(t->slots_cap - 1));
  while (t->slots[i] != 0) i = (i + 1) & (t->slots_cap - 1);
  t->slots[i] = t->count + 1;
  *index = t->count++;
  return 0;
}

typedef struct kept_word {
  const char *word;
  int64_t old_id;
} kept_word;

static int compare_kept(const void *a, const void *b) {
  return strcmp(((const kept_word *)a)->word, ((const kept_word *)b)->word);
}

static int read_stopwords(sk_lda_detail_lines *lines, word_table *stop, sk_ex_error *err) {
  const char *line;
  size_t len;
  int r;
  while ((r = sk_lda_detail_lines_next(lines, &line, &len, err)) == 1) {
    const char *s = line, *e = line + len;
    int64_t index;
    uint64_t h;
    while (s < e && sk_lda_detail_is_blank(*s)) ++s;
    while (e > s && sk_lda_detail_is_blank(e[-1])) --e;
    if (s == e) continue;
    h = hash_word(s, (size_t)(e - s));
    if (table_find(stop, s, (size_t)(e - s), h) >= 0) continue;
    if (table_add(stop, s, (size_t)(e - s), h, &index) != 0)
      return sk_ex_fail(err, "%s:%lld: out of memory", lines->name, (long long)lines->line_no);
  }
  return r < 0 ? 1 : 0;
}

static int parse_text(sk_lda_detail_lines *text, sk_lda_detail_lines *stop_lines, int64_t min_count,
                      const sk_lda_read_limits *lim, sk_lda_corpus *out, sk_ex_error *err) {
  const sk_lda_read_limits limits = sk_lda_detail_limits(lim);
  word_table stop, words;
  sk_lda_corpus c;
  int32_t *raw = NULL;      /* tokens as indices in `words`, all lines */
  int64_t *raw_ends = NULL; /* end of each line's tokens in raw */
  int64_t *counts = NULL, *new_id = NULL;
  kept_word *kept = NULL;
  int64_t raw_size = 0, raw_cap = 0, num_lines = 0, ends_cap = 0, counts_cap = 0, num_kept = 0;
  const char *line;
  size_t len;
  int r;
  memset(&stop, 0, sizeof stop);
  memset(&words, 0, sizeof words);
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);

  if (min_count < 0) {
    sk_ex_fail(err, "%s: min_count %lld is negative", text->name, (long long)min_count);
    goto fail;
  }
  if (stop_lines != NULL && read_stopwords(stop_lines, &stop, err) != 0) goto fail;

  while ((r = sk_lda_detail_lines_next(text, &line, &len, err)) == 1) {
    size_t i = 0;
    if (sk_lda_detail_reserve((void **)&raw_ends, &ends_cap, num_lines + 1, sizeof *raw_ends) != 0) goto oom;
    while (i < len) {
      size_t start, n;
      /* Skip to the next ASCII letter, then take the run of letters; it is lower-cased into a copy. */
      while (i < len && !((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z'))) ++i;
      start = i;
      while (i < len && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z'))) ++i;
      n = i - start;
      if (n >= SK_LDA_TEXT_MIN_WORD) {
        char small[64];
        char *lower = n <= sizeof small ? small : malloc(n);
        uint64_t h;
        int64_t id;
        if (lower == NULL) goto oom;
        for (size_t k = 0; k < n; ++k) lower[k] = (char)(line[start + k] | 0x20);
        h = hash_word(lower, n);
        if (table_find(&stop, lower, n, h) < 0) {
          id = table_find(&words, lower, n, h);
          if (id < 0) {
            if (words.count >= INT32_MAX - 1 || table_add(&words, lower, n, h, &id) != 0) {
              if (lower != small) free(lower);
              goto oom;
            }
            if (sk_lda_detail_reserve((void **)&counts, &counts_cap, id + 1, sizeof *counts) != 0) {
              if (lower != small) free(lower);
              goto oom;
            }
            counts[id] = 0;
          }
          if (raw_size >= limits.max_tokens) {
            if (lower != small) free(lower);
            sk_ex_fail(err, "%s:%lld: the text has more than %lld tokens, more than the reader accepts", text->name,
                        (long long)text->line_no, (long long)limits.max_tokens);
            goto fail;
          }
          if (sk_lda_detail_reserve((void **)&raw, &raw_cap, raw_size + 1, sizeof *raw) != 0) {
            if (lower != small) free(lower);
            goto oom;
          }
          raw[raw_size++] = (int32_t)id;
          ++counts[id];
        }
        if (lower != small) free(lower);
      }
    }
    raw_ends[num_lines++] = raw_size;
  }
  if (r < 0) goto fail;

  /* The vocabulary: words seen more than min_count times, in byte order. */
  kept = malloc((size_t)(words.count > 0 ? words.count : 1) * sizeof *kept);
  new_id = malloc((size_t)(words.count > 0 ? words.count : 1) * sizeof *new_id);
  if (kept == NULL || new_id == NULL) goto oom;
  for (int64_t w = 0; w < words.count; ++w) {
    new_id[w] = -1;
    if (counts[w] > min_count) {
      kept[num_kept].word = words.arena + words.offsets[w];
      kept[num_kept].old_id = w;
      ++num_kept;
    }
  }
  qsort(kept, (size_t)num_kept, sizeof *kept, compare_kept);
  for (int64_t k = 0; k < num_kept; ++k) new_id[kept[k].old_id] = k;

  /* Tokens renumbered in place, removed words and then empty documents dropped. */
  {
    int64_t t = 0, from = 0, docs = 0;
    for (int64_t l = 0; l < num_lines; ++l) {
      const int64_t doc_start = t;
      for (; from < raw_ends[l]; ++from) {
        const int64_t id = new_id[raw[from]];
        if (id >= 0) raw[t++] = (int32_t)id;
      }
      if (t > doc_start) {
        raw_ends[docs] = t; /* raw_ends now holds document ends, docs <= l + 1 */
        if (docs != l) {    /* a line before left no token: the stored documents need their line numbers */
          if (c.doc_ids == NULL) {
            c.doc_ids = malloc((size_t)num_lines * sizeof *c.doc_ids);
            if (c.doc_ids == NULL) goto oom;
            for (int64_t i = 0; i < docs; ++i) c.doc_ids[i] = (int32_t)i;
          }
        }
        if (c.doc_ids != NULL) c.doc_ids[docs] = (int32_t)l;
        ++docs;
      }
    }
    if (c.doc_ids == NULL && docs < num_lines) { /* only the last lines left no token */
      c.doc_ids = malloc((size_t)(docs > 0 ? docs : 1) * sizeof *c.doc_ids);
      if (c.doc_ids == NULL) goto oom;
      for (int64_t i = 0; i < docs; ++i) c.doc_ids[i] = (int32_t)i;
    }
    if (c.doc_ids != NULL) c.num_input_docs = (int32_t)(num_lines < INT32_MAX ? num_lines : INT32_MAX);
    if (t == 0) {
      sk_ex_fail(err, "%s:%lld: the corpus is empty: no tokens left after tokenizing%s%s", text->name,
                  sk_lda_detail_last_line(text), stop_lines != NULL ? ", removing stop words" : "",
                  min_count > 0 ? " and removing rare words" : "");
      goto fail;
    }
    if (docs > limits.max_docs) {
      sk_ex_fail(err, "%s:%lld: %lld documents, more than the reader accepts (%lld)", text->name,
                  (long long)text->line_no, (long long)docs, (long long)limits.max_docs);
      goto fail;
    }
    c.doc_offsets = malloc((size_t)(docs + 1) * sizeof *c.doc_offsets);
    c.vocab = calloc((size_t)num_kept, sizeof *c.vocab);
    if (c.doc_offsets == NULL || c.vocab == NULL) goto oom;
    c.doc_offsets[0] = 0;
    memcpy(c.doc_offsets + 1, raw_ends, (size_t)docs * sizeof *raw_ends);
    c.num_docs = (int32_t)docs;
    c.num_words = (int32_t)num_kept;
    for (int64_t k = 0; k < num_kept; ++k) {
      const size_t n = (size_t)words.lengths[kept[k].old_id];
      c.vocab[k] = malloc(n + 1);
      if (c.vocab[k] == NULL) goto oom;
      memcpy(c.vocab[k], kept[k].word, n + 1);
    }
    c.tokens = raw;
    raw = NULL;
    if ((size_t)t < (size_t)raw_cap) {
      int32_t *shrunk = realloc(c.tokens, (size_t)t * sizeof *c.tokens);
      if (shrunk != NULL) c.tokens = shrunk;
    }
    c.num_tokens = t;
  }
  table_free(&stop);
  table_free(&words);
  free(raw_ends);
  free(counts);
  free(kept);
  free(new_id);
  *out = c;
  return 0;
oom:
  sk_ex_fail(err, "%s:%lld: out of memory", text->name, (long long)text->line_no);
fail:
  table_free(&stop);
  table_free(&words);
  free(raw);
  free(raw_ends);
  free(counts);
  free(kept);
  free(new_id);
  sk_lda_corpus_free(&c);
  return 1;
}

int sk_lda_parse_text(const sk_lda_buffer *text, const sk_lda_buffer *stopwords, int64_t min_count,
                      const sk_lda_read_limits *limits, sk_lda_corpus *out, sk_ex_error *err) {
  sk_lda_detail_lines t, s;
  if (out == NULL) return sk_ex_fail(err, "sk_lda_parse_text: out is NULL");
  memset(out, 0, sizeof *out);
  if (text == NULL) return sk_ex_fail(err, "sk_lda_parse_text: text is NULL");
  sk_lda_detail_lines_memory(&t, text);
  if (stopwords != NULL) sk_lda_detail_lines_memory(&s, stopwords);
  return parse_text(&t, stopwords != NULL ? &s : NULL, min_count, limits, out, err);
}

int sk_lda_read_text(const char *path, const char *stopwords_path, int64_t min_count, sk_lda_corpus *out,
                     sk_ex_error *err) {
  sk_lda_detail_lines t, s;
  int r;
  if (out == NULL) return sk_ex_fail(err, "sk_lda_read_text: out is NULL");
  memset(out, 0, sizeof *out);
  if (path == NULL) return sk_ex_fail(err, "sk_lda_read_text: path is NULL");
  if (sk_lda_is_binary_corpus(path))
    return sk_ex_fail(err, "%s: is an sk-lda binary corpus, not plain text (give it as --docword)", path);
  if (sk_lda_detail_lines_open(&t, path, err) != 0) return 1;
  if (stopwords_path != NULL && sk_lda_detail_lines_open(&s, stopwords_path, err) != 0) {
    sk_lda_detail_lines_close(&t);
    return 1;
  }
  r = parse_text(&t, stopwords_path != NULL ? &s : NULL, min_count, NULL, out, err);
  sk_lda_detail_lines_close(&t);
  if (stopwords_path != NULL) sk_lda_detail_lines_close(&s);
  return r;
}
