/* Host reference for the butterfly sampler; see butterfly_ref.h and the sk_butterfly group. */
#include "butterfly_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sk_ref_butterfly_num_blocks(int K) { return K > 0 ? (K - 1) / 32 + 1 : 0; }

int sk_ref_butterfly_pad(int K) { return K > 0 ? (32 - K % 32) % 32 : 0; }

void sk_ref_butterfly_tree_f32(const float *w, int K, int b, float node[6][32]) {
  const int first = 32 * b - sk_ref_butterfly_pad(K);
  int t, m, n;
  for (t = 0; t < 32; ++t) node[0][t] = first + t >= 0 ? w[first + t] : 0.0f;
  for (m = 1; m <= 5; ++m)
    for (n = 0; n < (32 >> m); ++n) node[m][n] = node[m - 1][2 * n] + node[m - 1][2 * n + 1];
}

int sk_ref_butterfly_running_totals_f32(const float *w, int K, float *running) {
  const int nb = sk_ref_butterfly_num_blocks(K);
  float node[6][32], total = 0.0f;
  int b;
  for (b = 0; b < nb; ++b) {
    sk_ref_butterfly_tree_f32(w, K, b, node);
    total = total + node[5][0];
    running[b] = total;
  }
  return nb;
}

float sk_ref_butterfly_total_f32(const float *w, int K) {
  const int nb = sk_ref_butterfly_num_blocks(K);
  float *running = (float *)malloc(sizeof(float) * (size_t)(nb > 0 ? nb : 1));
  float total;
  sk_ref_butterfly_running_totals_f32(w, K, running);
  total = nb > 0 ? running[nb - 1] : 0.0f;
  free(running);
  return total;
}

/* The descent of the group's rules: go right when the right half is positive and u >= base + L. */
static int descend(float node[6][32], float u, float base) {
  int m, n = 0;
  for (m = 5; m >= 1; --m) {
    const float left = node[m - 1][2 * n], right = node[m - 1][2 * n + 1];
    const float edge = base + left;
    if (right > 0.0f && u >= edge) {
      base = edge;
      n = 2 * n + 1;
    } else {
      n = 2 * n;
    }
  }
  return n;
}

int sk_ref_butterfly_sample_f32(const float *w, int K, float uniform, float *total) {
  const int nb = sk_ref_butterfly_num_blocks(K);
  float *running = (float *)malloc(sizeof(float) * (size_t)(nb > 0 ? nb : 1));
  float node[6][32], t, u, base = 0.0f;
  int b, block = -1, result = -1;
  sk_ref_butterfly_running_totals_f32(w, K, running);
  t = nb > 0 ? running[nb - 1] : 0.0f;
  if (total != NULL) *total = t;
  if (t > 0.0f && t <= FLT_MAX) {
    u = fmaxf(uniform * t, 0.0f);
    for (b = 0; b < nb && block < 0; ++b)
      if (running[b] > u) {
        block = b;
        base = b > 0 ? running[b - 1] : 0.0f;
      }
    if (block < 0) {  /* u >= T: the last block with a positive sum, searched with u = +inf */
      for (b = nb - 1; b >= 0 && block < 0; --b) {
        sk_ref_butterfly_tree_f32(w, K, b, node);
        if (node[5][0] > 0.0f) block = b;
      }
      u = INFINITY;
      base = 0.0f;
    }
    sk_ref_butterfly_tree_f32(w, K, block, node);
    result = 32 * block - sk_ref_butterfly_pad(K) + descend(node, u, base);
  }
  free(running);
  return result;
}

void sk_ref_butterfly_edges_f32(const float *w, int K, int b, int pos, float edges[6]) {
  float node[6][32], base = 0.0f;
  int i, m, n = 0;
  for (i = 0; i < b; ++i) {
    sk_ref_butterfly_tree_f32(w, K, i, node);
    base = base + node[5][0];
  }
  edges[0] = base;
  sk_ref_butterfly_tree_f32(w, K, b, node);
  for (m = 5; m >= 1; --m) {
    const float edge = base + node[m - 1][2 * n];
    edges[6 - m] = edge;
    if ((pos >> (m - 1)) & 1) {
      base = edge;
      n = 2 * n + 1;
    } else {
      n = 2 * n;
    }
  }
}

void sk_ref_butterfly_product_f32(const float *theta, const float *phi, int K, float *w) {
  int k;
  for (k = 0; k < K; ++k) w[k] = theta[k] * phi[k];
}

int sk_ref_sequential_sample_f32(const float *w, int K, float u) {
  float running = 0.0f;
  int i;
  for (i = 0; i < K; ++i) {
    running = running + w[i];
    if (w[i] > 0.0f && running > u) return i;
  }
  for (i = K - 1; i >= 0; --i)
    if (w[i] > 0.0f) return i;
  return -1;
}
