// bench_csr_chunk_order: issue 4. The PDOW order of one chunk (csr_chunker.h) built on the host,
// sk_csr_chunk_order_host (one CPU thread, wall clock), against the device, sk_csr_chunk_order_device
// (CUDA events), with the transfers that each choice implies, so that the choice can be made per
// chunk size:
//  - tokens H2D (4 B/token): both need the chunk's tokens on the device (the sampler reads them);
//  - order H2D (perm and inverse, 8 B/token, plus the word offsets, 8 (V + 1) B): what a host-built
//    order adds to get its result to the device;
//  - order D2H (the same bytes): what a device-built order adds when the host needs the order too.
// All host buffers are pinned (as a streaming pipeline's staging buffers are). The device order is
// checked against the host order, bit for bit, before anything is timed; a mismatch exits 1.
//
// Then the order's groups and items (issue 30: ESCA's work units), with the chunk cut into rows
// (documents) of 1 to 2 --row-tokens - 1 tokens: on the host, sk_csr_chunk_order_rows_host,
// sk_csr_chunk_groups_count_host and sk_csr_chunk_groups_host (one thread, wall clock: what sk-lda's
// plan does for a chunk, the order included), against sk_csr_chunk_groups_device after the device
// order (CUDA events, the groups alone; the order's own row is above); the device's groups and items
// are checked against the host's, bit for bit, before they are timed.
//
// Words are Zipf-shaped (rank r with probability proportional to 1 / (r + 1)^s, ranks mapped to word
// ids by a fixed random permutation), generated on the GPU from a counter-based hash.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "samplekit/samplekit.h"

#define BENCH_NAME "bench_csr_chunk_order"
#include "bench_common.h"

// ---------------------------------------------------------------------------------------------------
// Parameters.

#define BENCH_DEFAULT_RUNS 21  // timed device runs per figure; the median is reported
#define BENCH_MIN_RUNS 5
#define BENCH_MAX_RUNS 1001
#define BENCH_DEFAULT_HOST_RUNS 5  // timed host runs (after one untimed warm-up run); the median
#define BENCH_MAX_HOST_RUNS 101
#define BENCH_WARMUP_RUNS 3
#define BENCH_COPY_BYTES ((size_t)1 << 30)  // 1 GiB copied device to device: the copy ceiling
#define BENCH_THREADS 256
#define BENCH_SEED 0x5eed0c5a0004ull
#define BENCH_DEFAULT_ZIPF 1.07
#define BENCH_MAX_LIST 8
#define BENCH_DEFAULT_ROW_TOKENS 200
#define BENCH_DEFAULT_ITEM_TOKENS 512

// ---------------------------------------------------------------------------------------------------
// Token generation on the device: a uniform double from two hashes of (seed, i), then the inverse
// CDF by binary search.

__global__ void bench_gen_zipf(int32_t *tokens, size_t n, const double *cdf, const int32_t *word_of_rank,
                               int32_t num_cols, uint64_t seed) {
  const size_t i = (size_t)blockIdx.x * BENCH_THREADS + threadIdx.x;
  if (i >= n) return;
  const uint32_t a = sk_mix_u32((uint32_t)i ^ (uint32_t)seed ^ sk_mix_u32((uint32_t)(i >> 32) + 0x9e3779b9u));
  const uint32_t b = sk_mix_u32(a ^ (uint32_t)(seed >> 32) ^ 0x85ebca6bu);
  const double u = ((double)(((uint64_t)a << 21) ^ (uint64_t)(b >> 11)) * 0x1p-53) * cdf[num_cols - 1];
  int32_t lo = 0, hi = num_cols - 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (cdf[mid] <= u)
      lo = mid + 1;
    else
      hi = mid;
  }
  tokens[i] = word_of_rank[lo];
}

// ---------------------------------------------------------------------------------------------------
// Command line.

typedef struct bench_options {
  int num_sizes, num_cols;
  long long sizes[BENCH_MAX_LIST];
  int cols[BENCH_MAX_LIST];
  double zipf;
  int runs, host_runs, device;
  int row_tokens, item_tokens;
  const char *csv_path;
} bench_options;

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: bench_csr_chunk_order [--tokens N1,N2,...] [--cols V1,V2,...] [--zipf S] [--runs R]\n"
          "                             [--host-runs H] [--row-tokens L] [--item-tokens I] [--device D]\n"
          "                             [--csv FILE] [--help]\n"
          "\n"
          "The PDOW order of one chunk: sk_csr_chunk_order_host (one CPU thread) against\n"
          "sk_csr_chunk_order_device, with the host<->device transfers each one implies; then the\n"
          "order's groups and items: sk_csr_chunk_order_rows_host + sk_csr_chunk_groups_count_host +\n"
          "sk_csr_chunk_groups_host against sk_csr_chunk_groups_device (after the device order).\n"
          "\n"
          "  --tokens LIST  tokens per chunk, comma-separated, 1 to 2^31 - 1 (default 1000000,10000000,100000000)\n"
          "  --cols LIST    vocabulary sizes V, comma-separated, 1 to 2^24 (default 100000,140000)\n"
          "  --zipf S       Zipf exponent of the word frequencies, 0 (uniform) to 3 (default %.2f)\n"
          "  --runs R       timed device runs (order and copies), %d to %d (default %d); the median\n"
          "  --host-runs H  timed host runs after one warm-up run, 1 to %d (default %d); the median\n"
          "  --row-tokens L mean tokens of a row (document): rows of 1 to 2 L - 1, 1 to 10^6 (default %d)\n"
          "  --item-tokens I  the groups' item_tokens, 1 to 2^31 - 1 (default %d)\n"
          "  --device D     CUDA device (default 0)\n"
          "  --csv FILE     also write the results to FILE as CSV\n"
          "  --help         print this and exit\n"
          "\n"
          "Exit status: 0 done, 1 a check or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_DEFAULT_ZIPF, BENCH_MIN_RUNS, BENCH_MAX_RUNS, BENCH_DEFAULT_RUNS, BENCH_MAX_HOST_RUNS,
          BENCH_DEFAULT_HOST_RUNS, BENCH_DEFAULT_ROW_TOKENS, BENCH_DEFAULT_ITEM_TOKENS);
}

static void bench_parse_args(int argc, char **argv, bench_options *opt) {
  opt->num_sizes = 3;
  opt->sizes[0] = 1000000, opt->sizes[1] = 10000000, opt->sizes[2] = 100000000;
  opt->num_cols = 2;
  opt->cols[0] = 100000, opt->cols[1] = 140000;
  opt->zipf = BENCH_DEFAULT_ZIPF;
  opt->runs = BENCH_DEFAULT_RUNS;
  opt->host_runs = BENCH_DEFAULT_HOST_RUNS;
  opt->row_tokens = BENCH_DEFAULT_ROW_TOKENS;
  opt->item_tokens = BENCH_DEFAULT_ITEM_TOKENS;
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
      opt->num_sizes =
          bench_parse_list(a, argv[++i], 1, SK_CSR_CHUNK_MAX_TOKENS, opt->sizes, BENCH_MAX_LIST, bench_usage);
    } else if (strcmp(a, "--cols") == 0 && has_value) {
      long long cols[BENCH_MAX_LIST];
      opt->num_cols = bench_parse_list(a, argv[++i], 1, 1 << 24, cols, BENCH_MAX_LIST, bench_usage);
      for (int c = 0; c < opt->num_cols; ++c) opt->cols[c] = (int)cols[c];
    } else if (strcmp(a, "--zipf") == 0 && has_value) {
      char *end = NULL;
      const char *s = argv[++i];
      opt->zipf = strtod(s, &end);
      if (end == s || *end != '\0' || !(opt->zipf >= 0.0 && opt->zipf <= 3.0)) bench_bad_value(a, s, bench_usage);
    } else if (strcmp(a, "--runs") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], BENCH_MIN_RUNS, BENCH_MAX_RUNS, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->runs = (int)v;
    } else if (strcmp(a, "--host-runs") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], 1, BENCH_MAX_HOST_RUNS, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->host_runs = (int)v;
    } else if (strcmp(a, "--row-tokens") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], 1, 1000000, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->row_tokens = (int)v;
    } else if (strcmp(a, "--item-tokens") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], 1, INT32_MAX, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->item_tokens = (int)v;
    } else {
      bench_unknown_option(a, bench_usage);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// One (tokens, V) case.

typedef struct bench_result {
  long long tokens;
  int cols;
  int passes;                // radix passes of the model: ceil(bits(V - 1) / 8)
  int token_copies;          // inputs the device runs rotate through
  size_t workspace_bytes;
  bench_stats host, device, h2d_tokens, h2d_order, d2h_order;
  long long rows, groups, items;  // the groups and items of the chunk cut into rows
  size_t groups_workspace_bytes;
  bench_stats host_groups, device_groups;
} bench_result;

typedef struct bench_context {
  bench_options opt;
  cudaDeviceProp prop;
  double copy_gbps;
  std::vector<bench_result> results;
} bench_context;

// The header's cost model of the device order, bytes per token: 12 (keys and positions) + 4 + 16 P
// (the sort) + 8 (the inverse) + 4 when P is even (perm copied out of the workspace).
static double bench_model_bytes_per_token(int passes) { return 24.0 + 16.0 * passes + (passes % 2 == 0 ? 4.0 : 0.0); }

static void bench_fail(const char *what) {
  fprintf(stderr, "%s: CHECK FAILED: %s\n", BENCH_NAME, what);
  exit(BENCH_EXIT_FAILED);
}

// Zipf tokens on the device (`copies` copies, the same tokens in each) and on the host.
static void bench_make_tokens(const bench_options *opt, size_t n, int v, int32_t **d_tokens, int copies,
                              int32_t *h_tokens) {
  std::vector<double> cdf((size_t)v);
  std::vector<int32_t> word((size_t)v);
  double sum = 0.0;
  for (int r = 0; r < v; ++r) {
    sum += opt->zipf == 0.0 ? 1.0 : pow((double)r + 1.0, -opt->zipf);
    cdf[(size_t)r] = sum;
    word[(size_t)r] = r;
  }
  uint64_t state = BENCH_SEED ^ (uint64_t)v;
  for (int r = v - 1; r > 0; --r) {  // Fisher-Yates with splitmix64
    const uint64_t z = bench_splitmix64(&state);
    std::swap(word[(size_t)r], word[(size_t)(z % (uint64_t)(r + 1))]);
  }
  double *d_cdf;
  int32_t *d_word;
  BENCH_CUDA(cudaMalloc(&d_cdf, sizeof(double) * (size_t)v));
  BENCH_CUDA(cudaMalloc(&d_word, sizeof(int32_t) * (size_t)v));
  BENCH_CUDA(cudaMemcpy(d_cdf, cdf.data(), sizeof(double) * (size_t)v, cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d_word, word.data(), sizeof(int32_t) * (size_t)v, cudaMemcpyHostToDevice));
  bench_gen_zipf<<<(unsigned)((n + BENCH_THREADS - 1) / BENCH_THREADS), BENCH_THREADS>>>(d_tokens[0], n, d_cdf, d_word,
                                                                                         v, BENCH_SEED);
  BENCH_CUDA(cudaGetLastError());
  for (int c = 1; c < copies; ++c)
    BENCH_CUDA(cudaMemcpy(d_tokens[c], d_tokens[0], n * sizeof(int32_t), cudaMemcpyDeviceToDevice));
  BENCH_CUDA(cudaMemcpy(h_tokens, d_tokens[0], n * sizeof(int32_t), cudaMemcpyDeviceToHost));
  BENCH_CUDA(cudaFree(d_cdf));
  BENCH_CUDA(cudaFree(d_word));
}

// Row offsets that cut n tokens into rows of 1 to 2 row_tokens - 1 tokens (the last one shorter), from a
// fixed hash: the same rows for the same arguments.
static std::vector<int64_t> bench_make_rows(size_t n, int row_tokens) {
  std::vector<int64_t> off(1, 0);
  uint32_t r = 0;
  while ((size_t)off.back() < n) {
    const int64_t len = 1 + (int64_t)(sk_mix_u32(r++ ^ 0x2d0c5u) % (uint32_t)(2 * row_tokens - 1));
    off.push_back(std::min<int64_t>((int64_t)n, off.back() + len));
  }
  return off;
}

static void bench_one(bench_context *ctx, long long num_tokens, int v) {
  const bench_options *opt = &ctx->opt;
  const size_t n = (size_t)num_tokens;
  const size_t token_bytes = n * sizeof(int32_t), offset_bytes = ((size_t)v + 1) * sizeof(int64_t);
  bench_result r;
  memset(&r, 0, sizeof r);
  r.tokens = num_tokens;
  r.cols = v;
  const int bits = bench_bit_length((uint32_t)(v - 1));  // v >= 1
  r.passes = (bits + 7) / 8;
  BENCH_SK(sk_csr_chunk_order_device_workspace_size(num_tokens, v, &r.workspace_bytes));
  BENCH_SK(sk_csr_chunk_groups_device_workspace_size(num_tokens, &r.groups_workspace_bytes));
  const std::vector<int64_t> row_off = bench_make_rows(n, opt->row_tokens);
  r.rows = (long long)row_off.size() - 1;
  // Inputs rotated through more than twice the L2 (only the tokens: the outputs and the workspace are
  // the same buffers run after run, as in a training loop).
  const size_t l2 = (size_t)ctx->prop.l2CacheSize;
  r.token_copies = token_bytes > 2 * l2 ? 1 : (int)std::min<size_t>(64, 2 * l2 / token_bytes + 2);
  const size_t groups_bytes = 5 * token_bytes + 4 + 16 + row_off.size() * sizeof(int64_t) + r.groups_workspace_bytes;
  const size_t need =
      (size_t)r.token_copies * token_bytes + 2 * token_bytes + offset_bytes + r.workspace_bytes + groups_bytes;
  size_t free_bytes = 0, total_bytes = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  printf("\n%lld tokens, V = %d (%d bits, %d radix passes of 8 bits), Zipf s = %.2f; workspace %.1f MB; device "
         "memory %.2f GB of %.2f GB free; tokens rotated through %d copies\n",
         num_tokens, v, bits, r.passes, opt->zipf, r.workspace_bytes / 1e6, need / 1e9, free_bytes / 1e9,
         r.token_copies);
  if (need > free_bytes) {
    fprintf(stderr, "%s: not enough device memory for %lld tokens (use --tokens)\n", BENCH_NAME, num_tokens);
    exit(BENCH_EXIT_FAILED);
  }

  std::vector<int32_t *> d_tokens((size_t)r.token_copies);
  for (int c = 0; c < r.token_copies; ++c) BENCH_CUDA(cudaMalloc(&d_tokens[(size_t)c], token_bytes));
  int32_t *d_perm, *d_inverse;
  int64_t *d_offsets;
  void *d_workspace = NULL;
  BENCH_CUDA(cudaMalloc(&d_perm, token_bytes));
  BENCH_CUDA(cudaMalloc(&d_inverse, token_bytes));
  BENCH_CUDA(cudaMalloc(&d_offsets, offset_bytes));
  if (r.workspace_bytes > 0) BENCH_CUDA(cudaMalloc(&d_workspace, r.workspace_bytes));
  int32_t *h_tokens, *h_perm, *h_inverse, *h_check;
  int64_t *h_offsets, *h_check_offsets;
  BENCH_CUDA(cudaMallocHost(&h_tokens, token_bytes));
  BENCH_CUDA(cudaMallocHost(&h_perm, token_bytes));
  BENCH_CUDA(cudaMallocHost(&h_inverse, token_bytes));
  BENCH_CUDA(cudaMallocHost(&h_check, token_bytes));
  BENCH_CUDA(cudaMallocHost(&h_offsets, offset_bytes));
  BENCH_CUDA(cudaMallocHost(&h_check_offsets, offset_bytes));
  bench_make_tokens(opt, n, v, d_tokens.data(), r.token_copies, h_tokens);

  // Host order: one untimed warm-up run, then the timed ones.
  std::vector<double> host_ms((size_t)opt->host_runs);
  for (int i = -1; i < opt->host_runs; ++i) {
    const double t0 = bench_now_ms();
    BENCH_SK(sk_csr_chunk_order_host(h_tokens, num_tokens, v, h_perm, h_inverse, h_offsets));
    const double t1 = bench_now_ms();
    if (i >= 0) host_ms[(size_t)i] = t1 - t0;
  }
  r.host = bench_stats_of(host_ms.data(), host_ms.size());

  // The device order, checked against the host order before it is timed.
  auto device_order = [&](int run) {
    BENCH_SK(sk_csr_chunk_order_device(d_tokens[(size_t)run % d_tokens.size()], num_tokens, v, d_perm, d_inverse,
                                       d_offsets, d_workspace, r.workspace_bytes, 0));
  };
  BENCH_CUDA(cudaMemset(d_perm, 0xff, token_bytes));
  BENCH_CUDA(cudaMemset(d_inverse, 0xff, token_bytes));
  BENCH_CUDA(cudaMemset(d_offsets, 0xff, offset_bytes));
  device_order(0);
  BENCH_CUDA(cudaDeviceSynchronize());
  BENCH_CUDA(cudaMemcpy(h_check, d_perm, token_bytes, cudaMemcpyDeviceToHost));
  if (memcmp(h_check, h_perm, token_bytes) != 0) bench_fail("the device's perm differs from the host's");
  BENCH_CUDA(cudaMemcpy(h_check, d_inverse, token_bytes, cudaMemcpyDeviceToHost));
  if (memcmp(h_check, h_inverse, token_bytes) != 0) bench_fail("the device's inverse differs from the host's");
  BENCH_CUDA(cudaMemcpy(h_check_offsets, d_offsets, offset_bytes, cudaMemcpyDeviceToHost));
  if (memcmp(h_check_offsets, h_offsets, offset_bytes) != 0) bench_fail("the device's offsets differ from the host's");
  printf("  check: device order = host order, bit for bit (perm, inverse, word offsets)\n");

  r.device = bench_time_events(BENCH_WARMUP_RUNS, opt->runs, device_order);
  r.h2d_tokens = bench_time_events(BENCH_WARMUP_RUNS, opt->runs, [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(d_tokens[0], h_tokens, token_bytes, cudaMemcpyHostToDevice, 0));
  });
  r.h2d_order = bench_time_events(BENCH_WARMUP_RUNS, opt->runs, [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(d_perm, h_perm, token_bytes, cudaMemcpyHostToDevice, 0));
    BENCH_CUDA(cudaMemcpyAsync(d_inverse, h_inverse, token_bytes, cudaMemcpyHostToDevice, 0));
    BENCH_CUDA(cudaMemcpyAsync(d_offsets, h_offsets, offset_bytes, cudaMemcpyHostToDevice, 0));
  });
  r.d2h_order = bench_time_events(BENCH_WARMUP_RUNS, opt->runs, [&](int) {
    BENCH_CUDA(cudaMemcpyAsync(h_check, d_perm, token_bytes, cudaMemcpyDeviceToHost, 0));
    BENCH_CUDA(cudaMemcpyAsync(h_check, d_inverse, token_bytes, cudaMemcpyDeviceToHost, 0));
    BENCH_CUDA(cudaMemcpyAsync(h_check_offsets, d_offsets, offset_bytes, cudaMemcpyDeviceToHost, 0));
  });

  // Groups and items of the chunk cut into rows: the host's (the order with rows, the count, the build:
  // what sk-lda's plan does for a chunk), then the device's (after the device order), checked first.
  int64_t h_groups = 0, h_items = 0;
  std::vector<int32_t> h_rows_perm(n + 1), h_position_row(n + 1);
  std::vector<int64_t> h_rows_offsets((size_t)v + 1);
  BENCH_SK(sk_csr_chunk_order_rows_host(row_off.data(), r.rows, h_tokens, num_tokens, v, h_rows_perm.data(),
                                        h_position_row.data(), h_rows_offsets.data()));
  BENCH_SK(sk_csr_chunk_groups_count_host(h_position_row.data(), num_tokens, v, h_rows_offsets.data(),
                                          opt->item_tokens, &h_groups, &h_items));
  std::vector<int32_t> hg_start((size_t)h_groups + 1), hg_row((size_t)h_groups + 1), hi_word((size_t)h_items + 1),
      hi_group((size_t)h_items + 1), hi_end((size_t)h_items + 1);
  std::vector<double> groups_ms((size_t)opt->host_runs);
  for (int i = -1; i < opt->host_runs; ++i) {
    int64_t g = 0, it = 0;
    const double t0 = bench_now_ms();
    BENCH_SK(sk_csr_chunk_order_rows_host(row_off.data(), r.rows, h_tokens, num_tokens, v, h_rows_perm.data(),
                                          h_position_row.data(), h_rows_offsets.data()));
    BENCH_SK(sk_csr_chunk_groups_count_host(h_position_row.data(), num_tokens, v, h_rows_offsets.data(),
                                            opt->item_tokens, &g, &it));
    BENCH_SK(sk_csr_chunk_groups_host(h_position_row.data(), num_tokens, v, h_rows_offsets.data(), opt->item_tokens,
                                      hg_start.data(), hg_row.data(), g, hi_word.data(), hi_group.data(), hi_end.data(),
                                      it, &g, &it));
    const double t1 = bench_now_ms();
    if (i >= 0) groups_ms[(size_t)i] = t1 - t0;
  }
  if (memcmp(h_rows_perm.data(), h_perm, token_bytes) != 0) bench_fail("the order with rows differs from the order");
  r.host_groups = bench_stats_of(groups_ms.data(), groups_ms.size());
  r.groups = h_groups;
  r.items = h_items;
  int64_t *d_row_off, *d_counts;
  int32_t *d_group_start, *d_group_row, *d_item_word, *d_item_group, *d_item_end;
  void *d_groups_workspace = NULL;
  BENCH_CUDA(cudaMalloc(&d_row_off, row_off.size() * sizeof(int64_t)));
  BENCH_CUDA(cudaMalloc(&d_counts, 2 * sizeof(int64_t)));
  BENCH_CUDA(cudaMalloc(&d_group_start, token_bytes + 4));
  BENCH_CUDA(cudaMalloc(&d_group_row, token_bytes));
  BENCH_CUDA(cudaMalloc(&d_item_word, token_bytes));
  BENCH_CUDA(cudaMalloc(&d_item_group, token_bytes));
  BENCH_CUDA(cudaMalloc(&d_item_end, token_bytes));
  if (r.groups_workspace_bytes > 0) BENCH_CUDA(cudaMalloc(&d_groups_workspace, r.groups_workspace_bytes));
  BENCH_CUDA(cudaMemcpy(d_row_off, row_off.data(), row_off.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
  // d_perm and d_offsets hold the order of the tokens (every copy holds the same tokens).
  device_order(0);
  auto device_groups = [&](int run) {
    BENCH_SK(sk_csr_chunk_groups_device(d_row_off, r.rows, d_tokens[(size_t)run % d_tokens.size()], num_tokens, v,
                                        d_perm, d_offsets, opt->item_tokens, d_group_start, d_group_row, d_item_word,
                                        d_item_group, d_item_end, d_counts, d_groups_workspace,
                                        r.groups_workspace_bytes, 0));
  };
  BENCH_CUDA(cudaMemset(d_counts, 0xff, 2 * sizeof(int64_t)));
  device_groups(0);
  BENCH_CUDA(cudaDeviceSynchronize());
  {
    int64_t counts[2];
    BENCH_CUDA(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
    if (counts[0] != h_groups || counts[1] != h_items) bench_fail("the device's numbers of groups and items differ");
    std::vector<int32_t> got((size_t)h_groups + 1);
    const struct {
      const int32_t *d, *h;
      int64_t count;
      const char *what;
    } arrays[] = {{d_group_start, hg_start.data(), h_groups + 1, "the device's group starts differ"},
                  {d_group_row, hg_row.data(), h_groups, "the device's group rows differ"},
                  {d_item_word, hi_word.data(), h_items, "the device's item words differ"},
                  {d_item_group, hi_group.data(), h_items, "the device's item groups differ"},
                  {d_item_end, hi_end.data(), h_items, "the device's item ends differ"}};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; ++a) {
      BENCH_CUDA(cudaMemcpy(got.data(), arrays[a].d, (size_t)arrays[a].count * 4, cudaMemcpyDeviceToHost));
      if (memcmp(got.data(), arrays[a].h, (size_t)arrays[a].count * 4) != 0) bench_fail(arrays[a].what);
    }
  }
  printf("  check: device groups and items = host groups and items, bit for bit (%lld rows, %lld groups, %lld "
         "items of at most %d tokens)\n",
         r.rows, r.groups, r.items, opt->item_tokens);
  r.device_groups = bench_time_events(BENCH_WARMUP_RUNS, opt->runs, device_groups);

  const double compulsory = 12.0 * (double)n + (double)offset_bytes;  // tokens read, perm + inverse + offsets written
  const double model = bench_model_bytes_per_token(r.passes) * (double)n + (double)offset_bytes;
  printf("  %-22s %11s %11s %11s %12s\n", "", "median_ms", "min_ms", "max_ms", "Mtokens/s");
  const struct {
    const char *name;
    bench_stats s;
  } rows[] = {{"host order (1 thread)", r.host},
              {"device order", r.device},
              {"tokens H2D", r.h2d_tokens},
              {"order H2D", r.h2d_order},
              {"order D2H", r.d2h_order},
              {"host order+rows+groups", r.host_groups},
              {"device groups", r.device_groups}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
    printf("  %-22s %11.4f %11.4f %11.4f %12.1f\n", rows[i].name, rows[i].s.median_ms, rows[i].s.min_ms,
           rows[i].s.max_ms, (double)n / (rows[i].s.median_ms * 1e3));
  printf("  device order: compulsory bytes (12 B/token + offsets) %.1f GB/s = %.1f%% of the copy rate; "
         "model bytes (%.0f B/token + offsets) %.1f GB/s = %.1f%%\n",
         compulsory / (r.device.median_ms * 1e6), 100.0 * compulsory / (r.device.median_ms * 1e6) / ctx->copy_gbps,
         bench_model_bytes_per_token(r.passes), model / (r.device.median_ms * 1e6),
         100.0 * model / (r.device.median_ms * 1e6) / ctx->copy_gbps);
  const double host_path = r.host.median_ms + r.h2d_order.median_ms;
  printf("  order on the device, tokens already there:      %10.4f ms\n", r.device.median_ms);
  printf("  order on the host, then perm/inverse/offsets H2D: %8.4f ms (%.2fx the device order)\n", host_path,
         host_path / r.device.median_ms);
  printf("  order on the device, then D2H for the host too: %10.4f ms\n", r.device.median_ms + r.d2h_order.median_ms);
  printf("  (both need the tokens H2D first: %.4f ms)\n", r.h2d_tokens.median_ms);
  printf("  groups and items: on the host, from the tokens (order with rows, count, groups) %.4f ms; on the\n"
         "  device, the order and then the groups %.4f ms (%.2fx)\n",
         r.host_groups.median_ms, r.device.median_ms + r.device_groups.median_ms,
         r.host_groups.median_ms / (r.device.median_ms + r.device_groups.median_ms));
  ctx->results.push_back(r);

  for (size_t c = 0; c < d_tokens.size(); ++c) BENCH_CUDA(cudaFree(d_tokens[c]));
  BENCH_CUDA(cudaFree(d_perm));
  BENCH_CUDA(cudaFree(d_inverse));
  BENCH_CUDA(cudaFree(d_offsets));
  BENCH_CUDA(cudaFree(d_workspace));
  BENCH_CUDA(cudaFreeHost(h_tokens));
  BENCH_CUDA(cudaFreeHost(h_perm));
  BENCH_CUDA(cudaFreeHost(h_inverse));
  BENCH_CUDA(cudaFreeHost(h_check));
  BENCH_CUDA(cudaFreeHost(h_offsets));
  BENCH_CUDA(cudaFreeHost(h_check_offsets));
  BENCH_CUDA(cudaFree(d_row_off));
  BENCH_CUDA(cudaFree(d_counts));
  BENCH_CUDA(cudaFree(d_group_start));
  BENCH_CUDA(cudaFree(d_group_row));
  BENCH_CUDA(cudaFree(d_item_word));
  BENCH_CUDA(cudaFree(d_item_group));
  BENCH_CUDA(cudaFree(d_item_end));
  BENCH_CUDA(cudaFree(d_groups_workspace));
}

// The copy ceiling: cudaMemcpyAsync of 1 GiB device to device; bytes read + written per second.
static void bench_copy_rate(bench_context *ctx) {
  const bench_stats s = bench_time_device_copy(BENCH_COPY_BYTES, BENCH_WARMUP_RUNS, ctx->opt.runs);
  ctx->copy_gbps = 2.0 * (double)BENCH_COPY_BYTES / (s.median_ms * 1e6);
  printf("copy: cudaMemcpyAsync device to device, %.2f GiB: median %.4f ms = %.1f GB/s read + written\n",
         BENCH_COPY_BYTES / 1073741824.0, s.median_ms, ctx->copy_gbps);
}

static void bench_print_summary(const bench_context *ctx) {
  printf("\nsummary (medians, ms; host path = host order + order H2D; ratio = host path / device order;\n"
         "host_groups: order with rows + count + groups on the host; device_groups: the groups alone after the\n"
         "device order; rows of about %d tokens, item_tokens %d)\n",
         ctx->opt.row_tokens, ctx->opt.item_tokens);
  printf("%11s %7s %12s %12s %12s %12s %12s %12s %8s %12s %13s\n", "tokens", "V", "host_order", "device_order",
         "tokens_H2D", "order_H2D", "order_D2H", "host_path", "ratio", "host_groups", "device_groups");
  for (size_t i = 0; i < ctx->results.size(); ++i) {
    const bench_result *r = &ctx->results[i];
    const double host_path = r->host.median_ms + r->h2d_order.median_ms;
    printf("%11lld %7d %12.4f %12.4f %12.4f %12.4f %12.4f %12.4f %8.2f %12.4f %13.4f\n", r->tokens, r->cols,
           r->host.median_ms, r->device.median_ms, r->h2d_tokens.median_ms, r->h2d_order.median_ms,
           r->d2h_order.median_ms, host_path, host_path / r->device.median_ms, r->host_groups.median_ms,
           r->device_groups.median_ms);
  }
}

static bool bench_write_csv(const bench_context *ctx) {
  FILE *f = bench_open_csv(ctx->opt.csv_path);
  if (f == NULL) return false;
  fprintf(f, "gpu,tokens,cols,zipf_s,radix_passes,runs,host_runs,workspace_bytes,token_copies,host_order_ms,"
             "host_order_min_ms,host_order_max_ms,device_order_ms,device_order_min_ms,device_order_max_ms,"
             "tokens_h2d_ms,order_h2d_ms,order_d2h_ms,copy_gb_per_s,device_compulsory_gb_per_s,"
             "device_model_gb_per_s,row_tokens,item_tokens,rows,groups,items,groups_workspace_bytes,host_groups_ms,"
             "device_groups_ms,device_groups_min_ms\n");
  for (size_t i = 0; i < ctx->results.size(); ++i) {
    const bench_result *r = &ctx->results[i];
    const double offsets = ((double)r->cols + 1) * 8.0;
    const double compulsory = 12.0 * (double)r->tokens + offsets;
    const double model = bench_model_bytes_per_token(r->passes) * (double)r->tokens + offsets;
    fprintf(f,
            "\"%s\",%lld,%d,%.3f,%d,%d,%d,%zu,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f,%.3f,%d,%d,%lld,%lld,"
            "%lld,%zu,%.6f,%.6f,%.6f\n",
            ctx->prop.name, r->tokens, r->cols, ctx->opt.zipf, r->passes, ctx->opt.runs, ctx->opt.host_runs,
            r->workspace_bytes, r->token_copies, r->host.median_ms, r->host.min_ms, r->host.max_ms,
            r->device.median_ms, r->device.min_ms, r->device.max_ms, r->h2d_tokens.median_ms, r->h2d_order.median_ms,
            r->d2h_order.median_ms, ctx->copy_gbps, compulsory / (r->device.median_ms * 1e6),
            model / (r->device.median_ms * 1e6), ctx->opt.row_tokens, ctx->opt.item_tokens, r->rows, r->groups,
            r->items, r->groups_workspace_bytes, r->host_groups.median_ms, r->device_groups.median_ms,
            r->device_groups.min_ms);
  }
  return bench_close_csv(f, ctx->opt.csv_path);
}

int main(int argc, char **argv) {
  static bench_context ctx;
  bench_parse_args(argc, argv, &ctx.opt);
  bench_select_device(ctx.opt.device);
  BENCH_CUDA(cudaGetDeviceProperties(&ctx.prop, ctx.opt.device));

  printf("%s: PDOW order of a chunk, host (sk_csr_chunk_order_host) vs device (sk_csr_chunk_order_device), and "
         "its groups and items (sk_csr_chunk_groups_host vs sk_csr_chunk_groups_device), samplekit %d.%d.%d, nvcc "
         "%d.%d\n",
         BENCH_NAME, SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH, __CUDACC_VER_MAJOR__,
         __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(ctx.opt.device);
  printf("method: host: wall clock, one untimed warm-up run, median of %d runs, one thread, pinned buffers;\n"
         "        device and copies: %d warm-up runs, median of %d runs (CUDA events, back to back, default\n"
         "        stream); copies between pinned host memory and the device\n",
         ctx.opt.host_runs, BENCH_WARMUP_RUNS, ctx.opt.runs);
  bench_copy_rate(&ctx);
  for (int c = 0; c < ctx.opt.num_cols; ++c)
    for (int s = 0; s < ctx.opt.num_sizes; ++s) bench_one(&ctx, ctx.opt.sizes[s], ctx.opt.cols[c]);
  bench_print_summary(&ctx);
  if (ctx.opt.csv_path != NULL && !bench_write_csv(&ctx)) return BENCH_EXIT_FAILED;
  return 0;
}
