/* The examples' command-line skeleton (sk_ex_main.h). */
#include "sk_ex_main.h"

#include <errno.h>
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
