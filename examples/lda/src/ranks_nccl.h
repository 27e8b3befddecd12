/**
 * \file ranks_nccl.h
 * \brief The NCCL communicator of a multi-GPU sk-lda run (ranks.h), behind a C-clean face:
 * gpu/ranks_nccl.cu when NCCL was found at build time (SK_LDA_HAVE_NCCL), ranks_nccl_none.c otherwise
 * (every call fails with a message naming what is missing).
 *
 * The communicator is non-blocking (ncclConfig_t.blocking = 0): every call queues its collective on
 * the communicator's own CUDA stream and then waits on the host, polling the stream and
 * ncclCommGetAsyncError() (without sleeping for the first 2 ms, then every 100 microseconds), so
 * that a peer's failure, a NCCL error or the timeout (timeout_seconds; <= 0: none) ends the wait
 * with an error instead of a hang: the
 * communicator is then aborted (ncclCommAbort()) and every later call fails at once. Every CUDA and
 * NCCL result is checked; an error names the step and NCCL's or CUDA's message.
 *
 * Collectives are called by every rank in the same order; the calls wait for their result before they
 * return, so the caller's buffers may be reused at once. Threading: one caller at a time.
 */
#ifndef SK_LDA_RANKS_NCCL_H
#define SK_LDA_RANKS_NCCL_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "gpu/gpu_counts.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES). */
#define SK_LDA_NCCL_ID_BYTES 128

/** \brief The communicator (opaque). */
typedef struct sk_lda_ranks_comm sk_lda_ranks_comm;

/**
 * \brief Whether this build can run ranks (CUDA part and NCCL).
 * \param err says what is missing, when it cannot.
 * \return 1 when this build can run ranks; else 0 with err saying what is missing.
 */
int sk_lda_ranks_nccl_available(sk_ex_error *err);

/**
 * \brief Rank 0's ncclGetUniqueId(), into id (SK_LDA_NCCL_ID_BYTES bytes).
 * \param id receives SK_LDA_NCCL_ID_BYTES bytes.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_ranks_nccl_make_id(unsigned char *id, sk_ex_error *err);

/**
 * \brief Joins the communicator of `num_ranks` ranks made from rank 0's id, as rank `rank` on CUDA device
 * `gpu` (a collective).
 * \param id rank 0's id (SK_LDA_NCCL_ID_BYTES bytes).
 * \param rank this rank.
 * \param num_ranks the ranks.
 * \param gpu the CUDA device.
 * \param timeout_seconds per call (<= 0: none).
 * \param out receives the communicator; NULL on failure.
 * \param err filled on failure.
 * \return 0 on success; non-zero on bad arguments, CUDA, NCCL or the timeout (*out is then NULL).
 */
int sk_lda_ranks_comm_create(const unsigned char *id, int rank, int num_ranks, int gpu, double timeout_seconds,
                             sk_lda_ranks_comm **out, sk_ex_error *err);

/** \brief How the ranks sum their counts (sk_lda_ranks_comm_sum_i32(); `sk-lda train --rank-exchange`). */
typedef enum sk_lda_rank_exchange {
  /** Each sum chooses: the sparse exchange when every rank's nonzero counts, as 8-byte entries, fit in
      half the counts' bytes (then each rank sends at most half what a ring all-reduce would), else the
      dense all-reduce. The default. */
  SK_LDA_EXCHANGE_AUTO = 0,
  /** Always the dense all-reduce of every count (the baseline the sparse exchange is measured against). */
  SK_LDA_EXCHANGE_DENSE = 1
} sk_lda_rank_exchange;

/**
 * \brief Sets how the sums that follow are made (default #SK_LDA_EXCHANGE_AUTO). Every rank must set the
 * same: the choice of each sum is a collective decision. NULL or an unknown value: nothing changes.
 * \param c the communicator.
 * \param exchange #SK_LDA_EXCHANGE_AUTO or #SK_LDA_EXCHANGE_DENSE.
 */
void sk_lda_ranks_comm_set_exchange(sk_lda_ranks_comm *c, int exchange);

/**
 * \brief d_data[0 .. count) (device, int32) = its sum over the ranks, in place, exact while the sums fit
 * int32, after all the work already queued on the device (it synchronises the device first); returns
 * when the sum is there.
 *
 * Two ways, the same sums bit for bit (integer additions in any order):
 *   - dense: ncclAllReduce (ncclInt32, ncclSum) of the whole array;
 *   - sparse (#SK_LDA_EXCHANGE_AUTO, more than one rank): each rank packs its nonzero counts into 8-byte
 *     entries in d_scratch (samplekit's sk_sparse_counts_pack_i32()), the ranks all-gather how many
 *     each has, and when all of them together fit in d_scratch's count / 2 entries each rank sends its
 *     entries to every other rank that has some (grouped ncclSend / ncclRecv into d_scratch behind its
 *     own) and adds what it received into d_data (sk_sparse_counts_add_i32()). Otherwise that sum
 *     is dense. Every rank takes the same decision from the same gathered numbers.
 * \param c the communicator.
 * \param d_data the device counts; NULL: a rank without tokens (it adds count zeros into a buffer made for
 *        a dense sum, and has no entries in a sparse one).
 * \param d_scratch count int32 of device memory this call may overwrite (the counts the sweep read, about
 *        to be replaced), or NULL (then the rank's entries must be none: d_data NULL too; a rank with
 *        counts and no scratch makes every sum dense).
 * \param count how many; the same on every rank.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_ranks_comm_sum_i32(sk_lda_ranks_comm *c, int32_t *d_data, int32_t *d_scratch, size_t count,
                              sk_ex_error *err);

/**
 * \brief The communicator as a GPU sampler's sum of counts over the ranks (gpu/gpu_counts.h), given to it
 * at create in its rank link: fn(ctx, d_counts, count, err) is sk_lda_ranks_comm_sum_i32(c, d_counts,
 * count, err).
 *
 * Pure C (ranks.c): the same with or without NCCL.
 * \param c the communicator.
 * \return the sum.
 */
sk_lda_count_sum sk_lda_ranks_comm_count_sum(sk_lda_ranks_comm *c);

/**
 * \brief h_words[0 .. n) (host, n <= 8) = rank 0's values on every rank (ncclBroadcast through a device
 * buffer).
 * \param c the communicator.
 * \param h_words the host words.
 * \param n how many, <= 8.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_ranks_comm_broadcast_u64(sk_lda_ranks_comm *c, uint64_t *h_words, int n, sk_ex_error *err);

/**
 * \brief Gathers host int32 parts on rank 0 (a collective).
 *
 * Rank r holds h_part[0 .. begin[r + 1] - begin[r]), and rank 0 gets every part at h_all + begin[r].
 * Rank 0 copies its own part and receives the others one after another (ncclSend / ncclRecv through a
 * device buffer of the largest part, made for the call).
 * \param c the communicator.
 * \param h_part this rank's part.
 * \param begin num_ranks + 1 non-decreasing offsets, the same on every rank.
 * \param h_all begin[R] values on rank 0; NULL on the other ranks.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_ranks_comm_gather_i32(sk_lda_ranks_comm *c, const int32_t *h_part, const int64_t *begin, int32_t *h_all,
                                 sk_ex_error *err);

/** \brief What the sums (sk_lda_ranks_comm_sum_i32()) have done so far on this rank. */
typedef struct sk_lda_ranks_sum_stats {
  int64_t sums;        /**< calls */
  int64_t sparse_sums; /**< of which sparse */
  double sent_bytes;   /**< bytes this rank sent: a dense sum counts a ring all-reduce's 2 (R - 1) / R x 4 x
                            count; a sparse one its entries x 8 x the ranks it sent them to (plus 8 for its
                            number of entries) */
  double seconds;      /**< wall seconds from the device's idle to each sum's end (the wait for the slowest
                            rank included) */
} sk_lda_ranks_sum_stats;

/**
 * \brief The sums' figures so far, for logs and benchmarks. Zeros for NULL.
 * \param c the communicator, or NULL.
 * \param out receives them.
 */
void sk_lda_ranks_comm_stats(const sk_lda_ranks_comm *c, sk_lda_ranks_sum_stats *out);

/**
 * \brief Ends the communicator (ncclCommFinalize and ncclCommDestroy; ncclCommAbort after a failure); NULL
 * is fine.
 *
 * Errors are ignored.
 * \param c the communicator, or NULL.
 */
void sk_lda_ranks_comm_destroy(sk_lda_ranks_comm *c);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_RANKS_NCCL_H */
