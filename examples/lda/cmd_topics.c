/* sk-lda topics: a saved model's top words per topic, as text (topics.txt's layout), CSV or JSON. */

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "corpus_lines.h"
#include "model_file.h"
#include "output.h"
#include "sk_ex_main.h"

static void topics_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda topics MODEL [--top N] [--format text|csv|json] [--vocab FILE]\n"
          "Prints the top words of each topic of a model written by sk-lda train (model.skl): the N words\n"
          "with the largest count n_vk, ties by increasing word id, each with\n"
          "    phi_kv = (n_vk + beta) / (n_k + V beta).\n"
          "Words are the model's vocabulary, or w000123 (the 0-based word id) when it has none.\n\n"
          "  -n, --top N            words per topic, at least 1 (default %d; more than V prints V)\n"
          "  -f, --format FORMAT    text: topics.txt's layout (the same bytes as train's topics.txt for the\n"
          "                         same N); csv: a header row `topic,rank,word_id,word,count,phi`, then a row\n"
          "                         per word (rank from 1; word quoted as RFC 4180 when it holds a comma,\n"
          "                         quote or line break); json: {\"num_topics\", \"num_words\", \"alpha\", \"beta\",\n"
          "                         \"iterations\", \"top\", \"topics\": [{\"topic\", \"tokens\" (n_k), \"words\":\n"
          "                         [{\"rank\", \"word_id\", \"word\", \"count\", \"phi\"}]}]} (bytes that are not\n"
          "                         UTF-8 become U+FFFD). csv and json print phi with 9 digits, text with 6\n"
          "      --vocab FILE       the words, one per line, line v + 1 = word id v (exactly V lines):\n"
          "                         instead of the model's own vocabulary, or for a model without one\n"
          "  -h, --help             this text\n"
          "The result goes to stdout.\n",
          SK_LDA_DEFAULT_TOP_WORDS);
}

typedef enum topics_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON } topics_format;

/* The length of the valid UTF-8 sequence at p (1 to 4 bytes, no overlong forms or surrogates), 0 when the
   bytes there are not one; stops at the first byte that does not fit, so never reads past a NUL. */
static size_t utf8_length(const unsigned char *p) {
  size_t n;
  unsigned char lo = 0x80, hi = 0xbf;
  if (p[0] < 0x80) return 1;
  if (p[0] >= 0xc2 && p[0] <= 0xdf) {
    n = 2;
  } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
    n = 3;
    lo = p[0] == 0xe0 ? 0xa0 : 0x80;
    hi = p[0] == 0xed ? 0x9f : 0xbf;
  } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
    n = 4;
    lo = p[0] == 0xf0 ? 0x90 : 0x80;
    hi = p[0] == 0xf4 ? 0x8f : 0xbf;
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < n; ++i)
    if ((p[i] & 0xc0) != 0x80) return 0;
  return n;
}

/* A JSON string: quote and backslash escaped, control bytes as \u00XX, invalid UTF-8 as U+FFFD (JSON text
   is Unicode; a model's words are bytes). */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0';) {
    const size_t n = utf8_length(p);
    if (n == 0) {
      fputs("\\ufffd", f);
      ++p;
    } else if (*p == '"' || *p == '\\') {
      fputc('\\', f);
      fputc(*p++, f);
    } else if (*p < 0x20) {
      fprintf(f, "\\u%04x", (unsigned)*p++);
    } else {
      fwrite(p, 1, n, f);
      p += n;
    }
  }
  fputc('"', f);
}

/* A CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s != '\0'; ++s) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The csv and json forms, from the top words (the text form is sk_lda_print_topics()'s). */
static void print_table(FILE *f, const sk_lda_model_file *mf, char *const *vocab, const sk_lda_top_words *t,
                        topics_format format) {
  const int32_t N = t->per_topic;
  if (format == FORMAT_CSV) {
    fputs("topic,rank,word_id,word,count,phi\n", f);
  } else {
    fprintf(f, "{\"num_topics\": %d, \"num_words\": %d, \"alpha\": %.17g, \"beta\": %.17g, \"iterations\": %llu, "
               "\"top\": %d, \"topics\": [\n",
            (int)mf->num_topics, (int)mf->num_words, mf->alpha, mf->beta, (unsigned long long)mf->iterations, (int)N);
  }
  for (int32_t k = 0; k < mf->num_topics; ++k) {
    const double scale = sk_lda_phi_scale(mf->n_k[k], mf->num_words, mf->beta);
    if (format == FORMAT_JSON)
      fprintf(f, "%s{\"topic\": %d, \"tokens\": %lld, \"words\": [\n", k > 0 ? ",\n" : "", (int)k,
              (long long)mf->n_k[k]);
    for (int32_t i = 0; i < N; ++i) {
      const size_t at = (size_t)k * (size_t)N + (size_t)i;
      const int32_t v = t->word[at];
      const double phi = ((double)t->count[at] + mf->beta) * scale;
      char id[16];
      const char *word = sk_lda_word_name(vocab, v, id, sizeof id);
      if (format == FORMAT_CSV) {
        fprintf(f, "%d,%d,%d,", (int)k, (int)i + 1, (int)v);
        csv_field(f, word);
        fprintf(f, ",%d,%.9g\n", (int)t->count[at], phi);
      } else {
        fprintf(f, "  {\"rank\": %d, \"word_id\": %d, \"word\": ", (int)i + 1, (int)v);
        json_string(f, word);
        fprintf(f, ", \"count\": %d, \"phi\": %.9g}%s\n", (int)t->count[at], phi, i + 1 < N ? "," : "");
      }
    }
    if (format == FORMAT_JSON) fputs("]}", f);
  }
  if (format == FORMAT_JSON) fputs("\n]}\n", f);
}

/* --vocab FILE: exactly V words (corpus_lines.h's reader, as the corpus readers read a vocabulary). */
static int read_vocab(const char *path, const sk_lda_model_file *mf, const char *model, char ***words,
                      sk_ex_error *err) {
  sk_lda_detail_lines lines;
  char what[4200];
  int32_t count = 0;
  snprintf(what, sizeof what, "V = %d of %s", (int)mf->num_words, model);
  if (sk_lda_detail_lines_open(&lines, path, err) != 0) return 1;
  const int rc = sk_lda_detail_read_vocab(&lines, mf->num_words, what, mf->num_words, words, &count, err);
  sk_lda_detail_lines_close(&lines);
  return rc;
}

int sk_lda_cmd_topics(int argc, char **argv) {
  static const struct option options[] = {{"top", required_argument, 0, 'n'},   {"format", required_argument, 0, 'f'},
                                          {"vocab", required_argument, 0, 'v'}, {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  const char *vocab_path = NULL;
  long long top = SK_LDA_DEFAULT_TOP_WORDS;
  topics_format format = FORMAT_TEXT;
  int ok = 1, c;
  sk_ex_note_repeated_options("sk-lda topics", argc, argv, "n:f:h", options);
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "n:f:h", options, NULL)) != -1) {
    switch (c) {
      case 'n': ok = sk_lda_parse_ll("topics", "--top", optarg, 1, 1000000, &top); break;
      case 'f':
        if (strcmp(optarg, "text") == 0) {
          format = FORMAT_TEXT;
        } else if (strcmp(optarg, "csv") == 0) {
          format = FORMAT_CSV;
        } else if (strcmp(optarg, "json") == 0) {
          format = FORMAT_JSON;
        } else {
          fprintf(stderr, "sk-lda topics: --format: '%s' is not one of text, csv, json\n", optarg);
          ok = 0;
        }
        break;
      case 'v': vocab_path = optarg; break;
      case 'h': topics_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda topics --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (argc - optind != 1) {
    fprintf(stderr, "sk-lda topics: %s (see 'sk-lda topics --help')\n",
            optind >= argc ? "give the model file (MODEL)" : "give one model file only");
    return SK_EX_EXIT_USAGE;
  }
  const char *model = argv[optind];
  sk_ex_error err;
  sk_lda_model_file mf;
  if (sk_lda_model_file_read(model, &mf, &err) != 0) {
    fprintf(stderr, "sk-lda topics: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  char **vocab = NULL;
  if (vocab_path != NULL && read_vocab(vocab_path, &mf, model, &vocab, &err) != 0) {
    fprintf(stderr, "sk-lda topics: --vocab: %s\n", err.message);
    sk_lda_model_file_free(&mf);
    return SK_EX_EXIT_USAGE;
  }
  char *const *words = vocab != NULL ? vocab : mf.vocab;
  int status = SK_EX_EXIT_OK;
  sk_lda_top_words t;
  memset(&t, 0, sizeof t);
  if (format == FORMAT_TEXT
          ? sk_lda_print_topics(stdout, mf.n_vk, mf.n_k, mf.num_words, mf.num_topics, mf.beta, words, (int)top, &err)
          : sk_lda_top_words_find(&t, mf.n_vk, mf.num_words, mf.num_topics, (int)top, &err)) {
    fprintf(stderr, "sk-lda topics: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    if (format != FORMAT_TEXT) print_table(stdout, &mf, words, &t, format); /* a failed write: sk_ex_main() */
  }
  sk_lda_top_words_free(&t);
  if (vocab != NULL) sk_lda_detail_free_vocab(vocab, mf.num_words);
  sk_lda_model_file_free(&mf);
  return status;
}
