/* The seeded train/test split by documents, and the half/half split of each test document. */
#include "split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "samplekit/rng.h"

static int sk_lda_alloc_corpus(sk_lda_corpus *c, int32_t docs, int32_t words, int64_t tokens) {
  c->num_docs = docs;
  c->num_words = words;
  c->num_tokens = tokens;
  c->vocab = NULL;
  c->doc_offsets = (int64_t *)calloc((size_t)docs + 1u, sizeof *c->doc_offsets);
  c->tokens = (int32_t *)malloc((size_t)(tokens > 0 ? tokens : 1) * sizeof *c->tokens);
  return c->doc_offsets != NULL && c->tokens != NULL;
}

/* The split; all_test: every document is a test document (no shuffle of the documents). */
static int split_impl(const sk_lda_corpus *source, double test_fraction, int all_test, uint64_t seed, sk_lda_split *out,
                      sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "split: output is NULL");
  memset(out, 0, sizeof *out);
  if (source == NULL) return sk_ex_fail(err, "split: corpus is NULL");
  if (!(test_fraction >= 0.0 && test_fraction < 1.0))
    return sk_ex_fail(err, "split: test fraction %g is not in [0, 1)", test_fraction);
  if (source->num_docs < 0 || source->doc_offsets == NULL || (source->num_tokens > 0 && source->tokens == NULL))
    return sk_ex_fail(err, "split: corpus arrays are NULL or sizes invalid");
  const int32_t D = source->num_docs;
  int32_t num_test = (int32_t)floor(test_fraction * (double)D + 0.5);
  if (num_test > D - 1) num_test = D > 0 ? D - 1 : 0;
  if (all_test) num_test = D;

  int32_t *perm = (int32_t *)malloc((size_t)(D > 0 ? D : 1) * sizeof *perm);
  unsigned char *is_test = (unsigned char *)calloc((size_t)(D > 0 ? D : 1), 1);
  if (perm == NULL || is_test == NULL) {
    free(perm);
    free(is_test);
    return sk_ex_fail(err, "split: out of memory");
  }
  for (int32_t d = 0; d < D; ++d) perm[d] = d;
  for (int32_t i = 0; all_test && i < D; ++i) is_test[i] = 1;
  for (int32_t i = 0; !all_test && i < num_test; ++i) {
    const int32_t j =
        i + sk_lda_detail_uniform_index(sk_rng_uniform_f64(seed, SK_LDA_STREAM_SPLIT_DOCS, (uint64_t)i), D - i);
    const int32_t tmp = perm[i];
    perm[i] = perm[j];
    perm[j] = tmp;
    is_test[perm[i]] = 1;
  }
  int64_t train_tokens = 0, test_tokens = 0, observed_tokens = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n = source->doc_offsets[d + 1] - source->doc_offsets[d];
    if (is_test[d]) {
      test_tokens += n;
      observed_tokens += n / 2;
    } else {
      train_tokens += n;
    }
  }
  const int32_t V = source->num_words;
  int ok = sk_lda_alloc_corpus(&out->train, D - num_test, V, train_tokens);
  ok = sk_lda_alloc_corpus(&out->test_observed, num_test, V, observed_tokens) && ok;
  ok = sk_lda_alloc_corpus(&out->test_heldout, num_test, V, test_tokens - observed_tokens) && ok;
  out->train_doc_ids = (int32_t *)malloc((size_t)(D - num_test > 0 ? D - num_test : 1) * sizeof(int32_t));
  out->test_doc_ids = (int32_t *)malloc((size_t)(num_test > 0 ? num_test : 1) * sizeof(int32_t));
  out->train.doc_ids = (int32_t *)malloc((size_t)(D - num_test > 0 ? D - num_test : 1) * sizeof(int32_t));
  out->test_observed.doc_ids = (int32_t *)malloc((size_t)(num_test > 0 ? num_test : 1) * sizeof(int32_t));
  out->test_heldout.doc_ids = (int32_t *)malloc((size_t)(num_test > 0 ? num_test : 1) * sizeof(int32_t));
  out->train.num_input_docs = out->test_observed.num_input_docs = out->test_heldout.num_input_docs =
      sk_lda_corpus_input_docs(source);
  if (!ok || out->train_doc_ids == NULL || out->test_doc_ids == NULL || out->train.doc_ids == NULL ||
      out->test_observed.doc_ids == NULL || out->test_heldout.doc_ids == NULL) {
    free(perm);
    free(is_test);
    sk_lda_split_free(out);
    return sk_ex_fail(err, "split: out of memory");
  }
  /* The offsets of all three corpora first (O(D), in order), then every document's tokens over the
     threads: each document goes to its own range, and its halves come from its own token indices'
     draws, so the result does not depend on the thread count. */
  int32_t ntrain = 0, ntest = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n = source->doc_offsets[d + 1] - source->doc_offsets[d];
    if (!is_test[d]) {
      out->train_doc_ids[ntrain] = d;
      out->train.doc_ids[ntrain] = sk_lda_corpus_input_doc(source, d);
      out->train.doc_offsets[ntrain + 1] = out->train.doc_offsets[ntrain] + n;
      ++ntrain;
    } else {
      out->test_doc_ids[ntest] = d;
      out->test_observed.doc_ids[ntest] = out->test_heldout.doc_ids[ntest] = sk_lda_corpus_input_doc(source, d);
      out->test_observed.doc_offsets[ntest + 1] = out->test_observed.doc_offsets[ntest] + n / 2;
      out->test_heldout.doc_offsets[ntest + 1] = out->test_heldout.doc_offsets[ntest] + (n - n / 2);
      ++ntest;
    }
  }
  free(perm);
  free(is_test);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256)
#endif
  for (int32_t i = 0; i < ntrain; ++i) {
    const int64_t g = source->doc_offsets[out->train_doc_ids[i]];
    const int64_t n = out->train.doc_offsets[i + 1] - out->train.doc_offsets[i];
    if (n > 0) memcpy(out->train.tokens + out->train.doc_offsets[i], source->tokens + g, (size_t)n * sizeof(int32_t));
  }
  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel
#endif
  {
    int32_t *pos = NULL;        /* this thread's scratch, grown to its longest test document */
    unsigned char *observed = NULL;
    int64_t cap = 0;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (int32_t j = 0; j < ntest; ++j) {
      const int64_t g = source->doc_offsets[out->test_doc_ids[j]];
      const int64_t n = source->doc_offsets[out->test_doc_ids[j] + 1] - g;
      if (n > cap) {
        free(pos);
        free(observed);
        pos = (int32_t *)malloc((size_t)n * sizeof *pos);
        observed = (unsigned char *)malloc((size_t)n);
        cap = pos != NULL && observed != NULL ? n : 0;
        if (cap == 0) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
          failed = 1;
          continue;
        }
      }
      const int32_t *w = source->tokens + g;
      const int64_t half = n / 2;
      int64_t to = out->test_observed.doc_offsets[j], th = out->test_heldout.doc_offsets[j];
      for (int64_t i = 0; i < n; ++i) {
        pos[i] = (int32_t)i;
        observed[i] = 0;
      }
      for (int64_t i = 0; i < half; ++i) {
        const int64_t k = i + sk_lda_detail_uniform_index(
                                  sk_rng_uniform_f64(seed, SK_LDA_STREAM_SPLIT_TOKENS, (uint64_t)(g + i)), n - i);
        const int32_t tmp = pos[i];
        pos[i] = pos[k];
        pos[k] = tmp;
        observed[pos[i]] = 1;
      }
      for (int64_t i = 0; i < n; ++i) {
        if (observed[i])
          out->test_observed.tokens[to++] = w[i];
        else
          out->test_heldout.tokens[th++] = w[i];
      }
    }
    free(pos);
    free(observed);
  }
  if (failed) {
    sk_lda_split_free(out);
    return sk_ex_fail(err, "split: out of memory");
  }
  return 0;
}

int sk_lda_split_corpus(const sk_lda_corpus *source, double test_fraction, uint64_t seed, sk_lda_split *out,
                        sk_ex_error *err) {
  return split_impl(source, test_fraction, 0, seed, out, err);
}

int sk_lda_split_halves(const sk_lda_corpus *source, uint64_t seed, sk_lda_split *out, sk_ex_error *err) {
  return split_impl(source, 0.0, 1, seed, out, err);
}

void sk_lda_split_free(sk_lda_split *split) {
  if (split == NULL) return;
  sk_lda_corpus_free(&split->train);
  sk_lda_corpus_free(&split->test_observed);
  sk_lda_corpus_free(&split->test_heldout);
  free(split->train_doc_ids);
  free(split->test_doc_ids);
  memset(split, 0, sizeof *split);
}
