/**
 * \file output.h
 * \brief sk-mixture's files: assign.txt, components.csv, trace.csv (fit), data.npy / data.csv and the
 * truth (gen). Each is written under a temporary name and renamed, so no reader sees half a file.
 *
 * - `assign.txt`: one line per point, its component (0 to K - 1) after the last sweep.
 * - `components.csv`: header `estimate,component,weight,mean_1..mean_D,var_1..var_D`; K rows with
 *   estimate `last` (the last sweep's parameters), then K rows `average` (each parameter averaged over
 *   sweeps floor(n / 2) + 1 to n; components keep their labels, so an average mixes two components
 *   only if they swapped labels during that half, which well-separated data does not do). Data units.
 * - `trace.csv`: header `sweep,seconds,log_likelihood,log_joint,size_0..size_(K-1)`; a row per sweep
 *   (metrics.h: both of the state at the end of the sweep; seconds since the first sweep began).
 * - gen: `data.npy` (N x D float32, C order: sk_ex_write_npy_f32() of sk_ex_npy.h) or `data.csv` (no
 *   header, sk_mix_write_csv_f32()), `truth_assign.txt`, `truth_components.csv` (as components.csv with
 *   estimate `planted`).
 * Numbers are printed with 9 significant digits for floats and 17 for doubles (they read back exactly).
 */
#ifndef SK_MIX_OUTPUT_H
#define SK_MIX_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "mixture.h"
#include "sk_ex_files.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Mixture components in the data's units (a fit's or the planted ones). */
typedef struct sk_mix_components {
  int32_t k;      /**< components */
  int32_t d;      /**< dimensions */
  double *weight; /**< K weights */
  double *mean;   /**< K x D means */
  double *var;    /**< K x D variances */
} sk_mix_components;

/**
 * \brief Allocates K x D components, zeroed.
 * \param c filled; free with sk_mix_components_free().
 * \param k components.
 * \param d dimensions.
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_components_alloc(sk_mix_components *c, int32_t k, int32_t d, sk_ex_error *err);

/** \brief Frees components and zeroes them; NULL is fine. \param c the components. */
void sk_mix_components_free(sk_mix_components *c);

/**
 * \brief Adds the parameters, in the data's units, times `w` to `acc` (`acc += w * params`): with w = 1
 * on zeroed components, the parameters themselves; with w = 1 / count over sweeps, their average.
 * \param acc the components to add to.
 * \param data the data (its means and scales).
 * \param p the parameters (standardized units).
 * \param w the factor.
 */
void sk_mix_components_add(sk_mix_components *acc, const sk_mix_data *data, const sk_mix_params *p, double w);

/**
 * \brief Writes assignments, one per line.
 * \param path the file.
 * \param z n components.
 * \param n points.
 * \param err the file and what failed.
 * \return 0 on success.
 */
int sk_mix_write_assign(const char *path, const int32_t *z, int64_t n, sk_ex_error *err);

/**
 * \brief Writes components.csv: the rows of each set under its label (sets may be NULL to leave out).
 * \param path the file.
 * \param sets the component sets.
 * \param labels their labels in the `estimate` column.
 * \param count number of sets.
 * \param err the file and what failed.
 * \return 0 on success.
 */
int sk_mix_write_components(const char *path, const sk_mix_components *const *sets, const char *const *labels,
                            int count, sk_ex_error *err);

/**
 * \brief Writes N x D floats as CSV without a header.
 * \param path the file.
 * \param x the values.
 * \param n rows.
 * \param d columns.
 * \param err the file and what failed.
 * \return 0 on success.
 */
int sk_mix_write_csv_f32(const char *path, const float *x, int64_t n, int32_t d, sk_ex_error *err);

/** \brief trace.csv, kept as text; the caller writes the file when it likes (sk-mixture fit: at the end and
 * every 10 seconds, so that a run cut short keeps most of its trace). */
typedef struct sk_mix_trace {
  char *path; /**< the file, or NULL for no file */
  char *text; /**< the rows so far */
  size_t len; /**< bytes in text */
  size_t cap; /**< bytes allocated */
} sk_mix_trace;

/**
 * \brief Starts a trace with its header.
 * \param t filled; close with sk_mix_trace_close().
 * \param path the file, or NULL for none.
 * \param k components (size columns).
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_trace_open(sk_mix_trace *t, const char *path, int32_t k, sk_ex_error *err);

/**
 * \brief Appends a row, and writes the whole file when asked.
 * \param t the trace.
 * \param sweep the sweep.
 * \param seconds since the first sweep began.
 * \param log_lik the log-likelihood.
 * \param log_joint the log joint density.
 * \param sizes K component sizes.
 * \param k components.
 * \param write_file 0 to append without rewriting the file yet (the caller writes it later).
 * \param err the file and what failed.
 * \return 0 on success.
 */
int sk_mix_trace_row(sk_mix_trace *t, uint64_t sweep, double seconds, double log_lik, double log_joint,
                     const int64_t *sizes, int32_t k, int write_file, sk_ex_error *err);

/**
 * \brief Writes the trace's file now.
 * \param t the trace.
 * \param err the file and what failed.
 * \return 0 on success (and when the trace has no file).
 */
int sk_mix_trace_flush(sk_mix_trace *t, sk_ex_error *err);

/** \brief Frees a trace; NULL is fine. \param t the trace. */
void sk_mix_trace_close(sk_mix_trace *t);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_OUTPUT_H */
