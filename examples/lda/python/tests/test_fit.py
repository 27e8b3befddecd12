"""LDA.fit on the CPU: the inputs it takes, the attributes it leaves, determinism, stopping a run."""

import os
import signal

import numpy as np
import pytest

import sklda

from conftest import docs_to_dense, planted_docs


def test_components_and_phi(fitted, planted):
    docs, v = planted
    c = fitted.components_
    assert c.shape == (4, v) and c.dtype == np.float64
    counts = fitted.model_.counts
    assert counts.shape == (4, v) and counts.min() >= 0
    assert counts.sum() == sum(len(d) for d in docs)  # every token in one topic
    np.testing.assert_array_equal(c, counts + fitted.beta_)
    phi = fitted.phi_
    assert phi.shape == (4, v) and phi.dtype == np.float32
    np.testing.assert_allclose(phi.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(phi, c / c.sum(axis=1, keepdims=True), rtol=1e-5)
    assert fitted.n_features_in_ == v and fitted.n_iter_ == 60
    assert fitted.beta_ == pytest.approx(0.05)
    np.testing.assert_array_equal(fitted.alpha_, np.full(4, 0.5))
    assert np.isfinite(fitted.joint_ll_) and np.isnan(fitted.heldout_ll_)  # test_fraction 0: none held out


def test_planted_topics_recovered(fitted):
    # each planted block of 10 words is one topic's top 10 words
    blocks = sorted(tuple(sorted(int(w[1:]) // 10 for w in words)) for words in fitted.top_words(10))
    assert blocks == [(b,) * 10 for b in range(4)], fitted.top_words(10)


def test_theta_rows_and_empty_documents(fitted, planted):
    docs, _ = planted
    theta = fitted.theta_
    assert theta.shape == (len(docs), 4) and theta.dtype == np.float32
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(theta[7], 0.25, atol=1e-7)  # empty: the prior's mean
    np.testing.assert_allclose(theta[150], 0.25, atol=1e-7)


def test_lists_matrices_and_corpora_give_the_same_model(planted):
    docs, v = planted
    dense = docs_to_dense(docs, v)
    kw = dict(n_topics=3, n_iter=10, seed=5, device="cpu")
    a = sklda.LDA(**kw).fit(docs).components_
    inputs = [dense, dense.astype(np.float64), dense.astype(np.uint8), sklda.Corpus.from_documents(docs)]
    try:
        import scipy.sparse as sp
        inputs += [sp.csr_matrix(dense), sp.csc_matrix(dense), sp.coo_matrix(dense)]
    except ImportError:
        pass  # the sparse inputs are checked where scipy is installed
    for x in inputs:
        np.testing.assert_array_equal(sklda.LDA(**kw).fit(x).components_, a, err_msg=type(x).__name__)


def test_documents_of_words(planted):
    docs, v = planted
    words = [["w%02d" % i for i in doc] for doc in docs]
    lda = sklda.LDA(n_topics=3, n_iter=5, seed=1, device="cpu").fit(words)
    assert sorted(lda.vocab_) == sorted({w for doc in words for w in doc})
    assert all(isinstance(w, str) for topic in lda.top_words(3) for w in topic)
    theta = lda.transform(words[:5])
    assert theta.shape == (5, 3)


def test_determinism(planted):
    docs, _ = planted
    kw = dict(n_topics=4, n_iter=15, device="cpu", sampler="esca")
    a = sklda.LDA(seed=11, threads=1, **kw).fit(docs).components_
    b = sklda.LDA(seed=11, threads=2, **kw).fit(docs).components_
    c = sklda.LDA(seed=12, **kw).fit(docs).components_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_cgs_and_test_fraction(planted):
    docs, _ = planted
    lda = sklda.LDA(n_topics=4, n_iter=20, sampler="cgs", device="cpu", test_fraction=0.2).fit(docs)
    assert np.isfinite(lda.heldout_ll_) and lda.theta_.shape == (len(docs), 4)


def test_callback_stops_the_run(planted):
    docs, _ = planted
    seen = []

    def cb(p):
        seen.append(p["sweep"])
        return p["sweep"] == 4

    lda = sklda.LDA(n_topics=4, n_iter=50, device="cpu").fit(docs, callback=cb)
    assert lda.stopped_ and lda.n_iter_ == 4 and seen == [1, 2, 3, 4]
    assert lda.components_.shape == (4, 40)


def test_keyboard_interrupt_stops_and_propagates(planted):
    """SIGINT during fit: the progress callback catches KeyboardInterrupt, stops the run, fit re-raises it."""
    docs, _ = planted
    sweeps = []

    def cb(p):
        sweeps.append(p["sweep"])
        if p["sweep"] == 3:
            os.kill(os.getpid(), signal.SIGINT)  # Python's handler raises KeyboardInterrupt here or soon after

    lda = sklda.LDA(n_topics=4, n_iter=1000, device="cpu")
    with pytest.raises(KeyboardInterrupt):
        lda.fit(docs, callback=cb)
    assert 3 <= len(sweeps) < 1000
    with pytest.raises(sklda.NotFittedError):
        lda.components_


def test_callback_exception_propagates(planted):
    docs, _ = planted

    def cb(p):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        sklda.LDA(n_topics=2, n_iter=10, device="cpu").fit(docs, callback=cb)


def test_verbose_prints_evaluated_sweeps(planted, capsys):
    docs, _ = planted
    sklda.LDA(n_topics=2, n_iter=20, ll_every=10, device="cpu", verbose=1).fit(docs)
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("sweep")] == \
        ["sweep 1/20", "sweep 10/20", "sweep 20/20"], out
    sklda.LDA(n_topics=2, n_iter=2, device="cpu").fit(docs)
    assert capsys.readouterr().out == ""  # silent by default


def test_joint_ll_history(planted):
    docs, _ = planted
    lda = sklda.LDA(n_topics=4, n_iter=30, ll_every=10, device="cpu").fit(docs)
    h = lda.joint_ll_history_
    np.testing.assert_array_equal(h[:, 0], [1, 10, 20, 30])
    assert h[-1, 1] == pytest.approx(lda.joint_ll_) and h[-1, 1] > h[0, 1]


def test_params_round_trip():
    lda = sklda.LDA(n_topics=7, alpha=0.1)
    p = lda.get_params()
    assert p["n_topics"] == 7 and p["alpha"] == 0.1 and p["sampler"] == "auto"
    clone = sklda.LDA(**p)
    assert clone.get_params() == p
    assert lda.set_params(n_topics=9, seed=4) is lda and lda.n_topics == 9
    with pytest.raises(ValueError, match="no parameter 'n_components'"):
        lda.set_params(n_components=3)
    assert repr(lda) == "LDA(alpha=0.1, n_topics=9, seed=4)"


def test_out_dir_writes_the_cli_files(planted, tmp_path):
    docs, _ = planted
    out = tmp_path / "run"
    lda = sklda.LDA(n_topics=3, n_iter=5, device="cpu", out_dir=str(out)).fit(docs)
    for name in ("model.skl", "theta.npy", "theta.txt", "topics.txt", "metrics.csv"):
        assert (out / name).is_file(), name
    np.testing.assert_array_equal(np.load(out / "theta.npy"), lda.theta_)
    np.testing.assert_array_equal(sklda.read_model(out / "model.skl").counts, lda.model_.counts)


def test_vocabulary_size_from_the_ids():
    """Without vocab, V is the largest id + 1 (fit_transform returns theta_)."""
    docs, v = planted_docs(num_docs=30, num_topics=2, words_per_topic=5, seed=9)
    docs.append([])
    lda = sklda.LDA(n_topics=2, n_iter=5, device="cpu")
    theta = lda.fit_transform(docs)
    assert lda.components_.shape == (2, v) and lda.vocab_ is None
    np.testing.assert_array_equal(theta, lda.theta_)
    assert lda.top_words(2)[0][0].startswith("w0000")


def test_optimized_priors(planted):
    """optimize_every learns an asymmetric alpha and a symmetric beta; the same on every fit (ESCA on the
    CPU: auto would pick AGA where a GPU is, whose runs differ)."""
    docs, v = planted
    kw = dict(n_topics=4, n_iter=40, seed=3, optimize_every=5, optimize_burnin=10, sampler="esca", device="cpu")
    a = sklda.LDA(**kw).fit(docs)
    b = sklda.LDA(**kw).fit(docs)
    assert a.alpha_.shape == (4,) and np.all(a.alpha_ > 0)
    assert not np.all(a.alpha_ == a.alpha_[0]), "alpha stayed symmetric"
    assert a.beta_ != pytest.approx(0.01), "beta was not learnt"
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    assert a.beta_ == b.beta_
    np.testing.assert_array_equal(a.components_, b.components_)
