/* Host reference for the thread-tile sampler; see thread_tile_ref.h and the sk_thread_tile_sample group. */
#include "thread_tile_ref.h"

#include <math.h>
#include <stddef.h>

static int planted = SK_REF_TILE_NO_BUG;

void sk_ref_tile_plant_bug(int bug) { planted = bug; }

/* The tree over v[0 .. n): the two halves' results, combined. */
static float tree(const float *v, int n, int is_min) {
  float left, right;
  if (n == 1) return v[0];
  if (!is_min && planted == SK_REF_TILE_BUG_SEQUENTIAL_SUM) {
    float s = v[0];
    int i;
    for (i = 1; i < n; ++i) s = s + v[i];
    return s;
  }
  left = tree(v, n / 2, is_min);
  right = tree(v + n / 2, n / 2, is_min);
  return is_min ? fminf(left, right) : left + right;
}

float sk_ref_tile_sum_f32(const float *v, int width) { return tree(v, width, 0); }

float sk_ref_tile_min_f32(const float *v, int width) { return tree(v, width, 1); }

/* The search in v[0 .. n) from `base`: into the right half when its sum is positive and u >= base + the
   left half's sum. */
static int search(const float *v, int n, float u, float base, float *edges) {
  float left, right, edge;
  int go_right;
  if (n == 1) return 0;
  left = tree(v, n / 2, 0);
  right = tree(v + n / 2, n / 2, 0);
  edge = base + left;
  if (edges != NULL) edges[0] = edge;
  go_right = right > 0.0f && (planted == SK_REF_TILE_BUG_TIE_LEFT ? u > edge : u >= edge);
  if (go_right) return n / 2 + search(v + n / 2, n / 2, u, edge, edges != NULL ? edges + 1 : NULL);
  return search(v, n / 2, u, base, edges != NULL ? edges + 1 : NULL);
}

int sk_ref_tile_search_f32(const float *v, int width, float u) { return search(v, width, u, 0.0f, NULL); }

int sk_ref_tile_edges_f32(const float *v, int width, int pos, float *edges) {
  /* The search for u = +inf at every level above pos's side: walk down by pos's bits instead. */
  float base = 0.0f;
  int levels = 0, n = width, at = 0;
  while (n > 1) {
    const float left = tree(v + at, n / 2, 0), edge = base + left;
    edges[levels++] = edge;
    if ((pos - at) >= n / 2) {
      base = edge;
      at += n / 2;
    }
    n /= 2;
  }
  return levels;
}

float sk_ref_tile_exp2_neg_f32(float y) {
  /* The minimax polynomial of 2^r on [-1/2, 1/2], degree 6, as the header's documentation gives it. */
  static const float c[7] = {0x1.470b4ap-13f, 0x1.5f7276p-10f, 0x1.3b270ep-7f, 0x1.c6ae72p-5f,
                             0x1.ebfbe2p-3f,  0x1.62e432p-1f,  1.0f};
  float n, r, p;
  int i;
  if (!(y >= -125.0f)) return 0.0f; /* below -125, -inf and NaN */
  n = planted == SK_REF_TILE_BUG_EXP_TRUNCATE ? truncf(y) : nearbyintf(y); /* ties to even */
  r = y - n;
  p = c[0];
  for (i = 1; i < 7; ++i) p = fmaf(p, r, c[i]);
  return ldexpf(p, (int)n);
}

int sk_ref_tile_reservoir_step_f32(sk_ref_tile_reservoir *r, int b, float h_b, float t_b, float u_b) {
  float w, su;
  if (b == 0) {
    r->h = h_b;
    r->s = t_b;
    r->t_sel = t_b;
    r->sel = 0;
    return 1;
  }
  if (h_b < r->h) {
    const float scaled = r->s * sk_ref_tile_exp2_neg_f32(h_b - r->h);
    r->s = scaled + t_b;
    r->h = h_b;
    w = t_b;
  } else {
    w = t_b * sk_ref_tile_exp2_neg_f32(r->h - h_b);
    r->s = r->s + w;
  }
  su = u_b * r->s;
  if (planted == SK_REF_TILE_BUG_RESERVOIR_TIE ? su <= w : su < w) {
    r->sel = b;
    r->t_sel = t_b;
    return 1;
  }
  return 0;
}

int sk_ref_tile_draw_f32(const float *q, int k, int width, int linear, const float *u, float *t_sel) {
  const int tiles = (k + width - 1) / width;
  float e[32], kept[32];
  sk_ref_tile_reservoir r;
  int b, i;
  r.h = r.s = r.t_sel = 0.0f;
  r.sel = 0;
  for (i = 0; i < 32; ++i) kept[i] = 0.0f;
  for (b = 0; b < tiles; ++b) {
    float h = 0.0f, t;
    for (i = 0; i < width; ++i) {
      const int at = b * width + i;
      e[i] = at < k ? q[at] : linear ? 0.0f : INFINITY;
    }
    if (!linear) {
      h = sk_ref_tile_min_f32(e, width);
      for (i = 0; i < width; ++i) e[i] = sk_ref_tile_exp2_neg_f32(h - e[i]);
    }
    t = sk_ref_tile_sum_f32(e, width);
    if (sk_ref_tile_reservoir_step_f32(&r, b, h, t, u[b]))
      for (i = 0; i < width; ++i) kept[i] = e[i];
  }
  if (t_sel != NULL) *t_sel = r.t_sel;
  return r.sel * width + sk_ref_tile_search_f32(kept, width, u[0] * r.t_sel);
}
