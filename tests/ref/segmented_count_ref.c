/* Host reference for the segmented count; see segmented_count_ref.h. */
#include "segmented_count_ref.h"

#include <math.h>
#include <stdlib.h>

static int sk_ref_compare_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int64_t sk_ref_count_keys_u32(const uint32_t *keys, int64_t n, uint32_t *scratch, uint32_t *out_keys,
                              uint32_t *out_counts) {
  int64_t i, d = 0;
  for (i = 0; i < n; ++i) scratch[i] = keys[i];
  if (n > 1) qsort(scratch, (size_t)n, sizeof(uint32_t), sk_ref_compare_u32);
  for (i = 0; i < n; ++i) {
    if (i == 0 || scratch[i] != scratch[i - 1]) {
      out_keys[d] = scratch[i];
      out_counts[d] = 0;
      ++d;
    }
    ++out_counts[d - 1];
  }
  return d;
}

int64_t sk_ref_segmented_count_check_u32(const int32_t *offsets, int32_t num_segments, int32_t num_items,
                                         const uint32_t *keys, const int32_t *perm, int32_t num_keys) {
  int64_t j, i;
  if (offsets[0] != 0) return 0;
  for (j = 1; j <= num_segments; ++j)
    if (offsets[j] < offsets[j - 1]) return j;
  if (offsets[num_segments] != num_items) return num_segments;
  if (perm != NULL)
    for (i = 0; i < num_items; ++i)
      if (perm[i] < 0 || perm[i] >= num_items) return i;
  for (i = 0; i < num_items; ++i) {
    const uint32_t key = keys[perm != NULL ? perm[i] : i];
    if (num_keys < 1 || key >= (uint32_t)num_keys) return i;
  }
  return -1;
}

int64_t sk_ref_segmented_count_u32(const int32_t *offsets, int32_t num_segments, int32_t num_items,
                                   const uint32_t *keys, const int32_t *perm, int32_t num_keys, int32_t *out_offsets,
                                   uint32_t *out_keys, uint32_t *out_counts) {
  int64_t pairs = 0;
  int32_t s;
  uint32_t *gathered, *scratch;
  if (sk_ref_segmented_count_check_u32(offsets, num_segments, num_items, keys, perm, num_keys) != -1) return -1;
  gathered = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(num_items > 0 ? num_items : 1));
  scratch = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(num_items > 0 ? num_items : 1));
  if (gathered == NULL || scratch == NULL) {
    free(gathered);
    free(scratch);
    return -2;
  }
  for (s = 0; s < num_segments; ++s) {
    const int32_t begin = offsets[s], length = offsets[s + 1] - offsets[s];
    int32_t i;
    for (i = 0; i < length; ++i) gathered[i] = keys[perm != NULL ? perm[begin + i] : begin + i];
    out_offsets[s] = (int32_t)pairs;
    pairs += sk_ref_count_keys_u32(gathered, length, scratch, out_keys + pairs, out_counts + pairs);
  }
  out_offsets[num_segments] = (int32_t)pairs;
  free(gathered);
  free(scratch);
  return pairs;
}

int32_t sk_ref_zipf_rank(double u, int32_t n, double exponent) {
  double x;
  int64_t r;
  if (n <= 1) return 0;
  if (fabs(exponent - 1.0) < 1e-9) {
    x = exp(u * log((double)n + 1.0));
  } else {
    const double e = 1.0 - exponent;
    x = pow(1.0 + u * (pow((double)n + 1.0, e) - 1.0), 1.0 / e);
  }
  r = (int64_t)floor(x) - 1;
  return (int32_t)(r < 0 ? 0 : (r >= n ? n - 1 : r));
}

void sk_ref_long_tailed_offsets(const double *gauss, int32_t num_segments, int32_t num_items, double sigma,
                                double cap_ratio, double *scratch, int32_t *offsets) {
  double total = 0.0;
  int32_t s;
  for (s = 0; s < num_segments; ++s) {
    double x = exp(sigma * gauss[s] - 0.5 * sigma * sigma); /* mean 1 before the cap */
    if (x > cap_ratio) x = cap_ratio;
    total += x;
    scratch[s] = total;
  }
  offsets[0] = 0;
  for (s = 1; s < num_segments; ++s) {
    int64_t o = (int64_t)floor((double)num_items * (scratch[s - 1] / total) + 0.5);
    if (o < offsets[s - 1]) o = offsets[s - 1];
    if (o > num_items) o = num_items;
    offsets[s] = (int32_t)o;
  }
  if (num_segments > 0) offsets[num_segments] = num_items;
}
