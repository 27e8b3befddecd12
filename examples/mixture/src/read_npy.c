/* The .npy reader (data.h): NumPy's format 1.0, 2.0 and 3.0, 2-D float32 or float64 in C order. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

/* The largest header we accept: NumPy writes a few hundred bytes; this bounds a corrupt length field. */
#define SK_MIX_NPY_MAX_HEADER (1u << 20)

/* The value of key `key` in the header's dictionary text: a pointer just past "'key':" and spaces, or NULL. */
static const char *dict_value(const char *header, const char *key) {
  char quoted[32];
  snprintf(quoted, sizeof quoted, "'%s'", key);
  const char *p = strstr(header, quoted);
  if (p == NULL) {
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    p = strstr(header, quoted);
  }
  if (p == NULL) return NULL;
  p += strlen(quoted);
  while (*p == ' ') ++p;
  if (*p != ':') return NULL;
  ++p;
  while (*p == ' ') ++p;
  return p;
}

/* Whether a header's descr value is the string `want`, in single quotes (numpy's own) or double (JSON-like
   writers; Python reads both). */
static int dtype_is(const char *descr, const char *want) {
  const size_t n = strlen(want);
  return (descr[0] == '\'' || descr[0] == '"') && strncmp(descr + 1, want, n) == 0 && descr[n + 1] == descr[0];
}

/* Parses "(N, D)" into dims (at most 3 kept); returns the number of dimensions, or -1 if malformed. */
static int parse_shape(const char *p, long long dims[3]) {
  int count = 0;
  if (*p != '(') return -1;
  ++p;
  for (;;) {
    while (*p == ' ') ++p;
    if (*p == ')') return count;
    if (!isdigit((unsigned char)*p)) return -1;
    char *end = NULL;
    errno = 0;
    const long long v = strtoll(p, &end, 10);
    if (errno == ERANGE) return -1;
    if (count < 3) dims[count] = v;
    ++count;
    p = end;
    while (*p == ' ') ++p;
    if (*p == ',')
      ++p;
    else if (*p != ')')
      return -1;
  }
}

/* The header of an open .npy file: element size (4 or 8), rows and columns; err names `path`. */
static int read_header(FILE *f, const char *path, int *elem, long long *rows, long long *cols, sk_ex_error *err) {
  unsigned char pre[12];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0)
    return sk_ex_fail(err, "%s: not a .npy file (it does not start with \\x93NUMPY)", path);
  const int major = pre[6];
  uint32_t len;
  if (major == 1) {
    if (fread(pre + 8, 1, 2, f) != 2) return sk_ex_fail(err, "%s: truncated .npy header", path);
    len = (uint32_t)pre[8] | (uint32_t)pre[9] << 8;
  } else if (major == 2 || major == 3) {
    if (fread(pre + 8, 1, 4, f) != 4) return sk_ex_fail(err, "%s: truncated .npy header", path);
    len = (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
  } else {
    return sk_ex_fail(err, "%s: .npy format version %d.%d; sk-mixture reads versions 1, 2 and 3", path, major, pre[7]);
  }
  if (len == 0 || len > SK_MIX_NPY_MAX_HEADER)
    return sk_ex_fail(err, "%s: .npy header length %u is out of range (a corrupt file?)", path, (unsigned)len);
  char *header = (char *)malloc((size_t)len + 1);
  if (header == NULL) {
    sk_ex_fail(err, "%s: out of memory for the header", path);
    return SK_MIX_READ_MACHINE;
  }
  if (fread(header, 1, len, f) != len) {
    free(header);
    return sk_ex_fail(err, "%s: truncated .npy header (%u bytes announced)", path, (unsigned)len);
  }
  header[len] = '\0';
  if (strlen(header) != (size_t)len) {
    free(header);
    return sk_ex_fail(err, "%s: the .npy header holds a NUL byte (a corrupt file?)", path);
  }
  int rc = 0;
  const char *descr = dict_value(header, "descr"), *order = dict_value(header, "fortran_order");
  const char *shape = dict_value(header, "shape");
  long long dims[3] = {0, 0, 0};
  int ndim = shape ? parse_shape(shape, dims) : -1;
  if (descr == NULL || order == NULL || shape == NULL || ndim < 0) {
    rc = sk_ex_fail(err, "%s: malformed .npy header (it needs 'descr', 'fortran_order' and 'shape'): %.120s", path,
                     header);
  } else if (!dtype_is(descr, "<f4") && !dtype_is(descr, "<f8")) {
    char dt[48] = "";
    if (sscanf(descr, "'%47[^']", dt) != 1 && sscanf(descr, "\"%47[^\"]", dt) != 1)
      snprintf(dt, sizeof dt, "%.40s", descr); /* not a quoted string: a structured dtype, say */
    rc = sk_ex_fail(err,
                     "%s: dtype '%s' is not supported: sk-mixture reads little-endian float32 ('<f4') or float64 "
                     "('<f8'); convert with numpy's astype",
                     path, dt);
  } else if (strncmp(order, "False", 5) != 0) {
    rc = sk_ex_fail(err,
                     "%s: the array is in Fortran (column-major) order; save it in C order "
                     "(numpy.ascontiguousarray) first",
                     path);
  } else if (ndim != 2) {
    rc = sk_ex_fail(err, "%s: a %d-D array; sk-mixture wants a 2-D array of N points x D dimensions%s", path, ndim,
                     ndim == 1 ? " (reshape(-1, 1) for one dimension)" : "");
  } else {
    *elem = descr[3] == '4' ? 4 : 8;
    *rows = dims[0];
    *cols = dims[1];
  }
  free(header);
  return rc;
}

/* The first non-finite value, as "row R, column C: what". Returns 1 when there is one. */
static int find_non_finite(const void *v, int elem, long long rows, long long cols, const char *path,
                           sk_ex_error *err) {
  for (long long i = 0; i < rows; ++i)
    for (long long j = 0; j < cols; ++j) {
      const size_t at = (size_t)i * (size_t)cols + (size_t)j;
      const double x = elem == 4 ? (double)((const float *)v)[at] : ((const double *)v)[at];
      if (!isfinite(x))
        return sk_ex_fail(err, "%s: row %lld, column %lld: %s (sk-mixture needs finite values)", path, i + 1, j + 1,
                           isnan(x) ? "NaN"
                           : x > 0  ? "+infinity"
                                    : "-infinity");
    }
  return 0;
}

int sk_mix_read_npy(const char *path, sk_mix_data *out, sk_ex_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) return sk_ex_fail(err, "%s: cannot open: %s", path, strerror(errno));
  int elem = 0;
  long long rows = 0, cols = 0;
  if (read_header(f, path, &elem, &rows, &cols, err) != 0) {
    fclose(f);
    return 1;
  }
  if (rows < 1 || cols < 1 || cols > SK_MIX_MAX_D) {
    fclose(f);
    return sk_ex_fail(err, "%s: shape (%lld, %lld): sk-mixture needs N >= 1 points and 1 to %d dimensions", path, rows,
                       cols, SK_MIX_MAX_D);
  }
  /* Compare the file's size with the header's shape before allocating: a truncated or corrupt file
     must not ask for more memory than it could hold. */
  const long header_end = ftell(f);
  const unsigned long long row_bytes = (unsigned long long)cols * (unsigned long long)elem;
  if (header_end < 0 || fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return sk_ex_fail(err, "%s: cannot seek: %s", path, strerror(errno));
  }
  const long long file_end = (long long)ftell(f);
  const unsigned long long have = file_end > header_end ? (unsigned long long)(file_end - header_end) : 0u;
  if ((unsigned long long)rows > have / row_bytes) {
    fclose(f);
    return sk_ex_fail(err,
                       "%s: truncated: row %llu of %lld is incomplete (the data ends after %llu bytes, rows of "
                       "%llu bytes)",
                       path, have / row_bytes + 1, rows, have, row_bytes);
  }
  const unsigned long long want = row_bytes * (unsigned long long)rows; /* <= have: no overflow */
  if (have > want) {
    fclose(f);
    return sk_ex_fail(err, "%s: %llu bytes after the last of the %lld rows the header announces", path, have - want,
                       rows);
  }
  void *values = malloc((size_t)want);
  if (values == NULL) {
    fclose(f);
    sk_ex_fail(err, "%s: out of memory for %lld x %lld values", path, rows, cols);
    return SK_MIX_READ_MACHINE;
  }
  int rc = 0;
  if (fseek(f, header_end, SEEK_SET) != 0 || fread(values, 1, (size_t)want, f) != (size_t)want) {
    const int machine = ferror(f); /* else short: the file changed after its size was checked */
    sk_ex_fail(err, "%s: read error: %s", path, machine ? strerror(errno) : "the file changed while being read");
    rc = machine ? SK_MIX_READ_MACHINE : 1;
  }
  fclose(f);
  if (rc == 0) rc = find_non_finite(values, elem, rows, cols, path, err);
  if (rc == 0 && (rc = elem == 4 ? sk_mix_data_from_f32((const float *)values, rows, (int32_t)cols, out, err)
                                 : sk_mix_data_from_f64((const double *)values, rows, (int32_t)cols, out, err)) != 0)
    sk_ex_error_prefix(err, path);
  free(values);
  return rc;
}
