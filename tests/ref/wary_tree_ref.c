/* Host reference for the W-ary sampling tree; see wary_tree_ref.h. */
#include "wary_tree_ref.h"

#include <math.h>
#include <stdint.h>

#include "warp_ref.h"

static int sk_ref_pad32(int e) { return (e + 31) / 32 * 32; }

int sk_ref_wary_tree_num_levels(int n) {
  int levels = 1, e = n;
  if (n < 1 || n > 1048576) return 0;
  while (e > 32) {
    e = (e + 31) / 32;
    ++levels;
  }
  return levels;
}

int sk_ref_wary_tree_level_entries(int n, int level) {
  int e = n, k;
  for (k = 0; k < level; ++k) e = (e + 31) / 32;
  return e;
}

size_t sk_ref_wary_tree_level_offset(int n, int level) {
  size_t offset = 0;
  int k;
  for (k = 0; k < level; ++k) offset += (size_t)sk_ref_pad32(sk_ref_wary_tree_level_entries(n, k));
  return offset;
}

size_t sk_ref_wary_tree_floats(int n) { return sk_ref_wary_tree_level_offset(n, sk_ref_wary_tree_num_levels(n)); }

/*
 * Rounds of 32 leaves (leaves past n weigh 0). S = the round's inclusive warp sum (Kogge-Stone, as
 * sk_warp_inclusive_sum_f32 adds). A leaf with a positive weight: P_i = carry + S_i; a leaf of weight 0
 * (or past n): P_i = P_{i-1}, with P_{-1} = +0. The carry into a round is P of the previous round's last
 * leaf. Writes the padded level 0 (32 * ceil(n / 32) floats) when `padded` is set, else n floats.
 */
static void sk_ref_wary_tree_level0(const float *weights, int n, float *out, int padded) {
  const int rounds = (n + 31) / 32;
  float carry = 0.0f, previous = 0.0f;
  int r, l;
  for (r = 0; r < rounds; ++r) {
    float v[32], scan[32];
    for (l = 0; l < 32; ++l) v[l] = 32 * r + l < n ? weights[32 * r + l] : 0.0f;
    sk_ref_warp_inclusive_sum_f32(0xffffffffu, v, scan);
    for (l = 0; l < 32; ++l) {
      const int i = 32 * r + l;
      const float p = v[l] > 0.0f ? carry + scan[l] : previous;
      if (i < n || padded) out[i] = p;
      previous = p;
    }
    carry = previous;
  }
}

void sk_ref_wary_tree_leaf_sums_f32(const float *weights, int n, float *running) {
  sk_ref_wary_tree_level0(weights, n, running, 0);
}

void sk_ref_wary_tree_build_f32(const float *weights, int n, float *tree) {
  const int levels = sk_ref_wary_tree_num_levels(n);
  float total;
  int k, i;
  sk_ref_wary_tree_level0(weights, n, tree, 1);
  total = tree[n - 1];
  for (k = 1; k < levels; ++k) {
    const float *below = tree + sk_ref_wary_tree_level_offset(n, k - 1);
    float *level = tree + sk_ref_wary_tree_level_offset(n, k);
    const int e = sk_ref_wary_tree_level_entries(n, k);
    for (i = 0; i < sk_ref_pad32(e); ++i) level[i] = i < e ? below[32 * i + 31] : total;
  }
}

float sk_ref_wary_tree_total_f32(const float *tree, int n) {
  return tree[sk_ref_wary_tree_level_offset(n, sk_ref_wary_tree_num_levels(n) - 1) + 31];
}

float sk_ref_wary_tree_clamp_u_f32(float u, float total) {
  float x = fmaxf(u, 0.0f); /* C99: a NaN argument gives the other one */
  if (x >= total) x = nextafterf(total, 0.0f);
  return x;
}

int sk_ref_wary_tree_search_f32(const float *tree, int n, float u) {
  const int levels = sk_ref_wary_tree_num_levels(n);
  const float total = sk_ref_wary_tree_total_f32(tree, n);
  float x;
  int k, index = 0;
  if (!(total > 0.0f)) return -1;
  x = sk_ref_wary_tree_clamp_u_f32(u, total);
  for (k = levels - 1; k >= 0; --k) {
    const float *group = tree + sk_ref_wary_tree_level_offset(n, k) + 32 * (size_t)index;
    int lane = 0;
    while (lane < 32 && !(group[lane] > x)) ++lane;
    if (lane == 32) return -2;
    index = 32 * index + lane;
  }
  return index;
}
