/*
 * sk-lda: an LDA trainer built on samplekit. `sk-lda COMMAND --help` describes each command.
 * Exit status: sk_ex_main.h's rule (SK_EX_EXIT_RULE): 0 success, 2 the user's input, 1 the machine.
 */

#include <stdio.h>

#include "commands.h"

#include "samplekit/sk_version.h"
#include "sk_ex_main.h"

/* --- dispatch ------------------------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda COMMAND [options]   (sk-lda COMMAND --help for each)\n"
          "An LDA topic-model trainer built on samplekit %d.%d.%d.\n\n"
          "commands:\n"
          "  train    train on a corpus (ESCA or serial collapsed Gibbs; resumable); train --demo for a quick look\n"
          "  infer    fold new documents into a trained model and write their topic proportions\n"
          "  eval     held-out log-likelihood of a trained model on a corpus (document completion)\n"
          "  topics   print a saved model's top words per topic (text, CSV or JSON)\n"
          "  export   write a saved model's topic-word matrix as phi.npy (NumPy) and its words as vocab.txt\n"
          "  gen      draw a synthetic corpus with planted topics, in UCI format or as a binary corpus\n\n"
          SK_EX_EXIT_RULE,
          SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
}

int main(int argc, char **argv) {
  static const sk_ex_command commands[] = {
      {"gen", sk_lda_cmd_gen},       {"infer", sk_lda_cmd_infer},   {"train", sk_lda_cmd_train},
      {"eval", sk_lda_cmd_eval},     {"topics", sk_lda_cmd_topics}, {"export", sk_lda_cmd_export},
      {NULL, NULL}};
  return sk_ex_main("sk-lda", commands, usage, argc, argv);
}
