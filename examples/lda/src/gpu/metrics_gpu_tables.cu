// The tables of one held-out fold-in on the GPU (metrics_fold_tables() of metrics_gpu_internal.cuh):
// metrics.h's sk_lda_detail_fold_tables built from a sampler's device counts, bit for bit the host's.
//
// Why these tables: phi is fixed during the fold-in, so SparseLDA's s terms a_k beta c_k are the same
// for every document and word (one K-entry table of running sums per call), and the q terms need only
// the word's nonzero counts (a CSR of B, gathered once per call with two reads of B, each nonzero with
// its product n_wk c_k, so that a q term reads no c_k; from the sampler's lists of B's nonzeros instead of
// B when it gives them, gpu_counts.h: the same CSR without reading V x K counts). The s table is
// added in topic order, as fold_in.c adds it, so that its running sums are the host's bit for bit (a
// warp forms the terms and samplekit's sk_warp_serial_inclusive_sum_f64 adds them one at a time), and
// so are the words' q tables (a warp a word, the same way).
#include <cuda_runtime.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu_internal.cuh"
#include "gpu/topic_inverse.cuh"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

constexpr int kRowWarps = 8;     // warps a block in the passes over B: one warp a word
constexpr int kScanThreads = 1024;

// s_cum[k] = s_cum[k-1] + a_k beta inv_k in topic order (fold_in.c's sk_lda_detail_fold_tables_build(),
// the same roundings: no fused multiply-add), by one warp: each lane forms its topic's term, and
// samplekit's serial warp sum adds the 32 of a round one at a time onto the running sum, the host's
// order; the next round's loads are issued before this round's additions. One thread walking the topics
// waited a load latency a topic (each store may alias the next load): 5.7 ms at K = 65,536 on an H200,
// 1.3 ms this way (bench/RESULTS.md).
__global__ void s_table_kernel(const double *inv, const double *alpha_k, double alpha, double beta, int32_t K,
                               double *s_cum) {
  if (blockIdx.x != 0 || threadIdx.x >= 32) return;
  const int lane = sk_lane_id();
  const auto term = [&](int32_t k) {
    return k < K ? __dmul_rn(alpha_k != nullptr ? alpha_k[k] : alpha, __dmul_rn(beta, inv[k])) : 0.0;
  };
  double run = 0.0, x = term(lane);
  for (int32_t k0 = 0; k0 < K; k0 += 32) {
    const double next = term(k0 + 32 + lane);
    const int32_t k = k0 + lane;
    const unsigned mask = __ballot_sync(SK_FULL_MASK, k < K);
    if (k < K) s_cum[k] = sk_warp_serial_inclusive_sum_f64(mask, x, &run);
    x = next;
  }
}

// start[v + 1] = the number of nonzeros of B's row v; one warp a word.
__global__ void __launch_bounds__(kRowWarps * 32) row_nnz_kernel(const int32_t *b, int32_t V, int32_t K,
                                                                   int64_t *start) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * kRowWarps;
  for (int64_t v = (int64_t)blockIdx.x * kRowWarps + threadIdx.x / 32; v < V; v += warps) {
    const int32_t *row = b + v * (int64_t)K;
    unsigned c = 0;
    for (int32_t k = lane; k < K; k += 32) c += __ldg(row + k) != 0;
    c = __reduce_add_sync(SK_FULL_MASK, c);
    if (lane == 0) start[v + 1] = (int64_t)c;
  }
}

// start[0] = 0 and start[1 .. V] made inclusive running sums; one block: each thread adds a contiguous
// chunk, the chunk totals are scanned in shared memory, then each chunk is rewritten. Integer sums: the
// order does not matter.
__global__ void __launch_bounds__(kScanThreads) row_start_scan_kernel(int64_t *start, int32_t V) {
  __shared__ int64_t part[kScanThreads];
  const int t = (int)threadIdx.x;
  const int64_t chunk = ((int64_t)V + kScanThreads - 1) / kScanThreads;
  const int64_t lo = 1 + (int64_t)t * chunk, hi = min((int64_t)V + 1, lo + chunk);
  int64_t sum = 0;
  for (int64_t i = lo; i < hi; ++i) sum += start[i];
  part[t] = sum;
  __syncthreads();
  for (int step = 1; step < kScanThreads; step *= 2) {  // Hillis-Steele over the chunk totals
    const int64_t add = t >= step ? part[t - step] : 0;
    __syncthreads();
    part[t] += add;
    __syncthreads();
  }
  int64_t run = t > 0 ? part[t - 1] : 0;
  for (int64_t i = lo; i < hi; ++i) {
    run += start[i];
    start[i] = run;
  }
  if (t == 0) start[0] = 0;
}

// Gathers row v's nonzeros, topics increasing, into [start[v], start[v + 1]) with their products n_vk c_k
// (the q terms' factor, rounded as fold_in.c rounds (double)n_wk * inv[k]); one warp a word, 32 topics
// a round compacted by a ballot.
__global__ void __launch_bounds__(kRowWarps * 32) row_fill_kernel(const int32_t *b, int32_t V, int32_t K,
                                                                    const int64_t *start, const double *inv,
                                                                    int32_t *topic, double *qc) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * kRowWarps;
  for (int64_t v = (int64_t)blockIdx.x * kRowWarps + threadIdx.x / 32; v < V; v += warps) {
    const int32_t *row = b + v * (int64_t)K;
    int64_t pos = start[v];
    for (int32_t k0 = 0; k0 < K; k0 += 32) {
      const int32_t k = k0 + lane;
      const int32_t x = k < K ? __ldg(row + k) : 0;
      const unsigned nz = __ballot_sync(SK_FULL_MASK, x != 0);
      if (x != 0) {
        const int64_t j = pos + __popc(nz & sk_lanemask_lt());
        topic[j] = k;
        qc[j] = __dmul_rn((double)x, inv[k]);
      }
      pos += __popc(nz);
    }
  }
}

// With the sampler's lists of B's nonzeros (gpu_counts.h): start[v + 1] = nnz[v], one thread a word.
__global__ void list_nnz_kernel(const int32_t *nnz, int32_t V, int64_t *start) {
  const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (v < V) start[v + 1] = (int64_t)nnz[v];
}

// row_fill_kernel() from the lists: word v's topics (increasing already) and products n_vk c_k, rounded
// as there; one warp a word.
__global__ void __launch_bounds__(kRowWarps * 32) list_fill_kernel(const int32_t *list_topic, const int32_t *list_count,
                                                                     const int64_t *list_off, int32_t V,
                                                                     const int64_t *start, const double *inv,
                                                                     int32_t *topic, double *qc) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * kRowWarps;
  for (int64_t v = (int64_t)blockIdx.x * kRowWarps + threadIdx.x / 32; v < V; v += warps) {
    const int64_t from = list_off[v], to = start[v], n = start[v + 1] - start[v];
    for (int64_t j = lane; j < n; j += 32) {
      const int32_t k = list_topic[from + j];
      topic[to + j] = k;
      qc[to + j] = __dmul_rn((double)list_count[from + j], inv[k]);
    }
  }
}

// The words' q tables, in place: q_cum holds row_fill_kernel()'s products n_wk c_k and becomes, per word,
// the running sums of a_k (n_wk c_k) over its nonzeros in topic order from 0 (fold_in.c's word_q_cum, the
// same bits). One warp a word, 32 nonzeros a round added one at a time by samplekit's serial warp sum
// (the host's order), the next round's loads issued first. One thread a word waited a load latency a
// nonzero, and a frequent word has nearly K of them: 1.65 ms at K = 65,536 on 20news, 0.28 ms this way.
__global__ void __launch_bounds__(kRowWarps * 32) word_q_kernel(const int64_t *start, const int32_t *topic,
                                                                 const double *alpha_k, double alpha, int32_t V,
                                                                 double *q_cum) {
  const int lane = sk_lane_id();
  const int64_t warps = (int64_t)gridDim.x * kRowWarps;
  for (int64_t v = (int64_t)blockIdx.x * kRowWarps + threadIdx.x / 32; v < V; v += warps) {
    const int64_t end = start[v + 1];
    const auto term = [&](int64_t j) {
      return j < end ? __dmul_rn(alpha_k != nullptr ? alpha_k[topic[j]] : alpha, q_cum[j]) : 0.0;
    };
    double run = 0.0, x = term(start[v] + lane);
    for (int64_t j0 = start[v]; j0 < end; j0 += 32) {
      const double next = term(j0 + 32 + lane);  // read before this round's stores: other elements
      const int64_t j = j0 + lane;
      const unsigned mask = __ballot_sync(SK_FULL_MASK, j < end);
      if (j < end) q_cum[j] = sk_warp_serial_inclusive_sum_f64(mask, x, &run);
      x = next;
    }
  }
}

}  // namespace

namespace sk_lda_gpu {

int metrics_fold_tables(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, sk_ex_error *err) {
  const int32_t K = c->num_topics, V = c->num_words;
  const double vbeta = (double)V * c->beta;
  if (metrics_buf_reserve(g, &g->inv, (size_t)K * sizeof(double), "allocating 1 / (n_k + V beta)", err) != 0 ||
      metrics_buf_reserve(g, &g->s_cum, (size_t)K * sizeof(double), "allocating the fold-in's s table", err) != 0 ||
      metrics_buf_reserve(g, &g->word_start, ((size_t)V + 1) * sizeof(int64_t), "allocating B's row offsets",
                          err) != 0)
    return 1;
  double *inv = (double *)g->inv.ptr;
  int64_t *start = (int64_t *)g->word_start.ptr;
  // inv[k] = 1 / (n_k + V beta), as sk_lda_detail_fold_tables_build()
  SK_EX_CUDA_TRY(topic_inverse_f64_launch(c->n_k, K, vbeta, inv, 0), "computing 1 / (n_k + V beta)");
  s_table_kernel<<<1, 32>>>(inv, c->alpha_k, c->alpha, c->beta, K, (double *)g->s_cum.ptr);
  SK_EX_LAUNCH_CHECK("computing the fold-in's s table");
  const int64_t blocks_wanted = ((int64_t)V + kRowWarps - 1) / kRowWarps;
  const unsigned blocks = (unsigned)(blocks_wanted < (int64_t)g->sm_count * 32 ? blocks_wanted : (int64_t)g->sm_count * 32);
  const bool lists = c->b_list_nnz != NULL && c->b_list_off != NULL && c->b_list_topic != NULL &&
                     c->b_list_count != NULL;
  if (lists) {
    list_nnz_kernel<<<(unsigned)(((int64_t)V + 255) / 256), 256>>>(c->b_list_nnz, V, start);
  } else {
    row_nnz_kernel<<<blocks, kRowWarps * 32>>>(c->b, V, K, start);
  }
  SK_EX_LAUNCH_CHECK("counting B's nonzeros");
  row_start_scan_kernel<<<1, kScanThreads>>>(start, V);
  SK_EX_LAUNCH_CHECK("placing B's nonzeros");
  int64_t nnz = 0;
  SK_EX_CUDA_TRY(cudaMemcpy(&nnz, start + V, sizeof nnz, cudaMemcpyDeviceToHost), "counting B's nonzeros");
  g->word_start_count = nnz;
  if (metrics_buf_reserve(g, &g->word_topic, (size_t)nnz * sizeof(int32_t), "allocating B's nonzero topics",
                          err) != 0 ||
      metrics_buf_reserve(g, &g->word_q_cum, (size_t)nnz * sizeof(double), "allocating the words' q tables",
                          err) != 0)
    return 1;
  if (lists)
    list_fill_kernel<<<blocks, kRowWarps * 32>>>(c->b_list_topic, c->b_list_count, c->b_list_off, V, start, inv,
                                                 (int32_t *)g->word_topic.ptr, (double *)g->word_q_cum.ptr);
  else
    row_fill_kernel<<<blocks, kRowWarps * 32>>>(c->b, V, K, start, inv, (int32_t *)g->word_topic.ptr,
                                                (double *)g->word_q_cum.ptr);
  SK_EX_LAUNCH_CHECK("gathering B's nonzeros");
  word_q_kernel<<<blocks, kRowWarps * 32>>>(
      start, (const int32_t *)g->word_topic.ptr, c->alpha_k, c->alpha, V, (double *)g->word_q_cum.ptr);
  SK_EX_LAUNCH_CHECK("adding the words' q tables");
  return 0;
}

}  // namespace sk_lda_gpu
