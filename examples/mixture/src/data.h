/**
 * \file data.h
 * \brief Building the sampler's data (mixture.h's sk_mix_data) from raw values, and reading it from
 * `.npy` and CSV files.
 *
 * Readers check everything and name the file, and the row where there is one, in every error:
 * - CSV: numbers separated by commas (spaces or tabs around them are ignored), one row a line, LF or
 *   CRLF, a UTF-8 byte order mark at the start ignored; an optional first line of column names (a header
 *   when none of its cells is a number; a first line of numbers and names both is refused, not guessed);
 *   every row with the header's (or the first row's) number of cells; no empty cell, no
 *   blank line between rows; no NaN or infinity. Row numbers in messages count data rows from 1, and
 *   the line number is given too.
 * - `.npy`: format version 1, 2 or 3; a 2-D array of little-endian float32 (`<f4`) or float64 (`<f8`)
 *   in C order; the file exactly as long as its header says; no NaN or infinity (the message gives the
 *   row and column).
 * Both then need D <= #SK_MIX_MAX_D and N >= K (the caller's K; sk_mix_data_check_k()).
 */
#ifndef SK_MIX_DATA_H
#define SK_MIX_DATA_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief What the readers and sk_mix_data_from_f32() / _f64() return when the machine failed (out of
 * memory, a read error), as against 1 for the input's fault: exit 1 and exit 2 in the CLI. */
#define SK_MIX_READ_MACHINE 2

/**
 * \brief Standardizes N x D raw values (row-major floats) into `out`: per dimension, mean and
 * population standard deviation in double (two passes, in row order), then (x - mean) / scale rounded
 * to float; a dimension whose deviation is 0 keeps scale 1.
 * \param raw N x D values, finite.
 * \param n points, >= 1.
 * \param d dimensions, 1 to #SK_MIX_MAX_D.
 * \param out filled; free with sk_mix_data_free().
 * \param err sizes out of range, a non-finite value, or out of memory.
 * \return 0 on success; 1 for values that cannot be standardized; #SK_MIX_READ_MACHINE out of memory.
 */
int sk_mix_data_from_f32(const float *raw, int64_t n, int32_t d, sk_mix_data *out, sk_ex_error *err);

/**
 * \brief sk_mix_data_from_f32() for doubles.
 * \param raw N x D values, finite.
 * \param n points, >= 1.
 * \param d dimensions, 1 to #SK_MIX_MAX_D.
 * \param out filled; free with sk_mix_data_free().
 * \param err as for sk_mix_data_from_f32().
 * \return as sk_mix_data_from_f32().
 */
int sk_mix_data_from_f64(const double *raw, int64_t n, int32_t d, sk_mix_data *out, sk_ex_error *err);

/** \brief Frees the data and zeroes it; NULL is fine. \param data the data. */
void sk_mix_data_free(sk_mix_data *data);

/**
 * \brief Checks that K components can be fitted: 1 <= K <= #SK_MIX_MAX_K and N >= K.
 * \param data the data.
 * \param k components.
 * \param source the file's name (or "data") for the message.
 * \param err why not.
 * \return 0 when K fits.
 */
int sk_mix_data_check_k(const sk_mix_data *data, int32_t k, const char *source, sk_ex_error *err);

/**
 * \brief Reads a `.npy` file (the rules of the file's description) and standardizes it.
 * \param path the file.
 * \param out filled; free with sk_mix_data_free().
 * \param err the file, the row where there is one, and what is wrong.
 * \return 0 on success; 1 for a fault of the file; #SK_MIX_READ_MACHINE out of memory or a read error.
 */
int sk_mix_read_npy(const char *path, sk_mix_data *out, sk_ex_error *err);

/**
 * \brief Reads a numeric CSV file (the rules of the file's description) and standardizes it.
 * \param path the file.
 * \param out filled; free with sk_mix_data_free().
 * \param err the file, the row and line, and what is wrong.
 * \return 0 on success; 1 for a fault of the file; #SK_MIX_READ_MACHINE out of memory or a read error (a
 *         file is never taken as shorter than it is).
 */
int sk_mix_read_csv(const char *path, sk_mix_data *out, sk_ex_error *err);

/**
 * \brief The raw value of point i in dimension j: mean_j + scale_j x_ij (double).
 * \param data the data.
 * \param i the point.
 * \param j the dimension.
 * \return the value in the data's own units (up to the float rounding of x).
 */
double sk_mix_data_raw(const sk_mix_data *data, int64_t i, int32_t j);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_DATA_H */
