// bench_csr_pipeline: issue 4, the chunker pipeline (csr_pipeline.h) on a transfer-heavy job. A corpus
// of T tokens (default 10^9) whose word ids (int32, 4 B/token) and topics (uint16, 2 B/token) are in
// pinned host memory streams through the GPU: every run copies the ids and topics in, a light kernel
// moves each topic (topics[i] = (topics[i] + ids[i]) mod 1000), and the topics come back (in-out). The
// chunks are those of a plan made with the pipeline's own costs and a per-worker device budget.
//
// Measured in the same run, on the same buffers:
//  - the plain copies: cudaMemcpyAsync of the same bytes host to device (ids + topics), device to host
//    (topics), and both directions at once on two streams (what an overlapped pipeline can reach);
//  - the streaming pipeline with 1, 2 and 4 workers: end-to-end time of sk_csr_pipeline_run() (wall
//    clock; the call returns when everything has finished) and the host-to-device rate it reaches
//    (bytes it copied in / end-to-end time), as a fraction of the plain host-to-device copy;
//  - the resident case (the whole corpus in one chunk, when the device has room): the first run
//    (upload + kernel), later runs (kernel only: they copy nothing) and the download.
// The targets of issue 4 (4 workers at least 1.5x faster than 1; H2D rate at least 80% of the plain
// copy) are evaluated on the measured numbers, next to a simple bound computed from the plain copies:
// one worker cannot overlap its copies in and out, W >= 2 can at best reach the concurrent copy time.
//
// The topics are checked after the runs (a sample of every 1009th token against the expected value
// after the number of runs applied); a wrong topic exits 1.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "samplekit/samplekit.h"

#define BENCH_NAME "bench_csr_pipeline"
#include "bench_common.h"

// ---------------------------------------------------------------------------------------------------
// Parameters.

#define BENCH_DEFAULT_TOKENS 1000000000ll
#define BENCH_MIN_TOKENS 1000000ll
#define BENCH_MAX_TOKENS 100000000000ll
#define BENCH_DEFAULT_CHUNK_MIB 512  // device budget of one worker
#define BENCH_DEFAULT_RUNS 5         // timed runs per figure (after one warm-up run); the median
#define BENCH_MAX_RUNS 101
#define BENCH_NUM_COLS 100000
#define BENCH_TOPICS 1000u
#define BENCH_MEAN_DOC 256  // document lengths uniform in [1, 2 * mean - 1]
#define BENCH_PIECE_BYTES ((size_t)1 << 30)  // the plain copies move the data in pieces of 1 GiB
#define BENCH_THREADS 256
#define BENCH_SEED 0x5eedc5a91e11ull
#define BENCH_CHECK_STRIDE 1009
#define BENCH_TARGET_SPEEDUP 1.5
#define BENCH_TARGET_H2D_FRACTION 0.8

static const int kWorkers[] = {1, 2, 4};
enum { kNumWorkerCounts = sizeof kWorkers / sizeof kWorkers[0] };

// ---------------------------------------------------------------------------------------------------
// Data: ids and initial topics are pure functions of the token index, so any token can be checked.

static __host__ __device__ inline int32_t bench_id(uint64_t i) {
  return (int32_t)(sk_mix_u32((uint32_t)i ^ sk_mix_u32((uint32_t)(i >> 32) ^ (uint32_t)BENCH_SEED)) %
                   (uint32_t)BENCH_NUM_COLS);
}
static __host__ __device__ inline uint16_t bench_topic0(uint64_t i) {
  return (uint16_t)(sk_mix_u32((uint32_t)i * 0x9E3779B1u ^ (uint32_t)(i >> 32) ^ 0x2545F491u) % BENCH_TOPICS);
}

__global__ void bench_gen(int32_t *ids, uint16_t *topics, size_t n, uint64_t first) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    ids[i] = bench_id(first + i);
    topics[i] = bench_topic0(first + i);
  }
}

// The light kernel: one read of the id, one read-modify-write of the topic per token.
__global__ void bench_light_kernel(const int32_t *ids, uint16_t *topics, int64_t n) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    topics[i] = (uint16_t)((topics[i] + (uint32_t)ids[i]) % BENCH_TOPICS);
}

typedef struct bench_step_ctx {
  int max_blocks;
} bench_step_ctx;

static sk_status bench_step(const sk_csr_chunk_view *chunk, sk_stream stream, void *user) {
  const bench_step_ctx *ctx = (const bench_step_ctx *)user;
  const int64_t n = chunk->info.num_tokens;
  if (n == 0) return SK_SUCCESS;
  const int64_t blocks = std::min<int64_t>((n + BENCH_THREADS - 1) / BENCH_THREADS, ctx->max_blocks);
  bench_light_kernel<<<(unsigned)blocks, BENCH_THREADS, 0, (cudaStream_t)stream>>>(chunk->d_tokens,
                                                                                  (uint16_t *)chunk->d_arrays[0], n);
  return sk_status_from_cuda_error((int)cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------------
// Command line.

typedef struct bench_options {
  long long tokens;
  int chunk_mib;
  int runs;
  int device;
  const char *csv_path;
} bench_options;

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: bench_csr_pipeline [--tokens N] [--chunk-mib M] [--runs R] [--device D] [--csv FILE] [--help]\n"
          "\n"
          "The CSR chunker pipeline on a transfer-heavy job: N tokens of 4-byte ids and 2-byte topics in\n"
          "pinned host memory, a light kernel per chunk, topics copied back; against plain cudaMemcpyAsync\n"
          "of the same bytes, with 1, 2 and 4 workers, and resident when the corpus fits.\n"
          "\n"
          "  --tokens N     tokens (default %lld; 1e9 notation accepted), %lld to %lld. If the 6 N bytes of\n"
          "                 pinned memory cannot be allocated, N is halved (with a message) until they can\n"
          "  --chunk-mib M  device budget of one worker in MiB (default %d): sets the chunk size\n"
          "  --runs R       timed runs per figure, 1 to %d (default %d), after one warm-up run; the median\n"
          "  --device D     CUDA device (default 0)\n"
          "  --csv FILE     also write the results to FILE as CSV\n"
          "  --help         print this and exit\n"
          "\n"
          "Exit status: 0 done, 1 a check or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_DEFAULT_TOKENS, BENCH_MIN_TOKENS, BENCH_MAX_TOKENS, BENCH_DEFAULT_CHUNK_MIB, BENCH_MAX_RUNS,
          BENCH_DEFAULT_RUNS);
}

// A whole number in [min, max], written as an integer or in e-notation (1e9).
static bool bench_parse_count(const char *s, long long min, long long max, long long *out) {
  char *end = NULL;
  const double v = strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= (double)min && v <= (double)max) || v != floor(v)) return false;
  *out = (long long)v;
  return true;
}

static void bench_parse_args(int argc, char **argv, bench_options *opt) {
  opt->tokens = BENCH_DEFAULT_TOKENS;
  opt->chunk_mib = BENCH_DEFAULT_CHUNK_MIB;
  opt->runs = BENCH_DEFAULT_RUNS;
  opt->device = 0;
  opt->csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const bool has_value = i + 1 < argc;
    long long v = 0;
    if (bench_common_option(argc, argv, &i, bench_usage, &opt->csv_path) ||
        bench_device_option(argc, argv, &i, &opt->device, bench_usage))
      continue;
    if (strcmp(a, "--tokens") == 0 && has_value) {
      if (!bench_parse_count(argv[++i], BENCH_MIN_TOKENS, BENCH_MAX_TOKENS, &v))
        bench_bad_value(a, argv[i], bench_usage);
      opt->tokens = v;
    } else if (strcmp(a, "--chunk-mib") == 0 && has_value) {
      if (!bench_parse_count(argv[++i], 1, 1 << 20, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->chunk_mib = (int)v;
    } else if (strcmp(a, "--runs") == 0 && has_value) {
      if (!bench_parse_count(argv[++i], 1, BENCH_MAX_RUNS, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->runs = (int)v;
    } else {
      bench_unknown_option(a, bench_usage);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Results.

typedef struct bench_result {
  const char *name;
  int workers;       // 0 for the plain copies
  int64_t chunks;    // 0 for the plain copies
  bench_stats t;
  double h2d_bytes;  // bytes copied host to device per run
  double d2h_bytes;  // bytes copied device to host per run
} bench_result;

typedef struct bench_context {
  bench_options opt;
  cudaDeviceProp prop;
  int sm_count;
  long long tokens;  // after any fallback
  int64_t num_rows;
  std::vector<int64_t> offsets;
  int32_t *h_ids;
  uint16_t *h_topics;
  int runs_applied;  // pipeline runs applied to h_topics so far (streaming runs, and resident downloads)
  std::vector<bench_result> results;
  double copy_h2d_gbps, copy_d2h_gbps;
  bool failed;
} bench_context;

static void bench_print_result(const bench_context *ctx, const bench_result *r) {
  const double h2d_gbps = r->h2d_bytes / (r->t.median_ms * 1e6);
  char workers[16] = "-", chunks[24] = "-", frac[16] = "-";
  if (r->workers > 0) snprintf(workers, sizeof workers, "%d", r->workers);
  if (r->chunks > 0) snprintf(chunks, sizeof chunks, "%lld", (long long)r->chunks);
  if (r->h2d_bytes > 0) snprintf(frac, sizeof frac, "%.1f%%", 100.0 * h2d_gbps / ctx->copy_h2d_gbps);
  printf("%-26s %7s %6s %11.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8s\n", r->name, workers, chunks, r->t.median_ms,
         r->t.min_ms, r->t.max_ms, r->h2d_bytes / 1e9, r->h2d_bytes > 0 ? h2d_gbps : 0.0,
         r->d2h_bytes > 0 ? r->d2h_bytes / (r->t.median_ms * 1e6) : 0.0, frac);
}

static void bench_add(bench_context *ctx, const char *name, int workers, int64_t chunks, bench_stats t, double h2d,
                      double d2h) {
  bench_result r = {name, workers, chunks, t, h2d, d2h};
  ctx->results.push_back(r);
  bench_print_result(ctx, &r);
}

// ---------------------------------------------------------------------------------------------------
// Setup: pinned memory (halving the tokens until it can be had), the data, the rows.

static bool bench_alloc_pinned(bench_context *ctx) {
  for (long long t = ctx->opt.tokens; t >= BENCH_MIN_TOKENS; t /= 2) {
    void *ids = NULL, *topics = NULL;
    cudaError_t e1 = cudaHostAlloc(&ids, (size_t)t * 4, cudaHostAllocDefault);
    cudaError_t e2 = e1 == cudaSuccess ? cudaHostAlloc(&topics, (size_t)t * 2, cudaHostAllocDefault) : e1;
    if (e1 == cudaSuccess && e2 == cudaSuccess) {
      ctx->tokens = t;
      ctx->h_ids = (int32_t *)ids;
      ctx->h_topics = (uint16_t *)topics;
      return true;
    }
    if (ids != NULL) BENCH_CUDA(cudaFreeHost(ids));
    (void)cudaGetLastError();  // an allocation failure is not sticky
    fprintf(stderr,
            BENCH_NAME ": could not allocate %.2f GB of pinned host memory for %lld tokens (%s); trying %lld tokens\n",
            6.0 * (double)t / 1e9, t, cudaGetErrorString(e1 != cudaSuccess ? e1 : e2), t / 2);
  }
  fprintf(stderr, BENCH_NAME ": could not allocate pinned memory even for %lld tokens\n", BENCH_MIN_TOKENS);
  return false;
}

static void bench_make_data(bench_context *ctx) {
  const size_t slice = (size_t)1 << 27;  // tokens per generation slice
  const size_t n = (size_t)ctx->tokens;
  int32_t *d_ids;
  uint16_t *d_topics;
  BENCH_CUDA(cudaMalloc(&d_ids, slice * 4));
  BENCH_CUDA(cudaMalloc(&d_topics, slice * 2));
  for (size_t first = 0; first < n; first += slice) {
    const size_t m = std::min(slice, n - first);
    bench_gen<<<1024, BENCH_THREADS>>>(d_ids, d_topics, m, first);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaMemcpy(ctx->h_ids + first, d_ids, m * 4, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(ctx->h_topics + first, d_topics, m * 2, cudaMemcpyDeviceToHost));
  }
  BENCH_CUDA(cudaFree(d_ids));
  BENCH_CUDA(cudaFree(d_topics));
  // Document lengths uniform in [1, 2 mean - 1]; the last document takes the rest.
  ctx->offsets.clear();
  ctx->offsets.push_back(0);
  uint64_t state = BENCH_SEED;
  while (ctx->offsets.back() < (int64_t)n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t len = 1 + (int64_t)((state >> 33) % (2 * BENCH_MEAN_DOC - 1));
    ctx->offsets.push_back(std::min<int64_t>(ctx->offsets.back() + len, (int64_t)n));
  }
  ctx->num_rows = (int64_t)ctx->offsets.size() - 1;
  ctx->runs_applied = 0;
}

// Every BENCH_CHECK_STRIDE-th topic against its value after `runs` runs of the light kernel.
static void bench_check_topics(bench_context *ctx, int runs, const char *after) {
  long long bad = 0, first_bad = -1;
  for (long long i = 0; i < ctx->tokens; i += BENCH_CHECK_STRIDE) {
    uint32_t z = bench_topic0((uint64_t)i);
    for (int r = 0; r < runs; ++r) z = (z + (uint32_t)bench_id((uint64_t)i)) % BENCH_TOPICS;
    if (ctx->h_topics[i] != z) {
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
  }
  if (bad > 0) {
    fprintf(stderr, BENCH_NAME ": CHECK FAILED after %s: %lld sampled topics wrong (first: token %lld)\n", after, bad,
            first_bad);
    ctx->failed = true;
  }
}

// ---------------------------------------------------------------------------------------------------
// The plain copies: the same bytes, cudaMemcpyAsync in 1 GiB pieces, CUDA events.

static void bench_plain_copies(bench_context *ctx) {
  const size_t id_bytes = (size_t)ctx->tokens * 4, topic_bytes = (size_t)ctx->tokens * 2;
  const size_t piece = std::min(BENCH_PIECE_BYTES, id_bytes);
  void *d_in, *d_out;  // one piece each: what the copies read and write on the device
  cudaStream_t s_in, s_out;
  cudaEvent_t start_in, stop_in, start_out, stop_out;
  BENCH_CUDA(cudaMalloc(&d_in, piece));
  BENCH_CUDA(cudaMalloc(&d_out, piece));
  BENCH_CUDA(cudaStreamCreateWithFlags(&s_in, cudaStreamNonBlocking));
  BENCH_CUDA(cudaStreamCreateWithFlags(&s_out, cudaStreamNonBlocking));
  BENCH_CUDA(cudaEventCreate(&start_in));
  BENCH_CUDA(cudaEventCreate(&stop_in));
  BENCH_CUDA(cudaEventCreate(&start_out));
  BENCH_CUDA(cudaEventCreate(&stop_out));
  auto enqueue_in = [&]() {
    const unsigned char *srcs[2] = {(const unsigned char *)ctx->h_ids, (const unsigned char *)ctx->h_topics};
    const size_t sizes[2] = {id_bytes, topic_bytes};
    for (int a = 0; a < 2; ++a)
      for (size_t off = 0; off < sizes[a]; off += piece)
        BENCH_CUDA(cudaMemcpyAsync(d_in, srcs[a] + off, std::min(piece, sizes[a] - off), cudaMemcpyHostToDevice, s_in));
  };
  std::vector<double> in_ms, out_ms, both_ms;
  for (int r = -1; r < ctx->opt.runs; ++r) {
    float ms = 0.0f;
    BENCH_CUDA(cudaEventRecord(start_in, s_in));
    enqueue_in();
    BENCH_CUDA(cudaEventRecord(stop_in, s_in));
    BENCH_CUDA(cudaEventSynchronize(stop_in));
    BENCH_CUDA(cudaEventElapsedTime(&ms, start_in, stop_in));
    if (r >= 0) in_ms.push_back(ms);
  }
  // Device to host: the topics' bytes from a device piece into a pinned piece (the host topics stay intact).
  void *h_scratch;
  BENCH_CUDA(cudaHostAlloc(&h_scratch, piece, cudaHostAllocDefault));
  auto enqueue_out_scratch = [&]() {
    for (size_t off = 0; off < topic_bytes; off += piece)
      BENCH_CUDA(cudaMemcpyAsync(h_scratch, d_out, std::min(piece, topic_bytes - off), cudaMemcpyDeviceToHost, s_out));
  };
  for (int r = -1; r < ctx->opt.runs; ++r) {
    float ms = 0.0f;
    BENCH_CUDA(cudaEventRecord(start_out, s_out));
    enqueue_out_scratch();
    BENCH_CUDA(cudaEventRecord(stop_out, s_out));
    BENCH_CUDA(cudaEventSynchronize(stop_out));
    BENCH_CUDA(cudaEventElapsedTime(&ms, start_out, stop_out));
    if (r >= 0) out_ms.push_back(ms);
  }
  // Both directions at once, on two streams; wall clock from the first enqueue to both finished.
  for (int r = -1; r < ctx->opt.runs; ++r) {
    BENCH_CUDA(cudaDeviceSynchronize());
    const double t0 = bench_now_ms();
    enqueue_in();
    enqueue_out_scratch();
    BENCH_CUDA(cudaStreamSynchronize(s_in));
    BENCH_CUDA(cudaStreamSynchronize(s_out));
    if (r >= 0) both_ms.push_back(bench_now_ms() - t0);
  }
  const bench_stats in = bench_stats_of(in_ms.data(), in_ms.size()), out = bench_stats_of(out_ms.data(), out_ms.size()),
                    both = bench_stats_of(both_ms.data(), both_ms.size());
  ctx->copy_h2d_gbps = (double)(id_bytes + topic_bytes) / (in.median_ms * 1e6);
  ctx->copy_d2h_gbps = (double)topic_bytes / (out.median_ms * 1e6);
  bench_add(ctx, "plain copy H2D", 0, 0, in, (double)(id_bytes + topic_bytes), 0.0);
  bench_add(ctx, "plain copy D2H", 0, 0, out, 0.0, (double)topic_bytes);
  bench_add(ctx, "plain copy H2D+D2H at once", 0, 0, both, (double)(id_bytes + topic_bytes), (double)topic_bytes);
  BENCH_CUDA(cudaFreeHost(h_scratch));
  BENCH_CUDA(cudaEventDestroy(start_in));
  BENCH_CUDA(cudaEventDestroy(stop_in));
  BENCH_CUDA(cudaEventDestroy(start_out));
  BENCH_CUDA(cudaEventDestroy(stop_out));
  BENCH_CUDA(cudaStreamDestroy(s_in));
  BENCH_CUDA(cudaStreamDestroy(s_out));
  BENCH_CUDA(cudaFree(d_in));
  BENCH_CUDA(cudaFree(d_out));
}

// ---------------------------------------------------------------------------------------------------
// The pipeline.

static sk_csr_pipeline_array bench_array(bench_context *ctx) {
  sk_csr_pipeline_array a = {ctx->h_topics, sizeof(uint16_t), SK_CSR_PIPELINE_PER_TOKEN, SK_CSR_PIPELINE_IN_OUT,
                             NULL};
  return a;
}

static sk_csr_chunk_plan *bench_plan(bench_context *ctx, size_t budget, int64_t *num_chunks) {
  const sk_csr_pipeline_array arr = bench_array(ctx);
  size_t bpt, bpr, fixed;
  int64_t bad_row = -1;
  size_t bad_bytes = 0;
  sk_csr_chunk_plan *plan = NULL;
  BENCH_SK(sk_csr_pipeline_chunk_costs(&arr, 1, BENCH_NUM_COLS, SK_CSR_PIPELINE_ORDER_NONE, 0, &bpt, &bpr, &fixed));
  const sk_status st = sk_csr_chunk_plan_create(ctx->offsets.data(), ctx->num_rows, bpt, bpr, fixed, budget, &plan,
                                                &bad_row, &bad_bytes);
  if (st != SK_SUCCESS) {
    fprintf(stderr, BENCH_NAME ": no plan for a budget of %zu bytes (%s; row %lld needs %zu)\n", budget,
            sk_status_name(st), (long long)bad_row, bad_bytes);
    exit(BENCH_EXIT_FAILED);
  }
  BENCH_SK(sk_csr_chunk_plan_num_chunks(plan, num_chunks));
  return plan;
}

static double bench_run_ms(sk_csr_pipeline *p, bench_step_ctx *step) {
  const double t0 = bench_now_ms();
  BENCH_SK(sk_csr_pipeline_run(p, bench_step, step, NULL));
  return bench_now_ms() - t0;
}

static void bench_streaming(bench_context *ctx, double *ms_by_workers, double *h2d_by_workers) {
  bench_step_ctx step = {4 * ctx->sm_count};
  int64_t num_chunks = 0;
  sk_csr_chunk_plan *plan = bench_plan(ctx, (size_t)ctx->opt.chunk_mib << 20, &num_chunks);
  for (int k = 0; k < kNumWorkerCounts; ++k) {
    const sk_csr_pipeline_array arr = bench_array(ctx);
    sk_csr_pipeline *p = NULL;
    sk_csr_pipeline_info info;
    BENCH_SK(sk_csr_pipeline_create(plan, ctx->offsets.data(), ctx->h_ids, BENCH_NUM_COLS, &arr, 1, kWorkers[k],
                                    SK_CSR_PIPELINE_ORDER_NONE, 0, (size_t)ctx->opt.chunk_mib << 20, &p));
    BENCH_SK(sk_csr_pipeline_get_info(p, &info));
    if (info.resident) {
      printf("(the corpus fits one worker's budget: the streaming rows below are resident runs; lower --chunk-mib)\n");
    }
    std::vector<double> ms;
    for (int r = -1; r < ctx->opt.runs; ++r) {
      const double t = bench_run_ms(p, &step);
      if (r >= 0) ms.push_back(t);
      if (!info.resident) ++ctx->runs_applied;
    }
    BENCH_SK(sk_csr_pipeline_get_info(p, &info));
    static const char *const names[] = {"pipeline, 1 worker", "pipeline, 2 workers", "pipeline, 4 workers"};
    const bench_stats s = bench_stats_of(ms.data(), ms.size());
    bench_add(ctx, names[k], info.num_workers, num_chunks, s, (double)info.last_h2d_bytes,
              (double)info.last_d2h_bytes);
    ms_by_workers[k] = s.median_ms;
    h2d_by_workers[k] = (double)info.last_h2d_bytes;
    sk_csr_pipeline_destroy(p);
  }
  sk_csr_chunk_plan_destroy(plan);
  bench_check_topics(ctx, ctx->runs_applied, "the streaming runs");
}

static void bench_resident(bench_context *ctx) {
  size_t free_bytes = 0, total_bytes = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t need = (size_t)ctx->tokens * 6 + (size_t)ctx->num_rows * 4 + ((size_t)64 << 20);
  if (ctx->tokens > (long long)SK_CSR_CHUNK_MAX_TOKENS || need > free_bytes) {
    printf("%-26s skipped: %.2f GB needed, %.2f GB free, %lld tokens (at most %d in one chunk)\n", "resident",
           need / 1e9, free_bytes / 1e9, ctx->tokens, (int)SK_CSR_CHUNK_MAX_TOKENS);
    return;
  }
  bench_step_ctx step = {4 * ctx->sm_count};
  int64_t num_chunks = 0;
  sk_csr_chunk_plan *plan = bench_plan(ctx, free_bytes, &num_chunks);
  if (num_chunks != 1) {
    printf("%-26s skipped: the plan under %.2f GB free has %lld chunks\n", "resident", free_bytes / 1e9,
           (long long)num_chunks);
    sk_csr_chunk_plan_destroy(plan);
    return;
  }
  const sk_csr_pipeline_array arr = bench_array(ctx);
  sk_csr_pipeline *p = NULL;
  sk_csr_pipeline_info info;
  BENCH_SK(sk_csr_pipeline_create(plan, ctx->offsets.data(), ctx->h_ids, BENCH_NUM_COLS, &arr, 1, 1,
                                  SK_CSR_PIPELINE_ORDER_NONE, 0, SIZE_MAX, &p));
  // The first run uploads; it is timed once (a second pipeline would be needed to repeat it).
  std::vector<double> first(1, bench_run_ms(p, &step)), later, download;
  BENCH_SK(sk_csr_pipeline_get_info(p, &info));
  const double first_h2d = (double)info.last_h2d_bytes;
  int device_runs = 1;
  for (int r = -1; r < ctx->opt.runs; ++r) {
    const double t = bench_run_ms(p, &step);
    ++device_runs;
    if (r >= 0) later.push_back(t);
  }
  BENCH_SK(sk_csr_pipeline_get_info(p, &info));
  if (info.last_h2d_bytes != 0 || info.last_d2h_bytes != 0) {
    fprintf(stderr, BENCH_NAME ": CHECK FAILED: a resident run after the first copied %llu + %llu bytes\n",
            (unsigned long long)info.last_h2d_bytes, (unsigned long long)info.last_d2h_bytes);
    ctx->failed = true;
  }
  for (int r = 0; r < ctx->opt.runs; ++r) {
    const double t0 = bench_now_ms();
    BENCH_SK(sk_csr_pipeline_download(p));
    download.push_back(bench_now_ms() - t0);
  }
  BENCH_SK(sk_csr_pipeline_get_info(p, &info));
  const double down_bytes = (double)info.last_d2h_bytes;
  bench_add(ctx, "resident, first run", 1, 1, bench_stats_of(first.data(), first.size()), first_h2d, 0.0);
  bench_add(ctx, "resident, later runs", 1, 1, bench_stats_of(later.data(), later.size()), 0.0, 0.0);
  bench_add(ctx, "resident, download", 1, 1, bench_stats_of(download.data(), download.size()), 0.0, down_bytes);
  sk_csr_pipeline_destroy(p);
  sk_csr_chunk_plan_destroy(plan);
  ctx->runs_applied += device_runs;
  bench_check_topics(ctx, ctx->runs_applied, "the resident runs and download");
}

static bool bench_write_csv(const bench_context *ctx) {
  FILE *f = bench_open_csv(ctx->opt.csv_path);
  if (f == NULL) return false;
  fprintf(f, "gpu,tokens,rows,chunk_mib,runs,case,workers,chunks,median_ms,min_ms,max_ms,h2d_bytes,h2d_gb_per_s,"
             "d2h_bytes,d2h_gb_per_s,copy_h2d_gb_per_s,fraction_of_copy_h2d\n");
  for (size_t i = 0; i < ctx->results.size(); ++i) {
    const bench_result *r = &ctx->results[i];
    const double h2d = r->h2d_bytes / (r->t.median_ms * 1e6), d2h = r->d2h_bytes / (r->t.median_ms * 1e6);
    fprintf(f, "\"%s\",%lld,%lld,%d,%d,\"%s\",%d,%lld,%.4f,%.4f,%.4f,%.0f,%.4f,%.0f,%.4f,%.4f,%.4f\n", ctx->prop.name,
            ctx->tokens, (long long)ctx->num_rows, ctx->opt.chunk_mib, ctx->opt.runs, r->name, r->workers,
            (long long)r->chunks, r->t.median_ms, r->t.min_ms, r->t.max_ms, r->h2d_bytes, h2d, r->d2h_bytes, d2h,
            ctx->copy_h2d_gbps, ctx->copy_h2d_gbps > 0 ? h2d / ctx->copy_h2d_gbps : 0.0);
  }
  return bench_close_csv(f, ctx->opt.csv_path);
}

int main(int argc, char **argv) {
  static bench_context ctx;
  bench_parse_args(argc, argv, &ctx.opt);
  bench_select_device(ctx.opt.device);
  BENCH_CUDA(cudaGetDeviceProperties(&ctx.prop, ctx.opt.device));
  BENCH_CUDA(cudaDeviceGetAttribute(&ctx.sm_count, cudaDevAttrMultiProcessorCount, ctx.opt.device));

  printf(BENCH_NAME ": CSR chunker pipeline (samplekit %d.%d.%d) on a transfer-heavy job (nvcc %d.%d)\n",
         SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(ctx.opt.device);

  if (!bench_alloc_pinned(&ctx)) return BENCH_EXIT_FAILED;
  if (ctx.tokens != ctx.opt.tokens)
    printf("NOTE: pinned memory for %lld tokens could not be allocated; running with %lld tokens instead\n",
           ctx.opt.tokens, ctx.tokens);
  bench_make_data(&ctx);
  printf("job: %lld tokens (%.2f GB of ids + %.2f GB of topics, pinned), %lld documents (lengths 1 to %d), topics\n"
         "     in-out, kernel topics[i] = (topics[i] + ids[i]) mod %u; chunks of one worker's budget, %d MiB\n",
         ctx.tokens, 4.0 * ctx.tokens / 1e9, 2.0 * ctx.tokens / 1e9, (long long)ctx.num_rows, 2 * BENCH_MEAN_DOC - 1,
         BENCH_TOPICS, ctx.opt.chunk_mib);
  printf("method: one warm-up run, then the median of %d runs; plain copies: CUDA events (concurrent copies:\n"
         "        wall clock), 1 GiB pieces; pipeline: wall clock around sk_csr_pipeline_run() (synchronous);\n"
         "        H2D GB/s = bytes copied in / median time (the pipeline's include the rebased row offsets)\n\n",
         ctx.opt.runs);
  printf("%-26s %7s %6s %11s %9s %9s %9s %9s %9s %8s\n", "case", "workers", "chunks", "median ms", "min ms", "max ms",
         "H2D GB", "H2D GB/s", "D2H GB/s", "% copy");

  bench_plain_copies(&ctx);
  const double t_in = ctx.results[0].t.median_ms, t_out = ctx.results[1].t.median_ms,
               t_both = ctx.results[2].t.median_ms;
  double ms[kNumWorkerCounts], h2d[kNumWorkerCounts];
  bench_streaming(&ctx, ms, h2d);
  bench_resident(&ctx);

  const double speedup = ms[0] / ms[kNumWorkerCounts - 1];
  const double h2d_rate = h2d[kNumWorkerCounts - 1] / (ms[kNumWorkerCounts - 1] * 1e6);
  printf("\nbounds from the plain copies: 1 worker (copies in, then out) >= %.2f ms; overlapped >= %.2f ms\n"
         "  (both directions at once), so 4 vs 1 workers can gain at most about %.2fx on this job\n",
         t_in + t_out, t_both, (t_in + t_out) / t_both);
  printf("target: 4 workers %.2fx faster than 1 (target >= %.1fx): %s\n", speedup, BENCH_TARGET_SPEEDUP,
         speedup >= BENCH_TARGET_SPEEDUP ? "met" : "NOT met");
  printf("target: H2D rate with 4 workers %.2f GB/s = %.1f%% of the plain copy's %.2f GB/s (target >= %.0f%%): %s\n",
         h2d_rate, 100.0 * h2d_rate / ctx.copy_h2d_gbps, ctx.copy_h2d_gbps, 100.0 * BENCH_TARGET_H2D_FRACTION,
         h2d_rate >= BENCH_TARGET_H2D_FRACTION * ctx.copy_h2d_gbps ? "met" : "NOT met");

  BENCH_CUDA(cudaFreeHost(ctx.h_ids));
  BENCH_CUDA(cudaFreeHost(ctx.h_topics));
  if (ctx.opt.csv_path != NULL && !bench_write_csv(&ctx)) return BENCH_EXIT_FAILED;
  if (ctx.failed) {
    printf("\n" BENCH_NAME ": some checks FAILED (see above); the timings are not valid\n");
    return BENCH_EXIT_FAILED;
  }
  return 0;
}
