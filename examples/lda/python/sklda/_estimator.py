"""sklda.LDA: sk-lda's trainer as an estimator in scikit-learn's shape (fit, transform, components_)."""

import ctypes
import logging
import math
import os
import sys
import tempfile

import numpy as np

from . import _lib
from ._corpus import to_corpus
from ._errors import NotFittedError, SkldaInputError
from ._model import Model, read_model
from ._params import ParamsMixin

__all__ = ["LDA"]

_SAMPLERS = ("auto", "esca", "cgs", "aga")
_DEVICES = ("auto", "cpu", "gpu")
# sklda_options fields that LDA's own parameters or the package set; `options` may name any other.
_OWN_FIELDS = {"num_topics", "alpha", "beta", "seed", "iters", "test_fraction", "sampler", "device", "gpu",
               "gpu_exact", "threads", "device_memory", "ll_every", "optimize_every", "optimize_burnin",
               "out_dir", "resume_dir", "overwrite", "checkpoint_every", "handle_signals", "progress", "log",
               "user"}
# LDA's integer parameters: (smallest, largest), the range of the sklda_options or sklda_infer_options field
# each fills (ctypes would wrap a value beyond it), narrowed where sk_lda.h or the library documents less.
_INT_PARAMS = {
    "n_topics": (1, 65536),                    # num_topics, int32: K 1 .. 65,536 (sk_lda.h)
    "n_iter": (1, 10**9),                      # iters, int64: the library's range, 1 .. 10^9
    "seed": (0, _lib.INT64_MAX),               # seed, int64 (< 0 is the library's "default")
    "ll_every": (0, _lib.INT64_MAX),           # int64
    "optimize_every": (0, _lib.INT64_MAX),     # int64
    "optimize_burnin": (0, _lib.INT64_MAX),    # int64
    "threads": (0, 4096),                      # threads, int: the library's range, 0 .. 4,096
    "gpu": (0, _lib.INT32_MAX),                # int
    "device_memory": (0, _lib.UINT64_MAX),     # uint64
    "checkpoint_every": (-1, _lib.INT64_MAX),  # int64 (-1: automatic)
    "infer_iter": (1, _lib.INT32_MAX),         # sklda_infer_options.iters, int (its 0, "default", is not offered)
}
# Fields of `options` that are flags: a bool is taken as 0 or 1 (their other fields take ints only).
_FLAG_OPTIONS = {"whole_word_panels", "save_z"}


class LDA(ParamsMixin):
    """Latent Dirichlet allocation trained by sk-lda (collapsed Gibbs sampling: ESCA or CGS on the CPU,
    ESCA or AGA-LDA on a GPU), with numpy in and out.

    X, everywhere: a document-word count matrix (scipy.sparse CSR, CSC or COO, or a dense 2-D numpy array;
    integer counts >= 0), a list of documents each a list of word ids or of words (str), or an
    sklda.Corpus (read_corpus()). A document may be empty; a document mixing word ids and words is refused.

    Integer parameters take an int or a numpy integer, never a bool or a float (2.0 is refused, not
    rounded), within the range given here, which is the range of the sklda_options field each fills (or
    narrower, as sk_lda.h documents): a value outside raises SkldaInputError instead of wrapping. Flags
    (gpu_exact, overwrite, skip_unknown) take any truth value. fit() checks them all; transform() and
    score() check the ones they use (seed, threads, infer_iter).

    Args:
        n_topics: K, the number of topics, 1 .. 65,536.
        alpha: document-topic prior (None: 50 / K).
        beta: topic-word prior (None: 0.01).
        n_iter: Gibbs sweeps, 1 .. 10^9.
        seed: seed of every draw, 0 .. 2^63 - 1: the same data, parameters and seed give the same model, on
            any number of threads (and with sampler="esca", on the CPU or the GPU with gpu_exact=True).
        sampler: "auto" (AGA on a GPU for K <= 128, ESCA otherwise), "esca", "cgs" (CPU) or "aga" (GPU).
        device: "auto" (GPU 0 when one is found, else the CPU), "cpu" or "gpu".
        test_fraction: fraction of the documents held out and scored at the end (heldout_ll_). Default 0:
            like scikit-learn, fit() trains on every document (`sk-lda train` holds out 0.1); use score()
            on documents of your own for a held-out figure.
        ll_every: joint log-likelihood every N sweeps, and at the first and last (0: only those), >= 0.
        optimize_every: learn an asymmetric alpha and a symmetric beta every N sweeps (0: fixed priors).
        optimize_burnin: no optimisation before this sweep (0: the first is at sweep optimize_every).
            These three: 0 .. 2^63 - 1.
        threads: CPU threads, 0 .. 4,096 (0: all); results never depend on it.
        gpu: CUDA device ordinal, 0 .. 2^31 - 1.
        gpu_exact: the GPU ESCA's exact (double) sweep, bit for bit the CPU ESCA's (slower).
        device_memory: the most GPU bytes the sampler may hold, 0 .. 2^64 - 1 (0: free memory less 1 GiB).
        out_dir: also write what `sk-lda train --out` writes there (model.skl, theta, metrics.csv, ...).
        overwrite: out_dir may hold another run, which is removed.
        checkpoint_every: checkpoints in out_dir every N sweeps, -1 .. 2^63 - 1 (-1: automatic; 0: only at
            the end).
        infer_iter: Gibbs sweeps of transform() and score()'s fold-in, 1 .. 2^31 - 1.
        skip_unknown: transform(), score(), coherence(): words or ids the model lacks are dropped
            instead of refused.
        verbose: 0 silent; 1 a line per evaluated sweep and the library's warnings; 2 also the library's
            report (the plan, the summary: what `sk-lda train` prints). Lines also go to logging "sklda".
        options: other sklda_options fields by name (sk_lda.h), e.g. {"minibatch": 64, "save_z": 1}, or
            {"start_topics": 0} for every token on its own uniform initial topic (by default a document
            starts on at most 128 topics when K > 128: ESCA's first sweeps then cost what later ones do),
            or {"heldout_sweeps": 80} for more fold-in sweeps in the held-out score than the default (12 up
            to K = 1,024, all but the last 2 uncollapsed; 10 up to K = 10,000, 20 above; above K = 1,024 more
            sweeps still raise it). Each takes an int in its C type's range (whole_word_panels and save_z
            also a bool).

    Attributes (after fit() or load()):
        components_: K x V float64 topic-word pseudo-counts n_vk + beta (scikit-learn's meaning).
        phi_: K x V float32, components_ normalised by row.
        theta_: D x K float32, the training documents' proportions (fit() only; a loaded model has none).
        alpha_: K float64 document-topic priors; beta_: the topic-word prior.
        vocab_: the model's words (list of str) or None.
        n_features_in_: V. n_iter_: sweeps done. joint_ll_, heldout_ll_: per token (NaN: not computed).
        joint_ll_history_: (sweep, joint LL per token) of every evaluated sweep, an n x 2 float64 array.
        stopped_: True when a fit callback stopped the run early.
    """

    def __init__(self, n_topics=100, alpha=None, beta=None, n_iter=100, seed=1, sampler="auto", device="auto",
                 test_fraction=0.0, ll_every=10, optimize_every=0, optimize_burnin=0, threads=0, gpu=0,
                 gpu_exact=False, device_memory=0, out_dir=None, overwrite=False, checkpoint_every=-1,
                 infer_iter=50, skip_unknown=False, verbose=0, options=None):
        self.n_topics = n_topics
        self.alpha = alpha
        self.beta = beta
        self.n_iter = n_iter
        self.seed = seed
        self.sampler = sampler
        self.device = device
        self.test_fraction = test_fraction
        self.ll_every = ll_every
        self.optimize_every = optimize_every
        self.optimize_burnin = optimize_burnin
        self.threads = threads
        self.gpu = gpu
        self.gpu_exact = gpu_exact
        self.device_memory = device_memory
        self.out_dir = out_dir
        self.overwrite = overwrite
        self.checkpoint_every = checkpoint_every
        self.infer_iter = infer_iter
        self.skip_unknown = skip_unknown
        self.verbose = verbose
        self.options = options
        self._model = None
        self._cache = {}

    # ------------------------------------------------------------------------------------------------
    # training

    def fit(self, X, y=None, *, vocab=None, callback=None):
        """Trains the model on X.

        Args:
            X: the documents (see the class).
            y: ignored (scikit-learn's pipelines pass it).
            vocab: the V words of X's columns or ids (the topics then show words); a list of words as X
                builds its own when vocab is None.
            callback: called after every sweep with a dict (sweep, iters, tokens_per_second, eta_seconds,
                evaluated, joint_ll, alpha_sum, beta); a true return value stops the run after that sweep
                (the model so far is kept, stopped_ is set).
        Returns:
            self.
        Raises:
            SkldaInputError: bad parameters or X; SkldaError: the machine failed (memory, device, disk).
            KeyboardInterrupt (or the callback's exception): raised again once the run has stopped.
        """
        opts = self._train_options()
        corpus, owned = to_corpus(X, vocab=vocab)
        history, stored = [], []

        def on_progress(p, _user):
            try:
                p = p.contents
                info = {name: getattr(p, name) for name, _ in _lib.SkldaProgress._fields_}
                if p.evaluated:
                    history.append((float(p.sweep), float(p.joint_ll)))
                    if self.verbose:
                        self._say(0, "sweep %d/%d: joint LL/token %.4f, %.3g M tokens/s, %.0f s left"
                                  % (p.sweep, p.iters, p.joint_ll, p.tokens_per_second / 1e6, p.eta_seconds))
                if callback is not None and callback(info):
                    return 1
                return 0
            except BaseException as e:  # KeyboardInterrupt too: stop the run, raise it after sklda_train
                stored.append(e)
                return 1

        def on_log(level, line, _user):
            try:
                text = line.decode("utf-8", "replace")
                if self.verbose >= 2 or (self.verbose and level == _lib.SKLDA_LOG_WARNING):
                    self._say(level, text)
                logging.getLogger("sklda").log(logging.WARNING if level else logging.INFO, text)
            except BaseException as e:
                stored.append(e)

        progress_fn, log_fn = _lib.PROGRESS_FN(on_progress), _lib.LOG_FN(on_log)  # alive until train returns
        opts.progress, opts.log = progress_fn, log_fn
        out = _lib.ModelP()
        err = _lib.new_error()
        try:
            status = _lib.lib().sklda_train(corpus.handle, ctypes.byref(opts), ctypes.byref(out), ctypes.byref(err))
        finally:
            if owned:
                corpus.close()
        model = Model(out) if out else None
        if stored:
            if model is not None:
                model.close()
            raise stored[0]
        _lib.check(status, err, "sklda_train")
        self._set_model(model)
        self.stopped_ = status == _lib.SKLDA_STOPPED
        self.joint_ll_history_ = np.asarray(history, dtype=np.float64).reshape(-1, 2)
        return self

    def fit_transform(self, X, y=None, *, vocab=None, callback=None):
        """fit(X), then the training documents' topic proportions theta_ (D x K float32)."""
        return self.fit(X, y, vocab=vocab, callback=callback).theta_

    def _train_options(self):
        """sklda_options from the parameters, checked first: the library treats 0 and < 0 as "default", and
        ctypes would wrap a value too large for its field (2^32 + 2 topics would train 2)."""
        def need(cond, what):  # what: "name=value): why"
            if not cond:
                raise SkldaInputError("sklda: LDA(%s" % what)

        def is_real(x):
            return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))

        for name, (lo, hi) in _INT_PARAMS.items():
            _lib.check_int(getattr(self, name), "LDA", name, lo, hi)
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            need(v is None or (is_real(v) and math.isfinite(v) and v > 0),
                 "%s=%r): must be None or a number > 0" % (name, v))
        need(is_real(self.test_fraction) and 0 <= self.test_fraction <= 0.99,
             "test_fraction=%r): must be a number in [0, 0.99]" % (self.test_fraction,))
        need(self.sampler in _SAMPLERS, "sampler=%r): one of %s" % (self.sampler, ", ".join(_SAMPLERS)))
        need(self.device in _DEVICES, "device=%r): one of %s" % (self.device, ", ".join(_DEVICES)))
        o = _lib.SkldaOptions()
        _lib.lib().sklda_options_default(ctypes.byref(o))
        o.num_topics = int(self.n_topics)
        o.alpha = float(self.alpha) if self.alpha is not None else 0.0
        o.beta = float(self.beta) if self.beta is not None else 0.0
        o.seed, o.iters, o.test_fraction = int(self.seed), int(self.n_iter), float(self.test_fraction)
        o.sampler, o.device = self.sampler.encode(), self.device.encode()
        o.gpu, o.gpu_exact, o.threads = int(self.gpu), int(bool(self.gpu_exact)), int(self.threads)
        o.device_memory = int(self.device_memory)
        o.ll_every, o.optimize_every = int(self.ll_every), int(self.optimize_every)
        o.optimize_burnin = int(self.optimize_burnin)
        o.out_dir = _lib.encode_path(self.out_dir) if self.out_dir is not None else None
        o.overwrite, o.checkpoint_every = int(bool(self.overwrite)), int(self.checkpoint_every)
        o.handle_signals = 0  # Python keeps its own SIGINT handler: KeyboardInterrupt stops the run
        types = dict(_lib.SkldaOptions._fields_)
        fields = set(types) - _OWN_FIELDS
        for name, value in (self.options or {}).items():
            need(name in fields, "options={%r: ...}): not an sklda_options field LDA leaves open (%s)"
                 % (name, ", ".join(sorted(fields))))
            flag = name in _FLAG_OPTIONS and isinstance(value, (bool, np.bool_))
            lo, hi = _lib.ctype_range(types[name])  # the fields left open are all integers
            need(flag or (_lib.is_int(value) and lo <= int(value) <= hi), "options={%r: %r}): must be an int %s%s"
                 % (name, value, _lib.span(lo, hi), " (or a bool)" if name in _FLAG_OPTIONS else ""))
            setattr(o, name, int(value))
        return o

    def _say(self, level, text):
        print(text, file=sys.stderr if level else sys.stdout, flush=True)

    # ------------------------------------------------------------------------------------------------
    # the fitted model

    def _set_model(self, model):
        if self._model is not None:
            self._model.close()
        self._model = model
        self._cache = {}
        self.n_features_in_ = model.n_words
        self.n_iter_ = model.sweeps
        self.joint_ll_ = model.joint_ll
        self.heldout_ll_ = model.heldout_ll
        self.stopped_ = False
        self.joint_ll_history_ = np.zeros((0, 2), dtype=np.float64)

    @property
    def model_(self):
        """The fitted sklda.Model (raises NotFittedError before fit() or load())."""
        if self._model is None:
            raise NotFittedError("sklda: this LDA is not fitted yet: call fit() or LDA.load() first")
        return self._model

    def _cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def components_(self):
        """K x V float64 topic-word pseudo-counts n_vk + beta (rows normalised: phi_)."""
        m = self.model_
        return self._cached("components", lambda: m.counts.astype(np.float64) + m.beta)

    @property
    def phi_(self):
        """K x V float32 topic-word distributions (n_vk + beta) / (n_k + V beta), from the library."""
        m = self.model_
        return self._cached("phi", lambda: m.phi)

    @property
    def theta_(self):
        """D x K float32 topic proportions of the training documents, every input document in order
        (held-out ones by fold-in; empty ones the prior's mean). A loaded model has none (AttributeError)."""
        m = self.model_
        if "theta" not in self._cache and m.n_docs == 0:
            raise NotFittedError("sklda: this model was loaded from a file, which holds no documents: theta_ "
                                 "comes from fit(); use transform(X) for documents' proportions")
        return self._cached("theta", m.theta)

    @property
    def alpha_(self):
        """K float64 document-topic priors (all equal unless optimize_every was set)."""
        return self.model_.alpha

    @property
    def beta_(self):
        """The topic-word prior."""
        return self.model_.beta

    @property
    def vocab_(self):
        """The model's words (a list of V str), or None."""
        return self._cached("vocab", lambda: self.model_.vocab)

    def top_words(self, n=10):
        """The n most probable words of every topic (a list of K lists of str; "w%06d" ids without a vocab).

        Args:
            n: an int >= 1; n above V gives every word of each topic, ranked (V words a topic).
        Raises:
            SkldaInputError: n is not an int >= 1 (a bool or a float such as 2.5 included).
        """
        return self.model_.top_words(n)

    # ------------------------------------------------------------------------------------------------
    # new documents

    def _corpus(self, X):
        m = self.model_
        vocab = self.vocab_
        index = self._cached("index", lambda: {w: i for i, w in enumerate(vocab)}) if vocab is not None else None
        return to_corpus(X, n_words=m.n_words, word_index=index, skip_unknown=bool(self.skip_unknown),
                         build_vocab=False)

    def _infer_options(self, call, n_iter=None):
        """sklda_infer_options for transform() or score() (`call`, named in messages), checked as
        _train_options() checks: LDA.load() makes an LDA whose parameters fit() never saw."""
        if n_iter is None:
            iters = _lib.check_int(self.infer_iter, "LDA", "infer_iter", *_INT_PARAMS["infer_iter"])
        else:
            iters = _lib.check_int(n_iter, call, "n_iter", 1, _lib.INT32_MAX)
        seed = _lib.check_int(self.seed, "LDA", "seed", 0, _lib.UINT64_MAX)
        if seed > _lib.INT64_MAX:
            if seed != self.model_.seed:
                _lib.check_int(seed, "LDA", "seed", *_INT_PARAMS["seed"])  # raises
            seed = -1  # the model's own seed (`sk-lda train --seed` takes up to 2^64 - 1): the library's default
        io = _lib.SkldaInferOptions()
        _lib.lib().sklda_infer_options_default(ctypes.byref(io))
        io.iters, io.seed = iters, seed
        io.threads = _lib.check_int(self.threads, "LDA", "threads", *_INT_PARAMS["threads"])
        io.skip_unknown = int(bool(self.skip_unknown))
        return io

    def transform(self, X, n_iter=None):
        """Topic proportions of documents by Gibbs fold-in against the fixed topics (`sk-lda infer`).

        Args:
            X: the documents, in the model's word ids (or words, when the model has a vocabulary).
            n_iter: fold-in sweeps, an int in 1 .. 2^31 - 1 (None: infer_iter).
        Returns:
            n_docs x K float32, rows summing to 1 (an empty document gets the prior's mean).
        Raises:
            SkldaInputError: bad X, n_iter, seed or threads; a word or id the model lacks (without skip_unknown).
        """
        m = self.model_
        io = self._infer_options("transform", n_iter)
        corpus, owned = self._corpus(X)
        try:
            theta = np.empty((corpus.n_docs, m.n_topics), dtype=np.float32)
            dropped = ctypes.c_int64(0)
            err = _lib.new_error()
            status = _lib.lib().sklda_infer(m.handle, corpus.handle, ctypes.byref(io),
                                            theta.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                            ctypes.byref(dropped), ctypes.byref(err))
            _lib.check(status, err, "sklda_infer")
            self.n_dropped_ = int(dropped.value) + corpus.dropped_words
        finally:
            if owned:
                corpus.close()
        return theta

    def score(self, X, y=None, n_iter=None):
        """Held-out log-likelihood per token of X by document completion (higher is better).

        Each document's tokens are cut in two by a seeded shuffle: the first half folds it in, the second
        is scored, as the training run scores its held-out documents (sklda_score()).
        Returns:
            the value (NaN when no document has two tokens).
        """
        m = self.model_
        io = self._infer_options("score", n_iter)
        corpus, owned = self._corpus(X)
        try:
            ll = ctypes.c_double(float("nan"))
            err = _lib.new_error()
            status = _lib.lib().sklda_score(m.handle, corpus.handle, ctypes.byref(io), ctypes.byref(ll),
                                            ctypes.byref(err))
            _lib.check(status, err, "sklda_score")
        finally:
            if owned:
                corpus.close()
        return float(ll.value)

    def perplexity(self, X, n_iter=None):
        """exp(-score(X)): the held-out perplexity per token (lower is better)."""
        return math.exp(-self.score(X, n_iter=n_iter))

    def coherence(self, X, top_n=10):
        """Topic coherence of every topic's top_n words over the reference documents X (usually the training
        documents): UMass (Mimno et al. 2011) and NPMI (Bouma 2009), as `sk-lda eval --coherence N`.

        Args:
            X: the reference documents.
            top_n: the words of each topic, an int in 2 .. V.
        Returns:
            {"umass": K float64, "npmi": K float64}.
        """
        m = self.model_
        top_n = _lib.check_int(top_n, "coherence", "top_n", 2, _lib.INT32_MAX)  # the library refuses > V
        corpus, owned = self._corpus(X)
        try:
            umass = np.empty(m.n_topics, dtype=np.float64)
            npmi = np.empty(m.n_topics, dtype=np.float64)
            err = _lib.new_error()
            dp = ctypes.POINTER(ctypes.c_double)
            status = _lib.lib().sklda_coherence(m.handle, corpus.handle, int(top_n), umass.ctypes.data_as(dp),
                                                npmi.ctypes.data_as(dp), ctypes.byref(err))
            _lib.check(status, err, "sklda_coherence")
        finally:
            if owned:
                corpus.close()
        return {"umass": umass, "npmi": npmi}

    # ------------------------------------------------------------------------------------------------
    # files and pickling

    def save(self, path):
        """Writes the model as model.skl (read back by LDA.load(), read_model() or `sk-lda infer`).

        The file holds the topics, the priors and the vocabulary; not theta_ nor the parameters.
        """
        self.model_.save(path)

    @classmethod
    def load(cls, path, **params):
        """An LDA holding the model of a model.skl file (n_topics, alpha and beta taken from it).

        Args:
            path: the file.
            **params: other parameters (infer_iter, seed, threads, skip_unknown, ...).
        """
        model = read_model(path)
        params.setdefault("seed", model.seed)  # inference's draws default to the training run's seed
        alpha = model.alpha
        est = cls(n_topics=model.n_topics, beta=model.beta,
                  alpha=float(alpha[0]) if np.all(alpha == alpha[0]) else None, **params)
        est._set_model(model)
        est.n_iter = max(1, model.sweeps)
        return est

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_model", "_cache")}
        if self._model is not None:
            fd, path = tempfile.mkstemp(suffix=".skl")
            os.close(fd)
            try:
                self._model.save(path)
                with open(path, "rb") as f:
                    state["_model_bytes"] = f.read()
            finally:
                os.unlink(path)
            if self._model.n_docs:
                state["_theta"] = self.theta_
        return state

    def __setstate__(self, state):
        blob, theta = state.pop("_model_bytes", None), state.pop("_theta", None)
        self.__dict__.update(state)
        self._model, self._cache = None, {}
        if blob is not None:
            fd, path = tempfile.mkstemp(suffix=".skl")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(blob)
                self._model = read_model(path)
            finally:
                os.unlink(path)
            if theta is not None:
                self._cache["theta"] = theta
