// bench_thread_tile: thread-scope sampling over register tiles (include/samplekit/thread_tile_sample.h)
// against the private code it replaced in sk-mixture's z-step, kept below verbatim as the baseline.
//
// Every thread of a full-occupancy grid draws `draws` times from K weights that it computes in
// registers, a tile of W at a time, as sk-mixture's z-step does: per entry two fused multiply-adds
// (q_k = t t + c_k, t = x s_k + m_k, x from a hash of the thread and the draw), then per tile the
// smallest q (the shift h), the exponentials e_k = 2^(h - q_k), their tree sum, the reservoir's step
// (a hashed uniform per tile), the kept tile; after the last tile the search of the kept tile. The sum
// of the drawn indices is written, so nothing is optimised away. Rows, for each K and W:
//   zstep.h (private)        today's zstep.h: sk_mix_tree_sum32, sk_mix_tree_search32 (its nodes in an
//                            array indexed at run time), sk_mix_reservoir_step; W = 32 only (the thread
//                            kernel's and the CPU's code)
//   broadcast (private)      zstep_broadcast.cuh's trees in registers (bc_tile_reduce, bc_tree_search)
//                            with sk_mix_reservoir_step (branch) or sk_mix_reservoir_step_as(.., 1)
//                            (selects): the register kernels' code
//   samplekit                sk_thread_tile_min/sum/search_f32 and sk_thread_tile_reservoir_step_f32
//                            (branch) or _step_select_f32 (selects)
// Each samplekit row is printed with its time over the matching private row's ("vs private": the
// private time over samplekit's, so >= 1 means samplekit is as fast or faster; the target is >= 0.98).
// Before timing, every row draws with the same inputs and the sums of the drawn indices must agree (the
// draws are the same bits); a mismatch exits 1. Timing: CUDA events, warm-up, median of --runs.
//   usage: bench_thread_tile [--ks 16,32,64,256,1000] [--work E] [--runs R] [--csv FILE]
#define BENCH_NAME "bench_thread_tile"
#include <math.h>
#include <stdint.h>

#include "bench_common.h"
#include "samplekit/rng.h"
#include "samplekit/thread_tile_sample.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--ks K1,K2,...] [--work E] [--runs R] [--csv FILE]\n"
          "  --ks LIST     entries per draw, comma-separated (default 16,32,64,256,1000)\n"
          "  --work E      entries each thread computes per timed run: max(1, E / K) draws (default 16384)\n"
          "  --runs R      timed runs per row after 2 warm-up ones (default 20)\n"
          "  --csv FILE    one line per row\n",
          BENCH_NAME);
}

// ---------------------------------------------------------------------------------------------------
// The private code, verbatim: examples/mixture/src/zstep.h (its tile functions) and
// examples/mixture/src/gpu/zstep_broadcast.cuh (its trees in registers), as they were before samplekit's
// thread-tile sampler replaced them.

#if defined(__CUDACC__)
/** \brief Qualifier of the z-step's functions: host and device under nvcc, static inline in C. */
#define SK_MIX_HD static __host__ __device__ __forceinline__
#else
#define SK_MIX_HD static inline
#endif

/** \brief Components per tile: a warp's width, the butterfly's block. */
#define SK_MIX_TILE 32

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

// The two operations the tile's trees combine with: the minimum and the rounded sum.
struct bc_min_op {
  __device__ __forceinline__ float operator()(float a, float b) const { return fminf(a, b); }
};
struct bc_add_op {
  __device__ __forceinline__ float operator()(float a, float b) const { return __fadd_rn(a, b); }
};

// One level of a tree in place: a[i] = op(a[2i], a[2i+1]) for i < CNT, then the level above (the trip
// counts are template arguments, so that every index is known at compile time and a stays in registers).
template <int CNT, typename Op, int N>
__device__ __forceinline__ void bc_tree_levels(float (&a)[N], Op op) {
#pragma unroll
  for (int i = 0; i < CNT; ++i) a[i] = op(a[2 * i], a[2 * i + 1]);
  if constexpr (CNT > 1) bc_tree_levels<CNT / 2>(a, op);
}

// op over the tile's first W values by a tree, pairs first (5 steps of latency instead of 31), in
// registers. For the minimum of the chains the order can only change the sign of a zero minimum, which
// no later operation sees (2^(+-0) = 1, and h - q, the reservoir's comparisons and differences are the
// same for either zero), so the draws are the CPU's; for the sum it is sk_mix_tree_sum32() of the tile
// with its values past W at +0 (adding +0 to a sum >= +0 changes nothing).
template <int W, typename Op>
__device__ __forceinline__ float bc_tile_reduce(const float (&v)[32], Op op) {
  float a[W];
#pragma unroll
  for (int i = 0; i < W; ++i) a[i] = v[i];
  bc_tree_levels<W / 2>(a, op);
  return a[0];
}

// The levels of the tree over node[0, W): the level of CNT entries at 2 W - 2 CNT (pairs at W, ...).
template <int W, int CNT>
__device__ __forceinline__ void bc_build_levels(float (&node)[2 * W - 1]) {
  constexpr int lo = 2 * W - 2 * CNT, below = 2 * W - 4 * CNT;
#pragma unroll
  for (int i = 0; i < CNT; ++i) node[lo + i] = __fadd_rn(node[below + 2 * i], node[below + 2 * i + 1]);
  if constexpr (CNT > 1) bc_build_levels<W, CNT / 2>(node);
}

// One step of the search down the tree: the children sit on the level of CNT entries; n < CNT / 2.
template <int W, int CNT>
__device__ __forceinline__ void bc_descend(const float (&node)[2 * W - 1], float u, float &base, int &n) {
  constexpr int lo = 2 * W - 2 * CNT;
  float left = node[lo], right = node[lo + 1];
#pragma unroll
  for (int c = 1; c < CNT / 2; ++c)
    if (n == c) left = node[lo + 2 * c], right = node[lo + 2 * c + 1];
  n = sk_mix_tree_step(left, right, u, &base, n);
  if constexpr (CNT < W) bc_descend<W, CNT * 2>(node, u, base, n);
}

// sk_mix_tree_search32() of v with v[W..31] = +0, with registers only: above the W-leaf subtree every
// right half is 0, so the search goes left there with base +0 and starts at the subtree's root. The
// nodes a level needs are picked by comparisons (n is not known at compile time).
template <int W>
__device__ __forceinline__ int bc_tree_search(const float (&v)[32], float u) {
  float node[2 * W - 1];
#pragma unroll
  for (int i = 0; i < W; ++i) node[i] = v[i];
  bc_build_levels<W, W / 2>(node);
  float base = 0.0f;
  int n = 0;
  bc_descend<W, 2>(node, u, base, n);
  return n;
}

// ---------------------------------------------------------------------------------------------------
// The draws.

enum Impl { kZstepH = 0, kBroadcastBranch, kBroadcastSelects, kSamplekitBranch, kSamplekitSelects, kImpls };
static const char *const kImplNames[kImpls] = {"zstep.h (private)", "broadcast (private), branch",
                                               "broadcast (private), selects", "samplekit, branch",
                                               "samplekit, selects"};
// The private row each samplekit row is compared with.
static const int kBaseline[kImpls] = {-1, -1, -1, kBroadcastBranch, kBroadcastSelects};

__device__ __forceinline__ float unit(uint32_t h) { return (float)(h >> 8) * 5.9604644775390625e-8f; }

// Entry k's q for the thread's x: two FMAs, as a z-step chain of one dimension (absent entries +inf).
__device__ __forceinline__ float entry(float x, int k, int K) {
  const float fk = (float)k;
  const float t = __fmaf_rn(x, __fmaf_rn(fk, 0x1p-7f, 1.0f), fk * 0.37f);
  return k < K ? __fmaf_rn(t, t, fk * 0x1p-5f) : INFINITY;
}

// The tile in 32 registers whatever W (the kernels' shape: entries past W unused).
template <int W, int kImpl>
__device__ __forceinline__ int draw_once(int K, float x, uint32_t key) {
  float e[32], kept[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) kept[i] = 0.0f;
  sk_mix_reservoir priv;
  sk_thread_tile_reservoir_f32 res;
  priv.h = priv.s = priv.t_sel = 0.0f;
  priv.sel = 0;
  sk_thread_tile_reservoir_init_f32(&res);
  for (int b = 0; b * W < K; ++b) {
#pragma unroll
    for (int i = 0; i < 32; ++i) e[i] = i < W ? entry(x, b * W + i, K) : 0.0f;
    const float ub = unit(sk_mix_u32(key + 0x9e3779b9u * (uint32_t)(b + 1)));
    float h, t;
    int take;
    if (kImpl == kZstepH) {
      h = sk_mix_pos_inf();
      for (int i = 0; i < W; ++i) h = sk_mix_fmin(h, e[i]);  // the CPU's left-to-right minimum
#pragma unroll
      for (int i = 0; i < W; ++i) e[i] = sk_mix_exp2_neg(sk_mix_fsub(h, e[i]));
      t = sk_mix_tree_sum32(e);
      take = sk_mix_reservoir_step(&priv, b, h, t, ub);
    } else if (kImpl == kBroadcastBranch || kImpl == kBroadcastSelects) {
      h = bc_tile_reduce<W>(e, bc_min_op{});
#pragma unroll
      for (int i = 0; i < W; ++i) e[i] = sk_mix_exp2_neg(__fsub_rn(h, e[i]));
      t = bc_tile_reduce<W>(e, bc_add_op{});
      take = kImpl == kBroadcastSelects ? sk_mix_reservoir_step_as(&priv, b, h, t, ub, 1)
                                        : sk_mix_reservoir_step(&priv, b, h, t, ub);
    } else {
      h = sk_thread_tile_min_f32(e, W);
#pragma unroll
      for (int i = 0; i < W; ++i) e[i] = sk_tile_exp2_neg_f32(sk_tile_sub_rn_f32(h, e[i]));
      t = sk_thread_tile_sum_f32(e, W);
      take = kImpl == kSamplekitSelects ? sk_thread_tile_reservoir_step_select_f32(&res, b, h, t, ub)
                                        : sk_thread_tile_reservoir_step_f32(&res, b, h, t, ub);
    }
    if (take) {
#pragma unroll
      for (int i = 0; i < W; ++i) kept[i] = e[i];
    }
  }
  const float u0 = unit(sk_mix_u32(key));
  if (kImpl == kZstepH) return priv.sel * W + sk_mix_tree_search32(kept, sk_mix_fmul(u0, priv.t_sel));
  if (kImpl == kBroadcastBranch || kImpl == kBroadcastSelects)
    return priv.sel * W + bc_tree_search<W>(kept, __fmul_rn(u0, priv.t_sel));
  return res.sel * W + sk_thread_tile_search_f32(kept, W, sk_tile_mul_rn_f32(u0, res.t_sel));
}

template <int W, int kImpl>
__global__ void __launch_bounds__(256) draw_kernel(int K, int draws, uint32_t seed, unsigned long long *out) {
  const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long sum = 0;
  for (int d = 0; d < draws; ++d) {
    const uint32_t key = sk_mix_u32(seed ^ sk_mix_u32(thread * 0x632be5abu + (uint32_t)d));
    const float x = 4.0f * unit(sk_mix_u32(key ^ 0x5bd1e995u)) - 2.0f;
    sum += (unsigned long long)draw_once<W, kImpl>(K, x, key);
  }
  out[thread] = sum;
}

typedef void (*draw_fn)(int, int, uint32_t, unsigned long long *);

template <int W>
static draw_fn kernel_for(int impl) {
  switch (impl) {
    case kZstepH: return draw_kernel<32, kZstepH>;  // W = 32 only (rows with W < 32 skip it)
    case kBroadcastBranch: return draw_kernel<W, kBroadcastBranch>;
    case kBroadcastSelects: return draw_kernel<W, kBroadcastSelects>;
    case kSamplekitBranch: return draw_kernel<W, kSamplekitBranch>;
    default: return draw_kernel<W, kSamplekitSelects>;
  }
}

static draw_fn kernel_of(int w, int impl) {
  return w == 8 ? kernel_for<8>(impl) : w == 16 ? kernel_for<16>(impl) : kernel_for<32>(impl);
}

int main(int argc, char **argv) {
  long long ks[16] = {16, 32, 64, 256, 1000}, work = 16384, runs = 20;
  int num_ks = 5;
  const char *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (bench_common_option(argc, argv, &i, usage, &csv_path)) continue;
    if (i + 1 >= argc) bench_unknown_option(a, usage);
    const char *v = argv[++i];
    if (strcmp(a, "--ks") == 0) {
      num_ks = bench_parse_list(a, v, 1, 1 << 20, ks, 16, usage);
    } else if (strcmp(a, "--work") == 0) {
      if (!bench_parse_ll(v, 1, 1ll << 30, &work)) bench_bad_value(a, v, usage);
    } else if (strcmp(a, "--runs") == 0) {
      if (!bench_parse_ll(v, 1, 1000, &runs)) bench_bad_value(a, v, usage);
    } else {
      bench_unknown_option(a, usage);
    }
  }
  bench_select_device(0);
  sk_device_info info;
  BENCH_SK(sk_device_query(0, &info));
  bench_print_date_and_command(argc, argv);
  printf("GPU: %s, %d SMs\n", info.name, info.sm_count);
  FILE *csv = csv_path ? bench_open_csv(csv_path) : NULL;
  if (csv_path && csv == NULL) return BENCH_EXIT_FAILED;
  if (csv) fprintf(csv, "gpu,K,W,row,draws,ms,draws_per_s,vs_private\n");
  printf("%6s %3s  %-30s %12s %10s %14s %11s\n", "K", "W", "row", "draws", "ms", "draws/s", "vs private");
  for (int ki = 0; ki < num_ks; ++ki) {
    const int K = (int)ks[ki], draws = work / K > 1 ? (int)(work / K) : 1;
    for (int w = 8; w <= 32; w *= 2) {
      if (w > 8 && K <= w / 2) continue;  // a width wider than twice K: not a shape a sampler picks
      // The full-occupancy grid of the slowest-to-fill kernel, the same for every row of this shape.
      int grid = 0;
      for (int impl = 0; impl < kImpls; ++impl) {
        if (impl == kZstepH && w != 32) continue;
        int per_sm = 0;
        BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of(w, impl), 256, 0));
        const int g = per_sm * info.sm_count;
        grid = grid == 0 || g < grid ? g : grid;
      }
      const size_t threads = (size_t)grid * 256;
      unsigned long long *d_out, *h_out = (unsigned long long *)malloc(sizeof(unsigned long long) * threads);
      unsigned long long *first = (unsigned long long *)malloc(sizeof(unsigned long long) * threads);
      BENCH_CUDA(cudaMalloc(&d_out, sizeof(unsigned long long) * threads));
      double ms[kImpls] = {0};
      for (int impl = 0; impl < kImpls; ++impl) {
        if (impl == kZstepH && w != 32) continue;
        const draw_fn f = kernel_of(w, impl);
        // The same draws from every row: checked before timing.
        f<<<grid, 256>>>(K, draws, 2026u, d_out);
        BENCH_CUDA(cudaGetLastError());
        BENCH_CUDA(cudaMemcpy(h_out, d_out, sizeof(unsigned long long) * threads, cudaMemcpyDeviceToHost));
        if (impl == (w == 32 ? kZstepH : kBroadcastBranch)) {
          memcpy(first, h_out, sizeof(unsigned long long) * threads);
        } else if (memcmp(first, h_out, sizeof(unsigned long long) * threads) != 0) {
          fprintf(stderr, "%s: K = %d, W = %d: %s draws differently from the first row\n", BENCH_NAME, K, w,
                  kImplNames[impl]);
          return BENCH_EXIT_FAILED;
        }
        const bench_stats s = bench_time_events(2, (int)runs, [&](int) { f<<<grid, 256>>>(K, draws, 2026u, d_out); });
        ms[impl] = s.median_ms;
        const double total = (double)threads * draws, rate = total / (s.median_ms * 1e-3);
        const double vs = kBaseline[impl] >= 0 ? ms[kBaseline[impl]] / s.median_ms : 0.0;
        char vs_text[16] = "";
        if (vs > 0.0) snprintf(vs_text, sizeof vs_text, "%.3fx", vs);
        printf("%6d %3d  %-30s %12.0f %10.4f %14.4g %11s\n", K, w, kImplNames[impl], total, s.median_ms, rate, vs_text);
        if (csv)
          fprintf(csv, "\"%s\",%d,%d,\"%s\",%.0f,%.6f,%.6g,%.4f\n", info.name, K, w, kImplNames[impl], total,
                  s.median_ms, rate, vs);
      }
      BENCH_CUDA(cudaFree(d_out));
      free(h_out);
      free(first);
    }
  }
  if (csv && !bench_close_csv(csv, csv_path)) return BENCH_EXIT_FAILED;
  return 0;
}
