# SPDX-License-Identifier: BSD-3-Clause
"""Shared estimator machinery of the margin learners: binary labels, seeds, tags."""

from __future__ import annotations

import dataclasses
import math
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, validate_data
from ..accounting import BudgetAccountant, PrivacyEvent
from ..accounting.accountant import resolve_accountant
from ..accounting.charge import charge
from ..models.base import (
    ScorePredictMixin,
    fit_one_vs_rest,
    one_vs_rest_targets,
    resolve_label_set,
)
from ..solvers import clip_factors, row_norms
from ..utils._random import check_random_state, random_state_constraint
from ..validation import n_rows, resolve_delta
from .projections import project_to_ball
from .selection import private_argmax

FloatArray = NDArray[np.float64]

#: Constraints shared by every margin learner.
COMMON_CONSTRAINTS: dict[str, list[Any]] = {
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "margin": [Interval(Real, 0, None, closed="neither")],
    "norm_bound": [Interval(Real, 0, None, closed="neither")],
    "data_norm": [Interval(Real, 0, None, closed="neither")],
    "classes": ["array-like", None],
    "accountant": [BudgetAccountant, None],
    "random_state": random_state_constraint(),
    "fit_intercept": ["boolean"],
    "intercept_scaling": [Interval(Real, 0, 1, closed="neither")],
}


#: Constraints of the learners that select from a finite candidate set.
CANDIDATE_CONSTRAINTS: dict[str, list[Any]] = {
    "jl_constant": [Interval(Real, 0, None, closed="neither")],
    "candidates": [StrOptions({"grid", "random"})],
    "n_candidates": [Interval(Integral, 1, None, closed="left")],
    "max_candidates": [Interval(Integral, 1, None, closed="left")],
    "selection": [StrOptions({"exponential", "permute-and-flip"})],
    "beta": [Interval(Real, 0, 1, closed="neither")],
}


#: Constraints of the (ε, δ) JL + private-ERM learners (Alg. 2 and Alg. 3) beyond
#: :data:`COMMON_CONSTRAINTS`.
JL_ERM_CONSTRAINTS: dict[str, list[Any]] = {
    "delta": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
    "n_components": [
        Interval(Integral, 1, None, closed="left"),
        StrOptions({"auto"}),
    ],
    "projection": [StrOptions({"fast", "rademacher"})],
    "solver": [StrOptions({"noisy-gd", "phased-sgd", "boosted-phased-sgd"})],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "beta": [Interval(Real, 0, 1, closed="neither")],
}


REFERENCE = (
    "Bassily, Mohri & Suresh (2022), 'Differentially private learning with margin "
    "guarantees', NeurIPS, arXiv:2204.10376"
)


def split_random_state(random_state: Any) -> tuple[np.random.Generator, int]:
    """Return (privacy generator, public seed for data-independent draws).

    The privacy generator is a CSPRNG unless an int or Generator is passed; the
    public seed (JL matrices, candidate sets) is an int drawn from it before the
    data are read. Fitted objects may keep the public seed (it protects
    nothing) but never the generator.
    """
    gen = check_random_state(random_state)
    return gen, int(gen.integers(0, 2**32))


def child_seed(random_state: Any, gen: np.random.Generator) -> int | None:
    """``random_state`` for a sub-estimator that is kept after the fit.

    ``None`` stays ``None`` (the sub-estimator draws its own CSPRNG); an int or
    Generator becomes an int drawn from ``gen``, so that no generator is kept.
    """
    return None if random_state is None else int(gen.integers(0, 2**32))


def log_ball_volume(dim: int, radius: float) -> float:
    """ln of the volume of the Euclidean ball of ``radius`` in ℝ^dim."""
    return (
        0.5 * dim * math.log(math.pi)
        - float(gammaln(0.5 * dim + 1))
        + dim * math.log(radius)
    )


def ball_grid_log_size(dim: int, radius: float, spacing: float) -> tuple[float, float]:
    """(ln of the cube-grid size, ln of the volume estimate of the in-ball count)."""
    per_axis = 2 * math.floor(radius / spacing) + 1
    return dim * math.log(per_axis), log_ball_volume(dim, radius) - dim * math.log(
        spacing
    )


def check_cover_size(
    dims: list[int],
    radius: float,
    spacing: float,
    max_candidates: int,
    *,
    describe: str,
    remedy: str,
) -> None:
    """Refuse a product of lattice covers that would exceed ``max_candidates``.

    Each block is the lattice spacing·ℤ^dim inside the ball of ``radius``;
    enumerating it costs the cube's size, and its in-ball count is about the
    volume ratio, so the check runs on both (before any point is built). The
    message states the estimated size, what it covers and what to change.
    """
    logs = [ball_grid_log_size(dim, radius, spacing) for dim in dims]
    log_cube = sum(c for c, _ in logs)
    log_ball = sum(b for _, b in logs)
    limit = math.log(max_candidates)
    if log_ball > limit or log_cube > limit + math.log(20.0):
        raise ValueError(
            f"The {describe} has about 10^{log_ball / math.log(10):.1f} points, "
            f"more than max_candidates={max_candidates}. {remedy} Or raise "
            "max_candidates, or use candidates='random' (exact privacy, no "
            "covering guarantee)."
        )


def ball_grid(dim: int, radius: float, spacing: float) -> FloatArray:
    """All points of the cubic lattice spacing·ℤ^dim with norm ≤ ``radius``."""
    half = math.floor(radius / spacing)
    axis = spacing * np.arange(-half, half + 1, dtype=np.float64)
    mesh = np.meshgrid(*([axis] * dim), indexing="ij")
    pts = np.stack([g.ravel() for g in mesh], axis=1)
    return np.asarray(pts[np.einsum("ij,ij->i", pts, pts) <= radius**2])


def uniform_ball(
    gen: np.random.Generator, n: int, dim: int, radius: float
) -> FloatArray:
    """``n`` points uniform in the ball of ``radius`` in ℝ^dim."""
    g = gen.normal(size=(n, dim))
    g /= np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 1e-300)
    return np.asarray(g * (radius * gen.random(n) ** (1.0 / dim))[:, None])


def empirical_covering_radius(candidates: FloatArray, probes: FloatArray) -> float:
    """Largest distance from a probe to its nearest candidate.

    With probes drawn uniformly from the set to cover (independently of the
    data), this is a data-independent lower estimate of the covering radius.
    """
    n_probe = probes.shape[0]
    best = np.full(n_probe, np.inf)
    c2 = np.einsum("ij,ij->i", candidates, candidates)
    for start in range(0, candidates.shape[0], 4096):
        c = candidates[start : start + 4096]
        d2 = c2[start : start + 4096][None, :] - 2.0 * probes @ c.T
        best = np.minimum(best, d2.min(axis=1))
    p2 = np.einsum("ij,ij->i", probes, probes)
    return float(np.sqrt(max(0.0, float(np.max(best + p2)))))


def rows_in_ball(X: Any, radius: float) -> Any:
    """Project each row onto B(radius) (a public per-row map); sparse stays sparse.

    Dense rows use :func:`~dpsvm.margins.projections.project_to_ball`; sparse
    rows are scaled by :func:`dpsvm.solvers.clip_factors` (the same map as a
    per-row factor, without densifying), except rows whose ‖x‖² overflows:
    those alone are projected densely by the overflow-safe
    :func:`dpsvm.validation.project_rows_to_ball`.
    """
    if not sp.issparse(X):
        return project_to_ball(X, radius)
    X = sp.csr_matrix(X, dtype=np.float64)
    norms = row_norms(X)
    huge = np.flatnonzero(~np.isfinite(norms))
    if huge.size:
        norms[huge] = 0.0  # replaced below
    factors = clip_factors(norms, radius)
    if huge.size == 0:
        return X if factors is None else sp.diags(factors) @ X
    if factors is None:
        factors = np.ones(X.shape[0])
    factors[huge] = 0.0
    fixed = sp.csr_matrix(project_to_ball(X[huge].toarray(), radius))
    place = sp.csr_matrix(
        (np.ones(huge.size), (huge, np.arange(huge.size))),
        shape=(X.shape[0], huge.size),
    )
    out = sp.csr_matrix(sp.diags(factors) @ X + place @ fixed)
    out.eliminate_zeros()
    return out


class CandidateSet:
    """A data-independent finite candidate set, stored per weight block.

    ``product=True``: every combination of the blocks' rows (a product of
    lattice covers, indexed in mixed radix); ``product=False``: candidate i is
    row i of every block (independent random draws).
    """

    def __init__(
        self,
        blocks: list[FloatArray],
        shapes: list[tuple[int, ...]],
        *,
        product: bool,
        covering_radius: float,
    ) -> None:
        self.blocks = blocks
        self.shapes = shapes
        self.product = product
        self.covering_radius = covering_radius
        counts = [b.shape[0] for b in blocks]
        self.n_candidates = (
            int(np.prod(counts, dtype=np.float64)) if product else counts[0]
        )

    def take(self, idx: np.ndarray) -> list[FloatArray]:
        """The weight blocks of candidates ``idx``, each with a leading batch axis."""
        if not self.product:
            return [
                b[idx].reshape((-1, *shp))
                for b, shp in zip(self.blocks, self.shapes, strict=True)
            ]
        out, rest = [], idx
        for b, shp in zip(self.blocks[::-1], self.shapes[::-1], strict=True):
            out.append(b[rest % b.shape[0]].reshape((-1, *shp)))
            rest = rest // b.shape[0]
        return out[::-1]


def check_grid_cover(
    sizes: list[int],
    radius: float,
    gamma: float,
    max_candidates: int,
    *,
    describe: str,
    remedy: str,
) -> None:
    """Refuse a γ-cover of the product of balls B^s(radius) above ``max_candidates``.

    The cover is the lattice of spacing 2γ/√P (P = Σ sizes) inside
    B^s(radius + γ), block by block (:func:`check_cover_size`); checked from
    public values only, before any candidate is built.
    """
    spacing = 2.0 * gamma / math.sqrt(sum(sizes))
    check_cover_size(
        sizes,
        radius + gamma,
        spacing,
        max_candidates,
        describe=describe,
        remedy=remedy,
    )


def build_candidates(
    kind: str,
    shapes: list[tuple[int, ...]],
    radius: float,
    gamma: float,
    *,
    n_random: int,
    max_candidates: int,
    public: np.random.Generator,
    remedy: str,
) -> CandidateSet:
    """The candidate set of the pure-DP selection learners (no data read).

    ``kind="grid"``: per block, the lattice of spacing 2γ/√P inside
    B(radius + γ), an exact γ-cover of B(radius); the product is refused above
    ``max_candidates``. ``kind="random"``: ``n_random`` candidates with every
    block uniform in B(radius), drawn from the public generator, with a
    probe-based estimate of the covering radius.
    """
    sizes = [int(np.prod(s)) for s in shapes]
    if kind == "grid":
        spacing = 2.0 * gamma / math.sqrt(sum(sizes))
        grids = [ball_grid(s, radius + gamma, spacing) for s in sizes]
        cands = CandidateSet(grids, shapes, product=True, covering_radius=gamma)
        if cands.n_candidates > max_candidates:
            raise ValueError(
                f"The cover has {cands.n_candidates} points, more than "
                f"max_candidates={max_candidates}; {remedy}"
            )
        return cands
    flat = [uniform_ball(public, n_random, s, radius) for s in sizes]
    probes = np.hstack([uniform_ball(public, 2000, s, radius) for s in sizes])
    cover = empirical_covering_radius(np.hstack(flat), probes)
    return CandidateSet(flat, shapes, product=False, covering_radius=cover)


def count_candidate_errors(
    cands: CandidateSet,
    scores: Any,
    y: FloatArray,
    chunk: int,
) -> FloatArray:
    """#{i : yᵢ·h_c(xᵢ) ≤ 0} per candidate c (a tie is an error), ``chunk`` at once.

    ``scores(blocks)`` maps a batch of candidates (:meth:`CandidateSet.take`)
    to their (batch, n_samples) scores on the training rows.
    """
    n = cands.n_candidates
    errors = np.empty(n)
    for start in range(0, n, chunk):
        idx = np.arange(start, min(n, start + chunk))
        errors[idx] = np.count_nonzero(
            scores(cands.take(idx)) * y[None, :] <= 0.0, axis=1
        )
    return errors


def select_fewest_errors(
    errors: FloatArray,
    n_samples: int,
    *,
    epsilon: float,
    method: str,
    random_state: np.random.Generator,
    mechanism: str,
    reference: str,
    details: dict[str, Any],
) -> tuple[int, PrivacyEvent]:
    """Pure ε-DP choice of a candidate with few training errors, and its event.

    Bassily, Mohri & Suresh (2022), Alg. 1 step 5 and §5 step 5:
    P(c) ∝ exp(−(ε/2)·#errors(c)), i.e. utility −#errors/m with replace-one
    sensitivity 1/m (one replaced example changes each count by at most 1),
    drawn by :func:`~dpsvm.margins.selection.private_argmax`.
    """
    idx, em_event = private_argmax(
        -errors / n_samples,
        epsilon=epsilon,
        sensitivity=1.0 / n_samples,
        method=method,
        random_state=random_state,
    )
    event = PrivacyEvent(
        mechanism,
        epsilon,
        0.0,
        sensitivity=1.0 / n_samples,
        sensitivity_norm="utility",
        reference=reference,
        details={"selection": em_event.mechanism, **details},
    )
    return idx, event


def post_processed_event(
    mechanism: str,
    inner: PrivacyEvent,
    *,
    reference: str,
    details: dict[str, Any],
) -> PrivacyEvent:
    """The event of a release computed from ``inner``'s output and public values.

    Post-processing keeps ``inner``'s (ε, δ) (Dwork & Roth 2014, Prop. 2.1);
    ``inner`` is kept as the only child.
    """
    return PrivacyEvent(
        mechanism,
        inner.epsilon,
        inner.delta,
        reference=reference,
        details=details,
        children=(inner,),
    )


class MarginClassifierBase(ScorePredictMixin, ClassifierMixin, BaseEstimator):
    """Classifier plumbing: public label set, ±1 targets, one-vs-rest, intercept.

    Two labels: one binary release (``classes_[1]`` positive). K > 2 labels:
    one-vs-rest, K binary releases at (ε/K, δ/K) each, composed sequentially
    by :func:`dpsvm.models.base.fit_one_vs_rest` (the linear models' helper);
    the fitted binary learners are kept in ``estimators_``.

    ``fit_intercept``: every row is first projected onto B(√(r² − s²)) and
    then given the constant public coordinate s = ``intercept_scaling``·r, so
    the augmented rows still lie in B(r) (r = ``data_norm``): the learners'
    calibrations and the public bound r are unchanged, and the intercept's
    contribution to the row norm is at most s. The weight of the constant
    coordinate, times s, is ``intercept_``.
    """

    epsilon: float
    margin: float
    norm_bound: float
    data_norm: float
    beta: float
    classes: Any
    random_state: Any
    fit_intercept: bool
    intercept_scaling: float
    coef_: FloatArray
    intercept_: Any
    n_iter_: Any
    privacy_event_: PrivacyEvent
    _accept_sparse: bool = True

    def fit(self, X: ArrayLike, y: ArrayLike) -> Any:
        """Fit the private classifier (its guarantee: the class docstring).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Labels in ``classes``.

        Returns
        -------
        self
            The fitted classifier.

        Raises
        ------
        ValueError
            For labels outside the public label set, and for the public
            parameters the learner refuses (listed in its Notes), before the
            data are read where the check needs only public values.
        """
        self._check_public_params()
        self._validate_params()
        # dpsvm.accounting.charge: check now (before the data are read), spend
        # the released event once the model is computed.
        # δ = "auto" → n^-1.5 of the public row count; δ ≥ 1/n refused.
        delta = resolve_delta(
            getattr(self, "delta", 0.0),
            lambda: n_rows(X),
            needed_by=" (Bassily, Mohri & Suresh 2022, Lemma 3.1)",
        )
        plan = charge(
            resolve_accountant(getattr(self, "accountant", None)),
            self.epsilon,
            delta,
            owner=self,  # a refused spend puts the learner back as it was
        )
        Xv, targets = self._validate_targets(X, y)
        Xa = self._with_intercept_column(Xv)
        if len(targets) == 1:
            self.__dict__.pop("estimators_", None)
            self._fit_binary(Xa, targets[0], y)
            self._split_intercept(getattr(self, "coef_", None))
        else:
            self._fit_one_vs_rest(Xa, targets, delta)
        plan.spend(self.privacy_event_)
        return self

    def _check_public_params(self) -> None:
        """Refusals of public settings that must come before validation."""

    # -- intercept -------------------------------------------------------------
    def _intercept_coordinate(self) -> float:
        """s = ``intercept_scaling``·r, the public constant coordinate."""
        return float(self.intercept_scaling) * float(self.data_norm)

    def _with_intercept_column(self, X: Any) -> Any:
        """Rows [Π_{B(√(r² − s²))}(x), s] (norm ≤ r) when ``fit_intercept``.

        The projection is a public per-row map and comes before the learner's
        own projections and feature maps; sparse rows stay sparse.
        """
        if not self.fit_intercept:
            return X
        r, s = float(self.data_norm), self._intercept_coordinate()
        Xc = rows_in_ball(X, math.sqrt(r * r - s * s))
        const = np.full((X.shape[0], 1), s)
        if sp.issparse(Xc):
            return sp.hstack([Xc, sp.csr_matrix(const)], format="csr")
        return np.hstack([np.asarray(Xc), const])

    def _split_intercept(self, coef: Any) -> None:
        """Split released weights on the augmented rows into coef_, intercept_."""
        if coef is None:
            return
        W = np.asarray(coef, dtype=np.float64)
        if self.fit_intercept:
            self.coef_ = W[..., :-1]
            self.intercept_ = W[..., -1] * self._intercept_coordinate()
        else:
            self.intercept_ = np.zeros(W.shape[:-1]) if W.ndim > 1 else 0.0

    # -- one-vs-rest -----------------------------------------------------------
    def _fit_one_vs_rest(
        self, Xa: Any, targets: list[FloatArray], delta: float
    ) -> None:
        """K binary learners at (ε/K, δ/K), composed by ``fit_one_vs_rest``.

        ``delta`` is the whole fit's δ, resolved once from the public n (a
        clone given ``"auto"`` would resolve it again and spend K times it).
        """
        gen = check_random_state(self.random_state)
        fitted: list[Any] = []

        def fit_binary(
            yk: FloatArray, eps_k: float, delta_k: float
        ) -> tuple[FloatArray, PrivacyEvent, dict[str, Any]]:
            est = clone(self)
            params: dict[str, Any] = {
                "epsilon": eps_k,
                "classes": [-1.0, 1.0],
                "fit_intercept": False,  # the rows already carry the constant
                # Never hand the generator itself to a kept sub-estimator.
                "random_state": child_seed(self.random_state, gen),
            }
            available = est.get_params(deep=False)
            if "delta" in available:
                params["delta"] = delta_k
            if "accountant" in available:
                params["accountant"] = None  # charged once, for the whole fit
            est.set_params(**params)
            est.fit(Xa, yk)
            fitted.append(est)
            coef = getattr(est, "coef_", None)
            row = np.zeros(0) if coef is None else np.asarray(coef).ravel()
            return row, est.privacy_event_, {}

        W, event, _ = fit_one_vs_rest(
            fit_binary,
            targets,
            float(self.epsilon),
            float(delta),
            self.classes,
        )
        relation = event.children[0].neighbouring
        if relation != event.neighbouring:
            # Label-DP releases compose to a label-DP guarantee, never more.
            event = dataclasses.replace(event, neighbouring=relation)
        self.estimators_ = fitted
        self.privacy_event_ = event
        if all(hasattr(est, "n_iter_") for est in fitted):
            self.n_iter_ = np.array([est.n_iter_ for est in fitted])
        if W.shape[1]:
            self.coef_ = W
            self._split_intercept(W)

    def _set_post_processed_event(
        self,
        mechanism: str,
        inner: PrivacyEvent,
        source: str,
        details: dict[str, Any],
    ) -> None:
        """Set ``privacy_event_`` for a release computed from ``inner``'s output.

        The event is :func:`post_processed_event` of ``inner`` (same (ε, δ),
        Dwork & Roth 2014, Prop. 2.1), citing Bassily, Mohri & Suresh (2022) at
        ``source`` (e.g. ``"Alg. 2 and Thm 3.2"``), with ``details`` as its
        public facts.
        """
        self.privacy_event_ = post_processed_event(
            mechanism, inner, reference=f"{REFERENCE}, {source}", details=details
        )

    def _fit_binary(self, X: Any, y: FloatArray, labels: ArrayLike) -> None:
        """Fit on validated rows and ±1 targets; set ``privacy_event_``."""
        raise NotImplementedError

    def _validate_targets(
        self, X: ArrayLike, y: ArrayLike
    ) -> tuple[Any, list[FloatArray]]:
        """Validated rows and the ±1 targets (one problem, or one per class)."""
        Xv, yv = validate_data(
            self,
            X,
            y,
            accept_sparse=["csr", "csc"] if self._accept_sparse else False,
            dtype=np.float64,
        )
        yv = np.asarray(yv)
        check_classification_targets(yv)
        # Messages quote only public values (resolve_label_set): with
        # classes=None, y with one class gets "one class" (no more than the
        # refusal itself says), the wording scikit-learn's checks match.
        self.classes_ = resolve_label_set(self.classes, yv)
        return Xv, one_vs_rest_targets(yv, self.classes_)

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """Scores of the released model.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: one score (positive means ``classes_[1]``); more: one
            column per class (one-vs-rest), the largest wins.
        """
        Xa = self._with_intercept_column(self._validated_input(X))
        if "estimators_" in self.__dict__:
            return np.column_stack(
                [est.decision_function(Xa) for est in self.estimators_]
            )
        return np.asarray(self._scores(Xa), dtype=np.float64).ravel()

    def _scores(self, X: Any) -> Any:
        """Scores of validated (augmented) rows: ⟨w, x⟩ (+ b) for linear learners."""
        if self.fit_intercept:
            return X[:, :-1] @ self.coef_ + self.intercept_
        return X @ self.coef_

    def _validated_input(self, X: ArrayLike) -> Any:
        """``X`` checked against the fitted width (sparse kept when accepted)."""
        check_is_fitted(self)
        return validate_data(
            self,
            X,
            accept_sparse=["csr", "csc"] if self._accept_sparse else False,
            dtype=np.float64,
            reset=False,
        )

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        # Privacy noise dominates on the small data of the contract tests, and
        # the output is random unless seeded.
        tags.classifier_tags.poor_score = True
        tags.input_tags.sparse = self._accept_sparse
        tags.non_deterministic = True
        return tags


class CandidateSelectionClassifier(MarginClassifierBase):
    """Base of the pure-DP learners that pick one of a data-independent finite set.

    Bassily, Mohri & Suresh (2022), Alg. 1 (linear) and §5 (networks): build
    the candidate set from public values, count each candidate's training
    errors, and pick one by the exponential mechanism
    (:func:`select_fewest_errors`). A subclass supplies the block shapes, the
    cover scale and the scores of a batch of candidates, and writes out in its
    ``__init__`` the shared parameters (JL dimension, candidate set and
    selection primitive; constraints: :data:`CANDIDATE_CONSTRAINTS`).
    """

    n_components: int | str
    jl_constant: float
    candidates: str
    n_candidates: int
    max_candidates: int
    selection: str
    accountant: BudgetAccountant | None
    n_candidates_: int
    covering_radius_: float
    theory_n_components_: int
    theorem_applies_: bool

    def _check_cover(
        self,
        shapes: list[tuple[int, ...]],
        radius: float,
        gamma: float,
        *,
        describe: str,
        remedy: str,
    ) -> None:
        """Refuse an intractable grid from public values (before the data are read)."""
        if self.candidates == "grid":
            check_grid_cover(
                [int(np.prod(s)) for s in shapes],
                radius,
                gamma,
                self.max_candidates,
                describe=describe,
                remedy=remedy,
            )

    def _select_candidate(
        self,
        shapes: list[tuple[int, ...]],
        radius: float,
        gamma: float,
        *,
        public: np.random.Generator,
        remedy: str,
        scores: Any,
        chunk: int,
        y: FloatArray,
        random_state: np.random.Generator,
        theory_k: int,
        reaches_theory: bool,
        mechanism: str,
        reference: str,
        details: dict[str, Any],
    ) -> list[FloatArray]:
        """Build the candidates, select one privately; return its weight blocks.

        Sets ``n_candidates_``, ``covering_radius_``, ``theory_n_components_``,
        ``theorem_applies_`` (a grid cover and ``reaches_theory``) and
        ``privacy_event_``; ``scores`` and ``chunk`` are those of
        :func:`count_candidate_errors`.
        """
        cands = build_candidates(
            self.candidates,
            shapes,
            radius,
            gamma,
            n_random=int(self.n_candidates),
            max_candidates=self.max_candidates,
            public=public,
            remedy=remedy,
        )
        errors = count_candidate_errors(cands, scores, y, chunk)
        self.n_candidates_ = cands.n_candidates
        self.covering_radius_ = float(cands.covering_radius)
        self.theory_n_components_ = theory_k
        self.theorem_applies_ = bool(self.candidates == "grid" and reaches_theory)
        idx, self.privacy_event_ = select_fewest_errors(
            errors,
            y.shape[0],
            epsilon=self.epsilon,
            method=self.selection,
            random_state=random_state,
            mechanism=mechanism,
            reference=reference,
            details={
                **details,
                "n_candidates": self.n_candidates_,
                "candidates": self.candidates,
                "theorem_applies": self.theorem_applies_,
            },
        )
        return [w[0] for w in cands.take(np.array([idx]))]
