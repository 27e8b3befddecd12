/**
 * \file sk_lda.h
 * \brief sk-lda as a C library: corpora from arrays or files, training, the model's topics and document
 * proportions, inference on new documents, topic coherence, and models saved and loaded.
 *
 * This is the API that `sk-lda` itself uses (its train, infer and export commands are clients of it) and
 * that the Python package `sklda` calls. It is C99 and C++-clean, needs no CUDA headers, and is installed
 * with samplekit (`include/sk_lda.h`, `lib/libsk_lda.so`; CMake: `samplekit::sk_lda`).
 *
 * \section sklda_use Use
 * \code
 *   sklda_error err;
 *   sklda_corpus *c = NULL;
 *   sklda_model *m = NULL;
 *   sklda_read_options ro;
 *   sklda_read_options_default(&ro);
 *   ro.vocab = "vocab.kos.txt";
 *   if (sklda_corpus_read("docword.kos.txt", &ro, &c, &err) != SKLDA_OK) { puts(err.message); return 1; }
 *   sklda_options o;
 *   sklda_options_default(&o);
 *   o.num_topics = 50;
 *   if (sklda_train(c, &o, &m, &err) != SKLDA_OK) { puts(err.message); return 1; }
 *   float *phi = malloc(sizeof(float) * 50 * sklda_model_num_words(m));
 *   sklda_model_phi(m, phi, &err);             // K x V, rows sum to 1
 *   sklda_model_free(m);
 *   sklda_corpus_free(c);
 * \endcode
 *
 * \section sklda_errors Errors
 * Every function that can fail returns an #sklda_status and fills the caller's #sklda_error with one line
 * that names the cause (the file and line, the option, the argument), the same text `sk-lda` prints.
 * Nothing in the library exits, prints or installs signal handlers unless asked (sklda_options::log,
 * sklda_options::handle_signals). A NULL `err` is allowed: the status alone is returned.
 *
 * \section sklda_threads Threads and devices
 * The progress and log callbacks run on the thread that called sklda_train(), between sweeps.
 * One training run at a time per process when handle_signals is set (the handlers are process-wide);
 * otherwise objects are independent and may be used from different threads, one thread per object at a
 * time. With a GPU build, `device = "auto"` trains on GPU 0 when one is found and on the CPU otherwise; the
 * results depend on the corpus, K, the priors, the seed and the sweep alone (see `sk-lda train --help`).
 */
#ifndef SK_LDA_H
#define SK_LDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The library's version as "MAJOR.MINOR.PATCH". */
#define SKLDA_VERSION "2.1.0"

/** \brief What a call returns: the exit statuses of `sk-lda` (0, 1, 2), and one more. */
typedef enum sklda_status {
  SKLDA_OK = 0,            /**< success */
  SKLDA_ERROR_RUNTIME = 1, /**< the machine failed: memory, a device, a file that could not be written */
  SKLDA_ERROR_INPUT = 2,   /**< the caller's input: a bad argument, option, file or checkpoint */
  SKLDA_STOPPED = 3        /**< sklda_train(): the progress callback asked to stop; the model is valid */
} sklda_status;

/** \brief An error message: one NUL-terminated line (sometimes two: the second says what to do). */
typedef struct sklda_error {
  int status;         /**< the #sklda_status returned with it */
  char message[1024]; /**< the text; longer messages are cut */
} sklda_error;

/** \brief A corpus: documents of word ids, and optionally their words (opaque). */
typedef struct sklda_corpus sklda_corpus;

/** \brief A model: trained by sklda_train() or read by sklda_model_load() (opaque). */
typedef struct sklda_model sklda_model;

/**
 * \brief The library's version string (#SKLDA_VERSION of the build).
 * \return a static string.
 */
const char *sklda_version(void);

/**
 * \brief Whether this build has the CUDA part and a GPU can be used now.
 * \return 1 when a CUDA device is visible to this process, else 0 (also without the CUDA part).
 */
int sklda_gpu_available(void);

/* ---------------------------------------------------------------------------------------------------- */
/** \name Corpora
 * \{ */

/**
 * \brief Makes a corpus from a document-word count matrix in CSR form (scipy.sparse.csr_matrix's layout).
 *
 * Document d's entries are j in [doc_offsets[d], doc_offsets[d + 1]): word word_ids[j] occurs counts[j]
 * times (counts NULL: once; an entry may repeat a word). Empty documents are kept: they count in
 * sklda_corpus_num_input_docs() and get a documented theta row, but no tokens. The arrays are copied.
 * \param num_docs D >= 0.
 * \param num_words V >= 1; every word id is in [0, V).
 * \param doc_offsets D + 1 non-decreasing entries, doc_offsets[0] = 0.
 * \param word_ids doc_offsets[D] word ids.
 * \param counts doc_offsets[D] counts >= 0, or NULL.
 * \param out receives the corpus (sklda_corpus_free()); NULL on failure.
 * \param err filled on failure: the first bad entry by index, or the totals that do not fit (T < 2^63,
 *        every document < 2^31 tokens), or memory.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_corpus_from_csr(int32_t num_docs, int32_t num_words, const int64_t *doc_offsets, const int32_t *word_ids,
                          const int32_t *counts, sklda_corpus **out, sklda_error *err);

/** \brief How sklda_corpus_read() reads a file. sklda_read_options_default() fills the defaults. */
typedef struct sklda_read_options {
  /** "uci" (default: UCI bag of words, docword.X.txt, .gz too, or sk-lda's binary corpus, known by its first
      bytes), "ldac" (LDA-C: N id:count ...), or "text" (one document per line, lower-cased, letters only). */
  const char *format;
  const char *vocab;     /**< vocabulary file, one word per line (uci, ldac), or NULL */
  const char *stopwords; /**< text: words to drop, one per line, or NULL */
  int64_t min_count;     /**< text: drop words seen this many times or fewer (default 0) */
} sklda_read_options;

/**
 * \brief Fills the defaults of sklda_read_options.
 * \param ro the options.
 */
void sklda_read_options_default(sklda_read_options *ro);

/**
 * \brief Reads a corpus file as `sk-lda train` does (--docword, --ldac, --text).
 * \param path the file.
 * \param ro the options, or NULL for the defaults.
 * \param out receives the corpus; NULL on failure.
 * \param err filled on failure: the file and line, and what was wrong.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_corpus_read(const char *path, const sklda_read_options *ro, sklda_corpus **out, sklda_error *err);

/**
 * \brief Gives the corpus its words (replacing any it has): the model's topics then show words, and
 * sklda_infer() maps new documents to a model's words by string.
 * \param c the corpus.
 * \param words V NUL-terminated words (copied), V = sklda_corpus_num_words().
 * \param num_words must equal V.
 * \param err filled on failure.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT (a count that is not V; a NULL or empty word; a word with a tab or a
 *         line break; a word that repeats an earlier one, as the vocabulary files' readers refuse) or
 *         SKLDA_ERROR_RUNTIME.
 */
int sklda_corpus_set_vocab(sklda_corpus *c, const char *const *words, int32_t num_words, sklda_error *err);

/** \brief The documents the input numbered (theta's rows), empty ones included. \param c the corpus. \return D. */
int32_t sklda_corpus_num_input_docs(const sklda_corpus *c);
/** \brief The vocabulary size. \param c the corpus. \return V. */
int32_t sklda_corpus_num_words(const sklda_corpus *c);
/** \brief The number of tokens. \param c the corpus. \return T. */
int64_t sklda_corpus_num_tokens(const sklda_corpus *c);
/** \brief Word v of the corpus. \param c the corpus. \param v in [0, V). \return the word, or NULL (no words, or v out of range). */
const char *sklda_corpus_word(const sklda_corpus *c, int32_t v);
/** \brief Frees a corpus; NULL is fine. \param c the corpus. */
void sklda_corpus_free(sklda_corpus *c);

/** \} */

/* ---------------------------------------------------------------------------------------------------- */
/** \name Training
 * \{ */

/** \brief Where a run is, for sklda_options::progress, after every sweep. */
typedef struct sklda_progress {
  int64_t sweep;            /**< the sweep just done, 1-based (a resumed run's count goes on) */
  int64_t iters;            /**< the sweeps the run will do in all */
  double tokens_per_second; /**< this sweep's speed */
  double eta_seconds;       /**< the time left, estimated from this run's sweeps so far */
  int evaluated;            /**< 1 when joint_ll was computed after this sweep */
  double joint_ll;          /**< the joint log-likelihood per token of the last evaluated sweep (NaN: none yet) */
  double alpha_sum;         /**< the sum of the document-topic priors now (optimised or fixed) */
  double beta;              /**< the topic-word prior now */
} sklda_progress;

/**
 * \brief Called after every sweep; return non-zero to stop the run after this sweep (it then saves a
 * checkpoint and the outputs so far when out_dir is set, and sklda_train() returns SKLDA_STOPPED with the
 * model as it is).
 */
typedef int (*sklda_progress_fn)(const sklda_progress *p, void *user);

/** \brief Levels of sklda_options::log's lines. */
enum {
  SKLDA_LOG_INFO = 0,   /**< what `sk-lda train` prints on stdout: the plan, the summary, the time split */
  SKLDA_LOG_WARNING = 1 /**< what it prints on stderr without failing: a fallback, a note */
};

/** \brief Receives the run's report, one line (no newline) at a time; NULL: the library is silent. */
typedef void (*sklda_log_fn)(int level, const char *line, void *user);

/**
 * \brief What sklda_train() does: `sk-lda train`'s options (see its --help for the full meaning of each).
 * Fill with sklda_options_default(), then set what you need. Values left at their defaults are "not
 * given": a resumed run takes them from its checkpoint.
 */
typedef struct sklda_options {
  int32_t num_topics;     /**< K, 1 .. 65,536 (default 0: 100, or the checkpoint's) */
  double alpha;           /**< document-topic prior (<= 0: 50 / K) */
  double beta;            /**< topic-word prior (<= 0: 0.01) */
  int64_t seed;           /**< seed of every draw (< 0: 1) */
  int64_t iters;          /**< sweeps in all, a resumed run's earlier ones included (default 100) */
  double test_fraction;   /**< documents held out for the held-out log-likelihood, [0, 0.99] (< 0: 0.1) */
  const char *sampler;    /**< "auto" (default, NULL too), "esca", "cgs" (CPU) or "aga" (GPU) */
  const char *device;     /**< "auto" (default, NULL too), "cpu" or "gpu" */
  int gpu;                /**< CUDA device ordinal (default 0) */
  int gpu_exact;          /**< 1: GPU ESCA's exact (double) sweep, bit for bit the CPU's (default 0: fast) */
  int threads;            /**< CPU threads (default 0: all); results never depend on it */
  uint64_t device_memory; /**< the most GPU bytes the sampler may hold (0: the free memory less 1 GiB) */
  int workers;            /**< streamed ESCA: chunks in flight, 1 .. 16 (0: 2) */
  int32_t minibatch;      /**< aga: documents per mini-batch (0: automatic) */
  int32_t panels;         /**< aga: blocks per mini-batch (0: 4 per SM) */
  int whole_word_panels;  /**< aga: each word's tokens in one block */
  int64_t ll_every;       /**< joint log-likelihood every N sweeps, and at the first and last (default 10; 0: only those) */
  int64_t optimize_every; /**< learn an asymmetric alpha and a symmetric beta every N sweeps (default 0: fixed priors) */
  int64_t optimize_burnin; /**< no optimisation before this sweep (default 0: the first is at sweep optimize_every) */
  int32_t start_topics;   /**< a new run's documents start on at most this many topics (< 0, the default: 128; 0: every token on its own uniform topic) */
  int32_t heldout_sweeps; /**< fold-in sweeps of the held-out LL at the end (0, the default: 12 up to K = 1,024, all but the last 2 uncollapsed; 10 up to K = 10,000, 20 above, where more sweeps still raise it) */
  const char *out_dir;    /**< write the outputs, metrics.csv and checkpoints here (NULL: no files); phi.npy and theta.npy only up to 4 GiB each (`sk-lda train`'s default --npy-limit), as the log says */
  const char *resume_dir; /**< continue the run saved here (its checkpoint.skc) up to iters sweeps */
  int overwrite;          /**< out_dir may hold another run, which is removed */
  int64_t checkpoint_every; /**< every N sweeps (0: only at the end and when stopped; default -1: automatic, about 2% of the run) */
  int top_words;          /**< words per topic in topics.txt (default 20) */
  int save_z;             /**< also write z.bin */
  int handle_signals;     /**< 1: SIGINT and SIGTERM stop the run after its sweep, saving it (as the CLI) */
  sklda_progress_fn progress; /**< called after every sweep, or NULL */
  sklda_log_fn log;       /**< receives the run's report, or NULL: silent */
  void *user;             /**< passed to progress and log */
} sklda_options;

/**
 * \brief Fills the defaults of sklda_options (those of `sk-lda train`, silent).
 * \param o the options.
 */
void sklda_options_default(sklda_options *o);

/**
 * \brief Trains a model on `corpus`.
 *
 * The corpus is split as test_fraction says (the held-out documents are scored at the end, and get their
 * proportions by fold-in); the sweeps run on the device chosen; with out_dir the run writes what
 * `sk-lda train --out` writes and can be resumed (resume_dir), also after a kill.
 * \param corpus the documents (not changed; may be freed after the call).
 * \param o the options, or NULL for the defaults.
 * \param out receives the model (sklda_model_free()): on SKLDA_OK and SKLDA_STOPPED; NULL otherwise.
 * \param err filled on failure.
 * \return SKLDA_OK; SKLDA_STOPPED when progress or a signal stopped the run (the model is valid);
 *         SKLDA_ERROR_INPUT for bad options, a corpus with no tokens, a bad or mismatched checkpoint, an
 *         out_dir refused or in use;
 *         SKLDA_ERROR_RUNTIME for a failure of the machine (memory, device, disk).
 */
int sklda_train(const sklda_corpus *corpus, const sklda_options *o, sklda_model **out, sklda_error *err);

/** \} */

/* ---------------------------------------------------------------------------------------------------- */
/** \name Models
 * \{ */

/** \brief The number of topics. \param m the model. \return K. */
int32_t sklda_model_num_topics(const sklda_model *m);
/** \brief The vocabulary size. \param m the model. \return V. */
int32_t sklda_model_num_words(const sklda_model *m);
/** \brief The sweeps the model has had. \param m the model. \return the count. */
uint64_t sklda_model_sweeps(const sklda_model *m);
/** \brief The seed the model was trained with (sklda_infer()'s default seed). \param m the model. \return the seed. */
uint64_t sklda_model_seed(const sklda_model *m);
/** \brief The topic-word prior. \param m the model. \return beta. */
double sklda_model_beta(const sklda_model *m);
/**
 * \brief The document-topic prior, one value per topic (all equal unless optimised).
 * \param m the model.
 * \param alpha receives K values.
 */
void sklda_model_alpha(const sklda_model *m, double *alpha);
/** \brief Word v. \param m the model. \param v in [0, V). \return the word, or NULL (no words, v out of range). */
const char *sklda_model_word(const sklda_model *m, int32_t v);
/**
 * \brief The last joint log-likelihood per token of training (log p(w, z) / T).
 * \param m the model.
 * \return the value; NaN for a loaded model.
 */
double sklda_model_joint_ll(const sklda_model *m);
/**
 * \brief The held-out log-likelihood per token of the training run's held-out documents (document
 * completion).
 * \param m the model.
 * \return the value; NaN when nothing was held out, or for a loaded model.
 */
double sklda_model_heldout_ll(const sklda_model *m);

/**
 * \brief The topic-word distributions: phi[k][v] = (n_vk + beta) / (n_k + V beta).
 * \param m the model.
 * \param phi receives K x V floats, row-major (each row sums to 1).
 * \param err filled on failure.
 * \return SKLDA_OK or SKLDA_ERROR_INPUT (a NULL argument).
 */
int sklda_model_phi(const sklda_model *m, float *phi, sklda_error *err);

/**
 * \brief The word-topic counts n_vk of the model (what model.skl stores).
 * \param m the model.
 * \param counts receives K x V int32, row-major by topic (counts[k * V + v] = n_vk).
 * \param err filled on failure.
 * \return SKLDA_OK or SKLDA_ERROR_INPUT.
 */
int sklda_model_topic_word_counts(const sklda_model *m, int32_t *counts, sklda_error *err);

/**
 * \brief The N most probable words of every topic (ties: the smaller word id first).
 * \param m the model.
 * \param top_n N >= 1 (at most V).
 * \param word_ids receives K x N word ids, row-major.
 * \param err filled on failure.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_model_top_words(const sklda_model *m, int32_t top_n, int32_t *word_ids, sklda_error *err);

/**
 * \brief The rows of theta a trained model has: the documents of the corpus it was trained on, in input
 * order (empty ones included).
 * \param m the model.
 * \return D; 0 for a loaded model.
 */
int32_t sklda_model_num_docs(const sklda_model *m);

/**
 * \brief The document-topic proportions of the training corpus, one row per input document (what
 * `sk-lda train` writes to theta.npy): training documents from their topic counts, held-out documents by
 * the held-out score's fold-in, empty documents the prior's mean (1/K for a symmetric alpha).
 * \param m a trained model.
 * \param theta receives sklda_model_num_docs() x K floats, row-major (rows sum to 1).
 * \param err filled on failure (a loaded model has no documents).
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_model_theta(const sklda_model *m, float *theta, sklda_error *err);

/** \brief How sklda_infer() and sklda_score() fold documents in. sklda_infer_options_default() fills it. */
typedef struct sklda_infer_options {
  int iters;         /**< Gibbs sweeps of the fold-in, >= 1, or 0 (the default): the held-out score's for the
                          model's K (12 up to K = 1,024, all but the last 2 uncollapsed;
                          10 up to K = 10,000, 20 above) */
  int64_t seed;      /**< the key of the draws (< 0, the default: the model's seed) */
  int threads;       /**< CPU threads, 0..4096 (0: all); the results do not depend on it */
  int skip_unknown;  /**< words (or ids) the model lacks are dropped instead of refused (default 0) */
} sklda_infer_options;

/**
 * \brief Fills the defaults of sklda_infer_options (those of `sk-lda infer`).
 * \param io the options.
 */
void sklda_infer_options_default(sklda_infer_options *io);

/**
 * \brief Document-topic proportions of new documents by Gibbs fold-in against the model's fixed topics
 * (`sk-lda infer`).
 *
 * When both the corpus and the model have words, the documents' words are matched by string; otherwise
 * their ids must be the model's.
 * \param m the model.
 * \param docs the documents (not changed).
 * \param io the options, or NULL for the defaults.
 * \param theta receives sklda_corpus_num_input_docs(docs) x K floats, row-major: (n_dk + alpha_k) /
 *        (n_d + sum alpha); an empty document gets the prior's mean.
 * \param dropped receives the number of tokens dropped with skip_unknown, or NULL.
 * \param err filled on failure: the document and the word the model lacks, or memory.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_infer(const sklda_model *m, const sklda_corpus *docs, const sklda_infer_options *io, float *theta,
                int64_t *dropped, sklda_error *err);

/**
 * \brief The held-out log-likelihood per token of new documents by document completion, as the training
 * run scores its held-out documents: each document's tokens are cut in two by the seeded shuffle of
 * split.h, the first half folds the document in, the second is scored.
 * \param m the model.
 * \param docs the documents (word matching as sklda_infer()).
 * \param io the options, or NULL for the defaults (the seed also keys the cut).
 * \param ll_per_token receives the value (NaN when the documents have no token; a document of one token is
 *        scored without an observed half).
 * \param err filled on failure.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_score(const sklda_model *m, const sklda_corpus *docs, const sklda_infer_options *io, double *ll_per_token,
                sklda_error *err);

/**
 * \brief Topic coherence of every topic's N most probable words over a reference corpus (usually the
 * training corpus): UMass (Mimno et al. 2011, document co-occurrence, smoothed by 1) and NPMI (Bouma
 * 2009, document co-occurrence), as `sk-lda eval --coherence N` computes them.
 * \param m the model.
 * \param docs the reference documents, in the model's word ids (or words, matched as sklda_infer(); words
 *        the model lacks are left out). D, the number of documents, counts those with at least one token.
 * \param top_n N >= 2.
 * \param umass receives K values, or NULL.
 * \param npmi receives K values, or NULL.
 * \param err filled on failure.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_coherence(const sklda_model *m, const sklda_corpus *docs, int32_t top_n, double *umass, double *npmi,
                    sklda_error *err);

/**
 * \brief Saves the model as model.skl (the format `sk-lda infer` reads; model_file.h documents it).
 * \param m the model.
 * \param path the file, replaced atomically.
 * \param err filled on failure.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT or SKLDA_ERROR_RUNTIME.
 */
int sklda_model_save(const sklda_model *m, const char *path, sklda_error *err);

/**
 * \brief Loads a model.skl (written by sklda_model_save() or `sk-lda train --out`).
 * \param path the file.
 * \param out receives the model; NULL on failure.
 * \param err filled on failure.
 * \return SKLDA_OK, SKLDA_ERROR_INPUT (not a model file, damaged) or SKLDA_ERROR_RUNTIME.
 */
int sklda_model_load(const char *path, sklda_model **out, sklda_error *err);

/** \brief Frees a model; NULL is fine. \param m the model. */
void sklda_model_free(sklda_model *m);

/** \} */

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_H */
