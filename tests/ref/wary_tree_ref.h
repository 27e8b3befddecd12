/*
 * Host reference for the W-ary sampling tree (wary_tree.h), in plain C. It restates the layout from
 * the specification (independently of wary_tree.h's helpers, which the tests check against it) and
 * replays the documented order of operations literally: the running sum of a leaf of weight 0 is the
 * running sum before it, and the search goes down level by level. Results compare bit for bit.
 */
#ifndef SAMPLEKIT_TESTS_WARY_TREE_REF_H
#define SAMPLEKIT_TESTS_WARY_TREE_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layout: levels until one has at most 32 entries; each level padded to a multiple of 32. */
int sk_ref_wary_tree_num_levels(int n);
int sk_ref_wary_tree_level_entries(int n, int level);
size_t sk_ref_wary_tree_level_offset(int n, int level); /* level may be num_levels: the end */
size_t sk_ref_wary_tree_floats(int n);

/* The leaves' running sums P_0 .. P_{n-1} (n floats), in the documented order. */
void sk_ref_wary_tree_leaf_sums_f32(const float *weights, int n, float *running);

/* The whole tree: sk_ref_wary_tree_floats(n) floats. */
void sk_ref_wary_tree_build_f32(const float *weights, int n, float *tree);

/* The total: the top level's last entry. */
float sk_ref_wary_tree_total_f32(const float *tree, int n);

/* u clamped as the search clamps it: max(u, 0) (NaN gives 0), then below the total. */
float sk_ref_wary_tree_clamp_u_f32(float u, float total);

/* The level-by-level search: a leaf, or -1 when the total is not positive; -2 if some level has no
   entry above the clamped u (a broken invariant: never for a tree built by the reference). */
int sk_ref_wary_tree_search_f32(const float *tree, int n, float u);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_WARY_TREE_REF_H */
