// The owning GPU LDA state and the sweep's epilogue (gpu_state.cuh), and the GPU's free memory (gpu.h).
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_state.cuh"
#include "gpu/topic_inverse.cuh"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"

#define SK_EX_CUDA_SCOPE "GPU sampler"
#include "sk_ex_cuda_check.cuh"

namespace sk_lda_gpu {
namespace {

// Column sums of B: block (x, y) sums rows [y * kTotalsRows, ...) of columns x * 256 + threadIdx.x.
constexpr int kTotalsRows = 256;

__global__ void topic_totals_kernel(const int32_t *b, int32_t num_words, int32_t num_topics,
                                    unsigned long long *n_k) {
  const int32_t k = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= num_topics) return;
  const int32_t v0 = (int32_t)blockIdx.y * kTotalsRows;
  const int32_t v1 = v0 + kTotalsRows < num_words ? v0 + kTotalsRows : num_words;
  unsigned long long sum = 0;
  for (int32_t v = v0; v < v1; ++v) sum += (unsigned long long)b[(size_t)v * (size_t)num_topics + (size_t)k];
  if (sum != 0) atomicAdd(n_k + k, sum);
}

// The packed-A part: pair i of A as topic << 16 | count (both below 2^16, state_init()), for the pairs
// A has (a_offsets[D] of the capacity).
constexpr int kPackThreads = 256;

__global__ void pack_a_kernel(const int32_t *a_offsets, int32_t num_docs, const uint32_t *topic, const uint32_t *count,
                              uint32_t *packed, int64_t capacity) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= capacity || i >= (int64_t)a_offsets[num_docs]) return;
  packed[i] = topic[i] << 16 | count[i];
}

int segc_fail(sk_ex_error *err, const char *what, sk_status st) {
  return sk_ex_fail(err, "GPU sampler: %s: %s (%s)", what, sk_status_string(st), sk_last_cuda_error_string());
}

template <typename T>
int download_array(T *dst, const T *src, size_t count, const char *what, sk_ex_error *err) {
  if (count == 0) return 0;
  SK_EX_CUDA_TRY(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost), what);
  return 0;
}

size_t vk_of(const lda_state *st) { return (size_t)st->num_words * (size_t)st->num_topics; }
size_t touched_of(const lda_state *st) {
  return (size_t)st->num_words * (size_t)segments_touched_words(st->num_topics);
}

// Copies the per-topic priors alpha_k (K, host) to the state's arrays, with their float rounding and their
// lgamma (the C library's, as metrics.c takes it: serially, it writes signgam).
int upload_priors(lda_state *st, const double *alpha_k, sk_ex_error *err) {
  const size_t K = (size_t)st->num_topics;
  float *f = (float *)malloc(K * sizeof *f);
  double *lg = (double *)malloc(K * sizeof *lg);
  int failed = f == NULL || lg == NULL ? sk_ex_fail(err, "GPU sampler: out of host memory (K = %d)", (int)K) : 0;
  for (size_t k = 0; k < K && !failed; ++k) {
    f[k] = (float)alpha_k[k];
    lg[k] = lgamma(alpha_k[k]);
  }
  if (!failed)
    failed = upload_array(st->alpha_k, alpha_k, K, "copying alpha_k", err) ||
             upload_array(st->alpha_k_f, f, K, "copying alpha_k", err) ||
             upload_array(st->lg_alpha_k, lg, K, "copying lgamma(alpha_k)", err);
  free(f);
  free(lg);
  return failed;
}

// A's pairs from the device into the model's layout (document d's from dk_start[d]).
int a_to_model(const lda_state *st, sk_lda_model *m, sk_ex_error *err) {
  const size_t D = (size_t)st->num_docs, cap = (size_t)(st->pair_capacity > 0 ? st->pair_capacity : 1);
  int32_t *offsets = (int32_t *)malloc((D + 1) * sizeof *offsets);
  uint32_t *topic = (uint32_t *)malloc(cap * sizeof *topic), *count = (uint32_t *)malloc(cap * sizeof *count);
  int failed = offsets == NULL || topic == NULL || count == NULL
                   ? sk_ex_fail(err, "GPU sampler to host: out of host memory for A (%lld pairs)",
                                 (long long)st->pair_capacity)
                   : download_array(offsets, st->a_offsets, D + 1, "copying A's offsets", err);
  const int32_t pairs = failed ? 0 : offsets[D];
  if (!failed && (pairs < 0 || pairs > st->pair_capacity))
    failed = sk_ex_fail(err, "GPU sampler to host: A has %d pairs, more than its capacity %lld", (int)pairs,
                         (long long)st->pair_capacity);
  if (!failed)
    failed = download_array(topic, st->a_topic, (size_t)pairs, "copying A's topics", err) ||
             download_array(count, st->a_count, (size_t)pairs, "copying A's counts", err);
  for (size_t doc = 0; doc < D && !failed; ++doc) {
    const int32_t begin = offsets[doc], nnz = offsets[doc + 1] - begin;
    const int64_t slots = m->dk_start[doc + 1] - m->dk_start[doc];
    if (nnz < 0 || (int64_t)nnz > slots) {
      failed = sk_ex_fail(err, "GPU sampler to host: document %zu has %d topics, more than its %lld slots", doc,
                           (int)nnz, (long long)slots);
      break;
    }
    for (int32_t i = 0; i < nnz; ++i) {
      m->dk_topic[m->dk_start[doc] + i] = (int32_t)topic[begin + i];
      m->dk_count[m->dk_start[doc] + i] = (int32_t)count[begin + i];
    }
    m->dk_nnz[doc] = nnz;
  }
  free(offsets);
  free(topic);
  free(count);
  return failed;
}

}  // namespace

int upload_bytes(void *dst, const void *src, size_t bytes, const char *what, sk_ex_error *err) {
  if (bytes == 0) return 0;
  SK_EX_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), what); /* src: host or device (UVA) */
  return 0;
}

size_t device_arrays::bytes() const {
  size_t sum = 0;
  for (int i = 0; i < n && i < kMax; ++i) sum += (a[i].count > 0 ? a[i].count : 1) * a[i].elem;
  return sum;
}

int device_arrays::allocate(int64_t *allocated, sk_ex_error *err) const {
  if (n > kMax) return sk_ex_fail(err, "GPU sampler: %d device arrays, at most %d (internal)", n, kMax);
  for (int i = 0; i < n; ++i) {
    const size_t bytes = (a[i].count > 0 ? a[i].count : 1) * a[i].elem;
    const cudaError_t e = cudaMalloc(a[i].ptr, bytes);
    if (e != cudaSuccess) {
      *a[i].ptr = NULL;
      char what[160];
      snprintf(what, sizeof what, "allocating %s (%zu bytes)", a[i].what, bytes);
      return sk_ex_cuda_fail(err, SK_EX_CUDA_SCOPE, what, e);
    }
    *allocated += (int64_t)bytes;
  }
  return 0;
}

int state_init(lda_state *st, const sk_lda_model *m, int gpu, unsigned parts, const sk_lda_rank_link *rank,
               sk_ex_error *err) {
  memset(st, 0, sizeof *st);
  st->gpu = gpu;
  st->parts = parts;
  st->num_topics = m->num_topics;
  st->num_words = m->num_words;
  st->num_docs = m->num_docs;
  st->num_tokens = m->num_tokens;
  st->pair_capacity = (parts & kStateDocuments) ? (int64_t)m->dk_start[m->num_docs] : 0;
  st->alpha = m->alpha;
  st->beta = m->beta;
  st->vbeta = (double)m->num_words * m->beta; /* esca.c's expression, rounded on the host */
  st->asymmetric = m->alpha_k != NULL;
  st->alpha_sum = sk_lda_model_alpha_sum(m);
  st->seed = m->seed;
  if (rank != NULL) {
    st->token_base = rank->token_base;
    st->sum = rank->sum;
  }
  if (parts & kStateSegments) state_size_segments(st, m);
  if (parts & kStatePackedA) {
    /* a topic is below K and a count at most its document's length: both must fit 16 bits */
    int fits = (parts & kStateDocuments) && m->num_topics <= 65536;
    for (int32_t d = 0; fits && d < m->num_docs; ++d)
      fits = m->corpus->doc_offsets[d + 1] - m->corpus->doc_offsets[d] <= 65535;
    if (!fits) st->parts &= ~kStatePackedA;
  }
  if ((parts & kStateTouched) && (parts & (kStateNext | kStateSegments)) != kStateSegments)
    return sk_ex_fail(err, "GPU sampler: the touched part goes with segments, not next (internal)");
  if (!(parts & kStateDocuments)) return 0;
  if (m->num_tokens > SK_SEGMENTED_COUNT_MAX_ITEMS) /* A's count by samplekit's segmented count */
    return sk_ex_fail(err, "GPU sampler: %lld tokens; the corpus kept on the device takes at most %d",
                       (long long)m->num_tokens, SK_SEGMENTED_COUNT_MAX_ITEMS);
  const sk_status s = sk_segmented_count_workspace_size(st->num_docs, (int32_t)st->num_tokens, st->num_topics,
                                                        &st->workspace_bytes);
  return s == SK_SUCCESS ? 0 : segc_fail(err, "sizing the segmented count's workspace", s);
}

void state_arrays(lda_state *st, device_arrays *list) {
  const size_t K = (size_t)st->num_topics, vk = vk_of(st);
  list->add(&st->b, vk, "B");
  list->add(&st->n_k, K, "n_k");
  if (st->parts & kStateDocuments) {
    const size_t T = (size_t)st->num_tokens, D = (size_t)st->num_docs, pairs = (size_t)st->pair_capacity;
    list->add(&st->doc_offsets, D + 1, "the document offsets");
    list->add(&st->z, T, "z");
    list->add(&st->a_offsets, D + 1, "A's offsets");
    list->add(&st->a_topic, pairs, "A's topics");
    list->add(&st->a_count, pairs, "A's counts");
    if (st->parts & kStatePackedA) list->add(&st->a_packed, pairs, "A's packed pairs");
    list->add((unsigned char **)&st->workspace, st->workspace_bytes, "the segmented count's workspace");
  }
  if (st->parts & kStateNext) list->add(&st->b_next, vk, "B's next counts");
  if (st->parts & kStateTouched)
    list->add(&st->touched, touched_of(st), "the marks of B's counted entries");
  if (st->parts & kStateInverse) list->add(&st->inv, K, "1 / (n_k + V beta)");
  if (st->parts & kStateSegments) {
    const size_t V = (size_t)st->num_words;
    list->add(&st->seg.nnz, V, "the word segments");
    list->add(&st->seg.topic_off, V, "the word segments");
    list->add(&st->seg.tree_off, V, "the word segments");
    list->add(&st->seg.topic, (size_t)st->seg.topic_capacity, "the word segments' topics");
    list->add(&st->seg.count, (size_t)st->seg.topic_capacity, "the word segments' counts");
    list->add(&st->seg.partials, (size_t)st->seg.partial_blocks * K, "the partial sums of n_k");
    list->add(&st->seg.tree, (size_t)st->seg.tree_capacity, "the word segments' trees");
    list->add(&st->seg.prior, sk_wary_tree_floats(st->num_topics), "the prior tree");
    list->add(&st->seg.rho, K, "the prior weights");
    list->add(&st->seg.big_words, V, "the word segments");
  }
  if (st->asymmetric) {
    list->add(&st->alpha_k, K, "alpha_k");
    list->add(&st->alpha_k_f, K, "alpha_k (float)");
    list->add(&st->lg_alpha_k, K, "lgamma(alpha_k)");
  }
}

int state_upload(lda_state *st, const sk_lda_model *m, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaSetDevice(st->gpu), "selecting the GPU");
  const size_t vk = vk_of(st);
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "n_k is copied as it is");
  if (upload_array(st->b, m->n_vk, vk, "copying B", err) ||
      upload_array(st->n_k, (const unsigned long long *)m->n_k, (size_t)st->num_topics, "copying n_k", err))
    return 1;
  if (st->b_next != NULL && vk > 0)
    SK_EX_CUDA_TRY(cudaMemset(st->b_next, 0, vk * sizeof *st->b_next), "zeroing B's next counts");
  if (st->touched != NULL && touched_of(st) > 0)
    SK_EX_CUDA_TRY(cudaMemset(st->touched, 0, touched_of(st) * sizeof *st->touched), "zeroing the marks");
  if (st->asymmetric && upload_priors(st, m->alpha_k, err) != 0) return 1;
  if (st->parts & kStateSegments) {
    SK_EX_CUDA_TRY(segments_place(&st->seg, st->b, st->num_words, st->num_topics), "placing the word segments");
    /* the first sweep's lists (n_k comes out as uploaded) */
    SK_EX_CUDA_TRY(segments_count(st->seg, st->b, st->num_words, st->num_topics, st->n_k, 0), "listing B's nonzeros");
  }
  if (st->parts & kStateDocuments) {
    const size_t D = (size_t)st->num_docs;
    int32_t *offsets = (int32_t *)malloc((D + 1) * sizeof *offsets);
    if (offsets == NULL) return sk_ex_fail(err, "GPU sampler: out of host memory (D = %d)", (int)st->num_docs);
    for (size_t i = 0; i <= D; ++i) offsets[i] = (int32_t)m->corpus->doc_offsets[i];
    const int failed = upload_array(st->doc_offsets, offsets, D + 1, "copying the document offsets", err);
    free(offsets);
    if (failed || upload_array(st->z, m->z, (size_t)st->num_tokens, "copying z", err) || state_rebuild_a(st, err))
      return 1;
  }
  SK_EX_CUDA_TRY(cudaDeviceSynchronize(), "building the counts");
  return 0;
}

int state_rebuild_a(lda_state *st, sk_ex_error *err) {
  const sk_status s = sk_segmented_count_u32(st->doc_offsets, st->num_docs, (int32_t)st->num_tokens,
                                             (const uint32_t *)st->z, NULL, st->num_topics, st->a_offsets,
                                             st->a_topic, st->a_count, (int32_t)st->pair_capacity, st->workspace,
                                             st->workspace_bytes, 0);
  if (s != SK_SUCCESS) return segc_fail(err, "counting A (segmented count)", s);
  if (st->a_packed != NULL && st->pair_capacity > 0) {
    const int64_t blocks = (st->pair_capacity + kPackThreads - 1) / kPackThreads;
    pack_a_kernel<<<(unsigned)blocks, kPackThreads>>>(st->a_offsets, st->num_docs, st->a_topic, st->a_count,
                                                     st->a_packed, st->pair_capacity);
    SK_EX_CUDA_TRY(cudaGetLastError(), "packing A's pairs");
  }
  return 0;
}

int state_inverse(lda_state *st, sk_ex_error *err) {
  SK_EX_CUDA_TRY(topic_inverse_f32_launch(st->n_k, st->num_topics, st->vbeta, st->inv, 0),
                  "computing 1 / (n_k + V beta)");
  return 0;
}

void state_size_segments(lda_state *st, const sk_lda_model *m) {
  segments_capacity(m, 0, &st->seg.topic_capacity, &st->seg.tree_capacity);
  st->seg.partial_blocks = segments_partial_blocks(m->num_words);
}

int state_segments(lda_state *st, sk_ex_error *err) {
  /* with the touched part, the same warps zero B at its nonzeros for the draws' counts */
  int32_t *const clear_b = (st->parts & kStateTouched) ? st->b : NULL;
  SK_EX_CUDA_TRY(segments_build(st->seg, st->inv, state_alpha_f(*st), st->num_words, st->num_topics,
                                (float)st->beta, clear_b, 0),
                 "building the word segments");
  return 0;
}

int state_epilogue(lda_state *st, sk_ex_error *err) {
  if (st->parts & kStateTouched) {
    SK_EX_CUDA_TRY(segments_list_touched(st->seg, st->touched, st->b, st->num_words, st->num_topics, st->n_k, 0),
                   "listing B's counted entries and n_k");
    return 0;
  }
  const size_t vk = vk_of(st);
  /* B itself is the sum's scratch: the draws that read it are done (the sum waits for them) and the
     swap below makes it the next counts, zeroed. */
  if (st->sum.fn != NULL && st->sum.fn(st->sum.ctx, st->b_next, st->b, vk, err) != 0) return 1;
  if (st->parts & kStateSegments) {
    /* one pass: n_k and the next sweep's lists of B's nonzeros (esca_segments.cuh) */
    SK_EX_CUDA_TRY(segments_count(st->seg, st->b_next, st->num_words, st->num_topics, st->n_k, 0),
                   "counting B's nonzeros and n_k");
  } else {
    SK_EX_CUDA_TRY(cudaMemsetAsync(st->n_k, 0, (size_t)st->num_topics * sizeof *st->n_k, 0), "zeroing n_k");
    if (st->num_words > 0) {
      const dim3 grid((unsigned)((st->num_topics + 255) / 256),
                      (unsigned)((st->num_words + kTotalsRows - 1) / kTotalsRows));
      topic_totals_kernel<<<grid, 256, 0, 0>>>(st->b_next, st->num_words, st->num_topics, st->n_k);
      SK_EX_LAUNCH_CHECK("summing the topic totals");
    }
  }
  int32_t *const b = st->b;
  st->b = st->b_next;
  st->b_next = b; /* zeroed now, for the next sweep's counts */
  SK_EX_CUDA_TRY(cudaMemsetAsync(st->b_next, 0, vk * sizeof *st->b_next, 0), "zeroing B's next counts");
  return 0;
}

int state_set_priors(lda_state *st, const sk_lda_model *m, int64_t *allocated, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaSetDevice(st->gpu), "selecting the GPU");
  // The queued sweeps read the priors: they finish before the copies replace them.
  SK_EX_CUDA_TRY(cudaDeviceSynchronize(), "finishing the sweeps before the priors change");
  if (m->alpha_k != NULL && st->alpha_k == NULL) {
    device_arrays list;
    list.add(&st->alpha_k, (size_t)st->num_topics, "alpha_k");
    list.add(&st->alpha_k_f, (size_t)st->num_topics, "alpha_k (float)");
    list.add(&st->lg_alpha_k, (size_t)st->num_topics, "lgamma(alpha_k)");
    if (list.allocate(allocated, err) != 0) return 1;
  }
  if (m->alpha_k != NULL && upload_priors(st, m->alpha_k, err) != 0) return 1;
  st->asymmetric = m->alpha_k != NULL;
  st->alpha = m->alpha;
  st->alpha_sum = sk_lda_model_alpha_sum(m);
  st->beta = m->beta;
  st->vbeta = (double)m->num_words * m->beta; /* as state_init() */
  return 0;
}

int state_shape_matches(const lda_state *st, const sk_lda_model *m) {
  return m->num_topics == st->num_topics && m->num_words == st->num_words && m->num_docs == st->num_docs &&
         m->num_tokens == st->num_tokens;
}

int state_to_model(const lda_state *st, sk_lda_model *m, sk_ex_error *err) {
  SK_EX_CUDA_TRY(cudaSetDevice(st->gpu), "selecting the GPU");
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "n_k is copied as it is");
  if (download_array(m->z, st->z, (size_t)st->num_tokens, "copying z", err) ||
      download_array(m->n_vk, st->b, vk_of(st), "copying B", err) ||
      download_array((unsigned long long *)m->n_k, st->n_k, (size_t)st->num_topics, "copying n_k", err))
    return 1;
  return a_to_model(st, m, err);
}

void state_counts(const lda_state *st, sk_lda_gpu_counts *out) {
  memset(out, 0, sizeof *out);
  out->gpu = st->gpu;
  out->num_topics = st->num_topics;
  out->num_words = st->num_words;
  out->num_docs = st->num_docs;
  out->num_tokens = st->num_tokens;
  out->alpha = st->alpha;
  out->beta = st->beta;
  out->seed = st->seed;
  out->b = st->b;
  out->n_k = st->n_k;
  out->doc_offsets = st->doc_offsets;
  out->a_offsets = st->a_offsets;
  out->a_topic = st->a_topic;
  out->a_count = st->a_count;
  out->alpha_k = state_alpha(*st);
  out->lg_alpha_k = st->asymmetric ? st->lg_alpha_k : NULL;
  out->alpha_sum = st->alpha_sum;
  if (st->parts & kStateSegments) {  // the epilogue (and the upload) list the current B's nonzeros
    out->b_list_nnz = st->seg.nnz;
    out->b_list_off = st->seg.topic_off;
    out->b_list_topic = st->seg.topic;
    out->b_list_count = st->seg.count;
  }
}

void state_free(lda_state *st) {
  void *const all[] = {st->b,         st->n_k,    st->doc_offsets, st->z,         st->a_offsets,
                       st->a_topic,   st->a_count, st->a_packed, st->workspace, st->b_next,   st->inv,
                       st->alpha_k,   st->alpha_k_f, st->lg_alpha_k, st->seg.nnz, st->seg.topic_off,
                       st->seg.tree_off, st->seg.topic, st->seg.count, st->seg.tree, st->seg.prior, st->seg.rho,
                       st->seg.partials, st->touched, st->seg.big_words};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) cudaFree(all[i]);
  st->b = st->b_next = st->doc_offsets = st->z = st->a_offsets = NULL;
  st->touched = NULL;
  st->n_k = NULL;
  st->a_topic = st->a_count = st->a_packed = NULL;
  st->workspace = NULL;
  st->inv = NULL;
  st->alpha_k = st->lg_alpha_k = NULL;
  st->alpha_k_f = NULL;
  const segments sizes = st->seg;
  st->seg = segments{};
  st->seg.topic_capacity = sizes.topic_capacity;
  st->seg.tree_capacity = sizes.tree_capacity;
  st->seg.partial_blocks = sizes.partial_blocks;
}

}  // namespace sk_lda_gpu

extern "C" int sk_lda_gpu_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes, sk_ex_error *err) {
  size_t free_b = 0, total_b = 0;
  SK_EX_CUDA_TRY(cudaSetDevice(device), "selecting the GPU");
  SK_EX_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b), "querying the GPU's free memory");
  if (free_bytes != NULL) *free_bytes = free_b;
  if (total_bytes != NULL) *total_bytes = total_b;
  return 0;
}
