# SPDX-License-Identifier: BSD-3-Clause
"""Model files: exact round trips, strict validation, atomic writes.

Linear models first, then the random-feature kernel models (at the end).
"""

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
from dpsvm.accounting import BudgetAccountant, NonPrivateEvent, non_private_reason
from dpsvm.datasets import make_nested_balls
from dpsvm.exceptions import NotPrivateWarning, PrivacyLeakWarning
from dpsvm.io import (
    FORMAT_VERSION,
    atomic_write_text,
    load_model,
    model_to_dict,
    save_model,
)
from dpsvm.models import (
    DPKernelSVC,
    DPLinearSVC,
    DPLogisticRegression,
    NonPrivateKernelSVC,
    NonPrivateLinearClassifier,
    NonPrivateRandomFeatureSVC,
)


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
    elif non_private_reason(est) is not None:
        with pytest.warns(NotPrivateWarning, match="NOT differentially private"):
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
    assert doc["state"]["label_type"] == label_type
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
    # No feature names, schema or selection: the envelope's first seven keys.
    assert list(doc) == list(_ENVELOPE[:7])
    assert list(doc["state"]) == [
        "label_type",
        "classes",
        "coef",
        "intercept",
        "data_norm",
        "n_features_in",
    ]
    assert doc["format"] == "dpsvm-model"
    assert doc["format_version"] == FORMAT_VERSION == 2
    assert doc["dpsvm_version"] == __version__
    assert doc["estimator"] == "DPLinearSVC"
    assert "accountant" not in doc["params"] and "random_state" not in doc["params"]
    assert "solver_info" not in text and "n_iter" not in text
    # Floats are repr-exact: the parsed numbers are the very same doubles.
    assert doc["state"]["coef"] == est.coef_.tolist()
    assert all(float(repr(v)) == v for v in doc["state"]["coef"][0])
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
    with pytest.raises(TypeError, match=r"supports .*DPLinearSVC"):
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
    # Bias-free: the tampering tests below check the zero-intercept rule.
    return DPLinearSVC(fit_intercept=False, classes=[-1, 1], random_state=0).fit(X, y)


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


_ENVELOPE = (
    "format",
    "format_version",
    "dpsvm_version",
    "estimator",
    "params",
    "state",
    "privacy_event",
    "feature_names_in",
    "schema",
    "selection_event",
)


def as_version_1(doc):
    """``doc`` in the version-1 layout: the state's keys at the top level."""
    out = {}
    for key, value in doc.items():
        if key == "state":
            out.update(value)
        else:
            out[key] = value
    out["format_version"] = 1
    return out


def _edit(doc, dotted, value):
    """``doc`` with ``dotted`` set; a state key is found in ``state`` (version 2)."""
    doc = json.loads(json.dumps(doc))
    if "state" in doc and dotted.split(".")[0] not in _ENVELOPE:
        dotted = "state." + dotted
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
        ("format_version", 3, "unsupported format_version 3"),
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
@pytest.mark.parametrize("version", [1, 2])
def test_load_rejects_tampered_fields(saved, dotted, value, match, version):
    path, doc = saved
    doc = as_version_1(doc) if version == 1 else doc
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
    text = json.dumps(doc).replace(repr(doc["state"]["coef"][0][0]), "NaN", 1)
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


# ======================================================= random-feature models
# Small models (n_components <= 20) on the 300 nested-balls rows: each fit takes
# milliseconds. gamma = 2 so that the kernel is not flat on rows of norm <= 0.5.
KERNEL_ESTIMATORS = [
    pytest.param(
        lambda: DPKernelSVC(
            gamma=2.0, n_components=20, mechanism="rubinstein", classes=[-1, 1],
            feature_random_state=0, random_state=0,
        ),
        id="dp-rubinstein-cos-sin",
    ),
    pytest.param(
        lambda: DPKernelSVC(
            gamma=2.0, n_components=15, mechanism="objective", classes=[-1, 1],
            feature_random_state=1, random_state=1,
        ),
        id="dp-objective-cos-phase-scale",
    ),
    pytest.param(
        lambda: DPKernelSVC(
            gamma=2.0, n_components=15, mechanism="output", feature_map="cos-phase",
            norm_handling="bound", loss="huber", classes=[-1, 1], random_state=2,
        ),
        id="dp-output-cos-phase-bound",
    ),
    pytest.param(
        lambda: DPKernelSVC(
            gamma=2.0, n_components=15, mechanism="rubinstein",
            feature_map="cos-phase", norm_handling="clip", classes=[-1, 1],
            random_state=3,
        ),
        id="dp-rubinstein-cos-phase-clip",
    ),
    pytest.param(
        lambda: DPKernelSVC(
            kernel="laplacian", gamma=0.5, n_components=10, mechanism="objective",
            feature_map="cos-sin", loss="logistic", epsilon=0.3, classes=[-1, 1],
            random_state=4,
        ),
        id="dp-laplacian-objective-cos-sin",
    ),
    pytest.param(
        lambda: DPKernelSVC(
            kernel="cauchy", gamma=3, n_components=10, mechanism="output",
            classes=[-1, 1], random_state=5,
        ),
        id="dp-cauchy-output-int-gamma",
    ),
    pytest.param(
        lambda: NonPrivateRandomFeatureSVC(gamma=2.0, n_components=20),
        id="nonprivate-cos-sin",
    ),
    pytest.param(
        lambda: NonPrivateRandomFeatureSVC(
            kernel="gaussian", gamma=2.0, n_components=20, feature_map="cos-phase",
            norm_handling="paper", loss="huber",
        ),
        id="nonprivate-cos-phase-paper",
    ),
]  # fmt: skip


def _assert_same_kernel_model(a, b, X):
    assert type(a) is type(b)
    # Bit-for-bit: the released numbers are repr-exact, so the scores are the
    # very same doubles, not just close ones.
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert np.array_equal(a.transform_features(X), b.transform_features(X))
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.frequencies_, b.frequencies_)
    if a.phases_ is None:
        assert b.phases_ is None
    else:
        assert np.array_equal(a.phases_, b.phases_)
    for attr in (
        "feature_scale_",
        "feature_map_",
        "feature_norm_bound_",
        "data_norm_",
        "projection_radius_",
        "n_features_in_",
    ):
        assert getattr(a, attr) == getattr(b, attr), attr
    np.testing.assert_array_equal(a.classes_, b.classes_)
    skipped = ("accountant", "random_state", "feature_random_state")
    pa = {k: v for k, v in a.get_params().items() if k not in skipped}
    pb = {k: v for k, v in b.get_params().items() if k not in skipped}
    assert {k: v for k, v in pa.items() if k != "classes"} == {
        k: v for k, v in pb.items() if k != "classes"
    }
    if pa["classes"] is not None:
        assert list(pa["classes"]) == list(pb["classes"])
    if hasattr(a, "privacy_event_"):
        assert b.privacy_event_.to_dict() == a.privacy_event_.to_dict()
    else:
        assert not hasattr(b, "privacy_event_")


def _fit_kernel(make, X, y):
    est = make()
    if est.norm_handling == "paper" and isinstance(est, DPKernelSVC):
        with pytest.warns(PrivacyLeakWarning, match="paper"):
            return est.fit(X, y)
    return est.fit(X, y)


@pytest.mark.parametrize("make", KERNEL_ESTIMATORS)
def test_kernel_round_trip_is_exact(make, data, tmp_path):
    X, y = data
    est = _fit_kernel(make, X, y)
    path = tmp_path / "m.json"
    save_model(est, path)
    loaded = load_model(path)
    _assert_same_kernel_model(est, loaded, X)
    # Fresh rows far outside the training ball predict identically too.
    X_far = np.random.default_rng(9).normal(scale=3.0, size=(50, X.shape[1]))
    assert np.array_equal(est.decision_function(X_far), loaded.decision_function(X_far))
    params = loaded.get_params()
    for key in ("random_state", "feature_random_state", "accountant"):
        assert params.get(key) is None, key
    assert not hasattr(loaded, "solver_info_") and not hasattr(loaded, "n_iter_")


def test_kernel_one_vs_rest_round_trips(data, tmp_path):
    X, y = data
    y3 = np.where(X[:, 0] > 0.1, 2, y)
    est = DPKernelSVC(
        gamma=2.0, n_components=10, mechanism="output", classes=[-1, 1, 2],
        random_state=0,
    ).fit(X, y3)  # fmt: skip
    save_model(est, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    _assert_same_kernel_model(est, loaded, X)
    assert loaded.coef_.shape == (3, 20)  # cos-sin: 2·n_components columns
    assert len(loaded.privacy_event_.children) == 3


def test_paper_norm_handling_round_trips_with_its_warning_event(data, tmp_path):
    X, y = data
    est = DPKernelSVC(
        gamma=2.0, n_components=10, mechanism="objective-2009",
        norm_handling="paper", classes=[-1, 1], random_state=0,
    )  # fmt: skip
    with pytest.warns(NotPrivateWarning, match="norm_handling='paper'"):
        est.fit(X, y)
    save_model(est, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["state"]["random_features"]["projection_radius"] is None
    assert doc["privacy_event"]["type"] == "non-private"
    loaded = load_model(tmp_path / "m.json")
    _assert_same_kernel_model(est, loaded, X)
    # The file keeps the model's own statement that it is not private: a typed
    # NonPrivateEvent (ε = ∞), the nominal ε kept as a detail only.
    event = loaded.privacy_event_
    assert isinstance(event, NonPrivateEvent)
    assert event.epsilon == math.inf and event.details["nominal_epsilon"] == 1.0
    assert "norm_handling='paper'" in event.reason


def test_kernel_file_content_is_the_documented_json(data, tmp_path):
    X, y = data
    acc = BudgetAccountant(epsilon=5.0)
    est = DPKernelSVC(
        gamma=2.0, n_components=12, mechanism="objective", norm_handling="bound",
        classes=[-1, 1], accountant=acc, feature_random_state=987654,
        random_state=123457,
    ).fit(X, y)  # fmt: skip
    path = tmp_path / "m.json"
    save_model(est, path)
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    # No feature names, schema or selection: the envelope's first seven keys.
    assert list(doc) == list(_ENVELOPE[:7])
    assert list(doc["state"]) == [
        "label_type",
        "classes",
        "coef",
        "random_features",
        "data_norm",
        "n_features_in",
    ]
    assert doc["format_version"] == 2 and doc["estimator"] == "DPKernelSVC"
    rf = doc["state"]["random_features"]
    assert list(rf) == [
        "kernel",
        "gamma",
        "n_components",
        "feature_map",
        "norm_handling",
        "scale",
        "feature_norm_bound",
        "projection_radius",
        "frequencies",
        "phases",
    ]
    assert (rf["kernel"], rf["gamma"], rf["n_components"]) == ("rbf", 2.0, 12)
    # "auto" resolves to Sarwate et al.'s cos-phase map for objective perturbation.
    assert doc["params"]["feature_map"] == "auto" and rf["feature_map"] == "cos-phase"
    # norm_handling="bound" keeps √(2/D) (norm <= √2) and calibrates for √2.
    assert rf["scale"] == math.sqrt(2.0 / 12)
    assert rf["feature_norm_bound"] == rf["projection_radius"] == math.sqrt(2.0)
    assert doc["state"]["data_norm"] == math.sqrt(2.0)
    # The released frequencies and phases are the model's, as exact doubles.
    assert rf["frequencies"] == est.frequencies_.tolist()
    assert np.array(rf["frequencies"]).shape == (5, 12)
    assert rf["phases"] == est.phases_.tolist() and len(rf["phases"]) == 12
    assert doc["state"]["coef"] == est.coef_.tolist()
    assert np.array(doc["state"]["coef"]).shape == (1, 12)
    assert doc["privacy_event"] == est.privacy_event_.to_dict()
    assert doc["privacy_event"]["details"]["kernel"] == "rbf"
    # No seed, no accountant, no solver diagnostics, no intercept.
    for key in ("accountant", "random_state", "feature_random_state"):
        assert key not in doc["params"]
    assert "123457" not in text and "987654" not in text
    assert "solver_info" not in text and "n_iter" not in text
    assert "intercept" not in doc
    assert model_to_dict(est) == doc


def test_kernel_feature_names_round_trip(data, tmp_path):
    X, y = data
    est = NonPrivateRandomFeatureSVC(gamma=2.0, n_components=5).fit(X, y)
    est.feature_names_in_ = np.array([f"f{i}" for i in range(5)], dtype=object)
    save_model(est, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.feature_names_in_.tolist() == ["f0", "f1", "f2", "f3", "f4"]


def test_save_refuses_other_kernel_models_and_oversized_files(
    data, tmp_path, monkeypatch
):
    X, y = data
    exact = NonPrivateKernelSVC(gamma=2.0, regularization=0.1).fit(X[:60], y[:60])
    with pytest.raises(TypeError, match=r"supports .*DPKernelSVC"):
        save_model(exact, tmp_path / "a.json")

    class Sub(DPKernelSVC):
        pass

    sub = Sub(gamma=2.0, n_components=5, classes=[-1, 1], random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="got Sub"):
        save_model(sub, tmp_path / "b.json")
    est = DPKernelSVC(gamma=2.0, n_components=5, classes=[-1, 1], random_state=0)
    est.fit(X, y)
    # A file that load_model would refuse as too large is never written.
    monkeypatch.setattr(dio, "MAX_MODEL_BYTES", 2000)
    with pytest.raises(ValueError, match="more than the 2000 that load_model reads"):
        save_model(est, tmp_path / "c.json")
    est.frequencies_ = est.frequencies_.copy()
    est.frequencies_[0, 0] = np.inf
    monkeypatch.setattr(dio, "MAX_MODEL_BYTES", 10**6)
    with pytest.raises(ValueError, match="frequencies_ is not finite"):
        save_model(est, tmp_path / "d.json")
    assert os.listdir(tmp_path) == []


@pytest.fixture
def kernel_saved(data, tmp_path):
    X, y = data
    est = DPKernelSVC(
        gamma=2.0, n_components=4, mechanism="rubinstein", classes=[-1, 1],
        random_state=0,
    ).fit(X, y)  # fmt: skip
    path = tmp_path / "k.json"
    save_model(est, path)
    return path, json.loads(path.read_text())


@pytest.fixture
def phase_saved(data, tmp_path):
    X, y = data
    est = DPKernelSVC(
        gamma=2.0, n_components=4, mechanism="objective", norm_handling="clip",
        classes=[-1, 1], random_state=0,
    ).fit(X, y)  # fmt: skip
    path = tmp_path / "p.json"
    save_model(est, path)
    return path, json.loads(path.read_text())


_FREQ = [[0.5, -0.25, 1.0, 2.0]] * 5  # shape (5, 4): a well-formed matrix


@pytest.mark.parametrize(
    ("dotted", "value", "match"),
    [
        ("format_version", 3, "unsupported format_version 3"),
        ("format_version", 0, "unsupported format_version 0"),
        ("unexpected", 1, "unknown key\\(s\\) 'unexpected'"),
        # A kernel model is bias-free: an intercept is an unknown key.
        ("intercept", [0.0], "unknown key\\(s\\) 'intercept'"),
        ("random_features", _DELETE, "lacks the key\\(s\\) random_features"),
        ("random_features", [1], "random_features must be a JSON object"),
        ("random_features.extra", 1, r"has unknown key\(s\) 'extra'"),
        ("random_features.phases", _DELETE, r"features lacks the key\(s\) phases"),
        # Frequencies of the wrong shape: transposed, a column short, ragged.
        ("random_features.frequencies", np.array(_FREQ).T.tolist(),
         r"frequencies has shape \(4, 5\); expected \(5, 4\)"),
        ("random_features.frequencies", [r[:3] for r in _FREQ],
         r"frequencies has shape \(5, 3\); expected \(5, 4\)"),
        ("random_features.frequencies", [*_FREQ[:4], [0.5]], "ragged|shape"),
        ("random_features.frequencies", [["1"] * 4] * 5, "list of numbers"),
        ("random_features.frequencies", None, "list of numbers"),
        ("n_features_in", 4, r"frequencies has shape \(5, 4\); expected \(4, 4\)"),
        # cos-sin: 2·n_components weights, no phases.
        ("coef", [[0.1] * 4], r"coef has shape \(1, 4\); expected \(1, 8\)"),
        ("coef", [[0.1] * 8, [0.2] * 8], r"expected \(1, 8\)"),
        ("random_features.phases", [0.0] * 4, "phases must be null for the cos-sin"),
        # Derived values must agree with the parameters.
        ("random_features.kernel", "laplacian",
         "random_features.kernel is 'laplacian' but params.kernel is 'rbf'"),
        ("random_features.gamma", 2.5, "random_features.gamma is 2.5"),
        ("random_features.n_components", 5, "random_features.n_components is 5"),
        ("random_features.norm_handling", "bound", "norm_handling is 'bound'"),
        ("random_features.feature_map", "cos-phase",
         "feature_map is 'cos-phase'; the parameters give 'cos-sin'"),
        ("random_features.scale", 1.0, "random_features.scale is 1.0; the param"),
        ("random_features.scale", "0.5", "random_features.scale is '0.5'"),
        ("random_features.feature_norm_bound", 2.0, "feature_norm_bound is 2.0"),
        ("random_features.projection_radius", 2.0,
         "projection_radius is 2.0; it must equal data_norm"),
        ("random_features.projection_radius", None, "projection_radius is None"),
        ("data_norm", 2.0, "data_norm is 2.0; the parameters give 1.0"),
        ("data_norm", 0, "data_norm must be a number > 0"),
        ("params.gamma", "scale", "params:.*gamma"),
        ("params.n_components", 0, "params:.*n_components"),
        ("params.n_components", True, "n_components must be an integer"),
        ("params.kernel", "poly", "params:.*kernel"),
        ("params.norm_handling", "none", "params:.*norm_handling"),
        ("params.feature_random_state", 0, "unknown key\\(s\\) 'feature_random_state'"),
        ("params.random_state", 0, "unknown key\\(s\\) 'random_state'"),
        ("params.mechanism", _DELETE, "params lacks the key\\(s\\) mechanism"),
        ("privacy_event", None, "a DPKernelSVC model needs a privacy_event"),
        ("privacy_event.epsilon", "1", "epsilon must be a number"),
        ("estimator", "NonPrivateKernelSVC", "unknown estimator 'NonPrivateKernelSVC'"),
        ("feature_names_in", ["a"], "feature_names_in must be a list of 5 strings"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("version", [1, 2])
def test_load_rejects_tampered_kernel_fields(
    kernel_saved, dotted, value, match, version
):
    path, doc = kernel_saved
    doc = as_version_1(doc) if version == 1 else doc
    _write(path, _edit(doc, dotted, value))
    with pytest.raises(ValueError, match=match):
        load_model(path)


@pytest.mark.parametrize(
    ("dotted", "value", "match"),
    [
        ("random_features.phases", None, "phases must be a \\(nested\\) list"),
        ("random_features.phases", [0.0] * 3, r"phases has shape \(3,\); expected"),
        ("random_features.phases", [[0.0] * 4], r"phases has shape \(1, 4\)"),
        ("coef", [[0.1] * 8], r"coef has shape \(1, 8\); expected \(1, 4\)"),
        # "clip" keeps √(2/D) = √(1/2) for D = 4 and projects onto radius 1.
        ("random_features.scale", 0.5, "scale is 0.5; the parameters give 0.7071"),
        ("random_features.feature_norm_bound", 1.0, "feature_norm_bound is 1.0"),
        ("random_features.feature_map", "cos-sin", "feature_map is 'cos-sin'"),
        ("params.norm_handling", "scale", "norm_handling is 'clip' but params"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("version", [1, 2])
def test_load_rejects_tampered_cos_phase_fields(
    phase_saved, dotted, value, match, version
):
    path, doc = phase_saved
    doc = as_version_1(doc) if version == 1 else doc
    _write(path, _edit(doc, dotted, value))
    with pytest.raises(ValueError, match=match):
        load_model(path)


@pytest.mark.parametrize(
    "target",
    [
        lambda doc: doc["state"]["coef"][0][3],
        lambda doc: doc["state"]["random_features"]["frequencies"][2][1],
    ],
    ids=["coef", "frequencies"],
)
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_kernel_numbers_are_refused(kernel_saved, target, token):
    path, doc = kernel_saved
    text = json.dumps(doc)
    old = repr(target(doc))
    assert text.count(old) == 1
    path.write_text(text.replace(old, token))
    with pytest.raises(ValueError, match=r"non-finite|overflows"):
        load_model(path)


def test_non_private_kernel_model_has_no_event(kernel_saved, data):
    path, doc = kernel_saved
    X, y = data
    private = load_model(path)
    other = model_to_dict(
        NonPrivateRandomFeatureSVC(n_components=4, norm_handling="clip").fit(X, y)
    )
    doc = _edit(doc, "estimator", "NonPrivateRandomFeatureSVC")
    doc["params"] = {**other["params"], "gamma": 2.0}
    _write(path, doc)
    with pytest.raises(ValueError, match="NonPrivateRandomFeatureSVC model has no"):
        load_model(path)
    # Without the event it is a valid non-private model on the same cos-sin
    # features and weights, so it scores exactly as the private one.
    _write(path, _edit(doc, "privacy_event", None))
    loaded = load_model(path)
    assert isinstance(loaded, NonPrivateRandomFeatureSVC)
    assert np.array_equal(loaded.decision_function(X), private.decision_function(X))


def test_linear_file_with_kernel_keys_is_refused(saved):
    path, doc = saved
    doc = _edit(doc, "random_features", {})
    _write(path, doc)
    with pytest.raises(ValueError, match="unknown key\\(s\\) 'random_features'"):
        load_model(path)
