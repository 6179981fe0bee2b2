# SPDX-License-Identifier: BSD-3-Clause
"""The L2 ("spherical") Laplace mechanism: noise with density ∝ exp(−‖b‖₂/scale).

This is the noise of the output- and objective-perturbation algorithms of
Sarwate, Chaudhuri & Monteleoni (arXiv:0912.0071v1, eq. (8), Alg. 1) and
Chaudhuri, Monteleoni & Sarwate (JMLR 2011, Alg. 1 and 2). On ℝ^d the density
ν(b) ∝ exp(−‖b‖₂/s) has, in polar coordinates, radial density ∝ ρ^{d−1}e^{−ρ/s},
so ‖b‖₂ ~ Gamma(shape=d, scale=s) and the direction b/‖b‖₂ is uniform on the
sphere, independent of the norm.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..utils._random import GeneratorLike, as_generator
from .base import Mechanism, ReadOnly, check_noise_scale

__all__ = ["GammaNormVector", "sample_gamma_norm"]

_REFERENCE = (
    "Chaudhuri, Monteleoni & Sarwate (2011), 'Differentially private empirical risk "
    "minimization', JMLR 12, Alg. 1 (output perturbation) with density "
    "exp(-epsilon*||b||/Delta_2); Sarwate, Chaudhuri & Monteleoni "
    "(arXiv:0912.0071v1), eq. (8)."
)


def _check_dim(dim: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(
            f"size must be a positive int (the dimension d), got {type(dim).__name__};"
            " the noise is one vector, so tuples are not accepted (use randomise "
            "for arrays)."
        )
    if dim <= 0:
        raise ValueError(f"size must be a positive int (the dimension d), got {dim}.")
    return int(dim)


#: Gaussian draws whose norm is below this are redrawn before normalising.
#: Norm and direction of a standard Gaussian are independent, so rejecting on
#: the norm alone leaves the direction exactly uniform; it only keeps the
#: division g/‖g‖ away from subnormal and zero norms.
_MIN_GAUSSIAN_NORM = 2.0**-64
#: Attempts before a generator that keeps returning degenerate draws is refused.
_MAX_ATTEMPTS = 64


def _uniform_direction(dim: int, gen: np.random.Generator) -> NDArray[np.float64]:
    """Return a uniform unit vector in ℝ^dim: a normalised standard Gaussian.

    Draws whose norm is below 2⁻⁶⁴ or not finite are rejected (probability
    below 10⁻¹⁹ for a genuine generator); rejection on the norm does not bias
    the direction, which is independent of the norm.
    """
    for _ in range(_MAX_ATTEMPTS):
        g = gen.standard_normal(dim)
        # Standard normal entries are O(1) (|g_i| < 40 for any real generator),
        # so ||g||^2 cannot overflow, and norms >= 2^-64 keep it far from
        # underflow.
        norm = float(np.linalg.norm(g))
        if norm >= _MIN_GAUSSIAN_NORM and math.isfinite(norm):
            u = np.asarray(g / norm, dtype=np.float64)
            if np.all(np.isfinite(u)):
                return u
    raise RuntimeError(
        f"the random generator returned {_MAX_ATTEMPTS} degenerate Gaussian "
        "vectors in a row; it is broken."
    )


def _gamma_radius(dim: int, scale: float, gen: np.random.Generator) -> float:
    """Draw ‖b‖ ~ Gamma(shape=dim, scale) > 0, finite.

    numpy's standard Gamma (Marsaglia & Tsang 2000 for shape ≥ 1) is drawn with
    unit scale and multiplied by ``scale``. A zero draw (possible in floating
    point for dim = 1, with probability about 2⁻⁵³, where it would release the
    value unperturbed) or a non-finite product (excluded in practice by
    :func:`check_noise_scale` with headroom dim + 64√dim + 64) is redrawn.
    """
    for _ in range(_MAX_ATTEMPTS):
        radius = float(gen.standard_gamma(dim)) * scale
        if radius > 0.0 and math.isfinite(radius):
            return radius
    raise RuntimeError(
        f"the random generator returned {_MAX_ATTEMPTS} degenerate Gamma draws in "
        "a row; it is broken."
    )


def _radius_headroom(dim: int) -> float:
    """Gamma(dim, 1) draws exceed dim + 64√dim + 64 with probability < e^-40."""
    return dim + 64.0 * math.sqrt(dim) + 64.0


def sample_gamma_norm(
    dim: int, scale: float, rng: GeneratorLike = None
) -> NDArray[np.float64]:
    """Draw one vector b ∈ ℝ^dim with density ∝ exp(−‖b‖₂/scale).

    The norm is Gamma(shape=dim, scale=scale) and the direction is uniform
    (a normalised standard Gaussian), so E‖b‖₂ = dim·scale. A low-level sampler
    for callers that computed the scale themselves (e.g. objective
    perturbation, whose scale is 2/ε′, not Δ₂/ε).

    Parameters
    ----------
    dim : int
        The dimension d > 0.
    scale : float
        The scale s > 0 (finite); the density is ∝ exp(−‖b‖₂/s), i.e. the rate
        β/2 = 1/s of eq. (8) of Sarwate et al. (arXiv:0912.0071v1).
    rng : None, int or numpy.random.Generator, default=None
        Passed through :func:`dpsvm.utils._random.as_generator`: ``None``
        draws from a fresh CSPRNG; an int is for tests and documentation only;
        a Generator is used (and advanced) as is.

    Returns
    -------
    ndarray of shape (dim,)
        The noise vector.

    Raises
    ------
    TypeError
        If ``dim`` is not an int.
    ValueError
        If ``dim`` or ``scale`` is not positive, ``scale`` is below 2⁻⁹⁶⁹ (the
        noise could underflow to zero) or ``scale·(dim + 64√dim + 64)``
        overflows (the noise could be infinite).

    Notes
    -----
    For dim = 1 the law is Laplace(0, scale). Sampling follows
    Chaudhuri, Monteleoni & Sarwate (JMLR 2011), who draw the norm from a Gamma
    distribution and the direction uniformly. Both draws are numpy
    floating-point samplers, guarded so that no draw is zero, subnormal-normed,
    infinite or NaN: the direction is a normalised standard Gaussian with
    norms below 2⁻⁶⁴ rejected (unbiased: norm and direction are independent),
    a zero radius is redrawn, and scales that could underflow or overflow are
    refused up front. The release ``value + b`` is not snapped to a grid (see
    :mod:`dpsvm.mechanisms.base`).

    Examples
    --------
    >>> b = sample_gamma_norm(5, 0.1, rng=0)
    >>> b.shape
    (5,)
    """
    dim = _check_dim(dim)
    scale = check_noise_scale(scale, "scale", headroom=_radius_headroom(dim))
    gen = as_generator(rng)
    direction = _uniform_direction(dim, gen)
    # Radial density of exp(-||b||/s) on R^d is proportional to rho^(d-1) e^(-rho/s):
    # ||b|| ~ Gamma(shape=d, scale=s) (Chaudhuri et al. JMLR 2011, Alg. 1/2;
    # Sarwate et al. arXiv:0912.0071v1, eq. (8) with s = 2/beta).
    radius = _gamma_radius(dim, scale, gen)
    return np.asarray(radius * direction, dtype=np.float64)


class GammaNormVector(Mechanism):
    """Pure ε-DP L2 ("spherical") Laplace mechanism for a vector.

    Adds one noise vector b with density ν(b) ∝ exp(−ε‖b‖₂/Δ₂): its norm is
    Gamma(d, Δ₂/ε) and its direction uniform.

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite).
    sensitivity : float
        The L2 sensitivity Δ₂ = max ‖f(D) − f(D′)‖₂ over neighbouring datasets,
        > 0 (finite), a public bound fixed before the data are seen (e.g.
        2/(nΛ) for output perturbation of a Λ-strongly convex, 1-Lipschitz ERM
        with ‖x‖ ≤ 1).

    Attributes
    ----------
    epsilon : float
        ε.
    delta : float
        Always 0.
    sensitivity : float
        Δ₂.

    Notes
    -----
    **Privacy.** If ‖f(D) − f(D′)‖₂ ≤ Δ₂ for neighbouring D, D′ (the neighbouring
    relation is whatever Δ₂ was computed for; dpsvm uses replace-one), then for
    every output y, by the triangle inequality,
    ν(y − f(D)) / ν(y − f(D′)) = exp(ε(‖y − f(D′)‖₂ − ‖y − f(D)‖₂)/Δ₂) ≤ e^ε,
    so releasing f(D) + b is ε-differentially private (pure DP, δ = 0)
    (Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Alg. 1 and its privacy
    theorem). The whole
    vector is protected; :meth:`randomise` treats an array of any shape as one
    flattened vector, so Δ₂ must bound the Frobenius norm of the change.
    :meth:`sample` draws one noise vector of shape ``(size,)``: ``size`` is the
    dimension d > 0, an int (a tuple is refused: the noise is a single vector,
    not i.i.d. draws; use :meth:`randomise` for arrays).

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially private
       empirical risk minimization", JMLR 12 (2011), Algorithms 1 and 2.
    .. [2] A. D. Sarwate, K. Chaudhuri and C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071v1, eq. (8).

    Examples
    --------
    >>> mech = GammaNormVector(epsilon=0.5, sensitivity=0.1)
    >>> mech.scale
    0.2
    >>> mech.sample(4, random_state=0).shape
    (4,)
    """

    name: ClassVar[str] = "gamma-norm"
    sensitivity_norm: ClassVar[str] = "l2"
    reference: ClassVar[str] = _REFERENCE

    def __init__(self, *, epsilon: float, sensitivity: float) -> None:
        super().__init__(epsilon=epsilon, delta=0.0, sensitivity=sensitivity)
        # Chaudhuri et al. (JMLR 2011), Alg. 1: density exp(-epsilon ||b|| / Delta_2),
        # i.e. scale s = Delta_2 / epsilon (eq. (8) of arXiv:0912.0071v1 with
        # beta = 2 epsilon / Delta_2).
        self._scale = self._sensitivity / self._epsilon

    scale: ReadOnly[float] = ReadOnly(
        "The scale s = Δ₂/ε of ν(b) ∝ exp(−‖b‖₂/s); E‖b‖₂ = d·s (read-only)."
    )

    def _check_sample_size(self, size: Any) -> int:
        # One spherical vector, not i.i.d. draws: a tuple is refused (randomise
        # takes arrays of any shape as one flattened vector).
        return _check_dim(size)

    def _draw(
        self, size: int | tuple[int, ...], gen: np.random.Generator
    ) -> NDArray[np.float64]:
        # One spherical vector over the flattened array (a 0-d value is d = 1).
        shape = (size,) if isinstance(size, int) else size
        return sample_gamma_norm(math.prod(shape), self._scale, gen).reshape(shape)

    def _event_details(self) -> dict[str, Any]:
        return {"scale": self._scale}
