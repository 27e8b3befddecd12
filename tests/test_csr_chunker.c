/*
 * The CSR streaming chunker's host side from a C99 program: the chunk plan (coverage, order, budget,
 * fewest chunks, bottleneck-optimal token balance, the stated bound) on random CSR shapes against plain
 * references (a linear greedy packing and, for small matrices, an exhaustive dynamic program), the
 * PDOW order against a qsort reference, the order with rows against the order and the rows, the groups
 * and items against a plain-C reference (qsort, then runs, a greedy cut and a qsort of the items) over
 * seeds, row shapes, vocabularies, word shapes and item_tokens, with a control whose planted bugs the
 * comparison must catch, and every documented status. Needs no GPU (label cpu).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/samplekit.h"
#include "sk_test.h"

/* ------------------------------------------------------------------------------------------------ */
/* Usage (the group's snippet). */

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

//! [csr_chunk_groups_usage]
// A chunk's work units for a sampler that visits the tokens by word: rows `row_offsets` (num_rows + 1,
// for a plan's chunk the corpus's offsets + info.first_row), tokens in document order. The order with
// rows gives each position's row; the count sizes the arrays; the groups and items follow. The caller
// frees the arrays of *out.
typedef struct {
  int64_t num_groups, num_items;
  int32_t *perm, *group_start, *group_row, *item_word, *item_group, *item_end;
} chunk_work;

static sk_status chunk_work_build(const int64_t *row_offsets, int64_t num_rows, const int32_t *tokens,
                                  int64_t num_tokens, int32_t num_cols, int32_t item_tokens, chunk_work *out) {
  int32_t *position_row = (int32_t *)malloc(((size_t)num_tokens + 1) * sizeof(int32_t));
  int64_t *word_offsets = (int64_t *)malloc(((size_t)num_cols + 1) * sizeof(int64_t));
  int64_t groups = 0, items = 0;
  sk_status st = SK_SUCCESS;
  memset(out, 0, sizeof *out);
  out->perm = (int32_t *)malloc(((size_t)num_tokens + 1) * sizeof(int32_t));
  if (!position_row || !word_offsets || !out->perm) st = SK_ERROR_HOST_ALLOCATION_FAILED;
  if (st == SK_SUCCESS)
    st = sk_csr_chunk_order_rows_host(row_offsets, num_rows, tokens, num_tokens, num_cols, out->perm, position_row,
                                      word_offsets);
  if (st == SK_SUCCESS)
    st = sk_csr_chunk_groups_count_host(position_row, num_tokens, num_cols, word_offsets, item_tokens, &groups,
                                        &items);
  if (st == SK_SUCCESS) {
    out->group_start = (int32_t *)malloc(((size_t)groups + 1) * sizeof(int32_t));
    out->group_row = (int32_t *)malloc(((size_t)groups + 1) * sizeof(int32_t));
    out->item_word = (int32_t *)malloc(((size_t)items + 1) * sizeof(int32_t));
    out->item_group = (int32_t *)malloc(((size_t)items + 1) * sizeof(int32_t));
    out->item_end = (int32_t *)malloc(((size_t)items + 1) * sizeof(int32_t));
    if (!out->group_start || !out->group_row || !out->item_word || !out->item_group || !out->item_end)
      st = SK_ERROR_HOST_ALLOCATION_FAILED;
  }
  if (st == SK_SUCCESS) /* item k: the tokens perm[group_start[item_group[k]] .. group_start[item_end[k]]) */
    st = sk_csr_chunk_groups_host(position_row, num_tokens, num_cols, word_offsets, item_tokens, out->group_start,
                                  out->group_row, groups, out->item_word, out->item_group, out->item_end, items,
                                  &out->num_groups, &out->num_items);
  free(position_row);
  free(word_offsets);
  return st;
}
//! [csr_chunk_groups_usage]

static void chunk_work_free(chunk_work *w) {
  free(w->perm);
  free(w->group_start);
  free(w->group_row);
  free(w->item_word);
  free(w->item_group);
  free(w->item_end);
}

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
/* Random CSR shapes. */

enum { kUniform, kManyEmpty, kOneHuge, kLongTail, kAllEmpty, kLongRows, kConstant, kNumShapes };
static const char *const kShapeNames[] = {"uniform 0-20", "90% empty",          "one huge row", "long-tailed",
                                          "all empty",    "long rows 100-1000", "constant 10"};

static int64_t *make_offsets(int shape, long long n, uint64_t *rng) {
  int64_t *off = (int64_t *)malloc((size_t)(n + 1) * sizeof *off);
  const long long huge = n > 0 ? (long long)(sk_test_rand_u64(rng) % (uint64_t)n) : 0;
  long long r;
  off[0] = 0;
  for (r = 0; r < n; ++r) {
    long long len = 0;
    switch (shape) {
      case kUniform: len = (long long)(sk_test_rand_u32(rng) % 21u); break;
      case kManyEmpty: len = sk_test_rand_u32(rng) % 10u == 0 ? 1 + (long long)(sk_test_rand_u32(rng) % 50u) : 0; break;
      case kOneHuge: len = r == huge ? 50 * n + 1000 : (long long)(sk_test_rand_u32(rng) % 11u); break;
      case kLongTail: {
        const double u = 1.0 - (double)sk_test_rand_unit_f32(rng); /* (0, 1] */
        const double x = pow(u, -1.5);                              /* Pareto, tail index 2/3 */
        len = x > 20000.0 ? 20000 : (long long)x - 1;
        break;
      }
      case kAllEmpty: len = 0; break;
      case kConstant: len = 10; break;
      default: len = 100 + (long long)(sk_test_rand_u32(rng) % 901u); break;
    }
    off[r + 1] = off[r] + len;
  }
  return off;
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

typedef struct {
  int32_t word, position;
} word_position;

static int compare_word_position(const void *a, const void *b) {
  const word_position *x = (const word_position *)a, *y = (const word_position *)b;
  if (x->word != y->word) return x->word < y->word ? -1 : 1;
  return x->position < y->position ? -1 : x->position > y->position;
}

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

/* ------------------------------------------------------------------------------------------------ */
/* Groups and items, against a plain-C reference: the word order by qsort, each position's row by a
 * linear walk, groups where (word, row) changes, each word's groups cut greedily, the items sorted by
 * qsort on (decreasing tokens, first group). */

typedef struct {
  int64_t num_groups, num_items;
  int32_t *group_start, *group_row, *item_word, *item_group, *item_end;
} groups_out;

enum { kNoBug, kBugCutAtEqual, kBugTiesReversed }; /* planted bugs of the reference, for the control */

typedef struct {
  int32_t tokens, first_group, end, word;
} ref_item;

static int ref_bug_ties_reversed = 0;

static int compare_ref_item(const void *a, const void *b) {
  const ref_item *x = (const ref_item *)a, *y = (const ref_item *)b;
  if (x->tokens != y->tokens) return x->tokens > y->tokens ? -1 : 1;
  if (ref_bug_ties_reversed) return (x->first_group < y->first_group) - (x->first_group > y->first_group);
  return (x->first_group > y->first_group) - (x->first_group < y->first_group);
}

static void groups_out_free(groups_out *g) {
  free(g->group_start);
  free(g->group_row);
  free(g->item_word);
  free(g->item_group);
  free(g->item_end);
  memset(g, 0, sizeof *g);
}

/* The reference; off may start anywhere (its first entry is the chunk's first token). */
static void ref_groups(const int64_t *off, int64_t num_rows, const int32_t *tokens, int64_t n, int32_t item_tokens,
                       int bug, groups_out *out) {
  word_position *wp = (word_position *)malloc((size_t)n * sizeof *wp + 8);
  int32_t *row = (int32_t *)malloc((size_t)n * sizeof *row + 4);
  ref_item *items = (ref_item *)malloc((size_t)n * sizeof *items + 12);
  int64_t i, r, j, g, k;
  memset(out, 0, sizeof *out);
  out->group_start = (int32_t *)malloc(((size_t)n + 1) * sizeof(int32_t));
  out->group_row = (int32_t *)malloc(((size_t)n + 1) * sizeof(int32_t));
  out->item_word = (int32_t *)malloc(((size_t)n + 1) * sizeof(int32_t));
  out->item_group = (int32_t *)malloc(((size_t)n + 1) * sizeof(int32_t));
  out->item_end = (int32_t *)malloc(((size_t)n + 1) * sizeof(int32_t));
  for (r = 0; r < num_rows; ++r)
    for (i = off[r] - off[0]; i < off[r + 1] - off[0]; ++i) row[i] = (int32_t)r;
  for (i = 0; i < n; ++i) {
    wp[i].word = tokens[i];
    wp[i].position = (int32_t)i;
  }
  qsort(wp, (size_t)n, sizeof *wp, compare_word_position);
  g = 0;
  for (j = 0; j < n; ++j)
    if (j == 0 || wp[j].word != wp[j - 1].word || row[wp[j].position] != row[wp[j - 1].position]) {
      out->group_start[g] = (int32_t)j;
      out->group_row[g] = row[wp[j].position];
      ++g;
    }
  out->group_start[g] = (int32_t)n;
  out->num_groups = g;
  k = 0;
  for (g = 0; g < out->num_groups; ++g) {
    const int32_t word = wp[out->group_start[g]].word;
    const int64_t size = out->group_start[g + 1] - out->group_start[g];
    const int new_word = g == 0 || wp[out->group_start[g - 1]].word != word;
    int64_t with = 0;
    if (!new_word) with = out->group_start[g + 1] - out->group_start[items[k - 1].first_group];
    if (new_word || (bug == kBugCutAtEqual ? with >= item_tokens : with > item_tokens)) {
      items[k].first_group = (int32_t)g;
      items[k].end = (int32_t)g + 1;
      items[k].tokens = (int32_t)size;
      items[k].word = word;
      ++k;
    } else {
      items[k - 1].end = (int32_t)g + 1;
      items[k - 1].tokens = (int32_t)with;
    }
  }
  out->num_items = k;
  ref_bug_ties_reversed = bug == kBugTiesReversed;
  qsort(items, (size_t)k, sizeof *items, compare_ref_item);
  ref_bug_ties_reversed = 0;
  for (k = 0; k < out->num_items; ++k) {
    out->item_word[k] = items[k].word;
    out->item_group[k] = items[k].first_group;
    out->item_end[k] = items[k].end;
  }
  free(wp);
  free(row);
  free(items);
}

/* The first difference between two results, described; NULL when they are equal. */
static const char *groups_difference(const groups_out *a, const groups_out *b) {
  static char why[200];
  int64_t i;
  if (a->num_groups != b->num_groups || a->num_items != b->num_items) {
    snprintf(why, sizeof why, "%lld groups and %lld items, reference %lld and %lld", (long long)a->num_groups,
             (long long)a->num_items, (long long)b->num_groups, (long long)b->num_items);
    return why;
  }
  for (i = 0; i <= a->num_groups; ++i)
    if (a->group_start[i] != b->group_start[i] || (i < a->num_groups && a->group_row[i] != b->group_row[i])) {
      snprintf(why, sizeof why, "group %lld: start %d row %d, reference %d and %d", (long long)i, a->group_start[i],
               i < a->num_groups ? a->group_row[i] : -1, b->group_start[i], i < a->num_groups ? b->group_row[i] : -1);
      return why;
    }
  for (i = 0; i < a->num_items; ++i)
    if (a->item_word[i] != b->item_word[i] || a->item_group[i] != b->item_group[i] || a->item_end[i] != b->item_end[i]) {
      snprintf(why, sizeof why, "item %lld: word %d groups [%d, %d), reference word %d groups [%d, %d)", (long long)i,
               a->item_word[i], a->item_group[i], a->item_end[i], b->item_word[i], b->item_group[i], b->item_end[i]);
      return why;
    }
  return NULL;
}

/* The library's order with rows, count and groups of one chunk; sized by the count, with a guard entry
 * after each array that must survive. The order's perm and offsets must be sk_csr_chunk_order_host's. */
static sk_status lib_groups(const int64_t *off, int64_t num_rows, const int32_t *tokens, int64_t n, int32_t cols,
                            int32_t item_tokens, groups_out *out) {
  int32_t *perm = (int32_t *)malloc((size_t)n * sizeof *perm + 4);
  int32_t *position_row = (int32_t *)malloc((size_t)n * sizeof *position_row + 4);
  int32_t *perm2 = (int32_t *)malloc((size_t)n * sizeof *perm2 + 4);
  int32_t *inverse = (int32_t *)malloc((size_t)n * sizeof *inverse + 4);
  int64_t *word_offsets = (int64_t *)malloc(((size_t)cols + 1) * sizeof *word_offsets);
  int64_t *word_offsets2 = (int64_t *)malloc(((size_t)cols + 1) * sizeof *word_offsets2);
  int64_t groups = -1, items = -1, g2 = -1, i2 = -1, j;
  const int32_t guard = 0x5eed;
  sk_status st;
  memset(out, 0, sizeof *out);
  st = sk_csr_chunk_order_rows_host(off, num_rows, tokens, n, cols, perm, position_row, word_offsets);
  if (!SK_CHECK(st == SK_SUCCESS, "order with rows: %s", sk_status_name(st))) goto done;
  /* The same order as sk_csr_chunk_order_host's, and each position's row. */
  st = sk_csr_chunk_order_host(tokens, n, cols, perm2, inverse, word_offsets2);
  SK_CHECK(st == SK_SUCCESS && memcmp(perm, perm2, (size_t)n * sizeof *perm) == 0 &&
               memcmp(word_offsets, word_offsets2, ((size_t)cols + 1) * sizeof *word_offsets) == 0,
           "the order with rows differs from sk_csr_chunk_order_host's");
  for (j = 0; j < n; ++j)
    if (!SK_CHECK(position_row[j] >= 0 && position_row[j] < num_rows &&
                      off[position_row[j]] - off[0] <= perm[j] && perm[j] < off[position_row[j] + 1] - off[0],
                  "position %lld (token %d) has row %d", (long long)j, perm[j], position_row[j]))
      break;
  st = sk_csr_chunk_groups_count_host(position_row, n, cols, word_offsets, item_tokens, &groups, &items);
  if (!SK_CHECK(st == SK_SUCCESS, "count: %s", sk_status_name(st))) goto done;
  out->group_start = (int32_t *)malloc(((size_t)groups + 2) * sizeof(int32_t));
  out->group_row = (int32_t *)malloc(((size_t)groups + 1) * sizeof(int32_t));
  out->item_word = (int32_t *)malloc(((size_t)items + 1) * sizeof(int32_t));
  out->item_group = (int32_t *)malloc(((size_t)items + 1) * sizeof(int32_t));
  out->item_end = (int32_t *)malloc(((size_t)items + 1) * sizeof(int32_t));
  out->group_start[groups + 1] = out->group_row[groups] = guard;
  out->item_word[items] = out->item_group[items] = out->item_end[items] = guard;
  st = sk_csr_chunk_groups_host(position_row, n, cols, word_offsets, item_tokens, out->group_start, out->group_row,
                                groups, out->item_word, out->item_group, out->item_end, items, &g2, &i2);
  SK_CHECK(st != SK_SUCCESS || (g2 == groups && i2 == items), "build gives %lld groups and %lld items, count %lld and %lld",
           (long long)g2, (long long)i2, (long long)groups, (long long)items);
  SK_CHECK(out->group_start[groups + 1] == guard && out->group_row[groups] == guard && out->item_word[items] == guard &&
               out->item_group[items] == guard && out->item_end[items] == guard,
           "a write past the arrays the count sized");
  out->num_groups = groups;
  out->num_items = items;
done:
  free(perm);
  free(position_row);
  free(perm2);
  free(inverse);
  free(word_offsets);
  free(word_offsets2);
  return st;
}

/* One chunk against the reference. */
static void check_groups(const int64_t *off, int64_t num_rows, const int32_t *tokens, int64_t n, int32_t cols,
                         int32_t item_tokens) {
  groups_out got, ref;
  const sk_status st = lib_groups(off, num_rows, tokens, n, cols, item_tokens, &got);
  if (SK_CHECK(st == SK_SUCCESS, "groups: %s", sk_status_name(st))) {
    const char *why;
    ref_groups(off, num_rows, tokens, n, item_tokens, kNoBug, &ref);
    why = groups_difference(&got, &ref);
    SK_CHECK(why == NULL, "%s", why);
    groups_out_free(&ref);
  }
  groups_out_free(&got);
}

/* Words for n tokens of a chunk whose rows are off: kinds as test_order's, plus words repeated inside a
 * row (a few per row, so that groups are long) and all distinct. */
enum { kGroupUniform, kGroupZipf, kGroupOneWord, kGroupRepeated, kGroupDistinct, kNumGroupKinds };
static const char *const kGroupKindNames[] = {"uniform", "zipf", "one word", "repeated in rows", "all distinct"};

static void fill_group_words(int32_t *tokens, const int64_t *off, int64_t num_rows, int32_t cols, int kind,
                             uint64_t *rng) {
  const int64_t n = off[num_rows] - off[0];
  const int32_t one = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)cols);
  int64_t i, r;
  for (r = 0; r < num_rows; ++r) {
    const int32_t a = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)cols), b = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)cols);
    for (i = off[r] - off[0]; i < off[r + 1] - off[0]; ++i) {
      switch (kind) {
        case kGroupUniform: tokens[i] = (int32_t)(sk_test_rand_u32(rng) % (uint32_t)cols); break;
        case kGroupZipf: {
          const double u = 1.0 - (double)sk_test_rand_unit_f32(rng), x = 1.0 / u - 1.0;
          tokens[i] = x >= (double)cols ? cols - 1 : (int32_t)x;
          break;
        }
        case kGroupOneWord: tokens[i] = one; break;
        case kGroupRepeated: tokens[i] = sk_test_rand_u32(rng) % 4u == 0 ? b : a; break;
        default: tokens[i] = (int32_t)(i % cols); break; /* distinct while n <= cols */
      }
    }
  }
  if (kind == kGroupDistinct)
    for (i = n - 1; i > 0; --i) {
      const int64_t k = (int64_t)(sk_test_rand_u64(rng) % (uint64_t)(i + 1));
      const int32_t x = tokens[i];
      tokens[i] = tokens[k];
      tokens[k] = x;
    }
}

static void test_groups(void) {
  static const long long kRowCounts[] = {0, 1, 2, 33, 400};
  static const int32_t kGroupCols[] = {1, 7, 1000, 100000};
  static const int32_t kItemTokens[] = {1, 2, 3, 64, INT32_MAX};
  const int seeds = sk_test_seed_count();
  int seed, shape, kind;
  size_t ri, ci, ii;
  for (seed = 0; seed < seeds; ++seed)
    for (shape = 0; shape < kNumShapes; ++shape)
      for (ri = 0; ri < sizeof kRowCounts / sizeof kRowCounts[0]; ++ri) {
        uint64_t rng = 0x9a0ull + (uint64_t)seed * 7907u + (uint64_t)shape * 389u + ri;
        const long long rows = kRowCounts[ri];
        if (rows > 100 && seed > 0) continue; /* the large chunks (up to 2 * 10^5 tokens) on the first seed */
        /* A chunk cut from the middle of a larger matrix: its offsets start at 5 rows in. */
        int64_t *all = make_offsets(shape, rows + 7, &rng);
        const int64_t *off = all + 5, n = off[rows] - off[0];
        int32_t *tokens = (int32_t *)malloc((size_t)n * sizeof *tokens + 4);
        for (ci = 0; ci < sizeof kGroupCols / sizeof kGroupCols[0]; ++ci)
          for (kind = 0; kind < kNumGroupKinds; ++kind) {
            fill_group_words(tokens, off, rows, kGroupCols[ci], kind, &rng);
            for (ii = 0; ii < sizeof kItemTokens / sizeof kItemTokens[0]; ++ii) {
              sk_test_context("groups: seed %d, rows %lld (%s), %lld tokens, V %d, words %s, item_tokens %d", seed,
                              rows, kShapeNames[shape], (long long)n, kGroupCols[ci], kGroupKindNames[kind],
                              kItemTokens[ii]);
              check_groups(off, rows, tokens, n, kGroupCols[ci], kItemTokens[ii]);
            }
          }
        free(tokens);
        free(all);
      }
}

/* Items of 2^16 tokens and more: the sort's two-digit path (a long row of one word per item, lengths
 * from 65,530 to 200,000, with short rows and small items between them), and one row of 10^6 tokens. */
static void test_groups_large(void) {
  enum { kRows = 40 };
  int64_t off[kRows + 1];
  uint64_t rng = 0xb16ull;
  int32_t *tokens;
  int64_t r, n;
  off[0] = 0;
  for (r = 0; r < kRows; ++r)
    off[r + 1] = off[r] + (r % 4 == 0 ? 65530 + (int64_t)(sk_test_rand_u32(&rng) % 134470u) : 1 + r);
  n = off[kRows];
  tokens = (int32_t *)malloc((size_t)n * sizeof *tokens);
  for (r = 0; r < kRows; ++r) {
    int64_t i;
    for (i = off[r]; i < off[r + 1]; ++i) tokens[i] = r % 4 == 0 ? (int32_t)(r % 3) : (int32_t)(sk_test_rand_u32(&rng) % 50u);
  }
  sk_test_context("groups: items of 2^16 tokens and more (%lld tokens)", (long long)n);
  check_groups(off, kRows, tokens, n, 50, 100);
  check_groups(off, kRows, tokens, n, 50, INT32_MAX);
  free(tokens);
  {
    const int64_t big[2] = {0, 1000000};
    tokens = (int32_t *)malloc(1000000 * sizeof *tokens);
    for (r = 0; r < 1000000; ++r) tokens[r] = (int32_t)(sk_test_rand_u32(&rng) % 3000u) / (1 + (int32_t)(r % 7));
    sk_test_context("groups: one row of 10^6 tokens");
    check_groups(big, 1, tokens, 1000000, 3000, 4096);
    free(tokens);
  }
}

/* The control: the comparison must see each planted bug of the reference, and each planted defect of a
 * correct result. A case where both bugs matter: items of exactly item_tokens, and ties. */
static void test_groups_control(void) {
  /* rows: [0 0 1] [0 1 1] [0] [2 2 2] [0 0]; item_tokens 3: word 0's groups 2, 1, 1, 2 make items of
   * 3 (2 + 1) and 3 (1 + 2), which cut-at-equal splits; word 1's 1 + 2 = 3 likewise; ties of 3. */
  static const int64_t off[] = {0, 3, 6, 7, 10, 12};
  static const int32_t tokens[] = {0, 0, 1, 0, 1, 1, 0, 2, 2, 2, 0, 0};
  groups_out got, ref, bad;
  const char *why;
  sk_test_context("groups: planted bugs");
  if (!SK_CHECK(lib_groups(off, 5, tokens, 12, 3, 3, &got) == SK_SUCCESS, "library failed")) return;
  ref_groups(off, 5, tokens, 12, 3, kNoBug, &ref);
  why = groups_difference(&got, &ref);
  SK_CHECK(why == NULL, "the library differs from the reference: %s", why);
  SK_CHECK(got.num_groups == 7 && got.num_items == 4 && got.item_group[0] == 0 && got.item_end[0] == 2 &&
               got.item_group[1] == 2 && got.item_end[1] == 4 && got.item_word[2] == 1 && got.item_word[3] == 2,
           "the worked example: %lld groups, %lld items", (long long)got.num_groups, (long long)got.num_items);
  ref_groups(off, 5, tokens, 12, 3, kBugCutAtEqual, &bad);
  SK_CHECK(groups_difference(&got, &bad) != NULL, "a reference that cuts at item_tokens is not told apart");
  groups_out_free(&bad);
  ref_groups(off, 5, tokens, 12, 3, kBugTiesReversed, &bad);
  SK_CHECK(groups_difference(&got, &bad) != NULL, "a reference with ties reversed is not told apart");
  groups_out_free(&bad);
  /* Defects planted in a copy of the library's result. */
  ++got.group_start[3];
  SK_CHECK(groups_difference(&got, &ref) != NULL, "a moved group start is not told apart");
  --got.group_start[3];
  ++got.group_row[1];
  SK_CHECK(groups_difference(&got, &ref) != NULL, "a wrong row is not told apart");
  --got.group_row[1];
  ++got.item_end[0];
  SK_CHECK(groups_difference(&got, &ref) != NULL, "a wrong item end is not told apart");
  --got.item_end[0];
  SK_CHECK(groups_difference(&got, &ref) == NULL, "the restored result is told apart");
  groups_out_free(&got);
  groups_out_free(&ref);
}

/* The snippet over the chunks of a plan (empty rows, long rows): each chunk against the reference. */
static void test_groups_snippet(void) {
  uint64_t rng = 0x5311ull;
  const long long n = 1500;
  int64_t *off = make_offsets(kLongTail, n, &rng);
  int32_t *tokens = (int32_t *)malloc((size_t)off[n] * sizeof *tokens + 4);
  sk_csr_chunk_plan *plan = NULL;
  int64_t c, num_chunks = 0, i;
  for (i = 0; i < off[n]; ++i) tokens[i] = (int32_t)(sk_test_rand_u32(&rng) % 300u) % (1 + (int32_t)(i % 40));
  sk_test_context("groups snippet");
  if (!SK_CHECK(sk_csr_chunk_plan_create(off, n, 4, 0, 0, (size_t)off[n] * 4 / 5, &plan, NULL, NULL) == SK_SUCCESS &&
                    sk_csr_chunk_plan_num_chunks(plan, &num_chunks) == SK_SUCCESS && num_chunks >= 5,
                "plan of %lld chunks", (long long)num_chunks))
    num_chunks = 0;
  for (c = 0; c < num_chunks; ++c) {
    sk_csr_chunk_info info;
    chunk_work w;
    groups_out got, ref;
    const char *why;
    sk_csr_chunk_plan_chunk(plan, c, &info);
    sk_test_context("groups snippet, chunk %lld (rows %lld, tokens %lld)", (long long)c, (long long)info.num_rows,
                    (long long)info.num_tokens);
    if (SK_CHECK(chunk_work_build(off + info.first_row, info.num_rows, tokens + info.first_token, info.num_tokens, 300,
                                  64, &w) == SK_SUCCESS,
                 "the snippet failed")) {
      got.num_groups = w.num_groups;
      got.num_items = w.num_items;
      got.group_start = w.group_start;
      got.group_row = w.group_row;
      got.item_word = w.item_word;
      got.item_group = w.item_group;
      got.item_end = w.item_end;
      ref_groups(off + info.first_row, info.num_rows, tokens + info.first_token, info.num_tokens, 64, kNoBug, &ref);
      why = groups_difference(&got, &ref);
      SK_CHECK(why == NULL, "%s", why);
      /* Every token of item 0 is of its word. */
      for (i = w.group_start[w.item_group[0]]; w.num_items > 0 && i < w.group_start[w.item_end[0]]; ++i)
        if (!SK_CHECK(tokens[info.first_token + w.perm[i]] == w.item_word[0], "item 0 holds a token of word %d",
                      tokens[info.first_token + w.perm[i]]))
          break;
      groups_out_free(&ref);
    }
    chunk_work_free(&w);
  }
  sk_csr_chunk_plan_destroy(plan);
  free(tokens);
  free(off);
}

static void test_groups_bad_inputs(void) {
  static const int64_t off[] = {100, 102, 102, 105}; /* three rows, 5 tokens, not from 0 */
  static const int64_t bad_off[] = {100, 102, 101, 105};
  int32_t tokens[5] = {1, 0, 1, 1, 2};
  int32_t perm[8], rows[8], prs[8];
  int64_t word_offsets[4], wo_sentinel[4];
  int32_t gs[8], gr[8], iw[8], ig[8], ie[8], sentinel[8];
  int64_t groups = -7, items = -7;
  int i;
  for (i = 0; i < 8; ++i) sentinel[i] = gs[i] = gr[i] = iw[i] = ig[i] = ie[i] = perm[i] = rows[i] = -77;
  for (i = 0; i < 4; ++i) wo_sentinel[i] = word_offsets[i] = -77;
  sk_test_context("order with rows: bad inputs");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, -1, tokens, 5, 3, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "rows -1");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, (int64_t)INT32_MAX + 1, tokens, 5, 3, perm, rows, word_offsets) ==
               SK_ERROR_INVALID_VALUE,
           "rows past INT32_MAX");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, -1, 3, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "tokens -1");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, -1, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "cols -1");
  SK_CHECK(sk_csr_chunk_order_rows_host(NULL, -1, NULL, 5, 3, NULL, NULL, NULL) == SK_ERROR_INVALID_VALUE,
           "values before pointers");
  SK_CHECK(sk_csr_chunk_order_rows_host(NULL, 3, tokens, 5, 3, perm, rows, word_offsets) == SK_ERROR_NULL_POINTER,
           "row offsets NULL");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, perm, rows, NULL) == SK_ERROR_NULL_POINTER,
           "word offsets NULL");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, NULL, 5, 3, perm, rows, word_offsets) == SK_ERROR_NULL_POINTER,
           "tokens NULL");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, perm, NULL, word_offsets) == SK_ERROR_NULL_POINTER,
           "position rows NULL");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, perm, perm + 4, word_offsets) == SK_ERROR_INVALID_VALUE,
           "position rows overlap perm");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, tokens, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "perm = tokens");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, perm, rows, (int64_t *)(void *)(off + 3)) ==
               SK_ERROR_INVALID_VALUE,
           "word offsets over the row offsets' last entry");
  SK_CHECK(sk_csr_chunk_order_rows_host(bad_off, 3, tokens, 5, 3, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "decreasing offsets");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 4, 3, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "offsets spanning other than num_tokens");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 2, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "a token = num_cols");
  tokens[2] = -1;
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, perm, rows, word_offsets) == SK_ERROR_INVALID_VALUE,
           "a token < 0");
  tokens[2] = 1;
  SK_CHECK(memcmp(perm, sentinel, sizeof perm) == 0 && memcmp(rows, sentinel, sizeof rows) == 0 &&
               memcmp(word_offsets, wo_sentinel, sizeof word_offsets) == 0,
           "outputs written on failure");
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 0, NULL, 0, 3, NULL, NULL, word_offsets) == SK_SUCCESS &&
               word_offsets[0] == 0 && word_offsets[3] == 0,
           "an empty chunk");
  /* The worked example: rows [1 0] [] [1 1 2]; word order 0 | 1 1 1 | 2 = tokens 1 | 0 2 3 | 4, rows
   * 0 | 0 2 2 | 2. */
  SK_CHECK(sk_csr_chunk_order_rows_host(off, 3, tokens, 5, 3, perm, rows, word_offsets) == SK_SUCCESS &&
               perm[0] == 1 && perm[1] == 0 && perm[2] == 2 && perm[3] == 3 && perm[4] == 4 && perm[5] == -77 &&
               rows[0] == 0 && rows[1] == 0 && rows[2] == 2 && rows[3] == 2 && rows[4] == 2 && rows[5] == -77 &&
               word_offsets[0] == 0 && word_offsets[1] == 1 && word_offsets[2] == 4 && word_offsets[3] == 5,
           "the worked example");

  sk_test_context("groups: bad inputs");
  for (i = 0; i < 8; ++i) prs[i] = rows[i];
  /* The count. */
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, -1, 3, word_offsets, 2, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "count: tokens -1");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, -1, word_offsets, 2, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "count: cols -1");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, 3, word_offsets, 0, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "count: item_tokens 0");
  SK_CHECK(sk_csr_chunk_groups_count_host(NULL, 5, 3, NULL, 0, NULL, NULL) == SK_ERROR_INVALID_VALUE,
           "count: values before pointers");
  SK_CHECK(sk_csr_chunk_groups_count_host(NULL, 5, 3, word_offsets, 2, &groups, &items) == SK_ERROR_NULL_POINTER,
           "count: rows NULL");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, 3, NULL, 2, &groups, &items) == SK_ERROR_NULL_POINTER,
           "count: word offsets NULL");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, 3, word_offsets, 2, NULL, &items) == SK_ERROR_NULL_POINTER,
           "count: num_groups NULL");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, 3, word_offsets, 2, &groups, NULL) == SK_ERROR_NULL_POINTER,
           "count: num_items NULL");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 4, 3, word_offsets, 2, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "count: word offsets ending past num_tokens");
  word_offsets[2] = 0;
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, 3, word_offsets, 2, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "count: decreasing word offsets");
  word_offsets[2] = 4;
  SK_CHECK(groups == -7 && items == -7, "count: outputs written on failure");
  SK_CHECK(sk_csr_chunk_groups_count_host(NULL, 0, 0, wo_sentinel, 1, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "count: word offsets not starting at 0");
  wo_sentinel[0] = 0;
  SK_CHECK(sk_csr_chunk_groups_count_host(NULL, 0, 0, wo_sentinel, 1, &groups, &items) == SK_SUCCESS && groups == 0 &&
               items == 0,
           "count: an empty chunk");
  SK_CHECK(sk_csr_chunk_groups_count_host(prs, 5, 3, word_offsets, 2, &groups, &items) == SK_SUCCESS && groups == 4 &&
               items == 4,
           "count: the worked example (%lld groups, %lld items)", (long long)groups, (long long)items);
  /* The build: values, pointers, overlaps, offsets, capacities; outputs untouched. */
  groups = items = -7;
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, -1, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "max_groups -1");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 8, iw, ig, ie, -1, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "max_items -1");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 0, gs, gr, 8, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "item_tokens 0");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, NULL, 2, gs, gr, 8, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_NULL_POINTER,
           "word offsets NULL");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, NULL, gr, 8, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_NULL_POINTER,
           "group_start NULL");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, NULL, 8, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_NULL_POINTER,
           "group_row NULL");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 8, iw, NULL, ie, 8, &groups, &items) ==
               SK_ERROR_NULL_POINTER,
           "item_group NULL");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 8, iw, ig, ie, 8, NULL, &items) ==
               SK_ERROR_NULL_POINTER,
           "num_groups NULL");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gs + 3, 4, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "group_row overlaps group_start");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 8, prs + 2, ig, ie, 3, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "item_word over the rows");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 8, iw, ig,
                                    (int32_t *)(void *)(word_offsets + 3), 1, &groups, &items) == SK_ERROR_INVALID_VALUE,
           "item_end over the word offsets' last entry");
  word_offsets[1] = 6;
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 8, iw, ig, ie, 8, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "word offsets past num_tokens");
  word_offsets[1] = 1;
  SK_CHECK(groups == -7 && items == -7, "counts written before the count");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 3, iw, ig, ie, 8, &groups, &items) ==
                   SK_ERROR_INVALID_VALUE &&
               groups == 4 && items == 4,
           "max_groups below G: the counts are reported");
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 4, iw, ig, ie, 3, &groups, &items) ==
               SK_ERROR_INVALID_VALUE,
           "max_items below I");
  SK_CHECK(memcmp(gs, sentinel, sizeof gs) == 0 && memcmp(gr, sentinel, sizeof gr) == 0 &&
               memcmp(iw, sentinel, sizeof iw) == 0 && memcmp(ig, sentinel, sizeof ig) == 0 &&
               memcmp(ie, sentinel, sizeof ie) == 0,
           "outputs written on failure");
  /* The worked example: groups (w0 r0) (w1 r0) (w1 r2) (w2 r2) start at 0 1 2 4; item_tokens 2: word 1's
   * groups of 1 and 2 make two items; by size, the item of 2 tokens first, then the three of 1 in word
   * order. */
  SK_CHECK(sk_csr_chunk_groups_host(prs, 5, 3, word_offsets, 2, gs, gr, 4, iw, ig, ie, 4, &groups, &items) ==
                   SK_SUCCESS &&
               groups == 4 && items == 4 && gs[0] == 0 && gs[1] == 1 && gs[2] == 2 && gs[3] == 4 && gs[4] == 5 &&
               gr[0] == 0 && gr[1] == 0 && gr[2] == 2 && gr[3] == 2 && iw[0] == 1 && ig[0] == 2 && ie[0] == 3 &&
               iw[1] == 0 && ig[1] == 0 && ie[1] == 1 && iw[2] == 1 && ig[2] == 1 && ie[2] == 2 && iw[3] == 2 &&
               ig[3] == 3 && ie[3] == 4 && gs[5] == -77 && gr[4] == -77 && iw[4] == -77,
           "the worked example");
  /* No tokens: group_start[0] = 0 and nothing else, NULL arrays allowed. */
  gs[0] = gs[1] = -77;
  SK_CHECK(sk_csr_chunk_groups_host(NULL, 0, 0, wo_sentinel, 1, gs, NULL, 0, NULL, NULL, NULL, 0, &groups, &items) ==
                   SK_SUCCESS &&
               groups == 0 && items == 0 && gs[0] == 0 && gs[1] == -77,
           "no tokens");
}

int main(void) {
  test_plan_bad_inputs();
  test_plan_too_big();
  test_plan_single_chunk();
  test_plan_shapes();
  test_plan_exhaustive();
  test_order();
  test_order_bad_inputs();
  test_groups_bad_inputs();
  test_groups_control();
  test_groups_snippet();
  test_groups();
  test_groups_large();
  test_usage_and_scale();
  return sk_test_finish();
}
