// The streamed GPU ESCA sweep (SaberLDA section 3.2): for corpora whose state does not fit the device
// budget. Only the model stays on the device (B, the next sweep's B, n_k, 1 / (n_k + V beta), the
// scheduler's counters and, for large K, the blocks' rows); the documents are cut into chunks by
// samplekit's chunk plan (csr_chunker.h), and every sweep streams the chunks through samplekit's CSR
// pipeline (csr_pipeline.h) with W workers (CUDA streams), so that one chunk's copies overlap other
// chunks' draws. Per chunk, on its worker's stream:
//   in    the chunk's z (4 bytes a token) and its packed PDOW plan (stream_plan.h: 4 bytes a token,
//         8 a group, 12 an item); the rebased document offsets (4 a document). The word ids are not
//         copied: the plan's items carry the words.
//   A     the chunk's document-topic rows rebuilt from its z by samplekit's segmented count (A is a
//         function of z, so it never crosses PCIe);
//   draw  the fast sweep's kernel (esca_gpu_fast.cuh) on the chunk, reading the previous sweep's B and
//         n_k and adding the new topics into the next sweep's B with integer atomics;
//   out   the chunk's new z.
// After the last chunk, n_k is summed from the next B and the two B swap. Every draw reads the previous
// counts and the uniform of its corpus position, so the topics are those of the resident sweep, bit for
// bit, for every budget and number of workers.
//
// The host keeps z in pinned memory (4 bytes a token) and the packed plans (pinned by registration);
// to_host copies z into the model and rebuilds A, B and n_k there from it. When the plan has one chunk
// the pipeline is resident: z stays on the device between sweeps and nothing crosses PCIe.
#ifndef SK_LDA_ESCA_STREAM_CUH
#define SK_LDA_ESCA_STREAM_CUH

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "gpu/esca_gpu.h"
#include "model.h"

namespace sk_lda_gpu {

// Workers when the caller gives none (bench/RESULTS.md, "streamed ESCA", measured 1, 2 and 4).
constexpr int kStreamDefaultWorkers = 2;

struct stream_config {
  int gpu;               // CUDA device
  int workers;           // W, 1 to 16 (0: kStreamDefaultWorkers)
  size_t budget_bytes;   // the most device bytes the sampler may hold
  const char *budget_source;  // where it comes from, for messages ("--device-memory"; NULL: the free memory)
  int threads, blocks_per_sm;  // the draw kernel's launch (0: defaults, as the resident sweep)
  int32_t item_tokens;   // most tokens of an item (0: the resident sweep's rule on a chunk)
  int host_threads;      // OpenMP threads for the host plan (0: all)
  uint64_t token_base;   // a rank's first corpus position (esca_gpu.h's options; 0 on one GPU)
  sk_lda_gpu_b_sum b_sum; // a rank's sum of B over the ranks after the chunks' draws (zeroed: none)
};


struct esca_stream;

// Device bytes of the model part (B twice, n_k, inv, W counters, W blocks' rows for large K).
size_t stream_model_bytes(int32_t num_words, int32_t num_topics, int workers, size_t row_scratch_floats);

// Makes the streamed sampler of model m (initialised, z consistent with the counts). Fails with a
// message naming the bytes needed and available when the budget cannot hold the model, or a
// document alone does not fit one worker's share (*budget_error is then set to 1, else 0: bad input,
// not a runtime failure); or on CUDA and host-memory failures.
int stream_create(const sk_lda_model *m, const stream_config &cfg, esca_stream **out, int *budget_error,
                  sk_lda_error *err);

// The chunks stream_create would cut m into (*chunks), without allocating; fails as it would on the budget.
int stream_count_chunks(const sk_lda_model *m, const stream_config &cfg, int64_t *chunks, int *budget_error,
                        sk_lda_error *err);

// One sweep `iteration`; waits for the device.
int stream_sweep(esca_stream *s, uint64_t iteration, sk_lda_error *err);

// z into model m (of the sampler's shape), then A, B and n_k rebuilt from it on the host (threads: OpenMP).
int stream_to_host(esca_stream *s, sk_lda_model *m, int threads, sk_lda_error *err);

// Where its time and bytes went, summed over its sweeps (esca_gpu.h's statistics: the draws and the A
// rebuilds summed over chunks, which overlap each other and the copies; wall_seconds is the sweeps').
void stream_get_stats(const esca_stream *s, sk_lda_esca_gpu_stats *out);

void stream_destroy(esca_stream *s);

}  // namespace sk_lda_gpu

#endif  // SK_LDA_ESCA_STREAM_CUH
