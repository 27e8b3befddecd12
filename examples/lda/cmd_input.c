/* The corpus options train, infer and eval share (commands.h). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api_internal.h"
#include "commands.h"
#include "corpus_binary.h"
#include "infer.h"
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

int sk_lda_cmd_read_model_words(const char *cmd, const input_options *in, const sk_lda_model_file *mf,
                                int skip_unknown, sk_lda_corpus *docs, sk_ex_error *err) {
  memset(docs, 0, sizeof *docs);
  if (sk_lda_cmd_read_corpus(in, docs, err) != 0) return 1;
  if (in->docword != NULL && in->vocab == NULL && docs->vocab == NULL && mf->vocab != NULL &&
      docs->num_words != mf->num_words)
    fprintf(stderr,
            "sk-lda %s: note: %s declares %d words and the model has %d with a vocabulary of its own: without "
            "--vocab its word ids are taken as the model's, which is right only for a corpus made with the "
            "model's vocabulary (--vocab FILE matches the words by name)\n",
            cmd, in->docword, (int)docs->num_words, (int)mf->num_words);
  const char *input = in->docword != NULL ? in->docword : in->ldac != NULL ? in->ldac : in->text;
  const int id_base = in->docword != NULL && !sk_lda_is_binary_corpus(in->docword); /* UCI ids are 1-based */
  int64_t dropped = 0;
  if (sk_lda_infer_map_words(mf, docs, input, id_base, skip_unknown, &dropped, err) != 0) {
    if (!skip_unknown && strstr(err->message, "not in the model") != NULL)
      snprintf(err->message + strlen(err->message), sizeof err->message - strlen(err->message),
               " (--skip-unknown drops such words)");
    sk_lda_corpus_free(docs);
    return 1;
  }
  if (dropped > 0)
    fprintf(stderr, "sk-lda %s: dropped %lld tokens of words the model does not know\n", cmd, (long long)dropped);
  return 0;
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
