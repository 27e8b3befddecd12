/* libFuzzer target for the UCI reader: the input is a docword file, optionally followed by
   "\n#vocab\n" and a vocabulary file. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sk_lda_buffer docword = {"docword.fuzz.txt", NULL, 0}, vocab = {"vocab.fuzz.txt", NULL, 0};
  sk_lda_corpus corpus;
  sk_ex_error err;
  int has_vocab, rc;
  sk_fuzz_split(data, size, "\n#vocab\n", &docword, &vocab, &has_vocab);
  memset(&err, 0, sizeof err);
  rc = sk_lda_parse_uci(&docword, has_vocab ? &vocab : NULL, &sk_fuzz_limits, &corpus, &err);
  sk_fuzz_check_corpus(&corpus, rc, &err);
  if (rc == 0 && corpus.num_tokens > sk_fuzz_limits.max_tokens) abort();
  sk_lda_corpus_free(&corpus);
  return 0;
}
