/**
 * \file rng.h
 * \brief Counter-based random numbers (Philox4x32-10), callable from host and device code alike.
 *
 * C-clean: host code compiled by a plain C99 or C++ compiler calls the same functions as device code
 * and gets the very same numbers. Device code usually includes rng.cuh instead.
 */
#ifndef SAMPLEKIT_RNG_H
#define SAMPLEKIT_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "sk_config.h"
#include "sk_status.h"

/**
 * \defgroup sk_rng Counter-based RNG
 * \brief Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11), the
 * generator behind cuRAND's `curandStatePhilox4_32_10_t`, as pure functions of (seed, stream id, counter).
 *
 * **A draw is a pure function.** One Philox call maps a 128-bit counter and a 64-bit key to four
 * 32-bit outputs. samplekit uses key = seed and counter = (counter, stream id), so a draw depends on
 * nothing but (seed, stream id, counter): not on thread scheduling, launch shape or the device. Give
 * every independent consumer (a token, an iteration) its own stream id or counter range.
 *
 * **Same bits as cuRAND.** For any seed, stream id and counter c, sk_rng_u32x4(seed, s, c) equals what
 * `curand4()` returns after `curand_init(seed, s, 4 * c, &state)`, and sk_rng_u32(seed, s, i) is the
 * i-th value `curand()` returns after `curand_init(seed, s, 0, &state)`. tests/test_rng.cu checks this
 * bit for bit on the GPU.
 *
 * **Floats.** sk_rng_unit_f32() keeps the top 24 bits: x >> 8 times 2^-24, so a float uniform takes
 * each of the 2^24 values k 2^-24, k = 0 .. 2^24 - 1, with probability exactly 2^-24: the range is
 * [0, 1 - 2^-24], 0 included and 1 excluded. (cuRAND's `curand_uniform` returns (0, 1] instead;
 * samplekit uses its own conversion, so that u * total < total for a positive total.) Doubles:
 * sk_rng_unit_f64() takes 53 bits from two outputs, values k 2^-53, range [0, 1 - 2^-53].
 *
 * Usage (device code; the same calls compile in host code):
 * \snippet test_rng.cu rng_usage
 * @{
 */

/** \brief Four 32-bit words: one Philox counter block or one block of output. */
typedef struct sk_u32x4 {
  uint32_t x; /**< word 0 */
  uint32_t y; /**< word 1 */
  uint32_t z; /**< word 2 */
  uint32_t w; /**< word 3 */
} sk_u32x4;

/** \brief Four floats in [0, 1 - 2^-24], as returned by sk_rng_uniform4_f32(). */
typedef struct sk_f32x4 {
  float x; /**< from output word 0 */
  float y; /**< from output word 1 */
  float z; /**< from output word 2 */
  float w; /**< from output word 3 */
} sk_f32x4;

/** \cond SK_INTERNAL */
#define SK_DETAIL_PHILOX_M0 0xD2511F53u
#define SK_DETAIL_PHILOX_M1 0xCD9E8D57u
#define SK_DETAIL_PHILOX_W0 0x9E3779B9u
#define SK_DETAIL_PHILOX_W1 0xBB67AE85u

SK_HOST_DEVICE uint32_t sk_detail_mulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return (uint32_t)(((uint64_t)a * (uint64_t)b) >> 32);
#endif
}

SK_HOST_DEVICE sk_u32x4 sk_detail_philox_round(sk_u32x4 c, uint32_t k0, uint32_t k1) {
  sk_u32x4 r;
  const uint32_t hi0 = sk_detail_mulhi32(SK_DETAIL_PHILOX_M0, c.x);
  const uint32_t hi1 = sk_detail_mulhi32(SK_DETAIL_PHILOX_M1, c.z);
  r.x = hi1 ^ c.y ^ k0;
  r.y = SK_DETAIL_PHILOX_M1 * c.z;
  r.z = hi0 ^ c.w ^ k1;
  r.w = SK_DETAIL_PHILOX_M0 * c.x;
  return r;
}
/** \endcond */

/**
 * \brief The Philox4x32-10 bijection: ten rounds on `counter` under the key (key0, key1).
 *
 * Matches the Random123 known-answer vectors (tests/test_rng.cu checks them on the host).
 * \param counter the 128-bit counter, word x lowest.
 * \param key0 low word of the key.
 * \param key1 high word of the key.
 * \return four pseudo-random 32-bit words.
 * \sk_rng_cost{one block of four words}
 */
SK_HOST_DEVICE sk_u32x4 sk_philox4x32_10(sk_u32x4 counter, uint32_t key0, uint32_t key1) {
  int round;
  for (round = 0; round < 9; ++round) {
    counter = sk_detail_philox_round(counter, key0, key1);
    key0 += SK_DETAIL_PHILOX_W0;
    key1 += SK_DETAIL_PHILOX_W1;
  }
  return sk_detail_philox_round(counter, key0, key1);
}

/**
 * \brief Block `counter` of stream `stream_id` under `seed`: four independent 32-bit draws.
 * \param seed the 64-bit seed (the Philox key).
 * \param stream_id which independent stream (cuRAND's subsequence).
 * \param counter which block of four in the stream (cuRAND's offset / 4).
 * \return the same four words as `curand4()` after `curand_init(seed, stream_id, 4 * counter, &state)`.
 * \sk_rng_cost{one block of four words}
 */
SK_HOST_DEVICE sk_u32x4 sk_rng_u32x4(uint64_t seed, uint64_t stream_id, uint64_t counter) {
  sk_u32x4 c;
  c.x = (uint32_t)counter;
  c.y = (uint32_t)(counter >> 32);
  c.z = (uint32_t)stream_id;
  c.w = (uint32_t)(stream_id >> 32);
  return sk_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/**
 * \brief The `index`-th 32-bit draw of a stream: word index % 4 of block index / 4.
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param index position in the stream.
 * \return the value the (index + 1)-th `curand()` call returns after `curand_init(seed, stream_id, 0, &state)`.
 * \sk_rng_cost{one block (three of its four words are discarded: use sk_rng_u32x4() for runs)}
 */
SK_HOST_DEVICE uint32_t sk_rng_u32(uint64_t seed, uint64_t stream_id, uint64_t index) {
  const sk_u32x4 b = sk_rng_u32x4(seed, stream_id, index >> 2);
  switch ((unsigned)(index & 3u)) {
    case 0:
      return b.x;
    case 1:
      return b.y;
    case 2:
      return b.z;
    default:
      return b.w;
  }
}

/**
 * \brief Maps a 32-bit draw to a float in [0, 1 - 2^-24]: (x >> 8) * 2^-24, exactly.
 * \param x a uniformly distributed 32-bit word.
 * \return one of the 2^24 values k 2^-24, each with probability 2^-24; never 1.0f.
 */
SK_HOST_DEVICE float sk_rng_unit_f32(uint32_t x) {
  return (float)(x >> 8) * 5.9604644775390625e-8f; /* 2^-24: exact, and so is the product */
}

/**
 * \brief Maps two 32-bit draws to a double in [0, 1 - 2^-53]: 53 bits, hi first.
 * \param hi the draw that gives the top 32 bits (its top 27 are used).
 * \param lo the draw that gives the low bits (its top 26 are used).
 * \return one of the 2^53 values k 2^-53, each with probability 2^-53; never 1.0.
 */
SK_HOST_DEVICE double sk_rng_unit_f64(uint32_t hi, uint32_t lo) {
  const uint64_t bits = ((uint64_t)(hi >> 5) << 26) | (uint64_t)(lo >> 6);
  return (double)bits * 1.1102230246251565404236316680908203125e-16; /* 2^-53 */
}

/**
 * \brief Four float uniforms in [0, 1 - 2^-24] from block `counter` of a stream.
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param counter which block of four.
 * \return sk_rng_unit_f32() of each word of sk_rng_u32x4(seed, stream_id, counter).
 * \sk_rng_cost{one block of four words}
 */
SK_HOST_DEVICE sk_f32x4 sk_rng_uniform4_f32(uint64_t seed, uint64_t stream_id, uint64_t counter) {
  const sk_u32x4 b = sk_rng_u32x4(seed, stream_id, counter);
  sk_f32x4 f;
  f.x = sk_rng_unit_f32(b.x);
  f.y = sk_rng_unit_f32(b.y);
  f.z = sk_rng_unit_f32(b.z);
  f.w = sk_rng_unit_f32(b.w);
  return f;
}

/**
 * \brief The `index`-th float uniform of a stream: sk_rng_unit_f32(sk_rng_u32(seed, stream_id, index)).
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param index position in the stream.
 * \return a float in [0, 1 - 2^-24].
 * \sk_rng_cost{one block}
 */
SK_HOST_DEVICE float sk_rng_uniform_f32(uint64_t seed, uint64_t stream_id, uint64_t index) {
  return sk_rng_unit_f32(sk_rng_u32(seed, stream_id, index));
}

/**
 * \brief The `index`-th double uniform of a stream: words (x, y) of block index / 2 for an even
 * index, (z, w) for an odd one, through sk_rng_unit_f64().
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param index position in the stream of doubles.
 * \return a double in [0, 1 - 2^-53].
 * \sk_rng_cost{one block}
 */
SK_HOST_DEVICE double sk_rng_uniform_f64(uint64_t seed, uint64_t stream_id, uint64_t index) {
  const sk_u32x4 b = sk_rng_u32x4(seed, stream_id, index >> 1);
  return (index & 1u) ? sk_rng_unit_f64(b.z, b.w) : sk_rng_unit_f64(b.x, b.y);
}

SK_EXTERN_C_BEGIN

/**
 * \brief Fills a device array with float uniforms: `d_out[i] = sk_rng_uniform_f32(seed, stream_id, first_index + i)`.
 *
 * Asynchronous on `stream`. The result does not depend on the device or the launch shape.
 * \param seed the 64-bit seed.
 * \param stream_id which independent stream.
 * \param first_index position in the stream of d_out[0].
 * \param d_out device array of `num` floats.
 * \param num number of floats to write; 0 writes nothing and launches nothing.
 * \param stream the CUDA stream to run on (0: the legacy default stream).
 * \retval SK_SUCCESS the kernel was launched (errors during its run surface at the next synchronisation).
 * \retval SK_ERROR_NULL_POINTER `d_out` is NULL and `num` > 0 (CUDA is not touched).
 * \retval SK_ERROR_INVALID_VALUE `first_index + num` overflows 64 bits (CUDA is not touched).
 * \retval SK_ERROR_NO_DEVICE no driver or no usable device; nothing was launched.
 * \retval SK_ERROR_CUDA_PENDING a CUDA error from earlier work was pending; nothing was launched.
 * \retval SK_ERROR_CUDA_LAUNCH_FAILED the launch failed; see sk_last_cuda_error().
 *
 * Work: one Philox block per four outputs; memory: 4 bytes written per output. Thread-safe.
 */
SK_API sk_status sk_rng_fill_uniform_f32(uint64_t seed, uint64_t stream_id, uint64_t first_index,
                                         float *d_out, size_t num, sk_stream stream);

SK_EXTERN_C_END

/** @} */

#endif /* SAMPLEKIT_RNG_H */
