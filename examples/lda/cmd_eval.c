/* sk-lda eval: the held-out log-likelihood of a trained model. */

#include <getopt.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "corpus_binary.h"
#include "infer.h"
#include "metrics.h"
#include "run.h"
#include "commands.h"

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
          "      --docword FILE     UCI bag of words or a binary corpus; --ldac FILE: LDA-C; --text FILE: plain text\n"
          "      --vocab FILE       the corpus's vocabulary; words are matched to the model's by spelling\n"
          "      --stopwords FILE, --min-count N   as for train (--text)\n"
          "      --skip-unknown     drop words the model does not know (default: an error)\n"
          "      --test-fraction F  documents to evaluate (default %g)\n"
          "  -s, --seed N           seed of the split and the fold-in (default: the model's)\n"
          "  -n, --iters N          fold-in sweeps, at least 1 (default %d)\n"
          "      --threads N        CPU threads (default: all); results do not depend on it\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_TEST_FRACTION, SK_LDA_DEFAULT_FOLDIN_ITERS);
}

int sk_lda_cmd_eval(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'M'},      {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'C'},       {"text", required_argument, 0, 'T'},
      {"vocab", required_argument, 0, 'v'},      {"stopwords", required_argument, 0, 'S'},
      {"min-count", required_argument, 0, 'm'},  {"skip-unknown", no_argument, 0, 'U'},
      {"test-fraction", required_argument, 0, 'F'}, {"seed", required_argument, 0, 's'},
      {"iters", required_argument, 0, 'n'},      {"threads", required_argument, 0, 'j'},
      {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
  input_options o = {0};
  double test_fraction = SK_LDA_DEFAULT_TEST_FRACTION;
  uint64_t seed = 0;
  long long threads = 0;
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
      case 'F': ok = sk_lda_parse_double("eval", "--test-fraction", optarg, 1e-9, 0.99, &test_fraction); break;
      case 's': ok = sk_lda_parse_u64("eval", "--seed", optarg, &seed); seed_given = 1; break;
      case 'n': ok = sk_lda_parse_ll("eval", "--iters", optarg, 1, 1000000, &iters); break;
      case 'j': ok = sk_lda_parse_ll("eval", "--threads", optarg, 1, 4096, &threads); break;
      case 'h': eval_usage(stdout); return SK_EX_EXIT_OK;
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
  if (ok && sk_lda_cmd_check_input("eval", &o) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "see 'sk-lda eval --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  sk_ex_error err;
  sk_lda_model_file mf;
  sk_lda_corpus corpus;
  sk_lda_split split;
  memset(&mf, 0, sizeof mf);
  memset(&corpus, 0, sizeof corpus);
  memset(&split, 0, sizeof split);
  int status = SK_EX_EXIT_USAGE;
  const char *input = o.docword ? o.docword : o.ldac ? o.ldac : o.text;
  if (sk_lda_model_file_read(model_path, &mf, &err) != 0 || sk_lda_cmd_read_corpus(&o, &corpus, &err) != 0 ||
      sk_lda_infer_map_words(&mf, &corpus, input, o.docword && !sk_lda_is_binary_corpus(o.docword), skip_unknown,
                             NULL, &err) != 0 ||
      sk_lda_split_corpus(&corpus, test_fraction, seed_given ? seed : mf.seed, &split, &err) != 0) {
    fprintf(stderr, "sk-lda eval: %s\n", err.message);
  } else if (split.test_heldout.num_tokens == 0) {
    fprintf(stderr,
            "sk-lda eval: %s: no token to score: the split holds out %d of %d documents (--test-fraction %g) and "
            "their second halves are empty; raise --test-fraction or give a larger corpus\n",
            input, (int)split.test_observed.num_docs, (int)corpus.num_docs, test_fraction);
  } else {
    const sk_lda_counts_view view = {mf.num_topics, mf.num_words, mf.alpha, mf.beta, mf.seed, mf.n_vk, mf.n_k};
    double ll = NAN;
    if (sk_lda_heldout_ll_counts(&view, &split.test_observed, &split.test_heldout, (int)iters, (int)threads, &ll,
                                 &err) != 0) {
      fprintf(stderr, "sk-lda eval: %s\n", err.message);
      status = SK_EX_EXIT_RUNTIME;
    } else {
      printf("held-out LL/token %.4f (perplexity %.1f) over %d documents (%lld scored tokens), K = %d, %d fold-in "
             "sweeps\n",
             ll, exp(-ll), split.test_observed.num_docs, (long long)split.test_heldout.num_tokens, mf.num_topics,
             (int)iters);
      status = SK_EX_EXIT_OK;
    }
  }
  sk_lda_split_free(&split);
  sk_lda_corpus_free(&corpus);
  sk_lda_model_file_free(&mf);
  return status;
}
