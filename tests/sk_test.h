/*
 * sk_test.h: the small test harness every samplekit test program uses. Plain C (also fine in .cu).
 *
 * - SK_CHECK(cond, fmt, ...) counts a pass or prints a failure with file, line, the current context
 *   (seed, case) and the message; SK_CHECK_CUDA(call) checks a CUDA call (in .cu files).
 * - sk_test_seed_count() is how many seeds a seed loop runs: SK_TEST_SEEDS in the environment, or 8.
 * - sk_test_parse_long(what, text, min, max): a whole number from an argument, or exit 2 saying why.
 * - sk_test_under_sanitizer(): SK_TEST_SANITIZER is set (not "0"); .ci/gpu sets it to the tool's name
 *   under compute-sanitizer, and tests may then leave out their largest inputs (each says which) to
 *   bound the time; the plain run keeps them. sk_test_under_racecheck(): it is "racecheck", which
 *   makes every shared-memory access far slower than the other tools do; tests may then run each
 *   kernel path on fewer variants (each says which). sk_test_progress() prints a line to stderr
 *   under a sanitizer, so that a run cut by a time limit shows how far it got.
 * - sk_test_rand_*() is a seeded splitmix64 stream for inputs (host side; independent of the RNG under test).
 * - sk_mix_u32() (sk_mix.h, shared with the benchmarks) is an integer hash (lowbias32), on the host and,
 *   in .cu files, on the device: for values a kernel and its host reference both derive, and for hashes
 *   of results.
 * - sk_test_require_gpu() exits 77 (ctest's skip code) with the reason when there is no usable GPU.
 * - sk_test_finish() prints "N passed, N failed" alone on the last line and returns the exit code.
 * - sk_test_wants_host_only(argc, argv): true when the program was run with --host (ctest label cpu).
 */
#ifndef SAMPLEKIT_TESTS_SK_TEST_H
#define SAMPLEKIT_TESTS_SK_TEST_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_mix.h"

#define SK_TEST_SKIP_CODE 77
#define SK_TEST_MAX_REPORTED_FAILURES 20

static long sk_test_passed = 0;
static long sk_test_failed = 0;
static char sk_test_context_text[512] = "";

/* Describes the case under test; printed with every failure so that it can be re-run. */
static inline void sk_test_context(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sk_test_context_text, sizeof sk_test_context_text, fmt, ap);
  va_end(ap);
}

static inline int sk_test_check(int ok, const char *file, int line, const char *fmt, ...) {
  if (ok) {
    ++sk_test_passed;
    return 1;
  }
  ++sk_test_failed;
  if (sk_test_failed <= SK_TEST_MAX_REPORTED_FAILURES) {
    va_list ap;
    fprintf(stderr, "FAIL %s:%d [%s] ", file, line, sk_test_context_text);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
  } else if (sk_test_failed == SK_TEST_MAX_REPORTED_FAILURES + 1) {
    fprintf(stderr, "(further failures are counted but not printed)\n");
  }
  return 0;
}

/* Evaluates to 1 when cond holds, so a test can stop comparing a case after its first mismatch. */
#define SK_CHECK(cond, ...) sk_test_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* A whole number in [min, max] from an argument or variable named `what`; anything else (a typo, a
   trailing letter, out of range) prints why and exits 2, rather than running a different test. */
static inline long sk_test_parse_long(const char *what, const char *text, long min, long max) {
  char *end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max) {
    fprintf(stderr, "%s: '%s' is not a whole number in [%ld, %ld]\n", what, text, min, max);
    exit(2);
  }
  return v;
}

static inline int sk_test_seed_count(void) {
  const char *env = getenv("SK_TEST_SEEDS");
  return env != NULL && env[0] != '\0' ? (int)sk_test_parse_long("SK_TEST_SEEDS", env, 1, 1000000) : 8;
}

static inline int sk_test_under_sanitizer(void) {
  const char *env = getenv("SK_TEST_SANITIZER");
  return env != NULL && env[0] != '\0' && !(env[0] == '0' && env[1] == '\0');
}

static inline int sk_test_under_racecheck(void) {
  const char *env = getenv("SK_TEST_SANITIZER");
  return env != NULL && strcmp(env, "racecheck") == 0;
}

static inline void sk_test_progress(const char *fmt, ...) {
  va_list ap;
  if (!sk_test_under_sanitizer()) return;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* splitmix64: a tiny, good, seedable stream for generating test inputs. */
static inline uint64_t sk_test_rand_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline uint32_t sk_test_rand_u32(uint64_t *state) { return (uint32_t)(sk_test_rand_u64(state) >> 32); }

/* Uniform in [0, 1) with 24 bits. */
static inline float sk_test_rand_unit_f32(uint64_t *state) {
  return (float)(sk_test_rand_u32(state) >> 8) * 5.9604644775390625e-8f;
}

/*
 * Upper threshold for a chi-square statistic with `dof` degrees of freedom at false-alarm probability
 * about 1e-7 (z = 5.2 standard normal deviations), by the Wilson-Hilferty approximation, which is
 * accurate to a few percent of the tail probability for dof >= 10: far inside the margin a 1e-7 target
 * leaves for a suite of dozens of such checks to stay below 1e-6.
 */
static inline double sk_test_chi2_threshold(int dof) {
  const double z = 5.2, k = (double)dof, a = 2.0 / (9.0 * k);
  const double c = 1.0 - a + z * sqrt(a);
  return k * c * c * c;
}

/* Pearson's statistic of observed counts against expected counts (cells with expected 0 skipped). */
static inline double sk_test_chi2(const double *observed, const double *expected, int cells) {
  double x = 0.0;
  int i;
  for (i = 0; i < cells; ++i)
    if (expected[i] > 0.0) x += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  return x;
}

static inline uint32_t sk_test_f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

/* Bitwise equality of floats: what "the same numbers" means (and it sees -0.0f versus 0.0f). */
static inline int sk_test_f32_bits_equal(float a, float b) { return sk_test_f32_bits(a) == sk_test_f32_bits(b); }

/* The index of the first difference of two arrays of `count` elements of `size` bytes each (bytes
   compared), or -1 when they are equal. */
static inline int64_t sk_test_first_difference(const void *a, const void *b, int64_t count, size_t size) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  int64_t i;
  if (count <= 0 || memcmp(a, b, (size_t)count * size) == 0) return -1;
  for (i = 0; i < count; ++i)
    if (memcmp(x + (size_t)i * size, y + (size_t)i * size, size) != 0) return i;
  return -1;
}

static inline int sk_test_wants_host_only(int argc, char **argv) {
  int i;
  for (i = 1; i < argc; ++i)
    if (strcmp(argv[i], "--host") == 0) return 1;
  return 0;
}

static inline int sk_test_finish(void) {
  printf("%ld passed, %ld failed\n", sk_test_passed, sk_test_failed);
  return sk_test_failed == 0 && sk_test_passed > 0 ? 0 : 1;
}

#if defined(__CUDACC__)
#include <cuda_runtime_api.h>

static inline void sk_test_require_gpu(void) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    printf("SKIP: no usable CUDA GPU (%s); this test needs one\n",
           err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    exit(SK_TEST_SKIP_CODE);
  }
}

/* A failed CUDA call ends the program: later results would be meaningless. */
#define SK_CHECK_CUDA(call)                                                                  \
  do {                                                                                       \
    const cudaError_t sk_test_err_ = (call);                                                 \
    if (sk_test_err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "FAIL %s:%d [%s] CUDA error %d (%s) in %s\n", __FILE__, __LINE__,      \
              sk_test_context_text, (int)sk_test_err_, cudaGetErrorString(sk_test_err_), #call); \
      ++sk_test_failed;                                                                      \
      exit(sk_test_finish());                                                                \
    }                                                                                        \
  } while (0)

/* After every launch: configuration errors now, faults at the synchronisation. */
#define SK_CHECK_LAUNCH()                    \
  do {                                       \
    SK_CHECK_CUDA(cudaGetLastError());       \
    SK_CHECK_CUDA(cudaDeviceSynchronize());  \
  } while (0)
#endif

#endif /* SAMPLEKIT_TESTS_SK_TEST_H */
