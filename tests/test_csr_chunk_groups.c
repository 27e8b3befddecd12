/*
 * The CSR chunker's groups and items from a C99 program (split from test_csr_chunker.c): the groups
 * and items against a plain-C reference (qsort, then runs, a greedy cut and a qsort of the items) over
 * seeds, row shapes, vocabularies, word shapes and item_tokens, with a control whose planted bugs the
 * comparison must catch, the documented usage snippet, and every documented status. Needs no GPU
 * (label cpu).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samplekit/samplekit.h"
#include "csr_test_groups.h"
#include "csr_test_shapes.h"
#include "sk_test.h"

/* ------------------------------------------------------------------------------------------------ */
/* Usage (the group's snippet). */

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
/* Groups and items, against a plain-C reference: the word order by qsort, each position's row by a
 * linear walk, groups where (word, row) changes, each word's groups cut greedily, the items sorted by
 * qsort on (decreasing tokens, first group). */


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

static void groups_free(sk_test_groups *g) {
  free(g->group_start);
  free(g->group_row);
  free(g->item_word);
  free(g->item_group);
  free(g->item_end);
  memset(g, 0, sizeof *g);
}

/* The reference; off may start anywhere (its first entry is the chunk's first token). */
static void ref_groups(const int64_t *off, int64_t num_rows, const int32_t *tokens, int64_t n, int32_t item_tokens,
                       int bug, sk_test_groups *out) {
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
/* The library's order with rows, count and groups of one chunk; sized by the count, with a guard entry
 * after each array that must survive. The order's perm and offsets must be sk_csr_chunk_order_host's. */
static sk_status lib_groups(const int64_t *off, int64_t num_rows, const int32_t *tokens, int64_t n, int32_t cols,
                            int32_t item_tokens, sk_test_groups *out) {
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
  sk_test_groups got, ref;
  const sk_status st = lib_groups(off, num_rows, tokens, n, cols, item_tokens, &got);
  if (SK_CHECK(st == SK_SUCCESS, "groups: %s", sk_status_name(st))) {
    const char *why;
    ref_groups(off, num_rows, tokens, n, item_tokens, kNoBug, &ref);
    why = sk_test_groups_difference(&got, &ref, "reference");
    SK_CHECK(why == NULL, "%s", why);
    groups_free(&ref);
  }
  groups_free(&got);
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
  sk_test_groups got, ref, bad;
  const char *why;
  sk_test_context("groups: planted bugs");
  if (!SK_CHECK(lib_groups(off, 5, tokens, 12, 3, 3, &got) == SK_SUCCESS, "library failed")) return;
  ref_groups(off, 5, tokens, 12, 3, kNoBug, &ref);
  why = sk_test_groups_difference(&got, &ref, "reference");
  SK_CHECK(why == NULL, "the library differs from the reference: %s", why);
  SK_CHECK(got.num_groups == 7 && got.num_items == 4 && got.item_group[0] == 0 && got.item_end[0] == 2 &&
               got.item_group[1] == 2 && got.item_end[1] == 4 && got.item_word[2] == 1 && got.item_word[3] == 2,
           "the worked example: %lld groups, %lld items", (long long)got.num_groups, (long long)got.num_items);
  ref_groups(off, 5, tokens, 12, 3, kBugCutAtEqual, &bad);
  SK_CHECK(sk_test_groups_difference(&got, &bad, "reference") != NULL,
           "a reference that cuts at item_tokens is not told apart");
  groups_free(&bad);
  ref_groups(off, 5, tokens, 12, 3, kBugTiesReversed, &bad);
  SK_CHECK(sk_test_groups_difference(&got, &bad, "reference") != NULL,
           "a reference with ties reversed is not told apart");
  groups_free(&bad);
  /* Defects planted in a copy of the library's result. */
  ++got.group_start[3];
  SK_CHECK(sk_test_groups_difference(&got, &ref, "reference") != NULL, "a moved group start is not told apart");
  --got.group_start[3];
  ++got.group_row[1];
  SK_CHECK(sk_test_groups_difference(&got, &ref, "reference") != NULL, "a wrong row is not told apart");
  --got.group_row[1];
  ++got.item_end[0];
  SK_CHECK(sk_test_groups_difference(&got, &ref, "reference") != NULL, "a wrong item end is not told apart");
  --got.item_end[0];
  SK_CHECK(sk_test_groups_difference(&got, &ref, "reference") == NULL, "the restored result is told apart");
  groups_free(&got);
  groups_free(&ref);
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
    sk_test_groups got, ref;
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
      why = sk_test_groups_difference(&got, &ref, "reference");
      SK_CHECK(why == NULL, "%s", why);
      /* Every token of item 0 is of its word. */
      for (i = w.group_start[w.item_group[0]]; w.num_items > 0 && i < w.group_start[w.item_end[0]]; ++i)
        if (!SK_CHECK(tokens[info.first_token + w.perm[i]] == w.item_word[0], "item 0 holds a token of word %d",
                      tokens[info.first_token + w.perm[i]]))
          break;
      groups_free(&ref);
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
  test_groups_bad_inputs();
  test_groups_control();
  test_groups_snippet();
  test_groups();
  test_groups_large();
  return sk_test_finish();
}
