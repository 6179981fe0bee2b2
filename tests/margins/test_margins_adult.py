# SPDX-License-Identifier: BSD-3-Clause
"""Algorithm 4 with its defaults on UCI Adult (issue 22); skipped without the files.

The defaults are public rules of m, d and ε (chosen on a split of the training
file, docs/margins.md); the test file is only scored. The 10-draw figures of
Algorithm 4 and PrivateMarginSelection are in docs/margins.md, experiment (d)
(the selection takes minutes per fit, too slow for the suite).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsvm.datasets import load_adult
from dpsvm.margins import LabelPrivateMarginClassifier

pytestmark = [pytest.mark.adult, pytest.mark.slow]


def test_label_private_defaults_beat_the_majority_on_adult():
    try:
        Xtr, ytr, Xte, yte = load_adult(
            feature_set="compact", add_constant=True, return_X_y=True
        )
    except FileNotFoundError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"UCI Adult files not found: {exc}")
    clf = LabelPrivateMarginClassifier(epsilon=1.0, classes=[-1, 1], random_state=0)
    acc = clf.fit(Xtr, ytr).score(Xte, yte)
    majority = max(np.mean(yte == 1), np.mean(yte == -1))
    # Issue 22 target: ≥ 0.80 (the old defaults predicted one class, 0.754).
    assert acc >= 0.80 > majority + 0.04
