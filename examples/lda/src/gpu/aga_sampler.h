/*
 * GPU AGA-LDA (Moon et al., Euro-Par 2018; the dissertation's section 2.5): `--sampler aga`, and what
 * `--sampler auto` runs on a GPU up to K = SK_LDA_AUTO_AGA_MAX_TOPICS (the table's "aga").
 *
 * Documents in mini-batches processed in sequence (aga_plan.h), word-topic counts of a column panel in
 * shared memory, updated as the topics are drawn (shared and global atomics): closer to collapsed Gibbs
 * than ESCA, and not deterministic (aga_kernels.cuh). It keeps gpu_state.cuh's documents part (z,
 * offsets, A, B, n_k, the segmented count's workspace) and updates B and n_k in place, so it has no
 * next counts and no epilogue; A is rebuilt from z after the sweep. It adds its plan (12 T bytes, the
 * panels and their words) and a mini-batch's DT and DNT (2 x documents of a mini-batch x K x 4 bytes)
 * and NT + V beta (4 K).
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_AGA_SAMPLER_H
#define SK_LDA_AGA_SAMPLER_H

#include <stdint.h>

#include "model.h"
#include "sampler_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default mini-batches: the documents cut into T / SK_LDA_AGA_BATCH_TOKENS mini-batches of equal
   document counts, at least SK_LDA_AGA_MIN_BATCHES and at most SK_LDA_AGA_MAX_BATCHES. Measured on an
   H200 (bench/RESULTS.md, issue 14) at K = 100: of 1, 2, 5, 10 and 20 mini-batches a sweep, 5 reached the
   CPU CGS's quality first on nips12 and 20news (10 and 2 within 5%), 2 on kos (420,000 tokens, where
   smaller mini-batches leave the GPU idle), and 1 was slowest to that quality on all three. The AGA-LDA
   paper's tuned mini-batches were a tenth of the documents. */
#define SK_LDA_AGA_BATCH_TOKENS 200000
#define SK_LDA_AGA_MIN_BATCHES 2
#define SK_LDA_AGA_MAX_BATCHES 5

/*
 * Whether AGA-LDA on model m with knobs o (NULL: defaults) fits `budget` device bytes on the resolved
 * GPU device: needed_bytes is exactly what create allocates (the plan's sizes counted without building
 * it, aga_plan.h). It cannot run, whatever the budget, when one word's row of K counts does not fit a
 * block's shared memory or the corpus has more than 2^31 - 1 tokens (fit->why then points to ESCA).
 * Fails on NULL, knobs out of range or a CUDA query's error.
 */
int sk_lda_aga_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o, uint64_t budget,
                    sk_lda_sampler_fit *fit, sk_ex_error *err);

/* Creates AGA-LDA on model m on the resolved GPU device with knobs o (NULL: defaults). Returns
   SK_LDA_SAMPLER_BUDGET_ERROR when the budget cannot hold it, 1 on other failures (K too large for
   shared memory: the message says to use --sampler esca); *out is then NULL. */
int sk_lda_aga_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o,
                      sk_lda_sampler **out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_AGA_SAMPLER_H */
