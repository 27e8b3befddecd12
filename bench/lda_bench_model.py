"""What the Python benchmarks of sk-lda share: a trained model's counts and a UCI docword corpus.

load_model(LIBSK_LDA, MODEL.skl) reads the model through the Python package (examples/lda/python) with the
library given; read_docword(PATH) reads a gzipped UCI bag of words into each document's word ids.
"""
import gzip
import os
import sys


def load_model(library, model_path):
    """(counts, alpha, beta): the model's K x V word-topic counts (float64), its symmetric alpha (50 / K when
    the model keeps none) and beta."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "lda", "python"))
    os.environ.setdefault("SKLDA_LIBRARY", library)
    from sklda import LDA

    est = LDA.load(model_path)
    nvk = est.components_ - est.beta
    return nvk, (est.alpha if est.alpha is not None else 50.0 / nvk.shape[0]), est.beta


def read_docword(path):
    """(docs, num_words): document number (1-based, as in the file) -> its tokens' word ids (0-based), each
    word repeated by its count in file order; num_words from the header."""
    docs = {}
    with gzip.open(path, "rt") as f:
        int(f.readline())
        num_words = int(f.readline())
        int(f.readline())
        for line in f:
            d, w, c = map(int, line.split())
            docs.setdefault(d, []).extend([w - 1] * c)
    return docs, num_words
