#!/usr/bin/env bash
# One device call for bench/pending/fold-u16.mbox: builds sk-lda and the two tests at BASE (the tree as
# copied) and at the series' two commits, runs test_warp_sorted_set and test_metrics_gpu on the series,
# then bench/lda_metrics_share.sh over the three builds (two repetitions). The series is applied with
# patch(1), so the copied tree needs no .git. SK_FOLD_DRY=1 stops after applying it (a check without a GPU).
#   usage: OUT=... bash bench/pending/fold-u16-check.sh DATA_DIR    (DATA_DIR: copies of ../shared/data)
# Logs go to $OUT (default /tmp/fold-u16). Not yet timed: three parallel builds, two tests and 12 runs.
set -uo pipefail
[ $# -eq 1 ] || { sed -n 2,8p "$0" >&2; exit 2; }
data=$(cd "$1" && pwd) || exit 2
OUT=${OUT:-/tmp/fold-u16}
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/../.." && pwd)
t0=$SECONDS
# Three source trees: the base (this tree), the first commit, both commits.
for v in u16 u16l1; do
  rm -rf "/tmp/src-$v" && mkdir -p "/tmp/src-$v"
  tar -C "$root" --exclude=./build --exclude=./.data --exclude=./gpu-out -cf - . | tar -xf - -C "/tmp/src-$v"
done
# git am needs a repository: the series' patches applied with patch(1) instead, split at each 'From '.
csplit -s -z -f /tmp/fold-u16-part "$root/bench/pending/fold-u16.mbox" '/^From [0-9a-f]\{40\} /' '{*}' || exit 1
parts=(/tmp/fold-u16-part*)
[ ${#parts[@]} -eq 2 ] || { echo "expected 2 patches in the series, found ${#parts[@]}" >&2; exit 1; }
(cd /tmp/src-u16 && patch -s -p1 <"${parts[0]}") || { echo "patch 1 failed on /tmp/src-u16" >&2; exit 1; }
(cd /tmp/src-u16l1 && patch -s -p1 <"${parts[0]}" && patch -s -p1 <"${parts[1]}") ||
  { echo "patches failed on /tmp/src-u16l1" >&2; exit 1; }
rm -f /tmp/fold-u16-part*
if [ "${SK_FOLD_DRY:-0}" = 1 ]; then echo "series applied to /tmp/src-u16 and /tmp/src-u16l1"; exit 0; fi
build() {  # build SRC TARGETS...: Release sm_90, docs and benchmarks off
  local src=$1
  shift
  cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSAMPLEKIT_BUILD_DOCS=OFF \
    -DSAMPLEKIT_BUILD_BENCH=OFF >"$OUT/build-$(basename "$src").log" 2>&1 &&
    cmake --build "$src/build" --target "$@" -j5 >>"$OUT/build-$(basename "$src").log" 2>&1
}
mkdir -p /tmp/src-base && tar -C "$root" --exclude=./build --exclude=./.data --exclude=./gpu-out -cf - . | tar -xf - -C /tmp/src-base
build /tmp/src-base sk-lda & b1=$!
build /tmp/src-u16 sk-lda & b2=$!
build /tmp/src-u16l1 sk-lda test_warp_sorted_set test_metrics_gpu & b3=$!
ok=1
for b in $b1 $b2 $b3; do wait "$b" || ok=0; done
echo "builds: $([ $ok = 1 ] && echo ok || echo FAILED) in $((SECONDS - t0)) s"
[ $ok = 1 ] || { tail -20 "$OUT"/build-*.log; exit 1; }
for t in test_warp_sorted_set lda/test_metrics_gpu; do
  /tmp/src-u16l1/build/tests/$t >"$OUT/$(basename $t).log" 2>&1
  echo "$t: rc=$? $(tail -1 "$OUT/$(basename $t).log")"
done
grep -E "comparisons of 16-bit|windows had" "$OUT/test_metrics_gpu.log"
mkdir -p /tmp/fold-ab
for v in base u16 u16l1; do ln -sfn "/tmp/src-$v/build" "/tmp/fold-ab/$v"; done
for rep in 1 2; do
  echo "== share, repetition $rep, at $((SECONDS - t0)) s"
  CORPORA=${CORPORA:-"nips12 20news"} LOGS=/tmp/fold-share$rep bash "$root/bench/lda_metrics_share.sh" "$data" "1024 10000" 100 \
    /tmp/fold-ab/base /tmp/fold-ab/u16 /tmp/fold-ab/u16l1 | tee "$OUT/share$rep.md"
done
echo "done in $((SECONDS - t0)) s"
