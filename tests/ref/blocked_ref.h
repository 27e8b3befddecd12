/*
 * Host reference for sk_warp_blocked_sample_* (include/samplekit/warp_blocked_sample.cuh), in plain C:
 * the blocked layout's additions replayed in the order the header documents (each member's R entries in
 * index order, the members' Kogge-Stone sum, the carry from the top member, the owner's walk from
 * Q_r - s_r), so that the device's results can be compared exactly.
 */
#ifndef SAMPLEKIT_TESTS_BLOCKED_REF_H
#define SAMPLEKIT_TESTS_BLOCKED_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a draw ended, for the tests' coverage counts. */
typedef enum sk_ref_blocked_path {
  SK_REF_BLOCKED_FOUND = 0,         /* the owner's walk found an entry whose running sum exceeds x */
  SK_REF_BLOCKED_OWNER_MISSED = 1,  /* it found none (rounding): the owner's last positive entry */
  SK_REF_BLOCKED_NO_OWNER = 2,      /* no member qualified: the last positive entry of the vector */
  SK_REF_BLOCKED_EMPTY = 3,         /* no positive weight (or n == 0): -1 */
  SK_REF_BLOCKED_PATHS = 4
} sk_ref_blocked_path;

/* Planted bugs, the controls the tests must catch: the owner's walk starting from the exclusive sum
   Q_{r-1} (the carry for the first member) instead of Q_r - s_r; a tie at a running sum given to the
   earlier entry (>= in place of >). */
typedef enum sk_ref_blocked_bug {
  SK_REF_BLOCKED_NO_BUG = 0,
  SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE = 1,
  SK_REF_BLOCKED_BUG_TIE_EARLIER = 2,
  SK_REF_BLOCKED_BUGS = 3
} sk_ref_blocked_bug;

/* sk_warp_blocked_total_by_f32: the carry after the last block (0 when n == 0). */
float sk_ref_warp_blocked_total_f32(uint32_t mask, int R, const float *w, int n);

/* The running sums: member_end[b * m + r] = Q_r of block b (m = popc(mask), ceil(n / (m R)) blocks) and
   entry[i] = P_i for i < n. Either may be NULL. */
void sk_ref_warp_blocked_running_sums_f32(uint32_t mask, int R, const float *w, int n, float *member_end,
                                          float *entry);

/* sk_warp_blocked_walk_by_f32 at x; path (may be NULL) gets how the draw ended. */
int sk_ref_warp_blocked_walk_f32(uint32_t mask, int R, const float *w, int n, float x, sk_ref_blocked_bug bug,
                                 sk_ref_blocked_path *path);

/* sk_warp_blocked_sample_by_f32 (one block: n <= R popc(mask), later entries left out) at u, written
   apart from the walk (AGA-LDA's structure: first owner, else the last member with a positive sum, the
   owner's walk told whether it is past), so that the two cross-check each other. */
int sk_ref_warp_blocked_sample_f32(uint32_t mask, int R, const float *w, int n, float u, sk_ref_blocked_bug bug,
                                   sk_ref_blocked_path *path);

/* sk_warp_blocked_hold_by_f64 on doubles (one block): sum[lane] = s_r and running[lane] = Q_r of the
   member in that lane (0 and unspecified outside the mask); returns the total (0 for an empty mask). */
double sk_ref_warp_blocked_hold_f64(uint32_t mask, int R, const double *w, int n, double sum[32], double running[32]);

/* sk_warp_blocked_hold_by_f64 + sk_warp_blocked_find_f64 at x (one block: n <= R popc(mask), later
   entries left out), on doubles; *total (may be NULL) gets the hold's total. Written apart from the f32
   functions (members by lane, sk_ref_warp_inclusive_sum_f64 for the warp sum). */
int sk_ref_warp_blocked_find_f64(uint32_t mask, int R, const double *w, int n, double x, double *total,
                                 sk_ref_blocked_bug bug, sk_ref_blocked_path *path);

/* sk_warp_strided_hold_by_f32 (warp_strided_sample.cuh; n <= R popc(mask), later entries left out):
   sum[lane] = s_r and running[lane] = Q_r of the member in that lane (0 outside the mask), entry[i] = P_i
   for i < n when entry is not NULL; returns the total (0 for an empty mask or n == 0). Written by lane and
   round, apart from the blocked functions (the tests cross-check the two through the permutation). */
float sk_ref_warp_strided_hold_f32(uint32_t mask, int R, const float *w, int n, float sum[32], float running[32],
                                   float *entry);

/* sk_warp_strided_hold_by_f32 + sk_warp_strided_find_f32 at x; *total (may be NULL) gets the hold's total. */
int sk_ref_warp_strided_find_f32(uint32_t mask, int R, const float *w, int n, float x, float *total,
                                 sk_ref_blocked_bug bug, sk_ref_blocked_path *path);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_BLOCKED_REF_H */
