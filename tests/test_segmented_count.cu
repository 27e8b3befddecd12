// Tests the segmented count (segmented_count.h, segmented_count.cuh, kernels/segmented_count.cu):
// - host (--host): the reference against a brute-force dense count and the contract's properties; the
//   reference's input check on planted bad inputs; the generators; every argument check of the three C
//   API functions that returns before touching CUDA (none may reach CUDA);
// - GPU: sk_block_segmented_count_u32 (256 x 8 and 128 x 4) against the reference for num_valid 0 to a
//   full tile, key_bits 0 to 32 and four key kinds, with garbage in the invalid positions and the
//   storage reused at once; the device-wide call over the issue's shapes (no segments, all empty, one
//   segment of 10^7 items, 1-item segments, one key, distinct keys, K = 1, 2 and 2^20, Zipf keys,
//   lengths around the tile, runs of thousands of empty segments) and the kernel's path boundaries
//   (K at and one past the shared histogram, the dense path and the window, for short and for long
//   segments; three windows; counts past 2^16), each read directly, through a permutation and through
//   a random map, in two phases, in one phase and with capacities below the total, every output
//   fenced by guard words and the workspace filled with garbage; sk_segmented_count_check_u32 on good
//   input and on each kind of bad input (the documented first index); the count on bad input staying
//   inside its arrays; the statuses that need a device (workspace one byte short, a pending error);
//   both usage snippets, run.
// SK_TEST_SEEDS seeds (default 8) for the random inputs; the shapes of 10^7 items run for a quarter of
// them (at least one).
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/segmented_count_ref.h"
#include "samplekit/segmented_count.cuh"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"
#include "sk_test.h"
#include "warp_cases.h"  // SK_TEST_POISON_BYTE and SK_TEST_POISON_WORD

//! [block_segmented_count_usage]
// One block of 256 threads per segment of at most 2048 items (8 keys per thread): the segment's
// distinct keys and their counts, written from the segment's own offset (a segment of n items has at
// most n pairs), and their number. key_bits: the bit length of K - 1 for keys in [0, K).
__global__ void __launch_bounds__(256)
    example_count_short_segments(const int32_t *offsets, const uint32_t *keys, int key_bits, uint32_t *out_keys,
                                 uint32_t *out_counts, int *out_num) {
  __shared__ sk_block_segmented_count_storage_u32<256, 8> storage;
  __shared__ uint32_t s_keys[2048], s_counts[2048];
  const int begin = offsets[blockIdx.x], n = offsets[blockIdx.x + 1] - begin;
  uint32_t k[8];
  for (int i = 0; i < 8; ++i) {
    const int position = threadIdx.x * 8 + i;  // blocked arrangement: thread t holds items 8t .. 8t + 7
    k[i] = position < n ? keys[begin + position] : 0u;
  }
  const int distinct = sk_block_segmented_count_u32<256, 8>(storage, k, n, key_bits, s_keys, s_counts, threadIdx.x);
  // The pairs are visible to the whole block on return.
  for (int j = threadIdx.x; j < distinct; j += 256) {
    out_keys[begin + j] = s_keys[j];
    out_counts[begin + j] = s_counts[j];
  }
  if (threadIdx.x == 0) out_num[blockIdx.x] = distinct;
}
//! [block_segmented_count_usage]

//! [segmented_count_usage]
// The CSR matrix of (key, count) pairs of every segment, in two phases: the offsets, then exactly as
// many pairs as they say. d_out_offsets has num_segments + 1 entries; on success *d_out_keys and
// *d_out_counts are new allocations of *num_pairs entries each (cudaFree them).
static sk_status count_segments(const int32_t *d_offsets, int32_t num_segments, int32_t num_items,
                                const uint32_t *d_keys, const int32_t *d_perm, int32_t num_keys, int32_t *d_out_offsets,
                                uint32_t **d_out_keys, uint32_t **d_out_counts, int32_t *num_pairs,
                                cudaStream_t stream) {
  size_t bytes = 0;
  void *d_workspace = NULL;
  *d_out_keys = NULL;
  *d_out_counts = NULL;
  sk_status st = sk_segmented_count_workspace_size(num_segments, num_items, num_keys, &bytes);
  if (st != SK_SUCCESS) return st;
  if (cudaMalloc(&d_workspace, bytes) != cudaSuccess) return SK_ERROR_CUDA_ALLOCATION_FAILED;
  // Phase 1, sizes: capacity 0 writes the offsets only.
  st = sk_segmented_count_u32(d_offsets, num_segments, num_items, d_keys, d_perm, num_keys, d_out_offsets, NULL, NULL,
                              0, d_workspace, bytes, stream);
  if (st == SK_SUCCESS && (cudaMemcpyAsync(num_pairs, d_out_offsets + num_segments, sizeof *num_pairs,
                                           cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
                           cudaStreamSynchronize(stream) != cudaSuccess))
    st = SK_ERROR_CUDA;
  // Phase 2, fill: the same work again, now writing the pairs.
  if (st == SK_SUCCESS &&
      (cudaMalloc(d_out_keys, sizeof(uint32_t) * (*num_pairs > 0 ? *num_pairs : 1)) != cudaSuccess ||
       cudaMalloc(d_out_counts, sizeof(uint32_t) * (*num_pairs > 0 ? *num_pairs : 1)) != cudaSuccess))
    st = SK_ERROR_CUDA_ALLOCATION_FAILED;
  if (st == SK_SUCCESS)
    st = sk_segmented_count_u32(d_offsets, num_segments, num_items, d_keys, d_perm, num_keys, d_out_offsets,
                                *d_out_keys, *d_out_counts, *num_pairs, d_workspace, bytes, stream);
  if (cudaStreamSynchronize(stream) != cudaSuccess && st == SK_SUCCESS) st = SK_ERROR_CUDA;
  cudaFree(d_workspace);
  if (st != SK_SUCCESS) {
    cudaFree(*d_out_keys);
    cudaFree(*d_out_counts);
    *d_out_keys = *d_out_counts = NULL;
  }
  return st;
}
//! [segmented_count_usage]

enum { kGuard = 64 };  // poisoned words before and after every output array
static const double kZipfExponent = 1.1;

// ---------------------------------------------------------------------------------------------------
// Input generation (host).

static double rand_unit_f64(uint64_t *rng) { return ((double)(sk_test_rand_u64(rng) >> 11) + 0.5) * 0x1p-53; }

static double rand_gauss(uint64_t *rng) {
  const double u1 = rand_unit_f64(rng), u2 = rand_unit_f64(rng);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static uint32_t rand_below(uint64_t *rng, uint32_t n) { return (uint32_t)(sk_test_rand_u64(rng) % n); }

static uint32_t gcd_u32(uint32_t a, uint32_t b) {
  while (b != 0) {
    const uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Lognormal lengths (mean num_items / S) through the reference's generator.
static void long_tailed_offsets(int32_t *offsets, int32_t S, int32_t n, double sigma, double cap, uint64_t *rng) {
  double *g = (double *)malloc(sizeof(double) * (S > 0 ? S : 1)),
         *scratch = (double *)malloc(sizeof(double) * (S > 0 ? S : 1));
  for (int32_t s = 0; s < S; ++s) g[s] = rand_gauss(rng);
  if (S > 0)
    sk_ref_long_tailed_offsets(g, S, n, sigma, cap, scratch, offsets);
  else
    offsets[0] = 0;
  free(g);
  free(scratch);
}

// Every segment draws Zipf ranks and maps them through its own affine permutation of [0, K): each
// segment has its own frequent keys, as an LDA document has its own topics.
static void zipf_keys_per_segment(uint32_t *keys, const int32_t *offsets, int32_t S, int32_t K, double exponent,
                                  uint64_t *rng) {
  for (int32_t s = 0; s < S; ++s) {
    uint32_t a = 1 + rand_below(rng, (uint32_t)K);
    while (gcd_u32(a, (uint32_t)K) != 1) ++a;
    const uint32_t b = rand_below(rng, (uint32_t)K);
    for (int32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      const uint32_t r = (uint32_t)sk_ref_zipf_rank(rand_unit_f64(rng), K, exponent);
      keys[i] = (uint32_t)(((uint64_t)a * r + b) % (uint32_t)K);
    }
  }
}

static void shuffle_i32(int32_t *v, int32_t n, uint64_t *rng) {
  for (int32_t i = n - 1; i > 0; --i) {
    const int32_t j = (int32_t)rand_below(rng, (uint32_t)i + 1u);
    const int32_t t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

static void offsets_from_lengths(int32_t *offsets, const int32_t *lengths, int32_t S) {
  offsets[0] = 0;
  for (int32_t s = 0; s < S; ++s) offsets[s + 1] = offsets[s] + lengths[s];
}

// ---------------------------------------------------------------------------------------------------
// The shapes of the device-wide tests: the issue's list, then the tile and window boundaries.

struct shape {
  char name[96];
  int32_t S, n, K;
  int32_t *offsets;  // S + 1
  uint32_t *keys;    // item i's key (document order)
};

static void shape_alloc(shape *sh, const char *name, int32_t S, int32_t n, int32_t K) {
  snprintf(sh->name, sizeof sh->name, "%s", name);
  sh->S = S;
  sh->n = n;
  sh->K = K;
  sh->offsets = (int32_t *)calloc((size_t)S + 1, sizeof(int32_t));
  sh->keys = (uint32_t *)calloc((size_t)(n > 0 ? n : 1), sizeof(uint32_t));
}

static void shape_free(shape *sh) {
  free(sh->offsets);
  free(sh->keys);
}

// From lengths drawn one by one from `choices` (0 allowed), capped at total items.
static void lengths_from_choices(shape *sh, const int32_t *choices, int num_choices, uint64_t *rng) {
  int32_t *lengths = (int32_t *)malloc(sizeof(int32_t) * sh->S);
  for (int32_t s = 0; s < sh->S; ++s) lengths[s] = choices[rand_below(rng, (uint32_t)num_choices)];
  offsets_from_lengths(sh->offsets, lengths, sh->S);
  free(lengths);
}

enum shape_kind {
  kShapeNoSegments,
  kShapeAllEmpty,
  kShapeHuge,
  kShapeOneItem,
  kShapeOneKey,
  kShapeLongOneKey,  // K given
  kShapeDistinct,
  kShapeDistinctOneSegment,
  kShapeK1,
  kShapeK2Small,
  kShapeMedium,  // K given
  kShapeKMaxRandom,
  kShapeZipf,
  kShapeAroundTile,
  kShapeEmptyRuns,
  kShapeLong,  // K given
  kShapeKMax5000,
  kShapeKMaxHuge
};

struct shape_spec {
  shape_kind kind;
  int32_t K;  // for the kinds that take one
};

// The boundaries of the kernel's paths, from the header: the shared histogram (2 x tile keys), the
// dense path (when the header has one) and the key window. 2 x the window (32,768) is also where the
// dense kernels' lanes go from one owner mask to two (their second instance).
#ifdef SK_SEGMENTED_COUNT_DENSE_MAX_KEYS
static const int32_t kDenseMaxKeys = SK_SEGMENTED_COUNT_DENSE_MAX_KEYS;
#else
static const int32_t kDenseMaxKeys = 2 * SK_SEGMENTED_COUNT_TILE_ITEMS;
#endif
static const int32_t kPathKeys[] = {2 * SK_SEGMENTED_COUNT_TILE_ITEMS, kDenseMaxKeys, SK_SEGMENTED_COUNT_WINDOW,
                                    2 * SK_SEGMENTED_COUNT_WINDOW};

static int shape_specs(shape_spec *out) {
  int n = 0;
  const shape_kind plain[] = {
      kShapeNoSegments, kShapeAllEmpty,           kShapeHuge,      kShapeOneItem,  kShapeOneKey,
      kShapeDistinct,   kShapeDistinctOneSegment, kShapeK1,        kShapeK2Small,  kShapeKMaxRandom,
      kShapeZipf,       kShapeAroundTile,         kShapeEmptyRuns, kShapeKMax5000, kShapeKMaxHuge};
  for (size_t a = 0; a < sizeof plain / sizeof plain[0]; ++a) out[n++] = shape_spec{plain[a], 0};
  out[n++] = shape_spec{kShapeLongOneKey, 1};
  out[n++] = shape_spec{kShapeLongOneKey, 1000};
  // Every path boundary, at and one past it, for short and for long segments; then three windows.
  const int32_t small_ks[] = {2, 3, 64, 1000};
  for (size_t a = 0; a < sizeof small_ks / sizeof small_ks[0]; ++a) out[n++] = shape_spec{kShapeMedium, small_ks[a]};
  for (size_t a = 0; a < sizeof kPathKeys / sizeof kPathKeys[0]; ++a) {
    if (a > 0 && kPathKeys[a] == kPathKeys[a - 1]) continue;
    for (int32_t d = 0; d < 2; ++d) {
      out[n++] = shape_spec{kShapeMedium, kPathKeys[a] + d};
      out[n++] = shape_spec{kShapeLong, kPathKeys[a] + d};
    }
  }
  out[n++] = shape_spec{kShapeLong, 2 * SK_SEGMENTED_COUNT_WINDOW + 5000};
  return n;
}

static bool shape_is_huge(shape_kind kind) { return kind == kShapeHuge || kind == kShapeKMaxHuge; }

// Random keys, uniform, with the keys at the boundaries of the paths and windows and K - 1 planted
// often.
static void boundary_keys(shape *sh, uint64_t *rng) {
  const uint32_t K = (uint32_t)sh->K;
  uint32_t planted[2 + 2 * (sizeof kPathKeys / sizeof kPathKeys[0])];
  int np = 0;
  planted[np++] = 0u;
  planted[np++] = K - 1;
  for (size_t a = 0; a < sizeof kPathKeys / sizeof kPathKeys[0]; ++a) {
    planted[np++] = ((uint32_t)kPathKeys[a] - 1u) % K;
    planted[np++] = (uint32_t)kPathKeys[a] % K;
  }
  for (int32_t i = 0; i < sh->n; ++i)
    sh->keys[i] = rand_below(rng, 4) == 0 ? planted[rand_below(rng, (uint32_t)np)] : rand_below(rng, K);
}

static void make_shape(shape_spec spec, shape *sh, uint64_t *rng) {
  const int32_t tile = SK_SEGMENTED_COUNT_TILE_ITEMS / 2, piece = SK_SEGMENTED_COUNT_TILE_ITEMS;
  char name[96];
  switch (spec.kind) {
    case kShapeNoSegments:
      shape_alloc(sh, "0 segments", 0, 0, 1000);
      return;
    case kShapeAllEmpty:
      shape_alloc(sh, "all 3000 segments empty", 3000, 0, 50);
      return;
    case kShapeHuge:
      shape_alloc(sh, "one segment of 10^7 items, K=1000 Zipf", 1, 10000000, 1000);
      sh->offsets[1] = sh->n;
      zipf_keys_per_segment(sh->keys, sh->offsets, 1, sh->K, kZipfExponent, rng);
      return;
    case kShapeOneItem:
      shape_alloc(sh, "200000 segments of 1 item, K=1000", 200000, 200000, 1000);
      for (int32_t s = 0; s <= sh->S; ++s) sh->offsets[s] = s;
      for (int32_t i = 0; i < sh->n; ++i) sh->keys[i] = rand_below(rng, 1000);
      return;
    case kShapeOneKey: {
      shape_alloc(sh, "all items one key, long-tailed lengths, K=1000", 2000, 600000, 1000);
      long_tailed_offsets(sh->offsets, sh->S, sh->n, 1.0, 30.0, rng);
      const uint32_t key = rand_below(rng, 2) ? 999u : rand_below(rng, 1000);
      for (int32_t i = 0; i < sh->n; ++i) sh->keys[i] = key;
      return;
    }
    case kShapeLongOneKey: {
      // Counts at and past 2^16 (a 16-bit counter would wrap) and far beyond.
      const int32_t lengths[] = {65535, 0, 65536, 65537, 3, 200000, 131072};
      snprintf(name, sizeof name, "one key per segment, lengths 65535 to 200000, K=%d", (int)spec.K);
      shape_alloc(sh, name, 7, 0, spec.K);
      offsets_from_lengths(sh->offsets, lengths, 7);
      sh->n = sh->offsets[7];
      sh->keys = (uint32_t *)realloc(sh->keys, sizeof(uint32_t) * sh->n);
      for (int32_t s = 0; s < 7; ++s) {
        const uint32_t key = s % 2 ? (uint32_t)spec.K - 1 : rand_below(rng, (uint32_t)spec.K);
        for (int32_t i = sh->offsets[s]; i < sh->offsets[s + 1]; ++i) sh->keys[i] = key;
      }
      return;
    }
    case kShapeDistinct:
    case kShapeDistinctOneSegment: {
      // A random permutation of all 2^20 keys: every key once, so every count is 1.
      const int32_t S = spec.kind == kShapeDistinct ? 1000 : 1;
      shape_alloc(sh,
                  spec.kind == kShapeDistinct ? "all keys distinct, K=2^20, 1000 long-tailed segments"
                                              : "all keys distinct, K=2^20, one segment",
                  S, 1 << 20, 1 << 20);
      long_tailed_offsets(sh->offsets, S, sh->n, 1.0, 30.0, rng);
      int32_t *p = (int32_t *)malloc(sizeof(int32_t) * sh->n);
      for (int32_t i = 0; i < sh->n; ++i) p[i] = i;
      shuffle_i32(p, sh->n, rng);
      for (int32_t i = 0; i < sh->n; ++i) sh->keys[i] = (uint32_t)p[i];
      free(p);
      return;
    }
    case kShapeK1:
      shape_alloc(sh, "K=1, long-tailed lengths", 5000, 500000, 1);
      long_tailed_offsets(sh->offsets, sh->S, sh->n, 1.0, 60.0, rng);
      return;  // every key 0
    case kShapeK2Small: {
      // Tiny segments around the warp size, K = 2 (one key bit).
      const int32_t choices[] = {0, 1, 2, 31, 32, 33};
      shape_alloc(sh, "K=2, lengths 0, 1, 2, 31, 32, 33", 3001, 0, 2);
      lengths_from_choices(sh, choices, 6, rng);
      sh->n = sh->offsets[sh->S];
      sh->keys = (uint32_t *)realloc(sh->keys, sizeof(uint32_t) * (sh->n > 0 ? sh->n : 1));
      for (int32_t i = 0; i < sh->n; ++i) sh->keys[i] = rand_below(rng, 2);
      return;
    }
    case kShapeMedium:
      // Lognormal lengths (mean 200, some longer than a piece), Zipf keys per segment; K at a path
      // boundary or small.
      snprintf(name, sizeof name, "Zipf keys, lognormal lengths (mean 200), K=%d", (int)spec.K);
      shape_alloc(sh, name, 3000, 600000, spec.K);
      long_tailed_offsets(sh->offsets, sh->S, sh->n, 1.0, 30.0, rng);
      zipf_keys_per_segment(sh->keys, sh->offsets, sh->S, sh->K, kZipfExponent, rng);
      return;
    case kShapeKMaxRandom:
      shape_alloc(sh, "K=2^20 uniform keys, long-tailed lengths", 5000, 1000000, 1 << 20);
      long_tailed_offsets(sh->offsets, sh->S, sh->n, 1.0, 40.0, rng);
      for (int32_t i = 0; i < sh->n; ++i) sh->keys[i] = rand_below(rng, 1u << 20);
      return;
    case kShapeZipf:
      shape_alloc(sh, "Zipf keys per segment, K=1000, lognormal lengths (sigma 1, mean 150)", 20000, 3000000, 1000);
      long_tailed_offsets(sh->offsets, sh->S, sh->n, 1.0, 40.0, rng);
      zipf_keys_per_segment(sh->keys, sh->offsets, sh->S, sh->K, kZipfExponent, rng);
      return;
    case kShapeAroundTile: {
      // Every length around a tile's positions and a piece, and past two pieces, with empty segments:
      // drawn at random, so segments start at every phase of the tiles.
      const int32_t choices[] = {0,         0,     1,         tile - 1,      tile,     tile + 1,
                                 piece - 1, piece, piece + 1, 2 * piece + 1, tile / 2, 3 * tile + 7};
      shape_alloc(sh, "lengths around the tile (1023..4097) mixed with empty segments, K=1000", 3000, 0, 1000);
      lengths_from_choices(sh, choices, 12, rng);
      sh->n = sh->offsets[sh->S];
      sh->keys = (uint32_t *)realloc(sh->keys, sizeof(uint32_t) * (sh->n > 0 ? sh->n : 1));
      zipf_keys_per_segment(sh->keys, sh->offsets, sh->S, sh->K, kZipfExponent, rng);
      return;
    }
    case kShapeEmptyRuns: {
      // Runs of 5000 empty segments (at the start, after a segment longer than a piece, at the end)
      // between short segments: one tile owns thousands of segments.
      const int32_t S = 24000;
      int32_t *lengths = (int32_t *)malloc(sizeof(int32_t) * S);
      for (int32_t s = 0; s < S; ++s) lengths[s] = (int32_t)rand_below(rng, 40);
      for (int32_t s = 0; s < 5000; ++s) lengths[s] = 0;
      lengths[9000] = piece + 1;
      for (int32_t s = 9001; s < 14001; ++s) lengths[s] = 0;
      for (int32_t s = S - 5000; s < S; ++s) lengths[s] = 0;
      shape_alloc(sh, "runs of 5000 empty segments, K=1000", S, 0, 1000);
      offsets_from_lengths(sh->offsets, lengths, S);
      free(lengths);
      sh->n = sh->offsets[S];
      sh->keys = (uint32_t *)realloc(sh->keys, sizeof(uint32_t) * (sh->n > 0 ? sh->n : 1));
      zipf_keys_per_segment(sh->keys, sh->offsets, S, sh->K, kZipfExponent, rng);
      return;
    }
    case kShapeLong: {
      // Segments longer than a piece among short ones, K at a path boundary, boundary keys planted.
      const int32_t choices[] = {0, 1, 100, piece + 1, 5000, 20000, 100000};
      snprintf(name, sizeof name, "segments longer than a piece, K=%d, boundary keys", (int)spec.K);
      shape_alloc(sh, name, 48, 0, spec.K);
      lengths_from_choices(sh, choices, 7, rng);
      sh->n = sh->offsets[sh->S];
      sh->keys = (uint32_t *)realloc(sh->keys, sizeof(uint32_t) * (sh->n > 0 ? sh->n : 1));
      boundary_keys(sh, rng);
      return;
    }
    case kShapeKMax5000: {
      shape_alloc(sh, "K=2^20, a 5000-item segment between two short ones", 3, 5020, 1 << 20);
      const int32_t lengths[] = {10, 5000, 10};
      offsets_from_lengths(sh->offsets, lengths, 3);
      boundary_keys(sh, rng);
      return;
    }
    case kShapeKMaxHuge:
      shape_alloc(sh, "K=2^20, one segment of 10^7 items", 1, 10000000, 1 << 20);
      sh->offsets[1] = sh->n;
      boundary_keys(sh, rng);
      return;
  }
}

// ---------------------------------------------------------------------------------------------------
// Comparing device output with the reference.

// Index of the first entry where got != want, or n.
static int64_t first_diff_u32(const uint32_t *got, const uint32_t *want, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != want[i]) return i;
  return n;
}

// Index of the first word of [from, to) that is not the poison word, or -1.
static int64_t first_written(const uint32_t *v, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i)
    if (v[i] != SK_TEST_POISON_WORD) return i;
  return -1;
}

struct reference {
  int64_t P;
  int32_t *offsets;
  uint32_t *keys, *counts;
};

struct device_case {
  int32_t S, n, K;
  int32_t *d_offsets, *d_perm;
  uint32_t *d_keys;
  int32_t *d_out_offsets_base;  // kGuard + S + 1 + kGuard words
  uint32_t *d_pairs_base[2];    // kGuard + room + kGuard words each
  int64_t room;                 // pairs each buffer holds between its guards
  void *d_workspace;
  size_t workspace_bytes;
  uint32_t *h_offsets_base, *h_pairs_base[2];
};

static void poison_outputs(device_case *c) {
  SK_CHECK_CUDA(cudaMemset(c->d_out_offsets_base, SK_TEST_POISON_BYTE, sizeof(int32_t) * (c->S + 1 + 2 * kGuard)));
  for (int a = 0; a < 2; ++a)
    SK_CHECK_CUDA(cudaMemset(c->d_pairs_base[a], SK_TEST_POISON_BYTE, sizeof(uint32_t) * (c->room + 2 * kGuard)));
  // Memsets and pageable copies may still be in flight on the legacy stream, and some calls run on a
  // non-blocking stream.
  SK_CHECK_CUDA(cudaDeviceSynchronize());
}

// Runs one call with the given capacity (pairs NULL when `null_pairs`) and compares: the offsets in
// full, the pairs below min(capacity, P), every guard word and every word past the capacity unwritten.
static void run_and_compare(device_case *c, const reference *ref, int32_t capacity, bool null_pairs,
                            cudaStream_t stream, const char *variant) {
  poison_outputs(c);
  int32_t *d_out_offsets = c->d_out_offsets_base + kGuard;
  uint32_t *d_out_keys = null_pairs ? NULL : c->d_pairs_base[0] + kGuard;
  uint32_t *d_out_counts = null_pairs ? NULL : c->d_pairs_base[1] + kGuard;
  const sk_status st =
      sk_segmented_count_u32(c->d_offsets, c->S, c->n, c->d_keys, c->d_perm, c->K, d_out_offsets, d_out_keys,
                             d_out_counts, capacity, c->d_workspace, c->workspace_bytes, stream);
  SK_CHECK(st == SK_SUCCESS, "%s: returned %s", variant, sk_status_name(st));
  SK_CHECK_CUDA(cudaStreamSynchronize(stream));
  SK_CHECK_CUDA(cudaGetLastError());
  const int64_t offset_words = c->S + 1 + 2 * kGuard, pair_words = c->room + 2 * kGuard;
  SK_CHECK_CUDA(
      cudaMemcpy(c->h_offsets_base, c->d_out_offsets_base, sizeof(int32_t) * offset_words, cudaMemcpyDeviceToHost));
  const uint32_t *got_offsets = c->h_offsets_base + kGuard;
  const int64_t o = first_diff_u32(got_offsets, (const uint32_t *)ref->offsets, c->S + 1);
  SK_CHECK(o == c->S + 1, "%s: out_offsets[%lld] = %d, want %d", variant, (long long)o,
           o <= c->S ? (int)got_offsets[o] : 0, o <= c->S ? (int)ref->offsets[o] : 0);
  int64_t w = first_written(c->h_offsets_base, 0, kGuard);
  if (w < 0) w = first_written(c->h_offsets_base, kGuard + c->S + 1, offset_words);
  SK_CHECK(w < 0, "%s: offsets guard word %lld (array index %lld) was written: 0x%08x", variant, (long long)w,
           (long long)(w - kGuard), w >= 0 ? c->h_offsets_base[w] : 0u);
  const int64_t written = capacity < ref->P ? capacity : ref->P;
  for (int a = 0; a < 2; ++a) {
    const char *what = a == 0 ? "keys" : "counts";
    SK_CHECK_CUDA(
        cudaMemcpy(c->h_pairs_base[a], c->d_pairs_base[a], sizeof(uint32_t) * pair_words, cudaMemcpyDeviceToHost));
    const uint32_t *got = c->h_pairs_base[a] + kGuard, *want = a == 0 ? ref->keys : ref->counts;
    const int64_t d = first_diff_u32(got, want, written);
    SK_CHECK(d == written, "%s: out_%s[%lld] = %u, want %u (P = %lld, capacity %d)", variant, what, (long long)d,
             d < written ? got[d] : 0u, d < written ? want[d] : 0u, (long long)ref->P, (int)capacity);
    // Before the array, and from the capacity on (nothing past the capacity may be written; below
    // it, past P, the contract says nothing).
    int64_t g = first_written(c->h_pairs_base[a], 0, kGuard);
    if (g < 0) g = first_written(c->h_pairs_base[a], kGuard + (null_pairs ? 0 : capacity), pair_words);
    SK_CHECK(g < 0, "%s: out_%s index %lld (capacity %d, P %lld) was written: 0x%08x", variant, what,
             (long long)(g - kGuard), (int)capacity, (long long)ref->P, g >= 0 ? c->h_pairs_base[a][g] : 0u);
  }
}

static const char *const kModeNames[3] = {"direct", "through a permutation", "through a random map"};

// One shape in one mode: the stored keys and the map, then every way of calling.
static void device_shape_case(const shape *sh, const reference *ref, int mode, int seed, uint64_t *rng) {
  const int32_t S = sh->S, n = sh->n;
  uint32_t *stored = (uint32_t *)malloc(sizeof(uint32_t) * (n > 0 ? n : 1));
  int32_t *perm = NULL;
  if (mode == 0) {
    memcpy(stored, sh->keys, sizeof(uint32_t) * n);
  } else if (mode == 1) {
    // keys stored permuted: item i's key is at perm[i].
    perm = (int32_t *)malloc(sizeof(int32_t) * (n > 0 ? n : 1));
    for (int32_t i = 0; i < n; ++i) perm[i] = i;
    shuffle_i32(perm, n, rng);
    for (int32_t i = 0; i < n; ++i) stored[perm[i]] = sh->keys[i];
  } else {
    // A map that is not a permutation: about half the items read the slot of an earlier item with
    // the same key; the slots nobody reads hold keys out of range (only what the map reaches is
    // read). Slots are then relabelled at random.
    perm = (int32_t *)malloc(sizeof(int32_t) * (n > 0 ? n : 1));
    int32_t *slot_of_key = (int32_t *)malloc(sizeof(int32_t) * sh->K),
            *relabel = (int32_t *)malloc(sizeof(int32_t) * (n > 0 ? n : 1));
    for (int32_t k = 0; k < sh->K; ++k) slot_of_key[k] = -1;
    for (int32_t i = 0; i < n; ++i) {
      const uint32_t key = sh->keys[i];
      if (slot_of_key[key] >= 0 && rand_below(rng, 2) == 0) {
        perm[i] = slot_of_key[key];
      } else {
        perm[i] = slot_of_key[key] = i;
      }
      relabel[i] = i;
    }
    shuffle_i32(relabel, n, rng);
    for (int32_t i = 0; i < n; ++i)
      stored[relabel[i]] = perm[i] == i ? sh->keys[i] : (uint32_t)sh->K + rand_below(rng, 5);
    for (int32_t i = 0; i < n; ++i) perm[i] = relabel[perm[i]];
    free(slot_of_key);
    free(relabel);
  }
  sk_test_context("shape '%s' S=%d n=%d K=%d, %s, seed %d", sh->name, (int)S, (int)n, (int)sh->K, kModeNames[mode],
                  seed);
  // The map must give every item its key (else the comparison below tests nothing).
  int64_t bad = -1;
  for (int32_t i = 0; i < n && bad < 0; ++i)
    if (stored[perm ? perm[i] : i] != sh->keys[i]) bad = i;
  SK_CHECK(bad < 0, "test setup: item %lld does not read its key", (long long)bad);

  device_case c;
  memset(&c, 0, sizeof c);
  c.S = S;
  c.n = n;
  c.K = sh->K;
  c.room = n > ref->P ? n : ref->P;
  SK_CHECK_CUDA(cudaMalloc(&c.d_offsets, sizeof(int32_t) * (S + 1)));
  SK_CHECK_CUDA(cudaMemcpy(c.d_offsets, sh->offsets, sizeof(int32_t) * (S + 1), cudaMemcpyHostToDevice));
  if (n > 0) {  // num_items = 0: the keys may be NULL
    SK_CHECK_CUDA(cudaMalloc(&c.d_keys, sizeof(uint32_t) * n));
    SK_CHECK_CUDA(cudaMemcpy(c.d_keys, stored, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  }
  if (perm != NULL && n > 0) {
    SK_CHECK_CUDA(cudaMalloc(&c.d_perm, sizeof(int32_t) * n));
    SK_CHECK_CUDA(cudaMemcpy(c.d_perm, perm, sizeof(int32_t) * n, cudaMemcpyHostToDevice));
  }
  SK_CHECK_CUDA(cudaMalloc(&c.d_out_offsets_base, sizeof(int32_t) * (S + 1 + 2 * kGuard)));
  for (int a = 0; a < 2; ++a) {
    SK_CHECK_CUDA(cudaMalloc(&c.d_pairs_base[a], sizeof(uint32_t) * (c.room + 2 * kGuard)));
    c.h_pairs_base[a] = (uint32_t *)malloc(sizeof(uint32_t) * (c.room + 2 * kGuard));
  }
  c.h_offsets_base = (uint32_t *)malloc(sizeof(uint32_t) * (S + 1 + 2 * kGuard));
  const sk_status ws = sk_segmented_count_workspace_size(S, n, sh->K, &c.workspace_bytes);
  SK_CHECK(ws == SK_SUCCESS, "workspace size: %s", sk_status_name(ws));
  SK_CHECK(c.workspace_bytes > 0, "the workspace size is 0: no allocation could pass the NULL check");
  SK_CHECK_CUDA(cudaMalloc(&c.d_workspace, c.workspace_bytes > 0 ? c.workspace_bytes : 1));
  // Garbage in the workspace: the call must initialise what it relies on (and again when reused).
  SK_CHECK_CUDA(cudaMemset(c.d_workspace, 0xa5, c.workspace_bytes));

  cudaStream_t stream;
  SK_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int32_t P = (int32_t)ref->P;
  char variant[128];
  if (sk_test_under_racecheck()) {
    // One phase only: it launches every kernel the other variants do; they differ in global writes.
    run_and_compare(&c, ref, n, false, stream, "one phase: capacity num_items");
  } else {
  // Two phases: sizes (no pair arrays), then exactly P.
  run_and_compare(&c, ref, 0, true, 0, "two phases: sizes, pair arrays NULL");
  run_and_compare(&c, ref, P, false, stream, "two phases: fill, capacity P");
  // One phase.
  run_and_compare(&c, ref, n, false, stream, "one phase: capacity num_items");
  // Capacities below the total: 0 with arrays, 1, P / 2, P - 1 (one of them for the huge shapes).
  const int32_t caps[4] = {0, 1, P / 2, P - 1};
  for (int k = 0; k < 4; ++k) {
    if (caps[k] < 0 || caps[k] >= P || (k > 0 && caps[k] == caps[k - 1])) continue;
    if (n >= 10000000 && k != 2) continue;
    snprintf(variant, sizeof variant, "capacity %d below the total %d", (int)caps[k], (int)P);
    run_and_compare(&c, ref, caps[k], false, k % 2 ? stream : 0, variant);
  }
  }
  SK_CHECK_CUDA(cudaStreamDestroy(stream));
  SK_CHECK_CUDA(cudaFree(c.d_offsets));
  SK_CHECK_CUDA(cudaFree(c.d_keys));
  SK_CHECK_CUDA(cudaFree(c.d_perm));
  SK_CHECK_CUDA(cudaFree(c.d_out_offsets_base));
  SK_CHECK_CUDA(cudaFree(c.d_pairs_base[0]));
  SK_CHECK_CUDA(cudaFree(c.d_pairs_base[1]));
  SK_CHECK_CUDA(cudaFree(c.d_workspace));
  free(c.h_offsets_base);
  free(c.h_pairs_base[0]);
  free(c.h_pairs_base[1]);
  free(stored);
  free(perm);
}

static void test_device_shapes(int seed) {
  const int big_seeds = sk_test_seed_count() / 4 > 0 ? sk_test_seed_count() / 4 : 1;
  shape_spec specs[64];
  const int num_specs = shape_specs(specs);
  for (int which = 0; which < num_specs; ++which) {
    // The 10^7-item shapes: a quarter of the seeds, and none under compute-sanitizer (time).
    if (shape_is_huge(specs[which].kind) && (seed >= big_seeds || sk_test_under_sanitizer())) continue;
    uint64_t rng = 0x5e6c0000ull + (uint64_t)seed * 1000003ull + (uint64_t)which * 7919ull;
    shape sh;
    make_shape(specs[which], &sh, &rng);
    reference ref;
    ref.offsets = (int32_t *)malloc(sizeof(int32_t) * (sh.S + 1));
    ref.keys = (uint32_t *)malloc(sizeof(uint32_t) * (sh.n > 0 ? sh.n : 1));
    ref.counts = (uint32_t *)malloc(sizeof(uint32_t) * (sh.n > 0 ? sh.n : 1));
    sk_test_context("shape '%s' seed %d: reference", sh.name, seed);
    ref.P = sk_ref_segmented_count_u32(sh.offsets, sh.S, sh.n, sh.keys, NULL, sh.K, ref.offsets, ref.keys, ref.counts);
    if (SK_CHECK(ref.P >= 0, "the reference rejected the generated input (%lld)", (long long)ref.P)) {
      // The random map only on the smaller shapes (it is there for the contract, not for size).
      // Under racecheck: in place and through a permutation (the random map differs from the
      // permutation only in which global addresses are read).
      for (int mode = 0; mode < (sh.n <= 4000000 ? 3 : 2); ++mode)
        if (!(sk_test_under_racecheck() && mode == 2)) device_shape_case(&sh, &ref, mode, seed, &rng);
    }
    sk_test_progress("seed %d: shape '%s' done (%ld checks passed so far)", seed, sh.name, sk_test_passed);
    free(ref.offsets);
    free(ref.keys);
    free(ref.counts);
    shape_free(&sh);
  }
}

// ---------------------------------------------------------------------------------------------------
// The block function.

// Two cases per block, 2b and 2b + 1, into two pairs of output arrays: the second call reuses the
// storage right after the first returns. Each thread also reports its return value and its sorted keys.
template <int BT, int IPT>
__global__ void __launch_bounds__(BT)
    block_count_kernel(const uint32_t *keys, const int *num_valid, const int *key_bits, uint32_t *sorted,
                       uint32_t *out_keys, uint32_t *out_counts, int *out_distinct) {
  __shared__ sk_block_segmented_count_storage_u32<BT, IPT> storage;
  __shared__ uint32_t s_keys[2][BT * IPT], s_counts[2][BT * IPT];
  const int tile = BT * IPT;
  int distinct[2];
  for (int h = 0; h < 2; ++h) {
    const int c = 2 * blockIdx.x + h;
    uint32_t k[IPT];
    for (int i = 0; i < IPT; ++i) k[i] = keys[(size_t)c * tile + threadIdx.x * IPT + i];
    distinct[h] = sk_block_segmented_count_u32<BT, IPT>(storage, k, num_valid[c], key_bits[c], s_keys[h], s_counts[h],
                                                        threadIdx.x);
    for (int i = 0; i < IPT; ++i) sorted[(size_t)c * tile + threadIdx.x * IPT + i] = k[i];
  }
  for (int h = 0; h < 2; ++h) {
    const int c = 2 * blockIdx.x + h;
    for (int j = threadIdx.x; j < distinct[h]; j += BT) {
      out_keys[(size_t)c * tile + j] = s_keys[h][j];
      out_counts[(size_t)c * tile + j] = s_counts[h][j];
    }
    out_distinct[(size_t)c * BT + threadIdx.x] = distinct[h];
  }
}

enum { kKeyRandom, kKeyConstantMax, kKeyDistinct, kKeyExtremes, kNumKeyKinds };
static const char *const kKeyKindNames[kNumKeyKinds] = {"random below 2^key_bits", "constant 2^key_bits - 1",
                                                        "distinct (wrapping when 2^key_bits < n)",
                                                        "only 0, max - 1 and max"};

template <int BT, int IPT>
static void test_block_config(int seed) {
  const int tile = BT * IPT;
  const int valid_list[] = {0, 1, 31, 32, 33, tile / 2 + 3, tile - 1, tile, -1 /* random */};
  const int bits_list[] = {0, 1, 4, 10, 20, 31, 32};
  const int nv_count = (int)(sizeof valid_list / sizeof valid_list[0]);
  const int nb_count = (int)(sizeof bits_list / sizeof bits_list[0]);
  int cases = nv_count * nb_count * kNumKeyKinds;
  cases += cases % 2;  // two per block
  uint64_t rng = 0xb10c0000ull + (uint64_t)seed * 31337ull + (uint64_t)tile;
  uint32_t *h_keys = (uint32_t *)malloc(sizeof(uint32_t) * cases * tile);
  uint32_t *h_sorted = (uint32_t *)malloc(sizeof(uint32_t) * cases * tile);
  uint32_t *h_out_keys = (uint32_t *)malloc(sizeof(uint32_t) * cases * tile);
  uint32_t *h_out_counts = (uint32_t *)malloc(sizeof(uint32_t) * cases * tile);
  uint32_t *want_keys = (uint32_t *)malloc(sizeof(uint32_t) * tile),
           *want_counts = (uint32_t *)malloc(sizeof(uint32_t) * tile);
  uint32_t *want_sorted = (uint32_t *)malloc(sizeof(uint32_t) * tile);
  int *h_valid = (int *)malloc(sizeof(int) * cases), *h_bits = (int *)malloc(sizeof(int) * cases);
  int *h_distinct = (int *)malloc(sizeof(int) * cases * BT), *h_kind = (int *)malloc(sizeof(int) * cases);
  int32_t *order = (int32_t *)malloc(sizeof(int32_t) * tile);
  for (int c = 0; c < cases; ++c) {
    const int v = valid_list[(c / (nb_count * kNumKeyKinds)) % nv_count];
    const int bits = bits_list[(c / kNumKeyKinds) % nb_count];
    const int kind = c % kNumKeyKinds;
    const int nv = v >= 0 ? v : (int)rand_below(&rng, (uint32_t)tile + 1);
    const uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
    uint32_t *k = h_keys + (size_t)c * tile;
    const uint32_t a = (sk_test_rand_u32(&rng) | 1u), b = sk_test_rand_u32(&rng);
    for (int32_t i = 0; i < tile; ++i) order[i] = i;
    shuffle_i32(order, tile, &rng);
    for (int i = 0; i < tile; ++i) {
      uint32_t key;
      switch (kind) {
        case kKeyRandom:
          key = sk_test_rand_u32(&rng) & max;
          break;
        case kKeyConstantMax:
          key = max;
          break;
        case kKeyDistinct:
          key = ((uint32_t)order[i] * a + b) & max;
          break;  // odd a: a bijection mod 2^bits
        default: {
          const uint32_t r = rand_below(&rng, 3);
          key = r == 0 ? 0u : (r == 1 ? max - (max > 0 ? 1u : 0u) : max);
        }
      }
      // Past num_valid: any value (the function must ignore it), often above 2^key_bits.
      k[i] = i < nv ? key : sk_test_rand_u32(&rng);
    }
    h_valid[c] = nv;
    h_bits[c] = bits;
    h_kind[c] = kind;
  }
  uint32_t *d_keys, *d_sorted, *d_out_keys, *d_out_counts;
  int *d_valid, *d_bits, *d_distinct;
  SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(uint32_t) * cases * tile));
  SK_CHECK_CUDA(cudaMalloc(&d_sorted, sizeof(uint32_t) * cases * tile));
  SK_CHECK_CUDA(cudaMalloc(&d_out_keys, sizeof(uint32_t) * cases * tile));
  SK_CHECK_CUDA(cudaMalloc(&d_out_counts, sizeof(uint32_t) * cases * tile));
  SK_CHECK_CUDA(cudaMalloc(&d_valid, sizeof(int) * cases));
  SK_CHECK_CUDA(cudaMalloc(&d_bits, sizeof(int) * cases));
  SK_CHECK_CUDA(cudaMalloc(&d_distinct, sizeof(int) * cases * BT));
  SK_CHECK_CUDA(cudaMemcpy(d_keys, h_keys, sizeof(uint32_t) * cases * tile, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_valid, h_valid, sizeof(int) * cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_bits, h_bits, sizeof(int) * cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out_keys, SK_TEST_POISON_BYTE, sizeof(uint32_t) * cases * tile));
  SK_CHECK_CUDA(cudaMemset(d_out_counts, SK_TEST_POISON_BYTE, sizeof(uint32_t) * cases * tile));
  sk_test_context("block %d x %d, seed %d: launch", BT, IPT, seed);
  block_count_kernel<BT, IPT>
      <<<cases / 2, BT>>>(d_keys, d_valid, d_bits, d_sorted, d_out_keys, d_out_counts, d_distinct);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_sorted, d_sorted, sizeof(uint32_t) * cases * tile, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_out_keys, d_out_keys, sizeof(uint32_t) * cases * tile, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_out_counts, d_out_counts, sizeof(uint32_t) * cases * tile, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_distinct, d_distinct, sizeof(int) * cases * BT, cudaMemcpyDeviceToHost));
  for (int c = 0; c < cases; ++c) {
    const int nv = h_valid[c];
    sk_test_context("block %d x %d, seed %d, case %d: num_valid %d, key_bits %d, keys %s", BT, IPT, seed, c, nv,
                    h_bits[c], kKeyKindNames[h_kind[c]]);
    const int64_t D = sk_ref_count_keys_u32(h_keys + (size_t)c * tile, nv, want_sorted, want_keys, want_counts);
    int t = 0;
    while (t < BT && h_distinct[(size_t)c * BT + t] == (int)D) ++t;
    if (!SK_CHECK(t == BT, "thread %d returned %d distinct keys, want %lld", t,
                  t < BT ? h_distinct[(size_t)c * BT + t] : 0, (long long)D))
      continue;
    const uint32_t *gk = h_out_keys + (size_t)c * tile, *gc = h_out_counts + (size_t)c * tile;
    const int64_t dk = first_diff_u32(gk, want_keys, D), dc = first_diff_u32(gc, want_counts, D);
    SK_CHECK(dk == D, "key %lld: got %u, want %u", (long long)dk, dk < D ? gk[dk] : 0u, dk < D ? want_keys[dk] : 0u);
    SK_CHECK(dc == D, "count %lld (key %u): got %u, want %u", (long long)dc, dc < D ? want_keys[dc] : 0u,
             dc < D ? gc[dc] : 0u, dc < D ? want_counts[dc] : 0u);
    const uint32_t *gs = h_sorted + (size_t)c * tile;
    const int64_t ds = first_diff_u32(gs, want_sorted, nv);
    SK_CHECK(ds == nv, "sorted keys in place, position %lld: got %u, want %u", (long long)ds, ds < nv ? gs[ds] : 0u,
             ds < nv ? want_sorted[ds] : 0u);
  }
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_sorted));
  SK_CHECK_CUDA(cudaFree(d_out_keys));
  SK_CHECK_CUDA(cudaFree(d_out_counts));
  SK_CHECK_CUDA(cudaFree(d_valid));
  SK_CHECK_CUDA(cudaFree(d_bits));
  SK_CHECK_CUDA(cudaFree(d_distinct));
  free(h_keys);
  free(h_sorted);
  free(h_out_keys);
  free(h_out_counts);
  free(want_keys);
  free(want_counts);
  free(want_sorted);
  free(h_valid);
  free(h_bits);
  free(h_distinct);
  free(h_kind);
  free(order);
}

// ---------------------------------------------------------------------------------------------------
// sk_segmented_count_check_u32, and the count on the same bad inputs.

// A good input to spoil: 1000 long-tailed segments (mean 50), Zipf keys, K = 1000.
struct check_input {
  int32_t S, n, K;
  int32_t *offsets;
  uint32_t *keys;  // stored keys
  int32_t *perm;   // NULL: none; else item i's key is keys[perm[i]]
};

static void check_input_make(check_input *in, bool with_perm, uint64_t *rng) {
  in->S = 1000;
  in->n = 50000;
  in->K = 1000;
  in->offsets = (int32_t *)malloc(sizeof(int32_t) * (in->S + 1));
  in->keys = (uint32_t *)malloc(sizeof(uint32_t) * in->n);
  long_tailed_offsets(in->offsets, in->S, in->n, 1.0, 30.0, rng);
  zipf_keys_per_segment(in->keys, in->offsets, in->S, in->K, kZipfExponent, rng);
  in->perm = NULL;
  if (with_perm) {
    in->perm = (int32_t *)malloc(sizeof(int32_t) * in->n);
    for (int32_t i = 0; i < in->n; ++i) in->perm[i] = i;
    shuffle_i32(in->perm, in->n, rng);
    uint32_t *stored = (uint32_t *)malloc(sizeof(uint32_t) * in->n);
    for (int32_t i = 0; i < in->n; ++i) stored[in->perm[i]] = in->keys[i];
    free(in->keys);
    in->keys = stored;
  }
}

static void check_input_free(check_input *in) {
  free(in->offsets);
  free(in->keys);
  free(in->perm);
}

// The check on the device against the expected first bad index (-1: good), and the count on the same
// input: launched, no fault, nothing written outside its arrays.
static void check_case(const check_input *in, int64_t want_bad, const char *what) {
  const int32_t S = in->S, n = in->n;
  sk_test_context("check: %s (%s), S=%d n=%d K=%d", what, in->perm ? "through a permutation" : "direct", (int)S, (int)n,
                  (int)in->K);
  const int64_t ref_bad = sk_ref_segmented_count_check_u32(in->offsets, S, n, in->keys, in->perm, in->K);
  SK_CHECK(ref_bad == want_bad, "test setup: the reference's check says %lld, the case expects %lld",
           (long long)ref_bad, (long long)want_bad);
  int32_t *d_offsets, *d_perm = NULL, *d_out_offsets;
  uint32_t *d_keys = NULL, *d_pairs;
  SK_CHECK_CUDA(cudaMalloc(&d_offsets, sizeof(int32_t) * (S + 1)));
  SK_CHECK_CUDA(cudaMemcpy(d_offsets, in->offsets, sizeof(int32_t) * (S + 1), cudaMemcpyHostToDevice));
  if (n > 0) {
    SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(uint32_t) * n));
    SK_CHECK_CUDA(cudaMemcpy(d_keys, in->keys, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  }
  if (in->perm != NULL) {
    SK_CHECK_CUDA(cudaMalloc(&d_perm, sizeof(int32_t) * n));
    SK_CHECK_CUDA(cudaMemcpy(d_perm, in->perm, sizeof(int32_t) * n, cudaMemcpyHostToDevice));
  }
  int64_t bad = 12345;
  sk_status st = sk_segmented_count_check_u32(d_offsets, S, n, d_keys, d_perm, in->K, &bad, 0);
  SK_CHECK(st == (want_bad < 0 ? SK_SUCCESS : SK_ERROR_INVALID_VALUE) && bad == want_bad,
           "returned %s with bad_index %lld; want %s with %lld", sk_status_name(st), (long long)bad,
           want_bad < 0 ? "SK_SUCCESS" : "SK_ERROR_INVALID_VALUE", (long long)want_bad);
  st = sk_segmented_count_check_u32(d_offsets, S, n, d_keys, d_perm, in->K, NULL, 0);
  SK_CHECK(st == (want_bad < 0 ? SK_SUCCESS : SK_ERROR_INVALID_VALUE), "with bad_index NULL: returned %s",
           sk_status_name(st));
  // The count, unchecked, on the same input: whatever it counts, it stays inside its arrays.
  const int64_t offset_words = S + 1 + 2 * kGuard, pair_words = 2 * ((int64_t)n + 2 * kGuard);
  SK_CHECK_CUDA(cudaMalloc(&d_out_offsets, sizeof(int32_t) * offset_words));
  SK_CHECK_CUDA(cudaMalloc(&d_pairs, sizeof(uint32_t) * pair_words));
  SK_CHECK_CUDA(cudaMemset(d_out_offsets, SK_TEST_POISON_BYTE, sizeof(int32_t) * offset_words));
  SK_CHECK_CUDA(cudaMemset(d_pairs, SK_TEST_POISON_BYTE, sizeof(uint32_t) * pair_words));
  size_t bytes = 0;
  void *d_workspace;
  SK_CHECK(sk_segmented_count_workspace_size(S, n, in->K, &bytes) == SK_SUCCESS, "workspace size");
  SK_CHECK_CUDA(cudaMalloc(&d_workspace, bytes > 0 ? bytes : 1));
  uint32_t *d_out_keys = d_pairs + kGuard, *d_out_counts = d_pairs + kGuard + n + 2 * kGuard;
  st = sk_segmented_count_u32(d_offsets, S, n, d_keys, d_perm, in->K, d_out_offsets + kGuard, d_out_keys, d_out_counts,
                              n, d_workspace, bytes, 0);
  SK_CHECK(st == SK_SUCCESS, "the count on this input returned %s", sk_status_name(st));
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  SK_CHECK_CUDA(cudaGetLastError());
  uint32_t *h_offsets = (uint32_t *)malloc(sizeof(uint32_t) * offset_words);
  uint32_t *h_pairs = (uint32_t *)malloc(sizeof(uint32_t) * pair_words);
  SK_CHECK_CUDA(cudaMemcpy(h_offsets, d_out_offsets, sizeof(uint32_t) * offset_words, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_pairs, d_pairs, sizeof(uint32_t) * pair_words, cudaMemcpyDeviceToHost));
  int64_t w = first_written(h_offsets, 0, kGuard);
  if (w < 0) w = first_written(h_offsets, kGuard + S + 1, offset_words);
  SK_CHECK(w < 0, "the count wrote offsets guard word %lld", (long long)w);
  const int64_t half = n + 2 * kGuard;
  for (int a = 0; a < 2; ++a) {
    int64_t g = first_written(h_pairs + a * half, 0, kGuard);
    if (g < 0) g = first_written(h_pairs + a * half, kGuard + n, half);
    SK_CHECK(g < 0, "the count wrote %s guard word %lld", a ? "counts" : "keys", (long long)g);
  }
  if (want_bad < 0) {
    // Good input: the result too (the random map included).
    int32_t *ro = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
    uint32_t *rk = (uint32_t *)malloc(sizeof(uint32_t) * (n > 0 ? n : 1)),
             *rc = (uint32_t *)malloc(sizeof(uint32_t) * (n > 0 ? n : 1));
    const int64_t P = sk_ref_segmented_count_u32(in->offsets, S, n, in->keys, in->perm, in->K, ro, rk, rc);
    const int64_t o = first_diff_u32(h_offsets + kGuard, (const uint32_t *)ro, S + 1);
    const int64_t dk = P >= 0 ? first_diff_u32(h_pairs + kGuard, rk, P) : 0;
    const int64_t dc = P >= 0 ? first_diff_u32(h_pairs + half + kGuard, rc, P) : 0;
    SK_CHECK(P >= 0 && o == S + 1 && dk == P && dc == P,
             "good input, wrong count: P %lld, first bad offset %lld, key %lld, count %lld", (long long)P, (long long)o,
             (long long)dk, (long long)dc);
    free(ro);
    free(rk);
    free(rc);
  }
  free(h_offsets);
  free(h_pairs);
  SK_CHECK_CUDA(cudaFree(d_offsets));
  SK_CHECK_CUDA(cudaFree(d_perm));
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_out_offsets));
  SK_CHECK_CUDA(cudaFree(d_pairs));
  SK_CHECK_CUDA(cudaFree(d_workspace));
}

// A segment in [1, S - 2] with at least one item at or near s, so that the offset after it can be
// moved below its start with two more offsets after that one.
static int32_t nonempty_segment_near(const check_input *in, int32_t s) {
  for (int32_t t = s; t <= in->S - 2; ++t)
    if (in->offsets[t + 1] > in->offsets[t]) return t;
  for (int32_t t = s; t >= 1; --t)
    if (in->offsets[t + 1] > in->offsets[t]) return t;
  return 1;
}

static void test_check(int seed) {
  for (int with_perm = 0; with_perm < 2; ++with_perm) {
    uint64_t rng = 0xc4ec0000ull + (uint64_t)seed * 65537ull + (uint64_t)with_perm;
    check_input in;
    check_input_make(&in, with_perm != 0, &rng);
    const int32_t S = in.S, n = in.n, K = in.K;
    check_case(&in, -1, "good input");

    // Offsets: the first is not 0.
    in.offsets[0] = 1;
    check_case(&in, 0, "offsets[0] = 1");
    in.offsets[0] = -5;
    check_case(&in, 0, "offsets[0] = -5");
    // ... and also decreasing later: offsets[0] is checked first.
    const int32_t s = nonempty_segment_near(&in, 1 + (int32_t)rand_below(&rng, (uint32_t)S / 2));
    const int32_t saved = in.offsets[s + 1];
    in.offsets[s + 1] = in.offsets[s] - 1;
    check_case(&in, 0, "offsets[0] = -5 and a decreasing offset later");
    in.offsets[0] = 0;
    // Decreasing: offsets[s + 1] < offsets[s] (segment s ends before it starts): index s + 1.
    check_case(&in, s + 1, "offsets decrease after segment s");
    // Two decreases: the first.
    const int32_t s2 =
        s + 3 < S ? nonempty_segment_near(&in, s + 2 + (int32_t)rand_below(&rng, (uint32_t)(S - s - 3))) : s;
    if (s2 > s + 1) {
      const int32_t saved2 = in.offsets[s2 + 1];
      in.offsets[s2 + 1] = in.offsets[s2] - 1;
      check_case(&in, s + 1, "two decreasing offsets");
      in.offsets[s2 + 1] = saved2;
    }
    in.offsets[s + 1] = 0x7fffffff;  // above num_items and then decreasing
    check_case(&in, s + 2, "an offset above num_items, then decreasing");
    in.offsets[s + 1] = saved;
    // The last offset is not num_items (still non-decreasing): index num_segments.
    const int32_t last_saved = in.offsets[S];
    in.offsets[S] = in.offsets[S - 1] < n ? n - 1 : n + 1;
    check_case(&in, S, "offsets[num_segments] != num_items");
    in.offsets[S] = n + 1;
    check_case(&in, S, "offsets[num_segments] = num_items + 1");
    in.offsets[S] = last_saved;
    check_case(&in, -1, "good input again");

    const int32_t i_late = n / 2 + (int32_t)rand_below(&rng, (uint32_t)n / 2);
    const int32_t i_early = (int32_t)rand_below(&rng, (uint32_t)n / 4);
    // Where item i's key is stored.
    const int32_t at_early = with_perm ? in.perm[i_early] : i_early;
    const uint32_t key_saved = in.keys[at_early];
    if (with_perm) {
      const int32_t perm_saved = in.perm[i_late];
      in.perm[i_late] = n;
      check_case(&in, i_late, "a permutation entry = num_items");
      in.perm[i_late] = -1;
      check_case(&in, i_late, "a permutation entry = -1");
      // Every permutation entry is checked before any key: the late entry wins.
      in.keys[at_early] = (uint32_t)K;
      check_case(&in, i_late, "a bad permutation entry after an item with a bad key");
      in.keys[at_early] = key_saved;
      // An offset is checked before the permutation.
      in.offsets[s + 1] = in.offsets[s] - 1;
      check_case(&in, s + 1, "a decreasing offset and a bad permutation entry");
      in.offsets[s + 1] = saved;
      in.perm[i_late] = perm_saved;
    }
    // A key out of range: the item's index (not the key's place in the array).
    in.keys[at_early] = (uint32_t)K;
    check_case(&in, i_early, "a key = K");
    in.keys[at_early] = 0xffffffffu;
    check_case(&in, i_early, "a key = 2^32 - 1");
    // Two bad keys: the first item.
    const int32_t at_late = with_perm ? in.perm[i_late] : i_late;
    const uint32_t key_saved_late = in.keys[at_late];
    in.keys[at_late] = (uint32_t)K + 7;
    check_case(&in, i_early, "two bad keys");
    in.keys[at_early] = key_saved;
    check_case(&in, i_late, "a bad key late");
    in.keys[at_late] = key_saved_late;
    if (with_perm) {
      // A map that is not a permutation: item i_late reads item i_late - 1's key, so the slot it
      // read before is unreached; a bad key there is never read.
      const int32_t perm_saved = in.perm[i_late];
      in.perm[i_late] = in.perm[i_late - 1];
      in.keys[perm_saved] = (uint32_t)K;
      check_case(&in, -1, "a bad key that the map does not reach");
      in.keys[perm_saved] = key_saved_late;
      in.perm[i_late] = perm_saved;
    }
    // Key K - 1 is good.
    in.keys[at_early] = (uint32_t)K - 1;
    check_case(&in, -1, "a key = K - 1");
    in.keys[at_early] = key_saved;
    check_input_free(&in);
  }
  // No segments, no items; no segments but items; all segments empty; no items with NULL keys.
  check_input in;
  memset(&in, 0, sizeof in);
  int32_t offsets[4] = {0, 0, 0, 0};
  uint32_t keys[5] = {0, 1, 2, 3, 4};
  in.offsets = offsets;
  in.keys = keys;
  in.K = 5;
  in.S = 0;
  check_case(&in, -1, "0 segments, 0 items");
  in.n = 5;
  check_case(&in, 0, "0 segments but 5 items");
  in.S = 3;
  in.n = 0;
  check_case(&in, -1, "3 empty segments, keys NULL");
}

// ---------------------------------------------------------------------------------------------------
// Statuses that need a device, and the snippets.

__global__ void never_launched(void) {}

__global__ void fixed_length_offsets(int32_t *offsets, int32_t segments, int32_t length) {
  for (int32_t s = blockIdx.x * blockDim.x + threadIdx.x; s <= segments; s += gridDim.x * blockDim.x)
    offsets[s] = s * length;
}

__global__ void fill_keys(uint32_t *keys, int32_t n, uint32_t key) {
  for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) keys[i] = key;
}

// A workspace sized for n items serves every smaller input (the streamed sampler sizes it by its
// largest chunk). The dense path's tiles shrink for small inputs, so an input just below 1024 tiles of
// 8192 (8,380,000 items: 2,046 tiles of 4096) has more tiles than one just above (8,400,000: 1,026 of 8192);
// the workspace must hold them. Segments of 100 items, all of key 3: one pair (3, 100) each.
static void test_workspace_serves_smaller(void) {
  sk_test_context("a workspace sized for more items");
  const int32_t length = 100, most = 8400000, S_most = most / length;
  const int32_t sizes[] = {8380000, 8388600, most, 2000};
  int32_t *d_offsets;
  uint32_t *d_keys, *d_pairs;
  int32_t *d_out_offsets;
  SK_CHECK_CUDA(cudaMalloc(&d_offsets, ((size_t)S_most + 1) * sizeof *d_offsets));
  SK_CHECK_CUDA(cudaMalloc(&d_out_offsets, ((size_t)S_most + 1) * sizeof *d_out_offsets));
  SK_CHECK_CUDA(cudaMalloc(&d_keys, (size_t)most * sizeof *d_keys));
  SK_CHECK_CUDA(cudaMalloc(&d_pairs, 2 * (size_t)S_most * sizeof *d_pairs));
  fill_keys<<<256, 256>>>(d_keys, most, 3u);
  SK_CHECK_LAUNCH();
  size_t bytes = 0;
  SK_CHECK(sk_segmented_count_workspace_size(S_most, most, 1000, &bytes) == SK_SUCCESS, "size query");
  void *d_workspace;
  SK_CHECK_CUDA(cudaMalloc(&d_workspace, bytes));
  for (int c = 0; c < (int)(sizeof sizes / sizeof sizes[0]); ++c) {
    const int32_t n = sizes[c], S = n / length;
    fixed_length_offsets<<<256, 256>>>(d_offsets, S, length);
    SK_CHECK_LAUNCH();
    const sk_status st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, 1000, d_out_offsets, d_pairs,
                                                d_pairs + S_most, S_most, d_workspace, bytes, 0);
    SK_CHECK(st == SK_SUCCESS, "%d items with the workspace of %d: returned %s", (int)n, (int)most,
             sk_status_name(st));
    SK_CHECK_CUDA(cudaDeviceSynchronize());
    int32_t pairs = -1;
    uint32_t first[2] = {0, 0}, last[2] = {0, 0};
    SK_CHECK_CUDA(cudaMemcpy(&pairs, d_out_offsets + S, sizeof pairs, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(&first[0], d_pairs, sizeof first[0], cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(&first[1], d_pairs + S_most, sizeof first[1], cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(&last[0], d_pairs + S - 1, sizeof last[0], cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(&last[1], d_pairs + S_most + S - 1, sizeof last[1], cudaMemcpyDeviceToHost));
    SK_CHECK(pairs == S && first[0] == 3u && first[1] == (uint32_t)length && last[0] == 3u &&
                 last[1] == (uint32_t)length,
             "%d items: %d pairs (want %d), first (%u, %u), last (%u, %u)", (int)n, (int)pairs, (int)S, first[0],
             first[1], last[0], last[1]);
  }
  SK_CHECK_CUDA(cudaFree(d_workspace));
  SK_CHECK_CUDA(cudaFree(d_pairs));
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_out_offsets));
  SK_CHECK_CUDA(cudaFree(d_offsets));
}

static void test_device_statuses(void) {
  int32_t *d_offsets, *d_out_offsets;
  uint32_t *d_keys, *d_pairs;
  const int32_t S = 10, n = 3000;
  int32_t h_offsets[S + 1];
  for (int32_t s = 0; s <= S; ++s) h_offsets[s] = s * n / S;
  SK_CHECK_CUDA(cudaMalloc(&d_offsets, sizeof h_offsets));
  SK_CHECK_CUDA(cudaMalloc(&d_out_offsets, sizeof h_offsets));
  SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_pairs, 2 * sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMemcpy(d_offsets, h_offsets, sizeof h_offsets, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_keys, 0, sizeof(uint32_t) * n));
  // Every path's workspace: small K, at and past the shared histogram and the dense path, windows.
  const int32_t Ks[] = {1,
                        1000,
                        2 * SK_SEGMENTED_COUNT_TILE_ITEMS,
                        2 * SK_SEGMENTED_COUNT_TILE_ITEMS + 1,
                        kDenseMaxKeys,
                        kDenseMaxKeys + 1,
                        SK_SEGMENTED_COUNT_WINDOW + 1,
                        SK_SEGMENTED_COUNT_MAX_KEYS};
  for (size_t a = 0; a < sizeof Ks / sizeof Ks[0]; ++a) {
    size_t bytes = 0, zero_bytes = 0;
    sk_test_context("workspace one byte short, K=%d", (int)Ks[a]);
    if (!SK_CHECK(sk_segmented_count_workspace_size(S, n, Ks[a], &bytes) == SK_SUCCESS && bytes > 0, "size query"))
      continue;
    SK_CHECK(sk_segmented_count_workspace_size(0, 0, Ks[a], &zero_bytes) == SK_SUCCESS && zero_bytes > 0,
             "size query for 0 segments and 0 items gave %zu bytes (0 would make the call's NULL check fail)",
             zero_bytes);
    void *d_workspace;
    SK_CHECK_CUDA(cudaMalloc(&d_workspace, bytes));
    sk_status st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, Ks[a], d_out_offsets, d_pairs, d_pairs + n, n,
                                          d_workspace, bytes - 1, 0);
    SK_CHECK(st == SK_ERROR_WORKSPACE_TOO_SMALL, "bytes - 1: returned %s", sk_status_name(st));
    st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, Ks[a], d_out_offsets, d_pairs, d_pairs + n, n,
                                d_workspace, bytes, 0);
    SK_CHECK(st == SK_SUCCESS, "exact size: returned %s", sk_status_name(st));
    SK_CHECK_LAUNCH();
    SK_CHECK_CUDA(cudaFree(d_workspace));
  }
  // A pending error from earlier work: reported, nothing launched, the error kept for
  // sk_last_cuda_error(); the next call runs.
  size_t bytes = 0;
  void *d_workspace;
  SK_CHECK(sk_segmented_count_workspace_size(S, n, 1000, &bytes) == SK_SUCCESS, "size query");
  SK_CHECK_CUDA(cudaMalloc(&d_workspace, bytes));
  // The documented order: a NULL pointer or a bad range is reported before a pending error, and a
  // pending error before a workspace too small (the workspace size needs device queries, which would
  // consume the pending error).
  never_launched<<<1, 4096>>>();  // too many threads: a launch error; this CUDA's code for it
  const int launch_error = (int)cudaGetLastError();
  sk_test_context("pending error and workspace too small");
  never_launched<<<1, 4096>>>();  // left pending
  sk_status st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, 0, d_out_offsets, d_pairs, d_pairs + n, n,
                                        d_workspace, bytes - 1, 0);
  SK_CHECK(st == SK_ERROR_INVALID_VALUE, "K = 0: returned %s", sk_status_name(st));
  st = sk_segmented_count_u32(d_offsets, S, n, NULL, NULL, 1000, d_out_offsets, d_pairs, d_pairs + n, n, d_workspace,
                              bytes - 1, 0);
  SK_CHECK(st == SK_ERROR_NULL_POINTER, "keys NULL: returned %s", sk_status_name(st));
  st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, 1000, d_out_offsets, d_pairs, d_pairs + n, n,
                              d_workspace, bytes - 1, 0);
  SK_CHECK(st == SK_ERROR_CUDA_PENDING, "returned %s", sk_status_name(st));
  st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, 1000, d_out_offsets, d_pairs, d_pairs + n, n,
                              d_workspace, bytes - 1, 0);
  SK_CHECK(st == SK_ERROR_WORKSPACE_TOO_SMALL, "after the pending error was reported: returned %s",
           sk_status_name(st));
  (void)cudaGetLastError();  // whatever is left of it
  sk_clear_cuda_error();
  never_launched<<<1, 4096>>>();  // too many threads: a configuration error, left pending
  sk_test_context("pending error: count");
  st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, 1000, d_out_offsets, d_pairs, d_pairs + n, n, d_workspace,
                              bytes, 0);
  SK_CHECK(st == SK_ERROR_CUDA_PENDING, "returned %s", sk_status_name(st));
  SK_CHECK(sk_last_cuda_error() == launch_error, "sk_last_cuda_error() = %d, want %d", sk_last_cuda_error(),
           launch_error);
  st = sk_segmented_count_u32(d_offsets, S, n, d_keys, NULL, 1000, d_out_offsets, d_pairs, d_pairs + n, n, d_workspace,
                              bytes, 0);
  SK_CHECK(st == SK_SUCCESS, "the call after it returned %s", sk_status_name(st));
  SK_CHECK_LAUNCH();
  sk_test_context("pending error: check");
  never_launched<<<1, 4096>>>();
  int64_t bad = 99;
  st = sk_segmented_count_check_u32(d_offsets, S, n, d_keys, NULL, 1000, &bad, 0);
  SK_CHECK(st == SK_ERROR_CUDA_PENDING && bad == -1, "returned %s, bad_index %lld", sk_status_name(st), (long long)bad);
  st = sk_segmented_count_check_u32(d_offsets, S, n, d_keys, NULL, 1000, &bad, 0);
  SK_CHECK(st == SK_SUCCESS && bad == -1, "the call after it returned %s, bad_index %lld", sk_status_name(st),
           (long long)bad);
  sk_clear_cuda_error();
  SK_CHECK_CUDA(cudaFree(d_workspace));
  SK_CHECK_CUDA(cudaFree(d_offsets));
  SK_CHECK_CUDA(cudaFree(d_out_offsets));
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_pairs));
}

static void test_usage_snippets(void) {
  uint64_t rng = 2026;
  // The block snippet: segments of at most 2048 items, K = 1000.
  const int32_t S = 300;
  int32_t *offsets = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
  int32_t *lengths = (int32_t *)malloc(sizeof(int32_t) * S);
  for (int32_t s = 0; s < S; ++s) lengths[s] = s % 7 == 3 ? 2048 : (int32_t)rand_below(&rng, 600);
  lengths[0] = 0;
  offsets_from_lengths(offsets, lengths, S);
  const int32_t n = offsets[S];
  uint32_t *keys = (uint32_t *)malloc(sizeof(uint32_t) * n);
  zipf_keys_per_segment(keys, offsets, S, 1000, kZipfExponent, &rng);
  int32_t *ro = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
  uint32_t *rk = (uint32_t *)malloc(sizeof(uint32_t) * n), *rc = (uint32_t *)malloc(sizeof(uint32_t) * n);
  const int64_t P = sk_ref_segmented_count_u32(offsets, S, n, keys, NULL, 1000, ro, rk, rc);
  int32_t *d_offsets, *d_out_offsets, *d_num;
  uint32_t *d_keys, *d_out_keys, *d_out_counts;
  SK_CHECK_CUDA(cudaMalloc(&d_offsets, sizeof(int32_t) * (S + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_out_offsets, sizeof(int32_t) * (S + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_num, sizeof(int) * S));
  SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out_keys, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_out_counts, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMemcpy(d_offsets, offsets, sizeof(int32_t) * (S + 1), cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_keys, keys, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  sk_test_context("block usage snippet");
  example_count_short_segments<<<S, 256>>>(d_offsets, d_keys, 10, d_out_keys, d_out_counts, d_num);
  SK_CHECK_LAUNCH();
  int *num = (int *)malloc(sizeof(int) * S);
  uint32_t *gk = (uint32_t *)malloc(sizeof(uint32_t) * n), *gc = (uint32_t *)malloc(sizeof(uint32_t) * n);
  SK_CHECK_CUDA(cudaMemcpy(num, d_num, sizeof(int) * S, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(gk, d_out_keys, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(gc, d_out_counts, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost));
  int32_t bad = -1;
  for (int32_t s = 0; s < S && bad < 0; ++s) {
    const int32_t D = ro[s + 1] - ro[s];
    if (num[s] != D || first_diff_u32(gk + offsets[s], rk + ro[s], D) != D ||
        first_diff_u32(gc + offsets[s], rc + ro[s], D) != D)
      bad = s;
  }
  SK_CHECK(bad < 0, "segment %d (length %d) differs from the reference", (int)bad, bad >= 0 ? (int)lengths[bad] : 0);

  // The device-wide snippet, two phases, through the identity permutation.
  int32_t *identity = (int32_t *)malloc(sizeof(int32_t) * n), *d_identity;
  for (int32_t i = 0; i < n; ++i) identity[i] = i;
  SK_CHECK_CUDA(cudaMalloc(&d_identity, sizeof(int32_t) * n));
  SK_CHECK_CUDA(cudaMemcpy(d_identity, identity, sizeof(int32_t) * n, cudaMemcpyHostToDevice));
  sk_test_context("device-wide usage snippet");
  for (int use_perm = 0; use_perm < 2; ++use_perm) {
    uint32_t *d_pk = NULL, *d_pc = NULL;
    int32_t pairs = -1;
    const sk_status st = count_segments(d_offsets, S, n, d_keys, use_perm ? d_identity : NULL, 1000, d_out_offsets,
                                        &d_pk, &d_pc, &pairs, 0);
    if (!SK_CHECK(st == SK_SUCCESS && pairs == P, "returned %s with %d pairs, want %lld", sk_status_name(st),
                  (int)pairs, (long long)P))
      continue;
    int32_t *go = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
    SK_CHECK_CUDA(cudaMemcpy(go, d_out_offsets, sizeof(int32_t) * (S + 1), cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(gk, d_pk, sizeof(uint32_t) * P, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(gc, d_pc, sizeof(uint32_t) * P, cudaMemcpyDeviceToHost));
    SK_CHECK(first_diff_u32((const uint32_t *)go, (const uint32_t *)ro, S + 1) == S + 1 &&
                 first_diff_u32(gk, rk, P) == P && first_diff_u32(gc, rc, P) == P,
             "the result differs from the reference (permutation: %d)", use_perm);
    free(go);
    SK_CHECK_CUDA(cudaFree(d_pk));
    SK_CHECK_CUDA(cudaFree(d_pc));
  }
  SK_CHECK_CUDA(cudaFree(d_identity));
  SK_CHECK_CUDA(cudaFree(d_offsets));
  SK_CHECK_CUDA(cudaFree(d_out_offsets));
  SK_CHECK_CUDA(cudaFree(d_num));
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_out_keys));
  SK_CHECK_CUDA(cudaFree(d_out_counts));
  free(identity);
  free(offsets);
  free(lengths);
  free(keys);
  free(ro);
  free(rk);
  free(rc);
  free(num);
  free(gk);
  free(gc);
}

// ---------------------------------------------------------------------------------------------------
// Host: the reference and the argument checks.

// Brute force: a dense K-counter histogram per segment, scanned in key order.
static int64_t brute_force(const int32_t *offsets, int32_t S, const uint32_t *keys, const int32_t *perm, int32_t K,
                           int32_t *out_offsets, uint32_t *out_keys, uint32_t *out_counts) {
  uint32_t *hist = (uint32_t *)calloc((size_t)K, sizeof(uint32_t));
  int64_t P = 0;
  for (int32_t s = 0; s < S; ++s) {
    out_offsets[s] = (int32_t)P;
    for (int32_t i = offsets[s]; i < offsets[s + 1]; ++i) ++hist[keys[perm ? perm[i] : i]];
    for (int32_t k = 0; k < K; ++k) {
      if (hist[k] > 0) {
        out_keys[P] = (uint32_t)k;
        out_counts[P++] = hist[k];
      }
      hist[k] = 0;
    }
  }
  out_offsets[S] = (int32_t)P;
  free(hist);
  return P;
}

static void test_reference(void) {
  // A worked example.
  {
    const uint32_t keys[] = {3, 1, 3, 0, 3, 7, 7};
    uint32_t scratch[7], k[7], c[7];
    sk_test_context("reference: worked example");
    const int64_t D = sk_ref_count_keys_u32(keys, 7, scratch, k, c);
    SK_CHECK(
        D == 4 && k[0] == 0 && c[0] == 1 && k[1] == 1 && c[1] == 1 && k[2] == 3 && c[2] == 3 && k[3] == 7 && c[3] == 2,
        "got %lld pairs", (long long)D);
    SK_CHECK(sk_ref_count_keys_u32(keys, 0, scratch, k, c) == 0, "no keys: no pairs");
    const int32_t offsets[] = {0, 0, 3, 3, 7, 7};
    int32_t oo[6];
    const int64_t P = sk_ref_segmented_count_u32(offsets, 5, 7, keys, NULL, 8, oo, k, c);
    // Segment 1: {3, 1, 3} -> (1,1) (3,2); segment 3: {0, 3, 7, 7} -> (0,1) (3,1) (7,2).
    SK_CHECK(P == 5 && oo[0] == 0 && oo[1] == 0 && oo[2] == 2 && oo[3] == 2 && oo[4] == 5 && oo[5] == 5 && k[0] == 1 &&
                 c[0] == 1 && k[1] == 3 && c[1] == 2 && k[2] == 0 && k[3] == 3 && k[4] == 7 && c[4] == 2,
             "segmented worked example: P = %lld", (long long)P);
  }
  // Random small cases against the brute force, direct, permuted and through a random map.
  const int32_t Ks[] = {1, 2, 3, 7, 64, 1000};
  for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
    for (size_t a = 0; a < sizeof Ks / sizeof Ks[0]; ++a) {
      uint64_t rng = 0x4ef0000ull + (uint64_t)seed * 97ull + a;
      const int32_t K = Ks[a], S = 1 + (int32_t)rand_below(&rng, 60);
      int32_t *offsets = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
      int32_t *lengths = (int32_t *)malloc(sizeof(int32_t) * S);
      for (int32_t s = 0; s < S; ++s) lengths[s] = rand_below(&rng, 4) == 0 ? 0 : (int32_t)rand_below(&rng, 70);
      offsets_from_lengths(offsets, lengths, S);
      const int32_t n = offsets[S];
      uint32_t *keys = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1));
      int32_t *perm = (int32_t *)malloc(sizeof(int32_t) * (n + 1));
      int32_t *o1 = (int32_t *)malloc(sizeof(int32_t) * (S + 1)), *o2 = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
      uint32_t *k1 = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1)),
               *k2 = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1));
      uint32_t *c1 = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1)),
               *c2 = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1));
      for (int32_t i = 0; i < n; ++i) keys[i] = (uint32_t)sk_ref_zipf_rank(rand_unit_f64(&rng), K, 1.0);
      for (int mode = 0; mode < 3; ++mode) {
        for (int32_t i = 0; i < n; ++i) perm[i] = mode == 2 ? (int32_t)rand_below(&rng, (uint32_t)n) : i;
        if (mode == 1) shuffle_i32(perm, n, &rng);
        const int32_t *p = mode == 0 ? NULL : perm;
        sk_test_context("reference vs brute force: seed %d K=%d S=%d n=%d %s", seed, (int)K, (int)S, (int)n,
                        kModeNames[mode]);
        const int64_t P1 = sk_ref_segmented_count_u32(offsets, S, n, keys, p, K, o1, k1, c1);
        const int64_t P2 = brute_force(offsets, S, keys, p, K, o2, k2, c2);
        SK_CHECK(P1 == P2 && first_diff_u32((const uint32_t *)o1, (const uint32_t *)o2, S + 1) == S + 1 &&
                     first_diff_u32(k1, k2, P2) == P2 && first_diff_u32(c1, c2, P2) == P2,
                 "P %lld vs %lld, or the pairs differ", (long long)P1, (long long)P2);
        // The contract's properties, stated directly.
        int64_t bad = -1;
        for (int32_t s = 0; s < S && bad < 0; ++s) {
          uint64_t sum = 0;
          for (int32_t j = o1[s]; j < o1[s + 1]; ++j) {
            sum += c1[j];
            if (c1[j] < 1 || k1[j] >= (uint32_t)K || (j > o1[s] && k1[j] <= k1[j - 1])) bad = s;
          }
          if (sum != (uint64_t)lengths[s]) bad = s;
        }
        SK_CHECK(bad < 0 && o1[0] == 0 && P1 <= n, "segment %lld breaks the output contract", (long long)bad);
      }
      free(offsets);
      free(lengths);
      free(keys);
      free(perm);
      free(o1);
      free(o2);
      free(k1);
      free(k2);
      free(c1);
      free(c2);
    }
  }
  // The reference's check on planted errors (the device check is compared with the same cases).
  {
    int32_t offsets[] = {0, 2, 2, 5, 6};
    uint32_t keys[] = {0, 1, 2, 3, 4, 1};
    int32_t perm[] = {5, 4, 3, 2, 1, 0};
    sk_test_context("reference check");
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, NULL, 5) == -1, "good input");
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, perm, 5) == -1, "good input, permuted");
    offsets[2] = 1;
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, NULL, 5) == 2, "decreasing at offset 2");
    offsets[0] = 1;
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, NULL, 5) == 0, "first offset");
    offsets[0] = 0;
    offsets[2] = 2;
    offsets[4] = 5;
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, NULL, 5) == 4, "last offset");
    offsets[4] = 6;
    keys[3] = 5;
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, NULL, 5) == 3, "key = K, direct");
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, perm, 5) == 2, "key = K, permuted: item 2");
    perm[4] = 6;
    SK_CHECK(sk_ref_segmented_count_check_u32(offsets, 4, 6, keys, perm, 5) == 4, "the permutation before the keys");
    SK_CHECK(sk_ref_segmented_count_u32(offsets, 4, 6, keys, perm, 5, offsets, keys, keys) == -1,
             "the count rejects bad input");
  }
  // The generators.
  {
    uint64_t rng = 11;
    const int32_t n = 1000;
    int64_t hist0 = 0, last = -1, monotone_bad = 0, out_of_range = 0;
    for (int i = 0; i < 200000; ++i) {
      const int32_t r = sk_ref_zipf_rank(rand_unit_f64(&rng), n, 1.0);
      out_of_range += r < 0 || r >= n;
      hist0 += r == 0;
    }
    for (int i = 0; i <= 1000; ++i) {
      const int32_t r = sk_ref_zipf_rank(i / 1001.0, n, 1.3);
      monotone_bad += r < last;
      last = r;
    }
    const double p0 = log(2.0) / log(1001.0);  // P(rank 0) = P(x < 2) of the log-uniform law
    sk_test_context("generators: Zipf ranks");
    SK_CHECK(out_of_range == 0 && monotone_bad == 0, "%lld out of range, %lld not monotone", (long long)out_of_range,
             (long long)monotone_bad);
    SK_CHECK(fabs(hist0 / 200000.0 - p0) < 5.0 * sqrt(p0 * (1 - p0) / 200000.0), "rank 0 frequency %.4f, want %.4f",
             hist0 / 200000.0, p0);
    SK_CHECK(sk_ref_zipf_rank(0.0, n, 1.1) == 0 && sk_ref_zipf_rank(0.999999999, n, 1.1) == n - 1 &&
                 sk_ref_zipf_rank(0.5, 1, 1.1) == 0 && sk_ref_zipf_rank(0.5, n, 0.0) == n / 2,
             "end points");
    const int32_t S = 100000, items = 33200000;
    int32_t *offsets = (int32_t *)malloc(sizeof(int32_t) * (S + 1));
    long_tailed_offsets(offsets, S, items, 1.0, 16.0, &rng);
    int32_t longest = 0, decreasing = 0, above_mean = 0;
    for (int32_t s = 0; s < S; ++s) {
      const int32_t len = offsets[s + 1] - offsets[s];
      decreasing += len < 0;
      longest = len > longest ? len : longest;
      above_mean += len > 332;
    }
    sk_test_context("generators: long-tailed offsets");
    SK_CHECK(offsets[0] == 0 && offsets[S] == items && decreasing == 0, "ends %d, %d; %d decreasing", (int)offsets[0],
             (int)offsets[S], (int)decreasing);
    // Lognormal, sigma 1: the mean is above the median (about 38% of lengths exceed the mean), and
    // the cap (16 x mean before rescaling) bounds the longest.
    SK_CHECK(longest > 5 * 332 && longest <= 17 * 332 && above_mean > S / 4 && above_mean < S / 2,
             "longest %d, %d of %d above the mean", (int)longest, (int)above_mean, (int)S);
    free(offsets);
  }
}

// Every argument check that returns before touching CUDA: no device needed, none reached.
static void test_arguments(void) {
  int32_t offsets[3] = {0, 1, 2}, out_offsets[3];
  uint32_t keys[2] = {0, 0}, out_keys[2], out_counts[2];
  int32_t perm[2] = {0, 1};
  char workspace[16];
  size_t bytes = 0;
  int64_t bad = 0;
  const int32_t kMax = SK_SEGMENTED_COUNT_MAX_KEYS;
  sk_clear_cuda_error();

  sk_test_context("arguments: sk_segmented_count_workspace_size");
  SK_CHECK(sk_segmented_count_workspace_size(2, 2, 10, NULL) == SK_ERROR_NULL_POINTER, "NULL workspace_bytes");
  SK_CHECK(sk_segmented_count_workspace_size(-1, 2, 10, &bytes) == SK_ERROR_INVALID_VALUE, "num_segments = -1");
  SK_CHECK(sk_segmented_count_workspace_size(INT32_MAX, 2, 10, &bytes) == SK_ERROR_INVALID_VALUE,
           "num_segments = INT32_MAX");
  SK_CHECK(sk_segmented_count_workspace_size(SK_SEGMENTED_COUNT_MAX_SEGMENTS + 1, 2, 10, &bytes) ==
               SK_ERROR_INVALID_VALUE,
           "num_segments = SK_SEGMENTED_COUNT_MAX_SEGMENTS + 1");
  SK_CHECK(sk_segmented_count_workspace_size(2, SK_SEGMENTED_COUNT_MAX_ITEMS + 1, 10, &bytes) == SK_ERROR_INVALID_VALUE,
           "num_items = SK_SEGMENTED_COUNT_MAX_ITEMS + 1 (the kernels' int indices step past a segment's end)");
  SK_CHECK(sk_segmented_count_workspace_size(2, INT32_MAX, 10, &bytes) == SK_ERROR_INVALID_VALUE,
           "num_items = INT32_MAX");
  SK_CHECK(sk_segmented_count_workspace_size(2, -1, 10, &bytes) == SK_ERROR_INVALID_VALUE, "num_items = -1");
  SK_CHECK(sk_segmented_count_workspace_size(2, 2, 0, &bytes) == SK_ERROR_INVALID_VALUE, "num_keys = 0");
  SK_CHECK(sk_segmented_count_workspace_size(2, 2, -3, &bytes) == SK_ERROR_INVALID_VALUE, "num_keys = -3");
  SK_CHECK(sk_segmented_count_workspace_size(2, 2, kMax + 1, &bytes) == SK_ERROR_INVALID_VALUE,
           "num_keys = SK_SEGMENTED_COUNT_MAX_KEYS + 1");

  // The count: NULL pointers first, then ranges, then the workspace size (the documented order).
  sk_test_context("arguments: sk_segmented_count_u32");
#define COUNT(offs, S, n, k, p, K, oo, ok, oc, cap, ws, wsb) \
  sk_segmented_count_u32((offs), (S), (n), (k), (p), (K), (oo), (ok), (oc), (cap), (ws), (wsb), 0)
  SK_CHECK(
      COUNT(NULL, 2, 2, keys, NULL, 10, out_offsets, out_keys, out_counts, 2, workspace, 16) == SK_ERROR_NULL_POINTER,
      "NULL offsets");
  SK_CHECK(COUNT(offsets, 2, 2, keys, NULL, 10, NULL, out_keys, out_counts, 2, workspace, 16) == SK_ERROR_NULL_POINTER,
           "NULL out_offsets");
  SK_CHECK(
      COUNT(offsets, 2, 2, keys, NULL, 10, out_offsets, out_keys, out_counts, 2, NULL, 16) == SK_ERROR_NULL_POINTER,
      "NULL workspace");
  SK_CHECK(COUNT(offsets, 2, 2, NULL, perm, 10, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_NULL_POINTER,
           "NULL keys with 2 items");
  SK_CHECK(
      COUNT(offsets, 2, 2, keys, NULL, 10, out_offsets, NULL, out_counts, 2, workspace, 16) == SK_ERROR_NULL_POINTER,
      "NULL out_keys with capacity 2");
  SK_CHECK(COUNT(offsets, 2, 2, keys, NULL, 10, out_offsets, out_keys, NULL, 1, workspace, 16) == SK_ERROR_NULL_POINTER,
           "NULL out_counts with capacity 1");
  // Pointer checks come before range checks.
  SK_CHECK(
      COUNT(NULL, -1, -1, keys, NULL, 0, out_offsets, out_keys, out_counts, -1, workspace, 0) == SK_ERROR_NULL_POINTER,
      "NULL offsets and every range bad");
  SK_CHECK(COUNT(offsets, -1, 2, keys, NULL, 0, out_offsets, out_keys, NULL, 2, workspace, 0) == SK_ERROR_NULL_POINTER,
           "NULL out_counts and bad ranges");
  // NULLs that are allowed: keys with 0 items, pair arrays with capacity 0 (a bad K makes the call
  // stop at the range check, after the pointer checks passed).
  SK_CHECK(COUNT(offsets, 2, 0, NULL, NULL, 0, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "keys NULL with 0 items passes the pointer checks");
  SK_CHECK(COUNT(offsets, 2, 2, keys, NULL, 0, out_offsets, NULL, NULL, 0, workspace, 16) == SK_ERROR_INVALID_VALUE,
           "pair arrays NULL with capacity 0 pass the pointer checks");
  // Ranges.
  SK_CHECK(COUNT(offsets, -1, 2, keys, NULL, 10, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "num_segments = -1");
  SK_CHECK(COUNT(offsets, INT32_MAX, 2, keys, NULL, 10, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "num_segments = INT32_MAX");
  SK_CHECK(COUNT(offsets, 2, -1, keys, NULL, 10, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "num_items = -1");
  SK_CHECK(COUNT(offsets, 2, 2, keys, NULL, 0, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "num_keys = 0");
  SK_CHECK(COUNT(offsets, 2, 2, keys, NULL, kMax + 1, out_offsets, out_keys, out_counts, 2, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "num_keys = SK_SEGMENTED_COUNT_MAX_KEYS + 1");
  SK_CHECK(COUNT(offsets, 2, 2, keys, NULL, 10, out_offsets, out_keys, out_counts, -1, workspace, 16) ==
               SK_ERROR_INVALID_VALUE,
           "out_capacity = -1");
  // Ranges before the workspace size.
  SK_CHECK(
      COUNT(offsets, 2, 2, keys, NULL, 0, out_offsets, out_keys, out_counts, 2, workspace, 0) == SK_ERROR_INVALID_VALUE,
      "num_keys = 0 and workspace 0 bytes");
  // (A workspace too small is checked with a device, in test_device_statuses(): the size the call
  // compares with comes from a device query.)
#undef COUNT

  sk_test_context("arguments: sk_segmented_count_check_u32");
  bad = 7;
  SK_CHECK(sk_segmented_count_check_u32(NULL, 2, 2, keys, NULL, 10, &bad, 0) == SK_ERROR_NULL_POINTER && bad == -1,
           "NULL offsets (bad_index %lld)", (long long)bad);
  bad = 7;
  SK_CHECK(sk_segmented_count_check_u32(offsets, 2, 2, NULL, perm, 10, &bad, 0) == SK_ERROR_NULL_POINTER && bad == -1,
           "NULL keys with 2 items (bad_index %lld)", (long long)bad);
  const struct {
    int32_t S, n, K;
    const char *what;
  } ranges[] = {{-1, 2, 10, "num_segments = -1"},
                {INT32_MAX, 2, 10, "num_segments = INT32_MAX"},
                {SK_SEGMENTED_COUNT_MAX_SEGMENTS + 1, 2, 10, "num_segments one past the most"},
                {2, SK_SEGMENTED_COUNT_MAX_ITEMS + 1, 10, "num_items one past the most"},
                {2, -1, 10, "num_items = -1"},
                {2, 2, 0, "num_keys = 0"},
                {2, 2, kMax + 1, "num_keys too large"}};
  for (size_t a = 0; a < sizeof ranges / sizeof ranges[0]; ++a) {
    bad = 7;
    SK_CHECK(sk_segmented_count_check_u32(offsets, ranges[a].S, ranges[a].n, keys, NULL, ranges[a].K, &bad, 0) ==
                     SK_ERROR_INVALID_VALUE &&
                 bad == -1,
             "%s (bad_index %lld)", ranges[a].what, (long long)bad);
    SK_CHECK(sk_segmented_count_check_u32(offsets, ranges[a].S, ranges[a].n, keys, NULL, ranges[a].K, NULL, 0) ==
                 SK_ERROR_INVALID_VALUE,
             "%s, bad_index NULL", ranges[a].what);
  }
  SK_CHECK(sk_segmented_count_check_u32(offsets, 2, 0, NULL, NULL, 0, &bad, 0) == SK_ERROR_INVALID_VALUE,
           "keys NULL with 0 items passes the pointer check");
  sk_test_context("arguments");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA (error %d)", sk_last_cuda_error());
}

int main(int argc, char **argv) {
  test_arguments();
  test_reference();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_device_statuses();
    test_workspace_serves_smaller();
    test_usage_snippets();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_block_config<256, 8>(seed);
      test_block_config<128, 4>(seed);
      test_check(seed);
      test_device_shapes(seed);
    }
  }
  return sk_test_finish();
}
