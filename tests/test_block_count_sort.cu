// Tests the block counting sort (block_count_sort.cuh):
// - host (--host): the reference against a brute-force grouping (small cases) and the contract's
//   properties (every case); this test's comparison accepting a result shuffled within its key ranges
//   (the order within a key is free) and rejecting each planted defect (an item off by one, an end off
//   by one, two slots of different keys exchanged); the reference rejecting a key out of range;
// - GPU: sk_block_count_sort_u32 with blocks of 32, 96, 256, 512 and 1,024 threads, n = 0, 1, 31, 32,
//   33, threads - 1, threads, threads + 1, the primes 1,009 and 4,099, 16,384 and 32,768; keys: one key
//   (K = 1), a constant key K - 1 of K = 100, uniform with K = 2, 33 (two steps of one warp's scan), 65
//   (two runs of the scan, the second of one key; one run, warp 0's, when n is below the block's warps,
//   e.g. n = 1 or 31 in blocks of 96 or 1,024 threads: the runs' totals live in the slots) and 1,000,
//   all distinct (K = n, a random permutation), skewed (90% on key K - 1 of 500), log-uniform over
//   K = 4,096, and uniform over K = 50,000 with K - 1 planted; each result's ends equal to the
//   reference's and each key range equal after sorting it on the host, with poisoned shared memory on
//   the first call, the shared arrays reused at once by a second case (through
//   sk_block_count_sort_counts_u32, whose global counts must equal the reference's, and stay 0 for the
//   first case's plain call), and guard words after both
//   output arrays that must stay unwritten; a planted-bug kernel (the last slot's item off by one) that
//   the comparison must reject in every case; the usage snippet, run over 10^6 keys in tiles and
//   compared tile by tile.
// SK_TEST_SEEDS seeds (default 8) for the random keys.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/block_count_sort_ref.h"
#include "samplekit/block_count_sort.cuh"
#include "sk_test.h"

//! [block_count_sort_usage]
// One block per tile of `tile` keys of a long array of keys in [0, K): each tile's items grouped by key,
// written as global item indices, and each key's end in the tile (K entries per tile). Dynamic shared
// memory: 4 K + 4 tile + SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(tile) bytes.
__global__ void __launch_bounds__(256)
    example_group_by_key(const uint32_t *keys, int64_t n, int tile, int num_keys, int64_t *out_items,
                         uint32_t *out_ends) {
  extern __shared__ uint32_t smem[];
  uint32_t *const s_key_ends = smem, *const s_slots = smem + num_keys;
  void *const s_scratch = smem + num_keys + tile;  // 4-byte aligned
  const int64_t begin = (int64_t)blockIdx.x * tile;
  const int count = n - begin < tile ? (int)(n - begin) : tile;
  sk_block_count_sort_u32(threadIdx.x, blockDim.x, s_scratch, keys + begin, count, num_keys, s_key_ends, s_slots);
  // The ranges are visible to the whole block on return: key c's items are in the slots
  // [c == 0 ? 0 : s_key_ends[c - 1], s_key_ends[c]), in no particular order.
  for (int j = threadIdx.x; j < count; j += blockDim.x)
    out_items[begin + j] = begin + sk_block_count_sort_slot_item(s_slots[j]);
  for (int c = threadIdx.x; c < num_keys; c += blockDim.x) out_ends[(int64_t)blockIdx.x * num_keys + c] = s_key_ends[c];
}
//! [block_count_sort_usage]

enum { kGuard = 64 };  // poisoned words after each shared output array
// Not a valid slot of any case here: its key, 0xdead = 57,005, is above every K tested.
static const uint32_t kPoison = 0xdeadbeefu;

// ---------------------------------------------------------------------------------------------------
// Cases.

enum key_kind {
  kKeysOne,        // K = 1
  kKeysConstMax,   // K = 100, every key 99
  kKeysUniform2,   // K = 2
  kKeysUniform33,  // K = 33: two steps of one warp's scan, the second of one key
  kKeysUniform65,  // K = 65: two runs of the scan (blocks of more than one warp), the second of one key
  kKeysUniform1000,
  kKeysDistinct,   // K = max(n, 1), a random permutation of [0, n)
  kKeysSkewed,     // K = 500, 90% on key 499
  kKeysLogUniform, // K = 4096, floor((K + 1)^u) - 1
  kKeysLargeK,     // K = 50000, uniform, K - 1 planted
  kNumKeyKinds
};
static const char *const kKeyKindNames[kNumKeyKinds] = {
    "one key (K=1)", "constant key 99 of K=100", "uniform K=2", "uniform K=33", "uniform K=65", "uniform K=1000",
    "all distinct (K=n)", "skewed: 90% on key 499 of K=500", "log-uniform K=4096", "uniform K=50000, K-1 planted"};

struct sort_case {
  int32_t n, K;
  int kind;
  uint32_t *keys;  // n (host)
};

static uint32_t rand_below(uint64_t *rng, uint32_t n) { return (uint32_t)(sk_test_rand_u64(rng) % n); }

static void make_case(sort_case *c, int32_t n, int kind, uint64_t *rng) {
  c->n = n;
  c->kind = kind;
  c->keys = (uint32_t *)malloc(sizeof(uint32_t) * (n > 0 ? n : 1));
  switch (kind) {
    case kKeysOne: c->K = 1; break;
    case kKeysConstMax: c->K = 100; break;
    case kKeysUniform2: c->K = 2; break;
    case kKeysUniform33: c->K = 33; break;
    case kKeysUniform65: c->K = 65; break;
    case kKeysUniform1000: c->K = 1000; break;
    case kKeysDistinct: c->K = n > 0 ? n : 1; break;
    case kKeysSkewed: c->K = 500; break;
    case kKeysLogUniform: c->K = 4096; break;
    default: c->K = 50000; break;
  }
  const uint32_t K = (uint32_t)c->K;
  for (int32_t i = 0; i < n; ++i) {
    switch (kind) {
      case kKeysOne: c->keys[i] = 0u; break;
      case kKeysConstMax: c->keys[i] = K - 1u; break;
      case kKeysDistinct: c->keys[i] = (uint32_t)i; break;  // shuffled below
      case kKeysSkewed: c->keys[i] = rand_below(rng, 10) != 0 ? K - 1u : rand_below(rng, K); break;
      case kKeysLogUniform: {
        const double u = (double)(sk_test_rand_u64(rng) >> 11) * 0x1p-53;
        const uint32_t r = (uint32_t)floor(pow((double)K + 1.0, u)) - 1u;
        c->keys[i] = r < K ? r : K - 1u;
        break;
      }
      case kKeysLargeK: c->keys[i] = rand_below(rng, 8) == 0 ? K - 1u : rand_below(rng, K); break;
      default: c->keys[i] = rand_below(rng, K); break;
    }
  }
  if (kind == kKeysDistinct)
    for (int32_t i = n - 1; i > 0; --i) {
      const uint32_t j = rand_below(rng, (uint32_t)i + 1u), t = c->keys[i];
      c->keys[i] = c->keys[j];
      c->keys[j] = t;
    }
}

// Bytes of dynamic shared memory the case kernel needs for up to k_cap keys and n_cap items.
static size_t case_shared_bytes(int32_t k_cap, int32_t n_cap) {
  return sizeof(uint32_t) * ((size_t)k_cap + kGuard + (size_t)n_cap + kGuard) +
         SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(n_cap);
}

// ---------------------------------------------------------------------------------------------------
// Comparing a result with the reference.

// -1 when (got_ends, got_slots) is the reference's result up to the order within each key's range;
// else the first mismatch, described in msg: an end (index c) or, after each range of a copy of
// got_slots is put in the canonical order, a slot (index K + j).
static int64_t compare_result(const uint32_t *got_ends, const uint32_t *got_slots, const uint32_t *want_ends,
                              const uint32_t *want_slots, int32_t K, int32_t n, char *msg, size_t msg_size) {
  for (int32_t c = 0; c < K; ++c)
    if (got_ends[c] != want_ends[c]) {
      snprintf(msg, msg_size, "key_ends[%d] = %u, want %u", (int)c, got_ends[c], want_ends[c]);
      return c;
    }
  uint32_t *canon = (uint32_t *)malloc(sizeof(uint32_t) * (n > 0 ? n : 1));
  memcpy(canon, got_slots, sizeof(uint32_t) * (size_t)n);
  int64_t bad = -1;
  if (sk_ref_block_count_sort_canonical_u32(got_ends, K, canon, n) != 0) {
    snprintf(msg, msg_size, "the ends are not non-decreasing within [0, n]");
    bad = K;
  }
  for (int32_t j = 0; j < n && bad < 0; ++j)
    if (canon[j] != want_slots[j]) {
      snprintf(msg, msg_size,
               "slot %d (ranges in canonical order) = 0x%08x (key %u item %u), want 0x%08x (key %u item %u)", (int)j,
               canon[j], canon[j] >> 16, canon[j] & 0xffffu, want_slots[j], want_slots[j] >> 16,
               want_slots[j] & 0xffffu);
      bad = (int64_t)K + j;
    }
  free(canon);
  return bad;
}

// The first guard word of v[from, from + kGuard) that is not the poison, or -1.
static int first_written_guard(const uint32_t *v, int64_t from) {
  for (int g = 0; g < kGuard; ++g)
    if (v[from + g] != kPoison) return g;
  return -1;
}

// ---------------------------------------------------------------------------------------------------
// Host checks.

// The contract's properties of a result in the canonical order: the ends non-decreasing and ending at
// n, every slot in its key's range, every item once, items increasing within a range.
static void check_properties(const sort_case *c, const uint32_t *ends, const uint32_t *slots) {
  const int32_t n = c->n, K = c->K;
  int ok = SK_CHECK(ends[K - 1] == (uint32_t)n, "key_ends[K - 1] = %u, want n = %d", ends[K - 1], (int)n);
  unsigned char *seen = (unsigned char *)calloc((size_t)(n > 0 ? n : 1), 1);
  uint32_t begin = 0;
  for (int32_t k = 0; k < K && ok; ++k) {
    ok = SK_CHECK(ends[k] >= begin, "key_ends[%d] = %u below the previous end %u", (int)k, ends[k], begin);
    for (uint32_t j = begin; j < ends[k] && ok; ++j) {
      const uint32_t key = slots[j] >> 16, item = slots[j] & 0xffffu;
      ok = SK_CHECK(key == (uint32_t)k && item < (uint32_t)n && c->keys[item] == key && !seen[item] &&
                        (j == begin || item > (slots[j - 1] & 0xffffu)),
                    "slot %u = 0x%08x in key %d's range [%u, %u)", j, slots[j], (int)k, begin, ends[k]);
      if (item < (uint32_t)n) seen[item] = 1;
    }
    begin = ends[k];
  }
  free(seen);
}

// Brute force: for each key in turn, its items in increasing order.
static void brute_force(const sort_case *c, uint32_t *ends, uint32_t *slots) {
  uint32_t j = 0;
  for (int32_t k = 0; k < c->K; ++k) {
    for (int32_t i = 0; i < c->n; ++i)
      if (c->keys[i] == (uint32_t)k) slots[j++] = ((uint32_t)k << 16) | (uint32_t)i;
    ends[k] = j;
  }
}

static const int32_t kHostSizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1009, 4099, 16384, 32768, 65536};

static void test_reference(int seed) {
  char msg[256];
  for (size_t s = 0; s < sizeof kHostSizes / sizeof kHostSizes[0]; ++s)
    for (int kind = 0; kind < kNumKeyKinds; ++kind) {
      uint64_t rng = 0xbc500000ull + (uint64_t)seed * 1000003ull + s * 7919ull + (uint64_t)kind;
      sort_case c;
      make_case(&c, kHostSizes[s], kind, &rng);
      sk_test_context("host, seed %d: n=%d, keys %s", seed, (int)c.n, kKeyKindNames[kind]);
      const size_t key_bytes = sizeof(uint32_t) * c.K, slot_bytes = sizeof(uint32_t) * (c.n + 1);
      uint32_t *ends = (uint32_t *)malloc(key_bytes), *slots = (uint32_t *)malloc(slot_bytes);
      uint32_t *bends = (uint32_t *)malloc(key_bytes), *bslots = (uint32_t *)malloc(slot_bytes);
      uint32_t *work = (uint32_t *)malloc(slot_bytes), *wends = (uint32_t *)malloc(key_bytes);
      if (SK_CHECK(sk_ref_block_count_sort_u32(c.keys, c.n, c.K, ends, slots) == 0, "the reference failed")) {
        check_properties(&c, ends, slots);
        if ((double)c.n * (double)c.K <= 1e6) {
          brute_force(&c, bends, bslots);
          SK_CHECK(compare_result(ends, slots, bends, bslots, c.K, c.n, msg, sizeof msg) < 0,
                   "reference against brute force: %s", msg);
        }
        // Shuffled within each range: the comparison accepts it (and the canonical order restores it).
        memcpy(work, slots, sizeof(uint32_t) * c.n);
        uint32_t begin = 0;
        for (int32_t k = 0; k < c.K; ++k) {
          for (uint32_t j = ends[k]; j > begin + 1; --j) {
            const uint32_t r = begin + rand_below(&rng, j - begin), t = work[j - 1];
            work[j - 1] = work[r];
            work[r] = t;
          }
          begin = ends[k];
        }
        SK_CHECK(compare_result(ends, work, ends, slots, c.K, c.n, msg, sizeof msg) < 0,
                 "a result shuffled within its ranges was rejected: %s", msg);
        // Planted defects, each of which the comparison must reject.
        if (c.n > 0) {
          memcpy(work, slots, sizeof(uint32_t) * c.n);
          work[rand_below(&rng, (uint32_t)c.n)] ^= 1u;  // an item off by one
          SK_CHECK(compare_result(ends, work, ends, slots, c.K, c.n, msg, sizeof msg) >= 0,
                   "planted defect not found: an item off by one");
        }
        if (c.K > 1 && c.n > 0) {
          memcpy(wends, ends, sizeof(uint32_t) * c.K);
          const uint32_t k = rand_below(&rng, (uint32_t)c.K - 1u);
          wends[k] = wends[k] > 0 ? wends[k] - 1u : 1u;  // an end off by one
          SK_CHECK(compare_result(wends, slots, ends, slots, c.K, c.n, msg, sizeof msg) >= 0,
                   "planted defect not found: key_ends[%u] off by one", k);
          // Two slots of different keys exchanged (the first and the last slot, when their keys differ).
          memcpy(work, slots, sizeof(uint32_t) * c.n);
          if ((work[0] >> 16) != (work[c.n - 1] >> 16)) {
            const uint32_t t = work[0];
            work[0] = work[c.n - 1];
            work[c.n - 1] = t;
            SK_CHECK(compare_result(ends, work, ends, slots, c.K, c.n, msg, sizeof msg) >= 0,
                     "planted defect not found: two slots of different keys exchanged");
          }
        }
      }
      // Bad input: a key out of range.
      if (c.n > 0) {
        c.keys[c.n / 2] = (uint32_t)c.K;
        SK_CHECK(sk_ref_block_count_sort_u32(c.keys, c.n, c.K, ends, slots) == -1, "a key = K was accepted");
      }
      free(ends);
      free(slots);
      free(bends);
      free(bslots);
      free(work);
      free(wends);
      free(c.keys);
    }
  sk_test_context("host: reference arguments");
  uint32_t key = 0, end = 0, slot = 0;
  SK_CHECK(sk_ref_block_count_sort_u32(&key, -1, 1, &end, &slot) == -1, "n = -1 accepted");
  SK_CHECK(sk_ref_block_count_sort_u32(&key, 65537, 1, &end, &slot) == -1, "n = 65537 accepted");
  SK_CHECK(sk_ref_block_count_sort_u32(&key, 1, 0, &end, &slot) == -1, "K = 0 accepted");
  SK_CHECK(sk_ref_block_count_sort_u32(&key, 1, 65537, &end, &slot) == -1, "K = 65537 accepted");
}

// ---------------------------------------------------------------------------------------------------
// The device function.

struct case_desc {
  int32_t n, K;
  int64_t key_at, slots_at, ends_at;  // offsets into the key, slot and end arrays
};

// Each block takes cases 2b and 2b + 1 (if any) in turn, in the same shared arrays: the first call
// finds them poisoned (scratch included), the second finds the first case's result there (only the
// guard words are poisoned again). Every thread of the block calls; the second call is
// sk_block_count_sort_counts_u32, which adds the case's counts to counts[ends_at + c] (zeroed: the first
// case's must stay 0). kPlantBug: thread 0 then flips the item bit 0 of the last slot, a defect the
// comparison must find.
template <bool kPlantBug>
__global__ void __launch_bounds__(1024)
    sort_cases_kernel(const uint32_t *keys, const case_desc *cases, int num_cases, int k_cap, int n_cap,
                      uint32_t *out_ends, uint32_t *out_slots, unsigned long long *counts) {
  extern __shared__ uint32_t smem[];
  uint32_t *const s_ends = smem, *const s_slots = smem + k_cap + kGuard;
  void *const s_scratch = s_slots + n_cap + kGuard;
  const int tid = (int)threadIdx.x, threads = (int)blockDim.x;
  const int words = k_cap + kGuard + n_cap + kGuard + (int)(SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(n_cap) / 4u);
  for (int i = tid; i < words; i += threads) smem[i] = kPoison;
  __syncthreads();
  for (int h = 0; h < 2; ++h) {
    const int c = 2 * (int)blockIdx.x + h;
    if (c >= num_cases) break;
    const case_desc cd = cases[c];
    if (h == 1) {
      for (int g = tid; g < kGuard; g += threads) s_ends[cd.K + g] = s_slots[cd.n + g] = kPoison;
      __syncthreads();
    }
    if (h == 0)
      sk_block_count_sort_u32(tid, threads, s_scratch, keys + cd.key_at, cd.n, cd.K, s_ends, s_slots);
    else
      sk_block_count_sort_counts_u32(tid, threads, s_scratch, keys + cd.key_at, cd.n, cd.K, s_ends, s_slots,
                                     counts + cd.ends_at);
    if (kPlantBug) {
      if (tid == 0 && cd.n > 0) s_slots[cd.n - 1] ^= 1u;
      __syncthreads();
    }
    for (int i = tid; i < cd.K + kGuard; i += threads) out_ends[cd.ends_at + i] = s_ends[i];
    for (int i = tid; i < cd.n + kGuard; i += threads) out_slots[cd.slots_at + i] = s_slots[i];
    __syncthreads();  // the barrier the contract asks for before the arrays are reused
  }
}

// Runs cases[0, count) (one block per pair) with `threads` threads and compares every result; with
// plant_bug, requires instead that every case with n > 0 is rejected. Returns the number of cases run.
static int run_cases(const sort_case *cases, int count, int threads, bool plant_bug, int seed) {
  int32_t k_cap = 1, n_cap = 0;
  int64_t keys_total = 0, ends_total = 0, slots_total = 0;
  case_desc *desc = (case_desc *)malloc(sizeof(case_desc) * (count > 0 ? count : 1));
  for (int i = 0; i < count; ++i) {
    desc[i].n = cases[i].n;
    desc[i].K = cases[i].K;
    desc[i].key_at = keys_total;
    desc[i].ends_at = ends_total;
    desc[i].slots_at = slots_total;
    keys_total += cases[i].n;
    ends_total += cases[i].K + kGuard;
    slots_total += cases[i].n + kGuard;
    if (cases[i].K > k_cap) k_cap = cases[i].K;
    if (cases[i].n > n_cap) n_cap = cases[i].n;
  }
  uint32_t *h_keys = (uint32_t *)malloc(sizeof(uint32_t) * (keys_total + 1));
  for (int i = 0; i < count; ++i) memcpy(h_keys + desc[i].key_at, cases[i].keys, sizeof(uint32_t) * cases[i].n);
  uint32_t *d_keys, *d_ends, *d_slots;
  unsigned long long *d_counts;
  case_desc *d_desc;
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof(unsigned long long) * ends_total));
  SK_CHECK_CUDA(cudaMemset(d_counts, 0, sizeof(unsigned long long) * ends_total));
  SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(uint32_t) * (keys_total + 1)));
  SK_CHECK_CUDA(cudaMalloc(&d_ends, sizeof(uint32_t) * ends_total));
  SK_CHECK_CUDA(cudaMalloc(&d_slots, sizeof(uint32_t) * slots_total));
  SK_CHECK_CUDA(cudaMalloc(&d_desc, sizeof(case_desc) * count));
  SK_CHECK_CUDA(cudaMemcpy(d_keys, h_keys, sizeof(uint32_t) * keys_total, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_desc, desc, sizeof(case_desc) * count, cudaMemcpyHostToDevice));
  const size_t shared = case_shared_bytes(k_cap, n_cap);
  void (*kernel)(const uint32_t *, const case_desc *, int, int, int, uint32_t *, uint32_t *, unsigned long long *) =
      plant_bug ? sort_cases_kernel<true> : sort_cases_kernel<false>;
  SK_CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  sk_test_context("seed %d, %d threads%s: launch of %d cases (%zu shared bytes)", seed, threads,
                  plant_bug ? ", planted bug" : "", count, shared);
  kernel<<<(count + 1) / 2, threads, shared>>>(d_keys, d_desc, count, k_cap, n_cap, d_ends, d_slots, d_counts);
  SK_CHECK_LAUNCH();
  uint32_t *h_ends = (uint32_t *)malloc(sizeof(uint32_t) * ends_total);
  uint32_t *h_slots = (uint32_t *)malloc(sizeof(uint32_t) * slots_total);
  SK_CHECK_CUDA(cudaMemcpy(h_ends, d_ends, sizeof(uint32_t) * ends_total, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_slots, d_slots, sizeof(uint32_t) * slots_total, cudaMemcpyDeviceToHost));
  unsigned long long *h_counts = (unsigned long long *)malloc(sizeof(unsigned long long) * ends_total);
  SK_CHECK_CUDA(cudaMemcpy(h_counts, d_counts, sizeof(unsigned long long) * ends_total, cudaMemcpyDeviceToHost));
  char msg[256];
  for (int i = 0; i < count; ++i) {
    const sort_case *c = &cases[i];
    sk_test_context("seed %d, %d threads%s, case %d (%s call in its block): n=%d, keys %s", seed, threads,
                    plant_bug ? ", planted bug" : "", i, i % 2 ? "second" : "first", (int)c->n,
                    kKeyKindNames[c->kind]);
    uint32_t *want_ends = (uint32_t *)malloc(sizeof(uint32_t) * c->K);
    uint32_t *want_slots = (uint32_t *)malloc(sizeof(uint32_t) * (c->n + 1));
    if (SK_CHECK(sk_ref_block_count_sort_u32(c->keys, c->n, c->K, want_ends, want_slots) == 0,
                 "the reference failed")) {
      const int64_t bad = compare_result(h_ends + desc[i].ends_at, h_slots + desc[i].slots_at, want_ends, want_slots,
                                         c->K, c->n, msg, sizeof msg);
      if (plant_bug) {
        if (c->n > 0) SK_CHECK(bad >= 0, "the planted bug (last slot's item off by one) was not found");
      } else {
        SK_CHECK(bad < 0, "%s", msg);
        const int ge = first_written_guard(h_ends, desc[i].ends_at + c->K);
        const int gs = first_written_guard(h_slots, desc[i].slots_at + c->n);
        SK_CHECK(ge < 0, "guard word %d after key_ends[K - 1] was written: 0x%08x", ge,
                 ge >= 0 ? h_ends[desc[i].ends_at + c->K + ge] : 0u);
        SK_CHECK(gs < 0, "guard word %d after slot n - 1 was written: 0x%08x", gs,
                 gs >= 0 ? h_slots[desc[i].slots_at + c->n + gs] : 0u);
        // The counts: the second call's are each key's count, the first call's all zero.
        int bad_count = -1;
        for (int32_t k = 0; k < c->K && bad_count < 0; ++k) {
          const unsigned long long want =
              i % 2 ? (unsigned long long)(want_ends[k] - (k > 0 ? want_ends[k - 1] : 0u)) : 0ull;
          if (h_counts[desc[i].ends_at + k] != want) bad_count = (int)k;
        }
        SK_CHECK(bad_count < 0, "counts[%d] = %llu, want %llu (%s call)", bad_count,
                 bad_count >= 0 ? h_counts[desc[i].ends_at + bad_count] : 0ull,
                 bad_count >= 0 && i % 2
                     ? (unsigned long long)(want_ends[bad_count] - (bad_count > 0 ? want_ends[bad_count - 1] : 0u))
                     : 0ull,
                 i % 2 ? "counting" : "plain");
      }
    }
    free(want_ends);
    free(want_slots);
  }
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_ends));
  SK_CHECK_CUDA(cudaFree(d_slots));
  SK_CHECK_CUDA(cudaFree(d_desc));
  SK_CHECK_CUDA(cudaFree(d_counts));
  free(h_counts);
  free(h_keys);
  free(h_ends);
  free(h_slots);
  free(desc);
  return count;
}

static void test_device_cases(int seed, size_t optin) {
  const int thread_counts[] = {32, 96, 256, 512, 1024};
  for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; ++t) {
    const int threads = thread_counts[t];
    const int32_t sizes[] = {0, 1, 31, 32, 33, threads - 1, threads, threads + 1, 1009, 4099, 16384, 32768};
    const int num_sizes = (int)(sizeof sizes / sizeof sizes[0]);
    sort_case *cases = (sort_case *)malloc(sizeof(sort_case) * num_sizes * kNumKeyKinds);
    int count = 0;
    uint64_t rng = 0xd0500000ull + (uint64_t)seed * 1000003ull + (uint64_t)threads;
    // Kinds vary fastest, so the two cases of a block have different K (the second call meets ends
    // and slots of another shape).
    for (int s = 0; s < num_sizes; ++s)
      for (int kind = 0; kind < kNumKeyKinds; ++kind) {
        sort_case c;
        make_case(&c, sizes[s], kind, &rng);
        // Cases whose arrays do not fit in one block's shared memory on this device are left out
        // (K = n = 32,768 distinct, and K = 50,000 beside n > 4,099).
        if (case_shared_bytes(c.K, c.n) > optin) {
          free(c.keys);
          continue;
        }
        cases[count++] = c;
      }
    // Launches of cases whose shared arrays fit together (the launch sizes them for the largest K and n).
    int first = 0;
    while (first < count) {
      int last = first + 1;
      int32_t k_cap = cases[first].K, n_cap = cases[first].n;
      while (last < count) {
        const int32_t k2 = cases[last].K > k_cap ? cases[last].K : k_cap;
        const int32_t n2 = cases[last].n > n_cap ? cases[last].n : n_cap;
        if (case_shared_bytes(k2, n2) > optin) break;
        k_cap = k2;
        n_cap = n2;
        ++last;
      }
      run_cases(cases + first, last - first, threads, false, seed);
      if (seed == 0) run_cases(cases + first, last - first, threads, true, seed);
      first = last;
    }
    for (int i = 0; i < count; ++i) free(cases[i].keys);
    free(cases);
  }
}

// The usage snippet over 10^6 + 3 keys (a prime) in tiles of 4,096 (the last one short), K = 300,
// log-uniform keys: every tile's ends exact and its ranges equal to the reference's once sorted.
static void test_usage_snippet(int seed) {
  const int64_t n = 1000003;
  const int tile = 4096, K = 300, tiles = (int)((n + tile - 1) / tile);
  uint64_t rng = 0x05a90000ull + (uint64_t)seed;
  uint32_t *h_keys = (uint32_t *)malloc(sizeof(uint32_t) * n);
  for (int64_t i = 0; i < n; ++i) {
    const double u = (double)(sk_test_rand_u64(&rng) >> 11) * 0x1p-53;
    const uint32_t r = (uint32_t)floor(pow((double)K + 1.0, u)) - 1u;
    h_keys[i] = r < (uint32_t)K ? r : (uint32_t)K - 1u;
  }
  uint32_t *d_keys, *d_ends;
  int64_t *d_items;
  SK_CHECK_CUDA(cudaMalloc(&d_keys, sizeof(uint32_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_items, sizeof(int64_t) * n));
  SK_CHECK_CUDA(cudaMalloc(&d_ends, sizeof(uint32_t) * (size_t)tiles * K));
  SK_CHECK_CUDA(cudaMemcpy(d_keys, h_keys, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
  const size_t shared = 4u * (size_t)K + 4u * (size_t)tile + SK_BLOCK_COUNT_SORT_SCRATCH_BYTES(tile);
  sk_test_context("usage snippet, seed %d: launch", seed);
  example_group_by_key<<<tiles, 256, shared>>>(d_keys, n, tile, K, d_items, d_ends);
  SK_CHECK_LAUNCH();
  int64_t *h_items = (int64_t *)malloc(sizeof(int64_t) * n);
  uint32_t *h_ends = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)tiles * K);
  SK_CHECK_CUDA(cudaMemcpy(h_items, d_items, sizeof(int64_t) * n, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(h_ends, d_ends, sizeof(uint32_t) * (size_t)tiles * K, cudaMemcpyDeviceToHost));
  uint32_t *got = (uint32_t *)malloc(sizeof(uint32_t) * tile), *want = (uint32_t *)malloc(sizeof(uint32_t) * tile);
  uint32_t *want_ends = (uint32_t *)malloc(sizeof(uint32_t) * K);
  char msg[256];
  for (int t = 0; t < tiles; ++t) {
    const int64_t begin = (int64_t)t * tile;
    const int count = n - begin < tile ? (int)(n - begin) : tile;
    sk_test_context("usage snippet, seed %d, tile %d of %d (%d keys)", seed, t, tiles, count);
    int ok = 1;
    for (int j = 0; j < count && ok; ++j) {
      const int64_t item = h_items[begin + j];
      ok = SK_CHECK(item >= begin && item < begin + count, "out_items[%lld] = %lld, outside the tile",
                    (long long)(begin + j), (long long)item);
      if (ok) got[j] = (h_keys[item] << 16) | (uint32_t)(item - begin);
    }
    if (!ok) continue;
    sk_ref_block_count_sort_u32(h_keys + begin, count, K, want_ends, want);
    if (!SK_CHECK(compare_result(h_ends + (size_t)t * K, got, want_ends, want, K, count, msg, sizeof msg) < 0, "%s",
                  msg))
      break;
  }
  SK_CHECK_CUDA(cudaFree(d_keys));
  SK_CHECK_CUDA(cudaFree(d_items));
  SK_CHECK_CUDA(cudaFree(d_ends));
  free(h_keys);
  free(h_items);
  free(h_ends);
  free(got);
  free(want);
  free(want_ends);
}

int main(int argc, char **argv) {
  for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_reference(seed);
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    int device = 0, optin = 0;
    SK_CHECK_CUDA(cudaGetDevice(&device));
    SK_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_device_cases(seed, (size_t)optin);
      test_usage_snippet(seed);
      sk_test_progress("seed %d done (%ld checks passed so far)", seed, sk_test_passed);
    }
  }
  return sk_test_finish();
}
