/* sk_status_name and sk_status_string, both expanded from the one list in sk_status.h. */
#include "samplekit/sk_status.h"

#define SK_DETAIL_STATUS_NAME_CASE(name, value, text) \
  case name:                                          \
    return #name;
#define SK_DETAIL_STATUS_TEXT_CASE(name, value, text) \
  case name:                                          \
    return text;

const char *sk_status_name(sk_status status) {
  switch (status) {
    SK_STATUS_LIST(SK_DETAIL_STATUS_NAME_CASE)
  }
  return "SK_STATUS_UNKNOWN";
}

const char *sk_status_string(sk_status status) {
  switch (status) {
    SK_STATUS_LIST(SK_DETAIL_STATUS_TEXT_CASE)
  }
  return "unknown samplekit status";
}
