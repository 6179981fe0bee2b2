# SPDX-License-Identifier: BSD-3-Clause
"""Single-precision passes on float32 rows: fast iterates, exact certificate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse

from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.solvers import _newton, row_norms
from dpsvm.solvers._erm import RowScaledDesign, solve_smooth
from dpsvm.solvers._smooth import _objective


def _design(n: int, d: int, dtype, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((n, d)) / np.sqrt(d)).astype(dtype)
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) >= 0, 1, -1)
    scale = np.minimum(1.0, 0.9 / np.linalg.norm(X.astype(np.float64), axis=1))
    return RowScaledDesign(X, scale, 0.4), y.astype(np.float32)


def test_single_precision_products_are_close_and_only_for_float32():
    D, _ = _design(3_000, 30, np.float32)
    rng = np.random.default_rng(1)
    v, u = rng.standard_normal(31), rng.standard_normal(3_000)
    exact = D.fused_products(v, lambda sl, xb: xb * u[sl])
    single = D.fused_products(v, lambda sl, xb: xb * u[sl], single=True)
    for a, b in zip(exact, single, strict=True):
        err = np.linalg.norm(a - b) / np.linalg.norm(a)
        assert 0.0 < err < 1e-5  # single precision: close, but not the same
    # float64 rows ignore the flag: the products stay exact.
    D64 = RowScaledDesign(D.X.astype(np.float64), D.scale, D.const)
    ref = D64.fused_products(v, lambda sl, xb: xb * u[sl])
    again = D64.fused_products(v, lambda sl, xb: xb * u[sl], single=True)
    for a, b in zip(ref, again, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5)])
def test_float32_fit_is_certified_by_the_exact_float64_gradient(loss, monkeypatch):
    # Large enough for the warm start on subsamples (n ≥ 8·2048).
    D, y = _design(20_000, 20, np.float32)
    calls: list[bool] = []
    fused = RowScaledDesign.fused_products

    def spy(self, v, weights, *, single=False, out=None):  # type: ignore[no-untyped-def]
        calls.append(single and self.single)
        return fused(self, v, weights, single=single, out=out)

    monkeypatch.setattr(RowScaledDesign, "fused_products", spy)
    lam = 1e-4
    lin = np.random.default_rng(2).standard_normal(21) * 1e-3
    res = solve_smooth(D, y, loss, lam, linear=lin)
    assert any(calls) and not calls[-1]  # single passes first, the last exact
    assert res.grad_norm <= 1e-10
    # Recomputed on the materialised float64 design: the certificate is the
    # exact gradient at the returned point.
    A = D.toarray()
    _, g = _objective(RowScaledDesign(A), y.astype(np.float64), loss, lam, lin)(
        res.coef
    )
    assert abs(float(np.linalg.norm(g)) - res.grad_norm) <= 1e-13
    # The same data in float64 (exact passes only): the same minimiser.
    res64 = solve_smooth(
        RowScaledDesign(D.X.astype(np.float64), D.scale, D.const),
        y,
        loss,
        lam,
        linear=lin,
    )
    assert np.linalg.norm(res.coef - res64.coef) <= (
        res.distance_bound + res64.distance_bound
    )


def test_iteration_cap_in_single_precision_returns_the_exact_gradient(monkeypatch):
    # Stopped by max_iter before the switch to exact passes, Newton must still
    # return the exact float64 gradient (the certificate rests on it).
    monkeypatch.setattr(_newton, "_SINGLE_PRECISION_UNTIL", 0.0)
    D, y = _design(5_000, 10, np.float32)
    lin = np.zeros(11)
    w, g, it, _ = _newton._newton(D, y, LogisticLoss(), 1e-3, lin, lin, 1e-10, 1)
    assert it == 1
    _, g_exact = _objective(
        RowScaledDesign(D.toarray()), y.astype(np.float64), LogisticLoss(), 1e-3, lin
    )(w)
    np.testing.assert_allclose(g, g_exact, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("shape", [(1_000, 3), (2_777, 100), (50, 700)])
def test_float32_row_norms_equal_those_of_the_widened_rows(shape):
    # Blockwise widening (a reused buffer) must give the norms, bit for bit,
    # of the float64 rows, which decide the clipping.
    X = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(row_norms(X), row_norms(X.astype(np.float64)))
    np.testing.assert_array_equal(
        row_norms(np.asfortranarray(X)), row_norms(X.astype(np.float64))
    )


@pytest.mark.parametrize(
    "cls,kwargs",
    [
        (DPLogisticRegression, {}),
        (DPLinearSVC, {"mechanism": "output", "fit_intercept": False}),
    ],
)
def test_every_input_type_gives_the_same_event_and_model(cls, kwargs):
    # Large enough for the warm start and the single-precision passes of
    # float32 rows; float64, float32 (C and F), CSR and dask inputs of the same
    # values must give the identical privacy event and the same model.
    rng = np.random.default_rng(11)
    n, d = 20_000, 8
    X = (rng.standard_normal((n, d)) * 0.45).astype(np.float32)  # some clipped
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    inputs: dict[str, object] = {
        "float32-C": X,
        "float32-F": np.asfortranarray(X),
        "csr": scipy.sparse.csr_matrix(X),
    }
    try:
        import dask.array as da

        inputs["dask-float32"] = da.from_array(X, chunks=(2_500, d))
    except ImportError:  # pragma: no cover - the [dask] extra is not installed
        pass
    ref = cls(classes=[-1, 1], random_state=3, **kwargs).fit(X.astype(np.float64), y)
    for name, Xi in inputs.items():
        clf = cls(classes=[-1, 1], random_state=3, **kwargs).fit(Xi, y)
        for field in dataclasses.fields(ref.privacy_event_):
            got = getattr(clf.privacy_event_, field.name)
            assert got == getattr(ref.privacy_event_, field.name), (name, field.name)
        np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(clf.intercept_, ref.intercept_, atol=1e-8)
        assert clf.solver_info_[0]["grad_norm"] <= clf.tol
