/* phi.npy of a model's counts (phi.h). */
#include "phi.h"

#include <math.h>
#include <stddef.h>

#include "output.h"
#include "sk_ex_npy.h"

typedef struct phi_ctx {
  const int32_t *n_vk;
  const int64_t *n_k;
  int32_t V, K;
  double beta;
} phi_ctx;

/* Topics first .. first + count - 1, 64 at a time and word by word within them: a word's counts of 64
   topics are next to each other in n_vk (256 bytes), and each of the 64 output rows is written in order,
   where a row at a time would read n_vk with a stride of K. */
static int phi_rows(const void *p, int64_t first, int64_t count, float *out) {
  const phi_ctx *c = (const phi_ctx *)p;
  const size_t V = (size_t)c->V, K = (size_t)c->K, k0 = (size_t)first, n = (size_t)count;
  double scale[64];
  for (size_t b0 = 0; b0 < n; b0 += 64) { /* the normalisers of 64 topics at a time */
    const size_t nb = n - b0 < 64 ? n - b0 : 64;
    for (size_t b = 0; b < nb; ++b) scale[b] = sk_lda_phi_scale(c->n_k[k0 + b0 + b], c->V, c->beta);
    for (size_t v = 0; v < V; ++v) {
      const int32_t *row = c->n_vk + v * K + k0 + b0;
      for (size_t b = 0; b < nb; ++b) out[(b0 + b) * V + v] = (float)(((double)row[b] + c->beta) * scale[b]);
    }
  }
  return 0;
}

void sk_lda_phi_fill(const int32_t *n_vk, const int64_t *n_k, int32_t num_words, int32_t num_topics, double beta,
                     float *phi) {
  const phi_ctx c = {n_vk, n_k, num_words, num_topics, beta};
  phi_rows(&c, 0, num_topics, phi);
}

int sk_lda_write_phi_npy(const char *path, const int32_t *n_vk, const int64_t *n_k, int32_t num_words,
                         int32_t num_topics, double beta, sk_ex_error *err) {
  if (path == NULL || n_vk == NULL || n_k == NULL) return sk_ex_fail(err, "write phi: a pointer is NULL");
  if (num_words < 1 || num_topics < 1)
    return sk_ex_fail(err, "%s: invalid sizes V = %d, K = %d", path, (int)num_words, (int)num_topics);
  if (!(beta > 0.0) || !isfinite(beta)) return sk_ex_fail(err, "%s: beta %g must be finite and positive", path, beta);
  const phi_ctx c = {n_vk, n_k, num_words, num_topics, beta};
  return sk_ex_write_npy_f32_rows(path, num_topics, num_words, phi_rows, &c, err);
}
