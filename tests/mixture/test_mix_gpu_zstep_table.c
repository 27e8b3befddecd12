/*
 * The z-step kernel table (examples/mixture/src/gpu/zstep_table.cu, described in gpu/mix_gpu.h):
 * - the table itself (a cpu test, --host): unique names that say what each kernel does (no "variant"),
 *   each row with its text; the lookup's choice on an H200's shared memory for a list of (D, K) that
 *   covers every rule (one tile of 8, 16 and 32 widths, two tiles, three tiles at each D, the kernel in
 *   passes with padded and permuted rows, D > 16, a table over 80 KiB), and on a device with less
 *   shared memory (the rules' fallbacks); every row but the two reference kernels chosen somewhere;
 *   forcing by name: an unknown name and a row that does not fit are refused with the reason, a row
 *   that fits is taken as named;
 * - every row forced on the GPU (gpu): each kernel's instances, D rounded up to 4 of 4, 8, 12 and 16
 *   (the chunk kernels also with D > 16), the register kernels' tile widths 8, 16 and 32, one to five
 *   tiles, full and partial last tiles, draw the CPU's component for every point (the sparse path of
 *   the transposed rows, forced, is test_mix_gpu_zstep.c's). The test checks that the cases cover
 *   every (row, instance) it asks for.
 * With --host the table and the CPU's side of the forced cases. With --quick, or under compute-sanitizer
 * (SK_TEST_SANITIZER), fewer K per row (still every instance) and no D > 16. Without a GPU: exit 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/mix_gpu.h"
#include "mix_test.h"
#include "mixture.h"
#include "sk_test.h"
#include "zstep_cpu.h"

/* An H200's shared memory (and an H100's): 228 KiB an SM, 227 KiB a block at most. */
static const sk_mix_gpu_caps kH200 = {233472, 232448};

static int row_of(const char *name) {
  for (int r = 0; r < sk_mix_zstep_kernel_count(); ++r)
    if (strcmp(sk_mix_zstep_kernel_name(r), name) == 0) return r;
  return -1;
}

static void test_rows(void) {
  const int n = sk_mix_zstep_kernel_count();
  sk_test_context("the table's rows");
  SK_CHECK(n == 10, "%d rows", n);
  SK_CHECK(sk_mix_zstep_kernel_name(-1) == NULL && sk_mix_zstep_kernel_name(n) == NULL, "rows out of range");
  for (int r = 0; r < n; ++r) {
    const char *name = sk_mix_zstep_kernel_name(r), *what = sk_mix_zstep_kernel_text(r, 0);
    const char *needs = sk_mix_zstep_kernel_text(r, 1);
    sk_test_context("row %d", r);
    if (!SK_CHECK(name != NULL && what != NULL && needs != NULL && name[0] && what[0] && needs[0], "no text"))
      continue;
    SK_CHECK(strstr(name, "variant") == NULL && strstr(what, "variant") == NULL && strstr(needs, "variant") == NULL,
             "%s: says 'variant'", name);
    for (int s = 0; s < r; ++s) SK_CHECK(strcmp(name, sk_mix_zstep_kernel_name(s)) != 0, "%s twice", name);
  }
}

struct expected {
  int32_t d, k;
  const char *row;
  int dims, width, warps;
};

/* The rules on an H200, case by case (0: not checked). */
static const struct expected kRule[] = {
    {16, 8, "one-point-regs", 16, 8, 8},          {4, 5, "one-point-regs", 4, 8, 8},
    {12, 12, "one-point-regs", 12, 16, 8},        {16, 12, "two-point-dims-outside", 16, 16, 8},
    {16, 31, "one-point-regs", 16, 32, 8},        {8, 32, "one-point-regs", 8, 32, 8},
    {16, 32, "two-point-dims-outside", 16, 32, 8}, {9, 32, "two-point-dims-outside", 12, 32, 8},
    {16, 33, "transposed-two-tiles", 16, 32, 16}, {3, 64, "transposed-two-tiles", 4, 32, 16},
    {16, 80, "two-point-regs", 16, 32, 8},        {13, 95, "two-point-regs", 16, 32, 8},
    {16, 96, "two-point-dims-outside", 16, 32, 8}, {10, 96, "two-point-dims-outside", 12, 32, 8},
    {12, 80, "transposed-passes", 12, 32, 16},    {8, 96, "transposed-passes", 8, 32, 16},
    {16, 128, "transposed-passes", 16, 32, 16},   {8, 512, "transposed-passes", 8, 32, 16},
    {16, 512, "transposed-passes-permuted", 16, 32, 16}, {20, 64, "dim-chunks-shared", 4, 32, 8},
    {100, 64, "dim-chunks-shared", 4, 32, 8},     {16, 1000, "dim-chunks-global", 16, 32, 8},
    {256, 1024, "dim-chunks-global", 16, 32, 8},
};

static void test_rule(void) {
  int chosen[16] = {0};
  sk_mix_zstep_choice c;
  sk_ex_error err;
  for (size_t i = 0; i < sizeof kRule / sizeof kRule[0]; ++i) {
    const struct expected *e = &kRule[i];
    sk_test_context("the rule at D = %d, K = %d (H200)", (int)e->d, (int)e->k);
    if (!SK_CHECK(sk_mix_zstep_lookup(e->d, e->k, 0, &kH200, NULL, &c, &err) == 0, "%s", err.message)) continue;
    ++chosen[c.row];
    SK_CHECK(strcmp(sk_mix_zstep_kernel_name(c.row), e->row) == 0 && !c.forced && c.why[0] != '\0',
             "chose %s (%s), want %s", sk_mix_zstep_kernel_name(c.row), c.why, e->row);
    SK_CHECK(c.dims == e->dims && c.width == e->width && c.warps == e->warps,
             "instance %d/%d, %d warps; want %d/%d, %d", c.dims, c.width, c.warps, e->dims, e->width, e->warps);
    SK_CHECK(sk_mix_zstep_kernel_fits(c.row, e->d, e->k, 0, &kH200, NULL, 0), "the chosen row does not fit");
  }
  for (int r = 0; r < sk_mix_zstep_kernel_count(); ++r) {
    const char *name = sk_mix_zstep_kernel_name(r);
    sk_test_context("row %s", name);
    if (strcmp(name, "thread-reference") == 0 || strcmp(name, "butterfly-warp") == 0)
      SK_CHECK(chosen[r] == 0, "a reference kernel was chosen");
    else
      SK_CHECK(chosen[r] > 0, "never chosen in the cases");
  }
  /* Less shared memory (an A100's 164 KiB an SM): two blocks of two-point-dims-outside do not fit. */
  const sk_mix_gpu_caps a100 = {167936, 166912}, small = {70000, 70000};
  sk_test_context("the rule at D = 16, K = 96 with 164 KiB an SM");
  if (SK_CHECK(sk_mix_zstep_lookup(16, 96, 0, &a100, NULL, &c, &err) == 0, "%s", err.message))
    SK_CHECK(c.row == row_of("two-point-regs"), "chose %s (%s)", sk_mix_zstep_kernel_name(c.row), c.why);
  /* No warp of the kernel in passes beside a 66 KiB table, nor two-point-regs: the chunk kernel. */
  sk_test_context("the rule at D = 16, K = 512 with 70,000 bytes a block");
  if (SK_CHECK(sk_mix_zstep_lookup(16, 512, 0, &small, NULL, &c, &err) == 0, "%s", err.message))
    SK_CHECK(c.row == row_of("dim-chunks-shared") && strstr(c.why, "does not fit") != NULL, "chose %s (%s)",
             sk_mix_zstep_kernel_name(c.row), c.why);
  /* The caller's warps: the register kernels take them, the transposed ones their own. */
  sk_test_context("warps per block");
  if (SK_CHECK(sk_mix_zstep_lookup(16, 96, 3, &kH200, NULL, &c, &err) == 0, "%s", err.message))
    SK_CHECK(c.warps == 3 && c.points_per_block == 3 * 32 * 2, "%d warps, %d points", c.warps, c.points_per_block);
  if (SK_CHECK(sk_mix_zstep_lookup(16, 64, 3, &kH200, NULL, &c, &err) == 0, "%s", err.message))
    SK_CHECK(c.warps == 16, "%d warps", c.warps);
}

static void test_forcing(void) {
  sk_mix_zstep_choice c;
  sk_ex_error err;
  sk_test_context("forcing rows");
  SK_CHECK(sk_mix_zstep_lookup(16, 64, 0, &kH200, "no-such-kernel", &c, &err) != 0 &&
               strstr(err.message, "transposed-two-tiles") != NULL,
           "an unknown name: %s", err.message);
  SK_CHECK(sk_mix_zstep_lookup(16, 100, 0, &kH200, "transposed-two-tiles", &c, &err) != 0 &&
               strstr(err.message, "two tiles") != NULL,
           "a row that does not fit: %s", err.message);
  SK_CHECK(sk_mix_zstep_lookup(17, 64, 0, &kH200, "one-point-regs", &c, &err) != 0, "D = 17 in registers");
  SK_CHECK(sk_mix_zstep_lookup(16, 1000, 0, &kH200, "dim-chunks-shared", &c, &err) != 0, "a 132 KiB table shared");
  SK_CHECK(sk_mix_zstep_lookup(0, 64, 0, &kH200, NULL, &c, &err) != 0 &&
               sk_mix_zstep_lookup(16, 64, 9, &kH200, NULL, &c, &err) != 0,
           "sizes out of range");
  if (SK_CHECK(sk_mix_zstep_lookup(16, 64, 0, &kH200, "two-point-regs", &c, &err) == 0, "%s", err.message))
    SK_CHECK(c.row == row_of("two-point-regs") && c.forced && c.points == 2, "took %s",
             sk_mix_zstep_kernel_name(c.row));
  if (SK_CHECK(sk_mix_zstep_lookup(5, 40, 0, &kH200, "", &c, &err) == 0, "%s", err.message))
    SK_CHECK(c.row == row_of("transposed-two-tiles") && !c.forced, "an empty name is the table's choice");
}

/* One forced row on the GPU against the CPU's draws; marks (row, dims, width) as run. */
static int runs[16][17][33];

static void forced_case(const char *row, int32_t d, int32_t k, int host_only) {
  sk_mix_params p;
  sk_mix_ztable t;
  sk_ex_error err;
  sk_mix_zstep_choice c;
  sk_mix_gpu_caps caps = kH200;
  if (!host_only && sk_mix_gpu_caps_query(0, &caps, &err) != 0) return;
  if (sk_mix_zstep_lookup(d, k, 0, &caps, row, &c, &err) != 0) return; /* does not fit: not a case */
  uint64_t rng = 99u + (uint64_t)d * 1000u + (uint64_t)k;
  const int64_t n = 32 * 20 + 7;
  sk_test_context("row %s forced at D = %d, K = %d", row, (int)d, (int)k);
  if (!mix_test_setup(k, d, 1.0, 0, &rng, &p, &t)) return;
  float *x = (float *)malloc(sizeof(float) * (size_t)n * (size_t)d);
  int32_t *want = (int32_t *)malloc(sizeof(int32_t) * (size_t)n), *got = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  mix_test_points(&p, x, n, 1.0, &rng);
  if (SK_CHECK(sk_mix_zstep_cpu(x, 0, n, &t, 17, 3, 0, want, &err) == 0, "CPU: %s", err.message) && !host_only) {
    sk_mix_gpu_options o;
    sk_mix_gpu *g = NULL;
    memset(&o, 0, sizeof o);
    o.zstep_kernel = row;
    memset(got, 0xff, sizeof(int32_t) * (size_t)n);
    if (SK_CHECK(sk_mix_gpu_create(x, n, d, k, &o, &g, &err) == 0 && sk_mix_gpu_zstep(g, &t, 17, 3, &err) == 0 &&
                     sk_mix_gpu_copy_z(g, got, &err) == 0,
                 "GPU: %s", err.message)) {
      const sk_mix_zstep_choice *ran = sk_mix_gpu_zstep_choice(g);
      SK_CHECK(ran->row == c.row && ran->forced, "ran %s", sk_mix_zstep_kernel_name(ran->row));
      int64_t first = -1;
      for (int64_t i = 0; i < n && first < 0; ++i)
        if (got[i] != want[i]) first = i;
      if (SK_CHECK(first < 0, "point %lld drew %d, the CPU %d", (long long)first, first < 0 ? 0 : (int)got[first],
                   first < 0 ? 0 : (int)want[first]))
        runs[c.row][c.dims][c.width] = 1;
    }
    sk_mix_gpu_destroy(g);
  }
  free(x);
  free(want);
  free(got);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
}

static void test_every_row(int host_only, int quick) {
  /* Quick (a sanitizer): the first Ks of each list, which still cover every instance; no D > 16. */
  static const int32_t kDs[] = {3, 7, 10, 16}, kChunkDs[] = {20, 24, 28, 32, 100};
  static const int32_t kRegsKs[] = {5, 12, 80, 31, 32, 160}, kTwoKs[] = {40, 33, 64}, kPassKs[] = {100, 65, 128, 200};
  static const int32_t kOtherKs[] = {33, 5, 100};
  for (int r = 0; r < sk_mix_zstep_kernel_count(); ++r) {
    const char *row = sk_mix_zstep_kernel_name(r);
    const int regs = strstr(row, "point") != NULL, two = strcmp(row, "transposed-two-tiles") == 0;
    const int passes = strncmp(row, "transposed-passes", 17) == 0, chunks = strncmp(row, "dim-chunks", 10) == 0;
    const int32_t *ks = regs ? kRegsKs : two ? kTwoKs : passes ? kPassKs : kOtherKs;
    const int nk = quick ? (regs ? 3 : 1) : regs ? 6 : two ? 3 : passes ? 4 : 3;
    for (int a = 0; a < nk; ++a) {
      for (int b = 0; b < 4; ++b) forced_case(row, kDs[b], ks[a], host_only);
      if (chunks && !quick)
        for (int b = 0; b < 5; ++b) forced_case(row, kChunkDs[b], ks[a], host_only);
    }
    if (host_only) continue;
    /* Coverage: each instance the row has. */
    for (int dims = 4; dims <= 16; dims += 4) {
      if (strcmp(row, "thread-reference") == 0 || strcmp(row, "butterfly-warp") == 0) break;
      sk_test_context("row %s, D rounded up to %d", row, dims);
      if (regs)
        SK_CHECK(runs[r][dims][8] && runs[r][dims][16] && runs[r][dims][32], "tile widths 8/16/32 run: %d/%d/%d",
                 runs[r][dims][8], runs[r][dims][16], runs[r][dims][32]);
      else
        SK_CHECK(runs[r][dims][32], "not run");
    }
    if (strcmp(row, "thread-reference") == 0 || strcmp(row, "butterfly-warp") == 0) {
      int any = 0;
      for (int dims = 0; dims <= 16; ++dims) any |= runs[r][dims][0] | runs[r][dims][32];
      sk_test_context("row %s", row);
      SK_CHECK(any, "not run");
    }
  }
}

int main(int argc, char **argv) {
  int host_only, quick;
  mix_test_args(argc, argv, &host_only, &quick);
  test_rows();
  test_rule();
  test_forcing();
  test_every_row(host_only, quick);
  return sk_test_finish();
}
