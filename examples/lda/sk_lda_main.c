/*
 * sk-lda: an LDA trainer built on samplekit. `sk-lda COMMAND --help` describes each command.
 * Exit status: sk_ex_main.h's rule (SK_EX_EXIT_RULE): 0 success, 2 the user's input, 1 the machine.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "corpus.h"
#include "corpus_binary.h"
#include "corpus_read.h"
#include "gen.h"
#include "metrics.h"
#include "model.h"
#include "model_file.h"
#include "output.h"
#include "run.h"
#include "split.h"
#include "demo.h"

#include "samplekit/sk_version.h"
#include "sk_ex_clock.h"
#include "sk_ex_main.h"

#ifdef _OPENMP
#include <omp.h>
#endif


/* --- gen ------------------------------------------------------------------------------------------ */

static void gen_usage(FILE *f) {
  sk_lda_gen_params d;
  sk_lda_gen_params_default(&d);
  fprintf(f,
          "usage: sk-lda gen --out DIR [options]\n"
          "Draws a corpus from the LDA generative process with planted topics and writes it in UCI format\n"
          "(DIR/docword.NAME.txt, DIR/vocab.NAME.txt), or with --binary as a binary corpus\n"
          "(DIR/docword.NAME.bin, DIR/vocab.NAME.txt), with the planted topics beside it\n"
          "(DIR/topics.NAME.planted.txt, DIR/phi.NAME.planted.f32, DIR/theta.NAME.planted.f32).\n"
          "The output is a pure function of the options, the same bits for any --threads\n"
          "(see examples/lda/src/gen.h).\n\n"
          "  -o, --out DIR          folder to write into (created with its parents)\n"
          "      --name NAME        file name part (default synthetic)\n"
          "  -d, --docs D           documents (default %d)\n"
          "  -V, --words V          vocabulary size (default %d)\n"
          "  -k, --topics K         planted topics (default %d)\n"
          "  -L, --mean-length L    mean tokens per document (default %g)\n"
          "      --length-cv C      coefficient of variation of the lengths (default %g)\n"
          "  -a, --alpha A          Dirichlet parameter of the document mixtures (default %g)\n"
          "  -b, --beta B           Dirichlet concentration of the topics (default %g)\n"
          "      --zipf S           Zipf exponent of the vocabulary (default %g)\n"
          "      --support F        fraction of the vocabulary each topic uses (default %g)\n"
          "  -s, --seed N           seed (default %llu)\n"
          "      --top N            words per topic in the planted topics file (default 20)\n"
          "      --binary           write the corpus as an sk-lda binary corpus, docword.NAME.bin, instead of\n"
          "                         UCI text: read at disk speed by every command's --docword (recognised by\n"
          "                         its first bytes), 8 bytes per document and 4 per token, little-endian,\n"
          "                         CRC-32 checked (layout in examples/lda/src/corpus_binary.h)\n"
          "      --threads N        CPU threads of the drawing and the writing (default: all); the output\n"
          "                         does not depend on it\n"
          "  -h, --help             this text\n",
          d.num_docs, d.num_words, d.num_topics, d.mean_doc_length, d.doc_length_cv, d.alpha, d.beta,
          d.zipf_exponent, d.topic_support, (unsigned long long)d.seed);
}

static int cmd_gen(int argc, char **argv) {
  static const struct option options[] = {
      {"out", required_argument, 0, 'o'},        {"name", required_argument, 0, 'N'},
      {"docs", required_argument, 0, 'd'},       {"words", required_argument, 0, 'V'},
      {"topics", required_argument, 0, 'k'},     {"mean-length", required_argument, 0, 'L'},
      {"length-cv", required_argument, 0, 'c'},  {"alpha", required_argument, 0, 'a'},
      {"beta", required_argument, 0, 'b'},       {"zipf", required_argument, 0, 'z'},
      {"support", required_argument, 0, 'f'},    {"seed", required_argument, 0, 's'},
      {"top", required_argument, 0, 't'},        {"help", no_argument, 0, 'h'},
      {"binary", no_argument, 0, 'B'},           {"threads", required_argument, 0, 'j'},
      {0, 0, 0, 0}};
  sk_lda_gen_params p;
  sk_lda_gen_params_default(&p);
  const char *out = NULL, *name = "synthetic";
  long long top = 20;
  int ok = 1, c, binary = 0;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "o:d:V:k:L:a:b:s:h", options, NULL)) != -1) {
    long long v;
    switch (c) {
      case 'o': out = optarg; break;
      case 'N': name = optarg; break;
      case 'd': ok = sk_lda_parse_ll("gen", "--docs", optarg, 1, INT32_MAX, &v); p.num_docs = (int32_t)v; break;
      case 'V': ok = sk_lda_parse_ll("gen", "--words", optarg, 1, INT32_MAX, &v); p.num_words = (int32_t)v; break;
      case 'k': ok = sk_lda_parse_ll("gen", "--topics", optarg, 1, 65536, &v); p.num_topics = (int32_t)v; break;
      case 'L': ok = sk_lda_parse_double("gen", "--mean-length", optarg, 1.0, 1073741824.0, &p.mean_doc_length); break;
      case 'c': ok = sk_lda_parse_double("gen", "--length-cv", optarg, 0.0, 10.0, &p.doc_length_cv); break;
      case 'a': ok = sk_lda_parse_double("gen", "--alpha", optarg, 1e-8, 1e8, &p.alpha); break;
      case 'b': ok = sk_lda_parse_double("gen", "--beta", optarg, 1e-8, 1e8, &p.beta); break;
      case 'z': ok = sk_lda_parse_double("gen", "--zipf", optarg, 0.0, 10.0, &p.zipf_exponent); break;
      case 'f': ok = sk_lda_parse_double("gen", "--support", optarg, 1e-9, 1.0, &p.topic_support); break;
      case 's': ok = sk_lda_parse_u64("gen", "--seed", optarg, &p.seed); break;
      case 't': ok = sk_lda_parse_ll("gen", "--top", optarg, 1, 1000000, &top); break;
      case 'B': binary = 1; break;
      case 'j': ok = sk_lda_parse_ll("gen", "--threads", optarg, 1, 4096, &v); p.threads = (int)v; break;
      case 'h': gen_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda gen --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "sk-lda gen: unexpected argument '%s' (see 'sk-lda gen --help')\n", argv[optind]);
    return SK_EX_EXIT_USAGE;
  }
  if (out == NULL) {
    fprintf(stderr, "sk-lda gen: --out DIR is required (see 'sk-lda gen --help')\n");
    return SK_EX_EXIT_USAGE;
  }
  sk_ex_error err;
  if (sk_lda_gen_validate(&p, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  /* The folder before the work: an output path that cannot be written is the user's (exit 2). */
  char docword[512];
  snprintf(docword, sizeof docword, "docword.%s.%s", name, binary ? "bin" : "txt");
  const char *const outputs[] = {docword, NULL};
  if (sk_ex_check_output_dir(out, outputs, &err) != 0) {
    fprintf(stderr, "sk-lda gen: --out: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
#ifdef _OPENMP
  if (p.threads > 0) omp_set_num_threads(p.threads); /* the writers' threads too */
#endif
  const int tty = isatty(fileno(stderr));
  const double t0 = sk_ex_now();
  if (tty) fprintf(stderr, "generating %d documents of %g tokens on average ...\n", p.num_docs, p.mean_doc_length);
  sk_lda_corpus corpus;
  float *phi = NULL, *theta = NULL;
  if (sk_lda_generate(&p, &corpus, &phi, &theta, NULL, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    return SK_EX_EXIT_RUNTIME;
  }
  const double t1 = sk_ex_now();
  if (tty) fprintf(stderr, "writing %lld tokens to %s ...\n", (long long)corpus.num_tokens, out);
  int status = SK_EX_EXIT_OK;
  const int written = binary ? sk_lda_write_binary_files(&corpus, out, name, &err)
                             : sk_lda_write_uci(&corpus, out, name, &err);
  const double t2 = sk_ex_now();
  if (written != 0 || sk_lda_write_planted(&p, corpus.vocab, phi, theta, (int)top, out, name, &err) != 0) {
    fprintf(stderr, "sk-lda gen: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    printf("wrote %s/docword.%s.%s: %d documents, %d words, %lld tokens (generated in %.1f s, corpus written in "
           "%.1f s, planted topics in %.1f s)\n",
           out, name, binary ? "bin" : "txt", corpus.num_docs, corpus.num_words, (long long)corpus.num_tokens,
           t1 - t0, t2 - t1, sk_ex_now() - t2);
  }
  sk_lda_corpus_free(&corpus);
  free(phi);
  free(theta);
  return status;
}

/* --- train ---------------------------------------------------------------------------------------- */

/* The input options of train and eval. */
typedef struct input_options {
  const char *docword, *ldac, *text, *vocab, *stopwords;
  long long min_count;
} input_options;

static void train_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda train (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE] [options]\n"
          "       sk-lda train --demo\n"
          "Trains LDA by Gibbs sampling: ESCA or AGA-LDA on the GPU, ESCA or serial collapsed Gibbs on the CPU%s.\n\n"
          "input (one of):\n"
          "      --docword FILE     UCI bag of words (docword.X.txt or .txt.gz); --vocab vocab.X.txt (exactly W words)\n"
          "                         or a binary corpus (sk-lda gen --binary; known by its first bytes, read at\n"
          "                         disk speed; --vocab then holds exactly its V words)\n"
          "      --ldac FILE        LDA-C (N id:count ...); --vocab FILE gives the words\n"
          "      --text FILE        plain text, one document per line (lower-cased, letters only)\n"
          "      --vocab FILE       vocabulary, one word per line\n"
          "      --stopwords FILE   words to drop (--text)\n"
          "      --min-count N      drop words seen N times or fewer (--text; default 0)\n"
          "model and run:\n"
          "  -k, --topics K         topics, 1 to %d (default 100)\n"
          "  -n, --iters N          Gibbs sweeps in all, a resumed run's earlier ones included (default 100)\n"
          "      --alpha A          document-topic prior (default 50 / K)\n"
          "      --beta B           topic-word prior (default %g)\n"
          "      --sampler S        auto (default): aga on a GPU when K <= %d, else esca (on the CPU always\n"
          "                         esca); the K where GPU ESCA overtakes AGA in time to collapsed Gibbs's\n"
          "                         quality, measured on an H200. esca: every token from the previous sweep's\n"
          "                         counts, parallel, deterministic, sparse in K (SaberLDA). cgs: serial\n"
          "                         collapsed Gibbs, the textbook reference, CPU. aga: AGA-LDA, GPU only:\n"
          "                         documents in mini-batches, word-topic counts updated as topics are drawn,\n"
          "                         so closer to collapsed Gibbs per sweep; dense in K, for small K; its\n"
          "                         shared-memory atomics make runs differ from run to run (ESCA is the\n"
          "                         deterministic choice)\n"
          "      --minibatch N      aga: documents per mini-batch (default: the documents cut into T / 200,000\n"
          "                         mini-batches, at least 2 and at most 5: the fastest to quality measured)\n"
          "      --panels N         aga: blocks a mini-batch's tokens are cut into (default 4 per SM)\n"
          "      --whole-word-panels\n"
          "                         aga: keep each word's tokens in one block, as the paper does (default: a\n"
          "                         frequent word's tokens are shared by several blocks; measured faster)\n"
          "      --device D         auto (default: GPU 0 when one is found, else the CPU, said once),\n"
          "                         cpu, or gpu (an error, exit 1, without a GPU or with --sampler cgs). GPU\n"
          "                         ESCA draws in float in SaberLDA's order (tokens by word, a block per\n"
          "                         word, a warp per document's tokens): the CPU ESCA's topics but where a\n"
          "                         draw falls within float rounding of a boundary; deterministic: the\n"
          "                         topics depend on the corpus, K, alpha, beta, seed and sweep alone\n"
          "      --gpu-sweep S      fast (default: the float sweep above) or exact (GPU ESCA in double, bit\n"
          "                         for bit the CPU ESCA's topics, at about 0.6x the speed): with exact, a\n"
          "                         run may move between the CPU and the GPU with --resume and end with the\n"
          "                         bits of an uninterrupted run on either\n"
          "      --seed N           seed of every random draw (default 1)\n"
          "      --threads N        CPU threads (default: all); results do not depend on it\n"
          "      --test-fraction F  documents held out for the held-out log-likelihood (default %g)\n"
          "      --ll-every N       joint log-likelihood every N sweeps (default 10); with a GPU sampler it and\n"
          "                         the held-out score are computed on the GPU. The summary splits the time per\n"
          "                         sweep into sampling, tables, A and B rebuilds and metrics\n",
#ifdef SK_LDA_HAVE_GPU
          "",
#else
          " (this build has no CUDA part: the CPU only)",
#endif
          SK_LDA_MAX_TOPICS, SK_LDA_DEFAULT_BETA, SK_LDA_AUTO_AGA_MAX_TOPICS, SK_LDA_DEFAULT_TEST_FRACTION);
  /* In two parts: C99 compilers need only take string literals of up to 4,095 characters. */
  fputs(
          "output (with --out):\n"
          "      --out DIR          write the results here (created with its parents): topics.txt (top words),\n"
          "                         model.skl (the model: sk-lda infer reads it), theta.txt (document-topic\n"
          "                         proportions), metrics.csv (log-likelihoods, speed, the time split and the\n"
          "                         peak GPU memory), checkpoint.skc (what --resume needs). A DIR that holds\n"
          "                         another run is refused\n"
          "      --overwrite        replace the run in --out DIR (its files are removed first)\n"
          "      --checkpoint-every N\n"
          "                         write checkpoint.skc every N sweeps (0: only at the end and on Ctrl-C);\n"
          "                         default auto: whenever the sweeps since the last one took 50 times what\n"
          "                         writing one takes, so checkpoints cost at most about 2% of the run\n"
          "      --resume DIR       continue the run saved in DIR (its checkpoint.skc) up to --iters sweeps,\n"
          "                         writing into DIR (or --out); give the same corpus. K, alpha, beta, seed,\n"
          "                         test fraction and sampler come from the checkpoint. The result equals an\n"
          "                         uninterrupted run's, also after a kill at any moment; --device may\n"
          "                         differ (bit for bit across CPU and GPU with --gpu-sweep exact)\n"
          "      --top N            words per topic in topics.txt (default 20)\n"
          "      --save-z           also write z.bin (every token's topic)\n"
          "      --demo             generate a small corpus with planted topics, train on it and show how\n"
          "                         well the learned topics match the planted ones\n"
          "  -h, --help             this text\n"
          "Ctrl-C (SIGINT) or SIGTERM finishes the current sweep, saves a checkpoint and the outputs so far,\n"
          "prints how to resume and exits 130 (143); a second one stops at once. Every file is replaced\n"
          "atomically: an interrupted run never leaves half a file.\n", f);
  fputs(
          "GPU memory (corpora larger than the GPU):\n"
          "      --device-memory BYTES\n"
          "                         the most GPU memory the sampler may hold, e.g. 20G (K, M, G, T: powers of\n"
          "                         1024; default: the GPU's free memory less 1 GiB, and never more than is\n"
          "                         free). When ESCA's state (the corpus's z, A and order, and B) does not\n"
          "                         fit, the documents are cut into chunks and every sweep streams them\n"
          "                         through the GPU (SaberLDA's out-of-core ESCA): only B and n_k stay on the\n"
          "                         GPU, copies overlap the sampling, and the topics are bit for bit those of\n"
          "                         a run that fits. The metrics are then computed on the CPU. A budget too\n"
          "                         small for B twice, or for one document's chunk, is an error that names the\n"
          "                         bytes needed (exit 2). --gpu-sweep exact and --sampler aga need the\n"
          "                         corpus resident\n"
          "      --workers N        streamed ESCA: chunks in flight at once, each with its CUDA stream and\n"
          "                         buffer, 1 to 16 (default 2, the fastest measured on an H200); the budget\n"
          "                         is shared among them\n", f);
  fprintf(f,
          "several GPUs (one host; NCCL%s):\n"
          "      --gpus N           train on GPUs 0 .. N-1 of this host, one process (rank) each (default 1:\n"
          "                         one GPU, no NCCL). The training documents are split into N ranges of\n"
          "                         equal token counts; each rank samples its own with the GPU ESCA sweep\n"
          "                         (streamed when its share does not fit), and the word-topic counts are\n"
          "                         summed over the ranks every sweep in integers (NCCL all-reduce of V x K\n"
          "                         int32), so the topics are bit for bit those of one GPU. Rank 0 writes the\n"
          "                         outputs and checkpoints (resumable with any --gpus); ESCA's fast sweep\n"
          "                         only (--sampler auto picks it). A rank that fails ends the others (SIGTERM, then SIGKILL %.0f s\n"
          "                         later) and the run exits non-zero, keeping the last checkpoint.\n"
          "                         NCCL_NVLS_ENABLE=0 is set for the ranks unless already set\n"
          "      --nccl             the ranks' path (launcher, NCCL) even with --gpus 1: checks it on one GPU\n"
          "      --rank-timeout S   the most seconds a rank waits for the others in one collective before it\n"
          "                         fails (default %.0f; 0: no limit)\n"
          "      --mpi              across hosts: the ranks are the processes of an MPI launch, one per GPU\n"
          "                         (mpirun -n R sk-lda train --mpi ...; the i-th rank of a host drives its\n"
          "                         GPU i; MPI carries rank 0's NCCL id; a failing rank aborts them all)%s\n",
#ifdef SK_LDA_HAVE_NCCL
          "",
#else
          ": this build has none, so --gpus 1 only",
#endif
          SK_LDA_RANKS_GRACE_SECONDS, SK_LDA_RANK_TIMEOUT_DEFAULT,
#ifdef SK_LDA_HAVE_MPI
          "");
#else
          ": this build has no MPI");
#endif
}

/* Options given for an input they do not apply to are refused, not ignored: --stopwords and --min-count
   shape a --text corpus only, and a --text corpus's words are its vocabulary. 0 when the options fit; else
   the message is printed for `cmd` and 1 returned. */
static int check_input_options(const char *cmd, const input_options *in) {
  const char *why = NULL;
  if (in->text == NULL && in->stopwords != NULL)
    why = "--stopwords applies to --text only (a --docword or --ldac corpus has its words as ids)";
  else if (in->text == NULL && in->min_count > 0)
    why = "--min-count applies to --text only";
  else if (in->text != NULL && in->vocab != NULL)
    why = "--vocab does not apply to --text (its words are the vocabulary)";
  if (why == NULL) return 0;
  fprintf(stderr, "sk-lda %s: %s\n", cmd, why);
  return 1;
}

static int read_corpus(const input_options *in, sk_lda_corpus *c, sk_ex_error *err) {
  if (in->docword) return sk_lda_read_uci(in->docword, in->vocab, c, err);
  if (in->ldac) return sk_lda_read_ldac(in->ldac, in->vocab, c, err);
  return sk_lda_read_text(in->text, in->stopwords, in->min_count, c, err);
}

/* The input options as typed, for the hint that says how to resume. */
static void describe_input(const input_options *in, char *buf, size_t cap) {
  const char *kind = in->docword ? "--docword" : in->ldac ? "--ldac" : "--text";
  const char *file = in->docword ? in->docword : in->ldac ? in->ldac : in->text;
  int n = snprintf(buf, cap, "%s %s", kind, file);
  if (n > 0 && (size_t)n < cap && in->vocab) n += snprintf(buf + n, cap - (size_t)n, " --vocab %s", in->vocab);
  if (n > 0 && (size_t)n < cap && in->stopwords)
    n += snprintf(buf + n, cap - (size_t)n, " --stopwords %s", in->stopwords);
  if (n > 0 && (size_t)n < cap && in->min_count > 0)
    snprintf(buf + n, cap - (size_t)n, " --min-count %lld", in->min_count);
}

static int cmd_train(int argc, char **argv) {
  static const struct option options[] = {
      {"docword", required_argument, 0, 'D'},  {"ldac", required_argument, 0, 'C'},
      {"text", required_argument, 0, 'T'},     {"vocab", required_argument, 0, 'v'},
      {"stopwords", required_argument, 0, 'S'}, {"min-count", required_argument, 0, 'm'},
      {"topics", required_argument, 0, 'k'},   {"iters", required_argument, 0, 'n'},
      {"alpha", required_argument, 0, 'a'},    {"beta", required_argument, 0, 'b'},
      {"sampler", required_argument, 0, 'A'},  {"seed", required_argument, 0, 's'},
      {"threads", required_argument, 0, 'j'},  {"test-fraction", required_argument, 0, 'F'},
      {"ll-every", required_argument, 0, 'e'}, {"device", required_argument, 0, 'G'},
      {"out", required_argument, 0, 'o'},      {"demo", no_argument, 0, 'Z'},
      {"top", required_argument, 0, 'W'},      {"save-z", no_argument, 0, 'Y'},
      {"resume", required_argument, 0, 'R'},   {"overwrite", no_argument, 0, 'O'},
      {"checkpoint-every", required_argument, 0, 'P'}, {"gpu-sweep", required_argument, 0, 'X'},
      {"minibatch", required_argument, 0, 'M'}, {"panels", required_argument, 0, 'K'},
      {"whole-word-panels", no_argument, 0, 'H'},
      {"device-memory", required_argument, 0, 'B'}, {"workers", required_argument, 0, 'w'},
      {"gpus", required_argument, 0, 'g'},     {"nccl", no_argument, 0, 'N'},
      {"rank-timeout", required_argument, 0, 'U'}, {"mpi", no_argument, 0, 'I'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  input_options in = {0};
  sk_lda_run_options o;
  sk_lda_run_options_default(&o);
  int ok = 1, c, demo = 0, gpus = 1, nccl = 0, mpi = 0;
  double rank_timeout = SK_LDA_RANK_TIMEOUT_DEFAULT;
  long long v;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "k:n:s:o:h", options, NULL)) != -1) {
    switch (c) {
      case 'D': in.docword = optarg; break;
      case 'C': in.ldac = optarg; break;
      case 'T': in.text = optarg; break;
      case 'v': in.vocab = optarg; break;
      case 'S': in.stopwords = optarg; break;
      case 'm': ok = sk_lda_parse_ll("train", "--min-count", optarg, 0, INT64_MAX, &in.min_count); break;
      case 'k':
        ok = sk_lda_parse_ll("train", "--topics", optarg, 1, SK_LDA_MAX_TOPICS, &v);
        o.num_topics = (int32_t)v, o.given |= SK_LDA_GIVEN_TOPICS;
        break;
      case 'n': ok = sk_lda_parse_ll("train", "--iters", optarg, 1, 1000000000, &v); o.iters = v; break;
      case 'a':
        ok = sk_lda_parse_double("train", "--alpha", optarg, 1e-12, 1e12, &o.alpha), o.given |= SK_LDA_GIVEN_ALPHA;
        break;
      case 'b':
        ok = sk_lda_parse_double("train", "--beta", optarg, 1e-12, 1e12, &o.beta), o.given |= SK_LDA_GIVEN_BETA;
        break;
      case 'A':
        o.sampler = sk_lda_sampler_kind_from_name(optarg), o.given |= SK_LDA_GIVEN_SAMPLER;
        if (o.sampler < 0) {
          fprintf(stderr, "sk-lda train: --sampler: '%s' is not auto, esca, cgs or aga\n", optarg);
          ok = 0;
        }
        break;
      case 's': ok = sk_lda_parse_u64("train", "--seed", optarg, &o.seed); o.given |= SK_LDA_GIVEN_SEED; break;
      case 'j': ok = sk_lda_parse_ll("train", "--threads", optarg, 1, 4096, &v); o.device.threads = (int)v; break;
      case 'F':
        ok = sk_lda_parse_double("train", "--test-fraction", optarg, 0.0, 0.99, &o.test_fraction);
        o.given |= SK_LDA_GIVEN_TEST_FRACTION;
        break;
      case 'e': ok = sk_lda_parse_ll("train", "--ll-every", optarg, 0, 1000000000, &v); o.ll_every = v; break;
      case 'G':
        if (strcmp(optarg, "auto") == 0) o.device.kind = SK_LDA_DEVICE_AUTO;
        else if (strcmp(optarg, "cpu") == 0) o.device.kind = SK_LDA_DEVICE_CPU;
        else if (strcmp(optarg, "gpu") == 0) o.device.kind = SK_LDA_DEVICE_GPU;
        else {
          fprintf(stderr, "sk-lda train: --device: '%s' is not auto, cpu or gpu\n", optarg);
          ok = 0;
        }
        break;
      case 'M':
        ok = sk_lda_parse_ll("train", "--minibatch", optarg, 1, INT32_MAX, &v);
        o.samplers.aga.minibatch_docs = (int32_t)v;
        break;
      case 'K':
        ok = sk_lda_parse_ll("train", "--panels", optarg, 1, INT32_MAX, &v);
        o.samplers.aga.panels = (int32_t)v;
        break;
      case 'H': o.samplers.aga.whole_words = 1; break;
      case 'B': ok = sk_lda_parse_bytes("train", "--device-memory", optarg, 1, &o.device.device_memory); break;
      case 'w': ok = sk_lda_parse_ll("train", "--workers", optarg, 1, 16, &v); o.samplers.streamed.workers = (int)v; break;
      case 'g': ok = sk_lda_parse_ll("train", "--gpus", optarg, 1, SK_LDA_MAX_RANKS, &v); gpus = (int)v; break;
      case 'N': nccl = 1; break;
      case 'I': mpi = 1; break;
      case 'U': ok = sk_lda_parse_double("train", "--rank-timeout", optarg, 0.0, 1e9, &rank_timeout); break;
      case 'X':
        if (strcmp(optarg, "fast") == 0) o.gpu_exact = 0;
        else if (strcmp(optarg, "exact") == 0) o.gpu_exact = 1;
        else {
          fprintf(stderr, "sk-lda train: --gpu-sweep: '%s' is neither fast nor exact\n", optarg);
          ok = 0;
        }
        break;
      case 'o': o.out = optarg; break;
      case 'Z': demo = 1; break;
      case 'W': ok = sk_lda_parse_ll("train", "--top", optarg, 1, 1000000, &v); o.top_words = (int)v; break;
      case 'Y': o.save_z = 1; break;
      case 'R': o.resume = optarg; break;
      case 'O': o.overwrite = 1; break;
      case 'P':
        if (strcmp(optarg, "auto") == 0) o.checkpoint_every = SK_LDA_CHECKPOINT_AUTO;
        else ok = sk_lda_parse_ll("train", "--checkpoint-every", optarg, 0, 1000000000, &v), o.checkpoint_every = v;
        break;
      case 'h': train_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (ok && optind < argc) {
    fprintf(stderr, "sk-lda train: unexpected argument '%s'\n", argv[optind]);
    ok = 0;
  }
  if (ok && (o.samplers.aga.minibatch_docs > 0 || o.samplers.aga.panels > 0 || o.samplers.aga.whole_words) &&
      (o.sampler == SK_LDA_SAMPLER_ESCA || o.sampler == SK_LDA_SAMPLER_CGS)) {
    fprintf(stderr, "sk-lda train: --minibatch, --panels and --whole-word-panels apply to --sampler aga (or auto) only\n");
    ok = 0;
  }
  const int inputs = (in.docword != NULL) + (in.ldac != NULL) + (in.text != NULL);
  if (ok && !demo && inputs != 1) {
    fprintf(stderr, "sk-lda train: give exactly one of --docword, --ldac, --text (or --demo)\n");
    ok = 0;
  }
  if (ok && demo && (inputs != 0 || o.resume != NULL)) {
    fprintf(stderr, "sk-lda train: --demo makes its own corpus: leave out --docword, --ldac, --text and --resume\n");
    ok = 0;
  }
  if (ok && check_input_options("train", &in) != 0) ok = 0;
  if (ok && o.overwrite && o.resume != NULL) {
    fprintf(stderr, "sk-lda train: --overwrite does not apply to --resume (a resumed run continues its folder; "
                    "--overwrite starts a new run in --out DIR)\n");
    ok = 0;
  }
  /* A folder another sk-lda writes is refused at once, not after the corpus is read and the ranks start. */
  if (ok && (o.out != NULL || o.resume != NULL)) {
    const int in_use = sk_lda_run_check_in_use(&o);
    if (in_use != SK_EX_EXIT_OK) return in_use;
  }
  sk_ex_error err;
  int ranked = 0;
  if (ok) {
    ranked = sk_lda_ranks_check(gpus, nccl, mpi, o.sampler, o.device.kind, o.gpu_exact, rank_timeout, &err);
    if (ranked < 0) fprintf(stderr, "sk-lda train: %s\n", err.message);
    if (ranked == -1) return SK_EX_EXIT_RUNTIME;
    ok = ranked >= 0;
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda train --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  /* Several GPUs: one process per GPU from here on (before any CUDA or OpenMP use); this one waits. */
  sk_lda_rank_context rank_ctx;
  if (ranked == 2) { /* the ranks come from mpirun; this process is one of them */
    if (sk_lda_ranks_mpi_start(rank_timeout, sk_lda_ranks_nccl_make_id, &rank_ctx, &err) != 0) {
      fprintf(stderr, "sk-lda train: %s\n", err.message);
      return sk_lda_ranks_mpi_end(SK_EX_EXIT_RUNTIME);
    }
    o.ranks = &rank_ctx;
    o.device.kind = SK_LDA_DEVICE_GPU;
    o.device.gpu = rank_ctx.gpu;
  } else if (ranked) {
    int is_rank = 0;
    err.message[0] = '\0';
    const int status = sk_lda_ranks_launch(gpus, rank_timeout, o.out != NULL ? o.out : o.resume,
                                           sk_lda_ranks_nccl_make_id, &rank_ctx, &is_rank, &err);
    if (!is_rank) {
      if (status != SK_EX_EXIT_OK && err.message[0] != '\0') fprintf(stderr, "sk-lda train: %s\n", err.message);
      return status;
    }
    o.ranks = &rank_ctx;
    o.device.kind = SK_LDA_DEVICE_GPU;
    o.device.gpu = rank_ctx.gpu;
  }
  sk_lda_corpus corpus;
  memset(&corpus, 0, sizeof corpus);
  float *planted = NULL;
  char input_args[8192] = "";
  if (demo) {
    sk_lda_gen_params p;
    if (sk_lda_demo_corpus(o.seed, &corpus, &planted, &p, &err) != 0) {
      fprintf(stderr, "sk-lda train --demo: %s\n", err.message);
      return ranked == 2 ? sk_lda_ranks_mpi_end(SK_EX_EXIT_RUNTIME) : SK_EX_EXIT_RUNTIME;
    }
    o.num_topics = p.num_topics, o.alpha = p.alpha, o.beta = p.beta;
    if (o.iters == 100) o.iters = 200;
    snprintf(input_args, sizeof input_args, "--demo");
    printf("demo: generated %d documents, %d words, %lld tokens from %d planted topics\n", corpus.num_docs,
           corpus.num_words, (long long)corpus.num_tokens, p.num_topics);
  } else {
    const double t0 = sk_ex_now();
    if (read_corpus(&in, &corpus, &err) != 0) {
      fprintf(stderr, "sk-lda train: %s\n", err.message);
      return ranked == 2 ? sk_lda_ranks_mpi_end(SK_EX_EXIT_USAGE) : SK_EX_EXIT_USAGE;
    }
    describe_input(&in, input_args, sizeof input_args);
    o.vocab_file = in.vocab != NULL ? in.vocab : in.text;
    o.vocab_from_text = in.vocab == NULL && in.text != NULL;
    printf("read %d documents, %d words, %lld tokens in %.2f s\n", corpus.num_docs, corpus.num_words,
           (long long)corpus.num_tokens, sk_ex_now() - t0);
  }
  o.input_args = input_args;
  sk_lda_model m;
  sk_lda_split split;
  memset(&m, 0, sizeof m);
  memset(&split, 0, sizeof split);
  const int status = sk_lda_run_train(&o, &corpus, &split, &m);
  if (status == SK_EX_EXIT_OK && demo) sk_lda_demo_report(&m, planted, corpus.vocab);
  sk_lda_model_free(&m);
  sk_lda_split_free(&split);
  sk_lda_corpus_free(&corpus);
  free(planted);
  return ranked == 2 ? sk_lda_ranks_mpi_end(status) : status;
}

/* --- infer ---------------------------------------------------------------------------------------- */

#include "infer.h"
#include "model_file.h"
#include "output.h"

static void infer_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda infer --model FILE (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE]\n"
          "                    --out FILE [options]\n"
          "Folds new documents into a trained model (topics fixed) by Gibbs sampling and writes their\n"
          "topic proportions, one line per document: \"doc_id k:theta_dk ...\" for the topics the\n"
          "document uses, theta_dk = (n_dk + alpha) / (n_d + K alpha); every other topic has\n"
          "alpha / (n_d + K alpha). doc_id is the 0-based document index in the input (UCI docID - 1).\n\n"
          "  -m, --model FILE       model file written by sk-lda train\n"
          "      --docword FILE     documents in UCI bag of words (.txt or .txt.gz) or a binary corpus\n"
          "      --ldac FILE        documents in LDA-C format\n"
          "      --text FILE        plain text, one document per line (documents left empty are dropped)\n"
          "      --stopwords FILE   stop words for --text\n"
          "      --vocab FILE       vocabulary of the documents: words are matched to the model's by\n"
          "                         string; without it, word ids must be the model's own\n"
          "      --skip-unknown     drop words the model does not know instead of failing\n"
          "  -n, --iters N          fold-in Gibbs sweeps, at least 1 (default %d)\n"
          "  -s, --seed N           seed of the fold-in (default: the model's seed)\n"
          "      --threads N        OpenMP threads (default: all; the result does not depend on it)\n"
          "  -o, --out FILE         where the proportions go (written to FILE.tmp, then renamed)\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_FOLDIN_ITERS);
}

static int cmd_infer(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'm'},   {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'L'},    {"text", required_argument, 0, 'T'},
      {"stopwords", required_argument, 0, 'S'}, {"vocab", required_argument, 0, 'v'},
      {"skip-unknown", no_argument, 0, 'u'},  {"iters", required_argument, 0, 'n'},
      {"seed", required_argument, 0, 's'},    {"threads", required_argument, 0, 't'},
      {"out", required_argument, 0, 'o'},     {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  const char *model = NULL, *docword = NULL, *ldac = NULL, *text = NULL, *stopwords = NULL, *vocab = NULL, *out = NULL;
  long long iters = SK_LDA_DEFAULT_FOLDIN_ITERS, threads = 0;
  uint64_t seed = 0;
  int have_seed = 0, skip_unknown = 0, ok = 1, c;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "m:n:s:o:h", options, NULL)) != -1) {
    switch (c) {
      case 'm': model = optarg; break;
      case 'D': docword = optarg; break;
      case 'L': ldac = optarg; break;
      case 'T': text = optarg; break;
      case 'S': stopwords = optarg; break;
      case 'v': vocab = optarg; break;
      case 'u': skip_unknown = 1; break;
      case 'n': ok = sk_lda_parse_ll("infer", "--iters", optarg, 1, INT_MAX, &iters); break;
      case 's': ok = sk_lda_parse_u64("infer", "--seed", optarg, &seed); have_seed = 1; break;
      case 't': ok = sk_lda_parse_ll("infer", "--threads", optarg, 1, 4096, &threads); break;
      case 'o': out = optarg; break;
      case 'h': infer_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (!ok) {
    fprintf(stderr, "see 'sk-lda infer --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  if (optind < argc) {
    fprintf(stderr, "sk-lda infer: unexpected argument '%s' (see 'sk-lda infer --help')\n", argv[optind]);
    return SK_EX_EXIT_USAGE;
  }
  const int inputs = (docword != NULL) + (ldac != NULL) + (text != NULL);
  if (model == NULL || out == NULL || inputs != 1) {
    fprintf(stderr, "sk-lda infer: %s (see 'sk-lda infer --help')\n",
            model == NULL ? "--model FILE is required"
            : out == NULL ? "--out FILE is required"
                          : "give exactly one of --docword, --ldac, --text");
    return SK_EX_EXIT_USAGE;
  }
  const input_options in = {docword, ldac, text, vocab, stopwords, 0};
  if (check_input_options("infer", &in) != 0) return SK_EX_EXIT_USAGE;
  sk_ex_error err;
  if (sk_ex_check_writable(out, &err) != 0) {
    fprintf(stderr, "sk-lda infer: --out: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  sk_lda_model_file mf;
  if (sk_lda_model_file_read(model, &mf, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  sk_lda_corpus docs;
  memset(&docs, 0, sizeof docs);
  const char *input = docword != NULL ? docword : ldac != NULL ? ldac : text;
  int rc = read_corpus(&in, &docs, &err);
  int64_t dropped = 0;
  const int id_base = docword != NULL && !sk_lda_is_binary_corpus(docword); /* UCI ids are 1-based */
  if (rc == 0 && sk_lda_infer_map_words(&mf, &docs, input, id_base, skip_unknown, &dropped, &err) != 0) {
    rc = 1;
    if (!skip_unknown && strstr(err.message, "not in the model") != NULL)
      snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
               " (--skip-unknown drops such words)");
  }
  if (rc != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    sk_lda_corpus_free(&docs);
    sk_lda_model_file_free(&mf);
    return SK_EX_EXIT_USAGE;
  }
  if (dropped > 0)
    fprintf(stderr, "sk-lda infer: dropped %lld tokens of words the model does not know\n", (long long)dropped);
  sk_lda_infer_result r;
  int status = SK_EX_EXIT_OK;
  const double t0 = sk_ex_now();
  if (sk_lda_infer(&mf, &docs, (int)iters, have_seed ? seed : mf.seed, (int)threads, &r, &err) != 0 ||
      sk_lda_write_doc_topics(out, r.num_docs, r.num_topics, r.alpha, r.row_start, r.row_nnz, r.row_topic,
                              r.row_count, NULL, &err) != 0) {
    fprintf(stderr, "sk-lda infer: %s\n", err.message);
    status = SK_EX_EXIT_RUNTIME;
  } else {
    printf("infer: %d documents, %lld tokens, K = %d, %lld fold-in sweeps in %.1f s -> %s\n", docs.num_docs,
           (long long)docs.num_tokens, (int)mf.num_topics, iters, sk_ex_now() - t0, out);
  }
  sk_lda_infer_result_free(&r);
  sk_lda_corpus_free(&docs);
  sk_lda_model_file_free(&mf);
  return status;
}

/* --- eval ----------------------------------------------------------------------------------------- */

static void eval_usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda eval --model FILE (--docword FILE | --ldac FILE | --text FILE) [--vocab FILE] [options]\n"
          "Held-out log-likelihood per token of a trained model, by document completion: the corpus is split\n"
          "as sk-lda train splits it (a --test-fraction of its documents, chosen with --seed; the seed\n"
          "defaults to the model's), each test document's first half folds in its topic proportions with the\n"
          "model's topics fixed, and its second half is scored. With the training corpus, seed and test\n"
          "fraction this reproduces the held-out figure that train printed.\n\n"
          "      --model FILE       a model written by sk-lda train --out (model.skl)\n"
          "      --docword FILE     UCI bag of words or a binary corpus; --ldac FILE: LDA-C; --text FILE: plain text\n"
          "      --vocab FILE       the corpus's vocabulary; words are matched to the model's by spelling\n"
          "      --stopwords FILE, --min-count N   as for train (--text)\n"
          "      --skip-unknown     drop words the model does not know (default: an error)\n"
          "      --test-fraction F  documents to evaluate (default %g)\n"
          "  -s, --seed N           seed of the split and the fold-in (default: the model's)\n"
          "  -n, --iters N          fold-in sweeps, at least 1 (default %d)\n"
          "      --threads N        CPU threads (default: all); results do not depend on it\n"
          "  -h, --help             this text\n",
          SK_LDA_DEFAULT_TEST_FRACTION, SK_LDA_DEFAULT_FOLDIN_ITERS);
}

static int cmd_eval(int argc, char **argv) {
  static const struct option options[] = {
      {"model", required_argument, 0, 'M'},      {"docword", required_argument, 0, 'D'},
      {"ldac", required_argument, 0, 'C'},       {"text", required_argument, 0, 'T'},
      {"vocab", required_argument, 0, 'v'},      {"stopwords", required_argument, 0, 'S'},
      {"min-count", required_argument, 0, 'm'},  {"skip-unknown", no_argument, 0, 'U'},
      {"test-fraction", required_argument, 0, 'F'}, {"seed", required_argument, 0, 's'},
      {"iters", required_argument, 0, 'n'},      {"threads", required_argument, 0, 'j'},
      {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
  input_options o = {0};
  double test_fraction = SK_LDA_DEFAULT_TEST_FRACTION;
  uint64_t seed = 0;
  long long threads = 0;
  const char *model_path = NULL;
  long long iters = SK_LDA_DEFAULT_FOLDIN_ITERS;
  int ok = 1, c, seed_given = 0, skip_unknown = 0;
  optind = 1;
  while (ok && (c = getopt_long(argc, argv, "s:n:h", options, NULL)) != -1) {
    switch (c) {
      case 'M': model_path = optarg; break;
      case 'D': o.docword = optarg; break;
      case 'C': o.ldac = optarg; break;
      case 'T': o.text = optarg; break;
      case 'v': o.vocab = optarg; break;
      case 'S': o.stopwords = optarg; break;
      case 'm': ok = sk_lda_parse_ll("eval", "--min-count", optarg, 0, INT64_MAX, &o.min_count); break;
      case 'U': skip_unknown = 1; break;
      case 'F': ok = sk_lda_parse_double("eval", "--test-fraction", optarg, 1e-9, 0.99, &test_fraction); break;
      case 's': ok = sk_lda_parse_u64("eval", "--seed", optarg, &seed); seed_given = 1; break;
      case 'n': ok = sk_lda_parse_ll("eval", "--iters", optarg, 1, 1000000, &iters); break;
      case 'j': ok = sk_lda_parse_ll("eval", "--threads", optarg, 1, 4096, &threads); break;
      case 'h': eval_usage(stdout); return SK_EX_EXIT_OK;
      default: ok = 0; break;
    }
  }
  if (ok && optind < argc) {
    fprintf(stderr, "sk-lda eval: unexpected argument '%s'\n", argv[optind]);
    ok = 0;
  }
  if (ok && (model_path == NULL || (o.docword != NULL) + (o.ldac != NULL) + (o.text != NULL) != 1)) {
    fprintf(stderr, "sk-lda eval: give --model and exactly one of --docword, --ldac, --text\n");
    ok = 0;
  }
  if (ok && check_input_options("eval", &o) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "see 'sk-lda eval --help'\n");
    return SK_EX_EXIT_USAGE;
  }
  sk_ex_error err;
  sk_lda_model_file mf;
  sk_lda_corpus corpus;
  sk_lda_split split;
  memset(&mf, 0, sizeof mf);
  memset(&corpus, 0, sizeof corpus);
  memset(&split, 0, sizeof split);
  int status = SK_EX_EXIT_USAGE;
  const char *input = o.docword ? o.docword : o.ldac ? o.ldac : o.text;
  if (sk_lda_model_file_read(model_path, &mf, &err) != 0 || read_corpus(&o, &corpus, &err) != 0 ||
      sk_lda_infer_map_words(&mf, &corpus, input, o.docword && !sk_lda_is_binary_corpus(o.docword), skip_unknown,
                             NULL, &err) != 0 ||
      sk_lda_split_corpus(&corpus, test_fraction, seed_given ? seed : mf.seed, &split, &err) != 0) {
    fprintf(stderr, "sk-lda eval: %s\n", err.message);
  } else if (split.test_heldout.num_tokens == 0) {
    fprintf(stderr,
            "sk-lda eval: %s: no token to score: the split holds out %d of %d documents (--test-fraction %g) and "
            "their second halves are empty; raise --test-fraction or give a larger corpus\n",
            input, (int)split.test_observed.num_docs, (int)corpus.num_docs, test_fraction);
  } else {
    const sk_lda_counts_view view = {mf.num_topics, mf.num_words, mf.alpha, mf.beta, mf.seed, mf.n_vk, mf.n_k};
    double ll = NAN;
    if (sk_lda_heldout_ll_counts(&view, &split.test_observed, &split.test_heldout, (int)iters, (int)threads, &ll,
                                 &err) != 0) {
      fprintf(stderr, "sk-lda eval: %s\n", err.message);
      status = SK_EX_EXIT_RUNTIME;
    } else {
      printf("held-out LL/token %.4f (perplexity %.1f) over %d documents (%lld scored tokens), K = %d, %d fold-in "
             "sweeps\n",
             ll, exp(-ll), split.test_observed.num_docs, (long long)split.test_heldout.num_tokens, mf.num_topics,
             (int)iters);
      status = SK_EX_EXIT_OK;
    }
  }
  sk_lda_split_free(&split);
  sk_lda_corpus_free(&corpus);
  sk_lda_model_file_free(&mf);
  return status;
}

/* --- dispatch ------------------------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: sk-lda COMMAND [options]   (sk-lda COMMAND --help for each)\n"
          "An LDA topic-model trainer built on samplekit %d.%d.%d.\n\n"
          "commands:\n"
          "  train    train on a corpus (ESCA or serial collapsed Gibbs; resumable); train --demo for a quick look\n"
          "  infer    fold new documents into a trained model and write their topic proportions\n"
          "  eval     held-out log-likelihood of a trained model on a corpus (document completion)\n"
          "  gen      draw a synthetic corpus with planted topics, in UCI format or as a binary corpus\n\n"
          SK_EX_EXIT_RULE,
          SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
}

int main(int argc, char **argv) {
  static const sk_ex_command commands[] = {
      {"gen", cmd_gen}, {"infer", cmd_infer}, {"train", cmd_train}, {"eval", cmd_eval}, {NULL, NULL}};
  return sk_ex_main("sk-lda", commands, usage, argc, argv);
}
