#!/usr/bin/env bash
# sk-lda train's streamed GPU ESCA through the CLI (ctest: sk_lda_stream_resume, label gpu; exit 77
# without a GPU). On a small generated corpus, 6 sweeps:
#  1. --device-memory small enough to stream (many chunks) gives the files (model.skl, topics.txt,
#     theta.txt, z.bin) of the resident run, byte for byte, and says that it streamed;
#  2. a streamed run stopped after 3 sweeps and resumed (with another number of workers) ends with the
#     same files;
#  3. a budget too small for the model exits 2 with the bytes needed; bad --device-memory and --workers
#     values exit 2.
# usage: stream_resume.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2

source "$(dirname "$0")/lda_cli_common.sh"
train=("${small_train[@]}" --ll-every 3 --device gpu)

if ! "${train[@]}" -n 6 --out "$work/resident" >"$work/resident.log" 2>&1; then
  if grep -q "no CUDA GPU" "$work/resident.log"; then echo "SKIP: no GPU"; exit 77; fi
  fail "the resident run failed: $(tail -3 "$work/resident.log")"
fi
grep -q "streamed" "$work/resident.log" && fail "the resident run streamed: $(grep streamed "$work/resident.log")"

"${train[@]}" -n 6 --device-memory 512K --workers 3 --out "$work/streamed" >"$work/streamed.log" 2>&1 ||
  fail "the streamed run failed: $(tail -3 "$work/streamed.log")"
grep -q "streamed in [0-9]* chunks by 3 workers" "$work/streamed.log" ||
  fail "the 512 KiB run did not say it streamed with 3 workers: $(grep -i -m2 'esca\|stream' "$work/streamed.log")"
grep -m1 "streamed" "$work/streamed.log"
same_files streamed resident

"${train[@]}" -n 3 --device-memory 512K --workers 2 --out "$work/half" >"$work/half.log" 2>&1 ||
  fail "the first half failed: $(tail -3 "$work/half.log")"
"${train[@]}" --resume "$work/half" -n 6 --device-memory 512K --workers 4 >"$work/half2.log" 2>&1 ||
  fail "the resumed half failed: $(tail -3 "$work/half2.log")"
same_files half resident

# expect_usage NAME MESSAGE ARGS...: sk-lda train ARGS exits 2 and says MESSAGE.
expect_usage() {
  local name=$1 message=$2
  shift 2
  "${train[@]}" -n 2 "$@" --out "$work/$name" >"$work/$name.log" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2: $(tail -2 "$work/$name.log")"
  grep -q -- "$message" "$work/$name.log" || fail "$name: no '$message' in: $(tail -2 "$work/$name.log")"
  echo "ok: $name exits 2: $(grep -m1 -- "$message" "$work/$name.log" | cut -c1-160)"
}
expect_usage tiny "the model alone needs" --device-memory 10K
expect_usage bad_bytes "is not a byte count" --device-memory 12X
expect_usage bad_workers "--workers" --workers 17
echo "stream_resume: all checks passed"
