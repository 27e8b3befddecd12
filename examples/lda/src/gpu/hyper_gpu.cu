// The prior optimiser's histograms on the GPU (hyper_gpu.h): two integer-histogram kernels, each run once to
// count (the dense bins and the size of the tail) and, when the tail is not empty, once more to list it.
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#include "gpu/hyper_gpu.h"

#define SK_EX_CUDA_SCOPE "GPU prior histograms"
#include "sk_ex_cuda_check.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;  // a grid-stride loop beyond
constexpr int kDense = SK_LDA_HYPER_DENSE;

// The counters: the tails' sizes (pass 1) and the next free slots of the lists (pass 2).
enum { kPairTail = 0, kWordTail = 1, kPairSlot = 2, kWordSlot = 3, kCounters = 4 };

unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return (unsigned)(b < 1 ? 1 : b < kMaxBlocks ? b : kMaxBlocks);
}

// A's pairs: pass 1 (list NULL) counts n_dk below kDense into dense[k * kDense + n_dk] and the pairs above
// it into counters[kPairTail]; pass 2 lists those as (k << 32) | n_dk in slots from counters[kPairSlot]
// (at most cap). The number of pairs is a_offsets[num_docs], read on the device.
__global__ void pair_hist_kernel(const int32_t *a_offsets, int32_t num_docs, const uint32_t *a_topic,
                                 const uint32_t *a_count, unsigned *dense, unsigned long long *counters,
                                 unsigned long long *list, unsigned long long cap) {
  const int64_t pairs = a_offsets[num_docs];
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += stride) {
    const uint32_t c = a_count[i], k = a_topic[i];
    if (c < (uint32_t)kDense) {
      if (list == nullptr) atomicAdd(dense + (size_t)k * kDense + c, 1u);
    } else if (list == nullptr) {
      atomicAdd(counters + kPairTail, 1ull);
    } else {
      const unsigned long long slot = atomicAdd(counters + kPairSlot, 1ull);
      if (slot < cap) list[slot] = ((unsigned long long)k << 32) | c;
    }
  }
}

// B's n counts: pass 1 (list NULL) counts the nonzero ones below kDense into dense[c] (a block's bins in
// shared memory first) and those above into counters[kWordTail]; pass 2 lists those in slots from
// counters[kWordSlot] (at most cap).
__global__ void word_hist_kernel(const int32_t *b, int64_t n, unsigned long long *dense, unsigned long long *counters,
                                 uint32_t *list, unsigned long long cap) {
  __shared__ unsigned bins[kDense];
  const bool counting = list == nullptr;
  for (int i = (int)threadIdx.x; i < kDense; i += (int)blockDim.x) bins[i] = 0;
  __syncthreads();
  unsigned above = 0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int32_t c = b[i];
    if (c == 0) continue;
    if (c < kDense) {
      if (counting) atomicAdd(bins + c, 1u);
    } else if (counting) {
      ++above;
    } else {
      const unsigned long long slot = atomicAdd(counters + kWordSlot, 1ull);
      if (slot < cap) list[slot] = (uint32_t)c;
    }
  }
  if (counting && above != 0) atomicAdd(counters + kWordTail, (unsigned long long)above);
  __syncthreads();
  if (counting)
    for (int i = (int)threadIdx.x; i < kDense; i += (int)blockDim.x)
      if (bins[i] != 0) atomicAdd(dense + i, (unsigned long long)bins[i]);
}

// The device scratch of one call, freed by its owner.
struct scratch {
  unsigned *dense;
  unsigned long long *word_dense, *counters, *pair_list;
  uint32_t *word_list;
  int64_t bytes;
  void free_all() {
    cudaFree(dense);
    cudaFree(word_dense);
    cudaFree(counters);
    cudaFree(pair_list);
    cudaFree(word_list);
  }
};

// The tails, listed on the device in any order, into canonical host tails of `out`.
int take_tails(const scratch &s, uint64_t pairs, uint64_t words, sk_lda_hyper_stats *out, sk_ex_error *err) {
  unsigned long long *hp = (unsigned long long *)malloc((size_t)(pairs > 0 ? pairs : 1) * sizeof *hp);
  uint32_t *hw = (uint32_t *)malloc((size_t)(words > 0 ? words : 1) * sizeof *hw);
  out->doc_topic_tail = (sk_lda_hyper_tail *)calloc((size_t)(pairs > 0 ? pairs : 1), sizeof(sk_lda_hyper_tail));
  out->word_topic_tail = (sk_lda_hyper_tail *)calloc((size_t)(words > 0 ? words : 1), sizeof(sk_lda_hyper_tail));
  int failed = hp == NULL || hw == NULL || out->doc_topic_tail == NULL || out->word_topic_tail == NULL
                   ? sk_ex_fail(err, "GPU prior histograms: out of host memory for %llu + %llu listed counts",
                                (unsigned long long)pairs, (unsigned long long)words)
                   : 0;
  cudaError_t e = cudaSuccess;
  if (!failed && pairs > 0) e = cudaMemcpy(hp, s.pair_list, pairs * sizeof *hp, cudaMemcpyDeviceToHost);
  if (!failed && e == cudaSuccess && words > 0) e = cudaMemcpy(hw, s.word_list, words * sizeof *hw, cudaMemcpyDeviceToHost);
  if (!failed && e != cudaSuccess) failed = sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, "copying the tails", e);
  for (uint64_t i = 0; !failed && i < pairs; ++i) {
    sk_lda_hyper_tail *t = out->doc_topic_tail + i;
    t->topic = (int32_t)(hp[i] >> 32), t->value = (int64_t)(hp[i] & 0xffffffffu), t->count = 1;
  }
  for (uint64_t i = 0; !failed && i < words; ++i) {
    sk_lda_hyper_tail *t = out->word_topic_tail + i;
    t->value = (int64_t)hw[i], t->count = 1;
  }
  if (!failed) {
    out->num_doc_topic_tail = sk_lda_hyper_tail_canonical(out->doc_topic_tail, (int64_t)pairs);
    out->num_word_topic_tail = sk_lda_hyper_tail_canonical(out->word_topic_tail, (int64_t)words);
  }
  free(hp);
  free(hw);
  return failed;
}

// The two passes and the copies back (out initialised by the caller).
int gather(scratch &s, const sk_lda_gpu_counts *c, sk_lda_hyper_stats *out, sk_ex_error *err) {
  const size_t K = (size_t)c->num_topics;
  const int64_t VK = (int64_t)c->num_words * (int64_t)c->num_topics;
  SK_EX_CUDA_TRY(cudaSetDevice(c->gpu), "selecting the GPU");
  (void)cudaGetLastError();  // an error some earlier call already reported is not this call's
  if (sk_ex_cuda_alloc(&s.dense, K * kDense, SK_EX_CUDA_SCOPE, "the histograms of A", &s.bytes, err) ||
      sk_ex_cuda_alloc(&s.word_dense, (size_t)kDense, SK_EX_CUDA_SCOPE, "the histogram of B", &s.bytes, err) ||
      sk_ex_cuda_alloc(&s.counters, (size_t)kCounters, SK_EX_CUDA_SCOPE, "the counters", &s.bytes, err))
    return 1;
  SK_EX_CUDA_TRY(cudaMemsetAsync(s.dense, 0, K * kDense * sizeof *s.dense, 0), "zeroing the histograms");
  SK_EX_CUDA_TRY(cudaMemsetAsync(s.word_dense, 0, kDense * sizeof *s.word_dense, 0), "zeroing the histograms");
  SK_EX_CUDA_TRY(cudaMemsetAsync(s.counters, 0, kCounters * sizeof *s.counters, 0), "zeroing the counters");
  pair_hist_kernel<<<blocks_for(c->num_tokens), kThreads>>>(c->a_offsets, c->num_docs, c->a_topic, c->a_count,
                                                           s.dense, s.counters, nullptr, 0);
  SK_EX_LAUNCH_CHECK("counting A's histograms");
  if (VK > 0) {
    word_hist_kernel<<<blocks_for(VK), kThreads>>>(c->b, VK, s.word_dense, s.counters, nullptr, 0);
    SK_EX_LAUNCH_CHECK("counting B's histogram");
  }
  unsigned long long counters[kCounters];
  SK_EX_CUDA_TRY(cudaMemcpy(counters, s.counters, sizeof counters, cudaMemcpyDeviceToHost), "counting the histograms");
  const uint64_t pairs = counters[kPairTail], words = counters[kWordTail];
  if (pairs > 0) {
    if (sk_ex_cuda_alloc(&s.pair_list, (size_t)pairs, SK_EX_CUDA_SCOPE, "the listed pairs of A", &s.bytes, err)) return 1;
    pair_hist_kernel<<<blocks_for(c->num_tokens), kThreads>>>(c->a_offsets, c->num_docs, c->a_topic, c->a_count,
                                                             s.dense, s.counters, s.pair_list, pairs);
    SK_EX_LAUNCH_CHECK("listing A's large counts");
  }
  if (words > 0) {
    if (sk_ex_cuda_alloc(&s.word_list, (size_t)words, SK_EX_CUDA_SCOPE, "the listed counts of B", &s.bytes, err))
      return 1;
    word_hist_kernel<<<blocks_for(VK), kThreads>>>(c->b, VK, s.word_dense, s.counters, s.word_list, words);
    SK_EX_LAUNCH_CHECK("listing B's large counts");
  }
  static_assert(sizeof(unsigned) == sizeof(int32_t), "A's histograms are copied as they are");
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "B's histogram and n_k are copied as they are");
  SK_EX_CUDA_TRY(cudaMemcpy(out->doc_topic, s.dense, K * kDense * sizeof *s.dense, cudaMemcpyDeviceToHost),
                 "copying A's histograms");
  SK_EX_CUDA_TRY(cudaMemcpy(out->word_topic, s.word_dense, kDense * sizeof *s.word_dense, cudaMemcpyDeviceToHost),
                 "copying B's histogram");
  SK_EX_CUDA_TRY(cudaMemcpy(out->topic_total, c->n_k, K * sizeof *c->n_k, cudaMemcpyDeviceToHost), "copying n_k");
  return take_tails(s, pairs, words, out, err);
}

}  // namespace

extern "C" int sk_lda_gpu_hyper_stats(const sk_lda_gpu_counts *c, const sk_lda_corpus *corpus, sk_lda_hyper_stats *out,
                                      int64_t *device_bytes, sk_ex_error *err) {
  if (device_bytes != NULL) *device_bytes = 0;
  if (out != NULL) memset(out, 0, sizeof *out);
  if (c == NULL || corpus == NULL || out == NULL || c->a_offsets == NULL || c->a_topic == NULL || c->a_count == NULL ||
      c->b == NULL || c->n_k == NULL)
    return sk_ex_fail(err, "GPU prior histograms: a pointer is NULL");
  if (corpus->num_docs != c->num_docs)
    return sk_ex_fail(err, "GPU prior histograms: the corpus has %d documents, the counts %d", (int)corpus->num_docs,
                      (int)c->num_docs);
  if (sk_lda_hyper_stats_init(out, c->num_topics, c->num_words, err) != 0) return 1;
  scratch s;
  memset(&s, 0, sizeof s);
  int rc = gather(s, c, out, err);
  if (device_bytes != NULL) *device_bytes = s.bytes;
  s.free_all();
  if (rc == 0) rc = sk_lda_hyper_stats_set_lengths(out, corpus, err);
  if (rc != 0) sk_lda_hyper_stats_free(out);
  return rc;
}
