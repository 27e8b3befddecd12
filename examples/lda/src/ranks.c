/* The documents of a multi-GPU run split over its ranks, and the launcher's argument checks (ranks.h). */
#include "ranks.h"

#include <stdio.h>

/* The first d in [lo, hi] with off[d] >= x (hi when none): off is non-decreasing there. */
static int32_t lower_bound(const int64_t *off, int32_t lo, int32_t hi, int64_t x) {
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (off[mid] >= x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

int sk_lda_rank_split(const int64_t *doc_offsets, int32_t num_docs, int num_ranks, int32_t *doc_begin,
                      sk_ex_error *err) {
  if (doc_offsets == NULL || doc_begin == NULL) return sk_ex_fail(err, "rank split: a pointer is NULL");
  if (num_docs < 0) return sk_ex_fail(err, "rank split: %d documents", (int)num_docs);
  if (num_ranks < 1 || num_ranks > SK_LDA_MAX_RANKS)
    return sk_ex_fail(err, "rank split: %d ranks; 1 to %d", num_ranks, SK_LDA_MAX_RANKS);
  const int64_t T = doc_offsets[num_docs];
  if (doc_offsets[0] != 0 || T < 0) return sk_ex_fail(err, "rank split: the offsets do not start at 0");
  /* R T fits int64 for R <= 2^10 and T < 2^53: the targets r T / R are compared as R off against r T. */
  if (T > (INT64_MAX / SK_LDA_MAX_RANKS)) return sk_ex_fail(err, "rank split: %lld tokens is too many", (long long)T);
  doc_begin[0] = 0;
  for (int r = 1; r < num_ranks; ++r) {
    const int64_t target_num = (int64_t)r * T; /* the target is target_num / R */
    const int64_t R = num_ranks;
    /* b: the first boundary at or above the target; a = b - 1 the one below. */
    int32_t b = lower_bound(doc_offsets, doc_begin[r - 1], num_docs, (target_num + R - 1) / R);
    int32_t pick = b;
    if (b > doc_begin[r - 1]) {
      const int32_t a = b - 1;
      const int64_t below = target_num - R * doc_offsets[a], above = R * doc_offsets[b] - target_num;
      if (below < 0 || above < 0) return sk_ex_fail(err, "rank split: the offsets decrease near document %d", (int)b);
      if (below <= above) pick = lower_bound(doc_offsets, doc_begin[r - 1], a, doc_offsets[a]);
    }
    doc_begin[r] = pick;
  }
  doc_begin[num_ranks] = num_docs;
  for (int r = 0; r < num_ranks; ++r)
    if (doc_offsets[doc_begin[r + 1]] < doc_offsets[doc_begin[r]])
      return sk_ex_fail(err, "rank split: the offsets decrease in rank %d's range", r);
  return 0;
}

int sk_lda_ranks_check(int gpus, int forced, int mpi, int sampler_kind, int device_kind, int gpu_exact,
                       double timeout_seconds, sk_ex_error *err) {
  if (gpus < 1 || gpus > SK_LDA_MAX_RANKS) {
    sk_ex_fail(err, "--gpus: %d is not a number of GPUs from 1 to %d", gpus, SK_LDA_MAX_RANKS);
    return -2;
  }
  if (gpus == 1 && !forced && !mpi) return 0;
  const char *what = mpi ? "--mpi" : gpus > 1 ? "--gpus" : "--nccl";
  if (mpi && gpus > 1) {
    sk_ex_fail(err, "--mpi takes the ranks from the MPI launcher (mpirun -n R): leave out --gpus");
    return -2;
  }
  if (sampler_kind != SK_LDA_SAMPLER_ESCA && sampler_kind != SK_LDA_SAMPLER_AUTO) { /* auto: ESCA (run.c) */
    sk_ex_fail(err, "%s runs the ESCA sampler only (--sampler %s draws in an order that ranks cannot share)", what,
                sk_lda_sampler_kind_name(sampler_kind));
    return -2;
  }
  if (device_kind == SK_LDA_DEVICE_CPU) {
    sk_ex_fail(err, "%s runs on GPUs: leave out --device cpu", what);
    return -2;
  }
  if (gpu_exact) {
    sk_ex_fail(err, "%s runs the fast GPU sweep only: leave out --gpu-sweep exact", what);
    return -2;
  }
  if (!(timeout_seconds >= 0)) {
    sk_ex_fail(err, "--rank-timeout: %g is not a number of seconds >= 0", timeout_seconds);
    return -2;
  }
  sk_ex_error why;
  if (!sk_lda_ranks_nccl_available(&why) || (mpi && !sk_lda_ranks_mpi_available(&why))) {
    sk_ex_fail(err, "%s: %s", what, why.message);
    return -1;
  }
  return mpi ? 2 : 1;
}

static int comm_count_sum(void *ctx, int32_t *d_counts, int32_t *d_scratch, size_t count, sk_ex_error *err) {
  return sk_lda_ranks_comm_sum_i32((sk_lda_ranks_comm *)ctx, d_counts, d_scratch, count, err);
}

sk_lda_count_sum sk_lda_ranks_comm_count_sum(sk_lda_ranks_comm *c) {
  const sk_lda_count_sum sum = {comm_count_sum, c};
  return sum;
}
