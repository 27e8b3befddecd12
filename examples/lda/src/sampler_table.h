/**
 * \file sampler_table.h
 * \brief The table of sk-lda's samplers (sampler.h's seam): each sampler's fits query and create, the
 * device budget, the choice among the samplers before anything is allocated, and the creates that follow
 * it (sampler_table.c).
 *
 * Errors as in sampler.h.
 */
#ifndef SK_LDA_SAMPLER_TABLE_H
#define SK_LDA_SAMPLER_TABLE_H

#include <stdint.h>

#include "model.h"
#include "sampler.h"
#include "sampler_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Whether a sampler can run on a device with a budget, answered before anything is allocated (host
 * work and device queries only).
 *
 * needed_bytes is exact for the resident samplers: the device bytes their create allocates (the metrics'
 * scratch, made on the first evaluation, aside). For the streamed ESCA it is the least budget its chunk
 * planner accepts. A sampler that cannot run there whatever the budget (K too large for AGA's shared
 * memory, more than 2^31 tokens for a resident sampler) has fits 0 and needed_bytes 0; `why` says why
 * whenever fits is 0.
 */
typedef struct sk_lda_sampler_fit {
  int fits;                 /**< 1: it can run there */
  uint64_t needed_bytes;    /**< device bytes it needs (0 on the CPU, where nothing is budgeted) */
  uint64_t available_bytes; /**< the budget it was asked about */
  char why[400];            /**< when fits is 0: why, naming the bytes where the budget is the reason */
} sk_lda_sampler_fit;

/** \brief One sampler of the table: its name, where it runs, its fits query and its create. */
typedef struct sk_lda_sampler_entry {
  const char *name;          /**< "cgs", "esca" (CPU), "esca" (GPU, resident), "esca-streamed", "esca-exact", "aga" */
  int kind;                  /**< the --sampler kind it runs (checkpoints record it): SK_LDA_SAMPLER_* */
  sk_lda_device_kind device; /**< CPU or GPU */
  const char *summary;       /**< one line for -v and logs */
  /** Fills *fit for model m on the resolved device with `budget` device bytes, for the create that `rank`
      would get (NULL: one device; a rank's sampler may keep more, e.g. GPU ESCA's next counts); 0, or
      non-zero with err filled when the question cannot be answered (a CUDA query failed). */
  int (*fits)(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *options,
              const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err);
  /** Makes the sampler (see sk_lda_sampler_create()); `rank` NULL on one device. */
  int (*create)(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *options,
                const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err);
} sk_lda_sampler_entry;

/**
 * \brief The table: every sampler this build has (the GPU ones only with the CUDA part).
 * \param count receives how many.
 * \return the table's *count entries.
 */
const sk_lda_sampler_entry *sk_lda_sampler_table(int *count);

/**
 * \brief The entry named `name` that runs on `device` (CPU or GPU), or NULL.
 * \param name the entry's name.
 * \param device CPU or GPU.
 * \return the entry, or NULL.
 */
const sk_lda_sampler_entry *sk_lda_sampler_find(const char *name, sk_lda_device_kind device);

/**
 * \brief The device budget of a resolved device: device_memory capped by the GPU's free memory, or the
 * free memory less SK_LDA_GPU_MEMORY_MARGIN when device_memory is 0.
 *
 * On the CPU: 0 and 0 (nothing is budgeted).
 * \param device a resolved device.
 * \param budget receives the budget.
 * \param free_bytes when not NULL, gets the free memory.
 * \param err filled on failure.
 * \return 0 on success; non-zero on a CUDA error, or on a GPU device in a build without the CUDA part.
 */
int sk_lda_device_budget(const sk_lda_device *device, uint64_t *budget, uint64_t *free_bytes, sk_ex_error *err);

/** \brief Device bytes left free when no budget is given: for CUDA's own allocations and the metrics' scratch. */
#define SK_LDA_GPU_MEMORY_MARGIN ((uint64_t)1 << 30)

/**
 * \brief What the run asks for: the --sampler kind, the GPU ESCA's exact sweep (--gpu-sweep exact), every
 * sampler's knobs (NULL: the defaults) and, for a rank of a multi-GPU run, its link (NULL: one device).
 */
typedef struct sk_lda_sampler_request {
  int kind;                              /**< the --sampler kind */
  int exact;                             /**< the GPU ESCA's exact sweep (--gpu-sweep exact) */
  const sk_lda_sampler_options *options; /**< every sampler's knobs (NULL: the defaults) */
  const sk_lda_rank_link *rank;          /**< for a rank of a multi-GPU run, its link (NULL: one device) */
} sk_lda_sampler_request;

/** \brief The sampler chosen for a request, and why. */
typedef struct sk_lda_sampler_choice {
  const sk_lda_sampler_entry *entry; /**< what will run */
  sk_lda_sampler_fit fit;            /**< its answer at the budget */
  uint64_t budget;                   /**< the device's budget (0 on the CPU) */
  char why[600];                     /**< why this entry: "--sampler auto: AGA-LDA up to K = 128 on a GPU",
                                          "the resident state needs 1.20 GB, the budget is 0.50 GB: streamed" */
  int unfit;                         /**< on failure: 1 when no sampler fits the budget or the shape (the
                                          input's fault: sk-lda exits 2), 0 for other failures (exit 1) */
} sk_lda_sampler_choice;

/**
 * \brief Chooses the sampler for `req` on model m (its shape and corpus) and a resolved device, before
 * anything is allocated, by asking the table's fits().
 * \verbatim
 *   CPU:  cgs for CGS, the CPU ESCA for ESCA and AUTO (AGA is refused: sk_lda_device_resolve() says so);
 *   GPU:  AUTO takes sk_lda_sampler_auto()'s kind, but ESCA when AGA does not fit; a rank link takes
 *         ESCA only (AUTO is ESCA there); ESCA with exact takes esca-exact; ESCA takes the resident
 *         sampler when the corpus has at most 2^31 - 1 tokens and it fits the budget, else the streamed
 *         one; AGA takes aga.
 * \endverbatim
 * \param req the request.
 * \param m the model (its shape and corpus).
 * \param device a resolved device.
 * \param out receives the choice.
 * \param err filled on failure.
 * \return 0 with out->entry set; non-zero with err filled and out->unfit telling whether the input (a
 *         budget or a shape nothing can run) or something else (a CUDA query) was at fault.
 */
int sk_lda_sampler_choose(const sk_lda_sampler_request *req, const sk_lda_model *m, const sk_lda_device *device,
                          sk_lda_sampler_choice *out, sk_ex_error *err);

/**
 * \brief Creates a sampler of `kind` on model m (initialised, counts consistent with z) and a resolved
 * device (CPU or GPU, see sk_lda_device_resolve(); AUTO is refused), with every sampler's default knobs:
 * the sampler sk_lda_sampler_choose() picks, then its create.
 *
 * Work: what the sampler's setup needs (O(1) for the CPU samplers, whose ESCA tables are allocated on the
 * first sweep; a GPU sampler copies the corpus and z to the GPU and allocates all its device memory
 * there).
 * \param kind the sampler's kind.
 * \param m the model.
 * \param device a resolved device.
 * \param out on success a new sampler; on failure NULL.
 * \param err on failure, says why (no such sampler on that device, out of host or GPU memory, a CUDA
 *        error).
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_sampler_create(int kind, sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
                          sk_ex_error *err);

/**
 * \brief sk_lda_sampler_create() for a whole request.
 * \param req the request.
 * \param m the model.
 * \param device a resolved device.
 * \param out on success a new sampler; on failure NULL.
 * \param choice when not NULL, gets the choice it made: the entry that runs (its kind is what a checkpoint
 *        records) and why.
 * \param err on failure, says why.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_sampler_create_for(const sk_lda_sampler_request *req, sk_lda_model *m, const sk_lda_device *device,
                              sk_lda_sampler **out, sk_lda_sampler_choice *choice, sk_ex_error *err);

/**
 * \brief What the creates return when the device budget (device_memory, or the free memory) cannot hold
 * the sampler, or no sampler can run the model's shape: the input is at fault (sk-lda exits 2); every other
 * failure returns 1.
 */
#define SK_LDA_SAMPLER_BUDGET_ERROR 2

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_SAMPLER_TABLE_H */
