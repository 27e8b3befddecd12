#!/usr/bin/env bash
# sk-lda's GPU metrics against the sweeps in default runs (issue 32's "metrics at most 10%"): per corpus
# and K, a run of N sweeps (alpha = 50 / K, beta = 0.01, seed 1, --ll-every 10, 10% held out, the held-out
# LL at the end) with each sk-lda given, and one Markdown row each:
#   sweeps s     training seconds at sweep N less the metrics (metrics.csv)
#   metrics ms   the run's metrics time: the joint LL at sweeps 1, 10, ..., N and the held-out LL
#   joint ms     the joint LL's time a call (the metrics at sweep N - 10 over its (N - 10) / 10 calls)
#   held-out ms  the held-out call: the metrics at sweep N less those at N - 10 less one joint call
#   share %      metrics / (sweeps + metrics), as lda_gpu.sh's "metrics %"
#   held-out LL  metrics.csv's, all 17 digits (the same bits across builds means the same fold-in)
# Each run is stopped once metrics.csv has sweep N: the model files it would write next take minutes at
# large K and are not what is measured. With several builds each corpus and K runs them in turn, so that
# a baseline is measured in the same call.
#   usage: bash bench/lda_metrics_share.sh DATA_DIR "K LIST" SWEEPS BUILD_DIR [BUILD_DIR ...]
#     CORPORA  default "nips12 20news"; LOGS default /tmp/sk-lda-metrics
set -uo pipefail
[ $# -ge 4 ] || { sed -n 2,17p "$0" >&2; exit 2; }
data=$1
ks=$2
sweeps=$3
shift 3
logs=${LOGS:-/tmp/sk-lda-metrics}
for b in "$@"; do
  [ -x "$b/examples/lda/sk-lda" ] || { echo "$(basename "$0"): $b/examples/lda/sk-lda not found (build first)" >&2; exit 2; }
done
# shellcheck disable=SC2034 # read by lda_common.sh (its build check)
build=$1
. "$(dirname "$0")/lda_common.sh"

# run SK CORPUS K RUN: one run into folder RUN, stopped once metrics.csv has the last sweep's row.
run() {
  local sk_bin=$1 corpus=$2 K=$3 dir=$4 pid
  rm -f "$dir/metrics.csv"  # a run before into this folder (a build named twice) is not this one's
  "$sk_bin" train --docword "$data/$corpus/docword.$corpus.txt.gz" --vocab "$(lda_vocab "$corpus")" --topics "$K" \
    --iters "$sweeps" --seed 1 --ll-every 10 --device gpu --out "$dir" --overwrite --checkpoint-every 0 \
    >"$dir.log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    [ -f "$dir/metrics.csv" ] && grep -q "^$sweeps," "$dir/metrics.csv" && break
    sleep 0.1
  done
  sleep 0.2
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  grep -q "^$sweeps," "$dir/metrics.csv" 2>/dev/null
}

echo "| build | corpus | K | sweeps s | metrics ms | joint ms a call | held-out ms | share % | held-out LL |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for corpus in ${CORPORA:-nips12 20news}; do
  for K in $ks; do
    for b in "$@"; do
      dir=$logs/$(basename "$b")-$corpus-$K
      if ! run "$b/examples/lda/sk-lda" "$corpus" "$K" "$dir"; then
        echo "| $b | $corpus | $K | failed: $(tail -1 "$dir.log") |"
        continue
      fi
      awk -F, -v n="$sweeps" -v b="$b" -v c="$corpus" -v K="$K" '
        NR > 1 { sec[$1] = $2; met[$1] = $10; held[$1] = $5 }
        END {
          j = met[n - 10] / ((n - 10) / 10)
          printf "| %s | %s | %d | %.4f | %.1f | %.2f | %.1f | %.1f | %s |\n", b, c, K, sec[n] - met[n], 1e3 * met[n],
                 1e3 * j, 1e3 * (met[n] - met[n - 10] - j), 100 * met[n] / sec[n], held[n]
        }' "$dir/metrics.csv"
    done
  done
done
