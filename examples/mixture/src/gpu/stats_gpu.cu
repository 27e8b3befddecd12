// The GPU statistics kernels (stats_gpu.cuh describes them; stats.h defines the integers they sum).
#include "gpu/stats_gpu.cuh"
#include "samplekit/block_count_sort.cuh"
#include "samplekit/warp_lane.cuh"
#include "stats.h"

namespace sk_mix_gpu_detail {
namespace {

constexpr int kStatsThreads = 512;
// The sorted kernel's tiles: about 64 points per component (so that a segment of one component is long
// against the 8 steps of a batch), at least 2,048 points and at most 16,384 (a sorted slot packs the
// component and the point's offset in the tile in 16 bits each). A lane has 8 loads of x in flight.
constexpr int kMinTile = 2048, kMaxTile = 16384, kPointsPerComponent = 64, kWalkBatch = 8;

// X and XX of one value added to a thread's sums (two's complement: the sums wrap as int64 ones do).
__device__ __forceinline__ void add_terms(float v, double scale1, double scale2, unsigned long long &sx,
                                          unsigned long long &sxx) {
  sx += (unsigned long long)sk_mix_fixed_x(v, scale1);
  sxx += (unsigned long long)sk_mix_fixed_xx(v, scale2);
}

// Adds the block's accumulators into the global ones (the ones that stayed 0 are skipped).
__device__ __forceinline__ void flush_block(const unsigned long long *sh, size_t words, unsigned long long *out) {
  __syncthreads();
  for (size_t i = threadIdx.x; i < words; i += blockDim.x)
    if (sh[i] != 0ull) atomicAdd(out + i, sh[i]);
}

// The first version: element e = (point, dimension) of x to thread e (coalesced reads), two atomics per
// element and one per point, in shared memory when `shared_acc`, else in `out`.
__global__ void __launch_bounds__(kStatsThreads) stats_atomic_kernel(stats_args a, int shared_acc) {
  extern __shared__ unsigned long long sh[];
  const int32_t d = a.d, k = a.k;
  const size_t kd = (size_t)k * (size_t)d, words = (size_t)k + 2 * kd;
  unsigned long long *acc = shared_acc ? sh : a.out;
  if (shared_acc) {
    for (size_t i = threadIdx.x; i < words; i += blockDim.x) sh[i] = 0ull;
    __syncthreads();
  }
  const int64_t elements = a.n * (int64_t)d, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < elements; e += stride) {
    const int64_t p = e < 0xffffffffll ? (int64_t)((uint32_t)e / (uint32_t)d) : e / d;
    const int32_t j = (int32_t)(e - p * d), c = a.z[p];
    const float v = a.x[e];
    const size_t at = (size_t)c * (size_t)d + (size_t)j;
    if (j == 0) atomicAdd(acc + c, 1ull);
    atomicAdd(acc + (size_t)k + at, (unsigned long long)sk_mix_fixed_x(v, a.scale1));
    atomicAdd(acc + (size_t)k + kd + at, (unsigned long long)sk_mix_fixed_xx(v, a.scale2));
  }
  if (shared_acc) flush_block(sh, words, a.out);
}

// Shared memory of the sorted kernel, each part rounded to 16 bytes: the block's accumulators (K (2 D +
// 1) integers, when they are the block's), then the block count sort's arrays: the sorted slots (4 bytes a
// point), the K key ends and its scratch (2 bytes a point): 6 bytes a point and 4 a component, as
// before the sort was samplekit's.
__host__ __device__ __forceinline__ size_t round16(size_t b) { return (b + 15u) / 16u * 16u; }
__host__ __device__ __forceinline__ size_t acc_bytes(int32_t d, int32_t k) {
  return round16(sizeof(unsigned long long) * (size_t)k * (size_t)(2 * d + 1));
}
__host__ __device__ __forceinline__ size_t tile_bytes(int tile, int32_t k) {
  return round16(4u * (size_t)tile) + round16(4u * (size_t)k) + round16(SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(tile));
}

// One warp walks the sorted slots [s0, s1), one component's segment at a time (a segment ends where the
// component's slots end, `ends[c]`, or at s1). Lane (sub, jl) = (lane / DL, lane % DL), DL = min(D,
// 32): the warp takes P = 32 / DL points a step, lane sub of them, dimension j0 + jl, and sums X and XX
// in registers, 8 steps a batch (8 independent loads in flight); the P lanes of a dimension then add
// their sums by shuffles and one lane adds the total to the accumulators (kShared: `acc` is known to be
// shared memory, where a 64-bit add is a compare-and-swap loop; else one global atomic). Lane 0 adds the
// segment's length to the component's count on the first pass: a tile's segments of one component
// add up to its count there. The trip counts depend only on the segment, so the warp never diverges
// inside it. D > 32: one pass per 32 dimensions.
template <bool kShared>
__device__ __forceinline__ void tile_walk(const uint32_t *sorted, const uint32_t *ends, int s0, int s1, const float *xt,
                                          int32_t d, int32_t k, double scale1, double scale2,
                                          unsigned long long *acc) {
  const int lane = sk_lane_id(), dl = d < 32 ? (int)d : 32, p = 32 / dl;
  const int sub = lane / dl, jl = lane - sub * dl;
  const size_t kd = (size_t)k * (size_t)d;
  for (int32_t j0 = 0; j0 < d; j0 += 32) {
    const int32_t j = j0 + jl;
    const bool mine = sub < p && j < d;
    for (int s = s0; s < s1;) {
      const uint32_t c = sk_block_count_sort_slot_key(sorted[s]);
      const int end = (int)ends[c] < s1 ? (int)ends[c] : s1;
      if (j0 == 0 && lane == 0) atomicAdd(acc + c, (unsigned long long)(end - s));
      unsigned long long sx = 0ull, sxx = 0ull;
      for (int b = s; b < end; b += p * kWalkBatch) {
        float v[kWalkBatch];
#pragma unroll
        for (int u = 0; u < kWalkBatch; ++u) {
          const int slot = b + u * p + sub;
          // X(+0) = XX(+0) = 0: the lanes past the segment add nothing
          v[u] = mine && slot < end
                     ? __ldg(xt + (size_t)sk_block_count_sort_slot_item(sorted[slot]) * (size_t)d + (size_t)j)
                     : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kWalkBatch; ++u) add_terms(v[u], scale1, scale2, sx, sxx);
      }
      // Lane sub gathers sub + o for o = 1, 2, 4, ... (tree over the P lanes of dimension jl). Raw
      // shuffles: samplekit's warp sums are of 32-bit values, and these are 64-bit.
      for (int o = 1; o < p; o <<= 1) {
        const unsigned long long ox = __shfl_down_sync(SK_FULL_MASK, sx, o * dl);
        const unsigned long long oxx = __shfl_down_sync(SK_FULL_MASK, sxx, o * dl);
        if (sub % (2 * o) == 0 && sub + o < p) sx += ox, sxx += oxx;
      }
      if (mine && sub == 0) {
        atomicAdd(acc + k + (size_t)c * (size_t)d + (size_t)j, sx);
        atomicAdd(acc + k + kd + (size_t)c * (size_t)d + (size_t)j, sxx);
      }
      s = end;
    }
  }
}

// The sorted kernel (stats_gpu.cuh). Shared memory: the accumulators (kShared), then the sorted slots,
// the key ends and the count sort's scratch of a tile.
template <bool kShared>
__global__ void __launch_bounds__(kStatsThreads, 2) stats_sorted_kernel(stats_args a, int tile) {
  extern __shared__ uint4 smem4[];
  unsigned char *const base = reinterpret_cast<unsigned char *>(smem4);
  const int32_t d = a.d, k = a.k;
  const size_t words = (size_t)k * (size_t)(2 * d + 1), skip = kShared ? acc_bytes(d, k) : 0u;
  unsigned long long *const sh = reinterpret_cast<unsigned long long *>(base);
  unsigned long long *const acc = kShared ? sh : a.out;
  uint32_t *const sorted = reinterpret_cast<uint32_t *>(base + skip);
  uint32_t *const ends = reinterpret_cast<uint32_t *>(base + skip + round16(4u * (size_t)tile));
  void *const scratch = base + skip + round16(4u * (size_t)tile) + round16(4u * (size_t)k);
  if (kShared)
    for (size_t i = threadIdx.x; i < words; i += blockDim.x) sh[i] = 0ull;  // visible after the first barrier
  const int warps = (int)(blockDim.x / 32u), warp = (int)(threadIdx.x / 32u);
  const int64_t tiles = (a.n + tile - 1) / tile;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t p0 = t * (int64_t)tile;
    const int cnt = a.n - p0 < tile ? (int)(a.n - p0) : tile;
    __syncthreads();  // the previous tile's walk has read `sorted` and the ends
    sk_block_count_sort_u32((int)threadIdx.x, (int)blockDim.x, scratch, reinterpret_cast<const uint32_t *>(a.z + p0),
                            cnt, k, ends, sorted);
    const int per = (cnt + warps - 1) / warps, s0 = warp * per, s1 = s0 + per < cnt ? s0 + per : cnt;
    tile_walk<kShared>(sorted, ends, s0, s1, a.x + (size_t)p0 * (size_t)d, d, k, a.scale1, a.scale2, acc);
  }
  if (kShared) flush_block(sh, words, a.out);
}

int clamp_tile(int32_t k) {
  const int64_t t = (int64_t)kPointsPerComponent * k;
  return (int)(t < kMinTile ? kMinTile : t > kMaxTile ? kMaxTile : t);
}

}  // namespace

cudaError_t stats_prepare(int kernel, int64_t n, int32_t d, int32_t k, int blocks, int sms, int optin,
                          stats_plan *plan) {
  const size_t acc = acc_bytes(d, k);
  const void *f;
  int64_t units;
  plan->kernel = kernel;
  plan->threads = kStatsThreads;
  if (kernel == kStatsAtomic) {
    plan->tile = 0;
    plan->shared_acc = acc <= (size_t)optin;
    plan->shared = plan->shared_acc ? acc : 0u;
    f = (const void *)stats_atomic_kernel;
    units = (n * (int64_t)d + kStatsThreads - 1) / kStatsThreads;
  } else {
    /* The largest tile up to clamp_tile(K) with which the accumulators fit too; if none does, the
       accumulators are the global ones and the tile is clamp_tile(K). */
    int tile = clamp_tile(k);
    while (tile > kMinTile && acc + tile_bytes(tile, k) > (size_t)optin) tile /= 2;
    plan->shared_acc = acc + tile_bytes(tile, k) <= (size_t)optin;
    if (!plan->shared_acc) tile = clamp_tile(k);
    plan->tile = tile;
    plan->shared = (plan->shared_acc ? acc : 0u) + tile_bytes(tile, k);
    f = plan->shared_acc ? (const void *)stats_sorted_kernel<true> : (const void *)stats_sorted_kernel<false>;
    units = (n + tile - 1) / tile;
  }
  if (plan->shared > 48u * 1024u) {
    const cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)plan->shared);
    if (e != cudaSuccess) return e;
  }
  int resident = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, f, kStatsThreads, plan->shared);
  if (e != cudaSuccess) return e;
  const int64_t full = (int64_t)sms * (resident > 0 ? resident : 1);
  plan->blocks = blocks > 0 ? blocks : (int)(units < full ? units : full);
  return cudaSuccess;
}

cudaError_t stats_launch(const stats_args &a, const stats_plan &plan, cudaStream_t stream) {
  if (a.n == 0) return cudaSuccess;
  if (plan.kernel == kStatsAtomic)
    stats_atomic_kernel<<<plan.blocks, plan.threads, plan.shared, stream>>>(a, plan.shared_acc ? 1 : 0);
  else if (plan.shared_acc)
    stats_sorted_kernel<true><<<plan.blocks, plan.threads, plan.shared, stream>>>(a, plan.tile);
  else
    stats_sorted_kernel<false><<<plan.blocks, plan.threads, plan.shared, stream>>>(a, plan.tile);
  return cudaGetLastError();
}

}  // namespace sk_mix_gpu_detail
