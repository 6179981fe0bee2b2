# SPDX-License-Identifier: BSD-3-Clause
"""Linear margin learners: JL + exponential mechanism (Alg. 1), JL + DP-ERM (Alg. 2)."""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .._compat import Interval, StrOptions
from ..accounting import BudgetAccountant
from ..validation import project_rows_to_ball
from ._base import (
    CANDIDATE_CONSTRAINTS,
    COMMON_CONSTRAINTS,
    JL_ERM_CONSTRAINTS,
    REFERENCE,
    CandidateSelectionClassifier,
    FloatArray,
    MarginClassifierBase,
    rows_in_ball,
    split_random_state,
)
from .bounds import jl_distortion, jl_em_dimension, jl_erm_dimension
from .erm import (
    _check_boosting_epsilon,
    _check_delta,
    boosted_phased_sgd,
    noisy_projected_gd,
    phased_sgd,
)
from .losses import RhoHingeLoss
from .projections import FastJL, RademacherJL

__all__ = ["JLExponentialMarginClassifier", "JLMarginClassifier"]

_SCORE_CHUNK = 1 << 22  # candidates × rows scored per block


def _linear_chunk(Z: FloatArray) -> int:
    """Candidates scored at once against the rows of ``Z``."""
    return max(1, _SCORE_CHUNK // max(Z.shape[0], 1))


class JLExponentialMarginClassifier(CandidateSelectionClassifier):
    """Pure ε-DP linear classifier: JL projection + exponential mechanism.

    Algorithm 1 (A_PrivMrg) of Bassily, Mohri & Suresh (2022): project the rows
    with a data-independent Rademacher JL map Φ to k dimensions, then pick w̃
    from a data-independent finite set C ⊂ B^k(2Λ) by the exponential mechanism
    with score −(zero-one training error at margin 0) and sensitivity 1/m, and
    release w = Φᵀw̃.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 (pure DP).
    margin : float, default=0.5
        The public margin ρ > 0 (sets the cover scale ρ/(10r)).
    norm_bound : float, default=1.0
        Λ, the norm of the comparator class B^d(Λ).
    data_norm : float, default=1.0
        r, the public row-norm bound (enters the cover scale; privacy holds for
        any row norm). Rows are projected onto B^d(r) before the JL map.
    n_components : int or "theory", default=2
        k. ``"theory"`` uses Algorithm 1's k = ⌈c′Λ²r² ln(m/β)/ρ²⌉ (with
        c′ = ``jl_constant``), whose cover is almost always too large to build.
    jl_constant : float, default=1.0
        c′ for ``n_components="theory"``.
    candidates : {"grid", "random"}, default="grid"
        ``"grid"``: the cubic lattice of spacing 2γ/√k inside B^k(2Λ + γ), an
        exact γ-cover of B^k(2Λ) with γ = ρ/(10r); ``"random"``:
        ``n_candidates`` points uniform in B^k(2Λ) (no covering guarantee; the
        empirical covering radius is reported).
    n_candidates : int, default=10000
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
    coef_ : ndarray of shape (n_features_in_,)
        w = Φᵀw̃, the released weights on the input features.
    compressed_coef_ : ndarray of shape (n_components_,)
        w̃, the private solution in the k-dimensional JL space.
    intercept_ : float or ndarray of shape (n_classes,)
        The intercept (0 without ``fit_intercept``).
    estimators_ : list of estimators
        With more than 2 classes only: the K binary one-vs-rest learners (each
        fitted at (ε/K, δ/K) on the augmented rows; see their attributes);
        ``coef_`` then has one row per class.
    projection_ : RademacherJL
        The fitted JL map (public).
    n_components_ : int
        The dimension k used.
    theory_n_components_ : int
        Algorithm 1's k for this m (c′ = ``jl_constant``), for comparison.
    jl_distortion_ : float
        The JL distortion ε_J that k guarantees with probability ≥ 1 − β
        (:func:`~dpsvm.margins.bounds.jl_distortion`; 0 for the identity,
        ``inf`` when k is too small for any guarantee).
    n_candidates_ : int
        |C|.
    covering_radius_ : float
        γ for the grid; an empirical (probe-based) estimate for random sets.
    theorem_applies_ : bool
        Whether the set is a ρ/(10r)-cover and k ≥ the theory value, so that
        the utility of Thm 3.1 is claimed (up to c′).
    privacy_event_ : PrivacyEvent
        Pure ε-DP exponential-mechanism event.
    classes_ : ndarray of shape (2,)
        The labels.
    n_features_in_ : int
        Input width.

    Notes
    -----
    **Privacy.** ε-DP (pure) under replace-one neighbours, for any row norms
    (Bassily, Mohri & Suresh 2022, Thm 3.1): Φ and C are independent of the
    data, and the score (number of errors)/m moves by at most 1/m. Released:
    w (and Φ, whose seed is public). The EM is sampled in float64 (Gumbel-max),
    not an exactly discretized sampler.

    **Utility.** Thm 3.1's guarantee needs k at Algorithm 1's value and an
    exact ρ/(10r)-cover of B^k(2Λ); the cover then has about (1 + 40Λr/ρ)^k
    points (10^372 for m = 10⁴, Λr/ρ = 4), so the size is computed first and
    refused if above ``max_candidates``. With a small user k the privacy is
    unchanged but the theorem does not apply (``theorem_applies_``). Never
    build candidates from the private data (e.g. from a non-private SVM).

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), Alg. 1, Thm 3.1.
    .. [2] F. McSherry, K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 5)); X /= np.linalg.norm(X, axis=1)[:, None]
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = JLExponentialMarginClassifier(epsilon=4.0, n_components=2,
    ...     classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.privacy_event_.epsilon, clf.privacy_event_.delta
    (4.0, 0.0)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **COMMON_CONSTRAINTS,
        "n_components": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"theory"}),
        ],
        **CANDIDATE_CONSTRAINTS,
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
        n_components: int | str = 2,
        jl_constant: float = 1.0,
        candidates: str = "grid",
        n_candidates: int = 10000,
        max_candidates: int = 200000,
        selection: str = "exponential",
        beta: float = 0.05,
        accountant: BudgetAccountant | None = None,
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

    def _fit_binary(self, Xv: Any, ys: FloatArray, labels: ArrayLike) -> None:
        m, d = Xv.shape
        theory_k = jl_em_dimension(
            m, self.beta, self.norm_bound, self.data_norm, self.margin, self.jl_constant
        )
        k = theory_k if self.n_components == "theory" else int(self.n_components)
        k = min(k, d)
        gamma = self.margin / (10.0 * self.data_norm)
        where = (
            f"n_components='theory' (k={k}, Algorithm 1's value for this n_samples)"
            if self.n_components == "theory"
            else f"k={k}, theory value {theory_k}"
        )
        self._check_cover(
            [(k,)],
            2.0 * self.norm_bound,
            gamma,
            describe="exact cover of B^k(2*norm_bound) at scale "
            f"margin/(10*data_norm) ({where})",
            remedy="Lower n_components, or raise margin (or lower "
            "norm_bound*data_norm).",
        )
        gen, public_seed = split_random_state(self.random_state)
        proj = RademacherJL(k, random_state=public_seed).fit(Xv[:1])
        # Bounded before mapped: rows onto B^d(r) before Φ, so that no entry of
        # Φx overflows (a positive rescaling: no training sign changes).
        Z = proj.transform(Xv if proj.identity_ else rows_in_ball(Xv, self.data_norm))
        self.projection_ = proj
        self.n_components_ = proj.n_components_
        self.jl_distortion_ = 0.0 if proj.identity_ else jl_distortion(k, m, self.beta)
        (w_tilde,) = self._select_candidate(
            [(k,)],
            2.0 * self.norm_bound,
            gamma,
            public=np.random.default_rng(public_seed),
            remedy="lower n_components or raise margin.",
            scores=lambda w: w[0] @ Z.T,
            chunk=_linear_chunk(Z),
            y=ys,
            random_state=gen,
            theory_k=theory_k,
            reaches_theory=k >= theory_k or proj.identity_,
            mechanism="jl-exponential-mechanism",
            reference=f"{REFERENCE}, Alg. 1 and Thm 3.1",
            details={"n_components": self.n_components_},
            # Looked up here so that an audit can substitute a flawed variant.
        )
        self.compressed_coef_ = w_tilde.copy()
        self.coef_ = proj.adjoint_transform(self.compressed_coef_)


class JLMarginClassifier(MarginClassifierBase):
    """(ε, δ)-DP linear classifier: fast JL projection + private ERM on the ρ-hinge.

    Algorithm 2 (A_EffPrivMrg) of Bassily, Mohri & Suresh (2022): project the rows
    with a data-independent JL map to k dimensions, project each onto B^k(2r),
    privately minimize the ρ-hinge over B^k(2Λ), and release w = Φᵀw̃.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0.
    delta : float or "auto", default="auto"
        δ ∈ (0, 1/n_samples); ``"auto"``: n^−1.5 of the public row count
        (:func:`dpsvm.validation.resolve_delta`), recorded in the event.
    margin : float, default=0.5
        The public margin ρ > 0 of the ρ-hinge.
    norm_bound : float, default=1.0
        Λ; the ERM domain is B^k(2Λ) (B^k(Λ) when Φ is the identity: no JL
        distortion to absorb).
    data_norm : float, default=1.0
        r; rows are projected onto B^d(r) before the JL map and the projected
        rows are clipped to B^k(2r) (required for privacy; B^k(r) when Φ is the
        identity).
    n_components : int or "auto", default="auto"
        k; ``"auto"`` is Algorithm 2's k = ⌈εm ln(m/β)/(ln^{3/2}(1/δ) ln(1/β))⌉.
        The identity is used when k ≥ n_features.
    projection : {"fast", "rademacher"}, default="fast"
        Subsampled randomized DCT (O(d log d) per row) or dense Rademacher.
    solver : {"noisy-gd", "phased-sgd", "boosted-phased-sgd"}, default="noisy-gd"
        ``"boosted-phased-sgd"`` is the paper's Algorithm 5 (M bootstrap runs of
        the reconstructed phased SGD plus a private choice, Lemma 3.1);
        ``"phased-sgd"`` a single run at (ε, δ); ``"noisy-gd"`` full-batch
        noisy projected gradient descent with Rényi-DP accounting. See Notes.
    max_iter : int, default=200
        Gradient steps of ``"noisy-gd"``.
    beta : float, default=0.05
        β of k and of Algorithm 5 (M = ⌈ln(2/β)⌉).
    classes : array-like of 2 labels, default=None
        The public label set; ``None`` reads it from the data and emits a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    accountant : BudgetAccountant or None, default=None
        Budget to check before the data are read and charge after a successful
        fit. Shared by clones (it is not copied).
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).
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
    coef_ : ndarray of shape (n_features_in_,)
        w = Φᵀw̃, the released weights on the input features.
    compressed_coef_ : ndarray of shape (n_components_,)
        w̃, the private solution in the k-dimensional JL space.
    intercept_ : float or ndarray of shape (n_classes,)
        The intercept (0 without ``fit_intercept``).
    estimators_ : list of estimators
        With more than 2 classes only: the K binary one-vs-rest learners (each
        fitted at (ε/K, δ/K) on the augmented rows; see their attributes);
        ``coef_`` then has one row per class.
    projection_ : FastJL or RademacherJL
        The fitted JL map (public).
    n_components_ : int
        k used.
    jl_distortion_ : float
        The distortion ε_J that a Rademacher map of this k guarantees (0 for
        the identity, ``inf`` if none); the fast JL needs a larger k by log
        factors (Lemma A.4).
    guarantee_ : str
        Which guarantee the fit delivers (see Notes).
    n_iter_ : int
        Gradient steps (``"noisy-gd"``) or SGD phases of the (selected) run.
    privacy_event_ : PrivacyEvent
        The (ε, δ) event of the solver.
    classes_ : ndarray of shape (2,)
        The labels.
    n_features_in_ : int
        Input width.

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one neighbours with every solver: Φ
    is data-independent and every projected row is clipped to B^k(2r) (B^k(r)
    when Φ = I, k ≥ d), so each per-example gradient of the ρ-hinge has norm
    ≤ 2r/ρ (r/ρ) whatever the data.

    * ``"boosted-phased-sgd"`` — Algorithm 5 with Lemma 3.1's guarantee (in
      high probability on the empirical ρ-hinge; Thm 3.2 then bounds the
      risk), with the corrected selection sensitivity (1 + 4Λr/ρ)/m; needs
      δ < 1/m and ε ≤ ln(1/δ). Its internal ε′ ≈ ε/(4M ln(2M/δ)) is tiny, so it
      is accurate only for very large m.
    * ``"phased-sgd"`` — substitute: the same oracle once on all data at
      (ε, δ); a DP-SCO guarantee in expectation, not the paper's
      high-probability ERM bound.
    * ``"noisy-gd"`` — substitute: noisy projected GD (Bassily, Smith &
      Thakurta 2014, Alg. 1) with the replace-one sensitivity 2·(2r/ρ)/m of
      the mean gradient and an RDP accountant (dp-accounting); no utility
      theorem of the paper applies.

    All solvers require δ < 1/m (Lemma 3.1). Released: w and Φ.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), Alg. 2, Alg. 5,
       Lemma 3.1, Thm 3.2.
    .. [2] R. Bassily, A. Smith, A. Thakurta, "Private empirical risk
       minimization: efficient algorithms and tight error bounds", FOCS 2014.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 50)); X /= np.linalg.norm(X, axis=1)[:, None]
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = JLMarginClassifier(epsilon=1.0, delta=1e-4, n_components=10,
    ...     classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.coef_.shape, clf.privacy_event_.delta
    ((50,), 0.0001)
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **COMMON_CONSTRAINTS,
        **JL_ERM_CONSTRAINTS,
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
        delta: float | str = "auto",
        n_components: int | str = "auto",
        projection: str = "fast",
        solver: str = "noisy-gd",
        max_iter: int = 200,
        beta: float = 0.05,
        accountant: BudgetAccountant | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.margin = margin
        self.norm_bound = norm_bound
        self.data_norm = data_norm
        self.classes = classes
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.delta = delta
        self.n_components = n_components
        self.projection = projection
        self.solver = solver
        self.max_iter = max_iter
        self.beta = beta
        self.accountant = accountant

    _GUARANTEES: ClassVar[dict[str, str]] = {
        "boosted-phased-sgd": "Lemma 3.1 / Thm 3.2 (paper construction: Alg. 2, 5)",
        "phased-sgd": "substitute: single phased-SGD run (DP-SCO, in expectation)",
        "noisy-gd": "substitute: noisy projected GD with RDP accounting (no utility "
        "theorem of the paper)",
    }

    def _fit_binary(self, Xv: Any, ys: FloatArray, labels: ArrayLike) -> None:
        m = Xv.shape[0]
        # Refused before the data are projected (the solvers check again).
        delta = _check_delta(self.delta, m, strict=True)  # "auto": n^-1.5
        if self.solver == "boosted-phased-sgd":
            _check_boosting_epsilon(self.epsilon, delta)
        k = (
            jl_erm_dimension(m, self.epsilon, delta, self.beta)
            if self.n_components == "auto"
            else int(self.n_components)
        )
        gen, public_seed = split_random_state(self.random_state)
        cls = FastJL if self.projection == "fast" else RademacherJL
        proj = cls(k, random_state=public_seed).fit(Xv[:1])
        # Bounded before mapped: rows onto Alg. 2's input ball B^d(r) before Φ
        # (overflow-safe, so no entry of Φx is inf and no inf·0 is NaN) ...
        Xb = Xv if proj.identity_ else rows_in_ball(Xv, self.data_norm)
        # ... Alg. 2 steps 3-4 double r and Λ to absorb the JL distortion (Lemma
        # A.3: ‖Φx‖ and ‖Φw*‖ may exceed ‖x‖ and ‖w*‖); with Φ = I there is
        # none, so the exact radii r and Λ are used.
        slack = 1.0 if proj.identity_ else 2.0
        # Alg. 2 step 3: clip the projected rows to B^k(2r) — required for privacy.
        r_tilde = slack * self.data_norm
        Z = project_rows_to_ball(proj.transform(Xb), r_tilde)
        radius = slack * self.norm_bound  # Alg. 2 step 4: ERM over B^k(2Λ)
        # The solvers' shared arguments: the ball B^k(2Λ), the clipped row
        # norm 2r and the whole (ε, δ) budget.
        common: dict[str, Any] = {
            "radius": radius,
            "data_norm": r_tilde,
            "epsilon": self.epsilon,
            "delta": delta,
            "random_state": gen,
        }
        if self.solver == "noisy-gd":
            res = noisy_projected_gd(
                Z,
                ys,
                loss=RhoHingeLoss(self.margin),
                n_steps=self.max_iter,
                **common,
            )
        elif self.solver == "phased-sgd":
            res = phased_sgd(Z, ys, rho=self.margin, **common)
        else:
            res = boosted_phased_sgd(Z, ys, rho=self.margin, beta=self.beta, **common)
        self.projection_ = proj
        self.n_components_ = proj.n_components_
        self.jl_distortion_ = (
            0.0 if proj.identity_ else jl_distortion(proj.n_components_, m, self.beta)
        )
        self.n_iter_ = int(res.details.get("n_steps", 1))
        self.compressed_coef_ = res.coef
        self.coef_ = proj.adjoint_transform(res.coef)
        self.guarantee_ = self._GUARANTEES[self.solver]
        # Φᵀw̃ (and the public map) is post-processing of the solver's release.
        self._set_post_processed_event(
            "jl-margin-erm",
            res.privacy_event,
            "Alg. 2 and Thm 3.2",
            {
                "solver": self.solver,
                "guarantee": self.guarantee_,
                "n_components": self.n_components_,
                "projection": self.projection,
            },
        )
