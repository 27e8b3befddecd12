// bench_sparse_counts: sk_sparse_counts_pack_i32 and sk_sparse_counts_add_i32 (sparse_counts.h) at the
// shapes of sk-lda's word-topic counts on one rank of a multi-GPU run, against the device copy rate
// measured in the same run.
//
// For each (n, density): an int32 array of n values, each nonzero (1 .. 8) with that chance (hashed, so
// the nonzeros are spread as a rank's B is), packed into a buffer that holds them all, then the entries
// added into a zeroed array; the add's result is checked against the input (a device compare). Times
// are medians of CUDA-event timed runs. Columns: the pack's ms and its rate in bytes moved (4 n read +
// 8 per entry written) against the copy's (2 x bytes / time of a device-to-device copy of 4 n bytes);
// the add's ms and entries per second; and what a dense ring all-reduce of the same array would move
// per GPU at R = 2 and 4 (2 (R - 1) / R x 4 n) against the entries' bytes (8 m).
//
//   usage: bench_sparse_counts [--device N] [--runs R] [--csv FILE]
//          [--n LIST] [--density-ppm LIST]   (values; nonzeros per million values)
#define BENCH_NAME "bench_sparse_counts"
#define BENCH_WARMUP 2

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "bench_common.h"
#include "samplekit/sparse_counts.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_sparse_counts [--device N] [--runs R] [--csv FILE] [--n LIST] [--density-ppm LIST]\n"
          "  --n LIST            array lengths (default 102400000,1000000000: V = 100,000 at K = 1,024 and\n"
          "                      10,000)\n"
          "  --density-ppm LIST  nonzero values per million (default 25000,100000,400000)\n");
}

__global__ void fill_counts(int32_t *counts, uint64_t n, uint32_t density_ppm) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    const uint32_t h = sk_mix_u32((uint32_t)i ^ sk_mix_u32((uint32_t)(i >> 32) + 0x9e3779b9u));
    counts[i] = h % 1000000u < density_ppm ? (int32_t)(1u + (h >> 24) % 8u) : 0;
  }
}

__global__ void count_mismatches(const int32_t *a, const int32_t *b, uint64_t n, unsigned long long *bad) {
  unsigned long long mine = 0;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(bad, mine);
}

int main(int argc, char **argv) {
  int device = 0, runs = 9;
  const char *csv_path = NULL;
  long long ns[8] = {102400000LL, 1000000000LL}, ppms[8] = {25000, 100000, 400000};
  int num_n = 2, num_ppm = 3;
  for (int i = 1; i < argc; ++i) {
    if (bench_common_option(argc, argv, &i, usage, &csv_path) || bench_device_option(argc, argv, &i, &device, usage) ||
        bench_int_option(argc, argv, &i, "--runs", 1, 1000, &runs, usage))
      continue;
    if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      num_n = bench_parse_list("--n", argv[++i], 1, 1LL << 34, ns, 8, usage);
    } else if (!strcmp(argv[i], "--density-ppm") && i + 1 < argc) {
      num_ppm = bench_parse_list("--density-ppm", argv[++i], 0, 1000000, ppms, 8, usage);
    } else {
      bench_unknown_option(argv[i], usage);
    }
  }
  bench_select_device(device);
  bench_print_date_and_command(argc, argv);
  FILE *csv = csv_path ? bench_open_csv(csv_path) : NULL;
  if (csv) fprintf(csv, "n,density_ppm,entries,pack_ms,pack_gbps,copy_gbps,add_ms,add_gentries_per_s\n");
  printf("| n | nonzero | entries | pack ms | pack GB/s (copy GB/s) | add ms | add G entries/s | "
         "dense ring MB a GPU R=2 / R=4 | entries MB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  int failed = 0;
  for (int a = 0; a < num_n; ++a) {
    const uint64_t n = (uint64_t)ns[a];
    int32_t *d_counts, *d_sum;
    uint64_t *d_entries;
    unsigned long long *d_num;
    const uint64_t capacity = n / 2; /* what sk-lda's ranks have: the memory of the counts being replaced */
    BENCH_CUDA(cudaMalloc((void **)&d_counts, n * sizeof *d_counts));
    BENCH_CUDA(cudaMalloc((void **)&d_sum, n * sizeof *d_sum));
    BENCH_CUDA(cudaMalloc((void **)&d_entries, capacity * sizeof *d_entries));
    BENCH_CUDA(cudaMalloc((void **)&d_num, 2 * sizeof *d_num));
    const bench_stats copy = bench_time_device_copy(n * sizeof(int32_t), BENCH_WARMUP, runs);
    const double copy_gbps = 2.0 * (double)n * 4.0 / (copy.median_ms * 1e6);
    for (int p = 0; p < num_ppm; ++p) {
      fill_counts<<<4096, 256>>>(d_counts, n, (uint32_t)ppms[p]);
      BENCH_CUDA(cudaGetLastError());
      const bench_stats pack = bench_time_events(BENCH_WARMUP, runs, [&](int) {
        BENCH_SK(sk_sparse_counts_pack_i32(d_counts, n, d_entries, capacity, d_num, 0));
      });
      unsigned long long m = 0;
      BENCH_CUDA(cudaMemcpy(&m, d_num, sizeof m, cudaMemcpyDeviceToHost));
      if (m > capacity) {
        printf("| %llu | %lld ppm | %llu | over the capacity %llu: left out |\n", (unsigned long long)n, ppms[p], m,
               (unsigned long long)capacity);
        continue;
      }
      const bench_stats add = bench_time_events(BENCH_WARMUP, runs, [&](int) {
        BENCH_CUDA(cudaMemsetAsync(d_sum, 0, n * sizeof *d_sum, 0));
        BENCH_SK(sk_sparse_counts_add_i32(d_entries, m, d_sum, n, 0));
      });
      BENCH_CUDA(cudaMemset(d_num + 1, 0, sizeof *d_num)); /* d_sum holds the last add's result */
      count_mismatches<<<4096, 256>>>(d_counts, d_sum, n, d_num + 1);
      BENCH_CUDA(cudaGetLastError());
      unsigned long long bad = 0;
      BENCH_CUDA(cudaMemcpy(&bad, d_num + 1, sizeof bad, cudaMemcpyDeviceToHost));
      if (bad) {
        fprintf(stderr, "%s: n %llu, %lld ppm: %llu values differ after pack and add\n", BENCH_NAME,
                (unsigned long long)n, ppms[p], bad);
        failed = 1;
      }
      const bench_stats zero = bench_time_events(BENCH_WARMUP, runs, [&](int) {
        BENCH_CUDA(cudaMemsetAsync(d_sum, 0, n * sizeof *d_sum, 0));
      });
      const double add_ms = add.median_ms - zero.median_ms; /* the zeroing is timed apart and taken off */
      const double pack_gbps = ((double)n * 4.0 + (double)m * 8.0) / (pack.median_ms * 1e6);
      printf("| %llu | %.1f%% | %llu | %.3f | %.0f (%.0f) | %.3f | %.2f | %.0f / %.0f | %.0f |\n",
             (unsigned long long)n, ppms[p] / 1e4, m, pack.median_ms, pack_gbps, copy_gbps, add_ms,
             (double)m / (add_ms * 1e6), 2.0 * 0.5 * 4.0 * (double)n / 1e6, 2.0 * 0.75 * 4.0 * (double)n / 1e6,
             8.0 * (double)m / 1e6);
      if (csv)
        fprintf(csv, "%llu,%lld,%llu,%.4f,%.1f,%.1f,%.4f,%.3f\n", (unsigned long long)n, ppms[p], m, pack.median_ms,
                pack_gbps, copy_gbps, add_ms, (double)m / (add_ms * 1e6));
    }
    BENCH_CUDA(cudaFree(d_counts));
    BENCH_CUDA(cudaFree(d_sum));
    BENCH_CUDA(cudaFree(d_entries));
    BENCH_CUDA(cudaFree(d_num));
  }
  if (csv && !bench_close_csv(csv, csv_path)) failed = 1;
  return failed ? BENCH_EXIT_FAILED : 0;
}
