/*
 * GPU ESCA with the corpus resident on the device: SaberLDA's sweep (Chen et al., ASPLOS 2017), the
 * sampler `--sampler esca` runs on a GPU when its state fits the budget (the table's "esca").
 *
 * The sweep (esca_draw.cuh) first builds the word segments (esca_segments.cuh: each word's nonzero topics
 * and a W-ary tree over the spans they cut, one prior tree), then visits the tokens in PDOW order
 * (pdow_plan.h): a persistent block takes the next item (one word's tokens in a run of documents, largest
 * items first), writes the word's K_v entries of the B_hat row it keeps in shared memory (global scratch
 * when K is too large), and its warps draw the item's groups, a group being the tokens of the word in one
 * document: the sparse part is the warp's running sums over the document's row of A, the dense part the
 * word's segments. It computes in float where the CPU ESCA
 * (esca.h) computes in double, so a token's topic can differ from the CPU's only when its uniform falls
 * within float rounding of a boundary between two topics. The topics after every sweep are a function
 * of (corpus, K, alpha, beta, seed, sweep) alone: every draw reads the previous counts and its own
 * uniform sk_rng_uniform_f64(seed, sweep, token_base + t), and the counts are integers summed with
 * integer atomics, so neither the launch shape nor the scheduling changes a bit. After the draws comes
 * the epilogue every counting GPU sampler shares (gpu_state.cuh): B's next counts summed over the ranks
 * (when a rank link is given), then one pass over them that sums n_k and lists each word's nonzero
 * (topic, count) pairs for the next sweep's segments (so the sweep start builds the trees from the lists
 * without reading V x K counts), the swap; on one GPU where V K >= 8 T (sk_lda_esca_options.next_counts)
 * the draws count into B itself and mark what they count, and the epilogue lists from the marks; then A
 * rebuilt from z by samplekit's segmented count.
 *
 * Device bytes (all allocated at create; sk_lda_esca_resident_fits() gives them exactly): the state of
 * gpu_state.cuh (z 4 T, document and A offsets 8 (D + 1), A's pairs 8 x sum_d min(n_d, K), B and its
 * next counts 8 V K (or B and its marks 4.125 V K), n_k 8 K, 1 / (n_k + V beta) 4 K, the segmented count's
 * workspace, the word segments: 20 V + 8 R bytes (topics and counts) for R = sum over words of min(K, c_v)
 * (c_v the word's tokens; at most min(V K, T)), n_k's partial sums 4 K min(V, 512), their trees at most
 * about 4.2 R + 520 V bytes, the prior tree and its weights about 8.2 K), the PDOW
 * plan (4 T + 8 groups + 4 + 12 items), the scheduler's counter and, when K is too large for shared
 * memory, one row per persistent block.
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (corpus.h); a CUDA
 * failure becomes a message naming the step and CUDA's error, never an abort. After a failed sweep the
 * device state is unspecified: destroy the sampler. Threading: one caller at a time per sampler; the
 * calls make the device current on the calling thread.
 */
#ifndef SK_LDA_ESCA_RESIDENT_H
#define SK_LDA_ESCA_RESIDENT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "sampler_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Whether the resident sampler of model m (initialised; at most 2^31 - 1 tokens) fits `budget` device
 * bytes on the resolved GPU device with knobs o (NULL: defaults) and rank link `rank` (NULL: one GPU):
 * needed_bytes is exactly what create allocates. Work: the PDOW plan's sizes, counted by building the plan on the device and freeing it
 * where create would build it there (below), else on the host without building it (pdow_plan.h,
 * O(T + V)); the segmented count's workspace size and the launch (device queries). Fails on NULL,
 * knobs out of range or a CUDA query's error.
 */
int sk_lda_esca_resident_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_esca_options *o,
                              const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err);

/*
 * Creates the resident sampler of model m (initialised; z and the counts consistent) on the resolved GPU
 * device, knobs o (NULL: defaults), rank link `rank` (NULL: one GPU): the PDOW plan is built, the state
 * uploaded (B and n_k copied, A rebuilt from z on the device). The plan is built on the device
 * (gpu/pdow_plan_gpu.h: the same arrays, about 30 times faster than the host's one thread) when the
 * budget holds the build's scratch (about 52 bytes a token, freed before create returns) beside the
 * arrays sized for T groups and items; else on the host
 * (pdow_plan.h); the environment variable SK_LDA_HOST_PLAN (any value) forces the host, for
 * measurements against it. Returns SK_LDA_SAMPLER_BUDGET_ERROR with
 * the bytes needed and the budget in err when the device's budget cannot hold it (checked before any
 * allocation), 1 on other failures (NULL, more than 2^31 - 1 tokens, knobs out of range, CUDA, host
 * memory); *out is then NULL and nothing stays allocated. m is read at create and written by to_host.
 */
int sk_lda_esca_resident_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_esca_options *o,
                                const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err);

/* The device bytes of the resident sampler's state for model m's shape without the segmented count's
   workspace, the plan and the blocks' rows (those depend on the device and the knobs): a host-only lower
   bound of fits()' needed_bytes. 0 for NULL. */
size_t sk_lda_esca_resident_state_bytes(const sk_lda_model *m);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_RESIDENT_H */
