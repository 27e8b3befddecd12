/* Normal and gamma variates on Philox uniforms (variates.h). */
#include "variates.h"

#include <math.h>

#include "samplekit/rng.h"

/* Uniforms per draw: draw d uses indices d * 2^16 .. d * 2^16 + 65535. */
#define SK_MIX_DRAW_SHIFT 16
#define SK_MIX_DRAW_UNIFORMS (1u << SK_MIX_DRAW_SHIFT)

static const double sk_mix_two_pi = 6.283185307179586476925286766559;

/* Uniform i of draw `draw`, in [0, 1 - 2^-53]. */
static double uniform_at(uint64_t seed, uint64_t stream, uint64_t draw, uint32_t i) {
  return sk_rng_uniform_f64(seed, stream, (draw << SK_MIX_DRAW_SHIFT) + i);
}

/* Box-Muller on uniforms i and i + 1 of the draw. */
static double normal_at(uint64_t seed, uint64_t stream, uint64_t draw, uint32_t i) {
  const double u0 = uniform_at(seed, stream, draw, i), u1 = uniform_at(seed, stream, draw, i + 1);
  return sqrt(-2.0 * log(1.0 - u0)) * cos(sk_mix_two_pi * u1);
}

double sk_mix_normal(uint64_t seed, uint64_t stream, uint64_t draw) { return normal_at(seed, stream, draw, 0); }

/* Marsaglia-Tsang for shape >= 1: the log of the variate. */
static double log_gamma_ge1(double shape, uint64_t seed, uint64_t stream, uint64_t draw) {
  const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  uint32_t i;
  /* The last uniform of the draw is kept for the boost below shape 1. */
  for (i = 0; i + 3 < SK_MIX_DRAW_UNIFORMS - 1; i += 3) {
    const double x = normal_at(seed, stream, draw, i), t = 1.0 + c * x;
    if (t <= 0.0) continue;
    const double v = t * t * t, u = 1.0 - uniform_at(seed, stream, draw, i + 2);
    if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return log(d) + log(v);
  }
  return log(d);
}

double sk_mix_log_gamma(double shape, uint64_t seed, uint64_t stream, uint64_t draw) {
  if (shape >= 1.0) return log_gamma_ge1(shape, seed, stream, draw);
  /* Gamma(a) = Gamma(a + 1) U^(1/a): in logs, so that a tiny shape does not underflow. */
  const double u = 1.0 - uniform_at(seed, stream, draw, SK_MIX_DRAW_UNIFORMS - 1);
  return log_gamma_ge1(shape + 1.0, seed, stream, draw) + log(u) / shape;
}
