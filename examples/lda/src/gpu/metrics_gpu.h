/*
 * sk-lda's metrics (metrics.h) computed on the GPU, from the counts a GPU sampler holds there
 * (gpu_counts.h), so that an evaluation copies nothing but the result back:
 *
 *   joint log-likelihood per token   the formula of sk_lda_joint_ll_per_token(), every term computed
 *                                    on the device in double (CUDA's lgamma), summed in a fixed order;
 *   held-out log-likelihood per token the rule of sk_lda_heldout_ll() (document completion: fold-in of
 *                                    each test document's observed half with phi fixed, then the score
 *                                    of its held-out half) with the same random numbers: up to K = 1,024
 *                                    the uncollapsed sweeps first, every token of every document at
 *                                    once (metrics_gpu_uncollapsed.cu), then the collapsed sweeps below.
 *
 * With per-topic priors (gpu_counts.h's alpha_k set) both follow metrics.c's per-topic formulas: the pair
 * term of the joint log-likelihood takes its topic's alpha_k and lgamma(alpha_k) (the host's, uploaded with
 * the priors), the document term sum_k alpha_k, the fold-in and theta alpha_k.
 *
 * Agreement with the CPU. Every term and every product is computed with the operations and roundings
 * of metrics.c (the _rn intrinsics: no fused multiply-add); only the order of the sums differs (the CPU
 * sums sequentially, the GPU in trees), and CUDA's lgamma and log may differ from the C library's by a
 * few units in the last place. So the joint log-likelihood agrees with the CPU's to a relative 1e-12
 * (tests/lda/test_metrics_gpu.c; 3e-14 seen). The fold-in and the score follow metrics.h's sparse rule,
 * one warp a document (the longest documents: a block whose warps take the chain in windows and keep
 * only the draws that one warp would make, from the same counts: metrics_gpu_fold_windows.cuh): the
 * s table (the running sums of a_k beta c_k) is added on the device by one thread in topic order, and
 * each word's q table by one thread in topic order, so they are the CPU's bit for bit, and so is every y term; the sums of a draw's y terms are the kernel's own fixed
 * order where the CPU adds sequentially: for a document of at most 256 nonzero topics, when a warp's
 * scratch is at most 48 KiB (K plus the longest observed half up to about 12,000), samplekit's
 * one-block blocked draw on doubles (R = 1, 2, 4 or 8 consecutive entries a lane by the count, added in
 * order, then one warp scan: sk_warp_blocked_hold_by_f64()); otherwise tiles of 128 entries (4
 * consecutive entries a lane added in order, then a warp scan, the tiles' totals in order:
 * metrics_gpu_fold_draw.cuh). Both depend on the problem alone, not on the GPU. So a draw can
 * differ from the CPU's only when u W falls within a few units in the last place of a boundary between
 * two topics (never seen in the tests); otherwise the topics are the CPU's, and the held-out value
 * agrees to a relative 1e-10 (one draw that differed would move it by about 1e-6).
 *
 * Determinism: the joint log-likelihood's launch shape depends on the problem size alone, its sums are
 * trees of a fixed shape, and there are no floating-point atomics; the held-out documents are handed
 * to warps in any order (an integer atomic counter), but each document's fold-in and score are
 * computed by one warp alone (or one block, whose draws are that warp's) and the scores are summed in
 * document order on the host. So the same
 * counts give the same bits on every call, whatever the GPU's size.
 *
 * Cost. Joint LL: one pass over B (V K int32; lgamma per nonzero), A's pairs, the document lengths and
 * n_k, then a reduction of one double per 4096 terms: about V K / (memory bandwidth) plus the lgammas.
 * When the sampler lists B's nonzeros (gpu_counts.h's b_list_*: GPU ESCA's word segments), the pass
 * reads the lists instead (at most min(V K, T) counts; a block per 32 words), the same terms in another
 * fixed order.
 * Held-out: per call, the tables: 1 / (n_k + V beta), the s table (K dependent additions on one
 * thread) and B's nonzeros as CSR (two reads of B, V K int32, or one of the sampler's lists when it gives
 * them, and one wait for their number) with each word's q running sums (one thread a word). Then one
 * warp per document (a persistent grid; the longest documents first):
 * a draw costs the document's nonzero topics (the y terms, one read of the word's row of B each, held
 * in registers and added by one warp scan up to 256 of them, else in tiles of 128, one warp scan a tile,
 * then one tile walked) and a binary search of the s or q table
 * when it lands there, a held-out token the same y terms. Per warp 4 (K + min(K, longest observed half))
 * bytes of scratch (the counts and the sorted nonzero topics; plus 8 bytes a tile past a draw's 32nd,
 * when that bound exceeds 4,096), in shared memory while they fit (48 KiB), in global memory above (at
 * most an eighth of the free device memory, between 256 MiB and 2 GiB; fewer warps then). Device memory
 * for the tables: 24 K + 8 V + 20 nnz(B) bytes.
 * A test document is one chain of dependent draws, so the longest one bounds the call's time from
 * below (20news's longest observed half with seed 1 and 10% held out: 2,442 tokens, 24,420 draws in 10
 * sweeps). The documents whose observed halves are at least a quarter of the longest (and 64 tokens)
 * therefore each get a block of up to 16 warps (on a second stream, beside the one-warp grid): a pass
 * draws 16 consecutive positions of the chain from the counts that guesses for the earlier ones give
 * and keeps the draws up to the first that differs from its guess (about 8 a pass; on an H200 the
 * metrics of a 100-sweep run on 20news at K = 1,024, mostly this call, went from 76 to 33 ms,
 * bench/RESULTS.md). Per warp of such a block the scratch of a one-warp warp and, up to K = 10,240, a
 * bitmap of the nonzero topics (K / 8 bytes); per block its document's tokens as a pass reads them (24
 * bytes a token of the longest observed half).
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h); a CUDA
 * failure becomes a message naming the step and CUDA's error, never an abort. Threading: one caller at
 * a time per context; the calls make the context's device current on the calling thread and work on
 * the legacy default stream, after whatever the caller queued there (a sampler's sweep), and wait for
 * the result.
 */
#ifndef SK_LDA_METRICS_GPU_H
#define SK_LDA_METRICS_GPU_H

#include <stdint.h>

#include "corpus.h"
#include "gpu/gpu_counts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device scratch of the metrics and the test halves uploaded once: created once per run. */
typedef struct sk_lda_gpu_metrics sk_lda_gpu_metrics;

/* A context on CUDA device `gpu`; nothing is allocated on the device until a metric needs it. Fails on
   a NULL out, host memory or a CUDA error (no such device); *out is then NULL. */
int sk_lda_gpu_metrics_create(int gpu, sk_lda_gpu_metrics **out, sk_ex_error *err);

/*
 * Uploads the two halves of the test documents (observed->doc d and heldout->doc d are one document,
 * as sk_lda_split_corpus() makes them) for sk_lda_gpu_metrics_heldout_ll(), replacing any halves
 * uploaded before; the corpora are read, not kept. Fails (err filled; the context then holds no halves)
 * on NULL, different document counts, inconsistent offsets, a word id outside [0, num_words), or host or
 * device memory. Work O(D log D + T) on the host, one copy.
 */
int sk_lda_gpu_metrics_set_test(sk_lda_gpu_metrics *g, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                                int32_t num_words, sk_ex_error *err);

/*
 * sk_lda_joint_ll_per_token() of the counts `c` (on the context's device): *ll_per_token gets log
 * p(w, z) / T, NAN when T = 0. Reads B, n_k, the document offsets and A; the first call allocates the
 * partial sums (8 bytes per 4096 terms). Fails on NULL, a device other than the context's, or a CUDA
 * error (*ll_per_token untouched).
 */
int sk_lda_gpu_metrics_joint_ll(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, double *ll_per_token,
                                sk_ex_error *err);

/*
 * sk_lda_heldout_ll() of the counts `c` on the halves of the last sk_lda_gpu_metrics_set_test(), with
 * `fold_in_iters` fold-in sweeps and the seed c->seed: *ll_per_token gets the mean held-out log-likelihood,
 * NAN when the held-out halves have no token. Reads B and n_k; the first call (and one with a larger K
 * or more nonzeros in B) allocates the fold-in's tables and, when a warp's scratch is over 48 KiB, the
 * warps' scratch (set_test allocated the rest). Fails on NULL, no halves set, halves of another
 * vocabulary size than c->num_words, fold_in_iters < 0, a device other than the context's, or a CUDA
 * error (*ll_per_token untouched).
 */
int sk_lda_gpu_metrics_heldout_ll(sk_lda_gpu_metrics *g, const sk_lda_gpu_counts *c, int fold_in_iters,
                                  double *ll_per_token, sk_ex_error *err);

/*
 * For tests and benchmarks: the held-out calls after this one fold in the longest documents with windows
 * of clusters of `ctas` blocks (1, 2 or 4; 0, the default, lets each call choose), or the widest narrower
 * one that the documents and the GPU allow. The held-out LL is the same bits at every width. Fails on
 * NULL or another value.
 */
int sk_lda_gpu_metrics_set_window_ctas(sk_lda_gpu_metrics *g, int ctas, sk_ex_error *err);

/* The cluster width (blocks) the last held-out call's windows used: 1, 2 or 4, or 0 when no document
   took windows or no call was made (0 for NULL). */
int sk_lda_gpu_metrics_window_ctas_used(const sk_lda_gpu_metrics *g);

/* Device bytes the context holds now and the most it has held (0 for NULL). */
int64_t sk_lda_gpu_metrics_device_bytes(const sk_lda_gpu_metrics *g);
int64_t sk_lda_gpu_metrics_device_bytes_peak(const sk_lda_gpu_metrics *g);

/* Frees the context and its device memory; NULL is fine. Errors of cudaFree are ignored. */
void sk_lda_gpu_metrics_destroy(sk_lda_gpu_metrics *g);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_METRICS_GPU_H */
