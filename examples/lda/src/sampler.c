/* The sampler seam (sampler.h): the CPU samplers and the GPU ESCA behind it, device resolution, the dispatch. */
#include "sampler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgs.h"
#include "esca.h"
#include "metrics.h"
#ifdef SK_LDA_HAVE_GPU
#include "gpu/esca_gpu.h"
#include "gpu/gpu.h"
#include "gpu/metrics_gpu.h"
#endif

static const char *const sk_lda_sampler_names[] = {"esca", "cgs", "aga", "auto"};

int sk_lda_sampler_kind_from_name(const char *name) {
  for (int i = 0; name != NULL && i < (int)(sizeof sk_lda_sampler_names / sizeof *sk_lda_sampler_names); ++i)
    if (strcmp(name, sk_lda_sampler_names[i]) == 0) return i;
  return -1;
}

const char *sk_lda_sampler_kind_name(int kind) {
  return kind >= 0 && kind < (int)(sizeof sk_lda_sampler_names / sizeof *sk_lda_sampler_names)
             ? sk_lda_sampler_names[kind]
             : "?";
}

/* --- CPU collapsed Gibbs: its state is the model ------------------------------------------------- */

static int cgs_sweep(sk_lda_sampler *s, uint64_t iteration, sk_lda_error *err) {
  return sk_lda_cgs_sweep(s->model, iteration, err);
}

static const sk_lda_sampler_ops cgs_ops = {"cgs", "serial collapsed Gibbs (CPU)", cgs_sweep, NULL, NULL,
                                           NULL, NULL, NULL};

/* --- CPU ESCA: its scratch is the word tables ------------------------------------------------------ */

static int esca_sweep(sk_lda_sampler *s, uint64_t iteration, sk_lda_error *err) {
  return sk_lda_esca_sweep(s->model, (sk_lda_esca_tables *)s->state, iteration, s->device.threads, err);
}

static void esca_destroy(sk_lda_sampler *s) {
  sk_lda_esca_tables_free((sk_lda_esca_tables *)s->state);
  free(s->state);
}

static const sk_lda_sampler_ops esca_ops = {"esca", "ESCA (CPU, OpenMP)", esca_sweep, NULL, esca_destroy,
                                            NULL, NULL, NULL};

#ifdef SK_LDA_HAVE_GPU
/* --- GPU ESCA (gpu/esca_gpu.h): its state is on the device; the model is current after to_host ------ */

/* Each GPU sampler carries its own operations, so that the log's description names its GPU. Its
   metrics context is made on the first evaluation and keeps the test halves it was last given. */
typedef struct esca_gpu_sampler {
  sk_lda_sampler_ops ops;
  sk_lda_esca_gpu *gpu;
  sk_lda_gpu_metrics *metrics;
  const sk_lda_corpus *observed, *heldout; /* the halves uploaded to metrics, or NULL */
} esca_gpu_sampler;

/* The metrics context (made on first use) and the sampler's device counts. */
static int esca_gpu_metrics(esca_gpu_sampler *g, sk_lda_gpu_counts *counts, sk_lda_error *err) {
  if (sk_lda_esca_gpu_counts(g->gpu, counts, err) != 0) return 1;
  if (g->metrics == NULL && sk_lda_gpu_metrics_create(counts->gpu, &g->metrics, err) != 0) return 1;
  return 0;
}

static int esca_gpu_joint_ll(sk_lda_sampler *s, double *ll_per_token, sk_lda_error *err) {
  esca_gpu_sampler *g = (esca_gpu_sampler *)s->state;
  sk_lda_gpu_counts counts;
  if (esca_gpu_metrics(g, &counts, err) != 0) return 1;
  return sk_lda_gpu_metrics_joint_ll(g->metrics, &counts, ll_per_token, err);
}

static int esca_gpu_heldout_ll(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                               int fold_in_iters, double *ll_per_token, sk_lda_error *err) {
  esca_gpu_sampler *g = (esca_gpu_sampler *)s->state;
  sk_lda_gpu_counts counts;
  if (esca_gpu_metrics(g, &counts, err) != 0) return 1;
  if (observed != g->observed || heldout != g->heldout) {
    g->observed = g->heldout = NULL;
    if (sk_lda_gpu_metrics_set_test(g->metrics, observed, heldout, counts.num_words, err) != 0) return 1;
    g->observed = observed;
    g->heldout = heldout;
  }
  return sk_lda_gpu_metrics_heldout_ll(g->metrics, &counts, fold_in_iters, ll_per_token, err);
}

static void esca_gpu_stats(const sk_lda_sampler *s, sk_lda_sampler_stats *out) {
  const esca_gpu_sampler *g = (const esca_gpu_sampler *)s->state;
  sk_lda_esca_gpu_stats st;
  sk_lda_esca_gpu_get_stats(g->gpu, &st);
  out->sweeps = st.sweeps;
  out->sample_seconds = st.sample_seconds;
  out->tables_seconds = st.tables_seconds;
  out->a_seconds = st.a_seconds;
  out->b_seconds = st.b_seconds;
  /* The sampler allocates everything at create and the metrics only grow: the sum is the peak. */
  out->device_bytes_peak = st.device_bytes + sk_lda_gpu_metrics_device_bytes_peak(g->metrics);
  out->chunks = st.chunks;
  out->workers = st.workers;
  out->wall_seconds = st.wall_seconds;
  out->h2d_bytes = st.h2d_bytes;
  out->d2h_bytes = st.d2h_bytes;
  out->prepare_seconds = st.prepare_seconds;
  out->host_pinned_bytes = st.host_pinned_bytes;
}

static int esca_gpu_sweep(sk_lda_sampler *s, uint64_t iteration, sk_lda_error *err) {
  return sk_lda_esca_gpu_sweep(((esca_gpu_sampler *)s->state)->gpu, iteration, err);
}

static int esca_gpu_to_host(sk_lda_sampler *s, sk_lda_error *err) {
  return sk_lda_esca_gpu_to_host(((esca_gpu_sampler *)s->state)->gpu, s->model, err);
}

static void esca_gpu_destroy(sk_lda_sampler *s) {
  esca_gpu_sampler *g = (esca_gpu_sampler *)s->state;
  sk_lda_gpu_metrics_destroy(g->metrics);
  sk_lda_esca_gpu_destroy(g->gpu);
  free(g);
}

/* GPU ESCA or, with kind SK_LDA_SAMPLER_AGA, GPU AGA-LDA: one device object runs both (esca_gpu.h). */
static int esca_gpu_create(int kind, sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
                           sk_lda_error *err) {
  if (m == NULL || m->z == NULL) return sk_lda_fail(err, "sampler esca: model missing or not initialised");
  esca_gpu_sampler *g = (esca_gpu_sampler *)calloc(1, sizeof *g);
  if (g == NULL) return sk_lda_fail(err, "sampler esca: out of memory");
  sk_lda_esca_gpu_options options;
  memset(&options, 0, sizeof options);
  options.exact = device->gpu_exact;
  options.aga = kind == SK_LDA_SAMPLER_AGA;
  options.minibatch_docs = device->aga_minibatch;
  options.aga_panels = device->aga_panels;
  options.aga_whole_words = device->aga_whole_words;
  options.device_memory = (size_t)device->device_memory;
  options.workers = device->workers;
  options.host_threads = device->threads;
  options.token_base = device->token_base;
  options.b_sum = device->b_sum;
  const int rc = sk_lda_esca_gpu_create_with(m, device->gpu, &options, &g->gpu, err);
  if (rc != 0) {
    free(g);
    return rc;
  }
  g->ops.name = sk_lda_sampler_kind_name(kind);
  g->ops.description = sk_lda_esca_gpu_description(g->gpu);
  g->ops.sweep = esca_gpu_sweep;
  g->ops.to_host = esca_gpu_to_host;
  g->ops.destroy = esca_gpu_destroy;
  /* A streamed sampler's A and z are on the host between sweeps: its metrics go through to_host. */
  g->ops.joint_ll = sk_lda_esca_gpu_streaming(g->gpu) ? NULL : esca_gpu_joint_ll;
  g->ops.heldout_ll = sk_lda_esca_gpu_streaming(g->gpu) ? NULL : esca_gpu_heldout_ll;
  g->ops.stats = esca_gpu_stats;
  if (sk_lda_sampler_wrap(&g->ops, g, m, device, out, err) != 0) {
    sk_lda_esca_gpu_destroy(g->gpu);
    free(g);
    return 1;
  }
  return 0;
}
#endif

int sk_lda_sampler_auto(const sk_lda_device *resolved, int32_t num_topics, int64_t num_tokens) {
  const int gpu = resolved != NULL && resolved->kind == SK_LDA_DEVICE_GPU;
  return gpu && num_topics <= SK_LDA_AUTO_AGA_MAX_TOPICS && num_tokens <= INT32_MAX ? SK_LDA_SAMPLER_AGA
                                                                                   : SK_LDA_SAMPLER_ESCA;
}

/* --- devices ------------------------------------------------------------------------------------- */

int sk_lda_device_resolve(const sk_lda_device *requested, int sampler_kind, sk_lda_device *resolved,
                          const char **note, sk_lda_error *err) {
  static char fallback[600];
  if (note != NULL) *note = NULL;
  if (requested == NULL || resolved == NULL) return sk_lda_fail(err, "device: a pointer is NULL");
  *resolved = *requested;
  if (requested->kind == SK_LDA_DEVICE_CPU) return 0;
  sk_lda_error why;
  if (sampler_kind == SK_LDA_SAMPLER_CGS) {
    /* CGS draws its tokens one after another: no GPU sampler */
    snprintf(why.message, sizeof why.message, "--sampler %s runs on the CPU only (the GPU samplers are esca and aga)",
             sk_lda_sampler_kind_name(sampler_kind));
  } else {
#ifdef SK_LDA_HAVE_GPU
    if (sk_lda_gpu_probe(requested->gpu, NULL, 0, &why) == 0) {
      resolved->kind = SK_LDA_DEVICE_GPU;
      return 0;
    }
#else
    snprintf(why.message, sizeof why.message, "this sk-lda was built without its CUDA part (nvcc was not found)");
#endif
  }
  if (requested->kind == SK_LDA_DEVICE_GPU) return sk_lda_fail(err, "--device gpu: %s", why.message);
  if (sampler_kind == SK_LDA_SAMPLER_AGA)
    return sk_lda_fail(err, "--sampler aga runs on the GPU only (%s); use --sampler esca on the CPU", why.message);
  resolved->kind = SK_LDA_DEVICE_CPU;
  if (note != NULL) {
    snprintf(fallback, sizeof fallback, "--device auto: %s; training on the CPU", why.message);
    *note = fallback;
  }
  return 0;
}

/* --- dispatch ------------------------------------------------------------------------------------ */

int sk_lda_sampler_wrap(const sk_lda_sampler_ops *ops, void *state, sk_lda_model *m, const sk_lda_device *device,
                        sk_lda_sampler **out, sk_lda_error *err) {
  if (out == NULL) return sk_lda_fail(err, "sampler: out is NULL");
  *out = NULL;
  if (ops == NULL || ops->sweep == NULL || m == NULL || m->z == NULL || device == NULL)
    return sk_lda_fail(err, "sampler: operations, model or device missing, or model not initialised");
  sk_lda_sampler *s = (sk_lda_sampler *)calloc(1, sizeof *s);
  if (s == NULL) return sk_lda_fail(err, "sampler: out of memory");
  s->ops = ops;
  s->model = m;
  s->device = *device;
  s->state = state;
  *out = s;
  return 0;
}

int sk_lda_sampler_create(int kind, sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
                          sk_lda_error *err) {
  if (out != NULL) *out = NULL;
  if (kind != SK_LDA_SAMPLER_ESCA && kind != SK_LDA_SAMPLER_CGS && kind != SK_LDA_SAMPLER_AGA)
    return sk_lda_fail(err, "sampler: unknown kind %d", kind);
  if (kind == SK_LDA_SAMPLER_AGA && (device == NULL || device->kind != SK_LDA_DEVICE_GPU))
    return sk_lda_fail(err, "sampler aga: AGA-LDA runs on the GPU only (use esca on the CPU)");
  if (device != NULL && device->kind == SK_LDA_DEVICE_AUTO)
    return sk_lda_fail(err, "sampler %s: resolve the device first (sk_lda_device_resolve)",
                       sk_lda_sampler_kind_name(kind));
  if (device != NULL && device->kind == SK_LDA_DEVICE_GPU) {
    if (out == NULL) return sk_lda_fail(err, "sampler: out is NULL");
    if (kind == SK_LDA_SAMPLER_CGS) return sk_lda_fail(err, "sampler cgs: CGS runs on the CPU only");
#ifdef SK_LDA_HAVE_GPU
    return esca_gpu_create(kind, m, device, out, err);
#else
    return sk_lda_fail(err, "sampler %s: this sk-lda was built without its CUDA part (nvcc was not found)",
                       sk_lda_sampler_kind_name(kind));
#endif
  }
  if (kind == SK_LDA_SAMPLER_CGS) return sk_lda_sampler_wrap(&cgs_ops, NULL, m, device, out, err);
  sk_lda_esca_tables *t = (sk_lda_esca_tables *)calloc(1, sizeof *t);
  if (t == NULL) return sk_lda_fail(err, "sampler esca: out of memory");
  if (sk_lda_sampler_wrap(&esca_ops, t, m, device, out, err) != 0) {
    free(t);
    return 1;
  }
  return 0;
}

int sk_lda_sampler_sweep(sk_lda_sampler *s, uint64_t iteration, sk_lda_error *err) {
  if (s == NULL) return sk_lda_fail(err, "sweep: sampler is NULL");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_lda_fail(err, "sweep: iteration %llu is too large", (unsigned long long)iteration);
  return s->ops->sweep(s, iteration, err);
}

int sk_lda_sampler_to_host(sk_lda_sampler *s, sk_lda_error *err) {
  if (s == NULL) return sk_lda_fail(err, "to host: sampler is NULL");
  return s->ops->to_host != NULL ? s->ops->to_host(s, err) : 0;
}

int sk_lda_sampler_joint_ll(sk_lda_sampler *s, double *ll_per_token, sk_lda_error *err) {
  if (s == NULL || ll_per_token == NULL) return sk_lda_fail(err, "joint LL: sampler or result is NULL");
  if (s->ops->joint_ll != NULL) return s->ops->joint_ll(s, ll_per_token, err);
  if (sk_lda_sampler_to_host(s, err) != 0) return 1;
  *ll_per_token = sk_lda_joint_ll_per_token(s->model);
  return 0;
}

int sk_lda_sampler_heldout_ll(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                              int fold_in_iters, double *ll_per_token, sk_lda_error *err) {
  if (s == NULL || ll_per_token == NULL) return sk_lda_fail(err, "held-out LL: sampler or result is NULL");
  if (s->ops->heldout_ll != NULL) return s->ops->heldout_ll(s, observed, heldout, fold_in_iters, ll_per_token, err);
  if (sk_lda_sampler_to_host(s, err) != 0) return 1;
  return sk_lda_heldout_ll(s->model, observed, heldout, fold_in_iters, s->device.threads, ll_per_token, err);
}

void sk_lda_sampler_get_stats(const sk_lda_sampler *s, sk_lda_sampler_stats *out) {
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
  out->sample_seconds = out->tables_seconds = out->a_seconds = out->b_seconds = -1.0;
  if (s != NULL && s->ops->stats != NULL) s->ops->stats(s, out);
}

void sk_lda_sampler_destroy(sk_lda_sampler *s) {
  if (s == NULL) return;
  if (s->ops->destroy != NULL) s->ops->destroy(s);
  free(s);
}
