/* libFuzzer target for the gzip path of the file readers: sk_lda_read_uci() on files read through zlib
   (corpus_lines.c). The input is one byte of flags, a docword file, optionally "\n#vocab\n" and a
   vocabulary file. Flag bit 0 gzip-compresses the docword bytes before writing docword.fuzz.txt.gz, bit 1
   the vocabulary's (so mutations of the text reach the line reader behind zlib); without them the bytes
   are written as they are (corrupt or truncated gzip, or plain text, which zlib passes through).

   The check is a comparison: the harness decodes each file itself (decode() below, with zlib's inflate())
   and parses the decoded bytes with sk_lda_parse_uci(); the file reader must then agree (the same corpus,
   or a failure), and must fail when the gzip data is truncated or corrupt. The file readers' limits allow D up to 2^31 - 2 documents and
   2^40 tokens, which a 20-byte header can ask for; so the file reader only runs when the in-memory parse,
   under the fuzz limits, did not stop at a limit (fuzz_uci covers the limits themselves). */
#include "fuzz_check.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The decoded bytes of a file: more than this is a gzip bomb, skipped (4 KiB of input expand to ~4 MiB). */
#define SK_FUZZ_GZIP_MAX_DECODED ((size_t)1 << 23)

/* Writes `b` as file NAME, gzip-compressed when `compress`; returns its path. */
static const char *write_input(const char *name, const sk_lda_buffer *b, int compress) {
  if (!compress) return sk_fuzz_write(name, b->data, b->size);
  const char *path = sk_fuzz_path(name);
  gzFile gz = gzopen(path, "wb");
  if (gz == NULL || (b->size > 0 && gzwrite(gz, b->data, (unsigned)b->size) != (int)b->size) ||
      gzclose(gz) != Z_OK)
    abort();
  return path;
}

/* The file decoded as corpus_read.h says the readers decode it, written here independently with zlib's
   inflate(): a file that starts with gzip's magic 1f 8b is one or more gzip members (each checked by its
   CRC-32 and length), with nothing after the last; any other file is its own bytes. *out (malloc'ed) gets
   *n decoded bytes, *corrupt whether the gzip data is truncated or corrupt. Returns 0, or 1 when the
   decoded size is past the cap. */
static int decode(const char *path, char **out, size_t *n, int *corrupt) {
  size_t in_n = 0;
  unsigned char *in = sk_fuzz_slurp(path, &in_n);
  if (in == NULL) abort();
  *corrupt = 0;
  if (in_n < 2 || in[0] != 0x1f || in[1] != 0x8b) {
    *out = (char *)in;
    *n = in_n;
    return 0;
  }
  size_t cap = 1 << 16;
  unsigned char *b = (unsigned char *)malloc(cap);
  z_stream z;
  memset(&z, 0, sizeof z);
  if (b == NULL || inflateInit2(&z, 15 + 16) != Z_OK) abort();
  z.next_in = in;
  z.avail_in = (uInt)in_n;
  *n = 0;
  for (;;) {
    if (*n == cap) {
      if (cap >= SK_FUZZ_GZIP_MAX_DECODED) {
        inflateEnd(&z);
        free(in);
        free(b);
        return 1;
      }
      b = (unsigned char *)realloc(b, cap *= 2);
      if (b == NULL) abort();
    }
    z.next_out = b + *n;
    z.avail_out = (uInt)(cap - *n);
    const int r = inflate(&z, Z_NO_FLUSH);
    *n = cap - z.avail_out;
    if (r == Z_STREAM_END) {
      if (z.avail_in == 0) break; /* the end of the file right after a member */
      if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b || inflateReset(&z) != Z_OK) {
        *corrupt = 1; /* trailing bytes that are not another member */
        break;
      }
    } else if (r == Z_BUF_ERROR && z.avail_out > 0) {
      *corrupt = 1; /* no progress with room to write: the input ended inside a member */
      break;
    } else if (r != Z_OK && r != Z_BUF_ERROR) {
      *corrupt = 1;
      break;
    }
  }
  inflateEnd(&z);
  free(in);
  *out = (char *)b;
  return 0;
}

static int same_corpus(const sk_lda_corpus *a, const sk_lda_corpus *b) {
  if (a->num_docs != b->num_docs || a->num_words != b->num_words || a->num_tokens != b->num_tokens) return 0;
  if (memcmp(a->doc_offsets, b->doc_offsets, ((size_t)a->num_docs + 1) * sizeof *a->doc_offsets) != 0 ||
      memcmp(a->tokens, b->tokens, (size_t)a->num_tokens * sizeof *a->tokens) != 0)
    return 0;
  if ((a->vocab == NULL) != (b->vocab == NULL)) return 0;
  if (a->vocab != NULL)
    for (int32_t v = 0; v < a->num_words; ++v)
      if (strcmp(a->vocab[v], b->vocab[v]) != 0) return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sk_lda_buffer docword = {"docword.fuzz.txt", NULL, 0}, vocab = {"vocab.fuzz.txt", NULL, 0};
  int has_vocab;
  if (size < 1) return 0;
  sk_fuzz_split(data + 1, size - 1, "\n#vocab\n", &docword, &vocab, &has_vocab);
  const char *doc_path = write_input("docword.fuzz.txt.gz", &docword, data[0] & 1);
  const char *vocab_path = has_vocab ? write_input("vocab.fuzz.txt.gz", &vocab, data[0] & 2) : NULL;

  char *plain[2] = {NULL, NULL};
  size_t plain_n[2] = {0, 0};
  int corrupt[2] = {0, 0}, skip = decode(doc_path, &plain[0], &plain_n[0], &corrupt[0]);
  if (!skip && vocab_path != NULL) skip = decode(vocab_path, &plain[1], &plain_n[1], &corrupt[1]);
  /* A binary corpus is a different reader (fuzz_binary), chosen by the file's first bytes. */
  if (!skip && ((docword.size >= 8 && memcmp(docword.data, "SKLDACRP", 8) == 0) ||
                (plain_n[0] >= 8 && memcmp(plain[0], "SKLDACRP", 8) == 0)))
    skip = 1;
  if (!skip) {
    const sk_lda_buffer mem_doc = {"docword.fuzz.txt", plain[0], plain_n[0]};
    const sk_lda_buffer mem_vocab = {"vocab.fuzz.txt", plain[1], plain_n[1]};
    sk_lda_corpus mem, file;
    sk_ex_error mem_err, file_err;
    memset(&mem_err, 0, sizeof mem_err);
    memset(&file_err, 0, sizeof file_err);
    const int mem_rc = sk_lda_parse_uci(&mem_doc, vocab_path ? &mem_vocab : NULL, &sk_fuzz_limits, &mem, &mem_err);
    sk_fuzz_check_corpus(&mem, mem_rc, &mem_err);
    if (mem_rc == 0 || strstr(mem_err.message, "the reader accepts") == NULL) {
      const int file_rc = sk_lda_read_uci(doc_path, vocab_path, &file, &file_err);
      sk_fuzz_check_corpus(&file, file_rc, &file_err);
      /* Corrupt gzip data is an error, whatever the bytes decoded before it; else the two readers agree. */
      if (corrupt[0] || corrupt[1]) {
        if (file_rc == 0) abort();
      } else if ((file_rc == 0) != (mem_rc == 0) || (file_rc == 0 && !same_corpus(&mem, &file))) {
        abort();
      }
      sk_lda_corpus_free(&file);
    }
    sk_lda_corpus_free(&mem);
  }
  free(plain[0]);
  free(plain[1]);
  return 0;
}
