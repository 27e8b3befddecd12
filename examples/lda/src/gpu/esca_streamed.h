/*
 * GPU ESCA with the corpus streamed through the device (SaberLDA section 3.2): the sampler `--sampler
 * esca` runs on a GPU when the resident state does not fit the budget or the corpus has more than
 * 2^31 - 1 tokens (the table's "esca-streamed").
 *
 * Only the model stays on the device (B, its next counts, n_k, 1 / (n_k + V beta): gpu_state.cuh's
 * model part; the scheduler's counters and, for large K, the blocks' rows); the documents are cut into
 * chunks by samplekit's chunk plan (csr_chunker.h), and every sweep streams the chunks through
 * samplekit's CSR pipeline (csr_pipeline.h) with W workers (CUDA streams), so that one chunk's copies
 * overlap other chunks' draws. Per chunk, on its worker's stream: z and the chunk's packed PDOW plan in
 * (stream_plan.h), A rebuilt from z by samplekit's segmented count, the resident sweep's draw kernel
 * (esca_draw.cuh), z out. After the last chunk comes the shared epilogue (B summed over the ranks, n_k,
 * the swap). Every draw reads the previous counts and the uniform of its corpus position, so the
 * topics are the resident sampler's, bit for bit, for every budget and number of workers. When the
 * plan has one chunk the pipeline is resident: z stays on the device between sweeps and nothing
 * crosses PCIe.
 *
 * Its counts are not on the device (gpu_sampler.h's counts fail); its metrics go through to_host, which
 * copies z into the model and rebuilds A, B and n_k there (device->threads OpenMP threads).
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_ESCA_STREAMED_H
#define SK_LDA_ESCA_STREAMED_H

#include <stdint.h>

#include "model.h"
#include "sampler_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Workers when the options give none (bench/RESULTS.md, "streamed ESCA", measured 1, 2 and 4). */
#define SK_LDA_STREAM_DEFAULT_WORKERS 2

/*
 * The chunk plan a streamed sampler of model m with knobs o (NULL: defaults) and rank link `rank` (NULL:
 * one GPU, where B's marks stand in for its next counts) would make on the resolved GPU device with
 * `budget` device bytes, without allocating: fit->fits says whether the budget holds
 * the model and every worker's share holds a chunk (the longest document alone at least), *chunks (when
 * not NULL) the chunks it cuts (0 when it does not fit), and fit->needed_bytes the least budget the
 * planner accepts (found by bisection over the workers' share, only when the budget does not fit). Fails
 * on NULL, workers out of 1 .. 16, or a CUDA query's error.
 */
int sk_lda_esca_streamed_plan(const sk_lda_model *m, const sk_lda_device *device,
                              const sk_lda_esca_streamed_options *o, const sk_lda_rank_link *rank, uint64_t budget,
                              sk_lda_sampler_fit *fit, int64_t *chunks, sk_ex_error *err);

/* sk_lda_esca_streamed_plan() without the chunks: the table's fits. */
int sk_lda_esca_streamed_fits(const sk_lda_model *m, const sk_lda_device *device,
                              const sk_lda_esca_streamed_options *o, const sk_lda_rank_link *rank, uint64_t budget,
                              sk_lda_sampler_fit *fit, sk_ex_error *err);

/*
 * Creates the streamed sampler of model m (initialised, z consistent with the counts) on the resolved
 * GPU device (its budget cuts the chunks), knobs o (NULL: defaults), rank link `rank` (NULL: one GPU).
 * Returns SK_LDA_SAMPLER_BUDGET_ERROR, with a message naming the bytes needed and available, when the
 * budget cannot hold the model or one document's chunk; 1 on other failures (CUDA, host memory, bad
 * knobs); *out is then NULL.
 */
int sk_lda_esca_streamed_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_esca_streamed_options *o,
                                const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_STREAMED_H */
