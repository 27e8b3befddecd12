#!/usr/bin/env bash
# sk-lda topics and sk-lda export on a small trained model (ctest: sk_lda_topics_export, label cpu).
#  1. topics prints the text form as train's topics.txt, byte for byte (default --top), and --top N, csv
#     and json forms of the right size (json valid by python3 -m json.tool where python3 exists);
#  2. --vocab FILE names the words: quotes, backslashes, commas, tabs, UTF-8 and a byte that is not UTF-8
#     come out as valid JSON (the same words read back, the bad byte as U+FFFD) and RFC 4180 CSV;
#  3. export writes phi.npy (the bytes train wrote beside model.skl) and vocab.txt (the training
#     vocabulary); a model without a vocabulary gets phi.npy alone, and its words print as w000123;
#  4. train --out writes phi.npy of shape (K, V); with --npy-limit below a file's size, neither .npy is
#     written, the log says why for each and its "wrote" line does not name them; the same model
#     otherwise (model.skl as without the limit), and export still writes phi.npy from it; --npy-limit 0
#     writes both; a bad --npy-limit exits 2 naming the option;
#  5. the user's mistakes exit 2 with a message naming the file or option: no or a missing model, a
#     corrupt, empty or folder model, --top 0, an unknown --format, a --vocab of the wrong length, export
#     without --out, an --out under a file and a phi.npy that is a folder.
# usage: topics_export.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2
. "$(dirname "$0")/lda_cli_common.sh"

K=24
V=800
vocab_file=$work/corpus/vocab.synthetic.txt
"${small_train[@]}" --device cpu -n 5 --out "$work/run" >"$work/train.log" 2>&1 ||
  fail "train failed: $(tail -3 "$work/train.log")"
model=$work/run/model.skl

# --- 1. the three forms ---------------------------------------------------------------------------------
expect 0 "" "$sk_lda" --help
grep -q "^  topics " "$work/out.txt" && grep -q "^  export " "$work/out.txt" ||
  fail "sk-lda --help lists no topics or export"
for cmd in topics export; do
  expect 0 "" "$sk_lda" $cmd --help
  grep -q "usage: sk-lda $cmd MODEL" "$work/out.txt" || fail "$cmd --help has no usage line"
done
expect 0 "" "$sk_lda" topics "$model"
cmp -s "$work/out.txt" "$work/run/topics.txt" || fail "topics' text differs from train's topics.txt"
expect 0 "" "$sk_lda" topics --top 3 "$model" --format text
[ "$(grep -c '^topic ' "$work/out.txt")" -eq $K ] && [ "$(grep -c $'^\t' "$work/out.txt")" -eq $((K * 3)) ] &&
  head -1 "$work/out.txt" | grep -q "top 3 words" || fail "topics --top 3: not $K topics of 3 words"
expect 0 "" "$sk_lda" topics "$model" --top 100000 -f text
[ "$(grep -c $'^\t' "$work/out.txt")" -eq $((K * V)) ] || fail "topics --top 100000: not V = $V words a topic"
expect 0 "" "$sk_lda" topics "$model" --top 4 --format csv
[ "$(head -1 "$work/out.txt")" = "topic,rank,word_id,word,count,phi" ] || fail "csv: wrong header"
[ "$(wc -l <"$work/out.txt")" -eq $((K * 4 + 1)) ] || fail "csv: not $((K * 4)) rows"
awk -F, 'NR > 1 && (NF != 6 || $2 < 1 || $2 > 4 || $1 != int((NR - 2) / 4)) { exit 1 }' "$work/out.txt" ||
  fail "csv: a row is not topic,rank,word_id,word,count,phi"
# The csv rows are the text form's words and counts in the same order (the phi values to their digits).
expect 0 "" "$sk_lda" topics "$model" --top 4 --format text
"$sk_lda" topics "$model" --top 4 --format csv | tail -n +2 | cut -d, -f4 >"$work/csv_words.txt"
grep $'^\t' "$work/out.txt" | cut -f2 | cmp -s - "$work/csv_words.txt" || fail "csv words differ from the text form's"
expect 0 "" "$sk_lda" topics "$model" --top 5 --format json
[ "$(grep -c '"rank": ' "$work/out.txt")" -eq $((K * 5)) ] && grep -q "\"num_topics\": $K, \"num_words\": $V" \
  "$work/out.txt" || fail "json: not $K topics of 5 words"
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1
if [ $have_python = 1 ]; then
  python3 -m json.tool "$work/out.txt" >/dev/null || fail "topics --format json is not valid JSON"
else
  echo "note: no python3, the JSON is not parsed"
fi

# --- 2. --vocab with words that need escaping --------------------------------------------------------------
{
  printf '%s\n' 'say"hi"' 'back\slash' 'comma,word' $'tab\there' 'ünïcødé' 'δ€𝄞' $'bad\xffbyte' $'ctl\x01x'
  for ((v = 8; v < V; ++v)); do echo "word$v"; done
} >"$work/odd_vocab.txt"
# --top V: every word is printed in every topic.
expect 0 "" "$sk_lda" topics "$model" --vocab "$work/odd_vocab.txt" --top $V --format json
cp "$work/out.txt" "$work/odd.json"
expect 0 "" "$sk_lda" topics "$model" --vocab "$work/odd_vocab.txt" --top $V --format csv
cp "$work/out.txt" "$work/odd.csv"
grep -q '"tab\\u0009here"' "$work/odd.json" && grep -q '"say\\"hi\\""' "$work/odd.json" &&
  grep -q '"bad\\ufffdbyte"' "$work/odd.json" && grep -q '"ctl\\u0001x"' "$work/odd.json" ||
  fail "json: a word is not escaped as it should be"
grep -q ',"say""hi""",' "$work/odd.csv" && grep -q ',"comma,word",' "$work/odd.csv" ||
  fail "csv: a word is not quoted as RFC 4180 says"
if [ $have_python = 1 ]; then
  python3 - "$work/odd.json" "$work/odd.csv" "$work/odd_vocab.txt" <<'EOF' || fail "the words do not read back"
import csv, json, sys
words = open(sys.argv[3], 'rb').read().split(b'\n')[:-1]
want = [w.decode('utf-8', errors='replace') for w in words]
doc = json.load(open(sys.argv[1], encoding='utf-8'))
for t in doc['topics']:
    for w in t['words']:
        assert w['word'] == want[w['word_id']], (w, want[w['word_id']])
    assert sorted(w['word_id'] for w in t['words']) == list(range(len(want)))
rows = list(csv.DictReader(open(sys.argv[2], encoding='utf-8', errors='replace', newline='')))
assert len(rows) == len(doc['topics']) * len(want)
for r in rows:
    assert r['word'] == want[int(r['word_id'])], (r, want[int(r['word_id'])])
EOF
fi
head -n 10 "$work/odd_vocab.txt" >"$work/short_vocab.txt"
expect 2 "sk-lda topics: --vocab: .*short_vocab.txt.*fewer than" "$sk_lda" topics "$model" \
  --vocab "$work/short_vocab.txt"
expect 2 "sk-lda topics: --vocab: .*nothere.txt" "$sk_lda" topics "$model" --vocab "$work/nothere.txt"

# --- 3, 4. export, and train's phi.npy --------------------------------------------------------------------
npy_size=$((128 + 4 * K * V))
[ "$(stat -c %s "$work/run/phi.npy")" -eq $npy_size ] || fail "train's phi.npy is not $npy_size bytes"
head -c 128 "$work/run/phi.npy" | grep -aq "{'descr': '<f4', 'fortran_order': False, 'shape': ($K, $V), }" ||
  fail "train's phi.npy header is not '<f4' ($K, $V)"
expect 0 "" "$sk_lda" export "$model" --out "$work/exp/a/b"
cmp -s "$work/exp/a/b/phi.npy" "$work/run/phi.npy" || fail "export's phi.npy differs from train's"
cmp -s "$work/exp/a/b/vocab.txt" "$vocab_file" || fail "export's vocab.txt is not the training vocabulary"
ls "$work/exp/a/b" | grep -q '\.tmp$' && fail "export left a temporary file"
"$sk_lda" train --docword "$work/corpus/docword.synthetic.txt" -k 3 -n 2 --seed 3 --device cpu \
  --out "$work/novocab" >"$work/novocab.log" 2>&1 || fail "train without a vocabulary failed"
expect 0 "" "$sk_lda" export "$work/novocab/model.skl" -o "$work/exp_novocab"
[ -f "$work/exp_novocab/phi.npy" ] && [ ! -e "$work/exp_novocab/vocab.txt" ] &&
  grep -q "no vocab.txt" "$work/out.txt" ||
  fail "export of a model without a vocabulary: not phi.npy alone"
cmp -s "$work/exp_novocab/phi.npy" "$work/novocab/phi.npy" || fail "export's phi.npy differs from train's (no vocab)"
expect 0 "" "$sk_lda" topics "$work/novocab/model.skl" --top 2 --format csv
sed -n 2p "$work/out.txt" | grep -Eq '^0,1,[0-9]+,w[0-9]{6},' || fail "words of a model without vocabulary: not w%06d"
# --npy-limit: phi.npy is 4 K V bytes of data, theta.npy 4 D K; a limit of 1 KiB is below both.
"${small_train[@]}" --device cpu -n 5 --out "$work/limited" --npy-limit 1K >"$work/limited.log" 2>&1 ||
  fail "train --npy-limit 1K failed: $(tail -3 "$work/limited.log")"
[ ! -e "$work/limited/phi.npy" ] && [ ! -e "$work/limited/theta.npy" ] ||
  fail "--npy-limit 1K: a .npy file was written: $(ls "$work/limited")"
grep -q "^phi.npy not written: K = $K topics x V = $V words would be .* more than 1.00 KiB (sk-lda train --npy-limit); .*sk-lda export" \
  "$work/limited.log" || fail "--npy-limit 1K: no line saying why phi.npy is not written: $(cat "$work/limited.log")"
grep -q "^theta.npy not written: .* documents x K = $K topics would be .* more than 1.00 KiB" "$work/limited.log" ||
  fail "--npy-limit 1K: no line saying why theta.npy is not written"
grep "^wrote " "$work/limited.log" | grep -q "npy" && fail "--npy-limit 1K: the wrote line names a .npy file"
cmp -s "$work/limited/model.skl" "$work/run/model.skl" || fail "--npy-limit changed model.skl"
expect 0 "" "$sk_lda" export "$work/limited/model.skl" --out "$work/exp_limited"
cmp -s "$work/exp_limited/phi.npy" "$work/run/phi.npy" || fail "export of the limited run's model: not train's phi.npy"
"${small_train[@]}" --device cpu -n 5 --out "$work/unlimited" --npy-limit 0 >"$work/unlimited.log" 2>&1 ||
  fail "train --npy-limit 0 failed"
cmp -s "$work/unlimited/phi.npy" "$work/run/phi.npy" && [ -f "$work/unlimited/theta.npy" ] ||
  fail "--npy-limit 0: phi.npy and theta.npy not as without a limit"
grep "^wrote " "$work/unlimited.log" | grep -q "phi.npy, theta.txt, theta.npy" || fail "--npy-limit 0: the wrote line"
expect 2 "sk-lda train: --npy-limit: '1X' is not a byte count" "${small_train[@]}" --device cpu --npy-limit 1X

# --- 5. the user's mistakes ---------------------------------------------------------------------------------
expect 2 "sk-lda topics: give the model file" "$sk_lda" topics
expect 2 "sk-lda topics: give one model file only" "$sk_lda" topics "$model" "$model"
expect 2 "sk-lda topics: .*nothere.skl" "$sk_lda" topics "$work/nothere.skl"
cp "$model" "$work/corrupt.skl"
printf '\x5a' | dd of="$work/corrupt.skl" bs=1 seek=100 conv=notrunc status=none
expect 2 "sk-lda topics: .*corrupt.skl.*checksum mismatch" "$sk_lda" topics "$work/corrupt.skl"
expect 2 "sk-lda export: .*corrupt.skl.*checksum mismatch" "$sk_lda" export "$work/corrupt.skl" --out "$work/x"
head -c 40 "$model" >"$work/short.skl"
: >"$work/empty.skl"
expect 2 "sk-lda topics: .*empty.skl: is empty, not an sk-lda model file" "$sk_lda" topics "$work/empty.skl"
expect 2 "sk-lda topics: .*corpus: is a folder, not an sk-lda model file" "$sk_lda" topics "$work/corpus"
expect 2 "sk-lda topics: .*short.skl" "$sk_lda" topics "$work/short.skl" --format csv
expect 2 "sk-lda topics: --top: '0' is not a whole number" "$sk_lda" topics "$model" --top 0
expect 2 "sk-lda topics: --format: 'xml' is not one of text, csv, json" "$sk_lda" topics "$model" --format xml
expect 2 "unrecognized option" "$sk_lda" topics "$model" --frobnicate
expect 2 "sk-lda export: --out DIR is required" "$sk_lda" export "$model"
expect 2 "sk-lda export: give the model file" "$sk_lda" export --out "$work/x"
expect 2 "sk-lda export: .*nothere.skl" "$sk_lda" export "$work/nothere.skl" --out "$work/x"
echo x >"$work/a_file"
expect 2 "sk-lda export: --out: .*a_file: exists and is not a folder" "$sk_lda" export "$model" --out "$work/a_file/sub"
mkdir -p "$work/blocked/phi.npy"
expect 2 "sk-lda export: --out: .*blocked/phi.npy: exists and is not a regular file" "$sk_lda" export "$model" \
  --out "$work/blocked"
echo "ok: topics (text = topics.txt, csv, json, --vocab escaping), export (phi.npy = train's, vocab.txt), refusals"
