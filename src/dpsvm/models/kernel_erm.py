# SPDX-License-Identifier: BSD-3-Clause
"""Certified regularised ERM for convex Lipschitz losses, with a public kernel bound.

The exact minimiser of

    (1/n) Σᵢ ℓ(f(xᵢ), yᵢ) + (Λ/2)‖f‖²        (+ μ‖w‖₁ for explicit features)

moves by at most Δ_H = 2κC_L/(nΛ) in RKHS (feature) norm when one record is
replaced, for any convex C_L-Lipschitz loss (Nie & Wang, J. Inequal. Appl.,
Theorem 2, with their λ = Λ/2 and Ω = ‖f‖², γ = 2; the conventions are tabled
in docs/nie_wang.md). This module holds what every release built on that
sensitivity shares: a kernel with a public bound κ over a declared domain
(:class:`KernelSpec`), the Lipschitz constants of the losses, the calibration
(computed by :mod:`dpsvm.bounds.nie_wang`, never re-derived here), the
certified solve, and :class:`KernelERMBase`, the estimator base of the kernel
releases (``dpsvm.models``) and of the private prediction learners
(``dpsvm.prediction``).

Neighbouring relation: replace-one (datasets of equal size differing in one
record).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, validate_data
from ..bounds.nie_wang import nw_ls_lipschitz, nw_sensitivity_thm2
from ..exceptions import PrivacyLeakWarning
from ..kernels import kernel_matrix, polynomial_feature_norm_bound
from ..perturbation import certified_sensitivity, check_certificate
from ..solvers import (
    BoxSolution,
    box_loss,
    solve_box_erm,
    solve_squared_erm,
)
from ..utils._random import call_generator, random_state_constraint
from ..utils._types import FloatArray
from ..validation import project_rows_to_ball
from .base import LABEL_SET_FROM_DATA, resolve_label_set

# Public: the kernel with its bound, and the base class that dpsvm.prediction
# builds on. The other names are shared with the sibling modules only.
__all__ = ["KernelERMBase", "KernelSpec"]


SENSITIVITY_REFERENCE = (
    "Nie & Wang, 'Perturbation of convex risk minimization and its application in "
    "differential private learning algorithms', J. Inequal. Appl., Theorem 2 "
    "(Δ_H = 2κC_L/(λγm)) and Definition 2 / Proposition 1 (B_Δ = κΔ_H)"
)

#: γ of Nie & Wang's Ω = ‖f‖²: the library's (Λ/2)‖f‖² is their λΩ with λ = Λ/2.
NW_GAMMA = 2.0


# --------------------------------------------------------------------- kernels
KERNEL_CONSTRAINTS: dict[str, Any] = {
    "kernel": [StrOptions({"linear", "rbf", "poly"})],
    "gamma": [Interval(Real, 0, None, closed="neither")],
    "degree": [Interval(Integral, 1, None, closed="left")],
    "coef0": [Interval(Real, 0, None, closed="left")],
    "data_norm": [Interval(Real, 0, None, closed="neither"), None],
}


@dataclass(frozen=True)
class KernelSpec:
    """A kernel with a public bound κ = sup √K(x, x) over a declared domain.

    The domain is the ball ‖x‖₂ ≤ ``data_norm``; inputs are projected onto it
    row by row, so κ holds for every input (Nie & Wang's κ and Jain &
    Thakurta's R_φ must bound the whole domain, not the training rows). The
    Gaussian kernel has κ = 1 on all of ℝ^d, so ``data_norm=None`` is allowed
    for it (no projection). The kernels are those of
    :func:`dpsvm.kernels.kernel_matrix`, which computes every Gram matrix.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²) or (⟨x, y⟩ + c₀)^p (the library's
        one polynomial kernel, as :func:`dpsvm.kernels.kernel_matrix` and
        :class:`dpsvm.kernels.PolynomialFeatureMap`).
    gamma : float
        γ > 0 of ``"rbf"``, fixed before the data are seen (no "scale"). Must
        be 1 for ``"poly"``, which has no γ: for (γ⟨x, y⟩ + c₀)^p scale the
        rows and ``data_norm`` by √γ.
    degree : int
        p ≥ 1 (poly).
    coef0 : float
        c₀ ≥ 0 (poly); with c₀ ≥ 0, K(x, x) ≤ (R² + c₀)^p on the domain.
    data_norm : float or None
        The domain radius R.

    Raises
    ------
    ValueError
        For ``kernel="poly"`` with ``gamma`` other than 1.

    Examples
    --------
    >>> KernelSpec("poly", 1.0, 2, 1.0, 1.0).kappa
    2.0
    """

    kernel: str
    gamma: float
    degree: int
    coef0: float
    data_norm: float | None

    def __post_init__(self) -> None:
        if self.kernel == "poly" and self.gamma != 1.0:
            # One polynomial kernel in the library (issue 11: this class used
            # (γ⟨x, y⟩ + c₀)^p while kernel_matrix ignored γ).
            raise ValueError(
                "kernel='poly' is (<x, y> + coef0)^degree, as in "
                "dpsvm.kernels.kernel_matrix; it has no gamma (got gamma="
                f"{self.gamma!r}). Leave gamma=1; for (gamma*<x, y> + coef0)^degree "
                "multiply the rows and data_norm by sqrt(gamma)."
            )

    @property
    def kappa(self) -> float:
        """κ = sup_{‖x‖ ≤ R} √K(x, x) (for a PSD kernel, = sup √K(x, y))."""
        if self.kernel == "rbf":
            return 1.0  # K(x, x) = 1
        assert self.data_norm is not None
        R = float(self.data_norm)
        if self.kernel == "linear":
            return R  # √⟨x, x⟩ ≤ R
        # (‖x‖² + c₀)^p is increasing in ‖x‖ for c₀ ≥ 0.
        return polynomial_feature_norm_bound(self.degree, self.coef0, R)

    def project(self, X: FloatArray) -> FloatArray:
        """Project rows onto the declared domain ‖x‖ ≤ R (public, per row)."""
        if self.data_norm is None:
            return np.asarray(X, dtype=np.float64)
        return np.asarray(project_rows_to_ball(X, self.data_norm), dtype=np.float64)

    def gram(self, A: FloatArray, B: FloatArray) -> FloatArray:
        """K(A, B) on already projected rows."""
        return kernel_matrix(
            A,
            B,
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
        )


def resolve_domain(kernel: str, data_norm: float | None, X: FloatArray) -> float | None:
    """Return the domain radius; warn if it has to be read from the data."""
    if data_norm is not None:
        return float(data_norm)
    if kernel == "rbf":
        return None  # κ = 1 without any domain bound
    norm = float(np.max(np.linalg.norm(X, axis=1))) if X.size else 1.0
    # The message names the option, never the value (it is data-derived).
    warnings.warn(
        "data_norm=None: the domain radius (hence κ) was computed from the private "
        "data; the privacy guarantee does not hold. Set data_norm to a public "
        "bound on ‖x‖₂.",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    return norm if norm > 0 else 1.0


# ---------------------------------------------------------------------- losses
def loss_lipschitz(
    loss: str, *, quantile: float, y_bound: float | None, kappa: float, lam: float
) -> float:
    """The Lipschitz constant C_L that the sensitivity uses.

    Hinge and absolute: 1; pinball: max(τ, 1 − τ) (|ρ_τ'| ≤ max(τ, 1 − τ); Nie &
    Wang name the pinball loss but do not work it out); squared loss
    (f(x) − y)² with |y| ≤ M: Nie & Wang Sec. 5.1, C_L = 2M(κ + 1)/√λ_NW from
    :func:`dpsvm.bounds.nie_wang.nw_ls_lipschitz` (needs λ_NW = Λ/2 ≤ 1).

    Parameters
    ----------
    loss : {"hinge", "pinball", "absolute", "squared"}
        The loss.
    quantile : float
        τ of the pinball loss.
    y_bound : float or None
        M (squared loss only).
    kappa : float
        κ, the feature/kernel bound.
    lam : float
        Λ (library convention).

    Returns
    -------
    float
        C_L.

    Raises
    ------
    ValueError
        For the squared loss without ``y_bound`` or with Λ > 2.

    Examples
    --------
    >>> loss_lipschitz("pinball", quantile=0.9, y_bound=None, kappa=1.0, lam=0.1)
    0.9
    """
    if loss == "squared":
        if y_bound is None:
            raise ValueError(
                "loss='squared' needs y_bound, a public bound M on |y| (labels are "
                "clipped to [−M, M]); its Lipschitz constant 2M(κ+1)/√λ_NW (Nie & "
                "Wang Sec. 5.1) depends on it."
            )
        if lam / 2.0 > 1.0:
            raise ValueError(
                f"loss='squared' needs λ_NW = regularization/2 <= 1 (Nie & Wang "
                f"Sec. 5.1), got regularization={lam}."
            )
        # Nie & Wang Sec. 5.1: C_L = 2M(κ+1)/√λ_NW with λ_NW = Λ/2.
        return nw_ls_lipschitz(y_bound, kappa, lam / 2.0)
    return box_loss(loss, np.zeros(1), quantile)[3]


def resolve_targets(
    loss: str, y: np.ndarray, classes: np.ndarray | None, y_bound: float | None
) -> FloatArray:
    """Internal targets: ±1 for the hinge (binary), clipped y for the squared loss."""
    if loss == "hinge":
        assert classes is not None
        if classes.size != 2:
            raise ValueError(
                "This estimator is binary: pass a public label set of exactly 2 "
                "labels as classes=[...], or use DPOutputPerturbationSVC for "
                "one-vs-rest."
            )
        return np.where(y == classes[1], 1.0, -1.0)
    r = np.asarray(y, dtype=np.float64)
    if loss == "squared":
        assert y_bound is not None
        # |y| ≤ M is an assumption of Nie & Wang Sec. 5.1: clip the labels (a
        # per-record public map).
        r = np.clip(r, -y_bound, y_bound)
    return r


# ------------------------------------------------------------------ calibration
@dataclass(frozen=True)
class Calibration:
    """Sensitivities of one release (library convention Λ; NW's with λ_NW = Λ/2).

    Attributes
    ----------
    kappa : float
        κ.
    lipschitz : float
        C_L.
    rkhs : float
        Δ_H = 2κC_L/(λ_NW·γ·n) = 2κC_L/(nΛ) (Nie & Wang Thm 2).
    cap : float
        The public cap 10⁻³·Δ_H on the solver's certified error
        (:func:`dpsvm.perturbation.certified_sensitivity`).
    rkhs_effective : float
        Δ_H + 2·cap (both neighbours' solutions may be off by the cap).
    prediction_effective : float
        κ·(Δ_H + 2·cap), the sup-norm sensitivity of one prediction (B_Δ of
        Nie & Wang Prop. 1 plus 2κ·cap).
    """

    kappa: float
    lipschitz: float
    rkhs: float
    cap: float
    rkhs_effective: float
    prediction_effective: float


def calibrate(kappa: float, lipschitz: float, lam: float, n: int) -> Calibration:
    """Nie–Wang sensitivities for Λ = ``lam`` and n rows (replace-one).

    Parameters
    ----------
    kappa : float
        κ.
    lipschitz : float
        C_L.
    lam : float
        Λ (library convention).
    n : int
        Number of rows.

    Returns
    -------
    Calibration
        Δ_H, the certificate cap and the effective sensitivities.

    Examples
    --------
    >>> cal = calibrate(1.0, 1.0, 1.0, 10)
    >>> round(cal.rkhs, 12), round(cal.rkhs_effective, 12)
    (0.2, 0.2004)
    """
    # Nie & Wang Thm 2: Δ_H = 2κC_L/(λγm) with λ = λ_NW = Λ/2, γ = 2, m = n.
    rkhs = nw_sensitivity_thm2(kappa, lipschitz, lam / 2.0, NW_GAMMA, n)
    # Nie & Wang's Thm 2 is for the exact minimiser; the solver certifies
    # ‖ŵ − w*‖ ≤ cap on each neighbour, so the released points differ by at most
    # Δ_H + 2·cap, and predictions by κ(Δ_H + 2·cap).
    cap, eff = certified_sensitivity(rkhs)
    return Calibration(kappa, lipschitz, rkhs, cap, eff, kappa * eff)


def calibrate_loss(
    loss: str,
    *,
    quantile: float,
    y_bound: float | None,
    kappa: float,
    lam: float,
    n: int,
) -> Calibration:
    """:func:`calibrate` with the loss's Lipschitz constant (:func:`loss_lipschitz`).

    Examples
    --------
    >>> calibrate_loss("hinge", quantile=0.5, y_bound=None, kappa=1.0, lam=1.0,
    ...                n=10).rkhs
    0.2
    """
    C_L = loss_lipschitz(loss, quantile=quantile, y_bound=y_bound, kappa=kappa, lam=lam)
    return calibrate(kappa, C_L, lam, n)


def solve_features(
    Phi: FloatArray | None,
    r: FloatArray,
    loss: str,
    *,
    quantile: float,
    lam: float,
    l1: float = 0.0,
    target_distance: float = 0.0,
    gram: FloatArray | None = None,
    sample_weight: FloatArray | None = None,
) -> BoxSolution:
    """Solve (1/n)Σℓ + (Λ/2)‖w‖² + μ‖w‖₁ on feature rows, certified.

    The bias-free hinge SVM on explicit features (μ = 0) goes through
    :func:`dpsvm.solvers._erm.solve_hinge` (liblinear dual coordinate descent
    with a duality-gap certificate); every other case through
    :mod:`dpsvm.solvers._box`. ``sample_weight`` ω ≥ 0 gives (1/n)Σωᵢℓᵢ: a
    piecewise-linear loss ωᵢℓᵢ(t) = max over a ∈ [ωᵢloᵢ, ωᵢhiᵢ] of a(rᵢ − t),
    i.e. the same box solver on the scaled box (not for the squared loss).
    """
    if loss == "squared":
        if sample_weight is not None:
            raise ValueError(
                "loss='squared' takes no sample weights (its Lipschitz constant, "
                "Nie & Wang Sec. 5.1, is stated for unit weights)."
            )
        return solve_squared_erm(Phi if gram is None else None, r, lam, gram=gram)
    if loss == "hinge" and l1 == 0.0 and gram is None and Phi is not None:
        from ..solvers import solve_hinge

        res = solve_hinge(
            Phi, r, lam, target_distance=target_distance, sample_weight=sample_weight
        )
        return BoxSolution(
            res.coef, None, res.gap, res.distance_bound, res.n_iter, res.method
        )
    lo, hi, rr, _ = box_loss(loss, r, quantile)
    if sample_weight is not None:  # ωℓ(t) = max over a ∈ [ω·lo, ω·hi] of a(r − t)
        lo, hi = lo * sample_weight, hi * sample_weight
    return solve_box_erm(
        Phi, lo, hi, rr, lam, l1=l1, gram=gram, target_distance=target_distance
    )


# ---------------------------------------------------------------- kernel model
@dataclass(frozen=True)
class KernelModel:
    """An exact (certified) kernel ERM solution f_z = Σ cᵢK(xᵢ, ·).

    For the linear kernel the weight vector w is kept instead (f(x) = ⟨w, x⟩).
    **Never released** by the private estimators: only noisy functions of it.
    """

    spec: KernelSpec
    support: FloatArray | None
    dual_coef: FloatArray | None
    coef: FloatArray | None
    distance_bound: float
    n_iter: int
    method: str

    def decision(self, X: FloatArray) -> FloatArray:
        """f_z at rows already projected onto the domain."""
        if self.coef is not None:
            return np.asarray(X @ self.coef, dtype=np.float64)
        assert self.support is not None and self.dual_coef is not None
        return np.asarray(self.spec.gram(X, self.support) @ self.dual_coef)


def fit_kernel_model(
    spec: KernelSpec,
    Xp: FloatArray,
    r: FloatArray,
    loss: str,
    *,
    quantile: float,
    lam: float,
    target_distance: float,
) -> KernelModel:
    """Solve the kernel ERM of Nie & Wang eq. (1) on projected rows, certified."""
    if spec.kernel == "linear":
        sol = solve_features(
            Xp, r, loss, quantile=quantile, lam=lam, target_distance=target_distance
        )
        return KernelModel(
            spec, None, None, sol.coef, sol.distance_bound, sol.n_iter, sol.method
        )
    K = spec.gram(Xp, Xp)
    sol = solve_features(
        None,
        r,
        loss,
        quantile=quantile,
        lam=lam,
        target_distance=target_distance,
        gram=K,
    )
    return KernelModel(
        spec, Xp, sol.dual_coef, None, sol.distance_bound, sol.n_iter, sol.method
    )


# ----------------------------------------------------------- estimator base
class KernelERMBase(BaseEstimator):
    """Base of the estimators that fit a certified kernel ERM and never release it.

    ``_fit_model`` validates the data, resolves the public label set (hinge
    loss: ``classes``, else read from y with a
    :class:`~dpsvm.exceptions.PrivacyLeakWarning`), projects the rows onto the
    declared domain, computes κ and the Lipschitz constant, and solves the
    bias-free ERM (1/n)Σℓ(f(xᵢ), yᵢ) + (Λ/2)‖f‖²_K to a certified distance
    below the public cap 10⁻³·Δ_H (else
    :class:`~dpsvm.exceptions.DPSVMConvergenceError`). The exact model f_z is
    kept in a private attribute: subclasses release only noisy functions of
    it (per-query answers, a Gaussian-process function, a model on public
    points). Subclasses take the kernel-ERM parameters (``kernel``,
    ``gamma``, ``degree``, ``coef0``, ``data_norm``, ``loss``, ``quantile``,
    ``y_bound``, ``regularization``, ``classes``, ``random_state``) and their
    own.

    See Also
    --------
    dpsvm.models.PerQueryLaplacePredictor : Per-query Laplace answers.
    dpsvm.prediction.PrivateInteractivePredictor : Jain & Thakurta's Alg. 1.

    Notes
    -----
    Privacy: replace-one neighbours; the sensitivity of the certified
    minimiser is Δ_H + 2·cap in RKHS norm and κ(Δ_H + 2·cap) for one
    prediction (Nie & Wang, Theorem 2 and Proposition 1). Nothing is released
    or spent by ``_fit_model`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.models import PerQueryLaplacePredictor
    >>> from dpsvm.models.kernel_erm import KernelERMBase
    >>> issubclass(PerQueryLaplacePredictor, KernelERMBase)
    True
    """

    def _kernel_spec(self, X: FloatArray) -> KernelSpec:
        """The kernel with its public bound κ (subclasses may add kernels)."""
        return KernelSpec(
            self.kernel,
            float(self.gamma),
            int(self.degree),
            float(self.coef0),
            resolve_domain(self.kernel, self.data_norm, X),
        )

    _parameter_constraints: dict[str, Any] = {
        **KERNEL_CONSTRAINTS,
        "loss": [StrOptions({"hinge", "pinball", "absolute", "squared"})],
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "y_bound": [Interval(Real, 0, None, closed="neither"), None],
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "random_state": random_state_constraint(),
    }
    #: Noisy calls answered since ``fit`` (releases that draw noise after fit).
    _n_noise_calls: int

    def _fit_model(self, X: ArrayLike, y: ArrayLike) -> tuple[Calibration, int]:
        is_clf = self.loss == "hinge"
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=not is_clf)
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        lam = float(self.regularization)
        classes = None
        if is_clf:
            check_classification_targets(y)
            classes = resolve_label_set(self.classes, y)
            self.classes_ = classes
        elif self.loss == "squared" and self.y_bound is None:
            raise ValueError(
                "loss='squared' needs y_bound, a public bound M on |y| (labels are "
                "clipped to [−M, M])."
            )
        r = resolve_targets(self.loss, y, classes, self.y_bound)
        spec = self._kernel_spec(X)
        kappa = spec.kappa
        cal = calibrate_loss(
            self.loss,
            quantile=self.quantile,
            y_bound=self.y_bound,
            kappa=kappa,
            lam=lam,
            n=X.shape[0],
        )
        model = fit_kernel_model(
            spec,
            spec.project(X),
            r,
            self.loss,
            quantile=float(self.quantile),
            lam=lam,
            target_distance=cal.cap,
        )
        check_certificate(model.distance_bound, cal.cap)
        self._model: KernelModel = model
        self.kappa_ = kappa
        self.lipschitz_ = cal.lipschitz
        self.solver_info_ = {
            "method": model.method,
            "n_iter": model.n_iter,
            "distance_bound": model.distance_bound,
        }
        return cal, int(X.shape[0])

    def _noise_generator(self) -> np.random.Generator:
        """A noise stream for one call after ``fit``, never kept on the object.

        Keeping the generator that drew earlier answers would let anyone with
        the object replay that noise; each call takes a fresh stream instead
        (:func:`dpsvm.utils._random.call_generator`).
        """
        call = self._n_noise_calls
        self._n_noise_calls = call + 1
        return call_generator(self.random_state, call)

    def _exact_scores(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """(f_z at the projected rows, the projected rows): private values."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Xp = self._model.spec.project(np.asarray(X, dtype=np.float64))
        return self._model.decision(Xp), Xp

    def _labels(self, scores: FloatArray) -> np.ndarray:
        if self.loss == "hinge":
            return np.asarray(self.classes_[(scores > 0).astype(int)])
        return scores

    def _base_details(self, cal: Calibration, n: int) -> dict[str, Any]:
        details = {
            "kernel": self.kernel,
            "kappa": cal.kappa,
            "loss": self.loss,
            "lipschitz": cal.lipschitz,
            "regularization": float(self.regularization),
            "lambda_nw": float(self.regularization) / 2.0,
            "gamma_nw": NW_GAMMA,
            "n_samples": n,
            "rkhs_sensitivity": cal.rkhs,
            "certificate_cap": cal.cap,
        }
        if self.loss == "hinge" and self.classes is None:
            details["label_set"] = LABEL_SET_FROM_DATA
        return details
