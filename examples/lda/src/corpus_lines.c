/* Line source, vocabulary reader and small helpers shared by the corpus readers (corpus_lines.h). */
#include "corpus_lines.h"
#include "sk_ex_memory.h"

#include "corpus_binary.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  SK_LDA_LINES_FIRST_CAP = 1 << 22, /* 4 MiB: reads and inflate calls stay few and large */
  SK_LDA_LINES_IN_CAP = 1 << 18     /* compressed bytes read at a time (gzip) */
};
/* A longer line is an error rather than an ever-growing buffer. */
#define SK_LDA_LINES_MAX_LINE ((size_t)1 << 30)

/* Reads up to n bytes of the file into dst; *got the count. 0, or 1 with err filled on a read error
   (naming the line being read). *got < n means the end of the file. */
static int file_read(sk_lda_detail_lines *lines, void *dst, size_t n, size_t *got, sk_ex_error *err) {
  errno = 0;
  *got = fread(dst, 1, n, lines->file);
  if (*got < n && ferror(lines->file))
    return sk_ex_fail(err, "%s:%lld: read error: %s", lines->name, (long long)lines->line_no + 1,
                       errno ? strerror(errno) : "unknown error");
  return 0;
}

int sk_lda_detail_lines_open(sk_lda_detail_lines *lines, const char *path, sk_ex_error *err) {
  size_t got = 0;
  memset(lines, 0, sizeof *lines);
  lines->name = path;
  errno = 0;
  lines->file = fopen(path, "rb");
  if (lines->file == NULL)
    return sk_ex_fail(err, "%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
  lines->buf = malloc(SK_LDA_LINES_FIRST_CAP);
  lines->in = malloc(SK_LDA_LINES_IN_CAP);
  if (lines->buf == NULL || lines->in == NULL) {
    sk_lda_detail_lines_close(lines);
    return sk_ex_fail(err, "%s: out of memory for the read buffer", path);
  }
  lines->cap = SK_LDA_LINES_FIRST_CAP;
  lines->in_cap = SK_LDA_LINES_IN_CAP;
  lines->data = lines->buf;
  /* The first bytes say which: gzip's magic 1f 8b, or plain bytes, which are the first data. */
  if (file_read(lines, lines->in, lines->in_cap, &got, err) != 0) {
    sk_lda_detail_lines_close(lines);
    return 1;
  }
  if (got >= 2 && lines->in[0] == 0x1f && lines->in[1] == 0x8b) {
    /* 15 + 16: gzip only, the largest window; each member's CRC-32 and length are checked. */
    if (inflateInit2(&lines->z, 15 + 16) != Z_OK) {
      sk_lda_detail_lines_close(lines);
      return sk_ex_fail(err, "%s: out of memory for the gzip decoder", path);
    }
    lines->gzip = 1;
    lines->z.next_in = lines->in;
    lines->z.avail_in = (uInt)got;
    lines->in_total = got;
    lines->in_eof = got < lines->in_cap;
  } else {
    memcpy(lines->buf, lines->in, got);
    lines->size = got;
    free(lines->in);
    lines->in = NULL;
  }
  return 0;
}

void sk_lda_detail_lines_memory(sk_lda_detail_lines *lines, const sk_lda_buffer *buffer) {
  memset(lines, 0, sizeof *lines);
  lines->name = buffer->name != NULL ? buffer->name : "(memory)";
  lines->data = buffer->data != NULL ? buffer->data : "";
  lines->size = buffer->data != NULL ? buffer->size : 0;
  lines->at_eof = 1;
}

void sk_lda_detail_lines_close(sk_lda_detail_lines *lines) {
  if (lines->gzip) inflateEnd(&lines->z);
  if (lines->file != NULL) fclose(lines->file);
  free(lines->in);
  free(lines->buf);
  memset(lines, 0, sizeof *lines);
}

/* gzip: makes at least `need` compressed bytes available at z.next_in, unless the file ends first. */
static int gz_input(sk_lda_detail_lines *lines, size_t need, sk_ex_error *err) {
  z_stream *z = &lines->z;
  while (z->avail_in < need && !lines->in_eof) {
    size_t got;
    if (z->avail_in > 0 && z->next_in != lines->in) memmove(lines->in, z->next_in, z->avail_in);
    z->next_in = lines->in;
    if (file_read(lines, lines->in + z->avail_in, lines->in_cap - z->avail_in, &got, err) != 0) return 1;
    if (got < lines->in_cap - z->avail_in) lines->in_eof = 1;
    z->avail_in += (uInt)got;
    lines->in_total += got;
  }
  return 0;
}

/* gzip: inflates into out[0 .. room), member after member; *got the bytes written, 0 only at the end of
   the data. Bytes after a member that do not start another one are an error. */
static int gz_inflate(sk_lda_detail_lines *lines, unsigned char *out, size_t room, size_t *got, sk_ex_error *err) {
  z_stream *z = &lines->z;
  const uInt want = room > UINT_MAX ? UINT_MAX : (uInt)room;
  const char *what = NULL;
  z->next_out = out;
  z->avail_out = want;
  while (z->avail_out > 0) {
    int r;
    if (lines->member_ended) {
      if (gz_input(lines, 2, err) != 0) return 1;
      if (z->avail_in == 0) break; /* the end of the file right after a member: the end of the data */
      if (z->avail_in < 2 || z->next_in[0] != 0x1f || z->next_in[1] != 0x8b)
        return sk_ex_fail(err,
                           "%s: trailing garbage after the gzip data: the bytes from offset %llu on are not a "
                           "gzip member (the file is damaged, or something was appended to it)",
                           lines->name, (unsigned long long)(lines->in_total - z->avail_in));
      /* Another member (concatenated gzip files are one gzip file, as gzip -d reads them). */
      if (inflateReset(z) != Z_OK) {
        what = "cannot reset the decoder";
        break;
      }
      lines->member_ended = 0;
    }
    if (z->avail_in == 0) {
      if (gz_input(lines, 1, err) != 0) return 1;
      if (z->avail_in == 0) {
        what = "unexpected end of file";
        break;
      }
    }
    r = inflate(z, Z_NO_FLUSH);
    if (r == Z_STREAM_END) {
      lines->member_ended = 1;
    } else if (r == Z_MEM_ERROR) {
      return sk_ex_fail(err, "%s:%lld: out of memory in the gzip decoder", lines->name,
                         (long long)lines->line_no + 1);
    } else if (r != Z_OK) {
      what = z->msg != NULL ? z->msg : r == Z_NEED_DICT ? "needs a preset dictionary" : "corrupt data";
      break;
    }
  }
  if (what != NULL)
    return sk_ex_fail(err, "%s:%lld: truncated or corrupt gzip data: %s", lines->name, (long long)lines->line_no + 1,
                       what);
  *got = (size_t)(want - z->avail_out);
  return 0;
}

/* Reads more bytes behind the unread ones (files only). 0 on success (at_eof set when there were none). */
static int lines_refill(sk_lda_detail_lines *lines, sk_ex_error *err) {
  const size_t avail = lines->size - lines->pos;
  size_t got = 0;
  if (lines->pos > 0) {
    memmove(lines->buf, lines->buf + lines->pos, avail);
    lines->pos = 0;
    lines->size = avail;
  }
  if (lines->size == lines->cap) {
    char *grown;
    if (lines->cap >= SK_LDA_LINES_MAX_LINE)
      return sk_ex_fail(err, "%s:%lld: line longer than %zu bytes", lines->name, (long long)lines->line_no + 1,
                         SK_LDA_LINES_MAX_LINE);
    grown = realloc(lines->buf, lines->cap * 2);
    if (grown == NULL)
      return sk_ex_fail(err, "%s:%lld: out of memory for a line", lines->name, (long long)lines->line_no + 1);
    lines->buf = grown;
    lines->cap *= 2;
  }
  lines->data = lines->buf;
  if (lines->gzip ? gz_inflate(lines, (unsigned char *)lines->buf + lines->size, lines->cap - lines->size, &got, err)
                  : file_read(lines, lines->buf + lines->size, lines->cap - lines->size, &got, err))
    return 1;
  if (got == 0) lines->at_eof = 1;
  lines->size += got;
  return 0;
}

int sk_lda_detail_lines_next(sk_lda_detail_lines *lines, const char **line, size_t *len, sk_ex_error *err) {
  size_t scanned = 0; /* bytes of the partial line already searched for '\n' */
  for (;;) {
    const char *start = lines->data + lines->pos;
    const size_t avail = lines->size - lines->pos;
    const char *nl = avail > scanned ? memchr(start + scanned, '\n', avail - scanned) : NULL;
    size_t n;
    if (nl != NULL) {
      n = (size_t)(nl - start);
      lines->pos += n + 1;
    } else if (lines->at_eof) {
      if (avail == 0) return 0;
      n = avail;
      lines->pos = lines->size;
    } else {
      scanned = avail;
      if (lines_refill(lines, err) != 0) return -1;
      continue;
    }
    if (n > 0 && start[n - 1] == '\r') --n;
    ++lines->line_no;
    *line = start;
    *len = n;
    return 1;
  }
}

int sk_lda_detail_blank(const char *p, const char *end) {
  for (; p < end; ++p)
    if (!sk_lda_detail_is_blank(*p)) return 0;
  return 1;
}

int sk_lda_detail_lines_rest_blank(sk_lda_detail_lines *lines, sk_ex_error *err) {
  const char *line;
  size_t len;
  int r;
  while ((r = sk_lda_detail_lines_next(lines, &line, &len, err)) == 1)
    if (!sk_lda_detail_blank(line, line + len)) return 0;
  return r == 0 ? 1 : -1;
}

const char *sk_lda_detail_quote(const char *p, size_t n, char *out, size_t cap) {
  size_t i, o = 0;
  const size_t shown = n > 40 ? 40 : n;
  if (cap < 48) {
    if (cap > 0) out[0] = '\0';
    return out;
  }
  out[o++] = '\'';
  for (i = 0; i < shown; ++i) {
    const unsigned char c = (unsigned char)p[i];
    out[o++] = (c >= 32 && c < 127) ? (char)c : '?';
  }
  if (shown < n) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o++] = '\'';
  out[o] = '\0';
  return out;
}

void sk_lda_detail_free_vocab(char **vocab, int32_t count) {
  if (vocab == NULL) return;
  for (int32_t i = 0; i < count; ++i) free(vocab[i]);
  free(vocab);
}

int sk_lda_detail_reserve(void **array, int64_t *cap, int64_t need, size_t elem) {
  return sk_lda_detail_reserve_upto(array, cap, need, INT64_MAX, elem);
}

int sk_lda_detail_reserve_upto(void **array, int64_t *cap, int64_t need, int64_t most, size_t elem) {
  int64_t c = *cap;
  void *grown;
  if (need <= c) return 0;
  if (c < 16) c = 16;
  while (c < need) c = c > INT64_MAX / 2 ? need : c * 2;
  if (c > most) c = most > need ? most : need;
  if ((uint64_t)c > SIZE_MAX / elem) return 1;
  grown = realloc(*array, (size_t)c * elem);
  if (grown == NULL) return 1;
  *array = grown;
  *cap = c;
  return 0;
}

sk_lda_read_limits sk_lda_detail_limits(const sk_lda_read_limits *limits) {
  sk_lda_read_limits l = {SK_LDA_READ_MAX_DOCS, SK_LDA_READ_MAX_TOKENS, 0, 0};
  if (limits != NULL) {
    if (limits->max_docs >= 0 && limits->max_docs < l.max_docs) l.max_docs = limits->max_docs;
    if (limits->max_tokens >= 0 && limits->max_tokens < l.max_tokens) l.max_tokens = limits->max_tokens;
    l.max_bytes = limits->max_bytes;
    l.max_bytes_from_env = limits->max_bytes_from_env;
  }
  return l;
}

int sk_lda_detail_read_vocab(sk_lda_detail_lines *lines, int64_t expected, const char *what_expected,
                             int64_t max_words, char ***vocab, int32_t *count, sk_ex_error *err) {
  char **words = NULL;
  int64_t n = 0, cap = 0;
  const char *line;
  size_t len;
  int r = 0;
  char q[64];
  *vocab = NULL;
  *count = 0;
  while ((expected < 0 || n < expected) && (r = sk_lda_detail_lines_next(lines, &line, &len, err)) == 1) {
    char *word;
    if (sk_lda_detail_blank(line, line + len)) {
      const int64_t blank_line = lines->line_no;
      const int rest = sk_lda_detail_lines_rest_blank(lines, err);
      if (rest < 0) goto fail;
      if (rest == 1) break;
      sk_ex_fail(err, "%s:%lld: empty line inside the vocabulary (one word per line)", lines->name,
                  (long long)blank_line);
      goto fail;
    }
    if (n >= max_words) {
      sk_ex_fail(err, "%s:%lld: the vocabulary has more than %lld words", lines->name, (long long)lines->line_no,
                  (long long)max_words);
      goto fail;
    }
    if (memchr(line, '\0', len) != NULL) {
      sk_ex_fail(err, "%s:%lld: NUL byte in word %s", lines->name, (long long)lines->line_no,
                  sk_lda_detail_quote(line, len, q, sizeof q));
      goto fail;
    }
    if (sk_lda_detail_reserve((void **)&words, &cap, n + 1, sizeof *words) != 0 ||
        (word = malloc(len + 1)) == NULL) {
      sk_ex_fail(err, "%s:%lld: out of memory", lines->name, (long long)lines->line_no);
      goto fail;
    }
    memcpy(word, line, len);
    word[len] = '\0';
    words[n++] = word;
  }
  if (r < 0) goto fail;
  if (expected >= 0 && n == expected) {
    /* All W words are read; what follows may only be blank lines. Count the rest's non-blank lines
       to the end so that the message gives the file's whole number of words. */
    int64_t extra = 0, first_extra = 0;
    while ((r = sk_lda_detail_lines_next(lines, &line, &len, err)) == 1)
      if (!sk_lda_detail_blank(line, line + len) && extra++ == 0) first_extra = lines->line_no;
    if (r < 0) goto fail;
    if (extra > 0) {
      sk_ex_fail(err,
                  "%s:%lld: the vocabulary has %lld words, more than the %lld words of %s (if the lines after line "
                  "%lld are not words of this corpus, keep the first %lld: head -n %lld)",
                  lines->name, (long long)first_extra, (long long)(n + extra), (long long)expected, what_expected,
                  (long long)expected, (long long)expected, (long long)expected);
      goto fail;
    }
  }
  if (expected >= 0 && n < expected) {
    sk_ex_fail(err, "%s:%lld: the vocabulary has only %lld lines, fewer than the %lld words of %s", lines->name,
                sk_lda_detail_last_line(lines), (long long)n, (long long)expected, what_expected);
    goto fail;
  }
  if (n == 0) {
    sk_ex_fail(err, "%s:%lld: the vocabulary is empty", lines->name, sk_lda_detail_last_line(lines));
    goto fail;
  }
  {
    /* A repeated word would make two ids print the same and leave the word-to-id map of infer holding
       one of them. Word i is on line i + 1: a blank line before a word is an error above. */
    int64_t first = 0, repeat = 0;
    const int found = sk_lda_detail_find_repeated_word(words, n, &first, &repeat);
    if (found < 0) {
      sk_ex_fail(err, "%s: out of memory checking the vocabulary for repeated words", lines->name);
      goto fail;
    }
    if (found > 0) {
      sk_ex_fail(err, "%s:%lld: word %s is already on line %lld (each word may appear once)", lines->name,
                  (long long)repeat + 1, sk_lda_detail_quote(words[repeat], strlen(words[repeat]), q, sizeof q),
                  (long long)first + 1);
      goto fail;
    }
  }
  *vocab = words;
  *count = (int32_t)n;
  return 0;
fail:
  sk_lda_detail_free_vocab(words, (int32_t)n);
  return 1;
}

int sk_lda_detail_parse_buffers(const char *fn, sk_lda_detail_parser parse, const sk_lda_buffer *input,
                                const sk_lda_buffer *vocab, const sk_lda_read_limits *limits, sk_lda_corpus *out,
                                sk_ex_error *err) {
  sk_lda_detail_lines d, v;
  if (out == NULL) return sk_ex_fail(err, "%s: out is NULL", fn);
  memset(out, 0, sizeof *out);
  if (input == NULL) return sk_ex_fail(err, "%s: the input buffer is NULL", fn);
  sk_lda_detail_lines_memory(&d, input);
  if (vocab != NULL) sk_lda_detail_lines_memory(&v, vocab);
  return parse(&d, vocab != NULL ? &v : NULL, limits, out, err);
}

int sk_lda_detail_read_files(const char *fn, sk_lda_detail_parser parse, const char *path, const char *vocab_path,
                             sk_lda_corpus *out, sk_ex_error *err) {
  sk_lda_detail_lines d, v;
  int r;
  if (out == NULL) return sk_ex_fail(err, "%s: out is NULL", fn);
  memset(out, 0, sizeof *out);
  if (path == NULL) return sk_ex_fail(err, "%s: the input path is NULL", fn);
  if (sk_lda_is_binary_corpus(path)) return sk_lda_read_binary(path, vocab_path, out, err);
  if (sk_lda_detail_lines_open(&d, path, err) != 0) return 1;
  if (vocab_path != NULL && sk_lda_detail_lines_open(&v, vocab_path, err) != 0) {
    sk_lda_detail_lines_close(&d);
    return 1;
  }
  {
    sk_lda_read_limits limits = {SK_LDA_READ_MAX_DOCS, SK_LDA_READ_MAX_TOKENS, 0, 0};
    limits.max_bytes = sk_ex_host_memory_available(&limits.max_bytes_from_env);
    r = parse(&d, vocab_path != NULL ? &v : NULL, &limits, out, err);
  }
  sk_lda_detail_lines_close(&d);
  if (vocab_path != NULL) sk_lda_detail_lines_close(&v);
  return r;
}

int sk_lda_detail_check_bytes(const char *name, int64_t line, const sk_lda_read_limits *limits, uint64_t need,
                              const char *what, sk_ex_error *err) {
  char b[32], avail[96], at[32] = "";
  if (limits->max_bytes == 0 || need <= limits->max_bytes) return 0;
  if (line > 0) snprintf(at, sizeof at, ":%lld", (long long)line);
  return sk_ex_fail(err, "%s%s: %s need %s of host memory; %s", name, at, what, sk_ex_format_bytes(b, sizeof b, need),
                     sk_ex_describe_available(avail, sizeof avail, limits->max_bytes, limits->max_bytes_from_env));
}

int sk_lda_detail_parse_number(const sk_lda_detail_lines *lines, const char *s, const char *e, const char *what, int64_t lo,
                        int64_t hi, const char *where, int64_t *value, sk_ex_error *err) {
  char q[64];
  const int r = sk_lda_detail_parse_u63(s, e, value);
  if (r == 1) {
    if (s < e && *s == '-' && sk_lda_detail_parse_u63(s + 1, e, value) != 1)
      return sk_ex_fail(err, "%s:%lld: %s %s is negative (must be %lld..%lld%s)", lines->name,
                         (long long)lines->line_no, what, sk_lda_detail_quote(s, (size_t)(e - s), q, sizeof q),
                         (long long)lo, (long long)hi, where);
    return sk_ex_fail(err, "%s:%lld: %s %s is not a number", lines->name, (long long)lines->line_no, what,
                       sk_lda_detail_quote(s, (size_t)(e - s), q, sizeof q));
  }
  if (r == 2 || *value < lo || *value > hi)
    return sk_ex_fail(err, "%s:%lld: %s %s is out of range %lld..%lld%s", lines->name, (long long)lines->line_no,
                       what, sk_lda_detail_quote(s, (size_t)(e - s), q, sizeof q), (long long)lo, (long long)hi,
                       where);
  return 0;
}
