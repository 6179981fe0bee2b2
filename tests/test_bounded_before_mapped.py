# SPDX-License-Identifier: BSD-3-Clause
"""Bounded before mapped: one huge finite row changes nothing but its own clip.

Issue 20, item 2 (``docs/privacy.md``, "Bounded before mapped"). Every learner
projects its rows onto the public ball (overflow-safe) before any JL
projection, random-feature map, polynomial map or kernel evaluation, so one
training row replaced by extreme finite values

* ±1.5e308 in one coordinate (the entry of the issue's attack),
* 1e300 in every coordinate (‖x‖² overflows although no entry is large),
* ±1.7e308 in two coordinates (even m·‖x/m‖ is beyond the float range),

must give a fit that succeeds with finite released parameters and predictions,
and exactly the privacy event (``privacy_event_``) of the ordinary fit: whether
a fit succeeds, and what it is charged, never depends on one row.

Every public estimator is found by walking the package (as
``tests/test_no_secret_state.py`` does) and must have an entry in ``CONFIGS``: a
new estimator fails :func:`test_every_public_estimator_has_configurations` until
its configurations are added. The learners that failed before the fix have
their own regression tests at the end.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_regressor
from sklearn.ensemble import HistGradientBoostingClassifier

import dpsvm
from dpsvm.accounting import BudgetAccountant
from dpsvm.exceptions import NotPrivateWarning, PrivacyLeakWarning
from dpsvm.kernels import (
    PolynomialFeatureMap,
    RandomFourierFeatures,
    fourier_features,
    kernel_matrix,
)
from dpsvm.label_privacy import LabelPrivateClassifier
from dpsvm.margins import (
    JLExponentialMarginClassifier,
    JLMarginClassifier,
    KernelMarginClassifier,
    LabelPrivateMarginClassifier,
    NeuralMarginClassifier,
    PrivateMarginSelection,
)
from dpsvm.margins.projections import FastJL, RademacherJL
from dpsvm.mechanisms import BaseMechanism
from dpsvm.model_selection import (
    PrivateParameterTuning,
    PrivateRandomSearch,
    PrivateSelectThenFit,
)
from dpsvm.models import (
    DPGaussianProcessRelease,
    DPKernelSVC,
    DPLinearSVC,
    DPLogisticRegression,
    DPOutputPerturbationRegressor,
    DPOutputPerturbationSVC,
    NonPrivateKernelSVC,
    NonPrivateLinearClassifier,
    NonPrivateRandomFeatureSVC,
    NonPrivateScalarOffsetRelease,
    PerQueryLaplacePredictor,
)
from dpsvm.prediction import (
    PrivateInteractivePredictor,
    SubsampleAggregatePredictor,
    TestDataDependentLearner,
    TestDataIndependentLearner,
)
from dpsvm.prediction._common import VacuousCalibrationWarning
from dpsvm.preprocessing import PublicSchema, PublicStep, SchemaTransformer
from dpsvm.validation import project_rows_to_ball

N, D = 40, 6
B = {"classes": [-1, 1]}
#: δ < 1/n for the (ε, δ) margin learners (Lemma 3.1).
DELTA = 1e-3
FMAX = float(np.finfo(np.float64).max)


def _extreme_rows() -> dict[str, np.ndarray]:
    one_pos = np.zeros(D)
    one_pos[0] = 1.5e308
    one_neg = np.zeros(D)
    one_neg[1] = -1.5e308
    two = np.zeros(D)
    two[2], two[3] = 1.7e308, -1.7e308
    return {
        "+1.5e308-one-coordinate": one_pos,
        "-1.5e308-one-coordinate": one_neg,
        "1e300-every-coordinate": np.full(D, 1e300),
        "1.7e308-two-coordinates": two,
    }


EXTREME = _extreme_rows()


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    X = rng.uniform(-1.0, 1.0, size=(N, D)) / np.sqrt(D)
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    y[:2] = [1, -1]  # both classes whatever row 0 becomes
    return X, y


def _schema() -> SchemaTransformer:
    return SchemaTransformer(
        PublicSchema.from_dict(
            {
                "label": {"column": "y", "classes": [-1, 1]},
                "features": [
                    {"column": f"x{j}", "type": "numeric", "lower": -1, "upper": 1}
                    for j in range(D)
                ],
            }
        )
    )


def _acc() -> BudgetAccountant:
    return BudgetAccountant(epsilon=1e6)


Factory = Callable[[], Any]

#: Configurations per public estimator: every mapped path (JL, random features,
#: polynomial map, kernels, sketches) with small sizes and integer seeds.
CONFIGS: dict[str, dict[str, Factory]] = {
    "DPLinearSVC": {
        "objective": lambda: DPLinearSVC(random_state=0, **B),
        "output": lambda: DPLinearSVC(mechanism="output", random_state=0, **B),
    },
    "DPLogisticRegression": {
        "default": lambda: DPLogisticRegression(random_state=0, **B)
    },
    "NonPrivateLinearClassifier": {"default": lambda: NonPrivateLinearClassifier(**B)},
    "DPOutputPerturbationSVC": {
        "identity": lambda: DPOutputPerturbationSVC(random_state=0, **B),
        "random-features": lambda: DPOutputPerturbationSVC(
            feature_map=RandomFourierFeatures(n_components=8, random_state=0),
            feature_norm=1.0,
            random_state=0,
            **B,
        ),
        "polynomial": lambda: DPOutputPerturbationSVC(
            feature_map=PolynomialFeatureMap(degree=2, data_norm=1.0),
            feature_norm=2.0,
            random_state=0,
            **B,
        ),
    },
    "DPOutputPerturbationRegressor": {
        "squared": lambda: DPOutputPerturbationRegressor(
            loss="squared", y_bound=1.0, random_state=0
        ),
    },
    "DPKernelSVC": {
        f"{kernel}-{fmap}-{mech}": (
            lambda kernel=kernel, fmap=fmap, mech=mech: DPKernelSVC(
                kernel=kernel,
                feature_map=fmap,
                mechanism=mech,
                norm_handling="clip" if fmap == "cos-phase" else "scale",
                n_components=8,
                feature_random_state=0,
                random_state=0,
                **B,
            )
        )
        for kernel, fmap, mech in (
            ("rbf", "cos-sin", "rubinstein"),
            ("laplacian", "cos-sin", "output"),
            ("cauchy", "cos-phase", "objective"),
        )
    },
    "NonPrivateRandomFeatureSVC": {
        # The Huber loss: the exact hinge solver is slow, and not the point.
        "rbf": lambda: NonPrivateRandomFeatureSVC(
            n_components=8, loss="huber", feature_random_state=0, **B
        ),
    },
    "NonPrivateKernelSVC": {
        # No public ball (a non-private reference): the shift-invariant
        # kernels, whose Gram matrix is overflow-safe.
        kernel: (lambda kernel=kernel: NonPrivateKernelSVC(kernel=kernel, **B))
        for kernel in ("rbf", "laplacian", "cauchy")
    },
    "DPGaussianProcessRelease": {
        "rbf": lambda: DPGaussianProcessRelease(delta=DELTA, random_state=0, **B),
        "rbf-no-domain": lambda: DPGaussianProcessRelease(
            delta=DELTA, data_norm=None, random_state=0, **B
        ),
        "poly": lambda: DPGaussianProcessRelease(
            delta=DELTA, kernel="poly", degree=2, random_state=0, **B
        ),
    },
    "PerQueryLaplacePredictor": {
        "poly": lambda: PerQueryLaplacePredictor(
            kernel="poly", degree=2, accountant=_acc(), random_state=0, **B
        ),
    },
    "NonPrivateScalarOffsetRelease": {
        "rbf-no-domain": lambda: NonPrivateScalarOffsetRelease(
            data_norm=None, random_state=0, **B
        ),
    },
    "PrivateInteractivePredictor": {
        "rbf": lambda: PrivateInteractivePredictor(
            delta=DELTA, on_vacuous="warn", random_state=0, **B
        ),
        "poly-laplace": lambda: PrivateInteractivePredictor(
            delta=DELTA,
            on_vacuous="warn",
            kernel="poly",
            degree=2,
            mechanism="laplace",
            random_state=0,
            **B,
        ),
    },
    "TestDataDependentLearner": {
        "poly": lambda: TestDataDependentLearner(
            delta=DELTA,
            kernel="poly",
            degree=2,
            n_test_points=10,
            on_vacuous="warn",
            random_state=0,
            **B,
        ),
    },
    "TestDataIndependentLearner": {
        "linear": lambda: TestDataIndependentLearner(
            delta=DELTA, kernel="linear", on_vacuous="warn", random_state=0, **B
        ),
    },
    "SubsampleAggregatePredictor": {
        kernel: (
            lambda kernel=kernel: SubsampleAggregatePredictor(
                delta=DELTA,
                kernel=kernel,
                n_teachers=4,
                max_charged=50,  # both predictions of the test are charged
                on_vacuous="warn",
                random_state=0,
                **B,
            )
        )
        for kernel in ("rbf", "poly")
    },
    "JLMarginClassifier": {
        solver: (
            lambda solver=solver: JLMarginClassifier(
                solver=solver,
                n_components=2,
                delta=DELTA,
                epsilon=5.0,
                max_iter=20,
                random_state=0,
                **B,
            )
        )
        for solver in ("noisy-gd", "phased-sgd", "boosted-phased-sgd")
    }
    | {
        "fast-jl": lambda: JLMarginClassifier(
            projection="fast",
            n_components=2,
            delta=DELTA,
            max_iter=20,
            random_state=0,
            **B,
        ),
    },
    "JLExponentialMarginClassifier": {
        "k2": lambda: JLExponentialMarginClassifier(n_components=2, random_state=0, **B)
    },
    "NeuralMarginClassifier": {
        "one-layer": lambda: NeuralMarginClassifier(
            n_layers=1, n_components=2, random_state=0, **B
        ),
    },
    # Label DP: the features are public (only labels are protected), and the
    # default base model bins each feature, so extreme values stay finite.
    "LabelPrivateClassifier": {
        "hist-gradient-boosting": lambda: LabelPrivateClassifier(
            HistGradientBoostingClassifier(max_iter=10), random_state=0, **B
        ),
    },
    "LabelPrivateMarginClassifier": {
        "sphere": lambda: LabelPrivateMarginClassifier(
            candidates="sphere", n_candidates=100, random_state=0, **B
        ),
        "subspace": lambda: LabelPrivateMarginClassifier(
            n_directions=2, random_state=0, **B
        ),
    },
    "KernelMarginClassifier": {
        "rbf": lambda: KernelMarginClassifier(
            delta=DELTA,
            n_components=2,
            n_random_features=8,
            max_iter=20,
            random_state=0,
            **B,
        ),
        "laplacian-streamed": lambda: KernelMarginClassifier(
            kernel="laplacian",
            feature_mode="stream",
            delta=DELTA,
            n_components=2,
            n_random_features=8,
            max_iter=20,
            random_state=0,
            **B,
        ),
        "poly": lambda: KernelMarginClassifier(
            kernel="poly",
            degree=2,
            delta=DELTA,
            n_components=2,
            max_iter=20,
            random_state=0,
            **B,
        ),
    },
    "PrivateMarginSelection": {
        "default": lambda: PrivateMarginSelection(
            delta=DELTA, solver_max_iter=50, random_state=0, **B
        ),
        "score-components-16": lambda: PrivateMarginSelection(
            estimator=JLMarginClassifier(n_components=2, max_iter=20),
            delta=DELTA,
            score_components=16,
            solver_max_iter=50,
            random_state=0,
            **B,
        ),
    },
    "PrivateParameterTuning": {
        "kernel": lambda: PrivateParameterTuning(
            DPKernelSVC(n_components=8, feature_random_state=0, **B),
            {"regularization": [0.05, 0.2]},
            random_state=0,
            split_random_state=0,
        ),
    },
    "PrivateRandomSearch": {
        "kernel": lambda: PrivateRandomSearch(
            DPKernelSVC(n_components=8, feature_random_state=0, **B),
            {"regularization": [0.05, 0.2]},
            mean_repetitions=2,
            random_state=0,
            split_random_state=0,
        ),
    },
    "PrivateSelectThenFit": {
        "kernel": lambda: PrivateSelectThenFit(
            DPKernelSVC(n_components=8, feature_random_state=0, **B),
            {"regularization": [0.05, 0.2]},
            random_state=0,
            split_random_state=0,
        ),
    },
    # Feature maps (no ``predict``): fitted from the width only; the mapped
    # output must be finite where the map has a ball (RFF: its phase ball;
    # polynomial: data_norm; schema: the public ranges).
    "RandomFourierFeatures": {
        f"{kernel}-{fmap}": (
            lambda kernel=kernel, fmap=fmap: RandomFourierFeatures(
                kernel=kernel, feature_map=fmap, n_components=8, random_state=0
            )
        )
        for kernel in ("rbf", "laplacian", "cauchy")
        for fmap in ("cos-sin", "cos-phase")
    }
    | {
        "float32": lambda: RandomFourierFeatures(
            n_components=8, dtype=np.float32, random_state=0
        )
    },
    "PolynomialFeatureMap": {
        "bounded": lambda: PolynomialFeatureMap(degree=2, data_norm=1.0)
    },
    "SchemaTransformer": {"unit-norm": _schema},
    "PublicStep": {"schema": lambda: PublicStep(_schema())},
    # A JL map alone is linear with no ball (Φx of a huge x is huge): only its
    # fit (the width) is checked; the learners bound the rows before it.
    "RademacherJL": {"k2": lambda: RademacherJL(2, random_state=0)},
    "FastJL": {"k2": lambda: FastJL(2, random_state=0)},
}

#: Maps whose output need not be finite on an extreme row (no ball).
UNBOUNDED_MAPS = {"RademacherJL", "FastJL"}


def _public_estimators() -> set[str]:
    """Concrete public estimators with a ``fit`` (the walk of the secret test)."""
    found: set[str] = set()
    for info in pkgutil.walk_packages(dpsvm.__path__, "dpsvm."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        if info.name.startswith(("dpsvm.audit", "dpsvm.cli", "dpsvm.reproduce")):
            continue  # test tools and front ends: they release nothing themselves
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseEstimator)
                and not issubclass(obj, BaseMechanism)
                and not inspect.isabstract(obj)
                and hasattr(obj, "fit")
            ):
                found.add(obj.__name__)
    return found


def test_every_public_estimator_has_configurations():
    walked = _public_estimators()
    assert {"DPKernelSVC", "JLMarginClassifier", "PrivateMarginSelection"} <= walked
    missing = sorted(walked - set(CONFIGS))
    assert not missing, f"add extreme-row configurations to CONFIGS for {missing}"
    assert not sorted(set(CONFIGS) - walked), "CONFIGS names a class not exported"


def _cases() -> list[Any]:
    return [
        pytest.param(cls, cfg, id=f"{cls}-{cfg}")
        for cls, configs in sorted(CONFIGS.items())
        for cfg in configs
    ]


def _fit(make: Factory, X: np.ndarray, y: np.ndarray) -> Any:
    est = make()
    target: Any = X[:, 0].copy() if _is_regressor(est) else y
    if isinstance(est, SchemaTransformer | PublicStep):
        import pandas as pd

        X = pd.DataFrame(X, columns=[f"x{j}" for j in range(D)])
    with warnings.catch_warnings():
        # The declared non-private and data-derived modes warn by design, and
        # so does a vacuous calibration at this small n; any other warning (an
        # overflow RuntimeWarning included) fails the test.
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", NotPrivateWarning)
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        if not hasattr(est, "predict"):
            est.fit(X)
            if type(est).__name__ in UNBOUNDED_MAPS:
                warnings.simplefilter("ignore", RuntimeWarning)  # Φx overflows
            return est, est.transform(X)
        est.fit(X, target)
        return est, None


def _is_regressor(est: Any) -> bool:
    return bool(is_regressor(est))


def _released_floats(est: Any) -> dict[str, np.ndarray]:
    """Every public fitted attribute (ending in ``_``) holding float values."""
    out = {}
    for name, value in vars(est).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        arr = np.asarray(value) if isinstance(value, np.ndarray | float) else None
        if arr is not None and arr.dtype.kind == "f":
            out[name] = arr
    return out


#: Details that record the released outcome of a selection (what was chosen),
#: not what was charged.
OUTCOMES = {"selected_index", "selected_margin"}


def _charge(event: Any) -> Any:
    """What an event charges: every field, recursively, except its outcomes.

    Under label-only neighbours (``neighbouring="replace-one-label"``) the
    features are public: details computed from them (the size of the
    feature-dependent cover) may differ, ε, δ and the rest may not.
    """
    if event is None:
        return None
    label_only = event.neighbouring == "replace-one-label"
    fields = {}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if f.name == "children":
            value = tuple(_charge(c) for c in value)
        elif f.name == "details":
            value = {
                k: v
                for k, v in value.items()
                if k not in OUTCOMES and not (label_only and k == "n_candidates")
            }
        fields[f.name] = value
    return type(event).__name__, fields


def _predictions(est: Any, X: np.ndarray) -> np.ndarray:
    method = "decision_function" if hasattr(est, "decision_function") else "predict"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        out = getattr(est, method)(X)
    return np.asarray(out, dtype=np.float64)


@pytest.mark.parametrize(("cls", "cfg"), _cases())
def test_one_extreme_row_gives_a_finite_fit_and_the_same_event(cls, cfg):
    make = CONFIGS[cls][cfg]
    X, y = _data()
    ordinary, _ = _fit(make, X, y)
    event = _charge(getattr(ordinary, "privacy_event_", None))
    # Public quantities that are infinite whatever the data (a vacuous JL
    # distortion bound, the threshold of a mechanism without one) stay so.
    finite = {
        name for name, v in _released_floats(ordinary).items() if np.all(np.isfinite(v))
    }
    for what, row in EXTREME.items():
        Xe = X.copy()
        Xe[0] = row
        est, mapped = _fit(make, Xe, y)
        assert _charge(getattr(est, "privacy_event_", None)) == event, what
        released = _released_floats(est)
        assert finite <= set(released), what
        for name in finite:
            assert np.all(np.isfinite(released[name])), f"{what}: {name} not finite"
        if mapped is not None:  # a feature map
            if cls not in UNBOUNDED_MAPS:
                assert np.all(np.isfinite(np.asarray(mapped, float))), what
            continue
        assert np.all(np.isfinite(_predictions(est, X[1:6]))), what
        # The extreme row itself is predicted too: a valid label, no error. (The
        # margin learners score ⟨w, x⟩ on the raw row, which may overflow to
        # ±inf for it; its sign is still a label.)
        with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            labels = est.predict(Xe[:1])
        if _is_regressor(est):
            assert np.all(np.isfinite(labels)), what
        else:
            assert set(np.asarray(labels).tolist()) <= set(est.classes_.tolist())


# --------------------------------------------------------------------------- #
# The overflow-safe projection itself
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("radius", [1e-3, 1.0, 10.0])
@pytest.mark.parametrize("what", sorted(EXTREME))
def test_projection_of_an_overflowing_row_has_the_radius_and_direction(what, radius):
    row = EXTREME[what]
    (out,) = project_rows_to_ball(row[None, :], radius)
    assert np.all(np.isfinite(out))
    # ‖out‖ = radius (within rounding, never above) ...
    norm = float(np.linalg.norm(out))
    assert norm <= radius
    assert norm == pytest.approx(radius, rel=1e-12)
    # ... in the direction of the row: out ∝ row/max|row|, a positive multiple.
    unit = row / np.max(np.abs(row))
    np.testing.assert_allclose(out, unit * (radius / np.linalg.norm(unit)), rtol=1e-12)


def test_projection_keeps_a_row_inside_a_huge_radius():
    # ‖x‖² overflows but ‖x‖ = 1.41e160 is inside the ball: unchanged (the
    # rescaled copy must not be released as if it were the projection).
    row = np.array([[1e160, 1e160, 0.0]])
    np.testing.assert_array_equal(project_rows_to_ball(row, 1e200), row)


def test_sparse_rows_in_ball_are_overflow_safe():
    import scipy.sparse as sp

    from dpsvm.margins._base import rows_in_ball

    X = np.vstack([EXTREME["1.7e308-two-coordinates"], np.full(D, 0.1)])
    X[1, 0] = 3.0
    out = rows_in_ball(sp.csr_matrix(X), 1.0)
    assert sp.issparse(out)
    np.testing.assert_allclose(out.toarray(), project_rows_to_ball(X, 1.0))


def test_fourier_features_and_kernels_are_finite_on_extreme_rows():
    X = np.vstack([np.zeros(D), *EXTREME.values()])
    W = np.random.default_rng(0).normal(size=(D, 5))
    for phases in (None, np.zeros(5)):
        assert np.all(np.isfinite(fourier_features(X, W, phases, scale=0.5)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kernel in ("rbf", "laplacian", "cauchy"):
            K = kernel_matrix(X, kernel=kernel)
            # Distances beyond the float range: kernel 0 off the diagonal.
            np.testing.assert_array_equal(K, np.eye(len(X)))


def test_fourier_features_leave_rows_inside_the_phase_ball_unchanged():
    # Rows large enough for the checked path, yet inside the phase ball: the
    # features equal those of the plain formula.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4, D)) * 1e7
    W = rng.normal(size=(D, 3))
    Z = fourier_features(X, W, scale=1.0)
    np.testing.assert_allclose(Z, np.hstack([np.cos(X @ W), np.sin(X @ W)]), atol=1e-9)


# --------------------------------------------------------------------------- #
# Regression tests: the learners of issue 20 that failed on one huge row
# --------------------------------------------------------------------------- #
def _issue_row_data() -> tuple[np.ndarray, np.ndarray]:
    X, y = _data()
    X = np.hstack([X, X]) / np.sqrt(2.0)  # d = 12 > k: the JL map is not identity
    X[0, 0] = 1.5e308
    return X, y


@pytest.mark.parametrize("solver", ["noisy-gd", "phased-sgd"])
def test_regression_jl_margin_learner_on_a_huge_entry(solver):
    # noisy-gd released an all-NaN coef_; phased-sgd raised ValueError.
    X, y = _issue_row_data()
    clf = JLMarginClassifier(
        solver=solver, n_components=3, delta=DELTA, max_iter=20, random_state=0, **B
    ).fit(X, y)
    assert np.all(np.isfinite(clf.coef_))
    assert np.all(np.isfinite(clf.decision_function(X[1:])))


def test_regression_kernel_margin_classifier_on_a_huge_entry():
    # raised "Input X contains NaN" (its random features of the huge row).
    X, y = _issue_row_data()
    clf = KernelMarginClassifier(
        delta=DELTA, n_components=3, n_random_features=8, random_state=0, **B
    ).fit(X, y)
    assert np.all(np.isfinite(clf.coef_))
    assert np.all(np.isfinite(clf.decision_function(X)))


@pytest.mark.parametrize("score_components", [None, 16])
def test_regression_private_margin_selection_on_a_huge_entry(score_components):
    # The default released NaN; score_components=16 raised ValueError.
    X, y = _issue_row_data()
    sel = PrivateMarginSelection(
        delta=DELTA,
        score_components=score_components,
        solver_max_iter=50,
        random_state=0,
        **B,
    ).fit(X, y)
    assert np.all(np.isfinite(sel.coef_))
    assert np.all(np.isfinite(sel.decision_function(X[1:])))


def test_regression_dp_kernel_svc_on_a_huge_entry():
    # Random Fourier features of the huge row were NaN: "Input X contains NaN".
    X, y = _issue_row_data()
    clf = DPKernelSVC(n_components=8, random_state=0, feature_random_state=0, **B)
    clf.fit(X, y)
    assert np.all(np.isfinite(clf.coef_))
    assert np.all(np.isfinite(clf.decision_function(X)))
