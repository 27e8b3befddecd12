/**
 * \file coherence.h
 * \brief Topic coherence of a model's top words over a corpus, by document co-occurrence: UMass (Mimno
 * et al. 2011) and NPMI (Bouma 2009; Aletras & Stevenson 2013). On the CPU, in double precision.
 *
 * COUNTS. D is the number of documents of the corpus (empty ones included); D(w) is the number of
 * documents that contain word w at least once; D(w_i, w_j) the number that contain both. Each topic k
 * has N top words v_1 .. v_N by rank (sk_lda_top_words() of output.h: decreasing n_kv, ties by
 * increasing word id; v_1 is the most frequent in the topic).
 *
 * UMASS of topic k, the mean over its N(N-1)/2 ordered pairs (Mimno et al. write the sum, which is P
 * times this; gensim's 'u_mass' also reports the mean, but smooths with 1e-12 added to D(v_i, v_j)/D in
 * place of the +1, so its values differ where pairs are rare):
 * \verbatim
 *   UMass_k = (1/P) sum_{i=2..N} sum_{j=1..i-1} log( (D(v_i, v_j) + 1) / D(v_j) ),   P = N(N-1)/2
 * \endverbatim
 * conditioning each word on a higher-ranked one. The +1 is the only smoothing (Mimno et al.'s). A term
 * whose conditioning word v_j does not occur in the corpus (D(v_j) = 0, a top word absent from the
 * corpus) is log(1/D), the least value any term can take (D(v_i, v_j) = 0, D(v_j) = D): there is no
 * division by zero and an absent word lowers the score, never raises it. (An absent v_i with a present v_j
 * needs no rule: its term is log(1/D(v_j)).) Each term is <= log 2; UMass_k is in [-log D, log 2].
 *
 * NPMI of topic k, the mean over its P unordered pairs, with p(w) = D(w)/D and p(w_i, w_j) = D(w_i, w_j)/D:
 * \verbatim
 *   NPMI(w_i, w_j) = log( p_ij / (p_i p_j) ) / ( -log p_ij )     when 0 < p_ij < 1
 *                  = -1                                         when p_ij = 0 (never together)
 *                  = +1                                         when p_ij = 1 (both in every document)
 *   NPMI_k = (1/P) sum_{i<j} NPMI(v_i, v_j)
 * \endverbatim
 * No epsilon: p_ij = 0 is the only case the formula cannot take, and -1 is its limit (gensim adds 1e-12
 * to p_ij instead, which gives -1 + log(1/(p_i p_j)) / log(1e12) there, not -1). p_ij = 1 forces
 * p_i = p_j = 1 and 0/0; +1 is the limit of complete co-occurrence (p_i = p_j = p_ij = p gives 1 for every
 * p < 1). A word absent from the corpus has p_ij = 0 with every other: its pairs score -1. Every value is in
 * [-1, 1]; no NaN or infinity comes out for any input that passes the checks.
 *
 * PAIR LAYOUT. The counts of topic k's pair (rank i, rank j), 0-based ranks j < i, are at
 * pair_count[k P + SK_LDA_COHERENCE_PAIR(i, j)]; doc_count[k N + r] is D of topic k's word of rank r.
 *
 * Errors: functions returning int give 0 on success and non-zero on failure with err filled (corpus.h).
 * Threading: no shared state; the counts are integers added up over OpenMP threads (documents split
 * among them), so every result is the same for any thread count.
 */
#ifndef SK_LDA_COHERENCE_H
#define SK_LDA_COHERENCE_H

#include <stdint.h>

#include "corpus.h"
#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The index of the pair of 0-based ranks (i, j), j < i, among a topic's N(N-1)/2 pairs. */
#define SK_LDA_COHERENCE_PAIR(i, j) ((int64_t)(i) * ((int64_t)(i)-1) / 2 + (int64_t)(j))

/**
 * \brief The document counts of every topic's top words and of their pairs (see above).
 *
 * Each document's distinct top words are found once (a V-sized map from a word to its (topic, rank)
 * slots), then each topic's pairs among them are counted: work O(T + sum over documents of the slots in
 * the document, squared within each topic), not O(K N^2 D); memory 4 (2 V + 3 K N) bytes shared plus
 * 4 (2 U + K N + 2 K) per thread, U <= K N the distinct top words. Deterministic for any thread count.
 * \param corpus the documents (tokens in [0, V), V = corpus->num_words); at least one document.
 * \param top_word K x N word ids, topic k's words of ranks 0 .. N-1 at top_word[k N ..]; each in [0, V),
 *        distinct within a topic.
 * \param num_topics K >= 1.
 * \param top_n N, 2 <= N <= V.
 * \param threads OpenMP threads (<= 0: the OpenMP default; 1 without OpenMP).
 * \param doc_count receives K x N counts D(v): doc_count[k N + r] for topic k's word of rank r.
 * \param pair_count receives K x N(N-1)/2 counts D(v_i, v_j), laid out by SK_LDA_COHERENCE_PAIR.
 * \param err filled on failure.
 * \return 0 on success; non-zero when a pointer is NULL, the corpus has no document, K < 1, N is out of
 *         [2, V], a top word is out of range or repeated within its topic, a token is out of range, or
 *         out of memory (the outputs are then undefined).
 */
int sk_lda_coherence_count(const sk_lda_corpus *corpus, const int32_t *top_word, int32_t num_topics, int32_t top_n,
                           int threads, int32_t *doc_count, int32_t *pair_count, sk_ex_error *err);

/**
 * \brief UMass and NPMI of each topic (the formulas above) from the counts of sk_lda_coherence_count().
 *
 * Work O(K N^2) logarithms. Deterministic (a fixed order of summation).
 * \param num_docs D >= 1.
 * \param num_topics K >= 1.
 * \param top_n N >= 2.
 * \param doc_count K x N counts, each in [0, D].
 * \param pair_count K x N(N-1)/2 counts, each at most the smaller of its two words' counts.
 * \param umass receives K values, or NULL for none.
 * \param npmi receives K values, or NULL for none.
 * \param err filled on failure.
 * \return 0 on success; non-zero when doc_count or pair_count is NULL, a size is out of range, or a count
 *         is inconsistent (out of [0, D], or a pair count above one of its words' counts).
 */
int sk_lda_coherence_scores(int32_t num_docs, int32_t num_topics, int32_t top_n, const int32_t *doc_count,
                            const int32_t *pair_count, double *umass, double *npmi, sk_ex_error *err);

/**
 * \brief sk_lda_coherence_count() then sk_lda_coherence_scores(), the counts held inside.
 * \param corpus the documents.
 * \param top_word K x N word ids.
 * \param num_topics K.
 * \param top_n N.
 * \param threads OpenMP threads (<= 0: the OpenMP default).
 * \param umass receives K values, or NULL.
 * \param npmi receives K values, or NULL.
 * \param err filled on failure.
 * \return 0 on success; non-zero on the failures of the two functions.
 */
int sk_lda_coherence(const sk_lda_corpus *corpus, const int32_t *top_word, int32_t num_topics, int32_t top_n,
                     int threads, double *umass, double *npmi, sk_ex_error *err);

/**
 * \brief Writes the scores as CSV through the temporary-name-and-rename protocol (sk_ex_files.h).
 *
 * A header line `topic,umass,npmi,top_words`, then one line per topic k = 0 .. K-1: k, UMass and NPMI
 * printed with "%.17g" (exact round trip), and the N words by rank separated by single spaces, in double
 * quotes with any quote doubled (RFC 4180). Words are vocab[v], or "w%06d" of the id when vocab is NULL
 * (topics.txt's naming).
 * \param path the file.
 * \param num_topics K.
 * \param top_n N.
 * \param top_word K x N word ids.
 * \param vocab the words, or NULL.
 * \param umass K values.
 * \param npmi K values.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero on a NULL pointer (other than vocab), K or N < 1, or an I/O error.
 */
int sk_lda_write_coherence_csv(const char *path, int32_t num_topics, int32_t top_n, const int32_t *top_word,
                               char *const *vocab, const double *umass, const double *npmi, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_COHERENCE_H */
