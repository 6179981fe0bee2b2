# SPDX-License-Identifier: BSD-3-Clause
"""delta="auto" and the one handling of δ ≥ 1/n, across learners and the CLI."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsvm.cli import main as dpsvm_main
from dpsvm.margins import JLMarginClassifier, PrivateMarginSelection
from dpsvm.models import DPLinearSVC, DPOutputPerturbationSVC
from dpsvm.prediction import PrivateInteractivePredictor
from dpsvm.validation import auto_delta, resolve_delta

_REFUSED = r"delta must be below 1/\(number of training rows\)"


@pytest.mark.parametrize(
    ("n", "expected"),
    [(10_000, 1e-6), (100, 1e-3), (200_000, 200_000**-1.5), (1, 0.5), (2, 0.25)],
)
def test_auto_delta_known_answers(n, expected):
    assert auto_delta(n) == pytest.approx(expected, rel=1e-12)
    assert auto_delta(n) < 1.0 / n


def test_resolve_delta_rules():
    assert resolve_delta("auto", 400) == pytest.approx(400**-1.5)
    assert resolve_delta("auto", 400, uses_delta=False) == 0.0
    assert resolve_delta(0.0, 400) == 0.0
    assert resolve_delta(1e-4, 400) == 1e-4
    with pytest.raises(ValueError, match=_REFUSED) as info:
        resolve_delta(1.0 / 400, 400)  # exactly 1/n is refused too
    assert "400" not in str(info.value)  # the row count is never printed
    with pytest.raises(ValueError, match="'auto'"):
        resolve_delta("often", 400)
    with pytest.raises(ValueError, match="> 0"):
        resolve_delta(0.0, 400, allow_zero=False)


def _data(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1)[:, None]
    return X, np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize(
    "make",
    [
        lambda d: DPOutputPerturbationSVC(
            delta=d, noise="gaussian", classes=[-1, 1], random_state=0
        ),
        lambda d: JLMarginClassifier(
            delta=d, n_components=2, max_iter=5, classes=[-1, 1], random_state=0
        ),
        lambda d: PrivateInteractivePredictor(
            delta=d, n_queries=5, classes=[-1, 1], on_vacuous="warn", random_state=0
        ),
    ],
    ids=["DPOutputPerturbationSVC", "JLMarginClassifier", "pinp"],
)
# 300 rows are too few for a useful interactive predictor: its utility warning
# is beside the point here.
@pytest.mark.filterwarnings(
    "ignore::dpsvm.prediction._common.VacuousCalibrationWarning"
)
def test_every_learner_refuses_delta_at_least_one_over_n(make):
    X, y = _data()
    with pytest.raises(ValueError, match=_REFUSED):
        make(1.0 / 300).fit(X, y)
    make("auto").fit(X, y)  # and accepts "auto"


def test_a_pure_mechanism_does_not_refuse_a_delta_it_does_not_spend():
    # δ ≥ 1/n is refused where it is spent; a pure-DP fit spends δ = 0 (the
    # command line says the δ is unused and warns, issue 20 item 5).
    X, y = _data()
    clf = DPLinearSVC(delta=1.0 / 300, classes=[-1, 1], random_state=0).fit(X, y)
    assert clf.privacy_event_.delta == 0.0


def test_auto_delta_is_recorded_in_the_event():
    X, y = _data()
    gauss = DPOutputPerturbationSVC(
        delta="auto", noise="gaussian", classes=[-1, 1], random_state=0
    ).fit(X, y)
    assert gauss.privacy_event_.delta == pytest.approx(300**-1.5)
    pure = DPLinearSVC(delta="auto", classes=[-1, 1], random_state=0).fit(X, y)
    assert pure.privacy_event_.delta == 0.0  # pure mechanism: "auto" is 0
    jl = JLMarginClassifier(
        n_components=2, max_iter=5, classes=[-1, 1], random_state=0
    ).fit(X, y)  # default delta="auto"
    assert jl.privacy_event_.delta == pytest.approx(300**-1.5)


def test_margin_defaults_are_auto():
    assert JLMarginClassifier().delta == "auto"
    assert PrivateMarginSelection().delta == "auto"


@pytest.mark.slow
def test_a_200000_row_fit_runs_with_the_default_delta():
    # δ = 1e-5 (the former default) refused every data set of 10⁵ rows or more.
    X, y = _data(200_000)
    clf = JLMarginClassifier(
        n_components=2, max_iter=5, classes=[-1, 1], random_state=0
    ).fit(X, y)
    assert clf.privacy_event_.delta == pytest.approx(200_000**-1.5)
    assert math.isfinite(clf.privacy_event_.epsilon)


def test_cli_delta_auto_and_refusal(tmp_path, capsys):
    X, y = _data(200)
    path = tmp_path / "train.csv"
    rows = [f"{a:.6f},{b:.6f},{c:.6f},{t}" for (a, b, c), t in zip(X, y, strict=True)]
    path.write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    out = tmp_path / "m.json"
    base = ["train", "--data", str(path), "--classes", "-1,1", "--out", str(out)]
    assert dpsvm_main([*base, "--delta", "auto"]) == 0
    assert out.exists()
    out.unlink()
    capsys.readouterr()
    # 0.01 ≥ 1/200, but the default mechanism is pure: said unused, and warned.
    assert dpsvm_main([*base, "--delta", "0.01"]) == 0
    out_text, err = capsys.readouterr()
    assert "δ is not used" in out_text
    assert "at least 1 / (number of training rows)" in err
    assert "Traceback" not in err


def test_one_vs_rest_resolves_auto_once_for_the_whole_fit():
    # Regression: each one-vs-rest clone resolved "auto" again, so a K-class
    # fit spent K·n^-1.5 against the n^-1.5 checked before it (refused).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X /= np.linalg.norm(X, axis=1)[:, None]
    y = np.argmax(X, axis=1)
    clf = JLMarginClassifier(
        n_components=2, max_iter=5, classes=[0, 1, 2], random_state=0
    ).fit(X, y)
    assert clf.privacy_event_.delta == pytest.approx(300**-1.5)
    assert [c.delta for c in clf.privacy_event_.children] == pytest.approx(
        [300**-1.5 / 3] * 3
    )
