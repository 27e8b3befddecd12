/*
 * The prior optimiser's histograms (hyper.h) counted on the GPU, from the counts a resident GPU sampler
 * holds there (gpu_counts.h), so that --optimize-every copies histograms back, not the model.
 *
 * Integer histograms do not depend on the order they are counted in: the result is, bit for bit,
 * sk_lda_hyper_stats_from_model() of the same counts (the tails are made canonical on the host).
 *
 * Pass 1 (two kernels on the legacy default stream): over A's pairs, the dense histogram of n_dk per topic
 * (a global 32-bit atomic per pair below SK_LDA_HYPER_DENSE) and the number of pairs above it; over B's
 * V K counts, the dense histogram of n_vk (per block in shared memory, then one 64-bit atomic per bin)
 * and the number above it. Pass 2, when a tail is not empty: the same kernels list the pairs and counts
 * above SK_LDA_HYPER_DENSE (slots from an atomic counter, so in any order). The document lengths come
 * from the corpus on the host.
 *
 * Cost: two reads of A's pairs (8 bytes a pair) and of B (4 V K bytes) on the device; device scratch
 * 4 K SK_LDA_HYPER_DENSE + 8 SK_LDA_HYPER_DENSE + 32 bytes plus 8 bytes per listed pair and 4 per listed
 * count (each listed count holds at least SK_LDA_HYPER_DENSE tokens: fewer than T / SK_LDA_HYPER_DENSE +
 * 1 of each), freed before the call returns; copied back: those bytes and n_k (8 K). For K = 1,024 about
 * 0.5 MB each way, against the 4 V K + 8 T bytes of to_host.
 *
 * Errors: 0 on success, non-zero with err filled (corpus.h; CUDA failures name the step). Threading: one
 * caller at a time per device; waits for the result.
 */
#ifndef SK_LDA_HYPER_GPU_H
#define SK_LDA_HYPER_GPU_H

#include <stdint.h>

#include "corpus.h"
#include "gpu/gpu_counts.h"
#include "hyper.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The histograms of the device counts `c` (A, B and n_k on CUDA device c->gpu) and the document lengths
 * of `corpus` (the training corpus the counts are of: c->num_docs documents) into *out (free it with
 * sk_lda_hyper_stats_free(); zeroed on failure). *device_bytes (when not NULL) gets the device scratch the
 * call held at its peak. Fails on NULL, a corpus of another size, host or device memory, or CUDA.
 */
int sk_lda_gpu_hyper_stats(const sk_lda_gpu_counts *c, const sk_lda_corpus *corpus, sk_lda_hyper_stats *out,
                           int64_t *device_bytes, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_HYPER_GPU_H */
