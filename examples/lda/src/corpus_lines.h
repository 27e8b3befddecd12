/**
 * \file corpus_lines.h
 * \brief Internal to the corpus readers: a line source over a gzFile or a memory buffer, a decimal parser
 * and the vocabulary reader they share.
 *
 * Not part of the sk-lda interface.
 */
#ifndef SK_LDA_CORPUS_LINES_H
#define SK_LDA_CORPUS_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "corpus_read.h"

/**
 * \brief A line source over a file (plain, or gzip through zlib's inflate) or a memory buffer.
 *
 * gzip is read with inflate() rather than gzread() because gzread() silently ignores bytes after the
 * last gzip member that do not start another member; here they are an error.
 */
typedef struct sk_lda_detail_lines {
  const char *name;   /**< for messages */
  FILE *file;         /**< NULL when reading from memory */
  int gzip;           /**< file: 1 when it is gzip (starts with 1f 8b) and `z` is initialised */
  z_stream z;         /**< gzip: the inflate state, reading from `in` */
  unsigned char *in;  /**< gzip: owned buffer of in_cap compressed bytes */
  size_t in_cap;      /**< bytes of in */
  uint64_t in_total;  /**< gzip: compressed bytes read from the file so far */
  int in_eof;         /**< gzip: the file has no bytes beyond in_total */
  int member_ended;   /**< gzip: the member inflated last has ended (Z_STREAM_END) */
  char *buf;          /**< file: owned buffer of cap bytes */
  size_t cap;         /**< bytes of buf */
  const char *data;   /**< unread bytes are data[pos .. size) */
  size_t size, /**< end of the bytes in data */ pos; /**< start of the unread bytes in data */
  int64_t line_no;    /**< number of the line last returned, 1-based */
  int at_eof;         /**< no more bytes beyond data[size) */
} sk_lda_detail_lines;

/**
 * \brief Opens path, plain or gzip (told by its first two bytes, 1f 8b, as gzopen() tells them).
 *
 * A gzip file may hold several members one after the other (they are read as one stream, as gzip -d
 * reads them); anything after the last member that is not a gzip member is an error when the reading
 * reaches it ("FILE: trailing garbage after the gzip data ...").
 * \param lines the line source to fill; close with sk_lda_detail_lines_close().
 * \param path the file.
 * \param err filled on failure.
 * \return 0, or 1 with err filled.
 */
int sk_lda_detail_lines_open(sk_lda_detail_lines *lines, const char *path, sk_ex_error *err);

/**
 * \brief Makes a line source over a memory buffer.
 * \param lines the line source to fill.
 * \param buffer the bytes and their name.
 */
void sk_lda_detail_lines_memory(sk_lda_detail_lines *lines, const sk_lda_buffer *buffer);

/**
 * \brief Closes a line source (one from memory too; closing twice is harmless).
 * \param lines the line source.
 */
void sk_lda_detail_lines_close(sk_lda_detail_lines *lines);

/**
 * \brief Next line without its `"\n"` or `"\r\n"`.
 * \param lines the line source.
 * \param line receives the line (valid until the next call).
 * \param len receives its length (valid until the next call).
 * \param err filled on a read or gzip error, naming the line.
 * \return 1 and sets *line, *len (valid until the next call); 0 at the end of the input; -1 on a read or
 *         gzip error (err filled, naming the line).
 */
int sk_lda_detail_lines_next(sk_lda_detail_lines *lines, const char **line, size_t *len, sk_ex_error *err);

/**
 * \brief Reads what is left of the input and says whether it holds only blank lines.
 * \param lines the line source.
 * \param err filled on a read error.
 * \return 1 if it holds only blank lines, 0 if it holds a non-blank one (lines->line_no is then that
 *         line), -1 on a read error (err filled).
 */
int sk_lda_detail_lines_rest_blank(sk_lda_detail_lines *lines, sk_ex_error *err);

/**
 * \brief The line to name in a message about the end of the input.
 * \param lines the line source.
 * \return the last line read, or 1 for an empty file.
 */
static inline long long sk_lda_detail_last_line(const sk_lda_detail_lines *lines) {
  return lines->line_no > 0 ? (long long)lines->line_no : 1;
}

/**
 * \brief Whether c is a space or a tab.
 * \param c the byte.
 * \return 1 for a space or a tab, else 0.
 */
static inline int sk_lda_detail_is_blank(char c) { return c == ' ' || c == '\t'; }

/**
 * \brief Whether [p, end) holds only spaces and tabs.
 * \param p the first byte.
 * \param end one past the last byte.
 * \return 1 if [p, end) holds only spaces and tabs, else 0.
 */
int sk_lda_detail_blank(const char *p, const char *end);

/**
 * \brief Parses decimal digits [p, end).
 * \param p the first byte.
 * \param end one past the last byte.
 * \param value receives the value on success.
 * \return 0 and *value on success; 1 if it is empty or holds any other byte (a sign included); 2 if the
 *         value exceeds INT64_MAX.
 */
static inline int sk_lda_detail_parse_u63(const char *p, const char *end, int64_t *value) {
  uint64_t v = 0;
  if (p == end) return 1;
  for (; p < end; ++p) {
    const unsigned d = (unsigned)(unsigned char)*p - (unsigned)'0';
    if (d > 9) return 1;
    if (v > ((uint64_t)INT64_MAX - d) / 10) {
      for (++p; p < end; ++p)
        if ((unsigned)(unsigned char)*p - (unsigned)'0' > 9) return 1;
      return 2;
    }
    v = v * 10 + d;
  }
  *value = (int64_t)v;
  return 0;
}

/**
 * \brief Writes [p, p+n) quoted for a message: at most 40 bytes, non-printable bytes as '?'.
 * \param p the bytes.
 * \param n how many.
 * \param out receives the quoted text.
 * \param cap bytes of out.
 * \return out.
 */
const char *sk_lda_detail_quote(const char *p, size_t n, char *out, size_t cap);

/**
 * \brief Reads a vocabulary: one word per line, none empty and none holding a NUL byte.
 *
 * Blank lines (empty, or spaces and tabs only) after the last word are ignored and are not words; a blank
 * line followed by a word is an error. expected >= 0: exactly that many words are required, what_expected
 * saying where the number came from (e.g. "W on docword.kos.txt.gz:2"). Fewer: error naming the
 * vocabulary's last line, "the vocabulary has only N lines, fewer than the W words of WHAT". More: the
 * file is read to its end and the error names the first word past W, "the vocabulary has N words, more
 * than the W words of WHAT", N counting every non-blank line. expected < 0: any number >= 1, at most
 * max_words. Every word must be distinct (byte for byte): once the count is right, a word that repeats an
 * earlier one is an error naming both lines, "VOCAB:LINE: word 'W' is already on line FIRST (each word
 * may appear once)", LINE the first repeat in file order; a word-to-id map cannot hold both.
 * \param lines the vocabulary's lines.
 * \param expected the number of words required (W), or < 0 for any number.
 * \param what_expected where the number came from (WHAT).
 * \param max_words the most words when expected < 0.
 * \param vocab on success, *count malloc'ed words (each freed with free()).
 * \param count receives the number of words.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_detail_read_vocab(sk_lda_detail_lines *lines, int64_t expected, const char *what_expected,
                             int64_t max_words, char ***vocab, int32_t *count, sk_ex_error *err);

/**
 * \brief Finds the first word equal to an earlier one, with a hash set: O(count) expected time, 8 bytes
 * per slot, at least 2 count slots.
 *
 * Inline here, not in corpus_lines.c, so that model_file.c (whose fuzz target links no corpus reader)
 * checks its vocabulary with the same code.
 * \param words count NUL-terminated words (none NULL).
 * \param count how many.
 * \param first receives the index of the earlier word when one repeats.
 * \param repeat receives the least index of a word equal to an earlier one.
 * \return 0 when every word is distinct, 1 when one repeats (*first < *repeat set), -1 out of memory.
 */
static inline int sk_lda_detail_find_repeated_word(char *const *words, int64_t count, int64_t *first,
                                                   int64_t *repeat) {
  /* Open addressing, at most half full; a slot holds a word's index + 1, 0 when empty. */
  uint64_t cap = 16, *slots;
  while (cap < 2 * (uint64_t)count) cap *= 2;
  if (cap > SIZE_MAX / sizeof *slots) return -1;
  slots = (uint64_t *)calloc((size_t)cap, sizeof *slots);
  if (slots == NULL) return -1;
  for (int64_t i = 0; i < count; ++i) {
    /* FNV-1a, its high bits folded down: the table indexes with the low bits. */
    uint64_t h = 1469598103934665603ull, at;
    for (const char *s = words[i]; *s != '\0'; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    for (at = (h ^ (h >> 29)) & (cap - 1); slots[at] != 0; at = (at + 1) & (cap - 1))
      if (strcmp(words[slots[at] - 1], words[i]) == 0) {
        *first = (int64_t)slots[at] - 1;
        *repeat = i;
        free(slots);
        return 1;
      }
    slots[at] = (uint64_t)i + 1;
  }
  free(slots);
  return 0;
}

/**
 * \brief sk_lda_detail_find_repeated_word() as a check with its message, for a vocabulary given whole (a
 * model file's, or one a caller of the C API sets): `WHAT: vocabulary word R "w" repeats word F (each word
 * may appear once)`, without `WHAT: ` when `what` is NULL.
 * \param words count NUL-terminated words (none NULL).
 * \param count how many.
 * \param what the message's prefix (the file), or NULL.
 * \param err filled when a word repeats or memory runs out.
 * \return 0 when every word is distinct, 1 when one repeats, -1 out of memory.
 */
static inline int sk_lda_detail_check_vocab_distinct(char *const *words, int64_t count, const char *what,
                                                     sk_ex_error *err) {
  int64_t first = 0, repeat = 0;
  const int found = sk_lda_detail_find_repeated_word(words, count, &first, &repeat);
  const char *sep = what != NULL ? ": " : "";
  if (what == NULL) what = "";
  if (found < 0) sk_ex_fail(err, "%s%sout of memory checking the vocabulary", what, sep);
  if (found > 0)
    sk_ex_fail(err, "%s%svocabulary word %lld \"%.40s\" repeats word %lld (each word may appear once)", what, sep,
               (long long)repeat, words[repeat], (long long)first);
  return found;
}

/**
 * \brief Frees count words and the array.
 * \param vocab the array.
 * \param count its words.
 */
void sk_lda_detail_free_vocab(char **vocab, int32_t count);

/**
 * \brief Parses [s, e) as a whole number `what` in lo..hi.
 *
 * On failure fills err naming the line: not a number, negative, or out of range.
 * \param lines the line source, whose line is named.
 * \param s the first byte.
 * \param e one past the last byte.
 * \param what the number's name.
 * \param lo the least value allowed.
 * \param hi the largest value allowed.
 * \param where where hi came from (may be "").
 * \param value receives the value on success.
 * \param err filled on failure.
 * \return 0 or 1.
 */
int sk_lda_detail_parse_number(const sk_lda_detail_lines *lines, const char *s, const char *e, const char *what,
                               int64_t lo, int64_t hi, const char *where, int64_t *value, sk_ex_error *err);

/**
 * \brief A format's parser over lines: the main input and an optional vocabulary (NULL when none).
 * \param input the main input.
 * \param vocab the vocabulary, or NULL when none.
 * \param limits the limits.
 * \param out receives the corpus.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
typedef int (*sk_lda_detail_parser)(sk_lda_detail_lines *input, sk_lda_detail_lines *vocab,
                                    const sk_lda_read_limits *limits, sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief A format's public entry point, written once: parse from memory buffers.
 * \param fn names the public function in messages about NULL arguments.
 * \param parse the format's parser.
 * \param input the main input's bytes.
 * \param vocab the vocabulary's bytes, or NULL.
 * \param limits the limits, or NULL for the defaults.
 * \param out receives the corpus.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_detail_parse_buffers(const char *fn, sk_lda_detail_parser parse, const sk_lda_buffer *input,
                                const sk_lda_buffer *vocab, const sk_lda_read_limits *limits, sk_lda_corpus *out,
                                sk_ex_error *err);

/**
 * \brief A format's public entry point, written once: read from files (plain or gzip).
 * \param fn names the public function in messages about NULL arguments.
 * \param parse the format's parser.
 * \param path the main input's file.
 * \param vocab_path the vocabulary's file, or NULL.
 * \param out receives the corpus.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_detail_read_files(const char *fn, sk_lda_detail_parser parse, const char *path, const char *vocab_path,
                             sk_lda_corpus *out, sk_ex_error *err);

/**
 * \brief Grows *array (element size elem) to hold at least need elements.
 * \param array the array, reallocated.
 * \param cap its capacity in elements, updated.
 * \param need the elements it must hold.
 * \param elem the element size.
 * \return 0 on success, 1 out of memory.
 */
int sk_lda_detail_reserve(void **array, int64_t *cap, int64_t need, size_t elem);

/**
 * \brief sk_lda_detail_reserve() that grows the capacity to at most `most` elements (but always to need),
 * so that doubling never asks for more than a memory budget allows.
 * \param array the array, reallocated.
 * \param cap its capacity in elements, updated.
 * \param need the elements it must hold.
 * \param most the capacity not to grow past (unless need is larger).
 * \param elem the element size.
 * \return 0 on success, 1 out of memory.
 */
int sk_lda_detail_reserve_upto(void **array, int64_t *cap, int64_t need, int64_t most, size_t elem);

/**
 * \brief The memory budget check of sk_lda_read_limits: 0 when `need` bytes fit limits->max_bytes (or
 * there is no budget); else 1 with err "NAME:LINE: WHAT need X of host memory; this machine has Y
 * available" (or "SK_HOST_MEMORY allows Y"; "NAME: WHAT ..." when line is 0).
 * \param name the file's name.
 * \param line the line to name, or 0 for none (a binary header).
 * \param limits the limits (sk_lda_detail_limits()).
 * \param need the bytes needed.
 * \param what what needs them, e.g. "the 6442450941 tokens counted by this line".
 * \param err filled on failure.
 * \return 0 or 1.
 */
int sk_lda_detail_check_bytes(const char *name, int64_t line, const sk_lda_read_limits *limits, uint64_t need,
                              const char *what, sk_ex_error *err);

/**
 * \brief The limits to use.
 * \param limits the limits asked for, or NULL.
 * \return *limits clamped to the defaults, or the defaults when NULL.
 */
sk_lda_read_limits sk_lda_detail_limits(const sk_lda_read_limits *limits);

#endif /* SK_LDA_CORPUS_LINES_H */
