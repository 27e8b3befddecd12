/* libFuzzer target for the model file reader (sk_lda_model_file_read()) and the z file reader
   (sk_lda_z_read()) of model_file.h: one byte of flags, then the file. Flag bit 0 rewrites the file's last
   4 bytes with the CRC of the rest, so that mutations reach the checks after the checksum; bit 1 reads the
   file as a z file instead of a model file. Every file a reader accepts must satisfy the format's ranges,
   and writing what was read back (sk_lda_model_file_write(), sk_lda_z_write()) must give the same bytes:
   the format has one encoding of each model. */
#include <math.h>

#include "fuzz_file.h"
#include "model_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure leaves one terminated, non-empty message. */
static void check_message(const sk_ex_error *err) {
  if (memchr(err->message, '\0', sizeof err->message) == NULL || err->message[0] == '\0') abort();
}

/* The file written back at `again` must be the file read, byte for byte. */
static void check_same_file(const char *again, const unsigned char *file, size_t size) {
  size_t n = 0;
  unsigned char *back = sk_fuzz_slurp(again, &n);
  if (back == NULL || n != size || memcmp(back, file, size) != 0) abort();
  free(back);
}

static void fuzz_model(const char *path, const unsigned char *file, size_t size) {
  sk_lda_model_file mf;
  sk_ex_error err;
  memset(&err, 0, sizeof err);
  memset(&mf, 0xA5, sizeof mf);
  if (sk_lda_model_file_read(path, &mf, &err) != 0) {
    if (mf.num_topics != 0 || mf.num_words != 0 || mf.vocab != NULL || mf.n_vk != NULL || mf.n_k != NULL) abort();
    check_message(&err);
    return;
  }
  const int32_t K = mf.num_topics, V = mf.num_words;
  if (K < 1 || K > SK_LDA_MAX_TOPICS || V < 1 || mf.n_vk == NULL || mf.n_k == NULL) abort();
  if (!(mf.alpha > 0.0) || !isfinite(mf.alpha) || !(mf.beta > 0.0) || !isfinite(mf.beta)) abort();
  uint64_t vocab_bytes = 0;
  if (mf.vocab != NULL)
    for (int32_t v = 0; v < V; ++v) {
      if (mf.vocab[v] == NULL || mf.vocab[v][0] == '\0') abort();
      vocab_bytes += 4u + strlen(mf.vocab[v]);
    }
  if (56u + vocab_bytes + 4u * (uint64_t)V * (uint64_t)K + 8u * (uint64_t)K + 4u != size) abort();
  for (int32_t k = 0; k < K; ++k) {
    int64_t sum = 0;
    for (int32_t v = 0; v < V; ++v) {
      const int32_t c = mf.n_vk[(size_t)v * (size_t)K + (size_t)k];
      if (c < 0) abort();
      sum += c;
    }
    if (sum != mf.n_k[k]) abort();
  }
  const char *again = sk_fuzz_path("again.skl");
  if (sk_lda_model_file_write(again, &mf, &err) != 0) abort();
  check_same_file(again, file, size);
  sk_lda_model_file_free(&mf);
  if (mf.vocab != NULL || mf.n_vk != NULL || mf.n_k != NULL) abort();
}

static void fuzz_z(const char *path, const unsigned char *file, size_t size) {
  static int32_t sentinel;
  int32_t *z = &sentinel, K = -7; /* sentinels: a failure leaves the outputs untouched */
  int64_t T = -7;
  sk_ex_error err;
  memset(&err, 0, sizeof err);
  if (sk_lda_z_read(path, &z, &T, &K, &err) != 0) {
    if (z != &sentinel || T != -7 || K != -7) abort();
    check_message(&err);
    return;
  }
  if (z == NULL || K < 1 || K > SK_LDA_MAX_TOPICS || T < 0 || 28u + 4u * (uint64_t)T != size) abort();
  for (int64_t t = 0; t < T; ++t)
    if (z[t] < 0 || z[t] >= K) abort();
  const char *again = sk_fuzz_path("again.z");
  if (sk_lda_z_write(again, z, T, K, &err) != 0) abort();
  check_same_file(again, file, size);
  free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const int fix_crc = data[0] & 1, z_file = data[0] & 2;
  unsigned char *file = (unsigned char *)malloc(size);
  if (file == NULL) return 0;
  memcpy(file, data + 1, size - 1);
  if (fix_crc) sk_fuzz_fix_crc(file, size - 1);
  const char *path = sk_fuzz_write(z_file ? "fuzz.z" : "model.skl", file, size - 1);
  if (z_file)
    fuzz_z(path, file, size - 1);
  else
    fuzz_model(path, file, size - 1);
  free(file);
  return 0;
}
