// The held-out fold-in's uncollapsed sweeps on the GPU (metrics_gpu_uncollapsed.cu), called by
// metrics_gpu_heldout.cu before its collapsed sweeps.
#ifndef SK_LDA_METRICS_GPU_UNCOLLAPSED_CUH
#define SK_LDA_METRICS_GPU_UNCOLLAPSED_CUH

#include "corpus.h"
#include "gpu/metrics_gpu_fold_draw.cuh"
#include "gpu/metrics_gpu_internal.cuh"

namespace sk_lda_gpu {
namespace fold {

// Queues on the legacy default stream every observed token's start and `sweeps` uncollapsed sweeps
// (metrics.h, sk_lda_heldout_ll(); sweeps 0 .. sweeps - 1), leaving the topics in p.z for the collapsed
// sweeps (p.z_given). p: the call's parameters and tables (metrics_fold_tables() done); held: the draws
// take the held block (fold_held()). Allocates its buffers in g on first use (and when a call needs
// more). 0, or 1 with err filled on a CUDA error.
int fold_uncollapsed(sk_lda_gpu_metrics *g, const fold_params &p, int sweeps, bool held, sk_ex_error *err);

}  // namespace fold
}  // namespace sk_lda_gpu

#endif  // SK_LDA_METRICS_GPU_UNCOLLAPSED_CUH
