/*
 * Lane masks and value kinds shared by the warp tests: every test sweeps the same masks so that the
 * mask contract is tested the same way everywhere.
 */
#ifndef SAMPLEKIT_TESTS_WARP_CASES_H
#define SAMPLEKIT_TESTS_WARP_CASES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sk_test.h"

/* The full warp; every low run 1..31; every single lane; high runs; alternating; then random subsets. */
static inline int sk_test_masks(uint32_t *masks, int capacity, uint64_t *rng) {
  int n = 0, i;
  masks[n++] = 0xffffffffu;
  for (i = 1; i < 32; ++i) masks[n++] = (1u << i) - 1u;
  for (i = 0; i < 32; ++i) masks[n++] = 1u << i;
  for (i = 1; i < 32; ++i) masks[n++] = 0xffffffffu << i;
  masks[n++] = 0x55555555u;
  masks[n++] = 0xaaaaaaaau;
  masks[n++] = 0x80000001u;
  while (n < capacity) {
    /* Random subsets of several densities (never empty). */
    uint32_t m = sk_test_rand_u32(rng);
    const int density = (int)(sk_test_rand_u32(rng) % 4u);
    if (density == 1) m &= sk_test_rand_u32(rng);
    if (density == 2) m |= sk_test_rand_u32(rng);
    if (density == 3) m &= sk_test_rand_u32(rng) & sk_test_rand_u32(rng);
    masks[n++] = m ? m : 1u;
  }
  return n;
}

enum { SK_TEST_VALUE_KINDS = 8 };
static const char *const sk_test_value_kind_names[SK_TEST_VALUE_KINDS] = {
    "uniform [0,1)", "signed uniform", "constant", "one-hot", "skewed 1e30:1", "tiny and subnormal",
    "integer-valued", "zeros"};

/* 32 floats of one kind: the weights a scan or a sampler meets in practice, and their extremes. */
static inline void sk_test_fill_f32(float *v, int n, int kind, uint64_t *rng) {
  int i;
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)(n > 0 ? n : 1));
  for (i = 0; i < n; ++i) {
    const float u = sk_test_rand_unit_f32(rng);
    switch (kind) {
      case 0: v[i] = u; break;
      case 1: v[i] = 2.0f * u - 1.0f; break;
      case 2: v[i] = 0.1f; break;
      case 3: v[i] = i == hot ? 1.0f : 0.0f; break;
      case 4: v[i] = u < 0.1f ? 1e30f * (u + 0.5f) : u; break;
      case 5: v[i] = u < 0.5f ? 1e-40f * u : 1e-30f * u; break;
      case 6: v[i] = (float)(sk_test_rand_u32(rng) % 1000u); break;
      default: v[i] = 0.0f; break;
    }
  }
}

/* Outputs are poisoned with this byte before a launch (cudaMemset), so that a lane that should not
   write is seen untouched and a lane that should is seen written (a result equal to the poison word
   by chance would hide a missing write; for these inputs that has probability about 2^-32 a lane). */
#define SK_TEST_POISON_BYTE 0x7f
#define SK_TEST_POISON_WORD 0x7f7f7f7fu

/* Compares a case's 32 lane outputs with the expected ones (the poison word for non-members) and
   reports the first mismatching lane; the context set by the caller names the case. */
static inline void sk_test_check_lanes(const uint32_t *got, const uint32_t *want, uint32_t mask) {
  int bad = 0;
  while (bad < 32 && got[bad] == want[bad]) ++bad;
  SK_CHECK(bad == 32, "first mismatch at lane %d (member %d): got 0x%08x (%d), want 0x%08x (%d)", bad,
           bad < 32 ? (int)((mask >> bad) & 1u) : 0, bad < 32 ? got[bad] : 0u, bad < 32 ? (int)got[bad] : 0,
           bad < 32 ? want[bad] : 0u, bad < 32 ? (int)want[bad] : 0);
}

#endif /* SAMPLEKIT_TESTS_WARP_CASES_H */
