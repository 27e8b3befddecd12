/* sk-lda eval: the held-out log-likelihood of a trained model, or its topics' coherence (--coherence). */

#include <getopt.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "coherence.h"
#include "infer.h"
#include "metrics.h"
#include "output.h"
#include "run.h"
#include "commands.h"
#include "sk_ex_main.h"
#include "sk_ex_clock.h"
#include "sk_ex_files.h"

/* --- eval ----------------------------------------------------------------------------------------- */

/** \brief The most top words --coherence takes: the pairs grow as N^2, and coherence is read at 5 .. 20. */
#define SK_LDA_EVAL_MAX_COHERENCE_TOP 100

static void eval_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda eval --model FILE (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE] [options]\n"
          "Held-out log-likelihood per token of a trained model, by document completion: the corpus is split\n"
          "as sk-lda train splits it (a --test-fraction of its documents, chosen with --seed; the seed\n"
          "defaults to the model's), each test document's first half folds in its topic proportions with the\n"
          "model's topics fixed, and its second half is scored. With the training corpus, seed and test\n"
          "fraction this reproduces the held-out figure that train printed.\n"
          "With --coherence N it reports instead the UMass and NPMI coherence of each topic's top N words over\n"
          "every document of the corpus (give the training corpus), by document co-occurrence: per topic\n"
          "'topic k: umass X npmi Y  words...', then the means over the topics (formulas: examples/lda/README.md).\n\n"
          "      --model FILE       a model written by sk-lda train --out (model.skl)\n"
          "      --docword FILE     UCI bag of words or a binary corpus; --ldac FILE: LDA-C; --text FILE: plain text\n"
          "      --vocab FILE       the corpus's vocabulary; words are matched to the model's by spelling\n"
          "      --stopwords FILE, --min-count N   as for train (--text)\n"
          "      --skip-unknown     drop words the model does not know (default: an error)\n"
          "      --test-fraction F  documents to evaluate (default %g)\n"
          "  -s, --seed N           seed of the split and the fold-in (default: the model's)\n"
          "  -n, --iters N          fold-in sweeps, at least 1 (default %d up to %d topics, all but the\n"
          "                         last 2 uncollapsed; %d up to %d, %d above, collapsed)\n"
          "      --coherence N      topic coherence of the top N words (2 .. %d) instead of the held-out LL;\n"
          "                         --test-fraction, --seed and --iters do not apply to it\n"
          "      --coherence-out FILE  also write the scores as CSV (topic,umass,npmi,top_words)\n"
          "      --threads N        CPU threads (default: all); results do not depend on it\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_TEST_FRACTION, SK_LDA_DEFAULT_FOLDIN_ITERS_FEW, SK_LDA_FOLDIN_UNCOLLAPSED_MAX_TOPICS,
          SK_LDA_DEFAULT_FOLDIN_ITERS, SK_LDA_FOLDIN_MANY_TOPICS, 2 * SK_LDA_DEFAULT_FOLDIN_ITERS,
          SK_LDA_EVAL_MAX_COHERENCE_TOP);
}

/* --coherence: the scores of each topic's top words over the whole corpus (coherence.h); 0, 1 or 2 as
   sk_ex_main.h's rule. The corpus already uses the model's word ids. */
static int eval_coherence(const sk_lda_model_file *mf, const sk_lda_corpus *corpus, int top_n, int threads,
                          const char *csv_path) {
  const int32_t K = mf->num_topics, V = mf->num_words, N = top_n < V ? top_n : V;
  if (N < 2 || corpus->num_docs < 1) {
    fprintf(stderr, "sk-lda eval: --coherence needs at least 2 words in the model (V = %d) and a document (D = %d)\n",
            (int)V, (int)corpus->num_docs);
    return SK_EX_EXIT_USAGE;
  }
  const size_t KN = (size_t)K * (size_t)N;
  sk_lda_top_words top;
  memset(&top, 0, sizeof top);
  int32_t *count = (int32_t *)malloc(KN * sizeof *count); /* D(w) of each top word */
  int32_t *pairs = (int32_t *)malloc((size_t)K * (size_t)SK_LDA_COHERENCE_PAIR(N, 0) * sizeof *pairs);
  double *umass = (double *)malloc((size_t)K * sizeof *umass), *npmi = (double *)malloc((size_t)K * sizeof *npmi);
  sk_ex_error err;
  int status = SK_EX_EXIT_RUNTIME;
  const double t0 = sk_ex_now();
  if (count == NULL || pairs == NULL || umass == NULL || npmi == NULL) {
    fprintf(stderr, "sk-lda eval: out of memory for the coherence of K = %d topics, N = %d\n", (int)K, (int)N);
  } else if (sk_lda_top_words_find(&top, mf->n_vk, V, K, N, &err) != 0 ||
             sk_lda_coherence_count(corpus, top.word, K, N, threads, count, pairs, &err) != 0 ||
             sk_lda_coherence_scores(corpus->num_docs, K, N, count, pairs, umass, npmi, &err) != 0) {
    fprintf(stderr, "sk-lda eval: %s\n", err.message);
  } else {
    const double seconds = sk_ex_now() - t0;
    double mean_umass = 0.0, mean_npmi = 0.0;
    size_t absent = 0;
    for (size_t s = 0; s < KN; ++s) absent += count[s] == 0;
    for (int32_t k = 0; k < K; ++k) {
      mean_umass += umass[k];
      mean_npmi += npmi[k];
      printf("topic %d: umass %.4f npmi %.4f ", (int)k, umass[k], npmi[k]);
      for (int32_t r = 0; r < N; ++r) {
        char id[16];
        printf(" %s", sk_lda_word_name(mf->vocab, top.word[(size_t)k * (size_t)N + (size_t)r], id, sizeof id));
      }
      printf("\n");
    }
    printf("coherence over %d topics (top %d words, %d documents): mean umass %.4f mean npmi %.4f (%.3f s)\n", (int)K,
           (int)N, (int)corpus->num_docs, mean_umass / K, mean_npmi / K, seconds);
    if (absent > 0)
      printf("note: %zu of the %zu top words do not occur in the corpus; their pairs score the least value "
             "(UMass log(1/D) when conditioned on, NPMI -1)\n", absent, KN);
    status = SK_EX_EXIT_OK;
    if (csv_path != NULL) {
      if (sk_lda_write_coherence_csv(csv_path, K, N, top.word, mf->vocab, umass, npmi, &err) != 0) {
        fprintf(stderr, "sk-lda eval: %s\n", err.message);
        status = SK_EX_EXIT_RUNTIME;
      } else {
        printf("wrote %s\n", csv_path);
      }
    }
  }
  sk_lda_top_words_free(&top);
  free(count);
  free(pairs);
  free(umass);
  free(npmi);
  return status;
}

int sk_lda_cmd_eval(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'M'},      {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'C'},       {"text", required_argument, 0, 'T'},
      {"vocab", required_argument, 0, 'v'},      {"stopwords", required_argument, 0, 'S'},
      {"min-count", required_argument, 0, 'm'},  {"skip-unknown", no_argument, 0, 'U'},
      {"test-fraction", required_argument, 0, 'F'}, {"seed", required_argument, 0, 's'},
      {"iters", required_argument, 0, 'n'},      {"threads", required_argument, 0, 'j'},
      {"coherence", required_argument, 0, 'c'},  {"coherence-out", required_argument, 0, 'o'},
      {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
  input_options o = {0};
  double test_fraction = SK_LDA_DEFAULT_TEST_FRACTION;
  uint64_t seed = 0;
  long long threads = 0;
  const char *model_path = NULL, *coherence_out = NULL, *heldout_option = NULL;
  long long iters = 0 /* the default for the model's K */, coherence_n = 0;
  int ok = 1, c, seed_given = 0, skip_unknown = 0;
  sk_ex_note_repeated_options("sk-lda eval", argc, argv, "s:n:h", options);
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
      case 'F':
        ok = sk_lda_parse_double("eval", "--test-fraction", optarg, 1e-9, 0.99, &test_fraction);
        heldout_option = "--test-fraction";
        break;
      case 's': ok = sk_lda_parse_u64("eval", "--seed", optarg, &seed); seed_given = 1; heldout_option = "--seed"; break;
      case 'n': ok = sk_lda_parse_ll("eval", "--iters", optarg, 1, 1000000, &iters); heldout_option = "--iters"; break;
      case 'c':
        ok = sk_lda_parse_ll("eval", "--coherence", optarg, 2, SK_LDA_EVAL_MAX_COHERENCE_TOP, &coherence_n);
        break;
      case 'o': coherence_out = optarg; break;
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
  if (ok && sk_lda_cmd_check_output_not_input("eval", "--coherence-out", coherence_out, model_path, &o) != 0) ok = 0;
  if (ok && coherence_out != NULL && coherence_n == 0) {
    fprintf(stderr, "sk-lda eval: --coherence-out applies to --coherence N only\n");
    ok = 0;
  }
  if (ok && coherence_n > 0 && heldout_option != NULL) {
    fprintf(stderr, "sk-lda eval: %s applies to the held-out LL, not to --coherence\n", heldout_option);
    ok = 0;
  }
  sk_ex_error err;
  if (ok && coherence_out != NULL && sk_ex_check_writable(coherence_out, &err) != 0) {
    fprintf(stderr, "sk-lda eval: --coherence-out: %s\n", err.message);
    ok = 0;
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda eval --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  sk_lda_model_file mf;
  sk_lda_corpus corpus;
  sk_lda_split split;
  memset(&mf, 0, sizeof mf);
  memset(&corpus, 0, sizeof corpus);
  memset(&split, 0, sizeof split);
  int status = SK_EX_EXIT_USAGE;
  const char *input = o.docword ? o.docword : o.ldac ? o.ldac : o.text;
  if (sk_lda_model_file_read(model_path, &mf, &err) != 0 ||
      sk_lda_cmd_read_model_words("eval", &o, &mf, skip_unknown, &corpus, &err) != 0 ||
      (coherence_n == 0 &&
       sk_lda_split_corpus(&corpus, test_fraction, seed_given ? seed : mf.seed, &split, &err) != 0)) {
    fprintf(stderr, "sk-lda eval: %s\n", err.message);
  } else if (coherence_n > 0) {
    status = eval_coherence(&mf, &corpus, (int)coherence_n, (int)threads, coherence_out);
  } else if (split.test_heldout.num_tokens == 0) {
    fprintf(stderr,
            "sk-lda eval: %s: no token to score: the split holds out %d of %d documents (--test-fraction %g) and "
            "their second halves are empty; raise --test-fraction or give a larger corpus\n",
            input, (int)split.test_observed.num_docs, (int)corpus.num_docs, test_fraction);
  } else {
    const sk_lda_counts_view view = {mf.num_topics, mf.num_words, mf.alpha, mf.beta, mf.seed, mf.n_vk, mf.n_k};
    if (iters == 0) iters = sk_lda_default_foldin_iters(mf.num_topics);  /* train's, for its figure */
    double ll = NAN;
    if (sk_lda_heldout_ll_priors(&view, mf.alpha_k, &split.test_observed, &split.test_heldout, (int)iters,
                                 (int)threads, &ll, &err) != 0) {
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
