/* The random draws of sk-lda gen (gen.c): a stream of uniforms read from samplekit's RNG as gen.h lays
   them out, normal, Gamma and Dirichlet variates from it, and Vose's alias tables. Internal to gen.c, which
   alone includes it; the functions are static inline so that the generator's loops keep them inlined. */
#ifndef SK_LDA_GEN_DRAWS_H
#define SK_LDA_GEN_DRAWS_H

#include <math.h>
#include <stdint.h>

#include <samplekit/rng.h>

#define GEN_PI 3.14159265358979323846

/* --- random draws ------------------------------------------------------------------------------------ */

/* Reads stream `stream` as the sequence sk_rng_uniform_f64(seed, stream, 0, 1, ...), one Philox block per
   two doubles. */
typedef struct gen_stream {
  uint64_t seed, stream, next, block;
  int have;
  sk_u32x4 bits;
} gen_stream;

static inline void gs_init(gen_stream *s, uint64_t seed, uint64_t stream, uint64_t first) {
  s->seed = seed;
  s->stream = stream;
  s->next = first;
  s->have = 0;
  s->block = 0;
}

/* In [0, 1 - 2^-53]. */
static inline double gs_uniform(gen_stream *s) {
  const uint64_t i = s->next++;
  if (!s->have || s->block != (i >> 1)) {
    s->block = i >> 1;
    s->bits = sk_rng_u32x4(s->seed, s->stream, s->block);
    s->have = 1;
  }
  return (i & 1u) ? sk_rng_unit_f64(s->bits.z, s->bits.w) : sk_rng_unit_f64(s->bits.x, s->bits.y);
}

/* Box-Muller from two uniforms; 1 - u keeps the logarithm's argument in (0, 1]. */
static inline double gs_normal(gen_stream *s) {
  const double u1 = 1.0 - gs_uniform(s), u2 = gs_uniform(s);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * GEN_PI * u2);
}

/* log of a Gamma(a, 1) variate: Marsaglia-Tsang for a >= 1, Gamma(a + 1) U^(1/a) below. a = 0 gives -inf. */
static inline double gs_log_gamma(gen_stream *s, double a) {
  if (!(a > 0.0)) return -INFINITY;
  if (a < 1.0) {
    const double g = gs_log_gamma(s, a + 1.0);
    return g + log(1.0 - gs_uniform(s)) / a;
  }
  {
    const double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
      const double x = gs_normal(s);
      double v = 1.0 + c * x, u;
      if (v <= 0.0) continue;
      v = v * v * v;
      u = 1.0 - gs_uniform(s);
      if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return log(d * v);
    }
  }
}

/* Dirichlet(a[0..n)) into p (normalised doubles), drawing from s; a[i] may be 0 (p[i] = 0). */
static inline void gs_dirichlet(gen_stream *s, const double *a, int32_t n, double *p) {
  double mx = -INFINITY, sum = 0.0;
  int32_t i;
  for (i = 0; i < n; ++i) {
    p[i] = gs_log_gamma(s, a[i]);
    if (p[i] > mx) mx = p[i];
  }
  for (i = 0; i < n; ++i) {
    p[i] = exp(p[i] - mx); /* the maximum gives exactly 1, so sum >= 1 */
    sum += p[i];
  }
  for (i = 0; i < n; ++i) p[i] /= sum;
}

/* --- alias tables ------------------------------------------------------------------------------------ */

/* Cell floor(x n / 2^64) of a 64-bit uniform x, and in *coin the top 32 bits of the fraction (x n mod 2^64),
   which given the cell are uniform to within n / 2^64. */
static inline uint32_t alias_cell(uint64_t x, uint32_t n, uint32_t *coin) {
  const uint64_t hi = (x >> 32) * n, lo = ((x & 0xffffffffu) * n) >> 32;
  *coin = (uint32_t)((x * n) >> 32);
  return (uint32_t)((hi + lo) >> 32);
}

/* Vose's method: cell i keeps i when coin < thresh[i], else takes alias[i]. w >= 0, sum > 0. Scratch: 2n
   int32 and n doubles. Full cells get thresh UINT32_MAX and alias i, so they always give i. */
static inline void alias_build(const double *w, int32_t n, uint32_t *thresh, int32_t *alias, int32_t *work, double *q) {
  int32_t *small = work, *large = work + n;
  int32_t ns = 0, nl = 0, i;
  double sum = 0.0;
  for (i = 0; i < n; ++i) sum += w[i];
  for (i = 0; i < n; ++i) {
    q[i] = w[i] * (double)n / sum;
    if (q[i] < 1.0)
      small[ns++] = i;
    else
      large[nl++] = i;
  }
  while (ns > 0 && nl > 0) {
    const int32_t sm = small[--ns], lg = large[--nl];
    thresh[sm] = (uint32_t)(q[sm] * 4294967296.0);
    alias[sm] = lg;
    q[lg] = (q[lg] + q[sm]) - 1.0;
    if (q[lg] < 1.0)
      small[ns++] = lg;
    else
      large[nl++] = lg;
  }
  /* What is left is full up to rounding. */
  while (nl > 0) {
    const int32_t c = large[--nl];
    thresh[c] = UINT32_MAX;
    alias[c] = c;
  }
  while (ns > 0) {
    const int32_t c = small[--ns];
    thresh[c] = UINT32_MAX;
    alias[c] = c;
  }
}

#endif /* SK_LDA_GEN_DRAWS_H */
