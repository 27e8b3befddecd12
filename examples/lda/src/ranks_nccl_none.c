/* ranks_nccl.h when NCCL was not found at build time: every call fails and says what is missing. */
#include "ranks_nccl.h"

#ifndef SK_LDA_HAVE_NCCL

#include <stddef.h>
#include <string.h>

static int missing(sk_ex_error *err) {
#ifdef SK_LDA_HAVE_GPU
  return sk_ex_fail(err, "this sk-lda was built without NCCL (nccl.h and libnccl were not found at configure time; "
                          "install NCCL, or pip install nvidia-nccl-cu13, or set SAMPLEKIT_NCCL_ROOT, and rebuild)");
#else
  return sk_ex_fail(err, "this sk-lda was built without its CUDA part (nvcc was not found), so without NCCL");
#endif
}

int sk_lda_ranks_nccl_available(sk_ex_error *err) {
  missing(err);
  return 0;
}

int sk_lda_ranks_nccl_make_id(unsigned char *id, sk_ex_error *err) {
  (void)id;
  return missing(err);
}

int sk_lda_ranks_comm_create(const unsigned char *id, int rank, int num_ranks, int gpu, double timeout_seconds,
                             sk_lda_ranks_comm **out, sk_ex_error *err) {
  (void)id, (void)rank, (void)num_ranks, (void)gpu, (void)timeout_seconds;
  if (out != NULL) *out = NULL;
  return missing(err);
}

void sk_lda_ranks_comm_set_exchange(sk_lda_ranks_comm *c, int exchange) { (void)c, (void)exchange; }

int sk_lda_ranks_comm_sum_i32(sk_lda_ranks_comm *c, int32_t *d_data, int32_t *d_scratch, size_t count,
                              sk_ex_error *err) {
  (void)c, (void)d_data, (void)d_scratch, (void)count;
  return missing(err);
}

int sk_lda_ranks_comm_broadcast_u64(sk_lda_ranks_comm *c, uint64_t *h_words, int n, sk_ex_error *err) {
  (void)c, (void)h_words, (void)n;
  return missing(err);
}

int sk_lda_ranks_comm_gather_i32(sk_lda_ranks_comm *c, const int32_t *h_part, const int64_t *begin, int32_t *h_all,
                                 sk_ex_error *err) {
  (void)c, (void)h_part, (void)begin, (void)h_all;
  return missing(err);
}

void sk_lda_ranks_comm_stats(const sk_lda_ranks_comm *c, sk_lda_ranks_sum_stats *out) {
  (void)c;
  if (out != NULL) memset(out, 0, sizeof *out);
}

void sk_lda_ranks_comm_destroy(sk_lda_ranks_comm *c) { (void)c; }

#else
/* ISO C wants a translation unit to declare something. */
typedef int sk_lda_ranks_nccl_none_unused;
#endif
