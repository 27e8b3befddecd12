// Internal to samplekit::kernels: the dense segmented count, for K <=
// SK_SEGMENTED_COUNT_DENSE_MAX_KEYS. Not installed.
//
// Two kernels around a scan, with no waiting between blocks:
// 1. dense_kernel<false> writes each segment's number of distinct keys;
// 2. an exclusive sum over the segments (CUB) turns them into the output offsets;
// 3. dense_kernel<true> counts each segment again and writes its pairs at its offset.
// Blocks walk tiles (stride kDenseStride item positions; a tile owns the segments that start in
// it). A warp takes whole short segments (<= kDenseBig keys; the tile's next one when it is done),
// read straight from global memory, 32 keys per round, every lane with its own shared-memory atomic
// (equal keys in a round conflict, which the hardware serialises; electing one lane per key with
// __match_any_sync measured 1.3 to 1.6x slower). Each warp owns a K-bit bitmap, whose words
// [l run, (l + 1) run) belong to lane l (run: a power of two), and owner masks with a bit per owned
// word that holds a key (one mask a lane up to K = 32,768, where a run is 32 words; two at 65,536); so
// the steps below cost the segment's distinct keys, not K / 32 words.
// - distinct: each lane sets its key's bit; a bit that was clear is a new key; the owner masks say
//   which words to clear after.
// - write, by rank (a key's rank is its place among the segment's distinct keys, so rank order is
//   the output order): (1) each lane sets its key's bit; (2) each lane adds up the popcounts of its
//   marked words, one warp scan gives every marked word's first rank, and the keys are written;
//   (3) each lane adds 1 to the counter of its key's rank; (4) the counters are written, coalesced,
//   and everything is cleared. A segment of one or two rounds of loads keeps its keys in registers
//   between (1) and (3).
//   Counting by rank keeps a warp's shared memory at K / 8 + K / 16 + 128 + 4 kDenseBig bytes (2
//   kDenseBig above kDenseWideKeys), where a counter per key needed 2 K: at K = 10,000 that was
//   170 KiB per block of 8 warps, one block per SM, and 6x slower per item than at K = 1,000; now
//   8 blocks of 8 warps fit on an SM up to K = 10,240, and 2 (106 KiB each) at K = 65,536, where the
//   sorted path, with its radix passes over 16 key bits, was slower (bench/RESULTS.md, issue 32).
// Longer segments are counted by the whole block in the same steps, over every warp's area, with
// 32-bit counters by key when K of them fit, else by rank (dense_block_write).
//
// (A single pass with a decoupled look-back was tried first: with tiles of uneven cost, blocks spent
// most of their time waiting for the slowest of the tiles in flight. Reading the keys twice is
// cheaper than that wait.)
#ifndef SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DENSE_CUH
#define SAMPLEKIT_KERNELS_SEGMENTED_COUNT_DENSE_CUH

#include "samplekit/warp_scan.cuh"
#include "segmented_count_detail.cuh"

namespace sk_detail_segc {

// Tiles of 8192 positions, and warps that take a tile's next short segment as they finish (rather
// than every kWarps-th in turn): with long-tailed lengths the warps of a 4096-position tile spent
// 35-45% of their cycles at the tile's barrier; together 1.18x faster at NYTimes K = 1,000.
constexpr int kDenseStride = 8192;
constexpr int kDenseBig = 512;  // longer segments are counted by the whole block (2048 measured slower)
constexpr int kDenseUnroll = 4;  // rounds of 32 keys whose loads are in flight at once (2 and 8: no faster)
// Segments longer than kDenseBig that start in one tile: at most stride / kDenseBig + 1.
constexpr int kDenseMaxBig = kDenseStride / kDenseBig + 1;
// A rank is below the segment's distinct keys, so below K: 16 bits hold it up to K = 65,536.
static_assert(SK_SEGMENTED_COUNT_DENSE_MAX_KEYS <= 65536 && kDenseBig <= 65535, "ranks fit 16 bits");

__host__ __device__ constexpr int dense_bitmap_words(int K) { return (K + 31) / 32; }
// log2 of the bitmap words a lane owns: the least power of two that 32 lanes cover the bitmap with.
// A loop, not a recursion: the kernels evaluate it with a run-time K, and the layout's helpers below
// call it several times (kept out of the kernels' loops, see dense_bins_of()).
__host__ __device__ constexpr int dense_run_shift(int K) {
  int shift = 0;
  while ((SK_WARP_SIZE << shift) < dense_bitmap_words(K)) ++shift;
  return shift;
}
__host__ __device__ constexpr int dense_rank_words(int K) { return (dense_bitmap_words(K) + 1) / 2; }  // 16 bits each
// The owner masks: a bit per bitmap word, 32 to a mask, so a lane has 2^(run shift - 5) masks when it
// owns more than 32 words (above K = 32,768), else one mask of 2^(run shift) bits. log2 of the bitmap
// words a mask covers:
__host__ __device__ constexpr int dense_owner_shift(int K) { return dense_run_shift(K) < 5 ? dense_run_shift(K) : 5; }
__host__ __device__ constexpr int dense_owner_words(int K) {
  return SK_WARP_SIZE << (dense_run_shift(K) - dense_owner_shift(K));
}
// A lane's owner masks, the kernels' template argument kMasks: 1, or 2 above K = 32,768 (a separate
// instance, so that the kernels of smaller K keep their one mask's registers and loops).
__host__ __device__ constexpr int dense_lane_masks_for(int K) { return dense_owner_words(K) / SK_WARP_SIZE; }
static_assert(dense_lane_masks_for(SK_SEGMENTED_COUNT_DENSE_MAX_KEYS) <= 2, "at most two owner masks a lane");
constexpr int kDenseOneMaskKeys = 32 * 32 * 32;  // the largest K of the one-mask instances
static_assert(dense_lane_masks_for(kDenseOneMaskKeys) == 1 && dense_lane_masks_for(kDenseOneMaskKeys + 1) == 2 &&
                  kDenseOneMaskKeys <= SK_SEGMENTED_COUNT_DENSE_MAX_KEYS,
              "the one-mask instances end at 32 lanes x 32 words x 32 keys");
// The warp's counters by rank: 32-bit up to this K, above it 16-bit, two to a word (a short
// segment's counts fit 16 bits), which keeps 8 blocks on an SM to K = 10,240 but makes neighbouring
// ranks' atomics conflict (measured 9% slower at K = 1,000).
constexpr int kDenseWideKeys = 4096;  // 32-bit ones up to 10,240: 6 blocks per SM, 5-14% slower at 10,000
__host__ __device__ constexpr int dense_counter_shift(int K) { return K <= kDenseWideKeys ? 0 : 1; }
// Per warp (32-bit words): the bitmap and the owner masks; the write kernel adds each bitmap word's
// first rank and the counters.
__host__ __device__ constexpr int dense_warp_words(int K, bool write) {
  return dense_bitmap_words(K) + dense_owner_words(K) +
         (write ? dense_rank_words(K) + (kDenseBig >> dense_counter_shift(K)) : 0);
}
// Dynamic shared memory words: the warps' areas. The block path lays its bitmap, ranks and 32-bit
// counters over all of them (the write kernel's counters: dense_block_window of them).
__host__ __device__ constexpr int dense_dynamic_words(int K, bool write) { return kWarps * dense_warp_words(K, write); }
__host__ __device__ constexpr int dense_block_window(int K) {
  return dense_dynamic_words(K, true) - dense_bitmap_words(K) - dense_rank_words(K);
}
static_assert(kDenseBig % 2 == 0 && kWarps >= 2, "counters pair up; the block window is at least kDenseBig");
__host__ __device__ constexpr size_t dense_dynamic_bytes(int K, bool write) {
  return (size_t)dense_dynamic_words(K, write) * sizeof(uint32_t);
}

typedef cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS> dense_block_scan;  // small storage

struct dense_shared {
  int big[kDenseMaxBig];  // the tile's segments longer than kDenseBig
  int num_big;
  int next_segment;  // the tile's next short segment for a warp to take
  int block_distinct;
  dense_block_scan::TempStorage scan;
};

// The per-warp and block-wide views of the dynamic shared memory. Every byte is zero between
// segments (each step clears what it set), so the two views can overlap.
struct dense_bins {
  uint32_t *bitmap;          // this warp's K bits
  uint32_t *owner;           // this warp's owner masks: bit i of owner[m] = word (m << owner_shift) + i is marked;
                             // lane l owns masks [l kMasks, (l + 1) kMasks)
  uint16_t *first_rank;      // write kernel: the rank of each marked word's first key
  uint32_t *counters;        // write kernel: kDenseBig counters by rank (rank r: bits 16 (r & cs) of word r >> cs)
  int counter_shift;         // cs: 0, a word per counter, or 1, two
  uint32_t *block_bitmap;    // block path: K bits
  uint16_t *block_first_rank;  // block path, write kernel: the rank of each marked word's first key
  uint32_t *block_counters;  // block path, write kernel: dense_block_window counters, by rank
  int owner_shift;  // log2 of the bitmap words a mask covers (the lane's run, at most 32)
  int block_window;  // block path, write kernel: dense_block_window(K)
};

// The layout's sizes are computed once here: evaluated in a loop's bound, they cost small inputs,
// whose blocks do little else (kos at K = 10,000: about 10 us a call, bench/RESULTS.md, issue 32).
template <bool kWrite>
__device__ dense_bins dense_bins_of(uint32_t *dynamic, int K) {
  const int warp = threadIdx.x / SK_WARP_SIZE, words = dense_bitmap_words(K), owner_words = dense_owner_words(K);
  const int total = dense_dynamic_words(K, kWrite);
  uint32_t *mine = dynamic + warp * (total / kWarps);
  dense_bins b;
  b.bitmap = mine;
  b.owner = mine + words;
  b.first_rank = kWrite ? (uint16_t *)(mine + words + owner_words) : nullptr;
  b.counters = kWrite ? mine + words + owner_words + dense_rank_words(K) : nullptr;
  b.block_bitmap = dynamic;  // the distinct kernel: warp 0's bitmap
  b.block_first_rank = kWrite ? (uint16_t *)(dynamic + words) : nullptr;
  b.block_counters = kWrite ? dynamic + words + dense_rank_words(K) : nullptr;
  b.owner_shift = dense_owner_shift(K);
  b.block_window = total - words - dense_rank_words(K);  // dense_block_window(K) in the write kernel
  b.counter_shift = dense_counter_shift(K);
  for (int i = threadIdx.x; i < total; i += kThreads) dynamic[i] = 0;
  __syncthreads();
  return b;
}

// --- one warp, one short segment -------------------------------------------------------------------

constexpr uint32_t kNoKey = 0xffffffffu;  // never a real key: lanes past the segment's end

// One round of loads: kDenseUnroll rounds' keys, whose warp's first item is i0 and whose rounds
// step kSpan items (32 when the warp has the segment alone, the block's threads when it shares it).
template <int kSpan>
__device__ __forceinline__ void dense_load(const params &p, int i0, int end, int lane, uint32_t (&key)[kDenseUnroll]) {
#pragma unroll
  for (int u = 0; u < kDenseUnroll; ++u) {
    const int i = i0 + u * kSpan + lane;
    key[u] = i < end ? key_of(p, i) : kNoKey;
  }
}

// f(key) for every key of the warp's rounds from `first` (kNoKey past `end`; the warp together).
template <int kSpan, typename F>
__device__ __forceinline__ void dense_rounds(const params &p, int first, int end, int lane, F f) {
  for (int i0 = first; i0 < end; i0 += kSpan * kDenseUnroll) {
    uint32_t key[kDenseUnroll];
    dense_load<kSpan>(p, i0, end, lane, key);
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) f(key[u]);
  }
}

// Sets key k's bit; true when it was clear. The first key of a word also marks the word's owner.
__device__ __forceinline__ bool dense_mark(const dense_bins &b, uint32_t k) {
  const uint32_t w = k / 32, bit = 1u << (k % 32);
  const uint32_t old = atomicOr(b.bitmap + w, bit);
  if (old == 0) atomicOr(b.owner + (w >> b.owner_shift), 1u << (w & ((1u << b.owner_shift) - 1u)));
  return (old & bit) == 0;
}

// The bitmap word of mask m's lowest set bit.
__device__ __forceinline__ int dense_owned_word(const dense_bins &b, int m, uint32_t mask) {
  return (m << b.owner_shift) + __ffs(mask) - 1;
}

// This lane's owner masks, read into registers.
template <int kMasks>
__device__ __forceinline__ void dense_lane_masks(const dense_bins &b, int lane, uint32_t (&owned)[kMasks]) {
#pragma unroll
  for (int i = 0; i < kMasks; ++i) owned[i] = b.owner[lane * kMasks + i];
}

// Clears this lane's marked words (and, writing, their first ranks) and its owner masks (owned: as
// dense_lane_masks() read them).
template <bool kWrite, int kMasks>
__device__ __forceinline__ void dense_clear_owned(const dense_bins &b, int lane, const uint32_t (&owned)[kMasks]) {
#pragma unroll
  for (int i = 0; i < kMasks; ++i) {
    const int m = lane * kMasks + i;
    for (uint32_t mask = owned[i]; mask != 0; mask &= mask - 1) {
      const int w = dense_owned_word(b, m, mask);
      b.bitmap[w] = 0;
      if (kWrite) b.first_rank[w] = 0;
    }
    b.owner[m] = 0;
  }
}

// The distinct keys of items [start, end) (every lane); leaves the warp's bins clear.
template <int kMasks>
__device__ int dense_warp_distinct(const params &p, const dense_bins &b, int start, int end, int lane) {
  unsigned distinct = 0;
  dense_rounds<SK_WARP_SIZE>(p, start, end, lane, [&](uint32_t k) {
    if (k != kNoKey) distinct += dense_mark(b, k) ? 1u : 0u;
  });
  __syncwarp();
  uint32_t owned[kMasks];
  dense_lane_masks<kMasks>(b, lane, owned);
  dense_clear_owned<false, kMasks>(b, lane, owned);
  __syncwarp();
  return (int)sk_warp_sum_u32(SK_FULL_MASK, distinct);
}

// Steps (1) to (3) of a segment of kBatches rounds of loads at most: the keys stay in registers.
template <int kBatches, typename Mark, typename Rank, typename Count>
__device__ __forceinline__ void dense_warp_kept(const params &p, int start, int end, int lane, Mark mark,
                                                Rank rank_words, Count count) {
  uint32_t key[kBatches][kDenseUnroll];
#pragma unroll
  for (int a = 0; a < kBatches; ++a)
    dense_load<SK_WARP_SIZE>(p, start + a * SK_WARP_SIZE * kDenseUnroll, end, lane, key[a]);
#pragma unroll
  for (int a = 0; a < kBatches; ++a)
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) mark(key[a][u]);
  rank_words();
#pragma unroll
  for (int a = 0; a < kBatches; ++a)
#pragma unroll
    for (int u = 0; u < kDenseUnroll; ++u) count(key[a][u]);
}

// Counts items [start, end) by rank and writes the segment's pairs from out (the file comment's
// steps); leaves the warp's bins clear.
template <int kMasks>
__device__ void dense_warp_write(const params &p, const dense_bins &b, int start, int end, long long out, int lane) {
  auto mark = [&](uint32_t k) {
    if (k != kNoKey) dense_mark(b, k);
  };
  auto count = [&](uint32_t k) {
    if (k != kNoKey) {
      const uint32_t below = b.bitmap[k / 32] & ((1u << (k % 32)) - 1u);
      const uint32_t r = b.first_rank[k / 32] + (uint32_t)__popc(below), cs = (uint32_t)b.counter_shift;
      atomicAdd(b.counters + (r >> cs), 1u << ((r & cs) * 16));  // no carry: a count is at most kDenseBig
    }
  };
  // (2) Every marked word's first rank, and the keys in rank order.
  uint32_t owned[kMasks], distinct = 0;  // this lane's owner masks (its words in increasing order)
  auto rank_words = [&]() {
    __syncwarp();
    dense_lane_masks<kMasks>(b, lane, owned);
    uint32_t mine = 0;
#pragma unroll
    for (int i = 0; i < kMasks; ++i)
      for (uint32_t mask = owned[i]; mask != 0; mask &= mask - 1)
        mine += (uint32_t)__popc(b.bitmap[dense_owned_word(b, lane * kMasks + i, mask)]);
    uint32_t rank = sk_warp_exclusive_sum_u32(SK_FULL_MASK, mine);
    distinct = __shfl_sync(SK_FULL_MASK, rank + mine, SK_WARP_SIZE - 1);
#pragma unroll
    for (int i = 0; i < kMasks; ++i)
      for (uint32_t mask = owned[i]; mask != 0; mask &= mask - 1) {
        const int w = dense_owned_word(b, lane * kMasks + i, mask);
        b.first_rank[w] = (uint16_t)rank;
        for (uint32_t word = b.bitmap[w]; word != 0; word &= word - 1, ++rank) {
          const long long j = out + rank;
          if (j >= 0 && j < p.capacity) p.out_keys[j] = (uint32_t)w * 32 + (uint32_t)(__ffs(word) - 1);
        }
      }
    __syncwarp();
  };
  if (end - start <= SK_WARP_SIZE * kDenseUnroll) {
    dense_warp_kept<1>(p, start, end, lane, mark, rank_words, count);  // most short segments
  } else if (end - start <= 2 * SK_WARP_SIZE * kDenseUnroll) {
    dense_warp_kept<2>(p, start, end, lane, mark, rank_words, count);
  } else {
    dense_rounds<SK_WARP_SIZE>(p, start, end, lane, mark);  // (1)
    rank_words();
    dense_rounds<SK_WARP_SIZE>(p, start, end, lane, count);  // (3)
  }
  __syncwarp();
  // (4) Write the counts; clear the counters, the marked words, their ranks and the owner masks.
  const uint32_t cs = (uint32_t)b.counter_shift;
  for (uint32_t r = (uint32_t)lane; r < distinct; r += SK_WARP_SIZE) {
    const long long j = out + r;
    if (j >= 0 && j < p.capacity) p.out_counts[j] = (b.counters[r >> cs] >> ((r & cs) * 16)) & 0xffffu;
  }
  __syncwarp();  // every lane has read its counter before a shared word is cleared
  for (uint32_t w = (uint32_t)lane; w < (distinct + cs) >> cs; w += SK_WARP_SIZE) b.counters[w] = 0;
  dense_clear_owned<true, kMasks>(b, lane, owned);
  __syncwarp();
}

// --- the whole block, one long segment -------------------------------------------------------------

// The distinct keys of items [start, end) (every thread); leaves the block bitmap clear.
__device__ int dense_block_distinct(dense_shared &sm, const dense_bins &bins, const params &p, int start, int end) {
  const int tid = threadIdx.x, lane = tid % SK_WARP_SIZE;
  if (tid == 0) sm.block_distinct = 0;
  __syncthreads();
  unsigned distinct = 0;
  dense_rounds<kThreads>(p, start + (tid - lane), end, lane, [&](uint32_t k) {
    if (k != kNoKey) {
      const uint32_t bit = 1u << (k % 32);
      distinct += (atomicOr(bins.block_bitmap + k / 32, bit) & bit) == 0 ? 1u : 0u;
    }
  });
  distinct = sk_warp_sum_u32(SK_FULL_MASK, distinct);
  if (lane == 0) atomicAdd(&sm.block_distinct, (int)distinct);
  __syncthreads();
  const int total = sm.block_distinct;
  for (int w = tid; w < dense_bitmap_words(p.num_keys); w += kThreads) bins.block_bitmap[w] = 0;
  __syncthreads();
  return total;
}

// Counts items [start, end) block-wide, the warp path's steps with the block's threads, and writes
// the pairs from out: (1) mark, and when K counters fit the window (dense_block_window), count by
// key; (2) thread t owns bitmap words [t run, (t + 1) run), and a block scan gives each marked word's
// first rank; the keys (and, by key, the counts) are written; (3) by rank, the counts, in windows of
// ranks (one pass over the keys each: more than one only when a segment has more distinct keys than
// the window holds); (4) clear.
__device__ void dense_block_write(dense_shared &sm, const dense_bins &b, const params &p, int start, int end,
                                  long long out) {
  const int tid = threadIdx.x, lane = tid % SK_WARP_SIZE, first = start + (tid - lane);
  const int window = b.block_window;
  const bool by_key = p.num_keys <= window;
  dense_rounds<kThreads>(p, first, end, lane, [&](uint32_t k) {
    if (k != kNoKey && (!by_key || atomicAdd(b.block_counters + k, 1u) == 0))
      atomicOr(b.block_bitmap + k / 32, 1u << (k % 32));
  });
  __syncthreads();
  const int words = dense_bitmap_words(p.num_keys), run = (words + kThreads - 1) / kThreads;
  const int w_begin = tid * run < words ? tid * run : words;
  const int w_end = w_begin + run < words ? w_begin + run : words;
  int mine = 0, rank = 0, distinct = 0;
  for (int w = w_begin; w < w_end; ++w) mine += __popc(b.block_bitmap[w]);
  dense_block_scan(sm.scan).ExclusiveSum(mine, rank, distinct);
  for (int w = w_begin; w < w_end; ++w) {
    if (!by_key) b.block_first_rank[w] = (uint16_t)rank;
    for (uint32_t word = b.block_bitmap[w]; word != 0; word &= word - 1, ++rank) {
      const uint32_t k = (uint32_t)w * 32 + (uint32_t)(__ffs(word) - 1);
      const long long j = out + rank;
      if (j >= 0 && j < p.capacity) p.out_keys[j] = k;
      if (by_key) {
        if (j >= 0 && j < p.capacity) p.out_counts[j] = b.block_counters[k];
        b.block_counters[k] = 0;
      }
    }
  }
  __syncthreads();
  for (int r0 = 0; !by_key && r0 < distinct; r0 += window) {
    dense_rounds<kThreads>(p, first, end, lane, [&](uint32_t k) {
      if (k != kNoKey) {
        const uint32_t below = b.block_bitmap[k / 32] & ((1u << (k % 32)) - 1u);
        const int r = b.block_first_rank[k / 32] + __popc(below) - r0;
        if ((unsigned)r < (unsigned)window) atomicAdd(b.block_counters + r, 1u);
      }
    });
    __syncthreads();
    const int in_window = distinct - r0 < window ? distinct - r0 : window;
    for (int r = tid; r < in_window; r += kThreads) {
      const long long j = out + r0 + r;
      if (j >= 0 && j < p.capacity) p.out_counts[j] = b.block_counters[r];
      b.block_counters[r] = 0;
    }
    __syncthreads();
  }
  for (int w = w_begin; w < w_end; ++w) {
    b.block_bitmap[w] = 0;
    b.block_first_rank[w] = 0;
  }
  __syncthreads();  // the block's bins clear again for every warp
}

// --- the kernels ------------------------------------------------------------------------------------

__device__ __forceinline__ int dense_next_segment(dense_shared &sm, int lane) {
  int next = 0;
  if (lane == 0) next = atomicAdd(&sm.next_segment, 1);
  return __shfl_sync(SK_FULL_MASK, next, 0);
}

// The two dense kernels, one tile loop. kWrite false (kernel 1): d_distinct[s] = the distinct keys
// of segment s, and d_distinct[S] = 0. kWrite true (kernel 3): every segment's pairs at
// p.out_offsets[s], already the exclusive sum of kernel 1's counts. Blocks stride over the tiles, so
// a block zeroes its bins once. kMasks: dense_lane_masks_for(p.num_keys).
template <bool kWrite, int kMasks>
__global__ void __launch_bounds__(kThreads, 8) dense_kernel(params p, int *d_distinct) {
  __shared__ dense_shared sm;
  extern __shared__ uint32_t dense_dynamic[];
  const int tid = threadIdx.x, warp = tid / SK_WARP_SIZE, lane = tid % SK_WARP_SIZE;
  const dense_bins bins = dense_bins_of<kWrite>(dense_dynamic, p.num_keys);
  for (int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    int seg_begin, seg_end;
    tile_segments(p, tile, &seg_begin, &seg_end);
    if (tid == 0) {
      sm.num_big = 0;
      sm.next_segment = seg_begin + kWarps;
    }
    __syncthreads();
    // Short segments: a warp each, the first kWarps in turn, then each warp takes the next one when
    // it is done. Long ones are listed for the whole block, after.
    for (int s = seg_begin + warp; s < seg_end; s = dense_next_segment(sm, lane)) {
      const int start = offset_at(p, s), end = offset_at(p, s + 1);
      if (end - start > kDenseBig) {
        if (lane == 0) {
          const int b = atomicAdd(&sm.num_big, 1);
          if (b < kDenseMaxBig) sm.big[b] = s;  // more only with bad offsets: left out
        }
      } else if (kWrite) {
        if (end > start) dense_warp_write<kMasks>(p, bins, start, end, p.out_offsets[s], lane);
      } else {
        const int distinct = end > start ? dense_warp_distinct<kMasks>(p, bins, start, end, lane) : 0;
        if (lane == 0) d_distinct[s] = distinct;
      }
    }
    __syncthreads();  // every warp done with its own bins before the block's span them
    const int num_big = sm.num_big < kDenseMaxBig ? sm.num_big : kDenseMaxBig;
    for (int b = 0; b < num_big; ++b) {
      const int s = sm.big[b], start = offset_at(p, s), end = offset_at(p, s + 1);
      if (kWrite) {
        dense_block_write(sm, bins, p, start, end, p.out_offsets[s]);
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
