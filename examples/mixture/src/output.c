/* sk-mixture's files (output.h). */
#include "output.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int sk_mix_components_alloc(sk_mix_components *c, int32_t k, int32_t d, sk_ex_error *err) {
  memset(c, 0, sizeof *c);
  c->k = k;
  c->d = d;
  c->weight = (double *)calloc((size_t)k, sizeof(double));
  c->mean = (double *)calloc((size_t)k * (size_t)d, sizeof(double));
  c->var = (double *)calloc((size_t)k * (size_t)d, sizeof(double));
  if (c->weight == NULL || c->mean == NULL || c->var == NULL) {
    sk_mix_components_free(c);
    return sk_ex_fail(err, "out of memory for %d x %d components", (int)k, (int)d);
  }
  return 0;
}

void sk_mix_components_free(sk_mix_components *c) {
  if (c == NULL) return;
  free(c->weight);
  free(c->mean);
  free(c->var);
  memset(c, 0, sizeof *c);
}

void sk_mix_components_add(sk_mix_components *acc, const sk_mix_data *data, const sk_mix_params *p, double w) {
  for (int32_t k = 0; k < p->k; ++k) {
    acc->weight[k] += w * exp(p->log_pi[k]);
    for (int32_t j = 0; j < p->d; ++j) {
      const size_t at = (size_t)k * (size_t)p->d + (size_t)j;
      acc->mean[at] += w * (data->mean[j] + data->scale[j] * p->mu[at]);
      acc->var[at] += w * (data->scale[j] * data->scale[j] * p->sigma2[at]);
    }
  }
}

/* --- assign.txt ------------------------------------------------------------------------------------ */

typedef struct assign_ctx {
  const int32_t *z;
  int64_t n;
} assign_ctx;

static int assign_body(FILE *f, const void *p) {
  const assign_ctx *a = (const assign_ctx *)p;
  for (int64_t i = 0; i < a->n; ++i)
    if (fprintf(f, "%d\n", (int)a->z[i]) < 0) return 1;
  return 0;
}

int sk_mix_write_assign(const char *path, const int32_t *z, int64_t n, sk_ex_error *err) {
  const assign_ctx a = {z, n};
  return sk_ex_write_file(path, assign_body, &a, err);
}

/* --- components.csv -------------------------------------------------------------------------------- */

typedef struct components_ctx {
  const sk_mix_components *const *sets;
  const char *const *labels;
  int count;
} components_ctx;

static int components_body(FILE *f, const void *p) {
  const components_ctx *c = (const components_ctx *)p;
  int32_t d = 0;
  for (int s = 0; s < c->count; ++s)
    if (c->sets[s] != NULL) d = c->sets[s]->d;
  fprintf(f, "estimate,component,weight");
  for (int32_t j = 1; j <= d; ++j) fprintf(f, ",mean_%d", (int)j);
  for (int32_t j = 1; j <= d; ++j) fprintf(f, ",var_%d", (int)j);
  fputc('\n', f);
  for (int s = 0; s < c->count; ++s) {
    const sk_mix_components *m = c->sets[s];
    if (m == NULL) continue;
    for (int32_t k = 0; k < m->k; ++k) {
      fprintf(f, "%s,%d,%.17g", c->labels[s], (int)k, m->weight[k]);
      for (int32_t j = 0; j < m->d; ++j) fprintf(f, ",%.17g", m->mean[(size_t)k * (size_t)m->d + (size_t)j]);
      for (int32_t j = 0; j < m->d; ++j) fprintf(f, ",%.17g", m->var[(size_t)k * (size_t)m->d + (size_t)j]);
      if (fputc('\n', f) == EOF) return 1;
    }
  }
  return 0;
}

int sk_mix_write_components(const char *path, const sk_mix_components *const *sets, const char *const *labels,
                            int count, sk_ex_error *err) {
  const components_ctx c = {sets, labels, count};
  return sk_ex_write_file(path, components_body, &c, err);
}

/* --- data files ------------------------------------------------------------------------------------ */

typedef struct matrix_ctx {
  const float *x;
  int64_t n;
  int32_t d;
} matrix_ctx;

static int csv_body(FILE *f, const void *p) {
  const matrix_ctx *m = (const matrix_ctx *)p;
  for (int64_t i = 0; i < m->n; ++i) {
    for (int32_t j = 0; j < m->d; ++j)
      fprintf(f, j > 0 ? ",%.9g" : "%.9g", (double)m->x[(size_t)i * (size_t)m->d + (size_t)j]);
    if (fputc('\n', f) == EOF) return 1;
  }
  return 0;
}

int sk_mix_write_csv_f32(const char *path, const float *x, int64_t n, int32_t d, sk_ex_error *err) {
  const matrix_ctx m = {x, n, d};
  return sk_ex_write_file(path, csv_body, &m, err);
}

/* --- trace.csv ------------------------------------------------------------------------------------- */

/* Appends printf-style text to the trace, growing it. */
static int trace_printf(sk_mix_trace *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int trace_printf(sk_mix_trace *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(t->text + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) return 1;
    if ((size_t)n < t->cap - t->len) {
      t->len += (size_t)n;
      return 0;
    }
    const size_t cap = 2 * t->cap + (size_t)n + 1;
    char *p = (char *)realloc(t->text, cap);
    if (p == NULL) return 1;
    t->text = p;
    t->cap = cap;
  }
}

int sk_mix_trace_open(sk_mix_trace *t, const char *path, int32_t k, sk_ex_error *err) {
  memset(t, 0, sizeof *t);
  t->cap = 4096;
  t->text = (char *)malloc(t->cap);
  if (path != NULL) t->path = (char *)malloc(strlen(path) + 1);
  if (t->text == NULL || (path != NULL && t->path == NULL)) {
    sk_mix_trace_close(t);
    return sk_ex_fail(err, "out of memory for the trace");
  }
  t->text[0] = '\0';
  if (path != NULL) memcpy(t->path, path, strlen(path) + 1);
  int rc = trace_printf(t, "sweep,seconds,log_likelihood,log_joint");
  for (int32_t c = 0; c < k && rc == 0; ++c) rc = trace_printf(t, ",size_%d", (int)c);
  if (rc == 0) rc = trace_printf(t, "\n");
  if (rc != 0) {
    sk_mix_trace_close(t);
    return sk_ex_fail(err, "out of memory for the trace");
  }
  return 0;
}

int sk_mix_trace_row(sk_mix_trace *t, uint64_t sweep, double seconds, double log_lik, double log_joint,
                     const int64_t *sizes, int32_t k, int write_file, sk_ex_error *err) {
  int rc = trace_printf(t, "%llu,%.6f,%.17g,%.17g", (unsigned long long)sweep, seconds, log_lik, log_joint);
  for (int32_t c = 0; c < k && rc == 0; ++c) rc = trace_printf(t, ",%lld", (long long)sizes[c]);
  if (rc == 0) rc = trace_printf(t, "\n");
  if (rc != 0) return sk_ex_fail(err, "out of memory for the trace");
  return write_file ? sk_mix_trace_flush(t, err) : 0;
}

static int trace_body(FILE *f, const void *p) {
  const sk_mix_trace *t = (const sk_mix_trace *)p;
  return fwrite(t->text, 1, t->len, f) != t->len;
}

int sk_mix_trace_flush(sk_mix_trace *t, sk_ex_error *err) {
  return t->path == NULL ? 0 : sk_ex_write_file(t->path, trace_body, t, err);
}

void sk_mix_trace_close(sk_mix_trace *t) {
  if (t == NULL) return;
  free(t->path);
  free(t->text);
  memset(t, 0, sizeof *t);
}
