# SPDX-License-Identifier: BSD-3-Clause
"""CSR rows whose ‖x‖² overflows: projected as CSR, exactly as dense rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from dpsvm.models import DPLinearSVC
from dpsvm.solvers import project_sparse_rows, row_norms
from dpsvm.validation import project_rows_to_ball


def _rows(n: int = 200, d: int = 30, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.uniform(size=(n, d)) < 0.2)
    X[3, [1, 7]] = 1e300  # finite entries whose ‖x‖² overflows
    X[5, 2] = -1.5e308
    X[8] = 0.0  # an empty row
    return X


def test_project_sparse_rows_equals_the_dense_projection():
    X = _rows()
    out = project_sparse_rows(sp.csr_matrix(X), 1.5)
    assert sp.issparse(out) and out.format == "csr"
    np.testing.assert_allclose(out.toarray(), project_rows_to_ball(X, 1.5), rtol=1e-14)
    assert np.all(row_norms(out) <= 1.5)  # the norm the solvers compute
    assert np.all(np.isfinite(out.data))


def test_fit_and_scores_on_overflowing_csr_rows_stay_sparse(monkeypatch):
    X = _rows(seed=1)
    y = np.where(np.arange(X.shape[0]) % 3 == 0, 1, -1)
    kw = dict(epsilon=1.0, classes=[-1, 1], regularization=0.1, random_state=0)
    dense = DPLinearSVC(**kw).fit(X, y)

    def no_densify(self, *a, **k):  # pragma: no cover - fails the test
        raise AssertionError("CSR rows were densified")

    monkeypatch.setattr(sp.csr_matrix, "toarray", no_densify)
    Xs = sp.csr_matrix(X)
    sparse = DPLinearSVC(**kw).fit(Xs, y)
    scores = sparse.decision_function(Xs)
    monkeypatch.undo()
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(scores, dense.decision_function(X), atol=1e-6)
    assert np.all(np.isfinite(scores))


@pytest.mark.parametrize("radius", [1e-3, 1.0, 1e300])
def test_projected_csr_rows_are_within_the_radius(radius):
    out = project_sparse_rows(sp.csr_matrix(_rows(seed=2)), radius)
    assert np.all(row_norms(out) <= radius)
