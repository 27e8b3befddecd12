/*
 * Host reference for the warp sorted set (warp_sorted_set.cuh), in plain C: a strictly increasing
 * array changed in place with memmove, so that after any sequence of calls the whole array, including
 * the entries past the size that an erase leaves as they were, is what the device's array must be. It
 * restates the contract literally and shares no code with the device functions.
 */
#ifndef SAMPLEKIT_TESTS_SORTED_SET_REF_H
#define SAMPLEKIT_TESTS_SORTED_SET_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The number of keys[0, n) below key (a binary search: the keys are strictly increasing). */
int32_t sk_ref_sorted_set_rank_i32(const int32_t *keys, int32_t n, int32_t key);

/* Whether key is one of keys[0, n). */
int sk_ref_sorted_set_contains_i32(const int32_t *keys, int32_t n, int32_t key);

/* Adds key (absent) at its rank, moving keys[rank, n) up one place; entries past n are not touched.
   Returns n + 1. */
int32_t sk_ref_sorted_set_insert_i32(int32_t *keys, int32_t n, int32_t key);

/* Removes key (present), moving keys[rank + 1, n) down one place; entry n - 1 keeps its value.
   Returns n - 1. */
int32_t sk_ref_sorted_set_erase_i32(int32_t *keys, int32_t n, int32_t key);

/* 32 w + b for every set bit b of bits[w], w < words, increasing, into keys. Returns their number. */
int32_t sk_ref_sorted_set_from_bitmap_i32(const uint32_t *bits, int32_t words, int32_t *keys);

/* Every k < K with counts[k] != 0, increasing, into keys; when bitmap is not NULL, its ceil(K / 32)
   words get bit k % 32 of word k / 32 set exactly for those k. Returns their number. */
int32_t sk_ref_sorted_set_from_counts_i32(const int32_t *counts, int32_t K, int32_t *keys, uint32_t *bitmap);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_SORTED_SET_REF_H */
