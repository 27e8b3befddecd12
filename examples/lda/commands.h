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
 * \brief Says on stderr (a note, not an error) when a --docword corpus read without --vocab declares another
 * number of words than the model has and the model has a vocabulary of its own: its ids are then taken as
 * the model's, which is right only for a corpus made with the model's vocabulary.
 * \param cmd the command's name, for the message.
 * \param in the corpus options.
 * \param corpus the corpus as read (before its words are mapped to the model's).
 * \param model_words the model's V.
 * \param model_has_vocab whether the model has a vocabulary.
 */
void sk_lda_cmd_note_word_ids(const char *cmd, const input_options *in, const sk_lda_corpus *corpus,
                              int32_t model_words, int model_has_vocab);

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
