// Tests the thread-tile sampler (include/samplekit/thread_tile_sample.h): sk_thread_tile_sum_f32,
// _min_f32 and _search_f32 for every width (1 to 32) over weight kinds and placements of u (0, random,
// exactly on a rebuilt edge, just below one, the total, +inf); sk_tile_exp2_neg_f32 over [-130, 0] and
// its special values; the reservoir's two code shapes step by step; whole draws from K weights in tiles
// of 8, 16 and 32 (K = 1, 5, 8, 9, 16, 17, 31, 32, 33, 64, 97, 1000; log2-weights with overlapping,
// huge (underflowing), one-hot, tied, near-underflow and large-magnitude values; plain weights with
// zeros, denormals and 1e30 spreads; uniforms exactly on boundaries and on reservoir ties). Every
// result must equal the host reference (tests/ref/thread_tile_ref.c) bit for bit: on the device, and
// with --host (a cpu test) through the header's host path. Control: with each planted bug in the
// reference (sums left to right, ties going left, reservoir ties replacing, the exponential split at
// trunc(y)) the same comparisons must find mismatches, which shows that the cases reach every rule.
// On the device also the usage snippet and a goodness-of-fit test of 2^22 draws.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/thread_tile_ref.h"
#include "samplekit/rng.h"
#include "samplekit/thread_tile_sample.h"
#include "sk_test.h"
#include "thread_tile_cases.cuh"

//! [thread_tile_usage]
// Each thread draws one index from its own K log2-weights, a tile of 32 at a time, keeping only the
// tile the draw falls in (here the log2-weights come from memory; a sampler computes them in registers).
__global__ void example_draw(const float *log2w, int K, int num_rows, uint64_t seed, int *out) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= num_rows) return;
  enum { W = 32 };
  float e[W], kept[W];
  sk_thread_tile_reservoir_f32 res;
  sk_thread_tile_reservoir_init_f32(&res);
  for (int b = 0; b * W < K; ++b) {
#pragma unroll
    for (int i = 0; i < W; ++i)  // minus the log2-weights; +inf where there is no entry
      e[i] = b * W + i < K ? -log2w[(size_t)row * K + b * W + i] : INFINITY;
    const float h = sk_thread_tile_min_f32(e, W);  // minus the tile's largest log2-weight
#pragma unroll
    for (int i = 0; i < W; ++i) e[i] = sk_tile_exp2_neg_f32(sk_tile_sub_rn_f32(h, e[i]));  // in [0, 1]
    const float t = sk_thread_tile_sum_f32(e, W);
    if (sk_thread_tile_reservoir_step_f32(&res, b, h, t, sk_rng_uniform_f32(seed, row, b)))
#pragma unroll
      for (int i = 0; i < W; ++i) kept[i] = e[i];
  }
  // u_0 = the row's uniform 0 (tile 0's step does not read it), scaled by the kept tile's sum.
  const float u = sk_tile_mul_rn_f32(sk_rng_uniform_f32(seed, row, 0), res.t_sel);
  out[row] = res.sel * W + sk_thread_tile_search_f32(kept, W, u);
}
//! [thread_tile_usage]

// #pragma unroll in functions the host compiles too (gcc would warn about it).
#if defined(__CUDA_ARCH__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

static __host__ __device__ uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

// --- the computations, the same source on the host (--host) and the device -------------------------

template <int W>
__host__ __device__ void tile_ops(const float *values, float u, uint32_t *out) {
  float v[W];
UNROLL
  for (int i = 0; i < W; ++i) v[i] = values[i];
  out[0] = f32_bits(sk_thread_tile_sum_f32(v, W));
  out[1] = f32_bits(sk_thread_tile_min_f32(v, W));
  out[2] = (uint32_t)sk_thread_tile_search_f32(v, W, u);
}

__host__ __device__ void run_tile_case(const TileCase &c, const float *values, uint32_t *out) {
  switch (c.width) {
    case 1: tile_ops<1>(values + c.offset, c.u, out); break;
    case 2: tile_ops<2>(values + c.offset, c.u, out); break;
    case 4: tile_ops<4>(values + c.offset, c.u, out); break;
    case 8: tile_ops<8>(values + c.offset, c.u, out); break;
    case 16: tile_ops<16>(values + c.offset, c.u, out); break;
    default: tile_ops<32>(values + c.offset, c.u, out); break;
  }
}

__host__ __device__ void run_res_case(const ResCase &c, const float *values, uint32_t *out) {
  sk_thread_tile_reservoir_f32 a, s;
  sk_thread_tile_reservoir_init_f32(&a);
  sk_thread_tile_reservoir_init_f32(&s);
  for (int b = 0; b < c.tiles; ++b) {
    const float *x = values + c.offset + 3 * b;
    uint32_t *o = out + (size_t)kResOuts * b;
    o[0] = (uint32_t)sk_thread_tile_reservoir_step_f32(&a, b, x[0], x[1], x[2]);
    o[1] = f32_bits(a.h), o[2] = f32_bits(a.s), o[3] = f32_bits(a.t_sel), o[4] = (uint32_t)a.sel;
    o[5] = (uint32_t)sk_thread_tile_reservoir_step_select_f32(&s, b, x[0], x[1], x[2]);
    o[6] = f32_bits(s.h), o[7] = f32_bits(s.s), o[8] = f32_bits(s.t_sel), o[9] = (uint32_t)s.sel;
  }
}

template <int W, bool kSelect>
__host__ __device__ int draw(const float *q, int k, int linear, const float *u, float *t_sel) {
  float e[W], kept[W];
  sk_thread_tile_reservoir_f32 res;
  sk_thread_tile_reservoir_init_f32(&res);
UNROLL
  for (int i = 0; i < W; ++i) kept[i] = 0.0f;
  for (int b = 0; b * W < k; ++b) {
UNROLL
    for (int i = 0; i < W; ++i) e[i] = b * W + i < k ? q[b * W + i] : linear ? 0.0f : INFINITY;
    float h = 0.0f;
    if (!linear) {
      h = sk_thread_tile_min_f32(e, W);
UNROLL
      for (int i = 0; i < W; ++i) e[i] = sk_tile_exp2_neg_f32(sk_tile_sub_rn_f32(h, e[i]));
    }
    const float t = sk_thread_tile_sum_f32(e, W);
    const int take = kSelect ? sk_thread_tile_reservoir_step_select_f32(&res, b, h, t, u[b])
                             : sk_thread_tile_reservoir_step_f32(&res, b, h, t, u[b]);
    if (take)
UNROLL
      for (int i = 0; i < W; ++i) kept[i] = e[i];
  }
  *t_sel = res.t_sel;
  return res.sel * W + sk_thread_tile_search_f32(kept, W, sk_tile_mul_rn_f32(u[0], res.t_sel));
}

template <int W>
__host__ __device__ void draw_both(const DrawCase &c, const float *q, const float *u, uint32_t *out) {
  float t;
  out[0] = (uint32_t)draw<W, false>(q + c.q_offset, c.k, c.linear, u + c.u_offset, &t);
  out[1] = f32_bits(t);
  out[2] = (uint32_t)draw<W, true>(q + c.q_offset, c.k, c.linear, u + c.u_offset, &t);
  out[3] = f32_bits(t);
}

__host__ __device__ void run_draw_case(const DrawCase &c, const float *q, const float *u, uint32_t *out) {
  if (c.width == 8)
    draw_both<8>(c, q, u, out);
  else if (c.width == 16)
    draw_both<16>(c, q, u, out);
  else
    draw_both<32>(c, q, u, out);
}

__global__ void tile_kernel(const TileCase *cases, int n, const float *values, uint32_t *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) run_tile_case(cases[i], values, out + (size_t)kTileOuts * i);
}

__global__ void exp_kernel(const float *y, int n, uint32_t *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f32_bits(sk_tile_exp2_neg_f32(y[i]));
}

__global__ void res_kernel(const ResCase *cases, int n, const float *values, uint32_t *out, int max_tiles) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) run_res_case(cases[i], values, out + (size_t)kResOuts * max_tiles * i);
}

__global__ void draw_kernel(const DrawCase *cases, int n, const float *q, const float *u, uint32_t *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) run_draw_case(cases[i], q, u, out + (size_t)kDrawOuts * i);
}

// --- the two paths -----------------------------------------------------------------------------------

struct Outputs {
  uint32_t *tile, *exp, *res, *draw;
  size_t tile_n, exp_n, res_n, draw_n;
  explicit Outputs(const Cases &c)
      : tile_n(kTileOuts * c.tiles.n), exp_n(c.y.n), res_n((size_t)kResOuts * kMaxResTiles * c.res.n),
        draw_n(kDrawOuts * c.draws.n) {
    tile = (uint32_t *)malloc(sizeof(uint32_t) * tile_n);
    exp = (uint32_t *)malloc(sizeof(uint32_t) * exp_n);
    res = (uint32_t *)calloc(res_n, sizeof(uint32_t));
    draw = (uint32_t *)malloc(sizeof(uint32_t) * draw_n);
  }
  ~Outputs() {
    free(tile);
    free(exp);
    free(res);
    free(draw);
  }
};

// The header's host path (compiled without FMA contraction: tests/CMakeLists.txt).
static void test_host(int seed) {
  Cases c;
  build_cases(seed, &c);
  Outputs o(c);
  for (size_t i = 0; i < c.tiles.n; ++i) run_tile_case(c.tiles.p[i], c.values.p, o.tile + kTileOuts * i);
  for (size_t i = 0; i < c.y.n; ++i) o.exp[i] = f32_bits(sk_tile_exp2_neg_f32(c.y.p[i]));
  for (size_t i = 0; i < c.res.n; ++i)
    run_res_case(c.res.p[i], c.res_values.p, o.res + (size_t)kResOuts * kMaxResTiles * i);
  for (size_t i = 0; i < c.draws.n; ++i) run_draw_case(c.draws.p[i], c.q.p, c.u.p, o.draw + kDrawOuts * i);
  check(c, o.tile, o.exp, o.res, o.draw, seed, "host");
  if (seed == 0)
    printf("host path, seed 0: %zu tile cases, %zu exponentials, %zu reservoir runs, %zu draws compared\n",
           c.tiles.n, c.y.n, c.res.n, c.draws.n);
}

template <class T>
static T *to_device(const Vec<T> &v) {
  T *d = NULL;
  SK_CHECK_CUDA(cudaMalloc(&d, sizeof(T) * (v.n > 0 ? v.n : 1)));
  if (v.n > 0) SK_CHECK_CUDA(cudaMemcpy(d, v.p, sizeof(T) * v.n, cudaMemcpyHostToDevice));
  return d;
}

static uint32_t *device_out(size_t n) {
  uint32_t *d = NULL;
  SK_CHECK_CUDA(cudaMalloc(&d, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMemset(d, 0x7f, sizeof(uint32_t) * n));  // poison: a word never written shows
  return d;
}

static void fetch(uint32_t *h, uint32_t *d, size_t n) {
  SK_CHECK_CUDA(cudaMemcpy(h, d, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaFree(d));
}

static void test_device(int seed) {
  Cases c;
  build_cases(seed, &c);
  Outputs o(c);
  float *values = to_device(c.values), *y = to_device(c.y), *res_values = to_device(c.res_values);
  float *q = to_device(c.q), *u = to_device(c.u);
  TileCase *tiles = to_device(c.tiles);
  ResCase *res = to_device(c.res);
  DrawCase *draws = to_device(c.draws);
  uint32_t *tile_out = device_out(o.tile_n), *exp_out = device_out(o.exp_n), *res_out = device_out(o.res_n);
  uint32_t *draw_out = device_out(o.draw_n);
  const int t = 128;
  tile_kernel<<<(int)(c.tiles.n + t - 1) / t, t>>>(tiles, (int)c.tiles.n, values, tile_out);
  exp_kernel<<<(int)(c.y.n + t - 1) / t, t>>>(y, (int)c.y.n, exp_out);
  res_kernel<<<(int)(c.res.n + t - 1) / t, t>>>(res, (int)c.res.n, res_values, res_out, kMaxResTiles);
  draw_kernel<<<(int)(c.draws.n + t - 1) / t, t>>>(draws, (int)c.draws.n, q, u, draw_out);
  SK_CHECK_LAUNCH();
  fetch(o.tile, tile_out, o.tile_n);
  fetch(o.exp, exp_out, o.exp_n);
  fetch(o.res, res_out, o.res_n);
  fetch(o.draw, draw_out, o.draw_n);
  // Steps past a run's tiles are never written: give them the host's zeros.
  for (size_t i = 0; i < c.res.n; ++i)
    memset(o.res + (size_t)kResOuts * (kMaxResTiles * i + c.res.p[i].tiles), 0,
           sizeof(uint32_t) * kResOuts * (kMaxResTiles - c.res.p[i].tiles));
  check(c, o.tile, o.exp, o.res, o.draw, seed, "device");
  if (seed == 0)
    printf("device, seed 0: %zu tile cases, %zu exponentials, %zu reservoir runs, %zu draws compared\n", c.tiles.n,
           c.y.n, c.res.n, c.draws.n);
  void *all[] = {values, y, res_values, q, u, tiles, res, draws};
  for (void *p : all) SK_CHECK_CUDA(cudaFree(p));
}

// The usage snippet against the reference, its uniforms drawn on the host.
static void test_usage_snippet(void) {
  enum { kRows = 300, kK = 77 };
  float *h_w = (float *)malloc(sizeof(float) * kRows * kK), *q = (float *)malloc(sizeof(float) * kK);
  int h_out[kRows];
  uint64_t rng = 31337;
  for (int i = 0; i < kRows * kK; ++i) h_w[i] = 40.0f * sk_test_rand_unit_f32(&rng) - (i % 5 == 0 ? 200.0f : 20.0f);
  float *d_w;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * kRows * kK));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * kRows * kK, cudaMemcpyHostToDevice));
  example_draw<<<(kRows + 127) / 128, 128>>>(d_w, kK, kRows, 5, d_out);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r) {
    float u[3];
    for (int b = 0; b < 3; ++b) u[b] = sk_rng_uniform_f32(5, (uint64_t)r, (uint64_t)b);
    for (int k = 0; k < kK; ++k) q[k] = -h_w[r * kK + k];
    const int want = sk_ref_tile_draw_f32(q, kK, 32, 0, u, NULL);
    sk_test_context("usage snippet row %d", r);
    SK_CHECK(h_out[r] == want, "got %d want %d", h_out[r], want);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
  free(q);
}

// Goodness of fit: 2^22 draws from one distribution of 70 entries in three tiles (zero weights among
// them), uniforms from Philox; counts against expectations by chi-square; the counts shifted by one
// entry (an off-by-one bug) must be rejected, which shows the test can fail.
__global__ void draw_many(const float *q, int k, uint64_t seed, int draws_per_thread, unsigned long long *counts) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  for (int d = 0; d < draws_per_thread; ++d) {
    float u[3], t;
    for (int b = 0; b < 3; ++b) u[b] = sk_rng_uniform_f32(seed, (uint64_t)thread, (uint64_t)(3 * d + b));
    const int i = draw<32, false>(q, k, 0, u, &t);
    atomicAdd(&counts[i < 0 || i >= k ? k : i], 1ull);
  }
}

static void test_goodness_of_fit(void) {
  enum { kK = 70, kThreads = 1 << 16, kPerThread = 64 };
  float h_q[kK], h_w[kK];
  uint64_t rng = 777;
  for (int i = 0; i < kK; ++i) {  // weights 2^-L: some 0 (q = +inf), a spread of 2^6
    h_w[i] = i % 7 == 3 ? 0.0f : exp2f(-6.0f * sk_test_rand_unit_f32(&rng));
    h_q[i] = h_w[i] > 0.0f ? -log2f(h_w[i]) : INFINITY;
  }
  float *d_q;
  unsigned long long *d_counts, h_counts[kK + 1];
  SK_CHECK_CUDA(cudaMalloc(&d_q, sizeof h_q));
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof h_counts));
  SK_CHECK_CUDA(cudaMemcpy(d_q, h_q, sizeof h_q, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_counts, 0, sizeof h_counts));
  draw_many<<<kThreads / 256, 256>>>(d_q, kK, 2026, kPerThread, d_counts);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost));
  double total = 0, observed[kK], expected[kK], shifted[kK];
  for (int i = 0; i < kK; ++i) total += exp2(-(double)h_q[i]);
  int zero_drawn = 0, cells = 0;
  const double draws = (double)kThreads * kPerThread;
  for (int i = 0; i < kK; ++i) {
    observed[i] = (double)h_counts[i];
    expected[i] = draws * exp2(-(double)h_q[i]) / total;
    shifted[i] = (double)h_counts[(i + 1) % kK];
    zero_drawn |= h_w[i] == 0.0f && h_counts[i] != 0;
    cells += h_w[i] > 0.0f;
  }
  sk_test_context("goodness of fit, %d entries, %.0f draws", kK, draws);
  SK_CHECK(!zero_drawn && h_counts[kK] == 0, "a zero-weight entry or an index out of range was drawn");
  const double threshold = sk_test_chi2_threshold(cells - 1);
  const double x = sk_test_chi2(observed, expected, kK), x_bug = sk_test_chi2(shifted, expected, kK);
  SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
  SK_CHECK(x_bug > threshold, "planted off-by-one gave chi-square %.1f, not above %.1f", x_bug, threshold);
  printf("goodness of fit: chi-square %.1f, threshold %.1f (%d dof); planted off-by-one %.3g\n", x, threshold,
         cells - 1, x_bug);
  SK_CHECK_CUDA(cudaFree(d_q));
  SK_CHECK_CUDA(cudaFree(d_counts));
}

int main(int argc, char **argv) {
  for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_host(seed);
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    test_goodness_of_fit();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_device(seed);
  }
  return sk_test_finish();
}
