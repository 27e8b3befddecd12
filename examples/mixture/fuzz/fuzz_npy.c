/* libFuzzer target for sk-mixture's .npy reader (sk_mix_read_npy(), data.h): the input is the file. */
#include "fuzz_data_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sk_mix_data d;
  sk_ex_error err;
  memset(&err, 0, sizeof err);
  memset(&d, 0xA5, sizeof d);
  const int rc = sk_mix_read_npy(sk_mix_fuzz_write("data.npy", data, size), &d, &err);
  /* The values follow a header of at least 10 bytes, 4 or 8 bytes each: N x D x 4 <= size - 10. */
  sk_mix_fuzz_check(&d, rc, &err, size > 10 ? (int64_t)(size - 10) / 4 : 0);
  if (rc == 0 && d.n * (int64_t)d.d * 4 > (int64_t)size - 10) abort();
  sk_mix_data_free(&d);
  return 0;
}
