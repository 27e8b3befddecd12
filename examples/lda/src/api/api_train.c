/* sk_lda.h: training (the options, checked and turned into the run's; the run; the model it leaves). */
#include "api_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "sk_ex_main.h"

void sklda_options_default(sklda_options *o) {
  memset(o, 0, sizeof *o);
  o->alpha = -1.0;
  o->beta = -1.0;
  o->seed = -1;
  o->iters = 100;
  o->test_fraction = -1.0;
  o->ll_every = 10;
  o->checkpoint_every = SK_LDA_CHECKPOINT_AUTO;
  o->top_words = SK_LDA_DEFAULT_TOP_WORDS;
  o->start_topics = -1;
}

int sklda_detail_run_options(const sklda_options *o, sk_lda_run_options *ro, sk_ex_error *err) {
  sk_lda_run_options_default(ro);
  if (o->num_topics != 0) {
    if (o->num_topics < 1 || o->num_topics > SK_LDA_MAX_TOPICS)
      return sk_ex_fail(err, "num_topics = %d is out of range 1..%d", (int)o->num_topics, SK_LDA_MAX_TOPICS),
             SK_EX_EXIT_USAGE;
    ro->num_topics = o->num_topics, ro->given |= SK_LDA_GIVEN_TOPICS;
  }
  /* NaN is neither given nor a default: refused. */
  if (!(o->alpha <= 0 || (isfinite(o->alpha) && o->alpha >= 1e-12 && o->alpha <= 1e12)))
    return sk_ex_fail(err, "alpha = %g must be in [1e-12, 1e12] (or <= 0 for 50 / K)", o->alpha), SK_EX_EXIT_USAGE;
  if (o->alpha > 0) ro->alpha = o->alpha, ro->given |= SK_LDA_GIVEN_ALPHA;
  if (!(o->beta <= 0 || (isfinite(o->beta) && o->beta >= 1e-12 && o->beta <= 1e12)))
    return sk_ex_fail(err, "beta = %g must be in [1e-12, 1e12] (or <= 0 for the default)", o->beta), SK_EX_EXIT_USAGE;
  if (o->beta > 0) ro->beta = o->beta, ro->given |= SK_LDA_GIVEN_BETA;
  if (o->seed >= 0) ro->seed = (uint64_t)o->seed, ro->given |= SK_LDA_GIVEN_SEED;
  if (o->iters < 1 || o->iters > 1000000000)
    return sk_ex_fail(err, "iters = %lld is out of range 1..1000000000", (long long)o->iters), SK_EX_EXIT_USAGE;
  ro->iters = o->iters;
  if (!(o->test_fraction < 0 || o->test_fraction <= 0.99))
    return sk_ex_fail(err, "test_fraction = %g is out of range [0, 0.99]", o->test_fraction), SK_EX_EXIT_USAGE;
  if (o->test_fraction >= 0) ro->test_fraction = o->test_fraction, ro->given |= SK_LDA_GIVEN_TEST_FRACTION;
  if (o->sampler != NULL) {
    ro->sampler = sk_lda_sampler_kind_from_name(o->sampler);
    if (ro->sampler < 0)
      return sk_ex_fail(err, "sampler '%s' is not auto, esca, cgs or aga", o->sampler), SK_EX_EXIT_USAGE;
    ro->given |= SK_LDA_GIVEN_SAMPLER;
  }
  if (o->device == NULL || strcmp(o->device, "auto") == 0) ro->device.kind = SK_LDA_DEVICE_AUTO;
  else if (strcmp(o->device, "cpu") == 0) ro->device.kind = SK_LDA_DEVICE_CPU;
  else if (strcmp(o->device, "gpu") == 0) ro->device.kind = SK_LDA_DEVICE_GPU;
  else return sk_ex_fail(err, "device '%s' is not auto, cpu or gpu", o->device), SK_EX_EXIT_USAGE;
  /* Contradictions refused before the corpus is read (sk_lda_device_resolve() refuses them too, for a
     resumed run's sampler). */
  if (sk_lda_device_contradicts(ro->device.kind, ro->sampler, err)) return SK_EX_EXIT_USAGE;
  if (o->gpu < 0) return sk_ex_fail(err, "gpu = %d is negative", o->gpu), SK_EX_EXIT_USAGE;
  if (o->threads < 0 || o->threads > 4096)
    return sk_ex_fail(err, "threads = %d is out of range 0..4096", o->threads), SK_EX_EXIT_USAGE;
  if (o->workers < 0 || o->workers > 16)
    return sk_ex_fail(err, "workers = %d is out of range 1..16 (0: the default)", o->workers), SK_EX_EXIT_USAGE;
  if (o->minibatch < 0 || o->panels < 0)
    return sk_ex_fail(err, "%s = %d is negative", o->minibatch < 0 ? "minibatch" : "panels",
                      o->minibatch < 0 ? (int)o->minibatch : (int)o->panels), SK_EX_EXIT_USAGE;
  if ((o->minibatch > 0 || o->panels > 0 || o->whole_word_panels) &&
      (ro->sampler == SK_LDA_SAMPLER_ESCA || ro->sampler == SK_LDA_SAMPLER_CGS))
    return sk_ex_fail(err, "minibatch, panels and whole_word_panels apply to the aga sampler (or auto) only"),
           SK_EX_EXIT_USAGE;
  ro->device.gpu = o->gpu;
  ro->device.threads = o->threads;
  ro->device.device_memory = o->device_memory;
  ro->gpu_exact = o->gpu_exact != 0;
  ro->samplers.streamed.workers = o->workers;
  ro->samplers.aga.minibatch_docs = o->minibatch;
  ro->samplers.aga.panels = o->panels;
  ro->samplers.aga.whole_words = o->whole_word_panels != 0;
  if (o->ll_every < 0) return sk_ex_fail(err, "ll_every = %lld is negative", (long long)o->ll_every), SK_EX_EXIT_USAGE;
  ro->ll_every = o->ll_every;
  if (o->optimize_every < 0 || o->optimize_burnin < 0)
    return sk_ex_fail(err, "%s is negative", o->optimize_every < 0 ? "optimize_every" : "optimize_burnin"),
           SK_EX_EXIT_USAGE;
  ro->optimize_every = o->optimize_every;
  ro->optimize_burnin = o->optimize_burnin;
  if (o->start_topics > 0 && o->resume_dir != NULL)
    return sk_ex_fail(err, "start_topics applies to a new run; a resumed run continues from its checkpoint's topics"),
           SK_EX_EXIT_USAGE;
  if (o->start_topics >= 0) ro->start_topics = o->start_topics;
  if (o->heldout_sweeps < 0 || o->heldout_sweeps > 1000000)
    return sk_ex_fail(err, "heldout_sweeps = %d is out of range 0..1000000 (0: the default)", (int)o->heldout_sweeps),
           SK_EX_EXIT_USAGE;
  ro->heldout_sweeps = o->heldout_sweeps;
  if (o->checkpoint_every < SK_LDA_CHECKPOINT_AUTO)
    return sk_ex_fail(err, "checkpoint_every = %lld must be >= 0, or -1 for automatic", (long long)o->checkpoint_every),
           SK_EX_EXIT_USAGE;
  ro->checkpoint_every = o->checkpoint_every;
  if (o->overwrite && o->resume_dir != NULL)
    return sk_ex_fail(err, "overwrite does not apply to resume_dir (a resumed run continues its folder; overwrite "
                           "starts a new run in out_dir)"),
           SK_EX_EXIT_USAGE;
  ro->out = o->out_dir;
  ro->resume = o->resume_dir;
  ro->overwrite = o->overwrite != 0;
  if (o->top_words < 1 || o->top_words > 1000000)
    return sk_ex_fail(err, "top_words = %d is out of range 1..1000000", o->top_words), SK_EX_EXIT_USAGE;
  ro->top_words = o->top_words;
  ro->save_z = o->save_z != 0;
  ro->hooks.progress = o->progress;
  ro->hooks.log = o->log;
  ro->hooks.user = o->user;
  ro->hooks.handle_signals = o->handle_signals != 0;
  return SK_EX_EXIT_OK;
}

int sklda_detail_train(const sklda_corpus *corpus, const sk_lda_run_options *ro, sklda_model **out, sk_ex_error *err) {
  *out = NULL;
  sklda_model *h = (sklda_model *)calloc(1, sizeof *h);
  if (h == NULL) return sk_ex_fail(err, "out of memory"), SK_EX_EXIT_RUNTIME;
  sk_lda_run_result res;
  /* The model keeps a pointer to h->split.train: both are trained in place. */
  const int status = sk_lda_run_train(ro, &corpus->c, &h->split, &h->model, &res, err);
  const int usable = status == SK_EX_EXIT_OK || status == SK_LDA_EXIT_STOPPED || status == SK_LDA_EXIT_SIGINT ||
                     status == SK_LDA_EXIT_SIGTERM;
  if (usable && h->model.n_vk != NULL && sklda_detail_copy_words((const char *const *)corpus->c.vocab, corpus->c.num_words, &h->mf.vocab) == 0) {
    h->trained = 1;
    h->mf.num_topics = h->model.num_topics;
    h->mf.num_words = h->model.num_words;
    h->mf.alpha = h->model.alpha;
    h->mf.beta = h->model.beta;
    h->mf.iterations = res.sweeps;
    h->mf.seed = h->model.seed;
    h->mf.n_vk = h->model.n_vk;
    h->mf.n_k = h->model.n_k;
    h->mf.alpha_k = h->model.alpha_k;
    h->joint_ll = res.joint_ll;
    h->heldout_ll = res.heldout_ll;
    *out = h;
    return status;
  }
  const int failed = !usable;
  h->trained = 1; /* frees the split and the model */
  sklda_model_free(h);
  if (failed) return status;
  return sk_ex_fail(err, "out of memory for the model's vocabulary"), SK_EX_EXIT_RUNTIME;
}

int sklda_train(const sklda_corpus *corpus, const sklda_options *o, sklda_model **out, sklda_error *err) {
  if (out == NULL || corpus == NULL)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT, "sklda_train: %s is NULL", out == NULL ? "out" : "corpus");
  *out = NULL;
  sklda_options def;
  if (o == NULL) sklda_options_default(&def), o = &def;
  sk_lda_run_options ro;
  sk_ex_error e;
  if (sklda_detail_run_options(o, &ro, &e) != SK_EX_EXIT_OK) return sklda_detail_fail(err, SKLDA_ERROR_INPUT, &e);
  /* As the corpus files' readers refuse an empty corpus: a model of no token is NaN likelihoods and
     uniform topics, not a result. */
  if (corpus->c.num_tokens == 0)
    return sklda_detail_failf(err, SKLDA_ERROR_INPUT,
                              "sklda_train: the corpus has no tokens (%d documents, all empty): nothing to train on",
                              (int)sk_lda_corpus_input_docs(&corpus->c));
  e.message[0] = '\0';
  const int status = sklda_detail_train(corpus, &ro, out, &e);
  switch (status) {
    case SK_EX_EXIT_OK: return SKLDA_OK;
    case SK_LDA_EXIT_STOPPED:
    case SK_LDA_EXIT_SIGINT:
    case SK_LDA_EXIT_SIGTERM: return SKLDA_STOPPED;
    case SK_EX_EXIT_USAGE: return sklda_detail_fail(err, SKLDA_ERROR_INPUT, &e);
    default: return sklda_detail_fail(err, SKLDA_ERROR_RUNTIME, &e);
  }
}
