/**
 * \file sk_version.h
 * \brief Version of the samplekit headers and library.
 */
#ifndef SAMPLEKIT_SK_VERSION_H
#define SAMPLEKIT_SK_VERSION_H

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_version Version
 * \brief Compile-time version macros and the run-time version of the linked library.
 * @{
 */

/** \brief Major version: changes when the API or ABI breaks. */
#define SK_VERSION_MAJOR 0
/** \brief Minor version: changes when features are added compatibly. */
#define SK_VERSION_MINOR 1
/** \brief Patch version: changes for fixes only. */
#define SK_VERSION_PATCH 0
/** \brief The version as one integer, major * 10000 + minor * 100 + patch. */
#define SK_VERSION (SK_VERSION_MAJOR * 10000 + SK_VERSION_MINOR * 100 + SK_VERSION_PATCH)

SK_EXTERN_C_BEGIN

/**
 * \brief The version of the linked samplekit::kernels library, which may differ from the headers'.
 *
 * Each output pointer may be NULL, in which case that part is not written.
 * \param[out] major receives #SK_VERSION_MAJOR of the library.
 * \param[out] minor receives #SK_VERSION_MINOR of the library.
 * \param[out] patch receives #SK_VERSION_PATCH of the library.
 * \return `SK_SUCCESS` always. Does not touch the GPU. Thread-safe.
 */
SK_API sk_status sk_get_version(int *major, int *minor, int *patch);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_SK_VERSION_H */
