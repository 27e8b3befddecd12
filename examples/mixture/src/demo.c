/* sk-mixture fit --demo (demo.h). */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gen.h"
#include "metrics.h"

/* Prints up to three coordinates of a mean, then "..." for the rest. */
static void print_mean(const double *m, int32_t d) {
  printf("(");
  for (int32_t j = 0; j < d && j < 3; ++j) printf(j > 0 ? ", %8.3f" : "%8.3f", m[j]);
  printf(d > 3 ? ", ...)" : ")");
}

/* For each planted component, the fitted one that holds most of its points. */
static void report(const sk_mix_truth *t, const sk_mix_fit_result *r, int64_t n) {
  const int32_t k = t->k, d = t->d;
  int64_t *shared = (int64_t *)calloc((size_t)k * (size_t)k, sizeof(int64_t));
  if (shared == NULL) return;
  for (int64_t i = 0; i < n; ++i) shared[(size_t)t->z[i] * (size_t)k + (size_t)r->z[i]] += 1;
  printf("planted components beside the fitted ones that hold most of their points (last sweep):\n");
  printf("  planted  weight  mean%*s   fitted  weight  mean\n", d > 3 ? 32 : 10 * d - 4 + 2, "");
  for (int32_t p = 0; p < k; ++p) {
    int32_t best = 0;
    for (int32_t f = 1; f < k; ++f)
      if (shared[(size_t)p * (size_t)k + (size_t)f] > shared[(size_t)p * (size_t)k + (size_t)best]) best = f;
    printf("  %7d  %6.3f  ", (int)p, t->weight[p]);
    print_mean(t->mean + (size_t)p * (size_t)d, d);
    printf("   %6d  %6.3f  ", (int)best, r->last.weight[best]);
    print_mean(r->last.mean + (size_t)best * (size_t)d, d);
    printf("\n");
  }
  free(shared);
}

int sk_mix_demo(const sk_mix_fit_options *o) {
  sk_mix_gen_params g;
  sk_mix_truth truth;
  sk_mix_data data;
  sk_ex_error err;
  float *raw = NULL;
  g.n = SK_MIX_DEMO_N;
  g.d = SK_MIX_DEMO_D;
  g.k = o->k > 0 ? o->k : SK_MIX_DEMO_K;
  g.overlap = 0;
  g.seed = o->seed;
  g.threads = o->threads;
  memset(&data, 0, sizeof data);
  if (sk_mix_generate(&g, &raw, &truth, &err) != 0 || sk_mix_data_from_f32(raw, g.n, g.d, &data, &err) != 0) {
    fprintf(stderr, "sk-mixture fit --demo: %s\n", err.message);
    free(raw);
    sk_mix_truth_free(&truth);
    return SK_EX_EXIT_USAGE;
  }
  free(raw);
  printf("demo: %lld points in %d dimensions from %d well-separated planted components (seed %llu)\n", (long long)g.n,
         (int)g.d, (int)g.k, (unsigned long long)g.seed);
  sk_mix_fit_options fo = *o;
  fo.k = g.k;
  sk_mix_fit_result r;
  const int status = sk_mix_fit(&fo, &data, "demo", &r);
  if (status == SK_EX_EXIT_OK) {
    report(&truth, &r, g.n);
    printf("adjusted Rand index %.4f (1 = the planted partition exactly)\n", sk_mix_ari(truth.z, r.z, g.n, g.k, g.k));
  }
  sk_mix_fit_result_free(&r);
  sk_mix_truth_free(&truth);
  sk_mix_data_free(&data);
  return status;
}
