/*
 * A C99 program that uses an installed samplekit as a C project would: find_package(samplekit), link
 * samplekit::kernels, include samplekit.h, and the CUDA runtime API for its own device memory only.
 *
 * It calls every C API function that launches GPU work, on small inputs, and checks each result
 * against a rule computed here in C. The weights are small integers, so every running sum is exact in
 * float whatever order a kernel adds in: each draw must then be exactly the host rule's, for every
 * algorithm. Prints one line, "samplekit X.Y.Z: ...", and exits 0 when every check passed, 77 (ctest's
 * skip code) when there is no usable GPU, 1 otherwise.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include <samplekit/samplekit.h>

static long g_checks = 0;
static long g_failures = 0;
static int g_version[3];

/* Counts a check; prints the first failures. Returns `ok`. */
static int check(int ok, const char *fmt, ...) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    if (g_failures <= 20) {
      va_list ap;
      va_start(ap, fmt);
      fputs("FAIL: ", stderr);
      vfprintf(stderr, fmt, ap);
      fputc('\n', stderr);
      va_end(ap);
    }
  }
  return ok;
}

static void fail_now(void) {
  printf("samplekit %d.%d.%d: FAILED (%ld of %ld checks failed)\n", g_version[0], g_version[1], g_version[2],
         g_failures, g_checks);
  exit(1);
}

/* A call whose failure makes the results that follow meaningless: report it and stop. */
static void must(sk_status st, const char *what) {
  if (!check(st == SK_SUCCESS, "%s returned %s (CUDA: %s)", what, sk_status_name(st), sk_last_cuda_error_string()))
    fail_now();
}

static void must_cuda(cudaError_t err, const char *what) {
  if (!check(err == cudaSuccess, "%s: CUDA error %d (%s)", what, (int)err, cudaGetErrorString(err))) fail_now();
}

static void *device_alloc(size_t bytes) {
  void *d = NULL;
  must_cuda(cudaMalloc(&d, bytes > 0 ? bytes : 1), "cudaMalloc");
  return d;
}

static void *to_device(const void *h, size_t bytes) {
  void *d = device_alloc(bytes);
  must_cuda(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  return d;
}

/* Waits for the legacy default stream (every launch below runs on it), then copies back. */
static void to_host(void *h, const void *d, size_t bytes) {
  must_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  must_cuda(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/*
 * The index drawn from w[0..k) for the point u = U * total, by the documented rule, for weights whose
 * running sums are exact: the first entry whose running sum exceeds u (so u exactly on a running sum
 * goes to a later entry, and a zero weight is never drawn); the last positive entry when none does;
 * -1 when the total is 0.
 */
static int host_draw(const float *w, int k, float U) {
  float total = 0.0f, run = 0.0f, u;
  int i, last = -1;
  for (i = 0; i < k; ++i) {
    total += w[i];
    if (w[i] > 0.0f) last = i;
  }
  if (!(total > 0.0f)) return -1;
  u = U * total;
  for (i = 0; i < k; ++i) {
    run += w[i];
    if (w[i] > 0.0f && run > u) return i;
  }
  return last;
}

/* --- rng.h: sk_rng_fill_uniform_f32 -------------------------------------------------------------- */
static void test_rng_fill(void) {
  enum { N = 1000 };
  const uint64_t seed = 0x5eed5eedull, stream_id = 7, first = 5;
  float h[N];
  float *d = (float *)device_alloc(sizeof h);
  int i, bad = 0;
  must(sk_rng_fill_uniform_f32(seed, stream_id, first, d, N, 0), "sk_rng_fill_uniform_f32");
  to_host(h, d, sizeof h);
  for (i = 0; i < N && !bad; ++i)
    bad =
        !check(same_bits(h[i], sk_rng_uniform_f32(seed, stream_id, first + (uint64_t)i)) && h[i] >= 0.0f && h[i] < 1.0f,
               "sk_rng_fill_uniform_f32: d_out[%d] = %.9g, host %.9g", i, h[i],
               sk_rng_uniform_f32(seed, stream_id, first + (uint64_t)i));
  cudaFree(d);
}

/* --- wary_tree.h: sk_wary_tree_batch_build_f32, sk_wary_tree_batch_sample_f32 --------------------- */
static void test_wary_tree(void) {
  enum { ROWS = 3, N = 40, LD = 41, FLOATS = SK_WARY_TREE_FLOATS(N), SAMPLES = 300 };
  const uint64_t seed = 42, offset = 1000;
  float w[ROWS * LD], tree[ROWS * FLOATS], expect[FLOATS];
  int rows[SAMPLES], out[SAMPLES];
  size_t bytes = 0;
  float *d_w, *d_trees;
  int *d_rows, *d_out;
  int r, i, s, bad;

  /* Row 0: weights i % 5 (zeros included, leaf 0 among them); row 1: all zero; row 2: one leaf of
     level 1's second group. Two levels (32 < N <= 1024). */
  for (r = 0; r < ROWS; ++r)
    for (i = 0; i < LD; ++i) {
      const float x = r == 0 ? (float)(i % 5) : r == 2 && i == 33 ? 3.0f : 0.0f;
      w[r * LD + i] = i < N ? x : -1.0f; /* past n: never read */
    }
  must(sk_wary_tree_batch_bytes(ROWS, N, &bytes), "sk_wary_tree_batch_bytes");
  check(bytes == sizeof tree && sk_wary_tree_floats(N) == FLOATS && sk_wary_tree_num_levels(N) == 2,
        "sk_wary_tree_batch_bytes gave %zu bytes, expected %zu", bytes, sizeof tree);
  d_w = (float *)to_device(w, sizeof w);
  d_trees = (float *)device_alloc(sizeof tree);
  must(sk_wary_tree_batch_build_f32(d_w, LD, ROWS, N, d_trees, sizeof tree, 0), "sk_wary_tree_batch_build_f32");
  to_host(tree, d_trees, sizeof tree);

  /* Exact running sums: level 0 holds P_0..P_{N-1} and the total as padding; level 1 holds entry 31 of
     each group of 32 of level 0, padded with the total. */
  for (r = 0; r < ROWS; ++r) {
    const size_t l1 = sk_wary_tree_level_offset(N, 1);
    float run = 0.0f;
    for (i = 0; i < (int)l1; ++i) {
      if (i < N) run += w[r * LD + i];
      expect[i] = run;
    }
    for (i = 0; (size_t)i < FLOATS - l1; ++i)
      expect[l1 + (size_t)i] = 32 * i + 31 < (int)l1 ? expect[32 * i + 31] : run;
    for (i = 0, bad = 0; i < FLOATS && !bad; ++i)
      bad = !check(same_bits(tree[r * FLOATS + i], expect[i]),
                   "sk_wary_tree_batch_build_f32: row %d, float %d of the tree is %g, expected %g", r, i,
                   tree[r * FLOATS + i], expect[i]);
  }

  /* Row ids -1 .. 3: -1 and 3 are out of range, row 1 has no positive weight; all three give -1. */
  for (s = 0; s < SAMPLES; ++s) rows[s] = s % 5 - 1;
  d_rows = (int *)to_device(rows, sizeof rows);
  d_out = (int *)device_alloc(sizeof out);
  must(sk_wary_tree_batch_sample_f32(d_trees, sizeof tree, ROWS, N, d_rows, SAMPLES, seed, offset, d_out, 0),
       "sk_wary_tree_batch_sample_f32");
  to_host(out, d_out, sizeof out);
  for (s = 0, bad = 0; s < SAMPLES && !bad; ++s) {
    const int row = rows[s];
    const int e =
        row < 0 || row >= ROWS ? -1 : host_draw(w + row * LD, N, sk_rng_uniform_f32(seed, 0, offset + (uint64_t)s));
    bad = !check(out[s] == e, "sk_wary_tree_batch_sample_f32: sample %d (row %d) drew %d, expected %d", s, row, out[s],
                 e);
  }
  cudaFree(d_w);
  cudaFree(d_trees);
  cudaFree(d_rows);
  cudaFree(d_out);
}

/* --- sample_categorical.h: the matrix form (drawn and given uniforms) ------------------------------ */
static const sk_categorical_algorithm kAlgorithms[3] = {SK_CATEGORICAL_AUTO, SK_CATEGORICAL_BUTTERFLY,
                                                        SK_CATEGORICAL_GROUP_ROW};

/* Uniforms that land on running sums, on 0 and at the top of the range, as well as ordinary ones. */
static float given_uniform(int i) {
  static const float kU[5] = {0.0f, 0.5f, 0.25f, 0.99999994f /* 1 - 2^-24 */, 0.7f};
  return kU[i % 5];
}

static void check_draws(const char *what, int algorithm, const int *out, const int *expect, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (!check(out[i] == expect[i], "%s (algorithm %d): item %d drew %d, expected %d", what, algorithm, i, out[i],
               expect[i]))
      return;
}

static void test_sample_categorical(void) {
  enum { M = 70, K = 37, LD = 40 };
  const uint64_t seed = 7, offset = 123;
  float w[M * LD], U[M];
  int out[M], expect_rng[M], expect_given[M];
  float *d_w, *d_u;
  int *d_out;
  int r, k, a;
  sk_status st;

  /* Small integer weights with zeros; row 5 all zero (-1); row 9 one-hot at the last entry. */
  for (r = 0; r < M; ++r)
    for (k = 0; k < LD; ++k) {
      float x = (float)((r * 7 + k * 3) % 5);
      if (r == 5) x = 0.0f;
      if (r == 9) x = k == K - 1 ? 2.0f : 0.0f;
      w[r * LD + k] = k < K ? x : -1.0f; /* past K: never read */
    }
  for (r = 0; r < M; ++r) {
    U[r] = given_uniform(r);
    expect_rng[r] = host_draw(w + r * LD, K, sk_rng_uniform_f32(seed, 0, offset + (uint64_t)r));
    expect_given[r] = host_draw(w + r * LD, K, U[r]);
  }
  d_w = (float *)to_device(w, sizeof w);
  d_u = (float *)to_device(U, sizeof U);
  d_out = (int *)device_alloc(sizeof out);

  must(sk_sample_categorical_f32(d_w, LD, M, K, seed, offset, d_out, 0), "sk_sample_categorical_f32");
  to_host(out, d_out, sizeof out);
  check_draws("sk_sample_categorical_f32", 0, out, expect_rng, M);
  for (a = 0; a < 3; ++a) {
    st = sk_sample_categorical_ex_f32(d_w, LD, M, K, kAlgorithms[a], seed, offset, d_out, 0);
    must(st, "sk_sample_categorical_ex_f32");
    to_host(out, d_out, sizeof out);
    check_draws("sk_sample_categorical_ex_f32", (int)kAlgorithms[a], out, expect_rng, M);
    st = sk_sample_categorical_with_uniforms_f32(d_w, LD, M, K, kAlgorithms[a], d_u, d_out, 0);
    must(st, "sk_sample_categorical_with_uniforms_f32");
    to_host(out, d_out, sizeof out);
    check_draws("sk_sample_categorical_with_uniforms_f32", (int)kAlgorithms[a], out, expect_given, M);
  }
  cudaFree(d_w);
  cudaFree(d_u);
  cudaFree(d_out);
}

/* --- sample_categorical.h: the product form theta[d] * phi[w] ------------------------------------- */
static void test_sample_categorical_product(void) {
  enum { DOCS = 5, WORDS = 7, K = 20, LDT = 24, LDP = 21, M = 60 };
  const uint64_t seed = 99, offset = 5;
  float theta[DOCS * LDT], phi[WORDS * LDP], U[M], prod[K];
  int docs[M], words[M], out[M], expect_rng[M], expect_given[M];
  float *d_theta, *d_phi, *d_u;
  int *d_docs, *d_words, *d_out;
  int i, k, a;

  for (i = 0; i < DOCS * LDT; ++i) theta[i] = (float)((i % LDT + i / LDT) % 3);
  for (i = 0; i < WORDS * LDP; ++i) phi[i] = (float)(((i / LDP) * (i % LDP) + 1) % 4);
  for (k = 0; k < K; ++k) phi[4 * LDP + k] = 0.0f; /* word 4: every product 0, so -1 */
  for (i = 0; i < M; ++i) {
    docs[i] = i == 17 ? DOCS : i % DOCS;       /* item 17: a document id out of range */
    words[i] = i == 23 ? -1 : (3 * i) % WORDS; /* item 23: a word id out of range */
    U[i] = given_uniform(i);
  }
  for (i = 0; i < M; ++i) {
    const int d = docs[i], v = words[i];
    if (d < 0 || d >= DOCS || v < 0 || v >= WORDS) {
      expect_rng[i] = expect_given[i] = -1;
      continue;
    }
    for (k = 0; k < K; ++k) prod[k] = theta[d * LDT + k] * phi[v * LDP + k];
    expect_rng[i] = host_draw(prod, K, sk_rng_uniform_f32(seed, 0, offset + (uint64_t)i));
    expect_given[i] = host_draw(prod, K, U[i]);
  }
  d_theta = (float *)to_device(theta, sizeof theta);
  d_phi = (float *)to_device(phi, sizeof phi);
  d_u = (float *)to_device(U, sizeof U);
  d_docs = (int *)to_device(docs, sizeof docs);
  d_words = (int *)to_device(words, sizeof words);
  d_out = (int *)device_alloc(sizeof out);

  must(sk_sample_categorical_product_f32(d_theta, LDT, DOCS, d_phi, LDP, WORDS, K, d_docs, d_words, M, seed, offset,
                                         d_out, 0),
       "sk_sample_categorical_product_f32");
  to_host(out, d_out, sizeof out);
  check_draws("sk_sample_categorical_product_f32", 0, out, expect_rng, M);
  for (a = 0; a < 3; ++a) {
    must(sk_sample_categorical_product_ex_f32(d_theta, LDT, DOCS, d_phi, LDP, WORDS, K, d_docs, d_words, M,
                                              kAlgorithms[a], seed, offset, d_out, 0),
         "sk_sample_categorical_product_ex_f32");
    to_host(out, d_out, sizeof out);
    check_draws("sk_sample_categorical_product_ex_f32", (int)kAlgorithms[a], out, expect_rng, M);
    must(sk_sample_categorical_product_with_uniforms_f32(d_theta, LDT, DOCS, d_phi, LDP, WORDS, K, d_docs, d_words, M,
                                                         kAlgorithms[a], d_u, d_out, 0),
         "sk_sample_categorical_product_with_uniforms_f32");
    to_host(out, d_out, sizeof out);
    check_draws("sk_sample_categorical_product_with_uniforms_f32", (int)kAlgorithms[a], out, expect_given, M);
  }
  cudaFree(d_theta);
  cudaFree(d_phi);
  cudaFree(d_u);
  cudaFree(d_docs);
  cudaFree(d_words);
  cudaFree(d_out);
}

/* --- segmented_count.h: sk_segmented_count_u32 (both paths, with and without a permutation) and
       sk_segmented_count_check_u32 ------------------------------------------------------------------ */
enum { SC_SEGMENTS = 7, SC_ITEMS = 300 };

static void test_segmented_count_case(int32_t num_keys, int use_perm) {
  /* Segment lengths with empty segments at both ends and in the middle, and one long segment. */
  static const int32_t kLengths[SC_SEGMENTS] = {0, 5, 1, 0, 200, 94, 0};
  int32_t offsets[SC_SEGMENTS + 1], perm[SC_ITEMS], out_offsets[SC_SEGMENTS + 1], first_pass[SC_SEGMENTS + 1];
  uint32_t keys[SC_ITEMS], out_keys[SC_ITEMS], out_counts[SC_ITEMS];
  uint32_t *count = (uint32_t *)calloc((size_t)num_keys, sizeof(uint32_t));
  int32_t *d_offsets, *d_perm = NULL, *d_out_offsets;
  uint32_t *d_keys, *d_out_keys, *d_out_counts;
  void *d_ws;
  size_t ws_bytes = 0;
  int64_t bad_index = 0;
  int32_t s, i, pairs = 0;
  sk_status st;
  char what[96];

  sprintf(what, "sk_segmented_count_u32 (K = %d, %s permutation)", (int)num_keys, use_perm ? "with a" : "no");
  if (count == NULL) {
    check(0, "out of host memory");
    fail_now();
  }
  offsets[0] = 0;
  for (s = 0; s < SC_SEGMENTS; ++s) offsets[s + 1] = offsets[s] + kLengths[s];
  for (i = 0; i < SC_ITEMS; ++i) {
    /* Repeated keys in every segment; the large K spreads them over the whole range. */
    keys[i] = (uint32_t)((i * 7 + (i / 13) * 3) % 11) * (uint32_t)(num_keys / 11) + (uint32_t)(i % 2);
    perm[i] = SC_ITEMS - 1 - i;
  }
  d_offsets = (int32_t *)to_device(offsets, sizeof offsets);
  d_keys = (uint32_t *)to_device(keys, sizeof keys);
  if (use_perm) d_perm = (int32_t *)to_device(perm, sizeof perm);
  d_out_offsets = (int32_t *)device_alloc(sizeof out_offsets);
  d_out_keys = (uint32_t *)device_alloc(sizeof out_keys);
  d_out_counts = (uint32_t *)device_alloc(sizeof out_counts);

  must(sk_segmented_count_check_u32(d_offsets, SC_SEGMENTS, SC_ITEMS, d_keys, d_perm, num_keys, &bad_index, 0),
       "sk_segmented_count_check_u32 on good input");
  check(bad_index == -1, "sk_segmented_count_check_u32: bad_index %lld on good input", (long long)bad_index);
  must(sk_segmented_count_workspace_size(SC_SEGMENTS, SC_ITEMS, num_keys, &ws_bytes),
       "sk_segmented_count_workspace_size");
  d_ws = device_alloc(ws_bytes);

  /* Two phases: sizes only (no pair arrays), then the pairs. */
  must(sk_segmented_count_u32(d_offsets, SC_SEGMENTS, SC_ITEMS, d_keys, d_perm, num_keys, d_out_offsets, NULL, NULL, 0,
                              d_ws, ws_bytes, 0),
       what);
  to_host(first_pass, d_out_offsets, sizeof first_pass);
  must(sk_segmented_count_u32(d_offsets, SC_SEGMENTS, SC_ITEMS, d_keys, d_perm, num_keys, d_out_offsets, d_out_keys,
                              d_out_counts, first_pass[SC_SEGMENTS], d_ws, ws_bytes, 0),
       what);
  to_host(out_offsets, d_out_offsets, sizeof out_offsets);
  to_host(out_keys, d_out_keys, sizeof out_keys);
  to_host(out_counts, d_out_counts, sizeof out_counts);

  check(out_offsets[0] == 0 && memcmp(out_offsets, first_pass, sizeof out_offsets) == 0,
        "%s: the offsets of the two phases differ", what);
  for (s = 0; s < SC_SEGMENTS; ++s) {
    int32_t distinct = 0, j;
    uint32_t sum = 0, key;
    memset(count, 0, (size_t)num_keys * sizeof(uint32_t));
    for (i = offsets[s]; i < offsets[s + 1]; ++i) ++count[keys[use_perm ? perm[i] : i]];
    if (!check(out_offsets[s + 1] - out_offsets[s] >= 0 && out_offsets[s] == pairs, "%s: segment %d's offsets %d, %d",
               what, (int)s, (int)out_offsets[s], (int)out_offsets[s + 1]))
      break;
    /* The pairs are the keys that occur, in increasing order, with their counts. */
    for (key = 0, j = out_offsets[s]; key < (uint32_t)num_keys; ++key) {
      int in_range;
      if (count[key] == 0) continue;
      ++distinct;
      in_range = j < out_offsets[s + 1] && j < SC_ITEMS;
      if (!check(in_range && out_keys[j] == key && out_counts[j] == count[key],
                 "%s: segment %d, pair %d is (%u, %u), expected (%u, %u)", what, (int)s, (int)j,
                 in_range ? out_keys[j] : 0u, in_range ? out_counts[j] : 0u, key, count[key]))
        break;
      sum += out_counts[j++];
    }
    check(out_offsets[s + 1] - out_offsets[s] == distinct && sum == (uint32_t)kLengths[s],
          "%s: segment %d has %d pairs summing to %u, expected %d summing to %d", what, (int)s,
          (int)(out_offsets[s + 1] - out_offsets[s]), sum, (int)distinct, (int)kLengths[s]);
    pairs += distinct;
  }
  check(out_offsets[SC_SEGMENTS] == pairs, "%s: %d pairs in all, expected %d", what, (int)out_offsets[SC_SEGMENTS],
        (int)pairs);

  /* A key out of range is found, at the item that reads it. */
  {
    const int32_t item = 150, slot = use_perm ? perm[item] : item;
    const uint32_t good = keys[slot];
    keys[slot] = (uint32_t)num_keys;
    must_cuda(cudaMemcpy(d_keys, keys, sizeof keys, cudaMemcpyHostToDevice), "cudaMemcpy");
    st = sk_segmented_count_check_u32(d_offsets, SC_SEGMENTS, SC_ITEMS, d_keys, d_perm, num_keys, &bad_index, 0);
    check(st == SK_ERROR_INVALID_VALUE && bad_index == item,
          "sk_segmented_count_check_u32 on a bad key at item %d: %s, bad_index %lld", (int)item, sk_status_name(st),
          (long long)bad_index);
    keys[slot] = good;
  }
  free(count);
  cudaFree(d_offsets);
  cudaFree(d_keys);
  cudaFree(d_perm);
  cudaFree(d_out_offsets);
  cudaFree(d_out_keys);
  cudaFree(d_out_counts);
  cudaFree(d_ws);
}

static void test_segmented_count(void) {
  test_segmented_count_case(16, 0); /* dense path */
  test_segmented_count_case(16, 1);
  test_segmented_count_case(SK_SEGMENTED_COUNT_DENSE_MAX_KEYS + 1, 0); /* sorted path */
  test_segmented_count_case(SK_SEGMENTED_COUNT_DENSE_MAX_KEYS + 1, 1);
}

/* --- csr_chunker.h: sk_csr_chunk_order_device against sk_csr_chunk_order_host --------------------- */
static void test_csr_chunk_order(void) {
  enum { T = 500, COLS = 1000 };
  int32_t tokens[T], perm[T], inverse[T], h_perm[T], h_inverse[T];
  int64_t offsets[COLS + 1], h_offsets[COLS + 1];
  unsigned char seen[T];
  int32_t *d_tokens, *d_perm, *d_inverse;
  int64_t *d_offsets;
  void *d_ws;
  size_t ws_bytes = 0;
  int i;

  for (i = 0; i < T; ++i) tokens[i] = (i * 37 + i / 7) % 61 * 16; /* repeated words up to 976: two digits */
  must(sk_csr_chunk_order_host(tokens, T, COLS, h_perm, h_inverse, h_offsets), "sk_csr_chunk_order_host");
  must(sk_csr_chunk_order_device_workspace_size(T, COLS, &ws_bytes), "sk_csr_chunk_order_device_workspace_size");
  d_tokens = (int32_t *)to_device(tokens, sizeof tokens);
  d_perm = (int32_t *)device_alloc(sizeof perm);
  d_inverse = (int32_t *)device_alloc(sizeof inverse);
  d_offsets = (int64_t *)device_alloc(sizeof offsets);
  d_ws = device_alloc(ws_bytes);
  must(sk_csr_chunk_order_device(d_tokens, T, COLS, d_perm, d_inverse, d_offsets, d_ws, ws_bytes, 0),
       "sk_csr_chunk_order_device");
  to_host(perm, d_perm, sizeof perm);
  to_host(inverse, d_inverse, sizeof inverse);
  to_host(offsets, d_offsets, sizeof offsets);

  memset(seen, 0, sizeof seen);
  for (i = 0; i < T; ++i) {
    if (!check(perm[i] >= 0 && perm[i] < T && !seen[perm[i]] && inverse[perm[i]] == i,
               "sk_csr_chunk_order_device: d_perm is not a permutation with d_inverse its inverse (at %d)", i))
      break;
    seen[perm[i]] = 1;
    if (!check(i == 0 || tokens[perm[i - 1]] < tokens[perm[i]] ||
                   (tokens[perm[i - 1]] == tokens[perm[i]] && perm[i - 1] < perm[i]),
               "sk_csr_chunk_order_device: positions %d and %d are out of (word, position) order", i - 1, i))
      break;
  }
  check(offsets[0] == 0 && offsets[COLS] == T, "sk_csr_chunk_order_device: word offsets from %lld to %lld",
        (long long)offsets[0], (long long)offsets[COLS]);
  check(memcmp(perm, h_perm, sizeof perm) == 0 && memcmp(inverse, h_inverse, sizeof inverse) == 0 &&
            memcmp(offsets, h_offsets, sizeof offsets) == 0,
        "sk_csr_chunk_order_device: differs from sk_csr_chunk_order_host");
  cudaFree(d_tokens);
  cudaFree(d_perm);
  cudaFree(d_inverse);
  cudaFree(d_offsets);
  cudaFree(d_ws);
}

/* --- csr_chunker.h: sk_csr_chunk_groups_device against the host's order with rows and groups ---- */
static void test_csr_chunk_groups(void) {
  enum { T = 600, ROWS = 30, COLS = 50, ITEM = 6 };
  int64_t row_offsets[ROWS + 1], h_offsets[COLS + 1], groups = 0, items = 0, counts[2] = {-1, -1};
  int32_t tokens[T], perm[T], inverse[T], position_row[T];
  int32_t h_gs[T + 1], h_gr[T], h_iw[T], h_ig[T], h_ie[T], gs[T + 1], gr[T], iw[T], ig[T], ie[T];
  int32_t *d_tokens, *d_perm, *d_inverse, *d_gs, *d_gr, *d_iw, *d_ig, *d_ie;
  int64_t *d_rows, *d_offsets, *d_counts;
  void *d_ws;
  size_t order_bytes = 0, groups_bytes = 0, ws_bytes;
  int i;

  /* Rows of 0 to 39 tokens and the rest in the last, the offsets starting at 100 (a chunk cut from a
   * larger matrix); words repeat within rows. */
  row_offsets[0] = 100;
  for (i = 0; i < ROWS; ++i) row_offsets[i + 1] = row_offsets[i] + (i + 1 < ROWS ? (i * 13) % 40 : 0);
  row_offsets[ROWS] = row_offsets[0] + T;
  for (i = 0; i < T; ++i) tokens[i] = ((i * 7) % 11) * ((i / 5) % 5) % COLS;
  must(sk_csr_chunk_order_rows_host(row_offsets, ROWS, tokens, T, COLS, perm, position_row, h_offsets),
       "sk_csr_chunk_order_rows_host");
  must(sk_csr_chunk_groups_count_host(position_row, T, COLS, h_offsets, ITEM, &groups, &items),
       "sk_csr_chunk_groups_count_host");
  must(sk_csr_chunk_groups_host(position_row, T, COLS, h_offsets, ITEM, h_gs, h_gr, groups, h_iw, h_ig, h_ie, items,
                                &groups, &items),
       "sk_csr_chunk_groups_host");
  must(sk_csr_chunk_order_device_workspace_size(T, COLS, &order_bytes), "sk_csr_chunk_order_device_workspace_size");
  must(sk_csr_chunk_groups_device_workspace_size(T, &groups_bytes), "sk_csr_chunk_groups_device_workspace_size");
  ws_bytes = order_bytes > groups_bytes ? order_bytes : groups_bytes;
  d_tokens = (int32_t *)to_device(tokens, sizeof tokens);
  d_rows = (int64_t *)to_device(row_offsets, sizeof row_offsets);
  d_perm = (int32_t *)device_alloc(sizeof perm);
  d_inverse = (int32_t *)device_alloc(sizeof inverse);
  d_offsets = (int64_t *)device_alloc(sizeof h_offsets);
  d_gs = (int32_t *)device_alloc(sizeof gs);
  d_gr = (int32_t *)device_alloc(sizeof gr);
  d_iw = (int32_t *)device_alloc(sizeof iw);
  d_ig = (int32_t *)device_alloc(sizeof ig);
  d_ie = (int32_t *)device_alloc(sizeof ie);
  d_counts = (int64_t *)device_alloc(sizeof counts);
  d_ws = device_alloc(ws_bytes);
  must(sk_csr_chunk_order_device(d_tokens, T, COLS, d_perm, d_inverse, d_offsets, d_ws, ws_bytes, 0),
       "sk_csr_chunk_order_device");
  must(sk_csr_chunk_groups_device(d_rows, ROWS, d_tokens, T, COLS, d_perm, d_offsets, ITEM, d_gs, d_gr, d_iw, d_ig,
                                  d_ie, d_counts, d_ws, ws_bytes, 0),
       "sk_csr_chunk_groups_device");
  to_host(counts, d_counts, sizeof counts);
  if (check(counts[0] == groups && counts[1] == items,
            "sk_csr_chunk_groups_device: %lld groups and %lld items, the host %lld and %lld", (long long)counts[0],
            (long long)counts[1], (long long)groups, (long long)items)) {
    to_host(gs, d_gs, ((size_t)groups + 1) * sizeof(int32_t));
    to_host(gr, d_gr, (size_t)groups * sizeof(int32_t));
    to_host(iw, d_iw, (size_t)items * sizeof(int32_t));
    to_host(ig, d_ig, (size_t)items * sizeof(int32_t));
    to_host(ie, d_ie, (size_t)items * sizeof(int32_t));
    check(memcmp(gs, h_gs, ((size_t)groups + 1) * sizeof(int32_t)) == 0 &&
              memcmp(gr, h_gr, (size_t)groups * sizeof(int32_t)) == 0 &&
              memcmp(iw, h_iw, (size_t)items * sizeof(int32_t)) == 0 &&
              memcmp(ig, h_ig, (size_t)items * sizeof(int32_t)) == 0 &&
              memcmp(ie, h_ie, (size_t)items * sizeof(int32_t)) == 0,
          "sk_csr_chunk_groups_device: differs from sk_csr_chunk_groups_host");
  }
  /* The host rule: items by decreasing token count. */
  for (i = 1; i < (int)items; ++i)
    if (!check(h_gs[h_ie[i - 1]] - h_gs[h_ig[i - 1]] >= h_gs[h_ie[i]] - h_gs[h_ig[i]],
               "sk_csr_chunk_groups_host: item %d is larger than item %d", i, i - 1))
      break;
  cudaFree(d_tokens);
  cudaFree(d_rows);
  cudaFree(d_perm);
  cudaFree(d_inverse);
  cudaFree(d_offsets);
  cudaFree(d_gs);
  cudaFree(d_gr);
  cudaFree(d_iw);
  cudaFree(d_ig);
  cudaFree(d_ie);
  cudaFree(d_counts);
  cudaFree(d_ws);
}

/* --- csr_pipeline.h: sk_csr_pipeline_run (streaming and resident), _download, _upload -------------- */
enum { PL_ROWS = 40, PL_COLS = 97, PL_MAX_TOKENS = PL_ROWS * 12 };

typedef struct pipeline_job {
  uint64_t seed;
  int perm_array; /* where to copy the chunk's d_perm, or -1 */
  int src_array;  /* copied to dst_array, or -1 */
  int dst_array;
} pipeline_job;

/* The work on a chunk, enqueued on the worker's stream: uniforms for its tokens into array 0 (token t
   gets sk_rng_uniform_f32(seed, 0, t)), and device-to-device copies that bring the rest back. */
static sk_status pipeline_step(const sk_csr_chunk_view *chunk, sk_stream stream, void *user) {
  const pipeline_job *job = (const pipeline_job *)user;
  const size_t n = (size_t)chunk->info.num_tokens;
  sk_status st =
      sk_rng_fill_uniform_f32(job->seed, 0, (uint64_t)chunk->info.first_token, (float *)chunk->d_arrays[0], n, stream);
  if (st == SK_SUCCESS && job->perm_array >= 0 && n > 0)
    st = sk_status_from_cuda_error((int)cudaMemcpyAsync(chunk->d_arrays[job->perm_array], chunk->d_perm,
                                                        n * sizeof(int32_t), cudaMemcpyDeviceToDevice, stream));
  if (st == SK_SUCCESS && job->src_array >= 0 && n > 0)
    st =
        sk_status_from_cuda_error((int)cudaMemcpyAsync(chunk->d_arrays[job->dst_array], chunk->d_arrays[job->src_array],
                                                       n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  return st;
}

static int uniforms_match(const char *what, const float *u, int64_t n, uint64_t seed) {
  int64_t t;
  for (t = 0; t < n; ++t)
    if (!check(same_bits(u[t], sk_rng_uniform_f32(seed, 0, (uint64_t)t)),
               "%s: token %lld's uniform is %.9g, expected %.9g", what, (long long)t, u[t],
               sk_rng_uniform_f32(seed, 0, (uint64_t)t)))
      return 0;
  return 1;
}

static void test_csr_pipeline(void) {
  int64_t row_offsets[PL_ROWS + 1], num_chunks = 0, done = -1, c, t, T;
  int32_t tokens[PL_MAX_TOKENS], perm_out[PL_MAX_TOKENS], h_perm[PL_MAX_TOKENS], h_inverse[PL_MAX_TOKENS];
  int64_t h_word_offsets[PL_COLS + 1];
  float uniforms[PL_MAX_TOKENS], src[PL_MAX_TOKENS], dst[PL_MAX_TOKENS];
  size_t per_token, per_row, per_chunk, ws_bytes = 0;
  sk_csr_chunk_plan *plan = NULL;
  sk_csr_pipeline *pipeline = NULL;
  sk_csr_pipeline_info info;
  pipeline_job job;
  int r;

  /* Documents of 0 to 12 tokens (empty ones included), word ids spread over the 97 words. */
  row_offsets[0] = 0;
  for (r = 0; r < PL_ROWS; ++r) row_offsets[r + 1] = row_offsets[r] + (r * 7) % 13;
  T = row_offsets[PL_ROWS];
  for (t = 0; t < T; ++t) tokens[t] = (int32_t)((t * 31 + t / 5) % PL_COLS);

  /* Streaming: several chunks, two workers, the word order built on the device for each chunk. */
  {
    sk_csr_pipeline_array arrays[2];
    arrays[0].h_data = uniforms;
    arrays[0].element_bytes = sizeof(float);
    arrays[0].extent = SK_CSR_PIPELINE_PER_TOKEN;
    arrays[0].direction = SK_CSR_PIPELINE_OUT;
    arrays[1].h_data = perm_out;
    arrays[1].element_bytes = sizeof(int32_t);
    arrays[1].extent = SK_CSR_PIPELINE_PER_TOKEN;
    arrays[1].direction = SK_CSR_PIPELINE_OUT;
    must(sk_csr_chunk_order_device_workspace_size(T, PL_COLS, &ws_bytes), "sk_csr_chunk_order_device_workspace_size");
    must(sk_csr_pipeline_chunk_costs(arrays, 2, PL_COLS, SK_CSR_PIPELINE_ORDER_DEVICE, ws_bytes, &per_token, &per_row,
                                     &per_chunk),
         "sk_csr_pipeline_chunk_costs");
    /* A budget of about a third of the tokens per chunk. */
    must(sk_csr_chunk_plan_create(row_offsets, PL_ROWS, per_token, per_row, per_chunk,
                                  per_chunk + per_token * (size_t)(T / 3) + per_row * PL_ROWS, &plan, NULL, NULL),
         "sk_csr_chunk_plan_create");
    must(sk_csr_chunk_plan_num_chunks(plan, &num_chunks), "sk_csr_chunk_plan_num_chunks");
    check(num_chunks >= 3, "sk_csr_chunk_plan_create: %lld chunks, expected 3 or more", (long long)num_chunks);
    must(sk_csr_pipeline_create(plan, row_offsets, tokens, PL_COLS, arrays, 2, 2, SK_CSR_PIPELINE_ORDER_DEVICE,
                                ws_bytes, SIZE_MAX, &pipeline),
         "sk_csr_pipeline_create (streaming)");
    must(sk_csr_pipeline_get_info(pipeline, &info), "sk_csr_pipeline_get_info");
    check(info.num_chunks == num_chunks && info.num_workers == 2 && !info.resident &&
              info.order == SK_CSR_PIPELINE_ORDER_DEVICE,
          "sk_csr_pipeline_get_info (streaming): %lld chunks, %d workers, resident %d, order %d",
          (long long)info.num_chunks, info.num_workers, info.resident, (int)info.order);
    for (job.seed = 1; job.seed <= 2; ++job.seed) {
      job.perm_array = 1;
      job.src_array = job.dst_array = -1;
      memset(uniforms, 0xff, sizeof uniforms);
      must(sk_csr_pipeline_run(pipeline, pipeline_step, &job, &done), "sk_csr_pipeline_run (streaming)");
      check(done == num_chunks, "sk_csr_pipeline_run: %lld chunks done of %lld", (long long)done,
            (long long)num_chunks);
      uniforms_match("sk_csr_pipeline_run (streaming)", uniforms, T, job.seed);
    }
    /* Each chunk's slice holds that chunk's word order, as the host builds it. */
    for (c = 0; c < num_chunks; ++c) {
      sk_csr_chunk_info ci;
      must(sk_csr_chunk_plan_chunk(plan, c, &ci), "sk_csr_chunk_plan_chunk");
      must(sk_csr_chunk_order_host(tokens + ci.first_token, ci.num_tokens, PL_COLS, h_perm, h_inverse, h_word_offsets),
           "sk_csr_chunk_order_host");
      if (!check(memcmp(perm_out + ci.first_token, h_perm, (size_t)ci.num_tokens * sizeof(int32_t)) == 0,
                 "sk_csr_pipeline_run (device order): chunk %lld's d_perm differs from sk_csr_chunk_order_host",
                 (long long)c))
        break;
    }
    must(sk_csr_pipeline_download(pipeline), "sk_csr_pipeline_download (streaming)");
    sk_csr_pipeline_destroy(pipeline);
    sk_csr_chunk_plan_destroy(plan);
  }

  /* Resident: one chunk stays on the device; results come back with download, inputs go with upload. */
  {
    sk_csr_pipeline_array arrays[3];
    arrays[0].h_data = uniforms;
    arrays[0].element_bytes = sizeof(float);
    arrays[0].extent = SK_CSR_PIPELINE_PER_TOKEN;
    arrays[0].direction = SK_CSR_PIPELINE_OUT;
    arrays[1] = arrays[0];
    arrays[1].h_data = src;
    arrays[1].direction = SK_CSR_PIPELINE_IN;
    arrays[2] = arrays[0];
    arrays[2].h_data = dst;
    must(sk_csr_pipeline_chunk_costs(arrays, 3, PL_COLS, SK_CSR_PIPELINE_ORDER_NONE, 0, &per_token, &per_row,
                                     &per_chunk),
         "sk_csr_pipeline_chunk_costs");
    must(sk_csr_chunk_plan_create(row_offsets, PL_ROWS, per_token, per_row, per_chunk, SIZE_MAX, &plan, NULL, NULL),
         "sk_csr_chunk_plan_create");
    must(sk_csr_pipeline_create(plan, row_offsets, tokens, PL_COLS, arrays, 3, 2, SK_CSR_PIPELINE_ORDER_NONE, 0,
                                SIZE_MAX, &pipeline),
         "sk_csr_pipeline_create (resident)");
    sk_csr_chunk_plan_destroy(plan);
    must(sk_csr_pipeline_get_info(pipeline, &info), "sk_csr_pipeline_get_info");
    check(info.num_chunks == 1 && info.num_workers == 1 && info.resident, "sk_csr_pipeline_get_info (resident)");
    for (t = 0; t < T; ++t) {
      src[t] = (float)t;
      dst[t] = -1.0f;
    }
    job.seed = 3;
    job.perm_array = -1;
    job.src_array = 1;
    job.dst_array = 2;
    memset(uniforms, 0xff, sizeof uniforms);
    must(sk_csr_pipeline_run(pipeline, pipeline_step, &job, &done), "sk_csr_pipeline_run (resident)");
    check(done == 1 && dst[0] == -1.0f && dst[T - 1] == -1.0f,
          "sk_csr_pipeline_run (resident): the host outputs changed before the download");
    must(sk_csr_pipeline_download(pipeline), "sk_csr_pipeline_download (resident)");
    uniforms_match("sk_csr_pipeline_download (resident)", uniforms, T, job.seed);
    check(memcmp(dst, src, (size_t)T * sizeof(float)) == 0, "sk_csr_pipeline_download (resident): dst != src");
    /* A changed input reaches the device only through upload. */
    for (t = 0; t < T; ++t) src[t] = (float)(2 * t + 1);
    must(sk_csr_pipeline_upload(pipeline, 1), "sk_csr_pipeline_upload");
    must(sk_csr_pipeline_run(pipeline, pipeline_step, &job, &done), "sk_csr_pipeline_run (resident, after upload)");
    must(sk_csr_pipeline_download(pipeline), "sk_csr_pipeline_download (resident)");
    check(memcmp(dst, src, (size_t)T * sizeof(float)) == 0,
          "sk_csr_pipeline_upload: the uploaded input did not reach the device");
    sk_csr_pipeline_destroy(pipeline);
  }
}

int main(void) {
  sk_device_info device;
  sk_status st;

  if (sk_get_version(&g_version[0], &g_version[1], &g_version[2]) != SK_SUCCESS) return 1;
  check(g_version[0] == SK_VERSION_MAJOR && g_version[1] == SK_VERSION_MINOR && g_version[2] == SK_VERSION_PATCH,
        "the library is %d.%d.%d, the headers %d.%d.%d", g_version[0], g_version[1], g_version[2], SK_VERSION_MAJOR,
        SK_VERSION_MINOR, SK_VERSION_PATCH);
  st = sk_device_query(0, &device);
  if (st == SK_ERROR_NO_DEVICE) {
    printf("samplekit %d.%d.%d: skipped: no usable CUDA GPU (%s); the C consumer needs one to run\n", g_version[0],
           g_version[1], g_version[2], sk_last_cuda_error_string());
    return 77;
  }
  must(st, "sk_device_query");

  test_rng_fill();
  test_wary_tree();
  test_sample_categorical();
  test_sample_categorical_product();
  test_segmented_count();
  test_csr_chunk_order();
  test_csr_chunk_groups();
  test_csr_pipeline();
  must_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize at the end");

  if (g_failures != 0 || g_checks == 0) fail_now();
  printf("samplekit %d.%d.%d: success (%ld checks on %s)\n", g_version[0], g_version[1], g_version[2], g_checks,
         device.name);
  return 0;
}
