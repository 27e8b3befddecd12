/* sk_lda.h: errors, the version, the GPU probe and corpora. */
#include "api_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_lines.h"
#include "corpus_read.h"
#ifdef SK_LDA_HAVE_GPU
#include "sk_ex_gpu_probe.h"
#endif

int sklda_detail_fail(sklda_error *out, int status, const sk_ex_error *err) {
  if (out != NULL) {
    out->status = status;
    snprintf(out->message, sizeof out->message, "%s", err != NULL ? err->message : "");
  }
  return status;
}

int sklda_detail_failf(sklda_error *out, int status, const char *fmt, ...) {
  if (out != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
    out->status = status;
  }
  return status;
}

const char *sklda_version(void) { return SKLDA_VERSION; }

int sklda_gpu_available(void) {
#ifdef SK_LDA_HAVE_GPU
  sk_ex_error err;
  return sk_ex_gpu_probe(0, NULL, 0, &err) == 0;
#else
  return 0;
#endif
}

int sklda_detail_copy_words(const char *const *words, int32_t V, char ***out) {
  *out = NULL;
  if (words == NULL) return 0;
  char **v = (char **)calloc((size_t)(V > 0 ? V : 1), sizeof *v);
  if (v == NULL) return 1;
  for (int32_t i = 0; i < V; ++i) {
    const size_t n = strlen(words[i]) + 1;
    if ((v[i] = (char *)malloc(n)) == NULL) {
      sklda_detail_free_words(v, i);
      return 1;
    }
    memcpy(v[i], words[i], n);
  }
  *out = v;
  return 0;
}

void sklda_detail_free_words(char **words, int32_t V) {
  if (words == NULL) return;
  for (int32_t i = 0; i < V; ++i) free(words[i]);
  free(words);
}

sklda_corpus *sklda_detail_corpus_wrap(sk_lda_corpus *c) {
  sklda_corpus *h = (sklda_corpus *)calloc(1, sizeof *h);
  if (h == NULL) {
    sk_lda_corpus_free(c);
    return NULL;
  }
  h->c = *c;
  memset(c, 0, sizeof *c);
  return h;
}

/* Builds the tokens of a CSR matrix: the documents with no tokens are left out and numbered in doc_ids, as
   the UCI reader does, so that every stored document has tokens and theta keeps the input's rows. */
static int csr_to_corpus(int32_t D, int32_t V, const int64_t *offsets, const int32_t *words, const int32_t *counts,
                         sk_lda_corpus *c, sk_ex_error *err) {
  int64_t total = 0;
  int32_t stored = 0;
  for (int32_t d = 0; d < D; ++d) {
    if (offsets[d + 1] < offsets[d])
      return sk_ex_fail(err, "doc_offsets[%d] = %lld is less than doc_offsets[%d] = %lld", (int)d + 1,
                        (long long)offsets[d + 1], (int)d, (long long)offsets[d]);
    int64_t n = 0;
    for (int64_t j = offsets[d]; j < offsets[d + 1]; ++j) {
      if (words[j] < 0 || words[j] >= V)
        return sk_ex_fail(err, "word_ids[%lld] = %d (document %d) is out of range 0..%d", (long long)j, (int)words[j],
                          (int)d, (int)V - 1);
      const int32_t k = counts != NULL ? counts[j] : 1;
      if (k < 0)
        return sk_ex_fail(err, "counts[%lld] = %d (document %d) is negative", (long long)j, (int)k, (int)d);
      n += k;
    }
    if (n > INT32_MAX)
      return sk_ex_fail(err, "document %d has %lld tokens, more than %d", (int)d, (long long)n, (int)INT32_MAX);
    if (n > SK_LDA_READ_MAX_TOKENS - total)
      return sk_ex_fail(err, "the matrix has more than %lld tokens", (long long)SK_LDA_READ_MAX_TOKENS);
    total += n;
    stored += n > 0;
  }
  memset(c, 0, sizeof *c);
  c->num_docs = stored;
  c->num_words = V;
  c->num_tokens = total;
  c->doc_offsets = (int64_t *)malloc(((size_t)stored + 1) * sizeof *c->doc_offsets);
  c->tokens = (int32_t *)malloc((size_t)(total > 0 ? total : 1) * sizeof *c->tokens);
  if (stored < D) {
    c->doc_ids = (int32_t *)malloc((size_t)(stored > 0 ? stored : 1) * sizeof *c->doc_ids);
    c->num_input_docs = D;
  }
  if (c->doc_offsets == NULL || c->tokens == NULL || (stored < D && c->doc_ids == NULL)) {
    sk_lda_corpus_free(c);
    return sk_ex_fail(err, "out of memory for %lld tokens", (long long)total);
  }
  int64_t t = 0;
  int32_t s = 0;
  c->doc_offsets[0] = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t t0 = t;
    for (int64_t j = offsets[d]; j < offsets[d + 1]; ++j)
      for (int32_t k = counts != NULL ? counts[j] : 1; k > 0; --k) c->tokens[t++] = words[j];
    if (t == t0) continue;
    if (c->doc_ids != NULL) c->doc_ids[s] = d;
    c->doc_offsets[++s] = t;
  }
  return 0;
}

int sklda_corpus_from_csr(int32_t num_docs, int32_t num_words, const int64_t *doc_offsets, const int32_t *word_ids,
                          const int32_t *counts, sklda_corpus **out, sklda_error *err) {
  if (out == NULL) return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_corpus_from_csr: out is NULL");
  *out = NULL;
  if (num_docs < 0 || num_docs > SK_LDA_READ_MAX_DOCS)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "num_docs = %d is out of range 0..%d", (int)num_docs,
                              (int)SK_LDA_READ_MAX_DOCS);
  if (num_words < 1) return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "num_words = %d must be at least 1", (int)num_words);
  if (doc_offsets == NULL) return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "doc_offsets is NULL");
  if (doc_offsets[0] != 0)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "doc_offsets[0] = %lld must be 0", (long long)doc_offsets[0]);
  if (doc_offsets[num_docs] > 0 && word_ids == NULL)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "word_ids is NULL");
  sk_lda_corpus c;
  sk_ex_error e;
  if (csr_to_corpus(num_docs, num_words, doc_offsets, word_ids, counts, &c, &e) != 0)
    return sklda_detail_fail(err, strncmp(e.message, "out of memory", 13) == 0 ? SKLDA_ERROR_RUNTIME : SKLDA_ERROR_INPUT,
                             &e);
  *out = sklda_detail_corpus_wrap(&c);
  return *out != NULL ? SKLDA_OK : sklda_detail_failf(err, SKLDA_ERROR_RUNTIME, "out of memory");
}

void sklda_read_options_default(sklda_read_options *ro) {
  memset(ro, 0, sizeof *ro);
  ro->format = "uci";
}

int sklda_corpus_read(const char *path, const sklda_read_options *ro, sklda_corpus **out, sklda_error *err) {
  sklda_read_options def;
  if (ro == NULL) sklda_read_options_default(&def), ro = &def;
  if (out == NULL || path == NULL)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_corpus_read: %s is NULL", out == NULL ? "out" : "path");
  *out = NULL;
  const char *format = ro->format != NULL ? ro->format : "uci";
  const int text = strcmp(format, "text") == 0;
  if (!text && strcmp(format, "uci") != 0 && strcmp(format, "ldac") != 0)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "format '%s' is not uci, ldac or text", format);
  if (!text && (ro->stopwords != NULL || ro->min_count > 0))
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "stopwords and min_count apply to the text format only");
  if (text && ro->vocab != NULL)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "vocab does not apply to the text format (its words are the "
                                                      "vocabulary)");
  if (ro->min_count < 0)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "min_count = %lld is negative", (long long)ro->min_count);
  sk_lda_corpus c;
  sk_ex_error e;
  memset(&c, 0, sizeof c);
  int rc;
  if (text)
    rc = sk_lda_read_text(path, ro->stopwords, ro->min_count, &c, &e);
  else if (strcmp(format, "ldac") == 0)
    rc = sk_lda_read_ldac(path, ro->vocab, &c, &e);
  else
    rc = sk_lda_read_uci(path, ro->vocab, &c, &e);
  /* As `sk-lda train`, whose exit status for a corpus it cannot read is 2 (the message says why). */
  if (rc != 0) return sklda_detail_fail(err, SKLDA_ERROR_INPUT, &e);
  *out = sklda_detail_corpus_wrap(&c);
  return *out != NULL ? SKLDA_OK : sklda_detail_failf(err, SKLDA_ERROR_RUNTIME, "%s: out of memory", path);
}

int sklda_corpus_set_vocab(sklda_corpus *c, const char *const *words, int32_t num_words, sklda_error *err) {
  if (c == NULL || words == NULL)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_corpus_set_vocab: %s is NULL", c == NULL ? "c" : "words");
  if (num_words != c->c.num_words)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "the vocabulary has %d words; the corpus has V = %d",
                              (int)num_words, (int)c->c.num_words);
  for (int32_t i = 0; i < num_words; ++i) {
    if (words[i] == NULL || words[i][0] == '\0')
      return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "word %d of the vocabulary is %s", (int)i,
                                words[i] == NULL ? "NULL" : "empty");
    /* topics.txt separates words by tabs and vocab.txt holds a word a line: such a word would corrupt both */
    if (strpbrk(words[i], "\t\n\r") != NULL)
      return sklda_detail_failf(err, SKLDA_ERROR_INPUT,
                                "word %d of the vocabulary holds a tab or a line break (\"%.40s\"), which the "
                                "outputs (a word a line, tab-separated topics) cannot hold",
                                (int)i, words[i]);
  }
  char **v;
  if (sklda_detail_copy_words(words, num_words, &v) != 0)
    return sklda_detail_failf(err, SKLDA_ERROR_RUNTIME, "out of memory for the vocabulary");
  /* As the vocabulary files' readers: each word once (a model cannot save two ids under one spelling, and
     infer would match the first), refused now rather than when the trained model is saved. */
  sk_ex_error e;
  const int repeated = sk_lda_detail_check_vocab_distinct(v, num_words, NULL, &e);
  if (repeated != 0) {
    sklda_detail_free_words(v, num_words);
    return sklda_detail_fail(err, repeated < 0 ? SKLDA_ERROR_RUNTIME : SKLDA_ERROR_INPUT, &e);
  }
  sklda_detail_free_words(c->c.vocab, c->c.num_words);
  c->c.vocab = v;
  return SKLDA_OK;
}

int32_t sklda_corpus_num_input_docs(const sklda_corpus *c) { return c != NULL ? sk_lda_corpus_input_docs(&c->c) : 0; }
int32_t sklda_corpus_num_words(const sklda_corpus *c) { return c != NULL ? c->c.num_words : 0; }
int64_t sklda_corpus_num_tokens(const sklda_corpus *c) { return c != NULL ? c->c.num_tokens : 0; }

const char *sklda_corpus_word(const sklda_corpus *c, int32_t v) {
  if (c == NULL || c->c.vocab == NULL || v < 0 || v >= c->c.num_words) return NULL;
  return c->c.vocab[v];
}

void sklda_corpus_free(sklda_corpus *c) {
  if (c == NULL) return;
  sk_lda_corpus_free(&c->c);
  free(c);
}
