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

        Each array is 1-D and holds integers: any integer dtype, Python ints, or floats with whole values
        (2.0 is 2; 2.5 is refused, never truncated). Values are checked against the C arrays' types and
        ranges before the library sees them, never wrapped. indices and counts need at least indptr[-1]
        entries; entries past indptr[-1] are ignored (as scipy.sparse ignores them). Arrays that already are
        contiguous int64 (indptr) and int32 (indices, counts) are passed without a copy.

        Args:
            indptr: D + 1 offsets (D <= 2^31 - 1), indptr[0] = 0, non-decreasing (int64).
            indices: at least indptr[-1] entries: the entries' word ids, each in [0, n_words) (int32).
            counts: at least indptr[-1] entries: the entries' counts, in 0..2^31 - 1 (int32), or None (each
                entry is one token).
            n_words: V, an int in 1..2^31 - 1.
            vocab: V words (str without NUL characters), or None.
        Raises:
            SkldaInputError: an array that is not 1-D, is too short, or holds a non-integer or a value out
                of range, or offsets that do not start at 0 or decrease (the message names the argument and
                the first bad entry); totals the library refuses (T >= 2^63, a document of 2^31 tokens).
        """
        n_words = _lib.check_int(n_words, "from_csr", "n_words", 1, _INT32_MAX)
        indptr = _csr_array(indptr, "indptr", np.int64, 0, _lib.INT64_MAX)
        if indptr.shape[0] == 0:
            raise SkldaInputError("sklda: from_csr(indptr): is empty: it needs D + 1 entries, [0] for no documents")
        n_docs = indptr.shape[0] - 1
        if n_docs > _INT32_MAX:
            raise SkldaInputError("sklda: from_csr(indptr): %d documents: at most 2^31 - 1" % n_docs)
        if indptr[0] != 0:
            raise SkldaInputError("sklda: from_csr(): indptr[0] = %d: the offsets must start at 0" % indptr[0])
        down = np.flatnonzero(indptr[1:] < indptr[:-1])
        if down.size:
            d = int(down[0])
            raise SkldaInputError("sklda: from_csr(): indptr[%d] = %d is below indptr[%d] = %d: the offsets must "
                                  "not decrease" % (d + 1, indptr[d + 1], d, indptr[d]))
        nnz = int(indptr[-1])
        indices = _csr_array(indices, "indices", np.int32, 0, n_words - 1, nnz,
                             "word ids are below n_words = %d" % n_words)
        lib = _lib.lib()
        out = _lib.CorpusP()
        err = _lib.new_error()
        c_counts = None
        if counts is not None:
            counts = _csr_array(counts, "counts", np.int32, 0, _INT32_MAX, nnz)
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
            SkldaInputError: len(vocab) is not V; a word is empty or holds a NUL character (C strings end at
                the first NUL: "a\\0x" would become "a").
        """
        words = [_lib.encode_word(w) for w in vocab]
        if len(words) != self.n_words:
            raise SkldaInputError("sklda: vocab has %d words, the documents have V = %d (one word per column "
                                  "or word id)" % (len(words), self.n_words))
        for v, w in enumerate(words):
            if b"\0" in w:
                raise SkldaInputError("sklda: vocab[%d] = %r holds a NUL character, which would cut the "
                                      "word short (C strings end at it)" % (v, _lib.decode_word(w)))
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


def _csr_array(x, name, dtype, lo, hi, length=None, why=None):
    """One of from_csr()'s arrays as a contiguous array of dtype (no copy when it is one already): its first
    `length` entries (None: all of them), checked to be 1-D, long enough, and integers in [lo, hi].

    Args:
        x: the caller's array (anything numpy.asarray takes).
        name: the argument's name, for the messages.
        dtype: the C array's type (np.int32 or np.int64).
        lo, hi: the values allowed.
        length: the entries the library reads (indptr[-1]), or None.
        why: what the range means, for the message, or None.
    Raises:
        SkldaInputError: the first bad entry by index, or the shape or dtype that is wrong.
    """
    try:
        a = np.asarray(x)
    except (ValueError, TypeError, OverflowError) as e:
        raise SkldaInputError("sklda: from_csr(%s): not a 1-D array of integers (numpy: %s)" % (name, e)) from None
    if a.ndim != 1:
        raise SkldaInputError("sklda: from_csr(%s): must be 1-D, not of shape %s" % (name, a.shape))
    if length is not None:
        if a.shape[0] < length:
            raise SkldaInputError("sklda: from_csr(%s): has %d entries; indptr[-1] = %d needs at least that many"
                                  % (name, a.shape[0], length))
        a = a[:length]
    where = " (%s)" % why if why else ""
    kind = a.dtype.kind
    if kind == "O":  # Python ints beyond 64 bits, or a mixture
        values = a.tolist()
        for i, v in enumerate(values):
            if not _lib.is_int(v) or not lo <= int(v) <= hi:
                raise SkldaInputError("sklda: from_csr(): %s[%d] = %r: must be an int %s%s"
                                      % (name, i, v, _lib.span(lo, hi), where))
        return np.array([int(v) for v in values], dtype=dtype)
    if kind not in "iuf":
        raise SkldaInputError("sklda: from_csr(%s): holds %s: it must hold integers" % (name, a.dtype))
    if a.size:
        if kind == "f":
            bad = ~np.isfinite(a) | (a != np.floor(a))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise SkldaInputError("sklda: from_csr(): %s[%d] = %r: must be a whole number (it is not rounded)"
                                      % (name, i, a[i].item()))
        # Python's comparisons of ints and floats are exact: nothing is rounded or wrapped here.
        if a.min().item() < lo or a.max().item() > hi:
            if kind == "f":
                b = a.astype(np.float64)
                bad = (b < lo) | (b >= float(hi + 1))  # hi + 1 is 2^31, 2^63 or V: exact in float64
            else:
                info = np.iinfo(a.dtype)
                bad = (a < a.dtype.type(max(lo, info.min))) | (a > a.dtype.type(min(hi, info.max)))
            i = int(np.flatnonzero(bad)[0])
            raise SkldaInputError("sklda: from_csr(): %s[%d] = %r: must be %s%s"
                                  % (name, i, a[i].item(), _lib.span(lo, hi), where))
    return np.ascontiguousarray(a, dtype=dtype)


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
        try:
            a = np.asarray(doc)
        except (ValueError, TypeError, OverflowError) as e:  # e.g. [0, [1]]: numpy makes no 1-D array of it
            raise SkldaInputError("sklda: document %d is not a list of word ids or words (numpy: %s)"
                                  % (d, e)) from None
        if a.ndim != 1:
            raise SkldaInputError("sklda: document %d is not a list of word ids or words" % d)
        if a.size == 0:
            arrays.append(np.zeros(0, dtype=np.int64))
            continue
        k = "ids" if a.dtype.kind in "iu" else "words" if a.dtype.kind in "USO" else None
        if k == "words" and not (isinstance(doc, np.ndarray) and doc.dtype.kind in "US"):
            k = _check_words(doc, d)  # numpy turns [0, "a"] into strings, [0, 2**64] into objects
            if k == "words":  # the words as given: numpy's strings lose trailing NULs ("b\0" -> "b")
                a = np.empty(a.shape[0], dtype=object)
                a[:] = list(doc)
        if k is None or (kind is not None and k != kind):
            raise SkldaInputError("sklda: document %d holds %s: every document must be a list of word ids "
                                  "(ints) or of words (str), the same kind throughout" % (d, a.dtype))
        kind = k
        if k == "ids":
            a = _ids_int64(a, d)
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
    if ids.size and ids.max() > _INT32_MAX - 1:
        t = int(np.argmax(ids))
        d = int(np.searchsorted(indptr, t, side="right") - 1)
        raise SkldaInputError("sklda: document %d, token %d: word id %d is above 2^31 - 2, the largest a vocabulary "
                              "of at most 2^31 - 1 words has" % (d, t - indptr[d], ids[t]))
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


def _check_words(doc, d):
    """The kind of a document numpy made strings or objects of: "words" when every token is a str (or
    bytes); "ids" when every token is an int (ids beyond 64 bits, which _ids_int64() refuses).

    Raises:
        SkldaInputError: a document that mixes words and ids (numpy would turn id 0 into the word "0"), or
            holds something else (None, a float among words).
    """
    tokens = list(doc)
    if all(_lib.is_int(w) for w in tokens):
        return "ids"
    for t, w in enumerate(tokens):
        if not isinstance(w, (str, bytes)) and not _lib.is_int(w):
            raise SkldaInputError("sklda: document %d, token %d: %r (%s) is neither a word id (int) nor a word "
                                  "(str)" % (d, t, w, type(w).__name__))
    t = next((t for t, w in enumerate(tokens) if _lib.is_int(w)), None)
    if t is None:
        return "words"
    raise SkldaInputError("sklda: document %d, token %d: the word id %r among words: every document must be a "
                          "list of word ids (ints) or of words (str), the same kind throughout" % (d, t, tokens[t]))


def _ids_int64(a, d):
    """A document's word ids as int64. Ids that int64 cannot hold (uint64 ones above 2^63 - 1, Python ints
    beyond 64 bits) are refused here, before a conversion could wrap them; _from_lists() checks the rest.

    Raises:
        SkldaInputError: the first such id, by document and token.
    """
    if a.dtype.kind == "O" or a.dtype == np.uint64:
        values = a.tolist()
        for t, w in enumerate(values):
            if int(w) < 0:  # also below -2^63
                raise SkldaInputError("sklda: document %d, token %d: word id %d is negative" % (d, t, w))
            if int(w) > _lib.INT64_MAX:
                raise SkldaInputError("sklda: document %d, token %d: word id %d is above 2^31 - 2, the largest a "
                                      "vocabulary of at most 2^31 - 1 words has" % (d, t, w))
        a = np.array(values, dtype=np.int64) if a.dtype.kind == "O" else a
    return a.astype(np.int64)


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
