/*
 * The table of samplers (examples/lda/src/sampler.h, sampler_table.c): each GPU sampler's fits() at its
 * boundary, and the choice --sampler auto and the fall-back to streaming make from the table.
 *
 * fits() at the boundary, for the resident ESCA, the exact ESCA, AGA-LDA and the streamed ESCA on a
 * planted corpus: fits() at a large budget gives the bytes needed, N. Then fits(N) says yes and
 * fits(N - 1) says no, naming the bytes; a sampler created with --device-memory N runs a sweep, and
 * one created with N - 1 is refused with SK_LDA_SAMPLER_BUDGET_ERROR before anything is allocated.
 * For the resident samplers N is exactly the device memory create allocates (the statistics' peak
 * before any metric); for the streamed one it is the least budget its chunk planner accepts.
 *
 * The choice: on every case the CLI's tests cover (cli_test.cmake, stream_resume.sh, ranks_cli.sh),
 * sk_lda_sampler_choose() picks what the rule before the table picked: on the CPU ESCA for auto and
 * esca, CGS for cgs, AGA refused; on a GPU AGA up to K = 128 and ESCA above for auto, ESCA when AGA does
 * not fit the budget, the resident ESCA when it fits and the streamed one when it does not, the exact
 * sweep when asked, ESCA for a rank's auto; CGS on a GPU refused naming the CPU.
 *
 * With --host (ctest test_sampler_table_host, label cpu) only the checks that need no GPU run; without a
 * GPU the rest exits 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/aga_sampler.h"
#include "gpu/esca_exact.h"
#include "gpu/esca_resident.h"
#include "gpu/esca_streamed.h"
#include "lda_test_gpu.h"
#include "sampler_table.h"

static const sk_lda_device kGpu = {SK_LDA_DEVICE_GPU, 0, 0, 0};
static const sk_lda_device kCpu = {SK_LDA_DEVICE_CPU, 0, 1, 0};

/* The entry sk_lda_sampler_choose() picks for the request ("" when it fails: *unfit then tells why). */
static const char *chosen(const sk_lda_sampler_request *req, const sk_lda_model *m, const sk_lda_device *device,
                          int *unfit, char *why, size_t cap) {
  sk_lda_sampler_choice c;
  sk_ex_error err;
  const int rc = sk_lda_sampler_choose(req, m, device, &c, &err);
  if (unfit != NULL) *unfit = c.unfit;
  if (why != NULL && cap > 0) { /* copied by hand: a format would be a truncation warning (an error here) */
    const char *src = rc == 0 ? c.why : err.message;
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(why, src, n);
    why[n] = '\0';
  }
  return rc == 0 ? c.entry->name : "";
}

/* ---- without a GPU ---------------------------------------------------------------------------------- */

static void test_host(void) {
  sk_test_context("the table and the CPU's choices");
  int count = 0;
  const sk_lda_sampler_entry *t = sk_lda_sampler_table(&count);
  SK_CHECK(t != NULL && count == 6, "the table has %d rows (cgs and esca on the CPU, four on the GPU)", count);
  for (int i = 0; i < count; ++i)
    printf("  %-14s %-4s %s\n", t[i].name, t[i].device == SK_LDA_DEVICE_GPU ? "GPU" : "CPU", t[i].summary);
  const char *gpu_names[] = {"esca", "esca-streamed", "esca-exact", "aga"};
  for (int i = 0; i < 4; ++i)
    SK_CHECK(sk_lda_sampler_find(gpu_names[i], SK_LDA_DEVICE_GPU) != NULL, "%s is not on the GPU", gpu_names[i]);
  SK_CHECK(sk_lda_sampler_find("cgs", SK_LDA_DEVICE_CPU) != NULL && sk_lda_sampler_find("esca", SK_LDA_DEVICE_CPU) != NULL &&
               sk_lda_sampler_find("cgs", SK_LDA_DEVICE_GPU) == NULL && sk_lda_sampler_find("aga", SK_LDA_DEVICE_CPU) == NULL &&
               sk_lda_sampler_find(NULL, SK_LDA_DEVICE_CPU) == NULL,
           "the table's CPU rows");
  sk_lda_corpus c = make_case_corpus(&(corpus_shape){50, 10, 10, 0, 3});
  sk_lda_model m;
  sk_ex_error err;
  if (!SK_CHECK(sk_lda_model_init(&m, &c, 4, 0.5, 0.1, 1, &err) == 0, "init: %s", err.message)) return;
  char why[600];
  int unfit = 0;
  sk_lda_sampler_request req = {SK_LDA_SAMPLER_AUTO, 0, NULL, NULL};
  SK_CHECK(strcmp(chosen(&req, &m, &kCpu, NULL, why, sizeof why), "esca") == 0 && strstr(why, "ESCA on the CPU"),
           "auto on the CPU: %s", why);
  req.kind = SK_LDA_SAMPLER_ESCA;
  SK_CHECK(strcmp(chosen(&req, &m, &kCpu, NULL, why, sizeof why), "esca") == 0, "esca on the CPU: %s", why);
  req.kind = SK_LDA_SAMPLER_CGS;
  SK_CHECK(strcmp(chosen(&req, &m, &kCpu, NULL, why, sizeof why), "cgs") == 0, "cgs on the CPU: %s", why);
  SK_CHECK(strcmp(chosen(&req, &m, &kGpu, &unfit, why, sizeof why), "") == 0 && !unfit && strstr(why, "CPU only"),
           "cgs on the GPU: %s", why);
  req.kind = SK_LDA_SAMPLER_AGA;
  SK_CHECK(strcmp(chosen(&req, &m, &kCpu, &unfit, why, sizeof why), "") == 0 && !unfit && strstr(why, "GPU only"),
           "aga on the CPU: %s", why);
  const sk_lda_device automatic = {SK_LDA_DEVICE_AUTO, 0, 0, 0};
  req.kind = SK_LDA_SAMPLER_ESCA;
  SK_CHECK(strcmp(chosen(&req, &m, &automatic, NULL, why, sizeof why), "") == 0 && strstr(why, "resolve"),
           "an unresolved device: %s", why);
  uint64_t budget = 1;
  SK_CHECK(sk_lda_device_budget(&kCpu, &budget, NULL, &err) == 0 && budget == 0, "the CPU's budget %llu",
           (unsigned long long)budget);
  sk_lda_model_free(&m);
  sk_lda_corpus_free(&c);
}

/* ---- fits() at the boundary -------------------------------------------------------------------------- */

/* One sampler's fits and create, through the table's entry (the GPU ones read their own options). */
static int entry_fits(const char *name, const sk_lda_model *m, const sk_lda_device *d, uint64_t budget,
                      sk_lda_sampler_fit *fit) {
  sk_ex_error err;
  const sk_lda_sampler_entry *e = sk_lda_sampler_find(name, SK_LDA_DEVICE_GPU);
  return SK_CHECK(e != NULL && e->fits(m, d, NULL, NULL, budget, fit, &err) == 0, "%s fits: %s", name,
                  e != NULL ? err.message : "no entry");
}

static void test_boundary(const char *name, sk_lda_model *m) {
  sk_test_context("%s: fits() at its boundary (K = %d, T = %lld)", name, (int)m->num_topics, (long long)m->num_tokens);
  sk_lda_sampler_fit fit;
  /* the streamed sampler's least budget shows where the planner cuts: ask it at a budget below it */
  const uint64_t probe = strcmp(name, "esca-streamed") == 0 ? 4096 : (uint64_t)1 << 40;
  if (!entry_fits(name, m, &kGpu, probe, &fit)) return;
  const uint64_t need = fit.needed_bytes;
  SK_CHECK(need > 0 && fit.available_bytes == probe, "%s: needs %llu bytes at a budget of %llu", name,
           (unsigned long long)need, (unsigned long long)probe);
  sk_lda_sampler_fit at, below;
  if (!entry_fits(name, m, &kGpu, need, &at) || !entry_fits(name, m, &kGpu, need - 1, &below)) return;
  SK_CHECK(at.fits && at.needed_bytes <= need, "%s: %llu bytes (what it needs) do not fit: %s", name,
           (unsigned long long)need, at.why);
  SK_CHECK(!below.fits && below.needed_bytes >= need && strstr(below.why, "bytes") != NULL,
           "%s: %llu bytes (one short) fit or say no bytes: '%s'", name, (unsigned long long)(need - 1), below.why);
  printf("%-14s needs %9llu bytes; one byte short: %s\n", name, (unsigned long long)need, below.why);
  const sk_lda_sampler_entry *e = sk_lda_sampler_find(name, SK_LDA_DEVICE_GPU);
  sk_lda_device d = kGpu;
  sk_lda_sampler *s = NULL;
  sk_ex_error err;
  d.device_memory = need - 1;
  const int rc = e->create(m, &d, NULL, NULL, &s, &err);
  SK_CHECK(rc == SK_LDA_SAMPLER_BUDGET_ERROR && s == NULL, "%s: created with one byte short (rc %d: %s)", name, rc,
           rc != 0 ? err.message : "");
  d.device_memory = need;
  if (SK_CHECK(e->create(m, &d, NULL, NULL, &s, &err) == 0, "%s: create with exactly enough: %s", name, err.message)) {
    sk_lda_sampler_stats st;
    sk_lda_sampler_get_stats(s, &st);
    if (strcmp(name, "esca-streamed") != 0)
      SK_CHECK(st.device_bytes_peak == (int64_t)need, "%s: fits() said %llu bytes, create allocated %lld", name,
               (unsigned long long)need, (long long)st.device_bytes_peak);
    SK_CHECK(sk_lda_sampler_sweep(s, 1, &err) == 0 && sk_lda_sampler_to_host(s, &err) == 0, "%s: a sweep: %s", name,
             err.message);
    SK_CHECK(counts_match_z(m, name), "%s: counts after a sweep", name);
  }
  sk_lda_sampler_destroy(s);
}

/* ---- the choice on a GPU ----------------------------------------------------------------------------- */

static void expect(const char *what, const sk_lda_sampler_request *req, const sk_lda_model *m, const sk_lda_device *d,
                   const char *want, const char *why_has) {
  char why[600];
  int unfit = 0;
  const char *got = chosen(req, m, d, &unfit, why, sizeof why);
  SK_CHECK(strcmp(got, want) == 0 && (why_has == NULL || strstr(why, why_has) != NULL),
           "%s: chose '%s' (%s), the rule picks '%s'%s%s", what, got, why, want, why_has ? " saying " : "",
           why_has ? why_has : "");
  printf("%-44s -> %-14s %s\n", what, got[0] ? got : "(none)", why);
}

static void test_choice(const sk_lda_corpus *c) {
  sk_lda_model m128, m129, m4;
  sk_ex_error err;
  sk_test_context("the choice on a GPU");
  if (!SK_CHECK(sk_lda_model_init(&m128, c, 128, 0.4, 0.01, 5, &err) == 0 &&
                    sk_lda_model_init(&m129, c, 129, 0.4, 0.01, 5, &err) == 0 &&
                    sk_lda_model_init(&m4, c, 4, 0.5, 0.01, 5, &err) == 0,
                "init: %s", err.message))
    return;
  sk_lda_sampler_request req = {SK_LDA_SAMPLER_AUTO, 0, NULL, NULL};
  expect("auto, K = 128", &req, &m128, &kGpu, "aga", "AGA-LDA up to K = 128");
  expect("auto, K = 129", &req, &m129, &kGpu, "esca", "ESCA above K = 128");
  /* a budget below AGA's and the resident ESCA's needs but above the streamed one's */
  sk_lda_sampler_fit aga, resident, streamed;
  if (entry_fits("aga", &m4, &kGpu, (uint64_t)1 << 40, &aga) && entry_fits("esca", &m4, &kGpu, (uint64_t)1 << 40, &resident) &&
      entry_fits("esca-streamed", &m4, &kGpu, 4096, &streamed)) {
    const uint64_t low = streamed.needed_bytes + 1024;
    SK_CHECK(low < aga.needed_bytes && low < resident.needed_bytes, "no budget between: streamed %llu, AGA %llu, "
             "resident %llu", (unsigned long long)streamed.needed_bytes, (unsigned long long)aga.needed_bytes,
             (unsigned long long)resident.needed_bytes);
    sk_lda_device small = kGpu;
    small.device_memory = low;
    expect("auto, K = 4, AGA over the budget", &req, &m4, &small, "esca-streamed", "ESCA instead");
    req.kind = SK_LDA_SAMPLER_ESCA;
    expect("esca, over the resident budget", &req, &m4, &small, "esca-streamed", "resident it needs");
    small.device_memory = 1000;
    int unfit = 0;
    char why[600];
    SK_CHECK(strcmp(chosen(&req, &m4, &small, &unfit, why, sizeof why), "") == 0 && unfit && strstr(why, "bytes"),
             "esca at 1000 bytes: unfit %d, '%s'", unfit, why);
    req.kind = SK_LDA_SAMPLER_AGA;
    SK_CHECK(strcmp(chosen(&req, &m4, &small, &unfit, why, sizeof why), "") == 0 && unfit, "aga at 1000 bytes: %s", why);
  }
  req.kind = SK_LDA_SAMPLER_ESCA;
  expect("esca", &req, &m4, &kGpu, "esca", NULL);
  req.exact = 1;
  expect("esca, --gpu-sweep exact", &req, &m4, &kGpu, "esca-exact", NULL);
  req.exact = 0;
  req.kind = SK_LDA_SAMPLER_AGA;
  expect("aga, K = 4", &req, &m4, &kGpu, "aga", NULL);
  const sk_lda_rank_link link = {0, {NULL, NULL}};
  req.kind = SK_LDA_SAMPLER_AUTO;
  req.rank = &link;
  expect("auto, a rank of several GPUs, K = 4", &req, &m4, &kGpu, "esca", NULL);
  req.kind = SK_LDA_SAMPLER_AGA;
  expect("aga, a rank of several GPUs", &req, &m4, &kGpu, "", "ESCA");
  sk_lda_model_free(&m128);
  sk_lda_model_free(&m129);
  sk_lda_model_free(&m4);
}

int main(int argc, char **argv) {
  test_host();
  if (sk_test_wants_host_only(argc, argv)) return sk_test_finish();
  if (!test_gpu_present(NULL, 0)) return SK_TEST_SKIP_CODE;
  const corpus_shape shape = {300, 60, 40, 2000, 21};
  sk_lda_corpus c = make_case_corpus(&shape);
  sk_lda_model m;
  sk_ex_error err;
  const char *names[] = {"esca", "esca-exact", "aga", "esca-streamed"};
  for (int i = 0; i < 4; ++i) {
    if (!SK_CHECK(sk_lda_model_init(&m, &c, 24, 0.5, 0.01, 7, &err) == 0, "init: %s", err.message)) break;
    test_boundary(names[i], &m);
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&c);
  /* many short documents: the resident samplers need far more than the streamed one's least budget */
  const corpus_shape many = {300, 400, 40, 0, 22};
  c = make_case_corpus(&many);
  test_choice(&c);
  sk_lda_corpus_free(&c);
  return sk_test_finish();
}
