# SPDX-License-Identifier: BSD-3-Clause
"""The margin learners' Gaussian noise is exact (issue 26).

Noisy projected gradient descent releases every noisy gradient on a public grid
2^g with discrete Gaussian noise; phased SGD releases each phase's average
through the exact Gaussian release. Checked: every released value is a grid
point, the noise has the discrete Gaussian's law, and the accounting is the
Gaussian's (ε unchanged).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

import dpsvm.margins.erm as erm
import dpsvm.perturbation._output as output
from dpsvm.margins.erm import gaussian_gd_epsilon, noisy_projected_gd, phased_sgd
from dpsvm.margins.losses import RhoHingeLoss
from dpsvm.mechanisms import DiscreteGaussianCalibration


def _data(n: int = 120, k: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, k))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1, -1)


class _Recorder:
    """Wraps a calibration and records (value, noise, release) of every step."""

    def __init__(self, cal: DiscreteGaussianCalibration) -> None:
        self.cal = cal
        self.steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def __getattr__(self, name: str):  # sigma, sample, grid, ...
        return getattr(self.cal, name)

    def release(self, value, noise):
        out = self.cal.release(value, noise)
        self.steps.append((np.array(value), np.array(noise), out))
        return out


def test_noisy_gd_releases_grid_points_with_discrete_gaussian_noise(monkeypatch):
    recorders: list[_Recorder] = []
    real = erm.discrete_gaussian_calibration

    def spy(*args, **kwargs):
        recorders.append(_Recorder(real(*args, **kwargs)))
        return recorders[-1]

    monkeypatch.setattr(erm, "discrete_gaussian_calibration", spy)
    X, y = _data()
    res = noisy_projected_gd(
        X, y, loss=RhoHingeLoss(0.5), radius=1.0, data_norm=1.0,
        epsilon=1.0, delta=1e-5, n_steps=300, random_state=3,
    )  # fmt: skip
    (rec,) = recorders
    cal = rec.cal
    assert len(rec.steps) == 300
    # The calibration is public: sensitivity 2 L r/m, z of the accountant,
    # the default box 2^(g+52) of the grid (no clamp acts on the noise).
    z = res.details["noise_multiplier"]
    assert cal.noise_multiplier == z and cal.dim == 6
    assert cal.bound == 2.0 ** (cal.grid_exponent + 52)
    assert res.privacy_event.epsilon == gaussian_gd_epsilon(z, 300, 1e-5) <= 1.0
    assert res.details["sigma"] == cal.sigma >= z * 2 * 2.0 / 120
    noise_units = []
    for value, noise, out in rec.steps:
        units = out / cal.grid
        np.testing.assert_array_equal(units, np.rint(units))  # on the grid
        assert np.all(np.abs(out) <= cal.bound)
        snapped = np.rint(value / cal.grid)
        noise_units.append(units - snapped)
        np.testing.assert_array_equal(units - snapped, noise)
    # The noise is N_Z(0, c t) in grid units, with sigma ~ 2^20 units: KS
    # against the normal of that sigma (the lattice is far finer than sigma).
    sigma_units = cal.sigma / cal.grid
    draws = np.concatenate(noise_units) / sigma_units
    assert stats.kstest(draws, "norm").pvalue > 1e-3


def test_phased_sgd_releases_through_the_exact_gaussian(monkeypatch):
    released: list[np.ndarray] = []
    real = output.gaussian_release

    def spy(value, rng=None, **kwargs):
        out = real(value, rng, **kwargs)
        released.append(out)
        return out

    monkeypatch.setattr(output, "gaussian_release", spy)
    X, y = _data(64, 3)
    phased_sgd(
        X, y, rho=0.5, radius=1.0, data_norm=1.0, epsilon=2.0, delta=1e-3,
        random_state=0,
    )  # fmt: skip
    assert len(released) == 6  # one release per phase (n_i = 32, ..., 1)
    for out in released:
        # Every entry is a dyadic rational far coarser than the doubles near
        # it: a grid point of spacing >= 2^-80 (the grid of the public sigma).
        scaled = np.ldexp(out, 80)
        np.testing.assert_array_equal(scaled, np.rint(scaled))
