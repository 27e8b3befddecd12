/*
 * The in-memory corpus every part of sk-lda works on: documents as CSR over tokens (one 32-bit word id
 * per token), the vocabulary, and the sizes. Readers (corpus_uci.c, corpus_ldac.c, corpus_text.c) fill
 * it; the trainers, the generator and the GPU samplers later read it.
 */
#ifndef SK_LDA_CORPUS_H
#define SK_LDA_CORPUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors: functions that can fail return 0 on success and non-zero on failure, and then fill `error`
   (when not NULL) with one line that names the file and line and what was wrong, e.g.
   "docword.kos.txt:17: word id 7000 is out of range 1..6906". */
typedef struct sk_lda_error {
  char message[512];
} sk_lda_error;

/* Fills err->message (when err is not NULL) printf-style; returns 1, so `return sk_lda_fail(...)` works. */
int sk_lda_fail(sk_lda_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef struct sk_lda_corpus {
  int32_t num_docs;      /* D */
  int32_t num_words;     /* V: vocabulary size; word ids are 0 .. V-1 */
  int64_t num_tokens;    /* T */
  int64_t *doc_offsets;  /* D + 1 entries: document d's tokens are tokens[doc_offsets[d] .. doc_offsets[d+1]) */
  int32_t *tokens;       /* T word ids, each in [0, V) */
  char **vocab;          /* V NUL-terminated words, or NULL when no vocabulary is known */
} sk_lda_corpus;

/* Frees everything a corpus owns and zeroes it; NULL or an empty corpus is fine. */
void sk_lda_corpus_free(sk_lda_corpus *corpus);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CORPUS_H */
