/*
 * sk-mixture: a Bayesian Gaussian mixture fitted by Gibbs sampling on samplekit's primitives.
 * `sk-mixture COMMAND --help` describes each command. Exit status: sk_ex_main.h's rule (SK_EX_EXIT_RULE):
 * 0 success, 2 the user's input, 1 the machine.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "cli.h"
#include "data.h"
#include "demo.h"
#include "fit.h"
#include "gen.h"
#include "output.h"
#include "sk_ex_npy.h"
#include "samplekit/sk_version.h"

/* --- fit ------------------------------------------------------------------------------------------ */

static void fit_usage(FILE *f) {
  sk_mix_fit_options d;
  sk_mix_fit_options_default(&d);
  fprintf(f,
          "usage: sk-mixture fit (--npy FILE | --csv FILE) -k K [options]\n"
          "       sk-mixture fit --demo [options]\n"
          "Fits a Bayesian Gaussian mixture with diagonal covariances by Gibbs sampling%s.\n"
          "Model: pi ~ Dirichlet(alpha); sigma2_kj ~ InvGamma(a0, b0 var_j); mu_kj | sigma2_kj ~\n"
          "N(mean_j, sigma2_kj / kappa0); z_n ~ pi; x_nj ~ N(mu_kj, sigma2_kj), where mean_j and var_j are\n"
          "the data's mean and variance in dimension j. A sweep draws every z_n, then pi, mu and sigma2.\n\n"
          "input (one of):\n"
          "      --npy FILE         a 2-D float32 or float64 array in C order (N points x D dimensions)\n"
          "      --csv FILE         numbers separated by commas, one point a line; a header line is optional\n"
          "      --demo             generate well-separated planted data (%d points, %d dimensions, %d\n"
          "                         components unless -k), fit it, and print the fitted components beside\n"
          "                         the planted ones with the adjusted Rand index\n"
          "model and run:\n"
          "  -k, --components K     components, 1 to %d (at most N)\n"
          "  -n, --sweeps N         Gibbs sweeps (default %lld)\n"
          "  -s, --seed S           seed of every random draw (default %llu); a fit is a pure function of the\n"
          "                         data, the options and the seed, on the CPU (any --threads) and the GPU alike\n"
          "      --device D         auto (default: GPU 0 when one is found, else the CPU, said once), cpu,\n"
          "                         or gpu (an error, exit 1, without a usable GPU)\n"
          "      --threads N        CPU threads (default: all)\n"
          "  -v, --verbose          say how the sweeps run: on a GPU, the z-step kernel table, the row chosen for\n"
          "                         the data's D and K, and why\n"
          "      --alpha A          Dirichlet parameter of the weights (default %g)\n"
          "      --kappa0 K0        prior pseudo-count of the means (default %g)\n"
          "      --a0 A0            inverse-gamma shape of the variances (default %g)\n"
          "      --b0 B0            inverse-gamma scale, as a fraction of each dimension's variance (default %g)\n"
          "output:\n"
          "  -o, --out DIR          write assign.txt (each point's component, 0 to K-1), components.csv\n"
          "                         (weight, means, variances: the last sweep's and the average over the\n"
          "                         second half), trace.csv (per sweep: seconds, log-likelihood, log joint\n"
          "                         density, component sizes); DIR is created with its parents. A DIR that\n"
          "                         holds any of the three, or whose file would be the input, is refused\n"
          "      --overwrite        replace the three files in DIR (removed before the first sweep, so that\n"
          "                         a run cut short leaves none of the earlier run's beside its trace)\n"
          "  -h, --help             this text\n",
#ifdef SK_MIX_HAVE_GPU
          " on a GPU or the CPU",
#else
          " on the CPU (this build has no CUDA part)",
#endif
          SK_MIX_DEMO_N, SK_MIX_DEMO_D, SK_MIX_DEMO_K, SK_MIX_MAX_K, (long long)d.sweeps, (unsigned long long)d.seed,
          d.prior.alpha, d.prior.kappa0, d.prior.a0, d.prior.b0);
}

static int cmd_fit(int argc, char **argv) {
  static const struct option options[] = {{"npy", required_argument, 0, 'N'},
                                          {"csv", required_argument, 0, 'C'},
                                          {"demo", no_argument, 0, 'Z'},
                                          {"components", required_argument, 0, 'k'},
                                          {"sweeps", required_argument, 0, 'n'},
                                          {"seed", required_argument, 0, 's'},
                                          {"device", required_argument, 0, 'G'},
                                          {"threads", required_argument, 0, 'j'},
                                          {"alpha", required_argument, 0, 'a'},
                                          {"kappa0", required_argument, 0, 'K'},
                                          {"a0", required_argument, 0, 'A'},
                                          {"b0", required_argument, 0, 'B'},
                                          {"out", required_argument, 0, 'o'},
                                          {"overwrite", no_argument, 0, 'W'},
                                          {"verbose", no_argument, 0, 'v'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  sk_mix_fit_options o;
  sk_mix_fit_options_default(&o);
  const char *npy = NULL, *csv = NULL;
  int ok = 1, c, demo = 0;
  long long v = 0;
  sk_ex_note_repeated_options("sk-mixture fit", argc, argv, "k:n:s:o:vh", options);
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "k:n:s:o:vh", options, NULL)) != -1) {
    switch (c) {
      case 'N': npy = optarg; break;
      case 'v': o.verbose = 1; break;
      case 'C': csv = optarg; break;
      case 'Z': demo = 1; break;
      case 'k':
        ok = sk_mix_parse_value("fit", "-k", optarg, SK_MIX_VALUE_INT, 1, SK_MIX_MAX_K, &v);
        o.k = (int32_t)v;
        break;
      case 'n':
        ok = sk_mix_parse_value("fit", "-n", optarg, SK_MIX_VALUE_INT, 1, 1e9, &v);
        o.sweeps = v;
        break;
      case 's': ok = sk_mix_parse_value("fit", "--seed", optarg, SK_MIX_VALUE_U64, 0, 0, &o.seed); break;
      case 'j':
        ok = sk_mix_parse_value("fit", "--threads", optarg, SK_MIX_VALUE_INT, 1, 4096, &v);
        o.threads = (int)v;
        break;
      case 'a':
        ok = sk_mix_parse_value("fit", "--alpha", optarg, SK_MIX_VALUE_REAL, 1e-12, 1e12, &o.prior.alpha);
        break;
      case 'K':
        ok = sk_mix_parse_value("fit", "--kappa0", optarg, SK_MIX_VALUE_REAL, 1e-12, 1e12, &o.prior.kappa0);
        break;
      case 'A': ok = sk_mix_parse_value("fit", "--a0", optarg, SK_MIX_VALUE_REAL, 1e-12, 1e12, &o.prior.a0); break;
      case 'B': ok = sk_mix_parse_value("fit", "--b0", optarg, SK_MIX_VALUE_REAL, 1e-12, 1e12, &o.prior.b0); break;
      case 'G':
        if (strcmp(optarg, "auto") == 0)
          o.device = SK_MIX_FIT_AUTO;
        else if (strcmp(optarg, "cpu") == 0)
          o.device = SK_MIX_FIT_CPU;
        else if (strcmp(optarg, "gpu") == 0)
          o.device = SK_MIX_FIT_GPU;
        else
          ok = 0, fprintf(stderr, "sk-mixture fit: --device: '%s' is not auto, cpu or gpu\n", optarg);
        break;
      case 'o': o.out = optarg; break;
      case 'W': o.overwrite = 1; break;
      case 'h': fit_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (ok && optind < argc) ok = 0, fprintf(stderr, "sk-mixture fit: unexpected argument '%s'\n", argv[optind]);
  const int inputs = (npy != NULL) + (csv != NULL);
  if (ok && demo && inputs != 0)
    ok = 0, fprintf(stderr, "sk-mixture fit: --demo makes its own data: leave out --npy and --csv\n");
  if (ok && !demo && inputs != 1)
    ok = 0, fprintf(stderr, "sk-mixture fit: give one of --npy FILE, --csv FILE (or --demo)\n");
  if (ok && !demo && o.k == 0) ok = 0, fprintf(stderr, "sk-mixture fit: -k K is required\n");
  if (!ok) {
    fprintf(stderr, "see 'sk-mixture fit --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (demo) return sk_mix_demo(&o);
  sk_mix_data data;
  sk_ex_error err;
  const char *path = npy != NULL ? npy : csv;
  const double t0 = sk_ex_now();
  const int read = npy != NULL ? sk_mix_read_npy(npy, &data, &err) : sk_mix_read_csv(csv, &data, &err);
  if (read != 0 || sk_mix_data_check_k(&data, o.k, path, &err) != 0) {
    fprintf(stderr, "sk-mixture fit: %s\n", err.message);
    sk_mix_data_free(&data);
    return read == SK_MIX_READ_MACHINE ? SK_EX_EXIT_RUNTIME : SK_EX_EXIT_USAGE;
  }
  printf("read %s: %lld points x %d dimensions in %.2f s\n", path, (long long)data.n, (int)data.d, sk_ex_now() - t0);
  sk_mix_fit_result r;
  const int status = sk_mix_fit(&o, &data, path, &r);
  sk_mix_fit_result_free(&r);
  sk_mix_data_free(&data);
  return status;
}

/* --- gen ------------------------------------------------------------------------------------------ */

static void gen_usage(FILE *f) {
  fprintf(f,
          "usage: sk-mixture gen --out DIR [options]\n"
          "Draws planted data from a Gaussian mixture with diagonal covariances and writes it with its truth:\n"
          "DIR/data.npy (float32, N x D; or DIR/data.csv with --csv), DIR/truth_assign.txt (each point's\n"
          "component), DIR/truth_components.csv (weights, means, variances). The data is a pure function of\n"
          "the options (examples/mixture/src/gen.h says how it is drawn).\n\n"
          "  -o, --out DIR          folder to write into (created with its parents)\n"
          "  -N, --points N         points (default 100000)\n"
          "  -d, --dims D           dimensions, 1 to %d (default 8)\n"
          "  -k, --components K     components, 1 to %d (default 10)\n"
          "      --overlap          overlapping components (means 2.5 apart; default: well separated, 20 apart,\n"
          "                         with standard deviations from 0.61 to 1.65)\n"
          "  -s, --seed S           seed (default 1)\n"
          "      --csv              write data.csv instead of data.npy\n"
          "      --threads N        CPU threads (default: all); the data does not depend on it\n"
          "      --overwrite        replace the files of an earlier gen in DIR (without it, DIR holding any\n"
          "                         of them is refused, exit 2)\n"
          "  -h, --help             this text\n",
          SK_MIX_MAX_D, SK_MIX_MAX_K);
}

static int write_gen(const char *dir, const sk_mix_gen_params *p, const float *x, const sk_mix_truth *t, int csv,
                     sk_ex_error *err) {
  char path[4096];
  sk_mix_components c = {t->k, t->d, t->weight, t->mean, t->var};
  const sk_mix_components *sets[1] = {&c};
  const char *labels[1] = {"planted"};
  if (sk_ex_mkdir_p(dir, err) != 0 || sk_ex_path(path, sizeof path, dir, csv ? "data.csv" : "data.npy", err) != 0 ||
      (csv ? sk_mix_write_csv_f32(path, x, p->n, p->d, err) : sk_ex_write_npy_f32(path, x, p->n, p->d, err)) != 0)
    return 1;
  if (sk_ex_path(path, sizeof path, dir, "truth_assign.txt", err) != 0 ||
      sk_mix_write_assign(path, t->z, p->n, err) != 0)
    return 1;
  return sk_ex_path(path, sizeof path, dir, "truth_components.csv", err) != 0 ||
         sk_mix_write_components(path, sets, labels, 1, err) != 0;
}

static int cmd_gen(int argc, char **argv) {
  static const struct option options[] = {
      {"out", required_argument, 0, 'o'},  {"points", required_argument, 0, 'N'},
      {"dims", required_argument, 0, 'd'}, {"components", required_argument, 0, 'k'},
      {"overlap", no_argument, 0, 'O'},    {"seed", required_argument, 0, 's'},
      {"csv", no_argument, 0, 'C'},        {"threads", required_argument, 0, 'j'},
      {"overwrite", no_argument, 0, 'W'},  {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  sk_mix_gen_params p = {100000, 8, 10, 0, 1, 0};
  const char *out = NULL;
  int ok = 1, c, csv = 0, overwrite = 0;
  long long v = 0;
  sk_ex_note_repeated_options("sk-mixture gen", argc, argv, "o:N:d:k:s:h", options);
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "o:N:d:k:s:h", options, NULL)) != -1) {
    switch (c) {
      case 'o': out = optarg; break;
      case 'N':
        ok = sk_mix_parse_value("gen", "-N", optarg, SK_MIX_VALUE_INT, 1, 4e18, &v);
        p.n = v;
        break;
      case 'd':
        ok = sk_mix_parse_value("gen", "-d", optarg, SK_MIX_VALUE_INT, 1, SK_MIX_MAX_D, &v);
        p.d = (int32_t)v;
        break;
      case 'k':
        ok = sk_mix_parse_value("gen", "-k", optarg, SK_MIX_VALUE_INT, 1, SK_MIX_MAX_K, &v);
        p.k = (int32_t)v;
        break;
      case 'O': p.overlap = 1; break;
      case 's': ok = sk_mix_parse_value("gen", "--seed", optarg, SK_MIX_VALUE_U64, 0, 0, &p.seed); break;
      case 'C': csv = 1; break;
      case 'W': overwrite = 1; break;
      case 'j':
        ok = sk_mix_parse_value("gen", "--threads", optarg, SK_MIX_VALUE_INT, 1, 4096, &v);
        p.threads = (int)v;
        break;
      case 'h': gen_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  sk_ex_error err;
  if (ok && optind < argc) ok = 0, fprintf(stderr, "sk-mixture gen: unexpected argument '%s'\n", argv[optind]);
  if (ok && out == NULL) ok = 0, fprintf(stderr, "sk-mixture gen: --out DIR is required\n");
  if (ok && sk_mix_gen_check(&p, &err) != 0) ok = 0, fprintf(stderr, "sk-mixture %s\n", err.message);
  if (!ok) {
    fprintf(stderr, "see 'sk-mixture gen --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  /* The folder before the work: an output path that cannot be written is the user's (exit 2). */
  const char *const outputs[] = {csv ? "data.csv" : "data.npy", "truth_assign.txt", "truth_components.csv", NULL};
  if (sk_ex_check_output_dir(out, outputs, &err) != 0 ||
      sk_ex_prepare_outputs(out, outputs, NULL, overwrite, &err) != 0) {
    fprintf(stderr, "sk-mixture gen: --out: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  float *x = NULL;
  sk_mix_truth t;
  int status = SK_EX_EXIT_OK;
  if (sk_mix_generate(&p, &x, &t, &err) != 0 || write_gen(out, &p, x, &t, csv, &err) != 0) {
    fprintf(stderr, "sk-mixture gen: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    printf("wrote %s/%s: %lld points x %d dimensions from %d planted %s components (seed %llu), and the truth\n", out,
           csv ? "data.csv" : "data.npy", (long long)p.n, (int)p.d, (int)p.k,
           p.overlap ? "overlapping" : "well-separated", (unsigned long long)p.seed);
  }
  free(x);
  sk_mix_truth_free(&t);
  return status;
}

/* --- dispatch ------------------------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: sk-mixture COMMAND [options]   (sk-mixture COMMAND --help for each)\n"
          "A Bayesian Gaussian mixture fitted by Gibbs sampling, built on samplekit %d.%d.%d%s.\n\n"
          "commands:\n"
          "  fit      fit a mixture to a .npy or CSV file (fit --demo for a quick look)\n"
          "  gen      draw planted data with its truth\n\n"
          SK_EX_EXIT_RULE,
          SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH,
          sk_mix_have_gpu() ? "" : " (this build has no CUDA part: the CPU only)");
}

int main(int argc, char **argv) {
  static const sk_ex_command commands[] = {{"fit", cmd_fit}, {"gen", cmd_gen}, {NULL, NULL}};
  return sk_ex_main("sk-mixture", commands, usage, argc, argv);
}
