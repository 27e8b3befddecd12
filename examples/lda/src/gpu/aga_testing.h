/*
 * The tests' seam into AGA-LDA (aga_sampler.h): what no user sets, kept out of sk_lda_aga_options.
 * test_sampler's exact-posterior chains plant a bug to show that the chi-square test rejects it, and
 * force each of AGA's draws (the blocked draw with R topics a lane, the paper's two passes) at K where
 * the default would pick another.
 */
#ifndef SK_LDA_AGA_TESTING_H
#define SK_LDA_AGA_TESTING_H

#include "gpu/aga_sampler.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_lda_aga_test_hooks {
  int planted_bug; /* 1: a token's old topic is left in the word-topic counts (WT) before its draw */
  int lane_topics; /* the draw: 0 chooses by K; 1, 2, 4 or 8 (>= K / 32) forces the blocked draw with that
                      many topics a lane; -1 forces the paper's two passes */
} sk_lda_aga_test_hooks;

/* sk_lda_aga_create() with the hooks (NULL: none). Fails also on lane_topics that are not 0, -1, or 1,
   2, 4 or 8 covering K. */
int sk_lda_aga_create_for_test(sk_lda_model *m, const sk_lda_device *device, const sk_lda_aga_options *o,
                               const sk_lda_aga_test_hooks *hooks, sk_lda_sampler **out, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_AGA_TESTING_H */
