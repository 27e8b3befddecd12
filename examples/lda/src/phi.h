/**
 * \file phi.h
 * \brief phi.npy: a model's topic-word distributions as a NumPy array, written by `sk-lda train --out DIR`
 * beside model.skl and by `sk-lda export MODEL --out DIR`.
 *
 * The file is a `.npy` (sk_ex_npy.h: format 1.0, '<f4', C order) of shape (K, V): row k is topic k's
 * distribution over the words,
 *
 *     phi[k][v] = (n_vk + beta) / (n_k + V beta)     (output.h: sk_lda_phi_scale()),
 *
 * computed in double and rounded once to float32, so it equals the values topics.txt and `sk-lda topics`
 * print to their precision, and each row sums to 1 up to float32 rounding. Column v is word id v: line
 * v + 1 of the vocabulary (vocab.txt of `sk-lda export`, or the --vocab file of training). Written
 * through the temporary-file protocol (sk_ex_files.h); memory O(V) beyond the counts, whatever K.
 * Errors: 0 on success, non-zero with err filled naming the file. Threading: no shared state.
 */
#ifndef SK_LDA_PHI_H
#define SK_LDA_PHI_H

#include <stdint.h>

#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Writes phi.npy (K x V float32) of the counts n_vk (V x K row-major, as in sk_lda_model and the
 * model file) and n_k.
 *
 * Work O(V K), reading n_vk in its own order; deterministic.
 * \param path the file.
 * \param n_vk V x K row-major word-topic counts.
 * \param n_k K topic totals.
 * \param num_words V, >= 1.
 * \param num_topics K, >= 1.
 * \param beta the topic-word prior, finite and > 0.
 * \param err filled on failure, naming the file.
 * \return 0 on success; non-zero on a NULL pointer, a bad size or beta, out of memory, or an I/O error
 *         (PATH is then untouched).
 */
int sk_lda_write_phi_npy(const char *path, const int32_t *n_vk, const int64_t *n_k, int32_t num_words,
                         int32_t num_topics, double beta, sk_ex_error *err);

/**
 * \brief phi.npy's values into a caller's array (sk_lda.h's sklda_model_phi()): the same rows, in the same
 * order of work and with the same bits.
 * \param n_vk V x K row-major word-topic counts.
 * \param n_k K topic totals.
 * \param num_words V, >= 1.
 * \param num_topics K, >= 1.
 * \param beta the topic-word prior, finite and > 0.
 * \param phi receives K x V floats, row-major.
 */
void sk_lda_phi_fill(const int32_t *n_vk, const int64_t *n_k, int32_t num_words, int32_t num_topics, double beta,
                     float *phi);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_PHI_H */
