/* Host reference for SK_CATEGORICAL_GROUP_ROW; the order is documented in sample_categorical.h. */
#include "categorical_ref.h"

#include <math.h>
#include <stdlib.h>

#include "warp_ref.h"

/* Round j: each of the G lanes' entries (0 past K), serial partial sums pre, exclusive positions e
   (Kogge-Stone over the low run of G lanes: the same steps as a width-G shuffle scan). */
static void round_positions(const float *w, int K, int G, int V, int j, float v[32][4], float pre[32][4],
                            float e[32]) {
  float s[32] = {0}, inc[32];
  int l, c;
  for (l = 0; l < G; ++l) {
    for (c = 0; c < V; ++c) {
      const int k = (j * G + l) * V + c;
      v[l][c] = k < K ? w[k] : 0.0f;
      pre[l][c] = c == 0 ? v[l][0] : pre[l][c - 1] + v[l][c];
    }
    s[l] = pre[l][V - 1];
  }
  sk_ref_warp_inclusive_sum_f32(G == 32 ? 0xffffffffu : (1u << G) - 1u, s, inc);
  for (l = 0; l < G; ++l) e[l] = l == 0 ? 0.0f : inc[l - 1];
}

int sk_ref_categorical_group_row_f32(const float *w, int K, int G, int V, float uniform, float *total) {
  const int rounds = (K + G * V - 1) / (G * V);
  float *ends = (float *)malloc(sizeof(float) * (size_t)rounds);
  float v[32][4], pre[32][4], e[32], carry = 0.0f, u;
  int j, l, c, found = -1;
  for (j = 0; j < rounds; ++j) {
    round_positions(w, K, G, V, j, v, pre, e);
    carry = carry + (e[G - 1] + pre[G - 1][V - 1]);
    ends[j] = carry;
  }
  *total = carry;
  if (!(carry > 0.0f) || !(carry < INFINITY)) {
    free(ends);
    return -1;
  }
  u = uniform * carry;
  for (j = 0; j < rounds && !(ends[j] > u); ++j) {
  }
  for (; j < rounds && found < 0; ++j) {
    const float base = j == 0 ? 0.0f : ends[j - 1];
    round_positions(w, K, G, V, j, v, pre, e);
    for (l = 0; l < G && found < 0; ++l)
      for (c = 0; c < V && found < 0; ++c)
        if (v[l][c] > 0.0f && base + (e[l] + pre[l][c]) > u) found = (j * G + l) * V + c;
  }
  for (j = K - 1; j >= 0 && found < 0; --j)
    if (w[j] > 0.0f) found = j;
  free(ends);
  return found;
}
