/**
 * \file corpus_read.h
 * \brief Corpus readers: UCI bag-of-words, Blei's LDA-C and plain text, each into the sk_lda_corpus of
 * corpus.h.
 *
 * Common contract of every function here:
 * - Returns 0 on success and fills *out, which the caller later frees with sk_lda_corpus_free().
 *   *out is overwritten, not freed, on entry: pass a zeroed or never-filled corpus.
 * - On failure returns non-zero, leaves *out zeroed (nothing is leaked), and fills *err (when not NULL)
 *   with one line "FILE:LINE: what was wrong" (or "FILE: ..." for what belongs to no line, such as a
 *   file that cannot be opened).
 * - Malformed input of any kind is an error, never a crash. An empty corpus (no documents, or no tokens
 *   in any document) is an error.
 * - Each file may be plain text or gzip-compressed (a file starting with gzip's magic 1f 8b, decoded
 *   with zlib's inflate). A gzip file may hold several members one after the other (concatenated .gz
 *   files), read as one stream as gzip -d reads them. Truncated or corrupt gzip data is an error naming
 *   the line where reading stopped; bytes after the last member that do not start another member
 *   (which zlib's gzread() would skip silently) are an error "FILE: trailing garbage after the gzip data:
 *   the bytes from offset N on are not a gzip member ...", N the offset in the compressed file.
 * - A vocabulary (UCI, LDA-C, binary corpus) holds each word once, byte for byte: a word that repeats an
 *   earlier one is an error "VOCAB:LINE: word 'W' is already on line FIRST (each word may appear once)",
 *   after the checks of its length. The plain-text reader builds its vocabulary from distinct words.
 * - Lines end in `"\n"` or `"\r\n"`; a last line without a newline is read. Blank lines after the last
 *   data line are ignored; inside the data they are errors, except in plain text, where they are
 *   documents that end up empty.
 * - Numbers are decimal digits only (no sign, no spaces inside); fields are separated by spaces or tabs.
 * - Thread safety: the functions share no state; different calls may run concurrently.
 *
 * - Binary corpora: sk_lda_read_uci() and sk_lda_read_ldac() read a file that starts with the magic of
 *   corpus_binary.h ("SKLDACRP") as a binary corpus (sk_lda_read_binary(): its vocabulary, when given,
 *   must hold exactly its V words, whichever of the two was called), so that every command that reads a
 *   corpus takes one without an option; sk_lda_read_text() refuses one, naming the file.
 *
 * The sk_lda_parse_* functions do the same from memory buffers (the name in each buffer is used in the
 * messages; the bytes are not gzip-decoded): they let tests and the fuzz targets run without files. The
 * sk_lda_read_* functions are thin wrappers over the same code. limits may be NULL (the defaults).
 */
#ifndef SK_LDA_CORPUS_READ_H
#define SK_LDA_CORPUS_READ_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Limits on what a header or a count may make the reader allocate, so that a few bytes of input
 * cannot ask for gigabytes.
 *
 * The sk_lda_read_* functions use SK_LDA_READ_MAX_DOCS, SK_LDA_READ_MAX_TOKENS and, as max_bytes, the
 * host memory this process may take (sk_ex_host_memory_available() of sk_ex_memory.h: MemAvailable, the
 * control group's room, SK_HOST_MEMORY). Going past a limit is an error naming the line, before the
 * memory is taken: for max_bytes, "FILE:LINE: ... need X of host memory; this machine has Y available"
 * at header line 3 when NNZ alone (4 bytes a token, at least one token an entry) cannot fit, else at the
 * entry line from which the tokens read so far (4 bytes each) and the stored documents (12 bytes each)
 * no longer fit; the binary corpus checks its header's D and T the same way.
 */
typedef struct sk_lda_read_limits {
  int64_t max_docs;       /**< most documents (D) a corpus may have, at most SK_LDA_READ_MAX_DOCS */
  int64_t max_tokens;     /**< most tokens (T) a corpus may have, at most SK_LDA_READ_MAX_TOKENS */
  uint64_t max_bytes;     /**< most bytes of host memory the corpus's arrays may take (0: no limit) */
  int max_bytes_from_env; /**< 1 when max_bytes came from SK_HOST_MEMORY (the message says so) */
} sk_lda_read_limits;

/** \brief The most documents a corpus may have: the sk_lda_read_* functions' limit (sk_lda_read_limits). */
#define SK_LDA_READ_MAX_DOCS ((int64_t)INT32_MAX - 1)
/** \brief The most tokens a corpus may have: the sk_lda_read_* functions' limit (sk_lda_read_limits). */
#define SK_LDA_READ_MAX_TOKENS ((int64_t)1 << 40)

/** \brief A named region of memory holding the bytes of one file (it need not end in NUL). */
typedef struct sk_lda_buffer {
  const char *name; /**< used in messages */
  const char *data; /**< the bytes */
  size_t size;      /**< how many */
} sk_lda_buffer;

/**
 * \brief UCI bag-of-words.
 *
 * docword: 3 header lines D, W, NNZ, then NNZ lines "docID wordID count" with 1-based ids, sorted by docID
 * then wordID. vocab (may be NULL): one word per line, line i is word i; it must hold exactly W words.
 * Blank lines after the last word (a final newline, or trailing lines of spaces and tabs) are not words
 * and are ignored; a blank line before a word is an error. Fewer than W words is an error
 * ("VOCAB:LINE: the vocabulary has only N lines, fewer than the W words of W on DOCWORD:2", LINE its last
 * line), and so is more ("VOCAB:LINE: the vocabulary has N words, more than the W words of W on
 * DOCWORD:2", LINE the first word past W, N every non-blank line of the file): a vocabulary that does not
 * match its docword file is taken to be the wrong file, not silently cut. Note: the original UCI
 * vocab.kos.txt has 6907 lines, "temp" after its 6906 words, and so is rejected with docword.kos.txt
 * (W = 6906).
 *
 * Result: D documents in docID order, each the expansion of its counts into tokens in wordID order
 * (word ids 0-based); V = W. Documents with no entries cost nothing: they are not stored, and when
 * there are any, the corpus's doc_ids holds each stored document's docID - 1 and num_input_docs = D
 * (corpus.h), so that outputs keyed by document keep the file's numbering; a header D of 2 x 10^9 with
 * three documents that have entries makes a corpus of three documents. Rejected (error naming the line): a missing or non-numeric header, D = 0,
 * W = 0, NNZ = 0, more or fewer entry lines than NNZ, docID outside 1..D, wordID outside 1..W, count
 * outside 1..INT32_MAX, non-numeric or missing fields, trailing text, pairs out of order, and duplicate
 * (docID, wordID) pairs (rejected, not merged: a repeated pair means the file is broken).
 * \param docword_path the docword file.
 * \param vocab_path the vocabulary file, or NULL.
 * \param out receives the corpus (the common contract above).
 * \param err filled on failure (the common contract above).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_read_uci(const char *docword_path, const char *vocab_path, sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief sk_lda_read_uci() from memory buffers (see the file's description).
 * \param docword the docword file's bytes.
 * \param vocab the vocabulary's bytes, or NULL.
 * \param limits the limits, or NULL for the defaults.
 * \param out receives the corpus (the common contract above).
 * \param err filled on failure (the common contract above).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_parse_uci(const sk_lda_buffer *docword, const sk_lda_buffer *vocab, const sk_lda_read_limits *limits,
                     sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief Blei's LDA-C: one document per line, "N id:count id:count ..." with N the number of pairs and
 * 0-based word ids.
 *
 * vocab (may be NULL): one word per line, as for UCI (no empty line before a word; blank lines after the
 * last word ignored); when given, the file has no W to match, so V is its number of words, every id must
 * be below it (an id >= V is the error, naming the vocabulary and V), and words no document uses are fine:
 * a vocabulary is never "too long" here. When NULL, V is the largest id + 1 and corpus->vocab is NULL.
 *
 * Result: one document per line in file order, each the expansion of its pairs in the order written;
 * "0" is an empty document and is kept. Rejected: N that disagrees with the pairs on the line, ids out of
 * range, counts outside 1..INT32_MAX, malformed pairs, trailing text, and a word id written twice on one
 * line (rejected, not merged, as in UCI).
 * \param path the LDA-C file.
 * \param vocab_path the vocabulary file, or NULL.
 * \param out receives the corpus (the common contract above).
 * \param err filled on failure (the common contract above).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_read_ldac(const char *path, const char *vocab_path, sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief sk_lda_read_ldac() from memory buffers (see the file's description).
 * \param docs the LDA-C file's bytes.
 * \param vocab the vocabulary's bytes, or NULL.
 * \param limits the limits, or NULL for the defaults.
 * \param out receives the corpus (the common contract above).
 * \param err filled on failure (the common contract above).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_parse_ldac(const sk_lda_buffer *docs, const sk_lda_buffer *vocab, const sk_lda_read_limits *limits,
                      sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief Plain text, one document per line, tokenized as ../shared/data/README.md describes.
 *
 * ASCII letters are lower-cased, a token is a run of letters a-z of length 3 or more (every other byte
 * separates tokens), words in the stop-word file (may be NULL; one word per line, blank lines ignored) are
 * removed, and then words seen min_count times or fewer in the whole text are removed (min_count = 0 keeps
 * every word; the shared corpora used 10). Documents left empty are not stored, so D counts only documents
 * with tokens; when any line was left empty, doc_ids holds each stored document's line number - 1 and
 * num_input_docs the file's lines (corpus.h), so that theta.txt and theta.npy name documents by their
 * lines. The vocabulary is the kept words in byte order (strcmp), word ids are their positions in
 * it. Rejected: min_count < 0, and no tokens left at all.
 * \param path the text file.
 * \param stopwords_path the stop-word file, or NULL.
 * \param min_count words seen this many times or fewer are removed (0 keeps every word).
 * \param out receives the corpus (the common contract above).
 * \param err filled on failure (the common contract above).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_read_text(const char *path, const char *stopwords_path, int64_t min_count, sk_lda_corpus *out,
                     sk_ex_error *err);

/**
 * \brief sk_lda_read_text() from memory buffers (see the file's description).
 * \param text the text's bytes.
 * \param stopwords the stop-word file's bytes, or NULL.
 * \param min_count words seen this many times or fewer are removed (0 keeps every word).
 * \param limits the limits, or NULL for the defaults.
 * \param out receives the corpus (the common contract above).
 * \param err filled on failure (the common contract above).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_parse_text(const sk_lda_buffer *text, const sk_lda_buffer *stopwords, int64_t min_count,
                      const sk_lda_read_limits *limits, sk_lda_corpus *out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CORPUS_READ_H */
