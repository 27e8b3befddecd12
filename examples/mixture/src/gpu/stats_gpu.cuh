/*
 * The GPU statistics kernels of sk-mixture (stats_gpu.cu), as mix_gpu.cu launches them. Internal: C++.
 *
 * Both compute stats.h's integers exactly: per component its count, and per (component, dimension) the
 * sums of X = round(x 2^f1) and XX = round(x^2 2^f2) as 64-bit two's complement integers. Integer
 * addition commutes, so neither the order of the additions nor the launch shape changes a bit.
 */
#ifndef SK_MIX_STATS_GPU_CUH
#define SK_MIX_STATS_GPU_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace sk_mix_gpu_detail {

/* The statistics kernels (sk_mix_gpu_options.stats_kernel):
   - kStatsSorted (the default): a block takes a tile of points, sorts them by component in shared
     memory (samplekit's block counting sort, sk_block_count_sort_u32: a histogram of z, its scan, a
     scatter), then each warp walks a run of the sorted points one component's segment at a time, a
     lane per dimension (32 / D points a step when D < 32), summing in registers and adding the sums
     (and the segment's length, the count) to the component's accumulators once per segment: about two
     accumulator updates per (component, dimension, tile, warp) instead of two per element.
   - kStatsAtomic: two 64-bit atomics per element (point, dimension), consecutive elements to
     consecutive threads (the first version; the baseline of the benchmark). */
enum { kStatsSorted = 0, kStatsAtomic = 1 };

/* The arguments of one launch: N points of D floats (row-major), their components, the scales 2^f1 and
   2^f2, the K (2 D + 1) zeroed global integers (counts, then sums of X, then sums of XX). */
struct stats_args {
  const float *x;
  const int32_t *z;
  int64_t n;
  int32_t d, k;
  double scale1, scale2;
  unsigned long long *out;
};

/* How the statistics run: the kernel, blocks and threads, the points a tile of the sorted kernel
   holds, its dynamic shared bytes, and whether the accumulators are a block's (in shared memory, added
   to `out` when the block ends) or `out` itself. */
struct stats_plan {
  int kernel, blocks, threads, tile;
  size_t shared;
  bool shared_acc;
};

/* Plans `kernel` for N, D and K on a device of `sms` SMs whose blocks may opt in to `optin` shared
   bytes (and allows the kernel its shared memory); `blocks` > 0 fixes the grid. */
cudaError_t stats_prepare(int kernel, int64_t n, int32_t d, int32_t k, int blocks, int sms, int optin,
                          stats_plan *plan);

/* Launches the planned kernel (a.out must be zeroed first). */
cudaError_t stats_launch(const stats_args &a, const stats_plan &plan, cudaStream_t stream);

}  // namespace sk_mix_gpu_detail

#endif /* SK_MIX_STATS_GPU_CUH */
