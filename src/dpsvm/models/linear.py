# SPDX-License-Identifier: BSD-3-Clause
"""Differentially private linear SVM and logistic regression.

Regularisation convention (one public parameter, ``regularization`` = Λ):

    minimise  (1/n) Σᵢ ℓ(yᵢ wᵀxᵢ) + (Λ/2)‖w‖²    (Sarwate et al., arXiv:0912.0071,
                                                 eq. (1))

Conversions (also in docs/conventions.md):

* Rubinstein et al. (arXiv:0911.5708), ½‖w‖² + (C/n)Σℓ:  C = 1/Λ;
* Sarwate et al. (arXiv:0912.0071), (Λ/2)‖f‖² + (1/n)Σℓ:  Λ itself;
* Nie & Wang, (1/m)Σℓ + λ_NW‖f‖²:  λ_NW = Λ/2;
* Jain & Thakurta, (1/n)Σℓ + (λ_JT/2)‖w‖²:  λ_JT = Λ;
* scikit-learn ``LinearSVC`` / ``LogisticRegression`` (``fit_intercept=False``),
  ½‖w‖² + C_sk Σℓ:  C_sk = 1/(nΛ).

The mechanisms, their calibrations and the certified solve that the private
classifiers share are in :mod:`dpsvm.models._linear_mechanisms`.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._compat import Interval, StrOptions, _fit_context
from ..accounting.accountant import BudgetAccountant
from ..losses import Loss, get_loss
from ..perturbation import CERTIFICATE_RTOL as CERTIFICATE_RTOL  # re-exported
from ..utils._types import FloatArray
from ._linear_mechanisms import _DPLinearBase, _solve
from .base import LinearModelBase, PublicParameterFitMixin, reference_label_set
from .base import model_file as _model_file

__all__ = ["DPLinearSVC", "DPLogisticRegression", "NonPrivateLinearClassifier"]


@_model_file("DPLinearSVC")
class DPLinearSVC(_DPLinearBase):
    """Differentially private linear SVM (Huber or hinge loss).

    Solves (1/n)Σℓ(yᵢwᵀxᵢ) + (Λ/2)‖w‖² privately with one of four mechanisms.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the whole fit.
    delta : float or "auto", default=0.0
        δ of the fit; spent by ``mechanism="objective-gaussian"`` only (every
        other mechanism is pure: δ is recorded, not used; ``"auto"`` is 0 for
        them and n^-1.5 for objective-gaussian). A δ ≥ 1/n is refused where it
        is spent (:func:`dpsvm.validation.resolve_delta`).
    mechanism : {"objective", "objective-laplace", "objective-gaussian", \
            "objective-2009", "output", "output-laplace"}, default="objective"
        ``"objective"``: objective perturbation, corrected form of Chaudhuri,
        Monteleoni & Sarwate (JMLR 2011): ε′ = ε − ln(1 + 2c/(nΛ) + c²/(n²Λ²)),
        the Δ fallback when ε′ ≤ 0, noise density ∝ exp(−(ε′/2)‖b‖) and the term
        (1/n)bᵀw. ``"objective-laplace"``: the rank-one Jacobian bound
        ε′ = ε − ln(1 + c/(nΛ)) with i.i.d. Laplace b of scale 2L·B₁/ε′, B₁ the
        public L1 bound of the internal rows (``data_norm_l1``/R plus the
        intercept constant); pure ε-DP, and the better choice at small ε for
        one-hot encoded rows (``dpsvm train --schema`` sets ``data_norm_l1`` to
        min(m, √m·√(R² − s²)) for m schema columns, see
        :func:`dpsvm.perturbation.sparse_rows_l1_bound`).
        ``"objective-gaussian"``: (ε, δ)-DP objective perturbation with Gaussian
        b (Kifer, Smith & Thakurta, COLT 2012, Alg. 1 / Thm 2, replace-one), σ
        the analytic Gaussian calibration at δ/2 (docs/privacy.md §4); needs
        ``delta`` > 0. Both take Λ = ``"auto"`` with f = 0.3.
        ``"objective-2009"``: the self-consistent reading of Sarwate et al.
        as printed, **without the Jacobian correction and not private**, for
        reproducing its tables only. ``"output"``: the sensitivity method, L2
        sensitivity 2LR/(nΛ), Gamma-norm noise. ``"output-laplace"``: Rubinstein
        et al.'s PRIVATESVM-FINITE, per-coordinate Laplace with scale 4LR√F/(nΛε).
    loss : {"huber", "hinge", "logistic"}, default="huber"
        The loss. ``"hinge"`` is refused by the objective mechanisms.
    huber_h : float, default=0.5
        Half-width h of the Huber loss (Sarwate et al., eq. (2)); c = 1/(2h).
    regularization : float or "auto", default="auto"
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖w‖². Rubinstein et al.'s C = 1/Λ; scikit-learn's
        C_sk = 1/(nΛ). ``"auto"`` (the default) resolves in ``fit``, from public
        quantities only, to Λ = R²·max(c/(n(e^{fε_k/2} − 1)), 1/n) with f = 0.1:
        the Λ at which the objective-perturbation correction of Chaudhuri et al.
        (2011, Alg. 2) costs a tenth of ε (ε′ ≥ 0.9ε, never the Δ fallback),
        ≈ 20c/(nε) for small ε — the 1/(nε) scaling of the privacy term of their
        utility bound (Thm 18). n is public under replace-one neighbours; c is
        max(1, the loss's curvature bound) (1 for losses without one); ε_k = ε/K
        under one-vs-rest; R = ``data_norm``. f was tuned on a validation split
        of the Adult training rows and checked on other data (docs/defaults.md).
        The resolved value is ``regularization_``.
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂; longer rows are projected onto the ball. ``None``
        reads it from the data and emits a :class:`~dpsvm.PrivacyLeakWarning`.
    data_norm_l1 : float or None, default=None
        Public bound B₁ on ‖x‖₁ for ``mechanism="objective-laplace"`` (ignored
        by the other mechanisms): after the L2 projection, rows are scaled down
        to ‖x‖₁ ≤ B₁ (a public per-row map). ``None``: no clipping, and the
        calibration uses the Cauchy–Schwarz bound √d·R instead.
    fit_intercept : bool, default=True
        Append a public constant feature s = ``intercept_scaling``·R to every
        row, counted inside the norm bound: the x part is projected onto radius
        √(R² − s²), so ‖[x, s]‖ ≤ R and every calibration holds unchanged with
        d + 1 coordinates. The intercept is w_{d+1}·s/R, regularised like the
        other weights. Cost: the features keep √(1 − (s/R)²) (0.87 at the
        default s/R = 0.5) of their norm budget. On by default because most
        data are not centred (Adult: +0.01–0.02 accuracy, docs/defaults.md).
    intercept_scaling : float, default=0.5
        s/R, in (0, 1).
    classes : array-like or None, default=None
        The public label set. ``None`` reads it from y and emits a
        :class:`~dpsvm.PrivacyLeakWarning`.
    class_weight : dict, "balanced" or None, default=None
        Public weight of each class, multiplying its rows' loss terms (the
        objective stays divided by n): a dict {class: weight} (weights ≥ 0; a
        class not listed weighs 1), or ``"balanced"``: w_c = 1/(k·p_c) from the
        *public* proportions ``class_priors``, never from the private class
        counts (scikit-learn's ``"balanced"``).
    class_priors : array-like of shape (n_classes,) or None, default=None
        Public class proportions p_c (> 0, summing to 1) in the order of
        ``classes``; needed by ``class_weight="balanced"`` only.
    max_weight : float, default=1.0
        Public upper bound on ``sample_weight``: sample weights are clipped to
        [0, max_weight] (never refused). Every sensitivity scales by the public
        W = (largest class weight) × max_weight (recorded in ``privacy_event_``
        as ``details["weight_bound"]``; docs/privacy.md, "Public weights").
    accountant : BudgetAccountant or None, default=None
        Budget to check before and charge after a successful fit. Shared by
        clones (it is not copied).
    tol : float, default=1e-10
        Public tolerance τ on ‖∇J‖₂ that the solver must certify. Objective
        perturbation pays for the residual ‖w − w*‖ ≤ τ/Λ′ (Λ′ the strong
        convexity of the perturbed objective) with 1% of ε and noise of L2
        sensitivity 2τ/Λ′; output perturbation certifies a distance of at most
        1e-3 of its sensitivity whatever ``tol`` is, and charges it. A fit that
        cannot certify its tolerance raises instead of releasing. Recorded in
        ``privacy_event_``.
    max_iter : int, default=200
        Solver iteration cap.
    random_state : None or int, default=None
        ``None`` draws noise from a ChaCha20 CSPRNG keyed by the OS. An int makes
        the noise reproducible — **for tests and documentation only, never for a
        real release**. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).

    Attributes
    ----------
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
        Number of features seen in ``fit``.

    See Also
    --------
    DPLogisticRegression : The same mechanisms with the logistic loss.
    NonPrivateLinearClassifier : The same problem without noise.

    Notes
    -----
    Privacy: neighbouring datasets have the same size n and differ in one record
    (replace-one); features and labels of that record are both protected. The
    guarantee assumes ‖x‖₂ ≤ ``data_norm`` (enforced by projecting longer rows onto
    the ball, a per-row public map; with ``fit_intercept`` the row is [x, s] with
    the public constant s = ``intercept_scaling``·R and x projected onto radius
    √(R² − s²), so the augmented row still has norm ≤ R), labels in the public
    set ``classes``, an
    L-Lipschitz convex loss (L = 1 here) and Λ > 0. ``"objective"``,
    ``"objective-laplace"`` (which also assumes, and enforces by scaling rows
    down, ‖x‖₁ ≤ ``data_norm_l1``) and ``"output"`` give pure ε-DP;
    ``"objective-gaussian"`` gives (ε, δ)-DP; ``"output-laplace"`` gives pure
    ε-DP with the looser constant of Rubinstein et al.; ``"objective-2009"``
    is **not** a DP mechanism (reproduction only). Released: ``coef_``, ``intercept_``,
    ``classes_``; ``solver_info_`` is a diagnostic that reads the data and must not
    be published. With more than two classes, one-vs-rest spends ε/K per class.
    ``n_samples`` is public under replace-one neighbours.

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
       empirical risk minimization", JMLR 12:1069–1109, 2011.
    .. [1] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009.
    .. [2] B. I. P. Rubinstein, P. L. Bartlett, L. Huang, N. Taft, "Learning in a
       large function space: privacy-preserving mechanisms for SVM learning",
       arXiv:0911.5708, 2009.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> X, y = make_nested_balls(2000, random_state=0)
    >>> from dpsvm.models import DPLinearSVC
    >>> clf = DPLinearSVC(epsilon=1.0, classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.privacy_event_.epsilon
    1.0
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **_DPLinearBase._parameter_constraints,
        "loss": [StrOptions({"huber", "hinge", "logistic"})],
        "huber_h": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 0.0,
        mechanism: str = "objective",
        regularization: float | str = "auto",
        data_norm: float | None = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 0.5,
        classes: ArrayLike | None = None,
        tol: float = 1e-10,
        max_iter: int = 200,
        class_weight: dict[Any, float] | str | None = None,
        class_priors: ArrayLike | None = None,
        max_weight: float = 1.0,
        data_norm_l1: float | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        loss: str = "huber",
        huber_h: float = 0.5,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.regularization = regularization
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.class_priors = class_priors
        self.max_weight = max_weight
        self.data_norm_l1 = data_norm_l1
        self.accountant = accountant
        self.random_state = random_state
        self.loss = loss
        self.huber_h = huber_h

    def _get_loss(self) -> Loss:
        return get_loss(self.loss, huber_h=self.huber_h)


@_model_file("DPLogisticRegression")
class DPLogisticRegression(_DPLinearBase):
    """Differentially private logistic regression.

    Solves (1/n)Σ log(1 + e^{−yᵢwᵀxᵢ}) + (Λ/2)‖w‖² privately. With
    ``mechanism="objective"`` this is objective perturbation for the logistic loss
    (Chaudhuri & Monteleoni 2008, in the corrected form of Chaudhuri, Monteleoni &
    Sarwate 2011 with c = 1/4), the private comparator of Sarwate et al.
    (arXiv:0912.0071).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the whole fit.
    delta : float or "auto", default=0.0
        δ of the fit (spent by ``mechanism="objective-gaussian"`` only;
        ``"auto"`` resolves from the public n; δ ≥ 1/n is refused where spent).
    mechanism : {"objective", "objective-laplace", "objective-gaussian", \
            "objective-2009", "output", "output-laplace"}, default="objective"
        See :class:`DPLinearSVC`; ``"objective-2009"`` is not private.
    regularization : float or "auto", default="auto"
        Λ > 0. scikit-learn's ``LogisticRegression`` C_sk = 1/(nΛ). ``"auto"``:
        the public a-priori rule of :class:`DPLinearSVC` (≈ 20/(nε); with
        c = 1/4 the correction costs only about ε/40); resolved value in
        ``regularization_``.
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂ (rows projected onto the ball).
    data_norm_l1 : float or None, default=None
        Public L1 bound of ``mechanism="objective-laplace"`` (see
        :class:`DPLinearSVC`).
    fit_intercept : bool, default=True
        Public constant feature inside the norm bound (see :class:`DPLinearSVC`).
    intercept_scaling : float, default=0.5
        s/R, in (0, 1).
    classes : array-like or None, default=None
        The public label set.
    class_weight : dict, "balanced" or None, default=None
        Public class weights (see :class:`DPLinearSVC`).
    class_priors : array-like of shape (n_classes,) or None, default=None
        Public class proportions in the order of ``classes`` (for
        ``"balanced"``).
    max_weight : float, default=1.0
        Public bound on ``sample_weight`` (clipped to [0, max_weight]); the
        noise scales with W = (largest class weight) × max_weight.
    accountant : BudgetAccountant or None, default=None
        Budget to check before and charge after a successful fit.
    tol : float, default=1e-10
        Public certified solver tolerance, charged in the noise (see
        :class:`DPLinearSVC`).
    max_iter : int, default=200
        Solver iteration cap.
    random_state : None or int, default=None
        ``None``: CSPRNG noise. An int: reproducible noise, **tests and docs
        only**. A generator object is refused at ``fit`` (kept as a parameter,
        it would replay the noise).

    Attributes
    ----------
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
        Number of features seen in ``fit``.

    See Also
    --------
    DPLinearSVC : Huber/hinge losses.

    Notes
    -----
    Privacy: neighbouring datasets have the same size n and differ in one record
    (replace-one); features and labels of that record are both protected. The
    guarantee assumes ‖x‖₂ ≤ ``data_norm`` (enforced by projecting longer rows onto
    the ball, a per-row public map; with ``fit_intercept`` the row is [x, s] with
    the public constant s = ``intercept_scaling``·R and x projected onto radius
    √(R² − s²), so the augmented row still has norm ≤ R), labels in the public
    set ``classes``, an
    L-Lipschitz convex loss (L = 1 here) and Λ > 0. ``"objective"``,
    ``"objective-laplace"`` (which also assumes, and enforces by scaling rows
    down, ‖x‖₁ ≤ ``data_norm_l1``) and ``"output"`` give pure ε-DP;
    ``"objective-gaussian"`` gives (ε, δ)-DP; ``"output-laplace"`` gives pure
    ε-DP with the looser constant of Rubinstein et al.; ``"objective-2009"``
    is **not** a DP mechanism (reproduction only). Released: ``coef_``, ``intercept_``,
    ``classes_``; ``solver_info_`` is a diagnostic that reads the data and must not
    be published. With more than two classes, one-vs-rest spends ε/K per class.
    ``n_samples`` is public under replace-one neighbours.

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni, "Privacy-preserving logistic regression",
       NIPS 2008.
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
       empirical risk minimization", JMLR 12:1069–1109, 2011.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> X, y = make_nested_balls(2000, random_state=0)
    >>> from dpsvm.models import DPLogisticRegression
    >>> clf = DPLogisticRegression(epsilon=0.5, classes=[-1, 1], random_state=0)
    >>> clf.fit(X, y).predict_proba(X[:2]).shape
    (2, 2)
    """

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 0.0,
        mechanism: str = "objective",
        regularization: float | str = "auto",
        data_norm: float | None = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 0.5,
        classes: ArrayLike | None = None,
        tol: float = 1e-10,
        max_iter: int = 200,
        class_weight: dict[Any, float] | str | None = None,
        class_priors: ArrayLike | None = None,
        max_weight: float = 1.0,
        data_norm_l1: float | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.regularization = regularization
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.class_priors = class_priors
        self.max_weight = max_weight
        self.data_norm_l1 = data_norm_l1
        self.accountant = accountant
        self.random_state = random_state

    def _get_loss(self) -> Loss:
        return get_loss("logistic")

    def predict_proba(self, X: ArrayLike) -> FloatArray:
        """Class probabilities σ(score) (one-vs-rest, normalised, for K > 2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
        return self._predict_proba_from_scores(self.decision_function(X))

    def predict_log_proba(self, X: ArrayLike) -> FloatArray:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probabilities.
        """
        return np.log(self.predict_proba(X))


@_model_file("NonPrivateLinearClassifier")
class NonPrivateLinearClassifier(PublicParameterFitMixin, LinearModelBase):
    """The non-private reference: the same bias-free problem, solved exactly.

    Minimises (1/n)Σℓ(yᵢwᵀxᵢ) + (Λ/2)‖w‖² on rows projected onto the ball of
    radius ``data_norm``, with no noise. It is what the private estimators
    approximate, and the baseline in benchmarks and reproductions. **It offers no
    privacy.**

    Parameters
    ----------
    loss : {"huber", "hinge", "logistic"}, default="huber"
        The loss.
    huber_h : float, default=0.5
        Half-width of the Huber loss.
    regularization : float, default=0.01
        Λ > 0.
    data_norm : float or None, default=1.0
        Row-norm bound R (rows projected onto the ball).
    fit_intercept : bool, default=False
        Constant feature inside the norm bound.
    intercept_scaling : float, default=0.5
        s/R, in (0, 1).
    classes : array-like or None, default=None
        Label set (``None``: read from y; no warning, nothing here is private).
    tol : float, default=1e-10
        Solver tolerance.
    max_iter : int, default=200
        Solver iteration cap.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    classes_ : ndarray
        The label set.
    data_norm_ : float
        The row-norm bound used.
    regularization_ : float
        The Λ used.
    n_iter_ : ndarray
        Solver iterations per binary problem.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> X, y = make_nested_balls(2000, random_state=0)
    >>> from dpsvm.models import NonPrivateLinearClassifier
    >>> NonPrivateLinearClassifier(loss="hinge").fit(X, y).coef_.shape
    (1, 5)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **LinearModelBase._parameter_constraints,
        "loss": [StrOptions({"huber", "hinge", "logistic"})],
        "huber_h": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        loss: str = "huber",
        huber_h: float = 0.5,
        regularization: float = 0.01,
        data_norm: float | None = 1.0,
        fit_intercept: bool = False,
        intercept_scaling: float = 0.5,
        classes: ArrayLike | None = None,
        tol: float = 1e-10,
        max_iter: int = 200,
    ) -> None:
        self.loss = loss
        self.huber_h = huber_h
        self.regularization = regularization
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter

    def _resolve_classes(self, y: np.ndarray, all_public: bool = False) -> np.ndarray:
        return reference_label_set(self.classes, y, all_public=all_public)

    def _resolve_data_norm(self, norms: FloatArray) -> float:
        if self.data_norm is None:
            norm = float(np.max(norms)) if norms.size else 1.0
            return norm if norm > 0 else 1.0
        return float(self.data_norm)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: Any, y: Any) -> NonPrivateLinearClassifier:
        loss = get_loss(self.loss, huber_h=self.huber_h)
        Xt, targets, lam = self._prepare_fit(X, y)
        W = np.empty((len(targets), Xt.shape[1]))
        iters = []
        for j, yk in enumerate(targets):
            res = _solve(Xt, yk, loss, lam, tol=self.tol, max_iter=self.max_iter)
            W[j] = res.coef
            iters.append(res.n_iter)
        self._set_coef(W)
        self.n_iter_ = np.array(iters)
        return self
