/*
 * The GPU z-step (examples/mixture/src/gpu/mix_gpu.h) against the CPU reference (zstep_cpu.h):
 * - exact: with the uniforms given by (seed, sweep, point), the z-step kernel table's choice and its
 *   thread-reference and butterfly-warp rows draw the CPU's component for every point, for K in {1, 2,
 *   12, 31, 32, 33, 63, 64, 80, 256, 512, 1000} (80: three tiles, an odd count; 512 at D = 16: the
 *   kernel in passes with permuted rows), D in {1, 3, 16, 100}, data at scales 1e-6 and 1e6; the points
 *   include some exactly at a mean, some 10^3 scales from every component, and twin components (equal
 *   weights) in every tile; N is not a multiple of 32, so the last warp is partial;
 * - launch shapes: 1, 3 and 8 warps per block, 1, 5 and the automatic number of blocks, the same draws
 *   (the table's kernel and butterfly-warp); the table in shared memory and read from global memory
 *   (K = 1000, D = 16 and D = 100: tables too large for shared memory);
 * - sparse tiles: the transposed kernels' sparse path (K = 64 at D = 1, 3 and 7, 40 at 1, 48 at 10; in
 *   passes K = 128 and 512 at D = 16, the latter with permuted rows, K = 128 at D = 7, K = 100 at D = 12
 *   and K = 200 at D = 3; gpu/zstep_sparse.cuh), by the table's choice and by each transposed row forced,
 *   on points whose tiles have 1 to 5 components within 2^-125 of their largest weight, at random places,
 *   and on points with more (the dense path); the groups of 32 points are checked to cover both; on the
 *   automatic grid and on one block (where each warp takes many groups, and its predictor skips);
 * - goodness of fit of the table's kernels' draws against the exact conditional (2^20 draws
 *   of one point, K = 33, 100 and 1,000), with a planted off-by-one that must be rejected.
 * Every row of the table, forced by name: test_mix_gpu_zstep_table.c. With --host the CPU side only
 * (the cases and their CPU draws, in range): a cpu test. With --quick, or under compute-sanitizer
 * (SK_TEST_SANITIZER), a third of the exact cases with smaller N, one launch shape check and no
 * goodness of fit. Without a GPU: exit 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/mix_gpu.h"
#include "mix_test.h"
#include "mixture.h"
#include "sk_test.h"
#include "zstep.h"
#include "zstep_cpu.h"

static const int32_t kKs[] = {1, 2, 12, 31, 32, 33, 63, 64, 80, 256, 512, 1000};
static const int32_t kDs[] = {1, 3, 16, 100};
static const double kScales[] = {1e-6, 1e6};

/* The GPU's draws for points x with the table, by the z-step kernel table's row `kernel` (NULL: the
   table's choice) and the launch shape; 0 on success. */
static int gpu_draws(const float *x, int64_t n, const sk_mix_ztable *t, const char *kernel, int warps, int blocks,
                     uint64_t seed, uint64_t sweep, int32_t *z) {
  sk_mix_gpu_options o;
  sk_mix_gpu *g = NULL;
  sk_ex_error err;
  memset(&o, 0, sizeof o);
  o.zstep_kernel = kernel; /* NULL: the z-step kernel table's choice */
  o.warps_per_block = warps;
  o.blocks = blocks;
  const int ok = SK_CHECK(sk_mix_gpu_create(x, n, t->d, t->k, &o, &g, &err) == 0 &&
                              sk_mix_gpu_zstep(g, t, seed, sweep, &err) == 0 && sk_mix_gpu_copy_z(g, z, &err) == 0,
                          "GPU: %s", err.message);
  sk_mix_gpu_destroy(g);
  return ok ? 0 : 1;
}

static int same_draws(const int32_t *want, const int32_t *got, int64_t n, const char *who) {
  for (int64_t i = 0; i < n; ++i)
    if (want[i] != got[i])
      return SK_CHECK(0, "%s: point %lld drew %d, the CPU %d", who, (long long)i, (int)got[i], (int)want[i]);
  return SK_CHECK(1, "%s", who);
}

static void exact_case(int32_t K, int32_t D, double scale, int quick, int host_only, uint64_t seed) {
  sk_mix_params p;
  sk_mix_ztable t;
  sk_ex_error err;
  uint64_t rng = seed * 7919u + 1u;
  /* About 10^8 multiply-adds on the CPU per case (2 K D per point), between 39 and 5,000 + 7 points. */
  int64_t n = (int64_t)(1e8 / (2.0 * K * D));
  n = n < 32 ? 32 : n > 5000 ? 5000 : n;
  if (quick) n = n > 300 ? 300 : n;
  n += 7;
  sk_test_context("exact z-step K=%d D=%d scale %g N=%lld", (int)K, (int)D, scale, (long long)n);
  if (!mix_test_setup(K, D, scale, 0, &rng, &p, &t)) return;
  float *x = (float *)malloc(sizeof(float) * (size_t)n * (size_t)D);
  int32_t *want = (int32_t *)malloc(sizeof(int32_t) * (size_t)n), *got = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  mix_test_points(&p, x, n, scale, &rng);
  if (SK_CHECK(sk_mix_zstep_cpu(x, 0, n, &t, seed, 5, 0, want, &err) == 0, "CPU: %s", err.message)) {
    int in_range = 1;
    for (int64_t i = 0; i < n; ++i) in_range &= want[i] >= 0 && want[i] < K;
    SK_CHECK(in_range, "the CPU drew a component out of range");
    if (!host_only) {
      static const char *const kernels[3] = {NULL, "thread-reference", "butterfly-warp"};
      static const char *const names[3] = {"the table's kernel", "thread-reference", "butterfly-warp"};
      for (int kernel = 0; kernel < 3; ++kernel) {
        memset(got, 0xff, sizeof(int32_t) * (size_t)n);
        if (gpu_draws(x, n, &t, kernels[kernel], 0, 0, seed, 5, got) == 0) same_draws(want, got, n, names[kernel]);
      }
    }
  }
  free(x);
  free(want);
  free(got);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
}

static void test_launch_shapes(int quick) {
  const int32_t K = 64, D = 16;
  const int64_t n = quick ? 1031 : 10007;
  const int warps[3] = {1, 3, 8}, blocks[3] = {1, 5, 0};
  sk_mix_params p;
  sk_mix_ztable t;
  sk_ex_error err;
  uint64_t rng = 4;
  sk_test_context("launch shapes");
  if (!mix_test_setup(K, D, 1.0, 0, &rng, &p, &t)) return;
  float *x = (float *)malloc(sizeof(float) * (size_t)n * D);
  int32_t *want = (int32_t *)malloc(sizeof(int32_t) * (size_t)n), *got = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  mix_test_points(&p, x, n, 1.0, &rng);
  sk_mix_zstep_cpu(x, 0, n, &t, 8, 2, 0, want, &err);
  for (int kernel = 0; kernel < 3; kernel += 2)
    for (int w = 0; w < 3; ++w)
      for (int b = 0; b < 3; ++b) {
        if (quick && w != b) continue;
        const char *name = kernel == 0 ? NULL : "butterfly-warp";
        sk_test_context("launch shape: z-step kernel %s, %d warps a block, %d blocks", name ? name : "(the table's)",
                        warps[w], blocks[b]);
        memset(got, 0xff, sizeof(int32_t) * (size_t)n);
        if (gpu_draws(x, n, &t, name, warps[w], blocks[b], 8, 2, got) == 0)
          same_draws(want, got, n, name ? name : "the table's kernel");
      }
  free(x);
  free(want);
  free(got);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
}

/* The most components the sparse tiles' cases take. */
enum { kSparseMaxK = 512 };

/* Ladder parameters for the transposed kernel's sparse tiles (gpu/zstep_sparse.cuh): in dimension 0 the
   means stand on a line in a random order of the components. In the ladder's first half they are 20 to
   40 standard deviations apart, so that a point within 1 of a mean there has one component of its
   tile within 2^-125 of the tile's largest weight, and mostly one in the other tile; in the next
   quarter 6 to 26 apart, so that a point has 1 to 5 of each tile, at random places in the tile; in the
   last quarter 0.5 to 3 apart (closer above K = 64: the quarter as wide as at 64), so that points there
   have more (the dense path). Other dimensions: mean
   0, variance 1 for every component. Equal weights. Returns where the last quarter starts; `wide`: the
   components of the first half. */
static double ladder_params(sk_mix_params *p, uint64_t *rng, int32_t *wide) {
  const int32_t K = p->k, D = p->d;
  int32_t order[kSparseMaxK];
  double at = 0.0, dense_from = 0.0;
  /* The last quarter no wider than K = 64's (16 components), so that its tiles stay dense at any K. */
  const double dense_scale = K / 4 > 16 ? 16.0 / (double)(K / 4) : 1.0;
  for (int32_t k = 0; k < K; ++k) order[k] = k;
  for (int32_t k = K - 1; k > 0; --k) { /* Fisher-Yates */
    const int32_t j = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)(k + 1)), tmp = order[k];
    order[k] = order[j];
    order[j] = tmp;
  }
  for (int32_t r = 0; r < K; ++r) {
    const int32_t k = order[r];
    const int dense = r >= K - K / 4, far = r < K / 2;
    if (r == K - K / 4) dense_from = at;
    if (far) wide[r] = k;
    p->log_pi[k] = 0.0;
    for (int32_t j = 0; j < D; ++j) {
      p->mu[(size_t)k * (size_t)D + (size_t)j] = j == 0 ? at : 0.0;
      p->sigma2[(size_t)k * (size_t)D + (size_t)j] = 1.0;
    }
    at += dense ? (0.5 + 2.5 * sk_test_rand_unit_f32(rng)) * dense_scale
                : far ? 20.0 + 20.0 * sk_test_rand_unit_f32(rng) : 6.0 + 20.0 * sk_test_rand_unit_f32(rng);
  }
  return dense_from;
}

/* The components of each tile that the sparse path takes in for point x (q <= h + 126), counted as the
   kernel counts them: the warp's largest count over its 32 points and the tiles of a pass picks the
   path. */
static int sparse_count(const sk_mix_ztable *t, const float *x) {
  int most = 0;
  for (int32_t b = 0; b * 32 < t->k; ++b) {
    float q[32], h = sk_mix_pos_inf();
    for (int i = 0; i < 32; ++i) {
      const int32_t k = b * 32 + i;
      q[i] = k < t->k ? sk_mix_neg_log_weight(x, t->d, t->c[k], t->s + k, t->ms + k, t->k_pad) : sk_mix_pos_inf();
      h = sk_mix_fmin(h, q[i]);
    }
    int in = 0;
    for (int i = 0; i < 32; ++i) in += (double)q[i] <= (double)h + 126.0;
    most = in > most ? in : most;
  }
  return most;
}

/* The transposed kernel's sparse path (K = 33 to 64, D <= 16) against the CPU: ladder parameters, points
   in groups of 32 (a warp's) near the means of the ladder's wide part, from its sparse part, or from
   anywhere. The groups must cover the sparse path with a largest count of 1, 2, 3 and 4 and the dense
   path, else the case says so. */
static void test_sparse_tiles(int32_t K, int32_t D, int host_only) {
  sk_mix_params p;
  sk_mix_ztable t;
  sk_ex_error err;
  uint64_t rng = 77u + (uint64_t)K * 31u + (uint64_t)D;
  const int64_t groups = 400, n = 32 * groups - 5; /* the last group partial */
  sk_test_context("sparse tiles K=%d D=%d N=%lld", (int)K, (int)D, (long long)n);
  if (!mix_test_setup(K, D, 1.0, 0, &rng, &p, &t)) return; /* the sizes; the ladder replaces the values */
  int32_t wide[kSparseMaxK / 2];
  const double dense_from = ladder_params(&p, &rng, wide);
  double top = 0.0;
  for (int32_t k = 0; k < K; ++k) top = p.mu[(size_t)k * (size_t)D] > top ? p.mu[(size_t)k * (size_t)D] : top;
  sk_mix_ztable_set(&t, &p);
  float *x = (float *)malloc(sizeof(float) * (size_t)n * (size_t)D);
  int32_t *want = (int32_t *)malloc(sizeof(int32_t) * (size_t)n), *got = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  int covered[6] = {0, 0, 0, 0, 0, 0}; /* groups by their largest count: 1 to 4, more (dense) */
  for (int64_t g = 0; g < groups; ++g) {
    /* 0: near a wide mean; 1: the sparse part; 2: anywhere; 3: the dense part. In runs of 48 groups, so
       that with one block (16 warps, a warp's groups 16 apart) a warp meets several dense groups in a
       row: its predictor then skips the sparse test for the next groups (zstep_transposed.cuh). */
    const int kind = (int)((g / 48) % 4);
    int most = 0;
    for (int64_t i = 32 * g; i < 32 * g + 32 && i < n; ++i) {
      const double from = kind == 3 ? dense_from : -5.0;
      const double span = kind == 2 ? top + 10.0 : kind == 3 ? top - dense_from : dense_from - 5.0;
      const double near = p.mu[(size_t)wide[sk_test_rand_u32(&rng) % (uint32_t)(K / 2)] * (size_t)D];
      for (int32_t j = 0; j < D; ++j)
        x[(size_t)i * (size_t)D + (size_t)j] = (float)(j > 0    ? 2.0 * sk_test_rand_unit_f32(&rng) - 1.0
                                                       : kind == 0 ? near + 2.0 * sk_test_rand_unit_f32(&rng) - 1.0
                                                                   : from + span * sk_test_rand_unit_f32(&rng));
      const int c = sparse_count(&t, x + (size_t)i * (size_t)D);
      most = c > most ? c : most;
    }
    covered[most > 4 ? 5 : most]++;
  }
  sk_test_progress("sparse tiles K=%d D=%d: groups by largest count 1/2/3/4/more: %d/%d/%d/%d/%d", (int)K, (int)D,
                   covered[1], covered[2], covered[3], covered[4], covered[5]);
  SK_CHECK(covered[1] > 0 && covered[2] > 0 && covered[3] > 0 && covered[4] > 0 && covered[5] > 0,
           "groups by largest count 1/2/3/4/more: %d/%d/%d/%d/%d (each must occur)", covered[1], covered[2],
           covered[3], covered[4], covered[5]);
  if (SK_CHECK(sk_mix_zstep_cpu(x, 0, n, &t, 3, 9, 0, want, &err) == 0, "CPU: %s", err.message) && !host_only) {
    /* The table's choice, then each transposed row that takes K forced by name. */
    const char *const rows[3] = {NULL, K <= 64 ? "transposed-two-tiles" : "transposed-passes",
                                 K <= 64 ? NULL : "transposed-passes-permuted"};
    for (int r = 0; r < 3; ++r)
      for (int blocks = 0; blocks <= 1 && (r == 0 || rows[r] != NULL); ++blocks) {
        /* the automatic grid (a group a warp), then one block */
        char who[96];
        snprintf(who, sizeof who, "sparse tiles%s, %s", blocks ? ", one block" : "", rows[r] ? rows[r] : "the table's");
        memset(got, 0xff, sizeof(int32_t) * (size_t)n);
        if (gpu_draws(x, n, &t, rows[r], 0, blocks, 3, 9, got) == 0) same_draws(want, got, n, who);
      }
  }
  free(x);
  free(want);
  free(got);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
}

/* The table's kernel as a mix_test_draws. */
static int table_draws(const float *x, int64_t n, const sk_mix_ztable *t, uint64_t seed, uint64_t sweep, int32_t *z) {
  return gpu_draws(x, n, t, NULL, 0, 0, seed, sweep, z);
}

int main(int argc, char **argv) {
  int host_only, quick;
  mix_test_args(argc, argv, &host_only, &quick);
  int c = 0;
  for (size_t a = 0; a < sizeof kKs / sizeof kKs[0]; ++a)
    for (size_t b = 0; b < sizeof kDs / sizeof kDs[0]; ++b)
      for (size_t s = 0; s < 2; ++s, ++c) {
        if (quick && c % 3 != 0) continue;
        sk_test_progress("exact case %d: K=%d D=%d scale %g", c, (int)kKs[a], (int)kDs[b], kScales[s]);
        exact_case(kKs[a], kDs[b], kScales[s], quick, host_only, (uint64_t)c + 1);
      }
  test_sparse_tiles(64, 1, host_only);
  test_sparse_tiles(64, 3, host_only);
  test_sparse_tiles(40, 1, host_only);
  test_sparse_tiles(128, 16, host_only); /* the kernel in passes: two passes */
  test_sparse_tiles(200, 3, host_only);  /* seven tiles: a last pass of one */
  test_sparse_tiles(512, 16, host_only); /* permuted rows */
  test_sparse_tiles(64, 7, host_only);   /* D rounded up to 8 and 12 */
  test_sparse_tiles(48, 10, host_only);
  test_sparse_tiles(128, 7, host_only);
  test_sparse_tiles(100, 12, host_only);
  if (!host_only) {
    test_launch_shapes(quick);
    if (!quick) {
      mix_test_gof_case("GPU K=33 D=3 (two tiles)", 33, 3, 1.0, 20, 21, table_draws);
      mix_test_gof_case("GPU K=100 D=16 scale 1e6 (four tiles)", 100, 16, 1e6, 20, 22, table_draws);
      mix_test_gof_case("GPU K=1000 D=2 scale 1e-6 (32 tiles)", 1000, 2, 1e-6, 20, 23, table_draws);
    }
  }
  return sk_test_finish();
}
