"""libsk_lda through ctypes: finding the library, sk_lda.h's structs and every function's signature.

The structs mirror examples/lda/include/sk_lda.h field for field (ctypes lays them out as the C compiler
does; tests/test_layout.py compares sizes and offsets with the header compiled by cc). The library is
loaded on first use, so the readers of files that need no library (read_theta_txt) work without it.
"""

import ctypes
import numbers
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int32,
                    c_int64, c_uint64, c_void_p)

from ._errors import SkldaError, SkldaInputError

__all__ = ["lib", "library_path", "check", "new_error", "encode_path", "encode_word", "decode_word", "is_int",
           "check_int", "ctype_range", "span", "INT32_MAX", "INT64_MAX", "UINT64_MAX", "SkldaErrorStruct",
           "SkldaReadOptions", "SkldaOptions", "SkldaInferOptions", "SkldaProgress", "PROGRESS_FN", "LOG_FN",
           "CorpusP", "ModelP"]

LIBRARY_NAME = "libsk_lda.so"
ENV_VAR = "SKLDA_LIBRARY"

SKLDA_OK, SKLDA_ERROR_RUNTIME, SKLDA_ERROR_INPUT, SKLDA_STOPPED = 0, 1, 2, 3
SKLDA_LOG_INFO, SKLDA_LOG_WARNING = 0, 1
INT32_MAX, INT64_MAX, UINT64_MAX = 2**31 - 1, 2**63 - 1, 2**64 - 1


class SkldaErrorStruct(Structure):
    """sklda_error: the status and one line of text."""
    _fields_ = [("status", c_int), ("message", c_char * 1024)]


class SkldaReadOptions(Structure):
    """sklda_read_options: how sklda_corpus_read() reads a file."""
    _fields_ = [("format", c_char_p), ("vocab", c_char_p), ("stopwords", c_char_p), ("min_count", c_int64)]


class SkldaProgress(Structure):
    """sklda_progress: where a training run is, after every sweep."""
    _fields_ = [("sweep", c_int64), ("iters", c_int64), ("tokens_per_second", c_double),
                ("eta_seconds", c_double), ("evaluated", c_int), ("joint_ll", c_double),
                ("alpha_sum", c_double), ("beta", c_double)]


#: sklda_progress_fn: int (*)(const sklda_progress *, void *)
PROGRESS_FN = CFUNCTYPE(c_int, POINTER(SkldaProgress), c_void_p)
#: sklda_log_fn: void (*)(int level, const char *line, void *)
LOG_FN = CFUNCTYPE(None, c_int, c_char_p, c_void_p)


class SkldaOptions(Structure):
    """sklda_options: what sklda_train() does (sk-lda train's options)."""
    _fields_ = [("num_topics", c_int32), ("alpha", c_double), ("beta", c_double), ("seed", c_int64),
                ("iters", c_int64), ("test_fraction", c_double), ("sampler", c_char_p), ("device", c_char_p),
                ("gpu", c_int), ("gpu_exact", c_int), ("threads", c_int), ("device_memory", c_uint64),
                ("workers", c_int), ("minibatch", c_int32), ("panels", c_int32), ("whole_word_panels", c_int),
                ("ll_every", c_int64), ("optimize_every", c_int64), ("optimize_burnin", c_int64),
                ("start_topics", c_int32), ("heldout_sweeps", c_int32),
                ("out_dir", c_char_p), ("resume_dir", c_char_p), ("overwrite", c_int),
                ("checkpoint_every", c_int64), ("top_words", c_int), ("save_z", c_int),
                ("handle_signals", c_int), ("progress", PROGRESS_FN), ("log", LOG_FN), ("user", c_void_p)]


class SkldaInferOptions(Structure):
    """sklda_infer_options: how sklda_infer() and sklda_score() fold documents in."""
    _fields_ = [("iters", c_int), ("seed", c_int64), ("threads", c_int), ("skip_unknown", c_int)]


class _Corpus(Structure):
    """The opaque sklda_corpus."""


class _Model(Structure):
    """The opaque sklda_model."""


CorpusP = POINTER(_Corpus)
ModelP = POINTER(_Model)
_ERR = POINTER(SkldaErrorStruct)
_I32P, _I64P, _F32P, _F64P = POINTER(c_int32), POINTER(c_int64), POINTER(c_float), POINTER(c_double)

# name: (restype, argtypes), in the header's order.
_SIGNATURES = {
    "sklda_version": (c_char_p, []),
    "sklda_gpu_available": (c_int, []),
    "sklda_corpus_from_csr": (c_int, [c_int32, c_int32, _I64P, _I32P, _I32P, POINTER(CorpusP), _ERR]),
    "sklda_read_options_default": (None, [POINTER(SkldaReadOptions)]),
    "sklda_corpus_read": (c_int, [c_char_p, POINTER(SkldaReadOptions), POINTER(CorpusP), _ERR]),
    "sklda_corpus_set_vocab": (c_int, [CorpusP, POINTER(c_char_p), c_int32, _ERR]),
    "sklda_corpus_num_input_docs": (c_int32, [CorpusP]),
    "sklda_corpus_num_words": (c_int32, [CorpusP]),
    "sklda_corpus_num_tokens": (c_int64, [CorpusP]),
    "sklda_corpus_word": (c_char_p, [CorpusP, c_int32]),
    "sklda_corpus_free": (None, [CorpusP]),
    "sklda_options_default": (None, [POINTER(SkldaOptions)]),
    "sklda_train": (c_int, [CorpusP, POINTER(SkldaOptions), POINTER(ModelP), _ERR]),
    "sklda_model_num_topics": (c_int32, [ModelP]),
    "sklda_model_num_words": (c_int32, [ModelP]),
    "sklda_model_sweeps": (c_uint64, [ModelP]),
    "sklda_model_seed": (c_uint64, [ModelP]),
    "sklda_model_beta": (c_double, [ModelP]),
    "sklda_model_alpha": (None, [ModelP, _F64P]),
    "sklda_model_word": (c_char_p, [ModelP, c_int32]),
    "sklda_model_joint_ll": (c_double, [ModelP]),
    "sklda_model_heldout_ll": (c_double, [ModelP]),
    "sklda_model_phi": (c_int, [ModelP, _F32P, _ERR]),
    "sklda_model_topic_word_counts": (c_int, [ModelP, _I32P, _ERR]),
    "sklda_model_top_words": (c_int, [ModelP, c_int32, _I32P, _ERR]),
    "sklda_model_num_docs": (c_int32, [ModelP]),
    "sklda_model_theta": (c_int, [ModelP, _F32P, _ERR]),
    "sklda_infer_options_default": (None, [POINTER(SkldaInferOptions)]),
    "sklda_infer": (c_int, [ModelP, CorpusP, POINTER(SkldaInferOptions), _F32P, _I64P, _ERR]),
    "sklda_score": (c_int, [ModelP, CorpusP, POINTER(SkldaInferOptions), _F64P, _ERR]),
    "sklda_coherence": (c_int, [ModelP, CorpusP, c_int32, _F64P, _F64P, _ERR]),
    "sklda_model_save": (c_int, [ModelP, c_char_p, _ERR]),
    "sklda_model_load": (c_int, [c_char_p, POINTER(ModelP), _ERR]),
    "sklda_model_free": (None, [ModelP]),
}

_lock = threading.Lock()
_lib = None


def library_path():
    """Where libsk_lda.so is looked for: $SKLDA_LIBRARY when set, else the package's folder.

    Returns:
        the path (the file may not exist).
    """
    env = os.environ.get(ENV_VAR)
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME)


def lib():
    """The loaded library, with every function's argtypes and restype declared (loaded once).

    Raises:
        OSError: the library is in neither place, or cannot be loaded (the message names both places).
    """
    global _lib
    with _lock:
        if _lib is None:
            _lib = _load()
        return _lib


def _load():
    path = library_path()
    where = ("$%s = %s" % (ENV_VAR, path)) if os.environ.get(ENV_VAR) else path
    if not os.path.isfile(path):
        raise OSError("sklda: %s not found: looked in %s. Install the package with pip (pip install "
                      "examples/lda/python builds it), or set %s to a build tree's "
                      "<build>/examples/lda/%s" % (LIBRARY_NAME, where, ENV_VAR, LIBRARY_NAME))
    try:
        handle = ctypes.CDLL(path)
    except OSError as e:
        raise OSError("sklda: cannot load %s: %s" % (where, e)) from e
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            fn = getattr(handle, name)
        except AttributeError:
            raise OSError("sklda: %s lacks %s(): it is not the sk_lda.h this package was written for"
                          % (path, name)) from None
        fn.restype = restype
        fn.argtypes = argtypes
    return handle


def new_error():
    """A zeroed sklda_error for one call."""
    return SkldaErrorStruct()


def check(status, err, what=None):
    """Raises the exception of a failed call's status; returns the status otherwise (0, or 3: stopped).

    Args:
        status: what the call returned.
        err: the sklda_error the call filled.
        what: the call's name, used when the library left no message.
    Raises:
        SkldaInputError: status 2 (SKLDA_ERROR_INPUT).
        SkldaError: status 1, or a status sk_lda.h does not list.
    """
    if status in (SKLDA_OK, SKLDA_STOPPED):
        return status
    message = err.message.decode("utf-8", "replace") or "%s failed with status %d" % (what or "sklda", status)
    if status == SKLDA_ERROR_INPUT:
        raise SkldaInputError(message, status)
    raise SkldaError(message, status)


def is_int(value):
    """Whether value is an integer: a Python int or a numpy integer; bools (and numpy's) and floats are not."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


_NAMED = {INT32_MAX: "2^31 - 1", INT64_MAX: "2^63 - 1", UINT64_MAX: "2^64 - 1", -2**31: "-2^31", -2**63: "-2^63"}


def span(lo, hi=None):
    """The range [lo, hi] in messages: "in 1..65536", "in 0..2^63 - 1", or ">= lo" when hi is None."""
    if hi is None:
        return ">= %d" % lo
    return "in %s..%s" % (_NAMED.get(lo, str(lo)), _NAMED.get(hi, str(hi)))


def check_int(value, call, name, lo, hi=None):
    """A parameter that must be an integer in [lo, hi], as an int (nothing is rounded or wrapped).

    Args:
        value: the caller's value: an int or a numpy integer (a bool or a float, even 2.0, is refused).
        call: the function or class it was given to, for the message ("LDA", "top_words").
        name: the parameter's name, for the message.
        lo: the smallest value allowed.
        hi: the largest value allowed (usually the C field's limit, see ctype_range()), or None: no limit.
    Returns:
        int(value).
    Raises:
        SkldaInputError: naming call, name and the value, e.g. "sklda: LDA(n_topics=2.5): must be an int in
            1..65536".
    """
    if not is_int(value) or int(value) < lo or (hi is not None and int(value) > hi):
        raise SkldaInputError("sklda: %s(%s=%r): must be an int %s" % (call, name, value, span(lo, hi)))
    return int(value)


def ctype_range(ctype):
    """(smallest, largest) value of a ctypes integer type, e.g. (-2^31, 2^31 - 1) for c_int32."""
    bits = 8 * ctypes.sizeof(ctype)
    if ctype(-1).value == -1:
        return -2**(bits - 1), 2**(bits - 1) - 1
    return 0, 2**bits - 1


def encode_path(path):
    """A path (str, bytes or os.PathLike) as the bytes the C library takes."""
    return os.fsencode(os.fspath(path))


def encode_word(word):
    """A vocabulary word as bytes (UTF-8; undecodable bytes read earlier round-trip via surrogateescape)."""
    if isinstance(word, bytes):
        return word
    return str(word).encode("utf-8", "surrogateescape")


def decode_word(raw):
    """A word from the library as str (the inverse of encode_word)."""
    return raw.decode("utf-8", "surrogateescape")


class Handle:
    """A library object (a corpus or a model) that its class frees with the library function named by
    `_free` when closed, at the end of a `with` block, or when collected."""

    _free = None  # the library function that frees the object
    _what = "object"  # its name in messages

    @property
    def handle(self):
        """The library's pointer (raises ValueError once closed)."""
        if self._handle is None:
            raise ValueError("sklda: the %s is closed" % self._what)
        return self._handle

    def close(self):
        """Frees the library's object (a second call does nothing)."""
        if getattr(self, "_handle", None) is not None:
            getattr(lib(), self._free)(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass
