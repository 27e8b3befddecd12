/* Host reference for the warp sorted set; see sorted_set_ref.h. */
#include "sorted_set_ref.h"

#include <string.h>

int32_t sk_ref_sorted_set_rank_i32(const int32_t *keys, int32_t n, int32_t key) {
  int32_t lo = 0, hi = n; /* keys[0, lo) < key <= keys[hi, n) */
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int sk_ref_sorted_set_contains_i32(const int32_t *keys, int32_t n, int32_t key) {
  const int32_t r = sk_ref_sorted_set_rank_i32(keys, n, key);
  return r < n && keys[r] == key;
}

int32_t sk_ref_sorted_set_insert_i32(int32_t *keys, int32_t n, int32_t key) {
  const int32_t r = sk_ref_sorted_set_rank_i32(keys, n, key);
  memmove(keys + r + 1, keys + r, sizeof(int32_t) * (size_t)(n - r));
  keys[r] = key;
  return n + 1;
}

int32_t sk_ref_sorted_set_erase_i32(int32_t *keys, int32_t n, int32_t key) {
  const int32_t r = sk_ref_sorted_set_rank_i32(keys, n, key);
  if (r + 1 < n) memmove(keys + r, keys + r + 1, sizeof(int32_t) * (size_t)(n - r - 1));
  return n - 1;
}

int32_t sk_ref_sorted_set_from_bitmap_i32(const uint32_t *bits, int32_t words, int32_t *keys) {
  int32_t n = 0, w, b;
  for (w = 0; w < words; ++w)
    for (b = 0; b < 32; ++b)
      if ((bits[w] >> b) & 1u) keys[n++] = 32 * w + b;
  return n;
}

int32_t sk_ref_sorted_set_from_counts_i32(const int32_t *counts, int32_t K, int32_t *keys, uint32_t *bitmap) {
  int32_t n = 0, k;
  if (bitmap != NULL) memset(bitmap, 0, sizeof(uint32_t) * (size_t)((K + 31) / 32));
  for (k = 0; k < K; ++k)
    if (counts[k] != 0) {
      keys[n++] = k;
      if (bitmap != NULL) bitmap[k / 32] |= 1u << (k % 32);
    }
  return n;
}
