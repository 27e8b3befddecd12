// bench_rng_gamma: samplekit's Gamma variates (rng_gamma.h) against what a CUDA program would otherwise
// write: a cuRAND Philox4_32_10 state a thread (curand_init with the thread's subsequence) and Marsaglia
// and Tsang's method on curand_normal_double() and curand_uniform_double(), the same boost below a = 1.
//
// Rows, for each shape a: n variates a launch, one a thread, each thread writing log G (8 bytes); ns per
// variate = median kernel time / n; `speed` = the baseline's time over samplekit's. Before anything is
// timed both variants' outputs are checked: the mean of G against a (within 6 standard errors,
// sqrt(a / n)), and no NaN; exit 1 otherwise, 77 without a GPU. The write alone (n doubles) against the
// device copy's rate says how far from the memory ceiling a variate is: both are bound by the FP64 math
// of a candidate (a log, a sqrt and a cos or sincos, about 1.05 candidates a variate; both keep the pair's
// second normal for a retry), not by the stores. Timing:
// CUDA events, BENCH_WARMUP launches, median of --reps.
//
//   usage: bench_rng_gamma [--n N] [--reps N] [--device D] [--csv FILE]
#define BENCH_NAME "bench_rng_gamma"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "bench_common.h"
#include "samplekit/rng_gamma.h"

#define BENCH_WARMUP 3
#define BENCH_DEFAULT_REPS 21
#define BENCH_DEFAULT_N (1 << 24)
#define BENCH_SEED 0x6a77a5u

static const double kShapes[] = {0.005, 0.5, 1.0, 10.0, 100.0};
enum { kNumShapes = sizeof kShapes / sizeof *kShapes };

__global__ void samplekit_gamma(uint64_t seed, double a, int64_t n, double *out) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sk_rng_log_gamma_f64(seed, 7, (uint64_t)i * SK_RNG_GAMMA_MAX_UNIFORMS, a);
}

// The baseline: a cuRAND state a thread, Marsaglia-Tsang on its normals and uniforms (curand_uniform_double
// is in (0, 1], so its log is finite).
__global__ void curand_gamma(uint64_t seed, double a, int64_t n, double *out) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, (unsigned long long)i, 0, &st);
  double boost = 0.0;
  if (a < 1.0) {
    boost = log(curand_uniform_double(&st)) / a;
    a += 1.0;
  }
  const double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    const double x = curand_normal_double(&st);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = curand_uniform_double(&st);
    if (u < 1.0 - 0.0331 * (x * x) * (x * x) || log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) {
      out[i] = log(d * v) + boost;
      return;
    }
  }
}

static void usage(FILE *f) {
  fprintf(f, "usage: %s [--n N] [--reps N] [--device D] [--csv FILE]\n"
             "  Gamma(a) variates, one a thread, samplekit against cuRAND + Marsaglia-Tsang, a = 0.005 .. 100\n",
          BENCH_NAME);
}

// The mean of exp(log G) over n values, and whether any is NaN.
static bool check_variates(const double *h, int64_t n, double a, const char *what) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (isnan(h[i])) {
      fprintf(stderr, "%s: %s, a = %g: variate %lld is NaN\n", BENCH_NAME, what, a, (long long)i);
      return false;
    }
    sum += exp(h[i]);
  }
  const double mean = sum / (double)n, bound = 6.0 * sqrt(a / (double)n);
  if (fabs(mean - a) > bound) {
    fprintf(stderr, "%s: %s, a = %g: mean %.6g, more than %.3g from a\n", BENCH_NAME, what, a, mean, bound);
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  const char *csv_path = NULL;
  int device = 0, reps = BENCH_DEFAULT_REPS, n_int = BENCH_DEFAULT_N;
  for (int i = 1; i < argc; ++i) {
    if (bench_common_option(argc, argv, &i, usage, &csv_path) || bench_device_option(argc, argv, &i, &device, usage) ||
        bench_int_option(argc, argv, &i, "--reps", 1, 1001, &reps, usage) ||
        bench_int_option(argc, argv, &i, "--n", 1024, 1 << 28, &n_int, usage))
      continue;
    bench_unknown_option(argv[i], usage);
  }
  bench_select_device(device);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(device);
  const int64_t n = n_int;
  double *d_out = NULL, *h = (double *)malloc((size_t)n * sizeof *h);
  if (h == NULL) return fprintf(stderr, "%s: out of host memory\n", BENCH_NAME), BENCH_EXIT_FAILED;
  BENCH_CUDA(cudaMalloc(&d_out, (size_t)n * sizeof *d_out));
  const unsigned blocks = (unsigned)((n + 255) / 256);
  FILE *csv = csv_path != NULL ? bench_open_csv(csv_path) : NULL;
  if (csv_path != NULL && csv == NULL) return BENCH_EXIT_FAILED;
  if (csv != NULL) fprintf(csv, "shape,n,samplekit_ns,curand_ns,speed\n");
  const bench_stats copy = bench_time_device_copy((size_t)n * sizeof(double), BENCH_WARMUP, reps);
  printf("n = %lld variates a launch; the device copy of n doubles: %.3f ms (%.0f GB/s read + write)\n\n",
         (long long)n, copy.median_ms, 2.0 * (double)n * 8.0 / copy.median_ms * 1e-6);
  printf("| a | samplekit ns/variate | cuRAND + Marsaglia-Tsang ns/variate | speed | samplekit variates/ns |\n");
  printf("|---:|---:|---:|---:|---:|\n");
  bool ok = true;
  for (int s = 0; s < kNumShapes; ++s) {
    const double a = kShapes[s];
    samplekit_gamma<<<blocks, 256>>>(BENCH_SEED, a, n, d_out);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaMemcpy(h, d_out, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    ok &= check_variates(h, n, a, "samplekit");
    curand_gamma<<<blocks, 256>>>(BENCH_SEED, a, n, d_out);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaMemcpy(h, d_out, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    ok &= check_variates(h, n, a, "cuRAND");
    const bench_stats sk = bench_time_events(BENCH_WARMUP, reps, [&](int) {
      samplekit_gamma<<<blocks, 256>>>(BENCH_SEED, a, n, d_out);
    });
    const bench_stats cr = bench_time_events(BENCH_WARMUP, reps, [&](int) {
      curand_gamma<<<blocks, 256>>>(BENCH_SEED, a, n, d_out);
    });
    const double sk_ns = sk.median_ms * 1e6 / (double)n, cr_ns = cr.median_ms * 1e6 / (double)n;
    printf("| %g | %.4f | %.4f | %.3f | %.1f |\n", a, sk_ns, cr_ns, cr_ns / sk_ns, 1.0 / sk_ns);
    if (csv != NULL) fprintf(csv, "%g,%lld,%.6f,%.6f,%.4f\n", a, (long long)n, sk_ns, cr_ns, cr_ns / sk_ns);
  }
  BENCH_CUDA(cudaFree(d_out));
  free(h);
  if (csv != NULL && !bench_close_csv(csv, csv_path)) return BENCH_EXIT_FAILED;
  return ok ? 0 : BENCH_EXIT_FAILED;
}
