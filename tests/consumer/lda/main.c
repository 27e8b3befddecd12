/* sk_lda.h from an installed samplekit: a corpus of two kinds of documents from CSR arrays, a model of two
   topics trained on the CPU, each topic's top word. Prints one line; exits non-zero on any failure. */
#include <stdio.h>

#include <sk_lda.h>

int main(void) {
  /* 40 documents: even ones use words 0-2, odd ones words 3-5, each word twice */
  int64_t offsets[41];
  int32_t words[120], counts[120];
  for (int d = 0, j = 0; d < 40; ++d) {
    offsets[d] = j;
    for (int i = 0; i < 3; ++i, ++j) words[j] = (d % 2) * 3 + i, counts[j] = 2;
    offsets[d + 1] = j;
  }
  sklda_error err;
  sklda_corpus *c = NULL;
  sklda_model *m = NULL;
  if (sklda_corpus_from_csr(40, 6, offsets, words, counts, &c, &err) != SKLDA_OK) {
    fprintf(stderr, "lda consumer: %s\n", err.message);
    return 1;
  }
  sklda_options o;
  sklda_options_default(&o);
  o.num_topics = 2;
  o.iters = 50;
  o.device = "cpu";
  o.test_fraction = 0.0;
  if (sklda_train(c, &o, &m, &err) != SKLDA_OK) {
    fprintf(stderr, "lda consumer: %s\n", err.message);
    sklda_corpus_free(c);
    return 1;
  }
  int32_t top[2];
  const int rc = sklda_model_top_words(m, 1, top, &err);
  /* the two topics are the two kinds of documents: one top word in 0-2, the other in 3-5 */
  const int separated = rc == SKLDA_OK && (top[0] < 3) != (top[1] < 3);
  printf("sk_lda %s: lda consumer: top words %d and %d: %s\n", sklda_version(), (int)top[0], (int)top[1],
         separated ? "separated" : "NOT separated");
  sklda_model_free(m);
  sklda_corpus_free(c);
  return separated ? 0 : 1;
}
