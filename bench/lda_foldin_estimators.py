#!/usr/bin/env python3
"""CPU comparison of held-out fold-in estimators on one model (issue 32's metrics target, for its decision).

usage: lda_foldin_estimators.py LIBSK_LDA MODEL.skl TEST_DOCWORD.txt.gz SWEEPS_LIST [REPS [SEED]]

The held-out LL by document completion folds each test document's observed half in with phi fixed, then
scores the other half from the final counts (examples/lda/src/metrics.h). sk-lda folded in by collapsed Gibbs
sweeps when this was written (now, up to K = 1,024, uncollapsed sweeps in the s form below come first): a test
document is one chain of dependent draws, and the longest documents set the GPU's time. This
compares, on the same documents, halves and model, the held-out LL per token of:
  c N        N collapsed Gibbs sweeps (sk-lda's estimator; scored along one chain at every N of SWEEPS_LIST)
  u N        N uncollapsed sweeps: theta ~ Dirichlet(n_d + alpha), then every token's topic given theta
             (independent given theta, so one sweep is parallel over the document's tokens; its stationary
             distribution of z is collapsed Gibbs's)
  s N        as u N, but theta_k = X_k + Y_k, X_k ~ Gamma(n_dk) (sparse) and Y_k ~ Gamma(alpha) drawn once a
             sweep for all documents: a sweep's token draw is then an ESCA training draw's shape (a sparse
             document part, a dense word part the same for every document)
  u N + c C  the uncollapsed chain at N, then C = 1 or 2 collapsed sweeps (the chain's cost on a GPU: C
             dependent sweeps instead of N); s N + c C likewise
SK_FOLDIN_KINDS (default "c u") lists the chains to run; SK_FOLDIN_REP0 (default 0) numbers the first
repetition, so that repetitions can run in several processes (each prints its own mean).
All start as sk-lda does: each token's topic drawn from alpha phi[:, w] alone. REPS repetitions with other
random numbers give the Monte Carlo spread (mean and standard deviation of the repetitions). Not bit-exact with
sk-lda (numpy's generator; sk-lda's split cuts the halves with its own RNG): a statistic of the estimators.
TEST_DOCWORD: UCI docword of documents the model was not trained on (e.g. a model trained with
`--test-fraction 0` on the other documents). LIBSK_LDA: the built libsk_lda.so (the model is read through the
Python package, examples/lda/python). Needs numpy (Debian: python3-numpy) and three dense K x V float64
arrays (3.2 GB for nips12 at K = 10,000). Time on nips12's 174 test documents (131k observed tokens) at
K = 10,000, one core: the collapsed chain is the slow one (one repetition of "10 20 40" with c and u took
25 min beside other work); s 20 with its two branches took 100 s.
"""
import os
import sys
import time

import numpy as np

if len(sys.argv) not in (5, 6, 7):
    sys.exit(__doc__)
try:
    marks = sorted({int(x) for x in sys.argv[4].split()})
    reps = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
except ValueError:
    sys.exit(f"SWEEPS_LIST, REPS and SEED are integers: {sys.argv[4:]}")
kinds = os.environ.get("SK_FOLDIN_KINDS", "c u").split()
if not kinds or not set(kinds) <= {"c", "u", "s"}:
    sys.exit(f"SK_FOLDIN_KINDS: '{os.environ.get('SK_FOLDIN_KINDS')}': a list of c, u and s")
if not marks or marks[0] < 1 or reps < 1:
    sys.exit("SWEEPS_LIST: sweep counts of at least 1; REPS: at least 1")
from lda_bench_model import load_model, read_docword  # noqa: E402

nvk, alpha, beta = load_model(sys.argv[1], sys.argv[2])  # K x V counts
K, V = nvk.shape
nk = nvk.sum(axis=1)
phi_t = np.ascontiguousarray(((nvk + beta) / (nk[:, None] + V * beta)).T)  # V x K
prior_cum = np.cumsum(alpha * phi_t, axis=1)  # a word's running sums of alpha phi (the q and s parts)
c_k = 1.0 / (nk + V * beta)
word_topics = [np.flatnonzero(nvk[:, w]) for w in range(V)]  # each word's nonzero topics, increasing
word_bc = [nvk[word_topics[w], w] * c_k[word_topics[w]] for w in range(V)]

docs, W_ = read_docword(sys.argv[3])
if W_ > V:
    sys.exit(f"{sys.argv[3]}: {W_} words, the model has {V}")
cut = np.random.default_rng(seed)  # the halves: the same in every repetition
halves = []
for d in sorted(docs):
    toks = np.array(docs[d])
    cut.shuffle(toks)
    h = len(toks) // 2
    if h > 0 and len(toks) - h > 0:
        halves.append((toks[:h], toks[h:]))
n_obs = sum(len(o) for o, _ in halves)
n_held = sum(len(x) for _, x in halves)
print(f"K {K}, alpha {alpha:g}, beta {beta:g}; {len(halves)} test documents, {n_obs} observed and {n_held} "
      f"held-out tokens; sweeps {marks}, {reps} repetitions")


def pick(cum, u):
    """First index whose running sum exceeds u * total, per row (cum: rows x K)."""
    x = u * cum[:, -1]
    return np.minimum((cum < x[:, None]).sum(axis=1), K - 1)


def start(words, rng):
    z = np.empty(len(words), dtype=np.int64)
    for a in range(0, len(words), 256):
        z[a:a + 256] = pick(prior_cum[words[a:a + 256]], rng.random(len(words[a:a + 256])))
    return z


def collapsed_sweep(words, z, counts, rng):
    u = rng.random(len(words))
    for i, w in enumerate(words):
        counts[z[i]] -= 1
        nz = np.flatnonzero(counts)
        y = counts[nz] * phi_t[w, nz]
        ycum = np.cumsum(y)
        Y, Q = (ycum[-1] if len(nz) else 0.0), prior_cum[w, -1]
        x = u[i] * (Y + Q)
        if x < Y:
            k = nz[min(int(np.searchsorted(ycum, x, side="right")), len(nz) - 1)]
        else:
            k = min(int(np.searchsorted(prior_cum[w], x - Y, side="right")), K - 1)
        z[i] = k
        counts[k] += 1


def uncollapsed_sweep(words, z, counts, rng, groups, shared_y=None):
    """theta_k c_k (n_wk + beta) = theta_k c_k n_wk (the word's nonzero topics) + beta theta_k c_k (one table a
    document a sweep); a document's tokens of one word drawn together (independent given theta). With shared_y
    (kind s), theta_k = X_k + Y_k: X_k ~ Gamma(n_dk) (0 where n_dk = 0) and Y_k ~ Gamma(alpha) the sweep's
    draws shared by every document (Gamma(n + alpha) is Gamma(n) + Gamma(alpha)): each document's chain is
    still the uncollapsed Gibbs chain, the documents only correlated."""
    if shared_y is None:
        theta = rng.gamma(counts + alpha)
    else:
        theta = np.where(counts > 0, rng.gamma(np.maximum(counts, 1.0)), 0.0) + shared_y
    r_cum = np.cumsum(beta * theta * c_k)
    R = r_cum[-1]
    u = rng.random(len(words))
    for w, idx in groups:
        nz = word_topics[w]
        cum = np.cumsum(theta[nz] * word_bc[w]) if len(nz) else np.zeros(1)
        T = cum[-1] if len(nz) else 0.0
        x = u[idx] * (T + R)
        in_word = x < T
        if in_word.any():
            z[idx[in_word]] = nz[np.minimum(np.searchsorted(cum, x[in_word], side="right"), len(nz) - 1)]
        if (~in_word).any():
            z[idx[~in_word]] = np.minimum(np.searchsorted(r_cum, x[~in_word] - T, side="right"), K - 1)
    counts[:] = np.bincount(z, minlength=K)


def score(held, counts, n):
    theta = (counts + alpha) / (n + K * alpha)
    return float(np.log(phi_t[held] @ theta).sum())


def run(rep):
    """{scheme: summed held-out LL} for one repetition."""
    out = {}
    shared = [np.random.default_rng([seed, rep, 1 << 20, s]).gamma(alpha, size=K) for s in range(marks[-1] + 1)]
    for di, (obs, held) in enumerate(halves):
        rng = np.random.default_rng([seed, rep, di])
        z0 = start(obs, rng)
        ws, inv = np.unique(obs, return_inverse=True)
        groups = [(w, np.flatnonzero(inv == j)) for j, w in enumerate(ws)]
        for kind in kinds:
            z = z0.copy()
            counts = np.bincount(z, minlength=K).astype(np.float64)
            for s in range(1, marks[-1] + 1):
                if kind == "c":
                    collapsed_sweep(obs, z, counts, rng)
                else:
                    uncollapsed_sweep(obs, z, counts, rng, groups, shared[s] if kind == "s" else None)
                if s in marks:
                    out[f"{kind} {s}"] = out.get(f"{kind} {s}", 0.0) + score(held, counts, len(obs))
                    if kind != "c":  # branch: 1 and 2 collapsed sweeps from here
                        zb, cb = z.copy(), counts.copy()
                        for c in (1, 2):
                            collapsed_sweep(obs, zb, cb, rng)
                            key = f"{kind} {s} + c {c}"
                            out[key] = out.get(key, 0.0) + score(held, cb, len(obs))
    return out


t0 = time.time()
results = []
rep0 = int(os.environ.get("SK_FOLDIN_REP0", "0"))  # first repetition's number: repetitions split over processes
for rep in range(rep0, rep0 + reps):
    results.append(run(rep))
    print(f"repetition {rep + 1} of {rep0 + 1}..{rep0 + reps} in {time.time() - t0:.0f} s", file=sys.stderr,
          flush=True)
keys = [f"{k} {s}" for k in kinds for s in marks] + [f"{k} {s} + c {c}" for k in kinds if k != "c" for s in marks
                                                      for c in (1, 2)]
print("| estimator | held-out LL/token, mean | sd of the repetitions |")
print("|---|---:|---:|")
for k in keys:
    v = np.array([r[k] for r in results]) / n_held
    print(f"| {k} | {v.mean():.4f} | {v.std(ddof=1) if reps > 1 else float('nan'):.4f} |")
