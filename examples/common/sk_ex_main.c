/* The examples' command-line skeleton (sk_ex_main.h). */
#include "sk_ex_main.h"

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
    if (strcmp(cmd, c->name) == 0) return c->run(argc - 1, argv + 1);
  fprintf(stderr, "%s: unknown command '%s' (see '%s --help')\n", program, cmd, program);
  return SK_EX_EXIT_USAGE;
}
