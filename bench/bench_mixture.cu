// sk-mixture's Gibbs sweep on the GPU (issue 15): N = 10^7 points, D = 16, K = 8, 64 and 512 by default.
// Per K: the time of a sweep and of each step (z-step, statistics, parameter step; CUDA events on the
// sampler's stream, the parameter step by the host clock), the median of --runs sweeps after 2 warm-up
// ones, with the z-step kernel table's row for D and K (or the row --zstep-kernel names) and the default
// (sorted) statistics kernel; the sweep with the first version's statistics kernel (atomic) and the
// z-step of the table's butterfly-warp and thread-reference rows for comparison; the z-step's bound, the
// larger of
//   memory: the bytes it must move (the points, 4 N D, read once; z, 4 N, written) over the copy rate
//           measured here (cudaMemcpy device to device of 1 GiB: 2 bytes / time);
//   FMAs:   the fused multiply-adds it must issue (2 N K D: t = x s - m s, q += t t, per point,
//           component and dimension) over the FP32 peak (SMs x 128 lanes x the SM clock; the rate a
//           kernel of independent FMA chains reaches is printed beside it);
// and the ratio of the z-step's time to it; then one sweep of the CPU reference on this host's cores
// (--cpu-points to time it on fewer points). The points are planted data from sk-mixture's generator
// (64 well-separated components, or overlapping ones with --overlap), standardized; each K starts from
// the chain's own initialisation.
// bench/bench_mixture_torch.py times the same sweep in PyTorch, and bench/mixture_gpu.sh runs both.
//   usage: bench_mixture [--n N] [--d D] [--ks 8,64,512] [--runs R] [--cpu-points M] [--overlap]
//                        [--zstep-kernel ROW] [--csv FILE]
#define BENCH_NAME "bench_mixture"
#include <vector>

#include "bench_common.h"
#include "data.h"
#include "gen.h"
#include "gpu/mix_gpu.h"
#include "init.h"
#include "mixture.h"
#include "posterior.h"
#include "stats.h"
#include "zstep_cpu.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--n N] [--d D] [--ks K1,K2,...] [--runs R] [--cpu-points M] [--overlap] [--zstep-kernel ROW]\n"
          "       [--csv FILE]\n"
          "  --n N            points (default 10000000)\n"
          "  --d D            dimensions (default 16)\n"
          "  --ks LIST        components, comma-separated (default 8,64,512)\n"
          "  --runs R         timed sweeps per K, after 2 warm-up ones (default 10)\n"
          "  --cpu-points M   points for the CPU reference's sweep (default: all N; 0: skip it)\n"
          "  --overlap        overlapping planted components (default: well separated)\n"
          "  --zstep-kernel ROW  the z-step kernel table's row to time (its name, as sk-mixture fit -v prints the\n"
          "                   table; default: the table's choice for D and each K)\n"
          "  --csv FILE       one row per K\n",
          BENCH_NAME);
}

// Independent FMA chains in every thread: the FP32 FMA rate a kernel can reach on this GPU.
__global__ void fma_chains(float *out, int iters, float a, float b) {
  float x[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) x[c] = (float)(threadIdx.x + c);
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int c = 0; c < 8; ++c) x[c] = __fmaf_rn(x[c], a, b);
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += x[c];
  if (s == 1234.5f) out[0] = s;  // keeps the chains alive; never true for these inputs
}

static double measured_fma_rate(int sms) {
  float *out;
  BENCH_CUDA(cudaMalloc(&out, sizeof(float)));
  const int threads = 256, blocks = sms * 8, iters = 1 << 14;
  const bench_stats s = bench_time_events(2, 5, [&](int) {
    fma_chains<<<blocks, threads>>>(out, iters, 0.999f, 0.001f);
    BENCH_CUDA(cudaGetLastError());
  });
  BENCH_CUDA(cudaFree(out));
  return (double)blocks * threads * iters * 8.0 / (s.median_ms * 1e-3);
}

static double median(std::vector<double> v) { return bench_stats_of(v.data(), v.size()).median_ms; }

static void die(const char *what, const sk_ex_error &err) {
  fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what, err.message);
  exit(BENCH_EXIT_FAILED);
}

struct Row {
  int k;
  double sweep, zstep, stats, params, sweep_atomic, stats_atomic, zstep_thread, zstep_butterfly, bound_mem, bound_fma, cpu_sweep, cpu_zstep,
      cpu_stats, cpu_params;
};

// The z-step kernels a row times: the table's choice (or --zstep-kernel's row), and two for comparison.
enum { kZstepMain = 0, kZstepThread = 1, kZstepButterfly = 2 };
static const char *g_zstep_kernel = NULL;  // --zstep-kernel
static const char *zstep_row(int kernel) {
  return kernel == kZstepThread ? "thread-reference" : kernel == kZstepButterfly ? "butterfly-warp" : g_zstep_kernel;
}
static char g_zstep_chosen[64] = "";  // the main rows' row of the table, as the GPU state looked it up

// The GPU sweep, step by step, with z-step kernel `kernel` and statistics kernel `stats_kernel`, for
// `runs` sweeps after 2 warm-up ones; the medians into r.
static void time_gpu(const sk_mix_data &data, int32_t k, int kernel, int stats_kernel, int runs,
                     const sk_mix_params &start, Row &r) {
  sk_ex_error err;
  sk_mix_gpu_options o;
  memset(&o, 0, sizeof o);
  o.zstep_kernel = zstep_row(kernel);
  o.stats_kernel = stats_kernel;
  sk_mix_gpu *g = NULL;
  sk_mix_params p;
  sk_mix_ztable t;
  sk_mix_stats st;
  sk_mix_prior prior;
  sk_mix_prior_default(&prior);
  if (sk_mix_gpu_create(data.x, data.n, data.d, k, &o, &g, &err) != 0 ||
      sk_mix_params_alloc(&p, k, data.d, &err) != 0 || sk_mix_ztable_alloc(&t, k, data.d, &err) != 0 ||
      sk_mix_stats_alloc(&st, k, data.d, data.n, &err) != 0)
    die("setting up the GPU sweep", err);
  sk_mix_params_copy(&p, &start);
  sk_mix_ztable_set(&t, &p);
  const cudaStream_t stream = (cudaStream_t)sk_mix_gpu_stream(g);
  cudaEvent_t e0, e1, e2, e3;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  BENCH_CUDA(cudaEventCreate(&e2));
  BENCH_CUDA(cudaEventCreate(&e3));
  std::vector<double> sweep, zstep, stats, params;
  for (int s = 1; s <= runs + 2; ++s) {
    const double w0 = bench_now_ms();
    BENCH_CUDA(cudaEventRecord(e0, stream));
    if (sk_mix_gpu_zstep(g, &t, 1, (uint64_t)s, &err) != 0) die("z-step", err);
    BENCH_CUDA(cudaEventRecord(e1, stream));
    BENCH_CUDA(cudaEventRecord(e2, stream));
    if (sk_mix_gpu_stats(g, &st, &err) != 0) die("statistics", err);  // synchronises
    BENCH_CUDA(cudaEventRecord(e3, stream));
    const double w1 = bench_now_ms();
    if (sk_mix_param_step(&prior, &st, 1, (uint64_t)s, 0, &p, &err) != 0) die("parameter step", err);
    sk_mix_ztable_set(&t, &p);
    const double w2 = bench_now_ms();
    BENCH_CUDA(cudaEventSynchronize(e3));
    float z_ms = 0.0f, s_ms = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&z_ms, e0, e1));
    BENCH_CUDA(cudaEventElapsedTime(&s_ms, e2, e3));
    if (s <= 2) continue;
    sweep.push_back(w2 - w0);
    zstep.push_back(z_ms);
    stats.push_back(s_ms);
    params.push_back(w2 - w1);
  }
  if (kernel == kZstepMain)
    snprintf(g_zstep_chosen, sizeof g_zstep_chosen, "%s", sk_mix_zstep_kernel_name(sk_mix_gpu_zstep_choice(g)->row));
  if (kernel == kZstepMain && stats_kernel == SK_MIX_STATS_ATOMIC) {
    r.sweep_atomic = median(sweep);
    r.stats_atomic = median(stats);
  } else if (kernel == kZstepMain) {
    r.sweep = median(sweep);
    r.zstep = median(zstep);
    r.stats = median(stats);
    r.params = median(params);
  } else if (kernel == kZstepButterfly) {
    r.zstep_butterfly = median(zstep);
  } else {
    r.zstep_thread = median(zstep);
  }
  BENCH_CUDA(cudaEventDestroy(e0));
  BENCH_CUDA(cudaEventDestroy(e1));
  BENCH_CUDA(cudaEventDestroy(e2));
  BENCH_CUDA(cudaEventDestroy(e3));
  sk_mix_gpu_destroy(g);
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
  sk_mix_stats_free(&st);
}

// One sweep of the CPU reference on the first `points` points (all threads).
static void time_cpu(const sk_mix_data &data, int32_t k, int64_t points, const sk_mix_params &start, Row &r) {
  sk_ex_error err;
  sk_mix_data part = data;
  part.n = points;
  sk_mix_params p;
  sk_mix_ztable t;
  sk_mix_stats st;
  sk_mix_prior prior;
  sk_mix_prior_default(&prior);
  std::vector<int32_t> z((size_t)points);
  if (sk_mix_params_alloc(&p, k, data.d, &err) != 0 || sk_mix_ztable_alloc(&t, k, data.d, &err) != 0 ||
      sk_mix_stats_alloc(&st, k, data.d, data.n, &err) != 0)
    die("setting up the CPU sweep", err);
  sk_mix_params_copy(&p, &start);
  const double t0 = bench_now_ms();
  sk_mix_ztable_set(&t, &p);
  if (sk_mix_zstep_cpu(part.x, 0, points, &t, 1, 1, 0, z.data(), &err) != 0) die("CPU z-step", err);
  const double t1 = bench_now_ms();
  if (sk_mix_stats_cpu(&part, z.data(), 0, &st, &err) != 0) die("CPU statistics", err);
  const double t2 = bench_now_ms();
  if (sk_mix_param_step(&prior, &st, 1, 1, 0, &p, &err) != 0) die("CPU parameter step", err);
  const double t3 = bench_now_ms();
  const double scale = (double)data.n / (double)points;  // per N points, when timed on fewer
  r.cpu_zstep = (t1 - t0) * scale;
  r.cpu_stats = (t2 - t1) * scale;
  r.cpu_params = t3 - t2;
  r.cpu_sweep = r.cpu_zstep + r.cpu_stats + r.cpu_params;
  sk_mix_params_free(&p);
  sk_mix_ztable_free(&t);
  sk_mix_stats_free(&st);
}

int main(int argc, char **argv) {
  long long n = 10000000, d = 16, runs = 10, cpu_points = -1, ks[16] = {8, 64, 512};
  int num_ks = 3, overlap = 0;
  const char *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (bench_common_option(argc, argv, &i, usage, &csv_path)) continue;
    if (strcmp(a, "--overlap") == 0) {
      overlap = 1;
      continue;
    }
    if (i + 1 >= argc) bench_unknown_option(a, usage);
    const char *v = argv[++i];
    if (strcmp(a, "--zstep-kernel") == 0) {
      g_zstep_kernel = v;
    } else if (strcmp(a, "--n") == 0) {
      if (!bench_parse_ll(v, 1, 1ll << 40, &n)) bench_bad_value(a, v, usage);
    } else if (strcmp(a, "--d") == 0) {
      if (!bench_parse_ll(v, 1, SK_MIX_MAX_D, &d)) bench_bad_value(a, v, usage);
    } else if (strcmp(a, "--ks") == 0) {
      num_ks = bench_parse_list(a, v, 1, SK_MIX_MAX_K, ks, 16, usage);
    } else if (strcmp(a, "--runs") == 0) {
      if (!bench_parse_ll(v, 1, 1000, &runs)) bench_bad_value(a, v, usage);
    } else if (strcmp(a, "--cpu-points") == 0) {
      if (!bench_parse_ll(v, 0, 1ll << 40, &cpu_points)) bench_bad_value(a, v, usage);
    } else {
      bench_unknown_option(a, usage);
    }
  }
  bench_select_device(0);
  sk_device_info info;
  BENCH_SK(sk_device_query(0, &info));
  int clock_khz = 0;
  BENCH_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  // FP32 lanes per SM: 64 on sm_80 (A100) and before Ampere's consumer parts, 128 on sm_86 and later.
  const int lanes =
      (info.compute_capability_major < 8 || (info.compute_capability_major == 8 && info.compute_capability_minor == 0))
          ? 64
          : 128;
  const double fma_peak = (double)info.sm_count * lanes * clock_khz * 1e3;
  const double fma_measured = measured_fma_rate(info.sm_count);
  const bench_stats copy = bench_time_device_copy((size_t)1 << 30, 2, 10);
  const double copy_rate = 2.0 * (double)(1u << 30) / (copy.median_ms * 1e-3);
  bench_print_date_and_command(argc, argv);
  printf(
      "GPU: %s, %d SMs, %.0f MHz; FP32 peak %.1f TFMA/s (%d lanes x SMs x clock), reached by independent FMA "
      "chains: %.1f TFMA/s; copy rate %.0f GB/s (1 GiB device to device, read + write)\n",
      info.name, info.sm_count, clock_khz / 1e3, fma_peak / 1e12, lanes, fma_measured / 1e12, copy_rate / 1e9);

  // The data: planted, 64 well-separated (or overlapping) components, standardized.
  sk_mix_gen_params gp = {(int64_t)n, (int32_t)d, 64 < n ? 64 : (int32_t)n, overlap, 1, 0};
  sk_mix_truth truth;
  sk_mix_data data;
  sk_ex_error err;
  float *raw = NULL;
  const double g0 = bench_now_ms();
  if (sk_mix_generate(&gp, &raw, &truth, &err) != 0 || sk_mix_data_from_f32(raw, gp.n, gp.d, &data, &err) != 0)
    die("generating the data", err);
  free(raw);
  sk_mix_truth_free(&truth);
  printf("data: N = %lld points, D = %lld, 64 %s components (generated and standardized in %.1f s)\n", n, d,
         overlap ? "overlapping" : "well-separated", (bench_now_ms() - g0) / 1e3);
  if (cpu_points < 0 || cpu_points > n) cpu_points = n;

  FILE *csv = csv_path ? bench_open_csv(csv_path) : NULL;
  if (csv_path && csv == NULL) return BENCH_EXIT_FAILED;
  if (csv)
    fprintf(csv,
            "gpu,N,D,K,sweep_ms,zstep_ms,stats_ms,params_ms,zstep_thread_ms,zstep_butterfly_ms,bound_ms,"
            "bound_memory_ms,bound_fma_ms,"
            "zstep_over_bound,cpu_sweep_ms,cpu_zstep_ms,cpu_stats_ms,cpu_params_ms,cpu_points,copy_GBps,"
            "fp32_peak_TFMAps,fma_measured_TFMAps,stats_atomic_ms,sweep_atomic_ms,zstep_kernel\n");
  for (int i = 0; i < num_ks; ++i) {
    Row r;
    memset(&r, 0, sizeof r);
    r.k = (int)ks[i];
    sk_mix_prior prior;
    sk_mix_prior_default(&prior);
    sk_mix_params start;
    if (sk_mix_params_alloc(&start, r.k, (int32_t)d, &err) != 0 ||
        sk_mix_init_params(&data, &prior, 1, 0, &start, &err) != 0)
      die("initialising", err);
    time_gpu(data, r.k, kZstepMain, SK_MIX_STATS_SORTED, (int)runs, start, r);
    time_gpu(data, r.k, kZstepMain, SK_MIX_STATS_ATOMIC, (int)runs, start, r);
    time_gpu(data, r.k, kZstepButterfly, SK_MIX_STATS_SORTED, (int)(runs < 3 ? runs : 3), start, r);
    time_gpu(data, r.k, kZstepThread, SK_MIX_STATS_SORTED, (int)(runs < 3 ? runs : 3), start, r);
    r.bound_mem = (4.0 * n * d + 4.0 * n) / copy_rate * 1e3;
    r.bound_fma = 2.0 * n * r.k * d / fma_peak * 1e3;
    const double bound = r.bound_mem > r.bound_fma ? r.bound_mem : r.bound_fma;
    if (cpu_points > 0) time_cpu(data, r.k, cpu_points, start, r);
    printf(
        "K=%4d: GPU sweep %9.3f ms = z-step %9.3f + statistics %7.3f + parameters %7.3f (host, with the copies) ms\n"
        "        z-step bound %.3f ms (memory %.3f, FMA %.3f): %.2fx the bound; butterfly z-step %.3f ms (%.2fx), "
        "thread-per-point z-step %.3f ms (%.2fx the table's row, %s)\n"
        "        statistics by the atomic kernel (the first version): %.3f ms (%.2fx the sorted kernel's), sweep %.3f ms; "
        "statistics read bound %.3f ms\n",
        r.k, r.sweep, r.zstep, r.stats, r.params, bound, r.bound_mem, r.bound_fma, r.zstep / bound, r.zstep_butterfly,
        r.zstep_butterfly / r.zstep, r.zstep_thread, r.zstep_thread / r.zstep, g_zstep_chosen, r.stats_atomic,
        r.stats_atomic / r.stats, r.sweep_atomic, r.bound_mem);
    if (cpu_points > 0)
      printf(
          "        CPU reference sweep %.1f ms = z-step %.1f + statistics %.1f + parameters %.1f%s: the GPU's is %.0fx "
          "faster\n",
          r.cpu_sweep, r.cpu_zstep, r.cpu_stats, r.cpu_params,
          cpu_points < n ? " (timed on fewer points, scaled to N)" : "", r.cpu_sweep / r.sweep);
    if (csv)
      fprintf(
          csv,
          "\"%s\",%lld,%lld,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.3f,%.3f,%.3f,%.3f,%lld,%.1f,%.3f,"
          "%.3f,%.6f,%.6f,%s\n",
          info.name, n, d, r.k, r.sweep, r.zstep, r.stats, r.params, r.zstep_thread, r.zstep_butterfly, bound,
          r.bound_mem, r.bound_fma,
          r.zstep / bound, r.cpu_sweep, r.cpu_zstep, r.cpu_stats, r.cpu_params, cpu_points, copy_rate / 1e9,
          fma_peak / 1e12, fma_measured / 1e12, r.stats_atomic, r.sweep_atomic, g_zstep_chosen);
    sk_mix_params_free(&start);
  }
  sk_mix_data_free(&data);
  if (csv && !bench_close_csv(csv, csv_path)) return BENCH_EXIT_FAILED;
  return 0;
}
