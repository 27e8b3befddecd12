#!/usr/bin/env bash
# AGA-LDA against GPU ESCA (issue 14): per corpus and K, one run of each sampler on the GPU (N sweeps,
# alpha = 50 / K, beta = 0.01, seed 1, the joint LL every sweep on the GPU, 10% held out) and, as the
# quality target, the CPU CGS's joint LL at sweep 50 (from bench/RESULTS.md's record at K = 100 and 1,024
# on kos, nips12 and 20news, and this script's earlier CGS=1 runs at K = 32, 64, 128 and 256; otherwise
# a CPU CGS run of 50 sweeps in the same call, when CGS=1). Prints one Markdown row per run:
#   Mtok/s     training tokens x (N - 10) / the training seconds of sweeps 11 to N less their metrics
#   LL@10/50/N joint LL per token; held-out LL per token after sweep N
#   to target  the first sweep whose joint LL reaches the CGS target, and the training seconds (less the
#              metrics) up to it ("-" when never reached)
#   to ESCA@N  the training seconds to reach the joint LL that ESCA's run (the first sampler) has after
#              sweep N: the time to the same quality where no CGS target is known (nyt)
# Corpus `nyt` is the NYTimes-scale corpus (sk-lda gen: 300,000 documents, V = 100,000, mean length
# 333, about 10^8 tokens; made once in the logs folder), with CGS targets at K <= 128 only (CGS on 10^8
# tokens takes 11 to 21 minutes a run on one core at these K; more above).
# Logs and run folders go to ${LOGS:-/tmp/sk-lda-aga}.
#   usage: bash bench/lda_aga.sh [BUILD_DIR] [DATA_DIR] [K list, default "32 64 100 128 256 1024"] [sweeps, default 100]
#     CORPORA   default "kos nips12 20news" (and nyt)
#     SAMPLERS  default "esca aga"; aga-whole is AGA with the paper's whole-word panels
#     AGA_ARGS  more options for the AGA runs (e.g. "--minibatch 1000 --panels 528"), shown in the row
#     CGS=1     runs the CPU CGS for targets the record lacks
set -uo pipefail
build=${1:-build}
data=${2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
ks=${3:-32 64 100 128 256 1024}
sweeps=${4:-100}
logs=${LOGS:-/tmp/sk-lda-aga}
. "$(dirname "$0")/lda_common.sh"

# The CPU CGS joint LL at sweep 50: K = 100 and 1,024 from bench/RESULTS.md's quality record (commit
# d40b638); K = 32, 64, 128 and 256 from this script's CGS=1 runs (the H200 machine's CPU, commits
# 650361e and 8af91a8; CGS is deterministic, so any machine gives these values); nyt at K = 32 to 128
# from `sk-lda train --sampler cgs --device cpu --iters 50 --ll-every 50` on the same generated corpus
# (the development machine, 11 to 21 minutes a run, commit 3afade3).
recorded_target() {
  case "$1:$2" in
    kos:32) echo -8.2672 ;; kos:64) echo -8.3949 ;; kos:100) echo -8.4913 ;; kos:128) echo -8.5561 ;;
    kos:256) echo -8.7522 ;; kos:1024) echo -9.4008 ;;
    nips12:32) echo -8.7465 ;; nips12:64) echo -8.7452 ;; nips12:100) echo -8.7328 ;; nips12:128) echo -8.7079 ;;
    nips12:256) echo -8.6564 ;; nips12:1024) echo -8.6634 ;;
    20news:32) echo -9.0554 ;; 20news:64) echo -9.0771 ;; 20news:100) echo -9.0870 ;; 20news:128) echo -9.1053 ;;
    20news:256) echo -9.1138 ;; 20news:1024) echo -9.1868 ;;
    nyt:32) echo -8.9240 ;; nyt:64) echo -8.7359 ;; nyt:100) echo -8.6893 ;; nyt:128) echo -8.7243 ;;
  esac
}

echo "| corpus | K | sampler | Mtok/s (11-$sweeps) | LL@10 | LL@50 | LL@$sweeps | held-out | CGS@50 target | sweeps to target | seconds to target | seconds to ESCA@$sweeps |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for corpus in ${CORPORA:-kos nips12 20news}; do
  if [ "$corpus" = nyt ]; then
    input=$(gen_corpus nyt 300000 100000) || continue
  else
    doc=$data/$corpus/docword.$corpus.txt.gz
    [ -f "$doc" ] || { echo "| $corpus | missing: $doc |"; continue; }
    input="$doc --vocab $(lda_vocab "$corpus")"
  fi
  for K in $ks; do
    target=$(recorded_target "$corpus" "$K")
    if [ -z "$target" ] && [ "${CGS:-0}" = 1 ] && [ "$corpus" != nyt ]; then
      run=$logs/$corpus-$K-cgs
      # shellcheck disable=SC2086 # $input is the docword path and the --vocab option
      "$sk" train --docword $input --topics "$K" --iters 50 --seed 1 --ll-every 50 \
        --sampler cgs --device cpu --out "$run" --overwrite --checkpoint-every 0 >"$run.log" 2>&1 &&
        target=$(awk -F, '$1 == 50 { printf "%.4f", $4 }' "$run/metrics.csv")
    fi
    esca_final=""
    for sampler in ${SAMPLERS:-esca aga}; do
      run=$logs/$corpus-$K-$sampler
      extra=()
      label=$sampler
      case $sampler in
        aga-whole) extra=(--sampler aga --whole-word-panels) ;;
        *) extra=(--sampler "$sampler") ;;
      esac
      if [ "$sampler" != esca ] && [ -n "${AGA_ARGS:-}" ]; then
        # shellcheck disable=SC2206 # the options are words
        extra+=(${AGA_ARGS})
        label="$sampler $AGA_ARGS"
      fi
      # shellcheck disable=SC2086 # $input is the docword path and the --vocab option
      "$sk" train --docword $input --topics "$K" --iters "$sweeps" --seed 1 --ll-every 1 \
        --device gpu "${extra[@]}" --out "$run" --overwrite --checkpoint-every 0 \
        >"$run.log" 2>&1 || { echo "| $corpus | $K | $label | failed: $(tail -1 "$run.log") |"; continue; }
      tokens=$(sed -nE 's/^training: .* ([0-9]+) tokens, K = .*/\1/p' "$run.log")
      [ "$sampler" = esca ] && esca_final=$(awk -F, -v n="$sweeps" '$1 == n { print $4 }' "$run/metrics.csv")
      awk -F, -v n="$sweeps" -v T="$tokens" -v corpus="$corpus" -v K="$K" -v s="$label" -v target="$target" \
        -v esca="$esca_final" '
        NR > 1 { ll[$1] = $4; held[$1] = $5; sec[$1] = $2 - $10
                 if (target != "" && reach == "" && $4 >= target) { reach = $1; reach_s = $2 - $10 }
                 if (esca != "" && reach_e == "" && $4 >= esca) reach_e = $2 - $10 }
        END {
          mtps = sec[n] - sec[10] > 0 ? T * (n - 10) / (sec[n] - sec[10]) / 1e6 : 0
          printf "| %s | %d | %s | %.0f | %.4f | %.4f | %.4f | %.4f | %s | %s | %s | %s |\n", corpus, K, s, mtps, ll[10],
                 ll[50], ll[n], held[n], target == "" ? "-" : target, reach == "" ? "-" : reach,
                 reach == "" ? "-" : sprintf("%.3f", reach_s), reach_e == "" ? "-" : sprintf("%.3f", reach_e)
        }' "$run/metrics.csv"
    done
  done
done
