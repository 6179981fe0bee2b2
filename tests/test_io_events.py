# SPDX-License-Identifier: BSD-3-Clause
"""Model files: typed events round-trip; an event that does not match the
stored parameters is refused (accidental edits, version skew)."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from dpsvm.accounting import NonPrivateEvent, PureDpEvent
from dpsvm.io import load_model, save_model
from dpsvm.models import DPKernelSVC, DPLinearSVC, DPLogisticRegression


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (150, 3)) / 2
    y = np.where(X @ np.array([1.0, -0.5, 0.2]) > 0, 1, -1)
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NotPrivateWarning of the 2009 modes
        return est.fit(X, y)


def _saved(est, data, tmp_path):
    X, y = data
    path = tmp_path / "m.json"
    save_model(_fit(est, X, y), path)
    return path, json.loads(path.read_text())


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


MODELS = [
    pytest.param(
        lambda: DPLinearSVC(mechanism="objective", loss="huber", classes=[-1, 1]),
        id="objective",
    ),
    pytest.param(
        lambda: DPLinearSVC(mechanism="objective-2009", loss="huber", classes=[-1, 1]),
        id="objective-2009",
    ),
    pytest.param(lambda: DPLinearSVC(mechanism="output", classes=[-1, 1]), id="output"),
    pytest.param(
        lambda: DPLinearSVC(
            mechanism="output-laplace", fit_intercept=True, classes=[-1, 1]
        ),
        id="output-laplace-intercept",
    ),
    pytest.param(
        lambda: DPLogisticRegression(classes=[-1, 0, 1], data_norm=0.5),
        id="logreg-ovr",
    ),
    pytest.param(
        lambda: DPKernelSVC(n_components=6, norm_handling="bound", classes=[-1, 1]),
        id="kernel-bound",
    ),
    pytest.param(
        lambda: DPKernelSVC(
            n_components=6,
            mechanism="objective-2009",
            norm_handling="paper",
            classes=[-1, 1],
        ),
        id="kernel-paper-2009",
    ),
    pytest.param(
        lambda: DPKernelSVC(n_components=6, mechanism="rubinstein", classes=[-1, 1]),
        id="kernel-rubinstein",
    ),
]


@pytest.mark.parametrize("make", MODELS)
def test_typed_event_round_trips_and_passes_the_consistency_check(make, data, tmp_path):
    X, y = data
    est = _fit(make().set_params(random_state=0), X, y)
    path = tmp_path / "m.json"
    save_model(est, path)
    loaded = load_model(path)
    assert type(loaded.privacy_event_) is type(est.privacy_event_)
    assert loaded.privacy_event_.to_dict() == est.privacy_event_.to_dict()
    doc = json.loads(path.read_text())
    assert doc["privacy_event"]["type"] == est.privacy_event_.guarantee


def test_multiclass_and_intercept_models_load(data, tmp_path):
    X, y = data
    y3 = np.where(X[:, 0] > 0.2, 0, y)
    est = DPLogisticRegression(classes=[-1, 0, 1], data_norm=0.5, random_state=0)
    save_model(est.fit(X, y3), tmp_path / "a.json")
    assert len(load_model(tmp_path / "a.json").privacy_event_.children) == 3
    est = DPLinearSVC(
        mechanism="output-laplace", fit_intercept=True, classes=[-1, 1], random_state=0
    )
    save_model(est.fit(X, y), tmp_path / "b.json")
    assert isinstance(load_model(tmp_path / "b.json").privacy_event_, PureDpEvent)


def _edit(doc, where, value):
    node = doc
    *path, last = where
    for key in path:
        node = node[key]
    node[last] = value
    return doc


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        # ε in the event no longer what the parameters say (or the reverse).
        (("privacy_event", "epsilon"), 0.1, "epsilon"),
        (("params", "epsilon"), 2.0, "epsilon"),
        # Λ, the norm bound, the mechanism, n: the noise was calibrated to them.
        (("params", "regularization"), 0.5, "regularization"),
        (("params", "data_norm"), 2.0, "data_norm"),
        (("data_norm",), 2.0, "data_norm"),
        (("params", "mechanism"), "output", "mechanism"),
        # (n also enters the "auto" rule for Λ, so Λ may be the first mismatch.)
        (("privacy_event", "details", "n_samples"), 10, "recomputed|regularization"),
        (("privacy_event", "details", "noise_norm_scale"), 1.0, "noise_norm_scale"),
        (("privacy_event", "details", "epsilon_prime"), 0.9, "epsilon_prime"),
        # The certified solver residual and its noise (charged in ε).
        (("params", "tol"), 1e-6, "residual"),
        (("privacy_event", "details", "epsilon_residual"), 0.0, "epsilon_residual"),
        (("privacy_event", "details", "residual_noise_scale"), 1e-9, "residual"),
        (("privacy_event", "delta"), 1e-3, "delta"),
        (("privacy_event", "type"), "approximate", "cannot have"),
    ],
)
def test_edited_file_is_refused(data, tmp_path, where, value, match):
    # Regression: load_model accepted any event next to any parameters.
    est = DPLinearSVC(mechanism="objective", loss="huber", classes=[-1, 1])
    path, doc = _saved(est.set_params(random_state=0), data, tmp_path)
    _write(path, _edit(doc, where, value))
    with pytest.raises(ValueError, match=match):
        load_model(path)


def test_non_private_model_cannot_be_relabelled_private(data, tmp_path):
    est = DPLinearSVC(
        mechanism="objective-2009", loss="huber", classes=[-1, 1], random_state=0
    )
    path, doc = _saved(est, data, tmp_path)
    assert doc["privacy_event"]["type"] == "non-private"
    # The parameters say "objective" (private) but the event is non-private.
    _write(
        path, _edit(json.loads(json.dumps(doc)), ("params", "mechanism"), "objective")
    )
    with pytest.raises(ValueError, match="NonPrivateEvent"):
        load_model(path)
    # A "pure" type next to ε = inf is refused by the event itself.
    _write(path, _edit(json.loads(json.dumps(doc)), ("privacy_event", "type"), "pure"))
    with pytest.raises(ValueError, match="cannot have"):
        load_model(path)
    # Dropping the type (as in a file from before typed events) keeps it typed.
    old = json.loads(json.dumps(doc))
    del old["privacy_event"]["type"], old["privacy_event"]["reason"]
    loaded = load_model(_write(path, old))
    assert isinstance(loaded.privacy_event_, NonPrivateEvent)
    assert loaded.privacy_event_.epsilon == math.inf


def test_kernel_event_is_checked_through_its_linear_step(data, tmp_path):
    est = DPKernelSVC(
        n_components=6, norm_handling="bound", classes=[-1, 1], random_state=0
    )
    path, doc = _saved(est, data, tmp_path)
    bad = _edit(json.loads(json.dumps(doc)), ("params", "regularization"), 0.3)
    with pytest.raises(ValueError, match="regularization"):
        load_model(_write(path, bad))
    bad = json.loads(json.dumps(doc))
    bad["privacy_event"]["mechanism"] = "random-fourier-features[cos-sin]+x"
    with pytest.raises(ValueError, match="does not start with"):
        load_model(_write(path, bad))
    # norm_handling="paper" is not private: a private event next to it is refused.
    bad = _edit(json.loads(json.dumps(doc)), ("params", "norm_handling"), "paper")
    bad["state"]["random_features"]["norm_handling"] = "paper"
    with pytest.raises(ValueError):
        load_model(_write(path, bad))
