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
    # Three columns, at most one non-zero in [-1, 1] each: ‖x‖₁ ≤ √3·‖x‖₂,
    # and the x part is projected onto radius √(R² − s²) = √3·√0.75.
    assert m.get_params()["data_norm_l1"] == pytest.approx(3.0 * np.sqrt(0.75))
    assert m.data_norm_ == pytest.approx(np.sqrt(3.0))
    ev = m.privacy_event_
    assert ev.mechanism == "objective-perturbation-laplace" and ev.delta == 0.0
    # Unit-ball bound: 3·√0.75/√3 = 1.5 plus the intercept constant 0.5 (it
    # was 3/√3 + 0.5 with the bound m = 3).
    assert ev.details["l1_bound"] == pytest.approx(2.0)
    # Without the intercept the L2 radius is R and the bound is m.
    code, _out, err, model = _train(
        run, files, "--mechanism", "objective-laplace", "--no-fit-intercept"
    )
    assert code == 0, err
    assert load_model(str(model)).get_params()["data_norm_l1"] == pytest.approx(3.0)


def test_the_schema_l1_bound_clips_no_encoded_row(files):
    # The lemma behind the CLI's bound: after the L2 projection every encoded
    # row has ‖x‖₁ ≤ min(m, √m·√(R² − s²)), so the estimator's L1 clip is a
    # no-op on them (extreme rows included).
    from dpsvm.models import DPLinearSVC
    from dpsvm.perturbation import sparse_rows_l1_bound
    from dpsvm.preprocessing import PublicSchema, SchemaTransformer

    schema = PublicSchema.from_json(str(files / "schema.json"))
    frame = pd.read_csv(files / "d.csv")
    extreme = pd.DataFrame(
        {"age": [80.0, 18.0, 80.0], "hours": [80.0, 0.0, 40.0],
         "city": ["a", "b", "c"], "y": ["yes", "no", "no"]}
    )  # fmt: skip
    frame = pd.concat([frame, extreme], ignore_index=True)
    X = np.asarray(SchemaTransformer(schema, sparse_output=False).fit_transform(frame))
    R = schema.row_norm_bound
    bound = sparse_rows_l1_bound(3, R, 0.5)
    y = np.where(frame["y"] == "yes", 1, -1)
    clf = DPLinearSVC(
        epsilon=1.0, mechanism="objective-laplace", data_norm=R,
        data_norm_l1=bound, classes=[-1, 1], random_state=0,
    )  # fmt: skip
    Xt, _, _ = clf._prepare_fit(X, y)
    projected = Xt.toarray()  # the L2 projection, before the L1 clip
    np.testing.assert_array_equal(clf._clip_l1(Xt).toarray(), projected)
    l1 = np.abs(projected[:, :3]).sum(axis=1) * R
    assert l1.max() <= bound * (1 + 1e-12)
    assert l1.max() == pytest.approx(bound)  # the extreme rows reach it


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
