#!/usr/bin/env bash
# sk-lda's GPU ESCA on the real corpora and on a NYTimes-scale corpus generated in the same call: per
# corpus and K, a run of N sweeps (alpha = 50 / K, beta = 0.01, seed 1, --ll-every 10, 10% held out) and
# one Markdown row:
#   Mtok/s     training tokens x (N - 10) / the wall time of sweeps 11 to N (metrics.csv: the training
#              seconds at sweep N less those at sweep 10, less the metrics time between them)
#   wall s     the whole command (reading the corpus, the sweeps, metrics, outputs)
#   LL@1/10/50/N, held-out LL: metrics.csv's joint LL per token and held-out LL per token
#   device GB  the peak device memory of the sampler and the metrics
#   split      ms per sweep: sampling / tables / A rebuild / B rebuild / metrics (metrics.csv, run totals / N)
#   first/last the wall time of sweeps 1-10 over that of the last ten, metrics excluded (issue 32: at most 2)
#   metrics %  the metrics' share of the sweeps' wall time, metrics included (metrics.csv's totals at sweep N;
#              the held-out LL is computed once, at the end)
# Logs and run folders go to ${LOGS:-/tmp/sk-lda-gpu}.
#   usage: bash bench/lda_gpu.sh [BUILD_DIR] [DATA_DIR] [K list, default "100 1024 10000"] [sweeps, default 100]
#     CORPORA   default "kos nips12 20news imdb100k nyt"; nyt is generated with sk-lda gen (300,000
#               documents, V = 100,000, mean length 333, 100 planted topics, seed 1) into $LOGS/nyt, once
#     BIG_K     K run only on 20news and nyt (default 65536; empty: none)
#     DEVICE    gpu (default) or cpu
#     TRAIN_ARGS more sk-lda train options for every run (e.g. "--start-topics 64")
set -uo pipefail
build=${1:-build}
data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
ks=${3:-100 1024 10000}
sweeps=${4:-100}
device=${DEVICE:-gpu}
logs=${LOGS:-/tmp/sk-lda-gpu}
big_k=${BIG_K-65536}
. "$(dirname "$0")/lda_common.sh"

# The NYTimes-scale corpus: generated once per logs folder (about 100 M tokens), in sk-lda's binary
# format where this sk-lda writes it (read in seconds, where the 0.9 GB of text took most of a run's wall).
nyt_corpus() { gen_corpus nyt 300000 100000; }

echo "| corpus | tokens | K | Mtok/s (sweeps 11-$sweeps) | wall s | LL@1 | LL@10 | LL@50 | LL@$sweeps | held-out LL | device GB | split ms/sweep: sample / tables / A / B / metrics | sweeps 1-10 / last 10 | metrics % |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
for corpus in ${CORPORA:-kos nips12 20news imdb100k nyt}; do
  if [ "$corpus" = nyt ]; then
    input=$(nyt_corpus) || { echo "| nyt | generation failed |"; continue; }
  else
    doc=$data/$corpus/docword.$corpus.txt.gz
    [ -f "$doc" ] || { echo "| $corpus | missing: $doc |"; continue; }
    input="$doc --vocab $(lda_vocab "$corpus")"
  fi
  corpus_ks=$ks
  case "$corpus" in 20news | nyt) [ -n "$big_k" ] && corpus_ks="$ks $big_k" ;; esac
  for K in $corpus_ks; do
    run=$logs/$corpus-$K-$device
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # $input is the docword path and the --vocab option
    # shellcheck disable=SC2086 # TRAIN_ARGS is a list of options
    "$sk" train --docword $input --topics "$K" --iters "$sweeps" --seed 1 --ll-every 10 --device "$device" \
      --out "$run" --overwrite --checkpoint-every 0 ${TRAIN_ARGS:-} >"$run.log" 2>&1 || {
      echo "| $corpus | | $K | failed: $(tail -1 "$run.log") |"; continue; }
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    tokens=$(sed -nE 's/^training: .* ([0-9]+) tokens, K = .*/\1/p' "$run.log")
    awk -F, -v n="$sweeps" -v T="$tokens" -v corpus="$corpus" -v K="$K" -v wall="$secs" '
      function cell(x) { return x == "" ? "" : sprintf("%.4f", x) }
      NR > 1 { ll[$1] = $4; held[$1] = $5; sec[$1] = $2; met[$1] = $10; row[$1] = $0 }
      END {
        split(row[n], f, ",")
        mtps = (sec[n] - met[n]) - (sec[10] - met[10]) > 0 ? T * (n - 10) / ((sec[n] - met[n]) - (sec[10] - met[10])) / 1e6 : 0
        split_ms = sprintf("%.2f / %.2f / %.2f / %.2f / %.2f", 1e3 * f[6] / n, 1e3 * f[7] / n, 1e3 * f[8] / n,
                           1e3 * f[9] / n, 1e3 * f[10] / n)
        # Test for the row of sweep n - 10 before reading it: reading sec[n - 10] would create it.
        first_last = ""
        if (n >= 20 && (n - 10) in sec) {
          last = (sec[n] - met[n]) - (sec[n - 10] - met[n - 10])
          if (last > 0) first_last = sprintf("%.2f", (sec[10] - met[10]) / last)
        }
        share = sec[n] > 0 ? sprintf("%.1f", 100 * f[10] / sec[n]) : ""
        printf "| %s | %d | %d | %.0f | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s |\n", corpus, T, K, mtps, wall,
               cell(ll[1]), cell(ll[10]), cell(ll[50]), cell(ll[n]), cell(held[n]), f[11] / 1e9, split_ms, first_last, share
      }' "$run/metrics.csv"
  done
done
