/**
 * \file commands.h
 * \brief sk-lda's commands (one file each: cmd_gen.c, cmd_train.c, cmd_infer.c, cmd_eval.c, cmd_topics.c,
 * cmd_export.c) and the corpus options that train, infer and eval share (cmd_input.c). Private to the sk-lda
 * program.
 *
 * Each command takes its own argv (argv[0] is the command's name) and returns the exit status of
 * sk_ex_main.h's rule: 0 success, 2 the user's input, 1 the machine.
 */
#ifndef SK_LDA_COMMANDS_H
#define SK_LDA_COMMANDS_H

#include <stddef.h>

#include "corpus.h"
#include "model_file.h"
#include "sk_ex_error.h"
#include "sk_lda.h"

/** \brief The corpus options of train, infer and eval, as typed (NULL or 0 where not given). */
typedef struct input_options {
  const char *docword;   /**< --docword FILE */
  const char *ldac;      /**< --ldac FILE */
  const char *text;      /**< --text FILE */
  const char *vocab;     /**< --vocab FILE */
  const char *stopwords; /**< --stopwords FILE */
  long long min_count;   /**< --min-count N */
} input_options;

/**
 * \brief Refuses options given for an input they do not apply to (--stopwords and --min-count shape a
 * --text corpus only; a --text corpus's words are its vocabulary).
 * \param cmd the command's name, for the message.
 * \param in the options.
 * \return 0 when they fit; else 1, the message printed.
 */
int sk_lda_cmd_check_input(const char *cmd, const input_options *in);

/**
 * \brief Refuses an output path that names one of the command's input files (the model or a corpus
 * option's file), which writing it would destroy: `sk-lda CMD: OPTION PATH is the --model file ...`.
 * \param cmd the command's name, for the message.
 * \param option the output's option (such as "--out").
 * \param out the output path (NULL: none, nothing to check).
 * \param model the --model file (NULL: none).
 * \param in the corpus options.
 * \return 0 when the output is none of the inputs; else 1, the message printed.
 */
int sk_lda_cmd_check_output_not_input(const char *cmd, const char *option, const char *out, const char *model,
                                      const input_options *in);

/**
 * \brief Reads the corpus the options name and maps its words to the model's (infer.h's
 * sk_lda_infer_map_words()), as infer and eval both need: a note on stderr when a --docword corpus read
 * without --vocab declares another number of words than the model, which has a vocabulary of its own (its
 * ids are then taken as the model's, right only for a corpus made with the model's vocabulary); a word
 * the model lacks is an error that names `--skip-unknown`; with it, the tokens dropped are counted on
 * stderr (`sk-lda CMD: dropped N tokens of words the model does not know`).
 * \param cmd the command's name, for the messages.
 * \param in the corpus options.
 * \param mf the model.
 * \param skip_unknown drop the tokens of words the model lacks instead of failing.
 * \param docs receives the corpus (sk_lda_corpus_free()), zeroed on failure.
 * \param err filled on failure (the input's: exit 2).
 * \return 0, or non-zero with err filled.
 */
int sk_lda_cmd_read_model_words(const char *cmd, const input_options *in, const sk_lda_model_file *mf,
                                int skip_unknown, sk_lda_corpus *docs, sk_ex_error *err);

/**
 * \brief Reads the corpus the options name, through the library (sk_lda.h's sklda_corpus_read()).
 * \param in the options.
 * \param err filled on failure.
 * \return the corpus (sklda_corpus_free()), or NULL with err filled.
 */
sklda_corpus *sk_lda_cmd_open_corpus(const input_options *in, sk_ex_error *err);
/**
 * \brief sk_lda_cmd_open_corpus(), its arrays moved into a corpus of the core (corpus.h).
 * \param in the options.
 * \param c receives the corpus.
 * \param err filled on failure.
 * \return 0, or non-zero with err filled.
 */
int sk_lda_cmd_read_corpus(const input_options *in, sk_lda_corpus *c, sk_ex_error *err);

/**
 * \brief The input options as typed, for the hint that says how to resume.
 * \param in the options.
 * \param buf receives the text.
 * \param cap bytes of buf.
 */
void sk_lda_cmd_describe_input(const input_options *in, char *buf, size_t cap);

/** \brief `sk-lda gen`. \param argc argument count. \param argv arguments. \return the exit status. */
int sk_lda_cmd_gen(int argc, char **argv);
/** \brief `sk-lda train`. \param argc argument count. \param argv arguments. \return the exit status. */
int sk_lda_cmd_train(int argc, char **argv);
/** \brief `sk-lda infer`. \param argc argument count. \param argv arguments. \return the exit status. */
int sk_lda_cmd_infer(int argc, char **argv);
/** \brief `sk-lda eval`. \param argc argument count. \param argv arguments. \return the exit status. */
int sk_lda_cmd_eval(int argc, char **argv);
/** \brief `sk-lda topics`. \param argc argument count. \param argv arguments. \return the exit status. */
int sk_lda_cmd_topics(int argc, char **argv);
/** \brief `sk-lda export`. \param argc argument count. \param argv arguments. \return the exit status. */
int sk_lda_cmd_export(int argc, char **argv);

#endif /* SK_LDA_COMMANDS_H */
