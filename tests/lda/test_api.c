/*
 * The library sk_lda.h as a C program uses it: linked to libsk_lda.so and including nothing of sk-lda but
 * the public header. Corpora from CSR arrays and their refusals, training on the CPU (and on a GPU with
 * --gpu: the exact sweep's model equals the CPU's bit for bit), phi and theta, top words, a saved and
 * loaded model, inference, the held-out score, coherence against a direct count, progress and stopping,
 * the report, and bad options refused with the option named.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_lda.h"
#include "sk_test.h"

enum { D = 120, V = 40, K = 4, LEN = 30 };

/* A corpus of D documents (document 7 empty) whose words come from K planted topics of V / K words each:
   as CSR with counts, the words of a document drawn from one or two topics. */
static int64_t offsets[D + 1];
static int32_t words[D * LEN], counts[D * LEN];

static sklda_corpus *make_corpus(int with_vocab) {
  uint64_t rng = 12345;
  int64_t nnz = 0;
  offsets[0] = 0;
  for (int d = 0; d < D; ++d) {
    if (d != 7) {
      const int t1 = d % K, t2 = (d / K) % K;
      for (int i = 0; i < LEN; ++i) {
        const int topic = (sk_test_rand_u32(&rng) % 3 == 0) ? t2 : t1;
        words[nnz] = topic * (V / K) + (int32_t)(sk_test_rand_u32(&rng) % (V / K));
        counts[nnz] = 1 + (int32_t)(sk_test_rand_u32(&rng) % 2);
        ++nnz;
      }
    }
    offsets[d + 1] = nnz;
  }
  sklda_corpus *c = NULL;
  sklda_error err;
  const int rc = sklda_corpus_from_csr(D, V, offsets, words, counts, &c, &err);
  SK_CHECK(rc == SKLDA_OK, "corpus from CSR: %s", rc == SKLDA_OK ? "" : err.message);
  if (c != NULL && with_vocab) {
    static char names[V][8];
    const char *vocab[V];
    for (int v = 0; v < V; ++v) snprintf(names[v], sizeof names[v], "w%d", v), vocab[v] = names[v];
    SK_CHECK(sklda_corpus_set_vocab(c, vocab, V, &err) == SKLDA_OK, "set vocab");
    SK_CHECK(strcmp(sklda_corpus_word(c, 3), "w3") == 0, "word 3");
  }
  return c;
}

static void check_csr_refusals(void) {
  const int64_t offsets[3] = {0, 2, 1}, good[3] = {0, 1, 2};
  const int32_t words[2] = {0, 5}, counts[2] = {1, -1}, ok_words[2] = {0, 1};
  sklda_corpus *c = NULL;
  sklda_error err;
  SK_CHECK(sklda_corpus_from_csr(2, 3, offsets, ok_words, NULL, &c, &err) == SKLDA_ERROR_INPUT && c == NULL &&
               strstr(err.message, "doc_offsets[2]") != NULL,
           "decreasing offsets refused: %s", err.message);
  SK_CHECK(sklda_corpus_from_csr(2, 3, good, words, NULL, &c, &err) == SKLDA_ERROR_INPUT &&
               strstr(err.message, "word_ids[1] = 5") != NULL,
           "word out of range refused: %s", err.message);
  SK_CHECK(sklda_corpus_from_csr(2, 3, good, ok_words, counts, &c, &err) == SKLDA_ERROR_INPUT &&
               strstr(err.message, "counts[1]") != NULL,
           "negative count refused: %s", err.message);
  SK_CHECK(sklda_corpus_read("/nonexistent/docword.txt", NULL, &c, &err) == SKLDA_ERROR_INPUT &&
               strstr(err.message, "/nonexistent/docword.txt") != NULL,
           "missing file named: %s", err.message);
  sklda_read_options ro;
  sklda_read_options_default(&ro);
  ro.format = "csv";
  SK_CHECK(sklda_corpus_read("x", &ro, &c, &err) == SKLDA_ERROR_INPUT && strstr(err.message, "csv") != NULL,
           "bad format named: %s", err.message);
  /* A vocabulary the outputs cannot hold or a model could not save is refused when it is given, not after
     the training; a corpus of no token has nothing to train on. */
  if (SK_CHECK(sklda_corpus_from_csr(2, 3, good, ok_words, NULL, &c, &err) == SKLDA_OK, "%s", err.message)) {
    const char *repeated[3] = {"a", "b", "a"}, *tab[3] = {"a", "b\tc", "d"}, *line[3] = {"a", "b", "c\nd"};
    SK_CHECK(sklda_corpus_set_vocab(c, repeated, 3, &err) == SKLDA_ERROR_INPUT &&
                 strstr(err.message, "word 2 \"a\" repeats word 0") != NULL,
             "a repeated word refused: %s", err.message);
    SK_CHECK(sklda_corpus_set_vocab(c, tab, 3, &err) == SKLDA_ERROR_INPUT && strstr(err.message, "word 1") != NULL,
             "a word with a tab refused: %s", err.message);
    SK_CHECK(sklda_corpus_set_vocab(c, line, 3, &err) == SKLDA_ERROR_INPUT && strstr(err.message, "word 2") != NULL,
             "a word with a line break refused: %s", err.message);
    SK_CHECK(sklda_corpus_word(c, 0) == NULL, "a refused vocabulary was kept");
    sklda_corpus_free(c);
  }
  const int64_t empty_offsets[3] = {0, 0, 0};
  c = NULL;
  if (SK_CHECK(sklda_corpus_from_csr(2, 3, empty_offsets, NULL, NULL, &c, &err) == SKLDA_OK, "%s", err.message)) {
    sklda_model *m = NULL;
    SK_CHECK(sklda_train(c, NULL, &m, &err) == SKLDA_ERROR_INPUT && m == NULL &&
                 strstr(err.message, "no tokens") != NULL,
             "a corpus of no token refused: %s", err.message);
    sklda_corpus_free(c);
  }
}

typedef struct {
  int calls, stop_at, infos;
  int64_t last_sweep;
} watch;

static int on_progress(const sklda_progress *p, void *user) {
  watch *w = (watch *)user;
  ++w->calls;
  w->last_sweep = p->sweep;
  return w->stop_at > 0 && p->sweep >= w->stop_at;
}

static void on_log(int level, const char *line, void *user) {
  watch *w = (watch *)user;
  if (level == SKLDA_LOG_INFO && strncmp(line, "training:", 9) == 0) ++w->infos;
}

static sklda_model *train(const sklda_corpus *c, const char *device, int exact, watch *w, int *status) {
  sklda_options o;
  sklda_options_default(&o);
  o.num_topics = K;
  o.iters = 40;
  o.seed = 7;
  o.test_fraction = 0.2;
  o.sampler = "esca";
  o.device = device;
  o.gpu_exact = exact;
  o.progress = w != NULL ? on_progress : NULL;
  o.log = w != NULL ? on_log : NULL;
  o.user = w;
  sklda_model *m = NULL;
  sklda_error err;
  *status = sklda_train(c, &o, &m, &err);
  SK_CHECK(*status == SKLDA_OK || *status == SKLDA_STOPPED, "train on %s: %s", device,
           *status == SKLDA_OK || *status == SKLDA_STOPPED ? "" : err.message);
  return m;
}

static void check_rows_sum_to_one(const float *a, int rows, int cols, const char *what) {
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) s += a[r * cols + c];
    bad += fabs(s - 1.0) > 1e-5;
  }
  SK_CHECK(bad == 0, "%s: %d rows do not sum to 1", what, bad);
}

/* UMass of two words (the second given the first) by a direct count over the documents. */
static double direct_umass2(int32_t w1, int32_t w2) {
  int d1 = 0, d12 = 0;
  for (int d = 0; d < D; ++d) {
    int h1 = 0, h2 = 0;
    for (int64_t j = offsets[d]; j < offsets[d + 1]; ++j) h1 |= words[j] == w1, h2 |= words[j] == w2;
    d1 += h1;
    d12 += h1 && h2;
  }
  return log((d12 + 1.0) / d1);
}

/* The defaults, then a CPU ESCA run of `iters` sweeps at K topics, seed 3, with test_fraction held out. */
static void cpu_esca_options(sklda_options *o, int32_t K, int64_t iters, double test_fraction) {
  sklda_options_default(o);
  o->num_topics = K;
  o->iters = iters;
  o->seed = 3;
  o->test_fraction = test_fraction;
  o->sampler = "esca";
  o->device = "cpu";
}

/* The joint LL after 2 CPU sweeps at K = 200 with start_topics left at its default (set = 0) or set. */
static double start_ll(const sklda_corpus *c, int set, int32_t start_topics) {
  sklda_options o;
  cpu_esca_options(&o, 200, 2, 0);
  if (set) o.start_topics = start_topics;
  sklda_model *m = NULL;
  sklda_error err;
  const int rc = sklda_train(c, &o, &m, &err);
  SK_CHECK(rc == SKLDA_OK, "train with start_topics %d: %s", (int)start_topics, rc == SKLDA_OK ? "" : err.message);
  const double ll = m != NULL ? sklda_model_joint_ll(m) : NAN;
  sklda_model_free(m);
  return ll;
}

/* start_topics: the default (< 0) is 128, which leaves documents of at most 128 tokens (all of c's) on the
   uniform start and starts longer ones sparse; a smaller bound changes the start; a bound given with
   resume_dir is refused. */
static void check_start_topics(const sklda_corpus *c) {
  sklda_options o;
  sklda_options_default(&o);
  SK_CHECK(o.start_topics < 0, "start_topics defaults to %d, not 'not given'", (int)o.start_topics);
  const double by_default = start_ll(c, 0, 0), uniform = start_ll(c, 1, 0), sparse = start_ll(c, 1, 8);
  SK_CHECK(by_default == uniform, "documents of at most 128 tokens: default %.17g, uniform %.17g", by_default, uniform);
  SK_CHECK(sparse != uniform, "start_topics 8 gave the uniform start's joint LL %.17g", sparse);
  /* Documents of 400 tokens: the default is 128, not the uniform start. */
  enum { kLongDocs = 12, kLongLen = 400 };
  static int64_t long_offsets[kLongDocs + 1];
  static int32_t long_words[kLongDocs * kLongLen];
  uint64_t rng = 99;
  for (int d = 0; d <= kLongDocs; ++d) long_offsets[d] = (int64_t)d * kLongLen;
  for (int i = 0; i < kLongDocs * kLongLen; ++i) long_words[i] = (int32_t)(sk_test_rand_u32(&rng) % V);
  sklda_corpus *lc = NULL;
  sklda_error cerr;
  if (SK_CHECK(sklda_corpus_from_csr(kLongDocs, V, long_offsets, long_words, NULL, &lc, &cerr) == SKLDA_OK,
               "long corpus: %s", cerr.message)) {
    const double long_default = start_ll(lc, 0, 0), long_128 = start_ll(lc, 1, 128), long_uniform = start_ll(lc, 1, 0);
    SK_CHECK(long_default == long_128, "default start %.17g differs from 128's %.17g", long_default, long_128);
    SK_CHECK(long_default != long_uniform, "documents of 400 tokens: the default gave the uniform start (%.17g)",
             long_default);
    sklda_corpus_free(lc);
  }
  sklda_model *none = NULL;
  sklda_error err;
  o.start_topics = 8;
  o.resume_dir = "/nonexistent/run";
  SK_CHECK(sklda_train(c, &o, &none, &err) == SKLDA_ERROR_INPUT && none == NULL &&
               strstr(err.message, "start_topics applies to a new run") != NULL,
           "start_topics with resume_dir refused: %s", err.message);
}

/* The held-out LL after 3 CPU sweeps at K = 5 with heldout_sweeps = n (0: the default). */
static double heldout_with(const sklda_corpus *c, int32_t n, int *status, sklda_error *err) {
  sklda_options o;
  cpu_esca_options(&o, 5, 3, 0.2);
  o.heldout_sweeps = n;
  sklda_model *m = NULL;
  *status = sklda_train(c, &o, &m, err);
  const double ll = m != NULL ? sklda_model_heldout_ll(m) : NAN;
  sklda_model_free(m);
  return ll;
}

/* heldout_sweeps: 0 (the default) is 12 at K = 5; another count gives another score; below 0 is refused. */
static void check_heldout_sweeps(const sklda_corpus *c) {
  sklda_options o;
  sklda_options_default(&o);
  SK_CHECK(o.heldout_sweeps == 0, "heldout_sweeps defaults to %d, not 0", (int)o.heldout_sweeps);
  int st0 = 0, st10 = 0, st3 = 0, bad = 0;
  sklda_error err;
  const double by_default = heldout_with(c, 0, &st0, &err), ten = heldout_with(c, 12, &st10, &err),
               three = heldout_with(c, 3, &st3, &err);
  SK_CHECK(st0 == SKLDA_OK && st10 == SKLDA_OK && st3 == SKLDA_OK && isfinite(by_default), "trains: %d %d %d", st0,
           st10, st3);
  SK_CHECK(by_default == ten, "heldout_sweeps 0 scored %.17g, 12 %.17g", by_default, ten);
  SK_CHECK(three != ten, "heldout_sweeps 3 scored as 12 did (%.17g)", three);
  (void)heldout_with(c, -1, &bad, &err);
  SK_CHECK(bad == SKLDA_ERROR_INPUT && strstr(err.message, "heldout_sweeps") != NULL, "heldout_sweeps -1: %d %s", bad,
           bad == SKLDA_ERROR_INPUT ? err.message : "");
}

int main(int argc, char **argv) {
  const int gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
  if (gpu && !sklda_gpu_available()) {
    printf("SKIP: no GPU\n");
    return SK_TEST_SKIP_CODE;
  }
  SK_CHECK(strcmp(sklda_version(), SKLDA_VERSION) == 0, "version");
  check_csr_refusals();
  sklda_corpus *c = make_corpus(1);
  if (c == NULL) return sk_test_finish();
  SK_CHECK(sklda_corpus_num_input_docs(c) == D && sklda_corpus_num_words(c) == V, "corpus sizes");
  if (!gpu) check_start_topics(c);
  if (!gpu) check_heldout_sweeps(c);

  watch w = {0, 0, 0, 0};
  int status;
  sklda_model *m = train(c, "cpu", 0, &w, &status);
  if (m == NULL) return sk_test_finish();
  SK_CHECK(w.calls == 40 && w.last_sweep == 40 && w.infos == 1, "progress %d calls, report %d", w.calls, w.infos);
  SK_CHECK(sklda_model_num_topics(m) == K && sklda_model_num_words(m) == V && sklda_model_sweeps(m) == 40, "sizes");
  SK_CHECK(isfinite(sklda_model_joint_ll(m)) && isfinite(sklda_model_heldout_ll(m)), "log-likelihoods");
  float *phi = (float *)malloc(sizeof(float) * K * V), *theta = (float *)malloc(sizeof(float) * D * K);
  SK_CHECK(sklda_model_phi(m, phi, NULL) == SKLDA_OK, "phi");
  check_rows_sum_to_one(phi, K, V, "phi");
  SK_CHECK(sklda_model_num_docs(m) == D, "theta rows %d", (int)sklda_model_num_docs(m));
  SK_CHECK(sklda_model_theta(m, theta, NULL) == SKLDA_OK, "theta");
  check_rows_sum_to_one(theta, D, K, "theta");
  for (int k = 0; k < K; ++k) SK_CHECK(theta[7 * K + k] == 1.0f / K, "the empty document's row is 1/K");
  double alpha[K];
  sklda_model_alpha(m, alpha);
  SK_CHECK(alpha[0] == 50.0 / K && alpha[K - 1] == 50.0 / K, "alpha %g", alpha[0]);

  /* Each planted topic's words are one block of V / K ids: every learned topic's top 5 words lie in one. */
  int32_t top[K * 5];
  SK_CHECK(sklda_model_top_words(m, 5, top, NULL) == SKLDA_OK, "top words");
  int recovered = 0;
  for (int k = 0; k < K; ++k) {
    int same = 1;
    for (int i = 1; i < 5; ++i) same &= top[k * 5 + i] / (V / K) == top[k * 5] / (V / K);
    recovered += same;
  }
  SK_CHECK(recovered >= K - 1, "planted topics recovered: %d of %d", recovered, K);

  /* Saved and loaded: the same phi, bit for bit, and the same words. */
  const char *path = "test_api_model.skl";
  sklda_model *loaded = NULL;
  sklda_error save_err;
  SK_CHECK(sklda_model_save(m, "", &save_err) == SKLDA_ERROR_INPUT && strstr(save_err.message, "empty") != NULL,
           "an empty path refused as the caller's: %s", save_err.message);
  SK_CHECK(sklda_model_save(m, path, NULL) == SKLDA_OK && sklda_model_load(path, &loaded, NULL) == SKLDA_OK,
           "save and load");
  if (loaded != NULL) {
    float *phi2 = (float *)malloc(sizeof(float) * K * V);
    SK_CHECK(sklda_model_phi(loaded, phi2, NULL) == SKLDA_OK && memcmp(phi, phi2, sizeof(float) * K * V) == 0,
             "loaded phi equals the trained one");
    SK_CHECK(strcmp(sklda_model_word(loaded, 5), "w5") == 0 && isnan(sklda_model_joint_ll(loaded)), "loaded words");
    sklda_error err;
    SK_CHECK(sklda_model_theta(loaded, theta, &err) == SKLDA_ERROR_INPUT && strstr(err.message, "loaded") != NULL,
             "a loaded model has no theta: %s", err.message);
    free(phi2);
  }
  remove(path);

  /* Inference on the training documents, the held-out score, coherence. */
  sklda_infer_options io;
  sklda_infer_options_default(&io);
  SK_CHECK(sklda_infer(loaded != NULL ? loaded : m, c, &io, theta, NULL, NULL) == SKLDA_OK, "infer");
  check_rows_sum_to_one(theta, D, K, "inferred theta");
  double ll = 0, ll_again = 0;
  SK_CHECK(sklda_score(m, c, &io, &ll, NULL) == SKLDA_OK && isfinite(ll) && ll < 0, "score %g", ll);
  SK_CHECK(sklda_score(m, c, &io, &ll_again, NULL) == SKLDA_OK && ll == ll_again, "score is deterministic");
  SK_CHECK(ll > -log((double)V), "score %g beats the uniform model's %g", ll, -log((double)V));
  /* iters 0 (the default) is the held-out score's sweeps for the model's K; below 0 is refused by name. */
  {
    sklda_infer_options explicit_io = io;
    explicit_io.iters = 12; /* sk_lda.h: 12 up to K = 1,024 */
    double ll_explicit = 0;
    SK_CHECK(io.iters == 0 && sklda_score(m, c, &explicit_io, &ll_explicit, NULL) == SKLDA_OK && ll_explicit == ll,
             "iters 0 scores %.17g, iters %d %.17g", ll, explicit_io.iters, ll_explicit);
    explicit_io.iters = -1;
    sklda_error err;
    SK_CHECK(sklda_score(m, c, &explicit_io, &ll_explicit, &err) == SKLDA_ERROR_INPUT &&
                 strstr(err.message, "iters") != NULL,
             "iters -1 refused: %s", err.message);
  }
  double umass[K], npmi[K];
  SK_CHECK(sklda_coherence(m, c, 2, umass, npmi, NULL) == SKLDA_OK, "coherence");
  SK_CHECK(fabs(umass[0] - direct_umass2(top[0], top[1])) < 1e-12,
           "UMass of topic 0's top 2 words %.15g, direct count %.15g", umass[0], direct_umass2(top[0], top[1]));
  {
    /* Documents with no token: nothing to count co-occurrences in, the caller's error. */
    const int64_t empty_offsets[3] = {0, 0, 0};
    sklda_corpus *none = NULL;
    sklda_error cerr;
    if (SK_CHECK(sklda_corpus_from_csr(2, V, empty_offsets, NULL, NULL, &none, &cerr) == SKLDA_OK, "%s", cerr.message))
      SK_CHECK(sklda_coherence(m, none, 2, umass, npmi, &cerr) == SKLDA_ERROR_INPUT &&
                   strstr(cerr.message, "no token") != NULL,
               "coherence over empty documents: %s", cerr.message);
    sklda_corpus_free(none);
  }

  /* The same seed, the same model. */
  int status2;
  sklda_model *again = train(c, "cpu", 0, NULL, &status2);
  if (again != NULL) {
    float *phi2 = (float *)malloc(sizeof(float) * K * V);
    SK_CHECK(sklda_model_phi(again, phi2, NULL) == SKLDA_OK && memcmp(phi, phi2, sizeof(float) * K * V) == 0,
             "the same seed gives the same phi");
    free(phi2);
  }
  sklda_model_free(again);

  /* The progress callback stops the run. */
  watch stop = {0, 12, 0, 0};
  sklda_model *stopped = train(c, "cpu", 0, &stop, &status);
  SK_CHECK(status == SKLDA_STOPPED && stopped != NULL && sklda_model_sweeps(stopped) == 12 && stop.calls == 12,
           "stopped after sweep 12: status %d, %llu sweeps", status,
           stopped != NULL ? (unsigned long long)sklda_model_sweeps(stopped) : 0ull);
  sklda_model_free(stopped);

  /* Bad options are refused, naming the option. */
  sklda_options o;
  sklda_error err;
  sklda_model *none = NULL;
  sklda_options_default(&o);
  o.num_topics = -3;
  SK_CHECK(sklda_train(c, &o, &none, &err) == SKLDA_ERROR_INPUT && none == NULL && strstr(err.message, "num_topics"),
           "num_topics refused: %s", err.message);
  sklda_options_default(&o);
  o.sampler = "gibbs";
  SK_CHECK(sklda_train(c, &o, &none, &err) == SKLDA_ERROR_INPUT && strstr(err.message, "gibbs"),
           "sampler refused: %s", err.message);
  sklda_options_default(&o);
  o.resume_dir = "/nonexistent/run";
  SK_CHECK(sklda_train(c, &o, &none, &err) == SKLDA_ERROR_INPUT && strstr(err.message, "/nonexistent/run"),
           "resume of nothing refused: %s", err.message);

  if (gpu) { /* the GPU's exact sweep: the CPU's model, bit for bit */
    sklda_model *g = train(c, "gpu", 1, NULL, &status);
    if (g != NULL) {
      float *phi2 = (float *)malloc(sizeof(float) * K * V);
      SK_CHECK(sklda_model_phi(g, phi2, NULL) == SKLDA_OK && memcmp(phi, phi2, sizeof(float) * K * V) == 0,
               "GPU exact sweep's phi equals the CPU's");
      SK_CHECK(sklda_model_heldout_ll(g) == sklda_model_heldout_ll(m), "held-out LL %.17g vs %.17g",
               sklda_model_heldout_ll(g), sklda_model_heldout_ll(m));
      free(phi2);
    }
    sklda_model_free(g);
    sklda_model *f = train(c, "gpu", 0, NULL, &status);
    SK_CHECK(f != NULL && fabs(sklda_model_joint_ll(f) - sklda_model_joint_ll(m)) < 0.01 * fabs(sklda_model_joint_ll(m)),
             "GPU fast sweep's joint LL within 1%% of the CPU's");
    sklda_model_free(f);
  }
  free(phi);
  free(theta);
  sklda_model_free(loaded);
  sklda_model_free(m);
  sklda_corpus_free(c);
  return sk_test_finish();
}
