// bench_butterfly: sk_warp_butterfly_sample_product_f32 against the two baselines of Steele and Tristan
// (PPoPP'17), in the LDA shape: item i draws a topic k with probability proportional to
// theta[doc_i][k] * phi[word_i][k].
//
//   butterfly  samplekit: transposed coalesced reads, butterfly-patterned partial sums (31 shuffles per
//              32 x 32 block), running totals kept per 16th of the row, one block re-read and searched.
//   alg1       the paper's Algorithm 1: each lane reads its own rows (no transposition), writes the
//              prefix sums p[0..K) to a per-thread array, binary search.
//   alg4       the paper's Algorithm 4: transposed coalesced reads, a full 32 x 32 register transpose
//              through shuffles (5 x 16 = 80 per block), then the same prefix sums, array and search.
//              Its reads are the butterfly's, row ids fetched by shuffle included, so the two differ
//              in what they do with a block once it is in registers.
//
// alg1 and alg4 add the same products in the same order (p[k] = p[k-1] + w_k), so they must return the
// same index for every item; the butterfly has its own documented order. Before anything is timed all
// three run on the same items and uniforms (sk_rng_uniform_f32(seed, 0, i) for item i), and every index
// is checked: in [0, K) with a positive weight, alg1 == alg4 everywhere. A failed check exits 1.
//
// Data: theta is D x K, phi is V x K (row-major, ld = K), D = V = 100,000; item i has a random doc and a
// random word (uniform over the rows), so every draw reads two rows of K floats that are not in cache.
// theta rows look like document-topic proportions (a few large entries over a floor), phi rows like
// word-topic probabilities (heavily skewed): every weight is positive.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "samplekit/butterfly.cuh"
#include "samplekit/rng.cuh"

#define BENCH_NAME "bench_butterfly"
#include "bench_common.h"

#define BENCH_THREADS 256
#define BENCH_ROWS 100000          // D = V
#define BENCH_DEFAULT_LOG2_ITEMS 22
#define BENCH_DEFAULT_RUNS 15      // timed launches per variant (odd: the median is one launch)
#define BENCH_WARMUP 2
#define BENCH_SEED 0x5eedb0f1ull
#define BENCH_TARGET_K 1024
#define BENCH_TARGET_RATIO 1.1     // issue 3: butterfly >= 1.1x the speed of alg4 at K = 1024

static const int kKs[] = {64, 128, 256, 512, 1024, 2048};
enum { kNumKs = sizeof kKs / sizeof kKs[0], kNumVariants = 3 };
static const char *const kVariantNames[kNumVariants] = {"butterfly", "alg1", "alg4"};

#define BENCH_LAUNCHED() BENCH_CUDA(cudaGetLastError())

// --- Data -------------------------------------------------------------------------------------------

static __device__ inline float bench_unit(uint32_t h) { return (float)(h >> 8) * 5.9604644775390625e-8f; }

// theta[d][k]: a floor of 0.05 plus, on about one topic in eight, a share up to 4; phi[v][k]: 1e-4 plus
// u^8 (most entries tiny, a few near 1).
__global__ void fill_matrices(float *theta, float *phi, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t h = sk_mix_u32((uint32_t)i ^ sk_mix_u32((uint32_t)(i >> 32) + 0x9e3779b9u));
    const uint32_t g = sk_mix_u32(h + 0x632be5abu);
    theta[i] = 0.05f + (h % 8u == 0u ? 4.0f * bench_unit(g) : 0.0f);
    const float u = bench_unit(sk_mix_u32(g));
    const float u2 = u * u, u4 = u2 * u2;
    phi[i] = 1e-4f + u4 * u4;
  }
}

__global__ void fill_items(int *docs, int *words, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    docs[i] = (int)(sk_mix_u32((uint32_t)i * 2u + 1u) % BENCH_ROWS);
    words[i] = (int)(sk_mix_u32((uint32_t)i * 2u + 2u ^ 0xabcdef01u) % BENCH_ROWS);
  }
}

// --- The three samplers -----------------------------------------------------------------------------

// Launch bounds: blocks of BENCH_THREADS, and at least this many blocks per SM. Each transposed kernel
// uses the setting that was fastest for it in a sweep on an H200 (K = 1024, ns a draw): the butterfly
// 4.69 at 1 or 2 (ptxas's own 96 registers) and 3.57 at 3 (80 registers, a few spilled words): it is
// memory-latency bound, and occupancy hides latency; alg4 5.85 at 1 (its own 74 registers, already 3
// blocks an SM) and 6.05 at 3. alg1 needs 29 registers and no bound. Override with -D to sweep again.
#ifndef BENCH_BUTTERFLY_MIN_BLOCKS
#define BENCH_BUTTERFLY_MIN_BLOCKS 3
#endif
#ifndef BENCH_ALG4_MIN_BLOCKS
#define BENCH_ALG4_MIN_BLOCKS 1
#endif

// samplekit: one item per lane; a partial last warp still calls (its extra lanes are inactive).
__global__ void __launch_bounds__(BENCH_THREADS, BENCH_BUTTERFLY_MIN_BLOCKS)
    butterfly_kernel(const float *theta, const float *phi, const int *docs, const int *words, size_t n, int K,
                     uint64_t seed, int *out) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i - (size_t)sk_lane_id() >= n) return;  // whole warps leave together
  const int active = i < n;
  const float uniform = sk_rng_uniform_f32(seed, 0, (uint64_t)i);
  const int k = sk_warp_butterfly_sample_product_f32(theta, (size_t)K, phi, (size_t)K, active ? docs[i] : 0,
                                                     active ? words[i] : 0, active, K, uniform, NULL);
  if (active) out[i] = k;
}

// The first index whose prefix sum exceeds u (p non-decreasing); K - 1 when none does.
template <int K>
__device__ __forceinline__ int bench_binary_search(const float (&p)[K], float u) {
  int lo = 0, hi = K - 1;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (u < p[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Algorithm 1: each lane walks its own two rows. Loads of one instruction hit 32 different rows.
template <int K>
__global__ void __launch_bounds__(BENCH_THREADS)
    alg1_kernel(const float *theta, const float *phi, const int *docs, const int *words, size_t n, uint64_t seed,
                int *out) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float *t = theta + (size_t)docs[i] * K, *f = phi + (size_t)words[i] * K;
  float p[K];
  float sum = 0.0f;
#pragma unroll 8
  for (int k = 0; k < K; ++k) {
    sum = __fadd_rn(sum, __fmul_rn(t[k], f[k]));
    p[k] = sum;
  }
  const float u = __fmul_rn(sk_rng_uniform_f32(seed, 0, (uint64_t)i), sum);
  out[i] = bench_binary_search(p, u);
}

// One stage of the register transpose: lanes that differ in bit d swap the halves of their 32 values
// whose index differs in bit d. After the five stages lane t holds row t: v[i] = row t, column i.
template <int d>
__device__ __forceinline__ void bench_transpose_stage(float (&v)[32], bool upper) {
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    if (i & d) continue;
    const float recv = __shfl_xor_sync(0xffffffffu, upper ? v[i] : v[i | d], d);
    v[i] = upper ? recv : v[i];
    v[i | d] = upper ? v[i | d] : recv;
  }
}

// Algorithm 4: the butterfly's transposed reads (in step s the lanes load 32 consecutive products of
// row s, lane s's doc and word fetched by shuffle, as samplekit does), a full transpose, then
// Algorithm 1's prefix sums and search.
template <int K>
__global__ void __launch_bounds__(BENCH_THREADS, BENCH_ALG4_MIN_BLOCKS)
    alg4_kernel(const float *theta, const float *phi, const int *docs, const int *words, size_t n, uint64_t seed,
                int *out) {
  static_assert(K % 32 == 0, "the benchmark's K are multiples of 32");
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const int lane = sk_lane_id();
  if (i - (size_t)lane >= n) return;
  const int active = i < n;
  const unsigned my_doc = active ? (unsigned)docs[i] : 0u, my_word = active ? (unsigned)words[i] : 0u;
  const unsigned act = __ballot_sync(0xffffffffu, active);
  float p[K];
  float sum = 0.0f;
  for (int b = 0; b < K / 32; ++b) {
    size_t ld = K;
    asm volatile("" : "+l"(ld));  // as in the butterfly: keep the 64-bit row offsets out of registers
    const int c = 32 * b + lane;
    float v[32];
#pragma unroll
    for (int s = 0; s < 32; ++s) {
      const unsigned d = __shfl_sync(0xffffffffu, my_doc, s), w = __shfl_sync(0xffffffffu, my_word, s);
      v[s] = (act >> s) & 1u ? __fmul_rn(theta[(size_t)d * ld + c], phi[(size_t)w * ld + c]) : 0.0f;
    }
    bench_transpose_stage<1>(v, lane & 1);
    bench_transpose_stage<2>(v, lane & 2);
    bench_transpose_stage<4>(v, lane & 4);
    bench_transpose_stage<8>(v, lane & 8);
    bench_transpose_stage<16>(v, lane & 16);
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      sum = __fadd_rn(sum, v[j]);
      p[32 * b + j] = sum;
    }
  }
  const float u = __fmul_rn(sk_rng_uniform_f32(seed, 0, (uint64_t)i), sum);
  const int k = bench_binary_search(p, u);
  if (active) out[i] = k;
}

// --- Checks -----------------------------------------------------------------------------------------

// counts[0..2]: invalid indices of each variant (out of range, or weight <= 0); counts[3]: alg1 != alg4;
// counts[4]: butterfly != alg1 (allowed: a different order of additions).
__global__ void check_kernel(const float *theta, const float *phi, const int *docs, const int *words, size_t n,
                             int K, const int *out_b, const int *out_1, const int *out_4,
                             unsigned long long *counts) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int ks[3] = {out_b[i], out_1[i], out_4[i]};
    for (int v = 0; v < 3; ++v) {
      const int k = ks[v];
      const bool ok = k >= 0 && k < K &&
                      __fmul_rn(theta[(size_t)docs[i] * K + k], phi[(size_t)words[i] * K + k]) > 0.0f;
      if (!ok) atomicAdd(&counts[v], 1ull);
    }
    if (ks[1] != ks[2]) atomicAdd(&counts[3], 1ull);
    if (ks[0] != ks[1]) atomicAdd(&counts[4], 1ull);
  }
}

// --- Running ----------------------------------------------------------------------------------------

typedef struct bench_buffers {
  float *theta, *phi;
  int *docs, *words;
  int *out[kNumVariants];
  unsigned long long *counts;
  size_t items;
} bench_buffers;

template <int K>
static void bench_launch(int variant, const bench_buffers *b) {
  const unsigned blocks = (unsigned)((b->items + BENCH_THREADS - 1) / BENCH_THREADS);
  switch (variant) {
    case 0:
      butterfly_kernel<<<blocks, BENCH_THREADS>>>(b->theta, b->phi, b->docs, b->words, b->items, K, BENCH_SEED,
                                                  b->out[0]);
      break;
    case 1:
      alg1_kernel<K><<<blocks, BENCH_THREADS>>>(b->theta, b->phi, b->docs, b->words, b->items, BENCH_SEED, b->out[1]);
      break;
    default:
      alg4_kernel<K><<<blocks, BENCH_THREADS>>>(b->theta, b->phi, b->docs, b->words, b->items, BENCH_SEED, b->out[2]);
      break;
  }
  BENCH_LAUNCHED();
}

static void bench_launch_k(int K, int variant, const bench_buffers *b) {
  switch (K) {
    case 64: bench_launch<64>(variant, b); break;
    case 128: bench_launch<128>(variant, b); break;
    case 256: bench_launch<256>(variant, b); break;
    case 512: bench_launch<512>(variant, b); break;
    case 1024: bench_launch<1024>(variant, b); break;
    default: bench_launch<2048>(variant, b); break;
  }
}

template <int K>
static void bench_attributes_k(cudaFuncAttributes attr[kNumVariants]) {
  BENCH_CUDA(cudaFuncGetAttributes(&attr[0], butterfly_kernel));
  BENCH_CUDA(cudaFuncGetAttributes(&attr[1], alg1_kernel<K>));
  BENCH_CUDA(cudaFuncGetAttributes(&attr[2], alg4_kernel<K>));
}

static void bench_attributes(int K, cudaFuncAttributes attr[kNumVariants]) {
  switch (K) {
    case 64: bench_attributes_k<64>(attr); break;
    case 128: bench_attributes_k<128>(attr); break;
    case 256: bench_attributes_k<256>(attr); break;
    case 512: bench_attributes_k<512>(attr); break;
    case 1024: bench_attributes_k<1024>(attr); break;
    default: bench_attributes_k<2048>(attr); break;
  }
}

typedef struct bench_row {
  int K;
  double median_ms[kNumVariants];
  double spread_pct[kNumVariants];  // (max - min) / median over the timed runs
  int regs[kNumVariants];
  size_t local_bytes[kNumVariants];
  unsigned long long butterfly_differs;
} bench_row;

// Runs the three on the same items, checks every index; returns false on any failure.
static bool bench_check(int K, const bench_buffers *b, bench_row *row) {
  for (int v = 0; v < kNumVariants; ++v) {
    BENCH_CUDA(cudaMemset(b->out[v], 0xff, sizeof(int) * b->items));  // -1: an unwritten index fails
    bench_launch_k(K, v, b);
  }
  BENCH_CUDA(cudaMemset(b->counts, 0, sizeof(unsigned long long) * 5));
  check_kernel<<<1024, BENCH_THREADS>>>(b->theta, b->phi, b->docs, b->words, b->items, K, b->out[0], b->out[1],
                                        b->out[2], b->counts);
  BENCH_LAUNCHED();
  unsigned long long c[5];
  BENCH_CUDA(cudaMemcpy(c, b->counts, sizeof c, cudaMemcpyDeviceToHost));
  row->butterfly_differs = c[4];
  const bool ok = c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0;
  printf("check K=%4d: invalid indices butterfly %llu, alg1 %llu, alg4 %llu; alg1 != alg4 on %llu items; "
         "butterfly != alg1 on %llu of %zu (different order of additions) -> %s\n",
         K, c[0], c[1], c[2], c[3], c[4], b->items, ok ? "ok" : "FAILED");
  return ok;
}

static double bench_median(double *x, int n) {
  std::sort(x, x + n);
  return x[n / 2];
}

// Warm-up, then runs x (butterfly, alg1, alg4) interleaved, each launch between its own events.
static void bench_time(int K, const bench_buffers *b, int runs, bench_row *row) {
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  for (int w = 0; w < BENCH_WARMUP; ++w)
    for (int v = 0; v < kNumVariants; ++v) bench_launch_k(K, v, b);
  double *ms = (double *)malloc(sizeof(double) * runs * kNumVariants);
  for (int r = 0; r < runs; ++r)
    for (int v = 0; v < kNumVariants; ++v) {
      BENCH_CUDA(cudaEventRecord(start, 0));
      bench_launch_k(K, v, b);
      BENCH_CUDA(cudaEventRecord(stop, 0));
      BENCH_CUDA(cudaEventSynchronize(stop));
      float t = 0.0f;
      BENCH_CUDA(cudaEventElapsedTime(&t, start, stop));
      ms[v * runs + r] = t;
    }
  for (int v = 0; v < kNumVariants; ++v) {
    double *x = ms + v * runs;
    row->median_ms[v] = bench_median(x, runs);
    row->spread_pct[v] = 100.0 * (x[runs - 1] - x[0]) / row->median_ms[v];
  }
  free(ms);
  BENCH_CUDA(cudaEventDestroy(start));
  BENCH_CUDA(cudaEventDestroy(stop));
}

// --- Command line and report ------------------------------------------------------------------------

typedef struct bench_options {
  int log2_items;
  int runs;
  int device;
  const char *csv_path;
} bench_options;

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: bench_butterfly [--log2-items N] [--runs N] [--device D] [--csv FILE] [--help]\n"
          "\n"
          "Times sk_warp_butterfly_sample_product_f32 against the paper's Algorithm 1 (each lane its own\n"
          "rows) and Algorithm 4 (transposed reads, full register transpose) at K = 64 .. 2048, on\n"
          "theta and phi of %d rows each, one item per lane with a random doc and word, after checking\n"
          "every index of all three.\n"
          "\n"
          "  --log2-items N  2^N items per launch (default %d, 10..26)\n"
          "  --runs N        timed launches per variant and K, median reported (default %d, 11..201)\n"
          "  --device D      CUDA device (default 0)\n"
          "  --csv FILE      also write the table to FILE as CSV\n"
          "  --help          print this and exit\n"
          "\n"
          "Exit status: 0 done, 1 a check or CUDA failed, 2 bad usage, 77 no GPU.\n",
          BENCH_ROWS, BENCH_DEFAULT_LOG2_ITEMS, BENCH_DEFAULT_RUNS);
}

static void bench_parse_args(int argc, char **argv, bench_options *o) {
  o->log2_items = BENCH_DEFAULT_LOG2_ITEMS;
  o->runs = BENCH_DEFAULT_RUNS;
  o->device = 0;
  o->csv_path = NULL;
  // Unlike an unknown option, a bad value is reported without the usage (NULL to bench_bad_value).
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const bool has_value = i + 1 < argc;
    if (bench_common_option(argc, argv, &i, bench_usage, &o->csv_path) ||
        bench_device_option(argc, argv, &i, &o->device, NULL))
      continue;
    if (strcmp(a, "--log2-items") == 0 && has_value) {
      if (!bench_parse_int(argv[++i], 10, 26, &o->log2_items)) bench_bad_value(a, argv[i], NULL);
    } else if (strcmp(a, "--runs") == 0 && has_value) {
      if (!bench_parse_int(argv[++i], 11, 201, &o->runs)) bench_bad_value(a, argv[i], NULL);
    } else {
      bench_unknown_option(a, bench_usage);
    }
  }
}

static bool bench_write_csv(const char *path, const cudaDeviceProp *prop, const bench_options *o,
                            const bench_row *rows, int n) {
  FILE *f = bench_open_csv(path);
  if (f == NULL) return false;
  fprintf(f, "gpu,items,runs,K,variant,median_ms,ns_per_draw,draws_per_s,speed_vs_alg4,speed_vs_alg1,"
             "spread_pct,registers,local_bytes\n");
  const double items = (double)(1ull << o->log2_items);
  for (int r = 0; r < n; ++r)
    for (int v = 0; v < kNumVariants; ++v) {
      const double ms = rows[r].median_ms[v];
      fprintf(f, "\"%s\",%.0f,%d,%d,%s,%.6f,%.6f,%.6e,%.6f,%.6f,%.3f,%d,%zu\n", prop->name, items, o->runs,
              rows[r].K, kVariantNames[v], ms, ms * 1e6 / items, items / (ms * 1e-3), rows[r].median_ms[2] / ms,
              rows[r].median_ms[1] / ms, rows[r].spread_pct[v], rows[r].regs[v], rows[r].local_bytes[v]);
    }
  return bench_close_csv(f, path);
}

int main(int argc, char **argv) {
  bench_options opt;
  bench_parse_args(argc, argv, &opt);
  bench_select_device(opt.device);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, opt.device));

  printf("bench_butterfly: butterfly-patterned partial sums vs the paper's Algorithms 1 and 4 (nvcc %d.%d)\n",
         __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  bench_print_date_and_command(argc, argv);
  bench_print_gpu(opt.device);
  const size_t items = (size_t)1 << opt.log2_items;
  printf("method: %zu items (one per lane, blocks of %d), theta and phi %d x K each (row-major, ld = K), "
         "random doc and word per item;\n        %d warm-up launches, median of %d timed launches per variant "
         "(CUDA events), variants interleaved;\n        __launch_bounds__(%d, n): n = %d butterfly, %d alg4, "
         "none alg1\n\n",
         items, BENCH_THREADS, BENCH_ROWS, BENCH_WARMUP, opt.runs, BENCH_THREADS, BENCH_BUTTERFLY_MIN_BLOCKS,
         BENCH_ALG4_MIN_BLOCKS);

  bench_buffers b;
  memset(&b, 0, sizeof b);
  b.items = items;
  BENCH_CUDA(cudaMalloc(&b.docs, sizeof(int) * items));
  BENCH_CUDA(cudaMalloc(&b.words, sizeof(int) * items));
  for (int v = 0; v < kNumVariants; ++v) BENCH_CUDA(cudaMalloc(&b.out[v], sizeof(int) * items));
  BENCH_CUDA(cudaMalloc(&b.counts, sizeof(unsigned long long) * 5));
  fill_items<<<1024, BENCH_THREADS>>>(b.docs, b.words, items);
  BENCH_LAUNCHED();

  bench_row rows[kNumKs];
  bool all_ok = true;
  for (int a = 0; a < kNumKs; ++a) {
    const int K = kKs[a];
    bench_row *row = &rows[a];
    memset(row, 0, sizeof *row);
    row->K = K;
    const size_t n = (size_t)BENCH_ROWS * (size_t)K;
    BENCH_CUDA(cudaMalloc(&b.theta, sizeof(float) * n));
    BENCH_CUDA(cudaMalloc(&b.phi, sizeof(float) * n));
    fill_matrices<<<4096, BENCH_THREADS>>>(b.theta, b.phi, n);
    BENCH_LAUNCHED();
    cudaFuncAttributes attr[kNumVariants];
    bench_attributes(K, attr);
    for (int v = 0; v < kNumVariants; ++v) {
      row->regs[v] = attr[v].numRegs;
      row->local_bytes[v] = attr[v].localSizeBytes;
    }
    if (!bench_check(K, &b, row)) {
      all_ok = false;
    } else {
      bench_time(K, &b, opt.runs, row);
    }
    BENCH_CUDA(cudaFree(b.theta));
    BENCH_CUDA(cudaFree(b.phi));
    if (!all_ok) break;
  }
  if (!all_ok) {
    printf("\nbench_butterfly: FAILED: an index was invalid or alg1 and alg4 disagree; not timed further\n");
    return BENCH_EXIT_FAILED;
  }

  printf("\nns/draw = median launch time / items; Gdraws/s = items / median time; speed = the other's time /\n"
         "butterfly's time (> 1: butterfly faster); GB/s = the 8 K bytes of theta and phi rows each draw\n"
         "reads / time; spread = (max - min) / median of the timed launches; regs and local bytes per thread\n");
  printf("%5s  %-10s %10s %9s %9s %9s %8s %5s %7s\n", "K", "variant", "ns/draw", "Gdraws/s", "GB/s",
         "speed", "spread%", "regs", "local");
  int crossover = -1;
  double target_ratio = 0.0;
  for (int a = 0; a < kNumKs; ++a) {
    const bench_row *r = &rows[a];
    for (int v = 0; v < kNumVariants; ++v) {
      const double ms = r->median_ms[v], ns = ms * 1e6 / (double)items;
      char speed[32] = "";
      if (v > 0) snprintf(speed, sizeof speed, "%.3f", ms / r->median_ms[0]);
      printf("%5d  %-10s %10.4f %9.3f %9.1f %9s %8.2f %5d %7zu\n", r->K, kVariantNames[v], ns,
             (double)items / (ms * 1e6), 8.0 * r->K * (double)items / (ms * 1e6), speed, r->spread_pct[v],
             r->regs[v], r->local_bytes[v]);
    }
    if (crossover < 0 && r->median_ms[0] < r->median_ms[1]) crossover = r->K;
    if (r->K == BENCH_TARGET_K) target_ratio = r->median_ms[2] / r->median_ms[0];
  }
  printf("\nbutterfly vs alg4 (full transpose) at K = %d: %.3fx; target >= %.2fx: %s\n", BENCH_TARGET_K,
         target_ratio, BENCH_TARGET_RATIO, target_ratio >= BENCH_TARGET_RATIO ? "met" : "NOT met");
  if (crossover < 0) {
    printf("butterfly vs alg1 (own rows): alg1 is as fast or faster at every K measured (up to %d)\n",
           kKs[kNumKs - 1]);
  } else if (crossover == kKs[0]) {
    printf("butterfly vs alg1 (own rows): butterfly is faster at every K measured (from %d)\n", kKs[0]);
  } else {
    printf("butterfly vs alg1 (own rows): crossover between K = %d and K = %d (butterfly faster from %d on)\n",
           crossover / 2, crossover, crossover);
  }
  bool csv_ok = true;
  if (opt.csv_path != NULL) {
    csv_ok = bench_write_csv(opt.csv_path, &prop, &opt, rows, kNumKs);
    if (csv_ok) printf("wrote %s\n", opt.csv_path);
  }
  for (int v = 0; v < kNumVariants; ++v) BENCH_CUDA(cudaFree(b.out[v]));
  BENCH_CUDA(cudaFree(b.docs));
  BENCH_CUDA(cudaFree(b.words));
  BENCH_CUDA(cudaFree(b.counts));
  return csv_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
