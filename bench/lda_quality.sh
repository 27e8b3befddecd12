#!/usr/bin/env bash
# The CPU quality record of issue 5: sk-lda train on kos, nips12 and 20news at K = 100 and 1,024, 100
# sweeps, serial CGS and ESCA; joint LL per token at sweeps 1, 10, 50, 100, held-out LL at 100, CPU
# tokens/s. Prints a Markdown table; logs go to ${LOGS:-/tmp/sk-lda-quality}.
#   usage: bash bench/lda_quality.sh [BUILD_DIR] [DATA_DIR]
#     KS   the K list (default "100 1024")
set -uo pipefail
build=${1:-build}
data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
logs=${LOGS:-/tmp/sk-lda-quality}
. "$(dirname "$0")/lda_common.sh"
echo "| corpus | K | sampler | LL@1 | LL@10 | LL@50 | LL@100 | held-out LL@100 | tokens/s (mean of sweeps) | seconds |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for corpus in kos nips12 20news; do
  vocab=$(lda_vocab "$corpus")
  for K in ${KS:-100 1024}; do
    for sampler in cgs esca; do
      log=$logs/$corpus-$K-$sampler.log
      start=$(date +%s.%N)
      "$sk" train --docword "$data/$corpus/docword.$corpus.txt.gz" --vocab "$vocab" \
        --topics "$K" --iters 100 --sampler "$sampler" --seed 1 --threads 2 --ll-every 10 >"$log" 2>&1 || {
        echo "| $corpus | $K | $sampler | failed: see $log |"; continue; }
      secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}')
      ll() { grep -E "^iteration $1/100:" "$log" | sed -E 's/.*joint LL\/token ([-0-9.]+).*/\1/'; }
      # mean tokens/s over the logged sweeps (1, 10, 20, ..., 100)
      tps=$(grep -E "^iteration [0-9]+/100:" "$log" | sed -E 's/.*: ([0-9.e+]+) M tokens\/s.*/\1/' |
            awk '{s += $1; n++} END {if (n) printf "%.2fM", s / n}')
      heldout=$(sed -nE 's/.*held-out LL\/token ([-0-9.]+).*/\1/p' "$log")
      ll50=$(grep -E "^iteration 50/100:" "$log" | sed -E 's/.*joint LL\/token ([-0-9.]+).*/\1/')
      echo "| $corpus | $K | $sampler | $(ll 1) | $(ll 10) | $ll50 | $(ll 100) | $heldout | $tps | ${secs%.*} |"
    done
  done
done
