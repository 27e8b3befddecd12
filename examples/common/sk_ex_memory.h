/**
 * \file sk_ex_memory.h
 * \brief Host memory as both examples plan it: how much this process may take, and the bytes written for a
 * person to read. A run computes the bytes it will need from its input's sizes and compares them with
 * sk_ex_host_memory_available() before its big allocations, so that a file of a few bytes that claims
 * billions of entries is refused with both figures instead of being read until the kernel's out-of-memory
 * killer ends it.
 *
 * Threading: no shared state. Errors: none; a figure that cannot be read is left out of the minimum.
 */
#ifndef SK_EX_MEMORY_H
#define SK_EX_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The environment variable that sets the host memory a run may plan for (see below). */
#define SK_EX_HOST_MEMORY_ENV "SK_HOST_MEMORY"

/**
 * \brief The bytes of host memory this process may take now.
 *
 * The smallest of: the kernel's MemAvailable (/proc/meminfo: free memory plus what can be reclaimed
 * without swapping), the room left under the control group's limit (cgroup v2 memory.max minus
 * memory.current, or v1's limit_in_bytes minus usage_in_bytes), and, where it is set, the environment
 * variable SK_HOST_MEMORY (a byte count with an optional suffix K, M, G or T, powers of 1024: e.g. "8G"),
 * which lets a user hold a run to less than the machine has and tests check refusals without a huge file.
 * Where none of the kernel's figures can be read (not Linux), the physical memory from sysconf().
 * \param from_env set to 1 when SK_HOST_MEMORY gave the figure (it was the smallest), else 0; may be NULL.
 * \return the bytes; UINT64_MAX when nothing at all is known.
 */
uint64_t sk_ex_host_memory_available(int *from_env);

/**
 * \brief Parses a byte count as SK_HOST_MEMORY takes it: digits, then an optional K, M, G or T (powers of
 * 1024; lower case too), nothing else.
 * \param text the text.
 * \param bytes receives the count.
 * \return 0 on success, 1 when the text is not such a count or overflows.
 */
int sk_ex_parse_bytes(const char *text, uint64_t *bytes);

/**
 * \brief Writes `bytes` for a person: "812 bytes", "3.4 MiB", "17.8 GiB" (three significant digits).
 * \param buf receives the text (24 bytes are always enough).
 * \param cap bytes of buf.
 * \param bytes the count.
 * \return buf.
 */
const char *sk_ex_format_bytes(char *buf, size_t cap, uint64_t bytes);

/**
 * \brief The sentence that ends a refusal: "this machine has X available" or, where SK_HOST_MEMORY set the
 * figure, "SK_HOST_MEMORY allows X".
 * \param buf receives the text (80 bytes are always enough).
 * \param cap bytes of buf.
 * \param available the figure of sk_ex_host_memory_available().
 * \param from_env its from_env.
 * \return buf.
 */
const char *sk_ex_describe_available(char *buf, size_t cap, uint64_t available, int from_env);

/**
 * \brief The check every planned allocation makes: whether `need` bytes fit what this process may take now
 * (sk_ex_host_memory_available()), and if not, the second half of the refusal.
 * \param need the bytes the caller plans to take.
 * \param why when they do not fit: "X of host memory; this machine has Y available" (or "SK_HOST_MEMORY
 *        allows Y"), for the caller to put after its own "... need" (128 bytes are always enough).
 * \param cap bytes of why.
 * \return 0 when they fit, 1 when they do not.
 */
int sk_ex_host_memory_refuses(uint64_t need, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_MEMORY_H */
