/* Shared by the fuzz targets: splits an input in two at a marker and checks a corpus's invariants. */
#ifndef SK_LDA_FUZZ_CHECK_H
#define SK_LDA_FUZZ_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_read.h"

/* The fuzzer's allocations stay far below libFuzzer's memory limit. */
static const sk_lda_read_limits sk_fuzz_limits = {1 << 16, 1 << 20, 64u << 20, 0};

/* Splits [data, data+size) at the first marker: *first before it, *second after it (NULL, 0 when absent). */
static inline void sk_fuzz_split(const uint8_t *data, size_t size, const char *marker, sk_lda_buffer *first,
                                 sk_lda_buffer *second, int *has_second) {
  const size_t m = strlen(marker);
  first->data = (const char *)data;
  first->size = size;
  *has_second = 0;
  for (size_t i = 0; m <= size && i <= size - m; ++i)
    if (memcmp(data + i, marker, m) == 0) {
      first->size = i;
      second->data = (const char *)data + i + m;
      second->size = size - i - m;
      *has_second = 1;
      return;
    }
}

/* A corpus a reader returned must be well formed; anything else is a bug worth a crash. */
static inline void sk_fuzz_check_corpus(const sk_lda_corpus *c, int rc, const sk_ex_error *err) {
  if (rc != 0) {
    /* Failure: out is zeroed and the message is one terminated, non-empty line. */
    if (c->num_docs != 0 || c->num_tokens != 0 || c->doc_offsets != NULL || c->tokens != NULL || c->vocab != NULL)
      abort();
    if (memchr(err->message, '\0', sizeof err->message) == NULL || err->message[0] == '\0') abort();
    return;
  }
  if (c->num_docs <= 0 || c->num_words <= 0 || c->num_tokens <= 0) abort();
  if (c->doc_offsets[0] != 0 || c->doc_offsets[c->num_docs] != c->num_tokens) abort();
  for (int32_t d = 0; d < c->num_docs; ++d)
    if (c->doc_offsets[d] > c->doc_offsets[d + 1]) abort();
  for (int64_t t = 0; t < c->num_tokens; ++t)
    if (c->tokens[t] < 0 || c->tokens[t] >= c->num_words) abort();
  if (c->vocab != NULL)
    for (int32_t v = 0; v < c->num_words; ++v)
      if (c->vocab[v] == NULL) abort();
}

#endif /* SK_LDA_FUZZ_CHECK_H */
