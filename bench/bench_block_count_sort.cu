// bench_block_count_sort: issue 30. samplekit's block counting sort (sk_block_count_sort_u32,
// block_count_sort.cuh) against the private counting sort it replaced in sk-mixture's statistics
// kernel: the code of examples/mixture/src/gpu/stats_gpu.cu before issue 30, copied verbatim below
// (tile_histogram, tile_starts, tile_scatter and the kernel's sequence of them), the baseline.
//   usage: bench_block_count_sort [--device N] [--n N] [--keys K1,K2,...] [--reps N] [--csv FILE] [--help]
//
// Shapes: the statistics kernel's. N component labels z (int32, default 2^25: 128 MiB, more than twice
// the L2 of an H100 or H200, so every launch streams them from memory); K components (default 1, 2, 7,
// 64, 200 and 1,024: sk-mixture takes at most 1,024); tiles of clamp(64 K, 2,048, 16,384) points, as
// the kernel plans them; blocks of 512 threads, a full-occupancy grid (the SMs times the blocks that fit
// on one, as cudaOccupancyMaxActiveBlocksPerMultiprocessor gives for each variant's kernel: its
// registers and its shared memory, both printed before the table),
// each block walking tiles blockIdx.x, blockIdx.x + gridDim.x, ... Labels: uniform (a hash of the
// index mod K) and skewed (90% on component 0, the rest uniform: one dominant component, the atomics'
// worst case); for K = 1 the two are the same and only uniform runs.
//
// Variants (each does the per-tile work between the statistics kernel's barriers, then a consumer
// that keeps the result alive: each thread reads slot threadIdx.x):
//   private             the verbatim copy: zero the counters, histogram (keeps z as 16 bits), warp 0
//                       scans the counts and adds each to the global counts array, scatter
//   samplekit+counts    sk_block_count_sort_counts_u32: the sort, with each key's count added to the same
//                       global array during its scan (the same atomics as private's scan): the same work,
//                       the headline comparison (target: at least 0.98x private's speed)
//   samplekit           sk_block_count_sort_u32 alone (sk-mixture now adds the counts while it walks
//                       the segments, one atomic per segment piece, so this is what it pays for the sort)
// Before anything is timed, every variant runs once in a checking mode on the same labels: every slot
// of every tile in its key's range, its item's label equal to that key, the XOR of all slots equal to
// the host's, and the counts (variants with counts) equal to the host's histogram; a mismatch exits 1.
// Timing: CUDA events on the legacy stream, 3 warm-up launches, the median of --reps (default 21).
// Columns: ms; labels/s; GB/s = the labels read (4 N bytes) over the time; "of copy" = that over the
// rate of a device-to-device cudaMemcpyAsync of the labels (read + written counted) in the same run;
// "vs private" = private's time over this variant's (above 1: faster).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "samplekit/block_count_sort.cuh"
#include "samplekit/warp_scan.cuh"

#define BENCH_NAME "bench_block_count_sort"
#include "bench_common.h"

#define BENCH_WARMUP 3
#define BENCH_DEFAULT_REPS 21
#define BENCH_DEFAULT_N (1ll << 25)
#define BENCH_MAX_KS 8
#define BENCH_SEED 0xb10c5047u
#define BENCH_TARGET 0.98

// The statistics kernel's constants (stats_gpu.cu).
constexpr int kStatsThreads = 512;
constexpr int kMinTile = 2048, kMaxTile = 16384, kPointsPerComponent = 64;

static int clamp_tile(int32_t k) {
  const int64_t t = (int64_t)kPointsPerComponent * k;
  return (int)(t < kMinTile ? kMinTile : t > kMaxTile ? kMaxTile : t);
}

// ---------------------------------------------------------------------------------------------------
// The baseline: stats_gpu.cu's private counting sort before issue 30, verbatim (its shared layout,
// its three steps and their comments).

namespace baseline {

__host__ __device__ __forceinline__ size_t round16(size_t b) { return (b + 15u) / 16u * 16u; }
__host__ __device__ __forceinline__ size_t tile_bytes(int tile, int32_t k) {
  return round16(4u * (size_t)tile) + round16(4u * (size_t)k) + round16(2u * (size_t)tile);
}

// Tile t of the sorted kernel, step 1: the histogram of its components (`hist`, zeroed by the caller)
// and the components kept for the scatter.
__device__ __forceinline__ void tile_histogram(const int32_t *z, int cnt, uint32_t *hist, uint16_t *zc) {
  for (int i = (int)threadIdx.x; i < cnt; i += (int)blockDim.x) {
    const int32_t c = z[i];
    zc[i] = (uint16_t)c;
    atomicAdd(hist + c, 1u);
  }
}

// Step 2, warp 0: the counts to the accumulators, and the histogram turned in place into the start
// of each component's slots (an exclusive scan in chunks of 32, samplekit's warp scan).
__device__ __forceinline__ void tile_starts(int32_t k, uint32_t *hist, unsigned long long *acc) {
  const int lane = (int)(threadIdx.x & 31u);
  uint32_t base = 0;
  for (int32_t c0 = 0; c0 < k; c0 += 32) {
    const int32_t c = c0 + lane;
    const uint32_t h = c < k ? hist[c] : 0u;
    const uint32_t start = base + sk_warp_exclusive_sum_u32(SK_FULL_MASK, h);
    if (c < k) {
      hist[c] = start;
      if (h != 0u) atomicAdd(acc + c, (unsigned long long)h);
    }
    base += sk_warp_sum_u32(SK_FULL_MASK, h);
  }
}

// Step 3: each point's slot, (component << 16) | offset, at its component's cursor. The order within a
// component depends on the atomics' order; the integer sums below do not.
__device__ __forceinline__ void tile_scatter(int cnt, const uint16_t *zc, uint32_t *cursor, uint32_t *sorted) {
  for (int i = (int)threadIdx.x; i < cnt; i += (int)blockDim.x) {
    const uint32_t c = zc[i];
    sorted[atomicAdd(cursor + c, 1u)] = (c << 16) | (uint32_t)i;
  }
}

}  // namespace baseline

// samplekit's layout in the statistics kernel now: the slots, the K ends, the sort's scratch.
static size_t samplekit_tile_bytes(int tile, int32_t k) {
  return baseline::round16(4u * (size_t)tile) + baseline::round16(4u * (size_t)k) +
         baseline::round16(SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(tile));
}

// ---------------------------------------------------------------------------------------------------
// The kernel: the statistics kernel's tile loop with one variant's sort.

enum { kPrivate, kSamplekitCounts, kSamplekit, kNumVariants };
static const char *const kVariantNames[kNumVariants] = {"private", "samplekit+counts", "samplekit"};

// kCheck: every thread checks the slots j = threadIdx.x, + blockDim.x, ... of every tile (errors
// counted in *errors) and XORs them all; otherwise it XORs slot threadIdx.x only. The XORs go to
// out_xor[blockIdx.x * blockDim.x + threadIdx.x].
template <int kVariant, bool kCheck>
__global__ void __launch_bounds__(kStatsThreads, 2)
    sort_tiles_kernel(const int32_t *z, int64_t n, int32_t k, int tile, unsigned long long *acc, uint32_t *out_xor,
                      unsigned long long *errors) {
  extern __shared__ uint4 smem4[];
  unsigned char *const base = reinterpret_cast<unsigned char *>(smem4);
  uint32_t *const sorted = reinterpret_cast<uint32_t *>(base);
  uint32_t *const hist = reinterpret_cast<uint32_t *>(base + baseline::round16(4u * (size_t)tile));
  unsigned char *const after_hist = base + baseline::round16(4u * (size_t)tile) + baseline::round16(4u * (size_t)k);
  uint16_t *const zc = reinterpret_cast<uint16_t *>(after_hist);
  void *const scratch = after_hist;
  uint32_t x = 0u;
  const int64_t tiles = (n + tile - 1) / tile;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t p0 = t * (int64_t)tile;
    const int cnt = n - p0 < tile ? (int)(n - p0) : tile;
    __syncthreads();  // the previous tile's consumer has read `sorted` and the ends
    if (kVariant == kPrivate) {
      for (int i = (int)threadIdx.x; i < k; i += (int)blockDim.x) hist[i] = 0u;
      __syncthreads();
      baseline::tile_histogram(z + p0, cnt, hist, zc);
      __syncthreads();
      if (threadIdx.x < 32) baseline::tile_starts(k, hist, acc);
      __syncthreads();
      baseline::tile_scatter(cnt, zc, hist, sorted);  // afterwards hist[c] is the end of component c's slots
      __syncthreads();
    } else {
      if (kVariant == kSamplekitCounts)
        sk_block_count_sort_counts_u32((int)threadIdx.x, (int)blockDim.x, scratch,
                                       reinterpret_cast<const uint32_t *>(z + p0), cnt, k, hist, sorted, acc);
      else
        sk_block_count_sort_u32((int)threadIdx.x, (int)blockDim.x, scratch, reinterpret_cast<const uint32_t *>(z + p0),
                                cnt, k, hist, sorted);
    }
    if (kCheck) {
      for (int j = (int)threadIdx.x; j < cnt; j += (int)blockDim.x) {
        const uint32_t s = sorted[j], key = s >> 16, item = s & 0xffffu;
        const bool ok = key < (uint32_t)k && item < (uint32_t)cnt && (uint32_t)z[p0 + item] == key &&
                        (key == 0u || hist[key - 1] <= (uint32_t)j) && (uint32_t)j < hist[key];
        if (!ok) atomicAdd(errors, 1ull);
        x ^= s;
      }
    } else if ((int)threadIdx.x < cnt) {
      x ^= sorted[threadIdx.x];
    }
  }
  out_xor[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = x;
}

typedef void (*sort_kernel_fn)(const int32_t *, int64_t, int32_t, int, unsigned long long *, uint32_t *,
                               unsigned long long *);

static sort_kernel_fn kernel_of(int variant, bool check) {
  switch (variant) {
    case kPrivate: return check ? sort_tiles_kernel<kPrivate, true> : sort_tiles_kernel<kPrivate, false>;
    case kSamplekitCounts:
      return check ? sort_tiles_kernel<kSamplekitCounts, true> : sort_tiles_kernel<kSamplekitCounts, false>;
    default: return check ? sort_tiles_kernel<kSamplekit, true> : sort_tiles_kernel<kSamplekit, false>;
  }
}

// Labels: uniform, or 90% on component 0.
__global__ void make_labels(int32_t *z, int64_t n, int32_t k, int skewed, uint32_t seed) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const uint32_t h = sk_mix_u32((uint32_t)i ^ seed ^ (uint32_t)(i >> 32) * 0x9e3779b9u);
    const uint32_t g = sk_mix_u32(h ^ 0x85ebca6bu);
    z[i] = skewed && g % 10u != 0u ? 0 : (int32_t)(h % (uint32_t)k);
  }
}

// ---------------------------------------------------------------------------------------------------

struct options {
  int device = 0, reps = BENCH_DEFAULT_REPS, num_ks = 6;
  long long n = BENCH_DEFAULT_N;
  int32_t ks[BENCH_MAX_KS] = {1, 2, 7, 64, 200, 1024};
  const char *csv_path = nullptr;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--device N] [--n N] [--keys K1,K2,...] [--reps N] [--csv FILE] [--help]\n"
          "  --device N  the GPU to use (default 0)\n"
          "  --n N       component labels, 1 to 2^31 - 1 (default 2^25)\n"
          "  --keys L    comma-separated K values, 1 to %d of them, each 1 to 1024 (default 1,2,7,64,200,1024)\n"
          "  --reps N    timed launches per figure, 1 to 1001 (default %d); the median is reported\n"
          "  --csv FILE  also write the results to FILE as CSV\n",
          BENCH_NAME, BENCH_MAX_KS, BENCH_DEFAULT_REPS);
}

static options parse(int argc, char **argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (bench_common_option(argc, argv, &i, usage, &o.csv_path) ||
        bench_device_option(argc, argv, &i, &o.device, usage) ||
        bench_int_option(argc, argv, &i, "--reps", 1, 1001, &o.reps, usage))
      continue;
    if (!strcmp(argv[i], "--n") && has_value) {
      if (!bench_parse_ll(argv[++i], 1, 0x7fffffffll, &o.n)) bench_bad_value("--n", argv[i], usage);
    } else if (!strcmp(argv[i], "--keys") && has_value) {
      long long ks[BENCH_MAX_KS];
      o.num_ks = bench_parse_list("--keys", argv[++i], 1, 1024, ks, BENCH_MAX_KS, usage);
      for (int k = 0; k < o.num_ks; ++k) o.ks[k] = (int32_t)ks[k];
    } else {
      bench_unknown_option(argv[i], usage);
    }
  }
  return o;
}

struct shape_result {
  double ms[kNumVariants];
  int grid[kNumVariants];
};

int main(int argc, char **argv) {
  const options o = parse(argc, argv);
  bench_select_device(o.device);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, o.device));
  printf("%s: samplekit's block counting sort against sk-mixture's private one (issue 30)\n", BENCH_NAME);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(o.device);
  printf("method: N = %lld labels, blocks of %d threads, full-occupancy grid; %d warm-up launches, median of %d\n",
         o.n, kStatsThreads, BENCH_WARMUP, o.reps);

  const int64_t n = o.n;
  int32_t *d_z;
  unsigned long long *d_acc, *d_errors;
  uint32_t *d_xor;
  BENCH_CUDA(cudaMalloc(&d_z, sizeof(int32_t) * (size_t)n));
  BENCH_CUDA(cudaMalloc(&d_acc, sizeof(unsigned long long) * 1024));
  BENCH_CUDA(cudaMalloc(&d_errors, sizeof(unsigned long long)));
  const size_t max_threads = (size_t)prop.multiProcessorCount * 4u * kStatsThreads;  // grids of up to 4 blocks/SM
  BENCH_CUDA(cudaMalloc(&d_xor, sizeof(uint32_t) * max_threads));
  int32_t *h_z = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
  uint32_t *h_xor = (uint32_t *)malloc(sizeof(uint32_t) * max_threads);
  if (h_z == nullptr || h_xor == nullptr) {
    fprintf(stderr, "%s: out of host memory for %lld labels\n", BENCH_NAME, o.n);
    return BENCH_EXIT_FAILED;
  }

  const bench_stats copy = bench_time_device_copy(sizeof(int32_t) * (size_t)n, BENCH_WARMUP, o.reps);
  const double copy_gbs = 2.0 * 4.0 * (double)n / (copy.median_ms * 1e6);
  printf("device-to-device copy of the labels (%.1f MB): %.3f ms = %.1f GB/s (read + written)\n\n",
         4.0 * (double)n / 1e6, copy.median_ms, copy_gbs);

  FILE *csv = nullptr;
  if (o.csv_path != nullptr) {
    csv = bench_open_csv(o.csv_path);
    if (csv == nullptr) return BENCH_EXIT_FAILED;
    fprintf(csv, "gpu,n,K,tile,labels,variant,grid,ms,labels_per_s,GBs,fraction_of_copy,vs_private\n");
  }
  // Each variant's registers (the timed kernel's) and shared bytes per block at each tile, the two
  // things that set its blocks per SM (the grid column).
  for (int v = 0; v < kNumVariants; ++v) {
    cudaFuncAttributes fa;
    BENCH_CUDA(cudaFuncGetAttributes(&fa, (const void *)kernel_of(v, false)));
    printf("%-18s %3d registers/thread; shared bytes/block (K, tile):", kVariantNames[v], fa.numRegs);
    for (int ki = 0; ki < o.num_ks; ++ki) {
      const int tile = clamp_tile(o.ks[ki]);
      const size_t bytes = v == kPrivate ? baseline::tile_bytes(tile, o.ks[ki]) : samplekit_tile_bytes(tile, o.ks[ki]);
      printf(" %zu (%d, %d)", bytes, (int)o.ks[ki], tile);
    }
    printf("\n");
  }
  printf("\n");
  printf("%-6s %-6s %-8s %-18s %6s %10s %10s %9s %8s %10s\n", "K", "tile", "labels", "variant", "grid", "ms",
         "Glabels/s", "GB/s", "of copy", "vs private");
  bool failed = false;
  double worst = 1e30;
  char worst_at[96] = "";
  for (int ki = 0; ki < o.num_ks; ++ki) {
    const int32_t k = o.ks[ki];
    const int tile = clamp_tile(k);
    for (int skewed = 0; skewed < (k > 1 ? 2 : 1); ++skewed) {
      const char *labels = skewed ? "skewed" : "uniform";
      make_labels<<<prop.multiProcessorCount * 8, 256>>>(d_z, n, k, skewed, BENCH_SEED + (uint32_t)k);
      BENCH_CUDA(cudaGetLastError());
      BENCH_CUDA(cudaMemcpy(h_z, d_z, sizeof(int32_t) * (size_t)n, cudaMemcpyDeviceToHost));
      // The host's expectations: the histogram and the XOR of every tile's slots (any order).
      unsigned long long want_counts[1024] = {0};
      uint32_t want_xor = 0u;
      for (int64_t i = 0; i < n; ++i) {
        ++want_counts[h_z[i]];
        want_xor ^= ((uint32_t)h_z[i] << 16) | (uint32_t)(i % tile);
      }
      shape_result r;
      for (int v = 0; v < kNumVariants; ++v) {
        const size_t shared = v == kPrivate ? baseline::tile_bytes(tile, k) : samplekit_tile_bytes(tile, k);
        int resident = 0;
        for (int check = 0; check < 2; ++check) {
          const sort_kernel_fn f = kernel_of(v, check != 0);
          BENCH_CUDA(cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
        }
        BENCH_CUDA(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel_of(v, false), kStatsThreads, shared));
        if (resident > 4) resident = 4;
        if (resident < 1) resident = 1;
        const int64_t tiles = (n + tile - 1) / tile, full = (int64_t)prop.multiProcessorCount * resident;
        const int grid = (int)(tiles < full ? tiles : full);
        r.grid[v] = grid;
        // Check.
        BENCH_CUDA(cudaMemset(d_acc, 0, sizeof(unsigned long long) * 1024));
        BENCH_CUDA(cudaMemset(d_errors, 0, sizeof(unsigned long long)));
        kernel_of(v, true)<<<grid, kStatsThreads, shared>>>(d_z, n, k, tile, d_acc, d_xor, d_errors);
        BENCH_CUDA(cudaGetLastError());
        BENCH_CUDA(cudaDeviceSynchronize());
        unsigned long long errors = 0, got_counts[1024];
        BENCH_CUDA(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(got_counts, d_acc, sizeof(unsigned long long) * k, cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(h_xor, d_xor, sizeof(uint32_t) * (size_t)grid * kStatsThreads, cudaMemcpyDeviceToHost));
        uint32_t got_xor = 0u;
        for (size_t i = 0; i < (size_t)grid * kStatsThreads; ++i) got_xor ^= h_xor[i];
        int bad_count = -1;
        if (v != kSamplekit)
          for (int32_t c = 0; c < k && bad_count < 0; ++c)
            if (got_counts[c] != want_counts[c]) bad_count = c;
        if (errors != 0 || got_xor != want_xor || bad_count >= 0) {
          fprintf(stderr,
                  "%s: CHECK FAILED: K=%d %s %s: %llu misplaced slots, XOR 0x%08x (want 0x%08x), first wrong "
                  "count %d\n",
                  BENCH_NAME, (int)k, labels, kVariantNames[v], errors, got_xor, want_xor, bad_count);
          failed = true;
        }
        // Time.
        const sort_kernel_fn f = kernel_of(v, false);
        const bench_stats s = bench_time_events(BENCH_WARMUP, o.reps, [&](int) {
          f<<<grid, kStatsThreads, shared>>>(d_z, n, k, tile, d_acc, d_xor, d_errors);
        });
        r.ms[v] = s.median_ms;
      }
      for (int v = 0; v < kNumVariants; ++v) {
        const double ms = r.ms[v], gbs = 4.0 * (double)n / (ms * 1e6), vs = r.ms[kPrivate] / ms;
        printf("%-6d %-6d %-8s %-18s %6d %10.4f %10.3f %9.1f %7.1f%% %9.3fx\n", (int)k, tile, labels,
               kVariantNames[v], r.grid[v], ms, (double)n / (ms * 1e6), gbs, 100.0 * gbs / copy_gbs, vs);
        if (csv != nullptr)
          fprintf(csv, "\"%s\",%lld,%d,%d,%s,%s,%d,%.5f,%.6g,%.2f,%.4f,%.4f\n", prop.name, o.n, (int)k, tile, labels,
                  kVariantNames[v], r.grid[v], ms, (double)n / (ms * 1e-3), gbs, gbs / copy_gbs, vs);
        if (v == kSamplekitCounts && vs < worst) {
          worst = vs;
          snprintf(worst_at, sizeof worst_at, "K=%d, %s labels", (int)k, labels);
        }
      }
    }
  }
  printf("\nsamplekit+counts against private: slowest ratio %.3fx (%s); target >= %.2fx: %s\n", worst, worst_at,
         BENCH_TARGET, worst >= BENCH_TARGET ? "met" : "NOT met");
  if (csv != nullptr && !bench_close_csv(csv, o.csv_path)) failed = true;
  BENCH_CUDA(cudaFree(d_z));
  BENCH_CUDA(cudaFree(d_acc));
  BENCH_CUDA(cudaFree(d_errors));
  BENCH_CUDA(cudaFree(d_xor));
  free(h_z);
  free(h_xor);
  if (failed) {
    printf("%s: some checks FAILED (see above); the timings are not valid\n", BENCH_NAME);
    return BENCH_EXIT_FAILED;
  }
  return 0;
}
