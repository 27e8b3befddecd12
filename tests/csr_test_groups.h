/*
 * The groups and items of one chunk (the outputs of sk_csr_chunk_groups_host() and
 * sk_csr_chunk_groups_device()) and their first difference, for the CSR chunker's group tests
 * (test_csr_chunk_groups.c against a plain-C reference, test_csr_chunk_order.cu the device against the
 * host): static helpers, one copy for both programs. C99 that also compiles as CUDA C++.
 */
#ifndef SK_TEST_CSR_GROUPS_H
#define SK_TEST_CSR_GROUPS_H

#include <stdint.h>
#include <stdio.h>

#include "sk_test.h"

/* One chunk's groups and items: num_groups + 1 group starts, num_groups rows, num_items of each item array. */
typedef struct {
  int64_t num_groups, num_items;
  int32_t *group_start, *group_row, *item_word, *item_group, *item_end;
} sk_test_groups;

/* The first difference of got against want, described (want named by want_name, e.g. "host"); NULL when
 * they are equal. The message is in a static buffer: not thread-safe, valid until the next call. */
static const char *sk_test_groups_difference(const sk_test_groups *got, const sk_test_groups *want,
                                             const char *want_name) {
  static char why[256];
  const int32_t *const g[5] = {got->group_start, got->group_row, got->item_word, got->item_group, got->item_end};
  const int32_t *const w[5] = {want->group_start, want->group_row, want->item_word, want->item_group, want->item_end};
  const int64_t count[5] = {want->num_groups + 1, want->num_groups, want->num_items, want->num_items,
                            want->num_items};
  static const char *const names[5] = {"group_start", "group_row", "item_word", "item_group", "item_end"};
  int f;
  if (got->num_groups != want->num_groups || got->num_items != want->num_items) {
    snprintf(why, sizeof why, "%lld groups and %lld items, %s %lld and %lld", (long long)got->num_groups,
             (long long)got->num_items, want_name, (long long)want->num_groups, (long long)want->num_items);
    return why;
  }
  for (f = 0; f < 5; ++f) {
    const int64_t i = sk_test_first_difference(g[f], w[f], count[f], sizeof *g[f]);
    if (i >= 0) {
      snprintf(why, sizeof why, "%s[%lld] = %d, %s %d", names[f], (long long)i, g[f][i], want_name, w[f][i]);
      return why;
    }
  }
  return NULL;
}

#endif /* SK_TEST_CSR_GROUPS_H */
