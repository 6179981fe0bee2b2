# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm train --mechanism objective-laplace / objective-gaussian`` (issue 25)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsvm.io import load_model

SCHEMA = {
    "label": {"column": "y", "classes": ["no", "yes"]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 18, "upper": 80},
        {"column": "hours", "type": "numeric", "lower": 0, "upper": 80},
        {"column": "city", "type": "categorical", "categories": ["a", "b", "c"]},
    ],
}


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    age, hours = rng.uniform(18, 80, n), rng.uniform(0, 80, n)
    city = rng.choice(["a", "b", "c"], n)
    score = (age - 49) / 31 + 0.5 * (city == "a") + rng.normal(0, 0.3, n)
    frame = pd.DataFrame(
        {"age": age.round(1), "hours": hours.round(1), "city": city,
         "y": np.where(score > 0, "yes", "no")}
    )  # fmt: skip
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    frame.to_csv(tmp_path / "d.csv", index=False)
    return tmp_path


def _train(run, files, *extra):
    model = files / "m.json"
    code, out, err = run(
        "train", "--data", str(files / "d.csv"), "--schema",
        str(files / "schema.json"), "--out", str(model), "--epsilon", "0.5",
        "--random-state", "0", *extra,
    )  # fmt: skip
    return code, out, err, model


def test_objective_laplace_takes_the_schema_l1_bound(run, files):
    code, _out, err, model = _train(run, files, "--mechanism", "objective-laplace")
    assert code == 0, err
    m = load_model(str(model))
    # Three columns, each adding at most 1 to ‖x‖₁ once encoded.
    assert m.get_params()["data_norm_l1"] == 3.0
    assert m.data_norm_ == pytest.approx(np.sqrt(3.0))
    ev = m.privacy_event_
    assert ev.mechanism == "objective-perturbation-laplace" and ev.delta == 0.0
    # Unit-ball bound: 3/√3 plus the intercept constant 0.5.
    assert ev.details["l1_bound"] == pytest.approx(np.sqrt(3.0) + 0.5)


def test_objective_gaussian_spends_delta_and_refuses_none(run, files):
    code, out, err, model = _train(
        run, files, "--mechanism", "objective-gaussian", "--delta", "1e-6"
    )
    assert code == 0, err
    ev = load_model(str(model)).privacy_event_
    assert ev.mechanism == "objective-perturbation-gaussian" and ev.delta == 1e-6
    assert "δ is not used" not in out + err
    code, out, err, _ = _train(run, files, "--mechanism", "objective-gaussian")
    assert code == 2 and "give --delta > 0" in err and "Traceback" not in err


@pytest.mark.parametrize("mechanism", ["objective-laplace", "objective-gaussian"])
def test_new_mechanisms_are_linear_only(run, files, mechanism):
    code, _out, err, model = _train(
        run, files, "--kernel", "rbf", "--gamma", "1", "--mechanism", mechanism,
        "--delta", "1e-6",
    )  # fmt: skip
    assert code == 2 and "--kernel linear only" in err
    assert not model.exists()
