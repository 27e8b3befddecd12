// Tests sk_csr_chunk_order_device (csr_chunker.h, kernels/csr_chunk_order.cu) against
// sk_csr_chunk_order_host, which tests/test_csr_chunker.c checks against a qsort reference:
// - host (--host): every argument check that needs no GPU (values, pointers, overlaps, a workspace
//   below its fixed part), none of which may reach CUDA; the workspace size when no CUDA query is
//   needed; this test's own structure checker, which must accept the host order and reject planted
//   defects;
// - GPU: the three outputs equal the host's bit for bit over seeds, sizes (0, 1, 31, 32, 33, CUB's tile
//   edges, primes, 10^6, 10^7), vocabularies (1, 2, 3 words, 10^5, 1.4 * 10^5, 2^20, 2^24, 2^24 + 1)
//   and word shapes (uniform, Zipf, one word, all distinct, sorted, reversed, the two extreme words),
//   with every entry poisoned first and guard bytes after every array; workspaces at unaligned
//   addresses, sized for larger chunks, and one byte short; a non-default stream; tokens outside
//   [0, num_cols) (no write outside the arrays, the documented structure); a pending CUDA error; the
//   documentation's usage snippet over a chunk plan.
// Then sk_csr_chunk_groups_device against sk_csr_chunk_groups_host with the rows of
// sk_csr_chunk_order_rows_host (both checked against plain-C references in tests/test_csr_chunker.c),
// the same way: host (--host): its argument checks, which may not reach CUDA, and this test's
// comparison, which must reject planted defects; GPU: groups and items bit for bit over seeds, row
// shapes (short, 90% empty, one huge row, long rows, all empty; offsets not starting at 0),
// vocabularies (1, 2, 1000, 10^5, 2^20 words), the word shapes above and item_tokens 1, 64, 512, 4096
// and INT32_MAX (groups longer than item_tokens, items of 2^16 tokens and more), 10^7 tokens (under a
// sanitizer, 10^6 and no sweep chunk of 1000 rows); guard bytes after every output; tokens outside
// [0, num_cols); a workspace at an odd address and one byte short; no tokens; a pending CUDA error;
// the usage snippet over a plan.
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "samplekit/samplekit.h"
#include "csr_test_groups.h"
#include "sk_test.h"

//! [csr_chunk_order_device_usage]
// Orders every chunk of a plan on the device. The buffers and the workspace are sized once, for the
// plan's largest chunk; each chunk's tokens are copied in, ordered and handed to `use_chunk` (the
// caller's work on the chunk, queued on the same stream), all in stream order.
typedef void example_chunk_fn(const sk_csr_chunk_info *info, const int32_t *d_tokens, const int32_t *d_perm,
                              const int32_t *d_inverse, const int64_t *d_word_offsets, cudaStream_t stream,
                              void *user);

static sk_status example_order_chunks(const sk_csr_chunk_plan *plan, const int32_t *h_tokens, int32_t num_cols,
                                      cudaStream_t stream, example_chunk_fn *use_chunk, void *user) {
  int64_t num_chunks = 0, max_tokens = 0;
  sk_csr_chunk_info info;
  sk_status st = sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  for (int64_t c = 0; c < num_chunks && st == SK_SUCCESS; ++c) {
    st = sk_csr_chunk_plan_chunk(plan, c, &info);
    if (info.num_tokens > max_tokens) max_tokens = info.num_tokens;
  }
  size_t workspace_bytes = 0;
  if (st == SK_SUCCESS) st = sk_csr_chunk_order_device_workspace_size(max_tokens, num_cols, &workspace_bytes);
  if (st != SK_SUCCESS) return st;

  int32_t *d_tokens = NULL, *d_perm = NULL, *d_inverse = NULL;
  int64_t *d_word_offsets = NULL;
  void *d_workspace = NULL;
  const size_t slots = (size_t)max_tokens + 1;  // + 1: no allocation of 0 bytes
  if (cudaMalloc(&d_tokens, slots * sizeof(int32_t)) != cudaSuccess ||
      cudaMalloc(&d_perm, slots * sizeof(int32_t)) != cudaSuccess ||
      cudaMalloc(&d_inverse, slots * sizeof(int32_t)) != cudaSuccess ||
      cudaMalloc(&d_word_offsets, ((size_t)num_cols + 1) * sizeof(int64_t)) != cudaSuccess ||
      cudaMalloc(&d_workspace, workspace_bytes + 1) != cudaSuccess)
    st = SK_ERROR_CUDA_ALLOCATION_FAILED;
  for (int64_t c = 0; c < num_chunks && st == SK_SUCCESS; ++c) {
    st = sk_csr_chunk_plan_chunk(plan, c, &info);
    if (st == SK_SUCCESS && cudaMemcpyAsync(d_tokens, h_tokens + info.first_token,
                                            (size_t)info.num_tokens * sizeof(int32_t), cudaMemcpyHostToDevice,
                                            stream) != cudaSuccess)
      st = SK_ERROR_CUDA;
    if (st == SK_SUCCESS)
      st = sk_csr_chunk_order_device(d_tokens, info.num_tokens, num_cols, d_perm, d_inverse, d_word_offsets,
                                     d_workspace, workspace_bytes, stream);
    if (st == SK_SUCCESS) use_chunk(&info, d_tokens, d_perm, d_inverse, d_word_offsets, stream, user);
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess && st == SK_SUCCESS) st = SK_ERROR_CUDA;
  (void)cudaFree(d_tokens);
  (void)cudaFree(d_perm);
  (void)cudaFree(d_inverse);
  (void)cudaFree(d_word_offsets);
  (void)cudaFree(d_workspace);
  return st;
}
//! [csr_chunk_order_device_usage]

//! [csr_chunk_groups_device_usage]
// A chunk's word order and then its groups and items on the device, from its rows (num_rows + 1
// offsets, which need not start at 0) and tokens already there. The arrays have room for num_tokens
// entries (num_tokens + 1 for group_start): how many groups and items there are is known on the
// device only, in counts[0] and counts[1]. One workspace, sized for the larger of the two calls,
// serves both, one after the other on the stream.
typedef struct {
  int32_t *perm, *inverse;                               // num_tokens each
  int64_t *word_offsets;                                 // num_cols + 1
  int32_t *group_start, *group_row;                      // num_tokens + 1, num_tokens
  int32_t *item_word, *item_group, *item_end;            // num_tokens each
  int64_t *counts;                                       // 2: the groups, the items
} example_chunk_work;

static sk_status example_chunk_groups(const int64_t *d_row_offsets, int64_t num_rows, const int32_t *d_tokens,
                                      int64_t num_tokens, int32_t num_cols, int32_t item_tokens,
                                      const example_chunk_work *d, cudaStream_t stream) {
  size_t order_bytes = 0, groups_bytes = 0;
  sk_status st = sk_csr_chunk_order_device_workspace_size(num_tokens, num_cols, &order_bytes);
  if (st == SK_SUCCESS) st = sk_csr_chunk_groups_device_workspace_size(num_tokens, &groups_bytes);
  if (st != SK_SUCCESS) return st;
  const size_t bytes = order_bytes > groups_bytes ? order_bytes : groups_bytes;
  void *d_workspace = NULL;
  if (bytes > 0 && cudaMalloc(&d_workspace, bytes) != cudaSuccess) return SK_ERROR_CUDA_ALLOCATION_FAILED;
  st = sk_csr_chunk_order_device(d_tokens, num_tokens, num_cols, d->perm, d->inverse, d->word_offsets, d_workspace,
                                 bytes, stream);
  if (st == SK_SUCCESS)
    st = sk_csr_chunk_groups_device(d_row_offsets, num_rows, d_tokens, num_tokens, num_cols, d->perm, d->word_offsets,
                                    item_tokens, d->group_start, d->group_row, d->item_word, d->item_group,
                                    d->item_end, d->counts, d_workspace, bytes, stream);
  // The work must be done before the workspace is freed (a real sampler keeps it for every chunk).
  if (cudaStreamSynchronize(stream) != cudaSuccess && st == SK_SUCCESS) st = SK_ERROR_CUDA;
  (void)cudaFree(d_workspace);
  return st;
}
//! [csr_chunk_groups_device_usage]

#define POISON_BYTE 0x7f
#define POISON_WORD 0x7f7f7f7f
#define POISON_OFFSET 0x7f7f7f7f7f7f7f7fll
#define GUARD_BYTES 4096  // after every device array: a write past its end shows here

// ---------------------------------------------------------------------------------------------------
// Inputs.

enum {
  kKindUniform,
  kKindZipf,
  kKindOneWord,
  kKindDistinct,
  kKindSorted,
  kKindReversed,
  kKindExtremes,
  kNumKinds
};
static const char *const kKindNames[kNumKinds] = {"uniform", "zipf 1.07",  "one word", "all distinct",
                                                  "sorted",  "reversed", "extremes 0 and V-1"};

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static uint32_t rand_below(uint64_t *rng, uint32_t bound) { return (uint32_t)(sk_test_rand_u64(rng) % bound); }

// Zipf-shaped words: rank r (0-based) with probability proportional to 1 / (r + 1)^s, s = 1.07 as in
// English text; ranks are mapped to word ids by a seeded random permutation, so that frequent words
// are spread over the vocabulary as in a real (alphabetical) one.
static void fill_zipf(int32_t *t, int64_t n, int32_t num_cols, uint64_t *rng) {
  double *cdf = (double *)xmalloc(sizeof(double) * (size_t)num_cols);
  int32_t *word = (int32_t *)xmalloc(sizeof(int32_t) * (size_t)num_cols);
  double sum = 0.0;
  for (int32_t r = 0; r < num_cols; ++r) {
    sum += pow((double)r + 1.0, -1.07);
    cdf[r] = sum;
    word[r] = r;
  }
  for (int32_t r = num_cols - 1; r > 0; --r) {
    const uint32_t k = rand_below(rng, (uint32_t)r + 1u);
    const int32_t x = word[r];
    word[r] = word[k];
    word[k] = x;
  }
  for (int64_t i = 0; i < n; ++i) {
    const double u = (double)(sk_test_rand_u64(rng) >> 11) * 0x1p-53 * sum;
    int32_t lo = 0, hi = num_cols - 1;
    while (lo < hi) {
      const int32_t mid = lo + (hi - lo) / 2;
      if (cdf[mid] <= u)
        lo = mid + 1;
      else
        hi = mid;
    }
    t[i] = word[lo];
  }
  free(cdf);
  free(word);
}

// n tokens over num_cols >= 1 words of the given kind.
static void fill_tokens(int32_t *t, int64_t n, int32_t num_cols, int kind, uint64_t *rng) {
  const uint32_t v = (uint32_t)num_cols;
  switch (kind) {
    case kKindZipf:
      fill_zipf(t, n, num_cols, rng);
      return;
    case kKindOneWord: {
      const int32_t w = (int32_t)rand_below(rng, v);
      for (int64_t i = 0; i < n; ++i) t[i] = w;
      return;
    }
    case kKindDistinct: {
      // Every word at most once when n <= num_cols (else as evenly as possible), in random order.
      if (n <= (int64_t)num_cols) {
        // A random n-subset of the words: Floyd's algorithm would need a set; a partial shuffle of
        // the whole vocabulary is simple and fast enough at these sizes.
        int32_t *all = (int32_t *)xmalloc(sizeof(int32_t) * (size_t)num_cols);
        for (uint32_t w = 0; w < v; ++w) all[w] = (int32_t)w;
        for (int64_t i = 0; i < n; ++i) {
          const uint32_t k = (uint32_t)i + rand_below(rng, v - (uint32_t)i);
          const int32_t x = all[i];
          all[i] = all[k];
          all[k] = x;
          t[i] = all[i];
        }
        free(all);
      } else {
        for (int64_t i = 0; i < n; ++i) t[i] = (int32_t)(i % num_cols);
        for (int64_t i = n - 1; i > 0; --i) {
          const uint32_t k = rand_below(rng, (uint32_t)i + 1u);
          const int32_t x = t[i];
          t[i] = t[k];
          t[k] = x;
        }
      }
      return;
    }
    case kKindExtremes:
      for (int64_t i = 0; i < n; ++i) t[i] = sk_test_rand_u32(rng) & 1u ? num_cols - 1 : 0;
      return;
    default:  // uniform, sorted, reversed
      for (int64_t i = 0; i < n; ++i) t[i] = (int32_t)rand_below(rng, v);
      if (kind == kKindSorted || kind == kKindReversed) qsort(t, (size_t)n, sizeof *t, cmp_i32);
      if (kind == kKindReversed)
        for (int64_t i = 0; i < n / 2; ++i) {
          const int32_t x = t[i];
          t[i] = t[n - 1 - i];
          t[n - 1 - i] = x;
        }
      return;
  }
}

// ---------------------------------------------------------------------------------------------------
// The structure every order must have, whatever the tokens: perm a permutation of [0, n), inverse its
// inverse, offsets from 0 to n, non-decreasing, and every token inside [0, num_cols) within its word's
// range. NULL when it holds; otherwise the first defect, described.

static const char *structure_defect(const int32_t *tokens, int64_t n, int32_t num_cols, const int32_t *perm,
                                    const int32_t *inverse, const int64_t *offsets) {
  static char why[256];
  const char *defect = NULL;
  if (offsets[0] != 0 || offsets[num_cols] != n) {
    snprintf(why, sizeof why, "offsets[0] = %lld, offsets[V] = %lld (n = %lld)", (long long)offsets[0],
             (long long)offsets[num_cols], (long long)n);
    return why;
  }
  for (int32_t w = 0; w < num_cols; ++w)
    if (offsets[w] > offsets[w + 1]) {
      snprintf(why, sizeof why, "offsets[%d] = %lld > offsets[%d] = %lld", w, (long long)offsets[w], w + 1,
               (long long)offsets[w + 1]);
      return why;
    }
  unsigned char *seen = (unsigned char *)calloc((size_t)n + 1, 1);
  for (int64_t j = 0; j < n && defect == NULL; ++j) {
    const int32_t p = perm[j];
    if (p < 0 || p >= n || seen[p]) {
      snprintf(why, sizeof why, "perm[%lld] = %d is out of range or repeated", (long long)j, p);
      defect = why;
    } else if (inverse[p] != j) {
      snprintf(why, sizeof why, "inverse[perm[%lld] = %d] = %d", (long long)j, p, inverse[p]);
      defect = why;
    } else {
      seen[p] = 1;
    }
  }
  free(seen);
  for (int32_t w = 0; w < num_cols && defect == NULL; ++w)
    for (int64_t j = offsets[w]; j < offsets[w + 1] && defect == NULL; ++j) {
      const int32_t t = tokens[perm[j]];
      if (t >= 0 && t < num_cols && t != w) {
        snprintf(why, sizeof why, "position %lld is in word %d's range but holds word %d", (long long)j, w, t);
        defect = why;
      }
    }
  return defect;
}

// ---------------------------------------------------------------------------------------------------
// Host: argument checks, none of which may reach CUDA (on a machine without a GPU a call that did
// would record a CUDA error).

static void test_api_arguments(void) {
  static int32_t tokens[64], perm[64], inverse[64];
  static int64_t offsets[64];
  static unsigned char ws[8192];
  size_t bytes = 12345;
  sk_clear_cuda_error();

  sk_test_context("sk_csr_chunk_order_device_workspace_size arguments");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(10, 10, NULL) == SK_ERROR_NULL_POINTER, "workspace_bytes NULL");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(-1, 10, &bytes) == SK_ERROR_INVALID_VALUE && bytes == 12345,
           "max_tokens -1");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size((int64_t)INT32_MAX + 1, 10, &bytes) == SK_ERROR_INVALID_VALUE,
           "max_tokens 2^31");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(INT64_MIN, 10, &bytes) == SK_ERROR_INVALID_VALUE,
           "max_tokens INT64_MIN");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(10, -1, &bytes) == SK_ERROR_INVALID_VALUE, "num_cols -1");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(-1, 10, NULL) == SK_ERROR_NULL_POINTER, "pointer before values");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(0, 100000, &bytes) == SK_SUCCESS && bytes == 0, "no tokens: 0");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(0, 0, &bytes) == SK_SUCCESS && bytes == 0, "no tokens, no words");
  // At most one word: nothing to sort, so no CUB storage and no CUDA query: 255 + 2 * 256 * ceil(4 n / 256).
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(10, 1, &bytes) == SK_SUCCESS && bytes == 255 + 2 * 256,
           "10 tokens, 1 word: %zu bytes", bytes);
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(65, 0, &bytes) == SK_SUCCESS && bytes == 255 + 2 * 512,
           "65 tokens, 0 words: %zu bytes", bytes);
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(INT32_MAX, 1, &bytes) == SK_SUCCESS &&
               bytes == 255 + 2 * (((size_t)INT32_MAX * 4 + 255) / 256 * 256),
           "2^31 - 1 tokens, 1 word: %zu bytes", bytes);

  sk_test_context("sk_csr_chunk_order_device arguments");
  const size_t wsb = sizeof ws;
  // Values first.
  SK_CHECK(sk_csr_chunk_order_device(tokens, -1, 10, perm, inverse, offsets, ws, wsb, 0) == SK_ERROR_INVALID_VALUE,
           "num_tokens -1");
  SK_CHECK(sk_csr_chunk_order_device(tokens, (int64_t)INT32_MAX + 1, 10, perm, inverse, offsets, ws, wsb, 0) ==
               SK_ERROR_INVALID_VALUE,
           "num_tokens 2^31");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, -1, perm, inverse, offsets, ws, wsb, 0) == SK_ERROR_INVALID_VALUE,
           "num_cols -1");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 0, perm, inverse, offsets, ws, wsb, 0) == SK_ERROR_INVALID_VALUE,
           "tokens but no words");
  SK_CHECK(sk_csr_chunk_order_device(NULL, -1, 10, NULL, NULL, NULL, NULL, 0, 0) == SK_ERROR_INVALID_VALUE,
           "values before pointers");
  // Pointers.
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, NULL, ws, wsb, 0) == SK_ERROR_NULL_POINTER,
           "offsets NULL");
  SK_CHECK(sk_csr_chunk_order_device(NULL, 0, 10, NULL, NULL, NULL, NULL, 0, 0) == SK_ERROR_NULL_POINTER,
           "offsets NULL without tokens");
  SK_CHECK(sk_csr_chunk_order_device(NULL, 8, 10, perm, inverse, offsets, ws, wsb, 0) == SK_ERROR_NULL_POINTER,
           "tokens NULL");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, NULL, inverse, offsets, ws, wsb, 0) == SK_ERROR_NULL_POINTER,
           "perm NULL");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, NULL, offsets, ws, wsb, 0) == SK_ERROR_NULL_POINTER,
           "inverse NULL");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, offsets, NULL, wsb, 0) == SK_ERROR_NULL_POINTER,
           "workspace NULL");
  SK_CHECK(sk_csr_chunk_order_device(NULL, 8, 10, perm, inverse, offsets, ws, 0, 0) == SK_ERROR_NULL_POINTER,
           "pointers before the workspace size");
  // Overlaps.
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, tokens, inverse, offsets, ws, wsb, 0) == SK_ERROR_INVALID_VALUE,
           "perm = tokens");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, perm + 7, offsets, ws, wsb, 0) == SK_ERROR_INVALID_VALUE,
           "inverse starts on perm's last entry");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, (int64_t *)(void *)(tokens + 6), ws, wsb, 0) ==
               SK_ERROR_INVALID_VALUE,
           "offsets inside the tokens");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, offsets, perm + 4, 64, 0) == SK_ERROR_INVALID_VALUE,
           "workspace over perm");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, offsets, (void *)(offsets + 10), 8, 0) ==
               SK_ERROR_INVALID_VALUE,
           "workspace over the offsets' last entry");
  // The workspace's fixed part (255 + 2 * 256 for 8 tokens) is checked before any CUDA call.
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, offsets, ws, 0, 0) == SK_ERROR_WORKSPACE_TOO_SMALL,
           "workspace of 0 bytes");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, inverse, offsets, ws, 255 + 2 * 256 - 1, 0) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "workspace one byte below its fixed part");
  SK_CHECK(sk_csr_chunk_order_device(tokens, 8, 10, perm, perm + 8, offsets, ws, 100, 0) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "adjacent arrays are not overlaps");
  sk_test_context("argument checks");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA (error %d recorded)", sk_last_cuda_error());

  // A size that needs CUB's answer asks the device: with one, a size above the two arrays; without
  // one, a 2xx status and the output untouched.
  sk_test_context("sk_csr_chunk_order_device_workspace_size with a CUDA query");
  bytes = 12345;
  const sk_status st = sk_csr_chunk_order_device_workspace_size(1000, 100000, &bytes);
  if (st == SK_SUCCESS)
    SK_CHECK(bytes >= 255 + 2 * 4096 && bytes != 12345, "%zu bytes for 1000 tokens", bytes);
  else
    SK_CHECK(st >= 200 && st < 300 && bytes == 12345, "status %s (%d), bytes %zu", sk_status_name(st), (int)st, bytes);
}

// Host: the structure checker accepts the host order and rejects each planted defect.
static void test_checker(void) {
  enum { kN = 500, kV = 37 };
  static int32_t tokens[kN], perm[kN], inverse[kN];
  static int64_t offsets[kV + 1];
  uint64_t rng = 4242;
  fill_tokens(tokens, kN, kV, kKindZipf, &rng);
  sk_test_context("structure checker");
  if (!SK_CHECK(sk_csr_chunk_order_host(tokens, kN, kV, perm, inverse, offsets) == SK_SUCCESS, "host order failed"))
    return;
  const char *why = structure_defect(tokens, kN, kV, perm, inverse, offsets);
  SK_CHECK(why == NULL, "the host order is rejected: %s", why);
  int32_t x = perm[3];
  perm[3] = perm[4], perm[4] = x;  // the inverse no longer matches
  SK_CHECK(structure_defect(tokens, kN, kV, perm, inverse, offsets) != NULL, "swapped perm entries accepted");
  perm[4] = perm[3], perm[3] = x;
  ++offsets[kV / 2];  // a token leaves its word's range (or the range becomes inverted)
  SK_CHECK(structure_defect(tokens, kN, kV, perm, inverse, offsets) != NULL, "a moved offset accepted");
  --offsets[kV / 2];
  x = perm[0], perm[0] = perm[1];  // a repeated position
  SK_CHECK(structure_defect(tokens, kN, kV, perm, inverse, offsets) != NULL, "a repeated position accepted");
  perm[0] = x;
  offsets[kV] = kN - 1;
  SK_CHECK(structure_defect(tokens, kN, kV, perm, inverse, offsets) != NULL, "a wrong total accepted");
  offsets[kV] = kN;
  why = structure_defect(tokens, kN, kV, perm, inverse, offsets);
  SK_CHECK(why == NULL, "the restored order is rejected: %s", why);
}

// ---------------------------------------------------------------------------------------------------
// GPU: device buffers reused across cases, each array followed by GUARD_BYTES of poison.

typedef struct {
  int32_t *tokens, *perm, *inverse;
  int64_t *offsets;
  unsigned char *workspace;
  size_t tokens_cap, perm_cap, inverse_cap, offsets_cap, workspace_cap;  // elements (bytes for the workspace)
} device_buffers;

static device_buffers g_dev;
static cudaStream_t g_stream;

static void grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap && *p != NULL) return;
  if (*p != NULL) SK_CHECK_CUDA(cudaFree(*p));
  *cap = need < 1024 ? 1024 : need;
  SK_CHECK_CUDA(cudaMalloc(p, *cap * elem + GUARD_BYTES));
}

// Room for n tokens, num_cols words and a workspace of workspace_bytes at any shift below 256 with
// 256 guard bytes after it.
static void reserve(int64_t n, int32_t num_cols, size_t workspace_bytes) {
  grow((void **)&g_dev.tokens, &g_dev.tokens_cap, (size_t)n, sizeof(int32_t));
  grow((void **)&g_dev.perm, &g_dev.perm_cap, (size_t)n, sizeof(int32_t));
  grow((void **)&g_dev.inverse, &g_dev.inverse_cap, (size_t)n, sizeof(int32_t));
  grow((void **)&g_dev.offsets, &g_dev.offsets_cap, (size_t)num_cols + 1, sizeof(int64_t));
  grow((void **)&g_dev.workspace, &g_dev.workspace_cap, workspace_bytes + 512, 1);
}

static void free_buffers(void) {
  SK_CHECK_CUDA(cudaFree(g_dev.tokens));
  SK_CHECK_CUDA(cudaFree(g_dev.perm));
  SK_CHECK_CUDA(cudaFree(g_dev.inverse));
  SK_CHECK_CUDA(cudaFree(g_dev.offsets));
  SK_CHECK_CUDA(cudaFree(g_dev.workspace));
  memset(&g_dev, 0, sizeof g_dev);
}

// Poisons the outputs and the guards after them (n tokens, num_cols words).
static void poison_outputs(int64_t n, int32_t num_cols) {
  SK_CHECK_CUDA(cudaMemset(g_dev.perm, POISON_BYTE, (size_t)n * 4 + GUARD_BYTES));
  SK_CHECK_CUDA(cudaMemset(g_dev.inverse, POISON_BYTE, (size_t)n * 4 + GUARD_BYTES));
  SK_CHECK_CUDA(cudaMemset(g_dev.offsets, POISON_BYTE, ((size_t)num_cols + 1) * 8 + GUARD_BYTES));
}

static int guard_intact(const void *d_array_end) {
  static unsigned char h[GUARD_BYTES];
  SK_CHECK_CUDA(cudaMemcpy(h, d_array_end, GUARD_BYTES, cudaMemcpyDeviceToHost));
  for (int i = 0; i < GUARD_BYTES; ++i)
    if (h[i] != POISON_BYTE) return 0;
  return 1;
}

// Whether the three outputs' guards still hold poison.
static int guards_intact(int64_t n, int32_t num_cols) {
  return guard_intact(g_dev.perm + n) && guard_intact(g_dev.inverse + n) &&
         guard_intact(g_dev.offsets + (size_t)num_cols + 1);
}

typedef struct {
  int64_t max_tokens;  // the workspace is sized for this many tokens (>= n)
  size_t ws_shift;     // the workspace starts this many bytes into its allocation
  int use_stream;      // g_stream instead of the legacy default stream
} run_options;

// Orders h_tokens on the device with the given options; copies the outputs back. The status of the call.
static sk_status run_device(const int32_t *h_tokens, int64_t n, int32_t num_cols, const run_options *o,
                            int32_t *perm, int32_t *inverse, int64_t *offsets) {
  size_t ws_bytes = 0;
  const sk_status sized = sk_csr_chunk_order_device_workspace_size(o->max_tokens, num_cols, &ws_bytes);
  if (!SK_CHECK(sized == SK_SUCCESS, "workspace size query: %s", sk_status_name(sized))) return sized;
  reserve(o->max_tokens, num_cols, ws_bytes);
  if (n > 0) SK_CHECK_CUDA(cudaMemcpy(g_dev.tokens, h_tokens, (size_t)n * 4, cudaMemcpyHostToDevice));
  poison_outputs(n, num_cols);
  // The bytes just before and just after the workspace: the call must not touch them.
  SK_CHECK_CUDA(cudaMemset(g_dev.workspace, POISON_BYTE, o->ws_shift));
  SK_CHECK_CUDA(cudaMemset(g_dev.workspace + o->ws_shift + ws_bytes, POISON_BYTE, 256));
  // The copies and memsets above go to the legacy default stream, which g_stream (non-blocking) does not
  // wait for: without this the poison could land after the call's own writes (seen with other programs
  // sharing the GPU, which stretch the memsets' timing).
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  const cudaStream_t s = o->use_stream ? g_stream : 0;
  const sk_status st = sk_csr_chunk_order_device(n > 0 ? g_dev.tokens : NULL, n, num_cols, n > 0 ? g_dev.perm : NULL,
                                                 n > 0 ? g_dev.inverse : NULL, g_dev.offsets,
                                                 ws_bytes > 0 ? g_dev.workspace + o->ws_shift : NULL, ws_bytes, s);
  SK_CHECK_CUDA(cudaStreamSynchronize(s));
  SK_CHECK_CUDA(cudaGetLastError());
  if (n > 0) {
    SK_CHECK_CUDA(cudaMemcpy(perm, g_dev.perm, (size_t)n * 4, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(inverse, g_dev.inverse, (size_t)n * 4, cudaMemcpyDeviceToHost));
  }
  SK_CHECK_CUDA(cudaMemcpy(offsets, g_dev.offsets, ((size_t)num_cols + 1) * 8, cudaMemcpyDeviceToHost));
  unsigned char before[256], after[256];
  SK_CHECK_CUDA(cudaMemcpy(before, g_dev.workspace, o->ws_shift, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(after, g_dev.workspace + o->ws_shift + ws_bytes, 256, cudaMemcpyDeviceToHost));
  int outside = 0;
  for (size_t i = 0; i < 256; ++i) outside += (i < o->ws_shift && before[i] != POISON_BYTE) || after[i] != POISON_BYTE;
  SK_CHECK(outside == 0, "%d bytes just outside the workspace were written", outside);
  return st;
}

// One case: the device's three outputs against the host's, bit for bit.
static void check_case(int seed, int64_t n, int32_t num_cols, int kind, const run_options *o) {
  uint64_t rng = ((uint64_t)seed << 40) ^ ((uint64_t)n << 8) ^ (uint64_t)num_cols * 0x9E3779B97F4A7C15ull ^ (uint64_t)kind;
  int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
  int32_t *ref_perm = (int32_t *)xmalloc((size_t)n * 4), *ref_inverse = (int32_t *)xmalloc((size_t)n * 4);
  int32_t *perm = (int32_t *)xmalloc((size_t)n * 4), *inverse = (int32_t *)xmalloc((size_t)n * 4);
  int64_t *ref_offsets = (int64_t *)xmalloc(((size_t)num_cols + 1) * 8);
  int64_t *offsets = (int64_t *)xmalloc(((size_t)num_cols + 1) * 8);
  if (num_cols > 0) fill_tokens(tokens, n, num_cols, kind, &rng);
  sk_test_context("seed=%d n=%lld V=%d words=%s workspace for %lld tokens at +%zu, %s stream", seed, (long long)n,
                  num_cols, kKindNames[kind], (long long)o->max_tokens, o->ws_shift,
                  o->use_stream ? "own" : "default");
  const sk_status ref = sk_csr_chunk_order_host(tokens, n, num_cols, ref_perm, ref_inverse, ref_offsets);
  if (SK_CHECK(ref == SK_SUCCESS, "host order: %s", sk_status_name(ref))) {
    const sk_status st = run_device(tokens, n, num_cols, o, perm, inverse, offsets);
    if (SK_CHECK(st == SK_SUCCESS, "device order: %s (CUDA: %s)", sk_status_name(st), sk_last_cuda_error_string())) {
      int64_t i = sk_test_first_difference(perm, ref_perm, n, 4);
      SK_CHECK(i < 0, "perm[%lld] = %d, host %d", (long long)i, i >= 0 ? perm[i] : 0, i >= 0 ? ref_perm[i] : 0);
      i = sk_test_first_difference(inverse, ref_inverse, n, 4);
      SK_CHECK(i < 0, "inverse[%lld] = %d, host %d", (long long)i, i >= 0 ? inverse[i] : 0,
               i >= 0 ? ref_inverse[i] : 0);
      i = sk_test_first_difference(offsets, ref_offsets, (int64_t)num_cols + 1, 8);
      SK_CHECK(i < 0, "word_offsets[%lld] = %lld, host %lld", (long long)i, i >= 0 ? (long long)offsets[i] : 0,
               i >= 0 ? (long long)ref_offsets[i] : 0);
      SK_CHECK(guards_intact(n, num_cols), "a write past the end of an output");
    }
  }
  free(tokens), free(ref_perm), free(ref_inverse), free(perm), free(inverse), free(ref_offsets), free(offsets);
}

static void check_case_default(int seed, int64_t n, int32_t num_cols, int kind) {
  const run_options o = {n, (size_t)(seed % 3) * 100, seed & 1};  // shifts 0, 100, 200: any base address
  check_case(seed, n, num_cols, kind, &o);
}

// Sizes: tiny, a warp's edges, a block's, the edges of CUB's single-tile sort (256 x 19 items) and of
// its onesweep tiles (384 x 23) on sm_90 with CCCL 3.0, a prime, 2^16 + 1.
static const int64_t kSizes[] = {1, 2, 31, 32, 33, 255, 256, 257, 1000, 4863, 4864, 4865, 8831, 8832, 8833, 9973,
                                 17665, 65537};
static const int32_t kCols[] = {1, 2, 3, 1000, 100000, 140000};

static void test_sweep(int seed) {
  for (size_t a = 0; a < sizeof kSizes / sizeof kSizes[0]; ++a)
    for (size_t c = 0; c < sizeof kCols / sizeof kCols[0]; ++c)
      for (int k = 0; k < kNumKinds; ++k) check_case_default(seed, kSizes[a], kCols[c], k);
}

// Large chunks and vocabularies (the first seeds only: each takes a noticeable fraction of a second).
static void test_large(int seed) {
  const int32_t big_cols[] = {100000, 1 << 20, 1 << 24};
  for (size_t c = 0; c < 3; ++c) {
    check_case_default(seed, 1000003, big_cols[c], kKindUniform);
    if (big_cols[c] <= (1 << 20)) check_case_default(seed, 1000003, big_cols[c], kKindZipf);
    check_case_default(seed, 1000003, big_cols[c], kKindOneWord);
  }
  // More words than tokens, up to 25 bits of word id: most words empty.
  const int32_t wide[] = {1 << 24, (1 << 24) + 1};
  for (size_t c = 0; c < 2; ++c) {
    check_case_default(seed, 1, wide[c], kKindUniform);
    check_case_default(seed, 1000, wide[c], kKindDistinct);
    check_case_default(seed, 1000, wide[c], kKindExtremes);
  }
  if (seed == 0) {
    check_case_default(seed, 10000000, 100000, kKindZipf);  // ~10^7 tokens, a NYTimes-like vocabulary
    check_case_default(seed, 9999991, 140000, kKindUniform);  // a prime
  }
}

// No tokens: the offsets are all zeros, whatever was there; NULL arrays and workspace are fine.
static void test_no_tokens(void) {
  const int32_t cols[] = {0, 1, 5, 1 << 20};
  for (size_t c = 0; c < 4; ++c) {
    const int32_t v = cols[c];
    int64_t *offsets = (int64_t *)xmalloc(((size_t)v + 1) * 8);
    sk_test_context("no tokens, V=%d", v);
    reserve(0, v, 0);
    poison_outputs(0, v);
    const sk_status st = sk_csr_chunk_order_device(NULL, 0, v, NULL, NULL, g_dev.offsets, NULL, 0, 0);
    SK_CHECK_CUDA(cudaDeviceSynchronize());
    SK_CHECK_CUDA(cudaMemcpy(offsets, g_dev.offsets, ((size_t)v + 1) * 8, cudaMemcpyDeviceToHost));
    if (SK_CHECK(st == SK_SUCCESS, "status %s", sk_status_name(st))) {
      int64_t bad = -1;
      for (int64_t w = 0; w <= v && bad < 0; ++w)
        if (offsets[w] != 0) bad = w;
      SK_CHECK(bad < 0, "offsets[%lld] = %lld, want 0", (long long)bad, bad >= 0 ? (long long)offsets[bad] : 0);
      SK_CHECK(guard_intact(g_dev.offsets + (size_t)v + 1), "a write past the offsets");
    }
    free(offsets);
  }
}

// Workspaces: sized for larger chunks and at odd addresses (results as always); one byte short (no
// launch, outputs untouched); the query never shrinks as max_tokens grows.
static void test_workspaces(void) {
  const run_options bigger = {1 << 20, 4, 1}, odd = {70000, 255, 0};
  check_case(3, 70000, 100000, kKindZipf, &bigger);
  check_case(4, 70000, 100000, kKindUniform, &odd);
  check_case(5, 5000, 1 << 20, kKindSorted, &bigger);

  const int32_t v = 100000;
  const int64_t n = 70000;
  size_t need = 0;
  sk_test_context("workspace one byte short (n=%lld V=%d)", (long long)n, v);
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(n, v, &need) == SK_SUCCESS, "size query");
  reserve(n, v, need);
  poison_outputs(n, v);
  SK_CHECK(sk_csr_chunk_order_device(g_dev.tokens, n, v, g_dev.perm, g_dev.inverse, g_dev.offsets, g_dev.workspace,
                                     need - 1, 0) == SK_ERROR_WORKSPACE_TOO_SMALL,
           "want SK_ERROR_WORKSPACE_TOO_SMALL");
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  int32_t first[2];
  int64_t first_offset;
  SK_CHECK_CUDA(cudaMemcpy(first, g_dev.perm, sizeof first, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(&first_offset, g_dev.offsets, sizeof first_offset, cudaMemcpyDeviceToHost));
  SK_CHECK(first[0] == POISON_WORD && first[1] == POISON_WORD && first_offset == POISON_OFFSET,
           "a rejected call wrote its outputs");

  const int32_t cols[] = {2, 1000, 100000, 1 << 24};
  const int64_t sizes[] = {0, 1, 31, 32, 1000, 4864, 4865, 8832, 8833, 100000, 1000000, 100000000, INT32_MAX};
  for (size_t c = 0; c < 4; ++c) {
    size_t prev = 0;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; ++a) {
      size_t b = 0;
      sk_test_context("workspace size, V=%d, max_tokens=%lld", cols[c], (long long)sizes[a]);
      SK_CHECK(sk_csr_chunk_order_device_workspace_size(sizes[a], cols[c], &b) == SK_SUCCESS, "size query");
      SK_CHECK(b >= prev, "%zu bytes, below the %zu of a smaller max_tokens", b, prev);
      SK_CHECK(sizes[a] == 0 || b >= 255 + 2 * (size_t)sizes[a] * 4, "%zu bytes: less than the two arrays", b);
      prev = b;
    }
  }
}

// Tokens outside [0, num_cols): no write outside the arrays; the documented structure holds.
static void test_out_of_range(int seed) {
  const int32_t cols[] = {1, 5, 1000, 1 << 20};
  const int64_t sizes[] = {1, 33, 5000, 100000};
  const int32_t bad[] = {-1, INT32_MIN, INT32_MAX, 0 /* num_cols */, 1 /* num_cols + 1 */};
  for (size_t c = 0; c < 4; ++c)
    for (size_t a = 0; a < 4; ++a) {
      const int32_t v = cols[c];
      const int64_t n = sizes[a];
      uint64_t rng = 777 + (uint64_t)seed * 1000003u + c * 31 + a;
      int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
      int32_t *perm = (int32_t *)xmalloc((size_t)n * 4), *inverse = (int32_t *)xmalloc((size_t)n * 4);
      int64_t *offsets = (int64_t *)xmalloc(((size_t)v + 1) * 8);
      fill_tokens(tokens, n, v, kKindUniform, &rng);
      for (int64_t i = 0; i < n; ++i)
        if (i == 0 || sk_test_rand_u32(&rng) % 4u == 0) {
          const int b = (int)(sk_test_rand_u32(&rng) % 5u);
          tokens[i] = b == 3 ? v : b == 4 ? v + 1 : bad[b];
        }
      sk_test_context("seed=%d out-of-range tokens, n=%lld V=%d", seed, (long long)n, v);
      const run_options o = {n, 0, 0};
      const sk_status st = run_device(tokens, n, v, &o, perm, inverse, offsets);
      if (SK_CHECK(st == SK_SUCCESS, "status %s", sk_status_name(st))) {
        SK_CHECK(guards_intact(n, v), "a write past the end of an output");
        const char *why = structure_defect(tokens, n, v, perm, inverse, offsets);
        SK_CHECK(why == NULL, "device order: %s", why);
      }
      free(tokens), free(perm), free(inverse), free(offsets);
    }
}

// An error left by earlier work: reported as SK_ERROR_CUDA_PENDING, nothing launched, and the next
// call works.
static void test_pending_error(void) {
  int count = 0;
  SK_CHECK_CUDA(cudaGetDeviceCount(&count));
  const int64_t n = 1000;
  const int32_t v = 100;
  size_t need = 0;
  sk_test_context("pending CUDA error");
  SK_CHECK(sk_csr_chunk_order_device_workspace_size(n, v, &need) == SK_SUCCESS, "size query");
  reserve(n, v, need);
  poison_outputs(n, v);
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  SK_CHECK(cudaSetDevice(count) != cudaSuccess, "cudaSetDevice(%d) should fail", count);  // leaves the error pending
  const sk_status st = sk_csr_chunk_order_device(g_dev.tokens, n, v, g_dev.perm, g_dev.inverse, g_dev.offsets,
                                                 g_dev.workspace, need, 0);
  SK_CHECK(st == SK_ERROR_CUDA_PENDING, "status %s, want SK_ERROR_CUDA_PENDING", sk_status_name(st));
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  int64_t first_offset = 0;
  SK_CHECK_CUDA(cudaMemcpy(&first_offset, g_dev.offsets, sizeof first_offset, cudaMemcpyDeviceToHost));
  SK_CHECK(first_offset == POISON_OFFSET, "the call launched work");
  const run_options o = {n, 0, 0};
  check_case(6, n, v, kKindZipf, &o);
}

// The usage snippet over a plan of a random corpus (empty rows, long rows): every chunk's outputs,
// read back in the snippet's callback, against the host order of that chunk.
typedef struct {
  const int32_t *h_tokens;
  int32_t num_cols;
  int chunks_seen;
} snippet_state;

static void snippet_check_chunk(const sk_csr_chunk_info *info, const int32_t *d_tokens, const int32_t *d_perm,
                                const int32_t *d_inverse, const int64_t *d_word_offsets, cudaStream_t stream,
                                void *user) {
  snippet_state *s = (snippet_state *)user;
  const int64_t n = info->num_tokens;
  const int32_t v = s->num_cols;
  int32_t *perm = (int32_t *)xmalloc((size_t)n * 4), *inverse = (int32_t *)xmalloc((size_t)n * 4);
  int32_t *ref_perm = (int32_t *)xmalloc((size_t)n * 4), *ref_inverse = (int32_t *)xmalloc((size_t)n * 4);
  int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
  int64_t *offsets = (int64_t *)xmalloc(((size_t)v + 1) * 8), *ref_offsets = (int64_t *)xmalloc(((size_t)v + 1) * 8);
  SK_CHECK_CUDA(cudaMemcpyAsync(tokens, d_tokens, (size_t)n * 4, cudaMemcpyDeviceToHost, stream));
  SK_CHECK_CUDA(cudaMemcpyAsync(perm, d_perm, (size_t)n * 4, cudaMemcpyDeviceToHost, stream));
  SK_CHECK_CUDA(cudaMemcpyAsync(inverse, d_inverse, (size_t)n * 4, cudaMemcpyDeviceToHost, stream));
  SK_CHECK_CUDA(cudaMemcpyAsync(offsets, d_word_offsets, ((size_t)v + 1) * 8, cudaMemcpyDeviceToHost, stream));
  SK_CHECK_CUDA(cudaStreamSynchronize(stream));
  sk_test_context("usage snippet, chunk at token %lld (%lld tokens)", (long long)info->first_token, (long long)n);
  SK_CHECK(sk_test_first_difference(tokens, s->h_tokens + info->first_token, n, 4) < 0,
           "the chunk's tokens were not copied");
  SK_CHECK(sk_csr_chunk_order_host(s->h_tokens + info->first_token, n, v, ref_perm, ref_inverse, ref_offsets) ==
               SK_SUCCESS,
           "host order");
  SK_CHECK(sk_test_first_difference(perm, ref_perm, n, 4) < 0, "perm differs");
  SK_CHECK(sk_test_first_difference(inverse, ref_inverse, n, 4) < 0, "inverse differs");
  SK_CHECK(sk_test_first_difference(offsets, ref_offsets, (int64_t)v + 1, 8) < 0, "offsets differ");
  ++s->chunks_seen;
  free(perm), free(inverse), free(ref_perm), free(ref_inverse), free(tokens), free(offsets), free(ref_offsets);
}

static void test_usage_snippet(void) {
  enum { kRows = 3000, kV = 5000 };
  static int64_t row_offsets[kRows + 1];
  uint64_t rng = 2024;
  row_offsets[0] = 0;
  for (int r = 0; r < kRows; ++r) {
    const uint32_t x = sk_test_rand_u32(&rng) % 100u;
    const int64_t len = x < 10 ? 0 : x < 98 ? (int64_t)(sk_test_rand_u32(&rng) % 300u) : 5000;  // empty, short, long
    row_offsets[r + 1] = row_offsets[r] + len;
  }
  const int64_t total = row_offsets[kRows];
  int32_t *tokens = (int32_t *)xmalloc((size_t)total * 4);
  fill_tokens(tokens, total, kV, kKindZipf, &rng);
  sk_csr_chunk_plan *plan = NULL;
  sk_test_context("usage snippet");
  // 10 bytes a token, a budget of about a sixth of the corpus: several chunks.
  SK_CHECK(sk_csr_chunk_plan_create(row_offsets, kRows, 10, 8, 0, (size_t)total * 10 / 6, &plan, NULL, NULL) ==
               SK_SUCCESS,
           "plan");
  int64_t num_chunks = 0;
  SK_CHECK(sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS && num_chunks >= 6, "%lld chunks",
           (long long)num_chunks);
  snippet_state s = {tokens, kV, 0};
  const sk_status st = example_order_chunks(plan, tokens, kV, g_stream, snippet_check_chunk, &s);
  sk_test_context("usage snippet");
  SK_CHECK(st == SK_SUCCESS, "status %s", sk_status_name(st));
  SK_CHECK(s.chunks_seen == num_chunks, "%d of %lld chunks handed over", s.chunks_seen, (long long)num_chunks);
  sk_csr_chunk_plan_destroy(plan);
  free(tokens);
}

// ---------------------------------------------------------------------------------------------------
// Groups and items: sk_csr_chunk_groups_device against sk_csr_chunk_groups_host with the rows of
// sk_csr_chunk_order_rows_host (which tests/test_csr_chunker.c checks against plain-C references), bit
// for bit.


static void groups_alloc(sk_test_groups *r, int64_t n) {
  const size_t b = ((size_t)n + 1) * sizeof(int32_t);
  r->num_groups = r->num_items = -1;
  r->group_start = (int32_t *)xmalloc(b);
  r->group_row = (int32_t *)xmalloc(b);
  r->item_word = (int32_t *)xmalloc(b);
  r->item_group = (int32_t *)xmalloc(b);
  r->item_end = (int32_t *)xmalloc(b);
}

static void groups_free(sk_test_groups *r) {
  free(r->group_start), free(r->group_row), free(r->item_word), free(r->item_group), free(r->item_end);
  memset(r, 0, sizeof *r);
}

// The host's order with rows and groups of a chunk; the arrays have room for n entries (+ 1).
static sk_status host_groups(const int64_t *off, int64_t rows, const int32_t *tokens, int64_t n, int32_t cols,
                             int32_t item_tokens, sk_test_groups *r) {
  int32_t *perm = (int32_t *)xmalloc((size_t)n * 4), *position_row = (int32_t *)xmalloc((size_t)n * 4);
  int64_t *word_offsets = (int64_t *)xmalloc(((size_t)cols + 1) * 8);
  groups_alloc(r, n);
  sk_status st =
      sk_csr_chunk_order_rows_host(off, rows, n > 0 ? tokens : NULL, n, cols, perm, position_row, word_offsets);
  if (st == SK_SUCCESS)
    st = sk_csr_chunk_groups_host(position_row, n, cols, word_offsets, item_tokens, r->group_start, r->group_row, n,
                                  r->item_word, r->item_group, r->item_end, n, &r->num_groups, &r->num_items);
  free(perm), free(position_row), free(word_offsets);
  return st;
}

// A device array of `bytes` with GUARD_BYTES after it, all poisoned.
static void *dalloc_poisoned(size_t bytes) {
  void *p = NULL;
  SK_CHECK_CUDA(cudaMalloc(&p, bytes + GUARD_BYTES));
  SK_CHECK_CUDA(cudaMemset(p, POISON_BYTE, bytes + GUARD_BYTES));
  return p;
}

// The chunk's order and groups on the device through the usage snippet (or, with ws_shift > 0, through
// the calls themselves with a workspace that starts ws_shift bytes into its allocation); the results
// copied back; *guards_ok = 0 when a write went past an output array.
static sk_status device_groups(const int64_t *off, int64_t rows, const int32_t *tokens, int64_t n, int32_t cols,
                               int32_t item_tokens, size_t ws_shift, sk_test_groups *r, int *guards_ok) {
  const size_t tb = (size_t)n * 4, ob = ((size_t)cols + 1) * 8;
  example_chunk_work d;
  int64_t *d_off = (int64_t *)dalloc_poisoned(((size_t)rows + 1) * 8);
  int32_t *d_tokens = (int32_t *)dalloc_poisoned(tb);
  d.perm = (int32_t *)dalloc_poisoned(tb);
  d.inverse = (int32_t *)dalloc_poisoned(tb);
  d.word_offsets = (int64_t *)dalloc_poisoned(ob);
  d.group_start = (int32_t *)dalloc_poisoned(tb + 4);
  d.group_row = (int32_t *)dalloc_poisoned(tb);
  d.item_word = (int32_t *)dalloc_poisoned(tb);
  d.item_group = (int32_t *)dalloc_poisoned(tb);
  d.item_end = (int32_t *)dalloc_poisoned(tb);
  d.counts = (int64_t *)dalloc_poisoned(16);
  SK_CHECK_CUDA(cudaMemcpy(d_off, off, ((size_t)rows + 1) * 8, cudaMemcpyHostToDevice));
  if (n > 0) SK_CHECK_CUDA(cudaMemcpy(d_tokens, tokens, tb, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaDeviceSynchronize());  // the poison and the copies (legacy stream) before g_stream's work
  sk_status st;
  if (ws_shift == 0) {
    st = example_chunk_groups(d_off, rows, d_tokens, n, cols, item_tokens, &d, g_stream);
  } else {
    size_t ob_ws = 0, gb_ws = 0;
    st = sk_csr_chunk_order_device_workspace_size(n, cols, &ob_ws);
    if (st == SK_SUCCESS) st = sk_csr_chunk_groups_device_workspace_size(n, &gb_ws);
    const size_t wb = ob_ws > gb_ws ? ob_ws : gb_ws;
    unsigned char *ws = (unsigned char *)dalloc_poisoned(wb + ws_shift);
    SK_CHECK_CUDA(cudaDeviceSynchronize());
    if (st == SK_SUCCESS)
      st = sk_csr_chunk_order_device(d_tokens, n, cols, d.perm, d.inverse, d.word_offsets, ws + ws_shift, wb, 0);
    if (st == SK_SUCCESS)
      st = sk_csr_chunk_groups_device(d_off, rows, d_tokens, n, cols, d.perm, d.word_offsets, item_tokens,
                                      d.group_start, d.group_row, d.item_word, d.item_group, d.item_end, d.counts,
                                      ws + ws_shift, wb, 0);
    SK_CHECK_CUDA(cudaDeviceSynchronize());
    unsigned char before[256];
    SK_CHECK_CUDA(cudaMemcpy(before, ws, ws_shift, cudaMemcpyDeviceToHost));
    int outside = 0;
    for (size_t i = 0; i < ws_shift; ++i) outside += before[i] != POISON_BYTE;
    outside += !guard_intact(ws + ws_shift + wb);
    SK_CHECK(outside == 0, "bytes just outside the workspace were written");
    SK_CHECK_CUDA(cudaFree(ws));
  }
  SK_CHECK_CUDA(cudaGetLastError());
  groups_alloc(r, n);
  int64_t counts[2] = {-1, -1};
  SK_CHECK_CUDA(cudaMemcpy(counts, d.counts, 16, cudaMemcpyDeviceToHost));
  r->num_groups = counts[0];
  r->num_items = counts[1];
  if (st == SK_SUCCESS && counts[0] >= 0 && counts[0] <= n && counts[1] >= 0 && counts[1] <= n) {
    SK_CHECK_CUDA(cudaMemcpy(r->group_start, d.group_start, ((size_t)counts[0] + 1) * 4, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(r->group_row, d.group_row, (size_t)counts[0] * 4, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(r->item_word, d.item_word, (size_t)counts[1] * 4, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(r->item_group, d.item_group, (size_t)counts[1] * 4, cudaMemcpyDeviceToHost));
    SK_CHECK_CUDA(cudaMemcpy(r->item_end, d.item_end, (size_t)counts[1] * 4, cudaMemcpyDeviceToHost));
  }
  *guards_ok = guard_intact((char *)d.group_start + tb + 4) && guard_intact((char *)d.group_row + tb) &&
               guard_intact((char *)d.item_word + tb) && guard_intact((char *)d.item_group + tb) &&
               guard_intact((char *)d.item_end + tb) && guard_intact(d.counts + 2) &&
               guard_intact((char *)d.perm + tb) && guard_intact((char *)d.inverse + tb) &&
               guard_intact((char *)d.word_offsets + ob);
  void *const all[] = {d_off, d_tokens, d.perm, d.inverse, d.word_offsets, d.group_start, d.group_row, d.item_word,
                       d.item_group, d.item_end, d.counts};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) SK_CHECK_CUDA(cudaFree(all[i]));
  return st;
}

// One chunk: the device's groups and items against the host's. Tokens outside [0, cols) are compared
// with the host's groups of the tokens the device order puts them as (word cols - 1).
static void check_groups_case(const int64_t *off, int64_t rows, const int32_t *tokens, int64_t n, int32_t cols,
                              int32_t item_tokens, size_t ws_shift) {
  int32_t *as_placed = (int32_t *)xmalloc((size_t)n * 4);
  for (int64_t i = 0; i < n; ++i) as_placed[i] = (uint32_t)tokens[i] < (uint32_t)cols ? tokens[i] : cols - 1;
  sk_test_groups want, got;
  int guards_ok = 0;
  const sk_status hs = host_groups(off, rows, as_placed, n, cols, item_tokens, &want);
  if (SK_CHECK(hs == SK_SUCCESS, "host groups: %s", sk_status_name(hs))) {
    const sk_status ds = device_groups(off, rows, tokens, n, cols, item_tokens, ws_shift, &got, &guards_ok);
    if (SK_CHECK(ds == SK_SUCCESS, "device groups: %s (CUDA: %s)", sk_status_name(ds), sk_last_cuda_error_string())) {
      const char *why = sk_test_groups_difference(&got, &want, "host");
      SK_CHECK(why == NULL, "%s", why);
      SK_CHECK(guards_ok, "a write past the end of a device array");
    }
    groups_free(&got);
  }
  groups_free(&want);
  free(as_placed);
}

// Row lengths: uniform 0-20, 90% empty, one huge row, long rows 100-1000, all empty.
enum { kRowsUniform, kRowsManyEmpty, kRowsOneHuge, kRowsLong, kRowsAllEmpty, kNumRowShapes };
static const char *const kRowShapeNames[kNumRowShapes] = {"uniform 0-20", "90% empty", "one huge row",
                                                          "long rows 100-1000", "all empty"};

// num_rows + 1 offsets starting at `base` (a chunk need not start at token 0).
static int64_t *make_rows(int shape, int64_t num_rows, int64_t base, uint64_t *rng) {
  int64_t *off = (int64_t *)xmalloc(((size_t)num_rows + 1) * 8);
  const int64_t huge = num_rows > 0 ? (int64_t)rand_below(rng, (uint32_t)num_rows) : 0;
  off[0] = base;
  for (int64_t r = 0; r < num_rows; ++r) {
    int64_t len = 0;
    switch (shape) {
      case kRowsUniform: len = rand_below(rng, 21); break;
      case kRowsManyEmpty: len = rand_below(rng, 10) == 0 ? 1 + rand_below(rng, 50) : 0; break;
      case kRowsOneHuge: len = r == huge ? 20 * num_rows + 5000 : rand_below(rng, 11); break;
      case kRowsLong: len = 100 + rand_below(rng, 901); break;
      default: len = 0; break;
    }
    off[r + 1] = off[r] + len;
  }
  return off;
}

static void test_groups_sweep(int seed) {
  static const int64_t kRowCounts[] = {1, 2, 33, 1000};
  static const int32_t kGroupCols[] = {1, 2, 1000, 100000};
  static const int32_t kItems[] = {1, 64, INT32_MAX};
  for (size_t ri = 0; ri < sizeof kRowCounts / sizeof kRowCounts[0]; ++ri)
    for (int shape = 0; shape < kNumRowShapes; ++shape) {
      uint64_t rng = 0x6e0ull + (uint64_t)seed * 1000003u + ri * 17u + (uint64_t)shape;
      const int64_t rows = kRowCounts[ri];
      if (rows > 100 && sk_test_under_sanitizer()) continue;  // up to 5 * 10^5 tokens a case: the plain run
      int64_t *off = make_rows(shape, rows, (int64_t)rand_below(&rng, 1000), &rng);
      const int64_t n = off[rows] - off[0];
      int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
      for (size_t ci = 0; ci < sizeof kGroupCols / sizeof kGroupCols[0]; ++ci)
        for (int kind = 0; kind < kNumKinds; ++kind) {
          fill_tokens(tokens, n, kGroupCols[ci], kind, &rng);
          const int32_t item_tokens = kItems[(size_t)(seed + kind) % 3];
          sk_test_context("groups: seed=%d rows=%lld (%s) n=%lld V=%d words=%s item_tokens=%d", seed, (long long)rows,
                          kRowShapeNames[shape], (long long)n, kGroupCols[ci], kKindNames[kind], item_tokens);
          check_groups_case(off, rows, tokens, n, kGroupCols[ci], item_tokens, 0);
        }
      free(tokens);
      free(off);
    }
}

// Large chunks (once): 10^7 Zipf tokens in rows of about 200 over 10^5 words (10^6 under a sanitizer);
// items of 2^16 tokens and more (the sort's keys of 17 to 24 bits); 2^20 words; a workspace at an odd
// address.
static void test_groups_large(void) {
  uint64_t rng = 0x1a7eull;
  {
    const int64_t rows = sk_test_under_sanitizer() ? 5000 : 50000;
    int64_t *off = (int64_t *)xmalloc((size_t)(rows + 1) * 8);
    off[0] = 0;
    for (int64_t r = 0; r < rows; ++r) off[r + 1] = off[r] + 1 + rand_below(&rng, 399);
    const int64_t n = off[rows];
    int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
    fill_tokens(tokens, n, 100000, kKindZipf, &rng);
    sk_test_context("groups: %lld Zipf tokens, V=100000, item_tokens=512", (long long)n);
    check_groups_case(off, rows, tokens, n, 100000, 512, 0);
    fill_tokens(tokens, n, 1 << 20, kKindUniform, &rng);
    sk_test_context("groups: %lld uniform tokens, V=2^20, item_tokens=4096, workspace at +77", (long long)n);
    check_groups_case(off, rows, tokens, n, 1 << 20, 4096, 77);
    free(tokens), free(off);
  }
  {
    enum { kRows = 40 };
    int64_t off[kRows + 1];
    off[0] = 0;
    for (int r = 0; r < kRows; ++r) off[r + 1] = off[r] + (r % 4 == 0 ? 65530 + rand_below(&rng, 200000) : 1 + r);
    const int64_t n = off[kRows];
    int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
    for (int r = 0; r < kRows; ++r)
      for (int64_t i = off[r]; i < off[r + 1]; ++i) tokens[i] = r % 4 == 0 ? r % 3 : (int32_t)rand_below(&rng, 50);
    sk_test_context("groups: items of 2^16 tokens and more (%lld tokens)", (long long)n);
    check_groups_case(off, kRows, tokens, n, 50, 100, 0);
    check_groups_case(off, kRows, tokens, n, 50, INT32_MAX, 0);
    free(tokens);
  }
}

// Tokens outside [0, num_cols): placed as word num_cols - 1, as the device order does; no write outside.
static void test_groups_out_of_range(int seed) {
  static const int32_t cols[] = {1, 5, 1000};
  for (size_t c = 0; c < 3; ++c) {
    uint64_t rng = 0x0badull + (uint64_t)seed * 7919u + c;
    const int64_t rows = 300;
    int64_t *off = make_rows(kRowsUniform, rows, 0, &rng);
    const int64_t n = off[rows];
    int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
    fill_tokens(tokens, n, cols[c], kKindUniform, &rng);
    for (int64_t i = 0; i < n; ++i)
      if (rand_below(&rng, 4) == 0) tokens[i] = rand_below(&rng, 2) ? -1 - (int32_t)rand_below(&rng, 9) : cols[c] + 3;
    sk_test_context("groups: seed=%d out-of-range tokens, n=%lld V=%d", seed, (long long)n, cols[c]);
    check_groups_case(off, rows, tokens, n, cols[c], 7, 0);
    free(tokens), free(off);
  }
}

// No tokens: group_start[0] = 0 and counts {0, 0}, with NULL arrays and workspace.
static void test_groups_no_tokens(void) {
  const int64_t off[3] = {42, 42, 42};
  int64_t *d_off = (int64_t *)dalloc_poisoned(24), *d_word_offsets = (int64_t *)dalloc_poisoned(8 * 6),
          *d_counts = (int64_t *)dalloc_poisoned(16);
  int32_t *d_gs = (int32_t *)dalloc_poisoned(4);
  SK_CHECK_CUDA(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
  sk_test_context("groups: no tokens");
  const sk_status st = sk_csr_chunk_groups_device(d_off, 2, NULL, 0, 5, NULL, d_word_offsets, 1, d_gs, NULL, NULL,
                                                  NULL, NULL, d_counts, NULL, 0, 0);
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  int32_t gs = -1;
  int64_t counts[2] = {-1, -1};
  SK_CHECK_CUDA(cudaMemcpy(&gs, d_gs, 4, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(counts, d_counts, 16, cudaMemcpyDeviceToHost));
  SK_CHECK(st == SK_SUCCESS && gs == 0 && counts[0] == 0 && counts[1] == 0, "status %s, group_start[0] %d, counts %lld %lld",
           sk_status_name(st), gs, (long long)counts[0], (long long)counts[1]);
  SK_CHECK(guard_intact(d_gs + 1) && guard_intact(d_counts + 2), "a write past group_start[0] or the counts");
  SK_CHECK_CUDA(cudaFree(d_off));
  SK_CHECK_CUDA(cudaFree(d_word_offsets));
  SK_CHECK_CUDA(cudaFree(d_counts));
  SK_CHECK_CUDA(cudaFree(d_gs));
}

// Workspace sizes never shrink as max_tokens grows and cover the regions; one byte short is refused
// with nothing written; a pending CUDA error is reported and nothing launched.
static void test_groups_workspace_and_pending(void) {
  const int64_t sizes[] = {0, 1, 31, 32, 1000, 4864, 4865, 100000, 1000000, 100000000, INT32_MAX};
  size_t prev = 0;
  for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; ++a) {
    size_t b = 0;
    sk_test_context("groups workspace size, max_tokens=%lld", (long long)sizes[a]);
    SK_CHECK(sk_csr_chunk_groups_device_workspace_size(sizes[a], &b) == SK_SUCCESS, "size query");
    SK_CHECK(b >= prev, "%zu bytes, below the %zu of a smaller max_tokens", b, prev);
    SK_CHECK(sizes[a] == 0 || b >= 255 + 6 * (size_t)(sizes[a] + 1) * 4, "%zu bytes: less than the six regions", b);
    prev = b;
  }
  // A chunk of 1000 tokens in 50 rows over 100 words.
  uint64_t rng = 31337;
  int64_t *off = make_rows(kRowsUniform, 50, 0, &rng);
  const int64_t n = off[50];
  int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
  fill_tokens(tokens, n, 100, kKindZipf, &rng);
  example_chunk_work d;
  int64_t *d_off = (int64_t *)dalloc_poisoned(51 * 8);
  int32_t *d_tokens = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.perm = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.inverse = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.word_offsets = (int64_t *)dalloc_poisoned(101 * 8);
  d.group_start = (int32_t *)dalloc_poisoned((size_t)n * 4 + 4);
  d.group_row = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.item_word = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.item_group = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.item_end = (int32_t *)dalloc_poisoned((size_t)n * 4);
  d.counts = (int64_t *)dalloc_poisoned(16);
  size_t need = 0, order_need = 0;
  SK_CHECK(sk_csr_chunk_groups_device_workspace_size(n, &need) == SK_SUCCESS &&
               sk_csr_chunk_order_device_workspace_size(n, 100, &order_need) == SK_SUCCESS,
           "size queries");
  unsigned char *ws = (unsigned char *)dalloc_poisoned(need > order_need ? need : order_need);
  SK_CHECK_CUDA(cudaMemcpy(d_off, off, 51 * 8, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_tokens, tokens, (size_t)n * 4, cudaMemcpyHostToDevice));
  SK_CHECK(sk_csr_chunk_order_device(d_tokens, n, 100, d.perm, d.inverse, d.word_offsets, ws, order_need, 0) ==
               SK_SUCCESS,
           "order");
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  sk_test_context("groups workspace one byte short (n=%lld)", (long long)n);
  SK_CHECK(sk_csr_chunk_groups_device(d_off, 50, d_tokens, n, 100, d.perm, d.word_offsets, 5, d.group_start,
                                      d.group_row, d.item_word, d.item_group, d.item_end, d.counts, ws, need - 1, 0) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "want SK_ERROR_WORKSPACE_TOO_SMALL");
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  int64_t counts[2] = {0, 0};
  SK_CHECK_CUDA(cudaMemcpy(counts, d.counts, 16, cudaMemcpyDeviceToHost));
  SK_CHECK(counts[0] == POISON_OFFSET && counts[1] == POISON_OFFSET, "a rejected call wrote its outputs");

  sk_test_context("groups: pending CUDA error");
  int count = 0;
  SK_CHECK_CUDA(cudaGetDeviceCount(&count));
  SK_CHECK(cudaSetDevice(count) != cudaSuccess, "cudaSetDevice(%d) should fail", count);  // leaves the error pending
  SK_CHECK(sk_csr_chunk_groups_device(d_off, 50, d_tokens, n, 100, d.perm, d.word_offsets, 5, d.group_start,
                                      d.group_row, d.item_word, d.item_group, d.item_end, d.counts, ws, need, 0) ==
               SK_ERROR_CUDA_PENDING,
           "want SK_ERROR_CUDA_PENDING");
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  SK_CHECK_CUDA(cudaMemcpy(counts, d.counts, 16, cudaMemcpyDeviceToHost));
  SK_CHECK(counts[0] == POISON_OFFSET, "the call launched work");
  // And the next call works.
  SK_CHECK(sk_csr_chunk_groups_device(d_off, 50, d_tokens, n, 100, d.perm, d.word_offsets, 5, d.group_start,
                                      d.group_row, d.item_word, d.item_group, d.item_end, d.counts, ws, need, 0) ==
               SK_SUCCESS,
           "the call after the pending error");
  SK_CHECK_CUDA(cudaDeviceSynchronize());
  SK_CHECK_CUDA(cudaMemcpy(counts, d.counts, 16, cudaMemcpyDeviceToHost));
  SK_CHECK(counts[0] >= 1 && counts[0] <= n, "%lld groups after the pending error", (long long)counts[0]);
  void *const all[] = {d_off, d_tokens, d.perm, d.inverse, d.word_offsets, d.group_start, d.group_row, d.item_word,
                       d.item_group, d.item_end, d.counts, ws};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) SK_CHECK_CUDA(cudaFree(all[i]));
  free(tokens), free(off);
}

// The usage snippet over the chunks of a plan (short rows, empty rows, a long row in every 97): each
// chunk against the host.
static void test_groups_snippet(void) {
  uint64_t rng = 77;
  const int64_t rows = 2000;
  int64_t *off = (int64_t *)xmalloc((size_t)(rows + 1) * 8);
  off[0] = 0;
  for (int64_t r = 0; r < rows; ++r) off[r + 1] = off[r] + (r % 97 == 5 ? 3000 : (int64_t)rand_below(&rng, 60));
  const int64_t n = off[rows];
  int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
  fill_tokens(tokens, n, 5000, kKindZipf, &rng);
  sk_csr_chunk_plan *plan = NULL;
  int64_t num_chunks = 0;
  sk_test_context("groups snippet: plan");
  SK_CHECK(sk_csr_chunk_plan_create(off, rows, 24, 8, 0, (size_t)n * 24 / 5, &plan, NULL, NULL) == SK_SUCCESS &&
               sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS && num_chunks >= 5,
           "%lld chunks", (long long)num_chunks);
  for (int64_t c = 0; c < num_chunks; ++c) {
    sk_csr_chunk_info info;
    (void)sk_csr_chunk_plan_chunk(plan, c, &info);
    sk_test_context("groups snippet: chunk %lld (%lld rows from %lld, %lld tokens)", (long long)c,
                    (long long)info.num_rows, (long long)info.first_row, (long long)info.num_tokens);
    check_groups_case(off + info.first_row, info.num_rows, tokens + info.first_token, info.num_tokens, 5000, 256, 0);
  }
  sk_csr_chunk_plan_destroy(plan);
  free(tokens), free(off);
}

// Host: argument checks that need no GPU, none of which may reach CUDA.
static void test_groups_api_arguments(void) {
  static int64_t off[4] = {0, 3, 3, 8}, word_offsets[11];
  static int32_t tokens[8], perm[8], gs[32], gr[16], iw[16], ig[16], ie[16];
  static int64_t counts[2];
  static unsigned char ws[8192];
  const size_t wsb = sizeof ws;
  size_t bytes = 12345;
  sk_clear_cuda_error();
  sk_test_context("sk_csr_chunk_groups_device_workspace_size arguments");
  SK_CHECK(sk_csr_chunk_groups_device_workspace_size(10, NULL) == SK_ERROR_NULL_POINTER, "workspace_bytes NULL");
  SK_CHECK(sk_csr_chunk_groups_device_workspace_size(-1, &bytes) == SK_ERROR_INVALID_VALUE && bytes == 12345,
           "max_tokens -1");
  SK_CHECK(sk_csr_chunk_groups_device_workspace_size((int64_t)INT32_MAX + 1, &bytes) == SK_ERROR_INVALID_VALUE,
           "max_tokens 2^31");
  SK_CHECK(sk_csr_chunk_groups_device_workspace_size(0, &bytes) == SK_SUCCESS && bytes == 0, "no tokens: 0");

  sk_test_context("sk_csr_chunk_groups_device arguments");
#define GROUPS(off_, rows_, tok_, n_, cols_, perm_, wo_, it_, gs_, gr_, iw_, ig_, ie_, cnt_, ws_, wsb_) \
  sk_csr_chunk_groups_device(off_, rows_, tok_, n_, cols_, perm_, wo_, it_, gs_, gr_, iw_, ig_, ie_, cnt_, ws_, wsb_, 0)
  // Values first.
  SK_CHECK(GROUPS(off, -1, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "rows -1");
  SK_CHECK(GROUPS(off, (int64_t)INT32_MAX + 1, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws,
                  wsb) == SK_ERROR_INVALID_VALUE,
           "rows past INT32_MAX");
  SK_CHECK(GROUPS(off, 3, tokens, -1, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "tokens -1");
  SK_CHECK(GROUPS(off, 3, tokens, (int64_t)INT32_MAX + 1, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws,
                  wsb) == SK_ERROR_INVALID_VALUE,
           "tokens 2^31");
  SK_CHECK(GROUPS(off, 3, tokens, 8, -1, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "cols -1");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 0, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "tokens but no words");
  SK_CHECK(GROUPS(off, 0, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "tokens but no rows");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 0, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "item_tokens 0");
  SK_CHECK(GROUPS(NULL, 3, NULL, 8, 10, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0) ==
               SK_ERROR_INVALID_VALUE,
           "values before pointers");
  // Pointers.
  SK_CHECK(GROUPS(NULL, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "row offsets NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, NULL, 4, gs, gr, iw, ig, ie, counts, ws, wsb) == SK_ERROR_NULL_POINTER,
           "word offsets NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, NULL, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "group_start NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, NULL, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "counts NULL");
  SK_CHECK(GROUPS(off, 0, NULL, 0, 10, NULL, word_offsets, 4, gs, NULL, NULL, NULL, NULL, NULL, NULL, 0) ==
               SK_ERROR_NULL_POINTER,
           "counts NULL without tokens");
  SK_CHECK(GROUPS(off, 3, NULL, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "tokens NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, NULL, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "perm NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, NULL, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "group_row NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, NULL, counts, ws, wsb) ==
               SK_ERROR_NULL_POINTER,
           "item_end NULL");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, NULL, wsb) ==
               SK_ERROR_NULL_POINTER,
           "workspace NULL");
  // Overlaps.
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gs + 8, iw, ig, ie, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "group_row on group_start's last entry");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, perm, counts, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "item_end = perm");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, word_offsets + 10, ws, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "counts over the word offsets' last entry");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, iw + 4, 64) ==
               SK_ERROR_INVALID_VALUE,
           "workspace over item_word");
  // The workspace over an input: the kernels write it while they read the inputs.
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, perm, wsb) ==
               SK_ERROR_INVALID_VALUE,
           "workspace = perm");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, tokens + 7, 64) ==
               SK_ERROR_INVALID_VALUE,
           "workspace over the tokens' last entry");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, off + 3, 64) ==
               SK_ERROR_INVALID_VALUE,
           "workspace over the row offsets' last entry");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, word_offsets, 64) ==
               SK_ERROR_INVALID_VALUE,
           "workspace = word offsets");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, (int64_t *)(void *)(off + 3), ws,
                  wsb) == SK_ERROR_INVALID_VALUE,
           "counts over the row offsets' last entry");
  // The workspace's fixed part (255 + 6 * 256 for 8 tokens) before any CUDA call.
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, 0) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "workspace of 0 bytes");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gr, iw, ig, ie, counts, ws, 255 + 6 * 256 - 1) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "workspace one byte below its fixed part");
  SK_CHECK(GROUPS(off, 3, tokens, 8, 10, perm, word_offsets, 4, gs, gs + 9, iw, ig, ie, counts, ws, 100) ==
               SK_ERROR_WORKSPACE_TOO_SMALL,
           "adjacent arrays are not overlaps");
#undef GROUPS
  sk_test_context("groups argument checks");
  SK_CHECK(sk_last_cuda_error() == 0, "an argument check reached CUDA (error %d recorded)", sk_last_cuda_error());
}

// Host: the comparison accepts the host's groups and rejects each planted defect (so that a device bug
// cannot pass unseen).
static void test_groups_checker(void) {
  enum { kRows = 60, kV = 23 };
  uint64_t rng = 5150;
  int64_t *off = make_rows(kRowsUniform, kRows, 3, &rng);
  const int64_t n = off[kRows] - off[0];
  int32_t *tokens = (int32_t *)xmalloc((size_t)n * 4);
  fill_tokens(tokens, n, kV, kKindZipf, &rng);
  sk_test_groups a, b;
  sk_test_context("groups comparison");
  if (SK_CHECK(host_groups(off, kRows, tokens, n, kV, 5, &a) == SK_SUCCESS &&
                   host_groups(off, kRows, tokens, n, kV, 5, &b) == SK_SUCCESS && a.num_items >= 3,
               "host groups")) {
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") == NULL, "equal results told apart");
    ++b.group_start[1];
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") != NULL, "a moved group start accepted");
    --b.group_start[1];
    ++b.group_row[b.num_groups - 1];
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") != NULL, "a wrong last row accepted");
    --b.group_row[b.num_groups - 1];
    const int32_t x = b.item_group[1];
    b.item_group[1] = b.item_group[2], b.item_group[2] = x;  // two items swapped
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") != NULL, "swapped items accepted");
    b.item_group[2] = b.item_group[1], b.item_group[1] = x;
    --b.num_items;
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") != NULL, "a missing item accepted");
    ++b.num_items;
    ++b.item_end[b.num_items - 1];
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") != NULL, "a wrong last item end accepted");
    --b.item_end[b.num_items - 1];
    SK_CHECK(sk_test_groups_difference(&a, &b, "host") == NULL, "the restored result told apart");
  }
  groups_free(&a), groups_free(&b);
  free(tokens), free(off);
}

int main(int argc, char **argv) {
  test_api_arguments();
  test_checker();
  test_groups_api_arguments();
  test_groups_checker();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    SK_CHECK_CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    test_usage_snippet();
    test_no_tokens();
    test_workspaces();
    test_pending_error();
    test_groups_snippet();
    test_groups_no_tokens();
    test_groups_workspace_and_pending();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) {
      test_sweep(seed);
      test_out_of_range(seed);
      if (seed < 2) test_large(seed);
      test_groups_sweep(seed);
      test_groups_out_of_range(seed);
    }
    test_groups_large();
    free_buffers();
    SK_CHECK_CUDA(cudaStreamDestroy(g_stream));
  }
  return sk_test_finish();
}
