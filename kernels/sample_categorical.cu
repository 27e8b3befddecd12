// sk_sample_categorical_*: one draw per row of a weight matrix, or per item of a product theta[d] * phi[w].
// The order of every addition is documented in sample_categorical.h; tests/ref/categorical_ref.c replays it.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "samplekit/butterfly.cuh"
#include "samplekit/rng.cuh"
#include "samplekit/sample_categorical.h"
#include "samplekit/warp_scan.cuh"
#include "sk_detail_cuda.h"

namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / SK_WARP_SIZE;
constexpr int kPrefetchRounds = 4;  // rounds whose loads are in flight together (one warp, one row)
// The butterfly needs ~80 registers; capping it at 3 blocks of 256 per SM measured fastest
// (bench_butterfly: 3.57 against 4.69 ns per draw at K = 1024 on an H200).
constexpr int kButterflyMinBlocks = 3;

// --- Where a row's weights come from ----------------------------------------------------------------

struct MatrixRow {
  const float *w;
  __device__ float at(int k) const { return __ldg(w + k); }
  __device__ float4 at4(int k) const { return __ldg(reinterpret_cast<const float4 *>(w + k)); }
};

// Products rounded once: __fmul_rn keeps the compiler from fusing them into the following adds.
struct ProductRow {
  const float *theta, *phi;
  __device__ float at(int k) const { return __fmul_rn(__ldg(theta + k), __ldg(phi + k)); }
  __device__ float4 at4(int k) const {
    const float4 a = __ldg(reinterpret_cast<const float4 *>(theta + k));
    const float4 b = __ldg(reinterpret_cast<const float4 *>(phi + k));
    return make_float4(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y), __fmul_rn(a.z, b.z), __fmul_rn(a.w, b.w));
  }
};

// --- The group-row algorithm: a group of G lanes per row, 32 / G rows per warp ----------------------
//
// All 32 lanes run the same loops (every row of a launch has the same K), so shuffles and ballots are
// warp-wide; the shuffles use width G, so each group only ever sees its own row. A group without a
// row (past the end, bad ids) reads zeros and keeps helping.

// Mask of the G bits of `ballot` that belong to the calling lane's group, shifted down to bit 0.
template <int G>
__device__ unsigned group_bits(unsigned ballot, int lane) {
  return G == SK_WARP_SIZE ? ballot : (ballot >> (lane & ~(G - 1))) & ((1u << (G & 31)) - 1u);
}

// The V entries lane gl of its group holds in round j (entries past K, or of no row, read as 0).
// `row` is always readable (a group without a valid row reads a real one, see the kernel), so a full round loads
// unconditionally and masks with a select: no branch that differs between lanes stands between the
// shuffles of the first pass, which would make the compiler guard every shuffle with a divergence test.
template <int G, int V, class Row>
__device__ void load_round(const Row &row, bool has_row, int K, int j, int gl, float (&v)[V]) {
  const int k0 = (j * G + gl) * V;
  if ((j + 1) * G * V <= K) {  // a full round: the same for every lane of the warp in the first pass
    if (V == 4) {
      const float4 q = row.at4(k0);
      const float q4[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int c = 0; c < V; ++c) v[c] = q4[c];
    } else {
#pragma unroll
      for (int c = 0; c < V; ++c) v[c] = row.at(k0 + c);
    }
#pragma unroll
    for (int c = 0; c < V; ++c) v[c] = has_row ? v[c] : 0.0f;
  } else {
#pragma unroll
    for (int c = 0; c < V; ++c) v[c] = has_row && k0 + c < K ? row.at(k0 + c) : 0.0f;
  }
}

// Width-G shuffles as inline PTX: the shuffle's own predicate says whether the source lane is in the
// segment, as in warp_scan.cuh. (The __shfl_*_sync intrinsics get a divergence test and a slow path
// before every shuffle here, which tripled the kernel's instruction count.) The c operand holds the
// segment mask (32 - G) << 8 and the clamp: 0 for up, 31 for idx.
template <int G>
__device__ float group_shfl_up_add(float x, int delta) {
  float r;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "shfl.sync.up.b32 %0|p, %1, %2, %3, -1;\n\t"
               "@p add.f32 %0, %0, %1;\n\t}"
               : "=f"(r)
               : "f"(x), "r"(delta), "r"((SK_WARP_SIZE - G) << 8));
  return r;
}

// The value of the lane below in the segment, 0 for the segment's first lane.
template <int G>
__device__ float group_shfl_below(float x) {
  float r;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "shfl.sync.up.b32 %0|p, %1, 1, %2, -1;\n\t"
               "@!p mov.b32 %0, 0f00000000;\n\t}"
               : "=f"(r)
               : "f"(x), "r"((SK_WARP_SIZE - G) << 8));
  return r;
}

// The value of the segment's lane `src`.
template <int G>
__device__ float group_shfl_idx(float x, int src) {
  float r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, %3, -1;" : "=f"(r) : "f"(x), "r"(src), "r"(((SK_WARP_SIZE - G) << 8) | 31));
  return r;
}

// The lane's serial partial sums pre[c], and its exclusive position e among the G lanes of its group:
// Kogge-Stone over the group (steps 1, 2, 4, ... < G), then the inclusive sum of the lane below.
template <int G, int V>
__device__ float round_positions(const float (&v)[V], float (&pre)[V]) {
  pre[0] = v[0];
#pragma unroll
  for (int c = 1; c < V; ++c) pre[c] = pre[c - 1] + v[c];
  float x = pre[V - 1];
#pragma unroll
  for (int d = 1; d < G; d <<= 1) x = group_shfl_up_add<G>(x, d);
  return group_shfl_below<G>(x);
}

// First entry of round j with v > 0 and carry + (e + pre[c]) > u for the calling lane's group, or -1.
template <int G, int V>
__device__ int first_hit_in_round(const float (&v)[V], float carry, float u, int j, int lane) {
  float pre[V];
  const float e = round_positions<G, V>(v, pre);
  int c_hit = V;
#pragma unroll
  for (int c = V - 1; c >= 0; --c)
    if (v[c] > 0.0f && carry + (e + pre[c]) > u) c_hit = c;
  const unsigned hits = group_bits<G>(__ballot_sync(SK_FULL_MASK, c_hit < V), lane);
  const int hit_gl = __ffs((int)hits) - 1;
  const int c = __shfl_sync(SK_FULL_MASK, c_hit, hit_gl < 0 ? 0 : hit_gl, G);
  return hits == 0u ? -1 : (j * G + hit_gl) * V + c;
}

// The group's last entry with a positive weight, for groups with `need` set (rare: only when rounding
// put u at or past the total); scans rounds from the end.
template <int G, int V, class Row>
__device__ int last_positive(const Row &row, bool need, int K, int rounds, int lane) {
  const int gl = lane & (G - 1);
  int found = -1;
  for (int j = rounds - 1; j >= 0 && __any_sync(SK_FULL_MASK, need && found < 0); --j) {
    float v[V];
    load_round<G, V>(row, need && found < 0, K, j, gl, v);
    int c_last = -1;
#pragma unroll
    for (int c = 0; c < V; ++c)
      if (v[c] > 0.0f) c_last = c;
    const unsigned any = group_bits<G>(__ballot_sync(SK_FULL_MASK, c_last >= 0), lane);
    const int l = 31 - __clz((int)any);
    const int c = __shfl_sync(SK_FULL_MASK, c_last, l < 0 ? 0 : l, G);
    if (need && found < 0 && any != 0u) found = (j * G + l) * V + c;
  }
  return found;
}

// Each group draws from its row; `ends` is the group's shared array of ceil(K / (G V)) round end sums.
template <int G, int V, class Row>
__device__ int group_row_sample(const Row &row, bool has_row, int K, float uniform, float *ends, float *total_out) {
  const int lane = sk_lane_id(), gl = lane & (G - 1);
  const int per_round = G * V;
  const int rounds = (K + per_round - 1) / per_round;
  float carry = 0.0f;
  for (int j0 = 0; j0 < rounds; j0 += kPrefetchRounds) {
    float v[kPrefetchRounds][V];
#pragma unroll
    for (int r = 0; r < kPrefetchRounds; ++r)
      if (j0 + r < rounds) load_round<G, V>(row, has_row, K, j0 + r, gl, v[r]);
#pragma unroll
    for (int r = 0; r < kPrefetchRounds; ++r) {
      if (j0 + r >= rounds) break;
      float pre[V];
      const float e = round_positions<G, V>(v[r], pre);
      carry = carry + group_shfl_idx<G>(e + pre[V - 1], G - 1);
      if (gl == 0) ends[j0 + r] = carry;
    }
  }
  __syncwarp();
  const float total = carry;
  *total_out = total;
  const bool valid = has_row && total > 0.0f && total < INFINITY;
  const float u = uniform * total;

  // Upper level: the first round whose end sum exceeds u (rounds, an invalid group, when none).
  int j = rounds;
  for (int base = 0; base < rounds; base += G) {
    const bool hit = valid && base + gl < rounds && ends[base + gl] > u;
    const unsigned hits = group_bits<G>(__ballot_sync(SK_FULL_MASK, hit), lane);
    if (j == rounds && hits != 0u) j = base + __ffs((int)hits) - 1;
  }
  // Lower level: that round (and, only if rounding left no positive entry above u there, later ones).
  int found = -1;
  bool searching = valid && j < rounds;
  while (__any_sync(SK_FULL_MASK, searching)) {
    float v[V];
    load_round<G, V>(row, searching, K, j, gl, v);
    const int hit = first_hit_in_round<G, V>(v, j == 0 ? 0.0f : ends[j - 1], u, j, lane);
    if (searching) {
      if (hit >= 0) found = hit, searching = false;
      else if (++j == rounds) searching = false;
    }
  }
  const int fallback = last_positive<G, V>(row, valid && found < 0, K, rounds, lane);
  return !valid ? -1 : found >= 0 ? found : fallback;
}

// --- The warp-row specialisation: G = 32, one warp per row --------------------------------------------
//
// The same order of additions as group-row with G = 32 (so the same results, bit for bit, and the same
// host reference), in the form measured fastest for long rows: a warp whose row is bad leaves early,
// the scan is sk_warp_exclusive_sum_f32(). On an H200 it ran 1.45x faster than the generic group-row
// kernel instantiated with G = 32 (K = 1024: 0.246 against 0.359 ms); why the generic one is slower is
// not yet understood (bench/RESULTS.md). Used whenever sk_sample_categorical_group_lanes() gives 32.

// The V entries lane `lane` holds in round j; entries past K read as 0.
template <int V, class Row>
__device__ void warp_load_round(const Row &row, int K, int j, int lane, float (&v)[V]) {
  const int k0 = (j * SK_WARP_SIZE + lane) * V;
  if (V == 4 && k0 + 3 < K) {
    const float4 q = row.at4(k0);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
#pragma unroll
    for (int c = 0; c < V; ++c) v[c] = k0 + c < K ? row.at(k0 + c) : 0.0f;
  }
}

// Lane serial partial sums pre[c], and the lane's exclusive position e (see the header's order).
template <int V>
__device__ float warp_round_positions(const float (&v)[V], float (&pre)[V]) {
  pre[0] = v[0];
#pragma unroll
  for (int c = 1; c < V; ++c) pre[c] = pre[c - 1] + v[c];
  return sk_warp_exclusive_sum_f32(SK_FULL_MASK, pre[V - 1]);
}

// First (lane, c) in this round with v > 0 and carry + (e + pre[c]) > u, as an index, or -1.
template <int V>
__device__ int warp_first_hit_in_round(const float (&v)[V], float carry, float u, int round_base, int lane) {
  float pre[V];
  const float e = warp_round_positions<V>(v, pre);
  int c_hit = V;
#pragma unroll
  for (int c = V - 1; c >= 0; --c)
    if (v[c] > 0.0f && carry + (e + pre[c]) > u) c_hit = c;
  const unsigned hits = __ballot_sync(SK_FULL_MASK, c_hit < V);
  if (hits == 0u) return -1;
  const int hit_lane = __ffs((int)hits) - 1;
  return round_base + hit_lane * V + __shfl_sync(SK_FULL_MASK, c_hit, hit_lane);
}

// The last entry with a positive weight, scanning rounds from the end (rare: only when rounding put u
// at or past the total).
template <int V, class Row>
__device__ int warp_last_positive(const Row &row, int K, int rounds, int lane) {
  for (int j = rounds - 1; j >= 0; --j) {
    float v[V];
    warp_load_round<V>(row, K, j, lane, v);
    int c_last = -1;
#pragma unroll
    for (int c = 0; c < V; ++c)
      if (v[c] > 0.0f) c_last = c;
    const unsigned any = __ballot_sync(SK_FULL_MASK, c_last >= 0);
    if (any != 0u) {
      const int l = 31 - __clz((int)any);
      return (j * SK_WARP_SIZE + l) * V + __shfl_sync(SK_FULL_MASK, c_last, l);
    }
  }
  return -1;
}

// One warp draws from one row; `ends` is this warp's shared array of ceil(K / (32 V)) round end sums.
template <int V, class Row>
__device__ int warp_row_sample(const Row &row, int K, float uniform, float *ends, float *total_out) {
  const int lane = sk_lane_id();
  const int per_round = SK_WARP_SIZE * V;
  const int rounds = (K + per_round - 1) / per_round;
  float carry = 0.0f;
  for (int j0 = 0; j0 < rounds; j0 += kPrefetchRounds) {
    float v[kPrefetchRounds][V];
#pragma unroll
    for (int r = 0; r < kPrefetchRounds; ++r)
      if (j0 + r < rounds) warp_load_round<V>(row, K, j0 + r, lane, v[r]);
#pragma unroll
    for (int r = 0; r < kPrefetchRounds; ++r) {
      if (j0 + r >= rounds) break;
      float pre[V];
      const float e = warp_round_positions<V>(v[r], pre);
      carry = carry + __shfl_sync(SK_FULL_MASK, e + pre[V - 1], SK_WARP_SIZE - 1);
      if (lane == 0) ends[j0 + r] = carry;
    }
  }
  __syncwarp();
  const float total = carry;
  *total_out = total;
  if (!(total > 0.0f) || !(total < INFINITY)) return -1;
  const float u = uniform * total;

  // Upper level: the first round whose end sum exceeds u.
  int j = -1;
  for (int base = 0; base < rounds && j < 0; base += SK_WARP_SIZE) {
    const unsigned hits = __ballot_sync(SK_FULL_MASK, base + lane < rounds && ends[base + lane] > u);
    if (hits != 0u) j = base + __ffs((int)hits) - 1;
  }
  // Lower level: that round (and, only if rounding left no positive entry above u there, later ones).
  for (; j >= 0 && j < rounds; ++j) {
    float v[V];
    warp_load_round<V>(row, K, j, lane, v);
    const int hit = warp_first_hit_in_round<V>(v, j == 0 ? 0.0f : ends[j - 1], u, j * per_round, lane);
    if (hit >= 0) return hit;
  }
  return warp_last_positive<V>(row, K, rounds, lane);
}

__device__ void report_bad_row(const char *what, size_t item, float total) {
#ifndef NDEBUG
  printf("samplekit: %s: item %llu has total %g (not > 0 or not finite): its index is -1\n", what,
         (unsigned long long)item, total);
#else
  (void)what, (void)item, (void)total;
#endif
}

// --- Kernels ----------------------------------------------------------------------------------------

// Where item i's uniform comes from: the counter-based RNG, or an array the caller filled.
struct RngUniforms {
  uint64_t seed, offset;
  __device__ float operator()(size_t i) const { return sk_rng_uniform_f32(seed, 0, offset + i); }
};
struct GivenUniforms {
  const float *u;
  __device__ float operator()(size_t i) const { return u[i]; }
};

struct MatrixArgs {
  const float *w;
  size_t ld;
};
struct ProductArgs {
  const float *theta, *phi;
  size_t ld_theta, ld_phi;
  int num_docs, num_words;
  const int *docs, *words;
};

// Row of item i (i < the item count), or false (and row 0) when its ids are out of range. Written
// without branches: lanes must not diverge before the group-row kernel's shuffles.
__device__ bool item_row(const MatrixArgs &a, size_t i, MatrixRow *row) {
  row->w = a.w + i * a.ld;
  return true;
}
__device__ bool item_row(const ProductArgs &a, size_t i, ProductRow *row) {
  const int d = a.docs[i], w = a.words[i];
  const bool ok = d >= 0 && d < a.num_docs && w >= 0 && w < a.num_words;
  row->theta = a.theta + (ok ? (size_t)d * a.ld_theta : 0);
  row->phi = a.phi + (ok ? (size_t)w * a.ld_phi : 0);
  return ok;
}

template <int G, int V, class Args, class Row, class Uniforms>
__global__ void __launch_bounds__(kThreads) group_row_kernel(Args args, size_t num_items, int K, Uniforms uniforms,
                                                             int *out) {
  extern __shared__ float ends_all[];
  const int rounds = (K + G * V - 1) / (G * V);
  const int lane = sk_lane_id();
  float *ends = ends_all + (size_t)(threadIdx.x / G) * rounds;  // one array per group
  const size_t groups = (size_t)gridDim.x * (kThreads / G);
  // The loop runs the same number of times on every lane of a warp: the warp's first group decides.
  for (size_t first = ((size_t)blockIdx.x * kThreads + (threadIdx.x & ~31u)) / G; first < num_items;
       first += groups) {
    const size_t i = first + (size_t)(lane / G);
    // Groups past the end work on the last item and discard the result: every lane runs the same code
    // (see load_round), and its row is readable.
    const size_t item = i < num_items ? i : num_items - 1;
    Row row;
    const bool has_row = item_row(args, item, &row) && i < num_items;
    float total;
    const int k = group_row_sample<G, V>(row, has_row, K, uniforms(item), ends, &total);
    if (i < num_items && (lane & (G - 1)) == 0) {
      if (k < 0 && has_row) report_bad_row("sk_sample_categorical", i, total);
      out[i] = k;
    }
    __syncwarp();  // `ends` is reused by the next rows
  }
}

template <int V, class Args, class Row, class Uniforms>
__global__ void __launch_bounds__(kThreads) warp_row_kernel(Args args, size_t num_items, int K, Uniforms uniforms,
                                                            int *out) {
  extern __shared__ float ends_all[];
  const int rounds = (K + SK_WARP_SIZE * V - 1) / (SK_WARP_SIZE * V);
  float *ends = ends_all + (size_t)(threadIdx.x / SK_WARP_SIZE) * rounds;
  const size_t warps = (size_t)gridDim.x * kWarpsPerBlock;
  for (size_t i = (size_t)blockIdx.x * kWarpsPerBlock + threadIdx.x / SK_WARP_SIZE; i < num_items; i += warps) {
    Row row;
    int k = -1;
    if (item_row(args, i, &row)) {  // the same for the whole warp
      float total;
      k = warp_row_sample<V>(row, K, uniforms(i), ends, &total);
      if (k < 0 && sk_lane_id() == 0) report_bad_row("sk_sample_categorical", i, total);
    }
    if (sk_lane_id() == 0) out[i] = k;
    __syncwarp();  // `ends` is reused by the next item
  }
}

template <class Uniforms>
__global__ void __launch_bounds__(kThreads, kButterflyMinBlocks) butterfly_matrix_kernel(MatrixArgs a, size_t num_rows, int K,
                                                                    Uniforms uniforms, int *out) {
  const size_t warps = (size_t)gridDim.x * kWarpsPerBlock;
  for (size_t w = (size_t)blockIdx.x * kWarpsPerBlock + threadIdx.x / SK_WARP_SIZE; w * 32 < num_rows; w += warps) {
    const size_t first = w * 32, i = first + (size_t)sk_lane_id();
    const int rows_here = num_rows - first < 32 ? (int)(num_rows - first) : 32;
    const float uniform = i < num_rows ? uniforms(i) : 0.0f;
    float total;
    const int k = sk_warp_butterfly_sample_rows_f32(a.w + first * a.ld, a.ld, rows_here, K, uniform, &total);
    if (i < num_rows) {
      if (k < 0) report_bad_row("sk_sample_categorical", i, total);
      out[i] = k;
    }
  }
}

template <class Uniforms>
__global__ void __launch_bounds__(kThreads, kButterflyMinBlocks) butterfly_product_kernel(ProductArgs a, size_t num_items, int K,
                                                                     Uniforms uniforms, int *out) {
  const size_t warps = (size_t)gridDim.x * kWarpsPerBlock;
  for (size_t w = (size_t)blockIdx.x * kWarpsPerBlock + threadIdx.x / SK_WARP_SIZE; w * 32 < num_items; w += warps) {
    const size_t i = w * 32 + (size_t)sk_lane_id();
    int d = 0, word = 0, active = 0;
    if (i < num_items) {
      d = a.docs[i], word = a.words[i];
      active = d >= 0 && d < a.num_docs && word >= 0 && word < a.num_words;
    }
    if (!active) d = 0, word = 0;  // an inactive lane still helps; its ids must be safe to read
    const float uniform = i < num_items ? uniforms(i) : 0.0f;
    float total;
    const int k = sk_warp_butterfly_sample_product_f32(a.theta, a.ld_theta, a.phi, a.ld_phi, d, word, active, K,
                                                       uniform, &total);
    if (i < num_items) {
      if (k < 0 && active) report_bad_row("sk_sample_categorical_product", i, total);
      out[i] = k;
    }
  }
}

// --- Launching --------------------------------------------------------------------------------------

unsigned grid_for(size_t warps_needed) {
  const size_t blocks = (warps_needed + kWarpsPerBlock - 1) / kWarpsPerBlock;
  return blocks < (size_t)INT32_MAX ? (unsigned)blocks : (unsigned)INT32_MAX;
}

// A kernel's `smem` bytes of dynamic shared memory: past the default 48 KiB, within the device's opt-in
// limit (then raised for it) or SK_ERROR_UNSUPPORTED.
template <class Kernel>
sk_status allow_dynamic_shared(Kernel kernel, size_t smem) {
  if (smem <= 48 * 1024) return SK_SUCCESS;
  const sk_status fits = sk_detail_check_shared_bytes(smem);
  if (fits != SK_SUCCESS) return fits;
  SK_DETAIL_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  return SK_SUCCESS;
}

template <int G, int V, class Args, class Row, class Uniforms>
sk_status launch_group_row(const Args &args, size_t num_items, int K, Uniforms uniforms, int *out, sk_stream stream) {
  const int rounds = (K + G * V - 1) / (G * V);
  const size_t smem = sizeof(float) * (size_t)rounds * (kThreads / G);
  auto kernel = group_row_kernel<G, V, Args, Row, Uniforms>;
  const sk_status allowed = allow_dynamic_shared(kernel, smem);
  if (allowed != SK_SUCCESS) return allowed;
  const size_t rows_per_block = kThreads / G;
  const size_t blocks = (num_items + rows_per_block - 1) / rows_per_block;
  kernel<<<blocks < (size_t)INT32_MAX ? (unsigned)blocks : (unsigned)INT32_MAX, kThreads, smem, stream>>>(
      args, num_items, K, uniforms, out);
  return sk_detail_check_launch();
}

template <int V, class Args, class Row, class Uniforms>
sk_status launch_warp_row(const Args &args, size_t num_items, int K, Uniforms uniforms, int *out, sk_stream stream) {
  const int rounds = (K + SK_WARP_SIZE * V - 1) / (SK_WARP_SIZE * V);
  const size_t smem = sizeof(float) * (size_t)rounds * kWarpsPerBlock;
  auto kernel = warp_row_kernel<V, Args, Row, Uniforms>;
  const sk_status allowed = allow_dynamic_shared(kernel, smem);
  if (allowed != SK_SUCCESS) return allowed;
  kernel<<<grid_for(num_items), kThreads, smem, stream>>>(args, num_items, K, uniforms, out);
  return sk_detail_check_launch();
}

// G lanes per row so that a row takes about 4 rounds of G V entries (documented in the header).
template <int V, class Args, class Row, class Uniforms>
sk_status launch_group_row(const Args &args, size_t num_items, int K, Uniforms uniforms, int *out, sk_stream stream) {
  switch (sk_sample_categorical_group_lanes(K, V)) {
    case 4: return launch_group_row<4, V, Args, Row>(args, num_items, K, uniforms, out, stream);
    case 8: return launch_group_row<8, V, Args, Row>(args, num_items, K, uniforms, out, stream);
    case 16: return launch_group_row<16, V, Args, Row>(args, num_items, K, uniforms, out, stream);
    default: return launch_warp_row<V, Args, Row>(args, num_items, K, uniforms, out, stream);
  }
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

bool use_butterfly(sk_categorical_algorithm algorithm, int K) {
  return algorithm == SK_CATEGORICAL_BUTTERFLY ||
         (algorithm == SK_CATEGORICAL_AUTO && K <= SK_CATEGORICAL_BUTTERFLY_MAX_K);
}

bool valid_algorithm(sk_categorical_algorithm a) { return a >= SK_CATEGORICAL_AUTO && a <= SK_CATEGORICAL_GROUP_ROW; }

template <class Uniforms>
sk_status sample_matrix(const float *d_weights, size_t ld, size_t num_rows, int K, sk_categorical_algorithm algorithm,
                        Uniforms uniforms, int *d_out, sk_stream stream) {
  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;
  const MatrixArgs args = {d_weights, ld};
  if (use_butterfly(algorithm, K)) {
    butterfly_matrix_kernel<<<grid_for((num_rows + 31) / 32), kThreads, 0, stream>>>(args, num_rows, K, uniforms,
                                                                                     d_out);
    return sk_detail_check_launch();
  }
  if (ld % 4 == 0 && aligned16(d_weights))
    return launch_group_row<4, MatrixArgs, MatrixRow>(args, num_rows, K, uniforms, d_out, stream);
  return launch_group_row<1, MatrixArgs, MatrixRow>(args, num_rows, K, uniforms, d_out, stream);
}

template <class Uniforms>
sk_status sample_product(const ProductArgs &args, size_t num_items, int K, sk_categorical_algorithm algorithm,
                         Uniforms uniforms, int *d_out, sk_stream stream) {
  const sk_status pending = sk_detail_check_pending();
  if (pending != SK_SUCCESS) return pending;
  // No documents or no words: every id is out of range, so every index is -1 (all bytes 0xff). The
  // kernels may then assume that row 0 of theta and of phi can be read.
  if (args.num_docs == 0 || args.num_words == 0)
    return sk_status_from_cuda_error((int)cudaMemsetAsync(d_out, 0xff, num_items * sizeof(int), stream));
  if (use_butterfly(algorithm, K)) {
    butterfly_product_kernel<<<grid_for((num_items + 31) / 32), kThreads, 0, stream>>>(args, num_items, K, uniforms,
                                                                                       d_out);
    return sk_detail_check_launch();
  }
  if (args.ld_theta % 4 == 0 && args.ld_phi % 4 == 0 && aligned16(args.theta) && aligned16(args.phi))
    return launch_group_row<4, ProductArgs, ProductRow>(args, num_items, K, uniforms, d_out, stream);
  return launch_group_row<1, ProductArgs, ProductRow>(args, num_items, K, uniforms, d_out, stream);
}

// Argument checks shared by every entry point; SK_SUCCESS means "go on" (and num_items > 0).
sk_status check_matrix(const float *d_weights, size_t ld, size_t num_rows, int K, sk_categorical_algorithm algorithm,
                       const int *d_out) {
  if (K < 1 || K > SK_CATEGORICAL_MAX_K || ld < (size_t)K || !valid_algorithm(algorithm)) return SK_ERROR_INVALID_VALUE;
  if (num_rows > 0 && (d_weights == nullptr || d_out == nullptr)) return SK_ERROR_NULL_POINTER;
  return SK_SUCCESS;
}

sk_status check_product(const ProductArgs &a, size_t num_items, int K, sk_categorical_algorithm algorithm,
                        const int *d_out) {
  if (K < 1 || K > SK_CATEGORICAL_MAX_K || a.ld_theta < (size_t)K || a.ld_phi < (size_t)K || a.num_docs < 0 ||
      a.num_words < 0 || !valid_algorithm(algorithm))
    return SK_ERROR_INVALID_VALUE;
  if (num_items > 0 && (a.theta == nullptr || a.phi == nullptr || a.docs == nullptr || a.words == nullptr ||
                        d_out == nullptr))
    return SK_ERROR_NULL_POINTER;
  return SK_SUCCESS;
}

}  // namespace

extern "C" sk_status sk_sample_categorical_ex_f32(const float *d_weights, size_t ld, size_t num_rows, int K,
                                                  sk_categorical_algorithm algorithm, uint64_t seed,
                                                  uint64_t offset, int *d_out, sk_stream stream) {
  sk_status st = check_matrix(d_weights, ld, num_rows, K, algorithm, d_out);
  if (st == SK_SUCCESS && offset > UINT64_MAX - (uint64_t)num_rows) st = SK_ERROR_INVALID_VALUE;
  if (st != SK_SUCCESS || num_rows == 0) return st;
  return sample_matrix(d_weights, ld, num_rows, K, algorithm, RngUniforms{seed, offset}, d_out, stream);
}

extern "C" sk_status sk_sample_categorical_f32(const float *d_weights, size_t ld, size_t num_rows, int K,
                                               uint64_t seed, uint64_t offset, int *d_out, sk_stream stream) {
  return sk_sample_categorical_ex_f32(d_weights, ld, num_rows, K, SK_CATEGORICAL_AUTO, seed, offset, d_out, stream);
}

extern "C" sk_status sk_sample_categorical_with_uniforms_f32(const float *d_weights, size_t ld, size_t num_rows,
                                                             int K, sk_categorical_algorithm algorithm,
                                                             const float *d_uniforms, int *d_out, sk_stream stream) {
  sk_status st = check_matrix(d_weights, ld, num_rows, K, algorithm, d_out);
  if (st == SK_SUCCESS && num_rows > 0 && d_uniforms == nullptr) st = SK_ERROR_NULL_POINTER;
  if (st != SK_SUCCESS || num_rows == 0) return st;
  return sample_matrix(d_weights, ld, num_rows, K, algorithm, GivenUniforms{d_uniforms}, d_out, stream);
}

extern "C" sk_status sk_sample_categorical_product_ex_f32(const float *d_theta, size_t ld_theta, int num_docs,
                                                          const float *d_phi, size_t ld_phi, int num_words, int K,
                                                          const int *d_docs, const int *d_words, size_t num_items,
                                                          sk_categorical_algorithm algorithm, uint64_t seed,
                                                          uint64_t offset, int *d_out, sk_stream stream) {
  const ProductArgs args = {d_theta, d_phi, ld_theta, ld_phi, num_docs, num_words, d_docs, d_words};
  sk_status st = check_product(args, num_items, K, algorithm, d_out);
  if (st == SK_SUCCESS && offset > UINT64_MAX - (uint64_t)num_items) st = SK_ERROR_INVALID_VALUE;
  if (st != SK_SUCCESS || num_items == 0) return st;
  return sample_product(args, num_items, K, algorithm, RngUniforms{seed, offset}, d_out, stream);
}

extern "C" sk_status sk_sample_categorical_product_f32(const float *d_theta, size_t ld_theta, int num_docs,
                                                       const float *d_phi, size_t ld_phi, int num_words, int K,
                                                       const int *d_docs, const int *d_words, size_t num_items,
                                                       uint64_t seed, uint64_t offset, int *d_out, sk_stream stream) {
  return sk_sample_categorical_product_ex_f32(d_theta, ld_theta, num_docs, d_phi, ld_phi, num_words, K, d_docs,
                                              d_words, num_items, SK_CATEGORICAL_AUTO, seed, offset, d_out, stream);
}

extern "C" sk_status sk_sample_categorical_product_with_uniforms_f32(
    const float *d_theta, size_t ld_theta, int num_docs, const float *d_phi, size_t ld_phi, int num_words, int K,
    const int *d_docs, const int *d_words, size_t num_items, sk_categorical_algorithm algorithm,
    const float *d_uniforms, int *d_out, sk_stream stream) {
  const ProductArgs args = {d_theta, d_phi, ld_theta, ld_phi, num_docs, num_words, d_docs, d_words};
  sk_status st = check_product(args, num_items, K, algorithm, d_out);
  if (st == SK_SUCCESS && num_items > 0 && d_uniforms == nullptr) st = SK_ERROR_NULL_POINTER;
  if (st != SK_SUCCESS || num_items == 0) return st;
  return sample_product(args, num_items, K, algorithm, GivenUniforms{d_uniforms}, d_out, stream);
}
