// The thread-tile sampler test's cases (tests/test_thread_tile_sample.cu): tiles of every width with u on
// and near their edges, exponents, reservoir runs, whole draws; and their comparison with the host
// reference (tests/ref/thread_tile_ref.c), with and without a planted bug. Host code; included by the
// test only.
#ifndef SAMPLEKIT_TESTS_THREAD_TILE_CASES_CUH
#define SAMPLEKIT_TESTS_THREAD_TILE_CASES_CUH

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref/thread_tile_ref.h"
#include "sk_test.h"

// Words of output per tile case, per reservoir step, per draw case; kinds of draw cases; the longest
// reservoir run.
enum { kTileOuts = 3, kResOuts = 10, kDrawOuts = 4, kNumKinds = 11, kMaxResTiles = 33 };

// A tile of `width` values at values[offset ..], and the u its search is for.
struct TileCase {
  int width, offset;
  float u;
};

// A run of reservoir steps: (h_b, t_b, u_b) at values[offset + 3 b ..]; per step the take flag and the
// state (h, s, t_sel, sel) of the branch shape, then of the select shape.
struct ResCase {
  int offset, tiles;
};

// A whole draw: K entries q (minus log2-weights, or plain weights when `linear`), uniforms u[0 ..].
struct DrawCase {
  int k, width, linear, kind, q_offset, u_offset;
};

static const int kWidths[] = {1, 2, 4, 8, 16, 32};
static const int kDrawKs[] = {1, 5, 8, 9, 16, 17, 31, 32, 33, 64, 97, 1000};
static const char *const kKindNames[kNumKinds] = {
    "log2: overlapping", "log2: huge spread", "log2: one-hot", "log2: ties on boundaries", "log2: near underflow",
    "log2: large magnitude", "plain: uniform", "plain: mostly zeros", "plain: denormals", "plain: 1e30 spread",
    "plain: ties on boundaries"};

// Growable arrays of floats and cases.
template <class T>
struct Vec {
  T *p = NULL;
  size_t n = 0, cap = 0;
  T *grow(size_t k) {
    if (n + k > cap) {
      cap = 2 * (n + k);
      p = (T *)realloc(p, sizeof(T) * cap);
    }
    n += k;
    return p + n - k;
  }
  ~Vec() { free(p); }
};

struct Cases {
  Vec<float> values, y, res_values, q, u;
  Vec<TileCase> tiles;
  Vec<ResCase> res;
  Vec<DrawCase> draws;
};

// Tile values of kind `kind`: uniform, ties, one-hot, zeros, skewed, denormals, exact small integers
// with zeros, and signed values with infinities and zeros of both signs (for the minimum).
static void tile_values(float *v, int w, int kind, uint64_t *rng) {
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)w);
  for (int i = 0; i < w; ++i) {
    const float r = sk_test_rand_unit_f32(rng);
    const uint32_t z = sk_test_rand_u32(rng);
    switch (kind) {
      case 0: v[i] = r; break;
      case 1: v[i] = 1.0f; break;
      case 2: v[i] = i == hot ? 0.75f : 0.0f; break;
      case 3: v[i] = 0.0f; break;
      case 4: v[i] = r < 0.1f ? 1e30f * (r + 0.5f) : r; break;
      case 5: v[i] = r < 0.5f ? 1e-40f * r : 1e-30f * r; break;
      case 6: v[i] = z % 2u ? (float)(z % 7u) : 0.0f; break;
      default: v[i] = z % 5u == 0 ? INFINITY : z % 5u == 1 ? (z & 64u ? -0.0f : 0.0f) : 200.0f * r - 100.0f; break;
    }
  }
}

static void build_cases(int seed, Cases *c) {
  uint64_t rng = 0x711e0000u + (uint64_t)seed;
  for (int wi = 0; wi < 6; ++wi)
    for (int kind = 0; kind < 8; ++kind)
      for (int rep = 0; rep < 4; ++rep) {
        const int w = kWidths[wi];
        const int offset = (int)c->values.n;
        float *v = c->values.grow((size_t)w);
        tile_values(v, w, kind, &rng);
        const float total = sk_ref_tile_sum_f32(v, w);
        float edges[5];
        const int pos = (int)(sk_test_rand_u32(&rng) % (uint32_t)w);
        const int levels = sk_ref_tile_edges_f32(v, w, pos, edges);
        const float edge = levels > 0 ? edges[sk_test_rand_u32(&rng) % (uint32_t)levels] : 0.0f;
        const float us[6] = {0.0f, sk_test_rand_unit_f32(&rng) * total, edge,
                             edge > 0.0f ? nextafterf(edge, 0.0f) : 0.0f, total, INFINITY};
        for (int p = 0; p < 6; ++p) *c->tiles.grow(1) = TileCase{w, offset, us[p]};
      }
  // The exponential: a sweep of [-130, 0], ties of the rounding, the cut at -125, specials.
  const float specials[] = {0.0f, -0.0f, -0.5f, -1.5f, -2.5f, -124.5f, -125.0f, nextafterf(-125.0f, 0.0f),
                            nextafterf(-125.0f, -200.0f), -125.5f, -1e-30f, -1e-45f, -INFINITY, NAN};
  for (float s : specials) *c->y.grow(1) = s;
  for (int i = 0; i < (1 << 16); ++i) *c->y.grow(1) = -130.0f * sk_test_rand_unit_f32(&rng);
  // Reservoir runs: shifts above, below and equal to the running one, +inf (a tile with no weight),
  // sums from 0 to 32, uniforms in [0, 1) and exactly 0.
  static const float shifts[4] = {0.0f, 1.0f, 126.5f, 1e30f};
  for (int run = 0; run < 2000; ++run) {
    const int tiles = 1 + (int)(sk_test_rand_u32(&rng) % (uint32_t)kMaxResTiles);
    *c->res.grow(1) = ResCase{(int)c->res_values.n, tiles};
    float last_h = 0.0f;
    for (int b = 0; b < tiles; ++b) {
      const uint32_t kind = sk_test_rand_u32(&rng) % 8u;
      float h = 300.0f * (sk_test_rand_unit_f32(&rng) - 0.5f);
      if (kind == 0) h = last_h;
      if (kind == 1) h = shifts[sk_test_rand_u32(&rng) % 4u];
      if (kind == 2 && b > 0) h = INFINITY;
      last_h = h < last_h || b == 0 ? h : last_h;
      float *x = c->res_values.grow(3);
      x[0] = h;
      x[1] = kind == 3 ? 0.0f : 32.0f * sk_test_rand_unit_f32(&rng);
      x[2] = kind == 4 ? 0.0f : sk_test_rand_unit_f32(&rng);
    }
  }
  // Whole draws.
  for (int ki = 0; ki < (int)(sizeof kDrawKs / sizeof kDrawKs[0]); ++ki)
    for (int w = 8; w <= 32; w *= 2)
      for (int kind = 0; kind < kNumKinds; ++kind)
        for (int rep = 0; rep < 3; ++rep) {
          const int k = kDrawKs[ki], tiles = (k + w - 1) / w, hot = (int)(sk_test_rand_u32(&rng) % (uint32_t)k);
          const DrawCase d = {k, w, kind >= 6, kind, (int)c->q.n, (int)c->u.n};
          *c->draws.grow(1) = d;
          float *q = c->q.grow((size_t)k), *u = c->u.grow((size_t)tiles);
          for (int i = 0; i < k; ++i) {
            const float r = sk_test_rand_unit_f32(&rng);
            const uint32_t z = sk_test_rand_u32(&rng);
            switch (kind) {  // log2 kinds: q = minus the log2-weight; plain kinds: the weight
              case 0: q[i] = 6.0f * r - 3.0f; break;
              case 1: q[i] = 1000.0f * r; break;
              case 2: q[i] = i == hot ? -2.5f : INFINITY; break;
              case 3: q[i] = 7.0f; break;
              case 4: q[i] = i == hot ? 0.0f : (float)(124 + z % 3u) + (float)(z % 5u) * 0.25f; break;
              case 5: q[i] = 1e6f + 10.0f * r; break;
              case 6: q[i] = r; break;
              case 7: q[i] = z % 16u == 0 || i == hot ? r + 0.125f : 0.0f; break;
              case 8: q[i] = r * 1e-40f; break;
              case 9: q[i] = z % 2u ? 1e30f * r : 1e-30f * r; break;
              default: q[i] = 1.0f; break;
            }
          }
          const int ties = kind == 3 || kind == 10;
          for (int b = 0; b < tiles; ++b) {
            const uint32_t z = sk_test_rand_u32(&rng);
            // Ties: u_0 = j / W puts u on a boundary of a full tile of ones; u_b = 1 / (b + 1) makes
            // u_b S equal W when every tile so far is full (exactly, or after rounding).
            u[b] = !ties ? sk_test_rand_unit_f32(&rng)
                   : b == 0 ? (float)(z % (uint32_t)w) / (float)w
                   : z % 2u ? 1.0f / (float)(b + 1)
                            : sk_test_rand_unit_f32(&rng);
          }
        }
}

// --- comparisons -------------------------------------------------------------------------------------

// Both words are zeros (of either sign): the minimum's sign of zero is not specified (fminf's is not).
static int zeros(uint32_t a, uint32_t b) { return (a & 0x7fffffffu) == 0 && (b & 0x7fffffffu) == 0; }

// Compares the outputs with the reference under the planted bug `bug`; returns the mismatches (reported
// as failures only when `report`).
static long compare(const Cases &c, const uint32_t *tile_out, const uint32_t *exp_out, const uint32_t *res_out,
                    const uint32_t *draw_out, int seed, const char *path, int bug, int report) {
  long bad = 0;
  sk_ref_tile_plant_bug(bug);
  for (size_t i = 0; i < c.tiles.n; ++i) {
    const TileCase &t = c.tiles.p[i];
    const float *v = c.values.p + t.offset;
    const uint32_t want[kTileOuts] = {sk_test_f32_bits(sk_ref_tile_sum_f32(v, t.width)),
                                      sk_test_f32_bits(sk_ref_tile_min_f32(v, t.width)),
                                      (uint32_t)sk_ref_tile_search_f32(v, t.width, t.u)};
    for (int o = 0; o < kTileOuts; ++o)
      if (tile_out[kTileOuts * i + o] != want[o] && !(o == 1 && zeros(tile_out[kTileOuts * i + o], want[o]))) {
        ++bad;
        if (report) {
          sk_test_context("%s seed=%d tile case %zu width %d u=%a output %d", path, seed, i, t.width, (double)t.u, o);
          SK_CHECK(0, "got %08x, the reference %08x", tile_out[kTileOuts * i + o], want[o]);
        }
      }
  }
  for (size_t i = 0; i < c.y.n; ++i)
    if (exp_out[i] != sk_test_f32_bits(sk_ref_tile_exp2_neg_f32(c.y.p[i]))) {
      ++bad;
      if (report) {
        sk_test_context("%s seed=%d exp2 of %a", path, seed, (double)c.y.p[i]);
        SK_CHECK(0, "got %08x, the reference %08x", exp_out[i], sk_test_f32_bits(sk_ref_tile_exp2_neg_f32(c.y.p[i])));
      }
    }
  for (size_t i = 0; i < c.res.n; ++i) {
    sk_ref_tile_reservoir r = {0.0f, 0.0f, 0.0f, 0};
    for (int b = 0; b < c.res.p[i].tiles; ++b) {
      const float *x = c.res_values.p + c.res.p[i].offset + 3 * b;
      const uint32_t take = (uint32_t)sk_ref_tile_reservoir_step_f32(&r, b, x[0], x[1], x[2]);
      const uint32_t want[5] = {take, sk_test_f32_bits(r.h), sk_test_f32_bits(r.s), sk_test_f32_bits(r.t_sel),
                                (uint32_t)r.sel};
      const uint32_t *o = res_out + (size_t)kResOuts * (kMaxResTiles * i + b);
      for (int j = 0; j < kResOuts; ++j)
        if (o[j] != want[j % 5]) {
          ++bad;
          if (report) {
            sk_test_context("%s seed=%d reservoir run %zu step %d (h %a, t %a, u %a), %s shape, field %d", path, seed,
                            i, b, (double)x[0], (double)x[1], (double)x[2], j < 5 ? "branch" : "select", j % 5);
            SK_CHECK(0, "got %08x, the reference %08x", o[j], want[j % 5]);
          }
        }
    }
  }
  for (size_t i = 0; i < c.draws.n; ++i) {
    const DrawCase &d = c.draws.p[i];
    float t = 0.0f;
    const uint32_t index = (uint32_t)sk_ref_tile_draw_f32(c.q.p + d.q_offset, d.k, d.width, d.linear,
                                                          c.u.p + d.u_offset, &t);
    const uint32_t want[kDrawOuts] = {index, sk_test_f32_bits(t), index, sk_test_f32_bits(t)};
    for (int o = 0; o < kDrawOuts; ++o)
      if (draw_out[kDrawOuts * i + o] != want[o]) {
        ++bad;
        if (report) {
          sk_test_context("%s seed=%d draw case %zu K=%d W=%d %s, %s shape", path, seed, i, d.k, d.width,
                          kKindNames[d.kind], o < 2 ? "branch" : "select");
          SK_CHECK(0, "%s: got %u (%08x), the reference %u (%08x)", o % 2 ? "taken sum" : "index",
                   draw_out[kDrawOuts * i + o], draw_out[kDrawOuts * i + o], want[o], want[o]);
        }
      }
  }
  sk_ref_tile_plant_bug(SK_REF_TILE_NO_BUG);
  return bad;
}

// Every output must match the reference; and under each planted bug some output must not.
static void check(const Cases &c, const uint32_t *tile_out, const uint32_t *exp_out, const uint32_t *res_out,
                  const uint32_t *draw_out, int seed, const char *path) {
  static const char *const bugs[SK_REF_TILE_BUGS] = {"", "sums left to right", "ties going left",
                                                     "reservoir ties replacing", "exponential split at trunc(y)"};
  const long bad = compare(c, tile_out, exp_out, res_out, draw_out, seed, path, SK_REF_TILE_NO_BUG, 1);
  sk_test_context("%s seed=%d", path, seed);
  SK_CHECK(bad == 0, "%ld outputs differ from the reference", bad);
  for (int bug = 1; bug < SK_REF_TILE_BUGS; ++bug) {
    const long seen = compare(c, tile_out, exp_out, res_out, draw_out, seed, path, bug, 0);
    sk_test_context("%s seed=%d planted bug: %s", path, seed, bugs[bug]);
    SK_CHECK(seen > 0, "the reference with the bug planted agrees with every output: the cases miss the rule");
  }
}

#endif  // SAMPLEKIT_TESTS_THREAD_TILE_CASES_CUH
