# SPDX-License-Identifier: BSD-3-Clause
"""(ε, δ)-DP kernel margin learner: random features + Algorithm 2 (A_PrivKerMrg).

Bassily, Mohri & Suresh (2022), Algorithm 3: map every row through a
data-independent random Fourier feature map ψ̂ (eq. (2), ‖ψ̂(x)‖ = r = √K(x, x)),
then run the efficient JL learner (Algorithm 2) on the mapped sample with the
norm bound 2Λ and confidence β/2. For polynomial kernels the exact feature map of
(⟨x, x′⟩ + c)^p replaces ψ̂ and the feature radius is (R² + c)^{p/2} (Sec. 4).

The paper's D = m²·ln(2m/β) frequencies (1.3·10⁹ for m = 10⁴) are available as
``n_random_features="paper"`` but never the default; with a large D the map is
streamed: Φψ̂(x) = Σ_c Φ_c ψ̂_c(x) over chunks c of frequencies, each chunk's
frequencies and Rademacher block regenerated from a public seed, so neither the
n × 2D feature matrix nor the k × 2D projection is ever held in memory.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .._compat import Interval, StrOptions
from ..kernels import (
    SHIFT_INVARIANT_KERNELS,
    PolynomialFeatureMap,
    RandomFourierFeatures,
    polynomial_feature_norm_bound,
    reject_string_gamma,
)
from ._base import (
    COMMON_CONSTRAINTS,
    JL_ERM_CONSTRAINTS,
    FloatArray,
    MarginClassifierBase,
    child_seed,
    split_random_state,
)
from .bounds import (
    jl_erm_dimension,
    rff_approximation_penalty,
    rff_dimension,
    rff_norm_inflation,
)
from .erm import _check_delta
from .linear import JLMarginClassifier
from .projections import RademacherJL

__all__ = ["KernelMarginClassifier"]

#: Largest n × 2D feature matrix (in float64 values) that ``feature_mode="auto"``
#: materialises (256 MiB); beyond it the map is streamed.
_MATERIALIZE_VALUES = 1 << 25
#: Rows per block when streaming.
_STREAM_ROWS = 1024


class _StreamedFeatures:
    """Φψ̂(x) for a random Fourier map and a Rademacher Φ, chunk by chunk.

    Chunk c holds ``sizes[c]`` frequencies; its frequencies and its k × 2D_c
    Rademacher block (entries ±1/√k) are regenerated from ``seeds[c]``, so that
    the concatenated blocks form one k × 2D Rademacher matrix and the scaled
    chunk maps form ψ̂ with D frequencies in total.
    """

    def __init__(
        self,
        kernel: str,
        gamma: float,
        n_features: int,
        n_components: int,
        chunk: int,
        seed: int,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_features = n_features  # D
        self.k = n_components
        # Every chunk has ≥ chunk ≥ k frequencies (the remainder joins the last
        # chunk), so each Rademacher block k × 2D_c has 2D_c > k and is a real
        # block of Φ, never RademacherJL's identity fallback.
        sizes = [chunk] * max(1, n_features // chunk)
        sizes[-1] += n_features - sum(sizes)
        self.sizes = sizes
        self.seeds = np.random.SeedSequence(seed).generate_state(len(sizes) * 2)

    def transform(self, X: FloatArray) -> FloatArray:
        out = np.zeros((X.shape[0], self.k))
        probe = X[:1]
        for c, size in enumerate(self.sizes):
            rff = RandomFourierFeatures(
                self.kernel,
                self.gamma,
                size,
                random_state=int(self.seeds[2 * c]),
            ).fit(probe)
            proj = RademacherJL(self.k, random_state=int(self.seeds[2 * c + 1]))
            proj.fit(np.zeros((1, 2 * size)))
            # RandomFourierFeatures scales by D_c^{−1/2}; ψ̂ of eq. (2) uses D^{−1/2}.
            scale = math.sqrt(size / self.n_features)
            for s in range(0, X.shape[0], _STREAM_ROWS):
                block = rff.transform(X[s : s + _STREAM_ROWS]) * scale
                out[s : s + _STREAM_ROWS] += proj.transform(block)
        return out


class KernelMarginClassifier(MarginClassifierBase):
    """(ε, δ)-DP kernel classifier with margin guarantees (Algorithm 3).

    Random Fourier features ψ̂ (or the exact polynomial feature map) followed by
    the JL + private-ERM learner :class:`~dpsvm.margins.JLMarginClassifier`
    (Algorithm 2) on the mapped rows.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the whole fit.
    delta : float or "auto", default="auto"
        δ ∈ (0, 1/n_samples) (Lemma 3.1; Thm 4.2 does not lift it); ``"auto"``:
        n^−1.5 of the public row count, recorded in the event.
    margin : float, default=0.5
        The public margin ρ ∈ (0, 2Λr] of the ρ-hinge.
    norm_bound : float, default=1.0
        Λ, the bound on the RKHS norm of the comparator ‖h‖_ℍ ≤ Λ.
    data_norm : float, default=1.0
        Public bound R on ‖x‖₂ for ``kernel="poly"`` (rows are projected onto
        that ball); the feature radius is then (R² + c)^{p/2}. Unused by the
        shift-invariant kernels, whose feature radius is r = √K(x, x) = 1.
    kernel : {"rbf", "gaussian", "laplacian", "cauchy", "poly"}, default="rbf"
        ``"rbf"``: exp(−γ‖x − x′‖²); ``"laplacian"``: exp(−γ‖x − x′‖₁);
        ``"cauchy"``: ∏ 1/(1 + γ(xᵢ − xᵢ′)²); ``"poly"``: (⟨x, x′⟩ + c)^p with
        its exact feature map (C(d + p, p) columns).
    gamma : float, default=1.0
        Public bandwidth γ > 0 (never estimated from the data).
    degree : int, default=2
        p for ``"poly"``.
    coef0 : float, default=1.0
        c ≥ 0 for ``"poly"``.
    n_random_features : int or "paper", default=1000
        D, the number of random frequencies (2D features). ``"paper"``:
        Algorithm 3's D = ⌈m²·ln(2m/β)⌉, which is streamed and very slow for
        any real m. Privacy does not depend on D; only the utility does (see
        ``approximation_penalty_``).
    n_components : int or "auto", default="auto"
        The JL dimension k of Algorithm 2; ``"auto"``:
        k = ⌈εm ln(2m/β)/(ln^{3/2}(1/δ) ln(2/β))⌉ (Algorithm 2 with β/2).
    norm_scaling : {"paper", "inflated"}, default="paper"
        Norm bound handed to Algorithm 2. ``"paper"``: 2Λ (Algorithm 3 step 5;
        the ERM ball is then B^k(4Λ), or B(2Λ) when Φ = I). ``"inflated"``:
        Λ·max(2, √(1 + (m/2)√(ln(2m/β)/D))), the bound that the proof of
        Thm 4.2 gives on the RFF image of the comparator when D is below the
        paper's value (it is ≤ 2Λ at the paper's D). Both are private.
    projection : {"fast", "rademacher"}, default="fast"
        JL construction of Algorithm 2 when the features are materialised (a
        streamed map always uses chunked Rademacher blocks).
    solver : {"noisy-gd", "phased-sgd", "boosted-phased-sgd"}, default="noisy-gd"
        The private ERM of Algorithm 2 (see
        :class:`~dpsvm.margins.JLMarginClassifier`).
    max_iter : int, default=200
        Steps of ``"noisy-gd"``.
    beta : float, default=0.05
        β of Algorithm 3 (Algorithm 2 receives β/2).
    feature_mode : {"auto", "materialize", "stream"}, default="auto"
        ``"materialize"`` holds the n × 2D feature matrix; ``"stream"`` computes
        Φψ̂(x) chunk by chunk (a Rademacher Φ); ``"auto"`` streams when n × 2D
        exceeds 2²⁵ values (and for the paper's D).
    chunk_size : int, default=4096
        Frequencies per streamed chunk (raised to k when smaller, so that each
        Rademacher block is a genuine k × 2D_c block).
    classes : array-like of 2 labels, default=None
        The public label set; ``None`` reads it from the data and emits a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    fit_intercept : bool, default=False
        Only ``False``: the kernel models are bias-free. A constant input
        coordinate is invisible to a shift-invariant kernel (and only shifts
        ``coef0`` of ``"poly"``), so ``True`` is refused; use ``"poly"`` with
        ``coef0 > 0`` for an affine term.
    intercept_scaling : float, default=0.5
        Unused (see ``fit_intercept``).
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG for the noise (real releases); an int
        makes the fit reproducible — **for tests and documentation only**. The
        frequencies and JL matrices (data-independent) are drawn from a public
        seed taken from it before the data are read. A generator object is
        refused at ``fit`` (kept as a parameter, it would replay the noise).

    Attributes
    ----------
    estimators_ : list of KernelMarginClassifier
        With more than 2 classes only: the K binary one-vs-rest learners, each
        fitted at (ε/K, δ/K).
    estimator_ : JLMarginClassifier
        The fitted Algorithm 2 learner on the mapped rows.
    n_iter_ : int
        Steps of the private solver (``estimator_.n_iter_``).
    feature_map_ : RandomFourierFeatures, PolynomialFeatureMap or None
        The materialised feature map (``None`` when streamed).
    n_random_features_ : int
        D used (0 for ``"poly"``).
    kernel_radius_ : float
        r = √K(x, x): 1 for the shift-invariant kernels, (R² + c)^{p/2} for
        ``"poly"``.
    streamed_ : bool
        Whether the map was streamed.
    inner_norm_bound_ : float
        The norm bound handed to Algorithm 2.
    approximation_penalty_ : float
        Λr√m·√(ln(2m/β)/D)/ρ: the extra ρ-hinge loss that D frequencies may cost
        the comparator (proof of Thm 4.2, eq. (19) and Fact C.1); 0 for
        ``"poly"`` (exact map). Public: a function of (m, D, β, Λ, r, ρ).
    norm_inflation_ : float
        √(1 + (m/2)·√(ln(2m/β)/D)) (1 for ``"poly"``).
    coef_ : ndarray
        w = Φᵀw̃ in the feature space (materialised maps only; streamed fits
        keep w̃ in ``estimator_.compressed_coef_``).
    privacy_event_ : PrivacyEvent
        The (ε, δ) event (its child is Algorithm 2's event).
    classes_ : ndarray of shape (2,)
        The labels.
    n_features_in_ : int
        Input width.

    See Also
    --------
    dpsvm.margins.JLMarginClassifier : Algorithm 2 on the raw features.
    dpsvm.models.DPKernelSVC : Output/objective perturbation on random features.

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one neighbours (Theorem 4.2): the
    feature map (frequencies, or the polynomial monomials) and the JL matrix
    are drawn independently of the data, so the fit is Algorithm 2 — (ε, δ)-DP
    whatever the rows, since it clips the projected rows to B^k(2r) — applied
    to a fixed per-row map of the data. This holds for every D, bandwidth and
    kernel chosen without looking at the data. The guarantee also needs
    δ < 1/m (and ε ≤ ln(1/δ) for the paper's boosted solver), enforced. The
    released model is w̃ (or w = Φᵀw̃) together with the frequencies or their
    seeds.

    **Utility.** Thm 4.2 bounds the risk by the kernel ρ-hinge loss plus
    O(√(ln(1/β)/m) + (Λr/ρ)(1/√m + √(ln(m/β) ln(1/β)) ln^{3/4}(1/δ)/√(εm))) at
    the paper's D. With a smaller D add ``approximation_penalty_`` and use
    ``norm_scaling="inflated"`` for the comparator to stay in the ERM ball; the
    substitute solvers carry the caveats of
    :class:`~dpsvm.margins.JLMarginClassifier`.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), Algorithm 3,
       eq. (2), Theorems 4.1 and 4.2, Sec. 4 (polynomial kernels).
    .. [2] A. Rahimi, B. Recht, "Random features for large-scale kernel
       machines", NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.margins import KernelMarginClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(400, 2)) / 2
    >>> y = np.where(np.linalg.norm(X, axis=1) < 0.35, 1, -1)
    >>> clf = KernelMarginClassifier(epsilon=2.0, delta=1e-3, gamma=4.0,
    ...     n_random_features=100, margin=0.2, classes=[-1, 1],
    ...     random_state=0).fit(X, y)
    >>> clf.privacy_event_.epsilon <= 2.0, clf.n_random_features_
    (True, 100)
    """

    _accept_sparse = False  # the feature maps take dense rows

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **COMMON_CONSTRAINTS,
        **JL_ERM_CONSTRAINTS,
        "kernel": [StrOptions({*SHIFT_INVARIANT_KERNELS, "poly"})],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "n_random_features": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"paper"}),
        ],
        "norm_scaling": [StrOptions({"paper", "inflated"})],
        "feature_mode": [StrOptions({"auto", "materialize", "stream"})],
        "chunk_size": [Interval(Integral, 1, None, closed="left")],
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
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        coef0: float = 1.0,
        n_random_features: int | str = 1000,
        norm_scaling: str = "paper",
        feature_mode: str = "auto",
        chunk_size: int = 4096,
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
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_random_features = n_random_features
        self.norm_scaling = norm_scaling
        self.feature_mode = feature_mode
        self.chunk_size = chunk_size

    def _check_public_params(self) -> None:
        # A string gamma would be a data-dependent bandwidth: refused first.
        reject_string_gamma(self.gamma, type(self).__name__)
        if self.fit_intercept is True:
            raise ValueError(
                "KernelMarginClassifier is bias-free: a constant input coordinate "
                "does not change a shift-invariant kernel. Set fit_intercept=False "
                "(use kernel='poly' with coef0 > 0 for an affine term)."
            )

    def _fit_binary(self, Xv: Any, ys: FloatArray, labels: ArrayLike) -> None:
        Xv = np.asarray(Xv, dtype=np.float64)
        m, d = Xv.shape
        beta = float(self.beta)
        lam = float(self.norm_bound)
        delta = _check_delta(self.delta, m, needed_by=", needed by Thm 4.2")
        gen, public_seed = split_random_state(self.random_state)
        poly = self.kernel == "poly"
        if poly:
            D = 0
            # Sec. 4: Algorithm 2 on the exact map, r → (R² + c)^{p/2}.
            r = polynomial_feature_norm_bound(
                int(self.degree), float(self.coef0), float(self.data_norm)
            )
            inner_lam = lam
            penalty, inflation = 0.0, 1.0
        else:
            # Algorithm 3 step 2: D = ⌈m² ln(2m/β)⌉ only on request.
            D = (
                rff_dimension(m, beta)
                if self.n_random_features == "paper"
                else int(self.n_random_features)
            )
            r = 1.0  # ‖ψ̂(x)‖ = √K(x, x) = 1 for every x (eq. (2), Thm 4.1)
            penalty = rff_approximation_penalty(lam, r, float(self.margin), m, beta, D)
            inflation = rff_norm_inflation(m, beta, D)
            # Algorithm 3 step 5 passes 2Λ; the inflated bound is the proof's
            # ‖ŵ‖ ≤ Λ√(1 + (m/2)√(ln(2m/β)/D)) (Thm 4.2), never below 2Λ.
            inner_lam = (
                2.0 * lam if self.norm_scaling == "paper" else lam * max(2.0, inflation)
            )
        # Algorithm 3 step 5: Algorithm 2 with β/2 (hence k with β/2).
        k = (
            jl_erm_dimension(m, float(self.epsilon), delta, beta / 2.0)
            if self.n_components == "auto"
            else int(self.n_components)
        )
        stream = False
        if not poly and 2 * D > k:  # with 2D ≤ k Algorithm 2 needs no JL
            stream = self.feature_mode == "stream" or (
                self.feature_mode == "auto"
                and (
                    self.n_random_features == "paper"
                    or m * 2.0 * D > _MATERIALIZE_VALUES
                )
            )
        inner = JLMarginClassifier(
            epsilon=self.epsilon,
            delta=delta,
            margin=self.margin,
            norm_bound=inner_lam,
            data_norm=r,
            n_components=k,
            projection=self.projection,
            solver=self.solver,
            max_iter=self.max_iter,
            beta=beta / 2.0,
            classes=[-1.0, 1.0],
            # Never the generator itself: it would replay the noise if kept.
            random_state=child_seed(self.random_state, gen),
        )
        fmap: RandomFourierFeatures | PolynomialFeatureMap | None
        if stream:
            fmap = None
            streamer = _StreamedFeatures(
                self.kernel,
                float(self.gamma),
                D,
                k,
                max(int(self.chunk_size), k),
                public_seed,
            )
            Z = streamer.transform(Xv)  # Φψ̂(X), n × k; Algorithm 2 then uses Φ = I
            inner.set_params(n_components=Z.shape[1])
            self._streamer = streamer
        else:
            if poly:
                fmap = PolynomialFeatureMap(
                    int(self.degree), coef0=float(self.coef0), data_norm=self.data_norm
                )
            else:
                fmap = RandomFourierFeatures(
                    self.kernel, float(self.gamma), D, random_state=public_seed
                )
            Z = fmap.fit_transform(Xv)
        inner.fit(Z, ys)
        self.estimator_ = inner
        self.n_iter_ = inner.n_iter_
        self.feature_map_ = fmap
        self.streamed_ = stream
        self.n_random_features_ = D
        self.kernel_radius_ = r
        self.inner_norm_bound_ = inner_lam
        self.approximation_penalty_ = penalty
        self.norm_inflation_ = inflation
        if not stream:
            self.coef_ = inner.coef_
        # Algorithm 2 on a data-independent feature map: its (ε, δ) (Thm 4.2).
        self._set_post_processed_event(
            "kernel-margin-erm",
            inner.privacy_event_,
            "Alg. 3 and Thm 4.2",
            {
                "kernel": self.kernel,
                "gamma": float(self.gamma),
                "n_random_features": D,
                "streamed": stream,
                "kernel_radius": r,
                "inner_norm_bound": inner_lam,
                "n_samples": m,
                "n_features": d,
            },
        )

    def _features(self, X: FloatArray) -> FloatArray:
        if self.streamed_:
            return self._streamer.transform(X)
        assert self.feature_map_ is not None
        return np.asarray(self.feature_map_.transform(X), dtype=np.float64)

    def _scores(self, Xv: Any) -> FloatArray:
        """Scores ⟨w̃, Φψ̂(x)⟩ of validated rows."""
        return np.asarray(
            self.estimator_.decision_function(self._features(Xv)), dtype=np.float64
        )
