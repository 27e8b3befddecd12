/* Command-line helpers of sk-lda: strict number parsing with messages that name the option and value. */
#ifndef SK_LDA_CLI_H
#define SK_LDA_CLI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each parses the whole string or fails: on failure it prints "sk-lda CMD: OPTION: ..." to stderr and
   returns 0; on success it stores the value and returns 1. */
int sk_lda_parse_ll(const char *cmd, const char *option, const char *text, long long min, long long max,
                    long long *out);
int sk_lda_parse_u64(const char *cmd, const char *option, const char *text, uint64_t *out);
int sk_lda_parse_double(const char *cmd, const char *option, const char *text, double min, double max, double *out);
/* A byte count: a whole number with an optional binary suffix K, M, G or T (2^10 .. 2^40; "KiB", "MiB",
   ... also accepted), at least `min` and at most 2^62. */
int sk_lda_parse_bytes(const char *cmd, const char *option, const char *text, uint64_t min, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CLI_H */
