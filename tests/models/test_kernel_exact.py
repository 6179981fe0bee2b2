# SPDX-License-Identifier: BSD-3-Clause
"""NonPrivateKernelSVC: the exact bias-free kernel hinge SVM.

Rubinstein et al. (arXiv:0911.5708), Algorithm 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.svm import SVC

from dpsvm.bounds.rubinstein import (
    lemma17_databases,
    lemma17_solutions,
    lemma19_databases,
)
from dpsvm.kernels import kernel_matrix
from dpsvm.models import NonPrivateKernelSVC, NonPrivateLinearClassifier
from dpsvm.solvers import solve_kernel_hinge_dual


@pytest.mark.parametrize("n,C,eps", [(4, 1.0, 0.05), (11, 2.0, 0.01), (50, 5.0, 1e-3)])
def test_lemma17_closed_form_solutions(n, C, eps):
    # Rubinstein et al. Lemma 17: on the 1-D databases the bias-free hinge SVMs are
    # w₁* = C(M(n−2)+m)/n and w₂* = C(Mn−m)/n, exactly 2ε apart.
    (X1, y1), (X2, y2) = lemma17_databases(n, C, eps)
    w1, w2 = lemma17_solutions(n, C, eps)
    f1 = NonPrivateKernelSVC(kernel="linear", regularization=1 / C).fit(X1, y1)
    f2 = NonPrivateKernelSVC(kernel="linear", regularization=1 / C).fit(X2, y2)
    assert f1.decision_function([[1.0]])[0] == pytest.approx(w1, abs=1e-12)
    assert f2.decision_function([[1.0]])[0] == pytest.approx(w2, abs=1e-12)
    assert (
        f2.decision_function([[1.0]])[0] - f1.decision_function([[1.0]])[0]
    ) == pytest.approx(2 * eps, abs=1e-12)
    assert f1.duality_gap_[0] < 1e-14 and f2.duality_gap_[0] < 1e-14


@pytest.mark.parametrize("n,C,sigma", [(10, 2.0, 0.5), (30, 5.0, 0.3), (12, 11.5, 0.8)])
def test_lemma19_closed_form_dual_and_separation(n, C, sigma):
    # Rubinstein et al. Lemma 19: α_pos = C/n, the negatives (all at the origin) share
    # (n − 1)·α_neg, f_i(x_{i,n}) is the same for every database, and the
    # functions of neighbouring databases are `separation` apart there.
    fx = lemma19_databases(n, C, sigma)
    gamma = 1.0 / (2 * sigma**2)  # exp(−‖Δ‖²/(2σ²))
    models = [
        NonPrivateKernelSVC(gamma=gamma, regularization=1 / C).fit(fx.X[i], fx.y)
        for i in range(fx.N)
    ]
    for i, m in enumerate(models):
        alpha = np.zeros(n)
        alpha[m.support_] = m.dual_coef_[0] * fx.y[m.support_]  # α = (αy)·y
        assert alpha[-1] == pytest.approx(C / n, abs=1e-13)
        assert alpha[:-1].sum() == pytest.approx(fx.alpha[:-1].sum(), abs=1e-12)
        own = fx.X[i][-1:]
        assert m.decision_function(own)[0] == pytest.approx(
            fx.f_at_own_positive, abs=1e-12
        )
        gaps = [
            abs(m.decision_function(own)[0] - o.decision_function(own)[0])
            for j, o in enumerate(models)
            if j != i
        ]
        assert min(gaps) == pytest.approx(fx.separation, abs=1e-12)
        assert fx.separation >= C / (2 * n)


@pytest.mark.parametrize("lam", [1e-3, 1e-1, 10.0])
def test_linear_kernel_matches_the_primal_hinge_solver(lam):
    # Same bias-free problem, solved in the primal by the certified liblinear
    # path of the linear models and in the dual here.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=150) > 0, 1, -1)
    dual = NonPrivateKernelSVC(kernel="linear", regularization=lam).fit(X, y)
    primal = NonPrivateLinearClassifier(loss="hinge", regularization=lam).fit(X, y)
    w = dual.dual_coef_ @ dual.support_vectors_
    np.testing.assert_allclose(w, primal.coef_, atol=1e-8)
    assert dual.duality_gap_[0] <= 1e-12
    assert dual.distance_bound_[0] == pytest.approx(
        math.sqrt(2 * dual.duality_gap_[0] / lam)
    )


def test_dual_box_has_no_equality_constraint_unlike_libsvm():
    # The optimum violates Σαᵢyᵢ = 0, the constraint libsvm's SVC imposes with
    # its bias (Rubinstein et al. eq. (5.1) has none): libsvm solves a different
    # problem.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2)) + np.array([1.0, 0.0])
    y = np.where(rng.random(80) < 0.8, 1, -1)  # unbalanced labels
    m = NonPrivateKernelSVC(gamma=0.5, regularization=0.05).fit(X, y)
    assert abs(m.dual_coef_.sum()) > 1e-3
    n = len(y)
    svc = SVC(kernel="rbf", gamma=0.5, C=1 / (n * 0.05)).fit(X, y)
    assert abs(svc.intercept_[0]) > 1e-3
    assert not np.allclose(svc.decision_function(X), m.decision_function(X), atol=1e-3)


def test_dual_solution_satisfies_the_kkt_conditions_on_an_rbf_problem():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = np.where(np.linalg.norm(X, axis=1) < 1.5, 1.0, -1.0)
    K = kernel_matrix(X, gamma=0.8)
    box = 1 / (200 * 0.01)
    alpha, gap, _ = solve_kernel_hinge_dual(K, y, box)
    margin = y * (K @ (alpha * y))
    # Box KKT: α = 0 ⇒ margin ≥ 1; α = C/n ⇒ margin ≤ 1; strictly inside ⇒ 1.
    assert np.all((alpha >= 0) & (alpha <= box))
    assert np.all(margin[alpha == 0] >= 1 - 1e-8)
    assert np.all(margin[alpha == box] <= 1 + 1e-8)
    inside = (alpha > 1e-9 * box) & (alpha < box * (1 - 1e-9))
    np.testing.assert_allclose(margin[inside], 1.0, atol=1e-8)
    assert gap <= 1e-10


def test_singular_kernel_and_zero_rows_are_handled():
    # Duplicated points make K singular; a zero row under the linear kernel has
    # Kᵢᵢ = 0 and its α goes to the box.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [-1.0, 0.5], [-1.0, 0.5]])
    y = np.array([1, 1, 1, -1, -1])
    m = NonPrivateKernelSVC(kernel="linear", regularization=0.5).fit(X, y)
    assert m.duality_gap_[0] <= 1e-14
    assert 0 in m.support_


def test_multiclass_one_vs_rest_and_string_labels():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 2))
    labels = np.array(["in", "mid", "out"])
    y = labels[np.digitize(np.linalg.norm(X, axis=1), [0.8, 1.4])]
    m = NonPrivateKernelSVC(gamma=1.0, regularization=0.01).fit(X, y)
    assert m.dual_coef_.shape == (3, m.support_.size)
    assert m.score(X, y) > 0.8
    assert set(m.predict(X)) <= set(labels)


@pytest.mark.parametrize("gamma", ["scale", "auto"])
def test_data_dependent_gamma_is_refused(gamma):
    with pytest.raises(ValueError, match="computed from the data"):
        NonPrivateKernelSVC(gamma=gamma).fit(np.eye(2), [0, 1])


def test_kernel_dual_solver_is_still_importable_from_the_model_module():
    # Moved to dpsvm.solvers; dpsvm.models.kernel keeps the name (same object).
    from dpsvm.models import kernel as kernel_module

    assert kernel_module.solve_kernel_hinge_dual is solve_kernel_hinge_dual


def test_ridge_bias_of_the_newton_step_is_polished_away():
    # Regression: on scikit-learn's 15-row check data the ridged Newton step
    # stopped at a gap of 1e-9 (1000× tol) and the fit warned; exact
    # coordinate steps on the unregularised dual finish the solve.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(15, 4))
    y = rng.permutation(np.repeat(np.arange(3), 5))
    model = NonPrivateKernelSVC(gamma=0.5).fit(X, y)
    assert np.all(model.duality_gap_ <= 1e3 * model.tol)
