/* sk_csr_chunk_order_rows_host, sk_csr_chunk_groups_count_host, sk_csr_chunk_groups_host: a chunk's word
 * order with each position's row, and its groups and items (csr_chunker.h), on the host. Host code only:
 * nothing here calls CUDA. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/csr_chunker.h"

/* The sort of the items by size takes one counting pass when the largest item is below this, else two
 * digits of at most 16 bits: its buckets stay within 256 KiB. */
#define SK_DETAIL_GROUPS_SORT_BUCKETS ((int64_t)1 << 16)

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none). */
static int sk_detail_rows_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return 0;
  return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

/* Whether any of the first num_outputs arrays overlaps any other of the num_arrays. */
static int sk_detail_rows_any_overlap(const void *const *arrays, const size_t *bytes, int num_outputs,
                                      int num_arrays) {
  int a, b;
  for (a = 0; a < num_outputs; ++a)
    for (b = a + 1; b < num_arrays; ++b)
      if (sk_detail_rows_overlap(arrays[a], bytes[a], arrays[b], bytes[b])) return 1;
  return 0;
}

sk_status sk_csr_chunk_order_rows_host(const int64_t *h_row_offsets, int64_t num_rows, const int32_t *h_tokens,
                                       int64_t num_tokens, int32_t num_cols, int32_t *h_perm, int32_t *h_position_row,
                                       int64_t *h_word_offsets) {
  const void *arrays[5];
  size_t bytes[5];
  int64_t r, w;
  if (num_rows < 0 || num_rows > INT32_MAX || num_tokens < 0 || num_tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS ||
      num_cols < 0)
    return SK_ERROR_INVALID_VALUE;
  if (h_row_offsets == NULL || h_word_offsets == NULL ||
      (num_tokens > 0 && (h_tokens == NULL || h_perm == NULL || h_position_row == NULL)))
    return SK_ERROR_NULL_POINTER;
  arrays[0] = h_perm, bytes[0] = (size_t)num_tokens * sizeof(int32_t);
  arrays[1] = h_position_row, bytes[1] = bytes[0];
  arrays[2] = h_word_offsets, bytes[2] = ((size_t)num_cols + 1) * sizeof(int64_t);
  arrays[3] = h_tokens, bytes[3] = bytes[0];
  arrays[4] = h_row_offsets, bytes[4] = ((size_t)num_rows + 1) * sizeof(int64_t);
  if (sk_detail_rows_any_overlap(arrays, bytes, 3, 5)) return SK_ERROR_INVALID_VALUE;
  /* The offsets never decrease and span num_tokens tokens (an unsigned difference, exact once they are
   * known to increase, so that offsets that do not start at 0 cannot overflow it). */
  for (r = 0; r < num_rows; ++r)
    if (h_row_offsets[r + 1] < h_row_offsets[r]) return SK_ERROR_INVALID_VALUE;
  if ((uint64_t)h_row_offsets[num_rows] - (uint64_t)h_row_offsets[0] != (uint64_t)num_tokens)
    return SK_ERROR_INVALID_VALUE;
  {
    /* A reduction rather than an early exit, so that the check vectorises. */
    uint32_t bad = 0;
    int64_t i;
    for (i = 0; i < num_tokens; ++i) bad |= (uint32_t)((uint32_t)h_tokens[i] >= (uint32_t)num_cols);
    if (bad) return SK_ERROR_INVALID_VALUE;
  }

  /* Counts, then exclusive starts; the scatter in document order (stable), row by row so that it knows
   * each token's row; each start moves to its word's end, the next word's start, so shifting by one
   * restores the offsets. */
  for (w = 0; w <= num_cols; ++w) h_word_offsets[w] = 0;
  {
    int64_t i, sum = 0;
    for (i = 0; i < num_tokens; ++i) ++h_word_offsets[h_tokens[i]];
    for (w = 0; w < num_cols; ++w) {
      const int64_t c = h_word_offsets[w];
      h_word_offsets[w] = sum;
      sum += c;
    }
    h_word_offsets[num_cols] = sum;
  }
  for (r = 0; r < num_rows; ++r) {
    const int64_t end = h_row_offsets[r + 1] - h_row_offsets[0];
    int64_t i;
    for (i = h_row_offsets[r] - h_row_offsets[0]; i < end; ++i) {
      const int64_t j = h_word_offsets[h_tokens[i]]++;
      h_perm[j] = (int32_t)i;
      h_position_row[j] = (int32_t)r;
    }
  }
  for (w = num_cols; w > 0; --w) h_word_offsets[w] = h_word_offsets[w - 1];
  h_word_offsets[0] = 0;
  return SK_SUCCESS;
}

/* The values and input pointers, which the count and the build check first. */
static sk_status sk_detail_groups_check(const int32_t *h_position_row, int64_t num_tokens, int32_t num_cols,
                                        const int64_t *h_word_offsets, int32_t item_tokens) {
  if (num_tokens < 0 || num_tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS || num_cols < 0 || item_tokens < 1)
    return SK_ERROR_INVALID_VALUE;
  if (h_word_offsets == NULL || (num_tokens > 0 && h_position_row == NULL)) return SK_ERROR_NULL_POINTER;
  return SK_SUCCESS;
}

/* The word offsets run from 0 to num_tokens without decreasing: the walk then stays inside the arrays. */
static int sk_detail_word_offsets_ok(const int64_t *h_word_offsets, int64_t num_tokens, int32_t num_cols) {
  int64_t w;
  if (h_word_offsets[0] != 0 || h_word_offsets[num_cols] != num_tokens) return 0;
  for (w = 0; w < num_cols; ++w)
    if (h_word_offsets[w + 1] < h_word_offsets[w]) return 0;
  return 1;
}

/* The output of the walk, when it writes (group_start NULL: it only counts). */
typedef struct {
  int32_t *group_start, *group_row, *item_word, *item_group, *item_end, *size;
} sk_detail_groups_out;

/* The walk: each word's positions in order, a group at each change of row, the groups cut greedily into
 * items (see the header). Counts the groups and items, and the most tokens of an item in *largest;
 * writes them, in word order, when o->group_start is set (the caller has checked the room). */
static void sk_detail_groups_walk(const int32_t *position_row, int32_t num_cols, const int64_t *word_offsets,
                                  int32_t item_tokens, const sk_detail_groups_out *o, int64_t *num_groups,
                                  int64_t *num_items, int32_t *largest) {
  int64_t w, groups = 0, items = 0;
  int32_t most = 0;
  for (w = 0; w < num_cols; ++w) {
    const int64_t end = word_offsets[w + 1];
    int64_t j = word_offsets[w], item_start = j;
    while (j < end) {
      const int32_t row = position_row[j];
      int64_t k = j + 1;
      while (k < end && position_row[k] == row) ++k;
      /* group [j, k): the word's first opens an item, a later one when the item would exceed item_tokens */
      if (j == word_offsets[w] || k - item_start > (int64_t)item_tokens) {
        item_start = j;
        if (o->group_start != NULL) {
          o->item_word[items] = (int32_t)w;
          o->item_group[items] = (int32_t)groups;
        }
        ++items;
      }
      if (o->group_start != NULL) {
        o->group_start[groups] = (int32_t)j;
        o->group_row[groups] = row;
        o->item_end[items - 1] = (int32_t)(groups + 1);
        o->size[items - 1] = (int32_t)(k - item_start);
      }
      if (k - item_start > (int64_t)most) most = (int32_t)(k - item_start);
      ++groups;
      j = k;
    }
  }
  *num_groups = groups;
  *num_items = items;
  *largest = most;
}

sk_status sk_csr_chunk_groups_count_host(const int32_t *h_position_row, int64_t num_tokens, int32_t num_cols,
                                         const int64_t *h_word_offsets, int32_t item_tokens, int64_t *num_groups,
                                         int64_t *num_items) {
  sk_detail_groups_out none;
  int64_t groups, items;
  int32_t largest;
  sk_status st = sk_detail_groups_check(h_position_row, num_tokens, num_cols, h_word_offsets, item_tokens);
  if (st != SK_SUCCESS) return st;
  if (num_groups == NULL || num_items == NULL) return SK_ERROR_NULL_POINTER;
  if (!sk_detail_word_offsets_ok(h_word_offsets, num_tokens, num_cols)) return SK_ERROR_INVALID_VALUE;
  memset(&none, 0, sizeof none);
  sk_detail_groups_walk(h_position_row, num_cols, h_word_offsets, item_tokens, &none, &groups, &items, &largest);
  *num_groups = groups;
  *num_items = items;
  return SK_SUCCESS;
}

/* One stable counting-sort pass of idx_in into idx_out by the digit (key[k] >> shift) & mask, which is
 * below num_buckets; count has num_buckets entries. */
static void sk_detail_groups_sort_pass(const int32_t *key, const int32_t *idx_in, int32_t *idx_out, int64_t n,
                                       int shift, uint32_t mask, int64_t num_buckets, int32_t *count) {
  int64_t k, d;
  int32_t sum = 0;
  for (d = 0; d < num_buckets; ++d) count[d] = 0;
  for (k = 0; k < n; ++k) ++count[((uint32_t)key[idx_in[k]] >> shift) & mask];
  for (d = 0; d < num_buckets; ++d) {
    const int32_t c = count[d];
    count[d] = sum;
    sum += c;
  }
  for (k = 0; k < n; ++k) idx_out[count[((uint32_t)key[idx_in[k]] >> shift) & mask]++] = idx_in[k];
}

/* Lists the items by decreasing size, equal sizes in their current (word) order: a stable counting sort
 * on largest - size, in one pass or two digits (see SK_DETAIL_GROUPS_SORT_BUCKETS). `size` (I entries,
 * each in [1, largest]) becomes the scratch of the permutation; idx has 2 I entries and count
 * min(largest + 1, SK_DETAIL_GROUPS_SORT_BUCKETS). */
static void sk_detail_groups_sort_items(int32_t *size, int64_t num_items, int32_t largest, int32_t *idx,
                                        int32_t *count, int32_t *item_word, int32_t *item_group, int32_t *item_end) {
  int32_t *const fields[3] = {item_word, item_group, item_end};
  int32_t *const idx2 = idx + num_items;
  const int32_t *order;
  int64_t k;
  int bits = 0, f;
  if (num_items < 2) return;
  for (k = 0; k < num_items; ++k) {
    size[k] = largest - size[k]; /* ascending key: decreasing size */
    idx[k] = (int32_t)k;
  }
  while (bits < 31 && ((int64_t)1 << bits) <= (int64_t)largest) ++bits;
  if ((int64_t)largest < SK_DETAIL_GROUPS_SORT_BUCKETS) {
    sk_detail_groups_sort_pass(size, idx, idx2, num_items, 0, UINT32_MAX, (int64_t)largest + 1, count);
    order = idx2;
  } else { /* two digits of at most 16 bits: the low one, then the high one, each pass stable */
    const int low = (bits + 1) / 2;
    sk_detail_groups_sort_pass(size, idx, idx2, num_items, 0, ((uint32_t)1 << low) - 1u, (int64_t)1 << low, count);
    sk_detail_groups_sort_pass(size, idx2, idx, num_items, low, ((uint32_t)1 << (bits - low)) - 1u,
                               (int64_t)1 << (bits - low), count);
    order = idx;
  }
  for (f = 0; f < 3; ++f) {
    for (k = 0; k < num_items; ++k) size[k] = fields[f][order[k]];
    memcpy(fields[f], size, (size_t)num_items * sizeof(int32_t));
  }
}

sk_status sk_csr_chunk_groups_host(const int32_t *h_position_row, int64_t num_tokens, int32_t num_cols,
                                   const int64_t *h_word_offsets, int32_t item_tokens, int32_t *h_group_start,
                                   int32_t *h_group_row, int64_t max_groups, int32_t *h_item_word,
                                   int32_t *h_item_group, int32_t *h_item_end, int64_t max_items, int64_t *num_groups,
                                   int64_t *num_items) {
  sk_detail_groups_out out, none;
  const void *arrays[7];
  size_t bytes[7];
  int64_t groups = 0, items = 0, buckets;
  int32_t largest = 0;
  int32_t *scratch;
  sk_status st = sk_detail_groups_check(h_position_row, num_tokens, num_cols, h_word_offsets, item_tokens);
  if (st != SK_SUCCESS) return st;
  if (max_groups < 0 || max_items < 0) return SK_ERROR_INVALID_VALUE;
  if (h_group_start == NULL || num_groups == NULL || num_items == NULL || (max_groups > 0 && h_group_row == NULL) ||
      (max_items > 0 && (h_item_word == NULL || h_item_group == NULL || h_item_end == NULL)))
    return SK_ERROR_NULL_POINTER;
  /* Outputs against every array; the capacities count up to num_tokens, past which nothing is written. */
  if (max_groups > num_tokens) max_groups = num_tokens;
  if (max_items > num_tokens) max_items = num_tokens;
  arrays[0] = h_group_start, bytes[0] = ((size_t)max_groups + 1) * sizeof(int32_t);
  arrays[1] = h_group_row, bytes[1] = (size_t)max_groups * sizeof(int32_t);
  arrays[2] = h_item_word, bytes[2] = (size_t)max_items * sizeof(int32_t);
  arrays[3] = h_item_group, bytes[3] = bytes[2];
  arrays[4] = h_item_end, bytes[4] = bytes[2];
  arrays[5] = h_position_row, bytes[5] = (size_t)num_tokens * sizeof(int32_t);
  arrays[6] = h_word_offsets, bytes[6] = ((size_t)num_cols + 1) * sizeof(int64_t);
  if (sk_detail_rows_any_overlap(arrays, bytes, 5, 7)) return SK_ERROR_INVALID_VALUE;
  if (!sk_detail_word_offsets_ok(h_word_offsets, num_tokens, num_cols)) return SK_ERROR_INVALID_VALUE;

  /* The walk counts first, so that nothing is written unless it all fits. */
  memset(&none, 0, sizeof none);
  sk_detail_groups_walk(h_position_row, num_cols, h_word_offsets, item_tokens, &none, &groups, &items, &largest);
  *num_groups = groups;
  *num_items = items;
  if (groups > max_groups || items > max_items) return SK_ERROR_INVALID_VALUE;
  buckets = (int64_t)largest < SK_DETAIL_GROUPS_SORT_BUCKETS ? (int64_t)largest + 1 : SK_DETAIL_GROUPS_SORT_BUCKETS;
  scratch = (int32_t *)malloc((3 * (size_t)items + (size_t)buckets) * sizeof(int32_t));
  if (scratch == NULL) return SK_ERROR_HOST_ALLOCATION_FAILED;

  out.group_start = h_group_start;
  out.group_row = h_group_row;
  out.item_word = h_item_word;
  out.item_group = h_item_group;
  out.item_end = h_item_end;
  out.size = scratch;
  sk_detail_groups_walk(h_position_row, num_cols, h_word_offsets, item_tokens, &out, &groups, &items, &largest);
  h_group_start[groups] = (int32_t)num_tokens;
  sk_detail_groups_sort_items(scratch, items, largest, scratch + items, scratch + 3 * (size_t)items, h_item_word,
                              h_item_group, h_item_end);
  free(scratch);
  return SK_SUCCESS;
}
