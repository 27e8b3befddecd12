// AGA-LDA's kernels (aga_kernels.cuh): DT and DNT per mini-batch, then a block per column panel with the
// panel's word-topic rows in shared memory and a warp per token. Composed from samplekit's blocked draw
// (warp_blocked_sample.cuh, up to K = 256), its running-sum sampling (the total and the walk above), its
// warp votes and its RNG; what is AGA's own is the mini-batch and panel structure, the shared and global
// atomics and the precomputed DNT.
#include "gpu/aga_kernels.cuh"
#include "gpu/topic_inverse.cuh"

#include "aga_plan.h"

#include "samplekit/rng.cuh"
#include "samplekit/warp_blocked_sample.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sample_prefix.cuh"
#include "samplekit/warp_vote.cuh"

namespace sk_lda_gpu {
namespace {

constexpr int kDefaultThreads = 256;
// A panel's rows take at most this much shared memory (about 4 blocks per SM), unless one row is longer.
constexpr size_t kPanelBytes = 48 * 1024;

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
    dnt[k] = ((float)dt[k] + (p.alpha_k != nullptr ? p.alpha_k[k] : p.alpha)) / p.nt_den[k];
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

// Whether row r of a panel with `flags` and `num_words` rows is shared with a neighbouring panel.
__device__ __forceinline__ bool shared_row(int32_t r, int32_t num_words, unsigned flags) {
  return (r == 0 && (flags & SK_LDA_AGA_SHARES_FIRST)) || (r == num_words - 1 && (flags & SK_LDA_AGA_SHARES_LAST));
}

// One block per panel. Each warp takes runs of up to 32 consecutive positions (fewer when the panel is
// short, so that every warp has work); lane j loads the run's j-th token, its old topic, its own-count
// term and its uniform, once for the run, and the warp then draws the run's tokens in order, taking each
// token's values from its lane by shuffles. R: the blocked draw's topics a lane (0: the paper's two
// passes, for K > 256).
template <int R>
__global__ void aga_panel_kernel(aga_params p, int32_t first_doc, int32_t first_panel, int nt_in_shared) {
  extern __shared__ int32_t wt_rows[];
  const int32_t K = p.num_topics, panel = first_panel + (int32_t)blockIdx.x;
  const int32_t w0 = p.panel_word[panel], num_words = p.panel_word[panel + 1] - w0;
  const unsigned flags = p.panel_flags[panel];
  int32_t *nt_change = wt_rows + (size_t)num_words * (size_t)K;  // K counts when nt_in_shared
  for (int32_t i = (int32_t)threadIdx.x; i < num_words * K; i += (int32_t)blockDim.x) {
    const int32_t r = i / K;
    wt_rows[i] = p.wt[(size_t)p.words[w0 + r] * (size_t)K + (size_t)(i - r * K)];
  }
  if (nt_in_shared)
    for (int32_t k = (int32_t)threadIdx.x; k < K; k += (int32_t)blockDim.x) nt_change[k] = 0;
  __syncthreads();
  const int lane = sk_lane_id();
  const int32_t warp = (int32_t)(threadIdx.x / 32u), warps = (int32_t)(blockDim.x / 32u);
  const int32_t begin = p.panel_pos[panel], end = p.panel_pos[panel + 1];
  const int32_t run = min((int32_t)32, (end - begin + warps - 1) / warps);
  for (int32_t base = begin + warp * run; base < end; base += warps * run) {
    const int32_t count = min(run, end - base);
    int32_t my_t = 0, my_d = 0, my_r = 0, my_old = 0;
    float my_u = 0.0f, my_own = 0.0f;
    if (lane < count) {
      const int32_t pos = base + lane;
      my_t = p.order[pos];
      my_d = p.doc[pos] - first_doc;
      my_r = p.local[pos];
      my_old = p.z[my_t];
      my_u = sk_rng_uniform_f32(p.seed, p.iteration, (uint64_t)my_t);
      const float a_old = p.alpha_k != nullptr ? p.alpha_k[my_old] : p.alpha;
      my_own = ((float)(p.dt[(size_t)my_d * (size_t)K + (size_t)my_old] - 1) + a_old) / (p.nt_den[my_old] - 1.0f);
    }
    int32_t my_new = my_old;
    for (int j = 0; j < count; ++j) {
      const int32_t d = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)my_d, j);
      const int32_t r = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)my_r, j);
      const int32_t old = (int32_t)sk_warp_broadcast_u32(SK_FULL_MASK, (uint32_t)my_old, j);
      const float u = sk_warp_broadcast_f32(SK_FULL_MASK, my_u, j);
      const float own = sk_warp_broadcast_f32(SK_FULL_MASK, my_own, j);
      int32_t *row = wt_rows + (size_t)r * (size_t)K;
      // A shared row's changes also go to B at once (see the header); others wait for the write-back.
      int32_t *global_row = shared_row(r, num_words, flags) ? p.wt + (size_t)p.words[w0 + r] * (size_t)K : nullptr;
      if (lane == j) {
        if (p.planted_bug != 1) {
          atomicSub(row + old, 1);
          if (global_row != nullptr) atomicSub(global_row + old, 1);
        }
        if (nt_in_shared) atomicSub(nt_change + old, 1);
        else atomicAdd(p.nt + old, ~0ull);  // - 1 modulo 2^64
      }
      __syncwarp();
      const aga_weights weights{row, p.dnt + (size_t)d * (size_t)K, p.beta, own, old};
      int topic;
      if constexpr (R > 0) {
        // Lane j holds topics [j R, j R + R): one read of the weights and one warp scan a token, where
        // the walk below scans every 32 topics. A u x total past the sums, or past the owner lane's own
        // sums (float rounding), gives the last topic with a positive weight there.
        topic = sk_warp_blocked_sample_by_f32<R>(SK_FULL_MASK, weights, K, u);
      } else {
        // The paper's two passes; WT may change between them, and a u past the second pass's total then
        // gives the last topic (every weight is positive).
        const float total = sk_warp_prefix_total_by_f32(SK_FULL_MASK, weights, K);
        topic = sk_warp_sample_prefix_by_f32(SK_FULL_MASK, weights, K, u * total);
      }
      if (topic < 0) topic = old;  // no positive weight: cannot happen with alpha, beta > 0
      if (lane == j) {
        atomicAdd(row + topic, 1);
        if (global_row != nullptr) atomicAdd(global_row + topic, 1);
        if (nt_in_shared) atomicAdd(nt_change + topic, 1);
        else atomicAdd(p.nt + topic, 1ull);
        my_new = topic;
      }
    }
    if (lane < count) p.z[my_t] = my_new;
  }
  __syncthreads();
  for (int32_t i = (int32_t)threadIdx.x; i < num_words * K; i += (int32_t)blockDim.x) {
    const int32_t r = i / K;
    if (!shared_row(r, num_words, flags)) p.wt[(size_t)p.words[w0 + r] * (size_t)K + (size_t)(i - r * K)] = wt_rows[i];
  }
  if (nt_in_shared)
    for (int32_t k = (int32_t)threadIdx.x; k < K; k += (int32_t)blockDim.x)
      if (nt_change[k] != 0) atomicAdd(p.nt + k, (unsigned long long)(long long)nt_change[k]);
}

// The blocked draw's topics a lane for K topics: the power of two >= ceil(K / 32) up to 8, else 0 (the
// paper's two passes).
int default_lane_topics(int32_t K) {
  const int32_t per_lane = (K + 31) / 32;
  return per_lane <= 1 ? 1 : per_lane <= 2 ? 2 : per_lane <= 4 ? 4 : per_lane <= 8 ? 8 : 0;
}

using panel_kernel_t = void (*)(aga_params, int32_t, int32_t, int);
panel_kernel_t panel_kernel(int lane_topics) {
  switch (lane_topics) {
    case 1: return aga_panel_kernel<1>;
    case 2: return aga_panel_kernel<2>;
    case 4: return aga_panel_kernel<4>;
    case 8: return aga_panel_kernel<8>;
    default: return aga_panel_kernel<0>;
  }
}

}  // namespace

cudaError_t aga_choose_launch(int gpu, int32_t num_topics, int threads, int lane_topics, aga_launch *out) {
  aga_launch l = {};
  l.threads = threads > 0 ? threads : kDefaultThreads;
  l.lane_topics = lane_topics == 0 ? default_lane_topics(num_topics) : lane_topics == -1 ? 0 : lane_topics;
  int optin = 0;
  cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu);
  if (e != cudaSuccess) return e;
  const size_t row_bytes = (size_t)num_topics * sizeof(int32_t);
  if (row_bytes > (size_t)optin) return cudaErrorInvalidValue;
  // NT's change beside the rows when it fits with at least one row; the rows take the rest.
  l.nt_in_shared = 2 * row_bytes <= (size_t)optin;
  const size_t rows_bytes = kPanelBytes > (size_t)l.nt_in_shared * row_bytes ? kPanelBytes - l.nt_in_shared * row_bytes : 0;
  l.panel_words = row_bytes > rows_bytes ? 1 : (int)(rows_bytes / row_bytes);
  l.shared_bytes = ((size_t)l.panel_words + (size_t)l.nt_in_shared) * row_bytes;
  e = cudaFuncSetAttribute(panel_kernel(l.lane_topics), cudaFuncAttributeMaxDynamicSharedMemorySize,
                           (int)l.shared_bytes);
  if (e != cudaSuccess) return e;
  *out = l;
  return cudaSuccess;
}

cudaError_t aga_batch_launch(const aga_params &p, const aga_launch &launch, int32_t first_doc, int32_t end_doc,
                             int32_t first_panel, int32_t end_panel, cudaStream_t stream) {
  if (end_doc <= first_doc) return cudaSuccess;
  // nt_den[k] = NT[k] + V beta, in float, as the mini-batch starts.
  cudaError_t e = topic_denominator_f32_launch(p.nt, p.num_topics, (double)p.vbeta, p.nt_den, stream);
  if (e != cudaSuccess) return e;
  dt_dnt_kernel<<<(unsigned)(end_doc - first_doc), 128, 0, stream>>>(p, first_doc);
  e = cudaGetLastError();
  if (e != cudaSuccess || end_panel <= first_panel) return e;
  panel_kernel(launch.lane_topics)<<<(unsigned)(end_panel - first_panel), (unsigned)launch.threads,
                                     launch.shared_bytes, stream>>>(p, first_doc, first_panel, launch.nt_in_shared);
  return cudaGetLastError();
}

}  // namespace sk_lda_gpu
