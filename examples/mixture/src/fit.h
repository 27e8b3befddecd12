/**
 * \file fit.h
 * \brief A fit of sk-mixture: everything `sk-mixture fit` does once its data is read: the device, the
 * chain's sweeps with a progress line, the trace, the averages of the second half and the output files.
 */
#ifndef SK_MIX_FIT_H
#define SK_MIX_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "mixture.h"
#include "output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief `--device`: where a fit runs. */
typedef enum sk_mix_fit_device {
  SK_MIX_FIT_AUTO = 0, /**< GPU 0 when there is a usable one, else the CPU (said once) */
  SK_MIX_FIT_CPU = 1,  /**< the CPU */
  SK_MIX_FIT_GPU = 2   /**< GPU 0, or an error (exit 1) */
} sk_mix_fit_device;

/** \brief What a fit does. sk_mix_fit_options_default() gives `sk-mixture fit`'s defaults. */
typedef struct sk_mix_fit_options {
  int32_t k;          /**< components (required by the CLI) */
  int64_t sweeps;     /**< Gibbs sweeps (default 100) */
  uint64_t seed;      /**< seed of every random number (default 1) */
  sk_mix_prior prior; /**< default sk_mix_prior_default() */
  int device;         /**< #sk_mix_fit_device (default auto) */
  int threads;        /**< CPU threads (<= 0: all) */
  const char *out;    /**< output folder (created with its parents), or NULL: no files */
  int overwrite;      /**< replace results already in `out` (without it they are refused, exit 2) */
  int quiet;          /**< no progress, no summary (tests) */
  int verbose;        /**< `-v`: say how the sweeps run (on a GPU: the z-step kernel table, the chosen row and why) */
} sk_mix_fit_options;

/** \brief Fills the defaults. \param o the options. */
void sk_mix_fit_options_default(sk_mix_fit_options *o);

/** \brief What a fit leaves behind for its caller (the demo compares it with the truth). */
typedef struct sk_mix_fit_result {
  int32_t *z;                /**< N components after the last sweep */
  sk_mix_components last;    /**< the last sweep's parameters, data units */
  sk_mix_components average; /**< averaged over the second half of the sweeps */
  double log_lik;            /**< the last state's log-likelihood (metrics.h) */
  double log_joint;          /**< its log joint density */
  int used_gpu;              /**< 1 when the sweeps ran on a GPU */
} sk_mix_fit_result;

/** \brief Frees a result and zeroes it; NULL is fine. \param r the result. */
void sk_mix_fit_result_free(sk_mix_fit_result *r);

/**
 * \brief Resolves `--device`: the chain's device kind, and a note to print once when auto falls back.
 * \param requested #sk_mix_fit_device.
 * \param kind receives SK_MIX_DEVICE_CPU or SK_MIX_DEVICE_GPU (chain.h).
 * \param name receives the GPU's name when one is used ("" otherwise), at most cap bytes.
 * \param note receives the fallback note ("" when none), at most cap bytes.
 * \param cap size of name and note.
 * \param err why `--device gpu` cannot be honoured.
 * \return 0 on success.
 */
int sk_mix_fit_resolve_device(int requested, int *kind, char *name, char *note, size_t cap, sk_ex_error *err);

/**
 * \brief Runs a fit of `data` (its name `source` for messages), printing progress and the summary.
 * \param o the options.
 * \param data the standardized data.
 * \param source the input's name ("demo", a file).
 * \param r zeroed by the caller; filled on success (free with sk_mix_fit_result_free()).
 * \return an exit status: SK_EX_EXIT_OK; SK_EX_EXIT_USAGE for bad options or K (before any sweep);
 *         SK_EX_EXIT_RUNTIME for a device or file failure. Errors are one line on stderr.
 */
int sk_mix_fit(const sk_mix_fit_options *o, const sk_mix_data *data, const char *source, sk_mix_fit_result *r);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_FIT_H */
