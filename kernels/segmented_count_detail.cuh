// Internal to samplekit::kernels: what the two segmented-count kernels share (segmented_count.cu
// includes this, segmented_count_sorted.cuh and segmented_count_dense.cuh). Not installed.
//
// Both kernels walk tiles in order: tile t owns the segments that start at item positions
// [t stride, (t + 1) stride). Every owned segment but the last starts less than `stride` positions
// after the first, so all but the last fit in a piece of 2 x stride items; the last joins them when it
// fits, else it is counted apart. A block counts its tile's pairs before writing any, publishes the
// total, finds the pairs of the tiles before it by a decoupled look-back (Merrill and Garland, 2016),
// then writes everything in its final place: one pass, and no tile waits for another's writes.
#ifndef SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DETAIL_CUH
#define SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DETAIL_CUH

#include <cuda/atomic>
#include <cub/block/block_scan.cuh>

#include "samplekit/segmented_count.h"
#include "samplekit/sk_config.h"

namespace sk_detail_segc {

constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kWarps = kThreads / SK_WARP_SIZE;
constexpr int kTile = SK_SEGMENTED_COUNT_TILE_ITEMS;
static_assert(kThreads * kItems == kTile, "a tile is the block's keys");
constexpr int kSharedBins = 2 * kTile;  // the sorted kernel's pair arrays, reused as a histogram
constexpr int kWindow = SK_SEGMENTED_COUNT_WINDOW;

// Look-back words: flag in bits 62-63, value below.
constexpr unsigned long long kFlagAggregate = 1ull << 62;
constexpr unsigned long long kFlagPrefix = 2ull << 62;
constexpr unsigned long long kValueMask = (1ull << 62) - 1;

typedef cub::BlockScan<int, kThreads> block_scan;

struct params {
  const int32_t *offsets;
  int num_segments;
  int num_items;
  const uint32_t *keys;
  const int32_t *perm;
  int num_keys;
  int key_bits;
  int32_t *out_offsets;
  uint32_t *out_keys;
  uint32_t *out_counts;
  int capacity;
  int stride;  // item positions per tile
  int num_tiles;
  unsigned long long *tile_status;
  int *tile_counter;
  const int *tile_segment;  // num_tiles + 1 entries: the first segment starting at or after t stride
  uint32_t *global_bins;    // `window` counters per block, for long segments
  int window;
};

// Offsets clamped into [0, n]: bad offsets give a wrong answer, never a wild access.
__device__ __forceinline__ int offset_at(const params &p, int s) {
  const int v = __ldg(p.offsets + s);
  return v < 0 ? 0 : (v > p.num_items ? p.num_items : v);
}

__device__ __forceinline__ uint32_t key_of(const params &p, int item) {
  int source = item;
  if (p.perm != nullptr) {
    source = __ldg(p.perm + item);
    if ((unsigned)source >= (unsigned)p.num_items) source = 0;
  }
  const uint32_t k = __ldg(p.keys + source);
  return k < (uint32_t)p.num_keys ? k : (uint32_t)(p.num_keys - 1);
}

__device__ __forceinline__ void write_pair(const params &p, long long j, uint32_t key, uint32_t count) {
  if (j >= 0 && j < p.capacity) {  // j < 0 only from bad offsets
    p.out_keys[j] = key;
    p.out_counts[j] = count;
  }
}

__device__ __forceinline__ int bit_length(unsigned v) { return v == 0 ? 0 : 32 - __clz(v); }


// The segment s's items inside a piece at base, clamped to [0, items].
__device__ __forceinline__ void piece_range(const params &p, int s, int base, int items, int *start, int *end) {
  int a = offset_at(p, s) - base, b = offset_at(p, s + 1) - base;
  a = a < 0 ? 0 : (a > items ? items : a);
  b = b < a ? a : (b > items ? items : b);
  *start = a;
  *end = b;
}

// Tile t starts at the first segment s with offsets[s] >= t stride: segment s is the first of the
// tiles t in (offsets[s - 1] / stride, offsets[s] / stride], and S of those after the last start. A
// search per tile would be a chain of dependent loads; this writes each entry once, in parallel.
__global__ void tile_segments_kernel(params p, int *tile_segment) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s <= p.num_segments;
       s += (long long)gridDim.x * blockDim.x) {
    const int first = s == 0 ? 0 : offset_at(p, (int)s - 1) / p.stride + 1;
    const int last = s == p.num_segments ? p.num_tiles : offset_at(p, (int)s) / p.stride;
    for (int t = first; t <= last; ++t) tile_segment[t] = (int)s;
  }
}

// The tile's first and end segment, clamped so that bad offsets cannot send a block outside the arrays.
__device__ __forceinline__ void tile_segments(const params &p, int tile, int *seg_begin, int *seg_end) {
  int b = __ldg(p.tile_segment + tile), e = __ldg(p.tile_segment + tile + 1);
  b = b < 0 ? 0 : (b > p.num_segments ? p.num_segments : b);
  e = e < b ? b : (e > p.num_segments ? p.num_segments : e);
  *seg_begin = b;
  *seg_end = e;
}

// (Relaxed atomics: each status word carries its whole message, so no other memory needs ordering,
// and an acquire load would invalidate L1 on every poll.)
// Warp 0: the pairs of the tiles before this one, by a decoupled look-back 32 tiles at a time (lane
// l reads tile j - l), then this tile's inclusive prefix is published. Tile 0 needs no look-back.
__device__ long long look_back(const params &p, int tile, long long total) {
  typedef cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> status_ref;
  const int lane = threadIdx.x;
  if (tile == 0) {
    if (lane == 0) status_ref(p.tile_status[0]).store(kFlagPrefix | (unsigned long long)total, cuda::memory_order_relaxed);
    return 0;
  }
  if (lane == 0) status_ref(p.tile_status[tile]).store(kFlagAggregate | (unsigned long long)total, cuda::memory_order_relaxed);
  long long below = 0;
  for (int j = tile - 1;;) {
    const int index = j - lane;
    // Before tile 0 reads as a prefix of 0, so a window always ends the walk there.
    const unsigned long long word =
        index >= 0 ? status_ref(p.tile_status[index]).load(cuda::memory_order_relaxed) : kFlagPrefix;
    const unsigned ready = __ballot_sync(SK_FULL_MASK, word != 0);
    const unsigned prefixes = __ballot_sync(SK_FULL_MASK, (word & kFlagPrefix) != 0);
    // Only the tiles up to the nearest prefix matter: a slow tile further back must not stall this
    // one (tile costs are uneven: one long segment makes a slow tile).
    const int last = prefixes ? __ffs(prefixes) - 1 : 31;
    const unsigned needed = last == 31 ? SK_FULL_MASK : (2u << last) - 1u;
    if ((ready & needed) != needed) {  // a tile not counted yet: its block started earlier
      __nanosleep(20);
      continue;
    }
    long long value = lane <= last ? (long long)(word & kValueMask) : 0;
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(SK_FULL_MASK, value, offset);
    below += __shfl_sync(SK_FULL_MASK, value, 0);
    if (prefixes) break;
    j -= 32;
  }
  if (lane == 0) status_ref(p.tile_status[tile]).store(kFlagPrefix | (unsigned long long)(below + total), cuda::memory_order_relaxed);
  return below;
}

// Dense count of the keys in [key0, key0 + width) of items [base, base + items) into bins[0, width).
__device__ __forceinline__ void histogram_window(uint32_t *bins, const params &p, int base, int items, int key0,
                                                 int width) {
  for (int b = threadIdx.x; b < width; b += kThreads) bins[b] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < items; i += kThreads) {
    const unsigned k = key_of(p, base + i) - (unsigned)key0;
    if (k < (unsigned)width) atomicAdd(bins + k, 1u);
  }
  __syncthreads();
}

// Non-zero bins of bins[0, width): their number (count only) or, with write, the pairs from out_base.
__device__ int compact_window(block_scan::TempStorage &scan, const uint32_t *bins, const params &p, int key0, int width,
                              bool write, long long out_base) {
  int written = 0;
  for (int chunk = 0; chunk < width; chunk += kTile) {
    int flag[kItems], rank[kItems], found;
    uint32_t value[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int b = chunk + threadIdx.x * kItems + i;
      value[i] = b < width ? bins[b] : 0u;
      flag[i] = value[i] != 0;
    }
    block_scan(scan).ExclusiveSum(flag, rank, found);
    __syncthreads();
    if (write) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        if (flag[i]) write_pair(p, out_base + written + rank[i], (uint32_t)(key0 + chunk + threadIdx.x * kItems + i), value[i]);
      }
    }
    written += found;
  }
  return written;
}

// A segment longer than a piece, counted in key windows: in shared_bins (kSharedBins counters) when
// given and K fits there, else in this block's window of the workspace. Phase "count" returns its
// pairs; phase "write" writes them from out_base. With one window the count phase's histogram is
// reused, so nothing may touch the bins between the two phases.
__device__ int count_long(block_scan::TempStorage &scan, uint32_t *shared_bins, const params &p, int base, int items,
                          bool write, long long out_base) {
  const bool shared = shared_bins != nullptr && p.num_keys <= kSharedBins;
  uint32_t *const global = p.global_bins + (size_t)blockIdx.x * p.window;
  const int width = shared ? p.num_keys : p.window;
  const bool reuse = p.num_keys <= width && write;
  int pairs = 0;
  for (int key0 = 0; key0 < p.num_keys; key0 += width) {
    const int w = p.num_keys - key0 < width ? p.num_keys - key0 : width;
    if (shared) {
      if (!reuse) histogram_window(shared_bins, p, base, items, key0, w);
      pairs += compact_window(scan, shared_bins, p, key0, w, write, out_base + pairs);
    } else {
      if (!reuse) histogram_window(global, p, base, items, key0, w);
      pairs += compact_window(scan, global, p, key0, w, write, out_base + pairs);
    }
  }
  return pairs;
}

}  // namespace sk_detail_segc

#endif  // SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DETAIL_CUH
