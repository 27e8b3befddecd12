/* Serial collapsed Gibbs sampling (Griffiths and Steyvers 2004). */
#include "cgs.h"

#include <stdlib.h>
#include <string.h>

#include "samplekit/rng.h"

int32_t sk_lda_cgs_draw(const int32_t *ndk, const int32_t *nvk, const double *inv, int32_t num_topics, double alpha,
                        double beta, double u, double *cum) {
  double total = 0.0;
  for (int32_t k = 0; k < num_topics; ++k) {
    total += ((double)ndk[k] + alpha) * ((double)nvk[k] + beta) * inv[k];
    cum[k] = total;
  }
  return sk_lda_detail_first_above(cum, num_topics, u * total);
}

int32_t sk_lda_cgs_draw_prior(const int32_t *ndk, const int32_t *nvk, const double *inv, int32_t num_topics,
                              const double *alpha_k, double beta, double u, double *cum) {
  double total = 0.0;
  for (int32_t k = 0; k < num_topics; ++k) {
    total += ((double)ndk[k] + alpha_k[k]) * ((double)nvk[k] + beta) * inv[k];
    cum[k] = total;
  }
  return sk_lda_detail_first_above(cum, num_topics, u * total);
}

int sk_lda_cgs_sweep(sk_lda_model *m, uint64_t iteration, sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "CGS sweep: model is NULL or not initialised");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_ex_fail(err, "CGS sweep: iteration %llu is too large", (unsigned long long)iteration);
  const int32_t K = m->num_topics;
  const sk_lda_corpus *c = m->corpus;
  const double alpha = m->alpha, beta = m->beta, vbeta = (double)m->num_words * m->beta;
  /* The document's counts live densely in ndk while it is sampled; inv holds 1 / (n_k + V beta) and is
     recomputed from the integer n_k whenever n_k changes, so it never drifts. */
  int32_t *ndk = (int32_t *)calloc((size_t)K, sizeof *ndk);
  double *inv = (double *)malloc((size_t)K * sizeof *inv);
  double *cum = (double *)malloc((size_t)K * sizeof *cum);
  if (ndk == NULL || inv == NULL || cum == NULL) {
    free(ndk);
    free(inv);
    free(cum);
    return sk_ex_fail(err, "CGS sweep: out of memory (K = %d)", (int)K);
  }
  for (int32_t k = 0; k < K; ++k) inv[k] = 1.0 / ((double)m->n_k[k] + vbeta);
  for (int32_t d = 0; d < m->num_docs; ++d) {
    const int64_t begin = c->doc_offsets[d], end = c->doc_offsets[d + 1];
    for (int64_t t = begin; t < end; ++t) ++ndk[m->z[t]];
    for (int64_t t = begin; t < end; ++t) {
      const int32_t old = m->z[t];
      int32_t *nvk = m->n_vk + (size_t)c->tokens[t] * (size_t)K;
      --ndk[old];
      --nvk[old];
      --m->n_k[old];
      inv[old] = 1.0 / ((double)m->n_k[old] + vbeta);
      const double u = sk_rng_uniform_f64(m->seed, iteration, (uint64_t)t);
      const int32_t k = m->alpha_k == NULL ? sk_lda_cgs_draw(ndk, nvk, inv, K, alpha, beta, u, cum)
                                           : sk_lda_cgs_draw_prior(ndk, nvk, inv, K, m->alpha_k, beta, u, cum);
      m->z[t] = k;
      ++ndk[k];
      ++nvk[k];
      ++m->n_k[k];
      inv[k] = 1.0 / ((double)m->n_k[k] + vbeta);
    }
    /* Write the document's sparse row back, in increasing topic order, and clear the scratch. */
    int32_t *row_topic = m->dk_topic + m->dk_start[d];
    int32_t *row_count = m->dk_count + m->dk_start[d];
    int32_t nnz = 0;
    if (end - begin >= K / 8) {
      for (int32_t k = 0; k < K; ++k)
        if (ndk[k] != 0) {
          row_topic[nnz] = k;
          row_count[nnz++] = ndk[k];
          ndk[k] = 0;
        }
    } else { /* short document, many topics: collect its topics from its tokens and sort them */
      for (int64_t t = begin; t < end; ++t) {
        const int32_t k = m->z[t];
        if (ndk[k] > 0) {
          int32_t i = nnz++;
          while (i > 0 && row_topic[i - 1] > k) {
            row_topic[i] = row_topic[i - 1];
            row_count[i] = row_count[i - 1];
            --i;
          }
          row_topic[i] = k;
          row_count[i] = ndk[k];
          ndk[k] = 0;
        }
      }
    }
    m->dk_nnz[d] = nnz;
  }
  free(ndk);
  free(inv);
  free(cum);
  return 0;
}
