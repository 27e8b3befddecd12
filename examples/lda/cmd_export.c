/* sk-lda export: a saved model's topic-word distributions as files other tools load (phi.npy, vocab.txt). */

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "model_file.h"
#include "phi.h"
#include "sk_ex_files.h"
#include "sk_ex_main.h"

static void export_usage(FILE *f) {
  fputs("usage: sk-lda export MODEL --out DIR\n"
        "Writes the topics of a model written by sk-lda train (model.skl) as files other tools load:\n"
        "  DIR/phi.npy    a NumPy array (.npy format 1.0), float32, shape (K, V), C order: row k is topic\n"
        "                 k's distribution over the words, phi[k][v] = (n_vk + beta) / (n_k + V beta)\n"
        "                 (numpy.load(\"DIR/phi.npy\"); each row sums to 1 up to float32 rounding); the\n"
        "                 same file as train --out writes beside model.skl\n"
        "  DIR/vocab.txt  the model's words, one per line: line v + 1 is column v of phi (only when the\n"
        "                 model has a vocabulary, i.e. it was trained with --vocab or on --text)\n"
        "Each file is written under a temporary name and renamed: no reader sees half a file.\n\n"
        "  -o, --out DIR          the folder, created with its parents; refused (exit 2) when the files\n"
        "                         cannot be written there, or when DIR already holds phi.npy or vocab.txt\n"
        "      --overwrite        replace DIR's phi.npy and vocab.txt (a vocab.txt is removed when the\n"
        "                         model has no vocabulary, so that no other model's words stay beside phi)\n"
        "  -h, --help             this text\n",
        f);
}

/* vocab.txt's contents: the words, one per line. */
static int vocab_body(FILE *f, const void *p) {
  const sk_lda_model_file *mf = (const sk_lda_model_file *)p;
  for (int32_t v = 0; v < mf->num_words; ++v)
    if (fputs(mf->vocab[v], f) == EOF || fputc('\n', f) == EOF) return 1;
  return 0;
}

int sk_lda_cmd_export(int argc, char **argv) {
  static const struct option options[] = {
      {"out", required_argument, 0, 'o'}, {"overwrite", no_argument, 0, 'O'}, {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *out = NULL;
  int ok = 1, c, overwrite = 0;
  sk_ex_note_repeated_options("sk-lda export", argc, argv, "o:h", options);
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
    switch (c) {
      case 'o': out = optarg; break;
      case 'O': overwrite = 1; break;
      case 'h': export_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda export --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (argc - optind != 1 || out == NULL) {
    fprintf(stderr, "sk-lda export: %s (see 'sk-lda export --help')\n",
            optind >= argc ? "give the model file (MODEL)"
            : out == NULL  ? "--out DIR is required"
                           : "give one model file only");
    return SK_EX_EXIT_USAGE;
  }
  const char *model = argv[optind];
  sk_ex_error err;
  sk_lda_model_file mf;
  if (sk_lda_model_file_read(model, &mf, &err) != 0) {
    fprintf(stderr, "sk-lda export: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  /* vocab.txt holds a word per line, so a word with a line break (the model file allows any byte but
     NUL) cannot be written there. */
  for (int32_t v = 0; mf.vocab != NULL && v < mf.num_words; ++v)
    if (strpbrk(mf.vocab[v], "\r\n") != NULL) {
      fprintf(stderr, "sk-lda export: %s: word %d holds a line break, which vocab.txt (a word per line) cannot\n",
              model, (int)v);
      sk_lda_model_file_free(&mf);
      return SK_EX_EXIT_USAGE;
    }
  const char *const files[] = {"phi.npy", mf.vocab != NULL ? "vocab.txt" : NULL, NULL};
  if (sk_ex_check_output_dir(out, files, &err) != 0) {
    fprintf(stderr, "sk-lda export: --out: %s\n", err.message);
    sk_lda_model_file_free(&mf);
    return SK_EX_EXIT_USAGE;
  }
  /* Files already there are another export's or a run's: replaced only when asked (then removed first, so
     that a model without a vocabulary leaves no other model's vocab.txt beside its phi), and never the
     model being read. */
  static const char *const replaced[] = {"phi.npy", "vocab.txt", NULL};
  char phi_path[4096], vocab_path[4096];
  if (sk_ex_prepare_outputs(out, replaced, model, overwrite, &err) != 0 ||
      sk_ex_path(phi_path, sizeof phi_path, out, "phi.npy", &err) != 0 ||
      sk_ex_path(vocab_path, sizeof vocab_path, out, "vocab.txt", &err) != 0) {
    fprintf(stderr, "sk-lda export: --out: %s\n", err.message);
    sk_lda_model_file_free(&mf);
    return SK_EX_EXIT_USAGE;
  }
  int status = SK_EX_EXIT_OK;
  if (sk_lda_write_phi_npy(phi_path, mf.n_vk, mf.n_k, mf.num_words, mf.num_topics, mf.beta, &err) != 0 ||
      (mf.vocab != NULL && sk_ex_write_file(vocab_path, vocab_body, &mf, &err) != 0)) {
    fprintf(stderr, "sk-lda export: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    printf("export: K = %d, V = %d -> %s%s%s\n", (int)mf.num_topics, (int)mf.num_words, phi_path,
           mf.vocab != NULL ? ", " : " (the model has no vocabulary: no vocab.txt)",
           mf.vocab != NULL ? vocab_path : "");
  }
  sk_lda_model_file_free(&mf);
  return status;
}
