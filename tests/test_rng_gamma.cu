// Tests the Gamma and exponential variates (rng_gamma.h): on the host, the mean and variance of
// Gamma(a) (and E[log G] = digamma(a), which the tiny shapes' draws are about) for shapes from 0.005 to
// 100 against their sampling error, Exp(1)'s, the documented uniforms read (a variate depends only on its
// own index range), a <= 0, determinism; on the GPU, the device's variates against the host's (the same
// operations; CUDA's log, exp, sqrt and cos may differ by ulps).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "samplekit/rng_gamma.h"
#include "sk_test.h"

enum { kNumShapes = 7 };
// The shapes tested, 0.005 to 100 (device code reads them too).
static __host__ __device__ double shape_of(int64_t i) {
  const double shapes[kNumShapes] = {0.005, 0.1, 0.5, 1.0, 2.5, 10.0, 100.0};
  return shapes[i % kNumShapes];
}

// digamma(x) for x > 0: the recurrence up to x >= 6, then the asymptotic series.
static double digamma(double x) {
  double r = 0.0;
  while (x < 6.0) r -= 1.0 / x, x += 1.0;
  const double f = 1.0 / (x * x);
  return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

// trigamma(x) for x > 0, the same way.
static double trigamma(double x) {
  double r = 0.0;
  while (x < 6.0) r += 1.0 / (x * x), x += 1.0;
  const double f = 1.0 / (x * x);
  return r + 1.0 / x + 0.5 * f + (1.0 / x) * f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

// Variate i of shape a in the tests: its own index range of the stream.
static double host_log_gamma(uint64_t seed, int64_t i, double a) {
  return sk_rng_log_gamma_f64(seed, 7, (uint64_t)i * SK_RNG_GAMMA_MAX_UNIFORMS, a);
}

static void test_moments(void) {
  const int64_t n = 200000;
  for (int s = 0; s < kNumShapes; ++s) {
    const double a = shape_of(s);
    double sum = 0, sum2 = 0, lsum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double lg = host_log_gamma(11 + (uint64_t)s, i, a), g = exp(lg);
      sum += g;
      sum2 += g * g;
      lsum += lg;
    }
    const double mean = sum / n, var = sum2 / n - mean * mean, lmean = lsum / n;
    sk_test_context("Gamma(%g) moments over %lld draws", a, (long long)n);
    // the sample mean's sd sqrt(a / n); the sample variance's sqrt((2 a^2 + 6 a) / n) (Gamma's fourth moment)
    SK_CHECK(fabs(mean - a) < 5.0 * sqrt(a / n), "mean %.6g, expected %.6g", mean, a);
    SK_CHECK(fabs(var - a) < 6.0 * sqrt((2.0 * a * a + 6.0 * a) / n), "variance %.6g, expected %.6g", var, a);
    SK_CHECK(fabs(lmean - digamma(a)) < 5.0 * sqrt(trigamma(a) / n), "E[log G] %.6g, digamma %.6g", lmean, digamma(a));
  }
  double sum = 0, sum2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double e = sk_rng_exponential_f64(3, 9, (uint64_t)i);
    sum += e;
    sum2 += e * e;
  }
  sk_test_context("Exp(1) moments");
  SK_CHECK(fabs(sum / n - 1.0) < 5.0 / sqrt((double)n), "mean %.6g", sum / n);
  SK_CHECK(fabs(sum2 / n - (sum / n) * (sum / n) - 1.0) < 6.0 * sqrt(8.0 / n), "variance %.6g",
           sum2 / n - (sum / n) * (sum / n));
  SK_CHECK(sk_rng_exponential_f64(3, 9, 0) == -log(1.0 - sk_rng_uniform_f64(3, 9, 0)), "the documented formula");
}

static void test_edges(void) {
  sk_test_context("Gamma edges");
  SK_CHECK(sk_rng_log_gamma_f64(1, 2, 3, 0.0) == -INFINITY && sk_rng_gamma_f64(1, 2, 3, -1.0) == 0.0 &&
               sk_rng_log_gamma_f64(1, 2, 3, NAN) == -INFINITY,
           "a <= 0 or NaN is not the variate 0");
  int same = 1, finite = 1;
  for (int64_t i = 0; i < 1000; ++i) {
    const double a = shape_of(i), g = host_log_gamma(5, i, a);
    same &= g == host_log_gamma(5, i, a);
    finite &= a >= 0.1 ? isfinite(g) : !isnan(g);
  }
  SK_CHECK(same, "a variate changed between two calls");
  SK_CHECK(finite, "a variate is NaN (or not finite for a >= 0.1)");
  // A variate reads only its range: changing the uniforms past it (another stream from there on is not
  // expressible, so: the same range read from a later start of the same stream) changes nothing before.
  const uint64_t first = 1000;
  SK_CHECK(sk_rng_log_gamma_f64(9, 4, first, 2.5) == sk_rng_log_gamma_f64(9, 4, first, 2.5) &&
               sk_rng_log_gamma_f64(9, 4, first, 2.5) != sk_rng_log_gamma_f64(9, 4, first + 1, 2.5),
           "the first index does not select the uniforms");
}

__global__ void device_log_gamma(uint64_t seed, int64_t n, double *out) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sk_rng_log_gamma_f64(seed, 7, (uint64_t)i * SK_RNG_GAMMA_MAX_UNIFORMS, shape_of(i));
}

__global__ void device_exponential(int64_t n, double *out) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sk_rng_exponential_f64(3, 9, (uint64_t)i);
}

static void test_device(void) {
  const int64_t n = 1 << 18;
  double *d = NULL, *h = (double *)malloc((size_t)n * sizeof *h);
  SK_CHECK_CUDA(cudaMalloc(&d, (size_t)n * sizeof *d));
  device_log_gamma<<<(unsigned)((n + 255) / 256), 256>>>(21, n, d);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h, d, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
  int64_t equal = 0, far = 0;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double want = sk_rng_log_gamma_f64(21, 7, (uint64_t)i * SK_RNG_GAMMA_MAX_UNIFORMS, shape_of(i));
    const double diff = fabs(h[i] - want) / fmax(1.0, fabs(want));
    equal += h[i] == want;
    far += diff > 1e-12;
    if (diff > worst) worst = diff;
  }
  sk_test_context("Gamma variates: device against host");
  printf("device Gamma variates: %lld of %lld equal to the host's bits, largest relative difference %.3g\n",
         (long long)equal, (long long)n, worst);
  SK_CHECK(far == 0, "%lld variates differ by more than 1e-12 (largest %.3g)", (long long)far, worst);
  device_exponential<<<(unsigned)((n + 255) / 256), 256>>>(n, d);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h, d, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
  far = 0;
  for (int64_t i = 0; i < n; ++i)
    far += fabs(h[i] - sk_rng_exponential_f64(3, 9, (uint64_t)i)) > 1e-15 * fmax(1.0, h[i]);
  sk_test_context("Exp(1) variates: device against host");
  SK_CHECK(far == 0, "%lld variates differ by more than 1e-15", (long long)far);
  SK_CHECK_CUDA(cudaFree(d));
  free(h);
}

int main(int argc, char **argv) {
  test_moments();
  test_edges();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_device();
  }
  return sk_test_finish();
}
