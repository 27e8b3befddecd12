/* sk-lda gen: a synthetic corpus with planted topics (gen.h). */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gen.h"
#include "metrics.h"
#include "output.h"
#include "sk_ex_memory.h"
#include "run.h"
#include "commands.h"
#include "sk_ex_main.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* --- gen ------------------------------------------------------------------------------------------ */

static void gen_usage(FILE *f) {
  sk_lda_gen_params d;
  sk_lda_gen_params_default(&d);
  fprintf(f,
          "usage: sk-lda gen --out DIR [options]\n"
          "Draws a corpus from the LDA generative process with planted topics and writes it in UCI format\n"
          "(DIR/docword.NAME.txt, DIR/vocab.NAME.txt), or with --binary as a binary corpus\n"
          "(DIR/docword.NAME.bin, DIR/vocab.NAME.txt), with the planted topics beside it\n"
          "(DIR/topics.NAME.planted.txt, DIR/phi.NAME.planted.f32, DIR/theta.NAME.planted.f32).\n"
          "The output is a pure function of the options, the same bits for any --threads\n"
          "(see examples/lda/src/gen.h).\n\n"
          "  -o, --out DIR          folder to write into (created with its parents)\n"
          "      --name NAME        file name part (default synthetic; letters, digits, '.', '-', '_')\n"
          "      --overwrite        replace the files of an earlier gen of the same NAME in DIR (without\n"
          "                         it, DIR holding any of them is refused, exit 2)\n"
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
          "      --binary           write the corpus as an sk-lda binary corpus, docword.NAME.bin, instead of\n"
          "                         UCI text: read at disk speed by every command's --docword (recognised by\n"
          "                         its first bytes), 8 bytes per document and 4 per token, little-endian,\n"
          "                         CRC-32 checked (layout in examples/lda/src/corpus_binary.h)\n"
          "      --threads N        CPU threads of the drawing and the writing (default: all); the output\n"
          "                         does not depend on it\n"
          "  -h, --help             this text\n",
          d.num_docs, d.num_words, d.num_topics, d.mean_doc_length, d.doc_length_cv, d.alpha, d.beta,
          d.zipf_exponent, d.topic_support, (unsigned long long)d.seed);
}

/* The characters of a corpus NAME (it becomes part of file names). */
static const char kNameChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";

int sk_lda_cmd_gen(int argc, char **argv) {
  static const struct option options[] = {
      {"out", required_argument, 0, 'o'},        {"name", required_argument, 0, 'N'},
      {"docs", required_argument, 0, 'd'},       {"words", required_argument, 0, 'V'},
      {"topics", required_argument, 0, 'k'},     {"mean-length", required_argument, 0, 'L'},
      {"length-cv", required_argument, 0, 'c'},  {"alpha", required_argument, 0, 'a'},
      {"beta", required_argument, 0, 'b'},       {"zipf", required_argument, 0, 'z'},
      {"support", required_argument, 0, 'f'},    {"seed", required_argument, 0, 's'},
      {"top", required_argument, 0, 't'},        {"help", no_argument, 0, 'h'},
      {"binary", no_argument, 0, 'B'},           {"threads", required_argument, 0, 'j'},
      {"overwrite", no_argument, 0, 'O'},        {0, 0, 0, 0}};
  sk_lda_gen_params p;
  sk_lda_gen_params_default(&p);
  const char *out = NULL, *name = "synthetic";
  long long top = 20;
  int ok = 1, c, binary = 0, overwrite = 0;
  sk_ex_note_repeated_options("sk-lda gen", argc, argv, "o:d:V:k:L:a:b:s:h", options);
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
      case 'B': binary = 1; break;
      case 'O': overwrite = 1; break;
      case 'j': ok = sk_lda_parse_ll("gen", "--threads", optarg, 1, 4096, &v); p.threads = (int)v; break;
      case 'h': gen_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda gen --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "sk-lda gen: unexpected argument '%s' (see 'sk-lda gen --help')\n", argv[optind]);
    return SK_EX_EXIT_USAGE;
  }
  if (out == NULL) {
    fprintf(stderr, "sk-lda gen: --out DIR is required (see 'sk-lda gen --help')\n");
    return SK_EX_EXIT_USAGE;
  }
  sk_ex_error err;
  if (sk_lda_gen_validate(&p, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  /* The memory before the work: parameters that cannot fit are the user's (exit 2), refused at once. */
  {
    char why[160];
    if (sk_ex_host_memory_refuses(sk_lda_gen_host_bytes(&p, 1, 1, 0), why, sizeof why)) {
      fprintf(stderr,
              "sk-lda gen: --docs %d --words %d --topics %d --mean-length %g (the corpus, phi K x V and theta D x K) "
              "need about %s\n",
              p.num_docs, p.num_words, p.num_topics, p.mean_doc_length, why);
      return SK_EX_EXIT_USAGE;
    }
  }
  /* NAME becomes part of file names: no separators, nothing hidden or empty. */
  if (name[0] == '\0' || name[0] == '.' || strlen(name) > 200 || name[strspn(name, kNameChars)] != '\0') {
    fprintf(stderr, "sk-lda gen: --name '%s': give 1 to 200 letters, digits, '.', '-' or '_', not starting with '.'\n",
            name);
    return SK_EX_EXIT_USAGE;
  }
  /* The folder before the work: an output path that cannot be written is the user's (exit 2), and so are
     files already there (another corpus of this NAME, or someone's own), unless --overwrite. */
  char files[5][256];
  snprintf(files[0], sizeof files[0], "docword.%s.%s", name, binary ? "bin" : "txt");
  snprintf(files[1], sizeof files[1], "vocab.%s.txt", name);
  snprintf(files[2], sizeof files[2], "topics.%s.planted.txt", name);
  snprintf(files[3], sizeof files[3], "phi.%s.planted.f32", name);
  snprintf(files[4], sizeof files[4], "theta.%s.planted.f32", name);
  const char *const outputs[] = {files[0], files[1], files[2], files[3], files[4], NULL};
  if (sk_ex_check_output_dir(out, outputs, &err) != 0 ||
      sk_ex_prepare_outputs(out, outputs, NULL, overwrite, &err) != 0) {
    fprintf(stderr, "sk-lda gen: --out: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }

#ifdef _OPENMP
  if (p.threads > 0) omp_set_num_threads(p.threads); /* the writers' threads too */
#endif
  const int tty = isatty(fileno(stderr));
  const double t0 = sk_ex_now();
  if (tty) fprintf(stderr, "generating %d documents of %g tokens on average ...\n", p.num_docs, p.mean_doc_length);
  sk_lda_corpus corpus;
  float *phi = NULL, *theta = NULL;
  if (sk_lda_generate(&p, &corpus, &phi, &theta, NULL, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    return SK_EX_EXIT_RUNTIME;
  }
  const double t1 = sk_ex_now();
  if (tty) fprintf(stderr, "writing %lld tokens to %s ...\n", (long long)corpus.num_tokens, out);
  int status = SK_EX_EXIT_OK;
  const int written = binary ? sk_lda_write_binary_files(&corpus, out, name, &err)
                             : sk_lda_write_uci(&corpus, out, name, &err);
  const double t2 = sk_ex_now();
  if (written != 0 || sk_lda_write_planted(&p, corpus.vocab, phi, theta, (int)top, out, name, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    printf("wrote %s/docword.%s.%s: %d documents, %d words, %lld tokens (generated in %.1f s, corpus written in "
           "%.1f s, planted topics in %.1f s)\n",
           out, name, binary ? "bin" : "txt", corpus.num_docs, corpus.num_words, (long long)corpus.num_tokens,
           t1 - t0, t2 - t1, sk_ex_now() - t2);
  }
  sk_lda_corpus_free(&corpus);
  free(phi);
  free(theta);
  return status;
}
