/* The sampler of one rank of a multi-GPU run (ranks.h), a decorator around its documents' GPU ESCA
   sampler: the inner sampler gets the rank's link at create (its global token base, and the
   communicator as the sum of its counts over the ranks) and knows nothing else of the ranks; here are
   rank 0's commands to the others and z gathered on rank 0. */
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

/* What rank 0 broadcasts before each collective: the other ranks then enter the same one. */
enum { CMD_SWEEP = 1, CMD_GATHER = 2, CMD_STOP = 3 };

typedef struct ranked {
  sk_lda_sampler_ops ops;
  sk_lda_rank_context ctx;
  sk_lda_ranks_comm *comm;
  int owns_comm;        /* made by this sampler (else the context's, borrowed) */
  int32_t *doc_begin;   /* R + 1: the ranks' documents (sk_lda_rank_split()) */
  int64_t *tok_begin;   /* R + 1: their first tokens */
  sk_lda_corpus part;   /* this rank's documents: offsets rebased and owned, tokens borrowed from the corpus */
  sk_lda_model model;   /* their model: z and A of the part; B and n_k of the whole corpus */
  sk_lda_sampler *inner; /* their GPU ESCA sampler; NULL when the part has no token */
  size_t vk;            /* V x K */
  int stopped;          /* rank 0: the other ranks were told to stop */
  char description[1400]; /* the inner description and why it was chosen, then the ranks */
} ranked;

/* This rank's part of a sweep: its draws and the sum of B (or, without tokens, zeros into the sum). */
static int rank_sweep(ranked *r, uint64_t iteration, sk_ex_error *err) {
  if (r->inner != NULL) return sk_lda_sampler_sweep(r->inner, iteration, err);
  return sk_lda_ranks_comm_sum_i32(r->comm, NULL, NULL, r->vk, err);
}

/* This rank's part of a gather: its z to the host, then to rank 0, which gets all of it in `all`. */
static int rank_gather(ranked *r, int32_t *all, sk_ex_error *err) {
  if (r->inner != NULL && sk_lda_sampler_to_host(r->inner, err) != 0) return 1;
  return sk_lda_ranks_comm_gather_i32(r->comm, r->model.z, r->tok_begin, all, err);
}

/* Rank 0: tells the others what comes next. */
static int command(ranked *r, uint64_t what, uint64_t arg, sk_ex_error *err) {
  uint64_t words[2] = {what, arg};
  return sk_lda_ranks_comm_broadcast_u64(r->comm, words, 2, err);
}

static int ranked_sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  ranked *r = (ranked *)s->state;
  if (command(r, CMD_SWEEP, iteration, err) != 0) return 1;
  return rank_sweep(r, iteration, err);
}

/* z from every rank into the model, and A, B and n_k rebuilt from it on the host. */
static int ranked_to_host(sk_lda_sampler *s, sk_ex_error *err) {
  ranked *r = (ranked *)s->state;
  if (command(r, CMD_GATHER, 0, err) != 0 || rank_gather(r, s->model->z, err) != 0) return 1;
  return sk_lda_model_recount(s->model, s->device.threads, err);
}

/* One rank: the single-GPU sampler's own metric (on the device), the plain path's bits; several: on the
   host from the gathered model. */
static int ranked_joint_ll(sk_lda_sampler *s, double *ll_per_token, sk_ex_error *err) {
  ranked *r = (ranked *)s->state;
  if (r->ctx.num_ranks == 1 && r->inner != NULL) return sk_lda_sampler_joint_ll(r->inner, ll_per_token, err);
  if (ranked_to_host(s, err) != 0) return 1;
  *ll_per_token = sk_lda_joint_ll_per_token(s->model);
  return 0;
}

/* The held-out score reads B and n_k alone, which every resident rank holds whole on its device. */
static int ranked_heldout_ll(sk_lda_sampler *s, const sk_lda_corpus *observed, const sk_lda_corpus *heldout,
                             int fold_in_iters, double *ll_per_token, sk_ex_error *err) {
  ranked *r = (ranked *)s->state;
  if (r->inner != NULL && (r->ctx.num_ranks == 1 || r->inner->ops->heldout_ll != NULL))
    return sk_lda_sampler_heldout_ll(r->inner, observed, heldout, fold_in_iters, ll_per_token, err);
  if (ranked_to_host(s, err) != 0) return 1;
  return sk_lda_heldout_ll(s->model, observed, heldout, fold_in_iters, s->device.threads, ll_per_token, err);
}

static void ranked_stats(const sk_lda_sampler *s, sk_lda_sampler_stats *out) {
  const ranked *r = (const ranked *)s->state;
  if (r->inner != NULL) sk_lda_sampler_get_stats(r->inner, out);
  out->ranks = r->ctx.num_ranks;
  sk_lda_ranks_sum_stats sums;
  sk_lda_ranks_comm_stats(r->comm, &sums);
  out->sum_bytes = sums.sent_bytes;
  out->sum_seconds = sums.seconds;
  out->sums = sums.sums;
  out->sparse_sums = sums.sparse_sums;
}

static void ranked_free(ranked *r) {
  if (r == NULL) return;
  sk_lda_sampler_destroy(r->inner);
  if (r->owns_comm) sk_lda_ranks_comm_destroy(r->comm);
  sk_lda_model_free(&r->model);
  free(r->part.doc_offsets);
  free(r->doc_begin);
  free(r->tok_begin);
  free(r);
}

static void ranked_destroy(sk_lda_sampler *s) {
  ranked *r = (ranked *)s->state;
  if (r->ctx.rank == 0 && !r->stopped) {
    sk_ex_error ignored; /* after a failure the communicator is aborted and this fails at once */
    r->stopped = 1;
    (void)command(r, CMD_STOP, 0, &ignored);
  }
  ranked_free(r);
}

/* The part's corpus and model: z from the whole model, A rebuilt, B and n_k the whole model's. */
static int make_part(ranked *r, const sk_lda_model *m, sk_ex_error *err) {
  const int rank = r->ctx.rank;
  const int32_t d0 = r->doc_begin[rank], d1 = r->doc_begin[rank + 1];
  const int64_t t0 = r->tok_begin[rank], t1 = r->tok_begin[rank + 1];
  if (t1 == t0) return 0; /* no token: no sampler; the rank adds zeros to every sum */
  sk_lda_corpus *p = &r->part;
  p->num_docs = d1 - d0;
  p->num_words = m->num_words;
  p->num_tokens = t1 - t0;
  p->doc_offsets = (int64_t *)malloc(((size_t)p->num_docs + 1) * sizeof *p->doc_offsets);
  if (p->doc_offsets == NULL) return sk_ex_fail(err, "rank %d: out of host memory", rank);
  for (int32_t d = 0; d <= p->num_docs; ++d) p->doc_offsets[d] = m->corpus->doc_offsets[d0 + d] - t0;
  p->tokens = m->corpus->tokens + t0;
  p->vocab = NULL;
  if (sk_lda_model_init(&r->model, p, m->num_topics, m->alpha, m->beta, m->seed, err) != 0 ||
      sk_lda_model_set_z(&r->model, m->z + t0, err) != 0)
    return 1;
  memcpy(r->model.n_vk, m->n_vk, r->vk * sizeof *m->n_vk);
  memcpy(r->model.n_k, m->n_k, (size_t)m->num_topics * sizeof *m->n_k);
  return 0;
}

/* The rank's GPU ESCA sampler, chosen from the table (resident or streamed) with the rank's link. */
static int make_inner(ranked *r, const sk_lda_sampler_request *req, const sk_lda_device *device,
                      sk_lda_sampler_choice *choice, sk_ex_error *err) {
  const int rank = r->ctx.rank;
  if (r->tok_begin[rank + 1] == r->tok_begin[rank]) return 0; /* no token: no sampler */
  const sk_lda_rank_link link = {(uint64_t)r->tok_begin[rank], sk_lda_ranks_comm_count_sum(r->comm)};
  const sk_lda_sampler_request inner = {SK_LDA_SAMPLER_ESCA, 0, req->options, &link};
  return sk_lda_sampler_create_for(&inner, &r->model, device, &r->inner, choice, err);
}

int sk_lda_ranks_sampler_create(const sk_lda_rank_context *ctx, const sk_lda_sampler_request *req, sk_lda_model *m,
                                const sk_lda_device *device, sk_lda_sampler **out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "ranks: out is NULL");
  *out = NULL;
  if (ctx == NULL || req == NULL || m == NULL || m->z == NULL || m->corpus == NULL || device == NULL)
    return sk_ex_fail(err, "ranks: a pointer is NULL or the model is not initialised");
  if (req->kind != SK_LDA_SAMPLER_ESCA && req->kind != SK_LDA_SAMPLER_AUTO)
    return sk_ex_fail(err, "--gpus runs the ESCA sampler only; this run's sampler is %s",
                       sk_lda_sampler_kind_name(req->kind));
  if (device->kind != SK_LDA_DEVICE_GPU || req->exact || req->rank != NULL)
    return sk_ex_fail(err, "--gpus runs the fast GPU sweep only (not --device cpu, not --gpu-sweep exact)");
  if (ctx->num_ranks < 1 || ctx->num_ranks > SK_LDA_MAX_RANKS || ctx->rank < 0 || ctx->rank >= ctx->num_ranks)
    return sk_ex_fail(err, "ranks: rank %d of %d", ctx->rank, ctx->num_ranks);
  if (m->alpha_k != NULL) /* the ranks' models and samplers take the symmetric priors only */
    return sk_ex_fail(err, "--gpus trains with a symmetric alpha only; this run's priors were learnt "
                           "(--optimize-every): continue it on one GPU or the CPU");
  ranked *r = (ranked *)calloc(1, sizeof *r);
  if (r == NULL) return sk_ex_fail(err, "ranks: out of host memory");
  r->ctx = *ctx;
  r->vk = (size_t)m->num_words * (size_t)m->num_topics;
  const int R = ctx->num_ranks;
  r->doc_begin = (int32_t *)malloc(((size_t)R + 1) * sizeof *r->doc_begin);
  r->tok_begin = (int64_t *)malloc(((size_t)R + 1) * sizeof *r->tok_begin);
  int rc = r->doc_begin == NULL || r->tok_begin == NULL ? sk_ex_fail(err, "ranks: out of host memory") : 0;
  if (rc == 0) rc = sk_lda_rank_split(m->corpus->doc_offsets, m->num_docs, R, r->doc_begin, err);
  for (int i = 0; rc == 0 && i <= R; ++i) r->tok_begin[i] = m->corpus->doc_offsets[r->doc_begin[i]];
  if (rc == 0) rc = make_part(r, m, err);
  if (rc == 0 && ctx->comm != NULL) {
    r->comm = ctx->comm;
  } else if (rc == 0) { /* a collective: every rank joins before any makes its sampler */
    rc = sk_lda_ranks_comm_create(ctx->nccl_id, ctx->rank, R, ctx->gpu, ctx->timeout_seconds, &r->comm, err);
    r->owns_comm = rc == 0;
  }
  if (rc == 0) sk_lda_ranks_comm_set_exchange(r->comm, ctx->exchange);
  sk_lda_sampler_choice choice;
  memset(&choice, 0, sizeof choice); /* a rank without tokens chooses nothing */
  if (rc == 0) rc = make_inner(r, req, device, &choice, err);
  const char *why = choice.why;
  if (rc != 0) {
    ranked_free(r);
    return rc;
  }
  const int rank = ctx->rank;
  snprintf(r->description, sizeof r->description,
           "%s%s%s%s on %d GPUs through NCCL (rank %d: documents %d to %d, tokens %lld to %lld, B summed over the "
           "ranks every sweep: %.1f MB of int32, %s)",
           r->inner != NULL ? r->inner->ops->description : "ESCA (GPU, no tokens on this rank)", why[0] ? " [" : "",
           why, why[0] ? "]" : "", R, rank, (int)r->doc_begin[rank], (int)r->doc_begin[rank + 1],
           (long long)r->tok_begin[rank], (long long)r->tok_begin[rank + 1], (double)r->vk * 4.0 / 1e6,
           ctx->exchange == SK_LDA_EXCHANGE_DENSE ? "all-reduced" : "sparse entries when smaller");
  r->ops.name = sk_lda_sampler_kind_name(SK_LDA_SAMPLER_ESCA);
  r->ops.description = r->description;
  r->ops.sweep = ranked_sweep;
  r->ops.to_host = ranked_to_host;
  r->ops.destroy = ranked_destroy;
  r->ops.joint_ll = ranked_joint_ll;
  r->ops.heldout_ll = ranked_heldout_ll;
  r->ops.stats = ranked_stats;
  r->ops.no_priors = "--gpus N trains with fixed symmetric priors (learning them needs one device: drop --gpus)";
  if (sk_lda_sampler_wrap(&r->ops, r, m, device, out, err) != 0) {
    r->stopped = 1;
    ranked_free(r);
    return 1;
  }
  return 0;
}

int sk_lda_ranks_serve(sk_lda_sampler *s, sk_ex_error *err) {
  if (s == NULL || s->ops->sweep != ranked_sweep) return sk_ex_fail(err, "ranks: serve: not a ranked sampler");
  ranked *r = (ranked *)s->state;
  if (r->ctx.rank == 0) return sk_ex_fail(err, "ranks: serve: rank 0 runs the run, it does not serve");
  for (;;) {
    uint64_t words[2] = {0, 0};
    if (sk_lda_ranks_comm_broadcast_u64(r->comm, words, 2, err) != 0) return 1;
    if (words[0] == CMD_STOP) return 0;
    if (words[0] == CMD_SWEEP) {
      if (rank_sweep(r, words[1], err) != 0) return 1;
    } else if (words[0] == CMD_GATHER) {
      if (rank_gather(r, NULL, err) != 0) return 1;
    } else {
      return sk_ex_fail(err, "rank %d: unknown command %llu from rank 0", r->ctx.rank, (unsigned long long)words[0]);
    }
  }
}

void sk_lda_ranks_sampler_range(const sk_lda_sampler *s, int64_t *first, int64_t *end) {
  const int ours = s != NULL && s->ops->sweep == ranked_sweep;
  const ranked *r = ours ? (const ranked *)s->state : NULL;
  if (first != NULL) *first = ours ? r->tok_begin[r->ctx.rank] : 0;
  if (end != NULL) *end = ours ? r->tok_begin[r->ctx.rank + 1] : 0;
}

const sk_lda_model *sk_lda_ranks_sampler_part(const sk_lda_sampler *s) {
  if (s == NULL || s->ops->sweep != ranked_sweep) return NULL;
  const ranked *r = (const ranked *)s->state;
  return r->inner != NULL ? &r->model : NULL;
}
