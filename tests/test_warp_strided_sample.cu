// Tests sk_warp_strided_hold_by_f32 with sk_warp_strided_find_f32 (warp_strided_sample.cuh) for R = 1,
// 2, 4 and 8: every member's total and results against the host reference (tests/ref/blocked_ref.c) bit
// for bit, over masks, lengths (0, 1, m - 1, m, m + 1, half, m R - 1, m R, random), weight kinds (zeros,
// one-hot, tiny, ties, mixed magnitudes) and nine points found in one hold (0, random, on a member's end
// and just below it, on an entry's running sum and just below it, at and just below the total, past
// it), so that a hold serves many finds; every way a find ends must occur; planted bugs must change
// results (the comparison can fail). --host runs the reference's self-checks only (ctest label cpu):
// the strided reference against the blocked one on the permuted vector (the header's statement that
// the two orders are one), and each result against its exact running sums.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/blocked_ref.h"
#include "ref/warp_ref.h"
#include "samplekit/warp_strided_sample.cuh"
#include "sk_test.h"
#include "warp_cases.h"

//! [warp_strided_sample_usage]
// One warp per group of tokens that share a document and a word (SaberLDA's case): the weights are the
// document's counts times the word's row, read once into the hold; every token of the group is drawn
// from it with its own uniform. Rows of up to 8 x 32 nonzero topics.
__global__ void example_strided_groups(const int *doc_topic, const float *doc_count, const int *group_start,
                                       const float *word_row, const float *uniforms, int num_groups, int nnz,
                                       int *out) {
  const int g = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (g >= num_groups) return;  // whole warps leave together: the block size is a multiple of 32
  const int *topic = doc_topic + (size_t)g * nnz;
  const float *count = doc_count + (size_t)g * nnz;
  sk_warp_strided_hold_f32<8> hold;
  const float total = sk_warp_strided_hold_by_f32<8>(
      SK_FULL_MASK, [=](int i) { return count[i] * word_row[topic[i]]; }, nnz, &hold);
  for (int t = group_start[g]; t < group_start[g + 1]; ++t) {
    const int i = sk_warp_strided_find_f32<8>(SK_FULL_MASK, hold, uniforms[t] * total);  // -1: no weight
    if (sk_lane_id() == 0) out[t] = i < 0 ? -1 : topic[i];
  }
}
//! [warp_strided_sample_usage]

enum { kNumR = 4, kNumPlaces = 9, kNumKinds = SK_TEST_VALUE_KINDS + 1, kNumLengths = 9 };
static const int kRs[kNumR] = {1, 2, 4, 8};
static const char *const kPlaceNames[kNumPlaces] = {
    "x = 0", "x random", "x on a member's end", "x just below a member's end", "x on an entry's running sum",
    "x just below an entry's running sum", "x = total", "x just below the total", "x past the total"};

// A case: n weights from offset, the members of mask, R = kRs[r], and the points its one hold finds.
struct Case {
  uint32_t mask;
  int r, n, kind;
  size_t offset;
  float x[kNumPlaces];
};
enum { kOutWords = 1 + kNumPlaces };  // the total's bits, then the result of each find

// n non-negative weights of a kind: sk_test_fill_f32's (absolute values), then mixed magnitudes from
// 1e-6 to 1e6, where an owner's walk most often ends below its member's end (rounding).
static void fill_weights(float *w, int n, int kind, uint64_t *rng) {
  if (kind < SK_TEST_VALUE_KINDS) {
    sk_test_fill_f32(w, n, kind, rng);
    for (int i = 0; i < n; ++i) w[i] = fabsf(w[i]);
    return;
  }
  for (int i = 0; i < n; ++i) {
    const float u = sk_test_rand_unit_f32(rng);
    w[i] = (0.5f + u) * powf(10.0f, (float)((int)(sk_test_rand_u32(rng) % 13u) - 6));
  }
}

// The points of a case: see kPlaceNames. The member for "a member's end" is, when one exists, a member
// whose walk ends below its end (the owner-missed path).
static void place_points(Case *k, const float *w, uint64_t *rng) {
  const int R = kRs[k->r], m = sk_ref_popc(k->mask);
  float sum[32], running[32], entry[8 * 32];
  const float total = sk_ref_warp_strided_hold_f32(k->mask, R, w, k->n, sum, running, entry);
  int lanes[32], count = 0, missing = -1;
  for (int lane = 0, rank = 0; lane < 32; ++lane) {
    if (!((k->mask >> lane) & 1u)) continue;
    if (rank < k->n) {
      lanes[count++] = lane;
      int last = rank;
      while (last + m < k->n) last += m;
      if (sum[lane] > 0.0f && entry[last] < running[lane] && (missing < 0 || sk_test_rand_u32(rng) % 2u)) missing = lane;
    }
    ++rank;
  }
  const int pick = missing >= 0 ? missing : count > 0 ? lanes[sk_test_rand_u32(rng) % (uint32_t)count] : -1;
  const float end = pick >= 0 ? running[pick] : 0.0f;
  const float on_entry = k->n > 0 ? entry[sk_test_rand_u32(rng) % (uint32_t)k->n] : 0.0f;
  k->x[0] = 0.0f;
  k->x[1] = sk_test_rand_unit_f32(rng) * total;
  k->x[2] = end;
  k->x[3] = end > 0.0f ? nextafterf(end, 0.0f) : 0.0f;
  k->x[4] = on_entry;
  k->x[5] = on_entry > 0.0f ? nextafterf(on_entry, 0.0f) : 0.0f;
  k->x[6] = total;
  k->x[7] = total > 0.0f ? nextafterf(total, 0.0f) : 0.0f;
  k->x[8] = 2.0f * total + 1.0f;
}

// Every (mask, R, length, kind) of one seed, weights and points placed.
static Case *build_cases(int seed, int *num_cases, float **w_out, size_t *num_weights) {
  uint64_t rng = 0x57d1dedu + (uint64_t)seed;
  const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0xffff0000u, 0x55555555u, sk_test_rand_u32(&rng) | 4u, 1u};
  const int num_masks = (int)(sizeof masks / sizeof masks[0]);
  const int n_cases = num_masks * kNumR * kNumLengths * kNumKinds;
  Case *cases = (Case *)malloc(sizeof(Case) * (size_t)n_cases);
  float *w = (float *)malloc(sizeof(float) * (size_t)n_cases * 8 * 32);
  size_t used = 0;
  int c = 0;
  for (int mi = 0; mi < num_masks; ++mi)
    for (int ri = 0; ri < kNumR; ++ri) {
      const int m = sk_ref_popc(masks[mi]), mR = m * kRs[ri];
      const int lengths[kNumLengths] = {0, 1, m - 1, m, m + 1 < mR ? m + 1 : mR, (mR + 1) / 2, mR - 1, mR,
                                        1 + (int)(sk_test_rand_u32(&rng) % (uint32_t)mR)};
      for (int li = 0; li < kNumLengths; ++li)
        for (int kind = 0; kind < kNumKinds; ++kind) {
          Case &k = cases[c++];
          k.mask = masks[mi];
          k.r = ri;
          k.n = lengths[li];
          k.kind = kind;
          k.offset = used;
          fill_weights(w + used, k.n, kind, &rng);
          place_points(&k, w + used, &rng);
          used += (size_t)k.n;
        }
    }
  *num_cases = c;
  *w_out = w;
  *num_weights = used;
  return cases;
}

// --- the reference's self-checks (--host) -----------------------------------------------------------

// The strided reference against the blocked one on v[r R + j] = w[j m + r] (the header's identity), and
// the result against its exact running sums in the strided order (within the rounding of at most
// 2 R + 7 adds).
static void check_reference_case(const Case &k, const float *w, int *paths) {
  const int R = kRs[k.r], m = sk_ref_popc(k.mask);
  float v[8 * 32];
  int to_w[8 * 32];
  for (int r = 0; r < m; ++r)
    for (int j = 0; j < R; ++j) {
      const int i = j * m + r;
      v[r * R + j] = i < k.n ? w[i] : 0.0f;
      to_w[r * R + j] = i;
    }
  for (int p = 0; p < kNumPlaces; ++p) {
    sk_test_context("reference R=%d n=%d mask=%08x kind %d %s x=%.9g", R, k.n, k.mask, k.kind, kPlaceNames[p],
                    (double)k.x[p]);
    float total = 0.0f;
    sk_ref_blocked_path path;
    const int got = sk_ref_warp_strided_find_f32(k.mask, R, w, k.n, k.x[p], &total, SK_REF_BLOCKED_NO_BUG, &path);
    ++paths[path];
    const int blocked = sk_ref_warp_blocked_walk_f32(k.mask, R, v, m * R, k.x[p], SK_REF_BLOCKED_NO_BUG, NULL);
    SK_CHECK(got == (blocked < 0 ? -1 : to_w[blocked]), "strided %d, blocked on the permuted vector %d", got,
             blocked < 0 ? -1 : to_w[blocked]);
    SK_CHECK(sk_test_f32_bits_equal(total, sk_ref_warp_blocked_total_f32(k.mask, R, v, m * R)),
             "total %.9g differs from the blocked total", (double)total);
    // Exact sums in the strided order (member by member, each member's entries in round order).
    double exact_total = 0.0, before = 0.0;
    int any_positive = 0;
    for (int r = 0; r < m; ++r)
      for (int j = 0; j < R; ++j) {
        const int i = j * m + r;
        if (i >= k.n) continue;
        if (i == got) before = exact_total;
        exact_total += w[i];
        any_positive |= w[i] > 0.0f;
      }
    if (!any_positive) {
      SK_CHECK(got == -1 && path == SK_REF_BLOCKED_EMPTY, "no positive weight gave %d", got);
      continue;
    }
    if (!SK_CHECK(got >= 0 && got < k.n && w[got] > 0.0f, "result %d is not a positive entry", got)) continue;
    const double tol = 4.0 * (2 * R + 7) * 5.9604644775390625e-8 * exact_total + 1e-44;
    if (path == SK_REF_BLOCKED_NO_OWNER)
      SK_CHECK((double)k.x[p] >= exact_total - tol && before + w[got] >= exact_total - tol,
               "fallback %d with x %.9g below the total %.9g", got, (double)k.x[p], exact_total);
    else
      SK_CHECK((double)k.x[p] >= before - tol && (double)k.x[p] <= before + w[got] + tol,
               "x %.9g outside entry %d's range [%.9g, %.9g]", (double)k.x[p], got, before, before + w[got]);
  }
}

static void test_reference(void) {
  int paths[SK_REF_BLOCKED_PATHS] = {0};
  for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
    int num_cases;
    float *w;
    size_t used;
    Case *cases = build_cases(seed, &num_cases, &w, &used);
    for (int c = 0; c < num_cases; ++c) check_reference_case(cases[c], w + cases[c].offset, paths);
    free(cases);
    free(w);
  }
  for (int p = 0; p < SK_REF_BLOCKED_PATHS; ++p) {
    sk_test_context("reference coverage of path %d", p);
    SK_CHECK(paths[p] > 0, "no case ended on this path");
  }
  printf("reference: paths found %d, owner missed %d, no owner %d, empty %d\n", paths[0], paths[1], paths[2],
         paths[3]);
}

// --- the device against the reference --------------------------------------------------------------

template <int R>
__device__ void hold_find_one(const Case &k, const float *w, uint32_t *out, size_t stride) {
  const float *row = w + k.offset;
  sk_warp_strided_hold_f32<R> hold;
  const float total = sk_warp_strided_hold_by_f32<R>(k.mask, [row](int i) { return row[i]; }, k.n, &hold);
  out[0] = __float_as_uint(total);
  for (int p = 0; p < kNumPlaces; ++p) out[(size_t)(1 + p) * stride] = (uint32_t)sk_warp_strided_find_f32<R>(k.mask, hold, k.x[p]);
}

__global__ void hold_find_cases(const Case *cases, const float *w, uint32_t *out, int num_cases) {
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = (int)(threadIdx.x & 31u);
  if (c >= num_cases) return;
  const Case k = cases[c];
  if (!((k.mask >> lane) & 1u)) return;  // left poisoned
  uint32_t *mine = out + (size_t)c * 32 + (size_t)lane;
  const size_t stride = (size_t)num_cases * 32;
  switch (k.r) {  // R = kRs[k.r], the same on every member
    case 0: hold_find_one<1>(k, w, mine, stride); break;
    case 1: hold_find_one<2>(k, w, mine, stride); break;
    case 2: hold_find_one<4>(k, w, mine, stride); break;
    default: hold_find_one<8>(k, w, mine, stride); break;
  }
}

static void test_device_exact(int seed) {
  int num_cases;
  float *w;
  size_t used;
  Case *cases = build_cases(seed, &num_cases, &w, &used);
  const size_t stride = (size_t)num_cases * 32, out_words = stride * kOutWords;
  uint32_t *out = (uint32_t *)malloc(out_words * sizeof(uint32_t));
  Case *d_cases;
  float *d_w;
  uint32_t *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(Case) * (size_t)num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * (used > 0 ? used : 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out, out_words * sizeof(uint32_t)));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(Case) * (size_t)num_cases, cudaMemcpyHostToDevice));
  if (used > 0) SK_CHECK_CUDA(cudaMemcpy(d_w, w, sizeof(float) * used, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, out_words * sizeof(uint32_t)));
  hold_find_cases<<<(unsigned)((stride + 127) / 128), 128>>>(d_cases, d_w, d_out, num_cases);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, out_words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  int paths[SK_REF_BLOCKED_PATHS] = {0}, bug_caught[SK_REF_BLOCKED_BUGS] = {0};
  for (int c = 0; c < num_cases; ++c) {
    const Case &k = cases[c];
    const int R = kRs[k.r], top = 31 - __builtin_clz(k.mask);
    uint32_t want[32];
    for (int o = 0; o < kOutWords; ++o) {
      float sums[32], running[32];
      sk_ref_blocked_path path = SK_REF_BLOCKED_FOUND;
      const int p = o - 1;
      const uint32_t value =
          o == 0 ? sk_test_f32_bits(sk_ref_warp_strided_hold_f32(k.mask, R, w + k.offset, k.n, sums, running, NULL))
                 : (uint32_t)sk_ref_warp_strided_find_f32(k.mask, R, w + k.offset, k.n, k.x[p], NULL,
                                                          SK_REF_BLOCKED_NO_BUG, &path);
      if (o > 0) {
        ++paths[path];
        for (int b = 1; b < SK_REF_BLOCKED_BUGS; ++b)
          bug_caught[b] += (uint32_t)sk_ref_warp_strided_find_f32(k.mask, R, w + k.offset, k.n, k.x[p], NULL,
                                                                  (sk_ref_blocked_bug)b, NULL) !=
                           out[(size_t)o * stride + (size_t)c * 32 + (size_t)top];
      }
      for (int lane = 0; lane < 32; ++lane) want[lane] = (k.mask >> lane) & 1u ? value : SK_TEST_POISON_WORD;
      sk_test_context("seed=%d case=%d R=%d n=%d mask=%08x kind %d %s x=%.9g", seed, c, R, k.n, k.mask, k.kind,
                      o == 0 ? "total" : kPlaceNames[p], o == 0 ? 0.0 : (double)k.x[p]);
      sk_test_check_lanes(out + (size_t)o * stride + (size_t)c * 32, want, k.mask);
    }
  }
  for (int p = 0; p < SK_REF_BLOCKED_PATHS; ++p) {
    sk_test_context("seed=%d coverage of path %d", seed, p);
    SK_CHECK(paths[p] > 0, "no find ended on this path");
  }
  for (int b = 1; b < SK_REF_BLOCKED_BUGS; ++b) {
    sk_test_context("seed=%d planted bug %d", seed, b);
    SK_CHECK(bug_caught[b] > 0, "the planted bug changed no result: the comparison cannot fail");
  }
  printf("device seed %d: %d cases of %d finds, paths found %d, owner missed %d, no owner %d, empty %d; planted bugs "
         "caught %d, %d\n",
         seed, num_cases, kNumPlaces, paths[0], paths[1], paths[2], paths[3], bug_caught[1], bug_caught[2]);
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(cases);
  free(w);
  free(out);
}

// The usage snippet: groups of tokens drawn from a hold against the reference's finds.
static void test_usage_snippet(void) {
  enum { kGroups = 40, kNnz = 200, kTopics = 1000 };
  uint64_t rng = 0x5a1b3e5u;
  int *topic = (int *)malloc(sizeof(int) * kGroups * kNnz), start[kGroups + 1];
  float *count = (float *)malloc(sizeof(float) * kGroups * kNnz), row[kTopics];
  for (int i = 0; i < kTopics; ++i) row[i] = sk_test_rand_unit_f32(&rng);
  for (int i = 0; i < kGroups * kNnz; ++i) {
    topic[i] = (int)(sk_test_rand_u32(&rng) % kTopics);
    count[i] = (float)(1u + sk_test_rand_u32(&rng) % 5u);
  }
  start[0] = 0;
  for (int g = 0; g < kGroups; ++g) start[g + 1] = start[g] + (int)(sk_test_rand_u32(&rng) % 4u);
  const int tokens = start[kGroups];
  float *u = (float *)malloc(sizeof(float) * (size_t)(tokens + 1));
  for (int t = 0; t < tokens; ++t) u[t] = sk_test_rand_unit_f32(&rng);
  int *d_topic, *d_start, *d_out, *out = (int *)malloc(sizeof(int) * (size_t)(tokens + 1));
  float *d_count, *d_row, *d_u;
  SK_CHECK_CUDA(cudaMalloc(&d_topic, sizeof(int) * kGroups * kNnz));
  SK_CHECK_CUDA(cudaMalloc(&d_count, sizeof(float) * kGroups * kNnz));
  SK_CHECK_CUDA(cudaMalloc(&d_start, sizeof start));
  SK_CHECK_CUDA(cudaMalloc(&d_row, sizeof row));
  SK_CHECK_CUDA(cudaMalloc(&d_u, sizeof(float) * (size_t)(tokens + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * (size_t)(tokens + 1)));
  SK_CHECK_CUDA(cudaMemcpy(d_topic, topic, sizeof(int) * kGroups * kNnz, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_count, count, sizeof(float) * kGroups * kNnz, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_start, start, sizeof start, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_row, row, sizeof row, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_u, u, sizeof(float) * (size_t)(tokens + 1), cudaMemcpyHostToDevice));
  example_strided_groups<<<(kGroups * 32 + 127) / 128, 128>>>(d_topic, d_count, d_start, d_row, d_u, kGroups, kNnz,
                                                               d_out);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, sizeof(int) * (size_t)(tokens + 1), cudaMemcpyDeviceToHost));
  float weights[kNnz];
  for (int g = 0; g < kGroups; ++g) {
    for (int i = 0; i < kNnz; ++i) weights[i] = count[g * kNnz + i] * row[topic[g * kNnz + i]];
    float sum[32], running[32];
    const float total = sk_ref_warp_strided_hold_f32(SK_FULL_MASK, 8, weights, kNnz, sum, running, NULL);
    for (int t = start[g]; t < start[g + 1]; ++t) {
      const int i = sk_ref_warp_strided_find_f32(SK_FULL_MASK, 8, weights, kNnz, u[t] * total, NULL,
                                                 SK_REF_BLOCKED_NO_BUG, NULL);
      sk_test_context("usage snippet group %d token %d", g, t);
      SK_CHECK(out[t] == (i < 0 ? -1 : topic[g * kNnz + i]), "got topic %d, want %d", out[t],
               i < 0 ? -1 : topic[g * kNnz + i]);
    }
  }
  SK_CHECK_CUDA(cudaFree(d_topic));
  SK_CHECK_CUDA(cudaFree(d_count));
  SK_CHECK_CUDA(cudaFree(d_start));
  SK_CHECK_CUDA(cudaFree(d_row));
  SK_CHECK_CUDA(cudaFree(d_u));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(topic);
  free(count);
  free(u);
  free(out);
}

int main(int argc, char **argv) {
  test_reference();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_device_exact(seed);
  }
  return sk_test_finish();
}
