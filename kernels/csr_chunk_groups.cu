// sk_csr_chunk_groups_device: a chunk's groups and items (csr_chunker.h) on the device, equal bit for bit
// to sk_csr_chunk_groups_host(). Group starts are flags over the word order, numbered by a scan; a warp
// cuts each word's groups into items with ballots; a scan numbers the items and a stable radix sort
// lists them by decreasing size.
#include <stddef.h>
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "samplekit/csr_chunker.h"
#include "sk_detail_cuda.h"

static_assert(sizeof(size_t) >= 8, "the workspace arithmetic assumes a 64-bit size_t");

namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / 32;
constexpr size_t kAlign = 256;     // every workspace region starts on this boundary
constexpr int kRegions = 6;        // workspace regions of n + 1 int32 each (see Layout)
constexpr unsigned kFull = 0xffffffffu;
constexpr unsigned kMaxItemBlocks = 1u << 16;  // the items kernel strides over the words beyond this

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// A token's word as the device order places it: one outside [0, num_cols) (negative ones included,
// read as unsigned) counts as num_cols - 1.
__device__ __forceinline__ uint32_t word_of(int32_t token, uint32_t num_cols) {
  const uint32_t w = (uint32_t)token;
  return w < num_cols ? w : num_cols - 1u;
}

// A value read from the caller's order, kept inside [0, bound) (valid inputs always are): no garbage
// can make a kernel read outside the arrays.
__device__ __forceinline__ uint32_t inside(int64_t v, uint32_t bound) {
  return v >= 0 && v < (int64_t)bound ? (uint32_t)v : 0u;
}

// (1) row_of[i] = the row of token i: the last r in [0, num_rows) with off[r] - off[0] <= i. The threads
// of a warp search for neighbouring tokens, so they share all but the last few loads.
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_rows_kernel(const int64_t *off, uint32_t num_rows, uint32_t n, int32_t *row_of) {
  const uint32_t i = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (i >= n) return;
  const int64_t target = off[0] + (int64_t)i;
  uint32_t lo = 0, hi = num_rows - 1u;  // num_rows >= 1 when there are tokens
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1u) / 2u;
    if (off[mid] <= target)
      lo = mid;
    else
      hi = mid - 1u;
  }
  row_of[i] = (int32_t)lo;
}

// (2) flags[j] = 1 when word-order position j starts a group: the first position of its word, or the
// first of its row within the word. The positions of a word hold its tokens in document order, so the
// token before j (same word) is in the same row iff it is not before the row's first token. flags[n] = 0
// (the scan's last entry is then the number of groups).
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_heads_kernel(const int32_t *perm, const int32_t *tokens, const int32_t *row_of,
                                  const int64_t *off, const int64_t *word_offsets, uint32_t n, uint32_t num_cols,
                                  int32_t *flags) {
  const uint32_t j = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (j > n) return;
  if (j == n) {
    flags[n] = 0;
    return;
  }
  int32_t head = 1;
  if (j > 0) {
    const uint32_t p = inside(perm[j], n);
    const uint32_t w = word_of(tokens[p], num_cols);
    if (word_offsets[w] != (int64_t)j) {
      const uint32_t q = inside(perm[j - 1], n);
      head = (int64_t)q < off[row_of[p]] - off[0];
    }
  }
  flags[j] = head;
}

// (3) After the scan (gidx[j] = groups starting before j, gidx[n] = G): each group's start and row, the
// final start, and G.
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_write_kernel(const int32_t *gidx, const int32_t *perm, const int32_t *row_of, uint32_t n,
                                  int32_t *group_start, int32_t *group_row, int64_t *counts) {
  const uint32_t j = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (j > n) return;
  const uint32_t num_groups = (uint32_t)gidx[n];
  if (j == n) {
    group_start[num_groups] = (int32_t)n;
    counts[0] = (int64_t)num_groups;
  } else if (gidx[j + 1] != gidx[j]) {
    const int32_t g = gidx[j];
    group_start[g] = (int32_t)j;
    group_row[g] = row_of[inside(perm[j], n)];
  }
}

// A warp cuts the groups [a, b) of one word into items: 32 groups at a time, a ballot finds the first
// group past the open item's start that would take it past item_tokens tokens, which starts the next
// item; the ballot is repeated from there until no group of the 32 does. item_flags[g] = 1 for each
// item's first group, 0 for the others. Every lane calls, with the same a and b.
__device__ __forceinline__ void cut_word(uint32_t a, uint32_t b, const int32_t *group_start, int32_t item_tokens,
                                         int32_t *item_flags, unsigned lane) {
  int64_t open_start = group_start[a];  // the open item's first position
  uint32_t open_group = a;              // and its first group
  for (uint32_t base = a; base < b; base += 32u) {
    const uint32_t g = base + lane;
    const bool valid = g < b;
    const int64_t start = valid ? (int64_t)group_start[g] : 0;
    const int64_t end = valid ? (int64_t)group_start[g + 1] : 0;
    int32_t flag = g == a;
    for (;;) {
      const unsigned over = __ballot_sync(kFull, valid && g > open_group && end - open_start > (int64_t)item_tokens);
      if (over == 0u) break;
      const int first = __ffs((int)over) - 1;
      if ((int)lane == first) flag = 1;
      open_group = base + (uint32_t)first;
      open_start = __shfl_sync(kFull, start, first);
    }
    if (valid) item_flags[g] = flag;
  }
}

// (4) Items: each warp takes runs of 32 words; a word's groups are [gidx[word_offsets[w]],
// gidx[word_offsets[w + 1]]), since its first position starts a group.
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_items_kernel(const int64_t *word_offsets, const int32_t *gidx, const int32_t *group_start,
                                  uint32_t n, uint32_t num_cols, int32_t item_tokens, int32_t *item_flags) {
  const unsigned lane = lane_id();
  const uint64_t warp = (uint64_t)blockIdx.x * kWarpsPerBlock + threadIdx.x / 32u;
  const uint64_t stride = (uint64_t)gridDim.x * kWarpsPerBlock * 32u;
  for (uint64_t first_word = warp * 32u; first_word < num_cols; first_word += stride) {
    const uint64_t w = first_word + lane;
    uint32_t g0 = 0, g1 = 0;
    if (w < num_cols) {
      const uint32_t j0 = inside(word_offsets[w], n + 1u), j1 = inside(word_offsets[w + 1], n + 1u);
      if (j1 > j0) {
        g0 = (uint32_t)gidx[j0];
        g1 = (uint32_t)gidx[j1];
      }
    }
    unsigned todo = __ballot_sync(kFull, g1 > g0);
    while (todo != 0u) {
      const int l = __ffs((int)todo) - 1;
      todo &= todo - 1u;
      cut_word(__shfl_sync(kFull, g0, l), __shfl_sync(kFull, g1, l), group_start, item_tokens, item_flags, lane);
    }
  }
}

// (5) After the scan (iidx[g] = items starting before group g, iidx[n] = I): the items in word order, by
// their first group and their end (the next item's first group, or G for the last); I.
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_list_kernel(const int32_t *iidx, uint32_t n, int32_t *pos_group, int32_t *pos_end,
                                 int64_t *counts) {
  const uint32_t g = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  const uint32_t num_groups = (uint32_t)counts[0], num_items = (uint32_t)iidx[n];
  if (g == 0) counts[1] = (int64_t)num_items;
  if (g >= num_groups) return;
  if (iidx[g + 1] != iidx[g]) {
    const int32_t k = iidx[g];
    pos_group[k] = (int32_t)g;
    if (k > 0) pos_end[k - 1] = (int32_t)g;
  }
  if (g + 1u == num_groups && num_items > 0u) pos_end[num_items - 1u] = (int32_t)num_groups;
}

// Sort keys: mask - (the item's tokens), so that an ascending sort lists the largest first; the entries
// past the last item get mask, the largest key, so that they stay last (sizes are at least 1).
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_keys_kernel(const int32_t *group_start, const int32_t *pos_group, const int32_t *pos_end,
                                 const int64_t *counts, uint32_t n, uint32_t mask, uint32_t *keys, int32_t *values) {
  const uint32_t k = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (k >= n) return;
  const uint32_t num_items = (uint32_t)counts[1];
  uint32_t key = mask;
  if (k < num_items) key = mask - (uint32_t)(group_start[pos_end[k]] - group_start[pos_group[k]]);
  keys[k] = key;
  values[k] = (int32_t)k;
}

// (7) The items in sorted order, with their words.
__global__ void __launch_bounds__(kThreads)
    sk_detail_groups_gather_kernel(const int32_t *sorted, const int32_t *pos_group, const int32_t *pos_end,
                                   const int32_t *group_start, const int32_t *perm, const int32_t *tokens,
                                   const int64_t *counts, uint32_t n, uint32_t num_cols, int32_t *item_word,
                                   int32_t *item_group, int32_t *item_end) {
  const uint32_t j = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (j >= (uint32_t)counts[1]) return;
  const uint32_t k = inside(sorted[j], n);
  const int32_t g = pos_group[k];
  item_group[j] = g;
  item_end[j] = pos_end[k];
  item_word[j] = (int32_t)word_of(tokens[inside(perm[inside(group_start[inside(g, n)], n)], n)], num_cols);
}

size_t round_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

unsigned blocks_for(uint64_t items) { return (unsigned)((items + kThreads - 1) / kThreads); }

// Bits of n (n >= 1): the sort's keys are below 2^bits.
int key_bits(int64_t n) {
  int bits = 0;
  for (uint64_t v = (uint64_t)n; v != 0u; v >>= 1) ++bits;
  return bits;
}

// The workspace, from a base aligned up to kAlign (up to kAlign - 1 bytes of slack): six regions of
// n + 1 int32, then CUB's storage (the larger of the scan's and the sort's: they run one after the
// other). Their uses over the call:
//   R0 row_of            -> pos_group
//   R1 group flags, gidx -> pos_end
//   R2 item flags, iidx  -> the sort's second key buffer
//   R3 the sort's keys   R4 its values   R5 its second value buffer
struct Layout {
  size_t region_bytes;  // each region
  size_t fixed_bytes;   // slack + regions: known without asking CUDA
  size_t cub_bytes;
  size_t total_bytes;
  int bits;
};

void layout_fixed(int64_t num_tokens, Layout *l) {
  l->region_bytes = round_up(((size_t)num_tokens + 1) * sizeof(int32_t));
  l->fixed_bytes = num_tokens == 0 ? 0 : (kAlign - 1) + kRegions * l->region_bytes;
  l->cub_bytes = 0;
  l->total_bytes = l->fixed_bytes;
  l->bits = num_tokens == 0 ? 0 : key_bits(num_tokens);
}

// CUB's answers depend on the current device's architecture; asking launches nothing. A failed query is
// reported once (taken off the runtime's "last error").
sk_status layout_with_cub(int64_t num_tokens, Layout *l) {
  layout_fixed(num_tokens, l);
  if (num_tokens == 0) return SK_SUCCESS;
  const sk_status device = sk_detail_check_device();
  if (device != SK_SUCCESS) return device;
  size_t scan_bytes = 0, sort_bytes = 0;
  cudaError_t err = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (int32_t *)nullptr, num_tokens + 1,
                                                  (cudaStream_t)0);
  if (err == cudaSuccess) {
    cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr);
    cub::DoubleBuffer<int32_t> values(nullptr, nullptr);
    err = cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, values, (int)num_tokens, 0, l->bits,
                                          (cudaStream_t)0);
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return sk_status_from_cuda_error((int)err);
  }
  l->cub_bytes = scan_bytes > sort_bytes ? scan_bytes : sort_bytes;
  l->total_bytes = l->fixed_bytes + l->cub_bytes;
  return SK_SUCCESS;
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none). Written with
// differences, so that no size can wrap an address.
bool overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return false;
  return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

// An error from a CUB call (which returns it) or from a launch after it; taken off the "last error".
sk_status check_cub(cudaError_t err) {
  if (err == cudaSuccess) return sk_detail_check_launch();
  (void)cudaGetLastError();
  const sk_status st = sk_status_from_cuda_error((int)err);
  return st == SK_ERROR_CUDA ? SK_ERROR_CUDA_LAUNCH_FAILED : st;
}

sk_status groups_device(const int64_t *d_row_offsets, int64_t num_rows, const int32_t *d_tokens, int64_t num_tokens,
                        int32_t num_cols, const int32_t *d_perm, const int64_t *d_word_offsets, int32_t item_tokens,
                        int32_t *d_group_start, int32_t *d_group_row, int32_t *d_item_word, int32_t *d_item_group,
                        int32_t *d_item_end, int64_t *d_counts, void *d_workspace, size_t workspace_bytes,
                        sk_stream stream) {
  // Values, then pointers, then overlaps, then the workspace: the order the header lists.
  if (num_rows < 0 || num_rows > INT32_MAX || num_tokens < 0 || num_tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS ||
      num_cols < 0 || item_tokens < 1 || (num_tokens > 0 && (num_rows == 0 || num_cols == 0)))
    return SK_ERROR_INVALID_VALUE;
  if (d_row_offsets == nullptr || d_word_offsets == nullptr || d_group_start == nullptr || d_counts == nullptr)
    return SK_ERROR_NULL_POINTER;
  if (num_tokens > 0 && (d_tokens == nullptr || d_perm == nullptr || d_group_row == nullptr ||
                         d_item_word == nullptr || d_item_group == nullptr || d_item_end == nullptr ||
                         d_workspace == nullptr))
    return SK_ERROR_NULL_POINTER;
  const size_t n = (size_t)num_tokens;
  const size_t token_bytes = n * sizeof(int32_t);
  const size_t ws_bytes = num_tokens > 0 ? workspace_bytes : 0;  // unused (and unchecked) without tokens
  // Outputs (the first six) against every array and the workspace, and the workspace against the inputs
  // (the kernels write it while they read them).
  const void *arrays[11] = {d_group_start, d_group_row, d_item_word, d_item_group, d_item_end, d_counts,
                            d_tokens,      d_perm,      d_row_offsets, d_word_offsets, d_workspace};
  const size_t bytes[11] = {token_bytes + sizeof(int32_t),
                            token_bytes,
                            token_bytes,
                            token_bytes,
                            token_bytes,
                            2 * sizeof(int64_t),
                            token_bytes,
                            token_bytes,
                            ((size_t)num_rows + 1) * sizeof(int64_t),
                            ((size_t)num_cols + 1) * sizeof(int64_t),
                            ws_bytes};
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 11; ++b)
      if (overlap(arrays[a], bytes[a], arrays[b], bytes[b])) return SK_ERROR_INVALID_VALUE;
  for (int b = 6; b < 10; ++b)
    if (overlap(arrays[10], bytes[10], arrays[b], bytes[b])) return SK_ERROR_INVALID_VALUE;
  Layout l;
  layout_fixed(num_tokens, &l);
  if (workspace_bytes < l.fixed_bytes) return SK_ERROR_WORKSPACE_TOO_SMALL;

  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;

  // No tokens: no groups, no items.
  if (num_tokens == 0) {
    cudaError_t err = cudaMemsetAsync(d_group_start, 0, sizeof(int32_t), stream);
    if (err == cudaSuccess) err = cudaMemsetAsync(d_counts, 0, 2 * sizeof(int64_t), stream);
    if (err != cudaSuccess) (void)cudaGetLastError();
    return sk_status_from_cuda_error((int)err);
  }

  const sk_status sized = layout_with_cub(num_tokens, &l);
  if (sized != SK_SUCCESS) return sized;
  if (workspace_bytes < l.total_bytes) return SK_ERROR_WORKSPACE_TOO_SMALL;

  char *base = (char *)(((uintptr_t)d_workspace + (kAlign - 1)) & ~(uintptr_t)(kAlign - 1));
  int32_t *region[kRegions];
  for (int r = 0; r < kRegions; ++r) region[r] = (int32_t *)(base + (size_t)r * l.region_bytes);
  void *cub_temp = base + (size_t)kRegions * l.region_bytes;
  int32_t *const row_of = region[0], *const pos_group = region[0];
  int32_t *const gidx = region[1], *const pos_end = region[1];
  int32_t *const iidx = region[2];
  const uint32_t un = (uint32_t)n, cols = (uint32_t)num_cols;
  const unsigned grid = blocks_for(n), grid1 = blocks_for(n + 1);
  sk_status st;

  sk_detail_groups_rows_kernel<<<grid, kThreads, 0, stream>>>(d_row_offsets, (uint32_t)num_rows, un, row_of);
  if ((st = sk_detail_check_launch()) != SK_SUCCESS) return st;
  sk_detail_groups_heads_kernel<<<grid1, kThreads, 0, stream>>>(d_perm, d_tokens, row_of, d_row_offsets,
                                                                d_word_offsets, un, cols, gidx);
  if ((st = sk_detail_check_launch()) != SK_SUCCESS) return st;
  size_t cub_bytes = l.cub_bytes;
  st = check_cub(cub::DeviceScan::ExclusiveSum(cub_temp, cub_bytes, gidx, num_tokens + 1, stream));
  if (st != SK_SUCCESS) return st;
  sk_detail_groups_write_kernel<<<grid1, kThreads, 0, stream>>>(gidx, d_perm, row_of, un, d_group_start, d_group_row,
                                                                d_counts);
  if ((st = sk_detail_check_launch()) != SK_SUCCESS) return st;

  // Item flags: zero first, so that whatever the order's arrays hold, every flag is 0 or 1 and the items
  // are at most the groups (valid ones have the items kernel write every flag of [0, G)).
  cudaError_t err = cudaMemsetAsync(iidx, 0, ((size_t)n + 1) * sizeof(int32_t), stream);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return sk_status_from_cuda_error((int)err);
  }

  const uint64_t word_warps = ((uint64_t)cols + 31u) / 32u;
  uint64_t item_blocks = (word_warps + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (item_blocks > kMaxItemBlocks) item_blocks = kMaxItemBlocks;
  sk_detail_groups_items_kernel<<<(unsigned)item_blocks, kThreads, 0, stream>>>(d_word_offsets, gidx, d_group_start,
                                                                                un, cols, item_tokens, iidx);
  if ((st = sk_detail_check_launch()) != SK_SUCCESS) return st;
  cub_bytes = l.cub_bytes;
  st = check_cub(cub::DeviceScan::ExclusiveSum(cub_temp, cub_bytes, iidx, num_tokens + 1, stream));
  if (st != SK_SUCCESS) return st;
  // pos_end overwrites gidx, which nothing reads any more; the number of groups is in d_counts[0].
  sk_detail_groups_list_kernel<<<grid, kThreads, 0, stream>>>(iidx, un, pos_group, pos_end, d_counts);
  if ((st = sk_detail_check_launch()) != SK_SUCCESS) return st;

  const uint32_t mask = (uint32_t)(((uint64_t)1 << l.bits) - 1u);
  uint32_t *const keys = (uint32_t *)region[3];
  sk_detail_groups_keys_kernel<<<grid, kThreads, 0, stream>>>(d_group_start, pos_group, pos_end, d_counts, un, mask,
                                                              keys, region[4]);
  if ((st = sk_detail_check_launch()) != SK_SUCCESS) return st;
  // iidx is read by nothing after the list kernel: it is the sort's second key buffer.
  cub::DoubleBuffer<uint32_t> sorted_keys(keys, (uint32_t *)iidx);
  cub::DoubleBuffer<int32_t> sorted_values(region[4], region[5]);
  cub_bytes = l.cub_bytes;
  st = check_cub(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, sorted_keys, sorted_values, (int)num_tokens, 0,
                                                 l.bits, stream));
  if (st != SK_SUCCESS) return st;

  sk_detail_groups_gather_kernel<<<grid, kThreads, 0, stream>>>(sorted_values.Current(), pos_group, pos_end,
                                                                d_group_start, d_perm, d_tokens, d_counts, un, cols,
                                                                d_item_word, d_item_group, d_item_end);
  return sk_detail_check_launch();
}

}  // namespace

// Nothing below throws (CUB's host side reports errors as return values); the catch-all only makes sure
// that no C++ exception can ever cross the C boundary.
extern "C" sk_status sk_csr_chunk_groups_device_workspace_size(int64_t max_tokens, size_t *workspace_bytes) {
  try {
    if (workspace_bytes == nullptr) return SK_ERROR_NULL_POINTER;
    if (max_tokens < 0 || max_tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS) return SK_ERROR_INVALID_VALUE;
    Layout l;
    const sk_status st = layout_with_cub(max_tokens, &l);
    if (st == SK_SUCCESS) *workspace_bytes = l.total_bytes;
    return st;
  } catch (...) {
    return SK_ERROR_INTERNAL;
  }
}

extern "C" sk_status sk_csr_chunk_groups_device(const int64_t *d_row_offsets, int64_t num_rows,
                                                const int32_t *d_tokens, int64_t num_tokens, int32_t num_cols,
                                                const int32_t *d_perm, const int64_t *d_word_offsets,
                                                int32_t item_tokens, int32_t *d_group_start, int32_t *d_group_row,
                                                int32_t *d_item_word, int32_t *d_item_group, int32_t *d_item_end,
                                                int64_t *d_counts, void *d_workspace, size_t workspace_bytes,
                                                sk_stream stream) {
  try {
    return groups_device(d_row_offsets, num_rows, d_tokens, num_tokens, num_cols, d_perm, d_word_offsets,
                         item_tokens, d_group_start, d_group_row, d_item_word, d_item_group, d_item_end, d_counts,
                         d_workspace, workspace_bytes, stream);
  } catch (...) {
    return SK_ERROR_INTERNAL;
  }
}
