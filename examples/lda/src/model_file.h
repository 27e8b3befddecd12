/**
 * \file model_file.h
 * \brief Binary files of sk-lda: the model file (what `sk-lda infer` loads and `train --resume` continues
 * from) and the topic-assignment (z) file; plus the resume that rebuilds a training model from the two.
 *
 * MODEL FILE (format versions 1 and 2). All integers and floats little-endian, no padding:
 * \verbatim
 *   offset  size     field
 *   0       8        magic, the bytes "SKLDAMOD"
 *   8       4        uint32 format version = 1, or 2 when the model has per-topic priors alpha_k
 *   12      4        uint32 flags: bit 0 set = a vocabulary follows; bit 1 set = per-topic priors follow
 *                    (set in version 2, always; 0 in version 1); other bits 0
 *   16      4        int32 K, number of topics, 1 .. SK_LDA_MAX_TOPICS
 *   20      4        int32 V, vocabulary size, >= 1
 *   24      8        float64 alpha (IEEE-754), finite and > 0: the symmetric prior (the one the run started
 *                    from when alpha_k follows)
 *   32      8        float64 beta, finite and > 0 (the model's: the learnt one when its priors were learnt)
 *   40      8        uint64 iterations: training sweeps completed when the file was written
 *   48      8        uint64 seed of the run
 *   56      ...      vocabulary, only when flags bit 0: V entries, each a uint32 byte length L >= 1 then L
 *                    bytes of the word (no terminator; no NUL byte inside)
 *   then    8 K      only when flags bit 1 (version 2): float64 alpha_k, k = 0 .. K-1, each finite and > 0
 *   then    4 V K    n_vk, int32 >= 0, V x K row-major (word v's K counts together)
 *   then    8 K      n_k, int64, n_k[k] = sum_v n_vk[v][k]
 *   then    4        CRC-32 (zlib crc32(), the ISO-HDLC / PNG polynomial) of every byte before it
 * \endverbatim
 * The file is exactly this long. A model without per-topic priors is written as version 1, the bytes it
 * always had; readers take both versions. Readers check, in this order and each with an error naming the file:
 * the magic ("not an sk-lda model file"), the CRC ("checksum mismatch (file is corrupt)"), the version
 * ("unsupported format version"), the flags and the sizes against the file length, every field's range,
 * and that n_k equals the column sums of n_vk. A file that passes the CRC but fails a later check was
 * written wrongly, not damaged on the way. Any byte flipped outside the magic fails the CRC check.
 *
 * Z FILE (format version 1), the topic of every training token in corpus order:
 * \verbatim
 *   0       8        magic, the bytes "SKLDAZZZ"
 *   8       4        uint32 format version = 1
 *   12      8        int64 T, number of tokens, >= 0
 *   20      4        int32 K, number of topics, 1 .. SK_LDA_MAX_TOPICS
 *   24      4 T      int32 z[t] in [0, K)
 *   then    4        CRC-32 of every byte before it
 * \endverbatim
 * Checked like the model file (magic, CRC, version, length = 28 + 4 T, ranges).
 *
 * Both are written to PATH ".tmp" and renamed (see output.h), so an interrupted run never leaves a half
 * file under PATH. Reading streams the file twice (checksum, then fields), so memory is the result only.
 * Errors: functions returning int give 0 on success and non-zero on failure with err filled (corpus.h).
 * Threading: no shared state.
 */
#ifndef SK_LDA_MODEL_FILE_H
#define SK_LDA_MODEL_FILE_H

#include <stdint.h>

#include "corpus.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The model file's format version. */
#define SK_LDA_MODEL_FILE_VERSION 1u
/** \brief The model file's format version when it holds per-topic priors (flags bit 1). */
#define SK_LDA_MODEL_FILE_VERSION_PRIORS 2u
/** \brief The z file's format version. */
#define SK_LDA_Z_FILE_VERSION 1u

/**
 * \brief The contents of a model file.
 *
 * Filled by sk_lda_model_file_read() (owning: free it with sk_lda_model_file_free()), or by a caller for
 * sk_lda_model_file_write() (then only read).
 */
typedef struct sk_lda_model_file {
  int32_t num_topics; /**< K */
  int32_t num_words;  /**< V */
  double alpha;       /**< the document-topic prior */
  double beta;        /**< the topic-word prior */
  uint64_t iterations; /**< sweeps completed */
  uint64_t seed;      /**< the seed of the run */
  char **vocab;   /**< V NUL-terminated words, or NULL when the model has no vocabulary */
  int32_t *n_vk;  /**< V x K, row-major */
  int64_t *n_k;   /**< K */
  /** K per-topic document-topic priors (version 2), or NULL: alpha for every topic (version 1). Owned when
      read; only read by the writer. */
  double *alpha_k;
} sk_lda_model_file;

/**
 * \brief Frees what a read model file owns and zeroes it; NULL or zeroed is fine.
 * \param mf the model file.
 */
void sk_lda_model_file_free(sk_lda_model_file *mf);

/**
 * \brief Writes `mf` as a model file at PATH (temporary name and rename).
 *
 * Work O(V K).
 * \param path the file (PATH).
 * \param mf the model file.
 * \param err filled on failure.
 * \return 0 on success; non-zero when a pointer (other than mf->vocab) is NULL, a field is out of the
 *         ranges above (a vocabulary word empty or a n_k that is not the column sum included), or on an I/O
 *         error; PATH is then untouched.
 */
int sk_lda_model_file_write(const char *path, const sk_lda_model_file *mf, sk_ex_error *err);

/**
 * \brief Writes the model file of a training model after `iterations` sweeps: K, V, alpha, beta, seed,
 * alpha_k (version 2 when set) and the counts come from m, the vocabulary from `vocab`.
 * \param path the file.
 * \param m the training model.
 * \param vocab V words, or NULL for none (the training corpus of a split has none, its source corpus has).
 * \param iterations the sweeps done.
 * \param err filled on failure.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_model_save(const char *path, const sk_lda_model *m, char *const *vocab, uint64_t iterations,
                      sk_ex_error *err);

/**
 * \brief Reads and checks a model file (see above) into *out, which is overwritten and left zeroed on
 * failure.
 *
 * Malformed or truncated input of any kind is an error, never a crash; sizes are checked against the file
 * length before anything is allocated. Work O(file size).
 * \param path the file.
 * \param out receives the model file; free with sk_lda_model_file_free().
 * \param err filled on failure, naming the file.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_model_file_read(const char *path, sk_lda_model_file *out, sk_ex_error *err);

/**
 * \brief Writes T topics z[0 .. T) (each in [0, K)) as a z file at PATH.
 * \param path the file (PATH).
 * \param z the T topics.
 * \param num_tokens T.
 * \param num_topics K.
 * \param err filled on failure.
 * \return 0 on success; non-zero on NULL z with T > 0, T < 0, K out of range, a topic out of range, or an
 *         I/O error.
 */
int sk_lda_z_write(const char *path, const int32_t *z, int64_t num_tokens, int32_t num_topics,
                   sk_ex_error *err);

/**
 * \brief Reads and checks a z file.
 *
 * On failure the outputs are untouched.
 * \param path the file.
 * \param z_out on success, a malloc'ed array of *num_tokens topics (free() it; never NULL, also when T = 0).
 * \param num_tokens receives T on success.
 * \param num_topics receives K on success.
 * \param err filled on failure, naming the file.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_z_read(const char *path, int32_t **z_out, int64_t *num_tokens, int32_t *num_topics, sk_ex_error *err);

/**
 * \brief Resume: rebuilds the training model of a run from its model file and z file and the same training
 * corpus `train` (borrowed by *m, as in sk_lda_model_init()).
 *
 * Checks, each a clear error naming the file: V of the model file equals train->num_words; when both
 * `vocab` (the training vocabulary, may be NULL) and the file have a vocabulary, the words are equal; the
 * z file's K equals the model's and its T equals train->num_tokens; then m is initialised with the file's
 * K, alpha, beta, seed and per-topic priors (alpha_k, when the file has them), its topics are set to z (sk_lda_model_set_z(), which rebuilds every count), and
 * the rebuilt n_vk and n_k must equal the file's exactly (else the files do not belong to this corpus, or
 * to each other).
 * A sweep's random numbers depend on (seed, sweep number, token), so the resumed run must go on with the
 * sweep that follows the last one done to reproduce an uninterrupted run exactly: sk-lda train numbers its
 * sweeps 1, 2, ..., so it continues with sweep *iterations + 1.
 * Work O(file sizes + T log K + V K); memory that of the model plus 4 V K + 4 T bytes while loading.
 * \param m receives the model; zeroed on failure.
 * \param train the training corpus (borrowed by *m).
 * \param vocab the training vocabulary, or NULL.
 * \param model_path the model file.
 * \param z_path the z file.
 * \param iterations on success, the file's iteration count: the number of sweeps done; untouched on
 *        failure.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero on failure (*m is then zeroed and *iterations untouched).
 */
int sk_lda_model_resume(sk_lda_model *m, const sk_lda_corpus *train, char *const *vocab, const char *model_path,
                        const char *z_path, uint64_t *iterations, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_MODEL_FILE_H */
