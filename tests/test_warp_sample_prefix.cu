// Tests sk_warp_sample_prefix_{f32,u32,by_f32}, sk_warp_prefix_total_{f32,u32,by_f32} and the register
// cache (sk_warp_prefix_cache_*, on vectors of up to 8 rounds): exact agreement with the host reference
// over lengths, masks, weight kinds and placements of u (0, random, exactly on a boundary, just below
// one, at and just below the total), and a goodness-of-fit test of the draws. The same for the doubles
// (sk_warp_sample_prefix_{f64,by_f64,from_by_f64}, sk_warp_prefix_total_{f64,by_f64}), the by_ versions
// on weights computed as a product (so that an FMA fused into the sums would show), the from_ version
// with a random start; with a planted bug (the tie rule >= instead of >) that the comparison must catch.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/warp_ref.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_sample_prefix.cuh"
#include "sk_test.h"
#include "warp_cases.h"

//! [warp_sample_prefix_usage]
// One warp per row: draw one index from each row of a num_rows x n weight matrix.
__global__ void example_sample_rows(const float *weights, int num_rows, int n, uint64_t seed, int *out) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= num_rows) return;  // whole warps leave together: the block size is a multiple of 32
  const float *w = weights + (size_t)row * n;
  const float total = sk_warp_prefix_total_f32(SK_FULL_MASK, w, n);
  const float u = sk_rng_uniform_f32(seed, (uint64_t)row, 0) * total;  // in [0, total)
  const int k = sk_warp_sample_prefix_f32(SK_FULL_MASK, w, n, u);      // -1 only if all weights are 0
  if (sk_lane_id() == 0) out[row] = k;
}
//! [warp_sample_prefix_usage]

static const int kLengths[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 100, 128, 129, 200, 256, 1000, 1024, 1025, 4099};
enum { kNumLengths = sizeof kLengths / sizeof kLengths[0], kNumMasks = 10, kNumU = 6, kOutputs = 8, kCacheRounds = 8 };
// Outputs of the cache for vectors longer than it holds.
static const uint32_t kNotCached = 0xfffffffeu;

struct Case {
  size_t offset;  // of the weights in the weight buffers
  int n;
  uint32_t mask;
  float u_f;
  uint32_t u_u;
};

// The float weights through an accessor that scales a stored value (here by 1, so that the expected
// bits are the array version's): what a sampler that computes its weights as it reads them passes.
struct ScaledWeights {
  const float *values;
  float scale;
  __device__ float operator()(int i) const { return values[i] * scale; }
};

__global__ void sample_cases(const Case *cases, const float *w_f, const uint32_t *w_u, uint32_t *out,
                             int num_cases) {
  const int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= num_cases) return;
  const Case k = cases[c];
  if (!((k.mask >> sk_lane_id()) & 1u)) return;
  const int idx_f = sk_warp_sample_prefix_f32(k.mask, w_f + k.offset, k.n, k.u_f);
  const int idx_u = sk_warp_sample_prefix_u32(k.mask, w_u + k.offset, k.n, k.u_u);
  const float total_f = sk_warp_prefix_total_f32(k.mask, w_f + k.offset, k.n);
  const uint32_t total_u = sk_warp_prefix_total_u32(k.mask, w_u + k.offset, k.n);
  const ScaledWeights by{w_f + k.offset, 1.0f};
  const int idx_by = sk_warp_sample_prefix_by_f32(k.mask, by, k.n, k.u_f);
  const float total_by = sk_warp_prefix_total_by_f32(k.mask, by, k.n);
  uint32_t idx_cache = kNotCached, total_cache = kNotCached;
  if (k.n <= kCacheRounds * __popc(k.mask)) {
    sk_warp_prefix_cache_f32<kCacheRounds> cache;
    sk_warp_prefix_cache_build_by_f32(k.mask, by, k.n, &cache);
    idx_cache = (uint32_t)sk_warp_prefix_cache_sample_f32(k.mask, cache, k.u_f);
    total_cache = __float_as_uint(cache.total);
  }
  // Every member writes its own slot, so that a member with a different answer would show.
  const size_t slot = (size_t)c * 32 + (size_t)sk_lane_id(), stride = (size_t)num_cases * 32;
  out[slot] = (uint32_t)idx_f;
  out[slot + stride] = (uint32_t)idx_u;
  out[slot + 2 * stride] = __float_as_uint(total_f);
  out[slot + 3 * stride] = total_u;
  out[slot + 4 * stride] = (uint32_t)idx_by;
  out[slot + 5 * stride] = __float_as_uint(total_by);
  out[slot + 6 * stride] = idx_cache;
  out[slot + 7 * stride] = total_cache;
}

// Integer weights of the same kinds as the float ones (totals stay below 2^32).
static uint32_t integer_weight(int kind, int i, int hot, uint64_t *rng) {
  const uint32_t r = sk_test_rand_u32(rng);
  switch (kind) {
    case 0: return r % 1000u;
    case 1: return r % (1u << 20);
    case 2: return 3u;
    case 3: return (uint32_t)(i == hot);
    case 4: return r % 10u == 0 ? 1000000u : 1u;
    case 5: return r % 16u == 0;
    case 6: return r % 1000u;
    default: return 0u;
  }
}

// Placement v of u for a case: 0, random below the total, exactly on a random running sum, just
// below it, exactly the total (the fallback rule) and just below the total.
static void place_u(int v, const float *run_f, const uint32_t *run_u, int n, uint64_t *rng, float *u_f,
                    uint32_t *u_u) {
  const float total_f = n > 0 ? run_f[n - 1] : 0.0f;
  const uint32_t total_u = n > 0 ? run_u[n - 1] : 0u;
  const int i = n > 0 ? (int)(sk_test_rand_u32(rng) % (uint32_t)n) : 0;
  switch (v) {
    case 0: *u_f = 0.0f; *u_u = 0u; break;
    case 1: *u_f = sk_test_rand_unit_f32(rng) * total_f;
            *u_u = total_u ? (uint32_t)(sk_test_rand_u64(rng) % total_u) : 0u; break;
    case 2: *u_f = n ? run_f[i] : 0.0f; *u_u = n ? run_u[i] : 0u; break;
    case 3: *u_f = n && run_f[i] > 0.0f ? nextafterf(run_f[i], 0.0f) : 0.0f;
            *u_u = n && run_u[i] ? run_u[i] - 1u : 0u; break;
    case 4: *u_f = total_f; *u_u = total_u; break;
    default: *u_f = total_f > 0.0f ? nextafterf(total_f, 0.0f) : 0.0f; *u_u = total_u ? total_u - 1u : 0u;
  }
}

static const char *const kUNames[kNumU] = {"u=0", "u random", "u on a boundary", "u just below a boundary",
                                           "u = total", "u just below total"};

// Checks the reference itself against the definition: a positive-weight result, P > u there, and no
// earlier positive entry with P > u.
static void check_reference_case(const float *w, const float *run, int n, float u, int got) {
  int any_positive = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    any_positive |= w[i] > 0.0f;
    if (first < 0 && w[i] > 0.0f && run[i] > u) first = i;
  }
  if (!any_positive) {
    SK_CHECK(got == -1, "all-zero or empty weights gave %d, want -1", got);
  } else if (first >= 0) {
    SK_CHECK(got == first && w[got] > 0.0f, "reference gave %d, definition gives %d", got, first);
  } else {
    SK_CHECK(got >= 0 && w[got] > 0.0f, "fallback gave %d, not a positive entry", got);
  }
}

static void build_cases(int seed, struct Case **cases_out, int *num_cases, float **w_f_out, uint32_t **w_u_out,
                        size_t *num_weights, int host_checks) {
  uint64_t rng = 0xa11ce000u + (uint64_t)seed;
  const uint32_t masks[kNumMasks] = {0xffffffffu, 0x1u, 0x7fu, 0xffffu, 0x7fffffffu, 1u << 17,
                                     0xffff0000u, 0x55555555u, sk_test_rand_u32(&rng) | 4u,
                                     sk_test_rand_u32(&rng) & sk_test_rand_u32(&rng) | 1u};
  size_t total_weights = 0;
  for (int a = 0; a < kNumLengths; ++a) total_weights += (size_t)kLengths[a] * kNumMasks * SK_TEST_VALUE_KINDS;
  const int n_cases = kNumLengths * kNumMasks * SK_TEST_VALUE_KINDS * kNumU;
  struct Case *cases = (struct Case *)malloc(sizeof(struct Case) * n_cases);
  float *w_f = (float *)malloc(sizeof(float) * (total_weights + 1));
  uint32_t *w_u = (uint32_t *)malloc(sizeof(uint32_t) * (total_weights + 1));
  float *run_f = (float *)malloc(sizeof(float) * 4100);
  uint32_t *run_u = (uint32_t *)malloc(sizeof(uint32_t) * 4100);
  size_t offset = 0;
  int c = 0;
  for (int a = 0; a < kNumLengths; ++a)
    for (int m = 0; m < kNumMasks; ++m)
      for (int kind = 0; kind < SK_TEST_VALUE_KINDS; ++kind) {
        const int n = kLengths[a];
        float *wf = w_f + offset;
        uint32_t *wu = w_u + offset;
        sk_test_fill_f32(wf, n, kind, &rng);
        const int hot = n ? (int)(sk_test_rand_u32(&rng) % (uint32_t)n) : 0;
        for (int i = 0; i < n; ++i) {
          wf[i] = fabsf(wf[i]);  // the "signed" kind: weights must be non-negative
          wu[i] = integer_weight(kind, i, hot, &rng);
        }
        sk_ref_warp_running_sums_f32(masks[m], wf, n, run_f);
        sk_ref_warp_running_sums_u32(masks[m], wu, n, run_u);
        for (int v = 0; v < kNumU; ++v, ++c) {
          cases[c].offset = offset;
          cases[c].n = n;
          cases[c].mask = masks[m];
          place_u(v, run_f, run_u, n, &rng, &cases[c].u_f, &cases[c].u_u);
          if (host_checks) {
            sk_test_context("reference self-check n=%d mask=%08x values=%s %s", n, masks[m],
                            sk_test_value_kind_names[kind], kUNames[v]);
            check_reference_case(wf, run_f, n, cases[c].u_f,
                                 sk_ref_warp_sample_prefix_f32(masks[m], wf, n, cases[c].u_f));
          }
        }
        offset += (size_t)n;
      }
  free(run_f);
  free(run_u);
  *cases_out = cases;
  *num_cases = n_cases;
  *w_f_out = w_f;
  *w_u_out = w_u;
  *num_weights = offset;
}

static void test_device_exact(int seed) {
  struct Case *cases;
  float *w_f;
  uint32_t *w_u;
  int num_cases;
  size_t num_weights;
  build_cases(seed, &cases, &num_cases, &w_f, &w_u, &num_weights, 0);
  const size_t out_words = (size_t)num_cases * 32 * kOutputs;
  uint32_t *out = (uint32_t *)malloc(sizeof(uint32_t) * out_words);

  struct Case *d_cases;
  float *d_w_f;
  uint32_t *d_w_u, *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(struct Case) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_w_f, sizeof(float) * (num_weights + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_w_u, sizeof(uint32_t) * (num_weights + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(uint32_t) * out_words));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(struct Case) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_w_f, w_f, sizeof(float) * (num_weights + 1), cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_w_u, w_u, sizeof(uint32_t) * (num_weights + 1), cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(uint32_t) * out_words));
  const int threads = 128;
  sample_cases<<<(num_cases * 32 + threads - 1) / threads, threads>>>(d_cases, d_w_f, d_w_u, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, sizeof(uint32_t) * out_words, cudaMemcpyDeviceToHost));

  static const char *const names[kOutputs] = {"sample_f32", "sample_u32",       "total_f32",
                                              "total_u32",  "sample_by_f32", "total_by_f32",
                                              "sample_cache", "total_cache"};
  for (int c = 0; c < num_cases; ++c) {
    const struct Case *k = &cases[c];
    uint32_t want[kOutputs] = {
        (uint32_t)sk_ref_warp_sample_prefix_f32(k->mask, w_f + k->offset, k->n, k->u_f),
        (uint32_t)sk_ref_warp_sample_prefix_u32(k->mask, w_u + k->offset, k->n, k->u_u),
        sk_test_f32_bits(sk_ref_warp_prefix_total_f32(k->mask, w_f + k->offset, k->n)),
        sk_ref_warp_prefix_total_u32(k->mask, w_u + k->offset, k->n),
        (uint32_t)sk_ref_warp_sample_prefix_f32(k->mask, w_f + k->offset, k->n, k->u_f),
        sk_test_f32_bits(sk_ref_warp_prefix_total_f32(k->mask, w_f + k->offset, k->n)),
        kNotCached, kNotCached};
    if (k->n <= kCacheRounds * __builtin_popcount(k->mask)) {
      want[6] = want[4];
      want[7] = want[5];
    }
    for (int o = 0; o < kOutputs; ++o) {
      uint32_t lanes[32];
      for (int l = 0; l < 32; ++l) lanes[l] = ((k->mask >> l) & 1u) ? want[o] : SK_TEST_POISON_WORD;
      sk_test_context("seed=%d case=%d n=%d mask=%08x values=%s %s u_f=%.9g u_u=%u output=%s", seed, c, k->n,
                      k->mask, sk_test_value_kind_names[(c / kNumU) % SK_TEST_VALUE_KINDS], kUNames[c % kNumU],
                      (double)k->u_f, k->u_u, names[o]);
      sk_test_check_lanes(out + (size_t)o * num_cases * 32 + (size_t)c * 32, lanes, k->mask);
    }
  }
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_w_f));
  SK_CHECK_CUDA(cudaFree(d_w_u));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(cases);
  free(w_f);
  free(w_u);
  free(out);
}

// Goodness of fit: 2^22 draws from one distribution with zero-weight categories; counts against
// expectations by chi-square; the same statistic with the counts shifted by one category (an
// off-by-one bug) must be rejected, which shows the test can fail.
__global__ void draw_many(const float *w, int n, uint64_t seed, int draws_per_warp, unsigned long long *counts) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const float total = sk_warp_prefix_total_f32(SK_FULL_MASK, w, n);
  for (int d = 0; d < draws_per_warp; ++d) {
    const float u = sk_rng_uniform_f32(seed, (uint64_t)warp, (uint64_t)d) * total;
    const int k = sk_warp_sample_prefix_f32(SK_FULL_MASK, w, n, u);
    if (sk_lane_id() == 0) atomicAdd(&counts[k < 0 ? n : k], 1ull);
  }
}

static void test_goodness_of_fit(void) {
  enum { kN = 70, kWarps = 4096, kDrawsPerWarp = 1024 };
  float h_w[kN];
  uint64_t rng = 777;
  for (int i = 0; i < kN; ++i) h_w[i] = (i % 7 == 3) ? 0.0f : 0.05f + sk_test_rand_unit_f32(&rng) * (float)(1 + i % 5);
  float *d_w;
  unsigned long long *d_counts, h_counts[kN + 1];
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof h_w));
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof h_counts));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof h_w, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_counts, 0, sizeof h_counts));
  draw_many<<<kWarps * 32 / 256, 256>>>(d_w, kN, 2026, kDrawsPerWarp, d_counts);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost));
  double total = 0, observed[kN], expected[kN], shifted[kN];
  for (int i = 0; i < kN; ++i) total += h_w[i];
  int zero_drawn = 0, cells = 0;
  const double draws = (double)kWarps * kDrawsPerWarp;
  for (int i = 0; i < kN; ++i) {
    observed[i] = (double)h_counts[i];
    expected[i] = draws * h_w[i] / total;
    shifted[i] = (double)h_counts[(i + 1) % kN];
    zero_drawn |= h_w[i] == 0.0f && h_counts[i] != 0;
    cells += h_w[i] > 0.0f;
  }
  sk_test_context("goodness of fit, %d categories, %.0f draws", kN, draws);
  SK_CHECK(!zero_drawn && h_counts[kN] == 0, "a zero-weight category or -1 was drawn");
  const double threshold = sk_test_chi2_threshold(cells - 1);
  const double x = sk_test_chi2(observed, expected, kN);
  SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
  const double x_bug = sk_test_chi2(shifted, expected, kN);
  SK_CHECK(x_bug > threshold, "planted off-by-one gave chi-square %.1f, not above %.1f", x_bug, threshold);
  printf("goodness of fit: chi-square %.1f, threshold %.1f (%d dof); planted off-by-one %.3g\n", x, threshold,
         cells - 1, x_bug);
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_counts));
}

// Runs the documentation's usage snippet and compares with the reference, uniforms drawn on the host.
static void test_usage_snippet(void) {
  enum { kRows = 300, kN = 77 };
  float *h_w = (float *)malloc(sizeof(float) * kRows * kN);
  int h_out[kRows];
  uint64_t rng = 31337;
  for (int r = 0; r < kRows; ++r) sk_test_fill_f32(h_w + r * kN, kN, r % 4 == 3 ? 7 : r % 6, &rng);
  for (int i = 0; i < kRows * kN; ++i) h_w[i] = fabsf(h_w[i]);
  float *d_w;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * kRows * kN));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * kRows * kN, cudaMemcpyHostToDevice));
  example_sample_rows<<<(kRows * 32 + 127) / 128, 128>>>(d_w, kRows, kN, 5, d_out);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r) {
    const float total = sk_ref_warp_prefix_total_f32(SK_FULL_MASK, h_w + r * kN, kN);
    const float u = sk_rng_uniform_f32(5, (uint64_t)r, 0) * total;
    const int want = sk_ref_warp_sample_prefix_f32(SK_FULL_MASK, h_w + r * kN, kN, u);
    sk_test_context("usage snippet row %d", r);
    SK_CHECK(h_out[r] == want, "got %d want %d", h_out[r], want);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
}

// --- doubles ---------------------------------------------------------------------------------------

// The kinds of warp_cases.h in double (53-bit uniforms, a skew of 1e300:1, subnormals), made non-negative.
static void fill_weights_f64(double *v, int n, int kind, uint64_t *rng) {
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) {
    const double u = (double)(sk_test_rand_u64(rng) >> 11) * 0x1p-53;
    switch (kind) {
      case 0: v[i] = u; break;
      case 1: v[i] = fabs(2.0 * u - 1.0); break;
      case 2: v[i] = 0.1; break;
      case 3: v[i] = i == hot ? 1.0 : 0.0; break;
      case 4: v[i] = u < 0.1 ? 1e300 * (u + 0.5) : u; break;
      case 5: v[i] = u < 0.5 ? 1e-310 * u : 1e-300 * u; break;
      case 6: v[i] = (double)(sk_test_rand_u32(rng) % 1000u); break;
      default: v[i] = 0.0; break;
    }
  }
}

// The by_ versions read stored * kScale64: a product that rounds, which the sums must take as it is.
static const double kScale64 = 3.0;

struct Case64 {
  size_t offset;  // of the weights (stored values; the weights are stored * kScale64)
  int n;
  uint32_t mask;
  int placement;  // of u, as kUNames
  double u, start, u_from, u_planted;
};

struct ScaledWeights64 {
  const double *values;
  double scale;
  __device__ double operator()(int i) const { return values[i] * scale; }
};

enum { kOutputs64 = 6, kFromRounds = 8 };
// Output of the bounded walk (sk_warp_sample_prefix_from_by_f64<kFromRounds>) for vectors longer than it takes.
static const uint64_t kNotBounded = 0xfffffffffffffffeull;
static const char *const kOutputNames64[kOutputs64] = {"sample_f64", "total_f64", "sample_by_f64",
                                                       "total_by_f64", "sample_from_by_f64", "planted"};

__global__ void sample_cases_f64(const Case64 *cases, const double *w, const double *stored, uint64_t *out,
                                 int num_cases) {
  const int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= num_cases) return;
  const Case64 k = cases[c];
  if (!((k.mask >> sk_lane_id()) & 1u)) return;
  const ScaledWeights64 by{stored + k.offset, kScale64};
  const size_t slot = (size_t)c * 32 + (size_t)sk_lane_id(), stride = (size_t)num_cases * 32;
  out[slot] = (uint64_t)(int64_t)sk_warp_sample_prefix_f64(k.mask, w + k.offset, k.n, k.u);
  out[slot + stride] = (uint64_t)__double_as_longlong(sk_warp_prefix_total_f64(k.mask, w + k.offset, k.n));
  out[slot + 2 * stride] = (uint64_t)(int64_t)sk_warp_sample_prefix_by_f64(k.mask, by, k.n, k.u);
  out[slot + 3 * stride] = (uint64_t)__double_as_longlong(sk_warp_prefix_total_by_f64(k.mask, by, k.n));
  // The bounded walk takes vectors of at most kFromRounds rounds; longer ones give kNotBounded.
  out[slot + 4 * stride] = k.n <= kFromRounds * __popc(k.mask)
                               ? (uint64_t)(int64_t)sk_warp_sample_prefix_from_by_f64<kFromRounds>(k.mask, by, k.n,
                                                                                                    k.start, k.u_from)
                               : kNotBounded;
  // The planted bug: u one ulp lower is the rule ">=" for a u exactly on a running sum.
  out[slot + 5 * stride] = (uint64_t)(int64_t)sk_warp_sample_prefix_f64(k.mask, w + k.offset, k.n, k.u_planted);
}

static void place_u64(int v, const double *run, int n, uint64_t *rng, double *u) {
  const double total = n > 0 ? run[n - 1] : 0.0;
  const int i = n > 0 ? (int)(sk_test_rand_u32(rng) % (uint32_t)n) : 0;
  const double unit = (double)(sk_test_rand_u64(rng) >> 11) * 0x1p-53;
  switch (v) {
    case 0: *u = 0.0; break;
    case 1: *u = unit * total; break;
    case 2: *u = n ? run[i] : 0.0; break;
    case 3: *u = n && run[i] > 0.0 ? nextafter(run[i], 0.0) : 0.0; break;
    case 4: *u = total; break;
    default: *u = total > 0.0 ? nextafter(total, 0.0) : 0.0;
  }
}

// Checks the reference against the definition, with start: a positive-weight result, P > u there, and
// no earlier positive entry with P > u.
static void check_reference_case64(const double *w, const double *run, int n, double u, int got) {
  int any_positive = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    any_positive |= w[i] > 0.0;
    if (first < 0 && w[i] > 0.0 && run[i] > u) first = i;
  }
  if (!any_positive) {
    SK_CHECK(got == -1, "f64: all-zero or empty weights gave %d, want -1", got);
  } else if (first >= 0) {
    SK_CHECK(got == first && w[got] > 0.0, "f64: reference gave %d, definition gives %d", got, first);
  } else {
    SK_CHECK(got >= 0 && w[got] > 0.0, "f64: fallback gave %d, not a positive entry", got);
  }
}

// The double cases: lengths x masks x kinds x placements. w is the array the plain versions read; stored
// * kScale64 = w (the by_ versions' weights, rounded as the device rounds the product). With host_checks,
// the reference against the definition (start 0 and the case's start) and the planted-bug control on
// the host: the rule >= must change some result where u is on a boundary.
static void build_cases64(int seed, Case64 **cases_out, int *num_cases, double **w_out, double **stored_out,
                          size_t *num_weights, int host_checks) {
  uint64_t rng = 0xf64a0000u + (uint64_t)seed;
  const uint32_t masks[kNumMasks] = {0xffffffffu, 0x1u, 0x7fu, 0xffffu, 0x7fffffffu, 1u << 17,
                                     0xffff0000u, 0x55555555u, sk_test_rand_u32(&rng) | 4u,
                                     sk_test_rand_u32(&rng) & sk_test_rand_u32(&rng) | 1u};
  size_t total_weights = 0;
  for (int a = 0; a < kNumLengths; ++a) total_weights += (size_t)kLengths[a] * kNumMasks * SK_TEST_VALUE_KINDS;
  const int n_cases = kNumLengths * kNumMasks * SK_TEST_VALUE_KINDS * kNumU;
  Case64 *cases = (Case64 *)malloc(sizeof(Case64) * n_cases);
  double *w = (double *)malloc(sizeof(double) * (total_weights + 1));
  double *stored = (double *)malloc(sizeof(double) * (total_weights + 1));
  double *run = (double *)malloc(sizeof(double) * 4100), *run_from = (double *)malloc(sizeof(double) * 4100);
  size_t offset = 0;
  int c = 0, planted_differs = 0;
  for (int a = 0; a < kNumLengths; ++a)
    for (int m = 0; m < kNumMasks; ++m)
      for (int kind = 0; kind < SK_TEST_VALUE_KINDS; ++kind) {
        const int n = kLengths[a];
        fill_weights_f64(stored + offset, n, kind, &rng);
        for (int i = 0; i < n; ++i) w[offset + i] = stored[offset + i] * kScale64;
        const double *wk = w + offset;
        sk_ref_warp_running_sums_f64(masks[m], wk, n, 0.0, run);
        const double start = (sk_test_rand_u32(&rng) % 4u == 0) ? 0.0
                             : (double)(sk_test_rand_u64(&rng) >> 11) * 0x1p-53 * (n ? run[n - 1] + 1.0 : 1.0);
        sk_ref_warp_running_sums_f64(masks[m], wk, n, start, run_from);
        for (int v = 0; v < kNumU; ++v, ++c) {
          Case64 *k = &cases[c];
          k->offset = offset;
          k->n = n;
          k->mask = masks[m];
          k->placement = v;
          k->start = start;
          place_u64(v, run, n, &rng, &k->u);
          place_u64(v, run_from, n, &rng, &k->u_from);
          k->u_planted = k->u > 0.0 ? nextafter(k->u, 0.0) : k->u;
          if (host_checks) {
            sk_test_context("f64 reference self-check n=%d mask=%08x values=%s %s", n, masks[m],
                            sk_test_value_kind_names[kind], kUNames[v]);
            check_reference_case64(wk, run, n, k->u, sk_ref_warp_sample_prefix_f64(masks[m], wk, n, 0.0, k->u));
            check_reference_case64(wk, run_from, n, k->u_from,
                                   sk_ref_warp_sample_prefix_f64(masks[m], wk, n, start, k->u_from));
            SK_CHECK(sk_ref_warp_prefix_total_f64(masks[m], wk, n) == (n ? run[n - 1] : 0.0),
                     "f64 total is not the last running sum");
            if (v == 2)
              planted_differs += sk_ref_warp_sample_prefix_f64(masks[m], wk, n, 0.0, k->u_planted) !=
                                 sk_ref_warp_sample_prefix_f64(masks[m], wk, n, 0.0, k->u);
          }
        }
        offset += (size_t)n;
      }
  if (host_checks) {
    sk_test_context("f64 planted-bug control on the host (seed %d)", seed);
    SK_CHECK(planted_differs > 0, "the rule >= gave the rule >'s result for every u on a boundary");
  }
  free(run);
  free(run_from);
  *cases_out = cases;
  *num_cases = n_cases;
  *w_out = w;
  *stored_out = stored;
  *num_weights = offset;
}

static void test_device_exact_f64(int seed) {
  Case64 *cases;
  double *w, *stored;
  int num_cases;
  size_t num_weights;
  build_cases64(seed, &cases, &num_cases, &w, &stored, &num_weights, 0);
  const size_t out_words = (size_t)num_cases * 32 * kOutputs64;
  uint64_t *out = (uint64_t *)malloc(sizeof(uint64_t) * out_words);
  Case64 *d_cases;
  double *d_w, *d_stored;
  uint64_t *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(Case64) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(double) * (num_weights + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_stored, sizeof(double) * (num_weights + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(uint64_t) * out_words));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(Case64) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_w, w, sizeof(double) * (num_weights + 1), cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_stored, stored, sizeof(double) * (num_weights + 1), cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(uint64_t) * out_words));
  sample_cases_f64<<<(num_cases * 32 + 127) / 128, 128>>>(d_cases, d_w, d_stored, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, sizeof(uint64_t) * out_words, cudaMemcpyDeviceToHost));

  int planted_caught = 0;
  for (int c = 0; c < num_cases; ++c) {
    const Case64 *k = &cases[c];
    const double *wk = w + k->offset;
    const double total = sk_ref_warp_prefix_total_f64(k->mask, wk, k->n);
    const int idx = sk_ref_warp_sample_prefix_f64(k->mask, wk, k->n, 0.0, k->u);
    uint64_t total_bits;
    memcpy(&total_bits, &total, sizeof total_bits);
    const uint64_t want[kOutputs64] = {
        (uint64_t)(int64_t)idx, total_bits, (uint64_t)(int64_t)idx, total_bits,
        k->n <= kFromRounds * sk_ref_popc(k->mask)
            ? (uint64_t)(int64_t)sk_ref_warp_sample_prefix_f64(k->mask, wk, k->n, k->start, k->u_from)
            : kNotBounded,
        (uint64_t)(int64_t)idx};
    for (int o = 0; o < kOutputs64; ++o) {
      const uint64_t *got = out + (size_t)o * num_cases * 32 + (size_t)c * 32;
      int bad = -1;
      for (int l = 0; l < 32 && bad < 0; ++l)
        if (got[l] != (((k->mask >> l) & 1u) ? want[o] : 0x7f7f7f7f7f7f7f7full)) bad = l;
      if (o == kOutputs64 - 1) {  // the planted bug: counted where u is on a boundary, not reported
        planted_caught += k->placement == 2 && bad >= 0;
        continue;
      }
      sk_test_context("seed=%d f64 case=%d n=%d mask=%08x values=%s %s u=%.17g start=%.17g u_from=%.17g output=%s",
                      seed, c, k->n, k->mask, sk_test_value_kind_names[(c / kNumU) % SK_TEST_VALUE_KINDS],
                      kUNames[k->placement], k->u, k->start, k->u_from, kOutputNames64[o]);
      SK_CHECK(bad < 0, "first mismatch at lane %d: got 0x%016llx, want 0x%016llx", bad,
               bad >= 0 ? (unsigned long long)got[bad] : 0ull, (unsigned long long)want[o]);
    }
  }
  sk_test_context("seed=%d f64 planted bug (rule >=)", seed);
  SK_CHECK(planted_caught > 0, "the rule >= matched the reference for every u on a boundary");
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_stored));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(cases);
  free(w);
  free(stored);
  free(out);
}

// Goodness of fit of the double draws, as test_goodness_of_fit.
__global__ void draw_many_f64(const double *w, int n, uint64_t seed, int draws_per_warp, unsigned long long *counts) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const double total = sk_warp_prefix_total_f64(SK_FULL_MASK, w, n);
  for (int d = 0; d < draws_per_warp; ++d) {
    const double u = sk_rng_uniform_f64(seed, (uint64_t)warp, (uint64_t)d) * total;
    const int k = sk_warp_sample_prefix_f64(SK_FULL_MASK, w, n, u);
    if (sk_lane_id() == 0) atomicAdd(&counts[k < 0 ? n : k], 1ull);
  }
}

static void test_goodness_of_fit_f64(void) {
  enum { kN = 70, kWarps = 4096, kDrawsPerWarp = 1024 };
  double h_w[kN];
  uint64_t rng = 778;
  for (int i = 0; i < kN; ++i)
    h_w[i] = (i % 7 == 3) ? 0.0 : 0.05 + (double)(sk_test_rand_u64(&rng) >> 11) * 0x1p-53 * (double)(1 + i % 5);
  double *d_w;
  unsigned long long *d_counts, h_counts[kN + 1];
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof h_w));
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof h_counts));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof h_w, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_counts, 0, sizeof h_counts));
  draw_many_f64<<<kWarps * 32 / 256, 256>>>(d_w, kN, 2027, kDrawsPerWarp, d_counts);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost));
  double total = 0, observed[kN], expected[kN], shifted[kN];
  for (int i = 0; i < kN; ++i) total += h_w[i];
  int zero_drawn = 0, cells = 0;
  const double draws = (double)kWarps * kDrawsPerWarp;
  for (int i = 0; i < kN; ++i) {
    observed[i] = (double)h_counts[i];
    expected[i] = draws * h_w[i] / total;
    shifted[i] = (double)h_counts[(i + 1) % kN];
    zero_drawn |= h_w[i] == 0.0 && h_counts[i] != 0;
    cells += h_w[i] > 0.0;
  }
  sk_test_context("f64 goodness of fit, %d categories, %.0f draws", kN, draws);
  SK_CHECK(!zero_drawn && h_counts[kN] == 0, "a zero-weight category or -1 was drawn");
  const double threshold = sk_test_chi2_threshold(cells - 1);
  const double x = sk_test_chi2(observed, expected, kN);
  SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
  const double x_bug = sk_test_chi2(shifted, expected, kN);
  SK_CHECK(x_bug > threshold, "planted off-by-one gave chi-square %.1f, not above %.1f", x_bug, threshold);
  printf("f64 goodness of fit: chi-square %.1f, threshold %.1f (%d dof); planted off-by-one %.3g\n", x, threshold,
         cells - 1, x_bug);
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_counts));
}

int main(int argc, char **argv) {
  {  // The reference against the definition, on the same cases the device sees.
    struct Case *cases;
    float *w_f;
    uint32_t *w_u;
    int num_cases;
    size_t num_weights;
    build_cases(0, &cases, &num_cases, &w_f, &w_u, &num_weights, 1);
    free(cases);
    free(w_f);
    free(w_u);
  }
  {  // The same for the doubles, with the planted-bug control on the host.
    Case64 *cases;
    double *w, *stored;
    int num_cases;
    size_t num_weights;
    build_cases64(0, &cases, &num_cases, &w, &stored, &num_weights, 1);
    free(cases);
    free(w);
    free(stored);
  }
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    test_goodness_of_fit();
    test_goodness_of_fit_f64();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_device_exact(seed);
      test_device_exact_f64(seed);
    }
  }
  return sk_test_finish();
}
