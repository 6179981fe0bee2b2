# SPDX-License-Identifier: BSD-3-Clause
"""Exact samplers: the one place where dpsvm draws every exact noise sample.

Every sampler here turns uniform integers of the generator into samples with
integer comparisons only; no floating-point number takes part in any
accept/reject decision, so the output law is exactly the stated one (given
uniform integers) on every platform.

* :func:`sample_bernoulli_exp` — Bernoulli(exp(−γ)) for rational γ ≥ 0
  (Canonne, Kamath & Steinke, NeurIPS 2020, arXiv:2004.00010, Algorithm 1).
* :func:`sample_discrete_laplace` — P(Z = z) ∝ exp(−|z|/t), integer t ≥ 1
  (CKS20, Algorithm 2 with s = 1).
* :func:`sample_discrete_gaussian` — P(Z = z) ∝ exp(−z²/(2σ²)), rational σ²
  (CKS20, Algorithm 3).
* :func:`select_exponential` — the exponential mechanism over scores on a
  public grid, by rejection from the uniform proposal with exact
  Bernoulli(exp(−γ)) coins.
* :func:`exponential_rejection_sample` — the exponential mechanism over a
  continuous public base measure (proposals drawn from it without the data),
  utilities rounded to a public grid, the same exact coins.

Uniform integers come from ``Generator.integers`` (numpy's bounded integers:
integer rejection on the raw 32/64-bit words of the bit generator, no floating
point) and, above 2^63, from ``Generator.bytes`` with integer rejection
(:func:`_randbelow`). All rejection loops run on arrays: one round draws the
coins of every still-pending sample at once.

Releases built on them: :func:`dpsvm.mechanisms.laplace_release` (discretised
Laplace, :mod:`dpsvm.mechanisms._snapping`) and the discrete Gaussian releases
of :mod:`dpsvm.mechanisms._discrete_gaussian`.

References
----------
.. [1] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
   differential privacy", NeurIPS 2020, arXiv:2004.00010, Algorithms 1-3.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._random import GeneratorLike, as_generator
from .base import check_size

__all__ = [
    "exponential_mechanism_select",
    "exponential_rejection_sample",
    "permute_and_flip_select",
    "sample_bernoulli_exp",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
    "select_exponential",
]

#: Integer scales up to this are sampled with vectorised int64 numpy draws
#: (t·K stays below 2^62 for K < 2^10); larger ones use exact Python integers.
_VECTOR_MAX_SCALE = 2**52
_INT64_SAFE = 2**62


# --------------------------------------------------------------------------- #
# Uniform integers and Bernoulli(exp(-gamma)) (CKS20 Algorithm 1)
# --------------------------------------------------------------------------- #
def _randbelow(gen: np.random.Generator, n: int) -> int:
    """Return a uniform integer in [0, n) for any n ≥ 1 (exact rejection)."""
    if n <= 2**63:
        return int(gen.integers(0, n, dtype=np.uint64)) if n > 1 else 0
    k = (n - 1).bit_length()
    nbytes = (k + 7) // 8
    while True:
        r = int.from_bytes(gen.bytes(nbytes), "little") >> (8 * nbytes - k)
        if r < n:
            return r


def _bernoulli_exp_unit_scalar(num: int, den: int, gen: np.random.Generator) -> bool:
    """Bernoulli(exp(−num/den)) for 0 ≤ num ≤ den (CKS20 Alg. 1, γ ∈ [0, 1])."""
    k = 1
    while _randbelow(gen, den * k) < num:  # A ~ Bernoulli(gamma / k)
        k += 1
    return k % 2 == 1


def _bernoulli_exp_scalar(num: int, den: int, gen: np.random.Generator) -> bool:
    """Bernoulli(exp(−num/den)) for any num ≥ 0, den ≥ 1 (CKS20 Alg. 1).

    For γ > 1: ⌊γ⌋ coins Bernoulli(exp(−1)) and one Bernoulli(exp(−(γ − ⌊γ⌋)));
    the product of independent coins is Bernoulli(exp(−γ)).
    """
    whole, frac = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_unit_scalar(1, 1, gen):
            return False
    return _bernoulli_exp_unit_scalar(frac, den, gen)


def _bernoulli_exp(
    num: NDArray[np.int64], den: int, gen: np.random.Generator
) -> NDArray[np.bool_]:
    """Vectorised Bernoulli(exp(−numᵢ/den)), 0 ≤ numᵢ ≤ den ≤ 2^52.

    CKS20 (arXiv:2004.00010) Algorithm 1 for γ ∈ [0, 1]: draw
    A_k ~ Bernoulli(γ/k) for k = 1, 2, ... until A_k = 0 and return [k odd];
    P[return 1] = Σ_j (−γ)^j/j! = e^{−γ}. All active entries share k.
    """
    # k = 1 on the whole array: A_1 ~ Bernoulli(gamma); A_1 = 0 returns 1.
    first = gen.integers(0, den, size=num.shape[0]) < num
    out = ~first
    active = np.flatnonzero(first)
    k = 2
    while active.size:
        if den * k >= _INT64_SAFE:  # pragma: no cover - needs k >= 2^10 (p < 1/1000!)
            for i in active:
                out[i] = _bernoulli_exp_unit_scalar(int(num[i]), den, gen)
            break
        # A ~ Bernoulli(gamma/k) = [uniform{0, ..., den*k - 1} < num].
        a = gen.integers(0, den * k, size=active.size) < num[active]
        out[active[~a]] = k % 2 == 1
        active = active[a]
        k += 1
    return out


#: Thresholds 20!/k! (k = 20, ..., 1, ascending) of :func:`_bernoulli_exp_one`.
_FACT_N = 20
_FACT_THRESHOLDS = np.array(
    [math.factorial(_FACT_N) // math.factorial(k) for k in range(_FACT_N, 0, -1)],
    dtype=np.int64,
)


def _bernoulli_exp_one(size: int, gen: np.random.Generator) -> NDArray[np.bool_]:
    """``size`` exact Bernoulli(exp(−1)) coins, one uniform integer each.

    CKS20 Algorithm 1 with γ = 1 returns [K odd], K the index of the first 0
    among A_k ~ Bernoulli(1/k), and P(K > k) = 1/k!. With U uniform on
    {0, ..., 20! − 1}, the events {U < 20!/k!} are nested and have probability
    1/k!, so K = 1 + #{k ≤ 20 : U < 20!/k!} has the law of K whenever U ≥ 1;
    U = 0 (K > 20, probability 1/20!) continues Algorithm 1 from k = 21.
    """
    u = gen.integers(0, math.factorial(_FACT_N), size=size, dtype=np.int64)
    # K = 2 (U >= 20!/2), 3 (20!/6 <= U < 20!/2) or 4 (20!/24 <= U < 20!/6)
    # with probability 23/24; otherwise K = 1 + #{k : U < 20!/k!}
    # = 1 + 20 - #{thresholds <= U}.
    t2, t3, t4 = (int(_FACT_THRESHOLDS[_FACT_N - k]) for k in (2, 3, 4))
    out = (u < t2) & (u >= t3)  # K = 3
    rare = np.flatnonzero(u < t4)
    if rare.size:
        s = np.searchsorted(_FACT_THRESHOLDS, u[rare], side="right")
        out[rare] = (1 + _FACT_N - s) % 2 == 1
    for i in rare[u[rare] == 0]:  # pragma: no cover - probability 1/20!
        j = _FACT_N + 1
        while _randbelow(gen, j) < 1:  # A_j ~ Bernoulli(1/j)
            j += 1
        out[i] = j % 2 == 1
    return np.asarray(out, dtype=bool)


def _all_exp_one(
    counts: NDArray[np.int64], gen: np.random.Generator
) -> NDArray[np.bool_]:
    """For each i, whether countsᵢ ≥ 1 independent Bernoulli(exp(−1)) coins all
    come up 1, i.e. one Bernoulli(exp(−countsᵢ)) coin (CKS20 Alg. 1, γ > 1).

    The coins of all entries are drawn in one flat array, at most 8 per entry
    and round (extra coins after a failure are independent and ignored).
    """
    out = np.ones(counts.shape[0], dtype=bool)
    active = np.arange(counts.shape[0])
    left = counts.astype(np.int64)
    while active.size:
        take = np.minimum(left[active], 8)
        coins = _bernoulli_exp_one(int(take.sum()), gen)
        starts = np.cumsum(take) - take
        failures = np.add.reduceat((~coins).astype(np.int64), starts)
        ok = failures == 0
        out[active[~ok]] = False
        left[active] -= take
        active = active[ok & (left[active] > 0)]
    return out


def _leading_exp_one(size: int, gen: np.random.Generator) -> NDArray[np.int64]:
    """V ~ number of Bernoulli(exp(−1)) successes before the first failure.

    CKS20 Algorithm 2's geometric part; the coins are drawn 2 per entry and
    round (one after the first failure is independent and ignored).
    """
    v = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        coins = _bernoulli_exp_one(active.size * 2, gen).reshape(-1, 2)
        first, second = coins[:, 0], coins[:, 1]
        lead = first.astype(np.int64) + (first & second)
        v[active] += lead
        active = active[lead == 2]
    return v


def _bernoulli_exp_any(
    num: NDArray[np.int64], den: int, gen: np.random.Generator
) -> NDArray[np.bool_]:
    """Vectorised Bernoulli(exp(−numᵢ/den)) for numᵢ ≥ 0 and 1 ≤ den ≤ 2^52.

    CKS20 Algorithm 1 for γ > 1: ⌊γ⌋ coins Bernoulli(exp(−1)) (stopping at the
    first 0) and one Bernoulli(exp(−(γ − ⌊γ⌋))).
    """
    whole, frac = np.divmod(num, den)
    out = np.ones(num.shape[0], dtype=bool)
    many = np.flatnonzero(whole > 0)
    if many.size:
        out[many] = _all_exp_one(whole[many], gen)
    idx = np.flatnonzero(out)
    out[idx] = _bernoulli_exp(frac[idx], den, gen)
    return out


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}.")
    return int(value)


def sample_bernoulli_exp(
    numerators: ArrayLike, denominator: int, rng: GeneratorLike = None
) -> NDArray[np.bool_]:
    """Draw exact independent Bernoulli(exp(−γᵢ)) coins, γᵢ = numᵢ/den ≥ 0.

    Parameters
    ----------
    numerators : array-like of non-negative ints
        The numerators of the γᵢ (any shape).
    denominator : int
        The common denominator ≥ 1.
    rng : None, int or numpy.random.Generator, default=None
        ``None`` draws from a fresh CSPRNG; an int is for tests only.

    Returns
    -------
    ndarray of bool
        The coins, with the shape of ``numerators``.

    Raises
    ------
    TypeError
        If the numerators are not integers or the denominator is not an int.
    ValueError
        If a numerator is negative or the denominator is below 1.

    Notes
    -----
    Canonne, Kamath & Steinke (NeurIPS 2020, arXiv:2004.00010), Algorithm 1
    (γ ∈ [0, 1]: the index of the first failure of Bernoulli(γ/k) coins is odd
    with probability e^{−γ}; γ > 1: a product of ⌊γ⌋ + 1 such coins). Every
    coin compares a uniform integer with an integer. Vectorised on int64 when
    den ≤ 2^52 and the numerators fit; otherwise exact Python integers.

    Examples
    --------
    >>> sample_bernoulli_exp([0, 10**6], 1, rng=0).tolist()  # exp(0), exp(-10^6)
    [True, False]
    """
    arr = np.asarray(numerators)
    if arr.dtype.kind not in "iuO":
        raise TypeError(f"numerators must be integers, got dtype {arr.dtype}.")
    den = _check_int(denominator, "denominator", 1)
    flat = [int(v) for v in arr.ravel()] if arr.dtype.kind == "O" else None
    if flat is not None and any(v < 0 for v in flat):
        raise ValueError("numerators must be >= 0.")
    if flat is None and arr.size and int(arr.min()) < 0:
        raise ValueError("numerators must be >= 0.")
    gen = as_generator(rng)
    small = flat is None and (arr.size == 0 or int(arr.max()) < 2**62)
    if small and den <= _VECTOR_MAX_SCALE:
        out = _bernoulli_exp_any(arr.ravel().astype(np.int64), den, gen)
    else:
        values = flat if flat is not None else [int(v) for v in arr.ravel()]
        out = np.array([_bernoulli_exp_scalar(v, den, gen) for v in values], bool)
    return out.reshape(arr.shape)


# --------------------------------------------------------------------------- #
# Discrete Laplace (CKS20 Algorithm 2)
# --------------------------------------------------------------------------- #
def _discrete_laplace_scalar(t: int, gen: np.random.Generator) -> int:
    """One exact DLap(t) draw with Python integers (CKS20 Alg. 2, s = 1)."""
    while True:
        u = _randbelow(gen, t)  # U ~ Uniform{0, ..., t-1}
        if not _bernoulli_exp_unit_scalar(u, t, gen):  # D ~ Bernoulli(exp(-U/t))
            continue
        v = 0
        while _bernoulli_exp_unit_scalar(1, 1, gen):  # A ~ Bernoulli(exp(-1))
            v += 1
        x = u + t * v  # X ~ Geometric(1 - exp(-1/t)) on {0, 1, ...}
        negative = _randbelow(gen, 2) == 1  # B ~ Bernoulli(1/2)
        if negative and x == 0:
            continue  # reject (B = 1, Y = 0) so that 0 is not counted twice
        return -x if negative else x


def _discrete_laplace_vector(
    t: int, size: int, gen: np.random.Generator
) -> NDArray[np.int64] | NDArray[np.object_]:
    """``size`` exact DLap(t) draws, vectorised for t ≤ 2^52 (CKS20 Alg. 2).

    The Laplace releases' sampler: it consumes the generator exactly as before
    the exact-sampler module existed, so seeded Laplace releases are unchanged.
    The discrete Gaussian uses the faster :func:`_discrete_laplace_batched`
    (same law, another order of draws).
    """
    out: NDArray[Any] = np.zeros(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        u = gen.integers(0, t, size=pending.size)  # U ~ Uniform{0, ..., t-1}
        accepted = _bernoulli_exp(u, t, gen)  # D ~ Bernoulli(exp(-U/t))
        idx, u = pending[accepted], u[accepted]
        # V: successes of Bernoulli(exp(-1)) before the first failure.
        v = np.zeros(idx.size, dtype=np.int64)
        active = np.arange(idx.size)
        while active.size:
            a = _bernoulli_exp(np.ones(active.size, dtype=np.int64), 1, gen)
            active = active[a]
            v[active] += 1
        negative = gen.integers(0, 2, size=idx.size) == 1  # B ~ Bernoulli(1/2)
        if int(v.max(initial=0)) >= _INT64_SAFE // t - 1:  # pragma: no cover
            # V >= 2^10 (probability below e^-1000): continue in Python ints.
            out = out.astype(object)
            u, v = u.astype(object), v.astype(object)
        x = u + t * v  # X = U + t V ~ Geometric(1 - exp(-1/t)) on {0, 1, ...}
        # Reject (B = 1, X = 0) so that 0 is not counted twice.
        rejected = negative & (x == 0)
        keep = ~rejected
        out[idx[keep]] = np.where(negative[keep], -x[keep], x[keep])
        pending = np.concatenate([pending[~accepted], idx[rejected]])
    return out


def _discrete_laplace_batched(
    t: int, size: int, gen: np.random.Generator
) -> NDArray[np.int64] | NDArray[np.object_]:
    """``size`` exact DLap(t) draws, vectorised for t ≤ 2^52 (CKS20 Alg. 2).

    Each round runs Algorithm 2 on about 5/3 times as many independent
    candidates as are still needed (U is accepted with probability
    ≈ 1 − e⁻¹) and keeps the first accepted ones: the accepted candidates are
    i.i.d. DLap(t), so which of them are kept does not change the law.
    """
    out: NDArray[Any] = np.zeros(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        m = need + 2 * need // 3 + 16
        u = gen.integers(0, t, size=m)  # U ~ Uniform{0, ..., t-1}
        u = u[_bernoulli_exp(u, t, gen)]  # D ~ Bernoulli(exp(-U/t)): keep D = 1
        # V: successes of A ~ Bernoulli(exp(-1)) before the first failure.
        v = _leading_exp_one(u.size, gen)
        negative = gen.integers(0, 2, size=u.size) == 1  # B ~ Bernoulli(1/2)
        if int(v.max(initial=0)) >= _INT64_SAFE // t - 1:  # pragma: no cover
            # V >= 2^10 (probability below e^-1000): continue in Python ints.
            out = out.astype(object)
            u, v = u.astype(object), v.astype(object)
        x = u + t * v  # X = U + t V ~ Geometric(1 - exp(-1/t)) on {0, 1, ...}
        # Reject (B = 1, X = 0) so that 0 is not counted twice.
        keep = ~(negative & (x == 0))
        values = np.where(negative, -x, x)[keep][:need]
        out[filled : filled + values.size] = values
        filled += values.size
    return out


def _discrete_laplace(
    t: int, n: int, gen: np.random.Generator, *, batched: bool = False
) -> NDArray[np.int64] | NDArray[np.object_]:
    """``n`` exact DLap(t) draws (vectorised when t ≤ 2^52)."""
    if t <= _VECTOR_MAX_SCALE:
        if batched:
            return _discrete_laplace_batched(t, n, gen)
        return _discrete_laplace_vector(t, n, gen)
    draws = [_discrete_laplace_scalar(t, gen) for _ in range(n)]
    if all(-_INT64_SAFE < z < _INT64_SAFE for z in draws):
        return np.array(draws, dtype=np.int64)
    obj = np.empty(n, dtype=object)
    obj[:] = draws
    return obj


def _shape_and_count(size: int | tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    shape = check_size(size)
    out_shape = shape if isinstance(shape, tuple) else (shape,)
    return out_shape, math.prod(out_shape)


def sample_discrete_laplace(
    size: int | tuple[int, ...], scale: int, rng: GeneratorLike = None
) -> NDArray[np.int64] | NDArray[np.object_]:
    """Draw exact i.i.d. discrete Laplace integers, P(Z = z) ∝ exp(−|z|/scale).

    Parameters
    ----------
    size : int or tuple of int
        Number of draws or output shape (entries > 0).
    scale : int
        The integer scale t ≥ 1.
    rng : None, int or numpy.random.Generator, default=None
        Passed through :func:`dpsvm.utils._random.as_generator`: ``None``
        draws from a fresh CSPRNG; an int is for tests and documentation only.

    Returns
    -------
    ndarray of int64 (object dtype of Python ints if a draw exceeds int64)
        The draws.

    Raises
    ------
    TypeError
        If ``scale`` is not an int.
    ValueError
        If ``scale`` < 1 or ``size`` is not positive.

    Notes
    -----
    Canonne, Kamath & Steinke (NeurIPS 2020, arXiv:2004.00010), Algorithm 2
    with s = 1, using Algorithm 1 for the Bernoulli(exp(−γ)) coins. Every
    coin is a comparison of a uniform integer with an integer, so the output law
    is exactly the discrete Laplace (given uniform integers); nothing depends on
    floating-point ``log`` or ``exp``.

    Examples
    --------
    >>> z = sample_discrete_laplace(5, 3, rng=0)
    >>> z.dtype, z.shape
    (dtype('int64'), (5,))
    """
    out_shape, n = _shape_and_count(size)
    t = _check_int(scale, "scale", 1)
    gen = as_generator(rng)
    return _discrete_laplace(t, n, gen).reshape(out_shape)


# --------------------------------------------------------------------------- #
# Discrete Gaussian (CKS20 Algorithm 3)
# --------------------------------------------------------------------------- #
def _gaussian_accept_scalar(u: int, sigma2: Fraction, t: int, gen: Any) -> bool:
    """C ~ Bernoulli(exp(−(u − σ²/t)²/(2σ²))) with Python integers (CKS20 Alg. 3)."""
    gamma = (u - sigma2 / t) ** 2 / (2 * sigma2)
    return _bernoulli_exp_scalar(gamma.numerator, gamma.denominator, gen)


def _discrete_gaussian(
    sigma2: Fraction, t: int, n: int, gen: np.random.Generator
) -> NDArray[np.int64] | NDArray[np.object_]:
    """``n`` exact N_Z(0, σ²) draws with the Laplace proposal of scale t.

    CKS20 (arXiv:2004.00010) Algorithm 3: Y ~ DLap(t), accept with probability
    exp(−(|Y| − σ²/t)²/(2σ²)). The proposal times the acceptance is
    ∝ exp(−|y|/t − (|y| − σ²/t)²/(2σ²)) = exp(−y²/(2σ²) − σ²/(2t²)), so the
    output is exactly N_Z(0, σ²) for *any* integer t ≥ 1; t = ⌊σ⌋ + 1 (their
    choice) keeps the acceptance rate high.

    With σ²/t = a/b in lowest terms, γ = (|Y| − a/b)²/(2σ²)
    = f·(|Y|·b − a)²/D for integers f, D computed once; the common case (σ² =
    c·t, as :mod:`~dpsvm.mechanisms._discrete_gaussian` chooses) has b = 1,
    f = 1 and D = 2ct, so γ's numerator and denominator stay in int64.
    """
    ratio = sigma2 / t
    a, b = ratio.numerator, ratio.denominator
    # gamma = (u b - a)^2 / (b^2 * 2 sigma2) = f (u b - a)^2 / D in lowest terms
    # of the u-independent part.
    coef = Fraction(1, 2 * b * b) / sigma2
    f, den = coef.numerator, coef.denominator
    # Largest |Y| with f (|Y| b - a)^2 < 2^62 (vectorised int64 path).
    root = math.isqrt(_INT64_SAFE // f) if f <= _INT64_SAFE else 0
    u_max = (root - a) // b if root > a else -1
    vector = den <= _VECTOR_MAX_SCALE and u_max >= 0
    out: NDArray[Any] = np.zeros(n, dtype=np.int64)
    filled = 0
    while filled < n:
        # About 1.4 times the candidates still needed (the acceptance rate is
        # about 0.76 for t = floor(sigma) + 1); the accepted ones are i.i.d.
        # N_Z(0, sigma^2) and the first of them are kept.
        need = n - filled
        m = need + 2 * need // 5 + 16
        y = _discrete_laplace(t, m, gen, batched=True)
        if y.dtype != np.int64:  # pragma: no cover - |Y| >= 2^62: p < e^-2^40
            out = out.astype(object)
        accept = np.zeros(m, dtype=bool)
        u = np.abs(y)
        fast = (u <= u_max) if vector else np.zeros(m, dtype=bool)
        if np.any(fast):
            w = u[fast].astype(np.int64) * b - a
            accept[fast] = _bernoulli_exp_any(f * w * w, den, gen)
        for i in np.flatnonzero(~fast):  # tails beyond int64: exact Python ints
            accept[i] = _gaussian_accept_scalar(int(u[i]), sigma2, t, gen)
        values = y[accept][:need]
        out[filled : filled + values.size] = values
        filled += values.size
    return out


def _check_sigma2(sigma2: Any) -> Fraction:
    if isinstance(sigma2, bool) or not isinstance(sigma2, numbers.Rational):
        raise TypeError(
            "sigma2 must be an int or a fractions.Fraction (an exact rational), "
            f"got {type(sigma2).__name__}."
        )
    value = Fraction(sigma2)
    if value <= 0:
        raise ValueError(f"sigma2 must be > 0, got {value}.")
    return value


def sample_discrete_gaussian(
    size: int | tuple[int, ...],
    sigma2: int | Fraction,
    rng: GeneratorLike = None,
) -> NDArray[np.int64] | NDArray[np.object_]:
    """Draw exact i.i.d. discrete Gaussian integers, P(Z = z) ∝ exp(−z²/(2σ²)).

    Parameters
    ----------
    size : int or tuple of int
        Number of draws or output shape (entries > 0).
    sigma2 : int or fractions.Fraction
        The variance parameter σ² > 0 as an exact rational.
    rng : None, int or numpy.random.Generator, default=None
        ``None`` draws from a fresh CSPRNG; an int is for tests only.

    Returns
    -------
    ndarray of int64 (object dtype of Python ints if a draw exceeds int64)
        The draws.

    Raises
    ------
    TypeError
        If ``sigma2`` is not an exact rational.
    ValueError
        If ``sigma2`` ≤ 0 or ``size`` is not positive.

    Notes
    -----
    Canonne, Kamath & Steinke (NeurIPS 2020, arXiv:2004.00010), Algorithm 3
    with t = ⌊σ⌋ + 1: a discrete Laplace proposal (their Algorithm 2) accepted
    with an exact Bernoulli(exp(−(|Y| − σ²/t)²/(2σ²))) coin (their
    Algorithm 1). Exact given uniform integers; no floating point.

    Examples
    --------
    >>> z = sample_discrete_gaussian(4, 9, rng=0)  # sigma = 3
    >>> z.dtype, z.shape
    (dtype('int64'), (4,))
    """
    out_shape, n = _shape_and_count(size)
    s2 = _check_sigma2(sigma2)
    # floor(sigma) = isqrt(floor(sigma^2)); CKS20 Alg. 3: t = floor(sigma) + 1.
    t = math.isqrt(s2.numerator // s2.denominator) + 1
    gen = as_generator(rng)
    return _discrete_gaussian(s2, t, n, gen).reshape(out_shape)


# --------------------------------------------------------------------------- #
# Exponential mechanism over integer scores (exact rejection sampler)
# --------------------------------------------------------------------------- #
def _bernoulli_exp_gap(
    gap: NDArray[Any], numerator: int, denominator: int, gen: np.random.Generator
) -> NDArray[np.bool_]:
    """Coins Bernoulli(exp(−numerator·gapᵢ/denominator)), exact, vectorised.

    Where numerator·gapᵢ overflows int64, γᵢ > 2^62/den ≥ 2^10 = M (den ≤
    2^52): the coin is Bernoulli(exp(−M))·Bernoulli(exp(−(γᵢ − M))) (CKS20
    Alg. 1 splits γ the same way), the first factor drawn vectorised (it
    almost surely fails) and the rare survivors finished in Python integers.
    """
    n = gap.shape[0]
    vector = denominator <= _VECTOR_MAX_SCALE and numerator < _INT64_SAFE
    if not vector or gap.dtype != np.int64:
        return np.array(
            [_bernoulli_exp_scalar(numerator * int(g), denominator, gen) for g in gap],
            dtype=bool,
        )
    limit = _INT64_SAFE // max(numerator, 1)
    big = gap > limit
    coins = np.empty(n, dtype=bool)
    small = ~big
    coins[small] = _bernoulli_exp_any(numerator * gap[small], denominator, gen)
    if np.any(big):
        m_whole = 2**10
        first = _bernoulli_exp_any(
            np.full(int(big.sum()), m_whole * denominator, dtype=np.int64),
            denominator,
            gen,
        )
        idx = np.flatnonzero(big)
        coins[idx] = first
        for i in idx[first]:  # pragma: no cover - probability below e^-1024
            rest = numerator * int(gap[i]) - m_whole * denominator
            coins[i] = _bernoulli_exp_scalar(rest, denominator, gen)
    return coins


def select_exponential(
    scores: ArrayLike, numerator: int, denominator: int, gen: np.random.Generator
) -> int:
    """Sample i with P(i) ∝ exp(λ·Kᵢ), λ = numerator/denominator, Kᵢ integers.

    Rejection from the uniform proposal: draw i uniformly and accept with an
    exact Bernoulli(exp(−λ(K_max − Kᵢ))) coin (CKS20 Alg. 1). The accepted index
    has probability ∝ exp(−λ(K_max − Kᵢ)) ∝ exp(λKᵢ): exactly the exponential
    mechanism's law (McSherry & Talwar 2007) on the integer scores. The
    maximiser is accepted with probability 1, so a round of n proposals accepts
    one with probability ≥ 1 − (1 − 1/n)^n > 0.63. Proposals are drawn n at a
    time and the first accepted one (in drawing order) is returned.

    Parameters
    ----------
    scores : array-like of ints, shape (n,)
        The integer scores Kᵢ (int64 or Python ints).
    numerator, denominator : int
        λ = numerator/denominator ≥ 0.
    gen : numpy.random.Generator
        The noise source.

    Returns
    -------
    int
        The selected index.
    """
    k = np.asarray(scores)
    n = k.shape[0]
    gap: NDArray[Any]
    if k.dtype == np.int64 and int(k.max()) - int(k.min()) < 2**63:
        gap = int(k.max()) - k
    else:  # scores (or their spread) beyond int64: Python integers
        top = max(int(v) for v in k)
        gap = np.array([top - int(v) for v in k], dtype=object)
    while True:
        idx = np.asarray(gen.integers(0, n, size=n), dtype=np.int64)
        coins = _bernoulli_exp_gap(gap[idx], numerator, denominator, gen)
        hit = np.flatnonzero(coins)
        if hit.size:
            return int(idx[hit[0]])


#: The utility grid is 2^UTILITY_GRID_BITS times finer than Δu.
UTILITY_GRID_BITS = 20
_LAMBDA_BITS = 24


def _grid_scores(
    utilities: NDArray[np.float64], epsilon: float, sensitivity: float
) -> tuple[NDArray[Any], int, int]:
    """Integer scores on the public grid 2^j and λ = num/den (see below)."""
    j = math.frexp(sensitivity)[1] - 1 - UTILITY_GRID_BITS
    with np.errstate(over="ignore", under="ignore"):
        scaled = np.ldexp(utilities, -j)
    scores: NDArray[Any]
    if bool(np.all(np.abs(scaled) < 2.0**62)):
        scores = np.rint(scaled).astype(np.int64)  # exact: power-of-two scaling
    else:  # beyond int64: exact rounding of each double with Python integers
        grid = Fraction(2) ** j
        scores = np.array([round(Fraction(float(u)) / grid) for u in utilities], object)
    num, den = _utility_coefficient(float(epsilon), float(sensitivity), j)
    return scores, num, den


def exponential_mechanism_select(
    utilities: NDArray[np.float64],
    epsilon: float,
    sensitivity: float,
    gen: np.random.Generator,
) -> int:
    """The exponential mechanism, exact over doubles (utilities on a public grid).

    1. Utilities are rounded to the public grid 2^j, j = ⌊log₂ Δu⌋ − 20:
       Kᵢ = rint(uᵢ/2^j), exactly. Rounding raises the sensitivity to
       Δ_g = Δu/2^j + 1 grid units (|rint(a) − rint(b)| ≤ |a − b| + 1).
    2. λ = ε/(2Δ_g), rounded *down* to a rational with a 2^P denominator and
       24 significant bits (so the mechanism is ε′-DP with ε′ = 2λΔ_g ≤ ε:
       the calibration is McSherry & Talwar's, Thm 6, up to a relative 2^-19).
    3. i is drawn with P(i) ∝ exp(λKᵢ) by :func:`select_exponential` (exact).

    Parameters
    ----------
    utilities : ndarray of float64, shape (n,)
        Finite utilities.
    epsilon : float
        ε > 0.
    sensitivity : float
        Δu > 0.
    gen : numpy.random.Generator
        The noise source.

    Returns
    -------
    int
        The selected index.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> exponential_mechanism_select(np.array([0.0, 50.0]), 10.0, 1.0, gen)
    1
    """
    scores, num, den = _grid_scores(utilities, epsilon, sensitivity)
    return select_exponential(scores, num, den, gen)


def permute_and_flip_select(
    utilities: NDArray[np.float64],
    epsilon: float,
    sensitivity: float,
    gen: np.random.Generator,
) -> int:
    """Permute-and-flip (McKenna & Sheldon 2020, Alg. 1), exact over doubles.

    The utilities are rounded to the grid of :func:`exponential_mechanism_select`
    (same λ ≤ ε/(2Δ_g)); the candidates are visited in a uniformly random order
    and the walk stops at the first r whose exact Bernoulli(exp(−λ(K_max − K_r)))
    coin (CKS20 Alg. 1) is 1; the maximiser always stops it. One coin per
    candidate is drawn up front, so the number of draws does not depend on the
    data. ε′-DP with ε′ = 2λΔ_g ≤ ε (McKenna & Sheldon, Thm 1, on the rounded
    utilities).

    Parameters
    ----------
    utilities : ndarray of float64, shape (n,)
        Finite utilities.
    epsilon : float
        ε > 0.
    sensitivity : float
        Δu > 0.
    gen : numpy.random.Generator
        The noise source.

    Returns
    -------
    int
        The selected index.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> permute_and_flip_select(np.array([0.0, 50.0]), 10.0, 1.0, gen)
    1
    """
    scores, num, den = _grid_scores(utilities, epsilon, sensitivity)
    gap: NDArray[Any]
    if scores.dtype == np.int64:
        gap = int(scores.max()) - scores
    else:  # pragma: no cover - scores beyond int64
        top = max(int(v) for v in scores)
        gap = np.array([top - int(v) for v in scores], dtype=object)
    order = gen.permutation(scores.shape[0])
    coins = _bernoulli_exp_gap(gap[order], num, den, gen)
    return int(order[int(np.flatnonzero(coins)[0])])


@functools.lru_cache(maxsize=256)
def _utility_coefficient(epsilon: float, sensitivity: float, j: int) -> tuple[int, int]:
    """λ = ε/(2Δ_g), Δ_g = Δu/2^j + 1, rounded down to 24 bits, as (num, den)."""
    delta_g = Fraction(sensitivity) / Fraction(2) ** j + 1
    lam = Fraction(epsilon) / (2 * delta_g)  # McSherry & Talwar (2007), Thm 6
    # floor(log2 lam) up to 1: only sets the precision of the rounding.
    p = max(
        _LAMBDA_BITS - (lam.numerator.bit_length() - lam.denominator.bit_length()), 0
    )
    num = math.floor(lam * 2**p)  # rounded down: privacy only improves
    frac = Fraction(num, 2**p)
    return frac.numerator, frac.denominator


# --------------------------------------------------------------------------- #
# Exponential mechanism over a continuous base measure (exact rejection)
# --------------------------------------------------------------------------- #
#: Proposals drawn per round of :func:`exponential_rejection_sample`: the
#: first round draws the minimum, each further round twice as many, up to the
#: maximum.
REJECTION_BATCH_MIN = 256
REJECTION_BATCH_MAX = 2**16


@functools.lru_cache(maxsize=256)
def _scale_coefficient(scale: float, sensitivity: float, j: int) -> tuple[int, int]:
    """λ = scale·Δu/Δ_g (grid units), Δ_g = Δu/2^j + 1, rounded down to 24 bits."""
    delta_u = Fraction(sensitivity)
    delta_g = delta_u / Fraction(2) ** j + 1
    # exp(scale·u) with sensitivity Δu is the exponential mechanism at
    # ε = 2·scale·Δu (McSherry & Talwar 2007, Thm 6); on the grid its exponent
    # is ε/(2Δ_g) = scale·Δu/Δ_g per grid unit (≤ scale·2^j).
    lam = Fraction(scale) * delta_u / delta_g
    p = max(
        _LAMBDA_BITS - (lam.numerator.bit_length() - lam.denominator.bit_length()), 0
    )
    frac = Fraction(math.floor(lam * 2**p), 2**p)  # rounded down: privacy improves
    return frac.numerator, frac.denominator


def exponential_rejection_sample(
    propose: Callable[[int, np.random.Generator], NDArray[np.float64]],
    utility: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    utility_bound: float,
    scale: float,
    sensitivity: float,
    gen: np.random.Generator,
) -> NDArray[np.float64]:
    """One draw of the exponential mechanism over a public base measure, exactly.

    1. Proposals z ~ μ come from ``propose(m, gen)``: the public base measure
       (e.g. uniform on a ball), drawn without the data, so its floating-point
       draws reveal nothing; μ is the law of those doubles.
    2. The utility is rounded to the public grid 2^j, j = ⌊log₂ Δu⌋ − 20:
       K(z) = rint(u(z)/2^j), capped at K_top = rint(U/2^j) + 2 where U ≥ sup u
       (the cap never acts while U exceeds every computed u(z): for
       ``sample_linear_exponential``, U = radius·‖v‖·(1 + 2⁻⁴⁰) does so for d
       up to about 8,000, where the rounding of ⟨z, v⟩, at most (d + 3)·2⁻⁵³
       relative, stays below 2⁻⁴⁰; were it to act, K = min(rint(u/2^j), K_top)
       would have sensitivity (1 + 2⁻⁴⁰)·Δu/2^j + 1, not Δ_g). Rounding raises
       the sensitivity to Δ_g = Δu/2^j + 1 grid units.
    3. z is accepted with an exact Bernoulli(exp(−λ(K_top − K(z)))) coin (CKS20
       Alg. 1), λ = scale·Δu/Δ_g rounded *down* to 24 bits (≤ scale·2^j).

    The accepted z has law ∝ exp(λK(z))·μ(dz): exactly the exponential
    mechanism with base measure μ on the rounded utility, ε′-DP with
    ε′ = 2λΔ_g ≤ 2·scale·Δu (McSherry & Talwar 2007, Thm 6, whose proof holds
    for any data-independent base measure).

    Parameters
    ----------
    propose : callable (m, gen) -> ndarray of shape (m, d)
        m i.i.d. draws of the base measure; must not depend on the data.
    utility : callable (ndarray of shape (m, d)) -> ndarray of shape (m,)
        The (private) utility u(z) of each proposal, finite.
    utility_bound : float
        U ≥ u(z) for every z in the support of μ (may depend on the data: it
        only sets the running time, see Notes).
    scale : float
        The exponent's factor: the target density is ∝ exp(scale·u(z)).
    sensitivity : float
        Δu > 0, the utility's sensitivity (sets the grid).
    gen : numpy.random.Generator
        Randomness for the proposals and the coins.

    Returns
    -------
    ndarray of shape (d,)
        The accepted proposal.

    Notes
    -----
    **Running time.** Each proposal is accepted with probability
    p = E_μ[exp(−λ(K_top − K(z)))] ≈ e^{−2λ}·E_μ[exp(−scale·(U − u(z)))];
    the number of proposals is geometric with mean 1/p. It depends on the data
    only through that ratio of the mechanism's normaliser to exp(λK_top), as
    the expected rounds of :func:`select_exponential` do. Proposals are drawn
    in rounds of 256, 512, …, 2^16 (the first accepted in drawing order is
    returned), so the number of draws is what the normaliser implies.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> z = exponential_rejection_sample(
    ...     lambda m, g: g.uniform(-1, 1, size=(m, 1)), lambda Z: Z[:, 0], 1.0,
    ...     20.0, 1.0, gen)
    >>> bool(z[0] > 0.5)  # density ∝ exp(20 z) on [−1, 1]
    True
    """
    delta_u = float(sensitivity)
    if not (0.0 < delta_u < math.inf and 0.0 <= scale < math.inf):
        raise ValueError(
            "sensitivity must be positive and scale non-negative, both finite."
        )
    if not 0.0 <= utility_bound < math.inf:
        raise ValueError(f"utility_bound must be finite and >= 0, got {utility_bound}.")
    j = math.frexp(delta_u)[1] - 1 - UTILITY_GRID_BITS
    num, den = _scale_coefficient(float(scale), delta_u, j)
    top = round(Fraction(utility_bound) / Fraction(2) ** j) + 2
    m = REJECTION_BATCH_MIN
    while True:
        Z = np.asarray(propose(m, gen), dtype=np.float64)
        u = np.asarray(utility(Z), dtype=np.float64)
        with np.errstate(over="ignore", under="ignore"):
            scaled = np.ldexp(u, -j)
        gap: NDArray[Any]
        if top < 2**62 and bool(np.all(np.abs(scaled) < 2.0**62)):
            k = np.rint(scaled).astype(np.int64)  # exact: power-of-two scaling
            gap = top - np.minimum(k, top)
        else:  # beyond int64: exact rounding with Python integers
            grid = Fraction(2) ** j
            gap = np.array(
                [top - min(round(Fraction(float(x)) / grid), top) for x in u], object
            )
        coins = _bernoulli_exp_gap(gap, num, den, gen)
        hit = np.flatnonzero(coins)
        if hit.size:
            return np.asarray(Z[int(hit[0])], dtype=np.float64)
        m = min(2 * m, REJECTION_BATCH_MAX)
