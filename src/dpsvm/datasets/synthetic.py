# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic data sets from the papers the library implements."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import NDArray

from dpsvm.utils._random import GeneratorLike, as_generator

__all__ = ["make_nested_balls"]

# (mass, inner radius, outer radius, label); label 0 means +1 or -1 with
# probability 1/2 each. Chaudhuri, Monteleoni & Sarwate (2011), Sec. 6.
_COMPONENTS = (
    (0.45, 0.0, 0.1, 1),
    (0.45, 0.2, 0.5, -1),
    (0.10, 0.1, 0.2, 0),
)


def make_nested_balls(
    n_samples: int = 240000,
    *,
    n_features: int = 5,
    random_state: GeneratorLike = None,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Generate the "nested balls" classification data of Chaudhuri et al.

    Each point is drawn independently from a mixture of three components, each
    uniform (in volume) on a ball or spherical shell centred at the origin:

    * mass 0.45 on the ball ``r <= 0.1``, label +1;
    * mass 0.45 on the shell ``0.2 <= r <= 0.5``, label -1;
    * mass 0.1 on the shell ``0.1 <= r <= 0.2``, label +1 or -1 with probability
      1/2 each.

    Parameters
    ----------
    n_samples : int, default=240000
        Number of points (the paper uses 240,000).
    n_features : int, default=5
        Dimension ``d`` (the paper uses 5).
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator. This randomness only makes test data; it protects no
        one, so an ordinary (non-cryptographic) generator is used.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points; every row has norm at most 0.5 (up to rounding).
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1} (int64).

    Notes
    -----
    The component of each point is drawn i.i.d. from (0.45, 0.45, 0.1), so the
    component counts are multinomial (not exact proportions) and the rows come
    in random order. A point of a shell ``r1 <= r <= r2`` has a direction drawn
    as a normalised standard Gaussian vector and radius
    ``r = (U (r2^d - r1^d) + r1^d)^(1/d)`` with ``U ~ Uniform(0, 1)``: the
    inverse of the radial CDF ``(r^d - r1^d) / (r2^d - r1^d)`` of the uniform
    distribution on the shell (with ``d = 5`` as in the paper).

    The Bayes classifier predicts +1 for ``r < 0.1`` and -1 for ``r > 0.2``
    (either in between); its error is 0.1 / 2 = 0.05.

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
       private empirical risk minimization", JMLR 12, 2011, Sec. 6
       (arXiv:0912.0071).

    Examples
    --------
    >>> X, y = make_nested_balls(1000, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 5), [-1, 1])
    >>> bool(np.linalg.norm(X, axis=1).max() <= 0.5 + 1e-12)
    True
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):
        raise TypeError(f"n_samples must be an int, got {type(n_samples).__name__}.")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}.")
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral):
        raise TypeError(f"n_features must be an int, got {type(n_features).__name__}.")
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    n, d = int(n_samples), int(n_features)
    rng = as_generator(random_state, secure=False)

    masses = np.array([c[0] for c in _COMPONENTS])
    r_lo = np.array([c[1] for c in _COMPONENTS])
    r_hi = np.array([c[2] for c in _COMPONENTS])
    labels = np.array([c[3] for c in _COMPONENTS], dtype=np.int64)

    comp = rng.choice(len(_COMPONENTS), size=n, p=masses)
    direction = rng.standard_normal((n, d))
    norms = np.linalg.norm(direction, axis=1)
    # A standard Gaussian vector is zero with probability 0; guard anyway.
    while np.any(norms == 0):
        bad = norms == 0
        direction[bad] = rng.standard_normal((int(bad.sum()), d))
        norms[bad] = np.linalg.norm(direction[bad], axis=1)
    direction /= norms[:, None]

    # Inverse radial CDF of the uniform law on {r1 <= r <= r2} in R^d:
    # r = (U (r2^d - r1^d) + r1^d)^(1/d)   (Sarwate, Chaudhuri & Monteleoni
    # 2009, §6 synthetic data, with d = 5).
    u = rng.random(n)
    lo_d, hi_d = r_lo[comp] ** d, r_hi[comp] ** d
    radius = (u * (hi_d - lo_d) + lo_d) ** (1.0 / d)
    # Rounding cannot be allowed to move a point outside its shell.
    radius = np.clip(radius, r_lo[comp], r_hi[comp])
    X = direction * radius[:, None]

    y = labels[comp]
    ambiguous = y == 0
    y[ambiguous] = np.where(rng.random(int(ambiguous.sum())) < 0.5, 1, -1)
    return X, y
