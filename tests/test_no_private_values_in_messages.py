# SPDX-License-Identifier: BSD-3-Clause
"""No private value in any message (issue 20, item 3).

Distinctive private values — the text ``Zq7PRIVATE`` and the number
``987654.321`` — are fed through every reading and validation path, in every
erroneous position we could think of (a text cell in a numeric column, an
unknown label, an unknown category, a header-less file, a row with too many
columns, a bad LibSVM field, a duplicated "header" cell, a 1-D or complex
array, ...), and must appear in no exception message, warning, standard output
or standard error. Errors about data content name columns (by position, or by
a public name: the schema's, the model's), counts at most rounded, and what to
change. The paths: the ``dpsvm`` command in-process (``train``, ``--tune``,
``evaluate``, ``predict``, ``sweep``, with and without ``--schema``, CSV and
LibSVM), the service's input parsing, and the Python API (every public
estimator's ``fit``/``predict``, ``SchemaTransformer``, ``encode_labels``,
``draft_schema``, the data set readers).

``draft_schema`` reads the data by design: its *output* holds values, its
messages must not. Column names of a data frame passed to an estimator are
names, not values (scikit-learn quotes them when they differ from ``fit``'s).
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, is_regressor

import dpsvm
from dpsvm.accounting import BudgetAccountant
from dpsvm.cli import main
from dpsvm.models import DPLinearSVC
from dpsvm.preprocessing import (
    PublicSchema,
    PublicStep,
    SchemaTransformer,
    draft_schema,
)

TEXT = "Zq7PRIVATE"
NUMBER = 987654.321
#: What must never be seen: the text (any case) and the digits of the number.
FORBIDDEN = ("zq7private", "987654", "9.8765")


def _assert_clean(*texts: str) -> None:
    for text in texts:
        low = text.lower()
        for marker in FORBIDDEN:
            assert marker not in low, f"private value {marker!r} leaked in: {text!r}"


def _messages(call: Callable[[], Any]) -> tuple[str, BaseException | None]:
    """Run ``call``; return its warnings and error message as one text."""
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except Exception as exc:  # every error type: its message is checked
            error = exc
    parts = [str(w.message) for w in caught]
    if error is not None:
        parts += [str(error), repr(error)]
        # A chained cause would be printed with a traceback: it must be hidden.
        assert error.__cause__ is None or error.__suppress_context__
    return "\n".join(parts), error


# ============================================================ the dpsvm command
SCHEMA = {
    "label": {"column": "income", "classes": ["<=50K", ">50K"]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 17, "upper": 90},
        {"column": "job", "type": "categorical", "categories": ["a", "b", "c"]},
    ],
}


def _numeric_rows(n: int = 60, seed: int = 0) -> list[list[Any]]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 2)).round(3)
    return [[a, b, 1 if a + b > 0 else -1] for a, b in X.tolist()]


def _schema_rows(n: int = 60, seed: int = 0) -> list[list[Any]]:
    rng = np.random.default_rng(seed)
    ages = rng.integers(17, 91, n).tolist()
    jobs = rng.choice(["a", "b", "c"], n).tolist()
    return [
        [a, j, ">50K" if a > 50 else "<=50K"] for a, j in zip(ages, jobs, strict=True)
    ]


def _csv(rows: list[list[Any]], header: str | None) -> str:
    lines = [] if header is None else [header]
    lines += [",".join(str(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def _with(rows: list[list[Any]], i: int, j: int, value: Any) -> list[list[Any]]:
    out = [list(r) for r in rows]
    out[i][j] = value
    return out


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Files of the command-line cases and two trained models."""
    d = tmp_path_factory.mktemp("messages")
    schema = d / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    good = d / "good.csv"
    good.write_text(_csv(_numeric_rows(), "a,b,label"))
    schema_good = d / "schema_good.csv"
    schema_good.write_text(_csv(_schema_rows(), "age,job,income"))
    models = {}
    for name, args in (
        ("numeric", ("--data", str(good), "--classes", "-1,1")),
        ("schema", ("--data", str(schema_good), "--schema", str(schema))),
    ):
        models[name] = d / f"model_{name}.json"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["train", *args, "--epsilon", "10", "--out", str(models[name])])
        assert code == 0
    return {"dir": d, "schema": schema, "models": models}


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(argv)
    captured = capsys.readouterr()
    text = "\n".join([captured.out, captured.err, *(str(w.message) for w in caught)])
    _assert_clean(text)
    return code, text


NUM = _numeric_rows()
SCH = _schema_rows()
#: (id, file name, file content, command (``{data}``, ``{schema}``, ``{numeric}``,
#: ``{schema_model}``, ``{out}`` filled in), a phrase the message must hold).
CLI_CASES = [
    # -------------------------------------------------- numeric CSV, train
    (
        "text-in-numeric-column",
        "d.csv",
        _csv(_with(NUM, 5, 1, TEXT), "a,b,label"),
        "train --data {data} --classes -1,1 --out {out}",
        "column 2 holds a value that is not a decimal number",
    ),
    (
        "label-outside-classes",
        "d.csv",
        _csv(_with(NUM, 5, 2, NUMBER), "a,b,label"),
        "train --data {data} --classes -1,1 --out {out}",
        "outside the public label set",
    ),
    (
        "label-not-binary",
        "d.csv",
        _csv(_with(NUM, 5, 2, NUMBER), "a,b,label"),
        "train --data {data} --out {out}",
        "labels are not binary",
    ),
    (
        "label-outside-classes-tune",
        "d.csv",
        _csv(_with(NUM, 5, 2, NUMBER), "a,b,label"),
        "train --data {data} --classes -1,1 --tune --out {out}",
        "outside the public label set",
    ),
    (
        "headerless-first-row-text",
        "d.csv",
        _csv(_with(NUM, 0, 1, TEXT), None),
        "train --data {data} --classes -1,1 --out {out}",
        "first row mixes numbers and text",
    ),
    (
        "headerless-first-row-numbers",
        "d.csv",
        _csv(_with(NUM, 0, 0, NUMBER), None),
        "train --data {data} --classes -1,1 --out {out}",
        "first row is all numbers",
    ),
    (
        "headerless-text-no-header",
        "d.csv",
        _csv(_with(NUM, 0, 1, TEXT), None),
        "train --data {data} --no-header --classes -1,1 --out {out}",
        "column 2 holds a value that is not a decimal number",
    ),
    (
        "duplicated-first-row-cells",
        "d.csv",
        _csv(NUM, f"{TEXT},{TEXT},label"),
        "train --data {data} --classes -1,1 --out {out}",
        "columns 1 and 2 of the first row have the same name",
    ),
    (
        "too-many-columns",
        "d.csv",
        _csv(_with(NUM, 7, 1, f"{TEXT},{NUMBER}"), "a,b,label"),
        "train --data {data} --classes -1,1 --out {out}",
        "a row has 4 columns; expected 3",
    ),
    (
        "empty-cell",
        "d.csv",
        _csv(_with(NUM, 7, 0, ""), "a,b,label"),
        "train --data {data} --classes -1,1 --out {out}",
        "column 1 has an empty value",
    ),
    (
        "non-finite-cell",
        "d.csv",
        _csv(_with(NUM, 7, 0, "987654e999"), "a,b,label"),
        "train --data {data} --classes -1,1 --out {out}",
        "column 1 holds a non-finite value",
    ),
    (
        "huge-values-train-fine",
        "d.csv",
        _csv(_with(NUM, 7, 0, NUMBER), "a,b,label"),
        "train --data {data} --classes -1,1 --holdout 0.2 --out {out}",
        "trained DPLinearSVC",
    ),
    # -------------------------------------------------- LibSVM
    (
        "libsvm-text-label",
        "d.svm",
        f"{TEXT} 1:0.5\n-1 2:0.3\n",
        "train --data {data} --format libsvm --n-features 2 --classes -1,1 --out {out}",
        "not a valid LibSVM file",
    ),
    (
        "libsvm-text-value",
        "d.svm",
        f"1 1:{TEXT}\n-1 2:0.3\n",
        "train --data {data} --format libsvm --n-features 2 --classes -1,1 --out {out}",
        "not a valid LibSVM file",
    ),
    (
        "libsvm-index-too-large",
        "d.svm",
        "1 987654:0.5\n-1 2:0.3\n",
        "train --data {data} --format libsvm --n-features 2 --classes -1,1 --out {out}",
        "larger than --n-features 2",
    ),
    (
        "libsvm-negative-index",
        "d.svm",
        "1 -987654:0.5\n-1 2:0.3\n",
        "train --data {data} --format libsvm --n-features 2 --classes -1,1 --out {out}",
        "0 or negative",
    ),
    (
        "libsvm-bad-index",
        "d.svm",
        f"1 {TEXT}:0.5\n-1 2:0.3\n",
        "train --data {data} --format libsvm --n-features 2 --classes -1,1 --out {out}",
        "not a valid LibSVM file",
    ),
    (
        "libsvm-label-outside-classes",
        "d.svm",
        "987654.321 1:0.5\n-1 2:0.3\n1 1:0.1\n",
        "train --data {data} --format libsvm --n-features 2 --classes -1,1 --out {out}",
        "outside the public label set",
    ),
    # -------------------------------------------------- schema CSV, train
    (
        "schema-headerless-duplicated-values",
        "d.csv",
        # The reported case: a header-less file whose first row repeats values.
        _csv([[TEXT, TEXT, ">50K"], *SCH], None),
        "train --data {data} --schema {schema} --out {out}",
        "add one naming the columns",
    ),
    (
        "schema-headerless",
        "d.csv",
        _csv([[NUMBER, TEXT, ">50K"], *SCH], None),
        "train --data {data} --schema {schema} --out {out}",
        "the file needs a header row",
    ),
    (
        "schema-text-in-numeric-column",
        "d.csv",
        _csv(_with(SCH, 5, 0, TEXT), "age,job,income"),
        "train --data {data} --schema {schema} --out {out}",
        "'age' is declared numeric but holds text",
    ),
    (
        "schema-unknown-label",
        "d.csv",
        _csv(_with(SCH, 5, 2, TEXT), "age,job,income"),
        "train --data {data} --schema {schema} --out {out}",
        "not among the declared classes",
    ),
    (
        "schema-numeric-unknown-label",
        "d.csv",
        _csv(_with(SCH, 5, 2, NUMBER), "age,job,income"),
        "train --data {data} --schema {schema} --out {out}",
        "not among the declared classes",
    ),
    (
        "schema-unknown-category-and-range",
        "d.csv",
        _csv(_with(_with(SCH, 5, 1, TEXT), 6, 0, NUMBER), "age,job,income"),
        "train --data {data} --schema {schema} --out {out}",
        "trained DPLinearSVC",
    ),
    (
        "schema-extra-private-column",
        "d.csv",
        _csv([[*r, TEXT] for r in SCH], f"age,job,income,{TEXT}x"),
        "train --data {data} --schema {schema} --tune --out {out}",
        "trained DPLinearSVC",
    ),
    (
        "schema-too-many-columns",
        "d.csv",
        _csv(_with(SCH, 5, 1, f"a,{TEXT}"), "age,job,income"),
        "train --data {data} --schema {schema} --out {out}",
        "a row has 4 columns; expected 3",
    ),
    (
        "sweep-schema-unknown-label",
        "d.csv",
        _csv(_with(SCH, 5, 2, TEXT), "age,job,income"),
        "sweep --data {data} --schema {schema} --epsilons 1 --seeds 1 --out-csv {out}",
        "not among the declared classes",
    ),
    (
        "sweep-schema-text-in-numeric-column",
        "d.csv",
        _csv(_with(SCH, 5, 0, TEXT), "age,job,income"),
        "sweep --data {data} --schema {schema} --epsilons 1 --seeds 1 --out-csv {out}",
        "declared numeric but holds text",
    ),
    # -------------------------------------------------- evaluate / predict
    (
        "evaluate-label-outside-model-classes",
        "d.csv",
        _csv(_with(NUM, 5, 2, NUMBER), "a,b,label"),
        "evaluate --model {numeric} --data {data}",
        "not among the model's classes",
    ),
    (
        "evaluate-text-in-numeric-column",
        "d.csv",
        _csv(_with(NUM, 5, 0, TEXT), "a,b,label"),
        "evaluate --model {numeric} --data {data}",
        "column 1 holds a value that is not a decimal number",
    ),
    (
        "predict-extra-private-column",
        "d.csv",
        _csv([[*r, 0.5] for r in NUM], f"a,b,label,{TEXT}"),
        "predict --model {numeric} --data {data} --out {out}",
        "1 column(s) the model was not trained on",
    ),
    (
        "predict-missing-column",
        "d.csv",
        _csv([[r[0], r[2]] for r in NUM], f"a,{TEXT}"),
        "predict --model {numeric} --data {data} --no-labels --out {out}",
        "missing column(s) 'b'",
    ),
    (
        "predict-headerless",
        "d.csv",
        _csv(_with(NUM, 0, 1, TEXT), None),
        "predict --model {numeric} --data {data} --out {out}",
        "first row mixes numbers and text",
    ),
    (
        "predict-libsvm-text",
        "d.svm",
        f"1 1:0.5 2:{TEXT}\n",
        "predict --model {numeric} --data {data} --format libsvm --out {out}",
        "not a valid LibSVM file",
    ),
    (
        "evaluate-schema-unknown-label",
        "d.csv",
        _csv(_with(SCH, 5, 2, TEXT), "age,job,income"),
        "evaluate --model {schema_model} --data {data}",
        "not among the declared classes",
    ),
    (
        "predict-schema-text-in-numeric-column",
        "d.csv",
        _csv(_with(SCH, 5, 0, TEXT), "age,job,income"),
        "predict --model {schema_model} --data {data} --out {out}",
        "declared numeric but holds text",
    ),
    (
        "predict-schema-headerless",
        "d.csv",
        _csv([[TEXT, TEXT, ">50K"], *SCH], None),
        "predict --model {schema_model} --data {data} --out {out}",
        "add one naming the columns",
    ),
    (
        "predict-schema-unknown-category",
        "d.csv",
        _csv(_with(SCH, 5, 1, TEXT), "age,job,income"),
        "predict --model {schema_model} --data {data} --out {out}",
        "wrote 60 predictions",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "command", "phrase"),
    [pytest.param(*case[1:], id=case[0]) for case in CLI_CASES],
)
def test_cli_messages_hold_no_private_value(
    cli, capsys, name, content, command, phrase
):
    d = cli["dir"]
    data = d / name
    data.write_text(content)
    out = d / "out.file"
    out.unlink(missing_ok=True)
    argv = command.format(
        data=data,
        schema=cli["schema"],
        numeric=cli["models"]["numeric"],
        schema_model=cli["models"]["schema"],
        out=out,
    ).split()
    code, text = _run_cli(argv, capsys)
    assert phrase in text
    succeeded = phrase.startswith(("trained", "wrote"))
    assert (code == 0) == succeeded
    if not succeeded:
        assert not out.exists()  # no partial output either


def test_cli_model_file_holds_no_cell_of_a_headerless_file(cli, capsys):
    # Read as a header, a private first row became the model's column names.
    data = cli["dir"] / "headerless.csv"
    data.write_text(_csv(_with(NUM, 0, 1, TEXT), None))
    out = cli["dir"] / "m_headerless.json"
    code, _ = _run_cli(
        ["train", "--data", str(data), "--classes", "-1,1", "--out", str(out)], capsys
    )
    assert code == 1 and not out.exists()


# ====================================================== the service's inputs
@pytest.mark.parametrize(
    "tensor",
    [
        {"name": "x", "datatype": "BYTES", "shape": [1, 2], "data": [TEXT, "1"]},
        {"name": "x", "datatype": "FP64", "shape": [1, 2], "data": [TEXT, 1.0]},
        {"name": "x", "datatype": "FP64", "shape": [1, 2], "data": [NUMBER]},
        {"name": "x", "datatype": "FP64", "shape": [1, 3], "data": [NUMBER] * 3},
        {"name": "x", "datatype": "FP8", "shape": [1, 2], "data": [NUMBER] * 2},
        {"name": "x", "datatype": "FP64", "shape": [1, 2], "data": [NUMBER, None]},
        {"name": "x", "datatype": "FP64", "shape": [1, 2], "data": [[NUMBER], [TEXT]]},
        {"name": "x", "datatype": "FP64", "shape": [1, 2], "data": [NUMBER, "inf"]},
    ],
)
def test_service_input_errors_hold_no_value(tensor):
    from dpsvm.serving import InputSpec
    from dpsvm.serving._inputs import InputError, parse_inputs

    spec = InputSpec(["a", "b"], [False, False], lambda rows: rows)
    text, error = _messages(lambda: parse_inputs([tensor], spec, max_batch=10))
    assert isinstance(error, InputError)
    _assert_clean(text)


# ========================================================= the Python API
def _public_estimators() -> Iterator[type]:
    """Every concrete estimator exported by a public dpsvm module."""
    seen: set[type] = set()
    for info in pkgutil.walk_packages(dpsvm.__path__, "dpsvm."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        if info.name.startswith(("dpsvm.audit", "dpsvm.cli", "dpsvm.reproduce")):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseEstimator)
                and not inspect.isabstract(obj)
                and hasattr(obj, "fit")
                and obj not in seen
            ):
                seen.add(obj)
                yield obj


_GRID = {"regularization": [0.05, 0.2]}
_SCHEMA_2 = {
    "label": {"column": "y", "classes": [-1, 1]},
    "features": [
        {"column": c, "type": "numeric", "lower": -3, "upper": 3} for c in ("a", "b")
    ],
}
#: Constructor arguments for classes whose defaults cannot be used as they are.
_RECIPES: dict[str, Callable[[], Any]] = {
    # Vacuous at these few rows (fit would refuse): warned instead, to test.
    "PrivateInteractivePredictor": lambda: dpsvm.prediction.PrivateInteractivePredictor(
        on_vacuous="warn", classes=[-1, 1]
    ),
    "SubsampleAggregatePredictor": lambda: dpsvm.prediction.SubsampleAggregatePredictor(
        n_teachers=4, max_charged=50, on_vacuous="warn", classes=[-1, 1]
    ),
    "PerQueryLaplacePredictor": lambda: dpsvm.models.PerQueryLaplacePredictor(
        accountant=BudgetAccountant(epsilon=10.0), classes=[-1, 1]
    ),
    "PrivateParameterTuning": lambda: dpsvm.model_selection.PrivateParameterTuning(
        DPLinearSVC(classes=[-1, 1]), _GRID
    ),
    "PrivateRandomSearch": lambda: dpsvm.model_selection.PrivateRandomSearch(
        DPLinearSVC(classes=[-1, 1]), _GRID, mean_repetitions=3
    ),
    "PrivateSelectThenFit": lambda: dpsvm.model_selection.PrivateSelectThenFit(
        DPLinearSVC(classes=[-1, 1]), _GRID
    ),
    "SchemaTransformer": lambda: SchemaTransformer(_SCHEMA_2),
    # A public step validates as the transformer it wraps.
    "PublicStep": lambda: PublicStep(SchemaTransformer(_SCHEMA_2)),
    "DPOutputPerturbationRegressor": (
        lambda: dpsvm.models.DPOutputPerturbationRegressor(loss="absolute")
    ),
}
ESTIMATORS = {cls.__name__: cls for cls in _public_estimators()}


def _make(name: str) -> Any:
    if name in _RECIPES:
        return _RECIPES[name]()
    cls = ESTIMATORS[name]
    try:
        if "classes" in inspect.signature(cls).parameters:
            return cls(classes=[-1, 1])
        return cls()
    except TypeError as exc:  # a new class with required arguments
        pytest.fail(f"{name}: add a constructor recipe to _RECIPES ({exc})")


def _good(n: int = 60) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(n, 2))
    return X, np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)


def _targets(est: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return X[:, 0].copy() if is_regressor(est) else y


def _bad_inputs() -> dict[str, Callable[[np.ndarray], Any]]:
    def text_cell(X: np.ndarray) -> Any:
        Xo = X.astype(object)
        Xo[3, 1] = TEXT
        return Xo

    def text_cell_frame(X: np.ndarray) -> Any:
        return pd.DataFrame(text_cell(X), columns=["a", "b"])

    def numeric_text(X: np.ndarray) -> Any:
        Xo = X.astype(object)
        Xo[3, 1] = f"{NUMBER}x"
        return Xo.tolist()

    def one_d(X: np.ndarray) -> Any:
        return np.full(X.shape[0], NUMBER)

    def complex_cell(X: np.ndarray) -> Any:
        Xc = X.astype(complex)
        Xc[3, 1] = NUMBER + 1j
        return Xc

    return {
        "text-cell": text_cell,
        "text-cell-frame": text_cell_frame,
        "numeric-text-list": numeric_text,
        "1-d": one_d,
        "complex": complex_cell,
    }


BAD_INPUTS = _bad_inputs()


@pytest.mark.parametrize("bad", sorted(BAD_INPUTS))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_fit_errors_hold_no_value_of_X(name, bad):
    est = _make(name)
    X, y = _good()
    Xb = BAD_INPUTS[bad](X)
    if name in ("SchemaTransformer", "PublicStep") and bad in (
        "text-cell",
        "text-cell-frame",
    ):
        Xb = pd.DataFrame(BAD_INPUTS["text-cell"](X), columns=["a", "b"])
    if hasattr(est, "predict"):
        text, error = _messages(lambda: est.fit(Xb, _targets(est, X, y)))
    else:
        text, error = _messages(lambda: est.fit_transform(Xb))
    assert error is not None, f"{name} accepted {bad} input"
    _assert_clean(text)


@pytest.mark.parametrize("label", [NUMBER, TEXT], ids=["number", "text"])
@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n in ESTIMATORS
        if "classes" in inspect.signature(ESTIMATORS[n]).parameters
        or n
        in ("PrivateParameterTuning", "PrivateRandomSearch", "PrivateSelectThenFit")
    ),
)
def test_fit_errors_hold_no_label_outside_the_public_classes(name, label):
    est = _make(name)
    X, y = _good()
    yb = y.astype(object)
    yb[7] = label
    text, error = _messages(lambda: est.fit(X, yb))
    assert error is not None, f"{name} accepted a label outside classes"
    _assert_clean(text)


@pytest.mark.parametrize(
    "name",
    sorted(n for n in ESTIMATORS if n not in ("SchemaTransformer", "PublicStep")),
)
def test_predict_errors_hold_no_value_of_X(name):
    est = _make(name)
    X, y = _good()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, _targets(est, X, y))
    method = getattr(est, "predict", None) or est.transform
    for bad in ("text-cell", "1-d", "complex"):
        text, error = _messages(lambda b=bad: method(BAD_INPUTS[b](X[:5])))
        assert error is not None, f"{name}.predict accepted {bad} input"
        _assert_clean(text)


# ----------------------------------------------- schema, labels and drafts
def _schema() -> PublicSchema:
    return PublicSchema.from_dict(
        {
            "label": {"column": "y", "classes": ["no", "yes"]},
            "features": [
                {"column": "age", "type": "numeric", "lower": 0, "upper": 100},
                {"column": "sex", "type": "categorical", "categories": ["F", "M"]},
            ],
        }
    )


@pytest.mark.parametrize(
    "make_X",
    [
        lambda: pd.DataFrame({"age": [1, TEXT], "sex": ["F", "M"]}),
        lambda: pd.DataFrame({"age": [1, f"{NUMBER}x"], "sex": ["F", "M"]}),
        lambda: {"age": np.array([1, TEXT], dtype=object), "sex": ["F", "M"]},
        lambda: np.array([[1, "F", TEXT]], dtype=object),
        lambda: np.array([[TEXT, "F"]], dtype=object),
        lambda: np.array([NUMBER, NUMBER]),
        lambda: pd.DataFrame({TEXT: [1], "sex": ["F"]}),
    ],
    ids=[
        "numeric-text",
        "numeric-number-text",
        "dict",
        "positional-width",
        "positional-text",
        "1-d",
        "missing-column",
    ],
)
def test_schema_transformer_errors_hold_no_value(make_X):
    text, error = _messages(
        lambda: SchemaTransformer(_schema()).fit_transform(make_X())
    )
    assert error is not None
    _assert_clean(text)


def test_schema_transformer_unknown_category_and_range_are_silent():
    X = pd.DataFrame({"age": [1, NUMBER], "sex": ["F", TEXT]})
    text, error = _messages(lambda: SchemaTransformer(_schema()).fit_transform(X))
    assert error is None and text == ""


@pytest.mark.parametrize("label", [TEXT, NUMBER, None])
def test_encode_labels_names_the_classes_not_the_value(label):
    text, error = _messages(lambda: _schema().encode_labels(["no", label, "yes"]))
    assert isinstance(error, ValueError) and "['no', 'yes']" in text
    _assert_clean(text)


@pytest.mark.parametrize(
    ("frame", "phrase"),
    [
        # Encoded names a_b_<cat> clash: the columns are named, not the category.
        (
            pd.DataFrame({"a": [f"b_{TEXT}", "x"], "a_b": [TEXT, "y"], "y": [0, 1]}),
            "columns 'a' and 'a_b'",
        ),
        (
            pd.DataFrame({"a": [f"{TEXT}{i}" for i in range(150)], "y": [0, 1] * 75}),
            "too many distinct values",
        ),
        (pd.DataFrame({"a": [1.0, NUMBER], "y": [TEXT, TEXT]}), "at least 2"),
    ],
    ids=["encoded-name-clash", "too-many-categories", "one-class"],
)
def test_draft_schema_messages_hold_no_value(frame, phrase):
    text, error = _messages(lambda: draft_schema(frame, label="y"))
    assert error is not None and phrase in text
    _assert_clean(text)


# ------------------------------------------------------ data set readers
_ADULT_TRAIN = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
    "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K"
)
_ADULT_TEST = (
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, "
    "Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, >50K."
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("<=50K", TEXT),  # an unknown label
        ("77516", f"{NUMBER}x"),  # a number that is not one
        ("State-gov", TEXT),  # an unknown category: counted, not an error
        ("2174", f"{NUMBER}, {TEXT}"),  # too many fields
    ],
    ids=["label", "number", "category", "fields"],
)
def test_adult_reader_messages_hold_no_value(tmp_path: Path, old, new):
    from dpsvm.datasets import load_adult

    d = tmp_path / "adult"
    d.mkdir()
    (d / "adult.data").write_text(
        "\n".join([_ADULT_TRAIN, _ADULT_TRAIN.replace(old, new)]) + "\n"
    )
    (d / "adult.test").write_text("|1x3 Cross validator\n" + _ADULT_TEST + "\n")
    text, error = _messages(lambda: load_adult(tmp_path))
    assert (error is None) == (old == "State-gov")
    _assert_clean(text)


def test_numeric_field_reader_message_holds_no_value():
    from dpsvm.datasets._common import numeric_columns

    text, error = _messages(
        lambda: numeric_columns(
            [["1", "2"], ["3", f"{NUMBER}{TEXT}"]], ("a", "b"), Path("f"), [1, 987654]
        )
    )
    assert isinstance(error, ValueError) and "column b" in text
    _assert_clean(text)


@pytest.mark.parametrize(
    "name",
    [
        *sorted(n for n in ESTIMATORS if is_regressor(_make(n))),
        "DPGaussianProcessRelease",
        "NonPrivateScalarOffsetRelease",
    ],
)
def test_fit_errors_hold_no_value_of_a_regression_target(name):
    est = _make(name)
    X, _ = _good()
    y = X[:, 0].astype(object)
    y[7] = TEXT
    text, error = _messages(lambda: est.fit(X, y))
    assert error is not None, f"{name} accepted a text target"
    _assert_clean(text)
