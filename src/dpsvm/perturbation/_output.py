# SPDX-License-Identifier: BSD-3-Clause
"""Output perturbation: release a vector of known sensitivity plus calibrated noise.

Three noise families, each calibrated once here and drawn once (by the samplers
of :mod:`dpsvm.mechanisms`):

* ``"gamma-norm"`` — pure ε-DP, L2 sensitivity Δ₂: one vector b of density
  ∝ exp(−ε‖b‖₂/Δ₂), i.e. ‖b‖ ~ Gamma(d, Δ₂/ε) with a uniform direction
  (Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 1 and Theorem 6);
* ``"laplace"`` — pure ε-DP, L1 sensitivity Δ₁: i.i.d. Laplace(Δ₁/ε) per
  coordinate (Dwork et al. 2006, Proposition 1), released with the discretised,
  floating-point-safe sampler :func:`dpsvm.mechanisms.laplace_release`;
* ``"gaussian"`` — (ε, δ)-DP, L2 sensitivity Δ₂: i.i.d. N(0, σ²) with the
  analytic σ of Balle & Wang (2018), Theorem 8.

:class:`OutputPerturbation` adds the step that makes a release from an
*approximate* minimiser private: the solver must certify ‖w − w*‖ ≤ cap for a
public cap, and the noise is calibrated to Δ + 2·cap (both neighbours'
solutions may be off by the cap; triangle inequality).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..accounting.events import NonPrivateEvent, PrivacyEvent
from ..exceptions import DPSVMConvergenceError
from ..mechanisms import (
    AnalyticGaussian,
    GammaNormVector,
    LaplaceVector,
    gaussian_release,
    laplace_release,
    sample_gamma_norm,
    sample_laplace,
    zcdp_noise_multiplier,
)
from ..mechanisms.base import check_release_value
from ..utils._random import GeneratorLike, as_generator

__all__ = [
    "CERTIFICATE_RTOL",
    "NOISE_KINDS",
    "OutputNoise",
    "OutputPerturbation",
    "PerturbedSolution",
    "certified_sensitivity",
    "check_certificate",
]

FloatArray = NDArray[np.float64]

#: Public cap on the certified solver error ‖w − w*‖ of output perturbation,
#: relative to the sensitivity. The noise is calibrated to Δ + 2·cap (both
#: neighbours' solutions may be off by the cap), and a fit whose certificate
#: exceeds the cap raises instead of releasing.
CERTIFICATE_RTOL = 1e-3

#: The noise families of :class:`OutputNoise`.
NOISE_KINDS = ("gamma-norm", "laplace", "gaussian")


class SolverOutput(Protocol):
    """What a perturbation step's solver returns: the approximate minimiser."""

    @property
    def coef(self) -> FloatArray:  # pragma: no cover - protocol
        """The approximate minimiser w."""


class CertifiedDistance(SolverOutput, Protocol):
    """What an output-perturbation solver returns: coefficients and a certificate."""

    @property
    def distance_bound(self) -> float:  # pragma: no cover - protocol
        """A certified bound on ‖w − w*‖₂."""


@dataclass(frozen=True)
class PerturbedSolution:
    """A released vector and the solver result it was computed from.

    Attributes
    ----------
    value : ndarray
        The released (noisy) vector.
    solution : object
        The solver's result (diagnostics; it reads the data: never release it).
    """

    value: FloatArray
    solution: Any


def certified_sensitivity(
    sensitivity: float, cap_rtol: float = CERTIFICATE_RTOL
) -> tuple[float, float]:
    """Public certificate cap and the sensitivity that covers it: (cap, Δ + 2·cap).

    If the exact minimiser w* has sensitivity Δ and the solver certifies
    ‖w − w*‖ ≤ cap for a public cap, then ‖w(D) − w(D′)‖ ≤ Δ + 2·cap by the
    triangle inequality, so noise calibrated to Δ + 2·cap makes the release of w
    as private as that of w* (the output-perturbation analogue of the
    approximate-minimiser argument of Iyengar et al. 2019, Theorem 1; written
    out in docs/privacy.md).

    Parameters
    ----------
    sensitivity : float
        Δ > 0 of the exact minimiser (any norm in which the cap is measured).
    cap_rtol : float, default=CERTIFICATE_RTOL
        cap = ``cap_rtol``·Δ.

    Returns
    -------
    cap : float
        The public cap on the certified solver error.
    effective : float
        Δ + 2·cap, the sensitivity the noise must be calibrated to.

    Examples
    --------
    >>> cap, eff = certified_sensitivity(0.2)
    >>> round(cap, 12), round(eff, 12)
    (0.0002, 0.2004)
    """
    cap = cap_rtol * sensitivity
    # Both neighbours' solutions may be off by the cap: Δ_eff = Δ + 2·cap.
    return cap, sensitivity + 2.0 * cap


def check_certificate(
    distance_bound: float, cap: float, *, max_iter: int | None = None
) -> None:
    """Refuse to release when the certified solver error exceeds the public cap.

    The message quotes the public cap and ``max_iter`` only, never the
    certified (data-dependent) error.

    Parameters
    ----------
    distance_bound : float
        The solver's certified bound on ‖w − w*‖.
    cap : float
        The public cap the noise is calibrated for.
    max_iter : int or None, default=None
        The solver's iteration cap, quoted in the error message when the
        solver's certificate fails.

    Raises
    ------
    DPSVMConvergenceError
        If ``distance_bound`` is not ≤ ``cap`` (NaN included).

    Examples
    --------
    >>> check_certificate(1e-9, 1e-6)  # certified: nothing happens
    """
    if not distance_bound <= cap:
        # No achieved value is quoted: it is computed from the data.
        within, advice = "", ""
        if max_iter is not None:  # the estimator has a max_iter to raise
            within = f" in max_iter = {max_iter} iterations"
            advice = " Increase max_iter;"
        raise DPSVMConvergenceError(
            "The solver did not certify its distance to the exact minimiser "
            f"within the public cap {cap:.3g} that the noise is calibrated "
            f"for{within}.{advice} nothing was released or spent."
        )


def release_event(
    mechanism: str,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    sensitivity_norm: str,
    reference: str,
    details: Mapping[str, Any] | None,
    non_private_reason: str | None,
) -> PrivacyEvent:
    """The typed event of one release: pure, approximate, or non-private.

    A ``non_private_reason`` (a paper-literal variant) gives a
    :class:`~dpsvm.accounting.NonPrivateEvent` that keeps the nominal ε in its
    details; otherwise δ > 0 gives an approximate and δ = 0 a pure event.
    """
    fields: dict[str, Any] = {
        "epsilon": epsilon,
        "sensitivity": sensitivity,
        "sensitivity_norm": sensitivity_norm,
        "reference": reference,
        "details": dict(details or {}),
    }
    if delta > 0:
        fields["delta"] = delta
    if non_private_reason is not None:
        return NonPrivateEvent(mechanism=mechanism, reason=non_private_reason, **fields)
    return PrivacyEvent(mechanism=mechanism, **fields)


@dataclass(frozen=True)
class OutputNoise:
    """Calibrated additive noise for releasing one vector (public quantities only).

    Build it with :meth:`gamma_norm`, :meth:`laplace`, :meth:`gaussian` or
    :meth:`from_l2`; :meth:`release` adds one fresh draw to a value and
    :meth:`event` records the release.

    Attributes
    ----------
    kind : {"gamma-norm", "laplace", "gaussian"}
        The noise family.
    epsilon : float
        ε of one release.
    delta : float
        δ of one release (0 for the pure families).
    sensitivity : float
        The sensitivity the noise is calibrated to: L2 for ``"gamma-norm"`` and
        ``"gaussian"``, L1 for ``"laplace"``.
    scale : float
        Δ₂/ε (Gamma-norm scale, E‖b‖ = d·scale), the Laplace scale Δ₁/ε, or the
        Gaussian σ.

    Examples
    --------
    >>> noise = OutputNoise.gamma_norm(epsilon=0.5, l2_sensitivity=0.1)
    >>> noise.scale, noise.sensitivity_norm
    (0.2, 'l2')
    >>> noise.release([1.0, 2.0, 3.0], rng=0).shape
    (3,)
    """

    kind: str
    epsilon: float
    delta: float
    sensitivity: float
    scale: float

    @classmethod
    def _of(
        cls, mech: GammaNormVector | LaplaceVector | AnalyticGaussian
    ) -> OutputNoise:
        """The noise of a mechanism, which validated and calibrated it."""
        if isinstance(mech, AnalyticGaussian):
            return cls(
                "gaussian", mech.epsilon, mech.delta, mech.sensitivity, mech.sigma
            )
        kind = "laplace" if isinstance(mech, LaplaceVector) else "gamma-norm"
        return cls(kind, mech.epsilon, mech.delta, mech.sensitivity, mech.scale)

    @classmethod
    def gamma_norm(cls, epsilon: float, l2_sensitivity: float) -> OutputNoise:
        """Pure ε-DP noise of density ∝ exp(−ε‖b‖₂/Δ₂).

        Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 1 / Theorem 6.

        Parameters
        ----------
        epsilon : float
            ε > 0 of one release.
        l2_sensitivity : float
            Δ₂ > 0.

        Returns
        -------
        OutputNoise
            The calibrated noise; its ``scale`` is Δ₂/ε (Gamma-norm), Δ₁/ε
            (Laplace) or σ (Gaussian).

        Examples
        --------
        The three families side by side:

        >>> OutputNoise.gamma_norm(1.0, 2.0).scale, OutputNoise.laplace(0.5, 2.0).scale
        (2.0, 4.0)
        >>> round(OutputNoise.gaussian(1.0, 1e-5, 1.0).scale, 3)
        3.731
        """
        return cls._of(GammaNormVector(epsilon=epsilon, sensitivity=l2_sensitivity))

    @classmethod
    def laplace(cls, epsilon: float, l1_sensitivity: float) -> OutputNoise:
        """Pure ε-DP i.i.d. Laplace noise of scale Δ₁/ε (Dwork et al. 2006, Prop. 1).

        Released with the discretised Laplace of
        :func:`dpsvm.mechanisms.laplace_release` (no floating-point leak).

        Parameters
        ----------
        epsilon : float
            ε > 0 of one release.
        l1_sensitivity : float
            Δ₁ > 0.

        Returns
        -------
        OutputNoise
            The calibrated noise; its ``scale`` is Δ₂/ε (Gamma-norm), Δ₁/ε
            (Laplace) or σ (Gaussian).

        Examples
        --------
        The three families side by side:

        >>> OutputNoise.gamma_norm(1.0, 2.0).scale, OutputNoise.laplace(0.5, 2.0).scale
        (2.0, 4.0)
        >>> round(OutputNoise.gaussian(1.0, 1e-5, 1.0).scale, 3)
        3.731
        """
        return cls._of(LaplaceVector(epsilon=epsilon, sensitivity=l1_sensitivity))

    @classmethod
    def gaussian(
        cls, epsilon: float, delta: float, l2_sensitivity: float
    ) -> OutputNoise:
        """(ε, δ)-DP Gaussian noise with the analytic σ of Balle & Wang (2018), Thm 8.

        Parameters
        ----------
        epsilon : float
            ε > 0 of one release.
        delta : float
            δ in (0, 1).
        l2_sensitivity : float
            Δ₂ > 0.

        Returns
        -------
        OutputNoise
            The calibrated noise; its ``scale`` is Δ₂/ε (Gamma-norm), Δ₁/ε
            (Laplace) or σ (Gaussian).

        Examples
        --------
        The three families side by side:

        >>> OutputNoise.gamma_norm(1.0, 2.0).scale, OutputNoise.laplace(0.5, 2.0).scale
        (2.0, 4.0)
        >>> round(OutputNoise.gaussian(1.0, 1e-5, 1.0).scale, 3)
        3.731
        """
        return cls._of(
            AnalyticGaussian(epsilon=epsilon, delta=delta, sensitivity=l2_sensitivity)
        )

    @classmethod
    def from_l2(
        cls,
        kind: str,
        *,
        epsilon: float,
        l2_sensitivity: float,
        dim: int,
        delta: float = 0.0,
    ) -> OutputNoise:
        """Noise of any family for a vector whose L2 sensitivity is known.

        ``"laplace"`` converts with ‖v‖₁ ≤ √d‖v‖₂, i.e. Δ₁ = √d·Δ₂ (Rubinstein,
        Bartlett, Huang & Taft 2012, Theorem 7, which uses the same step).

        Parameters
        ----------
        kind : {"gamma-norm", "laplace", "gaussian"}
            The noise family.
        epsilon : float
            ε > 0 of one release.
        l2_sensitivity : float
            Δ₂ > 0.
        dim : int
            Dimension d of the released vector (used by ``"laplace"``).
        delta : float, default=0.0
            δ in (0, 1) (``"gaussian"`` only).

        Returns
        -------
        OutputNoise
            The calibrated noise; its ``scale`` is Δ₂/ε (Gamma-norm), Δ₁/ε
            (Laplace) or σ (Gaussian).

        Examples
        --------
        >>> OutputNoise.from_l2("laplace", epsilon=1.0, l2_sensitivity=1.0, dim=4).scale
        2.0
        """
        if kind == "gamma-norm":
            return cls.gamma_norm(epsilon, l2_sensitivity)
        if kind == "laplace":
            # ‖·‖₁ ≤ √d‖·‖₂ (Rubinstein et al. 2012, Thm 7).
            return cls.laplace(epsilon, l2_sensitivity * math.sqrt(dim))
        if kind == "gaussian":
            return cls.gaussian(epsilon, delta, l2_sensitivity)
        raise ValueError(f"Unknown noise kind {kind!r}; expected one of {NOISE_KINDS}.")

    @property
    def sensitivity_norm(self) -> str:
        """``"l1"`` for Laplace noise, ``"l2"`` otherwise.

        Examples
        --------
        >>> OutputNoise.laplace(1.0, 1.0).sensitivity_norm
        'l1'
        """
        return "l1" if self.kind == "laplace" else "l2"

    def details(self) -> dict[str, Any]:
        """The noise facts that :mod:`dpsvm.mechanisms` records for this family.

        The same dict as the ``details`` of the equivalent mechanism's
        ``privacy_event()`` (:class:`~dpsvm.mechanisms.GammaNormVector`,
        :class:`~dpsvm.mechanisms.LaplaceVector`,
        :class:`~dpsvm.mechanisms.AnalyticGaussian`), for callers whose events
        record it.

        Returns
        -------
        dict
            ``{"scale": s}``, ``{"scale": λ, "release": "discrete"}`` or
            ``{"sigma": σ}``.

        Examples
        --------
        >>> OutputNoise.laplace(0.5, 2.0).details()
        {'scale': 4.0, 'release': 'discrete'}
        """
        if self.kind == "gaussian":  # the release is exact (gaussian_release)
            z = zcdp_noise_multiplier(self.epsilon, self.delta)
            return {"sigma": self.scale, "release": "discrete", "noise_multiplier": z}
        if self.kind == "laplace":
            return {"scale": self.scale, "release": "discrete"}
        return {"scale": self.scale}

    def sample(self, dim: int, rng: GeneratorLike = None) -> FloatArray:
        """Draw the noise alone for a vector of dimension ``dim``.

        For noise that is not added to a released value, e.g. the linear term
        b of objective perturbation. Releases use :meth:`release` (Laplace
        releases are discretised there).

        Parameters
        ----------
        dim : int
            Dimension d > 0.
        rng : None, int or numpy.random.Generator, default=None
            Noise source (see :meth:`release`).

        Returns
        -------
        ndarray of shape (dim,)
            One Gamma-norm vector, or d i.i.d. Laplace or Gaussian draws.

        Examples
        --------
        >>> OutputNoise.gamma_norm(1.0, 2.0).sample(3, rng=0).shape
        (3,)
        """
        gen = as_generator(rng)
        if self.kind == "gamma-norm":
            return sample_gamma_norm(dim, self.scale, gen)
        if self.kind == "laplace":
            return sample_laplace(dim, self.scale, gen)
        return np.asarray(gen.normal(0.0, self.scale, size=dim), dtype=np.float64)

    def release(self, value: ArrayLike, rng: GeneratorLike = None) -> FloatArray:
        """Return ``value`` plus one fresh noise draw (a new float64 array).

        Parameters
        ----------
        value : array-like of real numbers
            The exact (sensitive) value, finite and non-empty; not modified.
        rng : None, int or numpy.random.Generator, default=None
            ``None`` (the only choice for a real release) draws from a fresh
            CSPRNG; an int is for tests and documentation only; a Generator is
            used (and advanced) as is.

        Returns
        -------
        ndarray of float64
            The release, with the shape of ``value``. Gamma-norm noise is one
            spherical vector over the flattened value.

        Examples
        --------
        >>> OutputNoise.laplace(1.0, 1.0).release([0.0, 0.0], rng=0).shape
        (2,)
        """
        if self.kind == "laplace":
            return laplace_release(value, self.scale, rng, sensitivity=self.sensitivity)
        if self.kind == "gaussian":  # exact: grid 2^k + discrete Gaussian (CKS20)
            return gaussian_release(
                value,
                rng,
                epsilon=self.epsilon,
                delta=self.delta,
                sensitivity=self.sensitivity,
            )
        out = check_release_value(value)  # gamma-norm: one spherical vector
        gen = as_generator(rng)
        out += sample_gamma_norm(out.size, self.scale, gen).reshape(out.shape)
        return out

    def event(
        self,
        mechanism: str,
        *,
        reference: str,
        details: Mapping[str, Any] | None = None,
        data_norm: float = 1.0,
        non_private_reason: str | None = None,
    ) -> PrivacyEvent:
        """The typed privacy event of one :meth:`release`.

        Parameters
        ----------
        mechanism : str
            Name recorded in the event.
        reference : str
            Paper and theorem of the calibration.
        details : mapping or None, default=None
            Facts to record, as given (include the calibration's ``details()``).
        data_norm : float, default=1.0
            Public row-norm bound R when the release is a unit-ball solution that
            the caller divides by R: the event records Δ/R, the sensitivity of the
            released w/R.
        non_private_reason : str or None, default=None
            Set for a paper-literal variant without a guarantee: the event is a
            :class:`~dpsvm.accounting.NonPrivateEvent` with this reason (its
            nominal ε kept in ``details``).

        Returns
        -------
        PrivacyEvent
            A :class:`~dpsvm.accounting.PureDpEvent`,
            :class:`~dpsvm.accounting.ApproximateDpEvent` or
            :class:`~dpsvm.accounting.NonPrivateEvent`.

        Examples
        --------
        >>> e = OutputNoise.gamma_norm(1.0, 2.0).event("demo", reference="CMS11")
        >>> type(e).__name__, e.sensitivity, e.sensitivity_norm
        ('PureDpEvent', 2.0, 'l2')
        """
        return release_event(
            mechanism,
            epsilon=self.epsilon,
            delta=self.delta,
            sensitivity=self.sensitivity / data_norm,
            sensitivity_norm=self.sensitivity_norm,
            reference=reference,
            details=details,
            non_private_reason=non_private_reason,
        )


@dataclass(frozen=True)
class OutputPerturbation:
    """Output perturbation of a certified approximate minimiser.

    The exact minimiser w* has sensitivity Δ (e.g.
    :func:`~dpsvm.perturbation.output_l2_sensitivity`, Chaudhuri et al. 2011,
    Corollary 8); the solver certifies ‖w − w*‖ ≤ cap = ``cap_rtol``·Δ, and the
    noise is calibrated to Δ + 2·cap (:func:`certified_sensitivity`).

    Attributes
    ----------
    noise : OutputNoise
        The calibrated noise (sensitivity Δ + 2·cap, in its own norm).
    minimiser_sensitivity : float
        Δ₂ of the exact minimiser.
    cap : float
        The public cap on the certified solver error ‖w − w*‖₂.

    Examples
    --------
    >>> op = OutputPerturbation.calibrate(
    ...     "gamma-norm", epsilon=1.0, l2_sensitivity=0.2, dim=3)
    >>> round(op.cap, 12), round(op.noise.scale, 12)
    (0.0002, 0.2004)
    """

    noise: OutputNoise
    minimiser_sensitivity: float
    cap: float

    @classmethod
    def calibrate(
        cls,
        kind: str,
        *,
        epsilon: float,
        l2_sensitivity: float,
        dim: int,
        delta: float = 0.0,
        cap_rtol: float = CERTIFICATE_RTOL,
    ) -> OutputPerturbation:
        """Calibrate from public quantities.

        Parameters
        ----------
        kind : {"gamma-norm", "laplace", "gaussian"}
            The noise family.
        epsilon : float
            ε > 0 of one release.
        l2_sensitivity : float
            Δ₂ > 0 of the exact minimiser.
        dim : int
            Dimension d of the released vector (used by ``"laplace"``).
        delta : float, default=0.0
            δ in (0, 1) (``"gaussian"`` only).
        cap_rtol : float, default=CERTIFICATE_RTOL
            Public cap on the certified error, relative to Δ₂.

        Returns
        -------
        OutputPerturbation
            The calibration.

        Examples
        --------
        >>> op = OutputPerturbation.calibrate(
        ...     "laplace", epsilon=1.0, l2_sensitivity=1.0, dim=4)
        >>> round(op.noise.sensitivity, 12)  # √4·(1 + 2e-3)
        2.004
        """
        cap, eff = certified_sensitivity(l2_sensitivity, cap_rtol)
        noise = OutputNoise.from_l2(
            kind, epsilon=epsilon, l2_sensitivity=eff, dim=dim, delta=delta
        )
        return cls(noise, l2_sensitivity, cap)

    def details(self, data_norm: float = 1.0) -> dict[str, Any]:
        """Calibration facts for the event (noise scale, cap on the released scale).

        Parameters
        ----------
        data_norm : float, default=1.0
            Row-norm bound R: the cap is recorded for the released w/R.

        Returns
        -------
        dict
            ``noise_scale_internal`` and ``certificate_cap``.

        Examples
        --------
        >>> op = OutputPerturbation.calibrate(
        ...     "gamma-norm", epsilon=1.0, l2_sensitivity=0.2, dim=3)
        >>> sorted(op.details())
        ['certificate_cap', 'noise_scale_internal']
        """
        return {
            "noise_scale_internal": self.noise.scale,
            "certificate_cap": self.cap / data_norm,
        }

    def perturb(
        self,
        solve: Callable[[float], CertifiedDistance],
        rng: GeneratorLike = None,
        *,
        max_iter: int | None = None,
    ) -> PerturbedSolution:
        """Solve to the public cap, check the certificate, release w + noise.

        Parameters
        ----------
        solve : callable
            ``solve(cap)`` returns an object with ``coef`` and ``distance_bound``
            (a certified bound on ‖coef − w*‖₂), e.g. a
            :class:`~dpsvm.solvers.SolverResult` of ``solve_hinge(...,
            target_distance=cap)``.
        rng : None, int or numpy.random.Generator, default=None
            Noise source (see :meth:`OutputNoise.release`).
        max_iter : int or None, default=None
            The solver's iteration cap, quoted in the error message when the
            solver's certificate fails.

        Returns
        -------
        PerturbedSolution
            The release and the solver result.

        Raises
        ------
        DPSVMConvergenceError
            If the certified error exceeds the cap (no noise is drawn).

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> op = OutputPerturbation.calibrate(
        ...     "gamma-norm", epsilon=1.0, l2_sensitivity=0.2, dim=2)
        >>> exact = SimpleNamespace(coef=np.zeros(2), distance_bound=0.0)
        >>> op.perturb(lambda cap: exact, rng=0).value.shape
        (2,)
        """
        sol = solve(self.cap)
        check_certificate(sol.distance_bound, self.cap, max_iter=max_iter)
        return PerturbedSolution(self.noise.release(sol.coef, rng), sol)

    def event(
        self,
        mechanism: str,
        *,
        reference: str,
        details: Mapping[str, Any] | None = None,
        data_norm: float = 1.0,
    ) -> PrivacyEvent:
        """The typed event of :meth:`perturb` (see :meth:`OutputNoise.event`).

        Parameters
        ----------
        mechanism : str
            Name recorded in the event.
        reference : str
            Paper and theorem of the calibration.
        details : mapping or None, default=None
            Facts to record, as given (include the calibration's ``details()``).
        data_norm : float, default=1.0
            Public row-norm bound R when the release is a unit-ball solution that
            the caller divides by R: the event records Δ/R, the sensitivity of the
            released w/R.

        Returns
        -------
        PrivacyEvent
            Its sensitivity is that of the noise (Δ + 2·cap, divided by R).

        Examples
        --------
        >>> op = OutputPerturbation.calibrate(
        ...     "gamma-norm", epsilon=1.0, l2_sensitivity=0.2, dim=3)
        >>> round(op.event("demo", reference="CMS11 Alg. 1").sensitivity, 12)
        0.2004
        """
        return self.noise.event(
            mechanism, reference=reference, details=details, data_norm=data_norm
        )
