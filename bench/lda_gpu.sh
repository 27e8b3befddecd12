#!/usr/bin/env bash
# sk-lda's GPU ESCA on real corpora: per corpus and K, the median sweep throughput over sweeps 11 to N
# (metrics.csv's tokens_per_s with --ll-every 1: tokens / the sweep's own time, evaluation excluded),
# the wall time of the run, the joint LL per token at sweep N and the held-out LL. Prints a Markdown table;
# logs and run folders go to ${LOGS:-/tmp/sk-lda-gpu}.
#   usage: bash bench/lda_gpu.sh [BUILD_DIR] [DATA_DIR] [K list, default "100 1024"] [sweeps, default 100]
#          DEVICE=cpu|gpu (default gpu), CORPORA="kos nips12 20news imdb100k" (the default)
set -uo pipefail
build=${1:-build}
data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
ks=${3:-100 1024}
sweeps=${4:-100}
device=${DEVICE:-gpu}
logs=${LOGS:-/tmp/sk-lda-gpu}
. "$(dirname "$0")/lda_common.sh"
echo "| corpus | tokens | K | device | median sweep Mtok/s (sweeps 11-$sweeps) | wall s | joint LL@$sweeps | held-out LL |"
echo "|---|---:|---:|---|---:|---:|---:|---:|"
for corpus in ${CORPORA:-kos nips12 20news imdb100k}; do
  doc=$data/$corpus/docword.$corpus.txt.gz
  [ -f "$doc" ] || { echo "| $corpus | missing: $doc |"; continue; }
  vocab=$(lda_vocab "$corpus")
  for K in $ks; do
    run=$logs/$corpus-$K-$device
    start=$(date +%s.%N)
    "$sk" train --docword "$doc" --vocab "$vocab" --topics "$K" --iters "$sweeps" --seed 1 \
      --ll-every 1 --device "$device" --out "$run" --overwrite --checkpoint-every 0 >"$run.log" 2>&1 || {
      echo "| $corpus | | $K | $device | failed: $(tail -1 "$run.log") |"; continue; }
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    tokens=$(sed -nE 's/^training: .* ([0-9]+) tokens, K = .*/\1/p' "$run.log")
    mtps=$(awk -F, 'NR > 1 && $1 > 10 {print $3 / 1e6}' "$run/metrics.csv" | sort -g |
           awk '{v[NR] = $1} END {if (NR) printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
    ll=$(awk -F, -v n="$sweeps" '$1 == n {printf "%.4f", $4}' "$run/metrics.csv")
    heldout=$(awk -F, -v n="$sweeps" '$1 == n {printf "%.4f", $5}' "$run/metrics.csv")
    echo "| $corpus | $tokens | $K | $device | $mtps | $secs | $ll | $heldout |"
  done
done
