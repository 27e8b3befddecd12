/**
 * \file sampler.h
 * \brief The seam between an sk-lda run (run.h: corpus, split, init or resume, sweeps, metrics,
 * checkpoints, outputs) and the samplers that draw the topics.
 *
 * Every sampler is one algorithm on one device, listed in one table (sampler_table.h): CPU
 * collapsed Gibbs (cgs.h), CPU ESCA (esca.h) and, built only when nvcc is found, the GPU samplers: ESCA
 * resident (gpu/esca_resident.h), ESCA streamed (gpu/esca_streamed.h), ESCA's exact sweep
 * (gpu/esca_exact.h, the oracle: the CPU ESCA's topics bit for bit) and AGA-LDA (gpu/aga_sampler.h).
 * sk_lda_sampler_choose() (sampler_table.h) picks one from the table by asking each its fits() before
 * anything is allocated; the run then drives it through this interface:
 * \verbatim
 *   create  on a model (the host state: z and the counts A, B, n_k, all consistent) and a device; the
 *           sampler takes what it needs from the model (a GPU sampler copies it to the device) and owns
 *           its scratch;
 *   sweep   one sweep `iteration` (the RNG stream of model.h): every token gets a new topic;
 *   to_host brings z, A, B and n_k into the model, consistent with each other, so that the run can
 *           compute metrics, write outputs or a checkpoint (a no-op for the CPU samplers, whose state
 *           is the model);
 *   joint_ll, heldout_ll (optional) the metrics of metrics.h computed where the counts are (the
 *           resident GPU samplers: on the device, gpu/metrics_gpu.h), so that an evaluation needs no
 *           to_host; absent, the seam brings the model to the host and computes them there;
 *   stats   (optional) where the sweeps' time went and the device memory held;
 *   prior_stats (optional) the integer histograms of the current counts that the prior optimiser reads
 *           (hyper.h), counted where the counts are (the resident GPU samplers: on the device); absent,
 *           the seam brings the model to the host and counts them there;
 *   set_priors (optional) takes the model's priors (alpha_k, beta) after they changed (a GPU sampler
 *           copies them to its device; absent: the sampler reads the model at every sweep);
 *   destroy releases the sampler's scratch (never the model).
 * \endverbatim
 * sk_lda_sampler_optimize_priors() is the one entry point of --optimize-every: histograms, Minka's fixed
 * points, the new priors into the model and the sampler. A sampler that cannot take per-topic priors says
 * so in its ops' no_priors (sk_lda_sampler_priors_supported()).
 *
 * The ranks of a multi-GPU run (ranks.h) wrap a GPU ESCA sampler as a decorator; the wrapped sampler
 * gets the rank's link (sk_lda_rank_link) at create and nothing else about the ranks.
 *
 * Between create and destroy the model belongs to the sampler: the caller reads it only after to_host
 * and never writes it. Errors: functions returning int give 0 on success and non-zero on failure with
 * err filled (see corpus.h). Threading: one caller at a time per sampler.
 */
#ifndef SK_LDA_SAMPLER_H
#define SK_LDA_SAMPLER_H

#include <stdint.h>

#include "corpus.h"
#include "gpu/gpu_counts.h"
#include "hyper.h"
#include "model.h"
#include "sampler_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Where a sampler runs.
 *
 * AUTO picks the GPU when the sampler has a GPU version (ESCA, AGA-LDA), this build has the GPU part and a
 * GPU is present.
 */
typedef enum sk_lda_device_kind {
  SK_LDA_DEVICE_AUTO = 0, /**< the GPU when the sampler has a GPU version, the build has the GPU part and a
                               GPU is present */
  SK_LDA_DEVICE_CPU = 1,  /**< the CPU */
  SK_LDA_DEVICE_GPU = 2   /**< a GPU */
} sk_lda_device_kind;

/**
 * \brief The device a sampler is created on: what a device is, nothing about any sampler (their knobs are
 * sampler_options.h's).
 */
typedef struct sk_lda_device {
  sk_lda_device_kind kind; /**< CPU, GPU or AUTO */
  int gpu;                /**< CUDA device ordinal for the GPU samplers */
  int threads;            /**< host threads (OpenMP) for the CPU samplers and a GPU sampler's host work (<= 0:
                               all); results never depend on it */
  uint64_t device_memory; /**< GPU samplers: the most device bytes to hold (0: the free memory less
                               SK_LDA_GPU_MEMORY_MARGIN); always capped by the free memory */
} sk_lda_device;

/**
 * \brief How a sampler that is one rank of a multi-GPU run (ranks.h) is tied to the others, given at
 * create.
 *
 * Its model holds the rank's documents, whose first token is corpus position token_base (every draw
 * takes the uniform of its corpus position), and `sum` adds B's next counts over the ranks in the
 * sweep's epilogue, between the draws and n_k (gpu_counts.h). NULL where a sampler takes a link: one
 * device, token_base 0, no sum.
 */
typedef struct sk_lda_rank_link {
  uint64_t token_base;  /**< the corpus position of the first token of the rank's documents */
  sk_lda_count_sum sum; /**< adds B's next counts over the ranks in the sweep's epilogue */
} sk_lda_rank_link;

/** \brief A sampler (see struct sk_lda_sampler). */
typedef struct sk_lda_sampler sk_lda_sampler;

/**
 * \brief Where a sampler's sweeps spent their time since it was created (the parts of SaberLDA's Figure
 * 9), and the device memory it holds.
 *
 * A sampler that cannot split its sweeps (the CPU samplers) reports -1 seconds for every part and 0 device
 * bytes.
 */
typedef struct sk_lda_sampler_stats {
  int64_t sweeps;            /**< sweeps timed (0 when the sampler keeps no statistics) */
  double sample_seconds;     /**< drawing the topics (device time; -1: not known) */
  double tables_seconds;     /**< B_hat and the word tables or trees built before the draws (-1: not known) */
  double a_seconds;          /**< A rebuilt from z (-1: not known) */
  double b_seconds;          /**< B and n_k rebuilt from z (-1: not known) */
  int64_t device_bytes_peak; /**< the most device memory held at once, the metrics' scratch included (0: none) */
  /**
   * \name The streamed GPU ESCA sampler's
   * The streamed GPU ESCA sampler's (gpu/esca_streamed.h; 0 otherwise):
   * \{
   */
  int64_t chunks;            /**< chunks of documents streamed every sweep */
  int workers;               /**< pipeline workers (CUDA streams) */
  double wall_seconds;       /**< the sweeps' wall time, copies included */
  double h2d_bytes, /**< bytes over PCIe to the device, summed over the sweeps */ d2h_bytes; /**< and back */
  double prepare_seconds;    /**< the sampler's host preparation (chunk plan, PDOW plans, pinning) */
  int64_t host_pinned_bytes; /**< pinned host memory it holds */
  /** \} */
  /**
   * \name A rank's
   * A rank of a multi-GPU run's (ranks.h; 0 otherwise):
   * \{
   */
  int ranks;                 /**< R */
  double sum_bytes;          /**< bytes this rank sent in the sums of B over the ranks, summed over the sweeps
                                  (ranks_nccl.h's sk_lda_ranks_sum_stats) */
  double sum_seconds;        /**< wall time of those sums, the wait for the slowest rank included */
  int64_t sums;              /**< sums of B over the ranks */
  int64_t sparse_sums;       /**< of which sparse (sk_lda_ranks_comm_sum_i32()) */
  /** \} */
} sk_lda_sampler_stats;

/** \brief What a sampler implements. Each function receives the sampler it belongs to. */
typedef struct sk_lda_sampler_ops {
  const char *name;        /**< the --sampler name: "cgs", "esca" */
  const char *description; /**< for logs: "serial collapsed Gibbs (CPU)" */
  /** One sweep `iteration` (sk_lda_sampler_sweep()); 0, or non-zero with err filled. */
  int (*sweep)(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err);
  int (*to_host)(sk_lda_sampler *s, sk_ex_error *err); /**< NULL: the model is always current */
  void (*destroy)(sk_lda_sampler *s);                   /**< frees s->state; NULL: nothing to free */
  /** sk_lda_joint_ll_per_token() of the sampler's current state; NULL: to_host, then on the host. */
  int (*joint_ll)(sk_lda_sampler *s, double *ll_per_token, sk_ex_error *err);
  /** sk_lda_heldout_ll() of the sampler's current counts; NULL: to_host, then on the host. */
  int (*heldout_ll)(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout, int fold_in_iters,
                    double *ll_per_token, sk_ex_error *err);
  void (*stats)(const sk_lda_sampler *s, sk_lda_sampler_stats *out); /**< fills *out; NULL: nothing known */
  /** sk_lda_hyper_stats_from_model() of the sampler's current counts, bit for bit; NULL: to_host, then on
      the host. */
  int (*prior_stats)(sk_lda_sampler *s, sk_lda_hyper_stats *out, sk_ex_error *err);
  /** Takes the model's priors (m->alpha_k, m->beta) for the sweeps and metrics that follow; NULL: the
      sampler reads them from the model whenever it needs them (the CPU samplers). */
  int (*set_priors)(sk_lda_sampler *s, sk_ex_error *err);
  /** NULL: the sampler honours per-topic priors and a changed beta; else why it cannot (one line, for
      --optimize-every's message). */
  const char *no_priors;
} sk_lda_sampler_ops;

/** \brief A sampler: its operations, the model it works on (borrowed), its device and its own state. */
struct sk_lda_sampler {
  const sk_lda_sampler_ops *ops; /**< its operations */
  sk_lda_model *model;           /**< the model it works on (borrowed) */
  sk_lda_device device;          /**< its device */
  void *state;                   /**< its own state */
};

/** \brief The samplers there are, by --sampler name. */
typedef enum sk_lda_sampler_kind {
  SK_LDA_SAMPLER_ESCA = 0, /**< ESCA ("esca") */
  SK_LDA_SAMPLER_CGS = 1,  /**< collapsed Gibbs ("cgs") */
  SK_LDA_SAMPLER_AGA = 2, /**< AGA-LDA: the GPU only (gpu/aga_sampler.h) */
  SK_LDA_SAMPLER_AUTO = 3 /**< a choice, not a sampler: sk_lda_sampler_auto() makes it (AGA or ESCA) */
} sk_lda_sampler_kind;

/**
 * \brief The kind named `name` ("esca", "cgs", "aga" or "auto").
 * \param name the name.
 * \return the kind; -1 for any other name.
 */
int sk_lda_sampler_kind_from_name(const char *name);

/**
 * \brief The --sampler name of a kind ("esca", "cgs", "aga", "auto"), or "?" when out of range.
 * \param kind the kind.
 * \return the name, or "?" when out of range.
 */
const char *sk_lda_sampler_kind_name(int kind);

/**
 * \brief --sampler auto's rule: AGA-LDA up to this many topics on a GPU, ESCA above it and on the CPU.
 *
 * The K at which the GPU ESCA overtakes AGA in time to the CPU CGS's quality (bench/RESULTS.md, issue 14,
 * measured on an H200 on kos, nips12, 20news and the NYTimes-scale corpus).
 */
#define SK_LDA_AUTO_AGA_MAX_TOPICS 128

/**
 * \brief The kind --sampler auto prefers for K topics and T tokens on `resolved` (a resolved device).
 *
 * SK_LDA_SAMPLER_AGA on a GPU when K <= SK_LDA_AUTO_AGA_MAX_TOPICS and T fits AGA's int32 positions,
 * SK_LDA_SAMPLER_ESCA otherwise. sk_lda_sampler_choose() applies it, and falls back to ESCA when AGA
 * does not fit the device's budget.
 * \param resolved a resolved device.
 * \param num_topics K.
 * \param num_tokens T.
 * \return SK_LDA_SAMPLER_AGA or SK_LDA_SAMPLER_ESCA.
 */
int sk_lda_sampler_auto(const sk_lda_device *resolved, int32_t num_topics, int64_t num_tokens);

/** \brief sk_lda_device_resolve()'s answer when the options contradict (CGS asked to run on the GPU, AGA
 * on the CPU). */
#define SK_LDA_DEVICE_CONTRADICTS 2

/**
 * \brief Whether a device kind and a sampler kind contradict whatever the machine: AGA on the CPU, CGS on
 * the GPU (AUTO on either side never does).
 * \param device_kind an SK_LDA_DEVICE_* kind.
 * \param sampler_kind an SK_LDA_SAMPLER_* kind.
 * \param err says which, when they do.
 * \return 1 when they contradict (err filled), else 0.
 */
int sk_lda_device_contradicts(int device_kind, int sampler_kind, sk_ex_error *err);

/**
 * \brief Resolves `requested` to the device a sampler of `sampler_kind` will really run on (CPU or GPU),
 * filling `resolved`.
 *
 * CPU stays CPU, for CGS or ESCA (AGA runs on the GPU only: the options contradict); GPU needs ESCA or
 * AGA (CGS runs on the CPU only: the options contradict, whatever the machine), a build with the GPU part and a usable GPU `requested->gpu` (else an error that says which is
 * missing: the machine); AUTO is GPU
 * when all three are there and CPU otherwise, with `*note` (when not NULL) set to a one-line explanation of
 * the fallback ("--device auto: ...; training on the CPU"), or NULL. The note points to static storage
 * (one caller at a time). Probing the GPU initialises CUDA.
 * \param requested the device asked for.
 * \param sampler_kind the sampler's kind.
 * \param resolved receives the device it will run on.
 * \param note receives the fallback's explanation or NULL (static storage); may be NULL.
 * \param err says which is missing when GPU cannot be honoured.
 * \return 0 on success; #SK_LDA_DEVICE_CONTRADICTS when the options contradict (CGS on the GPU, AGA on
 *         the CPU: exit status 2 in the CLI); 1 when the machine or the build lacks the GPU (exit status 1).
 */
int sk_lda_device_resolve(const sk_lda_device *requested, int sampler_kind, sk_lda_device *resolved,
                          const char **note, sk_ex_error *err);

/**
 * \brief Wraps caller-made operations and state as a sampler (used by the tests' planted-bug samplers).
 * \param ops the operations.
 * \param state the state.
 * \param m the model.
 * \param device the device.
 * \param out gets a new sampler that destroy() frees with ops->destroy(s) first.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_sampler_wrap(const sk_lda_sampler_ops *ops, void *state, sk_lda_model *m, const sk_lda_device *device,
                        sk_lda_sampler **out, sk_ex_error *err);

/**
 * \brief One sweep `iteration` (< 2^63).
 * \param s the sampler.
 * \param iteration the sweep, < 2^63.
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL, an iteration in the reserved range, or what the sampler reports.
 */
int sk_lda_sampler_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err);

/**
 * \brief Makes the model's z, A, B and n_k current (see above).
 * \param s the sampler.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_sampler_to_host(sk_lda_sampler *s, sk_ex_error *err);

/**
 * \brief The joint log-likelihood per token of the sampler's current state (sk_lda_joint_ll_per_token()).
 *
 * With the sampler's joint_ll where it has one (GPU ESCA: on the device, to a relative 1e-12 of the host's
 * value; the model is not brought to the host), else to_host and the host formula.
 * \param s the sampler.
 * \param ll_per_token receives the value; untouched on failure.
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL or what the sampler reports (*ll_per_token untouched).
 */
int sk_lda_sampler_joint_ll(sk_lda_sampler *s, double *ll_per_token, sk_ex_error *err);

/**
 * \brief The held-out log-likelihood per token of the sampler's current counts (sk_lda_heldout_ll() with
 * the model's seed and s->device.threads).
 *
 * With the sampler's heldout_ll where it has one (GPU ESCA: on the device; the halves are uploaded on the
 * first call and kept while later calls pass the same two corpora, which must not change in between), else
 * to_host and the host rule.
 * \param s the sampler.
 * \param observed the test documents' observed halves.
 * \param heldout their held-out halves.
 * \param fold_in_iters fold-in Gibbs sweeps.
 * \param ll_per_token receives the value.
 * \param err filled on failure.
 * \return 0 on success; non-zero as sk_lda_heldout_ll() fails, or on what the sampler reports.
 */
int sk_lda_sampler_heldout_ll(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                              int fold_in_iters, double *ll_per_token, sk_ex_error *err);

/**
 * \brief Whether the sampler can take per-topic priors and a learnt beta (--optimize-every): every sampler
 * of the table can; the ranks of a multi-GPU run (ranks.h) cannot.
 * \param s the sampler.
 * \param err when it cannot: "--optimize-every: " and why (its ops' no_priors).
 * \return 0 when it can; non-zero (err filled) when it cannot or s is NULL.
 */
int sk_lda_sampler_priors_supported(const sk_lda_sampler *s, sk_ex_error *err);

/**
 * \brief Sets the priors of the sampler's model (sk_lda_model_set_priors(): alpha_k copied, NULL for the
 * symmetric alpha) and hands them to the sampler (its set_priors), for every sweep and metric that follows.
 * \param s the sampler.
 * \param alpha_k K per-topic priors (each finite and > 0), or NULL.
 * \param beta the topic-word prior, finite and > 0.
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL, a value out of range (nothing changed), a sampler that cannot take
 *         per-topic priors or another beta (sk_lda_sampler_priors_supported(); nothing changed), or what its
 *         set_priors reports (the model then has the new priors, the sampler may not: stop the run).
 */
int sk_lda_sampler_set_priors(sk_lda_sampler *s, const double *alpha_k, double beta, sk_ex_error *err);

/**
 * \brief The histograms of the sampler's current counts (hyper.h), bit for bit those of
 * sk_lda_hyper_stats_from_model() on the model after to_host: with the sampler's prior_stats (the resident
 * GPU samplers: an integer-histogram kernel over the device counts; gpu/hyper_gpu.h) or to_host and the
 * host.
 * \param s the sampler.
 * \param out receives the histograms; free with sk_lda_hyper_stats_free().
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_sampler_prior_stats(sk_lda_sampler *s, sk_lda_hyper_stats *out, sk_ex_error *err);

/**
 * \brief --optimize-every's step: the histograms of the current counts (sk_lda_sampler_prior_stats()), at
 * most `iterations` iterations of each of Minka's fixed points from the model's priors (sk_lda_hyper_learn():
 * alpha_k from m->alpha_k, or m->alpha for every topic, beta from m->beta), then the learnt alpha_k and beta
 * into the model and the sampler (sk_lda_sampler_set_priors()). The next sweep draws with them.
 *
 * Deterministic: the same counts give the same priors on every device (the histograms are integers; the
 * fixed points run on the host). Cost: the histograms (a GPU sampler copies 4 K SK_LDA_HYPER_DENSE + 8 K +
 * 1 KiB and its tails back), O(iterations (K SK_LDA_HYPER_DENSE + tails)) on the host.
 * \param s the sampler.
 * \param iterations the most fixed-point iterations of each prior (>= 1; SK_LDA_HYPER_DEFAULT_ITERATIONS).
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL, iterations < 1, a sampler that cannot take the priors (nothing
 *         changed), or a failure of the histograms, the fixed points or set_priors.
 */
int sk_lda_sampler_optimize_priors(sk_lda_sampler *s, int iterations, sk_ex_error *err);

/**
 * \brief Fills *out with the sampler's statistics (sk_lda_sampler_stats): -1 seconds and 0 bytes where the
 * sampler keeps none, or for a NULL sampler; a NULL out is ignored.
 * \param s the sampler, or NULL.
 * \param out receives the statistics, or NULL.
 */
void sk_lda_sampler_get_stats(const sk_lda_sampler *s, sk_lda_sampler_stats *out);

/**
 * \brief Releases the sampler; NULL is fine. The model is untouched.
 * \param s the sampler, or NULL.
 */
void sk_lda_sampler_destroy(sk_lda_sampler *s);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_SAMPLER_H */
