/* A fit of sk-mixture (fit.h). */
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain.h"
#include "data.h"
#include "metrics.h"
#ifdef SK_MIX_HAVE_GPU
#include "gpu/mix_gpu.h"
#endif

/* The trace file is rewritten at most this often (and at the end). */
#define SK_MIX_TRACE_EVERY_S 10.0

void sk_mix_fit_options_default(sk_mix_fit_options *o) {
  memset(o, 0, sizeof *o);
  o->sweeps = 100;
  o->seed = 1;
  sk_mix_prior_default(&o->prior);
  o->device = SK_MIX_FIT_AUTO;
}

void sk_mix_fit_result_free(sk_mix_fit_result *r) {
  if (r == NULL) return;
  free(r->z);
  sk_mix_components_free(&r->last);
  sk_mix_components_free(&r->average);
  memset(r, 0, sizeof *r);
}

int sk_mix_fit_resolve_device(int requested, int *kind, char *name, char *note, size_t cap, sk_ex_error *err) {
  *kind = SK_MIX_DEVICE_CPU;
  name[0] = note[0] = '\0';
  if (requested == SK_MIX_FIT_CPU) return 0;
#ifdef SK_MIX_HAVE_GPU
  sk_ex_error why;
  if (sk_ex_gpu_probe(0, name, cap, &why) == 0) {
    *kind = SK_MIX_DEVICE_GPU;
    return 0;
  }
  name[0] = '\0';
  if (requested == SK_MIX_FIT_GPU) return sk_ex_fail(err, "--device gpu: %s", why.message);
  snprintf(note, cap, "%.400s: fitting on the CPU", why.message);
#else
  if (requested == SK_MIX_FIT_GPU)
    return sk_ex_fail(err, "--device gpu: this build of sk-mixture has no CUDA part (nvcc was not found)");
  snprintf(note, cap, "this build has no CUDA part: fitting on the CPU");
#endif
  return 0;
}

/* -v: how the z-step runs. On a GPU, the kernel table with each row's fit for the data's D and K, the
   chosen row (marked *) and why (gpu/mix_gpu.h). */
static void print_zstep(const sk_mix_chain *c) {
#ifdef SK_MIX_HAVE_GPU
  if (c->gpu != NULL) {
    const sk_mix_zstep_choice *ch = sk_mix_gpu_zstep_choice(c->gpu);
    const int32_t d = c->data->d, k = c->k;
    sk_mix_gpu_caps caps;
    sk_ex_error err;
    char why_not[200];
    if (sk_mix_gpu_caps_query(c->options.gpu_device, &caps, &err) != 0) {
      printf("z-step kernel: %s (%s)\n", sk_mix_zstep_kernel_name(ch->row), ch->why);
      return;
    }
    printf("z-step kernel table for D = %d, K = %d (%zu KiB of shared memory an SM, %zu KiB a block):\n", (int)d,
           (int)k, caps.shared_per_sm / 1024, caps.shared_per_block / 1024);
    for (int r = 0; r < sk_mix_zstep_kernel_count(); ++r) {
      const int fits = sk_mix_zstep_kernel_fits(r, d, k, c->options.gpu_warps, &caps, why_not, sizeof why_not);
      printf("  %c %-26s %s\n      needs %s; %s%s\n", r == ch->row ? '*' : ' ', sk_mix_zstep_kernel_name(r),
             sk_mix_zstep_kernel_text(r, 0), sk_mix_zstep_kernel_text(r, 1), fits ? "fits" : "does not fit: ",
             fits ? "" : why_not);
    }
    printf("z-step kernel: %s (dimensions %d, tile width %d, %d warps a block, %d point%s a thread, %zu shared bytes a "
           "block): %s\n",
           sk_mix_zstep_kernel_name(ch->row), ch->dims, ch->width, ch->warps, ch->points, ch->points == 1 ? "" : "s",
           ch->shared, ch->why);
    return;
  }
#endif
  printf("z-step: the CPU reference, zstep.h's sk_mix_draw_point() for each point (%d threads)\n",
         sk_mix_threads(c->options.threads));
}

/* The state after a sweep: the log densities, and a trace row. */
static int record(sk_mix_chain *c, const sk_mix_fit_options *o, sk_mix_trace *trace, double start, double *last_write,
                  sk_mix_fit_result *r, sk_ex_error *err) {
  const double now = sk_ex_now();
  sk_mix_log_densities(c->data, &o->prior, &c->stats, &c->params, &r->log_lik, &r->log_joint);
  const int write =
      trace->path != NULL && (c->sweeps == (uint64_t)o->sweeps || now - *last_write >= SK_MIX_TRACE_EVERY_S);
  if (write) *last_write = now;
  return sk_mix_trace_row(trace, c->sweeps, now - start, r->log_lik, r->log_joint, c->stats.count, c->k, write, err);
}

static void progress(const sk_mix_chain *c, const sk_mix_fit_options *o, const sk_mix_fit_result *r, double start,
                     int tty) {
  const double elapsed = sk_ex_now() - start, per = elapsed / (double)c->sweeps;
  const int64_t every = o->sweeps >= 10 ? o->sweeps / 10 : 1;
  if (tty) {
    fprintf(stderr, "\rsweep %llu/%lld  log joint %.6g  %.3g ms/sweep  ETA %.0f s   ", (unsigned long long)c->sweeps,
            (long long)o->sweeps, r->log_joint, 1e3 * per, per * (double)(o->sweeps - (int64_t)c->sweeps));
    if ((int64_t)c->sweeps == o->sweeps) fputc('\n', stderr);
  } else if ((int64_t)c->sweeps % every == 0) {
    printf("sweep %llu/%lld: log-likelihood %.10g, log joint %.10g, %.3g ms/sweep\n", (unsigned long long)c->sweeps,
           (long long)o->sweeps, r->log_lik, r->log_joint, 1e3 * per);
  }
}

/* The summary: time split, densities, how many components hold points. */
static void summary(const sk_mix_chain *c, const sk_mix_fit_result *r, double secs) {
  const double n = c->sweeps > 0 ? (double)c->sweeps : 1.0;
  int used = 0;
  int64_t largest = 0, smallest = -1;
  for (int32_t k = 0; k < c->k; ++k) {
    const int64_t s = c->stats.count[k];
    if (s == 0) continue;
    ++used;
    largest = s > largest ? s : largest;
    smallest = smallest < 0 || s < smallest ? s : smallest;
  }
  printf("done: %llu sweeps in %.2f s, %.3f ms a sweep (z-step %.3f, statistics %.3f, parameters %.3f)\n",
         (unsigned long long)c->sweeps, secs, 1e3 * secs / n, 1e3 * c->seconds[0] / n, 1e3 * c->seconds[1] / n,
         1e3 * c->seconds[2] / n);
  printf("last state: log-likelihood %.10g, log joint %.10g; %d of %d components hold points (%lld to %lld)\n",
         r->log_lik, r->log_joint, used, (int)c->k, (long long)(smallest < 0 ? 0 : smallest), (long long)largest);
}

static int write_outputs(const char *dir, const sk_mix_chain *c, const sk_mix_fit_result *r, sk_ex_error *err) {
  char path[4096];
  const sk_mix_components *sets[2] = {&r->last, &r->average};
  const char *labels[2] = {"last", "average"};
  if (sk_ex_path(path, sizeof path, dir, "assign.txt", err) != 0 ||
      sk_mix_write_assign(path, r->z, c->data->n, err) != 0)
    return 1;
  if (sk_ex_path(path, sizeof path, dir, "components.csv", err) != 0 ||
      sk_mix_write_components(path, sets, labels, 2, err) != 0)
    return 1;
  return 0;
}

int sk_mix_fit(const sk_mix_fit_options *o, const sk_mix_data *data, const char *source, sk_mix_fit_result *r) {
  sk_ex_error err;
  char name[512], note[512], path[4096]; /* name and note share one capacity */
  sk_mix_chain_options co;
  memset(&co, 0, sizeof co);
  co.threads = o->threads;
  memset(r, 0, sizeof *r);
  if (sk_mix_prior_check(&o->prior, &err) != 0 || sk_mix_data_check_k(data, o->k, source, &err) != 0 ||
      (o->sweeps < 1 && sk_ex_fail(&err, "-n %lld: at least one sweep", (long long)o->sweeps))) {
    fprintf(stderr, "sk-mixture fit: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  if (sk_mix_fit_resolve_device(o->device, &co.device, name, note, sizeof note, &err) != 0) {
    fprintf(stderr, "sk-mixture fit: %s\n", err.message);
    return SK_EX_EXIT_RUNTIME;
  }
  if (note[0] != '\0' && !o->quiet) fprintf(stderr, "sk-mixture fit: %s\n", note);
  /* The folder before the sweeps: a run that cannot write its results fails at once. */
  sk_mix_trace trace;
  memset(&trace, 0, sizeof trace);
  static const char *const outputs[] = {"trace.csv", "assign.txt", "components.csv", NULL};
  if (o->out != NULL && (sk_ex_check_output_dir(o->out, outputs, &err) != 0 ||
                         sk_ex_prepare_outputs(o->out, outputs, source, o->overwrite, &err) != 0 ||
                         sk_ex_path(path, sizeof path, o->out, "trace.csv", &err) != 0)) {
    fprintf(stderr, "sk-mixture fit: --out: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  sk_mix_chain *c = NULL;
  int status = SK_EX_EXIT_OK;
  if (sk_mix_trace_open(&trace, o->out != NULL ? path : NULL, o->k, &err) != 0 ||
      (o->out != NULL && sk_mix_trace_flush(&trace, &err) != 0) ||
      sk_mix_components_alloc(&r->last, o->k, data->d, &err) != 0 ||
      sk_mix_components_alloc(&r->average, o->k, data->d, &err) != 0 ||
      sk_mix_chain_create(data, &o->prior, o->k, o->seed, &co, &c, &err) != 0) {
    fprintf(stderr, "sk-mixture fit: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  }
  if (status == SK_EX_EXIT_OK && !o->quiet) {
    char where[600];
    if (co.device == SK_MIX_DEVICE_GPU)
      snprintf(where, sizeof where, "GPU 0 (%s)", name);
    else
      snprintf(where, sizeof where, "the CPU (%d threads)", sk_mix_threads(o->threads));
    printf("fitting %s: %lld points x %d dimensions, K = %d, %lld sweeps, seed %llu, on %s\n", source,
           (long long)data->n, (int)data->d, (int)o->k, (long long)o->sweeps, (unsigned long long)o->seed, where);
    if (o->verbose) print_zstep(c);
  }
  const int tty = !o->quiet && isatty(fileno(stderr));
  const int64_t half = o->sweeps / 2;
  const double start = sk_ex_now();
  double last_write = start;
  for (int64_t s = 1; status == SK_EX_EXIT_OK && s <= o->sweeps; ++s) {
    if (sk_mix_chain_sweep(c, &err) != 0 || record(c, o, &trace, start, &last_write, r, &err) != 0) {
      fprintf(stderr, "%ssk-mixture fit: sweep %lld: %s\n", tty ? "\n" : "", (long long)s, err.message);
      status = SK_EX_EXIT_RUNTIME;
      break;
    }
    if (s > half) sk_mix_components_add(&r->average, data, &c->params, 1.0 / (double)(o->sweeps - half));
    if (!o->quiet) progress(c, o, r, start, tty);
  }
  if (status == SK_EX_EXIT_OK) {
    sk_mix_components_add(&r->last, data, &c->params, 1.0);
    r->used_gpu = co.device == SK_MIX_DEVICE_GPU;
    r->z = (int32_t *)malloc(sizeof(int32_t) * (size_t)data->n);
    int rc = r->z == NULL ? sk_ex_fail(&err, "out of memory for the assignments") : sk_mix_chain_fetch_z(c, &err);
    if (rc == 0) {
      memcpy(r->z, c->z, sizeof(int32_t) * (size_t)data->n);
      if (o->out != NULL) rc = write_outputs(o->out, c, r, &err);
    }
    if (rc != 0) {
      fprintf(stderr, "sk-mixture fit: %s\n", err.message);
      status = SK_EX_EXIT_RUNTIME;
    }
  }
  if (status == SK_EX_EXIT_OK && !o->quiet) {
    summary(c, r, sk_ex_now() - start);
    if (o->out != NULL) printf("wrote %s: assign.txt, components.csv, trace.csv\n", o->out);
  }
  sk_mix_chain_destroy(c);
  sk_mix_trace_close(&trace);
  if (status != SK_EX_EXIT_OK) sk_mix_fit_result_free(r);
  return status;
}
