# SPDX-License-Identifier: BSD-3-Clause
"""dpsvm train --tune --metric accuracy|weighted-error [--class-priors P1,P2]."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

SCHEMA = {
    "label": {"column": "y", "classes": ["no", "yes"]},
    "features": [
        {"column": "a", "type": "numeric", "lower": 0, "upper": 10},
        {"column": "c", "type": "categorical", "categories": list("abcdefgh")},
    ],
}


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    n = 1500
    c = np.where(rng.uniform(size=n) < 0.1, "a", rng.choice(list("bcdefgh"), n))
    frame = pd.DataFrame({"a": rng.uniform(0, 10, n), "c": c})
    frame["y"] = np.where(c == "a", "yes", "no")
    data, schema = tmp_path / "d.csv", tmp_path / "s.json"
    frame.to_csv(data, index=False)
    schema.write_text(json.dumps(SCHEMA))
    return str(data), str(schema), str(tmp_path / "m.json")


def test_weighted_error_tuning_with_public_priors(run, files):
    data, schema, model = files
    code, out, err = run(
        "train", "--data", data, "--schema", schema, "--tune", "--metric",
        "weighted-error", "--class-priors", "0.9,0.1", "--random-state", "0",
        "--out", model,
    )  # fmt: skip
    assert code == 0, err
    assert "by mistakes weighted by the public class priors" in out
    # Its grid reaches lower: 1/64, 1/16, 1/4 and 1 × the a-priori Λ.
    grid = re.search(r"chosen privately from (.*) on a tenth", out).group(1)
    values = [float(v) for v in grid.split(", ")]
    ratios = [v / values[-1] for v in values]
    assert ratios == pytest.approx([1 / 64, 1 / 16, 1 / 4, 1.0], rel=1e-4)
    with open(model) as fh:
        saved = json.load(fh)
    assert '"scoring": "weighted-error"' in json.dumps(saved)


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--metric", "weighted-error"], "--metric and --class-priors choose"),
        (["--tune", "--metric", "weighted-error"], "needs the public class priors"),
        (
            ["--tune", "--metric", "weighted-error", "--class-priors", "0.2,0.3,0.5"],
            "3 class priors for 2 classes",
        ),
        (
            ["--tune", "--metric", "weighted-error", "--class-priors", "0.5,0.4"],
            "must sum to 1",
        ),
        (["--tune", "--class-priors", "0.9,0.1"], "--metric weighted-error only"),
    ],
)
def test_bad_metric_options_are_refused(run, files, extra, match):
    data, schema, model = files
    code, out, err = run(
        "train", "--data", data, "--schema", schema, "--out", model, *extra
    )
    assert code == 2 and out == "" and match in err and "Traceback" not in err
