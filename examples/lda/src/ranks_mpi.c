/* The ranks of a multi-GPU run started by an MPI launcher (`mpirun -n R sk-lda train --mpi ...`;
   ranks.h): MPI gives the ranks and carries rank 0's NCCL id; NCCL does the rest. Without MPI at build
   time every call fails and says so. */
#include "ranks.h"

#include <string.h>

#include "run.h"

#ifdef SK_LDA_HAVE_MPI
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

/* MPI's error text for a return code. */
static int mpi_fail(sk_ex_error *err, const char *what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error %d", code);
  return sk_ex_fail(err, "--mpi: %s: %s", what, text);
}

int sk_lda_ranks_mpi_available(sk_ex_error *err) {
  (void)err;
  return 1;
}

int sk_lda_ranks_mpi_start(double timeout_seconds, int (*make_id)(unsigned char *id, sk_ex_error *err),
                           sk_lda_rank_context *ctx, sk_ex_error *err) {
  if (ctx == NULL || make_id == NULL) return sk_ex_fail(err, "--mpi: a pointer is NULL");
  memset(ctx, 0, sizeof *ctx);
  int rc = MPI_Init(NULL, NULL);
  if (rc != MPI_SUCCESS) return mpi_fail(err, "MPI_Init", rc);
  (void)MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 0, local = 0;
  MPI_Comm node;
  if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank)) != MPI_SUCCESS ||
      (rc = MPI_Comm_size(MPI_COMM_WORLD, &size)) != MPI_SUCCESS)
    return mpi_fail(err, "the ranks", rc);
  if (size > SK_LDA_MAX_RANKS) return sk_ex_fail(err, "--mpi: %d ranks; at most %d", size, SK_LDA_MAX_RANKS);
  /* This host's ranks in order: rank i of them drives GPU i. */
  if ((rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)) != MPI_SUCCESS ||
      (rc = MPI_Comm_rank(node, &local)) != MPI_SUCCESS)
    return mpi_fail(err, "this host's ranks", rc);
  (void)MPI_Comm_free(&node);
  ctx->rank = rank;
  ctx->num_ranks = size;
  ctx->gpu = local;
  ctx->timeout_seconds = timeout_seconds;
  /* Rank 0 makes the id (a failure is sent as an id of zeros with a flag, so that no rank waits). */
  unsigned char buf[SK_LDA_NCCL_ID_BYTES + 1];
  memset(buf, 0, sizeof buf);
  if (rank == 0) {
    if (make_id(buf, err) == 0)
      buf[SK_LDA_NCCL_ID_BYTES] = 1;
  }
  if ((rc = MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
    return mpi_fail(err, "handing out the NCCL id", rc);
  if (buf[SK_LDA_NCCL_ID_BYTES] != 1)
    return rank == 0 ? 1 : sk_ex_fail(err, "--mpi: rank 0 could not make the NCCL id");
  memcpy(ctx->nccl_id, buf, SK_LDA_NCCL_ID_BYTES);
  if (rank > 0) { /* rank 0 speaks for the run */
    fflush(stdout);
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      (void)dup2(null_fd, STDOUT_FILENO);
      close(null_fd);
    }
  }
  return 0;
}

int sk_lda_ranks_mpi_end(int status) {
  /* A rank that ended well (or rank 0 interrupted and saved, the others told to stop) leaves together
     with the others; any other end takes every rank down with it, so that none waits for it. */
  if (status == SK_EX_EXIT_OK || status == SK_LDA_EXIT_SIGINT || status == SK_LDA_EXIT_SIGTERM) {
    (void)MPI_Finalize();
    return status;
  }
  fflush(stdout);
  fflush(stderr);
  (void)MPI_Abort(MPI_COMM_WORLD, status);
  return status;
}

#else

int sk_lda_ranks_mpi_available(sk_ex_error *err) {
  sk_ex_fail(err, "this sk-lda was built without MPI (no MPI C library was found at configure time; install one, "
                   "e.g. libopenmpi-dev, and rebuild), so --mpi is not available: use --gpus N on one host");
  return 0;
}

int sk_lda_ranks_mpi_start(double timeout_seconds, int (*make_id)(unsigned char *id, sk_ex_error *err),
                           sk_lda_rank_context *ctx, sk_ex_error *err) {
  (void)timeout_seconds, (void)make_id;
  if (ctx != NULL) memset(ctx, 0, sizeof *ctx);
  sk_lda_ranks_mpi_available(err);
  return 1;
}

int sk_lda_ranks_mpi_end(int status) { return status; }

#endif
