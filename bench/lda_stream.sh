#!/usr/bin/env bash
# sk-lda's streamed GPU ESCA (issue 13): corpora streamed through the GPU in chunks against the resident
# run, in the same call.
#   nyt  the NYTimes-scale corpus (sk-lda gen: 300,000 documents, V = 100,000, mean length 333, about
#        10^8 tokens) at K = 1,024 and 10,000: the resident run, then streamed runs with 1, 2 and 4
#        workers, each with a budget that gives about 9 chunks (the streamed model's bytes, which sk-lda
#        names when it refuses a 1 MiB budget, + 64 MiB + W x 37 / 9 bytes a token of the corpus: design.md
#        charges a chunk 37 bytes a token). SWEEPS sweeps each (default 20), --ll-every 5; Mtok/s over sweeps 6 to SWEEPS
#        (metrics.csv's seconds less its metrics time).
#   big  a synthetic corpus of BIG_DOCS documents of mean length 333 (default 3,000,000: about 10^9
#        tokens; V = BIG_V, default 50,000) at K = 10,000, 3 sweeps: the resident run (its peak device
#        memory is the in-memory footprint), then streamed with 4 workers and a quarter of that footprint.
#   pcie the plain host-device copy rates (bench_csr_pipeline, pinned memory, 2 x 10^8 tokens).
# Per run one Markdown row: chunks, workers, Mtok/s, the share of the resident run's, bytes over PCIe per
# sweep and their time at the measured copy rate, the sweep's wall time and its device parts (the draws,
# A rebuilds and model steps summed over the chunks: they overlap each other when several workers run, so
# the sum can pass the wall time). How much of the copying is hidden follows from the one-worker run,
# whose sweep is its device work plus its copies (bench/RESULTS.md, issue 13).
#   usage: bash bench/lda_stream.sh [BUILD_DIR] [PARTS, default "pcie nyt big"]
#     LOGS (default /tmp/sk-lda-stream), SWEEPS, BIG_DOCS, BIG_V, KS (default "1024 10000")
set -uo pipefail
build=${1:-build}
parts=${2:-pcie nyt big}
logs=${LOGS:-/tmp/sk-lda-stream}
sweeps=${SWEEPS:-20}
big_docs=${BIG_DOCS:-3000000}
big_v=${BIG_V:-50000}
ks=${KS:-1024 10000}
data=unused
. "$(dirname "$0")/lda_common.sh"
h2d_rate=55e9 # replaced by the pcie part's measurement when it runs

# train NAME INPUT K N RESIDENT_MTPS ARGS...: one run (no --out: nothing written but the log, so the
# figures are the sweeps'), its log in $logs/NAME.log; prints its Markdown row. Mtok/s is over the
# sweeps after the first (sk-lda's summary, metrics excluded).
train() {
  local name=$1 input=$2 K=$3 n=$4 resident_mtps=$5
  shift 5
  local log=$logs/$name.log start
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # $input is the docword path and the --vocab option
  "$sk" train --docword $input --topics "$K" --iters "$n" --seed 1 --ll-every 10 --test-fraction 0 --device gpu \
    "$@" >"$log" 2>&1 || { echo "| $name | failed: $(tail -1 "$log") |"; return 1; }
  local wall
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  awk -v name="$name" -v wall="$wall" -v rate="$h2d_rate" -v resident="$resident_mtps" '
    /^training:/ { for (i = 1; i <= NF; ++i) if ($i == "tokens,") T = $(i - 1) }
    /^sweeps after the first:/ { ms = $5; mtps = $9 }
    /^time per sweep:/ { for (i = 1; i <= NF; ++i) if ($i == "ms") dev += (++parts <= 4) ? $(i - 1) : 0 }
    /^streamed:/ { chunks = $2; workers = $5; gin = $12; gout = $16 }
    END {
      copy_ms = "-"
      if (chunks != "") copy_ms = sprintf("%.1f", 1e3 * gin * 1e9 / rate)
      else { chunks = "resident"; workers = "-"; gin = 0; gout = 0 }
      share = resident > 0 ? sprintf("%.2fx", mtps / resident) : "1.00x"
      printf "| %s | %d | %s | %s | %.0f | %s | %.2f / %.2f | %s | %.1f | %.1f | %s |\n", name, T, chunks, workers,
             mtps, share, gin, gout, copy_ms, ms, dev, wall
    }' "$log"
}

header() {
  echo "| run | tokens | chunks | workers | Mtok/s | of resident | GB in / out per sweep | copy ms at the H2D rate | sweep ms (wall) | device parts ms | command s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
}

mtps_of() { awk -F'|' '{ gsub(/ /, "", $6); print $6 }' <<<"$1"; }

for part in $parts; do
  case "$part" in
    pcie)
      "$build/bench/bench_csr_pipeline" --tokens 200000000 --runs 3 >"$logs/pcie.log" 2>&1 ||
        { echo "bench_csr_pipeline failed: $(tail -2 "$logs/pcie.log")"; continue; }
      grep -E "plain" "$logs/pcie.log"
      r=$(awk '/plain cudaMemcpyAsync H2D/ { for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9.]+$/) last = $i; print last; exit }' "$logs/pcie.log")
      [ -n "$r" ] && h2d_rate=$(awk -v r="$r" 'BEGIN { print r * 1e9 }')
      echo "H2D copy rate used below: $(awk -v r="$h2d_rate" 'BEGIN { printf "%.1f GB/s", r / 1e9 }')"
      ;;
    nyt)
      input=$(gen_corpus nyt 300000 100000) || continue
      header
      for K in $ks; do
        row=$(train "nyt-K$K-resident" "$input" "$K" "$sweeps" 0) && echo "$row"
        base=$(mtps_of "$row")
        T=$(awk '/^training:/ { for (i = 1; i <= NF; ++i) if ($i == "tokens,") print $(i - 1) }' "$logs/nyt-K$K-resident.log")
        # The streamed model's bytes, from the refusal of a 1 MiB budget (they depend on the marks or next
        # counts and on the word segments' exact size), else the old bound B twice.
        # shellcheck disable=SC2086 # $input is the docword path and the --vocab option
        model=$("$sk" train --docword $input --topics "$K" --iters 1 --seed 1 --test-fraction 0 --device gpu \
          --device-memory 1M 2>&1 | sed -nE 's/.*the model alone needs ([0-9]+) bytes.*/\1/p' | head -1)
        [ -n "$model" ] || model=$(( 8 * 100000 * K ))
        for W in 1 2 4; do
          budget=$(( model + 64 * 1048576 + W * 37 * T / 9 ))
          train "nyt-K$K-W$W" "$input" "$K" "$sweeps" "${base:-0}" --device-memory "$budget" --workers "$W"
        done
      done
      ;;
    big)
      input=$(gen_corpus big "$big_docs" "$big_v") || continue
      header
      row=$(train "big-K10000-resident" "$input" 10000 3 0) && echo "$row"
      base=$(mtps_of "$row")
      foot=$(sed -nE 's/.*peak device memory ([0-9]+) MB.*/\1/p' "$logs/big-K10000-resident.log")
      echo "in-memory footprint: ${foot:-?} MB; the streamed run gets a quarter"
      [ -n "$foot" ] && train "big-K10000-W4" "$input" 10000 3 "${base:-0}" --device-memory "$(( foot * 1000000 / 4 ))" \
        --workers 4
      grep -h -E "^streamed:|^done:|^read |^prepared|^sweeps after|^time per sweep" "$logs"/big-K10000-*.log
      ;;
  esac
done
