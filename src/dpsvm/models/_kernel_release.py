# SPDX-License-Identifier: BSD-3-Clause
"""Kernel releases built on Nie & Wang's sensitivity: none publishes the model.

All three fit the exact (certified) bias-free kernel ERM f_z of Nie & Wang
eq. (1) on rows projected onto a declared domain
(:class:`~dpsvm.models.kernel_erm.KernelERMBase`) and never publish f_z itself:

* :class:`PerQueryLaplacePredictor` answers each query x with
  f_z(x) + Lap(S/ε), S = κ·Δ_H = 2κ²C_L/(λγm) (Nie & Wang, Definition 2 /
  Proposition 1; = Jain & Thakurta's S, ICML 2013, Theorem 9), spending ε per
  answer from a required accountant.
* :class:`DPGaussianProcessRelease` releases the random function f_z + σ·G, G a
  Gaussian process with the kernel's covariance, (ε, δ)-DP at RKHS
  sensitivity Δ_H (Hall, Rinaldo & Wasserman 2013, Corollary 9), with exact
  discrete Gaussian noise on whitened coordinates (below).
* :class:`NonPrivateScalarOffsetRelease` is the paper's own f_z + b with a single
  scalar b (eq. (2), Lemma 1), for reproduction only: it is **not**
  differentially private (docs/nie_wang.md, "Which printed mechanism is not
  private") and warns with :class:`ScalarOffsetNotPrivateWarning`.

Exact Gaussian-process release
------------------------------
At the public points X* = (x₁, …, x_q) evaluated so far (in evaluation order)
let K* = L Lᵀ be the jittered kernel matrix K(X*, X*) + jκ²I, L its Cholesky
factor. The release is the whitened vector y = L⁻¹f̂(X*) through the exact
Gaussian release of :mod:`dpsvm.mechanisms._discrete_gaussian`: clamped to
[−R, R] per coordinate, rounded to the public grid 2^k, plus i.i.d. discrete
Gaussian noise Z ~ N_ℤ(0, σ²/4^k) (Canonne, Kamath & Steinke 2020, Alg. 3),
giving ỹ on the grid; the released values are L·ỹ, post-processing of ỹ.
Points evaluated later extend L block-triangularly, so earlier coordinates of
y and ỹ never change (``_gp_draw``).

*Sensitivity.* For g ∈ H let v = g(X*) = Φg, Φ: H → ℝ^q the evaluation map,
ΦΦ* = K(X*, X*). Then
‖L⁻¹v‖² = vᵀ(ΦΦ* + jκ²I)⁻¹v = ⟨g, Φ*(ΦΦ* + jκ²I)⁻¹Φ g⟩_H ≤ ‖g‖²_H, since
Φ*(ΦΦ* + jκ²I)⁻¹Φ has the eigenvalues λ/(λ + jκ²) < 1 (without jitter:
vᵀK*⁻¹v ≤ ‖g‖²_H, the minimum-norm interpolation bound; jitter only lowers
the quadratic form). With g = f̂_D − f̂_D′, ‖g‖_H ≤ Δ_H + 2·cap (Nie & Wang
Thm 2 plus the certificate), so y has L2 sensitivity ≤ Δ_H + 2·cap however
many points are evaluated — Hall, Rinaldo & Wasserman (JMLR 14, 2013),
Prop. 8 and Cor. 9, whose Mahalanobis bound this is. With g = f̂ itself,
‖y‖ ≤ ‖f̂‖_H ≤ R = κC_L/Λ + cap (:func:`_rkhs_norm_bound`), so the clamp
to [−R, R] is public and never active in exact arithmetic.

*Privacy.* Rounding adds at most √q grid units (per batch √q_b; over the
batches, by Minkowski, ≤ Δ/2^k + √q in grid units), so the calibration is
made once at ``fit`` for q ≤ :data:`GP_MAX_POINTS` points. The discrete
Gaussian of integer shift s is ρ-zCDP with ρ = ‖s‖²/(2σ²) (CKS20 Thm 14);
batches evaluated at points chosen after earlier answers compose by the
Rényi filter (Feldman & Zrnic, NeurIPS 2021, arXiv:2008.11193: its
composition theorem for Rényi DP with adaptively chosen parameters, applied
at every order α), since the squared shifts of all batches sum to at most
(Δ/2^k + √q)² on every run, so the whole release is ρ-zCDP with
ρ ≤ 1/(2z²) and (ε, δ)-DP with z from the zCDP conversion (CKS20 Cor. 13,
:func:`dpsvm.mechanisms.zcdp_noise_multiplier`).
σ = z·(Δ_H + 2·cap + √q_max·2^k) is therefore larger than the analytic
Gaussian σ of Balle & Wang (Thm 8) this release used when it drew
floating-point GP noise (about 8 % at ε = 1, δ = 10⁻⁵). What remains
floating point: the whitening L⁻¹f̂(X*) itself (its computed sensitivity can
exceed the real bound by rounding; Casacuberta et al., CCS 2022).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from numbers import Real
from typing import Any, Literal, Self

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import Charge, charge
from ..accounting.events import NonPrivateEvent
from ..bounds.nie_wang import nw_noise_scale
from ..exceptions import NotPrivateWarning
from ..mechanisms import discrete_gaussian_calibration, zcdp_noise_multiplier
from ..perturbation import OutputNoise
from ..utils._random import check_random_state
from ..utils._types import FloatArray
from ..validation import check_epsilon, n_rows, resolve_delta
from .kernel_erm import (
    SENSITIVITY_REFERENCE,
    Calibration,
    KernelERMBase,
)

__all__ = [
    "DPGaussianProcessRelease",
    "NonPrivateScalarOffsetRelease",
    "PerQueryLaplacePredictor",
    "ScalarOffsetNotPrivateWarning",
]


#: The smallest ``jitter`` of :class:`DPGaussianProcessRelease`: below it the
#: rounding error of the conditional covariances can rival the jitter itself.
GP_MIN_JITTER = 1e-12

#: The exact Gaussian-process release is calibrated for at most this many
#: distinct evaluation points (the rounding term √q·2^k of the sensitivity;
#: the O(q³) conditioning makes far fewer points practical anyway).
GP_MAX_POINTS = 2**16


def _rkhs_norm_bound(kappa: float, lipschitz: float, regularization: float) -> float:
    """R = κC_L/Λ ≥ ‖f*‖_K, the public norm bound of the exact kernel ERM.

    The minimiser f* of (1/n)Σℓ(f(xᵢ), yᵢ) + (Λ/2)‖f‖²_K satisfies
    Λf* = −(1/n)Σ gᵢ k(xᵢ, ·) with subgradients |gᵢ| ≤ C_L, so
    ‖f*‖_K ≤ κC_L/Λ (the first-order condition behind Nie & Wang's Thm 2).
    """
    return kappa * lipschitz / regularization


class ScalarOffsetNotPrivateWarning(NotPrivateWarning):
    """The scalar-offset release of Nie & Wang is not differentially private.

    A :class:`~dpsvm.exceptions.NotPrivateWarning` (always shown), raised by
    :class:`~dpsvm.models.NonPrivateScalarOffsetRelease`: adding one scalar b to
    the whole function f_z releases every difference f_z(x) − f_z(x′) exactly,
    so the outputs on neighbouring datasets have disjoint supports (Nie & Wang,
    eq. (2) and Lemma 1; correction: their Definition 1 only constrains events
    in the intersection of the ranges, which is empty here).
    """


class _KernelRelease(KernelERMBase):
    """``fit`` and ``predict`` of the kernel releases.

    ``fit`` is written once: check ε, run the release's step before the data
    are read (:meth:`_before_data`: an accountant check or charge, a warning),
    fit the exact model f_z (:meth:`_fit_model`), then :meth:`_release` it.
    """

    def _before_data(
        self, epsilon: float, n_samples: int | Callable[[], int]
    ) -> Charge | None:
        """What must happen before the data are read; the charge to spend, if any."""
        return None

    def _release(
        self, cal: Calibration, n: int, epsilon: float, ticket: Charge | None
    ) -> None:  # pragma: no cover - abstract
        """Calibrate the noise to ``cal``, record the event, publish the release."""
        raise NotImplementedError

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: None = None) -> Self:
        """Fit the exact model f_z (kept private), then make the release.

        What the fit costs is the release's (class Notes): nothing for
        :class:`PerQueryLaplacePredictor`, whose answers spend; (ε, δ), checked
        before the data are read, for :class:`DPGaussianProcessRelease`;
        :class:`NonPrivateScalarOffsetRelease` warns (not DP).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows (projected onto the domain).
        y : array-like of shape (n_samples,)
            Labels (hinge) or real targets.
        sample_weight : None, default=None
            Not supported: any other value is refused (docs/privacy.md, "Public
            weights").

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            If a parameter is out of range, or no accountant is given to a
            :class:`PerQueryLaplacePredictor`.
        """
        if sample_weight is not None:  # refused before any budget is checked
            raise ValueError(
                f"{type(self).__name__} takes no sample weights: its kernel ERM "
                "solver is not weighted yet. Use DPOutputPerturbationSVC or "
                "DPOutputPerturbationRegressor (explicit features), DPLinearSVC or "
                "DPKernelSVC, which take public weights."
            )
        epsilon = check_epsilon(self.epsilon)
        ticket = self._before_data(epsilon, lambda: n_rows(X))  # shape only
        cal, n = self._fit_model(X, y)
        self._release(cal, n, epsilon, ticket)
        return self

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels (hinge loss) or values from ``decision_function``.

        Costs what ``decision_function`` costs (ε per row for
        :class:`PerQueryLaplacePredictor`, nothing for the released functions).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points (projected onto the domain).

        Returns
        -------
        ndarray of shape (n_samples,)
            sign of the released score mapped to ``classes_``, or the value.
        """
        return self._labels(self.decision_function(X))  # type: ignore[attr-defined]


class PerQueryLaplacePredictor(_KernelRelease):
    """Per-query private predictions of a non-private kernel ERM model.

    ``fit`` computes the exact bias-free kernel ERM f_z of Nie & Wang eq. (1)
    and keeps it **private**: it is never released, and ``fit`` spends nothing.
    Each answer to a query x is f_z(x) + Lap(S/ε), with S = κ·Δ_H the sup-norm
    sensitivity of Nie & Wang (Def. 2 / Prop. 1, B_Δ; = Jain & Thakurta's S,
    ICML 2013, Theorem 9), and costs ε from the required ``accountant``.

    Parameters
    ----------
    epsilon : float, default=0.1
        ε > 0 spent by **each** answer (a batch of k queries spends k·ε).
    accountant : BudgetAccountant
        Required. Checked for the whole batch before any computation, charged
        one event per answer after it is computed; an exhausted budget raises
        :class:`~dpsvm.exceptions.BudgetExceededError` and nothing is spent.
        (If another release sharing the accountant spends between the check and
        the charges, the batch's answers are discarded, not returned.)
    kernel : {"linear", "rbf", "poly"}, default="rbf"
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²) or (⟨x, y⟩ + c₀)^p (the kernels of
        :func:`dpsvm.kernels.kernel_matrix`). No bias term (both Nie & Wang's
        and Jain & Thakurta's analyses regularise every parameter); use
        ``"poly"`` with c₀ > 0 for an implicit constant.
    gamma : float, default=1.0
        γ > 0 of ``"rbf"``, fixed before seeing the data (no data-dependent
        "scale"); must stay 1 for ``"poly"``, which has no γ.
    degree : int, default=3
        p ≥ 1 (poly).
    coef0 : float, default=1.0
        c₀ ≥ 0 (poly).
    data_norm : float or None, default=1.0
        Radius R of the declared input domain ‖x‖₂ ≤ R; training rows and every
        query are projected onto it, and κ = sup √K(x, x) is computed from it
        (R, 1 or (R² + c₀)^{p/2}). ``None``: no projection for ``"rbf"``
        (κ = 1 anyway); for the other kernels it is read from the data with a
        :class:`~dpsvm.PrivacyLeakWarning`.
    loss : {"hinge", "pinball", "absolute", "squared"}, default="hinge"
        ``"hinge"``: binary classification, C_L = 1. ``"pinball"``: quantile
        regression, C_L = max(τ, 1 − τ). ``"absolute"``: C_L = 1.
        ``"squared"``: (f(x) − y)² with |y| ≤ M enforced, C_L = 2M(κ+1)/√λ_NW
        (Nie & Wang Sec. 5.1; needs Λ ≤ 2).
    quantile : float, default=0.5
        τ of the pinball loss.
    y_bound : float or None, default=None
        M, required by ``loss="squared"``.
    regularization : float, default=0.01
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖f‖²_K; Nie & Wang's λ = Λ/2 (Ω = ‖f‖²_K, γ = 2).
    classes : array-like or None, default=None
        Public label set of the hinge loss (two labels); ``None`` reads it from
        y with a :class:`~dpsvm.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: CSPRNG noise. An int: reproducible noise, **tests and docs
        only**. A generator object is refused at ``fit`` (kept as a parameter,
        it would replay the noise).

    Attributes
    ----------
    classes_ : ndarray
        The label set (hinge loss).
    kappa_ : float
        κ of the kernel on the declared domain.
    lipschitz_ : float
        C_L of the loss.
    prediction_sensitivity_ : float
        S_eff = κ(Δ_H + 2·cap), the sensitivity each answer is calibrated to.
    noise_scale_ : float
        The Laplace scale S_eff/ε of each answer.
    privacy_event_ : PrivacyEvent
        The record of **one** answer (each answer spends one such event).
    solver_info_ : dict
        Solver diagnostics. Reads the data: do not publish.
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    DPGaussianProcessRelease : Release a whole function once instead.

    Notes
    -----
    Privacy: replace-one neighbours. For every x in the domain,
    |f_z(x) − f_z̄(x)| ≤ κ‖f_z − f_z̄‖_K ≤ B_Δ = 2κ²C_L/(λ_NW·γ·n) = 2κ²C_L/(nΛ)
    (Nie & Wang Thm 2 and the reproducing property), so each Laplace answer with scale
    (B_Δ + 2κ·cap)/ε is ε-DP (Dwork et al. 2006; Nie & Wang Lemma 1 applied to a
    *single* value, which is where it is correct). k answers compose to kε
    (basic composition; an accountant with ``slack`` > 0 may apply advanced
    composition to the per-answer events). Assumptions: queries and training
    rows projected onto the domain (enforced), a convex C_L-Lipschitz loss, the
    certified minimiser (cap = 10⁻³·Δ_H, else
    :class:`~dpsvm.exceptions.DPSVMConvergenceError`), public
    hyperparameters. The object holds f_z: do not publish or pickle it for
    others. Floating-point caveat: see :mod:`dpsvm.mechanisms.base`.

    References
    ----------
    .. [1] W. Nie, C. Wang, "Perturbation of convex risk minimization and its
       application in differential private learning algorithms", J. Inequal.
       Appl., Theorem 2, Definition 2, Lemma 1.
    .. [2] P. Jain, A. Thakurta, "Differentially private learning with
       kernels", ICML 2013, eq. (3) (the same S).

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.accounting import BudgetAccountant
    >>> from dpsvm.models import PerQueryLaplacePredictor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)) / 2
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> pp = PerQueryLaplacePredictor(epsilon=0.1, accountant=acc, classes=[-1, 1],
    ...                         random_state=0).fit(X, y)
    >>> len(acc)  # fitting spends nothing
    0
    >>> pp.predict(X[:3]).shape, len(acc), round(acc.total()[0], 10)
    ((3,), 3, 0.3)
    """

    _parameter_constraints: dict[str, Any] = {
        **KernelERMBase._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "accountant": [BudgetAccountant, None],
    }

    def __init__(
        self,
        *,
        epsilon: float = 0.1,
        accountant: BudgetAccountant | None = None,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        loss: str = "hinge",
        quantile: float = 0.5,
        y_bound: float | None = None,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.accountant = accountant
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.loss = loss
        self.quantile = quantile
        self.y_bound = y_bound
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    def _before_data(self, epsilon: float, n_samples: int | Callable[[], int]) -> None:
        # The fit spends nothing (nothing is released); every answer will.
        if resolve_accountant(self.accountant) is None:
            raise ValueError(
                "PerQueryLaplacePredictor needs an accountant: every answer spends "
                "epsilon from it. Pass accountant=BudgetAccountant(total_epsilon)."
            )

    def _release(
        self, cal: Calibration, n: int, epsilon: float, ticket: Charge | None
    ) -> None:
        # One answer f_z(x) moves by at most S_eff = κ(Δ_H + 2·cap) between
        # neighbours (Nie & Wang Def. 2 / Prop. 1): Laplace(S_eff/ε) per answer
        # (Dwork et al. 2006, Prop. 1), discretised by the perturbation layer.
        self._noise = OutputNoise.laplace(epsilon, cal.prediction_effective)
        self.prediction_sensitivity_ = cal.prediction_effective
        self.noise_scale_ = self._noise.scale
        event = self._noise.event(
            "nw-private-prediction-laplace",
            reference=(
                "per-query Laplace answer f_z(x) + Lap(S/ε) (Dwork et al. 2006, "
                "Prop. 1) with S from " + SENSITIVITY_REFERENCE
            ),
            details={
                **self._noise.details(),
                **self._base_details(cal, n),
                "prediction_sensitivity": cal.kappa * cal.rkhs,
            },
        )
        self.privacy_event_ = dataclasses.replace(event, sensitivity_norm="sup")
        self._n_noise_calls = 0  # a fresh noise stream per call (none kept)

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """Private answers f_z(x) + Lap(S/ε), one per row; spends ε per row.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points (projected onto the domain).

        Returns
        -------
        ndarray of shape (n_queries,)
            The noisy scores.

        Raises
        ------
        BudgetExceededError
            If the accountant cannot pay n_queries·ε (nothing is spent).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        k = int(np.asarray(X).shape[0])
        accountant = resolve_accountant(self.accountant)
        assert accountant is not None
        epsilon = self.privacy_event_.epsilon
        ticket = charge(accountant, k * epsilon)  # the whole batch, before computing
        model = self._model
        scores = model.decision(model.spec.project(np.asarray(X, dtype=np.float64)))
        # Discretised (floating-point safe) Laplace release. Each answer moves by
        # at most S between neighbours; the discretisation keeps every single
        # answer ε-DP (its per-coordinate bound only tightens with the batch
        # size), and the accountant composes one ε per answer.
        answers = self._noise.release(scores, self._noise_generator())
        ticket.spend(self.privacy_event_, times=k)
        return np.asarray(answers, dtype=np.float64)


class DPGaussianProcessRelease(_KernelRelease):
    """Release the function f_z + σ·G with G a Gaussian process ((ε, δ)-DP).

    The exact bias-free kernel ERM f_z (Nie & Wang eq. (1)) moves by at most
    Δ_H = 2κC_L/(nΛ) in RKHS norm between neighbours (Nie & Wang Thm 2). Adding
    σ·G, G ~ GP(0, K), is then the Gaussian mechanism in the RKHS (Hall,
    Rinaldo & Wasserman 2013). The noise is drawn exactly over doubles: at the
    evaluation points X* (K* = LLᵀ, jittered) the whitened values
    y = L⁻¹f_z(X*), whose L2 sensitivity is at most the RKHS one, are clamped
    to the public bound R = κC_L/Λ + cap, rounded to a public grid 2^k and
    given discrete Gaussian noise (Canonne, Kamath & Steinke 2020), σ from the
    zCDP bound at L2 sensitivity Δ_H + 2·cap plus the rounding term; the
    answers are L·ỹ, post-processing of that exact release. The whole
    function is released once (``fit`` spends (ε, δ)); evaluating it at up to
    ``GP_MAX_POINTS`` = 2¹⁶ distinct points, any number of times, is free.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the release.
    delta : float or "auto", default=1e-6
        δ ∈ (0, 1/n) of the release; ``"auto"``: n^−1.5 of the public n
        (:func:`dpsvm.validation.resolve_delta`; δ ≥ 1/n is refused).
    jitter : float, default=1e-10
        Relative variance j ≥ 10⁻¹² of an independent white-noise term: the
        released process is f_z + σ(G + W), W(x) ~ N(0, j·κ²) independent per
        distinct point. It keeps the conditional covariances positive definite
        (in exact arithmetic it only lowers the whitened sensitivity). A batch
        of new points whose computed conditional covariance has an eigenvalue
        below jκ²/2 (points too close together for this jitter, so rounding
        error is at least half the jitter) is refused before any noise is
        drawn; earlier answers stay valid. Raise ``jitter`` if that happens.
    accountant : BudgetAccountant or None, default=None
        Checked before reading the data, charged (ε, δ) after the fit.
    kernel : {"linear", "rbf", "poly"}, default="rbf"
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²) or (⟨x, y⟩ + c₀)^p (the kernels of
        :func:`dpsvm.kernels.kernel_matrix`). No bias term (both Nie & Wang's
        and Jain & Thakurta's analyses regularise every parameter); use
        ``"poly"`` with c₀ > 0 for an implicit constant.
    gamma : float, default=1.0
        γ > 0 of ``"rbf"``, fixed before seeing the data (no data-dependent
        "scale"); must stay 1 for ``"poly"``, which has no γ.
    degree : int, default=3
        p ≥ 1 (poly).
    coef0 : float, default=1.0
        c₀ ≥ 0 (poly).
    data_norm : float or None, default=1.0
        Radius R of the declared input domain ‖x‖₂ ≤ R; training rows and every
        query are projected onto it, and κ = sup √K(x, x) is computed from it
        (R, 1 or (R² + c₀)^{p/2}). ``None``: no projection for ``"rbf"``
        (κ = 1 anyway); for the other kernels it is read from the data with a
        :class:`~dpsvm.PrivacyLeakWarning`.
    loss : {"hinge", "pinball", "absolute", "squared"}, default="hinge"
        ``"hinge"``: binary classification, C_L = 1. ``"pinball"``: quantile
        regression, C_L = max(τ, 1 − τ). ``"absolute"``: C_L = 1.
        ``"squared"``: (f(x) − y)² with |y| ≤ M enforced, C_L = 2M(κ+1)/√λ_NW
        (Nie & Wang Sec. 5.1; needs Λ ≤ 2).
    quantile : float, default=0.5
        τ of the pinball loss.
    y_bound : float or None, default=None
        M, required by ``loss="squared"``.
    regularization : float, default=0.01
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖f‖²_K; Nie & Wang's λ = Λ/2 (Ω = ‖f‖²_K, γ = 2).
    classes : array-like or None, default=None
        Public label set of the hinge loss (two labels); ``None`` reads it from
        y with a :class:`~dpsvm.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: CSPRNG noise. An int: reproducible noise, **tests and docs
        only**. A generator object is refused at ``fit`` (kept as a parameter,
        it would replay the noise).

    Attributes
    ----------
    classes_ : ndarray
        The label set (hinge loss).
    kappa_ : float
        κ of the kernel on the declared domain.
    lipschitz_ : float
        C_L of the loss.
    sigma_ : float
        The GP scale σ: the standard deviation of the discrete Gaussian noise
        on the whitened values.
    privacy_event_ : PrivacyEvent
        Frozen record of the release (``details``: ``release="discrete"``,
        ``noise_multiplier``, ``grid``, ``whitened_bound``, ``max_points``).
    solver_info_ : dict
        Solver diagnostics. Reads the data: do not publish.
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    DPOutputPerturbationSVC : ``noise="gaussian"`` is the same release for an
        explicit finite feature map (G = ⟨g, φ(x)⟩, g ~ N(0, I)).

    Notes
    -----
    Privacy: replace-one neighbours, (ε, δ)-DP for the whole released function
    (any finite or adaptively chosen set of evaluations): at points x₁…x_q the
    release is f_z(x) + N(0, σ²(K_xx + jκ²I)) and the Mahalanobis distance of
    the two means is ≤ ‖f_z − f_z̄‖_K ≤ Δ_H + 2·cap (Hall, Rinaldo & Wasserman
    2013, Prop. 8 and Cor. 9). The whitened values carry that distance as an
    L2 sensitivity; the discrete Gaussian on the grid 2^k is calibrated by its
    zCDP bound converted to (ε, δ) (Canonne, Kamath & Steinke 2020, Thm 14
    and Cor. 13), the sensitivity enlarged by the rounding term, so σ is
    about 8 % above the analytic calibration of Balle & Wang that the
    floating-point release used. Evaluations are drawn conditionally on all
    earlier ones (the factor L is extended block by block), so repeated and
    later queries stay consistent (cost O(q³) in the number q of distinct
    points evaluated); the whitening L⁻¹f_z is computed in floating point.
    Assumptions as for :class:`PerQueryLaplacePredictor`. The object holds f_z
    and the GP state: only the evaluations are the release. Floating-point caveat: see
    :mod:`dpsvm.mechanisms.base`.

    References
    ----------
    .. [1] W. Nie, C. Wang, J. Inequal. Appl., Theorem 2.
    .. [2] R. Hall, A. Rinaldo, L. Wasserman, "Differential privacy for
       functions and functional data", JMLR 14:703–727, 2013, Corollary 9.
    .. [3] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for
       differential privacy", ICML 2018, arXiv:1805.06530v1, Theorem 8.
    .. [4] C. L. Canonne, G. Kamath, T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020, Theorem 14 and Corollary 13.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.models import DPGaussianProcessRelease
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)) / 2
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> gp = DPGaussianProcessRelease(epsilon=1.0, delta=1e-6, classes=[-1, 1],
    ...                               random_state=0).fit(X, y)
    >>> a = gp.decision_function(X[:5])
    >>> bool(np.array_equal(a, gp.decision_function(X[:5])))  # consistent
    True
    """

    _parameter_constraints: dict[str, Any] = {
        **KernelERMBase._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "jitter": [Interval(Real, GP_MIN_JITTER, None, closed="left")],
        "accountant": [BudgetAccountant, None],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 1e-6,
        jitter: float = 1e-10,
        accountant: BudgetAccountant | None = None,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        loss: str = "hinge",
        quantile: float = 0.5,
        y_bound: float | None = None,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.jitter = jitter
        self.accountant = accountant
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.loss = loss
        self.quantile = quantile
        self.y_bound = y_bound
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    def _before_data(
        self, epsilon: float, n_samples: int | Callable[[], int]
    ) -> Charge:
        delta = resolve_delta(self.delta, n_samples, allow_zero=False)
        # Checked before reading any data; spent only after a successful fit.
        return charge(resolve_accountant(self.accountant), epsilon, delta, owner=self)

    def _release(
        self, cal: Calibration, n: int, epsilon: float, ticket: Charge | None
    ) -> None:
        # Fixes the released random function f_z + GP noise and spends (ε, δ);
        # the noise is drawn exactly, on whitened coordinates (_gp_draw).
        assert ticket is not None  # from _before_data
        delta = ticket.delta  # the checked δ, planned on the ticket
        z = zcdp_noise_multiplier(epsilon, delta)  # CKS20 Thm 14 + Cor. 13
        # ‖f̂‖_K ≤ κC_L/Λ + cap (first-order condition of the certified ERM), so
        # every whitened coordinate lies in [−R, R] (public clamp).
        bound = _rkhs_norm_bound(cal.kappa, cal.lipschitz, float(self.regularization))
        bound = math.nextafter(bound + cal.cap, math.inf)
        self._gp_cal = discrete_gaussian_calibration(
            z, cal.rkhs_effective, GP_MAX_POINTS, bound
        )
        self.sigma_ = self._gp_cal.sigma
        noise = OutputNoise.gaussian(epsilon, delta, cal.rkhs_effective)
        event = noise.event(
            "nw-gaussian-process-release",
            reference=(
                "f_z + GP(0, σ²K) released as L·(L⁻¹f_z(X*) + discrete Gaussian "
                "noise on a 2^k grid): Hall, Rinaldo & Wasserman, JMLR 14 (2013), "
                "Prop. 8 / Cor. 9, with σ from the discrete Gaussian's zCDP "
                "(Canonne, Kamath & Steinke 2020, Thm 14 and Cor. 13) and Δ_H "
                "from " + SENSITIVITY_REFERENCE
            ),
            details={
                "sigma": self._gp_cal.sigma,
                "release": "discrete",
                "noise_multiplier": z,
                "grid": self._gp_cal.grid,
                "whitened_bound": self._gp_cal.bound,
                "max_points": GP_MAX_POINTS,
                **self._base_details(cal, n),
                "jitter": self.jitter,
            },
        )
        event = dataclasses.replace(event, sensitivity_norm="rkhs")
        ticket.spend(event)  # before the release is usable (answers need the event)
        self.privacy_event_ = event
        self._n_noise_calls = 0  # a fresh noise stream per call (none kept)
        d = self.n_features_in_
        self._gp_points = np.zeros((0, d))
        self._gp_whitened = np.zeros(0)  # ỹ: the exact release (grid points)
        self._gp_values = np.zeros(0)  # L·ỹ: its post-processing
        self._gp_factor = np.zeros((0, 0))  # L (public: the points only)
        self._gp_index: dict[bytes, int] = {}

    def _gp_draw(self, Xp: FloatArray) -> FloatArray:
        """The released function at the rows; new rows whitened and noised exactly.

        With K* = L Lᵀ the jittered kernel matrix of every point evaluated so
        far (public: the points are the caller's), the release is
        ỹ = 2^k·clamp(rint(clamp(L⁻¹f_z(X*), ±R)/2^k) + Z), Z i.i.d. discrete
        Gaussian (:func:`dpsvm.mechanisms.discrete_gaussian_calibration`), and
        the values are L·ỹ (post-processing). New points N after points P
        extend the stored factor block-triangularly, L = [[L_P, 0], [Aᵀ, M]]
        with A = L_P⁻¹K_PN and M Mᵀ = K_NN + jκ²I − AᵀA, so only the new
        whitened coordinates y_N = M⁻¹(f_z(N) − Aᵀy_P) are released and the
        earlier values never change. Privacy: the module docstring.
        """
        keys = [row.tobytes() for row in Xp]
        new_rows: list[int] = []
        seen: dict[bytes, int] = {}
        for i, key in enumerate(keys):
            if key not in self._gp_index and key not in seen:
                seen[key] = i
                new_rows.append(i)
        if new_rows:
            P = self._gp_points
            if P.shape[0] + len(new_rows) > GP_MAX_POINTS:
                raise ValueError(
                    f"This release was calibrated for at most {GP_MAX_POINTS} "
                    f"distinct evaluation points ({P.shape[0]} used); evaluate it "
                    "on fewer new points or fit a new release."
                )
            N = Xp[new_rows]
            A, M, whiten = self._gp_extend(P, N)
            # Private: the whitened exact values of the new points.
            residual = self._model.decision(N)
            if P.shape[0]:
                y_prev = self._gp_solve(self._model.decision(P))
                residual = residual - A.T @ y_prev
            cal = self._gp_cal
            released = cal.release(
                whiten(residual), cal.sample(len(new_rows), self._noise_generator())
            )
            values = M @ released
            if P.shape[0]:
                values = values + A.T @ self._gp_whitened
            start = P.shape[0]
            q = start + len(new_rows)
            L = np.zeros((q, q))
            L[:start, :start] = self._gp_factor
            if start:
                L[start:, :start] = A.T
            L[start:, start:] = M
            self._gp_factor = L
            self._gp_points = np.vstack([P, N])
            self._gp_whitened = np.concatenate([self._gp_whitened, released])
            self._gp_values = np.concatenate([self._gp_values, values])
            for offset, i in enumerate(new_rows):
                self._gp_index[keys[i]] = start + offset
        idx = np.array([self._gp_index[key] for key in keys], dtype=int)
        return np.asarray(self._gp_values[idx], dtype=np.float64)

    def _gp_solve(self, b: Any) -> Any:
        """L⁻¹b for the stored (block lower-triangular) factor L."""
        return scipy.linalg.solve_triangular(self._gp_factor, b, lower=True)

    def _gp_extend(
        self, P: FloatArray, N: FloatArray
    ) -> tuple[Any, FloatArray, Callable[[FloatArray], FloatArray]]:
        """A = L_P⁻¹K_PN, the new diagonal block M and the whitening y ↦ M⁻¹y.

        M is the Cholesky factor of the Schur complement S = K_NN + jκ²I − AᵀA
        (⪰ jκ²I in exact arithmetic). A computed S with an eigenvalue below
        jκ²/2 (or no Cholesky factor) proves a rounding error of at least half
        the jitter, after which the whitening could exceed the RKHS bound by an
        unbounded factor: the batch is refused (``ValueError``) before any
        noise is drawn. The check reads the public points and kernel only.
        """
        spec = self._model.spec
        j = self.jitter * self.kappa_**2
        schur = spec.gram(N, N)
        schur[np.diag_indices_from(schur)] += j
        A: Any = None
        if P.shape[0]:
            A = self._gp_solve(spec.gram(P, N))
            schur = schur - A.T @ A
        schur = 0.5 * (schur + schur.T)
        refusal = ValueError(
            "These evaluation points are too close to each other or to earlier "
            f"ones for jitter={self.jitter:g}: the rounding error of their "
            "conditional covariance is at least half the jitter, so the "
            "whitened release could exceed its sensitivity bound. Nothing was "
            "drawn or released for them; evaluate points farther apart or fit "
            "the release with a larger jitter."
        )
        if not np.all(np.isfinite(schur)) or np.linalg.eigvalsh(schur)[0] < j / 2:
            raise refusal
        try:
            M = scipy.linalg.cholesky(schur, lower=True)
        except scipy.linalg.LinAlgError:
            raise refusal from None

        def whiten(v: FloatArray) -> FloatArray:
            return np.asarray(
                scipy.linalg.solve_triangular(M, v, lower=True), np.float64
            )

        return A, np.asarray(M, dtype=np.float64), whiten

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """Evaluate the released function f_z + σ(G + W) (free; consistent).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points (projected onto the domain).

        Returns
        -------
        ndarray of shape (n_samples,)
            The released values.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Xp = self._model.spec.project(np.asarray(X, dtype=np.float64))
        return self._gp_draw(Xp)


class NonPrivateScalarOffsetRelease(_KernelRelease):
    """Nie & Wang's printed algorithm f_z + b with a *scalar* b — NOT private.

    **Reproduction mode only.** The paper (Nie & Wang eq. (2), Lemma 1, Prop. 1,
    Sec. 5) releases the function x ↦ f_z(x) + b with one real b ~ Laplace.
    That is not differential privacy in the standard sense: every difference
    f_z(x) − f_z(x′) is released exactly, and on neighbouring datasets the two
    output functions lie on the disjoint lines {f_z + c} and {f_z̄ + c}
    (docs/nie_wang.md, "Which printed mechanism is not private"). ``fit``
    always emits :class:`ScalarOffsetNotPrivateWarning`, and
    ``privacy_event_`` records ε = ∞ with the paper's claimed ε in its details.
    Use :class:`PerQueryLaplacePredictor`, :class:`DPOutputPerturbationSVC` or
    :class:`DPGaussianProcessRelease` for private releases.

    Parameters
    ----------
    epsilon : float, default=1.0
        The ε the paper *claims* (sets the noise scale).
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        ``"lemma1"``: b ~ Lap(B_Δ/ε) (Lemma 1); ``"prop1"``: Lap(B_Δ/(2ε)), the
        density printed in Prop. 1 and Sec. 5 (a factor 2 smaller; correction:
        by Lemma 1's own argument it gives only 2ε).
    kernel : {"linear", "rbf", "poly"}, default="rbf"
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²) or (⟨x, y⟩ + c₀)^p (the kernels of
        :func:`dpsvm.kernels.kernel_matrix`). No bias term (both Nie & Wang's
        and Jain & Thakurta's analyses regularise every parameter); use
        ``"poly"`` with c₀ > 0 for an implicit constant.
    gamma : float, default=1.0
        γ > 0 of ``"rbf"``, fixed before seeing the data (no data-dependent
        "scale"); must stay 1 for ``"poly"``, which has no γ.
    degree : int, default=3
        p ≥ 1 (poly).
    coef0 : float, default=1.0
        c₀ ≥ 0 (poly).
    data_norm : float or None, default=1.0
        Radius R of the declared input domain ‖x‖₂ ≤ R; training rows and every
        query are projected onto it, and κ = sup √K(x, x) is computed from it
        (R, 1 or (R² + c₀)^{p/2}). ``None``: no projection for ``"rbf"``
        (κ = 1 anyway); for the other kernels it is read from the data with a
        :class:`~dpsvm.PrivacyLeakWarning`.
    loss : {"hinge", "pinball", "absolute", "squared"}, default="hinge"
        ``"hinge"``: binary classification, C_L = 1. ``"pinball"``: quantile
        regression, C_L = max(τ, 1 − τ). ``"absolute"``: C_L = 1.
        ``"squared"``: (f(x) − y)² with |y| ≤ M enforced, C_L = 2M(κ+1)/√λ_NW
        (Nie & Wang Sec. 5.1; needs Λ ≤ 2).
    quantile : float, default=0.5
        τ of the pinball loss.
    y_bound : float or None, default=None
        M, required by ``loss="squared"``.
    regularization : float, default=0.01
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖f‖²_K; Nie & Wang's λ = Λ/2 (Ω = ‖f‖²_K, γ = 2).
    classes : array-like or None, default=None
        Public label set of the hinge loss (two labels); ``None`` reads it from
        y with a :class:`~dpsvm.PrivacyLeakWarning`.
    random_state : None or int, default=None
        Seed of b (a generator object is refused at ``fit``).

    Attributes
    ----------
    classes_ : ndarray
        The label set (hinge loss).
    kappa_ : float
        κ of the kernel on the declared domain.
    lipschitz_ : float
        C_L of the loss.
    offset_ : float
        The scalar b.
    noise_scale_ : float
        Its Laplace scale.
    privacy_event_ : PrivacyEvent
        Record with ε = ∞ (no guarantee); details give the claimed ε.
    solver_info_ : dict
        Solver diagnostics. Reads the data: do not publish.
    n_features_in_ : int
        Number of input features.

    Notes
    -----
    Privacy: **none** (paper-literal, not standard DP). Released: the whole
    function f_z + b (``decision_function`` answers any number of queries for
    free), hence f_z up to one scalar.

    References
    ----------
    .. [1] W. Nie, C. Wang, J. Inequal. Appl., eq. (2), Lemma 1, Proposition 1,
       Sections 5.1–5.2.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from dpsvm.models import NonPrivateScalarOffsetRelease
    >>> X = np.array([[0.0], [0.5], [-0.5], [0.2]]); y = [1, 1, -1, -1]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lit = NonPrivateScalarOffsetRelease(kernel="linear", classes=[-1, 1],
    ...                                 random_state=0).fit(X, y)
    >>> lit.privacy_event_.details["privacy"]
    'none (paper-literal, not standard DP)'
    """

    _parameter_constraints: dict[str, Any] = {
        **KernelERMBase._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "noise_convention": [StrOptions({"lemma1", "prop1"})],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        noise_convention: str = "lemma1",
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        loss: str = "hinge",
        quantile: float = 0.5,
        y_bound: float | None = None,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.noise_convention = noise_convention
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.loss = loss
        self.quantile = quantile
        self.y_bound = y_bound
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    def _non_private_reason(self) -> str:
        # Read by dpsvm.accounting.non_private_reason (selectors, accountants).
        return (
            "NonPrivateScalarOffsetRelease is Nie & Wang's f_z + b with one scalar "
            "b, which releases every difference f_z(x) - f_z(x') exactly; use "
            "PerQueryLaplacePredictor, DPOutputPerturbationSVC or "
            "DPGaussianProcessRelease."
        )

    def _before_data(self, epsilon: float, n_samples: int | Callable[[], int]) -> None:
        warnings.warn(
            "NonPrivateScalarOffsetRelease is Nie & Wang's printed mechanism f_z + b "
            "with a scalar b: it is NOT differential privacy in the standard sense "
            "(every difference f_z(x) − f_z(x′) is released exactly; outputs on "
            "neighbouring datasets have disjoint supports). Use it to reproduce the "
            "paper only; use PerQueryLaplacePredictor, DPOutputPerturbationSVC or "
            "DPGaussianProcessRelease for private releases.",
            ScalarOffsetNotPrivateWarning,
            stacklevel=3,  # the frame that calls fit (its _fit_context wrapper)
        )

    def _release(
        self, cal: Calibration, n: int, epsilon: float, ticket: Charge | None
    ) -> None:
        # Draws the scalar offset b of Nie & Wang eq. (2); not DP.
        lam = float(self.regularization)
        # Nie & Wang Lemma 1 / Prop. 1: Lap(B_Δ/ε) ("lemma1") or Lap(B_Δ/(2ε))
        # ("prop1"), B_Δ = 2κ²C_L/(λγm) with λ = Λ/2, γ = 2.
        convention: Literal["lemma1", "prop1"] = (
            "prop1" if self.noise_convention == "prop1" else "lemma1"
        )
        scale = nw_noise_scale(
            cal.kappa, cal.lipschitz, lam / 2.0, 2.0, n, epsilon, convention
        )
        # The paper's scale, drawn by the perturbation layer (a record of the
        # claimed calibration: the release has no guarantee).
        noise = OutputNoise("laplace", epsilon, 0.0, scale * epsilon, scale)
        self.noise_scale_ = scale
        self.offset_ = float(noise.sample(1, check_random_state(self.random_state))[0])
        self.privacy_event_ = NonPrivateEvent(
            mechanism="nw-scalar-offset-literal",
            epsilon=math.inf,
            reason=self._non_private_reason(),
            sensitivity=cal.kappa * cal.rkhs,
            sensitivity_norm="sup",
            reference=(
                "Nie & Wang, J. Inequal. Appl., eq. (2), Lemma 1, Prop. 1: claimed "
                "ε-DP, but not DP in the standard sense (the outputs on neighbouring "
                "datasets have disjoint supports; docs/nie_wang.md)"
            ),
            details={
                **self._base_details(cal, n),
                "privacy": "none (paper-literal, not standard DP)",
                "claimed_epsilon": epsilon,
                "noise_convention": self.noise_convention,
                "noise_scale": scale,
            },
        )

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """f_z(x) + b (the paper's released function).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points (projected onto the domain).

        Returns
        -------
        ndarray of shape (n_samples,)
            The values.
        """
        scores, _ = self._exact_scores(X)
        return np.asarray(scores + self.offset_, dtype=np.float64)
