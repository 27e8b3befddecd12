/**
 * \file sampler_options.h
 * \brief The knobs of sk-lda's GPU samplers, one struct per sampler holding only what that sampler reads,
 * and the one struct the command line fills (sk_lda_sampler_options): each sampler is handed a pointer to
 * its own member, never a copy.
 *
 * Zero-initialised means the measured defaults everywhere. What a device is (kind, GPU, host threads,
 * memory budget) is sampler.h's sk_lda_device, not here; the test-only hooks (planted bugs, forced draws)
 * are in gpu/aga_testing.h, not here.
 *
 * Pure C (C99): the CLI and the tests include it whether or not the build has the CUDA part.
 */
#ifndef SK_LDA_SAMPLER_OPTIONS_H
#define SK_LDA_SAMPLER_OPTIONS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief How GPU ESCA's resident sweep counts the next B (sk_lda_esca_options::next_counts). */
enum sk_lda_next_counts {
  SK_LDA_NEXT_COUNTS_AUTO = 0,   /**< the sampler's choice: sparse on one GPU when V K >= 8 T, else dense */
  SK_LDA_NEXT_COUNTS_DENSE = 1,  /**< the draws count into a V x K array; the epilogue reads it whole */
  SK_LDA_NEXT_COUNTS_SPARSE = 2  /**< the draws count into B and mark each (word, topic) in a bit; the epilogue
                                      reads the V K / 8 bytes of marks and B at its nonzeros (one GPU only) */
};

/**
 * \brief GPU ESCA, the corpus resident (gpu/esca_resident.h): the draw kernel's launch and the PDOW plan's
 * cuts.
 *
 * The topics never depend on them (tests vary them to show it; benchmarks to tune them).
 */
typedef struct sk_lda_esca_options {
  int threads;          /**< threads per block, a multiple of 32, 32 to 1024 (0: the draw's choice, esca_draw.cuh)*/
  int blocks_per_sm;    /**< persistent blocks per multiprocessor (0: as many as fit) */
  int32_t item_tokens;  /**< most tokens of an item (0: T / (4 x persistent blocks), from 64 to 4096) */
  int64_t chunk_tokens; /**< most tokens of a chunk of the PDOW order (0: the sampler's choice, half the
                             device's L2 bytes, which the environment's SK_LDA_CHUNK_TOKENS overrides, for
                             benchmarks; at least T: one chunk) */
  int next_counts;      /**< an sk_lda_next_counts: how the next sweep's B is counted (0: the sampler's choice,
                             which the environment's SK_LDA_NEXT_COUNTS=dense|sparse overrides, for
                             benchmarks). Sparse needs one GPU (no rank link) */
} sk_lda_esca_options;

/** \brief GPU ESCA, the corpus streamed through the device (gpu/esca_streamed.h). */
typedef struct sk_lda_esca_streamed_options {
  int workers; /**< CSR pipeline workers (CUDA streams), 1 to 16 (0: the measured default, 2) */
} sk_lda_esca_streamed_options;

/** \brief GPU AGA-LDA (gpu/aga_sampler.h): the mini-batches and the column panels (aga_plan.h). */
typedef struct sk_lda_aga_options {
  int32_t minibatch_docs; /**< documents per mini-batch (0: T / 200,000 mini-batches, from 2 to 5) */
  int32_t panel_words;    /**< most words per column panel (0: as many as shared memory holds) */
  int32_t panels;         /**< panels (blocks) a mini-batch is cut into, by tokens (0: 4 per multiprocessor) */
  int whole_words;        /**< non-zero: every word's tokens in one panel (the paper's panels); 0 cuts a
                               frequent word's tokens over several panels (measured faster) */
} sk_lda_aga_options;

/**
 * \brief Every sampler's knobs, filled once from the command line.
 *
 * The CPU samplers and the GPU ESCA's exact sweep have none.
 */
typedef struct sk_lda_sampler_options {
  sk_lda_esca_options esca;               /**< GPU ESCA, the corpus resident */
  sk_lda_esca_streamed_options streamed;  /**< GPU ESCA, the corpus streamed */
  sk_lda_aga_options aga;                 /**< GPU AGA-LDA */
} sk_lda_sampler_options;

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_SAMPLER_OPTIONS_H */
