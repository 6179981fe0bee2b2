# SPDX-License-Identifier: BSD-3-Clause
"""Pure ε-label-DP margin learner (Bassily, Mohri & Suresh, Algorithm 4).

Label differential privacy protects the **labels only**: two data sets are
neighbours when they have the same features and differ in the label of one
example (Bassily, Mohri & Suresh, Def. 6.1). The features are treated as public
and are read freely (here: to build the candidate set). A label-DP model is
**not** differentially private in the ordinary (replace-one) sense.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.extmath import randomized_svd

from .._compat import Interval, StrOptions
from ..accounting.events import PrivacyEvent
from ..mechanisms import ExponentialMechanism
from ..utils._random import check_random_state
from ._base import (
    COMMON_CONSTRAINTS,
    FloatArray,
    MarginClassifierBase,
    rows_in_ball,
)

__all__ = ["LabelPrivateMarginClassifier", "greedy_linf_net"]

_REFERENCE = (
    "Bassily, Mohri & Suresh, 'Differentially private learning with margin "
    "guarantees', NeurIPS 2022 (arXiv:2204.10376), Algorithm 4 and Theorem 6.1; "
    "exponential mechanism of McSherry & Talwar (2007), Thm 6"
)

#: Largest m·N² (sample size × candidates²) for which cover="auto" builds the
#: greedy ℓ∞ net (the net costs up to that many comparisons).
_AUTO_COVER_WORK = 2e8

#: Elements of a (rows × candidates) block of scores computed at once.
_BLOCK_ELEMENTS = 1 << 22


def greedy_linf_net(
    outputs: ArrayLike, radius: float
) -> tuple[NDArray[np.intp], float]:
    """Greedy ℓ∞ net of the columns of a (sample × candidates) output matrix.

    Scans the candidates in order; a candidate joins the net when it is farther
    than ``radius`` (in max-norm over the sample) from every net member chosen so
    far, and every remaining candidate within ``radius`` of it is dropped. Every
    candidate is then within ``radius`` of the net: an internal ``radius``-cover
    of the candidate set in the empirical ℓ∞ metric (Bassily, Mohri & Suresh,
    Algorithm 4 step 1 asks for a minimal cover, which is intractable in general;
    any cover built from the features alone keeps the label-DP guarantee).

    Parameters
    ----------
    outputs : array-like of shape (n_samples, n_candidates)
        Column j holds the (truncated) outputs g_j(x_1), ..., g_j(x_m).
    radius : float
        The cover radius (> 0).

    Returns
    -------
    net : ndarray of int
        Indices of the net members, in increasing order.
    achieved : float
        The largest ℓ∞ distance from a candidate to its covering net member
        (≤ ``radius``).

    Examples
    --------
    >>> G = np.array([[0.0, 0.1, 1.0], [0.0, 0.05, 1.0]])
    >>> net, achieved = greedy_linf_net(G, 0.2)
    >>> net.tolist(), achieved
    ([0, 2], 0.1)
    """
    G = np.asarray(outputs, dtype=np.float64)
    if G.ndim != 2:
        raise ValueError(f"outputs must be 2-D, got shape {G.shape}.")
    if not radius > 0:
        raise ValueError(f"radius must be > 0, got {radius}.")
    remaining = np.arange(G.shape[1])
    net: list[int] = []
    achieved = 0.0
    while remaining.size:
        j = int(remaining[0])
        net.append(j)
        dist = np.max(np.abs(G[:, remaining] - G[:, [j]]), axis=0)
        covered = dist <= radius
        achieved = max(achieved, float(dist[covered].max()))
        remaining = remaining[~covered]
    return np.asarray(net, dtype=np.intp), achieved


def _feature_subspace(
    X: Any, n_components: int, rng: np.random.Generator
) -> FloatArray:
    """Top right singular vectors of X (uncentred), shape (n_features, q).

    Reads the features only (public under label DP); the labels are not used.
    """
    q = min(n_components, min(X.shape))
    if q >= min(X.shape) and not sp.issparse(X):
        _, _, vt = np.linalg.svd(np.asarray(X), full_matrices=False)
        return np.asarray(vt[:q].T, dtype=np.float64)
    seed = int(rng.integers(2**31 - 1))
    _, _, vt = randomized_svd(X, q, n_iter=4, random_state=seed)
    return np.asarray(vt.T, dtype=np.float64)


class LabelPrivateMarginClassifier(MarginClassifierBase):
    """Linear margin classifier with pure ε-**label**-DP (features are public).

    Builds a finite set of linear candidates w (‖w‖ = ``norm_bound``) from the
    **features alone**, reduces it to a ρ/2-net of the ρ-truncated outputs on the
    sample (Bassily, Mohri & Suresh, Algorithm 4 step 1), and selects one by the
    exponential mechanism with score −(number of examples with
    yᵢ·g(xᵢ) ≤ ρ/2), i.e. P(g) ∝ exp(−(ε/2)·#errors at margin ρ/2) (step 2).

    **The features are NOT protected.** Only the labels are: see Privacy below.

    Parameters
    ----------
    epsilon : float, default=1.0
        The label-privacy parameter ε > 0 (pure, δ = 0).
    margin : float or "auto", default="auto"
        The public confidence margin ρ > 0; candidates are scored by their error
        at margin ρ/2 and outputs are truncated to [−ρ, ρ] for the cover.
        ``"auto"``: ρ = Λr/√m, the smallest margin of Algorithm 6's grid (the
        score is then close to the zero-one error, whose minimizer is what the
        exponential mechanism should approach when m is large).
    norm_bound : float, default=1.0
        Public norm Λ of the linear candidates (x ↦ ⟨w, x⟩, ‖w‖ = Λ).
    data_norm : float, default=1.0
        Public bound r on ‖x‖₂; rows are projected onto that ball (a per-row map)
        so that the fat-shattering bound (Λr/γ)² of the linear class holds.
    candidates : {"subspace", "sphere"} or array-like of shape \
            (n_candidates, n_features), default="subspace"
        How the candidate directions are built, from the features only.
        ``"subspace"``: ``n_candidates`` uniformly random directions in the span
        of the top ``n_directions`` right singular vectors of the (uncentred)
        feature matrix, plus those singular vectors themselves with both signs.
        ``"sphere"``: uniformly random directions in ℝ^d. An array: the given
        directions (each rescaled to norm Λ); they must not depend on the labels.
    n_candidates : int, default=2000
        Number of random directions.
    n_directions : int or "auto", default="auto"
        Dimension q of the feature subspace for ``candidates="subspace"``.
        ``"auto"``: q = min(d, max(10, ⌈2√d⌉)) (d = input width, with the
        intercept coordinate when ``fit_intercept``).
    cover : {"auto", "greedy", "none"}, default="auto"
        ``"greedy"``: keep a greedy ρ/2-net (ℓ∞ on the truncated sample outputs)
        of the candidates, see :func:`greedy_linf_net`. ``"none"``: run the
        exponential mechanism over all candidates. ``"auto"``: greedy when
        m·N² ≤ 2·10⁸, else none. Privacy is the same in every case; the net only
        shrinks the candidate set of the utility bound.
    n_rounds : int or "auto", default="auto"
        1: Algorithm 4 as published. T > 1: an extension by composition (not
        in the paper): T selections with ε/T each, where round t > 1 draws
        ``n_candidates`` random perturbations (scale 2^{−(t−2)}/2, in the
        candidate basis) of the direction released by round t − 1. Each round's
        candidates depend on the features and on earlier outputs only, so the
        whole is ε-label-DP by sequential composition; it refines the direction
        where one random pool is too coarse. ``"auto"``: the largest T ≤ 5
        for which each round's exponential mechanism loses at most 0.01 in
        margin error with probability ≥ 0.95, 2(ln N + ln 20)/((ε/T)·m) ≤ 0.01
        (McSherry & Talwar 2007), and at least 1 — one round for small m·ε,
        five for Adult (m ≈ 32,000) at ε ≥ 0.35.
    classes : array-like of shape (2,) or None, default=None
        The public label set. ``None`` reads it from y (private under label DP)
        and emits a :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: the candidate directions and the selection noise come from a
        ChaCha20 CSPRNG keyed by the OS. An int makes both reproducible — **for
        tests and documentation only, never for a real release**. A generator
        object is refused at ``fit`` (kept as a parameter, it would replay the
        noise).
    fit_intercept : bool, default=False
        Fit an intercept: each row is projected onto B(√(r² − s²)) and given the
        constant public coordinate s = ``intercept_scaling``·r (augmented rows
        stay in B(r)); ``intercept_`` is its weight times s. The features stay
        public; the candidates then include the constant direction.
    intercept_scaling : float, default=0.5
        s/r ∈ (0, 1).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The selected direction w (‖w‖ = Λ). Predictions are sign⟨w, x⟩ (the
        truncation to [−ρ, ρ] does not change signs); append a constant
        feature for an affine classifier.
    classes_ : ndarray of shape (2,)
        The label set; ``classes_[1]`` is the positive class.
    n_candidates_ : int
        Size of the candidate set the exponential mechanism ran over (after the
        net).
    cover_radius_ : float or None
        The achieved ℓ∞ cover radius of the net over the candidate pool
        (≤ ρ/2), or ``None`` when no net was built. It is computed from the
        features only. It is **not** a cover radius of the whole linear class:
        the Theorem 6.1 bound is certified only if the pool covers it.
    privacy_event_ : PrivacyEvent
        ε, δ = 0, sensitivity 1 (one error count), neighbouring relation
        ``"replace-one-label"``.
    n_features_in_ : int
        Number of input columns.
    intercept_ : float or ndarray of shape (n_classes,)
        The intercept (0 without ``fit_intercept``).
    estimators_ : list of LabelPrivateMarginClassifier
        With more than 2 classes only: the K one-vs-rest learners, each at
        ε/K (sequential composition; one changed label changes at most two of
        the K problems, so this is conservative); ``coef_`` then has one row
        per class.

    See Also
    --------
    dpsvm.margins.JLMarginClassifier : (ε, δ)-DP for features and labels.

    Notes
    -----
    **Privacy.** ε-label-DP, pure (Bassily, Mohri & Suresh, Theorem 6.1):
    neighbouring data sets have the **same features** and differ in the label of
    one example (relation ``"replace-one-label"``). The candidate set and its
    net depend on the features (and on the randomness) only; changing one label
    changes each candidate's error count by at most 1, so the exponential
    mechanism with P ∝ exp(−(ε/2)·count) is ε-DP for labels (McSherry & Talwar
    2007). **The features are not protected at all**: the released direction
    is built from them (for example from their singular vectors) and can reveal
    them. Use this estimator only where the features are public (or already
    released) and the labels are the secret; otherwise use a DP learner such as
    :class:`~dpsvm.margins.JLMarginClassifier`. The number of examples m is
    public. Floating-point sampling (Gumbel-max in float64) is not exactly the
    ideal distribution (Ilvento 2020). There is no ``accountant`` parameter:
    :class:`~dpsvm.accounting.BudgetAccountant` composes replace-one events only
    and refuses (fails closed on) this event's label relation.

    **Utility.** Theorem 6.1: with probability ≥ 1 − β,
    R(h) ≤ min_h (R̂^ρ(h) + 2√(R̂^ρ(h)·M/m)) + 2M/m + 64·M·ln(2/β)/(εm), where
    M grows with the fat-shattering dimension at scale ρ/32 (≤ (32Λr/ρ)² for
    linear classes). It holds only if the candidate pool ρ/2-covers the
    truncated class on the sample; a random pool of directions is a heuristic
    whose achieved radius over the pool is reported in ``cover_radius_``.
    The exponential mechanism itself loses at most 2(ln N + ln(1/β))/(εm) in
    margin error (N = ``n_candidates_``).

    **Defaults.** The candidate set and the number of rounds follow from the
    public m, d and ε only (the rules of ``margin``, ``n_directions`` and
    ``n_rounds``): on UCI Adult (m = 32,561, public schema encoding, d = 105,
    ε = 1) that is ρ = Λr/180, q = 21 directions, 2,042 candidates per round
    (too many for the greedy net at this m, so ``cover="auto"`` keeps them
    all) and 5 rounds. The rules were chosen by validation on a split of
    Adult's training file, never its test file (docs/margins.md).

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022, arXiv:2204.10376, Algorithm 4,
       Definition 6.1, Theorem 6.1.
    .. [2] F. McSherry, K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007, Theorem 6.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.margins import LabelPrivateMarginClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 5)) / 3.0
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    >>> clf = LabelPrivateMarginClassifier(
    ...     epsilon=1.0, margin=0.05, classes=[-1, 1], random_state=0
    ... ).fit(X, y)
    >>> clf.privacy_event_.neighbouring
    'replace-one-label'
    >>> bool(clf.score(X, y) > 0.8)
    True
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **COMMON_CONSTRAINTS,
        "margin": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "candidates": [StrOptions({"subspace", "sphere"}), "array-like"],
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "n_directions": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "cover": [StrOptions({"auto", "greedy", "none"})],
        "n_rounds": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
    }

    margin: float | str  # type: ignore[assignment]  # "auto" is resolved in fit

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        margin: float | str = "auto",
        norm_bound: float = 1.0,
        data_norm: float = 1.0,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float = 0.5,
        candidates: str | ArrayLike = "subspace",
        n_candidates: int = 2000,
        n_directions: int | str = "auto",
        cover: str = "auto",
        n_rounds: int | str = "auto",
    ) -> None:
        self.epsilon = epsilon
        self.margin = margin
        self.norm_bound = norm_bound
        self.data_norm = data_norm
        self.classes = classes
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.candidates = candidates
        self.n_candidates = n_candidates
        self.n_directions = n_directions
        self.cover = cover
        self.n_rounds = n_rounds

    # -- public rules ----------------------------------------------------------
    def _resolved_margin(self, m: int) -> float:
        """ρ: ``margin``, or the public rule Λr/√m of ``margin="auto"``."""
        if self.margin == "auto":
            return float(self.norm_bound) * float(self.data_norm) / math.sqrt(m)
        return float(self.margin)

    def _resolved_directions(self, d: int) -> int:
        """q: ``n_directions``, or min(d, max(10, ⌈2√d⌉)) for ``"auto"``."""
        if self.n_directions == "auto":
            return min(d, max(10, math.ceil(2.0 * math.sqrt(d))))
        return int(self.n_directions)

    def _resolved_rounds(self, m: int, n_candidates: int) -> int:
        """T: ``n_rounds``, or the public rule of ``n_rounds="auto"``.

        The largest T ≤ 5 whose rounds (ε/T each, over N candidates) each lose
        at most 0.01 in margin error with probability ≥ 0.95 by the exponential
        mechanism's utility bound 2(ln N + ln 20)/((ε/T)·m) (McSherry & Talwar
        2007, Thm 8), and at least 1.
        """
        if self.n_rounds != "auto":
            return int(self.n_rounds)
        n = max(2, n_candidates)
        per_round = 2.0 * (math.log(n) + math.log(20.0)) / (float(self.epsilon) * m)
        return int(min(5, max(1, math.floor(0.01 / per_round))))

    # -- helpers ---------------------------------------------------------------
    def _directions(
        self, X: Any, rng: np.random.Generator
    ) -> tuple[FloatArray, FloatArray | None]:
        """Unit candidates as coefficients (q, N) in an orthonormal basis (d, q).

        Every candidate (and every later round's move) lies in the span of the
        basis, so the scores are computed on the rows' q coordinates. The basis
        is ``None`` for the identity (``"sphere"`` and user candidates).
        """
        d = X.shape[1]
        V: FloatArray | None = None
        if isinstance(self.candidates, str):
            if self.candidates == "sphere":
                C = rng.standard_normal((d, int(self.n_candidates)))
            else:
                V = _feature_subspace(X, self._resolved_directions(d), rng)
                q = V.shape[1]
                G = rng.standard_normal((q, int(self.n_candidates)))
                C = np.hstack([np.eye(q), -np.eye(q), G])
        else:
            A = np.asarray(self.candidates, dtype=np.float64)
            if A.ndim != 2 or A.shape[1] != d or not np.all(np.isfinite(A)):
                raise ValueError(
                    "candidates must be a finite array of shape (n_candidates, "
                    f"n_features) = (N, {d}); got shape {A.shape}."
                )
            C = A.T.copy()
        norms = np.linalg.norm(C, axis=0)
        if np.any(norms == 0):
            raise ValueError("candidates must not contain the zero vector.")
        return np.asarray(C / norms, dtype=np.float64), V

    def _select_round(
        self,
        Z: FloatArray,
        t: FloatArray,
        W: FloatArray,
        rho: float,
        epsilon: float,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, str, float | None, int]:
        """One run of Algorithm 4 over the candidate columns of W (basis coords).

        ``Z`` holds the rows' coordinates in the candidates' basis, so
        ``Z @ W`` are the candidates' outputs ⟨w, xᵢ⟩ on the sample.
        """
        m, n_cand = Z.shape[0], W.shape[1]
        mode = self.cover
        if mode == "auto":
            mode = "greedy" if m * float(n_cand) ** 2 <= _AUTO_COVER_WORK else "none"
        radius: float | None = None
        if mode == "greedy":
            # Algorithm 4 step 1: truncate to [−ρ, ρ] (β_ρ) and keep a ρ/2-net in
            # ℓ∞ on the sample features; no label is read here.
            T = np.clip(Z @ W, -rho, rho)
            net, radius = greedy_linf_net(T, rho / 2.0)
            W = W[:, net]
            # y·β_ρ(s) ≤ ρ/2 ⟺ y·s ≤ ρ/2, since ρ/2 < ρ.
            errors = np.sum(t[:, None] * T[:, net] <= rho / 2.0, axis=0)
        else:
            errors = np.empty(n_cand, dtype=np.int64)
            step = max(1, _BLOCK_ELEMENTS // max(1, m))
            for s in range(0, n_cand, step):
                S = Z @ W[:, s : s + step]
                errors[s : s + step] = np.sum(t[:, None] * S <= rho / 2.0, axis=0)
        # Algorithm 4 step 2 (Thm 6.1): utility −#{i : yᵢg(xᵢ) ≤ ρ/2}, which moves
        # by ≤ 1 when one label changes: P(g) ∝ exp(ε·u/(2·1)) (McSherry–Talwar).
        em = ExponentialMechanism(epsilon=epsilon, sensitivity=1.0)
        chosen = em.select(-np.asarray(errors, dtype=np.float64), random_state=rng)
        return np.asarray(W[:, chosen], dtype=np.float64), mode, radius, W.shape[1]

    # -- fit -----------------------------------------------------------------
    def _fit_binary(self, Xv: Any, t_labels: FloatArray, labels: ArrayLike) -> None:
        # Features are public under label DP; rows longer than r are projected
        # onto B(r) (a public per-row map).
        epsilon = float(self.epsilon)
        r = float(self.data_norm)
        Xp = rows_in_ball(Xv, r)
        rng = check_random_state(self.random_state)
        m = Xp.shape[0]
        lam, rho = float(self.norm_bound), self._resolved_margin(m)
        W, basis = self._directions(Xp, rng)  # (q, N) unit columns, basis (d, q)
        n_rounds = self._resolved_rounds(m, W.shape[1])
        eps_round = epsilon / n_rounds
        # The rows' coordinates in the basis (features only): Xp @ (basis @ W)
        # = Z @ W for every candidate (no copy for the identity basis).
        Z = Xp if basis is None else np.asarray(Xp @ basis, dtype=np.float64)
        w = np.zeros(W.shape[0])
        children = []
        modes = []
        radii: list[float | None] = []
        sizes = []
        for t in range(n_rounds):
            if t > 0:
                # Later rounds (a composition extension, not in the paper): random
                # perturbations of the previous *released* direction, drawn from
                # the features' basis and fresh randomness only.
                scale = 0.5 * 2.0 ** (-(t - 1))
                G = rng.standard_normal((w.shape[0], int(self.n_candidates)))
                W = w[:, None] / lam + scale * G
                W = np.hstack([w[:, None] / lam, W])
                W /= np.linalg.norm(W, axis=0)
            w, mode, radius, n_used = self._select_round(
                Z, t_labels, W * lam, rho, eps_round, rng
            )
            modes.append(mode)
            radii.append(radius)
            sizes.append(n_used)
            children.append(
                PrivacyEvent(
                    mechanism="exponential",
                    epsilon=eps_round,
                    sensitivity=1.0,
                    sensitivity_norm="utility",
                    neighbouring="replace-one-label",
                    reference=_REFERENCE,
                    details={"round": t, "n_candidates": n_used, "cover": mode},
                )
            )
        self.coef_ = np.asarray(w if basis is None else basis @ w, dtype=np.float64)
        self.n_candidates_ = sizes[-1]
        self.cover_radius_ = radii[-1]
        self.privacy_event_ = PrivacyEvent(
            mechanism="label-dp-margin-exponential",
            epsilon=epsilon,
            delta=0.0,
            sensitivity=1.0,
            sensitivity_norm="utility",
            neighbouring="replace-one-label",
            reference=_REFERENCE
            + (
                "; rounds composed sequentially (Dwork & Roth 2014, Thm 3.16)"
                if n_rounds > 1
                else ""
            ),
            details={
                "protected": "labels only; features are public and NOT protected",
                "margin": rho,
                "norm_bound": lam,
                "data_norm": r,
                "n_samples": int(m),
                "n_rounds": n_rounds,
                "n_candidates": sizes,
                "candidates": (
                    self.candidates
                    if isinstance(self.candidates, str)
                    else "user-supplied"
                ),
                "cover": modes,
                "score": "-(number of errors at margin rho/2)",
                "sampler": "exact",
            },
            children=tuple(children) if n_rounds > 1 else (),
        )
