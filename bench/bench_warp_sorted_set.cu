// bench_warp_sorted_set: samplekit's warp sorted set (warp_sorted_set.cuh) against the straightforward
// ways of keeping a sorted array of keys in a warp's shared memory.
//
// Rows, for each set size n (a set of the n even keys 0, 2, ..., 2n - 2, one per warp in shared memory):
// - rank: sk_warp_sorted_set_rank_i32() against lane 0's binary search, broadcast by a shuffle;
// - insert + erase (an odd key at a uniform position, inserted and erased again, so the set keeps its
//   size): sk_warp_sorted_set_insert_i32() and _erase_i32() against lane 0 shifting the entries one at a
//   time (then a __syncwarp()), and against a bitmap of the keys 0 .. 2n - 1 (lane 0 sets or clears the
//   key's bit) with the set rebuilt by sk_warp_sorted_set_from_bitmap_i32() after each change, the
//   scheme of sk-lda's held-out windows.
// Every call depends on the one before (the rank's key on the previous rank; the updates through the
// array), so the times are latencies: ns per call per warp = median kernel time / calls per warp, all
// warps of a full-occupancy grid (one wave, from the occupancy API) running at once; `vs lane 0` is the
// row's lane 0 variant's time over this one's, each at its own grid (the same unless registers differ).
// `calls/us` counts every warp's calls over the chip. Before anything is
// timed, every variant of a row runs the same keys and the results are compared: the sums of the ranks
// per warp, and after the updates the whole set (back to its start) and its size; exit 1 on a mismatch,
// 77 without a GPU. Timing: CUDA events, BENCH_WARMUP launches, median of --reps.
//
//   usage: bench_warp_sorted_set [--sizes LIST] [--iters N] [--reps N] [--device D] [--csv FILE]
#define BENCH_NAME "bench_warp_sorted_set"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bench_common.h"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sorted_set.cuh"

#define BENCH_WARMUP 3
#define BENCH_DEFAULT_REPS 21    // odd, so the median is one launch's time
#define BENCH_DEFAULT_ITERS 256  // calls (rank) or insert + erase pairs per warp and launch
#define BENCH_MAX_SIZES 8
#define BENCH_MAX_SIZE 12288     // the keys and bitmaps of 4 warps fit in 227 KB of shared memory
#define BENCH_WARPS_PER_BLOCK 4
#define BENCH_SEED 0x5e75e7u

enum variant { kRankSk, kRankLane0, kUpdateSk, kUpdateLane0, kUpdateBitmap, kNumVariants };
static const char *const kVariantNames[kNumVariants] = {"rank", "rank: lane 0 search", "insert+erase",
                                                        "insert+erase: lane 0 shift",
                                                        "insert+erase: bitmap rebuild"};
static const int kBaselineOf[kNumVariants] = {kRankLane0, kRankLane0, kUpdateLane0, kUpdateLane0, kUpdateLane0};

// Words of a warp's slice of shared memory: n + 1 keys, then the bitmap of the keys 0 .. 2n - 1.
__host__ __device__ static int keys_words(int32_t n) { return (n + 1 + 31) / 32 * 32; }
__host__ __device__ static int bitmap_words(int32_t n) { return (2 * n + 31) / 32; }
__host__ __device__ static int slice_words(int32_t n) { return keys_words(n) + (bitmap_words(n) + 31) / 32 * 32; }

// The baselines' search: one lane, O(log n) dependent loads.
__device__ __forceinline__ int32_t lane0_search(const int32_t *keys, int32_t n, int32_t key) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    const int32_t mid = (lo + hi) >> 1;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <int V>
__global__ void __launch_bounds__(32 * BENCH_WARPS_PER_BLOCK)
    sset_kernel(int32_t n, int iters, uint32_t seed, uint32_t *out) {
  extern __shared__ int32_t smem[];
  const int lane = sk_lane_id(), warp = (int)(threadIdx.x / 32);
  const uint32_t wid = blockIdx.x * BENCH_WARPS_PER_BLOCK + (uint32_t)warp;
  int32_t *keys = smem + (size_t)warp * slice_words(n);
  uint32_t *bits = (uint32_t *)(keys + keys_words(n));
  const int32_t words = bitmap_words(n);
  for (int32_t j = lane; j < n; j += 32) keys[j] = 2 * j;
  for (int32_t w = lane; w < words; w += 32) {
    const int32_t top = 2 * n - 32 * w;  // bits of the keys below 2n in word w
    bits[w] = top >= 32 ? 0x55555555u : 0x55555555u & ((1u << top) - 1u);
  }
  __syncwarp();
  uint32_t acc = 0;
  int32_t size = n;
  for (int i = 0; i < iters; ++i) {
    const uint32_t h = sk_mix_u32(seed ^ sk_mix_u32(wid * 0x9e3779b9u + (uint32_t)i));
    if (V == kRankSk || V == kRankLane0) {
      const int32_t key = (int32_t)((h + acc) % (uint32_t)(2 * n + 1));  // depends on the rank before
      int32_t r;
      if (V == kRankSk) {
        r = sk_warp_sorted_set_rank_i32(keys, size, key, lane);
      } else {
        r = lane == 0 ? lane0_search(keys, size, key) : 0;
        r = __shfl_sync(SK_FULL_MASK, r, 0);
      }
      acc += (uint32_t)r;
    } else {
      const int32_t key = 2 * (int32_t)(h % (uint32_t)n) + 1;  // absent: between two even keys, or last
      if (V == kUpdateSk) {
        size = sk_warp_sorted_set_insert_i32(keys, size, key, lane);
        size = sk_warp_sorted_set_erase_i32(keys, size, key, lane);
      } else if (V == kUpdateLane0) {
        if (lane == 0) {
          const int32_t p = lane0_search(keys, size, key);
          for (int32_t j = size; j > p; --j) keys[j] = keys[j - 1];
          keys[p] = key;
        }
        __syncwarp();
        ++size;
        if (lane == 0) {
          const int32_t p = lane0_search(keys, size, key);
          for (int32_t j = p; j < size - 1; ++j) keys[j] = keys[j + 1];
        }
        __syncwarp();
        --size;
      } else {
        if (lane == 0) bits[key >> 5] |= 1u << (key & 31);
        __syncwarp();
        size = sk_warp_sorted_set_from_bitmap_i32(bits, words, keys, lane);
        if (lane == 0) bits[key >> 5] &= ~(1u << (key & 31));
        __syncwarp();
        size = sk_warp_sorted_set_from_bitmap_i32(bits, words, keys, lane);
      }
    }
  }
  if (V != kRankSk && V != kRankLane0) {
    // The set after the updates (the start again): a hash of its entries and its size.
    for (int32_t j = lane; j < size; j += 32) acc += sk_mix_u32((uint32_t)keys[j] + 0x9e3779b9u * (uint32_t)j);
    acc = __reduce_add_sync(SK_FULL_MASK, acc) + 0x85ebca6bu * (uint32_t)size;
  }
  if (lane == 0) out[wid] = acc;
}

typedef void (*sset_kernel_fn)(int32_t, int, uint32_t, uint32_t *);
static sset_kernel_fn kernel_of(int v) {
  switch (v) {
    case kRankSk: return sset_kernel<kRankSk>;
    case kRankLane0: return sset_kernel<kRankLane0>;
    case kUpdateSk: return sset_kernel<kUpdateSk>;
    case kUpdateLane0: return sset_kernel<kUpdateLane0>;
    default: return sset_kernel<kUpdateBitmap>;
  }
}

struct options {
  int device = 0, reps = BENCH_DEFAULT_REPS, iters = BENCH_DEFAULT_ITERS, num_sizes = 5;
  int32_t sizes[BENCH_MAX_SIZES] = {32, 128, 512, 2048, 8192};
  const char *csv_path = nullptr;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--sizes N1,N2,...] [--iters N] [--reps N] [--device D] [--csv FILE] [--help]\n"
          "  --sizes L   set sizes, 1 to %d of them, each 1 to %d (default 32,128,512,2048,8192)\n"
          "  --iters N   ranks, or insert + erase pairs, per warp and launch, 1 to 65536 (default %d)\n"
          "  --reps N    timed launches per figure, 1 to 1001 (default %d); the median is reported\n"
          "  --device D  the GPU to use (default 0)\n"
          "  --csv FILE  also write the results to FILE as CSV\n",
          BENCH_NAME, BENCH_MAX_SIZES, BENCH_MAX_SIZE, BENCH_DEFAULT_ITERS, BENCH_DEFAULT_REPS);
}

static options parse(int argc, char **argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (bench_common_option(argc, argv, &i, usage, &o.csv_path) ||
        bench_device_option(argc, argv, &i, &o.device, usage) ||
        bench_int_option(argc, argv, &i, "--reps", 1, 1001, &o.reps, usage) ||
        bench_int_option(argc, argv, &i, "--iters", 1, 65536, &o.iters, usage))
      continue;
    if (!strcmp(argv[i], "--sizes") && has_value) {
      long long v[BENCH_MAX_SIZES];
      o.num_sizes = bench_parse_list("--sizes", argv[++i], 1, BENCH_MAX_SIZE, v, BENCH_MAX_SIZES, usage);
      for (int k = 0; k < o.num_sizes; ++k) o.sizes[k] = (int32_t)v[k];
    } else {
      bench_unknown_option(argv[i], usage);
    }
  }
  return o;
}

int main(int argc, char **argv) {
  const options o = parse(argc, argv);
  bench_select_device(o.device);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, o.device));
  printf("%s: samplekit's warp sorted set against lane 0's search and shift, and a bitmap rebuild\n", BENCH_NAME);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(o.device);
  printf("method: one set a warp in shared memory, %d warps a block, a full-occupancy grid; %d calls (or pairs) a "
         "warp a launch; %d warm-up launches, median of %d\n\n",
         BENCH_WARPS_PER_BLOCK, o.iters, BENCH_WARMUP, o.reps);

  FILE *csv = nullptr;
  if (o.csv_path != nullptr) {
    csv = bench_open_csv(o.csv_path);
    if (csv == nullptr) return BENCH_EXIT_FAILED;
    fprintf(csv, "gpu,n,variant,warps,iters,ms,ns_per_call_per_warp,calls_per_us,vs_baseline\n");
  }
  const size_t max_warps = (size_t)prop.multiProcessorCount * 64;
  uint32_t *d_out;
  BENCH_CUDA(cudaMalloc(&d_out, sizeof(uint32_t) * max_warps));
  uint32_t *h_out[kNumVariants];
  for (int v = 0; v < kNumVariants; ++v) h_out[v] = (uint32_t *)malloc(sizeof(uint32_t) * max_warps);

  printf("| n | variant | warps | ms | ns/call/warp | calls/us (chip) | vs lane 0 |\n"
         "|---:|---|---:|---:|---:|---:|---:|\n");
  bool failed = false;
  for (int si = 0; si < o.num_sizes; ++si) {
    const int32_t n = o.sizes[si];
    const size_t shared = sizeof(int32_t) * (size_t)slice_words(n) * BENCH_WARPS_PER_BLOCK;
    double ms[kNumVariants];
    int warps[kNumVariants], grids[kNumVariants];
    // Check: the same keys through every variant, each compared with its row's baseline.
    for (int v = 0; v < kNumVariants; ++v) {
      const sset_kernel_fn f = kernel_of(v);
      BENCH_CUDA(cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
      int resident = 0;
      BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, f, 32 * BENCH_WARPS_PER_BLOCK, shared));
      if (resident < 1) {
        fprintf(stderr, "%s: n = %d needs %zu bytes of shared memory a block: does not fit\n", BENCH_NAME, (int)n,
                shared);
        return BENCH_EXIT_FAILED;
      }
      grids[v] = prop.multiProcessorCount * resident;
      warps[v] = grids[v] * BENCH_WARPS_PER_BLOCK;
      f<<<grids[v], 32 * BENCH_WARPS_PER_BLOCK, shared>>>(n, o.iters, BENCH_SEED, d_out);
      BENCH_CUDA(cudaGetLastError());
      BENCH_CUDA(cudaMemcpy(h_out[v], d_out, sizeof(uint32_t) * (size_t)warps[v], cudaMemcpyDeviceToHost));
    }
    for (int v = 0; v < kNumVariants; ++v) {
      const int base = kBaselineOf[v];
      const int common = warps[v] < warps[base] ? warps[v] : warps[base];  // a warp's keys depend on its index only
      for (int w = 0; w < common; ++w)
        if (h_out[v][w] != h_out[base][w]) {
          fprintf(stderr, "%s: CHECK FAILED: n = %d, %s: warp %d's result %08x, %s's %08x\n", BENCH_NAME, (int)n,
                  kVariantNames[v], w, h_out[v][w], kVariantNames[base], h_out[base][w]);
          failed = true;
          break;
        }
    }
    for (int v = 0; v < kNumVariants; ++v) {
      const sset_kernel_fn f = kernel_of(v);
      const int grid = grids[v];
      const bench_stats s = bench_time_events(BENCH_WARMUP, o.reps, [&](int r) {
        f<<<grid, 32 * BENCH_WARPS_PER_BLOCK, shared>>>(n, o.iters, BENCH_SEED + (uint32_t)r, d_out);
      });
      ms[v] = s.median_ms;
    }
    for (int v = 0; v < kNumVariants; ++v) {
      const double ns = ms[v] * 1e6 / o.iters, rate = (double)warps[v] * o.iters / (ms[v] * 1e3);
      const double vs = ms[kBaselineOf[v]] / ms[v];
      printf("| %d | %s | %d | %.4f | %.1f | %.1f | %.2fx |\n", (int)n, kVariantNames[v], warps[v], ms[v], ns, rate,
             vs);
      if (csv != nullptr)
        fprintf(csv, "\"%s\",%d,%s,%d,%d,%.5f,%.3f,%.3f,%.4f\n", prop.name, (int)n, kVariantNames[v], warps[v], o.iters,
                ms[v], ns, rate, vs);
    }
  }
  if (csv != nullptr && !bench_close_csv(csv, o.csv_path)) failed = true;
  BENCH_CUDA(cudaFree(d_out));
  for (int v = 0; v < kNumVariants; ++v) free(h_out[v]);
  if (failed) {
    printf("%s: some checks FAILED (see above); the timings are not valid\n", BENCH_NAME);
    return BENCH_EXIT_FAILED;
  }
  return 0;
}
