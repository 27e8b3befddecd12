"""Models: a trained or loaded sklda_model, its topics as numpy arrays, and model.skl files."""

import ctypes

import numpy as np

from . import _lib

__all__ = ["Model", "read_model"]


def _ptr(arr, ctype):
    return arr.ctypes.data_as(ctypes.POINTER(ctype))


class Model(_lib.Handle):
    """A topic model held by libsk_lda (an sklda_model), trained by LDA.fit() or read by read_model().

    Every array is a copy made when asked for. The library's memory is freed by close(), on leaving a
    `with` block, or when the object is collected.

    Attributes:
        n_topics: K.
        n_words: V.
        sweeps: the training sweeps the model has had.
        beta: the topic-word prior.
    """

    _free = "sklda_model_free"
    _what = "model"

    def __init__(self, handle):
        """Takes ownership of an sklda_model pointer (internal: use read_model() or LDA.fit())."""
        self._handle = handle
        lib = _lib.lib()
        self.n_topics = int(lib.sklda_model_num_topics(handle))
        self.n_words = int(lib.sklda_model_num_words(handle))
        self.sweeps = int(lib.sklda_model_sweeps(handle))
        self.seed = int(lib.sklda_model_seed(handle))
        self.beta = float(lib.sklda_model_beta(handle))

    def _call(self, name, *args):
        err = _lib.new_error()
        status = getattr(_lib.lib(), name)(self.handle, *args, ctypes.byref(err))
        _lib.check(status, err, name)

    @property
    def alpha(self):
        """The document-topic prior, K float64 values (all equal unless optimised)."""
        a = np.empty(self.n_topics, dtype=np.float64)
        _lib.lib().sklda_model_alpha(self.handle, _ptr(a, ctypes.c_double))
        return a

    @property
    def phi(self):
        """The topic-word distributions, K x V float32: phi[k, v] = (n_vk + beta) / (n_k + V beta)."""
        phi = np.empty((self.n_topics, self.n_words), dtype=np.float32)
        self._call("sklda_model_phi", _ptr(phi, ctypes.c_float))
        return phi

    @property
    def counts(self):
        """The topic-word counts n_vk, K x V int32 (row k is topic k; what model.skl stores)."""
        c = np.empty((self.n_topics, self.n_words), dtype=np.int32)
        self._call("sklda_model_topic_word_counts", _ptr(c, ctypes.c_int32))
        return c

    @property
    def vocab(self):
        """The model's words as a list of V str, or None when it has none."""
        lib = _lib.lib()
        if lib.sklda_model_word(self.handle, 0) is None:
            return None
        return [_lib.decode_word(lib.sklda_model_word(self.handle, v)) for v in range(self.n_words)]

    @property
    def joint_ll(self):
        """The last joint log-likelihood per token of training (NaN for a loaded model)."""
        return float(_lib.lib().sklda_model_joint_ll(self.handle))

    @property
    def heldout_ll(self):
        """The held-out log-likelihood per token of training's held-out documents (NaN: none, or loaded)."""
        return float(_lib.lib().sklda_model_heldout_ll(self.handle))

    @property
    def n_docs(self):
        """The training documents the model has theta rows for (0 for a loaded model)."""
        return int(_lib.lib().sklda_model_num_docs(self.handle))

    def theta(self):
        """The training documents' topic proportions, n_docs x K float32 (rows sum to 1).

        Raises:
            SkldaInputError: a loaded model has no documents.
        """
        t = np.empty((self.n_docs, self.n_topics), dtype=np.float32)
        self._call("sklda_model_theta", _ptr(t, ctypes.c_float))
        return t

    def top_word_ids(self, n=10):
        """The n most probable word ids of every topic, K x n int32 (ties: the smaller id first).

        Args:
            n: an int >= 1; above V it is clamped to V (every word, ranked): K x V.
        Raises:
            SkldaInputError: n is not an int >= 1 (a bool or a float such as 2.5 included).
        """
        return self._top_word_ids(n, "top_word_ids")

    def _top_word_ids(self, n, call):
        """top_word_ids(n), whose message names `call` as the function given n."""
        n = min(_lib.check_int(n, call, "n", 1), self.n_words)
        ids = np.empty((self.n_topics, n), dtype=np.int32)
        self._call("sklda_model_top_words", n, _ptr(ids, ctypes.c_int32))
        return ids

    def top_words(self, n=10):
        """The n most probable words of every topic, a list of K lists of str.

        Words without a vocabulary are named as sk-lda's outputs name them: "w%06d" of the 0-based id.

        Args:
            n: an int >= 1; above V it is clamped to V (every word, ranked).
        Raises:
            SkldaInputError: n is not an int >= 1 (a bool or a float such as 2.5 included).
        """
        ids = self._top_word_ids(n, "top_words")
        vocab = self.vocab
        name = (lambda v: vocab[v]) if vocab is not None else (lambda v: "w%06d" % v)
        return [[name(int(v)) for v in row] for row in ids]

    def save(self, path):
        """Writes the model as model.skl (the file `sk-lda infer` reads), replaced atomically."""
        self._call("sklda_model_save", _lib.encode_path(path))

    def __repr__(self):
        return "Model(n_topics=%d, n_words=%d, sweeps=%d)" % (self.n_topics, self.n_words, self.sweeps)


def read_model(path):
    """Reads a model.skl (written by LDA.save() or `sk-lda train --out`) with sklda_model_load().

    Returns:
        a Model: .phi (K x V float32), .counts (K x V int32), .alpha (K float64), .beta, .vocab (list of
        str or None), .top_words(n).
    Raises:
        SkldaInputError: the file is missing, not a model file, or damaged (the message names it).
    """
    out = _lib.ModelP()
    err = _lib.new_error()
    status = _lib.lib().sklda_model_load(_lib.encode_path(path), ctypes.byref(out), ctypes.byref(err))
    _lib.check(status, err, "sklda_model_load")
    return Model(out)
