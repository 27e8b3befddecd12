/*
 * The CUDA part of sk-lda: built only when nvcc is found (SK_LDA_HAVE_GPU is then defined for every
 * user of sk_lda_core). The GPU samplers live here, behind sampler.h's table (esca_resident.h,
 * esca_streamed.h, esca_exact.h, aga_sampler.h); this header finds the GPU that `--device auto|gpu`
 * would use and how much memory it has free.
 */
#ifndef SK_LDA_GPU_H
#define SK_LDA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Whether CUDA device `device` can be used: returns 0 and writes its name (NUL-terminated, at most
 * cap bytes) when it can; non-zero with err saying why (no driver, no device, ordinal out of range)
 * when it cannot. Never aborts: on a machine without a GPU it answers quickly.
 */
int sk_lda_gpu_probe(int device, char *name, size_t cap, sk_lda_error *err);

/* The free and the total memory of CUDA device `device` (cudaMemGetInfo; makes the device current). */
int sk_lda_gpu_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes, sk_lda_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_GPU_H */
