# SPDX-License-Identifier: BSD-3-Clause
"""Input layouts (float32/float64, C/F order, CSR) and high-dimensional fits."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse

from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.models import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from dpsvm.solvers import _smooth
from dpsvm.solvers._erm import RowScaledDesign, solve_smooth
from dpsvm.solvers._newton import _newton_cg
from dpsvm.solvers._smooth import _objective


def _rows(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Rows exactly representable in float32, some longer than the bound 1."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (1.5 / np.sqrt(d))
    X[:, : d // 2] *= rng.random((n, 1)) < 0.3  # sparse-ish rows
    X = X.astype(np.float32).astype(np.float64)
    y = np.where(X @ rng.standard_normal(d) >= 0, 1, -1)
    return X, y


def _layouts(X: np.ndarray) -> dict[str, object]:
    return {
        "float64-C": X,
        "float64-F": np.asfortranarray(X),
        "float32-C": X.astype(np.float32),
        "float32-F": np.asfortranarray(X.astype(np.float32)),
        "csr": scipy.sparse.csr_matrix(X),
    }


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"mechanism": "output"},
        {"fit_intercept": True, "data_norm": 2.0},
        {"loss": "hinge", "mechanism": "output"},
    ],
)
def test_layouts_give_the_same_event_and_model(kwargs):
    X, y = _rows(300, 12)
    layouts = _layouts(X)
    fits = {
        name: DPLinearSVC(classes=[-1, 1], random_state=3, **kwargs).fit(Xl, y)
        for name, Xl in layouts.items()
    }
    for Xl in layouts.values():  # the caller's data are never modified
        dense = Xl.toarray() if scipy.sparse.issparse(Xl) else Xl
        np.testing.assert_array_equal(dense, X)
    ref = fits.pop("float64-C")
    for name, clf in fits.items():
        e, r = clf.privacy_event_, ref.privacy_event_
        assert (e.mechanism, e.epsilon, e.delta, e.sensitivity) == (
            r.mechanism,
            r.epsilon,
            r.delta,
            r.sensitivity,
        ), name
        assert e.details == r.details, name
        np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(clf.intercept_, ref.intercept_, atol=1e-8)
        np.testing.assert_allclose(
            clf.decision_function(_layouts(X)[name]),
            ref.decision_function(X),
            rtol=1e-6,
            atol=1e-8,
        )


def test_clipping_by_scale_matches_a_projected_copy():
    # The per-row scale and the projection of a copy give the same minimiser.
    X, y = _rows(200, 6, seed=4)
    from dpsvm.validation import project_rows_to_ball

    a = NonPrivateLinearClassifier(loss="logistic").fit(X, y)
    b = NonPrivateLinearClassifier(loss="logistic").fit(project_rows_to_ball(X, 1.0), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


def test_float32_input_is_not_copied():
    # Regression: float32 input was converted to float64 (and projected) copies.
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((40_000, 100)) / 10).astype(np.float32)
    y = np.where(X[:, 0] > 0, 1, -1)
    tracemalloc.start()
    DPLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < X.nbytes / 2  # a float64 copy alone would be 2·X.nbytes


def test_sparse_input_is_not_densified():
    X = scipy.sparse.random(2_000, 5_000, density=0.002, format="csr", random_state=0)
    X.data *= 2.0  # some rows need clipping
    y = np.where(np.asarray(X.sum(axis=1)).ravel() > 0.01, 1, -1)
    tracemalloc.start()
    clf = DPLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    clf.predict(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2_000 * 5_000 * 8 / 10  # a tenth of the dense matrix


@pytest.mark.parametrize("lam", [1e-1, 1e-3, 1e-5])
@pytest.mark.parametrize("cls", [DPLogisticRegression, DPLinearSVC])
def test_high_dimension_converges_at_small_regularisation(cls, lam):
    # Regression: d > 2000 stalled at ‖∇J‖ ≈ 1e-8 (L-BFGS line searches on a
    # J that is flat to rounding) and every fit raised a convergence error.
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 2_500))
    X /= np.linalg.norm(X, axis=1)[:, None] / 0.999999
    y = np.where(X @ rng.standard_normal(2_500) >= 0, 1, -1)
    clf = cls(regularization=lam, classes=[-1, 1], random_state=0).fit(X, y)
    info = clf.solver_info_[0]
    assert info["grad_norm"] <= clf.tol
    # Wide rows: the one-pass-per-iteration L-BFGS converges without Newton-CG.
    assert info["method"] == "fused-lbfgs"


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5)])
@pytest.mark.parametrize("const", [None, 0.5])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("with_linear", [True, False])
def test_fused_lbfgs_and_newton_cg_agree_on_wide_rows(loss, const, sparse, with_linear):
    rng = np.random.default_rng(4)
    raw = rng.standard_normal((120, 600)) / np.sqrt(600)
    X = scipy.sparse.csr_matrix(raw) if sparse else raw
    D = RowScaledDesign(X, rng.uniform(0.5, 1.0, 120), const)
    y = np.where(rng.random(120) < 0.5, 1.0, -1.0)
    # With a linear term (objective perturbation) the first trial point is
    # -a/λ; without one (output perturbation) the start is w = 0.
    lin = rng.standard_normal(D.shape[1]) / 120 if with_linear else np.zeros(D.shape[1])
    res = solve_smooth(D, y, loss, 1e-3, linear=lin if with_linear else None)
    assert res.method == "fused-lbfgs" and res.grad_norm <= 1e-10
    w, g, _ = _newton_cg(D, y, loss, 1e-3, lin, np.zeros(D.shape[1]), 1e-10, 200)
    gn = float(np.linalg.norm(g))
    assert gn <= 1e-10
    # Both certified: ‖w − w*‖ ≤ ‖∇J‖/λ for each.
    assert np.linalg.norm(res.coef - w) <= res.distance_bound + gn / 1e-3
    # The certificate is the exact gradient of J at the returned point.
    _, g_exact = _objective(D, y, loss, 1e-3, lin)(res.coef)
    assert abs(np.linalg.norm(g_exact) - res.grad_norm) <= 1e-12


def test_fused_lbfgs_falls_back_to_newton_cg(monkeypatch):
    # An L-BFGS phase cut short (here: one iteration) is finished by Newton-CG,
    # and the result is still certified.
    monkeypatch.setattr(_smooth, "_fused_lbfgs_budget", lambda max_iter: 1)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((100, 400)) / 20
    y = np.where(rng.random(100) < 0.5, 1.0, -1.0)
    res = solve_smooth(X, y, LogisticLoss(), 1e-3, linear=rng.standard_normal(400))
    assert res.method == "fused-lbfgs+newton-cg" and res.grad_norm <= 1e-10


def test_design_products_match_the_materialised_matrix():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((500, 7)).astype(np.float32)
    scale = rng.random(500)
    for raw in (X, np.asfortranarray(X), scipy.sparse.csr_matrix(X)):
        D = RowScaledDesign(raw, scale, 0.25)
        A = np.column_stack([X.astype(np.float64) * scale[:, None], np.full(500, 0.25)])
        v, u = rng.standard_normal(8), rng.standard_normal(500)
        np.testing.assert_allclose(D.matvec(v), A @ v, rtol=1e-12)
        np.testing.assert_allclose(D.rmatvec(u), A.T @ u, rtol=1e-12)
        xv, hv = D.fused_products(v, lambda sl, xb, u=u: xb * u[sl])
        np.testing.assert_allclose(xv, A @ v, rtol=1e-12)
        np.testing.assert_allclose(hv, A.T @ ((A @ v) * u), rtol=1e-11)
        np.testing.assert_allclose(
            np.asarray(
                D.toarray().todense() if scipy.sparse.issparse(raw) else D.toarray()
            ),
            A,
        )


def test_newton_cg_and_newton_agree():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 30)) / 6
    y = np.where(rng.random(400) < 0.5, 1.0, -1.0)
    lin = rng.standard_normal(30) / 400
    dense = solve_smooth(X, y, LogisticLoss(), 1e-3, linear=lin)
    sparse = solve_smooth(
        scipy.sparse.csr_matrix(X), y, LogisticLoss(), 1e-3, linear=lin
    )
    assert dense.method.startswith("newton") and sparse.method == "newton-cg"
    assert np.linalg.norm(dense.coef - sparse.coef) <= (
        dense.distance_bound + sparse.distance_bound
    )


def test_clip_factors_in_place_match_the_masked_map_and_allocate_little():
    # Regression: the factors were built with three n-sized temporaries
    # (norms[mask], radius / ..., nextafter(...)), the peak of the fit's input
    # step once the default intercept made most rows longer than the radius.
    from dpsvm.solvers import clip_factors, scaled_design

    rng = np.random.default_rng(6)
    norms = rng.uniform(0.5, 2.0, 200_000)
    norms[::7] = 1e300
    norms[::11] = 1.0
    mask = norms > 1.0
    expected = np.ones_like(norms)
    expected[mask] = np.nextafter(1.0 / norms[mask], 0.0)
    tracemalloc.start()
    factors = clip_factors(norms, 1.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert factors is not None
    assert np.array_equal(factors.view(np.int64), expected.view(np.int64))
    assert peak < 1.3 * norms.nbytes  # the factors and the mask only
    X = rng.standard_normal((50, 4))
    D = scaled_design(X, np.linalg.norm(X, axis=1), 1.0, 2.0, None)
    assert np.array_equal(D.scale, _clip_then_divide(X, 2.0))


def _clip_then_divide(X: np.ndarray, R: float) -> np.ndarray:
    norms = np.linalg.norm(X, axis=1)
    mask = norms > 1.0
    f = np.ones_like(norms)
    f[mask] = np.nextafter(1.0 / norms[mask], 0.0)
    return f / R
