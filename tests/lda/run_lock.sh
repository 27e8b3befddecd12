#!/usr/bin/env bash
# A run folder has one writer at a time (ctest: sk_lda_run_lock, label cpu).
#  1. While a run writes DIR, a second `train --out DIR` (with or without --overwrite) and a `--resume DIR`
#     exit 2 naming DIR and the first run's process id, and leave its files alone.
#  2. A run killed (SIGKILL) before its first checkpoint leaves DIR unlocked: --resume DIR says there is
#     nothing to resume and that the original command starts it again; the original command does, says
#     so, and writes the bytes of a run that was never interrupted; no lock file is left behind.
#  3. A run killed after a checkpoint leaves DIR unlocked too: --resume DIR continues it; two --resumes
#     of one folder at once: the second exits 2 naming the first's process id.
#  4. A full disk at the first checkpoint (a link to /dev/full): exit 1, a message naming the folder, the
#     sweep and the lost sweeps, no temporary file left; the same command starts the run again.
# usage: run_lock.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2
. "$(dirname "$0")/lda_cli_common.sh"

started=()
# The runs this script started are ended with it, whatever happens.
cleanup() { for p in "${started[@]}"; do kill -KILL "$p" 2>/dev/null; done; }
trap cleanup EXIT

train=("${small_train[@]}" --threads 1)

# Starts "${train[@]}" "$@" in the background (log: $log), sets pid, and waits until the run holds the lock
# of $dir (its id in $dir/run.lock) and has logged its first sweep.
start_run() {
  "${train[@]}" "$@" >"$log" 2>&1 &
  pid=$!
  started+=("$pid")
  for _ in $(seq 1 3000); do
    if [ "$(cat "$dir/run.lock" 2>/dev/null)" = "$pid" ] && grep -q "^iteration 1/\|^resuming after" "$log"; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || fail "the run ended early: $(tail -3 "$log")"
    sleep 0.01
  done
  fail "the run did not lock $dir within 30 s: $(tail -3 "$log")"
}

# expect_refused WHAT ARGS...: "${train[@]}" ARGS exits 2 saying that $dir is in use by process $pid.
expect_refused() {
  local what=$1
  shift
  "${train[@]}" "$@" >"$work/second.log" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exit $rc while $dir is in use, expected 2: $(tail -3 "$work/second.log")"
  grep -q "$dir is in use by another sk-lda (process $pid)" "$work/second.log" ||
    fail "$what: the refusal does not name $dir and process $pid: $(cat "$work/second.log")"
  echo "ok: $what refused while process $pid writes $dir"
}

# --- 1. a second writer is refused ----------------------------------------------------------------
dir=$work/busy
log=$work/busy.log
start_run -n 1000000 --checkpoint-every 0 --out "$dir"
expect_refused "train --out" -n 5 --out "$dir"
expect_refused "train --out --overwrite" -n 5 --out "$dir" --overwrite
expect_refused "train --resume" -n 5 --resume "$dir"
kill -0 "$pid" 2>/dev/null || fail "the first run did not survive the second writers: $(tail -3 "$log")"
[ -f "$dir/metrics.csv" ] || fail "a refused writer removed the first run's metrics.csv"

# --- 2. killed before its first checkpoint: the same command starts it again ----------------------
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ ! -f "$dir/checkpoint.skc" ] || fail "the run wrote a checkpoint with --checkpoint-every 0 before its end"
"${train[@]}" -n 5 --resume "$dir" >"$work/early.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--resume of a run killed before its first checkpoint: exit $rc, expected 2"
grep -q "stopped before its first checkpoint, so there is nothing to resume; the command that started it" \
  "$work/early.log" || fail "--resume did not say that the original command starts the run again: $(cat "$work/early.log")"
"${train[@]}" -n 5 --out "$dir" >"$work/restart.log" 2>&1 ||
  fail "the original command did not start the killed run again: $(tail -3 "$work/restart.log")"
grep -q "^$dir: the run there stopped before its first checkpoint.*starting it again" "$work/restart.log" ||
  fail "the restart did not say so: $(cat "$work/restart.log")"
"${train[@]}" -n 5 --out "$work/fresh" >"$work/fresh.log" 2>&1 || fail "the reference run failed"
same_files busy fresh
[ ! -e "$dir/run.lock" ] || fail "a run that ended left $dir/run.lock"
echo "ok: a run killed before its first checkpoint starts again with the same command"

# --- 3. killed after a checkpoint: unlocked, resumed; two resumes at once -------------------------
dir=$work/ck
log=$work/ck.log
start_run -n 1000000 --checkpoint-every 1 --out "$dir"
for _ in $(seq 1 3000); do [ -f "$dir/checkpoint.skc" ] && break; sleep 0.01; done
[ -f "$dir/checkpoint.skc" ] || fail "no checkpoint within 30 s"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
log=$work/ck.resume.log
start_run -n 1000000 --checkpoint-every 0 --resume "$dir"
echo "ok: --resume after a SIGKILL took the lock ($(grep '^resuming after' "$log"))"
expect_refused "a second train --resume" -n 20 --resume "$dir"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
rc=$?
[ "$rc" -eq 143 ] || fail "the resumed run ended with $rc on SIGTERM, expected 143: $(tail -3 "$log")"
[ ! -e "$dir/run.lock" ] || fail "a run stopped by SIGTERM left $dir/run.lock"

# --- 4. a full disk at the first checkpoint ---------------------------------------------------------
# checkpoint.skc.tmp made a link to /dev/full once the run has started (before, the writability check
# would remove it): the first checkpoint's write fails with ENOSPC. The run exits 1 naming the folder, the
# sweep and that the sweeps are lost, leaves no temporary file, and the same command starts it again.
dir=$work/full
log=$work/full.log
if [ -w /dev/full ]; then
  start_run -n 1000000 --checkpoint-every 1500 --ll-every 500 --out "$dir"
  ln -s /dev/full "$dir/checkpoint.skc.tmp" || fail "cannot link $dir/checkpoint.skc.tmp to /dev/full"
  if [ -f "$dir/checkpoint.skc" ]; then
    echo "full disk: left out (the first checkpoint came before the fault: a machine far slower than planned)"
    kill -KILL "$pid"
  else
    wait "$pid" 2>/dev/null
    rc=$?
    [ "$rc" -eq 1 ] || fail "a checkpoint on a full disk: exit $rc, expected 1: $(tail -3 "$log")"
    grep -q "$dir: the checkpoint after sweep 1500 could not be written: .*No space left on device" "$log" ||
      fail "the failed checkpoint's message does not name the folder, the sweep and the error: $(tail -3 "$log")"
    grep -q "it had no checkpoint yet, so its 1500 sweeps are lost" "$log" ||
      fail "the failed checkpoint's message does not say what is lost: $(tail -3 "$log")"
    [ ! -e "$dir/checkpoint.skc.tmp" ] && [ ! -e "$dir/checkpoint.skc" ] && [ ! -e "$dir/run.lock" ] ||
      fail "a failed checkpoint left $(ls "$dir")"
    "${train[@]}" -n 5 --out "$dir" >"$work/full.again.log" 2>&1 ||
      fail "the same command did not start the run again: $(tail -3 "$work/full.again.log")"
    same_files full fresh
    echo "ok: a checkpoint on a full disk stops the run with exit 1, saying so; the same command starts again"
  fi
else
  echo "full disk: left out (no /dev/full)"
fi
echo "run lock: all checks passed"
