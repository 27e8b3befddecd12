/*
 * Internal to sk_lda_run_train() (run.h): the state of one run, and the part that deals with its folder and
 * what it resumes from (run_folder.c: the lock, the checkpoint read and checked against the options, the
 * folder prepared, the vocabulary of a resumed run). run.c holds the rest: the model, the sweeps, the
 * checkpoints and the outputs. Every function returns an exit status and puts its refusal in r->error.
 */
#ifndef SK_LDA_RUN_STATE_H
#define SK_LDA_RUN_STATE_H

#include <stdint.h>

#include "checkpoint.h"
#include "output.h"
#include "run.h"
#include "run_dir.h"

typedef struct run_state {
  const sk_lda_run_options *o;
  const char *dir;            /* output folder or NULL */
  int sampler;                /* sk_lda_sampler_kind in use */
  double test_fraction;       /* of the split in use */
  uint32_t fingerprint;       /* of the training corpus */
  double seconds_before;      /* training time of the run's earlier parts (a resume) */
  uint64_t sweeps_before;     /* sweeps of the run's earlier parts */
  double start;               /* wall clock at the first sweep of this part */
  sk_lda_metrics_log log;     /* open when dir != NULL */
  double checkpoint_cost;     /* seconds one checkpoint takes (estimated, then measured) */
  double since_checkpoint;    /* seconds of sweeps since the last checkpoint */
  int checkpoints;            /* written during the sweeps of this part */
  double checkpoint_seconds;  /* their total time */
  double sweep_seconds;       /* wall time of the sweeps of this part */
  double first_sweep_seconds; /* the first of them (it may pay one-time costs: the first copies) */
  double metrics_seconds;     /* wall time of the joint and held-out log-likelihoods of this part */
  sk_lda_metrics_times before; /* metrics.csv's time columns in the resumed log's last row (zeros: none) */
  sk_lda_run_dir_lock lock;   /* dir's lock (run_dir.h), fd -1 until taken */
  int lock_tried;             /* the lock was taken, or the file system cannot lock (then the run goes on) */
  int lock_stale;             /* the lock file was left by a killed run */
  int restarted;              /* dir held a run that stopped before its first checkpoint: started anew */
  const char *checkpoint_dir; /* where the run's last checkpoint is: dir, the resumed folder, or NULL */
  uint64_t checkpoint_sweep;  /* and its sweeps */
  char *const *vocab;         /* the run's vocabulary: the corpus's, else a resumed checkpoint's; or NULL */
  char **own_vocab;           /* the checkpoint's, when vocab is it: own_vocab_count words, freed at the end */
  int32_t own_vocab_count;
  sk_ex_error *error;         /* the caller's: where the run's error goes */
  int stop;                   /* why the sweeps stopped early: a signal's number, or -1 the progress hook */
  double start_beta;          /* the run's starting beta (the checkpoint's check), whatever beta is learnt */
} run_state;

/* Puts the message in r->error; returns status. */
int sk_lda_run_refuse(const run_state *r, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* One report line (or several, split at newlines) to o->hooks.log at `level`; nothing when it is NULL. */
void sk_lda_run_say(const sk_lda_run_options *o, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* "WHAT<cause's message>" in r->error; returns SK_EX_EXIT_USAGE. */
int sk_lda_run_fail_usage(const run_state *r, const char *what, const sk_ex_error *cause);
/* The refusal of a folder that another process (holder, 0 when unknown) writes, in err; returns
   SK_EX_EXIT_USAGE. */
int sk_lda_run_fail_in_use(sk_ex_error *err, const char *dir, long holder);
/* Takes r->dir's lock for this process, before anything is written there. */
int sk_lda_run_lock_dir(const sk_lda_run_options *o, run_state *r);
/* Reads the checkpoint of o->resume and checks it against the options the user gave. */
int sk_lda_run_read_resume_checkpoint(const sk_lda_run_options *o, const run_state *r, sk_lda_checkpoint *ck);
/* Prepares the output folder: created, locked, not another run's (unless overwrite), writable, cleared. */
int sk_lda_run_prepare_dir(const sk_lda_run_options *o, run_state *r, const sk_lda_checkpoint *ck);
/* The vocabulary of a resumed run: the checkpoint's, or a given one that must equal it. */
int sk_lda_run_resume_vocabulary(const sk_lda_run_options *o, const sk_lda_corpus *corpus, sk_lda_checkpoint *ck,
                                 run_state *r);

/* --- run_record.c: what the run records ------------------------------------------------------------ */

/* The run's training seconds: its earlier parts' and this part's so far. */
double sk_lda_run_seconds(const run_state *r);
/* metrics.csv's time columns now: this part's statistics added to the resumed part's (r->before). */
void sk_lda_run_row_times(const run_state *r, const sk_lda_sampler *s, sk_lda_metrics_times *t);
/* Writes DIR/checkpoint.skc for the model after `sweeps` sweeps and remembers what it cost. */
int sk_lda_run_save_checkpoint(run_state *r, const sk_lda_model *m, uint64_t sweeps, sk_ex_error *err);
/* What sk_lda_run_write_outputs() wrote of the files it may leave out (run.h's npy_max_bytes). */
enum { SK_LDA_WROTE_PHI = 1u, SK_LDA_WROTE_THETA = 2u };
/* The outputs after `sweeps` sweeps: topics.txt, model.skl, phi.npy, theta.txt, theta.npy (and z.bin); the
   two .npy files only up to the run's npy_max_bytes, said in the log; *wrote gets SK_LDA_WROTE_* bits. */
int sk_lda_run_write_outputs(const run_state *r, const sk_lda_split *split, const sk_lda_model *m, uint64_t sweeps,
                             unsigned *wrote, sk_ex_error *err);
/* Whether a checkpoint is due after sweep `it` (--checkpoint-every, or the automatic policy). */
int sk_lda_run_checkpoint_due(const run_state *r, int64_t it);
/* The summary's split of this part's time per sweep, `secs` its wall time. */
void sk_lda_run_say_time_split(const run_state *r, const sk_lda_sampler *s, uint64_t sweeps, double secs);

#endif /* SK_LDA_RUN_STATE_H */
