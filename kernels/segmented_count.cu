// Device-wide segmented count (segmented_count.h): picks the dense path (K <=
// SK_SEGMENTED_COUNT_DENSE_MAX_KEYS: two kernels around a CUB scan) or the sorted kernel (one pass
// with a decoupled look-back), lays out the workspace and launches. The kernels and what they share
// are in segmented_count_{detail,dense,sorted}.cuh.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include "samplekit/segmented_count.h"
#include "segmented_count_dense.cuh"
#include "segmented_count_detail.cuh"
#include "segmented_count_sorted.cuh"
#include "sk_detail_cuda.h"

namespace {

using namespace sk_detail_segc;

bool use_dense(int num_keys) { return num_keys <= SK_SEGMENTED_COUNT_DENSE_MAX_KEYS; }

// The dense kernels' instances for K: the distinct one (kernel 1) and the write one (kernel 3).
typedef void (*dense_kernel_fn)(params, int *);
dense_kernel_fn dense_kernel_for(int num_keys, bool write) {
  if (dense_lane_masks_for(num_keys) == 1) return write ? dense_kernel<true, 1> : dense_kernel<false, 1>;
  return write ? dense_kernel<true, 2> : dense_kernel<false, 2>;
}

// Item positions per tile, and counters per block for long segments in the workspace (0: none).
// Dense: kDenseStride, halved (to kDenseMinStride at least) while the items make fewer than
// kDenseMinTiles tiles. A tile's short segments are taken by its 8 warps one after another, each a few
// dependent rounds of loads, so a small input in a few large tiles left most SMs idle while each block
// walked ~60 segments: kos (467,714 keys, 57 tiles of 8192 over 132 SMs) took 64 us for both kernels,
// as long as nips12 with about 5x the keys (bench/RESULTS.md, issue 32).
constexpr int kDenseMinTiles = 1024;
constexpr int kDenseMinStride = 1024;
int stride_for(int num_keys, int num_items) {
  if (!use_dense(num_keys)) return kSortedStride;
  int stride = kDenseStride;
  while (stride > kDenseMinStride && num_items / stride < kDenseMinTiles) stride /= 2;
  return stride;
}
int window_for(int num_keys) {
  if (use_dense(num_keys)) return 0;  // the dense kernel counts long segments in shared memory
  return num_keys > kSharedBins ? (num_keys < kWindow ? num_keys : kWindow) : 0;
}

// The blocks that fit on the current device at once, for the kernel that K selects (dense: the write
// kernel's in *blocks, the distinct kernel's, which needs less shared memory, in *first_blocks).
sk_status resident_blocks(int num_keys, int *blocks, int *first_blocks) {
  int device = 0, sms = 0, per_sm = 0;
  SK_DETAIL_CUDA_TRY(cudaGetDevice(&device));
  SK_DETAIL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (use_dense(num_keys)) {
    // Raise this K's instances' dynamic shared memory limits to their largest layouts (they grow
    // with K; the one-mask instances serve K up to 32,768), or to what the device allows a block (then
    // the check below refuses this K). Always the same value for an instance, so that a call with
    // another K on another host thread never lowers it under a launch.
    int optin = 0;
    SK_DETAIL_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const int room = optin > (int)sizeof(dense_shared) ? optin - (int)sizeof(dense_shared) : 0;
    const int largest_k = dense_lane_masks_for(num_keys) == 1 ? kDenseOneMaskKeys : SK_SEGMENTED_COUNT_DENSE_MAX_KEYS;
    for (int write = 0; write < 2; ++write) {
      const int most = (int)dense_dynamic_bytes(largest_k, write != 0);
      SK_DETAIL_CUDA_TRY(cudaFuncSetAttribute(dense_kernel_for(num_keys, write != 0),
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, most < room ? most : room));
    }
    if ((int)dense_dynamic_bytes(num_keys, true) > room) return SK_ERROR_UNSUPPORTED;
    int per_sm_write = 0;
    SK_DETAIL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, dense_kernel_for(num_keys, false), kThreads, dense_dynamic_bytes(num_keys, false)));
    SK_DETAIL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm_write, dense_kernel_for(num_keys, true), kThreads, dense_dynamic_bytes(num_keys, true)));
    if (per_sm < 1 || per_sm_write < 1) return SK_ERROR_UNSUPPORTED;  // the device lacks the shared memory
    *first_blocks = sms * per_sm;
    *blocks = sms * per_sm_write;
    return SK_SUCCESS;
  }
  SK_DETAIL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sorted_count_kernel, kThreads, 0));
  if (per_sm < 1) return SK_ERROR_UNSUPPORTED;
  *blocks = *first_blocks = sms * per_sm;
  return SK_SUCCESS;
}

int tiles_for(int num_items, int num_keys) { return num_items / stride_for(num_keys, num_items) + 1; }
// The tiles the workspace has room for: at least tiles_for() of every input of at most num_items items,
// so that one workspace serves smaller inputs too (the streamed sampler sizes it by its largest chunk).
// Dense: an input whose stride was halved has at most 2 kDenseMinTiles tiles (the last halving left
// fewer than kDenseMinTiles of twice the stride) and at most items / kDenseMinStride + 1.
int tile_capacity(int num_items, int num_keys) {
  if (!use_dense(num_keys)) return tiles_for(num_items, num_keys);
  const int most_halved = 2 * kDenseMinTiles;
  const int halved = num_items / kDenseMinStride + 1 < most_halved ? num_items / kDenseMinStride + 1 : most_halved;
  const int full = num_items / kDenseStride + 1;
  return full > halved ? full : halved;
}

size_t align_up(size_t v) { return (v + 255) & ~(size_t)255; }

// Workspace: tile status words, the tile counter, each tile's first segment (all zeroed per call);
// then, dense: each segment's distinct keys and the scan's storage; sorted: the window counters of
// every resident block.
struct workspace_layout {
  size_t counter_offset, tile_segment_offset, distinct_offset, scan_offset, scan_bytes, bins_offset, total;
  int blocks, first_blocks;  // resident blocks (resident_blocks)
};

sk_status layout_for(int num_segments, int num_items, int num_keys, workspace_layout *layout) {
  const int tiles = tile_capacity(num_items, num_keys);
  layout->counter_offset = align_up((size_t)tiles * sizeof(unsigned long long));
  layout->tile_segment_offset = layout->counter_offset + 256;
  layout->distinct_offset = layout->tile_segment_offset + align_up((size_t)(tiles + 1) * sizeof(int));
  layout->scan_offset = layout->distinct_offset;
  layout->scan_bytes = 0;
  // The device's blocks first: its cudaGetDevice() makes no driver or device SK_ERROR_NO_DEVICE, where
  // CUB's query would report an invalid device ordinal.
  const sk_status st = resident_blocks(num_keys, &layout->blocks, &layout->first_blocks);
  if (st != SK_SUCCESS) return st;
  if (use_dense(num_keys)) {
    layout->scan_offset += align_up((size_t)(num_segments + 1) * sizeof(int));
    SK_DETAIL_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, layout->scan_bytes, (const int *)nullptr, (int *)nullptr,
                                                     num_segments + 1));
  }
  layout->bins_offset = layout->scan_offset + align_up(layout->scan_bytes);
  layout->total = layout->bins_offset + (size_t)layout->blocks * window_for(num_keys) * sizeof(uint32_t);
  return SK_SUCCESS;
}

bool sizes_ok(int32_t num_segments, int32_t num_items, int32_t num_keys) {
  return num_segments >= 0 && num_segments <= SK_SEGMENTED_COUNT_MAX_SEGMENTS && num_items >= 0 &&
         num_items <= SK_SEGMENTED_COUNT_MAX_ITEMS && num_keys >= 1 && num_keys <= SK_SEGMENTED_COUNT_MAX_KEYS;
}

int grid_for(long long work) { return work / 256 + 1 < 4096 ? (int)(work / 256 + 1) : 4096; }

// Check kernels: the smallest bad index of each kind, by atomicMin (the host turns kinds into order).
__global__ void check_offsets_kernel(const int32_t *offsets, int num_segments, int num_items,
                                     unsigned long long *first_bad) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s <= num_segments;
       s += (long long)gridDim.x * blockDim.x) {
    const int v = offsets[s];
    const bool bad = (s == 0 && v != 0) || (s > 0 && v < offsets[s - 1]) || (s == num_segments && v != num_items);
    if (bad) atomicMin(first_bad, (unsigned long long)s);
  }
}

// Permutation entries out of range into first_bad[0], keys out of range (read through a good
// entry) into first_bad[1].
__global__ void check_items_kernel(const uint32_t *keys, const int32_t *perm, int num_items, int num_keys,
                                   unsigned long long *first_bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < num_items;
       i += (long long)gridDim.x * blockDim.x) {
    long long source = i;
    if (perm != nullptr) {
      source = perm[i];
      if (source < 0 || source >= num_items) {
        atomicMin(first_bad, (unsigned long long)i);
        continue;
      }
    }
    if (keys[source] >= (uint32_t)num_keys) atomicMin(first_bad + 1, (unsigned long long)i);
  }
}

}  // namespace

extern "C" sk_status sk_segmented_count_workspace_size(int32_t num_segments, int32_t num_items, int32_t num_keys,
                                                       size_t *workspace_bytes) {
  if (workspace_bytes == NULL) return SK_ERROR_NULL_POINTER;
  if (!sizes_ok(num_segments, num_items, num_keys)) return SK_ERROR_INVALID_VALUE;
  workspace_layout layout;
  const sk_status st = layout_for(num_segments, num_items, num_keys, &layout);
  if (st != SK_SUCCESS) return st;
  *workspace_bytes = layout.total;
  return SK_SUCCESS;
}

extern "C" sk_status sk_segmented_count_u32(const int32_t *d_segment_offsets, int32_t num_segments, int32_t num_items,
                                            const uint32_t *d_keys, const int32_t *d_perm, int32_t num_keys,
                                            int32_t *d_out_offsets, uint32_t *d_out_keys, uint32_t *d_out_counts,
                                            int32_t out_capacity, void *d_workspace, size_t workspace_bytes,
                                            sk_stream stream) {
  if (d_segment_offsets == NULL || d_out_offsets == NULL || d_workspace == NULL) return SK_ERROR_NULL_POINTER;
  if (num_items > 0 && d_keys == NULL) return SK_ERROR_NULL_POINTER;
  if (out_capacity > 0 && (d_out_keys == NULL || d_out_counts == NULL)) return SK_ERROR_NULL_POINTER;
  if (!sizes_ok(num_segments, num_items, num_keys) || out_capacity < 0) return SK_ERROR_INVALID_VALUE;
  // Before the layout: its device queries would return (and clear) an error left by earlier work.
  sk_status st = sk_detail_check_pending();
  if (st != SK_SUCCESS) return st;
  workspace_layout layout;
  st = layout_for(num_segments, num_items, num_keys, &layout);
  if (st != SK_SUCCESS) return st;
  if (workspace_bytes < layout.total) return SK_ERROR_WORKSPACE_TOO_SMALL;

  char *const ws = (char *)d_workspace;
  cudaStream_t s = (cudaStream_t)stream;
  SK_DETAIL_CUDA_TRY(cudaMemsetAsync(ws, 0, layout.scan_offset, s));
  params p;
  p.offsets = d_segment_offsets;
  p.num_segments = num_segments;
  p.num_items = num_items;
  p.keys = d_keys;
  p.perm = d_perm;
  p.num_keys = num_keys;
  p.key_bits = num_keys > 1 ? 32 - __builtin_clz((unsigned)(num_keys - 1)) : 0;
  p.out_offsets = d_out_offsets;
  p.out_keys = d_out_keys;
  p.out_counts = d_out_counts;
  p.capacity = out_capacity;
  p.stride = stride_for(num_keys, num_items);
  p.num_tiles = tiles_for(num_items, num_keys);
  p.tile_status = (unsigned long long *)ws;
  p.tile_counter = (int *)(ws + layout.counter_offset);
  p.tile_segment = (const int *)(ws + layout.tile_segment_offset);
  p.global_bins = (uint32_t *)(ws + layout.bins_offset);
  p.window = window_for(num_keys);
  tile_segments_kernel<<<grid_for(num_segments + 1LL), 256, 0, s>>>(p, (int *)(ws + layout.tile_segment_offset));
  st = sk_detail_check_launch();
  if (st != SK_SUCCESS) return st;
  // Blocks loop over tiles and every block stays resident (the window counters are per block, and a
  // look-back waits only on tiles that running blocks hold), so the grid is what fits at once.
  const int grid = p.num_tiles < layout.blocks ? p.num_tiles : layout.blocks;
  if (use_dense(num_keys)) {
    int *const d_distinct = (int *)(ws + layout.distinct_offset);
    const int first_grid = p.num_tiles < layout.first_blocks ? p.num_tiles : layout.first_blocks;
    dense_kernel_for(num_keys, false)<<<first_grid, kThreads, dense_dynamic_bytes(num_keys, false), s>>>(p, d_distinct);
    st = sk_detail_check_launch();
    if (st != SK_SUCCESS) return st;
    size_t scan_bytes = layout.scan_bytes;
    SK_DETAIL_CUDA_TRY(cub::DeviceScan::ExclusiveSum(ws + layout.scan_offset, scan_bytes, d_distinct, d_out_offsets,
                                                     num_segments + 1, s));
    st = sk_detail_check_launch();
    if (st != SK_SUCCESS) return st;
    if (out_capacity == 0) return SK_SUCCESS;  // the sizes alone: the write kernel would write nothing
    dense_kernel_for(num_keys, true)<<<grid, kThreads, dense_dynamic_bytes(num_keys, true), s>>>(p, d_distinct);
  } else {
    sorted_count_kernel<<<grid, kThreads, 0, s>>>(p);
  }
  return sk_detail_check_launch();
}

extern "C" sk_status sk_segmented_count_check_u32(const int32_t *d_segment_offsets, int32_t num_segments,
                                                  int32_t num_items, const uint32_t *d_keys, const int32_t *d_perm,
                                                  int32_t num_keys, int64_t *bad_index, sk_stream stream) {
  if (bad_index != NULL) *bad_index = -1;
  if (d_segment_offsets == NULL) return SK_ERROR_NULL_POINTER;
  if (num_items > 0 && d_keys == NULL) return SK_ERROR_NULL_POINTER;
  if (!sizes_ok(num_segments, num_items, num_keys)) return SK_ERROR_INVALID_VALUE;
  sk_status st = sk_detail_check_pending();
  if (st != SK_SUCCESS) return st;
  cudaStream_t s = (cudaStream_t)stream;
  unsigned long long *d_bad = NULL;
  const cudaError_t allocated = cudaMalloc(&d_bad, 3 * sizeof(unsigned long long));
  if (allocated != cudaSuccess) {
    (void)cudaGetLastError();
    const sk_status why = sk_status_from_cuda_error((int)allocated); /* out of memory, no device, ... */
    return why == SK_ERROR_CUDA ? SK_ERROR_CUDA_ALLOCATION_FAILED : why;
  }
  unsigned long long h_bad[3] = {~0ull, ~0ull, ~0ull};  // offsets, permutation, keys
  st = sk_status_from_cuda_error((int)cudaMemcpyAsync(d_bad, h_bad, sizeof h_bad, cudaMemcpyHostToDevice, s));
  if (st == SK_SUCCESS) {
    check_offsets_kernel<<<grid_for(num_segments + 1LL), 256, 0, s>>>(
        d_segment_offsets, num_segments, num_items, d_bad);
    st = sk_detail_check_launch();
  }
  if (st == SK_SUCCESS && num_items > 0) {
    check_items_kernel<<<grid_for(num_items), 256, 0, s>>>(
        d_keys, d_perm, num_items, num_keys, d_bad + 1);
    st = sk_detail_check_launch();
  }
  if (st == SK_SUCCESS)
    st = sk_status_from_cuda_error((int)cudaMemcpyAsync(h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, s));
  if (st == SK_SUCCESS) st = sk_status_from_cuda_error((int)cudaStreamSynchronize(s));
  const sk_status freed = sk_status_from_cuda_error((int)cudaFree(d_bad));
  if (st != SK_SUCCESS) return st;
  if (freed != SK_SUCCESS) return freed;
  const unsigned long long first = h_bad[0] != ~0ull ? h_bad[0] : (h_bad[1] != ~0ull ? h_bad[1] : h_bad[2]);
  if (first == ~0ull) return SK_SUCCESS;
  if (bad_index != NULL) *bad_index = (int64_t)first;
  return SK_ERROR_INVALID_VALUE;
}
