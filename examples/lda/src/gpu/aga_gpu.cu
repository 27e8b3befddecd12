// AGA-LDA's kernels (aga_gpu.cuh): DT and DNT per mini-batch, then a block per column panel with the
// panel's word-topic rows in shared memory and a warp per token. Composed from samplekit's warp running
// sums (the register cache, or the total and the walk) and its RNG; what is AGA's own is the mini-batch
// and panel structure, the shared and global atomics and the precomputed DNT.
#include "gpu/aga_gpu.cuh"

#include "samplekit/rng.cuh"
#include "samplekit/warp_sample_prefix.cuh"

namespace sk_lda_gpu {
namespace {

constexpr int kDefaultThreads = 256;
// A panel's rows take at most this much shared memory (about 4 blocks per SM), unless one row is longer.
constexpr size_t kPanelBytes = 48 * 1024;
// K up to this many rounds of 32 topics is drawn from the register cache: one read of the weights.
constexpr int kCachedRounds = 8;

// nt_den[k] = NT[k] + V beta, in float, as the mini-batch starts.
__global__ void nt_den_kernel(const unsigned long long *nt, int32_t num_topics, float vbeta, float *nt_den) {
  const int32_t k = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < num_topics) nt_den[k] = (float)((double)(long long)nt[k] + (double)vbeta);
}

// Block i: document first_doc + i's DT row counted from z (integer atomics, any order), then its DNT row.
__global__ void dt_dnt_kernel(aga_params p, int32_t first_doc) {
  const int32_t K = p.num_topics, d = first_doc + (int32_t)blockIdx.x;
  int32_t *dt = p.dt + (size_t)blockIdx.x * (size_t)K;
  float *dnt = p.dnt + (size_t)blockIdx.x * (size_t)K;
  for (int32_t k = (int32_t)threadIdx.x; k < K; k += (int32_t)blockDim.x) dt[k] = 0;
  __syncthreads();
  for (int32_t t = p.doc_offsets[d] + (int32_t)threadIdx.x; t < p.doc_offsets[d + 1]; t += (int32_t)blockDim.x)
    atomicAdd(dt + p.z[t], 1);
  __syncthreads();
  for (int32_t k = (int32_t)threadIdx.x; k < K; k += (int32_t)blockDim.x)
    dnt[k] = ((float)dt[k] + p.alpha) / p.nt_den[k];
}

// A token's weights: (WT[v,k] + beta) DNT[d,k], its own count out of DT and NT at its old topic. WT is
// read through volatile: other warps of the block change it as they draw.
struct aga_weights {
  const volatile int32_t *row;
  const float *dnt_row;
  float beta, own;
  int32_t old;
  __device__ __forceinline__ float operator()(int k) const {
    return ((float)row[k] + beta) * (k == old ? own : dnt_row[k]);
  }
};

__global__ void aga_panel_kernel(aga_params p, int32_t first_doc, int32_t first_panel) {
  extern __shared__ int32_t wt_rows[];
  const int32_t K = p.num_topics, panel = first_panel + (int32_t)blockIdx.x;
  const int32_t w0 = p.panel_word[panel], num_words = p.panel_word[panel + 1] - w0;
  for (int32_t i = (int32_t)threadIdx.x; i < num_words * K; i += (int32_t)blockDim.x) {
    const int32_t r = i / K;
    wt_rows[i] = p.wt[(size_t)p.words[w0 + r] * (size_t)K + (size_t)(i - r * K)];
  }
  __syncthreads();
  const int lane = (int)(threadIdx.x & 31u);
  const int32_t warp = (int32_t)(threadIdx.x / 32u), warps = (int32_t)(blockDim.x / 32u);
  for (int32_t pos = p.panel_pos[panel] + warp; pos < p.panel_pos[panel + 1]; pos += warps) {
    const int32_t t = p.order[pos], d = p.doc[pos] - first_doc;
    int32_t *row = wt_rows + (size_t)p.local[pos] * (size_t)K;
    const int32_t old = p.z[t];
    if (lane == 0) {
      if (p.planted_bug != 1) atomicSub(row + old, 1);
      atomicAdd(p.nt + old, ~0ull);  // - 1 modulo 2^64
    }
    __syncwarp();
    const float own =
        ((float)(p.dt[(size_t)d * (size_t)K + (size_t)old] - 1) + p.alpha) / (p.nt_den[old] - 1.0f);
    const aga_weights weights{row, p.dnt + (size_t)d * (size_t)K, p.beta, own, old};
    const float u = sk_rng_uniform_f32(p.seed, p.iteration, (uint64_t)t);
    int topic;
    if (K <= kCachedRounds * 32) {
      sk_warp_prefix_cache_f32<kCachedRounds> cache;
      sk_warp_prefix_cache_build_by_f32(SK_FULL_MASK, weights, K, &cache);
      topic = sk_warp_prefix_cache_sample_f32(SK_FULL_MASK, cache, u * cache.total);
    } else {
      // The paper's two passes; WT may change between them, and a u past the second pass's total then
      // gives the last topic (every weight is positive).
      const float total = sk_warp_prefix_total_by_f32(SK_FULL_MASK, weights, K);
      topic = sk_warp_sample_prefix_by_f32(SK_FULL_MASK, weights, K, u * total);
    }
    if (topic < 0) topic = old;  // no positive weight: cannot happen with alpha, beta > 0
    if (lane == 0) {
      atomicAdd(row + topic, 1);
      atomicAdd(p.nt + topic, 1ull);
      p.z[t] = topic;
    }
  }
  __syncthreads();
  for (int32_t i = (int32_t)threadIdx.x; i < num_words * K; i += (int32_t)blockDim.x) {
    const int32_t r = i / K;
    p.wt[(size_t)p.words[w0 + r] * (size_t)K + (size_t)(i - r * K)] = wt_rows[i];
  }
}

}  // namespace

cudaError_t aga_choose_launch(int gpu, int32_t num_topics, int threads, aga_launch *out) {
  aga_launch l = {};
  l.threads = threads > 0 ? threads : kDefaultThreads;
  int optin = 0;
  cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu);
  if (e != cudaSuccess) return e;
  const size_t row_bytes = (size_t)num_topics * sizeof(int32_t);
  if (row_bytes > (size_t)optin) return cudaErrorInvalidValue;
  l.panel_words = row_bytes > kPanelBytes ? 1 : (int)(kPanelBytes / row_bytes);
  l.shared_bytes = (size_t)l.panel_words * row_bytes;
  e = cudaFuncSetAttribute(aga_panel_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)l.shared_bytes);
  if (e != cudaSuccess) return e;
  *out = l;
  return cudaSuccess;
}

cudaError_t aga_batch_launch(const aga_params &p, const aga_launch &launch, int32_t first_doc, int32_t end_doc,
                             int32_t first_panel, int32_t end_panel, cudaStream_t stream) {
  if (end_doc <= first_doc) return cudaSuccess;
  nt_den_kernel<<<(unsigned)((p.num_topics + 255) / 256), 256, 0, stream>>>(p.nt, p.num_topics, p.vbeta, p.nt_den);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  dt_dnt_kernel<<<(unsigned)(end_doc - first_doc), 128, 0, stream>>>(p, first_doc);
  e = cudaGetLastError();
  if (e != cudaSuccess || end_panel <= first_panel) return e;
  aga_panel_kernel<<<(unsigned)(end_panel - first_panel), (unsigned)launch.threads, launch.shared_bytes, stream>>>(
      p, first_doc, first_panel);
  return cudaGetLastError();
}

}  // namespace sk_lda_gpu
