"""Mistakes a user makes: each is an exception that names the cause, never a crash or a silent default."""

import re

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


# ----------------------------------------------------------------------------------------------------
# Corpus.from_csr(): the arrays are checked before libsk_lda reads them (it reads indptr[-1] entries of
# indices and counts, and trusts their types)

@pytest.mark.parametrize("indptr, indices, counts, n_words, match", [
    ([0, 50_000_000], [0], None, 5, r"indices\): has 1 entries; indptr\[-1\] = 50000000"),  # read past the end
    ([0, 3], [0, 1, 2], [1], 5, r"counts\): has 1 entries; indptr\[-1\] = 3"),
    ([0, 1], [2**32], None, 5, r"indices\[0\] = 4294967296"),                  # was word id 0
    ([0, 1], [0], [2**32 + 1], 5, r"counts\[0\] = 4294967297"),               # was 1 token
    ([0, 1], np.array([2**64 - 1], dtype=np.uint64), None, 5, r"indices\[0\] = 18446744073709551615"),
    ([0, 2], [0, 1.9], None, 5, r"indices\[1\] = 1.9: must be a whole number"),  # was truncated to 1
    ([0, 1], [0], [2.5], 5, r"counts\[0\] = 2.5: must be a whole number"),
    ([0, 1], [np.nan], None, 5, r"indices\[0\] = nan"),
    ([0, 1.5], [0, 1], None, 5, r"indptr\[1\] = 1.5"),
    ([0, 2**64], [0], None, 5, r"indptr\[1\] = 18446744073709551616"),
    ([0, -1], [0], None, 5, r"indptr\[1\] = -1"),
    ([1, 2], [0, 1], None, 5, r"indptr\[0\] = 1: the offsets must start at 0"),
    ([0, 2, 1], [0, 1], None, 5, r"indptr\[2\] = 1 is below indptr\[1\] = 2"),
    ([], [], None, 5, r"indptr\): is empty"),
    ([[0, 1]], [0], None, 5, r"indptr\): must be 1-D"),
    ([0, 1], [[0]], None, 5, r"indices\): must be 1-D"),
    ([0, 1], [0], [[1]], 5, r"counts\): must be 1-D"),
    ([0, 1], [True], None, 5, r"indices\): holds bool"),
    ([0, 1], ["0"], None, 5, r"indices\): holds <U1"),
    ([0, 1], [0], [-1], 5, r"counts\[0\] = -1"),
    ([0, 1], [5], None, 5, r"indices\[0\] = 5: must be in 0..4"),
    ([0, 1], [0], None, 5.0, r"n_words=5.0"),
    ([0, 1], [0], None, True, r"n_words=True"),
    ([0, 1], [0], None, 2**32 + 1, r"n_words=4294967297"),
])
def test_from_csr_checks_the_arrays(indptr, indices, counts, n_words, match):
    with pytest.raises(sklda.SkldaInputError, match=match):
        sklda.Corpus.from_csr(indptr, indices, counts, n_words)


def test_from_csr_does_not_read_past_the_arrays():
    """indptr[-1] = 1030 over 1024 word ids that end at a page the process may not read: refused, not read
    (a crash before the checks, so in a child process: the test fails rather than taking pytest down)."""
    import subprocess
    import sys
    import textwrap
    if not sys.platform.startswith("linux"):
        pytest.skip("mprotect through ctypes: Linux only")
    code = textwrap.dedent("""
        import ctypes, mmap
        import numpy as np
        import sklda
        page = mmap.PAGESIZE
        buf = mmap.mmap(-1, 2 * page)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        assert libc.mprotect(addr + page, page, 0) == 0  # PROT_NONE
        indices = np.frombuffer(buf, dtype=np.int32, count=1024, offset=page - 4096)
        try:
            sklda.Corpus.from_csr(np.array([0, 1030], dtype=np.int64), indices, None, 5)
        except sklda.SkldaInputError as e:
            print(e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert "from_csr(indices): has 1024 entries; indptr[-1] = 1030" in r.stdout, r.stdout


def test_from_csr_takes_any_integers():
    """Any integer dtype, Python ints and whole floats; entries past indptr[-1] are ignored (as scipy's)."""
    c = sklda.Corpus.from_csr(np.array([0, 2, 3], dtype=np.uint8), np.array([0, 4, 1, 99], dtype=np.int16),
                              np.array([2, 3, 1, 2**40], dtype=np.uint64), 5)
    assert (c.n_docs, c.n_words, c.n_tokens) == (2, 5, 6)
    c = sklda.Corpus.from_csr([0, 2.0], [1.0, 3], [7.0, 0], np.int64(5))
    assert c.n_tokens == 7
    c = sklda.Corpus.from_csr(np.array([0, 1], dtype=np.int64), np.array([4, 0], dtype=np.int32), None, 5)
    assert c.n_tokens == 1
    assert sklda.Corpus.from_csr([0], [], None, 1).n_docs == 0


def test_unpruned_sparse_matrix():
    sp = pytest.importorskip("scipy.sparse")
    x = sp.csr_matrix((np.array([1, 2, 7]), np.array([0, 1, 0]), np.array([0, 1, 2])), shape=(2, 2))
    assert sklda.Corpus.from_documents(x).n_tokens == 3  # the third entry lies past indptr[-1]


@pytest.mark.parametrize("vocab", [["a\0x", "a\0y"], ["ok", "b\0"]])
def test_vocab_with_nul_is_refused(vocab):
    """C strings end at a NUL: "a\\0x" and "a\\0y" would both become "a"."""
    with pytest.raises(sklda.SkldaInputError, match=r"vocab\[\d\] = .* holds a NUL"):
        sklda.Corpus.from_csr([0, 2], [0, 1], None, 2, vocab=vocab)
    with pytest.raises(sklda.SkldaInputError, match="NUL"):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit([[0, 1]], vocab=vocab)
    with pytest.raises(sklda.SkldaInputError, match="NUL"):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit([vocab])  # a vocabulary built from the words
    lda = sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit([["a", "b"]])
    with pytest.raises(sklda.SkldaInputError, match="not in the vocabulary"):
        lda.transform([["b\0"]])  # not the word "b"


# ----------------------------------------------------------------------------------------------------
# LDA's parameters: checked against the C fields they fill (ctypes would wrap them)

@pytest.mark.parametrize("params, match", [
    ({"n_topics": 2**32 + 2}, r"n_topics=4294967298\): must be an int in 1..65536"),  # trained K = 2
    ({"n_topics": 65537}, r"n_topics=65537"),
    ({"n_topics": True}, r"n_topics=True"),
    ({"n_topics": np.float64(2.0)}, r"n_topics=(np\.float64\()?2\.0"),
    ({"n_iter": 2**64 + 3}, r"n_iter=18446744073709551619"),                          # ran 3 sweeps
    ({"n_iter": 10**9 + 1}, r"n_iter=1000000001"),
    ({"n_iter": 3.0}, r"n_iter=3.0"),
    ({"n_iter": True}, r"n_iter=True"),
    ({"seed": 2**64}, r"seed=18446744073709551616\): must be an int in 0..2\^63 - 1"),  # was seed 0
    ({"seed": 2**63}, r"seed=9223372036854775808"),                                   # was "default"
    ({"seed": 1.0}, r"seed=1.0"),
    ({"threads": 2**32 + 1}, r"threads=4294967297"),                                  # was 1 thread
    ({"threads": False}, r"threads=False"),
    ({"gpu": 2**32}, r"gpu=4294967296"),
    ({"device_memory": 2**64}, r"device_memory=18446744073709551616"),
    ({"ll_every": 2**64 + 1}, r"ll_every=18446744073709551617"),
    ({"optimize_every": 2**63}, r"optimize_every=9223372036854775808"),
    ({"optimize_burnin": 2**64}, r"optimize_burnin=18446744073709551616"),
    ({"checkpoint_every": 2**64 - 1}, r"checkpoint_every=18446744073709551615"),      # was -1
    ({"infer_iter": 2**32 + 5}, r"infer_iter=4294967301"),
    ({"infer_iter": 0}, r"infer_iter=0\): must be an int in 1..2\^31 - 1"),
    ({"alpha": True}, r"alpha=True"),
    ({"test_fraction": False}, r"test_fraction=False"),
    ({"options": {"workers": 2**32 + 2}}, r"options=\{'workers': 4294967298\}"),       # was 2 workers
    ({"options": {"start_topics": 2.0}}, r"options=\{'start_topics': 2.0\}"),
    ({"options": {"save_z": 2.0}}, r"options=\{'save_z': 2.0\}\): must be an int in -2\^31..2\^31 - 1 \(or a bool\)"),
])
def test_params_out_of_their_c_range(params, match):
    with pytest.raises(sklda.SkldaInputError, match=match):
        sklda.LDA(**{"n_topics": 2, "n_iter": 1, "device": "cpu", **params}).fit([[0, 1], [1, 2]])


def test_params_of_numpy_types_and_flag_options():
    lda = sklda.LDA(n_topics=np.int32(2), n_iter=np.uint64(2), seed=np.int64(2**63 - 1), device="cpu",
                    threads=np.int8(1), options={"save_z": False}).fit([[0, 1], [1, 2]])
    assert lda.n_iter_ == 2 and lda.components_.shape == (2, 3)


def test_loaded_model_params_are_checked(fitted, planted, tmp_path):
    """LDA.load() makes an LDA that fit() never checked: transform() and score() check what they use."""
    docs, _ = planted
    fitted.save(tmp_path / "m.skl")
    for params, match in (({"threads": 2**32 + 1}, "threads=4294967297"), ({"seed": 2**64}, "seed="),
                          ({"seed": -1}, "seed=-1"), ({"infer_iter": 2.5}, "infer_iter=2.5"),
                          ({"infer_iter": 0}, "infer_iter=0")):
        lda = sklda.LDA.load(tmp_path / "m.skl", **params)
        with pytest.raises(sklda.SkldaInputError, match=match):
            lda.transform(docs[:3])
        with pytest.raises(sklda.SkldaInputError, match=match):
            lda.score(docs[:3])


# ----------------------------------------------------------------------------------------------------
# Documents, top_words(), and the methods' own numbers

@pytest.mark.parametrize("x, match", [
    ([[0, "a"]], "token 0: the word id 0 among words"),  # was the words "0" and "a"
    ([["a", 1]], "token 1: the word id 1 among words"),
    ([[0, None]], "token 1: None .* is neither a word id"),
    ([["a", 2.5]], "token 1: 2.5 .* is neither a word id"),
    ([[0, [1]]], "document 0 is not a list of word ids"),  # was numpy's ValueError
    ([[1], [0, [1, 2]]], "document 1 is not a list of word ids"),
    ([[0, 2**64]], "token 1: word id 18446744073709551616 is above"),  # was the word "18446744073709551616"
    ([[-2**70]], "word id -1180591620717411303424 is negative"),
    ([np.array([2**63], dtype=np.uint64)], "word id 9223372036854775808 is above"),
    ([[2**31 - 1]], "word id 2147483647 is above 2\\^31 - 2"),
])
def test_bad_documents(x, match):
    with pytest.raises(sklda.SkldaInputError, match=match):
        sklda.LDA(n_topics=2, n_iter=1, device="cpu").fit(x)


@pytest.mark.parametrize("n", [2.5, -1, 0, True, "3", None])
def test_top_words_needs_an_int(fitted, n):
    with pytest.raises(sklda.SkldaInputError, match=r"top_words\(n=%s\): must be an int >= 1" % re.escape(repr(n))):
        fitted.top_words(n)
    with pytest.raises(sklda.SkldaInputError, match=r"top_word_ids\(n="):
        fitted.model_.top_word_ids(n)


def test_top_words_above_v_is_clamped(fitted, planted):
    """Documented: n above V gives all V words of every topic, ranked."""
    _, v = planted
    top = fitted.top_words(v + 100)
    assert len(top) == 4 and all(len(t) == v and sorted(t) == sorted(fitted.vocab_) for t in top)
    assert fitted.top_words(np.int64(3)) == [t[:3] for t in top]


def test_methods_check_their_numbers(fitted, planted):
    docs, _ = planted
    with pytest.raises(sklda.SkldaInputError, match=r"coherence\(top_n=4294967299\)"):  # was top_n = 3
        fitted.coherence(docs, top_n=2**32 + 3)
    with pytest.raises(sklda.SkldaInputError, match=r"coherence\(top_n=2.5\)"):
        fitted.coherence(docs, top_n=2.5)
    with pytest.raises(sklda.SkldaInputError, match=r"transform\(n_iter=2.5\)"):
        fitted.transform(docs[:3], n_iter=2.5)
    with pytest.raises(sklda.SkldaInputError, match=r"score\(n_iter=4294967297\)"):
        fitted.score(docs[:3], n_iter=2**32 + 1)
