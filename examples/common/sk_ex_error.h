/**
 * \file sk_ex_error.h
 * \brief The error message both examples (sk-lda, sk-mixture) fill instead of printing or exiting.
 *
 * Functions that can fail return 0 on success and non-zero on failure, and then fill the caller's
 * #sk_ex_error (when it is not NULL) with one line that names the file, line or option and what was
 * wrong, e.g. "docword.kos.txt:17: word id 7000 is out of range 1..6906". The main program prints it.
 * C11; threading: no shared state.
 */
#ifndef SK_EX_ERROR_H
#define SK_EX_ERROR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief One error message: a NUL-terminated line. */
typedef struct sk_ex_error {
  char message[1024]; /**< the line; longer messages are cut */
} sk_ex_error;

/**
 * \brief Fills `err->message` (when err is not NULL) printf-style.
 * \param err where the message goes, or NULL.
 * \param fmt printf format.
 * \return 1, so that `return sk_ex_fail(err, ...)` reports a failure.
 */
int sk_ex_fail(sk_ex_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/**
 * \brief sk_ex_fail() with a `va_list`.
 * \param err where the message goes, or NULL.
 * \param fmt printf format.
 * \param ap the arguments.
 * \return 1.
 */
int sk_ex_vfail(sk_ex_error *err, const char *fmt, va_list ap);

/**
 * \brief Puts `prefix: ` before the message already in `err` (the caller's context: a file, a command).
 * \param err the message to prefix, or NULL.
 * \param prefix the text to put first.
 * \return 1.
 */
int sk_ex_error_prefix(sk_ex_error *err, const char *prefix);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_ERROR_H */
