/*
 * lda_host_prep: the host's share of starting an sk-lda training run, step by step: reading the corpus
 * (any format sk-lda reads; a binary corpus at disk speed), then what `sk-lda train` does before it
 * creates its sampler (run.c: the train/test split, the training corpus's fingerprint for checkpoints,
 * sk_lda_model_init: the seeded topics, the document-topic rows and the word-topic counts), and the
 * PDOW plan that the GPU ESCA sampler builds before it starts (pdow_plan.h: its count, then its build, on
 * the training corpus, one chunk, --item-tokens tokens an item; the best of --plan-runs builds, as the
 * plan is deterministic and the first build pays the page faults). Prints the seconds of each step, the
 * bytes each part holds and per token, and the peak resident memory.
 *
 *   lda_host_prep --docword FILE [--vocab FILE] [-k K] [--threads N] [--test-fraction F] [--seed S]
 *                 [--item-tokens I] [--plan-runs R] [--check]
 *
 * --check also builds the model with one thread and compares every array with the threaded model's
 * (the results must be the same bits for any thread count), and exits 1 when they differ.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "checkpoint.h"
#include "cli.h"
#include "corpus_read.h"
#include "metrics.h"
#include "model.h"
#include "pdow_plan.h"
#include "split.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: lda_host_prep --docword FILE [--vocab FILE] [-k K] [--threads N] [--test-fraction F]\n"
          "                     [--seed S] [--item-tokens I] [--plan-runs R] [--check]\n"
          "Times reading a corpus and what sk-lda train does on the host before its sampler starts (split,\n"
          "fingerprint, model init, the GPU ESCA sampler's PDOW plan: its count and the best of R builds,\n"
          "items of I tokens; R = 0 skips it), with the bytes held and the peak resident memory.\n");
}

int main(int argc, char **argv) {
  static const struct option options[] = {
      {"docword", required_argument, 0, 'D'}, {"vocab", required_argument, 0, 'v'},
      {"topics", required_argument, 0, 'k'},  {"threads", required_argument, 0, 'j'},
      {"test-fraction", required_argument, 0, 'F'}, {"seed", required_argument, 0, 's'},
      {"check", no_argument, 0, 'c'},         {"help", no_argument, 0, 'h'},
      {"item-tokens", required_argument, 0, 'I'}, {"plan-runs", required_argument, 0, 'R'},
      {0, 0, 0, 0}};
  const char *docword = NULL, *vocab = NULL;
  int32_t K = 10000;
  int threads = 0, check = 0, c, plan_runs = 5;
  int32_t item_tokens = 512;
  double test_fraction = SK_LDA_DEFAULT_TEST_FRACTION;
  uint64_t seed = 1;
  static const char kCmd[] = "lda_host_prep";
  long long v = 0;
  /* Every number is checked whole and in range (sk-lda's parsers, which name the option): a typo is an
     error, exit 2, not a silent 0. */
  while ((c = getopt_long(argc, argv, "k:s:h", options, NULL)) != -1) {
    int ok = 1;
    switch (c) {
      case 'D': docword = optarg; break;
      case 'v': vocab = optarg; break;
      case 'k':
        ok = sk_lda_parse_ll(kCmd, "--topics", optarg, 1, SK_LDA_MAX_TOPICS, &v);
        K = (int32_t)v;
        break;
      case 'j':
        ok = sk_lda_parse_ll(kCmd, "--threads", optarg, 0, 4096, &v);
        threads = (int)v;
        break;
      case 'F': ok = sk_lda_parse_double(kCmd, "--test-fraction", optarg, 0.0, 0.99, &test_fraction); break;
      case 's': ok = sk_lda_parse_u64(kCmd, "--seed", optarg, &seed); break;
      case 'c': check = 1; break;
      case 'I':
        ok = sk_lda_parse_ll(kCmd, "--item-tokens", optarg, 1, 1 << 20, &v);
        item_tokens = (int32_t)v;
        break;
      case 'R':
        ok = sk_lda_parse_ll(kCmd, "--plan-runs", optarg, 0, 1000, &v);
        plan_runs = (int)v;
        break;
      case 'h': usage(stdout); return 0;
      default: usage(stderr); return 2;
    }
    if (!ok) return 2;
  }
  if (optind < argc) {
    fprintf(stderr, "lda_host_prep: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return 2;
  }
  if (docword == NULL) {
    fprintf(stderr, "lda_host_prep: --docword FILE is required\n");
    usage(stderr);
    return 2;
  }
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads(threads);
  threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  sk_ex_error err;
  sk_lda_corpus corpus;
  sk_lda_split split;
  sk_lda_model m;
  memset(&split, 0, sizeof split);
  memset(&m, 0, sizeof m);
  double t0 = sk_ex_now();
  if (sk_lda_read_uci(docword, vocab, &corpus, &err) != 0) {
    fprintf(stderr, "lda_host_prep: %s\n", err.message);
    return 2;
  }
  const double t_read = sk_ex_now() - t0;
  const int64_t rss_read = sk_lda_peak_rss_bytes();
  t0 = sk_ex_now();
  if (sk_lda_split_corpus(&corpus, test_fraction, seed, &split, &err) != 0) {
    fprintf(stderr, "lda_host_prep: %s\n", err.message);
    return 1;
  }
  const double t_split = sk_ex_now() - t0;
  t0 = sk_ex_now();
  const uint32_t fingerprint = sk_lda_corpus_fingerprint(&split.train);
  const double t_fp = sk_ex_now() - t0;
  t0 = sk_ex_now();
  if (sk_lda_model_init(&m, &split.train, K, sk_lda_default_alpha(K), SK_LDA_DEFAULT_BETA, seed, &err) != 0) {
    fprintf(stderr, "lda_host_prep: %s\n", err.message);
    return 1;
  }
  const double t_init = sk_ex_now() - t0;
  const int64_t rss = sk_lda_peak_rss_bytes();
  const double T = (double)corpus.num_tokens;
  const double corpus_b = 8.0 * ((double)corpus.num_docs + 1.0) + 4.0 * T;
  const double split_b = 8.0 * ((double)corpus.num_docs + 3.0) + 4.0 * T + 4.0 * (double)corpus.num_docs;
  const double z_b = 4.0 * (double)m.num_tokens;
  const double rows_b = 8.0 * (double)m.dk_start[m.num_docs] + 12.0 * ((double)m.num_docs + 1.0);
  const double vk_b = 4.0 * (double)m.num_words * (double)m.num_topics + 8.0 * (double)m.num_topics;
  printf("corpus: D = %d, V = %d, T = %lld; K = %d; %d threads; fingerprint %08x\n", corpus.num_docs,
         corpus.num_words, (long long)corpus.num_tokens, (int)K, threads, (unsigned)fingerprint);
  printf("seconds: read %.3f, split %.3f, fingerprint %.3f, model init %.3f; read to model %.3f\n", t_read, t_split,
         t_fp, t_init, t_read + t_split + t_fp + t_init);
  printf("bytes (per token of the corpus): corpus %.3g (%.2f), split %.3g (%.2f), z %.3g (%.2f), document-topic "
         "rows %.3g (%.2f), word-topic counts V x K %.3g (%.2f)\n",
         corpus_b, corpus_b / T, split_b, split_b / T, z_b, z_b / T, rows_b, rows_b / T, vk_b, vk_b / T);
  printf("peak resident: %.3g bytes after the read (%.2f per token), %.3g after the model init (%.2f per token; "
         "%.2f per token without V x K)\n",
         (double)rss_read, (double)rss_read / T, (double)rss, (double)rss / T, ((double)rss - vk_b) / T);
  int status = 0;
  if (plan_runs > 0) {
    int32_t groups = 0, items = 0;
    t0 = sk_ex_now();
    if (sk_lda_pdow_plan_count(&split.train, 0, item_tokens, &groups, &items, &err) != 0) {
      fprintf(stderr, "lda_host_prep: %s\n", err.message);
      return 1;
    }
    const double t_count = sk_ex_now() - t0;
    double best = 0.0, first = 0.0;
    for (int r = 0; r < plan_runs; ++r) {
      sk_lda_pdow_plan plan;
      t0 = sk_ex_now();
      if (sk_lda_pdow_plan_build(&split.train, 0, item_tokens, &plan, &err) != 0) {
        fprintf(stderr, "lda_host_prep: %s\n", err.message);
        return 1;
      }
      const double t = sk_ex_now() - t0;
      if (r == 0) first = t;
      if (r == 0 || t < best) best = t;
      if (plan.num_groups != groups || plan.num_items != items) {
        fprintf(stderr, "lda_host_prep: the PDOW plan has %d groups and %d items, its count %d and %d\n",
                (int)plan.num_groups, (int)plan.num_items, (int)groups, (int)items);
        status = 1;
      }
      sk_lda_pdow_plan_free(&plan);
    }
    printf("PDOW plan (one chunk, items of at most %d tokens): %d groups, %d items; seconds: count %.4f, build %.4f "
           "(the first of %d builds %.4f)\n",
           (int)item_tokens, (int)groups, (int)items, t_count, best, plan_runs, first);
  }
  if (check) {
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    sk_lda_model one;
    t0 = sk_ex_now();
    if (sk_lda_model_init(&one, &split.train, K, sk_lda_default_alpha(K), SK_LDA_DEFAULT_BETA, seed, &err) != 0) {
      fprintf(stderr, "lda_host_prep: %s\n", err.message);
      return 1;
    }
    const double t_one = sk_ex_now() - t0;
    const int same = sk_lda_model_same_bits(&m, &one) && sk_lda_corpus_fingerprint(&split.train) == fingerprint;
    printf("check: model init with 1 thread %.3f s; %s\n", t_one,
           same ? "the same bits as with the threads above" : "DIFFERENT from the threaded model");
    if (!same) status = 1;
    sk_lda_model_free(&one);
  }
  sk_lda_model_free(&m);
  sk_lda_split_free(&split);
  sk_lda_corpus_free(&corpus);
  return status;
}
