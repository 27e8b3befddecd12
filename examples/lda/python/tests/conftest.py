"""Fixtures of sklda's tests: generated corpora, the sk-lda program, the shared data, the GPU marker.

Environment (ctest sets it; see ../CMakeLists.txt): SKLDA_LIBRARY (a build tree's libsk_lda.so, when the
package is not pip-installed), SK_LDA_BIN (the sk-lda program: the CLI tests skip without it), SK_DATA
(the shared corpora folder: the kos tests skip without it).
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(HERE)
REPO = os.path.abspath(os.path.join(PACKAGE_DIR, "..", "..", ".."))

try:
    import sklda  # noqa: F401  (installed, or on PYTHONPATH)
except ImportError:
    sys.path.insert(0, PACKAGE_DIR)
    import sklda  # noqa: F401


def planted_docs(num_docs=200, num_topics=4, words_per_topic=10, seed=0, empty=()):
    """Documents of word ids drawn from planted topics: topic k owns words [k W, (k + 1) W); each document
    mixes one or two topics. Tokens are sorted within a document, as a count matrix would give them.
    Returns (list of lists, V)."""
    rng = np.random.default_rng(seed)
    v = num_topics * words_per_topic
    docs = []
    for d in range(num_docs):
        if d in empty:
            docs.append([])
            continue
        topics = rng.choice(num_topics, size=rng.integers(1, 3), replace=False)
        n = int(rng.integers(20, 60))
        z = rng.choice(topics, size=n)
        ids = z * words_per_topic + rng.integers(0, words_per_topic, size=n)
        docs.append(sorted(int(w) for w in ids))
    return docs, v


def docs_to_dense(docs, v):
    """A dense D x V count matrix of token lists."""
    x = np.zeros((len(docs), v), dtype=np.int64)
    for d, doc in enumerate(docs):
        np.add.at(x[d], np.asarray(doc, dtype=np.int64), 1)
    return x


@pytest.fixture(scope="session")
def planted():
    """200 planted documents over V = 40 (4 topics of 10 words), documents 7 and 150 empty."""
    return planted_docs(empty=(7, 150))


@pytest.fixture(scope="session")
def fitted(planted):
    """An LDA with K = 4 fitted on the planted documents on the CPU (shared: do not change it)."""
    docs, v = planted
    vocab = ["w%02d" % i for i in range(v)]
    return sklda.LDA(n_topics=4, n_iter=60, seed=3, device="cpu", alpha=0.5, beta=0.05).fit(docs, vocab=vocab)


@pytest.fixture
def sk_lda_bin():
    """The sk-lda program ($SK_LDA_BIN), or skip."""
    path = os.environ.get("SK_LDA_BIN")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("SK_LDA_BIN does not name the sk-lda program")
    return path


@pytest.fixture(scope="session")
def kos_dir():
    """The folder of docword.kos.txt.gz and vocab.kos.txt ($SK_DATA/kos, else ../shared/data/kos), or skip."""
    base = os.environ.get("SK_DATA") or os.path.join(REPO, "..", "shared", "data")
    folder = os.path.join(base, "kos")
    if not os.path.isfile(os.path.join(folder, "docword.kos.txt.gz")):
        pytest.skip("no KOS corpus in %s" % folder)
    return folder


def pytest_collection_modifyitems(config, items):
    """Tests marked gpu are skipped, saying why, unless libsk_lda sees a GPU."""
    if not any("gpu" in item.keywords for item in items):
        return
    if sklda.gpu_available():
        return
    skip = pytest.mark.skip(reason="no GPU: sklda.gpu_available() is False")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
