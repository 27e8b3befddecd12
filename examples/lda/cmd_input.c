/* The corpus options train, infer and eval share (commands.h). */

#include <stdio.h>
#include <stdlib.h>
#include "api_internal.h"
#include "commands.h"
#include "sk_ex_files.h"

/* Options given for an input they do not apply to are refused, not ignored: --stopwords and --min-count
   shape a --text corpus only, and a --text corpus's words are its vocabulary. 0 when the options fit; else
   the message is printed for `cmd` and 1 returned. */
int sk_lda_cmd_check_input(const char *cmd, const input_options *in) {
  const char *why = NULL;
  if (in->text == NULL && in->stopwords != NULL)
    why = "--stopwords applies to --text only (a --docword or --ldac corpus has its words as ids)";
  else if (in->text == NULL && in->min_count > 0)
    why = "--min-count applies to --text only";
  else if (in->text != NULL && in->vocab != NULL)
    why = "--vocab does not apply to --text (its words are the vocabulary)";
  if (why == NULL) return 0;
  fprintf(stderr, "sk-lda %s: %s\n", cmd, why);
  return 1;
}

int sk_lda_cmd_check_output_not_input(const char *cmd, const char *option, const char *out, const char *model,
                                      const input_options *in) {
  const char *const paths[] = {model, in->docword, in->ldac, in->text, in->vocab, in->stopwords};
  const char *const names[] = {"--model", "--docword", "--ldac", "--text", "--vocab", "--stopwords"};
  for (size_t i = 0; out != NULL && i < sizeof paths / sizeof *paths; ++i)
    if (sk_ex_same_file(out, paths[i])) {
      fprintf(stderr, "sk-lda %s: %s %s is the %s file (%s), which writing it would destroy: give another path\n",
              cmd, option, out, names[i], paths[i]);
      return 1;
    }
  return 0;
}

void sk_lda_cmd_note_word_ids(const char *cmd, const input_options *in, const sk_lda_corpus *corpus,
                              int32_t model_words, int model_has_vocab) {
  if (in->docword == NULL || in->vocab != NULL || corpus->vocab != NULL || !model_has_vocab ||
      corpus->num_words == model_words)
    return;
  fprintf(stderr,
          "sk-lda %s: note: %s declares %d words and the model has %d with a vocabulary of its own: without "
          "--vocab its word ids are taken as the model's, which is right only for a corpus made with the model's "
          "vocabulary (--vocab FILE matches the words by name)\n",
          cmd, in->docword, (int)corpus->num_words, (int)model_words);
}

sklda_corpus *sk_lda_cmd_open_corpus(const input_options *in, sk_ex_error *err) {
  sklda_read_options rd;
  sklda_read_options_default(&rd);
  rd.format = in->docword != NULL ? "uci" : in->ldac != NULL ? "ldac" : "text";
  rd.vocab = in->vocab;
  rd.stopwords = in->stopwords;
  rd.min_count = in->min_count;
  sklda_corpus *c = NULL;
  sklda_error e;
  if (sklda_corpus_read(in->docword != NULL ? in->docword : in->ldac != NULL ? in->ldac : in->text, &rd, &c, &e) !=
      SKLDA_OK) {
    sk_ex_fail(err, "%s", e.message);
    return NULL;
  }
  return c;
}

int sk_lda_cmd_read_corpus(const input_options *in, sk_lda_corpus *c, sk_ex_error *err) {
  sklda_corpus *h = sk_lda_cmd_open_corpus(in, err);
  if (h == NULL) return 1;
  *c = h->c; /* the arrays move to the caller */
  free(h);
  return 0;
}

/* The input options as typed, for the hint that says how to resume. */
void sk_lda_cmd_describe_input(const input_options *in, char *buf, size_t cap) {
  const char *kind = in->docword ? "--docword" : in->ldac ? "--ldac" : "--text";
  const char *file = in->docword ? in->docword : in->ldac ? in->ldac : in->text;
  int n = snprintf(buf, cap, "%s %s", kind, file);
  if (n > 0 && (size_t)n < cap && in->vocab) n += snprintf(buf + n, cap - (size_t)n, " --vocab %s", in->vocab);
  if (n > 0 && (size_t)n < cap && in->stopwords)
    n += snprintf(buf + n, cap - (size_t)n, " --stopwords %s", in->stopwords);
  if (n > 0 && (size_t)n < cap && in->min_count > 0)
    snprintf(buf + n, cap - (size_t)n, " --min-count %lld", in->min_count);
}
