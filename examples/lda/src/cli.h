/**
 * \file cli.h
 * \brief Command-line helpers of sk-lda: strict number parsing with messages that name the option and value.
 *
 * Each parser parses the whole string or fails: on failure it prints "sk-lda CMD: OPTION: ..." to stderr and
 * returns 0; on success it stores the value and returns 1.
 */
#ifndef SK_LDA_CLI_H
#define SK_LDA_CLI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Parses a whole number in [min, max]; the whole string or fails.
 * \param cmd the command (CMD), for the message.
 * \param option the option (OPTION), for the message.
 * \param text the string to parse.
 * \param min the least value allowed.
 * \param max the largest value allowed.
 * \param out receives the value on success.
 * \return 1 on success; 0 on failure, after printing "sk-lda CMD: OPTION: ..." to stderr.
 */
int sk_lda_parse_ll(const char *cmd, const char *option, const char *text, long long min, long long max,
                    long long *out);

/**
 * \brief Parses an unsigned 64-bit number; the whole string or fails.
 * \param cmd the command (CMD), for the message.
 * \param option the option (OPTION), for the message.
 * \param text the string to parse.
 * \param out receives the value on success.
 * \return 1 on success; 0 on failure, after printing "sk-lda CMD: OPTION: ..." to stderr.
 */
int sk_lda_parse_u64(const char *cmd, const char *option, const char *text, uint64_t *out);

/**
 * \brief Parses a number in [min, max]; the whole string or fails.
 * \param cmd the command (CMD), for the message.
 * \param option the option (OPTION), for the message.
 * \param text the string to parse.
 * \param min the least value allowed.
 * \param max the largest value allowed.
 * \param out receives the value on success.
 * \return 1 on success; 0 on failure, after printing "sk-lda CMD: OPTION: ..." to stderr.
 */
int sk_lda_parse_double(const char *cmd, const char *option, const char *text, double min, double max, double *out);

/**
 * \brief A byte count: a whole number with an optional binary suffix K, M, G or T (2^10 .. 2^40; "KiB",
 * "MiB", ... also accepted), at least `min` and at most 2^62; the whole string or fails.
 * \param cmd the command (CMD), for the message.
 * \param option the option (OPTION), for the message.
 * \param text the string to parse.
 * \param min the least value allowed.
 * \param out receives the value on success.
 * \return 1 on success; 0 on failure, after printing "sk-lda CMD: OPTION: ..." to stderr.
 */
int sk_lda_parse_bytes(const char *cmd, const char *option, const char *text, uint64_t min, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_CLI_H */
