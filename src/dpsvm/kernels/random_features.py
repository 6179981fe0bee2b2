# SPDX-License-Identifier: BSD-3-Clause
"""Random Fourier features with public norm bounds.

Two maps, which differ (``docs/kernels.md``, section "Feature maps"):

* ``feature_map="cos-sin"`` — Rubinstein et al. (2012), eq. (4.1):
  φ̂(x) = d̂^{−1/2}·[cos⟨ρⱼ, x⟩, sin⟨ρⱼ, x⟩]ⱼ₌₁…d̂ ∈ ℝ^{2d̂}. The induced kernel is
  k̂(x, y) = (1/d̂)Σⱼ cos⟨ρⱼ, x − y⟩ and ‖φ̂(x)‖₂ = 1 exactly (κ = 1), every
  coordinate is at most d̂^{−1/2} in absolute value (Φ = d̂^{−1/2}).
* ``feature_map="cos-phase"`` — Sarwate, Chaudhuri & Monteleoni (2009), Alg. 2:
  v(x) = √(2/D)·[cos(ωⱼᵀx + ψⱼ)]ⱼ₌₁…D with ψⱼ ∼ U[−π, π] **independently for
  each j** (correction: the shared ψ of their Sec. 4.2 is a typo). Unbiased for
  k, but ‖v(x)‖₂ can reach √2, not 1 (correction: their Thm 3 assumes unit-norm
  features; ``docs/kernels.md``, section on the cos-phase norm).

Both maps depend on the data only through the number of columns; the
frequencies (and phases) are drawn independently of the records and are part of
the released model (Rubinstein et al. 2012, Cor. 9; Sarwate, Chaudhuri &
Monteleoni 2009, Thm 3).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..utils._random import check_random_state, random_state_constraint
from ..validation import project_rows_to_ball
from . import _trig
from ._spectral import (
    SHIFT_INVARIANT_KERNELS,
    reject_string_gamma,
    sample_frequencies,
)

__all__ = ["RandomFourierFeatures", "fourier_features"]

#: Target size in bytes of one chunk of the output: the matmul result, the
#: cos/sin and the scaling of a chunk then stay in the CPU cache (≈ 2 MiB).
_CHUNK_BYTES = 1 << 21
#: Fewest rows per chunk (keeps the matmul efficient for very wide outputs).
_MIN_CHUNK_ROWS = 16


def _resolve_dtype(dtype: DTypeLike) -> np.dtype[Any]:
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise ValueError(
            f"dtype must be numpy.float64 or numpy.float32, got {dtype!r}."
        ) from exc
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(
            f"dtype must be numpy.float64 or numpy.float32, got {dtype!r}."
        )
    return dt


def _chunk_rows(chunk_size: int | None, n_outputs: int, itemsize: int) -> int:
    if chunk_size is not None:
        return int(chunk_size)
    return max(_MIN_CHUNK_ROWS, _CHUNK_BYTES // max(1, n_outputs * itemsize))


def fourier_features(
    X: ArrayLike,
    frequencies: ArrayLike,
    phases: ArrayLike | None = None,
    *,
    scale: float,
    dtype: DTypeLike = np.float64,
    chunk_size: int | None = None,
    n_jobs: int | None = None,
) -> NDArray[np.floating[Any]]:
    """Evaluate a random Fourier feature map from its released parameters.

    The map is a fixed function of (``frequencies``, ``phases``, ``scale``):
    nothing else is read, so a model that releases these values can be evaluated
    by anyone (and :meth:`RandomFourierFeatures.transform` is exactly this).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Rows x.
    frequencies : array-like of shape (n_features, n_components)
        Column j is the frequency ωⱼ.
    phases : array-like of shape (n_components,), optional
        ``None``: the cos-sin map, s·[cos(Xω), sin(Xω)] with 2·n_components
        columns (all cosines, then all sines: pair j is columns j and
        n_components + j, a fixed permutation of Rubinstein et al. 2012, eq.
        (4.1), that changes no inner product or norm). Else the cos-phase map
        s·cos(Xω + ψ) with n_components columns (Sarwate, Chaudhuri &
        Monteleoni 2009, Alg. 2).
    scale : float
        The output multiplier s (d̂^{−1/2} for cos-sin, √(2/D) or √(1/D) for
        cos-phase).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Arithmetic and output precision. float32 halves the memory and is
        2–4× faster (numpy's float32 cos/sin are vectorised; float64 uses a
        vectorised evaluation within 4e-16·scale of numpy's float64 cos/sin,
        about 2× faster than them); its arguments ωᵀx + ψ carry a relative
        error ≈ 6e-8, so prefer float64 for heavy-tailed frequencies (Laplacian
        kernel).
    chunk_size : int, optional
        Rows per chunk. Extra memory beyond the output is at most one chunk of
        inputs and, for cos-sin, one chunk × n_components buffer, per thread
        (plus 1.25 MiB of scratch tiles in float64). ``None`` picks about 2 MiB
        of output per chunk.
    n_jobs : int, optional
        Threads over chunks (numpy releases the GIL in matmul, cos and sin).
        ``None``: 1; −1: all CPUs. The output does not depend on it.

    Returns
    -------
    ndarray of shape (n_samples, n_outputs)
        The features.

    Notes
    -----
    Bounded before mapped: a row whose phases could overflow is first projected
    (overflow-safe, :func:`dpsvm.validation.project_rows_to_ball`) onto the
    public ball of radius B = f_max/(4·maxⱼ‖ωⱼ‖₂) (f_max the largest float of
    ``dtype``), on which every ⟨ωⱼ, x⟩ + ψⱼ is finite (Cauchy–Schwarz), so a
    finite row never gives a NaN feature. B depends on the released frequencies
    only; rows inside it (every row whose phases were representable to better
    than 2π) are unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1.0, 2.0]])
    >>> Z = fourier_features([[0.0], [0.5]], W, scale=2 ** -0.5)
    >>> np.round(np.linalg.norm(Z, axis=1), 12).tolist()
    [1.0, 1.0]
    """
    dt = _resolve_dtype(dtype)
    Xa = np.asarray(X)
    W = np.asarray(frequencies, dtype=dt)
    if Xa.ndim != 2 or W.ndim != 2 or Xa.shape[1] != W.shape[0]:
        raise ValueError(
            f"X has shape {Xa.shape} but the frequencies have shape {W.shape}; "
            "need X of shape (n_samples, n_features) and frequencies of shape "
            "(n_features, n_components)."
        )
    n, m = Xa.shape[0], W.shape[1]
    psi = None if phases is None else np.asarray(phases, dtype=dt)
    if psi is not None and psi.shape != (m,):
        raise ValueError(f"phases must have shape ({m},), got {psi.shape}.")
    n_out = 2 * m if psi is None else m
    out = np.empty((n, n_out), dtype=dt)
    s = dt.type(scale)
    rows = _chunk_rows(chunk_size, n_out, dt.itemsize)
    starts = range(0, n, rows)

    # float64: numpy's cos/sin are scalar libm calls (≈ 20–30 ns per value), so
    # _trig evaluates them with SIMD array passes (one range reduction for both
    # cos and sin, the scale and the phases folded in; within 4e-16·s of
    # s·np.cos/np.sin); float32: numpy's own cos/sin are already vectorised.
    fast = dt == np.dtype(np.float64)
    bounded = n > 0 and _arguments_bounded(Xa, W, psi)
    checked = not (fast and bounded)
    # Rows are read through the phase ball unless every argument is known small.
    ball = None if bounded or n == 0 else _phase_ball_radius(W, dt)

    def rows_of(start: int, stop: int) -> NDArray[Any]:
        if ball is None:
            return np.asarray(Xa[start:stop], dtype=dt)
        return np.asarray(project_rows_to_ball(Xa[start:stop], ball), dtype=dt)

    def cos_sin(start: int) -> None:
        stop = min(n, start + rows)
        z = np.matmul(rows_of(start, stop), W)  # chunk × m
        block = out[start:stop]
        if fast:
            _trig.cos_sin(
                z, scale=s, cos_out=block[:, :m], sin_out=block[:, m:], checked=checked
            )
            return
        np.cos(z, out=block[:, :m])
        np.sin(z, out=block[:, m:])
        block *= s

    def cos_phase(start: int) -> None:
        stop = min(n, start + rows)
        block = out[start:stop]
        np.matmul(rows_of(start, stop), W, out=block)
        if fast:  # _trig adds ψ tile by tile, rounded as in block + ψ
            _trig.cos(block, scale=s, shift=psi, out=block, checked=checked)
            return
        block += psi
        np.cos(block, out=block)
        block *= s

    work = cos_sin if psi is None else cos_phase
    if len(starts) <= 1:
        for start in starts:
            work(start)
        return out
    # The chunk matmuls are tiny (inner dimension d): extra BLAS threads would
    # only spin between chunks, burning a core (and stealing it from the
    # workers below) for no speed-up, so each chunk uses one BLAS thread.
    # (threadpoolctl is a dependency of scikit-learn.)
    from threadpoolctl import threadpool_limits

    threads = _n_threads(n_jobs, len(starts))
    with threadpool_limits(limits=1, user_api="blas"):
        if threads == 1:
            for start in starts:
                work(start)
        else:
            # numpy's matmul, cos and sin release the GIL: chunks in parallel.
            with ThreadPoolExecutor(max_workers=threads) as pool:
                for _ in pool.map(work, starts):
                    pass
    return out


def _arguments_bounded(
    X: NDArray[Any], W: NDArray[Any], psi: NDArray[Any] | None
) -> bool:
    """Whether every argument x·ω (+ ψ) is finite and far inside _trig's range.

    |Σₗ xₗωₗ| ≤ d·max|X|·max|W|, also for the rounded sum (relative error at
    most d·2⁻⁵³, covered by the factor 2 below); NaN or ±inf anywhere makes the
    bound NaN or inf, hence False. Two passes over X and one over W, instead of
    a range check on every n × m argument.
    """
    if X.size == 0 or W.size == 0:
        return False
    bound = X.shape[1] * max(float(X.max()), -float(X.min()))
    bound *= max(float(W.max()), -float(W.min()))
    if psi is not None:
        bound += max(float(psi.max()), -float(psi.min()))
    return bool(2.0 * bound < _trig.FAST_ARGUMENT_BOUND)


def _phase_ball_radius(W: NDArray[Any], dt: np.dtype[Any]) -> float | None:
    """Radius of the public ball on which every phase ⟨ωⱼ, x⟩ (+ ψⱼ) is finite.

    |⟨ωⱼ, x⟩| ≤ ‖ωⱼ‖·‖x‖ (Cauchy–Schwarz, also for every partial sum), so with
    ‖x‖ ≤ f_max/(4·maxⱼ‖ωⱼ‖) the products, the sums (with their rounding) and
    the |ψ| ≤ π of the phases stay below f_max in ``dt``. ``None`` when the
    frequencies are all zero (every phase is then ψ) or not finite.
    """
    if W.size == 0:
        return None
    widest = float(np.max(np.linalg.norm(np.asarray(W, dtype=np.float64), axis=0)))
    if not (0.0 < widest < math.inf):
        return None
    return float(np.finfo(dt).max) / (4.0 * widest)


def _n_threads(n_jobs: int | None, n_chunks: int) -> int:
    if n_jobs is None:
        return 1
    cpus = os.cpu_count() or 1
    k = cpus + 1 + n_jobs if n_jobs < 0 else n_jobs
    return max(1, min(int(k), n_chunks))


class RandomFourierFeatures(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Random Fourier features for translation-invariant kernels, with norm bounds.

    Approximates k(x, y) = g(x − y) by an inner product of explicit features,
    ⟨z(x), z(y)⟩ ≈ k(x, y) (up to the factor ½ of ``norm_handling="scale"``),
    with frequencies drawn from the kernel's spectral density (see
    :func:`~dpsvm.kernels.sample_frequencies` for the laws of the RBF, Laplacian
    and Cauchy kernels).

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}, default="rbf"
        ``"rbf"`` (= ``"gaussian"``): exp(−γ‖x − y‖²); ``"laplacian"``:
        exp(−γ‖x − y‖₁); ``"cauchy"``: ∏ᵢ 1/(1 + γ(xᵢ − yᵢ)²).
    gamma : float, default=1.0
        Public width γ > 0. Strings (scikit-learn's data-dependent ``"scale"``
        and ``"auto"``) are refused.
    n_components : int, default=100
        Number of frequencies. ``"cos-sin"`` outputs 2·n_components columns (d̂
        = n_components in Rubinstein et al. 2012); ``"cos-phase"`` outputs
        n_components (D in Sarwate, Chaudhuri & Monteleoni 2009).
    feature_map : {"cos-sin", "cos-phase"}, default="cos-sin"
        ``"cos-sin"``: Rubinstein et al. (2012), eq. (4.1), d̂^{−1/2}[cos, sin]
        pairs, norm exactly 1. ``"cos-phase"``: Sarwate, Chaudhuri &
        Monteleoni (2009), Alg. 2, √(2/D)·cos(ωᵀx + ψ) with
        an independent uniform phase per feature, norm ≤ √2.
    norm_handling : {"scale", "bound"}, default="scale"
        Only for ``"cos-phase"``, whose norm can reach √2 (correction of
        Sarwate, Chaudhuri & Monteleoni 2009, Thm 3). ``"scale"``: multiply
        by 1/√2, so the features are √(1/D)·cos(…) with norm ≤ 1 and
        ⟨z(x), z(y)⟩ ≈ k(x, y)/2; ``feature_norm_bound_`` = 1. ``"bound"``: keep
        √(2/D) (unbiased for k) and report the true bound
        ``feature_norm_bound_`` = √2, to be passed as the ``data_norm`` of a
        private estimator. Claiming a bound of 1 for the √(2/D) features (the
        paper as printed) is deliberately not a transformer option: see
        ``norm_handling="paper"`` of :class:`~dpsvm.models.DPKernelSVC`.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        Precision of :meth:`transform` (the frequencies are stored in float64).
    chunk_size : int or None, default=None
        Rows per chunk of :meth:`transform`; bounds the extra memory to about
        chunk_size × n_outputs values per thread. ``None``: about 2 MiB of
        output per chunk.
    n_jobs : int or None, default=None
        Threads of :meth:`transform` (``None``: 1, −1: all CPUs); the output
        does not depend on it.
    random_state : None or int, default=None
        Seed of the frequencies and phases. They do not protect privacy (they
        are independent of the data and released), so an int seed is fine. A
        generator object is refused at ``fit``, as for every public seed.

    Attributes
    ----------
    frequencies_ : ndarray of shape (n_features_in_, n_components)
        Column j is ωⱼ (released with any model built on these features).
    phases_ : ndarray of shape (n_components,) or None
        ψⱼ ∼ U[−π, π] for ``"cos-phase"``; ``None`` for ``"cos-sin"``.
    scale_ : float
        The output multiplier: d̂^{−1/2} (cos-sin), √(2/D) (cos-phase, bound) or
        √(1/D) (cos-phase, scale).
    feature_norm_bound_ : float
        A public bound on ‖z(x)‖₂ valid for **every** x: 1.0 (cos-sin, exactly
        attained; cos-phase with ``"scale"``) or √2 (cos-phase with
        ``"bound"``).
    n_output_features_ : int
        Number of output columns.
    n_features_in_ : int
        Number of input columns.

    See Also
    --------
    sklearn.kernel_approximation.RBFSampler : The scikit-learn cos-phase map
        for the RBF kernel (no norm bound, no chunking).
    fourier_features : The same map from released parameters.

    Notes
    -----
    ``fit`` uses only ``X.shape[1]`` (the values are validated for finiteness,
    as every scikit-learn estimator does, but are not otherwise read), so the
    frequencies cost no privacy. The expected squared kernel error of one pair
    is Var[cos⟨ω, x − y⟩]/d̂ (cos-sin), so the error decays like d̂^{−1/2}.

    References
    ----------
    .. [1] A. Rahimi, B. Recht, "Random features for large-scale kernel
       machines", NIPS 2007.
    .. [2] B. I. P. Rubinstein, P. L. Bartlett, L. Huang, N. Taft, "Learning in a
       large function space: privacy-preserving mechanisms for SVM learning",
       arXiv:0911.5708, 2009, eq. (4.1) and Algorithm 3.
    .. [3] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009, Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.kernels import RandomFourierFeatures
    >>> X = np.random.default_rng(0).normal(size=(4, 3))
    >>> rff = RandomFourierFeatures(gamma=0.5, n_components=50, random_state=0)
    >>> Z = rff.fit_transform(X)
    >>> Z.shape, rff.feature_norm_bound_
    ((4, 100), 1.0)
    >>> bool(np.allclose(np.linalg.norm(Z, axis=1), 1.0))
    True
    """

    _parameter_constraints: dict[str, Any] = {
        "kernel": [StrOptions(set(SHIFT_INVARIANT_KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "feature_map": [StrOptions({"cos-sin", "cos-phase"})],
        "norm_handling": [StrOptions({"scale", "bound"})],
        "dtype": "no_validation",  # checked by _resolve_dtype in fit
        "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "random_state": random_state_constraint(),
    }

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float = 1.0,
        n_components: int = 100,
        *,
        feature_map: str = "cos-sin",
        norm_handling: str = "scale",
        dtype: DTypeLike = np.float64,
        chunk_size: int | None = None,
        n_jobs: int | None = None,
        random_state: int | None = None,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.feature_map = feature_map
        self.norm_handling = norm_handling
        self.dtype = dtype
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: object = None) -> RandomFourierFeatures:
        """Draw the frequencies (and phases) for inputs with X.shape[1] columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Only its number of columns is used.
        y : None
            Ignored.

        Returns
        -------
        self
            The fitted transformer.

        Raises
        ------
        ValueError
            If ``gamma`` is a string (data-dependent bandwidth) or a parameter
            is out of range.
        """
        reject_string_gamma(self.gamma, type(self).__name__)  # clear error for "scale"
        return self._fit(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: ArrayLike) -> RandomFourierFeatures:
        _resolve_dtype(self.dtype)
        # Validated (finite, 2-D) like any estimator input; only the number of
        # columns is used.
        d = np.asarray(validate_data(self, X, dtype=[np.float64, np.float32])).shape[1]
        rng = check_random_state(self.random_state, secure=False)
        m = int(self.n_components)
        self.frequencies_ = sample_frequencies(self.kernel, self.gamma, d, m, rng)
        if self.feature_map == "cos-sin":
            self.phases_ = None
            # Rubinstein et al. (2012), eq. (4.1): d̂^{−1/2} per coordinate ⇒
            # ‖φ̂(x)‖ = 1 (κ = 1).
            self.scale_ = 1.0 / math.sqrt(m)
            self.feature_norm_bound_ = 1.0
            self.n_output_features_ = 2 * m
        else:
            # Sarwate, Chaudhuri & Monteleoni (2009), Alg. 2: ψⱼ ∼ U[−π, π]
            # independently per feature (correction: not one shared ψ, Sec. 4.2).
            self.phases_ = rng.uniform(-math.pi, math.pi, size=m)
            if self.norm_handling == "scale":
                # Rescaled (correction of their Thm 3's unit-norm assumption):
                # √(2/D)/√2 = √(1/D) ⇒ ‖v(x)‖ ≤ 1.
                self.scale_ = 1.0 / math.sqrt(m)
                self.feature_norm_bound_ = 1.0
            else:
                # Declared bound instead: keep √(2/D); ‖v(x)‖² ≤ D·(2/D) = 2.
                self.scale_ = math.sqrt(2.0 / m)
                self.feature_norm_bound_ = math.sqrt(2.0)
            self.n_output_features_ = m
        return self

    def transform(self, X: ArrayLike) -> NDArray[np.floating[Any]]:
        """Map rows to random Fourier features (chunked).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to map.

        Returns
        -------
        ndarray of shape (n_samples, n_output_features_)
            Features of dtype ``dtype``; each row has norm at most
            ``feature_norm_bound_``.
        """
        check_is_fitted(self)
        Xa = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        return fourier_features(
            Xa,
            self.frequencies_,
            self.phases_,
            scale=self.scale_,
            dtype=self.dtype,
            chunk_size=self.chunk_size,
            n_jobs=self.n_jobs,
        )

    @property
    def _n_features_out(self) -> int:
        return int(self.n_output_features_)

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = [np.dtype(self.dtype).name]
        return tags
