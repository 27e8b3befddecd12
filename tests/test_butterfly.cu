// Tests sk_warp_butterfly_sample_rows_f32 and sk_warp_butterfly_sample_product_f32: exact agreement
// (index and total, bit for bit) with the host reference over K from 1 to 100,000, tiles with lanes
// that have no row, weight kinds from uniform to inf and NaN, and uniforms at 0, at random, just below 1,
// exactly on block and tree boundaries; a goodness-of-fit test of the draws with a planted off-by-one;
// the usage snippet; the block-level functions (sum, maximum, search of a 32 x 32 block held in
// registers) against the reference's tree. With --host: the reference against the plain sequential
// rule where every sum is exact, and its documented invariants.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "ref/butterfly_ref.h"
#include "samplekit/butterfly.cuh"
#include "samplekit/rng.cuh"
#include "sk_test.h"
#include "warp_cases.h"  // the poison byte and word

//! [butterfly_usage]
// One draw per row of a num_rows x K matrix (row-major, leading dimension ld): each warp takes a tile of
// 32 rows, lane r draws from row 32 * warp + r, with the uniform of item = row.
__global__ void example_sample_rows(const float *w, size_t ld, int num_rows, int K, uint64_t seed, int *out) {
  const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int first = warp * 32;
  if (first >= num_rows) return;  // whole warps leave together: the block size is a multiple of 32
  const int row = first + sk_lane_id();
  const int rows_here = num_rows - first < 32 ? num_rows - first : 32;  // the last tile may be partial
  const float uniform = sk_rng_uniform_f32(seed, 0, (uint64_t)row);
  // Every lane calls, those without a row too (they get -1).
  const int k = sk_warp_butterfly_sample_rows_f32(w + (size_t)first * ld, ld, rows_here, K, uniform, NULL);
  if (row < num_rows) out[row] = k;  // -1 only for a row whose total is 0, inf or NaN
}
//! [butterfly_usage]

static const int kKs[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 1024, 1025, 10000, 32768, 100000};
enum { kNumKs = sizeof kKs / sizeof kKs[0] };
static const int kNumRows[] = {32, 31, 1, 17};
enum { kNumRowCounts = 4 };

// --- Weights ----------------------------------------------------------------------------------------

enum {
  kUniform, kOneHot, kWithZeros, kAllEqual, kSkewed, kTiny, kAllZero, kWithInf, kWithNaN, kInteger,
  kFirstOnly, kLastOnly, kSparse, kNumKinds
};
static const char *const kKindNames[kNumKinds] = {
    "uniform [0,1)", "one-hot", "with zeros", "all equal", "skewed 2^100:1", "tiny and subnormal", "all zero",
    "with inf", "with NaN", "integers, total a power of 2", "only column 0", "only column K-1", "sparse 1/50"};

static float nan_f32(void) { return nanf(""); }

// K weights of one kind (non-negative: the sampler's precondition).
static void fill_kind(float *w, int K, int kind, uint64_t *rng) {
  const int hot = (int)(sk_test_rand_u32(rng) % (uint32_t)K);
  for (int i = 0; i < K; ++i) {
    const float u = sk_test_rand_unit_f32(rng);
    const uint32_t r = sk_test_rand_u32(rng);
    switch (kind) {
      case kUniform: w[i] = u; break;
      case kOneHot: w[i] = i == hot ? 1.0f : 0.0f; break;
      case kWithZeros: w[i] = r % 2u ? u : 0.0f; break;
      case kAllEqual: w[i] = 0.1f; break;
      case kSkewed: w[i] = ldexpf(1.0f + u, -(int)(r % 101u)); break;  // ratios up to 2^101 > 1e30
      case kTiny: w[i] = r % 4u == 0 ? 0.0f : ldexpf(u, -126 - (int)(r % 24u)); break;  // subnormal
      case kAllZero: w[i] = r % 2u ? 0.0f : -0.0f; break;  // -0.0f counts as zero too
      case kWithInf: w[i] = i == hot ? INFINITY : u; break;
      case kWithNaN: w[i] = i == hot ? nan_f32() : u; break;
      case kInteger: w[i] = (float)(r % 8u); break;
      case kFirstOnly: w[i] = i == 0 ? 0.5f : 0.0f; break;
      case kLastOnly: w[i] = i == K - 1 ? 0.5f : 0.0f; break;
      default: w[i] = r % 50u == 0 ? 0.25f + u : 0.0f; break;
    }
  }
  if (kind == kInteger) {  // raise one entry so that the total is a power of two: every sum is then exact
    double sum = 0.0;
    for (int i = 0; i < K; ++i) sum += w[i];
    double target = 1.0;
    while (target < sum || target < 1.0) target *= 2.0;
    w[hot] += (float)(target - sum);
  }
}

// --- Uniforms ---------------------------------------------------------------------------------------

enum { kUZero, kURandom, kUBelowOne, kUBlockStart, kUTreeEdge, kUBelowEdge, kUOne, kUSmallest, kURandom2, kNumU };
static const char *const kUNames[kNumU] = {"uniform 0", "uniform random", "uniform 0x1.fffffep-1",
                                           "u on a block start", "u on a tree edge", "u just below a tree edge",
                                           "uniform 1 (clamp)", "uniform 2^-24", "uniform random"};

// A uniform q in [0, 1) with q * total == target exactly, if one is near target / total.
static int uniform_hitting(float target, float total, float *q) {
  if (!(target >= 0.0f) || !(total > 0.0f) || !(total <= FLT_MAX)) return 0;
  float c = target / total;
  for (int i = 0; i < 4; ++i) c = nextafterf(c, 0.0f);
  for (int i = 0; i < 9; ++i, c = nextafterf(c, 2.0f))
    if (c >= 0.0f && c < 1.0f && c * total == target) {
      *q = c;
      return 1;
    }
  return 0;
}

static long g_boundary_wanted = 0, g_boundary_hit = 0;

// The uniform of placement v for a row (w, K): constructed on the reference's own boundaries.
static float place_uniform(int v, const float *w, int K, uint64_t *rng) {
  const float random = sk_test_rand_unit_f32(rng);
  if (v == kUZero) return 0.0f;
  if (v == kUBelowOne) return 0x1.fffffep-1f;
  if (v == kUOne) return 1.0f;
  if (v == kUSmallest) return 0x1p-24f;
  if (v != kUBlockStart && v != kUTreeEdge && v != kUBelowEdge) return random;
  const float total = sk_ref_butterfly_total_f32(w, K);
  if (!(total > 0.0f) || !(total <= FLT_MAX)) return random;
  // A random position of positive weight, and the edges on the way to it.
  int pos = -1;
  for (int tries = 0; tries < 64 && pos < 0; ++tries) {
    const int i = (int)(sk_test_rand_u32(rng) % (uint32_t)K);
    if (w[i] > 0.0f) pos = i;
  }
  for (int i = 0; i < K && pos < 0; ++i)
    if (w[i] > 0.0f) pos = i;
  const int col = pos + sk_ref_butterfly_pad(K);
  float edges[6];
  sk_ref_butterfly_edges_f32(w, K, col / 32, col % 32, edges);
  float target = edges[0];
  if (v != kUBlockStart) target = edges[1 + (int)(sk_test_rand_u32(rng) % 5u)];
  float q;
  ++g_boundary_wanted;
  if (!uniform_hitting(target, total, &q)) return random;
  ++g_boundary_hit;
  if (v == kUBelowEdge) {  // the next uniform below, whatever u it gives
    return q > 0.0f ? nextafterf(q, 0.0f) : q;
  }
  return q;
}

// --- Host checks of the reference ---------------------------------------------------------------------

// Where every sum is exact (integer weights whose total is a power of two below 2^24), the tree's edges
// are the plain running sums, so the reference must agree with the sequential rule for every u, and in
// particular for u exactly on each running sum (which goes to the next positive entry).
static void test_reference_exact(void) {
  static const int Ks[] = {1, 2, 5, 31, 32, 33, 64, 65, 100, 1000, 1025, 4000};
  uint64_t rng = 0xb0f1u;
  for (size_t a = 0; a < sizeof Ks / sizeof Ks[0]; ++a) {
    const int K = Ks[a];
    float *w = (float *)malloc(sizeof(float) * K);
    for (int rep = 0; rep < 6; ++rep) {
      fill_kind(w, K, kInteger, &rng);
      if (rep % 3 == 1)  // sparser rows: long runs of zeros between positives
        for (int i = 0; i < K; ++i)
          if (sk_test_rand_u32(&rng) % 4u) w[i] = 0.0f;
      if (rep % 3 == 1) {
        double sum = 0.0;
        for (int i = 0; i < K; ++i) sum += w[i];
        double target = 1.0;
        while (target < sum) target *= 2.0;
        w[K / 2] += (float)(target - sum);
      }
      float total;
      (void)sk_ref_butterfly_sample_f32(w, K, 0.0f, &total);
      sk_test_context("reference vs sequential K=%d rep=%d total=%g", K, rep, (double)total);
      float running = 0.0f;
      int bad = 0;
      for (int i = -1; i < K && !bad; ++i) {
        if (i >= 0) running += w[i];
        // u = running exactly (uniform = running / total is exact: total is a power of two), and random.
        const float us[2] = {running / total, sk_test_rand_unit_f32(&rng)};
        for (int j = 0; j < 2 && !bad; ++j) {
          if (!(us[j] < 1.0f)) continue;
          const int got = sk_ref_butterfly_sample_f32(w, K, us[j], NULL);
          const int want = sk_ref_sequential_sample_f32(w, K, us[j] * total);
          bad = !SK_CHECK(got == want, "u=%.9g: butterfly reference %d, sequential %d", (double)(us[j] * total),
                          got, want);
        }
      }
      // The edges are exact running sums here: edges[0] is the sum of the blocks before.
      const int col = (int)(sk_test_rand_u32(&rng) % (uint32_t)K) + sk_ref_butterfly_pad(K);
      float edges[6];
      sk_ref_butterfly_edges_f32(w, K, col / 32, col % 32, edges);
      double before = 0.0;
      for (int i = 0; i < 32 * (col / 32) - sk_ref_butterfly_pad(K); ++i) before += w[i];
      SK_CHECK(edges[0] == (float)before, "block start %g, want %g", (double)edges[0], before);
    }
    free(w);
  }
}

// The documented invariants on every kind and K: -1 exactly when the total is not > 0 or not finite;
// otherwise an index of positive weight; uniform 0 gives the first positive entry and uniform 1 (the
// clamp) the last.
static void test_reference_rules(void) {
  uint64_t rng = 0x5eedu;
  for (int a = 0; a < kNumKs; ++a) {
    const int K = kKs[a];
    float *w = (float *)malloc(sizeof(float) * K);
    for (int kind = 0; kind < kNumKinds; ++kind) {
      fill_kind(w, K, kind, &rng);
      int first = -1, last = -1, finite = 1;
      for (int i = 0; i < K; ++i) {
        finite &= isfinite(w[i]) != 0;
        if (w[i] > 0.0f) {
          if (first < 0) first = i;
          last = i;
        }
      }
      float total;
      const int at0 = sk_ref_butterfly_sample_f32(w, K, 0.0f, &total);
      const int at1 = sk_ref_butterfly_sample_f32(w, K, 1.0f, NULL);
      const int valid = total > 0.0f && total <= FLT_MAX;
      sk_test_context("reference rules K=%d %s total=%g", K, kKindNames[kind], (double)total);
      // (No kind here sums past FLT_MAX: a total is invalid for zeros, an inf or a NaN only.)
      SK_CHECK(valid == (first >= 0 && finite), "validity %d of the total, want %d", valid, first >= 0 && finite);
      SK_CHECK(at0 == (valid ? first : -1), "uniform 0 gave %d, want the first positive %d", at0, first);
      SK_CHECK(at1 == (valid ? last : -1), "uniform 1 gave %d, want the last positive %d", at1, last);
      for (int rep = 0; rep < 64; ++rep) {
        const float q = rep == 0 ? 0x1.fffffep-1f : sk_test_rand_unit_f32(&rng);
        const int got = sk_ref_butterfly_sample_f32(w, K, q, NULL);
        if (!SK_CHECK(valid ? (got >= 0 && got < K && w[got] > 0.0f) : got == -1, "uniform %.9g gave %d",
                      (double)q, got))
          break;
      }
    }
    free(w);
  }
}

// --- Device: exact agreement ------------------------------------------------------------------------

struct Case {
  int form;       // 0: rows; 1: product
  int K;
  int num_rows;   // rows form: lanes 0 .. num_rows - 1 have a row
  int with_total; // pass row_total (else NULL)
  size_t ld;      // rows: the tile's ld; product: ld_theta = ld_phi = ld
  size_t off;     // rows: the tile; product: theta's first row
  size_t phi_off; // product: phi's first row
  int seq;        // the kind of row r (rows) or theta row d (product) is (seq + r or d) mod kNumKinds,
                  // and lane l's uniform is placement (7 seq + l + form) mod kNumU
};

__global__ void sample_cases(const Case *cases, int num_cases, const float *w, const float *uniforms,
                             const int *docs, const int *words, const int *actives, int *out, float *totals) {
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (c >= num_cases) return;  // whole warps
  const Case k = cases[c];
  const size_t i = (size_t)c * 32 + (size_t)sk_lane_id();
  float *total = k.with_total ? totals + i : NULL;
  if (k.form == 0) {
    out[i] = sk_warp_butterfly_sample_rows_f32(w + k.off, k.ld, k.num_rows, k.K, uniforms[i], total);
  } else {
    out[i] = sk_warp_butterfly_sample_product_f32(w + k.off, k.ld, w + k.phi_off, k.ld, docs[i], words[i],
                                                  actives[i], k.K, uniforms[i], total);
  }
}

// A growing host buffer of floats.
struct Floats {
  float *p;
  size_t n, cap;
};
static size_t floats_take(Floats *f, size_t n) {
  if (f->n + n > f->cap) {
    f->cap = (f->n + n) * 2;
    f->p = (float *)realloc(f->p, sizeof(float) * f->cap);
    if (f->p == NULL) {
      fprintf(stderr, "out of host memory\n");
      exit(1);
    }
  }
  const size_t at = f->n;
  f->n += n;
  return at;
}

// Rows of `count` x K weights with stride ld; the columns K .. ld - 1 hold NaN, so that a read past K
// would show in the totals.
static size_t add_rows(Floats *f, int count, int K, size_t ld, int kind0, uint64_t *rng) {
  const size_t at = floats_take(f, (size_t)(count - 1) * ld + (size_t)K);
  for (int r = 0; r < count; ++r) {
    fill_kind(f->p + at + (size_t)r * ld, K, (kind0 + r) % kNumKinds, rng);
    if (r + 1 < count)
      for (size_t c = (size_t)K; c < ld; ++c) f->p[at + (size_t)r * ld + c] = nan_f32();
  }
  return at;
}

struct Suite {
  Case *cases;
  int num_cases, cap;
  Floats w;
  float *uniforms;
  int *docs, *words, *actives;
};

static void suite_add(Suite *s, const Case *k, const float *u, const int *doc, const int *word, const int *active) {
  if (s->num_cases == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->cases = (Case *)realloc(s->cases, sizeof(Case) * s->cap);
    s->uniforms = (float *)realloc(s->uniforms, sizeof(float) * 32 * s->cap);
    s->docs = (int *)realloc(s->docs, sizeof(int) * 32 * s->cap);
    s->words = (int *)realloc(s->words, sizeof(int) * 32 * s->cap);
    s->actives = (int *)realloc(s->actives, sizeof(int) * 32 * s->cap);
  }
  const int c = s->num_cases++;
  s->cases[c] = *k;
  memcpy(s->uniforms + 32 * c, u, sizeof(float) * 32);
  memcpy(s->docs + 32 * c, doc, sizeof(int) * 32);
  memcpy(s->words + 32 * c, word, sizeof(int) * 32);
  memcpy(s->actives + 32 * c, active, sizeof(int) * 32);
}

// The weights lane `lane` of case c draws from, or NULL when it has none; `scratch` holds K floats.
static const float *lane_weights(const Suite *s, int c, int lane, float *scratch) {
  const Case *k = &s->cases[c];
  if (k->form == 0) return lane < k->num_rows ? s->w.p + k->off + (size_t)lane * k->ld : NULL;
  if (!s->actives[32 * c + lane]) return NULL;
  sk_ref_butterfly_product_f32(s->w.p + k->off + (size_t)s->docs[32 * c + lane] * k->ld,
                               s->w.p + k->phi_off + (size_t)s->words[32 * c + lane] * k->ld, k->K, scratch);
  return scratch;
}

enum { kProductDocs = 8, kProductWords = 8 };

static void build_suite(Suite *s, int seed) {
  uint64_t rng = 0xbf1e0000u + (uint64_t)seed;
  memset(s, 0, sizeof *s);
  float *scratch = (float *)malloc(sizeof(float) * 100000);
  int seq = 0;
  for (int a = 0; a < kNumKs; ++a) {
    const int K = kKs[a];
    if (seed > 0 && K > 1025) continue;  // the huge rows once (seed 0); the small ones under every seed
    const int tiles = K <= 1025 ? 3 : 1;
    for (int nr = 0; nr < kNumRowCounts; ++nr)
      for (int tile = 0; tile < tiles; ++tile, ++seq) {
        for (int form = 0; form < 2; ++form) {
          Case k;
          memset(&k, 0, sizeof k);
          k.form = form;
          k.K = K;
          k.num_rows = kNumRows[nr];
          k.with_total = (seq + form) % 4 != 3;
          k.ld = (size_t)K + (size_t)((seq % 3) * 5);  // ld = K, K + 5, K + 10
          k.seq = seq;
          int doc[32], word[32], active[32];
          float u[32];
          for (int l = 0; l < 32; ++l) doc[l] = word[l] = -12345, active[l] = 0;
          if (form == 0) {
            k.off = add_rows(&s->w, k.num_rows, K, k.ld, seq, &rng);
          } else {
            k.off = add_rows(&s->w, kProductDocs, K, k.ld, seq, &rng);
            // phi: positive weights with some zeros (the theta rows carry the kinds).
            k.phi_off = floats_take(&s->w, (size_t)(kProductWords - 1) * k.ld + (size_t)K);
            for (int r = 0; r < kProductWords; ++r)
              for (size_t c = 0; c < (r + 1 < kProductWords ? k.ld : (size_t)K); ++c)
                s->w.p[k.phi_off + (size_t)r * k.ld + c] =
                    c >= (size_t)K ? nan_f32() : (sk_test_rand_u32(&rng) % 5u ? sk_test_rand_unit_f32(&rng) : 0.0f);
            // Active lanes: the first num_rows lanes, in a random order of lanes for 17.
            const int n_active = k.num_rows;
            int order[32];
            for (int l = 0; l < 32; ++l) order[l] = l;
            for (int l = 31; l > 0 && n_active == 17; --l) {
              const int j = (int)(sk_test_rand_u32(&rng) % (uint32_t)(l + 1));
              const int t = order[l];
              order[l] = order[j];
              order[j] = t;
            }
            for (int l = 0; l < n_active; ++l) {
              const int lane = n_active == 1 ? (int)(sk_test_rand_u32(&rng) % 32u) : order[l];
              active[lane] = 1;
              doc[lane] = (int)(sk_test_rand_u32(&rng) % kProductDocs);
              word[lane] = (int)(sk_test_rand_u32(&rng) % kProductWords);
            }
          }
          // Uniforms, constructed on each lane's own weights.
          for (int l = 0; l < 32; ++l) {
            const int v = (seq * 7 + l + form) % kNumU;
            const float *w = NULL;
            if (form == 0) {
              w = l < k.num_rows ? s->w.p + k.off + (size_t)l * k.ld : NULL;
            } else if (active[l]) {
              sk_ref_butterfly_product_f32(s->w.p + k.off + (size_t)doc[l] * k.ld,
                                           s->w.p + k.phi_off + (size_t)word[l] * k.ld, K, scratch);
              w = scratch;
            }
            u[l] = w ? place_uniform(v, w, K, &rng) : sk_test_rand_unit_f32(&rng);
          }
          suite_add(s, &k, u, doc, word, active);
        }
      }
  }
  free(scratch);
}

static void free_suite(Suite *s) {
  free(s->cases);
  free(s->w.p);
  free(s->uniforms);
  free(s->docs);
  free(s->words);
  free(s->actives);
}

static void test_device_exact(int seed) {
  Suite s;
  g_boundary_wanted = g_boundary_hit = 0;
  build_suite(&s, seed);
  const size_t lanes = (size_t)s.num_cases * 32;
  Case *d_cases;
  float *d_w, *d_u, *d_totals;
  int *d_docs, *d_words, *d_actives, *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_cases, sizeof(Case) * s.num_cases));
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * s.w.n));
  SK_CHECK_CUDA(cudaMalloc(&d_u, sizeof(float) * lanes));
  SK_CHECK_CUDA(cudaMalloc(&d_totals, sizeof(float) * lanes));
  SK_CHECK_CUDA(cudaMalloc(&d_docs, sizeof(int) * lanes));
  SK_CHECK_CUDA(cudaMalloc(&d_words, sizeof(int) * lanes));
  SK_CHECK_CUDA(cudaMalloc(&d_actives, sizeof(int) * lanes));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof(int) * lanes));
  SK_CHECK_CUDA(cudaMemcpy(d_cases, s.cases, sizeof(Case) * s.num_cases, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_w, s.w.p, sizeof(float) * s.w.n, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_u, s.uniforms, sizeof(float) * lanes, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_docs, s.docs, sizeof(int) * lanes, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_words, s.words, sizeof(int) * lanes, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_actives, s.actives, sizeof(int) * lanes, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof(int) * lanes));
  SK_CHECK_CUDA(cudaMemset(d_totals, SK_TEST_POISON_BYTE, sizeof(float) * lanes));
  const int threads = 128;
  sample_cases<<<(unsigned)((lanes + threads - 1) / threads), threads>>>(d_cases, s.num_cases, d_w, d_u, d_docs,
                                                                         d_words, d_actives, d_out, d_totals);
  SK_CHECK_LAUNCH();
  int *out = (int *)malloc(sizeof(int) * lanes);
  float *totals = (float *)malloc(sizeof(float) * lanes);
  SK_CHECK_CUDA(cudaMemcpy(out, d_out, sizeof(int) * lanes, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(totals, d_totals, sizeof(float) * lanes, cudaMemcpyDeviceToHost));

  float *scratch = (float *)malloc(sizeof(float) * 100000);
  long lanes_checked = 0, draws = 0;
  for (int c = 0; c < s.num_cases; ++c) {
    const Case *k = &s.cases[c];
    for (int l = 0; l < 32; ++l) {
      const size_t i = (size_t)c * 32 + (size_t)l;
      const float *w = lane_weights(&s, c, l, scratch);
      float want_total = 0.0f;
      const int want = w ? sk_ref_butterfly_sample_f32(w, k->K, s.uniforms[i], &want_total) : -1;
      // A NaN total matches any NaN: its payload bits differ between host and device, and mean nothing.
      const uint32_t want_total_bits = !k->with_total ? SK_TEST_POISON_WORD
                                       : isnan(want_total) && isnan(totals[i]) ? sk_test_f32_bits(totals[i])
                                                                               : sk_test_f32_bits(want_total);
      const int kind = (k->seq + (k->form ? s.docs[i] : l)) % kNumKinds;
      sk_test_context("seed=%d case=%d %s K=%d num_rows/active=%d ld=%zu lane=%d (%s) %s uniform=%a", seed, c,
                      k->form ? "product" : "rows", k->K, k->num_rows, k->ld, l, w ? kKindNames[kind] : "no row",
                      kUNames[(7 * k->seq + l + k->form) % kNumU], (double)s.uniforms[i]);
      ++lanes_checked;
      draws += want >= 0;
      if (!SK_CHECK(out[i] == want && sk_test_f32_bits(totals[i]) == want_total_bits,
                    "index %d (want %d), total 0x%08x (want 0x%08x)", out[i], want, sk_test_f32_bits(totals[i]),
                    want_total_bits))
        break;  // the rest of the case would repeat the message
    }
  }
  printf("exact: seed %d, %d cases, %ld lanes (%ld draws); %ld of %ld boundary uniforms hit their edge exactly\n",
         seed, s.num_cases, lanes_checked, draws, g_boundary_hit, g_boundary_wanted);
  SK_CHECK_CUDA(cudaFree(d_cases));
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_u));
  SK_CHECK_CUDA(cudaFree(d_totals));
  SK_CHECK_CUDA(cudaFree(d_docs));
  SK_CHECK_CUDA(cudaFree(d_words));
  SK_CHECK_CUDA(cudaFree(d_actives));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(out);
  free(totals);
  free(scratch);
  free_suite(&s);
}

// --- Device: goodness of fit ------------------------------------------------------------------------

// Every lane draws from the same distribution: the rows form with ld = 0 (all 32 rows are one row), or
// the product of theta's row 0 and phi's row 0. Item i uses sk_rng_uniform_f32(seed, 0, offset + i).
__global__ void draw_many(int form, const float *w, const float *phi, int K, uint64_t seed, uint64_t offset,
                          int calls_per_warp, unsigned long long *counts) {
  const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32, warps = gridDim.x * (size_t)blockDim.x / 32;
  for (int call = 0; call < calls_per_warp; ++call) {
    const uint64_t item = ((uint64_t)call * warps + warp) * 32 + (uint64_t)sk_lane_id();
    const float uniform = sk_rng_uniform_f32(seed, 0, offset + item);
    const int k = form == 0 ? sk_warp_butterfly_sample_rows_f32(w, 0, 32, K, uniform, NULL)
                            : sk_warp_butterfly_sample_product_f32(w, (size_t)K, phi, (size_t)K, 0, 0, 1, K, uniform,
                                                                   NULL);
    atomicAdd(&counts[k >= 0 && k < K ? k : K], 1ull);
  }
}

static void goodness_of_fit(const char *name, int form, const float *w, const float *phi, int K, int log2_draws) {
  const int threads = 256, blocks = 512;  // 4096 warps
  const long long draws = 1ll << log2_draws;
  const int calls = (int)(draws / (blocks * threads));
  float *d_w, *d_phi = NULL;
  unsigned long long *d_counts;
  unsigned long long *counts = (unsigned long long *)malloc(sizeof(unsigned long long) * (K + 1));
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * K));
  SK_CHECK_CUDA(cudaMemcpy(d_w, w, sizeof(float) * K, cudaMemcpyHostToDevice));
  if (phi != NULL) {
    SK_CHECK_CUDA(cudaMalloc(&d_phi, sizeof(float) * K));
    SK_CHECK_CUDA(cudaMemcpy(d_phi, phi, sizeof(float) * K, cudaMemcpyHostToDevice));
  }
  SK_CHECK_CUDA(cudaMalloc(&d_counts, sizeof(unsigned long long) * (K + 1)));
  SK_CHECK_CUDA(cudaMemset(d_counts, 0, sizeof(unsigned long long) * (K + 1)));
  draw_many<<<blocks, threads>>>(form, d_w, d_phi, K, 2027, 1000, calls, d_counts);
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(counts, d_counts, sizeof(unsigned long long) * (K + 1), cudaMemcpyDeviceToHost));

  double *p = (double *)malloc(sizeof(double) * K), *observed = (double *)malloc(sizeof(double) * K);
  double *expected = (double *)malloc(sizeof(double) * K), *shifted = (double *)malloc(sizeof(double) * K);
  double sum = 0.0;
  for (int i = 0; i < K; ++i) {
    p[i] = phi ? (double)(w[i] * phi[i]) : (double)w[i];
    sum += p[i];
  }
  int cells = 0, zero_drawn = 0;
  const double n = (double)calls * blocks * threads;
  for (int i = 0; i < K; ++i) {
    observed[i] = (double)counts[i];
    expected[i] = n * p[i] / sum;
    shifted[i] = (double)counts[(i + 1) % K];  // a planted off-by-one
    cells += p[i] > 0.0;
    zero_drawn |= p[i] == 0.0 && counts[i] != 0;
  }
  sk_test_context("goodness of fit %s, K=%d, %.0f draws", name, K, n);
  SK_CHECK(!zero_drawn && counts[K] == 0, "a zero-weight category or -1 was drawn (%llu times -1)", counts[K]);
  const double threshold = sk_test_chi2_threshold(cells - 1);
  const double x = sk_test_chi2(observed, expected, K), x_bug = sk_test_chi2(shifted, expected, K);
  SK_CHECK(x < threshold, "chi-square %.1f exceeds %.1f (%d dof)", x, threshold, cells - 1);
  SK_CHECK(x_bug > threshold, "planted off-by-one gave chi-square %.1f, not above %.1f", x_bug, threshold);
  printf("goodness of fit %-34s K=%5d %9.0f draws: chi-square %8.1f, threshold %8.1f (%d dof); off-by-one %.3g\n",
         name, K, n, x, threshold, cells - 1, x_bug);
  SK_CHECK_CUDA(cudaFree(d_w));
  if (d_phi != NULL) SK_CHECK_CUDA(cudaFree(d_phi));
  SK_CHECK_CUDA(cudaFree(d_counts));
  free(counts);
  free(p);
  free(observed);
  free(expected);
  free(shifted);
}

static void test_goodness_of_fit(void) {
  uint64_t rng = 4242;
  float *w = (float *)malloc(sizeof(float) * 2000), *phi = (float *)malloc(sizeof(float) * 2000);
  w[0] = 1.0f, w[1] = 3.0f;
  goodness_of_fit("two categories 1:3", 0, w, NULL, 2, 20);
  for (int i = 0; i < 70; ++i) w[i] = i % 7 == 3 ? 0.0f : 0.05f + sk_test_rand_unit_f32(&rng) * (float)(1 + i % 5);
  goodness_of_fit("zeros every 7th", 0, w, NULL, 70, 20);
  for (int i = 0; i < 33; ++i) w[i] = ldexpf(1.0f, -i / 4);  // a remnant of one column, ratios to 256
  goodness_of_fit("geometric, remnant of 1", 0, w, NULL, 33, 20);
  for (int i = 0; i < 1000; ++i) w[i] = sk_test_rand_u32(&rng) % 3u ? 0.05f + sk_test_rand_unit_f32(&rng) : 0.0f;
  goodness_of_fit("a third zeros", 0, w, NULL, 1000, 20);
  // 63 blocks: a slot holds 4, so the second walk runs (K = 5000 took a minute under racecheck).
  for (int i = 0; i < 2000; ++i) w[i] = sk_test_rand_u32(&rng) % 10u ? 0.0f : 0.5f + sk_test_rand_unit_f32(&rng);
  goodness_of_fit("90% zeros (slots of 4 blocks)", 0, w, NULL, 2000, 20);
  for (int i = 0; i < 100; ++i) {
    w[i] = 0.1f + sk_test_rand_unit_f32(&rng);
    phi[i] = sk_test_rand_u32(&rng) % 5u ? 0.02f + sk_test_rand_unit_f32(&rng) : 0.0f;
  }
  goodness_of_fit("product theta * phi", 1, w, phi, 100, 20);
  free(w);
  free(phi);
}

// --- Device: the block-level functions on a block held in registers --------------------------------

// Block c is 32 rows of 32 weights, row-major at w + 1024 c; lane t takes position t of every row (a
// transposed read, as a caller computing the weights itself would hold them) and calls the three
// block functions, searching u = uniform x its row's sum, or +inf for a uniform of 1 or more (the
// clamp rule of the group).
__global__ void block_cases(const float *w, const float *uniforms, int num_blocks, float *sums, float *maxes,
                            int *positions) {
  const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (c >= num_blocks) return;  // whole warps
  const int lane = sk_lane_id();
  float v[32];
#pragma unroll
  for (int s = 0; s < 32; ++s) v[s] = w[(size_t)c * 1024 + (size_t)s * 32 + (size_t)lane];
  const size_t i = (size_t)c * 32 + (size_t)lane;
  const float total = sk_warp_butterfly_block_sum_f32(v), uniform = uniforms[i];
  sums[i] = total;
  maxes[i] = sk_warp_butterfly_block_max_f32(v);
  const float u = uniform < 1.0f ? fmaxf(__fmul_rn(uniform, total), 0.0f) : __int_as_float(0x7f800000);
  positions[i] = sk_warp_butterfly_block_search_f32(v, u);
}

static float block_max_ref(const float *row) {
  float m = -INFINITY;
  for (int t = 0; t < 32; ++t) m = fmaxf(m, row[t]);
  return m;
}

// Rows of every kind (and of negative log-weights with -inf and signed zeros, for the maximum), with
// uniforms placed as the sampler's tests place them (at 0, at random, on tree edges, just below them,
// 1): the sum must be the reference's block sum and the position the reference's draw for K = 32 (one
// block, no padding), whose search is the same descent from base 0.
static void test_device_blocks(int seed) {
  const int num_blocks = 4 * kNumKinds + 8;
  uint64_t rng = 0xb10c0000u + (uint64_t)seed;
  float *w = (float *)malloc(sizeof(float) * 1024 * num_blocks), *u = (float *)malloc(sizeof(float) * 32 * num_blocks);
  for (int c = 0; c < num_blocks; ++c)
    for (int r = 0; r < 32; ++r) {
      float *row = w + (size_t)c * 1024 + (size_t)r * 32;
      fill_kind(row, 32, (c + r) % kNumKinds, &rng);
      if (c >= 4 * kNumKinds && r % 3 == 0)
        for (int t = 0; t < 32; ++t) row[t] = t % 5 == 0 ? -INFINITY : t % 7 == 0 ? -0.0f : -row[t];
      u[(size_t)c * 32 + (size_t)r] = place_uniform((7 * c + r) % kNumU, row, 32, &rng);
    }
  float *d_w, *d_u, *d_sums, *d_maxes;
  int *d_pos;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * 1024 * num_blocks));
  SK_CHECK_CUDA(cudaMalloc(&d_u, sizeof(float) * 32 * num_blocks));
  SK_CHECK_CUDA(cudaMalloc(&d_sums, sizeof(float) * 32 * num_blocks));
  SK_CHECK_CUDA(cudaMalloc(&d_maxes, sizeof(float) * 32 * num_blocks));
  SK_CHECK_CUDA(cudaMalloc(&d_pos, sizeof(int) * 32 * num_blocks));
  SK_CHECK_CUDA(cudaMemcpy(d_w, w, sizeof(float) * 1024 * num_blocks, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemcpy(d_u, u, sizeof(float) * 32 * num_blocks, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_pos, SK_TEST_POISON_BYTE, sizeof(int) * 32 * num_blocks));
  block_cases<<<(num_blocks + 3) / 4, 128>>>(d_w, d_u, num_blocks, d_sums, d_maxes, d_pos);
  SK_CHECK_LAUNCH();
  float *sums = (float *)malloc(sizeof(float) * 32 * num_blocks), *maxes = (float *)malloc(sizeof(float) * 32 * num_blocks);
  int *pos = (int *)malloc(sizeof(int) * 32 * num_blocks);
  SK_CHECK_CUDA(cudaMemcpy(sums, d_sums, sizeof(float) * 32 * num_blocks, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(maxes, d_maxes, sizeof(float) * 32 * num_blocks, cudaMemcpyDeviceToHost));
  SK_CHECK_CUDA(cudaMemcpy(pos, d_pos, sizeof(int) * 32 * num_blocks, cudaMemcpyDeviceToHost));
  for (int c = 0; c < num_blocks; ++c)
    for (int r = 0; r < 32; ++r) {
      const size_t i = (size_t)c * 32 + (size_t)r;
      const float *row = w + (size_t)c * 1024 + (size_t)r * 32;
      const int nonneg = c < 4 * kNumKinds || r % 3 != 0;
      float total = 0.0f;
      const int want = sk_ref_butterfly_sample_f32(row, 32, u[i], &total);
      const float want_max = block_max_ref(row);
      sk_test_context("block functions, seed %d, block %d, row %d (%s), uniform %a", seed, c, r,
                      nonneg ? kKindNames[(c + r) % kNumKinds] : "log-weights", (double)u[i]);
      SK_CHECK(sk_test_f32_bits_equal(sums[i], total) || (isnan(sums[i]) && isnan(total)), "sum %a, want %a",
               (double)sums[i], (double)total);
      // The maximum is order-free but for the sign of a zero (see the function's documentation).
      SK_CHECK(sk_test_f32_bits_equal(maxes[i], want_max) || (maxes[i] == 0.0f && want_max == 0.0f),
               "max %a, want %a", (double)maxes[i], (double)want_max);
      if (nonneg && want >= 0) SK_CHECK(pos[i] == want, "position %d, want %d", pos[i], want);
    }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_u));
  SK_CHECK_CUDA(cudaFree(d_sums));
  SK_CHECK_CUDA(cudaFree(d_maxes));
  SK_CHECK_CUDA(cudaFree(d_pos));
  free(w);
  free(u);
  free(sums);
  free(maxes);
  free(pos);
}

// --- The usage snippet ------------------------------------------------------------------------------

static void test_usage_snippet(void) {
  enum { kRows = 100, kK = 77 };  // 3 full tiles and one of 4 rows
  float *h_w = (float *)malloc(sizeof(float) * kRows * kK);
  int h_out[kRows];
  uint64_t rng = 31337;
  for (int r = 0; r < kRows; ++r) fill_kind(h_w + r * kK, kK, r % kNumKinds, &rng);
  float *d_w;
  int *d_out;
  SK_CHECK_CUDA(cudaMalloc(&d_w, sizeof(float) * kRows * kK));
  SK_CHECK_CUDA(cudaMalloc(&d_out, sizeof h_out));
  SK_CHECK_CUDA(cudaMemcpy(d_w, h_w, sizeof(float) * kRows * kK, cudaMemcpyHostToDevice));
  SK_CHECK_CUDA(cudaMemset(d_out, SK_TEST_POISON_BYTE, sizeof h_out));
  example_sample_rows<<<2, 64>>>(d_w, (size_t)kK, kRows, kK, 5, d_out);  // 4 warps, one per tile
  SK_CHECK_LAUNCH();
  SK_CHECK_CUDA(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRows; ++r) {
    const int want = sk_ref_butterfly_sample_f32(h_w + r * kK, kK, sk_rng_uniform_f32(5, 0, (uint64_t)r), NULL);
    sk_test_context("usage snippet row %d (%s)", r, kKindNames[r % kNumKinds]);
    SK_CHECK(h_out[r] == want, "got %d want %d", h_out[r], want);
  }
  SK_CHECK_CUDA(cudaFree(d_w));
  SK_CHECK_CUDA(cudaFree(d_out));
  free(h_w);
}

int main(int argc, char **argv) {
  test_reference_exact();
  test_reference_rules();
  if (!sk_test_wants_host_only(argc, argv)) {
    sk_test_require_gpu();
    test_usage_snippet();
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_device_exact(seed);
    for (int seed = 0; seed < sk_test_seed_count(); ++seed) test_device_blocks(seed);
    test_goodness_of_fit();
  }
  return sk_test_finish();
}
