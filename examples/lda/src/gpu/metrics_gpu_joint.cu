// sk-lda's joint log-likelihood on the GPU (sk_lda_gpu_metrics_joint_ll() of metrics_gpu.h): the
// kernels that sum metrics.c's terms from the sampler's device counts, and their entry point.
//
// Every term, product and quotient is written with the _rn intrinsics in metrics.c's order, so nvcc
// cannot fuse a multiply and an add (metrics.c is C11 without -ffast-math: gcc does not contract
// either) and each one has the CPU's bits. The sums are where the two differ: the CPU adds
// sequentially, here each block adds in a tree of a fixed shape (samplekit's block sums, whose order
// is documented), which is as deterministic and, for long sums, more accurate.
#include <cuda_runtime.h>

#include <math.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/metrics_gpu.h"
#include "gpu/metrics_gpu_internal.cuh"
#include "samplekit/block_sum.cuh"

#define SK_EX_CUDA_SCOPE "GPU metrics"

namespace {

// Joint LL: a block of 256 threads sums 4096 consecutive terms of one kind (16 a thread, strided so
// that a warp's loads are coalesced) into one partial sum (sk_block_sum_f64: a halving tree over the
// threads' sums); one block then sums the partials (sk_block_sum_array_f64). Two launches and no
// atomics: samplekit's device-wide sum in a fixed order.
constexpr int kJointThreads = 256;
constexpr int kJointItems = 16;
constexpr int64_t kJointBlockTerms = (int64_t)kJointThreads * kJointItems;

// With the sampler's lists of B's nonzeros (gpu_counts.h), a block of B's terms is kJointListWords
// words: its threads stride over each word's list in turn.
constexpr int32_t kJointListWords = 32;

struct joint_params {
  const int32_t *b;
  const int32_t *list_nnz, *list_count;  // B's nonzeros by word (gpu_counts.h), or NULL: read b
  const int64_t *list_off;
  int32_t num_words;
  const unsigned long long *n_k;
  const int32_t *doc_offsets, *a_offsets;
  const uint32_t *a_topic, *a_count;
  const double *alpha_k, *lg_alpha_k;  // per-topic priors and their lgamma, or NULL: alpha, lg_alpha
  int64_t num_b;          // V K
  int64_t pair_slots;     // T: A never has more pairs than tokens; a_offsets[D] says how many it has
  int32_t num_docs, num_topics;
  int64_t blocks_b, blocks_p, blocks_d;  // the blocks of B's terms, then A's, the documents', the topics'
  double alpha, beta, kalpha, vbeta;     // kalpha = (double)K alpha (or sum_k alpha_k), vbeta = (double)V beta, as metrics.c
  double lg_alpha, lg_beta, lg_kalpha, lg_vbeta;
};

// One partial sum per block of the terms of sk_lda_joint_ll_per_token(): lgamma(n_vk + beta) - lgamma(beta)
// per nonzero n_vk (from B's lists when the sampler gives them: the same terms in another fixed order), lgamma(n_dk + alpha) - lgamma(alpha) per pair of A, lgamma(K alpha) - lgamma(K alpha + n_d)
// per document, lgamma(V beta) - lgamma(V beta + n_k) per topic.
__global__ void joint_terms_kernel(joint_params p, double *partials) {
  __shared__ sk_block_sum_storage_f64<kJointThreads> storage;
  const int64_t block = blockIdx.x;
  double s = 0.0;
  if (block < p.blocks_b && p.list_nnz != nullptr) {
    const int32_t v0 = (int32_t)block * kJointListWords;
    const int32_t v1 = v0 + kJointListWords < p.num_words ? v0 + kJointListWords : p.num_words;
    for (int32_t v = v0; v < v1; ++v) {
      const int32_t *counts = p.list_count + p.list_off[v];
      const int32_t n = p.list_nnz[v];
      for (int32_t j = (int32_t)threadIdx.x; j < n; j += kJointThreads)
        s = __dadd_rn(s, __dsub_rn(lgamma(__dadd_rn((double)counts[j], p.beta)), p.lg_beta));
    }
  } else if (block < p.blocks_b) {
    const int64_t base = block * kJointBlockTerms;
#pragma unroll
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t i = base + (int64_t)j * kJointThreads + threadIdx.x;
      const int32_t c = i < p.num_b ? p.b[i] : 0;
      if (c != 0) s = __dadd_rn(s, __dsub_rn(lgamma(__dadd_rn((double)c, p.beta)), p.lg_beta));
    }
  } else if (block < p.blocks_b + p.blocks_p) {
    const int64_t base = (block - p.blocks_b) * kJointBlockTerms;
    const int64_t pairs = p.a_offsets[p.num_docs];
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t i = base + (int64_t)j * kJointThreads + threadIdx.x;
      if (i >= pairs) continue;
      if (p.alpha_k == nullptr) {
        s = __dadd_rn(s, __dsub_rn(lgamma(__dadd_rn((double)p.a_count[i], p.alpha)), p.lg_alpha));
      } else {  // metrics.c's sk_lda_detail_doc_part_prior(): the pair's topic's prior
        const uint32_t k = p.a_topic[i];
        s = __dadd_rn(s, __dsub_rn(lgamma(__dadd_rn((double)p.a_count[i], p.alpha_k[k])), p.lg_alpha_k[k]));
      }
    }
  } else if (block < p.blocks_b + p.blocks_p + p.blocks_d) {
    const int64_t base = (block - p.blocks_b - p.blocks_p) * kJointBlockTerms;
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t d = base + (int64_t)j * kJointThreads + threadIdx.x;
      if (d < p.num_docs) {
        const int32_t n = p.doc_offsets[d + 1] - p.doc_offsets[d];
        s = __dadd_rn(s, __dsub_rn(p.lg_kalpha, lgamma(__dadd_rn(p.kalpha, (double)n))));
      }
    }
  } else {
    const int64_t base = (block - p.blocks_b - p.blocks_p - p.blocks_d) * kJointBlockTerms;
    for (int j = 0; j < kJointItems; ++j) {
      const int64_t k = base + (int64_t)j * kJointThreads + threadIdx.x;
      if (k < p.num_topics)
        s = __dadd_rn(s, __dsub_rn(p.lg_vbeta, lgamma(__dadd_rn(p.vbeta, (double)(long long)p.n_k[k]))));
    }
  }
  s = sk_block_sum_f64(&storage, (int)threadIdx.x, kJointThreads, s);
  if (threadIdx.x == 0) partials[block] = s;
}

// *out = the sum of partials[0 .. n), in a fixed order (one block).
__global__ void sum_kernel(const double *partials, int64_t n, double *out) {
  __shared__ sk_block_sum_storage_f64<kJointThreads> storage;
  const double s = sk_block_sum_array_f64(&storage, (int)threadIdx.x, kJointThreads, partials, n);
  if (threadIdx.x == 0) *out = s;
}

}  // namespace

extern "C" int sk_lda_gpu_metrics_joint_ll(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, double *ll_per_token,
                                           sk_ex_error *err) {
  if (g == NULL || c == NULL || ll_per_token == NULL) return sk_ex_fail(err, "GPU metrics: joint LL: a pointer is NULL");
  if (sk_lda_gpu::metrics_check_counts(g, c, "joint LL", err) != 0) return 1;
  if (c->num_tokens == 0) {
    *ll_per_token = NAN;  // as sk_lda_joint_ll_per_token()
    return 0;
  }
  SK_EX_CUDA_TRY(cudaSetDevice(g->gpu), "selecting the GPU");
  (void)cudaGetLastError();  // an error some earlier call already reported is not this call's
  joint_params p;
  p.b = c->b;
  p.list_nnz = c->b_list_nnz;
  p.list_off = c->b_list_off;
  p.list_count = c->b_list_count;
  if ((p.list_nnz == NULL) != (p.list_off == NULL) || (p.list_nnz == NULL) != (p.list_count == NULL) ||
      (p.list_nnz == NULL) != (c->b_list_topic == NULL))
    return sk_ex_fail(err, "GPU metrics: joint LL: B's lists are given in part");
  p.num_words = c->num_words;
  p.n_k = c->n_k;
  p.doc_offsets = c->doc_offsets;
  p.a_offsets = c->a_offsets;
  p.a_topic = c->a_topic;
  p.a_count = c->a_count;
  p.alpha_k = c->alpha_k;
  p.lg_alpha_k = c->alpha_k != NULL ? c->lg_alpha_k : NULL;
  if (c->alpha_k != NULL && c->lg_alpha_k == NULL)
    return sk_ex_fail(err, "GPU metrics: joint LL: per-topic priors without their lgamma");
  p.num_b = (int64_t)c->num_words * (int64_t)c->num_topics;
  p.pair_slots = c->num_tokens;
  p.num_docs = c->num_docs;
  p.num_topics = c->num_topics;
  p.blocks_b = p.list_nnz != NULL ? ((int64_t)c->num_words + kJointListWords - 1) / kJointListWords
                                   : (p.num_b + kJointBlockTerms - 1) / kJointBlockTerms;
  p.blocks_p = (p.pair_slots + kJointBlockTerms - 1) / kJointBlockTerms;
  p.blocks_d = ((int64_t)p.num_docs + kJointBlockTerms - 1) / kJointBlockTerms;
  const int64_t blocks_k = ((int64_t)p.num_topics + kJointBlockTerms - 1) / kJointBlockTerms;
  const int64_t blocks = p.blocks_b + p.blocks_p + p.blocks_d + blocks_k;
  p.alpha = c->alpha;
  p.beta = c->beta;
  p.kalpha = c->alpha_k != NULL ? c->alpha_sum : (double)c->num_topics * c->alpha;
  p.vbeta = (double)c->num_words * c->beta;
  // The constants from the C library, as metrics.c takes them (lgamma writes signgam: one caller at a time).
  p.lg_alpha = lgamma(c->alpha);
  p.lg_beta = lgamma(c->beta);
  p.lg_kalpha = lgamma(p.kalpha);
  p.lg_vbeta = lgamma(p.vbeta);
  if (blocks > INT32_MAX) return sk_ex_fail(err, "GPU metrics: joint LL: %lld blocks of terms", (long long)blocks);
  if (sk_lda_gpu::metrics_buf_reserve(g, &g->partials, (size_t)(blocks + 1) * sizeof(double),
                                      "allocating the partial sums", err) != 0)
    return 1;
  double *partials = (double *)g->partials.ptr;
  joint_terms_kernel<<<(unsigned)blocks, kJointThreads>>>(p, partials);
  SK_EX_LAUNCH_CHECK("summing the joint LL's terms");
  sum_kernel<<<1, kJointThreads>>>(partials, blocks, partials + blocks);
  SK_EX_LAUNCH_CHECK("summing the joint LL's partial sums");
  double sum = 0.0;
  SK_EX_CUDA_TRY(cudaMemcpy(&sum, partials + blocks, sizeof sum, cudaMemcpyDeviceToHost), "computing the joint LL");
  *ll_per_token = sum / (double)c->num_tokens;
  return 0;
}
