/**
 * \file sk_ex_npy.h
 * \brief A matrix of floats as a NumPy `.npy` file, for both examples (sk-mixture's generated data,
 * sk-lda's topic-word matrix phi): what `numpy.load()` reads with no options.
 *
 * **The file** (NumPy's format 1.0): the 6 bytes "\x93NUMPY", the version bytes 1 and 0, the header's
 * length HLEN as a little-endian uint16, then HLEN bytes of header, the ASCII dictionary
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (ROWS, COLS), }` padded with spaces and ended by a
 * newline so that the data starts at a multiple of 64 bytes; then ROWS x COLS IEEE-754 float32 values,
 * little-endian, in C order (row after row). A 0 x COLS or ROWS x 0 matrix is a header with no data.
 * The values are written as they are in memory, so the host must be little-endian (every platform the
 * examples build on); a big-endian host gets an error, not a wrong file.
 * The file is written through the temporary-file protocol of sk_ex_files.h (PATH ".tmp", fsync, rename):
 * a reader never sees half a file.
 *
 * Errors: 0 on success, non-zero on failure with `err` filled (when not NULL) by one line naming the
 * path. Threading: no shared state; calls on different paths may run at once.
 */
#ifndef SK_EX_NPY_H
#define SK_EX_NPY_H

#include <stdint.h>

#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Writes a `rows` x `cols` float32 matrix, C order, as a `.npy` file (format 1.0, '<f4').
 *
 * Work O(rows cols), no copy of the values.
 * \param path the file.
 * \param x the values, `x[r * cols + c]`; may be NULL when rows or cols is 0.
 * \param rows the rows, >= 0.
 * \param cols the columns, >= 0.
 * \param err a NULL argument, a negative or too large size, a big-endian host, or what failed in the
 *        writing (the file named); PATH is then untouched.
 * \return 0 on success.
 */
int sk_ex_write_npy_f32(const char *path, const float *x, int64_t rows, int64_t cols, sk_ex_error *err);

/**
 * \brief Computes rows `first` .. `first + count - 1` of a matrix into `out` (count x cols, C order).
 * \param ctx the caller's context.
 * \param first the first row.
 * \param count the rows, >= 1.
 * \param out receives count x cols values.
 * \return 0 on success; non-zero stops the writing (the file is not written).
 */
typedef int (*sk_ex_npy_rows_f32)(const void *ctx, int64_t first, int64_t count, float *out);

/**
 * \brief sk_ex_write_npy_f32() of a matrix that is never whole in memory: `rows_fn` computes it a block of
 * rows at a time into a buffer of about 4 MiB (at least one row), in increasing row order, so memory is
 * O(cols) however many rows (sk-lda's K x V phi of a large model).
 *
 * Work O(rows cols) plus the callback's; the same bytes as sk_ex_write_npy_f32() of the whole matrix.
 * \param path the file.
 * \param rows the rows, >= 0.
 * \param cols the columns, >= 0.
 * \param rows_fn computes the rows (not called when rows or cols is 0).
 * \param ctx passed to rows_fn.
 * \param err as sk_ex_write_npy_f32(), or "the rows could not be computed" when rows_fn fails, or out of
 *        memory for the buffer; PATH is then untouched.
 * \return 0 on success.
 */
int sk_ex_write_npy_f32_rows(const char *path, int64_t rows, int64_t cols, sk_ex_npy_rows_f32 rows_fn,
                             const void *ctx, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_NPY_H */
