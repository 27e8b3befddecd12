/* The launcher of `sk-lda train --gpus N` (ranks.h): one process per GPU, the NCCL id through a pipe,
   the ranks watched with waitpid and ended together when one fails. */
#include "ranks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "run.h"
#include "sk_ex_clock.h"

static volatile sig_atomic_t launch_signal = 0;

static void launch_on_signal(int sig) { launch_signal = sig; }

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* write() (writing) or read() of all n bytes, through EINTR and short counts; 0 on success, 1 on an
   error or end of file. */
static int move_all(int fd, unsigned char *p, size_t n, int writing) {
  while (n > 0) {
    const ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return 1;
    p += k, n -= (size_t)k;
  }
  return 0;
}

/* In a new rank, before it returns to the caller: its process group, signals, stdout, the NCCL id. */
static void become_rank(int rank, int num_ranks, double timeout_seconds, pid_t launcher, const int fd[2],
                        int (*make_id)(unsigned char *, sk_ex_error *), sk_lda_rank_context *ctx) {
#ifdef __linux__
  /* A rank dies with its launcher, so that no rank outlives a killed run. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher) _exit(SK_EX_EXIT_RUNTIME);
#else
  (void)launcher;
#endif
  /* The terminal's Ctrl-C reaches the launcher only, which passes it to rank 0 once. */
  (void)setpgid(0, 0);
  memset(ctx, 0, sizeof *ctx);
  ctx->rank = rank;
  ctx->num_ranks = num_ranks;
  ctx->gpu = rank;
  ctx->timeout_seconds = timeout_seconds;
  if (rank > 0) {
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      (void)dup2(null_fd, STDOUT_FILENO);
      close(null_fd);
    }
  }
  sk_ex_error err;
  if (rank == 0) {
    close(fd[0]);
    if (make_id(ctx->nccl_id, &err) != 0) {
      fprintf(stderr, "sk-lda train: rank 0: making the NCCL id: %s\n", err.message);
      _exit(SK_EX_EXIT_RUNTIME);
    }
    /* One copy per other rank; each is one atomic write (<= PIPE_BUF), so each reader gets one whole. */
    for (int r = 1; r < num_ranks; ++r)
      if (move_all(fd[1], ctx->nccl_id, SK_LDA_NCCL_ID_BYTES, 1) != 0) {
        fprintf(stderr, "sk-lda train: rank 0: handing the NCCL id to the other ranks: %s\n", strerror(errno));
        _exit(SK_EX_EXIT_RUNTIME);
      }
    close(fd[1]);
  } else {
    close(fd[1]);
    if (move_all(fd[0], ctx->nccl_id, SK_LDA_NCCL_ID_BYTES, 0) != 0) {
      fprintf(stderr, "sk-lda train: rank %d: rank 0 ended before it handed out the NCCL id\n", rank);
      _exit(SK_EX_EXIT_RUNTIME);
    }
    close(fd[0]);
  }
}

/* "exited with status 3" or "was killed by signal 9 (Killed)". */
static void describe_end(int status, char *buf, size_t cap) {
  if (WIFEXITED(status))
    snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    snprintf(buf, cap, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    snprintf(buf, cap, "ended (wait status %d)", status);
}

static int exit_code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : SK_EX_EXIT_RUNTIME;
}

/* Sends sig to every rank still running. */
static void signal_alive(const pid_t *pids, const int *alive, int n, int sig) {
  for (int r = 0; r < n; ++r)
    if (alive[r]) (void)kill(pids[r], sig);
}

/* The launcher's watch: waits for every rank, passes signals to rank 0, ends the others after a failure. */
static int watch_ranks(const pid_t *pids, int *alive, int n, const char *out_dir) {
  int running = n, first_fail = -1, fail_status = 0, rank0_ended = 0, rank0_status = 0, killed = 0;
  double deadline = 0.0, failed_at = 0.0;
  int stage = 0; /* 0: none; 1: waiting for the ranks to end by themselves; 2: SIGTERM sent, then SIGKILL */
  while (running > 0) {
    const int sig = (int)launch_signal;
    if (sig != 0) {
      launch_signal = 0;
      if (alive[0]) (void)kill(pids[0], sig);
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      int r = 0;
      while (r < n && pids[r] != pid) ++r;
      if (r == n || !alive[r]) continue;
      alive[r] = 0;
      --running;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      /* Rank 0 ends by itself with 0, 2 (bad usage: nothing was started) or 130 / 143 (interrupted, saved);
         anything else, and any other rank's non-zero end, fails the run. */
      const int failed = r == 0 ? !(code == 0 || code == SK_EX_EXIT_USAGE || code == SK_LDA_EXIT_SIGINT ||
                                    code == SK_LDA_EXIT_SIGTERM)
                                : code != 0;
      if (r == 0) rank0_ended = 1, rank0_status = status;
      if (failed && first_fail < 0 && !killed && (r == 0 || !rank0_ended)) {
        first_fail = r;
        fail_status = status;
        failed_at = sk_ex_now();
        if (running > 0 || r > 0 || code < 0) { /* rank 0's own errors are said by rank 0 */
          char how[160];
          describe_end(status, how, sizeof how);
          fprintf(stderr, "sk-lda train: rank %d (GPU %d) %s; %s\n", r, r, how,
                  running > 0 ? "ending the other ranks (SIGTERM now, SIGKILL in a few seconds)" : "the run has ended");
        }
        if (running > 0) {
          signal_alive(pids, alive, n, SIGTERM);
          killed = 1;
          stage = 2, deadline = sk_ex_now() + SK_LDA_RANKS_GRACE_SECONDS;
        }
      } else if (r == 0 && running > 0 && stage == 0) {
        stage = 1, deadline = sk_ex_now() + SK_LDA_RANKS_GRACE_SECONDS; /* the others were told to stop */
      }
      continue;
    }
    if (pid < 0 && errno != EINTR) break; /* no children left to wait for */
    if (stage > 0 && sk_ex_now() >= deadline) {
      if (stage == 1) {
        signal_alive(pids, alive, n, SIGTERM);
        stage = 2, deadline = sk_ex_now() + SK_LDA_RANKS_GRACE_SECONDS;
      } else {
        signal_alive(pids, alive, n, SIGKILL);
        deadline = sk_ex_now() + 3600.0; /* SIGKILL cannot be refused: waitpid collects them */
      }
      killed = 1;
    }
    sleep_ms(20);
  }
  if (first_fail >= 0) {
    if (n > 1)
      fprintf(stderr, "sk-lda train: every rank has ended, %.1f s after rank %d failed\n", sk_ex_now() - failed_at,
              first_fail);
    char path[4096];
    struct stat st;
    if (out_dir != NULL && snprintf(path, sizeof path, "%s/checkpoint.skc", out_dir) < (int)sizeof path &&
        stat(path, &st) == 0)
      fprintf(stderr, "sk-lda train: the last checkpoint is kept: continue with the same options and --resume %s\n",
              out_dir);
    if (first_fail == 0 && rank0_ended && WIFEXITED(rank0_status)) return exit_code_of(rank0_status);
    return exit_code_of(fail_status) != 0 ? exit_code_of(fail_status) : SK_EX_EXIT_RUNTIME;
  }
  if (rank0_ended) return exit_code_of(rank0_status);
  return SK_EX_EXIT_RUNTIME;
}

int sk_lda_ranks_launch(int num_ranks, double timeout_seconds, const char *out_dir,
                        int (*make_id)(unsigned char *id, sk_ex_error *err), sk_lda_rank_context *ctx, int *is_rank,
                        sk_ex_error *err) {
  if (is_rank != NULL) *is_rank = 0;
  if (ctx == NULL || is_rank == NULL || make_id == NULL) {
    sk_ex_fail(err, "rank launch: a pointer is NULL");
    return SK_EX_EXIT_RUNTIME;
  }
  if (num_ranks < 1 || num_ranks > SK_LDA_MAX_RANKS) {
    sk_ex_fail(err, "rank launch: %d ranks; 1 to %d", num_ranks, SK_LDA_MAX_RANKS);
    return SK_EX_EXIT_USAGE;
  }
  /* NVLink multicast stays off in every rank (the machines' rule), unless the user chose otherwise. */
  if (getenv("NCCL_NVLS_ENABLE") == NULL && setenv("NCCL_NVLS_ENABLE", "0", 1) != 0) {
    sk_ex_fail(err, "rank launch: setting NCCL_NVLS_ENABLE: %s", strerror(errno));
    return SK_EX_EXIT_RUNTIME;
  }
  pid_t *pids = (pid_t *)calloc((size_t)num_ranks, sizeof *pids);
  int *alive = (int *)calloc((size_t)num_ranks, sizeof *alive);
  int fd[2];
  if (pids == NULL || alive == NULL || pipe(fd) != 0) {
    sk_ex_fail(err, "rank launch: %s", pids == NULL || alive == NULL ? "out of memory" : strerror(errno));
    free(pids);
    free(alive);
    return SK_EX_EXIT_RUNTIME;
  }
  fflush(stdout);
  fflush(stderr);
  const pid_t launcher = getpid();
  for (int r = 0; r < num_ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      free(pids);
      free(alive);
      become_rank(r, num_ranks, timeout_seconds, launcher, fd, make_id, ctx);
      *is_rank = 1;
      return SK_EX_EXIT_OK;
    }
    if (pid < 0) {
      sk_ex_fail(err, "rank launch: starting rank %d: %s", r, strerror(errno));
      signal_alive(pids, alive, r, SIGKILL);
      for (int i = 0; i < r; ++i) (void)waitpid(pids[i], NULL, 0);
      close(fd[0]);
      close(fd[1]);
      free(pids);
      free(alive);
      return SK_EX_EXIT_RUNTIME;
    }
    (void)setpgid(pid, pid);
    pids[r] = pid;
    alive[r] = 1;
  }
  close(fd[0]);
  close(fd[1]);
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = launch_on_signal;
  sigemptyset(&sa.sa_mask);
  launch_signal = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  const int status = watch_ranks(pids, alive, num_ranks, out_dir);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  free(pids);
  free(alive);
  return status;
}
