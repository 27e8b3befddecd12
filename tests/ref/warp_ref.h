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
/* The inclusive sum of m <= 32 values already in rank order (v[r] is the member of rank r's), in place. */
void sk_ref_rank_inclusive_sum_f32(float *v, int m);

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

/* Doubles (warp_scan.cuh's and warp_sample_prefix.cuh's _f64 functions), in the same orders as the
   float versions. The prefix walk takes `start`, the running sums' starting value (0 for the plain
   functions, any value for sk_warp_sample_prefix_from_by_f64). */
void sk_ref_warp_inclusive_sum_f64(uint32_t mask, const double in[32], double out[32]);
void sk_ref_warp_exclusive_sum_f64(uint32_t mask, const double in[32], double out[32]);
void sk_ref_warp_sum_f64(uint32_t mask, const double in[32], double out[32]);
void sk_ref_warp_running_sums_f64(uint32_t mask, const double *weights, int n, double start, double *running);
int sk_ref_warp_sample_prefix_f64(uint32_t mask, const double *weights, int n, double start, double u);
double sk_ref_warp_prefix_total_f64(uint32_t mask, const double *weights, int n);

/* block_sum.cuh: the halving tree over num_threads values (1 to 1024; entries past num_threads absent),
   and the array sum (thread i adds values[i], values[i + T], ... from +0.0, then the tree). */
double sk_ref_block_sum_f64(const double *values, int num_threads);
double sk_ref_block_sum_array_f64(const double *values, int64_t n, int num_threads);

/* Number of members of a mask, and the lane of the member of a given rank. */
int sk_ref_popc(uint32_t mask);
int sk_ref_lane_of_rank(uint32_t mask, int rank);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_WARP_REF_H */
