// Tests sparse_counts.h: the entry layout on the host (every value class, sign extension, the pieces of
// large values), then on the GPU: packs of random arrays of every density and alignment checked entry
// by entry against a host reference (as multisets: the order is unspecified), values beyond one entry
// (up to INT32_MIN and INT32_MAX), a capacity too small (the count still whole, no write past it), and
// the add: two arrays' entries added into a third give the exact sums, entries out of range skipped.
// The argument checks (also without a GPU) and the usage snippet run too.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "samplekit/sk_device.h"
#include "samplekit/sparse_counts.h"
#include "sk_test.h"

// ---------------------------------------------------------------------------------------------
// Host checks (these also run without a GPU)

static void test_entry_layout(void) {
  sk_test_context("entry layout");
  const int32_t values[] = {1, -1, 2, -2, 1000, -1000, SK_SPARSE_COUNT_VALUE_MAX, -SK_SPARSE_COUNT_VALUE_MAX};
  const uint64_t indices[] = {0, 1, 12345, ((uint64_t)1 << 40) - 1};
  for (size_t i = 0; i < sizeof indices / sizeof indices[0]; ++i)
    for (size_t v = 0; v < sizeof values / sizeof values[0]; ++v) {
      const uint64_t e = sk_sparse_count_entry(indices[i], values[v]);
      SK_CHECK(sk_sparse_count_entry_index(e) == indices[i] && sk_sparse_count_entry_value(e) == values[v],
               "entry (%llu, %d) reads back (%llu, %d)", (unsigned long long)indices[i], (int)values[v],
               (unsigned long long)sk_sparse_count_entry_index(e), (int)sk_sparse_count_entry_value(e));
    }
  SK_CHECK(sk_sparse_count_pieces(0) == 0, "0 takes no entry");
  SK_CHECK(sk_sparse_count_pieces(1) == 1 && sk_sparse_count_pieces(-1) == 1, "+-1 take one entry");
  SK_CHECK(sk_sparse_count_pieces(SK_SPARSE_COUNT_VALUE_MAX) == 1, "the largest value takes one entry");
  SK_CHECK(sk_sparse_count_pieces(SK_SPARSE_COUNT_VALUE_MAX + 1) == 2, "one past it takes two");
  SK_CHECK(sk_sparse_count_pieces(INT32_MAX) == 257, "INT32_MAX takes %u", sk_sparse_count_pieces(INT32_MAX));
  SK_CHECK(sk_sparse_count_pieces(INT32_MIN) == 257, "INT32_MIN takes %u", sk_sparse_count_pieces(INT32_MIN));
}

// The host reference: the entries of counts as (index, value) pairs in index order, pieces as the kernel
// cuts them (whole pieces of the largest magnitude first).
static uint64_t reference_pack(const int32_t *counts, uint64_t n, uint64_t *out) {
  uint64_t m = 0;
  for (uint64_t i = 0; i < n; ++i) {
    int64_t v = counts[i];
    while (v > SK_SPARSE_COUNT_VALUE_MAX || v < -SK_SPARSE_COUNT_VALUE_MAX) {
      const int64_t piece = v > 0 ? SK_SPARSE_COUNT_VALUE_MAX : -SK_SPARSE_COUNT_VALUE_MAX;
      out[m++] = sk_sparse_count_entry(i, (int32_t)piece);
      v -= piece;
    }
    if (v != 0) out[m++] = sk_sparse_count_entry(i, (int32_t)v);
  }
  return m;
}

static int compare_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

// ---------------------------------------------------------------------------------------------
// GPU checks

//! [sparse_counts_usage]
// One GPU's part of a sparse exchange: pack its counts into entries (d_entries holds `capacity`), here
// "received" by a copy, and add them into another GPU's counts d_other. Returns the entries, or -1 when
// they did not fit (then a dense sum is the fallback).
static long long pack_and_add(const int32_t *d_counts, uint64_t n, uint64_t *d_entries, uint64_t capacity,
                              unsigned long long *d_num, int32_t *d_other) {
  if (sk_sparse_counts_pack_i32(d_counts, n, d_entries, capacity, d_num, 0) != SK_SUCCESS) return -1;
  unsigned long long num = 0;
  if (cudaMemcpy(&num, d_num, sizeof num, cudaMemcpyDeviceToHost) != cudaSuccess || num > capacity) return -1;
  /* ... send num entries to the other GPUs, receive theirs ... */
  if (sk_sparse_counts_add_i32(d_entries, num, d_other, n, 0) != SK_SUCCESS) return -1;
  return (long long)num;
}
//! [sparse_counts_usage]

// Random counts of length n at `density` (a value nonzero with that chance), values up to `magnitude`,
// negatives when `signed_values`.
static void fill_counts(int32_t *h, uint64_t n, double density, int32_t magnitude, int signed_values, uint64_t *rng) {
  for (uint64_t i = 0; i < n; ++i) {
    h[i] = 0;
    if ((double)sk_test_rand_u32(rng) / 4294967296.0 >= density) continue;
    int32_t v = 1 + (int32_t)(sk_test_rand_u32(rng) % (uint32_t)magnitude);
    if (signed_values && (sk_test_rand_u32(rng) & 1u)) v = -v;
    h[i] = v;
  }
}

// Packs h_counts[0 .. n) from an offset of `shift` values into a device buffer (shift 1 misaligns the
// 16-byte loads) and checks the entries against the reference as multisets, and the count; with
// capacity `short_by` entries below the count, checks the count and that nothing past the capacity
// was written.
static void check_pack(const int32_t *h_counts, uint64_t n, int shift, uint64_t short_by, const char *what) {
  uint64_t *want = (uint64_t *)malloc((size_t)(n * 257 / 64 + n + 1) * sizeof *want);
  const uint64_t m = reference_pack(h_counts, n, want);
  const uint64_t capacity = short_by < m ? m - short_by : 0;
  const uint64_t guard = 64;
  int32_t *d_counts = NULL;
  uint64_t *d_entries = NULL;
  unsigned long long *d_num = NULL;
  SK_CHECK_CUDA(cudaMalloc((void **)&d_counts, (size_t)(n + 4) * sizeof *d_counts));
  SK_CHECK_CUDA(cudaMalloc((void **)&d_entries, (size_t)(capacity + guard) * sizeof *d_entries));
  SK_CHECK_CUDA(cudaMalloc((void **)&d_num, sizeof *d_num));
  SK_CHECK_CUDA(cudaMemset(d_entries, 0xA5, (size_t)(capacity + guard) * sizeof *d_entries));
  SK_CHECK_CUDA(cudaMemcpy(d_counts + shift, h_counts, (size_t)n * sizeof *h_counts, cudaMemcpyHostToDevice));
  SK_CHECK(sk_sparse_counts_pack_i32(d_counts + shift, n, d_entries, capacity, d_num, 0) == SK_SUCCESS, "%s: pack",
           what);
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  unsigned long long num = 0;
  SK_CHECK_CUDA(cudaMemcpy(&num, d_num, sizeof num, cudaMemcpyDeviceToHost));
  SK_CHECK(num == m, "%s: %llu entries counted, %llu expected", what, num, (unsigned long long)m);
  uint64_t *got = (uint64_t *)malloc((size_t)(capacity + guard) * sizeof *got);
  SK_CHECK_CUDA(
      cudaMemcpy(got, d_entries, (size_t)(capacity + guard) * sizeof *got, cudaMemcpyDeviceToHost));
  int beyond = 0;
  for (uint64_t j = capacity; j < capacity + guard; ++j) beyond += got[j] != 0xA5A5A5A5A5A5A5A5ull;
  SK_CHECK(beyond == 0, "%s: %d entries written past the capacity %llu", what, beyond, (unsigned long long)capacity);
  if (short_by == 0 && num == m) {
    qsort(got, (size_t)m, sizeof *got, compare_u64);
    qsort(want, (size_t)m, sizeof *want, compare_u64);
    uint64_t bad = 0;
    for (uint64_t j = 0; j < m; ++j) bad += got[j] != want[j];
    SK_CHECK(bad == 0, "%s: %llu of %llu entries differ from the reference", what, (unsigned long long)bad,
             (unsigned long long)m);
  } else if (short_by > 0) { /* every written entry is one of the reference's */
    qsort(want, (size_t)m, sizeof *want, compare_u64);
    uint64_t bad = 0;
    for (uint64_t j = 0; j < capacity; ++j)
      bad += bsearch(&got[j], want, (size_t)m, sizeof *want, compare_u64) == NULL;
    SK_CHECK(bad == 0, "%s: %llu written entries are not the reference's", what, (unsigned long long)bad);
  }
  free(got);
  free(want);
  SK_CHECK_CUDA(cudaFree(d_counts));
  SK_CHECK_CUDA(cudaFree(d_entries));
  SK_CHECK_CUDA(cudaFree(d_num));
}

static void test_packs(uint64_t seed) {
  uint64_t rng = 0x9E3779B97F4A7C15ull ^ seed;
  const uint64_t sizes[] = {1, 3, 4, 17, 4095, 4096, 4097, 100000, 1000003};
  const double densities[] = {0.0, 0.001, 0.05, 0.5, 1.0};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; ++d)
      for (int shift = 0; shift < 2; ++shift) {
        const uint64_t n = sizes[s];
        int32_t *h = (int32_t *)malloc((size_t)n * sizeof *h);
        fill_counts(h, n, densities[d], (d & 1) ? 1000 : 3, (int)(s & 1), &rng);
        char what[160];
        snprintf(what, sizeof what, "seed %llu, n %llu, density %g, shift %d", (unsigned long long)seed,
                 (unsigned long long)n, densities[d], shift);
        sk_test_context("%s", what);
        check_pack(h, n, shift, 0, what);
        free(h);
      }
}

static void test_large_values_and_capacity(void) {
  sk_test_context("large values");
  const uint64_t n = 10000;
  int32_t *h = (int32_t *)calloc((size_t)n, sizeof *h);
  h[0] = INT32_MAX;
  h[1] = INT32_MIN;
  h[2] = SK_SPARSE_COUNT_VALUE_MAX;
  h[3] = SK_SPARSE_COUNT_VALUE_MAX + 1;
  h[4] = -SK_SPARSE_COUNT_VALUE_MAX - 1;
  h[4100] = 3 * SK_SPARSE_COUNT_VALUE_MAX;
  for (uint64_t i = 5000; i < n; i += 7) h[i] = (int32_t)(i % 5) - 2;
  check_pack(h, n, 0, 0, "large values");
  check_pack(h, n, 1, 0, "large values, misaligned");
  sk_test_context("capacity");
  check_pack(h, n, 0, 1, "capacity one short");
  check_pack(h, n, 0, 1000, "capacity 1,000 short");
  check_pack(h, n, 0, UINT64_MAX, "capacity 0 (a count only)");
  free(h);
}

// Two arrays' entries added into a third: the exact sums (of the three, in int32).
static void test_add(uint64_t seed) {
  sk_test_context("add, seed %llu", (unsigned long long)seed);
  uint64_t rng = 0xD1B54A32D192ED03ull ^ seed;
  const uint64_t n = 300007;
  int32_t *h[3], *d[3];
  for (int i = 0; i < 3; ++i) {
    h[i] = (int32_t *)malloc((size_t)n * sizeof *h[i]);
    fill_counts(h[i], n, i == 2 ? 0.3 : 0.02 * (i + 1), 100000, 1, &rng);
    SK_CHECK_CUDA(cudaMalloc((void **)&d[i], (size_t)n * sizeof *d[i]));
    SK_CHECK_CUDA(cudaMemcpy(d[i], h[i], (size_t)n * sizeof *h[i], cudaMemcpyHostToDevice));
  }
  h[0][77] = INT32_MAX / 2; /* several entries of one index */
  SK_CHECK_CUDA(cudaMemcpy(d[0] + 77, h[0] + 77, sizeof *h[0], cudaMemcpyHostToDevice));
  uint64_t *d_entries = NULL;
  unsigned long long *d_num = NULL;
  const uint64_t capacity = n;
  SK_CHECK_CUDA(cudaMalloc((void **)&d_entries, (size_t)capacity * sizeof *d_entries));
  SK_CHECK_CUDA(cudaMalloc((void **)&d_num, sizeof *d_num));
  long long e0 = pack_and_add(d[0], n, d_entries, capacity, d_num, d[2]);
  long long e1 = pack_and_add(d[1], n, d_entries, capacity, d_num, d[2]);
  SK_CHECK(e0 > 0 && e1 > 0, "pack and add: %lld and %lld entries", e0, e1);
  int32_t *got = (int32_t *)malloc((size_t)n * sizeof *got);
  SK_CHECK_CUDA(cudaMemcpy(got, d[2], (size_t)n * sizeof *got, cudaMemcpyDeviceToHost));
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) bad += got[i] != (int32_t)((int64_t)h[0][i] + h[1][i] + h[2][i]);
  SK_CHECK(bad == 0, "%llu of %llu sums differ", (unsigned long long)bad, (unsigned long long)n);
  /* an entry out of range is skipped; one in range lands */
  const uint64_t extra[2] = {sk_sparse_count_entry(n, 5), sk_sparse_count_entry(n - 1, -3)};
  SK_CHECK_CUDA(cudaMemcpy(d_entries, extra, sizeof extra, cudaMemcpyHostToDevice));
  SK_CHECK(sk_sparse_counts_add_i32(d_entries, 2, d[2], n, 0) == SK_SUCCESS, "add of two entries");
  int32_t last = 0;
  SK_CHECK_CUDA(cudaMemcpy(&last, d[2] + n - 1, sizeof last, cudaMemcpyDeviceToHost));
  SK_CHECK(last == got[n - 1] - 3, "the last value %d, expected %d", (int)last, (int)(got[n - 1] - 3));
  free(got);
  for (int i = 0; i < 3; ++i) {
    free(h[i]);
    SK_CHECK_CUDA(cudaFree(d[i]));
  }
  SK_CHECK_CUDA(cudaFree(d_entries));
  SK_CHECK_CUDA(cudaFree(d_num));
}

// The argument checks, which return before CUDA is touched: host pointers stand in for device ones (no
// check dereferences them), and no CUDA error may be recorded.
static void test_argument_checks(void) {
  sk_test_context("arguments (host)");
  unsigned long long num_stand_in = 0, *d_num = &num_stand_in;
  int32_t dummy_counts[1] = {0};
  uint64_t dummy_entries[1] = {0};
  sk_clear_cuda_error();
  SK_CHECK(sk_sparse_counts_pack_i32(NULL, 1, NULL, 0, d_num, 0) == SK_ERROR_NULL_POINTER, "NULL counts");
  SK_CHECK(sk_sparse_counts_pack_i32(dummy_counts, 1, NULL, 1, d_num, 0) == SK_ERROR_NULL_POINTER, "NULL entries");
  SK_CHECK(sk_sparse_counts_pack_i32(dummy_counts, 1, dummy_entries, 1, NULL, 0) == SK_ERROR_NULL_POINTER,
           "NULL count");
  SK_CHECK(sk_sparse_counts_pack_i32(dummy_counts, (uint64_t)1 << 40, NULL, 0, d_num, 0) == SK_ERROR_INVALID_VALUE,
           "2^40 values");
  SK_CHECK(sk_sparse_counts_add_i32(NULL, 1, NULL, 1, 0) == SK_ERROR_NULL_POINTER, "NULL add");
  SK_CHECK(sk_sparse_counts_add_i32(NULL, 0, NULL, 0, 0) == SK_SUCCESS, "an empty add");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA (error %d recorded)", sk_last_cuda_error());
}

static void test_arguments(void) {
  sk_test_context("arguments");
  unsigned long long *d_num = NULL;
  SK_CHECK_CUDA(cudaMalloc((void **)&d_num, sizeof *d_num));
  /* no values: the count is 0 */
  SK_CHECK_CUDA(cudaMemset(d_num, 0xFF, sizeof *d_num));
  SK_CHECK(sk_sparse_counts_pack_i32(NULL, 0, NULL, 0, d_num, 0) == SK_SUCCESS, "an empty pack");
  unsigned long long num = 1;
  SK_CHECK_CUDA(cudaMemcpy(&num, d_num, sizeof num, cudaMemcpyDeviceToHost));
  SK_CHECK(num == 0, "an empty pack counted %llu", num);
  SK_CHECK_CUDA(cudaFree(d_num));
}

int main(int argc, char **argv) {
  test_entry_layout();
  test_argument_checks();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_arguments();
    test_large_values_and_capacity();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_packs((uint64_t)seed);
      test_add((uint64_t)seed);
    }
  }
  return sk_test_finish();
}
