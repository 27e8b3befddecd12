/*
 * What a test or a tool may ask of any GPU sampler beyond sampler.h's operations (the samplers of
 * esca_resident.h, esca_streamed.h, esca_exact.h and aga_sampler.h; every one is built on
 * gpu_sampler.cuh's shared parts). Pure C.
 *
 * Errors: 0 on success, non-zero with err filled (corpus.h); a sampler that is not a GPU sampler is
 * refused, never touched.
 */
#ifndef SK_LDA_GPU_SAMPLER_H
#define SK_LDA_GPU_SAMPLER_H

#include "corpus.h"
#include "gpu/gpu_counts.h"
#include "model.h"
#include "sampler.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Copies the sampler's z, A, B and n_k into model m, which must have the shape the sampler was created
 * from (the same model, or one with the same corpus and K): what to_host does for the sampler's own
 * model (a streamed sampler copies z and rebuilds the counts from it on the host). Fails on NULL, a
 * sampler that is not a GPU one, a shape mismatch (the message says "shape"), host memory or CUDA (the
 * model's counts may then be partly written).
 */
int sk_lda_gpu_sampler_to_model(sk_lda_sampler *s, sk_lda_model *m, sk_ex_error *err);

/*
 * The sampler's counts on the device (gpu_counts.h), current after every sweep and after create; the
 * pointers stay valid until the next sweep or destroy. Fails when s is not a resident GPU sampler (a
 * streamed sampler's A and z are not on the device).
 */
int sk_lda_gpu_sampler_counts(const sk_lda_sampler *s, sk_lda_gpu_counts *out, sk_ex_error *err);

/* 1 when s is a GPU sampler that streams its corpus (esca_streamed.h), else 0 (also for NULL). */
int sk_lda_gpu_sampler_streaming(const sk_lda_sampler *s);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_GPU_SAMPLER_H */
