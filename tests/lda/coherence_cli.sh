#!/usr/bin/env bash
# sk-lda eval --coherence as a user meets it (ctest: sk_lda_coherence_cli, label cpu).
#  1. On a small generated corpus and a model trained on it: exit 0, one line "topic k: umass X npmi Y  words"
#     per topic with the model's top words in topics.txt's order, then the means; NPMI in [-1, 1], no NaN.
#  2. --coherence-out writes the CSV (header, one row per topic, the printed values); the lines and the CSV
#     are the same for 1 and 3 threads.
#  3. Bad usage exits 2 naming the option: --coherence out of [2, 100] or not a number, --coherence-out
#     without --coherence, a held-out option (--seed, --test-fraction, --iters) with --coherence, an
#     unwritable --coherence-out; nothing is written then.
#  4. eval without --coherence still prints the held-out LL and no coherence line.
# usage: coherence_cli.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2

fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
"$sk_lda" gen --out "$work" --name c --docs 200 --words 300 --topics 5 --mean-length 40 --seed 11 >/dev/null ||
  fail "gen failed"
corpus=(--docword "$work/docword.c.txt" --vocab "$work/vocab.c.txt")
"$sk_lda" train "${corpus[@]}" -k 5 -n 20 --seed 3 --threads 2 --top 6 --out "$work/run" >"$work/train.log" 2>&1 ||
  fail "train failed: $(tail -3 "$work/train.log")"
eval_c=("$sk_lda" eval --model "$work/run/model.skl" "${corpus[@]}")

# 1. The lines.
"${eval_c[@]}" --coherence 6 --coherence-out "$work/c1.csv" --threads 1 >"$work/out1.txt" 2>"$work/err1.txt" ||
  fail "eval --coherence 6 exited $?: $(cat "$work/err1.txt")"
[ "$(grep -c '^topic [0-9]*: umass -\?[0-9.]* npmi -\?[0-9.]*  ' "$work/out1.txt")" = 5 ] ||
  fail "not 5 topic lines: $(cat "$work/out1.txt")"
grep -q '^coherence over 5 topics (top 6 words, 200 documents): mean umass -\?[0-9.]* mean npmi -\?[0-9.]*' \
  "$work/out1.txt" || fail "no mean line: $(cat "$work/out1.txt")"
grep -qi 'nan\|inf' "$work/out1.txt" && fail "a NaN or infinity: $(cat "$work/out1.txt")"
grep -q 'held-out' "$work/out1.txt" && fail "--coherence also printed the held-out LL"
awk '/^topic / { if ($6 < -1 || $6 > 1) exit 1 }' "$work/out1.txt" || fail "an NPMI out of [-1, 1]"
# The words are topics.txt's top words of each topic, in its order.
for k in 0 1 2 3 4; do
  want=$(awk -v k="$k" '/^topic /{t = $2} t == k && /^\t/{printf "%s ", $1}' "$work/run/topics.txt")
  got=$(grep "^topic $k: " "$work/out1.txt" | sed 's/^topic [0-9]*: umass [^ ]* npmi [^ ]*  //')
  [ "$got " = "$want" ] || fail "topic $k: words '$got', topics.txt has '$want'"
done

# 2. The CSV; the same for 3 threads.
[ "$(head -1 "$work/c1.csv")" = "topic,umass,npmi,top_words" ] || fail "CSV header: $(head -1 "$work/c1.csv")"
[ "$(wc -l <"$work/c1.csv")" = 6 ] || fail "CSV rows: $(cat "$work/c1.csv")"
line_u=$(grep '^topic 2: ' "$work/out1.txt" | awk '{print $4}')
csv_u=$(awk -F, 'NR == 4 {printf "%.4f", $2}' "$work/c1.csv")
[ "$line_u" = "$csv_u" ] || fail "topic 2: the line says umass $line_u, the CSV $csv_u"
"${eval_c[@]}" --coherence 6 --coherence-out "$work/c3.csv" --threads 3 >"$work/out3.txt" 2>&1 || fail "3 threads"
cmp -s "$work/c1.csv" "$work/c3.csv" || fail "the CSV differs between 1 and 3 threads"
diff <(grep '^topic' "$work/out1.txt") <(grep '^topic' "$work/out3.txt") >/dev/null ||
  fail "the topic lines differ between 1 and 3 threads"

# 3. Bad usage: exit 2, the option named, no CSV written.
expect_usage() { # expect_usage REGEX ARGS...: exit 2 with stderr matching REGEX
  local regex=$1
  shift
  "${eval_c[@]}" "$@" >"$work/bad.out" 2>"$work/bad.err"
  local rc=$?
  [ "$rc" = 2 ] || fail "exit $rc, want 2: eval $*"
  grep -q -- "$regex" "$work/bad.err" || fail "stderr does not match '$regex': $(cat "$work/bad.err")"
  grep -q '^topic' "$work/bad.out" && fail "topic lines printed for bad usage: eval $*"
  return 0
}
expect_usage "--coherence: '1' is not a whole number in \[2, 100\]" --coherence 1
expect_usage "--coherence: '101' is not a whole number in \[2, 100\]" --coherence 101
expect_usage "--coherence: 'ten'" --coherence ten
expect_usage "--coherence-out applies to --coherence N only" --coherence-out "$work/bad.csv"
expect_usage "--seed applies to the held-out LL, not to --coherence" --coherence 5 --seed 4
expect_usage "--test-fraction applies to the held-out LL" --coherence 5 --test-fraction 0.2
expect_usage "--iters applies to the held-out LL" --coherence 5 -n 3
expect_usage "--coherence-out: .*no-such-dir" --coherence 5 --coherence-out "$work/no-such-dir/c.csv"
[ -e "$work/bad.csv" ] && fail "a refused eval wrote $work/bad.csv"

# 4. Without --coherence: the held-out LL as before, no coherence line.
"${eval_c[@]}" >"$work/heldout.txt" 2>&1 || fail "eval without --coherence: $(cat "$work/heldout.txt")"
grep -q '^held-out LL/token [-0-9.]* (perplexity' "$work/heldout.txt" || fail "no held-out LL: $(cat "$work/heldout.txt")"
grep -q 'umass\|npmi' "$work/heldout.txt" && fail "eval without --coherence printed coherence"
help=$("$sk_lda" eval --help) || fail "eval --help failed"
grep -q -- '--coherence N' <<<"$help" || fail "eval --help does not describe --coherence"
echo "ok: sk-lda eval --coherence"
