/* Standardized data from raw values (data.h). */
#include "data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Raw values of either precision, read through one accessor so that both share the passes below. */
typedef struct raw_view {
  const float *f32;
  const double *f64;
} raw_view;

static double raw_at(const raw_view *r, size_t i) { return r->f32 != NULL ? (double)r->f32[i] : r->f64[i]; }

static int from_raw(const raw_view *r, int64_t n, int32_t d, sk_mix_data *out, sk_ex_error *err) {
  memset(out, 0, sizeof *out);
  if (n < 1) return sk_ex_fail(err, "no data points");
  if (d < 1 || d > SK_MIX_MAX_D)
    return sk_ex_fail(err, "%d dimensions: sk-mixture takes 1 to %d", (int)d, SK_MIX_MAX_D);
  out->n = n;
  out->d = d;
  out->x = (float *)malloc(sizeof(float) * (size_t)n * (size_t)d);
  out->mean = (double *)calloc((size_t)d, sizeof(double));
  out->scale = (double *)calloc((size_t)d, sizeof(double));
  if (out->x == NULL || out->mean == NULL || out->scale == NULL) {
    sk_mix_data_free(out);
    sk_ex_fail(err, "out of memory for %lld x %d values", (long long)n, (int)d);
    return SK_MIX_READ_MACHINE;
  }
  /* Two passes in row order: the mean, then the mean squared deviation (no cancellation). */
  for (int64_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < d; ++j) out->mean[j] += raw_at(r, (size_t)i * (size_t)d + (size_t)j);
  for (int32_t j = 0; j < d; ++j) out->mean[j] /= (double)n;
  for (int64_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < d; ++j) {
      const double dev = raw_at(r, (size_t)i * (size_t)d + (size_t)j) - out->mean[j];
      out->scale[j] += dev * dev;
    }
  for (int32_t j = 0; j < d; ++j) {
    const double var = out->scale[j] / (double)n;
    if (!isfinite(out->mean[j]) || !isfinite(var)) {
      const int32_t col = j;
      sk_mix_data_free(out);
      return sk_ex_fail(err, "column %d: its values are too large to standardize (their variance overflows a double)",
                         (int)col + 1);
    }
    out->scale[j] = var > 0.0 ? sqrt(var) : 1.0;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int32_t j = 0; j < d; ++j) {
      const size_t at = (size_t)i * (size_t)d + (size_t)j;
      out->x[at] = (float)((raw_at(r, at) - out->mean[j]) / out->scale[j]);
    }
  return 0;
}

int sk_mix_data_from_f32(const float *raw, int64_t n, int32_t d, sk_mix_data *out, sk_ex_error *err) {
  const raw_view r = {raw, NULL};
  return from_raw(&r, n, d, out, err);
}

int sk_mix_data_from_f64(const double *raw, int64_t n, int32_t d, sk_mix_data *out, sk_ex_error *err) {
  const raw_view r = {NULL, raw};
  return from_raw(&r, n, d, out, err);
}

void sk_mix_data_free(sk_mix_data *data) {
  if (data == NULL) return;
  free(data->x);
  free(data->mean);
  free(data->scale);
  memset(data, 0, sizeof *data);
}

int sk_mix_data_check_k(const sk_mix_data *data, int32_t k, const char *source, sk_ex_error *err) {
  if (k < 1 || k > SK_MIX_MAX_K)
    return sk_ex_fail(err, "K = %d components: sk-mixture takes 1 to %d", (int)k, SK_MIX_MAX_K);
  if (data->n < (int64_t)k)
    return sk_ex_fail(err, "%s: %lld points, fewer than K = %d components", source, (long long)data->n, (int)k);
  return 0;
}

double sk_mix_data_raw(const sk_mix_data *data, int64_t i, int32_t j) {
  return data->mean[j] + data->scale[j] * (double)data->x[(size_t)i * (size_t)data->d + (size_t)j];
}
