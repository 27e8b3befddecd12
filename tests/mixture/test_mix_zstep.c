/*
 * The z-step's arithmetic and the CPU reference draw (examples/mixture/src/zstep.h, zstep_cpu.h):
 * - sk_tile_exp2_neg_f32() against exp2() in double: within 3e-7 relative on [-125, 0], exactly 1 at 0,
 *   exact powers of two at the integers, +0 below -125 and for NaN and -inf;
 * - the tree search against the plain sequential rule where every partial sum is exact (small integer
 *   weights): u on a running sum goes to the next positive weight, a zero weight is never chosen, u at
 *   or past the total gives the last positive weight;
 * - goodness of fit of the CPU z-step against the exact conditional (2^20 draws of one point each for
 *   K from 2 to 1,000 over one to 32 tiles, data at scales 1e-6, 1 and 1e6), with a planted off-by-one
 *   that must be rejected; the reservoir across tiles where one tile holds all the mass; the reservoir's
 *   step by a branch and by selects (samplekit's sk_thread_tile_reservoir_step_f32() and
 *   sk_thread_tile_reservoir_step_select_f32()) the same bits;
 * - the same draws with 1, 2 and 3 threads, and from the FMA-instruction build and the plain one.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mix_test.h"
#include "mixture.h"
#include "sk_test.h"
#include "zstep.h"
#include "zstep_cpu.h"
#include "zstep_cpu_chunk.h"

static void test_exp(void) {
  double worst = 0.0, worst_x = 0.0;
  uint64_t rng = 99;
  sk_test_context("sk_tile_exp2_neg_f32");
  SK_CHECK(sk_tile_exp2_neg_f32(0.0f) == 1.0f, "2^0 = %a", (double)sk_tile_exp2_neg_f32(0.0f));
  SK_CHECK(sk_tile_exp2_neg_f32(-0.0f) == 1.0f, "2^-0 = %a", (double)sk_tile_exp2_neg_f32(-0.0f));
  SK_CHECK(sk_tile_exp2_neg_f32(-125.5f) == 0.0f && sk_tile_exp2_neg_f32(-INFINITY) == 0.0f &&
               sk_tile_exp2_neg_f32(nanf("")) == 0.0f,
           "below -125, -inf and NaN must give 0");
  for (int n = 0; n >= -125; --n) /* the reservoir's powers of two of integers are exact */
    if (!SK_CHECK(sk_tile_exp2_neg_f32((float)n) == ldexpf(1.0f, n), "2^%d = %a", n,
                  (double)sk_tile_exp2_neg_f32((float)n)))
      break;
  for (int i = 0; i <= 4000000; ++i) {
    /* A sweep of [-125, 0] and random points, including tiny magnitudes. */
    const float x = i < 2000000 ? -125.0f * (float)i / 2000000.0f
                                : -ldexpf(sk_test_rand_unit_f32(&rng), -(int)(sk_test_rand_u32(&rng) % 30u)) * 125.0f;
    const double want = exp2((double)x), got = (double)sk_tile_exp2_neg_f32(x);
    const double rel = fabs(got - want) / want;
    if (rel > worst) worst = rel, worst_x = (double)x;
  }
  printf("sk_tile_exp2_neg_f32: largest relative error %.3g (at x = %.9g)\n", worst, worst_x);
  SK_CHECK(worst < 3e-7, "relative error %.3g at x = %.9g", worst, worst_x);
}

/* The sequential rule: the first positive weight whose running sum exceeds u, else the last positive. */
static int sequential(const float *w, float u) {
  double run = 0.0;
  int last = 0;
  for (int i = 0; i < 32; ++i) {
    if (!(w[i] > 0.0f)) continue;
    run += w[i];
    last = i;
    if (run > (double)u) return i;
  }
  return last;
}

static void test_tree_search(void) {
  uint64_t rng = 7;
  for (int rep = 0; rep < 400; ++rep) {
    float w[32];
    double total = 0.0;
    for (int i = 0; i < 32; ++i) {
      const uint32_t r = sk_test_rand_u32(&rng);
      w[i] = rep % 4 == 0 ? (float)(r % 2u) : (rep % 4 == 1 && i != 31 ? 0.0f : (float)(r % 8u));
      total += w[i];
    }
    sk_test_context("tree search, weights set %d (total %g)", rep, total);
    SK_CHECK(sk_thread_tile_sum_f32(w, 32) == (float)total, "tree sum %g, want %g",
             (double)sk_thread_tile_sum_f32(w, 32), total);
    int ok = 1;
    for (double u = 0.0; u <= total + 1.0 && ok; u += 0.5) {
      const int got = sk_thread_tile_search_f32(w, 32, (float)u), want = total > 0.0 ? sequential(w, (float)u) : 0;
      ok = SK_CHECK(got == want, "u = %g: position %d, the sequential rule says %d", u, got, want);
      if (total > 0.0) ok &= SK_CHECK(w[got] > 0.0f, "u = %g: position %d has weight 0", u, got);
    }
  }
}

/* Two tiles where one holds all the mass: every draw must land in it, whichever tile it is. */
static void test_reservoir_extremes(void) {
  sk_mix_params p;
  sk_mix_ztable t;
  sk_ex_error err;
  uint64_t rng = 5;
  const int64_t n = 20000;
  float *x = (float *)calloc((size_t)n * 2, sizeof(float));
  int32_t *z = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  for (int heavy = 0; heavy < 2; ++heavy) {
    sk_test_context("reservoir: all the mass in tile %d", heavy);
    if (!mix_test_setup(64, 2, 1.0, 1, &rng, &p, &t)) break;
    for (int32_t k = 0; k < 64; ++k) p.log_pi[k] = (k / 32 == heavy) ? 0.0 : -120.0; /* e^-120 = 2^-173: below float */
    sk_mix_ztable_set(&t, &p);
    if (SK_CHECK(sk_mix_zstep_cpu(x, 0, n, &t, 11, 1, 0, z, &err) == 0, "%s", err.message)) {
      int64_t outside = 0;
      for (int64_t i = 0; i < n; ++i) outside += z[i] / 32 != heavy;
      SK_CHECK(outside == 0, "%lld of %lld draws outside tile %d", (long long)outside, (long long)n, heavy);
    }
    sk_mix_params_free(&p);
    sk_mix_ztable_free(&t);
  }
  free(x);
  free(z);
}

/* The reservoir's step by a branch and by selects (sk_thread_tile_reservoir_step_f32() and
   sk_thread_tile_reservoir_step_select_f32()) give the same state, bit for bit, over random runs of
   tiles: minima above, below and equal to the running one (also +inf, an absent tile), sums from +0 to
   32, uniforms in [0, 1). */
static void test_reservoir_shapes(void) {
  uint64_t rng = 17;
  int64_t differ = 0, runs = 0;
  static const float specials[4] = {0.0f, 1.0f, 126.5f, 1e30f};
  sk_test_context("reservoir: branch against selects");
  for (int run = 0; run < 20000; ++run, ++runs) {
    sk_thread_tile_reservoir_f32 a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    const int tiles = 2 + (int)(sk_test_rand_u32(&rng) % 31u);
    for (int t = 0; t < tiles; ++t) {
      const uint32_t kind = sk_test_rand_u32(&rng) % 8u;
      float h = 300.0f * (sk_test_rand_unit_f32(&rng) - 0.5f);
      if (kind == 0 && t > 0) h = a.h;                           /* equal to the running minimum */
      if (kind == 1) h = specials[sk_test_rand_u32(&rng) % 4u];
      if (kind == 2 && t > 0) h = sk_mix_pos_inf();              /* an absent tile */
      const float sum = kind == 3 ? 0.0f : 1.0f + 31.0f * sk_test_rand_unit_f32(&rng), u = sk_test_rand_unit_f32(&rng);
      const int ta = sk_thread_tile_reservoir_step_f32(&a, t, h, sum, u);
      const int tb = sk_thread_tile_reservoir_step_select_f32(&b, t, h, sum, u);
      if (ta != tb || memcmp(&a, &b, sizeof a) != 0) {
        ++differ;
        break;
      }
    }
  }
  SK_CHECK(differ == 0, "%lld of %lld runs differ", (long long)differ, (long long)runs);
}

/* The same draws whatever the thread count, and from both builds of the inner loop. */
static void test_determinism(void) {
  sk_mix_params p;
  sk_mix_ztable t;
  sk_ex_error err;
  uint64_t rng = 1234;
  const int32_t K = 70, D = 5;
  const int64_t n = 7777;
  sk_test_context("z-step determinism");
  if (!mix_test_setup(K, D, 1.0, 0, &rng, &p, &t)) return;
  float *x = (float *)malloc(sizeof(float) * (size_t)n * D);
  int32_t *z1 = (int32_t *)malloc(sizeof(int32_t) * (size_t)n), *z2 = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  mix_test_points(&p, x, n, 1.0, &rng);
  sk_mix_zstep_cpu(x, 0, n, &t, 42, 9, 1, z1, &err);
  for (int threads = 2; threads <= 3; ++threads) {
    sk_test_context("z-step with %d threads against 1", threads);
    sk_mix_zstep_cpu(x, 0, n, &t, 42, 9, threads, z2, &err);
    SK_CHECK(memcmp(z1, z2, sizeof(int32_t) * (size_t)n) == 0, "different draws");
  }
  /* A range that starts mid-array draws what the whole array draws there (the index picks the uniforms). */
  sk_test_context("z-step of points 1000.. as their own array");
  sk_mix_zstep_cpu(x + 1000 * D, 1000, n - 1000, &t, 42, 9, 2, z2, &err);
  SK_CHECK(memcmp(z1 + 1000, z2, sizeof(int32_t) * (size_t)(n - 1000)) == 0, "different draws");
#ifdef SK_MIX_HAVE_FMA_VARIANT
  if (__builtin_cpu_supports("fma")) {
    /* Both builds of the inner loop on the table in [k][j] layout, as zstep_cpu.c gives it to them. */
    float *s = (float *)malloc(sizeof(float) * (size_t)K * D), *ms = (float *)malloc(sizeof(float) * (size_t)K * D);
    for (int32_t k = 0; k < K; ++k)
      for (int32_t j = 0; j < D; ++j) {
        s[k * D + j] = t.s[(size_t)j * (size_t)t.k_pad + (size_t)k];
        ms[k * D + j] = t.ms[(size_t)j * (size_t)t.k_pad + (size_t)k];
      }
    const sk_mix_detail_chunk a1 = {x, t.c, s, ms, 0, D, K, 42, 9, z2};
    sk_test_context("the -mfma build of the inner loop against the plain one");
    sk_mix_detail_draw_chunk_fma(&a1, 0, n);
    SK_CHECK(memcmp(z1, z2, sizeof(int32_t) * (size_t)n) == 0, "the FMA build draws differently");
    memset(z2, 0xff, sizeof(int32_t) * (size_t)n);
    sk_mix_detail_draw_chunk(&a1, 0, n);
    SK_CHECK(memcmp(z1, z2, sizeof(int32_t) * (size_t)n) == 0, "the plain build draws differently");
    free(s);
    free(ms);
  } else {
    printf("this CPU has no FMA: the two builds of the inner loop were not compared\n");
  }
#endif
  free(x);
  free(z1);
  free(z2);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
}

int main(void) {
  test_exp();
  test_tree_search();
  test_reservoir_extremes();
  test_reservoir_shapes();
  test_determinism();
  mix_test_gof_case("K=2 D=1", 2, 1, 1.0, 20, 1, mix_test_cpu_draws);
  mix_test_gof_case("K=33 D=3 scale 1e-6 (two tiles)", 33, 3, 1e-6, 20, 2, mix_test_cpu_draws);
  mix_test_gof_case("K=100 D=16 scale 1e6 (four tiles)", 100, 16, 1e6, 20, 3, mix_test_cpu_draws);
  mix_test_gof_case("K=1000 D=2 (32 tiles)", 1000, 2, 1.0, 20, 4, mix_test_cpu_draws);
  return sk_test_finish();
}
