/* The sk-lda tests' ESCA sweep: one set of ESCA tables (its scratch) reused by every model of a test
   program, whatever its shape, which also checks that a sweep never depends on what the tables held. */
#ifndef SK_LDA_TEST_ESCA_H
#define SK_LDA_TEST_ESCA_H

#include "esca.h"

static inline sk_lda_esca_tables *test_esca_tables(void) {
  static sk_lda_esca_tables tables;
  return &tables;
}

static inline int esca_sweep(sk_lda_model *m, uint64_t iteration, int threads, sk_ex_error *err) {
  return sk_lda_esca_sweep(m, test_esca_tables(), iteration, threads, err);
}

#endif /* SK_LDA_TEST_ESCA_H */
