# SPDX-License-Identifier: BSD-3-Clause
"""Shared estimator machinery of the margin learners: binary labels, seeds, tags."""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, validate_data
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import Charge, charge
from ..exceptions import PrivacyLeakWarning
from ..models.base import ScorePredictMixin
from ..utils._random import check_random_state

FloatArray = NDArray[np.float64]

#: Constraints shared by every margin learner.
COMMON_CONSTRAINTS: dict[str, list[Any]] = {
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "margin": [Interval(Real, 0, None, closed="neither")],
    "norm_bound": [Interval(Real, 0, None, closed="neither")],
    "data_norm": [Interval(Real, 0, None, closed="neither")],
    "classes": ["array-like", None],
    "accountant": [BudgetAccountant, None],
    "random_state": ["random_state", np.random.Generator],
}


# The text of dpsvm.models' warning for classes=None (after the merge with
# main, resolve_label_set / mark_label_set of dpsvm.models.base replace this).
CLASSES_FROM_DATA_WARNING = (
    "The label set was read from the private data (classes=None): which "
    "labels occur is then released through classes_ and is not covered "
    "by the privacy guarantee. Pass the public label set as classes=[...]."
)

#: Constraints of the learners that select from a finite candidate set.
CANDIDATE_CONSTRAINTS: dict[str, list[Any]] = {
    "jl_constant": [Interval(Real, 0, None, closed="neither")],
    "candidates": [StrOptions({"grid", "random"})],
    "n_candidates": [Interval(Integral, 1, None, closed="left")],
    "max_candidates": [Interval(Integral, 1, None, closed="left")],
    "selection": [StrOptions({"exponential", "permute-and-flip"})],
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


class MarginClassifierBase(ScorePredictMixin, ClassifierMixin, BaseEstimator):
    """Binary classifier plumbing: public label set, ±1 targets, linear scores."""

    classes: Any
    accountant: Any
    coef_: FloatArray
    _accept_sparse: bool = True

    def _check_budget(self, epsilon: float, delta: float) -> Charge:
        """Check the accountant (if any) before any data are read.

        :func:`dpsvm.accounting.charge` (check now, spend on success); the fit
        calls ``.spend(event)`` on the returned plan once the model is computed.
        """
        return charge(resolve_accountant(self.accountant), epsilon, delta)

    def _validate_binary(self, X: ArrayLike, y: ArrayLike) -> tuple[Any, FloatArray]:
        Xv, yv = validate_data(
            self,
            X,
            y,
            accept_sparse=["csr", "csc"] if self._accept_sparse else False,
            dtype=np.float64,
        )
        yv = np.asarray(yv)
        check_classification_targets(yv)
        if self.classes is None:
            warnings.warn(CLASSES_FROM_DATA_WARNING, PrivacyLeakWarning, stacklevel=3)
            classes = np.unique(yv)
        else:
            classes = np.unique(np.asarray(self.classes))
            if classes.size != len(np.asarray(self.classes)):
                raise ValueError("classes must be a list of distinct labels.")
            if not np.all(np.isin(yv, classes)):
                raise ValueError(
                    "y contains labels that are not in the public label set classes."
                )
        if classes.size != 2:
            raise ValueError(
                f"Only binary classification is supported. {type(self).__name__} "
                "needs exactly 2 classes (a public label set of 2 labels); got "
                f"{classes.size} class(es)."
            )
        self.classes_ = classes
        return Xv, np.where(yv == classes[1], 1.0, -1.0)

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """Linear scores ⟨w, x⟩ (positive means ``classes_[1]``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            The scores.
        """
        return np.asarray(
            self._validated_input(X) @ self.coef_, dtype=np.float64
        ).ravel()

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
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = self._accept_sparse
        tags.non_deterministic = True
        return tags
