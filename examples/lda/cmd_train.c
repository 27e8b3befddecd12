/* sk-lda train: options, the run through the library (sk_lda.h), and train --demo. */

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "cli.h"
#include "metrics.h"
#include "run.h"
#include "demo.h"
#include "commands.h"
#include "sk_ex_main.h"

/* getopt_long values of the options with no short letter. */
enum { kOptStartTopics = 1000, kOptNpyLimit, kOptHeldoutSweeps };

/* The run's report as sk-lda always printed it: the plan and the summary on stdout, notes on stderr after
   the command's name (a line that starts with two spaces continues the one before). */
static void train_log(int level, const char *line, void *user) {
  (void)user;
  if (level == SKLDA_LOG_INFO) {
    printf("%s\n", line);
    return;
  }
  fprintf(stderr, "%s%s\n", strncmp(line, "  ", 2) == 0 ? "" : "sk-lda train: ", line);
}

/* Progress: one line rewritten on a terminal (stderr), else a line per evaluated sweep on stdout. */
static int train_progress(const sklda_progress *p, void *user) {
  const int tty = *(const int *)user;
  if (tty) {
    /* A resumed run may sweep before its first evaluation: no LL to show yet, rather than a NaN. */
    char ll_text[80] = "";
    if (!isnan(p->joint_ll)) snprintf(ll_text, sizeof ll_text, "  joint LL/token %.4f", p->joint_ll);
    fprintf(stderr, "\rsweep %lld/%lld  %.3g M tokens/s%s  ETA %.0f s   ", (long long)p->sweep, (long long)p->iters,
            p->tokens_per_second / 1e6, ll_text, p->eta_seconds);
    if (p->sweep == p->iters) fputc('\n', stderr);
  } else if (p->evaluated) {
    printf("iteration %lld/%lld: %.3g M tokens/s, joint LL/token %.4f\n", (long long)p->sweep, (long long)p->iters,
           p->tokens_per_second / 1e6, p->joint_ll);
  }
  return 0;
}

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
          "                         cpu, or gpu (an error: exit 1 without a GPU, exit 2 with --sampler cgs;\n"
          "                         cpu with --sampler aga: exit 2). GPU\n"
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
  /* In parts: C99 compilers need only take string literals of up to 4,095 characters. */
  fputs(
          "      --heldout-sweeps N fold-in sweeps of the held-out score (default 12 up to K = 1,024, all but\n"
          "                         the last 2 uncollapsed; 10 up to K = 10,000, 20 above, collapsed); above\n"
          "                         K = 1,024 the score still rises with more (bench/RESULTS.md)\n"
          "      --optimize-every N learn the priors from the counts every N sweeps: an asymmetric alpha (one\n"
          "                         value per topic, Minka's fixed point, as MALLET's --optimize-interval) and\n"
          "                         a symmetric beta; deterministic, the same on the CPU and the GPU, kept in\n"
          "                         the checkpoint, model.skl and metrics.csv (default: fixed priors); not\n"
          "                         with --gpus N > 1\n"
          "      --optimize-burnin N\n"
          "                         no optimisation before sweep N (default 0: the first is at sweep N of\n"
          "                         --optimize-every)\n"
          "      --start-topics N   a new run's documents start on at most N topics (the topics of their\n"
          "                         first N tokens; default 128, applied when K > N): ESCA's first sweeps\n"
          "                         then cost about what the later ones do. 0: every token on its own\n"
          "                         uniform topic. Measured (kos, nips12, 20news; K = 1,024 and 10,000),\n"
          "                         N = 128 kept the LLs of the uniform start; N below 16 moved the held-out\n"
          "                         LL by up to 0.1\n"
          , f);
  fputs(
          "output (with --out):\n"
          "      --out DIR          write the results here (created with its parents): topics.txt (top words),\n"
          "                         model.skl (the model: sk-lda infer reads it), phi.npy (K x V float32\n"
          "                         topic-word distributions), theta.txt (document-topic\n"
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
          "      --npy-limit BYTES  the largest phi.npy (K x V floats) and theta.npy (documents x K) to write,\n"
          "                         e.g. 20G (K, M, G, T: powers of 1024; default 4G; 0: no limit). A larger\n"
          "                         one is left out and the log says so: model.skl and theta.txt hold the\n"
          "                         same values, sparse, and sk-lda export writes phi.npy from model.skl\n"
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
          "                         through the GPU (SaberLDA's out-of-core ESCA): only the model (B, n_k, the\n"
          "                         word segments) stays on the GPU, copies overlap the sampling, and the\n"
          "                         topics are bit for bit those of a run that fits. The metrics are then\n"
          "                         computed on the CPU. A budget too small for the model, or for one\n"
          "                         document's chunk, is an error that names the bytes needed (exit 2).\n"
          "                         --gpu-sweep exact and --sampler aga need the corpus resident\n"
          "      --workers N        streamed ESCA: chunks in flight at once, each with its CUDA stream and\n"
          "                         buffer, 1 to 16 (default 2, the fastest measured on an H200); the budget\n"
          "                         is shared among them\n", f);
  fprintf(f,
          "several GPUs (one host; NCCL%s):\n"
          "      --gpus N           train on GPUs 0 .. N-1 of this host, one process (rank) each (default 1:\n"
          "                         one GPU, no NCCL). The training documents are split into N ranges of\n"
          "                         equal token counts; each rank samples its own with the GPU ESCA sweep\n"
          "                         (streamed when its share does not fit), and the word-topic counts are\n"
          "                         summed over the ranks every sweep in integers (each rank's nonzero counts\n"
          "                         sent to the others, or an all-reduce of V x K int32 when that is\n"
          "                         smaller), so the topics are bit for bit those of one GPU. Rank 0 writes the\n"
          "                         outputs and checkpoints (resumable with any --gpus); ESCA's fast sweep\n"
          "                         only (--sampler auto picks it). A rank that fails ends the others (SIGTERM, then SIGKILL %.0f s\n"
          "                         later) and the run exits non-zero, keeping the last checkpoint.\n"
          "                         NCCL_NVLS_ENABLE=0 is set for the ranks unless already set\n"
          "      --nccl             the ranks' path (launcher, NCCL) even with --gpus 1: checks it on one GPU\n"
          "      --rank-exchange E  how the ranks sum B: auto (default: each sweep, the nonzero counts as\n"
          "                         8-byte entries when they take at most half the bytes of B, else the\n"
          "                         all-reduce) or dense (always the all-reduce of V x K int32)\n"
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

int sk_lda_cmd_train(int argc, char **argv) {
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
      {"rank-exchange", required_argument, 0, 'E'},
      {"optimize-every", required_argument, 0, 'Q'}, {"optimize-burnin", required_argument, 0, 'q'},
      {"start-topics", required_argument, 0, kOptStartTopics},
      {"npy-limit", required_argument, 0, kOptNpyLimit},
      {"heldout-sweeps", required_argument, 0, kOptHeldoutSweeps},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  input_options in = {0};
  sklda_options o;
  sklda_options_default(&o);
  uint64_t seed = 0;
  int ok = 1, c, demo = 0, gpus = 1, nccl = 0, mpi = 0, seed_given = 0, start_given = 0, sampler = SK_LDA_SAMPLER_AUTO;
  double rank_timeout = SK_LDA_RANK_TIMEOUT_DEFAULT;
  int rank_exchange = SK_LDA_EXCHANGE_AUTO;
  long long v;
  uint64_t npy_limit = SK_LDA_NPY_MAX_BYTES;
  sk_ex_note_repeated_options("sk-lda train", argc, argv, "k:n:s:o:h", options);
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
        o.num_topics = (int32_t)v;
        break;
      case 'n': ok = sk_lda_parse_ll("train", "--iters", optarg, 1, 1000000000, &v); o.iters = v; break;
      case 'a':
        ok = sk_lda_parse_double("train", "--alpha", optarg, 1e-12, 1e12, &o.alpha);
        break;
      case 'b':
        ok = sk_lda_parse_double("train", "--beta", optarg, 1e-12, 1e12, &o.beta);
        break;
      case 'A':
        o.sampler = optarg;
        sampler = sk_lda_sampler_kind_from_name(optarg);
        if (sampler < 0) {
          fprintf(stderr, "sk-lda train: --sampler: '%s' is not auto, esca, cgs or aga\n", optarg);
          ok = 0;
        }
        break;
      case 's': ok = sk_lda_parse_u64("train", "--seed", optarg, &seed); seed_given = 1; break;
      case 'j': ok = sk_lda_parse_ll("train", "--threads", optarg, 1, 4096, &v); o.threads = (int)v; break;
      case 'F':
        ok = sk_lda_parse_double("train", "--test-fraction", optarg, 0.0, 0.99, &o.test_fraction);
        break;
      case 'e': ok = sk_lda_parse_ll("train", "--ll-every", optarg, 0, 1000000000, &v); o.ll_every = v; break;
      case 'G':
        o.device = optarg;
        if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "cpu") != 0 && strcmp(optarg, "gpu") != 0) {
          fprintf(stderr, "sk-lda train: --device: '%s' is not auto, cpu or gpu\n", optarg);
          ok = 0;
        }
        break;
      case 'M':
        ok = sk_lda_parse_ll("train", "--minibatch", optarg, 1, INT32_MAX, &v);
        o.minibatch = (int32_t)v;
        break;
      case 'K':
        ok = sk_lda_parse_ll("train", "--panels", optarg, 1, INT32_MAX, &v);
        o.panels = (int32_t)v;
        break;
      case 'H': o.whole_word_panels = 1; break;
      case 'B': ok = sk_lda_parse_bytes("train", "--device-memory", optarg, 1, &o.device_memory); break;
      case 'w': ok = sk_lda_parse_ll("train", "--workers", optarg, 1, 16, &v); o.workers = (int)v; break;
      case 'g': ok = sk_lda_parse_ll("train", "--gpus", optarg, 1, SK_LDA_MAX_RANKS, &v); gpus = (int)v; break;
      case 'N': nccl = 1; break;
      case 'I': mpi = 1; break;
      case 'U': ok = sk_lda_parse_double("train", "--rank-timeout", optarg, 0.0, 1e9, &rank_timeout); break;
      case 'E':
        if (strcmp(optarg, "auto") == 0) rank_exchange = SK_LDA_EXCHANGE_AUTO;
        else if (strcmp(optarg, "dense") == 0) rank_exchange = SK_LDA_EXCHANGE_DENSE;
        else {
          fprintf(stderr, "sk-lda train: --rank-exchange: '%s' is neither auto nor dense\n", optarg);
          ok = 0;
        }
        break;
      case 'X':
        if (strcmp(optarg, "fast") == 0) o.gpu_exact = 0;
        else if (strcmp(optarg, "exact") == 0) o.gpu_exact = 1;
        else {
          fprintf(stderr, "sk-lda train: --gpu-sweep: '%s' is neither fast nor exact\n", optarg);
          ok = 0;
        }
        break;
      case 'o': o.out_dir = optarg; break;
      case 'Z': demo = 1; break;
      case 'W': ok = sk_lda_parse_ll("train", "--top", optarg, 1, 1000000, &v); o.top_words = (int)v; break;
      case 'Y': o.save_z = 1; break;
      case 'R': o.resume_dir = optarg; break;
      case 'Q': ok = sk_lda_parse_ll("train", "--optimize-every", optarg, 1, 1000000000, &v); o.optimize_every = v; break;
      case 'q': ok = sk_lda_parse_ll("train", "--optimize-burnin", optarg, 0, 1000000000, &v); o.optimize_burnin = v; break;
      case kOptNpyLimit: ok = sk_lda_parse_bytes("train", "--npy-limit", optarg, 0, &npy_limit); break;
      case kOptHeldoutSweeps:
        ok = sk_lda_parse_ll("train", "--heldout-sweeps", optarg, 1, 1000000, &v);
        o.heldout_sweeps = (int32_t)v;
        break;
      case kOptStartTopics:
        ok = sk_lda_parse_ll("train", "--start-topics", optarg, 0, 1000000000, &v);
        o.start_topics = (int32_t)v;
        start_given = 1;
        break;
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
  if (ok && (o.minibatch > 0 || o.panels > 0 || o.whole_word_panels) &&
      (sampler == SK_LDA_SAMPLER_ESCA || sampler == SK_LDA_SAMPLER_CGS)) {
    fprintf(stderr, "sk-lda train: --minibatch, --panels and --whole-word-panels apply to --sampler aga (or auto) only\n");
    ok = 0;
  }
  const int inputs = (in.docword != NULL) + (in.ldac != NULL) + (in.text != NULL);
  if (ok && !demo && inputs != 1) {
    fprintf(stderr, "sk-lda train: give exactly one of --docword, --ldac, --text (or --demo)\n");
    ok = 0;
  }
  if (ok && demo && (inputs != 0 || o.resume_dir != NULL)) {
    fprintf(stderr, "sk-lda train: --demo makes its own corpus: leave out --docword, --ldac, --text and --resume\n");
    ok = 0;
  }
  if (ok && sk_lda_cmd_check_input("train", &in) != 0) ok = 0;
  if (ok && o.optimize_burnin > 0 && o.optimize_every == 0) {
    fprintf(stderr, "sk-lda train: --optimize-burnin applies to --optimize-every only\n");
    ok = 0;
  }
  if (ok && start_given && o.resume_dir != NULL) {
    fprintf(stderr, "sk-lda train: --start-topics applies to a new run; --resume continues from the checkpoint's topics\n");
    ok = 0;
  }
  if (ok && o.overwrite && o.resume_dir != NULL) {
    fprintf(stderr, "sk-lda train: --overwrite does not apply to --resume (a resumed run continues its folder; "
                    "--overwrite starts a new run in --out DIR)\n");
    ok = 0;
  }
  /* The library's options become the run's (the library checks them); what only a process has (ranks,
     the resume hint, the vocabulary's file for messages) is set on the run's options below. */
  const int tty = isatty(fileno(stderr));
  sk_ex_error err;
  sk_lda_run_options ro;
  o.log = train_log;
  o.progress = train_progress;
  o.user = (void *)&tty;
  o.handle_signals = 1;
  if (ok && sklda_detail_run_options(&o, &ro, &err) != SK_EX_EXIT_OK) {
    fprintf(stderr, "sk-lda train: %s\n", err.message);
    ok = 0;
  }
  if (seed_given) ro.seed = seed, ro.given |= SK_LDA_GIVEN_SEED;
  ro.npy_max_bytes = npy_limit;
  /* A folder another sk-lda writes is refused at once, not after the corpus is read and the ranks start. */
  if (ok && (ro.out != NULL || ro.resume != NULL) && sk_lda_run_check_in_use(&ro, &err) != SK_EX_EXIT_OK) {
    fprintf(stderr, "sk-lda train: %s\n", err.message);
    return SK_EX_EXIT_USAGE;
  }
  int ranked = 0;
  if (ok) {
    ranked = sk_lda_ranks_check(gpus, nccl, mpi, ro.sampler, ro.device.kind, ro.gpu_exact, rank_timeout, &err);
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
    rank_ctx.exchange = rank_exchange;
    ro.ranks = &rank_ctx;
    ro.device.kind = SK_LDA_DEVICE_GPU;
    ro.device.gpu = rank_ctx.gpu;
  } else if (ranked) {
    int is_rank = 0;
    err.message[0] = '\0';
    const int status = sk_lda_ranks_launch(gpus, rank_timeout, ro.out != NULL ? ro.out : ro.resume,
                                           sk_lda_ranks_nccl_make_id, &rank_ctx, &is_rank, &err);
    if (!is_rank) {
      if (status != SK_EX_EXIT_OK && err.message[0] != '\0') fprintf(stderr, "sk-lda train: %s\n", err.message);
      return status;
    }
    rank_ctx.exchange = rank_exchange;
    ro.ranks = &rank_ctx;
    ro.device.kind = SK_LDA_DEVICE_GPU;
    ro.device.gpu = rank_ctx.gpu;
  }
  sk_lda_corpus demo_corpus;
  memset(&demo_corpus, 0, sizeof demo_corpus);
  sklda_corpus *corpus = NULL;
  float *planted = NULL;
  char input_args[8192] = "";
  if (demo) {
    sk_lda_gen_params p;
    if (sk_lda_demo_corpus(ro.seed, &demo_corpus, &planted, &p, &err) != 0) {
      fprintf(stderr, "sk-lda train --demo: %s\n", err.message);
      return ranked == 2 ? sk_lda_ranks_mpi_end(SK_EX_EXIT_RUNTIME) : SK_EX_EXIT_RUNTIME;
    }
    ro.num_topics = p.num_topics, ro.alpha = p.alpha, ro.beta = p.beta;
    if (ro.iters == 100) ro.iters = 200;
    snprintf(input_args, sizeof input_args, "--demo");
    printf("demo: generated %d documents, %d words, %lld tokens from %d planted topics\n", demo_corpus.num_docs,
           demo_corpus.num_words, (long long)demo_corpus.num_tokens, p.num_topics);
    corpus = sklda_detail_corpus_wrap(&demo_corpus);
    if (corpus == NULL) {
      fprintf(stderr, "sk-lda train --demo: out of memory\n");
      free(planted);
      return ranked == 2 ? sk_lda_ranks_mpi_end(SK_EX_EXIT_RUNTIME) : SK_EX_EXIT_RUNTIME;
    }
  } else {
    const double t0 = sk_ex_now();
    if ((corpus = sk_lda_cmd_open_corpus(&in, &err)) == NULL) {
      fprintf(stderr, "sk-lda train: %s\n", err.message);
      return ranked == 2 ? sk_lda_ranks_mpi_end(SK_EX_EXIT_USAGE) : SK_EX_EXIT_USAGE;
    }
    sk_lda_cmd_describe_input(&in, input_args, sizeof input_args);
    ro.vocab_file = in.vocab != NULL ? in.vocab : in.text;
    ro.vocab_from_text = in.vocab == NULL && in.text != NULL;
    printf("read %d documents, %d words, %lld tokens in %.2f s\n", (int)corpus->c.num_docs,
           sklda_corpus_num_words(corpus), (long long)sklda_corpus_num_tokens(corpus), sk_ex_now() - t0);
  }
  ro.input_args = input_args;
  sklda_model *model = NULL;
  err.message[0] = '\0';
  const int status = sklda_detail_train(corpus, &ro, &model, &err);
  if (status != SK_EX_EXIT_OK && err.message[0] != '\0') fprintf(stderr, "sk-lda train: %s\n", err.message);
  if (status == SK_EX_EXIT_OK && demo && model != NULL) sk_lda_demo_report(&model->model, planted, corpus->c.vocab);
  sklda_model_free(model);
  sklda_corpus_free(corpus);
  free(planted);
  return ranked == 2 ? sk_lda_ranks_mpi_end(status) : status;
}
