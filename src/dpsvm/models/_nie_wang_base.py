# SPDX-License-Identifier: BSD-3-Clause
"""Shared machinery of the Nie & Wang estimators: kernels, losses, calibration.

Conventions (spec 0.4, docs/conventions.md): the public regularisation is Λ in

    (1/n) Σᵢ ℓ(f(xᵢ), yᵢ) + (Λ/2)‖f‖²        (+ μ‖w‖₁ for explicit features),

which is Nie & Wang's (1/m)Σ L + λ_NW Ω(f) with Ω = ‖f‖² (γ = 2) and λ_NW = Λ/2:
the strong-convexity modulus is λ_NW·γ = Λ (= λ_JT of Jain & Thakurta). Every
sensitivity below is computed by :mod:`dpsvm.bounds.nie_wang` in NW's own
convention, called with (λ_NW, γ) = (Λ/2, 2); nothing is re-derived here.

Neighbouring relation: replace-one (spec 0.1).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from .._compat import Interval, StrOptions
from ..bounds.nie_wang import nw_ls_lipschitz, nw_sensitivity_thm2
from ..exceptions import DPSVMConvergenceError, NotPrivateWarning, PrivacyLeakWarning
from ..solvers import (
    BoxSolution,
    box_loss,
    solve_box_erm,
    solve_squared_erm,
)
from ..validation import project_rows_to_ball
from .base import resolve_label_set
from .linear import CERTIFICATE_RTOL

__all__ = [
    "NW_REFERENCE",
    "Calibration",
    "KernelModel",
    "KernelSpec",
    "NWLiteralModeWarning",
    "calibrate",
    "fit_kernel_model",
    "loss_lipschitz",
    "resolve_classes",
    "resolve_targets",
    "solve_features",
]

FloatArray = NDArray[np.float64]

NW_REFERENCE = (
    "Nie & Wang, 'Perturbation of convex risk minimization and its application in "
    "differential private learning algorithms', J. Inequal. Appl., Theorem 2 "
    "(Δ_H = 2κC_L/(λγm)) and Definition 2 / Proposition 1 (B_Δ = κΔ_H)"
)

#: Regularisation weights of the library convention: λ_NW = Λ/2 with γ = 2.
NW_GAMMA = 2.0

LOSSES = ("hinge", "pinball", "absolute", "squared")
REGRESSION_LOSSES = ("pinball", "absolute", "squared")


class NWLiteralModeWarning(NotPrivateWarning):
    """The paper-literal scalar-offset release of Nie & Wang is not DP.

    A :class:`~dpsvm.exceptions.NotPrivateWarning` (always shown), raised by
    :class:`~dpsvm.models.NWScalarOffsetLiteral`: adding one scalar b to the whole
    function f_z releases every difference f_z(x) − f_z(x′) exactly, so the outputs
    on neighbouring datasets have disjoint supports (spec A.8-1).
    """


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
    row by row (spec 0.6-1). The Gaussian kernel has κ = 1 on all of ℝ^d, so
    ``data_norm=None`` is allowed for it (no projection).

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²) or (γ⟨x, y⟩ + c₀)^p.
    gamma : float
        γ > 0 (rbf, poly); fixed before the data are seen (no "scale").
    degree : int
        p ≥ 1 (poly).
    coef0 : float
        c₀ ≥ 0 (poly); with c₀ ≥ 0, K(x, x) ≤ (γR² + c₀)^p on the domain.
    data_norm : float or None
        The domain radius R.

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

    @property
    def kappa(self) -> float:
        """κ = sup_{‖x‖ ≤ R} √K(x, x) (spec 0.6-1; for PSD K, = sup √K(x, y))."""
        if self.kernel == "rbf":
            return 1.0  # K(x, x) = 1
        assert self.data_norm is not None
        R = float(self.data_norm)
        if self.kernel == "linear":
            return R  # √⟨x, x⟩ ≤ R
        # (γ‖x‖² + c₀)^p is increasing in ‖x‖ for γ > 0, c₀ ≥ 0.
        return float((self.gamma * R * R + self.coef0) ** (self.degree / 2.0))

    def project(self, X: FloatArray) -> FloatArray:
        """Project rows onto the declared domain ‖x‖ ≤ R (public, per row)."""
        if self.data_norm is None:
            return np.asarray(X, dtype=np.float64)
        return np.asarray(project_rows_to_ball(X, self.data_norm), dtype=np.float64)

    def gram(self, A: FloatArray, B: FloatArray) -> FloatArray:
        """K(A, B) on already projected rows."""
        if self.kernel == "linear":
            return np.asarray(linear_kernel(A, B), dtype=np.float64)
        if self.kernel == "rbf":
            return np.asarray(rbf_kernel(A, B, gamma=self.gamma), dtype=np.float64)
        return np.asarray(
            polynomial_kernel(
                A, B, degree=self.degree, gamma=self.gamma, coef0=self.coef0
            ),
            dtype=np.float64,
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

    Hinge and absolute: 1; pinball: max(τ, 1 − τ) (spec A.2, [ours]); squared
    loss (f(x) − y)² with |y| ≤ M: NW Sec. 5.1, C_L = 2M(κ + 1)/√λ_NW from
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
        # [NW] Sec. 5.1: C_L = 2M(κ+1)/√λ_NW with λ_NW = Λ/2.
        return nw_ls_lipschitz(y_bound, kappa, lam / 2.0)
    return box_loss(loss, np.zeros(1), quantile)[3]


def resolve_classes(classes: ArrayLike | None, y: np.ndarray) -> np.ndarray:
    """The public label set (warns if it is read from the data)."""
    return resolve_label_set(classes, y)


def resolve_targets(
    loss: str, y: np.ndarray, classes: np.ndarray | None, y_bound: float | None
) -> FloatArray:
    """Internal targets: ±1 for the hinge (binary), clipped y for the squared loss."""
    if loss == "hinge":
        assert classes is not None
        if classes.size != 2:
            raise ValueError(
                "This estimator is binary: pass a public label set of exactly 2 "
                "labels as classes=[...], or use NWOutputPerturbationSVC for "
                "one-vs-rest."
            )
        return np.where(y == classes[1], 1.0, -1.0)
    r = np.asarray(y, dtype=np.float64)
    if loss == "squared":
        assert y_bound is not None
        # Spec 0.6-1: labels clipped to |y| ≤ M (a per-record public map).
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
        Δ_H = 2κC_L/(λ_NW·γ·n) = 2κC_L/(nΛ) ([NW] Thm 2).
    cap : float
        The public cap CERTIFICATE_RTOL·Δ_H on the solver's certified error.
    rkhs_effective : float
        Δ_H + 2·cap (both neighbours' solutions may be off by the cap).
    prediction_effective : float
        κ·(Δ_H + 2·cap), the sup-norm sensitivity of one prediction (B_Δ of
        [NW] Prop. 1 plus 2κ·cap).
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
    # [NW] Thm 2: Δ_H = 2κC_L/(λγm) with λ = λ_NW = Λ/2, γ = 2, m = n.
    rkhs = nw_sensitivity_thm2(kappa, lipschitz, lam / 2.0, NW_GAMMA, n)
    cap = CERTIFICATE_RTOL * rkhs
    # Spec 0.6-3 [ours]: Δ_H + 2τ, and S + 2τκ for predictions.
    eff = rkhs + 2.0 * cap
    return Calibration(kappa, lipschitz, rkhs, cap, eff, kappa * eff)


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
) -> BoxSolution:
    """Solve (1/n)Σℓ + (Λ/2)‖w‖² + μ‖w‖₁ on feature rows, certified.

    The bias-free hinge SVM on explicit features (μ = 0) goes through
    :func:`dpsvm.solvers._erm.solve_hinge` (liblinear dual coordinate descent
    with a duality-gap certificate); every other case through
    :mod:`dpsvm.solvers._box`.
    """
    if loss == "squared":
        return solve_squared_erm(Phi if gram is None else None, r, lam, gram=gram)
    if loss == "hinge" and l1 == 0.0 and gram is None and Phi is not None:
        from ..solvers import solve_hinge

        res = solve_hinge(Phi, r, lam, target_distance=target_distance)
        return BoxSolution(
            res.coef, None, res.gap, res.distance_bound, res.n_iter, res.method
        )
    lo, hi, rr, _ = box_loss(loss, r, quantile)
    return solve_box_erm(
        Phi, lo, hi, rr, lam, l1=l1, gram=gram, target_distance=target_distance
    )


def check_certificate(distance_bound: float, cap: float) -> None:
    """Refuse to release when the certified error exceeds the public cap."""
    if not distance_bound <= cap:
        # The certified error is computed on the private data: not quoted.
        raise DPSVMConvergenceError(
            "The solver could not certify its error below the public cap "
            f"{cap:.3g} that the noise is calibrated for; nothing was released or "
            "spent."
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
    """Solve the kernel ERM of [NW] eq. (1) on projected rows, certified."""
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
