/* The library's own version, which a program can compare with the headers' macros. */
#include "samplekit/sk_version.h"

sk_status sk_get_version(int *major, int *minor, int *patch) {
  if (major) *major = SK_VERSION_MAJOR;
  if (minor) *minor = SK_VERSION_MINOR;
  if (patch) *patch = SK_VERSION_PATCH;
  return SK_SUCCESS;
}
