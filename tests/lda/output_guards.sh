#!/usr/bin/env bash
# sk-lda's outputs never destroy what the user has (ctest: sk_lda_output_guards, label cpu):
#  1. infer --out and eval --coherence-out naming an input (the model, the corpus, the vocabulary; also
#     through a link) exit 2 naming both, and the input is unchanged;
#  2. train --out DIR where DIR holds files of a run's names that no killed run left (a metrics.csv of the
#     user's, a z.bin, an export's phi.npy: no run.lock) exits 2 and removes nothing;
#  3. export refuses a DIR that holds phi.npy or vocab.txt unless --overwrite, which replaces them and
#     removes a vocab.txt that a model without a vocabulary would leave stale; it never writes over the
#     model it reads;
#  4. a result printed to stdout that cannot be written (/dev/full) exits 1 saying so (eval, topics);
#  5. eval --skip-unknown says how many tokens it dropped, as infer does; a --docword corpus read without
#     --vocab whose header declares another W than the model's V, for a model with a vocabulary, gets a
#     note (its ids are taken as the model's);
#  6. --device cpu --sampler aga exits 2 before the corpus is read, like --device gpu --sampler cgs.
# usage: output_guards.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2
. "$(dirname "$0")/lda_cli_common.sh"

corpus=(--docword "$work/corpus/docword.synthetic.txt" --vocab "$work/corpus/vocab.synthetic.txt")
"$sk_lda" train "${corpus[@]}" -k 4 -n 2 --seed 7 --device cpu --out "$work/run" >"$work/train.log" 2>&1 ||
  fail "train failed: $(tail -3 "$work/train.log")"
model=$work/run/model.skl
cp "$model" "$work/model.copy"

unchanged() { cmp -s "$1" "$2" || fail "$1 was changed"; }

# --- 1. an output that is an input ------------------------------------------------------------------------
expect 2 "sk-lda infer: --out .*model.skl is the --model file" "$sk_lda" infer -m "$model" "${corpus[@]}" --out "$model"
unchanged "$model" "$work/model.copy"
cp "$work/corpus/vocab.synthetic.txt" "$work/vocab.copy"
expect 2 "is the --vocab file" "$sk_lda" infer -m "$model" "${corpus[@]}" --out "$work/corpus/vocab.synthetic.txt"
unchanged "$work/corpus/vocab.synthetic.txt" "$work/vocab.copy"
cp "$work/corpus/docword.synthetic.txt" "$work/docword.copy"
ln -s "$work/corpus/docword.synthetic.txt" "$work/link.txt"
expect 2 "--out .*link.txt is the --docword file" "$sk_lda" infer -m "$model" "${corpus[@]}" --out "$work/link.txt"
unchanged "$work/corpus/docword.synthetic.txt" "$work/docword.copy"
expect 2 "sk-lda eval: --coherence-out .*model.skl is the --model file" "$sk_lda" eval --model "$model" "${corpus[@]}" \
  --coherence 3 --coherence-out "$model"
unchanged "$model" "$work/model.copy"
echo "ok: infer --out and eval --coherence-out that name an input are refused, the input kept"

# --- 2. train --out over files no killed run left --------------------------------------------------------
mkdir -p "$work/mine"
echo "my,own,metrics" >"$work/mine/metrics.csv"
echo "mine" >"$work/mine/z.bin"
expect 2 "sk-lda train: --out .*mine already holds a run \\(metrics.csv is there\\)" "$sk_lda" train "${corpus[@]}" \
  -k 4 -n 2 --device cpu --out "$work/mine"
[ "$(cat "$work/mine/metrics.csv")" = "my,own,metrics" ] && [ "$(cat "$work/mine/z.bin")" = "mine" ] ||
  fail "train --out removed or changed the user's files"
"$sk_lda" export "$model" --out "$work/exported" >/dev/null || fail "export failed"
expect 2 "already holds a run \\(phi.npy is there\\)" "$sk_lda" train "${corpus[@]}" -k 4 -n 2 --device cpu \
  --out "$work/exported"
echo "ok: train --out keeps a folder whose run files no killed run left"

# --- 3. export over files already there --------------------------------------------------------------------
cp "$work/exported/phi.npy" "$work/phi.copy"
"$sk_lda" train --docword "$work/corpus/docword.synthetic.txt" -k 3 -n 2 --seed 3 --device cpu \
  --out "$work/novocab" >/dev/null 2>&1 || fail "train without a vocabulary failed"
expect 2 "sk-lda export: --out: .*exported/phi.npy exists \\(--overwrite replaces it\\)" "$sk_lda" export \
  "$work/novocab/model.skl" --out "$work/exported"
unchanged "$work/exported/phi.npy" "$work/phi.copy"
expect 0 "" "$sk_lda" export "$work/novocab/model.skl" --out "$work/exported" --overwrite
cmp -s "$work/exported/phi.npy" "$work/novocab/phi.npy" && [ ! -e "$work/exported/vocab.txt" ] ||
  fail "export --overwrite of a model without a vocabulary: not its phi.npy alone ($(ls "$work/exported"))"
mkdir -p "$work/self"
cp "$model" "$work/self/phi.npy"
expect 2 "sk-lda export: --out: .*self/phi.npy is the input file" "$sk_lda" export "$work/self/phi.npy" \
  --out "$work/self" --overwrite
unchanged "$work/self/phi.npy" "$work/model.copy"
echo "ok: export refuses files already there, --overwrite replaces them (a stale vocab.txt removed)"

# --- 4. stdout that cannot be written --------------------------------------------------------------------
if [ -w /dev/full ]; then
  rc=0
  "$sk_lda" eval --model "$model" "${corpus[@]}" >/dev/full 2>"$work/err.txt" || rc=$?
  [ $rc -eq 1 ] && grep -q "sk-lda eval: writing to stdout failed" "$work/err.txt" ||
    fail "eval >/dev/full: exit $rc, $(cat "$work/err.txt")"
  rc=0
  "$sk_lda" topics "$model" >/dev/full 2>"$work/err.txt" || rc=$?
  [ $rc -eq 1 ] && grep -q "sk-lda topics: writing to stdout failed" "$work/err.txt" ||
    fail "topics >/dev/full: exit $rc, $(cat "$work/err.txt")"
  echo "ok: a result that cannot be written to stdout exits 1"
else
  echo "stdout to /dev/full: left out (no /dev/full)"
fi

# --- 5. what eval drops or assumes, said ---------------------------------------------------------------
cp "$work/corpus/vocab.synthetic.txt" "$work/vocab801.txt"
echo "zzz_not_in_the_model" >>"$work/vocab801.txt"
printf '2\n801\n4\n1 1 2\n1 801 3\n2 5 4\n2 801 1\n' >"$work/unknown.txt"
expect 0 "sk-lda eval: dropped 4 tokens of words the model does not know" "$sk_lda" eval --model "$model" \
  --docword "$work/unknown.txt" --vocab "$work/vocab801.txt" --skip-unknown --coherence 2
printf '2\n5\n3\n1 1 2\n1 3 1\n2 5 4\n' >"$work/w5.txt"
expect 0 "sk-lda eval: note: .*w5.txt declares 5 words and the model has 800 with a vocabulary of its own" \
  "$sk_lda" eval --model "$model" --docword "$work/w5.txt" --coherence 2
expect 0 "sk-lda infer: note: .*w5.txt declares 5 words" "$sk_lda" infer --model "$model" --docword "$work/w5.txt" \
  --out "$work/w5_theta.txt"
expect 0 "" "$sk_lda" eval --model "$model" "${corpus[@]}" --coherence 2
grep -q "note:" "$work/err.txt" && fail "eval with the model's vocabulary printed a note: $(cat "$work/err.txt")"
echo "ok: eval says what --skip-unknown dropped, and notes ids taken as the model's"

# --- 6. a sampler on a device it cannot run on -----------------------------------------------------------
expect 2 "sk-lda train: --device cpu: --sampler aga runs on the GPU only" "$sk_lda" train "${corpus[@]}" -k 4 -n 1 \
  --device cpu --sampler aga
grep -q "^read " "$work/out.txt" "$work/err.txt" && fail "--device cpu --sampler aga read the corpus before refusing"
echo "ok: --device cpu --sampler aga exits 2 before the corpus is read"
