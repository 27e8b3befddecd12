/**
 * \file sk_ex_main.h
 * \brief The examples' command-line skeleton: `PROGRAM COMMAND [options]`, a table of commands, one
 * exit-status rule, `--help` and `--version`.
 */
#ifndef SK_EX_MAIN_H
#define SK_EX_MAIN_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief Exit status: success. */
#define SK_EX_EXIT_OK 0
/** \brief Exit status: a failure at run time (the machine, the GPU, CUDA). */
#define SK_EX_EXIT_RUNTIME 1
/** \brief Exit status: bad usage or bad input (the user's options, input files or output paths). */
#define SK_EX_EXIT_USAGE 2

/**
 * \brief The exit-status rule both examples print in their `--help` and state in their READMEs, as one
 * line of text.
 */
#define SK_EX_EXIT_RULE                                                                                        \
  "Exit status: 0 success; 2 the user's input: bad usage, a bad input file or an output path that cannot\n" \
  "be written (the message names the option, file or line); 1 the machine: no usable GPU, CUDA, memory, a\n" \
  "write that fails midway.\n"

/** \brief One command of a program: `PROGRAM name ...` runs `run(argc, argv)` with argv[0] = name. */
typedef struct sk_ex_command {
  const char *name;                  /**< as typed after the program's name */
  int (*run)(int argc, char **argv); /**< returns an exit status */
} sk_ex_command;

/**
 * \brief The whole of a program's main(): stdout line-buffered (progress reaches a pipe as it happens),
 * no command or `--help`/`-h`/`help` prints `usage` (to stderr with exit 2, or stdout with exit 0),
 * `--version` prints `PROGRAM (samplekit X.Y.Z)`, a command of the table runs, anything else is named
 * as unknown (exit 2). A command that succeeds but whose output to stdout could not be written (a full
 * disk) ends with `PROGRAM COMMAND: writing to stdout failed: ...` and exit 1.
 * \param program the program's name, for messages.
 * \param commands the table, ended by an entry whose name is NULL.
 * \param usage prints the program's usage to the stream it is given.
 * \param argc main's argc.
 * \param argv main's argv.
 * \return the exit status for main to return.
 */
int sk_ex_main(const char *program, const sk_ex_command *commands, void (*usage)(FILE *), int argc, char **argv);

struct option;

/**
 * \brief Says on stderr, once an option, when an option that takes a value was given more than once:
 * `WHO: note: --seed was given 2 times; the last, 3, is used`. The commands keep the last value (a
 * script may append an option to override a default it passes), but a user who typed one twice by
 * mistake sees which one counts. Call it before the command's own getopt_long() loop, with the same
 * options; it parses argv once with error messages off and leaves optind at 1.
 * \param who the message's prefix, e.g. "sk-lda train".
 * \param argc the command's argc.
 * \param argv the command's argv.
 * \param shortopts the command's short options, as given to getopt_long().
 * \param longopts the command's long options (each `val` a character below 256).
 */
void sk_ex_note_repeated_options(const char *who, int argc, char **argv, const char *shortopts,
                                 const struct option *longopts);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_MAIN_H */
