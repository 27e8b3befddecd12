// Internal to samplekit::kernels: the sorted segmented-count kernel, for any K (used when K is above
// the dense kernel's limit). A piece of up to kTile items has its keys tagged with their segment's
// index among the piece's non-empty segments and counted by sk_block_segmented_count_u32(). Tile
// stride kTile / 2. Not installed.
#ifndef SAMPLEKIT_KERNELS_SEGMENTED_COUNT_SORTED_CUH
#define SAMPLEKIT_KERNELS_SEGMENTED_COUNT_SORTED_CUH

#include "samplekit/segmented_count.cuh"
#include "segmented_count_detail.cuh"

namespace sk_detail_segc {

constexpr int kSortedStride = kTile / 2;

struct sorted_shared {
  union {
    sk_block_segmented_count_storage_u32<kThreads, kItems> count;
    block_scan::TempStorage scan;
  } temp;
  union {
    struct {
      uint32_t keys[kTile];
      uint32_t counts[kTile];
    } pairs;
    uint32_t bins[kSharedBins];
  } u;
  uint16_t seg_at[kTile];     // piece position -> index of the non-empty segment that holds it
  uint16_t seg_first[kTile];  // non-empty segment index -> its first pair in the piece
  int tile;                   // broadcast from thread 0
  int below;                  // pairs of the tiles before this one
};

// Piece of segments [seg_begin, seg_end) holding items [base, base + items), items <= kTile: the
// pairs, keys tagged with the segment's index among the piece's non-empty segments, go to
// sm.u.pairs; sm.seg_at and sm.seg_first say where each segment's pairs start. Returns the pairs.
__device__ int count_piece(sorted_shared &sm, const params &p, int seg_begin, int seg_end, int base, int items) {
  const int tid = threadIdx.x;
  if (items == 0) return 0;
  for (int i = tid; i < kTile; i += kThreads) sm.seg_at[i] = 0;
  __syncthreads();
  for (int s = seg_begin + tid; s < seg_end; s += kThreads) {
    const int start = offset_at(p, s) - base, end = offset_at(p, s + 1) - base;
    if (end > start && start >= 0 && start < items) sm.seg_at[start] = 1;
  }
  __syncthreads();
  int head[kItems], index[kItems], num_nonempty;
#pragma unroll
  for (int i = 0; i < kItems; ++i) head[i] = sm.seg_at[tid * kItems + i];
  block_scan(sm.temp.scan).InclusiveSum(head, index, num_nonempty);
  __syncthreads();  // every flag read before the indices overwrite them; scan storage free
#pragma unroll
  for (int i = 0; i < kItems; ++i) sm.seg_at[tid * kItems + i] = (uint16_t)(index[i] > 0 ? index[i] - 1 : 0);
  __syncthreads();

  const int tag_shift = p.key_bits;
  const int bits = p.key_bits + bit_length((unsigned)(num_nonempty > 0 ? num_nonempty - 1 : 0));
  uint32_t keys[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int position = tid * kItems + i;
    keys[i] = position < items ? ((uint32_t)sm.seg_at[position] << tag_shift) | key_of(p, base + position) : 0u;
  }
  const int pairs =
      sk_block_segmented_count_u32<kThreads, kItems>(sm.temp.count, keys, items, bits, sm.u.pairs.keys,
                                                     sm.u.pairs.counts, tid);
  for (int r = tid; r < pairs; r += kThreads) {
    const uint32_t seg = sm.u.pairs.keys[r] >> tag_shift;
    if (r == 0 || seg != (sm.u.pairs.keys[r - 1] >> tag_shift)) sm.seg_first[seg] = (uint16_t)r;
  }
  __syncthreads();
  return pairs;
}


// One segment of at most kTile items, alone: raw keys in sm.u.pairs. Returns the pairs.
__device__ int count_single(sorted_shared &sm, const params &p, int base, int items) {
  const int tid = threadIdx.x;
  uint32_t keys[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int position = tid * kItems + i;
    keys[i] = position < items ? key_of(p, base + position) : 0u;
  }
  return sk_block_segmented_count_u32<kThreads, kItems>(sm.temp.count, keys, items, p.key_bits, sm.u.pairs.keys,
                                                        sm.u.pairs.counts, tid);
}


__global__ void __launch_bounds__(kThreads, 4) sorted_count_kernel(params p) {
  __shared__ sorted_shared sm;
  const int tid = threadIdx.x;
  for (;;) {
    if (tid == 0) sm.tile = atomicAdd(p.tile_counter, 1);
    __syncthreads();
    const int tile = sm.tile;
    if (tile >= p.num_tiles) return;
    int seg_begin, seg_end;
    tile_segments(p, tile, &seg_begin, &seg_end);

    // Piece 1: the owned segments, or all but the last when the last does not fit with them.
    const int base = offset_at(p, seg_begin);
    const int end_all = offset_at(p, seg_end);
    const bool last_apart = seg_end > seg_begin && !(end_all - base >= 0 && end_all - base <= kTile);
    const int piece_end = last_apart ? seg_end - 1 : seg_end;
    int items1 = offset_at(p, piece_end) - base;
    items1 = items1 < 0 ? 0 : (items1 > kTile ? kTile : items1);
    const int pairs1 = count_piece(sm, p, seg_begin, piece_end, base, items1);

    // Piece 2: the last segment when apart, sorted alone or (longer than a tile) counted in key
    // windows. Piece 1's pairs wait in registers (striped) meanwhile.
    uint32_t held_key[kItems], held_count[kItems];
    int pairs2 = 0, base2 = 0, items2 = 0;
    bool single = false;
    if (last_apart) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int r = i * kThreads + tid;
        held_key[i] = r < pairs1 ? sm.u.pairs.keys[r] : 0u;
        held_count[i] = r < pairs1 ? sm.u.pairs.counts[r] : 0u;
      }
      __syncthreads();
      base2 = offset_at(p, seg_end - 1);
      items2 = end_all - base2;
      items2 = items2 < 0 ? 0 : items2;
      single = items2 <= kTile;
      pairs2 = single ? count_single(sm, p, base2, items2)
                      : count_long(sm.temp.scan, sm.u.bins, p, base2, items2, false, 0);
    }
    const long long total = (long long)pairs1 + pairs2;
    if (tid < SK_WARP_SIZE) {
      const long long below = look_back(p, tile, total);
      if (tid == 0) sm.below = (int)below;
    }
    __syncthreads();
    const long long below = sm.below;

    for (int s = seg_begin + tid; s < piece_end; s += kThreads) {
      const int start = offset_at(p, s) - base;
      const int first = start >= 0 && start < items1 ? sm.seg_first[sm.seg_at[start]] : pairs1;
      p.out_offsets[s] = (int32_t)(below + first);
    }
    if (last_apart && tid == 0) p.out_offsets[seg_end - 1] = (int32_t)(below + pairs1);
    if (tile == p.num_tiles - 1 && tid == 0) p.out_offsets[p.num_segments] = (int32_t)(below + total);

    const uint32_t key_mask = p.key_bits >= 32 ? 0xffffffffu : (1u << p.key_bits) - 1u;
    if (!last_apart) {
      for (int r = tid; r < pairs1; r += kThreads)
        write_pair(p, below + r, sm.u.pairs.keys[r] & key_mask, sm.u.pairs.counts[r]);
    } else {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int r = i * kThreads + tid;
        if (r < pairs1) write_pair(p, below + r, held_key[i] & key_mask, held_count[i]);
      }
      if (single) {
        for (int r = tid; r < pairs2; r += kThreads)
          write_pair(p, below + pairs1 + r, sm.u.pairs.keys[r], sm.u.pairs.counts[r]);
      } else {
        count_long(sm.temp.scan, sm.u.bins, p, base2, items2, true, below + pairs1);
      }
    }
    __syncthreads();  // shared memory is reused by the next tile
  }
}

}  // namespace sk_detail_segc

#endif  // SAMPLEKIT_KERNELS_SEGMENTED_COUNT_SORTED_CUH
