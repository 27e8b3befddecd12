// Tests sk_sample_categorical_* (matrix and product forms): exact agreement with the host reference
// given the uniforms, for every K and weight kind, bad rows, goodness of fit of the drawn indices with
// a planted failure, and the C API's argument checks.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "ref/butterfly_ref.h"
#include "ref/categorical_ref.h"
#include "samplekit/rng.h"
#include "samplekit/sample_categorical.h"
#include "samplekit/sk_device.h"
#include "sk_test.h"
#include "warp_cases.h"

//! [sample_categorical_usage]
// One draw from each row of an M x K matrix of weights on the device; row i uses the uniform
// sk_rng_uniform_f32(seed, 0, offset + i), so the next call passes offset + M for fresh draws.
static sk_status draw_topics(const float *d_weights, size_t M, int K, uint64_t seed, uint64_t *offset, int *d_out,
                             cudaStream_t stream) {
  const sk_status st = sk_sample_categorical_f32(d_weights, (size_t)K, M, K, seed, *offset, d_out, stream);
  if (st == SK_SUCCESS) *offset += M;
  return st;  // a 2xx status keeps CUDA's own error in sk_last_cuda_error()
}
//! [sample_categorical_usage]

static const int kKs[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 1024, 1025, 10000, 32768, 100000};
enum { kNumKs = sizeof kKs / sizeof kKs[0], kRowKinds = 11 };
static const char *const kRowKindNames[kRowKinds] = {
    "uniform", "one-hot", "half zeros", "all equal", "skewed 1e30:1", "tiny and subnormal",
    "integers summing to 2^m (u on a boundary)", "integers (u random)", "all zero", "contains +inf", "contains NaN"};

// One row of a kind; for kind 6 also a uniform that puts u exactly on a running sum (returned through
// *boundary_uniform, else -1).
static void fill_row(float *w, int K, int kind, uint64_t *rng, float *boundary_uniform) {
  *boundary_uniform = -1.0f;
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)K);
  for (int k = 0; k < K; ++k) {
    const float u = sk_test_rand_unit_f32(rng);
    switch (kind) {
      case 0: w[k] = u; break;
      case 1: w[k] = k == hot ? 1.0f : 0.0f; break;
      case 2: w[k] = u < 0.5f ? 0.0f : u; break;
      case 3: w[k] = 0.25f; break;
      case 4: w[k] = u < 0.01f ? 1e30f * (u + 0.5f) : u; break;
      case 5: w[k] = u < 0.3f ? 1e-41f : 1e-30f * u; break;
      case 6: case 7: w[k] = (float)(sk_test_rand_u32(rng) % 4u); break;
      case 8: w[k] = 0.0f; break;
      default: w[k] = u; break;
    }
  }
  if (kind == 9) w[hot] = INFINITY;
  if (kind == 10) w[hot] = NAN;
  if (kind == 6) {
    // Integer weights (exact in any order) topped up so that the total is a power of two: then u =
    // (P_i / 2^m) * 2^m = P_i exactly, for a running sum P_i of the natural order.
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += w[k];
    const double pow2 = ldexp(1.0, (int)ceil(log2(sum + 1.0)));
    w[K - 1] += (float)(pow2 - sum);
    const int i = (int)(sk_test_rand_u32(rng) % (uint32_t)K);
    double p = 0;
    for (int k = 0; k <= i; ++k) p += w[k];
    *boundary_uniform = (float)(p / pow2);
    if (*boundary_uniform >= 1.0f) *boundary_uniform = 0.0f;
  }
}

// A uniform for row r of a kind: boundary where constructed, else 0, the largest below 1, or random.
static float row_uniform(int r, float boundary, uint64_t *rng) {
  if (boundary >= 0.0f) return boundary;
  switch (r % 4) {
    case 0: return 0.0f;
    case 1: return 1.0f - ldexpf(1.0f, -24);
    default: return sk_test_rand_unit_f32(rng);
  }
}

// The reference for one row under an algorithm (V: entries per lane of the group-row path).
static int reference_index(const float *w, int K, sk_categorical_algorithm alg, int V, float uniform, float *total) {
  return alg == SK_CATEGORICAL_BUTTERFLY ? sk_ref_butterfly_sample_f32(w, K, uniform, total)
                                         : sk_ref_categorical_group_row_f32(w, K, sk_sample_categorical_group_lanes(K, V), V,
                                                                            uniform, total);
}

// Runs the matrix form with given uniforms on rows stored with stride ld (ld % 4 decides the entries
// per lane of the group-row path) and compares with the reference.
static void exact_matrix_case(int K, size_t ld, int V, sk_categorical_algorithm alg, int seed) {
  const int rows = K >= 10000 ? 2 * kRowKinds : K >= 1000 ? 4 * kRowKinds : 16 * kRowKinds;
  uint64_t rng = 0xc47e0000u + (uint64_t)seed * 1000003u + (uint64_t)K;
  float *h_w = (float *)calloc((size_t)rows * ld, sizeof(float));
  float *h_u = (float *)malloc(sizeof(float) * rows);
  int *h_out = (int *)malloc(sizeof(int) * rows);
  for (int r = 0; r < rows; ++r) {
    float boundary;
    fill_row(h_w + (size_t)r * ld, K, r % kRowKinds, &rng, &boundary);
    h_u[r] = row_uniform(r / kRowKinds, boundary, &rng);
  }
  float *d_w, *d_u;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * rows * ld));
  SK_CHECK_CUDA(cudaMalloc(&d_u, sizeof(float) * rows));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * rows));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * rows * ld, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_u, h_u, sizeof(float) * rows, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * rows));
  sk_test_context("matrix K=%d ld=%zu algorithm=%d seed=%d", K, ld, (int)alg, seed);
  const sk_status st = sk_sample_categorical_with_uniforms_f32(d_w, ld, (size_t)rows, K, alg, d_u, d_out, 0);
  SK_CHECK(st == SK_SUCCESS, "returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * rows, cudaMemcpyDeviceToHost));
  for (int r = 0; r < rows; ++r) {
    float total;
    const float *w = h_w + (size_t)r * ld;
    const int want = reference_index(w, K, alg, V, h_u[r], &total);
    sk_test_context("matrix K=%d ld=%zu algorithm=%d (V=%d) seed=%d row=%d kind=%s uniform=%a", K, ld,
                    (int)alg, V, seed, r, kRowKindNames[r % kRowKinds], (double)h_u[r]);
    SK_CHECK(h_out[r] == want, "got %d, want %d (total %g)", h_out[r], want, (double)total);
    if (want >= 0) SK_CHECK(w[want] > 0.0f, "the reference chose a zero-weight entry %d", want);
    if (r % kRowKinds >= 8) SK_CHECK(want == -1, "a bad row gave %d, not -1", want);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_u));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
  free(h_u);
  free(h_out);
}

// Product form: theta (D rows) and phi (W rows) of stride ld; items with random ids, some out of range.
static void exact_product_case(int K, size_t ld, int V, sk_categorical_algorithm alg, int seed) {
  enum { kDocs = 7, kWords = 11 };
  const int items = K >= 10000 ? 24 : 200;
  uint64_t rng = 0x9d0c0000u + (uint64_t)seed * 7919u + (uint64_t)K;
  float *h_theta = (float *)calloc(kDocs * ld, sizeof(float)), *h_phi = (float *)calloc(kWords * ld, sizeof(float));
  float *row = (float *)malloc(sizeof(float) * K), *h_u = (float *)malloc(sizeof(float) * items), boundary;
  int *h_docs = (int *)malloc(sizeof(int) * items), *h_words = (int *)malloc(sizeof(int) * items);
  int *h_out = (int *)malloc(sizeof(int) * items);
  for (int d = 0; d < kDocs; ++d) fill_row(h_theta + d * ld, K, d % 6, &rng, &boundary);
  for (int w = 0; w < kWords; ++w) fill_row(h_phi + w * ld, K, w == 10 ? 8 : w % 6, &rng, &boundary);
  for (int i = 0; i < items; ++i) {
    h_docs[i] = (int)(sk_test_rand_u32(&rng) % kDocs);
    h_words[i] = (int)(sk_test_rand_u32(&rng) % kWords);
    if (i % 17 == 5) h_docs[i] = kDocs;     // out of range: -1
    if (i % 19 == 7) h_words[i] = -1;       // out of range: -1
    h_u[i] = row_uniform(i, -1.0f, &rng);
  }
  float *d_theta, *d_phi, *d_u;
  int *d_docs, *d_words, *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_theta, sizeof(float) * kDocs * ld));
  SK_CHECK_CUDA(cudaMalloc(&d_phi, sizeof(float) * kWords * ld));
  SK_CHECK_CUDA(cudaMalloc(&d_u, sizeof(float) * items));
  SK_CHECK_CUDA(cudaMalloc(&d_docs, sizeof(int) * items));
  SK_CHECK_CUDA(cudaMalloc(&d_words, sizeof(int) * items));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * items));
  SK_CHECK_CUDA(cudaMemcpy(d_theta, h_theta, sizeof(float) * kDocs * ld, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_phi, h_phi, sizeof(float) * kWords * ld, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_u, h_u, sizeof(float) * items, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_docs, h_docs, sizeof(int) * items, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_words, h_words, sizeof(int) * items, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * items));
  sk_test_context("product K=%d ld=%zu algorithm=%d seed=%d", K, ld, (int)alg, seed);
  const sk_status st = sk_sample_categorical_product_with_uniforms_f32(d_theta, ld, kDocs, d_phi, ld, kWords, K, d_docs,
                                                                       d_words, (size_t)items, alg, d_u, d_out, 0);
  SK_CHECK(st == SK_SUCCESS, "returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * items, cudaMemcpyDeviceToHost));
  for (int i = 0; i < items; ++i) {
    int want = -1;
    float total = 0.0f;
    if (h_docs[i] >= 0 && h_docs[i] < kDocs && h_words[i] >= 0 && h_words[i] < kWords) {
      sk_ref_butterfly_product_f32(h_theta + h_docs[i] * ld, h_phi + h_words[i] * ld, K, row);
      want = reference_index(row, K, alg, V, h_u[i], &total);
    }
    sk_test_context("product K=%d ld=%zu algorithm=%d (V=%d) seed=%d item=%d doc=%d word=%d uniform=%a", K,
                    ld, (int)alg, V, seed, i, h_docs[i], h_words[i], (double)h_u[i]);
    SK_CHECK(h_out[i] == want, "got %d, want %d (total %g)", h_out[i], want, (double)total);
  }
  SK_CHECK_CUDA(cudaFree(d_theta));
  SK_CHECK_CUDA(cudaFree(d_phi));
  SK_CHECK_CUDA(cudaFree(d_u));
  SK_CHECK_CUDA(cudaFree(d_docs));
  SK_CHECK_CUDA(cudaFree(d_words));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_theta);
  free(h_phi);
  free(row);
  free(h_u);
  free(h_docs);
  free(h_words);
  free(h_out);
}

// Row strides that select each group-row variant: a multiple of 4 (float4 rounds), and not (scalar).
static size_t ld_vec4(int K) { return ((size_t)K + 3) & ~(size_t)3; }
static size_t ld_scalar(int K) { return (size_t)K + ((K + 1) % 4 == 0 ? 2 : 1); }

// Enough rows that every warp of the group-row kernel takes several in turn (its grid is capped at a
// few blocks per SM and it loads the next rows during the current search): all rows against the
// reference, with a bad row now and then.
static void exact_many_rows(int K, size_t rows, int seed) {
  uint64_t rng = 0x3a11ull * (uint64_t)(seed + 1) + (uint64_t)K;
  float *h_w = (float *)malloc(sizeof(float) * rows * K), *h_u = (float *)malloc(sizeof(float) * rows);
  int *h_out = (int *)malloc(sizeof(int) * rows);
  for (size_t r = 0; r < rows; ++r) {
    float boundary;
    fill_row(h_w + r * K, K, r % 997 == 5 ? 8 : (int)(r % 3), &rng, &boundary);
    h_u[r] = sk_test_rand_unit_f32(&rng);
  }
  float *d_w, *d_u;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * rows * K));
  SK_CHECK_CUDA(cudaMalloc(&d_u, sizeof(float) * rows));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * rows));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * rows * K, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_u, h_u, sizeof(float) * rows, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * rows));
  sk_test_context("many rows: K=%d rows=%zu seed=%d", K, rows, seed);
  SK_CHECK(sk_sample_categorical_with_uniforms_f32(d_w, (size_t)K, rows, K, SK_CATEGORICAL_GROUP_ROW, d_u, d_out, 0) ==
               SK_SUCCESS, "launch");
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * rows, cudaMemcpyDeviceToHost));
  size_t bad = 0, first_bad = 0;
  for (size_t r = 0; r < rows; ++r) {
    float total;
    const int want = reference_index(h_w + r * K, K, SK_CATEGORICAL_GROUP_ROW, 4, h_u[r], &total);
    if (h_out[r] != want && bad++ == 0) first_bad = r;
  }
  SK_CHECK(bad == 0, "%zu rows differ from the reference, the first at row %zu", bad, first_bad);
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_u));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
  free(h_u);
  free(h_out);
}

static void test_exact(int seed) {
  exact_many_rows(64, 300000, seed);
  exact_many_rows(1024, 40000, seed);
  for (int a = 0; a < kNumKs; ++a) {
    const int K = kKs[a];
    exact_matrix_case(K, ld_vec4(K), 4, SK_CATEGORICAL_GROUP_ROW, seed);
    exact_matrix_case(K, ld_scalar(K), 1, SK_CATEGORICAL_GROUP_ROW, seed);
    exact_matrix_case(K, ld_scalar(K), 1, SK_CATEGORICAL_BUTTERFLY, seed);
    exact_product_case(K, ld_vec4(K), 4, SK_CATEGORICAL_GROUP_ROW, seed);
    exact_product_case(K, ld_scalar(K), 1, SK_CATEGORICAL_GROUP_ROW, seed);
    exact_product_case(K, ld_vec4(K), 4, SK_CATEGORICAL_BUTTERFLY, seed);
  }
}

// Goodness of fit: many draws from one distribution (with zero-weight categories) through the public
// API with RNG uniforms, counted and compared with the probabilities by chi-square; the same statistic
// on counts shifted by one category (an off-by-one bug) must be rejected.
static void check_fit(const int *h_out, size_t n, const float *w, int K, const char *what) {
  double *observed = (double *)calloc(K, sizeof(double)), *expected = (double *)calloc(K, sizeof(double));
  double *shifted = (double *)calloc(K, sizeof(double)), total = 0;
  int bad = 0, cells = 0;
  for (int k = 0; k < K; ++k) total += w[k];
  for (size_t i = 0; i < n; ++i) {
    if (h_out[i] < 0 || h_out[i] >= K || w[h_out[i]] == 0.0f) ++bad;
    else observed[h_out[i]] += 1;
  }
  for (int k = 0; k < K; ++k) {
    expected[k] = (double)n * w[k] / total;
    shifted[k] = observed[(k + 1) % K];
    cells += w[k] > 0.0f;
  }
  const double threshold = sk_test_chi2_threshold(cells - 1);
  const double x = sk_test_chi2(observed, expected, K), x_bug = sk_test_chi2(shifted, expected, K);
  sk_test_context("goodness of fit: %s, K=%d, %zu draws", what, K, n);
  SK_CHECK(bad == 0, "%d draws were out of range or had weight 0", bad);
  SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
  SK_CHECK(x_bug > threshold, "a planted off-by-one gave %.1f, not above %.1f", x_bug, threshold);
  printf("goodness of fit %-44s K=%-5d chi-square %8.1f threshold %8.1f (off-by-one: %.3g)\n", what, K, x,
         threshold, x_bug);
  free(observed);
  free(expected);
  free(shifted);
}

__global__ void tile_rows(const float *row, int K, size_t ld, size_t rows, float *out) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * (size_t)K; i += (size_t)gridDim.x * blockDim.x)
    out[(i / K) * ld + i % K] = row[i % K];
}

static void test_goodness_of_fit(void) {
  const int Ks[] = {50, 300, 1000};
  const size_t n = (size_t)1 << 20;
  for (size_t a = 0; a < sizeof Ks / sizeof Ks[0]; ++a) {
    const int K = Ks[a];
    float *w = (float *)malloc(sizeof(float) * K);
    uint64_t rng = 4444 + (uint64_t)K;
    for (int k = 0; k < K; ++k) w[k] = k % 9 == 4 ? 0.0f : 0.1f + sk_test_rand_unit_f32(&rng) * (float)(1 + k % 3);
    int *h_out = (int *)malloc(sizeof(int) * n), *d_out, *d_ids;
    float *d_row, *d_w;
    SK_CHECK_CUDA(cudaMalloc(&d_row, sizeof(float) * K));
    SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * n));
    SK_CHECK_CUDA(cudaMalloc(&d_ids, sizeof(int) * n));
    SK_CHECK_CUDA(cudaMemcpy(d_row, w, sizeof(float) * K, cudaMemcpyHostToDevice));
    SK_CHECK_CUDA(cudaMemset(d_ids, 0, sizeof(int) * n));  // every item: document 0, word 0
    const sk_categorical_algorithm algs[2] = {SK_CATEGORICAL_BUTTERFLY, SK_CATEGORICAL_GROUP_ROW};
    for (int g = 0; g < 2; ++g) {
      char what[64];
      if (K <= 64) {  // the matrix form: n copies of the row (kept small: n K floats)
        SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * n * K));
        tile_rows<<<4096, 256>>>(d_row, K, (size_t)K, n, d_w);
        SK_CHECK_LAUNCH();
        sk_test_context("goodness of fit matrix K=%d", K);
        SK_CHECK(sk_sample_categorical_ex_f32(d_w, (size_t)K, n, K, algs[g], 99, 1000, d_out, 0) == SK_SUCCESS,
                 "launch");
        SK_CHECK_LAUNCH();
        SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * n, cudaMemcpyDeviceToHost));
        snprintf(what, sizeof what, "matrix, %s", g ? "group-row" : "butterfly");
        check_fit(h_out, n, w, K, what);
        SK_CHECK_CUDA(cudaFree(d_w));
      }
      // The product form: theta's row of ones times phi's row of weights, for every item.
      float *d_ones;
      float *ones = (float *)malloc(sizeof(float) * K);
      for (int k = 0; k < K; ++k) ones[k] = 1.0f;
      SK_CHECK_CUDA(cudaMalloc(&d_ones, sizeof(float) * K));
      SK_CHECK_CUDA(cudaMemcpy(d_ones, ones, sizeof(float) * K, cudaMemcpyHostToDevice));
      sk_test_context("goodness of fit product K=%d", K);
      SK_CHECK(sk_sample_categorical_product_ex_f32(d_ones, (size_t)K, 1, d_row, (size_t)K, 1, K, d_ids, d_ids, n,
                                                    algs[g], 7, 0, d_out, 0) == SK_SUCCESS,
               "launch");
      SK_CHECK_LAUNCH();
      SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * n, cudaMemcpyDeviceToHost));
      snprintf(what, sizeof what, "product, %s", g ? "group-row" : "butterfly");
      check_fit(h_out, n, w, K, what);
      SK_CHECK_CUDA(cudaFree(d_ones));
      free(ones);
    }
    SK_CHECK_CUDA(cudaFree(d_row));
    SK_CHECK_CUDA(cudaFree(d_out));
    SK_CHECK_CUDA(cudaFree(d_ids));
    free(w);
    free(h_out);
  }
}

// The usage snippet, run: its draws must be what the reference gives for the RNG's uniforms.
static void test_usage_snippet(void) {
  enum { kM = 1000, kK = 200 };
  float *h_w = (float *)malloc(sizeof(float) * kM * kK), *d_w, boundary;
  int h_out[kM], *d_out;
  uint64_t rng = 5, offset = 77;
  for (int r = 0; r < kM; ++r) fill_row(h_w + r * kK, kK, r % 6, &rng, &boundary);
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * kM * kK));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * kM * kK, cudaMemcpyHostToDevice));
  sk_test_context("usage snippet");
  SK_CHECK(draw_topics(d_w, kM, kK, 3, &offset, d_out, 0) == SK_SUCCESS && offset == 77 + kM, "draw_topics");
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < kM; ++r) {
    float total;
    const sk_categorical_algorithm chosen =
        kK <= SK_CATEGORICAL_BUTTERFLY_MAX_K ? SK_CATEGORICAL_BUTTERFLY : SK_CATEGORICAL_GROUP_ROW;
    bad += h_out[r] != reference_index(h_w + r * kK, kK, chosen, 4, sk_rng_uniform_f32(3, 0, 77 + r), &total);
  }
  SK_CHECK(bad == 0, "%d rows differ from the reference", bad);
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
}

// Invalid arguments give the documented status without touching CUDA (this part runs without a GPU).
static void test_arguments(void) {
  float w = 1.0f;
  int out = 0, id = 0;
  const float *W = &w;
  sk_clear_cuda_error();
  sk_test_context("argument checks");
  SK_CHECK(sk_sample_categorical_f32(W, 1, 1, 0, 1, 0, &out, 0) == SK_ERROR_INVALID_VALUE, "K = 0");
  SK_CHECK(sk_sample_categorical_f32(W, SK_CATEGORICAL_MAX_K + 1, 1, SK_CATEGORICAL_MAX_K + 1, 1, 0, &out, 0) ==
               SK_ERROR_INVALID_VALUE, "K too large");
  SK_CHECK(sk_sample_categorical_f32(W, 3, 1, 4, 1, 0, &out, 0) == SK_ERROR_INVALID_VALUE, "ld < K");
  SK_CHECK(sk_sample_categorical_f32(W, 4, 10, 4, 1, UINT64_MAX - 3, &out, 0) == SK_ERROR_INVALID_VALUE,
           "offset overflow");
  SK_CHECK(sk_sample_categorical_ex_f32(W, 4, 1, 4, (sk_categorical_algorithm)7, 1, 0, &out, 0) ==
               SK_ERROR_INVALID_VALUE, "unknown algorithm");
  SK_CHECK(sk_sample_categorical_f32(NULL, 4, 1, 4, 1, 0, &out, 0) == SK_ERROR_NULL_POINTER, "NULL weights");
  SK_CHECK(sk_sample_categorical_f32(W, 4, 1, 4, 1, 0, NULL, 0) == SK_ERROR_NULL_POINTER, "NULL output");
  SK_CHECK(sk_sample_categorical_f32(NULL, 4, 0, 4, 1, 0, NULL, 0) == SK_SUCCESS, "M = 0 launches nothing");
  SK_CHECK(sk_sample_categorical_with_uniforms_f32(W, 4, 1, 4, SK_CATEGORICAL_AUTO, NULL, &out, 0) ==
               SK_ERROR_NULL_POINTER, "NULL uniforms");
  SK_CHECK(sk_sample_categorical_product_f32(W, 4, 1, W, 4, 1, 4, NULL, &id, 1, 1, 0, &out, 0) ==
               SK_ERROR_NULL_POINTER, "NULL doc ids");
  SK_CHECK(sk_sample_categorical_product_f32(W, 4, 1, W, 3, 1, 4, &id, &id, 1, 1, 0, &out, 0) ==
               SK_ERROR_INVALID_VALUE, "ld_phi < K");
  SK_CHECK(sk_sample_categorical_product_f32(W, 4, -1, W, 4, 1, 4, &id, &id, 1, 1, 0, &out, 0) ==
               SK_ERROR_INVALID_VALUE, "negative document count");
  SK_CHECK(sk_sample_categorical_product_with_uniforms_f32(W, 4, 1, W, 4, 1, 4, &id, &id, 1, SK_CATEGORICAL_AUTO,
                                                           NULL, &out, 0) == SK_ERROR_NULL_POINTER,
           "product, NULL uniforms");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA");
}

// The reference against the definition, on the same kinds of rows the device sees.
static void test_reference(void) {
  uint64_t rng = 8;
  for (int a = 0; a < kNumKs; ++a) {
    const int K = kKs[a] > 10000 ? 10000 : kKs[a];
    float *w = (float *)malloc(sizeof(float) * K), boundary;
    for (int kind = 0; kind < kRowKinds; ++kind) {
      fill_row(w, K, kind, &rng, &boundary);
      float total;
      const float u = boundary >= 0.0f ? boundary : sk_test_rand_unit_f32(&rng);
      const int got = sk_ref_categorical_group_row_f32(w, K, sk_sample_categorical_group_lanes(K, 4), 4, u, &total);
      sk_test_context("reference self-check K=%d kind=%s", K, kRowKindNames[kind]);
      int any_positive = 0;
      for (int k = 0; k < K; ++k) any_positive |= w[k] > 0.0f;
      if (kind >= 8 || !any_positive) SK_CHECK(got == -1, "bad or all-zero row gave %d", got);
      else SK_CHECK(got >= 0 && got < K && w[got] > 0.0f, "gave %d, not a positive entry", got);
      if (kind == 6) {  // exact integers: u = P_i, and the result is the next positive entry after i
        double p = 0;
        int want = -1;
        for (int k = 0; k < K && want < 0; ++k) {
          p += w[k];
          if (w[k] > 0.0f && p > (double)u * (double)total) want = k;
        }
        SK_CHECK(got == want, "boundary rule: got %d, want %d", got, want);
      }
    }
    free(w);
  }
}

int main(int argc, char **argv) {
  test_arguments();
  test_reference();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    for (int seed = 0; seed < (sk_test_seed_count() + 3) / 4; ++seed) test_exact(seed);
    test_goodness_of_fit();
  }
  return sk_test_finish();
}
