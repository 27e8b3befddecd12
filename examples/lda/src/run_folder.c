/* A run's folder and what it resumes from (run_state.h): the lock, the checkpoint, the folder, the
   resumed vocabulary. */
#include "run_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sk_lda_run_refuse(const run_state *r, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sk_ex_vfail(r->error, fmt, ap);
  va_end(ap);
  return status;
}

void sk_lda_run_say(const sk_lda_run_options *o, int level, const char *fmt, ...) {
  if (o->hooks.log == NULL) return;
  char text[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  for (char *line = text, *end; line != NULL; line = end != NULL ? end + 1 : NULL) {
    end = strchr(line, '\n');
    if (end != NULL) *end = '\0';
    if (end == NULL && line[0] == '\0' && line != text) break; /* a trailing newline */
    o->hooks.log(level, line, o->hooks.user);
  }
}

int sk_lda_run_fail_usage(const run_state *r, const char *what, const sk_ex_error *cause) {
  return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE, "%s%s", what, cause->message);
}

/* The refusal of a folder that another process writes (exit 2). */
int sk_lda_run_fail_in_use(sk_ex_error *err, const char *dir, long holder) {
  if (holder > 0)
    sk_ex_fail(err, "%s is in use by another sk-lda (process %ld); wait for it to end or stop it", dir, holder);
  else
    sk_ex_fail(err, "%s is in use by another sk-lda (its process id is not in %s/%s); wait for it to end or stop it",
               dir, dir, SK_LDA_RUN_DIR_LOCK_FILE);
  return SK_EX_EXIT_USAGE;
}

/* Takes r->dir's lock (run_dir.h) for this process, before anything is written there. A file system
   that cannot lock gets a warning and the run goes on unlocked, as before the lock existed. */
int sk_lda_run_lock_dir(const sk_lda_run_options *o, run_state *r) {
  sk_ex_error err;
  long holder = 0;
  r->lock_tried = 1;
  switch (sk_lda_run_dir_lock_take(r->dir, &r->lock, &holder, &r->lock_stale, &err)) {
  case SK_LDA_RUN_DIR_LOCK_TAKEN: return SK_EX_EXIT_OK;
  case SK_LDA_RUN_DIR_LOCK_IN_USE: return sk_lda_run_fail_in_use(r->error, r->dir, holder);
  case SK_LDA_RUN_DIR_LOCK_UNSUPPORTED:
    sk_lda_run_say(o, SKLDA_LOG_WARNING, "warning: %s; nothing stops another sk-lda from writing %s at the same time",
                   err.message, r->dir);
    return SK_EX_EXIT_OK;
  default: return sk_lda_run_fail_usage(r, o->out != NULL ? "--out: " : "--resume: ", &err);
  }
}

/* Reads the checkpoint of o->resume and checks it against the options the user gave. */
int sk_lda_run_read_resume_checkpoint(const sk_lda_run_options *o, const run_state *r, sk_lda_checkpoint *ck) {
  sk_ex_error err;
  char path[4096];
  struct stat st;
  if (sk_ex_path(path, sizeof path, o->resume, SK_LDA_CHECKPOINT_FILE, &err) != 0)
    return sk_lda_run_fail_usage(r, "--resume: ", &err);
  if (stat(path, &st) != 0) {
    /* A run that has not written its first checkpoint yet, or never will: say which. This process's own
       lock of the folder (taken before this) tells that no other one writes it. */
    const int ours = r->lock.fd >= 0 && sk_lda_same_dir(o->resume, r->dir);
    long holder = 0;
    if (!ours && sk_lda_run_dir_in_use(o->resume, &holder) && holder != (long)getpid())
      return sk_lda_run_fail_in_use(r->error, o->resume, holder);
    if (sk_lda_run_dir_restartable(o->resume) || (ours && r->lock_stale))
      return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE,
                               "--resume %s: the run there stopped before its first checkpoint, so there is nothing "
                               "to resume; the command that started it (with --out %s) starts it again",
                               o->resume, o->resume);
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE, "--resume %s: there is no %s there (a run with --out writes one)",
                             o->resume, SK_LDA_CHECKPOINT_FILE);
  }
  if (sk_lda_checkpoint_read(path, ck, &err) != 0) return sk_lda_run_fail_usage(r, "--resume: ", &err);
  char what[200] = "";
  const unsigned g = o->given;
  if ((g & SK_LDA_GIVEN_TOPICS) && o->num_topics != ck->num_topics)
    snprintf(what, sizeof what, "--topics %d (the run has %d)", (int)o->num_topics, (int)ck->num_topics);
  else if ((g & SK_LDA_GIVEN_ALPHA) && o->alpha != ck->alpha)
    snprintf(what, sizeof what, "--alpha %.17g (the run has %.17g)", o->alpha, ck->alpha);
  else if ((g & SK_LDA_GIVEN_BETA) && o->beta != ck->beta)
    snprintf(what, sizeof what, "--beta %.17g (the run has %.17g)", o->beta, ck->beta);
  else if ((g & SK_LDA_GIVEN_SEED) && o->seed != ck->seed)
    snprintf(what, sizeof what, "--seed %llu (the run has %llu)", (unsigned long long)o->seed,
             (unsigned long long)ck->seed);
  else if ((g & SK_LDA_GIVEN_TEST_FRACTION) && o->test_fraction != ck->test_fraction)
    snprintf(what, sizeof what, "--test-fraction %.17g (the run has %.17g)", o->test_fraction, ck->test_fraction);
  else if ((g & SK_LDA_GIVEN_SAMPLER) && o->sampler != SK_LDA_SAMPLER_AUTO && o->sampler != ck->sampler)
    snprintf(what, sizeof what, "--sampler %s (the run has %s)", sk_lda_sampler_kind_name(o->sampler),
             sk_lda_sampler_kind_name(ck->sampler));
  if (what[0] != '\0')
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE, "--resume %s: %s; leave the option out, or give the run's value",
                             path, what);
  if ((long long)ck->sweeps >= (long long)o->iters)
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE, "--resume %s has done %llu sweeps already; ask for more with --iters",
                             path, (unsigned long long)ck->sweeps);
  return SK_EX_EXIT_OK;
}

/* Prepares the output folder: created, not another run's (unless overwrite), writable, cleared. */
int sk_lda_run_prepare_dir(const sk_lda_run_options *o, run_state *r, const sk_lda_checkpoint *ck) {
  sk_ex_error err;
  if (r->dir == NULL) return SK_EX_EXIT_OK;
  if (sk_ex_mkdir_p(r->dir, &err) != 0) return sk_lda_run_fail_usage(r, "--out: ", &err);
  if (!r->lock_tried) { /* the folder did not exist when the run started */
    const int status = sk_lda_run_lock_dir(o, r);
    if (status != SK_EX_EXIT_OK) return status;
  }
  const int continuing = o->resume != NULL && sk_lda_same_dir(o->resume, r->dir);
  const char *held = continuing ? NULL : sk_lda_run_dir_holds_run(r->dir);
  /* A run killed before its first checkpoint left no model and nothing to resume (a metrics.csv at most,
     or only its lock file): starting again loses nothing, so the command that started it may. */
  r->restarted = !continuing && !o->overwrite &&
                 (held != NULL ? sk_lda_run_dir_restartable(r->dir) : r->lock.fd >= 0 && r->lock_stale);
  if (held != NULL && !o->overwrite && !r->restarted)
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE,
                             "--out %s already holds a run (%s is there): continue it with --resume %s, or replace it "
                             "with --overwrite",
                             r->dir, held, r->dir);
  /* every file of a run can be written there (sk_ex_files.h) */
  if (sk_ex_check_output_dir(r->dir, sk_lda_run_dir_files, &err) != 0) return sk_lda_run_fail_usage(r, "--out: ", &err);
  /* Nothing of an earlier run, or of this run's earlier part, can be mixed into the results: its
     outputs go now, and the state is rewritten below from the checkpoint (or anew). */
  if (sk_lda_run_dir_clear(r->dir, continuing, &err) != 0) return sk_lda_run_fail_usage(r, "--out: ", &err);
  char path[4096];
  if (sk_ex_path(path, sizeof path, r->dir, "metrics.csv", &err) != 0 ||
      sk_lda_metrics_log_open(&r->log, path, ck->metrics, &err) != 0)
    return sk_lda_run_fail_usage(r, "--out: ", &err);
  sk_lda_metrics_log_last_times(&r->log, &r->before);
  return SK_EX_EXIT_OK;
}

/* The vocabulary of a resumed run (after start_model() found the checkpoint to be of this corpus): a
   vocabulary given (--vocab, or the words of --text) must be the checkpoint's, word for word; none given,
   the checkpoint's is the run's (its outputs have the words). A checkpoint of format version 1 has none:
   the run keeps what it was given, with a note. Returns an exit status, the refusal in r->error. */
int sk_lda_run_resume_vocabulary(const sk_lda_run_options *o, const sk_lda_corpus *corpus, sk_lda_checkpoint *ck,
                             run_state *r) {
  if (ck->version == SK_LDA_CHECKPOINT_VERSION_NO_VOCAB) {
    sk_lda_run_say(o, SKLDA_LOG_WARNING,
                   "note: --resume %s: the checkpoint predates vocabularies (an earlier sk-lda wrote it), so %s",
                   o->resume, corpus->vocab != NULL ? "the vocabulary given is not checked against the run's"
                                                    : "the run has no vocabulary unless --vocab gives it");
    return SK_EX_EXIT_OK;
  }
  if (ck->vocab == NULL || ck->num_words != corpus->num_words) return SK_EX_EXIT_OK; /* the run had none */
  if (corpus->vocab == NULL) { /* the checkpoint's words become the run's */
    r->vocab = r->own_vocab = ck->vocab;
    r->own_vocab_count = ck->num_words;
    ck->vocab = NULL;
    return SK_EX_EXIT_OK;
  }
  for (int32_t v = 0; v < ck->num_words; ++v) {
    if (strcmp(corpus->vocab[v], ck->vocab[v]) == 0) continue;
    const char *file = o->vocab_file != NULL ? o->vocab_file : "the vocabulary given";
    if (o->vocab_from_text)
      return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE,
                               "--resume %s: %s: word %d '%s' differs from the run's word '%s' (the checkpoint's "
                               "vocabulary); give the run's corpus",
                               o->resume, file, (int)v + 1, corpus->vocab[v], ck->vocab[v]);
    return sk_lda_run_refuse(r, SK_EX_EXIT_USAGE,
                             "--resume %s: %s:%d: '%s' differs from the run's word '%s' (the checkpoint's "
                             "vocabulary); give the run's vocabulary or leave --vocab out",
                             o->resume, file, (int)v + 1, corpus->vocab[v], ck->vocab[v]);
  }
  return SK_EX_EXIT_OK;
}

int sk_lda_run_check_in_use(const sk_lda_run_options *o, sk_ex_error *err) {
  const char *dir = o->out != NULL ? o->out : o->resume;
  long holder = 0;
  if (dir != NULL && sk_lda_run_dir_in_use(dir, &holder)) return sk_lda_run_fail_in_use(err, dir, holder);
  return SK_EX_EXIT_OK;
}
