# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic high-dimensional data for the margin-learner experiments.

Two generators, both with rows in the unit ball (a public bound r = 1):

* :func:`make_planted_margin` — dense d ≫ n data that a unit vector w* separates
  with margin γ: yᵢ⟨w*, xᵢ⟩ ≥ γ for every row.
* :func:`make_sparse_text` — a bag-of-words-like sparse set: Zipf background
  vocabulary plus class-specific words, log(1 + count) weights, rows normalised.

The randomness only makes test data (it protects no one), so ordinary seeded
generators are used.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

__all__ = ["make_planted_margin", "make_sparse_text"]


def make_planted_margin(
    n_samples: int,
    n_features: int,
    *,
    margin: float = 0.2,
    random_state: int = 0,
    dtype: type = np.float64,
) -> tuple[NDArray[np.floating], NDArray[np.int64], NDArray[np.float64]]:
    """Rows of norm 1 separated by a random unit vector w* with margin γ.

    xᵢ = aᵢ·w* + √(1 − aᵢ²)·vᵢ with vᵢ a uniformly random unit vector orthogonal
    to w*, yᵢ uniform on {−1, +1} and aᵢ = yᵢ·(γ + (1 − γ)·Bᵢ), Bᵢ ~ Beta(1, 4):
    so ‖xᵢ‖ = 1 and yᵢ⟨w*, xᵢ⟩ = |aᵢ| ≥ γ, and most rows sit near the margin.

    Parameters
    ----------
    n_samples : int
        Number of rows.
    n_features : int
        Dimension d.
    margin : float, default=0.2
        The planted margin γ ∈ (0, 1).
    random_state : int, default=0
        Seed (the direction w* depends on it only, so train and test sets drawn
        with the same seed share w* when generated in one call and split).
    dtype : type, default=numpy.float64
        Dtype of X.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Rows of norm 1.
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    w_star : ndarray of shape (n_features,)
        The separating unit vector.
    """
    rng = np.random.default_rng(random_state)
    w = rng.standard_normal(n_features)
    w /= np.linalg.norm(w)
    y = np.where(rng.random(n_samples) < 0.5, -1, 1).astype(np.int64)
    a = y * (margin + (1.0 - margin) * rng.beta(1.0, 4.0, n_samples))
    X = np.empty((n_samples, n_features), dtype=dtype)
    block = 1024
    for s in range(0, n_samples, block):
        V = rng.standard_normal((min(block, n_samples - s), n_features))
        V -= np.outer(V @ w, w)
        V /= np.linalg.norm(V, axis=1, keepdims=True)
        aa = a[s : s + block, None]
        X[s : s + block] = aa * w + np.sqrt(1.0 - aa * aa) * V
    return X, y, w


def make_sparse_text(
    n_samples: int,
    n_features: int = 20000,
    *,
    doc_length: int = 100,
    topic_words: int = 100,
    topic_share: float = 0.3,
    random_state: int = 0,
) -> tuple[sp.csr_matrix, NDArray[np.int64]]:
    """Sparse bag-of-words-like rows (unit norm) with two classes.

    Each document has ``doc_length`` tokens: a share ``topic_share`` from its
    class's ``topic_words`` words (uniform), the rest from a Zipf(1.1) law over
    the whole vocabulary. Weights log(1 + count), rows divided by their norm.
    The classes' word lists are fixed by the seed and disjoint.

    Parameters
    ----------
    n_samples : int
        Number of documents.
    n_features : int, default=20000
        Vocabulary size d.
    doc_length : int, default=100
        Tokens per document.
    topic_words : int, default=100
        Words specific to each class.
    topic_share : float, default=0.3
        Expected share of class-specific tokens.
    random_state : int, default=0
        Seed.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Rows of norm 1.
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    """
    rng = np.random.default_rng(random_state)
    vocab = np.arange(1, n_features + 1, dtype=np.float64)
    p = vocab**-1.1
    p /= p.sum()
    topics = rng.permutation(n_features)[: 2 * topic_words].reshape(2, topic_words)
    y = np.where(rng.random(n_samples) < 0.5, -1, 1).astype(np.int64)
    n_topic = rng.binomial(doc_length, topic_share, n_samples)
    rows, cols = [], []
    for i in range(n_samples):
        words = np.concatenate(
            [
                rng.choice(n_features, doc_length - n_topic[i], p=p),
                rng.choice(topics[(y[i] + 1) // 2], n_topic[i]),
            ]
        )
        rows.append(np.full(words.size, i))
        cols.append(words)
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    X = sp.csr_matrix(
        (np.ones(r.size), (r, c)), shape=(n_samples, n_features), dtype=np.float64
    )
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / norms) @ X)
    return X, y
