/* The binary corpus reader (corpus_binary.h): header checks, pread() in blocks with their CRCs over the
   OpenMP threads, then the offsets and word ids checked over the threads. */
#include "corpus_binary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

#include "corpus_lines.h"
#include "sk_ex_memory.h"

static const char sk_lda_corpus_magic[8] = {'S', 'K', 'L', 'D', 'A', 'C', 'R', 'P'};

/* Bytes read and checksummed per task. */
#define SK_LDA_BINARY_BLOCK ((uint64_t)8 << 20)

int sk_lda_is_binary_corpus(const char *path) {
  unsigned char b[8];
  if (path == NULL) return 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  const int is = fread(b, 1, 8, f) == 8 && memcmp(b, sk_lda_corpus_magic, 8) == 0;
  fclose(f);
  return is;
}

static uint32_t sk_lda_le32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int64_t sk_lda_le64(const unsigned char *b) {
  return (int64_t)((uint64_t)sk_lda_le32(b) | (uint64_t)sk_lda_le32(b + 4) << 32);
}

static int sk_lda_host_le(void) {
  const uint32_t one = 1;
  unsigned char b[4];
  memcpy(b, &one, 4);
  return b[0] == 1;
}

/* The file's bytes: a descriptor (pread) or memory. */
typedef struct bin_source {
  const char *name;
  int fd;                    /* -1: memory */
  const unsigned char *data; /* memory: the whole file */
  uint64_t size;
} bin_source;

/* Copies the n bytes at offset `at` into dst: 0, an errno value, or -1 for an early end of file. */
static int source_read(const bin_source *s, void *dst, uint64_t at, uint64_t n) {
  unsigned char *d = (unsigned char *)dst;
  if (s->fd < 0) {
    if (n > 0) memcpy(d, s->data + at, (size_t)n);
    return 0;
  }
  while (n > 0) {
    const size_t want = n < ((uint64_t)1 << 30) ? (size_t)n : (size_t)1 << 30;
    const ssize_t got = pread(s->fd, d, want, (off_t)at);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno != 0 ? errno : EIO;
    if (got == 0) return -1;
    d += got;
    at += (uint64_t)got;
    n -= (uint64_t)got;
  }
  return 0;
}

static const char *source_error(int r) {
  return r < 0 ? "unexpected end of file (changed while reading?)" : strerror(r);
}

/* Length of block b of a region of n bytes. */
static uint64_t block_len(uint64_t n, uint64_t b) {
  const uint64_t at = b * SK_LDA_BINARY_BLOCK;
  return n - at < SK_LDA_BINARY_BLOCK ? n - at : SK_LDA_BINARY_BLOCK;
}

/* Reads the n bytes at `at` into dst in blocks over the threads and continues *crc over them (the same
   value as one crc32() over the bytes in order, whatever the thread count). */
static int read_region(const bin_source *s, void *dst, uint64_t at, uint64_t n, uLong *crc, sk_ex_error *err) {
  const uint64_t nblocks = (n + SK_LDA_BINARY_BLOCK - 1) / SK_LDA_BINARY_BLOCK;
  if (nblocks == 0) return 0;
  uLong *part = (uLong *)malloc((size_t)nblocks * sizeof *part);
  int *status = (int *)calloc((size_t)nblocks, sizeof *status);
  if (part == NULL || status == NULL) {
    free(part);
    free(status);
    return sk_ex_fail(err, "%s: out of memory", s->name);
  }
  unsigned char *d = (unsigned char *)dst;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int64_t b = 0; b < (int64_t)nblocks; ++b) {
    const uint64_t off = (uint64_t)b * SK_LDA_BINARY_BLOCK, len = block_len(n, (uint64_t)b);
    status[b] = source_read(s, d + off, at + off, len);
    if (status[b] == 0) part[b] = crc32_z(0L, d + off, (z_size_t)len);
  }
  int rc = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    if (status[b] != 0) {
      rc = sk_ex_fail(err, "%s: read error: %s", s->name, source_error(status[b]));
      break;
    }
    *crc = crc32_combine(*crc, part[b], (z_off_t)block_len(n, b));
  }
  free(part);
  free(status);
  return rc;
}

/* Little-endian file values to host order, in place (nothing to do on little-endian hosts). */
static void fix_order(int64_t *offsets, int64_t n_offsets, int32_t *tokens, int64_t n_tokens) {
  if (sk_lda_host_le()) return;
  for (int64_t i = 0; i < n_offsets; ++i) offsets[i] = sk_lda_le64((const unsigned char *)&offsets[i]);
  for (int64_t i = 0; i < n_tokens; ++i) tokens[i] = (int32_t)sk_lda_le32((const unsigned char *)&tokens[i]);
}

/* The checks after the CRC: offsets from 0 to T never decreasing, word ids in [0, V). */
static int check_arrays(const char *name, const sk_lda_corpus *c, sk_ex_error *err) {
  const int64_t D = c->num_docs, T = c->num_tokens;
  const int64_t *o = c->doc_offsets;
  const int32_t *w = c->tokens;
  const uint32_t V = (uint32_t)c->num_words;
  if (o[0] != 0) return sk_ex_fail(err, "%s: document offset 0 is %lld, not 0", name, (long long)o[0]);
  int64_t first = D;
#ifdef _OPENMP
#pragma omp parallel for reduction(min : first) schedule(static)
#endif
  for (int64_t d = 0; d < D; ++d)
    if (o[d + 1] < o[d] && d < first) first = d;
  if (first < D)
    return sk_ex_fail(err, "%s: document offsets decrease at document %lld (offset %lld, then %lld)", name,
                       (long long)first, (long long)o[first], (long long)o[first + 1]);
  if (o[D] != T)
    return sk_ex_fail(err, "%s: the last document offset is %lld, not T = %lld", name, (long long)o[D],
                       (long long)T);
  int bad = 0;
#ifdef _OPENMP
#pragma omp parallel for reduction(| : bad) schedule(static)
#endif
  for (int64_t t = 0; t < T; ++t) bad |= (uint32_t)w[t] >= V;
  if (!bad) return 0;
  int64_t t = 0;
  while ((uint32_t)w[t] < V) ++t;
  int64_t lo = 0, hi = D - 1; /* the last document that starts at or before t holds it */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (o[mid] <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return sk_ex_fail(err, "%s: token %lld (document %lld) has word id %d, outside 0..%lld", name, (long long)t,
                     (long long)lo, (int)w[t], (long long)V - 1);
}

/* Reads and checks the whole corpus from s; the vocabulary from `vocab` when not NULL. */
static int read_corpus(const bin_source *s, sk_lda_detail_lines *vocab, const sk_lda_read_limits *lim,
                       sk_lda_corpus *out, sk_ex_error *err) {
  const sk_lda_read_limits limits = sk_lda_detail_limits(lim);
  const char *name = s->name;
  unsigned char h[SK_LDA_BINARY_CORPUS_HEADER_BYTES];
  const uint64_t hb = SK_LDA_BINARY_CORPUS_HEADER_BYTES;
  int r;
  if (s->size < 8 || source_read(s, h, 0, 8) != 0 || memcmp(h, sk_lda_corpus_magic, 8) != 0)
    return sk_ex_fail(err, "%s: not an sk-lda binary corpus (bad magic; expected \"SKLDACRP\")", name);
  if (s->size < hb + 4)
    return sk_ex_fail(err, "%s: file is truncated (%llu bytes; a binary corpus has at least %llu)", name,
                       (unsigned long long)s->size, (unsigned long long)(hb + 4));
  if ((r = source_read(s, h, 0, hb)) != 0) return sk_ex_fail(err, "%s: read error: %s", name, source_error(r));
  const uint32_t version = sk_lda_le32(h + 8), reserved = sk_lda_le32(h + 12);
  const int64_t D = sk_lda_le64(h + 16), V = sk_lda_le64(h + 24), T = sk_lda_le64(h + 32);
  if (version != SK_LDA_BINARY_CORPUS_VERSION)
    return sk_ex_fail(err, "%s: unsupported format version %u (this sk-lda reads version %u)", name,
                       (unsigned)version, (unsigned)SK_LDA_BINARY_CORPUS_VERSION);
  if (reserved != 0) return sk_ex_fail(err, "%s: header: reserved field is %u, not 0", name, (unsigned)reserved);
  if (D < 1 || D > limits.max_docs)
    return sk_ex_fail(err, "%s: header: D = %lld documents is out of range 1..%lld", name, (long long)D,
                       (long long)limits.max_docs);
  if (V < 1 || V > INT32_MAX)
    return sk_ex_fail(err, "%s: header: V = %lld words is out of range 1..%d", name, (long long)V, INT32_MAX);
  if (T < 1 || T > limits.max_tokens)
    return sk_ex_fail(err, "%s: header: T = %lld tokens is out of range 1..%lld", name, (long long)T,
                       (long long)limits.max_tokens);
  const uint64_t offsets_bytes = 8u * ((uint64_t)D + 1u), tokens_bytes = 4u * (uint64_t)T;
  const uint64_t want = hb + offsets_bytes + tokens_bytes + 4u;
  if (s->size < want)
    return sk_ex_fail(err, "%s: file is truncated (%llu bytes; its header's D = %lld and T = %lld need %llu)", name,
                       (unsigned long long)s->size, (long long)D, (long long)T, (unsigned long long)want);
  {
    char what[96];
    snprintf(what, sizeof what, "header: D = %lld documents and T = %lld tokens", (long long)D, (long long)T);
    if (sk_lda_detail_check_bytes(name, 0, &limits, offsets_bytes + tokens_bytes, what, err) != 0) return 1;
  }
  if (s->size > want)
    return sk_ex_fail(err,
                       "%s: file has %llu bytes, more than the %llu that its header's D = %lld and T = %lld give "
                       "(trailing bytes)",
                       name, (unsigned long long)s->size, (unsigned long long)want, (long long)D, (long long)T);
  sk_lda_corpus c;
  memset(&c, 0, sizeof c);
  c.num_docs = (int32_t)D;
  c.num_words = (int32_t)V;
  c.num_tokens = T;
  c.doc_offsets = (int64_t *)malloc((size_t)offsets_bytes);
  c.tokens = (int32_t *)malloc((size_t)tokens_bytes);
  if (c.doc_offsets == NULL || c.tokens == NULL) {
    sk_lda_corpus_free(&c);
    return sk_ex_fail(err, "%s: out of memory for %lld documents and %lld tokens (%.3g GB)", name, (long long)D,
                       (long long)T, (double)(offsets_bytes + tokens_bytes) / 1e9);
  }
  uLong crc = crc32(0L, h, (uInt)hb);
  unsigned char tail[4];
  if (read_region(s, c.doc_offsets, hb, offsets_bytes, &crc, err) != 0 ||
      read_region(s, c.tokens, hb + offsets_bytes, tokens_bytes, &crc, err) != 0) {
    sk_lda_corpus_free(&c);
    return 1;
  }
  if ((r = source_read(s, tail, want - 4u, 4)) != 0) {
    sk_lda_corpus_free(&c);
    return sk_ex_fail(err, "%s: read error: %s", name, source_error(r));
  }
  if (sk_lda_le32(tail) != (uint32_t)crc) {
    sk_lda_corpus_free(&c);
    return sk_ex_fail(err, "%s: checksum mismatch (file is corrupt)", name);
  }
  fix_order(c.doc_offsets, D + 1, c.tokens, T);
  if (check_arrays(name, &c, err) != 0) {
    sk_lda_corpus_free(&c);
    return 1;
  }
  if (vocab != NULL) {
    char what[512];
    int32_t count = 0;
    snprintf(what, sizeof what, "V in the header of %s", name);
    if (sk_lda_detail_read_vocab(vocab, V, what, V, &c.vocab, &count, err) != 0) {
      sk_lda_corpus_free(&c);
      return 1;
    }
  }
  *out = c;
  return 0;
}

int sk_lda_parse_binary(const sk_lda_buffer *data, const sk_lda_buffer *vocab, const sk_lda_read_limits *limits,
                        sk_lda_corpus *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "sk_lda_parse_binary: out is NULL");
  memset(out, 0, sizeof *out);
  if (data == NULL || (data->data == NULL && data->size > 0))
    return sk_ex_fail(err, "sk_lda_parse_binary: the input buffer is NULL");
  const bin_source s = {data->name != NULL ? data->name : "(memory)", -1, (const unsigned char *)data->data,
                        (uint64_t)data->size};
  sk_lda_detail_lines v;
  if (vocab != NULL) sk_lda_detail_lines_memory(&v, vocab);
  return read_corpus(&s, vocab != NULL ? &v : NULL, limits, out, err);
}

int sk_lda_read_binary(const char *path, const char *vocab_path, sk_lda_corpus *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "sk_lda_read_binary: out is NULL");
  memset(out, 0, sizeof *out);
  if (path == NULL) return sk_ex_fail(err, "sk_lda_read_binary: the input path is NULL");
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return sk_ex_fail(err, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return sk_ex_fail(err, "%s: cannot determine the file size: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return sk_ex_fail(err, "%s: not a regular file (a binary corpus is read by offsets)", path);
  }
  const bin_source s = {path, fd, NULL, (uint64_t)st.st_size};
  sk_lda_detail_lines v;
  if (vocab_path != NULL && sk_lda_detail_lines_open(&v, vocab_path, err) != 0) {
    close(fd);
    return 1;
  }
  sk_lda_read_limits limits = {SK_LDA_READ_MAX_DOCS, SK_LDA_READ_MAX_TOKENS, 0, 0};
  limits.max_bytes = sk_ex_host_memory_available(&limits.max_bytes_from_env);
  const int rc = read_corpus(&s, vocab_path != NULL ? &v : NULL, &limits, out, err);
  if (vocab_path != NULL) sk_lda_detail_lines_close(&v);
  close(fd);
  return rc;
}
