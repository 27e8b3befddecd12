/* What a training run records (run_state.h): its checkpoints, its outputs, metrics.csv's time columns and
   the summary's time split; run.c holds the run itself. */
#include "run_state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model_file.h"
#include "output.h"
#include "phi.h"
#include "theta_npy.h"
#include "sk_ex_clock.h"
#include "sk_ex_files.h"
#include "sk_ex_memory.h"

double sk_lda_run_seconds(const run_state *r) { return r->seconds_before + (sk_ex_now() - r->start); }

/* metrics.csv's time columns now: this part's statistics added to the resumed part's (r->before). A
   part the sampler cannot split leaves a column as it was, and empty where it never had a value. */
void sk_lda_run_row_times(const run_state *r, const sk_lda_sampler *s, sk_lda_metrics_times *t) {
  sk_lda_sampler_stats st;
  sk_lda_sampler_get_stats(s, &st);
  const double now[4] = {st.sample_seconds, st.tables_seconds, st.a_seconds, st.b_seconds};
  const double before[4] = {r->before.sample_s, r->before.tables_s, r->before.a_rebuild_s, r->before.b_rebuild_s};
  double sum[4];
  for (int i = 0; i < 4; ++i) sum[i] = now[i] >= 0 ? before[i] + now[i] : (before[i] > 0 ? before[i] : NAN);
  t->sample_s = sum[0];
  t->tables_s = sum[1];
  t->a_rebuild_s = sum[2];
  t->b_rebuild_s = sum[3];
  t->metrics_s = r->before.metrics_s + r->metrics_seconds;
  t->device_bytes_peak =
      st.device_bytes_peak > r->before.device_bytes_peak ? st.device_bytes_peak : r->before.device_bytes_peak;
}

/* Writes DIR/checkpoint.skc for the model after `sweeps` sweeps and remembers what it cost. */
int sk_lda_run_save_checkpoint(run_state *r, const sk_lda_model *m, uint64_t sweeps, sk_ex_error *err) {
  char path[4096];
  if (sk_ex_path(path, sizeof path, r->dir, SK_LDA_CHECKPOINT_FILE, err) != 0) return 1;
  const double t0 = sk_ex_now();
  sk_lda_checkpoint c;
  memset(&c, 0, sizeof c);
  c.sampler = r->sampler;
  c.num_topics = m->num_topics;
  c.num_words = m->num_words;
  c.num_docs = m->num_docs;
  c.fingerprint = r->fingerprint;
  c.num_tokens = m->num_tokens;
  c.alpha = m->alpha;
  c.beta = r->start_beta; /* the run's; a learnt beta goes with alpha_k */
  c.alpha_k = m->alpha_k;
  c.prior_beta = m->beta;
  c.test_fraction = r->test_fraction;
  c.seed = m->seed;
  c.sweeps = sweeps;
  c.seconds = sk_lda_run_seconds(r);
  c.metrics = r->log.text;
  c.metrics_len = r->log.len;
  c.z = m->z;
  c.vocab = (char **)r->vocab;
  const int rc = sk_lda_checkpoint_write(path, &c, err);
  if (rc == 0) r->checkpoint_dir = r->dir, r->checkpoint_sweep = sweeps;
  r->checkpoint_cost = sk_ex_now() - t0;
  r->since_checkpoint = 0.0;
  r->checkpoints += 1;
  r->checkpoint_seconds += r->checkpoint_cost;
  return rc;
}

/* The log line of a dense file left out: its shape, its bytes against the limit, and where the same values
   are. No older one stays beside the model: a resumed run's folder loses its outputs when it starts
   (run_folder.c). */
static void say_left_out(const run_state *r, const char *file, const char *shape, uint64_t bytes, const char *instead) {
  char b[32], lim[32];
  sk_lda_run_say(r->o, SKLDA_LOG_INFO, "%s not written: %s would be %s of float32, more than %s (sk-lda train --npy-limit); %s",
                 file, shape, sk_ex_format_bytes(b, sizeof b, bytes), sk_ex_format_bytes(lim, sizeof lim, r->o->npy_max_bytes),
                 instead);
}

/* The outputs of the model after `sweeps` sweeps: topics.txt, model.skl, phi.npy, theta.txt, theta.npy (and
   z.bin); phi.npy and theta.npy only up to r->o->npy_max_bytes (bits SK_LDA_WROTE_* in *wrote say which). */
int sk_lda_run_write_outputs(const run_state *r, const sk_lda_split *split, const sk_lda_model *m, uint64_t sweeps,
                             unsigned *wrote, sk_ex_error *err) {
  char path[4096], shape[96];
  const uint64_t limit = r->o->npy_max_bytes > 0 ? r->o->npy_max_bytes : UINT64_MAX;
  *wrote = 0u;
  if (sk_ex_path(path, sizeof path, r->dir, "topics.txt", err) != 0 ||
      sk_lda_write_topics(path, m->n_vk, m->n_k, m->num_words, m->num_topics, m->beta, r->vocab,
                          r->o->top_words, err) != 0)
    return 1;
  if (sk_ex_path(path, sizeof path, r->dir, "model.skl", err) != 0 ||
      sk_lda_model_save(path, m, r->vocab, sweeps, err) != 0)
    return 1;
  const uint64_t phi_bytes = 4u * (uint64_t)m->num_topics * (uint64_t)m->num_words;
  if (phi_bytes > limit) {
    char instead[4096 + 96];
    snprintf(shape, sizeof shape, "K = %d topics x V = %d words", (int)m->num_topics, (int)m->num_words);
    snprintf(instead, sizeof instead, "model.skl holds the model, and sk-lda export %s/model.skl --out DIR writes it",
             r->dir);
    say_left_out(r, "phi.npy", shape, phi_bytes, instead);
  } else if (sk_ex_path(path, sizeof path, r->dir, "phi.npy", err) != 0 ||
             sk_lda_write_phi_npy(path, m->n_vk, m->n_k, m->num_words, m->num_topics, m->beta, err) != 0) {
    return 1;
  } else {
    *wrote |= SK_LDA_WROTE_PHI;
  }
  if (sk_ex_path(path, sizeof path, r->dir, "theta.txt", err) != 0 ||
      sk_lda_write_model_doc_topics(path, m, split->train.doc_ids, err) != 0)
    return 1;
  {
    const int rc = sk_ex_path(path, sizeof path, r->dir, "theta.npy", err) != 0
                       ? 1
                       : sk_lda_write_theta_npy(path, m, split, r->o->device.threads, limit, err);
    if (rc == 1) return 1;
    if (rc == 2) {
      const int64_t docs = sk_lda_corpus_input_docs(&split->train);
      snprintf(shape, sizeof shape, "%lld documents x K = %d topics", (long long)docs, (int)m->num_topics);
      say_left_out(r, "theta.npy", shape, 4u * (uint64_t)docs * (uint64_t)m->num_topics,
                   "theta.txt holds the same proportions, sparse");
    } else {
      *wrote |= SK_LDA_WROTE_THETA;
    }
  }
  if (r->o->save_z && (sk_ex_path(path, sizeof path, r->dir, "z.bin", err) != 0 ||
                       sk_lda_z_write(path, m->z, m->num_tokens, m->num_topics, err) != 0))
    return 1;
  return 0;
}

/* Whether the automatic policy wants a checkpoint now: the sweeps since the last one took at least 50
   times what one costs. */
int sk_lda_run_checkpoint_due(const run_state *r, int64_t it) {
  const int64_t every = r->o->checkpoint_every;
  if (every == SK_LDA_CHECKPOINT_AUTO) return r->since_checkpoint * SK_LDA_CHECKPOINT_AUTO_SHARE >= r->checkpoint_cost;
  return every > 0 && it % every == 0;
}

/* The summary's split of this part's time per sweep (SaberLDA's Figure 9): each part in ms per sweep
   and in % of the part's wall time `secs`. A sampler that cannot split its sweeps shows them whole. */
void sk_lda_run_say_time_split(const run_state *r, const sk_lda_sampler *s, uint64_t sweeps, double secs) {
  const sk_lda_run_options *o = r->o;
  sk_lda_sampler_stats st;
  sk_lda_sampler_get_stats(s, &st);
  const double n = sweeps > 0 ? (double)sweeps : 1.0, whole = secs > 0 ? secs : 1.0;
  const char *names[5] = {"sampling", "B_hat and tables", "A rebuild", "B rebuild", "metrics"};
  const double parts[5] = {st.sample_seconds, st.tables_seconds, st.a_seconds, st.b_seconds, r->metrics_seconds};
  char line[1024];
  int len = snprintf(line, sizeof line, "time per sweep:");
  if (st.sample_seconds < 0) /* the CPU samplers: the sweep as one part */
    len += snprintf(line + len, sizeof line - (size_t)len, " sweeps %.3f ms (%.1f%%),", 1e3 * r->sweep_seconds / n,
                    100.0 * r->sweep_seconds / whole);
  for (int i = st.sample_seconds < 0 ? 4 : 0; i < 5 && len > 0 && (size_t)len < sizeof line; ++i)
    len += snprintf(line + len, sizeof line - (size_t)len, " %s %.3f ms (%.1f%%)%s", names[i], 1e3 * parts[i] / n,
                    100.0 * parts[i] / whole, i < 4 ? "," : "");
  sk_lda_run_say(o, SKLDA_LOG_INFO, "%s", line);
  if (sweeps > 1) /* the throughput without the first sweep's one-time costs and without the metrics */
    sk_lda_run_say(o, SKLDA_LOG_INFO, "sweeps after the first: %.3f ms each (wall), %.1f M tokens/s; the first %.3f ms",
                   1e3 * (r->sweep_seconds - r->first_sweep_seconds) / (n - 1),
                   (double)s->model->num_tokens * (n - 1) / (r->sweep_seconds - r->first_sweep_seconds) / 1e6,
                   1e3 * r->first_sweep_seconds);
  const double sweeps_wall = r->sweep_seconds > 0 ? r->sweep_seconds : 1.0;
  if (st.ranks > 0) /* several GPUs: the sum of B over the ranks is inside the B rebuild above */
    sk_lda_run_say(o, SKLDA_LOG_INFO,
                   "ranks: %d GPUs through NCCL; per sweep B's sum over the ranks took %.3f ms (%.1f%% of the sweep, "
                   "waiting for the slowest rank included), %.1f MB sent a rank; sparse in %lld of %lld sums",
                   st.ranks, 1e3 * st.sum_seconds / n, 100.0 * st.sum_seconds / sweeps_wall,
                   st.sum_bytes / n / 1e6, (long long)st.sparse_sums, (long long)st.sums);
  if (st.chunks > 0) /* streamed: the device parts above overlap the copies; the wall time is the sweep's */
    sk_lda_run_say(o, SKLDA_LOG_INFO,
                   "streamed: %lld chunks by %d workers; per sweep %.3f ms wall, %.3f GB in and %.3f GB out over "
                   "PCIe; prepared in %.2f s, %.2f GB of pinned host memory",
                   (long long)st.chunks, st.workers, 1e3 * st.wall_seconds / n, st.h2d_bytes / n / 1e9,
                   st.d2h_bytes / n / 1e9, st.prepare_seconds, (double)st.host_pinned_bytes / 1e9);
}
