/*
 * The CUDA part of sk-lda: built only when nvcc is found (SK_LDA_HAVE_GPU is then defined for every
 * user of sk_lda_core). The GPU samplers live here, behind sampler.h's table (esca_resident.h,
 * esca_streamed.h, esca_exact.h, aga_sampler.h); this header says how much memory the GPU that
 * `--device auto|gpu` would use has free (whether it can be used at all: sk_ex_gpu_probe.h).
 */
#ifndef SK_LDA_GPU_H
#define SK_LDA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "sk_ex_gpu_probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The free and the total memory of CUDA device `device` (cudaMemGetInfo; makes the device current). */
int sk_lda_gpu_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_GPU_H */
