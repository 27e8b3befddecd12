/**
 * \file gen.h
 * \brief Synthetic corpora for sk-lda (`sk-lda gen`): a corpus drawn from the LDA generative process with planted
 * topics, written in UCI bag-of-words form or as a binary corpus (corpus_binary.h), with the planted topics
 * beside it.
 *
 * THE GENERATIVE CONSTRUCTION (what sk_lda_generate draws; D documents, V words, K topics)
 *
 * 1. Zipf base measure. Word v (0-based id, vocabulary name "w%06d" of v) has Zipf weight
 *    z_v = (v + 1)^(-s), s = zipf_exponent: word id is frequency rank, so w000000 is the most common word.
 *
 * 2. Topics. Topic k has its own support S_k: m = max(1, round(topic_support * V)) distinct words chosen
 *    uniformly at random (a partial Fisher-Yates shuffle of 0 .. V-1). Its base measure is the Zipf weight
 *    restricted to the support, b_k(v) = z_v / sum_{u in S_k} z_u for v in S_k and 0 elsewhere, and
 *        phi_k ~ Dirichlet(beta * V * b_k)   (over S_k; phi_k(v) = 0 outside S_k).
 *    So beta is the mean per-word concentration over the whole vocabulary: with zipf_exponent = 0 and
 *    topic_support = 1 this is exactly LDA's symmetric phi_k ~ Dirichlet(beta, ..., beta). E[phi_k] = b_k,
 *    so every topic favours the frequent words of its support, frequent words lie in many topics, and the
 *    corpus-wide word frequencies decay like the Zipf weights, as in text; small beta makes each phi_k
 *    spiky (few words with most of the mass), large beta makes it close to b_k.
 *
 * 3. Documents. Document d has length L_d = 1 + floor(Y_d + U_d) with U_d uniform on [0, 1) and Y_d
 *    log-normal with mean (mean_doc_length - 1) and coefficient of variation doc_length_cv:
 *    Y_d = (mean_doc_length - 1) exp(sigma N - sigma^2 / 2), sigma^2 = log(1 + cv^2), N standard normal.
 *    The randomised rounding keeps the mean exact: E[L_d] = mean_doc_length, and L_d >= 1 always. With
 *    cv = 0 and an integer mean every document has exactly mean_doc_length tokens. (For large means the
 *    coefficient of variation of L_d is close to cv; it is exactly the cv of L_d - 1 before rounding.)
 *    theta_d ~ Dirichlet(alpha, ..., alpha) over the K topics, and each of its L_d tokens draws its topic
 *    z ~ Categorical(theta_d) and then its word w ~ Categorical(phi_z).
 *
 * RANDOM NUMBERS AND DETERMINISM
 * Every draw comes from the counter-based Philox generator of samplekit/rng.h under the caller's seed,
 * from a stream that belongs to exactly one consumer, so the corpus is a pure function of the parameters
 * (on one platform: the Dirichlet draws go through libm's log, exp, sqrt and cos) and does not depend on
 * the order in which documents or topics are made, so they are made in parallel and the output is the
 * same bits for any thread count:
 *   stream SK_LDA_GEN_STREAM_TOPIC + k: topic k; its i-th uniform is sk_rng_uniform_f64(seed, stream, i):
 *       first the m draws of the support shuffle, then the Gamma draws of phi_k in support order.
 *   stream SK_LDA_GEN_STREAM_DOC + d: document d; uniforms 0 and 1 give N (Box-Muller), 2 gives U_d,
 *       then from 3 on the K Gamma draws of theta_d in topic order.
 *   stream SK_LDA_GEN_STREAM_TOKEN + d: document d's tokens; token j uses block j of sk_rng_u32x4():
 *       the 64-bit uniform (x << 32) | y draws the topic, (z << 32) | w the word.
 * Gamma(a) variates: Marsaglia and Tsang (ACM TOMS 26(3), 2000) with Box-Muller normals; for a < 1,
 * Gamma(a + 1) U^(1/a). They are kept as logarithms and normalised with the maximum subtracted, so tiny
 * Dirichlet parameters (beta * V * b_k(v) can be 1e-9) give exact zeros or tiny values, never 0/0.
 * Categorical draws use Walker/Vose alias tables (one per topic over its support, built once: O(K V);
 * one per document over K topics): a 64-bit uniform x gives the cell floor(x n / 2^64) and, from the
 * fractional part of x n, the coin of that cell, so a draw is exact to within n / 2^64.
 *
 * PARALLEL CONSTRUCTION (OpenMP, params->threads threads): the topics in parallel (each thread keeps a
 * V-word permutation at the identity and undoes its m swaps after each topic, so a topic costs O(m));
 * then every document's length in parallel, a prefix sum into the offsets, and every document's theta,
 * alias table and tokens in parallel, each into its own token range.
 *
 * Complexity: O(V + K m + D K + T) work for T tokens; memory 8 (D + 1) + 4 T bytes of corpus (plus 4 T
 * for the optional topics), 12 m K bytes of alias tables, 4 K V for the optional phi and 4 D K for the
 * optional theta, and per thread 4 V + 44 max(m, K) bytes of scratch.
 * Measured (gcc -O3, Release, a 2-core VM): D = 300,000, T = 10^8, V = 100,000, K = 100, support 0.1
 * generates in 9.5-11 s on one core and 4-5.5 s on two; sk_lda_write_uci() writes its 0.92 GB docword
 * file in 4.7 s on one core and 2.5-3.3 s on two, sk_lda_write_binary() its 0.40 GB binary corpus in
 * 0.7-1.0 s, fsync included (examples/lda/README.md).
 * Not thread-safe on one output; distinct calls share nothing.
 */
#ifndef SK_LDA_GEN_H
#define SK_LDA_GEN_H

#include <stdint.h>

#include "corpus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Stream id of topic k's draws (plus k; see above); the low 32 bits are the topic or document id. */
#define SK_LDA_GEN_STREAM_TOPIC (UINT64_C(1) << 32)
/** \brief Stream id of document d's draws (plus d; see above); the low 32 bits are the topic or document id. */
#define SK_LDA_GEN_STREAM_DOC (UINT64_C(2) << 32)
/** \brief Stream id of document d's tokens (plus d; see above); the low 32 bits are the topic or document id. */
#define SK_LDA_GEN_STREAM_TOKEN (UINT64_C(3) << 32)

/** \brief The parameters of a synthetic corpus (the construction above). */
typedef struct sk_lda_gen_params {
  int32_t num_docs;       /**< D >= 1 */
  int32_t num_words;      /**< V >= 1 */
  int32_t num_topics;     /**< K >= 1 */
  double mean_doc_length; /**< mean tokens per document, 1 <= mean <= 2^30 (every document has >= 1 token) */
  double doc_length_cv;   /**< coefficient of variation of the length (of L - 1, see above), 0 <= cv <= 10 */
  double alpha;           /**< theta_d ~ Dirichlet(alpha), alpha > 0 */
  double beta;            /**< phi_k ~ Dirichlet(beta * V * b_k), beta > 0 */
  double zipf_exponent;   /**< s >= 0 of the Zipf base measure (1: classic Zipf; 0: uniform) */
  double topic_support;   /**< fraction of the vocabulary each topic can use, 0 < f <= 1 */
  uint64_t seed;          /**< the Philox key */
  int threads;            /**< OpenMP threads (<= 0: the OpenMP default); the output does not depend on it */
} sk_lda_gen_params;

/**
 * \brief Defaults: D = 1000, V = 5000, K = 20, mean length 100, cv 0.5, alpha 0.1, beta 0.01, Zipf 1.0,
 * support 0.1, seed 1, threads 0.
 * \param params filled.
 */
void sk_lda_gen_params_default(sk_lda_gen_params *params);

/**
 * \brief Checks the parameters without drawing anything.
 * \param params the parameters.
 * \param err on failure, a message that names the parameter, its value and the allowed range.
 * \return 0 when valid, else 1 with a message that names the parameter, its value and the allowed range
 *         (also when K x V or D x K is too large to address in memory, whether or not phi and theta are
 *         asked for).
 */
int sk_lda_gen_validate(const sk_lda_gen_params *params, sk_ex_error *err);

/**
 * \brief The host bytes sk_lda_generate() will take with these parameters (the complexity line above),
 * with the expected token count T = D x mean_doc_length (the drawn lengths make T differ by a fraction
 * of a percent): corpus 8 (D + 1) + 4 T and its vocabulary (about 24 bytes a word), the Zipf weights, the
 * alias tables 12 m K, the optional outputs, and the per-thread scratch; `sk-lda gen` compares it with
 * sk_ex_host_memory_available() before it draws anything.
 * \param params valid parameters (sk_lda_gen_validate()).
 * \param phi 1 when phi is asked for.
 * \param theta 1 when theta is asked for.
 * \param topics 1 when the tokens' topics are asked for.
 * \return the bytes (saturating at UINT64_MAX).
 */
uint64_t sk_lda_gen_host_bytes(const sk_lda_gen_params *params, int phi, int theta, int topics);

/**
 * \brief Draws a corpus (construction above) into `out`, which the caller frees with sk_lda_corpus_free().
 *
 * `out` is overwritten (not freed first) and left zeroed on failure. The vocabulary is "w000000" ..
 * (six digits, more when V > 10^6). Tokens of a document are in draw order.
 * Optional outputs, each skipped when NULL, each malloc'ed and freed by the caller with free():
 * phi_out, theta_out and topics_out.
 * \param params the parameters.
 * \param out receives the corpus.
 * \param phi_out K x V floats, row k = phi_k (rows sum to 1 up to float rounding; the alias tables are
 *        built from these float values, so they are what the tokens were drawn from); or NULL.
 * \param theta_out D x K floats, row d = theta_d (likewise); or NULL.
 * \param topics_out T topic ids, the planted topic of each token, aligned with out->tokens; or NULL.
 * \param err filled on failure.
 * \return 0, or 1 with a message on invalid parameters, a length that overflows, or out of memory.
 */
int sk_lda_generate(const sk_lda_gen_params *params, sk_lda_corpus *out, float **phi_out, float **theta_out,
                    int32_t **topics_out, sk_ex_error *err);

/**
 * \brief Writes `corpus` in UCI bag-of-words form as DIR/docword.NAME.txt and DIR/vocab.NAME.txt.
 *
 * Three header lines D, W (= V) and NNZ, then one "doc word count" line per distinct (document, word),
 * 1-based ids, counts aggregated, sorted by document then word; documents with no tokens have no lines.
 * The vocabulary file has V lines (written only when corpus->vocab is not NULL). Each file is written to
 * NAME + ".tmp" and renamed, so an interrupted run leaves no half file under the final name.
 * DIR must exist.
 * The lines are formatted over the OpenMP threads (the default count), blocks of documents at a time,
 * and written in order: the same bytes for any thread count. Work O(T log(max document length));
 * memory per thread O(V + max document length), plus four blocks' lines per thread.
 * \param corpus the corpus.
 * \param dir the folder (DIR); must exist.
 * \param name the corpus's NAME.
 * \param err filled on failure, naming the file.
 * \return 0, or 1 with a message naming the file (I/O error, invalid corpus).
 */
int sk_lda_write_uci(const sk_lda_corpus *corpus, const char *dir, const char *name, sk_ex_error *err);

/**
 * \brief Writes `corpus` as a binary corpus DIR/docword.NAME.bin (corpus_binary.h: sk_lda_write_binary(),
 * fsync and rename) and, when corpus->vocab is not NULL, its vocabulary DIR/vocab.NAME.txt (V lines, as
 * sk_lda_write_uci() writes it).
 *
 * `sk-lda train --docword DIR/docword.NAME.bin --vocab DIR/vocab.NAME.txt` reads them back. Work O(D + T)
 * over the OpenMP threads and the write of 44 + 8 (D + 1) + 4 T bytes; no memory beyond the corpus.
 * \param corpus the corpus.
 * \param dir the folder (DIR).
 * \param name the corpus's NAME.
 * \param err filled on failure, naming the file.
 * \return 0, or 1 with a message naming the file.
 */
int sk_lda_write_binary_files(const sk_lda_corpus *corpus, const char *dir, const char *name, sk_ex_error *err);

/**
 * \brief Writes the planted truth beside the corpus.
 *
 * - DIR/topics.NAME.planted.txt: '#' comment lines with the parameters, then for each topic k one line
 *   "topic K" followed by `top_n` lines `"<TAB>word<TAB>probability"` (the top_n words of phi_k by
 *   decreasing probability, ties by word id; fewer when the support is smaller; probability with %.6g).
 * - DIR/phi.NAME.planted.f32: matrix file (below) of phi, K rows x V columns.
 * - DIR/theta.NAME.planted.f32: matrix file of theta, D rows x K columns (only when theta is not NULL).
 *
 * Matrix file: 8 bytes magic "SKLDAF32", then uint32 version (1), uint32 rows, uint32 cols, uint32 0
 * (reserved), all little-endian, then rows * cols IEEE-754 float32 little-endian, row-major.
 * `vocab` may be NULL (words are then named by "w%06d" of their id). Same temporary-name rule and
 * errors as sk_lda_write_uci.
 * \param params the parameters the corpus was drawn with.
 * \param vocab the words, or NULL.
 * \param phi K x V floats, row k = phi_k.
 * \param theta D x K floats, row d = theta_d, or NULL.
 * \param top_n words per topic in the topics file.
 * \param dir the folder (DIR).
 * \param name the corpus's NAME.
 * \param err filled on failure, naming the file.
 * \return 0, or 1 with a message naming the file.
 */
int sk_lda_write_planted(const sk_lda_gen_params *params, char *const *vocab, const float *phi, const float *theta,
                         int top_n, const char *dir, const char *name, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_GEN_H */
