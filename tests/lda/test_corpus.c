/*
 * Corpus readers (examples/lda/src/corpus_read.h): good files of each format with their exact token
 * lists, one test per malformed case (reading fails, *out stays empty, and the message names the file
 * and line), vocabularies with a repeated word, gzip round trip with truncated and corrupt copies,
 * concatenated gzip members (read whole) and bytes after the last member (refused), the fuzzers'
 * regression inputs, and the real corpora of ../shared/data against the README's table (skipped with a note when absent).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "corpus_read.h"
#include "sk_test.h"

#define DATA SK_LDA_TEST_DATA "/"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int corpus_is_empty(const sk_lda_corpus *c) {
  return c->num_docs == 0 && c->num_words == 0 && c->num_tokens == 0 && c->doc_offsets == NULL &&
         c->tokens == NULL && c->vocab == NULL;
}

/* Checks a corpus against documents given as one int array: per document its length, then its ids. */
static void check_corpus(const sk_lda_corpus *c, int32_t num_docs, int32_t num_words, const int *expected,
                         const char *const *vocab) {
  int64_t t = 0;
  int k = 0;
  if (!SK_CHECK(c->num_docs == num_docs, "num_docs %d, expected %d", (int)c->num_docs, (int)num_docs)) return;
  SK_CHECK(c->num_words == num_words, "num_words %d, expected %d", (int)c->num_words, (int)num_words);
  SK_CHECK(c->doc_offsets[0] == 0, "doc_offsets[0] = %lld", (long long)c->doc_offsets[0]);
  for (int32_t d = 0; d < num_docs; ++d) {
    const int len = expected[k++];
    if (!SK_CHECK(c->doc_offsets[d + 1] - c->doc_offsets[d] == len, "document %d has %lld tokens, expected %d",
                  (int)d, (long long)(c->doc_offsets[d + 1] - c->doc_offsets[d]), len))
      return;
    for (int i = 0; i < len; ++i, ++t, ++k)
      if (!SK_CHECK(c->tokens[t] == expected[k], "document %d token %d is %d, expected %d", (int)d, i,
                    (int)c->tokens[t], expected[k]))
        return;
  }
  SK_CHECK(c->num_tokens == t, "num_tokens %lld, expected %lld", (long long)c->num_tokens, (long long)t);
  if (vocab == NULL) {
    SK_CHECK(c->vocab == NULL, "vocab should be NULL");
  } else if (SK_CHECK(c->vocab != NULL, "vocab is NULL")) {
    for (int32_t v = 0; v < num_words; ++v)
      SK_CHECK(strcmp(c->vocab[v], vocab[v]) == 0, "vocab[%d] = '%s', expected '%s'", (int)v, c->vocab[v], vocab[v]);
  }
}

static const char *const good_vocab[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
/* uci_good.txt: docs 1..4; doc 2 has no entries, so it is not stored and doc_ids says which docIDs are. */
static const int uci_good_tokens[] = {3, 1, 1, 4, /**/ 4, 0, 3, 3, 3, /**/ 1, 1};

/* The corpus of uci_good.txt: three stored documents, docIDs 1, 3 and 4 of four. */
static void check_uci_good(const sk_lda_corpus *c, const char *const *vocab) {
  check_corpus(c, 3, 5, uci_good_tokens, vocab);
  if (SK_CHECK(c->doc_ids != NULL, "doc_ids is NULL though docID 2 is empty"))
    SK_CHECK(c->doc_ids[0] == 0 && c->doc_ids[1] == 2 && c->doc_ids[2] == 3, "doc_ids %d %d %d, expected 0 2 3",
             (int)c->doc_ids[0], (int)c->doc_ids[1], (int)c->doc_ids[2]);
  SK_CHECK(sk_lda_corpus_input_docs(c) == 4, "input documents %d, expected 4", (int)sk_lda_corpus_input_docs(c));
}

static void test_uci_good(void) {
  static const char *const files[] = {DATA "uci_good.txt", DATA "uci_good_crlf.txt"};
  for (int f = 0; f < 2; ++f) {
    sk_lda_corpus c;
    sk_ex_error err = {""};
    sk_test_context("uci good %s", files[f]);
    if (SK_CHECK(sk_lda_read_uci(files[f], DATA "vocab_good.txt", &c, &err) == 0, "%s", err.message))
      check_uci_good(&c, good_vocab);
    sk_lda_corpus_free(&c);
    if (SK_CHECK(sk_lda_read_uci(files[f], NULL, &c, &err) == 0, "%s", err.message))
      check_uci_good(&c, NULL);
    sk_lda_corpus_free(&c);
  }
}

static void test_ldac_good(void) {
  static const int tokens[] = {3, 1, 1, 4, /**/ 0, /**/ 4, 3, 0, 0, 2};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  sk_test_context("ldac good");
  if (SK_CHECK(sk_lda_read_ldac(DATA "ldac_good.txt", DATA "vocab_good.txt", &c, &err) == 0, "%s", err.message))
    check_corpus(&c, 3, 5, tokens, good_vocab);
  sk_lda_corpus_free(&c);
  /* Without a vocabulary V is the largest id + 1. */
  if (SK_CHECK(sk_lda_read_ldac(DATA "ldac_good.txt", NULL, &c, &err) == 0, "%s", err.message))
    check_corpus(&c, 3, 5, tokens, NULL);
  sk_lda_corpus_free(&c);
  /* LDA-C has no W: the vocabulary sets V, and words no document uses are fine. */
  {
    static const char *const long_vocab[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"};
    if (SK_CHECK(sk_lda_read_ldac(DATA "ldac_good.txt", DATA "vocab_long.txt", &c, &err) == 0, "%s", err.message))
      check_corpus(&c, 3, 6, tokens, long_vocab);
    sk_lda_corpus_free(&c);
  }
}

static void test_text_good(void) {
  /* text_good.txt tokenizes to: the cat sat the mat the cat hat | (empty) | and dog |
     dog cat dog cat caf hat; stop words the, and. Counts: cat 4, dog 3, hat 2, caf 1, mat 1, sat 1. */
  static const char *const v0[] = {"caf", "cat", "dog", "hat", "mat", "sat"};
  static const int t0[] = {5, 1, 5, 4, 1, 3, /**/ 1, 2, /**/ 6, 2, 1, 2, 1, 0, 3};
  static const char *const v1[] = {"cat", "dog", "hat"};
  static const int t1[] = {3, 0, 0, 2, /**/ 1, 1, /**/ 5, 1, 0, 1, 0, 2};
  static const char *const v2[] = {"cat", "dog"};
  static const int t2[] = {2, 0, 0, /**/ 1, 1, /**/ 4, 1, 0, 1, 0};
  static const char *const v3[] = {"cat"};
  static const int t3[] = {2, 0, 0, /**/ 2, 0, 0}; /* the "and dog" line is left empty and dropped */
  static const char *const vn[] = {"and", "caf", "cat", "dog", "hat", "mat", "sat", "the"};
  static const int tn[] = {8, 7, 2, 6, 7, 5, 7, 2, 4, /**/ 2, 0, 3, /**/ 6, 3, 2, 3, 2, 1, 4};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  struct {
    int64_t min_count;
    int32_t docs, words;
    const int *tokens;
    const char *const *vocab;
  } cases[] = {{0, 3, 6, t0, v0}, {1, 3, 3, t1, v1}, {2, 3, 2, t2, v2}, {3, 2, 1, t3, v3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    sk_test_context("text good, min_count %lld", (long long)cases[i].min_count);
    if (SK_CHECK(sk_lda_read_text(DATA "text_good.txt", DATA "text_stop.txt", cases[i].min_count, &c, &err) == 0,
                 "%s", err.message))
      check_corpus(&c, cases[i].docs, cases[i].words, cases[i].tokens, cases[i].vocab);
    sk_lda_corpus_free(&c);
  }
  sk_test_context("text good, no stop words");
  if (SK_CHECK(sk_lda_read_text(DATA "text_good.txt", NULL, 0, &c, &err) == 0, "%s", err.message))
    check_corpus(&c, 3, 8, tn, vn);
  sk_lda_corpus_free(&c);
}

enum reader { UCI, LDAC, TEXT };

typedef struct bad_case {
  enum reader reader;
  const char *file;  /* in tests/lda/data */
  const char *vocab; /* vocabulary or stop words, or NULL */
  const char *where; /* must appear in the message: "name:line:" */
  const char *what;  /* and this */
} bad_case;

static const bad_case bad_cases[] = {
    {UCI, "uci_empty.txt", NULL, "uci_empty.txt:1:", "missing header line 1"},
    {UCI, "uci_bad_header.txt", NULL, "uci_bad_header.txt:2:", "not a number"},
    {UCI, "uci_header_trailing.txt", NULL, "uci_header_trailing.txt:1:", "trailing text"},
    {UCI, "uci_missing_nnz.txt", NULL, "uci_missing_nnz.txt:3:", "missing header line 3"},
    {UCI, "uci_zero_docs.txt", NULL, "uci_zero_docs.txt:1:", "empty"},
    {UCI, "uci_zero_words.txt", NULL, "uci_zero_words.txt:2:", "empty"},
    {UCI, "uci_zero_nnz.txt", NULL, "uci_zero_nnz.txt:3:", "empty"},
    {UCI, "uci_fewer_lines.txt", NULL, "uci_fewer_lines.txt:5:", "ends after 2 entry lines, but NNZ = 3"},
    {UCI, "uci_more_lines.txt", NULL, "uci_more_lines.txt:6:", "more entry lines than NNZ = 2"},
    {UCI, "uci_doc_range.txt", NULL, "uci_doc_range.txt:5:", "docID '5' is out of range 1..4"},
    {UCI, "uci_word_range.txt", NULL, "uci_word_range.txt:5:", "wordID '6' is out of range 1..5"},
    {UCI, "uci_zero_doc.txt", NULL, "uci_zero_doc.txt:4:", "docID '0' is out of range"},
    {UCI, "uci_zero_word.txt", NULL, "uci_zero_word.txt:4:", "wordID '0' is out of range"},
    {UCI, "uci_zero_count.txt", NULL, "uci_zero_count.txt:5:", "count '0' is out of range 1..2147483647"},
    {UCI, "uci_negative_count.txt", NULL, "uci_negative_count.txt:5:", "count '-2' is negative"},
    {UCI, "uci_big_count.txt", NULL, "uci_big_count.txt:5:", "count '2147483648' is out of range"},
    {UCI, "uci_overflow_count.txt", NULL, "uci_overflow_count.txt:5:", "out of range"},
    {UCI, "uci_non_numeric.txt", NULL, "uci_non_numeric.txt:5:", "wordID 'x' is not a number"},
    {UCI, "uci_decimal.txt", NULL, "uci_decimal.txt:5:", "count '2.5' is not a number"},
    {UCI, "uci_nul.txt", NULL, "uci_nul.txt:5:", "not a number"},
    {UCI, "uci_trailing.txt", NULL, "uci_trailing.txt:5:", "trailing text 'junk'"},
    {UCI, "uci_missing_field.txt", NULL, "uci_missing_field.txt:5:", "missing count"},
    {UCI, "uci_blank_line.txt", NULL, "uci_blank_line.txt:5:", "missing docID"},
    {UCI, "uci_unsorted_doc.txt", NULL, "uci_unsorted_doc.txt:6:", "must be sorted"},
    {UCI, "uci_unsorted_word.txt", NULL, "uci_unsorted_word.txt:6:", "must be sorted"},
    {UCI, "uci_duplicate.txt", NULL, "uci_duplicate.txt:6:", "duplicate pair (docID 1, wordID 3), already on line 5"},
    {UCI, "uci_good.txt", "vocab_short.txt", "vocab_short.txt:3:", "only 3 lines, fewer than the 5 words"},
    {UCI, "uci_good.txt", "vocab_long.txt", "vocab_long.txt:6:", "has 6 words, more than the 5 words of W on"},
    {UCI, "uci_good.txt", "vocab_blank.txt", "vocab_blank.txt:3:", "empty line"},
    {UCI, "uci_good.txt", "vocab_empty.txt", "vocab_empty.txt:1:", "only 0 lines"},
    {UCI, "no_such_file.txt", NULL, "no_such_file.txt:", "cannot open"},
    {UCI, "uci_good.txt", "no_such_vocab.txt", "no_such_vocab.txt:", "cannot open"},
    {LDAC, "ldac_fewer_pairs.txt", NULL, "ldac_fewer_pairs.txt:1:", "N = 3 but the line has 2 pairs"},
    {LDAC, "ldac_more_pairs.txt", NULL, "ldac_more_pairs.txt:2:", "more than N = 1 pairs: '1:1'"},
    {LDAC, "ldac_bad_pair.txt", NULL, "ldac_bad_pair.txt:2:", "not \"id:count\""},
    {LDAC, "ldac_id_range.txt", "vocab_good.txt", "ldac_id_range.txt:2:", "word id '5' is out of range 0..4"},
    {LDAC, "ldac_negative_id.txt", NULL, "ldac_negative_id.txt:2:", "word id '-1' is negative"},
    {LDAC, "ldac_zero_count.txt", NULL, "ldac_zero_count.txt:2:", "count '0' is out of range"},
    {LDAC, "ldac_big_count.txt", NULL, "ldac_big_count.txt:2:", "count '2147483648' is out of range"},
    {LDAC, "ldac_non_numeric.txt", NULL, "ldac_non_numeric.txt:2:", "'x' is not a number"},
    {LDAC, "ldac_non_numeric_id.txt", NULL, "ldac_non_numeric_id.txt:2:", "word id 'a' is not a number"},
    {LDAC, "ldac_trailing.txt", NULL, "ldac_trailing.txt:2:", "more than N = 1 pairs: 'junk'"},
    {LDAC, "ldac_duplicate.txt", NULL, "ldac_duplicate.txt:2:", "word id 1 appears twice"},
    {LDAC, "ldac_blank_line.txt", NULL, "ldac_blank_line.txt:2:", "empty line"},
    {LDAC, "ldac_no_tokens.txt", NULL, "ldac_no_tokens.txt:2:", "empty"},
    {LDAC, "ldac_empty.txt", NULL, "ldac_empty.txt:1:", "empty"},
    {LDAC, "ldac_good.txt", "vocab_empty.txt", "vocab_empty.txt:1:", "empty"},
    {LDAC, "no_such_file.txt", NULL, "no_such_file.txt:", "cannot open"},
    {TEXT, "text_no_tokens.txt", NULL, "text_no_tokens.txt:2:", "empty"},
    {TEXT, "text_good.txt", "no_such_stop.txt", "no_such_stop.txt:", "cannot open"},
    {TEXT, "no_such_file.txt", NULL, "no_such_file.txt:", "cannot open"},
};

static void test_bad_files(void) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; ++i) {
    const bad_case *b = &bad_cases[i];
    char path[1024], vocab[1024];
    sk_lda_corpus c;
    sk_ex_error err = {""};
    int rc;
    snprintf(path, sizeof path, DATA "%s", b->file);
    if (b->vocab != NULL) snprintf(vocab, sizeof vocab, DATA "%s", b->vocab);
    sk_test_context("bad input %s (+ %s)", b->file, b->vocab ? b->vocab : "-");
    memset(&c, 0xab, sizeof c); /* the reader must not read or free what *out held */
    rc = b->reader == UCI    ? sk_lda_read_uci(path, b->vocab ? vocab : NULL, &c, &err)
         : b->reader == LDAC ? sk_lda_read_ldac(path, b->vocab ? vocab : NULL, &c, &err)
                             : sk_lda_read_text(path, b->vocab ? vocab : NULL, 0, &c, &err);
    SK_CHECK(rc != 0, "reading succeeded");
    SK_CHECK(corpus_is_empty(&c), "*out is not left empty");
    SK_CHECK(strstr(err.message, b->where) != NULL, "message \"%s\" does not name \"%s\"", err.message, b->where);
    SK_CHECK(strstr(err.message, b->what) != NULL, "message \"%s\" does not say \"%s\"", err.message, b->what);
    if (rc != 0 && i < 3) printf("example message: %s\n", err.message);
    if (rc == 0) sk_lda_corpus_free(&c);
  }
  {
    sk_lda_corpus c;
    sk_ex_error err = {""};
    sk_test_context("text min_count < 0");
    SK_CHECK(sk_lda_read_text(DATA "text_good.txt", NULL, -1, &c, &err) != 0 && corpus_is_empty(&c) &&
                 strstr(err.message, "min_count") != NULL,
             "%s", err.message);
  }
}

/* Limits: a header or a count may not make the reader allocate more than the caller allows. */
static void test_limits(void) {
  static const char big_d[] = "2000000000\n5\n1\n1 1 1\n";
  static const char big_count[] = "2\n5\n2\n1 1 2147483647\n2 1 2147483647\n";
  static const char ldac_big[] = "1 0:2147483647\n1 1:2147483647\n";
  const sk_lda_read_limits limits = {1000, 1 << 20, 0, 0};
  sk_lda_buffer b = {"mem.txt", big_d, sizeof big_d - 1};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  sk_test_context("limits");
  SK_CHECK(sk_lda_parse_uci(&b, NULL, &limits, &c, &err) != 0 && strstr(err.message, "mem.txt:1:") != NULL,
           "D over the limit: %s", err.message);
  b.data = big_count;
  b.size = sizeof big_count - 1;
  SK_CHECK(sk_lda_parse_uci(&b, NULL, &limits, &c, &err) != 0 && strstr(err.message, "mem.txt:4:") != NULL &&
               strstr(err.message, "tokens") != NULL,
           "tokens over the limit: %s", err.message);
  b.data = ldac_big;
  b.size = sizeof ldac_big - 1;
  SK_CHECK(sk_lda_parse_ldac(&b, NULL, &limits, &c, &err) != 0 && strstr(err.message, "mem.txt:1:") != NULL &&
               strstr(err.message, "tokens") != NULL,
           "LDA-C tokens over the limit: %s", err.message);
  SK_CHECK(corpus_is_empty(&c), "*out not empty");
}

/* The vocabulary's length against W (UCI) and V (LDA-C), from memory, with exact messages. */
static void test_vocab_length(void) {
  static const char doc[] = "4\n5\n5\n1 2 2\n1 5 1\n3 1 1\n3 4 3\n4 2 1\n";
  static const char ldac[] = "3 1:1 2:2 4:1\n0\n";
  static const int ldac_tokens[] = {4, 1, 2, 2, 4, /**/ 0};
  /* Exactly W = 5 words: accepted whatever blank lines follow the last word. */
  static const char *const exact[] = {
      "alpha\nbeta\ngamma\ndelta\nepsilon",
      "alpha\nbeta\ngamma\ndelta\nepsilon\n",
      "alpha\r\nbeta\r\ngamma\r\ndelta\r\nepsilon\r\n",
      "alpha\nbeta\ngamma\ndelta\nepsilon\n\n\n",
      "alpha\nbeta\ngamma\ndelta\nepsilon\n  \n\t\r\n\n",
  };
  static const struct {
    const char *vocab, *message;
  } wrong[] = {
      {"alpha\nbeta\ngamma\ndelta\nepsilon\nzeta",
       "memv:6: the vocabulary has 6 words, more than the 5 words of W on mem:2 (if the lines after line 5 are not words of this corpus, keep the first 5: head -n 5)"},
      {"alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n\n",
       "memv:6: the vocabulary has 6 words, more than the 5 words of W on mem:2 (if the lines after line 5 are not words of this corpus, keep the first 5: head -n 5)"},
      {"alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n",
       "memv:6: the vocabulary has 8 words, more than the 5 words of W on mem:2 (if the lines after line 5 are not words of this corpus, keep the first 5: head -n 5)"},
      /* A word after blank lines past W still makes the vocabulary longer; the line named is the word's. */
      {"alpha\nbeta\ngamma\ndelta\nepsilon\n\n\nzeta\n",
       "memv:8: the vocabulary has 6 words, more than the 5 words of W on mem:2 (if the lines after line 5 are not words of this corpus, keep the first 5: head -n 5)"},
      {"alpha\nbeta\n\n\n", "memv:4: the vocabulary has only 2 lines, fewer than the 5 words of W on mem:2"},
      {"alpha\nbeta\ngamma\ndelta\n", "memv:4: the vocabulary has only 4 lines, fewer than the 5 words of W on mem:2"},
  };
  const sk_lda_buffer d = {"mem", doc, sizeof doc - 1}, l = {"meml", ldac, sizeof ldac - 1};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; ++i) {
    const sk_lda_buffer v = {"memv", exact[i], strlen(exact[i])};
    sk_test_context("vocabulary of exactly W words, case %d", (int)i);
    if (SK_CHECK(sk_lda_parse_uci(&d, &v, NULL, &c, &err) == 0, "%s", err.message))
      check_uci_good(&c, good_vocab);
    sk_lda_corpus_free(&c);
    /* LDA-C: the same five words make V = 5; trailing blank lines are not words. */
    if (SK_CHECK(sk_lda_parse_ldac(&l, &v, NULL, &c, &err) == 0, "%s", err.message))
      check_corpus(&c, 2, 5, ldac_tokens, good_vocab);
    sk_lda_corpus_free(&c);
  }
  for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; ++i) {
    const sk_lda_buffer v = {"memv", wrong[i].vocab, strlen(wrong[i].vocab)};
    sk_test_context("vocabulary of the wrong length, case %d", (int)i);
    memset(&c, 0xab, sizeof c);
    SK_CHECK(sk_lda_parse_uci(&d, &v, NULL, &c, &err) != 0, "reading succeeded");
    SK_CHECK(corpus_is_empty(&c), "*out is not left empty");
    SK_CHECK(strcmp(err.message, wrong[i].message) == 0, "message \"%s\", expected \"%s\"", err.message,
             wrong[i].message);
    if (i == 0) printf("example message: %s\n", err.message);
  }
  {
    /* LDA-C: a longer vocabulary is accepted (V = its words), a shorter one fails on the first id >= V. */
    static const char *const six[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"};
    const sk_lda_buffer v6 = {"memv", wrong[1].vocab, strlen(wrong[1].vocab)};
    const sk_lda_buffer v2 = {"memv", wrong[4].vocab, strlen(wrong[4].vocab)};
    sk_test_context("LDA-C vocabulary length");
    if (SK_CHECK(sk_lda_parse_ldac(&l, &v6, NULL, &c, &err) == 0, "%s", err.message))
      check_corpus(&c, 2, 6, ldac_tokens, six);
    sk_lda_corpus_free(&c);
    SK_CHECK(sk_lda_parse_ldac(&l, &v2, NULL, &c, &err) != 0 && corpus_is_empty(&c) &&
                 strcmp(err.message, "meml:1: word id '2' is out of range 0..1 (the vocabulary memv has 2 words)") == 0,
             "%s", err.message);
  }
}

/* A vocabulary with a word twice is refused (UCI, LDA-C, from memory and from a file), naming the
   vocabulary, the line of the repeat and the line of the first occurrence. */
static void test_vocab_repeated(void) {
  static const char doc[] = "4\n5\n5\n1 2 2\n1 5 1\n3 1 1\n3 4 3\n4 2 1\n";
  static const char ldac[] = "3 1:1 2:2 4:1\n0\n";
  static const struct {
    const char *vocab, *message;
  } cases[] = {
      {"alpha\nbeta\ngamma\nalpha\nepsilon\n", "memv:4: word 'alpha' is already on line 1 (each word may appear once)"},
      {"alpha\r\nbeta\r\ngamma\r\ndelta\r\ngamma\r\n\n",
       "memv:5: word 'gamma' is already on line 3 (each word may appear once)"},
      /* Two repeats: the first in file order is named. */
      {"alpha\nbeta\nbeta\nalpha\nepsilon", "memv:3: word 'beta' is already on line 2 (each word may appear once)"},
  };
  const sk_lda_buffer d = {"mem", doc, sizeof doc - 1}, l = {"meml", ldac, sizeof ldac - 1};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const sk_lda_buffer v = {"memv", cases[i].vocab, strlen(cases[i].vocab)};
    sk_test_context("vocabulary with a repeated word, case %d", (int)i);
    memset(&c, 0xab, sizeof c);
    SK_CHECK(sk_lda_parse_uci(&d, &v, NULL, &c, &err) != 0, "UCI: reading succeeded");
    SK_CHECK(corpus_is_empty(&c), "UCI: *out is not left empty");
    SK_CHECK(strcmp(err.message, cases[i].message) == 0, "UCI: message \"%s\", expected \"%s\"", err.message,
             cases[i].message);
    if (i == 0) printf("example message: %s\n", err.message);
    memset(&c, 0xab, sizeof c);
    SK_CHECK(sk_lda_parse_ldac(&l, &v, NULL, &c, &err) != 0, "LDA-C: reading succeeded");
    SK_CHECK(corpus_is_empty(&c), "LDA-C: *out is not left empty");
    SK_CHECK(strcmp(err.message, cases[i].message) == 0, "LDA-C: message \"%s\", expected \"%s\"", err.message,
             cases[i].message);
  }
  {
    /* The count is checked first: a repeat in a vocabulary of the wrong length gives the length's error. */
    static const char six[] = "alpha\nbeta\ngamma\nalpha\nepsilon\nzeta\n";
    const sk_lda_buffer v = {"memv", six, sizeof six - 1};
    sk_test_context("vocabulary with a repeated word and too many words");
    SK_CHECK(sk_lda_parse_uci(&d, &v, NULL, &c, &err) != 0 && corpus_is_empty(&c) &&
                 strstr(err.message, "memv:6: the vocabulary has 6 words, more than the 5 words") != NULL,
             "%s", err.message);
  }
  {
    /* Words differ byte for byte: case and inner spaces make distinct words. */
    static const char distinct[] = "alpha\nAlpha\nal pha\nALPHA\nalpha2\n";
    const sk_lda_buffer v = {"memv", distinct, sizeof distinct - 1};
    sk_test_context("vocabulary of distinct spellings");
    if (SK_CHECK(sk_lda_parse_uci(&d, &v, NULL, &c, &err) == 0, "%s", err.message))
      SK_CHECK(c.num_words == 5 && strcmp(c.vocab[2], "al pha") == 0, "vocabulary read wrong");
    sk_lda_corpus_free(&c);
  }
  {
    /* From files: the path of --vocab is named, as sk-lda prints it (exit 2). */
    char dir[] = "/tmp/sk_test_corpus_vocab_XXXXXX", path[256], expected[512];
    FILE *f;
    sk_test_context("vocabulary file with a repeated word");
    if (!SK_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed")) return;
    snprintf(path, sizeof path, "%s/vocab.dup.txt", dir);
    f = fopen(path, "wb");
    if (SK_CHECK(f != NULL, "cannot write %s", path)) {
      fputs("alpha\nbeta\ngamma\ndelta\nalpha\n", f);
      fclose(f);
      snprintf(expected, sizeof expected, "%s:5: word 'alpha' is already on line 1 (each word may appear once)",
               path);
      memset(&c, 0xab, sizeof c);
      SK_CHECK(sk_lda_read_uci(DATA "uci_good.txt", path, &c, &err) != 0 && corpus_is_empty(&c) &&
                   strcmp(err.message, expected) == 0,
               "UCI: message \"%s\", expected \"%s\"", err.message, expected);
      memset(&c, 0xab, sizeof c);
      SK_CHECK(sk_lda_read_ldac(DATA "ldac_good.txt", path, &c, &err) != 0 && corpus_is_empty(&c) &&
                   strcmp(err.message, expected) == 0,
               "LDA-C: message \"%s\", expected \"%s\"", err.message, expected);
    }
    unlink(path);
    rmdir(dir);
  }
}

/* Memory parsing gives what file reading gives. */
static void test_memory(void) {
  static const char doc[] = "4\n5\n5\n1 2 2\n1 5 1\n3 1 1\n3 4 3\n4 2 1";
  static const char voc[] = "alpha\nbeta\ngamma\ndelta\nepsilon";
  const sk_lda_buffer d = {"mem", doc, sizeof doc - 1}, v = {"memv", voc, sizeof voc - 1};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  sk_test_context("memory, no final newline");
  if (SK_CHECK(sk_lda_parse_uci(&d, &v, NULL, &c, &err) == 0, "%s", err.message))
    check_uci_good(&c, good_vocab);
  sk_lda_corpus_free(&c);
}

static int write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return 1;
  const size_t n = fwrite(data, 1, size, f);
  return (fclose(f) != 0 || n != size) ? 1 : 0;
}

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf;
  long n;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

/* gzip: a .gz written here reads the same as the plain file; a truncated or corrupt copy is an error. */
static void test_gzip(void) {
  char dir[] = "/tmp/sk_test_corpus_XXXXXX";
  char gz_path[256], cut_path[256], bad_path[256];
  unsigned char *plain, *packed;
  size_t plain_size, packed_size;
  sk_lda_corpus c;
  sk_ex_error err = {""};
  gzFile gz;
  sk_test_context("gzip");
  if (!SK_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed")) return;
  snprintf(gz_path, sizeof gz_path, "%s/docword.t.txt.gz", dir);
  snprintf(cut_path, sizeof cut_path, "%s/docword.cut.txt.gz", dir);
  snprintf(bad_path, sizeof bad_path, "%s/docword.bad.txt.gz", dir);
  plain = read_file(DATA "uci_good.txt", &plain_size);
  if (!SK_CHECK(plain != NULL, "cannot read uci_good.txt")) return;
  gz = gzopen(gz_path, "wb9");
  SK_CHECK(gz != NULL && gzwrite(gz, plain, (unsigned)plain_size) == (int)plain_size && gzclose(gz) == Z_OK,
           "cannot write %s", gz_path);
  if (SK_CHECK(sk_lda_read_uci(gz_path, DATA "vocab_good.txt", &c, &err) == 0, "%s", err.message))
    check_uci_good(&c, good_vocab);
  sk_lda_corpus_free(&c);

  packed = read_file(gz_path, &packed_size);
  if (SK_CHECK(packed != NULL && packed_size > 20, "cannot read back %s", gz_path)) {
    /* Truncated: the deflate stream stops half-way. */
    SK_CHECK(write_file(cut_path, packed, packed_size / 2) == 0, "cannot write %s", cut_path);
    SK_CHECK(sk_lda_read_uci(cut_path, NULL, &c, &err) != 0 && corpus_is_empty(&c) &&
                 strstr(err.message, "docword.cut.txt.gz:") != NULL && strstr(err.message, "gzip") != NULL,
             "truncated gzip: \"%s\"", err.message);
    printf("example message: %s\n", err.message);
    /* Corrupt: the CRC-32 in the trailer (8 bytes from the end) no longer matches. */
    packed[packed_size - 8] ^= 0x5a;
    SK_CHECK(write_file(bad_path, packed, packed_size) == 0, "cannot write %s", bad_path);
    SK_CHECK(sk_lda_read_uci(bad_path, NULL, &c, &err) != 0 && corpus_is_empty(&c) &&
                 strstr(err.message, "docword.bad.txt.gz:") != NULL && strstr(err.message, "gzip") != NULL,
             "corrupt gzip: \"%s\"", err.message);
    printf("example message: %s\n", err.message);
    /* Corrupt inside the deflate data. */
    packed[packed_size - 8] ^= 0x5a;
    packed[12] ^= 0xff;
    packed[13] ^= 0xff;
    SK_CHECK(write_file(bad_path, packed, packed_size) == 0, "cannot write %s", bad_path);
    SK_CHECK(sk_lda_read_uci(bad_path, NULL, &c, &err) != 0 && corpus_is_empty(&c) &&
                 strstr(err.message, "docword.bad.txt.gz:") != NULL,
             "corrupt deflate data: \"%s\"", err.message);
  }
  free(plain);
  free(packed);
  unlink(gz_path);
  unlink(cut_path);
  unlink(bad_path);
  rmdir(dir);
}

/* One gzip member holding [data, data + n), appended to *out (size *out_size, capacity *out_cap). 0 on
   success. level 0 gives stored blocks, so that the compressed bytes are as many as the plain ones. */
static int gzip_member(const void *data, size_t n, int level, unsigned char **out, size_t *out_size,
                       size_t *out_cap) {
  z_stream z;
  int r;
  const size_t bound = n + n / 100 + 1024;
  if (*out_size + bound > *out_cap) {
    unsigned char *grown = realloc(*out, *out_size + bound);
    if (grown == NULL) return 1;
    *out = grown;
    *out_cap = *out_size + bound;
  }
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 1;
  z.next_in = (Bytef *)(uintptr_t)data;
  z.avail_in = (uInt)n;
  z.next_out = *out + *out_size;
  z.avail_out = (uInt)(*out_cap - *out_size);
  r = deflate(&z, Z_FINISH);
  *out_size = *out_cap - z.avail_out;
  deflateEnd(&z);
  return r == Z_STREAM_END ? 0 : 1;
}

/* Reads path as UCI (with vocab, may be NULL); must fail with a message holding `part1` and `part2`. */
static void expect_uci_error(const char *what, const char *path, const char *vocab, const char *part1,
                             const char *part2, int show) {
  sk_lda_corpus c;
  sk_ex_error err = {""};
  int rc;
  sk_test_context("gzip: %s", what);
  memset(&c, 0xab, sizeof c);
  rc = sk_lda_read_uci(path, vocab, &c, &err);
  SK_CHECK(rc != 0, "reading succeeded");
  SK_CHECK(corpus_is_empty(&c), "*out is not left empty");
  SK_CHECK(strstr(err.message, part1) != NULL, "message \"%s\" lacks \"%s\"", err.message, part1);
  SK_CHECK(part2 == NULL || strstr(err.message, part2) != NULL, "message \"%s\" lacks \"%s\"", err.message, part2);
  if (rc != 0 && show) printf("example message: %s\n", err.message);
  if (rc == 0) sk_lda_corpus_free(&c);
}

/* gzip members and what follows the last one: concatenated members are one gzip file and read whole
   (members ending mid-line, an empty member, boundaries anywhere in the reader's buffers); any other byte
   after the last member is refused, naming the file and the offset where the gzip data ends. */
static void test_gzip_members(void) {
  char dir[] = "/tmp/sk_test_corpus_gzm_XXXXXX";
  char path[256], vocab[256], want[512];
  unsigned char *plain = NULL, *packed = NULL;
  size_t plain_size = 0, packed_size = 0, packed_cap = 0;
  sk_lda_corpus c;
  sk_ex_error err = {""};
  sk_test_context("gzip members");
  if (!SK_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed")) return;
  snprintf(path, sizeof path, "%s/docword.m.txt.gz", dir);
  snprintf(vocab, sizeof vocab, "%s/vocab.m.txt.gz", dir);
  plain = read_file(DATA "uci_good.txt", &plain_size);
  if (!SK_CHECK(plain != NULL && plain_size > 10, "cannot read uci_good.txt")) goto done;

  /* Two members, split in the middle of a line. */
  {
    const size_t half = plain_size / 2 + 1;
    SK_CHECK(gzip_member(plain, half, 9, &packed, &packed_size, &packed_cap) == 0 &&
                 gzip_member(plain + half, plain_size - half, 9, &packed, &packed_size, &packed_cap) == 0 &&
                 write_file(path, packed, packed_size) == 0,
             "cannot write %s", path);
    sk_test_context("gzip: two members");
    if (SK_CHECK(sk_lda_read_uci(path, DATA "vocab_good.txt", &c, &err) == 0, "%s", err.message))
      check_uci_good(&c, good_vocab);
    sk_lda_corpus_free(&c);
  }
  /* Three members, the middle one empty, each a byte or a few. */
  {
    size_t three = 0;
    packed_size = 0;
    SK_CHECK(gzip_member(plain, 3, 1, &packed, &packed_size, &packed_cap) == 0 &&
                 gzip_member(plain, 0, 6, &packed, &packed_size, &packed_cap) == 0 &&
                 gzip_member(plain + 3, plain_size - 3, 0, &packed, &packed_size, &packed_cap) == 0 &&
                 write_file(path, packed, packed_size) == 0,
             "cannot write %s", path);
    three = packed_size;
    sk_test_context("gzip: three members, one empty");
    if (SK_CHECK(sk_lda_read_uci(path, DATA "vocab_good.txt", &c, &err) == 0, "%s", err.message))
      check_uci_good(&c, good_vocab);
    sk_lda_corpus_free(&c);

    /* Trailing garbage of several kinds after the last member. */
    {
      static const struct {
        const char *what;
        const char *bytes;
        size_t n;
      } tails[] = {
          {"text after the gzip data", "garbage\n", 8},
          {"one byte after the gzip data", "x", 1},
          {"half a gzip magic after the gzip data", "\x1f", 1},
          {"zero bytes after the gzip data", "\0\0\0\0\0\0\0\0", 8},
          {"a data line after the gzip data", "4 3 1\n", 6},
      };
      for (size_t i = 0; i < sizeof tails / sizeof tails[0]; ++i) {
        packed_size = three;
        if (packed_cap < three + tails[i].n) break;
        memcpy(packed + three, tails[i].bytes, tails[i].n);
        packed_size += tails[i].n;
        if (!SK_CHECK(write_file(path, packed, packed_size) == 0, "cannot write %s", path)) continue;
        snprintf(want, sizeof want,
                 "%s: trailing garbage after the gzip data: the bytes from offset %zu on are not a gzip member", path,
                 three);
        expect_uci_error(tails[i].what, path, NULL, want, NULL, i == 0);
      }
    }
    /* What starts like a member but is not one: corrupt gzip data, not a second member. */
    {
      static const unsigned char bogus[] = {0x1f, 0x8b, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03};
      packed_size = three;
      memcpy(packed + three, bogus, sizeof bogus);
      packed_size += sizeof bogus;
      SK_CHECK(write_file(path, packed, packed_size) == 0, "cannot write %s", path);
      snprintf(want, sizeof want, "%s:", path);
      expect_uci_error("a bogus member after the gzip data", path, NULL, want, "gzip data", 1);
    }
  }
  /* The vocabulary is read the same way: garbage after its gzip data is refused, naming it. */
  {
    static const char words[] = "alpha\nbeta\ngamma\ndelta\nepsilon\n";
    packed_size = 0;
    SK_CHECK(gzip_member(words, sizeof words - 1, 9, &packed, &packed_size, &packed_cap) == 0 &&
                 write_file(vocab, packed, packed_size) == 0,
             "cannot write %s", vocab);
    sk_test_context("gzip: vocabulary");
    if (SK_CHECK(sk_lda_read_uci(DATA "uci_good.txt", vocab, &c, &err) == 0, "%s", err.message))
      check_uci_good(&c, good_vocab);
    sk_lda_corpus_free(&c);
    SK_CHECK(packed_cap >= packed_size + 4, "buffer");
    if (packed_cap >= packed_size + 4) {
      const size_t end = packed_size;
      memcpy(packed + packed_size, "zeta", 4);
      packed_size += 4;
      SK_CHECK(write_file(vocab, packed, packed_size) == 0, "cannot write %s", vocab);
      snprintf(want, sizeof want, "%s: trailing garbage after the gzip data: the bytes from offset %zu on", vocab,
               end);
      expect_uci_error("vocabulary with trailing garbage", DATA "uci_good.txt", vocab, want, NULL, 0);
    }
  }
  /* A large file: 200000 entry lines (about 2.4 MB) in stored members of uneven sizes, so that member
     boundaries and the garbage fall at arbitrary places in the reader's input and output buffers. */
  {
    const int nnz = 200000;
    char *big = malloc((size_t)nnz * 16 + 64);
    size_t n = 0, cuts[4], at = 0, members_end;
    if (!SK_CHECK(big != NULL, "out of memory")) goto done;
    n += (size_t)sprintf(big + n, "1\n%d\n%d\n", nnz, nnz);
    for (int w = 1; w <= nnz; ++w) n += (size_t)sprintf(big + n, "1 %d 1\n", w);
    cuts[0] = 300007;
    cuts[1] = 300007 + 262144 + 17;
    cuts[2] = n - 1234567;
    cuts[3] = n;
    packed_size = 0;
    for (int m = 0; m < 4; ++m) {
      SK_CHECK(gzip_member(big + at, cuts[m] - at, m == 3 ? 6 : 0, &packed, &packed_size, &packed_cap) == 0,
               "cannot compress member %d", m);
      at = cuts[m];
    }
    members_end = packed_size;
    SK_CHECK(write_file(path, packed, packed_size) == 0, "cannot write %s", path);
    sk_test_context("gzip: large, four members");
    if (SK_CHECK(sk_lda_read_uci(path, NULL, &c, &err) == 0, "%s", err.message)) {
      int ok = c.num_docs == 1 && c.num_words == nnz && c.num_tokens == nnz;
      for (int t = 0; ok && t < nnz; ++t) ok = c.tokens[t] == t;
      SK_CHECK(ok, "the large corpus reads back wrong (D %d, W %d, T %lld)", (int)c.num_docs, (int)c.num_words,
               (long long)c.num_tokens);
    }
    sk_lda_corpus_free(&c);
    if (packed_cap >= packed_size + 3) {
      memcpy(packed + packed_size, "\n\n\n", 3);
      packed_size += 3;
      SK_CHECK(write_file(path, packed, packed_size) == 0, "cannot write %s", path);
      snprintf(want, sizeof want, "%s: trailing garbage after the gzip data: the bytes from offset %zu on", path,
               members_end);
      expect_uci_error("large, newlines after the gzip data", path, NULL, want, NULL, 0);
    }
    free(big);
  }
done:
  free(plain);
  free(packed);
  unlink(path);
  unlink(vocab);
  rmdir(dir);
}

/* Each input a fuzzer once failed on stays here as a regression test (data/fuzz/READER/). */
static void test_fuzz_regressions(void) {
  static const char *const readers[] = {"uci", "ldac", "text"};
  const sk_lda_read_limits limits = {1 << 16, 1 << 20, 0, 0};
  int files = 0;
  for (int r = 0; r < 3; ++r) {
    char dir_path[1024];
    DIR *dir;
    struct dirent *entry;
    snprintf(dir_path, sizeof dir_path, DATA "fuzz/%s", readers[r]);
    dir = opendir(dir_path);
    if (dir == NULL) continue;
    while ((entry = readdir(dir)) != NULL) {
      char path[2048];
      unsigned char *data;
      size_t size;
      sk_lda_corpus c;
      sk_ex_error err = {""};
      if (entry->d_name[0] == '.') continue;
      snprintf(path, sizeof path, "%s/%s", dir_path, entry->d_name);
      data = read_file(path, &size);
      sk_test_context("fuzz regression %s", path);
      if (!SK_CHECK(data != NULL, "cannot read")) continue;
      {
        /* The same split the fuzz target makes (examples/lda/fuzz/fuzz_check.h). */
        const char *marker = r == 2 ? "\n#stop\n" : "\n#vocab\n";
        const size_t m = strlen(marker);
        const char *base = (const char *)data + (r == 2 && size > 0 ? 1 : 0);
        const size_t n = size - (size_t)(base - (const char *)data);
        sk_lda_buffer a = {"fuzz-a", base, n}, b = {"fuzz-b", NULL, 0};
        int has_b = 0, rc;
        for (size_t i = 0; m <= n && i <= n - m; ++i)
          if (memcmp(base + i, marker, m) == 0) {
            a.size = i;
            b.data = base + i + m;
            b.size = n - i - m;
            has_b = 1;
            break;
          }
        rc = r == 0   ? sk_lda_parse_uci(&a, has_b ? &b : NULL, &limits, &c, &err)
             : r == 1 ? sk_lda_parse_ldac(&a, has_b ? &b : NULL, &limits, &c, &err)
                      : sk_lda_parse_text(&a, has_b ? &b : NULL, size > 0 ? data[0] & 3 : 0, &limits, &c, &err);
        SK_CHECK(rc == 0 ? c.doc_offsets[c.num_docs] == c.num_tokens : corpus_is_empty(&c), "bad result");
        sk_lda_corpus_free(&c);
      }
      free(data);
      ++files;
    }
    closedir(dir);
  }
  printf("fuzz regression inputs run: %d\n", files);
}

/* The corpora of ../shared/data, against the README's table. vocab_words is the number of words in
   vocab.NAME.txt: the original UCI vocab.kos.txt has 6907 ("temp" after the 6906 of W), so it is rejected
   with its docword file (a vocabulary must hold exactly W words); kos's docword is then checked alone. */
static void test_shared_corpora(void) {
  static const struct {
    const char *name;
    int32_t docs, words, vocab_words;
    int64_t nnz, tokens;
  } table[] = {{"kos", 3430, 6906, 6907, 353160, 467714},
               {"nips12", 1740, 13372, 13372, 1046248, 2607596},
               {"reuters21578", 20841, 9697, 9697, 1045313, 1568868},
               {"20news", 18846, 22091, 22091, 1854347, 2775528},
               {"imdb100k", 100000, 36509, 36509, 9427967, 11510358}};
  struct stat st;
  if (stat(SK_SHARED_DATA, &st) != 0) {
    printf("note: %s is missing; the real-corpus checks are skipped\n", SK_SHARED_DATA);
    return;
  }
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
    char doc[1024], voc[1024];
    sk_lda_corpus c;
    sk_ex_error err = {""};
    double t0, seconds, cpu0, cpu_seconds;
    int64_t nnz = 0;
    snprintf(doc, sizeof doc, "%s/%s/docword.%s.txt.gz", SK_SHARED_DATA, table[i].name, table[i].name);
    snprintf(voc, sizeof voc, "%s/%s/vocab.%s.txt", SK_SHARED_DATA, table[i].name, table[i].name);
    if (stat(doc, &st) != 0) {
      printf("note: %s is missing; skipped\n", doc);
      continue;
    }
    sk_test_context("shared corpus %s", table[i].name);
    if (table[i].vocab_words != table[i].words) {
      char expected[1200];
      snprintf(expected, sizeof expected, "the vocabulary has %d words, more than the %d words of W on %s:2",
               (int)table[i].vocab_words, (int)table[i].words, doc);
      SK_CHECK(sk_lda_read_uci(doc, voc, &c, &err) != 0 && corpus_is_empty(&c) && strstr(err.message, expected),
               "vocab.%s.txt should be rejected (\"%s\"), got: %s", table[i].name, expected,
               c.num_docs ? "success" : err.message);
      printf("NOTE: %s: its vocabulary is longer than W and is rejected: %s\n", table[i].name, err.message);
      voc[0] = '\0'; /* the docword file alone */
    }
    t0 = now_s();
    cpu0 = (double)clock() / CLOCKS_PER_SEC;
    if (!SK_CHECK(sk_lda_read_uci(doc, voc[0] ? voc : NULL, &c, &err) == 0, "%s", err.message)) continue;
    seconds = now_s() - t0;
    cpu_seconds = (double)clock() / CLOCKS_PER_SEC - cpu0;
    for (int32_t d = 0; d < c.num_docs; ++d)
      for (int64_t t = c.doc_offsets[d]; t < c.doc_offsets[d + 1]; ++t)
        nnz += t == c.doc_offsets[d] || c.tokens[t] != c.tokens[t - 1];
    SK_CHECK(c.num_docs == table[i].docs, "D = %d, expected %d", (int)c.num_docs, (int)table[i].docs);
    SK_CHECK(c.num_words == table[i].words, "W = %d, expected %d", (int)c.num_words, (int)table[i].words);
    SK_CHECK(nnz == table[i].nnz, "NNZ = %lld, expected %lld", (long long)nnz, (long long)table[i].nnz);
    SK_CHECK(c.num_tokens == table[i].tokens, "tokens = %lld, expected %lld", (long long)c.num_tokens,
             (long long)table[i].tokens);
    /* The issue asks for "well under 10 s" on one core for imdb100k; 10 s is the hard line here. */
    SK_CHECK(seconds < 10.0, "reading took %.2f s", seconds);
    printf("%s: D %d, W %d, NNZ %lld, tokens %lld, read in %.3f s wall, %.3f s CPU (%.1f M tokens/s)\n",
           table[i].name, (int)c.num_docs, (int)c.num_words, (long long)nnz, (long long)c.num_tokens, seconds,
           cpu_seconds, 1e-6 * (double)c.num_tokens / seconds);
    sk_lda_corpus_free(&c);
  }
}

/* Issue 31, case 9: a header that claims 2 x 10^9 documents of which three have words costs three
   documents; counts whose tokens would not fit the memory budget are refused at the line that crosses
   it, and an NNZ that cannot fit at header line 3, before anything large is taken. */
static void test_memory_plan(void) {
  static const char sparse[] = "2147483646\n5\n3\n1 1 2\n2 3 1\n2147483646 2 4\n";
  static const char huge_counts[] = "3\n5\n3\n1 1 2147483647\n2 1 2147483647\n3 1 2147483647\n";
  static const char huge_nnz[] = "3\n5\n1000000000\n1 1 1\n";
  static const char mixed[] = "3\n5\n3\n1 1 100000\n2 1 2147483647\n3 1 5\n";
  sk_lda_read_limits limits = {SK_LDA_READ_MAX_DOCS, SK_LDA_READ_MAX_TOKENS, 1u << 20, 0};
  sk_lda_buffer b = {"plan.txt", sparse, sizeof sparse - 1};
  sk_lda_corpus c;
  sk_ex_error err = {""};
  const double t0 = now_s();
  sk_test_context("memory plan");
  if (SK_CHECK(sk_lda_parse_uci(&b, NULL, &limits, &c, &err) == 0, "sparse header: %s", err.message)) {
    static const int tokens[] = {2, 0, 0, /**/ 1, 2, /**/ 4, 1, 1, 1, 1};
    check_corpus(&c, 3, 5, tokens, NULL);
    if (SK_CHECK(c.doc_ids != NULL, "doc_ids is NULL"))
      SK_CHECK(c.doc_ids[0] == 0 && c.doc_ids[1] == 1 && c.doc_ids[2] == 2147483645, "doc_ids %d %d %d",
               (int)c.doc_ids[0], (int)c.doc_ids[1], (int)c.doc_ids[2]);
    SK_CHECK(sk_lda_corpus_input_docs(&c) == 2147483646, "input documents %d", (int)sk_lda_corpus_input_docs(&c));
    SK_CHECK(sk_lda_corpus_input_doc(&c, 2) == 2147483645, "input doc of stored 2");
  }
  sk_lda_corpus_free(&c);
  SK_CHECK(now_s() - t0 < 1.0, "the sparse header took %.2f s (it must cost nothing per empty document)",
           now_s() - t0);
  b.data = huge_counts;
  b.size = sizeof huge_counts - 1;
  SK_CHECK(sk_lda_parse_uci(&b, NULL, &limits, &c, &err) != 0 && strstr(err.message, "plan.txt:4:") != NULL &&
               strstr(err.message, "of host memory") != NULL && strstr(err.message, "1.00 MiB available") != NULL,
           "counts over the budget: %s", err.message);
  SK_CHECK(corpus_is_empty(&c), "a refused corpus is left empty");
  b.data = mixed; /* the first count fits the budget, the second does not */
  b.size = sizeof mixed - 1;
  limits.max_bytes_from_env = 1;
  SK_CHECK(sk_lda_parse_uci(&b, NULL, &limits, &c, &err) != 0 && strstr(err.message, "plan.txt:5:") != NULL &&
               strstr(err.message, "2147583647 tokens") != NULL &&
               strstr(err.message, "SK_HOST_MEMORY allows 1.00 MiB") != NULL,
           "the line that crosses the budget: %s", err.message);
  limits.max_bytes = 1u << 20;
  b.data = huge_nnz;
  b.size = sizeof huge_nnz - 1;
  SK_CHECK(sk_lda_parse_uci(&b, NULL, &limits, &c, &err) != 0 && strstr(err.message, "plan.txt:3:") != NULL &&
               strstr(err.message, "3.73 GiB of host memory") != NULL,
           "NNZ over the budget: %s", err.message);
}

int main(void) {
  test_uci_good();
  test_ldac_good();
  test_text_good();
  test_bad_files();
  test_limits();
  test_memory_plan();
  test_vocab_length();
  test_vocab_repeated();
  test_memory();
  test_gzip();
  test_gzip_members();
  test_fuzz_regressions();
  test_shared_corpora();
  return sk_test_finish();
}
