#!/usr/bin/env bash
# sk-lda runs that are interrupted end as uninterrupted runs do (ctest: sk_lda_kill_resume).
#  1. SIGKILL at random moments, the resumed runs too, until the run finishes: model.skl, topics.txt,
#     theta.txt and z.bin equal an uninterrupted run's byte for byte, metrics.csv has the same rows
#     (iteration and log-likelihoods; the seconds and speeds differ), and at every kill no file under
#     its name is half written and no temporary file is left once the run is done.
#  2. SIGINT and SIGTERM: exit 130 and 143, the message says how to resume, and resuming gives the same
#     bytes.
# usage: kill_resume.sh SK_LDA WORK_DIR [TRIALS]
set -uo pipefail
sk_lda=$1
work=$2
trials=${3:-6}
RANDOM=20261124 # the kill moments are random, but the same on every run of the test

fail() { echo "FAIL: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }

rm -rf "$work" && mkdir -p "$work/corpus" || fail "cannot make $work"
"$sk_lda" gen --out "$work/corpus" --docs 1500 --words 1500 --topics 12 --mean-length 100 --seed 3 >/dev/null ||
  fail "gen failed"
corpus=(--docword "$work/corpus/docword.synthetic.txt" --vocab "$work/corpus/vocab.synthetic.txt")
train=("$sk_lda" train "${corpus[@]}" -k 24 -n 60 --seed 9 --threads 2 --ll-every 5 --save-z --checkpoint-every 1 --sampler esca)
outputs=(model.skl topics.txt theta.txt z.bin)

t0=$(now_ms)
"${train[@]}" --out "$work/ref" >"$work/ref.log" 2>&1 || fail "the uninterrupted run failed: $(tail -3 "$work/ref.log")"
run_ms=$(($(now_ms) - t0))
echo "uninterrupted run: ${run_ms} ms"

# The rows of a metrics.csv without its clock columns (seconds, tokens/s, and the time columns from the
# sixth on: sample_s .. metrics_s, device_bytes_peak).
rows() { cut -d, -f1,4,5 "$1"; }

# Every file of the run folder is whole: metrics.csv lines all have thirteen fields and end in a newline; the
# binary files are checked by their CRC when read (the resume reads the checkpoint; eval the model).
check_whole() {
  local dir=$1
  if [ -f "$dir/metrics.csv" ]; then
    [ -z "$(tail -c1 "$dir/metrics.csv")" ] || fail "$dir/metrics.csv does not end in a newline"
    awk -F, 'NF != 13 { exit 1 }' "$dir/metrics.csv" || fail "$dir/metrics.csv has a line that is not 13 fields"
  fi
  if [ -f "$dir/model.skl" ]; then
    "$sk_lda" eval --model "$dir/model.skl" "${corpus[@]}" -n 1 >/dev/null 2>"$work/eval.err" ||
      fail "$dir/model.skl is not a whole model file: $(cat "$work/eval.err")"
  fi
}

compare_with_ref() {
  local dir=$1
  for f in "${outputs[@]}"; do
    cmp -s "$dir/$f" "$work/ref/$f" || fail "$dir/$f differs from the uninterrupted run's"
  done
  diff <(rows "$dir/metrics.csv") <(rows "$work/ref/metrics.csv") >/dev/null ||
    fail "$dir/metrics.csv has other rows than the uninterrupted run's"
  local left
  left=$(find "$dir" -name '*.tmp' | head -1)
  [ -z "$left" ] || fail "a temporary file is left: $left"
}

# --- 1. SIGKILL at random moments -----------------------------------------------------------------
kills_total=0
for trial in $(seq 1 "$trials"); do
  dir="$work/kill$trial"
  kills=0
  finished=0
  story=""
  killed=""
  for attempt in $(seq 1 20); do
    # Resume from the last checkpoint; a run killed before its first one starts again.
    cmd=("${train[@]}" --out "$dir" --overwrite)
    [ -f "$dir/checkpoint.skc" ] && cmd=("${train[@]}" --resume "$dir")
    t_start=$(now_ms)
    "${cmd[@]}" >"$dir.log" 2>&1 &
    pid=$!
    # A kill within the run's length (the first two attempts of each trial), then let it finish.
    if [ "$attempt" -le 2 ]; then
      delay_ms=$((RANDOM % (run_ms + 1)))
      sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
      kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1)) && killed=" killed at ${delay_ms} ms;"
    fi
    wait "$pid" 2>/dev/null
    rc=$?
    # A run that ended before its kill was faster than the uninterrupted one (which may have shared
    # the cores with other tests): later kills are drawn within the faster run's length.
    if [ -z "$killed" ] && [ "$rc" -eq 0 ]; then
      took_ms=$(($(now_ms) - t_start))
      [ "$took_ms" -lt "$run_ms" ] && run_ms=$took_ms
    fi
    from=$(sed -n 's/^resuming after sweep \([0-9]*\).*/\1/p' "$dir.log")
    story+="${from:+ resumed after sweep $from,}${killed:- ran to the end;}"
    killed=""
    if [ "$rc" -eq 0 ]; then finished=1; break; fi
    # Killed (137), or a kill that landed after the run's last checkpoint: the resume says it is done.
    if [ "$rc" -eq 2 ] && grep -q "has done 60 sweeps already" "$dir.log"; then finished=1; break; fi
    [ "$rc" -eq 137 ] || fail "trial $trial attempt $attempt: exit $rc: $(tail -3 "$dir.log")"
    check_whole "$dir"
  done
  [ "$finished" -eq 1 ] || fail "trial $trial never finished"
  compare_with_ref "$dir"
  echo "trial $trial:$story finished with the same bytes as the uninterrupted run"
  kills_total=$((kills_total + kills))
done
[ "$kills_total" -gt 0 ] || fail "no kill landed while a run was going on"

# --- 2. SIGINT and SIGTERM -------------------------------------------------------------------------
for sig in INT TERM; do
  dir="$work/sig$sig"
  want=$([ $sig = INT ] && echo 130 || echo 143)
  "${train[@]}" --out "$dir" >"$dir.log" 2>&1 &
  pid=$!
  # Once the first sweep is logged, so the signal lands inside the run.
  for _ in $(seq 1 500); do grep -q "iteration 1/" "$dir.log" 2>/dev/null && break; sleep 0.01; done
  kill -"$sig" "$pid"
  wait "$pid" 2>/dev/null
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "SIG$sig came after the last sweep: the run finished (exit 0)"
  else
    [ "$rc" -eq "$want" ] || fail "SIG$sig: exit $rc, expected $want: $(tail -3 "$dir.log")"
    grep -q "SIG$sig after sweep" "$dir.log" || fail "SIG$sig: no message: $(tail -3 "$dir.log")"
    grep -q "resume with: sk-lda train .* --resume $dir" "$dir.log" || fail "SIG$sig: no resume hint"
    check_whole "$dir"
    "${train[@]}" --resume "$dir" >>"$dir.log" 2>&1 || fail "SIG$sig: the resume failed: $(tail -3 "$dir.log")"
    echo "SIG$sig: exit $rc, resumed"
  fi
  compare_with_ref "$dir"
done
echo "kill and resume: all checks passed ($kills_total kills)"
