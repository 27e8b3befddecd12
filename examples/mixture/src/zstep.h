/**
 * \file zstep.h
 * \brief The z-step's arithmetic, one definition for the CPU reference (C) and the GPU kernels (CUDA):
 * every operation a rounded float operation named explicitly, so both compute the same bits.
 *
 * **The draw of z_n.** Log-weights are in base 2 (the table holds them so, sk_mix_ztable): component k's
 * is `L_k = -q_k` with `q_k` the chain `q = -c_k`, then for j = 0, 1, ..., D - 1 in order
 * `q = fma(t_kj, t_kj, q)` with `t_kj = fma(x_j, s_kj, -ms_kj)`: each step one fused multiply-add.
 * Components come in tiles of 32 (tile b holds k = 32 b .. 32 b + 31; components past K are absent:
 * q = +inf). Per tile:
 * - `h_b` = the smallest q_k of the tile (exact; the largest log-weight is -h_b);
 * - `e_k = sk_mix_exp2_neg(h_b - q_k)` (the difference rounded once), each in [0, 1], the largest
 *   exactly 1: no overflow or underflow for any data scale, since only differences of log-weights are
 *   exponentiated;
 * - `T_b` = the tile's sum of e along the butterfly's tree (samplekit/butterfly.cuh: pairs, then
 *   pairs of pairs, ...; sk_mix_tree_sum32()).
 *
 * Across tiles, one tile is chosen by a weighted reservoir over the running minimum: tile 0 is taken;
 * after it `h = h_0`, `S = T_0`. Tile b > 0 has weight `W = T_b` when `h_b < h` (then `S = S *
 * 2^(h_b - h) + T_b` and `h = h_b`), else `W = T_b * 2^(h - h_b)` (then `S = S + W`), each power by
 * sk_mix_exp2_neg() of the difference rounded once; it replaces the tile taken so far when
 * `u_b * S < W`. In exact arithmetic tile b ends up taken with probability
 * W_b / S_final (the product of the later tiles' keep probabilities telescopes), so one pass over the
 * components suffices: the chosen tile's e values are kept, none is recomputed.
 * Finally `u = u_0 * T_sel` is searched in the chosen tile's tree as the butterfly searches a block
 * (sk_mix_tree_search32()): at each level, go right when the right half is > 0 and u >= base + left
 * half. **Ties**: u exactly on a rebuilt edge goes to the later component; a reservoir uniform with
 * `u_b * S == W` keeps the earlier tile. Absent components and weights that underflow are never drawn.
 *
 * **Uniforms.** Point n of sweep `sweep` uses `NB = ceil(K / 32)` uniforms: u_i is word i % 4 of the
 * Philox block `n * ceil(NB / 4) + i / 4` of stream `SK_MIX_STREAM(sweep, SK_MIX_ROLE_Z)`
 * (sk_rng_uniform4_f32()); u_0 is the final search's, u_b (b >= 1) tile b's reservoir test.
 *
 * **exp.** `sk_mix_exp2_neg(y)` for y <= 0: n = round(y) by the 1.5 2^23 trick (one addition and one
 * subtraction), r = y - n (exact, in [-1/2, 1/2]), 2^r by a polynomial of degree 6 (six fmas; its
 * coefficients are the minimax fit of relative error on [-1/2, 1/2] rounded to float, whose error is
 * 2.1e-8), times 2^n by adding n to the exponent bits: within 3e-7 of 2^y in all (tests/mixture
 * measures it). y < -125 (2^y < 2.4e-38, at the bottom of the normal floats) and NaN give +0, by a
 * select and not a branch. Base 2 spares the Cody-Waite reduction of base e (r = y - n is exact) and
 * the scaling by log2 e: the table's constants carry it (mixture.h).
 *
 * The GPU kernels compute the same values in other arrangements (gpu/mix_gpu.h): the broadcast kernel
 * keeps each point's tile in a thread's registers (and two points' chains share each table load); the
 * butterfly kernel holds a 32 x 32 block of points and components in a warp, where samplekit's
 * butterfly does the maxima, tree sums and search (a maximum of the log-weights -q is minus the
 * minimum of q, and L - M rounds as h - q does). The thread kernel and the CPU call
 * sk_mix_draw_point() itself.
 */
#ifndef SK_MIX_ZSTEP_H
#define SK_MIX_ZSTEP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "samplekit/rng.h"

#if defined(__CUDACC__)
/** \brief Qualifier of the z-step's functions: host and device under nvcc, static inline in C. */
#define SK_MIX_HD static __host__ __device__ __forceinline__
#else
#define SK_MIX_HD static inline
#endif

/** \brief Components per tile: a warp's width, the butterfly's block. */
#define SK_MIX_TILE 32

/** \brief The roles that split a sweep's random numbers into streams. */
enum sk_mix_role {
  SK_MIX_ROLE_Z = 0,      /**< the z-step's uniforms */
  SK_MIX_ROLE_PARAMS = 1, /**< the parameter step's variates */
  SK_MIX_ROLE_INIT = 2,   /**< the initialisation (sweep 0) */
  SK_MIX_ROLE_GEN = 3     /**< the generator of planted data (sweep 0) */
};

/** \brief The Philox stream of a sweep's role: `4 sweep + role`. */
#define SK_MIX_STREAM(sweep, role) ((uint64_t)(sweep)*4u + (uint64_t)(role))

/* --- rounded float operations, the same on host and device -------------------------------------- */
/* On the device each is the _rn intrinsic, which nvcc never fuses or reorders; on the host the C
   operators, in a file compiled with -ffp-contract=off (ISO C mode does not contract either), and
   fmaf, which IEEE 754 rounds once like __fmaf_rn. */
#if defined(__CUDA_ARCH__)
#define SK_MIX_DETAIL_ADD(a, b) __fadd_rn(a, b)
#define SK_MIX_DETAIL_SUB(a, b) __fsub_rn(a, b)
#define SK_MIX_DETAIL_MUL(a, b) __fmul_rn(a, b)
#define SK_MIX_DETAIL_FMA(a, b, c) __fmaf_rn(a, b, c)
#else
#define SK_MIX_DETAIL_ADD(a, b) ((a) + (b))
#define SK_MIX_DETAIL_SUB(a, b) ((a) - (b))
#define SK_MIX_DETAIL_MUL(a, b) ((a) * (b))
#define SK_MIX_DETAIL_FMA(a, b, c) fmaf(a, b, c)
#endif

/** \brief a + b, rounded once. \param a addend. \param b addend. \return the sum. */
SK_MIX_HD float sk_mix_fadd(float a, float b) { return SK_MIX_DETAIL_ADD(a, b); }

/** \brief a - b, rounded once. \param a minuend. \param b subtrahend. \return the difference. */
SK_MIX_HD float sk_mix_fsub(float a, float b) { return SK_MIX_DETAIL_SUB(a, b); }

/** \brief a * b, rounded once. \param a factor. \param b factor. \return the product. */
SK_MIX_HD float sk_mix_fmul(float a, float b) { return SK_MIX_DETAIL_MUL(a, b); }

/** \brief a * b + c, rounded once. \param a factor. \param b factor. \param c addend. \return the result. */
SK_MIX_HD float sk_mix_ffma(float a, float b, float c) { return SK_MIX_DETAIL_FMA(a, b, c); }

/** \brief The bits of a float. \param f the float. \return its IEEE 754 bits. */
SK_MIX_HD uint32_t sk_mix_f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
#endif
}

/** \brief The float of given bits. \param u IEEE 754 bits. \return the float. */
SK_MIX_HD float sk_mix_f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
#endif
}

/** \brief +infinity as a float (absent components' chain: log-weight -inf). \return +inf. */
SK_MIX_HD float sk_mix_pos_inf(void) { return sk_mix_f32_from_bits(0x7f800000u); }

/** \brief The smaller of a and b, NaN ignored (fminf). \param a a value. \param b a value. \return min. */
SK_MIX_HD float sk_mix_fmin(float a, float b) { return fminf(a, b); }

/**
 * \brief 2^y for y <= 0, by the method of the file's description; identical bits on host and device.
 * \param y the exponent, <= 0 (a positive y is outside the contract).
 * \return 2^y within 3e-7 relative; +0 for y < -125 or NaN.
 */
SK_MIX_HD float sk_mix_exp2_neg(float y) {
  /* 1.5 * 2^23: adding it rounds y to an integer n held in the low mantissa bits. */
  const float shifter = 12582912.0f;
  const float j = sk_mix_fadd(y, shifter);
  const float n = sk_mix_fsub(j, shifter);
  const float r = sk_mix_fsub(y, n); /* exact (Sterbenz; or n = 0): |r| <= 1/2 */
  /* Constants as hexadecimal literals, so that no compiler's decimal conversion is involved. */
  float p = 0x1.470b4ap-13f;
  p = sk_mix_ffma(p, r, 0x1.5f7276p-10f);
  p = sk_mix_ffma(p, r, 0x1.3b270ep-7f);
  p = sk_mix_ffma(p, r, 0x1.c6ae72p-5f);
  p = sk_mix_ffma(p, r, 0x1.ebfbe2p-3f);
  p = sk_mix_ffma(p, r, 0x1.62e432p-1f);
  p = sk_mix_ffma(p, r, 1.0f); /* 2^r = 1 + r (ln 2 + ...): exactly 1 at r = 0 */
  /* n in [-125, 0] and p in [0.70, 1.42]: adding n to the exponent field keeps a normal float. The
     value is computed for every y and then selected, with no branch: the GPU kernels evaluate it for
     32 weights at a time, where a branch per call would cost more than the select. */
  const uint32_t n_bits = sk_mix_f32_bits(j) - sk_mix_f32_bits(shifter);
  const float e = sk_mix_f32_from_bits(sk_mix_f32_bits(p) + (n_bits << 23));
  return y >= -125.0f ? e : 0.0f;
}

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
    const float t = sk_mix_ffma(x[j], s[j * stride], -ms[j * stride]);
    q = sk_mix_ffma(t, t, q);
  }
  return q;
}

/**
 * \brief The tree sum of 32 values: pairs, then pairs of pairs, ... (the butterfly's block sum).
 * \param v 32 values.
 * \return `S_5(0)` with `S_0(t) = v[t]`, `S_m(n) = S_(m-1)(2n) + S_(m-1)(2n+1)`.
 */
SK_MIX_HD float sk_mix_tree_sum32(const float *v) {
  float a[SK_MIX_TILE];
  int w, i;
  for (i = 0; i < SK_MIX_TILE; ++i) a[i] = v[i];
  for (w = SK_MIX_TILE / 2; w >= 1; w /= 2)
    for (i = 0; i < w; ++i) a[i] = sk_mix_fadd(a[2 * i], a[2 * i + 1]);
  return a[0];
}

/**
 * \brief One level of the tree search (the tie rule, in one place for every kernel): from node n,
 * whose children's sums are `left` and `right`, go right when the right half is > 0 and u >= base +
 * left (base then moves past the left half), else left.
 * \param left the left child's sum.
 * \param right the right child's sum.
 * \param u the point searched for.
 * \param base the sum of everything left of node n; updated.
 * \return the child taken: 2 n + 1 (right) or 2 n (left).
 */
SK_MIX_HD int sk_mix_tree_step(float left, float right, float u, float *base, int n) {
  const float edge = sk_mix_fadd(*base, left);
  if (right > 0.0f && u >= edge) {
    *base = edge;
    return 2 * n + 1;
  }
  return 2 * n;
}

/**
 * \brief The butterfly's search in one tile from base 0 (samplekit/butterfly.cuh): the position of u.
 * \param v the tile's 32 weights, >= 0.
 * \param u the point searched for, >= 0.
 * \return the position 0..31: where every level went right when its right half was > 0 and u >= base +
 *         left half.
 */
SK_MIX_HD int sk_mix_tree_search32(const float *v, float u) {
  float node[6][SK_MIX_TILE];
  float base = 0.0f;
  int m, i, n = 0;
  for (i = 0; i < SK_MIX_TILE; ++i) node[0][i] = v[i];
  for (m = 1; m <= 5; ++m)
    for (i = 0; i < (SK_MIX_TILE >> m); ++i) node[m][i] = sk_mix_fadd(node[m - 1][2 * i], node[m - 1][2 * i + 1]);
  for (m = 5; m >= 1; --m) n = sk_mix_tree_step(node[m - 1][2 * n], node[m - 1][2 * n + 1], u, &base, n);
  return n;
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

/** \brief The reservoir's state for one point: the running minimum and sum, the tile taken so far. */
typedef struct sk_mix_reservoir {
  float h;     /**< the smallest tile minimum h_b so far (minus the largest log-weight) */
  float s;     /**< the sum of the tiles' weights so far, relative to 2^-h */
  float t_sel; /**< the tree sum of the taken tile, relative to its own minimum */
  int sel;     /**< the taken tile */
} sk_mix_reservoir;

/**
 * \brief One tile's step of the reservoir (the file's description), for tile b with minimum `hb` and
 * tree sum `tb`; `ub` is u_b (unused for b = 0). The same values as sk_mix_reservoir_step(), with a
 * choice of code shape.
 * \param r the state (any contents for b = 0).
 * \param b the tile.
 * \param hb its smallest chain value (minus its largest log-weight).
 * \param tb its tree sum.
 * \param ub its uniform.
 * \param selects 0: the two cases by a branch; 1: by selects, with one power computed (on a GPU whose
 *        lanes disagree on the case a branch runs both powers; the register kernels were measured 1 to
 *        3% faster with the branch and the transposed kernel 0.7% faster with the selects).
 * \return 1 when tile b is taken (its e values must then be kept).
 */
SK_MIX_HD int sk_mix_reservoir_step_as(sk_mix_reservoir *r, int b, float hb, float tb, float ub, int selects) {
  float w;
  if (b == 0) {
    r->h = hb;
    r->s = tb;
    r->t_sel = tb;
    r->sel = 0;
    return 1;
  }
  if (selects) {
    /* hb < h: S = S 2^(hb - h) + T_b and W = T_b; else W = T_b 2^(h - hb) and S = S + W. */
    const int lower = hb < r->h;
    const float power = sk_mix_exp2_neg(lower ? sk_mix_fsub(hb, r->h) : sk_mix_fsub(r->h, hb));
    const float scaled = sk_mix_fmul(lower ? r->s : tb, power);
    w = lower ? tb : scaled;
    r->s = sk_mix_fadd(scaled, lower ? tb : r->s);
    r->h = lower ? hb : r->h;
  } else if (hb < r->h) {
    r->s = sk_mix_fadd(sk_mix_fmul(r->s, sk_mix_exp2_neg(sk_mix_fsub(hb, r->h))), tb);
    r->h = hb;
    w = tb;
  } else {
    w = sk_mix_fmul(tb, sk_mix_exp2_neg(sk_mix_fsub(r->h, hb)));
    r->s = sk_mix_fadd(r->s, w);
  }
  if (sk_mix_fmul(ub, r->s) < w) {
    r->sel = b;
    r->t_sel = tb;
    return 1;
  }
  return 0;
}

/**
 * \brief One tile's step of the reservoir (the file's description), for tile b with minimum `hb` and
 * tree sum `tb`; `ub` is u_b (unused for b = 0).
 * \param r the state (any contents for b = 0).
 * \param b the tile.
 * \param hb its smallest chain value (minus its largest log-weight).
 * \param tb its tree sum.
 * \param ub its uniform.
 * \return 1 when tile b is taken (its e values must then be kept).
 */
SK_MIX_HD int sk_mix_reservoir_step(sk_mix_reservoir *r, int b, float hb, float tb, float ub) {
  return sk_mix_reservoir_step_as(r, b, hb, tb, ub, 0);
}

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
  sk_mix_reservoir r;
  sk_f32x4 u4 = sk_mix_z_uniforms(seed, sweep, n, num_tiles, 0);
  const float u0 = u4.x;
  int b, i;
  r.h = r.s = r.t_sel = 0.0f;
  r.sel = 0;
  for (i = 0; i < SK_MIX_TILE; ++i) kept[i] = 0.0f; /* tile 0 is always taken; this quiets the compiler */
  for (b = 0; b < num_tiles; ++b) {
    float hb = sk_mix_pos_inf(), tb;
    for (i = 0; i < SK_MIX_TILE; ++i) {
      const int32_t comp = b * SK_MIX_TILE + i;
      e[i] = comp < k ? sk_mix_neg_log_weight(x, d, c[comp], s + comp * stride_k, ms + comp * stride_k, stride_j)
                      : sk_mix_pos_inf();
      hb = sk_mix_fmin(hb, e[i]);
    }
    for (i = 0; i < SK_MIX_TILE; ++i) e[i] = sk_mix_exp2_neg(sk_mix_fsub(hb, e[i]));
    tb = sk_mix_tree_sum32(e);
    if (b > 0 && b % 4 == 0) u4 = sk_mix_z_uniforms(seed, sweep, n, num_tiles, b / 4);
    if (sk_mix_reservoir_step(&r, b, hb, tb, sk_mix_pick4(u4, b % 4)))
      for (i = 0; i < SK_MIX_TILE; ++i) kept[i] = e[i];
  }
  return r.sel * SK_MIX_TILE + sk_mix_tree_search32(kept, sk_mix_fmul(u0, r.t_sel));
}

#endif /* SK_MIX_ZSTEP_H */
