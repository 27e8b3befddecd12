// bench_sums_f64: samplekit's double-precision sums and search (warp_scan.cuh's _f64 functions,
// warp_sample_prefix.cuh's sk_warp_sample_prefix_from_by_f64, block_sum.cuh) against the private code
// they replaced in sk-lda's GPU metrics, copied verbatim below (namespace baseline) from
// examples/lda/src/gpu/metrics_gpu_heldout.cu and metrics_gpu_joint.cu as they were before issue 30.
//
// Warp and block rows (STYLE.md, "Benchmarks"): inputs hashed in registers, a dependent chain of
// kInner unrolled calls x --iters per thread, each call's input made from the previous call's result by
// a chain step that is the same for both variants, a grid of exactly one full wave, 3 warm-up launches,
// median of 21 timed launches (CUDA events), each pair timed A B A B. The device-wide row: 2^25
// doubles (256 MiB, more than twice any L2, so every launch reads from DRAM), 3 warm-up runs, median
// of 21, elements/s and bytes/s against the device-to-device copy rate of the same run.
//
// The running-sum rows (the fold-in's s table, issue 32): sk_warp_serial_inclusive_sum_f64 by one warp
// against one thread's loop (the s table's code before, its terms replaced by loads), n = 1,024 and
// 65,536 doubles; the same bits by construction, checked; 3 warm-up runs, median of 21.
//
// Before anything is timed both variants of every pair run the timing kernel for one outer iteration
// and their outputs are compared bit for bit (the primitives add in the private code's order, so the
// chains are the same numbers); a mismatch exits 1 and nothing is timed.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "samplekit/block_sum.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sample_prefix.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_vote.cuh"

#define BENCH_NAME "bench_sums_f64"
#include "bench_common.h"

#define BENCH_THREADS 256
#define BENCH_INNER 32           // calls per unrolled inner loop
#define BENCH_WARMUP 3
#define BENCH_TIMED 21           // odd: the median is one launch's time
#define BENCH_DEFAULT_ITERS 256  // a few ms per launch on an H200
#define BENCH_MAX_ITERS 65536
#define BENCH_SEED 0x5eedf640u
#define BENCH_TARGET 0.98        // samplekit's speed over the private code's, at least
#define BENCH_SUM_ELEMENTS (1ll << 25)

// ---------------------------------------------------------------------------------------------------
// The private code, verbatim (only the fold_params / fold_scratch structs are cut to the fields the
// tile search reads).
namespace baseline {

constexpr unsigned kFullMask = 0xffffffffu;

// The warp's sum of s by a butterfly: IEEE addition is commutative, so every lane gets the same bits.
__device__ __forceinline__ double warp_sum(double s) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) s = __dadd_rn(s, __shfl_xor_sync(kFullMask, s, m));
  return s;
}

// The sum of x over this lane and the lanes below it (Kogge-Stone, a fixed order).
__device__ __forceinline__ double warp_inclusive_sum(double x, int lane) {
#pragma unroll
  for (int delta = 1; delta < 32; delta <<= 1) {
    const double y = __shfl_up_sync(kFullMask, x, delta);
    if (lane >= delta) x = __dadd_rn(x, y);
  }
  return x;
}

// The totals of eight tiles at once, v[t] being this lane's sum of its terms of tile t: three halving
// exchanges (xor 16, 8, 4) leave lane l with tile (l >> 2) & 7 summed over eight lanes, two butterfly
// steps (xor 2, 1) finish it on the four lanes that share it, and tile t's total is gathered from lane
// 4t: 17 double shuffles where eight warp sums take 40. A fixed tree: every lane gets every total, with
// the same bits on every call.
__device__ __forceinline__ void warp_sum8(double (&v)[8], int lane) {
#pragma unroll
  for (int half = 4, bit = 16; half > 0; half >>= 1, bit >>= 1) {
    const bool high = (lane & bit) != 0;  // keeps the upper half of its values, sends the lower
#pragma unroll
    for (int i = 0; i < half; ++i) {
      const double send = high ? v[i] : v[i + half], keep = high ? v[i + half] : v[i];
      v[i] = __dadd_rn(keep, __shfl_xor_sync(kFullMask, send, bit));
    }
  }
  double total = __dadd_rn(v[0], __shfl_xor_sync(kFullMask, v[0], 2));
  total = __dadd_rn(total, __shfl_xor_sync(kFullMask, total, 1));
#pragma unroll
  for (int t = 0; t < 8; ++t) v[t] = __shfl_sync(kFullMask, total, 4 * t);
}

constexpr int kFoldPerLane = 4;
constexpr int kFoldTile = 32 * kFoldPerLane;

struct fold_params {
  int32_t num_topics;
  double beta;
};

struct fold_scratch {
  double *tile_end, *nda;
  int32_t *ndk;
  const double *inv;
};

__device__ __forceinline__ double fold_term(const fold_params &p, const fold_scratch &s, int32_t b, int32_t k) {
  return __dmul_rn(s.nda[k], __dmul_rn(__dadd_rn((double)b, p.beta), s.inv[k]));
}

// Pass 2 of a draw: the first topic of tile `tile` whose running sum, from `before` (the sum of the
// tiles below) through the tile's four rows of 32 topics in order, exceeds x; the tile's last topic when
// rounding leaves none. bt[j] is n_vk of topic tile * 128 + j * 32 + lane. Every lane calls and gets it.
__device__ __forceinline__ int32_t fold_search_tile(const fold_params &p, const fold_scratch &s,
                                                    const int32_t (&bt)[kFoldPerLane], int32_t tile, double before,
                                                    double x, int lane) {
  const int32_t K = p.num_topics, base = tile * kFoldTile;
  int32_t topic = min(base + kFoldTile, K) - 1;
#pragma unroll
  for (int j = 0; j < kFoldPerLane; ++j) {
    if (base + j * 32 >= K) break;
    const int32_t k = base + j * 32 + lane;
    const double end = __dadd_rn(before, warp_inclusive_sum(k < K ? fold_term(p, s, bt[j], k) : 0.0, lane));
    const unsigned hit = __ballot_sync(kFullMask, k < K && end > x);
    if (hit != 0) {
      topic = base + j * 32 + __ffs(hit) - 1;
      break;
    }
    before = __shfl_sync(kFullMask, end, 31);
  }
  return topic;
}

constexpr int kJointThreads = 256;

// The block's sum of s (blockDim.x == kJointThreads) in a fixed tree; valid in thread 0 (0 elsewhere).
__device__ double block_sum(double s, double *tree) {
  tree[threadIdx.x] = s;
  for (int stride = kJointThreads / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if ((int)threadIdx.x < stride) tree[threadIdx.x] = __dadd_rn(tree[threadIdx.x], tree[threadIdx.x + stride]);
  }
  return threadIdx.x == 0 ? tree[0] : 0.0;  // tree[0] is thread 0's own last write
}

// *out = the sum of partials[0 .. n), in a fixed order (one block).
__global__ void sum_kernel(const double *partials, int64_t n, double *out) {
  __shared__ double tree[kJointThreads];
  double s = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += kJointThreads) s = __dadd_rn(s, partials[i]);
  s = block_sum(s, tree);
  if (threadIdx.x == 0) *out = s;
}

}  // namespace baseline

// The tile search as metrics_gpu_heldout.cu now makes it: the tile's terms read by samplekit's search.
struct tile_terms {
  const double *nda, *inv;
  double beta;
  int32_t base;
  int32_t bt[baseline::kFoldPerLane];
  __device__ __forceinline__ double operator()(int i) const {
    const int j = i >> 5;
    int32_t b = bt[0];
#pragma unroll
    for (int q = 1; q < baseline::kFoldPerLane; ++q)
      if (j == q) b = bt[q];
    const int32_t k = base + i;
    return __dmul_rn(nda[k], __dmul_rn(__dadd_rn((double)b, beta), inv[k]));
  }
};

// ---------------------------------------------------------------------------------------------------
// Inputs and chain steps.

// A double in [-1, 1) from 32 hashed bits: exact, never a NaN or an infinity.
static __device__ __forceinline__ double unit_signed(uint32_t h) { return (double)h * 0x1p-31 - 1.0; }

// x = r / 32 + salt: the division by the warp size keeps sums of 32 values bounded, and the product
// by a power of two is exact. Two rounded operations, the same for both variants.
static __device__ __forceinline__ double chain_next(double r, double salt) {
  return __dadd_rn(__dmul_rn(r, 1.0 / SK_WARP_SIZE), salt);
}

enum pair_id { PAIR_INCLUSIVE, PAIR_SUM, PAIR_SUMS8, PAIR_SEARCH, PAIR_BLOCK, NUM_CHAIN_PAIRS };

// One timing kernel per pair and variant (kSk: samplekit, else the private code); out gets one double
// per thread, the end of its chain.
template <int kPair, bool kSk>
__global__ void __launch_bounds__(BENCH_THREADS) chain_kernel(double *out, uint32_t seed, int outer) {
  __shared__ double nda[baseline::kFoldTile], inv[baseline::kFoldTile];  // the tile search's terms
  __shared__ sk_block_sum_storage_f64<BENCH_THREADS> storage;
  __shared__ double tree[BENCH_THREADS];
  const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t h = sk_mix_u32(thread ^ sk_mix_u32(seed));
  const int lane = sk_lane_id();
  double x = unit_signed(h);
  const double salt = 0.5 * unit_signed(sk_mix_u32(h ^ 0x9e3779b9u));
  if constexpr (kPair == PAIR_INCLUSIVE) {
#pragma unroll 1
    for (int i = 0; i < outer; ++i) {
#pragma unroll
      for (int j = 0; j < BENCH_INNER; ++j)
        x = chain_next(kSk ? sk_warp_inclusive_sum_f64(SK_FULL_MASK, x) : baseline::warp_inclusive_sum(x, lane), salt);
    }
  } else if constexpr (kPair == PAIR_SUM) {
#pragma unroll 1
    for (int i = 0; i < outer; ++i) {
#pragma unroll
      for (int j = 0; j < BENCH_INNER; ++j)
        x = chain_next(kSk ? sk_warp_sum_f64(SK_FULL_MASK, x) : baseline::warp_sum(x), salt);
    }
  } else if constexpr (kPair == PAIR_SUMS8) {
    // Eight values a lane from one state; all eight sums are folded back, so none is dead.
#pragma unroll 1
    for (int i = 0; i < outer; ++i) {
#pragma unroll
      for (int j = 0; j < BENCH_INNER; ++j) {
        double v[8];
#pragma unroll
        for (int t = 0; t < 8; ++t) v[t] = __dadd_rn(x, __dmul_rn(salt, (double)(t + 1)));
        if (kSk)
          sk_warp_sums_f64(SK_FULL_MASK, v);
        else
          baseline::warp_sum8(v, lane);
        double acc = v[0];
#pragma unroll
        for (int t = 1; t < 8; ++t) acc = __dadd_rn(acc, v[t]);
        x = chain_next(__dmul_rn(acc, 0.125), salt);
      }
    }
  } else if constexpr (kPair == PAIR_SEARCH) {
    // One full tile of 128 topics: nda and inv shared by the block, n_vk in registers (bt), the sum of
    // the tiles below (before) and the tile's total per warp. The point to find walks [before,
    // before + total) driven by the topics found, the same on every lane of a warp.
    for (int k = (int)threadIdx.x; k < baseline::kFoldTile; k += BENCH_THREADS) {
      nda[k] = 0.5 + (double)(sk_mix_u32((uint32_t)k ^ seed) % 64u);
      inv[k] = 1.0 / (1000.0 + (double)(sk_mix_u32((uint32_t)k * 3u ^ seed) % 5000u));
    }
    __syncthreads();
    const uint32_t warp = thread / SK_WARP_SIZE;
    baseline::fold_params p;
    p.num_topics = baseline::kFoldTile;
    p.beta = 0.01;
    baseline::fold_scratch s;
    s.tile_end = NULL;
    s.nda = nda;
    s.ndk = NULL;
    s.inv = inv;
    int32_t bt[baseline::kFoldPerLane];
#pragma unroll
    for (int j = 0; j < baseline::kFoldPerLane; ++j) bt[j] = (int32_t)(sk_mix_u32(h + (uint32_t)j) % 200u);
    double total_part = 0.0;
#pragma unroll
    for (int j = 0; j < baseline::kFoldPerLane; ++j)
      total_part = __dadd_rn(total_part, baseline::fold_term(p, s, bt[j], j * 32 + lane));
    const double total = baseline::warp_sum(total_part);
    const double before = (double)(sk_mix_u32(warp ^ 0x51ed270bu) % 1000u);
    double u = (double)(sk_mix_u32(warp ^ seed) >> 8) * 0x1p-24;
    tile_terms terms;
    terms.nda = nda;
    terms.inv = inv;
    terms.beta = p.beta;
    terms.base = 0;
#pragma unroll
    for (int j = 0; j < baseline::kFoldPerLane; ++j) terms.bt[j] = bt[j];
    // Not unrolled, unlike the other pairs: a search is four unrolled rounds with early exits, and 32
    // copies of it in a row outgrow the instruction cache, which then times the cache, not the search.
#pragma unroll 1
    for (int i = 0; i < outer; ++i) {
#pragma unroll 1
      for (int j = 0; j < BENCH_INNER; ++j) {
        const double point = __dadd_rn(before, __dmul_rn(u, total));
        const int32_t topic =
            kSk ? sk_warp_sample_prefix_from_by_f64<baseline::kFoldPerLane>(SK_FULL_MASK, terms, baseline::kFoldTile,
                                                                            before, point)
                : baseline::fold_search_tile(p, s, bt, 0, before, point, lane);
        u = __dadd_rn(u, __dmul_rn((double)(topic + 1), 0.6180339887498949 / baseline::kFoldTile));
        u = __dadd_rn(u, -floor(u));
      }
    }
    x = u;
  } else {  // PAIR_BLOCK: the block's sum; thread 0's next value depends on it, the others' do not
    const int tid = (int)threadIdx.x;
#pragma unroll 1
    for (int i = 0; i < outer; ++i) {
#pragma unroll
      for (int j = 0; j < BENCH_INNER; ++j) {
        const double r = kSk ? sk_block_sum_f64(&storage, tid, BENCH_THREADS, x) : baseline::block_sum(x, tree);
        __syncthreads();  // both need it before their shared memory is written again
        x = __dadd_rn(__dmul_rn(x, 0.5), tid == 0 ? __dmul_rn(r, 0x1p-9) : salt);
      }
    }
  }
  out[thread] = x;
}

// ---------------------------------------------------------------------------------------------------
// The device-wide sum: 4096 values a block of 256 threads (16 a thread, strided), one partial each, then
// one block over the partials: the joint LL's two launches with its terms replaced by plain loads.

template <bool kSk>
__global__ void __launch_bounds__(BENCH_THREADS) partials_kernel(const double *x, int64_t n, double *partials) {
  __shared__ sk_block_sum_storage_f64<BENCH_THREADS> storage;
  __shared__ double tree[BENCH_THREADS];
  const int64_t base = (int64_t)blockIdx.x * BENCH_THREADS * 16;
  double s = 0.0;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const int64_t i = base + (int64_t)j * BENCH_THREADS + threadIdx.x;
    if (i < n) s = __dadd_rn(s, x[i]);
  }
  s = kSk ? sk_block_sum_f64(&storage, (int)threadIdx.x, BENCH_THREADS, s) : baseline::block_sum(s, tree);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void __launch_bounds__(BENCH_THREADS) sk_total_kernel(const double *partials, int64_t n, double *out) {
  __shared__ sk_block_sum_storage_f64<BENCH_THREADS> storage;
  const double s = sk_block_sum_array_f64(&storage, (int)threadIdx.x, BENCH_THREADS, partials, n);
  if (threadIdx.x == 0) *out = s;
}

__global__ void fill_kernel(double *x, int64_t n, uint32_t seed) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (double)sk_mix_u32((uint32_t)i ^ sk_mix_u32(seed ^ (uint32_t)(i >> 32))) * 0x1p-32;
}

// ---------------------------------------------------------------------------------------------------
// Running sums in a serial loop's order: out[k] = x[0] + ... + x[k] added left to right. The baseline
// is metrics_gpu_tables.cu's s_table_kernel before issue 32's change (one thread; each store may alias
// the next load, so every element waits a load latency), its terms replaced by loads; samplekit's warp
// form is the s table's now (the next round's loads before this round's additions).

__global__ void serial_sums_thread_kernel(const double *x, int32_t n, double *out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  double run = 0.0;
  for (int32_t k = 0; k < n; ++k) {
    run = __dadd_rn(run, x[k]);
    out[k] = run;
  }
}

__global__ void serial_sums_warp_kernel(const double *x, int32_t n, double *out) {
  if (blockIdx.x != 0 || threadIdx.x >= 32) return;
  const int lane = sk_lane_id();
  double run = 0.0, v = lane < n ? x[lane] : 0.0;
  for (int32_t k0 = 0; k0 < n; k0 += 32) {
    const int32_t k = k0 + lane;
    const double next = k + 32 < n ? x[k + 32] : 0.0;
    const unsigned mask = __ballot_sync(SK_FULL_MASK, k < n);
    if (k < n) out[k] = sk_warp_serial_inclusive_sum_f64(mask, v, &run);
    v = next;
  }
}

enum { NUM_SERIAL_ROWS = 2 };
static const int32_t kSerialLengths[NUM_SERIAL_ROWS] = {1024, 65536};

// ---------------------------------------------------------------------------------------------------
// Driver.

typedef void (*chain_fn)(double *, uint32_t, int);

struct chain_pair {
  const char *name, *baseline, *unit;  // unit: what one call is ("warp" or "block")
  chain_fn sk, base;
};

static const chain_pair kPairs[NUM_CHAIN_PAIRS] = {
    {"inclusive_sum_f64", "metrics warp_inclusive_sum", "warp", chain_kernel<PAIR_INCLUSIVE, true>,
     chain_kernel<PAIR_INCLUSIVE, false>},
    {"warp_sum_f64", "metrics warp_sum", "warp", chain_kernel<PAIR_SUM, true>, chain_kernel<PAIR_SUM, false>},
    {"warp_sums_f64<8>", "metrics warp_sum8", "warp", chain_kernel<PAIR_SUMS8, true>, chain_kernel<PAIR_SUMS8, false>},
    {"sample_prefix_from_by_f64", "metrics fold_search_tile", "warp", chain_kernel<PAIR_SEARCH, true>,
     chain_kernel<PAIR_SEARCH, false>},
    {"block_sum_f64 (256)", "metrics block_sum", "block", chain_kernel<PAIR_BLOCK, true>,
     chain_kernel<PAIR_BLOCK, false>},
};

static int one_wave_blocks(chain_fn k, int sm_count) {
  int per_sm = 0;
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)k, BENCH_THREADS, 0));
  if (per_sm < 1) {
    fprintf(stderr, "bench_sums_f64: no block of %d threads fits on an SM\n", BENCH_THREADS);
    exit(BENCH_EXIT_FAILED);
  }
  return per_sm * sm_count;
}

struct variant_time {
  int blocks;
  double median_ms, calls_per_ns;  // calls: warp-calls or block-calls over the whole chip
};

static variant_time time_variant(chain_fn k, const chain_pair &p, int sm_count, double *d_out, int outer) {
  variant_time t;
  t.blocks = one_wave_blocks(k, sm_count);
  const bench_stats st = bench_time_events(BENCH_WARMUP, BENCH_TIMED, [&](int) {
    k<<<t.blocks, BENCH_THREADS>>>(d_out, BENCH_SEED, outer);
    BENCH_CUDA(cudaGetLastError());
  });
  t.median_ms = st.median_ms;
  const double units = strcmp(p.unit, "warp") == 0 ? (double)t.blocks * (BENCH_THREADS / SK_WARP_SIZE) : t.blocks;
  t.calls_per_ns = units * (double)outer * BENCH_INNER / (st.median_ms * 1e6);
  return t;
}

// Both variants' chains for one outer iteration, compared bit for bit.
static bool check_pair(const chain_pair &p, int sm_count, double *d_a, double *d_b, double *h_a, double *h_b) {
  const int blocks = std::min(one_wave_blocks(p.sk, sm_count), one_wave_blocks(p.base, sm_count));
  const size_t n = (size_t)blocks * BENCH_THREADS;
  BENCH_CUDA(cudaMemset(d_a, 0xa5, n * sizeof(double)));
  BENCH_CUDA(cudaMemset(d_b, 0x5a, n * sizeof(double)));
  p.sk<<<blocks, BENCH_THREADS>>>(d_a, BENCH_SEED, 1);
  BENCH_CUDA(cudaGetLastError());
  p.base<<<blocks, BENCH_THREADS>>>(d_b, BENCH_SEED, 1);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaMemcpy(h_a, d_a, n * sizeof(double), cudaMemcpyDeviceToHost));
  BENCH_CUDA(cudaMemcpy(h_b, d_b, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i)
    if (memcmp(&h_a[i], &h_b[i], sizeof(double)) != 0) {
      printf("MISMATCH %s: thread %zu: samplekit %.17g, %s %.17g\n", p.name, i, h_a[i], p.baseline, h_b[i]);
      return false;
    }
  printf("check %-26s ok: %zu threads' chains bitwise equal\n", p.name, n);
  return true;
}

// The largest round-to-round change of either variant's median, in percent.
static double round_spread_pct(const bench_stats sk[2], const bench_stats base[2]) {
  return 100.0 * std::max(fabs(sk[0].median_ms - sk[1].median_ms) / std::min(sk[0].median_ms, sk[1].median_ms),
                          fabs(base[0].median_ms - base[1].median_ms) / std::min(base[0].median_ms, base[1].median_ms));
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: bench_sums_f64 [--iters N] [--device D] [--csv FILE] [--help]\n"
          "\n"
          "Times samplekit's double-precision warp sums, tile search, block sums and serial running sums\n"
          "against the private code of sk-lda's GPU metrics that they replaced, after checking that both\n"
          "give the same bits.\n"
          "\n"
          "  --iters N   outer iterations per thread of the warp and block rows (default %d, at most %d);\n"
          "              each makes %d dependent calls\n"
          "  --device D  CUDA device (default 0)\n"
          "  --csv FILE  also write the summary as CSV\n"
          "\n"
          "Exit status: 0 done, 1 a check or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_DEFAULT_ITERS, BENCH_MAX_ITERS, BENCH_INNER);
}

int main(int argc, char **argv) {
  int outer = BENCH_DEFAULT_ITERS, device = 0;
  const char *csv = NULL;
  bench_parse_chain_options(argc, argv, usage, BENCH_MAX_ITERS, &outer, &device, &csv);
  bench_select_device(device);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  int sm_count = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  printf("bench_sums_f64: samplekit double sums and search vs sk-lda's private metrics code (nvcc %d.%d)\n",
         __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(device);
  printf("method: block %d threads, one full wave, %d outer x %d unrolled dependent calls; %d warm-up, median of "
         "%d launches, A B A B\n\n",
         BENCH_THREADS, outer, BENCH_INNER, BENCH_WARMUP, BENCH_TIMED);

  const size_t max_threads = (size_t)prop.maxThreadsPerMultiProcessor * (size_t)sm_count;
  double *d_a, *d_b;
  BENCH_CUDA(cudaMalloc(&d_a, max_threads * sizeof(double)));
  BENCH_CUDA(cudaMalloc(&d_b, max_threads * sizeof(double)));
  double *h_a = (double *)malloc(max_threads * sizeof(double)), *h_b = (double *)malloc(max_threads * sizeof(double));
  if (h_a == NULL || h_b == NULL) {
    fprintf(stderr, "bench_sums_f64: out of host memory\n");
    return BENCH_EXIT_FAILED;
  }
  bool ok = true;
  for (int i = 0; i < NUM_CHAIN_PAIRS; ++i) ok = check_pair(kPairs[i], sm_count, d_a, d_b, h_a, h_b) && ok;

  // The device-wide sum's inputs and its check, before any timing.
  const int64_t n = BENCH_SUM_ELEMENTS, per_block = (int64_t)BENCH_THREADS * 16;
  const int64_t blocks = (n + per_block - 1) / per_block;
  double *d_x, *d_partials, *d_total;
  BENCH_CUDA(cudaMalloc(&d_x, (size_t)n * sizeof(double)));
  BENCH_CUDA(cudaMalloc(&d_partials, (size_t)blocks * sizeof(double)));
  BENCH_CUDA(cudaMalloc(&d_total, 2 * sizeof(double)));
  fill_kernel<<<(unsigned)((n + 255) / 256), 256>>>(d_x, n, BENCH_SEED);
  BENCH_CUDA(cudaGetLastError());
  auto run_sum = [&](bool sk, double *out) {
    if (sk) {
      partials_kernel<true><<<(unsigned)blocks, BENCH_THREADS>>>(d_x, n, d_partials);
      sk_total_kernel<<<1, BENCH_THREADS>>>(d_partials, blocks, out);
    } else {
      partials_kernel<false><<<(unsigned)blocks, BENCH_THREADS>>>(d_x, n, d_partials);
      baseline::sum_kernel<<<1, baseline::kJointThreads>>>(d_partials, blocks, out);
    }
    BENCH_CUDA(cudaGetLastError());
  };
  run_sum(true, d_total);
  run_sum(false, d_total + 1);
  double totals[2];
  BENCH_CUDA(cudaMemcpy(totals, d_total, sizeof totals, cudaMemcpyDeviceToHost));
  if (memcmp(&totals[0], &totals[1], sizeof(double)) != 0) {
    printf("MISMATCH device_sum_f64: samplekit %.17g, metrics block_sum + sum_kernel %.17g\n", totals[0], totals[1]);
    ok = false;
  } else {
    printf("check %-26s ok: totals bitwise equal (%.17g)\n", "device_sum_f64", totals[0]);
  }
  // The running sums' check: both kernels over the first n of the device sum's inputs.
  double *d_run;
  BENCH_CUDA(cudaMalloc(&d_run, 2 * (size_t)kSerialLengths[NUM_SERIAL_ROWS - 1] * sizeof(double)));
  for (int r = 0; r < NUM_SERIAL_ROWS; ++r) {
    const int32_t m = kSerialLengths[r];
    serial_sums_warp_kernel<<<1, 32>>>(d_x, m, d_run);
    serial_sums_thread_kernel<<<1, 32>>>(d_x, m, d_run + m);
    BENCH_CUDA(cudaGetLastError());
    double *h_run = (double *)malloc(2 * (size_t)m * sizeof(double));
    if (h_run == NULL) {
      fprintf(stderr, "bench_sums_f64: out of host memory\n");
      return BENCH_EXIT_FAILED;
    }
    BENCH_CUDA(cudaMemcpy(h_run, d_run, 2 * (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
    const bool same = memcmp(h_run, h_run + m, (size_t)m * sizeof(double)) == 0;
    printf("check serial_sums_f64 n = %-6d %s\n", (int)m, same ? "ok: running sums bitwise equal" : "MISMATCH");
    ok = ok && same;
    free(h_run);
  }
  if (!ok) {
    printf("\nbench_sums_f64: FAILED: samplekit and the private code disagree; nothing timed\n");
    return BENCH_EXIT_FAILED;
  }

  // Warm the clocks, then the chain pairs A B A B.
  const int warm_blocks = one_wave_blocks(kPairs[0].base, sm_count);
  for (int r = 0; r < 8; ++r) kPairs[0].base<<<warm_blocks, BENCH_THREADS>>>(d_a, 1, outer);
  BENCH_CUDA(cudaDeviceSynchronize());
  enum { kRows = NUM_CHAIN_PAIRS + 1 + NUM_SERIAL_ROWS };
  double ratio[kRows], sk_ns[kRows], base_ns[kRows], spread[kRows];
  const char *row_name[kRows], *row_base[kRows];
  for (int i = 0; i < NUM_CHAIN_PAIRS; ++i) row_name[i] = kPairs[i].name, row_base[i] = kPairs[i].baseline;
  row_name[NUM_CHAIN_PAIRS] = "device_sum_f64", row_base[NUM_CHAIN_PAIRS] = "metrics block_sum+sum_kernel";
  printf("\n%-26s %-28s %7s %10s %10s %7s %7s %7s %8s\n", "primitive", "baseline", "per", "sk_ns", "base_ns", "speed",
         "speed1", "speed2", "spread%");
  for (int i = 0; i < NUM_CHAIN_PAIRS; ++i) {
    const chain_pair &p = kPairs[i];
    variant_time sk[2], base[2];
    for (int r = 0; r < 2; ++r) {
      sk[r] = time_variant(p.sk, p, sm_count, d_a, outer);
      base[r] = time_variant(p.base, p, sm_count, d_b, outer);
    }
    const double r1 = sk[0].calls_per_ns / base[0].calls_per_ns, r2 = sk[1].calls_per_ns / base[1].calls_per_ns;
    ratio[i] = (sk[0].calls_per_ns + sk[1].calls_per_ns) / (base[0].calls_per_ns + base[1].calls_per_ns);
    const double calls = (double)outer * BENCH_INNER;  // per warp or block: each runs the whole kernel
    sk_ns[i] = 0.5 * (sk[0].median_ms + sk[1].median_ms) * 1e6 / calls;
    base_ns[i] = 0.5 * (base[0].median_ms + base[1].median_ms) * 1e6 / calls;
    spread[i] = 100.0 * std::max(fabs(sk[0].median_ms - sk[1].median_ms) / std::min(sk[0].median_ms, sk[1].median_ms),
                                 fabs(base[0].median_ms - base[1].median_ms) /
                                     std::min(base[0].median_ms, base[1].median_ms));
    printf("%-26s %-28s %7s %10.3f %10.3f %7.3f %7.3f %7.3f %8.2f\n", p.name, p.baseline, p.unit, sk_ns[i],
           base_ns[i], ratio[i], r1, r2, spread[i]);
  }

  // The device-wide sum, with the copy rate of the same run.
  const size_t bytes = (size_t)n * sizeof(double);
  const bench_stats copy = bench_time_device_copy(bytes, BENCH_WARMUP, BENCH_TIMED);
  const double copy_gbs = 2.0 * (double)bytes / (copy.median_ms * 1e6);
  bench_stats sk_sum[2], base_sum[2];
  for (int r = 0; r < 2; ++r) {
    sk_sum[r] = bench_time_events(BENCH_WARMUP, BENCH_TIMED, [&](int) { run_sum(true, d_total); });
    base_sum[r] = bench_time_events(BENCH_WARMUP, BENCH_TIMED, [&](int) { run_sum(false, d_total + 1); });
  }
  const double sk_ms = 0.5 * (sk_sum[0].median_ms + sk_sum[1].median_ms);
  const double base_ms = 0.5 * (base_sum[0].median_ms + base_sum[1].median_ms);
  const int d = NUM_CHAIN_PAIRS;
  ratio[d] = base_ms / sk_ms;
  sk_ns[d] = sk_ms * 1e6;
  base_ns[d] = base_ms * 1e6;
  spread[d] = round_spread_pct(sk_sum, base_sum);
  printf("%-26s %-28s %7s %10.0f %10.0f %7.3f %7.3f %7.3f %8.2f\n", "device_sum_f64 (2^25)",
         "metrics block_sum+sum_kernel", "call", sk_ns[d], base_ns[d], ratio[d],
         base_sum[0].median_ms / sk_sum[0].median_ms, base_sum[1].median_ms / sk_sum[1].median_ms, spread[d]);
  const double sum_gbs = (double)bytes / (sk_ms * 1e6);
  printf("device_sum_f64: %.2f G elements/s, %.1f GB/s read = %.3f of the copy rate (%.1f GB/s read + written)\n",
         (double)n / (sk_ms * 1e6), sum_gbs, sum_gbs / copy_gbs, copy_gbs);

  // The running sums: one launch of a warp against one of a thread, A B A B.
  for (int r = 0; r < NUM_SERIAL_ROWS; ++r) {
    const int32_t m = kSerialLengths[r];
    bench_stats sk_run[2], base_run[2];
    for (int k = 0; k < 2; ++k) {
      sk_run[k] = bench_time_events(BENCH_WARMUP, BENCH_TIMED, [&](int) {
        serial_sums_warp_kernel<<<1, 32>>>(d_x, m, d_run);
        BENCH_CUDA(cudaGetLastError());
      });
      base_run[k] = bench_time_events(BENCH_WARMUP, BENCH_TIMED, [&](int) {
        serial_sums_thread_kernel<<<1, 32>>>(d_x, m, d_run + m);
        BENCH_CUDA(cudaGetLastError());
      });
    }
    const int i = NUM_CHAIN_PAIRS + 1 + r;
    const double sk_run_ms = 0.5 * (sk_run[0].median_ms + sk_run[1].median_ms);
    const double base_run_ms = 0.5 * (base_run[0].median_ms + base_run[1].median_ms);
    row_name[i] = r == 0 ? "serial_sums_f64 (1,024)" : "serial_sums_f64 (65,536)";
    row_base[i] = "s table: one thread";
    ratio[i] = base_run_ms / sk_run_ms;
    sk_ns[i] = sk_run_ms * 1e6;
    base_ns[i] = base_run_ms * 1e6;
    spread[i] = round_spread_pct(sk_run, base_run);
    printf("%-26s %-28s %7s %10.0f %10.0f %7.3f %7.3f %7.3f %8.2f\n", row_name[i], row_base[i], "call", sk_ns[i],
           base_ns[i], ratio[i], base_run[0].median_ms / sk_run[0].median_ms,
           base_run[1].median_ms / sk_run[1].median_ms, spread[i]);
  }

  printf("\ncolumns: sk_ns, base_ns = ns per call per warp (per block for the block row; per call of the two\n"
         "launches for device_sum; per launch for serial_sums); speed = samplekit speed / private code's (both rounds, then each);\n"
         "spread%% = largest round-to-round change of one variant's median\n");
  bool met = true;
  for (int i = 0; i < kRows; ++i) met = met && ratio[i] >= BENCH_TARGET;
  printf("target: every row's speed >= %.2f: %s\n", BENCH_TARGET, met ? "met" : "NOT met");

  if (csv != NULL) {
    FILE *f = bench_open_csv(csv);
    if (f == NULL) return BENCH_EXIT_FAILED;
    fprintf(f, "gpu,sm_count,outer_iters,primitive,baseline,sk_ns,baseline_ns,speed_ratio,spread_pct\n");
    for (int i = 0; i < kRows; ++i)
      fprintf(f, "\"%s\",%d,%d,\"%s\",\"%s\",%.4f,%.4f,%.5f,%.3f\n", prop.name, sm_count, outer, row_name[i],
              row_base[i], sk_ns[i], base_ns[i], ratio[i], spread[i]);
    if (!bench_close_csv(f, csv)) return BENCH_EXIT_FAILED;
    printf("wrote %s\n", csv);
  }
  BENCH_CUDA(cudaFree(d_a));
  BENCH_CUDA(cudaFree(d_b));
  BENCH_CUDA(cudaFree(d_x));
  BENCH_CUDA(cudaFree(d_partials));
  BENCH_CUDA(cudaFree(d_total));
  BENCH_CUDA(cudaFree(d_run));
  free(h_a);
  free(h_b);
  return 0;
}
