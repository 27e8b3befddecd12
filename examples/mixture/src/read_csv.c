/* The CSV reader (data.h): numbers separated by commas, an optional header line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

/* Cells of one line, split in place at the commas, with spaces and tabs around each trimmed. */
#define SK_MIX_CSV_MAX_CELLS (SK_MIX_MAX_D + 1)

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') ++s;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
  return s;
}

/* Splits `line` at commas into at most `cap` cells; returns the number of cells (cap + 1 means more). */
static int split(char *line, char **cells, int cap) {
  int n = 0;
  char *p = line;
  for (;;) {
    char *comma = strchr(p, ',');
    if (comma != NULL) *comma = '\0';
    if (n < cap) cells[n] = trim(p);
    ++n;
    if (comma == NULL || n > cap) return n;
    p = comma + 1;
  }
}

/* Whether the whole cell is a number (strtod's syntax, which also accepts nan and inf). */
static int parse_number(const char *cell, double *v) {
  char *end = NULL;
  if (cell[0] == '\0') return 0;
  errno = 0;
  *v = strtod(cell, &end);
  return end != cell && *end == '\0';
}

/* Whether the whole cell is a plain decimal number: [+-] digits [. digits] [e [+-] digits], with digits
   on at least one side of the point. strtod also takes hexadecimal ("0x10", "0x1p3"), "inf", "nan" and
   leading white space of every kind; a CSV cell written as one of those is refused, not reinterpreted. */
static int is_decimal(const char *s) {
  int digits = 0;
  if (*s == '+' || *s == '-') ++s;
  for (; *s >= '0' && *s <= '9'; ++s) ++digits;
  if (*s == '.')
    for (++s; *s >= '0' && *s <= '9'; ++s) ++digits;
  if (digits == 0) return 0;
  if (*s == 'e' || *s == 'E') {
    ++s;
    if (*s == '+' || *s == '-') ++s;
    if (!(*s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') ++s;
  }
  return *s == '\0';
}

/* Whether the cell is strtod's hexadecimal form, "0x..." after an optional sign. */
static int is_hexadecimal(const char *s) {
  if (*s == '+' || *s == '-') ++s;
  return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* A growing buffer of doubles. */
typedef struct values {
  double *p;
  size_t n, cap;
} values;

static int push(values *v, double x) {
  if (v->n == v->cap) {
    const size_t cap = v->cap ? 2 * v->cap : 4096;
    double *q = (double *)realloc(v->p, sizeof(double) * cap);
    if (q == NULL) return 1;
    v->p = q;
    v->cap = cap;
  }
  v->p[v->n++] = x;
  return 0;
}

/* Checks one data row's cells and appends them; the message names the row (counting data rows) and line. */
static int take_row(char **cells, int n, int cols, int header, const char *path, long long row, long long line,
                    values *out, sk_ex_error *err) {
  if (n != cols)
    return sk_ex_fail(err, "%s: row %lld (line %lld) has %s%d cells, the %s has %d", path, row, line,
                       n > SK_MIX_CSV_MAX_CELLS - 1 ? "more than " : "",
                       n > SK_MIX_CSV_MAX_CELLS - 1 ? SK_MIX_CSV_MAX_CELLS - 1 : n, header ? "header" : "first row",
                       cols);
  for (int j = 0; j < n; ++j) {
    double x;
    if (cells[j][0] == '\0')
      return sk_ex_fail(err, "%s: row %lld (line %lld), column %d is empty", path, row, line, j + 1);
    if (!parse_number(cells[j], &x))
      return sk_ex_fail(err, "%s: row %lld (line %lld), column %d: '%.40s' is not a number", path, row, line, j + 1,
                         cells[j]);
    if (!isfinite(x))
      return sk_ex_fail(err, "%s: row %lld (line %lld), column %d: '%.40s' is %s (sk-mixture needs finite values)",
                         path, row, line, j + 1, cells[j],
                         isnan(x)          ? "NaN"
                         : errno == ERANGE ? "out of range"
                                           : "infinite");
    if (!is_decimal(cells[j]))
      return sk_ex_fail(err,
                         "%s: row %lld (line %lld), column %d: '%.40s' is %s (sk-mixture reads decimal numbers only)",
                         path, row, line, j + 1, cells[j],
                         is_hexadecimal(cells[j]) ? "hexadecimal" : "not a plain decimal number");
    if (push(out, x) != 0) {
      sk_ex_fail(err, "%s: out of memory at row %lld", path, row);
      return SK_MIX_READ_MACHINE;
    }
  }
  return 0;
}

int sk_mix_read_csv(const char *path, sk_mix_data *out, sk_ex_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) return sk_ex_fail(err, "%s: cannot open: %s", path, strerror(errno));
  char *line = NULL, *cells[SK_MIX_CSV_MAX_CELLS];
  size_t cap = 0;
  ssize_t len;
  long long line_no = 0, rows = 0, blank_line = 0;
  int cols = -1, header = 0, rc = 0;
  values v = {NULL, 0, 0};
  while (rc == 0 && (errno = 0, len = getline(&line, &cap, f)) >= 0) {
    ++line_no;
    if ((size_t)len != strlen(line)) {
      rc = sk_ex_fail(err, "%s: line %lld holds a NUL byte (not a text file?)", path, line_no);
      break;
    }
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    /* A UTF-8 byte order mark (as spreadsheet programs write) is not part of the first cell. */
    if (line_no == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0) memmove(line, line + 3, (size_t)(len -= 3) + 1);
    if (trim(line)[0] == '\0') { /* blank: fine only at the end of the file */
      if (blank_line == 0) blank_line = line_no;
      continue;
    }
    if (blank_line != 0) {
      rc =
          sk_ex_fail(err, "%s: line %lld is blank, between row %lld and the next (remove it)", path, blank_line, rows);
      break;
    }
    const int n = split(line, cells, SK_MIX_CSV_MAX_CELLS - 1);
    /* The first line: a header when none of its cells is a number to strtod (its wider syntax, so that
       a first line of "0x10" or "nan" is refused as data, not skipped as a header). A line of numbers and
       words both is a row with a typo or a header with a number in it: refused, not guessed (taken as a
       header it would drop a row without a word). */
    if (cols < 0) {
      double x;
      const int counted = n < SK_MIX_CSV_MAX_CELLS - 1 ? n : SK_MIX_CSV_MAX_CELLS - 1;
      int words = 0, first_word = -1;
      for (int j = 0; j < counted; ++j)
        if (!parse_number(cells[j], &x)) {
          ++words;
          if (first_word < 0) first_word = j;
        }
      if (words > 0 && words < counted) {
        rc = sk_ex_fail(err,
                        "%s: line 1 holds numbers and %d cell(s) that are not, the first in column %d ('%.40s'): "
                        "a header's cells are all names and a row's all numbers; fix the line",
                        path, words, first_word + 1, cells[first_word]);
        break;
      }
      header = words > 0;
      if (n > SK_MIX_MAX_D) {
        rc = sk_ex_fail(err, "%s: line 1 has more than %d columns; sk-mixture takes 1 to %d dimensions", path,
                         SK_MIX_MAX_D, SK_MIX_MAX_D);
        break;
      }
      cols = n;
      if (header) continue;
    }
    ++rows;
    rc = take_row(cells, n, cols, header, path, rows, line_no, &v, err);
  }
  /* getline's -1 is the end of the file only when feof says so: out of memory (a line longer than memory)
     or a read error must not pass for a file that ends there. */
  if (rc == 0 && (ferror(f) || !feof(f))) {
    sk_ex_fail(err, "%s: reading line %lld failed: %s", path, line_no + 1,
               errno != 0 ? strerror(errno) : "read error");
    rc = SK_MIX_READ_MACHINE;
  }
  if (rc == 0 && rows == 0) rc = sk_ex_fail(err, "%s: no data rows", path);
  fclose(f);
  free(line);
  if (rc == 0 && (rc = sk_mix_data_from_f64(v.p, rows, cols, out, err)) != 0) sk_ex_error_prefix(err, path);
  free(v.p);
  return rc;
}
