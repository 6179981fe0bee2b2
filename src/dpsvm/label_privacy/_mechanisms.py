# SPDX-License-Identifier: BSD-3-Clause
"""Label randomisers: k-ary randomized response and RR with a prior.

Both act on one label at a time and are ε-DP for that label (local
randomisers), so a vector of labels randomised once each is ε-label-DP
(parallel composition over the rows).

* :func:`randomized_response`: k-ary randomized response (Warner 1965; the
  ε-DP calibration of Kairouz, Oh & Viswanath 2016): keep the label with
  probability e^ε/(e^ε + K − 1), else output one of the K − 1 other labels
  uniformly. It is RRTop-k with k = K.
* :func:`rr_with_prior`: RRWithPrior of Ghazi, Golowich, Kumar, Manurangsi &
  Zhang, "Deep Learning with Label Differential Privacy", NeurIPS 2021,
  Algorithm 2, built on their RRTop-k (Algorithm 1, ε-DP by their Lemma 1):
  given a prior p over the labels that does not depend on the label being
  randomised, choose k* = argmax_k (Σ of the k largest p) · e^ε/(e^ε + k − 1)
  and run RRTop-k* on the k* most likely labels.

Labels are integer codes 0, ..., K − 1 here; the estimator maps classes to codes.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "randomized_response",
    "rr_keep_probability",
    "rr_top_k_distribution",
    "rr_with_prior",
    "rr_with_prior_top_k",
]

_REFERENCE_RR = (
    "k-ary randomized response (Warner 1965), keep probability e^eps/(e^eps+K-1) "
    "(Kairouz, Oh & Viswanath 2016, Sec. 4); = RRTop-k with k = K of Ghazi et al. "
    "2021, Algorithm 1, eps-DP by their Lemma 1"
)
_REFERENCE_PRIOR = (
    "Ghazi, Golowich, Kumar, Manurangsi & Zhang, 'Deep Learning with Label "
    "Differential Privacy', NeurIPS 2021: RRWithPrior (Algorithm 2) on RRTop-k "
    "(Algorithm 1, eps-DP by Lemma 1), multi-stage training LP-MST (Algorithm 3) "
    "with disjoint stages"
)


def rr_keep_probability(epsilon: float, k: int) -> float:
    """Probability that RRTop-k (k ≥ 1 candidates) outputs the true label.

    e^ε/(e^ε + k − 1) (Ghazi et al. 2021, Algorithm 1; k = K is k-ary
    randomized response). Written as 1/(1 + (k − 1)e^{−ε}) so that a large ε
    does not overflow.

    Parameters
    ----------
    epsilon : float
        The ε ≥ 0 of the label.
    k : int
        The number of candidate labels (≥ 1).

    Returns
    -------
    float
        The keep probability; 1 for k = 1.

    Examples
    --------
    >>> round(rr_keep_probability(1.0, 2), 6)  # e / (e + 1)
    0.731059
    >>> rr_keep_probability(0.0, 4)
    0.25
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}.")
    return 1.0 / (1.0 + (k - 1) * math.exp(-float(epsilon)))


def rr_with_prior_top_k(prior: ArrayLike, epsilon: float) -> NDArray[np.intp]:
    """The k* of RRWithPrior for each row of ``prior`` (Ghazi et al. 2021, Alg. 2).

    k* = argmax_k w_k, w_k = (Σ of the k largest prior probabilities) ·
    e^ε/(e^ε + k − 1); ties go to the smallest k.

    Parameters
    ----------
    prior : array-like of shape (n_samples, n_classes)
        Each row a probability vector over the labels, computed without the
        row's own label.
    epsilon : float
        The ε ≥ 0 of each label.

    Returns
    -------
    ndarray of int, shape (n_samples,)
        k* ∈ {1, ..., n_classes}.

    Examples
    --------
    >>> rr_with_prior_top_k([[0.5, 0.5], [0.9, 0.1]], 1.0).tolist()
    [2, 1]
    """
    P = np.asarray(prior, dtype=np.float64)
    n_classes = P.shape[1]
    cum = np.cumsum(-np.sort(-P, axis=1), axis=1)
    keep = np.array([rr_keep_probability(epsilon, k) for k in range(1, n_classes + 1)])
    return np.argmax(cum * keep, axis=1).astype(np.intp) + 1


def rr_top_k_distribution(
    order: ArrayLike, k: int, epsilon: float, label: int
) -> NDArray[np.float64]:
    """Output distribution of RRTop-k for one label (Ghazi et al. 2021, Alg. 1).

    With Y_k the first ``k`` labels of ``order``: if ``label`` ∈ Y_k, output it
    with probability e^ε/(e^ε + k − 1) and each other member of Y_k with
    1/(e^ε + k − 1); otherwise output a uniform member of Y_k.

    Parameters
    ----------
    order : array-like of int
        All labels, most likely first (by the prior).
    k : int
        Size of the candidate set.
    epsilon : float
        The ε ≥ 0.
    label : int
        The true label.

    Returns
    -------
    ndarray of shape (n_classes,)
        P(output = j) for each label j.

    Examples
    --------
    >>> rr_top_k_distribution([1, 0, 2], 2, math.log(3.0), 2).tolist()
    [0.5, 0.5, 0.0]
    """
    order = np.asarray(order, dtype=np.intp)
    top = order[:k]
    out = np.zeros(order.size)
    if label in top:
        keep = rr_keep_probability(epsilon, k)
        out[top] = (1.0 - keep) / (k - 1) if k > 1 else 0.0
        out[label] = keep
    else:
        out[top] = 1.0 / k
    return out


def _rr_top_k_sample(
    codes: NDArray[np.intp],
    order: NDArray[np.intp],
    k: NDArray[np.intp],
    epsilon: float,
    rng: np.random.Generator,
) -> NDArray[np.intp]:
    """Vectorised RRTop-k: row i runs Algorithm 1 on its first k[i] labels."""
    n = codes.size
    rank = np.argmax(order == codes[:, None], axis=1)  # rank of the true label
    inside = rank < k
    keep = 1.0 / (1.0 + (k - 1) * math.exp(-float(epsilon)))
    u = rng.random(n)
    # A uniform other member of Y_k (label inside) or member of Y_k (outside):
    # rank j uniform in [0, k−1) skipping the true label's rank, or in [0, k).
    span = np.where(inside, k - 1, k)
    j = np.floor(rng.random(n) * np.maximum(span, 1)).astype(np.intp)
    j = np.minimum(j, np.maximum(span - 1, 0))
    j = np.where(inside & (j >= rank), j + 1, j)
    other = order[np.arange(n), j]
    return np.where(inside & (u < keep), codes, other).astype(np.intp)


def randomized_response(
    codes: ArrayLike, n_classes: int, epsilon: float, rng: np.random.Generator
) -> NDArray[np.intp]:
    """k-ary randomized response of each label code (ε-DP per label).

    Keeps a label with probability e^ε/(e^ε + K − 1) and otherwise outputs one
    of the K − 1 other labels uniformly (RRTop-k with k = K, Ghazi et al. 2021,
    Algorithm 1 and Lemma 1).

    Parameters
    ----------
    codes : array-like of int, shape (n_samples,)
        Labels as codes in 0, ..., ``n_classes`` − 1.
    n_classes : int
        K ≥ 2.
    epsilon : float
        The ε ≥ 0 of each label.
    rng : numpy.random.Generator
        The noise source.

    Returns
    -------
    ndarray of int, shape (n_samples,)
        The noisy codes.

    Examples
    --------
    >>> noisy = randomized_response([0, 1] * 500, 2, 50.0, np.random.default_rng(0))
    >>> noisy.tolist() == [0, 1] * 500
    True
    """
    y = np.asarray(codes, dtype=np.intp)
    order = np.broadcast_to(np.arange(n_classes, dtype=np.intp), (y.size, n_classes))
    k = np.full(y.size, n_classes, dtype=np.intp)
    return _rr_top_k_sample(y, order, k, epsilon, rng)


def rr_with_prior(
    codes: ArrayLike, prior: ArrayLike, epsilon: float, rng: np.random.Generator
) -> NDArray[np.intp]:
    """RRWithPrior of each label code (Ghazi et al. 2021, Algorithm 2; ε-DP per label).

    For row i, the labels are ordered by ``prior[i]`` (most likely first, ties
    by code), k* is :func:`rr_with_prior_top_k`, and RRTop-k* (Algorithm 1) is
    run on the k* most likely labels. The prior of a row must not depend on
    that row's label (it may depend on public features and on other rows'
    already randomised labels); the guarantee is then ε-DP for the label
    whatever the prior (Lemma 1 holds for every fixed candidate set).

    Parameters
    ----------
    codes : array-like of int, shape (n_samples,)
        Labels as codes in 0, ..., K − 1.
    prior : array-like of shape (n_samples, K)
        Each row a probability vector over the K labels.
    epsilon : float
        The ε ≥ 0 of each label.
    rng : numpy.random.Generator
        The noise source.

    Returns
    -------
    ndarray of int, shape (n_samples,)
        The noisy codes.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rr_with_prior([0, 1, 1], [[0.95, 0.05]] * 3, 1.0, rng).tolist()
    [0, 0, 0]
    """
    y = np.asarray(codes, dtype=np.intp)
    P = np.asarray(prior, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != y.size:
        raise ValueError(
            f"prior must have one row per label, shape ({y.size}, n_classes); "
            f"got shape {P.shape}."
        )
    if not np.all(np.isfinite(P)) or np.any(P < 0):
        raise ValueError("prior must hold finite, non-negative probabilities.")
    order = np.argsort(-P, axis=1, kind="stable").astype(np.intp)
    k = rr_with_prior_top_k(P, epsilon)
    return _rr_top_k_sample(y, order, k, epsilon, rng)
