// Calls launchers of every kernel source of samplekit::kernels with a NULL pointer: they check their
// arguments before touching CUDA, so this runs without a GPU, and the calls make the linker pull in
// each CUDA object, with its C++ and CUDA runtime needs.
#include <cstdio>

#include <samplekit/samplekit.h>

int main() {
  int major = 0, minor = 0, patch = 0;
  if (sk_get_version(&major, &minor, &patch) != SK_SUCCESS) return 1;
  const sk_status st[] = {
      sk_rng_fill_uniform_f32(1, 0, 0, nullptr, 1, nullptr),
      sk_wary_tree_batch_build_f32(nullptr, 1, 1, 1, nullptr, 0, nullptr),
      sk_sample_categorical_f32(nullptr, 1, 1, 1, 1, 0, nullptr, nullptr),
      sk_segmented_count_u32(nullptr, 1, 1, nullptr, nullptr, 1, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr),
      sk_csr_chunk_order_device(nullptr, 1, 1, nullptr, nullptr, nullptr, nullptr, 0, nullptr)};
  for (const sk_status s : st) {
    if (s != SK_ERROR_NULL_POINTER) {
      std::printf("samplekit %d.%d.%d: a NULL argument gave %s\n", major, minor, patch, sk_status_name(s));
      return 1;
    }
  }
  std::printf("samplekit %d.%d.%d: C++ consumer: %s\n", major, minor, patch, sk_status_name(SK_ERROR_NULL_POINTER));
  return 0;
}
