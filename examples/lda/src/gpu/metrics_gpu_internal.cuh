// What the files of sk-lda's GPU metrics (metrics_gpu.h) share: the context and its device buffers
// (metrics_gpu_context.cu owns them), and the host helpers that the joint log-likelihood
// (metrics_gpu_joint.cu) and the held-out score (metrics_gpu_heldout.cu) call on it. No device code:
// each kernel lives, with its device helpers, in the one file that launches it.
#ifndef SK_LDA_METRICS_GPU_INTERNAL_CUH
#define SK_LDA_METRICS_GPU_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "gpu/gpu_counts.h"
#include "gpu/metrics_gpu.h"

// A device buffer and its size, so that the context knows what it holds.
struct sk_lda_gpu_buf {
  void *ptr;
  size_t bytes;
};

struct sk_lda_gpu_metrics {
  int gpu;
  int sm_count;
  size_t shared_optin;  // dynamic shared memory a block may ask for
  int64_t bytes, peak;  // device bytes held now, and the most held
  sk_lda_gpu_buf partials;  // joint LL: one double per block of terms, then the result
  // The test halves (set_test) and the fold-in's scratch.
  int has_test;
  int32_t test_words, test_docs;
  int64_t observed_tokens, heldout_tokens;
  int64_t max_obs_len;  // the longest observed half
  int32_t long_docs;    // the leading entries of order whose observed halves are long enough for windows
  int64_t window_min_obs;  // the shortest of those observed halves
  int window_ctas;         // blocks a window's cluster: 0 chooses (metrics_gpu_heldout.cu), else asked for
  int window_ctas_used;    // what the last held-out call used (0: no windows)
  sk_lda_gpu_buf obs_tokens, obs_offsets, held_tokens, held_offsets, order, z, doc_ll, next_doc;
  sk_lda_gpu_buf inv, scratch;
  sk_lda_gpu_buf window_tokens;  // the long documents' tokens as the windows kernel reads them
  // The fold-in's tables of one call (metrics_fold_tables()): beta c_k, the s table, B's nonzeros as CSR
  // (topics and n_wk c_k).
  sk_lda_gpu_buf s_cum, word_start, word_topic;
  sk_lda_gpu_buf word_q_cum;  // each word's q running sums, a_k (n_wk c_k) from 0 in topic order
  int64_t word_start_count;   // nnz(B) of the last tables
  // The uncollapsed sweeps (metrics_gpu_uncollapsed.cu): each observed token's document, each test
  // document's nonzero topics and theta shares (from its first token's place) and their number, the shared
  // variates and r tables of all sweeps, a sweep's q' tables, the theta and draw kernels' scratch.
  sk_lda_gpu_buf u_token_doc, u_doc_topic, u_doc_x, u_doc_nnz, u_y, u_r, u_word_r, u_scratch;
  double *h_doc_ll;
  // The long documents' fold-in kernel runs on `side` beside the one-warp kernel on the legacy stream
  // (metrics_gpu_heldout.cu), after fold_start and before fold_done; created at its first use.
  cudaStream_t side;
  cudaEvent_t fold_start, fold_done;
};

namespace sk_lda_gpu {

// Frees b (cudaFree's error ignored) and takes its bytes off g's count.
void metrics_buf_free(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b);

// Makes b hold at least `bytes` (at least 1), reallocating when it is smaller; the old contents go.
int metrics_buf_reserve(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b, size_t bytes, const char *what, sk_ex_error *err);

// metrics_buf_reserve(), then a copy of `bytes` from host memory h.
int metrics_buf_upload(sk_lda_gpu_metrics *g, sk_lda_gpu_buf *b, const void *h, size_t bytes, const char *what,
                       sk_ex_error *err);

// Frees the test halves and the host copy of the document scores; g then holds no halves.
void metrics_free_test(sk_lda_gpu_metrics *g);

// 0 when the counts are usable by g (device pointers set, g's device, valid sizes), else 1 with err
// filled; `what` names the metric.
int metrics_check_counts(const sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, const char *what,
                         sk_ex_error *err);

// The fold-in's tables for the counts c (metrics.h's sk_lda_detail_fold_tables, on the device, with the
// same bits): g->inv = 1 / (n_k + V beta), g->s_cum the running sums of a_k beta inv_k in topic order,
// and B's nonzeros as CSR (g->word_start V + 1, g->word_topic, topics increasing within a word), and
// g->word_q_cum, each word's running sums of a_k (double)n_wk * inv[k] from 0 (the products written
// first, then summed in place). Queued on the legacy default stream; waits once, for the number of
// nonzeros.
int metrics_fold_tables(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, sk_ex_error *err);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_METRICS_GPU_INTERNAL_CUH
