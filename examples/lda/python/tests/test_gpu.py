"""On a GPU (marked gpu: skipped unless sklda.gpu_available()): the exact ESCA sweep gives the CPU ESCA's
model bit for bit, the fast sweep its log-likelihood within 1%, AGA-LDA trains, device="auto" picks the GPU."""

import gzip
import logging
import os

import numpy as np
import pytest

import sklda

from conftest import planted_docs

pytestmark = pytest.mark.gpu


def kos_docs(kos_dir):
    """KOS as lists of word ids (UCI: 0-based ids, each repeated count times)."""
    with gzip.open(os.path.join(kos_dir, "docword.kos.txt.gz"), "rt") as f:
        num_docs, _, _ = (int(f.readline()) for _ in range(3))
        data = np.loadtxt(f, dtype=np.int64).reshape(-1, 3)
    docs = [[] for _ in range(num_docs)]
    for d, v, c in data:
        docs[d - 1].extend([v - 1] * int(c))
    return docs


@pytest.fixture(scope="module", params=["planted", "kos"])
def corpus(request):
    if request.param == "planted":
        return planted_docs(num_docs=2000, num_topics=20, words_per_topic=50, seed=1)[0]
    return kos_docs(request.getfixturevalue("kos_dir"))


def test_exact_sweep_is_the_cpu_esca(corpus):
    kw = dict(n_topics=64, n_iter=12, seed=5, sampler="esca", ll_every=4)
    cpu = sklda.LDA(device="cpu", **kw).fit(corpus)
    gpu = sklda.LDA(device="gpu", gpu_exact=True, **kw).fit(corpus)
    np.testing.assert_array_equal(gpu.model_.counts, cpu.model_.counts)
    np.testing.assert_array_equal(gpu.theta_, cpu.theta_)
    assert gpu.joint_ll_ == pytest.approx(cpu.joint_ll_, rel=1e-9)


def test_fast_sweep_log_likelihood_within_one_percent(corpus):
    kw = dict(n_topics=64, n_iter=40, seed=5, sampler="esca")
    cpu = sklda.LDA(device="cpu", **kw).fit(corpus)
    gpu = sklda.LDA(device="gpu", **kw).fit(corpus)
    assert abs(gpu.joint_ll_ - cpu.joint_ll_) < 0.01 * abs(cpu.joint_ll_), (gpu.joint_ll_, cpu.joint_ll_)
    assert gpu.score(corpus[:200]) == pytest.approx(cpu.score(corpus[:200]), rel=0.02)


def test_aga_trains(corpus):
    lda = sklda.LDA(n_topics=20, n_iter=30, sampler="aga", device="gpu", ll_every=10).fit(corpus)
    h = lda.joint_ll_history_
    assert h[-1, 1] > h[0, 1] + 0.5, h
    np.testing.assert_allclose(lda.phi_.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(lda.theta_.sum(axis=1), 1.0, atol=1e-5)


def test_auto_device_is_the_gpu(caplog):
    docs, _ = planted_docs(num_docs=100)
    with caplog.at_level(logging.INFO, logger="sklda"):
        sklda.LDA(n_topics=300, n_iter=2, device="auto").fit(docs)
    plan = [r.getMessage() for r in caplog.records if r.getMessage().startswith("training:")]
    assert plan and "GPU" in plan[0], plan
