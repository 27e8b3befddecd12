/* libFuzzer target for the checkpoint reader (sk_lda_checkpoint_read(), checkpoint.h): one byte of flags,
   then the file. Flag bit 0 rewrites the file's last 4 bytes with the CRC of the rest, so that mutations
   reach the checks after the checksum. Every checkpoint the reader accepts must satisfy the format's
   ranges, and writing it back (sk_lda_checkpoint_write()) must give the same bytes. */
#include <math.h>

#include "checkpoint.h"
#include "fuzz_file.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned char *file = (unsigned char *)malloc(size);
  if (file == NULL) return 0;
  const size_t n = size - 1;
  memcpy(file, data + 1, n);
  if (data[0] & 1) sk_fuzz_fix_crc(file, n);
  const char *path = sk_fuzz_write(SK_LDA_CHECKPOINT_FILE, file, n);
  sk_lda_checkpoint c;
  sk_ex_error err;
  memset(&err, 0, sizeof err);
  memset(&c, 0xA5, sizeof c);
  if (sk_lda_checkpoint_read(path, &c, &err) != 0) {
    /* Failure: *out zeroed, one terminated, non-empty message. */
    if (c.num_topics != 0 || c.num_tokens != 0 || c.metrics != NULL || c.metrics_len != 0 || c.z != NULL ||
        c.vocab != NULL || c.version != 0)
      abort();
    if (memchr(err.message, '\0', sizeof err.message) == NULL || err.message[0] == '\0') abort();
    free(file);
    return 0;
  }
  if (c.sampler < 0 || c.sampler > 2 || c.num_topics < 1 || c.num_topics > SK_LDA_MAX_TOPICS || c.num_words < 1 ||
      c.num_docs < 0 || c.num_tokens < 0 || c.z == NULL || c.metrics == NULL)
    abort();
  if (!(c.alpha > 0.0) || !isfinite(c.alpha) || !(c.beta > 0.0) || !isfinite(c.beta)) abort();
  if (!(c.test_fraction >= 0.0 && c.test_fraction < 1.0) || !(c.seconds >= 0.0) || !isfinite(c.seconds)) abort();
  if (c.sweeps >= SK_LDA_STREAM_RESERVED) abort();
  /* The length: the header (96 bytes in version 1; 104 with version 2's vocabulary size), the metrics, the
     vocabulary (each word a 4-byte length and its bytes), z and the CRC. */
  uint64_t vocab_bytes = 0;
  if (c.vocab != NULL) {
    if (c.version == 1) abort(); /* version 1 has no vocabulary */
    for (int32_t v = 0; v < c.num_words; ++v) {
      if (c.vocab[v] == NULL || c.vocab[v][0] == '\0') abort();
      vocab_bytes += 4u + (uint64_t)strlen(c.vocab[v]);
    }
  }
  if ((c.version == 1 ? 96u : 104u) + (uint64_t)c.metrics_len + vocab_bytes + 4u * (uint64_t)c.num_tokens + 4u != n)
    abort();
  if (c.metrics[c.metrics_len] != '\0') abort(); /* promised: NUL-terminated */
  for (int64_t t = 0; t < c.num_tokens; ++t)
    if (c.z[t] < 0 || c.z[t] >= c.num_topics) abort();
  const char *again = sk_fuzz_path("again.skc");
  if (sk_lda_checkpoint_write(again, &c, &err) != 0) abort();
  size_t back_n = 0;
  unsigned char *back = sk_fuzz_slurp(again, &back_n);
  if (back == NULL || back_n != n || memcmp(back, file, n) != 0) abort();
  free(back);
  sk_lda_checkpoint_free(&c);
  if (c.metrics != NULL || c.z != NULL) abort();
  free(file);
  return 0;
}
