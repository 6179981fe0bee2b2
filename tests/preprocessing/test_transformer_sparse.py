# SPDX-License-Identifier: BSD-3-Clause
"""SchemaTransformer's CSR output: same values as dense, the public "auto" rule,
and CSR kept sparse into the private estimators."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.pipeline import make_pipeline

from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.preprocessing import PublicSchema, SchemaTransformer
from dpsvm.preprocessing._transformer import sparse_by_default

LEVELS = [f"v{k}" for k in range(8)]

#: One-hot dominated: 2 numeric + 3 groups of 8 = 26 columns, ≤ 5 non-zeros a row.
WIDE = {
    "label": {"column": "y", "classes": ["no", "yes"]},
    "features": [
        {"column": "a", "type": "numeric", "lower": 0, "upper": 10},
        *(
            {"column": f"c{j}", "type": "categorical", "categories": LEVELS}
            for j in range(3)
        ),
        {"column": "b", "type": "numeric", "lower": -1, "upper": 1},
    ],
}

#: Numeric dominated: 3 features, 4 columns.
NARROW = {
    "label": {"column": "y", "classes": ["no", "yes"]},
    "features": [
        {"column": "a", "type": "numeric", "lower": 0, "upper": 10},
        {"column": "b", "type": "numeric", "lower": -1, "upper": 1},
        {"column": "c0", "type": "categorical", "categories": ["v0", "v1"]},
    ],
}


def _table(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.uniform(-2, 12, n),  # some values outside the public range
            "b": rng.uniform(-1, 1, n),
            **{f"c{j}": rng.choice([*LEVELS, "other"], n) for j in range(3)},
        }
    )
    frame.loc[::7, "a"] = np.nan  # missing numbers: the middle of the range
    frame.loc[::5, "c1"] = None  # missing categories: all zeros
    frame.loc[::11, "b"] = 0.0  # an encoded value of exactly zero
    score = (frame["c0"].isin(LEVELS[:4])).astype(float) + frame["b"]
    y = np.where(score > 0.8, "yes", "no")
    return frame, y


@pytest.mark.parametrize("unit_norm", [False, True])
def test_csr_holds_the_dense_values(unit_norm):
    frame, _ = _table(300, 0)
    dense = SchemaTransformer(WIDE, unit_norm=unit_norm, sparse_output=False)
    csr = SchemaTransformer(WIDE, unit_norm=unit_norm, sparse_output=True)
    D = dense.fit_transform(frame)
    S = csr.fit_transform(frame)
    assert isinstance(D, np.ndarray) and sp.issparse(S) and S.format == "csr"
    assert S.dtype == np.float64 and S.has_canonical_format
    np.testing.assert_array_equal(S.toarray(), D)  # value for value
    assert S.nnz == np.count_nonzero(D)  # zeros are not stored
    bound = dense.row_norm_bound_
    assert np.all(sp.linalg.norm(S, axis=1) <= bound * (1 + 1e-12))


def test_auto_is_a_rule_on_the_schema_alone():
    wide, narrow = PublicSchema.from_dict(WIDE), PublicSchema.from_dict(NARROW)
    # ≤ 1 non-zero per feature: 5/26 ≤ 1/4 is sparse, 3/4 is not.
    assert sparse_by_default(wide) and not sparse_by_default(narrow)
    frame, _ = _table(50, 1)
    assert sp.issparse(SchemaTransformer(WIDE).fit_transform(frame))
    assert isinstance(SchemaTransformer(NARROW).fit_transform(frame), np.ndarray)
    # The same choice whatever the rows hold (all missing, or all zeros).
    empty = frame.assign(**{f"c{j}": None for j in range(3)})
    assert sp.issparse(SchemaTransformer(WIDE).fit(empty).transform(empty))


def test_data_frame_output_and_bad_values():
    frame, _ = _table(20, 2)
    out = SchemaTransformer(WIDE).set_output(transform="pandas").fit_transform(frame)
    assert isinstance(out, pd.DataFrame) and out.shape == (20, 26)
    with pytest.raises(ValueError, match="outputs a scipy sparse matrix"):
        SchemaTransformer(WIDE, sparse_output=True).set_output(
            transform="pandas"
        ).fit_transform(frame)
    with pytest.raises(ValueError, match='sparse_output must be "auto", True or'):
        SchemaTransformer(WIDE, sparse_output="yes").fit(frame)


@pytest.mark.parametrize("Estimator", [DPLinearSVC, DPLogisticRegression])
def test_sparse_fit_equals_dense_fit(Estimator):
    frame, y = _table(600, 3)
    schema = PublicSchema.from_dict(WIDE)
    X_dense = SchemaTransformer(schema, sparse_output=False).fit_transform(frame)
    X_csr = SchemaTransformer(schema, sparse_output=True).fit_transform(frame)
    kw = dict(
        epsilon=2.0,
        classes=["no", "yes"],
        data_norm=schema.row_norm_bound,
        regularization=0.01,
        random_state=5,
    )
    dense = Estimator(**kw).fit(X_dense, y)
    csr = Estimator(**kw).fit(X_csr, y)
    # The same seeded noise; the solvers agree to their tolerance.
    np.testing.assert_allclose(csr.coef_, dense.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(csr.intercept_, dense.intercept_, atol=1e-6)
    assert np.array_equal(csr.predict(X_csr), dense.predict(X_dense))


def test_pipeline_passes_csr_to_the_estimator(monkeypatch):
    frame, y = _table(400, 4)
    seen = []
    original = DPLinearSVC.fit

    def spy(self, X, y):
        seen.append(sp.issparse(X))
        return original(self, X, y)

    monkeypatch.setattr(DPLinearSVC, "fit", spy)
    schema = PublicSchema.from_dict(WIDE)
    pipe = make_pipeline(
        SchemaTransformer(schema),
        DPLinearSVC(
            epsilon=1.0, classes=["no", "yes"], data_norm=schema.row_norm_bound
        ),
    ).fit(frame, y)
    assert seen == [True]
    assert set(pipe.predict(frame)) <= {"no", "yes"}
