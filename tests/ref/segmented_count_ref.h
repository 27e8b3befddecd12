/*
 * Host reference for the segmented count (segmented_count.h, segmented_count.cuh), in plain C: per
 * segment, gather its keys (through the permutation when there is one), sort them, and emit one
 * (key, count) pair per run. It restates the contract literally and shares no code with the kernels.
 * Also the input generators the test and the benchmark's documentation describe: Zipf-shaped ranks
 * and long-tailed (lognormal) segment lengths, both driven by uniforms the caller draws.
 */
#ifndef SAMPLEKIT_TESTS_SEGMENTED_COUNT_REF_H
#define SAMPLEKIT_TESTS_SEGMENTED_COUNT_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The distinct values of keys[0, n) in increasing order and how often each occurs: out_keys and
   out_counts receive D <= n entries; scratch holds n entries (a sorted copy). Any 32-bit keys (the
   block function's contract). Returns D. */
int64_t sk_ref_count_keys_u32(const uint32_t *keys, int64_t n, uint32_t *scratch, uint32_t *out_keys,
                              uint32_t *out_counts);

/* What sk_segmented_count_check_u32() reports, in its documented order: -1 for good input, else the
   first offending index: an offset index j in [0, num_segments] (offsets[0] != 0: 0; offsets[j] <
   offsets[j - 1]: the first such j; offsets[num_segments] != num_items: num_segments), then an item i
   whose perm entry is outside [0, num_items) (every entry checked before any key), then an item i
   whose key (keys[perm[i]] or keys[i]) is outside [0, num_keys). perm may be NULL. */
int64_t sk_ref_segmented_count_check_u32(const int32_t *offsets, int32_t num_segments, int32_t num_items,
                                         const uint32_t *keys, const int32_t *perm, int32_t num_keys);

/* The device-wide result for good input (see sk_ref_segmented_count_check_u32): out_offsets gets
   num_segments + 1 entries, out_keys and out_counts up to num_items pairs each (P of them). perm may
   be NULL. Returns P; -1 when the input is bad (nothing written); -2 when host memory ran out. */
int64_t sk_ref_segmented_count_u32(const int32_t *offsets, int32_t num_segments, int32_t num_items,
                                   const uint32_t *keys, const int32_t *perm, int32_t num_keys, int32_t *out_offsets,
                                   uint32_t *out_keys, uint32_t *out_counts);

/* A Zipf-shaped rank in [0, n) from a uniform u in [0, 1): the continuous power law of density
   proportional to x^-exponent on [1, n + 1), by inversion, floored and shifted to start at 0. So rank
   r has probability about (r + 1)^-exponent / H; exponent 1 is the log-uniform law. exponent >= 0. */
int32_t sk_ref_zipf_rank(double u, int32_t n, double exponent);

/* CSR offsets of num_segments lognormal lengths (sigma given, median = mean x exp(-sigma^2 / 2)), each
   capped at cap_ratio x mean, then rescaled by cumulative rounding so that the offsets end exactly at
   num_items (empty segments are possible). gauss: num_segments standard normal deviates (the caller's
   generator); scratch: num_segments doubles. offsets: num_segments + 1 entries. */
void sk_ref_long_tailed_offsets(const double *gauss, int32_t num_segments, int32_t num_items, double sigma,
                                double cap_ratio, double *scratch, int32_t *offsets);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_SEGMENTED_COUNT_REF_H */
