/*
 * The GPU chain (examples/mixture/src/chain.h with the device GPU) against the CPU chain:
 * - statistics: the GPU's exact integers equal the CPU's for the same z, with the block-private
 *   shared-memory sums (K (2 D + 1) words in 48 KiB), the opt-in larger shared memory, and global atomics
 *   (K = 1000, D = 100: 1.6 MB of sums);
 * - bit identity: the same data and seed give the same statistics, parameters (every double) and
 *   assignments after every sweep on the GPU (the z-step kernel table's choice, its thread-reference and
 *   butterfly-warp rows, several launch shapes) as on the CPU;
 * - planted recovery on the GPU: well-separated data (N = 10^5, D = 8, K = 10) gives an adjusted Rand
 *   index >= 0.95, with the CPU chain's assignments.
 * With --host the CPU chains only (a cpu test). With --quick, or under compute-sanitizer, smaller data
 * and fewer sweeps. Without a GPU: exit 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "data.h"
#include "gen.h"
#include "gpu/mix_gpu.h"
#include "metrics.h"
#include "mix_test.h"
#include "sk_test.h"
#include "stats.h"

/* Planted data, standardized. */
static int make_data(int64_t n, int32_t d, int32_t k, int overlap, uint64_t seed, sk_mix_data *data, sk_mix_truth *t) {
  sk_mix_gen_params g = {n, d, k, overlap, seed, 0};
  sk_ex_error err;
  float *raw = NULL;
  const int ok = SK_CHECK(sk_mix_generate(&g, &raw, t, &err) == 0 && sk_mix_data_from_f32(raw, n, d, data, &err) == 0,
                          "%s", err.message);
  free(raw);
  return ok;
}

static sk_mix_chain *make_chain(const sk_mix_data *data, int32_t k, int gpu, const char *kernel, int warps,
                               int blocks) {
  sk_mix_chain_options o;
  memset(&o, 0, sizeof o);
  o.device = gpu ? SK_MIX_DEVICE_GPU : SK_MIX_DEVICE_CPU;
  o.gpu_zstep_kernel = kernel; /* NULL: the z-step kernel table's choice */
  o.gpu_warps = warps;
  o.gpu_blocks = blocks;
  return mix_test_chain(data, k, 2718, &o);
}

static int same_stats(const sk_mix_stats *a, const sk_mix_stats *b) {
  const size_t kd = (size_t)a->k * (size_t)a->d;
  return memcmp(a->count, b->count, sizeof(int64_t) * (size_t)a->k) == 0 &&
         memcmp(a->sx, b->sx, sizeof(int64_t) * kd) == 0 && memcmp(a->sxx, b->sxx, sizeof(int64_t) * kd) == 0;
}

static int same_params(const sk_mix_params *a, const sk_mix_params *b) {
  const size_t kd = (size_t)a->k * (size_t)a->d;
  return memcmp(a->log_pi, b->log_pi, sizeof(double) * (size_t)a->k) == 0 &&
         memcmp(a->mu, b->mu, sizeof(double) * kd) == 0 && memcmp(a->sigma2, b->sigma2, sizeof(double) * kd) == 0;
}

/* The GPU's statistics of the z its z-step drew, by statistics kernel `kernel` on `blocks` blocks (0:
   automatic), against the CPU's statistics of the same z. */
static void stats_case(int64_t n, int32_t d, int32_t k, int kernel, int blocks, const char *path) {
  sk_mix_data data;
  sk_mix_truth t;
  sk_mix_ztable table;
  sk_mix_params p;
  sk_mix_stats gs, cs;
  sk_ex_error err;
  sk_mix_gpu *g = NULL;
  sk_mix_gpu_options o;
  uint64_t rng = (uint64_t)k;
  memset(&o, 0, sizeof o);
  o.stats_kernel = kernel;
  o.blocks = blocks;
  sk_test_context("GPU statistics, %s kernel, K=%d D=%d N=%lld, %d blocks (%s)",
                  kernel == SK_MIX_STATS_SORTED ? "sorted" : "atomic", (int)k, (int)d, (long long)n, blocks, path);
  if (!make_data(n, d, k < 50 ? k : 50, 1, 5, &data, &t)) return;
  int32_t *z = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  sk_mix_params_alloc(&p, k, d, &err);
  sk_mix_ztable_alloc(&table, k, d, &err);
  sk_mix_stats_alloc(&gs, k, d, n, &err);
  sk_mix_stats_alloc(&cs, k, d, n, &err);
  mix_test_params(&p, 1.0, 1, &rng);
  sk_mix_ztable_set(&table, &p);
  if (SK_CHECK(sk_mix_gpu_create(data.x, n, d, k, &o, &g, &err) == 0 &&
                   sk_mix_gpu_zstep(g, &table, 1, 1, &err) == 0 && sk_mix_gpu_stats(g, &gs, &err) == 0 &&
                   sk_mix_gpu_copy_z(g, z, &err) == 0,
               "%s", err.message) &&
      SK_CHECK(sk_mix_stats_cpu(&data, z, 0, &cs, &err) == 0, "%s", err.message)) {
    int64_t used = 0;
    for (int32_t c = 0; c < k; ++c) used += cs.count[c] > 0;
    SK_CHECK(same_stats(&gs, &cs), "the GPU's sums differ from the CPU's");
    printf("GPU statistics, %s kernel, K=%4d D=%3d N=%6lld, %d blocks (%s): equal to the CPU's; %lld components "
           "hold points\n",
           kernel == SK_MIX_STATS_SORTED ? "sorted" : "atomic", (int)k, (int)d, (long long)n, blocks, path,
           (long long)used);
  }
  sk_mix_gpu_destroy(g);
  free(z);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&table);
  sk_mix_stats_free(&gs);
  sk_mix_stats_free(&cs);
  sk_mix_data_free(&data);
  sk_mix_truth_free(&t);
}

/* The CPU chain and a GPU chain, sweep by sweep. */
static void chain_case(const sk_mix_data *data, int32_t k, const char *kernel, int warps, int blocks, int sweeps,
                       int host_only) {
  sk_ex_error err;
  sk_test_context("chain K=%d z-step kernel %s, %d warps, %d blocks", (int)k, kernel ? kernel : "(the table's)", warps,
                  blocks);
  sk_mix_chain *cpu = make_chain(data, k, 0, NULL, 0, 0),
               *gpu = host_only ? NULL : make_chain(data, k, 1, kernel, warps, blocks);
  if (cpu == NULL || (!host_only && gpu == NULL)) {
    sk_mix_chain_destroy(cpu);
    sk_mix_chain_destroy(gpu);
    return;
  }
  for (int s = 1; s <= sweeps; ++s) {
    if (!SK_CHECK(sk_mix_chain_sweep(cpu, &err) == 0, "CPU sweep %d: %s", s, err.message)) break;
    if (host_only) continue;
    if (!SK_CHECK(sk_mix_chain_sweep(gpu, &err) == 0, "GPU sweep %d: %s", s, err.message)) break;
    if (!SK_CHECK(same_stats(&cpu->stats, &gpu->stats), "sweep %d: the statistics differ", s)) break;
    if (!SK_CHECK(same_params(&cpu->params, &gpu->params), "sweep %d: the parameters differ", s)) break;
  }
  if (!host_only && SK_CHECK(sk_mix_chain_fetch_z(gpu, &err) == 0, "%s", err.message))
    SK_CHECK(memcmp(cpu->z, gpu->z, sizeof(int32_t) * (size_t)data->n) == 0, "the assignments differ");
  sk_mix_chain_destroy(cpu);
  sk_mix_chain_destroy(gpu);
}

static void recovery(int quick, int host_only) {
  sk_mix_data data;
  sk_mix_truth t;
  sk_ex_error err;
  const int64_t n = quick ? 10000 : 100000;
  const int sweeps = quick ? 10 : 60;
  sk_test_context("planted recovery on the GPU");
  if (!make_data(n, 8, 10, 0, 2024, &data, &t)) return;
  sk_mix_chain *gpu = host_only ? NULL : make_chain(&data, 10, 1, NULL, 0, 0);
  sk_mix_chain *cpu = make_chain(&data, 10, 0, NULL, 0, 0);
  int ok = cpu != NULL && (host_only || gpu != NULL);
  for (int s = 0; s < sweeps && ok; ++s)
    ok = SK_CHECK(sk_mix_chain_sweep(cpu, &err) == 0 && (host_only || sk_mix_chain_sweep(gpu, &err) == 0), "%s",
                  err.message);
  if (ok && !host_only && SK_CHECK(sk_mix_chain_fetch_z(gpu, &err) == 0, "%s", err.message)) {
    const double ari = sk_mix_ari(t.z, gpu->z, n, 10, 10);
    printf("planted recovery on the GPU: N = %lld, D = 8, K = 10, %d sweeps: adjusted Rand index %.5f\n", (long long)n,
           sweeps, ari);
    SK_CHECK(quick || ari >= 0.95, "adjusted Rand index %.5f < 0.95", ari);
    SK_CHECK(memcmp(cpu->z, gpu->z, sizeof(int32_t) * (size_t)n) == 0, "the GPU's assignments differ from the CPU's");
  }
  sk_mix_chain_destroy(gpu);
  sk_mix_chain_destroy(cpu);
  sk_mix_data_free(&data);
  sk_mix_truth_free(&t);
}

int main(int argc, char **argv) {
  int host_only, quick;
  mix_test_args(argc, argv, &host_only, &quick);
  if (!host_only) {
    const int64_t big = quick ? 3001 : 50001, small = quick ? 1000 : 20000;
    /* The sorted kernel: accumulators in shared memory (48 KiB, opt-in), global ones (K (2 D + 1) 8
       bytes past 227 KiB), one component (every point in one run), D = 1 (a thread a run) and D = 256
       (two runs a block), tiles of 2,048 to 16,384 points, a last tile cut short (N odd), one block and
       three blocks (the same integers whatever the grid). */
    stats_case(big, 5, 7, SK_MIX_STATS_SORTED, 0, "shared accumulators, 48 KiB");
    stats_case(big, 16, 200, SK_MIX_STATS_SORTED, 0, "shared accumulators, opt-in");
    stats_case(small, 100, 1000, SK_MIX_STATS_SORTED, 0, "global accumulators");
    stats_case(big, 3, 1, SK_MIX_STATS_SORTED, 0, "one component");
    stats_case(big, 1, 64, SK_MIX_STATS_SORTED, 0, "a thread a run");
    stats_case(small, 256, 3, SK_MIX_STATS_SORTED, 0, "two runs a block");
    stats_case(big, 16, 64, SK_MIX_STATS_SORTED, 1, "one block");
    stats_case(big, 16, 64, SK_MIX_STATS_SORTED, 3, "three blocks");
    /* The atomic kernel, both places of its accumulators. */
    stats_case(big, 5, 7, SK_MIX_STATS_ATOMIC, 0, "shared accumulators");
    stats_case(small, 100, 1000, SK_MIX_STATS_ATOMIC, 0, "global accumulators");
  }
  sk_mix_data data;
  sk_mix_truth t;
  if (make_data(quick ? 2000 : 20000, 5, 7, 1, 77, &data, &t)) {
    const int sweeps = quick ? 3 : 10;
    chain_case(&data, 7, NULL, 0, 0, sweeps, host_only);
    if (!host_only) {
      chain_case(&data, 7, "thread-reference", 0, 0, sweeps, 0);
      chain_case(&data, 7, "butterfly-warp", 0, 0, sweeps, 0);
      chain_case(&data, 7, NULL, 1, 3, sweeps, 0);
      chain_case(&data, 40, NULL, 5, 0, sweeps, 0);
      chain_case(&data, 40, "butterfly-warp", 5, 0, sweeps, 0);
    }
    sk_mix_data_free(&data);
    sk_mix_truth_free(&t);
  }
  recovery(quick, host_only);
  return sk_test_finish();
}
