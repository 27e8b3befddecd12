/* The binary model and z files of sk-lda and the resume from them (formats in model_file.h). */
#include "model_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "binary_io.h"

#include "corpus_lines.h" /* sk_lda_detail_check_vocab_distinct(), inline: nothing to link */
#include "output.h"

static const char sk_lda_model_magic[8] = {'S', 'K', 'L', 'D', 'A', 'M', 'O', 'D'};
static const char sk_lda_z_magic[8] = {'S', 'K', 'L', 'D', 'A', 'Z', 'Z', 'Z'};
#define SK_LDA_MODEL_HEADER_BYTES 56u
#define SK_LDA_Z_HEADER_BYTES 24u
/* --- model file ------------------------------------------------------------------------------------ */

void sk_lda_model_file_free(sk_lda_model_file *mf) {
  if (mf == NULL) return;
  if (mf->vocab != NULL)
    for (int32_t v = 0; v < mf->num_words; ++v) free(mf->vocab[v]);
  free(mf->vocab);
  free(mf->n_vk);
  free(mf->n_k);
  free(mf->alpha_k);
  memset(mf, 0, sizeof *mf);
}

/* Checks a model's sizes, priors and counts (n_k the column sums of n_vk); names `what` in messages. */
static int check_model_fields(const sk_lda_model_file *mf, const char *what, sk_ex_error *err) {
  const int32_t K = mf->num_topics, V = mf->num_words;
  if (K < 1 || K > SK_LDA_MAX_TOPICS)
    return sk_ex_fail(err, "%s: number of topics %d is outside 1..%d", what, (int)K, SK_LDA_MAX_TOPICS);
  if (V < 1) return sk_ex_fail(err, "%s: vocabulary size %d must be >= 1", what, (int)V);
  if (!(mf->alpha > 0.0) || !isfinite(mf->alpha))
    return sk_ex_fail(err, "%s: alpha %g must be finite and positive", what, mf->alpha);
  if (!(mf->beta > 0.0) || !isfinite(mf->beta))
    return sk_ex_fail(err, "%s: beta %g must be finite and positive", what, mf->beta);
  if (sk_lda_detail_check_alpha_k(mf->alpha_k, K, what, err) != 0) return 1;
  int64_t *sum = (int64_t *)calloc((size_t)K, sizeof *sum);
  if (sum == NULL) return sk_ex_fail(err, "%s: out of memory", what);
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *row = mf->n_vk + (size_t)v * (size_t)K;
    for (int32_t k = 0; k < K; ++k) {
      if (row[k] < 0) {
        free(sum);
        return sk_ex_fail(err, "%s: count n_vk of word %d, topic %d is negative (%d)", what, (int)v, (int)k,
                           (int)row[k]);
      }
      sum[k] += row[k];
    }
  }
  for (int32_t k = 0; k < K; ++k)
    if (sum[k] != mf->n_k[k]) {
      const long long s = (long long)sum[k];
      free(sum);
      return sk_ex_fail(err, "%s: topic total n_k of topic %d is %lld but its word counts sum to %lld", what, (int)k,
                         (long long)mf->n_k[k], s);
    }
  free(sum);
  return 0;
}

int sk_lda_model_file_write(const char *path, const sk_lda_model_file *mf, sk_ex_error *err) {
  if (path == NULL || mf == NULL || mf->n_vk == NULL || mf->n_k == NULL)
    return sk_ex_fail(err, "write model: a pointer is NULL");
  if (check_model_fields(mf, path, err)) return 1;
  const int32_t K = mf->num_topics, V = mf->num_words;
  if (mf->vocab != NULL)
    for (int32_t v = 0; v < V; ++v) {
      const size_t len = mf->vocab[v] != NULL ? strlen(mf->vocab[v]) : 0;
      if (len == 0 || len > UINT32_MAX) return sk_ex_fail(err, "%s: vocabulary word %d is empty or NULL", path, (int)v);
    }
  /* A repeated word would show two word ids under one spelling, of which infer's word map keeps one. */
  if (mf->vocab != NULL && sk_lda_detail_check_vocab_distinct(mf->vocab, V, path, err) != 0) return 1;
  /* version 1 without per-topic priors: the bytes of every model file before them */
  sk_lda_bin_enc *e = sk_lda_bin_create(
      path, sk_lda_model_magic, mf->alpha_k != NULL ? SK_LDA_MODEL_FILE_VERSION_PRIORS : SK_LDA_MODEL_FILE_VERSION, err);
  if (e == NULL) return 1;
  sk_lda_bin_enc_u32(e, (mf->vocab != NULL ? 1u : 0u) | (mf->alpha_k != NULL ? 2u : 0u));
  sk_lda_bin_enc_u32(e, (uint32_t)K);
  sk_lda_bin_enc_u32(e, (uint32_t)V);
  sk_lda_bin_enc_f64(e, mf->alpha);
  sk_lda_bin_enc_f64(e, mf->beta);
  sk_lda_bin_enc_u64(e, mf->iterations);
  sk_lda_bin_enc_u64(e, mf->seed);
  if (mf->vocab != NULL)
    for (int32_t v = 0; v < V; ++v) {
      const size_t len = strlen(mf->vocab[v]);
      sk_lda_bin_enc_u32(e, (uint32_t)len);
      sk_lda_bin_enc_bytes(e, mf->vocab[v], len);
    }
  if (mf->alpha_k != NULL)
    for (int32_t k = 0; k < K; ++k) sk_lda_bin_enc_f64(e, mf->alpha_k[k]);
  const size_t VK = (size_t)V * (size_t)K;
  for (size_t i = 0; i < VK; ++i) sk_lda_bin_enc_u32(e, (uint32_t)mf->n_vk[i]);
  for (int32_t k = 0; k < K; ++k) sk_lda_bin_enc_u64(e, (uint64_t)mf->n_k[k]);
  return sk_lda_bin_commit(e, path, err);
}

int sk_lda_model_save(const char *path, const sk_lda_model *m, char *const *vocab, uint64_t iterations,
                      sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "save model: model is NULL or not initialised");
  sk_lda_model_file mf;
  mf.num_topics = m->num_topics;
  mf.num_words = m->num_words;
  mf.alpha = m->alpha;
  mf.beta = m->beta;
  mf.iterations = iterations;
  mf.seed = m->seed;
  mf.vocab = (char **)vocab; /* only read by the writer */
  mf.n_vk = m->n_vk;
  mf.n_k = m->n_k;
  mf.alpha_k = m->alpha_k; /* only read by the writer */
  return sk_lda_model_file_write(path, &mf, err);
}

int sk_lda_model_file_read(const char *path, sk_lda_model_file *out, sk_ex_error *err) {
  if (out == NULL) return sk_ex_fail(err, "read model: output is NULL");
  memset(out, 0, sizeof *out);
  if (path == NULL) return sk_ex_fail(err, "read model: path is NULL");
  uint64_t size = 0;
  unsigned char *buf = NULL;
  /* The version decides which flags may be set: a glance at the first 12 bytes; the checks of
     sk_lda_bin_open_header() (magic, size, CRC, then this version) follow. */
  uint32_t version = SK_LDA_MODEL_FILE_VERSION;
  FILE *peek = fopen(path, "rb");
  if (peek != NULL) {
    unsigned char head[12];
    if (fread(head, 1, sizeof head, peek) == sizeof head && memcmp(head, sk_lda_model_magic, 8) == 0 &&
        sk_lda_bin_dec_u32(head + 8) == SK_LDA_MODEL_FILE_VERSION_PRIORS)
      version = SK_LDA_MODEL_FILE_VERSION_PRIORS;
    fclose(peek);
  }
  FILE *f = sk_lda_bin_open_header(path, sk_lda_model_magic, version, "model", SK_LDA_MODEL_HEADER_BYTES, &size, &buf,
                                   err);
  if (f == NULL) return 1;
  sk_lda_model_file mf;
  memset(&mf, 0, sizeof mf);
  {
    const uint32_t flags = sk_lda_bin_dec_u32(buf + 12);
    const int priors = version == SK_LDA_MODEL_FILE_VERSION_PRIORS;
    if ((flags & ~(priors ? 3u : 1u)) != 0 || (priors && !(flags & 2u))) {
      sk_ex_fail(err, "%s: %s flags 0x%x in the header", path, priors ? "version-2 files set bit 1; unknown or missing"
                                                                       : "unknown", (unsigned)flags);
      goto fail;
    }
    const int32_t K = (int32_t)sk_lda_bin_dec_u32(buf + 16), V = (int32_t)sk_lda_bin_dec_u32(buf + 20);
    mf.num_topics = K;
    mf.num_words = V;
    mf.alpha = sk_lda_bin_dec_f64(buf + 24);
    mf.beta = sk_lda_bin_dec_f64(buf + 32);
    mf.iterations = sk_lda_bin_dec_u64(buf + 40);
    mf.seed = sk_lda_bin_dec_u64(buf + 48);
    if (K < 1 || K > SK_LDA_MAX_TOPICS) {
      sk_ex_fail(err, "%s: number of topics %d is outside 1..%d", path, (int)K, SK_LDA_MAX_TOPICS);
      goto fail;
    }
    if (V < 1) {
      sk_ex_fail(err, "%s: vocabulary size %d must be >= 1", path, (int)V);
      goto fail;
    }
    /* V < 2^31 and K <= 2^16: none of these overflow 64 bits. After the vocabulary: the priors (version 2),
       the counts and the CRC. */
    const uint64_t counts_bytes = (priors ? 8u * (uint64_t)K : 0u) + 4u * (uint64_t)V * (uint64_t)K + 8u * (uint64_t)K + 4u;
    const uint64_t min_vocab = (flags & 1u) ? 5u * (uint64_t)V : 0u;
    if (SK_LDA_MODEL_HEADER_BYTES + min_vocab + counts_bytes > size) {
      sk_ex_fail(err, "%s: file is %llu bytes, too short for K = %d, V = %d (at least %llu)", path,
                  (unsigned long long)size, (int)K, (int)V,
                  (unsigned long long)(SK_LDA_MODEL_HEADER_BYTES + min_vocab + counts_bytes));
      goto fail;
    }
    if (((uint64_t)V * (uint64_t)K > (uint64_t)SIZE_MAX / 8u)) {
      sk_ex_fail(err, "%s: V * K = %d * %d is too large for this machine", path, (int)V, (int)K);
      goto fail;
    }
    uint64_t pos = SK_LDA_MODEL_HEADER_BYTES;
    if (flags & 1u) {
      mf.vocab = (char **)calloc((size_t)V, sizeof *mf.vocab);
      if (mf.vocab == NULL) {
        sk_ex_fail(err, "%s: out of memory for %d vocabulary words", path, (int)V);
        goto fail;
      }
      for (int32_t v = 0; v < V; ++v) {
        if (sk_lda_bin_read_exact(f, buf, 4, path, err)) goto fail;
        const uint32_t len = sk_lda_bin_dec_u32(buf);
        pos += 4;
        /* The rest of the file must still hold this word, 5 bytes per later word, and the counts. */
        if (len == 0 || (uint64_t)len + 5u * (uint64_t)(V - 1 - v) + counts_bytes > size - pos) {
          sk_ex_fail(err, "%s: vocabulary word %d has an invalid length %u", path, (int)v, (unsigned)len);
          goto fail;
        }
        mf.vocab[v] = (char *)malloc((size_t)len + 1);
        if (mf.vocab[v] == NULL) {
          sk_ex_fail(err, "%s: out of memory", path);
          goto fail;
        }
        if (sk_lda_bin_read_exact(f, mf.vocab[v], len, path, err)) goto fail;
        mf.vocab[v][len] = '\0';
        if (memchr(mf.vocab[v], '\0', len) != NULL) {
          sk_ex_fail(err, "%s: vocabulary word %d contains a NUL byte", path, (int)v);
          goto fail;
        }
        pos += len;
      }
      if (sk_lda_detail_check_vocab_distinct(mf.vocab, V, path, err) != 0) goto fail;
    }
    if (pos + counts_bytes != size) {
      sk_ex_fail(err, "%s: file is %llu bytes but its header and vocabulary call for %llu", path,
                  (unsigned long long)size, (unsigned long long)(pos + counts_bytes));
      goto fail;
    }
    mf.n_vk = (int32_t *)malloc((size_t)V * (size_t)K * sizeof *mf.n_vk);
    mf.n_k = (int64_t *)malloc((size_t)K * sizeof *mf.n_k);
    mf.alpha_k = priors ? (double *)malloc((size_t)K * sizeof *mf.alpha_k) : NULL;
    if (mf.n_vk == NULL || mf.n_k == NULL || (priors && mf.alpha_k == NULL)) {
      sk_ex_fail(err, "%s: out of memory for V x K = %d x %d counts", path, (int)V, (int)K);
      goto fail;
    }
    for (int32_t k = 0; priors && k < K; ++k) {
      if (sk_lda_bin_read_exact(f, buf, 8, path, err)) goto fail;
      mf.alpha_k[k] = sk_lda_bin_dec_f64(buf);
    }
    if (sk_lda_bin_read_i32s(f, mf.n_vk, (size_t)V * (size_t)K, buf, path, err)) goto fail;
    for (int32_t k = 0; k < K; ++k) {
      if (sk_lda_bin_read_exact(f, buf, 8, path, err)) goto fail;
      mf.n_k[k] = (int64_t)sk_lda_bin_dec_u64(buf);
    }
    if (check_model_fields(&mf, path, err)) goto fail;
  }
  free(buf);
  fclose(f);
  *out = mf;
  return 0;
fail:
  free(buf);
  fclose(f);
  sk_lda_model_file_free(&mf);
  return 1;
}

/* --- z file ---------------------------------------------------------------------------------------- */

int sk_lda_z_write(const char *path, const int32_t *z, int64_t num_tokens, int32_t num_topics, sk_ex_error *err) {
  if (path == NULL || (z == NULL && num_tokens > 0)) return sk_ex_fail(err, "write topics: a pointer is NULL");
  if (num_tokens < 0) return sk_ex_fail(err, "%s: number of tokens %lld is negative", path, (long long)num_tokens);
  if (num_topics < 1 || num_topics > SK_LDA_MAX_TOPICS)
    return sk_ex_fail(err, "%s: number of topics %d is outside 1..%d", path, (int)num_topics, SK_LDA_MAX_TOPICS);
  if (sk_lda_detail_check_topics(z, num_tokens, num_topics, path, err) != 0) return 1;
  sk_lda_bin_enc *e = sk_lda_bin_create(path, sk_lda_z_magic, SK_LDA_Z_FILE_VERSION, err);
  if (e == NULL) return 1;
  sk_lda_bin_enc_u64(e, (uint64_t)num_tokens);
  sk_lda_bin_enc_u32(e, (uint32_t)num_topics);
  for (int64_t t = 0; t < num_tokens; ++t) sk_lda_bin_enc_u32(e, (uint32_t)z[t]);
  return sk_lda_bin_commit(e, path, err);
}

int sk_lda_z_read(const char *path, int32_t **z_out, int64_t *num_tokens, int32_t *num_topics, sk_ex_error *err) {
  if (path == NULL || z_out == NULL || num_tokens == NULL || num_topics == NULL)
    return sk_ex_fail(err, "read topics: a pointer is NULL");
  uint64_t size = 0;
  unsigned char *buf = NULL;
  FILE *f = sk_lda_bin_open_header(path, sk_lda_z_magic, SK_LDA_Z_FILE_VERSION, "topic-assignment (z)",
                                   SK_LDA_Z_HEADER_BYTES, &size, &buf, err);
  if (f == NULL) return 1;
  int32_t *z = NULL;
  {
    const uint64_t T = sk_lda_bin_dec_u64(buf + 12);
    const int32_t K = (int32_t)sk_lda_bin_dec_u32(buf + 20);
    if (K < 1 || K > SK_LDA_MAX_TOPICS) {
      sk_ex_fail(err, "%s: number of topics %d is outside 1..%d", path, (int)K, SK_LDA_MAX_TOPICS);
      goto fail;
    }
    if (T > (size - SK_LDA_Z_HEADER_BYTES - 4u) / 4u || SK_LDA_Z_HEADER_BYTES + 4u * T + 4u != size) {
      sk_ex_fail(err, "%s: file is %llu bytes but its header calls for %llu tokens", path, (unsigned long long)size,
                  (unsigned long long)T);
      goto fail;
    }
    if (T > (uint64_t)SIZE_MAX / 4u) {
      sk_ex_fail(err, "%s: %llu tokens are too many for this machine", path, (unsigned long long)T);
      goto fail;
    }
    z = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *z);
    if (z == NULL) {
      sk_ex_fail(err, "%s: out of memory for %llu topics", path, (unsigned long long)T);
      goto fail;
    }
    if (sk_lda_bin_read_i32s(f, z, (size_t)T, buf, path, err) ||
        sk_lda_detail_check_topics(z, (int64_t)T, K, path, err))
      goto fail;
    free(buf);
    fclose(f);
    *z_out = z;
    *num_tokens = (int64_t)T;
    *num_topics = K;
    return 0;
  }
fail:
  free(buf);
  free(z);
  fclose(f);
  return 1;
}

/* --- resume ---------------------------------------------------------------------------------------- */

int sk_lda_model_resume(sk_lda_model *m, const sk_lda_corpus *train, char *const *vocab, const char *model_path,
                        const char *z_path, uint64_t *iterations, sk_ex_error *err) {
  if (m == NULL) return sk_ex_fail(err, "resume: model is NULL");
  memset(m, 0, sizeof *m);
  if (train == NULL || model_path == NULL || z_path == NULL || iterations == NULL)
    return sk_ex_fail(err, "resume: a pointer is NULL");
  sk_lda_model_file mf;
  int32_t *z = NULL;
  int64_t T = 0;
  int32_t K = 0;
  if (sk_lda_model_file_read(model_path, &mf, err)) return 1;
  if (mf.num_words != train->num_words) {
    sk_ex_fail(err, "%s: the model has %d vocabulary words but the training corpus has %d", model_path,
                (int)mf.num_words, (int)train->num_words);
    goto fail;
  }
  if (vocab != NULL && mf.vocab != NULL)
    for (int32_t v = 0; v < mf.num_words; ++v)
      if (vocab[v] == NULL || strcmp(vocab[v], mf.vocab[v]) != 0) {
        sk_ex_fail(err, "%s: vocabulary word %d is \"%s\" but the training corpus has \"%s\"", model_path, (int)v,
                    mf.vocab[v], vocab[v] != NULL ? vocab[v] : "(null)");
        goto fail;
      }
  if (sk_lda_z_read(z_path, &z, &T, &K, err)) goto fail;
  if (K != mf.num_topics) {
    sk_ex_fail(err, "%s: the topic assignments have K = %d but the model file %s has K = %d", z_path, (int)K,
                model_path, (int)mf.num_topics);
    goto fail;
  }
  if (T != train->num_tokens) {
    sk_ex_fail(err, "%s: the topic assignments cover %lld tokens but the training corpus has %lld", z_path,
                (long long)T, (long long)train->num_tokens);
    goto fail;
  }
  if (sk_lda_model_init(m, train, mf.num_topics, mf.alpha, mf.beta, mf.seed, err)) goto fail;
  if (mf.alpha_k != NULL && sk_lda_model_set_priors(m, mf.alpha_k, mf.beta, err)) goto fail;
  if (sk_lda_model_set_z(m, z, err)) goto fail;
  if (memcmp(m->n_vk, mf.n_vk, (size_t)mf.num_words * (size_t)mf.num_topics * sizeof *m->n_vk) != 0 ||
      memcmp(m->n_k, mf.n_k, (size_t)mf.num_topics * sizeof *m->n_k) != 0) {
    sk_ex_fail(err,
                "%s: the word-topic counts rebuilt from %s and the training corpus differ from the model file's "
                "(the files are not from one run on this corpus and split)",
                model_path, z_path);
    goto fail;
  }
  *iterations = mf.iterations;
  free(z);
  sk_lda_model_file_free(&mf);
  return 0;
fail:
  sk_lda_model_free(m);
  free(z);
  sk_lda_model_file_free(&mf);
  return 1;
}
