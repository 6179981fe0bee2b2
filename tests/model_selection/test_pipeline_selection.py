# SPDX-License-Identifier: BSD-3-Clause
"""Private selectors on pipelines (public steps only) and the weighted-error score."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from dpsvm.accounting import BudgetAccountant
from dpsvm.model_selection import (
    PrivateParameterTuning,
    PrivateRandomSearch,
    PrivateSelectThenFit,
    _sarwate,
)
from dpsvm.model_selection._scoring import SelectionScore, resolve_selection_score
from dpsvm.models import DPLinearSVC
from dpsvm.preprocessing import PublicSchema, PublicStep, SchemaTransformer

LEVELS = list("abcdefgh")
SCHEMA = PublicSchema.from_dict(
    {
        "label": {"column": "y", "classes": ["no", "yes"]},
        "features": [
            {"column": "a", "type": "numeric", "lower": 0, "upper": 10},
            {"column": "c", "type": "categorical", "categories": LEVELS},
        ],
    }
)
GRID = {"dplinearsvc__regularization": [1e-3, 1e-2, 1e-1]}
PRIORS = {"no": 0.94, "yes": 0.06}


def _table(n: int, seed: int, positive: float = 0.3) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows whose label is 'yes' mostly for category 'a' (share ≈ ``positive``)."""
    rng = np.random.default_rng(seed)
    c = np.where(
        rng.uniform(size=n) < positive, "a", rng.choice(LEVELS[1:], n)
    )  # about `positive` of the rows in category "a"
    frame = pd.DataFrame({"a": rng.uniform(0, 10, n), "c": c, "extra": "x"})
    yes = (c == "a") ^ (rng.uniform(size=n) < 0.03)
    return frame, np.where(yes, "yes", "no")


def _pipe(*steps):
    return make_pipeline(
        *steps,
        DPLinearSVC(classes=["no", "yes"], data_norm=SCHEMA.row_norm_bound),
    )


@pytest.mark.parametrize(
    "Selector", [PrivateSelectThenFit, PrivateParameterTuning, PrivateRandomSearch]
)
def test_selectors_tune_a_schema_pipeline_by_step_names(Selector):
    frame, y = _table(1500, 0)
    acc = BudgetAccountant(epsilon=1.0)
    kw = {"mean_repetitions": 2} if Selector is PrivateRandomSearch else {}
    sel = Selector(
        _pipe(SchemaTransformer(SCHEMA)),
        GRID,
        epsilon=1.0,
        accountant=acc,
        random_state=0,
        **kw,
    ).fit(frame, y)  # a data frame with text columns, passed on as it is
    assert set(sel.best_params_) == {"dplinearsvc__regularization"}
    # ε, accountant and noise belong to the final step; one charge in all.
    final = sel.best_estimator_.steps[-1][1]
    assert final.get_params()["accountant"] is None
    assert acc.total() == (1.0, 0.0) and len(acc) == 1
    assert sel.privacy_event_.epsilon == 1.0
    assert set(sel.predict(frame)) <= {"no", "yes"}
    assert sel.n_features_in_ == 3 and list(sel.feature_names_in_) == [
        "a",
        "c",
        "extra",
    ]


def test_noise_matched_transfer_finds_the_step_parameter():
    sel = PrivateSelectThenFit(_pipe(SchemaTransformer(SCHEMA)), GRID, epsilon=1.0)
    grid = [{"dplinearsvc__regularization": 0.01}]
    inner = sel._transfer_grid(grid, 750, 250, 1.0)
    # Equal n·Λ·ε: one candidate, so Algorithm 3 fits it on one of 2 parts of
    # the 250 selection rows (125), standing for the 750 final rows: factor 6.
    assert inner[0]["dplinearsvc__regularization"] == pytest.approx(0.06)


@pytest.mark.parametrize(
    ("step", "name"),
    [
        (StandardScaler(), "standardscaler"),
        (PCA(n_components=2), "pca"),
        (SimpleImputer(), "simpleimputer"),
    ],
)
def test_steps_fitted_on_private_rows_are_refused_before_any_spend(step, name):
    acc = BudgetAccountant(epsilon=1.0)
    X = np.random.default_rng(0).normal(size=(100, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    sel = PrivateSelectThenFit(_pipe(step), GRID, epsilon=1.0, accountant=acc)
    with pytest.raises(TypeError) as info:
        sel.fit(X, y)
    message = str(info.value)
    assert f"step {name!r} ({type(step).__name__})" in message
    assert "PublicStep" in message and "SchemaTransformer" in message
    assert len(acc) == 0 and not hasattr(sel, "best_estimator_")


def test_public_step_keeps_a_transformer_fitted_on_public_data():
    rng = np.random.default_rng(1)
    public = rng.normal(5.0, 2.0, size=(500, 2))
    scaler = StandardScaler().fit(public)
    mean = scaler.mean_.copy()
    X = rng.normal(50.0, 9.0, size=(600, 2))  # private rows, far from public
    y = np.where(X[:, 0] > 50, "yes", "no")
    pipe = make_pipeline(
        PublicStep(scaler),
        PublicStep(FunctionTransformer(np.tanh)),
        DPLinearSVC(classes=["no", "yes"]),
    )
    sel = PrivateSelectThenFit(pipe, GRID, epsilon=1.0, random_state=0).fit(X, y)
    used = sel.best_estimator_.steps[0][1].transformer_
    assert used is scaler and np.array_equal(used.mean_, mean)  # not refitted


@pytest.mark.parametrize("key", ["dplinearsvc__epsilon", "dplinearsvc__accountant"])
def test_privacy_parameters_of_the_final_step_are_not_a_grid(key):
    frame, y = _table(200, 2)
    with pytest.raises(ValueError, match="may not contain"):
        PrivateSelectThenFit(_pipe(SchemaTransformer(SCHEMA)), {key: [1.0]}).fit(
            frame, y
        )


def test_plain_names_on_a_pipeline_are_told_the_step_form():
    frame, y = _table(200, 3)
    with pytest.raises(ValueError, match="dplinearsvc__regularization"):
        PrivateSelectThenFit(
            _pipe(SchemaTransformer(SCHEMA)), {"regularization": [0.1]}
        ).fit(frame, y)


def test_final_step_without_epsilon_is_refused():
    from sklearn.linear_model import LogisticRegression

    frame, y = _table(200, 3)
    pipe = make_pipeline(SchemaTransformer(SCHEMA), LogisticRegression())
    with pytest.raises(TypeError, match="final step 'logisticregression'"):
        PrivateSelectThenFit(pipe, {"logisticregression__C": [1.0]}).fit(frame, y)


# -- weighted-error: a score with a public sensitivity ----------------------------


def test_weighted_error_known_answer():
    score = resolve_selection_score("weighted-error", PRIORS, DPLinearSVC())
    # w(c) = 1/(K·π_c): 1/(2·0.94) and 1/(2·0.06); Δ = the larger one.
    assert score.weights == pytest.approx({"no": 1 / 1.88, "yes": 1 / 0.12})
    assert score.sensitivity == pytest.approx(25 / 3)
    y = np.array(["no", "no", "yes", "yes", "no"])
    pred = np.array(["no", "yes", "no", "yes", "yes"])
    assert score.mistakes(y, pred) == pytest.approx(2 / 1.88 + 1 / 0.12)
    # As a list, paired with the estimator's public classes.
    same = resolve_selection_score(
        "weighted-error", [0.94, 0.06], DPLinearSVC(classes=["no", "yes"])
    )
    assert same.weights == score.weights
    plain = resolve_selection_score("accuracy", None, DPLinearSVC())
    assert plain.sensitivity == 1.0 and plain.mistakes(y, pred) == 3.0


def test_one_replaced_row_moves_the_weighted_score_by_at_most_the_sensitivity():
    score = SelectionScore({"no": 0.5, "yes": 5.0, "maybe": 2.0})
    rng = np.random.default_rng(4)
    labels = np.array(["no", "yes", "maybe", "other"])  # "other": no prior
    worst = 0.0
    for _ in range(300):
        y, p = rng.choice(labels, 30), rng.choice(labels, 30)
        i = rng.integers(30)
        y2, p2 = y.copy(), p.copy()
        y2[i], p2[i] = rng.choice(labels), rng.choice(labels)
        worst = max(worst, abs(score.mistakes(y, p) - score.mistakes(y2, p2)))
    assert worst <= score.sensitivity
    assert worst == pytest.approx(score.sensitivity)  # attained: the bound is tight


def test_exponential_mechanism_gets_the_weighted_sensitivity(monkeypatch):
    seen = []
    original = _sarwate.ExponentialMechanism

    def spy(**kw):
        seen.append(kw["sensitivity"])
        return original(**kw)

    monkeypatch.setattr(_sarwate, "ExponentialMechanism", spy)
    frame, y = _table(600, 5)
    for scoring, priors in (("accuracy", None), ("weighted-error", PRIORS)):
        PrivateParameterTuning(
            _pipe(SchemaTransformer(SCHEMA)),
            GRID,
            scoring=scoring,
            class_priors=priors,
            random_state=0,
        ).fit(frame, y)
    assert seen == [1.0, pytest.approx(25 / 3)]


@pytest.mark.parametrize(
    ("scoring", "priors", "match"),
    [
        ("weighted-error", None, "needs public class priors"),
        ("weighted-error", {"no": 0.5, "yes": 0.4}, "must sum to 1"),
        ("weighted-error", {"no": 1.0, "yes": 0.0}, r"in \(0, 1\]"),
        ("accuracy", PRIORS, "'weighted-error' only"),
    ],
)
def test_bad_priors_are_refused_before_any_spend(scoring, priors, match):
    acc = BudgetAccountant(epsilon=1.0)
    frame, y = _table(200, 6)
    with pytest.raises(ValueError, match=match):
        PrivateSelectThenFit(
            _pipe(SchemaTransformer(SCHEMA)),
            GRID,
            scoring=scoring,
            class_priors=priors,
            accountant=acc,
        ).fit(frame, y)
    assert len(acc) == 0


def test_priors_are_read_from_the_schema_label_when_declared():
    # The schema format gains label.priors in issue 23 item 2; the selectors
    # read it through getattr, paired with the schema's classes.
    schema = PublicSchema.from_dict(SCHEMA.to_dict())
    label = SimpleNamespace(column="y", classes=("no", "yes"), priors=(0.94, 0.06))
    object.__setattr__(schema, "label", label)
    score = resolve_selection_score(
        "weighted-error", None, _pipe(SchemaTransformer(schema))
    )
    assert score.weights == pytest.approx({"no": 1 / 1.88, "yes": 1 / 0.12})
    with pytest.raises(ValueError, match="needs public class priors"):
        resolve_selection_score(
            "weighted-error", None, _pipe(SchemaTransformer(SCHEMA))
        )


def test_weighted_error_selects_models_that_predict_both_classes():
    # About 8 % positives. Accuracy may prefer a constant "no" (a large Λ);
    # the weighted error, with public priors, prefers a model that finds
    # positives. Seeded runs (the measurement over 20 CSPRNG runs on Adult is
    # benchmarks/bench_imbalanced_tuning.py, docs/selection.md).
    frame, y = _table(3000, 7, positive=0.06)
    test, _ = _table(2000, 8, positive=0.06)
    grid = {"dplinearsvc__regularization": [1e-3, 1e-2, 1e-1, 1.0, 10.0]}
    both = {}
    for scoring, priors in (("accuracy", None), ("weighted-error", PRIORS)):
        both[scoring] = 0
        for seed in range(5):
            sel = PrivateSelectThenFit(
                _pipe(SchemaTransformer(SCHEMA)),
                grid,
                epsilon=2.0,
                scoring=scoring,
                class_priors=priors,
                random_state=seed,
            ).fit(frame, y)
            both[scoring] += set(sel.predict(test)) == {"no", "yes"}
    assert both["weighted-error"] == 5
    assert both["accuracy"] <= both["weighted-error"]
