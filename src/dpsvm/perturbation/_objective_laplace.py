# SPDX-License-Identifier: BSD-3-Clause
"""Objective perturbation with per-coordinate Laplace b and a public L1 row bound.

Chaudhuri, Monteleoni & Sarwate (JMLR 12, 2011), Algorithm 2 / Theorem 9, with
the Gamma-norm density of b replaced by the product Laplace density
ν(b) ∝ exp(−ε′‖b‖₁/Δ₁). The proof of Theorem 9 bounds the ratio of the output
densities on neighbours by (Jacobian ratio) × ν(b)/ν(b′) where b − b′ is the
difference of the replaced record's loss gradients, ℓ′(·)y x̃ − ℓ′(·)y′x̃′; it
uses the norm of ν only through ‖b − b′‖ ≤ 2L in the norm of ν. With rows of
public L1 bound ‖x̃‖₁ ≤ B₁ (enforced by the estimator), ‖b − b′‖₁ ≤ 2L·B₁ =: Δ₁,
so ν(b)/ν(b′) ≤ exp(ε′‖b − b′‖₁/Δ₁) ≤ e^{ε′}. The Jacobian part does not
depend on ν; it is bounded here with the rank-one (matrix determinant lemma)
bound ln(1 + c/(nλ)), half of CMS11's (:func:`rank_one_jacobian_calibration`;
proof in docs/privacy.md, "Objective perturbation with Laplace or Gaussian b").

Why: one-hot encoded rows (a public schema) have ‖x‖₁ ≤ number of columns,
i.e. B₁ = √(number of columns) on the unit ball, whatever the number d of
encoded features, so each coordinate of b has standard deviation
√2·2L·B₁/ε′ instead of ≈ 2√d/ε′ for the Gamma-norm b (Adult, with the
intercept constant 0.5 added to B₁: √2·2·(√14 + 0.5) ≈ 12.0 against
2√106 ≈ 20.6, in units of 1/ε′).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..mechanisms import sample_laplace
from ._calibration import (
    RESIDUAL_EPSILON_FRACTION,
    ObjectiveCalibration,
    approximate_minimiser_calibration,
)
from ._objective import FloatArray, ObjectivePerturbation, split_residual_epsilon

__all__ = [
    "AUTO_CORRECTION_SHARE_COORDINATE_NOISE",
    "LaplaceObjectivePerturbation",
    "laplace_objective_scale",
    "rank_one_jacobian_calibration",
    "sparse_rows_l1_bound",
]

#: ``regularization="auto"`` of ``mechanism="objective-laplace"`` and
#: ``"objective-gaussian"``: the share f of ε the Jacobian correction of CMS11
#: Alg. 2 may take (:func:`~dpsvm.perturbation.auto_regularization`). Their b
#: has smaller coordinates than the Gamma-norm b, so a smaller λ pays; f = 0.3
#: was chosen by 3-fold cross-validation on the Adult training file (adult.data,
#: never the test file) among f ∈ {0.1, 0.2, 0.3, 0.4, 0.45, 0.6}, after the
#: Gaussian b's exact-δ calibration (docs/defaults.md).
AUTO_CORRECTION_SHARE_COORDINATE_NOISE = 0.3


def rank_one_jacobian_calibration(
    epsilon: float, n: int, lam: float, c: float
) -> ObjectiveCalibration:
    """ε′ and Δ of objective perturbation with the rank-one Jacobian bound.

    For linear models ℓ(y wᵀx̃) the Hessian of one record's loss is
    ℓ″·x̃x̃ᵀ (rank one). With M = Σ_{i≠j} ℓ″ᵢx̃ᵢx̃ᵢᵀ + nλI (the rows the
    neighbours share, M ⪰ nλI) the matrix determinant lemma gives
    det(M + ℓ″x̃x̃ᵀ) = det(M)(1 + ℓ″x̃ᵀM⁻¹x̃) with 1 ≤ 1 + ℓ″x̃ᵀM⁻¹x̃ ≤
    1 + c/(nλ) for ‖x̃‖ ≤ 1, 0 ≤ ℓ″ ≤ c; so the ratio of the two Jacobian
    determinants of a replace-one pair lies in [1/(1 + c/(nλ)), 1 + c/(nλ)]:

        ε_J = ln(1 + c/(nλ)),

    half of the 2 ln(1 + c/(nλ)) of CMS11 Thm 9 (whose proof bounds a
    general rank-two difference), as in Kifer, Smith & Thakurta (COLT 2012,
    proof of Thm 2, rank-one Hessians). If ε_J > ε/2, the extra
    regularisation Δ with ln(1 + c/(n(λ + Δ))) = ε/2 is added (the analogue of
    CMS11 Alg. 2 step 2). ε′ = ε − ε_J.

    Parameters
    ----------
    epsilon : float
        ε > 0 of the objective-perturbation step.
    n : int
        Number of rows.
    lam : float
        λ > 0 of the unit-ball problem.
    c : float
        Bound on ℓ″ ≥ 0.

    Returns
    -------
    ObjectiveCalibration
        ε′ (left for the noise), Δ, the Gamma scale 2/ε′ (unused by the
        Laplace and Gaussian b) and ``variant="rank-one"``.

    Examples
    --------
    >>> cal = rank_one_jacobian_calibration(0.5, 1000, 0.01, 1.0)
    >>> round(cal.epsilon_prime, 6), cal.extra_regularization
    (0.40469, 0.0)
    """
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0; got {epsilon!r}.")
    # Rank-one Jacobian ratio (matrix determinant lemma): ε_J = ln(1 + c/(nλ)).
    eps_j = math.log1p(c / (n * lam))
    extra = 0.0
    if eps_j > epsilon / 2.0:
        # Δ with ln(1 + c/(n(λ + Δ))) = ε/2, i.e. λ + Δ = c/(n(e^{ε/2} − 1)).
        denom = n * math.expm1(epsilon / 2.0)
        if not denom > 0 or not math.isfinite(c / denom):
            raise ValueError(
                f"epsilon = {epsilon:g} is too small for objective perturbation "
                "in floating point."
            )
        extra = max(c / denom - lam, 0.0)
        eps_j = epsilon / 2.0
    eps_prime = epsilon - eps_j
    return ObjectiveCalibration(eps_prime, extra, 2.0 / eps_prime, "rank-one")


def sparse_rows_l1_bound(
    max_nonzeros: int, data_norm: float, intercept_scaling: float = 0.0
) -> float:
    """Public L1 bound of rows with at most m non-zeros, each in [−1, 1].

    A public schema's encoded rows (:class:`~dpsvm.preprocessing.PublicSchema`:
    one coordinate in [−1, 1] per numeric column, a one-hot block or zeros per
    categorical column) have at most m = number of columns non-zero
    coordinates, each of absolute value ≤ 1. So ‖x‖₁ ≤ m, and by
    Cauchy–Schwarz on the m non-zeros ‖x‖₁ ≤ √m·‖x‖₂. The linear estimators
    project the x part onto the L2 ball of radius √(R² − s²) (s =
    ``intercept_scaling``·R the public intercept column), so after it

        ‖x‖₁ ≤ min(m, √m·R·√(1 − (s/R)²)).

    Used as ``data_norm_l1`` of ``mechanism="objective-laplace"`` it is
    enforced by the estimator's L1 clip like any other value (privacy never
    rests on this lemma), and the lemma says that clip changes no such row;
    with the intercept (s/R = 1/2) it is √0.75 ≈ 0.87 of m, so the Laplace
    scale 2L·B₁/ε′ shrinks by the same factor on the x part.

    Parameters
    ----------
    max_nonzeros : int
        m ≥ 1, the public bound on the non-zeros of a row (a schema's number
        of columns).
    data_norm : float
        The public row-norm bound R > 0 of the estimator.
    intercept_scaling : float, default=0.0
        s/R of the intercept column (0 without an intercept).

    Returns
    -------
    float
        The L1 bound of the projected rows, in the units of x.

    Examples
    --------
    >>> round(sparse_rows_l1_bound(14, 14**0.5, 0.5), 4)  # Adult's schema
    12.1244
    >>> sparse_rows_l1_bound(14, 14**0.5)
    14.0
    """
    m = int(max_nonzeros)
    if m < 1 or not (data_norm > 0 and math.isfinite(data_norm)):
        raise ValueError(
            "max_nonzeros must be >= 1 and data_norm a finite number > 0; got "
            f"{max_nonzeros!r} and {data_norm!r}."
        )
    # ‖x‖₁ ≤ √m‖x‖₂ (m non-zeros) ≤ √m·√(R² − s²) after the L2 projection.
    radius = float(data_norm) * math.sqrt(max(1.0 - intercept_scaling**2, 0.0))
    return min(float(m), math.sqrt(m) * radius)


def laplace_objective_scale(
    epsilon_prime: float, l1_bound: float, lipschitz: float = 1.0
) -> float:
    """Laplace scale Δ₁/ε′ of each coordinate of b, Δ₁ = 2L·B₁.

    CMS11, proof of Theorem 9, with ν(b) ∝ exp(−ε′‖b‖₁/Δ₁): the replaced
    record changes the gradient term by at most 2L·max‖x̃‖₁ = 2L·B₁ in L1.

    Parameters
    ----------
    epsilon_prime : float
        ε′ of CMS11 Alg. 2 (steps 1–2).
    l1_bound : float
        Public bound B₁ on ‖x̃‖₁ of the internal (unit-ball) rows.
    lipschitz : float, default=1.0
        L ≥ |ℓ′|.

    Returns
    -------
    float
        2L·B₁/ε′.

    Examples
    --------
    >>> laplace_objective_scale(0.5, 3.0)
    12.0
    """
    # CMS11 Thm 9 with the L1 density: Δ₁ = 2L·B₁, scale Δ₁/ε′.
    return 2.0 * lipschitz * l1_bound / epsilon_prime


@dataclass(frozen=True)
class LaplaceObjectivePerturbation(ObjectivePerturbation):
    """Objective perturbation with Laplace b on rows of public L1 bound B₁.

    ε = ε_op + ε_r as in :class:`ObjectivePerturbation` (ε_op for CMS11 Alg. 2
    with the Laplace density, ε_r for the certified solver residual); pure
    ε-DP. ``calibration`` holds ε′ and Δ of the rank-one Jacobian bound
    (:func:`rank_one_jacobian_calibration`; its ``noise_scale`` is the Gamma
    one and is not used); :attr:`laplace_scale` is the scale of each
    coordinate of b.

    Attributes
    ----------
    l1_bound : float
        Public B₁ ≥ ‖x̃‖₁ of the internal rows.
    lipschitz : float
        L ≥ |ℓ′|.

    Examples
    --------
    >>> op = LaplaceObjectivePerturbation.calibrate(
    ...     0.2, n=30162, dim=5, regularization=1e-3, smoothness=1.0, tol=1e-10,
    ...     l1_bound=3.0)
    >>> round(op.laplace_scale / (6.0 / op.calibration.epsilon_prime), 12)
    1.0
    >>> op.calibration.variant
    'rank-one'
    """

    l1_bound: float = 1.0
    lipschitz: float = 1.0
    _private_noise_name: ClassVar[str | None] = "Laplace"

    @classmethod
    def calibrate(  # type: ignore[override]
        cls,
        epsilon: float,
        *,
        n: int,
        dim: int,
        regularization: float,
        smoothness: float,
        tol: float,
        l1_bound: float,
        lipschitz: float = 1.0,
        residual_fraction: float = RESIDUAL_EPSILON_FRACTION,
    ) -> LaplaceObjectivePerturbation:
        """Calibrate from public quantities (nothing is drawn).

        Parameters
        ----------
        epsilon : float
            ε of the release.
        n : int
            Number of rows (public under replace-one neighbours).
        dim : int
            Dimension of w.
        regularization : float
            λ > 0 of the unit-ball problem.
        smoothness : float
            c ≥ ℓ″.
        tol : float
            Public τ > 0 the solver certifies on the gradient norm.
        l1_bound : float
            Public B₁ > 0 on ‖x̃‖₁ (enforced by the caller).
        lipschitz : float, default=1.0
            L ≥ |ℓ′|.
        residual_fraction : float, default=RESIDUAL_EPSILON_FRACTION
            ε_r/ε.

        Returns
        -------
        LaplaceObjectivePerturbation
            The calibration.
        """
        if not (l1_bound > 0 and math.isfinite(l1_bound)):
            raise ValueError(f"l1_bound must be a finite number > 0; got {l1_bound!r}.")
        eps_op, eps_r = split_residual_epsilon(epsilon, residual_fraction)
        # ε′ and Δ: the Jacobian part does not depend on ν (rank-one bound).
        cal = rank_one_jacobian_calibration(eps_op, n, regularization, smoothness)
        residual = approximate_minimiser_calibration(
            eps_r, tol, regularization + cal.extra_regularization
        )
        return cls(
            epsilon,
            eps_op,
            n,
            dim,
            regularization,
            smoothness,
            tol,
            cal,
            residual,
            "jmlr2011",
            float(l1_bound),
            float(lipschitz),
        )

    @property
    def laplace_scale(self) -> float:
        """Scale 2L·B₁/ε′ of each coordinate of b."""
        return laplace_objective_scale(
            self.calibration.epsilon_prime, self.l1_bound, self.lipschitz
        )

    def details(self, data_norm: float = 1.0) -> dict[str, Any]:
        """Calibration facts for the event (see :meth:`ObjectivePerturbation.details`).

        Parameters
        ----------
        data_norm : float, default=1.0
            Row-norm bound R.

        Returns
        -------
        dict
            The facts of :class:`ObjectivePerturbation` with ``variant`` =
            ``"laplace"``, the unit-ball ``l1_bound`` and ``laplace_scale``.
        """
        out = super().details(data_norm)
        del out["noise_norm_scale"]
        out.update(
            variant="laplace", l1_bound=self.l1_bound, laplace_scale=self.laplace_scale
        )
        return out

    def _draw_linear_term(self, gen: np.random.Generator) -> FloatArray:
        """b with i.i.d. Laplace(2L·B₁/ε′) coordinates."""
        # ν(b) ∝ exp(−ε′‖b‖₁/Δ₁): i.i.d. Laplace(Δ₁/ε′) coordinates.
        return sample_laplace(self.dim, self.laplace_scale, gen)

    def _event_terms(self, lipschitz: float) -> tuple[float, float, str]:
        """δ = 0 and the L1 gradient sensitivity 2L·B₁ (CMS11 Thm 9, L1 density)."""
        return 0.0, 2.0 * lipschitz * self.l1_bound, "gradient-l1"
