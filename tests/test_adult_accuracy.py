# SPDX-License-Identifier: BSD-3-Clause
"""Accuracy on UCI Adult (official split) against Sarwate et al.'s Fig. 3(a).

Settings are fixed a priori (Λ and h from the paper; the compact public feature
set of dpsvm.datasets.load_adult for the private fits), never tuned on the test
set inside the test. Skipped when the Adult files are absent.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsvm.datasets import load_adult
from dpsvm.models import DPLinearSVC, NonPrivateLinearClassifier

pytestmark = [pytest.mark.adult, pytest.mark.slow]


def _load(feature_set):  # type: ignore[no-untyped-def]
    try:
        return load_adult(feature_set=feature_set)
    except FileNotFoundError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"UCI Adult files not found: {exc}")


def _mean_error(make, data, draws):  # type: ignore[no-untyped-def]
    errs = [
        1.0 - make(s).fit(data.X_train, data.y_train).score(data.X_test, data.y_test)
        for s in range(draws)
    ]
    return float(np.mean(errs))


def test_non_private_huber_svm():
    # Sarwate et al. Fig. 3(a): best non-private Huber SVM 0.15362 at Λ = 1e-6.
    data = _load("full")
    clf = NonPrivateLinearClassifier(loss="huber", huber_h=0.5, regularization=1e-6)
    err = 1.0 - clf.fit(data.X_train, data.y_train).score(data.X_test, data.y_test)
    assert err <= 0.160


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.NotPrivateWarning")
def test_objective_2009_reading_matches_the_paper():
    # Sarwate et al. Fig. 3(a): Alg. 1 at ε = 0.2, Λ = 1e-3 has error 0.1762.
    data = _load("compact")
    err = _mean_error(
        lambda s: DPLinearSVC(
            epsilon=0.2,
            mechanism="objective-2009",
            fit_intercept=False,  # the paper's bias-free problem
            regularization=1e-3,
            huber_h=0.5,
            classes=[-1, 1],
            random_state=s,
        ),
        data,
        draws=20,
    )
    assert err <= 0.180


def test_corrected_objective_perturbation():
    # The private (JMLR 2011) form keeps only ε′ ≈ 0.167 of ε = 0.2 at n = 30162; a
    # larger Λ (2e-3, fixed a priori as 2× the paper's) offsets its extra noise.
    data = _load("compact")
    err = _mean_error(
        lambda s: DPLinearSVC(
            epsilon=0.2,
            mechanism="objective",
            fit_intercept=False,  # the paper's bias-free problem
            regularization=2e-3,
            huber_h=0.5,
            classes=[-1, 1],
            random_state=s,
        ),
        data,
        draws=20,
    )
    assert err <= 0.185


@pytest.mark.parametrize("feature_set", ["full", "compact"])
def test_defaults_reach_082_at_epsilon_half(feature_set):
    # Issue 12: with every parameter at its default (regularization="auto",
    # fit_intercept=True, Huber h = 0.5) DPLinearSVC reaches ≥ 0.82 at ε = 0.5.
    # Old defaults (Λ = 0.01, no intercept): 0.764, below this bar.
    data = _load(feature_set)
    err = _mean_error(
        lambda s: DPLinearSVC(epsilon=0.5, classes=[-1, 1], random_state=s),
        data,
        draws=5,
    )
    assert err <= 0.18
