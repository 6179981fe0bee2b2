# SPDX-License-Identifier: BSD-3-Clause
"""Out-of-core fits on dask arrays: the same event and model as in memory."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from dpsvm.accounting import BudgetAccountant  # noqa: E402
from dpsvm.exceptions import PrivacyLeakWarning  # noqa: E402
from dpsvm.models import DPLinearSVC, DPLogisticRegression  # noqa: E402
from dpsvm.solvers import _dask as dask_module  # noqa: E402
from dpsvm.solvers import _erm as erm_module  # noqa: E402
from dpsvm.solvers import _newton as newton_module  # noqa: E402

N, D, CHUNK = 2000, 5, 500


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, D)) * 0.8  # about a third of the rows clipped
    y = np.where(X @ rng.standard_normal(D) + 0.3 * rng.standard_normal(N) > 0, 7, 3)
    return X, y


def _assert_same_event(a, b):  # type: ignore[no-untyped-def]
    for f in dataclasses.fields(a):
        if f.name == "children":
            assert len(a.children) == len(b.children)
            for ca, cb in zip(a.children, b.children, strict=True):
                _assert_same_event(ca, cb)
        else:
            assert getattr(a, f.name) == getattr(b, f.name), f.name


CASES = [
    (DPLogisticRegression, {}),
    (DPLogisticRegression, {"fit_intercept": True, "data_norm": 2.0}),
    (DPLinearSVC, {"loss": "huber", "mechanism": "output"}),
    (DPLinearSVC, {"loss": "huber", "mechanism": "output-laplace", "epsilon": 2.0}),
]


@pytest.mark.parametrize("cls,kwargs", CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dask_fit_gives_the_in_memory_event_and_model(cls, kwargs, dtype):
    X, y = _data()
    X = X.astype(dtype)
    params = {"classes": [3, 7], "random_state": 5, **kwargs}
    ref = cls(**params).fit(X, y)
    Xd = da.from_array(X, chunks=(CHUNK, D))
    clf = cls(**params).fit(Xd, da.from_array(y, chunks=CHUNK))
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    # Same seed, same noise; both minimisers certified to ‖∇J‖ ≤ 1e-10.
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(clf.intercept_, ref.intercept_, atol=1e-9)
    np.testing.assert_array_equal(clf.classes_, ref.classes_)
    assert clf.n_features_in_ == D
    assert clf.solver_info_[0]["method"] == "dask-newton"


def test_newton_cg_passes_match(monkeypatch):
    # Large d uses Hessian-vector passes (Newton-CG); forced here on small d.
    monkeypatch.setattr(dask_module, "_DASK_NEWTON_MAX_FEATURES", 2)
    X, y = _data(1)
    params = {"classes": [3, 7], "random_state": 1, "regularization": 1e-3}
    ref = DPLogisticRegression(**params).fit(X, y)
    clf = DPLogisticRegression(**params).fit(da.from_array(X, chunks=(300, D)), y)
    assert clf.solver_info_[0]["method"] == "dask-newton-cg"
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("newton_max", [None, 2])
def test_warm_start_on_a_subset_of_chunks_gives_the_same_fit(monkeypatch, newton_max):
    # Many chunks: first solved on every 2nd chunk, then certified on all rows.
    # The stride is the in-memory warm start's (``_newton._warm_start``); the
    # chunk driver reads it again for its threshold.
    monkeypatch.setattr(newton_module, "_WARM_FACTOR", 2)
    monkeypatch.setattr(dask_module, "_WARM_FACTOR", 2)
    monkeypatch.setattr(dask_module, "_WARM_MIN_CHUNKS", 2)
    if newton_max is not None:
        monkeypatch.setattr(dask_module, "_DASK_NEWTON_MAX_FEATURES", newton_max)
    X, y = _data(7)
    params = {"classes": [3, 7], "random_state": 8, "fit_intercept": True}
    ref = DPLinearSVC(**params).fit(X, y)
    clf = DPLinearSVC(**params).fit(da.from_array(X, chunks=(250, D)), y)
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    assert clf.solver_info_[0]["grad_norm"] <= 1e-10


def test_warm_start_solves_on_every_factor_th_chunk(monkeypatch):
    # One warm start for both drivers: the same solver call on the systematic
    # subsample (every _WARM_FACTOR-th row chunk here), to _WARM_REL_TOL.
    monkeypatch.setattr(newton_module, "_WARM_FACTOR", 2)
    X, y = _data(3)
    yf = np.where(y == 7, 1.0, -1.0)
    design = dask_module.ChunkedDesign(
        da.from_array(X, chunks=(250, D)), 1.0, 1.0, None
    )
    seen = {}

    def solve(D_sub, y_sub, loss, lam, lin, w, tol, max_iter, *, rel_tol):  # type: ignore[no-untyped-def]
        seen.update(X=D_sub.X, y=y_sub, rel_tol=rel_tol)
        return "result"

    zeros = np.zeros(D)
    sub, result = newton_module._warm_start(
        solve, design, da.from_array(yf, chunks=250), None, 0.1, zeros, zeros, 1e-10, 5
    )
    rows = np.concatenate([np.arange(i, i + 250) for i in range(0, N, 500)])
    assert result == "result" and sub.shape == (rows.size, D)
    np.testing.assert_array_equal(seen["X"].compute(), X[rows])
    np.testing.assert_array_equal(seen["y"].compute(), yf[rows])
    assert seen["rel_tol"] == newton_module._WARM_REL_TOL > 0
    # In memory: every 2nd row, through the same helper.
    in_memory = erm_module.as_design(X)
    mem_sub, _ = newton_module._warm_start(
        solve, in_memory, yf, None, 0.1, zeros, zeros, 1e-10, 5
    )
    np.testing.assert_array_equal(mem_sub.toarray(), in_memory.toarray()[::2])
    np.testing.assert_array_equal(seen["y"], yf[::2])


def test_one_vs_rest_and_column_chunks():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((900, 4)) * 0.5
    y = np.argmax(X[:, :3], axis=1)
    params = {"classes": [0, 1, 2], "random_state": 2}
    ref = DPLogisticRegression(**params).fit(X, y)
    clf = DPLogisticRegression(**params).fit(da.from_array(X, chunks=(250, 2)), y)
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)


class _CountingScheduler:
    """The threaded scheduler, recording each compute and the size of its result."""

    def __init__(self) -> None:
        self.computes = 0
        self.largest_result = 0

    def __call__(self, dsk, keys, **kwargs):  # type: ignore[no-untyped-def]
        from dask.threaded import get

        result = get(dsk, keys, **kwargs)
        self.computes += 1
        size = sum(np.asarray(a).nbytes for a in _leaves(result))
        self.largest_result = max(self.largest_result, size)
        return result


def _leaves(obj):  # type: ignore[no-untyped-def]
    if isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _leaves(o)
    else:
        yield obj


def test_rows_are_never_materialised():
    # X is generated chunk by chunk; every pass regenerates each chunk exactly
    # once (nothing of size n is persisted) and only a reduction of at most
    # 1 + d + d² floats (the Newton pass) reaches the client.
    generated = []

    def make(block_info=None):  # type: ignore[no-untyped-def]
        (start, stop), _ = block_info[None]["array-location"]
        generated.append(start)
        rng = np.random.default_rng(start)
        return rng.standard_normal((stop - start, D)) * 0.8

    X = da.map_blocks(make, chunks=((CHUNK,) * 4, (D,)), dtype=np.float64)
    Xmem, _ = _data()
    w_true = np.random.default_rng(9).standard_normal(D)
    y = da.map_blocks(
        lambda x: np.where(x @ w_true > 0, 7, 3), X, drop_axis=1, dtype=np.int64
    )
    sched = _CountingScheduler()
    with dask.config.set(scheduler=sched):
        clf = DPLogisticRegression(classes=[3, 7], random_state=0).fit(X, y)
    assert sched.computes >= 3  # the input check and at least two solver passes
    assert len(generated) == 4 * sched.computes
    d1 = D + 1  # the default intercept column
    assert sched.largest_result <= 8 * (1 + d1 + d1 * d1)
    assert clf.solver_info_[0]["grad_norm"] <= 1e-10
    # The same fit in memory: same event and model.
    Xn = X.compute(scheduler="sync")
    ref = DPLogisticRegression(classes=[3, 7], random_state=0).fit(
        Xn, np.where(Xn @ w_true > 0, 7, 3)
    )
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    del Xmem


def test_distributed_scheduler_gives_the_same_fit():
    distributed = pytest.importorskip("distributed")
    X, y = _data(3)
    params = {"classes": [3, 7], "random_state": 4}
    ref = DPLogisticRegression(**params).fit(X, y)
    with warnings.catch_warnings():
        # The in-process cluster's start-up notices are not the library's.
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        )
        client = distributed.Client(cluster)
    try:
        clf = DPLogisticRegression(**params).fit(da.from_array(X, chunks=(CHUNK, D)), y)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            cluster.close()
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)


def test_unknown_chunk_sizes_are_refused():
    X, y = _data()
    Xd = da.from_array(X, chunks=(CHUNK, D))
    Xu = Xd[da.from_array(y, chunks=CHUNK) > 0]  # boolean mask: unknown n
    with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
        DPLogisticRegression(classes=[3, 7]).fit(Xu, y)


def test_labels_outside_the_public_set_are_refused_without_quoting_them():
    X, y = _data()
    y = y.copy()
    y[1234] = 12345
    with pytest.raises(ValueError, match="not in the public label set") as err:
        DPLogisticRegression(classes=[3, 7]).fit(da.from_array(X, chunks=(CHUNK, D)), y)
    assert "12345" not in str(err.value)


@pytest.mark.parametrize(
    "bad,match",
    [
        ("nan", "NaN or infinity"),
        ("hinge", "smooth loss"),
        ("length", "same number of rows"),
        ("1d", "2-D"),
    ],
)
def test_bad_input_is_refused(bad, match):
    X, y = _data()
    Xd = da.from_array(X, chunks=(CHUNK, D))
    yd = da.from_array(y, chunks=CHUNK)
    budget = BudgetAccountant(epsilon=2.0)
    clf = DPLinearSVC(classes=[3, 7], accountant=budget)
    if bad == "nan":
        X = X.copy()
        X[17, 2] = np.nan
        Xd = da.from_array(X, chunks=(CHUNK, D))
    elif bad == "hinge":
        clf.set_params(loss="hinge", mechanism="output")
    elif bad == "length":
        yd = yd[:-1]
    else:
        Xd = Xd[:, 0]
    with pytest.raises(ValueError, match=match):
        clf.fit(Xd, yd)
    assert budget.ledger == () and budget.remaining() == (2.0, 0.0)  # nothing spent


def test_data_derived_bounds_warn_as_in_memory():
    X, y = _data()
    Xd = da.from_array(X, chunks=(CHUNK, D))
    with pytest.warns(PrivacyLeakWarning) as rec:
        clf = DPLogisticRegression(data_norm=None, classes=None).fit(Xd, y)
    messages = " ".join(str(r.message) for r in rec)
    assert "data_norm" in messages and "classes" in messages
    assert clf.data_norm_ == pytest.approx(np.max(np.linalg.norm(X, axis=1)))
    np.testing.assert_array_equal(clf.classes_, [3, 7])


def test_dask_dataframe_input():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data(5)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(D)])
    params = {"classes": [3, 7], "random_state": 6}
    ref = DPLogisticRegression(**params).fit(frame, y)
    ddf = dd.from_pandas(frame, npartitions=4)
    ys = dd.from_pandas(pd.Series(y), npartitions=4)
    clf = DPLogisticRegression(**params).fit(ddf, ys)
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(clf.feature_names_in_, ref.feature_names_in_)
    np.testing.assert_array_equal(clf.predict(frame), ref.predict(frame))


@pytest.mark.parametrize("classes", [[3, 7], [0, 1, 2]])
def test_prediction_on_dask_arrays_is_lazy_and_matches(classes):
    X, y = _data(8)
    if len(classes) == 3:
        y = np.argmax(X[:, :3], axis=1)
    clf = DPLogisticRegression(classes=classes, random_state=1).fit(X, y)
    Xd = da.from_array(X, chunks=(CHUNK, D))
    scores, labels = clf.decision_function(Xd), clf.predict(Xd)
    assert isinstance(scores, da.Array) and isinstance(labels, da.Array)
    np.testing.assert_allclose(scores.compute(), clf.decision_function(X))
    np.testing.assert_array_equal(labels.compute(), clf.predict(X))


def test_rows_whose_squared_norm_overflows_are_clipped_as_in_memory():
    X, y = _data(9)
    X[[3, 1500]] *= 1e200  # ‖x‖² overflows: projected copy of that chunk only
    params = {"classes": [3, 7], "random_state": 2}
    ref = DPLogisticRegression(**params).fit(X, y)
    clf = DPLogisticRegression(**params).fit(da.from_array(X, chunks=(CHUNK, D)), y)
    _assert_same_event(clf.privacy_event_, ref.privacy_event_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
