/* The binary corpus writer (corpus_binary.h): the checks over the OpenMP threads, the CRC of the arrays
   over the threads (binary_io.h), then the arrays written as they lie in memory. */
#include "corpus_binary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary_io.h"
#include "output.h"

static const char sk_lda_corpus_magic[8] = {'S', 'K', 'L', 'D', 'A', 'C', 'R', 'P'};

/* The first problem that would make the reader refuse the corpus, or 0. */
static int check_corpus(const sk_lda_corpus *c, const char *path, sk_ex_error *err) {
  if (c->num_docs < 1 || c->num_words < 1 || c->num_tokens < 1 || c->doc_offsets == NULL || c->tokens == NULL)
    return sk_ex_fail(err, "%s: cannot write an empty or invalid corpus (D = %d, V = %d, T = %lld)", path,
                       (int)c->num_docs, (int)c->num_words, (long long)c->num_tokens);
  const int64_t D = c->num_docs, T = c->num_tokens;
  const int64_t *o = c->doc_offsets;
  if (o[0] != 0 || o[D] != T)
    return sk_ex_fail(err, "%s: the document offsets do not run from 0 to T = %lld", path, (long long)T);
  int64_t first = D;
#ifdef _OPENMP
#pragma omp parallel for reduction(min : first) schedule(static)
#endif
  for (int64_t d = 0; d < D; ++d)
    if (o[d + 1] < o[d] && d < first) first = d;
  if (first < D) return sk_ex_fail(err, "%s: document %lld has negative length", path, (long long)first);
  const uint32_t V = (uint32_t)c->num_words;
  int64_t bad = T;
#ifdef _OPENMP
#pragma omp parallel for reduction(min : bad) schedule(static)
#endif
  for (int64_t t = 0; t < T; ++t)
    if ((uint32_t)c->tokens[t] >= V && t < bad) bad = t;
  if (bad < T)
    return sk_ex_fail(err, "%s: token %lld has word id %d, out of range 0..%d", path, (long long)bad,
                       (int)c->tokens[bad], (int)V - 1);
  return 0;
}

/* Little-endian bytes of v. */
static void put_u32(unsigned char *b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(v >> (8 * i));
}

/* Writes n values of `size` bytes (4 or 8) from a as little-endian, continuing *crc; 0 or 1 (ferror). */
static int write_array(FILE *f, const void *a, uint64_t n, unsigned size, uint32_t *crc) {
  if (sk_lda_bin_host_le()) {
    *crc = sk_lda_bin_crc32(*crc, a, n * size);
    const unsigned char *p = (const unsigned char *)a;
    uint64_t left = n * size;
    while (left > 0) { /* in pieces of 1 GiB: some libcs mishandle larger single writes */
      const size_t m = left < ((uint64_t)1 << 30) ? (size_t)left : (size_t)1 << 30;
      if (fwrite(p, 1, m, f) != m) return 1;
      p += m;
      left -= m;
    }
    return 0;
  }
  unsigned char buf[SK_LDA_BIN_CHUNK];
  for (uint64_t i = 0; i < n;) {
    size_t k = 0;
    for (; i < n && k + size <= sizeof buf; ++i, k += size) {
      if (size == 4)
        put_u32(buf + k, (uint32_t)((const int32_t *)a)[i]);
      else
        put_u64(buf + k, (uint64_t)((const int64_t *)a)[i]);
    }
    *crc = sk_lda_bin_crc32(*crc, buf, k);
    if (fwrite(buf, 1, k, f) != k) return 1;
  }
  return 0;
}

int sk_lda_write_binary(const sk_lda_corpus *c, const char *path, sk_ex_error *err) {
  if (c == NULL || path == NULL) return sk_ex_fail(err, "write binary corpus: corpus or path is NULL");
  if (check_corpus(c, path, err) != 0) return 1;
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return 1;
  unsigned char h[SK_LDA_BINARY_CORPUS_HEADER_BYTES];
  memcpy(h, sk_lda_corpus_magic, 8);
  put_u32(h + 8, SK_LDA_BINARY_CORPUS_VERSION);
  put_u32(h + 12, 0);
  put_u64(h + 16, (uint64_t)c->num_docs);
  put_u64(h + 24, (uint64_t)c->num_words);
  put_u64(h + 32, (uint64_t)c->num_tokens);
  uint32_t crc = sk_lda_bin_crc32(0, h, sizeof h);
  unsigned char tail[4];
  int bad = fwrite(h, 1, sizeof h, f) != sizeof h;
  bad = bad || write_array(f, c->doc_offsets, (uint64_t)c->num_docs + 1u, 8, &crc);
  bad = bad || write_array(f, c->tokens, (uint64_t)c->num_tokens, 4, &crc);
  put_u32(tail, crc);
  bad = bad || fwrite(tail, 1, 4, f) != 4;
  if (bad) {
    const int e = errno;
    sk_ex_temp_abort(f, path);
    return sk_ex_fail(err, "%s: write failed: %s", path, strerror(e));
  }
  return sk_ex_temp_commit(f, path, err);
}
