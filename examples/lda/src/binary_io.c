/* Little-endian binary files with a trailing CRC-32 (binary_io.h). */
#include "binary_io.h"

#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <zlib.h>

/* --- little-endian encoding with a running CRC ----------------------------------------------------- */


static void sk_lda_bin_enc_flush(sk_lda_bin_enc *e) {
  if (e->n == 0) return;
  e->crc = crc32(e->crc, e->buf, (uInt)e->n);
  (void)fwrite(e->buf, 1, e->n, e->f); /* errors surface through ferror() at the commit */
  e->n = 0;
}

void sk_lda_bin_enc_bytes(sk_lda_bin_enc *e, const void *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  while (n > 0) {
    if (e->n == SK_LDA_BIN_CHUNK) sk_lda_bin_enc_flush(e);
    size_t m = SK_LDA_BIN_CHUNK - e->n;
    if (m > n) m = n;
    memcpy(e->buf + e->n, s, m);
    e->n += m;
    s += m;
    n -= m;
  }
}

void sk_lda_bin_enc_u32(sk_lda_bin_enc *e, uint32_t v) {
  unsigned char b[4];
  for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(v >> (8 * i));
  sk_lda_bin_enc_bytes(e, b, 4);
}

void sk_lda_bin_enc_u64(sk_lda_bin_enc *e, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(v >> (8 * i));
  sk_lda_bin_enc_bytes(e, b, 8);
}

void sk_lda_bin_enc_f64(sk_lda_bin_enc *e, double x) {
  uint64_t v;
  memcpy(&v, &x, sizeof v);
  sk_lda_bin_enc_u64(e, v);
}

/* Writes the CRC of everything so far (itself not included). */
static void sk_lda_bin_enc_finish(sk_lda_bin_enc *e) {
  sk_lda_bin_enc_flush(e);
  unsigned char b[4];
  const uint32_t c = (uint32_t)e->crc;
  for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(c >> (8 * i));
  (void)fwrite(b, 1, 4, e->f);
}

static sk_lda_bin_enc *sk_lda_bin_enc_new(FILE *f) {
  sk_lda_bin_enc *e = (sk_lda_bin_enc *)malloc(sizeof *e);
  if (e != NULL) {
    e->f = f;
    e->crc = crc32(0L, Z_NULL, 0);
    e->n = 0;
  }
  return e;
}

/* --- checksums of large arrays ------------------------------------------------------------------------ */

int sk_lda_bin_host_le(void) {
  const uint32_t one = 1;
  unsigned char b[4];
  memcpy(b, &one, 4);
  return b[0] == 1;
}

/* Length of block b of n bytes cut in blocks of SK_LDA_BIN_CRC_BLOCK. */
static uint64_t sk_lda_bin_block_len(uint64_t n, uint64_t b) {
  const uint64_t at = b * SK_LDA_BIN_CRC_BLOCK;
  return n - at < SK_LDA_BIN_CRC_BLOCK ? n - at : SK_LDA_BIN_CRC_BLOCK;
}

uint32_t sk_lda_bin_crc32(uint32_t crc, const void *p, uint64_t n) {
  const unsigned char *s = (const unsigned char *)p;
  const uint64_t nblocks = (n + SK_LDA_BIN_CRC_BLOCK - 1) / SK_LDA_BIN_CRC_BLOCK;
  if (nblocks <= 1) return n == 0 ? crc : (uint32_t)crc32_z(crc, s, (z_size_t)n);
  uLong *part = (uLong *)malloc((size_t)nblocks * sizeof *part);
  if (part == NULL) return (uint32_t)crc32_z(crc, s, (z_size_t)n); /* one thread, the same value */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (int64_t b = 0; b < (int64_t)nblocks; ++b)
    part[b] = crc32_z(0L, s + (uint64_t)b * SK_LDA_BIN_CRC_BLOCK, (z_size_t)sk_lda_bin_block_len(n, (uint64_t)b));
  uLong c = crc;
  for (uint64_t b = 0; b < nblocks; ++b) c = crc32_combine(c, part[b], (z_off_t)sk_lda_bin_block_len(n, b));
  free(part);
  return (uint32_t)c;
}

/* --- decoding -------------------------------------------------------------------------------------- */

uint32_t sk_lda_bin_dec_u32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

uint64_t sk_lda_bin_dec_u64(const unsigned char *b) {
  return (uint64_t)sk_lda_bin_dec_u32(b) | (uint64_t)sk_lda_bin_dec_u32(b + 4) << 32;
}

double sk_lda_bin_dec_f64(const unsigned char *b) {
  const uint64_t v = sk_lda_bin_dec_u64(b);
  double x;
  memcpy(&x, &v, sizeof x);
  return x;
}

/*
 * Opens PATH, checks its magic, size, CRC and version, then reads its header into the scratch buffer it
 * hands back (binary_io.h).
 */
FILE *sk_lda_bin_open_header(const char *path, const char magic[8], uint32_t version, const char *kind,
                             size_t header_bytes, uint64_t *size, unsigned char **buf_out, sk_ex_error *err) {
  const size_t min_size = header_bytes + 4u;
  *buf_out = NULL;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a folder for reading on Linux */
    sk_ex_fail(err, "%s: is a folder, not an sk-lda %s file", path, kind);
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    sk_ex_fail(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  unsigned char *buf = (unsigned char *)malloc(SK_LDA_BIN_CHUNK);
  off_t end = -1;
  if (buf == NULL) {
    sk_ex_fail(err, "%s: out of memory", path);
    goto fail;
  }
  if (fseeko(f, 0, SEEK_END) != 0 || (end = ftello(f)) < 0 || fseeko(f, 0, SEEK_SET) != 0) {
    sk_ex_fail(err, "%s: cannot determine the file size: %s", path, strerror(errno));
    goto fail;
  }
  if (end == 0) {
    sk_ex_fail(err, "%s: is empty, not an sk-lda %s file", path, kind);
    goto fail;
  }
  if (end < 8 || fread(buf, 1, 8, f) != 8 || memcmp(buf, magic, 8) != 0) {
    sk_ex_fail(err, "%s: not an sk-lda %s file (bad magic; expected \"%.8s\")", path, kind, magic);
    goto fail;
  }
  if ((uint64_t)end < (uint64_t)min_size) {
    sk_ex_fail(err, "%s: file is truncated (%lld bytes; a %s file has at least %zu)", path, (long long)end, kind,
                min_size);
    goto fail;
  }
  {
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, buf, 8);
    uint64_t left = (uint64_t)end - 12u;
    while (left > 0) {
      const size_t want = left < SK_LDA_BIN_CHUNK ? (size_t)left : SK_LDA_BIN_CHUNK;
      if (fread(buf, 1, want, f) != want) {
        sk_ex_fail(err, "%s: read error: %s", path, ferror(f) ? strerror(errno) : "unexpected end of file");
        goto fail;
      }
      crc = crc32(crc, buf, (uInt)want);
      left -= want;
    }
    if (fread(buf, 1, 4, f) != 4) {
      sk_ex_fail(err, "%s: read error: %s", path, ferror(f) ? strerror(errno) : "unexpected end of file");
      goto fail;
    }
    if (sk_lda_bin_dec_u32(buf) != (uint32_t)crc) {
      sk_ex_fail(err, "%s: checksum mismatch (file is corrupt)", path);
      goto fail;
    }
  }
  if (fseeko(f, 8, SEEK_SET) != 0 || fread(buf, 1, 4, f) != 4 || fseeko(f, 0, SEEK_SET) != 0) {
    sk_ex_fail(err, "%s: cannot read the format version: %s", path, strerror(errno));
    goto fail;
  }
  if (sk_lda_bin_dec_u32(buf) != version) {
    sk_ex_fail(err, "%s: unsupported format version %u (this sk-lda reads version %u)", path,
                (unsigned)sk_lda_bin_dec_u32(buf), (unsigned)version);
    goto fail;
  }
  if (sk_lda_bin_read_exact(f, buf, header_bytes, path, err)) goto fail;
  *size = (uint64_t)end;
  *buf_out = buf;
  return f;
fail:
  free(buf);
  fclose(f);
  return NULL;
}

/* Reads exactly n bytes (the CRC passed, so a short read is an I/O error or a file changed meanwhile). */
int sk_lda_bin_read_exact(FILE *f, void *dst, size_t n, const char *path, sk_ex_error *err) {
  if (fread(dst, 1, n, f) != n)
    return sk_ex_fail(err, "%s: read error: %s", path,
                       ferror(f) ? strerror(errno) : "unexpected end of file (changed while reading?)");
  return 0;
}

/* Reads n little-endian int32 values into dst. */
int sk_lda_bin_read_i32s(FILE *f, int32_t *dst, size_t n, unsigned char *buf, const char *path, sk_ex_error *err) {
  while (n > 0) {
    const size_t m = n < SK_LDA_BIN_CHUNK / 4 ? n : SK_LDA_BIN_CHUNK / 4;
    if (sk_lda_bin_read_exact(f, buf, m * 4, path, err)) return 1;
    for (size_t i = 0; i < m; ++i) dst[i] = (int32_t)sk_lda_bin_dec_u32(buf + 4 * i);
    dst += m;
    n -= m;
  }
  return 0;
}


sk_lda_bin_enc *sk_lda_bin_create(const char *path, const char magic[8], uint32_t version, sk_ex_error *err) {
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return NULL;
  sk_lda_bin_enc *e = sk_lda_bin_enc_new(f);
  if (e == NULL) {
    sk_ex_temp_abort(f, path);
    sk_ex_fail(err, "%s: out of memory", path);
    return NULL;
  }
  sk_lda_bin_enc_bytes(e, magic, 8);
  sk_lda_bin_enc_u32(e, version);
  return e;
}

int sk_lda_bin_commit(sk_lda_bin_enc *e, const char *path, sk_ex_error *err) {
  sk_lda_bin_enc_finish(e);
  FILE *f = e->f;
  free(e);
  return sk_ex_temp_commit(f, path, err);
}
