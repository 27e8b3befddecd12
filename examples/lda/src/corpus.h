/**
 * \file corpus.h
 * \brief The in-memory corpus every part of sk-lda works on: documents as CSR over tokens (one 32-bit word
 * id per token), the vocabulary, and the sizes.
 *
 * Readers (corpus_uci.c, corpus_ldac.c, corpus_text.c) fill it; the trainers, the generator and the GPU
 * samplers later read it.
 */
#ifndef SK_LDA_CORPUS_H
#define SK_LDA_CORPUS_H

#include <stdint.h>

#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief A corpus: D documents as CSR over T tokens, V words. */
typedef struct sk_lda_corpus {
  int32_t num_docs;      /**< D */
  int32_t num_words;     /**< V: vocabulary size; word ids are 0 .. V-1 */
  int64_t num_tokens;    /**< T */
  int64_t *doc_offsets;  /**< D + 1 entries: document d's tokens are tokens[doc_offsets[d] .. doc_offsets[d+1]) */
  int32_t *tokens;       /**< T word ids, each in [0, V) */
  char **vocab;          /**< V NUL-terminated words, or NULL when no vocabulary is known */
} sk_lda_corpus;

/**
 * \brief Frees everything a corpus owns and zeroes it; NULL or an empty corpus is fine.
 * \param corpus the corpus.
 */
void sk_lda_corpus_free(sk_lda_corpus *corpus);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CORPUS_H */
