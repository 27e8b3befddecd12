/* The binary model and z files of sk-lda and the resume from them (formats in model_file.h). */
#include "model_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#include "output.h"

static const char sk_lda_model_magic[8] = {'S', 'K', 'L', 'D', 'A', 'M', 'O', 'D'};
static const char sk_lda_z_magic[8] = {'S', 'K', 'L', 'D', 'A', 'Z', 'Z', 'Z'};
#define SK_LDA_MODEL_HEADER_BYTES 56u
#define SK_LDA_Z_HEADER_BYTES 24u
#define SK_LDA_IO_CHUNK 65536u

/* --- little-endian encoding with a running CRC ----------------------------------------------------- */

typedef struct sk_lda_enc {
  FILE *f;
  uLong crc;
  size_t n;
  unsigned char buf[SK_LDA_IO_CHUNK];
} sk_lda_enc;

static void enc_flush(sk_lda_enc *e) {
  if (e->n == 0) return;
  e->crc = crc32(e->crc, e->buf, (uInt)e->n);
  (void)fwrite(e->buf, 1, e->n, e->f); /* errors surface through ferror() at the commit */
  e->n = 0;
}

static void enc_bytes(sk_lda_enc *e, const void *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  while (n > 0) {
    if (e->n == SK_LDA_IO_CHUNK) enc_flush(e);
    size_t m = SK_LDA_IO_CHUNK - e->n;
    if (m > n) m = n;
    memcpy(e->buf + e->n, s, m);
    e->n += m;
    s += m;
    n -= m;
  }
}

static void enc_u32(sk_lda_enc *e, uint32_t v) {
  unsigned char b[4];
  for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(v >> (8 * i));
  enc_bytes(e, b, 4);
}

static void enc_u64(sk_lda_enc *e, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(v >> (8 * i));
  enc_bytes(e, b, 8);
}

static void enc_f64(sk_lda_enc *e, double x) {
  uint64_t v;
  memcpy(&v, &x, sizeof v);
  enc_u64(e, v);
}

/* Writes the CRC of everything so far (itself not included). */
static void enc_finish(sk_lda_enc *e) {
  enc_flush(e);
  unsigned char b[4];
  const uint32_t c = (uint32_t)e->crc;
  for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(c >> (8 * i));
  (void)fwrite(b, 1, 4, e->f);
}

static sk_lda_enc *enc_new(FILE *f) {
  sk_lda_enc *e = (sk_lda_enc *)malloc(sizeof *e);
  if (e != NULL) {
    e->f = f;
    e->crc = crc32(0L, Z_NULL, 0);
    e->n = 0;
  }
  return e;
}

/* --- decoding -------------------------------------------------------------------------------------- */

static uint32_t dec_u32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t dec_u64(const unsigned char *b) { return (uint64_t)dec_u32(b) | (uint64_t)dec_u32(b + 4) << 32; }

static double dec_f64(const unsigned char *b) {
  const uint64_t v = dec_u64(b);
  double x;
  memcpy(&x, &v, sizeof x);
  return x;
}

/*
 * Opens PATH, checks that it starts with `magic` and that its last 4 bytes are the CRC of the rest.
 * On success returns the file positioned at offset 0 and its size in *size; else NULL with err filled.
 */
static FILE *open_checked(const char *path, const char magic[8], const char *kind, size_t min_size, uint64_t *size,
                          sk_lda_error *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    sk_lda_fail(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  unsigned char *buf = (unsigned char *)malloc(SK_LDA_IO_CHUNK);
  off_t end = -1;
  if (buf == NULL) {
    sk_lda_fail(err, "%s: out of memory", path);
    goto fail;
  }
  if (fseeko(f, 0, SEEK_END) != 0 || (end = ftello(f)) < 0 || fseeko(f, 0, SEEK_SET) != 0) {
    sk_lda_fail(err, "%s: cannot determine the file size: %s", path, strerror(errno));
    goto fail;
  }
  if (end < 8 || fread(buf, 1, 8, f) != 8 || memcmp(buf, magic, 8) != 0) {
    sk_lda_fail(err, "%s: not an sk-lda %s file (bad magic; expected \"%.8s\")", path, kind, magic);
    goto fail;
  }
  if ((uint64_t)end < (uint64_t)min_size) {
    sk_lda_fail(err, "%s: file is truncated (%lld bytes; a %s file has at least %zu)", path, (long long)end, kind,
                min_size);
    goto fail;
  }
  {
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, buf, 8);
    uint64_t left = (uint64_t)end - 12u;
    while (left > 0) {
      const size_t want = left < SK_LDA_IO_CHUNK ? (size_t)left : SK_LDA_IO_CHUNK;
      if (fread(buf, 1, want, f) != want) {
        sk_lda_fail(err, "%s: read error: %s", path, ferror(f) ? strerror(errno) : "unexpected end of file");
        goto fail;
      }
      crc = crc32(crc, buf, (uInt)want);
      left -= want;
    }
    if (fread(buf, 1, 4, f) != 4) {
      sk_lda_fail(err, "%s: read error: %s", path, ferror(f) ? strerror(errno) : "unexpected end of file");
      goto fail;
    }
    if (dec_u32(buf) != (uint32_t)crc) {
      sk_lda_fail(err, "%s: checksum mismatch (file is corrupt)", path);
      goto fail;
    }
  }
  if (fseeko(f, 0, SEEK_SET) != 0) {
    sk_lda_fail(err, "%s: cannot seek: %s", path, strerror(errno));
    goto fail;
  }
  free(buf);
  *size = (uint64_t)end;
  return f;
fail:
  free(buf);
  fclose(f);
  return NULL;
}

/* Reads exactly n bytes (the CRC passed, so a short read is an I/O error or a file changed meanwhile). */
static int read_exact(FILE *f, void *dst, size_t n, const char *path, sk_lda_error *err) {
  if (fread(dst, 1, n, f) != n)
    return sk_lda_fail(err, "%s: read error: %s", path,
                       ferror(f) ? strerror(errno) : "unexpected end of file (changed while reading?)");
  return 0;
}

/* Reads n little-endian int32 values into dst. */
static int read_i32s(FILE *f, int32_t *dst, size_t n, unsigned char *buf, const char *path, sk_lda_error *err) {
  while (n > 0) {
    const size_t m = n < SK_LDA_IO_CHUNK / 4 ? n : SK_LDA_IO_CHUNK / 4;
    if (read_exact(f, buf, m * 4, path, err)) return 1;
    for (size_t i = 0; i < m; ++i) dst[i] = (int32_t)dec_u32(buf + 4 * i);
    dst += m;
    n -= m;
  }
  return 0;
}

/* --- model file ------------------------------------------------------------------------------------ */

void sk_lda_model_file_free(sk_lda_model_file *mf) {
  if (mf == NULL) return;
  if (mf->vocab != NULL)
    for (int32_t v = 0; v < mf->num_words; ++v) free(mf->vocab[v]);
  free(mf->vocab);
  free(mf->n_vk);
  free(mf->n_k);
  memset(mf, 0, sizeof *mf);
}

/* Checks a model's sizes, priors and counts (n_k the column sums of n_vk); names `what` in messages. */
static int check_model_fields(const sk_lda_model_file *mf, const char *what, sk_lda_error *err) {
  const int32_t K = mf->num_topics, V = mf->num_words;
  if (K < 1 || K > SK_LDA_MAX_TOPICS)
    return sk_lda_fail(err, "%s: number of topics %d is outside 1..%d", what, (int)K, SK_LDA_MAX_TOPICS);
  if (V < 1) return sk_lda_fail(err, "%s: vocabulary size %d must be >= 1", what, (int)V);
  if (!(mf->alpha > 0.0) || !isfinite(mf->alpha))
    return sk_lda_fail(err, "%s: alpha %g must be finite and positive", what, mf->alpha);
  if (!(mf->beta > 0.0) || !isfinite(mf->beta))
    return sk_lda_fail(err, "%s: beta %g must be finite and positive", what, mf->beta);
  int64_t *sum = (int64_t *)calloc((size_t)K, sizeof *sum);
  if (sum == NULL) return sk_lda_fail(err, "%s: out of memory", what);
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *row = mf->n_vk + (size_t)v * (size_t)K;
    for (int32_t k = 0; k < K; ++k) {
      if (row[k] < 0) {
        free(sum);
        return sk_lda_fail(err, "%s: count n_vk of word %d, topic %d is negative (%d)", what, (int)v, (int)k,
                           (int)row[k]);
      }
      sum[k] += row[k];
    }
  }
  for (int32_t k = 0; k < K; ++k)
    if (sum[k] != mf->n_k[k]) {
      const long long s = (long long)sum[k];
      free(sum);
      return sk_lda_fail(err, "%s: topic total n_k of topic %d is %lld but its word counts sum to %lld", what, (int)k,
                         (long long)mf->n_k[k], s);
    }
  free(sum);
  return 0;
}

int sk_lda_model_file_write(const char *path, const sk_lda_model_file *mf, sk_lda_error *err) {
  if (path == NULL || mf == NULL || mf->n_vk == NULL || mf->n_k == NULL)
    return sk_lda_fail(err, "write model: a pointer is NULL");
  if (check_model_fields(mf, path, err)) return 1;
  const int32_t K = mf->num_topics, V = mf->num_words;
  if (mf->vocab != NULL)
    for (int32_t v = 0; v < V; ++v) {
      const size_t len = mf->vocab[v] != NULL ? strlen(mf->vocab[v]) : 0;
      if (len == 0 || len > UINT32_MAX) return sk_lda_fail(err, "%s: vocabulary word %d is empty or NULL", path, (int)v);
    }
  FILE *f = sk_lda_detail_temp_create(path, err);
  if (f == NULL) return 1;
  sk_lda_enc *e = enc_new(f);
  if (e == NULL) {
    sk_lda_detail_temp_abort(f, path);
    return sk_lda_fail(err, "%s: out of memory", path);
  }
  enc_bytes(e, sk_lda_model_magic, 8);
  enc_u32(e, SK_LDA_MODEL_FILE_VERSION);
  enc_u32(e, mf->vocab != NULL ? 1u : 0u);
  enc_u32(e, (uint32_t)K);
  enc_u32(e, (uint32_t)V);
  enc_f64(e, mf->alpha);
  enc_f64(e, mf->beta);
  enc_u64(e, mf->iterations);
  enc_u64(e, mf->seed);
  if (mf->vocab != NULL)
    for (int32_t v = 0; v < V; ++v) {
      const size_t len = strlen(mf->vocab[v]);
      enc_u32(e, (uint32_t)len);
      enc_bytes(e, mf->vocab[v], len);
    }
  const size_t VK = (size_t)V * (size_t)K;
  for (size_t i = 0; i < VK; ++i) enc_u32(e, (uint32_t)mf->n_vk[i]);
  for (int32_t k = 0; k < K; ++k) enc_u64(e, (uint64_t)mf->n_k[k]);
  enc_finish(e);
  free(e);
  return sk_lda_detail_temp_commit(f, path, err);
}

int sk_lda_model_save(const char *path, const sk_lda_model *m, char *const *vocab, uint64_t iterations,
                      sk_lda_error *err) {
  if (m == NULL || m->z == NULL) return sk_lda_fail(err, "save model: model is NULL or not initialised");
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
  return sk_lda_model_file_write(path, &mf, err);
}

int sk_lda_model_file_read(const char *path, sk_lda_model_file *out, sk_lda_error *err) {
  if (out == NULL) return sk_lda_fail(err, "read model: output is NULL");
  memset(out, 0, sizeof *out);
  if (path == NULL) return sk_lda_fail(err, "read model: path is NULL");
  uint64_t size = 0;
  FILE *f = open_checked(path, sk_lda_model_magic, "model", SK_LDA_MODEL_HEADER_BYTES + 4u, &size, err);
  if (f == NULL) return 1;
  unsigned char *buf = (unsigned char *)malloc(SK_LDA_IO_CHUNK);
  sk_lda_model_file mf;
  memset(&mf, 0, sizeof mf);
  if (buf == NULL) {
    sk_lda_fail(err, "%s: out of memory", path);
    goto fail;
  }
  if (read_exact(f, buf, SK_LDA_MODEL_HEADER_BYTES, path, err)) goto fail;
  {
    const uint32_t version = dec_u32(buf + 8), flags = dec_u32(buf + 12);
    if (version != SK_LDA_MODEL_FILE_VERSION) {
      sk_lda_fail(err, "%s: unsupported format version %u (this sk-lda reads version %u)", path, (unsigned)version,
                  SK_LDA_MODEL_FILE_VERSION);
      goto fail;
    }
    if ((flags & ~1u) != 0) {
      sk_lda_fail(err, "%s: unknown flags 0x%x in the header", path, (unsigned)flags);
      goto fail;
    }
    const int32_t K = (int32_t)dec_u32(buf + 16), V = (int32_t)dec_u32(buf + 20);
    mf.num_topics = K;
    mf.num_words = V;
    mf.alpha = dec_f64(buf + 24);
    mf.beta = dec_f64(buf + 32);
    mf.iterations = dec_u64(buf + 40);
    mf.seed = dec_u64(buf + 48);
    if (K < 1 || K > SK_LDA_MAX_TOPICS) {
      sk_lda_fail(err, "%s: number of topics %d is outside 1..%d", path, (int)K, SK_LDA_MAX_TOPICS);
      goto fail;
    }
    if (V < 1) {
      sk_lda_fail(err, "%s: vocabulary size %d must be >= 1", path, (int)V);
      goto fail;
    }
    /* V < 2^31 and K <= 2^16: none of these overflow 64 bits. */
    const uint64_t counts_bytes = 4u * (uint64_t)V * (uint64_t)K + 8u * (uint64_t)K + 4u;
    const uint64_t min_vocab = (flags & 1u) ? 5u * (uint64_t)V : 0u;
    if (SK_LDA_MODEL_HEADER_BYTES + min_vocab + counts_bytes > size) {
      sk_lda_fail(err, "%s: file is %llu bytes, too short for K = %d, V = %d (at least %llu)", path,
                  (unsigned long long)size, (int)K, (int)V,
                  (unsigned long long)(SK_LDA_MODEL_HEADER_BYTES + min_vocab + counts_bytes));
      goto fail;
    }
    if (((uint64_t)V * (uint64_t)K > (uint64_t)SIZE_MAX / 8u)) {
      sk_lda_fail(err, "%s: V * K = %d * %d is too large for this machine", path, (int)V, (int)K);
      goto fail;
    }
    uint64_t pos = SK_LDA_MODEL_HEADER_BYTES;
    if (flags & 1u) {
      mf.vocab = (char **)calloc((size_t)V, sizeof *mf.vocab);
      if (mf.vocab == NULL) {
        sk_lda_fail(err, "%s: out of memory for %d vocabulary words", path, (int)V);
        goto fail;
      }
      for (int32_t v = 0; v < V; ++v) {
        if (read_exact(f, buf, 4, path, err)) goto fail;
        const uint32_t len = dec_u32(buf);
        pos += 4;
        /* The rest of the file must still hold this word, 5 bytes per later word, and the counts. */
        if (len == 0 || (uint64_t)len + 5u * (uint64_t)(V - 1 - v) + counts_bytes > size - pos) {
          sk_lda_fail(err, "%s: vocabulary word %d has an invalid length %u", path, (int)v, (unsigned)len);
          goto fail;
        }
        mf.vocab[v] = (char *)malloc((size_t)len + 1);
        if (mf.vocab[v] == NULL) {
          sk_lda_fail(err, "%s: out of memory", path);
          goto fail;
        }
        if (read_exact(f, mf.vocab[v], len, path, err)) goto fail;
        mf.vocab[v][len] = '\0';
        if (memchr(mf.vocab[v], '\0', len) != NULL) {
          sk_lda_fail(err, "%s: vocabulary word %d contains a NUL byte", path, (int)v);
          goto fail;
        }
        pos += len;
      }
    }
    if (pos + counts_bytes != size) {
      sk_lda_fail(err, "%s: file is %llu bytes but its header and vocabulary call for %llu", path,
                  (unsigned long long)size, (unsigned long long)(pos + counts_bytes));
      goto fail;
    }
    mf.n_vk = (int32_t *)malloc((size_t)V * (size_t)K * sizeof *mf.n_vk);
    mf.n_k = (int64_t *)malloc((size_t)K * sizeof *mf.n_k);
    if (mf.n_vk == NULL || mf.n_k == NULL) {
      sk_lda_fail(err, "%s: out of memory for V x K = %d x %d counts", path, (int)V, (int)K);
      goto fail;
    }
    if (read_i32s(f, mf.n_vk, (size_t)V * (size_t)K, buf, path, err)) goto fail;
    for (int32_t k = 0; k < K; ++k) {
      if (read_exact(f, buf, 8, path, err)) goto fail;
      mf.n_k[k] = (int64_t)dec_u64(buf);
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

int sk_lda_z_write(const char *path, const int32_t *z, int64_t num_tokens, int32_t num_topics, sk_lda_error *err) {
  if (path == NULL || (z == NULL && num_tokens > 0)) return sk_lda_fail(err, "write topics: a pointer is NULL");
  if (num_tokens < 0) return sk_lda_fail(err, "%s: number of tokens %lld is negative", path, (long long)num_tokens);
  if (num_topics < 1 || num_topics > SK_LDA_MAX_TOPICS)
    return sk_lda_fail(err, "%s: number of topics %d is outside 1..%d", path, (int)num_topics, SK_LDA_MAX_TOPICS);
  for (int64_t t = 0; t < num_tokens; ++t)
    if (z[t] < 0 || z[t] >= num_topics)
      return sk_lda_fail(err, "%s: token %lld has topic %d outside 0..%d", path, (long long)t, (int)z[t],
                         (int)num_topics - 1);
  FILE *f = sk_lda_detail_temp_create(path, err);
  if (f == NULL) return 1;
  sk_lda_enc *e = enc_new(f);
  if (e == NULL) {
    sk_lda_detail_temp_abort(f, path);
    return sk_lda_fail(err, "%s: out of memory", path);
  }
  enc_bytes(e, sk_lda_z_magic, 8);
  enc_u32(e, SK_LDA_Z_FILE_VERSION);
  enc_u64(e, (uint64_t)num_tokens);
  enc_u32(e, (uint32_t)num_topics);
  for (int64_t t = 0; t < num_tokens; ++t) enc_u32(e, (uint32_t)z[t]);
  enc_finish(e);
  free(e);
  return sk_lda_detail_temp_commit(f, path, err);
}

int sk_lda_z_read(const char *path, int32_t **z_out, int64_t *num_tokens, int32_t *num_topics, sk_lda_error *err) {
  if (path == NULL || z_out == NULL || num_tokens == NULL || num_topics == NULL)
    return sk_lda_fail(err, "read topics: a pointer is NULL");
  uint64_t size = 0;
  FILE *f = open_checked(path, sk_lda_z_magic, "topic-assignment (z)", SK_LDA_Z_HEADER_BYTES + 4u, &size, err);
  if (f == NULL) return 1;
  unsigned char *buf = (unsigned char *)malloc(SK_LDA_IO_CHUNK);
  int32_t *z = NULL;
  if (buf == NULL) {
    sk_lda_fail(err, "%s: out of memory", path);
    goto fail;
  }
  if (read_exact(f, buf, SK_LDA_Z_HEADER_BYTES, path, err)) goto fail;
  {
    const uint32_t version = dec_u32(buf + 8);
    const uint64_t T = dec_u64(buf + 12);
    const int32_t K = (int32_t)dec_u32(buf + 20);
    if (version != SK_LDA_Z_FILE_VERSION) {
      sk_lda_fail(err, "%s: unsupported format version %u (this sk-lda reads version %u)", path, (unsigned)version,
                  SK_LDA_Z_FILE_VERSION);
      goto fail;
    }
    if (K < 1 || K > SK_LDA_MAX_TOPICS) {
      sk_lda_fail(err, "%s: number of topics %d is outside 1..%d", path, (int)K, SK_LDA_MAX_TOPICS);
      goto fail;
    }
    if (T > (size - SK_LDA_Z_HEADER_BYTES - 4u) / 4u || SK_LDA_Z_HEADER_BYTES + 4u * T + 4u != size) {
      sk_lda_fail(err, "%s: file is %llu bytes but its header calls for %llu tokens", path, (unsigned long long)size,
                  (unsigned long long)T);
      goto fail;
    }
    if (T > (uint64_t)SIZE_MAX / 4u) {
      sk_lda_fail(err, "%s: %llu tokens are too many for this machine", path, (unsigned long long)T);
      goto fail;
    }
    z = (int32_t *)malloc((size_t)(T > 0 ? T : 1) * sizeof *z);
    if (z == NULL) {
      sk_lda_fail(err, "%s: out of memory for %llu topics", path, (unsigned long long)T);
      goto fail;
    }
    if (read_i32s(f, z, (size_t)T, buf, path, err)) goto fail;
    for (uint64_t t = 0; t < T; ++t)
      if (z[t] < 0 || z[t] >= K) {
        sk_lda_fail(err, "%s: token %llu has topic %d outside 0..%d", path, (unsigned long long)t, (int)z[t],
                    (int)K - 1);
        goto fail;
      }
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
                        const char *z_path, uint64_t *iterations, sk_lda_error *err) {
  if (m == NULL) return sk_lda_fail(err, "resume: model is NULL");
  memset(m, 0, sizeof *m);
  if (train == NULL || model_path == NULL || z_path == NULL || iterations == NULL)
    return sk_lda_fail(err, "resume: a pointer is NULL");
  sk_lda_model_file mf;
  int32_t *z = NULL;
  int64_t T = 0;
  int32_t K = 0;
  if (sk_lda_model_file_read(model_path, &mf, err)) return 1;
  if (mf.num_words != train->num_words) {
    sk_lda_fail(err, "%s: the model has %d vocabulary words but the training corpus has %d", model_path,
                (int)mf.num_words, (int)train->num_words);
    goto fail;
  }
  if (vocab != NULL && mf.vocab != NULL)
    for (int32_t v = 0; v < mf.num_words; ++v)
      if (vocab[v] == NULL || strcmp(vocab[v], mf.vocab[v]) != 0) {
        sk_lda_fail(err, "%s: vocabulary word %d is \"%s\" but the training corpus has \"%s\"", model_path, (int)v,
                    mf.vocab[v], vocab[v] != NULL ? vocab[v] : "(null)");
        goto fail;
      }
  if (sk_lda_z_read(z_path, &z, &T, &K, err)) goto fail;
  if (K != mf.num_topics) {
    sk_lda_fail(err, "%s: the topic assignments have K = %d but the model file %s has K = %d", z_path, (int)K,
                model_path, (int)mf.num_topics);
    goto fail;
  }
  if (T != train->num_tokens) {
    sk_lda_fail(err, "%s: the topic assignments cover %lld tokens but the training corpus has %lld", z_path,
                (long long)T, (long long)train->num_tokens);
    goto fail;
  }
  if (sk_lda_model_init(m, train, mf.num_topics, mf.alpha, mf.beta, mf.seed, err)) goto fail;
  if (sk_lda_model_set_z(m, z, err)) goto fail;
  if (memcmp(m->n_vk, mf.n_vk, (size_t)mf.num_words * (size_t)mf.num_topics * sizeof *m->n_vk) != 0 ||
      memcmp(m->n_k, mf.n_k, (size_t)mf.num_topics * sizeof *m->n_k) != 0) {
    sk_lda_fail(err,
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
