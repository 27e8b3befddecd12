/**
 * \file theta_npy.h
 * \brief theta.npy: every input document's topic proportions, D x K float32 in the input's order, for numpy.
 *
 * Row i is input document i (UCI docID i + 1, LDA-C line i + 1, plain-text line i + 1):
 * - a training document: theta_dk = (n_dk + alpha) / (n_d + K alpha) from the model's counts A (theta.txt's
 *   values, dense);
 * - a held-out document: the same formula over the counts of its observed half after the fold-in of the
 *   held-out log-likelihood (sk_lda_heldout_ll(): the same draws, sk_lda_default_foldin_iters(K) sweeps, phi
 *   fixed), so its row is the theta that scored its held-out half;
 * - a document with no tokens (a UCI docID with no entry line, a text line with no word, a held-out document
 *   whose observed half is empty): the prior's mean, 1/K in every column.
 * With per-topic priors (m->alpha_k set), alpha_k takes alpha's place and sk_lda_model_alpha_sum() K
 * alpha's: theta_dk = (n_dk + alpha_k) / (n_d + sum_k alpha_k), and an empty document's row is
 * alpha_k / sum_k alpha_k.
 * The file is written a block of rows at a time (sk_ex_write_npy_f32_rows()): memory O(test documents x K).
 *
 * Errors: 0 on success, 1 with err filled, 2 when D x K x 4 bytes exceed `max_bytes` (nothing written; the
 * caller says why). Threading: the fold-in uses `threads` OpenMP threads (0: all); the bytes do not depend on it.
 */
#ifndef SK_LDA_THETA_NPY_H
#define SK_LDA_THETA_NPY_H

#include <stdint.h>

#include "model.h"
#include "split.h"
#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Writes theta.npy (the file's description) for the model trained on split->train.
 * \param path the file.
 * \param m the model (m->corpus is split->train).
 * \param split the split the run trained on.
 * \param threads OpenMP threads of the fold-in (0: all).
 * \param max_bytes the largest file to write; above it nothing is written and 2 returned.
 * \param err filled on failure.
 * \return 0, 1 (err filled) or 2 (too large).
 */
int sk_lda_write_theta_npy(const char *path, const sk_lda_model *m, const sk_lda_split *split, int threads,
                           uint64_t max_bytes, sk_ex_error *err);

/**
 * \brief One document's theta row, dense, from its sparse topic counts (theta.npy's training rows, and
 * sk_lda.h's inference): theta_dk = (n_dk + a_k) / (n + A) with a_k = alpha_k[k] (or alpha) and A =
 * alpha_sum, computed as (count + a_k) * (1 / (n + A)) and rounded to float; a document with no tokens
 * (n = 0) gets the prior's mean, 1/K (or alpha_k / A).
 * \param num_topics K.
 * \param alpha the symmetric prior (used when alpha_k is NULL).
 * \param alpha_k K per-topic priors, or NULL.
 * \param alpha_sum A = sk_lda_prior_alpha_sum(alpha_k, alpha, K).
 * \param n the document's tokens (the counts' sum).
 * \param nnz its nonzero topics.
 * \param topic nnz topics (each in [0, K)).
 * \param count their nnz counts.
 * \param row receives K floats.
 */
void sk_lda_theta_row(int32_t num_topics, double alpha, const double *alpha_k, double alpha_sum, int64_t n,
                      int32_t nnz, const int32_t *topic, const int32_t *count, float *row);

/**
 * \brief The rows theta.npy holds, into a caller's array (the library's sklda_model_theta()).
 * \param m the model (m->corpus is split->train).
 * \param split the split the run trained on.
 * \param threads OpenMP threads of the fold-in (0: all).
 * \param out receives sk_lda_corpus_input_docs(&split->train) x K floats, row-major.
 * \param err filled on failure (memory).
 * \return 0, or 1 with err filled.
 */
int sk_lda_theta_fill(const sk_lda_model *m, const sk_lda_split *split, int threads, float *out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_THETA_NPY_H */
