# SPDX-License-Identifier: BSD-3-Clause
"""Nie & Wang's sensitivity in the library's three regularisation conventions.

Nie & Wang prove (Theorem 2) that the regularised kernel ERM

    f_z = argmin_f (1/m) Σ L(f(xᵢ), yᵢ) + λ Ω(f),     Ω γ-strongly convex,

moves by at most Δ_H = 2κC_L/(λγm) in RKHS norm when one record is replaced,
for any convex C_L-Lipschitz loss — hinge and pinball included — and hence by
at most B_Δ = κΔ_H = 2κ²C_L/(λγm) at any point. :func:`rkhs_sensitivity` and
:func:`prediction_sensitivity` translate the regularisation of the library
(Λ in (1/n)Σℓ + (Λ/2)‖f‖², so λ = Λ/2 with Ω = ‖f‖², γ = 2) or of Jain &
Thakurta ((λ/2)‖w‖², λ_JT = Λ) and call the formulas of
:mod:`dpsvm.bounds.nie_wang`, which are re-exported here.

The estimators built on that sensitivity live in :mod:`dpsvm.models` and are
named for what they release: :class:`~dpsvm.models.PerQueryLaplacePredictor`,
:class:`~dpsvm.models.DPOutputPerturbationSVC`,
:class:`~dpsvm.models.DPOutputPerturbationRegressor`,
:class:`~dpsvm.models.DPGaussianProcessRelease` and, for reproduction only,
:class:`~dpsvm.models.NonPrivateScalarOffsetRelease` (docs/nie_wang.md). Their
former names (``NWPrivatePredictor``, ``NWOutputPerturbationSVC``,
``NWOutputPerturbationRegressor``, ``NWGaussianProcessRelease``,
``NWScalarOffsetLiteral``, ``NWLiteralModeWarning``) still import from here and
from :mod:`dpsvm.models`, with a :class:`FutureWarning`.

References
----------
.. [NW] W. Nie, C. Wang, J. Inequal. Appl. (the full reference and the
   formulas: :mod:`dpsvm.bounds.nie_wang`).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..bounds.nie_wang import (
    nw_general_rate_exponent,
    nw_noise_scale,
    nw_param_rule_general,
    nw_param_rule_ls,
    nw_param_rule_svm,
    nw_sensitivity_thm1,
    nw_sensitivity_thm2,
    nw_sup_sensitivity,
    nw_svm_rate_exponent,
    nw_thm4_bound,
    nw_thm4_rate_constant,
)

__all__ = [
    "nw_general_rate_exponent",
    "nw_noise_scale",
    "nw_param_rule_general",
    "nw_param_rule_ls",
    "nw_param_rule_svm",
    "nw_sensitivity_thm1",
    "nw_sensitivity_thm2",
    "nw_sup_sensitivity",
    "nw_svm_rate_exponent",
    "nw_thm4_bound",
    "nw_thm4_rate_constant",
    "prediction_sensitivity",
    "rkhs_sensitivity",
]

#: Former (paper-named) estimator names -> the current ones in dpsvm.models.
DEPRECATED_NAMES = {
    "NWGaussianProcessRelease": "DPGaussianProcessRelease",
    "NWLiteralModeWarning": "ScalarOffsetNotPrivateWarning",
    "NWOutputPerturbationRegressor": "DPOutputPerturbationRegressor",
    "NWOutputPerturbationSVC": "DPOutputPerturbationSVC",
    "NWPrivatePredictor": "PerQueryLaplacePredictor",
    "NWScalarOffsetLiteral": "NonPrivateScalarOffsetRelease",
}


def deprecated_name(name: str, module: str) -> Any:
    """The class behind a former name, with a :class:`FutureWarning`."""
    new = DEPRECATED_NAMES.get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{name} was renamed {new}; import dpsvm.models.{new} instead. The old "
        "name will be removed in a future release.",
        FutureWarning,
        stacklevel=3,
    )
    from .. import models

    return getattr(models, new)


def __getattr__(name: str) -> Any:
    return deprecated_name(name, __name__)


_CONVENTIONS = ("dpsvm", "nie-wang", "jain-thakurta")


def _to_nie_wang(
    regularization: float, convention: str, gamma: float
) -> tuple[float, float]:
    """(λ_NW, γ) for a regularisation given in one of the conventions."""
    if convention not in _CONVENTIONS:
        raise ValueError(
            f"convention must be one of {_CONVENTIONS}, got {convention!r}."
        )
    if convention == "nie-wang":
        return regularization, gamma
    if gamma != 2.0:
        raise ValueError(
            f"gamma is only meaningful with convention='nie-wang' (got {gamma}); "
            f"{convention!r} fixes Ω = ‖f‖², γ = 2."
        )
    # (Λ/2)‖f‖² (dpsvm) and (λ_JT/2)‖w‖² (Jain & Thakurta eq. (2)) are λ_NW·‖f‖²
    # with λ_NW = Λ/2, γ = 2: strong-convexity modulus λ_NW·γ = Λ = λ_JT.
    return regularization / 2.0, 2.0


def rkhs_sensitivity(
    kappa: float,
    lipschitz: float,
    regularization: float,
    n_samples: int,
    *,
    convention: str = "dpsvm",
    gamma: float = 2.0,
) -> float:
    """RKHS-norm sensitivity Δ_H of the exact regularised minimiser (Nie & Wang Thm 2).

    Parameters
    ----------
    kappa : float
        κ = sup √K(x, x) over the declared domain (R_φ of Jain & Thakurta).
    lipschitz : float
        C_L (L of Jain & Thakurta).
    regularization : float
        The regularisation weight in ``convention``.
    n_samples : int
        n (m of Nie & Wang).
    convention : {"dpsvm", "nie-wang", "jain-thakurta"}, default="dpsvm"
        ``"dpsvm"``: Λ in (1/n)Σℓ + (Λ/2)‖f‖². ``"nie-wang"``: λ in
        (1/m)ΣL + λΩ(f) with Ω ``gamma``-strongly convex. ``"jain-thakurta"``:
        λ in (1/n)Σℓ + (λ/2)‖w‖².
    gamma : float, default=2.0
        γ of Ω (``"nie-wang"`` only; 2 for Ω = ‖f‖²).

    Returns
    -------
    float
        Δ_H = 2κC_L/(λ_NW·γ·n) = 2LR_φ/(λ_JT·n) = 2κC_L/(nΛ).

    Raises
    ------
    ValueError
        For an unknown convention, ``gamma`` ≠ 2 outside ``"nie-wang"``, or an
        out-of-range argument.

    Notes
    -----
    Privacy: replace-one neighbours; computed by
    :func:`dpsvm.bounds.nie_wang.nw_sensitivity_thm2` ([NW] Thm 2; Jain &
    Thakurta eq. (3)). Assumes the exact minimiser, a convex Lipschitz loss and
    a data-independent κ.

    References
    ----------
    [NW] Theorem 2; P. Jain, A. Thakurta, ICML 2013, eq. (3).

    Examples
    --------
    >>> rkhs_sensitivity(1.0, 1.0, 0.2, 1000)  # Λ = 0.2: 2/(1000·0.2)
    0.01
    >>> rkhs_sensitivity(1.0, 1.0, 0.1, 1000, convention="nie-wang")
    0.01
    """
    lam_nw, g = _to_nie_wang(regularization, convention, gamma)
    # [NW] Thm 2: Δ_H = 2κC_L/(λγm).
    return nw_sensitivity_thm2(kappa, lipschitz, lam_nw, g, n_samples)


def prediction_sensitivity(
    kappa: float,
    lipschitz: float,
    regularization: float,
    n_samples: int,
    *,
    convention: str = "dpsvm",
    gamma: float = 2.0,
) -> float:
    """Sensitivity S of one prediction f_z(x), the number both papers share.

    Parameters
    ----------
    kappa : float
        κ = sup √K(x, x) over the declared domain (R_φ of Jain & Thakurta).
    lipschitz : float
        C_L (L of Jain & Thakurta).
    regularization : float
        The regularisation weight in ``convention``.
    n_samples : int
        n (m of Nie & Wang).
    convention : {"dpsvm", "nie-wang", "jain-thakurta"}, default="dpsvm"
        ``"dpsvm"``: Λ in (1/n)Σℓ + (Λ/2)‖f‖². ``"nie-wang"``: λ in
        (1/m)ΣL + λΩ(f) with Ω ``gamma``-strongly convex. ``"jain-thakurta"``:
        λ in (1/n)Σℓ + (λ/2)‖w‖².
    gamma : float, default=2.0
        γ of Ω (``"nie-wang"`` only; 2 for Ω = ‖f‖²).

    Returns
    -------
    float
        S = κΔ_H = 2κ²C_L/(λ_NW·γ·n) = 2LR_φ²/(λ_JT·n) = 2κ²C_L/(nΛ).

    Raises
    ------
    ValueError
        As :func:`rkhs_sensitivity`.

    Notes
    -----
    Privacy: replace-one neighbours; sup_x |f_z(x) − f_z̄(x)| ≤ S, computed by
    :func:`dpsvm.bounds.nie_wang.nw_sup_sensitivity` ([NW] Def. 2 / Prop. 1,
    B_Δ; Jain & Thakurta Thm 9, S). A single answer f_z(x) + Lap(S/ε) is ε-DP.

    References
    ----------
    [NW] Definition 2 and the proof of Proposition 1; P. Jain, A. Thakurta,
    ICML 2013, Theorem 9.

    Examples
    --------
    >>> a = prediction_sensitivity(2.0, 1.0, 0.1, 100, convention="nie-wang")
    >>> b = prediction_sensitivity(2.0, 1.0, 0.2, 100, convention="jain-thakurta")
    >>> a == b, round(a, 12)
    (True, 0.4)
    """
    lam_nw, g = _to_nie_wang(regularization, convention, gamma)
    # [NW] Prop. 1 proof: B_Δ = κ·2κC_L/(λγm).
    return nw_sup_sensitivity(kappa, lipschitz, lam_nw, g, n_samples)
