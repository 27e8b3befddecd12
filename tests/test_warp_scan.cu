// Tests sk_warp_{inclusive,exclusive}_sum_{f32,u32,f64}, sk_warp_sum_{f32,u32,f64} and
// sk_warp_sums_f64<N> against the host references, bit for bit, for every mask kind and value kind (see
// warp_cases.h; doubles of the same kinds with 53-bit mantissas), over seeds; and a planted bug (a sum
// added serially instead of in the documented order) that the comparison must catch.
// sk_warp_serial_inclusive_sum_{f64,f32} against a serial host loop, bit for bit, for every mask kind,
// value kind and a carry in; and rows of many lengths walked 32 a round (the usage snippet) against the
// host's running sums, on inputs where the Kogge-Stone order gives other bits (checked on the host).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/warp_ref.h"
#include "samplekit/warp_scan.cuh"
#include "sk_test.h"
#include "warp_cases.h"

enum { kMasks = 256, kOutputs = 6 };

//! [warp_scan_usage]
// Each warp of a block turns its lanes' counts into output offsets (a stream compaction step).
__global__ void example_offsets(const uint32_t *counts, uint32_t *offsets, uint32_t *warp_totals) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t c = counts[i];
  offsets[i] = sk_warp_exclusive_sum_u32(SK_FULL_MASK, c);  // sum of the counts of lower lanes
  const uint32_t total = sk_warp_sum_u32(SK_FULL_MASK, c);  // the same in every lane
  if ((threadIdx.x & 31) == 0) warp_totals[i / 32] = total;
}
//! [warp_scan_usage]

// One warp per case: the lane's case and its index warp * 32 + lane when the warp has a case and the
// lane is in its mask, else -1 (such a lane calls nothing and leaves its outputs poisoned, which the
// host then checks).
__device__ int member_index(const uint32_t *masks, int num_cases, uint32_t *mask) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = sk_lane_id();
  if (warp >= num_cases) return -1;
  *mask = masks[warp];
  return (*mask >> lane) & 1u ? warp * 32 + lane : -1;
}

// Only the lanes of masks[case] call the primitives.
__global__ void scan_cases(const uint32_t *masks, const float *in_f, const uint32_t *in_u, float *out_f,
                           uint32_t *out_u, int num_cases) {
  uint32_t mask;
  const int i = member_index(masks, num_cases, &mask);
  if (i < 0) return;
  const size_t stride = (size_t)num_cases * 32;
  out_f[i] = sk_warp_inclusive_sum_f32(mask, in_f[i]);
  out_f[i + stride] = sk_warp_exclusive_sum_f32(mask, in_f[i]);
  out_f[i + 2 * stride] = sk_warp_sum_f32(mask, in_f[i]);
  out_u[i] = sk_warp_inclusive_sum_u32(mask, in_u[i]);
  out_u[i + stride] = sk_warp_exclusive_sum_u32(mask, in_u[i]);
  out_u[i + 2 * stride] = sk_warp_sum_u32(mask, in_u[i]);
}

static const char *const kOutputNames[kOutputs] = {"inclusive_f32", "exclusive_f32", "sum_f32",
                                                   "inclusive_u32", "exclusive_u32", "sum_u32"};

// Reference outputs (as bits) for one case; entries of non-member lanes are the poison word.
static void reference_case(uint32_t mask, const float *in_f, const uint32_t *in_u, uint32_t ref[kOutputs][32]) {
  float f[3][32];
  uint32_t u[3][32];
  sk_ref_warp_inclusive_sum_f32(mask, in_f, f[0]);
  sk_ref_warp_exclusive_sum_f32(mask, in_f, f[1]);
  sk_ref_warp_sum_f32(mask, in_f, f[2]);
  sk_ref_warp_inclusive_sum_u32(mask, in_u, u[0]);
  sk_ref_warp_exclusive_sum_u32(mask, in_u, u[1]);
  sk_ref_warp_sum_u32(mask, in_u, u[2]);
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < 3; ++k) {
      const int member = (mask >> l) & 1u;
      ref[k][l] = member ? sk_test_f32_bits(f[k][l]) : SK_TEST_POISON_WORD;
      ref[k + 3][l] = member ? u[k][l] : SK_TEST_POISON_WORD;
    }
}

// The references checked against definitions that need no replay: integer sums and, for
// integer-valued floats small enough to be exact, the float sums.
static void test_references(void) {
  uint64_t rng = 12345;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  for (int c = 0; c < num_masks; ++c) {
    float in_f[32], out_f[32];
    uint32_t in_u[32], out_u[32];
    sk_test_fill_f32(in_f, 32, 6, &rng);
    for (int l = 0; l < 32; ++l) in_u[l] = sk_test_rand_u32(&rng);
    sk_test_context("reference self-check mask=%08x", masks[c]);
    sk_ref_warp_inclusive_sum_f32(masks[c], in_f, out_f);
    sk_ref_warp_inclusive_sum_u32(masks[c], in_u, out_u);
    double run_f = 0;
    uint32_t run_u = 0;
    int ok = 1;
    for (int l = 0; l < 32; ++l) {
      if (!((masks[c] >> l) & 1u)) continue;
      run_f += in_f[l];
      run_u += in_u[l];
      ok &= out_f[l] == (float)run_f && out_u[l] == run_u;
    }
    SK_CHECK(ok, "reference inclusive sums disagree with a serial sum");
  }
}

static void test_device(int seed) {
  uint64_t rng = 0x5eed0000u + (uint64_t)seed;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  const int num_cases = num_masks * SK_TEST_VALUE_KINDS;
  const size_t n = (size_t)num_cases * 32;

  uint32_t *h_masks = (uint32_t *)malloc(sizeof(uint32_t) * num_cases);
  float *h_in_f = (float *)malloc(sizeof(float) * n);
  uint32_t *h_in_u = (uint32_t *)malloc(sizeof(uint32_t) * n);
  uint32_t *h_out = (uint32_t *)malloc(sizeof(uint32_t) * n * kOutputs);
  for (int c = 0; c < num_cases; ++c) {
    const int kind = c % SK_TEST_VALUE_KINDS;
    h_masks[c] = masks[c / SK_TEST_VALUE_KINDS];
    sk_test_fill_f32(h_in_f + (size_t)c * 32, 32, kind, &rng);
    for (int l = 0; l < 32; ++l) {
      const uint32_t r = sk_test_rand_u32(&rng);
      // Full range (sums wrap), small counts, and extremes.
      h_in_u[(size_t)c * 32 + l] = kind == 2 ? 0xffffffffu : kind == 3 ? (l == 5) : kind == 7 ? 0u
                                 : kind % 2 ? r : r % 1000u;
    }
  }

  uint32_t *d_masks, *d_in_u, *d_out_u;
  float *d_in_f, *d_out_f;
  SK_CHECK_CUDA(cudaMalloc(&d_masks, sizeof(uint32_t) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_in_f, sizeof(float) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_in_u, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out_f, sizeof(float) * n * 3));
  SK_CHECK_CUDA(cudaMalloc(&d_out_u, sizeof(uint32_t) * n * 3));
  SK_CHECK_CUDA(cudaMemcpy(d_masks, h_masks, sizeof(uint32_t) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in_f, h_in_f, sizeof(float) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in_u, h_in_u, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out_f, SK_TEST_POISON_BYTE, sizeof(float) * n * 3));
  SK_CHECK_CUDA(cudaMemset(d_out_u, SK_TEST_POISON_BYTE, sizeof(uint32_t) * n * 3));

  const int threads = 128;
  scan_cases<<<(num_cases * 32 + threads - 1) / threads, threads>>>(d_masks, d_in_f, d_in_u, d_out_f,
                                                                    d_out_u, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out_f, sizeof(float) * n * 3, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_out + n * 3, d_out_u, sizeof(uint32_t) * n * 3, cudaMemcpyDeviceToHost));

  for (int c = 0; c < num_cases; ++c) {
    uint32_t ref[kOutputs][32];
    reference_case(h_masks[c], h_in_f + (size_t)c * 32, h_in_u + (size_t)c * 32, ref);
    for (int k = 0; k < kOutputs; ++k) {
      sk_test_context("seed=%d case=%d mask=%08x values=%s output=%s", seed, c, h_masks[c],
                      sk_test_value_kind_names[c % SK_TEST_VALUE_KINDS], kOutputNames[k]);
      sk_test_check_lanes(h_out + (size_t)k * n + (size_t)c * 32, ref[k], h_masks[c]);
    }
  }

  SK_CHECK_CUDA(cudaFree(d_masks));
  SK_CHECK_CUDA(cudaFree(d_in_f));
  SK_CHECK_CUDA(cudaFree(d_in_u));
  SK_CHECK_CUDA(cudaFree(d_out_f));
  SK_CHECK_CUDA(cudaFree(d_out_u));
  free(h_masks);
  free(h_in_f);
  free(h_in_u);
  free(h_out);
}

// --- doubles ---------------------------------------------------------------------------------------

enum { kOutputs64 = 4, kSumsMax = 32 };
static const char *const kOutputNames64[kOutputs64] = {"inclusive_f64", "exclusive_f64", "sum_f64",
                                                       "planted_sum_f64"};

// The kinds of warp_cases.h in double: 53-bit uniforms (so that another order of additions shows in the
// last bits), a skew of 1e300:1, and subnormals (below 2.2e-308).
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

static uint64_t f64_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

#define POISON_WORD64 0x7f7f7f7f7f7f7f7full

// First mismatching lane of a case's 32 64-bit outputs (the poison word expected for non-members).
static int first_mismatch64(const uint64_t *got, const uint64_t *want) {
  for (int l = 0; l < 32; ++l)
    if (got[l] != want[l]) return l;
  return -1;
}

static int report64(const uint64_t *got, const uint64_t *want, uint32_t mask) {
  const int bad = first_mismatch64(got, want);
  double g = 0, w = 0;
  if (bad >= 0) {
    memcpy(&g, &got[bad], sizeof g);
    memcpy(&w, &want[bad], sizeof w);
  }
  return SK_CHECK(bad < 0, "first mismatch at lane %d (member %d): got %.17g (0x%016llx), want %.17g (0x%016llx)", bad,
           bad >= 0 ? (int)((mask >> bad) & 1u) : 0, g, bad >= 0 ? (unsigned long long)got[bad] : 0ull, w,
           bad >= 0 ? (unsigned long long)want[bad] : 0ull);
}

// One warp per case, as scan_cases. The planted output is a sum in the wrong order (serial, lane by
// lane), which the comparison with sk_warp_sum_f64's reference must catch.
__global__ void scan_cases_f64(const uint32_t *masks, const double *in, double *out, int num_cases) {
  uint32_t mask;
  const int i = member_index(masks, num_cases, &mask);
  if (i < 0) return;
  const size_t stride = (size_t)num_cases * 32;
  out[i] = sk_warp_inclusive_sum_f64(mask, in[i]);
  out[i + stride] = sk_warp_exclusive_sum_f64(mask, in[i]);
  out[i + 2 * stride] = sk_warp_sum_f64(mask, in[i]);
  double serial = 0.0;
  for (int l = 0; l < 32; ++l)
    if ((mask >> l) & 1u) serial = __dadd_rn(serial, __shfl_sync(mask, in[i], l));
  out[i + 3 * stride] = serial;
}

// sk_warp_sums_f64<N>: lane l of case c holds in[(c * 32 + l) * N + t], t < N.
template <int N>
__global__ void sums_cases_f64(const uint32_t *masks, const double *in, double *out, int num_cases) {
  uint32_t mask;
  const int member = member_index(masks, num_cases, &mask);
  if (member < 0) return;
  const size_t i = (size_t)member * N;
  double v[N];
#pragma unroll
  for (int t = 0; t < N; ++t) v[t] = in[i + t];
  sk_warp_sums_f64(mask, v);
#pragma unroll
  for (int t = 0; t < N; ++t) out[i + t] = v[t];
}

// The double references against definitions that need no replay (integer-valued doubles sum exactly),
// and the planted-bug controls on the host: another order of additions must give other bits on these
// inputs, or the device comparison could not tell the orders apart.
static void test_references_f64(void) {
  uint64_t rng = 54321;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  int serial_differs = 0, scan_order_differs = 0;
  for (int c = 0; c < num_masks; ++c) {
    double in[32], inc[32], exc[32], sum[32];
    fill_f64(in, 32, 6, &rng);
    sk_test_context("f64 reference self-check mask=%08x", masks[c]);
    sk_ref_warp_inclusive_sum_f64(masks[c], in, inc);
    sk_ref_warp_exclusive_sum_f64(masks[c], in, exc);
    sk_ref_warp_sum_f64(masks[c], in, sum);
    double run = 0;
    int ok = 1;
    for (int l = 0; l < 32; ++l) {
      if (!((masks[c] >> l) & 1u)) continue;
      ok &= exc[l] == run;
      run += in[l];
      ok &= inc[l] == run;
    }
    for (int l = 0; l < 32; ++l)
      if ((masks[c] >> l) & 1u) ok &= sum[l] == run;
    SK_CHECK(ok, "f64 reference sums disagree with a serial sum of integers");
    // 53-bit uniforms: the serial order and the tree orders must differ somewhere.
    fill_f64(in, 32, 0, &rng);
    sk_ref_warp_inclusive_sum_f64(masks[c], in, inc);
    sk_ref_warp_sum_f64(0xffffffffu, in, sum);
    double serial = 0;
    for (int l = 0; l < 32; ++l) {
      if (!((masks[c] >> l) & 1u)) continue;
      serial += in[l];
      serial_differs |= f64_bits(serial) != f64_bits(inc[l]);
    }
    double full_inc[32];
    sk_ref_warp_inclusive_sum_f64(0xffffffffu, in, full_inc);
    scan_order_differs |= f64_bits(full_inc[31]) != f64_bits(sum[0]);
  }
  sk_test_context("f64 planted-bug controls on the host");
  SK_CHECK(serial_differs, "a serial sum gave the Kogge-Stone bits on every case: the inputs cannot tell orders apart");
  SK_CHECK(scan_order_differs, "the scan's order gave the butterfly's bits on every case");
}

template <int N>
static void run_sums_case(int seed, const uint32_t *h_masks, int num_cases, uint64_t *rng) {
  const size_t n = (size_t)num_cases * 32 * N;
  double *h_in = (double *)malloc(sizeof(double) * n);
  uint64_t *h_out = (uint64_t *)malloc(sizeof(uint64_t) * n);
  for (int c = 0; c < num_cases; ++c) fill_f64(h_in + (size_t)c * 32 * N, 32 * N, c % SK_TEST_VALUE_KINDS, rng);
  uint32_t *d_masks;
  double *d_in, *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_masks, sizeof(uint32_t) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_in, sizeof(double) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(double) * n));
  SK_CHECK_CUDA(cudaMemcpy(d_masks, h_masks, sizeof(uint32_t) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in, h_in, sizeof(double) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(double) * n));
  sums_cases_f64<N><<<(num_cases * 32 + 127) / 128, 128>>>(d_masks, d_in, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(double) * n, cudaMemcpyDeviceToHost));
  for (int c = 0; c < num_cases; ++c) {
    for (int t = 0; t < N; ++t) {
      double lanes[32], sums[32];
      uint64_t got[32], want[32];
      for (int l = 0; l < 32; ++l) lanes[l] = h_in[((size_t)c * 32 + l) * N + t];
      sk_ref_warp_sum_f64(h_masks[c], lanes, sums);
      for (int l = 0; l < 32; ++l) {
        got[l] = h_out[((size_t)c * 32 + l) * N + t];
        want[l] = ((h_masks[c] >> l) & 1u) ? f64_bits(sums[l]) : POISON_WORD64;
      }
      sk_test_context("seed=%d sums_f64<%d> case=%d mask=%08x values=%s value %d", seed, N, c, h_masks[c],
                      sk_test_value_kind_names[c % SK_TEST_VALUE_KINDS], t);
      if (!report64(got, want, h_masks[c])) break;
    }
  }
  SK_CHECK_CUDA(cudaFree(d_masks));
  SK_CHECK_CUDA(cudaFree(d_in));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_in);
  free(h_out);
}

static void test_device_f64(int seed) {
  uint64_t rng = 0xf64e0000u + (uint64_t)seed;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  const int num_cases = num_masks * SK_TEST_VALUE_KINDS;
  const size_t n = (size_t)num_cases * 32;
  uint32_t *h_masks = (uint32_t *)malloc(sizeof(uint32_t) * num_cases);
  double *h_in = (double *)malloc(sizeof(double) * n);
  uint64_t *h_out = (uint64_t *)malloc(sizeof(uint64_t) * n * kOutputs64);
  for (int c = 0; c < num_cases; ++c) {
    h_masks[c] = masks[c / SK_TEST_VALUE_KINDS];
    fill_f64(h_in + (size_t)c * 32, 32, c % SK_TEST_VALUE_KINDS, &rng);
  }
  uint32_t *d_masks;
  double *d_in, *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_masks, sizeof(uint32_t) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_in, sizeof(double) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(double) * n * kOutputs64));
  SK_CHECK_CUDA(cudaMemcpy(d_masks, h_masks, sizeof(uint32_t) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in, h_in, sizeof(double) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(double) * n * kOutputs64));
  scan_cases_f64<<<(num_cases * 32 + 127) / 128, 128>>>(d_masks, d_in, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(double) * n * kOutputs64, cudaMemcpyDeviceToHost));

  int planted_caught = 0;
  for (int c = 0; c < num_cases; ++c) {
    double ref[3][32];
    const double *in = h_in + (size_t)c * 32;
    sk_ref_warp_inclusive_sum_f64(h_masks[c], in, ref[0]);
    sk_ref_warp_exclusive_sum_f64(h_masks[c], in, ref[1]);
    sk_ref_warp_sum_f64(h_masks[c], in, ref[2]);
    for (int k = 0; k < kOutputs64; ++k) {
      uint64_t want[32];
      for (int l = 0; l < 32; ++l)
        want[l] = ((h_masks[c] >> l) & 1u) ? f64_bits(ref[k < 3 ? k : 2][l]) : POISON_WORD64;
      const uint64_t *got = h_out + (size_t)k * n + (size_t)c * 32;
      if (k == 3) {  // the planted bug: counted, not reported
        planted_caught += first_mismatch64(got, want) >= 0;
        continue;
      }
      sk_test_context("seed=%d case=%d mask=%08x values=%s output=%s", seed, c, h_masks[c],
                      sk_test_value_kind_names[c % SK_TEST_VALUE_KINDS], kOutputNames64[k]);
      report64(got, want, h_masks[c]);
    }
  }
  sk_test_context("seed=%d planted bug (%s)", seed, kOutputNames64[3]);
  SK_CHECK(planted_caught > 0, "a serial sum matched the documented order's reference on every case");

  // The N-sums: every N, on the full mask (the exchanges) and the others (N warp sums).
  run_sums_case<1>(seed, h_masks, num_cases, &rng);
  run_sums_case<2>(seed, h_masks, num_cases, &rng);
  run_sums_case<4>(seed, h_masks, num_cases, &rng);
  run_sums_case<8>(seed, h_masks, num_cases, &rng);
  run_sums_case<16>(seed, h_masks, num_cases, &rng);
  run_sums_case<32>(seed, h_masks, num_cases, &rng);

  SK_CHECK_CUDA(cudaFree(d_masks));
  SK_CHECK_CUDA(cudaFree(d_in));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_masks);
  free(h_in);
  free(h_out);
}

// --- serial running sums ------------------------------------------------------------------------------

//! [warp_serial_sum_usage]
// One warp a row: cum[i] = x[0] + ... + x[i] added left to right, the bits of a host loop
// `run += x[i]; cum[i] = run;`, 32 elements a round with the running sum carried between rounds.
__global__ void example_running_sums(const double *x, const int *row_start, int rows, double *cum) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= rows) return;
  const int lane = sk_lane_id(), begin = row_start[row], end = row_start[row + 1];
  double run = 0.0;
  for (int base = begin; base < end; base += 32) {
    const int i = base + lane;
    const unsigned mask = __ballot_sync(SK_FULL_MASK, i < end);
    if (i < end) cum[i] = sk_warp_serial_inclusive_sum_f64(mask, x[i], &run);
  }
}
//! [warp_serial_sum_usage]

enum { kSerialOutputs = 4 };  // f64 inclusive, f64 carry out, f32 inclusive, f32 carry out
static const char *const kSerialNames[kSerialOutputs] = {"serial_f64", "serial_carry_f64", "serial_f32",
                                                         "serial_carry_f32"};

// One warp a case: the members call with the case's carry; outputs as 64-bit words (floats widened by
// their bits), non-members left poisoned.
__global__ void serial_cases(const uint32_t *masks, const double *in, const double *carry_in, uint64_t *out,
                             int num_cases) {
  uint32_t mask;
  const int i = member_index(masks, num_cases, &mask);
  if (i < 0) return;
  const int warp = i / 32;
  const size_t stride = (size_t)num_cases * 32;
  double carry = carry_in[warp];
  float carry_f = (float)carry_in[warp];
  const double inc = sk_warp_serial_inclusive_sum_f64(mask, in[i], &carry);
  const float inc_f = sk_warp_serial_inclusive_sum_f32(mask, (float)in[i], &carry_f);
  out[i] = (uint64_t)__double_as_longlong(inc);
  out[i + stride] = (uint64_t)__double_as_longlong(carry);
  out[i + 2 * stride] = __float_as_uint(inc_f);
  out[i + 3 * stride] = __float_as_uint(carry_f);
}

// The host's serial loop for one case: want[k][l] for output k, lane l.
static void serial_reference(uint32_t mask, const double *in, double carry, uint64_t want[kSerialOutputs][32]) {
  double run = carry;
  float run_f = (float)carry;
  double inc[32];
  float inc_f[32];
  for (int l = 0; l < 32; ++l) {
    if (!((mask >> l) & 1u)) continue;
    run += in[l];
    run_f += (float)in[l];
    inc[l] = run;
    inc_f[l] = run_f;
  }
  for (int l = 0; l < 32; ++l) {
    const int member = (mask >> l) & 1u;
    want[0][l] = member ? f64_bits(inc[l]) : POISON_WORD64;
    want[1][l] = member ? f64_bits(run) : POISON_WORD64;
    want[2][l] = member ? sk_test_f32_bits(inc_f[l]) : POISON_WORD64;
    want[3][l] = member ? sk_test_f32_bits(run_f) : POISON_WORD64;
  }
}

static void test_serial_cases(int seed) {
  uint64_t rng = 0x5e71a100u + (uint64_t)seed;
  uint32_t masks[kMasks];
  const int num_masks = sk_test_masks(masks, kMasks, &rng);
  const int num_cases = num_masks * SK_TEST_VALUE_KINDS;
  const size_t n = (size_t)num_cases * 32;
  uint32_t *h_masks = (uint32_t *)malloc(sizeof(uint32_t) * num_cases);
  double *h_in = (double *)malloc(sizeof(double) * n), *h_carry = (double *)malloc(sizeof(double) * num_cases);
  uint64_t *h_out = (uint64_t *)malloc(sizeof(uint64_t) * n * kSerialOutputs);
  for (int c = 0; c < num_cases; ++c) {
    h_masks[c] = masks[c / SK_TEST_VALUE_KINDS];
    fill_f64(h_in + (size_t)c * 32, 32, c % SK_TEST_VALUE_KINDS, &rng);
    double carry = 0.0;  // every other case carries in a value of the case's kind
    if (c % 2) fill_f64(&carry, 1, c % SK_TEST_VALUE_KINDS, &rng);
    h_carry[c] = carry;
  }
  uint32_t *d_masks;
  double *d_in, *d_carry;
  uint64_t *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_masks, sizeof(uint32_t) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_in, sizeof(double) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_carry, sizeof(double) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(uint64_t) * n * kSerialOutputs));
  SK_CHECK_CUDA(cudaMemcpy(d_masks, h_masks, sizeof(uint32_t) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_in, h_in, sizeof(double) * n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_carry, h_carry, sizeof(double) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(uint64_t) * n * kSerialOutputs));
  serial_cases<<<(num_cases * 32 + 127) / 128, 128>>>(d_masks, d_in, d_carry, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(uint64_t) * n * kSerialOutputs, cudaMemcpyDeviceToHost));
  for (int c = 0; c < num_cases; ++c) {
    uint64_t want[kSerialOutputs][32], got[32];
    serial_reference(h_masks[c], h_in + (size_t)c * 32, h_carry[c], want);
    for (int k = 0; k < kSerialOutputs; ++k) {
      for (int l = 0; l < 32; ++l) {
        got[l] = h_out[(size_t)k * n + (size_t)c * 32 + l];
        if (k >= 2 && got[l] != POISON_WORD64) got[l] &= 0xffffffffull;  // a float's bits in the low word
      }
      sk_test_context("seed=%d case=%d mask=%08x values=%s output=%s", seed, c, h_masks[c],
                      sk_test_value_kind_names[c % SK_TEST_VALUE_KINDS], kSerialNames[k]);
      report64(got, want[k], h_masks[c]);
    }
  }
  SK_CHECK_CUDA(cudaFree(d_masks));
  SK_CHECK_CUDA(cudaFree(d_in));
  SK_CHECK_CUDA(cudaFree(d_carry));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_masks);
  free(h_in);
  free(h_carry);
  free(h_out);
}

// Rows of many lengths for the serial sums: round boundaries, one partial round, thousands of rounds;
// 53-bit uniforms. Fills start (kSerialRows + 1 offsets) and returns the values (malloc'd).
static const int kSerialRowLengths[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 4099, 65536};
enum { kSerialRows = sizeof kSerialRowLengths / sizeof kSerialRowLengths[0] };
static double *serial_rows(int start[kSerialRows + 1]) {
  start[0] = 0;
  for (int r = 0; r < kSerialRows; ++r) start[r + 1] = start[r] + kSerialRowLengths[r];
  double *x = (double *)malloc(sizeof(double) * (size_t)start[kSerialRows]);
  uint64_t rng = 777;
  fill_f64(x, start[kSerialRows], 0, &rng);
  return x;
}

// The planted-bug control for the rows, on the host: each round's sums in the Kogge-Stone order (then
// added to the carry) must give other bits than the serial loop somewhere, or the device comparison
// could not tell the orders apart.
static void test_serial_rows_control(void) {
  int start[kSerialRows + 1];
  double *x = serial_rows(start);
  int ks_differs = 0;
  for (int r = 0; r < kSerialRows; ++r) {
    double run = 0.0, serial = 0.0;
    for (int base = start[r]; base < start[r + 1]; base += 32) {
      const int m = start[r + 1] - base < 32 ? start[r + 1] - base : 32;
      double lanes[32] = {0}, inc[32];
      memcpy(lanes, x + base, sizeof(double) * (size_t)m);
      sk_ref_warp_inclusive_sum_f64(m == 32 ? 0xffffffffu : (1u << m) - 1u, lanes, inc);
      for (int l = 0; l < m; ++l) {
        serial += x[base + l];
        ks_differs |= f64_bits(run + inc[l]) != f64_bits(serial);
      }
      run += inc[m - 1];
    }
  }
  sk_test_context("serial rows: planted-bug control on the host");
  SK_CHECK(ks_differs, "a Kogge-Stone order per round gave the serial bits on every row");
  free(x);
}

// The rows through the usage snippet against the host's loop, bit for bit.
static void test_serial_rows(void) {
  int h_start[kSerialRows + 1];
  double *h_x = serial_rows(h_start);
  const int n = h_start[kSerialRows], kRows = kSerialRows;
  double *h_cum = (double *)malloc(sizeof(double) * (size_t)n);
  double *d_x, *d_cum;
  int *d_start;
  SK_CHECK_CUDA(cudaMalloc(&d_x, sizeof(double) * (size_t)n));
  SK_CHECK_CUDA(cudaMalloc(&d_cum, sizeof(double) * (size_t)n));
  SK_CHECK_CUDA(cudaMalloc(&d_start, sizeof h_start));
  SK_CHECK_CUDA(cudaMemcpy(d_x, h_x, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_start, h_start, sizeof h_start, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_cum, SK_TEST_POISON_BYTE, sizeof(double) * (size_t)n));
  example_running_sums<<<(kRows * 32 + 127) / 128, 128>>>(d_x, d_start, kRows, d_cum);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_cum, d_cum, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r) {
    double run = 0.0;
    int bad = -1;
    for (int i = h_start[r]; i < h_start[r + 1] && bad < 0; ++i) {
      run += h_x[i];
      if (f64_bits(h_cum[i]) != f64_bits(run)) bad = i - h_start[r];
    }
    sk_test_context("serial rows: usage snippet, row of %d", kSerialRowLengths[r]);
    SK_CHECK(bad < 0, "running sum %d differs from the host loop's", bad);
  }
  SK_CHECK_CUDA(cudaFree(d_x));
  SK_CHECK_CUDA(cudaFree(d_cum));
  SK_CHECK_CUDA(cudaFree(d_start));
  free(h_x);
  free(h_cum);
}

// Runs the documentation's usage snippet and checks what it computes.
static void test_usage_snippet(void) {
  enum { kThreads = 256, kBlocks = 3, kN = kThreads * kBlocks };
  uint32_t h_counts[kN], h_offsets[kN], h_totals[kN / 32];
  uint64_t rng = 99;
  for (int i = 0; i < kN; ++i) h_counts[i] = sk_test_rand_u32(&rng) % 7u;
  uint32_t *d_counts, *d_offsets, *d_totals;
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof h_counts));
  SK_CHECK_CUDA(cudaMalloc(&d_offsets, sizeof h_offsets));
  SK_CHECK_CUDA(cudaMalloc(&d_totals, sizeof h_totals));
  SK_CHECK_CUDA(cudaMemcpy(d_counts, h_counts, sizeof h_counts, cudaMemcpyHostToDevice));
  example_offsets<<<kBlocks, kThreads>>>(d_counts, d_offsets, d_totals);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_offsets, d_offsets, sizeof h_offsets, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_totals, d_totals, sizeof h_totals, cudaMemcpyDeviceToHost));
  sk_test_context("usage snippet");
  int ok = 1;
  for (int w = 0; w < kN / 32; ++w) {
    uint32_t run = 0;
    for (int l = 0; l < 32; ++l) {
      ok &= h_offsets[w * 32 + l] == run;
      run += h_counts[w * 32 + l];
    }
    ok &= h_totals[w] == run;
  }
  SK_CHECK(ok, "offsets or warp totals differ from a serial sum");
  SK_CHECK_CUDA(cudaFree(d_counts));
  SK_CHECK_CUDA(cudaFree(d_offsets));
  SK_CHECK_CUDA(cudaFree(d_totals));
}

int main(int argc, char **argv) {
  test_references();
  test_references_f64();
  test_serial_rows_control();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    test_serial_rows();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_device(seed);
      test_device_f64(seed);
      test_serial_cases(seed);
    }
  }
  return sk_test_finish();
}
