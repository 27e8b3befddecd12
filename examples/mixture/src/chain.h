/**
 * \file chain.h
 * \brief The Gibbs chain: the state (parameters, statistics, assignments) and its sweeps on the CPU or
 * a GPU.
 *
 * One sweep of uncollapsed Gibbs: (1) every z_n from p(k) proportional to pi_k N(x_n | mu_k, sigma2_k)
 * (zstep.h; on the chosen device); (2) the statistics of the new z (stats.h; on the device); (3) pi, mu,
 * sigma2 from their conjugate posteriors (posterior.h; on the host). The chain starts from init.h's
 * parameters. Every random number is a pure function of (seed, sweep, index) and every sum exact or in
 * a fixed order, so a chain is the same for a seed on the CPU (any thread count) and on a GPU (any
 * launch shape): tests/mixture checks both.
 */
#ifndef SK_MIX_CHAIN_H
#define SK_MIX_CHAIN_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Where the z-step and the statistics run. */
typedef enum sk_mix_device_kind {
  SK_MIX_DEVICE_CPU = 0, /**< the CPU reference (OpenMP) */
  SK_MIX_DEVICE_GPU = 1  /**< a CUDA GPU (gpu/mix_gpu.h); only in a build with the CUDA part */
} sk_mix_device_kind;

/** \brief How a chain runs; zeros give the CPU with every thread. */
typedef struct sk_mix_chain_options {
  int device;                   /**< #sk_mix_device_kind */
  int threads;                  /**< CPU threads for every host step (<= 0: all); the results do not depend on it */
  int gpu_device;               /**< CUDA device ordinal */
  const char *gpu_zstep_kernel; /**< NULL: the z-step kernel table's choice; else a row's name (gpu/mix_gpu.h) */
  int gpu_warps;                /**< z-step warps per block (0: automatic) */
  int gpu_blocks;               /**< blocks (0: automatic) */
} sk_mix_chain_options;

struct sk_mix_gpu;

/** \brief A chain. Read its fields; change them only through the functions below. */
typedef struct sk_mix_chain {
  const sk_mix_data *data;      /**< the data (not owned) */
  sk_mix_prior prior;           /**< the prior */
  int32_t k;                    /**< components */
  uint64_t seed;                /**< the seed of every random number */
  sk_mix_chain_options options; /**< as created */
  sk_mix_params params;         /**< the current parameters */
  sk_mix_ztable table;          /**< the z-step's table of the current parameters */
  sk_mix_stats stats;           /**< the statistics of the current z (zero before the first sweep) */
  int32_t *z;                   /**< N: the current z on the host (GPU: as of sk_mix_chain_fetch_z()) */
  uint64_t sweeps;              /**< sweeps done */
  double seconds[3];            /**< wall time so far in the z-step, the statistics, the parameter step */
  struct sk_mix_gpu *gpu;       /**< the device state (GPU chains) */
} sk_mix_chain;

/**
 * \brief Creates a chain at its starting parameters (init.h).
 * \param data the standardized data (kept by pointer: it must outlive the chain).
 * \param prior the prior.
 * \param k components, 1 to #SK_MIX_MAX_K and at most N.
 * \param seed the seed.
 * \param o options, or NULL for the defaults.
 * \param out receives the chain; free with sk_mix_chain_destroy().
 * \param err a bad prior or K, data that is not standardized, no GPU, or out of memory.
 * \return 0 on success.
 */
int sk_mix_chain_create(const sk_mix_data *data, const sk_mix_prior *prior, int32_t k, uint64_t seed,
                        const sk_mix_chain_options *o, sk_mix_chain **out, sk_ex_error *err);

/**
 * \brief Sets the current parameters (and the table), for example to start a test chain elsewhere.
 * \param c the chain.
 * \param p parameters with the chain's K and D.
 */
void sk_mix_chain_set_params(sk_mix_chain *c, const sk_mix_params *p);

/**
 * \brief One sweep (number c->sweeps + 1): z-step, statistics, parameter step.
 * \param c the chain.
 * \param err a device failure.
 * \return 0 on success.
 */
int sk_mix_chain_sweep(sk_mix_chain *c, sk_ex_error *err);

/**
 * \brief Brings the current z to c->z (a no-op on the CPU).
 * \param c the chain.
 * \param err a device failure.
 * \return 0 on success.
 */
int sk_mix_chain_fetch_z(sk_mix_chain *c, sk_ex_error *err);

/** \brief Frees the chain; NULL is fine. \param c the chain. */
void sk_mix_chain_destroy(sk_mix_chain *c);

/**
 * \brief Whether this build has the CUDA part.
 * \return 1 with it, 0 without.
 */
int sk_mix_have_gpu(void);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_CHAIN_H */
