/**
 * \file sparse_counts.h
 * \brief Sparse count entries: the nonzero values of a dense int32 count array packed as 64-bit
 * (index, value) entries on the device, and entries added back into a dense array: what several GPUs
 * exchange instead of a whole count matrix when most of it is zero.
 *
 * C-clean: compiles as C99 (gcc -std=c99 -pedantic), as C++ and under nvcc.
 */
#ifndef SAMPLEKIT_SPARSE_COUNTS_H
#define SAMPLEKIT_SPARSE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_sparse_counts Sparse count entries
 * \brief Pack the nonzero values of a dense int32 array into 8-byte entries; add entries into a dense
 * int32 array.
 *
 * A count matrix summed over several GPUs (LDA's word-topic counts B over the ranks of a multi-GPU
 * run, a mixture's sufficient statistics) is mostly zero on each GPU when the matrix is large against
 * the items one GPU counts: at K = 10,000 topics and V = 100,000 words B has 10^9 entries, of which a
 * GPU's 25 million tokens set at most 25 million. Summing it whole (an all-reduce of 4 GB a GPU) moves
 * about 40 times the bytes that its nonzero values need. These two calls make the sparse exchange:
 * each GPU packs its counts with sk_sparse_counts_pack_i32(), the entries travel (any transport: NCCL
 * send and receive, MPI, a host copy), and each GPU adds the others' entries into its own counts with
 * sk_sparse_counts_add_i32(). Integer sums are exact and do not depend on the order of the additions,
 * so the result is bit for bit the dense all-reduce's whatever the entries' order.
 *
 * **Entry.** A `uint64_t`: the index in the top 40 bits (bits 63..24, so indices below 2^40) and the
 * value in the low 24 bits as a two's-complement signed number, nonzero and within
 * ±#SK_SPARSE_COUNT_VALUE_MAX. A value beyond that (a count of more than 8,388,607) is written as
 * several entries of the same index whose values add up to it, so any int32 value packs exactly
 * (INT32_MIN included). sk_sparse_count_entry(), sk_sparse_count_entry_index() and
 * sk_sparse_count_entry_value() make and read entries on the host or the device.
 *
 * **Order and determinism.** Which entries are written (their multiset) and their number are functions
 * of the input alone; their order in the output is not specified and may change from run to run
 * (a tile's place is taken with one global atomic). Anything computed from the entries that does not
 * depend on their order (the add below, a sort, a count) is deterministic.
 *
 * **Capacity.** The pack writes entry j only when j < capacity, but always counts every entry into
 * `*d_num_entries`: one call with a capacity that suffices is one pass over the counts; when the
 * count comes back above the capacity, either allocate and call again, or fall back to a dense
 * exchange (what sk-lda's ranks do: their capacity is the memory of the counts they are about to
 * replace).
 *
 * **Cost.** Pack: reads 4 bytes per value once (16-byte loads when `d_counts` is 16-byte aligned),
 * writes 8 bytes per entry, and takes one global atomic per tile of 4,096 values that holds a nonzero
 * value; bound by the read of the counts (bench/bench_sparse_counts.cu and bench/RESULTS.md have the
 * H200 figures against the copy rate). Add: reads 8 bytes per entry and makes one int32 atomic add per
 * entry at its index: scattered, so bound by the memory system's atomic rate rather than bytes.
 * @{
 */

/** \brief The largest magnitude of one entry's value: 2^23 - 1. Larger values take several entries. */
#define SK_SPARSE_COUNT_VALUE_MAX 8388607
/** \brief Bits of an entry's index: indices (and array lengths) are below 2^40. */
#define SK_SPARSE_COUNT_INDEX_BITS 40
/** \brief Values per tile of the pack: a tile that holds a nonzero value takes one global atomic. */
#define SK_SPARSE_COUNTS_TILE 4096

/**
 * \brief An entry of `value` at `index`.
 * \param index below 2^40.
 * \param value nonzero, within ±#SK_SPARSE_COUNT_VALUE_MAX.
 * \return the entry. Outside those ranges the result is unspecified.
 */
SK_HOST_DEVICE uint64_t sk_sparse_count_entry(uint64_t index, int32_t value) {
  return (index << 24) | ((uint64_t)(uint32_t)value & 0xFFFFFFu);
}

/**
 * \brief The index of an entry.
 * \param entry an entry.
 * \return its index (below 2^40).
 */
SK_HOST_DEVICE uint64_t sk_sparse_count_entry_index(uint64_t entry) { return entry >> 24; }

/**
 * \brief The value of an entry (sign-extended from 24 bits).
 * \param entry an entry.
 * \return its value, within ±#SK_SPARSE_COUNT_VALUE_MAX (-2^23 for a bit pattern the pack never writes).
 */
SK_HOST_DEVICE int32_t sk_sparse_count_entry_value(uint64_t entry) {
  const uint32_t low = (uint32_t)(entry & 0xFFFFFFu);
  return (int32_t)(low ^ 0x800000u) - (int32_t)0x800000;
}

/**
 * \brief How many entries a value packs into: 0 for 0, else ceil(|value| / #SK_SPARSE_COUNT_VALUE_MAX).
 * \param value any int32.
 * \return 0, 1, ... 257.
 */
SK_HOST_DEVICE uint32_t sk_sparse_count_pieces(int32_t value) {
  const uint32_t magnitude = value < 0 ? 0u - (uint32_t)value : (uint32_t)value;
  return (magnitude + (uint32_t)SK_SPARSE_COUNT_VALUE_MAX - 1u) / (uint32_t)SK_SPARSE_COUNT_VALUE_MAX;
}

SK_EXTERN_C_BEGIN

/**
 * \brief Packs the nonzero values of `d_counts[0 .. num_counts)` into entries (see \ref sk_sparse_counts):
 * `*d_num_entries` = how many entries the values take, and entry j is written to `d_entries[j]` when j <
 * capacity.
 *
 * Asynchronous on `stream`: it zeroes `*d_num_entries` and launches one kernel; read the count after the
 * stream's work is done.
 * \param d_counts device array of num_counts values (any alignment of 4 bytes).
 * \param num_counts values; below 2^40. 0 writes 0 to *d_num_entries.
 * \param d_entries device array of `capacity` entries (may be NULL when capacity is 0: a count only).
 * \param capacity entries d_entries can hold.
 * \param d_num_entries device counter: receives the number of entries the values take (also beyond capacity).
 * \param stream the CUDA stream to run on (0: the legacy default stream).
 * \retval SK_SUCCESS the work was queued.
 * \retval SK_ERROR_NULL_POINTER d_counts (num_counts > 0), d_entries (capacity > 0) or d_num_entries is NULL.
 * \retval SK_ERROR_INVALID_VALUE num_counts is 2^40 or more.
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED, SK_ERROR_CUDA the launch or the zeroing failed; see sk_last_cuda_error().
 *
 * Work: num_counts / 4,096 blocks' worth of tiles, each read once; see the group's cost. Thread-safe.
 */
SK_API sk_status sk_sparse_counts_pack_i32(const int32_t *d_counts, uint64_t num_counts, uint64_t *d_entries,
                                           uint64_t capacity, unsigned long long *d_num_entries, sk_stream stream);

/**
 * \brief Adds every entry of `d_entries[0 .. num_entries)` into `d_counts`: `d_counts[index] += value`
 * (int32 atomics, so entries may repeat an index and come in any order; the sums must fit int32).
 *
 * Entries whose index is num_counts or more are skipped: nothing is written out of bounds.
 * Asynchronous on `stream`.
 * \param d_entries device array of num_entries entries (made by sk_sparse_counts_pack_i32() or
 *        sk_sparse_count_entry()).
 * \param num_entries entries; 0 launches nothing.
 * \param d_counts device array of num_counts values, added into.
 * \param num_counts its length.
 * \param stream the CUDA stream to run on (0: the legacy default stream).
 * \retval SK_SUCCESS the work was queued.
 * \retval SK_ERROR_NULL_POINTER d_entries or d_counts is NULL while num_entries > 0.
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED the launch failed; see sk_last_cuda_error().
 *
 * Work: one thread per entry, one atomic each. Thread-safe.
 */
SK_API sk_status sk_sparse_counts_add_i32(const uint64_t *d_entries, uint64_t num_entries, int32_t *d_counts,
                                          uint64_t num_counts, sk_stream stream);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_SPARSE_COUNTS_H */
