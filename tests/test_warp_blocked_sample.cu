// Tests sk_warp_blocked_sample_{by_f32,f32} (one block), sk_warp_blocked_total_{by_f32,f32} and
// sk_warp_blocked_walk_{by_f32,f32} (the two passes), and sk_warp_blocked_hold_by_f64 with
// sk_warp_blocked_find_f64 (one block of doubles, test_hold_find_f64) for R = 1, 2, 4 and 8: exact agreement with the host
// reference (tests/ref/blocked_ref.c) over lengths (0, 1, 31, 32, 33, m R - 1, m R, m R + 1, 32 R - 1,
// 32 R, 32 R + 1, primes, rows of several blocks), masks, weight kinds (zeros, one-hot, tiny, ties, mixed
// magnitudes) and placements of u and x (0, random, exactly on a member's or an entry's running sum, just
// below one, just below a member's end where rounding makes the owner's walk miss, at and just below the
// total); AGA-LDA's blocked draw as it was before it moved here (legacy_blocked_draw, below) against the
// primitive on every full-mask one-block case; planted bugs that the comparison must catch; and a
// goodness-of-fit test of the draws. --host runs the reference's self-checks only (ctest label cpu).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/blocked_ref.h"
#include "ref/warp_ref.h"
#include "samplekit/rng.cuh"
#include "samplekit/warp_blocked_sample.cuh"
#include "samplekit/warp_vote.cuh"
#include "legacy_blocked_draw.cuh"
#include "sk_test.h"
#include "warp_cases.h"

//! [warp_blocked_sample_usage]
// One warp per row of a num_rows x n weight matrix: one read and one warp scan a draw when the row
// fits in one block of 8 x 32 entries; the two passes (the total, then the walk to u x total) otherwise.
__global__ void example_blocked_rows(const float *weights, int num_rows, int n, uint64_t seed, int *out) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= num_rows) return;  // whole warps leave together: the block size is a multiple of 32
  const float *w = weights + (size_t)row * n;
  const float u = sk_rng_uniform_f32(seed, (uint64_t)row, 0);  // in [0, 1)
  int k;
  if (n <= 8 * 32) {
    k = sk_warp_blocked_sample_f32<8>(SK_FULL_MASK, w, n, u);  // scales u by the total itself
  } else {
    const float total = sk_warp_blocked_total_f32<8>(SK_FULL_MASK, w, n);
    k = sk_warp_blocked_walk_f32<8>(SK_FULL_MASK, w, n, u * total);
  }
  if (sk_lane_id() == 0) out[row] = k;  // -1 only if every weight is 0
}
//! [warp_blocked_sample_usage]

enum {
  kNumR = 4,
  kNumMasks = 10,
  kNumKinds = SK_TEST_VALUE_KINDS + 2,  // sk_test_fill_f32's kinds, then mixed magnitudes and sparse ties
  kNumU = 8,
  kOutputs = 8,
};
static const int kRs[kNumR] = {1, 2, 4, 8};
// The lengths, with m = popc(mask): fixed ones, then m R - 1, m R, m R + 1, 32 R - 1, 32 R, 32 R + 1.
static const int kFixedLengths[] = {0, 1, 31, 32, 33, 97, 257, 1031, 4099};
enum { kNumFixedLengths = sizeof kFixedLengths / sizeof kFixedLengths[0], kNumLengths = kNumFixedLengths + 6 };
// Outputs that a case does not have (the one-block forms on longer vectors, the legacy draw on partial masks).
static const uint32_t kNotRun = 0xfffffffeu;

static const char *const kKindNames[kNumKinds] = {"uniform [0,1)", "|signed uniform|", "constant (ties)", "one-hot",
                                                  "skewed 1e30:1", "tiny and subnormal", "integer-valued", "zeros",
                                                  "mixed magnitudes", "sparse ties"};
static const char *const kUNames[kNumU] = {"u=0 x=0",
                                           "u random, x = u total",
                                           "x on a member's end",
                                           "x just below a member's end",
                                           "x on an entry's running sum",
                                           "x just below an entry's running sum",
                                           "u = 1, x = total",
                                           "u and x just below 1 and the total"};
static const char *const kOutputNames[kOutputs] = {"sample_by", "sample (array)", "total_by", "total (array)",
                                                   "walk_by", "walk (array)", "walk_by(u x total_by)",
                                                   "legacy AGA blocked_draw"};

struct Case {
  size_t offset;  // of the weights in the weight buffer
  int n;
  uint32_t mask;
  int r;  // R = kRs[r]
  float u, x;
};

// The weights through an accessor that scales a stored value (by 1 at run time, so that the expected bits
// are the array form's): what a sampler that computes its weights as it reads them passes.
struct ScaledWeights {
  const float *values;
  float scale;
  __device__ float operator()(int i) const { return values[i] * scale; }
};

template <int R>
__device__ void run_case(const Case &k, const float *w, float scale, uint32_t *out, size_t slot, size_t stride) {
  const float *v = w + k.offset;
  const ScaledWeights by{v, scale};
  uint32_t o[kOutputs];
  o[0] = o[1] = o[7] = kNotRun;
  if (k.n <= R * __popc(k.mask)) {
    o[0] = (uint32_t)sk_warp_blocked_sample_by_f32<R>(k.mask, by, k.n, k.u);
    o[1] = (uint32_t)sk_warp_blocked_sample_f32<R>(k.mask, v, k.n, k.u);
  }
  const float total_by = sk_warp_blocked_total_by_f32<R>(k.mask, by, k.n);
  o[2] = __float_as_uint(total_by);
  o[3] = __float_as_uint(sk_warp_blocked_total_f32<R>(k.mask, v, k.n));
  o[4] = (uint32_t)sk_warp_blocked_walk_by_f32<R>(k.mask, by, k.n, k.x);
  o[5] = (uint32_t)sk_warp_blocked_walk_f32<R>(k.mask, v, k.n, k.x);
  o[6] = (uint32_t)sk_warp_blocked_walk_by_f32<R>(k.mask, by, k.n, k.u * total_by);
  if (k.mask == SK_FULL_MASK && k.n <= 32 * R) o[7] = (uint32_t)legacy_blocked_draw<R>(by, k.n, sk_lane_id(), k.u);
  // Every member writes its own slot, so that a member with a different answer would show.
  for (int i = 0; i < kOutputs; ++i) out[slot + (size_t)i * stride] = o[i];
}

__global__ void sample_cases(const Case *cases, const float *w, float scale, uint32_t *out, int num_cases) {
  const int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= num_cases) return;
  const Case k = cases[c];
  if (!((k.mask >> sk_lane_id()) & 1u)) return;
  const size_t slot = (size_t)c * 32 + (size_t)sk_lane_id(), stride = (size_t)num_cases * 32;
  switch (k.r) {  // R = kRs[k.r], the same on every member of the case's warp
    case 0: run_case<1>(k, w, scale, out, slot, stride); break;
    case 1: run_case<2>(k, w, scale, out, slot, stride); break;
    case 2: run_case<4>(k, w, scale, out, slot, stride); break;
    default: run_case<8>(k, w, scale, out, slot, stride); break;
  }
}

// ---------------------------------------------------------------------------------------------------
// Inputs.

// n weights of a kind: sk_test_fill_f32's (made non-negative), then two that stress the rounding and the
// ties: magnitudes from 1e-6 to 1e6 mixed at random (the owner's walk misses its end most often there),
// and runs of equal weights between runs of zeros (whole members at zero).
static void fill_weights(float *w, int n, int kind, uint64_t *rng) {
  int i;
  if (kind < SK_TEST_VALUE_KINDS) {
    sk_test_fill_f32(w, n, kind, rng);
    for (i = 0; i < n; ++i) w[i] = fabsf(w[i]);
    return;
  }
  for (i = 0; i < n; ++i) {
    const float u = sk_test_rand_unit_f32(rng);
    const uint32_t r = sk_test_rand_u32(rng);
    if (kind == SK_TEST_VALUE_KINDS) {
      w[i] = (0.5f + u) * powf(10.0f, (float)((int)(r % 13u) - 6));
    } else {
      w[i] = ((i / 5) % 3 == 1 || r % 7u == 0) ? 0.0f : 0.25f;
    }
  }
}

// A u in [0, 1] whose product with total lands in [lo, hi) when there is one near lo / total (else the
// last one tried): how the one-block form, which takes u, is aimed at a running sum.
static float u_landing(float total, float lo, float hi) {
  if (!(total > 0.0f)) return 0.0f;
  float u = lo / total;
  if (u > 1.0f) u = 1.0f;
  if (u < 0.0f) u = 0.0f;
  for (int t = 0; t < 64; ++t) {
    const float x = u * total;
    if (x >= hi && u > 0.0f) {
      u = nextafterf(u, 0.0f);
    } else if (x < lo && u < 1.0f) {
      u = nextafterf(u, 2.0f);
    } else {
      break;
    }
  }
  return u;
}

// Placement v of (u, x) for a vector with running sums Q (member_end, blocks x m entries) and P (entry).
static void place(int v, uint32_t mask, int R, const float *w, int n, const float *member_end, const float *entry,
                  float total, uint64_t *rng, float *u_out, float *x_out) {
  const int m = sk_ref_popc(mask), span = m * R;
  const int members = n > 0 ? ((n + span - 1) / span) * m : 0;
  float u = 0.0f, x = 0.0f;
  if (v == 1) {
    u = sk_test_rand_unit_f32(rng);
    x = u * total;
  } else if ((v == 2 || v == 3) && members > 0) {
    // A member that has entries, preferably one whose walk ends below its Q (rounding): x just below
    // that Q makes the owner's walk miss.
    int pick = -1, tries;
    const int want_miss = v == 3 || sk_test_rand_u32(rng) % 2u == 0u;
    for (tries = 0; tries < 4 * members && pick < 0; ++tries) {
      const int j = (int)(sk_test_rand_u32(rng) % (uint32_t)members);
      const int k0 = (j / m) * span + (j % m) * R, k_last = (k0 + R < n ? k0 + R : n) - 1;
      if (k0 >= n) continue;
      if (!want_miss || tries >= 2 * members || entry[k_last] < member_end[j]) pick = j;
    }
    if (pick < 0) pick = 0;
    {
      const float q = member_end[pick];
      const int k0 = (pick / m) * span + (pick % m) * R, k_last = (k0 + R < n ? k0 + R : n) - 1;
      if (v == 2) {
        x = q;
        u = u_landing(total, q, nextafterf(q, INFINITY));
      } else {
        x = q > 0.0f ? nextafterf(q, 0.0f) : 0.0f;
        u = u_landing(total, k0 < n && entry[k_last] < x ? entry[k_last] : x, q > 0.0f ? q : nextafterf(0.0f, 1.0f));
      }
    }
  } else if ((v == 4 || v == 5) && n > 0) {
    const int i = (int)(sk_test_rand_u32(rng) % (uint32_t)n);
    const float p = entry[i];
    if (v == 4) {
      x = p;
      u = u_landing(total, p, nextafterf(p, INFINITY));
    } else {
      x = p > 0.0f ? nextafterf(p, 0.0f) : 0.0f;
      u = u_landing(total, x, p > 0.0f ? p : nextafterf(0.0f, 1.0f));
    }
  } else if (v == 6) {
    u = 1.0f;
    x = total;
  } else if (v == 7) {
    u = nextafterf(1.0f, 0.0f);
    x = total > 0.0f ? nextafterf(total, 0.0f) : 0.0f;
  }
  (void)w;
  *u_out = u;
  *x_out = x;
}

// ---------------------------------------------------------------------------------------------------
// The reference's self-checks.

typedef struct Coverage {
  long walk[kNumR][SK_REF_BLOCKED_PATHS];
  long sample[kNumR][SK_REF_BLOCKED_PATHS];
  long bug_differs[SK_REF_BLOCKED_BUGS];  // cases where a planted bug changes the walk's or the draw's result
  long prefix_checked;                    // R = 1 cases checked against the prefix walk
} Coverage;

// The reference against the definition in exact arithmetic (within rounding): a positive-weight result
// (or -1 exactly when no weight is positive) whose exact running sums bracket x, except for the
// fallback past the end, where x must be at the total (within rounding). A running sum takes at most
// `depth` rounded adds of non-negative terms, so its relative error is below depth 2^-24 (to first order).
static void check_against_exact(const float *w, int n, int depth, float x, int got, sk_ref_blocked_path path) {
  double total = 0.0;
  int any_positive = 0, i;
  for (i = 0; i < n; ++i) {
    total += w[i];
    any_positive |= w[i] > 0.0f;
  }
  if (!any_positive) {
    SK_CHECK(got == -1 && path == SK_REF_BLOCKED_EMPTY, "no positive weight gave %d, want -1", got);
    return;
  }
  if (!SK_CHECK(got >= 0 && got < n && w[got] > 0.0f, "result %d is not a positive entry", got)) return;
  const double tol = 4.0 * depth * 5.9604644775390625e-8 * total + 1e-44;
  double before = 0.0;
  for (i = 0; i < got; ++i) before += w[i];
  if (path == SK_REF_BLOCKED_NO_OWNER) {
    double after = 0.0;
    for (i = got + 1; i < n; ++i) after += w[i];
    SK_CHECK(after == 0.0 && (double)x >= total - tol, "fallback %d with x %.9g far below the total %.9g", got,
             (double)x, total);
  } else {
    SK_CHECK((double)x >= before - tol && (double)x <= before + w[got] + tol,
             "x %.9g is not within entry %d's range [%.9g, %.9g]", (double)x, got, before, before + w[got]);
  }
}

static void check_reference_case(uint32_t mask, int ri, const float *w, int n, float u, float x, Coverage *cov) {
  const int R = kRs[ri], m = sk_ref_popc(mask);
  sk_ref_blocked_path path;
  const int walk = sk_ref_warp_blocked_walk_f32(mask, R, w, n, x, SK_REF_BLOCKED_NO_BUG, &path);
  const float total = sk_ref_warp_blocked_total_f32(mask, R, w, n);
  // R adds in a member, 5 in the warp sum, one a block for the carry, 1 + R in the owner's walk.
  const int depth = 2 * R + 7 + (n + m * R - 1) / (m * R);
  int b, differs = 0;
  ++cov->walk[ri][path];
  check_against_exact(w, n, depth, x, walk, path);
  for (b = 1; b < SK_REF_BLOCKED_BUGS; ++b) {
    differs = sk_ref_warp_blocked_walk_f32(mask, R, w, n, x, (sk_ref_blocked_bug)b, NULL) != walk;
    if (n <= m * R)
      differs |= sk_ref_warp_blocked_sample_f32(mask, R, w, n, u, (sk_ref_blocked_bug)b, NULL) !=
                 sk_ref_warp_blocked_sample_f32(mask, R, w, n, u, SK_REF_BLOCKED_NO_BUG, NULL);
    cov->bug_differs[b] += differs;
  }
  if (n <= m * R) {
    // The one-block draw, written apart from the walk, is the walk at u x total, bit for bit.
    const int sample = sk_ref_warp_blocked_sample_f32(mask, R, w, n, u, SK_REF_BLOCKED_NO_BUG, &path);
    const int two_pass = sk_ref_warp_blocked_walk_f32(mask, R, w, n, u * total, SK_REF_BLOCKED_NO_BUG, NULL);
    ++cov->sample[ri][path];
    SK_CHECK(sample == two_pass, "one-block draw %d, walk at u x total %d", sample, two_pass);
    check_against_exact(w, n, depth, u * total, sample, path);
  }
  if (R == 1 && n % m == 0) {
    // Full blocks of one entry a member: the blocked sums are the prefix walk's (every block's last
    // entry is at its top member), so the two families agree there.
    SK_CHECK(sk_test_f32_bits_equal(total, sk_ref_warp_prefix_total_f32(mask, w, n)),
             "R = 1 total %.9g, prefix total %.9g", (double)total, (double)sk_ref_warp_prefix_total_f32(mask, w, n));
    SK_CHECK(walk == sk_ref_warp_sample_prefix_f32(mask, w, n, x), "R = 1 walk %d, prefix walk %d", walk,
             sk_ref_warp_sample_prefix_f32(mask, w, n, x));
    ++cov->prefix_checked;
  }
}

// The cases of one seed: every (R, mask, length, kind, placement); with host_checks, the reference's
// self-checks on each.
static void build_cases(int seed, Case **cases_out, int *num_cases, float **w_out, size_t *num_weights,
                        Coverage *cov) {
  uint64_t rng = 0xb10c4ed0u + (uint64_t)seed;
  const uint32_t masks[kNumMasks] = {0xffffffffu, 0x1u, 0x7fu, 0xffffu, 0x7fffffffu, 1u << 17,
                                     0xffff0000u, 0x55555555u, sk_test_rand_u32(&rng) | 4u,
                                     (sk_test_rand_u32(&rng) & sk_test_rand_u32(&rng)) | 1u};
  int lengths[kNumR][kNumMasks][kNumLengths];
  size_t total_weights = 0;
  int max_n = 0;
  for (int ri = 0; ri < kNumR; ++ri)
    for (int mi = 0; mi < kNumMasks; ++mi) {
      const int R = kRs[ri], mR = sk_ref_popc(masks[mi]) * R;
      int *len = lengths[ri][mi];
      for (int a = 0; a < kNumFixedLengths; ++a) len[a] = kFixedLengths[a];
      len[kNumFixedLengths + 0] = mR - 1;
      len[kNumFixedLengths + 1] = mR;
      len[kNumFixedLengths + 2] = mR + 1;
      len[kNumFixedLengths + 3] = 32 * R - 1;
      len[kNumFixedLengths + 4] = 32 * R;
      len[kNumFixedLengths + 5] = 32 * R + 1;
      for (int a = 0; a < kNumLengths; ++a) {
        total_weights += (size_t)len[a] * kNumKinds;
        if (len[a] > max_n) max_n = len[a];
      }
    }
  const int n_cases = kNumR * kNumMasks * kNumLengths * kNumKinds * kNumU;
  Case *cases = (Case *)malloc(sizeof(Case) * n_cases);
  float *w_all = (float *)malloc(sizeof(float) * (total_weights + 1));
  float *member_end = (float *)malloc(sizeof(float) * (size_t)(max_n + 32));  // blocks x m <= n / R + 32
  float *entry = (float *)malloc(sizeof(float) * (size_t)(max_n + 1));
  size_t offset = 0;
  int c = 0;
  for (int ri = 0; ri < kNumR; ++ri)
    for (int mi = 0; mi < kNumMasks; ++mi)
      for (int a = 0; a < kNumLengths; ++a)
        for (int kind = 0; kind < kNumKinds; ++kind) {
          const int R = kRs[ri], n = lengths[ri][mi][a];
          float *w = w_all + offset;
          fill_weights(w, n, kind, &rng);
          sk_ref_warp_blocked_running_sums_f32(masks[mi], R, w, n, member_end, entry);
          const float total = sk_ref_warp_blocked_total_f32(masks[mi], R, w, n);
          for (int v = 0; v < kNumU; ++v, ++c) {
            Case *k = &cases[c];
            k->offset = offset;
            k->n = n;
            k->mask = masks[mi];
            k->r = ri;
            place(v, masks[mi], R, w, n, member_end, entry, total, &rng, &k->u, &k->x);
            if (cov != NULL) {
              sk_test_context("reference self-check R=%d n=%d mask=%08x values=%s %s u=%.9g x=%.9g", R, n,
                              masks[mi], kKindNames[kind], kUNames[v], (double)k->u, (double)k->x);
              check_reference_case(masks[mi], ri, w, n, k->u, k->x, cov);
            }
          }
          offset += (size_t)n;
        }
  free(member_end);
  free(entry);
  *cases_out = cases;
  *num_cases = n_cases;
  *w_out = w_all;
  *num_weights = offset;
}

// The reference's self-checks, with the coverage they must reach: every way a draw can end, for each R
// (the one-block draw's owner misses only where the sums round, which the placements aim at), and a
// result changed by each planted bug (so that the comparisons below can fail).
static void test_reference(void) {
  Coverage cov;
  Case *cases;
  float *w;
  int num_cases;
  size_t num_weights;
  memset(&cov, 0, sizeof cov);
  build_cases(0, &cases, &num_cases, &w, &num_weights, &cov);
  free(cases);
  free(w);
  static const char *const path_names[SK_REF_BLOCKED_PATHS] = {"found", "owner missed", "no owner", "empty"};
  for (int ri = 0; ri < kNumR; ++ri) {
    printf("reference R=%d: walk", kRs[ri]);
    for (int p = 0; p < SK_REF_BLOCKED_PATHS; ++p) printf(" %s %ld", path_names[p], cov.walk[ri][p]);
    printf("; one-block draw");
    for (int p = 0; p < SK_REF_BLOCKED_PATHS; ++p) printf(" %s %ld", path_names[p], cov.sample[ri][p]);
    printf("\n");
    for (int p = 0; p < SK_REF_BLOCKED_PATHS; ++p) {
      sk_test_context("reference coverage R=%d path %s", kRs[ri], path_names[p]);
      SK_CHECK(cov.walk[ri][p] > 0, "no walk case ends this way");
      SK_CHECK(cov.sample[ri][p] > 0, "no one-block case ends this way");
    }
  }
  printf("reference: planted bugs change the result in %ld (exclusive base) and %ld (ties to the earlier "
         "entry) cases; %ld R = 1 cases equal to the prefix walk\n",
         cov.bug_differs[SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE], cov.bug_differs[SK_REF_BLOCKED_BUG_TIE_EARLIER],
         cov.prefix_checked);
  sk_test_context("reference planted-bug controls");
  SK_CHECK(cov.bug_differs[SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE] > 0, "the exclusive-base bug changes nothing");
  SK_CHECK(cov.bug_differs[SK_REF_BLOCKED_BUG_TIE_EARLIER] > 0, "the tie bug changes nothing");
  SK_CHECK(cov.prefix_checked > 0, "no R = 1 case was checked against the prefix walk");
}

// ---------------------------------------------------------------------------------------------------
// The device against the reference.

// The expected outputs of case k; with `bug`, the walk's and the draws' as the planted bug would give.
static void expected(const Case *k, const float *w_all, sk_ref_blocked_bug bug, uint32_t want[kOutputs]) {
  const int R = kRs[k->r];
  const float *w = w_all + k->offset;
  const float total = sk_ref_warp_blocked_total_f32(k->mask, R, w, k->n);
  const int one_block = k->n <= R * sk_ref_popc(k->mask);
  want[0] = want[1] =
      one_block ? (uint32_t)sk_ref_warp_blocked_sample_f32(k->mask, R, w, k->n, k->u, bug, NULL) : kNotRun;
  want[2] = want[3] = sk_test_f32_bits(total);
  want[4] = want[5] = (uint32_t)sk_ref_warp_blocked_walk_f32(k->mask, R, w, k->n, k->x, bug, NULL);
  want[6] = (uint32_t)sk_ref_warp_blocked_walk_f32(k->mask, R, w, k->n, k->u * total, bug, NULL);
  want[7] = k->mask == 0xffffffffu && k->n <= 32 * R ? want[0] : kNotRun;
}

static void test_device_exact(int seed) {
  Case *cases;
  float *w;
  int num_cases;
  size_t num_weights;
  build_cases(seed, &cases, &num_cases, &w, &num_weights, NULL);
  const size_t out_words = (size_t)num_cases * 32 * kOutputs;
  uint32_t *out = (uint32_t *)malloc(sizeof(uint32_t) * out_words);
  Case *d_cases;
  float *d_w;
  uint32_t *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(Case) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * (num_weights + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(uint32_t) * out_words));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(Case) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_w, w, sizeof(float) * (num_weights + 1), cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(uint32_t) * out_words));
  const int threads = 128;
  sample_cases<<<(num_cases * 32 + threads - 1) / threads, threads>>>(d_cases, d_w, 1.0f, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, sizeof(uint32_t) * out_words, cudaMemcpyDeviceToHost));

  long legacy_compared = 0, bug_caught[SK_REF_BLOCKED_BUGS] = {0};
  for (int c = 0; c < num_cases; ++c) {
    const Case *k = &cases[c];
    uint32_t want[kOutputs];
    expected(k, w, SK_REF_BLOCKED_NO_BUG, want);
    legacy_compared += want[7] != kNotRun;
    for (int o = 0; o < kOutputs; ++o) {
      uint32_t lanes[32];
      for (int l = 0; l < 32; ++l) lanes[l] = ((k->mask >> l) & 1u) ? want[o] : SK_TEST_POISON_WORD;
      sk_test_context("seed=%d case=%d R=%d n=%d mask=%08x values=%s %s u=%.9g x=%.9g output=%s", seed, c, kRs[k->r],
                      k->n, k->mask, kKindNames[(c / kNumU) % kNumKinds], kUNames[c % kNumU], (double)k->u,
                      (double)k->x, kOutputNames[o]);
      sk_test_check_lanes(out + (size_t)o * num_cases * 32 + (size_t)c * 32, lanes, k->mask);
    }
    // The planted-bug controls: the device's lowest member against the bugged reference; a mismatch
    // counts as caught (each bug must be caught somewhere, or these comparisons could not fail).
    const int lane0 = __builtin_ctz(k->mask);
    for (int b = 1; b < SK_REF_BLOCKED_BUGS; ++b) {
      uint32_t bugged[kOutputs];
      expected(k, w, (sk_ref_blocked_bug)b, bugged);
      for (int o = 0; o < kOutputs; ++o)
        if (out[(size_t)o * num_cases * 32 + (size_t)c * 32 + lane0] != bugged[o]) {
          ++bug_caught[b];
          break;
        }
    }
  }
  printf("seed %d: %d cases; the legacy AGA draw compared on %ld; planted bugs caught in %ld and %ld cases\n", seed,
         num_cases, legacy_compared, bug_caught[1], bug_caught[2]);
  sk_test_context("seed=%d planted-bug controls", seed);
  SK_CHECK(legacy_compared > 0, "no case compared the legacy AGA draw");
  SK_CHECK(bug_caught[SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE] > 0, "the exclusive-base bug was not caught");
  SK_CHECK(bug_caught[SK_REF_BLOCKED_BUG_TIE_EARLIER] > 0, "the tie bug was not caught");
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(cases);
  free(w);
  free(out);
}

// ---------------------------------------------------------------------------------------------------
// Goodness of fit: 2^22 draws each from one distribution with zero-weight entries, by the one-block
// draw (R = 8, 200 entries) and by the two passes (R = 4, 700 entries: 6 blocks); counts against the
// expectations by chi-square, and the same counts shifted by one entry (an off-by-one bug) must be
// rejected, which shows that the test can fail.
template <int R, bool kTwoPass>
__global__ void draw_many(const float *w, int n, uint64_t seed, int draws_per_warp, unsigned long long *counts) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const float total = kTwoPass ? sk_warp_blocked_total_f32<R>(SK_FULL_MASK, w, n) : 0.0f;
  for (int d = 0; d < draws_per_warp; ++d) {
    const float u = sk_rng_uniform_f32(seed, (uint64_t)warp, (uint64_t)d);
    const int k = kTwoPass ? sk_warp_blocked_walk_f32<R>(SK_FULL_MASK, w, n, u * total)
                           : sk_warp_blocked_sample_f32<R>(SK_FULL_MASK, w, n, u);
    if (sk_lane_id() == 0) atomicAdd(&counts[k < 0 ? n : k], 1ull);
  }
}

template <int R, bool kTwoPass>
static void test_goodness_of_fit(int n) {
  enum { kWarps = 4096, kDrawsPerWarp = 1024 };
  float *h_w = (float *)malloc(sizeof(float) * (size_t)n);
  unsigned long long *h_counts = (unsigned long long *)calloc((size_t)n + 1, sizeof(unsigned long long));
  double *observed = (double *)malloc(sizeof(double) * (size_t)n);
  double *expect = (double *)malloc(sizeof(double) * (size_t)n);
  double *shifted = (double *)malloc(sizeof(double) * (size_t)n);
  uint64_t rng = 4242 + (uint64_t)n;
  for (int i = 0; i < n; ++i) h_w[i] = (i % 7 == 3) ? 0.0f : 0.05f + sk_test_rand_unit_f32(&rng) * (float)(1 + i % 5);
  float *d_w;
  unsigned long long *d_counts;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * (size_t)n));
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof(unsigned long long) * ((size_t)n + 1)));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_counts, 0, sizeof(unsigned long long) * ((size_t)n + 1)));
  draw_many<R, kTwoPass><<<kWarps * 32 / 256, 256>>>(d_w, n, 2026, kDrawsPerWarp, d_counts);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_counts, d_counts, sizeof(unsigned long long) * ((size_t)n + 1), cudaMemcpyDeviceToHost));
  double total = 0;
  for (int i = 0; i < n; ++i) total += h_w[i];
  int zero_drawn = 0, cells = 0;
  const double draws = (double)kWarps * kDrawsPerWarp;
  for (int i = 0; i < n; ++i) {
    observed[i] = (double)h_counts[i];
    expect[i] = draws * h_w[i] / total;
    shifted[i] = (double)h_counts[(i + 1) % n];
    zero_drawn |= h_w[i] == 0.0f && h_counts[i] != 0;
    cells += h_w[i] > 0.0f;
  }
  sk_test_context("goodness of fit, R=%d %s, %d entries, %.0f draws", R, kTwoPass ? "two passes" : "one block", n,
                  draws);
  SK_CHECK(!zero_drawn && h_counts[n] == 0, "a zero-weight entry or -1 was drawn");
  const double threshold = sk_test_chi2_threshold(cells - 1);
  const double x = sk_test_chi2(observed, expect, n);
  SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
  const double x_bug = sk_test_chi2(shifted, expect, n);
  SK_CHECK(x_bug > threshold, "planted off-by-one gave chi-square %.1f, not above %.1f", x_bug, threshold);
  printf("goodness of fit, R=%d %s: chi-square %.1f, threshold %.1f (%d dof); planted off-by-one %.3g\n", R,
         kTwoPass ? "two passes" : "one block", x, threshold, cells - 1, x_bug);
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_counts));
  free(h_w);
  free(h_counts);
  free(observed);
  free(expect);
  free(shifted);
}

// Runs the documentation's usage snippet on rows of one block and of several, and compares with the
// reference, uniforms drawn on the host.
static void test_usage_snippet(int n) {
  enum { kRows = 300 };
  float *h_w = (float *)malloc(sizeof(float) * kRows * (size_t)n);
  int h_out[kRows];
  uint64_t rng = 31337 + (uint64_t)n;
  for (int r = 0; r < kRows; ++r) fill_weights(h_w + (size_t)r * n, n, r % 4 == 3 ? 7 : r % kNumKinds, &rng);
  float *d_w;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * kRows * (size_t)n));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * kRows * (size_t)n, cudaMemcpyHostToDevice));
  example_blocked_rows<<<(kRows * 32 + 127) / 128, 128>>>(d_w, kRows, n, 5, d_out);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r) {
    const float *w = h_w + (size_t)r * n;
    const float u = sk_rng_uniform_f32(5, (uint64_t)r, 0);
    const int want = n <= 256 ? sk_ref_warp_blocked_sample_f32(0xffffffffu, 8, w, n, u, SK_REF_BLOCKED_NO_BUG, NULL)
                              : sk_ref_warp_blocked_walk_f32(0xffffffffu, 8, w, n,
                                                             u * sk_ref_warp_blocked_total_f32(0xffffffffu, 8, w, n),
                                                             SK_REF_BLOCKED_NO_BUG, NULL);
    sk_test_context("usage snippet n=%d row %d", n, r);
    SK_CHECK(h_out[r] == want, "got %d want %d", h_out[r], want);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
}

// --- doubles: sk_warp_blocked_hold_by_f64 + sk_warp_blocked_find_f64 -------------------------------

// One hold-and-find case: n weights from offset, the members of mask, x; out gets (index, total's
// two halves) per lane (kNotRun for the lanes outside the mask).
struct CaseF64 {
  uint32_t mask;
  int r, n;  // r: index into kRs
  size_t offset;
  double x;
};

template <int R>
__device__ void hold_find_one(const CaseF64 &k, const double *w, uint32_t *out) {
  const double *row = w + k.offset;
  sk_warp_blocked_hold_f64<R> hold;
  const double total = sk_warp_blocked_hold_by_f64<R>(k.mask, [row](int i) { return row[i]; }, k.n, &hold);
  const int got = sk_warp_blocked_find_f64<R>(k.mask, hold, k.x);
  const unsigned long long bits = (unsigned long long)__double_as_longlong(total);
  out[0] = (uint32_t)got;
  out[1] = (uint32_t)bits;
  out[2] = (uint32_t)(bits >> 32);
}

__global__ void hold_find_cases(const CaseF64 *cases, const double *w, uint32_t *out, int num_cases) {
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = (int)(threadIdx.x & 31);
  if (c >= num_cases) return;
  const CaseF64 k = cases[c];
  uint32_t *mine = out + ((size_t)c * 32 + (size_t)lane) * 3;
  if (!((k.mask >> lane) & 1u)) return;  // left as cleared (0xfefefefe)
  switch (k.r) {
    case 0: hold_find_one<1>(k, w, mine); break;
    case 1: hold_find_one<2>(k, w, mine); break;
    case 2: hold_find_one<4>(k, w, mine); break;
    default: hold_find_one<8>(k, w, mine); break;
  }
}

// n doubles of a kind: uniform, half zeros, ties, one-hot, magnitudes 2^-40 .. 2^40.
static void fill_f64(double *w, int n, int kind, uint64_t *rng) {
  const int hot = n > 0 ? (int)(sk_test_rand_u32(rng) % (uint32_t)n) : 0;
  for (int i = 0; i < n; ++i) {
    const double u = (double)(sk_test_rand_u64(rng) >> 11) * 0x1.0p-53;
    switch (kind) {
      case 0: w[i] = u; break;
      case 1: w[i] = sk_test_rand_u32(rng) % 2u ? u : 0.0; break;
      case 2: w[i] = 0.1; break;
      case 3: w[i] = i == hot ? 3.0 : 0.0; break;
      default: w[i] = ldexp(0.5 + u, (int)(sk_test_rand_u32(rng) % 81u) - 40); break;
    }
  }
}

// Every hold-and-find case against sk_ref_warp_blocked_find_f64(), on every member: x at 0, random, a
// member's running sum exactly and just below it, the total and just below it, past the total. The
// planted bugs must change some results (the comparison can fail).
static void test_hold_find_f64(int seed) {
  uint64_t rng = 0xb10c4ed64ull + (uint64_t)seed;
  const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0xffff0000u, 0x55555555u, sk_test_rand_u32(&rng) | 4u, 1u};
  const int kinds = 5, places = 7;
  const int lengths_per = 7;
  const int num_cases = (int)(sizeof masks / sizeof masks[0]) * kNumR * lengths_per * kinds * places;
  CaseF64 *cases = (CaseF64 *)malloc(sizeof(CaseF64) * (size_t)num_cases);
  double *w = (double *)malloc(sizeof(double) * (size_t)num_cases * 256);
  size_t used = 0;
  int c = 0;
  for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; ++mi)
    for (int ri = 0; ri < kNumR; ++ri) {
      const int R = kRs[ri], m = sk_ref_popc(masks[mi]);
      const int lengths[lengths_per] = {0, 1, m * R - 1 > 0 ? m * R - 1 : 1, m * R, (m * R + 1) / 2,
                                        1 + (int)(sk_test_rand_u32(&rng) % (uint32_t)(m * R)), R};
      for (int li = 0; li < lengths_per; ++li)
        for (int kind = 0; kind < kinds; ++kind)
          for (int place = 0; place < places; ++place) {
            const int n = lengths[li] < m * R ? lengths[li] : m * R;
            CaseF64 &k = cases[c++];
            k.mask = masks[mi];
            k.r = ri;
            k.n = n;
            k.offset = used;
            fill_f64(w + used, n, kind, &rng);
            // The members' running sums, as the reference adds them.
            double sums[32], running[32];
            const double total = sk_ref_warp_blocked_hold_f64(k.mask, R, w + used, n, sums, running);
            int pick = 0;
            for (int tries = 0; tries < 32; ++tries) {
              pick = (int)(sk_test_rand_u32(&rng) % 32u);
              if ((k.mask >> pick) & 1u) break;
            }
            const double u = (double)(sk_test_rand_u64(&rng) >> 11) * 0x1.0p-53;
            switch (place) {
              case 0: k.x = 0.0; break;
              case 1: k.x = u * total; break;
              case 2: k.x = (k.mask >> pick) & 1u ? running[pick] : total; break;
              case 3: k.x = nextafter((k.mask >> pick) & 1u ? running[pick] : total, 0.0); break;
              case 4: k.x = total; break;
              case 5: k.x = nextafter(total, 0.0); break;
              default: k.x = 2.0 * total + 1.0; break;
            }
            used += (size_t)n;
          }
    }
  CaseF64 *d_cases;
  double *d_w;
  uint32_t *d_out;
  const size_t out_words = (size_t)num_cases * 32 * 3;
  uint32_t *out = (uint32_t *)malloc(out_words * sizeof(uint32_t));
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(CaseF64) * (size_t)num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(double) * (used > 0 ? used : 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out, out_words * sizeof(uint32_t)));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(CaseF64) * (size_t)num_cases, cudaMemcpyHostToDevice));
  if (used > 0) SK_CHECK_CUDA(cudaMemcpy(d_w, w, sizeof(double) * used, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, 0xfe, out_words * sizeof(uint32_t)));
  hold_find_cases<<<(num_cases * 32 + 127) / 128, 128>>>(d_cases, d_w, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, out_words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  int bug_caught[SK_REF_BLOCKED_BUGS] = {0};
  int paths[SK_REF_BLOCKED_PATHS] = {0};
  for (int i = 0; i < num_cases; ++i) {
    const CaseF64 &k = cases[i];
    const int R = kRs[k.r];
    double total = 0.0;
    sk_ref_blocked_path path;
    const int want = sk_ref_warp_blocked_find_f64(k.mask, R, w + k.offset, k.n, k.x, &total, SK_REF_BLOCKED_NO_BUG, &path);
    ++paths[path];
    unsigned long long tbits;
    memcpy(&tbits, &total, sizeof tbits);
    for (int lane = 0; lane < 32; ++lane) {
      const uint32_t *o = out + ((size_t)i * 32 + (size_t)lane) * 3;
      sk_test_context("f64 hold/find seed=%d case=%d R=%d n=%d mask=%08x x=%.17g lane %d", seed, i, R, k.n, k.mask, k.x,
                      lane);
      if (!((k.mask >> lane) & 1u)) {
        SK_CHECK(o[0] == 0xfefefefeu, "a lane outside the mask wrote %u", o[0]);
        continue;
      }
      SK_CHECK((int)o[0] == want, "got %d want %d", (int)o[0], want);
      SK_CHECK(o[1] == (uint32_t)tbits && o[2] == (uint32_t)(tbits >> 32), "total differs from the reference's bits");
    }
    for (int b = 1; b < SK_REF_BLOCKED_BUGS; ++b)
      if (sk_ref_warp_blocked_find_f64(k.mask, R, w + k.offset, k.n, k.x, NULL, (sk_ref_blocked_bug)b, NULL) !=
          (int)out[(size_t)i * 32 * 3 + (size_t)(31 - __builtin_clz(k.mask)) * 3])
        ++bug_caught[b];
  }
  // Every path must be covered (the owner's missed walk comes from x just below a member's end with
  // mixed magnitudes: about 100 cases a seed).
  for (int p = 0; p < SK_REF_BLOCKED_PATHS; ++p) {
    sk_test_context("f64 hold/find seed=%d coverage of path %d", seed, p);
    SK_CHECK(paths[p] > 0, "no case ended on this path");
  }
  printf("f64 hold/find seed %d: %d cases, paths found %d, owner missed %d, no owner %d, empty %d\n", seed, num_cases,
         paths[0], paths[1], paths[2], paths[3]);
  for (int b = 1; b < SK_REF_BLOCKED_BUGS; ++b) {
    sk_test_context("f64 hold/find seed=%d planted bug %d", seed, b);
    SK_CHECK(bug_caught[b] > 0, "the planted bug changed no result: the comparison cannot fail");
  }
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(cases);
  free(w);
  free(out);
}

int main(int argc, char **argv) {
  test_reference();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet(77);
    test_usage_snippet(1000);
    test_goodness_of_fit<8, false>(200);
    test_goodness_of_fit<4, true>(700);
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_device_exact(seed);
      test_hold_find_f64(seed);
    }
  }
  return sk_test_finish();
}
