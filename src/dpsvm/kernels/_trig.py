# SPDX-License-Identifier: BSD-3-Clause
"""Vectorised float64 cosine and sine from numpy array operations.

numpy evaluates float64 ``np.cos``/``np.sin`` one value at a time through the C
library (≈ 20–30 ns per value on x86-64), while its float64 multiply and add are
SIMD loops (≈ 0.2–0.5 ns per value on cache-resident data). This module
evaluates s·cos(x) with 26 such array passes per value and (s·cos(x), s·sin(x))
with 44 passes per argument, on tiles of 2¹⁵ values that stay in a 2 MiB L2
cache: 2–2.5× faster than numpy's float64 cos, and 2.5–3× faster than its cos
plus sin (AVX-512 Xeon, numpy 2.4). It serves the float64 path of
:func:`dpsvm.kernels.fourier_features`.

Algorithm (Cody & Waite [1], ch. 8; Muller [2], ch. 11):

1. Additive range reduction modulo π: k = rint(x/π) by the 1.5·2⁵² "magic
   number" addition, r = x − k·P₁ − k·P₂ ∈ [−π/2, π/2], with a Cody–Waite split
   π ≈ P₁ + P₂ (P₁ has 30 significant bits, so k·P₁ is exact for |k| ≤ 2²⁰ and
   x − k·P₁ is exact by Sterbenz's lemma; |π − P₁ − P₂| < 3.3e−26). Then
   cos x = (−1)ᵏ cos r and sin x = (−1)ᵏ sin r: one reduction serves both.
2. Polynomials in u = r², by Horner's rule: cos r = 1 − u/2 + c₂u² + … + c₈u⁸
   and sin r = r·(1 + s₁u + … + s₈u⁸), with the leading coefficients fixed
   (1, −½; 1, fl(−1/6)) and the others from a Remez exchange in 40-digit
   arithmetic (mpmath) on |r| ≤ π/2·(1 + 10⁻⁴). Approximation error with the
   coefficients rounded to float64: 6.2e−18 (cos) and 1.1e−18 (sin), absolute.
3. The sign (−1)ᵏ: k's parity is the lowest mantissa bit of k + 1.5·2⁵²; one
   integer shift moves it to the sign bit and one XOR applies it, in the pass
   that writes the output (so a strided output costs one strided pass). The
   scale s is folded into the coefficients.

Arguments with |rint(x/π)| > 2²⁰ (|x| ≳ 3.3e6, where the split of π stops
being exact), infinities and NaNs are recomputed with ``np.cos``/``np.sin``,
outside any ``np.errstate``, so the values and warnings are numpy's own.

Accuracy, for |x| < 3.3e6: the absolute error is at most 3.4e−16 against
numpy's cos and sin (3.3e−16 against 40-digit values), and 4e−16·|s| with a
scale s folded in (measured over 1.2·10⁸ arguments, uniform in ranges up to
±3.3e6, near multiples of π/2 and near the range bound; asserted in
``tests/kernels/test_trig.py``). That is about 3 units in the last place of a
result in [½, 1); the largest errors are those of cos where |r| is near π/2
(1 − u/2 cancels, and r itself is rounded to 1.1e−16) and of sin near ±1. Near
the zeros of cos and sin the error is small in absolute terms only, not
relative to the tiny value.

References
----------
.. [1] W. J. Cody, W. Waite, "Software Manual for the Elementary Functions",
   Prentice-Hall, 1980, ch. 8 (sin and cos, additive range reduction).
.. [2] J.-M. Muller, "Elementary Functions: Algorithms and Implementation",
   3rd ed., Birkhäuser, 2016, ch. 3 (minimax polynomials, Remez) and ch. 11
   (range reduction, Cody–Waite).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["FAST_ARGUMENT_BOUND", "TILE_SIZE", "cos", "cos_sin"]

#: Values per tile: the tile of x, its outputs and 3 (cos) or 5 (cos_sin)
#: scratch tiles of 2¹⁵ float64 values (256 KiB each) fit in a 2 MiB L2 cache,
#: and the 26–44 numpy calls per tile cost ≈ 0.5 ns per value. (Measured:
#: 2¹⁴–2¹⁶ are within noise of each other, 2¹³ and 2¹⁷ are slower.)
TILE_SIZE = 1 << 15

#: |k| above which an argument is sent to numpy: k·P₁ is exact for |k| ≤ 2²⁰
#: (21 + 30 ≤ 53 bits).
_K_MAX = float(1 << 20)
#: Every argument with |x| below this bound takes the fast path.
FAST_ARGUMENT_BOUND = (_K_MAX - 0.5) * 3.141592653589793

#: 1.5·2⁵²: adding it to |y| < 2⁵¹ rounds y to an integer k (half to even) and
#: leaves k's parity in the lowest mantissa bit.
_MAGIC = np.float64(6755399441055744.0)
_INV_PI = np.float64(0.3183098861837907)  # fl(1/π)
# Cody–Waite split of π: P1 = π truncated to 30 significant bits (exact
# products with |k| ≤ 2²⁰), P2 = fl(π − P1); |π − P1 − P2| ≈ 3.3e−26.
_NEG_PI_1 = np.float64(-float.fromhex("0x1.921fb54000000p+1"))
_PI_2 = np.float64(float.fromhex("0x1.10b4611a62633p-29"))
_SIGN_SHIFT = np.uint64(63)

# cos r = Σ C[j]·u^j and sin r = r·Σ S[j]·u^j, u = r², |r| ≤ π/2·(1 + 1e−4).
# C[0] = 1, C[1] = −1/2, S[0] = 1, S[1] = fl(−1/6) are fixed; the others
# minimise the maximum absolute error of Σ (resp. r·Σ) by a Remez exchange in
# mpmath at 40 digits.
_COS = (
    1.0,
    -0.5,
    0.04166666666666583,
    -0.0013888888888829978,
    2.480158728576816e-05,
    -2.7557317066795545e-07,
    2.0876592494577707e-09,
    -1.1463632622367364e-11,
    4.616102899009957e-14,
)
_SIN = (
    1.0,
    -0.16666666666666666,
    0.008333333333333196,
    -0.0001984126984120764,
    2.7557319210704763e-06,
    -2.5052106826670522e-08,
    1.605893725218371e-10,
    -7.64292662713734e-13,
    2.7204950303683665e-15,
)

_F64 = np.dtype(np.float64)
_NULL = contextlib.nullcontext()
_Saved = tuple[NDArray[np.bool_], NDArray[np.float64]]


def _scaled(coefs: tuple[float, ...], scale: float) -> tuple[np.float64, ...]:
    # numpy scalars: a Python float would be converted on every ufunc call.
    return tuple(np.float64(float(scale) * c) for c in coefs)


def _horner(u: Any, coefs: tuple[np.float64, ...], acc: Any) -> None:
    """acc ← Σ coefs[j]·u^j, two in-place passes per degree."""
    np.multiply(u, coefs[-1], out=acc)
    np.add(acc, coefs[-2], out=acc)
    for c in coefs[-3::-1]:
        np.multiply(acc, u, out=acc)
        np.add(acc, c, out=acc)


def _out_of_range(k: NDArray[np.float64]) -> bool:
    """Whether some |k| may exceed 2²⁰ or be NaN: one BLAS pass over k.

    Σk² ≤ 2⁴⁰ whenever every |k| ≤ 2²⁰/√size, and NaN or ±inf make the sum NaN
    or inf; a false alarm (many large but valid k) only costs the exact mask.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # k² may overflow to inf
        return not float(np.dot(k, k)) <= _K_MAX * _K_MAX


def _quiet(saved: _Saved | None) -> Any:
    """Silence the fast path where it met NaN, ±inf or huge arguments.

    Those entries are recomputed by numpy afterwards, outside this context, so
    the warnings the caller sees are numpy's own.
    """
    return _NULL if saved is None else np.errstate(invalid="ignore", over="ignore")


def _reduce(xt: Any, a: Any, t: Any, r: Any, checked: bool) -> _Saved | None:
    """a ← u = r², r ← x − k·π, t ← k + 1.5·2⁵², for k = rint(x/π) (8 passes).

    In-place and array–scalar passes are used where possible: a pass that
    writes a fresh tile costs up to 2× an in-place one. Returns ``None``, or the
    mask of the arguments with |k| > 2²⁰ (or NaN) and a copy of those arguments.
    """
    np.multiply(xt, _INV_PI, out=t)
    np.add(t, _MAGIC, out=t)  # rint(x/π) + 1.5·2⁵²: parity of k in bit 0
    np.subtract(t, _MAGIC, out=a)  # k, exact
    saved = _huge_arguments(a, xt, checked)
    with _quiet(saved):
        _subtract_k_pi(a, xt, r)
        np.multiply(r, r, out=a)  # u = r²
    return saved


def _huge_arguments(k: Any, x: Any, checked: bool) -> _Saved | None:
    """``None``, or the mask of |k| > 2²⁰ (or NaN) and a copy of those x."""
    if checked and _out_of_range(k.reshape(-1)):
        mask = ~(np.abs(k) <= _K_MAX)
        if mask.any():
            return (mask, x[mask])  # a copy: the output may be x
    return None


def _subtract_k_pi(k: Any, x: Any, r: Any) -> None:
    """r ← x − k·π ∈ [−π/2, π/2] (Cody–Waite, 4 passes); k is overwritten."""
    np.multiply(k, _NEG_PI_1, out=r)  # −k·P1, exact for |k| ≤ 2²⁰
    np.add(r, x, out=r)  # x − k·P1, exact (Sterbenz) for k ≠ 0
    np.multiply(k, _PI_2, out=k)
    np.subtract(r, k, out=r)


def _sign_bits(t: Any) -> NDArray[np.uint64]:
    """t's lowest mantissa bit (the parity of k) moved to the sign bit."""
    tb: NDArray[np.uint64] = t.view(np.uint64)
    np.left_shift(tb, _SIGN_SHIFT, out=tb)
    return tb


def _xor_sign(v: Any, sign: NDArray[np.uint64], out: Any) -> None:
    """out ← (−1)ᵏ·v, written in the same pass (out may be strided)."""
    np.bitwise_xor(v.view(np.uint64), sign, out=out.view(np.uint64))


def _as_2d(a: NDArray[Any], name: str | None = None) -> NDArray[Any]:
    """``a`` with two axes (``a.size`` > 0): a view, or for an input (no
    ``name``) possibly a copy; an output that needs a copy is refused."""
    if a.ndim == 2:
        return a
    shape = (1, a.size) if a.ndim < 2 else (a.size // a.shape[-1], a.shape[-1])
    if name is None:
        return np.reshape(a, shape)
    try:
        return np.reshape(a, shape, copy=False)
    except ValueError as exc:
        raise ValueError(f"{name} must be reshapable to 2-D without a copy.") from exc


def _tiles(shape: tuple[int, ...]) -> list[tuple[slice, slice]]:
    """Blocks of whole rows (or of one row) with at most TILE_SIZE values."""
    n0, n1 = shape
    if n1 >= TILE_SIZE:
        return [
            (slice(i, i + 1), slice(j, min(n1, j + TILE_SIZE)))
            for i in range(n0)
            for j in range(0, n1, TILE_SIZE)
        ]
    rows = TILE_SIZE // n1
    return [(slice(i, min(n0, i + rows)), slice(0, n1)) for i in range(0, n0, rows)]


def _views(
    buf: NDArray[np.float64], shape: tuple[int, ...], cache: dict[Any, list[Any]]
) -> list[Any]:
    """Scratch tiles of ``shape`` from the rows of ``buf`` (cached per shape)."""
    if shape not in cache:
        size = shape[0] * shape[1]
        cache[shape] = [b[:size].reshape(shape) for b in buf]
    return cache[shape]


def _check_out(out: object, shape: tuple[int, ...], name: str) -> Any:
    if out is None:
        return np.empty(shape, dtype=np.float64)
    if not isinstance(out, np.ndarray) or out.dtype != _F64 or out.shape != shape:
        raise ValueError(
            f"{name} must be a float64 ndarray of shape {shape}, got "
            f"{getattr(out, 'dtype', type(out).__name__)} of shape "
            f"{getattr(out, 'shape', None)}."
        )
    if not out.flags.writeable:
        raise ValueError(f"{name} must be writeable.")
    return out


def _detach(x: NDArray[np.float64], *outs: NDArray[np.float64]) -> Any:
    """x itself, or a copy of it where an output overlaps it other than exactly.

    Each tile reads its inputs before it writes its outputs, so ``out is x``
    (same data, same strides) is safe; a partial overlap is not.
    """
    for o in outs:
        if np.may_share_memory(x, o) and not (
            x.__array_interface__["data"][0] == o.__array_interface__["data"][0]
            and x.strides == o.strides
        ):
            return x.copy()
    return x


def _check_shift(shift: ArrayLike | None, n_cols: int) -> Any:
    if shift is None:
        return None
    sh = np.asarray(shift, dtype=np.float64)
    if sh.shape != (n_cols,):
        raise ValueError(
            f"shift must have shape ({n_cols},) (x's last axis), got {sh.shape}."
        )
    return sh


def cos(
    x: ArrayLike,
    *,
    scale: float = 1.0,
    shift: ArrayLike | None = None,
    out: NDArray[np.float64] | None = None,
    checked: bool = True,
) -> NDArray[np.float64]:
    """Vectorised ``scale * np.cos(x + shift)`` in float64.

    Parameters
    ----------
    x : array-like
        Arguments (converted to float64).
    scale : float, default=1.0
        Multiplier s, folded into the polynomial coefficients.
    shift : array-like of shape (x.shape[-1],), optional
        Added to every row of x first (rounded once, as ``x + shift``): the
        phases of a cos-phase feature map, without a separate pass.
    out : ndarray of float64, optional
        Output of x's shape; may be ``x`` itself (in place). It must be
        reshapable to 2-D without a copy.
    checked : bool, default=True
        ``False`` skips the per-tile range check (one pass): only for callers
        that have proved every argument finite with
        |x + shift| < ``FAST_ARGUMENT_BOUND``. Outside that range the result is
        then wrong without warning.

    Returns
    -------
    ndarray
        s·cos(x + shift). Where |x + shift| < 3.3e6 it is within 3.4e−16 of
        ``np.cos(x + shift)`` for s = 1 and within 4e−16·|s| of
        ``scale * np.cos(x + shift)`` otherwise (measured bounds, see the
        module notes); elsewhere (±inf, NaN, huge values) it equals the latter.

    Raises
    ------
    ValueError
        If ``out`` or ``shift`` has the wrong dtype or shape.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(-10.0, 10.0, 101)
    >>> bool(np.max(np.abs(cos(x) - np.cos(x))) <= 4e-16)
    True
    """
    xa = np.asarray(x, dtype=np.float64)
    res = _check_out(out, xa.shape, "out")
    if xa.size == 0:
        return res
    sh = _check_shift(shift, xa.shape[-1] if xa.ndim else 1)
    o2 = _as_2d(res, "out")
    x2 = _detach(_as_2d(xa), o2)
    coefs = _scaled(_COS, scale)
    inplace = np.may_share_memory(x2, o2)  # then x2 is o2 (see _detach)
    buf = np.empty((3, TILE_SIZE))
    views: dict[tuple[int, ...], list[Any]] = {}
    for ti in _tiles(x2.shape):
        xt, ot = x2[ti], o2[ti]
        t, r, w = _views(buf, xt.shape, views)
        # The argument: xt, or a copy in w where ot (written early) is xt.
        arg = xt
        if sh is not None:
            arg = np.add(xt, sh[ti[1]], out=w)
        elif inplace:
            np.copyto(w, xt)
            arg = w
        # Fewer passes that write a fresh tile than _reduce (the sign bits go
        # straight to ot, k and u are computed in place): cos needs no r after u.
        np.multiply(arg, _INV_PI, out=t)
        np.add(t, _MAGIC, out=t)  # rint(x/π) + 1.5·2⁵²: parity of k in bit 0
        np.left_shift(t.view(np.uint64), _SIGN_SHIFT, out=ot.view(np.uint64))
        np.subtract(t, _MAGIC, out=t)  # k, exact
        saved = _huge_arguments(t, arg, checked)
        with _quiet(saved):
            _subtract_k_pi(t, arg, r)
            np.multiply(r, r, out=r)  # u = r²
            _horner(r, coefs, w)  # s·cos r
            ob = ot.view(np.uint64)
            np.bitwise_xor(ob, w.view(np.uint64), out=ob)  # (−1)ᵏ·s·cos r
        if saved is not None:
            mask, args = saved
            ot[mask] = np.cos(args) * scale
    return res


def cos_sin(
    x: ArrayLike,
    *,
    scale: float = 1.0,
    cos_out: NDArray[np.float64] | None = None,
    sin_out: NDArray[np.float64] | None = None,
    checked: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Vectorised ``(scale * np.cos(x), scale * np.sin(x))`` in float64.

    One range reduction serves both functions.

    Parameters
    ----------
    x : array-like
        Arguments (converted to float64).
    scale : float, default=1.0
        Multiplier s, folded into the polynomial coefficients.
    cos_out, sin_out : ndarray of float64, optional
        Outputs of x's shape (any strides, e.g. the two column halves of one
        array; reshapable to 2-D without a copy). One of them may be ``x``
        itself; they must not overlap each other.
    checked : bool, default=True
        As for :func:`cos`.

    Returns
    -------
    cos_out, sin_out : ndarray
        s·cos(x) and s·sin(x). Where |x| < 3.3e6 they are within 3.4e−16 of
        ``np.cos(x)``, ``np.sin(x)`` for s = 1 and within 4e−16·|s| of
        ``scale * np.cos(x)``, ``scale * np.sin(x)`` otherwise; elsewhere they
        equal the latter.

    Raises
    ------
    ValueError
        If an output has the wrong dtype or shape.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.linspace(-10.0, 10.0, 101)
    >>> c, s = cos_sin(x)
    >>> bool(np.max(np.abs(c**2 + s**2 - 1.0)) < 1e-15)
    True
    """
    xa = np.asarray(x, dtype=np.float64)
    co = _check_out(cos_out, xa.shape, "cos_out")
    so = _check_out(sin_out, xa.shape, "sin_out")
    if xa.size == 0:
        return co, so
    c2, s2 = _as_2d(co, "cos_out"), _as_2d(so, "sin_out")
    x2 = _detach(_as_2d(xa), c2, s2)
    cs, ss = _scaled(_COS, scale), _scaled(_SIN, scale)
    buf = np.empty((5, TILE_SIZE))
    views: dict[tuple[int, ...], list[Any]] = {}
    for ti in _tiles(x2.shape):
        xt, ct, st = x2[ti], c2[ti], s2[ti]
        a, t, r, w, c = _views(buf, xt.shape, views)
        saved = _reduce(xt, a, t, r, checked)
        with _quiet(saved):
            _horner(a, ss, w)
            np.multiply(w, r, out=w)  # s·sin r
            _horner(a, cs, c)  # s·cos r
            sign = _sign_bits(t)
            _xor_sign(w, sign, st)
            _xor_sign(c, sign, ct)
        if saved is not None:
            mask, args = saved
            ct[mask] = np.cos(args) * scale
            st[mask] = np.sin(args) * scale
    return co, so
