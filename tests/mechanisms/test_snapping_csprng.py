# SPDX-License-Identifier: BSD-3-Clause
"""The estimators' default noise comes from the ChaCha20 CSPRNG, once per fit.

``random_state=None`` must resolve, inside ``fit``, to exactly one fresh
:func:`dpsvm.utils._random.secure_generator` (ChaCha20 keyed from os.urandom),
and all the noise of that fit must be drawn from it. The test replaces
``secure_generator`` with a spy that returns a *seeded* ChaCha20 generator: the
fits then become reproducible exactly when, and because, their noise comes
from the spy's generator.
"""

from __future__ import annotations

import numpy as np
import pytest
from randomgen import ChaCha

import dpsvm.utils._random as random_module
from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.utils._random import check_random_state, lend_generator, secure_generator


def _data(n: int = 120, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X @ np.arange(1, d + 1) > 0, 1, -1)


class _Spy:
    """Stands in for ``secure_generator``: counts calls, hands out seeded ChaCha."""

    def __init__(self, key: int) -> None:
        self.key = key
        self.calls = 0
        self.generators: list[np.random.Generator] = []

    def __call__(self) -> np.random.Generator:
        self.calls += 1
        gen = np.random.Generator(ChaCha(seed=self.key, rounds=20))
        self.generators.append(gen)
        return gen


ESTIMATORS = [
    pytest.param(lambda: DPLinearSVC(classes=[-1, 1]), id="DPLinearSVC()"),
    pytest.param(
        lambda: DPLinearSVC(mechanism="output", loss="hinge", classes=[-1, 1]),
        id="svc-output",
    ),
    pytest.param(
        lambda: DPLinearSVC(mechanism="output-laplace", classes=[-1, 1]),
        id="svc-output-laplace",
    ),
    pytest.param(lambda: DPLogisticRegression(classes=[-1, 1]), id="logistic"),
]


def test_default_generator_is_chacha20():
    gen = secure_generator()
    assert isinstance(gen.bit_generator, ChaCha)
    assert isinstance(check_random_state(None).bit_generator, ChaCha)
    # Two fresh generators are keyed independently (os.urandom).
    assert secure_generator().integers(2**63) != secure_generator().integers(2**63)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_fit_with_random_state_none_draws_noise_from_one_secure_generator(
    make, monkeypatch
):
    X, y = _data()
    spy = _Spy(key=2024)
    monkeypatch.setattr(random_module, "secure_generator", spy)
    first = make().fit(X, y)
    assert spy.calls == 1  # exactly one CSPRNG per fit
    # The generator was advanced: its next draw is not a fresh stream's first.
    fresh = np.random.Generator(ChaCha(seed=2024, rounds=20))
    assert spy.generators[0].integers(2**63) != fresh.integers(2**63)
    second = make().fit(X, y)
    assert spy.calls == 2
    # Same key, same noise: the noise came from the spy's generator alone.
    np.testing.assert_array_equal(first.coef_, second.coef_)
    spy.key = 7
    third = make().fit(X, y)
    assert spy.calls == 3
    assert not np.array_equal(first.coef_, third.coef_)


def test_seeded_fit_does_not_touch_the_secure_generator(monkeypatch):
    X, y = _data()
    spy = _Spy(key=1)
    monkeypatch.setattr(random_module, "secure_generator", spy)
    DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, y)
    # A stream lent for one fit (the selectors' child streams) is used as is.
    est = DPLinearSVC(classes=[-1, 1])
    with lend_generator(est, np.random.default_rng(0)):
        est.fit(X, y)
    assert spy.calls == 0
