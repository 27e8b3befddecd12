/*
 * ESCA on the GPU: the same Markov chain as the CPU ESCA (esca.h), bit for bit. After every sweep the
 * topics z and the counts A, B, n_k equal what sk_lda_esca_sweep() gives on the same model, seed and
 * iteration, whatever the GPU: every token's uniform is sk_rng_uniform_f64(seed, iteration, t), and
 * every double the draw compares is computed with the same operations in the same order as esca.c,
 * each rounded once (no fused multiply-add), so the comparisons come out the same.
 *
 * This is the first, plain version (one thread per word for the tables, one thread per token for the
 * draws); the faster ones will be checked against it. Its device state, made from the model at
 * create and kept there between sweeps:
 *   tokens (T word ids, document order), document offsets (D + 1), z (T);
 *   A as CSR: per document its distinct topics, increasing, and their counts (at most min(n_d, K)
 *     pairs per document), rebuilt every sweep with samplekit's segmented count;
 *   B (V x K int32, row-major), n_k (K, 64-bit);
 *   scratch: inv (K doubles), the word tables cum (V x K doubles), the segmented count's workspace.
 * Device memory: 12 V K + 16 T + 8 D + 16 K bytes plus the segmented count's workspace (about 12
 * bytes per 8192 tokens at K <= 10240, and up to 64 KiB per resident block above it).
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (see corpus.h); a
 * CUDA failure becomes a message naming the step and CUDA's error, never an abort. After a failed
 * sweep the device state is unspecified: destroy the sampler. Threading: one caller at a time per
 * sampler; the calls make device `gpu` current on the calling thread.
 */
#ifndef SK_LDA_ESCA_GPU_H
#define SK_LDA_ESCA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_lda_esca_gpu sk_lda_esca_gpu;

/*
 * Device bytes a GPU ESCA sampler needs for model m's shape, not counting the segmented count's
 * workspace (which depends on the device): see above. Never overflows for a valid model.
 */
size_t sk_lda_esca_gpu_state_bytes(const sk_lda_model *m);

/*
 * Copies model m (initialised; z and the counts consistent) to CUDA device `gpu` and returns the
 * sampler in *out. The counts on the device are rebuilt from z there (they equal the model's by the
 * precondition). Before allocating, the bytes needed are compared with the device's free memory: when
 * they do not fit, it fails with a message naming both. Also fails when a pointer is NULL, the corpus
 * has more than INT32_MAX tokens (the segmented count's limit), or a CUDA call fails; *out is then
 * NULL and nothing stays allocated. m is read, not kept: to_host takes the model again.
 */
int sk_lda_esca_gpu_create(const sk_lda_model *m, int gpu, sk_lda_esca_gpu **out, sk_lda_error *err);

/*
 * One ESCA sweep `iteration` (< 2^63) on the device, exactly as sk_lda_esca_sweep() (esca.h): inv, the
 * word tables, one draw per token from the previous sweep's counts, then z, A, B and n_k rebuilt from
 * the new topics. Waits for the device before it returns, so a fault is reported by the sweep that
 * caused it. Work O(T (nnz_d + log K) + V K) on the device.
 */
int sk_lda_esca_gpu_sweep(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err);

/*
 * Copies z, A, B and n_k into model m, which must have the shape the sampler was created from (the
 * same model, or one with the same corpus and K): A in the model's layout (document d's pairs from
 * dk_start[d], dk_nnz[d] of them). Fails on NULL, a shape mismatch, host memory or a CUDA failure
 * (the model's counts may then be partly written).
 */
int sk_lda_esca_gpu_to_host(sk_lda_esca_gpu *g, sk_lda_model *m, sk_lda_error *err);

/* A one-line description for logs: "ESCA (GPU 0: NVIDIA H100 80GB HBM3)"; never NULL. */
const char *sk_lda_esca_gpu_description(const sk_lda_esca_gpu *g);

/* Frees the device and host memory of the sampler; NULL is fine. Errors of cudaFree are ignored. */
void sk_lda_esca_gpu_destroy(sk_lda_esca_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_GPU_H */
