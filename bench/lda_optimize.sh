#!/usr/bin/env bash
# Learned priors against fixed ones (issue 33, item 5): per corpus and K, two runs of N sweeps with the
# same seed and split (10% of the documents held out): the fixed priors (alpha = 50 / K, beta = 0.01) and
# --optimize-every E --optimize-burnin B (an asymmetric alpha by Minka's fixed point and a symmetric beta,
# from the same start). One Markdown row each: the held-out LL per token of both runs, its gain, the
# joint LL per token at sweep N, and the learned priors at the end (the sum of alpha and beta, metrics.csv).
# Logs and run folders go to ${LOGS:-/tmp/sk-lda-optimize}.
#   usage: bash bench/lda_optimize.sh [BUILD_DIR] [DATA_DIR] [K list, default "100 1024"] [sweeps, default 200]
#     CORPORA default "kos nips12 20news"; DEVICE gpu (default) or cpu; EVERY default 10; BURNIN default 50;
#     SAMPLER default esca (deterministic: the two runs differ by their priors alone)
set -uo pipefail
build=${1:-build}
data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
ks=${3:-100 1024}
sweeps=${4:-200}
device=${DEVICE:-gpu}
sampler=${SAMPLER:-esca}
every=${EVERY:-10}
burnin=${BURNIN:-50}
logs=${LOGS:-/tmp/sk-lda-optimize}
. "$(dirname "$0")/lda_common.sh"

echo "| corpus | K | sweeps | held-out LL, fixed | held-out LL, optimised | gain | joint LL@$sweeps fixed / optimised | sum alpha | beta | seconds fixed / optimised |"
echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---|"
for corpus in ${CORPORA:-kos nips12 20news}; do
  doc=$data/$corpus/docword.$corpus.txt.gz
  [ -f "$doc" ] || { echo "| $corpus | missing: $doc |"; continue; }
  vocab=$(lda_vocab "$corpus")
  for K in $ks; do
    for mode in fixed optimised; do
      extra=()
      [ "$mode" = optimised ] && extra=(--optimize-every "$every" --optimize-burnin "$burnin")
      run=$logs/$corpus-$K-$device-$sweeps-$burnin-$mode
      "$sk" train --docword "$doc" --vocab "$vocab" --topics "$K" --iters "$sweeps" --seed 1 --device "$device" --sampler "$sampler" \
        --ll-every 50 --out "$run" --overwrite --checkpoint-every 0 "${extra[@]}" >"$run.log" 2>&1 || {
        echo "| $corpus | $K | $sweeps | $mode failed: $(tail -1 "$run.log") |"; continue 2; }
    done
    # the last row of each metrics.csv: seconds (2), joint LL (4), held-out LL (5), sum alpha (12), beta (13)
    f=$(tail -1 "$logs/$corpus-$K-$device-$sweeps-$burnin-fixed/metrics.csv")
    o=$(tail -1 "$logs/$corpus-$K-$device-$sweeps-$burnin-optimised/metrics.csv")
    awk -F, -v f="$f" -v o="$o" -v corpus="$corpus" -v K="$K" -v n="$sweeps" 'BEGIN {
      split(f, a, ","); split(o, b, ",")
      printf "| %s | %d | %d | %.4f | %.4f | %+.4f | %.4f / %.4f | %.4f | %.5f | %.1f / %.1f |\n", corpus, K, n,
             a[5], b[5], b[5] - a[5], a[4], b[4], b[12], b[13], a[2], b[2]
    }'
  done
done
