# SPDX-License-Identifier: BSD-3-Clause
"""Pure ε-DP margin learner for tiny feed-forward networks (§5 of Bassily et al.)."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .._compat import Interval, StrOptions
from ..accounting import BudgetAccountant
from ._base import (
    CANDIDATE_CONSTRAINTS,
    COMMON_CONSTRAINTS,
    REFERENCE,
    CandidateSelectionClassifier,
    FloatArray,
    rows_in_ball,
    split_random_state,
)
from .bounds import neural_cover_scale, neural_jl_dimension
from .projections import RademacherJL

__all__ = ["NeuralMarginClassifier"]

_BLOCK_ELEMENTS = 1 << 22


def _activation(a: FloatArray, eta: float) -> FloatArray:
    # Bassily, Mohri & Suresh (2022), §5: σ_η(a) = (1 − e^{−ηa/2})/(1 + e^{−ηa/2}),
    # which equals tanh(ηa/4).
    return np.tanh(0.25 * eta * a)


class NeuralMarginClassifier(CandidateSelectionClassifier):
    """Pure ε-DP classifier over JL-compressed tiny networks (exponential mechanism).

    The construction of §5 of Bassily, Mohri & Suresh (2022): an L-layer,
    width-N network without biases, h(x) = W_Lᵀψ(W_{L−1}ᵀ…ψ(W_1ᵀx)) with
    ψ = tanh(η·/4) and ‖W_j‖_F ≤ Λ, is compressed with data-independent
    Rademacher JL maps Φ₀ ∈ ℝ^{k×d}, Φ_j ∈ ℝ^{k×N} to weights W̃_j ∈ ℝ^{k×N},
    w̃_L ∈ ℝ^k; the exponential mechanism then picks compressed weights from a
    data-independent finite set with score −(zero-one training error at
    margin 0) and sensitivity 1/m.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 (pure DP).
    margin : float, default=0.5
        The public margin ρ > 0 (sets the cover scale γ = ρ/(10r(4ηΛ)^{L−1})).
    norm_bound : float, default=1.0
        Λ, the per-layer Frobenius bound; candidates lie in balls of radius 2Λ.
    data_norm : float, default=1.0
        r, the public row-norm bound (enters γ; privacy holds for any norm).
        Rows are projected onto B^d(r) before the first JL map (in ``fit`` and
        in prediction).
    n_layers : int, default=2
        L ≥ 1 (L = 1 is a linear model).
    width : int, default=1
        N, the hidden width.
    n_components : int or "theory", default=1
        k; ``"theory"`` uses Claim D.2's k = ⌈10ĉ²r²(2ηΛ)^{2(L−1)}Λ² ln(Lm/β)/ρ²⌉
        (ĉ = ``jl_constant``), whose cover is never tractable.
    jl_constant : float, default=1.0
        ĉ for ``n_components="theory"``.
    activation_scale : float, default=1.0
        η of ψ(a) = tanh(ηa/4).
    candidates : {"grid", "random"}, default="grid"
        ``"grid"``: a γ-cover of the product of the weight balls (cubic lattice
        of spacing 2γ/√P, P the parameter count); ``"random"``: ``n_candidates``
        networks with each weight block uniform in its ball of radius 2Λ (exact
        privacy, no covering guarantee; the empirical covering radius is
        reported).
    n_candidates : int, default=2000
        Size of the random candidate set.
    max_candidates : int, default=200000
        Largest cover built; a larger one is refused before any score is computed
        (before the data are read where its size does not depend on them).
    selection : {"exponential", "permute-and-flip"}, default="exponential"
        The pure-DP selection mechanism.
    beta : float, default=0.05
        β of the theory dimension.
    classes : array-like of 2 labels, default=None
        The public label set; ``None`` reads it from the data and emits a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    accountant : BudgetAccountant or None, default=None
        Budget to check before the data are read and charge after a successful
        fit. Shared by clones (it is not copied).
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise). The JL maps and the candidates
        come from a public seed drawn from it before the data are read.
    fit_intercept : bool, default=False
        Fit an intercept: each row is projected onto B(√(r² − s²)) and given the
        constant public coordinate s = ``intercept_scaling``·r, so augmented rows
        stay in B(r) and every calibration keeps the public bound r; the
        intercept adds at most s to a row's norm. ``intercept_`` is the weight of
        that coordinate times s.
    intercept_scaling : float, default=0.5
        s/r ∈ (0, 1).

    Attributes
    ----------
    intercept_ : float or ndarray of shape (n_classes,)
        The intercept (0 without ``fit_intercept``).
    estimators_ : list of estimators
        With more than 2 classes only: the K binary one-vs-rest learners (each
        fitted at (ε/K, δ/K) on the augmented rows; see their attributes);
        ``coef_`` then has one row per class.
    projections_ : list of RademacherJL
        Φ₀, Φ₁, …, Φ_{L−1} (public).
    compressed_weights_ : list of ndarray
        The selected W̃₁, …, W̃_{L−1} (each k×N) and w̃_L (length k).
    n_parameters_ : int
        P = Σ block sizes, (L−1)kN + k when k ≤ d and k ≤ N.
    n_candidates_ : int
        |C|.
    covering_radius_ : float
        γ for the grid; a probe-based estimate for random sets (joint norm).
    theory_n_components_ : int
        Claim D.2's k for this m (ĉ = ``jl_constant``).
    theorem_applies_ : bool
        Whether the set is a γ-cover and k ≥ the theory value (Thm 5.1).
    privacy_event_ : PrivacyEvent
        Pure ε-DP event.
    classes_ : ndarray of shape (2,)
        The labels.
    n_features_in_ : int
        Input width.

    Notes
    -----
    **Privacy.** ε-DP (pure) under replace-one neighbours, for any row norms
    (Bassily, Mohri & Suresh 2022, Thm 5.1): the Φ's and the candidate set are
    data-independent and the score (number of errors)/m moves by at most 1/m.
    Released: the compressed weights and the Φ's (equivalently the full weights
    W_j = Φ_{j−1}ᵀW̃_j).

    **Utility.** Thm 5.1 needs k at Claim D.2's value and a γ-cover of
    B^{k×N}(2Λ)^{L−1} × B^k(2Λ), which has exp(Θ(P log(Λ/γ))) points with
    P = (L−1)kN + k (the paper writes the exponent as k×N; the parameter count
    is the correct one). Only toy sizes are tractable; the size is computed
    first and refused above ``max_candidates``. With a random candidate set or
    a small k the privacy is unchanged but no utility theorem applies.
    Training the compressed network with DP-SGD instead would give approximate
    DP and none of the paper's margin guarantees.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), §5, Thm 5.1,
       App. D (Claims D.2-D.5).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); X /= np.linalg.norm(X, axis=1)[:, None]
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = NeuralMarginClassifier(epsilon=2.0, candidates="random",
    ...     n_candidates=200, classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.n_parameters_, clf.privacy_event_.delta
    (2, 0.0)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **COMMON_CONSTRAINTS,
        "n_layers": [Interval(Integral, 1, None, closed="left")],
        "width": [Interval(Integral, 1, None, closed="left")],
        "n_components": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"theory"}),
        ],
        **CANDIDATE_CONSTRAINTS,
        "activation_scale": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        margin: float = 0.5,
        norm_bound: float = 1.0,
        data_norm: float = 1.0,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float = 0.5,
        n_components: int | str = 1,
        jl_constant: float = 1.0,
        candidates: str = "grid",
        n_candidates: int = 2000,
        max_candidates: int = 200000,
        selection: str = "exponential",
        beta: float = 0.05,
        accountant: BudgetAccountant | None = None,
        n_layers: int = 2,
        width: int = 1,
        activation_scale: float = 1.0,
    ) -> None:
        self.epsilon = epsilon
        self.margin = margin
        self.norm_bound = norm_bound
        self.data_norm = data_norm
        self.classes = classes
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.n_components = n_components
        self.jl_constant = jl_constant
        self.candidates = candidates
        self.n_candidates = n_candidates
        self.max_candidates = max_candidates
        self.selection = selection
        self.beta = beta
        self.accountant = accountant
        self.n_layers = n_layers
        self.width = width
        self.activation_scale = activation_scale

    def _block_shapes(self, k: int, d: int) -> list[tuple[int, ...]]:
        n, lay = int(self.width), int(self.n_layers)
        k0, kj = min(k, d), min(k, n)
        if lay == 1:
            return [(k0,)]
        shapes: list[tuple[int, ...]] = [(k0, n)]
        shapes += [(kj, n)] * (lay - 2)
        shapes.append((kj,))
        return shapes

    def _forward(
        self, weights: list[FloatArray], Z0: FloatArray, phis: list[RademacherJL]
    ) -> FloatArray:
        """Scores for a batch of candidates: weights[j] has a leading batch axis."""
        eta = self.activation_scale
        if len(weights) == 1:
            return np.einsum("mk,ck->cm", Z0, weights[0])
        A = _activation(np.einsum("mk,ckn->cmn", Z0, weights[0]), eta)
        for j in range(1, len(weights)):
            Z = _apply_batch(phis[j], A)
            if j == len(weights) - 1:
                return np.einsum("cmk,ck->cm", Z, weights[j])
            A = _activation(np.einsum("cmk,ckn->cmn", Z, weights[j]), eta)
        raise AssertionError("unreachable")

    def _fit_binary(self, Xv: Any, ys: FloatArray, labels: ArrayLike) -> None:
        m, d = Xv.shape
        lay = int(self.n_layers)
        theory_k = neural_jl_dimension(
            m,
            self.beta,
            self.data_norm,
            self.norm_bound,
            self.margin,
            lay,
            self.activation_scale,
            self.jl_constant,
        )
        k = theory_k if self.n_components == "theory" else int(self.n_components)
        shapes = self._block_shapes(k, d)
        n_params = sum(int(np.prod(s)) for s in shapes)
        radius = 2.0 * self.norm_bound
        gamma = neural_cover_scale(
            self.margin, self.data_norm, self.norm_bound, lay, self.activation_scale
        )
        self._check_cover(
            shapes,
            radius,
            gamma,
            describe=f"cover of the compressed network weights at scale "
            f"gamma={gamma:.3g} ({n_params} parameters: n_layers={lay}, "
            f"width={self.width}, k={k}; theory k={theory_k})",
            remedy="Lower n_components, width or n_layers, or raise margin.",
        )
        gen, public_seed = split_random_state(self.random_state)
        public = np.random.default_rng(public_seed)
        seeds = [int(s) for s in public.integers(0, 2**32, size=lay)]
        phis = [RademacherJL(k, random_state=seeds[0]).fit(Xv[:1])]
        for seed in seeds[1:]:
            phis.append(
                RademacherJL(k, random_state=seed).fit(np.zeros((1, self.width)))
            )
        # Bounded before mapped: rows onto B^d(r) (Thm 5.1's domain,
        # overflow-safe) before the first JL map, in fit and in prediction.
        Z0 = phis[0].transform(rows_in_ball(Xv, self.data_norm))
        self.projections_ = phis
        self.n_parameters_ = n_params
        # Bassily, Mohri & Suresh (2022), §5 step 5: P(h) ∝ exp(−(ε/2)·#errors(h)).
        self.compressed_weights_ = self._select_candidate(
            shapes,
            radius,
            gamma,
            public=public,
            remedy="lower n_components or width.",
            scores=lambda w: self._forward(w, Z0, phis),
            chunk=max(1, _BLOCK_ELEMENTS // (m * max(k, int(self.width)))),
            y=ys,
            random_state=gen,
            theory_k=theory_k,
            reaches_theory=k >= theory_k,
            mechanism="jl-network-exponential-mechanism",
            reference=f"{REFERENCE}, §5 and Thm 5.1",
            details={"n_parameters": n_params},
        )

    def _scores(self, Xv: Any) -> FloatArray:
        """Network scores h(x) of validated rows."""
        Z0 = self.projections_[0].transform(rows_in_ball(Xv, self.data_norm))
        weights = [w[None] for w in self.compressed_weights_]
        return self._forward(weights, Z0, self.projections_)[0]


def _apply_batch(jl: RademacherJL, A: FloatArray) -> FloatArray:
    """Apply a fitted JL map to activations of shape (c, m, N)."""
    if jl.identity_:
        return A
    assert jl.components_ is not None
    return np.asarray(A @ jl.components_.T, dtype=np.float64)
