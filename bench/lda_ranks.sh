#!/usr/bin/env bash
# sk-lda on several GPUs of one host (issue 16): throughput, the sum of B over the ranks per sweep and the
# scaling against one GPU, in the same call.
#   nyt  the NYTimes-scale corpus (sk-lda gen: 300,000 documents, V = 100,000, mean length 333, about
#        10^8 tokens)
#   big  a synthetic corpus of BIG_DOCS documents of mean length 333 (default 6,000,000: about 2 x 10^9
#        tokens; V = BIG_V, default 100,000)
#   imdb the real imdb100k corpus (11.5M tokens, V = 91,258) from DATA (default ../shared/data)
# For each corpus and K in KS (default "1024 10000"): one GPU without --gpus (the baseline), then
# --gpus R for each R in RANKS (default "2 4", those above the GPUs present are left out) and each
# --rank-exchange in EXCHANGES (default "auto"; "auto dense" adds the all-reduce baseline). ESCA
# (--sampler esca), SWEEPS sweeps (default 20), --ll-every 10, no held-out part, no --out. One Markdown
# row per run: tokens, ranks, Mtok/s over the sweeps after the first (sk-lda's summary, metrics
# excluded), speed-up and efficiency against the one-GPU run, the sum of B per sweep (ms, and its share
# of the sweep) with the MB each rank sends, the sweep's wall time and the final joint log-likelihood
# per token (the same for every R: the ranks' integer sums are exact, tests/lda/test_ranks_gpu.c) and how
# many of the sums went sparse.
#   usage: bash bench/lda_ranks.sh [BUILD_DIR] [PARTS, default "nyt big"]
#     LOGS (default /tmp/sk-lda-ranks), SWEEPS, BIG_DOCS, BIG_V, KS, RANKS, EXCHANGES, DATA
set -uo pipefail
build=${1:-build}
parts=${2:-nyt big}
logs=${LOGS:-/tmp/sk-lda-ranks}
sweeps=${SWEEPS:-20}
big_docs=${BIG_DOCS:-6000000}
big_v=${BIG_V:-100000}
ks=${KS:-1024 10000}
ranks=${RANKS:-2 4}
exchanges=${EXCHANGES:-auto}
data=${DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
. "$(dirname "$0")/lda_common.sh"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 1 ] || { echo "lda_ranks.sh: no GPU found (nvidia-smi -L)" >&2; exit 2; }

# train NAME INPUT K R BASE_MTPS ARGS...: one run, its log in $logs/NAME.log; prints its Markdown row
# (BASE_MTPS: the one-GPU run's Mtok/s, 0 for that run itself).
train() {
  local name=$1 input=$2 K=$3 R=$4 base=$5
  shift 5
  local log=$logs/$name.log start
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # $input is the docword path and the --vocab option
  "$sk" train --docword $input --topics "$K" --iters "$sweeps" --seed 1 --ll-every 10 --test-fraction 0 \
    --device gpu --sampler esca "$@" >"$log" 2>&1 || { echo "| $name | failed: $(tail -1 "$log") |"; return 1; }
  local wall
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}')
  awk -v name="$name" -v R="$R" -v base="$base" -v wall="$wall" '
    /^training:/ { for (i = 1; i <= NF; ++i) if ($i == "tokens,") T = $(i - 1) }
    /^sweeps after the first:/ { ms = $5; mtps = $9 }
    /^ranks:/ {
      sum = $14
      for (i = 1; i <= NF; ++i) {
        if ($i == "MB" && $(i + 1) == "sent") mb = $(i - 1)
        if ($i == "sparse" && $(i + 1) == "in") sparse = $(i + 2) "/" $(i + 4)
      }
    }
    /^done:/ { for (i = 1; i <= NF; ++i) if ($i == "LL/token") ll = $(i + 1); sub(/;/, "", ll) }
    END {
      speed = base > 0 ? sprintf("%.2fx", mtps / base) : "1.00x"
      eff = base > 0 ? sprintf("%.0f%%", 100 * mtps / base / R) : "-"
      sumtxt = "-"
      if (sum != "") sumtxt = sprintf("%.2f (%.1f%%), %s MB, sparse %s", sum, 100 * sum / ms, mb, sparse)
      printf "| %s | %d | %d | %.0f | %s | %s | %s | %.1f | %s | %s |\n", name, T, R, mtps, speed, eff, sumtxt, ms, ll, wall
    }' "$log"
}

header() {
  echo
  echo -n "| run | tokens | GPUs | Mtok/s | speed-up | efficiency | sum of B ms per sweep (share), MB sent a rank, "
  echo "sparse sums | sweep ms | joint LL/token | wall s |"
  echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"
}

# mtps LOG: the Mtok/s of a finished run's log (0 when it failed).
mtps() { awk '/^sweeps after the first:/ { v = $9 } END { print v + 0 }' "$1" 2>/dev/null || echo 0; }

nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | sed 's/^/GPU /'
echo "commit ${SK_COMMIT:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u '+%Y-%m-%d %H:%M UTC'), $sweeps sweeps"
for part in $parts; do
  case $part in
    nyt) input=$(gen_corpus nyt 300000 100000) || exit 1 ;;
    big) input=$(gen_corpus big "$big_docs" "$big_v") || exit 1 ;;
    imdb) input="$data/imdb100k/docword.imdb100k.txt.gz --vocab $(lda_vocab imdb100k)" ;;
    *) echo "lda_ranks.sh: unknown part $part (nyt, big, imdb)" >&2; exit 2 ;;
  esac
  for K in $ks; do
    header
    train "$part-K$K-1gpu" "$input" "$K" 1 0
    base=$(mtps "$logs/$part-K$K-1gpu.log")
    for R in $ranks; do
      if [ "$R" -gt "$gpus" ]; then
        echo "| $part-K$K-${R}gpus | left out: $gpus GPU(s) on this host |"
        continue
      fi
      for ex in $exchanges; do
        suffix=$([ "$ex" = auto ] || echo "-$ex")
        train "$part-K$K-${R}gpus$suffix" "$input" "$K" "$R" "$base" --gpus "$R" --rank-exchange "$ex"
      done
    done
  done
done
