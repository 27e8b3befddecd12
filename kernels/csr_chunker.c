/* sk_csr_chunk_*: the chunk plan of a host CSR matrix under a byte budget, and a chunk's word order
 * (PDOW) by a counting sort. Host code only: nothing here calls CUDA. */
#include <stdint.h>
#include <stdlib.h>

#include "samplekit/csr_chunker.h"

struct sk_csr_chunk_plan {
  int64_t num_chunks;
  size_t bytes_per_token, bytes_per_row, fixed_bytes_per_chunk;
  int64_t *row_cuts;   /* num_chunks + 1 row boundaries: chunk i is rows [row_cuts[i], row_cuts[i + 1]) */
  int64_t *token_cuts; /* the offsets at those boundaries */
};

/* The problem the planner works on: the offsets and the caller's costs, read only. */
typedef struct {
  const int64_t *off;
  int64_t n;
  size_t bpt, bpr, fixed, budget;
} sk_detail_chunk_problem;

/* a * b + c, saturated at SIZE_MAX (SIZE_MAX is then "too big", whatever the budget: see fits). */
static size_t sk_detail_mul_add_sat(size_t a, uint64_t b, size_t c, int *overflow) {
  size_t ab;
  if (b > (uint64_t)SIZE_MAX) {
    if (a != 0) *overflow = 1;
    ab = a == 0 ? 0 : SIZE_MAX;
  } else if (a != 0 && (size_t)b > SIZE_MAX / a) {
    *overflow = 1;
    ab = SIZE_MAX;
  } else {
    ab = a * (size_t)b;
  }
  if (ab > SIZE_MAX - c) {
    *overflow = 1;
    return SIZE_MAX;
  }
  return ab + c;
}

/* The footprint of `rows` rows holding `tokens` tokens; *overflow set when it exceeds SIZE_MAX. */
static size_t sk_detail_chunk_bytes(size_t bpt, size_t bpr, size_t fixed, int64_t rows, int64_t tokens,
                                    int *overflow) {
  size_t b = sk_detail_mul_add_sat(bpr, (uint64_t)rows, fixed, overflow);
  return sk_detail_mul_add_sat(bpt, (uint64_t)tokens, b, overflow);
}

/* Whether rows [a, b) fit in one chunk of at most `cap` tokens. Monotone: a sub-run of a run that fits,
 * fits, which is what every binary search below relies on. */
static int sk_detail_fits(const sk_detail_chunk_problem *p, int64_t a, int64_t b, int64_t cap) {
  const int64_t tokens = p->off[b] - p->off[a];
  int overflow = 0;
  size_t bytes;
  if (tokens > cap || tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS) return 0;
  bytes = sk_detail_chunk_bytes(p->bpt, p->bpr, p->fixed, b - a, tokens, &overflow);
  return !overflow && bytes <= p->budget;
}

/* The largest b in [a, n] such that rows [a, b) fit (a itself when row a alone does not). */
static int64_t sk_detail_reach(const sk_detail_chunk_problem *p, int64_t a, int64_t cap) {
  int64_t lo = a, hi = p->n; /* fits(a, lo) holds; the answer is in [lo, hi] */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (sk_detail_fits(p, a, mid, cap))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The smallest a in [0, b] such that rows [a, b) fit. */
static int64_t sk_detail_reach_back(const sk_detail_chunk_problem *p, int64_t b, int64_t cap) {
  int64_t lo = 0, hi = b; /* fits(hi, b) holds; the answer is in [lo, hi] */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (sk_detail_fits(p, mid, b, cap))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Greedy packing under `cap`: the number of chunks (stops counting past `limit`), the largest chunk's
 * tokens in *max_tokens, and the first row that fits in no chunk in *stuck (-1 when none). Greedy is
 * optimal for contiguous chunks with a monotone fit: no partition has fewer chunks. */
static int64_t sk_detail_greedy(const sk_detail_chunk_problem *p, int64_t cap, int64_t limit, int64_t *max_tokens,
                                int64_t *stuck) {
  int64_t a = 0, count = 0, largest = 0;
  *stuck = -1;
  while (a < p->n) {
    const int64_t b = sk_detail_reach(p, a, cap);
    if (b == a) {
      *stuck = a;
      break;
    }
    if (p->off[b] - p->off[a] > largest) largest = p->off[b] - p->off[a];
    ++count;
    a = b;
    if (count > limit) break;
  }
  *max_tokens = largest;
  return count;
}

/* The first b in [lo, hi] with off[b] >= t, or hi + 1 when there is none. */
static int64_t sk_detail_lower_bound(const int64_t *off, int64_t lo, int64_t hi, int64_t t) {
  int64_t l = lo, h = hi + 1;
  while (l < h) {
    const int64_t mid = l + (h - l) / 2;
    if (off[mid] < t)
      l = mid + 1;
    else
      h = mid;
  }
  return l;
}

sk_status sk_csr_chunk_plan_create(const int64_t *h_row_offsets, int64_t num_rows, size_t bytes_per_token,
                                   size_t bytes_per_row, size_t fixed_bytes_per_chunk, size_t budget_bytes,
                                   sk_csr_chunk_plan **plan, int64_t *bad_row, size_t *bad_row_bytes) {
  sk_detail_chunk_problem p;
  int64_t r, longest = 0, total, num_chunks, largest, stuck, lo_cap, hi_cap, k, a;
  int64_t *starts; /* starts[m]: the first row from which m chunks under L* can cover the rest */
  sk_csr_chunk_plan *out;

  if (bad_row != NULL) *bad_row = -1;
  if (bad_row_bytes != NULL) *bad_row_bytes = 0;
  if (plan == NULL) return SK_ERROR_NULL_POINTER;
  *plan = NULL;
  if (h_row_offsets == NULL) return SK_ERROR_NULL_POINTER;
  if (num_rows < 0 || num_rows == INT64_MAX) return SK_ERROR_INVALID_VALUE;
  if (h_row_offsets[0] != 0) return SK_ERROR_INVALID_VALUE;
  for (r = 0; r < num_rows; ++r) {
    if (h_row_offsets[r + 1] < h_row_offsets[r]) return SK_ERROR_INVALID_VALUE;
    /* No overflow: both offsets are >= 0 here. */
    if (h_row_offsets[r + 1] - h_row_offsets[r] > longest) longest = h_row_offsets[r + 1] - h_row_offsets[r];
  }
  if (fixed_bytes_per_chunk > budget_bytes) {
    if (bad_row_bytes != NULL) *bad_row_bytes = fixed_bytes_per_chunk;
    return SK_ERROR_INVALID_VALUE;
  }

  p.off = h_row_offsets;
  p.n = num_rows;
  p.bpt = bytes_per_token;
  p.bpr = bytes_per_row;
  p.fixed = fixed_bytes_per_chunk;
  p.budget = budget_bytes;
  total = h_row_offsets[num_rows];

  /* C: the fewest chunks, from the greedy packing under the budget alone. */
  num_chunks = sk_detail_greedy(&p, INT64_MAX, INT64_MAX, &largest, &stuck);
  if (stuck >= 0) {
    int overflow = 0;
    const size_t need = sk_detail_chunk_bytes(bytes_per_token, bytes_per_row, fixed_bytes_per_chunk, 1,
                                              h_row_offsets[stuck + 1] - h_row_offsets[stuck], &overflow);
    if (bad_row != NULL) *bad_row = stuck;
    /* At least 1: a row over SK_CSR_CHUNK_MAX_TOKENS at no cost is still "budget too small", not malformed. */
    if (bad_row_bytes != NULL) *bad_row_bytes = overflow ? SIZE_MAX : need > 0 ? need : 1;
    return SK_ERROR_INVALID_VALUE;
  }

  /* L*: the smallest token cap under which C chunks still suffice. The greedy packing's largest chunk
   * is one such cap; no cap below the longest row or ceil(T / C) can be. */
  hi_cap = largest;
  lo_cap = num_chunks > 0 ? total / num_chunks + (total % num_chunks != 0) : 0;
  if (longest > lo_cap) lo_cap = longest;
  if (lo_cap > hi_cap) lo_cap = hi_cap; /* cannot happen; keeps the search well-formed regardless */
  while (lo_cap < hi_cap) {
    const int64_t mid = lo_cap + (hi_cap - lo_cap) / 2;
    int64_t unused_largest, unused_stuck;
    if (sk_detail_greedy(&p, mid, num_chunks, &unused_largest, &unused_stuck) <= num_chunks && unused_stuck < 0)
      hi_cap = mid;
    else
      lo_cap = mid + 1;
  }

  out = (sk_csr_chunk_plan *)malloc(sizeof *out + 2 * (size_t)(num_chunks + 1) * sizeof(int64_t));
  starts = (int64_t *)malloc((size_t)(num_chunks + 1) * sizeof(int64_t));
  if (out == NULL || starts == NULL) {
    free(out);
    free(starts);
    return SK_ERROR_HOST_ALLOCATION_FAILED;
  }
  out->num_chunks = num_chunks;
  out->bytes_per_token = bytes_per_token;
  out->bytes_per_row = bytes_per_row;
  out->fixed_bytes_per_chunk = fixed_bytes_per_chunk;
  out->row_cuts = (int64_t *)(out + 1);
  out->token_cuts = out->row_cuts + (num_chunks + 1);

  /* Right-to-left greedy packing under L*: rows [b, n) can be covered by m chunks iff b >= starts[m]. */
  starts[0] = num_rows;
  for (k = 1; k <= num_chunks; ++k) starts[k] = sk_detail_reach_back(&p, starts[k - 1], hi_cap);

  /* The cuts: each chunk ends at the boundary nearest an equal share of the tokens left, among those
   * that keep it within L* and the budget, leave at least one row per remaining chunk, and leave a rest
   * that the remaining chunks can cover (so the interval below is never empty). */
  out->row_cuts[0] = 0;
  a = 0;
  for (k = num_chunks; k >= 1; --k) {
    int64_t b;
    if (k == 1) {
      b = num_rows;
    } else {
      const int64_t lo = starts[k - 1] > a + 1 ? starts[k - 1] : a + 1;
      const int64_t reach = sk_detail_reach(&p, a, hi_cap);
      const int64_t hi = reach < num_rows - (k - 1) ? reach : num_rows - (k - 1);
      const int64_t target = h_row_offsets[a] + (total - h_row_offsets[a]) / k;
      int64_t chosen;
      if (lo > hi) { /* the argument in the file's comments says this cannot happen */
        free(starts);
        free(out);
        return SK_ERROR_INTERNAL;
      }
      /* The offset nearest the target (a tie goes to the larger), then its first boundary, so that
       * empty rows at a cut open the next chunk. */
      b = sk_detail_lower_bound(h_row_offsets, lo, hi, target);
      if (b > hi)
        chosen = h_row_offsets[hi];
      else if (b > lo && target - h_row_offsets[b - 1] < h_row_offsets[b] - target)
        chosen = h_row_offsets[b - 1];
      else
        chosen = h_row_offsets[b];
      b = sk_detail_lower_bound(h_row_offsets, lo, hi, chosen);
    }
    out->row_cuts[num_chunks - k + 1] = b;
    a = b;
  }
  for (k = 0; k <= num_chunks; ++k) out->token_cuts[k] = h_row_offsets[out->row_cuts[k]];
  free(starts);
  *plan = out;
  return SK_SUCCESS;
}

void sk_csr_chunk_plan_destroy(sk_csr_chunk_plan *plan) { free(plan); }

sk_status sk_csr_chunk_plan_num_chunks(const sk_csr_chunk_plan *plan, int64_t *num_chunks) {
  if (plan == NULL || num_chunks == NULL) return SK_ERROR_NULL_POINTER;
  *num_chunks = plan->num_chunks;
  return SK_SUCCESS;
}

sk_status sk_csr_chunk_plan_chunk(const sk_csr_chunk_plan *plan, int64_t index, sk_csr_chunk_info *info) {
  sk_csr_chunk_info out;
  int overflow = 0;
  if (plan == NULL || info == NULL) return SK_ERROR_NULL_POINTER;
  if (index < 0 || index >= plan->num_chunks) return SK_ERROR_INVALID_VALUE;
  out.first_row = plan->row_cuts[index];
  out.num_rows = plan->row_cuts[index + 1] - out.first_row;
  out.first_token = plan->token_cuts[index];
  out.num_tokens = plan->token_cuts[index + 1] - out.first_token;
  /* Within the budget, so no overflow: the plan only holds chunks that fit. */
  out.bytes = sk_detail_chunk_bytes(plan->bytes_per_token, plan->bytes_per_row, plan->fixed_bytes_per_chunk,
                                    out.num_rows, out.num_tokens, &overflow);
  *info = out;
  return SK_SUCCESS;
}

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none). */
static int sk_detail_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return 0;
  return x < y + b_bytes && y < x + a_bytes;
}

sk_status sk_csr_chunk_order_host(const int32_t *h_tokens, int64_t num_tokens, int32_t num_cols, int32_t *h_perm,
                                  int32_t *h_inverse, int64_t *h_word_offsets) {
  int64_t i, w;
  size_t token_bytes, offset_bytes;
  if (num_tokens < 0 || num_tokens > (int64_t)SK_CSR_CHUNK_MAX_TOKENS || num_cols < 0) return SK_ERROR_INVALID_VALUE;
  if (h_word_offsets == NULL) return SK_ERROR_NULL_POINTER;
  if (num_tokens > 0 && (h_tokens == NULL || h_perm == NULL || h_inverse == NULL)) return SK_ERROR_NULL_POINTER;
  token_bytes = (size_t)num_tokens * sizeof(int32_t);
  offset_bytes = ((size_t)num_cols + 1) * sizeof(int64_t);
  if (sk_detail_overlap(h_tokens, token_bytes, h_perm, token_bytes) ||
      sk_detail_overlap(h_tokens, token_bytes, h_inverse, token_bytes) ||
      sk_detail_overlap(h_perm, token_bytes, h_inverse, token_bytes) ||
      sk_detail_overlap(h_word_offsets, offset_bytes, h_tokens, token_bytes) ||
      sk_detail_overlap(h_word_offsets, offset_bytes, h_perm, token_bytes) ||
      sk_detail_overlap(h_word_offsets, offset_bytes, h_inverse, token_bytes))
    return SK_ERROR_INVALID_VALUE;
  {
    /* A reduction rather than an early exit, so that the check vectorises. */
    uint32_t bad = 0;
    for (i = 0; i < num_tokens; ++i) bad |= (uint32_t)((uint32_t)h_tokens[i] >= (uint32_t)num_cols);
    if (bad) return SK_ERROR_INVALID_VALUE;
  }

  /* Counts, then exclusive starts: h_word_offsets[w] = the first word-order position of word w. */
  for (w = 0; w <= num_cols; ++w) h_word_offsets[w] = 0;
  for (i = 0; i < num_tokens; ++i) ++h_word_offsets[h_tokens[i]];
  {
    int64_t sum = 0;
    for (w = 0; w < num_cols; ++w) {
      const int64_t c = h_word_offsets[w];
      h_word_offsets[w] = sum;
      sum += c;
    }
    h_word_offsets[num_cols] = sum;
  }
  /* Scatter in document order, which is what makes the sort stable; each start moves to its word's end,
   * which is the next word's start, so shifting by one restores the offsets. */
  for (i = 0; i < num_tokens; ++i) {
    const int64_t j = h_word_offsets[h_tokens[i]]++;
    h_perm[j] = (int32_t)i;
    h_inverse[i] = (int32_t)j;
  }
  for (w = num_cols; w > 0; --w) h_word_offsets[w] = h_word_offsets[w - 1];
  h_word_offsets[0] = 0;
  return SK_SUCCESS;
}
