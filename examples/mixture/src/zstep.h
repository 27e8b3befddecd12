/**
 * \file zstep.h
 * \brief The z-step's own arithmetic, one definition for the CPU reference (C) and the GPU kernels
 * (CUDA): the chains of the log-weights, the uniforms, and the draw composed of samplekit's thread-tile
 * sampler (samplekit/thread_tile_sample.h), every operation rounded as named so that both compute the
 * same bits.
 *
 * **The draw of z_n.** Log-weights are in base 2 (the table holds them so, sk_mix_ztable): component k's
 * is `L_k = -q_k` with `q_k` the chain `q = -c_k`, then for j = 0, 1, ..., D - 1 in order
 * `q = fma(t_kj, t_kj, q)` with `t_kj = fma(x_j, s_kj, -ms_kj)`: each step one fused multiply-add.
 * Components come in tiles of 32 (tile b holds k = 32 b .. 32 b + 31; components past K are absent:
 * q = +inf). Per tile, in samplekit's terms (the \ref sk_thread_tile_sample group):
 * - the shift `h_b` = the smallest q_k of the tile (exact; the largest log-weight is -h_b);
 * - `e_k = sk_tile_exp2_neg_f32(h_b - q_k)` (the difference rounded once), each in [0, 1], the largest
 *   exactly 1 (absent components: +0);
 * - `T_b` = sk_thread_tile_sum_f32() of the tile's e (the butterfly's tree: pairs, then pairs of pairs);
 * - the reservoir's step sk_thread_tile_reservoir_step_f32() with `u_b`; the taken tile's e are kept.
 * Finally the kept tile is searched for `u = u_0 * T_sel` (sk_thread_tile_search_f32()); the draw is
 * `32 sel + position`. The group states the tie rules: u exactly on a rebuilt edge goes to the later
 * component; a reservoir uniform with `u_b * S == W` keeps the earlier tile. Absent components and
 * weights that underflow are never drawn.
 *
 * **Uniforms.** Point n of sweep `sweep` uses `NB = ceil(K / 32)` uniforms: u_i is word i % 4 of the
 * Philox block `n * ceil(NB / 4) + i / 4` of stream `SK_MIX_STREAM(sweep, SK_MIX_ROLE_Z)`
 * (sk_rng_uniform4_f32()); u_0 is the final search's, u_b (b >= 1) tile b's reservoir test.
 *
 * Base 2 spares the exponential a Cody-Waite reduction and a scaling by log2 e: the table's constants
 * carry it (mixture.h).
 *
 * The GPU kernels compute the same values in other arrangements (gpu/zstep_gpu.cuh's table): the
 * broadcast kernels keep each point's tile in a thread's registers (and two points' chains share each
 * table load); the butterfly kernel holds a 32 x 32 block of points and components in a warp, where
 * samplekit's butterfly does the maxima, tree sums and search (a maximum of the log-weights -q is minus
 * the minimum of q, and L - M rounds as h - q does). The thread kernel and the CPU call
 * sk_mix_draw_point() itself.
 */
#ifndef SK_MIX_ZSTEP_H
#define SK_MIX_ZSTEP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "samplekit/rng.h"
#include "samplekit/thread_tile_sample.h"

#if defined(__CUDACC__)
/** \brief Qualifier of the z-step's functions: host and device under nvcc, static inline in C. */
#define SK_MIX_HD static __host__ __device__ __forceinline__
#else
#define SK_MIX_HD static inline
#endif

/** \brief Components per tile: a warp's width, the butterfly's block. */
#define SK_MIX_TILE SK_THREAD_TILE_MAX_WIDTH

/** \brief The roles that split a sweep's random numbers into streams. */
enum sk_mix_role {
  SK_MIX_ROLE_Z = 0,      /**< the z-step's uniforms */
  SK_MIX_ROLE_PARAMS = 1, /**< the parameter step's variates */
  SK_MIX_ROLE_INIT = 2,   /**< the initialisation (sweep 0) */
  SK_MIX_ROLE_GEN = 3     /**< the generator of planted data (sweep 0) */
};

/** \brief The Philox stream of a sweep's role: `4 sweep + role`. */
#define SK_MIX_STREAM(sweep, role) ((uint64_t)(sweep)*4u + (uint64_t)(role))

/** \brief +infinity as a float (absent components' chain: log-weight -inf). \return +inf. */
SK_MIX_HD float sk_mix_pos_inf(void) { return INFINITY; }

/** \brief The smaller of a and b, NaN ignored (fminf). \param a a value. \param b a value. \return min. */
SK_MIX_HD float sk_mix_fmin(float a, float b) { return fminf(a, b); }

/**
 * \brief Minus component k's base-2 log-weight for point x, by its chain: `q = -c_k`, then
 * `q = fma(t_j, t_j, q)` for j in order, with `t_j = fma(x_j, s_kj, -ms_kj)` (the file's description).
 * \param x the point's D values.
 * \param d dimensions D.
 * \param c the component's constant c_k.
 * \param s the component's first scaled inverse standard deviation; dimension j's is at s[j * stride].
 * \param ms the component's first scaled mean over standard deviation, same stride.
 * \param stride the distance between dimensions in s and ms.
 * \return q_k = -L_k (up to a constant shared by all components).
 */
SK_MIX_HD float sk_mix_neg_log_weight(const float *x, int32_t d, float c, const float *s, const float *ms,
                                      int64_t stride) {
  float q = -c;
  int32_t j;
  for (j = 0; j < d; ++j) {
    const float t = sk_tile_fma_rn_f32(x[j], s[j * stride], -ms[j * stride]);
    q = sk_tile_fma_rn_f32(t, t, q);
  }
  return q;
}

/** \brief Tiles of a z-step over K components: ceil(K / 32). \param k components. \return NB. */
SK_MIX_HD int sk_mix_num_tiles(int32_t k) { return (int)((k + SK_MIX_TILE - 1) / SK_MIX_TILE); }

/**
 * \brief Uniforms u_(4 blk) .. u_(4 blk + 3) of point n's z-step draw (see the file's description).
 * \param seed the run's seed.
 * \param sweep the sweep.
 * \param n the point.
 * \param num_tiles NB.
 * \param blk which block of four.
 * \return the four uniforms, in [0, 1 - 2^-24].
 */
SK_MIX_HD sk_f32x4 sk_mix_z_uniforms(uint64_t seed, uint64_t sweep, int64_t n, int num_tiles, int blk) {
  const uint64_t per_point = (uint64_t)((num_tiles + 3) / 4);
  return sk_rng_uniform4_f32(seed, SK_MIX_STREAM(sweep, SK_MIX_ROLE_Z), (uint64_t)n * per_point + (uint64_t)blk);
}

/** \brief Word i of four uniforms. \param f the four. \param i 0..3. \return f.x, f.y, f.z or f.w. */
SK_MIX_HD float sk_mix_pick4(sk_f32x4 f, int i) { return i == 0 ? f.x : i == 1 ? f.y : i == 2 ? f.z : f.w; }

/**
 * \brief Draws z for one point: the whole of the file's description, one thread.
 * \param x the point's D values.
 * \param d dimensions D.
 * \param k components K, >= 1.
 * \param c K constants c_k.
 * \param s scaled inverse standard deviations (sk_mix_ztable): component k, dimension j at
 *        s[j * stride_j + k * stride_k].
 * \param ms scaled means over standard deviations, same layout.
 * \param stride_j distance between dimensions.
 * \param stride_k distance between components.
 * \param seed the run's seed.
 * \param sweep the sweep.
 * \param n the point's index (picks its uniforms).
 * \return the component, in [0, K).
 */
SK_MIX_HD int32_t sk_mix_draw_point(const float *x, int32_t d, int32_t k, const float *c, const float *s,
                                    const float *ms, int64_t stride_j, int64_t stride_k, uint64_t seed, uint64_t sweep,
                                    int64_t n) {
  const int num_tiles = sk_mix_num_tiles(k);
  float e[SK_MIX_TILE], kept[SK_MIX_TILE];
  sk_thread_tile_reservoir_f32 r;
  sk_f32x4 u4 = sk_mix_z_uniforms(seed, sweep, n, num_tiles, 0);
  const float u0 = u4.x;
  int b, i;
  sk_thread_tile_reservoir_init_f32(&r);
  for (i = 0; i < SK_MIX_TILE; ++i) kept[i] = 0.0f; /* tile 0 is always taken; this quiets the compiler */
  for (b = 0; b < num_tiles; ++b) {
    float hb = sk_mix_pos_inf(), tb;
    for (i = 0; i < SK_MIX_TILE; ++i) {
      const int32_t comp = b * SK_MIX_TILE + i;
      e[i] = comp < k ? sk_mix_neg_log_weight(x, d, c[comp], s + comp * stride_k, ms + comp * stride_k, stride_j)
                      : sk_mix_pos_inf();
      hb = sk_mix_fmin(hb, e[i]);
    }
    for (i = 0; i < SK_MIX_TILE; ++i) e[i] = sk_tile_exp2_neg_f32(sk_tile_sub_rn_f32(hb, e[i]));
    tb = sk_thread_tile_sum_f32(e, SK_MIX_TILE);
    if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(seed, sweep, n, num_tiles, b / 4);
    if (sk_thread_tile_reservoir_step_f32(&r, b, hb, tb, sk_mix_pick4(u4, b % 4)))
      for (i = 0; i < SK_MIX_TILE; ++i) kept[i] = e[i];
  }
  return r.sel * SK_MIX_TILE + sk_thread_tile_search_f32(kept, SK_MIX_TILE, sk_tile_mul_rn_f32(u0, r.t_sel));
}

#endif /* SK_MIX_ZSTEP_H */
