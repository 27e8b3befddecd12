/* The sampler seam (sampler.h): the kinds, device resolution, the dispatch to a sampler's operations. The
   table of samplers and the choice among them are sampler_table.c. */
#include "sampler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#ifdef SK_LDA_HAVE_GPU
#include "gpu/gpu.h"
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

int sk_lda_sampler_auto(const sk_lda_device *resolved, int32_t num_topics, int64_t num_tokens) {
  const int gpu = resolved != NULL && resolved->kind == SK_LDA_DEVICE_GPU;
  return gpu && num_topics <= SK_LDA_AUTO_AGA_MAX_TOPICS && num_tokens <= INT32_MAX ? SK_LDA_SAMPLER_AGA
                                                                                   : SK_LDA_SAMPLER_ESCA;
}

/* --- devices ------------------------------------------------------------------------------------- */

int sk_lda_device_contradicts(int device_kind, int sampler_kind, sk_ex_error *err) {
  if (device_kind == SK_LDA_DEVICE_CPU && sampler_kind == SK_LDA_SAMPLER_AGA)
    return sk_ex_fail(err, "--device cpu: --sampler aga runs on the GPU only (AGA-LDA; on the CPU use esca or cgs)");
  if (device_kind == SK_LDA_DEVICE_GPU && sampler_kind == SK_LDA_SAMPLER_CGS)
    return sk_ex_fail(err, "--device gpu: --sampler cgs runs on the CPU only (the GPU samplers are esca and aga)");
  return 0;
}

int sk_lda_device_resolve(const sk_lda_device *requested, int sampler_kind, sk_lda_device *resolved,
                          const char **note, sk_ex_error *err) {
  static char fallback[600];
  if (note != NULL) *note = NULL;
  if (requested == NULL || resolved == NULL) return sk_ex_fail(err, "device: a pointer is NULL");
  *resolved = *requested;
  if (sk_lda_device_contradicts(requested->kind, sampler_kind, err)) return SK_LDA_DEVICE_CONTRADICTS;
  if (requested->kind == SK_LDA_DEVICE_CPU) return 0;
  sk_ex_error why;
  if (sampler_kind == SK_LDA_SAMPLER_CGS) {
    /* CGS draws its tokens one after another: no GPU sampler */
    snprintf(why.message, sizeof why.message, "--sampler %s runs on the CPU only (the GPU samplers are esca and aga)",
             sk_lda_sampler_kind_name(sampler_kind));
  } else {
#ifdef SK_LDA_HAVE_GPU
    if (sk_ex_gpu_probe(requested->gpu, NULL, 0, &why) == 0) {
      resolved->kind = SK_LDA_DEVICE_GPU;
      return 0;
    }
#else
    snprintf(why.message, sizeof why.message, "this sk-lda was built without its CUDA part (nvcc was not found)");
#endif
  }
  if (requested->kind == SK_LDA_DEVICE_GPU) {
    sk_ex_fail(err, "--device gpu: %s", why.message); /* CGS on the GPU was refused above */
    return 1;
  }
  if (sampler_kind == SK_LDA_SAMPLER_AGA)
    return sk_ex_fail(err, "--sampler aga runs on the GPU only (%s); use --sampler esca on the CPU", why.message);
  resolved->kind = SK_LDA_DEVICE_CPU;
  if (note != NULL) {
    snprintf(fallback, sizeof fallback, "--device auto: %.560s; training on the CPU", why.message);
    *note = fallback;
  }
  return 0;
}

/* --- dispatch ------------------------------------------------------------------------------------ */

int sk_lda_sampler_wrap(const sk_lda_sampler_ops *ops, void *state, sk_lda_model *m, const sk_lda_device *device,
                        sk_lda_sampler **out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "sampler: out is NULL");
  *out = NULL;
  if (ops == NULL || ops->sweep == NULL || m == NULL || m->z == NULL || device == NULL)
    return sk_ex_fail(err, "sampler: operations, model or device missing, or model not initialised");
  sk_lda_sampler *s = (sk_lda_sampler *)calloc(1, sizeof *s);
  if (s == NULL) return sk_ex_fail(err, "sampler: out of memory");
  s->ops = ops;
  s->model = m;
  s->device = *device;
  s->state = state;
  *out = s;
  return 0;
}

int sk_lda_sampler_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  if (s == NULL) return sk_ex_fail(err, "sweep: sampler is NULL");
  if (iteration >= SK_LDA_STREAM_RESERVED)
    return sk_ex_fail(err, "sweep: iteration %llu is too large", (unsigned long long)iteration);
  return s->ops->sweep(s, iteration, err);
}

int sk_lda_sampler_to_host(sk_lda_sampler *s, sk_ex_error *err) {
  if (s == NULL) return sk_ex_fail(err, "to host: sampler is NULL");
  return s->ops->to_host != NULL ? s->ops->to_host(s, err) : 0;
}

int sk_lda_sampler_joint_ll(sk_lda_sampler *s, double *ll_per_token, sk_ex_error *err) {
  if (s == NULL || ll_per_token == NULL) return sk_ex_fail(err, "joint LL: sampler or result is NULL");
  if (s->ops->joint_ll != NULL) return s->ops->joint_ll(s, ll_per_token, err);
  if (sk_lda_sampler_to_host(s, err) != 0) return 1;
  *ll_per_token = sk_lda_joint_ll_per_token(s->model);
  return 0;
}

int sk_lda_sampler_heldout_ll(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                              int fold_in_iters, double *ll_per_token, sk_ex_error *err) {
  if (s == NULL || ll_per_token == NULL) return sk_ex_fail(err, "held-out LL: sampler or result is NULL");
  if (s->ops->heldout_ll != NULL) return s->ops->heldout_ll(s, observed, heldout, fold_in_iters, ll_per_token, err);
  if (sk_lda_sampler_to_host(s, err) != 0) return 1;
  return sk_lda_heldout_ll(s->model, observed, heldout, fold_in_iters, s->device.threads, ll_per_token, err);
}

/* --- priors (--optimize-every) ------------------------------------------------------------------- */

int sk_lda_sampler_priors_supported(const sk_lda_sampler *s, sk_ex_error *err) {
  if (s == NULL) return sk_ex_fail(err, "--optimize-every: sampler is NULL");
  if (s->ops->no_priors != NULL) return sk_ex_fail(err, "--optimize-every: %s", s->ops->no_priors);
  return 0;
}

int sk_lda_sampler_set_priors(sk_lda_sampler *s, const double *alpha_k, double beta, sk_ex_error *err) {
  if (s == NULL || s->model == NULL) return sk_ex_fail(err, "set priors: sampler is NULL");
  if (s->ops->no_priors != NULL && (alpha_k != NULL || beta != s->model->beta))
    return sk_ex_fail(err, "set priors: %s", s->ops->no_priors);
  if (sk_lda_model_set_priors(s->model, alpha_k, beta, err) != 0) return 1;
  return s->ops->set_priors != NULL ? s->ops->set_priors(s, err) : 0;
}

int sk_lda_sampler_prior_stats(sk_lda_sampler *s, sk_lda_hyper_stats *out, sk_ex_error *err) {
  if (out != NULL) memset(out, 0, sizeof *out);
  if (s == NULL || out == NULL) return sk_ex_fail(err, "prior histograms: sampler or result is NULL");
  if (s->ops->prior_stats != NULL) return s->ops->prior_stats(s, out, err);
  if (sk_lda_sampler_to_host(s, err) != 0) return 1;
  return sk_lda_hyper_stats_from_model(s->model, out, err);
}

int sk_lda_sampler_optimize_priors(sk_lda_sampler *s, int iterations, sk_ex_error *err) {
  if (s == NULL || s->model == NULL) return sk_ex_fail(err, "optimise priors: sampler is NULL");
  if (iterations < 1) return sk_ex_fail(err, "optimise priors: %d iterations", iterations);
  if (sk_lda_sampler_priors_supported(s, err) != 0) return 1;
  const sk_lda_model *m = s->model;
  sk_lda_hyper_stats st;
  if (sk_lda_sampler_prior_stats(s, &st, err) != 0) return 1;
  double *alpha_k = (double *)malloc((size_t)m->num_topics * sizeof *alpha_k), beta = 0.0;
  int rc = alpha_k == NULL ? sk_ex_fail(err, "optimise priors: out of memory (K = %d)", (int)m->num_topics)
                           : sk_lda_hyper_learn(m, &st, iterations, alpha_k, &beta, err);
  if (rc == 0) rc = sk_lda_sampler_set_priors(s, alpha_k, beta, err);
  free(alpha_k);
  sk_lda_hyper_stats_free(&st);
  return rc;
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
