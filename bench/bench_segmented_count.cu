// bench_segmented_count: issue 4. sk_segmented_count_u32 at the shapes of LDA's document-topic
// rebuild against the CUB baseline (device radix sort of (segment, key) packed into one integer, then
// run-length encode) and a naive global-atomics dense count, with the copy rate from the same run.
//   usage: bench_segmented_count [--device N] [--csv FILE] [--reps N] [--shape nytimes|pubmed|kos|all]
//                                [--zipf A] [--keys K1,K2,...] [--help]
//
// Shapes (a segment is a document, an item a token, a key a topic), each at K = 1,000 and 10,000
// (--keys: up to 8 other values in [1, 2^20]):
//  - nytimes: 300,000 segments, mean 332 items (99.6M items), V = 102,660 words;
//  - pubmed: 8,200,000 segments, mean 90 items (738M items), V = 141,043 words;
//  - kos: 3,430 segments, mean 136 items (466,480 items), V = 6,906 words: a corpus small enough
//    that the count's fixed costs and its spread over the SMs decide its time (issue 32). Its input
//    (under 4 MB) stays in L2 between runs, as z does in sk-lda between the draws and the count.
// Segment lengths: lognormal with sigma 1.0 (nytimes) or 0.6 (pubmed abstracts vary less), each
// capped at 30 x (nytimes) or 10 x (pubmed) the mean, then rescaled by cumulative rounding so that
// the total is exactly segments x mean (host, splitmix64 + Box-Muller, fixed seed).
// Keys: every segment draws Zipf-shaped ranks r in [0, K) (the continuous power law of exponent
// --zipf, default 1.1, by inversion) and maps them through its own affine permutation of [0, K),
// key = (a_s r + b_s) mod K with gcd(a_s, K) = 1: each document has its own few frequent topics, as
// LDA's document-topic rows are sparse (device, counter-based hash).
// Word order (PDOW): every item gets a word, Zipf over V words with exponent 1 (device); the host
// orders them with sk_csr_chunk_order_host (csr_chunker.h): item i's key is stored at position
// inverse[i] of the word-order array keys_w, and read through d_perm = inverse.
//
// Variants, all producing the CSR (offsets, keys, counts) or its equivalent:
//  samplekit           sk_segmented_count_u32, keys in document order, one phase (capacity = items)
//  samplekit-perm      the same, keys_w read through the permutation
//  gather+samplekit    keys_w gathered into document order by a plain kernel, then samplekit (timed
//                      together)
//  cub                 pack (segment << key_bits | key) into uint32 when the bits fit, else uint64 (one
//                      warp per segment), cub::DeviceRadixSort::SortKeys on the used bits only
//                      (DoubleBuffer), cub::DeviceRunLengthEncode::Encode
//  cub-sort+rle        the same without the packing (keys packed before the start event)
//  cub-perm            cub, packing through the permutation
//  atomics             cudaMemsetAsync of a dense segments x K uint32 matrix, one atomicAdd per item;
//                      only when the matrix fits in half the free device memory (else "skipped")
// Every samplekit output is compared with CUB's, pair by pair, before anything is timed (and the
// dense matrix with samplekit's pairs): a mismatch exits 1.
// Timing: CUDA events on the legacy stream, 3 warm-up runs, the median of --reps (default 20). Every
// input but kos's is hundreds of MB or more, far above L2, so nothing is rotated. Columns: items/s; "vs cub" =
// the CUB time of the same input form (cub for document order, cub-perm through the permutation)
// over this variant's time; "eff GB/s" = the compulsory bytes of the input form (offsets read and
// written, 8 (S + 1); keys read, 4 n, plus 4 n for the permutation; pairs written, 8 P) over the time;
// "of copy" = that over the rate of a device-to-device cudaMemcpyAsync of the keys array (4 n bytes,
// read + written counted) measured in the same run.
// Memory: about 44 bytes per item (keys in both orders, the permutation, the gather buffer, the
// pairs, CUB's two uint64 buffers and run counts): 32.5 GB for pubmed, printed per shape; the dense
// matrix is allocated after CUB's buffers are freed.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cuda_runtime.h>

#include "samplekit/csr_chunker.h"
#include "samplekit/segmented_count.h"
#include "samplekit/sk_device.h"

#define BENCH_NAME "bench_segmented_count"
#include "bench_common.h"

#define BENCH_THREADS 256
#define BENCH_WARMUP 3
#define BENCH_DEFAULT_REPS 20
#define BENCH_SEED 0x5e6c0c0u

// ---------------------------------------------------------------------------------------------------
// Shapes.

struct bench_shape {
  const char *name;
  int32_t segments;
  int32_t mean;
  double sigma;   // of the lognormal lengths
  double cap;     // lengths capped at cap x mean (before the rescaling to the exact total)
  int32_t words;  // V, for the word order
};

static const bench_shape kShapes[] = {
    {"nytimes", 300000, 332, 1.0, 30.0, 102660},
    {"pubmed", 8200000, 90, 0.6, 10.0, 141043},
    {"kos", 3430, 136, 1.0, 30.0, 6906},
};
enum { kMaxKs = 8 };
static int32_t kKs[kMaxKs] = {1000, 10000};  // --keys replaces them
static int g_num_ks = 2;

// ---------------------------------------------------------------------------------------------------
// Generation.

// The continuous power law of density proportional to x^-a on [1, n + 1), by inversion: rank
// floor(x) - 1 in [0, n). Precomputed per (n, a).
struct zipf_law {
  int32_t n;
  int log_uniform;  // a = 1
  float log_n1;     // ln(n + 1)
  float c;          // (n + 1)^(1 - a) - 1
  float inv_e;      // 1 / (1 - a)
};

static zipf_law make_zipf(int32_t n, double a) {
  zipf_law z;
  z.n = n;
  z.log_uniform = fabs(a - 1.0) < 1e-9;
  z.log_n1 = (float)log((double)n + 1.0);
  z.c = z.log_uniform ? 0.0f : (float)(pow((double)n + 1.0, 1.0 - a) - 1.0);
  z.inv_e = z.log_uniform ? 0.0f : (float)(1.0 / (1.0 - a));
  return z;
}

__device__ __forceinline__ int32_t zipf_rank(const zipf_law &z, float u) {
  const float x = z.log_uniform ? expf(u * z.log_n1) : powf(1.0f + u * z.c, z.inv_e);
  const int32_t r = (int32_t)floorf(x) - 1;
  return r < 0 ? 0 : (r >= z.n ? z.n - 1 : r);
}

// A uniform in [0, 1) with 24 bits from (i, salt).
__device__ __forceinline__ float unit_of(uint32_t i, uint32_t salt) {
  return (float)(sk_mix_u32(i * 0x9e3779b9u + salt) >> 8) * 0x1p-24f;
}

__device__ __forceinline__ uint32_t gcd_u32(uint32_t a, uint32_t b) {
  while (b != 0) {
    const uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Warp w of the grid takes segments w, w + warps, ...; its lanes stride over the segment's items.
#define BENCH_FOR_SEGMENTS(S)                                        \
  const int lane_ = threadIdx.x & 31;                                \
  const long long warps_ = ((long long)gridDim.x * blockDim.x) >> 5; \
  for (long long s = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; s < (S); s += warps_)

__global__ void gen_keys(const int32_t *offsets, int32_t S, int32_t K, zipf_law z, uint32_t seed, uint32_t *keys) {
  BENCH_FOR_SEGMENTS(S) {
    const uint32_t h = sk_mix_u32((uint32_t)s ^ seed);
    uint32_t a = 1u + h % (uint32_t)K;
    while (gcd_u32(a, (uint32_t)K) != 1u) ++a;
    const uint32_t b = sk_mix_u32(h + 0x632be5abu) % (uint32_t)K;
    for (int32_t i = offsets[s] + lane_; i < offsets[s + 1]; i += 32) {
      const uint32_t r = (uint32_t)zipf_rank(z, unit_of((uint32_t)i, seed ^ 0x85ebca6bu));
      keys[i] = (uint32_t)(((uint64_t)a * r + b) % (uint32_t)K);
    }
  }
}

__global__ void gen_words(int32_t n, zipf_law z, uint32_t seed, int32_t *words) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    words[i] = zipf_rank(z, unit_of((uint32_t)i, seed));
}

// keys_w[inverse[i]] = keys[i]: the keys laid out in word order.
__global__ void scatter_keys(const uint32_t *keys, const int32_t *inverse, int32_t n, uint32_t *keys_w) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    keys_w[inverse[i]] = keys[i];
}

// The gather variant's first step: the keys back in document order.
__global__ void gather_keys(const uint32_t *keys_w, const int32_t *perm, int32_t n, uint32_t *out) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = keys_w[perm[i]];
}

// ---------------------------------------------------------------------------------------------------
// Baselines.

template <class T>
__global__ void pack_keys(const int32_t *offsets, int32_t S, const uint32_t *keys, const int32_t *perm, int key_bits,
                          T *packed) {
  BENCH_FOR_SEGMENTS(S) {
    const T tag = (T)s << key_bits;
    if (perm == nullptr) {
      for (int32_t i = offsets[s] + lane_; i < offsets[s + 1]; i += 32) packed[i] = tag | (T)keys[i];
    } else {
      for (int32_t i = offsets[s] + lane_; i < offsets[s + 1]; i += 32) packed[i] = tag | (T)keys[perm[i]];
    }
  }
}

__global__ void dense_count(const int32_t *offsets, int32_t S, const uint32_t *keys, int32_t K, uint32_t *dense) {
  BENCH_FOR_SEGMENTS(S) {
    uint32_t *row = dense + (size_t)s * K;
    for (int32_t i = offsets[s] + lane_; i < offsets[s + 1]; i += 32) atomicAdd(row + keys[i], 1u);
  }
}

// ---------------------------------------------------------------------------------------------------
// Verification on the device: the first bad index by atomicMin (~0 when none).

__global__ void verify_offsets(const int32_t *out_offsets, int32_t S, unsigned long long *first_bad) {
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s <= S; s += (long long)gridDim.x * blockDim.x)
    if ((s == 0 && out_offsets[0] != 0) || (s > 0 && out_offsets[s] < out_offsets[s - 1]))
      atomicMin(first_bad, (unsigned long long)s);
}

// Pair j of samplekit equals CUB's run j, and lies inside its segment's range. With P equal, non-
// decreasing offsets from 0 and runs sorted by segment, this pins every offset too.
template <class T>
__global__ void verify_pairs(const int32_t *out_offsets, const uint32_t *out_keys, const uint32_t *out_counts,
                             const T *unique, const uint32_t *run_counts, int32_t P, int key_bits,
                             unsigned long long *first_bad) {
  const T mask = ((T)1 << key_bits) - 1;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < P; j += (long long)gridDim.x * blockDim.x) {
    const T u = unique[j];
    const long long s = (long long)(u >> key_bits);
    if (out_keys[j] != (uint32_t)(u & mask) || out_counts[j] != run_counts[j] || j < out_offsets[s] ||
        j >= out_offsets[s + 1])
      atomicMin(first_bad, (unsigned long long)j);
  }
}

// The dense matrix against samplekit's pairs: every pair's cell holds its count ...
__global__ void verify_dense_pairs(const int32_t *out_offsets, int32_t S, const uint32_t *out_keys,
                                   const uint32_t *out_counts, const uint32_t *dense, int32_t K,
                                   unsigned long long *first_bad) {
  BENCH_FOR_SEGMENTS(S) {
    for (int32_t j = out_offsets[s] + lane_; j < out_offsets[s + 1]; j += 32)
      if (dense[(size_t)s * K + out_keys[j]] != out_counts[j]) atomicMin(first_bad, (unsigned long long)j);
  }
}

// ... and the matrix has exactly P non-zero cells.
__global__ void count_nonzero(const uint32_t *dense, size_t cells, unsigned long long *nonzero) {
  unsigned long long mine = 0;
  for (size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x; c < cells; c += (size_t)gridDim.x * blockDim.x)
    mine += dense[c] != 0;
  atomicAdd(nonzero, mine);
}

// ---------------------------------------------------------------------------------------------------
// Timing and bookkeeping.

// Median time in ms of `reps` runs of body(), each after setup() and between its own pair of events
// on the legacy stream; BENCH_WARMUP untimed runs first.
template <class Setup, class Body>
static double median_ms(int reps, Setup setup, Body body) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  for (int r = 0; r < BENCH_WARMUP; ++r) {
    setup();
    body();
  }
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    setup();
    BENCH_CUDA(cudaEventRecord(a, 0));
    body();
    BENCH_CUDA(cudaEventRecord(b, 0));
    BENCH_CUDA(cudaEventSynchronize(b));
    float ms = 0.0f;
    BENCH_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaEventDestroy(a));
  BENCH_CUDA(cudaEventDestroy(b));
  return bench_stats_of(t.data(), t.size()).median_ms;
}

static void no_setup() {}

static size_t g_device_bytes = 0;  // this program's device allocations now

template <class T>
static void dev_alloc(T **p, size_t bytes) {
  BENCH_CUDA(cudaMalloc((void **)p, bytes > 0 ? bytes : 1));
  g_device_bytes += bytes;
}

template <class T>
static void dev_free(T **p, size_t bytes) {
  if (*p != nullptr) {
    BENCH_CUDA(cudaFree(*p));
    g_device_bytes -= bytes;
  }
  *p = nullptr;
}

// Seconds since t0_ms, a bench_now_ms() reading.
static double seconds_since(double t0_ms) { return (bench_now_ms() - t0_ms) * 1e-3; }

static double unit_f64(uint64_t *state) { return ((double)(bench_splitmix64(state) >> 11) + 0.5) * 0x1p-53; }

// Lognormal lengths (mean 1 before the cap), capped, rescaled by cumulative rounding to end at n.
static void make_offsets(const bench_shape &sh, int32_t n, std::vector<int32_t> &offsets) {
  const int32_t S = sh.segments;
  std::vector<double> cum(S);
  uint64_t rng = 0x1e9a17ull + (uint64_t)S;
  double total = 0.0;
  for (int32_t s = 0; s < S; ++s) {
    const double g = sqrt(-2.0 * log(unit_f64(&rng))) * cos(6.283185307179586 * unit_f64(&rng));
    const double x = std::min(exp(sh.sigma * g - 0.5 * sh.sigma * sh.sigma), sh.cap);
    total += x;
    cum[s] = total;
  }
  offsets.assign((size_t)S + 1, 0);
  for (int32_t s = 1; s < S; ++s) {
    int64_t o = (int64_t)floor((double)n * (cum[s - 1] / total) + 0.5);
    o = std::max<int64_t>(o, offsets[s - 1]);
    offsets[s] = (int32_t)std::min<int64_t>(o, n);
  }
  offsets[S] = n;
}

struct result_row {
  std::string shape;
  int32_t K;
  std::string variant;
  double ms;        // < 0: skipped
  double vs_cub;    // CUB time of the same input form / this time; 0 when not applicable
  double bytes;     // compulsory bytes of the input form
  double copy_gbs;  // the shape's copy rate
};

struct context {
  const bench_shape *shape;
  int32_t S, n;
  int grid;
  int reps;
  double copy_gbs;
  zipf_law key_law_k[kMaxKs];
  int32_t *d_offsets = nullptr, *d_inverse = nullptr, *d_out_offsets = nullptr;
  uint32_t *d_keys = nullptr, *d_keys_w = nullptr, *d_tmp = nullptr, *d_out_keys = nullptr, *d_out_counts = nullptr;
  void *d_pack[2] = {nullptr, nullptr};
  uint32_t *d_run_counts = nullptr;
  int *d_num_runs = nullptr;
  void *d_cub_temp = nullptr;
  size_t cub_temp_bytes = 0;
  void *d_workspace = nullptr;
  size_t workspace_bytes = 0;
  unsigned long long *d_bad = nullptr;
  std::vector<result_row> *rows;
};

static void fail(const context &c, int32_t K, const char *what) {
  fprintf(stderr, "%s: %s K=%d: %s\n", BENCH_NAME, c.shape->name, (int)K, what);
  exit(BENCH_EXIT_FAILED);
}

static unsigned long long read_bad(const context &c) {
  unsigned long long bad = 0;
  BENCH_CUDA(cudaMemcpy(&bad, c.d_bad, sizeof bad, cudaMemcpyDeviceToHost));
  return bad;
}

static void reset_bad(const context &c) { BENCH_CUDA(cudaMemset(c.d_bad, 0xff, sizeof(unsigned long long))); }

static int32_t read_i32(const int32_t *d) {
  int32_t v = 0;
  BENCH_CUDA(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

// Keys of this K in document order (d_keys) and in word order (d_keys_w).
static void generate_keys(context &c, int k_index) {
  const int32_t K = kKs[k_index];
  gen_keys<<<c.grid, BENCH_THREADS>>>(c.d_offsets, c.S, K, c.key_law_k[k_index], BENCH_SEED + (uint32_t)K, c.d_keys);
  BENCH_CUDA(cudaGetLastError());
  scatter_keys<<<c.grid, BENCH_THREADS>>>(c.d_keys, c.d_inverse, c.n, c.d_keys_w);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaDeviceSynchronize());
}

static void run_samplekit(const context &c, int32_t K, const uint32_t *keys, const int32_t *perm) {
  BENCH_SK(sk_segmented_count_u32(c.d_offsets, c.S, c.n, keys, perm, K, c.d_out_offsets, c.d_out_keys, c.d_out_counts,
                                  c.n, c.d_workspace, c.workspace_bytes, 0));
}

static void run_gather_samplekit(const context &c, int32_t K) {
  gather_keys<<<c.grid, BENCH_THREADS>>>(c.d_keys_w, c.d_inverse, c.n, c.d_tmp);
  BENCH_CUDA(cudaGetLastError());
  run_samplekit(c, K, c.d_tmp, nullptr);
}

template <class T>
static void run_pack(const context &c, int key_bits, bool through_perm) {
  pack_keys<T><<<c.grid, BENCH_THREADS>>>(c.d_offsets, c.S, through_perm ? c.d_keys_w : c.d_keys,
                                          through_perm ? c.d_inverse : nullptr, key_bits, (T *)c.d_pack[0]);
  BENCH_CUDA(cudaGetLastError());
}

// Sort and run-length encode d_pack[0]; returns the buffer that holds the unique keys.
template <class T>
static const T *run_sort_rle(const context &c, int end_bit) {
  cub::DoubleBuffer<T> db((T *)c.d_pack[0], (T *)c.d_pack[1]);
  size_t bytes = c.cub_temp_bytes;
  BENCH_CUDA(cub::DeviceRadixSort::SortKeys(c.d_cub_temp, bytes, db, c.n, 0, end_bit, 0));
  bytes = c.cub_temp_bytes;
  BENCH_CUDA(cub::DeviceRunLengthEncode::Encode(c.d_cub_temp, bytes, db.Current(), db.Alternate(), c.d_run_counts,
                                                c.d_num_runs, c.n, 0));
  return db.Alternate();
}

// samplekit's current output against CUB's (unique, run_counts).
template <class T>
static void verify_against_cub(const context &c, int32_t K, const T *unique, int key_bits, const char *what) {
  BENCH_CUDA(cudaDeviceSynchronize());
  const int32_t P = read_i32(c.d_out_offsets + c.S), runs = read_i32(c.d_num_runs);
  char msg[256];
  if (P != runs) {
    snprintf(msg, sizeof msg, "%s: samplekit has %d pairs, CUB %d runs", what, (int)P, (int)runs);
    fail(c, K, msg);
  }
  reset_bad(c);
  verify_offsets<<<c.grid, BENCH_THREADS>>>(c.d_out_offsets, c.S, c.d_bad);
  BENCH_CUDA(cudaGetLastError());
  unsigned long long bad = read_bad(c);
  if (bad != ~0ull) {
    snprintf(msg, sizeof msg, "%s: samplekit's offsets are not non-decreasing from 0 at %llu", what, bad);
    fail(c, K, msg);
  }
  verify_pairs<T><<<c.grid, BENCH_THREADS>>>(c.d_out_offsets, c.d_out_keys, c.d_out_counts, unique, c.d_run_counts, P,
                                             key_bits, c.d_bad);
  BENCH_CUDA(cudaGetLastError());
  bad = read_bad(c);
  if (bad != ~0ull) {
    uint32_t k = 0, n = 0, rc = 0;
    T u = 0;
    BENCH_CUDA(cudaMemcpy(&k, c.d_out_keys + bad, sizeof k, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&n, c.d_out_counts + bad, sizeof n, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&u, unique + bad, sizeof u, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&rc, c.d_run_counts + bad, sizeof rc, cudaMemcpyDeviceToHost));
    snprintf(msg, sizeof msg, "%s: pair %llu is (key %u, count %u); CUB's run is (segment %llu, key %llu, count %u)",
             what, bad, k, n, (unsigned long long)(u >> key_bits), (unsigned long long)(u & (((T)1 << key_bits) - 1)),
             rc);
    fail(c, K, msg);
  }
}

// Before a checked run: outputs that a missing write would leave wrong (no key or count is ~0).
static void poison_outputs(const context &c) {
  BENCH_CUDA(cudaMemset(c.d_out_offsets, 0xff, sizeof(int32_t) * ((size_t)c.S + 1)));
  BENCH_CUDA(cudaMemset(c.d_out_keys, 0xff, sizeof(uint32_t) * (size_t)c.n));
  BENCH_CUDA(cudaMemset(c.d_out_counts, 0xff, sizeof(uint32_t) * (size_t)c.n));
}

static void add_row(context &c, int32_t K, const char *variant, double ms, double vs_cub, double bytes) {
  result_row r;
  r.shape = c.shape->name;
  r.K = K;
  r.variant = variant;
  r.ms = ms;
  r.vs_cub = vs_cub;
  r.bytes = bytes;
  r.copy_gbs = c.copy_gbs;
  c.rows->push_back(r);
  if (ms < 0) {
    printf("%-8s %6d %-18s %10s\n", r.shape.c_str(), (int)K, variant, "skipped");
  } else {
    const double gbs = bytes / (ms * 1e6);
    printf("%-8s %6d %-18s %10.3f %12.4g %8.2fx %9.1f %8.3f\n", r.shape.c_str(), (int)K, variant, ms, c.n / (ms * 1e-3),
           vs_cub, gbs, gbs / c.copy_gbs);
  }
  fflush(stdout);
}

// One K: check every samplekit variant against CUB, then time them all.
template <class T>
static void measure_k(context &c, int k_index, double *speedups) {
  const int32_t K = kKs[k_index];
  const int key_bits = bench_bit_length((uint32_t)(K - 1)), seg_bits = bench_bit_length((uint32_t)(c.S - 1));
  const int end_bit = key_bits + seg_bits;
  generate_keys(c, k_index);
  size_t ws = 0;
  BENCH_SK(sk_segmented_count_workspace_size(c.S, c.n, K, &ws));
  if (ws > c.workspace_bytes) fail(c, K, "the workspace grew after it was allocated");

  // Correctness first: CUB on document order, then each samplekit variant against it; then CUB
  // through the permutation against the last samplekit output.
  run_pack<T>(c, key_bits, false);
  const T *unique = run_sort_rle<T>(c, end_bit);
  poison_outputs(c);
  run_samplekit(c, K, c.d_keys, nullptr);
  verify_against_cub<T>(c, K, unique, key_bits, "samplekit");
  poison_outputs(c);
  run_samplekit(c, K, c.d_keys_w, c.d_inverse);
  verify_against_cub<T>(c, K, unique, key_bits, "samplekit-perm");
  poison_outputs(c);
  run_gather_samplekit(c, K);
  verify_against_cub<T>(c, K, unique, key_bits, "gather+samplekit");
  run_pack<T>(c, key_bits, true);
  unique = run_sort_rle<T>(c, end_bit);
  verify_against_cub<T>(c, K, unique, key_bits, "samplekit vs cub-perm");
  const int32_t P = read_i32(c.d_out_offsets + c.S);
  printf(
      "%-8s %6d %d segments, %d items, %d pairs (%.1f per segment, %.2f per item), packed into %d bits (%s); "
      "outputs match CUB\n",
      c.shape->name, (int)K, (int)c.S, (int)c.n, (int)P, (double)P / c.S, (double)P / c.n, end_bit,
      sizeof(T) == 4 ? "uint32" : "uint64");

  const double bytes_direct = 8.0 * (c.S + 1) + 4.0 * c.n + 8.0 * P, bytes_perm = bytes_direct + 4.0 * c.n;
  const double t_sk = median_ms(c.reps, no_setup, [&] { run_samplekit(c, K, c.d_keys, nullptr); });
  const double t_sk_perm = median_ms(c.reps, no_setup, [&] { run_samplekit(c, K, c.d_keys_w, c.d_inverse); });
  const double t_gather = median_ms(c.reps, no_setup, [&] { run_gather_samplekit(c, K); });
  const double t_cub = median_ms(c.reps, no_setup, [&] {
    run_pack<T>(c, key_bits, false);
    run_sort_rle<T>(c, end_bit);
  });
  const double t_cub_sort = median_ms(
      c.reps, [&] { run_pack<T>(c, key_bits, false); }, [&] { run_sort_rle<T>(c, end_bit); });
  const double t_cub_perm = median_ms(c.reps, no_setup, [&] {
    run_pack<T>(c, key_bits, true);
    run_sort_rle<T>(c, end_bit);
  });
  add_row(c, K, "samplekit", t_sk, t_cub / t_sk, bytes_direct);
  add_row(c, K, "samplekit-perm", t_sk_perm, t_cub_perm / t_sk_perm, bytes_perm);
  add_row(c, K, "gather+samplekit", t_gather, t_cub_perm / t_gather, bytes_perm);
  add_row(c, K, "cub", t_cub, 1.0, bytes_direct);
  add_row(c, K, "cub-sort+rle", t_cub_sort, t_cub / t_cub_sort, bytes_direct);
  add_row(c, K, "cub-perm", t_cub_perm, 1.0, bytes_perm);
  speedups[0] = t_cub / t_sk;
  speedups[1] = t_cub_perm / t_sk_perm;
  speedups[2] = t_cub;  // for the atomics row's ratio
}

// The naive baseline, after CUB's buffers are freed: keys regenerated, samplekit run once for the
// check, the dense matrix timed if it fits.
static void measure_atomics(context &c, int k_index, double t_cub) {
  const int32_t K = kKs[k_index];
  const size_t cells = (size_t)c.S * (size_t)K, dense_bytes = cells * sizeof(uint32_t);
  size_t free_bytes = 0, total_bytes = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (dense_bytes > free_bytes / 2) {
    printf("%-8s %6d atomics: the %.1f GB matrix does not fit in half the free %.1f GB\n", c.shape->name, (int)K,
           dense_bytes / 1e9, free_bytes / 1e9);
    add_row(c, K, "atomics", -1.0, 0.0, 0.0);
    return;
  }
  generate_keys(c, k_index);
  run_samplekit(c, K, c.d_keys, nullptr);
  uint32_t *d_dense = nullptr;
  dev_alloc(&d_dense, dense_bytes);
  auto body = [&] {
    BENCH_CUDA(cudaMemsetAsync(d_dense, 0, dense_bytes, 0));
    dense_count<<<c.grid, BENCH_THREADS>>>(c.d_offsets, c.S, c.d_keys, K, d_dense);
    BENCH_CUDA(cudaGetLastError());
  };
  body();
  reset_bad(c);
  verify_dense_pairs<<<c.grid, BENCH_THREADS>>>(c.d_out_offsets, c.S, c.d_out_keys, c.d_out_counts, d_dense, K,
                                                c.d_bad);
  BENCH_CUDA(cudaGetLastError());
  const unsigned long long bad = read_bad(c);
  BENCH_CUDA(cudaMemset(c.d_bad, 0, sizeof(unsigned long long)));
  count_nonzero<<<c.grid, BENCH_THREADS>>>(d_dense, cells, c.d_bad);
  BENCH_CUDA(cudaGetLastError());
  const unsigned long long nonzero = read_bad(c);
  const int32_t P = read_i32(c.d_out_offsets + c.S);
  if (bad != ~0ull || nonzero != (unsigned long long)P) {
    char msg[160];
    snprintf(msg, sizeof msg, "atomics: the dense matrix disagrees with samplekit (pair %llu; %llu cells, %d pairs)",
             bad, nonzero, (int)P);
    fail(c, K, msg);
  }
  printf("%-8s %6d atomics: %.1f GB dense matrix, device footprint now %.2f GB; matches samplekit\n", c.shape->name,
         (int)K, dense_bytes / 1e9, g_device_bytes / 1e9);
  const double t = median_ms(c.reps, no_setup, body);
  add_row(c, K, "atomics", t, t_cub / t, 8.0 * (c.S + 1) + 4.0 * c.n + 8.0 * P);
  dev_free(&d_dense, dense_bytes);
}

static void run_shape(const bench_shape &sh, int reps, double zipf, int grid, std::vector<result_row> *rows,
                      std::vector<std::string> *summary) {
  context c;
  c.shape = &sh;
  c.S = sh.segments;
  c.n = sh.segments * sh.mean;
  c.grid = grid;
  c.reps = reps;
  c.rows = rows;
  for (int k = 0; k < g_num_ks; ++k) c.key_law_k[k] = make_zipf(kKs[k], zipf);
  const size_t n = (size_t)c.n, S1 = (size_t)c.S + 1;
  const double t0 = bench_now_ms();

  // Offsets (host), words (device), the word order (host), back to the device.
  std::vector<int32_t> h_offsets;
  make_offsets(sh, c.n, h_offsets);
  int32_t longest = 0;
  for (int32_t s = 0; s < c.S; ++s) longest = std::max(longest, h_offsets[s + 1] - h_offsets[s]);
  dev_alloc(&c.d_offsets, S1 * 4);
  dev_alloc(&c.d_keys, n * 4);
  dev_alloc(&c.d_keys_w, n * 4);
  dev_alloc(&c.d_inverse, n * 4);
  dev_alloc(&c.d_tmp, n * 4);
  BENCH_CUDA(cudaMemcpy(c.d_offsets, h_offsets.data(), S1 * 4, cudaMemcpyHostToDevice));
  {
    int32_t *words = (int32_t *)malloc(n * 4), *perm = (int32_t *)malloc(n * 4), *inverse = (int32_t *)malloc(n * 4);
    int64_t *word_offsets = (int64_t *)malloc(((size_t)sh.words + 1) * 8);
    if (words == nullptr || perm == nullptr || inverse == nullptr || word_offsets == nullptr) {
      fprintf(stderr, "%s: %s: out of host memory for the word order (%.1f GB)\n", BENCH_NAME, sh.name, 12.0 * n / 1e9);
      exit(BENCH_EXIT_FAILED);
    }
    gen_words<<<grid, BENCH_THREADS>>>(c.n, make_zipf(sh.words, 1.0), BENCH_SEED ^ 0x3c6ef372u, (int32_t *)c.d_tmp);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaMemcpy(words, c.d_tmp, n * 4, cudaMemcpyDeviceToHost));
    const double t1 = bench_now_ms();
    BENCH_SK(sk_csr_chunk_order_host(words, c.n, sh.words, perm, inverse, word_offsets));
    fprintf(stderr, "%s: %s: word order of %d items on the host in %.1f s\n", BENCH_NAME, sh.name, (int)c.n,
            seconds_since(t1));
    BENCH_CUDA(cudaMemcpy(c.d_inverse, inverse, n * 4, cudaMemcpyHostToDevice));
    free(words);
    free(perm);
    free(inverse);
    free(word_offsets);
  }
  dev_alloc(&c.d_out_offsets, S1 * 4);
  dev_alloc(&c.d_out_keys, n * 4);
  dev_alloc(&c.d_out_counts, n * 4);
  dev_alloc(&c.d_bad, sizeof(unsigned long long));
  for (int k = 0; k < g_num_ks; ++k) {
    size_t ws = 0;
    BENCH_SK(sk_segmented_count_workspace_size(c.S, c.n, kKs[k], &ws));
    c.workspace_bytes = std::max(c.workspace_bytes, ws);
  }
  dev_alloc(&c.d_workspace, c.workspace_bytes);
  // CUB: two packed buffers (uint64 at most), the run counts, the number of runs, one temp storage.
  for (int b = 0; b < 2; ++b) dev_alloc(&c.d_pack[b], n * 8);
  dev_alloc(&c.d_run_counts, n * 4);
  dev_alloc(&c.d_num_runs, sizeof(int));
  {
    size_t sort_bytes = 0, rle_bytes = 0;
    cub::DoubleBuffer<uint64_t> db((uint64_t *)c.d_pack[0], (uint64_t *)c.d_pack[1]);
    BENCH_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, db, c.n, 0, 64, 0));
    BENCH_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, (uint64_t *)c.d_pack[0], (uint64_t *)c.d_pack[1],
                                                  c.d_run_counts, c.d_num_runs, c.n, 0));
    size_t sort32 = 0, rle32 = 0;
    cub::DoubleBuffer<uint32_t> db32((uint32_t *)c.d_pack[0], (uint32_t *)c.d_pack[1]);
    BENCH_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, sort32, db32, c.n, 0, 32, 0));
    BENCH_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, rle32, (uint32_t *)c.d_pack[0], (uint32_t *)c.d_pack[1],
                                                  c.d_run_counts, c.d_num_runs, c.n, 0));
    c.cub_temp_bytes = std::max(std::max(sort_bytes, rle_bytes), std::max(sort32, rle32));
    dev_alloc(&c.d_cub_temp, c.cub_temp_bytes);
  }
  BENCH_CUDA(cudaDeviceSynchronize());
  printf(
      "\n%s: %d segments (lengths lognormal sigma %.1f, capped at %.0f x the mean %d, longest %d), %d items, "
      "V = %d; device footprint %.2f GB; generated in %.1f s\n",
      sh.name, (int)c.S, sh.sigma, sh.cap, (int)sh.mean, (int)longest, (int)c.n, (int)sh.words, g_device_bytes / 1e9,
      seconds_since(t0));

  // The copy ceiling: the keys array copied device to device.
  const double copy_ms = median_ms(
      reps, no_setup, [&] { BENCH_CUDA(cudaMemcpyAsync(c.d_tmp, c.d_keys, n * 4, cudaMemcpyDeviceToDevice, 0)); });
  c.copy_gbs = 2.0 * n * 4 / (copy_ms * 1e6);
  printf("%s: device-to-device copy of %.2f GB: %.3f ms = %.1f GB/s (read + written)\n", sh.name, n * 4 / 1e9, copy_ms,
         c.copy_gbs);
  printf("%-8s %6s %-18s %10s %12s %9s %9s %8s\n", "shape", "K", "variant", "ms", "items/s", "vs cub", "eff GB/s",
         "of copy");

  double t_cub[kMaxKs] = {0};
  for (int k = 0; k < g_num_ks; ++k) {
    const int bits = bench_bit_length((uint32_t)(kKs[k] - 1)) + bench_bit_length((uint32_t)(c.S - 1));
    double sp[3];
    if (bits <= 32)
      measure_k<uint32_t>(c, k, sp);
    else
      measure_k<uint64_t>(c, k, sp);
    t_cub[k] = sp[2];
    char line[256];
    snprintf(line, sizeof line,
             "%-8s K=%-6d samplekit vs CUB: %.2fx in document order, %.2fx through the "
             "permutation (target >= 3x: %s)",
             sh.name, (int)kKs[k], sp[0], sp[1], sp[0] >= 3.0 && sp[1] >= 3.0 ? "met" : "NOT met");
    summary->push_back(line);
  }
  for (int b = 0; b < 2; ++b) dev_free(&c.d_pack[b], n * 8);
  dev_free(&c.d_run_counts, n * 4);
  dev_free(&c.d_num_runs, sizeof(int));
  dev_free(&c.d_cub_temp, c.cub_temp_bytes);
  for (int k = 0; k < g_num_ks; ++k) measure_atomics(c, k, t_cub[k]);

  dev_free(&c.d_offsets, S1 * 4);
  dev_free(&c.d_keys, n * 4);
  dev_free(&c.d_keys_w, n * 4);
  dev_free(&c.d_inverse, n * 4);
  dev_free(&c.d_tmp, n * 4);
  dev_free(&c.d_out_offsets, S1 * 4);
  dev_free(&c.d_out_keys, n * 4);
  dev_free(&c.d_out_counts, n * 4);
  dev_free(&c.d_bad, sizeof(unsigned long long));
  dev_free(&c.d_workspace, c.workspace_bytes);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [--device N] [--csv FILE] [--reps N] [--shape nytimes|pubmed|kos|all] [--zipf A] [--keys K1,K2,...]\n"
          "       [--help]\n"
          "Times sk_segmented_count_u32 (document order, through the PDOW permutation, gathered first) against\n"
          "CUB radix sort + run-length encode and a global-atomics dense count, at the NYTimes (300,000 x 332)\n"
          "PubMed (8.2M x 90) and kos (3,430 x 136) shapes, K = 1,000 and 10,000 unless --keys says otherwise.\n"
          "  --device N  CUDA device (default 0)\n"
          "  --csv FILE  also write the results to FILE as CSV\n"
          "  --reps N    timed runs per figure, 1 to 1001 (default %d); the median is reported\n"
          "  --shape S   nytimes, pubmed, kos or all (default all)\n"
          "  --zipf A    exponent of the per-segment Zipf law of the keys, 0 to 4 (default 1.1)\n"
          "  --keys L    comma-separated K values to measure, 1 to 8 of them, each in [1, 2^20]\n",
          BENCH_NAME, BENCH_DEFAULT_REPS);
}

int main(int argc, char **argv) {
  int device = 0, reps = BENCH_DEFAULT_REPS;
  const char *csv_path = nullptr, *shape = "all";
  double zipf = 1.1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (bench_common_option(argc, argv, &i, usage, &csv_path) || bench_device_option(argc, argv, &i, &device, usage) ||
        bench_int_option(argc, argv, &i, "--reps", 1, 1001, &reps, usage))
      continue;
    if (!strcmp(argv[i], "--shape") && has_value) {
      shape = argv[++i];
      if (strcmp(shape, "nytimes") && strcmp(shape, "pubmed") && strcmp(shape, "kos") && strcmp(shape, "all"))
        bench_bad_value("--shape", shape, usage);
    } else if (!strcmp(argv[i], "--keys") && has_value) {
      long long ks[kMaxKs];
      g_num_ks = bench_parse_list("--keys", argv[++i], 1, SK_SEGMENTED_COUNT_MAX_KEYS, ks, kMaxKs, usage);
      for (int k = 0; k < g_num_ks; ++k) kKs[k] = (int32_t)ks[k];
    } else if (!strcmp(argv[i], "--zipf") && has_value) {
      char *end = nullptr;
      zipf = strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(zipf >= 0.0 && zipf <= 4.0)) bench_bad_value("--zipf", argv[i], usage);
    } else {
      bench_unknown_option(argv[i], usage);
    }
  }
  bench_select_device(device);
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  std::string command;
  for (int i = 0; i < argc; ++i) command += std::string(i ? " " : "") + argv[i];
  printf("%s on %s (%d SMs, %.0f GB, %d MB L2), reps %d (median), keys Zipf exponent %.2f\ncommand: %s\n", BENCH_NAME,
         prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1e9, prop.l2CacheSize >> 20, reps, zipf,
         command.c_str());
  FILE *csv = nullptr;
  if (csv_path != nullptr && (csv = fopen(csv_path, "w")) == nullptr) {
    fprintf(stderr, "%s: cannot write %s\n", BENCH_NAME, csv_path);
    return BENCH_EXIT_FAILED;
  }
  const int grid = prop.multiProcessorCount * 8;  // 8 blocks of 8 warps per SM, grid-stride
  std::vector<result_row> rows;
  std::vector<std::string> summary;
  for (const bench_shape &sh : kShapes) {
    if (strcmp(shape, "all") && strcmp(shape, sh.name)) continue;
    run_shape(sh, reps, zipf, grid, &rows, &summary);
  }
  printf("\n");
  for (const std::string &line : summary) printf("%s\n", line.c_str());
  if (csv != nullptr) {
    fprintf(csv,
            "gpu,shape,segments,items,K,variant,ms,items_per_s,speedup_vs_cub,effective_GBs,copy_GBs,"
            "fraction_of_copy,command\n");
    for (const result_row &r : rows) {
      const bench_shape *sh = nullptr;
      for (const bench_shape &s : kShapes)
        if (r.shape == s.name) sh = &s;
      const double n = (double)sh->segments * sh->mean;
      if (r.ms < 0)
        fprintf(csv, "\"%s\",%s,%d,%.0f,%d,%s,skipped,,,,%.2f,,\"%s\"\n", prop.name, r.shape.c_str(), (int)sh->segments,
                n, (int)r.K, r.variant.c_str(), r.copy_gbs, command.c_str());
      else
        fprintf(csv, "\"%s\",%s,%d,%.0f,%d,%s,%.5f,%.6g,%.4f,%.2f,%.2f,%.4f,\"%s\"\n", prop.name, r.shape.c_str(),
                (int)sh->segments, n, (int)r.K, r.variant.c_str(), r.ms, n / (r.ms * 1e-3), r.vs_cub,
                r.bytes / (r.ms * 1e6), r.copy_gbs, r.bytes / (r.ms * 1e6) / r.copy_gbs, command.c_str());
    }
    fclose(csv);
  }
  return 0;
}
