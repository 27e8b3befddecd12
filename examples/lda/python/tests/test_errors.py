"""Mistakes a user makes: each is an exception that names the cause, never a crash or a silent default."""

import numpy as np
import pytest

import sklda


@pytest.mark.parametrize("x, match", [
    (np.array([[1, -2], [0, 1]]), ">= 0"),
    (np.array([[1.5, 0], [0, 1]]), "whole numbers"),
    (np.array([[np.nan, 0], [0, 1]]), "whole numbers"),
    (np.zeros((2, 2, 2)), "2-D"),
    (np.array([["a", "b"]]), "numbers"),
    ([[0, 1], ["a"]], "same kind"),
    ([[0, -1]], "negative"),
    ([[0.5, 1.0]], "word ids"),
    ([[[0, 1]]], "not a list of word ids"),
    ("some text", "X must be"),
    ({"a": 1}, "X must be"),
])
def test_bad_x(x, match):
    with pytest.raises(sklda.SkldaInputError, match=match):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit(x)


def test_bad_sparse_counts():
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(sklda.SkldaInputError, match="whole numbers"):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit(sp.csr_matrix(np.array([[0.25, 1.0]])))
    with pytest.raises(ValueError, match=">= 0"):  # SkldaInputError is a ValueError
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit(sp.csr_matrix(np.array([[-1, 1]])))


@pytest.mark.parametrize("params, match", [
    ({"n_topics": 0}, "n_topics"),
    ({"n_topics": 2.5}, "n_topics"),
    ({"n_iter": 0}, "n_iter"),
    ({"alpha": -1.0}, "alpha"),
    ({"beta": 0}, "beta"),
    ({"alpha": float("nan")}, "alpha"),
    ({"seed": -3}, "seed"),
    ({"test_fraction": 1.5}, "test_fraction"),
    ({"sampler": "vb"}, "sampler"),
    ({"device": "tpu"}, "device"),
    ({"threads": -1}, "threads"),
    ({"checkpoint_every": -2}, "checkpoint_every"),
    ({"options": {"num_topics": 3}}, "num_topics"),
    ({"options": {"no_such_field": 1}}, "no_such_field"),
    ({"options": {"workers": 99}}, "workers"),          # refused by the library itself
    ({"alpha": 1e20}, "alpha"),                         # refused by the library itself
    ({"sampler": "cgs", "options": {"minibatch": 8}}, "minibatch"),
])
def test_bad_params(params, match):
    with pytest.raises(sklda.SkldaInputError, match=match):
        sklda.LDA(**{"n_topics": 2, "n_iter": 1, "device": "cpu", **params}).fit([[0, 1], [1, 2]])


def test_vocab_of_the_wrong_size():
    with pytest.raises(sklda.SkldaInputError, match="vocab has 2 words, X has 3 columns"):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit(np.ones((2, 3), dtype=int), vocab=["a", "b"])
    with pytest.raises(sklda.SkldaInputError, match="word id 5 is not below V = 2"):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit([[0, 5]], vocab=["a", "b"])


def test_missing_files_are_named(tmp_path):
    missing = tmp_path / "no_such_model.skl"
    with pytest.raises(sklda.SkldaError, match="no_such_model.skl"):
        sklda.read_model(missing)
    with pytest.raises(sklda.SkldaError, match="no_such_model.skl"):
        sklda.LDA.load(missing)
    with pytest.raises(sklda.SkldaInputError, match="no_such_docword"):
        sklda.read_corpus(tmp_path / "no_such_docword.txt")
    (tmp_path / "junk.skl").write_bytes(b"not a model at all, not at all")
    with pytest.raises(sklda.SkldaInputError, match="junk.skl"):
        sklda.read_model(tmp_path / "junk.skl")
    with pytest.raises(OSError):
        sklda.read_theta_txt(tmp_path / "no_theta.txt")


def test_not_fitted():
    lda = sklda.LDA(n_topics=2)
    for call in (lambda: lda.components_, lambda: lda.transform([[0]]), lambda: lda.score([[0, 1]]),
                 lambda: lda.save("x.skl"), lambda: lda.top_words(3)):
        with pytest.raises(sklda.NotFittedError, match="not fitted"):
            call()
    assert not hasattr(lda, "components_")  # an AttributeError too, as scikit-learn expects


def test_transform_checks_the_columns(fitted, planted):
    _, v = planted
    with pytest.raises(sklda.SkldaInputError, match="columns"):
        fitted.transform(np.ones((2, v + 1), dtype=np.int32))
    with pytest.raises(sklda.SkldaInputError, match="n_iter"):
        fitted.transform([[0, 1]], n_iter=0)


def test_documents_of_words_need_a_vocabulary(tmp_path):
    lda = sklda.LDA(n_topics=2, n_iter=2, device="cpu").fit([[0, 1], [1, 2]])
    with pytest.raises(sklda.SkldaInputError, match="vocabulary"):
        lda.transform([["a", "b"]])


def test_out_dir_in_use_is_refused(tmp_path):
    docs = [[0, 1, 2], [2, 3]]
    sklda.LDA(n_topics=2, n_iter=2, device="cpu", out_dir=str(tmp_path / "run")).fit(docs)
    with pytest.raises(sklda.SkldaInputError, match="run"):
        sklda.LDA(n_topics=2, n_iter=2, device="cpu", out_dir=str(tmp_path / "run")).fit(docs)
    sklda.LDA(n_topics=2, n_iter=2, device="cpu", out_dir=str(tmp_path / "run"), overwrite=True).fit(docs)
