"""Corpora: documents as libsk_lda holds them (sklda_corpus), made from what Python users have.

A document-word count matrix (scipy.sparse CSR, CSC or COO; a dense 2-D numpy array), a list of documents
each a list of word ids or of words, or a file read by the library itself (read_corpus()).
scipy is optional: it is imported only to convert a scipy matrix that is given.
"""

import ctypes

import numpy as np

from . import _lib
from ._errors import SkldaInputError

__all__ = ["Corpus", "read_corpus", "to_corpus"]

_INT32_MAX = 2**31 - 1


class Corpus(_lib.Handle):
    """Documents held by libsk_lda (an sklda_corpus): usable as X by every LDA method.

    Make one with read_corpus() (a UCI, LDA-C or plain-text file, read as `sk-lda train` reads it) or
    Corpus.from_documents() (anything LDA.fit() takes). The library's memory is freed by close(), on
    leaving a `with` block, or when the object is collected.

    Attributes:
        n_docs: the documents the input numbered, empty ones included (theta's rows).
        n_words: the vocabulary size V.
        n_tokens: the number of tokens T.
        dropped_words: tokens of a list of words left out as unknown (skip_unknown) when it was made.
    """

    _free = "sklda_corpus_free"
    _what = "corpus"

    def __init__(self, handle):
        """Takes ownership of an sklda_corpus pointer (internal: use read_corpus() or from_documents())."""
        self._handle = handle
        lib = _lib.lib()
        self.n_docs = int(lib.sklda_corpus_num_input_docs(handle))
        self.n_words = int(lib.sklda_corpus_num_words(handle))
        self.n_tokens = int(lib.sklda_corpus_num_tokens(handle))
        self.dropped_words = 0

    @classmethod
    def from_csr(cls, indptr, indices, counts, n_words, vocab=None):
        """A corpus from CSR arrays (sklda_corpus_from_csr(); the arrays are copied).

        Args:
            indptr: D + 1 non-decreasing offsets from 0 (int64).
            indices: the entries' word ids, each in [0, n_words) (int32).
            counts: the entries' counts >= 0 (int32), or None (each entry is one token).
            n_words: V >= 1.
            vocab: V words, or None.
        Raises:
            SkldaInputError: an entry, size or count the library refuses (it names the first bad one).
        """
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        indices = np.ascontiguousarray(indices, dtype=np.int32)
        n_docs = indptr.shape[0] - 1
        if n_docs > _INT32_MAX or n_words > _INT32_MAX:
            raise SkldaInputError("sklda: %d documents and %d words: at most 2^31 - 1 of each" % (n_docs, n_words))
        lib = _lib.lib()
        out = _lib.CorpusP()
        err = _lib.new_error()
        c_counts = None
        if counts is not None:
            counts = np.ascontiguousarray(counts, dtype=np.int32)
            c_counts = counts.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        status = lib.sklda_corpus_from_csr(n_docs, n_words, indptr.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                                           indices.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), c_counts,
                                           ctypes.byref(out), ctypes.byref(err))
        _lib.check(status, err, "sklda_corpus_from_csr")
        corpus = cls(out)
        if vocab is not None:
            corpus.set_vocab(vocab)
        return corpus

    @classmethod
    def from_documents(cls, X, vocab=None):
        """A corpus from anything LDA.fit() takes (see to_corpus()); a Corpus is returned as it is."""
        corpus, _ = to_corpus(X, vocab=vocab)
        return corpus

    @property
    def vocab(self):
        """The corpus's words as a list of V str, or None when it has none."""
        lib = _lib.lib()
        first = lib.sklda_corpus_word(self.handle, 0)
        if first is None:
            return None
        return [_lib.decode_word(lib.sklda_corpus_word(self.handle, v)) for v in range(self.n_words)]

    def set_vocab(self, vocab):
        """Gives the corpus its V words (sklda_corpus_set_vocab()): topics then show them.

        Raises:
            SkldaInputError: len(vocab) is not V.
        """
        words = [_lib.encode_word(w) for w in vocab]
        if len(words) != self.n_words:
            raise SkldaInputError("sklda: vocab has %d words, the documents have V = %d (one word per column "
                                  "or word id)" % (len(words), self.n_words))
        arr = (ctypes.c_char_p * len(words))(*words)
        err = _lib.new_error()
        status = _lib.lib().sklda_corpus_set_vocab(self.handle, arr, len(words), ctypes.byref(err))
        _lib.check(status, err, "sklda_corpus_set_vocab")

    def __repr__(self):
        return "Corpus(n_docs=%d, n_words=%d, n_tokens=%d)" % (self.n_docs, self.n_words, self.n_tokens)


def read_corpus(path, format="uci", vocab=None, stopwords=None, min_count=0):
    """Reads a corpus file as `sk-lda train` does (sklda_corpus_read()).

    Args:
        path: the file: UCI bag of words (docword.X.txt, .gz too, or sk-lda's binary corpus), LDA-C, or text.
        format: "uci" (default), "ldac" or "text" (one document per line, lower-cased, letters only).
        vocab: a vocabulary file, one word per line (uci, ldac): it must hold exactly V words.
        stopwords: text: a file of words to drop, one per line.
        min_count: text: drop words seen this many times or fewer.
    Returns:
        a Corpus.
    Raises:
        SkldaInputError: a missing or malformed file (the message names the file and line).
    """
    ro = _lib.SkldaReadOptions()
    lib = _lib.lib()
    lib.sklda_read_options_default(ctypes.byref(ro))
    ro.format = format.encode()
    ro.vocab = _lib.encode_path(vocab) if vocab is not None else None
    ro.stopwords = _lib.encode_path(stopwords) if stopwords is not None else None
    ro.min_count = int(min_count)
    out = _lib.CorpusP()
    err = _lib.new_error()
    status = lib.sklda_corpus_read(_lib.encode_path(path), ctypes.byref(ro), ctypes.byref(out), ctypes.byref(err))
    _lib.check(status, err, "sklda_corpus_read")
    return Corpus(out)


def to_corpus(X, vocab=None, n_words=None, word_index=None, skip_unknown=False, build_vocab=True):
    """Converts documents to a Corpus.

    Args:
        X: a Corpus (returned as it is); a scipy.sparse matrix (documents x words, integer counts >= 0);
            a dense 2-D numpy array of counts; or a list of documents, each a list of word ids (ints) or of
            words (str, mapped through word_index, else vocab, else numbered in order of first appearance).
        vocab: the words of the columns / ids (given to the corpus, so the model has them); or None.
        n_words: the vocabulary size the ids must stay below (a model's V), or None (from X or vocab).
        word_index: {word: id} for documents of words (a model's vocabulary), or None.
        skip_unknown: words or ids outside the vocabulary are dropped (else refused).
        build_vocab: documents of words without word_index or vocab number their words (else refused).
    Returns:
        (corpus, owned): owned is False when X was a Corpus already (the caller must not close it).
    Raises:
        SkldaInputError: X is none of these, has negative or non-integer counts, or an unknown word or id.
    """
    if isinstance(X, Corpus):
        if vocab is not None:
            X.set_vocab(vocab)
        return X, False
    dropped = 0
    if _is_scipy_sparse(X):
        indptr, indices, counts, v = _from_sparse(X)
    elif isinstance(X, np.ndarray):
        indptr, indices, counts, v = _from_dense(X)
    elif isinstance(X, (list, tuple)):
        if not build_vocab and word_index is None and vocab is None and _has_words(X):
            raise SkldaInputError("sklda: documents of words need a model with a vocabulary (fit(X, vocab=...), "
                                  "or fit on documents of words); this one has none: pass word ids")
        indptr, indices, counts, v, built, dropped = _from_lists(X, vocab, n_words, word_index, skip_unknown)
        if built is not None:
            vocab = built
    else:
        raise SkldaInputError("sklda: X must be a scipy.sparse matrix, a 2-D numpy array of counts, a list of "
                              "documents (lists of word ids or words) or an sklda.Corpus, not %s"
                              % type(X).__name__)
    if n_words is not None and v != n_words and not skip_unknown and not isinstance(X, (list, tuple)):
        raise SkldaInputError("sklda: X has %d columns, the model has %d words (pass a matrix with one "
                              "column per word of the model)" % (v, n_words))
    if vocab is not None and len(vocab) != v:
        raise SkldaInputError("sklda: vocab has %d words, X has %d columns" % (len(vocab), v))
    corpus = Corpus.from_csr(indptr, indices, counts, v, vocab)
    corpus.dropped_words = dropped
    return corpus, True


def _is_scipy_sparse(X):
    """Whether X is a scipy.sparse matrix or array, without importing scipy for other inputs."""
    if not type(X).__module__.startswith("scipy."):
        return False
    import scipy.sparse  # only now: scipy is optional
    return scipy.sparse.issparse(X)


def _has_words(docs):
    """Whether the first non-empty document of a list holds words (str) rather than ids."""
    for doc in docs:
        a = np.asarray(doc)
        if a.size:
            return a.dtype.kind in "USO"
    return False


def _counts_int32(data, what):
    """Counts as int32, refusing negative, non-integer, non-finite or too large values."""
    data = np.asarray(data)
    if data.dtype.kind == "b":
        return data.astype(np.int32)
    if data.dtype.kind not in "iuf":
        raise SkldaInputError("sklda: %s must hold numbers (counts), not %s" % (what, data.dtype))
    if data.size:
        if data.dtype.kind == "f":
            bad = ~np.isfinite(data) | (data != np.floor(data))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise SkldaInputError("sklda: %s holds %r at entry %d: counts must be whole numbers"
                                      % (what, data.flat[i], i))
        if data.min() < 0:
            i = int(np.argmin(data))
            raise SkldaInputError("sklda: %s holds %r at entry %d: counts must be >= 0" % (what, data.flat[i], i))
        if data.max() > _INT32_MAX:
            raise SkldaInputError("sklda: %s holds a count above 2^31 - 1" % what)
    return data.astype(np.int32)


def _from_sparse(X):
    csr = X.tocsr()
    n_docs, v = csr.shape
    counts = _counts_int32(csr.data, "the sparse matrix")
    return csr.indptr, csr.indices, counts, v


def _from_dense(X):
    if X.ndim != 2:
        raise SkldaInputError("sklda: a numpy X must be 2-D (documents x words), not %d-D" % X.ndim)
    counts = _counts_int32(X, "X")
    rows, cols = np.nonzero(counts)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return indptr, cols, counts[rows, cols], X.shape[1]


def _from_lists(docs, vocab, n_words, word_index, skip_unknown):
    """Token lists to CSR arrays (counts None: an entry per token). Returns (..., built vocab or None)."""
    arrays, kind = [], None
    for d, doc in enumerate(docs):
        a = np.asarray(doc)
        if a.ndim != 1:
            raise SkldaInputError("sklda: document %d is not a list of word ids or words" % d)
        if a.size == 0:
            arrays.append(np.zeros(0, dtype=np.int64))
            continue
        k = "ids" if a.dtype.kind in "iu" else "words" if a.dtype.kind in "USO" else None
        if k is None or (kind is not None and k != kind):
            raise SkldaInputError("sklda: document %d holds %s: every document must be a list of word ids "
                                  "(ints) or of words (str), the same kind throughout" % (d, a.dtype))
        kind = k
        arrays.append(a)
    built, dropped = None, 0
    if kind == "words":
        arrays, built, dropped = _map_words(arrays, vocab, word_index, skip_unknown)
    lengths = np.fromiter((a.shape[0] for a in arrays), dtype=np.int64, count=len(arrays))
    indptr = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    ids = np.concatenate(arrays).astype(np.int64) if arrays else np.zeros(0, dtype=np.int64)
    if ids.size and ids.min() < 0:
        t = int(np.argmin(ids))
        d = int(np.searchsorted(indptr, t, side="right") - 1)
        raise SkldaInputError("sklda: document %d, token %d: word id %d is negative" % (d, t - indptr[d], ids[t]))
    top = int(ids.max()) + 1 if ids.size else 1
    if built is not None:
        v = len(built)
    elif vocab is not None:
        v = len(vocab)
    elif n_words is not None:
        v = n_words
    else:
        v = top
    if top > v:
        if skip_unknown and vocab is None and built is None:
            v = top  # the library drops the ids the model lacks
        else:
            t = int(np.argmax(ids >= v))
            d = int(np.searchsorted(indptr, t, side="right") - 1)
            raise SkldaInputError("sklda: document %d, token %d: word id %d is not below V = %d (the %s)"
                                  % (d, t - indptr[d], ids[t], v, "vocabulary" if vocab is not None else
                                     "model's words" if n_words is not None else "vocabulary"))
    if v < 1:
        v = 1
    return indptr, ids.astype(np.int32), None, v, built, dropped


def _map_words(arrays, vocab, word_index, skip_unknown):
    """Documents of words to id arrays through word_index or vocab (without either, a vocabulary is built).

    Returns (arrays, built vocabulary or None, tokens dropped as unknown with skip_unknown).
    """
    built, dropped = None, 0
    if word_index is None and vocab is not None:
        word_index = {w: i for i, w in enumerate(vocab)}
    if word_index is None:
        word_index, built = {}, []
        for a in arrays:
            for w in a.tolist():
                if w not in word_index:
                    word_index[w] = len(built)
                    built.append(w)
    out = []
    for d, a in enumerate(arrays):
        ids = []
        for i, w in enumerate(a.tolist()):
            v = word_index.get(w)
            if v is None:
                if not skip_unknown:
                    raise SkldaInputError("sklda: document %d, token %d: the word %r is not in the vocabulary "
                                          "(skip_unknown=True drops such words)" % (d, i, w))
                dropped += 1
                continue
            ids.append(v)
        out.append(np.asarray(ids, dtype=np.int64))
    return out, built, dropped
