// The word segments of GPU ESCA's fast draw: see esca_segments.cuh for the rule and why it keeps the draw.
#include "gpu/esca_segments.cuh"

#include <stdlib.h>

#include "samplekit/sk_device.h"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/wary_tree.h"

namespace sk_lda_gpu {
namespace {

constexpr int kRhoThreads = 256;
constexpr int kWordThreads = 256;

// rho_k = beta inv_k, or alpha_k (beta inv_k): the row weight of a zero count, times alpha_k as the dense
// part takes it; the prior tree over them is samplekit's batched build of one row.
__global__ void __launch_bounds__(kRhoThreads) rho_kernel(const float *inv, const float *alpha_k, int32_t num_topics,
                                                          float beta, float *rho) {
  const int32_t k = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < num_topics)
    rho[k] = alpha_k != nullptr ? alpha_k[k] * segment_row_weight(0, beta, inv[k]) : segment_row_weight(0, beta, inv[k]);
}

// Leaf e of word v's tree (esca_segments.cuh): the gap before k_e plus d_{k_e}, or the tail's prior mass.
struct segment_weights {
  const int32_t *topic, *count;  // the word's K_v topics and their counts B[v,k]
  const float *inv, *alpha_k, *prior;
  int32_t nnz, num_topics;
  float beta;
  __device__ float operator()(int e) const {
    const int32_t before = e > 0 ? topic[e - 1] : -1;
    if (e == nnz) return segment_prior_at(prior, num_topics - 1) - segment_prior_at(prior, before);
    const int32_t k = topic[e];
    float d = segment_row_weight(count[e], beta, inv[k]);
    if (alpha_k != nullptr) d = alpha_k[k] * d;
    return segment_gap(prior, before, k) + d;
  }
};

// B's row zeroed at a word's n listed topics, entries first, first + stride, ...: 4 reads of the list in
// flight before their stores (one at a time, each store waited on its read).
__device__ __forceinline__ void clear_listed(int32_t *b_row, const int32_t *topic, int32_t n, int32_t first,
                                             int32_t stride) {
  constexpr int kInFlight = 4;
  for (int32_t e0 = first; e0 < n; e0 += kInFlight * stride) {
    int32_t k[kInFlight];
#pragma unroll
    for (int q = 0; q < kInFlight; ++q) k[q] = e0 + q * stride < n ? topic[e0 + q * stride] : -1;
#pragma unroll
    for (int q = 0; q < kInFlight; ++q)
      if (k[q] >= 0) b_row[k[q]] = 0;
  }
}

// A warp per word of at most kSegmentsWarpTreeLeaves leaves: its tree over the spans of the topics
// segments_count() listed; with clear_b, B zeroed at those topics (the lists are in L1 from the build: a
// separate kernel read them again, 101 us a sweep at K = 65,536 on 20news). Longer trees are
// big_trees_kernel()'s.
__global__ void __launch_bounds__(kWordThreads) word_trees_kernel(segments s, const float *inv, const float *alpha_k,
                                                                  int32_t num_words, int32_t num_topics, float beta,
                                                                  int32_t *clear_b) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t v = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; v < num_words; v += warps) {
    const int64_t at = s.topic_off[v];
    const int32_t n = s.nnz[v];
    if (n + 1 > kSegmentsWarpTreeLeaves) continue;  // warp-uniform
    sk_wary_tree_warp_build_by_f32(segment_weights{s.topic + at, s.count + at, inv, alpha_k, s.prior, n, num_topics, beta},
                                   n + 1, s.tree + s.tree_off[v]);
    if (clear_b != nullptr) clear_listed(clear_b + (size_t)v * (size_t)num_topics, s.topic + at, n, lane, 32);
  }
}

// A block per word of big_words whose tree has more than kSegmentsWarpTreeLeaves leaves now: the same
// tree (samplekit's block build gives the warp build's bits), and the same clear.
constexpr int kBigThreads = 1024;
__global__ void __launch_bounds__(kBigThreads) big_trees_kernel(segments s, const float *inv, const float *alpha_k,
                                                                int32_t num_topics, float beta, int32_t *clear_b) {
  __shared__ sk_wary_tree_block_storage storage;
  const int32_t v = s.big_words[blockIdx.x];
  const int64_t at = s.topic_off[v];
  const int32_t n = s.nnz[v];
  if (n + 1 <= kSegmentsWarpTreeLeaves) return;  // block-uniform: word_trees_kernel() built it
  sk_wary_tree_block_build_by_f32((int)threadIdx.x, kBigThreads, &storage,
                                  segment_weights{s.topic + at, s.count + at, inv, alpha_k, s.prior, n, num_topics, beta},
                                  n + 1, s.tree + s.tree_off[v]);
  if (clear_b != nullptr)
    clear_listed(clear_b + (size_t)v * (size_t)num_topics, s.topic + at, n, (int32_t)threadIdx.x, kBigThreads);
}

// The counts' one pass (segments_count()): block j takes rows [j R, (j + 1) R) and walks the topics in
// tiles of kCountTile; for each tile its warps list their rows' nonzero (topic, count) pairs after the
// row's earlier tiles (a row is always the same warp's, so nnz[v] carries the row's length between tiles)
// and add the counts into the tile's shared column sums, which go to the block's partial sums of n_k.
constexpr int kCountThreads = 256;
constexpr int kCountTile = 8192;  // 32 KB of shared column sums
constexpr int kCountUnroll = 4;   // a warp's loads in flight: 4 x 128 bytes of a row

__global__ void __launch_bounds__(kCountThreads) word_counts_kernel(segments s, const int32_t *b, int32_t num_words,
                                                                    int32_t num_topics, int32_t rows_per_block) {
  __shared__ unsigned column[kCountTile];
  const int lane = sk_lane_id();
  const int warp = (int)(threadIdx.x / 32), warps = (int)(blockDim.x / 32);
  const int64_t r0 = (int64_t)blockIdx.x * rows_per_block;
  const int64_t r1 = r0 + rows_per_block < num_words ? r0 + rows_per_block : num_words;
  const unsigned below = (1u << lane) - 1u;
  for (int32_t c0 = 0; c0 < num_topics; c0 += kCountTile) {
    const int32_t c1 = c0 + kCountTile < num_topics ? c0 + kCountTile : num_topics;
    for (int32_t i = (int32_t)threadIdx.x; i < c1 - c0; i += (int32_t)blockDim.x) column[i] = 0u;
    __syncthreads();
    for (int64_t v = r0 + warp; v < r1; v += warps) {
      const int32_t *b_row = b + (size_t)v * (size_t)num_topics;
      const int64_t at = s.topic_off[v];
      int32_t n = c0 == 0 ? 0 : s.nnz[v];  // written by this warp's lane 0 before the last barrier
      for (int32_t k0 = c0; k0 < c1; k0 += 32 * kCountUnroll) {
        int32_t c[kCountUnroll];
#pragma unroll
        for (int j = 0; j < kCountUnroll; ++j) {
          const int32_t k = k0 + 32 * j + lane;
          c[j] = k < c1 ? b_row[k] : 0;
        }
#pragma unroll
        for (int j = 0; j < kCountUnroll; ++j) {
          const int32_t k = k0 + 32 * j + lane;
          const unsigned mask = __ballot_sync(SK_FULL_MASK, c[j] != 0);
          if (c[j] != 0) {
            const int64_t i = at + n + __popc(mask & below);
            s.topic[i] = k;
            s.count[i] = c[j];
            atomicAdd(&column[k - c0], (unsigned)c[j]);
          }
          n += __popc(mask);
        }
      }
      if (lane == 0) s.nnz[v] = n;
    }
    __syncthreads();
    unsigned *partial = s.partials + (size_t)blockIdx.x * (size_t)num_topics;
    for (int32_t i = (int32_t)threadIdx.x; i < c1 - c0; i += (int32_t)blockDim.x) partial[c0 + i] = column[i];
    __syncthreads();  // the column sums are rewritten for the next tile
  }
}

// n_k = the sum of the blocks' partial sums (integers: any order gives the same). A block takes 32
// topics, a lane each, and its kSumWarps warps split the partial rows, then add up through shared
// memory: a thread a topic walking every row took 19.5 us at K = 1,024 (1,024 threads in all, each a
// chain of ~1,000 loads; nips12 on an H200, bench/RESULTS.md).
constexpr int kSumWarps = 32;
__global__ void __launch_bounds__(kSumWarps * 32) topic_sums_kernel(const unsigned *partials, int32_t blocks,
                                                                    int32_t num_topics, unsigned long long *n_k) {
  __shared__ unsigned long long part[kSumWarps][33];
  const int lane = sk_lane_id(), warp = (int)(threadIdx.x / 32);
  const int32_t k = (int32_t)blockIdx.x * 32 + lane;
  unsigned long long sum = 0;
  if (k < num_topics)
    for (int32_t j = warp; j < blocks; j += kSumWarps) sum += partials[(size_t)j * (size_t)num_topics + (size_t)k];
  part[warp][lane] = sum;
  __syncthreads();
  if (warp == 0 && k < num_topics) {
    for (int w = 1; w < kSumWarps; ++w) sum += part[w][lane];
    n_k[k] = sum;
  }
}

// c_v = sum_k B[v,k], a warp per word.
__global__ void word_tokens_kernel(const int32_t *b, int32_t num_words, int32_t num_topics, int64_t *tokens) {
  const int lane = sk_lane_id();
  const int64_t v = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (v >= num_words) return;
  const int32_t *b_row = b + (size_t)v * (size_t)num_topics;
  long long sum = 0;
  for (int32_t k = lane; k < num_topics; k += 32) sum += b_row[k];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(SK_FULL_MASK, sum, o);
  if (lane == 0) tokens[v] = (int64_t)sum;
}

// segments_list_touched(): a warp per word walks its marks in rounds of 32 bit words (1,024 topics): each
// lane's word, the warp's exclusive sum of their popcounts (the lane's place in the list), then each lane
// lists its bits' topics in increasing order with their counts from B and clears its word. The loads of
// kMarkRounds rounds are issued together, and a round with no marks on any lane costs one ballot: at
// K = 65,536 a word's marks are 64 rounds, most of them empty; one load in flight a warp cost 258 us a
// sweep on 20news, 8 in flight 220 us (bench/RESULTS.md; Nsight Compute: 100 M warp instructions, most of
// them the scans of empty rounds, at 1.35 TB/s). The counts go
// to n_k through the block's column sums in shared memory when K <= kCountTile (flushed with one atomic
// a nonzero column), else straight to n_k (K is then large enough that the atomics rarely meet).
constexpr int kMarkRounds = 8;
template <bool kShared>
__global__ void __launch_bounds__(kCountThreads) list_touched_kernel(segments s, uint32_t *touched, const int32_t *b,
                                                                     int32_t num_words, int32_t num_topics,
                                                                     unsigned long long *n_k) {
  __shared__ unsigned column[kShared ? kCountTile : 1];
  const int lane = sk_lane_id();
  if (kShared) {
    for (int32_t i = (int32_t)threadIdx.x; i < num_topics; i += (int32_t)blockDim.x) column[i] = 0u;
    __syncthreads();
  }
  const int32_t row_words = segments_touched_words(num_topics);
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t v = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; v < num_words; v += warps) {
    uint32_t *marks = touched + (size_t)v * (size_t)row_words;
    const int32_t *b_row = b + (size_t)v * (size_t)num_topics;
    int32_t *topic = s.topic + s.topic_off[v], *count = s.count + s.topic_off[v];
    int32_t n = 0;
    for (int32_t j0 = 0; j0 < row_words; j0 += 32 * kMarkRounds) {
      uint32_t held[kMarkRounds];  // the loads of kMarkRounds rounds in flight together
#pragma unroll
      for (int r = 0; r < kMarkRounds; ++r) {
        const int32_t j = j0 + 32 * r + lane;
        held[r] = j < row_words ? marks[j] : 0u;
      }
#pragma unroll
      for (int r = 0; r < kMarkRounds; ++r) {
        if (j0 + 32 * r >= row_words) break;  // warp-uniform: no scans past the row (K = 1,024: one round)
        const int32_t j = j0 + 32 * r + lane;
        uint32_t m = held[r];
        if (__ballot_sync(SK_FULL_MASK, m != 0u) == 0u) continue;  // warp-uniform: a round with no marks
        const int32_t bits = __popc(m);
        const int32_t inclusive = (int32_t)sk_warp_inclusive_sum_u32(SK_FULL_MASK, (uint32_t)bits);
        int32_t at = n + inclusive - bits;
        n += __shfl_sync(SK_FULL_MASK, inclusive, 31);
        if (m != 0u) marks[j] = 0u;
        while (m != 0u) {
          const int32_t k = 32 * j + __ffs((int)m) - 1;
          m &= m - 1u;
          const int32_t c = b_row[k];
          topic[at] = k;
          count[at] = c;
          ++at;
          if (kShared)
            atomicAdd(&column[k], (unsigned)c);
          else
            atomicAdd(n_k + k, (unsigned long long)c);
        }
      }
    }
    if (lane == 0) s.nnz[v] = n;
  }
  if (kShared) {
    __syncthreads();
    for (int32_t i = (int32_t)threadIdx.x; i < num_topics; i += (int32_t)blockDim.x)
      if (column[i] != 0u) atomicAdd(n_k + i, (unsigned long long)column[i]);
  }
}

// A samplekit call's failure as the CUDA error it recorded (a usage status, which the callers' checks rule
// out, as an invalid value).
cudaError_t built_error(sk_status status) {
  const int cuda = sk_last_cuda_error();
  return status >= 200 && cuda != 0 ? (cudaError_t)cuda : cudaErrorInvalidValue;
}

// Blocks of a warp-per-word kernel over V words: at most `most`.
unsigned word_blocks(int32_t num_words, int64_t most) {
  const int64_t wanted = ((int64_t)num_words + kCountThreads / 32 - 1) / (kCountThreads / 32);
  return (unsigned)(wanted < most ? (wanted > 0 ? wanted : 1) : most);
}

// Word v's room: m_v = min(K, c_v) topics, c_v its tokens.
inline int64_t word_room(int64_t tokens, int32_t num_topics) { return tokens < num_topics ? tokens : num_topics; }

// The rooms rule, one place for segments_place() and segments_capacity(): word v with c_v = tokens[v]
// gets m_v = min(K, c_v) topics and a tree of m_v + 1 leaves, in word order; each word's offsets (when
// the arrays are given) and the totals.
void word_rooms(const int64_t *tokens, int32_t num_words, int32_t num_topics, int64_t *topic_off, int64_t *tree_off,
                int64_t *topics, int64_t *floats) {
  int64_t t = 0, f = 0;
  for (int32_t v = 0; v < num_words; ++v) {
    const int64_t room = word_room(tokens[v], num_topics);
    if (topic_off != NULL) topic_off[v] = t;
    if (tree_off != NULL) tree_off[v] = f;
    t += room;
    f += (int64_t)sk_wary_tree_floats((int)room + 1);
  }
  *topics = t;
  *floats = f;
}

}  // namespace

cudaError_t segments_list_touched(const segments &s, uint32_t *touched, const int32_t *b, int32_t num_words,
                                  int32_t num_topics, unsigned long long *n_k, cudaStream_t stream) {
  cudaError_t e = cudaMemsetAsync(n_k, 0, (size_t)num_topics * sizeof *n_k, stream);
  if (e != cudaSuccess || num_words == 0) return e;
  // With shared column sums each block flushes up to K atomics: a few hundred blocks keep that well
  // below the pairs' own count.
  if (num_topics <= kCountTile)
    list_touched_kernel<true><<<word_blocks(num_words, 256), kCountThreads, 0, stream>>>(s, touched, b, num_words,
                                                                                         num_topics, n_k);
  else
    list_touched_kernel<false><<<word_blocks(num_words, 65535), kCountThreads, 0, stream>>>(s, touched, b, num_words,
                                                                                            num_topics, n_k);
  return cudaGetLastError();
}

void segments_capacity_bound(int32_t num_words, int32_t num_topics, int64_t corpus_tokens, int64_t *topic_capacity,
                             int64_t *tree_capacity) {
  const int64_t vk = (int64_t)num_words * (int64_t)num_topics;
  const int64_t topics = corpus_tokens < vk ? (corpus_tokens > 0 ? corpus_tokens : 0) : vk;
  // sk_wary_tree_floats(m) <= m + 31 + (ceil(m / 32) + 31) + (ceil(m / 1024) + 31) + 32 for m leaves, so
  // over V words of m_v = K_v + 1 leaves, sum m_v = topics + V:
  const int64_t leaves = topics + num_words;
  *topic_capacity = topics;
  *tree_capacity = leaves + (leaves + 31 * (int64_t)num_words) / 32 + 1 + (leaves + 1023 * (int64_t)num_words) / 1024 +
                   1 + 126 * (int64_t)num_words + 32;
}

void segments_capacity(const sk_lda_model *m, int threads, int64_t *topic_capacity, int64_t *tree_capacity) {
  const size_t V = (size_t)m->num_words;
  // A model whose V is not its corpus's (model.h requires them equal) is a shell that carries a shape
  // only, as size queries and tests make: its n_vk is not V x K, so it gets the bound.
  const bool whole = m->n_vk != NULL && m->corpus != NULL && m->num_words == m->corpus->num_words;
  int64_t *totals = whole ? (int64_t *)malloc((V > 0 ? V : 1) * sizeof *totals) : NULL;
  if (totals == NULL) {
    segments_capacity_bound(m->num_words, m->num_topics, m->num_tokens, topic_capacity, tree_capacity);
    return;
  }
  sk_lda_model_word_totals(m, threads, totals);
  word_rooms(totals, m->num_words, m->num_topics, NULL, NULL, topic_capacity, tree_capacity);
  free(totals);
}

cudaError_t segments_place(segments *s, const int32_t *b, int32_t num_words, int32_t num_topics) {
  s->num_big = 0;
  if (num_words == 0) return cudaSuccess;
  const size_t V = (size_t)num_words;
  int64_t *tokens = (int64_t *)malloc(3 * V * sizeof *tokens);
  int32_t *big = (int32_t *)malloc(V * sizeof *big);
  if (tokens == NULL || big == NULL) {
    free(tokens);
    free(big);
    return cudaErrorMemoryAllocation;
  }
  int64_t *topic_off = tokens + V, *tree_off = tokens + 2 * V;
  // The sums go through the room for topic_off, which the offsets then replace.
  word_tokens_kernel<<<(unsigned)((V * 32 + 255) / 256), 256>>>(b, num_words, num_topics, s->topic_off);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(tokens, s->topic_off, V * sizeof *tokens, cudaMemcpyDeviceToHost);
  int64_t topics = 0, floats = 0;
  if (e == cudaSuccess) word_rooms(tokens, num_words, num_topics, topic_off, tree_off, &topics, &floats);
  if (e == cudaSuccess && (topics > s->topic_capacity || floats > s->tree_capacity)) e = cudaErrorInvalidValue;
  int32_t num_big = 0;  // the rooms whose trees can pass a warp's leaves
  for (int32_t v = 0; e == cudaSuccess && v < num_words; ++v)
    if (word_room(tokens[v], num_topics) + 1 > kSegmentsWarpTreeLeaves) big[num_big++] = v;
  if (e == cudaSuccess) e = cudaMemcpy(s->topic_off, topic_off, V * sizeof *topic_off, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(s->tree_off, tree_off, V * sizeof *tree_off, cudaMemcpyHostToDevice);
  if (e == cudaSuccess && num_big > 0) e = cudaMemcpy(s->big_words, big, (size_t)num_big * sizeof *big, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) s->num_big = num_big;
  free(tokens);
  free(big);
  return e;
}

cudaError_t segments_count(const segments &s, const int32_t *b, int32_t num_words, int32_t num_topics,
                           unsigned long long *n_k, cudaStream_t stream) {
  if (num_words == 0) return cudaMemsetAsync(n_k, 0, (size_t)num_topics * sizeof *n_k, stream);
  const int32_t most = s.partial_blocks < num_words ? s.partial_blocks : num_words;
  const int32_t rows = (num_words + most - 1) / most;
  const int32_t blocks = (num_words + rows - 1) / rows;  // <= most: each block's partial sums have a row
  word_counts_kernel<<<(unsigned)blocks, kCountThreads, 0, stream>>>(s, b, num_words, num_topics, rows);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  topic_sums_kernel<<<(unsigned)((num_topics + 31) / 32), kSumWarps * 32, 0, stream>>>(s.partials, blocks, num_topics,
                                                                                        n_k);
  return cudaGetLastError();
}

cudaError_t segments_build(const segments &s, const float *inv, const float *alpha_k, int32_t num_words,
                           int32_t num_topics, float beta, int32_t *clear_b, cudaStream_t stream) {
  cudaError_t e;
  rho_kernel<<<(unsigned)((num_topics + kRhoThreads - 1) / kRhoThreads), kRhoThreads, 0, stream>>>(inv, alpha_k,
                                                                                                  num_topics, beta, s.rho);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  // One block built it before: 78 us a sweep at K = 65,536 (20news, H200); the batched build spreads a
  // single long row over the GPU (bench/RESULTS.md).
  const size_t prior_bytes = sk_wary_tree_floats(num_topics) * sizeof(float);
  const sk_status built = sk_wary_tree_batch_build_f32(s.rho, (size_t)num_topics, 1, num_topics, s.prior, prior_bytes,
                                                       stream);
  if (built != SK_SUCCESS) return built_error(built);
  if (num_words == 0) return cudaSuccess;
  const int64_t warps_per_block = kWordThreads / 32;
  const int64_t blocks = ((int64_t)num_words + warps_per_block - 1) / warps_per_block;
  word_trees_kernel<<<(unsigned)(blocks < 65535 * 32 ? blocks : 65535 * 32), kWordThreads, 0, stream>>>(
      s, inv, alpha_k, num_words, num_topics, beta, clear_b);
  if ((e = cudaGetLastError()) != cudaSuccess || s.num_big == 0) return e;
  big_trees_kernel<<<(unsigned)s.num_big, kBigThreads, 0, stream>>>(s, inv, alpha_k, num_topics, beta, clear_b);
  return cudaGetLastError();
}

}  // namespace sk_lda_gpu
