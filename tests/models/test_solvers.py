# SPDX-License-Identifier: BSD-3-Clause
"""The smooth solver: exact minimiser, certificate, and its large-n code paths."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize

from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.solvers import _newton as _solvers
from dpsvm.solvers._erm import solve_smooth
from dpsvm.validation import project_rows_to_ball


def _problem(n, d, seed=0, order="C"):
    rng = np.random.default_rng(seed)
    X = project_rows_to_ball(rng.standard_normal((n, d)) / np.sqrt(d), 1.0)
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    lin = rng.standard_normal(d) * 1e-3  # the (1/n)·b term of objective perturbation
    return np.asarray(X, order=order), y, lin


def _reference(X, y, loss, lam, lin):
    n = X.shape[0]

    def fun(w):
        z = y * (X @ w)
        total, deriv = loss.value_and_derivative(z)
        f = total / n + 0.5 * lam * w @ w + lin @ w
        return f, X.T @ (deriv * y) / n + lam * w + lin

    res = scipy.optimize.minimize(
        fun,
        np.zeros(X.shape[1]),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-13, "ftol": 0.0, "maxiter": 20_000, "maxcor": 50},
    )
    return res.x, fun


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_warm_started_newton_reaches_the_certified_minimiser(loss, order):
    # n = 20,000 ≥ 8·max(2048, 50·d): the warm start on every 8th row runs.
    X, y, lin = _problem(20_000, 10, order=order)
    lam = 1e-4
    res = solve_smooth(X, y, loss, lam, linear=lin, tol=1e-10)
    ref, fun = _reference(X, y, loss, lam, lin)
    _, g = fun(res.coef)
    # The reported gradient norm is the true one, and within the tolerance.
    assert res.grad_norm == pytest.approx(np.linalg.norm(g), rel=1e-3, abs=1e-14)
    assert res.grad_norm <= 1e-10
    # ‖w − w*‖ ≤ ‖∇J(w)‖/λ, checked against an independent solver.
    assert res.distance_bound == pytest.approx(res.grad_norm / lam)
    assert np.linalg.norm(res.coef - ref) <= res.distance_bound + 1e-6


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5)])
def test_subsampled_hessian_path_is_still_exact(loss, monkeypatch):
    # Force the sub-sampled Hessian (every k-th row) on a small problem.
    monkeypatch.setattr(_solvers, "_HESSIAN_ROWS", 500)
    X, y, lin = _problem(30_000, 5, seed=1)
    lam = 1e-3
    res = solve_smooth(X, y, loss, lam, linear=lin, tol=1e-10)
    ref, fun = _reference(X, y, loss, lam, lin)
    assert np.linalg.norm(fun(res.coef)[1]) <= 1e-10
    assert np.linalg.norm(res.coef - ref) <= res.distance_bound + 1e-6


def test_strided_view_input_is_not_copied_and_solves_the_same_problem():
    X, y, lin = _problem(40_000, 8, seed=2)
    view = X[::2]
    a = solve_smooth(view, y[::2], LogisticLoss(), 1e-3, linear=lin)
    b = solve_smooth(
        np.ascontiguousarray(view), y[::2], LogisticLoss(), 1e-3, linear=lin
    )
    np.testing.assert_allclose(a.coef, b.coef, rtol=0, atol=1e-7)
