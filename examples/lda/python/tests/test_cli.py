"""The package against the sk-lda program ($SK_LDA_BIN): its files read back, and the same model and
proportions from the same corpus, options and seed."""

import subprocess

import numpy as np
import pytest

import sklda

from conftest import docs_to_dense, planted_docs


def write_uci(path, dense):
    """A UCI docword file of a count matrix (empty rows: docIDs with no line)."""
    rows, cols = np.nonzero(dense)
    with open(path, "w") as f:
        f.write("%d\n%d\n%d\n" % (dense.shape[0], dense.shape[1], len(rows)))
        for d, v in zip(rows, cols):
            f.write("%d %d %d\n" % (d + 1, v + 1, dense[d, v]))


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """`sk-lda train --out` on a planted corpus written as UCI files; returns (folder, docs, dense, vocab)."""
    import os
    bin_ = os.environ.get("SK_LDA_BIN")
    if not bin_ or not os.access(bin_, os.X_OK):
        pytest.skip("SK_LDA_BIN does not name the sk-lda program")
    work = tmp_path_factory.mktemp("cli")
    docs, v = planted_docs(num_docs=120, seed=4, empty=(5,))
    dense = docs_to_dense(docs, v)
    vocab = ["word%d" % i for i in range(v)]
    write_uci(work / "docword.txt", dense)
    (work / "vocab.txt").write_text("\n".join(vocab) + "\n")
    subprocess.run([bin_, "train", "--docword", str(work / "docword.txt"), "--vocab", str(work / "vocab.txt"),
                    "-k", "4", "-n", "25", "--seed", "7", "--device", "cpu", "--test-fraction", "0",
                    "--out", str(work / "run")], check=True, capture_output=True)
    return work, docs, dense, vocab, bin_


def test_same_model_as_the_cli(cli_run):
    work, docs, dense, vocab, _ = cli_run
    lda = sklda.LDA(n_topics=4, n_iter=25, seed=7, device="cpu").fit(dense, vocab=vocab)
    model = sklda.read_model(work / "run" / "model.skl")
    np.testing.assert_array_equal(model.counts, lda.model_.counts)
    assert model.vocab == vocab and model.sweeps == 25
    np.testing.assert_array_equal(np.load(work / "run" / "theta.npy"), lda.theta_)


def test_read_model_matches_phi_npy(cli_run):
    work = cli_run[0]
    model = sklda.read_model(work / "run" / "model.skl")
    phi = np.load(work / "run" / "phi.npy")
    assert phi.shape == (model.n_topics, model.n_words)
    np.testing.assert_array_equal(model.phi, phi)
    np.testing.assert_allclose(model.phi, (model.counts + model.beta) /
                               (model.counts.sum(1, keepdims=True) + model.n_words * model.beta), rtol=1e-6)


def test_read_theta_txt_matches_theta_npy(cli_run):
    work, docs = cli_run[0], cli_run[1]
    t = sklda.read_theta_txt(work / "run" / "theta.txt")
    full = np.load(work / "run" / "theta.npy")
    assert t.theta.shape == (len(docs) - 1, 4) and 5 not in t.doc_ids  # the empty docID has no line
    assert t.alpha == pytest.approx(50.0 / 4)
    np.testing.assert_allclose(t.theta, full[t.doc_ids], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(t.theta.sum(axis=1), 1.0, atol=1e-5)


def test_same_proportions_as_cli_infer(cli_run):
    work, docs, dense, vocab, bin_ = cli_run
    new_docs, v = planted_docs(num_docs=30, seed=99)
    write_uci(work / "new.txt", docs_to_dense(new_docs, v))
    subprocess.run([bin_, "infer", "--model", str(work / "run" / "model.skl"), "--docword", str(work / "new.txt"),
                    "-n", "30", "--seed", "5", "--out", str(work / "new_theta.txt")], check=True, capture_output=True)
    t = sklda.read_theta_txt(work / "new_theta.txt")
    lda = sklda.LDA.load(work / "run" / "model.skl", seed=5, infer_iter=30)
    np.testing.assert_allclose(lda.transform(new_docs)[t.doc_ids], t.theta, rtol=1e-5, atol=1e-6)


def test_a_model_whose_seed_is_above_int64(cli_run, tmp_path):
    """`sk-lda train --seed` takes up to 2^64 - 1, which sklda_options.seed (int64) cannot hold: LDA.load()
    keeps it, and transform() then folds in with the model's own seed (the library's default)."""
    work, docs, _, _, bin_ = cli_run
    seed = 2**64 - 1
    subprocess.run([bin_, "train", "--docword", str(work / "docword.txt"), "-k", "4", "-n", "3", "--seed", str(seed),
                    "--device", "cpu", "--out", str(tmp_path / "run")], check=True, capture_output=True)
    lda = sklda.LDA.load(tmp_path / "run" / "model.skl", infer_iter=5)
    assert lda.seed == seed == lda.model_.seed
    theta = lda.transform(docs[:10])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(theta, lda.transform(docs[:10]))
    with pytest.raises(sklda.SkldaInputError, match="seed=18446744073709551614"):
        sklda.LDA.load(tmp_path / "run" / "model.skl", seed=seed - 1).transform(docs[:10])
