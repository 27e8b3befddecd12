/*
 * sk-lda on several GPUs (examples/lda/src/ranks.h) against one GPU: R ranks (one process per GPU,
 * started by the launcher, a NCCL communicator of R ranks) sample KOS and 20 Newsgroups at K = 100 and
 * 1,024 for 5 sweeps, and after every sweep the gathered model (z, A, B, n_k) must equal, bit for bit,
 * the single-GPU sampler's, run beside it on rank 0's GPU; so must rank 0's part as its device holds
 * it (its z and A, and B and n_k: the sums over the ranks), and the joint log-likelihood (bit for bit
 * with one rank, whose metrics are the single-GPU sampler's; to 1e-12 with more, computed on the
 * host). One case streams rank 0's part (a small --device-memory) where it does not fit. The sums of B
 * are the default's (sparse entries where they are smaller: every sum at K = 1,024 with R > 1, checked),
 * and once the dense all-reduce's (kos, K = 1,024).
 *
 * R = 1 runs wherever there is a GPU (a communicator of one rank); R = 2 and 4 run when this host has
 * that many GPUs, and are left out, said, otherwise (`test_ranks_gpu 2` runs R = 2 only). Without a GPU
 * it exits 77. The GPUs are counted in a child process, so that this one starts the ranks before any
 * CUDA call (fork after CUDA is not allowed). The corpora come from ../shared/data or .data; a planted
 * corpus runs first, with them or without.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lda_test_gpu.h"
#include "ranks.h"
#include "sampler_table.h"

enum { kSweeps = 5 };

/* The GPUs CUDA can use (up to 16), counted in a child process; 0 with the reason said when none. */
static int count_gpus(void) {
  fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    int n = 0;
    sk_ex_error err;
    while (n < 16 && sk_ex_gpu_probe(n, NULL, 0, &err) == 0) ++n;
    if (n == 0) printf("SKIP: %s; this test needs a GPU\n", err.message);
    fflush(stdout);
    _exit(n);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 0;
  return WEXITSTATUS(status);
}

/* Rank 0: the part's z, A and (resident) B and n_k against the single-GPU model ref. */
static int part_equal(const sk_lda_sampler *s, const sk_lda_model *ref, int with_b, const char *when) {
  const sk_lda_model *p = sk_lda_ranks_sampler_part(s);
  if (p == NULL) return SK_CHECK(1, "%s: rank 0 has no token", when);
  int64_t t0 = 0, t1 = 0;
  sk_lda_ranks_sampler_range(s, &t0, &t1);
  if (!SK_CHECK(t0 == 0 && p->num_tokens == t1 - t0 && p->num_docs <= ref->num_docs,
                "%s: the part has %lld tokens, its range is [%lld, %lld)", when, (long long)p->num_tokens,
                (long long)t0, (long long)t1))
    return 0;
  for (int64_t t = 0; t < p->num_tokens; ++t)
    if (p->z[t] != ref->z[t0 + t])
      return SK_CHECK(0, "%s: rank 0's z[%lld] = %d, one GPU's %d", when, (long long)(t0 + t), (int)p->z[t],
                      (int)ref->z[t0 + t]);
  /* rank 0's documents are the first p->num_docs (sk_lda_rank_split(): the ranges start at 0) */
  for (int32_t d = 0; d < p->num_docs; ++d) {
    const int32_t g = d;
    if (!SK_CHECK(p->dk_nnz[d] == ref->dk_nnz[g], "%s: rank 0's document %d has %d topics, one GPU's %d", when,
                  (int)g, (int)p->dk_nnz[d], (int)ref->dk_nnz[g]))
      return 0;
    for (int32_t i = 0; i < p->dk_nnz[d]; ++i)
      if (p->dk_topic[p->dk_start[d] + i] != ref->dk_topic[ref->dk_start[g] + i] ||
          p->dk_count[p->dk_start[d] + i] != ref->dk_count[ref->dk_start[g] + i])
        return SK_CHECK(0, "%s: rank 0's document %d pair %d differs from one GPU's", when, (int)g, (int)i);
  }
  if (!with_b) return 1;
  const size_t vk = (size_t)ref->num_words * (size_t)ref->num_topics;
  if (!SK_CHECK(memcmp(p->n_vk, ref->n_vk, vk * sizeof *p->n_vk) == 0, "%s: rank 0's device B differs from one GPU's",
                when))
    return 0;
  return SK_CHECK(memcmp(p->n_k, ref->n_k, (size_t)ref->num_topics * sizeof *p->n_k) == 0,
                  "%s: rank 0's device n_k differs from one GPU's", when);
}

/* One case on every rank: `corpus` at K topics, rank 0's GPU sampler budget device_memory (0: default). */
static int run_case(const sk_lda_rank_context *ctx, const sk_lda_corpus *corpus, const char *name, int32_t K,
                    uint64_t device_memory) {
  char when[200];
  snprintf(when, sizeof when, "%s, K = %d, R = %d%s%s", name, (int)K, ctx->num_ranks,
           device_memory > 0 ? ", small budget" : "", ctx->exchange == SK_LDA_EXCHANGE_DENSE ? ", dense sums" : "");
  sk_test_context("%s", when);
  sk_ex_error err;
  sk_lda_model m, ref;
  memset(&ref, 0, sizeof ref);
  if (!SK_CHECK(sk_lda_model_init(&m, corpus, K, sk_lda_default_alpha(K), 0.01, 11, &err) == 0, "init: %s",
                err.message))
    return 0;
  sk_lda_device dev;
  memset(&dev, 0, sizeof dev);
  dev.kind = SK_LDA_DEVICE_GPU;
  dev.gpu = ctx->gpu;
  dev.device_memory = device_memory;
  sk_lda_sampler *s = NULL, *one = NULL;
  const sk_lda_sampler_request req = {.kind = SK_LDA_SAMPLER_ESCA}; /* the ranked sampler makes its own rank link */
  int ok = SK_CHECK(sk_lda_ranks_sampler_create(ctx, &req, &m, &dev, &s, &err) == 0,
                    "rank %d: ranked sampler: %s", ctx->rank, err.message);
  if (!ok && ctx->rank == 0) { /* the others serve a sampler that rank 0 has not: end, they are ended */
    fflush(stdout);
    _exit(sk_test_finish());
  }
  if (ctx->rank != 0) {
    ok = ok && sk_lda_ranks_serve(s, &err) == 0;
    if (!ok) { /* out of step with rank 0 from here: end, and the launcher ends the others */
      fprintf(stderr, "test_ranks_gpu: %s: rank %d: %s\n", when, ctx->rank, err.message);
      fflush(stderr);
      _exit(1);
    }
  } else if (ok) {
    sk_lda_device plain = dev;
    plain.device_memory = 0;
    ok = SK_CHECK(sk_lda_model_init(&ref, corpus, K, sk_lda_default_alpha(K), 0.01, 11, &err) == 0 &&
                      sk_lda_sampler_create(SK_LDA_SAMPLER_ESCA, &ref, &plain, &one, &err) == 0,
                  "the single-GPU sampler: %s", err.message);
    const int streamed = s != NULL && strstr(s->ops->description, "streamed") != NULL;
    sk_lda_sampler_stats before; /* the communicator's figures are the whole test's: this case's are the change */
    sk_lda_sampler_get_stats(s, &before);
    printf("%s: %s\n", when, s->ops->description);
    for (int it = 1; ok && it <= kSweeps; ++it) {
      char at[240];
      snprintf(at, sizeof at, "%s, sweep %d", when, it);
      ok = SK_CHECK(sk_lda_sampler_sweep(s, (uint64_t)it, &err) == 0, "%s: ranked sweep: %s", at, err.message) &&
           SK_CHECK(sk_lda_sampler_sweep(one, (uint64_t)it, &err) == 0, "%s: one GPU: %s", at, err.message);
      double ll_ranks = 0, ll_one = 0;
      ok = ok && SK_CHECK(sk_lda_sampler_joint_ll(s, &ll_ranks, &err) == 0 &&
                              sk_lda_sampler_joint_ll(one, &ll_one, &err) == 0,
                          "%s: joint LL: %s", at, err.message);
      if (ok && ctx->num_ranks == 1 && !streamed)
        ok = SK_CHECK(ll_ranks == ll_one, "%s: joint LL %.17g, one GPU's %.17g", at, ll_ranks, ll_one);
      else if (ok)
        ok = SK_CHECK(fabs(ll_ranks - ll_one) <= 1e-12 * fabs(ll_one), "%s: joint LL %.17g, one GPU's %.17g", at,
                      ll_ranks, ll_one);
      ok = ok && SK_CHECK(sk_lda_sampler_to_host(s, &err) == 0 && sk_lda_sampler_to_host(one, &err) == 0,
                          "%s: to host: %s", at, err.message);
      ok = ok && models_equal(&ref, &m, at) && part_equal(s, &ref, !streamed || ctx->num_ranks == 1, at);
    }
    /* which sums ran: never sparse when dense is asked for or with one rank; sparse at K = 1,024 (B's
       nonzeros are far fewer than half its entries there) */
    sk_lda_sampler_stats st;
    sk_lda_sampler_get_stats(s, &st);
    st.sums -= before.sums;
    st.sparse_sums -= before.sparse_sums;
    st.sum_bytes -= before.sum_bytes;
    printf("%s: %lld of %lld sums sparse, %.2f MB sent a sweep\n", when, (long long)st.sparse_sums,
           (long long)st.sums, st.sums > 0 ? st.sum_bytes / (double)st.sums / 1e6 : 0.0);
    if (ok && (ctx->exchange == SK_LDA_EXCHANGE_DENSE || ctx->num_ranks == 1))
      ok = SK_CHECK(st.sparse_sums == 0, "%s: %lld sparse sums", when, (long long)st.sparse_sums);
    else if (ok && K == 1024)
      ok = SK_CHECK(st.sparse_sums == st.sums && st.sums == kSweeps, "%s: %lld of %lld sums sparse", when,
                    (long long)st.sparse_sums, (long long)st.sums);
  }
  sk_lda_sampler_destroy(s); /* rank 0: tells the others to stop */
  sk_lda_sampler_destroy(one);
  sk_lda_model_free(&ref);
  sk_lda_model_free(&m);
  return ok;
}

/* Every case, on every rank, in the same order, through one communicator (an id makes one only);
   returns the rank's exit status. */
static int rank_main(const sk_lda_rank_context *launched) {
  static const char *const names[] = {"kos", "20news"};
  static const int32_t topics[] = {100, 1024};
  sk_lda_rank_context shared = *launched, *ctx = &shared;
  sk_ex_error err;
  if (sk_lda_ranks_comm_create(ctx->nccl_id, ctx->rank, ctx->num_ranks, ctx->gpu, ctx->timeout_seconds, &shared.comm,
                               &err) != 0) {
    fprintf(stderr, "test_ranks_gpu: rank %d: the communicator: %s\n", ctx->rank, err.message);
    return 1;
  }
  int ok = 1;
  /* A planted corpus (empty, one-token and one long document among them), which needs no data:
     without ../shared/data the test still checks the ranks. */
  const corpus_shape planted = {.V = 700, .planted_docs = 400, .mean_len = 60, .long_doc = 3000, .seed = 29};
  sk_lda_corpus made = make_case_corpus(&planted);
  ok = run_case(ctx, &made, "planted", 100, 0) && ok;
  sk_lda_corpus_free(&made);
  for (int c = 0; c < 2; ++c) {
    sk_lda_corpus corpus;
    memset(&corpus, 0, sizeof corpus);
    if (!read_shared_corpus(names[c], &corpus)) continue;
    for (int k = 0; k < 2; ++k) ok = run_case(ctx, &corpus, names[c], topics[k], 0) && ok;
    /* the dense all-reduce, which the sparse exchange replaces where it is smaller */
    shared.exchange = SK_LDA_EXCHANGE_DENSE;
    if (c == 0) ok = run_case(ctx, &corpus, names[c], 1024, 0) && ok;
    shared.exchange = SK_LDA_EXCHANGE_AUTO;
    /* a budget that streams kos's part on one rank (and maybe not on more: it says which) */
    if (c == 0) ok = run_case(ctx, &corpus, names[c], 100, (uint64_t)16 << 20) && ok;
    sk_lda_corpus_free(&corpus);
  }
  sk_lda_ranks_comm_destroy(shared.comm);
  if (ctx->rank != 0) return ok ? 0 : 1;
  return sk_test_finish();
}

int main(int argc, char **argv) {
  const int gpus = count_gpus();
  if (gpus == 0) return SK_TEST_SKIP_CODE;
  int wanted[3] = {1, 2, 4}, num_wanted = 3;
  if (argc > 1) wanted[0] = (int)sk_test_parse_long("test_ranks_gpu R", argv[1], 1, 16), num_wanted = 1;
  printf("%d GPUs here\n", gpus);
  for (int i = 0; i < num_wanted; ++i) {
    const int R = wanted[i];
    if (R < 1 || R > gpus) {
      printf("R = %d: this host has %d GPUs: left out\n", R, gpus);
      continue;
    }
    sk_test_context("R = %d", R);
    sk_lda_rank_context ctx;
    int is_rank = 0;
    sk_ex_error err;
    err.message[0] = '\0';
    const int status = sk_lda_ranks_launch(R, 300.0, NULL, sk_lda_ranks_nccl_make_id, &ctx, &is_rank, &err);
    if (is_rank) {
      const int rc = rank_main(&ctx);
      fflush(stdout);
      fflush(stderr);
      _exit(rc);
    }
    SK_CHECK(status == 0, "R = %d: the ranks ended with status %d %s", R, status, err.message);
  }
  return sk_test_finish();
}
