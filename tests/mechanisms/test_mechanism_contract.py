# SPDX-License-Identifier: BSD-3-Clause
"""Contract tests shared by every mechanism in :mod:`dpsvm.mechanisms`.

Each additive-noise mechanism (``Mechanism``) and the exponential mechanism
(``BaseMechanism``) must validate its privacy parameters, keep them read-only,
record a complete frozen ``PrivacyEvent`` and treat ``random_state`` the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from dpsvm.accounting import PrivacyEvent
from dpsvm.mechanisms import (
    AnalyticGaussian,
    BaseMechanism,
    ExponentialMechanism,
    GammaNormVector,
    LaplaceVector,
    Mechanism,
)

# Factories taking (epsilon, sensitivity); the Gaussian gets a fixed delta.
ADDITIVE: dict[str, Callable[..., Mechanism]] = {
    "laplace": lambda epsilon, sensitivity: LaplaceVector(
        epsilon=epsilon, sensitivity=sensitivity
    ),
    "gamma-norm": lambda epsilon, sensitivity: GammaNormVector(
        epsilon=epsilon, sensitivity=sensitivity
    ),
    "analytic-gaussian": lambda epsilon, sensitivity: AnalyticGaussian(
        epsilon=epsilon, delta=1e-6, sensitivity=sensitivity
    ),
}
ALL: dict[str, Callable[..., BaseMechanism]] = {
    **ADDITIVE,
    "exponential": lambda epsilon, sensitivity: ExponentialMechanism(
        epsilon=epsilon, sensitivity=sensitivity
    ),
}
NORMS = {
    "laplace": "l1",
    "gamma-norm": "l2",
    "analytic-gaussian": "l2",
    "exponential": "utility",
}

all_mechanisms = pytest.mark.parametrize("name", sorted(ALL))
additive_mechanisms = pytest.mark.parametrize("name", sorted(ADDITIVE))


# --------------------------------------------------------------------------- #
# Parameter validation
# --------------------------------------------------------------------------- #
@all_mechanisms
@pytest.mark.parametrize(
    ("epsilon", "error", "match"),
    [
        (0.0, ValueError, "epsilon must be > 0"),
        (-1.0, ValueError, "epsilon must be > 0"),
        (float("nan"), ValueError, "epsilon must be a number"),
        (float("inf"), ValueError, "epsilon must be finite"),
        ("1", TypeError, "epsilon must be a real number"),
        (True, TypeError, "epsilon must be a real number"),
    ],
)
def test_bad_epsilon_rejected(name, epsilon, error, match):
    with pytest.raises(error, match=match):
        ALL[name](epsilon, 1.0)


@all_mechanisms
@pytest.mark.parametrize(
    ("sensitivity", "error", "match"),
    [
        (0.0, ValueError, "sensitivity must be > 0"),
        (-2.0, ValueError, "sensitivity must be > 0"),
        (float("nan"), ValueError, "sensitivity must be a number"),
        (float("inf"), ValueError, "sensitivity must be finite"),
        (None, TypeError, "sensitivity must be a real number"),
    ],
)
def test_bad_sensitivity_rejected(name, sensitivity, error, match):
    with pytest.raises(error, match=match):
        ALL[name](1.0, sensitivity)


@all_mechanisms
def test_parameters_are_keyword_only_and_read_only(name):
    mech = ALL[name](0.5, 2.0)
    assert (mech.epsilon, mech.sensitivity) == (0.5, 2.0)
    for attr in ("epsilon", "delta", "sensitivity"):
        with pytest.raises(AttributeError):
            setattr(mech, attr, 1.0)
    with pytest.raises(TypeError):
        type(mech)(0.5, 2.0)  # positional arguments are refused


def test_base_classes_are_abstract():
    with pytest.raises(TypeError):
        BaseMechanism(epsilon=1.0, delta=0.0, sensitivity=1.0)  # type: ignore[abstract]
    with pytest.raises(TypeError):
        Mechanism(epsilon=1.0, delta=0.0, sensitivity=1.0)  # type: ignore[abstract]


# --------------------------------------------------------------------------- #
# Privacy events
# --------------------------------------------------------------------------- #
@all_mechanisms
def test_privacy_event_records_the_calibration(name):
    mech = ALL[name](0.25, 3.0)
    event = mech.privacy_event(n_samples=100)
    assert isinstance(event, PrivacyEvent)
    assert event.mechanism == name
    assert event.epsilon == 0.25
    assert event.delta == mech.delta
    assert event.sensitivity == 3.0
    assert event.sensitivity_norm == NORMS[name]
    assert event.neighbouring == "replace-one"
    # Every calibration cites its source paper.
    assert any(
        author in event.reference
        for author in ("Dwork", "Chaudhuri", "Balle", "McSherry")
    )
    assert event.details["n_samples"] == 100
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.epsilon = 10.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        event.details["n_samples"] = 1  # type: ignore[index]
    # The neighbouring relation can be named (label DP of Bassily, Mohri &
    # Suresh's label-private learners).
    assert (
        mech.privacy_event(neighbouring="replace-one-label").neighbouring
        == "replace-one-label"
    )
    with pytest.raises(ValueError, match="Unknown neighbouring relation"):
        mech.privacy_event(neighbouring="add-remove")


@additive_mechanisms
def test_privacy_event_records_noise_scale(name):
    mech = ALL[name](0.5, 1.0)
    details = mech.privacy_event().details
    if name == "analytic-gaussian":
        assert details["sigma"] == mech.sigma  # type: ignore[attr-defined]
    else:
        # Laplace scale and Gamma-norm scale are both Delta / epsilon = 2.
        assert details["scale"] == 2.0


def test_pure_mechanisms_have_zero_delta():
    for name in ("laplace", "gamma-norm", "exponential"):
        mech = ALL[name](1.0, 1.0)
        assert mech.delta == 0.0
        assert mech.privacy_event().delta == 0.0
    assert ALL["analytic-gaussian"](1.0, 1.0).delta == 1e-6


# --------------------------------------------------------------------------- #
# random_state
# --------------------------------------------------------------------------- #
@additive_mechanisms
def test_same_seed_same_noise_and_none_differs(name):
    mech = ADDITIVE[name](1.0, 1.0)
    np.testing.assert_array_equal(mech.sample(5, 3), mech.sample(5, 3))
    assert not np.array_equal(mech.sample(5, 3), mech.sample(5, 4))
    # None draws from a fresh CSPRNG every call: two calls differ (probability
    # of a collision of continuous draws is 0).
    assert not np.array_equal(mech.sample(5), mech.sample(5))
    assert not np.array_equal(mech.randomise(np.zeros(5)), mech.randomise(np.zeros(5)))


@additive_mechanisms
def test_generator_is_consumed(name):
    mech = ADDITIVE[name](1.0, 1.0)
    gen = np.random.default_rng(11)
    first = mech.sample(4, gen)
    second = mech.sample(4, gen)
    assert not np.array_equal(first, second)
    # The first draw is what a fresh generator with the same seed gives.
    np.testing.assert_array_equal(first, mech.sample(4, np.random.default_rng(11)))


@all_mechanisms
def test_random_state_type_checked(name):
    mech = ALL[name](1.0, 1.0)
    legacy = np.random.RandomState(0)
    with pytest.raises(TypeError, match="random_state must be"):
        if isinstance(mech, ExponentialMechanism):
            mech.select([0.0, 1.0], random_state=legacy)  # type: ignore[arg-type]
        else:
            assert isinstance(mech, Mechanism)
            mech.sample(3, legacy)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# sample / randomise
# --------------------------------------------------------------------------- #
@additive_mechanisms
@pytest.mark.parametrize(
    ("size", "error"),
    [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)],
)
def test_bad_size_rejected(name, size, error):
    with pytest.raises(error, match="size"):
        ADDITIVE[name](1.0, 1.0).sample(size)


@additive_mechanisms
def test_randomise_is_value_plus_sample(name):
    mech = ADDITIVE[name](1.0, 1.0)
    if name == "laplace":
        # The default Laplace release is the discretised (floating-point safe)
        # one, tested in test_snapping.py; the naive release is value + sample.
        mech = LaplaceVector(epsilon=1.0, sensitivity=1.0, method="naive")
    if name == "analytic-gaussian":
        # Likewise the default Gaussian release is exact (discrete Gaussian on a
        # grid, tested in test_discrete_gaussian_release.py).
        mech = AnalyticGaussian(
            epsilon=1.0, delta=1e-6, sensitivity=1.0, method="naive"
        )
    value = np.array([1, 2, 3, 4], dtype=np.int64)
    out = mech.randomise(value, random_state=5)
    assert out.dtype == np.float64
    assert out.shape == value.shape
    np.testing.assert_array_equal(value, [1, 2, 3, 4])  # input untouched
    np.testing.assert_allclose(out - value, mech.sample(4, 5), rtol=0, atol=1e-12)


@additive_mechanisms
def test_randomise_returns_a_new_array(name):
    value = np.zeros(3)
    out = ADDITIVE[name](1.0, 1.0).randomise(value, random_state=0)
    assert out is not value
    assert not np.shares_memory(out, value)
    np.testing.assert_array_equal(value, 0.0)


@additive_mechanisms
@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        ([1.0, np.nan], ValueError, "finite"),
        ([np.inf, 0.0], ValueError, "finite"),
        (np.zeros(0), ValueError, "non-empty"),
        ([1 + 2j], TypeError, "real-valued"),
        (["a"], TypeError, "real-valued"),
    ],
)
def test_randomise_rejects_bad_values(name, value, error, match):
    with pytest.raises(error, match=match):
        ADDITIVE[name](1.0, 1.0).randomise(value, random_state=0)


@additive_mechanisms
def test_randomise_scalar_and_matrix_shapes(name):
    mech = ADDITIVE[name](1.0, 1.0)
    assert mech.randomise(2.0, random_state=0).shape == ()
    assert mech.randomise(np.ones((2, 3)), random_state=0).shape == (2, 3)


@pytest.mark.parametrize("method", ["discrete", "naive"])
def test_laplace_randomise_is_laplace_release(method):
    # randomise is written once in Mechanism; LaplaceVector only supplies the
    # release step, which must stay the (discretised) laplace_release.
    from dpsvm.mechanisms import laplace_release

    mech = LaplaceVector(epsilon=0.5, sensitivity=2.0, method=method, bound=10.0)
    value = np.array([1.0, -2.5, 3.25])
    expected = laplace_release(
        value, 4.0, 11, sensitivity=2.0, bound=10.0, method=method
    )
    np.testing.assert_array_equal(mech.randomise(value, random_state=11), expected)


def test_subclass_inherits_checked_sample_and_additive_randomise():
    # A subclass implements only _draw: sample checks the size (ints and
    # shapes), randomise adds one draw of the value's shape.
    class Ones(Mechanism):
        name = "ones"
        sensitivity_norm = "l2"

        def __init__(self) -> None:
            super().__init__(epsilon=1.0, delta=0.0, sensitivity=1.0)

        def _draw(self, size, gen):
            return np.ones(size)

        def _event_details(self):
            return {}

    assert Ones().sample((2, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match="size"):
        Ones().sample(0)
    np.testing.assert_array_equal(Ones().randomise([[1.0, 2.0]]), [[2.0, 3.0]])


def test_gamma_norm_sample_refuses_shapes_but_randomise_takes_them():
    mech = GammaNormVector(epsilon=1.0, sensitivity=1.0)
    with pytest.raises(TypeError, match="one vector"):
        mech.sample((2, 3), random_state=0)
    assert mech.randomise(np.zeros((2, 3)), random_state=0).shape == (2, 3)
