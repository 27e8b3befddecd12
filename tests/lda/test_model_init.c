/*
 * The host's preparation of a training run over the OpenMP threads (model.h, split.h, checkpoint.h): the
 * model init (seeded topics, document-topic rows, word-topic counts), the split and the corpus fingerprint
 * give the same bits with 1, 2 and 5 threads, and equal plain serial references computed here from the
 * documented formulas (topics from SK_LDA_STREAM_INIT, counts by direct loops, rows ascending, the
 * fingerprint as one crc32() over the little-endian bytes); the words' totals (sk_lda_model_word_totals())
 * equal each word's tokens. K spans both ways a row is ordered (the bitmap
 * of the topics seen and the sort of short rows). The parallel checks still name the first offender.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <samplekit/rng.h>

#include "checkpoint.h"
#include "lda_test_corpus.h"
#include "model.h"
#include "sk_test.h"
#include "split.h"

static void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

/* The model against the documented construction, computed serially; returns 1 when it matches. */
static int matches_reference(const sk_lda_model *m, const sk_lda_corpus *c, uint64_t seed) {
  const int32_t K = m->num_topics, V = m->num_words;
  int32_t *vk = (int32_t *)calloc((size_t)V * (size_t)K, sizeof *vk);
  int64_t *nk = (int64_t *)calloc((size_t)K, sizeof *nk);
  int32_t *cnt = (int32_t *)calloc((size_t)K, sizeof *cnt);
  int ok = 1;
  for (int64_t t = 0; ok && t < c->num_tokens; ++t) {
    const int32_t k = sk_lda_detail_uniform_index(sk_rng_uniform_f64(seed, SK_LDA_STREAM_INIT, (uint64_t)t), K);
    ok = SK_CHECK(m->z[t] == k, "z[%lld] = %d, reference %d", (long long)t, (int)m->z[t], (int)k);
    ++vk[(size_t)c->tokens[t] * (size_t)K + (size_t)k];
    ++nk[k];
  }
  ok = ok && SK_CHECK(memcmp(vk, m->n_vk, (size_t)V * (size_t)K * 4u) == 0, "n_vk differs from the reference");
  ok = ok && SK_CHECK(memcmp(nk, m->n_k, (size_t)K * 8u) == 0, "n_k differs from the reference");
  for (int32_t d = 0; ok && d < c->num_docs; ++d) {
    int32_t nnz = 0;
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) nnz += cnt[m->z[t]]++ == 0;
    ok = SK_CHECK(m->dk_nnz[d] == nnz, "document %d has %d topics, reference %d", (int)d, (int)m->dk_nnz[d], (int)nnz);
    const int32_t *topic = m->dk_topic + m->dk_start[d], *count = m->dk_count + m->dk_start[d];
    for (int32_t i = 0, k = 0; ok && k < K; ++k)
      if (cnt[k] != 0) {
        ok = SK_CHECK(i < nnz && topic[i] == k && count[i] == cnt[k], "document %d row entry %d: (%d, %d), "
                      "reference (%d, %d)", (int)d, (int)i, i < nnz ? (int)topic[i] : -1,
                      i < nnz ? (int)count[i] : -1, (int)k, (int)cnt[k]);
        ++i;
      }
    for (int64_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; ++t) cnt[m->z[t]] = 0;
  }
  free(vk);
  free(nk);
  free(cnt);
  return ok;
}

/* One crc32() over the sizes, offsets and word ids as little-endian bytes, byte by byte. */
static uint32_t reference_fingerprint(const sk_lda_corpus *c) {
  uLong crc = crc32(0L, Z_NULL, 0);
  unsigned char b[8];
  const int64_t sizes[3] = {c->num_docs, c->num_words, c->num_tokens};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 8; ++j) b[j] = (unsigned char)((uint64_t)sizes[i] >> (8 * j));
    crc = crc32(crc, b, 8);
  }
  for (int32_t d = 0; d <= c->num_docs; ++d) {
    for (int j = 0; j < 8; ++j) b[j] = (unsigned char)((uint64_t)c->doc_offsets[d] >> (8 * j));
    crc = crc32(crc, b, 8);
  }
  for (int64_t t = 0; t < c->num_tokens; ++t) {
    for (int j = 0; j < 4; ++j) b[j] = (unsigned char)((uint32_t)c->tokens[t] >> (8 * j));
    crc = crc32(crc, b, 4);
  }
  return (uint32_t)crc;
}

static int same_corpus(const sk_lda_corpus *a, const sk_lda_corpus *b) {
  return a->num_docs == b->num_docs && a->num_tokens == b->num_tokens &&
         memcmp(a->doc_offsets, b->doc_offsets, ((size_t)a->num_docs + 1u) * 8u) == 0 &&
         memcmp(a->tokens, b->tokens, (size_t)a->num_tokens * 4u) == 0;
}

/* sk_lda_model_word_totals() over `threads` threads against each word's tokens counted in the corpus. */
static void word_totals_match_corpus(const sk_lda_model *m, const sk_lda_corpus *c, int threads) {
  const size_t V = (size_t)c->num_words;
  int64_t *got = (int64_t *)malloc(V * sizeof *got), *want = (int64_t *)calloc(V, sizeof *want);
  if (!SK_CHECK(got != NULL && want != NULL, "out of memory")) {
    free(got);
    free(want);
    return;
  }
  for (int64_t t = 0; t < c->num_tokens; ++t) ++want[c->tokens[t]];
  sk_lda_model_word_totals(m, threads, got);
  size_t v = 0;
  while (v < V && got[v] == want[v]) ++v;
  SK_CHECK(v == V, "word totals with %d threads: word %zu has %lld, its tokens are %lld", threads, v,
           v < V ? (long long)got[v] : 0LL, v < V ? (long long)want[v] : 0LL);
  free(got);
  free(want);
}

static void test_threads(void) {
  static const struct {
    int32_t D, V, max_len, K;
  } cases[] = {{500, 300, 80, 1}, {500, 300, 80, 7}, {2000, 500, 120, 64}, {700, 200, 400, 1000},
               {300, 50, 60, 65536}, {64, 300, 3000, 20000}};
  static const int counts[] = {2, 5};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const uint64_t seed = 1000 + i;
    sk_lda_corpus c = make_uniform_corpus(cases[i].D, cases[i].V, cases[i].max_len, seed);
    sk_lda_model one, many;
    sk_lda_split s1, s2;
    sk_ex_error err;
    const int32_t K = cases[i].K;
    sk_test_context("D %d V %d K %d seed %llu, 1 thread", (int)c.num_docs, (int)c.num_words, (int)K,
                    (unsigned long long)seed);
    set_threads(1);
    const uint32_t fp1 = sk_lda_corpus_fingerprint(&c);
    SK_CHECK(fp1 == reference_fingerprint(&c), "fingerprint %08x, reference %08x", (unsigned)fp1,
             (unsigned)reference_fingerprint(&c));
    if (!SK_CHECK(sk_lda_model_init(&one, &c, K, 0.1, 0.01, seed, &err) == 0, "%s", err.message)) continue;
    matches_reference(&one, &c, seed);
    word_totals_match_corpus(&one, &c, 1);
    if (!SK_CHECK(sk_lda_split_corpus(&c, 0.3, seed, &s1, &err) == 0, "%s", err.message)) continue;
    for (size_t j = 0; j < sizeof counts / sizeof counts[0]; ++j) {
      sk_test_context("D %d V %d K %d seed %llu, %d threads against 1", (int)c.num_docs, (int)c.num_words, (int)K,
                      (unsigned long long)seed, counts[j]);
      set_threads(counts[j]);
      SK_CHECK(sk_lda_corpus_fingerprint(&c) == fp1, "the fingerprint differs");
      word_totals_match_corpus(&one, &c, counts[j]);
      if (SK_CHECK(sk_lda_model_init(&many, &c, K, 0.1, 0.01, seed, &err) == 0, "%s", err.message)) {
        SK_CHECK(sk_lda_model_same_bits(&one, &many), "model init differs");
        /* A recount from the same topics (a resume's set_z) gives the same counts again. */
        SK_CHECK(sk_lda_model_set_z(&many, one.z, &err) == 0 && sk_lda_model_same_bits(&one, &many),
                 "set_z differs: %s", err.message);
        sk_lda_model_free(&many);
      }
      if (SK_CHECK(sk_lda_split_corpus(&c, 0.3, seed, &s2, &err) == 0, "%s", err.message)) {
        SK_CHECK(same_corpus(&s1.train, &s2.train) && same_corpus(&s1.test_observed, &s2.test_observed) &&
                     same_corpus(&s1.test_heldout, &s2.test_heldout) &&
                     memcmp(s1.train_doc_ids, s2.train_doc_ids, (size_t)s1.train.num_docs * 4u) == 0 &&
                     memcmp(s1.test_doc_ids, s2.test_doc_ids, (size_t)s1.test_observed.num_docs * 4u) == 0,
                 "the split differs");
        sk_lda_split_free(&s2);
      }
    }
    sk_lda_split_free(&s1);
    sk_lda_model_free(&one);
    sk_lda_corpus_free(&c);
  }
  set_threads(4);
}

/* The checks over the threads name the first offender, as the serial loops did. */
static void test_first_offender(void) {
  sk_lda_corpus c = make_uniform_corpus(400, 100, 50, 7);
  sk_lda_model m;
  sk_ex_error err;
  int64_t t1 = c.num_tokens / 3, t2 = 2 * c.num_tokens / 3;
  sk_test_context("first offender");
  set_threads(3);
  c.tokens[t2] = 100;
  c.tokens[t1] = -5;
  char want[128];
  snprintf(want, sizeof want, "token %lld has word id -5 outside 0..99", (long long)t1);
  SK_CHECK(sk_lda_model_init(&m, &c, 8, 0.1, 0.01, 1, &err) != 0 && strstr(err.message, want) != NULL,
           "expected '%s', got '%s'", want, err.message);
  c.tokens[t1] = 0;
  c.tokens[t2] = 0;
  const int64_t a = c.doc_offsets[150], b = c.doc_offsets[300];
  c.doc_offsets[300] = c.doc_offsets[299] - 1;
  c.doc_offsets[150] = c.doc_offsets[149] - 1;
  SK_CHECK(sk_lda_model_init(&m, &c, 8, 0.1, 0.01, 1, &err) != 0 &&
               strstr(err.message, "corpus offsets decrease at document 149") != NULL,
           "got '%s'", err.message);
  c.doc_offsets[150] = a;
  c.doc_offsets[300] = b;
  if (SK_CHECK(sk_lda_model_init(&m, &c, 8, 0.1, 0.01, 1, &err) == 0, "%s", err.message)) {
    int32_t *z = (int32_t *)malloc((size_t)m.num_tokens * sizeof *z);
    memcpy(z, m.z, (size_t)m.num_tokens * sizeof *z);
    z[t2] = 8;
    z[t1] = -1;
    snprintf(want, sizeof want, "token %lld has topic -1 outside 0..7", (long long)t1);
    SK_CHECK(sk_lda_model_set_z(&m, z, &err) != 0 && strstr(err.message, want) != NULL, "expected '%s', got '%s'",
             want, err.message);
    free(z);
    sk_lda_model_free(&m);
  }
  sk_lda_corpus_free(&c);
}

/* sk_lda_model_init_started(): the documented rule token by token against a serial reference from the RNG
   and sk_lda_model_init()'s topics, at most S topics a document, counts rebuilt (equal to set_z's from the
   same topics), the same bits over 1 and 5 threads, S = 0, S >= the longest document and S >= K leave the
   init's bits (the last with documents longer than S), a negative S refused with the model zeroed. */
static void test_start_sparse(void) {
  static const struct {
    int32_t D, V, max_len, K, S;
  } cases[] = {{400, 300, 80, 64, 1}, {400, 300, 80, 64, 3}, {300, 200, 400, 1000, 16}, {64, 300, 3000, 20000, 128},
               {200, 100, 50, 7, 0}, {200, 100, 50, 7, 51}, {200, 100, 300, 64, 64}, {200, 100, 300, 32, 64}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const uint64_t seed = 77 + i;
    const int32_t K = cases[i].K, S = cases[i].S;
    sk_lda_corpus c = make_uniform_corpus(cases[i].D, cases[i].V, cases[i].max_len, seed);
    sk_ex_error err;
    sk_lda_model plain, one, many, again;
    sk_test_context("start_sparse D %d K %d S %d seed %llu", (int)c.num_docs, (int)K, (int)S, (unsigned long long)seed);
    set_threads(1);
    if (!SK_CHECK(sk_lda_model_init(&plain, &c, K, 0.1, 0.01, seed, &err) == 0, "%s", err.message)) continue;
    if (SK_CHECK(sk_lda_model_init_started(&one, &c, K, 0.1, 0.01, seed, S, &err) == 0, "%s", err.message)) {
      int ok = 1;
      int64_t longest = 0;
      for (int32_t d = 0; d < c.num_docs && ok; ++d) {
        const int64_t a = c.doc_offsets[d], n = c.doc_offsets[d + 1] - a;
        if (n > longest) longest = n;
        ok = SK_CHECK(S == 0 || one.dk_nnz[d] <= S, "document %d has %d topics, at most %d asked", (int)d,
                      (int)one.dk_nnz[d], (int)S);
        for (int64_t t = a; t < a + n && ok; ++t) {
          int32_t want = plain.z[t];
          if (S > 0 && S < K && n > S && t >= a + S) {
            const double u = sk_rng_uniform_f64(seed, SK_LDA_STREAM_INIT, (uint64_t)t);
            want = plain.z[a + (int64_t)((double)S * u)];
          }
          ok = SK_CHECK(one.z[t] == want, "z[%lld] = %d, reference %d", (long long)t, (int)one.z[t], (int)want);
        }
      }
      if (S == 0 || S >= longest || S >= K) SK_CHECK(sk_lda_model_same_bits(&plain, &one), "S = %d changed the init", (int)S);
      /* The counts are those set_z rebuilds from the same topics. */
      if (SK_CHECK(sk_lda_model_init(&again, &c, K, 0.1, 0.01, seed, &err) == 0, "%s", err.message)) {
        SK_CHECK(sk_lda_model_set_z(&again, one.z, &err) == 0 && sk_lda_model_same_bits(&again, &one),
                 "counts differ from a recount of the same topics: %s", err.message);
        sk_lda_model_free(&again);
      }
      set_threads(5);
      if (SK_CHECK(sk_lda_model_init_started(&many, &c, K, 0.1, 0.01, seed, S, &err) == 0, "%s", err.message)) {
        SK_CHECK(sk_lda_model_same_bits(&one, &many), "5 threads differ from 1");
        sk_lda_model_free(&many);
      }
      set_threads(1);
    }
    {
      sk_lda_model refused;
      SK_CHECK(sk_lda_model_init_started(&refused, &c, K, 0.1, 0.01, seed, -1, &err) != 0 &&
                   strstr(err.message, "negative") != NULL && refused.z == NULL,
               "init_started with S = -1 not refused, or the model not zeroed (%s)", err.message);
    }
    sk_lda_model_free(&one);
    sk_lda_model_free(&plain);
    sk_lda_corpus_free(&c);
  }
  set_threads(4);
}

int main(void) {
  test_threads();
  test_first_offender();
  test_start_sparse();
  return sk_test_finish();
}
