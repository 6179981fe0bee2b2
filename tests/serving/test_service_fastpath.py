# SPDX-License-Identifier: BSD-3-Clause
"""The service's lean path (issue 24 item 7): the same answers as the library.

A released model's prediction on the parsed rows without the library's
re-validation, and the schema transform compiled into numpy operations, must
give the library's labels, scores and encoded rows bit for bit on random rows
(the schema path and the raw-feature path), refuse the same bad rows, and be
switched off whenever its compile-time check against the library fails.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import KEY, auth, make_keys, make_served, write_training_files
from fastapi.testclient import TestClient

from dpsvm.cli import _serve as serve_cli
from dpsvm.cli._main import build_parser
from dpsvm.models import DPKernelSVC, DPLinearSVC, DPLogisticRegression
from dpsvm.preprocessing import PublicSchema, SchemaTransformer
from dpsvm.serving import (
    ApiKeys,
    InputSpec,
    Ledger,
    ReleasedModel,
    _fastpath,
    create_app,
)
from dpsvm.serving._inputs import parse_inputs


def _bitwise(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)
    )


_BIN = ["no", "yes"]


def _data(n=240, d=5, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    score = X @ np.linspace(1.0, -1.0, d)
    if classes == 2:
        y = np.where(score > 0, "yes", "no")
    else:
        y = np.array(["a", "b", "c"])[np.digitize(score, [-0.5, 0.5])]
    return X, y


def _query_rows(d, seed):
    """Batches of 1..70 random rows of every scale (inside and far outside any ball)."""
    rng = np.random.default_rng(seed)
    for size in (1, 1, 2, 7, 64, 70):
        X = rng.standard_normal((size, d)) * 10.0 ** rng.uniform(-3, 4, (size, 1))
        yield np.ascontiguousarray(X)


_MODELS = {
    "rbf": lambda: DPKernelSVC(kernel="rbf", gamma=0.3, n_components=40),
    "laplacian": lambda: DPKernelSVC(kernel="laplacian", gamma=0.3, n_components=30),
    "cauchy-cos-phase": lambda: DPKernelSVC(
        kernel="cauchy", n_components=30, feature_map="cos-phase"
    ),
    "linear-svm": lambda: DPLinearSVC(fit_intercept=True),
    "logistic": lambda: DPLogisticRegression(),
}


@pytest.mark.parametrize("named", [False, True], ids=["array", "named-columns"])
@pytest.mark.parametrize("kind", list(_MODELS))
def test_released_fast_path_is_the_library_predict_bit_for_bit(kind, named):
    X, y = _data()
    model = _MODELS[kind]().set_params(epsilon=1.0, classes=_BIN, random_state=0)
    if named:
        X = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    model.fit(X, y)
    predictor = ReleasedModel(model)
    assert predictor.fast_path
    fast = predictor._fast
    for seed in range(3):
        for Q in _query_rows(5, seed):
            frame = pd.DataFrame(Q, columns=model.feature_names_in_) if named else Q
            expected = model.predict(frame)
            _bitwise(predictor.labels(Q), expected)
            _bitwise(fast(Q), expected)
            # The scores too, not only their signs.
            _bitwise(fast.scores(Q), model.decision_function(frame))


def test_released_fast_path_with_three_classes():
    X, y = _data(classes=3)
    model = DPLinearSVC(epsilon=2.0, classes=["a", "b", "c"], random_state=0).fit(X, y)
    predictor = ReleasedModel(model)
    assert predictor.fast_path and model.coef_.shape[0] == 3
    for Q in _query_rows(5, 7):
        _bitwise(predictor.labels(Q), model.predict(Q))


def test_rows_the_fast_path_does_not_expect_get_the_library_and_its_error():
    X, y = _data()
    model = DPKernelSVC(epsilon=1.0, n_components=20, classes=_BIN, random_state=0).fit(
        X, y
    )
    predictor = ReleasedModel(model)
    bad = np.ones((2, 5))
    bad[1, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        predictor.labels(bad)
    with pytest.raises(ValueError, match="features"):
        predictor.labels(np.ones((2, 4)))
    # Lists, float32 and Fortran-ordered rows: the library's path, same labels.
    Q = next(_query_rows(5, 3))
    for rows in (Q.tolist(), Q.astype(np.float32), np.asfortranarray(Q)):
        np.testing.assert_array_equal(predictor.labels(rows), model.predict(rows))


def test_unknown_model_types_keep_the_library_path():
    X, y = _data()

    class Overridden(DPLinearSVC):
        def decision_function(self, X):  # not LinearModelBase's: not compiled
            return -super().decision_function(X)

    model = Overridden(epsilon=1.0, classes=_BIN, random_state=0).fit(X, y)
    predictor = ReleasedModel(model)
    assert not predictor.fast_path
    Q = next(_query_rows(5, 1))
    np.testing.assert_array_equal(predictor.labels(Q), model.predict(Q))


def test_a_fast_path_that_disagrees_with_the_library_is_not_used(monkeypatch):
    X, y = _data()
    model = DPLinearSVC(epsilon=1.0, classes=_BIN, random_state=0).fit(X, y)
    original = _fastpath._linear_scores

    def off_by_one_ulp(m):
        scores = original(m)
        return lambda Q: np.nextafter(scores(Q), np.inf)

    monkeypatch.setattr(_fastpath, "_linear_scores", off_by_one_ulp)
    assert not ReleasedModel(model).fast_path


# ----------------------------------------------------------- schema transform
_SCHEMA = {
    "label": {"column": "y", "classes": ["n", "p"]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 17, "upper": 90},
        {"column": "w", "type": "categorical", "categories": ["Private", "Gov", "x y"]},
        {"column": "ratio", "type": "numeric", "lower": -0.5, "upper": 2.25},
        {"column": "code", "type": "categorical", "categories": [1, 2, 10]},
    ],
}


def _raw_rows(n, seed):
    """BYTES tensors as clients send them: numbers, numeric strings, categories."""
    rng = np.random.default_rng(seed)
    cells = []
    for _ in range(n):
        cells += [
            float(rng.uniform(-50, 150))
            if rng.random() < 0.7
            else f" {rng.integers(0, 99)} ",
            str(rng.choice(["Private", " Gov ", "x y", "Self", "", "private"])),
            float(rng.uniform(-3, 4))
            if rng.random() < 0.8
            else int(rng.integers(-3, 4)),
            str(rng.choice(["1", "2.0", " 10 ", "3", "1e1", "abc"])),
        ]
    return {"name": "input", "shape": [n, 4], "datatype": "BYTES", "data": cells}


@pytest.mark.parametrize("sparse_output", [False, True, "auto"])
@pytest.mark.parametrize("unit_norm", [False, True])
def test_compiled_schema_transform_is_the_transformer_bit_for_bit(
    unit_norm, sparse_output
):
    schema = PublicSchema.from_dict(_SCHEMA)
    transformer = SchemaTransformer(
        schema, unit_norm=unit_norm, sparse_output=sparse_output
    ).fit(pd.DataFrame(columns=schema.columns))
    spec = InputSpec(
        list(schema.columns), [False, True, False, True], transformer.transform
    )
    compiled = _fastpath.compile_schema_transform(transformer.transform)
    assert compiled is not None
    for seed in range(4):
        for n in (1, 3, 50):
            raw = parse_inputs([_raw_rows(n, seed)], spec, 1024)
            _bitwise(compiled(raw), spec.features(raw))


def test_compiled_schema_transform_of_numeric_columns_and_float_tensors():
    schema = PublicSchema.from_dict(
        {
            "label": {"column": "y", "classes": [0, 1]},
            "features": [
                {"column": f"f{j}", "type": "numeric", "lower": -j - 1, "upper": 3.5}
                for j in range(6)
            ],
        }
    )
    transformer = SchemaTransformer(schema, unit_norm=True).fit(
        pd.DataFrame(columns=schema.columns)
    )
    spec = InputSpec(list(schema.columns), [False] * 6, transformer.transform)
    compiled = _fastpath.compile_schema_transform(transformer.transform)
    assert compiled is not None
    rng = np.random.default_rng(3)
    for n in (1, 2, 64):
        data = (rng.standard_normal(n * 6) * 5).tolist()
        raw = parse_inputs(
            [{"name": "input", "shape": [n, 6], "datatype": "FP64", "data": data}],
            spec,
            1024,
        )
        _bitwise(compiled(raw), spec.features(raw))


def test_only_schema_transformers_are_compiled(monkeypatch):
    assert _fastpath.compile_schema_transform(None) is None
    assert _fastpath.compile_schema_transform(lambda raw: raw) is None
    schema = PublicSchema.from_dict(_SCHEMA)
    transformer = SchemaTransformer(schema).fit(pd.DataFrame(columns=schema.columns))
    # A compiled transform that disagrees with the transformer is not used.
    original = _fastpath.CompiledSchemaTransform.__call__
    monkeypatch.setattr(
        _fastpath.CompiledSchemaTransform,
        "__call__",
        lambda self, raw: original(self, raw) * (1 + 2**-52),
    )
    assert _fastpath.compile_schema_transform(transformer.transform) is None


# ---------------------------------------------------- dpsvm serve, end to end
def _serve(files, ledger, *extra):
    args = build_parser().parse_args(
        [
            "serve",
            "--data",
            files["data"],
            "--schema",
            files["schema"],
            "--epsilon",
            "1",
            "--ledger",
            str(ledger),
            "--api-key-file",
            files["keys"],
            *extra,
        ]
    )
    serve_cli._check_args(args)
    schema_json = PublicSchema.from_json(args.schema).to_json()
    served, led = serve_cli.MECHANISMS[args.mechanism].start(
        args, serve_cli._fingerprinter(args, schema_json)
    )
    return served, led, create_app(served, led, ApiKeys([(KEY, None)]))


def _library_labels(served, schema, rows):
    """What the library answers: its transformer on a frame, then predict."""
    model = served.predictor._model
    frame = pd.DataFrame(rows, columns=["age", "hours", "workclass"])
    encoded = SchemaTransformer(schema, sparse_output=False).fit_transform(frame)
    X = pd.DataFrame(encoded, columns=model.feature_names_in_)
    return model.predict(X).tolist()


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_served_model_answers_are_the_library_predictions(tmp_path, kernel):
    files = write_training_files(tmp_path, n=200)
    schema = PublicSchema.from_json(files["schema"])
    served, ledger, app = _serve(files, tmp_path / "l.db", "--kernel", kernel)
    assert served.predictor.fast_path
    assert isinstance(app.state.service._features, _fastpath.CompiledSchemaTransform)
    rng = np.random.default_rng(5)
    rows = [
        [
            float(rng.uniform(0, 120)),
            float(rng.uniform(-10, 120)),
            str(rng.choice(["Private", "State-gov", "Self-emp", ""])),
        ]
        for _ in range(40)
    ]
    with TestClient(app) as client:
        for batch in (rows[:1], rows[1:2], rows[2:40]):
            body = {
                "inputs": [
                    {
                        "name": "input",
                        "shape": [len(batch), 3],
                        "datatype": "BYTES",
                        "data": [v for r in batch for v in r],
                    }
                ]
            }
            r = client.post("/v2/models/dpsvm/infer", json=body, headers=auth())
            assert r.status_code == 200, r.text
            assert r.json()["outputs"][0]["data"] == _library_labels(
                served, schema, batch
            )
        answered = ledger.snapshot().answers
        # Bad rows are refused before any prediction: 422, nothing counted.
        for data in (
            [float("nan"), 40.0, "Private"],
            ["forty", 40.0, "Private"],
            [40.0, 40.0, None],
        ):
            body = {
                "inputs": [
                    {
                        "name": "input",
                        "shape": [1, 3],
                        "datatype": "BYTES",
                        "data": data,
                    }
                ]
            }
            r = client.post(
                "/v2/models/dpsvm/infer",
                content=json.dumps(body, allow_nan=True),
                headers={**auth(), "content-type": "application/json"},
            )
            assert r.status_code == 422, r.text
        assert ledger.snapshot().answers == answered == 40
    ledger.dispose()


def test_serve_model_with_a_one_hot_dominated_schema(tmp_path):
    """Regression: a schema whose encoding defaults to CSR (one-hot columns
    dominate, as Adult's) crashed training of --mechanism model and answered
    every request 422; the service encodes dense."""
    rng = np.random.default_rng(0)
    cats = [f"c{i}" for i in range(12)]
    n = 300
    a = rng.uniform(0, 10, n).round(2)
    w = rng.choice(cats, n)
    lines = ["a,w,y"] + [
        f"{x},{c},{'p' if x > 5 else 'n'}" for x, c in zip(a, w, strict=True)
    ]
    (tmp_path / "train.csv").write_text("\n".join(lines) + "\n")
    schema = {
        "label": {"column": "y", "classes": ["n", "p"]},
        "features": [
            {"column": "a", "type": "numeric", "lower": 0, "upper": 10},
            {"column": "w", "type": "categorical", "categories": cats},
        ],
    }
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "keys.txt").write_text(KEY + "\n")
    files = {
        "data": str(tmp_path / "train.csv"),
        "schema": str(tmp_path / "schema.json"),
        "keys": str(tmp_path / "keys.txt"),
    }
    assert (
        SchemaTransformer(PublicSchema.from_dict(schema))
        .fit(pd.DataFrame(columns=["a", "w"]))
        .sparse_output_
    )  # the default encoding of this schema is CSR
    served, ledger, app = _serve(files, tmp_path / "l.db")
    body = {
        "inputs": [
            {
                "name": "input",
                "shape": [2, 2],
                "datatype": "BYTES",
                "data": [9.5, "c1", 0.5, "c4"],
            }
        ]
    }
    with TestClient(app) as client:
        r = client.post("/v2/models/dpsvm/infer", json=body, headers=auth())
    assert r.status_code == 200, r.text
    model = served.predictor._model
    encoded = SchemaTransformer(PublicSchema.from_dict(schema), sparse_output=False)
    X = encoded.fit_transform(pd.DataFrame({"a": [9.5, 0.5], "w": ["c1", "c4"]}))
    X = pd.DataFrame(X, columns=model.feature_names_in_)
    assert r.json()["outputs"][0]["data"] == model.predict(X).tolist()
    ledger.dispose()


def test_raw_feature_path_of_a_released_model_file(tmp_path):
    """``--model`` without a schema: rows are the features; same labels."""
    X, y = _data(d=3)
    model = DPKernelSVC(epsilon=1.0, n_components=20, classes=_BIN, random_state=0).fit(
        X, y
    )
    predictor = ReleasedModel(model)
    served = make_served(predictor, d=3, free=True, mechanism="released")
    ledger = Ledger(
        "sqlite://",
        fingerprint="e" * 64,
        model_name="dpsvm",
        mechanism="released",
        epsilon_total=1.0,
        delta_total=0.0,
    )
    app = create_app(served, ledger, make_keys())
    Q = list(_query_rows(3, 11))[3][:5]
    body = {
        "inputs": [
            {
                "name": "input",
                "shape": [5, 3],
                "datatype": "FP64",
                "data": Q.ravel().tolist(),
            }
        ]
    }
    with TestClient(app) as client:
        r = client.post("/v2/models/dpsvm/infer", json=body, headers=auth())
    assert r.status_code == 200, r.text
    assert r.json()["outputs"][0]["data"] == model.predict(Q).tolist()
    ledger.dispose()
