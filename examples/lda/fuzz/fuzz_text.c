/* libFuzzer target for the plain-text reader: the first byte picks min_count (0..3), the rest is the
   text, optionally followed by "\n#stop\n" and a stop-word file. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sk_lda_buffer text = {"text.fuzz.txt", NULL, 0}, stop = {"stop.fuzz.txt", NULL, 0};
  sk_lda_corpus corpus;
  sk_ex_error err;
  int has_stop, rc;
  int64_t min_count;
  if (size == 0) return 0;
  min_count = data[0] & 3;
  sk_fuzz_split(data + 1, size - 1, "\n#stop\n", &text, &stop, &has_stop);
  memset(&err, 0, sizeof err);
  rc = sk_lda_parse_text(&text, has_stop ? &stop : NULL, min_count, &sk_fuzz_limits, &corpus, &err);
  sk_fuzz_check_corpus(&corpus, rc, &err);
  if (rc == 0) {
    if (corpus.vocab == NULL) abort();
    for (int32_t v = 0; v < corpus.num_words; ++v) {
      const size_t n = strlen(corpus.vocab[v]);
      if (n < 3) abort();
      for (size_t i = 0; i < n; ++i)
        if (corpus.vocab[v][i] < 'a' || corpus.vocab[v][i] > 'z') abort();
      if (v > 0 && strcmp(corpus.vocab[v - 1], corpus.vocab[v]) >= 0) abort();
    }
    for (int32_t d = 0; d < corpus.num_docs; ++d)
      if (corpus.doc_offsets[d] == corpus.doc_offsets[d + 1]) abort(); /* empty documents are dropped */
  }
  sk_lda_corpus_free(&corpus);
  return 0;
}
