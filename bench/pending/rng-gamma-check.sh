#!/usr/bin/env bash
# The device check for rng-gamma-boost-after.patch (not applied on main): one call, about 4 minutes on an
# H200 from cold. Builds bench_rng_gamma for main and for a copy of the tree with the patch, runs them
# alternately (A B A B), then the patched test_rng_gamma and test_metrics_gpu (the held-out fold-in draws
# its shared Gamma(alpha) variates with the header). Logs and a summary under $OUT.
#   usage: OUT=DIR bash bench/pending/rng-gamma-check.sh
# What the patch does (rng_gamma.h): the boost below a = 1 reads the first uniform after the accepted
# candidate's (most often the pair's unused fourth, of a block already computed) instead of the range's
# last (a block of its own), and the pair's sin is computed only when its first candidate is rejected
# (sinpi), so a >= 1 keeps its values and pays a cospi, not a sincospi. Expected, not measured: below a = 1
# one Philox block fewer a variate; at a = 100 the 3% that 70c718a lost back (bench/RESULTS.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${OUT:-/tmp/out}
mkdir -p "$O"
J=$(nproc)
P=/tmp/rng-gamma-patched
cmake --preset default -DSAMPLEKIT_BUILD_DOCS=OFF -DSAMPLEKIT_BUILD_BENCH=ON >"$O/build_main.log" 2>&1 &&
  cmake --build build -j"$J" --target bench_rng_gamma >>"$O/build_main.log" 2>&1 || { tail -20 "$O/build_main.log"; exit 1; }
rm -rf "$P" && mkdir -p "$P"
tar --exclude=./build --exclude=./.data --exclude=./.git -cf - . | tar -x -C "$P"
(cd "$P" && patch -p1 <bench/pending/rng-gamma-boost-after.patch >"$O/patch.log" 2>&1) || { cat "$O/patch.log"; exit 1; }
(cd "$P" && cmake --preset default -DSAMPLEKIT_BUILD_DOCS=OFF -DSAMPLEKIT_BUILD_BENCH=ON &&
  cmake --build build -j"$J" --target bench_rng_gamma test_rng_gamma test_metrics_gpu) >"$O/build_patched.log" 2>&1 ||
  { tail -20 "$O/build_patched.log"; exit 1; }
for round in 1 2; do
  build/bench/bench_rng_gamma --csv "$O/main_$round.csv" >"$O/main_$round.txt" 2>&1
  "$P/build/bench/bench_rng_gamma" --csv "$O/patched_$round.csv" >"$O/patched_$round.txt" 2>&1
done
"$P/build/tests/test_rng_gamma" >"$O/test_rng_gamma.log" 2>&1; echo "test_rng_gamma rc=$?" >"$O/summary.txt"
(cd "$P/build/tests/lda" && ./test_metrics_gpu >"$O/test_metrics_gpu.log" 2>&1); echo "test_metrics_gpu rc=$?" >>"$O/summary.txt"
grep -h "passed\|largest" "$O/test_rng_gamma.log" "$O/test_metrics_gpu.log" | tail -4 >>"$O/summary.txt"
for f in main_1 patched_1 main_2 patched_2; do echo "== $f"; cat "$O/$f.csv"; done >>"$O/summary.txt"
cat "$O/summary.txt"
