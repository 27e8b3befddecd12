/*
 * sk_mix_u32(): lowbias32 (C. Wellons), an integer hash whose output bits all depend on every input bit,
 * on the host and, in .cu files, on the device. The tests (sk_test.h) and the benchmarks (bench_common.h)
 * derive inputs from it: values a kernel and its host reference both compute, and hashes of results.
 * Not part of samplekit's API: test and benchmark scaffolding only.
 */
#ifndef SAMPLEKIT_TESTS_SK_MIX_H
#define SAMPLEKIT_TESTS_SK_MIX_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SK_MIX_HOST_DEVICE __host__ __device__
#else
#define SK_MIX_HOST_DEVICE
#endif

static SK_MIX_HOST_DEVICE inline uint32_t sk_mix_u32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

#endif /* SAMPLEKIT_TESTS_SK_MIX_H */
