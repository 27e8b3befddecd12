// Tests the counter-based RNG (rng.h): Philox4x32-10 known answers, the mapping of (seed, stream id,
// counter), the exact float ranges, uniformity (with planted failures), bit-for-bit agreement with
// cuRAND's Philox4x32-10 on the GPU, device = host, and determinism over launch shapes.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "samplekit/rng.cuh"
#include "sk_test.h"

//! [rng_usage]
// Token t in iteration `iteration` draws from stream t, block `iteration`: the same numbers whatever
// the launch shape, and the very same numbers on the host.
__global__ void example_token_uniforms(uint64_t seed, int iteration, int num_tokens, float *u) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= num_tokens) return;
  const sk_f32x4 r = sk_rng_uniform4_f32(seed, (uint64_t)t, (uint64_t)iteration);
  u[t] = r.x;  // r.y, r.z and r.w are three more independent uniforms for the same token
}
//! [rng_usage]

// ---------------------------------------------------------------------------------------------
// Host checks (these also run without a GPU)

static int same_u32x4(sk_u32x4 a, sk_u32x4 b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

// Random123's kat_vectors for philox4x32 10: counter (4 words), key (2 words), expected (4 words).
static void test_known_answers(void) {
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
      {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0x408f276du, 0x41c83b0eu,
       0xa20bc7c6u, 0x6d5451fdu},
      {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0xd16cfe09u, 0x94fdccebu,
       0x5001e420u, 0x24126ea1u}};
  for (int v = 0; v < 3; ++v) {
    const sk_u32x4 ctr = {kat[v][0], kat[v][1], kat[v][2], kat[v][3]};
    const sk_u32x4 want = {kat[v][6], kat[v][7], kat[v][8], kat[v][9]};
    const sk_u32x4 got = sk_philox4x32_10(ctr, kat[v][4], kat[v][5]);
    sk_test_context("Random123 known-answer vector %d", v);
    SK_CHECK(same_u32x4(got, want), "got %08x %08x %08x %08x", got.x, got.y, got.z, got.w);
  }
}

// (seed, stream id, counter) -> Philox key and counter words, and index -> word of a block.
static void test_mapping(void) {
  uint64_t rng = 1;
  for (int c = 0; c < 1000; ++c) {
    const uint64_t seed = sk_test_rand_u64(&rng), stream = sk_test_rand_u64(&rng), counter = sk_test_rand_u64(&rng);
    const sk_u32x4 ctr = {(uint32_t)counter, (uint32_t)(counter >> 32), (uint32_t)stream, (uint32_t)(stream >> 32)};
    const sk_u32x4 block = sk_rng_u32x4(seed, stream, counter);
    sk_test_context("mapping case %d", c);
    SK_CHECK(same_u32x4(block, sk_philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32))),
             "sk_rng_u32x4 does not use key = seed, counter = (counter, stream id)");
    const uint64_t index = sk_test_rand_u64(&rng);  // any index; its block is index >> 2
    const sk_u32x4 b = sk_rng_u32x4(seed, stream, index >> 2);
    const uint32_t words[4] = {b.x, b.y, b.z, b.w};
    SK_CHECK(sk_rng_u32(seed, stream, index) == words[index & 3] &&
                 sk_test_f32_bits_equal(sk_rng_uniform_f32(seed, stream, index), sk_rng_unit_f32(words[index & 3])),
             "index %llu is not word %d of block %llu", (unsigned long long)index, (int)(index & 3),
             (unsigned long long)(index >> 2));
  }
}

// Every one of the 2^24 float values: exactly k 2^-24, increasing, below 1; the low 8 bits ignored.
static void test_float_ranges(void) {
  int ok = 1;
  float prev = -1.0f;
  for (uint32_t k = 0; k < (1u << 24); ++k) {
    const float f = sk_rng_unit_f32(k << 8);
    ok &= (double)f == ldexp((double)k, -24) && f > prev && f < 1.0f && sk_rng_unit_f32((k << 8) | 0xffu) == f;
    prev = f;
  }
  sk_test_context("float mapping, all 2^24 values");
  SK_CHECK(ok, "some value is not k * 2^-24, or not increasing, or not below 1");
  SK_CHECK(sk_rng_unit_f32(0) == 0.0f && sk_rng_unit_f32(0xffffffffu) == 1.0f - ldexpf(1.0f, -24),
           "range ends are not 0 and 1 - 2^-24");
  sk_test_context("double mapping");
  SK_CHECK(sk_rng_unit_f64(0, 0) == 0.0 && sk_rng_unit_f64(0xffffffffu, 0xffffffffu) == 1.0 - ldexp(1.0, -53) &&
               sk_rng_unit_f64(0, 1u << 6) == ldexp(1.0, -53) && sk_rng_unit_f64(1u << 5, 0) == ldexp(1.0, -27),
           "range ends or bit positions of the 53-bit mapping are wrong");
}

enum { kBins = 4096, kPairBins = 64 };

// Chi-square statistics of n uniforms: 1-D histogram, and consecutive pairs on a 64 x 64 grid.
static void uniformity_stats(const float *u, size_t n, double *x1, double *x2) {
  static double obs1[kBins], exp1[kBins], obs2[kPairBins * kPairBins], exp2[kPairBins * kPairBins];
  for (int b = 0; b < kBins; ++b) obs1[b] = 0, exp1[b] = (double)n / kBins;
  for (int b = 0; b < kPairBins * kPairBins; ++b) obs2[b] = 0, exp2[b] = (double)(n / 2) / (kPairBins * kPairBins);
  for (size_t i = 0; i < n; ++i) obs1[(int)(u[i] * kBins)] += 1;
  for (size_t i = 0; i + 1 < n; i += 2) obs2[(int)(u[i] * kPairBins) * kPairBins + (int)(u[i + 1] * kPairBins)] += 1;
  *x1 = sk_test_chi2(obs1, exp1, kBins);
  *x2 = sk_test_chi2(obs2, exp2, kPairBins * kPairBins);
}

static void check_uniform(const float *u, size_t n, const char *what) {
  double x1, x2;
  uniformity_stats(u, n, &x1, &x2);
  const double t1 = sk_test_chi2_threshold(kBins - 1), t2 = sk_test_chi2_threshold(kPairBins * kPairBins - 1);
  sk_test_context("uniformity of %s, %zu draws", what, n);
  SK_CHECK(x1 < t1, "1-D chi-square %.1f exceeds %.1f", x1, t1);
  SK_CHECK(x2 < t2, "pairs chi-square %.1f exceeds %.1f", x2, t2);
}

// Uniformity of host draws over several (seed, stream id), bit balance of the raw words, and planted
// defects that the same checks must reject.
static void test_uniformity_host(void) {
  const size_t n = (size_t)1 << 22;
  float *u = (float *)malloc(sizeof(float) * n);
  const uint64_t seeds[3][2] = {{0, 0}, {0x123456789abcdefull, 7}, {~0ull, ~0ull}};
  for (int s = 0; s < 3; ++s) {
    long ones[32] = {0};
    for (size_t i = 0; i < n; ++i) {
      const uint32_t x = sk_rng_u32(seeds[s][0], seeds[s][1], i);
      u[i] = sk_rng_unit_f32(x);
      for (int b = 0; b < 32; ++b) ones[b] += (x >> b) & 1u;
    }
    check_uniform(u, n, "host float uniforms");
    int balanced = 1;
    for (int b = 0; b < 32; ++b) balanced &= fabs((ones[b] - n / 2.0) / sqrt(n / 4.0)) < 5.3;
    SK_CHECK(balanced, "some bit of the raw words is unbalanced beyond 5.3 sigma");
    for (size_t i = 0; i < n; ++i) u[i] = (float)sk_rng_uniform_f64(seeds[s][0], seeds[s][1], i);
    check_uniform(u, n, "host double uniforms (as float)");
  }
  // Planted defects: 1% of the range missing at the top, and each pair's second value equal to the first.
  double x1, x2;
  for (size_t i = 0; i < n; ++i) u[i] = sk_rng_uniform_f32(3, 3, i) * 0.99f;
  uniformity_stats(u, n, &x1, &x2);
  sk_test_context("planted defect: top 1%% of the range missing");
  SK_CHECK(x1 > sk_test_chi2_threshold(kBins - 1), "1-D chi-square %.1f did not reject it", x1);
  for (size_t i = 0; i + 1 < n; i += 2) u[i + 1] = u[i] = sk_rng_uniform_f32(3, 4, i);
  uniformity_stats(u, n, &x1, &x2);
  sk_test_context("planted defect: pairs equal");
  SK_CHECK(x2 > sk_test_chi2_threshold(kPairBins * kPairBins - 1), "pairs chi-square %.1f did not reject it", x2);
  free(u);
}

// ---------------------------------------------------------------------------------------------
// GPU checks

struct StreamCase {
  uint64_t seed, stream, offset;
};
enum { kCurandDraws = 12 };

// cuRAND's own Philox4x32-10: curand() from (seed, subsequence, offset), and curand4() at offset 4c.
__global__ void curand_draws(const StreamCase *cases, int num_cases, uint32_t *out, uint32_t *out4) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= num_cases) return;
  curandStatePhilox4_32_10_t state;
  curand_init(cases[c].seed, cases[c].stream, cases[c].offset, &state);
  for (int j = 0; j < kCurandDraws; ++j) out[(size_t)c * kCurandDraws + j] = curand(&state);
  curand_init(cases[c].seed, cases[c].stream, 4 * (cases[c].offset >> 2), &state);
  const uint4 r = curand4(&state);
  out4[4 * c] = r.x, out4[4 * c + 1] = r.y, out4[4 * c + 2] = r.z, out4[4 * c + 3] = r.w;
}

// samplekit's functions on the device (the __umulhi path), for comparison with the host path.
__global__ void samplekit_draws(const StreamCase *cases, int num_cases, uint32_t *out, double *out_f64) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= num_cases) return;
  for (int j = 0; j < kCurandDraws; ++j)
    out[(size_t)c * kCurandDraws + j] = sk_rng_u32(cases[c].seed, cases[c].stream, cases[c].offset + j);
  out_f64[c] = sk_rng_uniform_f64(cases[c].seed, cases[c].stream, cases[c].offset);
}

static int make_stream_cases(StreamCase *cases, int capacity) {
  const uint64_t edges[] = {0, 1, 2, 0xffffffffull, 0x100000000ull, 0x8000000000000000ull, ~0ull - 100};
  const int num_edges = sizeof edges / sizeof edges[0];
  int n = 0;
  uint64_t rng = 2718;
  // Every combination of edge seeds and stream ids; offsets where the counter's low word carries.
  for (int a = 0; a < num_edges; ++a)
    for (int b = 0; b < num_edges; ++b)
      cases[n++] = {edges[a], edges[b], 4 * 0xffffffffull - 6 + (uint64_t)((a + b) % 8)};
  for (int k = 0; k < 16; ++k) cases[n++] = {42, 9, 4 * 0xffffffffull - 8 + (uint64_t)k};
  while (n < capacity)
    cases[n++] = {sk_test_rand_u64(&rng), sk_test_rand_u64(&rng), sk_test_rand_u64(&rng) >> (sk_test_rand_u32(&rng) % 40)};
  return n;
}

static void test_against_curand(void) {
  enum { kCases = 4096 };
  static StreamCase cases[kCases];
  static uint32_t h_out[kCases * kCurandDraws], h_out4[kCases * 4], h_sk[kCases * kCurandDraws];
  static double h_f64[kCases];
  const int n = make_stream_cases(cases, kCases);
  StreamCase *d_cases;
  uint32_t *d_out, *d_out4, *d_sk;
  double *d_f64;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof cases));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMalloc(&d_out4, sizeof h_out4));
  SK_CHECK_CUDA(cudaMalloc(&d_sk, sizeof h_sk));
  SK_CHECK_CUDA(cudaMalloc(&d_f64, sizeof h_f64));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof cases, cudaMemcpyHostToDevice));
  curand_draws<<<(n + 127) / 128, 128>>>(d_cases, n, d_out, d_out4);
  SK_CHECK_LAUNCH();
  samplekit_draws<<<(n + 127) / 128, 128>>>(d_cases, n, d_sk, d_f64);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_out4, d_out4, sizeof h_out4, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_sk, d_sk, sizeof h_sk, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_f64, d_f64, sizeof h_f64, cudaMemcpyDeviceToHost));
  for (int c = 0; c < n; ++c) {
    sk_test_context("seed=%llu stream=%llu offset=%llu", (unsigned long long)cases[c].seed,
                    (unsigned long long)cases[c].stream, (unsigned long long)cases[c].offset);
    int bad = 0, bad_device = 0;
    while (bad < kCurandDraws &&
           h_out[c * kCurandDraws + bad] == sk_rng_u32(cases[c].seed, cases[c].stream, cases[c].offset + bad))
      ++bad;
    SK_CHECK(bad == kCurandDraws, "curand() draw %d: cuRAND %08x, samplekit (host) %08x", bad,
             bad < kCurandDraws ? h_out[c * kCurandDraws + bad] : 0u,
             sk_rng_u32(cases[c].seed, cases[c].stream, cases[c].offset + bad));
    const sk_u32x4 b = sk_rng_u32x4(cases[c].seed, cases[c].stream, cases[c].offset >> 2);
    SK_CHECK(h_out4[4 * c] == b.x && h_out4[4 * c + 1] == b.y && h_out4[4 * c + 2] == b.z && h_out4[4 * c + 3] == b.w,
             "curand4() differs from sk_rng_u32x4");
    while (bad_device < kCurandDraws && h_sk[c * kCurandDraws + bad_device] == h_out[c * kCurandDraws + bad_device])
      ++bad_device;
    SK_CHECK(bad_device == kCurandDraws, "samplekit on the device differs from cuRAND at draw %d", bad_device);
    SK_CHECK(h_f64[c] == sk_rng_uniform_f64(cases[c].seed, cases[c].stream, cases[c].offset),
             "sk_rng_uniform_f64 differs between device and host");
  }
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_out));
  SK_CHECK_CUDA(cudaFree(d_out4));
  SK_CHECK_CUDA(cudaFree(d_sk));
  SK_CHECK_CUDA(cudaFree(d_f64));
}

// The same index range computed under several launch shapes gives the same bits, equal to the host's.
__global__ void fill_by_shape(uint64_t seed, uint64_t stream, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = sk_rng_uniform_f32(seed, stream, (uint64_t)i);
}

static void test_launch_shapes(void) {
  const int n = 1 << 20;
  const int shapes[][2] = {{1, 32}, {3, 96}, {1024, 256}, {80, 1024}, {4096, 64}};
  float *h = (float *)malloc(sizeof(float) * n), *d;
  SK_CHECK_CUDA(cudaMalloc(&d, sizeof(float) * n));
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    SK_CHECK_CUDA(cudaMemset(d, 0xff, sizeof(float) * n));
    fill_by_shape<<<shapes[s][0], shapes[s][1]>>>(77, 5, d, n);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost));
    int bad = 0;
    while (bad < n && sk_test_f32_bits_equal(h[bad], sk_rng_uniform_f32(77, 5, (uint64_t)bad))) ++bad;
    sk_test_context("launch shape %d x %d", shapes[s][0], shapes[s][1]);
    SK_CHECK(bad == n, "index %d differs from the host", bad);
  }
  SK_CHECK_CUDA(cudaFree(d));
  free(h);
}

// sk_rng_fill_uniform_f32 against the host, for unaligned starts, odd sizes and a counter-word carry;
// 8 guard floats after the range must stay untouched.
static void test_fill_api(void) {
  const uint64_t firsts[] = {0, 1, 2, 3, 5, 1000003, 4 * 0xffffffffull - 3};
  const size_t sizes[] = {1, 2, 3, 4, 5, 31, 1000, ((size_t)1 << 20) + 3};
  const size_t max_n = ((size_t)1 << 20) + 3, guard = 8;
  float *h = (float *)malloc(sizeof(float) * (max_n + guard)), *d;
  SK_CHECK_CUDA(cudaMalloc(&d, sizeof(float) * (max_n + guard)));
  for (size_t a = 0; a < sizeof firsts / sizeof firsts[0]; ++a)
    for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; ++b) {
      const size_t n = sizes[b];
      SK_CHECK_CUDA(cudaMemset(d, 0xff, sizeof(float) * (n + guard)));
      sk_test_context("sk_rng_fill_uniform_f32 first=%llu num=%zu", (unsigned long long)firsts[a], n);
      const sk_status st = sk_rng_fill_uniform_f32(11, 12, firsts[a], d, n, 0);
      SK_CHECK(st == SK_SUCCESS, "returned %s", sk_status_name(st));
      SK_CHECK_LAUNCH();
      SK_CHECK_CUDA(cudaMemcpy(h, d, sizeof(float) * (n + guard), cudaMemcpyDeviceToHost));
      size_t bad = 0;
      while (bad < n && sk_test_f32_bits_equal(h[bad], sk_rng_uniform_f32(11, 12, firsts[a] + bad))) ++bad;
      SK_CHECK(bad == n, "index %zu differs from the host", bad);
      int guard_ok = 1;
      for (size_t g = 0; g < guard; ++g) guard_ok &= sk_test_f32_bits(h[n + g]) == 0xffffffffu;
      SK_CHECK(guard_ok, "wrote past the end of the range");
    }
  SK_CHECK_CUDA(cudaFree(d));
  free(h);
}

static void test_uniformity_device(void) {
  const size_t n = (size_t)1 << 24;
  float *h = (float *)malloc(sizeof(float) * n), *d;
  SK_CHECK_CUDA(cudaMalloc(&d, sizeof(float) * n));
  const sk_status st = sk_rng_fill_uniform_f32(2026, 11, 0, d, n, 0);
  sk_test_context("device uniformity");
  SK_CHECK(st == SK_SUCCESS, "sk_rng_fill_uniform_f32 returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost));
  check_uniform(h, n, "device float uniforms");
  SK_CHECK_CUDA(cudaFree(d));
  free(h);
}

static void test_usage_snippet(void) {
  enum { kTokens = 1000 };
  float h[kTokens], *d;
  SK_CHECK_CUDA(cudaMalloc(&d, sizeof h));
  example_token_uniforms<<<(kTokens + 255) / 256, 256>>>(123, 4, kTokens, d);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  int bad = 0;
  while (bad < kTokens && sk_test_f32_bits_equal(h[bad], sk_rng_uniform4_f32(123, (uint64_t)bad, 4).x)) ++bad;
  sk_test_context("usage snippet");
  SK_CHECK(bad == kTokens, "token %d differs from the host", bad);
  SK_CHECK_CUDA(cudaFree(d));
}

int main(int argc, char **argv) {
  test_known_answers();
  test_mapping();
  test_float_ranges();
  test_uniformity_host();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    test_against_curand();
    test_launch_shapes();
    test_fill_api();
    test_uniformity_device();
  }
  return sk_test_finish();
}
