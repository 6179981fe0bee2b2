# SPDX-License-Identifier: BSD-3-Clause
"""Learners that release a model built on public points (Jain & Thakurta Alg. 2, 3)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.optimize
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..accounting.accountant import BudgetAccountant
from ..accounting.charge import Charge, charge
from ..bounds.prediction import noisy_label_scale, weight_norm_bound
from ..mechanisms import laplace_release
from ..perturbation import OutputNoise
from ..utils._random import check_random_state
from ..validation import check_epsilon, n_rows, resolve_delta
from ._common import (
    JT_REFERENCE,
    LAPLACE_MIN_ADVANTAGE,
    FloatArray,
    PredictionBase,
    refuse_vacuous,
    smallest_useful,
)

__all__ = ["TestDataDependentLearner", "fit_noisy_labels", "uniform_ball_points"]


def uniform_ball_points(
    n_points: int, n_features: int, radius: float, rng: np.random.Generator
) -> FloatArray:
    """Points drawn uniformly from the ball ‖z‖ ≤ radius (data-independent).

    Parameters
    ----------
    n_points : int
        How many.
    n_features : int
        The dimension d.
    radius : float
        The ball's radius.
    rng : numpy.random.Generator
        Randomness (it protects nothing: the points are public).

    Returns
    -------
    ndarray of shape (n_points, n_features)
        The points.

    Examples
    --------
    >>> Z = uniform_ball_points(5, 3, 2.0, np.random.default_rng(0))
    >>> Z.shape, bool(np.all(np.linalg.norm(Z, axis=1) <= 2.0))
    ((5, 3), True)
    """
    g = rng.standard_normal((n_points, n_features))
    g /= np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 1e-300)
    r = radius * rng.uniform(size=(n_points, 1)) ** (1.0 / n_features)
    return np.asarray(g * r, dtype=np.float64)


def fit_noisy_labels(gram: ArrayLike, labels: ArrayLike, radius: float) -> FloatArray:
    """Least squares on public points with an RKHS-ball constraint (post-processing).

    Solves min_β ‖Kβ − ỹ‖² subject to βᵀKβ ≤ r², i.e. Jain & Thakurta Alg. 2
    step 2 over 𝒞 = {‖w‖ ≤ r} with w = Σβ_tφ(z_t) (an optimum lies in the span
    of the φ(z_t)). With K = UΛUᵀ and c = Λ^{1/2}Uᵀβ it is the trust-region
    problem min ‖Λ^{1/2}c − Uᵀỹ‖² s.t. ‖c‖ ≤ r, solved by
    c(μ) = (Λ + μI)⁻¹Λ^{1/2}Uᵀỹ with μ ≥ 0 found by a 1-D root search
    (μ = 0 when the pseudo-inverse solution is feasible).

    Parameters
    ----------
    gram : array-like of shape (T, T)
        K(Z, Z) on the public points (PSD).
    labels : array-like of shape (T,)
        The released noisy labels ỹ.
    radius : float
        r > 0.

    Returns
    -------
    ndarray of shape (T,)
        β, with βᵀKβ ≤ r² (up to rounding).

    Notes
    -----
    It receives only public inputs (Z through K, ỹ, r), never the private
    model: everything it computes is post-processing of the noisy labels.

    Examples
    --------
    >>> beta = fit_noisy_labels(np.eye(2), [3.0, 4.0], 1.0)
    >>> np.round(beta, 6).tolist()
    [0.6, 0.8]
    """
    K = np.asarray(gram, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    r = float(radius)
    lam, U = np.linalg.eigh((K + K.T) / 2.0)
    keep = lam > max(lam.max(initial=0.0), 0.0) * 1e-12
    lam, U = lam[keep], U[:, keep]
    if lam.size == 0:
        return np.zeros_like(y)
    b = U.T @ y
    root = np.sqrt(lam)

    def c_of(mu: float) -> FloatArray:
        return np.asarray(root * b / (lam + mu))

    c = c_of(0.0)
    if np.linalg.norm(c) > r:
        # ‖c(μ)‖ decreases from ‖c(0)‖ > r to 0: bracket and find ‖c(μ)‖ = r.
        hi = max(float(np.linalg.norm(root * b)) / r, 1e-300)
        mu = scipy.optimize.brentq(
            lambda m: float(np.linalg.norm(c_of(m))) - r, 0.0, hi, xtol=1e-14
        )
        c = c_of(mu)
        c *= min(1.0, r / max(float(np.linalg.norm(c)), 1e-300))
    return np.asarray(U @ (c / root), dtype=np.float64)


#: The loss parameters of the kernel ERM, fixed (hinge) on the public-model learners.
_LOSS_PARAMETERS = ("loss", "quantile", "y_bound")

#: The learners are binary hinge-loss classifiers: no loss parameters.
HINGE_CONSTRAINTS: dict[str, Any] = {
    **{
        k: v
        for k, v in PredictionBase._parameter_constraints.items()
        if k not in _LOSS_PARAMETERS
    },
    "accountant": [BudgetAccountant, None],
}


class _PublicModelLearner(ClassifierMixin, PredictionBase):
    """A binary learner that releases a kernel model on public points.

    The base of Jain & Thakurta's Alg. 2 and Alg. 3: one block that holds the
    private w* (:meth:`_private_model`), one release epilogue
    (:meth:`_record_release`) and prediction from the released points and
    coefficients only (free post-processing).
    """

    _estimator_type = "classifier"
    __test__ = False  # not a pytest test class despite the learners' names
    loss = "hinge"
    quantile = 0.5
    y_bound = None

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """⟨ŵ, φ(x)⟩ = Σ_t β_t K(z_t, x) from the released model (free).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points (projected onto the declared domain).

        Returns
        -------
        ndarray of shape (n_queries,)
            The scores.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Xp = self._spec.project(np.asarray(X, dtype=np.float64))
        if self.support_.shape[0] == 0:
            return np.zeros(Xp.shape[0])
        return np.asarray(self._spec.gram(Xp, self.support_) @ self.dual_coef_)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels sign(⟨ŵ, φ(x)⟩) in ``classes_`` (post-processing: free).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points (projected onto the declared domain).

        Returns
        -------
        ndarray of shape (n_queries,)
            The labels.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        idx = (scores > 0).astype(np.intp)
        ties = scores == 0.0
        if np.any(ties):
            # A zero score has no sign: a fair coin, never classes_[0] (which
            # biased a vacuous model towards one class). Post-processing of the
            # released model; seeded by an int random_state (tests, docs).
            seed = self.random_state
            gen = np.random.default_rng(
                [int(seed), 1] if isinstance(seed, int | np.integer) else None
            )
            idx[ties] = gen.integers(0, 2, size=int(ties.sum()))
        return np.asarray(self.classes_[idx])

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        assert tags.classifier_tags is not None
        tags.classifier_tags.multi_class = False
        return tags

    def _check_binary(self, y: ArrayLike) -> None:
        """Refuse more than two (declared or present) labels before any work."""
        if y is None:
            return  # validate_data reports it
        y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
        check_classification_targets(y)
        labels = self.classes if self.classes is not None else y
        if np.unique(np.asarray(labels)).size > 2:
            raise ValueError(
                "Only binary classification is supported: these learners release "
                "one kernel model sign(⟨w, φ(x)⟩); pass two classes."
            )

    @contextmanager
    def _private_model(
        self, X: ArrayLike, y: ArrayLike, *, allow_zero_delta: bool
    ) -> Iterator[tuple[float, float, np.random.Generator, Any, int, Charge]]:
        """Check the budget and the labels, fit the certified w* (eq. (2)) for a block.

        Yields ``(ε, δ, generator, calibration, n, ticket)``: the accountant is
        checked for (ε, δ) before any data are read, and the ticket is spent
        by :meth:`_record_release`. w* (``_model``) and the solver diagnostics
        exist only inside the block: they are dropped when it ends, also when
        the release fails.
        """
        eps = check_epsilon(self.epsilon)
        # "auto": n^-1.5 of the public row count; δ ≥ 1/n refused.
        delta = resolve_delta(
            self.delta, lambda: n_rows(X), allow_zero=allow_zero_delta
        )
        # owner: a refused final spend puts the learner back as it was.
        ticket = charge(self.accountant, eps, delta, owner=self)
        self._check_binary(y)
        rng = check_random_state(self.random_state)
        try:
            cal, n = self._fit_model(X, y)
            yield eps, delta, rng, cal, n, ticket
        finally:
            for name in ("_model", "solver_info_"):
                if hasattr(self, name):
                    delattr(self, name)

    def _record_release(
        self,
        ticket: Charge,
        sensitivity: float,
        mechanism: str,
        epsilon: float,
        delta: float,
        reference: str,
        details: dict[str, Any],
    ) -> None:
        """Record the release's event and spend it on ``ticket``.

        Keeps the kernel (public) for prediction; the event records the
        sensitivity S of Jain & Thakurta eq. (3) in the sup norm.
        """
        self._spec = self._model.spec
        self.prediction_sensitivity_ = sensitivity
        self.privacy_event_ = self._prediction_event(
            mechanism, epsilon, delta, f"{JT_REFERENCE}, {reference}", details
        )
        # Refused: _private_model restores the learner as it was before fit.
        ticket.spend(self.privacy_event_)


class TestDataDependentLearner(_PublicModelLearner):
    """Release a kernel classifier fitted to noisy labels of public test points.

    Jain & Thakurta's Alg. 2: the exact kernel SVM w* (hinge loss, no bias)
    labels T public points z_t with ỹ_t = ⟨w*, φ(z_t)⟩ + Lap(ν); the released
    model ŵ = Σβ_tφ(z_t) minimises (1/T)Σ(⟨w, φ(z_t)⟩ − ỹ_t)² over the ball
    ‖w‖ ≤ r. The training data reach ŵ only through the noisy labels; w* is
    discarded at the end of ``fit``. The default kernel is the paper's
    experiment kernel (⟨x, y⟩ + 1)³.

    The public points are the user's own test sample, given to ``fit`` as
    ``test_points`` (they are not protected and must not be chosen using the
    training data); T of them are drawn with replacement (the theory's i.i.d.
    sample). Without ``test_points``, T points uniform in the declared domain
    are used (data-independent, but usually far less accurate). Predictions
    (:meth:`predict`, :meth:`decision_function`) are free post-processing, for
    any inputs, and most accurate on the distribution of the test points.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε of the T noisy labels.
    delta : float or "auto", default=1e-6
        Total δ < 1/n; > 0 uses advanced composition (Jain & Thakurta Thm 11), 0
        basic composition; ``"auto"``: n^−1.5 of the public row count.
    n_test_points : int, default=200
        T.
    constraint_radius : float, "private" or None, default=None
        r of 𝒞 = {‖w‖ ≤ r}; ``None``: 2L·R_φ/λ (Cor. 6; data-independent,
        usually far above ‖w*‖, so ŵ nearly interpolates the noisy labels);
        ``"private"``: ‖w*‖ released with Laplace noise (sensitivity
        2LR_φ/(λn)) at ``radius_fraction``·ε, plus a public margin, capped at
        2L·R_φ/λ (the paper suggests estimating C privately but then assumes
        it public).
    radius_fraction : float, default=0.1
        Share of ε spent on the private radius (``"private"`` only); the labels
        get the rest (basic composition).
    on_vacuous : {"raise", "warn"}, default="raise"
        What ``fit`` does when, from public quantities only, every noisy label
        is a coin flip (even the largest score C·R_φ = 2LR_φ²/λ gets the right
        sign with probability below 0.51): raise
        :class:`VacuousCalibrationError` (naming the smallest n, the largest
        ``n_test_points`` or the ε that would work; nothing is spent) or warn.
    accountant : BudgetAccountant or None, default=None
        Checked for (ε, δ) before the training data are read
        (:func:`dpsvm.accounting.charge`) and charged ``privacy_event_`` once,
        after a successful fit; a failed fit spends nothing.
    kernel : {"linear", "rbf", "poly"} or callable, default="poly"
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²), (γ⟨x, y⟩ + c₀)^p, or a
        callable ``K(A, B) -> gram`` with ``kernel_bound`` declared.
    gamma : float, default=1.0
        γ > 0 (rbf, poly), fixed before seeing the data.
    degree : int, default=3
        p (poly).
    coef0 : float, default=1.0
        c₀ ≥ 0 (poly).
    data_norm : float or None, default=1.0
        Radius of the declared input domain; training rows, public points and
        prediction inputs are projected onto it and R_φ is computed from it
        (e.g. R_φ = (R² + 1)^{3/2} for (⟨x, y⟩ + 1)³).
    kernel_bound : float or None, default=None
        R_φ of a callable kernel (required for one, refused otherwise).
    regularization : float, default=0.01
        λ > 0 of (λ/2)‖w‖² (public, not tuned on the data).
    classes : array-like or None, default=None
        The public label set (two labels); ``None`` reads it from y with a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: CSPRNG noise (real use). An int: **tests and docs only**. A
        generator object is refused at ``fit`` (kept as a parameter, it would
        replay the noise).

    Attributes
    ----------
    classes_ : ndarray
        The label set.
    kappa_ : float
        R_φ on the declared domain.
    prediction_sensitivity_ : float
        S = 2LR_φ²/(λn) plus the solver-certificate margin.
    lipschitz_ : float
        L = 1 (hinge).
    privacy_event_ : PrivacyEvent
        The record of the release.
    n_features_in_ : int
        Number of input features.
    noise_scale_ : float
        ν = S/ε_q.
    constraint_radius_ : float
        r.
    support_ : ndarray of shape (T, n_features)
        The public points z_t (projected).
    noisy_labels_ : ndarray of shape (T,)
        The released ỹ_t.
    dual_coef_ : ndarray of shape (T,)
        β.

    Notes
    -----
    Privacy: replace-one neighbours. Each ỹ_t is ⟨w*, φ(z_t)⟩, of sensitivity
    S = 2LR_φ²/(λn) (Jain & Thakurta eq. (3)), plus discretised Laplace noise
    of scale ν = S/ε_q, so it is ε_q-DP; T of them are (ε, δ)-DP with ε_q the
    largest value with √(2T ln(1/δ))·ε_q + Tε_q(e^{ε_q} − 1) ≤ ε (Thm 11 =
    Dwork, Rothblum & Vadhan 2010, Thm III.3), or ε/T if larger or if δ = 0
    (Thm 4 of the paper gives only ν = O(·)). ŵ is post-processing. Assumptions
    (enforced): rows, public points and inputs projected onto the declared
    domain, hinge loss, the certified bias-free minimiser, public
    hyperparameters, public points chosen without the training data. Utility:
    Thm 5 bounds the excess loss on the test distribution only; each label's
    noise grows like √T/(nε), which dominates unless nελ is large
    (``docs/prediction.md``).

    References
    ----------
    .. [1] P. Jain, A. Thakurta, "Differentially private learning with
       kernels", ICML 2013, Alg. 2, Theorems 4, 5, 11, Cor. 6, eq. (3).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)) / 2
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> Q = rng.uniform(-1, 1, size=(100, 2)) / 2
    >>> clf = TestDataDependentLearner(epsilon=1.0, n_test_points=50,
    ...     regularization=0.1, classes=[-1, 1], random_state=0)
    >>> clf.fit(X, y, test_points=Q).predict(Q[:4]).shape
    (4,)
    """

    _parameter_constraints: dict[str, Any] = {
        **HINGE_CONSTRAINTS,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "n_test_points": [Interval(Integral, 1, None, closed="left")],
        "constraint_radius": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"private"}),
            None,
        ],
        "radius_fraction": [Interval(Real, 0, 1, closed="neither")],
        "on_vacuous": [StrOptions({"raise", "warn"})],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 1e-6,
        n_test_points: int = 200,
        constraint_radius: float | str | None = None,
        radius_fraction: float = 0.1,
        on_vacuous: str = "raise",
        accountant: BudgetAccountant | None = None,
        kernel: str | Callable[..., Any] = "poly",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        kernel_bound: float | None = None,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_test_points = n_test_points
        self.constraint_radius = constraint_radius
        self.radius_fraction = radius_fraction
        self.on_vacuous = on_vacuous
        self.accountant = accountant
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.kernel_bound = kernel_bound
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    def _check_labels_useful(
        self, n: int, T: int, eps: float, share: float, delta: float, S: float
    ) -> None:
        """Refuse labels that are coin flips (public quantities only).

        Vacuous when even the largest possible score C·R_φ (C = 2LR_φ/λ) gets
        the right sign with probability 1 − ½e^{−CR_φ/ν} below 0.51: every
        noisy label is then a coin flip and so is the fitted model.
        """
        CR = weight_norm_bound(
            self.lipschitz_, self.kappa_, float(self.regularization)
        ) * float(self.kappa_)

        def useful(n_: float, T_: int, eps_: float) -> bool:
            n_i = max(1, int(n_))
            # S = κ(Δ_H + 2·cap) ∝ 1/n (Nie & Wang Thm 2): rescaled to n_ rows.
            nu_ = noisy_label_scale(T_, eps_ * share, delta, S * n / n_i)
            return bool(0.5 * -math.expm1(-CR / nu_) >= LAPLACE_MIN_ADVANTAGE)

        if useful(n, T, eps):
            return
        hints = []
        n_min = smallest_useful(lambda v: useful(v, T, eps), n)
        if n_min is not None:
            hints.append(f"at least {int(n_min)} training rows")
        if T > 1 and useful(n, 1, eps):
            lo, hi = 1, T
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if useful(n, mid, eps) else (lo, mid)
            hints.append(f"n_test_points <= {lo}")
        eps_min = smallest_useful(lambda v: useful(n, T, v), eps, integer=False)
        if eps_min is not None:
            hints.append(f"epsilon >= {eps_min:.3g}")
        refuse_vacuous(
            self.on_vacuous,
            "TestDataDependentLearner is vacuous here: the label noise scale "
            f"{noisy_label_scale(T, eps * share, delta, S):.4g} drowns the largest "
            f"possible score C·R_φ = {CR:.4g} (every noisy label is a coin flip); "
            f"use {' or '.join(hints) if hints else 'another learner'}.",
        )

    def _private_radius(
        self,
        rkhs_sensitivity: float,
        eps: float,
        r_public: float,
        rng: np.random.Generator,
    ) -> tuple[float, float, float]:
        """Release r from ‖w*‖ + Laplace noise; return (r, ε spent, scale).

        ‖w*‖ moves by at most ‖w*_G − w*_G′‖ ≤ 2LR_φ/(λn) (Jain & Thakurta eq.
        (3)), so ‖w*‖ + Lap(Δ/ε_C) is ε_C-DP; r adds the public margin
        scale·ln 10 (the noise is below it with probability 0.95) and is capped
        by the public 2LR_φ/λ (post-processing).
        """
        eps_radius = float(self.radius_fraction) * eps
        noise = OutputNoise.laplace(eps_radius, rkhs_sensitivity)
        model = self._model
        if model.coef is not None:
            norm = float(np.linalg.norm(model.coef))
        else:
            assert model.support is not None and model.dual_coef is not None
            c = model.dual_coef
            norm = math.sqrt(
                max(0.0, float(c @ model.spec.gram(model.support, model.support) @ c))
            )
        noisy = float(noise.release(np.array([norm]), rng)[0])
        r = min(r_public, max(noisy + noise.scale * math.log(10.0), noise.scale))
        return r, eps_radius, noise.scale

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, test_points: ArrayLike | None = None
    ) -> TestDataDependentLearner:
        """Fit w*, release noisy labels of T public points, fit ŵ to them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows (projected onto the declared domain).
        y : array-like of shape (n_samples,)
            Private labels (two classes).
        test_points : array-like of shape (n_points, n_features) or None
            The user's public test sample Q (not used to choose anything about
            the training data); ``None``: uniform points of the domain.

        Returns
        -------
        self
            The released classifier.
        """
        with self._private_model(X, y, allow_zero_delta=True) as private:
            eps, delta, rng, cal, n, ticket = private
            Q = None if test_points is None else np.asarray(test_points, np.float64)
            spec = self._model.spec
            d = int(self.n_features_in_)
            T = int(self.n_test_points)
            if Q is not None:
                if Q.ndim != 2 or Q.shape[1] != d or Q.shape[0] == 0:
                    raise ValueError(
                        f"test_points must be a non-empty 2-D array with {d} columns."
                    )
                if not np.all(np.isfinite(Q)):
                    raise ValueError("test_points must be finite (no NaN or inf).")
                # i.i.d. sample of T public points (Jain & Thakurta Alg. 2 input Z).
                Z = spec.project(Q[rng.integers(0, Q.shape[0], size=T)])
            else:
                radius = 1.0 if spec.data_norm is None else float(spec.data_norm)
                Z = uniform_ball_points(T, d, radius, rng)
            S = cal.prediction_effective
            r_public = weight_norm_bound(
                self.lipschitz_, self.kappa_, float(self.regularization)
            )
            eps_labels, radius_details = eps, {}
            if isinstance(self.constraint_radius, str):  # "private"
                r, eps_radius, radius_scale = self._private_radius(
                    cal.rkhs_effective, eps, r_public, rng
                )
                eps_labels = eps - eps_radius
                radius_details = {
                    "radius_epsilon": eps_radius,
                    "radius_scale": radius_scale,
                }
            elif self.constraint_radius is None:
                r = r_public  # Jain & Thakurta Cor. 6: 𝒞 = {‖w‖ ≤ 2LR_φ/λ}
            else:
                r = float(self.constraint_radius)
            # ν = S/ε_q with ε_q from Thm 11 (k = T, δ′ = δ), or ε/T (δ = 0).
            nu = noisy_label_scale(T, eps_labels, delta, S)
            self._check_labels_useful(n, T, eps, eps_labels / eps, delta, S)
            eps_q = S / nu
            # ỹ_t = ⟨w*, φ(z_t)⟩ + Lap(ν): per-coordinate discretised Laplace, each
            # ε_q-DP (the only access to the training data besides the radius).
            noisy = laplace_release(self._model.decision(Z), nu, rng, sensitivity=S)
            self.noise_scale_ = nu
            self.constraint_radius_ = r
            self.support_ = Z
            self.noisy_labels_ = np.asarray(noisy, dtype=np.float64)
            self.dual_coef_ = fit_noisy_labels(spec.gram(Z, Z), self.noisy_labels_, r)
            self._record_release(
                ticket,
                S,
                "test-data-dependent-learner",
                eps,
                delta if T * eps_q > eps_labels * (1 + 1e-12) else 0.0,
                (
                    "Alg. 2 and Thm 4: T Laplace labels of "
                    "sensitivity S (eq. (3)) composed by Thm 11 (plus, for a private "
                    "radius, ‖w*‖ + Laplace of sensitivity 2LR_φ/(λn), basic "
                    "composition)"
                ),
                {
                    "n_test_points": T,
                    "per_label_epsilon": eps_q,
                    "noise_scale": nu,
                    "constraint_radius": r,
                    **radius_details,
                    "n_samples": n,
                    "kernel_bound": self.kappa_,
                    "regularization": float(self.regularization),
                },
            )
        return self
