// sk-mixture's device state: the points, z, the table and the exact statistics (mix_gpu.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "sk_ex_cuda_check.cuh"
#include "gpu/mix_gpu.h"
#include "gpu/stats_gpu.cuh"
#include "gpu/zstep_gpu.cuh"
#include "stats.h"

#define SK_EX_CUDA_SCOPE "GPU"

using sk_mix_gpu_detail::zstep_args;

struct sk_mix_gpu {
  int device, zstep_blocks;
  sk_mix_gpu_detail::zstep_plan zplan;  // the z-step kernel table's row and its shape
  int64_t n;
  int32_t d, k, k_pad;
  cudaStream_t stream;
  float *d_x, *d_table;  // table: c (k_pad), s (D x k_pad), ms (D x k_pad)
  float *d_packed, *h_packed;  // the broadcast kernel's packed table (zstep_pack())
  int32_t *d_z;
  unsigned long long *d_stats;  // count (K), sx (K x D), sxx (K x D): the statistics' integers
  unsigned long long *h_stats;
  sk_mix_gpu_detail::stats_plan splan;  // the statistics kernel's shape
  size_t bytes;
};

namespace {

int check_options(const sk_mix_gpu_options *o, sk_ex_error *err) {
  if (o->device < 0) return sk_ex_fail(err, "GPU: device %d: not a device ordinal", o->device);
  if (o->warps_per_block < 0 || o->warps_per_block > sk_mix_gpu_detail::kZstepMaxWarps)
    return sk_ex_fail(err, "GPU: %d warps per block: 0 (automatic) to %d", o->warps_per_block,
                       sk_mix_gpu_detail::kZstepMaxWarps);
  if (o->blocks < 0) return sk_ex_fail(err, "GPU: %d blocks: 0 (automatic) or more", o->blocks);
  if (o->stats_kernel != SK_MIX_STATS_SORTED && o->stats_kernel != SK_MIX_STATS_ATOMIC)
    return sk_ex_fail(err, "GPU: statistics kernel %d: not 0 (sorted) or 1 (atomic)", o->stats_kernel);
  return 0;
}

// The z-step's row of the kernel table, looked up before anything is allocated (a row that does not
// fit, or an unknown name, fails here).
int lookup(sk_mix_gpu *g, const sk_mix_gpu_options *o, sk_ex_error *err) {
  sk_mix_gpu_caps caps;
  if (sk_mix_gpu_caps_query(g->device, &caps, err) != 0) return 1;
  if (sk_mix_zstep_lookup(g->d, g->k, o->warps_per_block, &caps, o->zstep_kernel, &g->zplan.choice, err) != 0) {
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "%s", err->message);
    return sk_ex_fail(err, "GPU: %s", msg);
  }
  return 0;
}

// The launch shapes: the z-step kernel's occupancy and blocks, the statistics' blocks and shared memory.
int plan(sk_mix_gpu *g, const sk_mix_gpu_options *o, sk_ex_error *err) {
  int sms = 0, optin = 0;
  SK_EX_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g->device), "querying the SM count");
  SK_EX_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, g->device),
                  "querying the shared memory per block");
  SK_EX_CUDA_TRY(sk_mix_gpu_detail::zstep_prepare(&g->zplan), "the z-step's occupancy");
  const int resident = g->zplan.blocks_per_sm;
  const int64_t per_block = g->zplan.choice.points_per_block;
  const int64_t needed = (g->n + per_block - 1) / per_block;
  const int64_t full = (int64_t)sms * (resident > 0 ? resident : 1);
  g->zstep_blocks = o->blocks > 0 ? o->blocks : (int)(needed < full ? needed : full);
  SK_EX_CUDA_TRY(sk_mix_gpu_detail::stats_prepare(o->stats_kernel == SK_MIX_STATS_ATOMIC
                                                      ? sk_mix_gpu_detail::kStatsAtomic
                                                      : sk_mix_gpu_detail::kStatsSorted,
                                                  g->n, g->d, g->k, o->blocks, sms, optin, &g->splan),
                  "planning the statistics kernel");
  return 0;
}

// Whether the state's z-step reads the broadcast kernels' packed table (else the plain one).
bool packed_table(const sk_mix_gpu *g) {
  return g->zplan.choice.row != sk_mix_gpu_detail::kRowThreadReference &&
         g->zplan.choice.row != sk_mix_gpu_detail::kRowButterflyWarp;
}

int device_alloc(sk_mix_gpu *g, void **p, size_t bytes, const char *what, sk_ex_error *err) {
  const cudaError_t e = cudaMalloc(p, bytes);
  if (e == cudaSuccess) {
    g->bytes += bytes;
    return 0;
  }
  size_t free_b = 0, total_b = 0;
  cudaGetLastError();  // clear the allocation error before asking
  cudaMemGetInfo(&free_b, &total_b);
  return sk_ex_fail(err, "GPU: allocating %s (%zu bytes; %zu of %zu free): %s", what, bytes, free_b, total_b,
                     cudaGetErrorString(e));
}

int create(sk_mix_gpu *g, const float *x, const sk_mix_gpu_options *o, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaSetDevice(g->device), "selecting the device");
  if (lookup(g, o, err) != 0) return 1;
  SK_EX_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "creating a stream");
  const size_t nd = (size_t)g->n * (size_t)g->d, table = (size_t)g->k_pad * (size_t)(2 * g->d + 1);
  const size_t words = (size_t)g->k * (size_t)(2 * g->d + 1);
  const size_t packed = sk_mix_gpu_detail::zstep_packed_floats(g->d, g->k_pad);
  if (device_alloc(g, (void **)&g->d_x, sizeof(float) * nd, "the points", err) != 0 ||
      device_alloc(g, (void **)&g->d_packed, sizeof(float) * packed, "the packed z-step table", err) != 0 ||
      device_alloc(g, (void **)&g->d_z, sizeof(int32_t) * (size_t)g->n, "the assignments", err) != 0 ||
      device_alloc(g, (void **)&g->d_table, sizeof(float) * table, "the z-step table", err) != 0 ||
      device_alloc(g, (void **)&g->d_stats, sizeof(unsigned long long) * words, "the statistics", err) != 0)
    return 1;
  g->h_stats = (unsigned long long *)malloc(sizeof(unsigned long long) * words);
  g->h_packed = (float *)malloc(sizeof(float) * packed);
  if (g->h_stats == NULL || g->h_packed == NULL) return sk_ex_fail(err, "GPU: out of host memory for the statistics");
  SK_EX_CUDA_TRY(cudaMemcpyAsync(g->d_x, x, sizeof(float) * nd, cudaMemcpyHostToDevice, g->stream),
                  "copying the points");
  SK_EX_CUDA_TRY(cudaMemsetAsync(g->d_z, 0, sizeof(int32_t) * (size_t)g->n, g->stream), "clearing the assignments");
  if (plan(g, o, err) != 0) return 1;
  SK_EX_CUDA_TRY(cudaStreamSynchronize(g->stream), "copying the points");
  return 0;
}

}  // namespace

int sk_mix_gpu_create(const float *x, int64_t n, int32_t d, int32_t k, const sk_mix_gpu_options *o, sk_mix_gpu **out,
                      sk_ex_error *err) {
  *out = NULL;
  sk_mix_gpu_options defaults;
  memset(&defaults, 0, sizeof defaults);
  if (o == NULL) o = &defaults;
  if (check_options(o, err) != 0) return 1;
  if (n < 1 || d < 1 || d > SK_MIX_MAX_D || k < 1 || k > SK_MIX_MAX_K)
    return sk_ex_fail(err, "GPU: sizes N = %lld, D = %d, K = %d out of range", (long long)n, (int)d, (int)k);
  sk_mix_gpu *g = new (std::nothrow) sk_mix_gpu();
  if (g == NULL) return sk_ex_fail(err, "GPU: out of host memory");
  g->device = o->device;
  g->n = n;
  g->d = d;
  g->k = k;
  g->k_pad = (k + 31) / 32 * 32;
  if (create(g, x, o, err) != 0) {
    sk_mix_gpu_destroy(g);
    return 1;
  }
  *out = g;
  return 0;
}

int sk_mix_gpu_zstep(sk_mix_gpu *g, const sk_mix_ztable *t, uint64_t seed, uint64_t sweep, sk_ex_error *err) {
  if (t->k != g->k || t->d != g->d || t->k_pad != g->k_pad)
    return sk_ex_fail(err, "GPU z-step: a table for K = %d, D = %d on a state for K = %d, D = %d", (int)t->k,
                       (int)t->d, (int)g->k, (int)g->d);
  const size_t plane = (size_t)g->d * (size_t)g->k_pad;
  float *c = g->d_table, *s = c + g->k_pad, *ms = s + plane;
  SK_EX_CUDA_TRY(cudaSetDevice(g->device), "selecting the device");
  if (packed_table(g)) {
    /* Pageable memory: the copy has read h_packed when it returns, so the next sweep may refill it. */
    sk_mix_gpu_detail::zstep_pack(t, g->h_packed);
    SK_EX_CUDA_TRY(cudaMemcpyAsync(g->d_packed, g->h_packed,
                                    sizeof(float) * sk_mix_gpu_detail::zstep_packed_floats(g->d, g->k_pad),
                                    cudaMemcpyHostToDevice, g->stream),
                    "uploading the packed z-step table");
  } else {
    /* The host table is one block in the same order (mixture.h). */
    SK_EX_CUDA_TRY(
        cudaMemcpyAsync(c, t->c, sizeof(float) * ((size_t)g->k_pad + 2 * plane), cudaMemcpyHostToDevice, g->stream),
        "uploading the z-step table");
  }
  zstep_args a;
  a.x = g->d_x;
  a.n = g->n;
  a.d = g->d;
  a.k = g->k;
  a.k_pad = g->k_pad;
  a.c = c;
  a.s = s;
  a.ms = ms;
  a.packed = g->d_packed;
  a.seed = seed;
  a.sweep = sweep;
  a.z = g->d_z;
  SK_EX_CUDA_TRY(
      sk_mix_gpu_detail::zstep_launch(a, g->zplan, g->zstep_blocks, g->stream),
                  "launching the z-step");
  return 0;
}

int sk_mix_gpu_stats(sk_mix_gpu *g, sk_mix_stats *out, sk_ex_error *err) {
  if (out->k != g->k || out->d != g->d)
    return sk_ex_fail(err, "GPU statistics: statistics for K = %d, D = %d on a state for K = %d, D = %d", (int)out->k,
                       (int)out->d, (int)g->k, (int)g->d);
  const size_t kd = (size_t)g->k * (size_t)g->d, words = (size_t)g->k + 2 * kd;
  SK_EX_CUDA_TRY(cudaSetDevice(g->device), "selecting the device");
  SK_EX_CUDA_TRY(cudaMemsetAsync(g->d_stats, 0, sizeof(unsigned long long) * words, g->stream),
                  "clearing the statistics");
  sk_mix_gpu_detail::stats_args a;
  a.x = g->d_x;
  a.z = g->d_z;
  a.n = g->n;
  a.d = g->d;
  a.k = g->k;
  a.scale1 = ldexp(1.0, out->f1);
  a.scale2 = ldexp(1.0, out->f2);
  a.out = g->d_stats;
  SK_EX_CUDA_TRY(sk_mix_gpu_detail::stats_launch(a, g->splan, g->stream), "launching the statistics kernel");
  SK_EX_CUDA_TRY(
      cudaMemcpyAsync(g->h_stats, g->d_stats, sizeof(unsigned long long) * words, cudaMemcpyDeviceToHost, g->stream),
      "copying the statistics");
  SK_EX_CUDA_TRY(cudaStreamSynchronize(g->stream), "the z-step and the statistics");
  for (int32_t c = 0; c < g->k; ++c) out->count[c] = (int64_t)g->h_stats[c];
  for (size_t i = 0; i < kd; ++i) {
    out->sx[i] = (int64_t)g->h_stats[(size_t)g->k + i];
    out->sxx[i] = (int64_t)g->h_stats[(size_t)g->k + kd + i];
  }
  return 0;
}

int sk_mix_gpu_copy_z(sk_mix_gpu *g, int32_t *z, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaSetDevice(g->device), "selecting the device");
  SK_EX_CUDA_TRY(cudaMemcpyAsync(z, g->d_z, sizeof(int32_t) * (size_t)g->n, cudaMemcpyDeviceToHost, g->stream),
                  "copying the assignments");
  SK_EX_CUDA_TRY(cudaStreamSynchronize(g->stream), "copying the assignments");
  return 0;
}

const sk_mix_zstep_choice *sk_mix_gpu_zstep_choice(const sk_mix_gpu *g) { return &g->zplan.choice; }

sk_stream sk_mix_gpu_stream(const sk_mix_gpu *g) { return (sk_stream)g->stream; }

size_t sk_mix_gpu_bytes(const sk_mix_gpu *g) { return g->bytes; }

void sk_mix_gpu_destroy(sk_mix_gpu *g) {
  if (g == NULL) return;
  // Errors while releasing are ignored: nothing can be done about them, and the state is gone either way.
  if (cudaSetDevice(g->device) == cudaSuccess) {
    if (g->stream != NULL) cudaStreamSynchronize(g->stream);
    cudaFree(g->d_x);
    cudaFree(g->d_packed);
    cudaFree(g->d_z);
    cudaFree(g->d_table);
    cudaFree(g->d_stats);
    if (g->stream != NULL) cudaStreamDestroy(g->stream);
  }
  cudaGetLastError();
  free(g->h_stats);
  free(g->h_packed);
  delete g;
}
