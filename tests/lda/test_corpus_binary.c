/*
 * The binary corpus (examples/lda/src/corpus_binary.h): the bytes of a written file against the documented
 * layout (the CRC recomputed here with zlib), round trips through every entry point (sk_lda_read_binary,
 * sk_lda_parse_binary, and sk_lda_read_uci / sk_lda_read_ldac, which recognise the magic) with and without
 * a vocabulary, a corpus of several read blocks read with 1 and 3 threads, gen's pair of files, and one
 * case per malformed file (truncated, bad magic, version, reserved field, each header count out of range
 * or past the limits, trailing bytes, checksum, offsets, word ids, vocabulary too short, too long or with
 * a word twice): the read fails, *out stays zeroed and the message names the file and what is wrong.
 * Also the writer's refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "corpus_binary.h"
#include "corpus_read.h"
#include "gen.h"
#include "lda_test_corpus.h"
#include "sk_test.h"

static char dir[] = "/tmp/sk_test_corpus_binary_XXXXXX";

static int corpus_is_empty(const sk_lda_corpus *c) {
  return c->num_docs == 0 && c->num_words == 0 && c->num_tokens == 0 && c->doc_offsets == NULL &&
         c->tokens == NULL && c->vocab == NULL;
}

static int same_arrays(const sk_lda_corpus *a, const sk_lda_corpus *b) {
  return a->num_docs == b->num_docs && a->num_words == b->num_words && a->num_tokens == b->num_tokens &&
         memcmp(a->doc_offsets, b->doc_offsets, ((size_t)a->num_docs + 1) * sizeof(int64_t)) == 0 &&
         memcmp(a->tokens, b->tokens, (size_t)a->num_tokens * sizeof(int32_t)) == 0;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *b;
  long n;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = (unsigned char *)malloc((size_t)n + 1);
  *len = fread(b, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static void spit(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return;
  if (len > 0) fwrite(data, 1, len, f);
  fclose(f);
}

static uint64_t le64(const unsigned char *b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[i];
  return v;
}

static uint32_t le32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_le(unsigned char *b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[i] = (unsigned char)(v >> (8 * i));
}

/* Rewrites the last 4 bytes with the CRC of the rest, as a writer would. */
static void fix_crc(unsigned char *b, size_t len) {
  put_le(b + len - 4, (uint32_t)crc32(0L, b, (uInt)(len - 4)), 4);
}

/* A small corpus with an empty first and an empty middle document, and its vocabulary file. */
static sk_lda_corpus small_corpus(void) {
  static const int32_t len[5] = {0, 3, 0, 4, 2};
  static const int32_t words[9] = {2, 0, 2, 5, 1, 1, 4, 3, 0};
  return make_corpus(6, 5, len, words);
}

static void test_layout_and_round_trip(void) {
  char path[512], vocab[512], other[600];
  sk_lda_corpus c = small_corpus(), r;
  sk_ex_error err;
  size_t len;
  snprintf(path, sizeof path, "%s/small.bin", dir);
  snprintf(vocab, sizeof vocab, "%s/small.vocab.txt", dir);
  spit(vocab, "w0\nw1\nw2\nw3\nw4\nw5\n", 18);
  sk_test_context("layout");
  if (!SK_CHECK(sk_lda_write_binary(&c, path, &err) == 0, "%s", err.message)) return;
  snprintf(other, sizeof other, "%s.tmp", path);
  SK_CHECK(access(other, F_OK) != 0, "temporary file left behind");
  unsigned char *b = slurp(path, &len);
  if (SK_CHECK(b != NULL && len == 44 + 8 * 6 + 4 * 9, "file has %zu bytes, expected %d", len, 44 + 48 + 36)) {
    SK_CHECK(memcmp(b, "SKLDACRP", 8) == 0 && le64(b + 8) == 1 && le64(b + 16) == 5 && le64(b + 24) == 6 &&
                 le64(b + 32) == 9,
             "header fields");
    int ok = 1;
    for (int d = 0; d <= 5; ++d) ok &= le64(b + 40 + 8 * d) == (uint64_t)c.doc_offsets[d];
    for (int t = 0; t < 9; ++t) ok &= le32(b + 88 + 4 * t) == (uint32_t)c.tokens[t];
    SK_CHECK(ok, "offsets or word ids differ from the layout");
    SK_CHECK(le32(b + len - 4) == (uint32_t)crc32(0L, b, (uInt)(len - 4)), "CRC of the rest");
    SK_CHECK(sk_lda_is_binary_corpus(path), "the magic is not recognised");
  }
  free(b);
  SK_CHECK(!sk_lda_is_binary_corpus(vocab) && !sk_lda_is_binary_corpus("/nonexistent/x.bin"),
           "a text file or a missing one taken for a binary corpus");

  sk_test_context("round trip");
  for (int entry = 0; entry < 3; ++entry)
    for (int with_vocab = 0; with_vocab < 2; ++with_vocab) {
      const char *v = with_vocab ? vocab : NULL;
      const int rc = entry == 0   ? sk_lda_read_binary(path, v, &r, &err)
                     : entry == 1 ? sk_lda_read_uci(path, v, &r, &err)
                                  : sk_lda_read_ldac(path, v, &r, &err);
      if (!SK_CHECK(rc == 0, "entry %d vocab %d: %s", entry, with_vocab, err.message)) continue;
      SK_CHECK(same_arrays(&c, &r), "entry %d: the corpus read back differs", entry);
      if (with_vocab)
        SK_CHECK(r.vocab != NULL && strcmp(r.vocab[0], "w0") == 0 && strcmp(r.vocab[5], "w5") == 0, "vocabulary");
      else
        SK_CHECK(r.vocab == NULL, "a vocabulary appeared from nowhere");
      sk_lda_corpus_free(&r);
    }
  /* From memory, as the fuzz target reads it. */
  b = slurp(path, &len);
  {
    const sk_lda_buffer buf = {"mem.bin", (const char *)b, len}, vb = {"mem.vocab", "a\nb\nc\nd\ne\nf\n\n", 13};
    if (SK_CHECK(sk_lda_parse_binary(&buf, &vb, NULL, &r, &err) == 0, "%s", err.message)) {
      SK_CHECK(same_arrays(&c, &r) && strcmp(r.vocab[5], "f") == 0, "parse_binary differs");
      sk_lda_corpus_free(&r);
    }
  }
  free(b);
  /* Plain text refuses it, naming the file. */
  SK_CHECK(sk_lda_read_text(path, NULL, 0, &r, &err) != 0 && corpus_is_empty(&r) && strstr(err.message, path) &&
               strstr(err.message, "binary corpus"),
           "read_text: '%s'", err.message);
  sk_lda_corpus_free(&c);
}

/* Enough tokens for several 8 MiB read blocks: the same corpus with 1 and 3 threads. */
static void test_blocks_and_threads(void) {
  char path[512];
  sk_lda_corpus c = make_uniform_corpus(20000, 50000, 600, 99), r;
  sk_ex_error err;
  snprintf(path, sizeof path, "%s/big.bin", dir);
  sk_test_context("blocks: T = %lld", (long long)c.num_tokens);
  if (!SK_CHECK(sk_lda_write_binary(&c, path, &err) == 0, "%s", err.message)) return;
  size_t len;
  unsigned char *b = slurp(path, &len);
  SK_CHECK(b != NULL && le32(b + len - 4) == (uint32_t)crc32(0L, b, (uInt)(len - 4)),
           "the CRC over the threads differs from one crc32() over the bytes");
  free(b);
  for (int threads = 1; threads <= 3; threads += 2) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    if (SK_CHECK(sk_lda_read_binary(path, NULL, &r, &err) == 0, "threads %d: %s", threads, err.message)) {
      SK_CHECK(same_arrays(&c, &r), "threads %d: the corpus read back differs", threads);
      sk_lda_corpus_free(&r);
    }
  }
#ifdef _OPENMP
  omp_set_num_threads(omp_get_num_procs());
#endif
  remove(path);
  sk_lda_corpus_free(&c);
}

/* gen's pair of files: the binary corpus and its vocabulary read back whole. */
static void test_gen_files(void) {
  sk_lda_gen_params p;
  sk_lda_corpus c, r;
  sk_ex_error err;
  char path[512], vocab[512];
  sk_lda_gen_params_default(&p);
  p.num_docs = 200;
  sk_test_context("gen --binary");
  if (!SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) == 0, "%s", err.message)) return;
  SK_CHECK(sk_lda_write_binary_files(&c, dir, "g", &err) == 0, "%s", err.message);
  snprintf(path, sizeof path, "%s/docword.g.bin", dir);
  snprintf(vocab, sizeof vocab, "%s/vocab.g.txt", dir);
  if (SK_CHECK(sk_lda_read_uci(path, vocab, &r, &err) == 0, "%s", err.message)) {
    int same = same_arrays(&c, &r);
    for (int32_t v = 0; same && v < c.num_words; ++v) same = strcmp(c.vocab[v], r.vocab[v]) == 0;
    SK_CHECK(same, "the generated corpus read back differs");
    sk_lda_corpus_free(&r);
  }
  sk_lda_corpus_free(&c);
}

/* One malformed file: written, read through read_binary and parse_binary (same message), must fail. */
static void expect_bad(const char *what, const unsigned char *data, size_t len, const char *vocab_text,
                       const sk_lda_read_limits *limits, const char *expected) {
  char path[512], vpath[512];
  sk_lda_corpus r;
  sk_ex_error err;
  snprintf(path, sizeof path, "%s/bad.bin", dir);
  snprintf(vpath, sizeof vpath, "%s/bad.vocab.txt", dir);
  sk_test_context("malformed: %s", what);
  spit(path, data, len);
  if (vocab_text != NULL) spit(vpath, vocab_text, strlen(vocab_text));
  if (limits == NULL) {
    memset(&err, 0, sizeof err);
    memset(&r, 0xff, sizeof r);
    SK_CHECK(sk_lda_read_binary(path, vocab_text ? vpath : NULL, &r, &err) != 0 && corpus_is_empty(&r) &&
                 strstr(err.message, "bad.bin") != NULL && strstr(err.message, expected) != NULL,
             "file: expected '%s', got '%s'", expected, err.message);
    if (len >= 8 && memcmp(data, "SKLDACRP", 8) == 0) { /* the UCI entry point gives the same answer */
      sk_ex_error e2;
      SK_CHECK(sk_lda_read_uci(path, vocab_text ? vpath : NULL, &r, &e2) != 0 && corpus_is_empty(&r) &&
                   strcmp(e2.message, err.message) == 0,
               "read_uci: '%s'", e2.message);
    }
  }
  {
    const sk_lda_buffer buf = {"bad.bin", (const char *)data, len};
    const sk_lda_buffer vb = {"bad.vocab.txt", vocab_text, vocab_text ? strlen(vocab_text) : 0};
    memset(&err, 0, sizeof err);
    SK_CHECK(sk_lda_parse_binary(&buf, vocab_text ? &vb : NULL, limits, &r, &err) != 0 && corpus_is_empty(&r) &&
                 strstr(err.message, "bad.bin") != NULL && strstr(err.message, expected) != NULL,
             "memory: expected '%s', got '%s'", expected, err.message);
  }
  remove(path);
  remove(vpath);
}

static void test_malformed(void) {
  char path[512];
  sk_lda_corpus c = small_corpus(), r;
  sk_ex_error err;
  size_t len;
  snprintf(path, sizeof path, "%s/good.bin", dir);
  if (!SK_CHECK(sk_lda_write_binary(&c, path, &err) == 0, "%s", err.message)) return;
  unsigned char *good = slurp(path, &len);
  unsigned char *b = (unsigned char *)malloc(len + 8);
  const size_t tok0 = 40 + 8 * 6; /* first word id */
#define FRESH() memcpy(b, good, len)
  FRESH();
  expect_bad("empty file", b, 0, NULL, NULL, "bad magic");
  b[3] = 'x';
  expect_bad("bad magic", b, len, NULL, NULL, "not an sk-lda binary corpus");
  FRESH();
  expect_bad("truncated in the header", b, 20, NULL, NULL, "truncated (20 bytes");
  expect_bad("truncated in the word ids", b, len - 5, NULL, NULL, "truncated");
  expect_bad("truncated to the header", b, 44, NULL, NULL, "need 128");
  b[len] = 0;
  expect_bad("a trailing byte", b, len + 1, NULL, NULL, "trailing bytes");
  put_le(b + 8, 2, 4);
  fix_crc(b, len);
  expect_bad("version 2", b, len, NULL, NULL, "unsupported format version 2");
  FRESH();
  put_le(b + 12, 7, 4);
  fix_crc(b, len);
  expect_bad("reserved field", b, len, NULL, NULL, "reserved field is 7");
  static const struct {
    const char *what;
    int field; /* byte offset in the header */
    uint64_t value;
    const char *expected;
  } header[] = {{"D = 0", 16, 0, "D = 0 documents is out of range"},
                {"D negative", 16, (uint64_t)-3, "D = -3 documents"},
                {"D past the limit", 16, (uint64_t)INT32_MAX, "D = 2147483647 documents is out of range 1..2147483646"},
                {"V = 0", 24, 0, "V = 0 words"},
                {"V past int32", 24, (uint64_t)1 << 31, "V = 2147483648 words is out of range"},
                {"T = 0", 32, 0, "T = 0 tokens"},
                {"T past the limit", 32, ((uint64_t)1 << 40) + 1, "T = 1099511627777 tokens is out of range"},
                {"T larger than the file", 32, 10, "need 132"}};
  for (size_t i = 0; i < sizeof header / sizeof header[0]; ++i) {
    FRESH();
    put_le(b + header[i].field, header[i].value, 8);
    fix_crc(b, len);
    expect_bad(header[i].what, b, len, NULL, NULL, header[i].expected);
  }
  {
    const sk_lda_read_limits small_docs = {4, 1000, 0, 0}, small_tokens = {1000, 8, 0, 0};
    FRESH();
    expect_bad("D past the caller's limit", b, len, NULL, &small_docs, "D = 5 documents is out of range 1..4");
    expect_bad("T past the caller's limit", b, len, NULL, &small_tokens, "T = 9 tokens is out of range 1..8");
  }
  FRESH();
  b[tok0 + 4] ^= 0x01;
  expect_bad("a flipped bit", b, len, NULL, NULL, "checksum mismatch");
  FRESH();
  b[len - 1] ^= 0x80;
  expect_bad("a flipped CRC", b, len, NULL, NULL, "checksum mismatch");
  FRESH();
  put_le(b + 40, 1, 8);
  fix_crc(b, len);
  expect_bad("offset 0 not 0", b, len, NULL, NULL, "document offset 0 is 1, not 0");
  FRESH();
  put_le(b + 40 + 8 * 2, 2, 8); /* offsets 0, 0, 3, 3, 7, 9 become 0, 0, 2, 1, 7, 9 */
  put_le(b + 40 + 8 * 3, 1, 8);
  fix_crc(b, len);
  expect_bad("offsets decrease", b, len, NULL, NULL, "document offsets decrease at document 2 (offset 2, then 1)");
  FRESH();
  put_le(b + 40 + 8 * 5, 8, 8);
  fix_crc(b, len);
  expect_bad("last offset not T", b, len, NULL, NULL, "the last document offset is 8, not T = 9");
  FRESH();
  put_le(b + tok0 + 4 * 5, 6, 4);
  fix_crc(b, len);
  expect_bad("word id V", b, len, NULL, NULL, "token 5 (document 3) has word id 6, outside 0..5");
  FRESH();
  put_le(b + tok0, 0xffffffffu, 4);
  fix_crc(b, len);
  expect_bad("negative word id", b, len, NULL, NULL, "token 0 (document 1) has word id -1, outside 0..5");
  FRESH();
  expect_bad("vocabulary too short", b, len, "a\nb\nc\nd\ne\n", NULL,
             "the vocabulary has only 5 lines, fewer than the 6 words of V in the header of");
  expect_bad("vocabulary too long", b, len, "a\nb\nc\nd\ne\nf\ng\n", NULL,
             "the vocabulary has 7 words, more than the 6 words of V in the header of");
#undef FRESH
  sk_test_context("missing file");
  SK_CHECK(sk_lda_read_binary("/nonexistent/c.bin", NULL, &r, &err) != 0 && corpus_is_empty(&r) &&
               strstr(err.message, "/nonexistent/c.bin: cannot open") != NULL,
           "'%s'", err.message);
  SK_CHECK(sk_lda_read_binary(dir, NULL, &r, &err) != 0 && corpus_is_empty(&r) &&
               strstr(err.message, "not a regular file") != NULL,
           "a folder: '%s'", err.message);
  free(b);
  free(good);
  remove(path);
  sk_lda_corpus_free(&c);
}

/* A vocabulary with a word twice is refused with the binary corpus too, through every entry point
   (read_binary, read_uci, read_ldac, parse_binary), naming the vocabulary and both lines. */
static void test_vocab_repeated(void) {
  char path[512], vpath[512], expected[1200];
  sk_lda_corpus c = small_corpus(), r;
  sk_ex_error err;
  static const char words[] = "w0\nw1\nw2\nw3\nw1\nw5\n";
  sk_test_context("binary corpus, vocabulary with a repeated word");
  snprintf(path, sizeof path, "%s/dup.bin", dir);
  snprintf(vpath, sizeof vpath, "%s/dup.vocab.txt", dir);
  spit(vpath, words, sizeof words - 1);
  if (!SK_CHECK(sk_lda_write_binary(&c, path, &err) == 0, "%s", err.message)) {
    sk_lda_corpus_free(&c);
    return;
  }
  snprintf(expected, sizeof expected, "%s:5: word 'w1' is already on line 2 (each word may appear once)", vpath);
  for (int entry = 0; entry < 3; ++entry) {
    memset(&err, 0, sizeof err);
    memset(&r, 0xff, sizeof r);
    const int rc = entry == 0   ? sk_lda_read_binary(path, vpath, &r, &err)
                   : entry == 1 ? sk_lda_read_uci(path, vpath, &r, &err)
                                : sk_lda_read_ldac(path, vpath, &r, &err);
    SK_CHECK(rc != 0 && corpus_is_empty(&r) && strcmp(err.message, expected) == 0,
             "entry %d: expected '%s', got '%s'", entry, expected, rc != 0 ? err.message : "success");
    if (rc == 0) sk_lda_corpus_free(&r);
  }
  {
    size_t len;
    unsigned char *b = slurp(path, &len);
    const sk_lda_buffer buf = {"dup.bin", (const char *)b, len}, vb = {"dup.vocab", words, sizeof words - 1};
    memset(&err, 0, sizeof err);
    SK_CHECK(b != NULL && sk_lda_parse_binary(&buf, &vb, NULL, &r, &err) != 0 && corpus_is_empty(&r) &&
                 strcmp(err.message, "dup.vocab:5: word 'w1' is already on line 2 (each word may appear once)") == 0,
             "memory: '%s'", err.message);
    free(b);
  }
  remove(path);
  remove(vpath);
  sk_lda_corpus_free(&c);
}

/* The writer refuses what the reader would refuse, naming the path, and leaves no file. */
static void test_writer_refusals(void) {
  char path[512];
  sk_lda_corpus c = small_corpus();
  sk_ex_error err;
  snprintf(path, sizeof path, "%s/refused.bin", dir);
  sk_test_context("writer refusals");
  c.tokens[4] = 6;
  SK_CHECK(sk_lda_write_binary(&c, path, &err) != 0 && strstr(err.message, "token 4 has word id 6") != NULL &&
               access(path, F_OK) != 0,
           "word id V: '%s'", err.message);
  c.tokens[4] = 1;
  c.doc_offsets[2] = 4; /* 0, 0, 4, 3, ...: document 2 ends before it starts */
  SK_CHECK(sk_lda_write_binary(&c, path, &err) != 0 && strstr(err.message, "document 2 has negative length") != NULL,
           "decreasing offsets: '%s'", err.message);
  c.doc_offsets[2] = 3;
  c.num_docs = 0;
  SK_CHECK(sk_lda_write_binary(&c, path, &err) != 0 && strstr(err.message, "empty or invalid") != NULL,
           "D = 0: '%s'", err.message);
  c.num_docs = 5;
  SK_CHECK(sk_lda_write_binary(&c, "/nonexistent/dir/c.bin", &err) != 0 &&
               strstr(err.message, "/nonexistent/dir/c.bin") != NULL,
           "missing folder: '%s'", err.message);
  SK_CHECK(sk_lda_write_binary(NULL, path, &err) != 0, "NULL corpus accepted");
  sk_lda_corpus_free(&c);
}

int main(void) {
  if (mkdtemp(dir) == NULL) {
    fprintf(stderr, "mkdtemp failed\n");
    return 1;
  }
  test_layout_and_round_trip();
  test_blocks_and_threads();
  test_gen_files();
  test_malformed();
  test_vocab_repeated();
  test_writer_refusals();
  static const char *left[] = {"small.bin", "small.vocab.txt", "docword.g.bin", "vocab.g.txt", "bad.bin"};
  for (size_t i = 0; i < sizeof left / sizeof left[0]; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, left[i]);
    remove(path);
  }
  rmdir(dir);
  return sk_test_finish();
}
