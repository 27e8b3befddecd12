// Tests sk_block_sum_f64, sk_block_sum_to_all_f64 and sk_block_sum_array_f64 against the host reference
// (tests/ref/warp_ref.c: the halving tree written as its definition), bit for bit: block sizes 1 to 1024
// (powers of two, one more and one less, primes, 1-D and 2-D blocks), storage sized 1024, 256 and 100,
// the value kinds of warp_cases.h in double, a second call on the same storage, array sums of 0 to 8079
// values; a planted bug (the block's values added serially) that the comparison must catch; and the
// documentation's device-wide sum. With --host: the reference against serial sums of integers, against
// the warp butterfly (T = 32), and the planted-bug control on the host.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/warp_ref.h"
#include "samplekit/block_sum.cuh"
#include "sk_test.h"
#include "warp_cases.h"

//! [block_sum_usage]
// A device-wide sum in a fixed order: each block of 256 threads writes the sum of its values, then one
// block adds the partial sums. No atomics: the same bits on every run.
constexpr int kUsageThreads = 256;

__global__ void example_partials(const double *x, int64_t n, double *partials) {
  __shared__ sk_block_sum_storage_f64<kUsageThreads> storage;
  const int64_t i = (int64_t)blockIdx.x * kUsageThreads + threadIdx.x;
  const double s = sk_block_sum_f64(&storage, (int)threadIdx.x, kUsageThreads, i < n ? x[i] : 0.0);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void example_total(const double *partials, int64_t num_partials, double *total) {
  __shared__ sk_block_sum_storage_f64<kUsageThreads> storage;
  const double s = sk_block_sum_array_f64(&storage, (int)threadIdx.x, kUsageThreads, partials, num_partials);
  if (threadIdx.x == 0) *total = s;
}
//! [block_sum_usage]

static const int kThreadCounts[] = {1,   2,   3,   5,   16,  31,  32,  33,  48,  63,  64,  65,  96,   100, 127,
                                    128, 129, 200, 255, 256, 257, 500, 511, 512, 513, 777, 1000, 1023, 1024};
enum {
  kNumThreadCounts = sizeof kThreadCounts / sizeof kThreadCounts[0],
  kBlocksPerCase = 4 * SK_TEST_VALUE_KINDS,  // every kind, four times
  kArrayMax = 3 * 1024 + 7 + 5000,
  kOutputs = 4,
  kNumArrayLengths = 7
};
static const char *const kOutputNames[kOutputs + 1] = {"sum", "second sum (storage reused)", "array sum",
                                                       "to_all (thread 0)", "to_all"};

// The kinds of warp_cases.h in double: 53-bit uniforms (another order shows in the last bits), a skew
// of 1e300:1, subnormals.
static void fill_f64(double *v, int n, int kind, uint64_t *rng) {
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) {
    const double u = (double)(sk_test_rand_u64(rng) >> 11) * 0x1p-53;
    switch (kind) {
      case 0: v[i] = u; break;
      case 1: v[i] = 2.0 * u - 1.0; break;
      case 2: v[i] = 0.1; break;
      case 3: v[i] = i == hot ? 1.0 : 0.0; break;
      case 4: v[i] = u < 0.1 ? 1e300 * (u + 0.5) : u; break;
      case 5: v[i] = u < 0.5 ? 1e-310 * u : 1e-300 * u; break;
      case 6: v[i] = (double)(sk_test_rand_u32(rng) % 1000u); break;
      default: v[i] = 0.0; break;
    }
  }
}

static int64_t array_length(int b, int num_threads) {
  const int64_t lengths[kNumArrayLengths] = {0, 1, num_threads - 1, num_threads, num_threads + 1,
                                             3 * (int64_t)num_threads + 7, 5000};
  return lengths[b % kNumArrayLengths];
}

static uint64_t f64_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

// Block b: values in[b T ..], array arr[b kArrayMax ..] of lengths[b]. out[b kOutputs + o]: the sum, a
// second sum on the same storage of the values in reverse thread order, the array sum, to_all's value in
// thread 0; all[b T + i]: to_all's value in thread i; planted[b]: the values added serially (the bug).
template <int kMaxThreads>
__global__ void block_sum_cases(const double *in, const double *arr, const int64_t *lengths, double *out,
                                double *all, double *planted) {
  __shared__ sk_block_sum_storage_f64<kMaxThreads> storage;
  __shared__ double serial_slots[kMaxThreads];
  const int T = (int)(blockDim.x * blockDim.y);
  const int thread = (int)(threadIdx.x + threadIdx.y * blockDim.x);
  const size_t b = blockIdx.x;
  const double x = in[b * T + thread];
  const double sum = sk_block_sum_f64(&storage, thread, T, x);
  if (thread == 0) out[b * kOutputs] = sum;
  __syncthreads();  // before the storage is used again
  const double second = sk_block_sum_f64(&storage, thread, T, in[b * T + (T - 1 - thread)]);
  if (thread == 0) out[b * kOutputs + 1] = second;
  __syncthreads();
  const double array = sk_block_sum_array_f64(&storage, thread, T, arr + b * kArrayMax, lengths[b]);
  if (thread == 0) out[b * kOutputs + 2] = array;
  __syncthreads();
  const double everyone = sk_block_sum_to_all_f64(&storage, thread, T, x);
  all[b * T + thread] = everyone;
  if (thread == 0) out[b * kOutputs + 3] = everyone;
  // The planted bug: the same values added in another (serial) order.
  serial_slots[thread] = x;
  __syncthreads();
  if (thread == 0) {
    double s = serial_slots[0];
    for (int i = 1; i < T; ++i) s = __dadd_rn(s, serial_slots[i]);
    planted[b] = s;
  }
}

// One block size and one storage size: every kind, four times; 2-D blocks (16 x T / 16) when T allows.
template <int kMaxThreads>
static void run_size(int seed, int num_threads, bool two_d, int *planted_caught) {
  const int B = kBlocksPerCase, T = num_threads;
  uint64_t rng = 0xb10c0000u + (uint64_t)seed * 7919u + (uint64_t)T * 31u + (two_d ? 1u : 0u);
  double *h_in = (double *)malloc(sizeof(double) * B * T);
  double *h_arr = (double *)malloc(sizeof(double) * B * kArrayMax);
  int64_t h_len[kBlocksPerCase];
  double *h_out = (double *)malloc(sizeof(double) * B * kOutputs), *h_all = (double *)malloc(sizeof(double) * B * T);
  double h_planted[kBlocksPerCase];
  for (int b = 0; b < B; ++b) {
    fill_f64(h_in + (size_t)b * T, T, b % SK_TEST_VALUE_KINDS, &rng);
    h_len[b] = array_length(b, T);
    fill_f64(h_arr + (size_t)b * kArrayMax, (int)h_len[b], b % SK_TEST_VALUE_KINDS, &rng);
  }
  double *d_in, *d_arr, *d_out, *d_all, *d_planted;
  int64_t *d_len;
  SK_CHECK_CUDA(cudaMalloc(&d_in, sizeof(double) * B * T));
  SK_CHECK_CUDA(cudaMalloc(&d_arr, sizeof(double) * B * kArrayMax));
  SK_CHECK_CUDA(cudaMalloc(&d_len, sizeof h_len));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(double) * B * kOutputs));
  SK_CHECK_CUDA(cudaMalloc(&d_all, sizeof(double) * B * T));
  SK_CHECK_CUDA(cudaMalloc(&d_planted, sizeof h_planted));
  SK_CHECK_CUDA(cudaMemcpy(d_in, h_in, sizeof(double) * B * T, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_arr, h_arr, sizeof(double) * B * kArrayMax, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_len, h_len, sizeof h_len, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(double) * B * kOutputs));
  SK_CHECK_CUDA(cudaMemset(d_all, SK_TEST_POISON_BYTE, sizeof(double) * B * T));
  const dim3 block = two_d ? dim3(16, (unsigned)T / 16) : dim3((unsigned)T);
  block_sum_cases<kMaxThreads><<<B, block>>>(d_in, d_arr, d_len, d_out, d_all, d_planted);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(double) * B * kOutputs, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_all, d_all, sizeof(double) * B * T, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_planted, d_planted, sizeof h_planted, cudaMemcpyDeviceToHost));

  double *reversed = (double *)malloc(sizeof(double) * T);
  for (int b = 0; b < B; ++b) {
    const double *in = h_in + (size_t)b * T;
    for (int i = 0; i < T; ++i) reversed[i] = in[T - 1 - i];
    const double sum = sk_ref_block_sum_f64(in, T);
    const double want[kOutputs] = {sum, sk_ref_block_sum_f64(reversed, T),
                                   sk_ref_block_sum_array_f64(h_arr + (size_t)b * kArrayMax, h_len[b], T), sum};
    for (int o = 0; o < kOutputs; ++o) {
      const double got = h_out[b * kOutputs + o];
      sk_test_context("seed=%d T=%d%s storage=%d block=%d values=%s array n=%lld output=%s", seed, T,
                      two_d ? " (16 x T/16)" : "", kMaxThreads, b, sk_test_value_kind_names[b % SK_TEST_VALUE_KINDS],
                      (long long)h_len[b], kOutputNames[o]);
      SK_CHECK(f64_bits(got) == f64_bits(want[o]), "got %.17g (0x%016llx), want %.17g (0x%016llx)", got,
               (unsigned long long)f64_bits(got), want[o], (unsigned long long)f64_bits(want[o]));
    }
    int bad = -1;
    for (int i = 0; i < T && bad < 0; ++i)
      if (f64_bits(h_all[(size_t)b * T + i]) != f64_bits(sum)) bad = i;
    sk_test_context("seed=%d T=%d storage=%d block=%d output=%s", seed, T, kMaxThreads, b, kOutputNames[kOutputs]);
    SK_CHECK(bad < 0, "thread %d got %.17g, want %.17g", bad, bad >= 0 ? h_all[(size_t)b * T + bad] : 0.0, sum);
    *planted_caught += f64_bits(h_planted[b]) != f64_bits(sum);
  }
  free(reversed);
  SK_CHECK_CUDA(cudaFree(d_in));
  SK_CHECK_CUDA(cudaFree(d_arr));
  SK_CHECK_CUDA(cudaFree(d_len));
  SK_CHECK_CUDA(cudaFree(d_out));
  SK_CHECK_CUDA(cudaFree(d_all));
  SK_CHECK_CUDA(cudaFree(d_planted));
  free(h_in);
  free(h_arr);
  free(h_out);
  free(h_all);
}

static void test_device(int seed) {
  int planted_caught = 0;
  for (int t = 0; t < kNumThreadCounts; ++t) {
    const int T = kThreadCounts[t];
    run_size<1024>(seed, T, false, &planted_caught);
    if (T <= 256) run_size<256>(seed, T, false, &planted_caught);
    if (T <= 100) run_size<100>(seed, T, false, &planted_caught);
    if (T % 16 == 0) run_size<1024>(seed, T, true, &planted_caught);
  }
  sk_test_context("seed=%d planted bug (serial order)", seed);
  SK_CHECK(planted_caught > 0, "a serial sum matched the halving tree's reference on every block");
}

// The reference against definitions that need no replay, and the planted-bug control on the host.
static void test_reference(void) {
  uint64_t rng = 4242;
  int serial_differs = 0;
  double *v = (double *)malloc(sizeof(double) * kArrayMax);
  for (int t = 0; t < kNumThreadCounts; ++t) {
    const int T = kThreadCounts[t];
    sk_test_context("reference self-check T=%d", T);
    // Integers below 2^53 / 8079 sum exactly in any order.
    fill_f64(v, T, 6, &rng);
    double serial = 0.0;
    for (int i = 0; i < T; ++i) serial += v[i];
    SK_CHECK(sk_ref_block_sum_f64(v, T) == serial, "tree of integers %.17g, serial %.17g",
             sk_ref_block_sum_f64(v, T), serial);
    for (int b = 0; b < kNumArrayLengths; ++b) {
      const int64_t n = array_length(b, T);
      fill_f64(v, (int)n, 6, &rng);
      serial = 0.0;
      for (int64_t i = 0; i < n; ++i) serial += v[i];
      SK_CHECK(sk_ref_block_sum_array_f64(v, n, T) == serial && f64_bits(sk_ref_block_sum_array_f64(v, 0, T)) == 0u,
               "array of %lld integers: %.17g, serial %.17g", (long long)n, sk_ref_block_sum_array_f64(v, n, T),
               serial);
    }
    // The planted bug on the host: 53-bit uniforms added serially give other bits for some T.
    fill_f64(v, T, 0, &rng);
    serial = v[0];
    for (int i = 1; i < T; ++i) serial += v[i];
    serial_differs += f64_bits(serial) != f64_bits(sk_ref_block_sum_f64(v, T));
  }
  // T = 32: the halving tree is the warp butterfly (what the device uses for its last five levels).
  for (int r = 0; r < 64; ++r) {
    double sums[32];
    fill_f64(v, 32, r % SK_TEST_VALUE_KINDS, &rng);
    sk_ref_warp_sum_f64(0xffffffffu, v, sums);
    sk_test_context("reference: T = 32 against the warp butterfly, values=%s", sk_test_value_kind_names[r % 8]);
    SK_CHECK(f64_bits(sums[0]) == f64_bits(sk_ref_block_sum_f64(v, 32)), "butterfly %.17g, tree %.17g", sums[0],
             sk_ref_block_sum_f64(v, 32));
  }
  // Absent entries are not zeros: -0.0 values keep the sign of the sum.
  for (int T = 1; T <= 40; T += 13) {
    for (int i = 0; i < T; ++i) v[i] = -0.0;
    sk_test_context("reference: %d values of -0.0", T);
    SK_CHECK(f64_bits(sk_ref_block_sum_f64(v, T)) == f64_bits(-0.0), "the sum lost the sign of zero");
  }
  sk_test_context("planted-bug control on the host");
  SK_CHECK(serial_differs > 0, "a serial sum gave the tree's bits for every block size");
  free(v);
}

// -0.0 in every thread: the device must keep the sign (no 0.0 added for absent entries).
__global__ void negative_zero_kernel(double *out) {
  __shared__ sk_block_sum_storage_f64<1024> storage;
  const int thread = (int)threadIdx.x;
  const double s = sk_block_sum_f64(&storage, thread, (int)blockDim.x, -0.0);
  if (thread == 0) out[0] = s;
}

static void test_negative_zero(void) {
  double *d_out, h_out;
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(double)));
  for (int T = 1; T <= 1024; T = T * 3 + 1) {
    negative_zero_kernel<<<1, T>>>(d_out);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(&h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    sk_test_context("-0.0 in %d threads", T);
    SK_CHECK(f64_bits(h_out) == f64_bits(-0.0), "got %g (0x%016llx)", h_out, (unsigned long long)f64_bits(h_out));
  }
  SK_CHECK_CUDA(cudaFree(d_out));
}

// Runs the documentation's device-wide sum and compares it with the reference.
static void test_usage_snippet(void) {
  const int64_t n = 1000003;
  const int64_t blocks = (n + kUsageThreads - 1) / kUsageThreads;
  double *h_x = (double *)malloc(sizeof(double) * blocks * kUsageThreads);
  double *partials = (double *)malloc(sizeof(double) * blocks);
  uint64_t rng = 2024;
  fill_f64(h_x, (int)n, 1, &rng);
  for (int64_t i = n; i < blocks * kUsageThreads; ++i) h_x[i] = 0.0;  // as the kernel's i < n ? x[i] : 0.0
  for (int64_t b = 0; b < blocks; ++b) partials[b] = sk_ref_block_sum_f64(h_x + b * kUsageThreads, kUsageThreads);
  const double want = sk_ref_block_sum_array_f64(partials, blocks, kUsageThreads);
  double *d_x, *d_partials, *d_total, got = 0.0;
  SK_CHECK_CUDA(cudaMalloc(&d_x, sizeof(double) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_partials, sizeof(double) * blocks));
  SK_CHECK_CUDA(cudaMalloc(&d_total, sizeof(double)));
  SK_CHECK_CUDA(cudaMemcpy(d_x, h_x, sizeof(double) * n, cudaMemcpyHostToDevice));
  example_partials<<<(unsigned)blocks, kUsageThreads>>>(d_x, n, d_partials);
  SK_CHECK_LAUNCH();
  example_total<<<1, kUsageThreads>>>(d_partials, blocks, d_total);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
  sk_test_context("usage snippet: device-wide sum of %lld values", (long long)n);
  SK_CHECK(f64_bits(got) == f64_bits(want), "got %.17g, want %.17g", got, want);
  SK_CHECK_CUDA(cudaFree(d_x));
  SK_CHECK_CUDA(cudaFree(d_partials));
  SK_CHECK_CUDA(cudaFree(d_total));
  free(h_x);
  free(partials);
}

int main(int argc, char **argv) {
  test_reference();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    test_negative_zero();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_device(seed);
  }
  return sk_test_finish();
}
