/* Text outputs of sk-lda: topics.txt, document-topic proportions, the metrics CSV (see output.h). */
#include "output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- topics.txt ---------------------------------------------------------------------------------- */

int sk_lda_top_words_find(sk_lda_top_words *t, const int32_t *n_vk, int32_t num_words, int32_t num_topics, int top_n,
                          sk_ex_error *err) {
  memset(t, 0, sizeof *t);
  if (n_vk == NULL) return sk_ex_fail(err, "top words: n_vk is NULL");
  if (num_words < 1 || num_topics < 1)
    return sk_ex_fail(err, "top words: invalid sizes V = %d, K = %d", (int)num_words, (int)num_topics);
  if (top_n < 1) return sk_ex_fail(err, "top words: top_n = %d must be >= 1", top_n);
  const int32_t K = num_topics, V = num_words;
  const int32_t N = top_n < V ? top_n : V;
  /* Per topic a list of its best N words so far, sorted by (count desc, word asc). Words arrive in
     increasing id, so a new word goes after every equal count: ties come out by increasing id. */
  int32_t *best_word = (int32_t *)malloc((size_t)K * (size_t)N * sizeof *best_word);
  int32_t *best_count = (int32_t *)malloc((size_t)K * (size_t)N * sizeof *best_count);
  int32_t *fill = (int32_t *)calloc((size_t)K, sizeof *fill);
  if (best_word == NULL || best_count == NULL || fill == NULL) {
    free(best_word);
    free(best_count);
    free(fill);
    return sk_ex_fail(err, "top words: out of memory (K = %d, top %d)", (int)K, (int)N);
  }
  /* Word-major order reads n_vk sequentially. */
  for (int32_t v = 0; v < V; ++v) {
    const int32_t *row = n_vk + (size_t)v * (size_t)K;
    for (int32_t k = 0; k < K; ++k) {
      const int32_t c = row[k];
      int32_t *bw = best_word + (size_t)k * (size_t)N, *bc = best_count + (size_t)k * (size_t)N;
      int32_t i = fill[k];
      if (i == N) {
        if (c <= bc[N - 1]) continue;
        --i;
      } else {
        ++fill[k];
      }
      while (i > 0 && bc[i - 1] < c) {
        bc[i] = bc[i - 1];
        bw[i] = bw[i - 1];
        --i;
      }
      bc[i] = c;
      bw[i] = v;
    }
  }
  free(fill);
  t->num_topics = K;
  t->per_topic = N;
  t->word = best_word;
  t->count = best_count;
  return 0;
}

void sk_lda_top_words_free(sk_lda_top_words *t) {
  if (t == NULL) return;
  free(t->word);
  free(t->count);
  memset(t, 0, sizeof *t);
}

const char *sk_lda_word_name(char *const *vocab, int32_t v, char *buf, size_t cap) {
  if (vocab != NULL && vocab[v] != NULL) return vocab[v];
  snprintf(buf, cap, "w%06d", (int)v);
  return buf;
}

int sk_lda_print_topics(FILE *f, const int32_t *n_vk, const int64_t *n_k, int32_t num_words, int32_t num_topics,
                        double beta, char *const *vocab, int top_n, sk_ex_error *err) {
  if (f == NULL || n_k == NULL) return sk_ex_fail(err, "print topics: a pointer is NULL");
  if (!(beta > 0.0) || !isfinite(beta))
    return sk_ex_fail(err, "print topics: beta %g must be finite and positive", beta);
  sk_lda_top_words t;
  if (sk_lda_top_words_find(&t, n_vk, num_words, num_topics, top_n, err) != 0) return 1;
  const int32_t K = num_topics, V = num_words, N = t.per_topic;
  fprintf(f, "# sk-lda topics: top %d words per topic, word<TAB>probability\n", (int)N);
  fprintf(f, "# K=%d V=%d beta=%.17g\n", (int)K, (int)V, beta);
  fprintf(f, "# phi_kv = (n_vk + beta) / (n_k + V beta); words by decreasing n_vk, ties by increasing word id\n");
  for (int32_t k = 0; k < K; ++k) {
    const double scale = sk_lda_phi_scale(n_k[k], V, beta);
    fprintf(f, "topic %d\n", (int)k);
    for (int32_t i = 0; i < N; ++i) {
      const size_t at = (size_t)k * (size_t)N + (size_t)i;
      char id[16];
      fprintf(f, "\t%s\t%.6g\n", sk_lda_word_name(vocab, t.word[at], id, sizeof id),
              ((double)t.count[at] + beta) * scale);
    }
  }
  sk_lda_top_words_free(&t);
  return 0; /* write errors: the caller's ferror() (sk_ex_temp_commit() checks it) */
}

int sk_lda_write_topics(const char *path, const int32_t *n_vk, const int64_t *n_k, int32_t num_words,
                        int32_t num_topics, double beta, char *const *vocab, int top_n, sk_ex_error *err) {
  if (path == NULL || n_vk == NULL || n_k == NULL) return sk_ex_fail(err, "write topics: a pointer is NULL");
  if (num_words < 1 || num_topics < 1)
    return sk_ex_fail(err, "%s: invalid sizes V = %d, K = %d", path, (int)num_words, (int)num_topics);
  if (top_n < 1) return sk_ex_fail(err, "%s: top_n = %d must be >= 1", path, top_n);
  if (!(beta > 0.0) || !isfinite(beta)) return sk_ex_fail(err, "%s: beta %g must be finite and positive", path, beta);
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return 1;
  if (sk_lda_print_topics(f, n_vk, n_k, num_words, num_topics, beta, vocab, top_n, err) != 0) {
    sk_ex_temp_abort(f, path);
    return sk_ex_error_prefix(err, path);
  }
  return sk_ex_temp_commit(f, path, err);
}

/* --- document-topic proportions ------------------------------------------------------------------ */

int sk_lda_write_doc_topics(const char *path, int32_t num_docs, int32_t num_topics, double alpha,
                            const int64_t *row_start, const int32_t *row_nnz, const int32_t *row_topic,
                            const int32_t *row_count, const int32_t *doc_ids, sk_ex_error *err) {
  return sk_lda_write_doc_topics_priors(path, num_docs, num_topics, alpha, NULL, row_start, row_nnz, row_topic,
                                        row_count, doc_ids, err);
}

int sk_lda_write_doc_topics_priors(const char *path, int32_t num_docs, int32_t num_topics, double alpha,
                                   const double *alpha_k, const int64_t *row_start, const int32_t *row_nnz,
                                   const int32_t *row_topic, const int32_t *row_count, const int32_t *doc_ids,
                                   sk_ex_error *err) {
  if (path == NULL || (num_docs > 0 && (row_start == NULL || row_nnz == NULL)))
    return sk_ex_fail(err, "write document topics: a pointer is NULL");
  if (num_topics < 1 || num_docs < 0)
    return sk_ex_fail(err, "%s: invalid sizes D = %d, K = %d", path, (int)num_docs, (int)num_topics);
  if (!(alpha > 0.0) || !isfinite(alpha))
    return sk_ex_fail(err, "%s: alpha %g must be finite and positive", path, alpha);
  if (sk_lda_detail_check_alpha_k(alpha_k, num_topics, path, err) != 0) return 1;
  const int32_t K = num_topics;
  for (int32_t d = 0; d < num_docs; ++d) {
    if (row_nnz[d] < 0 || row_nnz[d] > K || (row_nnz[d] > 0 && (row_topic == NULL || row_count == NULL)))
      return sk_ex_fail(err, "%s: document %d has an invalid row (%d entries)", path, (int)d, (int)row_nnz[d]);
    const int32_t *tp = row_topic + row_start[d], *ct = row_count + row_start[d];
    for (int32_t i = 0; i < row_nnz[d]; ++i)
      if (tp[i] < 0 || tp[i] >= K || (i > 0 && tp[i] <= tp[i - 1]) || ct[i] <= 0)
        return sk_ex_fail(err, "%s: document %d: entry %d (topic %d, count %d) is out of order or range", path,
                           (int)d, (int)i, (int)tp[i], (int)ct[i]);
  }
  FILE *f = sk_ex_temp_create(path, err);
  if (f == NULL) return 1;
  const double asum = sk_lda_prior_alpha_sum(alpha_k, alpha, K);
  if (alpha_k == NULL)
    fprintf(f,
            "# sk-lda document topics: doc_id k:theta_dk ... for n_dk > 0; K=%d alpha=%.17g; theta_dk = (n_dk + alpha) "
            "/ (n_d + K alpha); unlisted topics have alpha / (n_d + K alpha)\n",
            (int)K, alpha);
  else
    fprintf(f,
            "# sk-lda document topics: doc_id k:theta_dk ... for n_dk > 0; K=%d per-topic alpha_k, sum_k alpha_k=%.17g; "
            "theta_dk = (n_dk + alpha_k) / (n_d + sum_k alpha_k); unlisted topics have alpha_k / (n_d + sum_k "
            "alpha_k)\n",
            (int)K, asum);
  for (int32_t d = 0; d < num_docs; ++d) {
    const int32_t *tp = row_topic + row_start[d], *ct = row_count + row_start[d];
    int64_t n = 0;
    for (int32_t i = 0; i < row_nnz[d]; ++i) n += ct[i];
    fprintf(f, "%d", (int)(doc_ids != NULL ? doc_ids[d] : d));
    if (alpha_k == NULL) {
      const double inv = 1.0 / ((double)n + (double)K * alpha);
      for (int32_t i = 0; i < row_nnz[d]; ++i) fprintf(f, " %d:%.6g", (int)tp[i], ((double)ct[i] + alpha) * inv);
    } else {
      const double inv = 1.0 / ((double)n + asum);
      for (int32_t i = 0; i < row_nnz[d]; ++i)
        fprintf(f, " %d:%.6g", (int)tp[i], ((double)ct[i] + alpha_k[tp[i]]) * inv);
    }
    fputc('\n', f);
  }
  return sk_ex_temp_commit(f, path, err);
}

int sk_lda_write_model_doc_topics(const char *path, const sk_lda_model *m, const int32_t *doc_ids,
                                  sk_ex_error *err) {
  if (m == NULL || m->z == NULL) return sk_ex_fail(err, "write document topics: model is NULL or not initialised");
  return sk_lda_write_doc_topics_priors(path, m->num_docs, m->num_topics, m->alpha, m->alpha_k, m->dk_start, m->dk_nnz,
                                        m->dk_topic, m->dk_count, doc_ids, err);
}

/* --- metrics CSV --------------------------------------------------------------------------------- */

static const char sk_lda_metrics_header[] =
    "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll,sample_s,tables_s,a_rebuild_s,b_rebuild_s,metrics_s,"
    "device_bytes_peak,alpha_sum,beta\n";
/* The headers of the logs written before the time columns, and before the prior columns: such a log is
   continued with the missing columns added, empty in its rows. */
static const char sk_lda_metrics_header_v1[] = "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll\n";
static const char sk_lda_metrics_header_v2[] =
    "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll,sample_s,tables_s,a_rebuild_s,b_rebuild_s,metrics_s,"
    "device_bytes_peak\n";
/* What a row of an old header gets: the fields it lacks, empty (six time fields and two prior fields for
   version 1, the two prior fields for version 2). */
static const char sk_lda_metrics_empty_v1[] = ",,,,,,,,";
static const char sk_lda_metrics_empty_v2[] = ",,";

/* Appends n bytes to the log's text; 0 on success. */
static int sk_lda_metrics_append(sk_lda_metrics_log *log, const char *s, size_t n) {
  if (log->len + n + 1 > log->cap) {
    size_t cap = log->cap > 0 ? log->cap : 1024;
    while (log->len + n + 1 > cap) cap *= 2;
    char *text = (char *)realloc(log->text, cap);
    if (text == NULL) return 1;
    log->text = text;
    log->cap = cap;
  }
  memcpy(log->text + log->len, s, n);
  log->len += n;
  log->text[log->len] = '\0';
  return 0;
}

/* Writes the whole text to the log's path (temporary name and rename), then opens the file for the
   rows to come (without it, each row rewrites the file: slower, as safe). */
static int sk_lda_metrics_write(sk_lda_metrics_log *log, sk_ex_error *err) {
  if (log->file != NULL) fclose(log->file);
  log->file = NULL;
  FILE *f = sk_ex_temp_create(log->path, err);
  if (f == NULL) return 1;
  (void)fwrite(log->text, 1, log->len, f); /* errors surface through ferror() at the commit */
  if (sk_ex_temp_commit_unsynced(f, log->path, err) != 0) return 1;
  log->file_len = log->len;
  log->file = fopen(log->path, "ab");
  if (log->file != NULL && setvbuf(log->file, NULL, _IONBF, 0) != 0) { /* a row is one write() */
    fclose(log->file);
    log->file = NULL;
  }
  return 0;
}

/* Appends the text after the file's bytes (the new row) with one write; 0 when the file then holds the
   whole text. A short write is cut back off, so the file ends at a whole row either way. */
static int sk_lda_metrics_append_file(sk_lda_metrics_log *log) {
  if (log->file == NULL) return 1;
  const size_t n = log->len - log->file_len;
  if (fwrite(log->text + log->file_len, 1, n, log->file) == n) {
    log->file_len = log->len;
    return 0;
  }
  if (ftruncate(fileno(log->file), (off_t)log->file_len) == 0) {
    clearerr(log->file);
  } else { /* cannot say where the file ends: the caller rewrites it whole */
    fclose(log->file);
    log->file = NULL;
  }
  return 1;
}

/* Appends an earlier log's rows (the text after its header), each with `pad` (its missing fields, empty). */
static int sk_lda_metrics_append_old_rows(sk_lda_metrics_log *log, const char *rows, const char *pad) {
  while (*rows != '\0') {
    const char *end = strchr(rows, '\n');
    const size_t n = end != NULL ? (size_t)(end - rows) : strlen(rows);
    if (sk_lda_metrics_append(log, rows, n) != 0 || sk_lda_metrics_append(log, pad, strlen(pad)) != 0 ||
        sk_lda_metrics_append(log, "\n", 1) != 0)
      return 1;
    rows += n + (end != NULL ? 1 : 0);
  }
  return 0;
}

/* Which header a log's text starts with: 3 this version's, 2 and 1 the earlier ones (v2, v1), 0 none. */
static int metrics_header_version(const char *text) {
  if (strncmp(text, sk_lda_metrics_header, sizeof sk_lda_metrics_header - 1) == 0) return 3;
  if (strncmp(text, sk_lda_metrics_header_v2, sizeof sk_lda_metrics_header_v2 - 1) == 0) return 2;
  if (strncmp(text, sk_lda_metrics_header_v1, sizeof sk_lda_metrics_header_v1 - 1) == 0) return 1;
  return 0;
}

int sk_lda_metrics_file_is_log(const char *path) {
  char head[512]; /* more than any header */
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  const size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  return n == 0 || metrics_header_version(head) != 0;
}

int sk_lda_metrics_log_open(sk_lda_metrics_log *log, const char *path, const char *text, sk_ex_error *err) {
  if (log == NULL || path == NULL) return sk_ex_fail(err, "metrics log: a pointer is NULL");
  memset(log, 0, sizeof *log);
  if (strlen(path) >= sizeof log->path) return sk_ex_fail(err, "metrics log: path is too long");
  memcpy(log->path, path, strlen(path) + 1);
  const int continued = text != NULL && text[0] != '\0';
  const int version = continued ? metrics_header_version(text) : 3;
  const int v1 = version == 1, v2 = version == 2;
  if (version == 0) {
    memset(log, 0, sizeof *log);
    return sk_ex_fail(err, "%s: the log to continue does not start with the metrics header", path);
  }
  const char *start = continued && !v1 && !v2 ? text : sk_lda_metrics_header;
  const char *old_rows = v1 ? text + sizeof sk_lda_metrics_header_v1 - 1 : v2 ? text + sizeof sk_lda_metrics_header_v2 - 1 : NULL;
  if (sk_lda_metrics_append(log, start, strlen(start)) != 0 ||
      (old_rows != NULL &&
       sk_lda_metrics_append_old_rows(log, old_rows, v1 ? sk_lda_metrics_empty_v1 : sk_lda_metrics_empty_v2) != 0)) {
    sk_lda_metrics_log_close(log);
    return sk_ex_fail(err, "%s: out of memory", path);
  }
  if (sk_lda_metrics_write(log, err) != 0) {
    sk_lda_metrics_log_close(log);
    return 1;
  }
  return 0;
}

/* A seconds field: "%.6f", or empty when not known (NaN or negative). */
static void sk_lda_metrics_seconds_field(char *buf, size_t cap, double v) {
  buf[0] = '\0';
  if (!isnan(v) && v >= 0.0) snprintf(buf, cap, "%.6f", v);
}

int sk_lda_metrics_log_row(sk_lda_metrics_log *log, uint64_t iteration, double seconds, double tokens_per_s,
                           double joint_ll_per_token, double heldout_ll, const sk_lda_metrics_times *times,
                           sk_ex_error *err) {
  return sk_lda_metrics_log_row_priors(log, iteration, seconds, tokens_per_s, joint_ll_per_token, heldout_ll, times,
                                       NULL, err);
}

int sk_lda_metrics_log_row_priors(sk_lda_metrics_log *log, uint64_t iteration, double seconds, double tokens_per_s,
                                  double joint_ll_per_token, double heldout_ll, const sk_lda_metrics_times *times,
                                  const sk_lda_metrics_priors *priors, sk_ex_error *err) {
  if (log == NULL || log->text == NULL) return sk_ex_fail(err, "metrics log: not open");
  char joint[40] = "", heldout[40] = "", parts[5][40] = {"", "", "", "", ""}, bytes[32] = "", row[480];
  char asum[40] = "", beta[40] = "";
  if (priors != NULL && !isnan(priors->alpha_sum)) snprintf(asum, sizeof asum, "%.17g", priors->alpha_sum);
  if (priors != NULL && !isnan(priors->beta)) snprintf(beta, sizeof beta, "%.17g", priors->beta);
  if (!isnan(joint_ll_per_token)) snprintf(joint, sizeof joint, "%.17g", joint_ll_per_token);
  if (!isnan(heldout_ll)) snprintf(heldout, sizeof heldout, "%.17g", heldout_ll);
  if (times != NULL) {
    const double v[5] = {times->sample_s, times->tables_s, times->a_rebuild_s, times->b_rebuild_s, times->metrics_s};
    for (int i = 0; i < 5; ++i) sk_lda_metrics_seconds_field(parts[i], sizeof parts[i], v[i]);
    if (times->device_bytes_peak > 0) snprintf(bytes, sizeof bytes, "%lld", (long long)times->device_bytes_peak);
  }
  const int n = snprintf(row, sizeof row, "%llu,%.6f,%.1f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", (unsigned long long)iteration,
                         seconds, tokens_per_s, joint, heldout, parts[0], parts[1], parts[2], parts[3], parts[4], bytes,
                         asum, beta);
  if (n < 0 || (size_t)n >= sizeof row) return sk_ex_fail(err, "%s: a row does not fit", log->path);
  const size_t before = log->len;
  if (sk_lda_metrics_append(log, row, (size_t)n) != 0) return sk_ex_fail(err, "%s: out of memory", log->path);
  if (sk_lda_metrics_append_file(log) != 0 && sk_lda_metrics_write(log, err) != 0) {
    log->len = before; /* the file still holds the rows before this one */
    log->text[before] = '\0';
    return 1;
  }
  return 0;
}

void sk_lda_metrics_log_last_times(const sk_lda_metrics_log *log, sk_lda_metrics_times *out) {
  if (out == NULL) return;
  memset(out, 0, sizeof *out);
  if (log == NULL || log->text == NULL || log->len <= sizeof sk_lda_metrics_header - 1) return; /* no row */
  size_t start = log->len - 1; /* the last row: after the newline before the final one */
  while (start > 0 && log->text[start - 1] != '\n') --start;
  const char *p = log->text + start;
  for (int field = 0; field < 5 && p != NULL; ++field) { /* skip the first five columns */
    p = strchr(p, ',');
    if (p != NULL) ++p;
  }
  double *seconds[5] = {&out->sample_s, &out->tables_s, &out->a_rebuild_s, &out->b_rebuild_s, &out->metrics_s};
  for (int i = 0; i < 6 && p != NULL && *p != '\n' && *p != '\0'; ++i) {
    if (*p != ',') {
      char *end = NULL;
      const double v = strtod(p, &end);
      if (end != p && !isnan(v) && v > 0) {
        if (i < 5)
          *seconds[i] = v;
        else
          out->device_bytes_peak = (int64_t)v;
      }
    }
    p = strchr(p, ',');
    if (p != NULL) ++p;
  }
}

void sk_lda_metrics_log_close(sk_lda_metrics_log *log) {
  if (log == NULL) return;
  if (log->file != NULL) fclose(log->file);
  free(log->text);
  memset(log, 0, sizeof *log);
}
