# SPDX-License-Identifier: BSD-3-Clause
"""numpydoc fragments shared by the estimators' method docstrings.

A method docstring names a fragment on a line of its own, ``%(name)s``, and
:data:`model_doc` (:func:`dpsvm.utils._docs.fill_doc`) substitutes it at
import time, indented like the marker.
"""

from __future__ import annotations

from ..utils._docs import fill_doc

_ROWS = """Parameters
----------
X : array-like of shape (n_samples, n_features)"""

#: numpydoc fragments of the model family (``%(name)s`` lines).
DOC_FRAGMENTS = {
    # fit of the estimators that release explicit weights.
    "fit_training_rows": _ROWS + "\n    Training rows.",
    "returns_fitted_estimator": """Returns
-------
self
    The fitted estimator.""",
    # fit of the kernel releases (dpsvm.models.kernel_erm.KernelERMBase).
    "fit_kernel_release": _ROWS
    + """
    Training rows (projected onto the domain).
y : array-like of shape (n_samples,)
    Labels (hinge) or real targets.
sample_weight : None, default=None
    Not supported: any other value is refused (docs/privacy.md, "Public
    weights").

Returns
-------
self""",
    # evaluation of a released kernel function at points of the domain.
    "domain_points_to_values": _ROWS
    + """
    Points (projected onto the domain).

Returns
-------
ndarray of shape (n_samples,)""",
    # decision_function of a released linear model.
    "rows_to_scores": _ROWS
    + """
    Rows to score.

Returns
-------
ndarray of shape (n_samples,) or (n_samples, n_classes)
    Scores; one column per class for more than two classes.""",
    # any other per-row map of the released model.
    "rows_to": _ROWS
    + """
    Rows.

Returns
-------""",
    # --- class docstrings -------------------------------------------------
    "random_state_noise": """random_state : None or int, default=None
    ``None``: CSPRNG noise. An int: reproducible noise, **tests and docs
    only**. A generator object is refused at ``fit`` (kept as a parameter,
    it would replay the noise).""",
    # the Attributes of the private linear estimators (DPLinearSVC and
    # DPLogisticRegression).
    "dp_linear_attributes": """\
coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    Released weights on the original feature scale.
intercept_ : ndarray of shape (1,) or (n_classes,)
    Released intercepts (zeros without ``fit_intercept``).
classes_ : ndarray
    The label set.
data_norm_ : float
    The row-norm bound used.
regularization_ : float
    The Λ used (``regularization``, or the value ``"auto"`` resolved to).
privacy_event_ : PrivacyEvent
    Frozen record of the release (mechanism, ε, δ, sensitivity, paper).
solver_info_ : list of dict
    Solver diagnostics (iterations, gradient norm, certificate). Reads the
    data: do not publish.
n_iter_ : ndarray
    Solver iterations per binary problem.
n_features_in_ : int
    Number of features seen in ``fit``.""",
    # the end of the Attributes of an estimator that solved on the data.
    "solver_attributes": """solver_info_ : dict
    Solver diagnostics. Reads the data: do not publish.
n_features_in_ : int
    Number of input features.""",
    # the feature map and release record of the explicit-feature estimators.
    "explicit_feature_attributes": """feature_map_ : transformer or None
    The (copied) feature map.
feature_norm_ : float
    κ used.
privacy_event_ : PrivacyEvent
    Frozen record of the release.""",
    # the first Attributes of a kernel release (KernelERMBase).
    "kernel_release_attributes": """classes_ : ndarray
    The label set (hinge loss).
kappa_ : float
    κ of the kernel on the declared domain.
lipschitz_ : float
    C_L of the loss.""",
    # the References entry of the ERM paper that most estimators cite.
    "reference_cms11": """\
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
   empirical risk minimization", JMLR 12:1069–1109, 2011.""",
    # the start of the Examples of the classifiers shown on the nested-balls
    # demo data (make_nested_balls, 2000 rows).
    "examples_nested_balls": """Examples
--------
>>> from dpsvm.datasets import make_nested_balls
>>> X, y = make_nested_balls(2000, random_state=0)""",
    # the last Attributes of the non-private classifiers.
    "non_private_attributes": """classes_ : ndarray
    The label set.
n_iter_ : ndarray
    Solver iterations per binary problem.
n_features_in_ : int
    Number of input columns.""",
}

model_doc = fill_doc(DOC_FRAGMENTS)
