# SPDX-License-Identifier: BSD-3-Clause
"""Data-independent Johnson–Lindenstrauss projections and ball projection.

Both projections are drawn from randomness that never sees the data, so releasing
them (or their seed) costs no privacy: the privacy of every margin learner rests
on the mechanism run *after* the projection, and only the utility theorems use the
JL property (Bassily, Mohri & Suresh 2022, Lemmas A.3 and A.4).

* :class:`RademacherJL` — the dense ±1/√k matrix of Algorithm 1 and §5
  (Lemma A.3; Achlioptas 2003).
* :class:`FastJL` — a subsampled randomized orthonormal DCT (an SRHT-type fast JL,
  Ailon & Chazelle 2006): Φx = √(d/k)·R·C·D·x, with D a random ±1 diagonal, C the
  orthonormal DCT-II and R a uniform choice of k of the d coordinates. C is
  orthogonal, so E‖Φx‖² = ‖x‖²; it costs O(d log d) per row (Lemma A.4 of the
  paper only cites the construction).

When ``n_components ≥ n_features`` both use the identity, which is exact.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy import fft
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, validate_data
from ..utils._random import RandomStateLike, check_random_state, random_state_constraint
from ..validation import project_rows_to_ball

__all__ = ["FastJL", "RademacherJL", "project_to_ball"]

FloatArray = NDArray[np.float64]

# Rows per block when a sparse input is densified for the fast transform.
_BLOCK_ELEMENTS = 1 << 22


def project_to_ball(X: ArrayLike, radius: float) -> FloatArray:
    """Project a vector, or each row of a matrix, onto the ball of ``radius``.

    Π(z) = z·min(1, R/‖z‖) is a positive rescaling, so it never changes the sign
    of a linear score. Rows use :func:`dpsvm.validation.project_rows_to_ball`.

    Parameters
    ----------
    X : array-like of shape (n,) or (n_samples, n)
        A vector or rows.
    radius : float
        The public radius R > 0.

    Returns
    -------
    ndarray
        The projection, of the same shape, each vector of norm ≤ ``radius``.

    Examples
    --------
    >>> project_to_ball([3.0, 4.0], 1.0)
    array([0.6, 0.8])
    """
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim == 1:
        return np.asarray(project_rows_to_ball(arr[None, :], radius)[0])
    return np.asarray(project_rows_to_ball(arr, radius))


class _JLBase(TransformerMixin, BaseEstimator):
    """Shared fit/transform plumbing: ``fit`` reads only the input width."""

    _parameter_constraints: dict[str, list[Any]] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "random_state": random_state_constraint(),
    }

    n_components: int
    random_state: RandomStateLike

    def fit(self, X: ArrayLike, y: object = None) -> _JLBase:
        """Draw the projection for the width of ``X`` (its values are not read).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Only ``n_features`` is used.
        y : None
            Ignored.

        Returns
        -------
        self
            The fitted transformer.
        """
        self._validate_params()
        Xv: Any = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=np.float64)
        d = int(Xv.shape[1])
        self.n_components_ = min(int(self.n_components), d)
        self.identity_ = self.n_components >= d
        # The projection protects nothing (it is independent of the data), so an
        # ordinary seeded generator is fine (Bassily, Mohri & Suresh 2022, §3).
        gen = check_random_state(self.random_state, secure=False)
        if self.identity_:
            for name in self._drawn:
                setattr(self, name, None)
        else:
            self._draw(d, gen)
        return self

    #: Fitted attributes that ``_draw`` sets (``None`` for the identity).
    _drawn: tuple[str, ...] = ()

    def _draw(self, d: int, gen: np.random.Generator) -> None:
        raise NotImplementedError

    def _project(self, X: Any) -> FloatArray:
        raise NotImplementedError

    def transform(self, X: ArrayLike) -> FloatArray:
        """Project the rows of ``X``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Rows to project (sparse input is never densified as a whole).

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
            The projected rows.
        """
        check_is_fitted(self)
        Xv: Any = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=np.float64, reset=False
        )
        if self.identity_:
            return np.asarray(Xv.toarray() if sp.issparse(Xv) else Xv, dtype=np.float64)
        return self._project(Xv)

    def adjoint_transform(self, W: ArrayLike) -> FloatArray:
        """Apply Φᵀ: map k-dimensional weights back to the input space.

        A learner that releases w̃ ∈ ℝ^k on projected rows Φx releases the
        input-space weights Φᵀw̃, since ⟨Φᵀw̃, x⟩ = ⟨w̃, Φx⟩.

        Parameters
        ----------
        W : array-like of shape (n_components_,) or (n_vectors, n_components_)
            One vector or several (rows).

        Returns
        -------
        ndarray of shape (n_features_in_,) or (n_vectors, n_features_in_)
            Φᵀw for each w.
        """
        check_is_fitted(self)
        arr = np.asarray(W, dtype=np.float64)
        rows = np.atleast_2d(arr)
        if rows.ndim != 2 or rows.shape[1] != self.n_components_:
            raise ValueError(
                f"Expected vectors of length n_components_={self.n_components_}, "
                f"got shape {arr.shape}."
            )
        out = rows if self.identity_ else self._adjoint(rows)
        return np.asarray(out[0] if arr.ndim == 1 else out, dtype=np.float64)

    def _adjoint(self, W: FloatArray) -> FloatArray:
        raise NotImplementedError

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.requires_fit = True
        return tags


class RademacherJL(_JLBase):
    """Dense Rademacher JL projection Φ ∈ ℝ^{k×d}, entries ±1/√k i.i.d.

    Parameters
    ----------
    n_components : int, default=100
        The target dimension k. When k ≥ ``n_features`` the identity is used.
    random_state : None or int, default=None
        Seed of Φ. Φ is drawn independently of the data, so a public seed is
        fine (it protects nothing). A generator object is refused at ``fit``,
        as for every public seed.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features_in_) or None
        Φ (``None`` for the identity).
    n_components_ : int
        The dimension actually used, min(k, d).
    identity_ : bool
        Whether Φ is the identity.
    n_features_in_ : int
        The input width d.

    Notes
    -----
    **Privacy.** Φ is data-independent; releasing it costs nothing. For any m
    points, k = O(ln(m/β)/γ²) preserves all norms and inner products up to
    γ/3 relative error with probability ≥ 1 − β (Bassily, Mohri & Suresh 2022,
    Lemma A.3; the constant follows Achlioptas 2003, Thm 1.1).

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), Alg. 1, Lemma A.3.
    .. [2] D. Achlioptas, "Database-friendly random projections", JCSS 2003.

    Examples
    --------
    >>> X = np.ones((2, 50))
    >>> RademacherJL(10, random_state=0).fit_transform(X).shape
    (2, 10)
    """

    _drawn = ("components_",)

    def __init__(
        self, n_components: int = 100, *, random_state: RandomStateLike = None
    ) -> None:
        self.n_components = n_components
        self.random_state = random_state

    def _draw(self, d: int, gen: np.random.Generator) -> None:
        k = self.n_components_
        # Bassily, Mohri & Suresh (2022), Alg. 1 step 2: entries uniform on ±1/√k.
        signs = gen.integers(0, 2, size=(k, d), dtype=np.int8) * 2 - 1
        self.components_ = signs.astype(np.float64) / np.sqrt(k)

    def _project(self, X: Any) -> FloatArray:
        assert self.components_ is not None
        out = X @ self.components_.T
        return np.asarray(out, dtype=np.float64)

    def _adjoint(self, W: FloatArray) -> FloatArray:
        assert self.components_ is not None
        return np.asarray(W @ self.components_, dtype=np.float64)


class FastJL(_JLBase):
    """Fast JL: subsampled randomized DCT, Φx = √(d/k)·R·C·D·x.

    Parameters
    ----------
    n_components : int, default=100
        The target dimension k. When k ≥ ``n_features`` the identity is used.
    random_state : None or int, default=None
        Seed of the signs and of the sampled coordinates; data-independent, so
        a public seed is fine. A generator object is refused at ``fit``, as for
        every public seed.

    Attributes
    ----------
    signs_ : ndarray of shape (n_features_in_,) or None
        The diagonal D of ±1 (``None`` for the identity).
    rows_ : ndarray of shape (n_components_,) or None
        The DCT coordinates kept by R.
    n_components_ : int
        The dimension actually used, min(k, d).
    identity_ : bool
        Whether Φ is the identity.
    n_features_in_ : int
        The input width d.

    Notes
    -----
    **Privacy.** Φ is data-independent; releasing it costs nothing.

    C is the orthonormal DCT-II (``scipy.fft.dct(norm="ortho")``), so
    E‖Φx‖² = (k/d)·(d/k)·‖Cx‖² = ‖x‖². Randomizing the signs first spreads the
    mass of any fixed x over the DCT coordinates, which is what makes uniform
    row sampling a JL map (Ailon & Chazelle 2006; Tropp 2011 for the SRHT).
    Each row costs O(d log d); a sparse input is densified one block of rows
    at a time.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), Lemma A.4.
    .. [2] N. Ailon, B. Chazelle, "Approximate nearest neighbors and the fast
       Johnson-Lindenstrauss transform", STOC 2006.
    .. [3] J. A. Tropp, "Improved analysis of the subsampled randomized
       Hadamard transform", Adv. Adapt. Data Anal. 2011.

    Examples
    --------
    >>> X = np.ones((3, 64))
    >>> FastJL(8, random_state=0).fit_transform(X).shape
    (3, 8)
    """

    _drawn = ("signs_", "rows_")

    def __init__(
        self, n_components: int = 100, *, random_state: RandomStateLike = None
    ) -> None:
        self.n_components = n_components
        self.random_state = random_state

    def _draw(self, d: int, gen: np.random.Generator) -> None:
        self.signs_ = (gen.integers(0, 2, size=d) * 2 - 1).astype(np.float64)
        self.rows_ = np.sort(gen.choice(d, size=self.n_components_, replace=False))

    def _project(self, X: Any) -> FloatArray:
        assert self.signs_ is not None and self.rows_ is not None
        n, d = X.shape
        scale = np.sqrt(d / self.n_components_)
        out = np.empty((n, self.n_components_), dtype=np.float64)
        block = max(1, _BLOCK_ELEMENTS // max(d, 1))
        for start in range(0, n, block):
            chunk = X[start : start + block]
            dense = chunk.toarray() if sp.issparse(chunk) else np.asarray(chunk)
            z = fft.dct(dense * self.signs_, type=2, norm="ortho", axis=1)
            out[start : start + block] = scale * z[:, self.rows_]
        return out

    def _adjoint(self, W: FloatArray) -> FloatArray:
        assert self.signs_ is not None and self.rows_ is not None
        d = self.n_features_in_
        full = np.zeros((W.shape[0], d))
        full[:, self.rows_] = np.sqrt(d / self.n_components_) * W
        # Cᵀ = C⁻¹ for the orthonormal DCT-II: its inverse is the DCT-III.
        return np.asarray(
            fft.idct(full, type=2, norm="ortho", axis=1) * self.signs_,
            dtype=np.float64,
        )
