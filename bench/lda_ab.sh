#!/usr/bin/env bash
# Two builds of sk-lda on the same GPU in one call, run by run: for each corpus and K, bench/lda_gpu.sh's
# run (alpha = 50 / K, beta = 0.01, seed 1, --ll-every 10) with build A, then with build B, ROUNDS times
# in turn (so that a drift of clock or temperature falls on both), and one Markdown row: each build's
# Mtok/s over sweeps 11-N in every round, B / A of their medians, and each build's LL at sweep N (equal
# when B changed nothing in what is drawn). The rows are also appended to $LOGS/ab.md as they come.
#   usage: bash bench/lda_ab.sh BUILD_A BUILD_B [DATA_DIR] [K list, default "100 1024 10000"] [sweeps, default 100]
#     CORPORA  default "kos nips12 20news nyt" (nyt: lda_gpu.sh's NYTimes-scale corpus, generated once by
#              build B into $LOGS/nyt);  ROUNDS  default 2;  LOGS  default /tmp/sk-lda-ab
set -uo pipefail
a=$1
b=$2
data=${3:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
ks=${4:-100 1024 10000}
sweeps=${5:-100}
rounds=${ROUNDS:-2}
logs=${LOGS:-/tmp/sk-lda-ab}
here=$(dirname "$0")
mkdir -p "$logs"

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

header="| corpus | K | A Mtok/s (rounds) | B Mtok/s (rounds) | B / A (medians) | LL@$sweeps A | LL@$sweeps B |"
echo "$header"
echo "|---|---:|---|---|---:|---:|---:|"
[ -f "$logs/ab.md" ] || printf '%s\n|---|---:|---|---|---:|---:|---:|\n' "$header" >"$logs/ab.md"
for corpus in ${CORPORA:-kos nips12 20news nyt}; do
  for K in $ks; do
    ra=() rb=() lla="" llb=""
    for ((r = 0; r < rounds; ++r)); do
      for side in b a; do  # B first: it generates the nyt corpus once
        build=$a
        [ "$side" = b ] && build=$b
        row=$(CORPORA=$corpus BIG_K= LOGS=$logs bash "$here/lda_gpu.sh" "$build" "$data" "$K" "$sweeps" | tail -1)
        mtps=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $5); print $5 }')
        ll=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $10); print $10 }')
        case "$mtps" in ""|*[!0-9.]*) mtps=0 ;; esac
        if [ "$side" = a ]; then ra+=("$mtps"); lla=$ll; else rb+=("$mtps"); llb=$ll; fi
      done
    done
    ma=$(median "${ra[@]}")
    mb=$(median "${rb[@]}")
    ratio=$(awk -v x="$ma" -v y="$mb" 'BEGIN { printf "%.3f", (x > 0 ? y / x : 0) }')
    line="| $corpus | $K | ${ra[*]} | ${rb[*]} | $ratio | $lla | $llb |"
    echo "$line"
    echo "$line" >>"$logs/ab.md"
  done
done
