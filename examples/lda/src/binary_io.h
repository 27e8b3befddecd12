/*
 * Internal: the little-endian binary files of sk-lda (model, z and checkpoint files: model_file.h,
 * checkpoint.h). Every file is a magic, little-endian fields and a trailing CRC-32 (zlib's crc32(),
 * ISO-HDLC) of every byte before it. Writers encode into a buffer that keeps the running CRC and go
 * through output.h's temporary-name protocol; readers check the magic and the CRC before any field.
 */
#ifndef SK_LDA_BINARY_IO_H
#define SK_LDA_BINARY_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_LDA_BIN_CHUNK 65536u

/* An encoder: bytes go through buf into f, with the CRC of everything written so far. */
typedef struct sk_lda_bin_enc {
  FILE *f;
  unsigned long crc; /* zlib's uLong */
  size_t n;
  unsigned char buf[SK_LDA_BIN_CHUNK];
} sk_lda_bin_enc;

/* Starts the file PATH (output.h's temporary name) with its 8-byte magic and uint32 format version:
   the encoder to write the fields with, or NULL with err filled. */
sk_lda_bin_enc *sk_lda_bin_create(const char *path, const char magic[8], uint32_t version, sk_lda_error *err);

/* Ends the file: the CRC, then flush, fsync and rename to PATH (output.h); frees e. On failure the
   temporary file is removed and err names it. */
int sk_lda_bin_commit(sk_lda_bin_enc *e, const char *path, sk_lda_error *err);
void sk_lda_bin_enc_bytes(sk_lda_bin_enc *e, const void *p, size_t n);
void sk_lda_bin_enc_u32(sk_lda_bin_enc *e, uint32_t v);
void sk_lda_bin_enc_u64(sk_lda_bin_enc *e, uint64_t v);
void sk_lda_bin_enc_f64(sk_lda_bin_enc *e, double x);

uint32_t sk_lda_bin_dec_u32(const unsigned char *b);
uint64_t sk_lda_bin_dec_u64(const unsigned char *b);
double sk_lda_bin_dec_f64(const unsigned char *b);

/*
 * Opens PATH and checks, in this order, that it starts with `magic` ("not an sk-lda KIND file"), is at
 * least header_bytes + 4 bytes (header_bytes from 12 to SK_LDA_BIN_CHUNK), that its last 4 bytes are the
 * CRC of the rest ("checksum mismatch"), and that the uint32 after the magic is `version` ("unsupported
 * format version"); then reads the first header_bytes bytes. On success returns the file positioned
 * after them, its size in *size and in *buf a buffer of SK_LDA_BIN_CHUNK bytes (the caller frees it)
 * that starts with the header, the scratch the readers below take; else NULL, *buf NULL, err naming
 * the file.
 */
FILE *sk_lda_bin_open_header(const char *path, const char magic[8], uint32_t version, const char *kind,
                             size_t header_bytes, uint64_t *size, unsigned char **buf, sk_lda_error *err);

/* Reads exactly n bytes (after the CRC passed, a short read is an I/O error or a file changed meanwhile). */
int sk_lda_bin_read_exact(FILE *f, void *dst, size_t n, const char *path, sk_lda_error *err);

/* Reads n little-endian int32 values into dst, through buf (SK_LDA_BIN_CHUNK bytes of scratch). */
int sk_lda_bin_read_i32s(FILE *f, int32_t *dst, size_t n, unsigned char *buf, const char *path, sk_lda_error *err);

/* 1 when the host stores integers little-endian, as the files do: arrays can then be written, read and
   checksummed as they lie in memory. */
int sk_lda_bin_host_le(void);

/*
 * zlib's crc32(crc, p, n) for any n, computed over the OpenMP threads (the default count) in blocks of
 * SK_LDA_BIN_CRC_BLOCK bytes joined with crc32_combine(): the value does not depend on the thread count.
 * For the large arrays of corpus files and fingerprints; about 4 GB/s per core.
 */
#define SK_LDA_BIN_CRC_BLOCK ((uint64_t)8 << 20)
uint32_t sk_lda_bin_crc32(uint32_t crc, const void *p, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_BINARY_IO_H */
