/* The corpus form shared by the readers, the trainers and the generator. */
#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sk_lda_corpus_free(sk_lda_corpus *corpus) {
  if (corpus == NULL) return;
  if (corpus->vocab != NULL)
    for (int32_t v = 0; v < corpus->num_words; ++v) free(corpus->vocab[v]);
  free(corpus->vocab);
  free(corpus->doc_offsets);
  free(corpus->tokens);
  free(corpus->doc_ids);
  memset(corpus, 0, sizeof *corpus);
}
