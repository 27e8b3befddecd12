/*
 * sk-lda outputs (examples/lda/src/output.h), the binary model and z files and the resume
 * (model_file.h), and inference on new documents (infer.h):
 * - model and z files: round trip of every field; every single-byte flip, every truncation and an
 *   appended byte give an error (never a crash), with "checksum mismatch (file is corrupt)" for flips
 *   outside the magic; files whose CRC is right but whose fields are wrong (re-checksummed here) are
 *   still rejected; no temporary file is left behind; a failed write leaves the old file untouched;
 * - topics.txt and the document-topic proportions on hand-made models, compared byte for byte with
 *   text built here from the documented formulas; the metrics CSV likewise;
 * - infer: on a generated corpus with nearly single-topic documents, held-out documents get most of
 *   their mass on the learned topic that matches their planted topic; infer on the observed halves of a
 *   split reproduces sk_lda_heldout_ll() exactly (same fold-in); thread count does not matter; word
 *   mapping by string and by id, unknown words and ids out of range rejected or dropped;
 * - resume: 5 ESCA sweeps, save, load, 5 more equals 10 uninterrupted sweeps (and restarting the sweep
 *   numbering at 0 does not, so the check can fail); mismatched files are rejected.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "corpus.h"
#include "checkpoint.h"
#include "lda_test_esca.h"
#include "gen.h"
#include "lda_test_corpus.h"
#include "infer.h"
#include "metrics.h"
#include "model.h"
#include "model_file.h"
#include "output.h"
#include "sk_test.h"
#include "split.h"

#include "lda_test_files.h"

static void spit(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return;
  if (n > 0 && fwrite(b, 1, n, f) != n) fprintf(stderr, "short write to %s\n", path);
  fclose(f);
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

static int no_temp(const char *path) {
  char t[600];
  snprintf(t, sizeof t, "%s.tmp", path);
  return !exists(t);
}

/* Rewrites the trailing CRC of a buffer so that only the field checks can catch what was changed. */
static void fix_crc(unsigned char *b, size_t n) {
  const uLong c = crc32(crc32(0L, Z_NULL, 0), b, (uInt)(n - 4));
  for (int i = 0; i < 4; ++i) b[n - 4 + (size_t)i] = (unsigned char)((uint32_t)c >> (8 * i));
}

static void put_u32(unsigned char *b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(v >> (8 * i));
}

static char *dupstr(const char *s) {
  char *d = (char *)malloc(strlen(s) + 1);
  memcpy(d, s, strlen(s) + 1);
  return d;
}

/* A small model file: K = 3, V = 4, with a vocabulary (or none), counts consistent. */
static void tiny_model(sk_lda_model_file *mf, int with_vocab) {
  static char *words[4] = {"apple", "banana", "cherry", "d"};
  static int32_t nvk[12] = {5, 0, 1, 5, 2, 0, 0, 7, 3, 1, 0, 0};
  static int64_t nk[3];
  nk[0] = 5 + 5 + 0 + 1;
  nk[1] = 0 + 2 + 7 + 0;
  nk[2] = 1 + 0 + 3 + 0;
  memset(mf, 0, sizeof *mf);
  mf->num_topics = 3;
  mf->num_words = 4;
  mf->alpha = 0.25;
  mf->beta = 0.125;
  mf->iterations = 0x0102030405060708ull;
  mf->seed = 0xfedcba9876543210ull;
  mf->vocab = with_vocab ? words : NULL;
  mf->n_vk = nvk;
  mf->n_k = nk;
}

static int model_files_equal(const sk_lda_model_file *a, const sk_lda_model_file *b) {
  if (a->num_topics != b->num_topics || a->num_words != b->num_words || a->alpha != b->alpha || a->beta != b->beta ||
      a->iterations != b->iterations || a->seed != b->seed || (a->vocab == NULL) != (b->vocab == NULL))
    return 0;
  if (a->vocab != NULL)
    for (int32_t v = 0; v < a->num_words; ++v)
      if (strcmp(a->vocab[v], b->vocab[v]) != 0) return 0;
  const size_t vk = (size_t)a->num_words * (size_t)a->num_topics;
  return memcmp(a->n_vk, b->n_vk, vk * 4) == 0 && memcmp(a->n_k, b->n_k, (size_t)a->num_topics * 8) == 0;
}

static void test_model_file(void) {
  sk_ex_error err;
  for (int with_vocab = 0; with_vocab < 2; ++with_vocab) {
    sk_test_context("model file round trip, vocab %d", with_vocab);
    const char *path = tpath("model.skl");
    sk_lda_model_file mf, back;
    tiny_model(&mf, with_vocab);
    if (!SK_CHECK(sk_lda_model_file_write(path, &mf, &err) == 0, "write: %s", err.message)) continue;
    SK_CHECK(no_temp(path), "temporary file left behind");
    if (SK_CHECK(sk_lda_model_file_read(path, &back, &err) == 0, "read: %s", err.message)) {
      SK_CHECK(model_files_equal(&mf, &back), "fields differ after the round trip");
      sk_lda_model_file_free(&back);
    }
    size_t n = 0;
    unsigned char *good = slurp(path, &n);
    SK_CHECK(memcmp(good, "SKLDAMOD", 8) == 0 && good[8] == 1 && good[12] == (unsigned char)with_vocab,
             "header bytes");
    const char *bad = tpath("bad.skl");
    /* Every single-byte flip (three different flips per byte). */
    for (size_t i = 0; i < n; ++i)
      for (int f = 0; f < 3; ++f) {
        static const unsigned char masks[3] = {0x01, 0x80, 0xff};
        good[i] ^= masks[f];
        spit(bad, good, n);
        good[i] ^= masks[f];
        memset(&back, 0x5a, sizeof back);
        const int rc = sk_lda_model_file_read(bad, &back, &err);
        const int named = strstr(err.message, bad) != NULL;
        const int crc_msg = strstr(err.message, "checksum mismatch (file is corrupt)") != NULL;
        const int magic_msg = strstr(err.message, "not an sk-lda model file") != NULL;
        if (!SK_CHECK(rc != 0 && named && (i < 8 ? magic_msg : crc_msg) && back.n_vk == NULL,
                      "flip %d of byte %zu: rc %d, message '%s'", f, i, rc, rc ? err.message : "")) {
          if (rc == 0) sk_lda_model_file_free(&back);
          break;
        }
      }
    /* Every truncation, and a byte too many. */
    for (size_t len = 0; len < n; ++len) {
      spit(bad, good, len);
      if (!SK_CHECK(sk_lda_model_file_read(bad, &back, &err) != 0 && strstr(err.message, bad) != NULL,
                    "truncated to %zu bytes: accepted", len))
        sk_lda_model_file_free(&back);
    }
    {
      unsigned char *longer = (unsigned char *)malloc(n + 1);
      memcpy(longer, good, n);
      longer[n] = 0;
      spit(bad, longer, n + 1);
      SK_CHECK(sk_lda_model_file_read(bad, &back, &err) != 0, "a byte appended: accepted");
      free(longer);
    }
    /* Right CRC, wrong fields: version, flags, K, V, alpha, a count, n_k. */
    struct {
      size_t off;
      uint32_t val;
      const char *msg;
    } edits[] = {{8, 3, "unsupported format version 3"},
                 {8, 2, "version-2 files set bit 1"}, /* a version-2 file holds per-topic priors (flags bit 1) */
                 {12, 4, "unknown flags"},
                 {16, 0, "number of topics 0"},
                 {16, 70000, "number of topics 70000"},
                 {16, 0x7fffffff, "number of topics"},
                 {20, 0x7fffffff, "too short"},
                 {20, 0, "vocabulary size 0"},
                 {28, 0xfff00000u, "alpha"}, /* alpha's high word: -inf-ish, not positive */
                 {n - 4 - 24 - 48, 6, "sum to"},           /* n_vk[0] 5 -> 6: n_k no longer its column sum */
                 {n - 4 - 24, 12, "topic total n_k of topic 0 is 12"}};
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; ++e) {
      unsigned char *b = (unsigned char *)malloc(n);
      memcpy(b, good, n);
      put_u32(b + edits[e].off, edits[e].val);
      fix_crc(b, n);
      spit(bad, b, n);
      free(b);
      const int rc = sk_lda_model_file_read(bad, &back, &err);
      if (!SK_CHECK(rc != 0 && strstr(err.message, edits[e].msg) != NULL, "edit %zu: rc %d, '%s' (wanted '%s')", e, rc,
                    rc ? err.message : "", edits[e].msg))
        if (rc == 0) sk_lda_model_file_free(&back);
    }
    if (with_vocab) { /* a vocabulary length that runs past the end, re-checksummed */
      unsigned char *b = (unsigned char *)malloc(n);
      memcpy(b, good, n);
      put_u32(b + 56, 0xfffffff0u);
      fix_crc(b, n);
      spit(bad, b, n);
      SK_CHECK(sk_lda_model_file_read(bad, &back, &err) != 0 && strstr(err.message, "invalid length") != NULL, "'%s'",
               err.message);
      memcpy(b, good, n);
      b[56 + 4 + 2] = 0; /* a NUL inside "apple" */
      fix_crc(b, n);
      spit(bad, b, n);
      SK_CHECK(sk_lda_model_file_read(bad, &back, &err) != 0 && strstr(err.message, "NUL") != NULL, "'%s'", err.message);
      free(b);
    }
    free(good);
  }
  sk_test_context("model file: missing, wrong kind, failed writes");
  sk_lda_model_file back;
  SK_CHECK(sk_lda_model_file_read(tpath("nope.skl"), &back, &err) != 0 && strstr(err.message, "nope.skl") != NULL &&
               strstr(err.message, "cannot open") != NULL,
           "'%s'", err.message);
  spit(tpath("empty.skl"), (const unsigned char *)"", 0);
  SK_CHECK(sk_lda_model_file_read(tpath("empty.skl"), &back, &err) != 0, "empty file accepted");
  /* A z file is not a model file, and the other way round. */
  int32_t z3[3] = {0, 1, 2};
  SK_CHECK(sk_lda_z_write(tpath("z.bin"), z3, 3, 3, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_model_file_read(tpath("z.bin"), &back, &err) != 0 && strstr(err.message, "bad magic") != NULL, "'%s'",
           err.message);
  /* A write that fails leaves the existing file as it was and no temporary file. */
  sk_lda_model_file mf;
  tiny_model(&mf, 1);
  const char *path = tpath("keep.skl");
  SK_CHECK(sk_lda_model_file_write(path, &mf, &err) == 0, "%s", err.message);
  size_t n0 = 0, n1 = 0;
  unsigned char *before = slurp(path, &n0);
  mf.n_k[0] += 1; /* inconsistent: rejected before anything is written */
  SK_CHECK(sk_lda_model_file_write(path, &mf, &err) != 0 && strstr(err.message, "topic total") != NULL, "'%s'",
           err.message);
  mf.n_k[0] -= 1;
  /* A vocabulary with a repeated word: refused before anything is written, naming both words. */
  char *repeated[4] = {"apple", "banana", "apple", "d"};
  mf.vocab = repeated;
  SK_CHECK(sk_lda_model_file_write(path, &mf, &err) != 0 &&
               strstr(err.message, "vocabulary word 2 \"apple\" repeats word 0") != NULL,
           "'%s'", err.message);
  tiny_model(&mf, 1);
  unsigned char *after = slurp(path, &n1);
  SK_CHECK(n0 == n1 && memcmp(before, after, n0) == 0 && no_temp(path), "old file changed or temporary file left");
  free(before);
  free(after);
  SK_CHECK(sk_lda_model_file_write(tpath("no/such/dir/m.skl"), &mf, &err) != 0 &&
               strstr(err.message, "cannot open") != NULL,
           "'%s'", err.message);
}

static void test_z_file(void) {
  sk_ex_error err;
  const int64_t sizes[3] = {0, 1, 37};
  for (int s = 0; s < 3; ++s) {
    const int64_t T = sizes[s];
    const int32_t K = 5;
    sk_test_context("z file T = %lld", (long long)T);
    int32_t z[37];
    uint64_t st = 99;
    for (int64_t t = 0; t < T; ++t) z[t] = (int32_t)(sk_test_rand_u32(&st) % (uint32_t)K);
    const char *path = tpath("z.bin");
    if (!SK_CHECK(sk_lda_z_write(path, z, T, K, &err) == 0, "write: %s", err.message)) continue;
    SK_CHECK(no_temp(path), "temporary file left behind");
    int32_t *back = NULL;
    int64_t T2 = -1;
    int32_t K2 = -1;
    if (SK_CHECK(sk_lda_z_read(path, &back, &T2, &K2, &err) == 0, "read: %s", err.message)) {
      SK_CHECK(T2 == T && K2 == K && (T == 0 || memcmp(back, z, (size_t)T * 4) == 0), "round trip differs");
      free(back);
    }
    size_t n = 0;
    unsigned char *good = slurp(path, &n);
    SK_CHECK(n == (size_t)(28 + 4 * T), "size %zu", n);
    const char *bad = tpath("zbad.bin");
    for (size_t i = 0; i < n; ++i) {
      good[i] ^= 0x10;
      spit(bad, good, n);
      good[i] ^= 0x10;
      back = NULL;
      const int rc = sk_lda_z_read(bad, &back, &T2, &K2, &err);
      if (!SK_CHECK(rc != 0 && back == NULL && strstr(err.message, bad) != NULL &&
                        (i < 8 || strstr(err.message, "checksum mismatch (file is corrupt)") != NULL),
                    "flip byte %zu: rc %d '%s'", i, rc, rc ? err.message : "")) {
        free(back);
        break;
      }
    }
    for (size_t len = 0; len < n; ++len) {
      spit(bad, good, len);
      back = NULL;
      if (!SK_CHECK(sk_lda_z_read(bad, &back, &T2, &K2, &err) != 0, "truncated to %zu accepted", len)) free(back);
    }
    if (T > 0) { /* right CRC, a topic out of range; and a T that disagrees with the length */
      unsigned char *b = (unsigned char *)malloc(n);
      memcpy(b, good, n);
      put_u32(b + 24, (uint32_t)K);
      fix_crc(b, n);
      spit(bad, b, n);
      SK_CHECK(sk_lda_z_read(bad, &back, &T2, &K2, &err) != 0 && strstr(err.message, "outside") != NULL, "'%s'",
               err.message);
      memcpy(b, good, n);
      put_u32(b + 12, (uint32_t)(T + 1));
      fix_crc(b, n);
      spit(bad, b, n);
      SK_CHECK(sk_lda_z_read(bad, &back, &T2, &K2, &err) != 0 && strstr(err.message, "calls for") != NULL, "'%s'",
               err.message);
      memcpy(b, good, n);
      put_u32(b + 16, 0x40000000u); /* T's high word: 2^62 tokens */
      fix_crc(b, n);
      spit(bad, b, n);
      SK_CHECK(sk_lda_z_read(bad, &back, &T2, &K2, &err) != 0 && strstr(err.message, "calls for") != NULL, "'%s'",
               err.message);
      free(b);
    }
    free(good);
  }
  sk_test_context("z file: invalid writes");
  int32_t z[2] = {0, 3};
  SK_CHECK(sk_lda_z_write(tpath("z2.bin"), z, 2, 3, &err) != 0 && !exists(tpath("z2.bin")) && no_temp(tpath("z2.bin")),
           "topic 3 with K = 3 accepted");
  SK_CHECK(sk_lda_z_write(tpath("z2.bin"), z, 2, 0, &err) != 0, "K = 0 accepted");
}

/* topics.txt on a hand-made model, against text built here from the formula. */
static void test_topics(void) {
  sk_test_context("topics.txt");
  sk_ex_error err;
  /* V = 5, K = 2. Topic 0: counts 3,3,0,1,3 -> words 0,1,4 (tie at 3, by id) then 3. Topic 1: all 0 but
     word 2 (count 2): word 2, then ties at 0 by id: 0, 1, 3. */
  const int32_t nvk[10] = {3, 0, 3, 0, 0, 2, 1, 0, 3, 0};
  const int64_t nk[2] = {10, 2};
  char *vocab[5] = {"alpha", "beta", "gamma", "delta", "eps"};
  const double beta = 0.5;
  const char *path = tpath("topics.txt");
  if (!SK_CHECK(sk_lda_write_topics(path, nvk, nk, 5, 2, beta, vocab, 4, &err) == 0, "%s", err.message)) return;
  SK_CHECK(no_temp(path), "temporary file left behind");
  char want[2048];
  int len = snprintf(want, sizeof want,
                     "# sk-lda topics: top 4 words per topic, word<TAB>probability\n# K=2 V=5 beta=0.5\n"
                     "# phi_kv = (n_vk + beta) / (n_k + V beta); words by decreasing n_vk, ties by increasing word id\n");
  const int order[2][4] = {{0, 1, 4, 3}, {2, 0, 1, 3}};
  for (int k = 0; k < 2; ++k) {
    len += snprintf(want + len, sizeof want - (size_t)len, "topic %d\n", k);
    for (int i = 0; i < 4; ++i) {
      const int v = order[k][i];
      len += snprintf(want + len, sizeof want - (size_t)len, "\t%s\t%.6g\n", vocab[v],
                      (nvk[v * 2 + k] + beta) / ((double)nk[k] + 5 * beta));
    }
  }
  size_t n = 0;
  char *got = (char *)slurp(path, &n);
  SK_CHECK(got != NULL && strcmp(got, want) == 0, "topics.txt differs:\n%s\nwanted:\n%s", got ? got : "", want);
  free(got);
  /* Without a vocabulary, words are w%06d; top_n larger than V lists V words. */
  SK_CHECK(sk_lda_write_topics(path, nvk, nk, 5, 2, beta, NULL, 100, &err) == 0, "%s", err.message);
  got = (char *)slurp(path, &n);
  int lines = 0;
  for (size_t i = 0; i < n; ++i) lines += got[i] == '\n';
  SK_CHECK(lines == 3 + 2 * 6 && strstr(got, "topic 1\n\tw000002\t") != NULL, "no-vocab topics.txt:\n%s", got);
  free(got);
  SK_CHECK(sk_lda_write_topics(path, nvk, nk, 5, 2, beta, vocab, 0, &err) != 0, "top_n 0 accepted");
  SK_CHECK(sk_lda_write_topics(path, nvk, nk, 5, 2, 0.0, vocab, 3, &err) != 0, "beta 0 accepted");
}

static void test_doc_topics(void) {
  sk_test_context("document-topic proportions");
  sk_ex_error err;
  /* K = 4, alpha = 0.5; doc 0: topics 1 (3), 3 (1); doc 1: empty; doc 2: topic 0 (2). */
  const int64_t start[4] = {0, 2, 2, 3};
  const int32_t nnz[3] = {2, 0, 1}, topic[3] = {1, 3, 0}, count[3] = {3, 1, 2}, ids[3] = {7, 8, 12};
  const char *path = tpath("theta.txt");
  if (!SK_CHECK(sk_lda_write_doc_topics(path, 3, 4, 0.5, start, nnz, topic, count, ids, &err) == 0, "%s", err.message))
    return;
  char want[1024];
  snprintf(want, sizeof want,
           "# sk-lda document topics: doc_id k:theta_dk ... for n_dk > 0; K=4 alpha=0.5; theta_dk = (n_dk + alpha) / "
           "(n_d + K alpha); unlisted topics have alpha / (n_d + K alpha)\n"
           "7 1:%.6g 3:%.6g\n8\n12 0:%.6g\n",
           3.5 / 6.0, 1.5 / 6.0, 2.5 / 4.0);
  size_t n = 0;
  char *got = (char *)slurp(path, &n);
  SK_CHECK(got != NULL && strcmp(got, want) == 0, "differs:\n%s\nwanted:\n%s", got ? got : "", want);
  free(got);
  SK_CHECK(no_temp(path), "temporary file left behind");
  const int32_t bad_topic[3] = {3, 1, 0}; /* doc 0's row not increasing */
  SK_CHECK(sk_lda_write_doc_topics(path, 3, 4, 0.5, start, nnz, bad_topic, count, ids, &err) != 0 &&
               strstr(err.message, "document 0") != NULL,
           "unsorted row accepted: '%s'", err.message);
  const int32_t bad_count[3] = {3, 0, 2};
  SK_CHECK(sk_lda_write_doc_topics(path, 3, 4, 0.5, start, nnz, topic, bad_count, ids, &err) != 0, "zero count accepted");
}

static void test_metrics_csv(void) {
  sk_test_context("metrics CSV");
  sk_ex_error err;
  const char *path = tpath("metrics.csv");
  const char header[] = "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll,sample_s,tables_s,a_rebuild_s,"
                        "b_rebuild_s,metrics_s,device_bytes_peak,alpha_sum,beta\n";
  sk_lda_metrics_log log;
  if (!SK_CHECK(sk_lda_metrics_log_open(&log, path, NULL, &err) == 0, "%s", err.message)) return;
  size_t n = 0;
  char *got = (char *)slurp(path, &n);
  SK_CHECK(strcmp(got, header) == 0, "after open: '%s'", got);
  free(got);
  sk_lda_metrics_times none;
  sk_lda_metrics_log_last_times(&log, &none);
  SK_CHECK(none.sample_s == 0 && none.metrics_s == 0 && none.device_bytes_peak == 0, "a log without rows has times");
  SK_CHECK(sk_lda_metrics_log_row(&log, 1, 0.5, 1234.56, -8.25, NAN, NULL, &err) == 0, "%s", err.message);
  /* Written whole at once: visible before the close, no temporary file left. */
  char want[1024];
  snprintf(want, sizeof want, "%s1,0.500000,1234.6,-8.25,,,,,,,,,\n", header);
  got = (char *)slurp(path, &n);
  SK_CHECK(strcmp(got, want) == 0, "after one row: '%s'", got);
  free(got);
  SK_CHECK(no_temp(path), "a temporary file is left beside %s", path);
  /* The time columns: unknown parts (NaN, negative) and no device are empty fields. */
  const sk_lda_metrics_times times = {0.25, NAN, -1.0, 0.125, 0.0625, 123456789};
  SK_CHECK(sk_lda_metrics_log_row(&log, 2, 1.25, 2000.0, -7.1, -7.5, &times, &err) == 0, "%s", err.message);
  sk_lda_metrics_times last;
  sk_lda_metrics_log_last_times(&log, &last);
  SK_CHECK(last.sample_s == 0.25 && last.tables_s == 0 && last.a_rebuild_s == 0 && last.b_rebuild_s == 0.125 &&
               last.metrics_s == 0.0625 && last.device_bytes_peak == 123456789,
           "last row's times read back as %g %g %g %g %g %lld", last.sample_s, last.tables_s, last.a_rebuild_s,
           last.b_rebuild_s, last.metrics_s, (long long)last.device_bytes_peak);
  /* Rows are appended to the open file; one whose write fails (here the file is open read-only under the
     log) cuts nothing short: the log rewrites the whole file and keeps appending after it. */
  SK_CHECK(log.file != NULL, "the log holds no open file after a row");
  if (log.file != NULL) {
    fclose(log.file);
    log.file = fopen(path, "rb");
  }
  SK_CHECK(sk_lda_metrics_log_row(&log, 3, 1.5, 10.0, NAN, NAN, NULL, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_metrics_log_row(&log, 4, 1.75, 10.0, NAN, NAN, NULL, &err) == 0, "%s", err.message);
  got = (char *)slurp(path, &n);
  SK_CHECK(n == log.len && memcmp(got, log.text, n) == 0 && log.file_len == log.len,
           "after a failed append the file is not the log:\n%s", got);
  free(got);
  SK_CHECK(no_temp(path), "a temporary file is left beside %s", path);
  /* A resumed run continues from the text its checkpoint kept, whatever the file holds now. */
  log.len = strstr(log.text, "\n3,") + 1 - log.text; /* the rows the checkpoint below keeps: 1 and 2 */
  log.text[log.len] = '\0';
  char *kept = strdup(log.text);
  n = log.len;
  sk_lda_metrics_log_close(&log);
  SK_CHECK(sk_lda_metrics_log_open(&log, path, NULL, &err) == 0, "%s", err.message); /* truncates: header only */
  sk_lda_metrics_log_close(&log);
  SK_CHECK(sk_lda_metrics_log_open(&log, path, kept, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_metrics_log_row(&log, 3, 2.0, 10.0, NAN, NAN, NULL, &err) == 0, "%s", err.message);
  sk_lda_metrics_log_close(&log);
  free(kept);
  got = (char *)slurp(path, &n);
  snprintf(want, sizeof want,
           "%s1,0.500000,1234.6,-8.25,,,,,,,,,\n2,1.250000,2000.0,%.17g,%.17g,0.250000,,,0.125000,0.062500,123456789,,\n"
           "3,2.000000,10.0,,,,,,,,,,\n",
           header, -7.1, -7.5);
  SK_CHECK(strcmp(got, want) == 0, "metrics.csv:\n%s\nwanted:\n%s", got, want);
  free(got);
  /* A log of the five-column header (a checkpoint of an earlier sk-lda) is continued with the time
     columns added, empty in its rows. */
  SK_CHECK(sk_lda_metrics_log_open(&log, path,
                                   "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll\n1,0.5,10.0,-8,\n"
                                   "2,0.75,9.0,-7.5,\n",
                                   &err) == 0,
           "%s", err.message);
  sk_lda_metrics_log_last_times(&log, &last);
  SK_CHECK(last.sample_s == 0 && last.metrics_s == 0 && last.device_bytes_peak == 0, "old rows have times");
  SK_CHECK(sk_lda_metrics_log_row(&log, 3, 1.0, 8.0, -7.25, NAN, &times, &err) == 0, "%s", err.message);
  sk_lda_metrics_log_close(&log);
  got = (char *)slurp(path, &n);
  snprintf(want, sizeof want,
           "%s1,0.5,10.0,-8,,,,,,,,,\n2,0.75,9.0,-7.5,,,,,,,,,\n3,1.000000,8.0,-7.25,,0.250000,,,0.125000,0.062500,123456789,,"
           "\n",
           header);
  SK_CHECK(strcmp(got, want) == 0, "continued five-column log:\n%s\nwanted:\n%s", got, want);
  free(got);
  /* A log of the eleven-column header (before the prior columns) is continued with them added, empty in
     its rows; a row with its priors writes them exactly (%.17g), NaN as an empty field. */
  SK_CHECK(sk_lda_metrics_log_open(&log, path,
                                   "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll,sample_s,tables_s,"
                                   "a_rebuild_s,b_rebuild_s,metrics_s,device_bytes_peak\n1,0.5,10.0,-8,,,,,,,\n",
                                   &err) == 0,
           "%s", err.message);
  const sk_lda_metrics_priors priors = {12.375, 0.1}, half = {NAN, 0.02};
  SK_CHECK(sk_lda_metrics_log_row_priors(&log, 2, 1.0, 8.0, -7.25, NAN, NULL, &priors, &err) == 0 &&
               sk_lda_metrics_log_row_priors(&log, 3, 1.5, 8.0, NAN, NAN, NULL, &half, &err) == 0,
           "%s", err.message);
  sk_lda_metrics_log_close(&log);
  got = (char *)slurp(path, &n);
  snprintf(want, sizeof want, "%s1,0.5,10.0,-8,,,,,,,,,\n2,1.000000,8.0,-7.25,,,,,,,,12.375,%.17g\n3,1.500000,8.0,,,,,,,,,,%.17g\n",
           header, 0.1, 0.02);
  SK_CHECK(strcmp(got, want) == 0, "continued eleven-column log with priors:\n%s\nwanted:\n%s", got, want);
  free(got);
  /* Text that is not a metrics log is refused; so is a folder that does not exist. */
  SK_CHECK(sk_lda_metrics_log_open(&log, tpath("m2.csv"), "a,b\n1,2\n", &err) != 0 && strstr(err.message, "m2.csv"),
           "a log without the header accepted (%s)", err.message);
  SK_CHECK(sk_lda_metrics_log_open(&log, tpath("no/dir/m.csv"), NULL, &err) != 0, "open in a missing folder accepted");
  SK_CHECK(sk_lda_metrics_log_row(&log, 1, 0, 0, 0, 0, NULL, &err) != 0, "row on a closed log accepted");
  sk_lda_metrics_log_close(&log); /* closed twice: fine */
}

/* The checkpoint file: round trip, every byte flip caught, truncation, bad fields, corpus fingerprint. */
static void test_checkpoint_file(void) {
  sk_test_context("checkpoint file");
  sk_ex_error err;
  int32_t z[7] = {0, 4, 2, 2, 1, 0, 3};
  const char metrics[] = "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll\n1,0.5,10.0,-8,\n";
  sk_lda_checkpoint c;
  memset(&c, 0, sizeof c);
  c.sampler = 1, c.num_topics = 5, c.num_words = 9, c.num_docs = 3, c.fingerprint = 0xdeadbeefu, c.num_tokens = 7;
  c.alpha = 0.25, c.beta = 0.01, c.test_fraction = 0.1, c.seed = 77, c.sweeps = 12, c.seconds = 3.5;
  c.metrics = metrics, c.metrics_len = strlen(metrics), c.z = z;
  const char *path = tpath("c.skc");
  if (!SK_CHECK(sk_lda_checkpoint_write(path, &c, &err) == 0, "write: %s", err.message)) return;
  SK_CHECK(no_temp(path), "temporary file left");
  sk_lda_checkpoint back;
  if (SK_CHECK(sk_lda_checkpoint_read(path, &back, &err) == 0, "read: %s", err.message)) {
    SK_CHECK(back.sampler == 1 && back.num_topics == 5 && back.num_words == 9 && back.num_docs == 3 &&
                 back.fingerprint == 0xdeadbeefu && back.num_tokens == 7 && back.alpha == 0.25 && back.beta == 0.01 &&
                 back.test_fraction == 0.1 && back.seed == 77 && back.sweeps == 12 && back.seconds == 3.5,
             "fields differ after the round trip");
    SK_CHECK(back.metrics_len == c.metrics_len && strcmp(back.metrics, metrics) == 0, "metrics differ: '%s'",
             back.metrics);
    SK_CHECK(memcmp(back.z, z, sizeof z) == 0, "topics differ");
    sk_lda_checkpoint_free(&back);
  }
  size_t n = 0;
  unsigned char *bytes = slurp(path, &n);
  const char *bad = tpath("bad.skc");
  for (size_t i = 8; i < n; ++i) { /* every byte after the magic: the CRC catches it */
    bytes[i] ^= 0x10;
    spit(bad, bytes, n);
    bytes[i] ^= 0x10;
    if (!SK_CHECK(sk_lda_checkpoint_read(bad, &back, &err) != 0 && strstr(err.message, "checksum") != NULL,
                  "flipped byte %zu accepted (%s)", i, err.message))
      break;
  }
  for (size_t len = 0; len < n; len += 7) {
    spit(bad, bytes, len);
    SK_CHECK(sk_lda_checkpoint_read(bad, &back, &err) != 0, "truncated to %zu accepted", len);
  }
  free(bytes);
  SK_CHECK(sk_lda_checkpoint_read(tpath("no-such.skc"), &back, &err) != 0 && strstr(err.message, "no-such.skc"),
           "a missing file was not named: %s", err.message);
  z[3] = 5;
  SK_CHECK(sk_lda_checkpoint_write(tpath("c2.skc"), &c, &err) != 0 && !exists(tpath("c2.skc")), "topic 5 of K = 5 written");
  z[3] = 2;
  c.seconds = NAN;
  SK_CHECK(sk_lda_checkpoint_write(tpath("c2.skc"), &c, &err) != 0, "NaN seconds written");
  c.seconds = 1.0, c.test_fraction = 1.0;
  SK_CHECK(sk_lda_checkpoint_write(tpath("c2.skc"), &c, &err) != 0, "test fraction 1 written");
  /* The fingerprint tells corpora apart that differ in one word or one document boundary. */
  int32_t len[2] = {3, 2}, words[5] = {0, 1, 2, 3, 4};
  sk_lda_corpus a = make_corpus(6, 2, len, words);
  const uint32_t fa = sk_lda_corpus_fingerprint(&a);
  a.tokens[4] = 5;
  const uint32_t fb = sk_lda_corpus_fingerprint(&a);
  a.tokens[4] = 4;
  a.doc_offsets[1] = 2;
  const uint32_t fc = sk_lda_corpus_fingerprint(&a);
  a.doc_offsets[1] = 3;
  SK_CHECK(fa != fb && fa != fc && fb != fc && sk_lda_corpus_fingerprint(&a) == fa, "fingerprints %08x %08x %08x",
           (unsigned)fa, (unsigned)fb, (unsigned)fc);
  sk_lda_corpus_free(&a);
}

/* The checkpoint's vocabulary (format version 2): round trip, the section's checks (each naming the file),
   and format version 1 (no vocabulary) still read and written back byte for byte. */
static void test_checkpoint_vocab(void) {
  sk_test_context("checkpoint vocabulary");
  sk_ex_error err;
  int32_t z[4] = {0, 1, 1, 0};
  const char metrics[] = "iteration,seconds\n1,0.5\n";
  char w0[] = "alpha", w1[] = "be", w2[] = "c";
  char *vocab[3] = {w0, w1, w2};
  sk_lda_checkpoint c;
  memset(&c, 0, sizeof c);
  c.sampler = 0, c.num_topics = 2, c.num_words = 3, c.num_docs = 2, c.fingerprint = 42u, c.num_tokens = 4;
  c.alpha = 0.5, c.beta = 0.1, c.test_fraction = 0.0, c.seed = 3, c.sweeps = 2, c.seconds = 1.0;
  c.metrics = metrics, c.metrics_len = strlen(metrics), c.z = z, c.vocab = vocab;
  const char *path = tpath("v.skc");
  if (!SK_CHECK(sk_lda_checkpoint_write(path, &c, &err) == 0, "write: %s", err.message)) return;
  sk_lda_checkpoint back;
  if (SK_CHECK(sk_lda_checkpoint_read(path, &back, &err) == 0, "read: %s", err.message)) {
    SK_CHECK(back.version == SK_LDA_CHECKPOINT_VERSION && back.vocab != NULL && strcmp(back.vocab[0], "alpha") == 0 &&
                 strcmp(back.vocab[1], "be") == 0 && strcmp(back.vocab[2], "c") == 0,
             "the vocabulary differs after the round trip (version %u)", (unsigned)back.version);
    SK_CHECK(memcmp(back.z, z, sizeof z) == 0 && strcmp(back.metrics, metrics) == 0, "topics or metrics differ");
    sk_lda_checkpoint_free(&back);
    SK_CHECK(back.vocab == NULL, "free left the vocabulary");
  }
  size_t n = 0;
  unsigned char *bytes = slurp(path, &n);
  const size_t W = 9 + 6 + 5, at = 104 + c.metrics_len; /* the vocabulary section */
  unsigned char b[512]; /* a fixed buffer: gcc 13's -Wstringop-overflow cannot follow a malloc'ed one here */
  if (!SK_CHECK(bytes != NULL && n == 104 + c.metrics_len + W + 4 * 4 + 4 && n <= sizeof b, "file of %zu bytes", n)) {
    free(bytes);
    return;
  }
  /* Sections that pass the CRC but break the rules: each refused, naming the file and the fault. */
  const struct {
    size_t offset;
    uint32_t value;
    int u32;
    const char *says;
  } cases[] = {
      {at + 9, 0, 1, "vocabulary word 1 is empty"},
      {at + 4 + 2, 0, 0, "vocabulary word 0 holds a NUL byte"},
      {at + 15, 2, 1, "vocabulary word 2 runs past the end of the vocabulary section"},
      {20, 2, 1, "holds 5 bytes after its V = 2 words"},
      {20, 5, 1, "cannot hold V = 5 words"},
      {96, (uint32_t)W + 1, 1, "bytes of vocabulary"},
  };
  const char *bad = tpath("vbad.skc");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    memcpy(b, bytes, n);
    if (cases[i].u32)
      put_u32(b + cases[i].offset, cases[i].value);
    else
      b[cases[i].offset] = (unsigned char)cases[i].value;
    fix_crc(b, n);
    spit(bad, b, n);
    memset(&back, 0, sizeof back);
    const int rc = sk_lda_checkpoint_read(bad, &back, &err);
    SK_CHECK(rc != 0 && strstr(err.message, "vbad.skc") != NULL && strstr(err.message, cases[i].says) != NULL,
             "case %zu accepted or not said (%s)", i, rc != 0 ? err.message : "accepted");
    SK_CHECK(back.vocab == NULL && back.z == NULL && back.metrics == NULL, "case %zu: the output is not zeroed", i);
  }
  free(bytes);
  /* The writer refuses an empty word, and a vocabulary in format version 1. */
  char empty[] = "";
  vocab[1] = empty;
  SK_CHECK(sk_lda_checkpoint_write(tpath("v2.skc"), &c, &err) != 0 && !exists(tpath("v2.skc")), "an empty word written");
  vocab[1] = w1;
  c.version = SK_LDA_CHECKPOINT_VERSION_NO_VOCAB;
  SK_CHECK(sk_lda_checkpoint_write(tpath("v2.skc"), &c, &err) != 0 && !exists(tpath("v2.skc")),
           "a vocabulary written in format version 1");
  /* Format version 1: the layout before the vocabulary (no field W), read as a checkpoint without one, and
     written back the same bytes. */
  c.vocab = NULL;
  const char *old = tpath("v1.skc");
  if (!SK_CHECK(sk_lda_checkpoint_write(old, &c, &err) == 0, "write version 1: %s", err.message)) return;
  bytes = slurp(old, &n);
  SK_CHECK(n == 96 + c.metrics_len + 4 * 4 + 4 && bytes[8] == 1 && bytes[9] == 0, "a version-1 file of %zu bytes", n);
  if (SK_CHECK(sk_lda_checkpoint_read(old, &back, &err) == 0, "read version 1: %s", err.message)) {
    SK_CHECK(back.version == SK_LDA_CHECKPOINT_VERSION_NO_VOCAB && back.vocab == NULL && back.num_words == 3 &&
                 memcmp(back.z, z, sizeof z) == 0 && strcmp(back.metrics, metrics) == 0,
             "version 1 read wrongly (version %u)", (unsigned)back.version);
    const char *again = tpath("v1again.skc");
    size_t m = 0;
    unsigned char *same = NULL;
    SK_CHECK(sk_lda_checkpoint_write(again, &back, &err) == 0 && (same = slurp(again, &m)) != NULL && m == n &&
                 memcmp(same, bytes, n) == 0,
             "version 1 not written back byte for byte");
    free(same);
    sk_lda_checkpoint_free(&back);
  }
  /* A version this sk-lda does not know is refused, naming it; version 3 (learnt priors) needs their section. */
  put_u32(bytes + 8, 4);
  fix_crc(bytes, n);
  spit(bad, bytes, n);
  SK_CHECK(sk_lda_checkpoint_read(bad, &back, &err) != 0 && strstr(err.message, "unsupported format version 4"),
           "version 4 accepted (%s)", err.message);
  put_u32(bytes + 8, 3);
  fix_crc(bytes, n);
  spit(bad, bytes, n);
  SK_CHECK(sk_lda_checkpoint_read(bad, &back, &err) != 0 && strstr(err.message, "learnt priors"),
           "version 3 without its priors accepted (%s)", err.message);
  free(bytes);
}

/* Documents [d0, d1) of c as a new corpus (no vocabulary). */
static sk_lda_corpus sub_corpus(const sk_lda_corpus *c, int32_t d0, int32_t d1) {
  sk_lda_corpus s;
  memset(&s, 0, sizeof s);
  s.num_docs = d1 - d0;
  s.num_words = c->num_words;
  s.doc_offsets = (int64_t *)malloc((size_t)(s.num_docs + 1) * sizeof *s.doc_offsets);
  for (int32_t d = 0; d <= s.num_docs; ++d) s.doc_offsets[d] = c->doc_offsets[d0 + d] - c->doc_offsets[d0];
  s.num_tokens = s.doc_offsets[s.num_docs];
  s.tokens = (int32_t *)malloc((size_t)(s.num_tokens > 0 ? s.num_tokens : 1) * sizeof *s.tokens);
  memcpy(s.tokens, c->tokens + c->doc_offsets[d0], (size_t)s.num_tokens * sizeof *s.tokens);
  return s;
}

static int32_t argmax_f(const float *x, int32_t n) {
  int32_t b = 0;
  for (int32_t i = 1; i < n; ++i)
    if (x[i] > x[b]) b = i;
  return b;
}

static void test_infer(void) {
  sk_test_context("infer on held-out generated documents");
  sk_ex_error err;
  sk_lda_gen_params p;
  sk_lda_gen_params_default(&p);
  p.num_docs = 600;
  p.num_words = 400;
  p.num_topics = 5;
  p.mean_doc_length = 60;
  p.alpha = 0.05; /* most documents are nearly single-topic */
  p.topic_support = 0.3;
  p.seed = 11;
  sk_lda_corpus c;
  float *theta = NULL;
  if (!SK_CHECK(sk_lda_generate(&p, &c, NULL, &theta, NULL, &err) == 0, "%s", err.message)) return;
  const int32_t D_train = 500, K = p.num_topics;
  sk_lda_corpus train = sub_corpus(&c, 0, D_train), test = sub_corpus(&c, D_train, c.num_docs);
  sk_lda_model m;
  if (!SK_CHECK(sk_lda_model_init(&m, &train, K, 0.1, 0.01, 3, &err) == 0, "%s", err.message)) return;
  for (uint64_t it = 0; it < 60; ++it) esca_sweep(&m, it, 2, &err);
  const char *mpath = tpath("infer.skl");
  SK_CHECK(sk_lda_model_save(mpath, &m, c.vocab, 60, &err) == 0, "%s", err.message);
  sk_lda_model_file mf;
  if (!SK_CHECK(sk_lda_model_file_read(mpath, &mf, &err) == 0, "%s", err.message)) return;
  SK_CHECK(mf.iterations == 60 && mf.seed == 3 && mf.vocab != NULL && strcmp(mf.vocab[7], c.vocab[7]) == 0,
           "saved fields");
  /* planted topic -> learned topic, by majority over nearly single-topic training documents. */
  int32_t votes[5][5];
  memset(votes, 0, sizeof votes);
  for (int32_t d = 0; d < D_train; ++d) {
    const float *th = theta + (size_t)d * (size_t)K;
    const int32_t pk = argmax_f(th, K);
    if (th[pk] < 0.9f || m.dk_nnz[d] == 0) continue;
    int32_t best = 0;
    for (int32_t k = 1; k < K; ++k)
      if (sk_lda_model_doc_count(&m, d, k) > sk_lda_model_doc_count(&m, d, best)) best = k;
    ++votes[pk][best];
  }
  int32_t map[5];
  for (int32_t pk = 0; pk < K; ++pk) map[pk] = argmax_f((const float[]){(float)votes[pk][0], (float)votes[pk][1],
                                                                        (float)votes[pk][2], (float)votes[pk][3],
                                                                        (float)votes[pk][4]},
                                                       K);
  int used[5] = {0, 0, 0, 0, 0}, distinct = 0;
  for (int32_t pk = 0; pk < K; ++pk) distinct += used[map[pk]]++ == 0;
  SK_CHECK(distinct == K, "planted topics map onto only %d learned topics", distinct);
  sk_lda_infer_result r;
  if (SK_CHECK(sk_lda_infer(&mf, &test, 20, 5, 2, &r, &err) == 0, "%s", err.message)) {
    int32_t single = 0, hit = 0;
    double mass = 0.0;
    for (int32_t d = 0; d < test.num_docs; ++d) {
      const float *th = theta + (size_t)(D_train + d) * (size_t)K;
      const int32_t pk = argmax_f(th, K);
      if (th[pk] < 0.9f) continue;
      ++single;
      int64_t n = 0, on = 0;
      for (int32_t i = 0; i < r.row_nnz[d]; ++i) {
        n += r.row_count[r.row_start[d] + i];
        if (r.row_topic[r.row_start[d] + i] == map[pk]) on = r.row_count[r.row_start[d] + i];
      }
      const double th_on = ((double)on + r.alpha) / ((double)n + K * r.alpha);
      mass += th_on;
      hit += th_on > 0.5;
    }
    printf("infer: %d of %d nearly single-topic held-out documents put most mass on the matching learned topic "
           "(mean mass %.3f)\n",
           (int)hit, (int)single, single ? mass / single : 0.0);
    SK_CHECK(single >= 40, "only %d nearly single-topic test documents", (int)single);
    SK_CHECK(hit >= single * 9 / 10 && mass / single > 0.8,
             "%d of %d single-topic documents put most mass on their planted topic's learned topic (mean %.3f)",
             (int)hit, (int)single, single ? mass / single : 0.0);
    /* Thread count does not matter. */
    sk_lda_infer_result r1;
    if (SK_CHECK(sk_lda_infer(&mf, &test, 20, 5, 1, &r1, &err) == 0, "%s", err.message)) {
      int same = memcmp(r.row_nnz, r1.row_nnz, (size_t)test.num_docs * 4) == 0;
      for (int32_t d = 0; same && d < test.num_docs; ++d) /* slots past row_nnz are unused */
        same = memcmp(r.row_topic + r.row_start[d], r1.row_topic + r1.row_start[d], (size_t)r.row_nnz[d] * 4) == 0 &&
               memcmp(r.row_count + r.row_start[d], r1.row_count + r1.row_start[d], (size_t)r.row_nnz[d] * 4) == 0;
      SK_CHECK(same, "1 and 2 threads differ");
      sk_lda_infer_result_free(&r1);
    }
    SK_CHECK(sk_lda_write_doc_topics(tpath("infer_theta.txt"), r.num_docs, r.num_topics, r.alpha, r.row_start, r.row_nnz,
                                     r.row_topic, r.row_count, NULL, &err) == 0,
             "%s", err.message);
    sk_lda_infer_result_free(&r);
  }

  sk_test_context("infer reproduces the held-out metric's fold-in");
  {
    sk_lda_split split;
    if (SK_CHECK(sk_lda_split_corpus(&c, 0.2, 4, &split, &err) == 0, "%s", err.message)) {
      sk_lda_model m2;
      SK_CHECK(sk_lda_model_init(&m2, &split.train, K, 0.1, 0.01, 9, &err) == 0, "%s", err.message);
      for (uint64_t it = 0; it < 10; ++it) esca_sweep(&m2, it, 2, &err);
      double ll = 0.0;
      SK_CHECK(sk_lda_heldout_ll(&m2, &split.test_observed, &split.test_heldout, SK_LDA_DEFAULT_FOLDIN_ITERS, 2, &ll,
                                 &err) == 0,
               "%s", err.message);
      sk_lda_model_file mf2;
      SK_CHECK(sk_lda_model_save(tpath("m2.skl"), &m2, NULL, 10, &err) == 0, "%s", err.message);
      if (SK_CHECK(sk_lda_model_file_read(tpath("m2.skl"), &mf2, &err) == 0, "%s", err.message) &&
          SK_CHECK(sk_lda_infer(&mf2, &split.test_observed, SK_LDA_DEFAULT_FOLDIN_ITERS, m2.seed, 3, &r, &err) == 0, "%s",
                   err.message)) {
        const sk_lda_corpus *h = &split.test_heldout;
        double sum = 0.0, *th = (double *)malloc((size_t)K * sizeof *th), *inv = (double *)malloc((size_t)K * 8);
        for (int32_t k = 0; k < K; ++k) inv[k] = 1.0 / ((double)mf2.n_k[k] + (double)mf2.num_words * mf2.beta);
        for (int32_t d = 0; d < h->num_docs; ++d) {
          const int64_t n_obs = split.test_observed.doc_offsets[d + 1] - split.test_observed.doc_offsets[d];
          const double norm = 1.0 / ((double)n_obs + (double)K * mf2.alpha);
          for (int32_t k = 0; k < K; ++k) th[k] = mf2.alpha * norm;
          for (int32_t i = 0; i < r.row_nnz[d]; ++i)
            th[r.row_topic[r.row_start[d] + i]] = ((double)r.row_count[r.row_start[d] + i] + mf2.alpha) * norm;
          double dl = 0.0;
          for (int64_t t = h->doc_offsets[d]; t < h->doc_offsets[d + 1]; ++t) {
            const int32_t *b = mf2.n_vk + (size_t)h->tokens[t] * (size_t)K;
            double pw = 0.0;
            for (int32_t k = 0; k < K; ++k) pw += th[k] * (((double)b[k] + mf2.beta) * inv[k]);
            dl += log(pw);
          }
          sum += dl;
        }
        const double ll2 = sum / (double)h->num_tokens;
        SK_CHECK(fabs(ll2 - ll) <= 1e-12 * fabs(ll), "held-out LL from infer %.17g, from metrics %.17g", ll2, ll);
        free(th);
        free(inv);
        sk_lda_infer_result_free(&r);
        sk_lda_model_file_free(&mf2);
      }
      sk_lda_model_free(&m2);
      sk_lda_split_free(&split);
    }
  }

  sk_test_context("infer word mapping and bad inputs");
  {
    /* The test documents with their own vocabulary, in reverse order plus one unknown word. */
    const int32_t V = c.num_words;
    sk_lda_corpus t2 = sub_corpus(&c, D_train, D_train + 3);
    t2.num_words = V + 1;
    t2.vocab = (char **)malloc((size_t)(V + 1) * sizeof *t2.vocab);
    for (int32_t v = 0; v < V; ++v) t2.vocab[v] = dupstr(c.vocab[V - 1 - v]);
    t2.vocab[V] = dupstr("zzzunknown");
    for (int64_t t = 0; t < t2.num_tokens; ++t) t2.tokens[t] = V - 1 - t2.tokens[t];
    t2.tokens[1] = V; /* document 0's second token: unknown */
    const int32_t keep = t2.tokens[0];
    SK_CHECK(sk_lda_infer_map_words(&mf, &t2, "new.txt", 0, 0, NULL, &err) != 0 && strstr(err.message, "new.txt") != NULL &&
                 strstr(err.message, "zzzunknown") != NULL,
             "unknown word: '%s'", err.message);
    SK_CHECK(t2.vocab != NULL && t2.tokens[0] == keep && t2.num_words == V + 1, "docs changed by a failed map");
    int64_t dropped = -1;
    const int64_t T0 = t2.num_tokens;
    if (SK_CHECK(sk_lda_infer_map_words(&mf, &t2, "new.txt", 0, 1, &dropped, &err) == 0, "%s", err.message)) {
      sk_lda_corpus ref = sub_corpus(&c, D_train, D_train + 3);
      int ok = dropped == 1 && t2.num_tokens == T0 - 1 && t2.vocab == NULL && t2.num_words == V &&
               t2.tokens[0] == ref.tokens[0] && memcmp(t2.tokens + 1, ref.tokens + 2, (size_t)(T0 - 2) * 4) == 0 &&
               t2.doc_offsets[1] == ref.doc_offsets[1] - 1 && t2.doc_offsets[3] == ref.doc_offsets[3] - 1;
      SK_CHECK(ok, "mapping by string gives the wrong ids (dropped %lld)", (long long)dropped);
      sk_lda_corpus_free(&ref);
    }
    sk_lda_corpus_free(&t2);
    /* By id: out of range. */
    sk_lda_corpus t3 = sub_corpus(&c, D_train, D_train + 2);
    t3.num_words = V + 5;
    t3.tokens[t3.num_tokens - 1] = V + 4;
    SK_CHECK(sk_lda_infer_map_words(&mf, &t3, "docword.new.txt", 1, 0, NULL, &err) != 0 &&
                 strstr(err.message, "docword.new.txt: document 1: word id 405 is outside") != NULL,
             "id out of range: '%s'", err.message);
    SK_CHECK(sk_lda_infer(&mf, &t3, 5, 1, 1, &r, &err) != 0 && r.row_start == NULL, "infer accepted an id out of range");
    SK_CHECK(sk_lda_infer(&mf, &test, -1, 1, 1, &r, &err) != 0, "negative iterations accepted");
    sk_lda_corpus_free(&t3);
  }
  sk_lda_model_file_free(&mf);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&train);
  sk_lda_corpus_free(&test);
  sk_lda_corpus_free(&c);
  free(theta);
}

static void test_resume(void) {
  sk_test_context("resume equals an uninterrupted run");
  sk_ex_error err;
  sk_lda_gen_params p;
  sk_lda_gen_params_default(&p);
  p.num_docs = 200;
  p.num_words = 300;
  p.num_topics = 6;
  p.mean_doc_length = 40;
  p.seed = 5;
  sk_lda_corpus c;
  if (!SK_CHECK(sk_lda_generate(&p, &c, NULL, NULL, NULL, &err) == 0, "%s", err.message)) return;
  const int32_t K = 8;
  const uint64_t seed = 1234;
  sk_lda_model a, b;
  SK_CHECK(sk_lda_model_init(&a, &c, K, 0.2, 0.05, seed, &err) == 0, "%s", err.message);
  for (uint64_t it = 0; it < 10; ++it) SK_CHECK(esca_sweep(&a, it, 2, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_model_init(&b, &c, K, 0.2, 0.05, seed, &err) == 0, "%s", err.message);
  for (uint64_t it = 0; it < 5; ++it) SK_CHECK(esca_sweep(&b, it, 3, &err) == 0, "%s", err.message);
  char mp[512], zp[512]; /* tpath() reuses its buffers */
  snprintf(mp, sizeof mp, "%s", tpath("resume.skl"));
  snprintf(zp, sizeof zp, "%s", tpath("resume.z"));
  SK_CHECK(sk_lda_model_save(mp, &b, c.vocab, 5, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_z_write(zp, b.z, b.num_tokens, b.num_topics, &err) == 0, "%s", err.message);
  sk_lda_model_free(&b);
  uint64_t done = 0;
  if (SK_CHECK(sk_lda_model_resume(&b, &c, c.vocab, mp, zp, &done, &err) == 0, "resume: %s", err.message)) {
    SK_CHECK(done == 5 && b.seed == seed && b.num_topics == K && b.alpha == 0.2 && b.beta == 0.05, "resumed fields");
    sk_lda_model b2;
    uint64_t done2 = 0;
    SK_CHECK(sk_lda_model_resume(&b2, &c, NULL, mp, zp, &done2, &err) == 0, "%s", err.message);
    for (uint64_t it = done; it < 10; ++it) SK_CHECK(esca_sweep(&b, it, 1, &err) == 0, "%s", err.message);
    SK_CHECK(memcmp(a.z, b.z, (size_t)c.num_tokens * 4) == 0, "resumed run differs from the uninterrupted one");
    SK_CHECK(memcmp(a.n_vk, b.n_vk, (size_t)c.num_words * (size_t)K * 4) == 0, "counts differ");
    /* The check can fail: continuing with sweep numbers from 0 gives a different chain. */
    for (uint64_t it = 0; it < 5; ++it) esca_sweep(&b2, it, 1, &err);
    SK_CHECK(memcmp(a.z, b2.z, (size_t)c.num_tokens * 4) != 0, "restarting the sweep numbering gave the same topics");
    sk_lda_model_free(&b2);
    sk_lda_model_free(&b);
  }

  sk_test_context("resume rejects files that do not belong together");
  sk_lda_model x;
  done = 77;
  /* z of another K. */
  SK_CHECK(sk_lda_z_write(tpath("zk.z"), a.z, a.num_tokens, K + 1, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_model_resume(&x, &c, NULL, mp, tpath("zk.z"), &done, &err) != 0 && strstr(err.message, "K = 9") != NULL &&
               done == 77 && x.z == NULL,
           "'%s'", err.message);
  /* z of another T. */
  SK_CHECK(sk_lda_z_write(tpath("zt.z"), a.z, a.num_tokens - 1, K, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_model_resume(&x, &c, NULL, mp, tpath("zt.z"), &done, &err) != 0 && strstr(err.message, "tokens") != NULL,
           "'%s'", err.message);
  /* z of the same shape but another state (the 10-sweep one): counts disagree with the model file. */
  SK_CHECK(sk_lda_z_write(tpath("z10.z"), a.z, a.num_tokens, K, &err) == 0, "%s", err.message);
  SK_CHECK(sk_lda_model_resume(&x, &c, NULL, mp, tpath("z10.z"), &done, &err) != 0 && strstr(err.message, "differ") != NULL,
           "'%s'", err.message);
  /* Another vocabulary. */
  char *saved = c.vocab[3];
  c.vocab[3] = "notaword";
  SK_CHECK(sk_lda_model_resume(&x, &c, c.vocab, mp, zp, &done, &err) != 0 && strstr(err.message, "notaword") != NULL,
           "'%s'", err.message);
  c.vocab[3] = saved;
  /* Another V. */
  c.num_words += 1;
  SK_CHECK(sk_lda_model_resume(&x, &c, NULL, mp, zp, &done, &err) != 0 && strstr(err.message, "vocabulary words") != NULL,
           "'%s'", err.message);
  c.num_words -= 1;
  SK_CHECK(sk_lda_model_resume(&x, &c, NULL, tpath("missing.skl"), zp, &done, &err) != 0 &&
               strstr(err.message, "missing.skl") != NULL,
           "'%s'", err.message);
  sk_lda_model_free(&a);
  sk_lda_corpus_free(&c);
}

static void remove_dir(void) {
  static const char *names[] = {"model.skl",   "bad.skl",  "nope.skl",        "empty.skl", "z.bin",      "keep.skl",
                                "z2.bin",      "zbad.bin", "topics.txt",      "theta.txt", "metrics.csv", "m2.csv",
                                "infer.skl",   "m2.skl",   "infer_theta.txt", "resume.skl", "resume.z",  "zk.z",
                                "zt.z",        "z10.z"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) remove(tpath(names[i]));
  rmdir(g_dir);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/sk_lda_test_output.XXXXXX");
  if (mkdtemp(g_dir) == NULL) {
    fprintf(stderr, "cannot create a temporary folder\n");
    return 1;
  }
  test_model_file();
  test_z_file();
  test_topics();
  test_doc_topics();
  test_metrics_csv();
  test_checkpoint_file();
  test_checkpoint_vocab();
  test_infer();
  test_resume();
  remove_dir();
  sk_lda_esca_tables_free(test_esca_tables());
  return sk_test_finish();
}
