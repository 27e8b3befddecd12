/**
 * \file cli.h
 * \brief sk-mixture's option values: strict parsing, with messages that name the command, the option
 * and the text.
 */
#ifndef SK_MIX_CLI_H
#define SK_MIX_CLI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The kinds of value an option takes. */
typedef enum sk_mix_value_kind {
  SK_MIX_VALUE_INT = 0, /**< a whole number in [min, max] */
  SK_MIX_VALUE_U64 = 1, /**< a whole number in [0, 2^64 - 1] (min and max unused) */
  SK_MIX_VALUE_REAL = 2 /**< a finite number in [min, max] */
} sk_mix_value_kind;

/**
 * \brief Parses the whole of `text` as a value of `kind`, or prints "sk-mixture CMD: OPTION: ..." to
 * stderr.
 * \param cmd the command ("fit", "gen").
 * \param option the option as typed ("-k").
 * \param text the value.
 * \param kind #sk_mix_value_kind.
 * \param min the smallest allowed (INT, REAL).
 * \param max the largest allowed (INT, REAL).
 * \param out receives the value: a long long (INT), a uint64_t (U64) or a double (REAL).
 * \return 1 on success, 0 on failure.
 */
int sk_mix_parse_value(const char *cmd, const char *option, const char *text, int kind, double min, double max,
                       void *out);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_CLI_H */
