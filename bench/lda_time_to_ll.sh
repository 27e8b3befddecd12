#!/usr/bin/env bash
# Time to quality (issue 32): sk-lda trained on every token (--test-fraction 0), K = 1,024, alpha = 50 / K,
# beta = 0.01, seed 1, the joint LL per token computed after every sweep (--ll-every 1); per corpus one
# Markdown row with the first sweep whose joint LL per token reaches the target and the wall time of the
# sweeps up to it, metrics excluded (metrics.csv: the training seconds at that sweep less the metrics
# seconds up to it). The targets are the LLs that the fastest published GPU LDA code reaches in 100
# iterations on an H200 (issue 32): kos -8.7224, nips12 -8.6214, 20news -8.7733.
# Logs and run folders go to ${LOGS:-/tmp/sk-lda-ttq}.
#   usage: bash bench/lda_time_to_ll.sh [BUILD_DIR] [DATA_DIR] [sweeps, default 100]
#     CORPORA   default "kos nips12 20news"; DEVICE gpu (default) or cpu; K default 1024
#     TRAIN_ARGS more sk-lda train options for every run (e.g. "--start-topics 64")
set -uo pipefail
build=${1:-build}
data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
sweeps=${3:-100}
device=${DEVICE:-gpu}
K=${K:-1024}
logs=${LOGS:-/tmp/sk-lda-ttq}
. "$(dirname "$0")/lda_common.sh"

target_of() {
  case "$1" in kos) echo -8.7224 ;; nips12) echo -8.6214 ;; 20news) echo -8.7733 ;; *) echo "" ;; esac
}

echo "| corpus | K | target LL/token | first sweep at or above it | sweeps' wall s to it (metrics excluded) | LL@$sweeps | sweeps' wall s to $sweeps |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for corpus in ${CORPORA:-kos nips12 20news}; do
  doc=$data/$corpus/docword.$corpus.txt.gz
  [ -f "$doc" ] || { echo "| $corpus | missing: $doc |"; continue; }
  target=$(target_of "$corpus")
  run=$logs/$corpus-$K-$device
  "$sk" train --docword "$doc" --vocab "$(lda_vocab "$corpus")" --topics "$K" --iters "$sweeps" --seed 1 \
    --test-fraction 0 --ll-every 1 --device "$device" --out "$run" --overwrite --checkpoint-every 0 ${TRAIN_ARGS:-} \
    >"$run.log" 2>&1 || { echo "| $corpus | $K | failed: $(tail -1 "$run.log") |"; continue; }
  # metrics.csv: iteration, seconds, tokens/s, joint LL, held-out LL, ..., metrics seconds (column 10)
  awk -F, -v corpus="$corpus" -v K="$K" -v target="$target" -v n="$sweeps" '
    NR > 1 {
      t = $2 - $10
      if (hit == "" && target != "" && $4 >= target) { hit = $1; hit_t = t }
      last_ll = $4; last_t = t
    }
    END {
      printf "| %s | %d | %s | %s | %s | %.4f | %.3f |\n", corpus, K, target == "" ? "-" : target,
             hit == "" ? "not reached" : hit, hit == "" ? "-" : sprintf("%.3f", hit_t), last_ll, last_t
    }' "$run/metrics.csv"
done
