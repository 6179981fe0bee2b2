# SPDX-License-Identifier: BSD-3-Clause
"""The schema's public class priors and sample-weight column (issue 23, item 2)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from dpsvm.preprocessing import PublicSchema, SchemaError, SchemaTransformer, WeightSpec

BASE = {
    "label": {"column": "y", "classes": ["no", "yes"]},
    "features": [{"column": "age", "type": "numeric", "lower": 0, "upper": 100}],
}


def _with(label=None, weight=None):
    doc = copy.deepcopy(BASE)
    if label is not None:
        doc["label"].update(label)
    if weight is not None:
        doc["weight"] = weight
    return doc


def test_priors_and_weight_are_read_and_round_trip():
    doc = _with({"priors": [0.94, 0.06]}, {"column": "w", "upper": 50})
    schema = PublicSchema.from_dict(doc)
    assert schema.label.priors == (0.94, 0.06)
    assert schema.weight == WeightSpec("w", 50.0)
    assert PublicSchema.from_json(schema.to_json()) == schema
    assert schema.to_dict()["weight"] == {"column": "w", "upper": 50.0}


def test_schemas_without_them_are_unchanged():
    schema = PublicSchema.from_dict(BASE)
    assert schema.label.priors is None and schema.weight is None
    assert schema.to_dict() == {
        "label": {"column": "y", "classes": ["no", "yes"]},
        "features": [
            {"column": "age", "type": "numeric", "lower": 0.0, "upper": 100.0}
        ],
    }


@pytest.mark.parametrize(
    "doc, match",
    [
        (_with({"priors": [0.5, 0.6]}), r"label\.priors: must sum to 1"),
        (_with({"priors": [1.0]}), r"label\.priors: must give one proportion"),
        (_with({"priors": [1.0, 0.0]}), r"label\.priors\[1\]: must be > 0"),
        (_with({"priors": "0.5,0.5"}), r"label\.priors: must be a list"),
        (_with({"priors": [0.5, None]}), r"label\.priors\[1\]"),
        (_with(weight={"column": "w"}), r"weight: missing key 'upper'"),
        (_with(weight={"column": "w", "upper": 0}), r"weight\.upper: must be > 0"),
        (_with(weight={"column": "w", "upper": 1, "x": 1}), r"unknown key"),
        (_with(weight={"column": "age", "upper": 1}), r"weight\.column.*not a feature"),
        (_with(weight={"column": "y", "upper": 1}), r"weight\.column.*label\.column"),
    ],
)
def test_bad_priors_and_weights_name_the_json_path(doc, match):
    with pytest.raises(SchemaError, match=match):
        PublicSchema.from_dict(doc)


def test_the_weight_column_is_not_encoded_as_a_feature():
    schema = PublicSchema.from_dict(_with(weight={"column": "w", "upper": 5}))
    frame = pd.DataFrame({"age": [10.0, 90.0], "w": [1.0, 7.0], "y": ["no", "yes"]})
    out = SchemaTransformer(schema).fit_transform(frame)
    np.testing.assert_allclose(out, [[-0.8], [0.8]])
    assert schema.feature_names_out == ("age",)
