// Tests sk_warp_sorted_set_{rank,insert,erase,from_bitmap,from_counts}_i32 against the host reference
// (ref/sorted_set_ref.c). Operation sequences: seeded random ranks, inserts and erases from sets of 0 to
// 4,096 keys (sizes around the warp's 32 and the round's 128, growing, shrinking and level), keys dense,
// spread over the whole int32 range or at its extremes, positions at the ends and a round from the top;
// the array in shared and in global memory. After every operation the result (rank or size) and a hash
// of the set are compared; at the end the whole array with guard words on both sides, so that a write
// outside the contract (past the size an insert needs, or before the array) is seen. Builds: bitmaps
// and count arrays of K = 0 to 65,536 (K not a multiple of 32 included) at densities from empty to full,
// with and without the bitmap output, the keys in shared and in global memory. --host runs the
// reference's self-checks and the case generator.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/sorted_set_ref.h"
#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_sorted_set.cuh"
#include "sk_test.h"

enum {
  kGuard = 64,           // poison words on each side of every array
  kOpsPerCase = 72,      // operations a sequence
  kWarpsPerBlock = 2,    // so that a warp other than warp 0 of its block runs every case kind
  kRank = 0,
  kInsert = 1,
  kErase = 2,
  kUsageCapacity = 256,  // the usage snippet's set
};
static const int32_t kPoison = (int32_t)0x5a5a5a5a;

//! [warp_sorted_set_usage]
// One warp keeps the distinct values of a stream in a sorted set in shared memory, then sums their
// weights in increasing key order: the same bits whatever the order of the stream.
__global__ void example_distinct_sum(const int32_t *stream, int len, const double *weight, int32_t *size,
                                     double *sum) {
  __shared__ int32_t keys[kUsageCapacity];
  const int lane = sk_lane_id();
  int32_t n = 0;
  for (int i = 0; i < len; ++i) {
    const int32_t k = stream[i];  // the same on every lane
    const int32_t r = sk_warp_sorted_set_rank_i32(keys, n, k, lane);
    if (r == n || keys[r] != k) n = sk_warp_sorted_set_insert_i32(keys, n, k, lane);
  }
  double s = 0.0;
  for (int32_t j = 0; j < n; ++j) s += weight[keys[j]];  // every lane, in key order
  if (lane == 0) {
    *size = n;
    *sum = s;
  }
}
//! [warp_sorted_set_usage]

// ---------------------------------------------------------------------------------------------------
// Operation sequences.

// One entry of a set's hash: any change of a key or of its position changes the sum of the entries.
__host__ __device__ static uint32_t entry_hash(int32_t j, int32_t key) {
  return sk_mix_u32((uint32_t)key + 0x9e3779b9u * (uint32_t)(j + 1));
}

static uint32_t host_set_hash(const int32_t *keys, int32_t n) {
  uint32_t h = 0;
  for (int32_t j = 0; j < n; ++j) h += entry_hash(j, keys[j]);
  return h;
}

struct ops_case {
  int32_t n0;        // the set's size at the start
  int32_t first_op;  // its operations: kind[first_op .. first_op + kOpsPerCase)
};

// One warp a case; the array (guards included, `stride` words) is the case's global slice or, with
// kShared, the warp's slice of dynamic shared memory, copied in and out. After each operation lane 0
// records the result and every lane adds its part of the set's hash.
template <bool kShared>
__global__ void ops_kernel(const ops_case *cases, int num_cases, const int32_t *kinds, const int32_t *op_keys,
                           int32_t *storage, int stride, int32_t *results, uint32_t *hashes) {
  extern __shared__ int32_t smem[];
  const int lane = sk_lane_id(), warp = (int)(threadIdx.x / 32);
  const int c = (int)blockIdx.x * kWarpsPerBlock + warp;
  if (c >= num_cases) return;  // the whole warp
  int32_t *global = storage + (size_t)c * stride;
  int32_t *buf = kShared ? smem + (size_t)warp * stride : global;
  if (kShared) {
    for (int i = lane; i < stride; i += 32) buf[i] = global[i];
    __syncwarp();
  }
  int32_t *keys = buf + kGuard;
  int32_t n = cases[c].n0;
  for (int o = 0; o < kOpsPerCase; ++o) {
    const int at = cases[c].first_op + o;
    const int32_t kind = kinds[at], key = op_keys[at];
    int32_t r;
    if (kind == kRank) {
      r = sk_warp_sorted_set_rank_i32(keys, n, key, lane);
    } else if (kind == kInsert) {
      r = n = sk_warp_sorted_set_insert_i32(keys, n, key, lane);
    } else {
      r = n = sk_warp_sorted_set_erase_i32(keys, n, key, lane);
    }
    uint32_t h = 0;
    for (int32_t j = lane; j < n; j += 32) h += entry_hash(j, keys[j]);
    h = __reduce_add_sync(SK_FULL_MASK, h);
    if (lane == 0) {
      results[at] = r;
      hashes[at] = h;
    }
  }
  if (kShared) {
    __syncwarp();
    for (int i = lane; i < stride; i += 32) global[i] = buf[i];
  }
}

enum { kDrifts = 3, kKeyModes = 4 };
static const char *const kDriftNames[kDrifts] = {"level", "growing", "shrinking"};
static const char *const kKeyModeNames[kKeyModes] = {"dense", "int32 range", "extremes", "near zero"};
static const int32_t kExtremes[] = {INT32_MIN, INT32_MIN + 1, INT32_MIN + 2, -1, 0, 1, INT32_MAX - 2,
                                    INT32_MAX - 1, INT32_MAX};
static const int kNumExtremes = (int)(sizeof kExtremes / sizeof kExtremes[0]);

// A key of the case's mode (it may be in the set already).
static int32_t draw_key(int mode, int32_t span, uint64_t *rng) {
  const uint32_t r = sk_test_rand_u32(rng);
  switch (mode) {
    case 0: return (int32_t)(r % (uint32_t)span) - span / 2;  // dense: a range twice the largest size
    case 1: return (int32_t)r;                                // the whole int32 range
    case 2:                                                   // the extremes, half the time
      if (r & 1u) return kExtremes[(r >> 1) % (uint32_t)kNumExtremes];
      return (r & 2u) ? INT32_MAX - (int32_t)((r >> 2) % (uint32_t)span)
                      : INT32_MIN + (int32_t)((r >> 2) % (uint32_t)span);
    default: return (int32_t)(r % 2001u) - 1000;  // near zero, few absent keys at large sizes
  }
}

// An absent key, aimed at a position where it can: the front, the back, a round below the top, or
// anywhere. Falls back on draws of the mode, then on any absent int32 (there always is one here).
static int32_t absent_key(const int32_t *keys, int32_t n, int mode, int32_t span, uint64_t *rng) {
  const uint32_t aim = sk_test_rand_u32(rng) % 8u;
  if (n > 0 && aim < 4) {
    int32_t p;  // the key goes just below keys[p] (p == n: above the last)
    if (aim == 0) p = 0;
    else if (aim == 1) p = n;
    else if (aim == 2) p = n - 127 - (int32_t)(sk_test_rand_u32(rng) % 3u);  // 127 .. 129 entries move
    else p = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)(n + 1));
    if (p < 0) p = 0;
    if (p == n) {
      if (keys[n - 1] < INT32_MAX) return keys[n - 1] + 1;
    } else if (p == 0) {
      if (keys[0] > INT32_MIN) return keys[0] - 1;
    } else if (keys[p] - 1 > keys[p - 1]) {
      return keys[p] - 1;
    }
  }
  for (int tries = 0; tries < 64; ++tries) {
    const int32_t k = draw_key(mode, span, rng);
    if (!sk_ref_sorted_set_contains_i32(keys, n, k)) return k;
  }
  for (int32_t k = INT32_MIN;; ++k)
    if (!sk_ref_sorted_set_contains_i32(keys, n, k)) return k;
}

// A present key (n >= 1): the first, the last, one whose erase moves 127 to 129 entries, or any.
static int32_t present_key(const int32_t *keys, int32_t n, uint64_t *rng) {
  const uint32_t aim = sk_test_rand_u32(rng) % 6u;
  int32_t p = aim == 0 ? 0 : aim == 1 ? n - 1 : (int32_t)(sk_test_rand_u32(rng) % (uint32_t)n);
  if (aim == 2) p = n - 1 - 127 - (int32_t)(sk_test_rand_u32(rng) % 3u);
  if (p < 0) p = 0;
  return keys[p];
}

struct ops_suite {
  int num_cases, stride;
  ops_case *cases;
  int32_t *kinds, *keys, *expect_result;
  uint32_t *expect_hash;
  int32_t *storage, *expect_storage;  // num_cases x stride: the start, and the end the reference gives
  int *drift, *mode;
};

// The cases of one seed, each simulated on the host with the reference: a valid sequence (inserts of
// absent keys, erases of present ones) and its expected results, hashes and final arrays.
static ops_suite make_ops_suite(const int32_t *sizes, int num_sizes, uint64_t *rng) {
  ops_suite s;
  s.num_cases = num_sizes * kDrifts * kKeyModes;
  int32_t max_n = 0;
  for (int i = 0; i < num_sizes; ++i) max_n = sizes[i] > max_n ? sizes[i] : max_n;
  s.stride = (max_n + kOpsPerCase + 2 * kGuard + 31) / 32 * 32;
  const size_t ops = (size_t)s.num_cases * kOpsPerCase, words = (size_t)s.num_cases * s.stride;
  s.cases = (ops_case *)malloc(sizeof(ops_case) * s.num_cases);
  s.kinds = (int32_t *)malloc(sizeof(int32_t) * ops);
  s.keys = (int32_t *)malloc(sizeof(int32_t) * ops);
  s.expect_result = (int32_t *)malloc(sizeof(int32_t) * ops);
  s.expect_hash = (uint32_t *)malloc(sizeof(uint32_t) * ops);
  s.storage = (int32_t *)malloc(sizeof(int32_t) * words);
  s.expect_storage = (int32_t *)malloc(sizeof(int32_t) * words);
  s.drift = (int *)malloc(sizeof(int) * s.num_cases);
  s.mode = (int *)malloc(sizeof(int) * s.num_cases);
  for (size_t i = 0; i < words; ++i) s.storage[i] = kPoison;
  for (int c = 0; c < s.num_cases; ++c) {
    const int32_t n0 = sizes[c / (kDrifts * kKeyModes)];
    const int drift = c / kKeyModes % kDrifts, mode = c % kKeyModes;
    const int32_t span = 2 * (max_n + kOpsPerCase) + 64;
    s.cases[c].n0 = n0;
    s.cases[c].first_op = c * kOpsPerCase;
    s.drift[c] = drift;
    s.mode[c] = mode;
    int32_t *keys = s.storage + (size_t)c * s.stride + kGuard;
    int32_t n = 0;
    while (n < n0) n = sk_ref_sorted_set_insert_i32(keys, n, absent_key(keys, n, mode, span, rng));
    int32_t *work = s.expect_storage + (size_t)c * s.stride;
    memcpy(work, s.storage + (size_t)c * s.stride, sizeof(int32_t) * s.stride);
    keys = work + kGuard;
    for (int o = 0; o < kOpsPerCase; ++o) {
      const size_t at = (size_t)c * kOpsPerCase + o;
      const uint32_t r = sk_test_rand_u32(rng) % 100u;
      const uint32_t insert_share = drift == 0 ? 40u : drift == 1 ? 65u : 15u;  // of the 80 that move
      int32_t kind = r < 20u ? kRank : r < 20u + insert_share ? kInsert : kErase;
      if (kind == kErase && n == 0) kind = kInsert;
      int32_t key;
      if (kind == kRank) {
        const uint32_t which = sk_test_rand_u32(rng) % 4u;
        key = which == 0 && n > 0 ? present_key(keys, n, rng)
            : which == 1 ? kExtremes[sk_test_rand_u32(rng) % (uint32_t)kNumExtremes]
                         : draw_key(mode, span, rng);
        s.expect_result[at] = sk_ref_sorted_set_rank_i32(keys, n, key);
      } else if (kind == kInsert) {
        key = absent_key(keys, n, mode, span, rng);
        s.expect_result[at] = n = sk_ref_sorted_set_insert_i32(keys, n, key);
      } else {
        key = present_key(keys, n, rng);
        s.expect_result[at] = n = sk_ref_sorted_set_erase_i32(keys, n, key);
      }
      s.kinds[at] = kind;
      s.keys[at] = key;
      s.expect_hash[at] = host_set_hash(keys, n);
    }
  }
  return s;
}

static void free_ops_suite(ops_suite *s) {
  free(s->cases);
  free(s->kinds);
  free(s->keys);
  free(s->expect_result);
  free(s->expect_hash);
  free(s->storage);
  free(s->expect_storage);
  free(s->drift);
  free(s->mode);
}

static const int32_t kOpsSizes[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 130, 255, 256, 257,
                                    500, 1000, 1024, 1500, 2049, 4096};
static const int kNumOpsSizes = (int)(sizeof kOpsSizes / sizeof kOpsSizes[0]);

static void test_ops(int seed) {
  uint64_t rng = 0x5e7000u + (uint64_t)seed;
  ops_suite s = make_ops_suite(kOpsSizes, kNumOpsSizes, &rng);
  const size_t ops = (size_t)s.num_cases * kOpsPerCase, words = (size_t)s.num_cases * s.stride;
  ops_case *d_cases;
  int32_t *d_kinds, *d_keys, *d_storage, *d_results;
  uint32_t *d_hashes;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(ops_case) * s.num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_kinds, sizeof(int32_t) * ops));
  SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(int32_t) * ops));
  SK_CHECK_CUDA(cudaMalloc(&d_storage, sizeof(int32_t) * words));
  SK_CHECK_CUDA(cudaMalloc(&d_results, sizeof(int32_t) * ops));
  SK_CHECK_CUDA(cudaMalloc(&d_hashes, sizeof(uint32_t) * ops));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, s.cases, sizeof(ops_case) * s.num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_kinds, s.kinds, sizeof(int32_t) * ops, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_keys, s.keys, sizeof(int32_t) * ops, cudaMemcpyHostToDevice));
  int32_t *results = (int32_t *)malloc(sizeof(int32_t) * ops);
  uint32_t *hashes = (uint32_t *)malloc(sizeof(uint32_t) * ops);
  int32_t *storage = (int32_t *)malloc(sizeof(int32_t) * words);
  const int blocks = (s.num_cases + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const size_t smem = sizeof(int32_t) * (size_t)s.stride * kWarpsPerBlock;
  SK_CHECK_CUDA(cudaFuncSetAttribute(ops_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  for (int shared = 0; shared < 2; ++shared) {
    const char *where = shared ? "shared" : "global";
    SK_CHECK_CUDA(cudaMemcpy(d_storage, s.storage, sizeof(int32_t) * words, cudaMemcpyHostToDevice));
    SK_CHECK_CUDA(cudaMemset(d_results, 0xff, sizeof(int32_t) * ops));
    SK_CHECK_CUDA(cudaMemset(d_hashes, 0xff, sizeof(uint32_t) * ops));
    if (shared)
      ops_kernel<true><<<blocks, 32 * kWarpsPerBlock, smem>>>(d_cases, s.num_cases, d_kinds, d_keys, d_storage,
                                                              s.stride, d_results, d_hashes);
    else
      ops_kernel<false><<<blocks, 32 * kWarpsPerBlock>>>(d_cases, s.num_cases, d_kinds, d_keys, d_storage, s.stride,
                                                         d_results, d_hashes);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(results, d_results, sizeof(int32_t) * ops, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(hashes, d_hashes, sizeof(uint32_t) * ops, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(storage, d_storage, sizeof(int32_t) * words, cudaMemcpyDeviceToHost));
    for (int c = 0; c < s.num_cases; ++c) {
      int ok = 1;
      for (int o = 0; o < kOpsPerCase && ok; ++o) {
        const size_t at = (size_t)c * kOpsPerCase + o;
        static const char *const kind_names[3] = {"rank", "insert", "erase"};
        sk_test_context("seed=%d %s memory, case %d: n0=%d, %s, %s keys; op %d (%s of %d)", seed, where, c,
                        s.cases[c].n0, kDriftNames[s.drift[c]], kKeyModeNames[s.mode[c]], o, kind_names[s.kinds[at]],
                        s.keys[at]);
        ok = SK_CHECK(results[at] == s.expect_result[at], "returned %d, expected %d", results[at],
                      s.expect_result[at]) &&
             SK_CHECK(hashes[at] == s.expect_hash[at], "the set after it differs from the reference's (hash %08x, "
                      "expected %08x)", hashes[at], s.expect_hash[at]);
      }
      if (!ok) continue;  // the array is wrong too; the first mismatch is the one to look at
      sk_test_context("seed=%d %s memory, case %d: n0=%d, %s, %s keys; the array after %d operations", seed, where, c,
                      s.cases[c].n0, kDriftNames[s.drift[c]], kKeyModeNames[s.mode[c]], kOpsPerCase);
      const int32_t *got = storage + (size_t)c * s.stride, *want = s.expect_storage + (size_t)c * s.stride;
      int first = -1;
      for (int i = 0; i < s.stride && first < 0; ++i)
        if (got[i] != want[i]) first = i;
      SK_CHECK(first < 0, "word %d (entry %d) is %d, expected %d%s", first, first - kGuard, first < 0 ? 0 : got[first],
               first < 0 ? 0 : want[first], first >= 0 && want[first] == kPoison ? " (a guard or unused word)" : "");
    }
  }
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_kinds));
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_storage));
  SK_CHECK_CUDA(cudaFree(d_results));
  SK_CHECK_CUDA(cudaFree(d_hashes));
  free(results);
  free(hashes);
  free(storage);
  free_ops_suite(&s);
}

// ---------------------------------------------------------------------------------------------------
// Builds from a bitmap and from counts.

struct build_case {
  int32_t K;
  int32_t with_bitmap;       // from_counts writes the bitmap
  size_t counts_at, bits_at;  // into the counts (K) and the bitmaps (ceil(K / 32) words)
  size_t keys_at, map_at;     // into the outputs: K + 2 guards, words + 2 guards
};

// One warp a case: the set from the bitmap, then from the counts (and the bitmap from them), into the
// case's global output or, with kShared, into the warp's shared memory and copied out.
template <bool kShared>
__global__ void build_kernel(const build_case *cases, int num_cases, const uint32_t *bits, const int32_t *counts,
                             int32_t *keys_from_bits, int32_t *keys_from_counts, uint32_t *maps, int32_t *sizes,
                             int smem_stride) {
  extern __shared__ int32_t smem[];
  const int lane = sk_lane_id(), warp = (int)(threadIdx.x / 32);
  const int c = (int)blockIdx.x * kWarpsPerBlock + warp;
  if (c >= num_cases) return;
  const build_case bc = cases[c];
  const int32_t words = (bc.K + 31) / 32, len = bc.K + 2 * kGuard;
  int32_t *out_b = keys_from_bits + bc.keys_at, *out_c = keys_from_counts + bc.keys_at;
  int32_t *kb = out_b, *kc = out_c;
  if (kShared) {
    kb = smem + (size_t)warp * smem_stride;
    kc = kb + len;
    for (int i = lane; i < len; i += 32) {
      kb[i] = out_b[i];
      kc[i] = out_c[i];
    }
    __syncwarp();
  }
  uint32_t *map = bc.with_bitmap ? maps + bc.map_at + kGuard : NULL;
  const int32_t nb = sk_warp_sorted_set_from_bitmap_i32(bits + bc.bits_at, words, kb + kGuard, lane);
  const int32_t nc = sk_warp_sorted_set_from_counts_i32(counts + bc.counts_at, bc.K, kc + kGuard, map, lane);
  __syncwarp();
  if (lane == 0) {
    sizes[2 * c] = nb;
    sizes[2 * c + 1] = nc;
  }
  if (kShared)
    for (int i = lane; i < len; i += 32) {
      out_b[i] = kb[i];
      out_c[i] = kc[i];
    }
}

enum { kDensities = 7 };
static const char *const kDensityNames[kDensities] = {"empty", "full", "1/2", "1/64", "first only", "last only",
                                                      "31/32"};

static int dense_at(int density, int32_t k, int32_t K, uint64_t *rng) {
  const uint32_t r = sk_test_rand_u32(rng);
  switch (density) {
    case 0: return 0;
    case 1: return 1;
    case 2: return (int)(r & 1u);
    case 3: return r % 64u == 0;
    case 4: return k == 0;
    case 5: return k == K - 1;
    default: return r % 32u != 0;
  }
}

// A nonzero count: small positive mostly, sometimes negative or at the int32 extremes.
static int32_t nonzero_count(uint64_t *rng) {
  const uint32_t r = sk_test_rand_u32(rng);
  switch (r % 8u) {
    case 0: return INT32_MIN;
    case 1: return INT32_MAX;
    case 2: return -1 - (int32_t)(r >> 8) % 1000;
    default: return 1 + (int32_t)((r >> 8) % 1000u);
  }
}

static const int32_t kBuildKs[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1000, 1023, 1024, 1025,
                                   4095, 4096, 4097, 10240, 65535, 65536};
static const int kNumBuildKs = (int)(sizeof kBuildKs / sizeof kBuildKs[0]);
static const int32_t kSharedBuildMaxK = 4097;  // the keys of both builds in shared memory: 33 KB a warp

static void test_builds(int seed) {
  uint64_t rng = 0xb17000u + (uint64_t)seed;
  const int num_cases = kNumBuildKs * kDensities * 2;
  build_case *cases = (build_case *)malloc(sizeof(build_case) * num_cases);
  size_t counts_len = 0, bits_len = 0, keys_len = 0, maps_len = 0;
  for (int c = 0; c < num_cases; ++c) {
    build_case &bc = cases[c];
    bc.K = kBuildKs[c / (2 * kDensities)];
    bc.with_bitmap = c % 2;
    const size_t words = (size_t)(bc.K + 31) / 32;
    bc.counts_at = counts_len;
    bc.bits_at = bits_len;
    bc.keys_at = keys_len;
    bc.map_at = maps_len;
    counts_len += (size_t)bc.K;
    bits_len += words;
    keys_len += (size_t)bc.K + 2 * kGuard;
    maps_len += words + 2 * kGuard;
  }
  int32_t *counts = (int32_t *)malloc(sizeof(int32_t) * (counts_len + 1));
  uint32_t *bits = (uint32_t *)malloc(sizeof(uint32_t) * (bits_len + 1));
  int32_t *want_b = (int32_t *)malloc(sizeof(int32_t) * keys_len);
  int32_t *want_c = (int32_t *)malloc(sizeof(int32_t) * keys_len);
  uint32_t *want_map = (uint32_t *)malloc(sizeof(uint32_t) * maps_len);
  int32_t *want_sizes = (int32_t *)malloc(sizeof(int32_t) * 2 * num_cases);
  for (size_t i = 0; i < keys_len; ++i) want_b[i] = want_c[i] = kPoison;
  for (size_t i = 0; i < maps_len; ++i) want_map[i] = (uint32_t)kPoison;
  for (int c = 0; c < num_cases; ++c) {
    const build_case &bc = cases[c];
    const int density = c / 2 % kDensities;
    const int32_t words = (bc.K + 31) / 32;
    for (int32_t k = 0; k < bc.K; ++k)
      counts[bc.counts_at + k] = dense_at(density, k, bc.K, &rng) ? nonzero_count(&rng) : 0;
    for (int32_t w = 0; w < words; ++w) {
      uint32_t word = 0;
      for (int b = 0; b < 32; ++b)
        if (32 * w + b < bc.K && dense_at(density, 32 * w + b, bc.K, &rng)) word |= 1u << b;
      bits[bc.bits_at + w] = word;
    }
    want_sizes[2 * c] = sk_ref_sorted_set_from_bitmap_i32(bits + bc.bits_at, words, want_b + bc.keys_at + kGuard);
    uint32_t *want_bitmap = bc.with_bitmap ? want_map + bc.map_at + kGuard : NULL;
    want_sizes[2 * c + 1] =
        sk_ref_sorted_set_from_counts_i32(counts + bc.counts_at, bc.K, want_c + bc.keys_at + kGuard, want_bitmap);
  }

  build_case *d_cases;
  int32_t *d_counts, *d_keys_b, *d_keys_c, *d_sizes;
  uint32_t *d_bits, *d_maps;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(build_case) * num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof(int32_t) * (counts_len + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_bits, sizeof(uint32_t) * (bits_len + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_keys_b, sizeof(int32_t) * keys_len));
  SK_CHECK_CUDA(cudaMalloc(&d_keys_c, sizeof(int32_t) * keys_len));
  SK_CHECK_CUDA(cudaMalloc(&d_maps, sizeof(uint32_t) * maps_len));
  SK_CHECK_CUDA(cudaMalloc(&d_sizes, sizeof(int32_t) * 2 * num_cases));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, cases, sizeof(build_case) * num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_counts, counts, sizeof(int32_t) * counts_len, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_bits, bits, sizeof(uint32_t) * bits_len, cudaMemcpyHostToDevice));
  int32_t *got_b = (int32_t *)malloc(sizeof(int32_t) * keys_len);
  int32_t *got_c = (int32_t *)malloc(sizeof(int32_t) * keys_len);
  uint32_t *got_map = (uint32_t *)malloc(sizeof(uint32_t) * maps_len);
  int32_t *got_sizes = (int32_t *)malloc(sizeof(int32_t) * 2 * num_cases);

  // Shared memory takes the cases up to kSharedBuildMaxK, which come first.
  int shared_cases = 0;
  while (shared_cases < num_cases && cases[shared_cases].K <= kSharedBuildMaxK) ++shared_cases;
  const int smem_stride = 2 * (kSharedBuildMaxK + 2 * kGuard);
  const size_t smem = sizeof(int32_t) * (size_t)smem_stride * kWarpsPerBlock;
  SK_CHECK_CUDA(cudaFuncSetAttribute(build_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  for (int shared = 0; shared < 2; ++shared) {
    const char *where = shared ? "shared" : "global";
    const int run = shared ? shared_cases : num_cases;
    SK_CHECK_CUDA(cudaMemset(d_keys_b, 0x5a, sizeof(int32_t) * keys_len));
    SK_CHECK_CUDA(cudaMemset(d_keys_c, 0x5a, sizeof(int32_t) * keys_len));
    SK_CHECK_CUDA(cudaMemset(d_maps, 0x5a, sizeof(uint32_t) * maps_len));
    SK_CHECK_CUDA(cudaMemset(d_sizes, 0xff, sizeof(int32_t) * 2 * num_cases));
    const int blocks = (run + kWarpsPerBlock - 1) / kWarpsPerBlock;
    if (shared)
      build_kernel<true><<<blocks, 32 * kWarpsPerBlock, smem>>>(d_cases, run, d_bits, d_counts, d_keys_b, d_keys_c,
                                                                d_maps, d_sizes, smem_stride);
    else
      build_kernel<false><<<blocks, 32 * kWarpsPerBlock>>>(d_cases, run, d_bits, d_counts, d_keys_b, d_keys_c, d_maps,
                                                           d_sizes, 0);
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaMemcpy(got_b, d_keys_b, sizeof(int32_t) * keys_len, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(got_c, d_keys_c, sizeof(int32_t) * keys_len, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(got_map, d_maps, sizeof(uint32_t) * maps_len, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(got_sizes, d_sizes, sizeof(int32_t) * 2 * num_cases, cudaMemcpyDeviceToHost));
    for (int c = 0; c < run; ++c) {
      const build_case &bc = cases[c];
      const int32_t words = (bc.K + 31) / 32;
      const char *dn = kDensityNames[c / 2 % kDensities];
      sk_test_context("seed=%d %s memory, from_bitmap K=%d (%d words) %s", seed, where, bc.K, words, dn);
      if (SK_CHECK(got_sizes[2 * c] == want_sizes[2 * c], "returned %d, expected %d", got_sizes[2 * c],
                   want_sizes[2 * c])) {
        int first = -1;
        for (int32_t i = 0; i < bc.K + 2 * kGuard && first < 0; ++i)
          if (got_b[bc.keys_at + i] != want_b[bc.keys_at + i]) first = i;
        SK_CHECK(first < 0, "word %d (entry %d) is %d, expected %d", first, first - kGuard,
                 first < 0 ? 0 : got_b[bc.keys_at + first], first < 0 ? 0 : want_b[bc.keys_at + first]);
      }
      sk_test_context("seed=%d %s memory, from_counts K=%d %s, bitmap %s", seed, where, bc.K, dn,
                      bc.with_bitmap ? "written" : "NULL");
      if (SK_CHECK(got_sizes[2 * c + 1] == want_sizes[2 * c + 1], "returned %d, expected %d", got_sizes[2 * c + 1],
                   want_sizes[2 * c + 1])) {
        int first = -1;
        for (int32_t i = 0; i < bc.K + 2 * kGuard && first < 0; ++i)
          if (got_c[bc.keys_at + i] != want_c[bc.keys_at + i]) first = i;
        SK_CHECK(first < 0, "word %d (entry %d) is %d, expected %d", first, first - kGuard,
                 first < 0 ? 0 : got_c[bc.keys_at + first], first < 0 ? 0 : want_c[bc.keys_at + first]);
      }
      int first = -1;
      for (int32_t i = 0; i < words + 2 * kGuard && first < 0; ++i)
        if (got_map[bc.map_at + i] != want_map[bc.map_at + i]) first = i;
      SK_CHECK(first < 0, "bitmap word %d (word %d of the output) is %08x, expected %08x", first, first - kGuard,
               first < 0 ? 0u : got_map[bc.map_at + first], first < 0 ? 0u : want_map[bc.map_at + first]);
    }
  }
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_counts));
  SK_CHECK_CUDA(cudaFree(d_bits));
  SK_CHECK_CUDA(cudaFree(d_keys_b));
  SK_CHECK_CUDA(cudaFree(d_keys_c));
  SK_CHECK_CUDA(cudaFree(d_maps));
  SK_CHECK_CUDA(cudaFree(d_sizes));
  free(cases);
  free(counts);
  free(bits);
  free(want_b);
  free(want_c);
  free(want_map);
  free(want_sizes);
  free(got_b);
  free(got_c);
  free(got_map);
  free(got_sizes);
}

// ---------------------------------------------------------------------------------------------------
// The usage snippet, and the host checks.

// The snippet on one multiset of values in two orders: the same size and the same sum bits, equal to
// the host's sum over the distinct values in increasing order.
static void test_usage_snippet(void) {
  enum { kLen = 600, kValues = 200 };
  int32_t stream[kLen], reversed[kLen];
  double weight[kValues];
  uint64_t rng = 77;
  for (int i = 0; i < kValues; ++i) weight[i] = (double)sk_test_rand_unit_f32(&rng) * 1e3 + 1e-7 * i;
  for (int i = 0; i < kLen; ++i) stream[i] = (int32_t)(sk_test_rand_u32(&rng) % (uint32_t)kValues);
  for (int i = 0; i < kLen; ++i) reversed[i] = stream[kLen - 1 - i];
  int present[kValues] = {0};
  for (int i = 0; i < kLen; ++i) present[stream[i]] = 1;
  int32_t distinct = 0;
  double sum = 0.0;
  for (int k = 0; k < kValues; ++k)
    if (present[k]) {
      ++distinct;
      sum += weight[k];
    }
  int32_t *d_stream, *d_size;
  double *d_weight, *d_sum;
  SK_CHECK_CUDA(cudaMalloc(&d_stream, sizeof stream));
  SK_CHECK_CUDA(cudaMalloc(&d_weight, sizeof weight));
  SK_CHECK_CUDA(cudaMalloc(&d_size, sizeof(int32_t)));
  SK_CHECK_CUDA(cudaMalloc(&d_sum, sizeof(double)));
  SK_CHECK_CUDA(cudaMemcpy(d_weight, weight, sizeof weight, cudaMemcpyHostToDevice));
  for (int order = 0; order < 2; ++order) {
    SK_CHECK_CUDA(cudaMemcpy(d_stream, order ? reversed : stream, sizeof stream, cudaMemcpyHostToDevice));
    example_distinct_sum<<<1, 32>>>(d_stream, kLen, d_weight, d_size, d_sum);
    SK_CHECK_LAUNCH();
    int32_t size = -1;
    double got = 0.0;
    SK_CHECK_CUDA(cudaMemcpy(&size, d_size, sizeof size, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
    sk_test_context("usage snippet, stream %s", order ? "reversed" : "in order");
    SK_CHECK(size == distinct, "%d distinct values, expected %d", size, distinct);
    SK_CHECK(memcmp(&got, &sum, sizeof got) == 0, "sum %.17g, expected %.17g bit for bit", got, sum);
  }
  SK_CHECK_CUDA(cudaFree(d_stream));
  SK_CHECK_CUDA(cudaFree(d_weight));
  SK_CHECK_CUDA(cudaFree(d_size));
  SK_CHECK_CUDA(cudaFree(d_sum));
}

// The reference against definitions by counting and sorting, and the case generator's sequences
// against their preconditions (inserts absent, erases present, sizes within the array).
static void test_references(void) {
  uint64_t rng = 4242;
  for (int c = 0; c < 300; ++c) {
    enum { kCap = 300 };
    int32_t keys[kCap + 1];
    int32_t n = 0;
    const int mode = c % kKeyModes;
    const int32_t target = (int32_t)(sk_test_rand_u32(&rng) % (uint32_t)kCap);
    while (n < target) n = sk_ref_sorted_set_insert_i32(keys, n, absent_key(keys, n, mode, 4 * kCap, &rng));
    int sorted = 1;
    for (int32_t j = 1; j < n; ++j) sorted &= keys[j - 1] < keys[j];
    sk_test_context("reference self-check %d (%s keys, n=%d)", c, kKeyModeNames[mode], n);
    SK_CHECK(sorted, "inserts left the keys out of order");
    for (int q = 0; q < 8; ++q) {
      const int32_t k = q < 2 ? kExtremes[sk_test_rand_u32(&rng) % (uint32_t)kNumExtremes]
                      : q < 4 && n > 0 ? keys[sk_test_rand_u32(&rng) % (uint32_t)n]
                                       : draw_key(mode, 4 * kCap, &rng);
      int32_t below = 0;
      for (int32_t j = 0; j < n; ++j) below += keys[j] < k;
      SK_CHECK(sk_ref_sorted_set_rank_i32(keys, n, k) == below, "rank of %d is %d, counted %d", k,
               sk_ref_sorted_set_rank_i32(keys, n, k), below);
    }
    if (n > 0) {
      const int32_t k = present_key(keys, n, &rng), was = n;
      n = sk_ref_sorted_set_erase_i32(keys, n, k);
      int still = 0;
      for (int32_t j = 0; j < n; ++j) still |= keys[j] == k;
      SK_CHECK(n == was - 1 && !still, "erase of %d left %d keys (it is still there: %d)", k, n, still);
    }
  }
  // from_bitmap and from_counts against each other: counts of one where the bits are set.
  for (int c = 0; c < 50; ++c) {
    enum { kWords = 40 };
    uint32_t bits[kWords], map[kWords];
    int32_t counts[32 * kWords], a[32 * kWords], b[32 * kWords];
    const int32_t K = 1 + (int32_t)(sk_test_rand_u32(&rng) % (32u * kWords));
    const int32_t words = (K + 31) / 32;
    for (int32_t w = 0; w < words; ++w) bits[w] = sk_test_rand_u32(&rng) & sk_test_rand_u32(&rng);
    if (K % 32) bits[words - 1] &= (1u << (K % 32)) - 1u;
    for (int32_t k = 0; k < K; ++k) counts[k] = (int32_t)((bits[k / 32] >> (k % 32)) & 1u) * (k % 2 ? -3 : 5);
    const int32_t na = sk_ref_sorted_set_from_bitmap_i32(bits, words, a);
    const int32_t nb = sk_ref_sorted_set_from_counts_i32(counts, K, b, map);
    sk_test_context("reference self-check of the builds, K=%d", K);
    SK_CHECK(na == nb && memcmp(a, b, sizeof(int32_t) * (size_t)na) == 0 &&
                 memcmp(bits, map, sizeof(uint32_t) * (size_t)words) == 0,
             "the bitmap's set (%d keys) and the counts' (%d) differ", na, nb);
  }
  // One seed's operation suite: every insert absent, every erase present, no size past the array.
  uint64_t suite_rng = 0x5e7000u;
  ops_suite s = make_ops_suite(kOpsSizes, kNumOpsSizes, &suite_rng);
  for (int c = 0; c < s.num_cases; ++c) {
    int32_t *keys = (int32_t *)malloc(sizeof(int32_t) * s.stride);
    memcpy(keys, s.storage + (size_t)c * s.stride + kGuard, sizeof(int32_t) * (s.stride - kGuard));
    int32_t n = s.cases[c].n0, max_n = n, bad = -1;
    for (int o = 0; o < kOpsPerCase; ++o) {
      const size_t at = (size_t)c * kOpsPerCase + o;
      const int has = sk_ref_sorted_set_contains_i32(keys, n, s.keys[at]);
      if ((s.kinds[at] == kInsert && has) || (s.kinds[at] == kErase && !has)) bad = o;
      if (s.kinds[at] == kInsert) n = sk_ref_sorted_set_insert_i32(keys, n, s.keys[at]);
      if (s.kinds[at] == kErase) n = sk_ref_sorted_set_erase_i32(keys, n, s.keys[at]);
      max_n = n > max_n ? n : max_n;
    }
    sk_test_context("operation suite case %d (n0=%d, %s, %s keys)", c, s.cases[c].n0, kDriftNames[s.drift[c]],
                    kKeyModeNames[s.mode[c]]);
    SK_CHECK(bad < 0, "operation %d breaks its precondition", bad);
    SK_CHECK(max_n + 2 * kGuard <= s.stride, "the set reaches %d keys, the array holds %d", max_n,
             s.stride - 2 * kGuard);
    free(keys);
  }
  free_ops_suite(&s);
}

int main(int argc, char **argv) {
  test_references();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_ops(seed);
      test_builds(seed);
    }
  }
  return sk_test_finish();
}
