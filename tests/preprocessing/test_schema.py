# SPDX-License-Identifier: BSD-3-Clause
"""The public schema: good and bad files, label mapping, drafting."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pandas as pd
import pytest

from dpsvm.exceptions import PrivacyLeakWarning
from dpsvm.preprocessing import (
    CategoricalFeature,
    LabelSpec,
    NumericFeature,
    PublicSchema,
    SchemaError,
    canonical_key,
    draft_schema,
)

ISSUE_EXAMPLE = {
    "label": {"column": "income", "classes": ["<=50K", ">50K"]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 17, "upper": 90},
        {
            "column": "workclass",
            "type": "categorical",
            "categories": ["Private", "State-gov"],
        },
    ],
}


def test_issue_example_reads_from_file_and_text(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(ISSUE_EXAMPLE))
    from_file = PublicSchema.from_json(path)
    assert from_file == PublicSchema.from_json(str(path))
    assert from_file == PublicSchema.from_json(json.dumps(ISSUE_EXAMPLE))
    assert from_file.label == LabelSpec("income", ("<=50K", ">50K"))
    assert from_file.features == (
        NumericFeature("age", 17.0, 90.0),
        CategoricalFeature("workclass", ("Private", "State-gov")),
    )
    assert from_file.columns == ("age", "workclass")
    assert from_file.feature_names_out == (
        "age",
        "workclass_Private",
        "workclass_State-gov",
    )
    assert from_file.n_features_out == 3
    # One numeric feature in [-1, 1] and one one-hot group: sqrt(1 + 1).
    assert from_file.row_norm_bound == pytest.approx(math.sqrt(2))
    assert PublicSchema.from_json(from_file.to_json()) == from_file
    assert PublicSchema.from_dict(from_file.to_dict()) == from_file


def _with(dotted: str, value, *, delete: bool = False) -> dict:
    doc = copy.deepcopy(ISSUE_EXAMPLE)
    *parents, last = dotted.split(".")
    node = doc
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    key = int(last) if last.isdigit() else last
    if delete:
        del node[key]
    else:
        node[key] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        (_with("label", None, delete=True), r"\(top level\): missing key 'label'"),
        (_with("features", None, delete=True), "missing key 'features'"),
        (_with("extra", 1), r"unknown key\(s\) 'extra'"),
        (_with("label.classes", None, delete=True), "label: missing key 'classes'"),
        (_with("label.classes", ["a"]), "label.classes: must hold at least 2"),
        (_with("label.classes", ["a", " a"]), r"label.classes\[1\]: ' a' repeats"),
        (_with("label.classes", [1, 1.0]), r"label.classes\[1\]"),
        (_with("label.classes", ["a", 1]), "all strings or all numbers"),
        (_with("label.classes", [True, False]), "string or a number"),
        (_with("label.column", ""), "label.column: must be a non-empty string"),
        (_with("features", []), "at least one feature"),
        (_with("features", {}), "features: must be a list"),
        (_with("features.0.type", "ordinal"), r"features\[0\].type: unknown type"),
        (_with("features.0.type", None, delete=True), "missing key 'type'"),
        (_with("features.0.lower", None, delete=True), "missing key 'lower'"),
        (_with("features.0.lower", 90), r"features\[0\].lower: must be below"),
        (_with("features.0.lower", 100), r"features\[0\].lower: must be below"),
        (_with("features.0.upper", 1e400), r"features\[0\].upper: must be finite"),
        (_with("features.0.upper", "90"), r"features\[0\].upper: must be a number"),
        (_with("features.0.categories", ["x"]), r"unknown key\(s\) 'categories'"),
        (_with("features.1.categories", []), r"features\[1\].categories: must hold"),
        (
            _with("features.1.categories", ["Private", "Private "]),
            r"features\[1\].categories\[1\]: 'Private ' repeats",
        ),
        (_with("features.1.column", "age"), "already declared by features"),
        (_with("features.1.column", "income"), "already declared by label.column"),
        (_with("features.1", 3), r"features\[1\]: must be a JSON object"),
    ],
)
def test_bad_schemas_name_the_json_path(doc, match):
    with pytest.raises(SchemaError, match=match):
        PublicSchema.from_dict(doc)


def test_encoded_name_clash_is_refused():
    doc = copy.deepcopy(ISSUE_EXAMPLE)
    doc["features"].append(
        {"column": "workclass_Private", "type": "numeric", "lower": 0, "upper": 1}
    )
    with pytest.raises(SchemaError, match="would both be named 'workclass_Private'"):
        PublicSchema.from_dict(doc)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{", "not valid JSON"),
        ('{"label": 1, "label": 2}', "duplicate key 'label'"),
        ('{"label": NaN}', "NaN is not allowed"),
    ],
)
def test_bad_json_text(text, match):
    with pytest.raises(SchemaError, match=match):
        PublicSchema.from_json(text)


def test_bad_file(tmp_path):
    p = tmp_path / "s.json"
    p.write_bytes(b"\xff\xfe{")
    with pytest.raises(SchemaError, match="not UTF-8"):
        PublicSchema.from_json(p)
    with pytest.raises(FileNotFoundError):
        PublicSchema.from_json(tmp_path / "missing.json")


def test_hand_built_schema_is_validated():
    with pytest.raises(SchemaError, match="must be below upper"):
        PublicSchema(LabelSpec("y", (0, 1)), (NumericFeature("x", 1.0, 1.0),))


def test_canonical_key():
    assert canonical_key(1) == canonical_key(1.0) == canonical_key(" 1.0 ") == "1"
    assert canonical_key(np.int64(-1)) == canonical_key("-1") == "-1"
    assert canonical_key(0.5) == canonical_key("0.5")
    assert canonical_key(True) == canonical_key("TRUE") == canonical_key(" true")
    assert canonical_key(np.bool_(False)) == canonical_key("False") == "false"
    for missing in (None, float("nan"), pd.NA, "", "  "):
        assert canonical_key(missing) is None


def test_encode_labels_maps_strings_and_numbers():
    schema = PublicSchema.from_dict(ISSUE_EXAMPLE)
    out = schema.encode_labels(pd.Series([" >50K", "<=50K", ">50K"]))
    assert out.tolist() == [">50K", "<=50K", ">50K"]
    numeric = PublicSchema.from_dict(_with("label.classes", [-1, 1]))
    out = numeric.encode_labels(np.array(["1", "-1.0", " 1"], dtype=object))
    assert out.dtype == np.int64
    assert out.tolist() == [1, -1, 1]
    assert numeric.encode_labels([1.0, -1.0]).tolist() == [1, -1]


@pytest.mark.parametrize("bad", ["secret-label-42", None, float("nan"), 7])
def test_encode_labels_refuses_other_values_without_quoting_them(bad):
    schema = PublicSchema.from_dict(_with("label.classes", [-1, 1]))
    with pytest.raises(ValueError) as info:
        schema.encode_labels([1, bad, -1, bad])
    message = str(info.value)
    assert "'income'" in message and "[-1, 1]" in message
    assert "secret" not in message and "7" not in message
    # No count of the offending private rows either.
    assert "2" not in message


def test_draft_schema_warns_and_drafts(tmp_path):
    df = pd.DataFrame(
        {"age": [20, 35, 50], "job": ["a", "b", None], "y": ["no", "yes", "no"]}
    )
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    for source in (df, path):
        with pytest.warns(PrivacyLeakWarning, match="reads the private data"):
            draft = draft_schema(source, label="y")
        assert draft.classes == ("no", "yes")
        assert draft.features == (
            NumericFeature("age", 20.0, 50.0),
            CategoricalFeature("job", ("a", "b")),
        )
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError, match="label"):
        draft_schema(df, label="nope")
