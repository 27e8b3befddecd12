/* sk-lda infer: new documents folded into a trained model. */

#include <getopt.h>
#include <stdio.h>
#include <limits.h>
#include <string.h>

#include "cli.h"
#include "infer.h"
#include "metrics.h"
#include "output.h"
#include "run.h"
#include "commands.h"
#include "sk_ex_main.h"

static void infer_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda infer --model FILE (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE]\n"
          "                    --out FILE [options]\n"
          "Folds new documents into a trained model (topics fixed) by Gibbs sampling and writes their\n"
          "topic proportions, one line per document: \"doc_id k:theta_dk ...\" for the topics the\n"
          "document uses, theta_dk = (n_dk + alpha_k) / (n_d + sum alpha); every other topic has\n"
          "alpha_k / (n_d + sum alpha) (alpha_k = alpha unless the model learnt its priors). doc_id is the\n"
          "0-based document index in the input (UCI docID - 1).\n\n"
          "  -m, --model FILE       model file written by sk-lda train\n"
          "      --docword FILE     documents in UCI bag of words (.txt or .txt.gz) or a binary corpus\n"
          "      --ldac FILE        documents in LDA-C format\n"
          "      --text FILE        plain text, one document per line (documents left empty are dropped)\n"
          "      --stopwords FILE   stop words for --text\n"
          "      --vocab FILE       vocabulary of the documents: words are matched to the model's by\n"
          "                         string; without it, word ids must be the model's own\n"
          "      --skip-unknown     drop words the model does not know instead of failing\n"
          "  -n, --iters N          fold-in sweeps, at least 1 (default %d up to %d topics, all but the\n"
          "                         last 2 uncollapsed; %d up to %d, %d above, collapsed Gibbs)\n"
          "  -s, --seed N           seed of the fold-in (default: the model's seed)\n"
          "      --threads N        OpenMP threads (default: all; the result does not depend on it)\n"
          "  -o, --out FILE         where the proportions go (written to FILE.tmp, then renamed)\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_FOLDIN_ITERS_FEW, SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS, SK_LDA_DEFAULT_FOLDIN_ITERS,
          SK_LDA_FOLDIN_MANY_TOPICS, 2 * SK_LDA_DEFAULT_FOLDIN_ITERS);
}

int sk_lda_cmd_infer(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'm'},   {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'L'},    {"text", required_argument, 0, 'T'},
      {"stopwords", required_argument, 0, 'S'}, {"vocab", required_argument, 0, 'v'},
      {"skip-unknown", no_argument, 0, 'u'},  {"iters", required_argument, 0, 'n'},
      {"seed", required_argument, 0, 's'},    {"threads", required_argument, 0, 't'},
      {"out", required_argument, 0, 'o'},     {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *model = NULL, *docword = NULL, *ldac = NULL, *text = NULL, *stopwords = NULL, *vocab = NULL, *out = NULL;
  long long iters = 0 /* the default for the model's K */, threads = 0;
  uint64_t seed = 0;
  int have_seed = 0, skip_unknown = 0, ok = 1, c;
  sk_ex_note_repeated_options("sk-lda infer", argc, argv, "m:n:s:o:h", options);
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
      case 'n': ok = sk_lda_parse_ll("infer", "--iters", optarg, 1, INT_MAX, &iters); break;
      case 's': ok = sk_lda_parse_u64("infer", "--seed", optarg, &seed); have_seed = 1; break;
      case 't': ok = sk_lda_parse_ll("infer", "--threads", optarg, 1, 4096, &threads); break;
      case 'o': out = optarg; break;
      case 'h': infer_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda infer --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "sk-lda infer: unexpected argument '%s' (see 'sk-lda infer --help')\n", argv[optind]);
    return SK_EX_EXIT_USAGE;
  }
  const int inputs = (docword != NULL) + (ldac != NULL) + (text != NULL);
  if (model == NULL || out == NULL || inputs != 1) {
    fprintf(stderr, "sk-lda infer: %s (see 'sk-lda infer --help')\n",
            model == NULL ? "--model FILE is required"
            : out == NULL ? "--out FILE is required"
                          : "give exactly one of --docword, --ldac, --text");
    return SK_EX_EXIT_USAGE;
  }
  const input_options in = {docword, ldac, text, vocab, stopwords, 0};
  if (sk_lda_cmd_check_input("infer", &in) != 0 || sk_lda_cmd_check_output_not_input("infer", "--out", out, model, &in))
    return SK_EX_EXIT_USAGE;
  sk_ex_error err;
  if (sk_ex_check_writable(out, &err) != 0) {
    fprintf(stderr, "sk-lda infer: --out: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  sk_lda_model_file mf;
  if (sk_lda_model_file_read(model, &mf, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  if (iters == 0) iters = sk_lda_default_foldin_iters(mf.num_topics);
  sk_lda_corpus docs;
  if (sk_lda_cmd_read_model_words("infer", &in, &mf, skip_unknown, &docs, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    sk_lda_model_file_free(&mf);
    return SK_EX_EXIT_USAGE;
  }
  sk_lda_infer_result r;
  int status = SK_EX_EXIT_OK;
  const double t0 = sk_ex_now();
  if (sk_lda_infer(&mf, &docs, (int)iters, have_seed ? seed : mf.seed, (int)threads, &r, &err) != 0 ||
      sk_lda_write_doc_topics_priors(out, r.num_docs, r.num_topics, r.alpha, r.alpha_k, r.row_start, r.row_nnz,
                                     r.row_topic, r.row_count, docs.doc_ids, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    printf("infer: %d documents, %lld tokens, K = %d, %lld fold-in sweeps in %.1f s -> %s\n", docs.num_docs,
           (long long)docs.num_tokens, (int)mf.num_topics, iters, sk_ex_now() - t0, out);
  }
  sk_lda_infer_result_free(&r);
  sk_lda_corpus_free(&docs);
  sk_lda_model_file_free(&mf);
  return status;
}
