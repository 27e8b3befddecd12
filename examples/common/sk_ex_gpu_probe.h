/**
 * \file sk_ex_gpu_probe.h
 * \brief Finding the GPU an example would run on, through samplekit's C device query. C-clean; the
 * function lives in the sk_example_gpu library, built where nvcc is found.
 */
#ifndef SK_EX_GPU_PROBE_H
#define SK_EX_GPU_PROBE_H

#include <stddef.h>

#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Whether GPU `device` can be used, and its name.
 * \param device the CUDA device ordinal.
 * \param name receives the GPU's name (may be NULL).
 * \param cap bytes at name.
 * \param err "no CUDA GPU found" when the machine has none, or why this one cannot be used.
 * \return 0 when it can be used.
 */
int sk_ex_gpu_probe(int device, char *name, size_t cap, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_GPU_PROBE_H */
