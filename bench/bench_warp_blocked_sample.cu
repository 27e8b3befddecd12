// bench_warp_blocked_sample: sk_warp_blocked_sample_by_f32 (warp_blocked_sample.cuh) against the private
// code it replaces (AGA-LDA's blocked_draw, copied below verbatim as aga_kernels.cu had it before issue
// 30) and against the running-sum walk (warp_sample_prefix.cuh), for R = 1, 2, 4 and 8 entries a lane.
//
// Rows of one block (n = 32 R, the largest K for which AGA picks R), weights computed in registers:
//   private     AGA's blocked_draw before issue 30, its lane taken as threadIdx.x & 31 (the baseline:
//               target blocked >= 0.98x its speed)
//   private_laneid  the same code with its lane from sk_lane_id() (%laneid), as samplekit must read it
//   blocked     sk_warp_blocked_sample_by_f32<R>: the same draw, as a samplekit primitive
//   two_pass    sk_warp_blocked_total_by_f32<R> then sk_warp_blocked_walk_by_f32<R> (same result)
//   cache       sk_warp_prefix_cache_build_by_f32<R> then sk_warp_prefix_cache_sample_f32 (R rounds)
//   strided     sk_warp_strided_hold_by_f32<R> then sk_warp_strided_find_f32 (R rounds, one warp scan; its
//               order differs from cache's, so its draws are not checked here: test_warp_strided_sample)
//   prefix      sk_warp_prefix_total_by_f32 then sk_warp_sample_prefix_by_f32 (AGA's path for K > 256)
// The same rows of one block with AGA's weights, (WT[v][k] + beta) x DNT[d][k]: WT one of 8 rows of
// counts in shared memory read through volatile (as aga_kernels.cu reads its panel's rows: other warps
// change them), DNT one of 64 rows in global memory, both rows picked by the chain's key as a token
// picks its word and document: private against blocked.
// Long rows (n = 1,024 and 4,096), weights in registers: two_pass for each R against prefix.
// A cache of 8 rounds filled in part (n = 40, 100, 160: 2, 4 and 5 rounds), weights in registers, against
// prefix: what the cache build issues for the rounds it does not use; and the strided hold of 8 rounds on
// the same rows (sk-lda's ESCA draw took it in place of the cache).
// Doubles (weights reg_f64, n = 32 R): held_f64, sk_warp_blocked_hold_by_f64<R> then
// sk_warp_blocked_find_f64<R> at u x total (sk-lda's held-out fold-in draw), against prefix_f64
// (sk_warp_prefix_total_by_f64 then sk_warp_sample_prefix_by_f64, the running-sum walk). prefix_f64 adds
// in another order, so its draws may differ near a boundary: no draw check here; test_warp_blocked_sample
// checks held_f64's draws against the host reference.
//
// Why private_laneid: nvcc does not hoist the inline asm that reads %laneid out of the loop that calls
// the draw (it treats inline asm as convergent), so whatever a weight computes from the lane alone
// (lane x constant here) is computed again at every draw, where threadIdx.x & 31 lets it be hoisted.
// With weights computed from the index in registers that costs a few instructions a draw (SASS: about
// 1 at R = 1 and 13 at R = 8, the same for private_laneid and blocked); with weights loaded from memory,
// as AGA's are, the addresses are computed at every draw either way, and aga_kernels.cu's SASS has the
// same float operations and the same instruction count, within 0.5%, before and after issue 30.
//
// Method (STYLE.md, "Benchmarks"): weights computed in registers from a per-warp key (a few integer
// operations a weight, no memory traffic), a dependent chain of draws (each draw's topic feeds the next
// key and uniform, so that nothing is hoisted or merged), BENCH_INNER draws unrolled in an outer loop of
// --iters, the key of each warp written at the end; a grid of exactly one full wave (occupancy x SMs),
// so that every warp runs the whole kernel; CUDA events, warm-up launches, the median of 21 timed
// launches, all rows timed in two rounds (A B A B) to show the noise.
//
// Before anything is timed, private, private_laneid, blocked and two_pass must leave the same key in
// every warp, for several row lengths and both kinds of weights, which they do only if every draw of
// the chain returned the same topic: a mismatch exits 1.
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "samplekit/warp_blocked_sample.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sample_prefix.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_strided_sample.cuh"
#include "samplekit/warp_vote.cuh"

#define BENCH_NAME "bench_warp_blocked_sample"
#include "bench_common.h"
#include "legacy_blocked_draw.cuh"

#define BENCH_THREADS 256
#define BENCH_INNER 16           // draws per unrolled inner loop
#define BENCH_DEFAULT_ITERS 256  // outer iterations: a few ms per launch on an H100/H200
#define BENCH_MAX_ITERS 65536
#define BENCH_WARMUP 3
#define BENCH_RUNS 21            // odd: the median is one launch's time
#define BENCH_ROUNDS 2
#define BENCH_SEED 0x5eedb10cu
#define BENCH_TARGET 0.98        // issue 30: blocked >= 0.98x the private code's speed

// ---------------------------------------------------------------------------------------------------
// The baseline, legacy_blocked_draw(): examples/lda/src/gpu/aga_kernels.cu's blocked_draw before issue 30
// (tests/legacy_blocked_draw.cuh, shared with the test that holds the primitive to its bits).

// ---------------------------------------------------------------------------------------------------
// Weights. In registers: weight i of a draw is a float in [0, 1) made from the draw's key and i (an
// xor, a shift, an or and a subtraction once i x constant is hoisted). AGA's: (WT[i] + beta) x DNT[i],
// WT one of 8 rows of counts in shared memory read through volatile, DNT one of the 64 rows of a table
// in global memory (L1- and L2-resident), the rows picked by the key.
struct bench_weights {
  uint32_t key;
  __device__ __forceinline__ float operator()(int i) const {
    return __uint_as_float(0x3f800000u | ((key ^ ((uint32_t)i * 0x9E3779B9u)) >> 9)) - 1.0f;
  }
};

#define BENCH_AGA_K 256      // a WT row in shared memory and a DNT row: the largest one-block n
#define BENCH_AGA_WT_ROWS 8  // WT rows in shared memory (a panel's words)
#define BENCH_AGA_ROWS 64    // DNT rows (documents)

struct bench_aga_weights {
  const volatile int32_t *row;
  const float *dnt_row;
  float beta;
  __device__ __forceinline__ float operator()(int k) const { return ((float)row[k] + beta) * dnt_row[k]; }
};

struct source_registers {
  static __device__ __forceinline__ bench_weights weights(uint32_t key, const volatile int32_t *, const float *) {
    return bench_weights{key};
  }
};
struct source_aga {
  static __device__ __forceinline__ bench_aga_weights weights(uint32_t key, const volatile int32_t *wt,
                                                              const float *dnt) {
    return bench_aga_weights{wt + ((key >> 20) % BENCH_AGA_WT_ROWS) * BENCH_AGA_K,
                             dnt + (size_t)(key >> 26) * BENCH_AGA_K, 0.1f};
  }
};

template <int R>
struct draw_private {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    return legacy_blocked_draw<R>(w, n, (int)(threadIdx.x & 31u), u);  // the lane as aga_kernels.cu took it
  }
};
template <int R>
struct draw_private_laneid {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    return legacy_blocked_draw<R>(w, n, sk_lane_id(), u);
  }
};
template <int R>
struct draw_blocked {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    return sk_warp_blocked_sample_by_f32<R>(SK_FULL_MASK, w, n, u);
  }
};
template <int R>
struct draw_two_pass {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    const float total = sk_warp_blocked_total_by_f32<R>(SK_FULL_MASK, w, n);
    return sk_warp_blocked_walk_by_f32<R>(SK_FULL_MASK, w, n, u * total);
  }
};
template <int R>
struct draw_cache {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    sk_warp_prefix_cache_f32<R> cache;
    sk_warp_prefix_cache_build_by_f32(SK_FULL_MASK, w, n, &cache);
    return sk_warp_prefix_cache_sample_f32(SK_FULL_MASK, cache, u * cache.total);
  }
};
template <int R>
struct draw_strided {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    sk_warp_strided_hold_f32<R> hold;
    const float total = sk_warp_strided_hold_by_f32<R>(SK_FULL_MASK, w, n, &hold);
    return sk_warp_strided_find_f32<R>(SK_FULL_MASK, hold, u * total);
  }
};
struct draw_prefix {
  template <class W>
  static __device__ __forceinline__ int draw(const W &w, int n, float u) {
    const float total = sk_warp_prefix_total_by_f32(SK_FULL_MASK, w, n);
    return sk_warp_sample_prefix_by_f32(SK_FULL_MASK, w, n, u * total);
  }
};

// The chain: each warp makes outer x BENCH_INNER dependent draws from rows of n weights; the next key
// (and with it the next row's weights and uniform) depends on the topic drawn. Every lane holds the
// same key. Lane 0 of each warp writes the last key.
template <class Draw, class Source>
__global__ void __launch_bounds__(BENCH_THREADS)
    chain_kernel(int n, uint32_t seed, int outer, const float *dnt, uint32_t *out) {
  __shared__ int32_t wt[BENCH_AGA_WT_ROWS * BENCH_AGA_K];  // AGA's WT rows (read by source_aga only)
  for (int k = (int)threadIdx.x; k < BENCH_AGA_WT_ROWS * BENCH_AGA_K; k += (int)blockDim.x)
    wt[k] = (int32_t)(sk_mix_u32((uint32_t)k ^ seed) % 50u);
  __syncthreads();
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  uint32_t key = sk_mix_u32(warp ^ sk_mix_u32(seed));
#pragma unroll 1
  for (int o = 0; o < outer; ++o) {
#pragma unroll
    for (int j = 0; j < BENCH_INNER; ++j) {
      const float u = (float)(key >> 8) * 5.9604644775390625e-8f;  // in [0, 1)
      const int topic = Draw::draw(Source::weights(key, wt, dnt), n, u);
      key = key * 0x2C1B3C6Du + (uint32_t)topic + 0x297A2D39u;
    }
  }
  if (sk_lane_id() == 0) out[warp] = key;
}

// Doubles: weight i is a double in [0, 1) from the key and i (the float weights' bits widened by a
// second hash), u a double from the key.
struct bench_weights_f64 {
  uint32_t key;
  __device__ __forceinline__ double operator()(int i) const {
    const uint32_t h = key ^ ((uint32_t)i * 0x9E3779B9u);
    return __longlong_as_double((long long)(0x3ff0000000000000ull | ((uint64_t)h << 20) | (h >> 12))) - 1.0;
  }
};
template <int R>
struct draw_held_f64 {
  static __device__ __forceinline__ int draw(const bench_weights_f64 &w, int n, double u) {
    sk_warp_blocked_hold_f64<R> hold;
    const double total = sk_warp_blocked_hold_by_f64<R>(SK_FULL_MASK, w, n, &hold);
    return sk_warp_blocked_find_f64<R>(SK_FULL_MASK, hold, u * total);
  }
};
struct draw_prefix_f64 {
  static __device__ __forceinline__ int draw(const bench_weights_f64 &w, int n, double u) {
    const double total = sk_warp_prefix_total_by_f64(SK_FULL_MASK, w, n);
    return sk_warp_sample_prefix_by_f64(SK_FULL_MASK, w, n, u * total);
  }
};

// chain_kernel() on doubles (the same chain, key and output; dnt unused).
template <class Draw>
__global__ void __launch_bounds__(BENCH_THREADS)
    chain_kernel_f64(int n, uint32_t seed, int outer, const float *, uint32_t *out) {
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  uint32_t key = sk_mix_u32(warp ^ sk_mix_u32(seed));
#pragma unroll 1
  for (int o = 0; o < outer; ++o) {
#pragma unroll
    for (int j = 0; j < BENCH_INNER; ++j) {
      const double u = (double)(key >> 8) * 5.9604644775390625e-8;  // in [0, 1)
      const int topic = Draw::draw(bench_weights_f64{key}, n, u);
      key = key * 0x2C1B3C6Du + (uint32_t)topic + 0x297A2D39u;
    }
  }
  if (sk_lane_id() == 0) out[warp] = key;
}

typedef void (*chain_fn)(int, uint32_t, int, const float *, uint32_t *);

// ---------------------------------------------------------------------------------------------------
// The rows of the report.

typedef struct bench_row {
  const char *variant;
  const char *weights;  // "registers" or "aga"
  int R;                // entries a lane (0: not blocked)
  int n;                // weights a draw
  chain_fn kernel;
  int baseline;         // index of the row this one's speed is compared with (itself for a baseline)
} bench_row;

enum { kMaxRows = 80 };

template <int R>
static int add_one_block_rows(bench_row *rows, int count) {
  const int n = 32 * R;
  int base = count;
  rows[count++] = {"private", "registers", R, n, chain_kernel<draw_private<R>, source_registers>, base};
  rows[count++] = {"private_laneid", "registers", R, n, chain_kernel<draw_private_laneid<R>, source_registers>, base};
  rows[count++] = {"blocked", "registers", R, n, chain_kernel<draw_blocked<R>, source_registers>, base};
  rows[count++] = {"two_pass", "registers", R, n, chain_kernel<draw_two_pass<R>, source_registers>, base};
  rows[count++] = {"cache", "registers", R, n, chain_kernel<draw_cache<R>, source_registers>, base};
  rows[count++] = {"strided", "registers", R, n, chain_kernel<draw_strided<R>, source_registers>, base};
  rows[count++] = {"prefix", "registers", 0, n, chain_kernel<draw_prefix, source_registers>, base};
  base = count;
  rows[count++] = {"private", "aga", R, n, chain_kernel<draw_private<R>, source_aga>, base};
  rows[count++] = {"blocked", "aga", R, n, chain_kernel<draw_blocked<R>, source_aga>, base};
  return count;
}

static int add_long_rows(bench_row *rows, int count, int n) {
  const int base = count;
  rows[count++] = {"prefix", "registers", 0, n, chain_kernel<draw_prefix, source_registers>, base};
  rows[count++] = {"two_pass", "registers", 1, n, chain_kernel<draw_two_pass<1>, source_registers>, base};
  rows[count++] = {"two_pass", "registers", 2, n, chain_kernel<draw_two_pass<2>, source_registers>, base};
  rows[count++] = {"two_pass", "registers", 4, n, chain_kernel<draw_two_pass<4>, source_registers>, base};
  rows[count++] = {"two_pass", "registers", 8, n, chain_kernel<draw_two_pass<8>, source_registers>, base};
  return count;
}

// A cache of 8 rounds filled in part (n < 256, as a document's sparse row in sk-lda's draw): the rounds
// the build issues, against the running-sum walk on the same row.
static int add_partial_cache_rows(bench_row *rows, int count, int n) {
  const int base = count;
  rows[count++] = {"prefix", "registers", 0, n, chain_kernel<draw_prefix, source_registers>, base};
  rows[count++] = {"cache", "registers", 8, n, chain_kernel<draw_cache<8>, source_registers>, base};
  rows[count++] = {"strided", "registers", 8, n, chain_kernel<draw_strided<8>, source_registers>, base};
  return count;
}

template <int R>
static int add_f64_rows(bench_row *rows, int count) {
  const int n = 32 * R, base = count;
  rows[count++] = {"prefix_f64", "reg_f64", 0, n, chain_kernel_f64<draw_prefix_f64>, base};
  rows[count++] = {"held_f64", "reg_f64", R, n, chain_kernel_f64<draw_held_f64<R>>, base};
  return count;
}

static int make_rows(bench_row *rows) {
  int count = 0;
  count = add_one_block_rows<1>(rows, count);
  count = add_one_block_rows<2>(rows, count);
  count = add_one_block_rows<4>(rows, count);
  count = add_one_block_rows<8>(rows, count);
  count = add_long_rows(rows, count, 1024);
  count = add_long_rows(rows, count, 4096);
  count = add_partial_cache_rows(rows, count, 40);
  count = add_partial_cache_rows(rows, count, 100);
  count = add_partial_cache_rows(rows, count, 160);
  count = add_f64_rows<1>(rows, count);
  count = add_f64_rows<2>(rows, count);
  count = add_f64_rows<4>(rows, count);
  count = add_f64_rows<8>(rows, count);
  return count;
}

// ---------------------------------------------------------------------------------------------------
// Launching and checking.

static int one_wave_blocks(chain_fn kernel, int sm_count) {
  int per_sm = 0;
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kernel, BENCH_THREADS, 0));
  return (per_sm > 0 ? per_sm : 1) * sm_count;
}

static void launch(chain_fn kernel, int blocks, int n, int outer, const float *d_dnt, uint32_t *d_out) {
  kernel<<<(unsigned)blocks, BENCH_THREADS>>>(n, BENCH_SEED, outer, d_dnt, d_out);
  BENCH_CUDA(cudaGetLastError());
}

// The keys each warp of `blocks` blocks ends with after `outer` iterations on rows of n weights.
static void run_keys(chain_fn kernel, int blocks, int n, int outer, const float *d_dnt, uint32_t *d_out,
                     uint32_t *h_out) {
  const size_t warps = (size_t)blocks * (BENCH_THREADS / 32);
  BENCH_CUDA(cudaMemset(d_out, 0, warps * sizeof(uint32_t)));
  launch(kernel, blocks, n, outer, d_dnt, d_out);
  BENCH_CUDA(cudaDeviceSynchronize());
  BENCH_CUDA(cudaMemcpy(h_out, d_out, warps * sizeof(uint32_t), cudaMemcpyDeviceToHost));
}

// The draws that must agree on `kernels[0]`'s chains: equal keys in every warp, for row lengths that
// fill the block, leave part of it empty, or leave lanes without entries.
static bool check_same_draws(const char *what, int R, const chain_fn *kernels, const char *const *names, int count,
                             int blocks, const float *d_dnt, uint32_t *d_out, uint32_t *h_a, uint32_t *h_b) {
  const int lengths[4] = {32 * R, 32 * R - 5, 16 * R + 1, 7};
  bool ok = true;
  for (int l = 0; l < 4; ++l) {
    run_keys(kernels[0], blocks, lengths[l], 4, d_dnt, d_out, h_a);
    for (int v = 1; v < count; ++v) {
      run_keys(kernels[v], blocks, lengths[l], 4, d_dnt, d_out, h_b);
      for (int wi = 0; wi < blocks * (BENCH_THREADS / 32); ++wi)
        if (h_a[wi] != h_b[wi]) {
          printf("check R=%d n=%d %s weights: %s and %s differ in warp %d (keys 0x%08x, 0x%08x)\n", R, lengths[l],
                 what, names[0], names[v], wi, h_a[wi], h_b[wi]);
          ok = false;
          break;
        }
    }
  }
  if (ok)
    printf("check R=%d, %s weights: %d variants draw the same topics (n = %d, %d, %d, %d; %d chains of %d draws)\n",
           R, what, count, lengths[0], lengths[1], lengths[2], lengths[3], blocks * (BENCH_THREADS / 32),
           4 * BENCH_INNER);
  return ok;
}

template <int R>
static bool check_r(int sm_count, const float *d_dnt, uint32_t *d_out, uint32_t *h_a, uint32_t *h_b) {
  const chain_fn reg[4] = {chain_kernel<draw_private<R>, source_registers>,
                           chain_kernel<draw_private_laneid<R>, source_registers>,
                           chain_kernel<draw_blocked<R>, source_registers>,
                           chain_kernel<draw_two_pass<R>, source_registers>};
  const char *const reg_names[4] = {"private", "private_laneid", "blocked", "two_pass"};
  const chain_fn aga[3] = {chain_kernel<draw_private<R>, source_aga>, chain_kernel<draw_blocked<R>, source_aga>,
                           chain_kernel<draw_two_pass<R>, source_aga>};
  const char *const aga_names[3] = {"private", "blocked", "two_pass"};
  // The keys are per warp, so the first SM-count blocks of each wave are enough.
  bool ok = check_same_draws("registers", R, reg, reg_names, 4, sm_count, d_dnt, d_out, h_a, h_b);
  return check_same_draws("aga", R, aga, aga_names, 3, sm_count, d_dnt, d_out, h_a, h_b) && ok;
}

typedef struct bench_time {
  int blocks;
  double median_ms;
  double ns_per_draw;     // median time / draws per warp: every warp runs the whole kernel
  double draws_per_ns;    // all warps' draws / median time (whole chip)
} bench_time;

static bench_time time_row(const bench_row *row, int sm_count, int outer, const float *d_dnt, uint32_t *d_out,
                           cudaEvent_t *start, cudaEvent_t *stop) {
  bench_time t;
  t.blocks = one_wave_blocks(row->kernel, sm_count);
  for (int i = 0; i < BENCH_WARMUP; ++i) launch(row->kernel, t.blocks, row->n, outer, d_dnt, d_out);
  for (int i = 0; i < BENCH_RUNS; ++i) {
    BENCH_CUDA(cudaEventRecord(start[i], 0));
    launch(row->kernel, t.blocks, row->n, outer, d_dnt, d_out);
    BENCH_CUDA(cudaEventRecord(stop[i], 0));
  }
  BENCH_CUDA(cudaEventSynchronize(stop[BENCH_RUNS - 1]));
  BENCH_CUDA(cudaGetLastError());
  double ms[BENCH_RUNS];
  for (int i = 0; i < BENCH_RUNS; ++i) {
    float f = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&f, start[i], stop[i]));
    ms[i] = f;
  }
  std::sort(ms, ms + BENCH_RUNS);
  t.median_ms = ms[BENCH_RUNS / 2];
  const double draws_per_warp = (double)outer * BENCH_INNER;
  t.ns_per_draw = t.median_ms * 1e6 / draws_per_warp;
  t.draws_per_ns = (double)t.blocks * (BENCH_THREADS / 32) * draws_per_warp / (t.median_ms * 1e6);
  return t;
}

// ---------------------------------------------------------------------------------------------------
// Command line.

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_warp_blocked_sample [--iters N] [--device D] [--csv FILE] [--help]\n"
          "\n"
          "Times sk_warp_blocked_sample_by_f32 (R = 1, 2, 4, 8) against AGA-LDA's private blocked draw it\n"
          "replaces and the running-sum walk, after checking that the private code and the primitive draw\n"
          "the same topics.\n"
          "\n"
          "  --iters N   outer iterations per warp (default %d), each %d dependent draws\n"
          "  --device D  CUDA device (default 0)\n"
          "  --csv FILE  also write the table to FILE\n"
          "\n"
          "Exit status: 0 done, 1 a check or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_DEFAULT_ITERS, BENCH_INNER);
}

int main(int argc, char **argv) {
  int outer = BENCH_DEFAULT_ITERS, device = 0;
  const char *csv_path = NULL;
  bench_parse_chain_options(argc, argv, usage, BENCH_MAX_ITERS, &outer, &device, &csv_path);
  bench_select_device(device);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  int sm_count = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  printf("bench_warp_blocked_sample: the blocked warp draw against AGA-LDA's private code and the prefix walk "
         "(nvcc %d.%d)\n", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(device);
  printf("method: blocks of %d threads, one full wave, %d x %d dependent draws a warp; %d warm-up launches,\n"
         "        median of %d timed launches, %d rounds (A B A B)\n",
         BENCH_THREADS, outer, BENCH_INNER, BENCH_WARMUP, BENCH_RUNS, BENCH_ROUNDS);

  bench_row rows[kMaxRows];
  const int num_rows = make_rows(rows);
  int max_blocks = 0;
  for (int r = 0; r < num_rows; ++r) max_blocks = std::max(max_blocks, one_wave_blocks(rows[r].kernel, sm_count));
  const size_t max_warps = (size_t)max_blocks * (BENCH_THREADS / 32);
  uint32_t *d_out = NULL;
  float *d_dnt = NULL;
  BENCH_CUDA(cudaMalloc(&d_out, max_warps * sizeof(uint32_t)));
  BENCH_CUDA(cudaMalloc(&d_dnt, (size_t)BENCH_AGA_ROWS * BENCH_AGA_K * sizeof(float)));
  uint32_t *h_a = (uint32_t *)malloc(max_warps * sizeof(uint32_t));
  uint32_t *h_b = (uint32_t *)malloc(max_warps * sizeof(uint32_t));
  float *h_dnt = (float *)malloc((size_t)BENCH_AGA_ROWS * BENCH_AGA_K * sizeof(float));
  if (h_a == NULL || h_b == NULL || h_dnt == NULL) {
    fprintf(stderr, "%s: out of host memory\n", BENCH_NAME);
    return BENCH_EXIT_FAILED;
  }
  // DNT = (DT + alpha) / (NT + V beta): a few large entries a row over a floor, all positive.
  for (int i = 0; i < BENCH_AGA_ROWS * BENCH_AGA_K; ++i) {
    const uint32_t h = sk_mix_u32((uint32_t)i * 2654435761u + 12345u);
    h_dnt[i] = (h % 8u == 0u ? (float)(h >> 24) : 0.1f) / 1000.0f;
  }
  BENCH_CUDA(cudaMemcpy(d_dnt, h_dnt, (size_t)BENCH_AGA_ROWS * BENCH_AGA_K * sizeof(float), cudaMemcpyHostToDevice));

  bool ok = check_r<1>(sm_count, d_dnt, d_out, h_a, h_b);
  ok = check_r<2>(sm_count, d_dnt, d_out, h_a, h_b) && ok;
  ok = check_r<4>(sm_count, d_dnt, d_out, h_a, h_b) && ok;
  ok = check_r<8>(sm_count, d_dnt, d_out, h_a, h_b) && ok;
  if (!ok) {
    printf("%s: FAILED: the primitive and the private code draw different topics; nothing timed\n", BENCH_NAME);
    return BENCH_EXIT_FAILED;
  }

  cudaEvent_t start[BENCH_RUNS], stop[BENCH_RUNS];
  for (int i = 0; i < BENCH_RUNS; ++i) {
    BENCH_CUDA(cudaEventCreate(&start[i]));
    BENCH_CUDA(cudaEventCreate(&stop[i]));
  }
  // Untimed load first, so that the clocks have ramped up before the first row.
  for (int i = 0; i < 20; ++i)
    launch(rows[0].kernel, one_wave_blocks(rows[0].kernel, sm_count), rows[0].n, outer, d_dnt, d_out);
  BENCH_CUDA(cudaDeviceSynchronize());

  static bench_time times[BENCH_ROUNDS][kMaxRows];
  for (int round = 0; round < BENCH_ROUNDS; ++round)
    for (int r = 0; r < num_rows; ++r)
      times[round][r] = time_row(&rows[r], sm_count, outer, d_dnt, d_out, start, stop);

  printf("\n%-15s %-9s %2s %5s %6s %12s %10s %7s %7s %7s %8s\n", "variant", "weights", "R", "n", "blocks",
         "ns/draw/warp", "draws/ns", "speed", "speed1", "speed2", "spread%");
  FILE *csv = csv_path != NULL ? bench_open_csv(csv_path) : NULL;
  if (csv_path != NULL && csv == NULL) return BENCH_EXIT_FAILED;
  if (csv != NULL)
    fprintf(csv, "gpu,sm_count,outer_iters,draws_per_warp,variant,weights,R,n,blocks,ns_per_draw_per_warp,"
                 "draws_per_ns,speed_vs_group_baseline,speed_round1,speed_round2,spread_pct\n");
  // The headlines: blocked over private (registers and AGA's weights), blocked over private_laneid.
  double worst[3] = {1e9, 1e9, 1e9};
  for (int r = 0; r < num_rows; ++r) {
    const bench_row *row = &rows[r];
    const int b = row->baseline;
    if (b == r) printf("\n");
    double ns = 0.0, rate = 0.0, rate_base = 0.0, speed[BENCH_ROUNDS];
    for (int round = 0; round < BENCH_ROUNDS; ++round) {
      ns += times[round][r].ns_per_draw / BENCH_ROUNDS;
      rate += times[round][r].draws_per_ns;
      rate_base += times[round][b].draws_per_ns;
      speed[round] = times[round][r].draws_per_ns / times[round][b].draws_per_ns;
    }
    const double both = rate / rate_base;
    const double lo = std::min(times[0][r].median_ms, times[1][r].median_ms);
    const double spread = 100.0 * (std::max(times[0][r].median_ms, times[1][r].median_ms) - lo) / lo;
    printf("%-15s %-9s %2d %5d %6d %12.3f %10.3f %7.3f %7.3f %7.3f %8.2f\n", row->variant, row->weights, row->R,
           row->n, times[0][r].blocks, ns, rate / BENCH_ROUNDS, both, speed[0], speed[1], spread);
    if (csv != NULL)
      fprintf(csv, "\"%s\",%d,%d,%d,%s,%s,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f\n", prop.name, sm_count, outer,
              outer * BENCH_INNER, row->variant, row->weights, row->R, row->n, times[0][r].blocks, ns,
              rate / BENCH_ROUNDS, both, speed[0], speed[1], spread);
    if (strcmp(row->variant, "blocked") == 0) {
      const int aga = strcmp(row->weights, "aga") == 0;
      worst[aga] = std::min(worst[aga], both);
      if (!aga) {  // against private_laneid, the row after the group's baseline
        double rate_laneid = 0.0;
        for (int round = 0; round < BENCH_ROUNDS; ++round) rate_laneid += times[round][b + 1].draws_per_ns;
        worst[2] = std::min(worst[2], rate / rate_laneid);
      }
    }
  }
  printf("\nspeed = the row's draws/ns over its group's first row's (private for n = 32 R, prefix for the long\n"
         "rows, prefix_f64 for the doubles), over both rounds; speed1, speed2 per round; spread%% = the row's\n"
         "round-to-round time difference.\n");
  printf("headline (lowest over R = 1, 2, 4, 8; target >= %.2f):\n", BENCH_TARGET);
  printf("  blocked / private, AGA's weights:     %.3f  %s\n", worst[1],
         worst[1] >= BENCH_TARGET ? "met" : "NOT met");
  printf("  blocked / private, register weights: %.3f  %s\n", worst[0],
         worst[0] >= BENCH_TARGET ? "met" : "NOT met");
  printf("  blocked / private_laneid, registers: %.3f  %s (the same lane read on both sides)\n", worst[2],
         worst[2] >= BENCH_TARGET ? "met" : "NOT met");
  bool csv_ok = true;
  if (csv != NULL) {
    csv_ok = bench_close_csv(csv, csv_path);
    if (csv_ok) printf("wrote %s\n", csv_path);
  }
  for (int i = 0; i < BENCH_RUNS; ++i) {
    BENCH_CUDA(cudaEventDestroy(start[i]));
    BENCH_CUDA(cudaEventDestroy(stop[i]));
  }
  BENCH_CUDA(cudaFree(d_out));
  BENCH_CUDA(cudaFree(d_dnt));
  free(h_a);
  free(h_b);
  free(h_dnt);
  return csv_ok ? EXIT_SUCCESS : BENCH_EXIT_FAILED;
}
