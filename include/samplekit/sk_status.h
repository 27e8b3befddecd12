/**
 * \file sk_status.h
 * \brief Status codes returned by every samplekit host function.
 */
#ifndef SAMPLEKIT_SK_STATUS_H
#define SAMPLEKIT_SK_STATUS_H

#include "sk_config.h"

/**
 * \defgroup sk_status Status codes
 * \brief One X-macro list defines the codes, their names and their descriptions.
 *
 * Bands: 0 success; 1xx usage errors (the caller can fix the call); 2xx resource errors (the device or
 * the CUDA runtime failed, see sk_last_cuda_error(); or, for `SK_ERROR_HOST_ALLOCATION_FAILED`, host
 * memory ran out); 999 an internal error (a samplekit bug: please report it).
 * Every public host function returns an #sk_status. A 1xx status means nothing was launched or allocated.
 * Functions check the values and pointers of their arguments before they touch CUDA; a check that needs
 * the device's properties (a workspace size from CUB, the shared memory a block may have) comes after
 * read-only device queries, and then the 1xx status (`SK_ERROR_WORKSPACE_TOO_SMALL`,
 * `SK_ERROR_UNSUPPORTED`) follows those queries: each function's list of statuses says which. Without a
 * driver or a usable device, a call that would launch, allocate or query the device returns
 * `SK_ERROR_NO_DEVICE` (not `SK_ERROR_CUDA_PENDING`, whatever its list of statuses names).
 * @{
 */

/**
 * \brief The list of status codes: `X(name, value, description)` for each.
 *
 * Expand it with your own `X` to build tables (samplekit builds #sk_status, sk_status_name() and
 * sk_status_string() from it).
 */
#define SK_STATUS_LIST(X)                                                                              \
  X(SK_SUCCESS, 0, "success")                                                                          \
  X(SK_ERROR_INVALID_VALUE, 100, "an argument is outside its documented range")                        \
  X(SK_ERROR_NULL_POINTER, 101, "a required pointer argument is NULL")                                  \
  X(SK_ERROR_WORKSPACE_TOO_SMALL, 102, "the workspace passed is smaller than the size query returned") \
  X(SK_ERROR_UNSUPPORTED, 103, "the request is valid but not supported by this build or device")       \
  X(SK_ERROR_NO_DEVICE, 200, "no usable CUDA device was found")                                         \
  X(SK_ERROR_CUDA_LAUNCH_FAILED, 201, "a CUDA kernel launch or kernel execution failed")                \
  X(SK_ERROR_CUDA_ALLOCATION_FAILED, 202, "a CUDA memory allocation failed")                            \
  X(SK_ERROR_CUDA_PENDING, 203, "a CUDA error from earlier work was pending before this call")          \
  X(SK_ERROR_CUDA, 204, "a CUDA runtime call failed (see sk_last_cuda_error)")                          \
  X(SK_ERROR_HOST_ALLOCATION_FAILED, 205, "a host memory allocation failed")                            \
  X(SK_ERROR_INTERNAL, 999, "internal samplekit error (a bug: please report it)")

/** \cond SK_INTERNAL */
#define SK_DETAIL_STATUS_ENUM(name, value, text) name = value,
/** \endcond */

/**
 * \brief Result of a samplekit host function: one enumerator per entry of #SK_STATUS_LIST, named and
 * numbered as listed there (`SK_SUCCESS` = 0, `SK_ERROR_NULL_POINTER` = 101, ...).
 */
typedef enum sk_status {
  SK_STATUS_LIST(SK_DETAIL_STATUS_ENUM)
} sk_status;

SK_EXTERN_C_BEGIN

/**
 * \brief The enumerator's name as a string, for example "SK_ERROR_NULL_POINTER".
 * \param status any value; values outside the list give "SK_STATUS_UNKNOWN".
 * \return a static string, never NULL. Thread-safe.
 */
SK_API const char *sk_status_name(sk_status status);

/**
 * \brief A one-line English description of the status, for error messages.
 * \param status any value; values outside the list give "unknown samplekit status".
 * \return a static string, never NULL. Thread-safe.
 */
SK_API const char *sk_status_string(sk_status status);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_SK_STATUS_H */
