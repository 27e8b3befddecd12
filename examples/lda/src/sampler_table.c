/* The table of sk-lda's samplers (sampler.h), the device budget, the choice among the samplers before
   anything is allocated, and the creates that follow it. */
#include "sampler_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgs.h"
#include "esca.h"
#ifdef SK_LDA_HAVE_GPU
#include "gpu/aga_sampler.h"
#include "gpu/esca_exact.h"
#include "gpu/esca_resident.h"
#include "gpu/esca_streamed.h"
#include "gpu/gpu.h"
#endif

/* --- the CPU samplers: CGS's state is the model, CPU ESCA's scratch the word tables --------------- */

static int cgs_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  return sk_lda_cgs_sweep(s->model, iteration, err);
}

static const sk_lda_sampler_ops cgs_ops = {"cgs", "serial collapsed Gibbs (CPU)", cgs_sweep, NULL, NULL,
                                           NULL, NULL, NULL, NULL, NULL, NULL};

static int esca_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  return sk_lda_esca_sweep(s->model, (sk_lda_esca_tables *)s->state, iteration, s->device.threads, err);
}

static void esca_destroy(sk_lda_sampler *s) {
  sk_lda_esca_tables_free((sk_lda_esca_tables *)s->state);
  free(s->state);
}

static const sk_lda_sampler_ops esca_ops = {"esca", "ESCA (CPU, OpenMP)", esca_sweep, NULL, esca_destroy,
                                            NULL, NULL, NULL, NULL, NULL, NULL};

/* Host memory is not budgeted: a CPU sampler always fits. */
static int cpu_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                    const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  (void)m, (void)device, (void)o, (void)rank, (void)err;
  memset(fit, 0, sizeof *fit);
  fit->fits = 1;
  fit->available_bytes = budget;
  return 0;
}

static int cgs_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                      const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err) {
  (void)o;
  if (rank != NULL) return sk_ex_fail(err, "sampler cgs: a rank of a multi-GPU run runs ESCA on a GPU only");
  return sk_lda_sampler_wrap(&cgs_ops, NULL, m, device, out, err);
}

static int esca_cpu_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                           const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err) {
  (void)o;
  if (rank != NULL) return sk_ex_fail(err, "sampler esca: a rank of a multi-GPU run runs ESCA on a GPU only");
  sk_lda_esca_tables *t = (sk_lda_esca_tables *)calloc(1, sizeof *t);
  if (t == NULL) return sk_ex_fail(err, "sampler esca: out of memory");
  if (sk_lda_sampler_wrap(&esca_ops, t, m, device, out, err) != 0) {
    free(t);
    return 1;
  }
  return 0;
}

#ifdef SK_LDA_HAVE_GPU
/* --- the GPU samplers: each gets its own options (the table's rows hand them their member) -------- */

static int resident_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                         const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  return sk_lda_esca_resident_fits(m, device, o != NULL ? &o->esca : NULL, rank, budget, fit, err);
}

static int resident_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                           const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err) {
  return sk_lda_esca_resident_create(m, device, o != NULL ? &o->esca : NULL, rank, out, err);
}

static int streamed_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                         const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  return sk_lda_esca_streamed_fits(m, device, o != NULL ? &o->streamed : NULL, rank, budget, fit, err);
}

static int streamed_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                           const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err) {
  return sk_lda_esca_streamed_create(m, device, o != NULL ? &o->streamed : NULL, rank, out, err);
}

static int exact_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                      const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  (void)o, (void)rank;
  return sk_lda_esca_exact_fits(m, device, budget, fit, err);
}

static int exact_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                        const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err) {
  (void)o;
  if (rank != NULL) return sk_ex_fail(err, "sampler esca-exact: the ranks run ESCA's default sweep only");
  return sk_lda_esca_exact_create(m, device, out, err);
}

static int aga_fits(const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                    const sk_lda_rank_link *rank, uint64_t budget, sk_lda_sampler_fit *fit, sk_ex_error *err) {
  (void)rank;
  return sk_lda_aga_fits(m, device, o != NULL ? &o->aga : NULL, budget, fit, err);
}

static int aga_create(sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_options *o,
                      const sk_lda_rank_link *rank, sk_lda_sampler **out, sk_ex_error *err) {
  if (rank != NULL) return sk_ex_fail(err, "sampler aga: the ranks run ESCA only");
  return sk_lda_aga_create(m, device, o != NULL ? &o->aga : NULL, out, err);
}
#endif

static const sk_lda_sampler_entry table[] = {
    {"cgs", SK_LDA_SAMPLER_CGS, SK_LDA_DEVICE_CPU, "serial collapsed Gibbs sampling (cgs.h)", cpu_fits, cgs_create},
    {"esca", SK_LDA_SAMPLER_ESCA, SK_LDA_DEVICE_CPU, "ESCA with OpenMP threads (esca.h)", cpu_fits, esca_cpu_create},
#ifdef SK_LDA_HAVE_GPU
    {"esca", SK_LDA_SAMPLER_ESCA, SK_LDA_DEVICE_GPU, "ESCA, the corpus resident (gpu/esca_resident.h)", resident_fits,
     resident_create},
    {"esca-streamed", SK_LDA_SAMPLER_ESCA, SK_LDA_DEVICE_GPU, "ESCA, the corpus streamed in chunks (gpu/esca_streamed.h)",
     streamed_fits, streamed_create},
    {"esca-exact", SK_LDA_SAMPLER_ESCA, SK_LDA_DEVICE_GPU, "ESCA's exact sweep, the CPU's bits (gpu/esca_exact.h)",
     exact_fits, exact_create},
    {"aga", SK_LDA_SAMPLER_AGA, SK_LDA_DEVICE_GPU, "AGA-LDA, mini-batches and shared-memory panels (gpu/aga_sampler.h)",
     aga_fits, aga_create},
#endif
};

const sk_lda_sampler_entry *sk_lda_sampler_table(int *count) {
  if (count != NULL) *count = (int)(sizeof table / sizeof table[0]);
  return table;
}

const sk_lda_sampler_entry *sk_lda_sampler_find(const char *name, sk_lda_device_kind device) {
  for (size_t i = 0; name != NULL && i < sizeof table / sizeof table[0]; ++i)
    if (table[i].device == device && strcmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

int sk_lda_device_budget(const sk_lda_device *device, uint64_t *budget, uint64_t *free_bytes, sk_ex_error *err) {
  if (device == NULL || budget == NULL) return sk_ex_fail(err, "device budget: a pointer is NULL");
  *budget = 0;
  if (free_bytes != NULL) *free_bytes = 0;
  if (device->kind == SK_LDA_DEVICE_CPU) return 0;
  if (device->kind != SK_LDA_DEVICE_GPU) return sk_ex_fail(err, "device budget: resolve the device first");
#ifdef SK_LDA_HAVE_GPU
  uint64_t free_b = 0;
  if (sk_lda_gpu_memory(device->gpu, &free_b, NULL, err) != 0) return 1;
  if (free_bytes != NULL) *free_bytes = free_b;
  if (device->device_memory > 0) *budget = device->device_memory < free_b ? device->device_memory : free_b;
  else *budget = free_b > SK_LDA_GPU_MEMORY_MARGIN ? free_b - SK_LDA_GPU_MEMORY_MARGIN : 0;
  return 0;
#else
  return sk_ex_fail(err, "this sk-lda was built without its CUDA part (nvcc was not found)");
#endif
}

/* --- the choice -------------------------------------------------------------------------------------- */

/* out->entry = `name`'s entry on `device` with its fit at out->budget; returns 0 and sets *fits, or 1
   (err) when the question could not be answered. */
static int ask(const char *name, const sk_lda_model *m, const sk_lda_device *device, const sk_lda_sampler_request *req,
               sk_lda_sampler_choice *out, int *fits, sk_ex_error *err) {
  const sk_lda_sampler_entry *e = sk_lda_sampler_find(name, device->kind);
  if (e == NULL) return sk_ex_fail(err, "sampler %s: not in this build's table", name);
  if (e->fits(m, device, req->options, req->rank, out->budget, &out->fit, err) != 0) return 1;
  out->entry = e;
  *fits = out->fit.fits;
  return 0;
}

#ifdef SK_LDA_HAVE_GPU
/* The chosen entry fits: 0. It does not: the input's fault (out->unfit), its why as the error. */
static int settle(sk_lda_sampler_choice *out, int fits, sk_ex_error *err) {
  if (fits) return 0;
  out->unfit = 1;
  out->entry = NULL;
  return sk_ex_fail(err, "%s", out->fit.why);
}

/* ESCA on a GPU: the exact sweep when asked; else resident when it fits, streamed otherwise. */
static int choose_esca(const sk_lda_sampler_request *req, const sk_lda_model *m, const sk_lda_device *device,
                       sk_lda_sampler_choice *out, sk_ex_error *err) {
  int fits = 0;
  if (req->exact) return ask("esca-exact", m, device, req, out, &fits, err) || settle(out, fits, err);
  char resident[420] = "it has more than 2^31 - 1 tokens";
  if (m->num_tokens <= INT32_MAX) {
    if (ask("esca", m, device, req, out, &fits, err) != 0) return 1;
    if (fits) return 0;
    snprintf(resident, sizeof resident, "resident it needs %.2f GB, the budget is %.2f GB",
             (double)out->fit.needed_bytes / 1e9, (double)out->budget / 1e9);
  }
  if (ask("esca-streamed", m, device, req, out, &fits, err) != 0) return 1;
  const size_t used = strlen(out->why);
  snprintf(out->why + used, sizeof out->why - used, "%sstreamed: %s", used > 0 ? "; " : "", resident);
  return settle(out, fits, err);
}

/* The GPU's part of the choice (device resolved to a GPU, kind ESCA, AGA or AUTO). */
static int choose_gpu(const sk_lda_sampler_request *req, const sk_lda_model *m, const sk_lda_device *device,
                      sk_lda_sampler_choice *out, sk_ex_error *err) {
  if (sk_lda_device_budget(device, &out->budget, NULL, err) != 0) return 1;
  int kind = req->kind, fits = 0;
  if (req->rank != NULL && kind == SK_LDA_SAMPLER_AUTO) kind = SK_LDA_SAMPLER_ESCA; /* the ranks run ESCA only */
  if (req->rank != NULL && (kind != SK_LDA_SAMPLER_ESCA || req->exact))
    return sk_ex_fail(err, "a rank of a multi-GPU run runs ESCA's default sweep only (not %s%s)",
                       sk_lda_sampler_kind_name(kind), req->exact ? " with the exact sweep" : "");
  if (kind == SK_LDA_SAMPLER_AUTO) {
    kind = sk_lda_sampler_auto(device, m->num_topics, m->num_tokens);
    if (kind == SK_LDA_SAMPLER_AGA) {
      if (ask("aga", m, device, req, out, &fits, err) != 0) return 1;
      if (fits) {
        snprintf(out->why, sizeof out->why, "--sampler auto: AGA-LDA up to K = %d on a GPU", SK_LDA_AUTO_AGA_MAX_TOPICS);
        return 0;
      }
      snprintf(out->why, sizeof out->why, "--sampler auto: %s; ESCA instead", out->fit.why);
    } else {
      snprintf(out->why, sizeof out->why, "--sampler auto: ESCA %s",
               m->num_topics > SK_LDA_AUTO_AGA_MAX_TOPICS ? "above K = 128 on a GPU" : "for more than 2^31 - 1 tokens");
    }
    return choose_esca(req, m, device, out, err);
  }
  if (kind == SK_LDA_SAMPLER_AGA) return ask("aga", m, device, req, out, &fits, err) || settle(out, fits, err);
  return choose_esca(req, m, device, out, err);
}
#endif

int sk_lda_sampler_choose(const sk_lda_sampler_request *req, const sk_lda_model *m, const sk_lda_device *device,
                          sk_lda_sampler_choice *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "sampler: out is NULL");
  memset(out, 0, sizeof *out);
  if (req == NULL || m == NULL || m->z == NULL || m->corpus == NULL || device == NULL)
    return sk_ex_fail(err, "sampler: request, model or device missing, or model not initialised");
  const int kind = req->kind;
  if (kind != SK_LDA_SAMPLER_ESCA && kind != SK_LDA_SAMPLER_CGS && kind != SK_LDA_SAMPLER_AGA &&
      kind != SK_LDA_SAMPLER_AUTO)
    return sk_ex_fail(err, "sampler: unknown kind %d", kind);
  if (device->kind == SK_LDA_DEVICE_AUTO)
    return sk_ex_fail(err, "sampler %s: resolve the device first (sk_lda_device_resolve)", sk_lda_sampler_kind_name(kind));
  if (device->kind == SK_LDA_DEVICE_CPU) {
    int fits = 0;
    if (kind == SK_LDA_SAMPLER_AGA)
      return sk_ex_fail(err, "sampler aga: AGA-LDA runs on the GPU only (use esca on the CPU)");
    if (req->rank != NULL) return sk_ex_fail(err, "sampler: a rank of a multi-GPU run runs on a GPU");
    if (kind == SK_LDA_SAMPLER_AUTO) snprintf(out->why, sizeof out->why, "--sampler auto: ESCA on the CPU");
    return ask(kind == SK_LDA_SAMPLER_CGS ? "cgs" : "esca", m, device, req, out, &fits, err);
  }
  if (kind == SK_LDA_SAMPLER_CGS) return sk_ex_fail(err, "sampler cgs: CGS runs on the CPU only");
#ifdef SK_LDA_HAVE_GPU
  return choose_gpu(req, m, device, out, err);
#else
  return sk_ex_fail(err, "sampler %s: this sk-lda was built without its CUDA part (nvcc was not found)",
                     sk_lda_sampler_kind_name(kind));
#endif
}

int sk_lda_sampler_create_for(const sk_lda_sampler_request *req, sk_lda_model *m, const sk_lda_device *device,
                              sk_lda_sampler **out, sk_lda_sampler_choice *choice, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "sampler: out is NULL");
  *out = NULL;
  sk_lda_sampler_choice local;
  sk_lda_sampler_choice *c = choice != NULL ? choice : &local;
  if (sk_lda_sampler_choose(req, m, device, c, err) != 0) return c->unfit ? SK_LDA_SAMPLER_BUDGET_ERROR : 1;
  return c->entry->create(m, device, req->options, req->rank, out, err);
}

int sk_lda_sampler_create(int kind, sk_lda_model *m, const sk_lda_device *device, sk_lda_sampler **out,
                          sk_ex_error *err) {
  const sk_lda_sampler_request req = {kind, 0, NULL, NULL};
  return sk_lda_sampler_create_for(&req, m, device, out, NULL, err);
}
