/**
 * \file corpus_binary.h
 * \brief The binary corpus of sk-lda: the in-memory corpus (corpus.h) as one little-endian file that is
 * read at disk speed, for corpora of 10^9 tokens where parsing UCI text would take minutes.
 *
 * `sk-lda gen --binary` writes it (DIR/docword.NAME.bin, the vocabulary beside it in DIR/vocab.NAME.txt);
 * every command that reads a corpus reads it when the file given to --docword or --ldac starts with its
 * magic (the readers sk_lda_read_uci() and sk_lda_read_ldac() look at the first 8 bytes), so no option
 * names the format.
 *
 * BINARY CORPUS FILE (format version 1). Little-endian, no padding:
 * \verbatim
 *   offset          size      field
 *   0               8         magic, the bytes "SKLDACRP"
 *   8               4         uint32 format version = 1
 *   12              4         uint32 reserved = 0
 *   16              8         int64 D, documents, 1 .. SK_LDA_READ_MAX_DOCS
 *   24              8         int64 V, vocabulary size, 1 .. INT32_MAX
 *   32              8         int64 T, tokens, 1 .. SK_LDA_READ_MAX_TOKENS
 *   40              8 (D + 1) int64 document offsets: 0 = o_0 <= o_1 <= ... <= o_D = T; document d is the
 *                             tokens [o_d, o_d+1), so empty documents are allowed
 *   40 + 8 (D + 1)  4 T       int32 word ids, each in [0, V), documents one after the other
 *   then            4         uint32 CRC-32 (zlib's crc32(), ISO-HDLC) of every byte before it
 * \endverbatim
 * The file has exactly 44 + 8 (D + 1) + 4 T bytes. Host bytes: the corpus in memory is 8 (D + 1) + 4 T,
 * the file's own size; reading needs nothing beyond it but the vocabulary.
 *
 * Reading checks, in this order, each an error "FILE: what was wrong" (exit 2 in sk-lda): the magic, the
 * size of the header, the version, the reserved field, D, V and T against their ranges and the limits
 * (before anything is allocated), the file size against the header's D and T (a truncated file or
 * trailing bytes), the CRC, the offsets (o_0 = 0, never decreasing, o_D = T; the first offending
 * document is named) and the word ids (the first token outside [0, V) is named with its document).
 * A vocabulary file given with it must hold exactly V words, as for UCI (corpus_read.h; the messages
 * name "the V words of V in the header of FILE").
 *
 * Speed: the arrays are read with pread() in blocks of 8 MiB straight into the corpus (no parse, no
 * copy through a buffer), and the blocks' CRCs and the checks run over the OpenMP threads (the default
 * count); results never depend on the thread count. Writing computes the CRC over the threads the same
 * way and writes the arrays as they lie in memory (little-endian hosts; others convert).
 *
 * Errors: 0 on success, non-zero with err filled (corpus.h). Thread safety: no shared state; different
 * calls may run concurrently (each uses OpenMP inside).
 */
#ifndef SK_LDA_CORPUS_BINARY_H
#define SK_LDA_CORPUS_BINARY_H

#include <stdint.h>

#include "corpus.h"
#include "corpus_read.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The binary corpus file's format version. */
#define SK_LDA_BINARY_CORPUS_VERSION 1u
/** \brief Bytes before the offsets: magic, version, reserved, D, V, T. */
#define SK_LDA_BINARY_CORPUS_HEADER_BYTES 40u

/**
 * \brief Whether PATH is a binary corpus: it opens and its first 8 bytes are the magic "SKLDACRP".
 *
 * Reads 8 bytes.
 * \param path the file (PATH).
 * \return 1 when PATH opens and its first 8 bytes are the magic "SKLDACRP"; 0 otherwise (a missing,
 *         unreadable or shorter file, or another format: the caller's reader then says what is wrong).
 */
int sk_lda_is_binary_corpus(const char *path);

/**
 * \brief Writes `corpus` to PATH in the format above, through output.h's temporary name (PATH.tmp, fsync,
 * rename), so an interrupted write leaves no half file under PATH.
 *
 * The vocabulary is not written (see sk_lda_write_binary_files() in gen.h for the pair of files).
 * Work O(D + T) over the OpenMP threads, then the write.
 * \param corpus the corpus.
 * \param path the file (PATH).
 * \param err names PATH on failure.
 * \return 0 on success; non-zero, err naming PATH, when the corpus is one the reader would refuse (D < 1,
 *         V < 1, T < 1, offsets not from 0 to T or decreasing, a word id outside [0, V)) or on an I/O error.
 */
int sk_lda_write_binary(const sk_lda_corpus *corpus, const char *path, sk_ex_error *err);

/**
 * \brief Reads the binary corpus PATH and, when vocab_path is not NULL, its vocabulary (plain or gzip text,
 * one word per line, exactly V words: corpus_read.h's rules).
 *
 * The common contract of corpus_read.h holds (0 and *out filled, or non-zero, *out zeroed and err naming
 * the file), with "FILE: ..." for every error about the binary file (it has no lines). Limits:
 * SK_LDA_READ_MAX_DOCS, _MAX_TOKENS.
 * \param path the binary corpus (PATH).
 * \param vocab_path its vocabulary, or NULL.
 * \param out receives the corpus; free with sk_lda_corpus_free().
 * \param err names the file on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_read_binary(const char *path, const char *vocab_path, sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief The same from memory buffers (the bytes of the file; a vocabulary's text, not gzip-decoded), with
 * `limits` (NULL: the defaults): for the tests and the fuzz target.
 * \param data the bytes of the file.
 * \param vocab a vocabulary's text, or NULL.
 * \param limits the limits, or NULL for the defaults.
 * \param out receives the corpus; free with sk_lda_corpus_free().
 * \param err names the buffer on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_parse_binary(const sk_lda_buffer *data, const sk_lda_buffer *vocab, const sk_lda_read_limits *limits,
                        sk_lda_corpus *out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CORPUS_BINARY_H */
