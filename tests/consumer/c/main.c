/* Prints the linked library's version and a status description: the C API needs no GPU for these. */
#include <stdio.h>

#include <samplekit/samplekit.h>

int main(void) {
  int major, minor, patch;
  if (sk_get_version(&major, &minor, &patch) != SK_SUCCESS) return 1;
  printf("samplekit %d.%d.%d: %s\n", major, minor, patch, sk_status_string(SK_SUCCESS));
  return major == SK_VERSION_MAJOR && minor == SK_VERSION_MINOR ? 0 : 1;
}
