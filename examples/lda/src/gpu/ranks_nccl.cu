// The NCCL communicator of a multi-GPU sk-lda run (ranks_nccl.h): non-blocking, every wait polled with
// a timeout and ncclCommGetAsyncError(), aborted on the first failure; the sum of the counts dense (an
// all-reduce) or sparse (samplekit's sparse count entries, sent to the ranks that have some).
#include <cuda_runtime.h>
#include <nccl.h>

#include "samplekit/sparse_counts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ranks_nccl.h"
#include "sk_ex_clock.h"

static_assert(sizeof(ncclUniqueId) == SK_LDA_NCCL_ID_BYTES, "ranks_nccl.h's id size is NCCL's");
static_assert(NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0), "non-blocking communicators need NCCL 2.14 or later");

struct sk_lda_ranks_comm {
  ncclComm_t comm;     // NULL after an abort
  int rank, num_ranks, gpu;
  double timeout;      // seconds per wait; <= 0: none
  cudaStream_t stream; // the collectives' stream
  uint64_t *d_words;   // 8 words for the broadcasts
  unsigned long long *d_entries_of;  // R + 1: the ranks' numbers of entries (all-gathered), then this rank's
  unsigned long long *h_entries_of;  // R: the gathered numbers on the host
  int exchange;        // sk_lda_rank_exchange
  int failed;          // set by the first failure: the communicator is aborted, every later call fails
  sk_lda_ranks_sum_stats stats;
};

namespace {

void nap_100us() {
  struct timespec ts = {0, 100000L};
  nanosleep(&ts, NULL);
}

// Aborts the communicator (so that no collective of this rank runs on) and fills err; returns 1.
int fail_abort(sk_lda_ranks_comm *c, sk_ex_error *err, const char *what, const char *why) {
  if (c->comm != NULL) (void)ncclCommAbort(c->comm);
  c->comm = NULL;
  c->failed = 1;
  return sk_ex_fail(err, "rank %d of %d (GPU %d): %s: %s", c->rank, c->num_ranks, c->gpu, what, why);
}

int nccl_fail(sk_lda_ranks_comm *c, sk_ex_error *err, const char *what, ncclResult_t r) {
  char why[400];
  const char *last = c->comm != NULL ? ncclGetLastError(c->comm) : NULL;
  snprintf(why, sizeof why, "NCCL: %s%s%s", ncclGetErrorString(r), last != NULL && last[0] ? ": " : "",
           last != NULL ? last : "");
  return fail_abort(c, err, what, why);
}

int cuda_fail(sk_lda_ranks_comm *c, sk_ex_error *err, const char *what, cudaError_t e) {
  char why[300];
  snprintf(why, sizeof why, "CUDA: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
  return fail_abort(c, err, what, why);
}

// Waits until the communicator has no operation in progress and, when stream_too, its stream is idle;
// fails on an asynchronous NCCL error (a peer's failure included), a CUDA error or the timeout. It polls
// without sleeping for the first kSpinSeconds (a sweep's sum takes a few waits of well under a
// millisecond each, which 100-microsecond naps would stretch by about half a nap apiece), then naps.
constexpr double kSpinSeconds = 2e-3;
int wait_done(sk_lda_ranks_comm *c, int stream_too, const char *what, sk_ex_error *err) {
  const double start = sk_ex_now();
  for (;;) {
    ncclResult_t async = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(c->comm, &async);
    if (r != ncclSuccess) return nccl_fail(c, err, what, r);
    if (async != ncclSuccess && async != ncclInProgress) return nccl_fail(c, err, what, async);
    if (async == ncclSuccess) {
      if (!stream_too) return 0;
      const cudaError_t e = cudaStreamQuery(c->stream);
      if (e == cudaSuccess) return 0;
      if (e != cudaErrorNotReady) return cuda_fail(c, err, what, e);
    }
    const double waited = sk_ex_now() - start;
    if (c->timeout > 0 && waited > c->timeout) {
      char why[200];
      snprintf(why, sizeof why, "no answer from the other ranks after %.0f s (--rank-timeout)", c->timeout);
      return fail_abort(c, err, what, why);
    }
    if (waited > kSpinSeconds) nap_100us();
  }
}

// The start of every call: the communicator usable, its device current.
int enter(sk_lda_ranks_comm *c, const char *what, sk_ex_error *err) {
  if (c == NULL) return sk_ex_fail(err, "ranks: %s: no communicator", what);
  if (c->failed || c->comm == NULL)
    return sk_ex_fail(err, "rank %d: %s: the communicator was aborted after an earlier failure", c->rank, what);
  const cudaError_t e = cudaSetDevice(c->gpu);
  if (e != cudaSuccess) return cuda_fail(c, err, "selecting the GPU", e);
  return 0;
}

// A collective's call: queued (ncclSuccess) or queueing (ncclInProgress, non-blocking), then waited for.
int run_call(sk_lda_ranks_comm *c, ncclResult_t r, const char *what, sk_ex_error *err) {
  if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(c, err, what, r);
  return wait_done(c, 1, what, err);
}

// NCCL connects two ranks for point-to-point sends on their first one, which took about 200 ms on two
// H200s: one word sent between every pair here, at the start, keeps that out of the first sweep's sum.
int connect_pairs(sk_lda_ranks_comm *c, sk_ex_error *err) {
  ncclResult_t r = ncclGroupStart();
  for (int q = 0; q < c->num_ranks && (r == ncclSuccess || r == ncclInProgress); ++q) {
    if (q == c->rank) continue;
    r = ncclSend(c->d_words, 1, ncclUint64, q, c->comm, c->stream);
    if (r == ncclSuccess || r == ncclInProgress) r = ncclRecv(c->d_words + 1, 1, ncclUint64, q, c->comm, c->stream);
  }
  const ncclResult_t end = ncclGroupEnd();
  if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(c, err, "connecting the ranks pairwise", r);
  return run_call(c, end, "connecting the ranks pairwise (ncclSend/ncclRecv)", err);
}

}  // namespace

extern "C" int sk_lda_ranks_nccl_available(sk_ex_error *err) {
  (void)err;
  return 1;
}

extern "C" int sk_lda_ranks_nccl_make_id(unsigned char *id, sk_ex_error *err) {
  if (id == NULL) return sk_ex_fail(err, "NCCL id: NULL");
  ncclUniqueId u;
  const ncclResult_t r = ncclGetUniqueId(&u);
  if (r != ncclSuccess) return sk_ex_fail(err, "ncclGetUniqueId: %s", ncclGetErrorString(r));
  memcpy(id, &u, sizeof u);
  return 0;
}

extern "C" int sk_lda_ranks_comm_create(const unsigned char *id, int rank, int num_ranks, int gpu,
                                        double timeout_seconds, sk_lda_ranks_comm **out, sk_ex_error *err) {
  if (out == NULL || id == NULL) return sk_ex_fail(err, "ranks: communicator: NULL argument");
  *out = NULL;
  if (num_ranks < 1 || rank < 0 || rank >= num_ranks || gpu < 0)
    return sk_ex_fail(err, "ranks: communicator: rank %d of %d on GPU %d", rank, num_ranks, gpu);
  sk_lda_ranks_comm *c = (sk_lda_ranks_comm *)calloc(1, sizeof *c);
  if (c == NULL) return sk_ex_fail(err, "ranks: out of host memory");
  c->rank = rank;
  c->num_ranks = num_ranks;
  c->gpu = gpu;
  c->timeout = timeout_seconds;
  cudaError_t e = cudaSetDevice(gpu);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc((void **)&c->d_words, 8 * sizeof *c->d_words);
  if (e == cudaSuccess) e = cudaMalloc((void **)&c->d_entries_of, ((size_t)num_ranks + 1) * sizeof *c->d_entries_of);
  c->h_entries_of = (unsigned long long *)malloc((size_t)num_ranks * sizeof *c->h_entries_of);
  if (e == cudaSuccess && c->h_entries_of == NULL) e = cudaErrorMemoryAllocation;
  if (e != cudaSuccess) {
    cuda_fail(c, err, "preparing the communicator", e);
    sk_lda_ranks_comm_destroy(c);
    return 1;
  }
  ncclUniqueId u;
  memcpy(&u, id, sizeof u);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; /* every wait is ours: polled, with a timeout, abortable */
  const ncclResult_t r = ncclCommInitRankConfig(&c->comm, num_ranks, u, rank, &config);
  int failed = 0;
  if (r != ncclSuccess && r != ncclInProgress) failed = nccl_fail(c, err, "joining the communicator", r);
  else failed = wait_done(c, 0, "joining the communicator", err);
  if (!failed && num_ranks > 1) failed = connect_pairs(c, err);
  if (failed) {
    sk_lda_ranks_comm_destroy(c);
    return 1;
  }
  *out = c;
  return 0;
}

extern "C" void sk_lda_ranks_comm_set_exchange(sk_lda_ranks_comm *c, int exchange) {
  if (c != NULL && (exchange == SK_LDA_EXCHANGE_AUTO || exchange == SK_LDA_EXCHANGE_DENSE)) c->exchange = exchange;
}

namespace {

int samplekit_fail(sk_lda_ranks_comm *c, sk_ex_error *err, const char *what, sk_status s) {
  char why[300];
  snprintf(why, sizeof why, "samplekit: %s", sk_status_string(s));
  return fail_abort(c, err, what, why);
}

// The dense sum: an all-reduce of every count (a rank without counts adds zeros made for the call).
int sum_dense(sk_lda_ranks_comm *c, int32_t *d_data, size_t count, sk_ex_error *err) {
  int32_t *zeros = NULL;
  if (d_data == NULL && count > 0) { /* a rank without tokens adds zeros */
    cudaError_t ze = cudaMalloc((void **)&zeros, count * sizeof *zeros);
    if (ze == cudaSuccess) ze = cudaMemset(zeros, 0, count * sizeof *zeros);
    if (ze != cudaSuccess) {
      if (zeros != NULL) (void)cudaFree(zeros);
      return cuda_fail(c, err, "a rank without tokens: zero counts", ze);
    }
    d_data = zeros;
  }
  const int failed = count > 0 && run_call(c, ncclAllReduce(d_data, d_data, count, ncclInt32, ncclSum, c->comm,
                                                            c->stream),
                                           "summing B over the ranks (ncclAllReduce)", err) != 0;
  if (zeros != NULL) {
    const cudaError_t fe = cudaFree(zeros);
    if (!failed && fe != cudaSuccess) return cuda_fail(c, err, "a rank without tokens: freeing its zeros", fe);
  }
  if (failed) return 1;
  const double R = (double)c->num_ranks;
  c->stats.sent_bytes += 2.0 * (R - 1.0) / R * (double)count * sizeof(int32_t);
  return 0;
}

// The sparse sum's first half: this rank's entries packed into d_scratch (none without counts), and
// every rank's number of entries gathered into h_entries_of. *total receives their sum.
int gather_entry_counts(sk_lda_ranks_comm *c, const int32_t *d_data, uint64_t *d_scratch, size_t count,
                        unsigned long long *total, sk_ex_error *err) {
  const int R = c->num_ranks;
  unsigned long long *own = c->d_entries_of + R;
  if (d_data != NULL && d_scratch != NULL) {
    const sk_status s = sk_sparse_counts_pack_i32(d_data, count, d_scratch, count / 2, own, c->stream);
    if (s != SK_SUCCESS) return samplekit_fail(c, err, "packing B's nonzero counts", s);
  } else {
    /* no counts: no entries; counts without scratch: more than any capacity, so this sum is dense */
    const unsigned long long none = d_data == NULL ? 0ull : ~0ull >> 1;
    const cudaError_t e = cudaMemcpyAsync(own, &none, sizeof none, cudaMemcpyHostToDevice, c->stream);
    if (e != cudaSuccess) return cuda_fail(c, err, "packing B's nonzero counts", e);
  }
  if (run_call(c, ncclAllGather(own, c->d_entries_of, 1, ncclUint64, c->comm, c->stream),
               "gathering the ranks' numbers of entries (ncclAllGather)", err) != 0)
    return 1;
  const cudaError_t e =
      cudaMemcpy(c->h_entries_of, c->d_entries_of, (size_t)R * sizeof *c->h_entries_of, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_fail(c, err, "gathering the ranks' numbers of entries", e);
  unsigned long long sum = 0;
  for (int r = 0; r < R; ++r) sum = c->h_entries_of[r] > ~0ull - sum ? ~0ull : sum + c->h_entries_of[r];
  *total = sum;
  c->stats.sent_bytes += sizeof(unsigned long long);
  return 0;
}

// The sparse sum's second half: this rank's entries (d_scratch[0 .. own)) to every other rank that has
// entries, theirs received behind them in rank order, and added into d_data.
int exchange_entries(sk_lda_ranks_comm *c, int32_t *d_data, uint64_t *d_scratch, size_t count, sk_ex_error *err) {
  const int R = c->num_ranks;
  const unsigned long long own = c->h_entries_of[c->rank];
  if (own == 0) return 0; /* a rank without counts sends and receives nothing */
  unsigned long long received = 0;
  int receivers = 0;
  ncclResult_t r = ncclGroupStart();
  for (int q = 0; q < R && (r == ncclSuccess || r == ncclInProgress); ++q) {
    const unsigned long long theirs = c->h_entries_of[q];
    if (q == c->rank || theirs == 0) continue;
    r = ncclSend(d_scratch, own, ncclUint64, q, c->comm, c->stream);
    if (r == ncclSuccess || r == ncclInProgress)
      r = ncclRecv(d_scratch + own + received, theirs, ncclUint64, q, c->comm, c->stream);
    received += theirs;
    ++receivers;
  }
  const ncclResult_t end = ncclGroupEnd();
  if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(c, err, "exchanging B's entries (ncclSend/Recv)", r);
  if (run_call(c, end, "exchanging B's entries (ncclSend/ncclRecv)", err) != 0) return 1;
  const sk_status s = sk_sparse_counts_add_i32(d_scratch + own, received, d_data, count, c->stream);
  if (s != SK_SUCCESS) return samplekit_fail(c, err, "adding the other ranks' entries into B", s);
  const cudaError_t e = cudaStreamSynchronize(c->stream);
  if (e != cudaSuccess) return cuda_fail(c, err, "adding the other ranks' entries into B", e);
  c->stats.sent_bytes += (double)own * (double)receivers * sizeof(uint64_t);
  return 0;
}

}  // namespace

extern "C" int sk_lda_ranks_comm_sum_i32(sk_lda_ranks_comm *c, int32_t *d_data, int32_t *d_scratch, size_t count,
                                         sk_ex_error *err) {
  if (enter(c, "summing B over the ranks", err) != 0) return 1;
  /* After everything queued on this device (the draws, on the legacy stream or a pipeline's workers);
     the time counted is the sum's, the wait for the slowest rank included, not this rank's draws. */
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return cuda_fail(c, err, "finishing the draws before the sum", e);
  const double t0 = sk_ex_now();
  int sparse = 0;
  if (c->num_ranks > 1 && c->exchange == SK_LDA_EXCHANGE_AUTO && count > 1) {
    unsigned long long total = 0;
    if (gather_entry_counts(c, d_data, (uint64_t *)d_scratch, count, &total, err) != 0) return 1;
    sparse = total <= count / 2; /* the same numbers, so the same decision, on every rank */
  }
  if (sparse ? exchange_entries(c, d_data, (uint64_t *)d_scratch, count, err) != 0
             : sum_dense(c, d_data, count, err) != 0)
    return 1;
  c->stats.sums += 1;
  c->stats.sparse_sums += sparse;
  c->stats.seconds += sk_ex_now() - t0;
  return 0;
}

extern "C" int sk_lda_ranks_comm_broadcast_u64(sk_lda_ranks_comm *c, uint64_t *h_words, int n, sk_ex_error *err) {
  if (enter(c, "rank 0's command", err) != 0) return 1;
  if (h_words == NULL || n < 1 || n > 8) return sk_ex_fail(err, "ranks: broadcast of %d words", n);
  cudaError_t e = cudaSuccess;
  if (c->rank == 0) e = cudaMemcpy(c->d_words, h_words, (size_t)n * sizeof *h_words, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) return cuda_fail(c, err, "rank 0's command", e);
  if (run_call(c, ncclBroadcast(c->d_words, c->d_words, (size_t)n, ncclUint64, 0, c->comm, c->stream),
               "rank 0's command (ncclBroadcast)", err) != 0)
    return 1;
  e = cudaMemcpy(h_words, c->d_words, (size_t)n * sizeof *h_words, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_fail(c, err, "rank 0's command", e);
  return 0;
}

extern "C" int sk_lda_ranks_comm_gather_i32(sk_lda_ranks_comm *c, const int32_t *h_part, const int64_t *begin,
                                            int32_t *h_all, sk_ex_error *err) {
  if (enter(c, "gathering z on rank 0", err) != 0) return 1;
  if (begin == NULL || (c->rank == 0 && h_all == NULL)) return sk_ex_fail(err, "ranks: gather: NULL argument");
  const int R = c->num_ranks;
  size_t largest = 0;
  for (int r = 0; r < R; ++r) {
    if (begin[r + 1] < begin[r]) return sk_ex_fail(err, "ranks: gather: part %d has a negative size", r);
    const size_t n = (size_t)(begin[r + 1] - begin[r]);
    if (n > largest) largest = n;
  }
  const size_t own = (size_t)(begin[c->rank + 1] - begin[c->rank]);
  if (own > 0 && h_part == NULL) return sk_ex_fail(err, "ranks: gather: NULL part");
  if (c->rank == 0 && own > 0) memcpy(h_all, h_part, own * sizeof *h_all);
  const size_t stage = c->rank == 0 ? largest : own;
  if (R == 1 || stage == 0) return 0;
  int32_t *d = NULL;
  cudaError_t e = cudaMalloc((void **)&d, stage * sizeof *d);
  if (e != cudaSuccess) return cuda_fail(c, err, "gathering z: a device buffer", e);
  int failed = 0;
  if (c->rank != 0) {
    e = cudaMemcpy(d, h_part, own * sizeof *d, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) failed = cuda_fail(c, err, "sending z", e);
    else failed = run_call(c, ncclSend(d, own, ncclInt32, 0, c->comm, c->stream), "sending z (ncclSend)", err);
  } else {
    for (int r = 1; r < R && !failed; ++r) {
      const size_t n = (size_t)(begin[r + 1] - begin[r]);
      if (n == 0) continue;
      failed = run_call(c, ncclRecv(d, n, ncclInt32, r, c->comm, c->stream), "receiving z (ncclRecv)", err);
      if (!failed) {
        e = cudaMemcpy(h_all + begin[r], d, n * sizeof *d, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) failed = cuda_fail(c, err, "receiving z", e);
      }
    }
  }
  const cudaError_t fe = cudaFree(d);
  if (!failed && fe != cudaSuccess) return cuda_fail(c, err, "gathering z: freeing the device buffer", fe);
  return failed;
}

extern "C" void sk_lda_ranks_comm_stats(const sk_lda_ranks_comm *c, sk_lda_ranks_sum_stats *out) {
  if (out == NULL) return;
  if (c != NULL) *out = c->stats;
  else memset(out, 0, sizeof *out);
}

extern "C" void sk_lda_ranks_comm_destroy(sk_lda_ranks_comm *c) {
  if (c == NULL) return;
  (void)cudaSetDevice(c->gpu);
  if (c->comm != NULL) {
    sk_ex_error ignored;
    /* Finalize flushes this rank's operations; when it fails or times out, abort instead. */
    const ncclResult_t r = ncclCommFinalize(c->comm);
    if ((r == ncclSuccess || r == ncclInProgress) && wait_done(c, 0, "ending the communicator", &ignored) == 0)
      (void)ncclCommDestroy(c->comm);
    else if (c->comm != NULL)
      (void)ncclCommAbort(c->comm);
  }
  if (c->d_words != NULL) (void)cudaFree(c->d_words);
  if (c->d_entries_of != NULL) (void)cudaFree(c->d_entries_of);
  free(c->h_entries_of);
  if (c->stream != NULL) (void)cudaStreamDestroy(c->stream);
  free(c);
}
