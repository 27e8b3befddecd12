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

#include <stddef.h>
#include <stdint.h>

#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief A corpus: D documents as CSR over T tokens, V words.
 *
 * Documents the input numbers but leaves empty are not stored where a reader can drop them at no cost
 * (UCI: a docID with no entry line), so that a header claiming 2 x 10^9 documents of which three have words
 * costs three documents' memory. doc_ids then says which input document each stored one is; every output
 * keyed by document (theta.txt) uses the input's numbering through it.
 */
typedef struct sk_lda_corpus {
  int32_t num_docs;      /**< D: documents stored */
  int32_t num_words;     /**< V: vocabulary size; word ids are 0 .. V-1 */
  int64_t num_tokens;    /**< T */
  int64_t *doc_offsets;  /**< D + 1 entries: document d's tokens are tokens[doc_offsets[d] .. doc_offsets[d+1]) */
  int32_t *tokens;       /**< T word ids, each in [0, V) */
  char **vocab;          /**< V NUL-terminated words, or NULL when no vocabulary is known */
  int32_t *doc_ids;      /**< D input document numbers (0-based, increasing) of the stored documents, or NULL
                              when they are 0 .. D-1 (no document was dropped) */
  int32_t num_input_docs; /**< with doc_ids: the documents the input numbers, the dropped empty ones
                               included; unused (0) when doc_ids is NULL */
} sk_lda_corpus;

/**
 * \brief The input number (0-based) of stored document d: doc_ids[d], or d when no document was dropped.
 * \param corpus the corpus.
 * \param d a stored document, 0 .. num_docs - 1.
 * \return its number in the input.
 */
static inline int32_t sk_lda_corpus_input_doc(const sk_lda_corpus *corpus, int32_t d) {
  return corpus->doc_ids != NULL ? corpus->doc_ids[d] : d;
}

/**
 * \brief The documents the input numbers: num_input_docs with doc_ids, else num_docs.
 * \param corpus the corpus.
 * \return the count.
 */
static inline int32_t sk_lda_corpus_input_docs(const sk_lda_corpus *corpus) {
  return corpus->doc_ids != NULL ? corpus->num_input_docs : corpus->num_docs;
}

/**
 * \brief Frees everything a corpus owns and zeroes it; NULL or an empty corpus is fine.
 * \param corpus the corpus.
 */
void sk_lda_corpus_free(sk_lda_corpus *corpus);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CORPUS_H */
