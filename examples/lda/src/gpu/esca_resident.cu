// GPU ESCA with the corpus resident (esca_resident.h): its arrays, fits, create and the sweep's sequence.
// The draw kernel is esca_draw.cu; the state and the epilogue are gpu_state.cu.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/esca_draw.cuh"
#include "gpu/esca_resident.h"
#include "gpu/gpu_sampler.cuh"
#include "gpu/pdow_plan_gpu.h"
#include "pdow_plan.h"
#include "samplekit/segmented_count.h"

#define SK_EX_CUDA_SCOPE "GPU ESCA"
#include "sk_ex_cuda_check.cuh"

namespace sk_lda_gpu {
namespace {

// And kStateNext or kStateTouched. kStatePackedA: the draws read A's pairs in 4 bytes each (state_init()
// keeps it when topics and counts fit 16 bits).
constexpr unsigned kParts = kStateDocuments | kStateInverse | kStateSegments | kStatePackedA;

// Whether the draws count into B and mark what they count (gpu_state.cuh's touched part) rather than into
// a V x K array of next counts that the epilogue reads whole. The choice when the options leave it: the
// marks on one GPU (the ranks sum the next array) when V K >= 8 T. Why 8: the dense epilogue costs about
// 2.6 ns per 1,000 entries of V x K, the marks about 14 ns per 1,000 tokens in the draws (their RED.OR),
// so they break even near V K = 5.4 T; measured on an H200 (bench/RESULTS.md) the marks won on kos, 20news
// and at every K = 10,000 (V K >= 8.8 T) and lost on imdb100k (3.6 T) and the NYTimes-scale corpus (1.1 T)
// at K = 1,024. SK_LDA_NEXT_COUNTS=dense|sparse in the environment overrides the choice, never the options.
int next_counts_sparse(const sk_lda_model *m, const sk_lda_esca_options *o, const sk_lda_rank_link *rank, int *sparse,
                       sk_ex_error *err) {
  int mode = o->next_counts;
  if (mode < SK_LDA_NEXT_COUNTS_AUTO || mode > SK_LDA_NEXT_COUNTS_SPARSE)
    return sk_ex_fail(err, "GPU ESCA: next_counts %d is not 0 (auto), 1 (dense) or 2 (sparse)", mode);
  const char *env = getenv("SK_LDA_NEXT_COUNTS");
  if (mode == SK_LDA_NEXT_COUNTS_AUTO && env != NULL && env[0] != '\0') {
    if (strcmp(env, "dense") == 0)
      mode = SK_LDA_NEXT_COUNTS_DENSE;
    else if (strcmp(env, "sparse") == 0)
      mode = SK_LDA_NEXT_COUNTS_SPARSE;
    else
      return sk_ex_fail(err, "GPU ESCA: SK_LDA_NEXT_COUNTS is '%s'; it takes dense or sparse", env);
  }
  if (mode == SK_LDA_NEXT_COUNTS_SPARSE && rank != NULL)
    return sk_ex_fail(err, "GPU ESCA: the sparse next counts are for one GPU (the ranks sum B's next counts)");
  if (mode == SK_LDA_NEXT_COUNTS_AUTO)
    mode = rank == NULL && (int64_t)m->num_words * (int64_t)m->num_topics >= 8 * m->num_tokens
               ? SK_LDA_NEXT_COUNTS_SPARSE
               : SK_LDA_NEXT_COUNTS_DENSE;
  *sparse = mode == SK_LDA_NEXT_COUNTS_SPARSE;
  return 0;
}

struct resident {
  gpu_sampler base;
  draw_shape shape;
  int32_t item_tokens;
  int64_t chunk_tokens;  // the plan's chunks (chunk_tokens_for())
  int32_t num_groups, num_items;
  // The PDOW plan (pdow_plan.h) on the device, the scheduler's counter, the tails of the blocks' rows (K over 55,296).
  int32_t *plan_token, *group_start, *group_doc, *item_word, *item_group, *item_end;
  unsigned int *next_item;
  float *scratch;
};

int check_options(const sk_lda_esca_options *o, sk_ex_error *err) {
  if (o->threads != 0 && (o->threads < 32 || o->threads > 1024 || o->threads % 32 != 0))
    return sk_ex_fail(err, "GPU ESCA: threads per block %d is not a multiple of 32 from 32 to 1024", o->threads);
  if (o->blocks_per_sm < 0 || o->item_tokens < 0 || o->chunk_tokens < 0)
    return sk_ex_fail(err, "GPU ESCA: blocks per SM, item tokens and chunk tokens must not be negative");
  return 0;
}

// The state's parts for model m, the options and the rank link.
int resident_parts(const sk_lda_model *m, const sk_lda_esca_options *o, const sk_lda_rank_link *rank, unsigned *parts,
                   sk_ex_error *err) {
  int sparse = 0;
  if (next_counts_sparse(m, o, rank, &sparse, err) != 0) return 1;
  *parts = kParts | (sparse ? kStateTouched : kStateNext);
  return 0;
}

// Every array of the sampler, the state's first, for a plan of `groups` groups and `items` items.
void list_arrays(resident *r, int32_t groups, int32_t items, device_arrays *list) {
  state_arrays(&r->base.state, list);
  const size_t T = (size_t)r->base.state.num_tokens, G = (size_t)groups, I = (size_t)items;
  list->add(&r->plan_token, T, "the PDOW order");
  list->add(&r->group_start, G + 1, "the groups");
  list->add(&r->group_doc, G, "the groups' documents");
  list->add(&r->item_word, I, "the items");
  list->add(&r->item_group, I, "the items");
  list->add(&r->item_end, I, "the items");
  list->add(&r->next_item, 1, "the scheduler's counter");
  if (r->shape.on_global) list->add(&r->scratch, r->shape.scratch_floats, "the tails of the blocks' rows");
}

// The plan's chunk size: o->chunk_tokens, else SK_LDA_CHUNK_TOKENS from the environment (for benchmarks),
// else half the device's L2 bytes in tokens (25 M on an H200): the blocks then draw one chunk's documents
// at a time and the chunk's rows of A (4 bytes a pair packed, a pair a token at most) stay in L2 while its
// groups re-read them. NYTimes-scale at K = 1,024 on an H200: one chunk 2,748 Mtok/s; 12 M, 24 M and 48 M
// tokens 2,895, 2,907 and 2,832 (bench/RESULTS.md).
int chunk_tokens_for(int gpu, const sk_lda_esca_options *o, int64_t *chunk_tokens, sk_ex_error *err) {
  *chunk_tokens = o->chunk_tokens;
  if (*chunk_tokens > 0) return 0;
  const char *env = getenv("SK_LDA_CHUNK_TOKENS");
  if (env != NULL && *env != '\0') {
    char *end = NULL;
    const long long v = strtoll(env, &end, 10);
    if (*end != '\0' || v < 1)
      return sk_ex_fail(err, "GPU ESCA: SK_LDA_CHUNK_TOKENS is '%s'; it takes a positive number of tokens", env);
    *chunk_tokens = v;
    return 0;
  }
  int l2 = 0;
  SK_EX_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, gpu), "reading the L2 size");
  *chunk_tokens = l2 > 1 ? l2 / 2 : 0;
  return 0;
}

// What fits and create both need before the plan: the checks, the state's shape, the launch, the
// items' and chunks' sizes. The model must be initialised.
int prepare(resident *r, const sk_lda_model *m, const sk_lda_device *device, const sk_lda_esca_options *o,
            const sk_lda_rank_link *rank, sk_ex_error *err) {
  if (check_options(o, err) != 0) return 1;
  if (m->num_tokens > SK_SEGMENTED_COUNT_MAX_ITEMS) /* int32 positions; A's count by the segmented count */
    return sk_ex_fail(err, "GPU ESCA: %lld tokens; the resident sweep takes at most %d (the streamed one more)",
                       (long long)m->num_tokens, SK_SEGMENTED_COUNT_MAX_ITEMS);
  unsigned parts = 0;
  if (resident_parts(m, o, rank, &parts, err) != 0 || state_init(&r->base.state, m, device->gpu, parts, rank, err) != 0)
    return 1;
  SK_EX_CUDA_TRY(cudaSetDevice(device->gpu), "selecting the GPU");
  SK_EX_CUDA_TRY(draw_choose_shape(device->gpu, m->num_topics, o->threads, o->blocks_per_sm, &r->shape),
                  "choosing the launch");
  r->item_tokens = o->item_tokens > 0 ? o->item_tokens : draw_default_item_tokens(m->num_tokens, r->shape);
  return chunk_tokens_for(device->gpu, o, &r->chunk_tokens, err);
}

// The message of a model that does not fit, as the CLI shows it.
void describe(const sk_lda_model *m, char *what, size_t cap) {
  snprintf(what, cap, "the resident GPU ESCA (V = %d, K = %d, %lld tokens)", (int)m->num_words, (int)m->num_topics,
           (long long)m->num_tokens);
}

// The plan's arrays into the sampler's: from the host (pdow_plan.h) or from the device (pdow_plan_gpu.h's
// plan).
int upload_plan(resident *r, const sk_lda_pdow_plan *plan, sk_ex_error *err) {
  const size_t T = (size_t)plan->num_tokens, G = (size_t)plan->num_groups, I = (size_t)plan->num_items;
  return upload_array(r->plan_token, plan->token, T, "copying the PDOW order", err) ||
         upload_array(r->group_start, plan->group_start, G + 1, "copying the groups", err) ||
         upload_array(r->group_doc, plan->group_doc, G, "copying the groups", err) ||
         upload_array(r->item_word, plan->item_word, I, "copying the items", err) ||
         upload_array(r->item_group, plan->item_group, I, "copying the items", err) ||
         upload_array(r->item_end, plan->item_end, I, "copying the items", err);
}

// The draws of one sweep (between marks 1 and 2): every token of the plan, B's next counts.
int draw(resident *r, uint64_t iteration, sk_ex_error *err) {
  const lda_state &st = r->base.state;
  draw_params p = {};
  p.token = r->plan_token;
  p.group_start = r->group_start;
  p.group_doc = r->group_doc;
  p.item_word = r->item_word;
  p.item_group = r->item_group;
  p.item_end = r->item_end;
  p.num_items = r->num_items;
  p.a_offsets = st.a_offsets;
  p.a_topic = st.a_topic;
  p.a_count = st.a_count;
  p.a_packed = st.a_packed;  // NULL without the packed-A part
  draw_set_model(&p, st.inv, state_next_counts(st), st.touched, r->shape, st.num_topics, st.alpha, state_alpha_f(st),
                 st.beta, st.seed, iteration);
  p.z = st.z; /* in place: a draw reads the counts, never another token's topic */
  p.next_item = r->next_item;
  p.scratch = r->scratch;
  p.token_base = st.token_base;
  p.seg = segments_make_view(st.seg);
  SK_EX_CUDA_TRY(draw_launch(p, r->shape, 0), "drawing the topics");
  return 0;
}

// The sweep: B_hat's denominators, the draws, the epilogue, A.
int sweep(sk_lda_sampler *s, uint64_t iteration, sk_ex_error *err) {
  resident *r = (resident *)s->state;
  if (sweep_start(&r->base, err) != 0 || state_inverse(&r->base.state, err) != 0) return 1;
  if (state_segments(&r->base.state, err) != 0) return 1;
  SK_EX_CUDA_TRY(cudaMemsetAsync(r->next_item, 0, sizeof *r->next_item, 0), "zeroing the scheduler");
  if (sweep_mark(&r->base, 1, err) != 0 || draw(r, iteration, err) != 0 || sweep_mark(&r->base, 2, err) != 0 ||
      state_epilogue(&r->base.state, err) != 0)
    return 1;
  return sweep_finish(&r->base, err);
}

void free_resident(resident *r) {
  if (r == NULL) return;
  release(&r->base);
  void *const own[] = {r->plan_token, r->group_start, r->group_doc, r->item_word, r->item_group, r->item_end,
                       r->next_item, r->scratch};
  for (size_t i = 0; i < sizeof own / sizeof own[0]; ++i) cudaFree(own[i]);
  free(r);
}

void destroy(sk_lda_sampler *s) { free_resident((resident *)s->state); }

// The arrays for a plan of `plan`'s size against the budget, allocated; the state uploaded. Returns
// SK_LDA_SAMPLER_BUDGET_ERROR when the budget cannot hold them.
int allocate_and_upload(resident *r, const sk_lda_model *m, int32_t groups, int32_t items, uint64_t budget,
                        const char *what, sk_ex_error *err) {
  r->num_groups = groups;
  r->num_items = items;
  device_arrays list;
  list_arrays(r, groups, items, &list);
  sk_lda_sampler_fit fit;
  fit_answer(&fit, list.bytes(), budget, what);
  if (!fit.fits) return sk_ex_fail(err, "%s", fit.why), SK_LDA_SAMPLER_BUDGET_ERROR;
  if (list.allocate(&r->base.allocated, err) != 0) return 1;
  return state_upload(&r->base.state, m, err);
}

// Whether the plan may be built on the device (pdow_plan_gpu.h: the host's plan bit for bit, in about
// 1.5 s at 10^9 tokens where the host's one thread takes 40): there are tokens and SK_LDA_HOST_PLAN is
// not set; and the budget holds the build (about 52 bytes a token, freed at the end) beside the
// sampler's arrays sized for the most groups and items there can be (T each).
int device_plan_fits(resident *r, const sk_lda_model *m, uint64_t budget, sk_ex_error *err) {
  if (m->num_tokens < 1 || getenv("SK_LDA_HOST_PLAN") != NULL) return 0;
  size_t plan_bytes = 0;
  if (sk_lda_pdow_plan_gpu_bytes(m->corpus, r->base.state.gpu, &plan_bytes, err) != 0) return 0;
  device_arrays most;
  list_arrays(r, (int32_t)m->num_tokens, (int32_t)m->num_tokens, &most);
  return most.bytes() + plan_bytes <= budget;
}

// fits()' sizes of the plan: counted on the device when it may be built there (device_plan_fits(); the
// host's count takes 7 s at 10^9 tokens), else, or when the device's build fails (its memory taken by
// others), on the host.
int count_plan(resident *r, const sk_lda_model *m, uint64_t budget, int32_t *groups, int32_t *items, sk_ex_error *err) {
  if (device_plan_fits(r, m, budget, err)) {
    sk_lda_pdow_plan_gpu g;
    if (sk_lda_pdow_plan_gpu_build(m->corpus, r->base.state.gpu, r->chunk_tokens, r->item_tokens, &g, err) == 0) {
      *groups = g.plan.num_groups;
      *items = g.plan.num_items;
      sk_lda_pdow_plan_gpu_free(&g);
      return 0;
    }
    (void)cudaGetLastError(); /* an allocation that failed: the host counts instead */
  }
  return sk_lda_pdow_plan_count(m->corpus, r->chunk_tokens, r->item_tokens, groups, items, err);
}

// The plan built on the device (device_plan_fits() true), copied into the sampler's arrays of its exact
// sizes.
int build_on_device(resident *r, const sk_lda_model *m, uint64_t budget, const char *what, sk_ex_error *err) {
  sk_lda_pdow_plan_gpu g;
  if (sk_lda_pdow_plan_gpu_build(m->corpus, r->base.state.gpu, r->chunk_tokens, r->item_tokens, &g, err) != 0)
    return 1;
  int rc = allocate_and_upload(r, m, g.plan.num_groups, g.plan.num_items, budget, what, err);
  if (rc == 0) rc = upload_plan(r, &g.plan, err);
  sk_lda_pdow_plan_gpu_free(&g);
  return rc;
}

// create's work once r is prepared: the dense part against the budget, the plan (on the device when it
// has room, else on the host), its exact bytes, the arrays, the uploads.
// Returns SK_LDA_SAMPLER_BUDGET_ERROR when the budget cannot hold it.
int build(resident *r, const sk_lda_model *m, const sk_lda_device *device, sk_ex_error *err) {
  uint64_t budget = 0;
  if (sk_lda_device_budget(device, &budget, NULL, err) != 0) return 1;
  char what[160];
  describe(m, what, sizeof what);
  device_arrays dense;
  list_arrays(r, 0, 0, &dense);
  sk_lda_sampler_fit fit;
  fit_answer(&fit, dense.bytes(), budget, what);  /* before the plan's host work */
  if (!fit.fits) return sk_ex_fail(err, "%s", fit.why), SK_LDA_SAMPLER_BUDGET_ERROR;
  if (device_plan_fits(r, m, budget, err)) return build_on_device(r, m, budget, what, err);
  sk_lda_pdow_plan plan;
  if (sk_lda_pdow_plan_build(m->corpus, r->chunk_tokens, r->item_tokens, &plan, err) != 0) return 1;
  int rc = allocate_and_upload(r, m, plan.num_groups, plan.num_items, budget, what, err);
  if (rc == 0) rc = upload_plan(r, &plan, err);
  sk_lda_pdow_plan_free(&plan);
  return rc;
}

}  // namespace
}  // namespace sk_lda_gpu

using namespace sk_lda_gpu;

extern "C" int sk_lda_esca_resident_fits(const sk_lda_model *m, const sk_lda_device *device,
                                         const sk_lda_esca_options *o, const sk_lda_rank_link *rank, uint64_t budget,
                                         sk_lda_sampler_fit *fit, sk_ex_error *err) {
  if (m == NULL || m->corpus == NULL || device == NULL || fit == NULL)
    return sk_ex_fail(err, "GPU ESCA fits: a pointer is NULL");
  const sk_lda_esca_options defaults = {0, 0, 0, 0, 0};
  if (o == NULL) o = &defaults;
  if (m->num_tokens > SK_SEGMENTED_COUNT_MAX_ITEMS) {
    fit_cannot(fit, budget, "the resident GPU ESCA takes at most 2^31 - 2^16 tokens (its positions are int32, and "
                            "samplekit's segmented count takes at most that many)");
    return 0;
  }
  resident r;
  memset(&r, 0, sizeof r);
  if (prepare(&r, m, device, o, rank, err) != 0) return 1;
  int32_t groups = 0, items = 0;
  if (count_plan(&r, m, budget, &groups, &items, err) != 0) return 1;
  device_arrays list;
  list_arrays(&r, groups, items, &list);
  char what[160];
  describe(m, what, sizeof what);
  fit_answer(fit, list.bytes(), budget, what);
  return 0;
}

extern "C" size_t sk_lda_esca_resident_state_bytes(const sk_lda_model *m) {
  if (m == NULL || m->corpus == NULL) return 0;
  resident r;
  memset(&r, 0, sizeof r);
  lda_state &st = r.base.state;
  const sk_lda_esca_options defaults = {0, 0, 0, 0, 0};
  sk_ex_error ignored;
  unsigned parts = 0;
  if (resident_parts(m, &defaults, NULL, &parts, &ignored) != 0) parts = kParts | kStateNext;
  st.parts = parts;
  st.num_topics = m->num_topics;
  st.num_words = m->num_words;
  st.num_docs = m->num_docs;
  st.num_tokens = m->num_tokens;
  st.pair_capacity = (int64_t)m->dk_start[m->num_docs];
  state_size_segments(&st, m);
  device_arrays list;
  state_arrays(&st, &list);
  return list.bytes();
}

extern "C" int sk_lda_esca_resident_create(sk_lda_model *m, const sk_lda_device *device,
                                           const sk_lda_esca_options *o, const sk_lda_rank_link *rank,
                                           sk_lda_sampler **out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "GPU ESCA: out is NULL");
  *out = NULL;
  if (m == NULL || m->z == NULL || m->corpus == NULL || device == NULL)
    return sk_ex_fail(err, "GPU ESCA: model NULL or not initialised");
  const sk_lda_esca_options defaults = {0, 0, 0, 0, 0};
  if (o == NULL) o = &defaults;
  resident *r = (resident *)calloc(1, sizeof *r);
  if (r == NULL) return sk_ex_fail(err, "GPU ESCA: out of host memory");
  char name[256];
  int rc = begin(&r->base, device, name, sizeof name, err);
  if (rc == 0) rc = prepare(r, m, device, o, rank, err);
  if (rc == 0) rc = build(r, m, device, err);
  if (rc == 0) rc = make_marks(&r->base, err);
  if (rc == 0) {
    snprintf(r->base.description, sizeof r->base.description, "ESCA (GPU %d: %s)", device->gpu, name);
    r->base.ops.sweep = sweep;
    r->base.ops.destroy = destroy;
    rc = wrap(&r->base, "esca", m, device, out, err);
  }
  if (rc != 0) {
    free_resident(r);
    return rc == SK_LDA_SAMPLER_BUDGET_ERROR ? rc : 1;
  }
  return 0;
}
