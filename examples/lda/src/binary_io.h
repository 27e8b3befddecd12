/**
 * \file binary_io.h
 * \brief Internal: the little-endian binary files of sk-lda (model, z and checkpoint files: model_file.h,
 * checkpoint.h).
 *
 * Every file is a magic, little-endian fields and a trailing CRC-32 (zlib's crc32(), ISO-HDLC) of every
 * byte before it. Writers encode into a buffer that keeps the running CRC and go through output.h's
 * temporary-name protocol; readers check the magic and the CRC before any field.
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

/** \brief Bytes of an encoder's buffer, and of the scratch buffer the readers below take. */
#define SK_LDA_BIN_CHUNK 65536u

/** \brief An encoder: bytes go through buf into f, with the CRC of everything written so far. */
typedef struct sk_lda_bin_enc {
  FILE *f;           /**< the file written */
  unsigned long crc; /**< zlib's uLong */
  size_t n;          /**< bytes in buf not yet written to f */
  unsigned char buf[SK_LDA_BIN_CHUNK]; /**< the bytes on their way to f */
} sk_lda_bin_enc;

/**
 * \brief Starts the file PATH (output.h's temporary name) with its 8-byte magic and uint32 format version.
 * \param path the file (PATH).
 * \param magic the 8-byte magic.
 * \param version the uint32 format version.
 * \param err filled on failure.
 * \return the encoder to write the fields with, or NULL with err filled.
 */
sk_lda_bin_enc *sk_lda_bin_create(const char *path, const char magic[8], uint32_t version, sk_ex_error *err);

/**
 * \brief Ends the file: the CRC, then flush, fsync and rename to PATH (output.h); frees e.
 *
 * On failure the temporary file is removed and err names it.
 * \param e the encoder of sk_lda_bin_create(); freed.
 * \param path the file (PATH), as given to sk_lda_bin_create().
 * \param err names the temporary file on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_bin_commit(sk_lda_bin_enc *e, const char *path, sk_ex_error *err);

/**
 * \brief Writes n bytes through the encoder.
 * \param e the encoder.
 * \param p the bytes.
 * \param n how many.
 */
void sk_lda_bin_enc_bytes(sk_lda_bin_enc *e, const void *p, size_t n);

/**
 * \brief Writes a uint32, little-endian.
 * \param e the encoder.
 * \param v the value.
 */
void sk_lda_bin_enc_u32(sk_lda_bin_enc *e, uint32_t v);

/**
 * \brief Writes a uint64, little-endian.
 * \param e the encoder.
 * \param v the value.
 */
void sk_lda_bin_enc_u64(sk_lda_bin_enc *e, uint64_t v);

/**
 * \brief Writes a float64, little-endian.
 * \param e the encoder.
 * \param x the value.
 */
void sk_lda_bin_enc_f64(sk_lda_bin_enc *e, double x);

/**
 * \brief Decodes a little-endian uint32.
 * \param b its 4 bytes.
 * \return the value.
 */
uint32_t sk_lda_bin_dec_u32(const unsigned char *b);

/**
 * \brief Decodes a little-endian uint64.
 * \param b its 8 bytes.
 * \return the value.
 */
uint64_t sk_lda_bin_dec_u64(const unsigned char *b);

/**
 * \brief Decodes a little-endian float64.
 * \param b its 8 bytes.
 * \return the value.
 */
double sk_lda_bin_dec_f64(const unsigned char *b);

/**
 * \brief Opens PATH and checks its magic, size, CRC and version, then reads the first header_bytes bytes.
 *
 * Checks, in this order, that it starts with `magic` ("not an sk-lda KIND file"), is at least
 * header_bytes + 4 bytes (header_bytes from 12 to SK_LDA_BIN_CHUNK), that its last 4 bytes are the CRC of
 * the rest ("checksum mismatch"), and that the uint32 after the magic is `version` ("unsupported format
 * version"); then reads the first header_bytes bytes.
 * \param path the file (PATH).
 * \param magic the 8-byte magic it must start with.
 * \param version the format version it must have.
 * \param kind the KIND of the message "not an sk-lda KIND file".
 * \param header_bytes bytes of the header to read, from 12 to SK_LDA_BIN_CHUNK.
 * \param size receives the file's size on success.
 * \param buf receives a buffer of SK_LDA_BIN_CHUNK bytes (the caller frees it) that starts with the header,
 *        the scratch the readers below take; NULL on failure.
 * \param err names the file on failure.
 * \return on success the file positioned after the header bytes, its size in *size and the buffer in *buf;
 *         else NULL, *buf NULL, err naming the file.
 */
FILE *sk_lda_bin_open_header(const char *path, const char magic[8], uint32_t version, const char *kind,
                             size_t header_bytes, uint64_t *size, unsigned char **buf, sk_ex_error *err);

/**
 * \brief Reads exactly n bytes (after the CRC passed, a short read is an I/O error or a file changed
 * meanwhile).
 * \param f the file.
 * \param dst receives the bytes.
 * \param n how many.
 * \param path the file's name, for messages.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_bin_read_exact(FILE *f, void *dst, size_t n, const char *path, sk_ex_error *err);

/**
 * \brief Reads n little-endian int32 values into dst, through buf (SK_LDA_BIN_CHUNK bytes of scratch).
 * \param f the file.
 * \param dst receives the n values.
 * \param n how many.
 * \param buf SK_LDA_BIN_CHUNK bytes of scratch.
 * \param path the file's name, for messages.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_bin_read_i32s(FILE *f, int32_t *dst, size_t n, unsigned char *buf, const char *path, sk_ex_error *err);

/**
 * \brief Whether the host stores integers little-endian, as the files do: arrays can then be written, read
 * and checksummed as they lie in memory.
 * \return 1 when the host stores integers little-endian, else 0.
 */
int sk_lda_bin_host_le(void);

/** \brief Bytes per block of sk_lda_bin_crc32()'s threads (see there). */
#define SK_LDA_BIN_CRC_BLOCK ((uint64_t)8 << 20)

/**
 * \brief zlib's crc32(crc, p, n) for any n, computed over the OpenMP threads (the default count) in blocks of
 * SK_LDA_BIN_CRC_BLOCK bytes joined with crc32_combine(): the value does not depend on the thread count.
 *
 * For the large arrays of corpus files and fingerprints; about 4 GB/s per core.
 * \param crc the CRC so far.
 * \param p the bytes.
 * \param n how many.
 * \return the CRC of the bytes, continuing crc.
 */
uint32_t sk_lda_bin_crc32(uint32_t crc, const void *p, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_BINARY_IO_H */
