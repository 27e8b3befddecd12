// AGA-LDA's kernels on the GPU (aga_kernels.cu), for its sampler (aga_sampler.h): Moon et al., "AGA-LDA" (Euro-Par 2018) and
// the dissertation's section 2.5, Algorithms 8-12, in the order of aga_plan.h.
//
// Per mini-batch (documents processed in sequence):
//   1. dnt:    for each document d of the mini-batch, DT[d] counted from z, and
//              DNT[d,k] = (DT[d,k] + alpha) / (NT[k] + V beta) (alpha_k in place of alpha with per-topic
//              priors, here and below), NT as the mini-batch starts: the division
//              leaves the inner loop (the paper's Algorithm 4). nt_start[k] = NT[k] is kept beside it.
//   2. panels: one block per column panel keeps the panel's rows of WT (= B) in shared memory; a warp
//              per token: the token's old topic k0 is taken out of WT (shared atomic) and NT (the
//              block's shared change of NT, added to NT when the block ends: the draws read NT only
//              through DNT and nt_den, fixed for the mini-batch), the weights are
//                w[k] = (WT[v,k] + beta) DNT[d,k]   for k != k0,
//                w[k0] = (WT[v,k0] + beta) (DT[d,k0] - 1 + alpha) / (nt_start[k0] - 1 + V beta),
//              so that the token's own count is out of every term (with one-token documents and
//              mini-batches of one document this is collapsed Gibbs sampling exactly), the new topic is
//              drawn with the warp's running sums (samplekit's blocked draw, warp_blocked_sample.cuh,
//              for K <= 256: R = 1, 2, 4 or 8 topics a lane in registers, one warp scan a token; the
//              paper's two passes otherwise, with warp_sample_prefix.cuh: the total, then the walk to
//              u x total), and put into WT and NT; the block writes its rows back to B at the end. A
//              word split between panels (aga_plan.h, split_words) has a row in each of its panels'
//              blocks: those blocks add every change of it to B with global atomics as they draw, and
//              do not write it back, so B stays the sum of all changes; each block sees its own
//              changes of the row at once and the others' as they were when it loaded the row (never a
//              negative count: the others only move their own tokens).
// DT is not updated inside a mini-batch (delayed), WT and NT are (immediately): AGA's choice. The
// shared and global atomics make the topics depend on the order in which warps run: AGA is not
// deterministic (ESCA is the deterministic sampler).
#ifndef SK_LDA_AGA_KERNELS_CUH
#define SK_LDA_AGA_KERNELS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace sk_lda_gpu {

// What AGA's kernels read and write (device pointers); one mini-batch at a time.
struct aga_params {
  // The plan's panels and positions (aga_plan.h) on the device; the mini-batches stay on the host.
  const int32_t *panel_pos, *panel_word, *words, *order, *doc, *local;
  const uint8_t *panel_flags;  // SK_LDA_AGA_SHARES_FIRST | SK_LDA_AGA_SHARES_LAST per panel
  const int32_t *doc_offsets;  // D + 1
  int32_t *z;                  // T
  int32_t *wt;                 // V x K (B)
  unsigned long long *nt;      // K (n_k)
  int32_t *dt;                 // max_batch_docs x K scratch: the mini-batch's DT
  float *dnt;                  // max_batch_docs x K scratch
  float *nt_den;               // K: nt_start[k] + V beta (float), as the mini-batch starts
  int32_t num_topics;
  float alpha, beta, vbeta;
  const float *alpha_k;        // K per-topic priors (float), or NULL: alpha for every topic
  uint64_t seed, iteration;
  int planted_bug;             // tests only (aga_testing.h): 1 leaves the old topic in WT (a count not decremented)
};

// How AGA's panel kernel is launched: threads per block and the words a panel may hold.
struct aga_launch {
  int threads;
  int lane_topics;      // the draw: R topics a lane in registers (1, 2, 4 or 8), or 0: the paper's two passes
  int panel_words;      // rows of K counts that fit in the block's shared memory
  int nt_in_shared;     // 1: the block's change of NT is kept in shared memory (K counts after the rows);
                        // 0 (when that does not fit beside one row): global atomics a token
  size_t shared_bytes;  // (panel_words + nt_in_shared) x K x 4
};

// The launch for K topics on device `gpu` (threads 0: 256; lane_topics as
// aga_testing.h's lane_topics, which the caller has checked: 0 by K, -1, or 1, 2, 4 or 8
// covering K). Returns cudaErrorInvalidValue when not even one word's row of K counts fits in a
// block's shared memory.
cudaError_t aga_choose_launch(int gpu, int32_t num_topics, int threads, int lane_topics, aga_launch *out);

// Mini-batch `batch` (panels [first_panel, end_panel), documents [first_doc, end_doc)): its DT and DNT,
// then its panels' draws.
cudaError_t aga_batch_launch(const aga_params &p, const aga_launch &launch, int32_t first_doc, int32_t end_doc,
                             int32_t first_panel, int32_t end_panel, cudaStream_t stream);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_AGA_KERNELS_CUH
