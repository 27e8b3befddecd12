// sk_wary_tree_batch_*: one W-ary tree per row of a weight matrix (a warp, a block or, for rows fewer
// than the SMs, the whole grid per row), and draws from many trees (a warp per 32 samples, four searches
// in flight at a time).
#include <stdint.h>

#include "samplekit/rng.cuh"
#include "samplekit/wary_tree.cuh"
#include "sk_detail_cuda.h"

namespace {

constexpr int kBuildWarpThreads = 256;      // warp per row: 8 rows per block
constexpr int kBlockPathMinLeaves = 2049;   // block per row only for rows of more than 64 rounds
constexpr int kBlockPathRowsPerSm = 8;      // ... and at most this many rows per SM
constexpr int kGridPathRowsPerSm = 1;       // the grid path for rows no more than the SMs ...
constexpr int kGridPathMinLeaves = 16385;   // ... of more than 512 rounds (below, its three launches cost
                                            // more than one block's walk: 16 against 7.5 us at 4,096)
constexpr int kBigBlockRowsPerSm = 2;       // 1,024 threads a row up to this many rows per SM, else 256
constexpr int kGridThreads = 256;           // grid path: blocks of 8 warps ...
constexpr int kGridRoundsPerWarp = 4;       // ... each with the loads of 4 rounds in flight
constexpr int kGridRoundsPerBlock = kGridRoundsPerWarp * (kGridThreads / 32);
constexpr int kSampleThreads = 256;
constexpr int kSampleGroup = 4;             // searches whose reads a warp overlaps
constexpr unsigned kSampleMaxBlocks = 32768;  // grid-stride beyond this (> 30 waves on any current GPU)

__global__ void __launch_bounds__(kBuildWarpThreads)
    sk_detail_wary_tree_build_warp_kernel(const float *weights, size_t ld, int num_rows, int n, float *trees,
                                          size_t tree_floats) {
  const long long row = (long long)blockIdx.x * (kBuildWarpThreads / 32) + threadIdx.x / 32;
  if (row >= num_rows) return;  // whole warps leave together
  sk_wary_tree_warp_build_f32(weights + (size_t)row * ld, n, trees + (size_t)row * tree_floats);
}

template <int Threads>
__global__ void __launch_bounds__(Threads)
    sk_detail_wary_tree_build_block_kernel(const float *weights, size_t ld, int n, float *trees,
                                           size_t tree_floats) {
  __shared__ sk_wary_tree_block_storage storage;
  const size_t row = blockIdx.x;
  sk_wary_tree_block_build_f32((int)threadIdx.x, Threads, &storage, weights + row * ld, n,
                               trees + row * tree_floats);
}

// The grid path: sk_wary_tree_block_build_f32()'s three steps as three kernels, so that a row's rounds
// spread over the whole GPU (one block per row keeps one SM busy: 78 us for one tree of 65,536 leaves on
// an H200, sk-lda's prior tree, bench/RESULTS.md). Row blockIdx.y; block x takes rounds
// [kGridRoundsPerBlock x, kGridRoundsPerBlock (x + 1)). Each step is the block build's own code, so the
// bits are the same.
struct sk_detail_grid_rows {
  const float *weights;
  size_t ld;
  int n;
  float *trees;
  size_t tree_floats;
  __device__ const float *row_weights() const { return weights + (size_t)blockIdx.y * ld; }
  __device__ float *tree() const { return trees + (size_t)blockIdx.y * tree_floats; }
  __device__ int rounds() const { return (n + 31) / 32; }
  __device__ int first_round() const {
    return (int)blockIdx.x * kGridRoundsPerBlock + (int)(threadIdx.x / 32) * kGridRoundsPerWarp;
  }
};

// (1) Each round's local sum at its last leaf, into level 1.
__global__ void __launch_bounds__(kGridThreads) sk_detail_wary_tree_grid_locals_kernel(sk_detail_grid_rows g) {
  const int lane = sk_lane_id(), rounds = g.rounds(), r0 = g.first_round();
  const float *weights = g.row_weights();
  float *const level1 = g.tree() + 32 * rounds;
  float w[kGridRoundsPerWarp];
#pragma unroll
  for (int j = 0; j < kGridRoundsPerWarp; ++j) {
    const int i = 32 * (r0 + j) + lane;
    w[j] = r0 + j < rounds && i < g.n ? weights[i] : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < kGridRoundsPerWarp; ++j)
    if (r0 + j < rounds) {  // warp-uniform
      const float local = sk_detail_wary_tree_round_local(w[j]);
      if (lane == 31) level1[r0 + j] = local;
    }
}

// (2) The carries in round order, a warp per row (blocks of 32 threads), and level 1's padding.
__global__ void __launch_bounds__(32) sk_detail_wary_tree_grid_chain_kernel(sk_detail_grid_rows g) {
  __shared__ sk_wary_tree_block_storage storage;
  const int rounds = g.rounds();
  sk_detail_wary_tree_chain(&storage, g.trees + (size_t)blockIdx.x * g.tree_floats + 32 * rounds, rounds);
}

// (3) Level 0 from the carries; block 0 of the row writes the levels above 1 (entry i of level k + 1 is
// entry 32 i + 31 of level k, padded with the total, as sk_detail_wary_tree_copy_level() writes them).
__global__ void __launch_bounds__(kGridThreads) sk_detail_wary_tree_grid_finish_kernel(sk_detail_grid_rows g) {
  const int lane = sk_lane_id(), rounds = g.rounds(), r0 = g.first_round();
  const float *weights = g.row_weights();
  float *const tree = g.tree();
  const float *const level1 = tree + 32 * rounds;
  float w[kGridRoundsPerWarp], c[kGridRoundsPerWarp];
#pragma unroll
  for (int j = 0; j < kGridRoundsPerWarp; ++j) {
    const int r = r0 + j;
    const int i = 32 * r + lane;
    w[j] = r < rounds && i < g.n ? weights[i] : 0.0f;
    c[j] = r > 0 && r < rounds ? level1[r - 1] : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < kGridRoundsPerWarp; ++j)
    if (r0 + j < rounds) tree[32 * (r0 + j) + lane] = c[j] + sk_detail_wary_tree_round_local(w[j]);
  const int levels = sk_wary_tree_num_levels(g.n);
  if (blockIdx.x != 0 || levels < 3) return;
  const float total = level1[rounds - 1];
  float *const level2 = tree + 32 * rounds + SK_DETAIL_WARY_TREE_PAD32(rounds);
  const int entries2 = (rounds + 31) / 32;
  for (int i = (int)threadIdx.x; i < SK_DETAIL_WARY_TREE_PAD32(entries2); i += kGridThreads)
    level2[i] = i < entries2 ? level1[32 * i + 31] : total;
  if (levels < 4) return;
  // Level 3 from level 1 directly (level 2's entry j < entries2 is level1[32 j + 31], past that the
  // total), so that no block waits on another.
  float *const level3 = level2 + SK_DETAIL_WARY_TREE_PAD32(entries2);
  const int entries3 = (entries2 + 31) / 32;
  for (int i = (int)threadIdx.x; i < 32; i += kGridThreads) {
    const int j = 32 * i + 31;
    level3[i] = i < entries3 && j < entries2 ? level1[32 * j + 31] : total;
  }
}

// Lane l of a warp owns sample 32 c + l of chunk c: it reads the row id, draws the uniform and writes
// the result, all coalesced; the warp searches the chunk's samples kSampleGroup at a time.
__global__ void __launch_bounds__(kSampleThreads)
    sk_detail_wary_tree_sample_kernel(const float *trees, size_t tree_floats, int num_rows,
                                      sk_wary_tree_view_f32 shape, const int *rows, uint64_t num_samples,
                                      uint64_t seed, uint64_t offset, int *out) {
  const int lane = sk_lane_id();
  const int top_offset = sk_wary_tree_top_offset_f32(shape);
  const uint64_t warps = (uint64_t)gridDim.x * (kSampleThreads / 32);
  const uint64_t chunks = (num_samples + 31) / 32;
  for (uint64_t chunk = (uint64_t)blockIdx.x * (kSampleThreads / 32) + threadIdx.x / 32; chunk < chunks;
       chunk += warps) {
    const uint64_t first = chunk * 32;
    const uint64_t s = first + (uint64_t)lane;
    const bool valid = s < num_samples;
    const int row = valid ? rows[s] : -1;
    const float unit = valid ? sk_rng_uniform_f32(seed, 0, offset + s) : 0.0f;
    const int count = num_samples - first < 32 ? (int)(num_samples - first) : 32;
    int mine = -1;
    for (int j0 = 0; j0 < count; j0 += kSampleGroup) {
      const float *data[kSampleGroup];
      float top[kSampleGroup], u[kSampleGroup];
      int result[kSampleGroup];
#pragma unroll
      for (int g = 0; g < kSampleGroup; ++g) {
        const int j = j0 + g;
        const int r = __shfl_sync(SK_FULL_MASK, row, j & 31);
        // Warp-uniform: r and count are the same on every lane. A slot with no tree gets a top level
        // of zeros, whose total of 0 makes the search return -1 without reading anything.
        const bool active = j < count && r >= 0 && r < num_rows;
        data[g] = trees + (active ? (size_t)r : 0u) * tree_floats;
        top[g] = active ? data[g][top_offset + lane] : 0.0f;
      }
#pragma unroll
      for (int g = 0; g < kSampleGroup; ++g)
        u[g] = __shfl_sync(SK_FULL_MASK, unit, (j0 + g) & 31) * sk_wary_tree_top_total_f32(top[g]);
      sk_detail_wary_tree_search<kSampleGroup>(shape, data, top, u, result);
#pragma unroll
      for (int g = 0; g < kSampleGroup; ++g)
        if (lane == j0 + g) mine = result[g];
    }
    if (valid) out[s] = mine;
  }
}

bool sk_detail_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

// The current device's SM count. A failed query is reported once: its error is taken off the
// runtime's "last error", so that the next call does not see it as pending.
sk_status sk_detail_sm_count(int *count) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) return SK_SUCCESS;
  (void)cudaGetLastError();
  return sk_status_from_cuda_error((int)err);
}

}  // namespace

extern "C" sk_status sk_wary_tree_batch_bytes(int num_rows, int n, size_t *bytes) {
  if (bytes == nullptr) return SK_ERROR_NULL_POINTER;
  if (num_rows < 0 || sk_wary_tree_num_levels(n) == 0) return SK_ERROR_INVALID_VALUE;
  const size_t floats = sk_wary_tree_floats(n);
  if ((size_t)num_rows > SIZE_MAX / sizeof(float) / floats) return SK_ERROR_INVALID_VALUE;
  *bytes = (size_t)num_rows * floats * sizeof(float);
  return SK_SUCCESS;
}

extern "C" sk_status sk_wary_tree_batch_build_f32(const float *d_weights, size_t ld, int num_rows, int n,
                                                  float *d_trees, size_t trees_bytes, sk_stream stream) {
  if (num_rows < 0 || sk_wary_tree_num_levels(n) == 0 || ld < (size_t)n) return SK_ERROR_INVALID_VALUE;
  if (num_rows == 0) return SK_SUCCESS;
  if (d_weights == nullptr || d_trees == nullptr) return SK_ERROR_NULL_POINTER;
  const size_t max_floats = SIZE_MAX / sizeof(float);
  const size_t gaps = (size_t)num_rows - 1;
  if (gaps > 0 && ld > (max_floats - (size_t)n) / gaps) return SK_ERROR_INVALID_VALUE;
  const size_t weight_bytes = (gaps * ld + (size_t)n) * sizeof(float);
  size_t needed = 0;
  const sk_status sized = sk_wary_tree_batch_bytes(num_rows, n, &needed);
  if (sized != SK_SUCCESS) return sized;
  if (sk_detail_ranges_overlap(d_weights, weight_bytes, d_trees, needed)) return SK_ERROR_INVALID_VALUE;
  if (trees_bytes < needed) return SK_ERROR_WORKSPACE_TOO_SMALL;

  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;

  const size_t tree_floats = sk_wary_tree_floats(n);
  int block_threads = 0;  // 0: a warp per row; -1: the grid path
  if (n >= kBlockPathMinLeaves) {
    int sms = 0;
    const sk_status queried = sk_detail_sm_count(&sms);
    if (queried != SK_SUCCESS) return queried;
    if (n >= kGridPathMinLeaves && (long long)num_rows <= (long long)kGridPathRowsPerSm * sms)
      block_threads = -1;
    else if ((long long)num_rows <= (long long)kBlockPathRowsPerSm * sms)
      block_threads = (long long)num_rows <= (long long)kBigBlockRowsPerSm * sms ? 1024 : 256;
  }
  if (block_threads == -1) {
    const sk_detail_grid_rows g{d_weights, ld, n, d_trees, tree_floats};
    const int rounds = (n + 31) / 32;
    const dim3 grid((unsigned)((rounds + kGridRoundsPerBlock - 1) / kGridRoundsPerBlock), (unsigned)num_rows);
    sk_detail_wary_tree_grid_locals_kernel<<<grid, kGridThreads, 0, stream>>>(g);
    sk_status launched = sk_detail_check_launch();
    if (launched != SK_SUCCESS) return launched;
    sk_detail_wary_tree_grid_chain_kernel<<<(unsigned)num_rows, 32, 0, stream>>>(g);
    if ((launched = sk_detail_check_launch()) != SK_SUCCESS) return launched;
    sk_detail_wary_tree_grid_finish_kernel<<<grid, kGridThreads, 0, stream>>>(g);
  } else if (block_threads == 1024) {
    sk_detail_wary_tree_build_block_kernel<1024>
        <<<(unsigned)num_rows, 1024, 0, stream>>>(d_weights, ld, n, d_trees, tree_floats);
  } else if (block_threads == 256) {
    sk_detail_wary_tree_build_block_kernel<256>
        <<<(unsigned)num_rows, 256, 0, stream>>>(d_weights, ld, n, d_trees, tree_floats);
  } else {
    const int rows_per_block = kBuildWarpThreads / 32;
    const unsigned grid = (unsigned)(((long long)num_rows + rows_per_block - 1) / rows_per_block);
    sk_detail_wary_tree_build_warp_kernel<<<grid, kBuildWarpThreads, 0, stream>>>(d_weights, ld, num_rows, n,
                                                                                  d_trees, tree_floats);
  }
  return sk_detail_check_launch();
}

extern "C" sk_status sk_wary_tree_batch_sample_f32(const float *d_trees, size_t trees_bytes, int num_rows, int n,
                                                   const int *d_rows, size_t num_samples, uint64_t seed,
                                                   uint64_t offset, int *d_out, sk_stream stream) {
  if (num_rows < 0 || sk_wary_tree_num_levels(n) == 0) return SK_ERROR_INVALID_VALUE;
  if (num_samples == 0) return SK_SUCCESS;
  if (offset > UINT64_MAX - (uint64_t)num_samples) return SK_ERROR_INVALID_VALUE;
  if (d_rows == nullptr || d_out == nullptr || (num_rows > 0 && d_trees == nullptr)) return SK_ERROR_NULL_POINTER;
  size_t needed = 0;
  const sk_status sized = sk_wary_tree_batch_bytes(num_rows, n, &needed);
  if (sized != SK_SUCCESS) return sized;
  if (trees_bytes < needed) return SK_ERROR_WORKSPACE_TOO_SMALL;

  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;

  const uint64_t chunks = ((uint64_t)num_samples + 31) / 32;
  const uint64_t wanted = (chunks + kSampleThreads / 32 - 1) / (kSampleThreads / 32);
  const unsigned grid = wanted < kSampleMaxBlocks ? (unsigned)wanted : kSampleMaxBlocks;
  sk_detail_wary_tree_sample_kernel<<<grid, kSampleThreads, 0, stream>>>(
      d_trees, sk_wary_tree_floats(n), num_rows, sk_wary_tree_make_view_f32(d_trees, n), d_rows,
      (uint64_t)num_samples, seed, offset, d_out);
  return sk_detail_check_launch();
}
