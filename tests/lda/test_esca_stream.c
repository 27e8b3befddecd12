/*
 * The streamed GPU ESCA sampler (gpu/esca_streamed.h) against the resident one (gpu/esca_resident.h):
 * the topics after every sweep must be bit for bit the same for every budget (1, 2 and 7 chunks, and a
 * chunk per document or per token) and every number of workers, at K = 20, 100 and 1,024 and at
 * K = 65,536 (where the rows of B_hat the draws read are split between shared and global memory); a
 * streamed run resumed half-way must equal an uninterrupted one, and budgets too small for the model or for one document must fail with
 * SK_LDA_SAMPLER_BUDGET_ERROR and a message naming the bytes (so must the exact sampler's,
 * gpu/esca_exact.h, which cannot stream).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/esca_exact.h"
#include "gpu/esca_resident.h"
#include "gpu/esca_streamed.h"
#include "gpu/gpu_sampler.h"
#include "lda_test_gpu.h"
#include "sampler_table.h"
#include "sampler_options.h"

enum { kSweeps = 5 };

/* GPU 0 with budget `device_memory` (0: the free memory less the margin). */
static sk_lda_device gpu0(uint64_t device_memory) {
  const sk_lda_device dev = {.kind = SK_LDA_DEVICE_GPU, .gpu = 0, .device_memory = device_memory};
  return dev;
}

/* The smallest budget with which a streamed sampler of `workers` workers cuts m into at most `target`
   chunks (binary search over the budget); 0 when it cannot be found or gives another count. A plan
   that fails is an error; one that does not fit the budget is a budget too small. */
static size_t budget_for(const sk_lda_model *m, int workers, int64_t target) {
  sk_lda_esca_streamed_options o;
  memset(&o, 0, sizeof o);
  o.workers = workers;
  const sk_lda_device dev = gpu0(0);
  sk_lda_sampler_fit fit;
  sk_ex_error err;
  size_t lo = 1, hi = (size_t)1 << 40; /* one chunk for these corpora */
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    int64_t chunks = 0;
    const int rc = sk_lda_esca_streamed_plan(m, &dev, &o, NULL, mid, &fit, &chunks, &err);
    if (rc != 0) {
      SK_CHECK(0, "counting chunks at %zu bytes: %s", mid, err.message);
      return 0;
    }
    if (fit.fits && chunks <= target) hi = mid;
    else lo = mid + 1;
  }
  int64_t chunks = 0;
  const int rc = sk_lda_esca_streamed_plan(m, &dev, &o, NULL, lo, &fit, &chunks, &err);
  if (!SK_CHECK(rc == 0 && fit.fits && chunks == target,
                "no budget gives %lld chunks with %d workers (%lld at %zu bytes: %s)", (long long)target, workers,
                (long long)chunks, lo, rc != 0 ? err.message : fit.fits ? "no error" : fit.why))
    return 0;
  return lo;
}

/* The resident run's z after each of the sweeps, and its final model. */
typedef struct reference {
  int32_t *z[kSweeps];
  sk_lda_model last;
} reference;

static int init_model(sk_lda_model *m, const sk_lda_corpus *c, int32_t K) {
  sk_ex_error err;
  return SK_CHECK(sk_lda_model_init(m, c, K, sk_lda_default_alpha(K), 0.01, 11, &err) == 0, "init: %s", err.message);
}

/* Sweeps [first, last] of sampler s (made on model m), each followed by to_host; with ref, z is compared
   after each (and the streamed state checked), else recorded into out (the reference run). */
static int sweeps(sk_lda_sampler *s, sk_lda_model *m, int first, int last, const reference *ref, reference *out,
                  const char *what) {
  sk_ex_error err;
  for (int it = first; it <= last; ++it) {
    if (!SK_CHECK(sk_lda_sampler_sweep(s, (uint64_t)it, &err) == 0 && sk_lda_sampler_to_host(s, &err) == 0,
                  "%s: sweep %d: %s", what, it, err.message))
      return 0;
    const size_t bytes = (size_t)m->num_tokens * sizeof(int32_t);
    if (out != NULL) {
      out->z[it - 1] = (int32_t *)malloc(bytes > 0 ? bytes : 1);
      memcpy(out->z[it - 1], m->z, bytes);
    } else if (memcmp(ref->z[it - 1], m->z, bytes) != 0) {
      int64_t t = 0;
      while (ref->z[it - 1][t] == m->z[t]) ++t;
      return SK_CHECK(0, "%s: sweep %d: z[%lld] = %d, the resident run's is %d", what, it, (long long)t, (int)m->z[t],
                      (int)ref->z[it - 1][t]);
    }
  }
  return 1;
}

static int make_reference(const sk_lda_corpus *c, int32_t K, reference *ref) {
  memset(ref, 0, sizeof *ref);
  sk_lda_sampler *s = NULL;
  sk_ex_error err;
  const sk_lda_device dev = gpu0(0);
  if (!init_model(&ref->last, c, K) ||
      !SK_CHECK(sk_lda_esca_resident_create(&ref->last, &dev, NULL, NULL, &s, &err) == 0, "resident create: %s",
                err.message))
    return 0;
  const int ok = SK_CHECK(!sk_lda_gpu_sampler_streaming(s), "the reference run must be resident") &&
                 sweeps(s, &ref->last, 1, kSweeps, NULL, ref, "resident");
  sk_lda_sampler_destroy(s);
  return ok;
}

static void free_reference(reference *ref) {
  for (int i = 0; i < kSweeps; ++i) free(ref->z[i]);
  sk_lda_model_free(&ref->last);
}

/* One streamed run of `chunks` chunks (0: forced streaming with one chunk, the pipeline's resident mode)
   and `workers` workers against the reference; with resume_at > 0 it is stopped after that sweep and a
   new sampler continues from the host model. */
static void streamed_run(const sk_lda_corpus *c, int32_t K, const reference *ref, int64_t chunks, int workers,
                         int resume_at, const char *corpus_name) {
  char what[160];
  snprintf(what, sizeof what, "%s K = %d, %lld chunks, %d workers%s", corpus_name, (int)K, (long long)chunks, workers,
           resume_at > 0 ? ", resumed" : "");
  sk_test_context("%s", what);
  sk_lda_model m;
  if (!init_model(&m, c, K)) return;
  sk_lda_esca_streamed_options o;
  memset(&o, 0, sizeof o);
  o.workers = workers;
  /* The streamed sampler itself, whatever the budget (small corpora would fit it resident): the budget
     decides the chunks. */
  const sk_lda_device dev = gpu0(chunks > 0 ? budget_for(&m, workers, chunks) : 0);
  sk_ex_error err;
  sk_lda_sampler *s = NULL;
  int ok = (chunks == 0 || dev.device_memory > 0) &&
           SK_CHECK(sk_lda_esca_streamed_create(&m, &dev, &o, NULL, &s, &err) == 0, "create: %s", err.message);
  if (ok) {
    sk_lda_sampler_stats st;
    sk_lda_sampler_get_stats(s, &st);
    const int64_t want = chunks == 0 ? 1 : chunks;
    const int want_workers = (int64_t)workers < want ? workers : (int)want;
    ok = SK_CHECK(sk_lda_gpu_sampler_streaming(s) && st.chunks == want && st.workers == want_workers,
                  "streaming %d, %lld chunks, %d workers; expected %lld and %d", sk_lda_gpu_sampler_streaming(s),
                  (long long)st.chunks, st.workers, (long long)want, want_workers);
  }
  const int stop = resume_at > 0 ? resume_at : kSweeps;
  if (ok) ok = sweeps(s, &m, 1, stop, ref, NULL, what);
  if (ok && resume_at > 0) {
    sk_lda_sampler_destroy(s);
    s = NULL;
    ok = SK_CHECK(sk_lda_esca_streamed_create(&m, &dev, &o, NULL, &s, &err) == 0, "create again: %s", err.message) &&
         sweeps(s, &m, resume_at + 1, kSweeps, ref, NULL, what);
  }
  if (ok) {
    sk_lda_sampler_stats st;
    sk_lda_sampler_get_stats(s, &st);
    printf("%s: %d sweeps equal the resident run's; per sweep %.3f ms, %.2f MB in, %.2f MB out\n", what, kSweeps,
           1e3 * st.wall_seconds / (double)st.sweeps, st.h2d_bytes / (double)st.sweeps / 1e6,
           st.d2h_bytes / (double)st.sweeps / 1e6);
    models_equal(&ref->last, &m, "A, B and n_k after the last sweep");
    if (chunks == 0) /* the first sweep uploads z, the plan and the offsets; later ones copy nothing */
      SK_CHECK(st.h2d_bytes <= (double)(m.num_tokens * 28 + ((int64_t)m.num_docs + 1) * 4 + 4096) &&
                   st.d2h_bytes == 0.0,
               "resident mode: %.0f bytes in and %.0f out over %lld sweeps: only the first sweep may copy in",
               st.h2d_bytes, st.d2h_bytes, (long long)st.sweeps);
  }
  sk_lda_sampler_destroy(s);
  sk_lda_model_free(&m);
}

/* Every budget and worker count of the issue on one corpus and K. */
static void test_corpus(const sk_lda_corpus *c, int32_t K, const char *name) {
  reference ref;
  sk_test_context("%s K = %d, resident", name, (int)K);
  if (make_reference(c, K, &ref)) {
    streamed_run(c, K, &ref, 0, 1, 0, name);
    const int64_t chunk_counts[] = {2, 7};
    const int worker_counts[] = {1, 2, 4};
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 3; ++j) streamed_run(c, K, &ref, chunk_counts[i], worker_counts[j], 0, name);
    streamed_run(c, K, &ref, 7, 4, 2, name); /* resumed after sweep 2 of 5 */
  }
  free_reference(&ref);
}

static sk_lda_corpus corpus_of_lengths(int32_t V, int32_t D, const int32_t *len) {
  int64_t T = 0;
  for (int32_t d = 0; d < D; ++d) T += len[d];
  int32_t *w = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *w);
  for (int64_t t = 0; t < T; ++t) w[t] = (int32_t)((t * 7 + 3) % V);
  sk_lda_corpus c = make_corpus(V, D, len, w);
  free(w);
  return c;
}

/* Chunks at their edges: one per document, one per token, empty documents at every cut. */
static void test_edges(void) {
  /* Any two neighbours hold more tokens than the longest document, so the least budget cuts them all. */
  static const int32_t varied[] = {5, 4, 5, 3, 5, 4};
  static const int32_t ones[] = {1, 1, 1, 1, 1, 1, 1, 1};
  static const int32_t empties[] = {0, 3, 0, 0, 4, 0, 2, 0, 5, 0};
  struct {
    const char *name;
    const int32_t *len;
    int32_t D;
    int64_t chunks;
  } cases[] = {{"a chunk per document", varied, 6, 6},
               {"a chunk per token", ones, 8, 8},
               {"empty documents at the cuts", empties, 10, 4}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    sk_lda_corpus c = corpus_of_lengths(10, cases[i].D, cases[i].len);
    for (int32_t K = 1; K <= 5; K += 4) {
      reference ref;
      sk_test_context("%s, K = %d, resident", cases[i].name, (int)K);
      if (make_reference(&c, K, &ref)) {
        streamed_run(&c, K, &ref, cases[i].chunks, 1, 0, cases[i].name);
        streamed_run(&c, K, &ref, cases[i].chunks, 3, 0, cases[i].name);
      }
      free_reference(&ref);
    }
    sk_lda_corpus_free(&c);
  }
}

/* Budgets too small: for the model, and for the one long document of a corpus. */
static void test_budget_errors(void) {
  static const corpus_shape shape = {300, 40, 30, 3000, 31};
  sk_lda_corpus c = make_case_corpus(&shape);
  sk_lda_model m;
  sk_test_context("budget errors");
  if (init_model(&m, &c, 16)) {
    sk_lda_esca_streamed_options o;
    memset(&o, 0, sizeof o);
    o.workers = 2;
    /* The streamed sampler itself: this corpus fits resident in the budgets below. */
    sk_lda_device dev = gpu0(1000);
    sk_lda_sampler *s = NULL;
    sk_ex_error err;
    int rc = sk_lda_esca_streamed_create(&m, &dev, &o, NULL, &s, &err);
    SK_CHECK(rc == SK_LDA_SAMPLER_BUDGET_ERROR && s == NULL && strstr(err.message, "the model alone needs") != NULL &&
                 strstr(err.message, "1000 bytes") != NULL,
             "1000 bytes: rc %d, '%s'", rc, rc != 0 ? err.message : "");
    /* The least budget that plans at all is where the long document just fits a worker alone. */
    const sk_lda_device plan_dev = gpu0(0);
    size_t lo = 1, hi = (size_t)1 << 30;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      int64_t chunks = 0;
      sk_lda_sampler_fit fit;
      if (sk_lda_esca_streamed_plan(&m, &plan_dev, &o, NULL, mid, &fit, &chunks, &err) == 0 && fit.fits) hi = mid;
      else lo = mid + 1;
    }
    dev.device_memory = lo - 1;
    rc = sk_lda_esca_streamed_create(&m, &dev, &o, NULL, &s, &err);
    SK_CHECK(rc == SK_LDA_SAMPLER_BUDGET_ERROR && s == NULL && strstr(err.message, "3000 tokens") != NULL &&
                 strstr(err.message, "bytes") != NULL,
             "%zu bytes: rc %d, '%s'", lo - 1, rc, rc != 0 ? err.message : "");
    printf("budget errors: '%s'\n", err.message);
    dev.device_memory = lo;
    rc = sk_lda_esca_streamed_create(&m, &dev, &o, NULL, &s, &err);
    SK_CHECK(rc == 0 && sk_lda_gpu_sampler_streaming(s), "%zu bytes: rc %d, '%s'", lo, rc,
             rc != 0 ? err.message : "");
    sk_lda_sampler_destroy(s);
    /* The exact sweep cannot stream: its budget error says so. */
    dev.device_memory = 1000;
    rc = sk_lda_esca_exact_create(&m, &dev, &s, &err);
    SK_CHECK(rc == SK_LDA_SAMPLER_BUDGET_ERROR && strstr(err.message, "exact sweep") != NULL, "exact: rc %d, '%s'",
             rc, rc != 0 ? err.message : "");
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&c);
}

int main(void) {
  if (!test_gpu_present(NULL, 0)) return SK_TEST_SKIP_CODE;
  test_budget_errors();
  test_edges();
  static const corpus_shape small = {200, 60, 25, 0, 41};
  sk_lda_corpus c = make_case_corpus(&small);
  test_corpus(&c, 20, "planted");
  /* Above K = 55,296 a block's B_hat row keeps its tail in global memory, per worker (esca_draw.cu). */
  test_corpus(&c, 65536, "planted");
  sk_lda_corpus_free(&c);
  if (!sk_test_under_sanitizer()) { /* the sanitizer run takes the small cases only */
    const char *names[] = {"kos", "20news"};
    for (size_t i = 0; i < 2; ++i) {
      sk_lda_corpus real;
      memset(&real, 0, sizeof real);
      if (!read_shared_corpus(names[i], &real)) continue;
      test_corpus(&real, 100, names[i]);
      test_corpus(&real, 1024, names[i]);
      sk_lda_corpus_free(&real);
    }
  }
  return sk_test_finish();
}
