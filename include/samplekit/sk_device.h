/**
 * \file sk_device.h
 * \brief CUDA error mapping and the device facts that kernels size themselves by.
 */
#ifndef SAMPLEKIT_SK_DEVICE_H
#define SAMPLEKIT_SK_DEVICE_H

#include <stddef.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_device CUDA errors and device queries
 * \brief How CUDA failures become #sk_status values, and a small device query.
 *
 * When a samplekit call fails because of CUDA, it returns a 2xx status and records the CUDA error
 * code, per host thread, so that the caller can still see exactly what CUDA said: sk_last_cuda_error()
 * returns the code (a `cudaError_t` value as an int) and sk_last_cuda_error_string() CUDA's text.
 * @{
 */

/**
 * \brief Device facts that a kernel sizes itself by, as returned by sk_device_query().
 */
typedef struct sk_device_info {
  int device;                         /**< CUDA device ordinal that was queried. */
  int compute_capability_major;       /**< For example 9 on Hopper. */
  int compute_capability_minor;       /**< For example 0 on H100 and H200. */
  int sm_count;                       /**< Number of streaming multiprocessors. */
  int warp_size;                      /**< Lanes per warp (32 on every supported GPU). */
  int max_threads_per_sm;             /**< Resident threads per multiprocessor. */
  size_t shared_bytes_per_block;      /**< Shared memory a block gets without opting in (48 KiB). */
  size_t shared_bytes_per_block_optin;/**< Shared memory a block may get after cudaFuncSetAttribute. */
  size_t shared_bytes_per_sm;         /**< Shared memory of one multiprocessor. */
  size_t l2_cache_bytes;              /**< Size of the L2 cache. */
  size_t global_memory_bytes;         /**< Total device memory. */
  char name[256];                     /**< Device name, NUL-terminated. */
} sk_device_info;

SK_EXTERN_C_BEGIN

/**
 * \brief Maps a CUDA runtime error code to an #sk_status and records it as the thread's last CUDA error.
 *
 * `cudaSuccess` gives `SK_SUCCESS` and records nothing. Allocation failures give
 * `SK_ERROR_CUDA_ALLOCATION_FAILED`; launch, configuration and kernel-execution failures give
 * `SK_ERROR_CUDA_LAUNCH_FAILED`; "no device" and "insufficient driver" give `SK_ERROR_NO_DEVICE`; any
 * other code gives `SK_ERROR_CUDA`.
 * \param cuda_error a `cudaError_t` value, passed as an int so that C callers need no CUDA header.
 * \return the mapped status. Does not call CUDA. Thread-safe (the record is per host thread).
 */
SK_API sk_status sk_status_from_cuda_error(int cuda_error);

/**
 * \brief The CUDA error code recorded by the last samplekit call on this host thread that failed in CUDA.
 * \return a `cudaError_t` value as an int; 0 (`cudaSuccess`) when none was recorded since the last
 *         sk_clear_cuda_error(). Does not call CUDA.
 */
SK_API int sk_last_cuda_error(void);

/**
 * \brief CUDA's own description of sk_last_cuda_error(), for error messages.
 * \return a static string, never NULL ("no error" when none was recorded).
 */
SK_API const char *sk_last_cuda_error_string(void);

/** \brief Forgets the CUDA error recorded on this host thread. Does not call CUDA. */
SK_API void sk_clear_cuda_error(void);

/**
 * \brief Queries the facts in #sk_device_info for one CUDA device.
 * \param device a CUDA device ordinal, 0 to (device count - 1).
 * \param[out] info receives the facts; left unchanged unless `SK_SUCCESS` is returned.
 * \retval SK_SUCCESS the facts were written.
 * \retval SK_ERROR_NULL_POINTER `info` is NULL (CUDA is not touched).
 * \retval SK_ERROR_INVALID_VALUE `device` is negative (CUDA is not touched), or not below the device count.
 * \retval SK_ERROR_NO_DEVICE no CUDA device or driver is present.
 * \retval SK_ERROR_CUDA another CUDA failure; see sk_last_cuda_error().
 *
 * Synchronous and thread-safe; it does not change the current device.
 */
SK_API sk_status sk_device_query(int device, sk_device_info *info);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_SK_DEVICE_H */
