# SPDX-License-Identifier: BSD-3-Clause
"""Tests of dpsvm.kernels._trig, the vectorised float64 cos/sin.

Accuracy is checked against numpy's float64 cos/sin (the C library's, within
about half a unit in the last place) over random arguments in several ranges,
near multiples of π/2, at the edge of the fast range and beyond it, and against
40-digit mpmath values where mpmath is installed. The bound asserted, 3.5e−16
absolute (4e−16·s with a scale s), is the module's documented one: its worst
observed errors are 3 half-units in the last place of results near 1 (3.3e−16).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpsvm.kernels import RandomFourierFeatures, _trig, fourier_features

ABS_TOL = 3.5e-16  # documented bound, unscaled (observed maximum 3.4e-16)
SCALED_TOL = 4.5e-16  # in units of |s|: one more rounding of the scale

RANGES = [
    ("tiny", 1e-3),
    ("quarter-period", np.pi / 2),
    ("period", np.pi),
    ("moderate", 50.0),
    ("large", 1e4),
    ("near the bound", 3.29e6),
]


def _err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)))


@pytest.mark.parametrize(("name", "half_width"), RANGES)
def test_accuracy_against_numpy_on_random_arguments(
    name: str, half_width: float
) -> None:
    x = np.random.default_rng(0).uniform(-half_width, half_width, 200_000)
    c, s = _trig.cos_sin(x)
    assert _err(c, np.cos(x)) <= ABS_TOL, name
    assert _err(s, np.sin(x)) <= ABS_TOL, name
    # cos() shares the reduction and polynomial: the same values, bit for bit.
    np.testing.assert_array_equal(_trig.cos(x), c)


def test_accuracy_near_multiples_of_half_pi() -> None:
    # x = j·π/2 (+ tiny offsets) up to |j| = 2²¹: the zeros of cos and sin, where
    # the reduced argument r is near 0 or ±π/2 and cancellation is worst.
    rng = np.random.default_rng(1)
    j = rng.integers(-(2**21), 2**21, 100_000).astype(np.float64)
    for rel in (0.0, 1e-15, 1e-9, 1e-4):
        x = j * (np.pi / 2) * (1.0 + rng.uniform(-rel, rel, j.size))
        c, s = _trig.cos_sin(x)
        assert _err(c, np.cos(x)) <= ABS_TOL
        assert _err(s, np.sin(x)) <= ABS_TOL


def test_accuracy_where_the_reduced_argument_is_near_half_pi() -> None:
    # r = x − kπ close to ±π/2: where the cosine polynomial cancels (1 − u/2).
    rng = np.random.default_rng(2)
    k = rng.integers(-(2**20) + 1, 2**20 - 1, 200_000).astype(np.float64)
    x = k * np.pi + np.pi / 2 + rng.uniform(-0.3, 0.3, k.size)
    c, s = _trig.cos_sin(x)
    assert _err(c, np.cos(x)) <= ABS_TOL
    assert _err(s, np.sin(x)) <= ABS_TOL


def test_small_arguments_are_exact_where_numpy_is() -> None:
    # sin x = x and cos x = 1 in float64 for |x| < 2⁻²⁷ (the next terms are
    # below half an ulp); also subnormals and signed zeros.
    x = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-200, 1e-10, -3e-9])
    c, s = _trig.cos_sin(x)
    np.testing.assert_array_equal(c, np.ones_like(x))
    np.testing.assert_array_equal(s, x)
    np.testing.assert_array_equal(np.signbit(s), np.signbit(x))


def test_against_mpmath() -> None:
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    rng = np.random.default_rng(3)
    x = np.concatenate(
        [rng.uniform(-4, 4, 1500), rng.uniform(-3e6, 3e6, 500), [np.pi / 2, 1e6]]
    )
    c, s = _trig.cos_sin(x)
    exact_c = np.array([float(mp.cos(mp.mpf(float(v)))) for v in x])
    exact_s = np.array([float(mp.sin(mp.mpf(float(v)))) for v in x])
    # float() rounds the exact value: add half an ulp of 1 to the bound.
    assert _err(c, exact_c) <= ABS_TOL + 2**-53
    assert _err(s, exact_s) <= ABS_TOL + 2**-53


@pytest.mark.parametrize("scale", [1.0 / np.sqrt(500), np.sqrt(2.0 / 1000), 3.0])
def test_scale_is_folded_in(scale: float) -> None:
    x = np.random.default_rng(4).uniform(-20, 20, 100_000)
    c, s = _trig.cos_sin(x, scale=scale)
    assert _err(c, scale * np.cos(x)) <= SCALED_TOL * scale
    assert _err(s, scale * np.sin(x)) <= SCALED_TOL * scale
    np.testing.assert_array_equal(_trig.cos(x, scale=scale), c)
    # A negative scale flips every sign exactly (coefficients negated).
    np.testing.assert_array_equal(_trig.cos(x, scale=-scale), -c)


def test_out_of_range_arguments_are_numpys_own() -> None:
    b = _trig.FAST_ARGUMENT_BOUND
    x = np.array([b * 1.01, -b * 1.5, 1e7, -1e10, 1e300, -1.7e308, 2.0**60])
    c, s = _trig.cos_sin(x, scale=0.5)
    np.testing.assert_array_equal(c, np.cos(x) * 0.5)
    np.testing.assert_array_equal(s, np.sin(x) * 0.5)
    np.testing.assert_array_equal(_trig.cos(x), np.cos(x))


def test_largest_fast_arguments_are_accurate() -> None:
    b = _trig.FAST_ARGUMENT_BOUND
    x = np.concatenate(
        [np.linspace(b * 0.999, b, 1001), -np.linspace(b * 0.999, b, 1001)]
    )
    c, s = _trig.cos_sin(x)
    assert _err(c, np.cos(x)) <= ABS_TOL
    assert _err(s, np.sin(x)) <= ABS_TOL


def _warning_messages(fn, x):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn(x)
    return out, sorted(str(w.message) for w in rec)


def test_non_finite_values_and_warnings_match_numpy() -> None:
    # Mixed with ordinary values in one tile: only the bad entries (±inf, NaN,
    # beyond the fast range) are numpy's values; warnings are numpy's own.
    x = np.array([0.5, np.inf, -np.inf, np.nan, 2.0, 1e20, -3.0])
    bad = ~(np.abs(x) < _trig.FAST_ARGUMENT_BOUND)
    ours_c, msgs_c = _warning_messages(_trig.cos, x)
    ref_c, ref_msgs_c = _warning_messages(np.cos, x)
    ref_s, ref_msgs_s = _warning_messages(np.sin, x)
    assert ref_msgs_c == ["invalid value encountered in cos"]
    assert msgs_c == ref_msgs_c
    (oc, os_), msgs = _warning_messages(_trig.cos_sin, x)
    assert msgs == sorted(ref_msgs_c + ref_msgs_s)
    for ours, ref in [(ours_c, ref_c), (oc, ref_c), (os_, ref_s)]:
        np.testing.assert_array_equal(ours[bad], ref[bad])  # NaN == NaN here
        assert _err(ours[~bad], ref[~bad]) <= ABS_TOL
    # NaN alone: no warning, as in numpy.
    assert _warning_messages(_trig.cos, np.array([np.nan, 1.0]))[1] == []
    assert _warning_messages(np.cos, np.array([np.nan, 1.0]))[1] == []


def test_tiling_shapes_and_shift(monkeypatch: pytest.MonkeyPatch) -> None:
    # Small tiles exercise row blocks, single-row column blocks and remainders.
    monkeypatch.setattr(_trig, "TILE_SIZE", 64)
    rng = np.random.default_rng(5)
    for shape in [(), (7,), (100,), (13, 7), (3, 150), (2, 3, 40)]:
        x = rng.uniform(-10, 10, shape)
        np.testing.assert_array_equal(
            _trig.cos(x), _trig.cos(x.reshape(-1)).reshape(shape)
        )
        assert _err(_trig.cos(x), np.cos(x)) <= ABS_TOL
        c, s = _trig.cos_sin(x)
        assert c.shape == s.shape == np.shape(x)
        assert _err(s, np.sin(x)) <= ABS_TOL
    x = rng.uniform(-5, 5, (9, 30))
    psi = rng.uniform(-np.pi, np.pi, 30)
    # shift: the argument x + ψ is rounded once, as numpy rounds it.
    np.testing.assert_array_equal(_trig.cos(x, shift=psi), _trig.cos(x + psi))
    # checked=False changes nothing for arguments inside the range.
    np.testing.assert_array_equal(
        _trig.cos(x, shift=psi, checked=False), _trig.cos(x + psi)
    )
    e = np.empty((0, 4))
    assert _trig.cos(e).shape == (0, 4) and _trig.cos_sin(e)[1].shape == (0, 4)


def test_in_place_strided_and_overlapping_outputs() -> None:
    rng = np.random.default_rng(6)
    x = rng.uniform(-30, 30, (50, 40))
    ref_c, ref_s = _trig.cos_sin(x)
    y = x.copy()
    assert _trig.cos(y, out=y) is y
    np.testing.assert_array_equal(y, ref_c)
    # Column halves of one array, as in the cos-sin feature map.
    block = np.empty((50, 80))
    _trig.cos_sin(x, cos_out=block[:, :40], sin_out=block[:, 40:])
    np.testing.assert_array_equal(block[:, :40], ref_c)
    np.testing.assert_array_equal(block[:, 40:], ref_s)
    # Output overlapping the input with a shift: the input is copied first.
    z = np.concatenate([x.reshape(-1), np.zeros(5)])
    _trig.cos(z[:-5], out=z[5:])
    np.testing.assert_array_equal(z[5:], ref_c.reshape(-1))


def test_invalid_outputs_and_shift_are_rejected() -> None:
    x = np.zeros((3, 4))
    with pytest.raises(ValueError, match="out must be a float64 ndarray of shape"):
        _trig.cos(x, out=np.empty((3, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="sin_out must be a float64 ndarray"):
        _trig.cos_sin(x, sin_out=np.empty((4, 3)))
    ro = np.empty((3, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="must be writeable"):
        _trig.cos(x, out=ro)
    with pytest.raises(ValueError, match=r"shift must have shape \(4,\)"):
        _trig.cos(x, shift=np.zeros(3))
    with pytest.raises(ValueError, match="reshapable to 2-D without a copy"):
        _trig.cos(np.zeros((2, 3, 4)), out=np.empty((4, 3, 2)).transpose())


@pytest.mark.parametrize("feature_map", ["cos-sin", "cos-phase"])
@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_features_match_numpy_reference(feature_map: str, kernel: str) -> None:
    # The float64 transform against the same map written with np.cos/np.sin.
    X = np.random.default_rng(7).normal(size=(300, 6))
    rff = RandomFourierFeatures(
        kernel, gamma=0.7, n_components=80, feature_map=feature_map, random_state=0
    ).fit(X)
    Z = rff.transform(X)
    arg = X @ rff.frequencies_
    if feature_map == "cos-sin":
        ref = rff.scale_ * np.hstack([np.cos(arg), np.sin(arg)])
    else:
        ref = rff.scale_ * np.cos(arg + rff.phases_)
    # One chunk (300 rows × 160 outputs < 2 MiB): the same matmul as arg.
    assert _err(Z, ref) <= 1e-15 * rff.scale_
    chunked = rff.set_params(chunk_size=7).transform(X)
    assert _err(chunked, ref) <= 1e-15 * rff.scale_
    np.testing.assert_array_equal(rff.set_params(n_jobs=2).transform(X), chunked)


def test_fourier_features_checks_arguments_it_cannot_bound() -> None:
    # Integer-valued X and W make every product X @ W exact, so the reference
    # sees the same arguments. A row far from the origin sends its arguments
    # beyond the fast range to numpy; a NaN row gives NaN features.
    rng = np.random.default_rng(8)
    W = rng.integers(-3, 4, size=(3, 20)).astype(np.float64)
    psi = rng.uniform(-np.pi, np.pi, 20)
    X = rng.integers(-5, 6, size=(40, 3)).astype(np.float64)
    X[5] = [1e8, -2e8, 3e8]
    X[9] = np.nan
    Z = fourier_features(X, W, psi, scale=0.25)
    arg = X @ W + psi
    ref = 0.25 * np.cos(arg)
    np.testing.assert_array_equal(np.isnan(Z), np.isnan(ref))
    ok = ~np.isnan(ref)
    assert _err(Z[ok], ref[ok]) <= 1e-15 * 0.25
    big = ok & (np.abs(arg) > _trig.FAST_ARGUMENT_BOUND)
    assert big.sum() >= 10
    np.testing.assert_array_equal(Z[big], ref[big])
