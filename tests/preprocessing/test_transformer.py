# SPDX-License-Identifier: BSD-3-Clause
"""SchemaTransformer: encoding semantics, scikit-learn contract, pipelines."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpsvm.models import DPLinearSVC
from dpsvm.preprocessing import PublicSchema, SchemaError, SchemaTransformer

SCHEMA = PublicSchema.from_dict(
    {
        "label": {"column": "y", "classes": ["no", "yes"]},
        "features": [
            {"column": "age", "type": "numeric", "lower": 20, "upper": 60},
            {"column": "job", "type": "categorical", "categories": ["a", "b", "c"]},
            {"column": "code", "type": "categorical", "categories": [1, 2]},
        ],
    }
)


def _frame():
    return pd.DataFrame(
        {
            "ignored": ["x", "y", "z", "w", "v"],
            "code": [1, 2.0, 3, None, 2],
            "job": ["a", " b", "zzz", None, "c"],
            "age": [20, 40, 100, np.nan, -5],
        }
    )


def test_numeric_clipped_and_scaled_categories_one_hot():
    out = SchemaTransformer(SCHEMA).fit_transform(_frame())
    expected = [
        # age: (clip(age) - 20) / 40 * 2 - 1; job one-hot; code one-hot
        [-1.0, 1, 0, 0, 1, 0],
        [0.0, 0, 1, 0, 0, 1],
        [1.0, 0, 0, 0, 0, 0],  # 100 clipped to 60; undeclared "zzz" and 3
        [0.0, 0, 0, 0, 0, 0],  # missing values: midpoint and all zeros
        [-1.0, 0, 0, 1, 0, 1],  # -5 clipped to 20
    ]
    np.testing.assert_array_equal(out, expected)
    norms = np.linalg.norm(out, axis=1)
    assert np.all(norms <= SCHEMA.row_norm_bound + 1e-12)


def test_fit_reads_no_bound_from_data():
    a = SchemaTransformer(SCHEMA).fit(_frame())
    b = SchemaTransformer(SCHEMA).fit(_frame().assign(age=[1e9] * 5))
    frame = _frame()
    np.testing.assert_array_equal(a.transform(frame), b.transform(frame))
    assert a.row_norm_bound_ == b.row_norm_bound_ == math.sqrt(3)


def test_unit_norm_divides_by_the_public_bound():
    plain = SchemaTransformer(SCHEMA).fit_transform(_frame())
    unit = SchemaTransformer(SCHEMA, unit_norm=True).fit(_frame())
    assert unit.row_norm_bound_ == 1.0
    np.testing.assert_allclose(unit.transform(_frame()), plain / math.sqrt(3))
    assert np.all(np.linalg.norm(unit.transform(_frame()), axis=1) <= 1 + 1e-12)


def test_columns_matched_by_name_in_any_order_dict_and_records():
    frame = _frame()
    t = SchemaTransformer(SCHEMA).fit(frame)
    expected = t.transform(frame)
    np.testing.assert_array_equal(t.transform(frame[frame.columns[::-1]]), expected)
    as_dict = {c: frame[c].tolist() for c in frame.columns}
    np.testing.assert_array_equal(t.transform(as_dict), expected)
    records = np.rec.fromarrays(
        [np.array([20.0, 60.0]), np.array(["a", "c"]), np.array([1, 5])],
        names=["age", "job", "code"],
    )
    np.testing.assert_array_equal(
        SchemaTransformer(SCHEMA).fit_transform(records),
        [[-1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 0, 0]],
    )


def test_positional_array_needs_one_column_per_feature():
    X = np.array([[20, "a", 1], [60, "c", 2]], dtype=object)
    np.testing.assert_array_equal(
        SchemaTransformer(SCHEMA).fit_transform(X),
        [[-1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 0, 1]],
    )
    with pytest.raises(ValueError, match="X has 2 columns but the schema declares 3"):
        SchemaTransformer(SCHEMA).fit(X[:, :2])


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"no column\(s\) \['job', 'code'\]"):
        SchemaTransformer(SCHEMA).fit(pd.DataFrame({"age": [1.0]}))
    t = SchemaTransformer(SCHEMA).fit(_frame())
    with pytest.raises(ValueError, match=r"no column\(s\) \['age'\]"):
        t.transform(_frame().drop(columns="age"))


def test_text_in_numeric_column_is_refused_without_quoting_it():
    frame = _frame().astype({"age": object})
    frame.loc[1, "age"] = "secret-value"
    with pytest.raises(ValueError, match="'age' is declared numeric") as info:
        SchemaTransformer(SCHEMA).fit_transform(frame)
    assert "secret" not in str(info.value)
    # Blank strings are missing values, not text.
    frame.loc[1, "age"] = "  "
    assert SchemaTransformer(SCHEMA).fit_transform(frame)[1, 0] == 0.0


def test_schema_given_as_dict_or_path(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(SCHEMA.to_json())
    for schema in (SCHEMA.to_dict(), str(path), path):
        t = SchemaTransformer(schema).fit(_frame())
        assert t.schema_ == SCHEMA
    with pytest.raises(SchemaError):
        SchemaTransformer({"label": {}}).fit(_frame())
    with pytest.raises(TypeError, match="schema must be"):
        SchemaTransformer(3).fit(_frame())


def test_feature_names_and_set_output_pandas():
    t = SchemaTransformer(SCHEMA).set_output(transform="pandas")
    frame = _frame().set_index(pd.Index(list("pqrst")))
    out = t.fit_transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["age", "job_a", "job_b", "job_c", "code_1", "code_2"]
    assert list(out.index) == list("pqrst")
    assert list(t.get_feature_names_out()) == list(SCHEMA.feature_names_out)
    np.testing.assert_array_equal(t.feature_names_in_, frame.columns)


def _labelled(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    # Data seed only: the features and labels of a synthetic test problem.
    rng = np.random.default_rng(seed)
    age = rng.uniform(20, 60, n)
    job = rng.choice(["a", "b", "c"], n)
    frame = pd.DataFrame({"job": job, "age": age, "code": rng.choice([1, 2], n)})
    labels = np.where((age > 40) | (job == "c"), " yes", "no")
    return frame, SCHEMA.encode_labels(labels)


def test_pipeline_with_private_estimator_and_string_labels():
    X, y = _labelled(400, 0)
    t = SchemaTransformer(SCHEMA)
    model = make_pipeline(
        t,
        DPLinearSVC(
            epsilon=50.0,
            data_norm=SCHEMA.row_norm_bound,
            classes=list(SCHEMA.classes),
            fit_intercept=True,
            random_state=0,
        ),
    )
    model.fit(X, y)
    predictions = model.predict(X)
    assert set(predictions) <= {"no", "yes"}
    assert np.mean(predictions == y) > 0.8


def test_grid_search_over_pipeline():
    X, y = _labelled(300, 1)
    pipe = make_pipeline(
        SchemaTransformer(SCHEMA, unit_norm=True),
        DPLinearSVC(epsilon=50.0, classes=["no", "yes"], random_state=0),
    )
    grid = GridSearchCV(
        pipe,
        {
            "schematransformer__unit_norm": [True, False],
            "dplinearsvc__regularization": [0.001, 0.01],
        },
        cv=3,
    )
    grid.fit(X, y)
    assert grid.best_estimator_.predict(X.iloc[:5]).shape == (5,)
    assert clone(pipe).get_params()["schematransformer__schema"] == SCHEMA


# The transformer's width is fixed by its schema (3 numeric features here), so
# checks that fit arrays of other widths cannot pass: by design, not a defect.
_WIDTH = "input width is fixed by the public schema (3 columns), by design"
CHECK_SCHEMA = PublicSchema.from_dict(
    {
        "label": {"column": "y", "classes": [0, 1]},
        "features": [
            {"column": c, "type": "numeric", "lower": -3, "upper": 3}
            for c in ("a", "b", "c")
        ],
    }
)


@parametrize_with_checks(
    [SchemaTransformer(CHECK_SCHEMA)],
    expected_failed_checks=lambda est: {
        name: _WIDTH
        for name in (
            "check_estimators_overwrite_params",
            "check_estimators_fit_returns_self",
            "check_readonly_memmap_input",
            "check_n_features_in_after_fitting",
            "check_positive_only_tag_during_fit",
            "check_estimators_dtypes",
            "check_dtype_object",
            "check_fit2d_1sample",
            "check_fit2d_1feature",
            "check_fit_idempotent",
            "check_fit_check_is_fitted",
            "check_n_features_in",
        )
    },
)
def test_sklearn_contract(estimator, check):
    check(estimator)
