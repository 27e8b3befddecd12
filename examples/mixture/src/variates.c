/* Normal and gamma variates on Philox uniforms (variates.h). */
#include "variates.h"

#include <math.h>

#include "samplekit/rng.h"
#include "samplekit/rng_gamma.h"

/* Uniforms per draw: draw d uses indices d * 2^16 .. d * 2^16 + 65535. */
#define SK_MIX_DRAW_SHIFT 16

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

/* samplekit's Gamma variate on the draw's first SK_RNG_GAMMA_MAX_UNIFORMS uniforms. */
double sk_mix_log_gamma(double shape, uint64_t seed, uint64_t stream, uint64_t draw) {
  return sk_rng_log_gamma_f64(seed, stream, draw << SK_MIX_DRAW_SHIFT, shape);
}
