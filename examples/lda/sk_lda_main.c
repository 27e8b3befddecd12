/*
 * sk-lda: an LDA trainer built on samplekit. `sk-lda COMMAND --help` describes each command.
 * Exit status: 0 success, 2 bad usage or bad input, 1 a failure at run time.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgs.h"
#include "cli.h"
#include "corpus.h"
#include "corpus_read.h"
#include "esca.h"
#include "gen.h"
#include "metrics.h"
#include "model.h"
#include "model_file.h"
#include "output.h"
#include "split.h"

#include <sys/stat.h>
#include "samplekit/sk_version.h"

#define SK_LDA_EXIT_OK 0
#define SK_LDA_EXIT_RUNTIME 1
#define SK_LDA_EXIT_USAGE 2

static double sk_lda_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --- gen ------------------------------------------------------------------------------------------ */

static void gen_usage(FILE *f) {
  sk_lda_gen_params d;
  sk_lda_gen_params_default(&d);
  fprintf(f,
          "usage: sk-lda gen --out DIR [options]\n"
          "Draws a corpus from the LDA generative process with planted topics and writes it in UCI format\n"
          "(DIR/docword.NAME.txt, DIR/vocab.NAME.txt) with the planted topics beside it\n"
          "(DIR/topics.NAME.planted.txt, DIR/phi.NAME.planted.f32, DIR/theta.NAME.planted.f32).\n"
          "The output is a pure function of the options (see examples/lda/src/gen.h).\n\n"
          "  -o, --out DIR          folder to write into (must exist)\n"
          "      --name NAME        file name part (default synthetic)\n"
          "  -d, --docs D           documents (default %d)\n"
          "  -V, --words V          vocabulary size (default %d)\n"
          "  -k, --topics K         planted topics (default %d)\n"
          "  -L, --mean-length L    mean tokens per document (default %g)\n"
          "      --length-cv C      coefficient of variation of the lengths (default %g)\n"
          "  -a, --alpha A          Dirichlet parameter of the document mixtures (default %g)\n"
          "  -b, --beta B           Dirichlet concentration of the topics (default %g)\n"
          "      --zipf S           Zipf exponent of the vocabulary (default %g)\n"
          "      --support F        fraction of the vocabulary each topic uses (default %g)\n"
          "  -s, --seed N           seed (default %llu)\n"
          "      --top N            words per topic in the planted topics file (default 20)\n"
          "  -h, --help             this text\n",
          d.num_docs, d.num_words, d.num_topics, d.mean_doc_length, d.doc_length_cv, d.alpha, d.beta,
          d.zipf_exponent, d.topic_support, (unsigned long long)d.seed);
}

static int cmd_gen(int argc, char **argv) {
  static const struct option options[] = {
      {"out", required_argument, 0, 'o'},        {"name", required_argument, 0, 'N'},
      {"docs", required_argument, 0, 'd'},       {"words", required_argument, 0, 'V'},
      {"topics", required_argument, 0, 'k'},     {"mean-length", required_argument, 0, 'L'},
      {"length-cv", required_argument, 0, 'c'},  {"alpha", required_argument, 0, 'a'},
      {"beta", required_argument, 0, 'b'},       {"zipf", required_argument, 0, 'z'},
      {"support", required_argument, 0, 'f'},    {"seed", required_argument, 0, 's'},
      {"top", required_argument, 0, 't'},        {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  sk_lda_gen_params p;
  sk_lda_gen_params_default(&p);
  const char *out = NULL, *name = "synthetic";
  long long top = 20;
  int ok = 1, c;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "o:d:V:k:L:a:b:s:h", options, NULL)) != -1) {
    long long v;
    switch (c) {
      case 'o': out = optarg; break;
      case 'N': name = optarg; break;
      case 'd': ok = sk_lda_parse_ll("gen", "--docs", optarg, 1, INT32_MAX, &v); p.num_docs = (int32_t)v; break;
      case 'V': ok = sk_lda_parse_ll("gen", "--words", optarg, 1, INT32_MAX, &v); p.num_words = (int32_t)v; break;
      case 'k': ok = sk_lda_parse_ll("gen", "--topics", optarg, 1, 65536, &v); p.num_topics = (int32_t)v; break;
      case 'L': ok = sk_lda_parse_double("gen", "--mean-length", optarg, 1.0, 1073741824.0, &p.mean_doc_length); break;
      case 'c': ok = sk_lda_parse_double("gen", "--length-cv", optarg, 0.0, 10.0, &p.doc_length_cv); break;
      case 'a': ok = sk_lda_parse_double("gen", "--alpha", optarg, 1e-8, 1e8, &p.alpha); break;
      case 'b': ok = sk_lda_parse_double("gen", "--beta", optarg, 1e-8, 1e8, &p.beta); break;
      case 'z': ok = sk_lda_parse_double("gen", "--zipf", optarg, 0.0, 10.0, &p.zipf_exponent); break;
      case 'f': ok = sk_lda_parse_double("gen", "--support", optarg, 1e-9, 1.0, &p.topic_support); break;
      case 's': ok = sk_lda_parse_u64("gen", "--seed", optarg, &p.seed); break;
      case 't': ok = sk_lda_parse_ll("gen", "--top", optarg, 1, 1000000, &top); break;
      case 'h': gen_usage(stdout); return SK_LDA_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda gen --help'\n");
    return SK_LDA_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "sk-lda gen: unexpected argument '%s' (see 'sk-lda gen --help')\n", argv[optind]);
    return SK_LDA_EXIT_USAGE;
  }
  if (out == NULL) {
    fprintf(stderr, "sk-lda gen: --out DIR is required (see 'sk-lda gen --help')\n");
    return SK_LDA_EXIT_USAGE;
  }
  sk_lda_error err;
  if (sk_lda_gen_validate(&p, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    return SK_LDA_EXIT_USAGE;
  }
  const int tty = isatty(fileno(stderr));
  const double t0 = sk_lda_now();
  if (tty) fprintf(stderr, "generating %d documents of %g tokens on average ...\n", p.num_docs, p.mean_doc_length);
  sk_lda_corpus corpus;
  float *phi = NULL, *theta = NULL;
  if (sk_lda_generate(&p, &corpus, &phi, &theta, NULL, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    return SK_LDA_EXIT_RUNTIME;
  }
  const double t1 = sk_lda_now();
  if (tty) fprintf(stderr, "writing %lld tokens to %s ...\n", (long long)corpus.num_tokens, out);
  int status = SK_LDA_EXIT_OK;
  if (sk_lda_write_uci(&corpus, out, name, &err) != 0 ||
      sk_lda_write_planted(&p, corpus.vocab, phi, theta, (int)top, out, name, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    status = SK_LDA_EXIT_RUNTIME;
  } else {
    printf("wrote %s/docword.%s.txt: %d documents, %d words, %lld tokens (generated in %.1f s, written in %.1f s)\n",
           out, name, corpus.num_docs, corpus.num_words, (long long)corpus.num_tokens, t1 - t0, sk_lda_now() - t1);
  }
  sk_lda_corpus_free(&corpus);
  free(phi);
  free(theta);
  return status;
}

/* --- train ---------------------------------------------------------------------------------------- */

typedef struct train_options {
  const char *docword, *ldac, *text, *vocab, *stopwords, *out, *resume;
  long long min_count, topics, iters, threads, ll_every, top_words;
  int save_z;
  double alpha, beta, test_fraction;
  uint64_t seed;
  int use_cgs, demo;
} train_options;

static void train_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda train (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE] [options]\n"
          "       sk-lda train --demo\n"
          "Trains LDA by Gibbs sampling on the CPU (the GPU samplers are not built yet).\n\n"
          "input (one of):\n"
          "      --docword FILE     UCI bag of words (docword.X.txt or .txt.gz); --vocab vocab.X.txt\n"
          "      --ldac FILE        LDA-C (N id:count ...); --vocab FILE gives the words\n"
          "      --text FILE        plain text, one document per line (lower-cased, letters only)\n"
          "      --vocab FILE       vocabulary, one word per line\n"
          "      --stopwords FILE   words to drop (--text)\n"
          "      --min-count N      drop words seen N times or fewer (--text; default 0)\n"
          "model and run:\n"
          "  -k, --topics K         topics, 1 to %d (default 100)\n"
          "  -n, --iters N          Gibbs sweeps (default 100)\n"
          "      --alpha A          document-topic prior (default 50 / K)\n"
          "      --beta B           topic-word prior (default %g)\n"
          "      --sampler S        esca (default: every token from the previous sweep's counts, parallel)\n"
          "                         or cgs (serial collapsed Gibbs, the textbook reference)\n"
          "      --seed N           seed of every random draw (default 1)\n"
          "      --threads N        CPU threads for ESCA (default: all); results do not depend on it\n"
          "      --test-fraction F  documents held out for the held-out log-likelihood (default %g)\n"
          "      --ll-every N       joint log-likelihood every N sweeps (default 10)\n"
          "      --device D         auto (default), cpu or gpu; this build trains on the CPU only\n"
          "      --out DIR          write the results here (created if missing): topics.txt (top words),\n"
          "                         model.skl (the model: sk-lda infer reads it), theta.txt (document-topic\n"
          "                         proportions), metrics.csv (log-likelihoods and speed)\n"
          "      --top N            words per topic in topics.txt (default 20)\n"
          "      --save-z           also write z.bin (every token's topic), which --resume needs\n"
          "      --resume DIR       continue the run saved in DIR (model.skl and z.bin) up to --iters sweeps;\n"
          "                         give the same corpus, --seed and --test-fraction as that run\n"
          "      --demo             generate a small corpus with planted topics, train on it and show how\n"
          "                         well the learned topics match the planted ones\n"
          "  -h, --help             this text\n",
          SK_LDA_MAX_TOPICS, SK_LDA_DEFAULT_BETA, SK_LDA_DEFAULT_TEST_FRACTION);
}

/* Cosine similarity of two topic-word distributions of length V. */
static double topic_cosine(const double *a, const double *b, int32_t V) {
  double ab = 0, aa = 0, bb = 0;
  for (int32_t v = 0; v < V; ++v) ab += a[v] * b[v], aa += a[v] * a[v], bb += b[v] * b[v];
  return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0.0;
}

/* The learned phi (K x V, row k = topic k) from the model's counts. */
static double *learned_phi(const sk_lda_model *m) {
  const int32_t K = m->num_topics, V = m->num_words;
  double *phi = malloc(sizeof(double) * (size_t)K * (size_t)V);
  if (phi == NULL) return NULL;
  for (int32_t k = 0; k < K; ++k)
    for (int32_t v = 0; v < V; ++v)
      phi[(size_t)k * V + v] = ((double)m->n_vk[(size_t)v * K + k] + m->beta) / ((double)m->n_k[k] + V * m->beta);
  return phi;
}

/* Prints the n most probable words of row `row` of a K x V phi. */
static void print_top_words(const double *phi_row, int32_t V, char *const *vocab, int n) {
  char *used = calloc((size_t)V, 1);
  for (int i = 0; i < n && used != NULL; ++i) {
    int32_t best = -1;
    for (int32_t v = 0; v < V; ++v)
      if (!used[v] && (best < 0 || phi_row[v] > phi_row[best])) best = v;
    if (best < 0) break;
    used[best] = 1;
    printf(" %s", vocab ? vocab[best] : "?");
  }
  free(used);
}

/* Greedy one-to-one matching of planted to learned topics by cosine similarity, printed as a table. */
static void report_demo_match(const sk_lda_model *m, const float *planted, char *const *vocab) {
  const int32_t K = m->num_topics, V = m->num_words;
  double *learned = learned_phi(m), *truth = malloc(sizeof(double) * (size_t)K * V);
  double *sim = malloc(sizeof(double) * (size_t)K * K);
  int32_t *match = malloc(sizeof(int32_t) * K);
  char *taken_p = calloc((size_t)K, 1), *taken_l = calloc((size_t)K, 1);
  if (!learned || !truth || !sim || !match || !taken_p || !taken_l) {
    fprintf(stderr, "sk-lda train --demo: out of memory for the report\n");
  } else {
    for (size_t i = 0; i < (size_t)K * V; ++i) truth[i] = planted[i];
    for (int32_t p = 0; p < K; ++p)
      for (int32_t l = 0; l < K; ++l) sim[p * K + l] = topic_cosine(truth + (size_t)p * V, learned + (size_t)l * V, V);
    for (int32_t step = 0; step < K; ++step) {  // best remaining pair first
      int32_t bp = -1, bl = -1;
      for (int32_t p = 0; p < K; ++p)
        for (int32_t l = 0; l < K; ++l)
          if (!taken_p[p] && !taken_l[l] && (bp < 0 || sim[p * K + l] > sim[bp * K + bl])) bp = p, bl = l;
      taken_p[bp] = taken_l[bl] = 1;
      match[bp] = bl;
    }
    double sum = 0, worst = 1;
    int good = 0;
    printf("\nplanted topic -> best-matching learned topic (cosine similarity of the word distributions)\n");
    for (int32_t p = 0; p < K; ++p) {
      const double c = sim[p * K + match[p]];
      sum += c, worst = c < worst ? c : worst, good += c > 0.9;
      printf("  planted %2d:", p);
      print_top_words(truth + (size_t)p * V, V, vocab, 6);
      printf("\n  learned %2d:", match[p]);
      print_top_words(learned + (size_t)match[p] * V, V, vocab, 6);
      printf("   cosine %.3f\n", c);
    }
    printf("\n%d of %d planted topics recovered with cosine > 0.9; mean cosine %.3f, worst %.3f\n", good, K,
           sum / K, worst);
  }
  free(learned), free(truth), free(sim), free(match), free(taken_p), free(taken_l);
}

static int read_training_corpus(const train_options *o, sk_lda_corpus *c, sk_lda_error *err) {
  if (o->docword) return sk_lda_read_uci(o->docword, o->vocab, c, err);
  if (o->ldac) return sk_lda_read_ldac(o->ldac, o->vocab, c, err);
  return sk_lda_read_text(o->text, o->stopwords, o->min_count, c, err);
}

/* The results of a finished run in --out: metrics row of the last sweep, topics.txt, model.skl,
   theta.txt and (--save-z) z.bin. Each file is written whole or not at all (temporary name + rename). */
static int write_outputs(const train_options *o, const sk_lda_corpus *corpus, const sk_lda_model *m,
                         const sk_lda_split *split, double ll, double heldout, double tps, double seconds,
                         sk_lda_metrics_log *log) {
  sk_lda_error err;
  char path[4096];
  int rc = sk_lda_metrics_log_row(log, (uint64_t)o->iters, seconds, tps, ll, heldout, &err);
  if (rc == 0) {
    snprintf(path, sizeof path, "%s/topics.txt", o->out);
    rc = sk_lda_write_topics(path, m->n_vk, m->n_k, m->num_words, m->num_topics, m->beta, corpus->vocab,
                             (int)o->top_words, &err);
  }
  if (rc == 0) {
    snprintf(path, sizeof path, "%s/model.skl", o->out);
    rc = sk_lda_model_save(path, m, corpus->vocab, (uint64_t)o->iters, &err);
  }
  if (rc == 0) {
    snprintf(path, sizeof path, "%s/theta.txt", o->out);
    rc = sk_lda_write_model_doc_topics(path, m, split->train_doc_ids, &err);
  }
  if (rc == 0 && o->save_z) {
    snprintf(path, sizeof path, "%s/z.bin", o->out);
    rc = sk_lda_z_write(path, m->z, m->num_tokens, m->num_topics, &err);
  }
  if (rc != 0) {
    fprintf(stderr, "sk-lda train: %s\n", err.message);
    return SK_LDA_EXIT_RUNTIME;
  }
  printf("wrote %s: topics.txt, model.skl, theta.txt, metrics.csv%s\n", o->out, o->save_z ? ", z.bin" : "");
  return SK_LDA_EXIT_OK;
}

/* The training loop: sweeps, a progress line on a terminal or a log line per evaluation, and the
   held-out log-likelihood at the end. */
static int run_training(const train_options *o, const sk_lda_corpus *corpus, sk_lda_model *m, sk_lda_split *split) {
  sk_lda_error err;
  uint64_t done = 0;  // sweeps already done (a resumed run)
  if (sk_lda_split_corpus(corpus, o->test_fraction, o->seed, split, &err) != 0) {
    fprintf(stderr, "sk-lda train: %s\n", err.message);
    return SK_LDA_EXIT_USAGE;
  }
  if (o->resume != NULL) {
    char model_path[4096], z_path[4096];
    snprintf(model_path, sizeof model_path, "%s/model.skl", o->resume);
    snprintf(z_path, sizeof z_path, "%s/z.bin", o->resume);
    if (sk_lda_model_resume(m, &split->train, corpus->vocab, model_path, z_path, &done, &err) != 0) {
      fprintf(stderr, "sk-lda train: --resume: %s\n", err.message);
      return SK_LDA_EXIT_USAGE;
    }
    if (m->seed != o->seed) {
      fprintf(stderr, "sk-lda train: --resume: %s was trained with --seed %llu; pass the same seed\n", model_path,
              (unsigned long long)m->seed);
      return SK_LDA_EXIT_USAGE;
    }
    if ((long long)done >= o->iters) {
      fprintf(stderr, "sk-lda train: --resume: %s has done %llu sweeps already; ask for more with --iters\n",
              model_path, (unsigned long long)done);
      return SK_LDA_EXIT_USAGE;
    }
    printf("resuming after sweep %llu of %s\n", (unsigned long long)done, o->resume);
  } else if (sk_lda_model_init(m, &split->train, (int32_t)o->topics,
                               o->alpha > 0 ? o->alpha : sk_lda_default_alpha((int32_t)o->topics), o->beta, o->seed,
                               &err) != 0) {
    fprintf(stderr, "sk-lda train: %s\n", err.message);
    return SK_LDA_EXIT_USAGE;
  }
  sk_lda_metrics_log log;
  memset(&log, 0, sizeof log);
  char path[4096];
  if (o->out != NULL) {
    if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "sk-lda train: --out %s: cannot create the folder: %s\n", o->out, strerror(errno));
      return SK_LDA_EXIT_USAGE;
    }
    snprintf(path, sizeof path, "%s/metrics.csv", o->out);
    if (sk_lda_metrics_log_open(&log, path, o->resume != NULL, &err) != 0) {
      fprintf(stderr, "sk-lda train: %s\n", err.message);
      return SK_LDA_EXIT_USAGE;
    }
  }
  const int tty = isatty(fileno(stderr));
  printf("training: %d documents (%d held out), %d words, %lld tokens, K = %d, alpha = %g, beta = %g, %s, seed %llu\n",
         split->train.num_docs, split->test_observed.num_docs, m->num_words, (long long)m->num_tokens, m->num_topics,
         m->alpha, m->beta, o->use_cgs ? "serial CGS" : "ESCA", (unsigned long long)o->seed);
  const double start = sk_lda_wall_seconds();
  double ll = NAN, last_tps = 0.0;
  int status = SK_LDA_EXIT_OK;
  for (long long it = (long long)done + 1; it <= o->iters && status == SK_LDA_EXIT_OK; ++it) {
    const double t0 = sk_lda_wall_seconds();
    const int rc = o->use_cgs ? sk_lda_cgs_sweep(m, (uint64_t)it, &err)
                              : sk_lda_esca_sweep(m, (uint64_t)it, (int)o->threads, &err);
    if (rc != 0) {
      fprintf(stderr, "\nsk-lda train: sweep %lld: %s\n", it, err.message);
      status = SK_LDA_EXIT_RUNTIME;
      break;
    }
    const double secs = sk_lda_wall_seconds() - t0;
    const int evaluate = it == 1 || it == o->iters || (o->ll_every > 0 && it % o->ll_every == 0);
    if (evaluate) ll = sk_lda_joint_ll_per_token(m);
    const double elapsed = sk_lda_wall_seconds() - start;
    const double eta = elapsed / (double)(it - (long long)done) * (double)(o->iters - it);
    // The last sweep's row waits for the held-out log-likelihood, computed below.
    if (evaluate && it < o->iters && o->out != NULL &&
        sk_lda_metrics_log_row(&log, (uint64_t)it, elapsed, sk_lda_tokens_per_second(m->num_tokens, secs), ll, NAN,
                               &err) != 0) {
      fprintf(stderr, "\nsk-lda train: %s\n", err.message);
      status = SK_LDA_EXIT_RUNTIME;
    }
    last_tps = sk_lda_tokens_per_second(m->num_tokens, secs);
    if (tty) {
      fprintf(stderr, "\riteration %lld/%lld  %.3g M tokens/s  joint LL/token %.4f  ETA %.0f s   ", it, o->iters,
              sk_lda_tokens_per_second(m->num_tokens, secs) / 1e6, ll, eta);
      if (it == o->iters) fputc('\n', stderr);
    } else if (evaluate) {
      printf("iteration %lld/%lld: %.3g M tokens/s, joint LL/token %.4f\n", it, o->iters,
             sk_lda_tokens_per_second(m->num_tokens, secs) / 1e6, ll);
    }
  }
  double heldout = NAN;
  if (status == SK_LDA_EXIT_OK && split->test_observed.num_docs > 0 &&
      sk_lda_heldout_ll(m, &split->test_observed, &split->test_heldout, SK_LDA_DEFAULT_FOLDIN_ITERS, (int)o->threads,
                        &heldout, &err) != 0) {
    fprintf(stderr, "sk-lda train: held-out log-likelihood: %s\n", err.message);
    status = SK_LDA_EXIT_RUNTIME;
  }
  if (status == SK_LDA_EXIT_OK) {
    printf("done: %lld sweeps in %.1f s; joint LL/token %.4f; held-out LL/token %.4f (%d documents); peak memory %.0f MB\n",
           o->iters - (long long)done, sk_lda_wall_seconds() - start, ll, heldout, split->test_observed.num_docs,
           (double)sk_lda_peak_rss_bytes() / 1e6);
    if (o->out != NULL) status = write_outputs(o, corpus, m, split, ll, heldout, last_tps,
                                               sk_lda_wall_seconds() - start, &log);
  }
  if (sk_lda_metrics_log_close(&log, &err) != 0 && status == SK_LDA_EXIT_OK) {
    fprintf(stderr, "sk-lda train: %s\n", err.message);
    status = SK_LDA_EXIT_RUNTIME;
  }
  return status;
}

static int cmd_train(int argc, char **argv) {
  static const struct option options[] = {
      {"docword", required_argument, 0, 'D'},  {"ldac", required_argument, 0, 'C'},
      {"text", required_argument, 0, 'T'},     {"vocab", required_argument, 0, 'v'},
      {"stopwords", required_argument, 0, 'S'}, {"min-count", required_argument, 0, 'm'},
      {"topics", required_argument, 0, 'k'},   {"iters", required_argument, 0, 'n'},
      {"alpha", required_argument, 0, 'a'},    {"beta", required_argument, 0, 'b'},
      {"sampler", required_argument, 0, 'A'},  {"seed", required_argument, 0, 's'},
      {"threads", required_argument, 0, 'j'},  {"test-fraction", required_argument, 0, 'F'},
      {"ll-every", required_argument, 0, 'e'}, {"device", required_argument, 0, 'G'},
      {"out", required_argument, 0, 'o'},      {"demo", no_argument, 0, 'Z'},
      {"top", required_argument, 0, 'W'},      {"save-z", no_argument, 0, 'Y'},
      {"resume", required_argument, 0, 'R'},   {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  train_options o = {0};
  o.top_words = SK_LDA_DEFAULT_TOP_WORDS;
  o.topics = 100, o.iters = 100, o.alpha = -1, o.beta = SK_LDA_DEFAULT_BETA, o.seed = 1;
  o.test_fraction = SK_LDA_DEFAULT_TEST_FRACTION, o.ll_every = 10;
  const char *device = "auto";
  int ok = 1, c;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "k:n:s:o:h", options, NULL)) != -1) {
    switch (c) {
      case 'D': o.docword = optarg; break;
      case 'C': o.ldac = optarg; break;
      case 'T': o.text = optarg; break;
      case 'v': o.vocab = optarg; break;
      case 'S': o.stopwords = optarg; break;
      case 'm': ok = sk_lda_parse_ll("train", "--min-count", optarg, 0, INT64_MAX, &o.min_count); break;
      case 'k': ok = sk_lda_parse_ll("train", "--topics", optarg, 1, SK_LDA_MAX_TOPICS, &o.topics); break;
      case 'n': ok = sk_lda_parse_ll("train", "--iters", optarg, 1, 1000000000, &o.iters); break;
      case 'a': ok = sk_lda_parse_double("train", "--alpha", optarg, 1e-12, 1e12, &o.alpha); break;
      case 'b': ok = sk_lda_parse_double("train", "--beta", optarg, 1e-12, 1e12, &o.beta); break;
      case 'A':
        if (strcmp(optarg, "cgs") == 0) o.use_cgs = 1;
        else if (strcmp(optarg, "esca") != 0) {
          fprintf(stderr, "sk-lda train: --sampler: '%s' is neither esca nor cgs\n", optarg);
          ok = 0;
        }
        break;
      case 's': ok = sk_lda_parse_u64("train", "--seed", optarg, &o.seed); break;
      case 'j': ok = sk_lda_parse_ll("train", "--threads", optarg, 1, 4096, &o.threads); break;
      case 'F': ok = sk_lda_parse_double("train", "--test-fraction", optarg, 0.0, 0.99, &o.test_fraction); break;
      case 'e': ok = sk_lda_parse_ll("train", "--ll-every", optarg, 0, 1000000000, &o.ll_every); break;
      case 'G': device = optarg; break;
      case 'o': o.out = optarg; break;
      case 'Z': o.demo = 1; break;
      case 'W': ok = sk_lda_parse_ll("train", "--top", optarg, 1, 1000000, &o.top_words); break;
      case 'Y': o.save_z = 1; break;
      case 'R': o.resume = optarg; break;
      case 'h': train_usage(stdout); return SK_LDA_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (ok && optind < argc) {
    fprintf(stderr, "sk-lda train: unexpected argument '%s'\n", argv[optind]);
    ok = 0;
  }
  if (ok && strcmp(device, "auto") != 0 && strcmp(device, "cpu") != 0) {
    if (strcmp(device, "gpu") == 0)
      fprintf(stderr, "sk-lda train: --device gpu: the GPU samplers are not built yet; use --device cpu or auto\n");
    else
      fprintf(stderr, "sk-lda train: --device: '%s' is not auto, cpu or gpu\n", device);
    ok = 0;
  }
  const int inputs = (o.docword != NULL) + (o.ldac != NULL) + (o.text != NULL);
  if (ok && !o.demo && inputs != 1) {
    fprintf(stderr, "sk-lda train: give exactly one of --docword, --ldac, --text (or --demo)\n");
    ok = 0;
  }
  if (ok && o.demo && inputs != 0) {
    fprintf(stderr, "sk-lda train: --demo makes its own corpus: leave out --docword, --ldac and --text\n");
    ok = 0;
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda train --help'\n");
    return SK_LDA_EXIT_USAGE;
  }

  sk_lda_error err;
  sk_lda_corpus corpus;
  memset(&corpus, 0, sizeof corpus);
  float *planted = NULL;
  if (o.demo) {
    // Small and clearly structured: 10 topics on their own tenth of a 2,000-word vocabulary.
    sk_lda_gen_params p;
    sk_lda_gen_params_default(&p);
    p.num_docs = 2000, p.num_words = 2000, p.num_topics = 10, p.mean_doc_length = 150, p.alpha = 0.1;
    p.beta = 0.01, p.topic_support = 0.1, p.seed = o.seed;
    if (sk_lda_generate(&p, &corpus, &planted, NULL, NULL, &err) != 0) {
      fprintf(stderr, "sk-lda train --demo: %s\n", err.message);
      return SK_LDA_EXIT_RUNTIME;
    }
    o.topics = p.num_topics, o.alpha = p.alpha, o.beta = p.beta;
    if (o.iters == 100) o.iters = 200;
    printf("demo: generated %d documents, %d words, %lld tokens from %d planted topics\n", corpus.num_docs,
           corpus.num_words, (long long)corpus.num_tokens, p.num_topics);
  } else {
    const double t0 = sk_lda_wall_seconds();
    if (read_training_corpus(&o, &corpus, &err) != 0) {
      fprintf(stderr, "sk-lda train: %s\n", err.message);
      return SK_LDA_EXIT_USAGE;
    }
    printf("read %d documents, %d words, %lld tokens in %.2f s\n", corpus.num_docs, corpus.num_words,
           (long long)corpus.num_tokens, sk_lda_wall_seconds() - t0);
  }
  sk_lda_model m;
  sk_lda_split split;
  memset(&m, 0, sizeof m);
  memset(&split, 0, sizeof split);
  int status = run_training(&o, &corpus, &m, &split);
  if (status == SK_LDA_EXIT_OK && o.demo) report_demo_match(&m, planted, corpus.vocab);
  sk_lda_model_free(&m);
  sk_lda_split_free(&split);
  sk_lda_corpus_free(&corpus);
  free(planted);
  return status;
}

/* --- infer ---------------------------------------------------------------------------------------- */

#include "infer.h"
#include "model_file.h"
#include "output.h"

static void infer_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda infer --model FILE (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE]\n"
          "                    --out FILE [options]\n"
          "Folds new documents into a trained model (topics fixed) by Gibbs sampling and writes their\n"
          "topic proportions, one line per document: \"doc_id k:theta_dk ...\" for the topics the\n"
          "document uses, theta_dk = (n_dk + alpha) / (n_d + K alpha); every other topic has\n"
          "alpha / (n_d + K alpha). doc_id is the 0-based document index in the input (UCI docID - 1).\n\n"
          "  -m, --model FILE       model file written by sk-lda train\n"
          "      --docword FILE     documents in UCI bag of words (.txt or .txt.gz)\n"
          "      --ldac FILE        documents in LDA-C format\n"
          "      --text FILE        plain text, one document per line (documents left empty are dropped)\n"
          "      --stopwords FILE   stop words for --text\n"
          "      --vocab FILE       vocabulary of the documents: words are matched to the model's by\n"
          "                         string; without it, word ids must be the model's own\n"
          "      --skip-unknown     drop words the model does not know instead of failing\n"
          "  -n, --iters N          fold-in Gibbs sweeps (default %d)\n"
          "  -s, --seed N           seed of the fold-in (default: the model's seed)\n"
          "      --threads N        OpenMP threads (default: all; the result does not depend on it)\n"
          "  -o, --out FILE         where the proportions go (written to FILE.tmp, then renamed)\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_FOLDIN_ITERS);
}

static int cmd_infer(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'm'},   {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'L'},    {"text", required_argument, 0, 'T'},
      {"stopwords", required_argument, 0, 'S'}, {"vocab", required_argument, 0, 'v'},
      {"skip-unknown", no_argument, 0, 'u'},  {"iters", required_argument, 0, 'n'},
      {"seed", required_argument, 0, 's'},    {"threads", required_argument, 0, 't'},
      {"out", required_argument, 0, 'o'},     {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *model = NULL, *docword = NULL, *ldac = NULL, *text = NULL, *stopwords = NULL, *vocab = NULL, *out = NULL;
  long long iters = SK_LDA_DEFAULT_FOLDIN_ITERS, threads = 0;
  uint64_t seed = 0;
  int have_seed = 0, skip_unknown = 0, ok = 1, c;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "m:n:s:o:h", options, NULL)) != -1) {
    switch (c) {
      case 'm': model = optarg; break;
      case 'D': docword = optarg; break;
      case 'L': ldac = optarg; break;
      case 'T': text = optarg; break;
      case 'S': stopwords = optarg; break;
      case 'v': vocab = optarg; break;
      case 'u': skip_unknown = 1; break;
      case 'n': ok = sk_lda_parse_ll("infer", "--iters", optarg, 0, INT_MAX, &iters); break;
      case 's': ok = sk_lda_parse_u64("infer", "--seed", optarg, &seed); have_seed = 1; break;
      case 't': ok = sk_lda_parse_ll("infer", "--threads", optarg, 1, 4096, &threads); break;
      case 'o': out = optarg; break;
      case 'h': infer_usage(stdout); return SK_LDA_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda infer --help'\n");
    return SK_LDA_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "sk-lda infer: unexpected argument '%s' (see 'sk-lda infer --help')\n", argv[optind]);
    return SK_LDA_EXIT_USAGE;
  }
  const int inputs = (docword != NULL) + (ldac != NULL) + (text != NULL);
  if (model == NULL || out == NULL || inputs != 1) {
    fprintf(stderr, "sk-lda infer: %s (see 'sk-lda infer --help')\n",
            model == NULL ? "--model FILE is required"
            : out == NULL ? "--out FILE is required"
                          : "give exactly one of --docword, --ldac, --text");
    return SK_LDA_EXIT_USAGE;
  }
  if (text != NULL && vocab != NULL) {
    fprintf(stderr, "sk-lda infer: --vocab does not apply to --text (its words are the vocabulary)\n");
    return SK_LDA_EXIT_USAGE;
  }
  sk_lda_error err;
  sk_lda_model_file mf;
  if (sk_lda_model_file_read(model, &mf, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    return SK_LDA_EXIT_USAGE;
  }
  sk_lda_corpus docs;
  memset(&docs, 0, sizeof docs);
  const char *input = docword != NULL ? docword : ldac != NULL ? ldac : text;
  int rc;
  if (docword != NULL)
    rc = sk_lda_read_uci(docword, vocab, &docs, &err);
  else if (ldac != NULL)
    rc = sk_lda_read_ldac(ldac, vocab, &docs, &err);
  else
    rc = sk_lda_read_text(text, stopwords, 0, &docs, &err);
  int64_t dropped = 0;
  if (rc == 0 && sk_lda_infer_map_words(&mf, &docs, input, docword != NULL, skip_unknown, &dropped, &err) != 0) {
    rc = 1;
    if (!skip_unknown && strstr(err.message, "not in the model") != NULL)
      snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
               " (--skip-unknown drops such words)");
  }
  if (rc != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    sk_lda_corpus_free(&docs);
    sk_lda_model_file_free(&mf);
    return SK_LDA_EXIT_USAGE;
  }
  if (dropped > 0)
    fprintf(stderr, "sk-lda infer: dropped %lld tokens of words the model does not know\n", (long long)dropped);
  sk_lda_infer_result r;
  int status = SK_LDA_EXIT_OK;
  const double t0 = sk_lda_now();
  if (sk_lda_infer(&mf, &docs, (int)iters, have_seed ? seed : mf.seed, (int)threads, &r, &err) != 0 ||
      sk_lda_write_doc_topics(out, r.num_docs, r.num_topics, r.alpha, r.row_start, r.row_nnz, r.row_topic,
                              r.row_count, NULL, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    status = SK_LDA_EXIT_RUNTIME;
  } else if (isatty(fileno(stderr))) {
    fprintf(stderr, "sk-lda infer: %d documents, %lld tokens, %lld sweeps in %.1f s -> %s\n", docs.num_docs,
            (long long)docs.num_tokens, iters, sk_lda_now() - t0, out);
  }
  sk_lda_infer_result_free(&r);
  sk_lda_corpus_free(&docs);
  sk_lda_model_file_free(&mf);
  return status;
}

/* --- eval ----------------------------------------------------------------------------------------- */

static void eval_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda eval --model FILE (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE] [options]\n"
          "Held-out log-likelihood per token of a trained model, by document completion: the corpus is split\n"
          "as sk-lda train splits it (a --test-fraction of its documents, chosen with --seed; the seed\n"
          "defaults to the model's), each test document's first half folds in its topic proportions with the\n"
          "model's topics fixed, and its second half is scored. With the training corpus, seed and test\n"
          "fraction this reproduces the held-out figure that train printed.\n\n"
          "      --model FILE       a model written by sk-lda train --out (model.skl)\n"
          "      --docword FILE     UCI bag of words; --ldac FILE: LDA-C; --text FILE: plain text\n"
          "      --vocab FILE       the corpus's vocabulary; words are matched to the model's by spelling\n"
          "      --stopwords FILE, --min-count N   as for train (--text)\n"
          "      --skip-unknown     drop words the model does not know (default: an error)\n"
          "      --test-fraction F  documents to evaluate (default %g)\n"
          "  -s, --seed N           seed of the split and the fold-in (default: the model's)\n"
          "  -n, --iters N          fold-in sweeps (default %d)\n"
          "      --threads N        CPU threads (default: all); results do not depend on it\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_TEST_FRACTION, SK_LDA_DEFAULT_FOLDIN_ITERS);
}

static int cmd_eval(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'M'},      {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'C'},       {"text", required_argument, 0, 'T'},
      {"vocab", required_argument, 0, 'v'},      {"stopwords", required_argument, 0, 'S'},
      {"min-count", required_argument, 0, 'm'},  {"skip-unknown", no_argument, 0, 'U'},
      {"test-fraction", required_argument, 0, 'F'}, {"seed", required_argument, 0, 's'},
      {"iters", required_argument, 0, 'n'},      {"threads", required_argument, 0, 'j'},
      {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
  train_options o = {0};
  o.test_fraction = SK_LDA_DEFAULT_TEST_FRACTION;
  const char *model_path = NULL;
  long long iters = SK_LDA_DEFAULT_FOLDIN_ITERS;
  int ok = 1, c, seed_given = 0, skip_unknown = 0;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "s:n:h", options, NULL)) != -1) {
    switch (c) {
      case 'M': model_path = optarg; break;
      case 'D': o.docword = optarg; break;
      case 'C': o.ldac = optarg; break;
      case 'T': o.text = optarg; break;
      case 'v': o.vocab = optarg; break;
      case 'S': o.stopwords = optarg; break;
      case 'm': ok = sk_lda_parse_ll("eval", "--min-count", optarg, 0, INT64_MAX, &o.min_count); break;
      case 'U': skip_unknown = 1; break;
      case 'F': ok = sk_lda_parse_double("eval", "--test-fraction", optarg, 1e-9, 0.99, &o.test_fraction); break;
      case 's': ok = sk_lda_parse_u64("eval", "--seed", optarg, &o.seed); seed_given = 1; break;
      case 'n': ok = sk_lda_parse_ll("eval", "--iters", optarg, 0, 1000000, &iters); break;
      case 'j': ok = sk_lda_parse_ll("eval", "--threads", optarg, 1, 4096, &o.threads); break;
      case 'h': eval_usage(stdout); return SK_LDA_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (ok && optind < argc) {
    fprintf(stderr, "sk-lda eval: unexpected argument '%s'\n", argv[optind]);
    ok = 0;
  }
  if (ok && (model_path == NULL || (o.docword != NULL) + (o.ldac != NULL) + (o.text != NULL) != 1)) {
    fprintf(stderr, "sk-lda eval: give --model and exactly one of --docword, --ldac, --text\n");
    ok = 0;
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda eval --help'\n");
    return SK_LDA_EXIT_USAGE;
  }
  sk_lda_error err;
  sk_lda_model_file mf;
  sk_lda_corpus corpus;
  sk_lda_split split;
  memset(&mf, 0, sizeof mf);
  memset(&corpus, 0, sizeof corpus);
  memset(&split, 0, sizeof split);
  int status = SK_LDA_EXIT_USAGE;
  const char *input = o.docword ? o.docword : o.ldac ? o.ldac : o.text;
  if (sk_lda_model_file_read(model_path, &mf, &err) != 0 || read_training_corpus(&o, &corpus, &err) != 0 ||
      sk_lda_infer_map_words(&mf, &corpus, input, o.docword ? 1 : 0, skip_unknown, NULL, &err) != 0 ||
      sk_lda_split_corpus(&corpus, o.test_fraction, seed_given ? o.seed : mf.seed, &split, &err) != 0) {
    fprintf(stderr, "sk-lda eval: %s\n", err.message);
  } else {
    const sk_lda_counts_view view = {mf.num_topics, mf.num_words, mf.alpha, mf.beta, mf.seed, mf.n_vk, mf.n_k};
    double ll = NAN;
    if (sk_lda_heldout_ll_counts(&view, &split.test_observed, &split.test_heldout, (int)iters, (int)o.threads, &ll,
                                 &err) != 0) {
      fprintf(stderr, "sk-lda eval: %s\n", err.message);
      status = SK_LDA_EXIT_RUNTIME;
    } else {
      printf("held-out LL/token %.4f over %d documents (%lld scored tokens), K = %d, %d fold-in sweeps\n", ll,
             split.test_observed.num_docs, (long long)split.test_heldout.num_tokens, mf.num_topics, (int)iters);
      status = SK_LDA_EXIT_OK;
    }
  }
  sk_lda_split_free(&split);
  sk_lda_corpus_free(&corpus);
  sk_lda_model_file_free(&mf);
  return status;
}

/* --- dispatch ------------------------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda COMMAND [options]   (sk-lda COMMAND --help for each)\n"
          "An LDA topic-model trainer built on samplekit %d.%d.%d.\n\n"
          "commands:\n"
          "  train    train on a corpus (CPU: serial collapsed Gibbs or ESCA); train --demo for a quick look\n"
          "  infer    fold new documents into a trained model and write their topic proportions\n"
          "  eval     held-out log-likelihood of a trained model on a corpus (document completion)\n"
          "  gen      draw a synthetic corpus with planted topics, in UCI format\n\n"
          "Exit status: 0 success, 2 bad usage or bad input, 1 failure at run time.\n",
          SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return SK_LDA_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return SK_LDA_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("sk-lda (samplekit %d.%d.%d)\n", SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
    return SK_LDA_EXIT_OK;
  }
  if (strcmp(cmd, "gen") == 0) return cmd_gen(argc - 1, argv + 1);
  if (strcmp(cmd, "infer") == 0) return cmd_infer(argc - 1, argv + 1);
  if (strcmp(cmd, "train") == 0) return cmd_train(argc - 1, argv + 1);
  if (strcmp(cmd, "eval") == 0) return cmd_eval(argc - 1, argv + 1);
  fprintf(stderr, "sk-lda: unknown command '%s' (see 'sk-lda --help')\n", cmd);
  return SK_LDA_EXIT_USAGE;
}
