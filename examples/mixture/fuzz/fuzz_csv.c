/* libFuzzer target for sk-mixture's CSV reader (sk_mix_read_csv(), data.h): the input is the file. */
#include "fuzz_data_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sk_mix_data d;
  sk_ex_error err;
  memset(&err, 0, sizeof err);
  memset(&d, 0xA5, sizeof d);
  const int rc = sk_mix_read_csv(sk_mix_fuzz_write("data.csv", data, size), &d, &err);
  /* A data row holds a digit and its line ends: at most one row per 2 bytes (a last line needs no "\n"). */
  sk_mix_fuzz_check(&d, rc, &err, (int64_t)size / 2 + 1);
  sk_mix_data_free(&d);
  return 0;
}
