/* Host references for the warp primitives; see warp_ref.h. */
#include "warp_ref.h"

#include <stdlib.h>
#include <string.h>

int sk_ref_popc(uint32_t mask) {
  int n = 0;
  for (; mask; mask &= mask - 1u) ++n;
  return n;
}

int sk_ref_lane_of_rank(uint32_t mask, int rank) {
  int lane;
  for (lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) {
      if (rank == 0) return lane;
      --rank;
    }
  return -1;
}

/* Gathers members by rank, runs Kogge-Stone over ranks (step s: rank r adds rank r - s), scatters. */
#define SK_REF_DEFINE_INCLUSIVE(T, suffix)                                              \
  static void sk_ref_kogge_stone_##suffix(T *v, int m) {                                \
    T prev[32];                                                                         \
    int s, r;                                                                           \
    for (s = 1; s < 32; s <<= 1) {                                                      \
      memcpy(prev, v, sizeof(T) * (size_t)m);                                           \
      for (r = s; r < m; ++r) v[r] = (T)(prev[r - s] + prev[r]);                        \
    }                                                                                   \
  }                                                                                     \
  void sk_ref_warp_inclusive_sum_##suffix(uint32_t mask, const T in[32], T out[32]) {  \
    T v[32];                                                                            \
    const int m = sk_ref_popc(mask);                                                    \
    int r;                                                                              \
    for (r = 0; r < m; ++r) v[r] = in[sk_ref_lane_of_rank(mask, r)];                    \
    sk_ref_kogge_stone_##suffix(v, m);                                                  \
    for (r = 0; r < m; ++r) out[sk_ref_lane_of_rank(mask, r)] = v[r];                   \
  }

SK_REF_DEFINE_INCLUSIVE(float, f32)
SK_REF_DEFINE_INCLUSIVE(uint32_t, u32)
SK_REF_DEFINE_INCLUSIVE(double, f64)

void sk_ref_rank_inclusive_sum_f32(float *v, int m) { sk_ref_kogge_stone_f32(v, m); }

void sk_ref_warp_exclusive_sum_f32(uint32_t mask, const float in[32], float out[32]) {
  float inc[32];
  const int m = sk_ref_popc(mask);
  int r;
  sk_ref_warp_inclusive_sum_f32(mask, in, inc);
  for (r = 0; r < m; ++r)
    out[sk_ref_lane_of_rank(mask, r)] = r == 0 ? 0.0f : inc[sk_ref_lane_of_rank(mask, r - 1)];
}

void sk_ref_warp_exclusive_sum_u32(uint32_t mask, const uint32_t in[32], uint32_t out[32]) {
  uint32_t inc[32];
  int lane;
  sk_ref_warp_inclusive_sum_u32(mask, in, inc);
  for (lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) out[lane] = inc[lane] - in[lane];
}

void sk_ref_warp_sum_f32(uint32_t mask, const float in[32], float out[32]) {
  int lane;
  float total;
  if (mask == 0xffffffffu) {
    /* Butterfly over distances 16, 8, 4, 2, 1: every lane ends with the same bits. */
    float v[32], prev[32];
    int d;
    memcpy(v, in, sizeof v);
    for (d = 16; d > 0; d >>= 1) {
      memcpy(prev, v, sizeof v);
      for (lane = 0; lane < 32; ++lane) v[lane] = prev[lane] + prev[lane ^ d];
    }
    total = v[0];
  } else {
    float inc[32];
    sk_ref_warp_inclusive_sum_f32(mask, in, inc);
    total = inc[sk_ref_lane_of_rank(mask, sk_ref_popc(mask) - 1)];
  }
  for (lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) out[lane] = total;
}

void sk_ref_warp_exclusive_sum_f64(uint32_t mask, const double in[32], double out[32]) {
  double inc[32];
  const int m = sk_ref_popc(mask);
  int r;
  sk_ref_warp_inclusive_sum_f64(mask, in, inc);
  for (r = 0; r < m; ++r)
    out[sk_ref_lane_of_rank(mask, r)] = r == 0 ? 0.0 : inc[sk_ref_lane_of_rank(mask, r - 1)];
}

void sk_ref_warp_sum_f64(uint32_t mask, const double in[32], double out[32]) {
  int lane;
  double total;
  if (mask == 0xffffffffu) {
    /* Butterfly over distances 16, 8, 4, 2, 1, as sk_warp_sum_f32. */
    double v[32], prev[32];
    int d;
    memcpy(v, in, sizeof v);
    for (d = 16; d > 0; d >>= 1) {
      memcpy(prev, v, sizeof v);
      for (lane = 0; lane < 32; ++lane) v[lane] = prev[lane] + prev[lane ^ d];
    }
    total = v[0];
  } else {
    double inc[32];
    sk_ref_warp_inclusive_sum_f64(mask, in, inc);
    total = inc[sk_ref_lane_of_rank(mask, sk_ref_popc(mask) - 1)];
  }
  for (lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) out[lane] = total;
}

void sk_ref_warp_sum_u32(uint32_t mask, const uint32_t in[32], uint32_t out[32]) {
  uint32_t total = 0;
  int lane;
  for (lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) total += in[lane];
  for (lane = 0; lane < 32; ++lane)
    if ((mask >> lane) & 1u) out[lane] = total;
}

int sk_ref_warp_first_lane(uint32_t mask, const int pred[32]) {
  int lane;
  for (lane = 0; lane < 32; ++lane)
    if (((mask >> lane) & 1u) && pred[lane]) return lane;
  return -1;
}

int sk_ref_warp_last_lane(uint32_t mask, const int pred[32]) {
  int lane;
  for (lane = 31; lane >= 0; --lane)
    if (((mask >> lane) & 1u) && pred[lane]) return lane;
  return -1;
}

int sk_ref_warp_count_below(uint32_t mask, const int pred[32], int lane) {
  int l, n = 0;
  for (l = 0; l < lane; ++l)
    if (((mask >> l) & 1u) && pred[l]) ++n;
  return n;
}

int sk_ref_warp_count(uint32_t mask, const int pred[32]) { return sk_ref_warp_count_below(mask, pred, 32); }

/*
 * The walk of sk_warp_sample_prefix: rounds of m = popc(mask) entries; P_i is the carry plus the
 * round's inclusive warp sum at i (entries past n read as 0); the carry into a round is P of the last
 * entry before it, and `start` into the first. The sample is the first i with w_i > 0 and P_i > u,
 * else the last positive entry, else -1.
 */
#define SK_REF_DEFINE_SAMPLE_PREFIX(T, suffix)                                                  \
  static void sk_ref_running_sums_from_##suffix(uint32_t mask, const T *w, int n, T start,      \
                                                T *running) {                                   \
    const int m = sk_ref_popc(mask);                                                            \
    T carry = start;                                                                            \
    int base, r;                                                                                \
    for (base = 0; base < n; base += m) {                                                       \
      T v[32];                                                                                  \
      for (r = 0; r < m; ++r) v[r] = base + r < n ? w[base + r] : (T)0;                         \
      sk_ref_kogge_stone_##suffix(v, m);                                                        \
      for (r = 0; r < m && base + r < n; ++r) running[base + r] = (T)(carry + v[r]);            \
      carry = running[base + r - 1];                                                            \
    }                                                                                           \
  }                                                                                             \
  static int sk_ref_sample_prefix_from_##suffix(uint32_t mask, const T *weights, int n, T start, \
                                                T u) {                                          \
    T *running = (T *)malloc(sizeof(T) * (size_t)(n > 0 ? n : 1));                             \
    int i, found = -1;                                                                          \
    sk_ref_running_sums_from_##suffix(mask, weights, n, start, running);                        \
    for (i = 0; i < n && found < 0; ++i)                                                        \
      if (weights[i] > (T)0 && running[i] > u) found = i;                                       \
    for (i = n - 1; i >= 0 && found < 0; --i)                                                   \
      if (weights[i] > (T)0) found = i;                                                         \
    free(running);                                                                              \
    return found;                                                                               \
  }                                                                                             \
  T sk_ref_warp_prefix_total_##suffix(uint32_t mask, const T *weights, int n) {                \
    T *running = (T *)malloc(sizeof(T) * (size_t)(n > 0 ? n : 1));                              \
    T total;                                                                                    \
    sk_ref_running_sums_from_##suffix(mask, weights, n, (T)0, running);                         \
    total = n > 0 ? running[n - 1] : (T)0;                                                      \
    free(running);                                                                              \
    return total;                                                                               \
  }

SK_REF_DEFINE_SAMPLE_PREFIX(float, f32)
SK_REF_DEFINE_SAMPLE_PREFIX(uint32_t, u32)
SK_REF_DEFINE_SAMPLE_PREFIX(double, f64)

void sk_ref_warp_running_sums_f32(uint32_t mask, const float *weights, int n, float *running) {
  sk_ref_running_sums_from_f32(mask, weights, n, 0.0f, running);
}

void sk_ref_warp_running_sums_u32(uint32_t mask, const uint32_t *weights, int n, uint32_t *running) {
  sk_ref_running_sums_from_u32(mask, weights, n, 0u, running);
}

void sk_ref_warp_running_sums_f64(uint32_t mask, const double *weights, int n, double start, double *running) {
  sk_ref_running_sums_from_f64(mask, weights, n, start, running);
}

int sk_ref_warp_sample_prefix_f32(uint32_t mask, const float *weights, int n, float u) {
  return sk_ref_sample_prefix_from_f32(mask, weights, n, 0.0f, u);
}

int sk_ref_warp_sample_prefix_u32(uint32_t mask, const uint32_t *weights, int n, uint32_t u) {
  return sk_ref_sample_prefix_from_u32(mask, weights, n, 0u, u);
}

int sk_ref_warp_sample_prefix_f64(uint32_t mask, const double *weights, int n, double start, double u) {
  return sk_ref_sample_prefix_from_f64(mask, weights, n, start, u);
}

/* The halving tree of block_sum.cuh, written as its definition: level s adds t[i + s] onto t[i]. */
double sk_ref_block_sum_f64(const double *values, int num_threads) {
  double t[1024];
  int p = 1, s, i;
  while (p < num_threads) p <<= 1;
  memcpy(t, values, sizeof(double) * (size_t)num_threads);
  for (s = p / 2; s > 0; s >>= 1)
    for (i = 0; i < s; ++i)
      if (i + s < num_threads) t[i] = t[i] + t[i + s];
  return t[0];
}

double sk_ref_block_sum_array_f64(const double *values, int64_t n, int num_threads) {
  double sums[1024];
  int i;
  int64_t j;
  for (i = 0; i < num_threads; ++i) {
    sums[i] = 0.0;
    for (j = i; j < n; j += num_threads) sums[i] = sums[i] + values[j];
  }
  return sk_ref_block_sum_f64(sums, num_threads);
}
