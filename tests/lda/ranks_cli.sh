#!/usr/bin/env bash
# sk-lda train --gpus N through the CLI (ctest: sk_lda_ranks_cli, label gpu; exit 77 without a GPU). On a
# small generated corpus:
#  1. --gpus 1 --nccl (the launcher, one rank, a NCCL communicator of one) writes the plain single-GPU
#     run's files byte for byte (model.skl, topics.txt, theta.txt, z.bin) and the same metrics.csv rows
#     (iteration and log-likelihoods; the clock columns differ);
#  2. checkpoints cross paths: a run stopped after 3 sweeps on one path and resumed on the other ends with
#     the uninterrupted run's files, both ways; with 2 and 4 GPUs (where the host has them) --gpus R
#     gives those files too, and its checkpoint resumes with --gpus 1 --nccl and on the plain path;
#  3. a rank killed mid-run (SIGKILL) ends the run within the launcher's grace time, exit 1, with a message
#     that names the rank and the kept checkpoint, which resumes to an uninterrupted run's files (one GPU:
#     the only rank; two or more: rank 1, while rank 0 waits in a collective);
#  4. --gpus with --device cpu, --sampler cgs or --gpu-sweep exact exits 2.
# usage: ranks_cli.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2

source "$(dirname "$0")/lda_cli_common.sh"
train=("${small_train[@]}" --ll-every 3)
rows() { cut -d, -f1,4,5 "$1"; }

if ! "${train[@]}" --device gpu -n 6 --out "$work/plain" >"$work/plain.log" 2>&1; then
  if grep -q "no CUDA GPU" "$work/plain.log"; then echo "SKIP: no GPU"; exit 77; fi
  fail "the plain run failed: $(tail -3 "$work/plain.log")"
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 1 ] 2>/dev/null || gpus=1
echo "$gpus GPUs here"

# 1. one rank through NCCL = the plain path
"${train[@]}" --gpus 1 --nccl -n 6 --out "$work/nccl1" >"$work/nccl1.log" 2>&1 ||
  fail "--gpus 1 --nccl failed: $(tail -3 "$work/nccl1.log")"
grep -q "on 1 GPUs through NCCL" "$work/nccl1.log" || fail "--nccl did not take the rank path: $(grep -m1 training "$work/nccl1.log")"
same_files nccl1 plain
[ "$(rows "$work/nccl1/metrics.csv")" = "$(rows "$work/plain/metrics.csv")" ] ||
  fail "metrics.csv rows differ: $(diff <(rows "$work/nccl1/metrics.csv") <(rows "$work/plain/metrics.csv"))"
echo "ok: metrics.csv rows equal"

# 2. checkpoints across paths and rank counts
resume_case() { # NAME FIRST_ARGS... -- SECOND_ARGS...
  local name=$1
  shift
  local first=() second=()
  while [ "$1" != "--" ]; do first+=("$1"); shift; done
  shift
  second=("$@")
  "${train[@]}" "${first[@]}" -n 3 --out "$work/$name" >"$work/$name.1.log" 2>&1 ||
    fail "$name: the first half failed: $(tail -3 "$work/$name.1.log")"
  "${train[@]}" "${second[@]}" --resume "$work/$name" -n 6 >"$work/$name.2.log" 2>&1 ||
    fail "$name: the resumed half failed: $(tail -3 "$work/$name.2.log")"
  same_files "$name" plain
}
resume_case nccl_then_plain --gpus 1 --nccl -- --device gpu
resume_case plain_then_nccl --device gpu -- --gpus 1 --nccl
for R in 2 4; do
  if [ "$gpus" -lt "$R" ]; then echo "--gpus $R: this host has $gpus GPUs: left out"; continue; fi
  "${train[@]}" --gpus "$R" -n 6 --out "$work/g$R" >"$work/g$R.log" 2>&1 || fail "--gpus $R failed: $(tail -3 "$work/g$R.log")"
  same_files "g$R" plain
  resume_case "g${R}_then_nccl1" --gpus "$R" -- --gpus 1 --nccl
  resume_case "g${R}_then_plain" --gpus "$R" -- --device gpu
  resume_case "plain_then_g$R" --device gpu -- --gpus "$R"
done

# 3. a rank killed mid-run
# children_of PID: its child processes' ids, oldest first (the launcher forks rank 0 first).
children_of() {
  if command -v pgrep >/dev/null; then pgrep -P "$1" | sort -n; return; fi
  local p
  for p in /proc/[0-9]*; do
    [ "$(awk '{print $4}' "$p/stat" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
  done | sort -n
}
kill_case() { # NAME GPUS RANK_TO_KILL
  local name=$1 R=$2 victim=$3 dir="$work/$1"
  local args=(--gpus "$R")
  [ "$R" -eq 1 ] && args+=(--nccl)
  "${train[@]}" "${args[@]}" -n 1000000 --checkpoint-every 1 --out "$dir" >"$dir.log" 2>&1 &
  local launcher=$!
  for _ in $(seq 1 600); do [ -f "$dir/checkpoint.skc" ] && break; sleep 0.1; done
  [ -f "$dir/checkpoint.skc" ] || { kill -9 "$launcher"; fail "$name: no checkpoint after 60 s: $(tail -3 "$dir.log")"; }
  sleep 0.5
  local ranks=($(children_of "$launcher"))
  [ "${#ranks[@]}" -eq "$R" ] || { kill -9 "$launcher"; fail "$name: ${#ranks[@]} ranks, expected $R"; }
  local t0
  t0=$(now_ms)
  kill -9 "${ranks[$victim]}"
  wait "$launcher"
  local rc=$? ms=$(($(now_ms) - t0))
  [ "$rc" -eq 1 ] || fail "$name: the launcher exited $rc, expected 1: $(tail -3 "$dir.log")"
  [ "$ms" -le 12000 ] || fail "$name: the run took $ms ms to end after the kill"
  grep -q "rank $victim (GPU $victim) was killed by signal 9" "$dir.log" || fail "$name: no message naming rank $victim: $(tail -3 "$dir.log")"
  grep -q "the last checkpoint is kept" "$dir.log" || fail "$name: the kept checkpoint is not named: $(tail -3 "$dir.log")"
  for p in "${ranks[@]}"; do kill -0 "$p" 2>/dev/null && fail "$name: rank process $p is left running"; done
  echo "ok: $name: rank $victim killed, the run ended in $ms ms: $(grep -m1 "was killed" "$dir.log")"
  local done_sweeps
  done_sweeps=$(od -An -t u8 -j 72 -N 8 "$dir/checkpoint.skc" | tr -d ' ')
  local n=$((done_sweeps + 2))
  "${train[@]}" --device gpu --resume "$dir" -n "$n" >"$dir.resume.log" 2>&1 ||
    fail "$name: resuming failed: $(tail -3 "$dir.resume.log")"
  "${train[@]}" --device gpu -n "$n" --out "$dir.ref" >"$dir.ref.log" 2>&1 || fail "$name: the reference run failed"
  same_files "$name" "$name.ref"
}
kill_case kill_one 1 0
if [ "$gpus" -ge 2 ]; then kill_case kill_rank1_of_2 2 1; else echo "kill with 2 GPUs: this host has $gpus: left out"; fi

# 4. bad combinations
for bad in "--device cpu" "--sampler cgs" "--gpu-sweep exact"; do
  # shellcheck disable=SC2086
  "${train[@]}" --gpus 2 $bad -n 2 >"$work/bad.log" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "--gpus 2 $bad: exit $rc, expected 2"
done
echo "ok: --gpus 2 with --device cpu, --sampler cgs, --gpu-sweep exact exit 2"
echo "PASS"
