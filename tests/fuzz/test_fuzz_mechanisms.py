# SPDX-License-Identifier: BSD-3-Clause
"""Property-based fuzzing of every mechanism class and noise function.

Constructors, ``sample``, ``randomise``, ``select``/``probabilities`` and the
free functions (``sample_laplace``, ``sample_gamma_norm``, ``laplace_release``,
``sample_discrete_laplace``, ``discrete_laplace_calibration``) get random
privacy parameters (0, negative, 1e-300, 1e300, NaN, inf, wrong types), sizes
(0, negative, tuples, floats, booleans), values of every dtype and shape (0-d,
empty, NaN, inf, huge) and every ``random_state`` form. Each call must raise
``ValueError`` or ``TypeError``, or return finite float64 noise or releases of
the right shape (a discretised Laplace release on its public grid).
"""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpsvm.accounting import PrivacyEvent
from dpsvm.mechanisms import (
    AnalyticGaussian,
    ExponentialMechanism,
    GammaNormVector,
    LaplaceVector,
    discrete_laplace_calibration,
    laplace_release,
    sample_discrete_laplace,
    sample_gamma_norm,
    sample_laplace,
)

FUZZ = settings.get_profile("dpsvm-fuzz")
SCALE = float(os.environ.get("DPSVM_FUZZ_SCALE", "1"))


def examples(n: int) -> int:
    """Number of examples of a test, scaled by ``DPSVM_FUZZ_SCALE``."""
    return max(1, round(n * SCALE))


DOCUMENTED = (ValueError, TypeError)
NAN, INF = float("nan"), float("inf")

REALS = [1.0, 1.0, 0.5, 3.0, 1e-300, 1e-8, 1e8, 1e300, 5e-324, 0.0, -1.0, NAN, INF]
PARAMS = st.one_of(
    st.sampled_from(REALS),
    st.sampled_from(["1", None, True, 1, np.float32(0.5), np.int64(2), 1j]),
    st.floats(min_value=1e-6, max_value=1e6),
)
DELTAS = st.sampled_from([0.0, 1e-6, 1e-300, 0.5, 0.999, 1.0, -1e-9, NAN, INF, "0"])
SIZES = st.one_of(
    st.integers(-2, 6),
    st.tuples(st.integers(0, 3), st.integers(0, 3)),
    st.just(()),
    st.sampled_from([2.0, True, None, "3", np.int64(3), (2, 1.5), [2, 2]]),
)
RANDOM_STATES = st.sampled_from(
    ["none", "int", "big-int", "negative", "generator", "legacy", "float", "str"]
)


def _random_state(kind: str) -> Any:
    return {
        "none": None,
        "int": 7,
        "big-int": 2**70,
        "negative": -3,
        "generator": np.random.default_rng(11),
        "legacy": np.random.RandomState(0),
        "float": 0.5,
        "str": "seed",
    }[kind]


@st.composite
def values(draw: st.DrawFn) -> Any:
    """Arrays of any dtype and shape (0-d and empty included), lists, scalars."""
    kind = draw(st.sampled_from(["float", "float", "int", "bool", "other", "list"]))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if kind == "float":
        dtype = draw(st.sampled_from([np.float64, np.float32, np.float16]))
        return draw(
            hnp.arrays(
                dtype, shape, elements=st.floats(width=16, allow_subnormal=False)
            )
            if dtype == np.float16
            else hnp.arrays(dtype, shape)
        )
    if kind == "int":
        return draw(hnp.arrays(np.int64, shape))
    if kind == "bool":
        return draw(hnp.arrays(np.bool_, shape))
    if kind == "list":
        return draw(st.lists(st.floats(), max_size=5))
    return draw(
        st.sampled_from(
            [np.array(["a", "b"]), np.array([1 + 2j]), np.array([None, 1.0]), "abc"]
        )
    )


def _call(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    """Call ``fn``; documented exceptions are returned, others fail the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no stray warnings either
        try:
            return fn(*args, **kwargs), None
        except DOCUMENTED as exc:
            return None, exc
        except Exception as exc:  # the property under test: nothing else
            pytest.fail(
                f"{getattr(fn, '__qualname__', fn)} raised the undocumented "
                f"{type(exc).__name__}: {exc}\nargs={args!r} kwargs={kwargs!r}"
            )


def _subnormal(*values: Any) -> bool:
    return any(
        isinstance(v, float) and 0 < abs(v) < np.finfo(float).tiny for v in values
    )


def _expected_shape(size: Any) -> tuple[int, ...]:
    return tuple(size) if isinstance(size, tuple) else (int(size),)


def _check_noise(out: Any, shape: tuple[int, ...]) -> None:
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    assert out.shape == shape
    assert np.all(np.isfinite(out))


def _check_on_grid(out: np.ndarray, grid: float, bound: float | None = None) -> None:
    """A discretised release lies on ΛZ or at ±bound (where y/Λ is exact)."""
    if grid == 0.0:
        return  # Λ below the doubles: the release is k·Λ rounded, not checkable
    with np.errstate(over="ignore"):
        k = out / grid
    ok = np.abs(k) < 2.0**52  # exact integers, no overflow
    if bound is not None:
        ok &= np.abs(out) != bound  # clamped releases sit on ±B
    assert np.all(k[ok] == np.rint(k[ok])), "discrete release off its grid"


MECHANISMS = {
    "laplace": lambda e, s, d: LaplaceVector(epsilon=e, sensitivity=s),
    "laplace-naive": lambda e, s, d: LaplaceVector(
        epsilon=e, sensitivity=s, method="naive"
    ),
    "laplace-bounded": lambda e, s, d: LaplaceVector(
        epsilon=e, sensitivity=s, bound=10.0
    ),
    "gamma-norm": lambda e, s, d: GammaNormVector(epsilon=e, sensitivity=s),
    "analytic-gaussian": lambda e, s, d: AnalyticGaussian(
        epsilon=e, delta=d, sensitivity=s
    ),
}


@pytest.mark.parametrize("name", sorted(MECHANISMS))
@settings(FUZZ, max_examples=examples(30), deadline=None)
@given(
    epsilon=PARAMS,
    sensitivity=PARAMS,
    delta=DELTAS,
    size=SIZES,
    value=values(),
    rs=RANDOM_STATES,
)
def test_additive_mechanisms_fail_cleanly_or_release_finite_noise(
    name, epsilon, sensitivity, delta, size, value, rs
):
    # Fixed bug, guarded by test_regression_analytic_gaussian_subnormal_parameters.
    assume(name != "analytic-gaussian" or not _subnormal(epsilon, sensitivity))
    mech, err = _call(MECHANISMS[name], epsilon, sensitivity, delta)
    if err is not None:
        return
    event = mech.privacy_event()
    assert isinstance(event, PrivacyEvent)
    assert 0 < event.epsilon < INF and 0 <= event.delta < 1
    noise, err = _call(mech.sample, size, _random_state(rs))
    if err is None:
        if name == "gamma-norm":
            _check_noise(noise, (int(size),))
        else:
            _check_noise(noise, _expected_shape(size))
    out, err = _call(mech.randomise, value, _random_state(rs))
    if err is None:
        arr = np.asarray(value)
        _check_noise(out, arr.shape)
        if name == "laplace":
            cal = discrete_laplace_calibration(mech.scale, mech.sensitivity, arr.size)
            _check_on_grid(out, cal.grid)


@settings(FUZZ, max_examples=examples(40), deadline=None)
@given(
    epsilon=PARAMS,
    sensitivity=PARAMS,
    utilities=st.one_of(
        hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=5)),
        st.lists(st.floats(-1e308, 1e308), max_size=6),
        st.sampled_from([["a", "b"], [1 + 1j], [], [[1.0, 2.0]], 3.0]),
    ),
    rs=RANDOM_STATES,
)
def test_exponential_mechanism_fails_cleanly_or_selects(
    epsilon, sensitivity, utilities, rs
):
    # Fixed bug, guarded by test_regression_exponential_overflowing_factor.
    assume(not _subnormal(sensitivity))
    em, err = _call(ExponentialMechanism, epsilon=epsilon, sensitivity=sensitivity)
    if err is not None:
        return
    p, err = _call(em.probabilities, utilities)
    if err is None:
        assert p.ndim == 1 and np.all(np.isfinite(p)) and np.all(p >= 0)
        assert math.isclose(p.sum(), 1.0, rel_tol=1e-9)
    i, err2 = _call(em.select, utilities, _random_state(rs))
    if err2 is None:
        assert isinstance(i, int) and 0 <= i < len(np.asarray(utilities))


@settings(FUZZ, max_examples=examples(60), deadline=None)
@given(
    value=values(),
    scale=PARAMS,
    sensitivity=PARAMS,
    bound=st.one_of(st.none(), PARAMS),
    method=st.sampled_from(["discrete", "discrete", "naive", "snapping", None]),
    rs=RANDOM_STATES,
)
def test_laplace_release_fails_cleanly_or_is_finite_on_the_grid(
    value, scale, sensitivity, bound, method, rs
):
    out, err = _call(
        laplace_release,
        value,
        scale,
        _random_state(rs),
        sensitivity=sensitivity,
        bound=bound,
        method=method,
    )
    if err is not None:
        return
    arr = np.asarray(value)
    _check_noise(out, arr.shape)
    if bound is not None:
        assert np.all(np.abs(out) <= float(bound))
    if method == "discrete":
        cal = discrete_laplace_calibration(float(scale), float(sensitivity), arr.size)
        _check_on_grid(out, cal.grid, None if bound is None else float(bound))


@settings(FUZZ, max_examples=examples(60), deadline=None)
@given(
    size=SIZES, scale=PARAMS, dim=st.one_of(st.integers(-1, 8), SIZES), rs=RANDOM_STATES
)
def test_noise_samplers_fail_cleanly_or_are_finite(size, scale, dim, rs):
    out, err = _call(sample_laplace, size, scale, _random_state(rs))
    if err is None:
        _check_noise(out, _expected_shape(size))
    out, err = _call(sample_gamma_norm, dim, scale, _random_state(rs))
    if err is None:
        _check_noise(out, (int(dim),))
        assert math.hypot(*out) > 0  # never the zero vector
    cal, err = _call(discrete_laplace_calibration, scale, scale, dim)
    if err is None:
        assert cal.integer_scale >= 1
        assert cal.epsilon <= 1.0 + 1e-12 or cal.epsilon == INF  # Δ₁/λ = 1 here


@settings(FUZZ, max_examples=examples(40), deadline=None)
@given(
    size=SIZES,
    scale=st.one_of(
        st.integers(-2, 50),
        st.sampled_from([2**52, 2**52 + 1, 2**80, 1.5, True, "3", None]),
    ),
    rs=RANDOM_STATES,
)
def test_discrete_laplace_sampler_fails_cleanly_or_returns_integers(size, scale, rs):
    out, err = _call(sample_discrete_laplace, size, scale, _random_state(rs))
    if err is None:
        assert out.shape == _expected_shape(size)
        assert out.dtype in (np.int64, np.object_)
        assert all(isinstance(int(z), int) for z in out.ravel())


# --------------------------------------------------------------------------- #
# Regression tests for bugs found by the fuzzer (reported to the lead)
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("epsilon", "delta", "sensitivity"),
    [(1.0, 0.5, 5e-324), (5e-324, 1e-6, 1e-300)],
)
def test_regression_analytic_gaussian_subnormal_parameters(epsilon, delta, sensitivity):
    # Found by the fuzzer: ZeroDivisionError / RuntimeError instead of ValueError.
    with pytest.raises(ValueError):
        AnalyticGaussian(epsilon=epsilon, delta=delta, sensitivity=sensitivity)


@pytest.mark.parametrize(
    ("epsilon", "sensitivity"), [(1.0, 5e-324), (1.0, 1e-310), (1e300, 1e-10)]
)
def test_regression_exponential_overflowing_factor(epsilon, sensitivity):
    # Found by the fuzzer: an overflowing ε/(2Δu) emitted an "invalid value"
    # RuntimeWarning before the intended ValueError.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError):
            ExponentialMechanism(
                epsilon=epsilon, sensitivity=sensitivity
            ).probabilities([0.0, 1.0])
