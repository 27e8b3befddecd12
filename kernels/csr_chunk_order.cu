// sk_csr_chunk_order_device: a chunk's PDOW order (csr_chunker.h) on the device, equal bit for bit to
// sk_csr_chunk_order_host(). A stable LSD radix sort of (word, position) pairs gives the permutation;
// a binary search per word gives the offsets; a scatter gives the inverse.
#include <stddef.h>
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>

#include "samplekit/csr_chunker.h"
#include "sk_detail_cuda.h"

static_assert(sizeof(size_t) >= 8, "the workspace arithmetic assumes a 64-bit size_t");

namespace {

constexpr int kThreads = 256;
constexpr size_t kAlign = 256;  // every workspace region starts on this boundary

// Keys and positions for the sort. A token outside [0, num_cols) (negative ones included, read as
// unsigned) becomes word num_cols - 1: the keys then all lie in [0, num_cols), so the sort on the low
// bits of num_cols - 1 orders them completely and the binary searches below stay inside the arrays.
__global__ void __launch_bounds__(kThreads)
    sk_detail_chunk_order_keys_kernel(const int32_t *tokens, uint32_t num_tokens, uint32_t num_cols,
                                      uint32_t *keys, int32_t *positions) {
  const uint32_t i = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (i >= num_tokens) return;
  const uint32_t w = (uint32_t)tokens[i];
  keys[i] = w < num_cols ? w : num_cols - 1u;
  positions[i] = (int32_t)i;
}

// word_offsets[w] = the number of sorted keys below w (a lower bound), for w in [0, num_cols]. The
// threads of a warp search for neighbouring words, so their searches share all but the last few
// loads; a word costs about log2(num_tokens) loads, most of them broadcasts within the warp.
__global__ void __launch_bounds__(kThreads)
    sk_detail_chunk_order_offsets_kernel(const uint32_t *sorted_keys, uint32_t num_tokens, uint32_t num_cols,
                                         int64_t *word_offsets) {
  const uint64_t w = (uint64_t)blockIdx.x * kThreads + threadIdx.x;
  if (w > num_cols) return;
  uint32_t lo = 0, hi = num_tokens;
  if (w == num_cols) lo = num_tokens;  // every key is below num_cols
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2u;
    if (sorted_keys[mid] < (uint32_t)w)
      lo = mid + 1u;
    else
      hi = mid;
  }
  word_offsets[w] = (int64_t)lo;
}

// inverse[perm[j]] = j; and perm copied to its place when the sort left it in the workspace.
template <bool CopyPerm>
__global__ void __launch_bounds__(kThreads)
    sk_detail_chunk_order_inverse_kernel(const int32_t *sorted_positions, uint32_t num_tokens, int32_t *perm,
                                         int32_t *inverse) {
  const uint32_t j = blockIdx.x * (uint32_t)kThreads + threadIdx.x;
  if (j >= num_tokens) return;
  const int32_t p = sorted_positions[j];  // a permutation of [0, num_tokens): always in range
  if (CopyPerm) perm[j] = p;
  inverse[p] = (int32_t)j;
}

size_t round_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Bits of num_cols - 1: the bits the sort must look at (0 when there is at most one word).
int word_bits(int32_t num_cols) {
  int bits = 0;
  for (uint32_t v = num_cols > 1 ? (uint32_t)(num_cols - 1) : 0u; v != 0u; v >>= 1) ++bits;
  return bits;
}

unsigned blocks_for(uint64_t items) { return (unsigned)((items + kThreads - 1) / kThreads); }

// The workspace, from a base aligned up to kAlign (up to kAlign - 1 bytes of slack, so that any base
// address works): the sort's keys and positions (its first buffers; d_inverse and d_perm are its
// second ones), then CUB's temporary storage. Nothing when there are no tokens.
struct Layout {
  size_t fixed_bytes;  // slack + keys + positions: known without asking CUDA
  size_t cub_bytes;    // CUB's temporary storage (0 when the sort is skipped)
  size_t total_bytes;
  int end_bit;
};

void layout_fixed(int64_t num_tokens, int32_t num_cols, Layout *l) {
  const size_t array_bytes = round_up((size_t)num_tokens * sizeof(uint32_t));
  l->end_bit = word_bits(num_cols);
  l->fixed_bytes = num_tokens == 0 ? 0 : (kAlign - 1) + 2 * array_bytes;
  l->cub_bytes = 0;
  l->total_bytes = l->fixed_bytes;
}

// CUB's answer depends on the current device's architecture; asking launches nothing. A failed query
// is reported once: its error is taken off the runtime's "last error", so that the next call does not
// see it as pending.
sk_status layout_with_cub(int64_t num_tokens, int32_t num_cols, Layout *l) {
  layout_fixed(num_tokens, num_cols, l);
  if (num_tokens == 0 || l->end_bit == 0) return SK_SUCCESS;
  const sk_status device = sk_detail_check_device();
  if (device != SK_SUCCESS) return device;
  cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<int32_t> values(nullptr, nullptr);
  size_t bytes = 0;
  const cudaError_t err =
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, (int)num_tokens, 0, l->end_bit, (cudaStream_t)0);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return sk_status_from_cuda_error((int)err);
  }
  l->cub_bytes = bytes;
  l->total_bytes = l->fixed_bytes + bytes;
  return SK_SUCCESS;
}

bool valid_sizes(int64_t num_tokens, int32_t num_cols) {
  return num_tokens >= 0 && num_tokens <= (int64_t)SK_CSR_CHUNK_MAX_TOKENS && num_cols >= 0;
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none). Written with
// differences, so that no size (a caller's workspace_bytes may be anything) can wrap an address.
bool overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return false;
  return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

// An error from a CUB call (which returns it) or from a launch after it (which leaves it for
// cudaGetLastError); either way it is taken off the runtime's "last error" here.
sk_status check_cub(cudaError_t err) {
  if (err == cudaSuccess) return sk_detail_check_launch();
  (void)cudaGetLastError();
  const sk_status st = sk_status_from_cuda_error((int)err);
  return st == SK_ERROR_CUDA ? SK_ERROR_CUDA_LAUNCH_FAILED : st;
}

sk_status order_device(const int32_t *d_tokens, int64_t num_tokens, int32_t num_cols, int32_t *d_perm,
                       int32_t *d_inverse, int64_t *d_word_offsets, void *d_workspace, size_t workspace_bytes,
                       sk_stream stream) {
  // Values, then pointers, then overlaps, then the workspace: the order the header lists.
  if (!valid_sizes(num_tokens, num_cols) || (num_cols == 0 && num_tokens > 0)) return SK_ERROR_INVALID_VALUE;
  if (d_word_offsets == nullptr) return SK_ERROR_NULL_POINTER;
  if (num_tokens > 0 &&
      (d_tokens == nullptr || d_perm == nullptr || d_inverse == nullptr || d_workspace == nullptr))
    return SK_ERROR_NULL_POINTER;
  const size_t token_bytes = (size_t)num_tokens * sizeof(int32_t);
  const size_t offset_bytes = ((size_t)num_cols + 1) * sizeof(int64_t);
  const size_t ws_bytes = num_tokens > 0 ? workspace_bytes : 0;  // unused (and unchecked) without tokens
  if (overlap(d_tokens, token_bytes, d_perm, token_bytes) || overlap(d_tokens, token_bytes, d_inverse, token_bytes) ||
      overlap(d_perm, token_bytes, d_inverse, token_bytes) ||
      overlap(d_word_offsets, offset_bytes, d_tokens, token_bytes) ||
      overlap(d_word_offsets, offset_bytes, d_perm, token_bytes) ||
      overlap(d_word_offsets, offset_bytes, d_inverse, token_bytes) ||
      overlap(d_workspace, ws_bytes, d_tokens, token_bytes) || overlap(d_workspace, ws_bytes, d_perm, token_bytes) ||
      overlap(d_workspace, ws_bytes, d_inverse, token_bytes) ||
      overlap(d_workspace, ws_bytes, d_word_offsets, offset_bytes))
    return SK_ERROR_INVALID_VALUE;
  Layout l;
  layout_fixed(num_tokens, num_cols, &l);
  if (workspace_bytes < l.fixed_bytes) return SK_ERROR_WORKSPACE_TOO_SMALL;

  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;

  // No tokens: every word is empty; one memset, nothing else.
  if (num_tokens == 0) {
    const cudaError_t err = cudaMemsetAsync(d_word_offsets, 0, offset_bytes, stream);
    if (err != cudaSuccess) (void)cudaGetLastError();
    return sk_status_from_cuda_error((int)err);
  }

  const sk_status sized = layout_with_cub(num_tokens, num_cols, &l);
  if (sized != SK_SUCCESS) return sized;
  if (workspace_bytes < l.total_bytes) return SK_ERROR_WORKSPACE_TOO_SMALL;

  char *base = (char *)(((uintptr_t)d_workspace + (kAlign - 1)) & ~(uintptr_t)(kAlign - 1));
  const size_t array_bytes = round_up(token_bytes);
  uint32_t *keys = (uint32_t *)base;
  int32_t *positions = (int32_t *)(base + array_bytes);
  void *cub_temp = base + 2 * array_bytes;
  const uint32_t n = (uint32_t)num_tokens;
  const unsigned grid = blocks_for(n);

  sk_detail_chunk_order_keys_kernel<<<grid, kThreads, 0, stream>>>(d_tokens, n, (uint32_t)num_cols, keys, positions);
  sk_status st = sk_detail_check_launch();
  if (st != SK_SUCCESS) return st;

  // d_inverse and d_perm are the sort's second buffers: the result ends in either buffer of each pair.
  cub::DoubleBuffer<uint32_t> sorted_keys(keys, (uint32_t *)d_inverse);
  cub::DoubleBuffer<int32_t> sorted_positions(positions, d_perm);
  if (l.end_bit > 0) {  // one word: the keys are all 0 and already in order
    size_t cub_bytes = l.cub_bytes;
    st = check_cub(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, sorted_keys, sorted_positions, (int)n, 0,
                                                   l.end_bit, stream));
    if (st != SK_SUCCESS) return st;
  }

  // The offsets read the sorted keys, which may be in d_inverse: they go before the inverse is written.
  sk_detail_chunk_order_offsets_kernel<<<blocks_for((uint64_t)num_cols + 1), kThreads, 0, stream>>>(
      sorted_keys.Current(), n, (uint32_t)num_cols, d_word_offsets);
  st = sk_detail_check_launch();
  if (st != SK_SUCCESS) return st;

  if (sorted_positions.Current() == d_perm)
    sk_detail_chunk_order_inverse_kernel<false>
        <<<grid, kThreads, 0, stream>>>(sorted_positions.Current(), n, d_perm, d_inverse);
  else
    sk_detail_chunk_order_inverse_kernel<true>
        <<<grid, kThreads, 0, stream>>>(sorted_positions.Current(), n, d_perm, d_inverse);
  return sk_detail_check_launch();
}

}  // namespace

// Nothing below throws (CUB's host side reports errors as return values); the catch-all only makes
// sure that no C++ exception can ever cross the C boundary.
extern "C" sk_status sk_csr_chunk_order_device_workspace_size(int64_t max_tokens, int32_t num_cols,
                                                              size_t *workspace_bytes) {
  try {
    if (workspace_bytes == nullptr) return SK_ERROR_NULL_POINTER;
    if (!valid_sizes(max_tokens, num_cols)) return SK_ERROR_INVALID_VALUE;
    Layout l;
    const sk_status st = layout_with_cub(max_tokens, num_cols, &l);
    if (st == SK_SUCCESS) *workspace_bytes = l.total_bytes;
    return st;
  } catch (...) {
    return SK_ERROR_INTERNAL;
  }
}

extern "C" sk_status sk_csr_chunk_order_device(const int32_t *d_tokens, int64_t num_tokens, int32_t num_cols,
                                               int32_t *d_perm, int32_t *d_inverse, int64_t *d_word_offsets,
                                               void *d_workspace, size_t workspace_bytes, sk_stream stream) {
  try {
    return order_device(d_tokens, num_tokens, num_cols, d_perm, d_inverse, d_word_offsets, d_workspace,
                        workspace_bytes, stream);
  } catch (...) {
    return SK_ERROR_INTERNAL;
  }
}
