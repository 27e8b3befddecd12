/* The Gibbs chain (chain.h). */
#include "chain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "init.h"
#include "posterior.h"
#include "stats.h"
#include "zstep_cpu.h"
#ifdef SK_MIX_HAVE_GPU
#include "gpu/mix_gpu.h"
#endif

int sk_mix_have_gpu(void) {
#ifdef SK_MIX_HAVE_GPU
  return 1;
#else
  return 0;
#endif
}

/* The statistics' fixed-point grid needs standardized data: sum of x^2 = N per dimension (stats.h). */
static int check_standardized(const sk_mix_data *data, sk_ex_error *err) {
  for (int32_t j = 0; j < data->d; ++j) {
    double sq = 0.0;
    for (int64_t i = 0; i < data->n; ++i) {
      const double x = data->x[(size_t)i * (size_t)data->d + (size_t)j];
      if (!isfinite(x))
        return sk_ex_fail(err, "data: point %lld, dimension %d is not finite", (long long)i + 1, (int)j + 1);
      sq += x * x;
    }
    if (sq > 1.001 * (double)data->n + 1.0)
      return sk_ex_fail(err,
                         "data: dimension %d is not standardized (mean square %g; build the data with "
                         "sk_mix_data_from_f32 or a reader)",
                         (int)j + 1, sq / (double)data->n);
  }
  return 0;
}

int sk_mix_chain_create(const sk_mix_data *data, const sk_mix_prior *prior, int32_t k, uint64_t seed,
                        const sk_mix_chain_options *o, sk_mix_chain **out, sk_ex_error *err) {
  *out = NULL;
  if (sk_mix_prior_check(prior, err) != 0 || sk_mix_data_check_k(data, k, "data", err) != 0 ||
      check_standardized(data, err) != 0)
    return 1;
  sk_mix_chain *c = (sk_mix_chain *)calloc(1, sizeof *c);
  if (c == NULL) return sk_ex_fail(err, "out of memory for the chain");
  c->data = data;
  c->prior = *prior;
  c->k = k;
  c->seed = seed;
  if (o != NULL) c->options = *o;
  int rc = sk_mix_params_alloc(&c->params, k, data->d, err) || sk_mix_ztable_alloc(&c->table, k, data->d, err) ||
           sk_mix_stats_alloc(&c->stats, k, data->d, data->n, err);
  if (rc == 0 && (c->z = (int32_t *)calloc((size_t)data->n, sizeof(int32_t))) == NULL)
    rc = sk_ex_fail(err, "out of memory for %lld assignments", (long long)data->n);
  if (rc == 0 && c->options.device == SK_MIX_DEVICE_GPU) {
#ifdef SK_MIX_HAVE_GPU
    sk_mix_gpu_options go;
    memset(&go, 0, sizeof go); /* the fields not set here take their defaults */
    go.device = c->options.gpu_device;
    go.zstep_kernel = c->options.gpu_zstep_kernel;
    go.warps_per_block = c->options.gpu_warps;
    go.blocks = c->options.gpu_blocks;
    rc = sk_mix_gpu_create(data->x, data->n, data->d, k, &go, &c->gpu, err);
#else
    rc = sk_ex_fail(err, "this build of sk-mixture has no CUDA part (nvcc was not found): the CPU only");
#endif
  } else if (rc == 0 && c->options.device != SK_MIX_DEVICE_CPU) {
    rc = sk_ex_fail(err, "unknown device kind %d", c->options.device);
  }
  if (rc == 0) rc = sk_mix_init_params(data, prior, seed, c->options.threads, &c->params, err);
  if (rc != 0) {
    sk_mix_chain_destroy(c);
    return 1;
  }
  sk_mix_ztable_set(&c->table, &c->params);
  *out = c;
  return 0;
}

void sk_mix_chain_set_params(sk_mix_chain *c, const sk_mix_params *p) {
  sk_mix_params_copy(&c->params, p);
  sk_mix_ztable_set(&c->table, &c->params);
}

int sk_mix_chain_sweep(sk_mix_chain *c, sk_ex_error *err) {
  const uint64_t sweep = c->sweeps + 1;
  const double t0 = sk_ex_now();
  int rc;
#ifdef SK_MIX_HAVE_GPU
  if (c->gpu != NULL) {
    rc = sk_mix_gpu_zstep(c->gpu, &c->table, c->seed, sweep, err);
    const double t1 = sk_ex_now();
    if (rc == 0) rc = sk_mix_gpu_stats(c->gpu, &c->stats, err); /* synchronises: the z-step's time is in here */
    c->seconds[0] += t1 - t0;
    c->seconds[1] += sk_ex_now() - t1;
  } else
#endif
  {
    rc = sk_mix_zstep_cpu(c->data->x, 0, c->data->n, &c->table, c->seed, sweep, c->options.threads, c->z, err);
    const double t1 = sk_ex_now();
    if (rc == 0) rc = sk_mix_stats_cpu(c->data, c->z, c->options.threads, &c->stats, err);
    c->seconds[0] += t1 - t0;
    c->seconds[1] += sk_ex_now() - t1;
  }
  const double t2 = sk_ex_now();
  if (rc == 0) rc = sk_mix_param_step(&c->prior, &c->stats, c->seed, sweep, c->options.threads, &c->params, err);
  if (rc != 0) return 1;
  sk_mix_ztable_set(&c->table, &c->params);
  c->seconds[2] += sk_ex_now() - t2;
  c->sweeps = sweep;
  return 0;
}

int sk_mix_chain_fetch_z(sk_mix_chain *c, sk_ex_error *err) {
#ifdef SK_MIX_HAVE_GPU
  if (c->gpu != NULL) return sk_mix_gpu_copy_z(c->gpu, c->z, err);
#else
  (void)err;
#endif
  (void)c;
  return 0;
}

void sk_mix_chain_destroy(sk_mix_chain *c) {
  if (c == NULL) return;
#ifdef SK_MIX_HAVE_GPU
  sk_mix_gpu_destroy(c->gpu);
#endif
  sk_mix_params_free(&c->params);
  sk_mix_ztable_free(&c->table);
  sk_mix_stats_free(&c->stats);
  free(c->z);
  free(c);
}
