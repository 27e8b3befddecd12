/* Host reference for the block counting sort; see block_count_sort_ref.h. */
#include "block_count_sort_ref.h"

#include <stdlib.h>

static int sk_ref_bcs_compare_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

int sk_ref_block_count_sort_u32(const uint32_t *keys, int32_t num_items, int32_t num_keys, uint32_t *key_ends,
                                uint32_t *slots) {
  int32_t i, c;
  uint32_t *cursor;
  if (num_items < 0 || num_items > 65536 || num_keys < 1 || num_keys > 65536) return -1;
  for (i = 0; i < num_items; ++i)
    if (keys[i] >= (uint32_t)num_keys) return -1;
  cursor = (uint32_t *)calloc((size_t)num_keys, sizeof(uint32_t));
  if (cursor == NULL) return -2;
  for (i = 0; i < num_items; ++i) ++cursor[keys[i]];
  /* cursor[c]: the first slot of key c; key_ends[c]: the one past its last. */
  {
    uint32_t start = 0;
    for (c = 0; c < num_keys; ++c) {
      const uint32_t count = cursor[c];
      cursor[c] = start;
      start += count;
      key_ends[c] = start;
    }
  }
  /* In item order: the order within a key is the items' order (stable). */
  for (i = 0; i < num_items; ++i) slots[cursor[keys[i]]++] = (keys[i] << 16) | (uint32_t)i;
  free(cursor);
  return 0;
}

int sk_ref_block_count_sort_canonical_u32(const uint32_t *key_ends, int32_t num_keys, uint32_t *slots,
                                          int32_t num_items) {
  int32_t c;
  uint32_t begin = 0;
  for (c = 0; c < num_keys; ++c) {
    if (key_ends[c] < begin || key_ends[c] > (uint32_t)num_items) return -1;
    begin = key_ends[c];
  }
  begin = 0;
  for (c = 0; c < num_keys; ++c) {
    if (key_ends[c] - begin > 1)
      qsort(slots + begin, (size_t)(key_ends[c] - begin), sizeof(uint32_t), sk_ref_bcs_compare_u32);
    begin = key_ends[c];
  }
  return 0;
}
