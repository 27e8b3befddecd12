// bench_sample_categorical: sk_sample_categorical_f32 on M x K = 2^28 floats (1 GiB) for several K,
// each algorithm, against the device-to-device copy rate measured in the same run. PyTorch's methods on
// the same shapes are timed by bench_categorical_torch.py (run it right after, on the same GPU).
//   usage: bench_sample_categorical [--csv FILE] [--reps N]
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>

#include "samplekit/rng.h"
#include "samplekit/sample_categorical.h"
#include "samplekit/sk_device.h"

#define BENCH_NAME "bench_sample_categorical"
#include "bench_common.h"

static const size_t kFloats = (size_t)1 << 28;  // 1 GiB of weights per matrix
static const int kWarmup = 3;

// Median time in ms of `reps` runs of f(rep), each between its own pair of events.
template <class F>
static double median_ms(int reps, F f) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  for (int r = 0; r < kWarmup; ++r) f(r);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    BENCH_CUDA(cudaEventRecord(a));
    f(r);
    BENCH_CUDA(cudaEventRecord(b));
    BENCH_CUDA(cudaEventSynchronize(b));
    float ms;
    BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  BENCH_CUDA(cudaEventDestroy(a));
  BENCH_CUDA(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--csv FILE] [--reps N] [--help]\n"
          "Times sk_sample_categorical_f32 on 1 GiB matrices (K = 32 to 10240) for each algorithm\n"
          "and the device-to-device copy rate, in the same run.\n"
          "  --csv FILE  also write the results to FILE as CSV\n"
          "  --reps N    timed runs per figure, 1 to 1001 (default 21); the median is reported\n",
          BENCH_NAME);
}

int main(int argc, char **argv) {
  const char *csv_path = NULL;
  int reps = 21;
  for (int i = 1; i < argc; ++i)
    if (!bench_common_option(argc, argv, &i, usage, &csv_path) &&
        !bench_int_option(argc, argv, &i, "--reps", 1, 1001, &reps, usage))
      bench_unknown_option(argv[i], usage);
  sk_device_info info;
  const sk_status st = sk_device_query(0, &info);
  if (st != SK_SUCCESS) {
    printf("SKIP: no usable CUDA GPU (%s)\n", sk_status_string(st));
    return 77;
  }
  printf("bench_sample_categorical on %s (%d SMs, %zu MiB L2), reps %d (median)\n", info.name, info.sm_count,
         info.l2_cache_bytes >> 20, reps);

  // Two matrices, alternated, so that no run finds its input in the 50-60 MB L2.
  float *d_w[2];
  for (int m = 0; m < 2; ++m) {
    BENCH_CUDA(cudaMalloc(&d_w[m], kFloats * sizeof(float)));
    BENCH_SK(sk_rng_fill_uniform_f32(2026, (uint64_t)m, 0, d_w[m], kFloats, 0));  // weights in [0, 1)
  }
  BENCH_CUDA(cudaDeviceSynchronize());

  // The ceiling: a 1 GiB device-to-device copy, counting bytes read and written.
  const double copy_ms = median_ms(reps, [&](int r) {
    BENCH_CUDA(cudaMemcpyAsync(d_w[(r & 1) ^ 1], d_w[r & 1], kFloats * sizeof(float), cudaMemcpyDeviceToDevice, 0));
  });
  const double copy_gbs = 2.0 * kFloats * sizeof(float) / (copy_ms * 1e6);
  printf("device-to-device copy of 1 GiB: %.3f ms = %.1f GB/s (read + written)\n\n", copy_ms, copy_gbs);

  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv_path && !csv) {
    fprintf(stderr, "bench_sample_categorical: cannot write %s\n", csv_path);
    return 1;
  }
  if (csv) fprintf(csv, "gpu,K,M,algorithm,ms,samples_per_s,effective_GBs,copy_GBs,fraction_of_copy\n");
  printf("%6s %9s %-10s %10s %14s %12s %10s\n", "K", "M", "algorithm", "ms", "samples/s", "eff GB/s", "of copy");
  const int Ks[] = {32, 64, 128, 256, 512, 1024, 10240};  // the issue's four, and the crossover region
  const char *names[] = {"auto", "butterfly", "group-row"};
  int *d_out;
  BENCH_CUDA(cudaMalloc(&d_out, (kFloats / 32) * sizeof(int)));
  std::vector<int> h_out;
  for (int K : Ks) {
    const size_t M = kFloats / (size_t)K;
    h_out.resize(M);
    for (int a = 0; a < 3; ++a) {
      const sk_categorical_algorithm alg = (sk_categorical_algorithm)a;
      // Valid before timed: every index in range (weights are positive, so never -1).
      BENCH_SK(sk_sample_categorical_ex_f32(d_w[0], (size_t)K, M, K, alg, 1, 0, d_out, 0));
      BENCH_CUDA(cudaMemcpy(h_out.data(), d_out, M * sizeof(int), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < M; ++i)
        if (h_out[i] < 0 || h_out[i] >= K) {
          fprintf(stderr, "bench_sample_categorical: K=%d %s row %zu gave %d\n", K, names[a], i, h_out[i]);
          return 1;
        }
      const double ms = median_ms(reps, [&](int r) {
        BENCH_SK(sk_sample_categorical_ex_f32(d_w[r & 1], (size_t)K, M, K, alg, 1, (uint64_t)r * M, d_out, 0));
      });
      const double eff = (double)M * K * sizeof(float) / (ms * 1e6);
      printf("%6d %9zu %-10s %10.4f %14.4g %12.1f %9.3fx\n", K, M, names[a], ms, M / (ms * 1e-3), eff, eff / copy_gbs);
      if (csv)
        fprintf(csv, "\"%s\",%d,%zu,%s,%.5f,%.6g,%.2f,%.2f,%.4f\n", info.name, K, M, names[a], ms, M / (ms * 1e-3), eff,
                copy_gbs, eff / copy_gbs);
    }
  }
  // The product form, the LDA shape: theta and phi of D = V = 100,000 rows, a random document and word
  // per item (rows gathered from all over both matrices), 2^22 items.
  const int kRowsDV = 100000;
  const size_t kItems = (size_t)1 << 22;
  int *d_docs, *d_words;
  BENCH_CUDA(cudaMalloc(&d_docs, kItems * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_words, kItems * sizeof(int)));
  {
    std::vector<int> ids(kItems);
    uint64_t h = 12345;
    for (size_t i = 0; i < kItems; ++i) h = h * 6364136223846793005ull + 1442695040888963407ull, ids[i] = (int)((h >> 33) % kRowsDV);
    BENCH_CUDA(cudaMemcpy(d_docs, ids.data(), kItems * sizeof(int), cudaMemcpyHostToDevice));
    for (size_t i = 0; i < kItems; ++i) h = h * 6364136223846793005ull + 1442695040888963407ull, ids[i] = (int)((h >> 33) % kRowsDV);
    BENCH_CUDA(cudaMemcpy(d_words, ids.data(), kItems * sizeof(int), cudaMemcpyHostToDevice));
  }
  printf("\nproduct form: theta and phi %d x K each (weights in d_w[0] and d_w[1]), %zu items, random doc and word\n",
         kRowsDV, kItems);
  printf("%6s %-10s %10s %14s %12s\n", "K", "algorithm", "ms", "samples/s", "ns/sample");
  int *d_pout;
  BENCH_CUDA(cudaMalloc(&d_pout, kItems * sizeof(int)));
  for (int K : {64, 256, 1024}) {
    for (int a = 1; a < 3; ++a) {
      const sk_categorical_algorithm alg = (sk_categorical_algorithm)a;
      const double ms = median_ms(reps, [&](int r) {
        BENCH_SK(sk_sample_categorical_product_ex_f32(d_w[0], (size_t)K, kRowsDV, d_w[1], (size_t)K, kRowsDV, K, d_docs,
                                                      d_words, kItems, alg, 2, (uint64_t)r * kItems, d_pout, 0));
      });
      printf("%6d %-10s %10.4f %14.4g %12.3f\n", K, names[a], ms, kItems / (ms * 1e-3), ms * 1e6 / kItems);
      if (csv)
        fprintf(csv, "\"%s\",%d,%zu,product-%s,%.5f,%.6g,,,\n", info.name, K, kItems, names[a], ms, kItems / (ms * 1e-3));
    }
  }
  BENCH_CUDA(cudaFree(d_pout));
  BENCH_CUDA(cudaFree(d_docs));
  BENCH_CUDA(cudaFree(d_words));
  if (csv) fclose(csv);
  BENCH_CUDA(cudaFree(d_out));
  BENCH_CUDA(cudaFree(d_w[0]));
  BENCH_CUDA(cudaFree(d_w[1]));
  return 0;
}
