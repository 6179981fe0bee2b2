# SPDX-License-Identifier: BSD-3-Clause
"""Model files: exact round trips, strict validation, atomic writes."""

from __future__ import annotations

import json
import math
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.svm import LinearSVC

from dpsvm import __version__
from dpsvm import io as dio
from dpsvm.accounting import BudgetAccountant
from dpsvm.datasets import make_nested_balls
from dpsvm.exceptions import PrivacyLeakWarning
from dpsvm.io import (
    FORMAT_VERSION,
    atomic_write_text,
    load_model,
    model_to_dict,
    save_model,
)
from dpsvm.models import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_nested_balls(300, random_state=0)
    return X, y


ESTIMATORS = [
    pytest.param(
        lambda m=m, loss=loss: DPLinearSVC(
            mechanism=m, loss=loss, classes=[-1, 1], random_state=0
        ),
        id=f"svc-{m}-{loss}",
    )
    for m, loss in [
        ("objective", "huber"),
        ("objective", "logistic"),
        ("objective-2009", "huber"),
        ("output", "hinge"),
        ("output", "huber"),
        ("output-laplace", "hinge"),
    ]
] + [
    pytest.param(
        lambda: DPLinearSVC(fit_intercept=True, classes=[-1, 1], random_state=1),
        id="svc-intercept",
    ),
    pytest.param(
        lambda: DPLogisticRegression(
            mechanism="objective", random_state=0, epsilon=0.7
        ),
        id="logreg-objective-classes-from-data",
    ),
    pytest.param(
        lambda: DPLogisticRegression(
            mechanism="output", classes=[-1, 1], random_state=0, data_norm=0.5
        ),
        id="logreg-output",
    ),
    pytest.param(
        lambda: NonPrivateLinearClassifier(loss="hinge"), id="nonprivate-hinge"
    ),
    pytest.param(
        lambda: NonPrivateLinearClassifier(loss="logistic", fit_intercept=True),
        id="nonprivate-logistic",
    ),
]


def _assert_same_model(a, b, X):
    assert type(a) is type(b)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    # Bit-for-bit: repr-exact floats give identical scores, not just close ones.
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.classes_, b.classes_)
    assert a.data_norm_ == b.data_norm_
    assert a.n_features_in_ == b.n_features_in_
    pa = {
        k: v
        for k, v in a.get_params().items()
        if k not in ("accountant", "random_state")
    }
    pb = {
        k: v
        for k, v in b.get_params().items()
        if k not in ("accountant", "random_state")
    }
    for key in pa:
        if key == "classes" and pa[key] is not None:
            assert list(pa[key]) == list(pb[key])
        else:
            assert pa[key] == pb[key], key
    if hasattr(a, "privacy_event_"):
        assert b.privacy_event_.to_dict() == a.privacy_event_.to_dict()
    else:
        assert not hasattr(b, "privacy_event_")


@pytest.mark.parametrize("make", ESTIMATORS)
def test_round_trip_is_exact(make, data, tmp_path):
    X, y = data
    est = make()
    if est.get_params()["classes"] is None and hasattr(est, "epsilon"):
        with pytest.warns(PrivacyLeakWarning, match="classes"):
            est.fit(X, y)
    else:
        est.fit(X, y)
    path = tmp_path / "m.json"
    save_model(est, path)
    loaded = load_model(path)
    _assert_same_model(est, loaded, X)
    assert loaded.get_params().get("random_state") is None
    assert loaded.get_params().get("accountant") is None
    assert not hasattr(loaded, "solver_info_")


def test_one_vs_rest_event_with_children_round_trips(data, tmp_path):
    X, y = data
    y3 = np.where(X[:, 0] > 0.1, 2, y)
    est = DPLogisticRegression(classes=[-1, 1, 2], mechanism="output", random_state=0)
    est.fit(X, y3)
    save_model(est, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    _assert_same_model(est, loaded, X)
    assert loaded.coef_.shape == (3, 5)
    assert len(loaded.privacy_event_.children) == 3
    # Sequential composition over the classes: ε/3 each, ε in total.
    assert math.isclose(sum(c.epsilon for c in loaded.privacy_event_.children), 1.0)


@pytest.mark.parametrize(
    ("labels", "label_type"),
    [
        (np.array(["no", "yes"]), "str"),
        (np.array(["ü-1", "ñ,2"], dtype=object), "str"),
        (np.array([0, 7], dtype=np.int32), "int"),
        (np.array([-(2**62), 2**62], dtype=np.int64), "int"),
        # scikit-learn refuses non-integral float labels ("continuous").
        (np.array([-1.0, 3.0]), "float"),
        (np.array([False, True]), "bool"),
    ],
)
def test_labels_keep_their_type(labels, label_type, data, tmp_path):
    X, y = data
    y_lab = np.where(y == 1, labels[1], labels[0])
    est = DPLinearSVC(classes=list(labels), random_state=0).fit(X, y_lab)
    path = tmp_path / "m.json"
    save_model(est, path)
    doc = json.loads(path.read_text())
    assert doc["label_type"] == label_type
    loaded = load_model(path)
    pred_a, pred_b = est.predict(X), loaded.predict(X)
    assert pred_a.tolist() == pred_b.tolist()
    assert [type(v) for v in pred_a.tolist()] == [type(v) for v in pred_b.tolist()]
    assert loaded.classes_.tolist() == est.classes_.tolist()


def test_file_content_is_the_documented_json(data, tmp_path):
    X, y = data
    acc = BudgetAccountant(epsilon=5.0)
    est = DPLinearSVC(classes=[-1, 1], accountant=acc, random_state=3).fit(X, y)
    path = tmp_path / "m.json"
    save_model(est, path)
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert list(doc) == [
        "format",
        "format_version",
        "dpsvm_version",
        "estimator",
        "params",
        "label_type",
        "classes",
        "coef",
        "intercept",
        "data_norm",
        "n_features_in",
        "privacy_event",
    ]
    assert doc["format"] == "dpsvm-model"
    assert doc["format_version"] == FORMAT_VERSION == 1
    assert doc["dpsvm_version"] == __version__
    assert doc["estimator"] == "DPLinearSVC"
    assert "accountant" not in doc["params"] and "random_state" not in doc["params"]
    assert "solver_info" not in text and "n_iter" not in text
    # Floats are repr-exact: the parsed numbers are the very same doubles.
    assert doc["coef"] == est.coef_.tolist()
    assert all(float(repr(v)) == v for v in doc["coef"][0])
    assert doc["privacy_event"] == est.privacy_event_.to_dict()
    assert model_to_dict(est) == doc


def test_feature_names_round_trip(data, tmp_path):
    X, y = data
    est = NonPrivateLinearClassifier().fit(X, y)
    est.feature_names_in_ = np.array([f"f{i}" for i in range(5)], dtype=object)
    save_model(est, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.feature_names_in_.tolist() == ["f0", "f1", "f2", "f3", "f4"]


# ------------------------------------------------------------- save errors
def test_save_refuses_unfitted_and_foreign_estimators(tmp_path, data):
    with pytest.raises(NotFittedError):
        save_model(DPLinearSVC(), tmp_path / "a.json")

    class Sub(DPLinearSVC):
        pass

    X, y = data
    sub = Sub(classes=[-1, 1], random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="supports DPLinearSVC"):
        save_model(sub, tmp_path / "b.json")
    with pytest.raises(TypeError, match="LinearSVC"):
        save_model(LinearSVC().fit(X, y), tmp_path / "c.json")
    assert os.listdir(tmp_path) == []


def test_save_refuses_non_finite_and_mixed_labels(tmp_path, data):
    X, y = data
    est = DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, y)
    est.coef_ = est.coef_.copy()
    est.coef_[0, 0] = np.nan
    with pytest.raises(ValueError, match="coef_ is not finite"):
        save_model(est, tmp_path / "a.json")
    est2 = NonPrivateLinearClassifier().fit(X, y)
    est2.classes_ = np.array(["a", 1], dtype=object)
    with pytest.raises(TypeError, match="labels must all be"):
        save_model(est2, tmp_path / "b.json")
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------- atomic writes
@pytest.fixture
def model(data):
    X, y = data
    return DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, y)


def test_failed_serialisation_leaves_no_file(model, tmp_path, monkeypatch):
    def boom(*args, **kwargs):
        raise TypeError("cannot serialise")

    monkeypatch.setattr(dio.json, "dumps", boom)
    with pytest.raises(TypeError, match="cannot serialise"):
        save_model(model, tmp_path / "m.json")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where", ["fsync", "replace"])
@pytest.mark.parametrize("error", [OSError, KeyboardInterrupt])
def test_failed_write_removes_temp_and_keeps_old_file(
    model, tmp_path, monkeypatch, where, error
):
    dest = tmp_path / "m.json"
    dest.write_text("old content")

    def boom(*args, **kwargs):
        raise error("disk full")

    monkeypatch.setattr(dio.os, where, boom)
    with pytest.raises(error):
        save_model(model, dest)
    assert os.listdir(tmp_path) == ["m.json"]  # no temporary file left
    assert dest.read_text() == "old content"


def test_write_into_a_directory_fails_cleanly(model, tmp_path):
    (tmp_path / "m.json").mkdir()
    with pytest.raises(OSError):
        save_model(model, tmp_path / "m.json")
    assert os.listdir(tmp_path) == ["m.json"]
    assert os.listdir(tmp_path / "m.json") == []


def test_write_to_missing_directory_fails(model, tmp_path):
    with pytest.raises(FileNotFoundError):
        save_model(model, tmp_path / "nope" / "m.json")
    assert os.listdir(tmp_path) == []


def test_new_files_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "x.txt", "1\n")
    finally:
        os.umask(old)
    assert (tmp_path / "x.txt").stat().st_mode & 0o777 == 0o640  # 0o666 & ~0o027


# --------------------------------------------------------------- tampering
@pytest.fixture
def saved(model, tmp_path):
    path = tmp_path / "m.json"
    save_model(model, path)
    return path, json.loads(path.read_text())


def _write(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc))
    return path


def _edit(doc, dotted, value):
    doc = json.loads(json.dumps(doc))
    *parents, last = dotted.split(".")
    target = doc
    for p in parents:
        target = target[int(p)] if isinstance(target, list) else target[p]
    if value is _DELETE:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return doc


_DELETE = object()


@pytest.mark.parametrize(
    ("dotted", "value", "match"),
    [
        ("format_version", 2, "unsupported format_version 2"),
        ("format_version", "1", "unsupported format_version '1'"),
        ("format_version", True, "unsupported format_version True"),
        ("format", "sklearn-pickle", "format is 'sklearn-pickle'"),
        ("estimator", "os.system", "unknown estimator 'os.system'"),
        ("estimator", "LinearSVC", "unknown estimator"),
        ("coef", [[0.1, 0.2]], r"coef has shape \(1, 2\); expected \(1, 5\)"),
        ("coef", [[0.1] * 5, [0.2] * 5], "expected \\(1, 5\\)"),
        ("coef", [[0.1] * 5, [0.2]], "ragged|shape"),
        ("coef", [["0.1"] * 5], "list of numbers"),
        ("coef", [[True] * 5], "list of numbers"),
        ("intercept", [0.0, 0.0], "intercept has shape"),
        ("intercept", [0.5], "intercept must be zero"),
        ("n_features_in", 4, "coef has shape"),
        ("n_features_in", 0, "n_features_in must be an integer >= 1"),
        ("data_norm", 0, "data_norm must be a number > 0"),
        ("data_norm", "1", "data_norm must be a number > 0"),
        ("classes", [1], "at least 2 distinct labels"),
        ("classes", [1, 1], "at least 2 distinct labels"),
        ("classes", ["a", "b"], "not of label_type 'int'"),
        ("label_type", "pickle", "label_type must be one of"),
        ("params.classes", [0, 1], "classes differs from the label set"),
        ("params.epsilon", -1, "params:.*epsilon"),
        ("params.mechanism", "magic", "params:.*mechanism"),
        ("params.epsilon", [1], "params.epsilon must be a JSON scalar"),
        ("params.bogus", 1, "unknown key\\(s\\) 'bogus'"),
        ("params.loss", _DELETE, "params lacks the key\\(s\\) loss"),
        ("privacy_event", None, "needs a privacy_event"),
        ("privacy_event.neighbouring", "add-one", "Unknown neighbouring"),
        ("privacy_event.epsilon", -1.0, "epsilon must be >= 0"),
        ("privacy_event.epsilon", "1", "epsilon must be a number"),
        ("privacy_event.extra", 1, "unknown key"),
        ("privacy_event.children", {}, "children must be a list"),
        ("privacy_event.details", [], "details must be a JSON object"),
        ("coef", _DELETE, "lacks the key\\(s\\) coef"),
        ("unexpected", 1, "unknown key\\(s\\) 'unexpected'"),
        ("feature_names_in", ["a"], "feature_names_in must be a list of 5 strings"),
    ],
)
def test_load_rejects_tampered_fields(saved, dotted, value, match):
    path, doc = saved
    _write(path, _edit(doc, dotted, value))
    with pytest.raises(ValueError, match=match):
        load_model(path)


def test_load_rejects_event_on_non_private_model(saved, data):
    path, doc = saved
    X, y = data
    doc = _edit(doc, "estimator", "NonPrivateLinearClassifier")
    doc["params"] = model_to_dict(NonPrivateLinearClassifier().fit(X, y))["params"]
    _write(path, doc)
    with pytest.raises(ValueError, match="has no privacy_event"):
        load_model(path)


@pytest.mark.parametrize(
    ("replace", "match"),
    [
        (
            lambda t: t.replace('"data_norm": 1.0', '"data_norm": NaN'),
            "non-finite number NaN",
        ),
        (
            lambda t: t.replace('"data_norm": 1.0', '"data_norm": Infinity'),
            "non-finite number Infinity",
        ),
        (
            lambda t: t.replace('"data_norm": 1.0', '"data_norm": -Infinity'),
            "non-finite number -Infinity",
        ),
        (lambda t: t.replace('"data_norm": 1.0', '"data_norm": 1e999'), "overflows"),
        (lambda t: t[: len(t) // 2], "not JSON"),
        (
            lambda t: t.replace(
                '"format": "dpsvm-model"',
                '"format": "dpsvm-model", "format": "dpsvm-model"',
            ),
            "duplicate key 'format'",
        ),
        (lambda t: "[" + t + "]", "top level must be a JSON object"),
        (lambda t: "", "empty"),
        (lambda t: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_load_rejects_bad_json(saved, replace, match):
    path, _ = saved
    path.write_text(replace(path.read_text()))
    with pytest.raises(ValueError, match=match):
        load_model(path)


def test_nan_in_coef_is_refused(saved):
    path, doc = saved
    text = json.dumps(doc).replace(repr(doc["coef"][0][0]), "NaN", 1)
    path.write_text(text)
    with pytest.raises(ValueError, match="non-finite"):
        load_model(path)


def test_pickle_is_never_unpickled(model, tmp_path):
    sentinel = tmp_path / "sentinel"
    sentinel.write_text("still here")

    class Evil:
        def __reduce__(self):
            return (os.remove, (str(sentinel),))

    path = tmp_path / "model.json"
    path.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(ValueError, match="pickle"):
        load_model(path)
    path.write_bytes(pickle.dumps(model, protocol=0))  # protocol 0 has no magic byte
    with pytest.raises(ValueError, match=r"not UTF-8|not JSON"):
        load_model(path)
    path.write_bytes(pickle.dumps({"format": "dpsvm-model"}, protocol=0))
    with pytest.raises(ValueError, match="not JSON"):
        load_model(path)
    assert sentinel.read_text() == "still here"


def test_non_utf8_and_oversized_files(saved, monkeypatch):
    path, _ = saved
    path.write_bytes(b'{"format": "\xff"}')
    with pytest.raises(ValueError, match="not UTF-8"):
        load_model(path)
    path.write_text(" " * 100 + "{}")
    monkeypatch.setattr(dio, "MAX_MODEL_BYTES", 50)
    with pytest.raises(ValueError, match="larger than 50 bytes"):
        load_model(path)


def test_missing_file_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "nope.json")
    with pytest.raises(IsADirectoryError):
        load_model(tmp_path)
