/*
 * The CPU parts of sk-lda on several GPUs (examples/lda/src/ranks.h), which run without a GPU:
 *
 *   split    sk_lda_rank_split() on hand-made and seeded offsets (empty documents first, in the middle
 *            and last, runs of them, one huge document, T = 0, D = 0, R = 1, R > D, R = SK_LDA_MAX_RANKS):
 *            the ranges cover 0 .. D in order (every document exactly once), each boundary is the
 *            document boundary nearest to r T / R (ties below; the first of equal offsets), each
 *            range's tokens differ from T / R by at most the longest document; bad arguments fail.
 *   checks   sk_lda_ranks_check(): --gpus 1 stays on the single-GPU path, out-of-range counts, other
 *            samplers, --mpi with --gpus, --device cpu, --gpu-sweep exact and negative timeouts are usage errors (-2), and
 *            the rank path is taken (1) or refused for a missing NCCL (-1) as this build says.
 *   MPI      `test_ranks --mpi` under mpirun (ctest test_ranks_mpi, where MPI was found): every rank gets
 *            its MPI rank, the rank count, its GPU (its place on its host) and rank 0's id.
 *   launcher sk_lda_ranks_launch() with a stand-in for the NCCL id: every rank gets its rank, GPU and
 *            rank 0's id, NCCL_NVLS_ENABLE=0, no stdout but rank 0's; a rank that exits 3 or is killed
 *            ends the others (which would sleep for minutes) within the grace time, with its status;
 *            a failing id ends every rank; SIGTERM to the launcher reaches rank 0 once.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ranks.h"
#include "run.h"
#include "sk_test.h"

/* ---- split --------------------------------------------------------------------------------------- */

static int check_split(const int64_t *off, int32_t D, int R, const char *what) {
  sk_test_context("%s: D = %d, R = %d", what, (int)D, R);
  int32_t *begin = (int32_t *)malloc(((size_t)R + 1) * sizeof *begin);
  sk_ex_error err;
  if (!SK_CHECK(sk_lda_rank_split(off, D, R, begin, &err) == 0, "split: %s", err.message)) {
    free(begin);
    return 0;
  }
  const int64_t T = off[D];
  int64_t longest = 0;
  for (int32_t d = 0; d < D; ++d)
    if (off[d + 1] - off[d] > longest) longest = off[d + 1] - off[d];
  int ok = SK_CHECK(begin[0] == 0 && begin[R] == D, "ranges run from %d to %d", (int)begin[0], (int)begin[R]);
  for (int r = 0; ok && r < R; ++r)
    ok = SK_CHECK(begin[r] <= begin[r + 1], "rank %d's range [%d, %d) runs backwards", r, (int)begin[r],
                  (int)begin[r + 1]);
  for (int r = 1; ok && r < R; ++r) {
    /* the nearest boundary, ties below, the first of equal offsets: by brute force */
    int32_t best = 0;
    for (int32_t d = 1; d <= D; ++d) {
      const int64_t db = (int64_t)R * off[best] - (int64_t)r * T, dd = (int64_t)R * off[d] - (int64_t)r * T;
      const int64_t ab = db < 0 ? -db : db, ad = dd < 0 ? -dd : dd;
      if (ad < ab || (ad == ab && off[d] < off[best])) best = d;
    }
    ok = SK_CHECK(begin[r] == best, "boundary %d is document %d (offset %lld), the nearest to %lld/%d is %d (%lld)", r,
                  (int)begin[r], (long long)off[begin[r]], (long long)((int64_t)r * T), R, (int)best,
                  (long long)off[best]);
  }
  for (int r = 0; ok && r < R; ++r) {
    const int64_t n = off[begin[r + 1]] - off[begin[r]];
    const double dev = (double)n - (double)T / R;
    ok = SK_CHECK(dev <= (double)longest && -dev <= (double)longest,
                  "rank %d has %lld tokens, T / R = %.1f, the longest document %lld", r, (long long)n, (double)T / R,
                  (long long)longest);
  }
  free(begin);
  return ok;
}

static void split_tests(void) {
  const int64_t zero[1] = {0};
  for (int R = 1; R <= 4; ++R) check_split(zero, 0, R, "D = 0");
  const int64_t empty[5] = {0, 0, 0, 0, 0};
  for (int R = 1; R <= 6; ++R) check_split(empty, 4, R, "all documents empty");
  const int64_t one[2] = {0, 100};
  for (int R = 1; R <= 5; ++R) check_split(one, 1, R, "one document");
  const int64_t hand[8] = {0, 0, 10, 10, 10, 20, 30, 30}; /* empty first, a run of empties, empty last */
  for (int R = 1; R <= 9; ++R) check_split(hand, 7, R, "hand-made");
  const int64_t huge[6] = {0, 1, 2, 1000, 1001, 1002}; /* one huge document in the middle */
  for (int R = 1; R <= 7; ++R) check_split(huge, 5, R, "a huge document");
  {
    int32_t begin[3];
    sk_ex_error err;
    /* 15 is as far from 10 as from 20: the boundary below wins, the first of the documents at 10 */
    SK_CHECK(sk_lda_rank_split(hand, 7, 2, begin, &err) == 0 && begin[1] == 2, "hand-made, R = 2: boundary %d, "
             "expected 2", (int)begin[1]);
  }
  const int nseeds = sk_test_seed_count();
  for (int seed = 0; seed < nseeds; ++seed) {
    uint64_t s = (uint64_t)seed * 7919u + 1u;
    const int32_t D = 1 + (int32_t)(sk_test_rand_u32(&s) % 400u);
    int64_t *off = (int64_t *)malloc(((size_t)D + 1) * sizeof *off);
    off[0] = 0;
    for (int32_t d = 0; d < D; ++d) {
      const uint32_t kind = sk_test_rand_u32(&s) % 10u;
      const int64_t n = kind == 0 ? 0 : kind == 1 ? 1 + sk_test_rand_u32(&s) % 5000u : sk_test_rand_u32(&s) % 200u;
      off[d + 1] = off[d] + n;
    }
    const int ranks[] = {1, 2, 3, 4, 7, 8, 16, 31, 64, 401, SK_LDA_MAX_RANKS};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; ++i) {
      char what[64];
      snprintf(what, sizeof what, "seed %d", seed);
      check_split(off, D, ranks[i], what);
    }
    free(off);
  }
  sk_test_context("split: bad arguments");
  int32_t begin[4];
  sk_ex_error err;
  SK_CHECK(sk_lda_rank_split(NULL, 3, 2, begin, &err) != 0, "NULL offsets accepted");
  SK_CHECK(sk_lda_rank_split(hand, 7, 2, NULL, &err) != 0, "NULL output accepted");
  SK_CHECK(sk_lda_rank_split(hand, 7, 0, begin, &err) != 0, "0 ranks accepted");
  SK_CHECK(sk_lda_rank_split(hand, 7, SK_LDA_MAX_RANKS + 1, begin, &err) != 0, "too many ranks accepted");
  SK_CHECK(sk_lda_rank_split(hand, -1, 2, begin, &err) != 0, "D = -1 accepted");
  const int64_t bad[3] = {5, 6, 7};
  SK_CHECK(sk_lda_rank_split(bad, 2, 2, begin, &err) != 0, "offsets from 5 accepted");
}

/* ---- checks -------------------------------------------------------------------------------------- */

static void check_tests(void) {
  sk_test_context("launcher's argument checks");
  sk_ex_error err, why;
  const int have = sk_lda_ranks_nccl_available(&why);
  const int esca = SK_LDA_SAMPLER_ESCA, autod = SK_LDA_DEVICE_AUTO;
  SK_CHECK(sk_lda_ranks_check(1, 0, 0, esca, autod, 0, 600, &err) == 0, "--gpus 1 left the single-GPU path");
  SK_CHECK(sk_lda_ranks_check(1, 0, 0, SK_LDA_SAMPLER_CGS, SK_LDA_DEVICE_CPU, 1, 600, &err) == 0,
           "--gpus 1 checked the single-GPU path's options");
  SK_CHECK(sk_lda_ranks_check(0, 0, 0, esca, autod, 0, 600, &err) == -2 && strstr(err.message, "--gpus") != NULL,
           "--gpus 0: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(SK_LDA_MAX_RANKS + 1, 0, 0, esca, autod, 0, 600, &err) == -2, "--gpus too many");
  SK_CHECK(sk_lda_ranks_check(2, 0, 0, SK_LDA_SAMPLER_CGS, autod, 0, 600, &err) == -2 && strstr(err.message, "cgs"),
           "--gpus 2 --sampler cgs: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(2, 0, 0, SK_LDA_SAMPLER_AGA, autod, 0, 600, &err) == -2 && strstr(err.message, "aga"),
           "--gpus 2 --sampler aga: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(4, 0, 0, esca, SK_LDA_DEVICE_CPU, 0, 600, &err) == -2 && strstr(err.message, "cpu"),
           "--gpus 4 --device cpu: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(1, 1, 0, esca, SK_LDA_DEVICE_CPU, 0, 600, &err) == -2 && strstr(err.message, "--nccl"),
           "--nccl --device cpu: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(2, 0, 0, esca, SK_LDA_DEVICE_GPU, 1, 600, &err) == -2 && strstr(err.message, "exact"),
           "--gpus 2 --gpu-sweep exact: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(2, 0, 0, esca, autod, 0, -1, &err) == -2 && strstr(err.message, "--rank-timeout"),
           "--rank-timeout -1: %s", err.message);
  const int expect = have ? 1 : -1;
  SK_CHECK(sk_lda_ranks_check(2, 0, 0, esca, autod, 0, 600, &err) == expect, "--gpus 2: expected %d (%s)", expect,
           have ? "NCCL built in" : why.message);
  SK_CHECK(sk_lda_ranks_check(1, 1, 0, esca, SK_LDA_DEVICE_GPU, 0, 0, &err) == expect, "--nccl: expected %d", expect);
  SK_CHECK(sk_lda_ranks_check(2, 0, 0, SK_LDA_SAMPLER_AUTO, autod, 0, 600, &err) == expect,
           "--gpus 2 with --sampler auto (ESCA over ranks): expected %d", expect);
  if (!have)
    SK_CHECK(strstr(err.message, "NCCL") != NULL, "the missing NCCL is not named: %s", err.message);
  SK_CHECK(sk_lda_ranks_check(2, 0, 1, esca, autod, 0, 600, &err) == -2 && strstr(err.message, "--gpus"),
           "--mpi --gpus 2: %s", err.message);
  const int have_mpi = sk_lda_ranks_mpi_available(&why);
  const int expect_mpi = have && have_mpi ? 2 : -1;
  SK_CHECK(sk_lda_ranks_check(1, 0, 1, esca, autod, 0, 600, &err) == expect_mpi, "--mpi: expected %d (%s)",
           expect_mpi, err.message);
  if (have && !have_mpi)
    SK_CHECK(strstr(err.message, "MPI") != NULL, "the missing MPI is not named: %s", err.message);
  printf("this build %s NCCL%s%s\n", have ? "has" : "has no", have ? "" : ": ", have ? "" : why.message);
}

/* ---- launcher ------------------------------------------------------------------------------------ */

static const unsigned char kIdByte = 0x5a;

static int fake_id(unsigned char *id, sk_ex_error *err) {
  (void)err;
  for (int i = 0; i < SK_LDA_NCCL_ID_BYTES; ++i) id[i] = (unsigned char)(kIdByte ^ i);
  return 0;
}

static int failing_id(unsigned char *id, sk_ex_error *err) {
  (void)id;
  return sk_ex_fail(err, "no id today (a test)");
}

static volatile sig_atomic_t got_term = 0;
static void on_term(int sig) { got_term = sig; }

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum scenario { ALL_OK, ONE_EXITS_3, ONE_KILLED, BAD_ID, TERM_TO_LAUNCHER };

/* What rank ctx->rank does in a scenario; never returns. */
static void rank_body(int sc, const sk_lda_rank_context *ctx, int R) {
  int ok = ctx->num_ranks == R && ctx->gpu == ctx->rank && ctx->rank >= 0 && ctx->rank < R &&
           ctx->timeout_seconds == 42.0;
  for (int i = 0; i < SK_LDA_NCCL_ID_BYTES; ++i) ok = ok && ctx->nccl_id[i] == (unsigned char)(kIdByte ^ i);
  const char *nvls = getenv("NCCL_NVLS_ENABLE");
  ok = ok && nvls != NULL && strcmp(nvls, "0") == 0;
  if (!ok) _exit(5);
  if (sc == ALL_OK) _exit(0);
  if (sc == ONE_EXITS_3 && ctx->rank == 1) _exit(3);
  if (sc == ONE_KILLED && ctx->rank == R - 1) raise(SIGKILL);
  if (sc == TERM_TO_LAUNCHER) {
    if (ctx->rank == 0) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_term;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGTERM, &sa, NULL);
      for (int i = 0; i < 500 && got_term == 0; ++i) nap_ms(10);
      _exit(got_term == SIGTERM ? SK_LDA_EXIT_SIGTERM : 6);
    }
    if (ctx->rank == 1) {
      nap_ms(300); /* rank 0's handler is in place by then */
      kill(getppid(), SIGTERM);
    }
    _exit(0);
  }
  /* a rank stuck in a collective; in ONE_EXITS_3 deaf to SIGTERM, so that only the SIGKILL ends it */
  if (sc == ONE_EXITS_3) signal(SIGTERM, SIG_IGN);
  sleep(300);
  _exit(0);
}

static void launch_case(int sc, int R, int (*make_id)(unsigned char *, sk_ex_error *), int expect_status,
                        double least_seconds, double most_seconds, const char *what) {
  sk_test_context("launcher: %s, R = %d", what, R);
  sk_lda_rank_context ctx;
  int is_rank = 0;
  sk_ex_error err;
  const double t0 = wall();
  const int status = sk_lda_ranks_launch(R, 42.0, NULL, make_id, &ctx, &is_rank, &err);
  if (is_rank) rank_body(sc, &ctx, R);
  const double secs = wall() - t0;
  SK_CHECK(status == expect_status, "status %d, expected %d", status, expect_status);
  SK_CHECK(secs >= least_seconds && secs <= most_seconds, "took %.1f s, expected %.1f to %.1f", secs, least_seconds,
           most_seconds);
  printf("launcher: %s, R = %d: status %d in %.2f s\n", what, R, status, secs);
}

static void launcher_tests(void) {
  const double grace = SK_LDA_RANKS_GRACE_SECONDS;
  launch_case(ALL_OK, 1, fake_id, 0, 0, 10, "every rank ends well");
  launch_case(ALL_OK, 4, fake_id, 0, 0, 10, "every rank ends well");
  launch_case(ONE_EXITS_3, 3, fake_id, 3, grace - 0.5, grace + 3, "rank 1 exits 3, the others hang deaf to SIGTERM");
  launch_case(ONE_KILLED, 2, fake_id, SK_EX_EXIT_RUNTIME, 0, 3, "the last rank is killed, the others hang");
  launch_case(BAD_ID, 3, failing_id, SK_EX_EXIT_RUNTIME, 0, grace + 3, "rank 0 cannot make the id");
  launch_case(TERM_TO_LAUNCHER, 3, fake_id, SK_LDA_EXIT_SIGTERM, 0, grace + 3, "SIGTERM to the launcher");
  sk_test_context("launcher: bad arguments");
  sk_lda_rank_context ctx;
  int is_rank = 1;
  sk_ex_error err;
  SK_CHECK(sk_lda_ranks_launch(0, 1.0, NULL, fake_id, &ctx, &is_rank, &err) == SK_EX_EXIT_USAGE && is_rank == 0,
           "0 ranks launched");
  SK_CHECK(sk_lda_ranks_launch(2, 1.0, NULL, NULL, &ctx, &is_rank, &err) == SK_EX_EXIT_RUNTIME && is_rank == 0,
           "no id maker accepted");
}

/* Under mpirun: this process is one rank. */
static int mpi_main(void) {
  sk_lda_rank_context ctx;
  sk_ex_error err;
  if (!SK_CHECK(sk_lda_ranks_mpi_start(42.0, fake_id, &ctx, &err) == 0, "MPI start: %s", err.message))
    return sk_lda_ranks_mpi_end(sk_test_finish());
  sk_test_context("MPI rank %d of %d", ctx.rank, ctx.num_ranks);
  int same = 1;
  for (int i = 0; i < SK_LDA_NCCL_ID_BYTES; ++i) same = same && ctx.nccl_id[i] == (unsigned char)(kIdByte ^ i);
  SK_CHECK(same, "rank %d did not get rank 0's id", ctx.rank);
  SK_CHECK(ctx.num_ranks >= 1 && ctx.rank >= 0 && ctx.rank < ctx.num_ranks, "rank %d of %d", ctx.rank,
           ctx.num_ranks);
  SK_CHECK(ctx.gpu >= 0 && ctx.gpu <= ctx.rank && ctx.timeout_seconds == 42.0 && ctx.comm == NULL,
           "rank %d: GPU %d, timeout %g", ctx.rank, ctx.gpu, ctx.timeout_seconds);
  fprintf(stderr, "MPI rank %d of %d: GPU %d, rank 0's id\n", ctx.rank, ctx.num_ranks, ctx.gpu);
  const int status = sk_test_finish();
  return sk_lda_ranks_mpi_end(status);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--mpi") == 0) return mpi_main();
  split_tests();
  check_tests();
  launcher_tests();
  return sk_test_finish();
}
