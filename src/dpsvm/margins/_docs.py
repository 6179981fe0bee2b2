# SPDX-License-Identifier: BSD-3-Clause
"""numpydoc fragments shared by the margin learners' docstrings."""

from __future__ import annotations

from ..utils._docs import COMMON_FRAGMENTS, fill_doc

_RANDOM_STATE = """random_state : None or int, default=None
    ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
    documentation only. A generator object is refused at ``fit`` (kept as a
    parameter, it would replay the noise)."""

#: numpydoc fragments shared by the margin learners' docstrings
#: (``%(name)s`` lines, filled by :func:`margin_doc`).
DOC_FRAGMENTS = {
    **COMMON_FRAGMENTS,
    "jl_fitted": """n_components_ : int
    The dimension actually used, min(k, d).
identity_ : bool
    Whether Φ is the identity.
n_features_in_ : int
    The input width d.""",
    "gem_scores": """scores : array-like of shape (K,)
    The scores qⱼ to minimize.""",
    "gem_scores_to_array": """Parameters
----------
scores : array-like of shape (K,)
    The scores qⱼ to minimize.

Returns
-------
ndarray of shape (K,)""",
    "scores_labels": """scores : array-like of shape (m,)
    Real scores h(xᵢ).
y : array-like of shape (m,)
    Labels in {−1, +1}.""",
    "classes": """classes : array-like of 2 labels, default=None
    The public label set; ``None`` reads it from the data and emits a
    :class:`~dpsvm.exceptions.PrivacyLeakWarning`.""",
    "accountant": """accountant : BudgetAccountant or None, default=None
    Budget to check before the data are read and charge after a successful
    fit. Shared by clones (it is not copied).""",
    "random_state": _RANDOM_STATE,
    "intercept": """fit_intercept : bool, default=False
    Fit an intercept: each row is projected onto B(√(r² − s²)) and given the
    constant public coordinate s = ``intercept_scaling``·r, so augmented rows
    stay in B(r) and every calibration keeps the public bound r; the
    intercept adds at most s to a row's norm. ``intercept_`` is the weight of
    that coordinate times s.
intercept_scaling : float, default=0.5
    s/r ∈ (0, 1).""",
    "ovr_attributes": """intercept_ : float or ndarray of shape (n_classes,)
    The intercept (0 without ``fit_intercept``).
estimators_ : list of estimators
    With more than 2 classes only: the K binary one-vs-rest learners (each
    fitted at (ε/K, δ/K) on the augmented rows; see their attributes);
    ``coef_`` then has one row per class.""",
    "erm_rows": """X : array-like of shape (m, k)
    Rows; each is projected onto the ball of radius ``data_norm``.
y : array-like of shape (m,)
    Labels in {−1, +1}.""",
    "erm_ball": """radius : float
    Λ_W, the radius of the constraint ball.
data_norm : float
    r̃, the public row-norm bound.""",
    "jl_coef": """coef_ : ndarray of shape (n_features_in_,)
    w = Φᵀw̃, the released weights on the input features.
compressed_coef_ : ndarray of shape (n_components_,)
    w̃, the private solution in the k-dimensional JL space.""",
    "label_attributes": """classes_ : ndarray of shape (2,)
    The labels.
n_features_in_ : int
    Input width.""",
}

# The last parameters of the candidate-selection learners
# (:class:`~dpsvm.margins._base.CandidateSelectionParams`), which draw their
# public objects from ``random_state`` first.
DOC_FRAGMENTS["selection_params"] = "\n".join(
    [
        """max_candidates : int, default=200000
    Largest cover built; a larger one is refused before any score is computed
    (before the data are read where its size does not depend on them).
selection : {"exponential", "permute-and-flip"}, default="exponential"
    The pure-DP selection mechanism.
beta : float, default=0.05
    β of the theory dimension.""",
        DOC_FRAGMENTS["classes"],
        DOC_FRAGMENTS["accountant"],
        _RANDOM_STATE
        + """ The JL maps and the candidates come from a public
    seed drawn from it before the data are read.""",
    ]
)

# The problem of the ρ-hinge solvers (phased SGD and Algorithm 5): the rows,
# the margin ρ and the two balls.
DOC_FRAGMENTS["erm_rho_problem"] = "\n".join(
    [
        DOC_FRAGMENTS["erm_rows"],
        """rho : float
    The margin ρ > 0 of the ρ-hinge.""",
        DOC_FRAGMENTS["erm_ball"],
    ]
)

margin_doc = fill_doc(DOC_FRAGMENTS)
