# SPDX-License-Identifier: BSD-3-Clause
"""The support attack of Mironov (CCS 2012) on the floating-point releases.

Issue 26, item 4: the mechanisms that ``docs/privacy.md`` lists as not exact
over doubles are attacked on their released doubles, and the attack's
empirical advantage is reported (``record_property``; printed with ``-s``).

The attack needs no knowledge of the noise sampler. Neighbouring values are
f(D) = 0 and f(D′) = e₁ (L1, L2 and L∞ distance 1). Under D′ the first
released coordinate is fl(1 + N) for a double N, and that is **always a
multiple of 2⁻⁵³**: for N ∈ [−2, −½] the sum is exact (Sterbenz) and N is a
multiple of 2⁻⁵³; otherwise |1 + N| > ½ (or the sum rounds to 0 or ½) and the
result is rounded to a spacing ≥ 2⁻⁵³. Under D it is N itself, which for
|N| < ½ usually has bits below 2⁻⁵³. An output that is not a multiple of
2⁻⁵³ is therefore *impossible* under D′: the test "y₁ ∉ 2⁻⁵³ℤ ⇒ D" never
errs on D′ and its advantage P_D[y₁ ∉ 2⁻⁵³ℤ] − P_D′[y₁ ∉ 2⁻⁵³ℤ] is an
infinite-privacy-loss event of that probability (no ε bounds it; it counts
towards δ). The exact releases (discrete Laplace, discrete Gaussian) put every
output on a public grid 2^k with k > −53 whose every point has positive
probability under both inputs, so the same attack finds nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dpsvm.mechanisms import (
    AnalyticGaussian,
    GammaNormVector,
    LaplaceVector,
    laplace_release,
)
from dpsvm.perturbation import OutputNoise

N_DRAWS = 2000
DIM = 3
ULP_FLOOR = 2.0**-53  # every double fl(1 + N) is a multiple of this


def _excluded_under_shifted(y: np.ndarray) -> np.ndarray:
    """Whether each first coordinate is impossible as fl(1 + N), N a double."""
    return np.fmod(y, ULP_FLOOR) != 0.0


def _support_attack(
    release: Callable[[np.ndarray, np.random.Generator], np.ndarray],
    n_draws: int = N_DRAWS,
) -> tuple[float, float, float]:
    """Seeded draws on D (value 0) and D′ (value e₁).

    Returns the attack's rates on D and on D′, and the share of draws on D
    with |y₁| < ½ (the only ones the attack can flag: a double of magnitude
    ≥ ½ is a multiple of 2⁻⁵³).
    """
    v0, v1 = np.zeros(DIM), np.eye(DIM)[0]
    g0, g1 = np.random.default_rng(2601), np.random.default_rng(2602)
    y0 = np.array([release(v0, g0)[0] for _ in range(n_draws)])
    y1 = np.array([release(v1, g1)[0] for _ in range(n_draws)])
    return (
        float(_excluded_under_shifted(y0).mean()),
        float(_excluded_under_shifted(y1).mean()),
        float(np.mean(np.abs(y0) < 0.5)),
    )


# Every release at epsilon = 1 (delta = 1e-5 for the Gaussian), sensitivity 1.
FLOAT_RELEASES = {
    "analytic-gaussian-naive": AnalyticGaussian(
        epsilon=1.0, delta=1e-5, sensitivity=1.0, method="naive"
    ).randomise,
    # Gamma-norm L2 output perturbation (DPOutputPerturbationSVC default) and
    # objective perturbation's residual noise Z (w + Z): the same code path.
    "gamma-norm-output": OutputNoise.gamma_norm(1.0, 1.0).release,
    "gamma-norm-vector": GammaNormVector(epsilon=1.0, sensitivity=1.0).randomise,
    "laplace-naive": LaplaceVector(
        epsilon=1.0, sensitivity=1.0, method="naive"
    ).randomise,
}
EXACT_RELEASES = {
    "analytic-gaussian-discrete": AnalyticGaussian(
        epsilon=1.0, delta=1e-5, sensitivity=1.0
    ).randomise,
    "laplace-discrete": lambda v, g: laplace_release(v, 1.0, g, sensitivity=1.0),
    "gaussian-output-noise": OutputNoise.gaussian(1.0, 1e-5, 1.0).release,
}


def test_fl_one_plus_double_is_a_multiple_of_two_to_minus_53():
    # The premise of the attack, on the doubles where it is tightest.
    tiny = np.array([5e-324, 1e-300, 2.0**-60, 1e-17, 0.1, 0.3, 0.49999999999999994])
    n = np.concatenate([tiny, -tiny, -1 + tiny[2:], -0.5 - tiny, [-2.0, 3.7]])
    assert not _excluded_under_shifted(1.0 + n).any()
    # ... while the doubles themselves are not (below 1/2, most are excluded).
    assert _excluded_under_shifted(tiny[:4]).all()


@pytest.mark.parametrize("name", sorted(FLOAT_RELEASES))
def test_support_attack_on_float_release(name, record_property):
    hit_d, hit_d_prime, small = _support_attack(FLOAT_RELEASES[name])
    advantage = hit_d - hit_d_prime
    record_property("support_attack_advantage", advantage)
    print(f"\n{name}: support-attack advantage {advantage:.3f} ({N_DRAWS} draws)")
    # Impossible outputs are never seen under D' (the proof above) ...
    assert hit_d_prime == 0.0
    assert 0.0 <= advantage <= small <= 1.0
    # ... and a float release does produce them under D: the attack succeeds
    # whenever |N_1| < 1/2 and N_1 has a bit below 2^-53.
    assert advantage > 0.02


@pytest.mark.parametrize("name", sorted(EXACT_RELEASES))
def test_support_attack_finds_nothing_on_exact_release(name, record_property):
    # Fewer draws: the exact samplers cost ~0.2 ms a call.
    hit_d, hit_d_prime, small = _support_attack(EXACT_RELEASES[name], 500)
    record_property("support_attack_advantage", hit_d - hit_d_prime)
    assert hit_d == hit_d_prime == 0.0
    assert small > 0.02  # the attack had outputs to flag, and flagged none
