// Internal to samplekit::kernels: the dense segmented count, for K <=
// SK_SEGMENTED_COUNT_DENSE_MAX_KEYS. Not installed.
//
// Two kernels around a scan, with no waiting between blocks:
// 1. dense_kernel<false> writes each segment's number of distinct keys;
// 2. an exclusive sum over the segments (CUB) turns them into the output offsets;
// 3. dense_kernel<true> counts each segment again and writes its pairs at its offset.
// Blocks walk tiles (stride kDenseStride item positions; a tile owns the segments that start in
// it). Each warp owns K 16-bit counters and a K-bit bitmap in shared memory and takes whole short
// segments (<= kDenseBig keys), read straight from global memory, 32 keys per round:
// - distinct: __match_any_sync elects one lane per distinct key of the round (so equal keys, which
//   Zipf-shaped keys make common, cost one shared-memory operation); the elected lanes set the key's
//   bit, and the ballots of "was clear" count the distinct keys; then the bitmap is swept clear;
// - write: the elected lanes add their group's size to the counter and set the key's bit when the
//   counter was 0; then the warp walks the bitmap 32 words at a time, which gives the keys in
//   increasing order, writes each (key, count) and clears what it read.
// Longer segments are counted by the whole block the same way, with 32-bit shared atomics on
// counters that span every warp's area. No sort and no sweep of the counters between segments.
//
// (A single pass with a decoupled look-back was tried first: with tiles of uneven cost, blocks spent
// most of their time waiting for the slowest of the tiles in flight. Reading the keys twice is
// cheaper than that wait.)
#ifndef SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DENSE_CUH
#define SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DENSE_CUH

#include "samplekit/warp_scan.cuh"
#include "segmented_count_detail.cuh"

namespace sk_detail_segc {

constexpr int kDenseStride = 4096;
constexpr int kDenseBig = 512;   // longer segments are counted by the whole block
constexpr int kDenseUnroll = 4;  // rounds of 32 keys whose loads are in flight at once
// Segments longer than kDenseBig that start in one tile: at most stride / kDenseBig + 1.
constexpr int kDenseMaxBig = kDenseStride / kDenseBig + 1;
static_assert(kDenseBig < 65536, "short segments' counts fit 16 bits");
static_assert(kWarps >= 2, "the block's 32-bit counters use every warp's 16-bit area");

__host__ __device__ constexpr int dense_counter_words(int K) { return (K + 1) / 2; }  // per warp
__host__ __device__ constexpr int dense_bitmap_words(int K) { return (K + 31) / 32; }
// Dynamic shared memory of the dense kernels: every warp's counters, then every warp's bitmap.
__host__ __device__ constexpr size_t dense_dynamic_bytes(int K) {
  return (size_t)kWarps * (dense_counter_words(K) + dense_bitmap_words(K)) * sizeof(uint32_t);
}

struct dense_shared {
  int big[kDenseMaxBig];  // the tile's segments longer than kDenseBig
  int num_big;
  int block_distinct;
};

// The per-warp and block-wide views of the dynamic shared memory.
struct dense_bins {
  uint16_t *counters;        // this warp's K counters
  uint32_t *bitmap;          // this warp's K bits
  uint32_t *block_counters;  // K 32-bit counters over every warp's counter area (block path)
  uint32_t *block_bitmap;    // warp 0's bitmap (block path)
};

__device__ dense_bins dense_bins_of(uint32_t *dynamic, int K) {
  const int warp = threadIdx.x / SK_WARP_SIZE;
  dense_bins b;
  b.counters = (uint16_t *)(dynamic + warp * dense_counter_words(K));
  b.bitmap = dynamic + kWarps * dense_counter_words(K) + warp * dense_bitmap_words(K);
  b.block_counters = dynamic;
  b.block_bitmap = dynamic + kWarps * dense_counter_words(K);
  for (int i = threadIdx.x; i < kWarps * (dense_counter_words(K) + dense_bitmap_words(K)); i += kThreads) dynamic[i] = 0;
  __syncthreads();
  return b;
}

// --- one warp, one short segment -------------------------------------------------------------------

// The distinct keys of items [start, end) (every lane): the elected lanes set their key's bit, and
// a bit that was clear is a new key. Leaves the bitmap clear (a sweep of K / 32 words, cheaper than
// reading the keys again).
__device__ int dense_warp_distinct(const params &p, uint32_t *bitmap, int start, int end, int lane) {
  int distinct = 0;
  for (int i0 = start; i0 < end; i0 += SK_WARP_SIZE * kDenseUnroll) {
    uint32_t key[kDenseUnroll];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const int i = i0 + u * SK_WARP_SIZE + lane;
      key[u] = i < end ? key_of(p, i) : 0xffffffffu;  // never a real key
    }
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const uint32_t k = key[u];
      const unsigned group = __match_any_sync(SK_FULL_MASK, k);
      bool is_new = false;
      if (k != 0xffffffffu && __ffs(group) - 1 == lane) {
        const uint32_t bit = 1u << (k % 32);
        is_new = (atomicOr(bitmap + k / 32, bit) & bit) == 0;  // elected lanes may share a word
      }
      distinct += __popc(__ballot_sync(SK_FULL_MASK, is_new));
    }
  }
  __syncwarp();
  for (int w = lane; w < dense_bitmap_words(p.num_keys); w += SK_WARP_SIZE) bitmap[w] = 0;
  __syncwarp();
  return distinct;
}

// Adds items [start, end): one elected lane per distinct key of a round adds its group's size to
// the key's counter and sets the key's bit when the counter was 0.
__device__ void dense_warp_add(const params &p, uint32_t *bitmap, uint16_t *counters, int start, int end, int lane) {
  for (int i0 = start; i0 < end; i0 += SK_WARP_SIZE * kDenseUnroll) {
    uint32_t key[kDenseUnroll];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const int i = i0 + u * SK_WARP_SIZE + lane;
      key[u] = i < end ? key_of(p, i) : 0xffffffffu;
    }
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const uint32_t k = key[u];
      const unsigned group = __match_any_sync(SK_FULL_MASK, k);
      if (k != 0xffffffffu && __ffs(group) - 1 == lane) {
        const uint16_t c = counters[k];
        if (c == 0) atomicOr(bitmap + k / 32, 1u << (k % 32));  // other elected lanes may share the word
        counters[k] = (uint16_t)(c + __popc(group));
      }
      __syncwarp();
    }
  }
}

// One warp walks a bitmap in key order and writes each (key, count) from out, clearing the bitmap
// and the counters it read.
template <typename Counter>
__device__ void dense_warp_extract(uint32_t *bitmap, Counter *counters, const params &p, long long out, int lane) {
  const int words = dense_bitmap_words(p.num_keys);
  for (int w0 = 0; w0 < words; w0 += SK_WARP_SIZE) {
    const int w = w0 + lane;
    uint32_t word = w < words ? bitmap[w] : 0u;
    if (__ballot_sync(SK_FULL_MASK, word != 0) == 0) continue;
    const uint32_t found = (uint32_t)__popc(word);
    const uint32_t before = sk_warp_exclusive_sum_u32(SK_FULL_MASK, found);
    long long j = out + before;
    out += __shfl_sync(SK_FULL_MASK, before + found, SK_WARP_SIZE - 1);
    if (word != 0) bitmap[w] = 0;
    while (word != 0) {
      const uint32_t k = (uint32_t)w * 32 + (uint32_t)(__ffs(word) - 1);
      word &= word - 1;
      write_pair(p, j++, k, (uint32_t)counters[k]);
      counters[k] = 0;
    }
  }
}

// --- the whole block, one long segment -------------------------------------------------------------

// The distinct keys of items [start, end) (every thread); leaves the block bitmap clear.
__device__ int dense_block_distinct(dense_shared &sm, const dense_bins &bins, const params &p, int start, int end) {
  const int tid = threadIdx.x, lane = tid % SK_WARP_SIZE;
  if (tid == 0) sm.block_distinct = 0;
  __syncthreads();
  int distinct = 0;
  // Warp-uniform rounds of 32 keys, kDenseUnroll rounds' loads in flight.
  for (int i0 = start + (tid - lane); i0 < end; i0 += kThreads * kDenseUnroll) {
    uint32_t key[kDenseUnroll];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const int i = i0 + u * kThreads + lane;
      key[u] = i < end ? key_of(p, i) : 0xffffffffu;
    }
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const uint32_t k = key[u];
      const unsigned group = __match_any_sync(SK_FULL_MASK, k);
      bool is_new = false;
      if (k != 0xffffffffu && __ffs(group) - 1 == lane) {
        const uint32_t bit = 1u << (k % 32);
        is_new = (atomicOr(bins.block_bitmap + k / 32, bit) & bit) == 0;
      }
      distinct += __popc(__ballot_sync(SK_FULL_MASK, is_new));
    }
  }
  if (lane == 0) atomicAdd(&sm.block_distinct, distinct);
  __syncthreads();
  const int total = sm.block_distinct;
  for (int w = tid; w < dense_bitmap_words(p.num_keys); w += kThreads) bins.block_bitmap[w] = 0;
  __syncthreads();
  return total;
}

// Counts items [start, end) block-wide, then warp 0 writes the pairs from out.
__device__ void dense_block_write(const dense_bins &bins, const params &p, int start, int end, long long out) {
  const int tid = threadIdx.x, lane = tid % SK_WARP_SIZE;
  for (int i0 = start + (tid - lane); i0 < end; i0 += kThreads * kDenseUnroll) {
    uint32_t key[kDenseUnroll];
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const int i = i0 + u * kThreads + lane;
      key[u] = i < end ? key_of(p, i) : 0xffffffffu;
    }
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) {
      const uint32_t k = key[u];
      const unsigned group = __match_any_sync(SK_FULL_MASK, k);
      if (k != 0xffffffffu && __ffs(group) - 1 == lane) {
        if (atomicAdd(bins.block_counters + k, (uint32_t)__popc(group)) == 0)
          atomicOr(bins.block_bitmap + k / 32, 1u << (k % 32));
      }
    }
  }
  __syncthreads();
  if (tid < SK_WARP_SIZE) dense_warp_extract(bins.block_bitmap, bins.block_counters, p, out, lane);
  __syncthreads();  // counters and bitmap clear again for every warp
}

// --- the kernels ------------------------------------------------------------------------------------

// The two dense kernels, one tile loop. kWrite false (kernel 1): d_distinct[s] = the distinct keys
// of segment s, and d_distinct[S] = 0. kWrite true (kernel 3): every segment's pairs at
// p.out_offsets[s], already the exclusive sum of kernel 1's counts. Blocks stride over the tiles, so
// a block zeroes its bins once.
template <bool kWrite>
__global__ void __launch_bounds__(kThreads) dense_kernel(params p, int *d_distinct) {
  __shared__ dense_shared sm;
  extern __shared__ uint32_t dense_dynamic[];
  const int tid = threadIdx.x, warp = tid / SK_WARP_SIZE, lane = tid % SK_WARP_SIZE;
  const dense_bins bins = dense_bins_of(dense_dynamic, p.num_keys);
  for (int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    int seg_begin, seg_end;
    tile_segments(p, tile, &seg_begin, &seg_end);
    if (tid == 0) sm.num_big = 0;
    __syncthreads();
    // Short segments: a warp each. Long ones are listed for the whole block, after.
    for (int s = seg_begin + warp; s < seg_end; s += kWarps) {
      const int start = offset_at(p, s), end = offset_at(p, s + 1);
      if (end - start > kDenseBig) {
        if (lane == 0) {
          const int b = atomicAdd(&sm.num_big, 1);
          if (b < kDenseMaxBig) sm.big[b] = s;  // more only with bad offsets: left out
        }
      } else if (kWrite) {
        if (end <= start) continue;
        dense_warp_add(p, bins.bitmap, bins.counters, start, end, lane);
        dense_warp_extract(bins.bitmap, bins.counters, p, p.out_offsets[s], lane);
        __syncwarp();
      } else {
        const int distinct = end > start ? dense_warp_distinct(p, bins.bitmap, start, end, lane) : 0;
        if (lane == 0) d_distinct[s] = distinct;
      }
    }
    __syncthreads();  // every warp done with its own bins before the block's span them
    const int num_big = sm.num_big < kDenseMaxBig ? sm.num_big : kDenseMaxBig;
    for (int b = 0; b < num_big; ++b) {
      const int s = sm.big[b], start = offset_at(p, s), end = offset_at(p, s + 1);
      if (kWrite) {
        dense_block_write(bins, p, start, end, p.out_offsets[s]);
      } else {
        const int distinct = dense_block_distinct(sm, bins, p, start, end);
        if (tid == 0) d_distinct[s] = distinct;
      }
    }
    if (!kWrite && tile == p.num_tiles - 1 && tid == 0) d_distinct[p.num_segments] = 0;
    __syncthreads();  // every thread has read sm.num_big and sm.big before the next tile resets them
  }
}

}  // namespace sk_detail_segc

#endif  // SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DENSE_CUH
