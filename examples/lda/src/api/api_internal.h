/*
 * Internal to the library sk_lda.h (api_*.c) and to the sk-lda program, which is its client: what the
 * opaque handles hold, and the ways in that only the program needs (the options of a process: ranks, the
 * resume hint's input text).
 */
#ifndef SK_LDA_API_INTERNAL_H
#define SK_LDA_API_INTERNAL_H

#include "sk_lda.h"

#include "corpus.h"
#include "model.h"
#include "model_file.h"
#include "run.h"
#include "sk_ex_error.h"
#include "split.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sklda_corpus {
  sk_lda_corpus c;
};

struct sklda_model {
  /* K, V, priors, sweeps, seed, vocabulary (owned) and the counts: owned by a loaded model; a trained
     model's n_vk and n_k are its model's */
  sk_lda_model_file mf;
  int trained;        /* 1: split and model below are the run's */
  sk_lda_split split; /* the run's split (model.corpus is &split.train) */
  sk_lda_model model; /* the run's final state */
  double joint_ll;    /* the last joint LL per token, NaN for a loaded model */
  double heldout_ll;  /* the held-out LL per token, NaN when none */
};

/* The status and message of an error, into the caller's sklda_error (may be NULL); returns status. */
int sklda_detail_fail(sklda_error *out, int status, const sk_ex_error *err);
/* The same from a printf format; returns status. */
int sklda_detail_failf(sklda_error *out, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A copy of V words into *out (NULL when words is NULL); 0, or 1 when memory runs out (*out NULL). */
int sklda_detail_copy_words(const char *const *words, int32_t V, char ***out);
/* Frees V words and their array; NULL is fine. */
void sklda_detail_free_words(char **words, int32_t V);

/* A corpus handle that takes c's arrays (c is zeroed); NULL when out of memory (c is then freed). */
sklda_corpus *sklda_detail_corpus_wrap(sk_lda_corpus *c);

/* Checks `o` and fills the run's options from it (sk_lda_run_options_default() first; the run's hooks
   are o's progress, log and user, in the library's types). Returns SK_EX_EXIT_OK, or SK_EX_EXIT_USAGE with
   err naming the option. */
int sklda_detail_run_options(const sklda_options *o, sk_lda_run_options *ro, sk_ex_error *err);

/* Trains with run options the caller filled (the program: ranks, input_args, its own hooks). Returns the
   run's exit status (run.h: 0, 1, 2, 130, 143, SK_LDA_EXIT_STOPPED); *out is the model on 0 and on the
   stops, else NULL. */
int sklda_detail_train(const sklda_corpus *corpus, const sk_lda_run_options *ro, sklda_model **out,
                       sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_LDA_API_INTERNAL_H */
