/*
 * The CSR streaming chunker's host side from a C99 program: the chunk plan (coverage, order, budget,
 * fewest chunks, bottleneck-optimal token balance, the stated bound) on random CSR shapes against plain
 * references (a linear greedy packing and, for small matrices, an exhaustive dynamic program), the
 * PDOW order against a qsort reference, the order with rows against the order and the rows, the usage
 * snippet at scale, and every documented status of these. The groups and items are
 * test_csr_chunk_groups.c's. Needs no GPU (label cpu).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/samplekit.h"
#include "csr_test_shapes.h"
#include "sk_test.h"

/* ------------------------------------------------------------------------------------------------ */
/* Usage (the group's snippet; the groups' snippet is in test_csr_chunk_groups.c). */

//! [csr_chunker_usage]
// Plan the chunks of a CSR corpus (rows = documents, entries = word ids in [0, num_cols)) so that
// each chunk's device state fits `budget` bytes, then put each chunk's tokens in word order.
static int usage_example(const int64_t *row_offsets, int64_t num_rows, const int32_t *tokens, int32_t num_cols,
                         size_t budget) {
  const size_t per_token = 4 + 2 + 4; /* word id, topic, position in the permutation */
  const size_t per_row = 8;           /* the row's offset */
  const size_t per_chunk = (size_t)num_cols * 8 + 8; /* per-word offsets */
  sk_csr_chunk_plan *plan = NULL;
  int64_t bad_row, num_chunks, c;
  size_t bad_bytes;
  sk_status st = sk_csr_chunk_plan_create(row_offsets, num_rows, per_token, per_row, per_chunk, budget, &plan,
                                          &bad_row, &bad_bytes);
  if (st != SK_SUCCESS) {
    if (bad_bytes != 0) /* the budget is too small: row bad_row (or, when -1, an empty chunk) needs more */
      fprintf(stderr, "row %lld needs %zu bytes\n", (long long)bad_row, bad_bytes);
    return -1;
  }
  sk_csr_chunk_plan_num_chunks(plan, &num_chunks);
  for (c = 0; c < num_chunks && st == SK_SUCCESS; ++c) {
    sk_csr_chunk_info info;
    int32_t *perm, *inverse;
    int64_t *word_offsets = (int64_t *)malloc(((size_t)num_cols + 1) * sizeof *word_offsets);
    sk_csr_chunk_plan_chunk(plan, c, &info);
    perm = (int32_t *)malloc((size_t)info.num_tokens * sizeof *perm + 1);
    inverse = (int32_t *)malloc((size_t)info.num_tokens * sizeof *inverse + 1);
    st = sk_csr_chunk_order_host(tokens + info.first_token, info.num_tokens, num_cols, perm, inverse,
                                 word_offsets);
    /* ... copy rows [info.first_row, + info.num_rows) and their tokens in, in word order ... */
    free(perm);
    free(inverse);
    free(word_offsets);
  }
  sk_csr_chunk_plan_destroy(plan);
  return st == SK_SUCCESS ? (int)num_chunks : -1;
}
//! [csr_chunker_usage]

/* ------------------------------------------------------------------------------------------------ */
/* References in plain C, independent of the library's binary searches. */

typedef struct {
  unsigned long long bpt, bpr, fixed, budget;
} cost_model;

/* The test keeps every footprint far below 2^63, so plain arithmetic is exact. */
static unsigned long long ref_bytes(const cost_model *m, long long rows, long long tokens) {
  return m->fixed + m->bpr * (unsigned long long)rows + m->bpt * (unsigned long long)tokens;
}

static int ref_fits(const int64_t *off, const cost_model *m, long long a, long long b, long long cap) {
  const long long tokens = off[b] - off[a];
  return tokens <= cap && tokens <= INT32_MAX && ref_bytes(m, b - a, tokens) <= m->budget;
}

/* Linear greedy packing: the number of chunks, or -1 when a row fits in none. */
static long long ref_greedy(const int64_t *off, long long n, const cost_model *m, long long cap) {
  long long a = 0, count = 0;
  while (a < n) {
    long long b = a;
    while (b < n && ref_fits(off, m, a, b + 1, cap)) ++b;
    if (b == a) return -1;
    ++count;
    a = b;
  }
  return count;
}

/* Exhaustive: best[j][i] = the smallest largest chunk of any partition of rows [0, i) into j chunks
 * that fit (-1: none). Small n only. Returns the fewest chunks and, in *bottleneck, best[C][n]. */
#define DP_MAX_ROWS 48
static long long ref_dp(const int64_t *off, long long n, const cost_model *m, long long *bottleneck) {
  static long long best[DP_MAX_ROWS + 1][DP_MAX_ROWS + 1];
  long long i, j, a;
  for (j = 0; j <= n; ++j)
    for (i = 0; i <= n; ++i) best[j][i] = -1;
  best[0][0] = 0;
  for (j = 1; j <= n; ++j)
    for (i = 1; i <= n; ++i)
      for (a = 0; a < i; ++a) {
        long long t, v;
        if (best[j - 1][a] < 0 || !ref_fits(off, m, a, i, INT64_MAX)) continue;
        t = off[i] - off[a];
        v = best[j - 1][a] > t ? best[j - 1][a] : t;
        if (best[j][i] < 0 || v < best[j][i]) best[j][i] = v;
      }
  for (j = 1; j <= n; ++j)
    if (best[j][n] >= 0) {
      *bottleneck = best[j][n];
      return j;
    }
  *bottleneck = -1;
  return n == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------------------------------------ */
/* Plan invariants. */

/* Checks one plan against the rules; returns its number of chunks (or -1 when it could not be made). */
static long long check_plan(const int64_t *off, long long n, const cost_model *m, int use_dp) {
  sk_csr_chunk_plan *plan = NULL;
  int64_t bad_row = 7, num_chunks = -1, c, largest = 0, longest = 0, total = off[n];
  size_t bad_bytes = 7;
  long long expect_chunks, r;
  int ok = 1;
  const sk_status st = sk_csr_chunk_plan_create(off, n, (size_t)m->bpt, (size_t)m->bpr, (size_t)m->fixed,
                                                (size_t)m->budget, &plan, &bad_row, &bad_bytes);
  for (r = 0; r < n; ++r)
    if (off[r + 1] - off[r] > longest) longest = off[r + 1] - off[r];
  expect_chunks = m->fixed > m->budget ? -1 : ref_greedy(off, n, m, INT64_MAX);
  if (expect_chunks < 0) {
    SK_CHECK(st == SK_ERROR_INVALID_VALUE && plan == NULL && bad_bytes != 0, "expected 'budget too small'");
    return -1;
  }
  if (!SK_CHECK(st == SK_SUCCESS && plan != NULL, "create gave %s", sk_status_name(st))) return -1;
  SK_CHECK(bad_row == -1 && bad_bytes == 0, "bad_row %lld, bytes %zu on success", (long long)bad_row, bad_bytes);
  SK_CHECK(sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS, "num_chunks failed");
  /* The fewest chunks, as the linear greedy packing (optimal) finds them. */
  SK_CHECK(num_chunks == expect_chunks, "%lld chunks, the fewest is %lld", (long long)num_chunks, expect_chunks);
  {
    int64_t next_row = 0;
    for (c = 0; c < num_chunks && ok; ++c) {
      sk_csr_chunk_info info;
      unsigned long long bytes;
      ok &= SK_CHECK(sk_csr_chunk_plan_chunk(plan, c, &info) == SK_SUCCESS, "chunk %lld failed", (long long)c);
      if (!ok) break;
      bytes = ref_bytes(m, info.num_rows, info.num_tokens);
      ok &= SK_CHECK(info.first_row == next_row && info.num_rows >= 1 && info.first_row + info.num_rows <= n,
                     "chunk %lld: rows [%lld, +%lld) after row %lld of %lld", (long long)c, (long long)info.first_row,
                     (long long)info.num_rows, (long long)next_row, n);
      if (!ok) break;
      ok &= SK_CHECK(info.first_token == off[info.first_row] &&
                         info.num_tokens == off[info.first_row + info.num_rows] - off[info.first_row],
                     "chunk %lld: tokens [%lld, +%lld) disagree with the offsets", (long long)c,
                     (long long)info.first_token, (long long)info.num_tokens);
      ok &= SK_CHECK(info.bytes == bytes && bytes <= m->budget && info.num_tokens <= INT32_MAX,
                     "chunk %lld: %zu bytes (formula %llu), budget %llu", (long long)c, info.bytes, bytes, m->budget);
      if (info.num_tokens > largest) largest = info.num_tokens;
      next_row = info.first_row + info.num_rows;
    }
    if (ok) SK_CHECK(next_row == n, "the chunks end at row %lld of %lld", (long long)next_row, n);
  }
  if (ok && num_chunks > 0) {
    /* Bottleneck-optimal: a cap one token lower needs more chunks (or cannot be met). */
    const long long fewer = largest > 0 ? ref_greedy(off, n, m, largest - 1) : -1;
    SK_CHECK(fewer < 0 || fewer > num_chunks, "largest chunk %lld tokens, but %lld chunks fit under %lld",
             (long long)largest, fewer, (long long)largest - 1);
    /* The stated bound when rows cost nothing, and wherever C chunks fit under that cap. */
    if (total > 0) {
      const long long bound = (total + num_chunks - 1) / num_chunks + longest - 1;
      const long long under = ref_greedy(off, n, m, bound);
      if (m->bpr == 0) SK_CHECK(under >= 0 && under <= num_chunks, "the bound's proof fails: %lld chunks", under);
      if (under >= 0 && under <= num_chunks)
        SK_CHECK(largest <= bound, "largest chunk %lld tokens > ceil(T/C) + longest - 1 = %lld (T %lld, C %lld)",
                 (long long)largest, bound, (long long)total, (long long)num_chunks);
    }
    if (use_dp && n <= DP_MAX_ROWS) {
      long long bottleneck;
      const long long fewest = ref_dp(off, n, m, &bottleneck);
      SK_CHECK(fewest == num_chunks && bottleneck == largest, "exhaustive: %lld chunks, largest %lld; plan %lld, %lld",
               fewest, bottleneck, (long long)num_chunks, (long long)largest);
    }
  }
  sk_csr_chunk_plan_destroy(plan);
  return num_chunks;
}

/* The smallest budget with which the fewest chunks is at most `chunks` (by the reference packing). */
static unsigned long long budget_for(const int64_t *off, long long n, cost_model m, long long chunks) {
  unsigned long long lo = m.fixed, hi = ref_bytes(&m, n, off[n]);
  long long r;
  for (r = 0; r < n; ++r) {
    const unsigned long long alone = ref_bytes(&m, 1, off[r + 1] - off[r]);
    if (alone > lo) lo = alone;
  }
  if (hi < lo) hi = lo;
  while (lo < hi) {
    const unsigned long long mid = lo + (hi - lo) / 2;
    long long got;
    m.budget = mid;
    got = ref_greedy(off, n, &m, INT64_MAX);
    if (got >= 0 && got <= chunks)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static void test_plan_shapes(void) {
  static const long long kRows[] = {0, 1, 2, 31, 32, 33, 100, 1000, 10007};
  static const long long kTargets[] = {1, 2, 7, 50};
  static const cost_model kModels[] = {
      {6, 0, 1000, 0}, /* tokens only (the bound applies) */
      {4, 16, 0, 0},   /* tokens and rows */
      {0, 8, 64, 0},   /* rows only */
      {1, 1000, 5, 0}, /* rows dominate */
  };
  const int seeds = sk_test_seed_count();
  int seed, shape;
  size_t ni, mi, ti;
  long long exact_hits = 0, exact_tries = 0;
  for (seed = 0; seed < seeds; ++seed)
    for (shape = 0; shape < kNumShapes; ++shape)
      for (ni = 0; ni < sizeof kRows / sizeof kRows[0]; ++ni) {
        uint64_t rng = 0x5eedull * 1000003u + (uint64_t)seed * 7919u + (uint64_t)shape * 131u + ni;
        const long long n = kRows[ni];
        int64_t *off = make_offsets(shape, n, &rng);
        for (mi = 0; mi < sizeof kModels / sizeof kModels[0]; ++mi)
          for (ti = 0; ti < sizeof kTargets / sizeof kTargets[0]; ++ti) {
            cost_model m = kModels[mi];
            long long got;
            m.budget = budget_for(off, n, m, kTargets[ti]);
            sk_test_context("seed %d, shape %s, rows %lld, model %zu, target %lld chunks, budget %llu", seed,
                            kShapeNames[shape], n, mi, kTargets[ti], m.budget);
            got = check_plan(off, n, &m, 1);
            /* Rows of one length: a chunk's footprint is linear in its rows, the fewest chunks is
             * ceil(n / (rows a chunk holds)), and for n >= 1,000 every target is met exactly. */
            if (shape == kConstant && n >= 1000) {
              ++exact_tries;
              exact_hits += got == kTargets[ti];
            }
            /* Slack above the tightest budget, and the tightest budget less one byte. */
            m.budget += sk_test_rand_u32(&rng) % 4096u;
            check_plan(off, n, &m, 1);
            m.budget = budget_for(off, n, m, kTargets[ti]);
            if (m.budget > 0) {
              --m.budget;
              check_plan(off, n, &m, 1);
            }
          }
        free(off);
      }
  /* The budgets really force the chunk counts asked for (the test is not vacuous). */
  sk_test_context("budgets that force 1, 2, 7 and 50 chunks");
  SK_CHECK(exact_tries > 0 && exact_hits == exact_tries, "%lld of %lld constant-row cases got the chunk count aimed at",
           exact_hits, exact_tries);
}

/* Small matrices against the exhaustive program over many random budgets and costs. */
static void test_plan_exhaustive(void) {
  const int seeds = sk_test_seed_count();
  int seed, trial;
  for (seed = 0; seed < seeds; ++seed)
    for (trial = 0; trial < 200; ++trial) {
      uint64_t rng = 0xd9ull + (uint64_t)seed * 100003u + (uint64_t)trial;
      const long long n = (long long)(sk_test_rand_u32(&rng) % (DP_MAX_ROWS + 1));
      const int shape = (int)(sk_test_rand_u32(&rng) % kNumShapes);
      int64_t *off = make_offsets(shape, n, &rng);
      cost_model m;
      unsigned long long whole;
      m.bpt = sk_test_rand_u32(&rng) % 4u;
      m.bpr = sk_test_rand_u32(&rng) % 3u == 0 ? 0 : sk_test_rand_u32(&rng) % 50u;
      m.fixed = sk_test_rand_u32(&rng) % 100u;
      whole = ref_bytes(&m, n, off[n]);
      m.budget = m.fixed + sk_test_rand_u64(&rng) % (whole - m.fixed + 2);
      sk_test_context("exhaustive: seed %d, trial %d, shape %s, rows %lld, costs %llu/%llu/%llu, budget %llu", seed,
                      trial, kShapeNames[shape], n, m.bpt, m.bpr, m.fixed, m.budget);
      check_plan(off, n, &m, 1);
      free(off);
    }
}

static void test_plan_single_chunk(void) {
  const int seeds = sk_test_seed_count();
  int seed, shape;
  for (seed = 0; seed < seeds; ++seed)
    for (shape = 0; shape < kNumShapes; ++shape) {
      uint64_t rng = 0x1c ^ ((uint64_t)seed << 8) ^ (uint64_t)shape;
      const long long n = 1 + (long long)(sk_test_rand_u32(&rng) % 5000u);
      int64_t *off = make_offsets(shape, n, &rng);
      cost_model m = {4, 8, 1 << 20, 0};
      m.budget = ref_bytes(&m, n, off[n]);
      sk_test_context("single chunk: seed %d, shape %s, rows %lld", seed, kShapeNames[shape], n);
      SK_CHECK(check_plan(off, n, &m, 0) == 1, "the whole matrix fits but is not one chunk");
      --m.budget;
      SK_CHECK(check_plan(off, n, &m, 0) >= 2 || n == 1, "one byte short of the whole still gives one chunk");
      free(off);
    }
  {
    const int64_t zero = 0;
    sk_csr_chunk_plan *plan = NULL;
    int64_t num_chunks = -1;
    sk_csr_chunk_info info;
    sk_test_context("no rows");
    SK_CHECK(sk_csr_chunk_plan_create(&zero, 0, 4, 4, 100, 100, &plan, NULL, NULL) == SK_SUCCESS && plan != NULL,
             "create with no rows");
    SK_CHECK(sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS && num_chunks == 0, "%lld chunks",
             (long long)num_chunks);
    SK_CHECK(sk_csr_chunk_plan_chunk(plan, 0, &info) == SK_ERROR_INVALID_VALUE, "chunk 0 of an empty plan");
    sk_csr_chunk_plan_destroy(plan);
  }
}

/* A row that fits in no chunk: the status, the row and the bytes. */
static void test_plan_too_big(void) {
  const int seeds = sk_test_seed_count();
  int seed;
  for (seed = 0; seed < seeds; ++seed) {
    uint64_t rng = 0xb16ull + (uint64_t)seed;
    const long long n = 2 + (long long)(sk_test_rand_u32(&rng) % 2000u);
    int64_t *off = make_offsets(kOneHuge, n, &rng);
    sk_csr_chunk_plan *plan = (sk_csr_chunk_plan *)&rng; /* must come back NULL */
    int64_t bad_row = -2, longest_row = 0, r;
    size_t bad_bytes = 0, need;
    for (r = 0; r < n; ++r)
      if (off[r + 1] - off[r] > off[longest_row + 1] - off[longest_row]) longest_row = r;
    need = 100 + 3 + 2 * (size_t)(off[longest_row + 1] - off[longest_row]);
    sk_test_context("row too big: seed %d, rows %lld, huge row %lld", seed, n, (long long)longest_row);
    SK_CHECK(sk_csr_chunk_plan_create(off, n, 2, 3, 100, need - 1, &plan, &bad_row, &bad_bytes) ==
                 SK_ERROR_INVALID_VALUE,
             "no status for a row that cannot fit");
    SK_CHECK(plan == NULL && bad_row == longest_row && bad_bytes == need,
             "plan %p, row %lld (expected %lld), %zu bytes (expected %zu)", (void *)plan, (long long)bad_row,
             (long long)longest_row, bad_bytes, need);
    SK_CHECK(sk_csr_chunk_plan_create(off, n, 2, 3, 100, need, &plan, &bad_row, &bad_bytes) == SK_SUCCESS &&
                 bad_row == -1 && bad_bytes == 0,
             "fails with a budget that holds the row");
    sk_csr_chunk_plan_destroy(plan);
    free(off);
  }
  {
    /* The first of several rows too big; a budget below the fixed cost; a footprint beyond size_t; a
     * row of more than INT32_MAX tokens, whose bytes are within the budget. */
    const int64_t off[] = {0, 1, 11, 12, 22};
    const int64_t off_big[] = {0, 5, (int64_t)INT32_MAX + 6, (int64_t)INT32_MAX + 7};
    sk_csr_chunk_plan *plan = NULL;
    int64_t bad_row = 0;
    size_t bad_bytes = 0;
    sk_test_context("row too big: fixed cases");
    SK_CHECK(sk_csr_chunk_plan_create(off, 4, 1, 0, 0, 9, &plan, &bad_row, &bad_bytes) == SK_ERROR_INVALID_VALUE &&
                 bad_row == 1 && bad_bytes == 10,
             "first row too big: row %lld, %zu bytes", (long long)bad_row, bad_bytes);
    SK_CHECK(sk_csr_chunk_plan_create(off, 4, 1, 0, 50, 49, &plan, &bad_row, &bad_bytes) == SK_ERROR_INVALID_VALUE &&
                 bad_row == -1 && bad_bytes == 50,
             "fixed cost over the budget: row %lld, %zu bytes", (long long)bad_row, bad_bytes);
    SK_CHECK(sk_csr_chunk_plan_create(off, 0, 1, 0, 50, 49, &plan, &bad_row, &bad_bytes) == SK_ERROR_INVALID_VALUE &&
                 bad_row == -1 && bad_bytes == 50,
             "fixed cost over the budget with no rows");
    SK_CHECK(sk_csr_chunk_plan_create(off, 4, SIZE_MAX / 4, 0, 0, SIZE_MAX, &plan, &bad_row, &bad_bytes) ==
                     SK_ERROR_INVALID_VALUE &&
                 bad_row == 1 && bad_bytes == SIZE_MAX,
             "overflowing footprint: row %lld, %zu bytes", (long long)bad_row, bad_bytes);
    SK_CHECK(sk_csr_chunk_plan_create(off_big, 3, 0, 1, 0, 1000, &plan, &bad_row, &bad_bytes) ==
                     SK_ERROR_INVALID_VALUE &&
                 bad_row == 1 && bad_bytes == 1,
             "row over INT32_MAX tokens: row %lld, %zu bytes", (long long)bad_row, bad_bytes);
    /* With every cost 0 such a row needs 0 bytes, yet it is the budget case, not a malformed matrix. */
    SK_CHECK(sk_csr_chunk_plan_create(off_big, 3, 0, 0, 0, 0, &plan, &bad_row, &bad_bytes) == SK_ERROR_INVALID_VALUE &&
                 bad_row == 1 && bad_bytes != 0,
             "row over INT32_MAX tokens at no cost: row %lld, %zu bytes", (long long)bad_row, bad_bytes);
    SK_CHECK(plan == NULL, "plan not NULL after a failure");
    /* A chunk may hold exactly INT32_MAX tokens, not one more: two such rows make two chunks. */
    {
      const int64_t off_max[] = {0, INT32_MAX, 2 * (int64_t)INT32_MAX};
      int64_t num_chunks = 0;
      SK_CHECK(sk_csr_chunk_plan_create(off_max, 2, 0, 0, 0, 0, &plan, &bad_row, &bad_bytes) == SK_SUCCESS &&
                   sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS && num_chunks == 2,
               "rows of INT32_MAX tokens: %lld chunks", (long long)num_chunks);
      sk_csr_chunk_plan_destroy(plan);
    }
  }
}

static void test_plan_bad_inputs(void) {
  const int64_t good[] = {0, 3, 3, 8};
  const int64_t not_zero[] = {1, 3, 3, 8};
  const int64_t decreasing[] = {0, 3, 2, 8};
  const int64_t decreasing_last[] = {0, 3, 3, -8};
  sk_csr_chunk_plan *plan = NULL;
  sk_csr_chunk_info info, untouched;
  int64_t bad_row = 5, num_chunks = -1;
  size_t bad_bytes = 5;
  sk_test_context("plan: bad inputs");
  SK_CHECK(sk_csr_chunk_plan_create(good, 3, 1, 1, 1, 100, NULL, &bad_row, &bad_bytes) == SK_ERROR_NULL_POINTER &&
               bad_row == -1 && bad_bytes == 0,
           "plan NULL");
  plan = (sk_csr_chunk_plan *)&info;
  SK_CHECK(sk_csr_chunk_plan_create(NULL, 3, 1, 1, 1, 100, &plan, NULL, NULL) == SK_ERROR_NULL_POINTER && plan == NULL,
           "offsets NULL");
  SK_CHECK(sk_csr_chunk_plan_create(good, -1, 1, 1, 1, 100, &plan, NULL, NULL) == SK_ERROR_INVALID_VALUE, "rows -1");
  SK_CHECK(sk_csr_chunk_plan_create(good, INT64_MAX, 1, 1, 1, 100, &plan, NULL, NULL) == SK_ERROR_INVALID_VALUE,
           "rows INT64_MAX");
  bad_row = 5;
  bad_bytes = 5;
  SK_CHECK(sk_csr_chunk_plan_create(not_zero, 3, 1, 1, 1, 100, &plan, &bad_row, &bad_bytes) ==
                   SK_ERROR_INVALID_VALUE &&
               bad_row == -1 && bad_bytes == 0,
           "offsets not starting at 0");
  SK_CHECK(sk_csr_chunk_plan_create(decreasing, 3, 1, 1, 1, 100, &plan, &bad_row, &bad_bytes) ==
                   SK_ERROR_INVALID_VALUE &&
               bad_row == -1 && bad_bytes == 0 && plan == NULL,
           "decreasing offsets");
  SK_CHECK(sk_csr_chunk_plan_create(decreasing_last, 3, 1, 1, 1, 100, &plan, NULL, NULL) == SK_ERROR_INVALID_VALUE,
           "negative last offset");
  /* Decreasing offsets beat a budget that is too small: the order of the checks. */
  SK_CHECK(sk_csr_chunk_plan_create(decreasing, 3, 1, 1, 1000, 100, &plan, &bad_row, &bad_bytes) ==
                   SK_ERROR_INVALID_VALUE &&
               bad_bytes == 0,
           "offsets are not checked before the budget");

  SK_CHECK(sk_csr_chunk_plan_create(good, 3, 1, 1, 1, 100, &plan, NULL, NULL) == SK_SUCCESS, "a good plan");
  SK_CHECK(sk_csr_chunk_plan_num_chunks(NULL, &num_chunks) == SK_ERROR_NULL_POINTER, "num_chunks, plan NULL");
  SK_CHECK(sk_csr_chunk_plan_num_chunks(plan, NULL) == SK_ERROR_NULL_POINTER, "num_chunks, out NULL");
  memset(&untouched, 0x5a, sizeof untouched);
  info = untouched;
  SK_CHECK(sk_csr_chunk_plan_chunk(NULL, 0, &info) == SK_ERROR_NULL_POINTER, "chunk, plan NULL");
  SK_CHECK(sk_csr_chunk_plan_chunk(plan, 0, NULL) == SK_ERROR_NULL_POINTER, "chunk, info NULL");
  SK_CHECK(sk_csr_chunk_plan_chunk(plan, -1, &info) == SK_ERROR_INVALID_VALUE, "chunk -1");
  SK_CHECK(sk_csr_chunk_plan_chunk(plan, 1, &info) == SK_ERROR_INVALID_VALUE, "chunk C");
  SK_CHECK(memcmp(&info, &untouched, sizeof info) == 0, "info written on failure");
  sk_csr_chunk_plan_destroy(plan);
  sk_csr_chunk_plan_destroy(NULL); /* a no-op */
  SK_CHECK(1, "destroy(NULL) returned");
}

/* ------------------------------------------------------------------------------------------------ */
/* Order (PDOW). */

static void check_order(const int32_t *tokens, int64_t num_tokens, int32_t num_cols) {
  int32_t *perm = (int32_t *)malloc((size_t)num_tokens * sizeof *perm + 4);
  int32_t *inverse = (int32_t *)malloc((size_t)num_tokens * sizeof *inverse + 4);
  int64_t *offsets = (int64_t *)malloc(((size_t)num_cols + 1) * sizeof *offsets);
  int64_t *counts = (int64_t *)calloc((size_t)num_cols + 1, sizeof *counts);
  word_position *ref = (word_position *)malloc((size_t)num_tokens * sizeof *ref + 8);
  int64_t i, w, sum = 0;
  int ok = 1;
  const sk_status st = sk_csr_chunk_order_host(tokens, num_tokens, num_cols, perm, inverse, offsets);
  if (SK_CHECK(st == SK_SUCCESS, "order gave %s", sk_status_name(st))) {
    for (i = 0; i < num_tokens; ++i) {
      ref[i].word = tokens[i];
      ref[i].position = (int32_t)i;
      ++counts[tokens[i]];
    }
    qsort(ref, (size_t)num_tokens, sizeof *ref, compare_word_position);
    for (i = 0; i < num_tokens && ok; ++i)
      ok &= SK_CHECK(perm[i] == ref[i].position, "perm[%lld] = %d, reference %d (word %d)", (long long)i, perm[i],
                     ref[i].position, ref[i].word);
    /* Stability spelled out: within a word, positions increase. */
    for (i = 1; i < num_tokens && ok; ++i)
      ok &= SK_CHECK(tokens[perm[i - 1]] < tokens[perm[i]] ||
                         (tokens[perm[i - 1]] == tokens[perm[i]] && perm[i - 1] < perm[i]),
                     "word order not stable at %lld", (long long)i);
    for (i = 0; i < num_tokens && ok; ++i)
      ok &= SK_CHECK(inverse[i] >= 0 && inverse[i] < num_tokens && perm[inverse[i]] == i,
                     "inverse[%lld] = %d is not the inverse", (long long)i, inverse[i]);
    for (w = 0; w < num_cols && ok; ++w) {
      ok &= SK_CHECK(offsets[w] == sum, "word %lld starts at %lld, expected %lld", (long long)w, (long long)offsets[w],
                     (long long)sum);
      sum += counts[w];
      for (i = offsets[w]; i < sum && ok; ++i)
        ok &= SK_CHECK(tokens[perm[i]] == w, "position %lld holds word %d inside word %lld's range", (long long)i,
                       tokens[perm[i]], (long long)w);
    }
    if (ok) SK_CHECK(offsets[num_cols] == num_tokens, "last offset %lld", (long long)offsets[num_cols]);
  }
  free(perm);
  free(inverse);
  free(offsets);
  free(counts);
  free(ref);
}

static void test_order(void) {
  static const int64_t kTokens[] = {0, 1, 2, 31, 32, 33, 1000, 4099, 100003};
  static const int32_t kCols[] = {1, 2, 7, 1000, 100000};
  enum { kUniformWords, kZipfWords, kOneWord, kDescending, kNumWordShapes };
  static const char *const kWordNames[] = {"uniform", "zipf", "one word", "descending runs"};
  const int seeds = sk_test_seed_count();
  int seed, ws;
  size_t ti, ci;
  for (seed = 0; seed < seeds; ++seed)
    for (ti = 0; ti < sizeof kTokens / sizeof kTokens[0]; ++ti)
      for (ci = 0; ci < sizeof kCols / sizeof kCols[0]; ++ci)
        for (ws = 0; ws < kNumWordShapes; ++ws) {
          uint64_t rng = 0x0dull + (uint64_t)seed * 1000033u + ti * 101u + ci * 13u + (uint64_t)ws;
          const int64_t n = kTokens[ti];
          const int32_t v = kCols[ci];
          int32_t *tokens = (int32_t *)malloc((size_t)n * sizeof *tokens + 4);
          const int32_t one = (int32_t)(sk_test_rand_u32(&rng) % (uint32_t)v);
          int64_t i;
          for (i = 0; i < n; ++i) {
            switch (ws) {
              case kUniformWords: tokens[i] = (int32_t)(sk_test_rand_u32(&rng) % (uint32_t)v); break;
              case kZipfWords: {
                const double u = 1.0 - (double)sk_test_rand_unit_f32(&rng);
                const double x = 1.0 / u - 1.0; /* P(X >= x) = 1 / (1 + x): heavy head, long tail */
                tokens[i] = x >= (double)v ? v - 1 : (int32_t)x;
                break;
              }
              case kOneWord: tokens[i] = one; break;
              default: tokens[i] = (int32_t)((v - 1) - (i / 3) % v); break;
            }
          }
          sk_test_context("order: seed %d, tokens %lld, words %d, %s", seed, (long long)n, v, kWordNames[ws]);
          check_order(tokens, n, v);
          free(tokens);
        }
  {
    sk_test_context("order: no words");
    check_order(NULL, 0, 0);
  }
}

static void test_order_bad_inputs(void) {
  int32_t tokens[6] = {0, 2, 1, 2, 0, 1};
  int32_t perm[6], inverse[6], both[12];
  int64_t offsets[4], sentinel_offsets[4];
  int32_t sentinel[6];
  int i;
  for (i = 0; i < 6; ++i) sentinel[i] = perm[i] = inverse[i] = -77;
  for (i = 0; i < 4; ++i) sentinel_offsets[i] = offsets[i] = -77;
  sk_test_context("order: bad inputs");
  SK_CHECK(sk_csr_chunk_order_host(tokens, -1, 3, perm, inverse, offsets) == SK_ERROR_INVALID_VALUE, "tokens -1");
  SK_CHECK(sk_csr_chunk_order_host(tokens, (int64_t)INT32_MAX + 1, 3, perm, inverse, offsets) ==
               SK_ERROR_INVALID_VALUE,
           "more than INT32_MAX tokens");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, -1, perm, inverse, offsets) == SK_ERROR_INVALID_VALUE, "words -1");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, perm, inverse, NULL) == SK_ERROR_NULL_POINTER, "offsets NULL");
  SK_CHECK(sk_csr_chunk_order_host(NULL, 6, 3, perm, inverse, offsets) == SK_ERROR_NULL_POINTER, "tokens NULL");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, NULL, inverse, offsets) == SK_ERROR_NULL_POINTER, "perm NULL");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, perm, NULL, offsets) == SK_ERROR_NULL_POINTER, "inverse NULL");
  SK_CHECK(sk_csr_chunk_order_host(NULL, 0, 3, NULL, NULL, offsets) == SK_SUCCESS && offsets[0] == 0 &&
               offsets[3] == 0,
           "no tokens with NULL arrays");
  for (i = 0; i < 4; ++i) offsets[i] = -77;
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, perm, perm, offsets) == SK_ERROR_INVALID_VALUE, "perm = inverse");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, both, both + 5, offsets) == SK_ERROR_INVALID_VALUE,
           "perm and inverse overlap");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, tokens, inverse, offsets) == SK_ERROR_INVALID_VALUE,
           "perm = tokens");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, perm, inverse, (int64_t *)(void *)perm) == SK_ERROR_INVALID_VALUE,
           "offsets overlap perm");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 2, perm, inverse, offsets) == SK_ERROR_INVALID_VALUE,
           "a token = num_cols");
  tokens[3] = -1;
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, perm, inverse, offsets) == SK_ERROR_INVALID_VALUE, "a token < 0");
  tokens[3] = 2;
  SK_CHECK(memcmp(perm, sentinel, sizeof perm) == 0 && memcmp(inverse, sentinel, sizeof inverse) == 0 &&
               memcmp(offsets, sentinel_offsets, sizeof offsets) == 0,
           "outputs written on failure");
  SK_CHECK(sk_csr_chunk_order_host(tokens, 6, 3, perm, inverse, offsets) == SK_SUCCESS && perm[0] == 0 &&
               perm[1] == 4 && perm[2] == 2 && perm[3] == 5 && perm[4] == 1 && perm[5] == 3 && offsets[1] == 2 &&
               offsets[2] == 4 && offsets[3] == 6,
           "the worked example");
}

/* The snippet runs, and a plan of a PubMed-sized corpus (8.2M documents) takes moments. */
static void test_usage_and_scale(void) {
  uint64_t rng = 0x5ca1eull;
  const long long n = 2000;
  int64_t *off = make_offsets(kLongTail, n, &rng);
  int32_t *tokens = (int32_t *)malloc((size_t)off[n] * sizeof *tokens + 4);
  int64_t i;
  int chunks;
  for (i = 0; i < off[n]; ++i) tokens[i] = (int32_t)(sk_test_rand_u32(&rng) % 500u);
  sk_test_context("usage snippet");
  chunks = usage_example(off, n, tokens, 500, (size_t)500 * 8 + 8 + 1000000);
  SK_CHECK(chunks >= 2, "the snippet gave %d chunks", chunks);
  SK_CHECK(usage_example(off, n, tokens, 500, 100) == -1, "the snippet accepted a budget below the fixed cost");
  free(tokens);
  free(off);
  {
    const long long big = 8200000;
    int64_t *offs = (int64_t *)malloc((size_t)(big + 1) * sizeof *offs);
    sk_csr_chunk_plan *plan = NULL;
    int64_t num_chunks = 0;
    offs[0] = 0;
    for (i = 0; i < big; ++i) offs[i + 1] = offs[i] + 1 + (int64_t)(sk_test_rand_u32(&rng) % 179u);
    sk_test_context("PubMed-sized plan");
    SK_CHECK(sk_csr_chunk_plan_create(offs, big, 6, 16, (size_t)1 << 26, (size_t)1 << 30, &plan, NULL, NULL) ==
                     SK_SUCCESS &&
                 sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS && num_chunks > 1,
             "%lld chunks", (long long)num_chunks);
    sk_csr_chunk_plan_destroy(plan);
    free(offs);
  }
}

int main(void) {
  test_plan_bad_inputs();
  test_plan_too_big();
  test_plan_single_chunk();
  test_plan_shapes();
  test_plan_exhaustive();
  test_order();
  test_order_bad_inputs();
  test_usage_and_scale();
  return sk_test_finish();
}
