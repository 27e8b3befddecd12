#!/usr/bin/env bash
# theta.npy as NumPy reads it (ctest: sk_lda_theta_npy, label cpu; exit 77, skipped, when no python3 with
# numpy is found: CI installs python3-numpy). Issue 33, item 3: every input document, in input order.
#  1. UCI with an empty docID: shape (D of the header, K), float32, C order, every row sums to 1 within 1e-5;
#     a training document's row is theta.txt's (its listed topics, alpha / (n_d + K alpha) elsewhere); the
#     empty docID's row is 1/K; the held-out documents' rows are there (not 1/K) and theta.txt does not list
#     them.
#  2. Plain text with lines that leave no token: theta.txt names documents by their line (line - 1), and
#     theta.npy has a row per line, 1/K for the empty ones.
# usage: theta_npy.sh SK_LDA WORK_DIR
set -uo pipefail
sk_lda=$1
work=$2

. "$(dirname "$0")/numpy_python.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"

# 1. UCI: 8 documents, docID 4 empty; 2 held out (test fraction 0.25).
{
  printf '8\n6\n17\n'
  printf '1 1 3\n1 2 1\n2 2 2\n2 3 4\n3 1 1\n3 5 2\n5 4 3\n5 6 1\n6 1 2\n6 6 2\n7 2 1\n7 3 1\n7 5 5\n8 1 1\n8 2 1\n8 4 2\n8 6 3\n'
} >"$work/docword.txt"
"$sk_lda" train --docword "$work/docword.txt" -k 3 -n 5 --device cpu --test-fraction 0.25 --out "$work/uci" \
  >"$work/uci.log" 2>&1 || fail "train (UCI): $(tail -3 "$work/uci.log")"
"$python" - "$work/uci" <<'PY' || fail "theta.npy (UCI) is wrong"
import sys, numpy as np
d = sys.argv[1]
t = np.load(d + "/theta.npy")
assert t.shape == (8, 3) and t.dtype == np.float32 and t.flags.c_contiguous, (t.shape, t.dtype)
assert np.allclose(t.sum(axis=1), 1.0, atol=1e-5), t.sum(axis=1)
assert np.allclose(t[3], 1.0 / 3, atol=1e-7), ("the empty docID 4", t[3])
lens = {0: 4, 1: 6, 2: 3, 4: 4, 5: 4, 6: 7, 7: 7}
alpha = 50.0 / 3
listed = {}
for line in open(d + "/theta.txt"):
    if line.startswith("#"):
        continue
    f = line.split()
    listed[int(f[0])] = {int(k): float(p) for k, p in (x.split(":") for x in f[1:])}
assert 3 not in listed, "theta.txt lists the empty docID 4"
assert len(listed) == 5, ("theta.txt should list the 5 training documents", sorted(listed))
for doc, row in listed.items():
    rest = alpha / (lens[doc] + 3 * alpha)
    for k in range(3):
        want = row.get(k, rest)
        assert abs(t[doc, k] - want) < 2e-6, (doc, k, t[doc, k], want)
held = [doc for doc in lens if doc not in listed]
assert len(held) == 2, held
for doc in held:
    assert not np.allclose(t[doc], 1.0 / 3, atol=1e-7), ("the held-out row is the prior", doc)
print("ok: theta.npy (UCI) shape", t.shape, "held-out documents", held)
PY

# 2. Plain text: lines 2 and 4 leave no token (too short, or empty).
printf 'alpha beta gamma alpha\nab cd\ngamma delta delta beta\n\nbeta alpha delta gamma\n' >"$work/docs.txt"
"$sk_lda" train --text "$work/docs.txt" -k 2 -n 5 --device cpu --test-fraction 0 --out "$work/text" \
  >"$work/text.log" 2>&1 || fail "train (text): $(tail -3 "$work/text.log")"
ids=$(grep -v '^#' "$work/text/theta.txt" | cut -d' ' -f1 | tr '\n' ' ')
[ "$ids" = "0 2 4 " ] || fail "theta.txt (text) names documents '$ids', expected the lines' '0 2 4 '"
"$python" - "$work/text" <<'PY' || fail "theta.npy (text) is wrong"
import sys, numpy as np
t = np.load(sys.argv[1] + "/theta.npy")
assert t.shape == (5, 2) and t.dtype == np.float32, (t.shape, t.dtype)
assert np.allclose(t[1], 0.5) and np.allclose(t[3], 0.5), t
assert np.allclose(t.sum(axis=1), 1.0, atol=1e-6)
print("ok: theta.npy (text) shape", t.shape)
PY
echo "ok: theta.npy and the documents' numbering"
