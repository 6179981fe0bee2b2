# SPDX-License-Identifier: BSD-3-Clause
"""The exponential mechanism of McSherry & Talwar (2007), with the factor 2Δu.

Selects candidate c from a finite, data-independent set with probability
P(c) ∝ exp(ε·u(c)/(2Δu)). Under replace-one adjacency the utilities of
neighbouring datasets are not monotone (some may rise while others fall), so the
factor 2 is required; the "exp(ε·u/Δu)" variant is not valid there (McSherry &
Talwar 2007, Theorem 6, as used by Bassily, Mohri & Suresh for margin-based
selection).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import softmax

from ..utils._random import GeneratorLike, as_generator
from ._exact import exponential_mechanism_select
from .base import BaseMechanism

__all__ = ["ExponentialMechanism"]

_REFERENCE = (
    "McSherry & Talwar (2007), 'Mechanism design via differential privacy', "
    "FOCS, Thm 6: P(c) proportional to exp(epsilon*u(c)/(2*Delta_u)); see also "
    "Dwork & Roth (2014), Thm 3.10."
)


class ExponentialMechanism(BaseMechanism):
    """Pure ε-DP exponential mechanism over a finite set of candidates.

    Candidate ``i`` is selected with probability
    P(i) = exp(ε·uᵢ/(2Δu)) / Σⱼ exp(ε·uⱼ/(2Δu)), where ``u`` are the utilities
    (higher is better).

    The exponential mechanism releases an index, not a noisy value, so it does
    not have the additive-noise methods ``sample``/``randomise`` of
    :class:`~dpsvm.mechanisms.base.Mechanism`; it derives from
    :class:`~dpsvm.mechanisms.base.BaseMechanism` (ε, δ = 0, sensitivity and
    ``privacy_event``) and offers :meth:`probabilities` and :meth:`select`.

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite).
    sensitivity : float
        The utility sensitivity Δu = max over neighbours S, S′ and candidates c of
        |u(S, c) − u(S′, c)|, > 0 (finite). It must be a public bound (e.g. 1/m
        for u = −empirical error on m examples).

    Attributes
    ----------
    epsilon : float
        ε.
    delta : float
        Always 0.
    sensitivity : float
        Δu.

    Notes
    -----
    **Privacy.** If the candidate set is fixed independently of the data and
    every utility moves by at most Δu between neighbouring datasets (any
    neighbouring relation; dpsvm uses replace-one, and replace-one-label for
    label DP), the selected index is ε-differentially private (pure DP):
    the numerator changes by a factor ≤ e^{ε/2} and the normaliser by a factor
    ≥ e^{−ε/2} (McSherry & Talwar 2007, Thm 6; Dwork & Roth 2014, Thm 3.10).

    **Sampling.** :meth:`select` is exact over doubles: the utilities are
    rounded to a public grid 2^j (j = ⌊log₂ Δu⌋ − 20), which raises the
    sensitivity to Δu + 2^j, and an index is drawn with probability
    ∝ exp(λKᵢ) on the integer scores Kᵢ, λ = ε/(2(Δu/2^j + 1)) rounded down to
    24 significant bits, by rejection from the uniform proposal with exact
    Bernoulli(exp(−γ)) coins (Canonne, Kamath & Steinke 2020, Alg. 1;
    :func:`dpsvm.mechanisms._exact.exponential_mechanism_select`). The
    selection is therefore ε′-DP with ε′ = 2λ(Δu/2^j + 1) ≤ ε by McSherry &
    Talwar's Thm 6 on the rounded utilities: the calibration is unchanged up
    to a relative 2⁻¹⁹ (less sharp, never less private). No floating-point
    ``exp``/``log`` takes part (cf. the base-2 mechanism of Ilvento 2020,
    which solves the same problem differently). :meth:`probabilities` is the
    ideal law in float64, for reporting. The utilities themselves are computed
    in floating point; their sensitivity is the caller's bound (Casacuberta
    et al. 2022 on why that bound can fail over doubles).

    References
    ----------
    .. [1] F. McSherry and K. Talwar, "Mechanism design via differential
       privacy", FOCS 2007, Theorem 6.
    .. [2] C. Dwork and A. Roth, "The algorithmic foundations of differential
       privacy", 2014, Definition 3.4 and Theorem 3.10.
    .. [3] C. Ilvento, "Implementing the exponential mechanism with base-2
       differential privacy", ACM CCS 2020.
    .. [4] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020, arXiv:2004.00010, Algorithm 1.

    Examples
    --------
    >>> em = ExponentialMechanism(epsilon=2.0, sensitivity=1.0)
    >>> em.probabilities([0.0, 0.0]).tolist()
    [0.5, 0.5]
    >>> em.select([0.0, 1.0, 2.0], random_state=0) in (0, 1, 2)
    True
    """

    name: ClassVar[str] = "exponential"
    sensitivity_norm: ClassVar[str] = "utility"
    reference: ClassVar[str] = _REFERENCE

    def __init__(self, *, epsilon: float, sensitivity: float) -> None:
        super().__init__(epsilon=epsilon, delta=0.0, sensitivity=sensitivity)

    def _logits(self, utilities: ArrayLike) -> NDArray[np.float64]:
        """Validate the utilities and return ε·u/(2Δu) (unnormalised log P)."""
        arr = np.asarray(utilities)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"utilities must be real numbers, got dtype {arr.dtype}.")
        u = np.asarray(arr, dtype=np.float64)
        if u.ndim != 1:
            raise ValueError(f"utilities must be 1-D, got shape {u.shape}.")
        if u.size == 0:
            raise ValueError("utilities must be non-empty.")
        if not np.all(np.isfinite(u)):
            raise ValueError("utilities must be finite (no NaN or inf entries).")
        # McSherry & Talwar (2007), Thm 6: log P(c) = eps u(c) / (2 Delta_u) + const.
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below
            logits = (self._epsilon / (2.0 * self._sensitivity)) * u
        if not np.all(np.isfinite(logits)):
            raise ValueError(
                "epsilon * utilities / (2 * sensitivity) overflows float64; "
                "rescale the utilities and the sensitivity together."
            )
        # Shift by the maximum (probabilities are invariant to it) so that the
        # largest logit is 0 and nothing overflows downstream.
        # (A spread beyond the float64 range gives -inf, i.e. probability 0.)
        with np.errstate(over="ignore"):
            shifted = logits - logits.max()
        return np.asarray(shifted, dtype=np.float64)

    def probabilities(self, utilities: ArrayLike) -> NDArray[np.float64]:
        """Return the selection probabilities P(i) ∝ exp(ε·uᵢ/(2Δu)).

        Computed in log space (a softmax of the max-shifted logits), so very
        large or very spread utilities neither overflow nor give NaN.

        Parameters
        ----------
        utilities : array-like of shape (n_candidates,)
            Finite utilities, higher is better.

        Returns
        -------
        ndarray of shape (n_candidates,)
            Probabilities summing to 1 (up to rounding).

        Raises
        ------
        TypeError
            If the utilities are not real numbers.
        ValueError
            If the utilities are not 1-D, empty or not finite.

        Examples
        --------
        >>> p = ExponentialMechanism(epsilon=2.0, sensitivity=1.0).probabilities(
        ...     [0.0, 1.0]
        ... )
        >>> bool(np.isclose(p[1] / p[0], np.e))
        True
        """
        return np.asarray(softmax(self._logits(utilities)), dtype=np.float64)

    def select(self, utilities: ArrayLike, random_state: GeneratorLike = None) -> int:
        """Sample the index of one candidate with probability P(i).

        Exact over doubles (see the class Notes): utilities on the public grid
        2^j and an exact rejection sampler of P(i) ∝ exp(λKᵢ).

        Parameters
        ----------
        utilities : array-like of shape (n_candidates,)
            Finite utilities, higher is better.
        random_state : None, int or numpy.random.Generator, default=None
            ``None`` (the default, and the only choice for a real release) draws
            from a fresh CSPRNG; an int gives reproducible noise **for tests and
            documentation only** (anyone who knows it can subtract the noise); a
            Generator is used (and advanced) as is, never stored (a mechanism keeps
            no generator; estimators refuse generator objects as their own
            ``random_state``).

        Returns
        -------
        int
            The selected index in ``range(n_candidates)``.

        Raises
        ------
        TypeError
            If the utilities are not real numbers.
        ValueError
            If the utilities are not 1-D, empty or not finite.

        Examples
        --------
        >>> em = ExponentialMechanism(epsilon=1e6, sensitivity=1.0)
        >>> em.select([0.0, 5.0, 1.0], random_state=0)
        1
        """
        self._logits(utilities)  # validation (and the overflow check)
        u = np.asarray(utilities, dtype=np.float64)
        gen = as_generator(random_state)
        # McSherry & Talwar (2007), Thm 6, on utilities rounded to 2^j (CKS20
        # Alg. 1 coins; dpsvm.mechanisms._exact).
        return exponential_mechanism_select(u, self._epsilon, self._sensitivity, gen)

    def _event_details(self) -> dict[str, Any]:
        return {"sampler": "exact"}
