/* A float matrix as a NumPy .npy file (sk_ex_npy.h). */
#include "sk_ex_npy.h"

#include <stdio.h>
#include <stdlib.h>

#include "sk_ex_files.h"

/* The rows computed per callback: about 4 MiB of floats, at least one row. */
#define SK_EX_NPY_BLOCK_FLOATS ((int64_t)1 << 20)

typedef struct npy_ctx {
  int64_t rows, cols;
  const float *x;             /* the whole matrix, or NULL */
  sk_ex_npy_rows_f32 rows_fn; /* else: computes blocks of rows into buf */
  const void *fn_ctx;
  float *buf;
  int64_t block; /* rows of buf */
  int *fn_failed; /* set to 1 when rows_fn fails, for the message */
} npy_ctx;

/* The magic, version 1.0, the header length and the dictionary, padded so the data starts at a multiple of
   64 bytes: NumPy aligns the data so, and readers that map the file expect it. */
static int npy_header(FILE *f, int64_t rows, int64_t cols) {
  char header[192];
  int len = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld, %lld), }",
                     (long long)rows, (long long)cols);
  if (len < 0 || (size_t)len + 64 > sizeof header) return 1;
  while ((10 + len + 1) % 64 != 0) header[len++] = ' ';
  header[len++] = '\n';
  const unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
  return fwrite(pre, 1, sizeof pre, f) != sizeof pre || fwrite(header, 1, (size_t)len, f) != (size_t)len;
}

static int npy_body(FILE *f, const void *p) {
  const npy_ctx *m = (const npy_ctx *)p;
  if (npy_header(f, m->rows, m->cols) != 0) return 1;
  if (m->rows == 0 || m->cols == 0) return 0;
  if (m->x != NULL) {
    const size_t count = (size_t)m->rows * (size_t)m->cols;
    return fwrite(m->x, sizeof(float), count, f) != count;
  }
  for (int64_t first = 0; first < m->rows; first += m->block) {
    const int64_t count = m->rows - first < m->block ? m->rows - first : m->block;
    const size_t n = (size_t)count * (size_t)m->cols;
    if (m->rows_fn(m->fn_ctx, first, count, m->buf) != 0) return *m->fn_failed = 1;
    if (fwrite(m->buf, sizeof(float), n, f) != n) return 1;
  }
  return 0;
}

/* The checks both writers share; 0 when the shape can be written. */
static int npy_check(const char *path, int64_t rows, int64_t cols, sk_ex_error *err) {
  if (path == NULL) return sk_ex_fail(err, "write .npy: the path is NULL");
  if (rows < 0 || cols < 0)
    return sk_ex_fail(err, "%s: invalid shape (%lld, %lld)", path, (long long)rows, (long long)cols);
  if (cols > 0 && (uint64_t)rows > (uint64_t)SIZE_MAX / sizeof(float) / (uint64_t)cols)
    return sk_ex_fail(err, "%s: shape (%lld, %lld) is too large", path, (long long)rows, (long long)cols);
  /* '<f4' promises little-endian bytes, and the values go out as they are in memory. */
  const uint32_t one = 1;
  if (*(const unsigned char *)&one != 1) return sk_ex_fail(err, "%s: .npy writing needs a little-endian host", path);
  return 0;
}

int sk_ex_write_npy_f32(const char *path, const float *x, int64_t rows, int64_t cols, sk_ex_error *err) {
  if (npy_check(path, rows, cols, err) != 0) return 1;
  if (x == NULL && rows > 0 && cols > 0) return sk_ex_fail(err, "%s: the values are NULL", path);
  const npy_ctx m = {rows, cols, x, NULL, NULL, NULL, 0, NULL};
  return sk_ex_write_file(path, npy_body, &m, err);
}

int sk_ex_write_npy_f32_rows(const char *path, int64_t rows, int64_t cols, sk_ex_npy_rows_f32 rows_fn,
                             const void *ctx, sk_ex_error *err) {
  if (npy_check(path, rows, cols, err) != 0) return 1;
  if (rows_fn == NULL) return sk_ex_fail(err, "%s: no function computes the rows", path);
  int fn_failed = 0;
  npy_ctx m = {rows, cols, NULL, rows_fn, ctx, NULL, 0, &fn_failed};
  if (rows > 0 && cols > 0) {
    m.block = SK_EX_NPY_BLOCK_FLOATS / cols > 0 ? SK_EX_NPY_BLOCK_FLOATS / cols : 1;
    if (m.block > rows) m.block = rows;
    m.buf = (float *)malloc((size_t)m.block * (size_t)cols * sizeof(float));
    if (m.buf == NULL) return sk_ex_fail(err, "%s: out of memory for %lld rows of %lld floats", path,
                                         (long long)m.block, (long long)cols);
  }
  const int rc = sk_ex_write_file(path, npy_body, &m, err);
  if (rc != 0 && fn_failed) sk_ex_fail(err, "%s: the rows could not be computed", path);
  free(m.buf);
  return rc;
}
