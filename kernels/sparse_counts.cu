// sk_sparse_counts_pack_i32 and sk_sparse_counts_add_i32 (sparse_counts.h).
//
// Pack: a block takes tiles of SK_SPARSE_COUNTS_TILE values (256 threads x 16 values, four 16-byte
// loads a thread when the array is aligned), counts each thread's entries, scans them over the block
// (CUB BlockScan), takes the tile's place in the output with one atomicAdd (skipped when the tile is
// all zero: a sparse matrix touches the counter rarely) and writes its entries from the values still
// in registers. Grid-stride over the tiles, so the atomic on the single counter is at most one per
// 4,096 values.
#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "samplekit/sparse_counts.h"
#include "sk_detail_cuda.h"

namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = SK_SPARSE_COUNTS_TILE / kThreads;  // 16
static_assert(kPerThread % 4 == 0, "four values per 16-byte load");
constexpr unsigned kMaxBlocks = 4096;
constexpr uint64_t kIndexLimit = (uint64_t)1 << SK_SPARSE_COUNT_INDEX_BITS;

using block_scan = cub::BlockScan<uint32_t, kThreads>;

// The values of tile `tile` owned by this thread: positions tile * TILE + threadIdx.x * 4 + 1024 j + c
// (j < 4, c < 4), so that a warp's 16-byte loads are contiguous; zero past the end.
template <bool kAligned>
__device__ __forceinline__ void load_tile(const int32_t *counts, uint64_t n, uint64_t tile, int32_t (&v)[kPerThread]) {
#pragma unroll
  for (int j = 0; j < kPerThread / 4; ++j) {
    const uint64_t first = tile * SK_SPARSE_COUNTS_TILE + (uint64_t)j * (kThreads * 4) + (uint64_t)threadIdx.x * 4;
    if (kAligned && first + 4 <= n) {
      const int4 q = *reinterpret_cast<const int4 *>(counts + first);
      v[4 * j] = q.x;
      v[4 * j + 1] = q.y;
      v[4 * j + 2] = q.z;
      v[4 * j + 3] = q.w;
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c) v[4 * j + c] = first + c < n ? counts[first + c] : 0;
    }
  }
}

template <bool kAligned>
__global__ void __launch_bounds__(kThreads) pack_kernel(const int32_t *counts, uint64_t n, uint64_t *entries,
                                                        uint64_t capacity, unsigned long long *num_entries) {
  __shared__ typename block_scan::TempStorage scan_storage;
  __shared__ unsigned long long tile_base;
  const uint64_t tiles = (n + SK_SPARSE_COUNTS_TILE - 1) / SK_SPARSE_COUNTS_TILE;
  for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int32_t v[kPerThread];
    load_tile<kAligned>(counts, n, tile, v);
    uint32_t mine = 0;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) mine += sk_sparse_count_pieces(v[i]);
    uint32_t offset = 0, total = 0;
    block_scan(scan_storage).ExclusiveSum(mine, offset, total);
    uint64_t out = 0;
    if (total > 0) {  // the same on every thread: the barrier inside is reached by all or none
      if (threadIdx.x == 0) tile_base = atomicAdd(num_entries, (unsigned long long)total);
      __syncthreads();
      out = tile_base + offset;
    }
    __syncthreads();  // tile_base and the scan's storage are reused by the next tile
    if (mine == 0) continue;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      int32_t value = v[i];
      if (value == 0) continue;
      const uint64_t index =
          tile * SK_SPARSE_COUNTS_TILE + (uint64_t)(i / 4) * (kThreads * 4) + (uint64_t)threadIdx.x * 4 + (i % 4);
      // Whole pieces of the largest magnitude first, then the rest (|rest| <= VALUE_MAX, nonzero).
      while (value > SK_SPARSE_COUNT_VALUE_MAX || value < -SK_SPARSE_COUNT_VALUE_MAX) {
        const int32_t piece = value > 0 ? SK_SPARSE_COUNT_VALUE_MAX : -SK_SPARSE_COUNT_VALUE_MAX;
        if (out < capacity) entries[out] = sk_sparse_count_entry(index, piece);
        ++out;
        value -= piece;
      }
      if (out < capacity) entries[out] = sk_sparse_count_entry(index, value);
      ++out;
    }
  }
}

__global__ void add_kernel(const uint64_t *entries, uint64_t num_entries, int32_t *counts, uint64_t n) {
  const uint64_t step = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < num_entries; j += step) {
    const uint64_t e = entries[j];
    const uint64_t index = sk_sparse_count_entry_index(e);
    if (index < n) atomicAdd(counts + index, sk_sparse_count_entry_value(e));
  }
}

unsigned grid_for(uint64_t work, uint64_t per_block) {
  const uint64_t wanted = (work + per_block - 1) / per_block;
  return wanted < kMaxBlocks ? (unsigned)(wanted > 0 ? wanted : 1) : kMaxBlocks;
}

}  // namespace

extern "C" sk_status sk_sparse_counts_pack_i32(const int32_t *d_counts, uint64_t num_counts, uint64_t *d_entries,
                                               uint64_t capacity, unsigned long long *d_num_entries,
                                               sk_stream stream) {
  if (d_num_entries == nullptr || (num_counts > 0 && d_counts == nullptr) || (capacity > 0 && d_entries == nullptr))
    return SK_ERROR_NULL_POINTER;
  if (num_counts >= kIndexLimit) return SK_ERROR_INVALID_VALUE;
  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;
  SK_DETAIL_CUDA_TRY(cudaMemsetAsync(d_num_entries, 0, sizeof *d_num_entries, stream));
  if (num_counts == 0) return SK_SUCCESS;
  const unsigned grid = grid_for(num_counts, SK_SPARSE_COUNTS_TILE);
  if (((uintptr_t)d_counts & 15u) == 0)
    pack_kernel<true><<<grid, kThreads, 0, stream>>>(d_counts, num_counts, d_entries, capacity, d_num_entries);
  else
    pack_kernel<false><<<grid, kThreads, 0, stream>>>(d_counts, num_counts, d_entries, capacity, d_num_entries);
  return sk_detail_check_launch();
}

extern "C" sk_status sk_sparse_counts_add_i32(const uint64_t *d_entries, uint64_t num_entries, int32_t *d_counts,
                                              uint64_t num_counts, sk_stream stream) {
  if (num_entries == 0) return SK_SUCCESS;
  if (d_entries == nullptr || d_counts == nullptr) return SK_ERROR_NULL_POINTER;
  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;
  add_kernel<<<grid_for(num_entries, kThreads * 8), kThreads, 0, stream>>>(d_entries, num_entries, d_counts,
                                                                           num_counts);
  return sk_detail_check_launch();
}
