/*
 * sk-mixture's readers (examples/mixture/src/data.h) and the standardization:
 * - good files: CSV with and without a header, CRLF, spaces around cells, a blank last line, a UTF-8
 *   byte order mark; .npy float32 and float64 (format versions 1 and 2; a header in double quotes),
 *   written here byte by byte; the values and the per-dimension mean and scale they give;
 * - every malformed case is an error whose message names the file and, where there is one, the row:
 *   ragged CSV rows (fewer and more cells), non-numeric, empty, NaN, infinite and out-of-range cells,
 *   hexadecimal cells and other strtod forms that are not plain decimal numbers (line and column named),
 *   a blank line between rows, no data, too many columns, a NUL byte, a missing file, a first line of
 *   numbers and words; a .npy that is not one, of another version, dtype (int, big-endian, float16,
 *   structured) or order (Fortran), 1-D and 3-D,
 *   truncated in its header or data, with bytes after its data, with NaN or infinity (row and
 *   column), with no rows, with too many columns; and N < K.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data.h"
#include "output.h"
#include "sk_ex_npy.h"
#include "sk_test.h"

static char g_dir[256];

static const char *path_of(const char *name) {
  static char p[512];
  snprintf(p, sizeof p, "%s/%s", g_dir, name);
  return p;
}

static void write_bytes(const char *name, const void *bytes, size_t n) {
  FILE *f = fopen(path_of(name), "wb");
  if (f == NULL || fwrite(bytes, 1, n, f) != n) {
    fprintf(stderr, "cannot write %s\n", path_of(name));
    exit(1);
  }
  fclose(f);
}

static void write_text(const char *name, const char *text) { write_bytes(name, text, strlen(text)); }

/* A .npy file: the header dict (padded as NumPy pads it), then `data` bytes; version 1 or 2. */
static void write_npy(const char *name, int version, const char *dict, const void *data, size_t data_bytes) {
  unsigned char buf[4096];
  const size_t pre = version == 1 ? 10 : 12;
  size_t len = strlen(dict);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)version;
  buf[7] = 0;
  memcpy(buf + pre, dict, len);
  while ((pre + len + 1) % 64 != 0) buf[pre + len++] = ' ';
  buf[pre + len++] = '\n';
  buf[8] = (unsigned char)(len & 0xff);
  buf[9] = (unsigned char)(len >> 8);
  if (version != 1) buf[10] = buf[11] = 0;
  memcpy(buf + pre + len, data, data_bytes);
  write_bytes(name, buf, pre + len + data_bytes);
}

/* The reader must fail with a message that holds the file's path and every one of `parts`. */
static void expect_error(const char *what, int npy, const char *name, const char *part1, const char *part2) {
  sk_mix_data d;
  sk_ex_error err;
  const char *path = path_of(name);
  char file[512];
  snprintf(file, sizeof file, "%s", path);
  sk_test_context("%s: %s", npy ? "npy" : "csv", what);
  const int rc = npy ? sk_mix_read_npy(file, &d, &err) : sk_mix_read_csv(file, &d, &err);
  if (!SK_CHECK(rc != 0, "accepted")) {
    sk_mix_data_free(&d);
    return;
  }
  SK_CHECK(strstr(err.message, file) != NULL, "the message does not name the file: %s", err.message);
  SK_CHECK(part1 == NULL || strstr(err.message, part1) != NULL, "the message lacks '%s': %s", part1, err.message);
  SK_CHECK(part2 == NULL || strstr(err.message, part2) != NULL, "the message lacks '%s': %s", part2, err.message);
  SK_CHECK(d.x == NULL && d.n == 0, "a failed read left data behind");
}

static void expect_good_csv(const char *what, const char *text, int64_t n, int32_t d, const double *first_row) {
  sk_mix_data data;
  sk_ex_error err;
  write_text("good.csv", text);
  sk_test_context("csv: %s", what);
  if (!SK_CHECK(sk_mix_read_csv(path_of("good.csv"), &data, &err) == 0, "%s", err.message)) return;
  SK_CHECK(data.n == n && data.d == d, "read %lld x %d, want %lld x %d", (long long)data.n, (int)data.d, (long long)n,
           (int)d);
  for (int32_t j = 0; j < d && data.n == n && data.d == d; ++j)
    SK_CHECK(fabs(sk_mix_data_raw(&data, 0, j) - first_row[j]) <= 1e-6 * (1.0 + fabs(first_row[j])),
             "row 1 column %d reads back as %.9g, want %.9g", (int)j + 1, sk_mix_data_raw(&data, 0, j), first_row[j]);
  sk_mix_data_free(&data);
}

static void test_csv(void) {
  const double r1[3] = {1.5, -2, 3e2};
  expect_good_csv("header", "a,b,c\n1.5,-2,3e2\n4,5,6\n", 2, 3, r1);
  expect_good_csv("no header", "1.5,-2,3e2\n4,5,6\n7,8,9\n", 3, 3, r1);
  expect_good_csv("CRLF, spaces, a blank last line", "x, y ,z\r\n 1.5 , -2,3e2\r\n4,5,6\r\n\r\n", 2, 3, r1);
  expect_good_csv("no final newline", "1.5,-2,300\n4,5,6", 2, 3, r1);
  /* A UTF-8 byte order mark (spreadsheets write one) is not part of the first cell: no row is lost to it. */
  expect_good_csv("a byte order mark, no header", "\xEF\xBB\xBF" "1.5,-2,3e2\n4,5,6\n", 2, 3, r1);
  expect_good_csv("a byte order mark and a header", "\xEF\xBB\xBF" "a,b,c\n1.5,-2,3e2\n4,5,6\n", 2, 3, r1);
  {
    /* Every form of a plain decimal number: signs, a point with digits on one side, exponents. */
    const double r2[4] = {1.5, 0.5, 5.0, -0.25};
    expect_good_csv("decimal forms", "+1.5,.5,5.,-25e-2\n1E+2,-0.0,7e-1,0\n", 2, 4, r2);
  }
  {
    /* Standardization: mean and population standard deviation per column. */
    sk_mix_data data;
    sk_ex_error err;
    write_text("std.csv", "1,10\n2,10\n3,10\n4,10\n");
    sk_test_context("csv: standardization");
    if (SK_CHECK(sk_mix_read_csv(path_of("std.csv"), &data, &err) == 0, "%s", err.message)) {
      SK_CHECK(data.mean[0] == 2.5 && fabs(data.scale[0] - sqrt(1.25)) < 1e-15, "column 1: mean %g scale %g",
               data.mean[0], data.scale[0]);
      SK_CHECK(data.mean[1] == 10.0 && data.scale[1] == 1.0 && data.x[1] == 0.0f, "a constant column keeps scale 1");
      SK_CHECK(fabsf(data.x[0] + (float)(1.5 / sqrt(1.25))) < 1e-6f, "x[0] = %g", (double)data.x[0]);
      sk_mix_data_free(&data);
    }
  }
  /* Each case: the file's content (its length when it holds a NUL), and two parts of the message. */
  static const struct {
    const char *what, *file, *content;
    size_t len;
    const char *part1, *part2;
  } bad[] = {
      {"a row with fewer cells", "ragged_fewer.csv", "a,b,c\n1,2,3\n4,5\n", 0, "row 2", "2 cells"},
      {"a row with more cells", "ragged_more.csv", "1,2\n3,4,5\n", 0, "row 2", "3 cells"},
      {"a non-numeric cell", "non_numeric.csv", "a,b\n1,2\n3,abc\n", 0, "row 2", "'abc' is not a number"},
      {"an empty cell", "empty_cell.csv", "1,2,3\n4,,6\n", 0, "row 2", "column 2 is empty"},
      {"NaN", "nan.csv", "1,2\nnan,4\n", 0, "row 2", "NaN"},
      {"infinity", "inf.csv", "1,2\n3,-inf\n5,6\n", 0, "row 2", "infinite"},
      {"a value beyond double", "huge.csv", "1,2\n3,1e999\n", 0, "row 2", "out of range"},
      {"a blank line between rows", "blank.csv", "1,2\n\n3,4\n", 0, "line 2", "blank"},
      {"a header and no rows", "header_only.csv", "a,b,c\n", 0, "no data rows", NULL},
      {"an empty file", "empty.csv", "", 0, "no data rows", NULL},
      {"a NUL byte", "nul.csv", "1,2\n3\0,4\n", 9, "line 2", "NUL"},
      /* strtod reads these, but they are not decimal numbers: refused, naming the line and column. */
      {"a hexadecimal cell", "hex.csv", "1,2\n3,0x10\n", 0, "row 2 (line 2), column 2: '0x10' is hexadecimal",
       "decimal numbers only"},
      {"a hexadecimal cell after a header", "hex_header.csv", "a,b\n1,2\n-0X1F,4\n", 0,
       "row 2 (line 3), column 1: '-0X1F' is hexadecimal", NULL},
      {"a hexadecimal float", "hex_float.csv", "1,2\n3,0x1p3\n", 0, "row 2 (line 2), column 2: '0x1p3' is hexadecimal",
       NULL},
      {"a hexadecimal first line (not taken for a header)", "hex_first.csv", "0x10,2\n3,4\n", 0,
       "row 1 (line 1), column 1: '0x10' is hexadecimal", NULL},
      {"infinity spelled out", "infinity.csv", "1,2\n3,Infinity\n", 0, "row 2 (line 2), column 2", "infinite"},
      {"nan(...)", "nan_chars.csv", "1,2\nnan(0x1),4\n", 0, "row 2 (line 2), column 1", "NaN"},
      {"a vertical tab before a number", "vtab.csv", "1,2\n3,\v4\n", 0, "row 2 (line 2), column 2",
       "is not a plain decimal number"},
      /* A first line of numbers and words: a typo in row 1 (or a header with a number), refused rather than
         taken for a header, which would drop a row without a word. */
      {"a first line of numbers and a typo", "typo_first.csv", "1,2x\n3,4\n5,6\n", 0,
       "line 1 holds numbers and 1 cell(s) that are not, the first in column 2 ('2x')", "fix the line"},
      {"a header with a number in it", "header_number.csv", "x,2\n3,4\n", 0, "column 1 ('x')", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    write_bytes(bad[i].file, bad[i].content, bad[i].len ? bad[i].len : strlen(bad[i].content));
    expect_error(bad[i].what, 0, bad[i].file, bad[i].part1, bad[i].part2);
  }
  {
    char *wide = (char *)malloc(4 * 300 + 2);
    size_t len = 0;
    for (int j = 0; j < 300; ++j) len += (size_t)sprintf(wide + len, j ? ",%d" : "%d", j);
    wide[len++] = '\n';
    wide[len] = '\0';
    write_text("wide.csv", wide);
    free(wide);
    expect_error("300 columns", 0, "wide.csv", "more than 256 columns", NULL);
  }
  expect_error("a missing file", 0, "no_such_file.csv", "cannot open", NULL);
}

static void test_npy(void) {
  const float f[6] = {1, 2, 3, 4, 5, 6};
  const double g[6] = {1, 2, 3, 4, 5, 6};
  sk_mix_data data;
  sk_ex_error err;
  write_npy("f4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", f, sizeof f);
  write_npy("f8v2.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", g, sizeof g);
  sk_test_context("npy: float32, version 1");
  if (SK_CHECK(sk_mix_read_npy(path_of("f4.npy"), &data, &err) == 0, "%s", err.message)) {
    SK_CHECK(data.n == 3 && data.d == 2 && data.mean[0] == 3.0 && data.mean[1] == 4.0, "3 x 2, means 3 and 4");
    sk_mix_data_free(&data);
  }
  sk_test_context("npy: float64, version 2");
  if (SK_CHECK(sk_mix_read_npy(path_of("f8v2.npy"), &data, &err) == 0, "%s", err.message)) {
    SK_CHECK(data.n == 2 && data.d == 3 && sk_mix_data_raw(&data, 1, 2) == 6.0, "2 x 3, last value 6");
    sk_mix_data_free(&data);
  }
  {
    /* The examples' writer (sk_ex_npy.h), which sk-mixture gen uses, reads back. */
    sk_test_context("npy: the writer's file");
    if (SK_CHECK(sk_ex_write_npy_f32(path_of("written.npy"), f, 2, 3, &err) == 0, "%s", err.message) &&
        SK_CHECK(sk_mix_read_npy(path_of("written.npy"), &data, &err) == 0, "%s", err.message)) {
      SK_CHECK(data.n == 2 && data.d == 3 && sk_mix_data_raw(&data, 0, 1) == 2.0, "2 x 3 with x[0][1] = 2");
      sk_mix_data_free(&data);
    }
  }
  {
    /* A header in double quotes, as JSON-minded writers make it (Python's literal_eval reads it). */
    sk_test_context("npy: a header in double quotes");
    write_npy("dq.npy", 1, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 2)}", f, sizeof f);
    if (SK_CHECK(sk_mix_read_npy(path_of("dq.npy"), &data, &err) == 0, "%s", err.message)) {
      SK_CHECK(data.n == 3 && data.d == 2 && data.mean[1] == 4.0, "3 x 2, column 2's mean 4");
      sk_mix_data_free(&data);
    }
  }
  write_text("not.npy", "just,text\n1,2\n");
  expect_error("not a .npy file", 1, "not.npy", "not a .npy file", NULL);
  /* Each case: version, header dictionary, data bytes (of f), and two parts of the message. */
  static const struct {
    const char *what, *file;
    int version;
    const char *dict;
    size_t bytes;
    const char *part1, *part2;
  } bad[] = {
      {"format version 4", "v4.npy", 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 24, "version 4",
       NULL},
      {"dtype int32", "int.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 2), }", 24, "'<i4'",
       "not supported"},
      {"big-endian float64", "big.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 1), }", 24, "'>f8'",
       NULL},
      {"float16", "half.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 1), }", 6, "'<f2'", NULL},
      {"int32 in double quotes", "int_dq.npy", 1,
       "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (3, 2)}", 24, "dtype '<i4' is not supported", NULL},
      {"a structured dtype", "struct.npy", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3, 2), }",
       24, "dtype '[('a', '<f4')]", "not supported"},
      {"Fortran order", "fortran.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", 24, "Fortran",
       NULL},
      {"a 1-D array", "one_d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", 24, "1-D", NULL},
      {"a 3-D array", "three_d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 2), }", 24, "3-D",
       NULL},
      {"truncated data", "short.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 18, "truncated",
       "row 3 of 3"},
      {"bytes after the data", "long.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 24,
       "after the last of the 2 rows", NULL},
      {"no rows", "no_rows.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2), }", 0, "shape (0, 2)",
       NULL},
      {"300 columns", "wide.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 300), }", 0,
       "shape (1, 300)", NULL},
      {"no shape", "no_shape.npy", 1, "{'descr': '<f4', 'fortran_order': False}", 24, "malformed", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    write_npy(bad[i].file, bad[i].version, bad[i].dict, f, bad[i].bytes);
    expect_error(bad[i].what, 1, bad[i].file, bad[i].part1, bad[i].part2);
  }
  write_bytes("cut_header.npy", "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4'", 25);
  expect_error("a truncated header", 1, "cut_header.npy", "truncated", "header");
  write_bytes("bad_len.npy", "\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr'", 19);
  expect_error("a corrupt header length", 1, "bad_len.npy", "header length", NULL);
  {
    float vals[6] = {1, 2, 3, 4, 5, 6};
    vals[3] = nanf("");
    write_npy("nan.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", vals, sizeof vals);
    expect_error("NaN", 1, "nan.npy", "row 2, column 2", "NaN");
    vals[3] = 4.0f;
    vals[4] = -INFINITY;
    write_npy("inf.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", vals, sizeof vals);
    expect_error("-infinity", 1, "inf.npy", "row 3, column 1", "infinity");
  }
  expect_error("a missing file", 1, "no_such_file.npy", "cannot open", NULL);
}

static void test_fewer_points_than_k(void) {
  sk_mix_data data;
  sk_ex_error err;
  write_text("three.csv", "1\n2\n3\n");
  sk_test_context("N < K");
  if (!SK_CHECK(sk_mix_read_csv(path_of("three.csv"), &data, &err) == 0, "%s", err.message)) return;
  SK_CHECK(sk_mix_data_check_k(&data, 3, path_of("three.csv"), &err) == 0, "K = N = 3 refused: %s", err.message);
  SK_CHECK(sk_mix_data_check_k(&data, 4, path_of("three.csv"), &err) != 0 && strstr(err.message, "three.csv") != NULL &&
               strstr(err.message, "fewer than K = 4") != NULL,
           "K = 4 > N = 3: '%s'", err.message);
  SK_CHECK(
      sk_mix_data_check_k(&data, 0, "x", &err) != 0 && sk_mix_data_check_k(&data, SK_MIX_MAX_K + 1, "x", &err) != 0,
      "K out of [1, %d] accepted", SK_MIX_MAX_K);
  sk_mix_data_free(&data);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/sk_mix_readers_XXXXXX");
  if (mkdtemp(g_dir) == NULL) {
    fprintf(stderr, "cannot create a temporary folder\n");
    return 1;
  }
  test_csv();
  test_npy();
  test_fewer_points_than_k();
  const int rc = sk_test_finish();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
  return rc;
}
