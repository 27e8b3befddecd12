/*
 * Host references for the warp primitives, in plain C. Each takes the 32 lanes' inputs and the lane
 * mask and writes results for the member lanes only (non-members' outputs are left untouched), in the
 * exact order of operations the device code documents, so that float results can be compared bit for bit.
 */
#ifndef SAMPLEKIT_TESTS_WARP_REF_H
#define SAMPLEKIT_TESTS_WARP_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void sk_ref_warp_inclusive_sum_f32(uint32_t mask, const float in[32], float out[32]);
void sk_ref_warp_inclusive_sum_u32(uint32_t mask, const uint32_t in[32], uint32_t out[32]);
void sk_ref_warp_exclusive_sum_f32(uint32_t mask, const float in[32], float out[32]);
void sk_ref_warp_exclusive_sum_u32(uint32_t mask, const uint32_t in[32], uint32_t out[32]);
void sk_ref_warp_sum_f32(uint32_t mask, const float in[32], float out[32]);
void sk_ref_warp_sum_u32(uint32_t mask, const uint32_t in[32], uint32_t out[32]);

/* Votes: the same value for every member. */
int sk_ref_warp_first_lane(uint32_t mask, const int pred[32]);
int sk_ref_warp_last_lane(uint32_t mask, const int pred[32]);
int sk_ref_warp_count(uint32_t mask, const int pred[32]);
int sk_ref_warp_count_below(uint32_t mask, const int pred[32], int lane);

/* sk_warp_sample_prefix_* and sk_warp_prefix_total_* with the members' walk replayed; running[i] = P_i. */
void sk_ref_warp_running_sums_f32(uint32_t mask, const float *weights, int n, float *running);
void sk_ref_warp_running_sums_u32(uint32_t mask, const uint32_t *weights, int n, uint32_t *running);
int sk_ref_warp_sample_prefix_f32(uint32_t mask, const float *weights, int n, float u);
int sk_ref_warp_sample_prefix_u32(uint32_t mask, const uint32_t *weights, int n, uint32_t u);
float sk_ref_warp_prefix_total_f32(uint32_t mask, const float *weights, int n);
uint32_t sk_ref_warp_prefix_total_u32(uint32_t mask, const uint32_t *weights, int n);

/* Number of members of a mask, and the lane of the member of a given rank. */
int sk_ref_popc(uint32_t mask);
int sk_ref_lane_of_rank(uint32_t mask, int rank);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_WARP_REF_H */
