# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the nested-balls generator (Chaudhuri et al. 2011, Sec. 6)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpsvm.datasets import make_nested_balls

N = 100_000
ALPHA = 1e-3
# Binomial tolerance: 5 standard deviations (two-sided p about 6e-7).
Z = 5.0


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, y = make_nested_balls(N, random_state=12345)
    return X, y, np.linalg.norm(X, axis=1)


def _within_binomial(count: int, n: int, p: float) -> bool:
    return abs(count - n * p) <= Z * np.sqrt(n * p * (1 - p))


def test_shape_dtype_labels(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    X, y, _ = data
    assert X.shape == (N, 5) and X.dtype == np.float64
    assert y.shape == (N,) and y.dtype.kind == "i"
    assert set(np.unique(y)) == {-1, 1}


def test_default_size() -> None:
    X, y = make_nested_balls(random_state=0)
    assert X.shape == (240_000, 5) and y.shape == (240_000,)


def test_radii_per_component(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, y, r = data
    eps = 1e-12
    assert r.max() <= 0.5 + eps
    # +1 only from the ball r <= 0.1 and the shell 0.1..0.2; -1 only from the
    # shells 0.1..0.2 and 0.2..0.5.
    assert r[y == 1].max() <= 0.2 + eps
    assert r[y == -1].min() >= 0.1 - eps
    # The gap-free structure: every region is populated.
    assert (r < 0.1).any() and ((r > 0.1) & (r < 0.2)).any() and (r > 0.2).any()


def test_component_proportions(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, y, r = data
    inner, middle, outer = r < 0.1, (r >= 0.1) & (r <= 0.2), r > 0.2
    assert _within_binomial(int(inner.sum()), N, 0.45)
    assert _within_binomial(int(middle.sum()), N, 0.10)
    assert _within_binomial(int(outer.sum()), N, 0.45)
    # Inner ball all +1, outer shell all -1, middle shell +-1 with prob 1/2.
    assert np.all(y[inner] == 1) and np.all(y[outer] == -1)
    assert _within_binomial(int((y[middle] == 1).sum()), int(middle.sum()), 0.5)


def test_inner_radial_cdf(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, _, r = data
    inner = r[r < 0.1]
    # Uniform in volume in the ball of radius 0.1 in R^5: P(R <= r) = (r / 0.1)^5.
    res = stats.kstest(inner, lambda t: np.clip(t / 0.1, 0, 1) ** 5)
    assert res.pvalue > ALPHA


def test_outer_radial_cdf(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, _, r = data
    outer = r[r > 0.2]
    # Uniform on the shell 0.2 <= r <= 0.5: P(R <= r) = (r^5 - 0.2^5)/(0.5^5 - 0.2^5).
    res = stats.kstest(outer, lambda t: (t**5 - 0.2**5) / (0.5**5 - 0.2**5))
    assert res.pvalue > ALPHA
    # Not uniform in radius (which would be the wrong construction).
    assert stats.kstest(outer, stats.uniform(0.2, 0.3).cdf).pvalue < ALPHA


def test_directions_isotropic(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    X, _, r = data
    U = X / r[:, None]
    # For a uniform direction in R^5, E[u] = 0 and E[u u^T] = I / 5; each
    # coordinate has variance 1/5, so the mean has standard error sqrt(1/(5N)).
    assert np.all(np.abs(U.mean(axis=0)) <= Z * np.sqrt(1 / (5 * N)))
    cov = U.T @ U / N
    # Var(u_i^2) = E[u_i^4] - 1/25 = 3/35 - 1/25 for d = 5.
    se = np.sqrt((3 / 35 - 1 / 25) / N)
    assert np.all(np.abs(np.diag(cov) - 0.2) <= Z * se)


def test_bayes_rule_error(data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    _, y, r = data
    # Bayes rule: +1 for r < 0.1, -1 for r > 0.2, anything in between; its error
    # is 0.1 * 1/2 = 0.05. "+1 iff r < 0.15" is one such rule.
    errors = int((np.where(r < 0.15, 1, -1) != y).sum())
    assert _within_binomial(errors, N, 0.05)


def test_other_dimension() -> None:
    X, y = make_nested_balls(20_000, n_features=2, random_state=7)
    r = np.linalg.norm(X, axis=1)
    assert X.shape == (20_000, 2)
    # In R^2 the inner radius has CDF (r / 0.1)^2.
    res = stats.kstest(r[r < 0.1], lambda t: np.clip(t / 0.1, 0, 1) ** 2)
    assert res.pvalue > ALPHA
    assert np.all(y[r < 0.1] == 1)


def test_reproducible_and_seed_sensitive() -> None:
    a = make_nested_balls(500, random_state=3)
    b = make_nested_balls(500, random_state=3)
    c = make_nested_balls(500, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_generator_accepted() -> None:
    rng = np.random.default_rng(0)
    X, _ = make_nested_balls(10, random_state=rng)
    assert X.shape == (10, 5)


@pytest.mark.parametrize(
    ("kwargs", "err"),
    [
        ({"n_samples": 0}, ValueError),
        ({"n_samples": 2.5}, TypeError),
        ({"n_samples": True}, TypeError),
        ({"n_samples": 5, "n_features": 0}, ValueError),
        ({"n_samples": 5, "n_features": 1.0}, TypeError),
    ],
)
def test_validation(kwargs: dict[str, object], err: type[Exception]) -> None:
    with pytest.raises(err):
        make_nested_balls(**kwargs)  # type: ignore[arg-type]
