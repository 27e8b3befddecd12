"""LDA inside scikit-learn (skipped where scikit-learn is not installed): clone, a pipeline, a grid search."""

import numpy as np
import pytest

import sklda

from conftest import docs_to_dense, planted_docs

sklearn = pytest.importorskip("sklearn")


def test_clone_pipeline_and_grid_search():
    sp = pytest.importorskip("scipy.sparse")
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline

    docs, v = planted_docs(num_docs=200, seed=1)
    x = sp.csr_matrix(docs_to_dense(docs, v))
    y = np.array([int(np.bincount(np.asarray(d) // 10, minlength=4).argmax()) for d in docs])
    lda = sklda.LDA(n_topics=4, n_iter=30, device="cpu", alpha=0.5)
    assert clone(lda).get_params() == lda.get_params()
    pipe = Pipeline([("lda", lda), ("clf", LogisticRegression())]).fit(x, y)
    assert pipe.score(x, y) > 0.8  # the planted topics separate the documents' main topics
    search = GridSearchCV(sklda.LDA(n_iter=20, device="cpu"), {"n_topics": [2, 4]}, cv=2).fit(x)
    assert search.best_params_ == {"n_topics": 4}  # the held-out likelihood prefers the planted K
