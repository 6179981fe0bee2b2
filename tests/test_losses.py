# SPDX-License-Identifier: BSD-3-Clause
"""Loss values, derivatives and the constants the calibrations use."""

from __future__ import annotations

import numpy as np
import pytest

from dpsvm.losses import HingeLoss, HuberLoss, LogisticLoss, RhoHingeLoss

Z = np.concatenate(
    [
        [-1e300, -800.0, -40.0, -1.0, -1e-12, 0.0, 1e-12, 0.5, 1.0, 1.5, 40.0, 800.0],
        np.linspace(-6.0, 6.0, 2001),
    ]
)


def test_huber_matches_paper_001_eq_2():
    # ℓ_h(z) = 0 for z > 1 + h; (1 + h − z)²/(4h) for |1 − z| ≤ h; 1 − z below.
    loss = HuberLoss(0.5)
    z = np.array([2.0, 1.5, 1.0, 0.5, 0.0, -3.0])
    expected = [0.0, 0.0, 0.5**2 / 2.0, 1.0 / 2.0, 1.0, 4.0]
    np.testing.assert_allclose(loss.value(z), expected, rtol=0, atol=1e-15)
    assert loss.lipschitz == 1.0 and loss.smoothness == 1.0  # c = 1/(2h)


@pytest.mark.parametrize("loss", [HuberLoss(0.5), HuberLoss(0.01), LogisticLoss()])
def test_value_and_derivative_agrees_with_the_separate_methods(loss):
    total, deriv = loss.value_and_derivative(Z)
    ref = loss.value(Z)
    assert np.isfinite(total)
    assert total == pytest.approx(float(np.sum(ref)), rel=1e-13)
    np.testing.assert_allclose(deriv, loss.derivative(Z), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("loss", [HuberLoss(0.5), HuberLoss(2.0), LogisticLoss()])
def test_derivative_bounds_are_the_declared_constants(loss):
    # |ℓ′| ≤ L and 0 ≤ ℓ″ ≤ c, with both bounds attained (up to grid spacing).
    assert np.max(np.abs(loss.derivative(Z))) == pytest.approx(loss.lipschitz)
    s = loss.second_derivative(Z)
    assert np.all(s >= 0)
    assert np.max(s) == pytest.approx(loss.smoothness, rel=1e-6)


def test_value_and_derivative_does_not_modify_its_input():
    z = Z.copy()
    for loss in (HuberLoss(0.5), LogisticLoss()):
        loss.value_and_derivative(z)
        np.testing.assert_array_equal(z, Z)


def test_nonsmooth_losses_have_no_curvature_constant():
    assert HingeLoss().smoothness is None
    assert RhoHingeLoss(0.5).lipschitz == 2.0  # L = 1/ρ
