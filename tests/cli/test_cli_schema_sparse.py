# SPDX-License-Identifier: BSD-3-Clause
"""dpsvm train/evaluate/predict --schema with a one-hot dominated schema (CSR)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from dpsvm.io import load_model
from dpsvm.models import DPLinearSVC
from dpsvm.preprocessing import PublicSchema

LEVELS = [f"v{k}" for k in range(8)]
WIDE = {
    "label": {"column": "y", "classes": ["no", "yes"]},
    "features": [
        {"column": "a", "type": "numeric", "lower": 0, "upper": 10},
        *(
            {"column": f"c{j}", "type": "categorical", "categories": LEVELS}
            for j in range(4)
        ),
    ],
}


def _table(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.uniform(-2, 12, n),
            **{f"c{j}": rng.choice([*LEVELS, "other"], n) for j in range(4)},
        }
    )
    y = np.where(frame["c0"].isin(LEVELS[:4]), "yes", "no")
    return frame, y


def test_cli_trains_evaluates_and_predicts_on_csr(run, tmp_path, monkeypatch):
    frame, y = _table(1500, 5)
    seen = []
    original = DPLinearSVC.fit

    def spy(self, X, y):
        seen.append(sp.issparse(X))
        return original(self, X, y)

    monkeypatch.setattr(DPLinearSVC, "fit", spy)
    data, schema_path = tmp_path / "d.csv", tmp_path / "s.json"
    frame.assign(y=y).to_csv(data, index=False)
    schema_path.write_text(json.dumps(WIDE))
    model = tmp_path / "m.json"
    code, _, err = run(
        "train", "--data", str(data), "--schema", str(schema_path), "--epsilon",
        "5", "--out", str(model), "--holdout", "0.2", "--random-state", "0",
    )  # fmt: skip
    assert code == 0, err
    assert seen == [True]  # the encoded rows reached the solver as CSR
    clf = load_model(model)
    assert clf.feature_names_in_.tolist() == list(
        PublicSchema.from_dict(WIDE).feature_names_out
    )
    assert clf.data_norm == pytest.approx(math.sqrt(5))
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(data))
    assert code == 0, err
    assert 0.0 <= float(re.match(r"accuracy: (\S+)", stdout).group(1)) <= 1.0
    out = tmp_path / "p.csv"
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(data), "--out", str(out)
    )
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 1500


def test_kernel_model_gets_dense_rows_from_a_wide_schema(run, tmp_path):
    # DPKernelSVC takes dense rows only: the encoder is dense for it.
    frame, y = _table(300, 6)
    data, schema_path = tmp_path / "d.csv", tmp_path / "s.json"
    frame.assign(y=y).to_csv(data, index=False)
    schema_path.write_text(json.dumps(WIDE))
    model = tmp_path / "m.json"
    code, _, err = run(
        "train", "--data", str(data), "--schema", str(schema_path), "--kernel",
        "rbf", "--gamma", "0.5", "--epsilon", "5", "--out", str(model),
        "--random-state", "0",
    )  # fmt: skip
    assert code == 0, err
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(data))
    assert code == 0, err
    assert stdout.startswith("accuracy")
