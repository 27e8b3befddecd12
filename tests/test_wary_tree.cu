// Tests the W-ary sampling tree (wary_tree.h, wary_tree.cuh, kernels/wary_tree.cu):
// - host: the layout helpers against the reference's own layout; the reference against the documented
//   rules (structure, search properties, agreement with sk_warp_sample_prefix where sums are exact);
//   the C API's argument checks, which must not touch CUDA;
// - GPU: tree bits of the warp build, the block build (global and shared memory, several block sizes)
//   and the batched C API (every launch shape) equal the reference's; both searches equal the
//   reference for u at 0, random, on and just below running sums, at, around and above the total,
//   negative and NaN; the batched sampler equals the reference with the RNG replayed on the host;
//   goodness of fit of the sampler, with a planted off-by-one that must be rejected.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/warp_ref.h"
#include "ref/wary_tree_ref.h"
#include "samplekit/rng.cuh"
#include "samplekit/samplekit.h"
#include "samplekit/wary_tree.cuh"
#include "sk_test.h"
#include "warp_cases.h"  // SK_TEST_POISON_BYTE and SK_TEST_POISON_WORD

//! [wary_tree_usage]
// One block per row of a row-major num_rows x n weight matrix, n <= EXAMPLE_MAX_LEAVES: the block
// builds the row's tree in shared memory, then each warp draws `draws_per_warp` leaves from it,
// keeping the tree's top level in a register (one float per lane).
#define EXAMPLE_MAX_LEAVES 4096
__global__ void example_draw_from_rows(const float *weights, int n, uint64_t seed, int draws_per_warp, int *out) {
  __shared__ float tree[SK_WARY_TREE_FLOATS(EXAMPLE_MAX_LEAVES)];
  __shared__ sk_wary_tree_block_storage storage;
  const int row = blockIdx.x;
  sk_wary_tree_block_build_f32(threadIdx.x, blockDim.x, &storage, weights + (size_t)row * n, n, tree);
  // The build ends with __syncthreads(): every warp of the block may search the tree now.
  const sk_wary_tree_view_f32 view = sk_wary_tree_make_view_f32(tree, n);
  const float top = sk_wary_tree_load_top_f32(view);
  const float total = sk_wary_tree_top_total_f32(top);
  const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int d = 0; d < draws_per_warp; ++d) {
    const uint64_t draw = ((uint64_t)row * warps + warp) * draws_per_warp + d;
    const float u = sk_rng_uniform_f32(seed, 0, draw) * total;  // samplekit's (seed, 0, counter) convention
    const int k = sk_wary_tree_search_top_f32(view, top, u);    // a leaf of positive weight; -1 if all are 0
    if (sk_lane_id() == 0) out[draw] = k;
  }
}
//! [wary_tree_usage]

static const int kLengths[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 1024, 1025, 10000, 32768, 32769, 100000,
                               1048576};
enum { kNumLengths = sizeof kLengths / sizeof kLengths[0] };

// ---------------------------------------------------------------------------------------------------
// Inputs: one row per weight kind; placements of u.

enum {
  kKindUniform,
  kKindOneHot,
  kKindZeros,
  kKindEqual,
  kKindSkewed,
  kKindTiny,
  kKindInteger,
  kKindAllZero,
  kNumKinds
};
static const char *const kKindNames[kNumKinds] = {"uniform [0,1)",  "one-hot",        "zero runs",
                                                  "all equal 0.1",  "skewed 1e30:1",  "tiny and subnormal",
                                                  "integers 0..15", "all zero"};

static void fill_weights(float *w, int n, int kind, uint64_t *rng) {
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)n);
  int zero_run = sk_test_rand_u32(rng) % 2u ? (int)(sk_test_rand_u32(rng) % 40u) : 0;  // leading zeros too
  for (int i = 0; i < n; ++i) {
    const float u = sk_test_rand_unit_f32(rng);
    switch (kind) {
      case kKindUniform: w[i] = u; break;
      case kKindOneHot: w[i] = i == hot ? 1.0f : 0.0f; break;
      case kKindZeros:
        // Runs of zeros of length 1 to 70 (crossing round boundaries) between positive weights.
        if (zero_run == 0 && sk_test_rand_u32(rng) % 4u == 0) zero_run = 1 + (int)(sk_test_rand_u32(rng) % 70u);
        if (zero_run > 0) {
          w[i] = 0.0f;
          --zero_run;
        } else {
          w[i] = 0.001f + u;
        }
        break;
      case kKindEqual: w[i] = 0.1f; break;
      case kKindSkewed: w[i] = u < 0.1f ? 1e30f * (u + 0.5f) : u; break;
      case kKindTiny: w[i] = u < 0.5f ? 1e-40f * u : 1e-30f * u; break;
      case kKindInteger: w[i] = (float)(sk_test_rand_u32(rng) % 16u); break;
      default: w[i] = 0.0f; break;
    }
  }
}

enum { kNumU = 22 };
static const char *const kUNames[kNumU] = {
    "u = 0",          "u random",       "u random",        "u random",          "u random",
    "u on P_i",       "u on P_i",       "u on P_i before a zero", "u just below P_i", "u just below P_i",
    "u = total",      "u just below total", "u just above total", "u = 2 total", "u = +inf",
    "u = FLT_MAX",    "u = -1",         "u = -0",          "u = -inf",          "u = NaN",
    "u = 1e-45",      "u random"};

static float place_u(int v, const float *w, const float *leaf, int n, float total, uint64_t *rng) {
  const int i = (int)(sk_test_rand_u32(rng) % (uint32_t)n);
  switch (v) {
    case 0: return 0.0f;
    case 1: case 2: case 3: case 4: case 21: return sk_test_rand_unit_f32(rng) * total;
    case 5: case 6: return leaf[i];
    case 7:
      // A running sum whose next leaf weighs 0: the draw must skip the zeros to the next positive leaf.
      for (int k = 0; k < n; ++k) {
        const int j = (i + k) % n;
        if (j + 1 < n && w[j] > 0.0f && w[j + 1] == 0.0f) return leaf[j];
      }
      return leaf[i];
    case 8: case 9: return leaf[i] > 0.0f ? nextafterf(leaf[i], 0.0f) : 0.0f;
    case 10: return total;
    case 11: return total > 0.0f ? nextafterf(total, 0.0f) : 0.0f;
    case 12: return nextafterf(total, INFINITY);
    case 13: return 2.0f * total;
    case 14: return INFINITY;
    case 15: return FLT_MAX;
    case 16: return -1.0f;
    case 17: return -0.0f;
    case 18: return -INFINITY;
    case 19: return NAN;
    default: return 1e-45f;
  }
}

// One row per kind for one length: the weights (row stride ld, the gap filled with NaN so that a read
// past n would show), the reference trees and leaf sums, the u placements and the reference's results.
typedef struct TreeSet {
  int n;
  size_t ld, floats;
  float *w, *tree, *leaf;
  float u[kNumKinds][kNumU];
  int expect[kNumKinds][kNumU];
} TreeSet;

static void make_tree_set(TreeSet *t, int seed, int n) {
  uint64_t rng = 0x72ee0000u + (uint64_t)seed * 1000003u + (uint64_t)n;
  t->n = n;
  t->ld = (size_t)n + 3;
  t->floats = sk_ref_wary_tree_floats(n);
  t->w = (float *)malloc(sizeof(float) * t->ld * kNumKinds);
  t->tree = (float *)malloc(sizeof(float) * t->floats * kNumKinds);
  t->leaf = (float *)malloc(sizeof(float) * (size_t)n * kNumKinds);
  if (!t->w || !t->tree || !t->leaf) {
    fprintf(stderr, "out of host memory\n");
    exit(1);
  }
  for (int k = 0; k < kNumKinds; ++k) {
    float *w = t->w + (size_t)k * t->ld;
    fill_weights(w, n, k, &rng);
    for (size_t i = (size_t)n; i < t->ld; ++i) w[i] = NAN;
    sk_ref_wary_tree_build_f32(w, n, t->tree + (size_t)k * t->floats);
    sk_ref_wary_tree_leaf_sums_f32(w, n, t->leaf + (size_t)k * n);
    const float total = sk_ref_wary_tree_total_f32(t->tree + (size_t)k * t->floats, n);
    for (int v = 0; v < kNumU; ++v) {
      t->u[k][v] = place_u(v, w, t->leaf + (size_t)k * n, n, total, &rng);
      t->expect[k][v] = sk_ref_wary_tree_search_f32(t->tree + (size_t)k * t->floats, n, t->u[k][v]);
    }
  }
}

static void free_tree_set(TreeSet *t) {
  free(t->w);
  free(t->tree);
  free(t->leaf);
}

// ---------------------------------------------------------------------------------------------------
// Host checks.

// The header's layout helpers and macro against the reference's restatement of the layout.
static void check_layout(int n) {
  sk_test_context("layout n=%d", n);
  const int levels = sk_ref_wary_tree_num_levels(n);
  SK_CHECK(sk_wary_tree_num_levels(n) == levels, "num_levels %d, reference %d", sk_wary_tree_num_levels(n), levels);
  SK_CHECK(sk_wary_tree_floats(n) == sk_ref_wary_tree_floats(n), "floats %zu, reference %zu",
           sk_wary_tree_floats(n), sk_ref_wary_tree_floats(n));
  SK_CHECK((size_t)SK_WARY_TREE_FLOATS(n) == sk_ref_wary_tree_floats(n), "SK_WARY_TREE_FLOATS %d, reference %zu",
           SK_WARY_TREE_FLOATS(n), sk_ref_wary_tree_floats(n));
  const sk_wary_tree_view_f32 view = sk_wary_tree_make_view_f32(NULL, n);
  SK_CHECK(view.n == n && view.num_levels == levels, "view n %d levels %d", view.n, view.num_levels);
  for (int k = 0; k <= levels; ++k) {
    SK_CHECK(sk_wary_tree_level_offset(n, k) == sk_ref_wary_tree_level_offset(n, k), "offset of level %d: %zu, ref %zu",
             k, sk_wary_tree_level_offset(n, k), sk_ref_wary_tree_level_offset(n, k));
    if (k < levels) {
      SK_CHECK(sk_wary_tree_level_entries(n, k) == sk_ref_wary_tree_level_entries(n, k), "entries of level %d", k);
      SK_CHECK((size_t)view.level_offset[k] == sk_ref_wary_tree_level_offset(n, k), "view offset of level %d", k);
    }
  }
  for (int k = levels; k < SK_WARY_TREE_MAX_LEVELS; ++k)
    SK_CHECK(view.level_offset[k] == 0, "unused view offset %d", k);
  SK_CHECK(sk_wary_tree_level_entries(n, levels - 1) <= 32 &&
               (levels == 1 || sk_wary_tree_level_entries(n, levels - 2) > 32),
           "the top level is not the first of at most 32 entries");
  SK_CHECK((size_t)sk_wary_tree_top_offset_f32(view) + 32 == sk_wary_tree_floats(n),
           "the top level is not the last 32 floats");
  SK_CHECK(levels == (n <= 32 ? 1 : n <= 1024 ? 2 : n <= 32768 ? 3 : 4),
           "level count differs from the documented ranges");
}

static void test_layout(void) {
  for (int n = 1; n <= 4200; ++n) check_layout(n);
  for (int a = 0; a < kNumLengths; ++a) check_layout(kLengths[a]);
  const int more[] = {32767, 32770, 65536, 1048575, 1048544, 1048545};
  for (size_t a = 0; a < sizeof more / sizeof more[0]; ++a) check_layout(more[a]);
  sk_test_context("layout, documented sizes");
  SK_CHECK(sk_wary_tree_floats(1) == 32 && sk_wary_tree_floats(32) == 32 && sk_wary_tree_floats(33) == 96 &&
               sk_wary_tree_floats(1024) == 1056 && sk_wary_tree_floats(1025) == 1152 &&
               sk_wary_tree_floats(1048576) == 1048576 + 32768 + 1024 + 32,
           "a hand-computed size differs");
  const int bad[] = {0, -1, INT_MIN, 1048577, INT_MAX};
  for (size_t a = 0; a < sizeof bad / sizeof bad[0]; ++a) {
    sk_test_context("layout, invalid n=%d", bad[a]);
    SK_CHECK(sk_wary_tree_num_levels(bad[a]) == 0 && sk_wary_tree_floats(bad[a]) == 0 &&
                 sk_wary_tree_level_offset(bad[a], 0) == 0 && sk_wary_tree_level_entries(bad[a], 0) == 0,
             "an invalid n gave a non-zero layout");
  }
  sk_test_context("layout, level out of range");
  SK_CHECK(sk_wary_tree_level_entries(100, 2) == 0 && sk_wary_tree_level_entries(100, -1) == 0 &&
               sk_wary_tree_level_offset(100, 3) == 0 && sk_wary_tree_level_offset(100, -1) == 0,
           "an out-of-range level gave a non-zero value");
}

static int kind_all_positive(const float *w, int n) {
  for (int i = 0; i < n; ++i)
    if (!(w[i] > 0.0f)) return 0;
  return 1;
}

// The reference against the documented rules, for every row and placement of a set.
static void check_reference(const TreeSet *t, int seed) {
  const int n = t->n;
  for (int k = 0; k < kNumKinds; ++k) {
    const float *w = t->w + (size_t)k * t->ld;
    const float *tree = t->tree + (size_t)k * t->floats;
    const float *leaf = t->leaf + (size_t)k * n;
    const float total = sk_ref_wary_tree_total_f32(tree, n);
    const sk_wary_tree_view_f32 view = sk_wary_tree_make_view_f32(tree, n);
    sk_test_context("reference structure seed=%d n=%d weights=%s", seed, n, kKindNames[k]);
    SK_CHECK(sk_test_f32_bits_equal(sk_wary_tree_total_f32(view), total), "sk_wary_tree_total_f32 on the host differs");
    SK_CHECK(sk_test_f32_bits_equal(total, leaf[n - 1]), "total %.9g is not P_{n-1} %.9g", (double)total,
             (double)leaf[n - 1]);
    int bad = -1;
    for (int i = 0; i < n && bad < 0; ++i) {
      const float before = i > 0 ? leaf[i - 1] : 0.0f;
      const int repeats = sk_test_f32_bits_equal(leaf[i], before);
      if (!sk_test_f32_bits_equal(tree[i], leaf[i]) || (w[i] == 0.0f && !repeats)) bad = i;
    }
    SK_CHECK(bad < 0, "leaf %d: level 0 differs from the leaf sums, or a zero weight does not repeat P_{i-1}", bad);
    for (int k2 = 0; k2 < sk_ref_wary_tree_num_levels(n); ++k2) {
      const float *level = tree + sk_ref_wary_tree_level_offset(n, k2);
      const int e = sk_ref_wary_tree_level_entries(n, k2);
      const float *below = k2 > 0 ? tree + sk_ref_wary_tree_level_offset(n, k2 - 1) : NULL;
      int wrong = -1;
      for (int i = 0; i < (e + 31) / 32 * 32 && wrong < 0; ++i) {
        if (i >= e && !sk_test_f32_bits_equal(level[i], total)) wrong = i;
        if (i < e && below != NULL && !sk_test_f32_bits_equal(level[i], below[32 * i + 31])) wrong = i;
      }
      SK_CHECK(wrong < 0, "level %d entry %d is neither the entry 32 i + 31 below nor (padding) the total", k2, wrong);
    }
    if (kind_all_positive(w, n)) {
      // With no zero weight the running sums are sk_warp_sample_prefix_f32's, bit for bit.
      float *prefix = (float *)malloc(sizeof(float) * (size_t)n);
      sk_ref_warp_running_sums_f32(0xffffffffu, w, n, prefix);
      int differ = -1;
      for (int i = 0; i < n && differ < 0; ++i)
        if (!sk_test_f32_bits_equal(prefix[i], leaf[i])) differ = i;
      SK_CHECK(differ < 0, "leaf %d: running sum differs from sk_warp_sample_prefix_f32's", differ);
      free(prefix);
    }
    int first_positive = -1, last_positive = -1;
    for (int i = 0; i < n; ++i)
      if (w[i] > 0.0f) {
        if (first_positive < 0) first_positive = i;
        last_positive = i;
      }
    for (int v = 0; v < kNumU; ++v) {
      const float u = t->u[k][v];
      const int r = t->expect[k][v];
      sk_test_context("reference search seed=%d n=%d weights=%s %s (u=%.9g) -> %d", seed, n, kKindNames[k], kUNames[v],
                      (double)u, r);
      if (first_positive < 0) {
        SK_CHECK(r == -1 && sk_test_f32_bits(total) == 0u, "all-zero weights: result %d, total %.9g", r, (double)total);
        continue;
      }
      if (!SK_CHECK(r >= 0 && r < n, "result out of range")) continue;
      const float x = sk_ref_wary_tree_clamp_u_f32(u, total);
      SK_CHECK(w[r] > 0.0f, "leaf %d has weight %.9g: a zero-weight leaf was returned", r, (double)w[r]);
      SK_CHECK((r > 0 ? leaf[r - 1] : 0.0f) <= x && x < leaf[r], "not P_{i-1} <= x < P_i: %.9g, %.9g, %.9g",
               (double)(r > 0 ? leaf[r - 1] : 0.0f), (double)x, (double)leaf[r]);
      if (u <= 0.0f || isnan(u))
        SK_CHECK(r == first_positive, "u <= 0 or NaN: want the first positive leaf %d", first_positive);
      if (k == kKindInteger && !isnan(u)) {
        // Exact sums (total < 2^24): the tree must agree with the linear walk of warp_sample_prefix.
        const int linear = sk_ref_warp_sample_prefix_f32(0xffffffffu, w, n, u);
        SK_CHECK(r == linear, "exact sums: sk_warp_sample_prefix_f32 gives %d", linear);
        if (u >= total) SK_CHECK(r == last_positive, "u >= total: want the last positive leaf %d", last_positive);
      }
    }
  }
}

static void test_reference(void) {
  for (int a = 0; a < kNumLengths; ++a) {
    TreeSet t;
    make_tree_set(&t, 0, kLengths[a]);
    check_reference(&t, 0);
    free_tree_set(&t);
  }
}

// Every invalid argument gives its documented status, and no call reaches CUDA: on a machine without
// a GPU a call that did would record a CUDA error (and return a 2xx status).
static void test_api_arguments(void) {
  static float w[256], trees[4096];
  static int rows[8], out[8];
  size_t bytes = 12345;
  sk_clear_cuda_error();
  sk_test_context("sk_wary_tree_batch_bytes arguments");
  SK_CHECK(sk_wary_tree_batch_bytes(1, 1, NULL) == SK_ERROR_NULL_POINTER, "bytes NULL");
  SK_CHECK(sk_wary_tree_batch_bytes(-1, 10, &bytes) == SK_ERROR_INVALID_VALUE && bytes == 12345, "num_rows -1");
  SK_CHECK(sk_wary_tree_batch_bytes(1, 0, &bytes) == SK_ERROR_INVALID_VALUE, "n 0");
  SK_CHECK(sk_wary_tree_batch_bytes(1, -5, &bytes) == SK_ERROR_INVALID_VALUE, "n -5");
  SK_CHECK(sk_wary_tree_batch_bytes(1, SK_WARY_TREE_MAX_LEAVES + 1, &bytes) == SK_ERROR_INVALID_VALUE, "n 2^20 + 1");
  SK_CHECK(sk_wary_tree_batch_bytes(0, 10, &bytes) == SK_SUCCESS && bytes == 0, "num_rows 0");
  SK_CHECK(sk_wary_tree_batch_bytes(3, 33, &bytes) == SK_SUCCESS && bytes == 3 * 96 * sizeof(float), "3 x 33");
  SK_CHECK(sk_wary_tree_batch_bytes(INT_MAX, SK_WARY_TREE_MAX_LEAVES, &bytes) == SK_SUCCESS &&
               bytes == (size_t)INT_MAX * sk_wary_tree_floats(SK_WARY_TREE_MAX_LEAVES) * sizeof(float),
           "largest batch");

  // Build: values, then num_rows 0, then pointers, then extent and overlap, then size.
  const size_t need_2x100 = 2 * sk_wary_tree_floats(100) * sizeof(float);
  sk_test_context("sk_wary_tree_batch_build_f32 arguments");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 100, -1, 100, trees, sizeof trees, 0) == SK_ERROR_INVALID_VALUE,
           "num_rows -1");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 100, 2, 0, trees, sizeof trees, 0) == SK_ERROR_INVALID_VALUE, "n 0");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 1 << 21, 2, SK_WARY_TREE_MAX_LEAVES + 1, trees, sizeof trees, 0) ==
               SK_ERROR_INVALID_VALUE,
           "n 2^20 + 1");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 99, 2, 100, trees, sizeof trees, 0) == SK_ERROR_INVALID_VALUE, "ld < n");
  SK_CHECK(sk_wary_tree_batch_build_f32(NULL, 99, -1, 100, NULL, 0, 0) == SK_ERROR_INVALID_VALUE,
           "values before pointers");
  SK_CHECK(sk_wary_tree_batch_build_f32(NULL, 100, 0, 100, NULL, 0, 0) == SK_SUCCESS, "num_rows 0 with NULL pointers");
  SK_CHECK(sk_wary_tree_batch_build_f32(NULL, 100, 2, 100, trees, sizeof trees, 0) == SK_ERROR_NULL_POINTER,
           "weights NULL");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 100, 2, 100, NULL, sizeof trees, 0) == SK_ERROR_NULL_POINTER, "trees NULL");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, SIZE_MAX / 2, 3, 100, trees, sizeof trees, 0) == SK_ERROR_INVALID_VALUE,
           "matrix extent overflows");
  SK_CHECK(sk_wary_tree_batch_build_f32(trees + 8, 100, 2, 100, trees, sizeof trees, 0) == SK_ERROR_INVALID_VALUE,
           "weights inside the trees");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 100, 2, 100, w + 150, sizeof trees, 0) == SK_ERROR_INVALID_VALUE,
           "trees inside the weights");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 100, 2, 100, trees, need_2x100 - 1, 0) == SK_ERROR_WORKSPACE_TOO_SMALL,
           "trees one byte too small");
  SK_CHECK(sk_wary_tree_batch_build_f32(w, 100, 2, 100, trees, 0, 0) == SK_ERROR_WORKSPACE_TOO_SMALL,
           "trees of 0 bytes");

  // Sample: values, then num_samples 0, then the counter range, then pointers, then size.
  const size_t need_1x100 = sk_wary_tree_floats(100) * sizeof(float);
  sk_test_context("sk_wary_tree_batch_sample_f32 arguments");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, sizeof trees, -1, 100, rows, 8, 1, 0, out, 0) == SK_ERROR_INVALID_VALUE,
           "num_rows -1");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, sizeof trees, 1, 0, rows, 8, 1, 0, out, 0) == SK_ERROR_INVALID_VALUE,
           "n 0");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, sizeof trees, 1, SK_WARY_TREE_MAX_LEAVES + 1, rows, 8, 1, 0, out, 0) ==
               SK_ERROR_INVALID_VALUE,
           "n 2^20 + 1");
  SK_CHECK(sk_wary_tree_batch_sample_f32(NULL, 0, 1, 100, NULL, 0, 1, 0, NULL, 0) == SK_SUCCESS, "0 samples");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, sizeof trees, 1, 100, rows, 8, 1, UINT64_MAX - 7, out, 0) ==
               SK_ERROR_INVALID_VALUE,
           "counter range overflows");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, sizeof trees, 1, 100, NULL, 8, 1, 0, out, 0) == SK_ERROR_NULL_POINTER,
           "rows NULL");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, sizeof trees, 1, 100, rows, 8, 1, 0, NULL, 0) == SK_ERROR_NULL_POINTER,
           "out NULL");
  SK_CHECK(sk_wary_tree_batch_sample_f32(NULL, sizeof trees, 1, 100, rows, 8, 1, 0, out, 0) == SK_ERROR_NULL_POINTER,
           "trees NULL with a row");
  SK_CHECK(sk_wary_tree_batch_sample_f32(trees, need_1x100 - 4, 1, 100, rows, 8, 1, 0, out, 0) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "trees too small");
  SK_CHECK(sk_wary_tree_batch_sample_f32(NULL, 0, -1, 100, NULL, 8, 1, 0, NULL, 0) == SK_ERROR_INVALID_VALUE,
           "values before pointers");
  sk_test_context("argument checks");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA (error %d recorded)", sk_last_cuda_error());
}

// ---------------------------------------------------------------------------------------------------
// GPU: builds.

__global__ void k_warp_build(const float *w, size_t ld, int rows, int n, float *trees, size_t stride) {
  const int row = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (row >= rows) return;  // whole warps: the block size is a multiple of 32
  sk_wary_tree_warp_build_f32(w + (size_t)row * ld, n, trees + (size_t)row * stride);
}

// Weights by a functor, as a sampler computes them: leaf i's weight read backwards through a reversed copy
// (rev[n - 1 - i]), so every call does its own arithmetic and load.
struct reversed_weights {
  const float *rev;
  int n;
  __device__ float operator()(int i) const { return rev[n - 1 - i]; }
};

__global__ void k_warp_build_by(const float *rev, size_t ld, int rows, int n, float *trees, size_t stride) {
  const int row = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (row >= rows) return;
  sk_wary_tree_warp_build_by_f32(reversed_weights{rev + (size_t)row * ld, n}, n, trees + (size_t)row * stride);
}

__global__ void k_block_build(const float *w, size_t ld, int n, float *trees, size_t stride) {
  __shared__ sk_wary_tree_block_storage storage;
  sk_wary_tree_block_build_f32(threadIdx.x, blockDim.x, &storage, w + (size_t)blockIdx.x * ld, n,
                               trees + (size_t)blockIdx.x * stride);
}

__global__ void k_block_build_by(const float *rev, size_t ld, int n, float *trees, size_t stride) {
  __shared__ sk_wary_tree_block_storage storage;
  sk_wary_tree_block_build_by_f32(threadIdx.x, blockDim.x, &storage, reversed_weights{rev + (size_t)blockIdx.x * ld, n},
                                  n, trees + (size_t)blockIdx.x * stride);
}

// The tree in shared memory (poisoned first, so that an unwritten float shows), then copied out.
__global__ void k_warp_build_shared(const float *w, size_t ld, int n, float *trees, size_t stride, size_t floats) {
  extern __shared__ float smem[];
  for (size_t i = threadIdx.x; i < floats; i += blockDim.x) smem[i] = __uint_as_float(SK_TEST_POISON_WORD);
  __syncthreads();
  if (threadIdx.x < 32) {
    sk_wary_tree_warp_build_f32(w + (size_t)blockIdx.x * ld, n, smem);
    // The build ends with __syncwarp(): the building warp may read the tree.
    for (size_t i = threadIdx.x; i < floats; i += 32) trees[(size_t)blockIdx.x * stride + i] = smem[i];
  }
}

__global__ void k_block_build_shared(const float *w, size_t ld, int n, float *trees, size_t stride, size_t floats) {
  extern __shared__ float smem[];
  __shared__ sk_wary_tree_block_storage storage;
  for (size_t i = threadIdx.x; i < floats; i += blockDim.x) smem[i] = __uint_as_float(SK_TEST_POISON_WORD);
  __syncthreads();
  sk_wary_tree_block_build_f32(threadIdx.x, blockDim.x, &storage, w + (size_t)blockIdx.x * ld, n, smem);
  for (size_t i = threadIdx.x; i < floats; i += blockDim.x) trees[(size_t)blockIdx.x * stride + i] = smem[i];
}

enum { kGuard = 32 };  // poisoned floats after each tree, which no build may touch

static const char *level_of(int n, size_t index, int *level, size_t *entry) {
  const int levels = sk_ref_wary_tree_num_levels(n);
  *level = levels - 1;
  while (*level > 0 && index < sk_ref_wary_tree_level_offset(n, *level)) --*level;
  *entry = index - sk_ref_wary_tree_level_offset(n, *level);
  return *entry < (size_t)sk_ref_wary_tree_level_entries(n, *level) ? "entry" : "padding";
}

// Row k of `got` (stride floats apart) against the reference, bit for bit, and its guard untouched.
static void compare_trees(const char *variant, const TreeSet *t, const float *got, size_t stride, int guard, int seed) {
  for (int k = 0; k < kNumKinds; ++k) {
    const float *g = got + (size_t)k * stride, *want = t->tree + (size_t)k * t->floats;
    size_t bad = 0;
    while (bad < t->floats && sk_test_f32_bits_equal(g[bad], want[bad])) ++bad;
    int level = 0;
    size_t entry = 0;
    const char *what = bad < t->floats ? level_of(t->n, bad, &level, &entry) : "";
    const size_t at = bad < t->floats ? bad : 0;
    sk_test_context("%s seed=%d n=%d weights=%s", variant, seed, t->n, kKindNames[k]);
    SK_CHECK(bad == t->floats, "float %zu (level %d %s %zu): got %.9g (0x%08x), want %.9g (0x%08x)", bad, level, what,
             entry, (double)g[at], sk_test_f32_bits(g[at]), (double)want[at], sk_test_f32_bits(want[at]));
    if (guard) {
      int touched = -1;
      for (int i = 0; i < kGuard && touched < 0; ++i)
        if (sk_test_f32_bits(g[t->floats + i]) != SK_TEST_POISON_WORD) touched = i;
      SK_CHECK(touched < 0, "wrote guard float %d after the tree", touched);
    }
  }
}

static int g_max_shared_optin = 0;  // bytes of dynamic shared memory a block may opt in to

// ---------------------------------------------------------------------------------------------------
// GPU: searches.

struct SearchCase {
  size_t tree_offset;  // floats into the trees buffer
  int n;
  float u;
};

__global__ void k_search(const float *trees, const SearchCase *cases, int num_cases, int *out) {
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (c >= num_cases) return;
  const sk_wary_tree_view_f32 view = sk_wary_tree_make_view_f32(trees + cases[c].tree_offset, cases[c].n);
  out[(size_t)c * 32 + sk_lane_id()] = sk_wary_tree_search_f32(view, cases[c].u);
}

// One warp per tree: the top level loaded once, then every u of the tree; totals both ways.
__global__ void k_search_top(const float *trees, const SearchCase *cases, int num_trees, int per_tree, int *out,
                             uint32_t *totals) {
  const int t = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (t >= num_trees) return;
  const SearchCase *first = cases + (size_t)t * per_tree;
  const sk_wary_tree_view_f32 view = sk_wary_tree_make_view_f32(trees + first->tree_offset, first->n);
  const float top = sk_wary_tree_load_top_f32(view);
  totals[2 * t] = __float_as_uint(sk_wary_tree_top_total_f32(top));
  totals[2 * t + 1] = __float_as_uint(sk_wary_tree_total_f32(view));
  for (int v = 0; v < per_tree; ++v)
    out[((size_t)t * per_tree + v) * 32 + sk_lane_id()] = sk_wary_tree_search_top_f32(view, top, first[v].u);
}

static void check_search_results(const char *variant, const TreeSet *t, const int *got, int seed) {
  for (int k = 0; k < kNumKinds; ++k)
    for (int v = 0; v < kNumU; ++v) {
      const int *lanes = got + ((size_t)k * kNumU + v) * 32;
      int bad = 0;
      while (bad < 32 && lanes[bad] == t->expect[k][v]) ++bad;
      sk_test_context("%s seed=%d n=%d weights=%s %s (u=%.9g)", variant, seed, t->n, kKindNames[k], kUNames[v],
                      (double)t->u[k][v]);
      SK_CHECK(bad == 32, "lane %d got %d, want %d", bad, bad < 32 ? lanes[bad] : 0, t->expect[k][v]);
    }
}

// Builds the set's trees every way and compares them; then searches the reference trees both ways.
static void test_builds_and_searches(int seed, int n) {
  TreeSet t;
  make_tree_set(&t, seed, n);
  check_reference(&t, seed);
  const size_t stride = t.floats + kGuard;
  const size_t tree_bytes = sizeof(float) * stride * kNumKinds;
  float *h_got = (float *)malloc(tree_bytes);
  float *d_w, *d_trees;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * t.ld * kNumKinds));
  SK_CHECK_CUDA(cudaMalloc(&d_trees, tree_bytes));
  SK_CHECK_CUDA(cudaMemcpy(d_w, t.w, sizeof(float) * t.ld * kNumKinds, cudaMemcpyHostToDevice));
  char variant[96];

  // Warp build, global memory, 4 warps (rows) per block.
  SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, tree_bytes));
  k_warp_build<<<(kNumKinds + 3) / 4, 128>>>(d_w, t.ld, kNumKinds, n, d_trees, stride);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, tree_bytes, cudaMemcpyDeviceToHost));
  compare_trees("warp build, global", &t, h_got, stride, 1, seed);

  // Warp build from a functor (sk_wary_tree_warp_build_by_f32), over the rows reversed on the host; then
  // the block builds, which take the reversed rows too.
  {
    float *h_rev = (float *)malloc(sizeof(float) * t.ld * kNumKinds);
    float *d_rev;
    for (int r = 0; r < kNumKinds; ++r)
      for (int i = 0; i < n; ++i) h_rev[(size_t)r * t.ld + (size_t)(n - 1 - i)] = t.w[(size_t)r * t.ld + (size_t)i];
    SK_CHECK_CUDA(cudaMalloc(&d_rev, sizeof(float) * t.ld * kNumKinds));
    SK_CHECK_CUDA(cudaMemcpy(d_rev, h_rev, sizeof(float) * t.ld * kNumKinds, cudaMemcpyHostToDevice));
    SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, tree_bytes));
    k_warp_build_by<<<(kNumKinds + 3) / 4, 128>>>(d_rev, t.ld, kNumKinds, n, d_trees, stride);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, tree_bytes, cudaMemcpyDeviceToHost));
    compare_trees("warp build by functor, global", &t, h_got, stride, 1, seed);

    // Block build, global memory: from the array (sk_wary_tree_block_build_f32) and from the functor
    // (sk_wary_tree_block_build_by_f32) at each block size.
    const int block_sizes[] = {32, 96, 256, 1024};
    for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; ++b)
      for (int by_functor = 0; by_functor < 2; ++by_functor) {
        SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, tree_bytes));
        if (by_functor)
          k_block_build_by<<<kNumKinds, block_sizes[b]>>>(d_rev, t.ld, n, d_trees, stride);
        else
          k_block_build<<<kNumKinds, block_sizes[b]>>>(d_w, t.ld, n, d_trees, stride);
        SK_CHECK_LAUNCH();
        SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, tree_bytes, cudaMemcpyDeviceToHost));
        snprintf(variant, sizeof variant, "block build%s, global, %d threads", by_functor ? " by functor" : "",
                 block_sizes[b]);
        compare_trees(variant, &t, h_got, stride, 1, seed);
      }
    SK_CHECK_CUDA(cudaFree(d_rev));
    free(h_rev);
  }

  // Both builds with the tree in shared memory, where it fits.
  const size_t smem = sizeof(float) * t.floats;
  if (smem + sizeof(sk_wary_tree_block_storage) <= (size_t)g_max_shared_optin) {
    SK_CHECK_CUDA(cudaFuncSetAttribute(k_warp_build_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    SK_CHECK_CUDA(cudaFuncSetAttribute(k_block_build_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, tree_bytes));
    k_warp_build_shared<<<kNumKinds, 64, smem>>>(d_w, t.ld, n, d_trees, stride, t.floats);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, tree_bytes, cudaMemcpyDeviceToHost));
    compare_trees("warp build, shared", &t, h_got, stride, 1, seed);
    SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, tree_bytes));
    k_block_build_shared<<<kNumKinds, 256, smem>>>(d_w, t.ld, n, d_trees, stride, t.floats);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, tree_bytes, cudaMemcpyDeviceToHost));
    compare_trees("block build, shared, 256 threads", &t, h_got, stride, 1, seed);
  }

  // The batched C API: trees back to back, a guard after the last one.
  size_t bytes = 0;
  sk_test_context("sk_wary_tree_batch_bytes n=%d", n);
  SK_CHECK(sk_wary_tree_batch_bytes(kNumKinds, n, &bytes) == SK_SUCCESS &&
               bytes == sizeof(float) * t.floats * kNumKinds,
           "size %zu", bytes);
  SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, tree_bytes));
  const sk_status st = sk_wary_tree_batch_build_f32(d_w, t.ld, kNumKinds, n, d_trees, bytes, 0);
  sk_test_context("sk_wary_tree_batch_build_f32 seed=%d n=%d", seed, n);
  SK_CHECK(st == SK_SUCCESS, "returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, tree_bytes, cudaMemcpyDeviceToHost));
  compare_trees("batched C API build", &t, h_got, t.floats, 0, seed);
  int guard_touched = -1;
  for (int i = 0; i < kGuard && guard_touched < 0; ++i)
    if (sk_test_f32_bits(h_got[t.floats * kNumKinds + i]) != SK_TEST_POISON_WORD) guard_touched = i;
  sk_test_context("batched C API build seed=%d n=%d", seed, n);
  SK_CHECK(guard_touched < 0, "wrote guard float %d after the last tree", guard_touched);

  // Searches on the reference trees.
  SearchCase *cases = (SearchCase *)malloc(sizeof(SearchCase) * kNumKinds * kNumU);
  for (int k = 0; k < kNumKinds; ++k)
    for (int v = 0; v < kNumU; ++v) cases[k * kNumU + v] = SearchCase{(size_t)k * t.floats, n, t.u[k][v]};
  const int num_cases = kNumKinds * kNumU;
  SearchCase *d_cases;
  int *d_out, *h_out = (int *)malloc(sizeof(int) * 32 * num_cases);
  uint32_t *d_totals, h_totals[2 * kNumKinds];
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(SearchCase) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * 32 * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_totals, sizeof h_totals));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(SearchCase) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_trees, t.tree, sizeof(float) * t.floats * kNumKinds, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * 32 * num_cases));
  k_search<<<(num_cases * 32 + 127) / 128, 128>>>(d_trees, d_cases, num_cases, d_out);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * 32 * num_cases, cudaMemcpyDeviceToHost));
  check_search_results("sk_wary_tree_search_f32", &t, h_out, seed);
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * 32 * num_cases));
  k_search_top<<<kNumKinds, 32>>>(d_trees, d_cases, kNumKinds, kNumU, d_out, d_totals);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * 32 * num_cases, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_totals, d_totals, sizeof h_totals, cudaMemcpyDeviceToHost));
  check_search_results("sk_wary_tree_search_top_f32", &t, h_out, seed);
  for (int k = 0; k < kNumKinds; ++k) {
    const uint32_t want = sk_test_f32_bits(sk_ref_wary_tree_total_f32(t.tree + (size_t)k * t.floats, n));
    sk_test_context("totals seed=%d n=%d weights=%s", seed, n, kKindNames[k]);
    SK_CHECK(h_totals[2 * k] == want && h_totals[2 * k + 1] == want,
             "sk_wary_tree_top_total_f32 0x%08x, sk_wary_tree_total_f32 0x%08x, want 0x%08x", h_totals[2 * k],
             h_totals[2 * k + 1], want);
  }

  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_out));
  SK_CHECK_CUDA(cudaFree(d_totals));
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_trees));
  free(cases);
  free(h_out);
  free(h_got);
  free_tree_set(&t);
}

// The batched build's four launch shapes (kernels/wary_tree.cu's documented rule): for n > 16,384 the
// whole grid per row up to 1 row per SM (3 and 4 levels, the most leaves, and rows = the SM count); for
// n > 2,048 a block of 1,024 threads per row up to 2 rows per SM (or 1 row of fewer leaves than the grid
// path's), of 256 threads up to 8 rows per SM, then a warp per row. Each must give the reference's
// bits; a non-default stream is used for two of them.
static void test_api_launch_shapes(int sms) {
  struct shape {
    int rows, n;
    const char *name;
  };
  const shape shapes[] = {{1, 70001, "grid per row, 4 levels"},
                          {1, SK_WARY_TREE_MAX_LEAVES, "grid per row, the most leaves"},
                          {3, 20000, "grid per row"},
                          {sms, 16385, "grid per row, as many rows as SMs"},
                          {1, 16384, "block of 1024 per row, below the grid path's leaves"},
                          {sms + 1, 4099, "block of 1024 per row"},
                          {2 * sms + 1, 4099, "block of 256 per row"},
                          {8 * sms + 1, 4099, "warp per row"}};
  for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s) {
    const int rows = shapes[s].rows, n = shapes[s].n;
    const size_t ld = (size_t)n + 1, floats = sk_wary_tree_floats(n);
    float *h_w = (float *)malloc(sizeof(float) * ld * rows);
    float *h_ref = (float *)malloc(sizeof(float) * floats);
    float *h_got = (float *)malloc(sizeof(float) * floats * rows);
    uint64_t rng = 4242 + (uint64_t)s;
    for (int r = 0; r < rows; ++r) {
      fill_weights(h_w + (size_t)r * ld, n, (r + s) % kNumKinds, &rng);
      h_w[(size_t)r * ld + n] = NAN;
    }
    float *d_w, *d_trees;
    size_t bytes = 0;
    SK_CHECK(sk_wary_tree_batch_bytes(rows, n, &bytes) == SK_SUCCESS, "size query");
    SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * ld * rows));
    SK_CHECK_CUDA(cudaMalloc(&d_trees, bytes));
    SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * ld * rows, cudaMemcpyHostToDevice));
    SK_CHECK_CUDA(cudaMemset(d_trees, SK_TEST_POISON_BYTE, bytes));
    cudaStream_t stream = 0;
    const bool own_stream = s == 2 || s == 6;
    if (own_stream) SK_CHECK_CUDA(cudaStreamCreate(&stream));
    sk_test_context("launch shape: %s (%d rows of %d, %d SMs)", shapes[s].name, rows, n, sms);
    const sk_status st = sk_wary_tree_batch_build_f32(d_w, ld, rows, n, d_trees, bytes, stream);
    SK_CHECK(st == SK_SUCCESS, "returned %s", sk_status_name(st));
    SK_CHECK_CUDA(cudaGetLastError());
    SK_CHECK_CUDA(cudaStreamSynchronize(stream));
    if (own_stream) SK_CHECK_CUDA(cudaStreamDestroy(stream));
    SK_CHECK_CUDA(cudaMemcpy(h_got, d_trees, bytes, cudaMemcpyDeviceToHost));
    int bad_row = -1;
    size_t bad = 0;
    for (int r = 0; r < rows && bad_row < 0; ++r) {
      sk_ref_wary_tree_build_f32(h_w + (size_t)r * ld, n, h_ref);
      bad = 0;
      while (bad < floats && sk_test_f32_bits_equal(h_got[(size_t)r * floats + bad], h_ref[bad])) ++bad;
      if (bad < floats) bad_row = r;
    }
    SK_CHECK(bad_row < 0, "row %d (weights %s) differs from the reference at float %zu", bad_row,
             bad_row >= 0 ? kKindNames[(bad_row + s) % kNumKinds] : "", bad);
    SK_CHECK_CUDA(cudaFree(d_w));
    SK_CHECK_CUDA(cudaFree(d_trees));
    free(h_w);
    free(h_ref);
    free(h_got);
  }
}

// ---------------------------------------------------------------------------------------------------
// GPU: the batched sampler against the reference, the RNG replayed on the host.

static void test_sample_api_exact(int seed) {
  const int lengths[] = {1, 33, 1000, 1025, 40000};
  const size_t num_samples = 10007;  // not a multiple of 32 or 4
  for (size_t a = 0; a < sizeof lengths / sizeof lengths[0]; ++a) {
    const int n = lengths[a], rows = kNumKinds;
    const size_t floats = sk_wary_tree_floats(n);
    uint64_t rng = 0x5a3b1e00u + (uint64_t)seed * 7919u + (uint64_t)n;
    float *h_w = (float *)malloc(sizeof(float) * (size_t)n * rows);
    float *h_ref = (float *)malloc(sizeof(float) * floats * rows);
    int *h_rows = (int *)malloc(sizeof(int) * num_samples);
    int *h_out = (int *)malloc(sizeof(int) * (num_samples + kGuard));
    for (int r = 0; r < rows; ++r) {
      fill_weights(h_w + (size_t)r * n, n, r, &rng);
      sk_ref_wary_tree_build_f32(h_w + (size_t)r * n, n, h_ref + (size_t)r * floats);
    }
    const int special[] = {-1, rows, INT_MIN, INT_MAX, -rows, rows + 1};
    for (size_t s = 0; s < num_samples; ++s) {
      const uint32_t pick = sk_test_rand_u32(&rng);
      h_rows[s] = pick % 10u == 0 ? special[(pick >> 8) % 6u] : (int)((pick >> 8) % (uint32_t)rows);
    }
    const uint64_t sample_seed = sk_test_rand_u64(&rng);
    const uint64_t offset = 0xffffffffull * 4 - 1000 + (uint64_t)seed;  // the counter's low word carries
    float *d_w, *d_trees;
    int *d_rows, *d_out;
    size_t bytes = 0;
    SK_CHECK(sk_wary_tree_batch_bytes(rows, n, &bytes) == SK_SUCCESS, "size query");
    SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * (size_t)n * rows));
    SK_CHECK_CUDA(cudaMalloc(&d_trees, bytes));
    SK_CHECK_CUDA(cudaMalloc(&d_rows, sizeof(int) * num_samples));
    SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * (num_samples + kGuard)));
    SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * (size_t)n * rows, cudaMemcpyHostToDevice));
    SK_CHECK_CUDA(cudaMemcpy(d_rows, h_rows, sizeof(int) * num_samples, cudaMemcpyHostToDevice));
    SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * (num_samples + kGuard)));
    sk_test_context("sampler seed=%d n=%d", seed, n);
    sk_status st = sk_wary_tree_batch_build_f32(d_w, (size_t)n, rows, n, d_trees, bytes, 0);
    SK_CHECK(st == SK_SUCCESS, "build returned %s", sk_status_name(st));
    SK_CHECK_LAUNCH();
    st = sk_wary_tree_batch_sample_f32(d_trees, bytes, rows, n, d_rows, num_samples, sample_seed, offset, d_out, 0);
    SK_CHECK(st == SK_SUCCESS, "sample returned %s", sk_status_name(st));
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * (num_samples + kGuard), cudaMemcpyDeviceToHost));
    size_t bad = num_samples;
    int want_bad = 0;
    for (size_t s = 0; s < num_samples && bad == num_samples; ++s) {
      const int r = h_rows[s];
      int want = -1;
      if (r >= 0 && r < rows) {
        const float *tree = h_ref + (size_t)r * floats;
        const float u = sk_rng_uniform_f32(sample_seed, 0, offset + s) * sk_ref_wary_tree_total_f32(tree, n);
        want = sk_ref_wary_tree_search_f32(tree, n, u);
      }
      if (h_out[s] != want) bad = s, want_bad = want;
    }
    SK_CHECK(bad == num_samples, "sample %zu (row %d): got %d, want %d", bad, bad < num_samples ? h_rows[bad] : 0,
             bad < num_samples ? h_out[bad] : 0, want_bad);
    int touched = -1;
    for (int i = 0; i < kGuard && touched < 0; ++i)
      if ((uint32_t)h_out[num_samples + i] != SK_TEST_POISON_WORD) touched = i;
    SK_CHECK(touched < 0, "wrote guard int %d after the samples", touched);

    // No trees at all: every sample is -1, and d_trees may be NULL.
    SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * num_samples));
    st = sk_wary_tree_batch_sample_f32(NULL, 0, 0, n, d_rows, num_samples, sample_seed, offset, d_out, 0);
    sk_test_context("sampler with num_rows 0, seed=%d n=%d", seed, n);
    SK_CHECK(st == SK_SUCCESS, "returned %s", sk_status_name(st));
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * num_samples, cudaMemcpyDeviceToHost));
    size_t not_minus_one = 0;
    while (not_minus_one < num_samples && h_out[not_minus_one] == -1) ++not_minus_one;
    SK_CHECK(not_minus_one == num_samples, "sample %zu is %d, not -1", not_minus_one,
             not_minus_one < num_samples ? h_out[not_minus_one] : 0);

    SK_CHECK_CUDA(cudaFree(d_w));
    SK_CHECK_CUDA(cudaFree(d_trees));
    SK_CHECK_CUDA(cudaFree(d_rows));
    SK_CHECK_CUDA(cudaFree(d_out));
    free(h_w);
    free(h_ref);
    free(h_rows);
    free(h_out);
  }
}

// ---------------------------------------------------------------------------------------------------
// GPU: goodness of fit through the batched sampler.

// Draws `draws` samples, sample s from row s % rows, and tests each row's counts against its weights
// by chi-square; the same counts shifted by one leaf (an off-by-one bug) must be rejected.
static void goodness_of_fit(const char *name, int n, int rows, const float *h_w, size_t draws, uint64_t seed) {
  const size_t floats = sk_wary_tree_floats(n);
  int *h_rows = (int *)malloc(sizeof(int) * draws);
  int *h_out = (int *)malloc(sizeof(int) * draws);
  double *counts = (double *)calloc((size_t)n * rows, sizeof(double));
  double *expected = (double *)malloc(sizeof(double) * n), *shifted = (double *)malloc(sizeof(double) * n);
  for (size_t s = 0; s < draws; ++s) h_rows[s] = (int)(s % (size_t)rows);
  float *d_w, *d_trees;
  int *d_rows, *d_out;
  const size_t bytes = sizeof(float) * floats * rows;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * (size_t)n * rows));
  SK_CHECK_CUDA(cudaMalloc(&d_trees, bytes));
  SK_CHECK_CUDA(cudaMalloc(&d_rows, sizeof(int) * draws));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * draws));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * (size_t)n * rows, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_rows, h_rows, sizeof(int) * draws, cudaMemcpyHostToDevice));
  sk_test_context("goodness of fit: %s", name);
  sk_status st = sk_wary_tree_batch_build_f32(d_w, (size_t)n, rows, n, d_trees, bytes, 0);
  SK_CHECK(st == SK_SUCCESS, "build returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  st = sk_wary_tree_batch_sample_f32(d_trees, bytes, rows, n, d_rows, draws, seed, 0, d_out, 0);
  SK_CHECK(st == SK_SUCCESS, "sample returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof(int) * draws, cudaMemcpyDeviceToHost));
  size_t invalid = 0;
  for (size_t s = 0; s < draws; ++s) {
    const int r = h_rows[s], k = h_out[s];
    if (k < 0 || k >= n || !(h_w[(size_t)r * n + k] > 0.0f)) {
      ++invalid;
    } else {
      counts[(size_t)r * n + k] += 1.0;
    }
  }
  SK_CHECK(invalid == 0, "%zu draws were -1, out of range, or of a zero-weight leaf", invalid);
  for (int r = 0; r < rows; ++r) {
    const float *w = h_w + (size_t)r * n;
    const double *obs = counts + (size_t)r * n;
    double total = 0.0, row_draws = 0.0;
    int cells = 0;
    for (int i = 0; i < n; ++i) total += w[i], row_draws += obs[i], cells += w[i] > 0.0f;
    for (int i = 0; i < n; ++i) expected[i] = row_draws * w[i] / total, shifted[i] = obs[(i + 1) % n];
    const double threshold = sk_test_chi2_threshold(cells - 1);
    const double x = sk_test_chi2(obs, expected, n), x_bug = sk_test_chi2(shifted, expected, n);
    sk_test_context("goodness of fit: %s, row %d, %d leaves, %.0f draws", name, r, n, row_draws);
    SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
    SK_CHECK(x_bug > threshold, "planted off-by-one gave chi-square %.1f, not above %.1f", x_bug, threshold);
    printf("goodness of fit: %s row %d: %d leaves, %.0f draws, chi-square %.1f, threshold %.1f (%d dof); "
           "planted off-by-one %.3g\n",
           name, r, n, row_draws, x, threshold, cells - 1, x_bug);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_trees));
  SK_CHECK_CUDA(cudaFree(d_rows));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_rows);
  free(h_out);
  free(counts);
  free(expected);
  free(shifted);
}

static void test_goodness_of_fit(void) {
  uint64_t rng = 2026;
  {  // 1,000 leaves (2 levels): uniform weights with every 7th zero; 1 in 10 heavy (x100), zeros too.
    enum { kN = 1000, kRows = 2 };
    static float w[kRows * kN];
    for (int i = 0; i < kN; ++i) {
      w[i] = i % 7 == 3 ? 0.0f : 0.05f + sk_test_rand_unit_f32(&rng);
      w[kN + i] = i % 13 == 5 ? 0.0f : (i % 10 == 0 ? 100.0f : 1.0f) * (0.5f + sk_test_rand_unit_f32(&rng));
    }
    goodness_of_fit("1000 leaves", kN, kRows, w, (size_t)1 << 23, 11);
  }
  {  // 33 leaves (2 levels, a partial second round): linear weights; a zero run across leaf 32.
    enum { kN = 33, kRows = 2 };
    static float w[kRows * kN];
    for (int i = 0; i < kN; ++i) {
      w[i] = (float)(1 + i);
      w[kN + i] = i >= 20 && i < 32 ? 0.0f : (float)(1 + i % 3);
    }
    goodness_of_fit("33 leaves", kN, kRows, w, (size_t)1 << 21, 12);
  }
  {  // 40,000 leaves (4 levels): weights in [0.5, 1.5) with every 11th zero.
    enum { kN = 40000 };
    static float w[kN];
    for (int i = 0; i < kN; ++i) w[i] = i % 11 == 0 ? 0.0f : 0.5f + sk_test_rand_unit_f32(&rng);
    goodness_of_fit("40000 leaves", kN, 1, w, (size_t)1 << 23, 13);
  }
}

// ---------------------------------------------------------------------------------------------------
// GPU: the documentation's usage snippet, against the reference.

static void test_usage_snippet(void) {
  enum { kRows = 5, kN = 3000, kThreads = 128, kDraws = 40 };
  const int warps = kThreads / 32;
  static float h_w[kRows * kN];
  static int h_out[kRows * warps * kDraws];
  const size_t floats = sk_wary_tree_floats(kN);
  float *h_tree = (float *)malloc(sizeof(float) * floats);
  uint64_t rng = 31337;
  for (int r = 0; r < kRows; ++r) fill_weights(h_w + r * kN, kN, r == 4 ? kKindAllZero : r, &rng);
  float *d_w;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof h_w));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof h_w, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof h_out));
  example_draw_from_rows<<<kRows, kThreads>>>(d_w, kN, 99, kDraws, d_out);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r) {
    sk_ref_wary_tree_build_f32(h_w + r * kN, kN, h_tree);
    const float total = sk_ref_wary_tree_total_f32(h_tree, kN);
    int bad = -1, want = 0;
    for (int d = 0; d < warps * kDraws && bad < 0; ++d) {
      const uint64_t draw = (uint64_t)r * warps * kDraws + (uint64_t)d;
      want = sk_ref_wary_tree_search_f32(h_tree, kN, sk_rng_uniform_f32(99, 0, draw) * total);
      if (h_out[draw] != want) bad = d;
    }
    sk_test_context("usage snippet row %d (weights %s)", r, kKindNames[r == 4 ? kKindAllZero : r]);
    SK_CHECK(bad < 0, "draw %d: got %d, want %d", bad, bad >= 0 ? h_out[r * warps * kDraws + bad] : 0, want);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_tree);
}

int main(int argc, char **argv) {
  test_layout();
  test_reference();
  test_api_arguments();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    int device = 0, sms = 0;
    SK_CHECK_CUDA(cudaGetDevice(&device));
    SK_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SK_CHECK_CUDA(cudaDeviceGetAttribute(&g_max_shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    test_usage_snippet();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed)
      for (int a = 0; a < kNumLengths; ++a) test_builds_and_searches(seed, kLengths[a]);
    test_api_launch_shapes(sms);
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_sample_api_exact(seed);
    test_goodness_of_fit();
  }
  return sk_test_finish();
}
