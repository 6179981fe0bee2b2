# SPDX-License-Identifier: BSD-3-Clause
"""numpydoc fragments shared by the private prediction learners' docstrings."""

from __future__ import annotations

from ..utils._docs import fill_doc

_KERNEL_BOUND = """kernel_bound : float or None, default=None
    R_φ of a callable kernel (required for one, refused otherwise)."""

_REGULARIZATION = """regularization : float, default=0.01
    λ > 0 of (λ/2)‖w‖² (public, not tuned on the data)."""

_MODEL_ATTRIBUTES = """classes_ : ndarray
    The label set.
kappa_ : float
    R_φ on the declared domain.
prediction_sensitivity_ : float
    S = 2LR_φ²/(λn) plus the solver-certificate margin."""

#: numpydoc fragments shared by the prediction learners (``%(name)s`` lines).
DOC_FRAGMENTS = {
    "kernel_family": """    K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²), (γ⟨x, y⟩ + c₀)^p, or a
    callable ``K(A, B) -> gram`` with ``kernel_bound`` declared.
gamma : float, default=1.0
    γ > 0 (rbf, poly), fixed before seeing the data.
degree : int, default=3
    p (poly).
coef0 : float, default=1.0
    c₀ ≥ 0 (poly).""",
    "kernel_bound": _KERNEL_BOUND,
    "regularization": _REGULARIZATION,
    # The last parameters of the two learners that release a model on public
    # points (Jain & Thakurta Alg. 2 and 3), and their first attributes.
    "public_model_tail": _KERNEL_BOUND
    + "\n"
    + _REGULARIZATION
    + """
accountant : BudgetAccountant or None, default=None
    Checked for (ε, δ) before the training data are read
    (:func:`dpsvm.accounting.charge`) and charged ``privacy_event_`` once,
    after a successful fit; a failed fit spends nothing.
classes : array-like or None, default=None
    The public label set (two labels); ``None`` reads it from y with a
    :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
random_state : None or int, default=None
    ``None``: CSPRNG noise (real use). An int: **tests and docs only**. A
    generator object is refused at ``fit`` (kept as a parameter, it would
    replay the noise).""",
    "model_attributes": _MODEL_ATTRIBUTES,
    "public_model_attributes": _MODEL_ATTRIBUTES
    + """
lipschitz_ : float
    L = 1 (hinge).
privacy_event_ : PrivacyEvent
    The record of the release.
n_features_in_ : int
    Number of input features.""",
    "fit_private_rows": """Parameters
----------
X : array-like of shape (n_samples, n_features)
    Private training rows (projected onto the declared domain).
y : array-like of shape (n_samples,)
    Private labels (two classes).""",
    "returns_released": """Returns
-------
self
    The released classifier.""",
    "example_data": """>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1, 1, size=(300, 2)) / 2
>>> y = np.where(X[:, 0] > 0, 1, -1)""",
    "queries_to_array": """Parameters
----------
X : array-like of shape (n_queries, n_features)
    Query points (projected onto the declared domain).

Returns
-------
ndarray of shape (n_queries,)""",
}

prediction_doc = fill_doc(DOC_FRAGMENTS)
