/**
 * \file ranks.h
 * \brief sk-lda on several GPUs (`sk-lda train --gpus N`): data-parallel ESCA over R ranks, one process per
 * GPU, with the word-topic counts summed over the ranks by NCCL (ranks_nccl.h) after every sweep.
 *
 *   split    the training documents are cut into R contiguous ranges of (nearly) equal token counts
 *            (sk_lda_rank_split());
 *   sweep    each rank draws its own documents' topics with the single-GPU ESCA sampler (resident or
 *            streamed: gpu/esca_resident.h, gpu/esca_streamed.h), every token with the uniform of its
 *            GLOBAL corpus position (the rank link's token_base, sampler.h), reading the previous
 *            sweep's global B and n_k; the next B, counted on each rank from its own tokens, is
 *            summed over the ranks in int32 (the link's sum, called by the sweep's epilogue: each
 *            rank's nonzero counts sent to the others as samplekit's sparse count entries, or an
 *            all-reduce of V x K counts when that moves fewer bytes; ranks_nccl.h) before n_k is
 *            summed from it and the two B swap. Integer sums
 *            are exact and order-free, so z, A, B and n_k after every sweep depend only on (corpus,
 *            K, alpha, beta, seed, sweep), never on R: bit for bit those of one GPU.
 *   commands rank 0 runs the whole run (run.h: metrics, checkpoints, outputs, --resume); the other
 *            ranks serve it (sk_lda_ranks_serve()): before each collective, rank 0 broadcasts what
 *            comes next (a sweep, a gather of z, the end), so every rank enters the same collectives
 *            in the same order.
 *   outputs  to_host gathers z to rank 0 (point-to-point sends of each rank's int32 topics) and
 *            rebuilds A, B and n_k there from it: checkpoints hold z in corpus order, as on one GPU,
 *            so a run checkpointed with R ranks resumes with any R, 1 and the single-GPU path
 *            included. With R = 1 every metric is the single-GPU sampler's own (on the device), so
 *            `--gpus 1 --nccl` writes the plain path's bytes; with R > 1 the metrics are computed on
 *            rank 0's host from the gathered model (the same formula as the CPU's).
 *
 * Every rank reads the whole corpus file, splits it into training and test documents as one GPU
 * would, builds the whole host model and keeps its range (simple, and the host memory of one process
 * per rank; reading only a rank's share is not done yet).
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h).
 * Threading: one caller at a time; a rank's calls run on the thread that created its sampler.
 */
#ifndef SK_LDA_RANKS_H
#define SK_LDA_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "model.h"
#include "ranks_nccl.h"
#include "sampler_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The most ranks of one run (one host's GPUs, or several hosts': the launcher here starts one host's). */
#define SK_LDA_MAX_RANKS 1024

/**
 * \brief --rank-timeout's default: the most seconds a rank waits for one collective (a sweep's sum of B, a
 * command from rank 0, the gather of z) before it aborts its communicator and fails.
 */
#define SK_LDA_RANK_TIMEOUT_DEFAULT 600.0

/**
 * \brief Seconds the launcher gives the other ranks to end by themselves after one has failed (or after
 * rank 0 has ended), before it kills them (SIGTERM, then SIGKILL after as long again).
 */
#define SK_LDA_RANKS_GRACE_SECONDS 5.0

/**
 * \brief Cuts documents 0 .. D-1 (CSR offsets doc_offsets[0 .. D], non-decreasing from 0) into num_ranks
 * contiguous ranges: rank r gets [doc_begin[r], doc_begin[r + 1]), doc_begin[0] = 0, doc_begin[R] = D.
 *
 * Boundary r (0 < r < R) is the document boundary whose token offset is nearest to r T / R (ties: the
 * one below; among empty documents at that offset, the first), so every document is in exactly one
 * range and each range's tokens differ from T / R by at most the longest document. Ranges may be
 * empty (R > D, long documents, empty documents). Deterministic; O(R log D).
 * \param doc_offsets the CSR offsets doc_offsets[0 .. D], non-decreasing from 0.
 * \param num_docs D.
 * \param num_ranks R, 1 .. SK_LDA_MAX_RANKS.
 * \param doc_begin receives R + 1 entries.
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL, D < 0, num_ranks outside 1 .. SK_LDA_MAX_RANKS, or offsets that
 *         do not start at 0 or decrease at the boundaries searched.
 */
int sk_lda_rank_split(const int64_t *doc_offsets, int32_t num_docs, int num_ranks, int32_t *doc_begin,
                      sk_ex_error *err);

/** \brief What one rank of a run knows: filled by the launcher (sk_lda_ranks_launch()) in each rank. */
typedef struct sk_lda_rank_context {
  int rank;                                  /**< 0 .. num_ranks - 1; rank 0 runs the run */
  int num_ranks;                             /**< R */
  int gpu;                                   /**< this rank's CUDA device ordinal */
  unsigned char nccl_id[SK_LDA_NCCL_ID_BYTES]; /**< rank 0's ncclUniqueId */
  double timeout_seconds;                    /**< per collective (<= 0: wait forever) */
  int exchange;                              /**< how B is summed: sk_lda_rank_exchange (0: auto) */
  /** A communicator of these ranks for the ranked sampler to use (borrowed: it outlives the sampler), or
      NULL: the sampler makes its own from nccl_id. An id makes one communicator only, so a process that
      makes several ranked samplers one after another (the tests) makes the communicator once. */
  sk_lda_ranks_comm *comm;
} sk_lda_rank_context;

/**
 * \brief The launcher's argument checks, before anything is started.
 *
 * Checks `gpus` ranks (1 .. SK_LDA_MAX_RANKS), `forced` (--nccl: the rank path even for one GPU), `mpi`
 * (--mpi: the ranks come from mpirun), the sampler kind, the device kind, the exact sweep flag and the
 * timeout. Pure C: no CUDA, NCCL or MPI call.
 * \param gpus ranks, 1 .. SK_LDA_MAX_RANKS.
 * \param forced --nccl: the rank path even for one GPU.
 * \param mpi --mpi: the ranks come from mpirun.
 * \param sampler_kind the sampler kind.
 * \param device_kind the device kind.
 * \param gpu_exact the exact sweep flag.
 * \param timeout_seconds the timeout.
 * \param err names the option, or what is missing, on a refusal.
 * \return 0 when the run stays on the single-GPU path (gpus = 1, neither forced nor mpi); 1 when it takes
 *         the fork launcher's rank path; 2 the MPI path; -2 (a usage error: sk-lda exits 2) with err naming
 *         the option when the combination is refused: a sampler other than esca, --device cpu, --gpu-sweep
 *         exact, a negative timeout, gpus out of range, --mpi with --gpus above 1; -1 (exit 1) when the
 *         build cannot run ranks (no CUDA part, no NCCL, no MPI for --mpi), err naming what is missing.
 */
int sk_lda_ranks_check(int gpus, int forced, int mpi, int sampler_kind, int device_kind, int gpu_exact,
                       double timeout_seconds, sk_ex_error *err);

/**
 * \brief Starts `num_ranks` processes, one per GPU 0 .. num_ranks - 1 of this host (fork: call it before
 * any CUDA or OpenMP use), and returns in each of them with *ctx filled and *is_rank = 1.
 *
 * Rank 0 makes the NCCL id with make_id and hands it to the others through a pipe. In the launching
 * process it returns only when every rank has ended (*is_rank = 0), with the run's exit status:
 *   - every rank's environment has NCCL_NVLS_ENABLE=0 unless it was set (NVLink multicast stays off);
 *   - the ranks run in their own process group: SIGINT and SIGTERM sent to the launcher are passed
 *     to rank 0 once each, which saves the run and ends the others (Ctrl-C behaves as on one GPU);
 *     ranks other than 0 write nothing to stdout; each rank dies with the launcher (Linux);
 *   - a rank that exits non-zero or is killed ends the run: the launcher (polling waitpid every 20 ms)
 *     says which rank and how (rank 0 says its own error), sends SIGTERM to the others at once and
 *     SIGKILL SK_LDA_RANKS_GRACE_SECONDS later, so every rank has ended within about that time of the
 *     first failure; the last checkpoint in out_dir (when given and present) is named for --resume.
 *     When rank 0 ends normally the others, told to stop, get SK_LDA_RANKS_GRACE_SECONDS to end by
 *     themselves before the same SIGTERM and SIGKILL.
 * \param num_ranks the ranks, one per GPU.
 * \param timeout_seconds per collective (<= 0: wait forever).
 * \param make_id makes the NCCL id (rank 0).
 * \param out_dir the run's output folder, or NULL: its last checkpoint is named for --resume.
 * \param ctx filled in each rank.
 * \param is_rank receives 1 in each rank, 0 in the launching process.
 * \param err filled when fork or a pipe fails before any rank starts.
 * \return in a rank: 0 with *ctx filled. In the launcher, the status: rank 0's when it ended by itself with
 *         a non-zero status; else the first failed rank's exit status (1 when it was killed by a signal);
 *         else 0. SK_EX_EXIT_RUNTIME in the launcher, with err filled, when fork or a pipe fails before
 *         any rank starts.
 */
int sk_lda_ranks_launch(int num_ranks, double timeout_seconds, const char *out_dir,
                        int (*make_id)(unsigned char *id, sk_ex_error *err), sk_lda_rank_context *ctx, int *is_rank,
                        sk_ex_error *err);

/**
 * \brief Whether this build can run ranks across hosts with MPI (see sk_lda_ranks_mpi_start()).
 * \param err says what is missing, without MPI.
 * \return 1 with MPI; without MPI, 0 with err naming what is missing.
 */
int sk_lda_ranks_mpi_available(sk_ex_error *err);

/**
 * \brief ACROSS HOSTS (`mpirun -n R sk-lda train --mpi ...`, built when an MPI C library is found): the
 * launcher is MPI's.
 *
 * sk_lda_ranks_mpi_start() calls MPI_Init, takes the rank and the number of ranks from MPI_COMM_WORLD and
 * the GPU from the rank's place among its host's ranks (MPI_Comm_split_type SHARED: the i-th rank of a
 * host drives its GPU i), and hands rank 0's NCCL id to every rank with MPI_Bcast (a rank 0 that cannot
 * make one says so to all, and every rank fails); ranks other than 0 write nothing to stdout. NCCL then
 * runs as with the fork launcher. Failures: sk_lda_ranks_mpi_end() calls MPI_Finalize for a rank that
 * ended with 0, 130 or 143 and MPI_Abort (which ends every rank) for any other status; a rank killed
 * outright is the MPI launcher's to notice (mpirun ends the others); --rank-timeout bounds every wait in
 * NCCL. Without MPI, both fail: sk_lda_ranks_mpi_available() returns 0 with err naming what is missing.
 * \param timeout_seconds per collective (<= 0: wait forever).
 * \param make_id makes the NCCL id (rank 0).
 * \param ctx filled for this rank.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_ranks_mpi_start(double timeout_seconds, int (*make_id)(unsigned char *id, sk_ex_error *err),
                           sk_lda_rank_context *ctx, sk_ex_error *err);

/**
 * \brief Ends an MPI rank with `status` (see sk_lda_ranks_mpi_start()).
 * \param status the rank's exit status.
 * \return status, when it returns at all.
 */
int sk_lda_ranks_mpi_end(int status);

/**
 * \brief Creates rank ctx->rank's sampler on the whole model m (initialised or resumed; the same on every
 * rank) for request req (kind ESCA or AUTO, not exact, no link: the ranked sampler makes the link).
 *
 * It makes the communicator (ctx->comm, or one made from ctx->nccl_id: a collective, every rank must call
 * it), the rank's range of m's documents (sk_lda_rank_split()) as a model of its own, and its GPU ESCA
 * sampler from the table (resident or streamed, device->kind GPU, device->gpu = ctx->gpu) with the rank's
 * link: the global token base, and the communicator as the sum of the counts over the ranks. A rank whose
 * range has no token draws nothing but still adds its (zero) counts. On rank 0 the sampler is driven as
 * any other (sampler.h) and its model is m; the other ranks pass theirs to sk_lda_ranks_serve().
 * \param ctx the rank's context.
 * \param req the request: kind ESCA or AUTO, not exact, no link.
 * \param m the whole model, the same on every rank.
 * \param device a GPU device.
 * \param out receives the sampler.
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL, a kind other than ESCA or AUTO, the exact sweep, device not a
 *         GPU, a model with per-topic priors (m->alpha_k: the ranks take symmetric priors only, and their
 *         sampler's ops say so in no_priors), the inner sampler's or NCCL's failures
 *         (SK_LDA_SAMPLER_BUDGET_ERROR when the rank's share does not fit its GPU's budget).
 */
int sk_lda_ranks_sampler_create(const sk_lda_rank_context *ctx, const sk_lda_sampler_request *req, sk_lda_model *m,
                                const sk_lda_device *device, sk_lda_sampler **out, sk_ex_error *err);

/**
 * \brief A rank other than 0: does what rank 0 asks (sweeps, gathers of z) until rank 0's sampler is
 * destroyed.
 * \param s the rank's sampler (sk_lda_ranks_sampler_create()).
 * \param err filled on a failure.
 * \return 0 then, non-zero with err filled on a failure (a collective's error or timeout, a sweep's).
 */
int sk_lda_ranks_serve(sk_lda_sampler *s, sk_ex_error *err);

/**
 * \brief The ranked sampler's first and last training tokens on this rank ([*first, *end)): 0 and 0 when
 * s is not a ranked sampler.
 *
 * For tests and logs.
 * \param s the sampler.
 * \param first receives the first token.
 * \param end receives one past the last token.
 */
void sk_lda_ranks_sampler_range(const sk_lda_sampler *s, int64_t *first, int64_t *end);

/**
 * \brief This rank's part as a model (its documents, z and A).
 *
 * After a to_host (rank 0's, or a gather served) it holds what the rank's GPU sampler held: with a
 * resident sampler B and n_k are the device's, the sums over every rank; with a streamed one they are
 * rebuilt from the part's z (its own tokens' counts). For tests.
 * \param s the sampler.
 * \return the part, or NULL when s is not a ranked sampler or the rank has no token.
 */
const sk_lda_model *sk_lda_ranks_sampler_part(const sk_lda_sampler *s);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_RANKS_H */
