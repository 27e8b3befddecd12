/* The examples' command-line skeleton (sk_ex_main.h). */
#include "sk_ex_main.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "samplekit/sk_version.h"

int sk_ex_main(const char *program, const sk_ex_command *commands, void (*usage)(FILE *), int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) {
    usage(stderr);
    return SK_EX_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return SK_EX_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("%s (samplekit %d.%d.%d)\n", program, SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
    return SK_EX_EXIT_OK;
  }
  for (const sk_ex_command *c = commands; c->name != NULL; ++c)
    if (strcmp(cmd, c->name) == 0) {
      const int status = c->run(argc - 1, argv + 1);
      /* A command's result may be what it printed (eval's figure, topics' table): a write to stdout
         that failed (a full disk, a closed pipe where SIGPIPE is ignored) is the machine's failure, not
         a success. */
      errno = 0;
      if ((fflush(stdout) != 0 || ferror(stdout)) && status == SK_EX_EXIT_OK) {
        fprintf(stderr, "%s %s: writing to stdout failed: %s\n", program, cmd,
                errno != 0 ? strerror(errno) : "I/O error");
        return SK_EX_EXIT_RUNTIME;
      }
      return status;
    }
  fprintf(stderr, "%s: unknown command '%s' (see '%s --help')\n", program, cmd, program);
  return SK_EX_EXIT_USAGE;
}

void sk_ex_note_repeated_options(const char *who, int argc, char **argv, const char *shortopts,
                                 const struct option *longopts) {
  int times[256] = {0};
  const char *last[256] = {NULL};
  const int saved_opterr = opterr;
  int c;
  opterr = 0; /* the command's own loop reports bad options */
  optind = 1;
  while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
    if (c > 0 && c < 256 && c != '?' && c != ':' && optarg != NULL) {
      ++times[c];
      last[c] = optarg;
    }
  opterr = saved_opterr;
  optind = 1;
  for (c = 1; c < 256; ++c) {
    if (times[c] < 2) continue;
    const char *name = NULL;
    for (const struct option *o = longopts; o != NULL && o->name != NULL && name == NULL; ++o)
      if (o->flag == NULL && o->val == c) name = o->name;
    if (name != NULL)
      fprintf(stderr, "%s: note: --%s was given %d times; the last, %s, is used\n", who, name, times[c], last[c]);
    else
      fprintf(stderr, "%s: note: -%c was given %d times; the last, %s, is used\n", who, c, times[c], last[c]);
  }
}
