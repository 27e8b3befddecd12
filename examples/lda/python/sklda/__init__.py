"""sklda: sk-lda's LDA trainer (samplekit) from Python, with numpy in and out.

    import sklda
    lda = sklda.LDA(n_topics=20, n_iter=200).fit(X)      # X: scipy.sparse counts, or lists of word ids
    lda.components_, lda.theta_, lda.top_words(10)       # K x V, D x K, the topics' words
    lda.transform(X_new); lda.score(X_new); lda.coherence(X)
    lda.save("model.skl"); sklda.LDA.load("model.skl")

The package calls libsk_lda.so (examples/lda/include/sk_lda.h) through ctypes: the wheel installs it in
this folder; $SKLDA_LIBRARY names another (a build tree's <build>/examples/lda/libsk_lda.so). numpy is
required, scipy optional (for scipy.sparse input). numpy.load() reads sk-lda's theta.npy and phi.npy.
"""

import logging as _logging

from ._corpus import Corpus, read_corpus
from ._errors import NotFittedError, SkldaError, SkldaInputError
from ._estimator import LDA
from ._lib import library_path
from ._model import Model, read_model
from ._readers import ThetaText, read_theta_txt

__all__ = ["LDA", "Corpus", "Model", "ThetaText", "SkldaError", "SkldaInputError", "NotFittedError",
           "read_corpus", "read_model", "read_theta_txt", "gpu_available", "library_version", "library_path",
           "__version__"]

__version__ = "2.1.0"

# A library's logger stays quiet unless the application configures logging (LDA(verbose=...) prints).
_logging.getLogger("sklda").addHandler(_logging.NullHandler())


def gpu_available():
    """Whether libsk_lda has its CUDA part and a GPU is visible to this process (sklda_gpu_available())."""
    from . import _lib
    return bool(_lib.lib().sklda_gpu_available())


def library_version():
    """The loaded libsk_lda's version string (SKLDA_VERSION of its build)."""
    from . import _lib
    return _lib.lib().sklda_version().decode()
