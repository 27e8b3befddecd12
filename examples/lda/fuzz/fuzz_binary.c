/* libFuzzer target for the binary corpus reader: one byte of flags, then the file, optionally followed by
   "\n#vocab\n" and a vocabulary. Flag bit 0 rewrites the file's last 4 bytes with the CRC of the rest, so
   that the fuzzer gets past the checksum to the offsets and word ids. */
#include <zlib.h>

#include "corpus_binary.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sk_lda_buffer file = {"docword.fuzz.bin", NULL, 0}, vocab = {"vocab.fuzz.txt", NULL, 0};
  sk_lda_corpus corpus;
  sk_ex_error err;
  int has_vocab, rc;
  if (size < 1) return 0;
  const int fix_crc = data[0] & 1;
  sk_fuzz_split(data + 1, size - 1, "\n#vocab\n", &file, &vocab, &has_vocab);
  unsigned char *copy = (unsigned char *)malloc(file.size > 0 ? file.size : 1);
  if (copy == NULL) return 0;
  if (file.size > 0) memcpy(copy, file.data, file.size);
  if (fix_crc && file.size >= 4) {
    const uint32_t c = (uint32_t)crc32(0L, copy, (uInt)(file.size - 4));
    for (int i = 0; i < 4; ++i) copy[file.size - 4 + (size_t)i] = (unsigned char)(c >> (8 * i));
  }
  file.data = (const char *)copy;
  memset(&err, 0, sizeof err);
  rc = sk_lda_parse_binary(&file, has_vocab ? &vocab : NULL, &sk_fuzz_limits, &corpus, &err);
  sk_fuzz_check_corpus(&corpus, rc, &err);
  if (rc == 0 && (corpus.num_tokens > sk_fuzz_limits.max_tokens || corpus.num_docs > sk_fuzz_limits.max_docs))
    abort();
  sk_lda_corpus_free(&corpus);
  free(copy);
  return 0;
}
