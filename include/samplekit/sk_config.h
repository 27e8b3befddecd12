/**
 * \file sk_config.h
 * \brief Compiler and platform macros shared by every samplekit header.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc.
 */
#ifndef SAMPLEKIT_SK_CONFIG_H
#define SAMPLEKIT_SK_CONFIG_H

/**
 * \defgroup sk_config Configuration macros
 * \brief Qualifiers, linkage guards and warp constants used by all samplekit headers.
 * @{
 */

#if defined(__CUDACC__) || defined(SK_DOXYGEN)
/**
 * \brief Qualifier of every device primitive: `static __device__ __forceinline__`.
 *
 * `static` gives each translation unit its own copy, so no separate device linking (-rdc) is needed.
 */
#define SK_DEVICE static __device__ __forceinline__
/**
 * \brief Qualifier of functions callable from host and device code (for example the RNG).
 *
 * Under nvcc it is `static __host__ __device__ __forceinline__`; in a plain C or C++ compiler it is
 * `static inline`, so host code built without nvcc (a CPU trainer, a host reference) can call the same
 * functions and get the very same results.
 */
#define SK_HOST_DEVICE static __host__ __device__ __forceinline__
#else
#define SK_HOST_DEVICE static inline
#endif

#if defined(_WIN32) || defined(SK_DOXYGEN)
/**
 * \brief Marks a function exported by the samplekit::kernels library (the C API): default symbol
 * visibility with GCC and Clang, so that the C API stays visible in a shared library built with
 * `-fvisibility=hidden`.
 */
#define SK_API
#else
#define SK_API __attribute__((visibility("default")))
#endif

#if defined(__cplusplus) || defined(SK_DOXYGEN)
/** \brief Opens an `extern "C"` block when compiled as C++ (empty in C). */
#define SK_EXTERN_C_BEGIN extern "C" {
/** \brief Closes the block opened by #SK_EXTERN_C_BEGIN. */
#define SK_EXTERN_C_END }
#else
#define SK_EXTERN_C_BEGIN
#define SK_EXTERN_C_END
#endif

/** \brief Number of lanes in a warp on every GPU samplekit supports. */
#define SK_WARP_SIZE 32

/** \brief Lane mask with every lane of the warp set. */
#define SK_FULL_MASK 0xffffffffu

/**
 * \brief A CUDA stream as seen by the C API: the same type as `cudaStream_t`.
 *
 * Declared here so that C programs can include samplekit.h without the CUDA headers; pass a
 * `cudaStream_t` (or 0 for the legacy default stream) wherever an #sk_stream is asked for.
 */
typedef struct CUstream_st *sk_stream;

/** @} */

#endif /* SAMPLEKIT_SK_CONFIG_H */
