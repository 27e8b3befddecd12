#!/usr/bin/env python3
"""CPU replay of the held-out windows' acceptance on a corpus's longest document (issue 32).

usage: lda_windows_replay.py LIBSK_LDA MODEL.skl DOCWORD.txt.gz SWEEPS ["W LIST"]

The GPU folds the longest test documents in by windows (examples/lda/src/gpu/metrics_gpu_fold_windows.cuh):
W positions of the chain a pass, each drawn from the counts that the guesses of the positions before it give,
and the chain keeps the draws up to the first that differs from its guess. This replays that scheme with
numpy on the corpus's longest document (every other token as its observed half) and prints the draws kept a
pass, for W = 16 and 32 (or the W LIST given, e.g. "5 9 16") and two starts of the fold-in: uniform topics
and each word's phi (the default since 87b57cd). Not bit-exact with sk-lda (numpy's generator and sums): a
statistic of the scheme, not of a run. LIBSK_LDA: the built libsk_lda.so (the model is read through the
Python package, examples/lda/python).
"""
import sys

import numpy as np

if len(sys.argv) not in (5, 6):
    sys.exit(__doc__)
try:
    widths = [int(x) for x in sys.argv[5].split()] if len(sys.argv) == 6 else [16, 32]
except ValueError:
    sys.exit(f"W LIST: '{sys.argv[5]}' is not a list of integers")
if not widths or min(widths) < 1:
    sys.exit(f"W LIST: '{sys.argv[5]}': give widths of at least 1")
from lda_bench_model import load_model, read_docword
model_path, corpus, iters = sys.argv[2], sys.argv[3], int(sys.argv[4])
nvk, alpha, beta = load_model(sys.argv[1], model_path)  # K x V counts
K, V = nvk.shape
nk = nvk.sum(axis=1)
phi = (nvk + beta) / (nk[:, None] + V * beta)  # K x V
# the longest document, every other token as its observed half
docs, _ = read_docword(corpus)
d = max(docs, key=lambda k: len(docs[k]))
rng0 = np.random.default_rng(1)
toks = np.array(docs[d]); rng0.shuffle(toks); words = toks[::2]
n = len(words)
print(f"K {K}, document {d}: {len(toks)} tokens, observed half {n}, {iters} sweeps")
U = np.random.default_rng(7).random((iters + 1, n))
def draw(counts, w, u):
    p = (counts + alpha) * phi[:, w]
    c = np.cumsum(p)
    return int(min(np.searchsorted(c, u * c[-1], side="right"), K - 1))
def start(kind):
    if kind == "uniform": return np.minimum((U[0] * K).astype(int), K - 1)
    zero = np.zeros(K)
    return np.array([draw(zero, words[i], U[0, i]) for i in range(n)])
def replay(kind, W):
    z = start(kind); counts = np.bincount(z, minlength=K).astype(float)
    total = n * iters; g = 0; passes = 0; carried = {}
    while g < total:
        last = min(W, total - g)
        cp = counts.copy(); drawn = []; guesses = []
        for j in range(last):
            p = g + j; it, t = divmod(p, n)
            old = z[t]; guess = carried.get(p, old)
            cp[old] -= 1
            k = draw(cp, words[t], U[it + 1, t])
            drawn.append(k); guesses.append(guess)
            cp[guess] += 1  # the next positions are drawn with this one at its guess
        acc = next((j for j in range(last) if drawn[j] != guesses[j]), last - 1)
        for j in range(acc + 1):
            p = g + j; it, t = divmod(p, n)
            counts[z[t]] -= 1; z[t] = drawn[j]; counts[z[t]] += 1
        carried = {g + j: drawn[j] for j in range(acc + 1, last)}
        g += acc + 1; passes += 1
    return total / passes
for W in widths:
    for kind in ("uniform", "phi"):
        print(f"W = {W}, start {kind}: {replay(kind, W):.2f} draws a pass")
