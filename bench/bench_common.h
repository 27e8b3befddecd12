// Shared by the benchmarks: exit codes, error checks that say which call failed and where, argument
// parsing, hashes, the report's header line and CSV file, and timing. Define BENCH_NAME (the program's
// name, for messages) before including this. CUDA C++ only (nvcc): bench_time_events is a template.
#ifndef SAMPLEKIT_BENCH_COMMON_H
#define SAMPLEKIT_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "samplekit/sk_device.h"
#include "samplekit/sk_status.h"
#include "../tests/sk_mix.h"  // sk_mix_u32(), the tests' hash

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_common.h"
#endif

// Exit codes: 77 is ctest's SKIP_RETURN_CODE, used when there is no GPU to run on.
#define BENCH_EXIT_FAILED 1  // a check, a CUDA call or an output file failed
#define BENCH_EXIT_USAGE 2
#define BENCH_EXIT_NO_GPU 77

// A benchmark cannot recover from a failed call: report it and exit.
static inline void bench_cuda_check(cudaError_t err, const char *call, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "%s: CUDA error %s (%s)\n  in %s\n  at %s:%d\n", BENCH_NAME, cudaGetErrorName(err),
          cudaGetErrorString(err), call, file, line);
  exit(BENCH_EXIT_FAILED);
}
#define BENCH_CUDA(call) bench_cuda_check((call), #call, __FILE__, __LINE__)

static inline void bench_sk_check(sk_status st, const char *call, const char *file, int line) {
  if (st == SK_SUCCESS) return;
  fprintf(stderr, "%s: %s returned %s (%s; CUDA: %s)\n  at %s:%d\n", BENCH_NAME, call, sk_status_name(st),
          sk_status_string(st), sk_last_cuda_error_string(), file, line);
  exit(BENCH_EXIT_FAILED);
}
#define BENCH_SK(call) bench_sk_check((call), #call, __FILE__, __LINE__)

// ---------------------------------------------------------------------------------------------------
// Hashes: inputs are pure functions of an index and a seed, so any element can be recomputed.

// splitmix64's finaliser: every output bit depends on every input bit.
static __host__ __device__ inline uint64_t bench_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// splitmix64 (S. Vigna): the next 64 random bits of the sequence that *state walks through.
static inline uint64_t bench_splitmix64(uint64_t *state) { return bench_mix64(*state += 0x9E3779B97F4A7C15ull); }

// The number of bits needed to write v: 0 for 0, else floor(log2(v)) + 1.
static inline int bench_bit_length(uint32_t v) {
  int bits = 0;
  for (; v != 0u; v >>= 1) ++bits;
  return bits;
}

// ---------------------------------------------------------------------------------------------------
// The device.

// Makes `device` current. Without a usable GPU it says why and exits with the skip code (77); a
// device number past the count is a usage error (exit 2).
static inline void bench_select_device(int device) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    fprintf(stderr, "%s: no usable CUDA GPU found (%s); skipping\n", BENCH_NAME,
            err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount returned 0 devices");
    exit(BENCH_EXIT_NO_GPU);
  }
  if (device < 0 || device >= count) {
    fprintf(stderr, "%s: --device %d, but only %d device(s) found\n", BENCH_NAME, device, count);
    exit(BENCH_EXIT_USAGE);
  }
  bench_cuda_check(cudaSetDevice(device), "cudaSetDevice(device)", __FILE__, __LINE__);
}

// ---------------------------------------------------------------------------------------------------
// Command line. `usage` is the program's own usage printer (to stdout for --help, to stderr with an
// error).

// A whole decimal integer in [min, max], or false.
static inline bool bench_parse_int(const char *s, int min, int max, int *out) {
  char *end = NULL;
  const long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > max) return false;
  *out = (int)v;
  return true;
}

// The same for a long long.
static inline bool bench_parse_ll(const char *s, long long min, long long max, long long *out) {
  char *end = NULL;
  const long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

// A value the option does not accept: say which, print the usage to stderr unless `usage` is NULL,
// exit 2.
static inline void bench_bad_value(const char *option, const char *value, void (*usage)(FILE *)) {
  fprintf(stderr, "%s: bad value '%s' for %s\n", BENCH_NAME, value, option);
  if (usage != NULL) usage(stderr);
  exit(BENCH_EXIT_USAGE);
}

// A comma-separated list of 1 to max_count integers in [min, max] into out; the count. Empty items
// are skipped (strtok), and only the first 511 characters of value are read. Anything else is a bad
// value (bench_bad_value, with the usage).
static inline int bench_parse_list(const char *option, const char *value, long long min, long long max,
                                   long long *out, int max_count, void (*usage)(FILE *)) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", value);
  int count = 0;
  for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
    long long v = 0;
    if (count == max_count || !bench_parse_ll(tok, min, max, &v)) bench_bad_value(option, value, usage);
    out[count++] = v;
  }
  if (count == 0) bench_bad_value(option, value, usage);
  return count;
}

// The options every benchmark reads the same way: --help or -h (the usage to stdout, exit 0) and
// --csv FILE (into *csv_path). True when argv[*i] was one of them, with *i moved onto its value;
// false for anything else, --csv without a value included (left to bench_unknown_option).
static inline bool bench_common_option(int argc, char **argv, int *i, void (*usage)(FILE *), const char **csv_path) {
  const char *a = argv[*i];
  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
    usage(stdout);
    exit(EXIT_SUCCESS);
  }
  if (strcmp(a, "--csv") == 0 && *i + 1 < argc) {
    *csv_path = argv[++*i];
    return true;
  }
  return false;
}

// An integer option: true when argv[*i] is `name` and a value follows it, which must be an integer in
// [min, max] (else bench_bad_value(), exit 2): into *out, with *i moved onto it. False otherwise.
static inline bool bench_int_option(int argc, char **argv, int *i, const char *name, int min, int max, int *out,
                                    void (*usage)(FILE *)) {
  if (strcmp(argv[*i], name) != 0 || *i + 1 >= argc) return false;
  ++*i;
  if (!bench_parse_int(argv[*i], min, max, out)) bench_bad_value(name, argv[*i], usage);
  return true;
}

// --device D, the CUDA device number (0 to 65,536), as bench_int_option().
static inline bool bench_device_option(int argc, char **argv, int *i, int *device, void (*usage)(FILE *)) {
  return bench_int_option(argc, argv, i, "--device", 0, 1 << 16, device, usage);
}

// An option the program does not know, or one whose value is missing: say so, the usage to stderr,
// exit 2.
static inline void bench_unknown_option(const char *arg, void (*usage)(FILE *)) {
  fprintf(stderr, "%s: unknown or incomplete option '%s'\n", BENCH_NAME, arg);
  usage(stderr);
  exit(BENCH_EXIT_USAGE);
}

// The whole command line of a chain benchmark (the warp and block pairs): --iters N (1 to max_iters, into
// *iters), --device D (into *device), --csv FILE and --help; anything else is bench_unknown_option().
static inline void bench_parse_chain_options(int argc, char **argv, void (*usage)(FILE *), int max_iters,
                                             int *iters, int *device, const char **csv_path) {
  for (int i = 1; i < argc; ++i) {
    if (!bench_common_option(argc, argv, &i, usage, csv_path) &&
        !bench_int_option(argc, argv, &i, "--iters", 1, max_iters, iters, usage) &&
        !bench_device_option(argc, argv, &i, device, usage))
      bench_unknown_option(argv[i], usage);
  }
}

// ---------------------------------------------------------------------------------------------------
// Report.

// "date: <UTC date>" and "command: <argv>" on two lines: RESULTS.md asks for both with every figure.
static inline void bench_print_date_and_command(int argc, char **argv) {
  const time_t now = time(NULL);
  char date[32] = "unknown";
  struct tm utc;
  if (gmtime_r(&now, &utc) != NULL) strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &utc);
  printf("date: %s\ncommand:", date);
  for (int i = 0; i < argc; ++i) printf(" %s", argv[i]);
  printf("\n");
}

// "GPU <n>: <name>, compute capability, SMs, peak SM clock, memory, L2; driver, nvcc": what RESULTS.md
// asks to name with every figure, the same line in every benchmark.
static inline void bench_print_gpu(int device) {
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  int clock_khz = 0, driver = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  BENCH_CUDA(cudaDriverGetVersion(&driver));
  printf("GPU %d: %s, compute capability %d.%d, %d SMs, peak SM clock %d MHz, %.1f GiB, L2 %.1f MiB; CUDA driver "
         "%d.%d, nvcc %d.%d\n",
         device, prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
         (double)prop.totalGlobalMem / (double)(1u << 30), prop.l2CacheSize / (double)(1u << 20), driver / 1000,
         driver % 1000 / 10, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
}

// The CSV file of --csv: opened for writing, or NULL after saying why.
static inline FILE *bench_open_csv(const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL) fprintf(stderr, "%s: cannot open %s for writing\n", BENCH_NAME, path);
  return f;
}

// Closes a file from bench_open_csv; false (after saying so) when not everything reached it.
static inline bool bench_close_csv(FILE *f, const char *path) {
  if (fclose(f) == 0) return true;
  fprintf(stderr, "%s: error writing %s\n", BENCH_NAME, path);
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Timing.

// A wall clock for host work (CLOCK_MONOTONIC), in ms.
static inline double bench_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

typedef struct bench_stats {
  double median_ms, min_ms, max_ms;
} bench_stats;

static inline int bench_detail_compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// The median (the mean of the middle two when n is even), min and max of n >= 1 times; sorts ms.
static inline bench_stats bench_stats_of(double *ms, size_t n) {
  qsort(ms, n, sizeof *ms, bench_detail_compare_double);
  bench_stats s;
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  s.min_ms = ms[0];
  s.max_ms = ms[n - 1];
  return s;
}

// `warmup` untimed runs, then `runs` >= 1 runs each between its own pair of events, queued back to
// back on the default stream (no host synchronisation between them); launch(r) gets the run's index,
// the warm-up runs counted first (to rotate inputs). A fault during the runs exits here.
template <class Launch>
static bench_stats bench_time_events(int warmup, int runs, Launch launch) {
  cudaEvent_t *start = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * (size_t)runs);
  cudaEvent_t *stop = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * (size_t)runs);
  double *ms = (double *)malloc(sizeof(double) * (size_t)runs);
  if (start == NULL || stop == NULL || ms == NULL) {
    fprintf(stderr, "%s: out of host memory for %d timed runs\n", BENCH_NAME, runs);
    exit(BENCH_EXIT_FAILED);
  }
  for (int i = 0; i < runs; ++i) {
    BENCH_CUDA(cudaEventCreate(&start[i]));
    BENCH_CUDA(cudaEventCreate(&stop[i]));
  }
  for (int i = 0; i < warmup; ++i) launch(i);
  for (int i = 0; i < runs; ++i) {
    BENCH_CUDA(cudaEventRecord(start[i], 0));
    launch(warmup + i);
    BENCH_CUDA(cudaEventRecord(stop[i], 0));
  }
  BENCH_CUDA(cudaEventSynchronize(stop[runs - 1]));
  BENCH_CUDA(cudaGetLastError());  // a fault during the runs shows here
  for (int i = 0; i < runs; ++i) {
    float f = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&f, start[i], stop[i]));
    ms[i] = f;
    BENCH_CUDA(cudaEventDestroy(start[i]));
    BENCH_CUDA(cudaEventDestroy(stop[i]));
  }
  const bench_stats s = bench_stats_of(ms, (size_t)runs);
  free(start);
  free(stop);
  free(ms);
  return s;
}

// The copy ceiling: cudaMemcpyAsync of `bytes` device to device, timed by bench_time_events. The rate
// to compare with counts the bytes read and written: 2 bytes / median time.
static inline bench_stats bench_time_device_copy(size_t bytes, int warmup, int runs) {
  void *src, *dst;
  BENCH_CUDA(cudaMalloc(&src, bytes));
  BENCH_CUDA(cudaMalloc(&dst, bytes));
  BENCH_CUDA(cudaMemset(src, 1, bytes));
  const bench_stats s = bench_time_events(
      warmup, runs, [&](int) { BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)); });
  BENCH_CUDA(cudaFree(src));
  BENCH_CUDA(cudaFree(dst));
  return s;
}

#endif  // SAMPLEKIT_BENCH_COMMON_H
