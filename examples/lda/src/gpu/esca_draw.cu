// GPU ESCA's draw kernel: see esca_draw.cuh for the draw and why it is deterministic. Composed from
// samplekit's primitives: the W-ary tree (warp search, through esca_segments.cuh), the strided hold of a
// computed row (sk_warp_strided_hold_by_f32, rows of up to 256 pairs), the warp running sums over longer
// ones (sk_warp_sample_prefix_by_f32) and the RNG.
#include "gpu/esca_draw.cuh"

#include "esca.h"  // SK_LDA_ESCA_HOLD_PAIRS

#include "samplekit/rng.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sample_prefix.cuh"
#include "samplekit/warp_strided_sample.cuh"
#include "samplekit/wary_tree.cuh"

namespace sk_lda_gpu {
namespace {

// Threads per block when the caller gives none: the smallest of 256, 512, 1,024 that keeps the most warps
// on a multiprocessor (draw_choose_shape).
constexpr int kDefaultThreads = 256;
constexpr int kMaxDefaultThreads = 1024;
// The draw kernel's registers per thread: 64 lets 4 blocks of 256 threads share a multiprocessor.
#ifndef SK_LDA_DRAW_MAX_REGS
#define SK_LDA_DRAW_MAX_REGS 64
#endif
// A block's row keeps at most this many bytes in shared memory (K <= 55,296: one block of 1,024 threads
// an SM holds the row and the SM's 32 warps, within the 227 KB a block may have). A longer row keeps its
// first 55,296 topics there and the rest (its tail) in a global scratch row per block: at K = 65,536 the
// tails of an H200's 132 blocks are 5.4 MB, which stay in L2, where whole rows in global memory (4
// blocks of 256 an SM, 135 MB) missed it: Nsight Compute measured 541 GB read from DRAM in one
// NYTimes-scale draw at K = 65,536 and an L2 hit rate of 12% (bench/RESULTS.md).
constexpr size_t kSharedRowLimit = 216 * 1024;

// A block's B_hat row: topics below split in shared memory (head), the rest in the block's global
// scratch row (tail). kSplit false: the whole row is the head, read with shared-memory loads.
template <bool kSplit>
struct block_row {
  float *head, *tail;
  int32_t split;
  __device__ __forceinline__ float &operator[](int32_t k) const {
    if (!kSplit) return head[k];
    return k < split ? head[k] : tail[k - split];
  }
};

// A document's sparse row against the word's B_hat row: weight i = count_i * w[topic_i]. kPacked: the
// row's pairs are one word each, topic << 16 | count, in `topic` (gpu_state.cuh's packed-A part): a
// group reads 4 bytes a pair, not 8 (the rows of A come from DRAM again for most groups at large T:
// bench/RESULTS.md).
template <bool kSplit, bool kPacked>
struct sparse_weights {
  const uint32_t *topic, *count;  // kPacked: count is not read
  block_row<kSplit> w;
  __device__ __forceinline__ float operator()(int i) const {
    if (kPacked) {
      const uint32_t pair = topic[i];
      return (float)(pair & 0xffffu) * w[(int32_t)(pair >> 16)];
    }
    return (float)count[i] * w[(int32_t)topic[i]];
  }
  __device__ __forceinline__ int32_t topic_of(int i) const {
    return kPacked ? (int32_t)(topic[i] >> 16) : (int32_t)topic[i];
  }
};

// Rounds of the document's sparse row a warp holds in registers (rows of up to 256 pairs: one warp scan
// for the row, then a ballot and one lane's walk a token, sk_warp_strided_hold_by_f32); longer rows are
// walked again, 32 pairs a round, for each draw.
#ifndef SK_LDA_DRAW_CACHED_ROUNDS
#define SK_LDA_DRAW_CACHED_ROUNDS 8
#endif
constexpr int kCachedRounds = SK_LDA_DRAW_CACHED_ROUNDS;
// The CPU ESCA adds a row of up to SK_LDA_ESCA_HOLD_PAIRS pairs in the hold's order (esca.h,
// sk_lda_esca_pair_at()): the two must hold the same rows, or the CPU and the GPU part for every long row.
static_assert(kCachedRounds * 32 == SK_LDA_ESCA_HOLD_PAIRS, "the hold's rows must be the CPU order's (esca.h)");

// The dense part of an item's draws: the word's segments and the prior tree.
struct dense_part {
  sk_wary_tree_view_f32 prior;  // the prior tree (esca_segments.cuh)
  float prior_top;              // this lane's entry of its top level
  segment_dense word;           // the item's word
};

// Lane j's part of the 32 groups from gc (those before g1): the group's row of A and its first token
// position (lane g1 - gc, when it is below 32, gets the end of group g1 - 1's tokens).
__device__ __forceinline__ void load_group_batch(const draw_params &p, int32_t gc, int32_t g1,
                                                 int32_t *begin, int32_t *nnz, int32_t *q) {
  const int32_t g = gc + (int32_t)sk_lane_id();
  if (g < g1) {
    const int32_t d = p.group_doc[g];
    *begin = p.a_offsets[d];
    *nnz = p.a_offsets[d + 1] - *begin;
  }
  if (g <= g1) *q = p.group_start[g];
}

// A drawn topic into the next counts and, with kMark, its mark (gpu_state.cuh's touched part); neither
// result is used, so both are reductions the warp does not wait for.
// The mark's address is computed here, once per 32 draws, rather than kept in a register over them.
template <bool kMark>
__device__ __forceinline__ void count_topic(const draw_params &p, int32_t v, int32_t *b_row, int32_t topic) {
  atomicAdd(b_row + topic, 1);
  if (kMark) atomicOr(p.touched + (size_t)v * (size_t)p.touched_words + (topic >> 5), 1u << (topic & 31));
}

// The draws of the groups [g0, g1) of one item (word v), consecutive in PDOW order, by one warp. The
// warp computes the uniforms of 32 consecutive positions at once (lane j those of position base + j)
// and writes their topics together; for each group it builds the sparse running sums once (in
// registers when the row has at most 256 pairs: the strided hold) and draws each of its tokens from them.
template <bool kMark, bool kSplit, bool kPacked>
__device__ void draw_groups(const draw_params &p, int32_t v, int32_t g0, int32_t g1, const block_row<kSplit> &w,
                            const dense_part &dense, float dense_total) {
  const int lane = sk_lane_id();
  const int32_t end = p.group_start[g1];
  int32_t base = p.group_start[g0];
  int32_t my_token = 0, my_topic = 0;
  double my_u = 0.0;
  if (base + lane < end) {
    my_token = p.token[base + lane];
    my_u = sk_rng_uniform_f64(p.seed, p.iteration, p.token_base + (uint64_t)my_token);
  }
  int32_t *b_row = p.b_next + (size_t)v * (size_t)p.num_topics;
  const double dense_mass = p.alpha_d * (double)dense_total;
  // Lane j holds group gc + j's row of A (begin, nnz) and first token position, loaded for 32 groups
  // at once: each group then starts with shuffles, not a chain of three dependent loads.
  int32_t gc = g0, my_begin = 0, my_nnz = 0, my_q = 0;
  load_group_batch(p, gc, g1, &my_begin, &my_nnz, &my_q);
  for (int32_t g = g0; g < g1; ++g) {
    if (g - gc == 32) {
      gc = g;
      load_group_batch(p, gc, g1, &my_begin, &my_nnz, &my_q);
    }
    const int32_t begin = __shfl_sync(SK_FULL_MASK, my_begin, g - gc);
    const int32_t nnz = __shfl_sync(SK_FULL_MASK, my_nnz, g - gc);
    const int32_t q0 = __shfl_sync(SK_FULL_MASK, my_q, g - gc);
    const int32_t q1 = g - gc + 1 < 32 ? __shfl_sync(SK_FULL_MASK, my_q, g - gc + 1) : p.group_start[g + 1];
    const sparse_weights<kSplit, kPacked> sparse{kPacked ? p.a_packed + begin : p.a_topic + begin,
                                                 kPacked ? nullptr : p.a_count + begin, w};
    const bool cached = nnz <= kCachedRounds * 32;
    sk_warp_strided_hold_f32<kCachedRounds> hold;
    float s;
    if (cached) {
      s = sk_warp_strided_hold_by_f32<kCachedRounds>(SK_FULL_MASK, sparse, nnz, &hold);
    } else {
      s = sk_warp_prefix_total_by_f32(SK_FULL_MASK, sparse, nnz);
    }
    const double total = (double)s + dense_mass;
    for (int32_t q = q0; q < q1; ++q) {
      if (q - base == 32) {  // the 32 positions are drawn: write them, then the next 32 uniforms
        p.z[my_token] = my_topic;
        count_topic<kMark>(p, v, b_row, my_topic);
        base = q;
        if (base + lane < end) {
          my_token = p.token[base + lane];
          my_u = sk_rng_uniform_f64(p.seed, p.iteration, p.token_base + (uint64_t)my_token);
        }
      }
      const double x = __shfl_sync(SK_FULL_MASK, my_u, q - base) * total;
      int32_t topic;
      if (x < (double)s) {
        // s > 0, so some weight is positive and i >= 0 (every count is positive and w > 0)
        const int i = cached ? sk_warp_strided_find_f32<kCachedRounds>(SK_FULL_MASK, hold, (float)x)
                             : sk_warp_sample_prefix_by_f32(SK_FULL_MASK, sparse, nnz, (float)x);
        topic = sparse.topic_of(i);
      } else {
        // x - s may round past Q: the search then takes the last leaf, whose weight is positive
        const float y = (float)((x - (double)s) / p.alpha_d);
        topic = segment_search(dense.word, dense.prior, dense.prior_top, p.num_topics, y);
      }
      if (lane == q - base) my_topic = topic;
    }
  }
  if (base + lane < end) {
    p.z[my_token] = my_topic;
    count_topic<kMark>(p, v, b_row, my_topic);
  }
}

// The row w holds beta inv_k (a zero count's weight) between items; an item writes its word's K_v entries
// ((B + beta) inv_k, the counts from the word's list: B's nonzeros in order, no row of B read) and puts
// them back after its draws (restore: count is not read).
template <bool kSplit>
__device__ __forceinline__ void segment_row_entries(const draw_params &p, const block_row<kSplit> &w, const int32_t *topic,
                                                    const int32_t *count, int32_t nnz, bool restore) {
  for (int32_t e = (int32_t)threadIdx.x; e < nnz; e += (int32_t)blockDim.x) {
    const int32_t k = topic[e];
    w[k] = segment_row_weight(restore ? 0 : count[e], p.beta, p.inv[k]);
  }
}

// Persistent blocks take items from a shared counter, largest first (the plan's order). For each: the
// word's entries of the row, then the warps take the item's groups in turn, then the entries go back.
// kMark: the draws also mark each (word, topic) they count in p.touched. kSplit: the row's tail is in
// p.scratch (block_row). kPacked: A's pairs are read from p.a_packed (sparse_weights).
template <bool kMark, bool kSplit, bool kPacked>
__global__ void __maxnreg__(SK_LDA_DRAW_MAX_REGS) esca_draw_kernel(draw_params p) {
  extern __shared__ float shared_rows[];
  __shared__ int32_t item_now;
  const int32_t K = p.num_topics;
  const block_row<kSplit> w{shared_rows, kSplit ? p.scratch + (size_t)blockIdx.x * p.tail_floats : nullptr,
                            p.shared_floats};
  const int warp = (int)(threadIdx.x / 32u), warps = (int)(blockDim.x / 32u);
  dense_part dense;
  dense.prior = sk_wary_tree_make_view_f32(p.seg.prior, K);
  dense.prior_top = sk_wary_tree_load_top_f32(dense.prior);  // the same for every item
  for (int32_t k = (int32_t)threadIdx.x; k < K; k += (int32_t)blockDim.x) w[k] = segment_row_weight(0, p.beta, p.inv[k]);
  for (;;) {
    if (threadIdx.x == 0) item_now = (int32_t)atomicAdd(p.next_item, 1u);
    __syncthreads();  // also: the last item's row entries are back (or the row is first set)
    const int32_t item = item_now;
    if (item >= p.num_items) break;
    const int32_t v = p.item_word[item];
    const int64_t list = p.seg.topic_off[v];
    dense.word.nnz = p.seg.nnz[v];
    dense.word.topic = p.seg.topic + list;
    dense.word.word = sk_wary_tree_make_view_f32(p.seg.tree + p.seg.tree_off[v], dense.word.nnz + 1);
    dense.word.word_top = sk_wary_tree_load_top_f32(dense.word.word);
    const float dense_total = sk_wary_tree_top_total_f32(dense.word.word_top);
    segment_row_entries(p, w, dense.word.topic, p.seg.count + list, dense.word.nnz, false);
    __syncthreads();
    // The item's groups in equal runs of consecutive groups, one run per warp.
    const int32_t first = p.item_group[item], groups = p.item_end[item] - first;
    const int32_t per_warp = (groups + warps - 1) / warps;
    const int32_t g0 = first + warp * per_warp;
    const int32_t g1 = g0 + per_warp < first + groups ? g0 + per_warp : first + groups;
    if (g0 < g1) draw_groups<kMark, kSplit, kPacked>(p, v, g0, g1, w, dense, dense_total);
    __syncthreads();  // the draws read the row's entries and item_now until here
    segment_row_entries(p, w, dense.word.topic, nullptr, dense.word.nnz, true);  // no count: not live over the draws
  }
}

// The kernel instance for a row place (split: its tail in global memory), marks or none and A's layout:
// the one list of instances that draw_choose_shape() sets up and draw_launch() launches.
template <bool kSplit>
void (*draw_kernel_in(bool mark, bool packed))(draw_params) {
  if (packed) return mark ? esca_draw_kernel<true, kSplit, true> : esca_draw_kernel<false, kSplit, true>;
  return mark ? esca_draw_kernel<true, kSplit, false> : esca_draw_kernel<false, kSplit, false>;
}

void (*draw_kernel_for(bool split, bool mark, bool packed))(draw_params) {
  return split ? draw_kernel_in<true>(mark, packed) : draw_kernel_in<false>(mark, packed);
}

}  // namespace

size_t draw_row_floats(int32_t num_topics) { return (size_t)((num_topics + 31) / 32) * 32; }

cudaError_t draw_choose_shape(int gpu, int32_t num_topics, int threads, int blocks_per_sm, draw_shape *out) {
  draw_shape l = {};
  l.row_floats = draw_row_floats(num_topics);
  const size_t head_floats_max = kSharedRowLimit / sizeof(float);
  l.on_global = l.row_floats > head_floats_max;
  l.shared_floats = l.on_global ? head_floats_max : l.row_floats;
  l.shared_bytes = l.shared_floats * sizeof(float);
  // The instances of a row place take the same row; they share the register cap, so the occupancy of one
  // is the others'.
  void (*kernels[4])(draw_params);
  for (int i = 0; i < 4; ++i) kernels[i] = draw_kernel_for(l.on_global != 0, (i & 1) != 0, (i & 2) != 0);
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 4 && e == cudaSuccess; ++i)
    e = cudaFuncSetAttribute(kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)l.shared_bytes);
  if (e != cudaSuccess) return e;
  int sms = 0, fit = 0;
  e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu);
  if (e != cudaSuccess) return e;
  if (threads > 0) {
    l.threads = threads;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernels[0], l.threads, l.shared_bytes);
    if (e != cudaSuccess) return e;
  } else {
    // The block size that keeps the most warps on a multiprocessor, the smaller on a tie. The registers
    // allow 32 warps an SM; the row (4 K bytes a block) leaves room for fewer blocks as K grows (seven
    // of 256 threads at K = 8,000, two at K = 25,600), and blocks too small for the room left would
    // leave the SM part empty (measured on an H200 at K = 10,000 with the row and a tree of K a block:
    // blocks of 512 drew 1.4x to 1.65x faster than of 256, bench/RESULTS.md).
    int best_warps = 0;
    for (int t = kDefaultThreads; t <= kMaxDefaultThreads; t *= 2) {
      int f = 0;
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f, kernels[0], t, l.shared_bytes);
      if (e != cudaSuccess) return e;
      if (f * t / 32 > best_warps) {
        best_warps = f * t / 32;
        l.threads = t;
        fit = f;
      }
    }
  }
  if (fit < 1) fit = 1;
  const int per_sm = blocks_per_sm > 0 && blocks_per_sm < fit ? blocks_per_sm : fit;
  l.blocks = sms * per_sm;
  l.scratch_floats = (size_t)l.blocks * draw_tail_floats(l);
  *out = l;
  return cudaSuccess;
}

cudaError_t draw_launch(const draw_params &p, const draw_shape &launch, cudaStream_t stream) {
  if (p.num_items == 0) return cudaSuccess;
  if (launch.on_global != (p.scratch != nullptr)) return cudaErrorInvalidValue;  // the tails are the caller's
  const dim3 grid((unsigned)launch.blocks), block((unsigned)launch.threads);
  void (*const kernel)(draw_params) =
      draw_kernel_for(launch.on_global != 0, p.touched != nullptr, p.a_packed != nullptr);
  kernel<<<grid, block, launch.shared_bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace sk_lda_gpu
