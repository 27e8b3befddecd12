#!/usr/bin/env bash
# Checkpoints and --resume across devices (ctest: sk_lda_cross_device_resume, label gpu; exit 77 without
# a GPU). On a small generated corpus, 10 sweeps:
#  1. --gpu-sweep exact is the CPU ESCA bit for bit: a GPU run, a GPU run resumed on the CPU after 5
#     sweeps and a CPU run resumed on the GPU after 5 all end with the files (model.skl, topics.txt,
#     theta.txt, z.bin) of an uninterrupted CPU run, byte for byte.
#  2. The fast float sweep: a GPU run resumed on the GPU equals an uninterrupted GPU run byte for byte;
#     resumed on the CPU (and a CPU run resumed on the GPU) it ends within the fast sweep's agreement with
#     the CPU: the joint log-likelihood per token within 0.5% of the uninterrupted runs' (the issue's bound
#     for two chains that differ only where a draw falls within float rounding of a boundary).
# usage: cross_device_resume.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2

source "$(dirname "$0")/lda_cli_common.sh"
train=("${small_train[@]}" --ll-every 5)

# run NAME ARGS...: one sk-lda train into $work/NAME (its log beside it); fails the test when it fails.
run() {
  local name=$1
  shift
  "${train[@]}" "$@" --out "$work/$name" >"$work/$name.log" 2>&1 ||
    fail "$name: sk-lda train $* failed: $(tail -3 "$work/$name.log")"
}
# resume NAME FROM ARGS...: copies run FROM to NAME and continues it to 10 sweeps there.
resume() {
  local name=$1 from=$2
  shift 2
  cp -r "$work/$from" "$work/$name" || fail "cannot copy $from"
  "${train[@]}" --resume "$work/$name" -n 10 "$@" >"$work/$name.log" 2>&1 ||
    fail "$name: --resume $* failed: $(tail -3 "$work/$name.log")"
}
# The joint LL per token at sweep 10 (metrics.csv's fourth column).
ll10() { awk -F, '$1 == 10 { print $4 }' "$work/$1/metrics.csv"; }
close_ll() {
  local a b
  a=$(ll10 "$1") b=$(ll10 "$2")
  [ -n "$a" ] && [ -n "$b" ] || fail "no LL at sweep 10 in $1 or $2"
  awk -v a="$a" -v b="$b" 'BEGIN { r = (a - b) / b; if (r < 0) r = -r; exit !(r <= 0.005) }' ||
    fail "$1's joint LL $a is not within 0.5% of $2's $b"
  echo "ok: $1's joint LL $a within 0.5% of $2's $b"
}

if ! "${train[@]}" -n 1 --device gpu --out "$work/probe" >"$work/probe.log" 2>&1; then
  if grep -q "no CUDA GPU" "$work/probe.log"; then echo "SKIP: no GPU"; exit 77; fi
  fail "the GPU probe run failed: $(tail -3 "$work/probe.log")"
fi

# 1. The exact sweep: every device, every resume, the CPU's bytes.
run cpu10 -n 10 --device cpu
run exact10 -n 10 --device gpu --gpu-sweep exact
same_files exact10 cpu10
run exact5 -n 5 --device gpu --gpu-sweep exact
resume exact5_cpu exact5 --device cpu
same_files exact5_cpu cpu10
run cpu5 -n 5 --device cpu
resume cpu5_exact cpu5 --device gpu --gpu-sweep exact
same_files cpu5_exact cpu10

# 2. The fast sweep: bit for bit on the GPU, the CPU's chain up to rounding across devices.
run fast10 -n 10 --device gpu
run fast5 -n 5 --device gpu
resume fast5_fast fast5 --device gpu
same_files fast5_fast fast10
resume fast5_cpu fast5 --device cpu
close_ll fast5_cpu fast10
close_ll fast5_cpu cpu10
resume cpu5_fast cpu5 --device gpu
close_ll cpu5_fast cpu10
close_ll cpu5_fast fast10
echo "cross-device resume: all checks passed"
