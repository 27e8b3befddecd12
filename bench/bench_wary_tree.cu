// bench_wary_tree: issue 3, benchmark 3. Builds one W-ary tree per row of a V x K weight matrix and
// draws from random rows through samplekit's C API (sk_wary_tree_batch_build_f32 and
// sk_wary_tree_batch_sample_f32), against the classic O(1)-draw alternative, Walker/Vose alias tables,
// built and sampled on the GPU by the kernels in this file; and measures the device copy rate in the
// same run, so that the build can be compared with the memory ceiling.
//
// The alias baseline (this file only, not in the library):
//  - build: one warp per row (persistent warps, each with its own scratch): the warp sums the row (in
//    double), scales q_k = w_k K / sum, and partitions the entries into "small" (q < 1) and "large"
//    (q >= 1) lists with ballots and prefix counts, all in parallel; the pairing (Vose's algorithm,
//    written as a sweep: each small entry takes the current large entry as its alias, and the large
//    entry becomes small once its excess is used up) is SEQUENTIAL: lane 0 runs it alone, as plain
//    scalar code, reading the lists in order with loads issued a few entries ahead, while the other 31
//    lanes wait. (A first version ran the sweep on all lanes in lockstep with shuffles; inside the
//    data-dependent loops nvcc compiled those into collective slow paths: 1.8-1.9x slower on an H200.)
//    A faster, fully parallel pairing exists (Huebschle-Schneider and Sanders, "Parallel Weighted Random
//    Sampling", 2019) and would narrow the gap; the time of phases (1) and (2) alone is printed too,
//    to show the split. The large entry's running excess is kept in double.
//  - draw: one thread per draw, one 32-bit Philox word x: entry i = (x K) >> 32, fraction = low 32 bits
//    of x K; one 8-byte table read (probability, alias) and one comparison.
//  The tree draws use sk_rng_uniform_f32 (one Philox block per draw as well), one warp per draw.
//
// Before anything is timed, both structures are checked: every draw of one full sampling launch is
// checked on the device (index in range, weight > 0), tree totals and alias tables of a few rows are
// checked on the host against double-precision sums of their weights. A failed check exits 1.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "samplekit/rng.cuh"
#include "samplekit/samplekit.h"
#include "samplekit/warp_lane.cuh"

#define BENCH_NAME "bench_wary_tree"
#include "bench_common.h"

// ---------------------------------------------------------------------------------------------------
// Parameters (STYLE.md, "Benchmarks"; issue 3, benchmark 3).

#define BENCH_DEFAULT_ROWS 100000
#define BENCH_DEFAULT_DRAWS 100000000ull
#define BENCH_DEFAULT_RUNS 15  // timed runs per figure; the median is reported (at least 11)
#define BENCH_MIN_RUNS 11
#define BENCH_MAX_RUNS 1001
#define BENCH_WARMUP_RUNS 3
#define BENCH_COPY_BYTES ((size_t)1 << 30)  // 1 GiB copied device to device
#define BENCH_THREADS 256
#define BENCH_SEED 0x5eed72ee0001ull
#define BENCH_MAX_KS 8
#define BENCH_BUILD_TARGET 10.0  // tree build >= 10x faster than the alias build
#define BENCH_CHECK_ROWS 3       // rows whose tree totals and alias tables are checked on the host

// ---------------------------------------------------------------------------------------------------
// Inputs, generated on the device.

// Weights in (0, 1] with 1 in 16 exactly zero (so that "weight > 0" in the draw check means something);
// the first weight of each row is at least 0.5, so no row is all zero.
__global__ void bench_gen_weights(float *w, size_t count, int k, uint64_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    const uint64_t h = bench_mix64(i ^ seed);
    float v = (h & 15u) == 0 ? 0.0f : (float)((h >> 40) + 1) * 5.9604644775390625e-8f;
    if (i % (size_t)k == 0) v = fmaxf(v, 0.5f);
    w[i] = v;
  }
}

__global__ void bench_gen_rows(int *rows, size_t count, int num_rows, uint64_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    rows[i] = (int)(bench_mix64(i ^ seed) % (uint64_t)num_rows);
}

// Counts draws that are out of range or of a zero weight (warp-aggregated atomics).
__global__ void bench_count_invalid(const float *w, int k, const int *rows, const int *out, size_t count,
                                    unsigned long long *invalid) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  // Every lane runs the same number of iterations, so that the ballot has the whole warp.
  const size_t rounds = (count + stride - 1) / stride;
  for (size_t r = 0; r < rounds; ++r) {
    const size_t s = first + r * stride;
    bool bad = false;
    if (s < count) {
      const int leaf = out[s];
      bad = leaf < 0 || leaf >= k || !(w[(size_t)rows[s] * k + leaf] > 0.0f);
    }
    const unsigned votes = __ballot_sync(SK_FULL_MASK, bad);
    if (sk_lane_id() == 0 && votes != 0u) atomicAdd(invalid, (unsigned long long)__popc(votes));
  }
}

// ---------------------------------------------------------------------------------------------------
// The alias baseline.

struct bench_alias_entry {
  float prob;  // keep the entry with this probability ...
  int alias;   // ... else take this one
};

// Pair = false stops after the parallel phases (1) and (2): timed only to show how the build's time
// splits between them and the sequential pairing.
template <bool Pair>
__global__ void __launch_bounds__(BENCH_THREADS)
    bench_alias_build(const float *w, int num_rows, int k, bench_alias_entry *table, bench_alias_entry *scratch) {
  const int lane = sk_lane_id();
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const long long num_warps = (long long)gridDim.x * blockDim.x / 32;
  bench_alias_entry *work = scratch + (size_t)warp * k;
  const bench_alias_entry none = {0.0f, 0};
  for (long long row = warp; row < num_rows; row += num_warps) {
    const float *wr = w + (size_t)row * k;
    bench_alias_entry *out = table + (size_t)row * k;
    // (1) The row's sum, in double (every lane gets the same bits from the butterfly).
    double part = 0.0;
    for (int i = lane; i < k; i += 32) part += (double)wr[i];
    for (int d = 16; d > 0; d >>= 1) part += __shfl_xor_sync(SK_FULL_MASK, part, d);
    const float scale = (float)((double)k / part);
    // (2) Scaled probabilities, partitioned in parallel: small entries from the front of `work`,
    //     large ones from the back.
    int num_small = 0, num_large = 0;
    for (int base = 0; base < k; base += 32) {
      const int i = base + lane;
      const float q = i < k ? wr[i] * scale : 0.0f;
      const bool small = i < k && q < 1.0f, large = i < k && !small;
      const unsigned small_votes = __ballot_sync(SK_FULL_MASK, small);
      const unsigned large_votes = __ballot_sync(SK_FULL_MASK, large);
      const bench_alias_entry e = {q, i};
      if (small) work[num_small + __popc(small_votes & sk_lanemask_lt())] = e;
      if (large) work[k - 1 - (num_large + __popc(large_votes & sk_lanemask_lt()))] = e;
      num_small += __popc(small_votes);
      num_large += __popc(large_votes);
    }
    __syncwarp();
    if (!Pair) continue;
    // (3) Pairing, sequential, by lane 0 alone while the other lanes wait (see the file's comment).
    //     The lists are read in order, small entries loaded 4 ahead and large ones 2 ahead.
    int sp = 0, lp = 0;
    if (lane == 0 && num_large > 0) {
      const bench_alias_entry *larges = work + (k - 1);  // large entry p is larges[-p]
      bench_alias_entry s0 = 0 < num_small ? work[0] : none, s1 = 1 < num_small ? work[1] : none;
      bench_alias_entry s2 = 2 < num_small ? work[2] : none, s3 = 3 < num_small ? work[3] : none;
      bench_alias_entry l0 = larges[0], l1 = 1 < num_large ? larges[-1] : none;
      int g = l0.alias;  // the current large entry ...
      double excess = l0.prob;  // ... and its q less what it has given away
      lp = 1;
      l0 = l1;
      l1 = 2 < num_large ? larges[-2] : none;
      while (sp < num_small) {
        const bench_alias_entry e = s0;
        s0 = s1;
        s1 = s2;
        s2 = s3;
        s3 = sp + 4 < num_small ? work[sp + 4] : none;
        ++sp;
        out[e.alias] = bench_alias_entry{e.prob, g};
        excess = (excess + (double)e.prob) - 1.0;
        while (excess < 1.0 && lp < num_large) {  // g is used up: it becomes small, the next large covers it
          const bench_alias_entry l = l0;
          ++lp;
          l0 = l1;
          l1 = lp + 1 < num_large ? larges[-(lp + 1)] : none;
          out[g] = bench_alias_entry{(float)excess, l.alias};
          excess = ((double)l.prob + excess) - 1.0;
          g = l.alias;
        }
      }
      out[g] = bench_alias_entry{1.0f, g};  // the last large entry keeps what is left
    }
    sp = __shfl_sync(SK_FULL_MASK, sp, 0);
    lp = __shfl_sync(SK_FULL_MASK, lp, 0);
    // Entries never paired: large ones are their own alias; small ones only when there is no large
    // entry at all (every q rounded just below 1).
    for (int p = lp + lane; p < num_large; p += 32) {
      const bench_alias_entry e = work[k - 1 - p];
      out[e.alias] = bench_alias_entry{1.0f, e.alias};
    }
    for (int p = sp + lane; p < num_small; p += 32) {
      const bench_alias_entry e = work[p];
      out[e.alias] = bench_alias_entry{e.prob > 0.0f ? 1.0f : 0.0f, e.alias};
    }
    __syncwarp();  // `work` is reused by the next row
  }
}

__global__ void __launch_bounds__(BENCH_THREADS)
    bench_alias_sample(const bench_alias_entry *table, int k, const int *rows, size_t count, uint64_t seed,
                       uint64_t offset, int *out) {
  for (size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x; s < count; s += (size_t)gridDim.x * blockDim.x) {
    const uint32_t x = sk_rng_u32(seed, 0, offset + s);
    const uint64_t m = (uint64_t)x * (uint32_t)k;
    const int i = (int)(m >> 32);
    const float fraction = (float)(uint32_t)m * 2.3283064365386963e-10f;  // 2^-32
    const bench_alias_entry e = table[(size_t)rows[s] * k + i];
    out[s] = fraction < e.prob ? i : e.alias;
  }
}

// ---------------------------------------------------------------------------------------------------
// Command line.

typedef struct bench_options {
  int rows;
  unsigned long long draws;
  int runs;
  int device;
  int num_ks;
  int ks[BENCH_MAX_KS];
  const char *csv_path;
} bench_options;

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: bench_wary_tree [--rows V] [--ks K1,K2,...] [--draws N] [--runs R] [--device D] [--csv FILE]\n"
          "                       [--help]\n"
          "\n"
          "Batched W-ary tree build and draws (samplekit) against Walker/Vose alias tables built and\n"
          "sampled on the GPU, and the device-to-device copy rate, on one GPU in one run.\n"
          "\n"
          "  --rows V    rows (trees) per batch (default %d)\n"
          "  --ks LIST   leaves per row, comma-separated, each 2 to %d (default 1024,10000)\n"
          "  --draws N   draws per sampling launch, from random rows (default %llu)\n"
          "  --runs R    timed runs per figure, %d to %d (default %d); the median is reported\n"
          "  --device D  CUDA device (default 0)\n"
          "  --csv FILE  also write the results to FILE as CSV\n"
          "  --help      print this and exit\n"
          "\n"
          "Exit status: 0 done, 1 a check or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_DEFAULT_ROWS, SK_WARY_TREE_MAX_LEAVES, BENCH_DEFAULT_DRAWS, BENCH_MIN_RUNS, BENCH_MAX_RUNS,
          BENCH_DEFAULT_RUNS);
}

static void bench_parse_args(int argc, char **argv, bench_options *opt) {
  opt->rows = BENCH_DEFAULT_ROWS;
  opt->draws = BENCH_DEFAULT_DRAWS;
  opt->runs = BENCH_DEFAULT_RUNS;
  opt->device = 0;
  opt->num_ks = 2;
  opt->ks[0] = 1024;
  opt->ks[1] = 10000;
  opt->csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const bool has_value = i + 1 < argc;
    long long v = 0;
    if (bench_common_option(argc, argv, &i, bench_usage, &opt->csv_path) ||
        bench_device_option(argc, argv, &i, &opt->device, bench_usage))
      continue;
    if (strcmp(a, "--rows") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], 1, 1 << 30, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->rows = (int)v;
    } else if (strcmp(a, "--draws") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], 1, 1ll << 34, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->draws = (unsigned long long)v;
    } else if (strcmp(a, "--runs") == 0 && has_value) {
      if (!bench_parse_ll(argv[++i], BENCH_MIN_RUNS, BENCH_MAX_RUNS, &v)) bench_bad_value(a, argv[i], bench_usage);
      opt->runs = (int)v;
    } else if (strcmp(a, "--ks") == 0 && has_value) {
      long long ks[BENCH_MAX_KS];
      opt->num_ks = bench_parse_list(a, argv[++i], 2, SK_WARY_TREE_MAX_LEAVES, ks, BENCH_MAX_KS, bench_usage);
      for (int k = 0; k < opt->num_ks; ++k) opt->ks[k] = (int)ks[k];
    } else {
      bench_unknown_option(a, bench_usage);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// One K: checks, then the four timings.

typedef struct bench_result {
  int k;
  const char *method, *phase;
  bench_stats t;
  double bytes;  // build: compulsory bytes (weights read once, structure written once); sample: 0
  double draws;  // sample: draws per launch; build: 0
} bench_result;

typedef struct bench_context {
  bench_options opt;
  cudaDeviceProp prop;
  int sm_count;
  double copy_gbps;
  std::vector<bench_result> results;
  bool failed;
} bench_context;

// bench_time_events with this program's warm-up and run counts, for a launch that takes no run index.
template <class Launch>
static bench_stats bench_time(const bench_context *ctx, Launch launch) {
  return bench_time_events(BENCH_WARMUP_RUNS, ctx->opt.runs, [&](int) { launch(); });
}

static unsigned bench_grid(size_t items) {
  const size_t blocks = (items + BENCH_THREADS - 1) / BENCH_THREADS;
  return (unsigned)std::min<size_t>(blocks, 65536);
}

static void bench_fail(bench_context *ctx, const char *what) {
  printf("CHECK FAILED: %s\n", what);
  ctx->failed = true;
}

// Host checks of a few rows: the tree's total against the double sum of the row, and the alias table's
// implied probabilities, (prob_i + sum over j aliased to i of (1 - prob_j)) / K, against w_i / sum.
static void bench_check_rows(bench_context *ctx, int k, const float *d_w, const float *d_trees,
                             const bench_alias_entry *d_table) {
  const int rows[BENCH_CHECK_ROWS] = {0, ctx->opt.rows / 2, ctx->opt.rows - 1};
  const size_t floats = sk_wary_tree_floats(k);
  std::vector<float> w((size_t)k), top(32);
  std::vector<bench_alias_entry> table((size_t)k);
  std::vector<double> implied((size_t)k);
  double worst_total = 0.0, worst_alias = 0.0;
  for (int c = 0; c < BENCH_CHECK_ROWS; ++c) {
    const size_t r = (size_t)rows[c];
    BENCH_CUDA(cudaMemcpy(w.data(), d_w + r * k, sizeof(float) * k, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(top.data(), d_trees + r * floats + floats - 32, sizeof(float) * 32, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(table.data(), d_table + r * k, sizeof(bench_alias_entry) * k, cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int i = 0; i < k; ++i) sum += w[(size_t)i];
    worst_total = std::max(worst_total, fabs((double)top[31] - sum) / sum);
    std::fill(implied.begin(), implied.end(), 0.0);
    bool aliases_ok = true;
    for (int i = 0; i < k; ++i) {
      const bench_alias_entry e = table[(size_t)i];
      if (e.alias < 0 || e.alias >= k) {
        aliases_ok = false;
        continue;
      }
      const double keep = std::min(1.0, std::max(0.0, (double)e.prob));
      implied[(size_t)i] += keep;
      implied[(size_t)e.alias] += 1.0 - keep;
    }
    if (!aliases_ok) bench_fail(ctx, "an alias table entry points outside its row");
    for (int i = 0; i < k; ++i)
      worst_alias = std::max(worst_alias, fabs(implied[(size_t)i] - (double)k * w[(size_t)i] / sum));
  }
  // Float sums of K values in [0, 1]: relative error well below 1e-4. The alias table's K p_i is O(1),
  // but its float probabilities come out of a sequential pairing whose error grows with K: measured on
  // an H200, 0.62 K 2^-24 at K = 10,000 and 0.73 K 2^-24 at K = 65,536 (2.9e-3, over the fixed 1e-3 this
  // check first had). So the limit is 1e-3 or 4 K 2^-24, whichever is larger.
  const double alias_limit = std::max(1e-3, 4.0 * (double)k / 16777216.0);
  printf("  check: tree total vs double sum, worst relative error %.2e (limit 1e-4); alias table K p_i vs K w_i / sum, "
         "worst error %.2e (limit %.1e); rows 0, V/2, V-1\n",
         worst_total, worst_alias, alias_limit);
  if (!(worst_total <= 1e-4)) bench_fail(ctx, "a tree's total differs from the sum of its weights");
  if (!(worst_alias <= alias_limit)) bench_fail(ctx, "an alias table does not represent its weights");
}

static void bench_check_draws(bench_context *ctx, const char *method, int k, const float *d_w, const int *d_rows,
                              const int *d_out, unsigned long long *d_invalid) {
  unsigned long long invalid = 0;
  BENCH_CUDA(cudaMemset(d_invalid, 0, sizeof invalid));
  bench_count_invalid<<<bench_grid(ctx->opt.draws), BENCH_THREADS>>>(d_w, k, d_rows, d_out, ctx->opt.draws, d_invalid);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaMemcpy(&invalid, d_invalid, sizeof invalid, cudaMemcpyDeviceToHost));
  printf("  check: %s draws: %llu of %llu out of range or of a zero weight\n", method, invalid, ctx->opt.draws);
  if (invalid != 0) bench_fail(ctx, "invalid draws");
}

static void bench_add(bench_context *ctx, int k, const char *method, const char *phase, bench_stats t, double bytes,
                      double draws) {
  bench_result r = {k, method, phase, t, bytes, draws};
  ctx->results.push_back(r);
  const double gbps = bytes > 0 ? bytes / (t.median_ms * 1e6) : 0.0;
  printf("  %-6s %-6s %10.4f %10.4f %10.4f", phase, method, t.median_ms, t.min_ms, t.max_ms);
  if (bytes > 0) {
    printf(" %9.1f %6.1f%%", gbps, 100.0 * gbps / ctx->copy_gbps);
  } else {
    printf(" %9s %7s", "-", "-");
  }
  if (draws > 0) {
    printf(" %12.4e\n", draws / (t.median_ms * 1e-3));
  } else {
    printf(" %12s\n", "-");
  }
}

static void bench_one_k(bench_context *ctx, int k) {
  const int v = ctx->opt.rows;
  const size_t draws = (size_t)ctx->opt.draws;
  const size_t weights = (size_t)v * k;
  size_t tree_bytes = 0;
  BENCH_SK(sk_wary_tree_batch_bytes(v, k, &tree_bytes));
  int per_sm = 0;
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bench_alias_build<true>, BENCH_THREADS, 0));
  if (per_sm < 1) {
    fprintf(stderr, "bench_wary_tree: the alias build kernel does not fit on an SM\n");
    exit(BENCH_EXIT_FAILED);
  }
  const int alias_blocks = per_sm * ctx->sm_count;
  const size_t alias_warps = (size_t)alias_blocks * (BENCH_THREADS / 32);
  const size_t table_bytes = sizeof(bench_alias_entry) * weights;
  const size_t scratch_bytes = sizeof(bench_alias_entry) * alias_warps * k;
  const size_t need = sizeof(float) * weights + tree_bytes + table_bytes + scratch_bytes + 2 * sizeof(int) * draws;
  size_t free_bytes = 0, total_bytes = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  printf("\nK = %d leaves, V = %d rows, %zu draws from random rows; device memory needed %.2f GB of %.2f GB free\n", k,
         v, draws, need / 1e9, free_bytes / 1e9);
  if (need > free_bytes) {
    fprintf(stderr, "bench_wary_tree: not enough device memory for K = %d (use --rows or --draws)\n", k);
    exit(BENCH_EXIT_FAILED);
  }
  float *d_w, *d_trees;
  int *d_rows, *d_out;
  bench_alias_entry *d_table, *d_scratch;
  unsigned long long *d_invalid;
  BENCH_CUDA(cudaMalloc(&d_w, sizeof(float) * weights));
  BENCH_CUDA(cudaMalloc(&d_trees, tree_bytes));
  BENCH_CUDA(cudaMalloc(&d_table, table_bytes));
  BENCH_CUDA(cudaMalloc(&d_scratch, scratch_bytes));
  BENCH_CUDA(cudaMalloc(&d_rows, sizeof(int) * draws));
  BENCH_CUDA(cudaMalloc(&d_out, sizeof(int) * draws));
  BENCH_CUDA(cudaMalloc(&d_invalid, sizeof(unsigned long long)));
  bench_gen_weights<<<bench_grid(weights), BENCH_THREADS>>>(d_w, weights, k, BENCH_SEED + (uint64_t)k);
  BENCH_CUDA(cudaGetLastError());
  bench_gen_rows<<<bench_grid(draws), BENCH_THREADS>>>(d_rows, draws, v, BENCH_SEED ^ 0xabcdefull);
  BENCH_CUDA(cudaGetLastError());

  auto tree_build = [&]() { BENCH_SK(sk_wary_tree_batch_build_f32(d_w, (size_t)k, v, k, d_trees, tree_bytes, 0)); };
  auto tree_sample = [&]() {
    BENCH_SK(sk_wary_tree_batch_sample_f32(d_trees, tree_bytes, v, k, d_rows, draws, BENCH_SEED, 0, d_out, 0));
  };
  auto alias_build = [&]() {
    bench_alias_build<true><<<alias_blocks, BENCH_THREADS>>>(d_w, v, k, d_table, d_scratch);
    BENCH_CUDA(cudaGetLastError());
  };
  auto alias_parallel_phases = [&]() {
    bench_alias_build<false><<<alias_blocks, BENCH_THREADS>>>(d_w, v, k, d_table, d_scratch);
    BENCH_CUDA(cudaGetLastError());
  };
  auto alias_sample = [&]() {
    bench_alias_sample<<<bench_grid(draws), BENCH_THREADS>>>(d_table, k, d_rows, draws, BENCH_SEED, 0, d_out);
    BENCH_CUDA(cudaGetLastError());
  };

  // Checks, before any timing.
  tree_build();
  alias_build();
  BENCH_CUDA(cudaDeviceSynchronize());
  bench_check_rows(ctx, k, d_w, d_trees, d_table);
  BENCH_CUDA(cudaMemset(d_out, 0xff, sizeof(int) * draws));
  tree_sample();
  bench_check_draws(ctx, "tree", k, d_w, d_rows, d_out, d_invalid);
  BENCH_CUDA(cudaMemset(d_out, 0xff, sizeof(int) * draws));
  alias_sample();
  bench_check_draws(ctx, "alias", k, d_w, d_rows, d_out, d_invalid);

  const double tree_bytes_moved = sizeof(float) * (double)weights + (double)tree_bytes;
  const double alias_bytes_moved = sizeof(float) * (double)weights + (double)table_bytes;
  printf("  %-6s %-6s %10s %10s %10s %9s %7s %12s\n", "phase", "method", "median_ms", "min_ms", "max_ms", "GB/s",
         "%copy", "draws/s");
  const bench_stats tb = bench_time(ctx, tree_build);
  bench_add(ctx, k, "tree", "build", tb, tree_bytes_moved, 0);
  const bench_stats ab = bench_time(ctx, alias_build);
  bench_add(ctx, k, "alias", "build", ab, alias_bytes_moved, 0);
  const bench_stats ap = bench_time(ctx, alias_parallel_phases);
  bench_add(ctx, k, "alias1", "build", ap, 0, 0);
  const bench_stats ts = bench_time(ctx, tree_sample);
  bench_add(ctx, k, "tree", "sample", ts, 0, (double)draws);
  const bench_stats as = bench_time(ctx, alias_sample);
  bench_add(ctx, k, "alias", "sample", as, 0, (double)draws);
  const double speedup = ab.median_ms / tb.median_ms;
  printf("  (alias1: the alias build's parallel phases alone, sum and partition, without the sequential pairing:\n"
         "   %.1f%% of the alias build's time)\n",
         100.0 * ap.median_ms / ab.median_ms);
  printf("  build: tree %.2fx faster than alias (target >= %.0fx: %s); draws: alias %.2fx the tree's draws/s\n",
         speedup, BENCH_BUILD_TARGET, speedup >= BENCH_BUILD_TARGET ? "met" : "NOT met", ts.median_ms / as.median_ms);

  BENCH_CUDA(cudaFree(d_w));
  BENCH_CUDA(cudaFree(d_trees));
  BENCH_CUDA(cudaFree(d_table));
  BENCH_CUDA(cudaFree(d_scratch));
  BENCH_CUDA(cudaFree(d_rows));
  BENCH_CUDA(cudaFree(d_out));
  BENCH_CUDA(cudaFree(d_invalid));
}

// The copy ceiling: cudaMemcpyAsync of 1 GiB device to device; bytes read + written per second.
static void bench_copy_rate(bench_context *ctx) {
  const bench_stats s = bench_time_device_copy(BENCH_COPY_BYTES, BENCH_WARMUP_RUNS, ctx->opt.runs);
  ctx->copy_gbps = 2.0 * (double)BENCH_COPY_BYTES / (s.median_ms * 1e6);
  printf("copy: cudaMemcpyAsync device to device, %.2f GiB: median %.4f ms (min %.4f, max %.4f) = %.1f GB/s "
         "read + written\n",
         BENCH_COPY_BYTES / 1073741824.0, s.median_ms, s.min_ms, s.max_ms, ctx->copy_gbps);
}

static bool bench_write_csv(const bench_context *ctx) {
  FILE *f = bench_open_csv(ctx->opt.csv_path);
  if (f == NULL) return false;
  fprintf(f, "gpu,sm_count,rows,k,draws,runs,method,phase,median_ms,min_ms,max_ms,bytes,gb_per_s,copy_gb_per_s,"
             "fraction_of_copy,draws_per_s\n");
  for (size_t i = 0; i < ctx->results.size(); ++i) {
    const bench_result *r = &ctx->results[i];
    const double gbps = r->bytes > 0 ? r->bytes / (r->t.median_ms * 1e6) : 0.0;
    fprintf(f, "\"%s\",%d,%d,%d,%llu,%d,%s,%s,%.6f,%.6f,%.6f,%.0f,%.3f,%.3f,%.6f,%.6e\n", ctx->prop.name,
            ctx->sm_count, ctx->opt.rows, r->k, ctx->opt.draws, ctx->opt.runs, r->method, r->phase, r->t.median_ms,
            r->t.min_ms, r->t.max_ms, r->bytes, gbps, ctx->copy_gbps, gbps / ctx->copy_gbps,
            r->draws > 0 ? r->draws / (r->t.median_ms * 1e-3) : 0.0);
  }
  return bench_close_csv(f, ctx->opt.csv_path);
}

int main(int argc, char **argv) {
  static bench_context ctx;
  bench_parse_args(argc, argv, &ctx.opt);
  bench_select_device(ctx.opt.device);
  BENCH_CUDA(cudaGetDeviceProperties(&ctx.prop, ctx.opt.device));
  BENCH_CUDA(cudaDeviceGetAttribute(&ctx.sm_count, cudaDevAttrMultiProcessorCount, ctx.opt.device));

  printf("bench_wary_tree: batched W-ary trees (samplekit %d.%d.%d) vs alias tables (Vose) on the GPU (nvcc %d.%d)\n",
         SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(ctx.opt.device);
  printf("method: %d warm-up runs, median of %d timed runs (CUDA events, back to back); weights uniform in\n"
         "        (0, 1] with 1 in 16 zero, generated on the GPU; builds: GB/s = (weights read once + structure\n"
         "        written once) / time, as %% of the copy rate; draws from uniformly random rows, one Philox\n"
         "        block per draw\n",
         BENCH_WARMUP_RUNS, ctx.opt.runs);
  bench_copy_rate(&ctx);
  for (int i = 0; i < ctx.opt.num_ks; ++i) bench_one_k(&ctx, ctx.opt.ks[i]);
  if (ctx.opt.csv_path != NULL && !bench_write_csv(&ctx)) return BENCH_EXIT_FAILED;
  if (ctx.failed) {
    printf("\nbench_wary_tree: some checks FAILED (see above); the timings are not valid\n");
    return BENCH_EXIT_FAILED;
  }
  return 0;
}
