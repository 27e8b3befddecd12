#!/usr/bin/env bash
# The held-out score's fold-in sweeps as a user meets them (ctest: sk_lda_heldout_cli, label cpu).
#  1. train's summary names its fold-in sweeps: 10 by default at K <= 10,000, N with --heldout-sweeps N;
#  2. eval reproduces train's figure with the same sweeps (its default, and -n N), to the printed digits;
#  3. --heldout-sweeps 0, -1 or not a number exits 2 naming the option, and train --help describes it.
# usage: heldout_cli.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2
source "$(dirname "$0")/lda_cli_common.sh"  # fail, the corpus in $work/corpus, small_train

corpus=(--docword "$work/corpus/docword.synthetic.txt" --vocab "$work/corpus/vocab.synthetic.txt")
train() { "${small_train[@]}" -n 10 "$@"; }
heldout_of() { sed -n 's/.*held-out LL\/token \([-0-9.]*\) .*/\1/p' "$1" | head -1; }

# 1 and 2: the default, then 3 sweeps.
train --out "$work/d" >"$work/d.log" 2>&1 || fail "train failed: $(tail -3 "$work/d.log")"
grep -q 'held-out LL/token [-0-9.]* (perplexity [0-9.]*, [0-9]* documents, 12 fold-in sweeps)' "$work/d.log" ||
  fail "train's summary does not name 12 fold-in sweeps: $(grep held-out "$work/d.log")"
"$sk_lda" eval --model "$work/d/model.skl" "${corpus[@]}" >"$work/d.eval" 2>&1 || fail "eval failed: $(cat "$work/d.eval")"
grep -q ', 12 fold-in sweeps$' "$work/d.eval" || fail "eval's default is not 12 sweeps: $(cat "$work/d.eval")"
[ "$(heldout_of "$work/d.log")" = "$(heldout_of "$work/d.eval")" ] ||
  fail "train printed $(heldout_of "$work/d.log"), eval $(heldout_of "$work/d.eval")"

train --heldout-sweeps 3 --out "$work/t" >"$work/t.log" 2>&1 || fail "train --heldout-sweeps 3: $(tail -3 "$work/t.log")"
grep -q ', 3 fold-in sweeps)' "$work/t.log" || fail "train's summary does not name 3 sweeps: $(grep held-out "$work/t.log")"
"$sk_lda" eval --model "$work/t/model.skl" "${corpus[@]}" -n 3 >"$work/t.eval" 2>&1 || fail "eval -n 3: $(cat "$work/t.eval")"
[ "$(heldout_of "$work/t.log")" = "$(heldout_of "$work/t.eval")" ] ||
  fail "train --heldout-sweeps 3 printed $(heldout_of "$work/t.log"), eval -n 3 $(heldout_of "$work/t.eval")"
[ "$(heldout_of "$work/t.log")" != "$(heldout_of "$work/d.log")" ] || fail "3 sweeps scored as 10 did"

# 3. Bad values.
for bad in 0 -1 x; do
  train --heldout-sweeps "$bad" >"$work/bad.out" 2>"$work/bad.err"
  rc=$?
  [ "$rc" = 2 ] || fail "--heldout-sweeps $bad exited $rc, want 2"
  grep -q -- '--heldout-sweeps' "$work/bad.err" || fail "--heldout-sweeps $bad: the message does not name it: $(cat "$work/bad.err")"
done
help=$("$sk_lda" train --help) || fail "train --help failed"  # not piped into grep -q: pipefail and SIGPIPE
grep -q -- '--heldout-sweeps N' <<<"$help" || fail "train --help does not describe --heldout-sweeps"
echo "ok: the held-out score's fold-in sweeps"
