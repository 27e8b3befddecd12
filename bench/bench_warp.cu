// bench_warp: device-side micro-benchmark of samplekit's warp primitives against CUB and raw intrinsics.
//
// Every primitive runs in a dependent chain: each call's input is computed from the previous call's
// result by a cheap "chain step" that is the same for samplekit and the baseline, so the compiler can
// neither hoist nor merge calls, and the two variants differ only in the primitive itself. Inputs come
// from a per-thread hash in registers (no memory traffic); one value per thread is written at the end
// to keep the chain alive. The grid is exactly one full wave, so every warp runs for the whole kernel
// and "time per call per warp" is the kernel time divided by the calls each warp makes.
//
// Before anything is timed, the two variants of every pair run on the same inputs and their results
// are compared (bit for bit wherever both use the same order of operations); a mismatch exits 1.
#include <cuda_runtime.h>

#include <cub/version.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <type_traits>

#include "samplekit/warp_lane.cuh"
#include "samplekit/warp_scan.cuh"
#include "samplekit/warp_vote.cuh"

#define BENCH_NAME "bench_warp"
#include "bench_common.h"

// ---------------------------------------------------------------------------------------------------
// Parameters of the method (STYLE.md, "Benchmarks").

#define BENCH_BLOCK_THREADS 256
#define BENCH_WARPS_PER_BLOCK (BENCH_BLOCK_THREADS / SK_WARP_SIZE)
#define BENCH_INNER_CALLS 64  // calls per unrolled inner loop
#define BENCH_WARMUP_LAUNCHES 3
#define BENCH_TIMED_LAUNCHES 21  // odd, so the median is one launch's time
#define BENCH_ROUNDS 2           // A B A B: the spread between rounds shows the noise
#define BENCH_GPU_WARMUP_MS 250.0 // untimed load before the first timing, so clocks have ramped up
#define BENCH_DEFAULT_ITERS 512  // outer iterations: a few milliseconds per launch on an H100/H200
#define BENCH_MAX_ITERS 65536    // 128 x the default: about a second per launch of a scan
#define BENCH_CHECK_BLOCKS 8     // the correctness launch: 64 full warps
#define BENCH_SEED 0x5eed1234u
#define BENCH_SALT_KEY 0x9e3779b9u
#define BENCH_BROADCAST_LANE 5  // any member works; the same for both variants
#define BENCH_HEADLINE_TARGET 0.95

// ---------------------------------------------------------------------------------------------------
// Inputs: a hash of the thread index, usable on the host (check inputs) and the device (timing).

// A float in [-1, 1): 24 random bits, so the value is exact and never a NaN or an infinity.
static __host__ __device__ inline float bench_unit_signed_f32(uint32_t h) {
  return (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

// ---------------------------------------------------------------------------------------------------
// Chain steps. A chain turns its state into the primitive's input and folds the primitive's result
// back into the state; samplekit and the baseline of a pair share one chain, so the cost of the chain
// is the same in both timings and the difference between them is the primitive's.

// f32 scans, sums and broadcast: x = r / 32 + c. The division by the warp size keeps sums of 32
// values bounded (a fixed point of order |c|), so no value overflows however long the chain, and the
// product by a power of two is exact; one FFMA per call.
struct bench_chain_f32 {
  typedef float state_type;
  typedef float input_type;
  static __device__ float init(uint32_t h) { return bench_unit_signed_f32(h); }
  static __device__ float salt(uint32_t h) { return 0.5f * bench_unit_signed_f32(h); }
  static __device__ float input(float x) { return x; }
  static __device__ float next(float /*x*/, float r, float salt) {
    return __fmaf_rn(r, 1.0f / SK_WARP_SIZE, salt);
  }
};

// u32 scans and sums: x = r ^ salt, one LOP3 per call; wrap-around in the sums is fine.
struct bench_chain_u32 {
  typedef uint32_t state_type;
  typedef uint32_t input_type;
  static __device__ uint32_t init(uint32_t h) { return h; }
  static __device__ uint32_t salt(uint32_t h) { return h; }
  static __device__ uint32_t input(uint32_t x) { return x; }
  static __device__ uint32_t next(uint32_t /*x*/, uint32_t r, uint32_t salt) { return r ^ salt; }
};

// Votes: the predicate is the state's low bit, and the next state mixes the vote's result back in
// (rotate, then xor with the result and the salt), so the next ballot depends on this one's outcome.
struct bench_chain_vote {
  typedef uint32_t state_type;
  typedef int input_type;
  static __device__ uint32_t init(uint32_t h) { return h; }
  static __device__ uint32_t salt(uint32_t h) { return h; }
  static __device__ int input(uint32_t x) { return (int)(x & 1u); }
  static __device__ uint32_t next(uint32_t x, int r, uint32_t salt) {
    return ((x >> 1) | (x << 31)) ^ (uint32_t)r ^ salt;
  }
};

// ---------------------------------------------------------------------------------------------------
// Primitives: each has an input and a result type, the shared-memory storage it needs per warp and
// apply(). Every call is made by a full warp, so the mask is SK_FULL_MASK throughout.

// samplekit's warp functions and the intrinsics need no shared memory; CUB's take a TempStorage.
struct bench_no_storage {};

// samplekit functions of the form T f(unsigned mask, T x): the scans, the sums and the votes.
template <typename T, T (*Fn)(unsigned, T)>
struct bench_sk_op {
  typedef T input_type;
  typedef T result_type;
  typedef bench_no_storage storage;
  static __device__ __forceinline__ T apply(storage & /*s*/, T x) { return Fn(SK_FULL_MASK, x); }
};

struct bench_sk_broadcast_f32 {
  typedef float input_type;
  typedef float result_type;
  typedef bench_no_storage storage;
  static __device__ __forceinline__ float apply(storage & /*s*/, float x) {
    return sk_warp_broadcast_f32(SK_FULL_MASK, x, BENCH_BROADCAST_LANE);
  }
};

// For a full 32-lane warp CUB picks its shuffle specialisation, whose TempStorage is empty: reusing
// it from one call to the next needs no __syncwarp, so none is added to CUB's side of the timing.
template <typename T>
struct bench_cub_inclusive_sum {
  typedef T input_type;
  typedef T result_type;
  typedef typename cub::WarpScan<T>::TempStorage storage;
  static __device__ __forceinline__ T apply(storage &s, T x) {
    T r;
    cub::WarpScan<T>(s).InclusiveSum(x, r);
    return r;
  }
};

template <typename T>
struct bench_cub_exclusive_sum {
  typedef T input_type;
  typedef T result_type;
  typedef typename cub::WarpScan<T>::TempStorage storage;
  static __device__ __forceinline__ T apply(storage &s, T x) {
    T r;
    cub::WarpScan<T>(s).ExclusiveSum(x, r);
    return r;
  }
};

// CUB's WarpReduce::Sum is valid in lane 0 only; the other lanes hold partial sums. samplekit's sum
// is valid in every lane. The benchmark compares them as they are (each does the work its contract
// needs) and the chain feeds every lane's value back, whatever it is; the check compares lane 0 only.
template <typename T>
struct bench_cub_warp_sum {
  typedef T input_type;
  typedef T result_type;
  typedef typename cub::WarpReduce<T>::TempStorage storage;
  static __device__ __forceinline__ T apply(storage &s, T x) { return cub::WarpReduce<T>(s).Sum(x); }
};

// The baselines for the votes: the intrinsics written out by hand, as a caller would without samplekit.
static __device__ __forceinline__ unsigned bench_lanemask_lt(void) {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

struct bench_raw_first_lane {
  typedef int input_type;
  typedef int result_type;
  typedef bench_no_storage storage;
  static __device__ __forceinline__ int apply(storage & /*s*/, int pred) {
    return __ffs((int)__ballot_sync(SK_FULL_MASK, pred)) - 1;
  }
};

struct bench_raw_count_below {
  typedef int input_type;
  typedef int result_type;
  typedef bench_no_storage storage;
  static __device__ __forceinline__ int apply(storage & /*s*/, int pred) {
    return __popc(__ballot_sync(SK_FULL_MASK, pred) & bench_lanemask_lt());
  }
};

struct bench_raw_broadcast_f32 {
  typedef float input_type;
  typedef float result_type;
  typedef bench_no_storage storage;
  static __device__ __forceinline__ float apply(storage & /*s*/, float x) {
    return __shfl_sync(SK_FULL_MASK, x, BENCH_BROADCAST_LANE);
  }
};

// ---------------------------------------------------------------------------------------------------
// Kernels: one timing kernel and one check kernel, each a template over (chain, primitive).

// The timing kernel: outer_iters x BENCH_INNER_CALLS dependent calls per thread. The outer loop count
// comes at run time so that the compiler cannot fold the trip count; the inner loop is unrolled so
// that the loop overhead is one branch per BENCH_INNER_CALLS calls.
template <class Chain, class Prim>
__global__ void __launch_bounds__(BENCH_BLOCK_THREADS)
    bench_chain_kernel(typename Chain::state_type *d_out, uint32_t seed, int outer_iters) {
  static_assert(std::is_same<typename Chain::input_type, typename Prim::input_type>::value,
                "the chain and the primitive disagree on the input type");
  __shared__ typename Prim::storage storage[BENCH_WARPS_PER_BLOCK];
  typename Prim::storage &warp_storage = storage[threadIdx.x / SK_WARP_SIZE];

  const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t h = sk_mix_u32(thread ^ sk_mix_u32(seed));
  typename Chain::state_type x = Chain::init(h);
  const typename Chain::state_type salt = Chain::salt(sk_mix_u32(h ^ BENCH_SALT_KEY));

#pragma unroll 1
  for (int i = 0; i < outer_iters; ++i) {
#pragma unroll
    for (int j = 0; j < BENCH_INNER_CALLS; ++j) {
      x = Chain::next(x, Prim::apply(warp_storage, Chain::input(x)), salt);
    }
  }
  d_out[thread] = x;  // keeps the whole chain alive
}

// The check kernel: one call per thread on inputs given from the host, result written as it is.
// The launch uses whole blocks of BENCH_BLOCK_THREADS, so every warp is full and the mask is right.
template <class Chain, class Prim>
__global__ void __launch_bounds__(BENCH_BLOCK_THREADS)
    bench_check_kernel(const typename Chain::state_type *d_in, typename Prim::result_type *d_out) {
  __shared__ typename Prim::storage storage[BENCH_WARPS_PER_BLOCK];
  const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  d_out[thread] = Prim::apply(storage[threadIdx.x / SK_WARP_SIZE], Chain::input(d_in[thread]));
}

// ---------------------------------------------------------------------------------------------------
// The pairs: a samplekit variant and its baseline, how to check them, and their kernels.

typedef enum bench_value_kind { BENCH_VALUE_F32, BENCH_VALUE_U32, BENCH_VALUE_I32 } bench_value_kind;

template <typename T>
struct bench_kind_of;
template <>
struct bench_kind_of<float> {
  static const bench_value_kind value = BENCH_VALUE_F32;
};
template <>
struct bench_kind_of<uint32_t> {
  static const bench_value_kind value = BENCH_VALUE_U32;
};
template <>
struct bench_kind_of<int> {
  static const bench_value_kind value = BENCH_VALUE_I32;
};

typedef enum bench_compare {
  // Same operations in the same order: every lane's result must have the same bits.
  BENCH_COMPARE_ALL_LANES_EXACT,
  // CUB's WarpReduce result is defined in lane 0 only; integer sums have one exact answer.
  BENCH_COMPARE_LANE0_EXACT,
  // CUB's WarpReduce<float> adds by shfl.down (lane distances 1, 2, 4, 8, 16) and samplekit by a
  // butterfly (16, 8, 4, 2, 1): the same tree shape over different pairs, so different rounding.
  // Each result is within gamma_5 sum|x| of the exact sum (a depth-5 tree, gamma_5 = 5u / (1 - 5u),
  // u = 2^-24), so lane 0 must satisfy |a - b| <= 2 gamma_5 sum|x| < 12 u sum|x| = 6 FLT_EPSILON sum|x|.
  BENCH_COMPARE_LANE0_F32_BOUND
} bench_compare;

typedef struct bench_variant {
  const char *label;
  const void *chain_kernel;
  const void *check_kernel;
} bench_variant;

typedef struct bench_pair {
  const char *name;
  bench_compare compare;
  bench_value_kind state_kind;   // the chain state: what the check inputs and chain outputs hold
  bench_value_kind result_kind;  // what the primitive returns
  bench_variant sk;
  bench_variant ref;
} bench_pair;

template <class Chain, class Prim>
static bench_variant bench_make_variant(const char *label) {
  static_assert(sizeof(typename Chain::state_type) == 4 && sizeof(typename Prim::result_type) == 4,
                "the host side handles 4-byte values only");
  bench_variant v;
  v.label = label;
  v.chain_kernel = (const void *)bench_chain_kernel<Chain, Prim>;
  v.check_kernel = (const void *)bench_check_kernel<Chain, Prim>;
  return v;
}

template <class Chain, class SkPrim, class RefPrim>
static bench_pair bench_make_pair(const char *name, const char *ref_label, bench_compare compare) {
  static_assert(std::is_same<typename SkPrim::result_type, typename RefPrim::result_type>::value,
                "the two variants of a pair must return the same type");
  bench_pair p;
  p.name = name;
  p.compare = compare;
  p.state_kind = bench_kind_of<typename Chain::state_type>::value;
  p.result_kind = bench_kind_of<typename SkPrim::result_type>::value;
  p.sk = bench_make_variant<Chain, SkPrim>("samplekit");
  p.ref = bench_make_variant<Chain, RefPrim>(ref_label);
  return p;
}

#define BENCH_NUM_PAIRS 9

static void bench_make_pairs(bench_pair *pairs) {
  int i = 0;
  // The headline pair first: the target is samplekit >= 0.95x CUB's speed.
  pairs[i++] = bench_make_pair<bench_chain_f32, bench_sk_op<float, sk_warp_inclusive_sum_f32>,
                               bench_cub_inclusive_sum<float>>("inclusive_sum_f32", "cub",
                                                               BENCH_COMPARE_ALL_LANES_EXACT);
  pairs[i++] = bench_make_pair<bench_chain_u32, bench_sk_op<uint32_t, sk_warp_inclusive_sum_u32>,
                               bench_cub_inclusive_sum<uint32_t>>("inclusive_sum_u32", "cub",
                                                                  BENCH_COMPARE_ALL_LANES_EXACT);
  // Both take the inclusive sum of the member one rank below (CUB adds its initial value 0.0f
  // first, which changes no bits but -0.0), and lane 0 gets +0.0f in both.
  pairs[i++] = bench_make_pair<bench_chain_f32, bench_sk_op<float, sk_warp_exclusive_sum_f32>,
                               bench_cub_exclusive_sum<float>>("exclusive_sum_f32", "cub",
                                                               BENCH_COMPARE_ALL_LANES_EXACT);
  pairs[i++] = bench_make_pair<bench_chain_u32, bench_sk_op<uint32_t, sk_warp_exclusive_sum_u32>,
                               bench_cub_exclusive_sum<uint32_t>>("exclusive_sum_u32", "cub",
                                                                  BENCH_COMPARE_ALL_LANES_EXACT);
  pairs[i++] = bench_make_pair<bench_chain_f32, bench_sk_op<float, sk_warp_sum_f32>,
                               bench_cub_warp_sum<float>>("warp_sum_f32", "cub",
                                                          BENCH_COMPARE_LANE0_F32_BOUND);
  pairs[i++] = bench_make_pair<bench_chain_u32, bench_sk_op<uint32_t, sk_warp_sum_u32>,
                               bench_cub_warp_sum<uint32_t>>("warp_sum_u32", "cub",
                                                             BENCH_COMPARE_LANE0_EXACT);
  pairs[i++] = bench_make_pair<bench_chain_vote, bench_sk_op<int, sk_warp_first_lane>,
                               bench_raw_first_lane>("first_lane", "intrinsic",
                                                     BENCH_COMPARE_ALL_LANES_EXACT);
  pairs[i++] = bench_make_pair<bench_chain_vote, bench_sk_op<int, sk_warp_count_below>,
                               bench_raw_count_below>("count_below", "intrinsic",
                                                      BENCH_COMPARE_ALL_LANES_EXACT);
  pairs[i++] = bench_make_pair<bench_chain_f32, bench_sk_broadcast_f32, bench_raw_broadcast_f32>(
      "broadcast_f32", "intrinsic", BENCH_COMPARE_ALL_LANES_EXACT);
  if (i != BENCH_NUM_PAIRS) {
    fprintf(stderr, "bench_warp: internal error: %d pairs, expected %d\n", i, BENCH_NUM_PAIRS);
    exit(EXIT_FAILURE);
  }
}

// ---------------------------------------------------------------------------------------------------
// The device, the buffers and the events every measurement uses.

typedef struct bench_context {
  int device;
  cudaDeviceProp prop;
  int sm_count;
  int clock_khz;       // peak SM clock (cudaDevAttrClockRate); the running clock may be lower
  int outer_iters;
  size_t out_capacity; // 4-byte values d_out can hold: one per thread of the largest possible wave
  void *d_out;
  cudaEvent_t start[BENCH_TIMED_LAUNCHES];
  cudaEvent_t stop[BENCH_TIMED_LAUNCHES];
} bench_context;

// Selects the device (or exits: see bench_select_device) and reads what the report needs.
static void bench_open_device(bench_context *ctx, int device, int outer_iters) {
  bench_select_device(device);
  ctx->device = device;
  ctx->outer_iters = outer_iters;
  BENCH_CUDA(cudaGetDeviceProperties(&ctx->prop, device));
  BENCH_CUDA(cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device));
  BENCH_CUDA(cudaDeviceGetAttribute(&ctx->clock_khz, cudaDevAttrClockRate, device));
  ctx->out_capacity = (size_t)ctx->prop.maxThreadsPerMultiProcessor * (size_t)ctx->sm_count;
  BENCH_CUDA(cudaMalloc(&ctx->d_out, ctx->out_capacity * 4));
  for (int i = 0; i < BENCH_TIMED_LAUNCHES; ++i) {
    BENCH_CUDA(cudaEventCreate(&ctx->start[i]));
    BENCH_CUDA(cudaEventCreate(&ctx->stop[i]));
  }
}

static void bench_close_device(bench_context *ctx) {
  for (int i = 0; i < BENCH_TIMED_LAUNCHES; ++i) {
    BENCH_CUDA(cudaEventDestroy(ctx->start[i]));
    BENCH_CUDA(cudaEventDestroy(ctx->stop[i]));
  }
  BENCH_CUDA(cudaFree(ctx->d_out));
}

// A binary built for another architecture fails at the first launch with a message that does not
// say how to fix it; ask once, up front, and say it.
static void bench_require_kernel_image(const bench_context *ctx, const void *kernel) {
  cudaFuncAttributes attr;
  const cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    fprintf(stderr,
            "bench_warp: this binary has no code for compute capability %d.%d (%s); rebuild with "
            "CMAKE_CUDA_ARCHITECTURES set to include it\n",
            ctx->prop.major, ctx->prop.minor, cudaGetErrorName(err));
    exit(EXIT_FAILURE);
  }
  BENCH_CUDA(err);
}

// One full wave: as many blocks as fit on every SM at once, so no block waits for another to finish.
static int bench_one_wave_blocks(const bench_context *ctx, const void *kernel) {
  int per_sm = 0;
  BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BENCH_BLOCK_THREADS, 0));
  if (per_sm < 1) {
    fprintf(stderr, "bench_warp: occupancy query says no block of %d threads fits on an SM\n",
            BENCH_BLOCK_THREADS);
    exit(EXIT_FAILURE);
  }
  const int blocks = per_sm * ctx->sm_count;
  if ((size_t)blocks * BENCH_BLOCK_THREADS > ctx->out_capacity) {
    fprintf(stderr, "bench_warp: internal error: a wave of %d blocks exceeds the output buffer\n", blocks);
    exit(EXIT_FAILURE);
  }
  return blocks;
}

static void bench_launch_chain(const bench_context *ctx, const void *kernel, int blocks, int outer_iters) {
  void *d_out = ctx->d_out;
  uint32_t seed = BENCH_SEED;
  void *args[] = {&d_out, &seed, &outer_iters};
  BENCH_CUDA(cudaLaunchKernel(kernel, dim3((unsigned)blocks), dim3(BENCH_BLOCK_THREADS), args, 0, 0));
  BENCH_CUDA(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------------
// Correctness: both variants of a pair on the same inputs, before any timing.

// Check inputs, by warp: mostly random, with some all-zero, one-hot and constant warps so that the
// votes see no lane, one lane and every lane voting, and the sums see exact zeros. Floats span
// magnitudes 2^-8 to 2^8 so that a difference in the order of additions would show in the bits.
static void bench_fill_check_inputs(bench_value_kind kind, uint32_t *bits, int n, uint32_t seed) {
  for (int i = 0; i < n; ++i) {
    const int warp = i / SK_WARP_SIZE;
    const int lane = i % SK_WARP_SIZE;
    const uint32_t h = sk_mix_u32((uint32_t)i ^ sk_mix_u32(seed));
    const uint32_t hw = sk_mix_u32((uint32_t)warp ^ sk_mix_u32(seed + 1u));
    uint32_t u;
    float f;
    switch (warp % 8) {
      case 1:  // all zero
        u = 0u;
        f = 0.0f;
        break;
      case 2:  // one lane set
        u = lane == (warp / 8) % SK_WARP_SIZE ? (hw | 1u) : 0u;
        f = lane == (warp / 8) % SK_WARP_SIZE ? bench_unit_signed_f32(hw) : 0.0f;
        break;
      case 3:  // the same value in every lane
        u = hw | 1u;
        f = bench_unit_signed_f32(hw);
        break;
      default:
        u = h;
        f = ldexpf(bench_unit_signed_f32(h), (int)(sk_mix_u32(h) % 17u) - 8);
        break;
    }
    if (kind == BENCH_VALUE_F32) memcpy(&u, &f, sizeof u);
    bits[i] = u;
  }
}

static void bench_print_value(bench_value_kind kind, uint32_t bits) {
  if (kind == BENCH_VALUE_F32) {
    float f;
    memcpy(&f, &bits, sizeof f);
    printf("%.9g (0x%08x)", f, bits);
  } else if (kind == BENCH_VALUE_I32) {
    printf("%d (0x%08x)", (int)bits, bits);
  } else {
    printf("%u (0x%08x)", bits, bits);
  }
}

// in_bits is NULL where the input was made in the kernel (the chain check) rather than on the host.
static void bench_report_mismatch(const bench_pair *p, const char *what, int i, const uint32_t *in_bits,
                                  bench_value_kind kind, uint32_t sk, uint32_t ref) {
  printf("MISMATCH in %s (%s), seed 0x%08x: thread %d (warp %d lane %d)\n  input      ", p->name, what,
         BENCH_SEED, i, i / SK_WARP_SIZE, i % SK_WARP_SIZE);
  if (in_bits != NULL) {
    bench_print_value(p->state_kind, in_bits[i]);
  } else {
    printf("(hashed from the thread index in the kernel)");
  }
  printf("\n  samplekit  ");
  bench_print_value(kind, sk);
  printf("\n  %-10s ", p->ref.label);
  bench_print_value(kind, ref);
  printf("\n");
}

// Sum of |x| over the warp holding lane i: the scale of the rounding error bound of a warp sum.
static double bench_warp_abs_sum(const uint32_t *in_bits, int i) {
  const int first = i - i % SK_WARP_SIZE;
  double s = 0.0;
  for (int k = first; k < first + SK_WARP_SIZE; ++k) {
    float f;
    memcpy(&f, &in_bits[k], sizeof f);
    s += fabs((double)f);
  }
  return s;
}

static bool bench_compare_one_call(const bench_pair *p, const uint32_t *in_bits, const uint32_t *sk,
                                   const uint32_t *ref, int n) {
  for (int i = 0; i < n; ++i) {
    if (p->compare != BENCH_COMPARE_ALL_LANES_EXACT && i % SK_WARP_SIZE != 0) continue;
    bool same = sk[i] == ref[i];
    if (p->compare == BENCH_COMPARE_LANE0_F32_BOUND) {
      float a, b;
      memcpy(&a, &sk[i], sizeof a);
      memcpy(&b, &ref[i], sizeof b);
      const double bound = 6.0 * FLT_EPSILON * bench_warp_abs_sum(in_bits, i);
      same = isfinite(a) && isfinite(b) && fabs((double)a - (double)b) <= bound;
    }
    if (!same) {
      bench_report_mismatch(p, "one call on check inputs", i, in_bits, p->result_kind, sk[i], ref[i]);
      return false;
    }
  }
  return true;
}

// Runs one variant's check kernel. The output is poisoned first, with a different byte for each
// variant, so that a lane neither variant wrote cannot pass as equal.
static void bench_run_check(const void *kernel, const void *d_in, void *d_out, int n, int poison,
                            uint32_t *h_out) {
  BENCH_CUDA(cudaMemset(d_out, poison, (size_t)n * 4));
  void *in_arg = (void *)d_in;
  void *out_arg = d_out;
  void *args[] = {&in_arg, &out_arg};
  BENCH_CUDA(cudaLaunchKernel(kernel, dim3(BENCH_CHECK_BLOCKS), dim3(BENCH_BLOCK_THREADS), args, 0, 0));
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaMemcpy(h_out, d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
}

// Runs one variant's timing kernel for one outer iteration (BENCH_INNER_CALLS chained calls) over
// the full wave and copies the chain results back.
static void bench_run_chain_once(const bench_context *ctx, const void *kernel, int blocks, int poison,
                                 uint32_t *h_out) {
  const size_t n = (size_t)blocks * BENCH_BLOCK_THREADS;
  BENCH_CUDA(cudaMemset(ctx->d_out, poison, n * 4));
  bench_launch_chain(ctx, kernel, blocks, 1);
  BENCH_CUDA(cudaMemcpy(h_out, ctx->d_out, n * 4, cudaMemcpyDeviceToHost));
}

// Two checks. (1) One call per thread on the check inputs, compared as the pair's contract allows.
// (2) Where the pair is bitwise equal, the timing kernel itself, with a chain of BENCH_INNER_CALLS
// calls: this proves the timed code of both variants computes the same thing. For the warp sums the
// chains diverge by design (CUB's lanes other than 0 hold partial sums that are fed back), so (2)
// does not apply to them.
static bool bench_check_pair(const bench_context *ctx, const bench_pair *p) {
  const int n = BENCH_CHECK_BLOCKS * BENCH_BLOCK_THREADS;
  const int sk_blocks = bench_one_wave_blocks(ctx, p->sk.chain_kernel);
  const int ref_blocks = bench_one_wave_blocks(ctx, p->ref.chain_kernel);
  const size_t chain_n = (size_t)std::max(sk_blocks, ref_blocks) * BENCH_BLOCK_THREADS;
  const size_t host_n = std::max((size_t)n, chain_n);
  uint32_t *h_in = (uint32_t *)malloc((size_t)n * 4);
  uint32_t *h_sk = (uint32_t *)malloc(host_n * 4);
  uint32_t *h_ref = (uint32_t *)malloc(host_n * 4);
  if (h_in == NULL || h_sk == NULL || h_ref == NULL) {
    fprintf(stderr, "bench_warp: out of host memory\n");
    exit(EXIT_FAILURE);
  }
  void *d_in = NULL;
  void *d_check_out = NULL;
  BENCH_CUDA(cudaMalloc(&d_in, (size_t)n * 4));
  BENCH_CUDA(cudaMalloc(&d_check_out, (size_t)n * 4));

  bench_fill_check_inputs(p->state_kind, h_in, n, BENCH_SEED);
  BENCH_CUDA(cudaMemcpy(d_in, h_in, (size_t)n * 4, cudaMemcpyHostToDevice));
  bench_run_check(p->sk.check_kernel, d_in, d_check_out, n, 0xa5, h_sk);
  bench_run_check(p->ref.check_kernel, d_in, d_check_out, n, 0x5a, h_ref);
  bool ok = bench_compare_one_call(p, h_in, h_sk, h_ref, n);
  const char *chain_note = "chain check not applicable (CUB's sum is valid in lane 0 only)";

  if (ok && p->compare == BENCH_COMPARE_ALL_LANES_EXACT) {
    if (sk_blocks != ref_blocks) {
      // Not an error, but the chain outputs would cover different grids; compare the common part.
      printf("note: %s: one wave is %d blocks for samplekit and %d for %s\n", p->name, sk_blocks,
             ref_blocks, p->ref.label);
    }
    const int blocks = std::min(sk_blocks, ref_blocks);
    bench_run_chain_once(ctx, p->sk.chain_kernel, blocks, 0xa5, h_sk);
    bench_run_chain_once(ctx, p->ref.chain_kernel, blocks, 0x5a, h_ref);
    const int chain_count = blocks * BENCH_BLOCK_THREADS;
    for (int i = 0; i < chain_count && ok; ++i) {
      if (h_sk[i] != h_ref[i]) {
        bench_report_mismatch(p, "chain of the timing kernel, 1 outer iteration", i, NULL, p->state_kind,
                              h_sk[i], h_ref[i]);
        ok = false;
      }
    }
    chain_note = "timing kernels' chains bitwise equal";
  }
  if (ok) {
    printf("check %-18s ok: %s; %s\n", p->name,
           p->compare == BENCH_COMPARE_ALL_LANES_EXACT ? "all lanes bitwise equal"
           : p->compare == BENCH_COMPARE_LANE0_EXACT   ? "lane 0 equal"
                                                       : "lane 0 within 6 FLT_EPSILON sum|x|",
           chain_note);
  }
  BENCH_CUDA(cudaFree(d_in));
  BENCH_CUDA(cudaFree(d_check_out));
  free(h_in);
  free(h_sk);
  free(h_ref);
  return ok;
}

// ---------------------------------------------------------------------------------------------------
// Timing.

typedef struct bench_timing {
  int blocks;
  double warp_calls;            // calls made by all warps in one launch: warps x calls per warp
  double median_ms;
  double ns_per_call_per_warp;  // median time / calls per warp: every warp runs for the whole kernel
  double warp_calls_per_ns;     // all warps' calls over the whole chip / median time
} bench_timing;

static double bench_calls_per_warp(const bench_context *ctx) {
  return (double)ctx->outer_iters * BENCH_INNER_CALLS;
}

// 3 warm-up launches, then 21 launches each between its own pair of events, queued back to back so
// that no host synchronisation leaves the GPU idle between them; the median of the 21 is returned.
static bench_timing bench_time_variant(const bench_context *ctx, const bench_variant *v) {
  bench_timing t;
  t.blocks = bench_one_wave_blocks(ctx, v->chain_kernel);
  for (int i = 0; i < BENCH_WARMUP_LAUNCHES; ++i) {
    bench_launch_chain(ctx, v->chain_kernel, t.blocks, ctx->outer_iters);
  }
  for (int i = 0; i < BENCH_TIMED_LAUNCHES; ++i) {
    BENCH_CUDA(cudaEventRecord(ctx->start[i], 0));
    bench_launch_chain(ctx, v->chain_kernel, t.blocks, ctx->outer_iters);
    BENCH_CUDA(cudaEventRecord(ctx->stop[i], 0));
  }
  BENCH_CUDA(cudaEventSynchronize(ctx->stop[BENCH_TIMED_LAUNCHES - 1]));
  BENCH_CUDA(cudaGetLastError());  // a fault during the runs shows here
  float ms[BENCH_TIMED_LAUNCHES];
  for (int i = 0; i < BENCH_TIMED_LAUNCHES; ++i) {
    BENCH_CUDA(cudaEventElapsedTime(&ms[i], ctx->start[i], ctx->stop[i]));
  }
  std::sort(ms, ms + BENCH_TIMED_LAUNCHES);
  t.median_ms = ms[BENCH_TIMED_LAUNCHES / 2];
  const double ns = t.median_ms * 1e6;
  t.warp_calls = (double)t.blocks * BENCH_WARPS_PER_BLOCK * bench_calls_per_warp(ctx);
  t.ns_per_call_per_warp = ns / bench_calls_per_warp(ctx);
  t.warp_calls_per_ns = t.warp_calls / ns;
  return t;
}

// Keeps the GPU busy, untimed, for BENCH_GPU_WARMUP_MS before the first timing: a GPU that was idle
// runs at a low clock, and the first pair timed (the headline) would otherwise pay for the ramp.
static void bench_warm_gpu(const bench_context *ctx, const void *kernel) {
  const int blocks = bench_one_wave_blocks(ctx, kernel);
  double total_ms = 0.0;
  for (int batch = 0; batch < 1000 && total_ms < BENCH_GPU_WARMUP_MS; ++batch) {
    BENCH_CUDA(cudaEventRecord(ctx->start[0], 0));
    for (int i = 0; i < 4; ++i) bench_launch_chain(ctx, kernel, blocks, ctx->outer_iters);
    BENCH_CUDA(cudaEventRecord(ctx->stop[0], 0));
    BENCH_CUDA(cudaEventSynchronize(ctx->stop[0]));
    float ms = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&ms, ctx->start[0], ctx->stop[0]));
    total_ms += ms;
  }
  printf("\nwarm-up: %.0f ms of untimed launches before the first timing\n", total_ms);
}

static_assert(BENCH_ROUNDS == 2, "the spread and the means below compare exactly two rounds");

typedef struct bench_result {
  bench_timing sk[BENCH_ROUNDS];
  bench_timing ref[BENCH_ROUNDS];
  double ratio[BENCH_ROUNDS];  // samplekit speed / baseline speed in each round
  double ratio_all;            // the same over both rounds together
  double spread_pct;           // largest round-to-round difference of one variant's time, in %
} bench_result;

// Speed is chip throughput (warp-calls per ns), so the ratio stays right even if the two variants'
// waves had different sizes; with equal waves it equals baseline time / samplekit time.
static double bench_speed_ratio(const bench_timing *sk, const bench_timing *ref, int n) {
  double sk_calls = 0.0, sk_ms = 0.0, ref_calls = 0.0, ref_ms = 0.0;
  for (int r = 0; r < n; ++r) {
    sk_calls += sk[r].warp_calls;
    sk_ms += sk[r].median_ms;
    ref_calls += ref[r].warp_calls;
    ref_ms += ref[r].median_ms;
  }
  return (sk_calls / sk_ms) / (ref_calls / ref_ms);
}

static double bench_spread_pct(const bench_timing *t) {
  const double lo = std::min(t[0].median_ms, t[1].median_ms);
  const double hi = std::max(t[0].median_ms, t[1].median_ms);
  return 100.0 * (hi - lo) / lo;
}

static void bench_print_timing_row(int round, const char *label, const bench_timing *t) {
  printf("  %5d  %-10s %7d %8d %11.4f %14.3f %15.3f\n", round, label, t->blocks,
         t->blocks * BENCH_WARPS_PER_BLOCK, t->median_ms, t->ns_per_call_per_warp, t->warp_calls_per_ns);
}

// A B A B: samplekit, baseline, samplekit, baseline, so that a drift in clocks or temperature shows
// up as a difference between rounds rather than as a difference between the variants.
static bench_result bench_time_pair(const bench_context *ctx, const bench_pair *p) {
  bench_result res;
  printf("\n%s: samplekit vs %s\n", p->name, p->ref.label);
  printf("  round  variant     blocks    warps   median_ms  ns/call/warp  warp-calls/ns\n");
  for (int r = 0; r < BENCH_ROUNDS; ++r) {
    res.sk[r] = bench_time_variant(ctx, &p->sk);
    bench_print_timing_row(r + 1, "samplekit", &res.sk[r]);
    res.ref[r] = bench_time_variant(ctx, &p->ref);
    bench_print_timing_row(r + 1, p->ref.label, &res.ref[r]);
    res.ratio[r] = bench_speed_ratio(&res.sk[r], &res.ref[r], 1);
  }
  res.ratio_all = bench_speed_ratio(res.sk, res.ref, BENCH_ROUNDS);
  res.spread_pct = std::max(bench_spread_pct(res.sk), bench_spread_pct(res.ref));
  printf("  speed samplekit/%s: round 1 %.3f, round 2 %.3f, both %.3f; round-to-round spread: "
         "samplekit %.2f%%, %s %.2f%%\n",
         p->ref.label, res.ratio[0], res.ratio[1], res.ratio_all, bench_spread_pct(res.sk), p->ref.label,
         bench_spread_pct(res.ref));
  return res;
}

// ---------------------------------------------------------------------------------------------------
// Reporting.

static double bench_mean_ns_per_call(const bench_timing *t) {
  return 0.5 * (t[0].ns_per_call_per_warp + t[1].ns_per_call_per_warp);
}

static double bench_mean_calls_per_ns(const bench_timing *t) {
  return 0.5 * (t[0].warp_calls_per_ns + t[1].warp_calls_per_ns);
}

static void bench_print_table(const bench_pair *pairs, const bench_result *res) {
  printf("\nsummary: means of the two rounds. ns/call = ns per call per warp; calls/ns = warp-calls\n"
         "per ns on the whole chip; speed = samplekit speed / baseline speed (>= 1: samplekit as fast\n"
         "or faster) over both rounds, then in round 1 and 2; spread%% = largest round-to-round\n"
         "difference of one variant's median time\n");
  printf("%-18s %-10s %13s %13s %13s %13s %7s %7s %7s %8s\n", "primitive", "baseline", "sk_ns/call",
         "base_ns/call", "sk_calls/ns", "base_calls/ns", "speed", "speed1", "speed2", "spread%");
  for (int i = 0; i < BENCH_NUM_PAIRS; ++i) {
    const bench_result *r = &res[i];
    printf("%-18s %-10s %13.3f %13.3f %13.3f %13.3f %7.3f %7.3f %7.3f %8.2f\n", pairs[i].name,
           pairs[i].ref.label, bench_mean_ns_per_call(r->sk), bench_mean_ns_per_call(r->ref),
           bench_mean_calls_per_ns(r->sk), bench_mean_calls_per_ns(r->ref), r->ratio_all, r->ratio[0],
           r->ratio[1], r->spread_pct);
  }
}

// The CSV holds the summary table, one row per pair, with the GPU and the settings on every row so
// that files from several machines can be concatenated.
static bool bench_write_csv(const char *path, const bench_context *ctx, const bench_pair *pairs,
                            const bench_result *res) {
  FILE *f = bench_open_csv(path);
  if (f == NULL) return false;
  fprintf(f, "gpu,sm_count,peak_clock_mhz,outer_iters,calls_per_warp,primitive,baseline,"
             "sk_ns_per_call_per_warp,baseline_ns_per_call_per_warp,sk_warp_calls_per_ns,"
             "baseline_warp_calls_per_ns,speed_ratio,speed_ratio_round1,speed_ratio_round2,spread_pct\n");
  for (int i = 0; i < BENCH_NUM_PAIRS; ++i) {
    const bench_result *r = &res[i];
    fprintf(f, "\"%s\",%d,%d,%d,%.0f,%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f\n", ctx->prop.name,
            ctx->sm_count, ctx->clock_khz / 1000, ctx->outer_iters, bench_calls_per_warp(ctx), pairs[i].name,
            pairs[i].ref.label, bench_mean_ns_per_call(r->sk), bench_mean_ns_per_call(r->ref),
            bench_mean_calls_per_ns(r->sk), bench_mean_calls_per_ns(r->ref), r->ratio_all, r->ratio[0],
            r->ratio[1], r->spread_pct);
  }
  return bench_close_csv(f, path);
}

// ---------------------------------------------------------------------------------------------------
// Command line.

typedef struct bench_options {
  int outer_iters;
  int device;
  const char *csv_path;  // NULL: no CSV
} bench_options;

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: bench_warp [--iters N] [--device D] [--csv FILE] [--help]\n"
          "\n"
          "Times samplekit's warp primitives against CUB (scans, sums) and raw intrinsics (votes,\n"
          "broadcast) after checking that each pair gives the same results on the same inputs.\n"
          "\n"
          "  --iters N   outer loop iterations per thread (default %d); each makes %d dependent calls\n"
          "  --device D  CUDA device to run on (default 0)\n"
          "  --csv FILE  also write the summary table to FILE as CSV\n"
          "  --help      print this and exit\n"
          "\n"
          "Exit status: 0 done, 1 a check failed or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_DEFAULT_ITERS, BENCH_INNER_CALLS);
}

static void bench_parse_args(int argc, char **argv, bench_options *opt) {
  opt->outer_iters = BENCH_DEFAULT_ITERS;
  opt->device = 0;
  opt->csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!bench_common_option(argc, argv, &i, bench_usage, &opt->csv_path) &&
        !bench_int_option(argc, argv, &i, "--iters", 1, BENCH_MAX_ITERS, &opt->outer_iters, bench_usage) &&
        !bench_device_option(argc, argv, &i, &opt->device, bench_usage))
      bench_unknown_option(argv[i], bench_usage);
  }
}

static void bench_print_header(int argc, char **argv, const bench_context *ctx) {
  printf("bench_warp: samplekit warp primitives vs CUB %d.%d.%d and intrinsics (nvcc %d.%d)\n",
         CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, __CUDACC_VER_MAJOR__,
         __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(ctx->device);
  printf("method: block %d threads, grid one full wave (occupancy x SMs), %d outer x %d unrolled "
         "dependent calls = %.0f calls per warp;\n        %d warm-up launches, median of %d timed "
         "launches, rounds in A B A B order\n",
         BENCH_BLOCK_THREADS, ctx->outer_iters, BENCH_INNER_CALLS, bench_calls_per_warp(ctx),
         BENCH_WARMUP_LAUNCHES, BENCH_TIMED_LAUNCHES);
  printf("columns: ns/call/warp = median kernel time / calls per warp; warp-calls/ns = warps x calls "
         "per warp / median time (whole chip)\n\n");
}

int main(int argc, char **argv) {
  bench_options opt;
  bench_parse_args(argc, argv, &opt);

  bench_context ctx;
  bench_open_device(&ctx, opt.device, opt.outer_iters);
  bench_print_header(argc, argv, &ctx);

  bench_pair pairs[BENCH_NUM_PAIRS];
  bench_make_pairs(pairs);
  bench_require_kernel_image(&ctx, pairs[0].sk.chain_kernel);

  // Every pair is checked before anything is timed: a wrong result makes its timing meaningless.
  bool all_ok = true;
  for (int i = 0; i < BENCH_NUM_PAIRS; ++i) all_ok = bench_check_pair(&ctx, &pairs[i]) && all_ok;
  if (!all_ok) {
    printf("\nbench_warp: FAILED: samplekit and the baseline disagree (see above); nothing timed\n");
    bench_close_device(&ctx);
    return BENCH_EXIT_FAILED;
  }

  bench_warm_gpu(&ctx, pairs[0].sk.chain_kernel);
  bench_result res[BENCH_NUM_PAIRS];
  for (int i = 0; i < BENCH_NUM_PAIRS; ++i) res[i] = bench_time_pair(&ctx, &pairs[i]);

  bench_print_table(pairs, res);
  const bench_result *head = &res[0];
  printf("\nheadline: inclusive_sum_f32 samplekit/CUB speed %.3f (rounds %.3f, %.3f; spread %.2f%%); "
         "target >= %.2f: %s\n",
         head->ratio_all, head->ratio[0], head->ratio[1], head->spread_pct, BENCH_HEADLINE_TARGET,
         head->ratio_all >= BENCH_HEADLINE_TARGET ? "met" : "NOT met");

  bool csv_ok = true;
  if (opt.csv_path != NULL) {
    csv_ok = bench_write_csv(opt.csv_path, &ctx, pairs, res);
    if (csv_ok) printf("wrote %s\n", opt.csv_path);
  }
  bench_close_device(&ctx);
  return csv_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
