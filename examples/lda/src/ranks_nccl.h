/**
 * \file ranks_nccl.h
 * \brief The NCCL communicator of a multi-GPU sk-lda run (ranks.h), behind a C-clean face:
 * gpu/ranks_nccl.cu when NCCL was found at build time (SK_LDA_HAVE_NCCL), ranks_nccl_none.c otherwise
 * (every call fails with a message naming what is missing).
 *
 * The communicator is non-blocking (ncclConfig_t.blocking = 0): every call queues its collective on
 * the communicator's own CUDA stream and then waits on the host, polling the stream and
 * ncclCommGetAsyncError() every 100 microseconds, so that a peer's failure, a NCCL error or the
 * timeout (timeout_seconds; <= 0: none) ends the wait with an error instead of a hang: the
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

/**
 * \brief d_data[0 .. count) (device, int32) = its sum over the ranks, in place (ncclAllReduce, ncclInt32,
 * ncclSum: exact while the sums fit int32), after all the work already queued on the device (it
 * synchronises the device first); returns when the sum is there.
 * \param c the communicator.
 * \param d_data the device counts; NULL: this rank adds count zeros (a rank without tokens) into a scratch
 *        buffer made for the call.
 * \param count how many.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_ranks_comm_sum_i32(sk_lda_ranks_comm *c, int32_t *d_data, size_t count, sk_ex_error *err);

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

/**
 * \brief Bytes summed so far by sum_i32 and its wall seconds: what travels per sweep, for logs and
 * benchmarks.
 *
 * Zeros for NULL.
 * \param c the communicator, or NULL.
 * \param sum_bytes receives the bytes summed so far by sum_i32 (count x 4 per call; a ring all-reduce
 *        sends and receives about 2 (R - 1) / R times that).
 * \param sum_seconds receives its wall seconds from the device's idle to the sum's end (the wait for the
 *        slowest rank included).
 */
void sk_lda_ranks_comm_stats(const sk_lda_ranks_comm *c, double *sum_bytes, double *sum_seconds);

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
