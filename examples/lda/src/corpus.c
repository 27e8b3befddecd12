/* The corpus form shared by the readers, the trainers and the generator. */
#include "corpus.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sk_lda_fail(sk_lda_error *err, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return 1;
}

void sk_lda_corpus_free(sk_lda_corpus *corpus) {
  if (corpus == NULL) return;
  if (corpus->vocab != NULL)
    for (int32_t v = 0; v < corpus->num_words; ++v) free(corpus->vocab[v]);
  free(corpus->vocab);
  free(corpus->doc_offsets);
  free(corpus->tokens);
  memset(corpus, 0, sizeof *corpus);
}
