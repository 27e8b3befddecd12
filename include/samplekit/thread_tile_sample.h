/**
 * \file thread_tile_sample.h
 * \brief One thread draws from K weights that it computes tile by tile in its registers: the tile's
 * tree sum and search, and a weighted reservoir over the tiles. Callable from host and device code alike.
 *
 * C-clean: host code compiled by a plain C99 or C++ compiler calls the same functions as device code
 * and gets the very same bits, so that a CPU reference can replay a GPU sampler exactly.
 */
#ifndef SAMPLEKIT_THREAD_TILE_SAMPLE_H
#define SAMPLEKIT_THREAD_TILE_SAMPLE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sk_config.h"

/**
 * \defgroup sk_thread_tile_sample Thread-scope sampling over register tiles
 * \brief A thread draws one index from its own K weights without storing them: it computes them a tile
 * of W at a time (W = 1, 2, 4, 8, 16 or 32), sums each tile along a fixed tree, lets a weighted
 * reservoir decide which tile the draw falls in, keeps that tile's W weights, and searches it at the end.
 *
 * This is the setting of Steele and Tristan's butterfly sampler (each thread draws from its own
 * distribution computed on the fly; \ref sk_butterfly) taken to one thread: no shuffle, no shared
 * memory, and O(W) registers whatever K is. The reservoir is the one-item case of Chao's unequal
 * probability sampling (M. T. Chao, "A general purpose unequal probability sampling plan", Biometrika
 * 69(3), 1982): item b replaces the kept one with probability W_b / (W_0 + ... + W_b), here with the
 * running sum kept relative to the largest weight so far, so that log-weights of any scale work.
 *
 * **The tile's tree.** Tile values v_0 .. v_(W-1) are combined along a binary tree: pairs, then pairs
 * of pairs: `S_0(t) = v_t` and `S_m(n) = S_(m-1)(2n) op S_(m-1)(2n+1)` for m = 1 .. log2 W, each op
 * one rounded float operation. sk_thread_tile_sum_f32() returns the root with op = `+`: the same
 * grouping as the butterfly's block sum (sk_warp_butterfly_block_sum_f32()), so for W = 32 the two
 * give the same bits. sk_thread_tile_min_f32() uses `fminf`, whose result does not depend on the
 * grouping except for the sign of a zero minimum.
 *
 * **The search** (sk_thread_tile_search_f32()) descends the same tree from `base = +0`: at each level,
 * with `L` and `R` the node's halves and `edge = base + L` (rounded), it goes right when `R > 0` and
 * `u >= edge` (then `base = edge`), else left. **Ties**: u exactly on a rebuilt edge goes to the later
 * position, as everywhere in samplekit (\ref conventions_determinism "conventions"); a half whose sum is
 * 0 is never entered, so a position of weight 0 is never returned while the tile has a positive weight
 * and `u >= 0`; `u = +inf` gives the last position of positive weight; a tile of zeros (or a NaN u)
 * gives 0. For weights >= +0, width W gives what width 32 gives with v_W .. v_31 = +0.
 *
 * **The reservoir over tiles.** Tile b (b = 0, 1, ...) has weights `e_i 2^(-h_b)`: the caller passes
 * its shift `h_b` and the tree sum `T_b` of its e_i. With log2-weights `L_i` the usual choice is
 * `h_b = -max L_i` and `e_i = sk_tile_exp2_neg_f32(h_b - (-L_i))` (every e_i in [0, 1], the largest 1:
 * no overflow or underflow at any scale, only differences are exponentiated); with plain weights, h_b =
 * 0 and e_i the weights (every power below is then exactly 1 and every product exact). The state keeps
 * the smallest shift so far `h`, the sum `S` of the tiles' weights relative to `2^(-h)`, and the taken
 * tile. Tile 0 is taken: `h = h_0`, `S = T_0`. Tile b > 0 has weight `W = T_b` when `h_b < h` (then
 * `S = S 2^(h_b - h) + T_b` and `h = h_b`), else `W = T_b 2^(h - h_b)` (then `S = S + W`), each power
 * sk_tile_exp2_neg_f32() of the difference rounded once, each product and sum rounded once; it replaces
 * the taken tile when `u_b S < W` (rounded product; **tie**: `u_b S == W` keeps the earlier tile). In
 * exact arithmetic tile b ends up taken with probability `W_b / S_final` (the later tiles' keep
 * probabilities telescope), so one pass suffices. At the end the draw is position
 * `sk_thread_tile_search_f32(kept, W, u_0 T_sel)` (rounded product) of tile `sel`, where `kept` holds the
 * taken tile's e_i and u_0 is a uniform independent of the u_b. Two code shapes compute the same bits:
 * sk_thread_tile_reservoir_step_f32() by a branch, sk_thread_tile_reservoir_step_select_f32() by
 * selects with one power (on a GPU whose lanes disagree on the branch, the branch runs both powers).
 *
 * **Rounded operations.** Every float operation above is one of sk_tile_add_rn_f32(),
 * sk_tile_sub_rn_f32(), sk_tile_mul_rn_f32(), sk_tile_fma_rn_f32(): the `_rn` intrinsics on the device
 * (never fused or reordered by nvcc), the C operators and `fmaf` on the host. Host code must not let
 * its compiler contract a product and a sum into a fused multiply-add: GCC does so only in its GNU
 * modes (use an ISO mode such as `-std=c99`, or `-ffp-contract=off`); Clang's default contracts only
 * within one expression, which these functions never write.
 *
 * **Determinism.** Every result is a pure function of the arguments: the same on every GPU, for every
 * launch shape, and on the host. tests/ref/thread_tile_ref.c replays the order above in plain C and
 * tests/test_thread_tile_sample.cu requires equal bits on both.
 *
 * **Storage and cost.** No shared or global memory. The tile is an array of the caller's; with a
 * width known when compiling (the usual case: the functions are inlined and their loops unrolled) it
 * stays in registers. Per tile: W - 1 additions (or `fminf`) for a sum (or minimum); for a reservoir
 * step one sk_tile_exp2_neg_f32() (three additions or subtractions, six fused multiply-adds, an integer
 * addition and a select), two products, one sum and one comparison (the branch shape: both powers where
 * the lanes of a warp disagree); for the final search W - 1 additions to build the tree, then per level
 * one addition and two comparisons, about 2 W selects in all to pick each level's node (registers cannot
 * be indexed at run time).
 *
 * **Preconditions.** `width` is 1, 2, 4, 8, 16 or 32, and `v` holds at least `width` values. Weights
 * are >= +0 and finite (`-0.0f` counts as 0); tile sums are finite; shifts are finite or +inf (a tile
 * with no weight: it gets weight 0); reservoir uniforms are in [0, 1).
 *
 * Usage (device code; the same calls compile in host code):
 * \snippet test_thread_tile_sample.cu thread_tile_usage
 * @{
 */

/** \brief The widest tile: a warp's width, the butterfly's block. */
#define SK_THREAD_TILE_MAX_WIDTH 32

/** \cond SK_INTERNAL */
#if defined(__CUDA_ARCH__)
#define SK_DETAIL_TILE_UNROLL _Pragma("unroll")
#else
#define SK_DETAIL_TILE_UNROLL
#endif

SK_HOST_DEVICE uint32_t sk_detail_tile_f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
#endif
}

SK_HOST_DEVICE float sk_detail_tile_f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
#endif
}
/** \endcond */

/**
 * \brief a + b, rounded once (to nearest, ties to even), the same bits on host and device.
 * \param a addend.
 * \param b addend.
 * \return the sum.
 */
SK_HOST_DEVICE float sk_tile_add_rn_f32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/**
 * \brief a - b, rounded once, the same bits on host and device.
 * \param a minuend.
 * \param b subtrahend.
 * \return the difference.
 */
SK_HOST_DEVICE float sk_tile_sub_rn_f32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

/**
 * \brief a * b, rounded once, the same bits on host and device.
 * \param a factor.
 * \param b factor.
 * \return the product.
 */
SK_HOST_DEVICE float sk_tile_mul_rn_f32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

/**
 * \brief a * b + c with one rounding (a fused multiply-add), the same bits on host and device.
 * \param a factor.
 * \param b factor.
 * \param c addend.
 * \return the result.
 */
SK_HOST_DEVICE float sk_tile_fma_rn_f32(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return fmaf(a, b, c);
#endif
}

/**
 * \brief 2^y for y <= 0, the same bits on host and device: the exponential of the reservoir's powers
 * and of a tile's weights relative to its largest.
 *
 * n = round(y) by the 1.5 2^23 trick (one addition and one subtraction), r = y - n (exact, in
 * [-1/2, 1/2]), 2^r by a polynomial of degree 6 in Horner form (six fused multiply-adds; its
 * coefficients are the minimax fit of relative error on [-1/2, 1/2] rounded to float, whose error is
 * 2.1e-8), times 2^n by adding n to the exponent bits. Base 2 needs no Cody-Waite reduction (r = y - n
 * is exact); a caller with natural logarithms folds log2 e into its own constants.
 * \param y the exponent, <= 0 (a positive y is outside the contract).
 * \return 2^y within 3e-7 relative, exactly 1 at y = 0 and exact at the integers; +0 for y < -125
 *         (where 2^y < 2.4e-38 is at the bottom of the normal floats), -inf and NaN, by a select rather
 *         than a branch.
 */
SK_HOST_DEVICE float sk_tile_exp2_neg_f32(float y) {
  /* 1.5 * 2^23: adding it rounds y to an integer n held in the low mantissa bits. */
  const float shifter = 12582912.0f;
  const float j = sk_tile_add_rn_f32(y, shifter);
  const float n = sk_tile_sub_rn_f32(j, shifter);
  const float r = sk_tile_sub_rn_f32(y, n); /* exact (Sterbenz; or n = 0): |r| <= 1/2 */
  /* The coefficients by their bits, so that no compiler's decimal or hexadecimal conversion is involved:
     0x1.470b4ap-13, 0x1.5f7276p-10, 0x1.3b270ep-7, 0x1.c6ae72p-5, 0x1.ebfbe2p-3, 0x1.62e432p-1. */
  float p = sk_detail_tile_f32_from_bits(0x392385a5u);
  uint32_t n_bits;
  float e;
  p = sk_tile_fma_rn_f32(p, r, sk_detail_tile_f32_from_bits(0x3aafb93bu));
  p = sk_tile_fma_rn_f32(p, r, sk_detail_tile_f32_from_bits(0x3c1d9387u));
  p = sk_tile_fma_rn_f32(p, r, sk_detail_tile_f32_from_bits(0x3d635739u));
  p = sk_tile_fma_rn_f32(p, r, sk_detail_tile_f32_from_bits(0x3e75fdf1u));
  p = sk_tile_fma_rn_f32(p, r, sk_detail_tile_f32_from_bits(0x3f317219u));
  p = sk_tile_fma_rn_f32(p, r, 1.0f); /* 2^r = 1 + r (ln 2 + ...): exactly 1 at r = 0 */
  /* n in [-125, 0] and p in [0.70, 1.42]: adding n to the exponent field keeps a normal float. The
     value is computed for every y and then selected: a caller evaluates it for a whole tile, where a
     branch per call would cost more than the select. */
  n_bits = sk_detail_tile_f32_bits(j) - sk_detail_tile_f32_bits(shifter);
  e = sk_detail_tile_f32_from_bits(sk_detail_tile_f32_bits(p) + (n_bits << 23));
  return y >= -125.0f ? e : 0.0f;
}

/** \cond SK_INTERNAL */
/* The tree of the group over v[0 .. width), with op = fminf (is_min) or the rounded sum. The trip counts
   are fixed and the guards depend on width only, so that with a width known when compiling the loops
   unroll and every index is a constant (the tile stays in registers). */
SK_HOST_DEVICE float sk_detail_tile_reduce(const float *v, int width, int is_min) {
  float a[SK_THREAD_TILE_MAX_WIDTH];
  int i, m;
  SK_DETAIL_TILE_UNROLL
  for (i = 0; i < SK_THREAD_TILE_MAX_WIDTH; ++i) a[i] = i < width ? v[i] : 0.0f;
  SK_DETAIL_TILE_UNROLL
  for (m = 1; m <= 5; ++m) {
    SK_DETAIL_TILE_UNROLL
    for (i = 0; i < SK_THREAD_TILE_MAX_WIDTH / 2; ++i)
      if (i < (width >> m)) a[i] = is_min ? fminf(a[2 * i], a[2 * i + 1]) : sk_tile_add_rn_f32(a[2 * i], a[2 * i + 1]);
  }
  return a[0];
}

/* One level of the search, the tie rule in one place: from node n with halves left and right, go right
   when the right half is > 0 and u >= base + left (base then moves past the left half), else left. */
SK_HOST_DEVICE int sk_detail_tile_descend(float left, float right, float u, float *base, int n) {
  const float edge = sk_tile_add_rn_f32(*base, left);
  if (right > 0.0f && u >= edge) {
    *base = edge;
    return 2 * n + 1;
  }
  return 2 * n;
}

/* One level of the search: the level of cnt nodes (cnt = 2, 4, ..., width; none when cnt > width) holds
   the current node n's halves at 2 n and 2 n + 1, picked by comparisons (n is not known when compiling,
   and registers cannot be indexed at run time). */
SK_HOST_DEVICE void sk_detail_tile_search_level(const float *node, int width, int cnt, float u, float *base, int *n) {
  if (cnt <= width) {
    const int lo = 2 * width - 2 * cnt;
    float left = node[lo], right = node[lo + 1];
    int c;
    SK_DETAIL_TILE_UNROLL
    for (c = 1; c < SK_THREAD_TILE_MAX_WIDTH / 2; ++c)
      if (c < cnt / 2 && *n == c) {
        left = node[lo + 2 * c];
        right = node[lo + 2 * c + 1];
      }
    *n = sk_detail_tile_descend(left, right, u, base, *n);
  }
}
/** \endcond */

/**
 * \brief The tree sum of a tile: `S_(log2 W)(0)` of the group's tree, pairs first.
 *
 * For W = 32 the same bits as sk_warp_butterfly_block_sum_f32() of the same 32 values.
 * \param v the tile's values, `v[0 .. width)`.
 * \param width W: 1, 2, 4, 8, 16 or 32.
 * \return the sum, W - 1 rounded additions along the tree (v[0] for W = 1).
 */
SK_HOST_DEVICE float sk_thread_tile_sum_f32(const float *v, int width) { return sk_detail_tile_reduce(v, width, 0); }

/**
 * \brief The smallest value of a tile, by `fminf` along the group's tree (NaNs ignored as `fminf`
 * ignores them).
 *
 * The result does not depend on the grouping, except for the sign of a zero minimum when the tile holds
 * zeros of both signs.
 * \param v the tile's values, `v[0 .. width)`.
 * \param width W: 1, 2, 4, 8, 16 or 32.
 * \return the minimum (+inf when every value is +inf or NaN).
 */
SK_HOST_DEVICE float sk_thread_tile_min_f32(const float *v, int width) { return sk_detail_tile_reduce(v, width, 1); }

/**
 * \brief Where u falls in a tile: the group's search down the tile's tree from base +0.
 *
 * Builds the tree's nodes (W - 1 rounded additions, as sk_thread_tile_sum_f32()) and descends it: at
 * each level, with `L` and `R` the node's halves and `edge = base + L` rounded, right when `R > 0` and
 * `u >= edge`, else left. See the group for the tie, zero-weight and +inf rules. For W = 32 the same
 * position as sk_warp_butterfly_block_search_f32() of the same 32 values.
 * \param v the tile's weights, `v[0 .. width)`, >= +0.
 * \param width W: 1, 2, 4, 8, 16 or 32.
 * \param u the point, >= 0: for a draw, a uniform in [0, 1) times the tile's sum (rounded).
 * \return the position, 0 to W - 1.
 */
SK_HOST_DEVICE int sk_thread_tile_search_f32(const float *v, int width, float u) {
  /* The level of cnt nodes at [2 width - 2 cnt, 2 width - cnt): leaves at 0, pairs at width, ... */
  float node[2 * SK_THREAD_TILE_MAX_WIDTH - 1];
  float base = 0.0f;
  int i, m, n = 0;
  SK_DETAIL_TILE_UNROLL
  for (i = 0; i < 2 * SK_THREAD_TILE_MAX_WIDTH - 1; ++i) node[i] = i < width ? v[i] : 0.0f;
  SK_DETAIL_TILE_UNROLL
  for (m = 1; m <= 5; ++m) {
    const int cnt = width >> m, lo = 2 * width - 2 * cnt, below = 2 * width - 4 * cnt;
    SK_DETAIL_TILE_UNROLL
    for (i = 0; i < SK_THREAD_TILE_MAX_WIDTH / 2; ++i)
      if (i < cnt) node[lo + i] = sk_tile_add_rn_f32(node[below + 2 * i], node[below + 2 * i + 1]);
  }
  /* Down from the root, a level at a time (straight-line calls rather than a loop: nvcc then orders the
     selects as it did for the kernels this was taken from). */
  sk_detail_tile_search_level(node, width, 2, u, &base, &n);
  sk_detail_tile_search_level(node, width, 4, u, &base, &n);
  sk_detail_tile_search_level(node, width, 8, u, &base, &n);
  sk_detail_tile_search_level(node, width, 16, u, &base, &n);
  sk_detail_tile_search_level(node, width, 32, u, &base, &n);
  return n;
}

/** \brief The reservoir's state for one draw: the smallest shift so far, the running sum, the taken tile. */
typedef struct sk_thread_tile_reservoir_f32 {
  float h;     /**< the smallest shift h_b so far (with log-weights: minus the largest log2-weight) */
  float s;     /**< the sum of the tiles' weights so far, relative to 2^(-h) */
  float t_sel; /**< the tree sum T_b of the taken tile (relative to its own shift) */
  int sel;     /**< the taken tile */
} sk_thread_tile_reservoir_f32;

/**
 * \brief An empty state (all zeros). Optional: tile 0's step sets every field.
 * \param r the state.
 */
SK_HOST_DEVICE void sk_thread_tile_reservoir_init_f32(sk_thread_tile_reservoir_f32 *r) {
  r->h = r->s = r->t_sel = 0.0f;
  r->sel = 0;
}

/** \cond SK_INTERNAL */
/* The reservoir's step in either code shape (selects: 0 or 1, a constant at every call). */
SK_HOST_DEVICE int sk_detail_tile_reservoir_step(sk_thread_tile_reservoir_f32 *r, int b, float hb, float tb, float ub,
                                                 int selects) {
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
    const float power = sk_tile_exp2_neg_f32(lower ? sk_tile_sub_rn_f32(hb, r->h) : sk_tile_sub_rn_f32(r->h, hb));
    const float scaled = sk_tile_mul_rn_f32(lower ? r->s : tb, power);
    w = lower ? tb : scaled;
    r->s = sk_tile_add_rn_f32(scaled, lower ? tb : r->s);
    r->h = lower ? hb : r->h;
  } else if (hb < r->h) {
    r->s = sk_tile_add_rn_f32(sk_tile_mul_rn_f32(r->s, sk_tile_exp2_neg_f32(sk_tile_sub_rn_f32(hb, r->h))), tb);
    r->h = hb;
    w = tb;
  } else {
    w = sk_tile_mul_rn_f32(tb, sk_tile_exp2_neg_f32(sk_tile_sub_rn_f32(r->h, hb)));
    r->s = sk_tile_add_rn_f32(r->s, w);
  }
  if (sk_tile_mul_rn_f32(ub, r->s) < w) {
    r->sel = b;
    r->t_sel = tb;
    return 1;
  }
  return 0;
}
/** \endcond */

/**
 * \brief Tile b's step of the reservoir (see the group), the two cases by a branch.
 * \param r the state (any contents for b = 0).
 * \param b the tile, 0, 1, 2, ... in order (0 starts a draw).
 * \param h_b its shift: the weights are `e_i 2^(-h_b)` (with log2-weights, minus the largest).
 * \param t_b the tree sum of its e_i (sk_thread_tile_sum_f32()), >= 0 and finite.
 * \param u_b its uniform in [0, 1) (not read for b = 0).
 * \return 1 when tile b is taken (keep its e_i for the final search), else 0; always 1 for b = 0.
 */
SK_HOST_DEVICE int sk_thread_tile_reservoir_step_f32(sk_thread_tile_reservoir_f32 *r, int b, float h_b, float t_b,
                                                     float u_b) {
  return sk_detail_tile_reservoir_step(r, b, h_b, t_b, u_b, 0);
}

/**
 * \brief Tile b's step of the reservoir by selects, with one power: the same state and result as
 * sk_thread_tile_reservoir_step_f32(), bit for bit.
 * \param r the state (any contents for b = 0).
 * \param b the tile, 0, 1, 2, ... in order (0 starts a draw).
 * \param h_b its shift.
 * \param t_b the tree sum of its e_i, >= 0 and finite.
 * \param u_b its uniform in [0, 1) (not read for b = 0).
 * \return 1 when tile b is taken, else 0; always 1 for b = 0.
 */
SK_HOST_DEVICE int sk_thread_tile_reservoir_step_select_f32(sk_thread_tile_reservoir_f32 *r, int b, float h_b,
                                                            float t_b, float u_b) {
  return sk_detail_tile_reservoir_step(r, b, h_b, t_b, u_b, 1);
}

/** @} */

#endif /* SAMPLEKIT_THREAD_TILE_SAMPLE_H */
