# SPDX-License-Identifier: BSD-3-Clause
"""Private selection: the generalized exponential mechanism and permute-and-flip.

The plain exponential mechanism is :class:`dpsvm.mechanisms.ExponentialMechanism`
(re-exported here); :func:`private_argmax` dispatches to it or to permute-and-flip.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..accounting import PrivacyEvent
from ..mechanisms import permute_and_flip_select
from ..mechanisms.exponential import ExponentialMechanism
from ..utils._random import GeneratorLike, as_generator
from ..validation import check_epsilon, check_positive

__all__ = [
    "ExponentialMechanism",
    "GeneralizedExponentialMechanism",
    "PermuteAndFlip",
    "private_argmax",
]

FloatArray = NDArray[np.float64]

_GEM_REFERENCE = (
    "Raskhodnikova & Smith (2016), 'Lipschitz extensions for node-private graph "
    "statistics', FOCS, Alg. 1 and Thm I.4 (generalized exponential mechanism), "
    "as used by Bassily, Mohri & Suresh (2022), App. F, Alg. 6"
)
_PF_REFERENCE = (
    "McKenna & Sheldon (2020), 'Permute-and-flip: a new mechanism for "
    "differentially private selection', NeurIPS, Alg. 1 and Thm 1"
)


def _as_scores(values: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real numbers, got dtype {arr.dtype}.")
    out = np.asarray(arr, dtype=np.float64)
    if out.ndim != 1 or out.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array, got shape {out.shape}."
        )
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must be finite (no NaN or inf entries).")
    return out


class _PureSelection:
    """The event of the pure ε-DP selection mechanisms of this module."""

    epsilon: float
    _mechanism: str
    _reference: str

    def _event_facts(self) -> tuple[float, dict[str, Any]]:
        """(utility sensitivity, public details) of the event."""
        raise NotImplementedError

    def privacy_event(self) -> PrivacyEvent:
        """The pure ε-DP event of one selection.

        Returns
        -------
        PrivacyEvent
            Mechanism ``"generalized-exponential"`` or ``"permute-and-flip"``,
            with ε and δ = 0.
        """
        sensitivity, details = self._event_facts()
        return PrivacyEvent(
            self._mechanism,
            self.epsilon,
            0.0,
            sensitivity=sensitivity,
            sensitivity_norm="utility",
            reference=self._reference,
            details=details,
        )


class GeneralizedExponentialMechanism(_PureSelection):
    """ε-DP selection of a minimizer among scores with unequal sensitivities.

    For candidates j = 1..K with scores qⱼ (lower is better) whose sensitivities
    are public bounds Δⱼ, with t = 2·ln(K/β)/ε, the normalized score

        sⱼ = max_l [(qⱼ + tΔⱼ) − (q_l + tΔ_l)] / (Δⱼ + Δ_l)

    has sensitivity ≤ 1, and j is drawn with P(j) ∝ exp(−ε·sⱼ/2), the
    exponential mechanism with sensitivity 1.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    sensitivities : array-like of shape (K,)
        The public bounds Δⱼ > 0 on how much qⱼ moves between neighbours.
    beta : float, default=0.05
        The failure probability β ∈ (0, 1) of the accuracy guarantee (it sets t;
        privacy holds for any β).

    Attributes
    ----------
    threshold : float
        t = 2·ln(K/β)/ε.

    Notes
    -----
    **Privacy.** ε-DP (pure) under any neighbouring relation for which each qⱼ
    moves by at most Δⱼ: each term of sⱼ is (qⱼ − q_l)/(Δⱼ + Δ_l) plus a public
    constant, which moves by at most 1, and a maximum of functions of
    sensitivity 1 has sensitivity 1; the exponential mechanism with
    sensitivity 1 (factor 2, McSherry & Talwar 2007, Thm 6) is then ε-DP.

    **Accuracy.** With probability ≥ 1 − β the selected j* satisfies
    q_{j*} ≤ min_l (q_l + 4Δ_l·ln(K/β)/ε): the candidate minimizing q_l + tΔ_l
    has s_l = 0, so by the exponential mechanism's accuracy bound
    s_{j*} < 2·ln(K/β)/ε = t with probability ≥ 1 − β, and s_{j*} < t means
    q_{j*} + tΔ_{j*} < q_l + tΔ_l + t(Δ_{j*} + Δ_l) for every l.
    This self-contained form follows Raskhodnikova & Smith (2016), Alg. 1; their
    published constants differ slightly.

    References
    ----------
    .. [1] S. Raskhodnikova, A. Smith, "Lipschitz extensions for node-private
       graph statistics and the generalized exponential mechanism", FOCS 2016,
       Alg. 1, Thm I.4.
    .. [2] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), App. F.

    Examples
    --------
    >>> gem = GeneralizedExponentialMechanism(epsilon=1e6, sensitivities=[1.0, 0.1])
    >>> gem.select([0.5, 0.2], random_state=0)
    1
    """

    _mechanism = "generalized-exponential"
    _reference = _GEM_REFERENCE

    def __init__(
        self, *, epsilon: float, sensitivities: ArrayLike, beta: float = 0.05
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        sens = _as_scores(sensitivities, "sensitivities")
        if np.any(sens <= 0):
            raise ValueError("sensitivities must all be > 0.")
        self.sensitivities = sens
        beta = float(beta)
        if not 0.0 < beta < 1.0:
            raise ValueError(f"beta must be in (0, 1), got {beta}.")
        self.beta = beta
        # Raskhodnikova & Smith (2016), Alg. 1: t = 2 ln(K/β)/ε.
        self.threshold = 2.0 * math.log(sens.size / beta) / self.epsilon

    def normalized_scores(self, scores: ArrayLike) -> FloatArray:
        """Return the normalized scores sⱼ ≥ 0 (sensitivity ≤ 1 each).

        Parameters
        ----------
        scores : array-like of shape (K,)
            The scores qⱼ to minimize.

        Returns
        -------
        ndarray of shape (K,)
            sⱼ = max_l [(qⱼ + tΔⱼ) − (q_l + tΔ_l)]/(Δⱼ + Δ_l).
        """
        q = _as_scores(scores, "scores")
        if q.size != self.sensitivities.size:
            raise ValueError(
                f"Expected {self.sensitivities.size} scores (one per sensitivity), "
                f"got {q.size}."
            )
        sens = self.sensitivities
        shifted = q + self.threshold * sens
        diff = shifted[:, None] - shifted[None, :]
        return np.asarray(np.max(diff / (sens[:, None] + sens[None, :]), axis=1))

    def probabilities(self, scores: ArrayLike) -> FloatArray:
        """Selection probabilities P(j) ∝ exp(−ε·sⱼ/2).

        Parameters
        ----------
        scores : array-like of shape (K,)
            The scores qⱼ to minimize.

        Returns
        -------
        ndarray of shape (K,)
            Probabilities summing to 1.
        """
        em = ExponentialMechanism(epsilon=self.epsilon, sensitivity=1.0)
        return em.probabilities(-self.normalized_scores(scores))

    def select(self, scores: ArrayLike, random_state: GeneratorLike = None) -> int:
        """Sample the index of one candidate.

        Parameters
        ----------
        scores : array-like of shape (K,)
            The scores qⱼ to minimize.
        random_state : None or int, default=None
            ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
            documentation only. A generator object is refused at ``fit`` (kept as a
            parameter, it would replay the noise).

        Returns
        -------
        int
            The selected index.
        """
        em = ExponentialMechanism(epsilon=self.epsilon, sensitivity=1.0)
        return em.select(-self.normalized_scores(scores), random_state=random_state)

    def accuracy_bound(self) -> FloatArray:
        """Per-candidate slack 4Δ_l·ln(K/β)/ε of the accuracy guarantee.

        Returns
        -------
        ndarray of shape (K,)
            With probability ≥ 1 − β, q_selected ≤ min_l (q_l + slack_l).
        """
        return 2.0 * self.threshold * self.sensitivities

    def _event_facts(self) -> tuple[float, dict[str, Any]]:
        # The exponential mechanism runs on normalized scores of sensitivity 1.
        details = {"threshold": self.threshold, "n_candidates": self.sensitivities.size}
        return 1.0, details


class PermuteAndFlip(_PureSelection):
    """ε-DP permute-and-flip selection of a maximizer (McKenna & Sheldon 2020).

    Visit the candidates in a uniformly random order and stop at the first r
    whose coin with probability exp(ε·(u_r − u*)/(2Δu)) comes up heads, where
    u* = max u. The candidate with u* always stops the walk. The coins are
    exact (utilities rounded to a public grid 2^j, j = ⌊log₂ Δu⌋ − 20, and
    exact Bernoulli(exp(−γ)) coins of Canonne, Kamath & Steinke 2020, Alg. 1),
    so the guarantee holds over doubles with ε′ ≤ ε (within a relative 2⁻¹⁹).

    Parameters
    ----------
    epsilon : float
        ε > 0.
    sensitivity : float
        Δu > 0, the public bound on how much each utility moves between
        neighbours.

    Notes
    -----
    **Privacy.** ε-DP (pure) under any neighbouring relation with utility
    sensitivity Δu (McKenna & Sheldon 2020, Thm 1; the factor 2 is the same as
    the exponential mechanism's, needed when utilities are not monotone, as under
    replace-one). Its expected utility is never worse than the exponential
    mechanism's (their Thm 2).

    References
    ----------
    .. [1] R. McKenna, D. Sheldon, "Permute-and-flip: a new mechanism for
       differentially private selection", NeurIPS 2020, Alg. 1, Thms 1-2.

    Examples
    --------
    >>> PermuteAndFlip(epsilon=1e6, sensitivity=1.0).select([0.0, 3.0, 1.0], 0)
    1
    """

    _mechanism = "permute-and-flip"
    _reference = _PF_REFERENCE

    def __init__(self, *, epsilon: float, sensitivity: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_positive(sensitivity, "sensitivity")

    def select(self, utilities: ArrayLike, random_state: GeneratorLike = None) -> int:
        """Sample the index of one candidate (higher utility is better).

        Parameters
        ----------
        utilities : array-like of shape (n_candidates,)
            Finite utilities.
        random_state : None or int, default=None
            ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
            documentation only. A generator object is refused at ``fit`` (kept as a
            parameter, it would replay the noise).

        Returns
        -------
        int
            The selected index.
        """
        u = _as_scores(utilities, "utilities")
        gen = as_generator(random_state)
        # McKenna & Sheldon (2020), Alg. 1: p_r = exp(ε (u_r − u*) / (2Δu)), with
        # exact coins on utilities rounded to a public grid (ε' <= ε; see
        # dpsvm.mechanisms._exact.permute_and_flip_select). One coin per
        # candidate is drawn up front (the number of draws is data-independent).
        return permute_and_flip_select(u, self.epsilon, self.sensitivity, gen)

    def _event_facts(self) -> tuple[float, dict[str, Any]]:
        return self.sensitivity, {}


def private_argmax(
    utilities: ArrayLike,
    *,
    epsilon: float,
    sensitivity: float,
    method: str = "exponential",
    random_state: GeneratorLike = None,
) -> tuple[int, PrivacyEvent]:
    """Select a high-utility index with a pure ε-DP mechanism.

    Parameters
    ----------
    utilities : array-like of shape (n_candidates,)
        Finite utilities, higher is better, of a data-independent candidate set.
    epsilon : float
        ε > 0.
    sensitivity : float
        Public utility sensitivity Δu > 0.
    method : {"exponential", "permute-and-flip"}, default="exponential"
        The exponential mechanism (Gumbel-max) or permute-and-flip.
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).

    Returns
    -------
    tuple
        (selected index, its :class:`~dpsvm.accounting.PrivacyEvent`).

    Examples
    --------
    >>> idx, event = private_argmax([0.0, 9.0], epsilon=50.0, sensitivity=1.0,
    ...                             random_state=0)
    >>> idx, event.epsilon
    (1, 50.0)
    """
    mech: Any
    if method == "exponential":
        mech = ExponentialMechanism(epsilon=epsilon, sensitivity=sensitivity)
        return mech.select(utilities, random_state), mech.privacy_event()
    if method == "permute-and-flip":
        mech = PermuteAndFlip(epsilon=epsilon, sensitivity=sensitivity)
        return mech.select(utilities, random_state), mech.privacy_event()
    raise ValueError(
        f"method must be 'exponential' or 'permute-and-flip', got {method!r}."
    )
