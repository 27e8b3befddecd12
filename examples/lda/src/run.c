/* A training run of sk-lda (run.h): init or resume, sweeps, metrics, checkpoints, outputs. */
#include "run.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "hyper.h"
#include "metrics.h"
#include "output.h"
#include "run_dir.h"
#include "run_state.h"
#include "sampler_table.h"
#include "sk_ex_memory.h"

void sk_lda_run_options_default(sk_lda_run_options *o) {
  memset(o, 0, sizeof *o);
  o->num_topics = 100;
  o->alpha = -1.0;
  o->beta = SK_LDA_DEFAULT_BETA;
  o->seed = 1;
  o->test_fraction = SK_LDA_DEFAULT_TEST_FRACTION;
  o->sampler = SK_LDA_SAMPLER_AUTO;
  o->device.kind = SK_LDA_DEVICE_AUTO;
  o->iters = 100;
  o->ll_every = 10;
  o->checkpoint_every = SK_LDA_CHECKPOINT_AUTO;
  o->top_words = SK_LDA_DEFAULT_TOP_WORDS;
  o->npy_max_bytes = SK_LDA_NPY_MAX_BYTES;
  o->start_topics = SK_LDA_DEFAULT_START_TOPICS;
}

/* --- signals: the first one ends the run after its sweep, a second one at once -------------------- */

static volatile sig_atomic_t sk_lda_run_signal = 0;

static void sk_lda_run_on_signal(int sig) {
  if (sk_lda_run_signal != 0) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  sk_lda_run_signal = sig;
  static const char msg[] =
      "\nsk-lda train: stopping after this sweep to save the run (a second signal stops at once)\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
}

typedef struct signal_state {
  struct sigaction old_int, old_term;
} signal_state;

static void signals_install(signal_state *s) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = sk_lda_run_on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sk_lda_run_signal = 0;
  sigaction(SIGINT, &sa, &s->old_int);
  sigaction(SIGTERM, &sa, &s->old_term);
}

static void signals_restore(const signal_state *s) {
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGTERM, &s->old_term, NULL);
}

/* --- the run's state ------------------------------------------------------------------------------ */


static void free_own_vocab(run_state *r) {
  if (r->own_vocab != NULL)
    for (int32_t v = 0; v < r->own_vocab_count; ++v) free(r->own_vocab[v]);
  free(r->own_vocab);
  r->own_vocab = NULL;
  r->own_vocab_count = 0;
}

/* --- start: a new model, or the checkpoint's --------------------------------------------------------- */

/* The host memory the run needs before the sampler's own, planned before any of it is taken: the split's
   copy of the corpus (4 bytes a token, 24 a document) and the model on the whole corpus (an upper bound of
   the model on its training part). A run that cannot fit is refused with both figures (exit 2). */
static int check_host_memory(const run_state *r, const sk_lda_corpus *corpus, int32_t num_topics) {
  const sk_lda_run_options *o = r->o;
  uint64_t b_bytes = 0;
  const uint64_t model = sk_lda_model_host_bytes(corpus, num_topics, &b_bytes);
  const uint64_t split = 4u * (uint64_t)corpus->num_tokens + 24u * ((uint64_t)corpus->num_docs + 3u);
  const uint64_t need = model > UINT64_MAX - split ? UINT64_MAX : model + split;
  char b[32], c[32], d[32], why[160];
  if (!sk_ex_host_memory_refuses(need, why, sizeof why)) return 0;
  sk_lda_run_refuse(r, SK_EX_EXIT_USAGE,
          "%s with K = %d topics (D = %d documents, V = %d words, T = %lld tokens; the model %s, of "
          "which B, V x K counts, %s; the train/test split %s) needs at least %s",
          o->input_args != NULL ? o->input_args : "the corpus", (int)num_topics, (int)corpus->num_docs,
          (int)corpus->num_words, (long long)corpus->num_tokens, sk_ex_format_bytes(b, sizeof b, model),
          sk_ex_format_bytes(c, sizeof c, b_bytes), sk_ex_format_bytes(d, sizeof d, split), why);
  return 1;
}

/* Splits the corpus and starts the model: from the checkpoint when ck->z is set, else anew. */
static int start_model(const sk_lda_run_options *o, const sk_lda_corpus *corpus, const sk_lda_checkpoint *ck,
                       run_state *r, sk_lda_split *split, sk_lda_model *m) {
  sk_ex_error err;
  const int resumed = ck->z != NULL;
  const uint64_t seed = resumed ? ck->seed : o->seed;
  r->test_fraction = resumed ? ck->test_fraction : o->test_fraction;
  r->sampler = resumed ? ck->sampler : o->sampler;
  if (check_host_memory(r, corpus, resumed ? ck->num_topics : o->num_topics) != 0) return SK_EX_EXIT_USAGE;
  if (sk_lda_split_corpus(corpus, r->test_fraction, seed, split, &err) != 0) return sk_lda_run_fail_usage(r, "", &err);
  r->fingerprint = sk_lda_corpus_fingerprint(&split->train);
  r->start_beta = resumed ? ck->beta : o->beta;
  if (!resumed) {
    const double alpha = o->alpha > 0 ? o->alpha : sk_lda_default_alpha(o->num_topics);
    const int made = sk_lda_model_init_started(m, &split->train, o->num_topics, alpha, o->beta, seed, o->start_topics,
                                               &err);
    /* Past check_host_memory(), memory that runs out is the machine's (exit 1), not a request to refuse. */
    if (made == SK_LDA_MODEL_NO_MEMORY) return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "%s", err.message);
    if (made != 0) return sk_lda_run_fail_usage(r, "", &err);
    return SK_EX_EXIT_OK;
  }
  if (ck->num_docs != split->train.num_docs || ck->num_tokens != split->train.num_tokens ||
      ck->num_words != split->train.num_words || ck->fingerprint != r->fingerprint) {
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE,
            "--resume %s: the checkpoint is of another corpus (%d documents, %lld tokens, %d words "
            "to train on; this corpus and split give %d, %lld, %d%s)",
            o->resume, (int)ck->num_docs, (long long)ck->num_tokens, (int)ck->num_words, (int)split->train.num_docs,
            (long long)split->train.num_tokens, (int)split->train.num_words,
            ck->num_docs == split->train.num_docs && ck->num_tokens == split->train.num_tokens &&
                    ck->num_words == split->train.num_words
                ? ", but other words"
                : "");
  }
  /* Learnt priors before the sampler is made (a GPU sampler takes them at create). */
  const int made = sk_lda_model_init(m, &split->train, ck->num_topics, ck->alpha, ck->beta, ck->seed, &err);
  if (made == SK_LDA_MODEL_NO_MEMORY) return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "--resume: %s", err.message);
  if (made != 0 || sk_lda_model_set_z(m, ck->z, &err) != 0 ||
      (ck->alpha_k != NULL && sk_lda_model_set_priors(m, ck->alpha_k, ck->prior_beta, &err) != 0))
    return sk_lda_run_fail_usage(r, "--resume: ", &err);
  r->seconds_before = ck->seconds;
  return SK_EX_EXIT_OK;
}

/* --- the sweeps ---------------------------------------------------------------------------------- */

/* The held-out perplexity, exp(-held-out LL per token), as gensim and scikit-learn define it. The joint
   LL per token of the training sweeps, log p(w, z) / T, is printed as it is: its exponential is not a
   perplexity of anything a user compares. */
static double perplexity(double ll_per_token) { return exp(-ll_per_token); }

/* Stopped after sweep `done` (a signal, or the progress hook): the outputs so far and a checkpoint, then
   how to resume. */
static int finish_interrupted(run_state *r, const sk_lda_split *split, sk_lda_sampler *s, uint64_t done) {
  sk_lda_model *m = s->model;
  const int sig = r->stop;
  const char *name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "stopped by the caller";
  const int status = sig == SIGTERM ? SK_LDA_EXIT_SIGTERM : sig == SIGINT ? SK_LDA_EXIT_SIGINT : SK_LDA_EXIT_STOPPED;
  sk_ex_error err;
  if (r->dir == NULL) {
    if (sk_lda_sampler_to_host(s, &err) != 0)
      return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "%s after sweep %llu: %s", name, (unsigned long long)done,
                               err.message);
    sk_lda_run_say(r->o, SKLDA_LOG_WARNING, "%s after sweep %llu of %lld; nothing saved (no --out)", name,
                   (unsigned long long)done, (long long)r->o->iters);
    return status;
  }
  unsigned wrote = 0u;
  if (sk_lda_sampler_to_host(s, &err) != 0 || sk_lda_run_write_outputs(r, split, m, done, &wrote, &err) != 0 ||
      sk_lda_run_save_checkpoint(r, m, done, &err) != 0)
    return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "%s after sweep %llu, but saving failed: %s", name,
                             (unsigned long long)done, err.message);
  sk_lda_run_say(r->o, SKLDA_LOG_WARNING,
                 "%s after sweep %llu of %lld; saved %s (checkpoint and outputs so far)\n"
                 "  resume with: sk-lda train %s --resume %s --iters %lld",
                 name, (unsigned long long)done, (long long)r->o->iters, r->dir,
                 r->o->input_args != NULL ? r->o->input_args : "(the same input)", r->dir, (long long)r->o->iters);
  return status;
}

/* A checkpoint during the sweeps could not be written (a full disk, say): its temporary file is gone
   (sk_ex_files.h) and the last good checkpoint stays. Going on would spend sweeps that the same fault
   may keep from ever being saved, so the run stops and says what it keeps and how to go on. */
static int say_checkpoint_failed(const run_state *r, int64_t it, const sk_ex_error *err) {
  const sk_lda_run_options *o = r->o;
  const char *input = o->input_args != NULL ? o->input_args : "(the same input)";
  if (r->checkpoint_dir == NULL)
    return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME,
                             "%s: the checkpoint after sweep %lld could not be written: %s\n"
                             "  the run stops; it had no checkpoint yet, so its %lld sweeps are lost: make room in "
                             "%s, then run the same command again (it starts the run anew)",
                             r->dir, (long long)it, err->message, (long long)it, r->dir);
  const int elsewhere = !sk_lda_same_dir(r->checkpoint_dir, r->dir);
  return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME,
                           "%s: the checkpoint after sweep %lld could not be written: %s\n"
                           "  the run stops; its checkpoint after sweep %llu in %s is kept: make room in %s, then "
                           "continue with: sk-lda train %s --resume %s%s%s --iters %lld",
                           r->dir, (long long)it, err->message, (unsigned long long)r->checkpoint_sweep,
                           r->checkpoint_dir, r->dir, input, r->checkpoint_dir, elsewhere ? " --out " : "",
                           elsewhere ? r->dir : "", (long long)o->iters);
}

/* The hook's view of the run after sweep `it`. */
static int report_progress(run_state *r, const sk_lda_model *m, int64_t it, uint64_t done, int evaluate, double ll,
                           double tps) {
  const sk_lda_run_options *o = r->o;
  if (o->hooks.progress == NULL) return 0;
  const double elapsed = sk_ex_now() - r->start;
  sklda_progress p;
  p.sweep = it;
  p.iters = o->iters;
  p.tokens_per_second = tps;
  p.eta_seconds = elapsed / (double)(it - (int64_t)done) * (double)(o->iters - it);
  p.evaluated = evaluate;
  p.joint_ll = ll;
  p.alpha_sum = sk_lda_model_alpha_sum(m);
  p.beta = m->beta;
  return o->hooks.progress(&p, o->hooks.user);
}

/* The sweeps from done + 1 to o->iters. On return *last is the last sweep done and *ll the last joint
   log-likelihood (NaN when none was computed); r->stop says why the sweeps ended early. */
static int sweep_loop(run_state *r, sk_lda_sampler *s, uint64_t done, uint64_t *last, double *ll, double *tps) {
  const sk_lda_run_options *o = r->o;
  const sk_lda_model *m = s->model;
  sk_ex_error err;
  *last = done;
  for (int64_t it = (int64_t)done + 1; it <= o->iters; ++it) {
    const double t0 = sk_ex_now();
    if (sk_lda_sampler_sweep(s, (uint64_t)it, &err) != 0)
      return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "sweep %lld: %s", (long long)it, err.message);
    const double secs = sk_ex_now() - t0;
    r->sweep_seconds += secs;
    if (it == (int64_t)done + 1) r->first_sweep_seconds = secs;
    /* The priors learnt after the sweeps that the options name, a function of the sweep alone, so that a
       resumed run learns them at the same sweeps. Counted as metrics time: it is not sampling. */
    if (o->optimize_every > 0 && it >= o->optimize_burnin && it % o->optimize_every == 0) {
      const double h0 = sk_ex_now();
      if (sk_lda_sampler_optimize_priors(s, SK_LDA_HYPER_DEFAULT_ITERATIONS, &err) != 0)
        return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "sweep %lld: learning the priors: %s", (long long)it,
                                 err.message);
      r->metrics_seconds += sk_ex_now() - h0;
    }
    *tps = sk_lda_tokens_per_second(m->num_tokens, secs);
    *last = (uint64_t)it;
    const int evaluate = it == 1 || it == o->iters || (o->ll_every > 0 && it % o->ll_every == 0);
    if (evaluate) {
      /* On the sampler's device when it can (GPU ESCA): the model stays where it is. */
      const double m0 = sk_ex_now();
      if (sk_lda_sampler_joint_ll(s, ll, &err) != 0)
        return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "sweep %lld: joint log-likelihood: %s", (long long)it,
                                 err.message);
      r->metrics_seconds += sk_ex_now() - m0;
    }
    /* The last sweep's row waits for the held-out log-likelihood, computed after the loop. */
    sk_lda_metrics_times times;
    if (evaluate && it < o->iters && r->dir != NULL) {
      sk_lda_run_row_times(r, s, &times);
      const sk_lda_metrics_priors pr = {sk_lda_model_alpha_sum(m), m->beta};
      if (sk_lda_metrics_log_row_priors(&r->log, (uint64_t)it, sk_lda_run_seconds(r), *tps, *ll, NAN, &times, &pr, &err) != 0)
        return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "%s", err.message);
    }
    if (report_progress(r, m, it, done, evaluate, *ll, *tps) != 0 && it < o->iters) r->stop = -1;
    r->since_checkpoint += sk_ex_now() - t0;
    if (o->hooks.handle_signals && sk_lda_run_signal != 0 && r->stop == 0) r->stop = (int)sk_lda_run_signal;
    if (r->stop != 0 && it < o->iters) return SK_EX_EXIT_OK; /* the caller saves the run */
    if (r->dir != NULL && it < o->iters && sk_lda_run_checkpoint_due(r, it)) {
      if (sk_lda_sampler_to_host(s, &err) != 0)
        return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "checkpoint after sweep %lld: %s", (long long)it,
                                 err.message);
      if (sk_lda_run_save_checkpoint(r, m, (uint64_t)it, &err) != 0) return say_checkpoint_failed(r, it, &err);
    }
  }
  return SK_EX_EXIT_OK;
}

/* After the last sweep: the held-out score, the summary, the outputs, the final row and checkpoint. */
static int finish_run(run_state *r, const sk_lda_split *split, sk_lda_sampler *s, uint64_t done, double ll,
                      double tps, double *heldout) {
  const sk_lda_run_options *o = r->o;
  sk_ex_error err;
  sk_lda_model *m = s->model;
  const int fold_in_iters = o->heldout_sweeps > 0 ? o->heldout_sweeps : sk_lda_default_foldin_iters(m->num_topics);
  const double m0 = sk_ex_now();
  if (split->test_heldout.num_tokens > 0 &&
      sk_lda_sampler_heldout_ll(s, &split->test_observed, &split->test_heldout, fold_in_iters, heldout, &err) != 0)
    return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "held-out log-likelihood: %s", err.message);
  r->metrics_seconds += sk_ex_now() - m0;
  char heldout_text[160];
  if (isnan(*heldout))
    snprintf(heldout_text, sizeof heldout_text, "held-out LL not computed (no held-out tokens: --test-fraction %g)",
             r->test_fraction);
  else
    snprintf(heldout_text, sizeof heldout_text, "held-out LL/token %.4f (perplexity %.1f, %d documents, %d fold-in sweeps)",
             *heldout, perplexity(*heldout), split->test_observed.num_docs, fold_in_iters);
  sk_lda_metrics_times times;
  sk_lda_run_row_times(r, s, &times);
  char device_text[80] = "";
  if (times.device_bytes_peak > 0)
    snprintf(device_text, sizeof device_text, "; peak device memory %.0f MB", (double)times.device_bytes_peak / 1e6);
  const double secs = sk_ex_now() - r->start;
  const uint64_t sweeps = done - r->sweeps_before;
  sk_lda_run_say(o, SKLDA_LOG_INFO, "done: %lld sweeps in %.1f s; joint LL/token %.4f; %s; peak memory %.0f MB%s",
                 (long long)sweeps, secs, ll, heldout_text, (double)sk_lda_peak_rss_bytes() / 1e6, device_text);
  sk_lda_run_say_time_split(r, s, sweeps, secs);
  if (r->dir == NULL) { /* the caller may read the model (--demo, the library) */
    if (sk_lda_sampler_to_host(s, &err) == 0) return SK_EX_EXIT_OK;
    return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "%s", err.message);
  }
  sk_lda_run_say(o, SKLDA_LOG_INFO, "checkpoints during the sweeps: %d, %.3f s (%.1f%% of the run)", r->checkpoints,
                 r->checkpoint_seconds, secs > 0 ? 100.0 * r->checkpoint_seconds / secs : 0.0);
  /* The last row's clock stops before the model is copied to the host (a GPU sampler's B, A and z), which
     is output, not training. Outputs first, checkpoint last: a run killed in between resumes and writes
     them again. */
  const sk_lda_metrics_priors pr = {sk_lda_model_alpha_sum(m), m->beta};
  unsigned wrote = 0u;
  if (sk_lda_metrics_log_row_priors(&r->log, done, sk_lda_run_seconds(r), tps, ll, *heldout, &times, &pr, &err) != 0 ||
      sk_lda_sampler_to_host(s, &err) != 0 || sk_lda_run_write_outputs(r, split, m, done, &wrote, &err) != 0 ||
      sk_lda_run_save_checkpoint(r, m, done, &err) != 0)
    return sk_lda_run_refuse(r, SK_EX_EXIT_RUNTIME, "%s", err.message);
  sk_lda_run_say(o, SKLDA_LOG_INFO, "wrote %s: topics.txt, model.skl, %stheta.txt, %smetrics.csv, %s%s", r->dir,
                 (wrote & SK_LDA_WROTE_PHI) ? "phi.npy, " : "", (wrote & SK_LDA_WROTE_THETA) ? "theta.npy, " : "",
                 SK_LDA_CHECKPOINT_FILE, o->save_z ? ", z.bin" : "");
  return SK_EX_EXIT_OK;
}

/* The device resolved, the sampler chosen from the table (sampler.h) and created: this rank's decorator
   when the run has ranks (ranks.h), which makes its GPU ESCA sampler from the table itself. r->sampler
   becomes the kind that runs (what the checkpoints record); why gets the choice's reason. Returns an exit
   status, the error in r->error. */
static int start_sampler(const sk_lda_run_options *o, run_state *r, sk_lda_model *m, sk_lda_sampler **s, char *why,
                         const char **note) {
  sk_lda_device device;
  sk_ex_error err;
  const int resolved = sk_lda_device_resolve(&o->device, r->sampler, &device, note, &err);
  if (resolved != 0)
    return sk_lda_run_refuse(r, resolved == SK_LDA_DEVICE_CONTRADICTS ? SK_EX_EXIT_USAGE : SK_EX_EXIT_RUNTIME, "%s",
                             err.message);
  const sk_lda_sampler_request req = {r->sampler, o->gpu_exact, &o->samplers, NULL};
  int made = 0;
  if (o->ranks != NULL) {
    made = sk_lda_ranks_sampler_create(o->ranks, &req, m, &device, s, &err);
    r->sampler = SK_LDA_SAMPLER_ESCA;
  } else {
    sk_lda_sampler_choice choice;
    made = sk_lda_sampler_create_for(&req, m, &device, s, &choice, &err);
    if (made == 0) {
      r->sampler = choice.entry->kind;
      snprintf(why, sizeof choice.why, "%s", choice.why);
    }
  }
  if (made == 0 && o->optimize_every > 0 && sk_lda_sampler_priors_supported(*s, &err) != 0) {
    sk_lda_sampler_destroy(*s);
    *s = NULL;
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE, "--optimize-every: %s", err.message);
  }
  if (made == 0) return SK_EX_EXIT_OK;
  return sk_lda_run_refuse(r, made == SK_LDA_SAMPLER_BUDGET_ERROR ? SK_EX_EXIT_USAGE : SK_EX_EXIT_RUNTIME, "%s",
                           err.message);
}

/* What a run holds until it returns. */
static int end_run(run_state *r, sk_lda_sampler *s, int status) {
  sk_lda_sampler_destroy(s);
  sk_lda_metrics_log_close(&r->log);
  sk_lda_run_dir_lock_release(&r->lock);
  free_own_vocab(r);
  return status;
}

int sk_lda_run_train(const sk_lda_run_options *o, const sk_lda_corpus *corpus, sk_lda_split *split, sk_lda_model *m,
                     sk_lda_run_result *result, sk_ex_error *error) {
  sk_lda_checkpoint ck;
  memset(&ck, 0, sizeof ck);
  run_state r;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.error = error;
  r.dir = o->out != NULL ? o->out : o->resume;
  r.lock.fd = -1;
  r.checkpoint_dir = o->resume;
  r.vocab = corpus->vocab;
  if (result != NULL) result->sweeps = 0, result->joint_ll = NAN, result->heldout_ll = NAN;
  int status = SK_EX_EXIT_OK;
  /* The folder's lock before anything is read from it or written to it, so that a second writer is
     refused before it reads a checkpoint that the first is about to replace. One process: taken here
     when the folder exists (else once prepare_dir has made it). Ranks: only rank 0 writes, and takes it
     in prepare_dir after every rank has joined the sampler; here every rank only looks, so that all of
     them refuse a folder in use together, before the sampler that needs them all. */
  struct stat dir_st;
  if (r.dir != NULL && stat(r.dir, &dir_st) == 0 && S_ISDIR(dir_st.st_mode)) {
    long holder = 0;
    if (o->ranks == NULL)
      status = sk_lda_run_lock_dir(o, &r);
    else if (sk_lda_run_dir_in_use(r.dir, &holder))
      status = sk_lda_run_fail_in_use(error, r.dir, holder);
  }
  if (status == SK_EX_EXIT_OK && o->resume != NULL) status = sk_lda_run_read_resume_checkpoint(o, &r, &ck);
  r.checkpoint_sweep = ck.sweeps;
  const double prep0 = sk_ex_now();
  if (status == SK_EX_EXIT_OK) status = start_model(o, corpus, &ck, &r, split, m);
  if (status == SK_EX_EXIT_OK && ck.z != NULL) status = sk_lda_run_resume_vocabulary(o, corpus, &ck, &r);
  const double prep1 = sk_ex_now();
  /* The device and the sampler before the folder: a run that cannot start leaves the folder as it was. */
  const char *note = NULL;
  char why[600] = "";
  sk_ex_error err;
  sk_lda_sampler *s = NULL;
  if (status == SK_EX_EXIT_OK) status = start_sampler(o, &r, m, &s, why, &note);
  if (status == SK_EX_EXIT_OK && o->ranks != NULL && o->ranks->rank != 0) { /* a rank that serves rank 0 */
    sk_lda_checkpoint_free(&ck);
    if (sk_lda_ranks_serve(s, &err) != 0) status = sk_lda_run_refuse(&r, SK_EX_EXIT_RUNTIME, "%s", err.message);
    return end_run(&r, s, status);
  }
  const double prep2 = sk_ex_now();
  if (status == SK_EX_EXIT_OK) status = sk_lda_run_prepare_dir(o, &r, &ck);
  const uint64_t done = ck.sweeps;
  r.sweeps_before = done;
  sk_lda_checkpoint_free(&ck);
  if (status != SK_EX_EXIT_OK) return end_run(&r, s, status);
  if (note != NULL) sk_lda_run_say(o, SKLDA_LOG_WARNING, "%s", note);
  if (r.restarted)
    sk_lda_run_say(o, SKLDA_LOG_INFO,
                   "%s: the run there stopped before its first checkpoint (no checkpoint, no model: nothing is lost); "
                   "starting it again",
                   r.dir);
  if (done > 0) sk_lda_run_say(o, SKLDA_LOG_INFO, "resuming after sweep %llu of %s", (unsigned long long)done, o->resume);
  char alpha_text[64];
  if (m->alpha_k != NULL) /* a resumed run's learnt priors */
    snprintf(alpha_text, sizeof alpha_text, "alpha learnt (sum %g)", sk_lda_model_alpha_sum(m));
  else
    snprintf(alpha_text, sizeof alpha_text, "alpha = %g", m->alpha);
  char optimize_text[96] = "";
  if (o->optimize_every > 0)
    snprintf(optimize_text, sizeof optimize_text, ", priors learnt every %lld sweeps from sweep %lld",
             (long long)o->optimize_every,
             (long long)(o->optimize_burnin > o->optimize_every
                             ? (o->optimize_burnin + o->optimize_every - 1) / o->optimize_every * o->optimize_every
                             : o->optimize_every));
  char start_text[64] = "";
  if (done == 0 && o->start_topics > 0 && o->start_topics < m->num_topics)
    snprintf(start_text, sizeof start_text, ", documents started on at most %d topics", (int)o->start_topics);
  sk_lda_run_say(o, SKLDA_LOG_INFO,
                 "training: %d documents (%d held out), %d words, %lld tokens, K = %d, %s, beta = %g%s%s, "
                 "%s%s%s%s, seed %llu",
                 split->train.num_docs, split->test_observed.num_docs, m->num_words, (long long)m->num_tokens,
                 m->num_topics, alpha_text, m->beta, optimize_text, start_text, s->ops->description,
                 why[0] ? " [" : "", why, why[0] ? "]" : "", (unsigned long long)m->seed);
  sk_lda_run_say(o, SKLDA_LOG_INFO, "prepared in %.2f s: the split and the model %.2f s, the sampler %.2f s",
                 prep2 - prep0, prep1 - prep0, prep2 - prep1);
  /* Before the first checkpoint its cost is estimated from its size at a modest disk rate. */
  r.checkpoint_cost = (100.0 + 4.0 * (double)m->num_tokens) / 200e6;
  signal_state signals;
  if (o->hooks.handle_signals) signals_install(&signals);
  r.start = sk_ex_now();
  uint64_t last = done;
  double ll = NAN, tps = 0.0, heldout = NAN;
  status = sweep_loop(&r, s, done, &last, &ll, &tps);
  if (status == SK_EX_EXIT_OK) {
    if ((int64_t)last < o->iters)
      status = finish_interrupted(&r, split, s, last);
    else
      status = finish_run(&r, split, s, last, ll, tps, &heldout);
  }
  if (o->hooks.handle_signals) signals_restore(&signals);
  if (result != NULL) result->sweeps = last, result->joint_ll = ll, result->heldout_ll = heldout;
  return end_run(&r, s, status);
}
