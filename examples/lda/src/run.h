/**
 * \file run.h
 * \brief A training run of sk-lda: everything `sk-lda train` does after its options are parsed and its
 * corpus is read.
 *
 * The run splits the corpus, starts the model (seeded topics) or resumes it from a checkpoint,
 * drives a sampler (sampler.h) through the sweeps, computes the metrics, writes checkpoints and, at the
 * end or when interrupted, the outputs:
 *
 * \verbatim
 *   DIR/checkpoint.skc  the state --resume needs (checkpoint.h), every --checkpoint-every sweeps, at the
 *                       end and on SIGINT / SIGTERM
 *   DIR/metrics.csv     one row per evaluated sweep (output.h), rewritten whole on every row
 *   DIR/topics.txt, DIR/model.skl, DIR/theta.txt (and DIR/z.bin with save_z) at the end or interruption
 *   DIR/run.lock        while the run writes DIR: its lock, with its process id (run_dir.h)
 * \endverbatim
 *
 * The process that writes DIR locks it first (only rank 0 when the run has ranks), so a second run
 * given the same folder (--out or --resume) exits 2 naming the folder and the holder's process id; the
 * lock goes with the process, also when it is killed. A folder whose run stopped before its first
 * checkpoint holds nothing to lose: the same command (--out DIR, no --overwrite) starts it again and says
 * so, and --resume DIR says that this is what to do. A checkpoint that cannot be written during the
 * sweeps (a full disk) stops the run with exit 1 and a message naming the folder, the sweep, and the
 * checkpoint that is kept (none: the sweeps are lost), with the command that goes on from it.
 *
 * Every file is replaced atomically (temporary name and rename), so a run killed at any moment, even
 * by SIGKILL, leaves no half file, and resuming from its last checkpoint ends with exactly the bytes
 * an uninterrupted run writes (metrics.csv's clock columns aside: seconds, tokens/s and the time
 * split). SIGINT and SIGTERM finish the current sweep, write a checkpoint and the outputs so far, say
 * how to resume, and return 130 / 143; a second signal stops at once (the last checkpoint stays).
 * The run prints nothing itself: its report lines, its progress after every sweep and its errors go to
 * the caller (sk_lda_run_hooks, the error argument), so that the library (sk_lda.h) is silent unless
 * asked and the CLI prints what it always printed.
 * Threading: one run per process when it handles signals (the handlers are process-wide).
 */
#ifndef SK_LDA_RUN_H
#define SK_LDA_RUN_H

#include <stdint.h>

#include "corpus.h"
#include "model.h"
#include "ranks.h"
#include "sampler.h"
#include "sk_lda.h"
#include "sk_ex_main.h"
#include "split.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Exit statuses of sk-lda and of sk_lda_run_train(): those of sk_ex_main.h (0, 1, 2), and these two. */
/** \brief Exit status of sk-lda (and of sk_lda_run_train()): interrupted by SIGINT. */
#define SK_LDA_EXIT_SIGINT 130
/** \brief Exit status of sk-lda (and of sk_lda_run_train()): interrupted by SIGTERM. */
#define SK_LDA_EXIT_SIGTERM 143

/** \brief Status of sk_lda_run_train(): the progress hook asked to stop; the run was saved as on SIGINT. */
#define SK_LDA_EXIT_STOPPED 3

/** \brief The largest phi.npy or theta.npy a run writes by default (bytes): 4 GiB (`--npy-limit`). */
#define SK_LDA_NPY_MAX_BYTES (UINT64_C(4) << 30)

/** \brief What the caller of sk_lda_run_train() hears, in the library's types (sk_lda.h); zeroed:
    nothing, and no signal handlers. */
typedef struct sk_lda_run_hooks {
  /** After every sweep, or NULL; non-zero: stop after this sweep (saved as on SIGINT, status SK_LDA_EXIT_STOPPED). */
  sklda_progress_fn progress;
  /** One report line at SKLDA_LOG_INFO or SKLDA_LOG_WARNING (no newline; a line that starts with two spaces
      continues the one before), or NULL. */
  sklda_log_fn log;
  void *user;         /**< passed to progress and log */
  int handle_signals; /**< SIGINT / SIGTERM finish the sweep and save the run (SK_LDA_EXIT_SIGINT / SIGTERM) */
} sk_lda_run_hooks;

/** \brief What a run ends with, besides its status. */
typedef struct sk_lda_run_result {
  uint64_t sweeps;   /**< the sweeps done, a resumed run's earlier ones included */
  double joint_ll;   /**< the last joint log-likelihood per token (NaN: none) */
  double heldout_ll; /**< the held-out log-likelihood per token (NaN: none) */
} sk_lda_run_result;

/** \brief --checkpoint-every's default: pick the interval from measured times (see sk_lda_run_options). */
#define SK_LDA_CHECKPOINT_AUTO (-1)
/** \brief The most of a run's time that automatic checkpoints may take. */
#define SK_LDA_CHECKPOINT_AUTO_SHARE 0.02

/** \brief Bits of sk_lda_run_options.given: options the user set, which a resumed checkpoint must agree with. */
enum {
  SK_LDA_GIVEN_TOPICS = 1u << 0,        /**< the number of topics */
  SK_LDA_GIVEN_ALPHA = 1u << 1,         /**< alpha */
  SK_LDA_GIVEN_BETA = 1u << 2,          /**< beta */
  SK_LDA_GIVEN_SEED = 1u << 3,          /**< the seed */
  SK_LDA_GIVEN_TEST_FRACTION = 1u << 4, /**< the test fraction */
  SK_LDA_GIVEN_SAMPLER = 1u << 5        /**< the sampler */
};

/** \brief What a run does. sk_lda_run_options_default() fills the defaults of `sk-lda train`. */
typedef struct sk_lda_run_options {
  int32_t num_topics;   /**< K (default 100) */
  double alpha;         /**< <= 0: 50 / K */
  double beta;          /**< default SK_LDA_DEFAULT_BETA */
  uint64_t seed;        /**< default 1 */
  double test_fraction; /**< documents held out (default SK_LDA_DEFAULT_TEST_FRACTION) */
  int sampler;        /**< sk_lda_sampler_kind (default AUTO: sk_lda_sampler_auto() picks once the device is known) */
  sk_lda_device device; /**< default AUTO, all CPU threads */
  int gpu_exact;        /**< --gpu-sweep exact: on a GPU, ESCA's exact sweep (the table's esca-exact) */
  sk_lda_sampler_options samplers; /**< every sampler's knobs (zeroed: the defaults) */
  int64_t iters;        /**< sweeps in all, counting those of a resumed run (default 100) */
  int64_t ll_every;     /**< joint log-likelihood every N sweeps, and at the first and last (default 10) */
  int64_t optimize_every;  /**< learn an asymmetric alpha and a symmetric beta every N sweeps (0: fixed priors) */
  int64_t optimize_burnin; /**< no optimisation before this sweep */
  /** A new run's documents start on at most this many topics (sk_lda_model_init_started(); default
      SK_LDA_DEFAULT_START_TOPICS); 0: every token its own uniform topic. A resumed run takes its topics
      from the checkpoint. */
  int32_t start_topics;
  /** Fold-in sweeps of the held-out LL at the end; 0 (the default): sk_lda_default_foldin_iters(K). */
  int32_t heldout_sweeps;
  /** Checkpoint every N sweeps; 0: only at the end and on interruption; SK_LDA_CHECKPOINT_AUTO (the
      default): whenever the sweeps since the last one took 50 times what writing one takes (measured;
      before the first, estimated at 200 MB/s), so checkpoints cost at most about 2% of the run. */
  int64_t checkpoint_every;
  const char *out;      /**< output folder (created with its parents), or NULL: no files */
  const char *resume;   /**< folder of the checkpoint to continue, or NULL; out defaults to it */
  int overwrite;        /**< allow an out folder that holds another run's files (they are removed) */
  int top_words;        /**< words per topic in topics.txt */
  int save_z;           /**< also write z.bin */
  /** phi.npy and theta.npy are not written when larger than this many bytes (the log says so and how to
      get them); 0: no limit. Default SK_LDA_NPY_MAX_BYTES. */
  uint64_t npy_max_bytes;
  unsigned given;       /**< SK_LDA_GIVEN_* */
  const char *input_args; /**< the input options as typed ("--docword F --vocab V"), for the resume hint */
  /** Where the corpus's vocabulary was read from, for the messages of a resume whose vocabulary differs
      from the checkpoint's: the --vocab file, or the --text corpus (then vocab_from_text is set); NULL:
      none given. */
  const char *vocab_file;
  int vocab_from_text;  /**< the vocabulary is the words of the --text corpus vocab_file */
  /** This process's rank of a multi-GPU run (ranks.h), or NULL: one process. Every rank runs the same
      run up to the sampler (split, model, resume); rank 0 then runs it on, the other ranks serve rank 0
      (sk_lda_ranks_serve()) and return without writing anything. */
  const sk_lda_rank_context *ranks;
  sk_lda_run_hooks hooks; /**< progress, report lines, signals (zeroed: silent) */
} sk_lda_run_options;

/**
 * \brief Fills the defaults of `sk-lda train`.
 * \param o the options.
 */
void sk_lda_run_options_default(sk_lda_run_options *o);

/**
 * \brief Refuses early a run whose folder (o->out, else o->resume) another process writes: for a caller
 * that has long work to do before sk_lda_run_train() (reading a large corpus, starting ranks), so that a
 * second writer is turned away at once. It only looks (the lock is taken by sk_lda_run_train()), so a
 * folder taken meanwhile is still refused there.
 * \param o the options.
 * \param err filled when the folder is in use.
 * \return SK_EX_EXIT_OK when no other process writes the folder (or there is none); SK_EX_EXIT_USAGE,
 *         with the message naming the folder and the holder's process id, when one does.
 */
int sk_lda_run_check_in_use(const sk_lda_run_options *o, sk_ex_error *err);

/**
 * \brief Runs training on `corpus` (read by the caller) as `o` says, reporting through o->hooks.
 *
 * Every error is one message in `err` naming the file or option (the CLI prints it after "sk-lda train: ").
 * \param o the options.
 * \param corpus the corpus, read by the caller.
 * \param split must be zeroed; it is filled and the caller frees it (sk_lda_split_free()) after using it,
 *        also on failure.
 * \param m must be zeroed; it is filled (the model's corpus is split->train) and the caller frees it
 *        (sk_lda_model_free()) after using it, also on failure.
 * \return an exit status: SK_EX_EXIT_OK; SK_EX_EXIT_USAGE for bad options, a bad or mismatched
 *         checkpoint, or an out folder that is refused, in use by another process or not writable (all
 *         found before the first sweep);
 *         SK_EX_EXIT_RUNTIME for a failure during the run (device, memory, I/O); SK_LDA_EXIT_SIGINT /
 *         SK_LDA_EXIT_SIGTERM when interrupted, SK_LDA_EXIT_STOPPED when the progress hook stopped it (the
 *         model in m is then the last sweep's, on the host).
 * \param result receives the sweeps and the last log-likelihoods (also when stopped), or NULL.
 * \param err filled on failure (not for the interruptions, which are reported through the hooks).
 */
int sk_lda_run_train(const sk_lda_run_options *o, const sk_lda_corpus *corpus, sk_lda_split *split, sk_lda_model *m,
                     sk_lda_run_result *result, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_RUN_H */
