/*
 * ESCA on the GPU (SaberLDA, Chen et al., ASPLOS 2017): every token drawn from the previous sweep's
 * counts, as the CPU ESCA (esca.h) draws it, in one of two ways.
 *
 * The fast sweep (the default; esca_gpu_fast.cuh) visits the tokens in PDOW order (pdow_plan.h): a
 * persistent block takes the next item (one word's tokens in a run of documents, largest items first),
 * builds the word's B_hat row and W-ary tree in shared memory (global scratch when K is too large),
 * and its warps draw the item's groups, a group being the tokens of the word in one document: the
 * sparse part is the warp's running sums over the document's row of A, the dense part the tree. It
 * computes in float where the CPU computes in double, so a token's topic can differ from the CPU's
 * only when its uniform falls within float rounding of a boundary between two topics. The topics after
 * every sweep are a function of (corpus, K, alpha, beta, seed, sweep) alone: every draw reads the
 * previous counts and its own uniform sk_rng_uniform_f64(seed, sweep, t), and the counts are integers
 * summed with integer atomics, so neither the launch shape nor the scheduling changes a bit.
 *
 * The exact sweep (options.exact; esca_gpu_exact.cuh) is the CPU ESCA's chain bit for bit: a thread
 * per token in double without fused multiply-adds, word tables of V x K doubles. It is slow and exists
 * as the oracle the tests hold the device counts against.
 *
 * AGA-LDA (options.aga; aga_gpu.cuh) is the other sampler this object runs, on the same device state:
 * documents in mini-batches processed in sequence, word-topic counts of a column panel in shared
 * memory, updated as the topics are drawn (shared and global atomics): closer to collapsed Gibbs, not
 * deterministic. It adds its plan (12 T bytes and the panels) and the mini-batch's DT and DNT
 * (2 x documents of a mini-batch x K x 4 bytes).
 *
 * Device state, made from the model at create and kept there between sweeps: z (T), the document
 * offsets (D + 1), A as CSR (per document its distinct topics, increasing, and their counts: at most
 * min(n_d, K) pairs, rebuilt every sweep by samplekit's segmented count), B (V x K int32) and n_k (K,
 * 64-bit), the segmented count's workspace; the fast sweep adds B's next counts (V x K int32), the plan
 * (4 T + 8 groups + 12 items bytes), 1 / (n_k + V beta) in float and, when K is too large for shared
 * memory, one row and tree per persistent block; the exact sweep adds the tokens (T), inv (K doubles)
 * and the word tables (V x K doubles). sk_lda_esca_gpu_state_bytes() bounds it.
 *
 * Errors: functions returning int give 0 on success and non-zero with err filled (see corpus.h); a
 * CUDA failure becomes a message naming the step and CUDA's error, never an abort. After a failed
 * sweep the device state is unspecified: destroy the sampler. Threading: one caller at a time per
 * sampler; the calls make device `gpu` current on the calling thread.
 */
#ifndef SK_LDA_ESCA_GPU_H
#define SK_LDA_ESCA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "gpu/gpu_counts.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_lda_esca_gpu sk_lda_esca_gpu;

/* How a sampler sweeps; zero-initialised means the defaults (the fast sweep, launch chosen by occupancy). */
typedef struct sk_lda_esca_gpu_options {
  int exact;             /* non-zero: the exact sweep (bit for bit the CPU ESCA's chain; slow) */
  int threads;           /* fast sweep: threads per block, a multiple of 32 from 32 to 1024 (0: 256) */
  int blocks_per_sm;     /* fast sweep: persistent blocks per multiprocessor (0: as many as fit) */
  int32_t item_tokens;   /* fast sweep: most tokens of an item (0: T / (4 x persistent blocks), from 64 to 4096) */
  int64_t chunk_tokens;  /* fast sweep: most tokens of a chunk of the PDOW order (0: one chunk) */
  int aga;               /* non-zero: AGA-LDA's sweep instead of ESCA's (exact is then ignored) */
  int32_t minibatch_docs; /* AGA: documents per mini-batch (0: the default, SK_LDA_AGA_BATCH_TOKENS below) */
  int32_t aga_panel_words; /* AGA: most words per column panel (0: as many as shared memory holds) */
  int32_t aga_panels;    /* AGA: panels (blocks) a mini-batch is cut into, by tokens (0: 4 per multiprocessor,
                            measured against 8 and 16) */
  int aga_whole_words;   /* AGA: non-zero keeps every word's tokens in one panel (the paper's panels); 0 cuts
                            a frequent word's tokens over several panels (aga_plan.h; measured faster) */
  int aga_planted_bug;   /* tests only: 1 leaves a token's old topic in the word-topic counts */
  int aga_lane_topics;   /* tests only: AGA's draw; 0 chooses by K; 1, 2, 4 or 8 (>= K / 32) forces the
                            blocked draw with that many topics a lane; -1 forces the paper's two passes */
  size_t device_memory;  /* the most device bytes the sampler may hold (0: the GPU's free memory less
                            SK_LDA_GPU_MEMORY_MARGIN); always capped by the free memory */
  int workers;           /* streamed sweep: CSR pipeline workers, 1 to 16 (0: the measured default) */
  int host_threads;      /* streamed sweep: OpenMP threads for its host work (0: all) */
  int force_stream;      /* tests: stream the fast sweep even when the corpus fits (one chunk: resident) */
  /* A rank of a multi-GPU run (ranks.h; the fast sweep only): the model is the rank's documents, and */
  uint64_t token_base;   /* its token t draws the uniform of corpus position token_base + t */
  sk_lda_gpu_b_sum b_sum; /* B's next counts summed over the ranks between the draws and the swap */
} sk_lda_esca_gpu_options;

/* Device bytes left free when no budget is given: for CUDA's own allocations and the metrics' scratch. */
#define SK_LDA_GPU_MEMORY_MARGIN ((size_t)1 << 30)

/* What create returns when the budget (device_memory, or the free memory) cannot hold the sampler: bad
   input (sk-lda exits 2), as opposed to 1 for every other failure. */
#define SK_LDA_ESCA_GPU_BUDGET_ERROR 2

/* AGA's default mini-batches: the documents cut into T / SK_LDA_AGA_BATCH_TOKENS mini-batches of equal
   document counts, at least SK_LDA_AGA_MIN_BATCHES and at most SK_LDA_AGA_MAX_BATCHES. Measured on an
   H200 (bench/RESULTS.md, issue 14) at K = 100: of 1, 2, 5, 10 and 20 mini-batches a sweep, 5 reached the
   CPU CGS's quality first on nips12 and 20news (10 and 2 within 5%), 2 on kos (420,000 tokens, where
   smaller mini-batches leave the GPU idle), and 1 was slowest to that quality on all three. The AGA-LDA
   paper's tuned mini-batches were a tenth of the documents. */
#define SK_LDA_AGA_BATCH_TOKENS 200000
#define SK_LDA_AGA_MIN_BATCHES 2
#define SK_LDA_AGA_MAX_BATCHES 5

/*
 * An upper bound of the device bytes a default (fast) GPU ESCA sampler needs for model m's shape, not
 * counting the segmented count's workspace and the global rows (both depend on the device; create
 * counts them): see above. Never overflows for a valid model; 0 for NULL.
 */
size_t sk_lda_esca_gpu_state_bytes(const sk_lda_model *m);

/*
 * STREAMING (esca_stream.cuh). When the fast sweep's state does not fit the budget (device_memory, or
 * the free memory less SK_LDA_GPU_MEMORY_MARGIN), create makes a streamed sampler instead: only the
 * model (B twice, n_k) stays on the device, the documents are cut into chunks and every sweep streams
 * them through samplekit's CSR pipeline with `workers` CUDA streams. Its topics are those of the
 * resident sweep, bit for bit. Its counts are not on the device (sk_lda_esca_gpu_counts fails; compute
 * metrics after to_host). The exact sweep and AGA need the corpus resident: they fail with the bytes
 * needed and the budget when it does not fit.
 */

/*
 * Copies model m (initialised; z and the counts consistent) to CUDA device `gpu` and returns the
 * sampler in *out. The counts on the device are rebuilt from z there (they equal the model's by the
 * precondition). Before allocating, the bytes needed are compared with the device's free memory: when
 * they do not fit, it fails with a message naming both. Also fails when a pointer is NULL, the corpus
 * has more than INT32_MAX tokens (the segmented count's limit), or a CUDA call fails; *out is then
 * NULL and nothing stays allocated. m is read, not kept: to_host takes the model again.
 */
int sk_lda_esca_gpu_create(const sk_lda_model *m, int gpu, sk_lda_esca_gpu **out, sk_lda_error *err);

/* sk_lda_esca_gpu_create() with options (NULL: the defaults). Also fails on options out of range.
   Returns SK_LDA_ESCA_GPU_BUDGET_ERROR when the budget cannot hold the model (streamed: B twice and
   n_k) or one document's chunk, with the bytes needed and available in err; 1 on other failures. */
int sk_lda_esca_gpu_create_with(const sk_lda_model *m, int gpu, const sk_lda_esca_gpu_options *options,
                                sk_lda_esca_gpu **out, sk_lda_error *err);

/*
 * One ESCA sweep `iteration` (< 2^63) on the device: one draw per token from the previous sweep's
 * counts (as sk_lda_esca_sweep() in esca.h: bit for bit with options.exact, else up to float rounding
 * at boundaries), then z, A, B and n_k rebuilt from the new topics. Waits for the device before it
 * returns, so a fault is reported by the sweep that caused it. Work O(T nnz_d / 32 + items K + V K)
 * warp steps for the fast sweep.
 */
int sk_lda_esca_gpu_sweep(sk_lda_esca_gpu *g, uint64_t iteration, sk_lda_error *err);

/*
 * Copies z, A, B and n_k into model m, which must have the shape the sampler was created from (the
 * same model, or one with the same corpus and K): A in the model's layout (document d's pairs from
 * dk_start[d], dk_nnz[d] of them). Fails on NULL, a shape mismatch, host memory or a CUDA failure
 * (the model's counts may then be partly written).
 */
int sk_lda_esca_gpu_to_host(sk_lda_esca_gpu *g, sk_lda_model *m, sk_lda_error *err);

/*
 * Where a GPU sampler's time went, summed over its sweeps since create (device time, measured with
 * CUDA events around each part of the sweep), and the device memory it holds.
 */
typedef struct sk_lda_esca_gpu_stats {
  int64_t sweeps;         /* sweeps done since create */
  double sample_seconds;  /* the draws (with whatever tables the draw kernel builds itself) */
  double tables_seconds;  /* B_hat and the word tables or trees built before the draws */
  double a_seconds;       /* A rebuilt from z (the segmented count) */
  double b_seconds;       /* B and n_k rebuilt from z */
  int64_t device_bytes;   /* device memory the sampler allocated (all of it at create: also its peak) */
  /* A streamed sampler's (0 for a resident one): */
  int64_t chunks;         /* chunks of documents */
  int workers;            /* pipeline workers (CUDA streams) */
  double wall_seconds;    /* the sweeps' wall time */
  double h2d_bytes, d2h_bytes; /* bytes copied over PCIe by the sweeps */
  double prepare_seconds; /* create's host work (chunk plan, PDOW plans, pinning) */
  int64_t host_pinned_bytes; /* pinned host memory held */
} sk_lda_esca_gpu_stats;

/*
 * The number of chunks (*chunks) a streamed sampler with `options` (NULL: defaults; its device_memory,
 * capped by the free memory, is the budget) would cut model m's corpus into on device `gpu`, without
 * allocating: tests and benchmarks use it to find the budget that gives C chunks. Returns
 * SK_LDA_ESCA_GPU_BUDGET_ERROR when the budget cannot hold the model or a document, 1 on other failures.
 */
int sk_lda_esca_gpu_stream_chunks(const sk_lda_model *m, int gpu, const sk_lda_esca_gpu_options *options,
                                  int64_t *chunks, sk_lda_error *err);

/* 1 when the sampler streams its corpus (see STREAMING above), else 0 (also for NULL). */
int sk_lda_esca_gpu_streaming(const sk_lda_esca_gpu *g);

/* Fills *out (zeroed first) with the sampler's statistics; NULL arguments are ignored. */
void sk_lda_esca_gpu_get_stats(const sk_lda_esca_gpu *g, sk_lda_esca_gpu_stats *out);

/*
 * The sampler's counts on the device (gpu_counts.h), current after every sweep and after create; the
 * pointers stay valid until the next sweep or destroy. Returns 0, or non-zero with err filled when a
 * pointer is NULL.
 */
int sk_lda_esca_gpu_counts(const sk_lda_esca_gpu *g, sk_lda_gpu_counts *out, sk_lda_error *err);

/* A one-line description for logs: "ESCA (GPU 0: NVIDIA H100 80GB HBM3)"; never NULL. */
const char *sk_lda_esca_gpu_description(const sk_lda_esca_gpu *g);

/* Frees the device and host memory of the sampler; NULL is fine. Errors of cudaFree are ignored. */
void sk_lda_esca_gpu_destroy(sk_lda_esca_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_ESCA_GPU_H */
