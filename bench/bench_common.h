// Shared by the benchmarks: exit codes, error checks that say which call failed and where, and
// argument parsing. Define BENCH_NAME (the program's name, for messages) before including this.
#ifndef SAMPLEKIT_BENCH_COMMON_H
#define SAMPLEKIT_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "samplekit/sk_device.h"
#include "samplekit/sk_status.h"

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

// lowbias32 (C. Wellons): a cheap integer hash whose output bits all depend on every input bit.
static __host__ __device__ inline uint32_t bench_hash_u32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

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

// A whole decimal integer in [min, max], or false.
static inline bool bench_parse_int(const char *s, int min, int max, int *out) {
  char *end = NULL;
  const long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > max) return false;
  *out = (int)v;
  return true;
}

#endif  // SAMPLEKIT_BENCH_COMMON_H
