/*
 * Host reference for the block counting sort (block_count_sort.cuh), in plain C: a stable counting
 * sort (count, exclusive scan, scatter in item order), so that within each key the items come in
 * increasing order: the canonical order. The device leaves the order within a key unspecified, so a
 * device result is compared after sk_ref_block_count_sort_canonical_u32() has put each of its key
 * ranges in that order. Shares no code with the device function.
 */
#ifndef SAMPLEKIT_TESTS_BLOCK_COUNT_SORT_REF_H
#define SAMPLEKIT_TESTS_BLOCK_COUNT_SORT_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The result sk_block_count_sort_u32() documents, in the canonical order: key_ends[c] (num_keys
   entries) is the number of items whose key is at most c; slots[j] (num_items entries) is
   (key << 16) | item, the keys non-decreasing and, within a key, the items increasing. num_items 0 to
   65,536, num_keys 1 to 65,536. Returns 0; -1 (nothing written) when an argument or a key is out of
   range; -2 when host memory ran out. */
int sk_ref_block_count_sort_u32(const uint32_t *keys, int32_t num_items, int32_t num_keys, uint32_t *key_ends,
                                uint32_t *slots);

/* Puts each key's range of slots, [c == 0 ? 0 : key_ends[c - 1], key_ends[c]), in increasing order, in
   place (slots: num_items entries). Ranges are taken as the ends say, so a slot in the wrong range
   stays there and a comparison with the reference finds it. Returns 0; -1 (nothing changed) when the
   ends are not non-decreasing or pass num_items. */
int sk_ref_block_count_sort_canonical_u32(const uint32_t *key_ends, int32_t num_keys, uint32_t *slots,
                                          int32_t num_items);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_BLOCK_COUNT_SORT_REF_H */
