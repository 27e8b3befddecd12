#!/usr/bin/env bash
# phi.npy as NumPy reads it (ctest: sk_lda_phi_npy, label cpu; exit 77, skipped, when no python3 with numpy
# is found: CI installs python3-numpy). On a small trained model (K = 24, V = 800, with a vocabulary) and a
# wide one (K = 1,400: more than one of the writer's blocks of rows; no vocabulary), train's phi.npy:
#  1. numpy.load() gives shape (K, V), dtype float32 ('<f4'), C order, every value in (0, 1);
#  2. each row sums to 1 within 1e-5;
#  3. the values are those sk-lda topics prints: in the csv form (9 digits; every word of every topic of
#     the small model, the top 3 of the wide one's) within a relative 1e-6, and in the text form (6 digits,
#     topics.txt's layout, words by name) within 1e-5;
#  4. export writes the same bytes.
# usage: phi_npy.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2

. "$(dirname "$0")/numpy_python.sh"

. "$(dirname "$0")/lda_cli_common.sh"
V=800

# check NAME K TOP TRAIN...: TRAIN --out $work/NAME (K topics) gives a phi.npy that numpy reads as it should,
# equal to export's and to topics' csv form of TOP words a topic and text form.
check() {
  local name=$1 k=$2 top=$3
  shift 3
  "$@" --device cpu -n 3 -k "$k" --out "$work/$name" >"$work/$name.log" 2>&1 ||
    fail "train $name failed: $(tail -3 "$work/$name.log")"
  "$sk_lda" export "$work/$name/model.skl" --out "$work/$name/exp" >/dev/null || fail "export $name failed"
  cmp -s "$work/$name/exp/phi.npy" "$work/$name/phi.npy" || fail "$name: export's phi.npy differs from train's"
  "$sk_lda" topics "$work/$name/model.skl" --top "$top" --format csv >"$work/$name.csv" || fail "topics --format csv"
  "$sk_lda" topics "$work/$name/model.skl" >"$work/$name.txt" || fail "topics --format text failed"
  "$python" - "$work/$name/phi.npy" "$work/$name.csv" "$work/$name.txt" "$k" $V <<'PY' ||
import csv, sys
import numpy as np

phi_path, csv_path, text_path = sys.argv[1:4]
K, V = int(sys.argv[4]), int(sys.argv[5])
phi = np.load(phi_path)
assert phi.shape == (K, V), f"shape {phi.shape}, not {(K, V)}"
assert phi.dtype == np.float32 and phi.dtype.str == '<f4', f"dtype {phi.dtype.str}, not <f4"
assert phi.flags['C_CONTIGUOUS'], "not C order"
assert np.all(phi > 0) and np.all(phi < 1), "a value outside (0, 1)"
sums = phi.astype(np.float64).sum(axis=1)
assert np.all(np.abs(sums - 1) <= 1e-5), f"row sums {sums.min()} .. {sums.max()}"

# The csv form, phi printed with 9 digits.
ks, vs, ps, ids = [], [], [], {}
with open(csv_path, newline='') as f:
    for row in csv.DictReader(f):
        ks.append(int(row['topic']))
        vs.append(int(row['word_id']))
        ps.append(float(row['phi']))
        ids[row['word']] = int(row['word_id'])
want = np.array(ps)
bad = np.abs(phi[ks, vs] - want) > 1e-6 * want
assert not bad.any(), f"{bad.sum()} values differ from topics --format csv, first at csv row {np.argmax(bad) + 2}"
assert sorted(set(ks)) == list(range(K)), "the csv form misses a topic"

# The text form (topics.txt's layout): 6 digits, words by name (each is one of the csv form's words, or
# w000123 for a model without vocabulary).
k, checked = -1, 0
for line in open(text_path):
    if line.startswith('topic '):
        k = int(line.split()[1])
    elif line.startswith('\t'):
        _, word, p = line.rstrip('\n').split('\t')
        v = ids[word] if word in ids else int(word[1:])
        assert abs(phi[k, v] - float(p)) <= 1e-5 * float(p), f"topic {k} word {word}: {phi[k, v]} vs {p}"
        checked += 1
assert checked == K * min(20, V), f"{checked} words of the text form checked, not {K * min(20, V)}"
print(f"ok: {phi_path}: ({K}, {V}) float32, rows sum to 1 (|sum - 1| <= {np.abs(sums - 1).max():.1e}), "
      f"equal to topics' csv ({len(ps)} values) and text ({checked}); export's is the same file")
PY
    fail "$name: phi.npy does not check out with numpy ($python)"
}

check small 24 $V "${small_train[@]}"
check wide 1400 3 "$sk_lda" train --docword "$work/corpus/docword.synthetic.txt" --seed 7 --sampler esca \
  --checkpoint-every 0
