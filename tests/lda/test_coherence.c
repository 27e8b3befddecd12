/*
 * Topic coherence (examples/lda/src/coherence.h): UMass and NPMI against values worked out by hand, and
 * against a brute-force count (for every pair, a scan of every document) with the formulas written out
 * again here from the probabilities, over seeded random corpora, top words and thread counts: the counts
 * must be equal exactly, the scores agree to 1e-12. The special cases (a top word absent from the corpus,
 * p_ij = 0, p_ij = 1), a planted-bug control, the argument checks and the CSV file.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coherence.h"
#include "corpus.h"
#include "lda_test_corpus.h"
#include "output.h"
#include "sk_test.h"

#define TOL 1e-12

/* Set when the planted-bug reference (UMass conditioned on the lower rank) disagreed with the correct one on
   a random case: the random comparison can tell the two apart. */
static int planted_bug_seen = 0;

/* Whether document d of c contains word w: a plain scan, independent of the library's map. */
static int doc_has(const sk_lda_corpus *c, int32_t d, int32_t w) {
  for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t)
    if (c->tokens[t] == w) return 1;
  return 0;
}

/* D(a, b) by a scan of every document (D(a) when a == b). */
static int32_t brute_docs(const sk_lda_corpus *c, int32_t a, int32_t b) {
  int32_t n = 0;
  for (int32_t d = 0; d < c->num_docs; ++d) n += doc_has(c, d, a) && doc_has(c, d, b);
  return n;
}

/* The reference scores of one topic (words w[0 .. N) by rank), from the probabilities as coherence.h
   writes them. condition_on_lower != 0 plants a bug: UMass conditions on the lower-ranked word. */
static void brute_scores(const sk_lda_corpus *c, const int32_t *w, int32_t N, int condition_on_lower, double *umass,
                         double *npmi) {
  const double D = (double)c->num_docs;
  double u = 0.0, n = 0.0;
  for (int32_t i = 1; i < N; ++i) {
    for (int32_t j = 0; j < i; ++j) {
      const double dij = brute_docs(c, w[i], w[j]);
      const double dcond = brute_docs(c, condition_on_lower ? w[i] : w[j], condition_on_lower ? w[i] : w[j]);
      u += dcond > 0 ? log((dij + 1.0) / dcond) : log(1.0 / D);
      const double pi = brute_docs(c, w[i], w[i]) / D, pj = brute_docs(c, w[j], w[j]) / D, pij = dij / D;
      n += pij == 0.0 ? -1.0 : pij == 1.0 ? 1.0 : log(pij / (pi * pj)) / -log(pij);
    }
  }
  const double P = (double)N * (double)(N - 1) / 2.0;
  *umass = u / P;
  *npmi = n / P;
}

/* Scores of one topic through the library (K = 1). */
static int lib_scores(const sk_lda_corpus *c, const int32_t *w, int32_t N, double *umass, double *npmi) {
  sk_ex_error err;
  const int st = sk_lda_coherence(c, w, 1, N, 2, umass, npmi, &err);
  if (st != 0) SK_CHECK(0, "sk_lda_coherence failed: %s", err.message);
  return st == 0;
}

static int near(double a, double b) { return fabs(a - b) <= TOL; }

/* The hand-computed case, 4 documents over the words a = 0, b = 1, c = 2 (V = 4: word 3 never occurs):
     d0: a b      d1: a b c      d2: a a      d3: c
   D = 4; D(a) = 3, D(b) = 2, D(c) = 2; D(a,b) = 2, D(a,c) = 1, D(b,c) = 1 (a repeated in d2 counts once).
   Top words (a, b, c), ranks 1, 2, 3:
     UMass terms: log((D(b,a)+1)/D(a)) = log(3/3) = 0; log((D(c,a)+1)/D(a)) = log(2/3);
                  log((D(c,b)+1)/D(b)) = log(2/2) = 0;  mean = log(2/3)/3 = -0.13515503603605478.
     NPMI: p(a) = 3/4, p(b) = p(c) = 1/2, p(ab) = 1/2, p(ac) = p(bc) = 1/4;
           (a,b): log((1/2)/(3/8)) / log 2 = log2(4/3) = 2 - log2 3;
           (a,c): log((1/4)/(3/8)) / log 4 = (1 - log2 3)/2;   (b,c): log((1/4)/(1/4)) / log 4 = 0;
           mean = (5/2 - (3/2) log2 3)/3 = 5/6 - (1/2) log2 3 = 0.040852083.
   Top words (c, b, a), the same words in reverse rank:
     UMass: log((D(b,c)+1)/D(c)) = 0, log((D(a,c)+1)/D(c)) = 0, log((D(a,b)+1)/D(b)) = log(3/2);
            mean = log(3/2)/3 = +0.13515503603605478: the order matters, NPMI (symmetric) does not.
   A top word absent from the corpus (d = 3), D(d) = 0:
     (a, d): UMass log((0+1)/D(a)) = -log 3; NPMI -1 (p_ad = 0).
     (d, a): UMass conditions on d, D(d) = 0: the least value, log(1/D) = -log 4; NPMI -1. */
static void test_hand_case(void) {
  const int32_t len[4] = {2, 3, 2, 1}, words[8] = {0, 1, 0, 1, 2, 0, 0, 2};
  sk_lda_corpus c = make_corpus(4, 4, len, words);
  double u = 0.0, n = 0.0;
  const double log2_3 = log(3.0) / log(2.0);
  sk_test_context("hand case: (a, b, c)");
  const int32_t abc[3] = {0, 1, 2}, cba[3] = {2, 1, 0};
  int32_t doc_count[3], pair_count[3];
  sk_ex_error err;
  if (SK_CHECK(sk_lda_coherence_count(&c, abc, 1, 3, 1, doc_count, pair_count, &err) == 0, "count: %s", err.message)) {
    SK_CHECK(doc_count[0] == 3 && doc_count[1] == 2 && doc_count[2] == 2, "D(a, b, c) = %d %d %d, want 3 2 2",
             (int)doc_count[0], (int)doc_count[1], (int)doc_count[2]);
    SK_CHECK(pair_count[SK_LDA_COHERENCE_PAIR(1, 0)] == 2 && pair_count[SK_LDA_COHERENCE_PAIR(2, 0)] == 1 &&
                 pair_count[SK_LDA_COHERENCE_PAIR(2, 1)] == 1,
             "D(ab), D(ac), D(bc) = %d %d %d, want 2 1 1", (int)pair_count[0], (int)pair_count[1], (int)pair_count[2]);
  }
  if (lib_scores(&c, abc, 3, &u, &n)) {
    SK_CHECK(near(u, log(2.0 / 3.0) / 3.0), "UMass %.17g, want log(2/3)/3 = %.17g", u, log(2.0 / 3.0) / 3.0);
    SK_CHECK(near(n, 5.0 / 6.0 - 0.5 * log2_3), "NPMI %.17g, want 5/6 - log2(3)/2 = %.17g", n, 5.0 / 6.0 - 0.5 * log2_3);
  }
  sk_test_context("hand case: (c, b, a)");
  double u_rev = 0.0, n_rev = 0.0;
  if (lib_scores(&c, cba, 3, &u_rev, &n_rev)) {
    SK_CHECK(near(u_rev, log(1.5) / 3.0), "UMass %.17g, want log(3/2)/3 = %.17g", u_rev, log(1.5) / 3.0);
    SK_CHECK(near(n_rev, n), "NPMI %.17g differs from (a, b, c)'s %.17g (it is symmetric)", n_rev, n);
  }
  /* Planted-bug control: conditioning on the lower-ranked word gives (c, b, a)'s value, log(3/2)/3, not
     log(2/3)/3; the reference with that bug must disagree with the library, or this test could not see it. */
  sk_test_context("hand case: planted bug (UMass conditioned on the lower rank)");
  double u_bug = 0.0, n_bug = 0.0;
  brute_scores(&c, abc, 3, 1, &u_bug, &n_bug);
  SK_CHECK(near(u_bug, log(1.5) / 3.0) && !near(u_bug, u), "the swapped UMass %.17g is not told apart from %.17g",
           u_bug, u);
  sk_test_context("hand case: a top word absent from the corpus");
  const int32_t ad[2] = {0, 3}, da[2] = {3, 0};
  if (lib_scores(&c, ad, 2, &u, &n)) {
    SK_CHECK(near(u, -log(3.0)) && n == -1.0, "(a, d): UMass %.17g (want -log 3), NPMI %.17g (want -1)", u, n);
    SK_CHECK(isfinite(u) && isfinite(n), "(a, d): not finite");
  }
  if (lib_scores(&c, da, 2, &u, &n))
    SK_CHECK(near(u, -log(4.0)) && n == -1.0, "(d, a): UMass %.17g (want -log 4), NPMI %.17g (want -1)", u, n);
  sk_lda_corpus_free(&c);
}

/* p_ij = 0 with both words present, and p_ij = 1. */
static void test_pair_extremes(void) {
  const int32_t ab[2] = {0, 1};
  double u = 0.0, n = 0.0;
  {
    /* d0: a, d1: b. D(a) = D(b) = 1, D(a,b) = 0: NPMI -1; UMass log((0+1)/1) = 0. */
    const int32_t len[2] = {1, 1}, words[2] = {0, 1};
    sk_lda_corpus c = make_corpus(2, 2, len, words);
    sk_test_context("p_ij = 0");
    if (lib_scores(&c, ab, 2, &u, &n)) SK_CHECK(u == 0.0 && n == -1.0, "UMass %.17g (want 0), NPMI %.17g (want -1)", u, n);
    sk_lda_corpus_free(&c);
  }
  {
    /* Three documents, each with a and b: p_a = p_b = p_ab = 1: NPMI +1; UMass log((3+1)/3). */
    const int32_t len[3] = {2, 3, 2}, words[7] = {0, 1, 1, 2, 0, 1, 0};
    sk_lda_corpus c = make_corpus(3, 3, len, words);
    sk_test_context("p_ij = 1");
    if (lib_scores(&c, ab, 2, &u, &n))
      SK_CHECK(near(u, log(4.0 / 3.0)) && n == 1.0, "UMass %.17g (want log(4/3)), NPMI %.17g (want 1)", u, n);
    sk_lda_corpus_free(&c);
  }
  {
    /* One document: D = 1; a present, b absent: UMass log(1/1) = 0 = log(1/D), NPMI -1. */
    const int32_t len[1] = {1}, words[1] = {0};
    sk_lda_corpus c = make_corpus(2, 1, len, words);
    sk_test_context("D = 1, an absent word");
    if (lib_scores(&c, ab, 2, &u, &n)) SK_CHECK(u == 0.0 && n == -1.0, "UMass %.17g (want 0), NPMI %.17g (want -1)", u, n);
    sk_lda_corpus_free(&c);
  }
}

/* N distinct words of [0, V) for each of K topics (a partial shuffle per topic). */
static void random_top_words(int32_t *top, int32_t K, int32_t N, int32_t V, uint64_t *s) {
  int32_t *perm = (int32_t *)malloc((size_t)V * sizeof *perm);
  for (int32_t k = 0; k < K; ++k) {
    for (int32_t v = 0; v < V; ++v) perm[v] = v;
    for (int32_t r = 0; r < N; ++r) {
      const int32_t pick = r + (int32_t)(sk_test_rand_u32(s) % (uint32_t)(V - r));
      const int32_t t = perm[r];
      perm[r] = perm[pick];
      perm[pick] = t;
      top[(size_t)k * (size_t)N + (size_t)r] = perm[r];
    }
  }
  free(perm);
}

/* Counts and scores of K topics against the brute force; threads as given. */
static void check_against_brute(const sk_lda_corpus *c, const int32_t *top, int32_t K, int32_t N, int threads) {
  const int64_t P = SK_LDA_COHERENCE_PAIR(N, 0);
  int32_t *dc = (int32_t *)malloc((size_t)K * (size_t)N * sizeof *dc);
  int32_t *pc = (int32_t *)malloc((size_t)K * (size_t)P * sizeof *pc);
  double *um = (double *)malloc((size_t)K * sizeof *um), *np = (double *)malloc((size_t)K * sizeof *np);
  sk_ex_error err;
  if (SK_CHECK(sk_lda_coherence_count(c, top, K, N, threads, dc, pc, &err) == 0, "count: %s", err.message) &&
      SK_CHECK(sk_lda_coherence_scores(c->num_docs, K, N, dc, pc, um, np, &err) == 0, "scores: %s", err.message)) {
    int bad = 0;
    for (int32_t k = 0; k < K && !bad; ++k) {
      const int32_t *w = top + (size_t)k * (size_t)N;
      for (int32_t i = 0; i < N && !bad; ++i) {
        const int32_t want = brute_docs(c, w[i], w[i]);
        bad = !SK_CHECK(dc[(size_t)k * (size_t)N + (size_t)i] == want, "topic %d rank %d: D(w) %d, brute force %d",
                        (int)k, (int)i, (int)dc[(size_t)k * (size_t)N + (size_t)i], (int)want);
        for (int32_t j = 0; j < i && !bad; ++j) {
          const int32_t got = pc[(size_t)k * (size_t)P + (size_t)SK_LDA_COHERENCE_PAIR(i, j)];
          const int32_t pair_want = brute_docs(c, w[i], w[j]);
          bad = !SK_CHECK(got == pair_want, "topic %d ranks (%d, %d): D(pair) %d, brute force %d", (int)k, (int)i,
                          (int)j, (int)got, (int)pair_want);
        }
      }
      double u = 0.0, n = 0.0, u_bug = 0.0, n_bug = 0.0;
      brute_scores(c, w, N, 0, &u, &n);
      bad = bad || !SK_CHECK(near(um[k], u) && near(np[k], n), "topic %d: UMass %.17g NPMI %.17g, brute force %.17g %.17g",
                             (int)k, um[k], np[k], u, n);
      bad = bad || !SK_CHECK(isfinite(um[k]) && isfinite(np[k]) && np[k] >= -1.0 && np[k] <= 1.0 &&
                                 um[k] <= log(2.0) + TOL && um[k] >= -log((double)c->num_docs) - TOL,
                             "topic %d: UMass %.17g or NPMI %.17g out of its range", (int)k, um[k], np[k]);
      brute_scores(c, w, N, 1, &u_bug, &n_bug);
      if (!near(u_bug, u)) planted_bug_seen = 1;
    }
  }
  free(dc);
  free(pc);
  free(um);
  free(np);
}

/* Seeded random corpora (uniform; and skewed, with empty documents, repeats and a long document), random
   top words and top words from sk_lda_top_words_find() of a random n_vk, for several K, N and threads. */
static void test_random(void) {
  const int seeds = sk_test_seed_count();
  const int32_t Ks[] = {1, 3, 17};
  const int32_t Ns[] = {2, 3, 10, 20};
  const int threads[] = {1, 2, 3, 7};
  for (int seed = 1; seed <= seeds; ++seed) {
    for (int shape = 0; shape < 2; ++shape) {
      sk_lda_corpus c = shape == 0 ? make_uniform_corpus(1 + seed * 7, 30 + seed, 25, (uint64_t)seed)
                                   : make_count_corpus((uint64_t)seed * 977u + 5u);
      uint64_t s = (uint64_t)seed * 31u + (uint64_t)shape;
      for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ++ki) {
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ++ni) {
          const int32_t K = Ks[ki], N = Ns[ni];
          if (c.num_docs < 1 || N > c.num_words) continue;
          const int th = threads[(ki + ni + (size_t)seed) % 4];
          sk_test_context("seed %d, %s corpus (D = %d, V = %d), K = %d, N = %d, threads %d", seed,
                          shape == 0 ? "uniform" : "skewed", (int)c.num_docs, (int)c.num_words, (int)K, (int)N, th);
          int32_t *top = (int32_t *)malloc((size_t)K * (size_t)N * sizeof *top);
          random_top_words(top, K, N, c.num_words, &s);
          check_against_brute(&c, top, K, N, th);
          free(top);
          /* The words eval scores: a topic's top words by n_vk, here a random n_vk with ties. */
          int32_t *n_vk = (int32_t *)malloc((size_t)c.num_words * (size_t)K * sizeof *n_vk);
          for (size_t i = 0; i < (size_t)c.num_words * (size_t)K; ++i) n_vk[i] = (int32_t)(sk_test_rand_u32(&s) % 6u);
          sk_lda_top_words tw;
          sk_ex_error err;
          if (SK_CHECK(sk_lda_top_words_find(&tw, n_vk, c.num_words, K, N, &err) == 0, "top words: %s", err.message)) {
            check_against_brute(&c, tw.word, K, N, th);
            sk_lda_top_words_free(&tw);
          }
          free(n_vk);
        }
      }
      sk_lda_corpus_free(&c);
    }
  }
  sk_test_context("random cases");
  SK_CHECK(planted_bug_seen, "the planted-bug UMass never differed from the right one: the comparison is blind");
}

/* The same counts for any thread count (integers), on a corpus large enough to spread over threads. */
static void test_threads(void) {
  sk_lda_corpus c = make_uniform_corpus(3000, 60, 40, 99);
  const int32_t K = 8, N = 12;
  const int64_t P = SK_LDA_COHERENCE_PAIR(N, 0);
  uint64_t s = 7;
  int32_t top[8 * 12];
  random_top_words(top, K, N, c.num_words, &s);
  int32_t dc1[8 * 12], dcn[8 * 12];
  int32_t *pc1 = (int32_t *)malloc((size_t)K * (size_t)P * sizeof *pc1), *pcn = (int32_t *)malloc((size_t)K * (size_t)P * sizeof *pcn);
  sk_ex_error err;
  sk_test_context("threads 1 against 2, 5, 16");
  if (SK_CHECK(sk_lda_coherence_count(&c, top, K, N, 1, dc1, pc1, &err) == 0, "count: %s", err.message)) {
    const int th[3] = {2, 5, 16};
    for (int i = 0; i < 3; ++i)
      if (SK_CHECK(sk_lda_coherence_count(&c, top, K, N, th[i], dcn, pcn, &err) == 0, "count: %s", err.message))
        SK_CHECK(memcmp(dc1, dcn, sizeof dc1) == 0 && memcmp(pc1, pcn, (size_t)K * (size_t)P * sizeof *pc1) == 0,
                 "%d threads give other counts than 1", th[i]);
  }
  free(pc1);
  free(pcn);
  sk_lda_corpus_free(&c);
}

/* Every documented refusal: an error, with a message. */
static void test_arguments(void) {
  const int32_t len[2] = {2, 1}, words[3] = {0, 1, 2};
  sk_lda_corpus c = make_corpus(3, 2, len, words);
  const int32_t good[2] = {0, 1}, repeated[2] = {1, 1}, out[2] = {0, 3}, negative[2] = {-1, 0};
  int32_t dc[4], pc[2];
  double u[2], n[2];
  sk_ex_error err;
  sk_test_context("argument checks");
  err.message[0] = '\0';
  SK_CHECK(sk_lda_coherence_count(NULL, good, 1, 2, 1, dc, pc, &err) != 0 && err.message[0] != '\0', "NULL corpus");
  SK_CHECK(sk_lda_coherence_count(&c, NULL, 1, 2, 1, dc, pc, &err) != 0, "NULL top words");
  SK_CHECK(sk_lda_coherence_count(&c, good, 1, 2, 1, NULL, pc, &err) != 0, "NULL doc_count");
  SK_CHECK(sk_lda_coherence_count(&c, good, 0, 2, 1, dc, pc, &err) != 0, "K = 0");
  SK_CHECK(sk_lda_coherence_count(&c, good, 1, 1, 1, dc, pc, &err) != 0, "N = 1");
  SK_CHECK(sk_lda_coherence_count(&c, good, 1, 4, 1, dc, pc, &err) != 0, "N > V");
  SK_CHECK(sk_lda_coherence_count(&c, repeated, 1, 2, 1, dc, pc, &err) != 0 && strstr(err.message, "repeated"),
           "a repeated top word: %s", err.message);
  SK_CHECK(sk_lda_coherence_count(&c, out, 1, 2, 1, dc, pc, &err) != 0 && strstr(err.message, "out of range"),
           "a top word out of range: %s", err.message);
  SK_CHECK(sk_lda_coherence_count(&c, negative, 1, 2, 1, dc, pc, &err) != 0, "a negative top word");
  SK_CHECK(sk_lda_coherence(&c, good, 1, 1, 1, u, n, &err) != 0, "sk_lda_coherence N = 1");
  c.tokens[1] = 7; /* a token out of the vocabulary */
  SK_CHECK(sk_lda_coherence_count(&c, good, 1, 2, 2, dc, pc, &err) != 0 && strstr(err.message, "token"),
           "a token out of range: %s", err.message);
  sk_lda_corpus_free(&c);
  sk_lda_corpus empty = make_corpus(3, 0, len, words);
  SK_CHECK(sk_lda_coherence_count(&empty, good, 1, 2, 1, dc, pc, &err) != 0, "no document");
  sk_lda_corpus_free(&empty);
  /* Inconsistent counts are refused by the scores, not turned into NaN. */
  const int32_t ok_dc[2] = {2, 1}, ok_pc[1] = {1}, big_pair[1] = {2}, big_word[2] = {5, 1};
  SK_CHECK(sk_lda_coherence_scores(4, 1, 2, ok_dc, ok_pc, u, n, &err) == 0, "consistent counts: %s", err.message);
  SK_CHECK(sk_lda_coherence_scores(4, 1, 2, ok_dc, big_pair, u, n, &err) != 0, "D(pair) > D(word)");
  SK_CHECK(sk_lda_coherence_scores(4, 1, 2, big_word, ok_pc, u, n, &err) != 0, "D(word) > D");
  SK_CHECK(sk_lda_coherence_scores(0, 1, 2, ok_dc, ok_pc, u, n, &err) != 0, "D = 0");
  SK_CHECK(sk_lda_coherence_scores(4, 1, 2, NULL, ok_pc, u, n, &err) != 0, "NULL doc_count");
  SK_CHECK(sk_lda_coherence_scores(4, 1, 2, ok_dc, ok_pc, NULL, NULL, &err) == 0, "NULL outputs are allowed");
}

/* The CSV: header, one line per topic, round-trip numbers, quotes doubled, ids without a vocabulary. */
static void test_csv(void) {
  char dir[] = "/tmp/sk_lda_test_coherence.XXXXXX";
  sk_test_context("CSV");
  if (!SK_CHECK(mkdtemp(dir) != NULL, "cannot make a temporary folder")) return;
  char path[128];
  snprintf(path, sizeof path, "%s/c.csv", dir);
  char w0[] = "say\"hi", w1[] = "b", w2[] = "c";
  char *vocab[3] = {w0, w1, w2};
  const int32_t top[4] = {0, 1, 2, 1};
  const double umass[2] = {-0.1, 0.25}, npmi[2] = {1.0 / 3.0, -1.0};
  sk_ex_error err;
  char text[512] = "";
  if (SK_CHECK(sk_lda_write_coherence_csv(path, 2, 2, top, vocab, umass, npmi, &err) == 0, "write: %s", err.message)) {
    FILE *f = fopen(path, "r");
    const size_t got = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f != NULL) fclose(f);
    char want[512];
    snprintf(want, sizeof want, "topic,umass,npmi,top_words\n0,%.17g,%.17g,\"say\"\"hi b\"\n1,%.17g,%.17g,\"c b\"\n",
             umass[0], npmi[0], umass[1], npmi[1]);
    SK_CHECK(strcmp(text, want) == 0, "the file is\n%s\nwant\n%s", text, want);
    char *end = NULL;
    const double back_u = strtod(text + 29, &end), back_n = strtod(end + 1, NULL); /* after "header\n0," */
    SK_CHECK(back_u == umass[0] && back_n == npmi[0], "%%.17g does not round-trip: %.17g %.17g", back_u, back_n);
  }
  if (SK_CHECK(sk_lda_write_coherence_csv(path, 2, 2, top, NULL, umass, npmi, &err) == 0, "write: %s", err.message)) {
    FILE *f = fopen(path, "r");
    const size_t got = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f != NULL) fclose(f);
    SK_CHECK(strstr(text, "\"w000000 w000001\"") != NULL, "ids without a vocabulary: %s", text);
  }
  SK_CHECK(sk_lda_write_coherence_csv(path, 2, 2, NULL, vocab, umass, npmi, &err) != 0, "NULL top words");
  remove(path);
  rmdir(dir);
}

int main(void) {
  test_hand_case();
  test_pair_extremes();
  test_random();
  test_threads();
  test_arguments();
  test_csv();
  return sk_test_finish();
}
