/*
 * csr_pipeline_test_util.cuh: what the CSR pipeline tests (test_csr_pipeline.cu and
 * test_csr_pipeline_chunk_arrays.cu) share. CUDA C++ only (nvcc).
 *
 * - csr_test_xmalloc() allocates host memory or ends the program; the tests' kernels and host
 *   references derive their values from sk_mix_u32() (sk_test.h).
 * - Host arrays in three kinds of memory (kMalloc, kHostAlloc, kRegistered) and the memory modes that
 *   mix them (kMemPageable, kMemPinned, kMemMixed, named by kMemNames): csr_test_mem_kind(),
 *   csr_test_host_alloc(), csr_test_host_free(), csr_test_host_tokens().
 * - Step functions: csr_test_grid_for(), csr_test_aligned256(), and CsrTestStep, the part of a step
 *   function's context that csr_test_view_ok() keeps (calls, chunk order, bad views).
 * - csr_test_plan_with_chunks(): the smallest budget whose plan has a given number of chunks.
 * - csr_test_two_runs(): two runs and a download of a pipeline, each checked (status, calls, views,
 *   traffic, host arrays through the test's callback); CSR_TEST_EXPECT_REFUSED for create's refusals.
 */
#ifndef SAMPLEKIT_TESTS_CSR_PIPELINE_TEST_UTIL_CUH
#define SAMPLEKIT_TESTS_CSR_PIPELINE_TEST_UTIL_CUH

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "samplekit/samplekit.h"
#include "sk_test.h"

/* malloc (at least 1 byte) that ends the program when the host is out of memory. */
static inline void *csr_test_xmalloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "FAIL: out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* How one host array is allocated, and the memory modes of a test's set of host arrays. */
enum { kMalloc, kHostAlloc, kRegistered };
enum { kMemPageable, kMemPinned, kMemMixed, kNumMemModes };
static const char *const kMemNames[kNumMemModes] = {"pageable", "pinned", "mixed"};

/* The kind of an array in memory mode `mem`: malloc, cudaHostAlloc, or `mixed_kind` in the mixed mode. */
static inline int csr_test_mem_kind(int mem, int mixed_kind) {
  return mem == kMemPageable ? kMalloc : mem == kMemPinned ? kHostAlloc : mixed_kind;
}

/* `bytes` of host memory of one kind (malloc'd ones are page aligned and, kRegistered, registered). */
static inline void *csr_test_host_alloc(size_t bytes, int kind) {
  void *p = NULL;
  const size_t rounded = (bytes + 4095) / 4096 * 4096 + 4096;
  if (kind == kHostAlloc) {
    SK_CHECK_CUDA(cudaHostAlloc(&p, bytes > 0 ? bytes : 1, cudaHostAllocDefault));
  } else {
    p = aligned_alloc(4096, rounded);
    if (p == NULL) {
      fprintf(stderr, "FAIL: out of host memory\n");
      exit(1);
    }
    if (kind == kRegistered) SK_CHECK_CUDA(cudaHostRegister(p, rounded, cudaHostRegisterDefault));
  }
  return p;
}

/* Frees what csr_test_host_alloc(..., kind) returned. */
static inline void csr_test_host_free(void *p, int kind) {
  if (kind == kHostAlloc) {
    SK_CHECK_CUDA(cudaFreeHost(p));
  } else {
    if (kind == kRegistered) SK_CHECK_CUDA(cudaHostUnregister(p));
    free(p);
  }
}

/* A copy of the `num_tokens` word ids in host memory of one kind. */
static inline int32_t *csr_test_host_tokens(const int32_t *tokens, int64_t num_tokens, int kind) {
  int32_t *h = (int32_t *)csr_test_host_alloc(4 * (size_t)num_tokens, kind);
  memcpy(h, tokens, 4 * (size_t)num_tokens);
  return h;
}

/* Blocks of 128 threads for `items` items, at least 1 and at most `max_blocks`. */
static inline unsigned csr_test_grid_for(int64_t items, int64_t max_blocks) {
  const int64_t blocks = (items + 127) / 128;
  return (unsigned)(blocks < 1 ? 1 : blocks > max_blocks ? max_blocks : blocks);
}

/* Whether a device pointer is 256-byte aligned, as every region of a worker's buffer is. */
static inline int csr_test_aligned256(const void *p) { return ((uintptr_t)p & 255u) == 0; }

/* The part of a step function's context that both tests keep (the rest is each test's own). */
typedef struct CsrTestStep {
  const sk_csr_chunk_plan *plan;
  int num_workers;  // W', to check view.worker
  int64_t fail_at;  // the function returns SK_ERROR_UNSUPPORTED on this chunk (after launching)
  int64_t calls, next_index;
  int bad_views;
} CsrTestStep;

/* Starts a run's context: no calls yet, chunk 0 next, no failing chunk. */
static inline void csr_test_step_init(CsrTestStep *s, const sk_csr_chunk_plan *plan, int num_workers) {
  memset(s, 0, sizeof *s);
  s->plan = plan;
  s->num_workers = num_workers;
  s->fail_at = -1;
}

/* Counts a call and checks its view's chunk order, the plan's description of it (in *ci) and the worker rule. */
static inline int csr_test_view_ok(CsrTestStep *s, const sk_csr_chunk_view *v, sk_csr_chunk_info *ci) {
  ++s->calls;
  const int ok = v->index == s->next_index && sk_csr_chunk_plan_chunk(s->plan, v->index, ci) == SK_SUCCESS;
  s->next_index = v->index + 1;
  return ok && ci->first_row == v->info.first_row && ci->num_rows == v->info.num_rows &&
         ci->first_token == v->info.first_token && ci->num_tokens == v->info.num_tokens &&
         v->worker == (int)(v->index % s->num_workers);
}

/* The smallest budget (in *budget_out) whose plan of the rows has at most `want` chunks under these costs. */
static inline sk_csr_chunk_plan *csr_test_plan_with_chunks(const int64_t *offsets, int64_t num_rows, size_t bpt,
                                                           size_t bpr, size_t fixed, int64_t want,
                                                           size_t *budget_out) {
  size_t lo = fixed, hi = fixed + bpt * (size_t)offsets[num_rows] + bpr * (size_t)num_rows;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    sk_csr_chunk_plan *p = NULL;
    int64_t chunks = INT64_MAX;
    if (sk_csr_chunk_plan_create(offsets, num_rows, bpt, bpr, fixed, mid, &p, NULL, NULL) == SK_SUCCESS)
      sk_csr_chunk_plan_num_chunks(p, &chunks);
    sk_csr_chunk_plan_destroy(p);
    if (chunks <= want)
      hi = mid;
    else
      lo = mid + 1;
  }
  sk_csr_chunk_plan *plan = NULL;
  int64_t got = 0;
  SK_CHECK(sk_csr_chunk_plan_create(offsets, num_rows, bpt, bpr, fixed, lo, &plan, NULL, NULL) == SK_SUCCESS,
           "plan for %lld chunks", (long long)want);
  sk_csr_chunk_plan_num_chunks(plan, &got);
  SK_CHECK(got == want, "the smallest budget for at most %lld chunks gives %lld", (long long)want, (long long)got);
  *budget_out = lo;
  return plan;
}

/* Checks sk_csr_pipeline_get_info()'s plan, workers (W' of `workers`), residency and order. */
static inline void csr_test_check_info(const sk_csr_pipeline_info *info, int64_t num_chunks, int workers,
                                       sk_csr_pipeline_order order) {
  const int want_workers = num_chunks < workers ? (int)num_chunks : workers;
  SK_CHECK(info->num_chunks == num_chunks && info->num_workers == want_workers && info->resident == (num_chunks == 1) &&
               info->order == order,
           "info: %lld chunks, %d workers, resident %d, order %d", (long long)info->num_chunks, info->num_workers,
           info->resident, (int)info->order);
}

/* Checks that a pipeline stages its copies exactly when its host memory is not all pinned. */
static inline void csr_test_check_staging(const sk_csr_pipeline_info *info, int mem) {
  SK_CHECK((mem == kMemPinned) == (info->staging_bytes_per_worker == 0), "staging bytes %zu with %s memory",
           info->staging_bytes_per_worker, kMemNames[mem]);
}

/* A test's side of csr_test_two_runs(): its step function, and callbacks on its own `user` data. */
typedef struct CsrTestRuns {
  sk_csr_pipeline_fn fn;                      // the step function under test
  void *fn_user;                              // its context, of which *step is the common part
  CsrTestStep *step;
  void (*start_run)(void *user);              // re-initialises the step context before a run
  void (*check_host)(void *user, int state);  // the host arrays against state 0 (initial), 1 or 2 (after runs)
  void *user;
} CsrTestRuns;

/* Two runs and a download, each checked: status, chunks done, calls, views, traffic and host arrays. */
static inline void csr_test_two_runs(sk_csr_pipeline *p, const CsrTestRuns *r, int64_t num_chunks, uint64_t in_bytes,
                                     uint64_t out_bytes) {
  const int resident = num_chunks == 1;
  sk_csr_pipeline_info info;
  int64_t done = -1;
  // A streaming run copies in_bytes in and out_bytes out; a resident pipeline uploads on its first run
  // only, copies out on the download only, and leaves the host arrays untouched (state 0) until then.
  for (int run = 1; run <= 2; ++run) {
    r->start_run(r->user);
    const sk_status st = sk_csr_pipeline_run(p, r->fn, r->fn_user, &done);
    SK_CHECK(st == SK_SUCCESS && done == num_chunks, "run %d returned %s, %lld chunks done", run, sk_status_name(st),
             (long long)done);
    SK_CHECK(r->step->calls == num_chunks && r->step->bad_views == 0, "run %d: %lld calls, %d bad views", run,
             (long long)r->step->calls, r->step->bad_views);
    sk_csr_pipeline_get_info(p, &info);
    const uint64_t want_in = resident && run > 1 ? 0 : in_bytes, want_out = resident ? 0 : out_bytes;
    SK_CHECK(info.last_h2d_bytes == want_in && info.last_d2h_bytes == want_out,
             "run %d copied %llu in (expected %llu), %llu out (expected %llu)", run,
             (unsigned long long)info.last_h2d_bytes, (unsigned long long)want_in,
             (unsigned long long)info.last_d2h_bytes, (unsigned long long)want_out);
    r->check_host(r->user, resident ? 0 : run);
  }
  SK_CHECK(sk_csr_pipeline_download(p) == SK_SUCCESS, "download");
  sk_csr_pipeline_get_info(p, &info);
  SK_CHECK(info.last_h2d_bytes == 0 && info.last_d2h_bytes == (resident ? out_bytes : 0),
           "download copied %llu in, %llu out", (unsigned long long)info.last_h2d_bytes,
           (unsigned long long)info.last_d2h_bytes);
  r->check_host(r->user, 2);
}

/* For create's argument checks: `call` (which first sets `pipeline` to junk) returns `want` and leaves it NULL. */
#define CSR_TEST_EXPECT_REFUSED(pipeline, call, want, what)                                                     \
  do {                                                                                                          \
    const sk_status got_ = (call);                                                                              \
    SK_CHECK(got_ == (want) && (pipeline) == NULL, "%s: %s (expected %s), pipeline %s", what, sk_status_name(got_), \
             sk_status_name(want), (pipeline) == NULL ? "NULL" : "not NULL");                                   \
  } while (0)

#endif /* SAMPLEKIT_TESTS_CSR_PIPELINE_TEST_UTIL_CUH */
