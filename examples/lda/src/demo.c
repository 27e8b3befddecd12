/* sk-lda train --demo: a small corpus with planted topics, and how well training recovers them. */
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

int sk_lda_demo_corpus(uint64_t seed, sk_lda_corpus *corpus, float **planted, sk_lda_gen_params *params,
                       sk_ex_error *err) {
  /* Small and clearly structured: 10 topics on their own tenth of a 2,000-word vocabulary. */
  sk_lda_gen_params_default(params);
  params->num_docs = 2000, params->num_words = 2000, params->num_topics = 10, params->mean_doc_length = 150;
  params->alpha = 0.1, params->beta = 0.01, params->topic_support = 0.1, params->seed = seed;
  return sk_lda_generate(params, corpus, planted, NULL, NULL, err);
}

/* Cosine similarity of two topic-word distributions of length V. */
static double topic_cosine(const double *a, const double *b, int32_t V) {
  double ab = 0, aa = 0, bb = 0;
  for (int32_t v = 0; v < V; ++v) ab += a[v] * b[v], aa += a[v] * a[v], bb += b[v] * b[v];
  return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0.0;
}

/* The learned phi (K x V, row k = topic k) from the model's counts. */
static double *learned_phi(const sk_lda_model *m) {
  const int32_t K = m->num_topics, V = m->num_words;
  double *phi = malloc(sizeof(double) * (size_t)K * (size_t)V);
  if (phi == NULL) return NULL;
  for (int32_t k = 0; k < K; ++k)
    for (int32_t v = 0; v < V; ++v)
      phi[(size_t)k * V + v] = ((double)m->n_vk[(size_t)v * K + k] + m->beta) / ((double)m->n_k[k] + V * m->beta);
  return phi;
}

/* Prints the n most probable words of row `row` of a K x V phi. */
static void print_top_words(const double *phi_row, int32_t V, char *const *vocab, int n) {
  char *used = calloc((size_t)V, 1);
  for (int i = 0; i < n && used != NULL; ++i) {
    int32_t best = -1;
    for (int32_t v = 0; v < V; ++v)
      if (!used[v] && (best < 0 || phi_row[v] > phi_row[best])) best = v;
    if (best < 0) break;
    used[best] = 1;
    printf(" %s", vocab ? vocab[best] : "?");
  }
  free(used);
}

/* Greedy one-to-one matching of planted to learned topics by cosine similarity, printed as a table. */
void sk_lda_demo_report(const sk_lda_model *m, const float *planted, char *const *vocab) {
  const int32_t K = m->num_topics, V = m->num_words;
  double *learned = learned_phi(m), *truth = malloc(sizeof(double) * (size_t)K * V);
  double *sim = malloc(sizeof(double) * (size_t)K * K);
  int32_t *match = malloc(sizeof(int32_t) * K);
  char *taken_p = calloc((size_t)K, 1), *taken_l = calloc((size_t)K, 1);
  if (!learned || !truth || !sim || !match || !taken_p || !taken_l) {
    fprintf(stderr, "sk-lda train --demo: out of memory for the report\n");
  } else {
    for (size_t i = 0; i < (size_t)K * V; ++i) truth[i] = planted[i];
    for (int32_t p = 0; p < K; ++p)
      for (int32_t l = 0; l < K; ++l) sim[p * K + l] = topic_cosine(truth + (size_t)p * V, learned + (size_t)l * V, V);
    for (int32_t step = 0; step < K; ++step) {  // best remaining pair first
      int32_t bp = -1, bl = -1;
      for (int32_t p = 0; p < K; ++p)
        for (int32_t l = 0; l < K; ++l)
          if (!taken_p[p] && !taken_l[l] && (bp < 0 || sim[p * K + l] > sim[bp * K + bl])) bp = p, bl = l;
      taken_p[bp] = taken_l[bl] = 1;
      match[bp] = bl;
    }
    double sum = 0, worst = 1;
    int good = 0;
    printf("\nplanted topic -> best-matching learned topic (cosine similarity of the word distributions)\n");
    for (int32_t p = 0; p < K; ++p) {
      const double c = sim[p * K + match[p]];
      sum += c, worst = c < worst ? c : worst, good += c > 0.9;
      printf("  planted %2d:", p);
      print_top_words(truth + (size_t)p * V, V, vocab, 6);
      printf("\n  learned %2d:", match[p]);
      print_top_words(learned + (size_t)match[p] * V, V, vocab, 6);
      printf("   cosine %.3f\n", c);
    }
    printf("\n%d of %d planted topics recovered with cosine > 0.9; mean cosine %.3f, worst %.3f\n", good, K,
           sum / K, worst);
  }
  free(learned), free(truth), free(sim), free(match), free(taken_p), free(taken_l);
}

