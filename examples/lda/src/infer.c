/* Fold-in of new documents with phi fixed (see infer.h). */
#include "infer.h"

#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "model.h"

void sk_lda_infer_result_free(sk_lda_infer_result *r) {
  if (r == NULL) return;
  free(r->row_start);
  free(r->row_nnz);
  free(r->row_topic);
  free(r->row_count);
  free(r->alpha_k);
  memset(r, 0, sizeof *r);
}

/* Copies a folded-in document's sparse row (its nonzero topics, increasing, as the fold-in keeps them)
   into the result. */
static void sk_lda_infer_visit(void *ctx, int32_t d, const sk_lda_detail_fold_tables *t,
                               const sk_lda_detail_fold_doc *doc, int64_t n) {
  (void)t;
  (void)n;
  sk_lda_infer_result *out = (sk_lda_infer_result *)ctx;
  int32_t *tp = out->row_topic + out->row_start[d], *ct = out->row_count + out->row_start[d];
  for (int32_t j = 0; j < doc->nnz; ++j) {
    tp[j] = doc->topics[j];
    ct[j] = doc->ndk[doc->topics[j]];
  }
  out->row_nnz[d] = doc->nnz;
}

static uint64_t sk_lda_hash_str(const char *s) {
  uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
  for (; *s != '\0'; ++s) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
  return h;
}

int sk_lda_infer_map_words(const sk_lda_model_file *mf, sk_lda_corpus *docs, const char *name, int id_base,
                           int skip_unknown, int64_t *num_dropped, sk_ex_error *err) {
  if (name == NULL) name = "documents";
  if (mf == NULL || docs == NULL || docs->doc_offsets == NULL || (docs->num_tokens > 0 && docs->tokens == NULL))
    return sk_ex_fail(err, "%s: map words: a pointer is NULL", name);
  const int32_t V = mf->num_words;
  const int64_t T = docs->num_tokens;
  /* new_id[w] for each input word id w: the model's id, or -1 when unknown. */
  const int32_t W = docs->num_words;
  if (W < 0) return sk_ex_fail(err, "%s: invalid vocabulary size %d", name, (int)W);
  int32_t *new_id = NULL;
  if (docs->vocab != NULL) {
    if (mf->vocab == NULL)
      return sk_ex_fail(err, "%s: the documents come with a vocabulary but the model has none; give them without "
                              "one so that word ids are matched directly", name);
    size_t cap = 16;
    while (cap < 2u * (size_t)V) cap *= 2;
    int32_t *table = (int32_t *)malloc(cap * sizeof *table);
    new_id = (int32_t *)malloc((size_t)(W > 0 ? W : 1) * sizeof *new_id);
    if (table == NULL || new_id == NULL) {
      free(table);
      free(new_id);
      return sk_ex_fail(err, "%s: out of memory for the vocabulary map", name);
    }
    memset(table, 0xff, cap * sizeof *table);
    for (int32_t v = 0; v < V; ++v) {
      size_t h = (size_t)sk_lda_hash_str(mf->vocab[v]) & (cap - 1);
      while (table[h] >= 0 && strcmp(mf->vocab[table[h]], mf->vocab[v]) != 0) h = (h + 1) & (cap - 1);
      if (table[h] < 0) table[h] = v; /* the first of equal words wins */
    }
    for (int32_t w = 0; w < W; ++w) {
      new_id[w] = -1;
      if (docs->vocab[w] == NULL) continue;
      size_t h = (size_t)sk_lda_hash_str(docs->vocab[w]) & (cap - 1);
      while (table[h] >= 0) {
        if (strcmp(mf->vocab[table[h]], docs->vocab[w]) == 0) {
          new_id[w] = table[h];
          break;
        }
        h = (h + 1) & (cap - 1);
      }
    }
    free(table);
  }
  /* First pass: check (and count what would be dropped) without changing docs. */
  int64_t dropped = 0;
  for (int32_t d = 0; d < docs->num_docs; ++d)
    for (int64_t t = docs->doc_offsets[d]; t < docs->doc_offsets[d + 1]; ++t) {
      const int32_t w = docs->tokens[t];
      int ok;
      if (new_id != NULL)
        ok = w >= 0 && w < W && new_id[w] >= 0;
      else
        ok = w >= 0 && w < V;
      if (ok) continue;
      if (skip_unknown) {
        ++dropped;
        continue;
      }
      if (new_id != NULL && w >= 0 && w < W && docs->vocab[w] != NULL) {
        sk_ex_fail(err, "%s: document %d: word \"%s\" is not in the model's vocabulary", name,
                    (int)sk_lda_corpus_input_doc(docs, d), docs->vocab[w]);
      } else {
        sk_ex_fail(err, "%s: document %d: word id %lld is outside the model's vocabulary (ids %d..%d)", name,
                    (int)sk_lda_corpus_input_doc(docs, d), (long long)w + id_base, id_base, (int)V - 1 + id_base);
      }
      free(new_id);
      return 1;
    }
  /* Second pass: rewrite in place, compacting when tokens are dropped. */
  int64_t out = 0;
  for (int32_t d = 0; d < docs->num_docs; ++d) {
    const int64_t begin = docs->doc_offsets[d], end = docs->doc_offsets[d + 1];
    docs->doc_offsets[d] = out;
    for (int64_t t = begin; t < end; ++t) {
      const int32_t w = docs->tokens[t];
      const int32_t v = new_id != NULL ? (w >= 0 && w < W ? new_id[w] : -1) : (w >= 0 && w < V ? w : -1);
      if (v >= 0) docs->tokens[out++] = v;
    }
  }
  docs->doc_offsets[docs->num_docs] = out;
  (void)T;
  docs->num_tokens = out;
  free(new_id);
  if (docs->vocab != NULL) {
    for (int32_t w = 0; w < W; ++w) free(docs->vocab[w]);
    free(docs->vocab);
    docs->vocab = NULL;
  }
  docs->num_words = V;
  if (num_dropped != NULL) *num_dropped = dropped;
  return 0;
}

int sk_lda_infer(const sk_lda_model_file *mf, const sk_lda_corpus *docs, int iters, uint64_t seed, int threads,
                 sk_lda_infer_result *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "infer: output is NULL");
  memset(out, 0, sizeof *out);
  if (mf == NULL || mf->n_vk == NULL || mf->n_k == NULL || docs == NULL || docs->doc_offsets == NULL ||
      (docs->num_tokens > 0 && docs->tokens == NULL))
    return sk_ex_fail(err, "infer: a pointer is NULL");
  if (iters < 0) return sk_ex_fail(err, "infer: %d fold-in iterations", iters);
  const int32_t K = mf->num_topics, V = mf->num_words, D = docs->num_docs;
  if (K < 1 || V < 1 || D < 0) return sk_ex_fail(err, "infer: invalid sizes K = %d, V = %d, D = %d", (int)K, (int)V, (int)D);
  if (docs->doc_offsets[0] != 0 || docs->doc_offsets[D] != docs->num_tokens)
    return sk_ex_fail(err, "infer: document offsets do not run from 0 to T = %lld", (long long)docs->num_tokens);
  int64_t max_len = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n = docs->doc_offsets[d + 1] - docs->doc_offsets[d];
    if (n < 0) return sk_ex_fail(err, "infer: offsets decrease at document %d", (int)d);
    if (n > max_len) max_len = n;
  }
  for (int64_t t = 0; t < docs->num_tokens; ++t)
    if (docs->tokens[t] < 0 || docs->tokens[t] >= V)
      return sk_ex_fail(err, "infer: token %lld has word id %d outside the model's 0..%d", (long long)t,
                         (int)docs->tokens[t], (int)V - 1);
  out->num_docs = D;
  out->num_topics = K;
  out->alpha = mf->alpha;
  if (sk_lda_detail_check_alpha_k(mf->alpha_k, K, "infer", err) != 0) {
    memset(out, 0, sizeof *out);
    return 1;
  }
  if (mf->alpha_k != NULL) {
    out->alpha_k = (double *)malloc((size_t)K * sizeof *out->alpha_k);
    if (out->alpha_k == NULL) goto oom;
    memcpy(out->alpha_k, mf->alpha_k, (size_t)K * sizeof *out->alpha_k);
  }
  out->row_start = (int64_t *)malloc((size_t)(D + 1) * sizeof *out->row_start);
  out->row_nnz = (int32_t *)calloc((size_t)(D > 0 ? D : 1), sizeof *out->row_nnz);
  if (out->row_start == NULL || out->row_nnz == NULL) goto oom;
  out->row_start[0] = 0;
  for (int32_t d = 0; d < D; ++d) {
    const int64_t n = docs->doc_offsets[d + 1] - docs->doc_offsets[d];
    out->row_start[d + 1] = out->row_start[d] + (n < K ? n : K);
  }
  {
    const int64_t slots = out->row_start[D];
    out->row_topic = (int32_t *)malloc((size_t)(slots > 0 ? slots : 1) * sizeof *out->row_topic);
    out->row_count = (int32_t *)malloc((size_t)(slots > 0 ? slots : 1) * sizeof *out->row_count);
    if (out->row_topic == NULL || out->row_count == NULL) goto oom;
  }
  {
    /* The fold-in of sk_lda_heldout_ll(), shared: equal inputs give equal bits. */
    const sk_lda_counts_view view = {K, V, mf->alpha, mf->beta, seed, mf->n_vk, mf->n_k};
    if (sk_lda_detail_fold_in_docs(&view, mf->alpha_k, docs, max_len, iters, threads, sk_lda_infer_visit, out) != 0)
      goto oom;
  }
  return 0;
oom:
  sk_lda_infer_result_free(out);
  return sk_ex_fail(err, "infer: out of memory (D = %d, K = %d)", (int)D, (int)K);
}
