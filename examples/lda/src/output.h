/**
 * \file output.h
 * \brief Text outputs of an sk-lda run: the top words of each topic (topics.txt), the document-topic
 * proportions (sparse text), and the metrics log (CSV). Every sk-lda output file (these and the binary
 * files of model_file.h) is written through the examples' temporary-name-and-rename protocol
 * (sk_ex_files.h).
 *
 * Errors: functions returning int give 0 on success and non-zero on failure, with err filled (when not
 * NULL) by one line that names the file (see corpus.h).
 * Every file is written to PATH ".tmp" in the same folder, flushed to disk (fsync; not the metrics log)
 * and renamed to PATH, so an interrupted run leaves either the old file or the complete new one under
 * PATH, never a half file; on failure the temporary file is removed. Two writers of one PATH at
 * a time are not supported.
 * Threading: the functions share no state; calls on different files may run concurrently.
 */
#ifndef SK_LDA_OUTPUT_H
#define SK_LDA_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "corpus.h"
#include "model.h"
#include "sk_ex_files.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Default number of words per topic in topics.txt. */
#define SK_LDA_DEFAULT_TOP_WORDS 20

/**
 * \brief Writes topics.txt.
 *
 * Three '#' comment lines (what the file is, then "K=.. V=.. beta=..", then the formula),
 * then for each topic k = 0 .. K-1 a line "topic k" followed by min(top_n, V) lines
 * `"<TAB>word<TAB>probability"`: the words with the largest
 *
 *     phi_kv = (n_vk + beta) / (n_k + V beta),
 *
 * by decreasing n_vk (which orders phi_kv within a topic), ties by increasing word id, probability
 * printed with "%.6g". Words are vocab[v], or "w%06d" of the 0-based id when vocab is NULL (the naming
 * of gen.h's planted topics file, whose layout this is, so the two can be compared line by line).
 * n_vk is V x K row-major (as in sk_lda_model and the model file), n_k has K entries.
 * Work O(V K top_n) worst case, O(V K) typical; memory 12 K top_n bytes. Deterministic.
 * \param path the file.
 * \param n_vk V x K row-major word-topic counts.
 * \param n_k K topic totals.
 * \param num_words V.
 * \param num_topics K.
 * \param beta the topic-word prior.
 * \param vocab the words, or NULL.
 * \param top_n words per topic.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero when a pointer (other than vocab) is NULL, K or V < 1, top_n < 1, beta is
 *         not finite and positive, or on an I/O error or out of memory.
 */
int sk_lda_write_topics(const char *path, const int32_t *n_vk, const int64_t *n_k, int32_t num_words,
                        int32_t num_topics, double beta, char *const *vocab, int top_n, sk_ex_error *err);

/**
 * \brief sk_lda_write_topics()'s text written to a stream instead of a file (what `sk-lda topics` prints:
 * the same bytes for the same model and top_n).
 * \param f the stream.
 * \param n_vk V x K row-major word-topic counts.
 * \param n_k K topic totals.
 * \param num_words V.
 * \param num_topics K.
 * \param beta the topic-word prior.
 * \param vocab the words, or NULL.
 * \param top_n words per topic.
 * \param err filled on failure.
 * \return 0 on success; non-zero on the argument errors of sk_lda_write_topics() or out of memory. Write
 *         errors are the stream's: the caller checks ferror() (or fflush()) afterwards.
 */
int sk_lda_print_topics(FILE *f, const int32_t *n_vk, const int64_t *n_k, int32_t num_words, int32_t num_topics,
                        double beta, char *const *vocab, int top_n, sk_ex_error *err);

/**
 * \brief phi's normaliser of topic k, 1 / (n_k + V beta): phi_kv = (n_vk + beta) * sk_lda_phi_scale(n_k, V,
 * beta). The one place of the formula that topics.txt, `sk-lda topics` and phi.npy (phi.h) share, with
 * the same operations in the same order, so that phi.npy holds the float32 rounding of the printed values.
 * \param n_k the topic's total count.
 * \param num_words V.
 * \param beta the topic-word prior.
 * \return 1 / (n_k + V beta).
 */
static inline double sk_lda_phi_scale(int64_t n_k, int32_t num_words, double beta) {
  return 1.0 / ((double)n_k + (double)num_words * beta);
}

/**
 * \brief Each topic's top words, as topics.txt lists them: by decreasing n_vk, ties by increasing word id.
 *
 * Topic k's i-th word is word[k * per_topic + i], its count count[k * per_topic + i], i < per_topic.
 */
typedef struct sk_lda_top_words {
  int32_t num_topics; /**< K */
  int32_t per_topic;  /**< min(top_n, V) */
  int32_t *word;      /**< K x per_topic word ids */
  int32_t *count;     /**< K x per_topic counts n_vk */
} sk_lda_top_words;

/**
 * \brief Finds each topic's min(top_n, V) words with the largest n_vk (ties by increasing word id).
 *
 * Work O(V K top_n) worst case, O(V K) typical; memory 8 K min(top_n, V) bytes. Deterministic.
 * \param t receives the lists; free with sk_lda_top_words_free(); zeroed on failure.
 * \param n_vk V x K row-major word-topic counts.
 * \param num_words V.
 * \param num_topics K.
 * \param top_n words per topic.
 * \param err filled on failure.
 * \return 0 on success; non-zero when n_vk is NULL, K or V < 1, top_n < 1, or out of memory.
 */
int sk_lda_top_words_find(sk_lda_top_words *t, const int32_t *n_vk, int32_t num_words, int32_t num_topics, int top_n,
                          sk_ex_error *err);

/**
 * \brief Frees the lists and zeroes them; NULL or zeroed is fine.
 * \param t the lists.
 */
void sk_lda_top_words_free(sk_lda_top_words *t);

/**
 * \brief A word as sk-lda's outputs name it: vocab[v], or "w%06d" of the 0-based id when vocab (or
 * vocab[v]) is NULL.
 * \param vocab the words, or NULL.
 * \param v the word id.
 * \param buf receives the id form (16 bytes are enough).
 * \param cap bytes of buf.
 * \return vocab[v] or buf.
 */
const char *sk_lda_word_name(char *const *vocab, int32_t v, char *buf, size_t cap);

/**
 * \brief Document-topic proportions, sparse text.
 *
 * One '#' comment line stating the format, K and alpha, then one line per document d = 0 .. num_docs-1:
 *
 *     doc_id k:prob k:prob ...
 *
 * doc_id is doc_ids[d] (or d when doc_ids is NULL): the 0-based index of the document in its input
 * corpus (document d of a UCI file is its docID d+1). The listed topics are those with n_dk > 0, in
 * increasing k, with
 *
 *     prob = theta_dk = (n_dk + alpha) / (n_d + K alpha),   n_d = sum_k n_dk,
 *
 * printed with "%.6g"; every topic not listed has theta_dk = alpha / (n_d + K alpha), which is also
 * (1 - sum of the listed probabilities) / (K - number listed). A document with no tokens is a line with
 * its id alone (theta = 1/K everywhere).
 * Rows use sk_lda_model's sparse layout: document d's pairs are (row_topic[i], row_count[i]) for i in
 * [row_start[d], row_start[d] + row_nnz[d]), topics strictly increasing, counts positive.
 * Work O(D + nnz).
 * \param path the file.
 * \param num_docs the documents.
 * \param num_topics K.
 * \param alpha the document-topic prior.
 * \param row_start where each document's pairs start.
 * \param row_nnz each document's number of pairs.
 * \param row_topic the pairs' topics.
 * \param row_count the pairs' counts.
 * \param doc_ids each document's id, or NULL.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero when a pointer (other than doc_ids) is NULL, K < 1, num_docs < 0, alpha is
 *         not finite and positive, a row is not strictly increasing in [0, K) with positive counts, or on
 *         an I/O error.
 */
int sk_lda_write_doc_topics(const char *path, int32_t num_docs, int32_t num_topics, double alpha,
                            const int64_t *row_start, const int32_t *row_nnz, const int32_t *row_topic,
                            const int32_t *row_count, const int32_t *doc_ids, sk_ex_error *err);

/**
 * \brief sk_lda_write_doc_topics() with per-topic document-topic priors: for alpha_k not NULL each listed
 * topic has theta_dk = (n_dk + alpha_k[k]) / (n_d + A), A = sum_k alpha_k (sk_lda_prior_alpha_sum()), and
 * the comment line states K and A ("K=.. per-topic alpha_k, sum_k alpha_k=.."; an unlisted topic has
 * alpha_k / (n_d + A)). alpha_k NULL writes exactly sk_lda_write_doc_topics()'s bytes.
 * \param path the file.
 * \param num_docs the documents.
 * \param num_topics K.
 * \param alpha the symmetric document-topic prior (checked; used when alpha_k is NULL).
 * \param alpha_k K per-topic priors (each finite and > 0), or NULL.
 * \param row_start where each document's pairs start.
 * \param row_nnz each document's number of pairs.
 * \param row_topic the pairs' topics.
 * \param row_count the pairs' counts.
 * \param doc_ids each document's id, or NULL.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero as sk_lda_write_doc_topics(), or when a prior is not finite and positive.
 */
int sk_lda_write_doc_topics_priors(const char *path, int32_t num_docs, int32_t num_topics, double alpha,
                                   const double *alpha_k, const int64_t *row_start, const int32_t *row_nnz,
                                   const int32_t *row_topic, const int32_t *row_count, const int32_t *doc_ids,
                                   sk_ex_error *err);

/**
 * \brief sk_lda_write_doc_topics_priors() of a training model's documents (m->dk_*) with its priors
 * (m->alpha, m->alpha_k).
 * \param path the file.
 * \param m the training model.
 * \param doc_ids each document's id, or NULL.
 * \param err filled on failure, naming the file.
 * \return 0 on success, non-zero on failure.
 */
int sk_lda_write_model_doc_topics(const char *path, const sk_lda_model *m, const int32_t *doc_ids,
                                  sk_ex_error *err);

/**
 * \brief Metrics log (CSV).
 *
 * The header line is (one line)
 *
 *     iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll,
 *     sample_s,tables_s,a_rebuild_s,b_rebuild_s,metrics_s,device_bytes_peak,alpha_sum,beta
 *
 * and each sk_lda_metrics_log_row() appends one line. The log keeps its whole text in memory. Opening
 * it writes PATH through a temporary name and a rename; each row is then appended to the open file with
 * one write, and a write that falls short is cut back off the file (ftruncate) before the call fails
 * (no fsync: the file is small and a row can be recomputed). So the file is readable while a run goes
 * on, holds every finished row, and is never half written, whenever the process is killed; a row costs
 * the same at the thousandth sweep as at the first (a rewrite per row cost O(rows), and with
 * `--ll-every 1` the rewrites were part of every sweep's wall time, issue 32). Numbers: iteration as an unsigned integer,
 * seconds "%.6f", tokens_per_s "%.1f", the two log-likelihoods "%.17g" (exact round trip), the five
 * time columns "%.6f", device_bytes_peak an integer, alpha_sum and beta "%.17g" (the priors the row's
 * sweep ended with: sum_k alpha_k and beta after that sweep's optimisation, hyper.h, or the fixed values;
 * sk_lda_metrics_priors); a value that is not known (NaN, e.g. held-out LL in an iteration where it was
 * not computed; a time column a sampler cannot measure; the priors of a row written without them) is an
 * empty field.
 * What `seconds` means is the caller's choice (sk-lda train writes the training time, continued
 * across a resume). The first five columns come first and keep their order, and every later column was
 * appended after those before it: readers that take columns by position read the older five- and
 * eleven-column logs and these alike.
 */
typedef struct sk_lda_metrics_log {
  char *text;  /**< the file's contents: the header and every row so far */
  size_t len, /**< bytes of text */ cap; /**< bytes allocated for text */
  char path[4096]; /**< the file (PATH) */
  FILE *file;      /**< PATH open for appending rows, or NULL (then a row rewrites the whole file) */
  size_t file_len; /**< bytes of text the file holds */
} sk_lda_metrics_log;

/**
 * \brief The time and memory columns of a row, as sk-lda train fills them.
 *
 * The time per sweep split into its parts (SaberLDA's Figure 9), each the seconds spent so far in the run
 * (continued across a resume):
 * \verbatim
 *   sample_s     drawing the topics (device time of a GPU sampler)
 *   tables_s     building B_hat and the word tables or trees before the draws
 *   a_rebuild_s  rebuilding A (the document-topic counts) from z
 *   b_rebuild_s  rebuilding B and n_k from z
 *   metrics_s    computing the joint and held-out log-likelihoods (wall time)
 * \endverbatim
 * and device_bytes_peak, the most device memory the run's sampler and metrics held at once. A CPU
 * sampler cannot split its sweeps: its four sweep columns are empty (NaN), as is device_bytes_peak (<= 0).
 */
typedef struct sk_lda_metrics_times {
  /** The seconds of each part of the sweeps (see above); NaN or < 0: not known (empty field). */
  /** \{ */
  double sample_s, tables_s, a_rebuild_s, b_rebuild_s;
  /** \} */
  double metrics_s;                                    /**< NaN or < 0: not known (empty field) */
  int64_t device_bytes_peak;                           /**< <= 0: none (empty field) */
} sk_lda_metrics_times;

/**
 * \brief The prior columns of a row (sk_lda_metrics_log_row_priors()).
 */
typedef struct sk_lda_metrics_priors {
  double alpha_sum; /**< the sum of the document-topic priors (sk_lda_model_alpha_sum()); NaN: empty field */
  double beta;      /**< the topic-word prior; NaN: empty field */
} sk_lda_metrics_priors;

/**
 * \brief Starts a log at PATH and writes it at once: with the header alone, or, when `text` is not NULL or
 * empty, with `text` (an earlier log's contents, which must start with the header: a resumed run
 * continues the rows its checkpoint kept).
 *
 * A log of an earlier header is continued too: the five-column one (its rows given empty time and prior
 * columns) and the eleven-column one (its rows given empty prior columns).
 * \param log the log; zeroed on failure.
 * \param path the file (PATH).
 * \param text an earlier log's contents, or NULL or empty.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero, *log zeroed, on failure (out of memory, a bad `text`, or the file cannot
 *         be written; err names it).
 */
int sk_lda_metrics_log_open(sk_lda_metrics_log *log, const char *path, const char *text, sk_ex_error *err);

/**
 * \brief Whether the file at PATH is a metrics log of sk-lda's (it starts with the metrics header, this
 * version's or an earlier one's) or empty: what a run leaves before its first checkpoint, as against a
 * file of the same name that someone else wrote.
 * \param path the file.
 * \return 1 when so, 0 otherwise (also when it cannot be read).
 */
int sk_lda_metrics_file_is_log(const char *path);

/**
 * \brief Appends one row with its prior columns and rewrites the file.
 * \param log the log.
 * \param iteration the sweep.
 * \param seconds the time column (the caller's choice).
 * \param tokens_per_s the throughput.
 * \param joint_ll_per_token the joint log-likelihood per token (NaN: not known).
 * \param heldout_ll the held-out log-likelihood per token (NaN: not known).
 * \param times the time and memory columns; may be NULL (its columns empty).
 * \param priors the prior columns; may be NULL (its columns empty).
 * \param err names the file on failure.
 * \return 0 on success; non-zero on a NULL or closed log or a write error (err names the file); the row
 *         is then not in the log.
 */
int sk_lda_metrics_log_row_priors(sk_lda_metrics_log *log, uint64_t iteration, double seconds, double tokens_per_s,
                                  double joint_ll_per_token, double heldout_ll, const sk_lda_metrics_times *times,
                                  const sk_lda_metrics_priors *priors, sk_ex_error *err);

/**
 * \brief sk_lda_metrics_log_row_priors() without the priors (their columns empty).
 * \param log the log.
 * \param iteration the sweep.
 * \param seconds the time column (the caller's choice).
 * \param tokens_per_s the throughput.
 * \param joint_ll_per_token the joint log-likelihood per token (NaN: not known).
 * \param heldout_ll the held-out log-likelihood per token (NaN: not known).
 * \param times the time and memory columns; may be NULL (its columns empty).
 * \param err names the file on failure.
 * \return 0 on success; non-zero on a NULL or closed log or a write error (err names the file); the row
 *         is then not in the log.
 */
int sk_lda_metrics_log_row(sk_lda_metrics_log *log, uint64_t iteration, double seconds, double tokens_per_s,
                           double joint_ll_per_token, double heldout_ll, const sk_lda_metrics_times *times,
                           sk_ex_error *err);

/**
 * \brief The time columns of the log's last row, for a resumed run to continue them: an empty field, or a
 * log with no row, gives 0 (seconds) and 0 (bytes). NULL arguments give zeros / are ignored.
 * \param log the log.
 * \param out receives the columns.
 */
void sk_lda_metrics_log_last_times(const sk_lda_metrics_log *log, sk_lda_metrics_times *out);

/**
 * \brief Frees the log's memory (the file stays); NULL or closed is fine.
 * \param log the log.
 */
void sk_lda_metrics_log_close(sk_lda_metrics_log *log);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_OUTPUT_H */
