/**
 * \file checkpoint.h
 * \brief The checkpoint of a training run: everything `sk-lda train --resume DIR` needs to continue a run
 * so that it ends with exactly the bits an uninterrupted run gives, in one file (DIR/checkpoint.skc)
 * written atomically (temporary name, fsync, rename: output.h), so a run killed at any moment leaves
 * either the previous checkpoint or the new one.
 *
 * The topics z are the state; the counts are rebuilt from them, and every random number depends only on
 * (seed, sweep, token), so the sampler and device that continue may differ from those that stopped.
 *
 * CHECKPOINT FILE (format versions 2 and 3). Little-endian, no padding:
 * \verbatim
 *   offset  size     field
 *   0       8        magic, the bytes "SKLDACKP"
 *   8       4        uint32 format version = 2, or 3 when the run's priors were learnt (hyper.h)
 *   12      4        int32 sampler kind (sampler.h: 0 esca, 1 cgs, 2 aga)
 *   16      4        int32 K, 1 .. SK_LDA_MAX_TOPICS
 *   20      4        int32 V, >= 1
 *   24      4        int32 D, training documents, >= 0
 *   28      4        uint32 fingerprint of the training corpus (sk_lda_corpus_fingerprint())
 *   32      8        int64 T, training tokens, >= 0
 *   40      8        float64 alpha, finite and > 0: the run's symmetric alpha (--alpha, as it started)
 *   48      8        float64 beta, finite and > 0: the run's beta as it started (--beta)
 *   56      8        float64 test fraction of the split, in [0, 1)
 *   64      8        uint64 seed
 *   72      8        uint64 sweeps done
 *   80      8        float64 seconds of training so far (metrics.csv's clock), finite and >= 0
 *   88      8        uint64 M, bytes of metrics text
 *   96      8        uint64 W, bytes of the vocabulary section; 0: the run has no vocabulary
 *   104     M        the metrics log (metrics.csv) as it was at this checkpoint
 *   then    W        the run's vocabulary, only when W > 0: exactly V entries, each a uint32 byte length
 *                    L >= 1 then L bytes of the word (no terminator, no NUL byte inside), as in model.skl
 *   then    8        version 3 only: float64 beta now (the learnt one), finite and > 0
 *   then    8 K      version 3 only: float64 alpha_k, k = 0 .. K-1, each finite and > 0 (learnt)
 *   then    4 T      int32 z[t] in [0, K), training tokens in corpus order
 *   then    4        CRC-32 of every byte before it
 * \endverbatim
 * Format version 1 (sk-lda before checkpoints kept the vocabulary) is version 2 without the field W: the
 * metrics start at offset 96 and there is no vocabulary. Version 3 is version 2 with the learnt priors
 * between the vocabulary and z; a run whose priors were never learnt writes version 2, byte for byte as
 * before. Readers take all three (version says which was read); the writer writes version 3 when alpha_k
 * is given, else version 2, or version 1 when asked (a checkpoint read from a file and written back gives
 * the same bytes).
 * Readers check the magic, the CRC, the version, the length, every range and the vocabulary section
 * (entry lengths within W, no empty word, no NUL byte, exactly V words filling W) and the learnt priors,
 * each with an error that names the file. Errors: 0 on success, non-zero with err filled (corpus.h). Threading: no shared state.
 */
#ifndef SK_LDA_CHECKPOINT_H
#define SK_LDA_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The checkpoint file's format version. */
#define SK_LDA_CHECKPOINT_VERSION 2u
/** \brief The format version of a checkpoint with learnt priors (alpha_k and the learnt beta). */
#define SK_LDA_CHECKPOINT_VERSION_PRIORS 3u
/** \brief The format version before the vocabulary section (still read). */
#define SK_LDA_CHECKPOINT_VERSION_NO_VOCAB 1u
/** \brief The checkpoint's file name inside a run's --out folder. */
#define SK_LDA_CHECKPOINT_FILE "checkpoint.skc"

/**
 * \brief A checkpoint's contents.
 *
 * Filled by sk_lda_checkpoint_read() (owning: free with sk_lda_checkpoint_free()), or by a caller for
 * sk_lda_checkpoint_write() (then only read).
 */
typedef struct sk_lda_checkpoint {
  int32_t sampler;        /**< sk_lda_sampler_kind */
  int32_t num_topics;     /**< K */
  int32_t num_words;      /**< V */
  int32_t num_docs;       /**< training documents */
  uint32_t fingerprint;   /**< sk_lda_corpus_fingerprint() of the training corpus */
  int64_t num_tokens;     /**< training tokens */
  double alpha, /**< the run's symmetric document-topic prior as it started (--alpha; checked on resume) */
      beta; /**< the run's topic-word prior as it started (--beta; checked on resume) */
  double test_fraction;   /**< the test fraction of the split */
  uint64_t seed;          /**< the run's seed */
  uint64_t sweeps;        /**< sweeps done */
  double seconds;         /**< training time so far */
  const char *metrics;    /**< metrics_len bytes of metrics.csv text (not NUL-terminated when written) */
  size_t metrics_len;     /**< bytes of metrics */
  int32_t *z;             /**< num_tokens topics */
  /** The run's vocabulary: num_words NUL-terminated words, or NULL when the run has none (always NULL
      from a version-1 file). The writer only reads it. */
  char **vocab;
  /** The format version: the reader sets the file's (1, 2 or 3); the writer writes version 1 when it is
      SK_LDA_CHECKPOINT_VERSION_NO_VOCAB (then vocab and alpha_k must be NULL), else version 3 when alpha_k is
      set and version 2 when it is NULL (0 included). */
  uint32_t version;
  /** The learnt per-topic priors (the model's alpha_k: K values, each finite and > 0), or NULL when the run's
      prior is symmetric (alpha for every topic; beta unchanged): the file is then version 2. The reader
      allocates it (version 3); the writer only reads it. */
  double *alpha_k;
  double prior_beta; /**< with alpha_k: the topic-word prior the run has now (the model's beta), finite and > 0 */
} sk_lda_checkpoint;

/**
 * \brief Frees what a read checkpoint owns and zeroes it; NULL or zeroed is fine.
 * \param c the checkpoint.
 */
void sk_lda_checkpoint_free(sk_lda_checkpoint *c);

/**
 * \brief Writes c at PATH (temporary name, fsync, rename).
 *
 * Fails when a pointer is NULL, a field is out of range (a topic included), a vocabulary word is NULL or
 * empty, a vocabulary is given for version 1, or on an I/O error; PATH is then untouched. Work O(T + M + W).
 * \param path the file (PATH).
 * \param c the checkpoint.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_checkpoint_write(const char *path, const sk_lda_checkpoint *c, sk_ex_error *err);

/**
 * \brief Reads and checks a checkpoint into *out (overwritten; zeroed on failure).
 *
 * Malformed or truncated input is an error, never a crash; sizes are checked against the file length
 * before anything is allocated. On success out->metrics is NUL-terminated and out->version is the file's
 * (versions 1, 2 and 3 are read; out->alpha_k is set from a version-3 file). Work O(file size).
 * \param path the file.
 * \param out receives the checkpoint; free with sk_lda_checkpoint_free().
 * \param err filled on failure, naming the file.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_checkpoint_read(const char *path, sk_lda_checkpoint *out, sk_ex_error *err);

/**
 * \brief A CRC-32 of a corpus's sizes, offsets and word ids: two corpora with different documents have
 * different fingerprints except with probability about 2^-32.
 *
 * Work O(D + T), over the OpenMP threads on little-endian hosts (the value does not depend on the thread
 * count).
 * \param c the corpus.
 * \return the fingerprint.
 */
uint32_t sk_lda_corpus_fingerprint(const sk_lda_corpus *c);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CHECKPOINT_H */
