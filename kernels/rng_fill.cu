// sk_rng_fill_uniform_f32: one thread per Philox block of four outputs.
#include <stdint.h>

#include "samplekit/rng.cuh"
#include "sk_detail_cuda.h"

namespace {

constexpr int kFillThreads = 256;
constexpr unsigned kFillMaxBlocks = 8192;  // grid-stride beyond this: enough to fill any current GPU

// Block b of the stream holds indices 4b .. 4b+3; each thread writes the ones inside the request.
__global__ void sk_detail_rng_fill_kernel(uint64_t seed, uint64_t stream_id, uint64_t first_index,
                                          float *d_out, uint64_t num) {
  const uint64_t first_block = first_index >> 2;
  const uint64_t last_block = (first_index + num - 1) >> 2;
  const uint64_t step = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t b = first_block + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; b <= last_block;
       b += step) {
    const sk_f32x4 f = sk_rng_uniform4_f32(seed, stream_id, b);
    const float v[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const uint64_t index = 4 * b + (uint64_t)c;
      if (index >= first_index && index - first_index < num) d_out[index - first_index] = v[c];
    }
  }
}

}  // namespace

extern "C" sk_status sk_rng_fill_uniform_f32(uint64_t seed, uint64_t stream_id, uint64_t first_index,
                                             float *d_out, size_t num, sk_stream stream) {
  if (num == 0) return SK_SUCCESS;
  if (d_out == nullptr) return SK_ERROR_NULL_POINTER;
  if (first_index > UINT64_MAX - (uint64_t)num) return SK_ERROR_INVALID_VALUE;

  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;

  const uint64_t blocks_of_four = ((first_index + num - 1) >> 2) - (first_index >> 2) + 1;
  const uint64_t wanted = (blocks_of_four + kFillThreads - 1) / kFillThreads;
  const unsigned grid = wanted < kFillMaxBlocks ? (unsigned)wanted : kFillMaxBlocks;
  sk_detail_rng_fill_kernel<<<grid, kFillThreads, 0, stream>>>(seed, stream_id, first_index, d_out,
                                                                (uint64_t)num);
  return sk_detail_check_launch();
}
