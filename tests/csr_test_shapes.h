/*
 * Random CSR row shapes and the (word, position) order for the CSR chunker's host tests
 * (test_csr_chunker.c, test_csr_chunk_groups.c): static helpers, one copy for both programs.
 */
#ifndef SK_TEST_CSR_SHAPES_H
#define SK_TEST_CSR_SHAPES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sk_test.h"

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

/* A token's word and its position in the chunk; ordered by word, then position (the PDOW order). */
typedef struct {
  int32_t word, position;
} word_position;

static int compare_word_position(const void *a, const void *b) {
  const word_position *x = (const word_position *)a, *y = (const word_position *)b;
  if (x->word != y->word) return x->word < y->word ? -1 : 1;
  return x->position < y->position ? -1 : x->position > y->position;
}

#endif  /* SK_TEST_CSR_SHAPES_H */
