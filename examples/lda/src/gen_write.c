/* The files of sk-lda gen (gen.h): the corpus as UCI bag of words or sk-lda's binary format, its
   vocabulary, and the planted truth, each written through a buffer to a temporary name and renamed once
   complete, so that a failed or interrupted write never leaves a file that looks whole. The corpora
   themselves are made in gen.c. */
#include "gen.h"

#include "corpus_binary.h"
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* --- buffered writing -------------------------------------------------------------------------------- */

#define WBUF_SIZE (size_t)(4u << 20)

typedef struct wfile {
  FILE *f;
  char *buf;
  size_t len;
  int bad;            /* a write failed; errno_saved holds why */
  int errno_saved;
  char path[4096];    /* final name */
  char tmp[4100];     /* path + ".tmp" */
} wfile;

static int wf_open(wfile *w, const char *dir, const char *file, sk_ex_error *err) {
  memset(w, 0, sizeof *w);
  if ((size_t)snprintf(w->path, sizeof w->path, "%s/%s", dir, file) >= sizeof w->path)
    return sk_ex_fail(err, "%s/%s: path is too long", dir, file);
  snprintf(w->tmp, sizeof w->tmp, "%s.tmp", w->path);
  w->buf = (char *)malloc(WBUF_SIZE);
  if (w->buf == NULL) return sk_ex_fail(err, "%s: out of memory for the write buffer", w->path);
  w->f = fopen(w->tmp, "wb");
  if (w->f == NULL) {
    const int e = errno;
    free(w->buf);
    w->buf = NULL;
    return sk_ex_fail(err, "%s: cannot open for writing: %s", w->tmp, strerror(e));
  }
  return 0;
}

static void wf_flush(wfile *w) {
  if (w->len > 0 && !w->bad && fwrite(w->buf, 1, w->len, w->f) != w->len) {
    w->bad = 1;
    w->errno_saved = errno;
  }
  w->len = 0;
}

/* Room for at least `need` (<= WBUF_SIZE) more bytes. */
static inline char *wf_reserve(wfile *w, size_t need) {
  if (w->len + need > WBUF_SIZE) wf_flush(w);
  return w->buf + w->len;
}

static void wf_bytes(wfile *w, const void *src, size_t n) {
  const char *s = (const char *)src;
  while (n > 0) {
    size_t chunk = WBUF_SIZE - w->len;
    if (chunk == 0) {
      wf_flush(w);
      chunk = WBUF_SIZE;
    }
    if (chunk > n) chunk = n;
    memcpy(w->buf + w->len, s, chunk);
    w->len += chunk;
    s += chunk;
    n -= chunk;
  }
}

/* Decimal digits of v followed by `end`, at dst; returns the bytes written (<= 21). */
static inline size_t fmt_u64(char *dst, uint64_t v, char end) {
  char tmp[20];
  size_t n = 0, i;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0);
  for (i = 0; i < n; ++i) dst[i] = tmp[n - 1 - i];
  dst[n] = end;
  return n + 1;
}

static void wf_u64(wfile *w, uint64_t v, char end) {
  char *p = wf_reserve(w, 21);
  w->len += fmt_u64(p, v, end);
}

/* Flushes, closes and renames into place; on failure removes the temporary file. */
static int wf_close(wfile *w, sk_ex_error *err) {
  int rc = 0;
  wf_flush(w);
  if (!w->bad && fflush(w->f) != 0) {
    w->bad = 1;
    w->errno_saved = errno;
  }
  if (fclose(w->f) != 0 && !w->bad) {
    w->bad = 1;
    w->errno_saved = errno;
  }
  w->f = NULL;
  free(w->buf);
  w->buf = NULL;
  if (w->bad) {
    rc = sk_ex_fail(err, "%s: write failed: %s", w->tmp, strerror(w->errno_saved));
    remove(w->tmp);
  } else if (rename(w->tmp, w->path) != 0) {
    const int e = errno;
    rc = sk_ex_fail(err, "%s: cannot rename to %s: %s", w->tmp, w->path, strerror(e));
    remove(w->tmp);
  }
  return rc;
}

/* Abandons a file after an error found before closing. */
static void wf_abort(wfile *w) {
  if (w->f != NULL) fclose(w->f);
  free(w->buf);
  w->f = NULL;
  w->buf = NULL;
  remove(w->tmp);
}

/* DIR/vocab.NAME.txt: the V words of c, one a line. */
static int write_vocab(const sk_lda_corpus *c, const char *dir, const char *name, sk_ex_error *err) {
  char file[1024];
  wfile w;
  snprintf(file, sizeof file, "vocab.%s.txt", name);
  if (wf_open(&w, dir, file, err)) return 1;
  for (int32_t v = 0; v < c->num_words; ++v) {
    if (c->vocab[v] == NULL) {
      wf_abort(&w);
      return sk_ex_fail(err, "%s: vocabulary word %d is NULL", w.path, (int)v);
    }
    wf_bytes(&w, c->vocab[v], strlen(c->vocab[v]));
    wf_bytes(&w, "\n", 1);
  }
  return wf_close(&w, err);
}

/* --- UCI --------------------------------------------------------------------------------------------- */

/* One thread's scratch for the UCI lines: stamp[v] = the last document that counted word v. */
typedef struct uci_scratch {
  int32_t *stamp, *distinct;
  int64_t *count;
} uci_scratch;

static int uci_scratch_alloc(uci_scratch *s, int32_t V, int64_t maxlen) {
  s->stamp = (int32_t *)malloc((size_t)V * sizeof *s->stamp);
  s->count = (int64_t *)malloc((size_t)V * sizeof *s->count);
  s->distinct = (int32_t *)malloc((size_t)(maxlen > 0 ? maxlen : 1) * sizeof *s->distinct);
  if (s->stamp != NULL)
    for (int32_t v = 0; v < V; ++v) s->stamp[v] = -1;
  return s->stamp != NULL && s->count != NULL && s->distinct != NULL;
}

static void uci_scratch_free(uci_scratch *s) {
  free(s->stamp);
  free(s->count);
  free(s->distinct);
}

/* A growable text buffer; `bad` once memory ran out. */
typedef struct text_buf {
  char *p;
  size_t len, cap;
  int bad;
} text_buf;

static char *tb_reserve(text_buf *b, size_t need) {
  if (b->len + need > b->cap) {
    size_t cap = b->cap > 0 ? b->cap : (size_t)1 << 16;
    while (cap < b->len + need) cap *= 2;
    char *p = (char *)realloc(b->p, cap);
    if (p == NULL) {
      b->bad = 1;
      return NULL;
    }
    b->p = p;
    b->cap = cap;
  }
  return b->p + b->len;
}

/* Document d's lines "d+1 w+1 count", by word. */
static void uci_doc_lines(const sk_lda_corpus *c, int32_t d, uci_scratch *s, text_buf *out) {
  int64_t j, nd = 0;
  char dbuf[24];
  const size_t dlen = fmt_u64(dbuf, (uint64_t)d + 1, ' ');
  for (j = c->doc_offsets[d]; j < c->doc_offsets[d + 1]; ++j) {
    const int32_t t = c->tokens[j];
    if (s->stamp[t] != d) {
      s->stamp[t] = d;
      s->count[t] = 0;
      s->distinct[nd++] = t;
    }
    ++s->count[t];
  }
  sk_lda_detail_sort_i32(s->distinct, (int32_t)nd); /* nd <= V */
  char *p = tb_reserve(out, (size_t)nd * 64);
  if (p == NULL) return;
  for (j = 0; j < nd; ++j) {
    memcpy(p, dbuf, dlen);
    p += dlen;
    p += fmt_u64(p, (uint64_t)s->distinct[j] + 1, ' ');
    p += fmt_u64(p, (uint64_t)s->count[s->distinct[j]], '\n');
  }
  out->len = (size_t)(p - out->p);
}

/* Documents per block of lines, and blocks formatted at once per thread before they are written in order. */
#define UCI_BLOCK_DOCS 512
#define UCI_BLOCKS_PER_THREAD 4

int sk_lda_write_uci(const sk_lda_corpus *c, const char *dir, const char *name, sk_ex_error *err) {
  int64_t nnz = 0, maxlen = 0;
  char file[1024];
  wfile w;
  int rc, nt, failed = 0;

  if (c == NULL || dir == NULL || name == NULL) return sk_ex_fail(err, "write_uci: corpus, dir or name is NULL");
  if (c->num_docs < 0 || c->num_words < 1 || c->doc_offsets == NULL || (c->num_tokens > 0 && c->tokens == NULL))
    return sk_ex_fail(err, "write_uci: invalid corpus (D = %d, V = %d)", (int)c->num_docs, (int)c->num_words);
  if (c->doc_offsets[0] != 0 || c->doc_offsets[c->num_docs] != c->num_tokens)
    return sk_ex_fail(err, "write_uci: document offsets do not span the %lld tokens", (long long)c->num_tokens);
  const int32_t D = c->num_docs, V = c->num_words;
  const int64_t T = c->num_tokens;
  {
    int32_t negative = D;
    int64_t bad = T;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(min : negative) reduction(max : maxlen)
#endif
    for (int32_t d = 0; d < D; ++d) {
      const int64_t len = c->doc_offsets[d + 1] - c->doc_offsets[d];
      if (len < 0 && d < negative) negative = d;
      if (len > maxlen) maxlen = len;
    }
    if (negative < D) return sk_ex_fail(err, "write_uci: document %d has negative length", (int)negative);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(min : bad)
#endif
    for (int64_t t = 0; t < T; ++t)
      if ((uint32_t)c->tokens[t] >= (uint32_t)V && t < bad) bad = t;
    if (bad < T) {
      int32_t d = 0;
      while (c->doc_offsets[d + 1] <= bad) ++d;
      return sk_ex_fail(err, "write_uci: token %lld of document %d has word id %d, out of range 0..%d",
                         (long long)(bad - c->doc_offsets[d]), (int)d, (int)c->tokens[bad], (int)V - 1);
    }
  }
#ifdef _OPENMP
  nt = omp_get_max_threads();
#else
  nt = 1;
#endif
  const int32_t nblocks_max = nt * UCI_BLOCKS_PER_THREAD;
  text_buf *bufs = (text_buf *)calloc((size_t)nblocks_max, sizeof *bufs);
  if (bufs == NULL) return sk_ex_fail(err, "write_uci: out of memory");

  /* NNZ for the header: the distinct words of each document, over the threads. */
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) reduction(+ : nnz)
#endif
  {
    uci_scratch s;
    if (sk_lda_detail_all_ready(uci_scratch_alloc(&s, V, 0), &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
      for (int32_t d = 0; d < D; ++d)
        for (int64_t j = c->doc_offsets[d]; j < c->doc_offsets[d + 1]; ++j)
          if (s.stamp[c->tokens[j]] != d) {
            s.stamp[c->tokens[j]] = d;
            ++nnz;
          }
    }
    uci_scratch_free(&s);
  }
  if (failed) {
    free(bufs);
    return sk_ex_fail(err, "write_uci: out of memory (V = %d, %d threads)", (int)V, nt);
  }

  snprintf(file, sizeof file, "docword.%s.txt", name);
  if (wf_open(&w, dir, file, err)) {
    free(bufs);
    return 1;
  }
  wf_u64(&w, (uint64_t)D, '\n');
  wf_u64(&w, (uint64_t)V, '\n');
  wf_u64(&w, (uint64_t)nnz, '\n');
  /* The lines in rounds: the threads format up to nblocks_max blocks of documents, then the blocks are
     written in order; the bytes are those of one thread writing document after document. */
  for (int32_t first = 0; first < D && !failed; first += nblocks_max * UCI_BLOCK_DOCS) {
    const int64_t left = ((int64_t)D - first + UCI_BLOCK_DOCS - 1) / UCI_BLOCK_DOCS;
    const int32_t nb = left < nblocks_max ? (int32_t)left : nblocks_max;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
    {
      uci_scratch s;
      if (sk_lda_detail_all_ready(uci_scratch_alloc(&s, V, maxlen), &failed)) {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (int32_t b = 0; b < nb; ++b) {
          const int64_t d0 = (int64_t)first + (int64_t)b * UCI_BLOCK_DOCS;
          const int64_t d1 = d0 + UCI_BLOCK_DOCS < D ? d0 + UCI_BLOCK_DOCS : D;
          bufs[b].len = 0;
          for (int64_t d = d0; d < d1 && !bufs[b].bad; ++d) uci_doc_lines(c, (int32_t)d, &s, &bufs[b]);
        }
      }
      uci_scratch_free(&s);
    }
    for (int32_t b = 0; b < nb && !failed; ++b) {
      if (bufs[b].bad) failed = 1;
      else wf_bytes(&w, bufs[b].p, bufs[b].len);
    }
  }
  for (int32_t b = 0; b < nblocks_max; ++b) free(bufs[b].p);
  free(bufs);
  if (failed) {
    wf_abort(&w);
    return sk_ex_fail(err, "%s: out of memory while formatting the lines", w.path);
  }
  rc = wf_close(&w, err);
  if (rc != 0 || c->vocab == NULL) return rc;
  return write_vocab(c, dir, name, err);
}

int sk_lda_write_binary_files(const sk_lda_corpus *c, const char *dir, const char *name, sk_ex_error *err) {
  char path[4096];
  if (c == NULL || dir == NULL || name == NULL) return sk_ex_fail(err, "write_binary: corpus, dir or name is NULL");
  if ((size_t)snprintf(path, sizeof path, "%s/docword.%s.bin", dir, name) >= sizeof path)
    return sk_ex_fail(err, "%s/docword.%s.bin: path is too long", dir, name);
  if (sk_lda_write_binary(c, path, err) != 0) return 1;
  return c->vocab == NULL ? 0 : write_vocab(c, dir, name, err);
}

/* --- planted truth ----------------------------------------------------------------------------------- */

static void wf_u32le(wfile *w, uint32_t x) {
  unsigned char b[4];
  b[0] = (unsigned char)(x & 0xffu);
  b[1] = (unsigned char)((x >> 8) & 0xffu);
  b[2] = (unsigned char)((x >> 16) & 0xffu);
  b[3] = (unsigned char)(x >> 24);
  wf_bytes(w, b, 4);
}

static int write_matrix(const char *dir, const char *file, const float *a, uint32_t rows, uint32_t cols,
                        sk_ex_error *err) {
  wfile w;
  size_t i, n = (size_t)rows * (size_t)cols;
  if (wf_open(&w, dir, file, err)) return 1;
  wf_bytes(&w, "SKLDAF32", 8);
  wf_u32le(&w, 1);
  wf_u32le(&w, rows);
  wf_u32le(&w, cols);
  wf_u32le(&w, 0);
  for (i = 0; i < n; ++i) {
    uint32_t bits;
    memcpy(&bits, &a[i], sizeof bits);
    wf_u32le(&w, bits);
  }
  return wf_close(&w, err);
}

typedef struct prob_word {
  float p;
  int32_t word;
} prob_word;

static int by_prob_desc(const void *x, const void *y) {
  const prob_word *a = (const prob_word *)x, *b = (const prob_word *)y;
  if (a->p != b->p) return a->p > b->p ? -1 : 1;
  return (a->word > b->word) - (a->word < b->word);
}

int sk_lda_write_planted(const sk_lda_gen_params *p, char *const *vocab, const float *phi, const float *theta,
                         int top_n, const char *dir, const char *name, sk_ex_error *err) {
  char file[1024], line[256];
  prob_word *pw;
  int32_t K, V, k, v;
  wfile w;
  if (p == NULL || phi == NULL || dir == NULL || name == NULL)
    return sk_ex_fail(err, "write_planted: parameters, phi, dir or name is NULL");
  if (sk_lda_gen_validate(p, err)) return 1;
  if (top_n < 1) return sk_ex_fail(err, "write_planted: top_n = %d must be >= 1", top_n);
  K = p->num_topics;
  V = p->num_words;
  pw = (prob_word *)malloc((size_t)V * sizeof *pw);
  if (pw == NULL) return sk_ex_fail(err, "write_planted: out of memory");

  snprintf(file, sizeof file, "topics.%s.planted.txt", name);
  if (wf_open(&w, dir, file, err)) {
    free(pw);
    return 1;
  }
  snprintf(line, sizeof line,
           "# planted topics of an sk-lda gen corpus: top %d words per topic, word<TAB>probability\n", top_n);
  wf_bytes(&w, line, strlen(line));
  snprintf(line, sizeof line, "# D=%d V=%d K=%d mean_doc_length=%.17g doc_length_cv=%.17g\n", (int)p->num_docs,
           (int)V, (int)K, p->mean_doc_length, p->doc_length_cv);
  wf_bytes(&w, line, strlen(line));
  snprintf(line, sizeof line, "# alpha=%.17g beta=%.17g zipf_exponent=%.17g topic_support=%.17g seed=%llu\n", p->alpha,
           p->beta, p->zipf_exponent, p->topic_support, (unsigned long long)p->seed);
  wf_bytes(&w, line, strlen(line));
  for (k = 0; k < K; ++k) {
    int32_t n = 0, i;
    const float *row = phi + (size_t)k * (size_t)V;
    for (v = 0; v < V; ++v)
      if (row[v] > 0.0f) {
        pw[n].p = row[v];
        pw[n].word = v;
        ++n;
      }
    qsort(pw, (size_t)n, sizeof *pw, by_prob_desc);
    snprintf(line, sizeof line, "topic %d\n", (int)k);
    wf_bytes(&w, line, strlen(line));
    for (i = 0; i < n && i < top_n; ++i) {
      int len;
      if (vocab != NULL && vocab[pw[i].word] != NULL) {
        wf_bytes(&w, "\t", 1);
        wf_bytes(&w, vocab[pw[i].word], strlen(vocab[pw[i].word]));
        len = snprintf(line, sizeof line, "\t%.6g\n", (double)pw[i].p);
      } else {
        len = snprintf(line, sizeof line, "\tw%06d\t%.6g\n", (int)pw[i].word, (double)pw[i].p);
      }
      wf_bytes(&w, line, (size_t)len);
    }
  }
  free(pw);
  if (wf_close(&w, err)) return 1;

  snprintf(file, sizeof file, "phi.%s.planted.f32", name);
  if (write_matrix(dir, file, phi, (uint32_t)K, (uint32_t)V, err)) return 1;
  if (theta != NULL) {
    snprintf(file, sizeof file, "theta.%s.planted.f32", name);
    if (write_matrix(dir, file, theta, (uint32_t)p->num_docs, (uint32_t)K, err)) return 1;
  }
  return 0;
}
