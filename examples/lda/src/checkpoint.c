/* The checkpoint file of a training run (format in checkpoint.h). */
#include "checkpoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "binary_io.h"
#include "model.h"
#include "output.h"

static const char sk_lda_checkpoint_magic[8] = {'S', 'K', 'L', 'D', 'A', 'C', 'K', 'P'};
#define SK_LDA_CHECKPOINT_HEADER_BYTES_V1 96u  /* format version 1: no vocabulary section */
#define SK_LDA_CHECKPOINT_HEADER_BYTES 104u    /* format versions 2 and 3: the field W at 96 */

void sk_lda_checkpoint_free(sk_lda_checkpoint *c) {
  if (c == NULL) return;
  free((void *)c->metrics);
  free(c->z);
  free(c->alpha_k);
  if (c->vocab != NULL)
    for (int32_t v = 0; v < c->num_words; ++v) free(c->vocab[v]);
  free(c->vocab);
  memset(c, 0, sizeof *c);
}

/* Bytes of the vocabulary section of c (0: none); fails on a NULL or empty word, or one too long. */
static int vocab_bytes(const sk_lda_checkpoint *c, const char *what, uint64_t *bytes, sk_ex_error *err) {
  *bytes = 0;
  if (c->vocab == NULL) return 0;
  for (int32_t v = 0; v < c->num_words; ++v) {
    const size_t len = c->vocab[v] != NULL ? strlen(c->vocab[v]) : 0;
    if (len == 0 || len > UINT32_MAX)
      return sk_ex_fail(err, "%s: vocabulary word %d is %s", what, (int)v,
                        c->vocab[v] == NULL ? "NULL" : len == 0 ? "empty" : "too long");
    *bytes += 4u + (uint64_t)len;
  }
  return 0;
}

/* The checks shared by the writer and the reader; `what` names the file. */
static int check_fields(const sk_lda_checkpoint *c, const char *what, sk_ex_error *err) {
  if (c->sampler < 0 || c->sampler > 2) return sk_ex_fail(err, "%s: unknown sampler kind %d", what, (int)c->sampler);
  if (c->num_topics < 1 || c->num_topics > SK_LDA_MAX_TOPICS)
    return sk_ex_fail(err, "%s: number of topics %d is outside 1..%d", what, (int)c->num_topics, SK_LDA_MAX_TOPICS);
  if (c->num_words < 1 || c->num_docs < 0 || c->num_tokens < 0)
    return sk_ex_fail(err, "%s: invalid sizes V = %d, D = %d, T = %lld", what, (int)c->num_words, (int)c->num_docs,
                       (long long)c->num_tokens);
  if (!(c->alpha > 0.0) || !isfinite(c->alpha) || !(c->beta > 0.0) || !isfinite(c->beta))
    return sk_ex_fail(err, "%s: alpha %g and beta %g must be finite and positive", what, c->alpha, c->beta);
  if (!(c->test_fraction >= 0.0 && c->test_fraction < 1.0))
    return sk_ex_fail(err, "%s: test fraction %g is outside [0, 1)", what, c->test_fraction);
  if (!(c->seconds >= 0.0) || !isfinite(c->seconds))
    return sk_ex_fail(err, "%s: training time %g is not a finite non-negative number", what, c->seconds);
  if (c->sweeps >= SK_LDA_STREAM_RESERVED)
    return sk_ex_fail(err, "%s: %llu sweeps is out of range", what, (unsigned long long)c->sweeps);
  if (c->alpha_k != NULL && (!(c->prior_beta > 0.0) || !isfinite(c->prior_beta)))
    return sk_ex_fail(err, "%s: the learnt beta %g must be finite and positive", what, c->prior_beta);
  return sk_lda_detail_check_alpha_k(c->alpha_k, c->num_topics, what, err);
}

int sk_lda_checkpoint_write(const char *path, const sk_lda_checkpoint *c, sk_ex_error *err) {
  if (path == NULL || c == NULL || (c->z == NULL && c->num_tokens > 0) || (c->metrics == NULL && c->metrics_len > 0))
    return sk_ex_fail(err, "write checkpoint: a pointer is NULL");
  if (check_fields(c, path, err) != 0) return 1;
  if (sk_lda_detail_check_topics(c->z, c->num_tokens, c->num_topics, path, err) != 0) return 1;
  const int v1 = c->version == SK_LDA_CHECKPOINT_VERSION_NO_VOCAB;
  if (v1 && c->vocab != NULL)
    return sk_ex_fail(err, "%s: a checkpoint of format version 1 has no vocabulary", path);
  if (v1 && c->alpha_k != NULL)
    return sk_ex_fail(err, "%s: a checkpoint of format version 1 has no learnt priors", path);
  uint64_t W = 0;
  if (vocab_bytes(c, path, &W, err) != 0) return 1;
  const uint32_t version = v1 ? SK_LDA_CHECKPOINT_VERSION_NO_VOCAB
                           : c->alpha_k != NULL ? SK_LDA_CHECKPOINT_VERSION_PRIORS
                                                : SK_LDA_CHECKPOINT_VERSION;
  sk_lda_bin_enc *e = sk_lda_bin_create(path, sk_lda_checkpoint_magic, version, err);
  if (e == NULL) return 1;
  sk_lda_bin_enc_u32(e, (uint32_t)c->sampler);
  sk_lda_bin_enc_u32(e, (uint32_t)c->num_topics);
  sk_lda_bin_enc_u32(e, (uint32_t)c->num_words);
  sk_lda_bin_enc_u32(e, (uint32_t)c->num_docs);
  sk_lda_bin_enc_u32(e, c->fingerprint);
  sk_lda_bin_enc_u64(e, (uint64_t)c->num_tokens);
  sk_lda_bin_enc_f64(e, c->alpha);
  sk_lda_bin_enc_f64(e, c->beta);
  sk_lda_bin_enc_f64(e, c->test_fraction);
  sk_lda_bin_enc_u64(e, c->seed);
  sk_lda_bin_enc_u64(e, c->sweeps);
  sk_lda_bin_enc_f64(e, c->seconds);
  sk_lda_bin_enc_u64(e, (uint64_t)c->metrics_len);
  if (!v1) sk_lda_bin_enc_u64(e, W);
  sk_lda_bin_enc_bytes(e, c->metrics, c->metrics_len);
  if (c->vocab != NULL)
    for (int32_t v = 0; v < c->num_words; ++v) {
      const size_t len = strlen(c->vocab[v]);
      sk_lda_bin_enc_u32(e, (uint32_t)len);
      sk_lda_bin_enc_bytes(e, c->vocab[v], len);
    }
  if (c->alpha_k != NULL) {
    sk_lda_bin_enc_f64(e, c->prior_beta);
    for (int32_t k = 0; k < c->num_topics; ++k) sk_lda_bin_enc_f64(e, c->alpha_k[k]);
  }
  for (int64_t t = 0; t < c->num_tokens; ++t) sk_lda_bin_enc_u32(e, (uint32_t)c->z[t]);
  return sk_lda_bin_commit(e, path, err);
}

int sk_lda_checkpoint_read(const char *path, sk_lda_checkpoint *out, sk_ex_error *err) {
  if (path == NULL || out == NULL) return sk_ex_fail(err, "read checkpoint: a pointer is NULL");
  memset(out, 0, sizeof *out);
  uint64_t size = 0;
  unsigned char *buf = NULL;
  /* The version decides the header's length: a glance at the first 12 bytes; the checks of
     sk_lda_bin_open_header() (magic, size, CRC, then this version) follow. */
  uint32_t version = SK_LDA_CHECKPOINT_VERSION;
  FILE *peek = fopen(path, "rb");
  if (peek != NULL) {
    unsigned char head[12];
    if (fread(head, 1, sizeof head, peek) == sizeof head && memcmp(head, sk_lda_checkpoint_magic, 8) == 0) {
      const uint32_t v = sk_lda_bin_dec_u32(head + 8);
      if (v == SK_LDA_CHECKPOINT_VERSION_NO_VOCAB || v == SK_LDA_CHECKPOINT_VERSION_PRIORS) version = v;
    }
    fclose(peek);
  }
  const int v1 = version == SK_LDA_CHECKPOINT_VERSION_NO_VOCAB;
  const size_t header = v1 ? SK_LDA_CHECKPOINT_HEADER_BYTES_V1 : SK_LDA_CHECKPOINT_HEADER_BYTES;
  FILE *f = sk_lda_bin_open_header(path, sk_lda_checkpoint_magic, version, "checkpoint", header, &size, &buf, err);
  if (f == NULL) return 1;
  sk_lda_checkpoint c;
  memset(&c, 0, sizeof c);
  char *metrics = NULL;
  unsigned char *words = NULL;
  c.version = version;
  c.sampler = (int32_t)sk_lda_bin_dec_u32(buf + 12);
  c.num_topics = (int32_t)sk_lda_bin_dec_u32(buf + 16);
  c.num_words = (int32_t)sk_lda_bin_dec_u32(buf + 20);
  c.num_docs = (int32_t)sk_lda_bin_dec_u32(buf + 24);
  c.fingerprint = sk_lda_bin_dec_u32(buf + 28);
  const uint64_t T = sk_lda_bin_dec_u64(buf + 32);
  c.num_tokens = T > (uint64_t)INT64_MAX ? -1 : (int64_t)T;
  c.alpha = sk_lda_bin_dec_f64(buf + 40);
  c.beta = sk_lda_bin_dec_f64(buf + 48);
  c.test_fraction = sk_lda_bin_dec_f64(buf + 56);
  c.seed = sk_lda_bin_dec_u64(buf + 64);
  c.sweeps = sk_lda_bin_dec_u64(buf + 72);
  c.seconds = sk_lda_bin_dec_f64(buf + 80);
  const uint64_t M = sk_lda_bin_dec_u64(buf + 88);
  const uint64_t W = v1 ? 0u : sk_lda_bin_dec_u64(buf + 96);
  if (check_fields(&c, path, err) != 0) goto fail;
  /* version 3: the learnt priors, beta and K alpha_k (K <= 2^16: no overflow) */
  const uint64_t P = version == SK_LDA_CHECKPOINT_VERSION_PRIORS ? 8u + 8u * (uint64_t)c.num_topics : 0u;
  const uint64_t room = size - header - 4u;
  if (P > room || M > room - P || W > room - P - M || T > (room - P - M - W) / 4u || M + W + P + 4u * T != room) {
    sk_ex_fail(err,
               "%s: file is %llu bytes but its header calls for %llu bytes of metrics, %llu bytes of vocabulary, "
               "%llu bytes of learnt priors and %llu tokens",
               path, (unsigned long long)size, (unsigned long long)M, (unsigned long long)W, (unsigned long long)P,
               (unsigned long long)T);
    goto fail;
  }
  if (W > 0 && W / 5u < (uint64_t)c.num_words) { /* each entry takes at least 5 bytes */
    sk_ex_fail(err, "%s: a vocabulary section of %llu bytes cannot hold V = %d words", path, (unsigned long long)W,
               (int)c.num_words);
    goto fail;
  }
  if (T > (uint64_t)SIZE_MAX / 4u) {
    sk_ex_fail(err, "%s: %llu tokens are too many for this machine", path, (unsigned long long)T);
    goto fail;
  }
  metrics = (char *)malloc((size_t)M + 1u);
  c.z = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *c.z);
  if (metrics == NULL || c.z == NULL) {
    sk_ex_fail(err, "%s: out of memory for %llu topics", path, (unsigned long long)T);
    goto fail;
  }
  if (sk_lda_bin_read_exact(f, metrics, (size_t)M, path, err)) goto fail;
  metrics[M] = '\0';
  c.metrics = metrics;
  c.metrics_len = (size_t)M;
  metrics = NULL;
  if (W > 0) {
    /* W <= the file's size, checked above; V <= W / 5. */
    words = (unsigned char *)malloc((size_t)W);
    c.vocab = (char **)calloc((size_t)c.num_words, sizeof *c.vocab);
    if (words == NULL || c.vocab == NULL) {
      sk_ex_fail(err, "%s: out of memory for a vocabulary of %llu bytes", path, (unsigned long long)W);
      goto fail;
    }
    if (sk_lda_bin_read_exact(f, words, (size_t)W, path, err)) goto fail;
    uint64_t at = 0;
    for (int32_t v = 0; v < c.num_words; ++v) {
      const uint64_t len = W - at >= 4u ? sk_lda_bin_dec_u32(words + at) : 0u;
      if (W - at < 4u || len > W - at - 4u) {
        sk_ex_fail(err, "%s: vocabulary word %d runs past the end of the vocabulary section (%llu bytes)", path,
                   (int)v, (unsigned long long)W);
        goto fail;
      }
      if (len == 0 || memchr(words + at + 4u, '\0', (size_t)len) != NULL) {
        sk_ex_fail(err, "%s: vocabulary word %d %s", path, (int)v, len == 0 ? "is empty" : "holds a NUL byte");
        goto fail;
      }
      c.vocab[v] = (char *)malloc((size_t)len + 1u);
      if (c.vocab[v] == NULL) {
        sk_ex_fail(err, "%s: out of memory for vocabulary word %d", path, (int)v);
        goto fail;
      }
      memcpy(c.vocab[v], words + at + 4u, (size_t)len);
      c.vocab[v][len] = '\0';
      at += 4u + len;
    }
    if (at != W) {
      sk_ex_fail(err, "%s: the vocabulary section holds %llu bytes after its V = %d words", path,
                 (unsigned long long)(W - at), (int)c.num_words);
      goto fail;
    }
    free(words);
    words = NULL;
  }
  if (P > 0) {
    c.alpha_k = (double *)malloc((size_t)c.num_topics * sizeof *c.alpha_k);
    if (c.alpha_k == NULL) {
      sk_ex_fail(err, "%s: out of memory for K = %d priors", path, (int)c.num_topics);
      goto fail;
    }
    if (sk_lda_bin_read_exact(f, buf, 8, path, err)) goto fail;
    c.prior_beta = sk_lda_bin_dec_f64(buf);
    for (int32_t k = 0; k < c.num_topics; ++k) {
      if (sk_lda_bin_read_exact(f, buf, 8, path, err)) goto fail;
      c.alpha_k[k] = sk_lda_bin_dec_f64(buf);
    }
    if (check_fields(&c, path, err) != 0) goto fail;
  }
  if (sk_lda_bin_read_i32s(f, c.z, (size_t)T, buf, path, err) ||
      sk_lda_detail_check_topics(c.z, (int64_t)T, c.num_topics, path, err))
    goto fail;
  free(buf);
  fclose(f);
  *out = c;
  return 0;
fail:
  free(buf);
  free(metrics);
  free(words);
  sk_lda_checkpoint_free(&c);
  fclose(f);
  return 1;
}

uint32_t sk_lda_corpus_fingerprint(const sk_lda_corpus *c) {
  unsigned char b[8 * 64];
  uLong crc = crc32(0L, Z_NULL, 0);
  const int64_t sizes[3] = {c->num_docs, c->num_words, c->num_tokens};
  size_t n = 0;
  /* Little-endian bytes, whatever the host's order, in blocks of 64 values. */
#define SK_LDA_PUT(v, bytes)                                                   \
  do {                                                                         \
    for (int i_ = 0; i_ < (bytes); ++i_) b[n++] = (unsigned char)((uint64_t)(v) >> (8 * i_)); \
    if (n > sizeof b - 8) crc = crc32(crc, b, (uInt)n), n = 0;                 \
  } while (0)
  for (int i = 0; i < 3; ++i) SK_LDA_PUT(sizes[i], 8);
  if (sk_lda_bin_host_le()) { /* the arrays' bytes are the little-endian bytes: CRC them over the threads */
    crc = crc32(crc, b, (uInt)n);
    crc = sk_lda_bin_crc32((uint32_t)crc, c->doc_offsets, 8u * ((uint64_t)c->num_docs + 1u));
    return sk_lda_bin_crc32((uint32_t)crc, c->tokens, 4u * (uint64_t)c->num_tokens);
  }
  for (int32_t d = 0; d <= c->num_docs; ++d) SK_LDA_PUT(c->doc_offsets[d], 8);
  for (int64_t t = 0; t < c->num_tokens; ++t) SK_LDA_PUT((uint32_t)c->tokens[t], 4);
#undef SK_LDA_PUT
  return (uint32_t)crc32(crc, b, (uInt)n);
}
