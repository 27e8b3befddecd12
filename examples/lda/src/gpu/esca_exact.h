/*
 * GPU ESCA's exact sweep, the oracle (`--gpu-sweep exact`, the table's "esca-exact"): the CPU ESCA's
 * chain (esca.c) bit for bit, a thread per token in double without fused multiply-adds, word tables of
 * V x K doubles (esca_exact_kernels.cuh says why the bits agree). It is slow and exists so that the
 * tests can hold the device counts, the epilogue and the other GPU samplers against the CPU.
 *
 * Device bytes: gpu_state.cuh's state without the float inverse (z, offsets, A, B and its next counts,
 * n_k, the segmented count's workspace), the tokens (4 T), 1 / (n_k + V beta) in double (8 K) and the
 * word tables (8 V K); with per-topic priors the state's 20 K bytes of them (gpu_state.cuh), and the
 * word tables are then running sums of alpha_k B_hat (esca.h). The corpus must be resident: it does not stream.
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h).
 */
#ifndef SK_LDA_ESCA_EXACT_H
#define SK_LDA_ESCA_EXACT_H

#include <stdint.h>

#include "model.h"
#include "sampler_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the exact sampler of model m fits `budget` device bytes on the resolved GPU device:
   needed_bytes is exactly what create allocates; a corpus of more than 2^31 - 1 tokens cannot run. */
int sk_lda_esca_exact_fits(const sk_lda_model *m, const sk_lda_device *device, uint64_t budget,
                           sk_lda_sampler_fit *fit, sk_ex_error *err);

/* Creates the exact sampler of model m on the resolved GPU device. Returns SK_LDA_SAMPLER_BUDGET_ERROR
   (the message names the bytes and says the exact sweep needs the corpus resident) when the budget
   cannot hold it, 1 on other failures; *out is then NULL. */
int sk_lda_esca_exact_create(sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_EXACT_H */
